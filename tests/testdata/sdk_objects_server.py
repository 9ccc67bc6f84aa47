"""A server written for the SDK that returns the SDK's own objects (mcp.types,
its prompt messages, its Image helper), served by mcp_ref's MCPServer, or by
the SDK's own with SDK_OBJECTS_SERVER=sdk (test_sdk_objects compares the frames).

Needs the SDK (test-only).  Only the MCPServer line differs between the two.
"""

import base64
import os
import sys
from typing import Any, List

from mcp.server.mcpserver import AssistantMessage, Context, Image, UserMessage
from mcp.types import (AudioContent, BlobResourceContents, CallToolResult, ElicitRequest,
                       ElicitRequestFormParams, EmbeddedResource, GetPromptResult, Icon, ImageContent,
                       InputRequiredResult, PromptMessage, ResourceLink, TextContent, TextResourceContents)

if os.environ.get("SDK_OBJECTS_SERVER") == "sdk":
    from mcp.server import MCPServer
else:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from mcp_ref import MCPServer  # type: ignore[assignment]

PNG = base64.b64encode(b"\x89PNG not really").decode()
ICON = Icon(src="https://example.com/icon.png")
QUESTION = ElicitRequest(params=ElicitRequestFormParams(
    message="Which city?", requested_schema={"type": "object", "properties": {"city": {"type": "string"}}}))

mcp = MCPServer("sdk-objects", icons=[ICON])


def city(answers: Any) -> str:
    """The answer's city: mcp_ref hands the answers over as JSON, the SDK as its models."""
    answer = answers["city"]
    return str((answer["content"] if isinstance(answer, dict) else answer.content)["city"])


@mcp.tool(icons=[ICON])
def blocks() -> List[Any]:
    """Every content block, as the SDK's models."""
    return [
        TextContent(type="text", text="hello"),
        ImageContent(type="image", data=PNG, mime_type="image/png"),
        AudioContent(type="audio", data=PNG, mime_type="audio/wav"),
        EmbeddedResource(type="resource", resource=TextResourceContents(uri="test://a", text="a text")),
        EmbeddedResource(type="resource", resource=BlobResourceContents(uri="test://b", blob=PNG,
                                                                        mime_type="image/png")),
        ResourceLink(type="resource_link", name="c", uri="test://c"),
    ]


@mcp.tool()
def image() -> Image:
    """The SDK's Image helper."""
    return Image(data=b"\x89PNG", format="png")


@mcp.tool()
def result() -> CallToolResult:
    """A whole CallToolResult, with structured content and _meta."""
    return CallToolResult(content=[TextContent(type="text", text="done")], structured_content={"n": 1},
                          _meta={"k": "v"})


@mcp.tool()
def failed() -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text="no")], is_error=True)


@mcp.tool()
def ask(ctx: Context) -> Any:
    """2026-07-28: asks the client with the SDK's InputRequiredResult, then answers."""
    answers = ctx.input_responses
    if not answers:
        return InputRequiredResult(input_requests={"city": QUESTION}, request_state="round-1")
    return f"city: {city(answers)}"


@mcp.prompt()
def messages() -> List[Any]:
    """The SDK's prompt messages."""
    return [UserMessage(content=TextContent(type="text", text="hi")), AssistantMessage("hello"),
            UserMessage(EmbeddedResource(type="resource", resource=TextResourceContents(uri="test://a", text="t")))]


@mcp.prompt()
def prompt_message() -> PromptMessage:
    """mcp.types' PromptMessage: a message for mcp_ref, JSON text for the SDK."""
    return PromptMessage(role="assistant", content=TextContent(type="text", text="as the assistant"))


@mcp.prompt()
def whole_result() -> GetPromptResult:
    """A whole GetPromptResult: its messages for mcp_ref, JSON text for the SDK."""
    return GetPromptResult(messages=[PromptMessage(role="user", content=TextContent(type="text", text="x"))])


@mcp.prompt()
def asking_prompt(ctx: Context) -> Any:
    if not ctx.input_responses:
        return InputRequiredResult(input_requests={"city": QUESTION})
    return f"city: {city(ctx.input_responses)}"


@mcp.resource("test://asking/{name}")
def asking_resource(name: str, ctx: Context) -> Any:
    if not ctx.input_responses:
        return InputRequiredResult(input_requests={"city": QUESTION})
    return f"{name}: {city(ctx.input_responses)}"


@mcp.resource("test://contents")
def contents() -> TextResourceContents:
    """Resource contents returned from a resource: both send its JSON text."""
    return TextResourceContents(uri="test://other", text="inside")


if __name__ == "__main__":
    mcp.run()

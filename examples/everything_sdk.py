"""The conformance fixture (examples/everything.py) written for the official SDK.

The same tools, resources and prompts, with the results the conformance suite
expects, but as a server written for ``mcp`` 2.3 reads: the SDK's imports,
its content and request models from ``mcp.types``, pydantic models for
elicitation, ``MCPError`` for a protocol error, ``InputRequiredResult`` with
the SDK's request objects.  It serves Streamable HTTP on the address given:

    python examples/everything_sdk.py 127.0.0.1:8000

.ci/conformance.py --fixture runs the suite against it three ways: as written,
with the SDK installed (the SDK serves it); its ``from mcp... import`` lines
rewritten to ``from mcp_ref import`` (``--rewrite-imports all``: pydantic
installed, the SDK not); as written but ``MCPServer`` from mcp_ref
(``--rewrite-imports MCPServer``: the SDK installed).

It needs pydantic, and ``mcp`` or mcp_ref.  Where the SDK's MCPServer has no
public API (logging/setLevel and resources/subscribe handlers, a hand-written
inputSchema), the file reaches into the SDK's private attributes, as the
SDK's own fixture does, and says so; mcp_ref needs none of that.
"""

import asyncio
import base64
import json
import sys
from typing import Annotated, Any, Dict, List, Optional, Tuple, Union

from mcp.server import ServerRequestContext
from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve
from mcp.server.mcpserver.prompts.base import Prompt, UserMessage
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from mcp.shared.exceptions import MCPError
from mcp.types import (
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    AudioContent,
    Completion,
    CompletionArgument,
    CompletionContext,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    EmbeddedResource,
    EmptyResult,
    ImageContent,
    InputRequest,
    InputRequiredResult,
    JSONRPCMessage,
    ListRootsRequest,
    ListRootsResult,
    PromptReference,
    ResourceTemplateReference,
    SamplingMessage,
    SetLevelRequestParams,
    SubscribeRequestParams,
    TextContent,
    TextResourceContents,
    UnsubscribeRequestParams,
)
from pydantic import BaseModel, Field

# A 1x1 PNG and a minimal WAV file, as the suite's reference server sends them.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="


class MemoryEvents(EventStore):
    """Resumable SSE streams (SEP-1699): every event kept, in order, in memory."""

    def __init__(self) -> None:
        self.events: List[Tuple[str, str, Optional[JSONRPCMessage]]] = []  # (stream, event id, message)

    async def store_event(self, stream_id: str, message: Optional[JSONRPCMessage]) -> str:
        event_id = str(len(self.events) + 1)
        self.events.append((stream_id, event_id, message))
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> Optional[str]:
        stream = next((s for s, event_id, _ in self.events if event_id == last_event_id), None)
        if stream is None:
            return None
        for s, event_id, message in self.events[int(last_event_id):]:
            if s == stream and message is not None:  # None: a priming event, nothing to resend
                await send_callback(EventMessage(message, event_id))
        return stream


# requestState is protected with a key made per process (the SDK's default, and
# mcp_ref's): enough for one process.  Several share theirs with
# request_state_security=RequestStateSecurity(keys=[secret]), whose SDK object
# mcp_ref refuses (the SDK encrypts; mcp_ref signs): it takes its own.
mcp = MCPServer(name="mcp-conformance-test-server", version="1.0.0")


# -- content (tools-call-*) ---------------------------------------------------


@mcp.tool()
def test_simple_text() -> str:
    """Tests simple text content response"""
    return "This is a simple text response for testing."


@mcp.tool()
def test_image_content() -> list[ImageContent]:
    """Tests image content response"""
    return [ImageContent(type="image", data=PNG, mime_type="image/png")]


@mcp.tool()
def test_audio_content() -> list[AudioContent]:
    """Tests audio content response"""
    return [AudioContent(type="audio", data=WAV, mime_type="audio/wav")]


@mcp.tool()
def test_embedded_resource() -> list[EmbeddedResource]:
    """Tests embedded resource content response"""
    text = TextResourceContents(uri="test://embedded-resource", mime_type="text/plain",
                                text="This is an embedded resource content.")
    return [EmbeddedResource(type="resource", resource=text)]


@mcp.tool()
def test_multiple_content_types() -> list[Union[TextContent, ImageContent, EmbeddedResource]]:
    """Tests response with multiple content types (text, image, resource)"""
    data = TextResourceContents(uri="test://mixed-content-resource", mime_type="application/json",
                                text=json.dumps({"test": "data", "value": 123}))
    return [
        TextContent(type="text", text="Multiple content types test:"),
        ImageContent(type="image", data=PNG, mime_type="image/png"),
        EmbeddedResource(type="resource", resource=data),
    ]


@mcp.tool()
def test_error_handling() -> str:
    """Tests error response handling"""
    raise RuntimeError("This tool intentionally returns an error for testing")  # any exception: isError


@mcp.tool()
def test_custom_headers(
    region: Annotated[str, Field(description="Mirrored in the Mcp-Param-Region header",
                                 json_schema_extra={"x-mcp-header": "Region"})],
    query: str = "",
) -> str:
    """Tests x-mcp-header: region is mirrored in the Mcp-Param-Region header (SEP-2243)"""
    return f"region={region} query={query}"


# -- logging, progress, sampling, elicitation -------------------------------------


@mcp.tool()
async def test_tool_with_logging(ctx: Context) -> str:
    """Tests tool that emits log messages during execution"""
    for text in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        await ctx.info(text)
        await asyncio.sleep(0.02)
    return "Tool with logging executed successfully"


@mcp.tool()
async def test_tool_with_progress(ctx: Context) -> str:
    """Tests tool that reports progress notifications"""
    for step in (0, 50, 100):
        await ctx.report_progress(progress=step, total=100, message=f"Completed step {step} of 100")
    meta = ctx.request_context.meta
    return str(meta.get("progress_token") if meta else 0)


@mcp.tool()
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Tests server-initiated sampling (LLM completion request)"""
    # related_request_id: on the call's own stream (the GET stream may not be open yet).
    result = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
        max_tokens=100, related_request_id=ctx.request_id)
    return f"LLM response: {result.content.text if result.content.type == 'text' else 'No response'}"


class Answer(BaseModel):
    response: str = Field(description="User's response")


class Defaults(BaseModel):
    """SEP-1034: a default for every primitive type."""

    name: str = Field(default="John Doe", description="User name")
    age: int = Field(default=30, description="User age")
    score: float = Field(default=95.5, description="User score")
    status: str = Field(default="active", description="User status",
                        json_schema_extra={"enum": ["active", "inactive", "pending"]})
    verified: bool = Field(default=True, description="Verification status")


def _titled(*options: Tuple[str, str]) -> List[Dict[str, str]]:
    return [{"const": value, "title": title} for value, title in options]


class Enums(BaseModel):
    """SEP-1330: the enum shapes, titled and untitled, single and multiple."""

    untitledSingle: str = Field(description="Simple enum without titles",  # noqa: N815 - the suite's names
                                json_schema_extra={"enum": ["active", "inactive", "pending"]})
    titledSingle: str = Field(description="Enum with titled options (oneOf)", json_schema_extra={  # noqa: N815
        "oneOf": _titled(("low", "Low Priority"), ("medium", "Medium Priority"), ("high", "High Priority"))})
    untitledMulti: List[str] = Field(description="Multi-select without titles", json_schema_extra={  # noqa: N815
        "items": {"type": "string", "enum": ["read", "write", "execute"]}})
    titledMulti: List[str] = Field(description="Multi-select with titled options", json_schema_extra={  # noqa: N815
        "items": {"anyOf": _titled(("feature", "New Feature"), ("bug", "Bug Fix"), ("docs", "Documentation"))}})
    legacyEnum: str = Field(description="Legacy enum with enumNames", json_schema_extra={  # noqa: N815
        "enum": ["small", "medium", "large"], "enumNames": ["Small Size", "Medium Size", "Large Size"]})


async def _ask(ctx: Context, message: str, schema: type) -> Tuple[str, str]:
    """The elicitation's action and what was answered, as JSON ("{}" when not accepted)."""
    result = await ctx.elicit(message=message, schema=schema)
    return result.action, result.data.model_dump_json() if result.action == "accept" else "{}"


@mcp.tool()
async def test_elicitation(message: str, ctx: Context) -> str:
    """Tests server-initiated elicitation (user input request)"""
    action, content = await _ask(ctx, message, Answer)
    return f"User response: action={action}, content={content}"


@mcp.tool()
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Tests elicitation with default values for all primitive types (SEP-1034)"""
    action, content = await _ask(ctx, "Please provide user information", Defaults)
    return f"Elicitation result: action={action}, content={content}"


@mcp.tool()
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Tests elicitation with enum schema variations per SEP-1330"""
    action, content = await _ask(ctx, "Please select values using different enum schema types", Enums)
    return f"Elicitation completed: action={action}, content={content}"


# -- 2026-07-28: the diagnostics of server-stateless ---------------------------------


@mcp.tool()
async def test_missing_capability(ctx: Context) -> str:
    """Needs sampling: a JSON-RPC error -32021 when the client did not declare it"""
    capabilities = ctx.session.client_capabilities
    if capabilities is None or capabilities.sampling is None:
        raise MCPError(code=MISSING_REQUIRED_CLIENT_CAPABILITY,  # a protocol error, not isError
                       message="This tool requires the client 'sampling' capability",
                       data={"requiredCapabilities": {"sampling": {}}})
    return "The client declared sampling"


class Proceed(BaseModel):
    ok: bool = False


def _proceed() -> Elicit[Proceed]:
    return Elicit("Continue?", Proceed)


@mcp.tool()
async def test_streaming_elicitation(
    ctx: Context, answer: Annotated[ElicitationResult[Proceed], Resolve(_proceed)]
) -> str:
    """Asks the user: in 2026-07-28 an InputRequiredResult, never a request on the stream"""
    # A resolver, not ctx.elicit: in 2026-07-28 the SDK refuses to send a request
    # mid-call (-32600, no back-channel); a resolver's question becomes the result.
    await ctx.report_progress(progress=1, total=1, message="answered")
    return f"action={answer.action}"


@mcp.tool()
async def test_logging_tool(ctx: Context) -> str:
    """Logs at info: nothing is sent to a request without a log level"""
    await ctx.info("a log line")
    return "logged"


@mcp.tool()
async def test_reconnection(ctx: Context) -> str:
    """Tests SSE polling: closes the stream mid-call; the result comes on the resumed one (SEP-1699)"""
    await ctx.info("Before disconnect")
    await ctx.close_sse_stream()
    await asyncio.sleep(0.2)  # the client reconnects with Last-Event-ID meanwhile
    await ctx.info("After reconnect")
    return "Reconnection test completed"


def _dynamic() -> str:
    """Registered and removed at once by the two tools below."""
    return "dynamic"


@mcp.tool()
async def test_trigger_tool_change(ctx: Context) -> str:
    """Changes the tool list: one notifications/tools/list_changed to the listen streams (SEP-2575)"""
    mcp.add_tool(_dynamic, name="test_dynamic_tool")
    mcp.remove_tool("test_dynamic_tool")
    await ctx.notify_tools_changed()
    return "tool list changed"


@mcp.tool()
async def test_trigger_prompt_change(ctx: Context) -> str:
    """Changes the prompt list: one notifications/prompts/list_changed to the listen streams (SEP-2575)"""
    mcp.add_prompt(Prompt.from_function(_dynamic, name="test_dynamic_prompt", description="dynamic"))
    mcp.remove_prompt("test_dynamic_prompt")
    await ctx.notify_prompts_changed()
    return "prompt list changed"


# -- 2026-07-28: InputRequiredResult (basic/patterns/mrtr, SEP-2322) ----------------


def _form(message: str, field: str, kind: str = "string") -> ElicitRequest:
    schema = {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))


def _sample(text: str, max_tokens: int) -> CreateMessageRequest:
    message = SamplingMessage(role="user", content=TextContent(type="text", text=text))
    return CreateMessageRequest(params=CreateMessageRequestParams(messages=[message], max_tokens=max_tokens))


def _accepted(ctx: Context, key: str, field: str) -> Optional[str]:
    """The ``field`` of an accepted form answered under ``key``, if any."""
    answer = (ctx.input_responses or {}).get(key)
    if isinstance(answer, ElicitResult) and answer.action == "accept" and answer.content:
        return str(answer.content.get(field))
    return None


@mcp.tool()
async def test_input_required_result_elicitation(ctx: Context) -> Union[str, InputRequiredResult]:
    """An elicitation through InputRequiredResult"""
    name = _accepted(ctx, "user_name", "name")
    if name is not None:
        return f"Hello, {name}!"
    return InputRequiredResult(input_requests={"user_name": _form("What is your name?", "name")})


@mcp.tool()
async def test_input_required_result_sampling(ctx: Context) -> Union[str, InputRequiredResult]:
    """A sampling request through InputRequiredResult"""
    answer = (ctx.input_responses or {}).get("capital_question")
    if isinstance(answer, CreateMessageResult):
        return f"Sampling said: {answer.content.text if answer.content.type == 'text' else '?'}"
    return InputRequiredResult(input_requests={"capital_question": _sample("What is the capital of France?", 100)})


@mcp.tool()
async def test_input_required_result_list_roots(ctx: Context) -> Union[str, InputRequiredResult]:
    """A roots/list request through InputRequiredResult"""
    answer = (ctx.input_responses or {}).get("client_roots")
    if isinstance(answer, ListRootsResult):
        return "Roots: " + ", ".join(str(root.uri) for root in answer.roots)
    return InputRequiredResult(input_requests={"client_roots": ListRootsRequest()})


@mcp.tool()
async def test_input_required_result_request_state(ctx: Context) -> Union[str, InputRequiredResult]:
    """requestState round-tripped"""
    if ctx.request_state == "confirm-pending" and "confirm" in (ctx.input_responses or {}):
        return "state-ok: confirmed"
    return InputRequiredResult(input_requests={"confirm": _form("Please confirm", "ok", "boolean")},
                               request_state="confirm-pending")


@mcp.tool()
async def test_input_required_result_multiple_inputs(ctx: Context) -> Union[str, InputRequiredResult]:
    """Elicitation, sampling and roots in one InputRequiredResult"""
    if {"user_name", "greeting", "client_roots"} <= set(ctx.input_responses or {}):
        return "All inputs received"
    return InputRequiredResult(input_requests={"user_name": _form("What is your name?", "name"),
                                               "greeting": _sample("Generate a greeting", 50),
                                               "client_roots": ListRootsRequest()},
                               request_state="multiple")


@mcp.tool()
async def test_input_required_result_multi_round(ctx: Context) -> Union[str, InputRequiredResult]:
    """Two rounds of questions, the state evolving"""
    if ctx.request_state == "round-2" and _accepted(ctx, "step2", "color") is not None:
        return "Both steps complete"
    if ctx.request_state == "round-1" and _accepted(ctx, "step1", "name") is not None:
        return InputRequiredResult(input_requests={"step2": _form("Step 2: What is your favorite color?", "color")},
                                   request_state="round-2")
    return InputRequiredResult(input_requests={"step1": _form("Step 1: What is your name?", "name")},
                               request_state="round-1")


@mcp.tool()
async def test_input_required_result_tampered_state(ctx: Context) -> Union[str, InputRequiredResult]:
    """requestState that must be integrity-protected (the server refuses a tampered one)"""
    if ctx.request_state == "signed" and "confirm" in (ctx.input_responses or {}):
        return "state verified"
    return InputRequiredResult(input_requests={"confirm": _form("Confirm?", "ok", "boolean")}, request_state="signed")


@mcp.tool()
async def test_input_required_result_capabilities(ctx: Context) -> Union[str, InputRequiredResult]:
    """Only the questions the client's capabilities allow"""
    caps = ctx.client_capabilities
    questions: Dict[str, InputRequest] = {}
    if caps is not None and caps.sampling is not None:
        questions["capital_question"] = _sample("What is the capital of France?", 100)
    if caps is not None and caps.elicitation is not None:
        questions["user_name"] = _form("What is your name?", "name")
    if not questions or set(questions) <= set(ctx.input_responses or {}):
        return "Capabilities respected"
    return InputRequiredResult(input_requests=questions)


# -- JSON Schema 2020-12 (SEP-1613, SEP-2106): a hand-written inputSchema ----------

CONTACT_SCHEMA: Dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                          "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
                   "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                   "phone": {"type": "string"}, "email": {"type": "string"}},
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


def json_schema_2020_12_tool(**contact: Any) -> str:
    """Tests JSON Schema 2020-12 keywords in a hand-written inputSchema"""
    return f"contact: {json.dumps(contact, sort_keys=True)}"


if hasattr(mcp, "_tool_manager"):
    # The SDK's MCPServer has no public way to publish a hand-written schema:
    # its own fixture replaces a private attribute (and validates nothing).
    mcp.add_tool(json_schema_2020_12_tool)
    mcp._tool_manager._tools["json_schema_2020_12_tool"].parameters = CONTACT_SCHEMA
else:  # mcp_ref: published as written, the arguments checked against it
    mcp.add_tool(json_schema_2020_12_tool, input_schema=CONTACT_SCHEMA)


# -- resources ------------------------------------------------------------------

subscribed: set = set()


@mcp.resource("test://static-text", name="static-text", title="Static Text Resource", mime_type="text/plain")
def static_text() -> str:
    """A static text resource for testing"""
    return "This is the content of the static text resource."


@mcp.resource("test://static-binary", name="static-binary", title="Static Binary Resource", mime_type="image/png")
def static_binary() -> bytes:
    """A static binary resource (image) for testing"""
    return base64.b64decode(PNG)


@mcp.resource("test://watched-resource", name="watched-resource", title="Watched Resource", mime_type="text/plain")
def watched_resource() -> str:
    """A resource that can be subscribed to for updates"""
    return "Watched resource content"


@mcp.resource("test://template/{id}/data", name="template", title="Resource Template", mime_type="application/json")
def template(id: str) -> str:
    """A resource template with parameter substitution"""
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


# The SDK's MCPServer answers logging/setLevel and resources/(un)subscribe only
# with handlers added to its private low-level server; mcp_ref answers them itself.
async def set_level(ctx: ServerRequestContext, params: SetLevelRequestParams) -> EmptyResult:
    return EmptyResult()


async def subscribe(ctx: ServerRequestContext, params: SubscribeRequestParams) -> EmptyResult:
    subscribed.add(str(params.uri))
    return EmptyResult()


async def unsubscribe(ctx: ServerRequestContext, params: UnsubscribeRequestParams) -> EmptyResult:
    subscribed.discard(str(params.uri))
    return EmptyResult()


if hasattr(mcp, "_lowlevel_server"):
    mcp._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)
    mcp._lowlevel_server.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
    mcp._lowlevel_server.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)


# -- prompts and completion --------------------------------------------------------


def _user(content: Union[TextContent, ImageContent, EmbeddedResource]) -> UserMessage:
    return UserMessage(role="user", content=content)


@mcp.prompt(title="Simple Test Prompt")
def test_simple_prompt() -> list[UserMessage]:
    """A simple prompt without arguments"""
    return [_user(TextContent(type="text", text="This is a simple prompt for testing."))]


@mcp.prompt(title="Prompt With Arguments")
def test_prompt_with_arguments(arg1: str, arg2: str) -> list[UserMessage]:
    """A prompt with required arguments"""
    return [_user(TextContent(type="text", text=f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"))]


@mcp.prompt(title="Prompt With Embedded Resource")
def test_prompt_with_embedded_resource(resourceUri: str) -> list[UserMessage]:  # noqa: N803 - the suite's name
    """A prompt that includes an embedded resource"""
    text = TextResourceContents(uri=resourceUri, mime_type="text/plain", text="Embedded resource content for testing.")
    return [_user(EmbeddedResource(type="resource", resource=text)),
            _user(TextContent(type="text", text="Please process the embedded resource above."))]


@mcp.prompt(title="Prompt With Image")
def test_prompt_with_image() -> list[UserMessage]:
    """A prompt that includes image content"""
    return [_user(ImageContent(type="image", data=PNG, mime_type="image/png")),
            _user(TextContent(type="text", text="Please analyze the image above."))]


@mcp.prompt()
async def test_input_required_result_prompt(ctx: Context) -> Union[list[UserMessage], InputRequiredResult]:
    """A prompt that asks the client first (2026-07-28)"""
    context = _accepted(ctx, "user_context", "context")
    if context is not None:
        return [_user(TextContent(type="text", text=f"Use this context: {context}"))]
    return InputRequiredResult(input_requests={
        "user_context": _form("What context should the prompt use?", "context")})


@mcp.completion()
async def complete(ref: Union[PromptReference, ResourceTemplateReference], argument: CompletionArgument,
                   context: Optional[CompletionContext]) -> Completion:
    """"Completion support can be minimal": the capability and the endpoint."""
    return Completion(values=[], total=0, has_more=False)


if __name__ == "__main__":
    host, _, port = (sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:3001").rpartition(":")
    # retry_interval: SSE polling clients come back after 100 ms, not the default second.
    mcp.run(transport="streamable-http", host=host, port=int(port), event_store=MemoryEvents(), retry_interval=100)

"""The conformance suite's fixture server: the tools, resources and prompts the
server scenarios of ``@modelcontextprotocol/conformance`` call, with the names
and results its reference server (examples/servers/typescript/everything-server.ts
in that repository) gives them.

    python mcp_ref.py serve examples/everything.py --http 127.0.0.1:8000
    gunicorn -k gthread -w 4 'mcp_ref:wsgi_app("examples/everything.py")'

Each part is registered only when mcp_ref has the feature it needs, so the
fixture grows with mcp_ref: content tools now; the tools that log, report
progress, sample or elicit once ``Context`` exists; resources, prompts and
completion once ``MCPServer.resource`` and ``MCPServer.prompt`` do.  Those
parts are written against the official SDK's API, which mcp_ref mirrors.
"""

import json

import mcp_ref
from mcp_ref import AudioContent, EmbeddedResource, ImageContent, MCPServer, TextContent, ToolError

mcp = MCPServer("mcp-conformance-test-server", version="1.0.0")

# A 1x1 PNG and a minimal WAV file, as the reference server sends them.
TEST_IMAGE_BASE64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
TEST_AUDIO_BASE64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="


# -- content (tools-call-*) ---------------------------------------------------


@mcp.tool(description="Tests simple text content response")
def test_simple_text() -> TextContent:
    return TextContent(text="This is a simple text response for testing.")


@mcp.tool(description="Tests image content response")
def test_image_content() -> ImageContent:
    return ImageContent(data=TEST_IMAGE_BASE64, mime_type="image/png")


@mcp.tool(description="Tests audio content response")
def test_audio_content() -> AudioContent:
    return AudioContent(data=TEST_AUDIO_BASE64, mime_type="audio/wav")


@mcp.tool(description="Tests embedded resource content response")
def test_embedded_resource() -> EmbeddedResource:
    return EmbeddedResource(resource={"uri": "test://embedded-resource", "mimeType": "text/plain",
                                      "text": "This is an embedded resource content."})


@mcp.tool(description="Tests response with multiple content types (text, image, resource)")
def test_multiple_content_types() -> list:
    return [
        TextContent(text="Multiple content types test:"),
        ImageContent(data=TEST_IMAGE_BASE64, mime_type="image/png"),
        EmbeddedResource(resource={"uri": "test://mixed-content-resource", "mimeType": "application/json",
                                   "text": json.dumps({"test": "data", "value": 123})}),
    ]


@mcp.tool(description="Tests error response handling")
def test_error_handling() -> str:
    raise ToolError("This tool intentionally returns an error for testing")


@mcp.tool(description="Tests x-mcp-header: region is mirrored in the Mcp-Param-Region header")
def test_custom_headers(region: str, query: str = "") -> str:
    return f"region={region} query={query}"


# mcp_ref's Field has no json_schema_extra: the annotation is added to the
# published schema directly (2026-07-28 server/tools, "x-mcp-header").
mcp._tools["test_custom_headers"].input_schema["properties"]["region"]["x-mcp-header"] = "Region"


# -- the tools that need Context (logging, progress, sampling, elicitation) -----

Context = getattr(mcp_ref, "Context", None)

if Context is not None:

    @mcp.tool(description="Tests tool that emits log messages during execution")
    async def test_tool_with_logging(ctx: Context) -> str:  # type: ignore[valid-type]
        for text in ("Tool execution started", "Tool processing data", "Tool execution completed"):
            await ctx.info(text)
        return "Tool with logging executed successfully"

    @mcp.tool(description="Tests tool that reports progress notifications")
    async def test_tool_with_progress(ctx: Context) -> str:  # type: ignore[valid-type]
        for step in (0, 50, 100):
            await ctx.report_progress(step, 100, f"Completed step {step} of 100")
        return str(ctx.request_context.meta.progressToken if ctx.request_context.meta else 0)

    @mcp.tool(description="Tests server-initiated sampling (LLM completion request)")
    async def test_sampling(prompt: str, ctx: Context) -> str:  # type: ignore[valid-type]
        from mcp_ref import SamplingMessage  # type: ignore[attr-defined]

        result = await ctx.session.create_message(
            messages=[SamplingMessage(role="user", content=TextContent(text=prompt))], max_tokens=100)
        return f"LLM response: {getattr(result.content, 'text', 'No response')}"

    @mcp.tool(description="Tests server-initiated elicitation (user input request)")
    async def test_elicitation(message: str, ctx: Context) -> str:  # type: ignore[valid-type]
        schema = {"type": "object", "properties": {"response": {"type": "string", "description": "User's response"}},
                  "required": ["response"]}
        result = await ctx.session.elicit(message=message, requested_schema=schema)
        return f"User response: action={result.action}, content={json.dumps(result.content or {})}"


# -- resources, prompts, completion ---------------------------------------------

if hasattr(mcp, "resource"):

    @mcp.resource("test://static-text", name="static-text", title="Static Text Resource",
                  description="A static text resource for testing", mime_type="text/plain")
    def static_text() -> str:
        return "This is the content of the static text resource."

    @mcp.resource("test://static-binary", name="static-binary", title="Static Binary Resource",
                  description="A static binary resource (image) for testing", mime_type="image/png")
    def static_binary() -> bytes:
        import base64

        return base64.b64decode(TEST_IMAGE_BASE64)

    @mcp.resource("test://template/{id}/data", name="template", title="Resource Template",
                  description="A resource template with parameter substitution", mime_type="application/json")
    def template(id: str) -> str:
        return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})

if hasattr(mcp, "prompt"):

    @mcp.prompt(title="Simple Test Prompt", description="A simple prompt without arguments")
    def test_simple_prompt() -> str:
        return "This is a simple prompt for testing."

    @mcp.prompt(title="Prompt With Arguments", description="A prompt with required arguments")
    def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
        return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"

    @mcp.prompt(title="Prompt With Embedded Resource", description="A prompt that includes an embedded resource")
    def test_prompt_with_embedded_resource(resourceUri: str) -> list:  # noqa: N803 - the suite's argument name
        return [
            {"role": "user", "content": {"type": "resource", "resource": {
                "uri": resourceUri, "mimeType": "text/plain", "text": "Embedded resource content for testing."}}},
            {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}},
        ]

    @mcp.prompt(title="Prompt With Image", description="A prompt that includes image content")
    def test_prompt_with_image() -> list:
        return [
            {"role": "user", "content": {"type": "image", "data": TEST_IMAGE_BASE64, "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}},
        ]


if __name__ == "__main__":
    mcp.run(transport="streamable-http")

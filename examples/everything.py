"""The conformance suite's fixture server: the tools, resources and prompts the
server scenarios of ``@modelcontextprotocol/conformance`` call, with the names
and results its reference server (examples/servers/typescript/everything-server.ts
in that repository) gives them.

    python -m mcp_ref serve examples/everything.py --http 127.0.0.1:8000
    gunicorn -k gthread -w 4 'mcp_ref:wsgi_app("examples/everything.py")'

Each part is registered only when mcp_ref has the feature it needs, so the
fixture grows with mcp_ref: content tools now; the tools that log, report
progress, sample or elicit once ``Context`` exists; resources, prompts and
completion once ``MCPServer.resource`` and ``MCPServer.prompt`` do.  Those
parts use the Context's own methods (``ctx.create_message``,
``ctx.elicit_form``, ``ctx.meta``), not the SDK's ``ctx.session`` and
``ctx.request_context``: the same file is served by the core alone (mcp_ref.py
cut at its line "# ---- layers", .ci/conformance.py --core) and by the whole file.
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
def test_custom_headers(region: str = mcp_ref.Field(json_schema_extra={"x-mcp-header": "Region"}),
                        query: str = "") -> str:  # (2026-07-28 server/tools, "x-mcp-header")
    return f"region={region} query={query}"


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
        return str(ctx.meta.progress_token or 0)

    def said(result: dict, otherwise: str) -> object:
        """The text the client's model answered (a CreateMessageResult as JSON):
        its one content block's, or ``otherwise`` for a list of blocks."""
        content = result.get("content")
        return content.get("text") if isinstance(content, dict) else otherwise

    @mcp.tool(description="Tests server-initiated sampling (LLM completion request)")
    async def test_sampling(prompt: str, ctx: Context) -> str:  # type: ignore[valid-type]
        result = await ctx.create_message([{"role": "user", "content": {"type": "text", "text": prompt}}], 100)
        return f"LLM response: {said(result, 'No response')}"

    @mcp.tool(description="Tests server-initiated elicitation (user input request)")
    async def test_elicitation(message: str, ctx: Context) -> str:  # type: ignore[valid-type]
        schema = {"type": "object", "properties": {"response": {"type": "string", "description": "User's response"}},
                  "required": ["response"]}
        result = await ctx.elicit_form(message, schema)  # the client's ElicitResult, as JSON
        return f"User response: action={result['action']}, content={json.dumps(result.get('content') or {})}"


    @mcp.tool(description="Tests elicitation with default values for all primitive types (SEP-1034)")
    async def test_elicitation_sep1034_defaults(ctx: Context) -> str:  # type: ignore[valid-type]
        schema = {"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe", "description": "User name"},
            "age": {"type": "integer", "default": 30, "description": "User age"},
            "score": {"type": "number", "default": 95.5, "description": "User score"},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active",
                       "description": "User status"},
            "verified": {"type": "boolean", "default": True, "description": "Verification status"}}}
        result = await ctx.elicit_form("Please provide user information", schema)
        return f"Elicitation result: action={result['action']}, content={json.dumps(result.get('content') or {})}"

    @mcp.tool(description="Tests elicitation with enum schema variations per SEP-1330")
    async def test_elicitation_sep1330_enums(ctx: Context) -> str:  # type: ignore[valid-type]
        schema = {"type": "object", "properties": {
            "untitledSingle": {"type": "string", "enum": ["active", "inactive", "pending"]},
            "titledSingle": {"type": "string", "oneOf": [{"const": "low", "title": "Low Priority"},
                                                         {"const": "medium", "title": "Medium Priority"},
                                                         {"const": "high", "title": "High Priority"}]},
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["read", "write", "execute"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": [{"const": "feature", "title": "New Feature"},
                                                                 {"const": "bug", "title": "Bug Fix"},
                                                                 {"const": "docs", "title": "Documentation"}]}},
            "legacyEnum": {"type": "string", "enum": ["small", "medium", "large"],
                           "enumNames": ["Small Size", "Medium Size", "Large Size"]}}}
        result = await ctx.elicit_form("Please select values using different enum schema types", schema)
        return f"Elicitation completed: action={result['action']}, content={json.dumps(result.get('content') or {})}"

    # -- 2026-07-28 diagnostics of server-stateless ------------------------------------

    @mcp.tool(description="Needs sampling: -32021 when the client did not declare sampling")
    async def test_missing_capability(ctx: Context) -> str:  # type: ignore[valid-type]
        result = await ctx.create_message([{"role": "user", "content": {"type": "text", "text": "Say hi"}}], 10)
        return f"LLM response: {said(result, '')}"

    @mcp.tool(description="Asks the user: in 2026-07-28 an InputRequiredResult, never a request on the stream")
    async def test_streaming_elicitation(ctx: Context) -> str:  # type: ignore[valid-type]
        await ctx.report_progress(1, 2, "asking")
        result = await ctx.elicit_form("Continue?", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
        return f"action={result['action']}"

    @mcp.tool(description="Logs at info: nothing is sent to a request without a log level")
    async def test_logging_tool(ctx: Context) -> str:  # type: ignore[valid-type]
        await ctx.info("a log line")
        return "logged"

    @mcp.tool(description="Tests SSE polling: closes the stream mid-call; the result comes on the resumed one "
                          "(SEP-1699)")
    async def test_reconnection(ctx: Context) -> str:  # type: ignore[valid-type]
        import asyncio

        await ctx.close_sse_stream()
        await asyncio.sleep(0.1)
        return "Reconnection test completed"

    def _dynamic() -> str:
        return "dynamic"

    @mcp.tool(description="Changes the tool list: one notifications/tools/list_changed to the listen streams")
    async def test_trigger_tool_change(ctx: Context) -> str:  # type: ignore[valid-type]
        mcp.add_tool(_dynamic, name="test_dynamic_tool")
        mcp.remove_tool("test_dynamic_tool")
        await ctx.notify_tools_changed()  # as the SDK's fixture does: still one announcement
        return "tool list changed"

    if hasattr(mcp, "prompt"):

        @mcp.tool(description="Changes the prompt list: one notifications/prompts/list_changed to the listen streams")
        async def test_trigger_prompt_change(ctx: Context) -> str:  # type: ignore[valid-type]
            mcp.add_prompt(mcp_ref.Prompt(_dynamic, name="test_dynamic_prompt"))
            mcp.remove_prompt("test_dynamic_prompt")
            await ctx.notify_prompts_changed()
            return "prompt list changed"

    # -- 2026-07-28: InputRequiredResult (basic/patterns/mrtr), keys as the suite names them --

    from mcp_ref import InputRequiredResult

    NAME = {"method": "elicitation/create", "params": {
        "mode": "form", "message": "What is your name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}
    CAPITAL = {"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
        "maxTokens": 100}}
    ROOTS = {"method": "roots/list", "params": {}}

    def answered(ctx: Context, key: str) -> dict:  # type: ignore[valid-type]
        answer = (ctx.input_responses or {}).get(key)
        return answer if isinstance(answer, dict) else {}

    @mcp.tool(description="An elicitation through InputRequiredResult")
    def test_input_required_result_elicitation(ctx: Context):  # type: ignore[no-untyped-def, valid-type]
        answer = answered(ctx, "user_name")
        if answer.get("action") == "accept" and isinstance(answer.get("content"), dict):
            return f"Hello, {answer['content'].get('name')}!"
        return InputRequiredResult(input_requests={"user_name": NAME})

    @mcp.tool(description="A sampling request through InputRequiredResult")
    def test_input_required_result_sampling(ctx: Context):  # type: ignore[no-untyped-def, valid-type]
        answer = answered(ctx, "capital_question")
        if answer:
            return f"Sampling said: {json.dumps(answer.get('content'))}"
        return InputRequiredResult(input_requests={"capital_question": CAPITAL})

    @mcp.tool(description="A roots/list request through InputRequiredResult")
    def test_input_required_result_list_roots(ctx: Context):  # type: ignore[no-untyped-def, valid-type]
        answer = answered(ctx, "client_roots")
        if isinstance(answer.get("roots"), list):
            return "Roots: " + ", ".join(str(r.get("uri")) for r in answer["roots"] if isinstance(r, dict))
        return InputRequiredResult(input_requests={"client_roots": ROOTS})

    @mcp.tool(description="requestState round-tripped")
    def test_input_required_result_request_state(ctx: Context):  # type: ignore[no-untyped-def, valid-type]
        if ctx.request_state == "confirm-pending" and answered(ctx, "confirm"):
            return "state-ok: confirmed"
        confirm = {"method": "elicitation/create", "params": {"mode": "form", "message": "Please confirm",
                   "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}},
                                       "required": ["ok"]}}}
        return InputRequiredResult(input_requests={"confirm": confirm}, request_state="confirm-pending")

    @mcp.tool(description="Elicitation, sampling and roots in one InputRequiredResult")
    def test_input_required_result_multiple_inputs(ctx: Context):  # type: ignore[no-untyped-def, valid-type]
        keys = ("user_name", "greeting", "client_roots")
        if all(answered(ctx, key) for key in keys):
            return "All inputs received"
        greeting = {"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}],
            "maxTokens": 50}}
        return InputRequiredResult(input_requests={"user_name": NAME, "greeting": greeting, "client_roots": ROOTS},
                                   request_state="multiple")

    @mcp.tool(description="Two rounds of questions, the state evolving")
    def test_input_required_result_multi_round(ctx: Context):  # type: ignore[no-untyped-def, valid-type]
        def ask(key: str, message: str, field: str) -> dict:
            return {key: {"method": "elicitation/create", "params": {"mode": "form", "message": message,
                    "requestedSchema": {"type": "object", "properties": {field: {"type": "string"}},
                                        "required": [field]}}}}

        if ctx.request_state == "round-2" and answered(ctx, "step2"):
            return "Both steps complete"
        if ctx.request_state == "round-1" and answered(ctx, "step1"):
            return InputRequiredResult(input_requests=ask("step2", "Step 2: What is your favorite color?", "color"),
                                       request_state="round-2")
        return InputRequiredResult(input_requests=ask("step1", "Step 1: What is your name?", "name"),
                                   request_state="round-1")

    @mcp.tool(description="requestState that must be integrity-protected")
    def test_input_required_result_tampered_state(ctx: Context):  # type: ignore[no-untyped-def, valid-type]
        if ctx.request_state == "signed" and answered(ctx, "confirm"):
            return "state verified"
        confirm = {"method": "elicitation/create", "params": {"mode": "form", "message": "Confirm?",
                   "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}
        return InputRequiredResult(input_requests={"confirm": confirm}, request_state="signed")

    @mcp.tool(description="Only the questions the client's capabilities allow")
    def test_input_required_result_capabilities(ctx: Context):  # type: ignore[no-untyped-def, valid-type]
        caps = ctx.client_capabilities
        questions = {}
        if caps is not None and caps.sampling is not None:
            questions["capital_question"] = CAPITAL
        if caps is not None and caps.elicitation is not None:
            questions["user_name"] = NAME
        if not questions or all(answered(ctx, key) for key in questions):
            return "Capabilities respected"
        return InputRequiredResult(input_requests=questions)


# -- tasks (the io.modelcontextprotocol/tasks extension, 2026-07-28) ---------------

if hasattr(mcp_ref, "TaskStore"):
    import time

    @mcp.tool(description="Greets by name (never a task)")
    def greet(name: str) -> str:
        return f"Hello, {name}!"

    @mcp.tool(description="Sleeps for seconds, then answers; stops when cancelled", task_support="optional")
    def slow_compute(ctx: Context, seconds: float = 1, label: str = "") -> str:  # type: ignore[valid-type]
        ctx.start_task()
        deadline = time.monotonic() + min(seconds, 300)
        while time.monotonic() < deadline and not ctx.cancelled:
            time.sleep(0.05)
        return f"Computed {label or 'result'} in {seconds}s"

    @mcp.tool(description="Fails with a tool error after a second", task_support="required")
    def failing_job() -> str:
        time.sleep(1)
        raise ToolError("The job failed")

    @mcp.tool(description="Fails with a protocol error", task_support="optional")
    def protocol_error_job() -> str:
        time.sleep(0.2)
        raise mcp_ref.MCPError(mcp_ref.INTERNAL_ERROR, "The job crashed")

    @mcp.tool(description="Asks for confirmation, then deletes", task_support="optional")
    async def confirm_delete(filename: str, ctx: Context) -> str:  # type: ignore[valid-type]
        await ctx.start_task()
        schema = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
        result = await ctx.elicit_form(f"Delete {filename}?", schema)
        return f"Deleted {filename}" if result["action"] == "accept" else f"Kept {filename}"

    @mcp.tool(description="Asks two questions at once", task_support="optional")
    def multi_input(ctx: Context):  # type: ignore[no-untyped-def, valid-type]
        ctx.start_task()
        if answered(ctx, "first") and answered(ctx, "second"):
            return "Both answers received"
        ask = {"method": "elicitation/create", "params": {"mode": "form", "message": "Your name?", "requestedSchema": {
            "type": "object", "properties": {"name": {"type": "string"}, "confirm": {"type": "boolean"}}}}}
        return InputRequiredResult(input_requests={"first": ask, "second": ask})

    @mcp.tool(description="Asks a name, then goes on as a task", task_support="required")
    def test_tool_with_task(ctx: Context):  # type: ignore[no-untyped-def, valid-type]
        answer = answered(ctx, "user_name")
        if not isinstance(answer.get("content"), dict):
            return InputRequiredResult(input_requests={"user_name": NAME})
        ctx.start_task()
        time.sleep(0.2)
        return f"Hello, {answer['content'].get('name')}!"


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

    @mcp.resource("test://watched-resource", name="watched-resource", title="Watched Resource",
                  description="A resource that can be subscribed to for updates", mime_type="text/plain")
    def watched_resource() -> str:
        return "Watched resource content"

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


if hasattr(mcp, "prompt") and Context is not None:
    from mcp_ref import InputRequiredResult as _InputRequired

    @mcp.prompt(description="A prompt that asks the client first (2026-07-28)")
    def test_input_required_result_prompt(ctx: Context):  # type: ignore[no-untyped-def, valid-type]
        answer = (ctx.input_responses or {}).get("user_context")
        if isinstance(answer, dict) and answer.get("action") == "accept" and isinstance(answer.get("content"), dict):
            return f"Use this context: {answer['content'].get('context')}"
        return _InputRequired(input_requests={"user_context": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "What context should the prompt use?",
            "requestedSchema": {"type": "object", "properties": {"context": {"type": "string"}},
                                "required": ["context"]}}}})


if hasattr(mcp, "completion"):

    @mcp.completion()
    def complete(ref, argument, context):  # type: ignore[no-untyped-def]
        return []  # "completion support can be minimal": the capability and the endpoint


# A hand-written inputSchema, published as written (the json-schema-2020-12
# scenario looks for $schema, $defs with $anchor, allOf/anyOf, if/then/else and
# additionalProperties), and the arguments checked against it.
JSON_SCHEMA_2020_12 = {
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


def json_schema_2020_12_tool(**arguments):  # type: ignore[no-untyped-def]
    """Tests JSON Schema 2020-12 keywords in a hand-written inputSchema"""
    return f"contact: {json.dumps(arguments, sort_keys=True)}"


mcp.add_tool(json_schema_2020_12_tool, input_schema=JSON_SCHEMA_2020_12)


if __name__ == "__main__":
    mcp.run(transport="streamable-http")

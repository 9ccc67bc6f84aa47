"""An MCP Apps server with an extension of its own, written for the official SDK.

A clock: the tool ``get_time`` is bound to the UI ``ui://clock/app.html`` (MCP
Apps, io.modelcontextprotocol/ui) and answers in plain text to a client
without Apps.  ``Greeter`` is an extension of the server's own (SEP-2133):
settings, a tool, a request method ``greeter/greet`` with typed params, and a
tools/call interceptor that refuses one call.

    python examples/apps_sdk.py                      (stdio)
    python examples/apps_sdk.py 127.0.0.1:8000       (Streamable HTTP, at /mcp)

With the SDK installed it runs as written.  Without it, change only the
``from mcp... import`` lines to ``from mcp_ref import`` (as .ci/conformance.py
--rewrite-imports does): mcp_ref serves it and answers with the SDK's frames
(test_extensions compares them).
"""

import sys
from typing import Any, Dict

from mcp.server import MCPServer, ServerRequestContext
from mcp.server.apps import Apps, ResourceCsp, ResourcePermissions, client_supports_apps
from mcp.server.context import CallNext, HandlerResult
from mcp.server.extension import Extension, MethodBinding, ToolBinding
from mcp.server.mcpserver import Context
from mcp.types import CallToolRequestParams, CallToolResult, RequestParams, TextContent

CLOCK_HTML = """<!doctype html>
<html><body><p id="time">...</p>
<script>
window.addEventListener("message", (event) => {
  const result = event.data && event.data.params && event.data.params.structuredContent;
  if (result) document.getElementById("time").textContent = result.result;
});
</script></body></html>"""

apps = Apps()


@apps.tool(resource_uri="ui://clock/app.html", visibility=["model", "app"], description="The time at noon")
def get_time(ctx: Context) -> str:
    if client_supports_apps(ctx):
        return "12:00"  # the app draws the clock
    return "It is 12:00."  # graceful degradation: the text alone says it all


apps.add_html_resource(
    "ui://clock/app.html",
    CLOCK_HTML,
    title="Clock",
    csp=ResourceCsp(connect_domains=["https://api.example.com"], resource_domains=["https://cdn.example.com"]),
    permissions=ResourcePermissions(clipboard_write={}),
    domain="clock.example.com",
    prefers_border=True,
)


class GreetParams(RequestParams):
    name: str
    times: int = 1


async def greet(ctx: ServerRequestContext, params: GreetParams) -> Dict[str, Any]:
    return {"greeting": ", ".join([f"Hello, {params.name}"] * params.times)}


def shout(text: str) -> str:
    """Shout the text."""
    return text.upper()


class Greeter(Extension):
    identifier = "com.example/greeter"

    def settings(self) -> Dict[str, Any]:
        return {"languages": ["en", "fr"]}

    def tools(self) -> Any:
        return [ToolBinding(fn=shout, meta={"com.example/greeter": {"loud": True}})]

    def methods(self) -> Any:
        return [MethodBinding(method="greeter/greet", params_type=GreetParams, handler=greet)]

    async def intercept_tool_call(self, params: CallToolRequestParams, ctx: ServerRequestContext,
                                  call_next: CallNext) -> HandlerResult:
        if params.name == "shout" and (params.arguments or {}).get("text") == "quiet":
            return CallToolResult(content=[TextContent(type="text", text="Refused: no shouting quietly")],
                                  is_error=True)
        return await call_next(ctx)


mcp = MCPServer("clock", extensions=[apps, Greeter()])

if __name__ == "__main__":
    if len(sys.argv) > 1:
        host, _, port = sys.argv[1].rpartition(":")
        mcp.run("streamable-http", host=host, port=int(port))
    else:
        mcp.run()

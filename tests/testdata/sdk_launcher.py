"""Serve an mcp_ref server file with the official SDK's MCPServer instead.

    python testdata/sdk_launcher.py examples/weather.py
    python testdata/sdk_launcher.py examples/weather.py --http 8000   (Streamable HTTP, under uvicorn)

A stand-in ``mcp_ref`` module maps the names the file imports onto the SDK
(``MCPServer``, ``ToolError``, ``Context``, the resource errors, the prompt
messages, ``Completion``) and pydantic (``Field``), then the file runs as
``__main__``: the same code, served by the SDK, for the interoperability tests.
"""

import runpy
import sys
import types

from mcp.server import MCPServer
from mcp.server.mcpserver import AssistantMessage, Context, Message, UserMessage
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp_types import Completion
from pydantic import Field

shim = types.ModuleType("mcp_ref")
shim.MCPServer = MCPServer  # type: ignore[attr-defined]
shim.Field = Field  # type: ignore[attr-defined]
shim.ToolError = ToolError  # type: ignore[attr-defined]
shim.Context = Context  # type: ignore[attr-defined]
for _name, _value in (("ResourceError", ResourceError), ("ResourceNotFoundError", ResourceNotFoundError),
                      ("Message", Message), ("UserMessage", UserMessage), ("AssistantMessage", AssistantMessage),
                      ("Completion", Completion)):
    setattr(shim, _name, _value)
sys.modules["mcp_ref"] = shim

if __name__ == "__main__":
    path = sys.argv[1]
    if sys.argv[2:3] == ["--http"]:  # python testdata/sdk_launcher.py FILE --http PORT: Streamable HTTP
        import uvicorn

        app = runpy.run_path(path)["mcp"].streamable_http_app()
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[3]), log_level="warning")
    else:
        sys.argv = sys.argv[1:]
        runpy.run_path(path, run_name="__main__")

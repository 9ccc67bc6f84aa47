"""The server the HTTP tests drive, served by mcp_ref's own HTTP server:

    python testdata/http_server.py PORT [OPTIONS_JSON]

OPTIONS_JSON holds keywords of MCPServer.streamable_http_app (request_timeout,
sse_after, allowed_hosts, ...).  The tests read the port from the line on
stderr ("serving ... on http://127.0.0.1:PORT/mcp"), so PORT may be 0.
"""

import asyncio
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from mcp_ref import MCPServer  # noqa: E402

server = MCPServer("http-test", instructions="A server for the HTTP tests.", version="1.0",
                   max_message_bytes=int(os.environ.get("HTTP_MAX_MESSAGE_BYTES", 64 * 1024)))


@server.tool()
def add(a: int, b: int = 1) -> int:
    """Add two numbers."""
    return a + b


@server.tool()
def sleepy(seconds: float) -> str:
    """Sleep, then say so (a synchronous tool on the request's thread)."""
    time.sleep(seconds)
    return f"slept {seconds}"


@server.tool()
async def waits(seconds: float, marker: str = "") -> str:
    """Wait on the event loop; write ``marker`` (a file path) if cancelled first."""
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        if marker:
            with open(marker, "w") as f:
                f.write("cancelled")
        raise
    return f"waited {seconds}"


@server.tool()
def regional(region: str, query: str, limit: int = 10, verbose: bool = False) -> str:
    """Mirrors region, limit and verbose into Mcp-Param headers (x-mcp-header)."""
    return f"{region}:{query}:{limit}:{verbose}"


_schema = server._tools["regional"].input_schema["properties"]
_schema["region"]["x-mcp-header"] = "Region"
_schema["limit"]["x-mcp-header"] = "Limit"
_schema["verbose"]["x-mcp-header"] = "Verbose"


if __name__ == "__main__":
    options = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    server.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]), **options)

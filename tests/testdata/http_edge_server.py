"""The server of test_http's edge tests (the process around the app: fds,
stderr, signals), served by mcp_ref's own HTTP server:

    python testdata/http_edge_server.py PORT [OPTIONS_JSON]

OPTIONS_JSON holds keywords of MCPServer.run(transport="streamable-http").
"""

import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from mcp_ref import MCPServer  # noqa: E402

server = MCPServer("http-edge")


@server.tool()
def close_stdout() -> str:
    """Close fd 1, as a careless tool (or a library it calls) may."""
    os.close(1)
    return "closed"


@server.tool()
def write_stdout(text: str) -> str:
    """Write to fd 1 as a child process would, and print as a tool would."""
    os.write(1, text.encode())
    print(text, flush=True)
    return "written"


@server.tool()
def fails(text: str) -> str:
    """Raise: the server logs the traceback on stderr."""
    raise ValueError(text)


@server.tool()
async def waits(seconds: float) -> str:
    """Wait on the event loop."""
    await asyncio.sleep(seconds)
    return f"waited {seconds}"


if __name__ == "__main__":
    options = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    server.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]), **options)

"""A server that sets every field of its Implementation object (serverInfo):
test_wire.py checks which of them each protocol revision is sent."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from mcp_ref import MCPServer  # noqa: E402

server = MCPServer(
    "info",
    title="Info Server",
    description="A server that describes itself.",
    website_url="https://example.com/info",
    icons=[{"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}],
    version="2.0",
)


@server.tool()
def echo(text: str) -> str:
    return text


if __name__ == "__main__":
    server.run()

"""A tool whose argument has a pattern that Python's re would backtrack on:
test_robustness checks that a hostile argument cannot freeze the server."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from mcp_ref import Field, MCPServer  # noqa: E402

server = MCPServer("patterns")


@server.tool()
def digits(text: str = Field(pattern=r"\d+$", max_length=100_000)) -> str:
    """Digits at the end (re.search would take seconds on "1" * 12000 + "x")."""
    return text


if __name__ == "__main__":
    server.run()

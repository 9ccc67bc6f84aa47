"""A server for test_client.py: elicitation in form and URL mode, by mcp_ref's own API.

    python testdata/client_server.py          (stdio)
"""

import os
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from mcp_ref import Context, MCPServer  # noqa: E402

mcp = MCPServer("client-test")


@dataclass
class Profile:
    name: str = "John Doe"
    age: int = 30
    verified: bool = True


@mcp.tool()
async def ask(ctx: Context) -> str:
    """A form: the client fills in the defaults it is not given (SEP-1034)."""
    result = await ctx.elicit("Who are you?", Profile)
    return f"{result.action} {result.data}" if result.action == "accept" else result.action


@mcp.tool()
async def visit(ctx: Context) -> str:
    """URL mode (2025-11-25 client/elicitation)."""
    result = await ctx.elicit_url("Sign in, please", "https://example.com/sign-in", "e-1")
    return result.action


if __name__ == "__main__":
    mcp.run()

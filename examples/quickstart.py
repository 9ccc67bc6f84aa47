"""The README's first server: three tools, one file, no packages.

    python -m mcp_ref call examples/quickstart.py add a=2 b=3
"""

import asyncio
import os
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout: find mcp_ref.py

from mcp_ref import MCPServer  # noqa: E402

mcp = MCPServer("quickstart")


@mcp.tool()
def add(a: int, b: int = 1) -> int:
    """Add two numbers."""
    return a + b


@dataclass
class Person:
    name: str
    tags: list[str]
    tag_count: int


@mcp.tool()
def describe(name: str, tags: list[str]) -> Person:
    """Describe a person by their tags."""
    return Person(name=name, tags=tags, tag_count=len(tags))


@mcp.tool()
async def slow_echo(text: str, delay: float = 0.5) -> str:
    """Echo text after a delay, without blocking other calls."""
    await asyncio.sleep(delay)
    return text


if __name__ == "__main__":
    mcp.run()

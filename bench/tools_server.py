"""The benchmark's tools: one scalar, one object, one list of objects, one
that reports progress (Context) a given number of times, and the scalar one
as a task (mcp_ref only).

Served by mcp_ref as it is, and by the official SDK through
tests/testdata/sdk_launcher.py: the same file, the same tools.
"""

import os
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mcp_ref import Context, MCPServer  # noqa: E402

mcp = MCPServer("bench")


@dataclass
class Reading:
    city: str
    temperature: float
    humidity: float
    conditions: str


@mcp.tool()
def add(a: int, b: int) -> int:
    """A scalar result."""
    return a + b


@mcp.tool()
def reading(city: str) -> Reading:
    """An object result."""
    return Reading(city, 16.2, 0.83, "Overcast")


@mcp.tool()
def readings(city: str, n: int) -> list[Reading]:
    """A list of objects."""
    return [Reading(city, 16.2 + i, 0.83, "Overcast") for i in range(n)]


@mcp.tool()
async def progress(steps: int, ctx: Context) -> int:
    """Reports progress steps times (to a client that sent a progressToken)."""
    for step in range(steps):
        await ctx.report_progress(step + 1, steps)
    return steps


try:
    @mcp.tool(task_support="optional")  # mcp_ref's tasks (section 16); the SDK's MCPServer has none
    def add_task(a: int, b: int) -> int:
        """The scalar tool, as a task when the client asks (the task polled by tasks/get)."""
        return a + b
except TypeError:
    pass


if __name__ == "__main__":
    mcp.run()

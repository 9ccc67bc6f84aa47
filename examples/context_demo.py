"""Context: what a tool can do besides returning. Log, report progress, ask the
user (elicitation), ask the client's model (sampling), read the client's roots,
and use what the server set up once (lifespan).

    python -m mcp_ref serve examples/context_demo.py     (for an MCP client)
    python -m mcp_ref list examples/context_demo.py

A parameter annotated ``Context`` (any name) is filled in by the server and is
no argument of the tool.  In a session (protocol up to 2025-11-25) a question
is a request to the client, answered while the tool waits; in 2026-07-28 the
call ends with ``input_required`` and the client retries with the answers (the
SDKs' clients do that by themselves).  The same code serves both.

A resource's or a prompt's function may take a Context too, and log and ask
the same way.  A tool parameter annotated ``Annotated[T, Resolve(fn)]`` (the
SDK's markers) is filled by running ``fn`` first: it may return a question
(``Elicit``, ``Sample``, ``ListRoots``) whose answer becomes the parameter.
"""

import asyncio
import os
import sys
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any, AsyncIterator, Dict, List

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout: find mcp_ref.py

from mcp_ref import Context, Elicit, MCPServer, Resolve  # noqa: E402


@asynccontextmanager
async def lifespan(server: MCPServer) -> AsyncIterator[Dict[str, Any]]:
    resources = {"greeting": "Hello"}  # open connections, load models... once, before serving
    yield resources  # every call sees it as ctx.lifespan_context
    resources.clear()  # and close them after the client has gone


mcp = MCPServer("context-demo", lifespan=lifespan)


@mcp.tool()
async def count(to: int, ctx: Context) -> str:
    """Count to a number, logging and reporting progress on the way."""
    await ctx.info(f"counting to {to}")  # notifications/message, if the client wants that level
    for i in range(1, to + 1):
        await ctx.report_progress(i, to, f"at {i}")  # if the client sent a progressToken
        await asyncio.sleep(0.01)
    return f"counted to {to}"


@dataclass
class Meeting:
    day: str
    minutes: int = 30


@mcp.tool()
async def schedule(ctx: Context) -> str:
    """Ask the user when to meet."""
    answer = await ctx.elicit("When shall we meet?", Meeting)  # a form of Meeting's fields
    if answer.action != "accept":  # "decline" or "cancel"
        return f"no meeting ({answer.action})"
    return f"meeting on {answer.data.day} for {answer.data.minutes} minutes"


@mcp.tool()
async def haiku(topic: str, ctx: Context) -> str:
    """Ask the client's model for a haiku."""
    message = {"role": "user", "content": {"type": "text", "text": f"Write a haiku about {topic}."}}
    result = await ctx.session.create_message([message], max_tokens=60)
    return str(result.content.text)


@mcp.tool()
async def workspace(ctx: Context) -> List[str]:
    """The folders the client lets this server see."""
    result = await ctx.session.list_roots()
    return [str(root.uri) for root in result.roots]


@mcp.tool()
def greet(name: str, ctx: Context) -> str:
    """A sync tool: the same Context, without await."""
    ctx.debug(f"greeting {name}")
    return f"{ctx.lifespan_context['greeting']}, {name}!"


def ask_meeting(room: str) -> Elicit[Meeting]:
    """A resolver: it may take the Context and the tool's arguments by name."""
    return Elicit(f"When do you need {room}?", Meeting)


@mcp.tool()
def book_room(room: str, meeting: Annotated[Meeting, Resolve(ask_meeting)]) -> str:
    """Book a room; the server asks when before the tool runs (a decline ends the call)."""
    return f"{room} booked on {meeting.day} for {meeting.minutes} minutes"


@mcp.resource("minutes://{day}")
async def minutes(day: str, ctx: Context) -> str:
    """A resource that logs as a tool does."""
    await ctx.info(f"reading the minutes of {day}")
    return f"Minutes of {day}: nothing decided."


if __name__ == "__main__":
    mcp.run()

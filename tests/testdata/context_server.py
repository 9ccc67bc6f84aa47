"""Tools that use Context: logging, progress, questions to the client
(elicitation, sampling, roots), lifespan, cancellation, list_changed.

    python mcp_ref.py serve testdata/context_server.py
    python testdata/context_server.py
    python testdata/sdk_context_launcher.py testdata/context_server.py   (the SDK)

The async tools are written as the SDK's documentation writes them, so the same
file runs on the SDK's MCPServer too (testdata/sdk_context_launcher.py) for the
interoperability tests.  The tools after ``if not ON_SDK`` use what only mcp_ref
offers (a sync tool calling Context without await, ``ctx.cancelled``,
``InputRequiredResult`` from mcp_ref, string and ``Context[...]`` annotations
checked against the SDK elsewhere).  On mcp_ref's core alone (no SDK layer: the
file cut at "# ---- layers") the tools ask with the Context's own methods
(``session``, below) and those only the SDK's API can write are left out.

CONTEXT_REQUEST_TIMEOUT sets ``request_timeout`` (mcp_ref only).
"""

import asyncio
import os
import sys
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any, AsyncIterator, Dict, List

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import mcp_ref  # noqa: E402  (on the SDK: the launcher's stand-in module)
from mcp_ref import Context, MCPServer  # noqa: E402

ON_SDK = bool(getattr(mcp_ref, "ON_SDK", False))
# The SDK's API (ctx.session, ctx.request_context, Resolve(...)): the SDK's own, or mcp_ref's
# SDK layer (sections 27-28); mcp_ref's core alone has none of it.
SDK_API = hasattr(mcp_ref, "Resolve")
if SDK_API:
    from mcp_ref import Elicit, ElicitationResult, ListRoots, Resolve, Sample

# What the tools saw, for the tools that report it (cancellation, lifespan).
SEEN: List[str] = []


@asynccontextmanager
async def lifespan(server: Any) -> AsyncIterator[Dict[str, Any]]:
    SEEN.append("lifespan entered")
    try:
        yield {"db": "connected", "server": server.name}
    finally:
        print("context_server: lifespan exited", file=sys.stderr, flush=True)


options: Dict[str, Any] = {}
if not ON_SDK and os.environ.get("CONTEXT_REQUEST_TIMEOUT"):
    options["request_timeout"] = float(os.environ["CONTEXT_REQUEST_TIMEOUT"])
server = MCPServer("context", version="1.0", instructions="Context tools.", lifespan=lifespan, **options)


# The SDK elicits pydantic models; mcp_ref takes any class of flat fields: a dataclass here.
if ON_SDK:
    from pydantic import BaseModel as _Base
else:
    _Base = object  # type: ignore[assignment,misc]


class Booking(_Base):  # type: ignore[misc,valid-type]
    date: str
    guests: int = 2


if not ON_SDK:
    Booking = dataclass(Booking)  # type: ignore[misc]


def _user(text: str) -> Any:
    """A sampling message: the SDK takes its SamplingMessage model only, mcp_ref plain JSON too."""
    if ON_SDK:
        from mcp_types import SamplingMessage, TextContent

        return SamplingMessage(role="user", content=TextContent(type="text", text=text))
    return {"role": "user", "content": {"type": "text", "text": text}}


# -- ctx.session, or on the core alone the Context's own methods -------------------------


class _CoreSession:
    """ctx.session on the core alone: each of its methods this file calls as the
    Context's own method that sends the same frames (related_request_id only
    routes the SDK's request), the client's answers read by attribute as the
    SDK's models are (the core gives them as JSON)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.client_capabilities = ctx.client_capabilities

    def create_message(self, messages: List[Any], max_tokens: int, **options: Any) -> Any:
        return _Read(self.ctx.create_message(messages, max_tokens, **options))

    def list_roots(self) -> Any:
        return _Read(self.ctx.list_roots())

    def elicit_form(self, message: str, requested_schema: Dict[str, Any], related_request_id: Any = None) -> Any:
        return _Read(self.ctx.elicit_form(message, requested_schema))

    def send_log_message(self, level: str, data: Any, logger: Any = None) -> Any:
        return self.ctx.log(level, data, logger_name=logger)

    def report_progress(self, progress: float, total: Any = None, message: Any = None) -> Any:
        return self.ctx.report_progress(progress, total, message)

    def send_tool_list_changed(self) -> Any:
        return self.ctx.notify_tools_changed()


class _Read:
    """A question asked by _CoreSession: awaited, or ``.result()`` in a sync tool."""

    def __init__(self, asked: Any) -> None:
        self.asked = asked

    def __await__(self) -> Any:
        return mcp_ref._JsonObject((yield from self.asked.__await__()))

    def result(self) -> Any:
        return mcp_ref._JsonObject(self.asked.result())


def session(ctx: Context) -> Any:
    """``ctx.session`` where the SDK's API is (the SDK, the whole of mcp_ref), else its stand-in."""
    return ctx.session if SDK_API else _CoreSession(ctx)


def _booking_text(answer: Any) -> str:
    if answer.action == "accept":
        return f"accept: {answer.data.date} for {answer.data.guests}"
    return answer.action


# -- logging and progress ----------------------------------------------------------


@server.tool()
async def log_levels(ctx: Context) -> str:
    """Log at four levels and one more with a logger name."""
    await ctx.debug("a debug line")
    await ctx.info("an info line")
    await ctx.warning("a warning line")
    await ctx.error("an error line")
    await ctx.log("critical", {"structured": [1, 2]}, logger_name="db")
    return "logged"


@server.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Report progress 1..steps of steps, with a message each."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i}")
    return f"{steps} steps"


@server.tool()
async def progress_back(ctx: Context) -> str:
    """Progress that goes 1, 2, 2, 1.5, 3 (the spec: it MUST increase)."""
    for value in (1, 2, 2, 1.5, 3):
        await ctx.report_progress(value)
    return "done"


# -- questions -------------------------------------------------------------------


@server.tool()
async def book(ctx: Context) -> str:
    """Ask for a booking (form elicitation)."""
    answer = await ctx.elicit("When and for how many?", Booking)
    return _booking_text(answer)


@server.tool()
async def book_twice(ctx: Context) -> str:
    """Two questions in a row (2026-07-28: two rounds)."""
    first = await ctx.elicit("First booking?", Booking)
    second = await ctx.elicit("Second booking?", Booking)
    return f"{_booking_text(first)} | {_booking_text(second)}"


@server.tool()
async def book_form(ctx: Context) -> str:
    """ctx.session.elicit_form: the schema as JSON, the answer as sent."""
    answer = await session(ctx).elicit_form("When?", {"type": "object", "properties": {"date": {"type": "string"}}},
                                            related_request_id=ctx.request_id)
    return str(answer.action)


@server.tool()
async def visit(ctx: Context) -> str:
    """Send the user to a URL (URL elicitation)."""
    answer = await ctx.elicit_url("Please sign in", "https://example.com/login", "login-1")
    return answer.action


@server.tool()
async def summarize(text: str, ctx: Context) -> str:
    """Ask the client's model (sampling)."""
    result = await session(ctx).create_message(
        [_user(f"Summarize: {text}")],
        max_tokens=50, system_prompt="Be brief.", temperature=0.5, related_request_id=ctx.request_id)
    return f"{result.model}/{result.role}/{result.stop_reason}: {result.content.text}"


@server.tool()
async def roots(ctx: Context) -> List[str]:
    """The client's roots."""
    result = await session(ctx).list_roots()
    return [f"{root.name}={root.uri}" for root in result.roots]


@server.tool()
async def everything(ctx: Context) -> str:
    """Elicit, sample and list roots, in that order (2026-07-28: three rounds)."""
    booking = await ctx.elicit("When?", Booking)
    sample = await session(ctx).create_message(
        [_user("hi")], max_tokens=5)
    listed = await session(ctx).list_roots()
    return f"{_booking_text(booking)}; {sample.content.text}; {len(listed.roots)} roots"


# -- the request, the server ---------------------------------------------------------


@server.tool()
async def about(ctx: Context) -> "dict[str, Any]":
    """What the Context knows of the request."""
    caps = session(ctx).client_capabilities
    return {
        "request_id": ctx.request_id,
        "protocol_version": ctx.protocol_version,
        "server": ctx.mcp_server.name,
        "elicitation": caps is not None and caps.elicitation is not None,
        "sampling": caps is not None and caps.sampling is not None,
    }


if SDK_API:  # ctx.request_context is the SDK's (the core's Context: ctx.lifespan_context, ctx.meta)

    @server.tool()
    async def lifespan_sdk_style(ctx: Context) -> str:
        """What the lifespan yielded, read as the SDK reads it: ``request_context.lifespan_context``
        is that very object (a dict here)."""
        return str(ctx.request_context.lifespan_context["db"])

    @server.tool()
    async def meta_sdk_style(ctx: Context) -> str:
        """The progress token, read as the SDK 2.3 reads it: ``request_context.meta`` is a dict
        (mcp_types.RequestParamsMeta, snake_case keys)."""
        return f"token {ctx.request_context.meta.get('progress_token')}"


@server.tool()
async def named_anything(a: int, context_of_call: Context, b: int = 2) -> int:
    """A Context parameter of any name, between two arguments."""
    assert context_of_call.request_id
    return a + b


@server.tool()
async def generic_context(x: str, ctx: "Context[Any, Any]") -> str:  # noqa: F821
    """A ``Context[...]`` annotation, written as a string."""
    return f"{x} in {ctx.mcp_server.name}"


@server.tool()
async def wait_async(seconds: float, ctx: Context) -> str:
    """Sleeps; a cancelled call's task sees CancelledError."""
    SEEN.append("wait_async started")
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        SEEN.append("wait_async cancelled")
        raise
    return "waited"


@server.tool()
def seen() -> List[str]:
    """What the tools saw so far."""
    return list(SEEN)


@server.tool()
async def register(name: str, ctx: Context) -> str:
    """Add a tool while serving."""

    def added() -> str:
        return f"I am {name}"

    ctx.mcp_server.add_tool(added, name=name, description=f"Added as {name}.")
    return f"registered {name}"


@server.tool()
async def announce(ctx: Context) -> str:
    """Tell the client the tool list changed, as the SDK's ServerSession does."""
    await session(ctx).send_tool_list_changed()
    return "announced"


# -- resolvers: the SDK's Resolve(...) markers (mcp_ref: its SDK layer; not the core's) ---------

if SDK_API:

    def resolve_booking(venue: str) -> Elicit[Booking]:
        """Asks the user (the same question for every parameter that needs it: asked once)."""
        return Elicit(f"Book {venue}: when and for how many?", Booking)

    async def resolve_summary(venue: str, ctx: Context) -> Sample:
        await ctx.warning(f"sampling for {venue}")
        return Sample([_user(f"Describe {venue}")], max_tokens=20, system_prompt="One line.")

    def resolve_roots() -> ListRoots:
        return ListRoots()

    def resolve_line(booking: Annotated[Booking, Resolve(resolve_booking)], venue: str) -> str:
        """A resolver of a resolver's value, and an argument by name."""
        return f"{venue} on {booking.date}"

    @server.tool()
    async def reserve(venue: str, line: Annotated[str, Resolve(resolve_line)],
                      booking: Annotated[Booking, Resolve(resolve_booking)]) -> str:
        """Parameters filled by resolvers (not in inputSchema)."""
        return f"{line} for {booking.guests}"

    @server.tool()
    async def reserve_outcome(venue: str,
                              booking: Annotated[ElicitationResult[Booking], Resolve(resolve_booking)]) -> str:
        """The whole outcome of the question, accepted or not."""
        return f"{venue}: {_booking_text(booking)}"

    @server.tool()
    def survey(venue: str, summary: Annotated[Any, Resolve(resolve_summary)],
               found: Annotated[Any, Resolve(resolve_roots)],
               booking: Annotated[Booking, Resolve(resolve_booking)]) -> str:
        """Three questions: sampling, roots and elicitation (2026-07-28: one round)."""
        return f"{summary.content.text}; {len(found.roots)} roots; {booking.date}"


# -- a resource and a prompt that log and ask, as a tool does ------------------------------


@server.resource("notes://{topic}")
async def note(topic: str, ctx: Context) -> str:
    """A resource template whose function logs and asks the user."""
    await ctx.warning(f"reading {topic}")
    await ctx.report_progress(1, 2)
    answer = await ctx.elicit(f"Which {topic} note?", Booking)
    return f"{topic}: {_booking_text(answer)}"


@server.prompt()
async def plan(topic: str, ctx: Context) -> str:
    """A prompt that logs and asks the client's model."""
    await ctx.warning(f"planning {topic}")
    result = await session(ctx).create_message([_user(f"Plan {topic}")], max_tokens=10)
    return f"Plan for {topic}: {result.content.text}"


# -- what only mcp_ref offers ------------------------------------------------------------

if not ON_SDK:
    from mcp_ref import InputRequiredResult

    @server.tool()
    def sync_everything(ctx: Context) -> str:
        """A sync tool: every Context method called without await."""
        ctx.info("sync info")
        ctx.report_progress(1, 2, "half")
        answer = ctx.elicit("When?", Booking).result()
        sample = session(ctx).create_message([{"role": "user", "content": {"type": "text", "text": "q"}}],
                                             max_tokens=5).result()
        listed = session(ctx).list_roots().result()
        ctx.report_progress(2, 2, "all")
        return f"{_booking_text(answer)}; {sample.content.text}; {len(listed.roots)} roots"

    @server.tool()
    def sync_about(ctx: "Context") -> Dict[str, Any]:
        """A sync tool with a string annotation: the request as mcp_ref's Context shows it."""
        info = ctx.client_info
        return {
            "request_id": ctx.request_id,
            "protocol_version": ctx.protocol_version,
            "client": None if info is None else info.name,
            "capabilities": None if ctx.client_capabilities is None else ctx.client_capabilities.model_dump(),
            "meta": ctx.meta.model_dump(),
            # ctx.request_context, the SDK's, where the SDK's API is; the core's Context: ctx.meta
            "progress_token": (ctx.request_context.meta if SDK_API else ctx.meta).progress_token,
            "lifespan": ctx.lifespan_context,
            "input_responses": ctx.input_responses,
            "request_state": ctx.request_state,
        }

    @server.tool()
    def sync_log_progress(ctx: Context) -> str:
        """Logging and progress from a sync tool, through ctx and ctx.session, without await."""
        ctx.info("sync info")
        ctx.report_progress(1, 2, "half")
        session(ctx).send_log_message("warning", {"n": 1}, logger="session")
        session(ctx).report_progress(2, 2)
        return "done"

    @server.tool()
    def wait_sync(seconds: float, ctx: Context) -> str:
        """A sync tool that polls ctx.cancelled."""
        SEEN.append("wait_sync started")
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if ctx.cancelled:
                SEEN.append("wait_sync saw cancelled")
                return "stopped"
            time.sleep(0.01)
        return "waited"

    @server.tool()
    def ask_own(topic: str, ctx: Context) -> Any:
        """Returns its own InputRequiredResult (2026-07-28), then reads the answer."""
        responses = ctx.input_responses
        if not responses or "pick" not in responses:
            return InputRequiredResult(
                input_requests={"pick": {"method": "elicitation/create", "params": {
                    "mode": "form", "message": f"Pick a {topic}",
                    "requestedSchema": {"type": "object", "properties": {"choice": {"type": "string"}},
                                        "required": ["choice"]}}}},
                request_state=f"asked about {topic}")
        return f"{ctx.request_state}: {responses['pick']['content']['choice']}"

    @server.tool()
    def ask_own_roots(ctx: Context) -> Any:
        """Its own InputRequiredResult asking for roots (a capability the client may lack)."""
        if ctx.input_responses:
            return f"{len(ctx.input_responses['r']['roots'])} roots"
        return InputRequiredResult(input_requests={"r": {"method": "roots/list", "params": {}}})

    @server.tool()
    def swallow(ctx: Context) -> str:
        """A tool whose ``except Exception`` must not swallow the question's unwinding."""
        try:
            answer = ctx.elicit("Swallowed?", Booking).result()
        except Exception as exc:  # noqa: BLE001
            return f"swallowed {type(exc).__name__}: {exc}"
        return _booking_text(answer)

    if SDK_API:  # the SDK's ServerSession method; the core's Context has none (it checks as it asks)

        @server.tool()
        def check_capability(capability: Dict[str, Any], ctx: Context) -> bool:
            """ctx.session.check_client_capability, as a tool may ask before it asks the client."""
            return bool(ctx.session.check_client_capability(capability))

    @server.resource("notes://today")
    def today(ctx: Context) -> str:
        """A static resource whose function takes a Context (the SDK refuses one): sync, without await."""
        ctx.info("today read")
        return f"today: {session(ctx).list_roots().result().roots[0].name}"

    @server.resource("notes://own/{topic}")
    def own_note(topic: str, ctx: Context) -> Any:
        """A template's own InputRequiredResult (2026-07-28), as the SDK allows it."""
        if ctx.input_responses and "pick" in ctx.input_responses:
            return f"{ctx.request_state}: {ctx.input_responses['pick']['content']['choice']}"
        return InputRequiredResult(input_requests={"pick": {"method": "elicitation/create", "params": {
            "mode": "form", "message": f"Which {topic}?", "requestedSchema": {
                "type": "object", "properties": {"choice": {"type": "string"}}, "required": ["choice"]}}}},
            request_state=f"asked about {topic}")

    @server.tool()
    def unregister(name: str) -> str:
        server.remove_tool(name)
        return f"removed {name}"


if __name__ == "__main__":
    server.run()

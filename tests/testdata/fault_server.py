"""The server test_faults.py injects faults into: tools that fail at every stage.

Each tool misbehaves in the way its name says, chosen by its arguments, and
always within a bound: nothing sleeps longer than half a second, and the tools
that read stdin end at end of input.  Run as a script it serves stdio; so does
``python mcp_ref.py serve testdata/fault_server.py``.
"""

import asyncio
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any, Dict, List

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from mcp_ref import MCPServer, ToolError  # noqa: E402

server = MCPServer("faults", version="1.0")

MAX_SLEEP = 0.5  # seconds: no tool hangs longer, whatever it is asked


class Interrupt(BaseException):
    """A BaseException that is neither KeyboardInterrupt nor SystemExit."""


def _raise(kind: str) -> None:
    """Raise what ``kind`` names; any other kind returns."""
    if kind == "tool":
        raise ToolError(f"asked to fail ({kind})")
    if kind == "error":
        raise RuntimeError("an internal detail at /srv/secret.py")
    if kind == "interrupt":
        raise KeyboardInterrupt
    if kind == "exit":
        raise SystemExit(3)
    if kind == "base":
        raise Interrupt("a BaseException of a tool's own")


def _bounded(seconds: Any) -> float:
    # Compared, never converted: a 1000-digit integer stays harmless.
    if not isinstance(seconds, (int, float)) or seconds != seconds or seconds <= 0:
        return 0.0
    return MAX_SLEEP if seconds >= MAX_SLEEP else float(seconds)


@dataclass
class Boom:
    """A dataclass argument whose construction fails as ``mode`` says."""

    mode: str = "ok"

    def __post_init__(self) -> None:
        if self.mode == "value":
            raise ValueError("mode is not acceptable")
        _raise(self.mode)


# -- tools that succeed ---------------------------------------------------------


@server.tool()
def add(a: int, b: int = 1) -> int:
    """Sync; a 5,000-digit numeric string for ``a`` fails in argument conversion."""
    return a + b


@server.tool()
async def async_add(a: int, b: int = 1) -> int:
    return a + b


@server.tool()
def echo(text: str) -> str:
    """Returns its argument: whatever a client sends comes back in the result."""
    return text


@server.tool()
async def async_echo(text: str) -> str:
    return text


@server.tool()
def echo_any(value: Any = None) -> Dict[str, Any]:
    return {"value": value}


@server.tool()
def noisy(kind: str = "print") -> str:
    """Writes to stdout, which must never reach the protocol stream."""
    if kind == "child":
        subprocess.run([sys.executable, "-c", "print('a child process writing to fd 1')"], check=True)
    elif kind == "fd":
        os.write(1, b"os.write(1) from a tool\n")
    else:
        print("print() from a tool")
        sys.stdout.write("sys.stdout.write from a tool")  # no newline: on stdout it would spoil the next message
    return "quiet on stdout"


# -- tools that fail in argument conversion ----------------------------------------


@server.tool()
def convert(p: Boom) -> str:
    return p.mode


@server.tool()
async def async_convert(p: Boom) -> str:
    return p.mode


# -- tools that raise ---------------------------------------------------------------


@server.tool()
def fail(kind: str) -> str:
    _raise(kind)
    return "did not fail"


@server.tool()
async def async_fail(kind: str) -> str:
    await asyncio.sleep(0)
    _raise(kind)
    return "did not fail"


# -- tools whose result cannot be converted -------------------------------------------


def _bad_value(kind: str) -> Any:
    if kind == "str":
        return "seventeen"
    if kind == "object":
        return object()
    if kind == "huge":
        return 10 ** 5000  # more digits than int() may turn into text
    if kind == "nan":
        return float("nan")
    if kind == "surrogate":
        return "\ud800"
    if kind == "cyclic":
        cycle: List[Any] = []
        cycle.append(cycle)
        return cycle
    return 17


@server.tool()
def bad_result(kind: str) -> int:
    return _bad_value(kind)  # type: ignore[no-any-return]


@server.tool()
async def async_bad_result(kind: str) -> int:
    return _bad_value(kind)  # type: ignore[no-any-return]


@server.tool()
def bad_dict(kind: str) -> Dict[str, Any]:
    if kind == "key":
        return {("a", "tuple"): 1}  # type: ignore[dict-item]
    if kind == "surrogate_key":
        return {"\udc80": 1}
    if kind == "bytes":
        return {"x": b"\xff\xfe"}
    if kind == "set":
        return {"x": {object()}}
    return {"x": _bad_value(kind)}


# -- tools that hang for a bounded time --------------------------------------------------


@server.tool()
def sleep(seconds: float) -> str:
    time.sleep(_bounded(seconds))
    return "slept"


@server.tool()
async def async_sleep(seconds: float) -> str:
    await asyncio.sleep(_bounded(seconds))
    return "slept"


# -- an async tool that cancels itself ------------------------------------------------------


@server.tool()
async def self_cancel(kind: str) -> str:
    """CancelledError from the tool's own code, not from the client."""
    if kind == "raise":
        raise asyncio.CancelledError()
    if kind == "current":
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        await asyncio.sleep(0)
    inner = asyncio.ensure_future(asyncio.sleep(MAX_SLEEP))
    await asyncio.sleep(0)
    inner.cancel()
    await inner
    return "not cancelled"


# -- tools that read stdin (the protocol's stream, unless the server hides it) ----------------


@server.tool()
def read_input() -> str:
    return input()


@server.tool()
def read_char() -> str:
    return sys.stdin.read(1)


def _child_command(kind: str) -> List[str]:
    """A child process reading the stdin it inherits: cat (all of it) or head -c1 (one byte)."""
    if kind == "head":
        if shutil.which("head"):
            return ["head", "-c1"]
        return [sys.executable, "-c", "import os, sys; sys.stdout.buffer.write(os.read(0, 1))"]
    if shutil.which("cat"):
        return ["cat"]
    return [sys.executable, "-c", "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read())"]


@server.tool()
def child_reads_stdin(kind: str) -> str:
    done = subprocess.run(_child_command(kind), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    return f"the child read {len(done.stdout)} bytes"


if __name__ == "__main__":
    server.run()

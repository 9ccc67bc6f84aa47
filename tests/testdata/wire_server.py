"""The server the wire and robustness tests drive over real pipes.

Limits come from the environment, so one file serves every test:
WIRE_PAGE_SIZE, WIRE_MAX_MESSAGE_BYTES, WIRE_MAX_DEPTH, WIRE_MAX_RESULT_BYTES.
"""

import asyncio
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from mcp_ref import MCPServer, ToolError  # noqa: E402


def _int_env(name: str, default: Any) -> Any:
    value = os.environ.get(name)
    return int(value) if value else default


server = MCPServer(
    "wire",
    instructions="A server for tests.",
    version="1.0",
    page_size=_int_env("WIRE_PAGE_SIZE", None),
    max_message_bytes=_int_env("WIRE_MAX_MESSAGE_BYTES", 4 * 1024 * 1024),
    max_depth=_int_env("WIRE_MAX_DEPTH", 64),
    max_result_bytes=_int_env("WIRE_MAX_RESULT_BYTES", 16 * 1024 * 1024),
)

RELEASE = threading.Event()  # set by the release tool: lets "blocked" calls finish


@dataclass
class Point:
    x: int
    y: int = 0


@server.tool(title="Add", annotations={"readOnlyHint": True}, icons=[{"src": "data:,"}], meta={"k": 1})
def add(a: int, b: int = 1) -> int:
    """Add two numbers."""
    return a + b


@server.tool()
def point(x: int) -> Point:
    return Point(x)


@server.tool()
def echo(text: str) -> str:
    return text


@server.tool()
def sleep(seconds: float) -> str:
    time.sleep(seconds)
    return f"slept {seconds}"


@server.tool()
async def async_sleep(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


@server.tool()
async def blocks_loop(seconds: float) -> str:
    time.sleep(seconds)  # a badly written async tool: it blocks the event loop
    return "done"


@server.tool()
def hang() -> str:
    RELEASE.wait(60)
    return "released"


@server.tool()
def release() -> str:
    RELEASE.set()
    return "ok"


@server.tool()
def noisy() -> str:
    print("print() from a tool")
    sys.stdout.write("sys.stdout.write from a tool\n")
    os.write(1, b"os.write(1) from a tool\n")
    subprocess.run([sys.executable, "-c", "print('a child process writing to fd 1')"], check=True)
    return "quiet on stdout"


@server.tool()
def fail(kind: str) -> str:
    if kind == "tool":
        raise ToolError("asked to fail")
    if kind == "exit":
        raise SystemExit(3)
    raise RuntimeError("an internal detail at /srv/secret.py")


@server.tool()
def cyclic() -> Dict[str, Any]:
    data: Dict[str, Any] = {}
    data["me"] = data
    return data


@server.tool()
def enormous(n: int) -> str:
    return "x" * n


@server.tool()
def unserialisable() -> Dict[str, Any]:
    return {"x": object()}


@server.tool()
def wrong_type() -> int:
    return "seventeen"  # type: ignore[return-value]


@server.tool()
def generator(n: int) -> List[int]:
    return (i * i for i in range(n))  # type: ignore[return-value]


@server.tool()
def optional(value: Optional[List[int]] = None) -> Optional[List[int]]:
    return value


if __name__ == "__main__":
    server.run()

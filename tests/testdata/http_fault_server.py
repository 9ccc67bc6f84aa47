"""The server test_http_faults.py attacks over real sockets, served by
mcp_ref's own HTTP server:

    python testdata/http_fault_server.py CONFIG_JSON

CONFIG_JSON: {"host": "127.0.0.1", "auth": false, "options": {...}}, where
options are keywords of MCPServer.streamable_http_app.  With "auth", bearer
tokens "tok-a" and "tok-b" are two users (principals "alice" and "bob").
The port is 0: the test reads it from the line on stderr.

Every tool takes the caller's ``nonce`` and puts it in whatever it writes
(result, log, progress, print), so that a byte reaching the wrong client is
seen.  Each misbehaves as its name says, always within a bound: no sleep
longer than MAX_SLEEP, no flood larger than MAX_CHUNKS MiB.
"""

import asyncio
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any, Dict, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from mcp_ref import Context, MCPServer, ToolError  # noqa: E402

MAX_SLEEP = 5.0  # seconds
MAX_CHUNKS = 256  # MiB of log notifications one flood call may send
CONFIG = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
USERS = {"tok-a": "alice", "tok-b": "bob"}


class AccessToken:
    def __init__(self, token: str, client_id: str) -> None:
        self.token, self.client_id, self.scopes, self.expires_at = token, client_id, ["mcp"], None
        self.resource = Auth.resource_server_url  # issued for this server (RFC 8707)


class Verifier:
    async def verify_token(self, token: str) -> Optional[AccessToken]:
        user = USERS.get(token)
        return None if user is None else AccessToken(token, user)


class Auth:
    issuer_url = "https://auth.example.com"
    resource_server_url = "http://127.0.0.1/mcp"
    required_scopes = ["mcp"]


extra: Any = {"token_verifier": Verifier(), "auth": Auth()} if CONFIG.get("auth") else {}
server = MCPServer("http-faults", version="1.0", **extra)


def _bounded(seconds: Any) -> float:
    if not isinstance(seconds, (int, float)) or seconds != seconds or seconds <= 0:
        return 0.0
    return MAX_SLEEP if seconds >= MAX_SLEEP else float(seconds)


@server.tool()
def echo(nonce: str) -> str:
    return nonce


@server.tool()
async def async_echo(nonce: str) -> str:
    await asyncio.sleep(0)
    return nonce


@server.tool()
def ctx_echo(nonce: str, ctx: Context) -> str:
    """A sync tool with a Context: it may send before its response, so it does not run inline."""
    ctx.info(nonce)
    return nonce


@server.tool()
def slow(nonce: str, seconds: float, ctx: Context) -> str:
    time.sleep(_bounded(seconds))
    return nonce


@server.tool()
def noisy(nonce: str, kind: str = "print") -> str:
    """Writes its nonce to stdout, which is no client's."""
    if kind == "fd":
        os.write(1, f"os.write {nonce}\n".encode())
    elif kind == "child":
        subprocess.run([sys.executable, "-c", f"print('child {nonce}')"], check=False, timeout=20)
    elif kind == "write":
        sys.stdout.write(f"sys.stdout.write {nonce}")
        sys.stdout.flush()
    else:
        print(f"print {nonce}", flush=True)
    return nonce


@server.tool()
def close_stdout(nonce: str) -> str:
    """Closes fd 1, as a careless tool or library may."""
    try:
        os.close(1)
    except OSError:
        pass
    return nonce


@server.tool()
def fail(nonce: str, kind: str = "error") -> str:
    if kind == "tool":
        raise ToolError(f"{nonce}: asked to fail")
    if kind == "value":
        raise ValueError(f"{nonce}: a value error")
    raise RuntimeError(f"{nonce}: an internal detail")


@server.tool()
def flood(nonce: str, chunks: int, ctx: Context) -> str:
    """``chunks`` log notifications of 1 MiB each, as fast as the server takes them."""
    block = nonce + "x" * (1 << 20)
    for _ in range(max(0, min(chunks, MAX_CHUNKS))):
        ctx.info(block)
    return nonce


@server.tool()
def steps(nonce: str, count: int, delay: float, ctx: Context) -> str:
    """``count`` progress notifications ("nonce:i"), ``delay`` seconds apart, then "nonce:done"."""
    for i in range(1, max(0, min(count, 20)) + 1):
        ctx.report_progress(i, count, message=f"{nonce}:{i}")
        time.sleep(_bounded(delay))
    return f"{nonce}:done"


FINISHED: Dict[str, int] = {}  # nonce -> pause calls that ran to their end


@server.tool()
async def pause(nonce: str, seconds: float) -> str:
    """Silent for ``seconds``, then counted in FINISHED (cancelled: not counted)."""
    await asyncio.sleep(_bounded(seconds))
    FINISHED[nonce] = FINISHED.get(nonce, 0) + 1
    return nonce


@server.tool()
def finished(nonce: str) -> int:
    return FINISHED.get(nonce, 0)


@dataclass
class Name:
    name: str


@server.tool()
async def ask(topic: str, ctx: Context) -> str:
    """Two questions (2026-07-28: two InputRequiredResult rounds, the answers in the signed requestState)."""
    first = await ctx.elicit(f"{topic}: first?", Name)
    second = await ctx.elicit(f"{topic}: second?", Name)
    names = [answer.data.name if answer.action == "accept" else answer.action for answer in (first, second)]
    return f"{topic}: {names[0]!r} {names[1]!r}"


@server.resource("fuzz://note")
def note() -> str:
    return "a note"


@server.prompt()
def greet(who: str) -> str:
    return f"hello {who}"


if __name__ == "__main__":
    server.run(transport="streamable-http", host=CONFIG.get("host", "127.0.0.1"), port=0,
               **CONFIG.get("options", {}))

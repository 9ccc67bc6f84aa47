"""Fault injection and fuzzing over real sockets against mcp_ref's own HTTP
server: whatever hostile, careless or unlucky clients do, each client is served
as if it were alone.

Each run starts testdata/http_fault_server.py in its own process (stdout and
stderr are pipes; stderr is read only at the end, as nobody reads a daemon's
stderr) and lets seeded clients loose on it, each from its own loopback source
address (127.0.0.x, so that "per client" means something) and each with its own
nonce, which it puts in every request id and every tool argument:

* ``malformed``: bad JSON, and well-formed JSON-RPC with a wrong type, a missing
  field or a hostile value in every field of every method, in both eras
  (2026-07-28 stateless, 2025-11-25 and 2025-03-26 sessions, batches);
* ``framing``: Transfer-Encoding with Content-Length, bad chunking, duplicate,
  huge, negative and signed Content-Length, each followed by a smuggled request;
* ``headers``: hostile Host and Origin spellings (and ``bind``: servers bound on
  other spellings of loopback);
* ``tools``: tools that print, write to fd 1, start a child that prints, close
  fd 1, raise; a ``bystander`` keeps a connection open meanwhile;
* ``raiser``: a tool that raises, many times (its tracebacks fill stderr);
* ``streams``: clients that disconnect mid-stream, and reconnect with Last-Event-ID;
* ``states``: 2026-07-28 retries with an altered requestState, and with answers
  that do not match the schema asked;
* then, while a ``witness`` makes ordinary calls: ``hog`` (stalled connections,
  unread listen and GET streams), ``flood`` (a call that logs 160 MiB to a client
  that stops reading), ``pool`` (many slow calls), ``sessions`` (past the cap),
  ``leaver`` (handshake-era calls left before their answer);
* ``users`` (a second server, with a token verifier): bob uses, streams from and
  deletes alice's session, and replays her requestState.

Phase 0 runs the tools alone (what lands on a reused fd 1 then lands on the
bystander); phase A the hostile input; phase B the abusers.

Invariants checked on every run (a failure names one of them):

answer-once   every request gets exactly one JSON-RPC response with its id (a
              batch: one per member), or a documented HTTP status with a clear
              body; never a closed connection, a timeout, 202, or 500
internal      -32603 only for the server's own bugs, never for a client's input
isolation     no client ever receives another client's nonce; stdout gets nothing
access        hostile Host/Origin refused (421/403); another user's session refused
framing       RFC 9112: a request whose length cannot be trusted gets 400 (or 411,
              413, 501) and the connection is closed after it, with nothing more
retry-after   every 503 carries Retry-After
resume        a stream with event ids, resumed with Last-Event-ID, loses and
              repeats no event; a stream without ids is simply not resumable
request-state an altered requestState is refused with -32602 (basic/patterns/mrtr)
validation    an answer off the asked schema is refused with -32602, as the SDK does
cancellation  a handshake-era call its client left still runs to its end
bounded       server RSS grows by at most RSS_BOUND; at most THREAD_BOUND threads
progress      each of the witness's calls completes within WITNESS_BOUND seconds
alive         the server process is alive at the end

The clients' actions are drawn from MCP_REF_FUZZ_SEED (default 2107); timing
is not fixed, which is the point, so every bound is generous.  MCP_REF_FUZZ_CLIENTS=a,b
runs only those clients (the witness always runs) to narrow a failure down.  A
failure prints the seed, each violation with the client's action that broke it,
and the trace of every client involved.
"""

import json
import os
import random
import re
import socket
import subprocess
import threading
import time
import unittest
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from tests._testing import HERE  # the repository's root
from tests._testing import python_command  # a server's command line, on the module under test


SERVER = os.path.join(HERE, "tests", "testdata", "http_fault_server.py")

SEED = int(os.environ.get("MCP_REF_FUZZ_SEED", "2107"))

ONLY = {name for name in os.environ.get("MCP_REF_FUZZ_CLIENTS", "").split(",") if name}

MODERN, SESSION, BATCH_SESSION = "2026-07-28", "2025-11-25", "2025-03-26"

META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}

ACCEPT = "application/json, text/event-stream"


IO_TIMEOUT = 10.0  # seconds one read may wait for an answer that should come at once

CLOSE_WAIT = 5.0  # seconds for the server to close a connection it must close

WITNESS_BOUND = 10.0  # seconds for one ordinary call while others abuse the server

RSS_BOUND = 96 << 20  # bytes the server may grow by over the run

THREAD_BOUND = 200  # threads the server may run at once

FLOOD_MIB = 160  # MiB of log notifications sent to a client that stops reading

STALLED = 400  # connections the hog opens and never finishes

POOL_CALLS = 40  # slow calls the pool client keeps in flight

INDEPENDENT = {"malformed", "framing", "headers", "states"}  # clients whose requests each stand alone

OPTIONS = {"sse_after": 0.3, "keepalive": 1.0, "request_timeout": 30, "max_sessions": 100}


def bindable(address: str) -> bool:
    """Whether this machine has ``address`` (Linux answers on all of 127/8; macOS on 127.0.0.1 only)."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    try:
        with socket.socket(family) as probe:
            probe.bind((address, 0))
        return True
    except OSError:
        return False


MANY_SOURCES = bindable("127.0.0.2")  # else every client comes from 127.0.0.1


class Closed(Exception):
    """The connection ended (or timed out) before the answer did."""


class Reply:
    def __init__(self, status: int, headers: List[Tuple[str, str]], body: bytes) -> None:
        self.status, self.header_list, self.body = status, headers, body
        self.headers = {name.lower(): value for name, value in headers}

    def messages(self) -> List[Any]:
        """The JSON-RPC messages: the JSON body, or the SSE events' data."""
        if self.headers.get("content-type", "").startswith("text/event-stream"):
            return [json.loads(event["data"]) for event in sse_events(self.body)
                if event.get("data")]  # a priming event's data is empty (basic/transports)
        if self.headers.get("content-type", "").startswith("application/json") and self.body.strip():
            return [json.loads(self.body)]
        return []

    def __repr__(self) -> str:
        return f"{self.status} {self.headers.get('content-type', '')} {shorten(self.body)}"


def sse_events(data: bytes) -> List[Dict[str, str]]:
    """The events of an SSE body (fields id, event, data, retry; comments skipped)."""
    events = []
    for block in data.replace(b"\r\n", b"\n").split(b"\n\n"):
        event: Dict[str, str] = {}
        for line in block.decode("utf-8", "replace").split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            event[name] = event[name] + "\n" + value if name == "data" and name in event else value
        if event:
            events.append(event)
    return events


def shorten(data: Any, limit: int = 160) -> str:
    text = data.decode("latin-1") if isinstance(data, (bytes, bytearray)) else str(data)
    text = text.encode("unicode_escape").decode("ascii")
    return text if len(text) <= limit else text[:limit] + f"...({len(text)} chars)"


class Wire:
    """One connection from ``source``; ``seen`` is every byte it received."""

    def __init__(self, port: int, source: str, seen: bytearray, host: str = "127.0.0.1",
                 bound: float = IO_TIMEOUT + CLOSE_WAIT) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.settimeout(IO_TIMEOUT)
        if family == socket.AF_INET:
            self.sock.bind((source, 0))
        self.sock.connect((host, port))
        self.buf, self.seen = b"", seen
        self.deadline = time.monotonic() + bound  # keepalive comments must not stretch a read

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _more(self) -> None:
        if time.monotonic() > self.deadline:
            raise Closed("timed out: no end to the answer")
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            raise Closed(f"timed out: nothing for {self.sock.gettimeout()} s") from None
        except OSError as exc:
            raise Closed(f"{type(exc).__name__} while reading") from None
        if not data:
            raise Closed("the server closed the connection")
        self.seen += data
        self.buf += data

    def line(self) -> bytes:
        while b"\n" not in self.buf:
            self._more()
        line, _, self.buf = self.buf.partition(b"\n")
        return line.rstrip(b"\r")

    def exactly(self, n: int) -> bytes:
        while len(self.buf) < n:
            self._more()
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def head(self) -> Tuple[int, List[Tuple[str, str]]]:
        status = self.line()
        while status == b"" or status.startswith(b"HTTP/1.1 100"):  # 100 Continue and its blank line
            status = self.line()
        parts = status.split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/") or not parts[1].isdigit():
            raise Closed(f"not an HTTP status line: {shorten(status)}")
        headers: List[Tuple[str, str]] = []
        while True:
            line = self.line()
            if not line:
                return int(parts[1]), headers
            name, _, value = line.decode("latin-1").partition(":")
            headers.append((name.strip(), value.strip()))

    def chunks(self, headers: List[Tuple[str, str]]) -> Iterator[bytes]:
        """The body as it arrives: by Content-Length, chunked, or up to the close."""
        fields = {name.lower(): value for name, value in headers}
        if "content-length" in fields:
            yield self.exactly(int(fields["content-length"]))
        elif "chunked" in fields.get("transfer-encoding", ""):
            while True:
                size = int(self.line().split(b";")[0], 16)
                if size == 0:
                    self.line()
                    return
                yield self.exactly(size)
                self.exactly(2)
        else:
            while True:
                try:
                    self._more()
                except Closed:
                    data, self.buf = self.buf, b""
                    yield data
                    return
                data, self.buf = self.buf, b""
                yield data

    def reply(self) -> Reply:
        status, headers = self.head()
        return Reply(status, headers, b"".join(self.chunks(headers)))

    def closes(self) -> Tuple[bool, bytes]:
        """Whether the server closes the connection within CLOSE_WAIT, and what it sent first."""
        self.sock.settimeout(CLOSE_WAIT)
        try:
            while True:
                self._more()
        except Closed as exc:
            return "closed" in str(exc) or "Reset" in str(exc), self.buf

    def close(self) -> None:
        """Close, keeping whatever had arrived unread (it may be another client's)."""
        try:
            self.sock.setblocking(False)
            while True:
                data = self.sock.recv(1 << 20)
                if not data:
                    break
                self.seen += data
        except OSError:
            pass
        self.sock.close()


def request(method: str, body: Optional[bytes], headers: Dict[str, Optional[str]], port: int,
            path: str = "/mcp") -> bytes:
    """An HTTP/1.1 request; a header given as None is left out."""
    fields: Dict[str, Optional[str]] = {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json",
                                        "Accept": ACCEPT, "Connection": "close"}
    fields.update(headers)
    if body is not None:
        fields["Content-Length"] = str(len(body))
    lines = [f"{method} {path} HTTP/1.1"] + [f"{k}: {v}" for k, v in fields.items() if v is not None]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")


def dump(message: Any) -> bytes:
    return json.dumps(message).encode("ascii")  # lone surrogates go as \uXXXX escapes


class Server:
    """testdata/http_fault_server.py on an ephemeral port, its stdout collected,
    its stderr left unread until stop(), its RSS and threads sampled."""

    def __init__(self, host: str = "127.0.0.1", auth: bool = False, options: Optional[Dict[str, Any]] = None) -> None:
        config = {"host": host, "auth": auth, "options": dict(OPTIONS, **(options or {}))}
        self.process = subprocess.Popen(python_command(SERVER, json.dumps(config)), stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.process.stderr.readline().decode()  # type: ignore[union-attr]
        if "serving" not in line:
            self.process.kill()
            raise AssertionError(f"the server did not start: {line!r}")
        bound, _, port = line.split("http://", 1)[1].split("/")[0].rpartition(":")
        self.host, self.port = bound.strip("[]"), int(port)
        self.stdout = bytearray()
        self.reader = threading.Thread(target=self._read_stdout, daemon=True)
        self.reader.start()
        self.baseline = self.rss()
        self.max_rss, self.max_threads = self.baseline, self.threads()
        self.sampling = threading.Event()
        self.sampler = threading.Thread(target=self._sample, daemon=True)
        self.sampler.start()

    def _read_stdout(self) -> None:
        while True:
            data = self.process.stdout.read1(65536)  # type: ignore[union-attr]
            if not data:
                return
            self.stdout += data

    def rss(self) -> int:
        try:
            with open(f"/proc/{self.process.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    def threads(self) -> int:
        try:
            return len(os.listdir(f"/proc/{self.process.pid}/task"))
        except OSError:
            return 0

    def _sample(self) -> None:
        while not self.sampling.wait(0.1):
            self.max_rss, self.max_threads = max(self.max_rss, self.rss()), max(self.max_threads, self.threads())

    def stop(self) -> Tuple[bool, bytes]:
        """Whether it was alive, and its stderr."""
        self.sampling.set()
        self.sampler.join(5)
        alive = self.process.poll() is None
        if alive:
            self.process.terminate()
        try:
            _, stderr = self.process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, stderr = self.process.communicate()
        self.reader.join(5)
        return alive, stderr


class Run:
    """One seeded run: its clients, what each did, and what went wrong."""

    def __init__(self, seed: int, server: Server) -> None:
        self.seed, self.server = seed, server
        self.clients: Dict[str, Client] = {}
        self.violations: List[Tuple[str, str, int, str]] = []  # invariant, client, action index, detail
        self.lock = threading.Lock()

    def client(self, name: str, source: str) -> "Client":
        client = Client(self, name, source)
        self.clients[name] = client
        return client

    def violate(self, invariant: str, client: "Client", detail: str) -> None:
        if client.abandoned:
            return  # its connections were cut by the test itself
        with self.lock:
            self.violations.append((invariant, client.name, len(client.trace) - 1, detail))

    def check_isolation(self) -> None:
        for client in self.clients.values():
            seen = bytes(client.seen)
            for other in self.clients.values():
                if other is not client and other.nonce.encode() in seen:
                    at = seen.index(other.nonce.encode())
                    self.violate("isolation", client, f"received {other.name}'s nonce: "
                                                      f"{shorten(seen[max(0, at - 60):at + 60])}")
        out = bytes(self.server.stdout)
        if out:
            owners = [c.name for c in self.clients.values() if c.nonce.encode() in out]
            self.violations.append(("isolation", "server", -1, f"{len(out)} bytes on the server's stdout "
                                                              f"(from {owners}): {shorten(out)}"))

    def trace_to_replay(self, name: str) -> List[str]:
        """A client's actions up to its last failure: the first three (its set-up) and
        each failing one, with the three before it unless each of its requests stands
        alone (INDEPENDENT); the rest elided."""
        trace = self.clients[name].trace
        failing = {index for _, who, index, _ in self.violations if who == name and index >= 0}
        before = 0 if name in INDEPENDENT else 3
        keep = set(range(min(3, len(trace)))) | {i for f in failing for i in range(f - before, f + 1) if i >= 0}
        lines, skipped = [], 0
        for i, action in enumerate(trace[:max(failing | {0}) + 1]):
            if i not in keep:
                skipped += 1
                continue
            if skipped:
                lines.append(f"    ... ({skipped} actions)")
                skipped = 0
            lines.append(f"    #{i} {action}" + ("   <- fails" if i in failing else ""))
        return lines

    def report(self, stderr: bytes) -> str:
        lines = [f"MCP_REF_FUZZ_SEED={self.seed}: {len(self.violations)} violation(s)"]
        involved: List[str] = []
        alike: Dict[Tuple[str, str, str], int] = {}  # the same failure again: counted, not repeated
        for invariant, name, index, detail in self.violations:
            client = self.clients.get(name)
            action = client.trace[index] if client is not None and 0 <= index < len(client.trace) else "-"
            key = (invariant, name, re.sub(r"N[0-9a-f]{12}\w*?-\d+", "ID", detail + " / " + action)[:400])
            alike[key] = alike.get(key, 0) + 1
            if alike[key] > 1:
                continue
            lines.append(f"  [{invariant}] {name} #{index} {action}\n      {detail}")
            if name not in involved and client is not None:
                involved.append(name)
        lines += [f"  ({count - 1} more like [{key[0]}] {key[1]}: {shorten(key[2], 100)})"
                  for key, count in alike.items() if count > 1]
        for name in involved:
            lines.append(f"  trace of {name} ({self.clients[name].source}, nonce {self.clients[name].nonce}):")
            lines += self.trace_to_replay(name)
        tail = stderr.decode("utf-8", "replace").strip().splitlines()[-8:]
        lines.append("  server stderr (last lines): " + "\n    ".join([""] + tail))
        return "\n".join(lines)


class Client:
    """A client: a source address, a nonce, a seeded generator, a trace."""

    def __init__(self, run: Run, name: str, source: str) -> None:
        self.run, self.name, self.source = run, name, source if MANY_SOURCES else "127.0.0.1"
        self.rng = random.Random(f"{run.seed}/{name}")
        self.nonce = f"N{self.rng.getrandbits(48):012x}{name[:3]}"
        self.seen = bytearray()
        self.trace: List[str] = []
        self.n = 0
        self.token: Optional[str] = None
        self.stuck = False
        self.abandoned = False
        self.bound = IO_TIMEOUT + CLOSE_WAIT  # seconds one answer may take, keepalive comments or not
        self.unanswered = "answer-once"  # the invariant a request with no answer breaks
        self.sessions: List[Optional[str]] = []
        self.live: List[Wire] = []

    @property
    def port(self) -> int:
        return self.run.server.port

    def act(self, text: str) -> None:
        self.trace.append(text)

    def fail(self, invariant: str, detail: str) -> None:
        self.run.violate(invariant, self, detail)

    def next_id(self) -> str:
        self.n += 1
        return f"{self.nonce}-{self.n}"

    def wire(self) -> Wire:
        wire = Wire(self.port, self.source, self.seen, self.run.server.host, self.bound)
        self.live.append(wire)
        return wire

    def abandon(self) -> None:
        """Cut every connection: what it was waiting for no longer counts."""
        self.abandoned = True
        for wire in list(self.live):
            try:
                wire.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def exchange(self, raw: bytes) -> Reply:
        """One request on a fresh connection; Closed if it is not answered."""
        wire = self.wire()
        try:
            wire.send(raw)
            return wire.reply()
        except OSError as exc:
            raise Closed(f"{type(exc).__name__}: {exc}") from None
        finally:
            wire.close()

    def headers(self, era: str, message: Any, session: Optional[str]) -> Dict[str, Optional[str]]:
        fields: Dict[str, Optional[str]] = {}
        if self.token is not None:
            fields["Authorization"] = f"Bearer {self.token}"
        if era == MODERN:
            fields["MCP-Protocol-Version"] = MODERN
            if isinstance(message, dict):
                method, params = message.get("method"), message.get("params")
                fields["Mcp-Method"] = method if isinstance(method, str) and method.isascii() else None
                name = params.get("name", params.get("uri")) if isinstance(params, dict) else None
                fields["Mcp-Name"] = name if isinstance(name, str) and name.isascii() and name.isprintable() else None
        elif session is not None:
            fields["Mcp-Session-Id"] = session
            fields["MCP-Protocol-Version"] = era
        return fields

    def post(self, message: Any, era: str, session: Optional[str] = None, body: Optional[bytes] = None,
             extra: Optional[Dict[str, Optional[str]]] = None, malformed: bool = False) -> Optional[Reply]:
        """POST a message; check the answer rule; the reply, or None if there was none
        (then ``stuck`` says the client gave up waiting: it stops)."""
        fields = self.headers(era, message, session)
        fields.update(extra or {})
        try:
            reply = self.exchange(request("POST", dump(message) if body is None else body, fields, self.port))
        except Closed as exc:
            self.fail(self.unanswered, f"no answer: {exc}")
            self.stuck = self.stuck or "timed out" in str(exc)
            return None
        check_answer(self, message, reply, malformed)
        return reply

    def initialize(self, version: str = SESSION) -> Optional[str]:
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": self.nonce, "version": "1"}}}
        self.act(f"initialize {version}")
        reply = self.post(message, version)
        session = reply.headers.get("mcp-session-id") if reply is not None else None
        if session is not None:
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            self.post(note, version, session)
        return session

    def call(self, era: str, tool: str, arguments: Dict[str, Any], session: Optional[str] = None,
             meta: Optional[Dict[str, Any]] = None) -> Optional[Reply]:
        params: Dict[str, Any] = {"name": tool, "arguments": dict(arguments, nonce=self.nonce)}
        if era == MODERN or meta:
            params["_meta"] = dict(META if era == MODERN else {}, **(meta or {}))
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": "tools/call", "params": params}
        self.act(f"{era} tools/call {tool} {json.dumps(arguments)}" + (" in session" if session else ""))
        return self.post(message, era, session)


def check_answer(client: Client, message: Any, reply: Reply, malformed: bool = False) -> None:
    """The answer rule: one JSON-RPC response per request (its id, or null for a
    message whose id could not be read), or a documented HTTP status with a clear body."""
    requests = [m for m in (message if isinstance(message, list) else [message]) if isinstance(m, dict) and "id" in m]
    if reply.status == 503 and "retry-after" not in reply.headers:
        client.fail("retry-after", f"503 without Retry-After: {reply!r}")
    if reply.status >= 500 and reply.status != 503:
        client.fail("answer-once", f"HTTP {reply.status}: {reply!r}")
    if reply.status == 202:
        if requests:
            client.fail("answer-once", f"202 with no response for a request: {reply!r}")
        return
    if not reply.body.strip():
        if reply.status < 300 and requests:
            client.fail("answer-once", f"an empty answer: {reply!r}")
        elif reply.status >= 300:
            client.fail("answer-once", f"HTTP {reply.status} with no body saying why")
        return
    try:
        messages = reply.messages()
    except ValueError:
        client.fail("answer-once", f"an answer that is not JSON: {reply!r}")
        return
    flat = [m for one in messages for m in (one if isinstance(one, list) else [one])]
    responses = [m for m in flat if isinstance(m, dict) and "method" not in m]
    for response in responses:
        if ("result" in response) == ("error" in response):
            client.fail("answer-once", f"not a JSON-RPC response: {shorten(json.dumps(response))}")
        error = response.get("error")
        if malformed and isinstance(error, dict) and error.get("code") == -32603:
            client.fail("internal", f"-32603 for the client's input: {shorten(json.dumps(response))}")
    if not messages and reply.status >= 400:
        return  # a plain-text refusal (text/plain, "400 Bad Request"): clear enough
    if reply.status >= 400 and len(responses) == 1 and responses[0].get("id") is None:
        return  # refused as a whole, before any id was read
    expected = [m["id"] for m in requests]
    got = [r.get("id") for r in responses]
    valid = [i for i in expected if isinstance(i, str) or isinstance(i, int) and not isinstance(i, bool)]
    for id_ in valid:
        if got.count(id_) != 1:
            client.fail("answer-once", f"request {id_!r} answered {got.count(id_)} times: {reply!r}")
    strays = [i for i in got if i not in valid and i is not None]
    if strays:
        client.fail("answer-once", f"responses to ids never sent: {strays}")
    if len(got) - len([i for i in got if i in valid]) > len(expected) - len(valid):
        client.fail("answer-once", f"more null-id responses than requests with an invalid id: {reply!r}")


def in_threads(jobs: List[Callable[[], None]], bound: float) -> None:
    threads = [threading.Thread(target=job, daemon=True) for job in jobs]
    for t in threads:
        t.start()
    deadline = time.monotonic() + bound
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))


WRONG: List[Any] = [None, True, False, 0, -1, 17, 1.5, 10 ** 30, "", "x", "\ud800", "\u00e9\u2028", [], [1, "a"], {},
                    {"a": {"b": [None]}}]

KINDS = ("null", "bool", "int", "float", "str", "list", "dict")  # each param gets one wrong value of each JSON type


def of_kind(kind: str) -> List[Any]:
    return [w for w in WRONG if {"null": w is None, "bool": isinstance(w, bool), "float": isinstance(w, float),
                                 "int": isinstance(w, int) and not isinstance(w, bool), "str": isinstance(w, str),
                                 "list": isinstance(w, list), "dict": isinstance(w, dict)}[kind]]

INVALID_IDS: List[Any] = [None, True, 1.5, [1], {"id": 1}]

BAD_BODIES = [b"{nope", b"\xff\xfe{}", b"[]", b"42", b"NaN", b"null", b'"x"', b"", b"[" * 100 + b"]" * 100,
              b'{"a":' * 3000, b'{"jsonrpc": "2.0", "id": 1, "method": "ping"', b"\x00" * 10]


def method_params(nonce: str) -> Dict[str, Dict[str, Any]]:
    """Every method a client sends, with good params (subscriptions/listen aside: a stream
    that never ends is the hog's business)."""
    return {
        "initialize": {"protocolVersion": SESSION, "capabilities": {}, "clientInfo": {"name": nonce, "version": "1"}},
        "ping": {}, "tools/list": {"cursor": nonce}, "tools/call": {"name": "echo", "arguments": {"nonce": nonce}},
        "resources/list": {"cursor": nonce}, "resources/templates/list": {}, "resources/read": {"uri": "fuzz://note"},
        "resources/subscribe": {"uri": "fuzz://note"}, "resources/unsubscribe": {"uri": "fuzz://note"},
        "prompts/list": {}, "prompts/get": {"name": "greet", "arguments": {"who": nonce}},
        "completion/complete": {"ref": {"type": "ref/prompt", "name": "greet"},
                                "argument": {"name": "who", "value": nonce}},
        "logging/setLevel": {"level": "info"}, "server/discover": {},
    }


def faults(modern: bool) -> List[Tuple[str, str, str]]:
    """Every (method, what to break, which key) of one era: each param's type, each
    nested argument's, params itself, method, id, jsonrpc, a missing field, _meta's."""
    table = method_params("n")
    out = []
    for method in sorted(table):
        if modern and method == "initialize":
            continue
        out += [(method, "param", f"{key}/{kind}") for key in table[method] for kind in KINDS]
        out += [(method, "nested", f"{key}/{kind}") for key in table[method].get("arguments", {}) for kind in KINDS]
        out += [(method, "extra", "extra/str")]
        out += [(method, "params", ""), (method, "method", ""), (method, "id", ""), (method, "jsonrpc", "")]
        out += [(method, "drop", key) for key in ("method", "params", "jsonrpc")]
        if modern:
            out += [(method, "meta", key) for key in sorted(META) + ["io.modelcontextprotocol/logLevel"]]
    return out


def malformed_message(rng: random.Random, client: Client, modern: bool, fault: Tuple[str, str, str]) -> Any:
    """A request of ``method`` with one thing wrong, the wrong value drawn from WRONG."""
    method, kind, key = fault
    params = json.loads(json.dumps(method_params(client.nonce)[method]))
    if modern:
        params["_meta"] = dict(META)
    message: Dict[str, Any] = {"jsonrpc": "2.0", "id": client.next_id(), "method": method, "params": params}
    if kind in ("param", "extra"):
        key, _, type_ = key.partition("/")
        params[key] = rng.choice(of_kind(type_))
    elif kind == "nested":
        key, _, type_ = key.partition("/")
        params["arguments"][key] = rng.choice(of_kind(type_))
    elif kind == "params":
        message["params"] = rng.choice([w for w in WRONG if not isinstance(w, dict)])
    elif kind == "method":
        message["method"] = rng.choice([w for w in WRONG if w != "ping"])
    elif kind == "id":
        message["id"] = rng.choice(INVALID_IDS)
    elif kind == "jsonrpc":
        message["jsonrpc"] = rng.choice(["1.0", None, 2, ""])
    elif kind == "drop":
        del message[key]
    else:
        params["_meta"][key] = rng.choice(WRONG)
    return message


def run_malformed(client: Client) -> None:
    """Every fault of faults(), in both eras, in a seeded order; bad bodies and
    batches (2025-03-26) among them."""
    rng = client.rng
    sessions = {SESSION: client.initialize(SESSION), BATCH_SESSION: client.initialize(BATCH_SESSION)}
    plan: List[Tuple[str, Any]] = [(MODERN, f) for f in faults(True)] + [(SESSION, f) for f in faults(False)]
    plan += [("body", body) for body in BAD_BODIES] + [("batch", None)] * 8
    rng.shuffle(plan)
    for where, fault in plan:
        if client.stuck:
            return
        era = {MODERN: MODERN, "batch": BATCH_SESSION, "body": rng.choice([MODERN, SESSION, BATCH_SESSION])}.get(
            where, rng.choice([SESSION, BATCH_SESSION]))
        session = None if era == MODERN or rng.random() < 0.1 else sessions[era]
        if where == "body":
            client.act(f"{era} POST raw body {shorten(fault, 60)}" + (" in session" if session else ""))
            reply = client.post(None, era, session, body=fault, malformed=True)
            if reply is not None and not 400 <= reply.status < 500:
                client.fail("answer-once", f"a body that is no message answered {reply!r}")
            continue
        if where == "batch":
            choices = faults(False)
            message: Any = [malformed_message(rng, client, False, rng.choice(choices)) if rng.random() < 0.6 else
                            {"jsonrpc": "2.0", "id": client.next_id(), "method": "ping"}
                            for _ in range(rng.randint(1, 3))]
        else:
            message = malformed_message(rng, client, era == MODERN, fault)
        client.act(f"{era} POST {shorten(json.dumps(message), 300)}" + (" in session" if session else ""))
        client.post(message, era, session, malformed=True)


ELICITING = dict(META, **{"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}})


def ask_message(client: Client, topic: str, **retry: Any) -> Dict[str, Any]:
    """tools/call ask (2026-07-28), a first round or a retry (inputResponses, requestState)."""
    params = dict({"name": "ask", "arguments": {"topic": topic}, "_meta": ELICITING}, **retry)
    return {"jsonrpc": "2.0", "id": client.next_id(), "method": "tools/call", "params": params}


def first_state(client: Client, topic: str) -> Optional[str]:
    client.act(f"{MODERN} tools/call ask {{'topic': {topic!r}}}: a first round, for its requestState")
    reply = client.post(ask_message(client, topic), MODERN)
    result = (reply.messages() or [{}])[0].get("result") if reply is not None else None
    state = result.get("requestState") if isinstance(result, dict) else None
    if not isinstance(state, str):
        client.fail("answer-once", f"no requestState in the first round: {reply!r}")
        return None
    return state


def run_states(client: Client) -> None:
    """basic/patterns/mrtr: an altered requestState (a character changed, a non-ASCII
    character or a lone surrogate added, a wrong type) is refused with -32602; an
    answer that does not match the requested schema never reaches the tool: it is
    a tool error, as the SDK's ctx.elicit makes it (or -32602)."""
    rng = client.rng
    topic = f"T{client.nonce}"
    state = first_state(client, topic)
    if state is None:
        return
    middle = len(state) // 2
    flipped = state[:middle] + ("A" if state[middle] != "A" else "B") + state[middle + 1:]
    accept = {"elicitation_0": {"action": "accept", "content": {"name": "ok"}}}
    faults: List[Tuple[str, Dict[str, Any]]] = [
        (f"requestState {name}", {"requestState": value, "inputResponses": accept}) for name, value in (
            ("with a character changed", flipped), ("+ 'é'", state + "\u00e9"),
            ("+ a lone surrogate", state + "\ud800"), ("with 'é' inside", state[:middle] + "\u00e9" + state[middle:]),
            ("of 3 dots", "v1..."),
            ("17", 17), ("[]", []), ("{}", {}))]
    faults += [(f"inputResponses {value!r}", {"requestState": state, "inputResponses": value})
               for value in ("x", [accept], 17)]
    rng.shuffle(faults)
    for name, retry in faults:
        client.act(f"{MODERN} tools/call ask, retry with {name}")
        reply = client.post(ask_message(client, topic, **retry), MODERN, malformed=True)
        errors = [m.get("error") for m in (reply.messages() if reply is not None else []) if isinstance(m, dict)]
        if reply is not None and not (errors and isinstance(errors[0], dict) and errors[0].get("code") == -32602):
            client.fail("request-state", f"{name}: not refused with -32602: {reply!r}")
    for content in ({"name": 17}, {"name": None}, {}, {"name": ["x"]}):
        client.act(f"{MODERN} tools/call ask, retry answering {json.dumps(content)} (the schema asks a string name)")
        answer = {"elicitation_0": {"action": "accept", "content": content}}
        reply = client.post(ask_message(client, topic, requestState=state, inputResponses=answer), MODERN,
                            malformed=True)
        messages = [m for m in (reply.messages() if reply is not None else []) if isinstance(m, dict)]
        error, result = (messages[0].get("error"), messages[0].get("result")) if messages else (None, None)
        refused = (isinstance(error, dict) and error.get("code") == -32602) or (
            isinstance(result, dict) and result.get("isError") is True)
        if reply is not None and not refused:
            client.fail("validation", f"the answer {json.dumps(content)} was not refused (a tool error, as the "
                                      f"SDK's ctx.elicit gives, or -32602): {reply!r}")


def framing_cases(port: int, nonce: str) -> List[Tuple[str, bytes, Tuple[int, ...]]]:
    """(name, request, the statuses RFC 9112 allows); each request is followed
    by a smuggled second one, which must never be answered."""
    body = dump({"jsonrpc": "2.0", "id": f"{nonce}-framed", "method": "ping"})
    n = len(body)
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: {ACCEPT}\r\n").encode()
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (n, body)
    refused = (400, 411, 501)
    cases = [
        # RFC 9112 6.1: Transfer-Encoding overrides Content-Length, and the connection
        # MUST close after the answer; 6.3 (4): chunked not the final coding: 400 and close.
        ("TE gzip + CL", f"Transfer-Encoding: gzip\r\nContent-Length: {n}\r\n\r\n".encode() + body, (400, 501)),
        ("TE chunked, gzip + CL", f"Transfer-Encoding: chunked, gzip\r\nContent-Length: {n}\r\n\r\n".encode() + body,
         (400,)),
        ("TE identity + CL", f"Transfer-Encoding: identity\r\nContent-Length: {n}\r\n\r\n".encode() + body,
         (400, 501)),
        ("TE gzip, TE chunked + CL", f"Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\nContent-Length: {n}"
                                     f"\r\n\r\n".encode() + body, (400,)),
        ("TE chunked + CL", f"Transfer-Encoding: chunked\r\nContent-Length: {n}\r\n\r\n".encode() + chunked, refused),
        ("TE chunked, bad size", b"Transfer-Encoding: chunked\r\n\r\nzz\r\n" + body + b"\r\n0\r\n\r\n", refused),
        ("TE chunked, size overflow", b"Transfer-Encoding: chunked\r\n\r\n" + b"f" * 40 + b"\r\n" + body,
         refused + (413,)),
        # 6.3 (5): an invalid Content-Length (two values that differ, a sign, a list): 400 and close.
        ("two CL that differ", f"Content-Length: 5\r\nContent-Length: {n}\r\n\r\n".encode() + body, (400,)),
        ("CL list that differs", f"Content-Length: {n}, 5\r\n\r\n".encode() + body, (400,)),
        ("CL negative", b"Content-Length: -1\r\n\r\n" + body, (400,)),
        ("CL signed", f"Content-Length: +{n}\r\n\r\n".encode() + body, (400,)),
        ("CL huge", b"Content-Length: " + b"9" * 30 + b"\r\n\r\n" + body, (400, 413)),
        ("CL hex", b"Content-Length: 0x10\r\n\r\n" + body, (400,)),
    ]
    smuggled = request("POST", dump({"jsonrpc": "2.0", "id": f"{nonce}-smuggled", "method": "ping"}), {}, port)
    return [(name, head + raw + smuggled, statuses) for name, raw, statuses in cases]


def run_framing(client: Client) -> None:
    cases = framing_cases(client.port, client.nonce)
    client.rng.shuffle(cases)

    def one(name: str, raw: bytes, statuses: Tuple[int, ...]) -> None:
        index = len(client.trace)
        client.act(f"raw {name}: {shorten(raw, 400)}")
        wire = client.wire()
        try:
            wire.send(raw)
            reply = wire.reply()
            closed, extra = wire.closes()
        except (Closed, OSError) as exc:
            client.run.violations.append(("framing", client.name, index, f"{name}: no answer ({exc})"))
            return
        finally:
            wire.close()
        problems = []
        if reply.status not in statuses:
            problems.append(f"answered {reply.status} (RFC 9112: {statuses}): {reply!r}")
        if extra:
            problems.append(f"a second answer on the connection (the smuggled request?): {shorten(extra)}")
        elif not closed:
            problems.append(f"the connection stays open for {CLOSE_WAIT} s")
        for problem in problems:
            client.run.violations.append(("framing", client.name, index, f"{name}: {problem}"))

    in_threads([lambda c=case: one(*c) for case in cases], IO_TIMEOUT + CLOSE_WAIT + 5)  # type: ignore[misc]


def run_headers(client: Client, accept: bool = True) -> None:
    """Hostile Host and Origin spellings are refused (DNS rebinding, basic/security_best_practices);
    loopback ones served."""
    port = client.port
    hosts = ["evil.example", f"evil.example:{port}", "localhost.evil.example", f"127.0.0.1.evil.example:{port}",
             f"localhost:{port}.evil.example", f"127.0.0.1:{port}@evil.example", ""]
    origins = ["http://evil.example", f"http://evil.example:{port}", "http://localhost.evil.example",
               f"http://127.0.0.1:{port}.evil.example", "https://evil.example"]
    cases = [("Host", h, (400, 421)) for h in hosts] + [("Origin", o, (403,)) for o in origins]
    if accept:
        cases += [("Host", h, (200,)) for h in (f"127.0.0.1:{port}", f"localhost:{port}")]
        cases += [("Origin", o, (200,)) for o in (f"http://127.0.0.1:{port}", f"http://localhost:{port}")]
    client.rng.shuffle(cases)
    for name, value, statuses in cases:
        era = client.rng.choice([MODERN, SESSION])
        if era == MODERN:
            message = {"jsonrpc": "2.0", "id": client.next_id(), "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"nonce": client.nonce}, "_meta": META}}
        else:
            message = {"jsonrpc": "2.0", "id": client.next_id(), "method": "initialize", "params":
                       method_params(client.nonce)["initialize"]}
        client.act(f"{era} {message['method']} with {name}: {value!r}")
        reply = client.post(message, era, extra={name: value})
        if reply is not None and reply.status not in statuses:
            client.fail("access", f"{name} {value!r} answered {reply.status}, not {statuses}: {reply!r}")


class Bystander:
    """A connection held open, keep-alive, while the tools misbehave: what lands there is not its own."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.wire: Optional[Wire] = None

    def open(self) -> None:
        self.client.act("open a keep-alive connection and hold it")
        try:
            wire = self.client.wire()
            message = {"jsonrpc": "2.0", "id": self.client.next_id(), "method": "server/discover",
                       "params": {"_meta": META}}
            wire.send(request("POST", dump(message), dict(self.client.headers(MODERN, message, None),
                                                            Connection=None), self.client.port))
            check_answer(self.client, message, wire.reply())
            self.wire = wire
        except (Closed, OSError) as exc:
            self.client.fail("answer-once", f"no answer: {exc}")

    def close(self) -> None:
        if self.wire is not None:
            time.sleep(0.2)
            self.wire.close()


def run_tools(client: Client, bystander: Bystander) -> None:
    """Tools that print, write to fd 1, start children that print, close fd 1, raise.
    After fd 1 is closed, a bystander connects; then the tools print again."""
    rng = client.rng
    session = client.initialize(SESSION)
    noisy = ["print", "fd", "write", "child"]

    def some(kinds: List[str]) -> None:
        for kind in rng.sample(kinds, len(kinds)):
            era = rng.choice([MODERN, SESSION])
            client.call(era, "noisy", {"kind": kind}, session if era == SESSION else None)

    some(noisy)
    client.call(rng.choice([MODERN]), "close_stdout", {})
    bystander.open()
    some(noisy)
    bystander.close()
    for kind in rng.sample(["tool", "value", "error"], 3):
        era = rng.choice([MODERN, SESSION])
        client.call(era, "fail", {"kind": kind}, session if era == SESSION else None)
    some(noisy)


def run_raiser(client: Client, ready: threading.Event, stop: threading.Event, count: int = 150) -> None:
    """A tool that raises: each call's traceback goes to the server's stderr, which nobody reads."""
    ready.set()
    session = client.sessions[0]  # opened before the abusers started
    for i in range(count):
        if client.stuck or stop.is_set():
            return
        if i % 2:
            client.call(MODERN, "fail", {"kind": "error"})
        else:
            client.call(SESSION, "fail", {"kind": "error"}, session)


def stream_events(wire: Wire, headers: List[Tuple[str, str]]) -> Iterator[Dict[str, str]]:
    """SSE events as they arrive."""
    pending = b""
    for data in wire.chunks(headers):
        pending += data.replace(b"\r\n", b"\n")
        while b"\n\n" in pending:
            block, _, pending = pending.partition(b"\n\n")
            yield from sse_events(block + b"\n\n")


def run_streams(client: Client) -> None:
    """Disconnect mid-stream (both eras); drop a stream and resume it with Last-Event-ID."""
    rng = client.rng
    session = client.initialize(SESSION)
    for _ in range(2):
        era = rng.choice([MODERN, SESSION])
        client.act(f"{era} tools/call steps, read one event, disconnect")
        message = steps_message(client, era)
        wire = client.wire()
        try:
            wire.send(request("POST", dump(message), client.headers(era, message, session if era == SESSION else
                                                                    None), client.port))
            status, headers = wire.head()
            if status == 200 and dict((k.lower(), v) for k, v in headers).get("content-type") == "text/event-stream":
                next(stream_events(wire, headers), None)
        except (Closed, OSError) as exc:
            client.fail("answer-once", f"no answer: {exc}")
        finally:
            wire.sock.close()
    resume(client, session)


def run_leaver(client: Client, ready: threading.Event, stop: threading.Event, calls: int = 2) -> None:
    """basic/transports (2025-03-26 .. 2025-11-25): "The disconnection SHOULD NOT be
    interpreted as the client cancelling its request"; docs/http.md says so too.  Calls
    left before their answer (JSON or stream) must still run to their end."""
    ready.set()
    session = client.sessions[0]  # opened before the abusers started
    for _ in range(calls):
        message = {"jsonrpc": "2.0", "id": client.next_id(), "method": "tools/call",
                   "params": {"name": "pause", "arguments": {"nonce": client.nonce, "seconds": 1.0}}}
        client.act(f"{SESSION} tools/call pause 1 s in session, disconnect before any answer")
        wire = client.wire()
        try:
            wire.send(request("POST", dump(message), client.headers(SESSION, message, session), client.port))
            time.sleep(0.05)
        finally:
            wire.sock.close()
    deadline = time.monotonic() + IO_TIMEOUT  # for calls of 1 s
    done = None
    while time.monotonic() < deadline:
        reply = client.call(SESSION, "finished", {}, session)
        done = result_text(reply) if reply is not None else None
        if done == str(calls) or client.stuck:
            return
        time.sleep(0.5)
    client.fail("cancellation", f"{done} of the {calls} calls its client left ran to their end")


def steps_message(client: Client, era: str, count: int = 6) -> Dict[str, Any]:
    params: Dict[str, Any] = {"name": "steps", "arguments": {"nonce": client.nonce, "count": count, "delay": 0.15},
                              "_meta": {"progressToken": f"{client.nonce}-p"}}
    if era == MODERN:
        params["_meta"].update(META)
    return {"jsonrpc": "2.0", "id": client.next_id(), "method": "tools/call", "params": params}


def resume(client: Client, session: Optional[str], count: int = 6) -> None:
    """basic/transports "Resumability and Redelivery": a stream that carries event ids
    may be resumed with a GET bearing Last-Event-ID; the replay must hold every message
    after that id, once.  A stream with no ids is not resumable, and that is all."""
    message = steps_message(client, SESSION, count)
    client.act(f"{SESSION} tools/call steps (count {count}) in session, read two progress events, disconnect, "
               f"GET with Last-Event-ID")
    seen: List[Dict[str, str]] = []
    wire = client.wire()
    try:
        wire.send(request("POST", dump(message), client.headers(SESSION, message, session), client.port))
        status, headers = wire.head()
        for event in stream_events(wire, headers):
            seen.append(event)
            if sum('"notifications/progress"' in e.get("data", "") for e in seen) >= 2:
                break
    except (Closed, OSError) as exc:
        client.fail("answer-once", f"no answer: {exc}")
        return
    finally:
        wire.sock.close()
    ids = [e["id"] for e in seen if "id" in e]
    fields = dict(client.headers(SESSION, None, session), Accept="text/event-stream")
    fields["Last-Event-ID"] = ids[-1] if ids else "0"
    wire = client.wire()
    try:
        wire.send(request("GET", None, fields, client.port))
        status, headers = wire.head()
        if not ids:
            if status != 200 and status < 400:
                client.fail("resume", f"GET with Last-Event-ID answered {status}")
            return  # not resumable: no event ids were sent
        if status != 200:
            client.fail("resume", f"the stream had event ids, and its resumption got {status}")
            return
        for event in stream_events(wire, headers):
            seen.append(event)
            data = event.get("data", "")
            if message["id"] in data and ('"result"' in data or '"error"' in data):
                break
    except (Closed, OSError) as exc:
        client.fail("resume", f"the resumed stream ended before the call's response: {exc}")
    finally:
        wire.close()
    messages = [json.loads(e["data"]) for e in seen if e.get("data")]
    progress = [m["params"]["progress"] for m in messages if m.get("method") == "notifications/progress"]
    answers = [m for m in messages if m.get("id") == message["id"] and "method" not in m]
    if sorted(progress) != list(range(1, count + 1)) or len(answers) != 1:
        client.fail("resume", f"resumed after event {ids[-1]!r}: progress {progress}, {len(answers)} response(s) "
                              f"(wanted 1..{count} once each, one response)")


def result_text(reply: Reply) -> Optional[str]:
    for message in reply.messages():
        if isinstance(message, dict) and "method" not in message and isinstance(message.get("result"), dict):
            content = message["result"].get("content") or [{}]
            return str(content[0].get("text"))
    return None


class Witness:
    """An ordinary client: its calls must complete, right, within WITNESS_BOUND, whatever the others do."""

    CALLS = ((MODERN, "echo"), (SESSION, "echo"), (MODERN, "ctx_echo"), (SESSION, "ctx_echo"), (MODERN, "async_echo"))

    def __init__(self, client: Client) -> None:
        self.client = client
        client.bound = WITNESS_BOUND + 1  # past that, its call has failed already: no need to wait on
        client.unanswered = "progress"
        self.session = client.initialize(SESSION)

    def round(self) -> None:
        """One call of each kind; the first one too slow ends the round (the rest would only wait too)."""
        for era, tool in self.CALLS:
            if self.client.stuck:
                return
            started = time.monotonic()
            reply = self.client.call(era, tool, {}, self.session if era == SESSION else None)
            took = time.monotonic() - started
            if reply is None:
                return  # failed already (progress)
            if took > WITNESS_BOUND:
                self.client.fail("progress", f"answered after {took:.1f} s, over {WITNESS_BOUND} s")
                return
            if result_text(reply) != self.client.nonce and reply.status != 503:
                self.client.fail("progress", f"not its own answer: {reply!r}")

    def fresh_session(self) -> None:
        """A new session while others hold many: granted, or 503 with Retry-After (checked by the answer rule)."""
        message = {"jsonrpc": "2.0", "id": self.client.next_id(), "method": "initialize",
                   "params": method_params(self.client.nonce)["initialize"]}
        self.client.act("a fresh initialize")
        reply = self.client.post(message, SESSION)
        if reply is not None and reply.status != 503 and "mcp-session-id" not in reply.headers:
            self.client.fail("progress", f"a fresh initialize got no session: {reply!r}")

    def rounds_while(self, busy: Callable[[], bool], limit: int = 20) -> None:
        self.round()
        for _ in range(limit):
            if not busy() or self.client.stuck:
                return
            self.round()
            time.sleep(0.2)


def settle(measure: Callable[[], int], limit: float = 8.0) -> None:
    """Wait until ``measure`` (the server's threads, its RSS) stops growing for half a
    second, or ``limit`` seconds: what an abuser did has then taken effect."""
    deadline, last = time.monotonic() + limit, -1
    while time.monotonic() < deadline:
        now = measure()
        if now <= last:
            return
        last = now
        time.sleep(0.5)


def run_hog(client: Client, ready: threading.Event, stop: threading.Event) -> None:
    """Stalled connections (half a request), and listen and GET streams never read."""
    wires: List[Wire] = []
    port = client.port
    partial = [f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: {ACCEPT}"
               f"\r\nContent-Length: 100\r\n\r\n{{".encode(),
               f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow".encode()]
    client.act(f"open {STALLED} connections, send half a request on each, wait")
    try:
        for i in range(STALLED):
            wire = client.wire()
            wires.append(wire)
            wire.send(partial[i % 2])
        client.act("open 10 subscriptions/listen streams and 5 GET streams, read none")
        for _ in range(10):
            listen = {"jsonrpc": "2.0", "id": client.next_id(), "method": "subscriptions/listen",
                      "params": {"notifications": {"toolsListChanged": True}, "_meta": META}}
            wire = client.wire()
            wires.append(wire)
            wire.send(request("POST", dump(listen), client.headers(MODERN, listen, None), port))
        for session in client.sessions:
            if session is not None:
                wire = client.wire()
                wires.append(wire)
                wire.send(request("GET", None, dict(client.headers(SESSION, None, session),
                                                    Accept="text/event-stream"), port))
    except OSError:
        pass  # a server that refuses more connections from this client: as it may
    finally:
        settle(client.run.server.threads)
        ready.set()
        stop.wait(60)
        for wire in wires:
            wire.close()


def run_flood(client: Client, ready: threading.Event, stop: threading.Event) -> None:
    """A call that logs FLOOD_MIB MiB to a client that stops reading."""
    session = client.sessions[0]  # opened before the abusers started
    message = {"jsonrpc": "2.0", "id": client.next_id(), "method": "tools/call",
               "params": {"name": "flood", "arguments": {"nonce": client.nonce, "chunks": FLOOD_MIB}}}
    client.act(f"tools/call flood {FLOOD_MIB} MiB in session, read nothing, wait")
    wire = client.wire()
    try:
        wire.send(request("POST", dump(message), client.headers(SESSION, message, session), client.port))
    except OSError:
        pass
    finally:
        settle(client.run.server.rss)
        ready.set()
        stop.wait(60)
        wire.close()


def run_pool(client: Client, ready: threading.Event, stop: threading.Event) -> None:
    """POOL_CALLS slow calls (sync tools with a Context) kept in flight until the witness is done."""
    session = client.sessions[0]  # opened before the abusers started
    deadline = time.monotonic() + WITNESS_BOUND * 3

    def loop(n: int) -> None:
        while not stop.is_set() and time.monotonic() < deadline and not client.stuck:
            era = MODERN if n % 2 else SESSION
            client.call(era, "slow", {"seconds": 3}, session if era == SESSION else None)

    threads = [threading.Thread(target=loop, args=(n,), daemon=True) for n in range(POOL_CALLS)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    ready.set()
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic() + IO_TIMEOUT))


def run_sessions(client: Client, ready: threading.Event, count: int = 150) -> None:
    """More initializes than the server keeps sessions (max_sessions 100)."""
    try:
        for _ in range(count):
            message = {"jsonrpc": "2.0", "id": client.next_id(), "method": "initialize",
                       "params": method_params(client.nonce)["initialize"]}
            client.act("initialize, never used")
            reply = client.post(message, SESSION)
            if reply is None or reply.status == 503:
                return
    finally:
        ready.set()


def wanted(name: str) -> bool:
    return not ONLY or name in ONLY or name == "witness"


def clients_run(run: Run) -> None:
    """Phase 0: the tools alone (fd 1); phase A: hostile input while the witness calls;
    phase B: resource abuse while the witness calls; then the bounds."""
    witness = Witness(run.client("witness", "127.0.0.1"))
    witness.round()
    if wanted("tools"):
        run_tools(run.client("tools", "127.0.0.5"), Bystander(run.client("bystander", "127.0.0.13")))
    phase_a = [(name, source, job) for name, source, job in (
        ("malformed", "127.0.0.2", run_malformed), ("framing", "127.0.0.3", run_framing),
        ("headers", "127.0.0.4", run_headers), ("streams", "127.0.0.7", run_streams),
        ("states", "127.0.0.15", run_states)) if wanted(name)]
    threads = [threading.Thread(target=job, args=(run.client(name, source),), daemon=True)
               for name, source, job in phase_a]
    for t in threads:
        t.start()
    witness.rounds_while(lambda: any(t.is_alive() for t in threads))
    for t in threads:
        t.join(60)
    stop = threading.Event()
    phase_b = [(name, source, job) for name, source, job in (
        ("flood", "127.0.0.9", run_flood), ("hog", "127.0.0.8", run_hog), ("pool", "127.0.0.10", run_pool),
        ("sessions", "127.0.0.12", lambda c, r, s: run_sessions(c, r)),
        ("raiser", "127.0.0.6", run_raiser), ("leaver", "127.0.0.16", run_leaver)) if wanted(name)]
    readies = [threading.Event() for _ in phase_b]
    clients = [run.client(name, source) for name, source, _ in phase_b]
    for client in clients:  # before any of them fills the server's sessions
        client.sessions = [client.initialize(SESSION) for _ in range(5 if client.name == "hog" else 1)]
    threads = [threading.Thread(target=job, args=(client, ready, stop), daemon=True)
               for (_, _, job), client, ready in zip(phase_b, clients, readies)]
    for t, ready in zip(threads, readies):  # the flood first: its tool must have a thread before the pool's calls
        t.start()
        if t is threads[0]:
            ready.wait(30)
    for ready in readies:
        ready.wait(30)
    witness.round()
    witness.fresh_session()
    stop.set()
    for name in ("pool", "raiser"):
        if name in run.clients:
            run.clients[name].abandon()
    for t in threads:
        t.join(60)
    server = run.server
    if server.max_rss - server.baseline > RSS_BOUND:
        run.violations.append(("bounded", "server", -1, f"RSS grew by {(server.max_rss - server.baseline) >> 20} "
                                                        f"MiB, over {RSS_BOUND >> 20} MiB"))
    if server.max_threads > THREAD_BOUND:
        run.violations.append(("bounded", "server", -1, f"{server.max_threads} threads, over {THREAD_BOUND}"))


def users_run(run: Run) -> None:
    """With a token verifier: bob (his own valid token) must not use, stream from or
    end alice's session (basic/security_best_practices, "Session Hijacking")."""
    alice, bob = run.client("alice", "127.0.0.11"), run.client("bob", "127.0.0.12")
    anonymous = run.client("anonymous", "127.0.0.14")
    alice.token, bob.token = "tok-a", "tok-b"
    sa, sb = alice.initialize(), bob.initialize()
    if sa is None or sb is None:
        return
    port = run.server.port

    def bob_posts() -> None:
        reply = bob.call(SESSION, "ctx_echo", {}, sa)
        if reply is not None and reply.status < 400:
            bob.fail("access", f"bob's call was served in alice's session: {reply!r}")

    def bob_streams() -> None:
        bob.act("GET alice's session stream")
        wire = bob.wire()
        try:
            wire.send(request("GET", None, dict(bob.headers(SESSION, None, sa), Accept="text/event-stream"), port))
            status, _ = wire.head()
            if status < 400:
                bob.fail("access", f"bob got alice's session stream: {status}")
        except (Closed, OSError) as exc:
            bob.fail("answer-once", f"no answer: {exc}")
        finally:
            wire.close()

    def bob_deletes() -> None:
        bob.act("DELETE alice's session")
        try:
            reply = bob.exchange(request("DELETE", None, bob.headers(SESSION, None, sa), port))
        except Closed as exc:
            bob.fail("answer-once", f"no answer: {exc}")
            return
        if reply.status < 400:
            bob.fail("access", f"bob ended alice's session: {reply!r}")

    def anonymous_posts() -> None:
        for token in (None, "tok-x"):
            anonymous.token = token
            reply = anonymous.call(SESSION, "echo", {}, sa)
            if reply is not None and reply.status != 401:
                anonymous.fail("access", f"token {token!r} in alice's session answered {reply.status}, not 401")

    def own(client: Client, session: str) -> Callable[[], None]:
        def calls() -> None:
            era = client.rng.choice([MODERN, SESSION])
            reply = client.call(era, client.rng.choice(["echo", "ctx_echo", "async_echo"]), {},
                                session if era == SESSION else None)
            if reply is not None and result_text(reply) != client.nonce:
                ended = reply.status == 404 and era == SESSION  # by someone else: bob_deletes
                client.fail("access" if ended else "progress", f"not its own answer: {reply!r}")
        return calls

    def bob_replays() -> None:
        state = first_state(alice, "shared")
        if state is None:
            return
        bob.act("retry alice's ask with her requestState")
        answer = {"elicitation_0": {"action": "accept", "content": {"name": "bob"}}}
        reply = bob.post(ask_message(bob, "shared", requestState=state, inputResponses=answer), MODERN)
        if reply is not None and b'"result"' in reply.body:
            bob.fail("access", f"bob's retry with alice's requestState was taken: {reply!r}")

    actions = [bob_posts, bob_streams, bob_deletes, anonymous_posts, bob_replays]
    actions += [own(alice, sa), own(bob, sb)] * 3
    run.clients["alice"].rng.shuffle(actions)
    for action in actions:
        action()
    reply = alice.call(SESSION, "echo", {}, sa)
    if reply is None or result_text(reply) != alice.nonce:
        alice.fail("access", f"alice's session no longer serves her: {reply!r}")


def bind_run(run: Run) -> None:
    run_headers(run.client("headers", "127.0.0.4"), accept=False)


def loopback_spellings() -> List[str]:
    return [spelling for spelling in ("127.0.0.2", "127.1", "0:0:0:0:0:0:0:1") if bindable(spelling)]


class HttpFaultTest(unittest.TestCase):
    def seeded(self, body: Callable[[Run], None], **server: Any) -> None:
        run = Run(SEED, Server(**server))
        try:
            body(run)
        finally:
            alive, stderr = run.server.stop()
        if not alive:
            run.violations.append(("alive", "server", -1, "the server process died"))
        run.check_isolation()
        if run.violations:
            self.fail(run.report(stderr))

    def test_clients_against_one_server(self) -> None:
        self.seeded(clients_run)

    def test_users_with_a_token_verifier(self) -> None:
        self.seeded(users_run, auth=True)

    def test_dns_rebinding_on_every_loopback_spelling(self) -> None:
        for host in loopback_spellings():
            with self.subTest(host=host):
                self.seeded(bind_run, host=host)


if __name__ == "__main__":
    unittest.main()

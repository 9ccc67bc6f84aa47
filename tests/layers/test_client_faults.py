"""mcp_ref.Client against servers that misbehave (sections 31 and 32): seeded
fake servers over stdio (testdata/client_fault_server.py, a child process) and
Streamable HTTP (a loopback socket server on a thread of this process) that
cut, stall, flood, repeat, reorder, mutate and oversize frames and streams.

For each seed the client must keep its promises (docs/client.md):

* a call ends, with its result or a documented exception (``ConnectionError``,
  ``MCPError``), within its timeout and a little slack: a server that streams
  keep-alives or notifications cannot hold it;
* memory stays bounded by the client's ``max_message_bytes`` (traced with
  tracemalloc: about twice the cap, whatever the server sends);
* no request is sent twice (the server counts each id and each POST body);
* a call given up on is cancelled (``notifications/cancelled``, once) and its
  late answer is dropped: the next request works;
* no Authorization header goes to another origin (a redirect is not followed
  with the caller's credentials).

The seeds cycle through the faults, so that the default run tries each one on
both transports; MCP_REF_CLIENT_FAULT_SEEDS=500 tries more parameters."""

from tests._testing import HERE  # the repository's root

import json
import os
import random
import socket
import sys
import tempfile
import threading
import time
import tracemalloc
import unittest
from typing import Any, Callable, Dict, List, Optional, Tuple

import mcp_ref
from mcp_ref import Client, MCPError


STDIO_SERVER = os.path.join(HERE, "tests", "testdata", "client_fault_server.py")

SEEDS = int(os.environ.get("MCP_REF_CLIENT_FAULT_SEEDS", "64"))

CAP = 256 * 1024  # the clients' max_message_bytes here: floods of a few MiB are many caps

TIMEOUT = 0.6

SLACK = 1.5  # beyond the timeout: a cancellation's POST, a child's exit (stdio waits _GRACE for it)

MEMORY = 2 * CAP + 768 * 1024  # "about twice the cap", and the client's own small change

SECRET = "Bearer s3cret"

ANSWER = {"content": [{"type": "text", "text": "ok"}]}

DOCUMENTED = (ConnectionError, MCPError)


STDIO_FAULTS = ("ok", "stall", "notes", "spam", "late", "cut", "oversize", "flood", "repeat", "garbage", "reorder",
                "deaf")

HTTP_FAULTS = ("json", "sse", "keepalive", "notes", "spam", "stall", "trickle", "slow_head", "cut_chunk", "bad_chunk",
               "cut_event", "close", "idle_close", "oversize_event", "oversize_json", "flood", "status", "redirect",
               "mutate", "repeat", "reorder")

# The faults after which the call must still succeed; the others may fail (documented).
SUCCEED = {"ok", "flood", "json", "sse", "idle_close", "repeat", "reorder"}

STDIO_FAIL_TO_SUCCEED = {"reorder"}  # stdio: an answer to an id never asked is the server's failure

TIMED_OUT = {"stall", "notes", "spam", "late", "keepalive", "trickle", "slow_head"}  # given up on: cancelled, once


class Outcome:
    def __init__(self) -> None:
        self.result: Any = None
        self.error: Optional[BaseException] = None
        self.seconds = 0.0
        self.peak = 0
        self.finished = False


# The handshake's and tools/list's timeout: the server process starting under a
# loaded CI machine's two CPUs may take more than TIMEOUT; they are answered
# faithfully, and only the call that follows meets the fault (shorten).
HANDSHAKE = 30.0


def shorten(client: Client, seconds: float) -> None:
    """The client's timeout from now on: its transport's, and a restarted one's."""
    client.timeout = client._transport.timeout = seconds


def timeout_for(fault: str) -> float:
    """The client's timeout: short, but for a flood, whose many caps take a while to read."""
    return 20.0 if fault == "flood" else TIMEOUT


def settle(threads: int) -> None:
    deadline = time.monotonic() + 3
    while threading.active_count() > threads and time.monotonic() < deadline:
        time.sleep(0.01)


def run_call(call: Callable[[], Any], measure: bool, timeout: float = TIMEOUT) -> Outcome:
    """``call()`` on a thread of its own (a client that hangs must not hang
    the test), its memory traced."""
    outcome = Outcome()

    def target() -> None:
        started = time.monotonic()
        try:
            outcome.result = call()
        except BaseException as exc:  # noqa: BLE001 - the outcome under test
            outcome.error = exc
        outcome.seconds = time.monotonic() - started
        outcome.finished = True

    if measure:
        tracemalloc.start()
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(timeout + SLACK + 5)
    if measure:
        outcome.peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
    return outcome


class FakeHttp:
    """A Streamable HTTP server on a loopback socket that answers the
    handshake, tools/list and notifications as it should, and spoils each
    tools/call with ``fault``; it records what it was sent."""

    def __init__(self, fault: str, rng: random.Random, era: str, status: Optional[int] = None) -> None:
        self.fault, self.rng, self.era, self.forced = fault, rng, era, status
        self.multiline: Optional[bool] = None  # oversize_event: data lines of 1 KiB, or one line
        self.size = rng.choice((CAP + 1, 3 * CAP, 4 * 1024 * 1024, 12 * 1024 * 1024))
        self.bodies: List[bytes] = []  # of each POST that carries a request
        self.cancelled: List[Any] = []
        self.calls = 0
        self.stop = threading.Event()
        self.stream_closed = threading.Event()  # a stream the server kept open, closed by the client
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.elsewhere = socket.create_server(("127.0.0.1", 0))  # another origin, for the redirect
        self.elsewhere_heard: List[bytes] = []
        self.conns: List[socket.socket] = []
        for listener, serve in ((self.listener, self.serve), (self.elsewhere, self.record)):
            threading.Thread(target=self.accept, args=(listener, serve), daemon=True).start()

    def close(self) -> None:
        self.stop.set()
        for sock in [self.listener, self.elsewhere] + self.conns:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def accept(self, listener: socket.socket, serve: Callable[[socket.socket], None]) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            self.conns.append(conn)
            threading.Thread(target=self.guarded, args=(serve, conn), daemon=True).start()

    def guarded(self, serve: Callable[[socket.socket], None], conn: socket.socket) -> None:
        try:
            serve(conn)
        except OSError:  # the client went
            pass
        finally:
            conn.close()

    def record(self, conn: socket.socket) -> None:
        self.elsewhere_heard.append(conn.recv(65536))
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

    def serve(self, conn: socket.socket) -> None:
        with conn.makefile("rb") as reader:
            self.exchange(conn, reader)

    def exchange(self, conn: socket.socket, reader: Any) -> None:
        while not self.stop.is_set():
            head = reader.readline()
            if not head:
                return
            headers: Dict[str, str] = {}
            for line in iter(reader.readline, b"\r\n"):
                if not line:
                    return
                name, _, value = line.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
            verb = head.split()[0]
            length = int(headers.get("content-length", "0"))
            if verb == b"GET" and self.fault in ("slow_get", "quiet_get"):
                self.get_stream(conn)
                return
            if verb != b"POST":
                conn.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                continue
            if self.fault == "status" and b'"tools/call"' in reader.peek(200)[:200] or length > 2 * CAP:
                self.status(conn, length)  # refused before its body is read, as a 413 is
                return
            body = reader.read(length)
            if not self.answer(conn, json.loads(body), body):
                return

    def answer(self, conn: socket.socket, message: Dict[str, Any], body: bytes) -> bool:
        """Answer one POST; False: the connection is done."""
        method, id_ = message.get("method"), message.get("id")
        if id_ is None:
            if method == "notifications/cancelled":
                self.cancelled.append(message["params"].get("requestId"))
            conn.sendall(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
            return True
        self.bodies.append(body)
        if method == "initialize":
            result: Dict[str, Any] = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                      "serverInfo": {"name": "fault", "version": "1"}}
        elif method == "server/discover":
            result = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": "fault", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            self.calls += 1
            return self.spoil(conn, id_)
        else:
            result = {}
        data = json.dumps({"jsonrpc": "2.0", "id": id_, "result": result}).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s1\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(data), data))
        if method == "tools/list" and self.fault == "idle_close":
            return False  # the kept-alive connection, closed while idle: the next request finds it so
        return True

    def get_stream(self, conn: socket.socket) -> None:
        """The GET stream: its head a byte at a time, or a stream that ends its
        connection (Connection: close) and says nothing."""
        if self.fault == "quiet_get":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
            self.stop.wait(30)
            return
        conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        while not self.stop.wait(0.1):
            conn.sendall(b"z")

    def status(self, conn: socket.socket, length: int) -> None:
        status, reason = self.rng.choice(((413, b"Payload Too Large"), (401, b"Unauthorized"),
                                          (404, b"Not Found")))
        if self.forced is not None:
            status, reason = self.forced, b"Payload Too Large"
        said = b"the request body is longer than 1024 bytes" if status == 413 else b"no such session"
        conn.sendall(b"HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n"
                     b'WWW-Authenticate: Bearer error="invalid_token"\r\n\r\n%s' % (status, reason, len(said), said))
        time.sleep(0.05)

    def spoil(self, conn: socket.socket, id_: Any) -> bool:
        fault, rng = self.fault, self.rng
        answer = json.dumps({"jsonrpc": "2.0", "id": id_, "result": ANSWER}).encode()
        sse = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        close_sse = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"

        def chunk(data: bytes) -> bytes:
            return b"%x\r\n%s\r\n" % (len(data), data)

        def event(data: bytes) -> bytes:
            return b"event: message\ndata: " + data + b"\n\n"

        if fault in ("json", "mutate", "idle_close"):
            if fault == "mutate":
                answer = mutate(answer, rng)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                         % (len(answer), answer))
            return True
        if fault in ("sse", "repeat", "reorder"):
            events = [event(json.dumps(note(n)).encode()) for n in range(3)] + [event(answer)]
            if fault == "repeat":
                events.append(event(answer))
            if fault == "reorder":
                events.insert(0, event(json.dumps({"jsonrpc": "2.0", "id": 10_000, "result": {}}).encode()))
            conn.sendall(sse + b"".join(chunk(e) for e in events) + b"0\r\n\r\n")
            return True
        if fault in ("keepalive", "notes", "spam"):  # (spam: notifications without a pause)
            conn.sendall(close_sse)
            n = 0
            while not self.stop.wait(0 if fault == "spam" else rng.choice((0.05, 0.1, 0.3))):
                try:
                    conn.sendall(b": keep-alive\n\n" if fault == "keepalive" else event(json.dumps(note(n)).encode()))
                except OSError:
                    self.stream_closed.set()
                    break
                n += 1
            return False
        if fault == "stall":
            self.stop.wait(TIMEOUT + SLACK + 5)
            return False
        if fault == "trickle":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                         % len(answer))
            for byte in answer:
                if self.stop.wait(0.1):
                    break
                conn.sendall(bytes([byte]))
            return False
        if fault == "slow_head":  # a header a byte at a time: the head never ends
            conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
            while not self.stop.wait(0.1):
                conn.sendall(b"z")
            return False
        if fault == "cut_chunk":
            conn.sendall(sse + b"%x\r\n" % (len(answer) + 100) + event(answer)[:rng.randrange(1, 30)])
            return False
        if fault == "bad_chunk":
            conn.sendall(sse + rng.choice((b"zz\r\n", b"-5\r\n", b"\r\n", b"1" * 200 + b"\r\n")) + event(answer))
            time.sleep(0.05)
            return False
        if fault == "cut_event":
            conn.sendall(close_sse + event(answer)[:rng.randrange(1, len(answer))])
            return False
        if fault == "close":
            return False  # no answer: the tool may have run; it must not run twice
        if fault == "oversize_event":
            multiline = rng.random() < 0.5
            self.oversize(conn, close_sse, multiline if self.multiline is None else self.multiline)
            return False
        if fault == "oversize_json":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                         % (self.size + 20))
            conn.sendall(b'{"jsonrpc": "2.0", "id": %d, "result": {"x": "' % id_)
            self.send_block(conn, self.size)
            return False
        if fault == "flood":  # notifications under the cap, many caps of them, then the answer
            conn.sendall(close_sse)
            text = json.dumps(dict(note(0), params={"level": "info", "data": "y" * (CAP // 2)})).encode()
            for _ in range(self.size // len(text) + 1):
                conn.sendall(event(text))
            conn.sendall(event(answer))
            return False
        if fault == "redirect":
            conn.sendall(b"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:%d/mcp\r\n"
                         b"Content-Length: 0\r\n\r\n" % self.elsewhere.getsockname()[1])
            return True
        raise AssertionError(fault)

    def oversize(self, conn: socket.socket, head: bytes, multiline: bool) -> None:
        conn.sendall(head + b'data: {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "')
        if multiline:  # data lines of 1 KiB: accumulated, they pass the cap
            line = b"x" * 1024 + b"\ndata: "
            for _ in range(self.size // len(line) + 1):
                conn.sendall(line)
        else:
            self.send_block(conn, self.size)

    def send_block(self, conn: socket.socket, size: int) -> None:
        for _ in range(size // len(BLOCK) + 1):
            if self.stop.is_set():
                return
            conn.sendall(BLOCK)


BLOCK = b"x" * 65536


def note(n: int) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": n}}


def mutate(data: bytes, rng: random.Random) -> bytes:
    """The answer changed as a careless or hostile server might."""
    message = json.loads(data)
    how = rng.randrange(6)
    if how == 0:
        message["id"] = str(message["id"])
    elif how == 1:
        message["id"] = message["id"] + 1
    elif how == 2:
        del message["result"]
    elif how == 3:
        message["result"] = [1]
    elif how == 4:
        message["error"] = {"code": "x"}
    else:
        spot = rng.randrange(len(data))
        return data[:spot] + bytes([data[spot] ^ 0x5A]) + data[spot + 1:]
    return json.dumps(message).encode()


class ClientFaultTest(unittest.TestCase):
    """Seeded faults, each checked against every promise of the client."""

    def test_seeded_faults(self) -> None:
        failures: List[str] = []
        threads = threading.active_count()
        for seed in range(SEEDS):
            settle(threads)  # the last seed's threads gone: they would count in this one's memory
            rng = random.Random(seed)
            transport = "http" if seed % 2 else "stdio"
            faults = HTTP_FAULTS if transport == "http" else STDIO_FAULTS
            fault = faults[(seed // 2) % len(faults)]
            era = rng.choice(("2025-11-25", "2026-07-28"))
            run = self.http_seed if transport == "http" else self.stdio_seed
            broken = run(fault, rng, era)
            failures += [f"seed {seed} ({transport}, {fault}, {era}): {why}" for why in broken]
        self.assertEqual(failures, [])

    def promises(self, fault: str, outcome: Outcome, sent: List[Any], cancelled: List[Any],
                 target: Optional[int], stdio: bool) -> List[str]:
        broken, timeout = [], timeout_for(fault)
        if not outcome.finished:
            return [f"the call did not end within {timeout + SLACK + 5} s"]
        if outcome.seconds > timeout + SLACK:
            broken.append(f"the call took {outcome.seconds:.2f} s (timeout {timeout} s)")
        if outcome.error is not None and not isinstance(outcome.error, DOCUMENTED):
            broken.append(f"raised {outcome.error!r}, not a documented exception")
        succeed = fault in SUCCEED and not (stdio and fault in STDIO_FAIL_TO_SUCCEED)
        if succeed and outcome.result != ANSWER and not (isinstance(outcome.result, dict) and
                                                         outcome.result.get("content") == ANSWER["content"]):
            broken.append(f"expected the answer, got {outcome.result!r} / {outcome.error!r}")
        if fault != "mutate" and outcome.result is not None and outcome.result.get("content") != ANSWER["content"]:
            broken.append(f"a wrong answer: {outcome.result!r}")
        if outcome.peak > MEMORY:
            broken.append(f"peak memory {outcome.peak / 2**20:.1f} MiB (cap {CAP / 2**20:.2f} MiB)")
        repeated = [item for item in set(map(str, sent)) if list(map(str, sent)).count(item) > 1]
        if repeated:
            broken.append(f"sent twice: {repeated[0][:200]}")
        if fault in TIMED_OUT and cancelled != [target]:
            broken.append(f"cancelled {cancelled}, not once the call (id {target})")
        return broken

    # -- stdio ------------------------------------------------------------------------

    def stdio_seed(self, fault: str, rng: random.Random, era: str) -> List[str]:
        size = rng.choice((CAP + 1, 3 * CAP, 4 * 1024 * 1024, 12 * 1024 * 1024))
        delay = TIMEOUT + 0.3 if fault == "late" else rng.choice((0.05, 0.1, 0.3))
        if fault in ("notes", "spam"):  # for a while past the timeout (then the next request is answered)
            delay, size = 0.1 if fault == "notes" else 0.0, int((TIMEOUT + 0.3) * 1000)
        handle, log = tempfile.mkstemp(prefix="client-fault-")
        os.close(handle)
        self.addCleanup(os.unlink, log)
        client = Client([sys.executable, "-I", "-S", STDIO_SERVER, fault, str(size), str(delay), log],
                        protocol_version=era, timeout=HANDSHAKE, max_message_bytes=CAP)
        try:
            client.initialize()
            client.list_tools()
            shorten(client, timeout_for(fault))
            arguments = {"x": "z" * size} if fault == "deaf" else {}  # more than a pipe holds
            outcome = run_call(lambda: client.call_tool("t", arguments), fault != "deaf", timeout_for(fault))
            follow = self.follow_up(client, fault) if fault not in ("cut", "repeat", "deaf") else []
        finally:
            client.close()
        with open(log, "rb") as sent_file:
            messages = [json.loads(line) for line in sent_file]
        requests = [m for m in messages if "id" in m and "method" in m]
        target = next((m["id"] for m in requests if m["method"] == "tools/call"), None)
        cancelled = [m["params"]["requestId"] for m in messages if m.get("method") == "notifications/cancelled"]
        if fault in ("notes", "spam", "deaf") and outcome.error is None:
            return ["a call that was never answered returned"]
        return self.promises(fault, outcome, [(m["id"]) for m in requests], cancelled, target, True) + follow

    def follow_up(self, client: Client, fault: str) -> List[str]:
        """The session still works: a call given up on is forgotten, its late answer dropped."""
        if fault == "late":
            time.sleep(0.5)  # the late answer is on its way
        try:
            if client.list_tools()["tools"][0]["name"] != "t":
                return ["the next request got another answer"]
        except Exception as exc:  # noqa: BLE001 - reported
            return [f"the next request failed: {exc!r}"]
        return []

    # -- HTTP -------------------------------------------------------------------------

    def http_seed(self, fault: str, rng: random.Random, era: str) -> List[str]:
        server = FakeHttp(fault, rng, era)
        url = f"http://127.0.0.1:{server.port}/mcp"
        big = fault == "status" and rng.random() < 0.5  # a body the server will not read: sending fails
        arguments = {"x": "z" * 8_000_000} if big else {}
        client = Client(url, protocol_version=era, timeout=HANDSHAKE, max_message_bytes=CAP,
                        headers={"Authorization": SECRET})
        try:
            client.initialize()
            client.list_tools()
            shorten(client, timeout_for(fault))
            if fault == "idle_close":
                time.sleep(0.1)  # the server closes the kept-alive connection meanwhile
            outcome = run_call(lambda: client.call_tool("t", arguments), not big, timeout_for(fault))
            follow = self.follow_up(client, "http")
        finally:
            server.close()
            client.close()
        calls = [b for b in server.bodies if b'"tools/call"' in b]
        target = json.loads(calls[0])["id"] if calls else None
        broken = self.promises(fault, outcome, [b for b in server.bodies], server.cancelled, target, False)
        if fault in TIMED_OUT and era == "2026-07-28" and server.cancelled:
            broken.append("notifications/cancelled in 2026-07-28 (closing the stream cancels)")
        if fault in TIMED_OUT and era == "2026-07-28":
            broken = [b for b in broken if not b.startswith("cancelled ")]
        if fault == "status" and outcome.error is not None and not any(
                words in str(outcome.error) for words in ("longer than 1024", "no such session", "invalid_token")):
            broken.append(f"the server's reason is lost: {outcome.error}")
        if any(SECRET.encode() in heard for heard in server.elsewhere_heard):
            broken.append("the Authorization header went to another origin")
        return broken + follow


class PromisesTest(unittest.TestCase):
    """One test per promise, on one fault each (the seeded test tries them all)."""

    def test_a_stream_of_keep_alives_cannot_hold_a_call(self) -> None:
        # Given up on: 2025-11-25 closes the stream and sends notifications/cancelled (a
        # disconnection is no cancellation); 2026-07-28 closes it, which is the cancellation
        # ("No notifications/cancelled message is required or expected").
        for era, cancelled in (("2025-11-25", [3]), ("2026-07-28", [])):
            server = FakeHttp("keepalive", random.Random(1), era)
            self.addCleanup(server.close)
            with self.subTest(era), Client(f"http://127.0.0.1:{server.port}/mcp", protocol_version=era,
                                           timeout=TIMEOUT) as client:
                outcome = run_call(lambda: client.call_tool("t"), measure=False)
                self.assertTrue(outcome.finished)
                self.assertIsInstance(outcome.error, ConnectionError)
                self.assertEqual(str(outcome.error), f"the server did not answer tools/call within {TIMEOUT:g} s")
                self.assertLess(outcome.seconds, TIMEOUT + SLACK)
                self.assertTrue(server.stream_closed.wait(2))  # the client closed the call's stream
                self.assertEqual(server.cancelled, cancelled)  # (discover or initialize 1, tools/list 2, the call 3)

    def test_a_late_stdio_answer_is_dropped(self) -> None:
        handle, log = tempfile.mkstemp(prefix="client-fault-")
        os.close(handle)
        self.addCleanup(os.unlink, log)
        for era in ("2025-11-25", "2026-07-28"):  # stdio: notifications/cancelled in both
            with self.subTest(era), Client([sys.executable, STDIO_SERVER, "late", "0", str(TIMEOUT + 0.3), log],
                                           protocol_version=era, timeout=TIMEOUT) as client:
                with self.assertRaises(ConnectionError):
                    client.call_tool("t")
                time.sleep(0.5)
                self.assertEqual(client.list_tools()["tools"][0]["name"], "t")  # the late answer dropped
            with open(log, "rb") as sent:
                cancel = [json.loads(line) for line in sent][-2]
            self.assertEqual(cancel, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
                "requestId": 3, "reason": f"the server did not answer tools/call within {TIMEOUT:g} s"}})
            os.truncate(log, 0)

    def test_what_is_cancelled_on_timeout(self) -> None:
        # basic/utilities/cancellation: initialize MUST NOT be cancelled; a
        # task-augmented request is cancelled with tasks/cancel, not the notification.
        sent: List[Any] = []
        silent = [sys.executable, "-c", "import sys\nfor line in sys.stdin: pass"]
        transport = mcp_ref._StdioClient(silent, lambda arrow, message: sent.append(message), 0.2)
        self.addCleanup(transport.close)
        for method, params in (("initialize", {}), ("tools/call", {"name": "t", "task": {}}),
                               ("tools/call", {"name": "t"})):
            with self.assertRaises(mcp_ref._ServerFailed):
                transport.request(method, params)
        self.assertEqual([m for m in sent if "id" not in m], [{"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": 3, "reason": "the server did not answer tools/call within 0.2 s"}}])
        server = FakeHttp("stall", random.Random(1), "2025-11-25")
        self.addCleanup(server.close)
        with Client(f"http://127.0.0.1:{server.port}/mcp", protocol_version="2025-11-25", timeout=0.2) as client:
            for arguments in ({"task": {}}, {}):
                with self.assertRaises(ConnectionError):
                    client._request("tools/call", dict(arguments, name="t"))
        self.assertEqual(server.cancelled, [3])  # initialize 1, the task 2

    def test_the_deadline_holds_while_notifications_keep_coming(self) -> None:
        # Lines read ahead faster than they are handled: the deadline is
        # checked before each one, not only when none is waiting.
        silent = [sys.executable, "-c", "import sys\nfor line in sys.stdin: pass"]
        transport = mcp_ref._StdioClient(silent, None, 0.3, limit=2**30)
        self.addCleanup(transport.close)
        note = json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {}}).encode() + b"\n"
        for _ in range(10_000):
            transport.lines.put(note)
        transport.handler = lambda message: time.sleep(0.001)
        started = time.monotonic()
        with self.assertRaises(mcp_ref._ServerFailed):
            transport.request("ping", {})
        self.assertLess(time.monotonic() - started, 1.5)

    def test_a_call_the_server_dropped_is_not_sent_again(self) -> None:
        server = FakeHttp("close", random.Random(1), "2026-07-28")
        self.addCleanup(server.close)
        with Client(f"http://127.0.0.1:{server.port}/mcp", protocol_version="2026-07-28", timeout=5) as client:
            with self.assertRaises(ConnectionError) as caught:
                client.call_tool("t")
        self.assertEqual(server.calls, 1)
        self.assertIn("closed the connection while sending tools/call without answering", str(caught.exception))

    def test_a_stream_cut_mid_chunk_is_a_connection_error(self) -> None:
        for fault in ("cut_chunk", "bad_chunk"):
            server = FakeHttp(fault, random.Random(1), "2026-07-28")
            self.addCleanup(server.close)
            with self.subTest(fault), Client(f"http://127.0.0.1:{server.port}/mcp", protocol_version="2026-07-28",
                                             timeout=5) as client:
                with self.assertRaises(ConnectionError) as caught:
                    client.call_tool("t")
                self.assertIn("cut its answer short (IncompleteRead)", str(caught.exception))

    def test_a_413_says_so(self) -> None:
        server = FakeHttp("status", random.Random(0), "2026-07-28", status=413)
        self.addCleanup(server.close)
        with Client(f"http://127.0.0.1:{server.port}/mcp", protocol_version="2026-07-28", timeout=5) as client:
            with self.assertRaises(MCPError) as caught:  # (sending fails: the server stopped reading)
                client.call_tool("t", {"x": "z" * 20_000_000})
        self.assertEqual(caught.exception.message, "HTTP 413 Payload Too Large: the request body is longer than "
                                                   "1024 bytes (JSON-RPC error without a code)")

    def test_memory_stays_within_about_twice_the_cap(self) -> None:
        # 12 MiB past a cap of 256 KiB: one stdio line, one SSE event (one data
        # line, or many), one JSON body; each refused, none held whole.
        handle, log = tempfile.mkstemp(prefix="client-fault-")
        os.close(handle)
        self.addCleanup(os.unlink, log)
        size = 12 * 1024 * 1024
        cases: List[Tuple[str, Callable[[], Client]]] = [("stdio", lambda: Client(
            [sys.executable, STDIO_SERVER, "oversize", str(size), "0", log], protocol_version="2025-11-25",
            timeout=10, max_message_bytes=CAP))]
        for fault, multiline in (("oversize_event", False), ("oversize_event", True), ("oversize_json", None)):
            server = FakeHttp(fault, random.Random(1), "2026-07-28")
            server.size, server.multiline = size, multiline
            self.addCleanup(server.close)
            cases.append((fault, lambda port=server.port: Client(  # type: ignore[misc]
                f"http://127.0.0.1:{port}/mcp", protocol_version="2026-07-28", timeout=10, max_message_bytes=CAP)))
        for name, make in cases:
            with self.subTest(name), make() as client:
                client.list_tools()
                outcome = run_call(lambda: client.call_tool("t"), measure=True)
                self.assertIsInstance(outcome.error, ConnectionError)
                self.assertIn(f"longer than {CAP} bytes (the client's max_message_bytes)", str(outcome.error))
                self.assertLess(outcome.peak, MEMORY)

    def test_the_deadline_leaves_out_the_callbacks_and_the_auth_flow(self) -> None:
        # A person at a browser (the auth object's unauthorized) or at the
        # terminal (a callback) takes longer than the timeout: not the server's time.
        from tests.core.test_http import InProcess

        class Slow:
            token = "old"

            def headers(self, url: str) -> Dict[str, str]:
                return {"Authorization": f"Bearer {self.token}"}

            def unauthorized(self, url: str, status: int, www_authenticate: str) -> bool:
                time.sleep(0.8)
                self.token = "good"
                return True

        token = type("Token", (), {"scopes": ["mcp"], "expires_at": None, "client_id": "u",
                                   "resource": "http://127.0.0.1/mcp"})()
        settings = type("Settings", (), {"required_scopes": ["mcp"], "resource_server_url": "http://127.0.0.1/mcp",
                                         "issuer_url": "https://auth.example.com"})()
        verifier = type("Verifier", (), {"verify_token": staticmethod({"good": token}.get)})()
        server = mcp_ref.MCPServer("auth", token_verifier=verifier, auth=settings)

        @server.tool()
        async def ask(ctx: mcp_ref.Context) -> str:
            answer = await ctx.elicit("Name?", schema={"type": "object", "properties": {"n": {"type": "string"}}})
            return str(answer.action)

        endpoint = InProcess(server)
        self.addCleanup(endpoint.stop)

        def slowly(params: Dict[str, Any]) -> Dict[str, Any]:
            time.sleep(0.8)
            return {"action": "accept", "content": {"n": "x"}}

        with Client(f"http://127.0.0.1:{endpoint.port}/mcp", protocol_version="2025-11-25", auth=Slow(),
                    timeout=0.5, elicitation_callback=slowly) as client:
            self.assertEqual(client.call_tool("ask")["content"][0]["text"], "accept")

    def test_the_get_stream_cannot_hold_initialize_or_close(self) -> None:
        # 2025-11-25 opens the GET stream before initialize() returns: its head
        # dripping, or a stream that ends its connection and stays quiet.
        for fault in ("slow_get", "quiet_get"):
            server = FakeHttp(fault, random.Random(1), "2025-11-25")
            self.addCleanup(server.close)
            client = Client(f"http://127.0.0.1:{server.port}/mcp", protocol_version="2025-11-25", timeout=TIMEOUT)
            outcome = run_call(client.initialize, measure=False)
            self.assertTrue(outcome.finished and outcome.error is None, (fault, outcome.error))
            self.assertLess(outcome.seconds, TIMEOUT + SLACK)
            self.assertEqual(client.list_tools()["tools"][0]["name"], "t")
            client.close()
            readers = [t for t in threading.enumerate() if t.name == "mcp_ref client GET stream"]
            for reader in readers:
                reader.join(2)
            self.assertFalse(any(reader.is_alive() for reader in readers), fault)  # close() ended it

    def test_the_default_cap_is_the_servers(self) -> None:
        self.assertEqual(Client("x").max_message_bytes, mcp_ref.MCPServer("x").max_message_bytes)

    def test_pagination_stops_after_the_page_limit(self) -> None:
        class Endless(Client):
            def _request(self, method: str, params: Dict[str, Any], headers: Any = None) -> Dict[str, Any]:
                self.asked = getattr(self, "asked", 0) + 1
                if self.asked > 5000:
                    raise AssertionError("it lists forever")
                return {"tools": [], "nextCursor": f"c{self.asked}"}

        for call in (lambda client: client.list_tools(all_pages=True), lambda client: client.call_tool("t")):
            client = Endless("x")
            client._transport = object()
            with self.assertRaises(ConnectionError) as caught:
                call(client)
            self.assertEqual(str(caught.exception), "tools/list: the server still had more after 1000 pages")
            self.assertEqual(client.asked, 1000)


if __name__ == "__main__":
    unittest.main()

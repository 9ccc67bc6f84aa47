"""Section 19: the SSE streams of Streamable HTTP.

Resumable streams (event ids, the priming event, retry, replay after
Last-Event-ID, the EventStore hook), each era's rule for a client that goes
away, the bound on what waits for a client that does not read, and list
changes announced to every session's GET stream and every listen stream, once.
"""

from tests import _testing  # noqa: F401  (first: it puts the module under test on sys.path)
import asyncio
import http.client
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import unittest.mock
from typing import Any, Dict, List, Optional, Tuple

import mcp_ref

from tests._testing import HERE, http_script, needs_layers, python_command
from tests.core.test_http import ACCEPT, InProcess, META, MODERN, ServerProcess


HANDSHAKE = "2025-11-25"

GUNICORN = os.path.join(os.path.dirname(sys.executable), "gunicorn")  # the venv's, else the PATH's

GUNICORN = GUNICORN if os.path.exists(GUNICORN) else shutil.which("gunicorn") or ""


def read_event(stream: Any) -> Tuple[Optional[str], Optional[Any]]:
    """The next SSE event of a response: (its id, its JSON message; None for the priming event's empty data)."""
    event_id, data = None, None
    for _ in range(20):
        line = stream.readline()
        if line == b"":
            raise EOFError("the stream ended")
        if line == b"\n":
            if event_id is not None or data is not None:
                return event_id, (json.loads(data) if data else None)
            continue
        if line.startswith(b"id: "):
            event_id = line[4:].decode().strip()
        elif line.startswith(b"data: "):
            data = line[6:].strip()
    raise AssertionError("no event")


def post(port: int, message: Dict[str, Any], headers: Dict[str, str]) -> Tuple[http.client.HTTPConnection, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", "/mcp", body=json.dumps(message), headers=dict(
        {"Content-Type": "application/json", "Accept": ACCEPT}, **headers))
    return conn, conn.getresponse()


def get(port: int, headers: Dict[str, str]) -> Tuple[http.client.HTTPConnection, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/mcp", headers=dict({"Accept": "text/event-stream"}, **headers))
    return conn, conn.getresponse()


def call(id_: Any, name: str) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": name, "arguments": {}}}


def in_session(session: str) -> Dict[str, str]:
    return {"Mcp-Session-Id": session, "MCP-Protocol-Version": HANDSHAKE}


def modern_headers(method: str, name: Optional[str] = None) -> Dict[str, str]:
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


def modern_call(id_: Any, name: str) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": name, "arguments": {},
                                                                          "_meta": META}}


class AsyncStore:
    """An event store written against the SDK's EventStore (async methods), kept in an EventStore."""

    def __init__(self) -> None:
        self.inner = mcp_ref.EventStore()
        self.stored = 0

    async def store_event(self, stream_id: str, message: Optional[bytes]) -> str:
        self.stored += 1
        return "a" + self.inner.store_event(stream_id, message)

    async def replay_events_after(self, last_event_id: str, send_callback: Any) -> Optional[str]:
        found: List[Any] = []
        stream_id = self.inner.replay_events_after(last_event_id[1:], found.append)
        for event in found:
            await send_callback(mcp_ref.EventMessage(event.message, "a" + str(event.event_id)))
        return stream_id


class ResumeTest(unittest.TestCase):
    def server(self, go: threading.Event) -> mcp_ref.MCPServer:
        server = mcp_ref.MCPServer("resume")

        @server.tool()
        async def slow(ctx: mcp_ref.Context) -> str:
            await ctx.info("one")
            while not go.is_set():
                await asyncio.sleep(0.02)
            await ctx.info("two")
            return "done"

        return server

    def test_a_cut_stream_resumes_with_last_event_id(self) -> None:
        for store in (None, AsyncStore()):
            with self.subTest(store=type(store).__name__):
                go = threading.Event()
                endpoint = InProcess(self.server(go), event_store=store)
                self.addCleanup(endpoint.stop)
                session = endpoint.initialize()
                conn, stream = post(endpoint.port, call(1, "slow"), in_session(session))
                self.assertEqual(stream.getheader("Content-Type"), "text/event-stream")
                # The priming event first: an id, empty data, and when to come back (2025-11-25 basic/transports).
                head = b"".join(stream.readline() for _ in range(4))
                self.assertRegex(head, rb"\Aid: a?\d+\nretry: 1000\ndata: \n\n\Z")
                one_id, one = read_event(stream)
                self.assertEqual(one, {"jsonrpc": "2.0", "method": "notifications/message",
                                       "params": {"level": "info", "data": "one"}})
                conn.close()  # the connection drops mid-call; the call goes on (not a cancellation)
                go.set()
                again, resumed = get(endpoint.port, dict(in_session(session), **{"Last-Event-ID": str(one_id)}))
                self.assertEqual(resumed.status, 200)
                events = [read_event(resumed), read_event(resumed)]
                self.assertEqual([message for _, message in events], [
                    {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "two"}},
                    {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "done"}],
                                                           "structuredContent": {"result": "done"},
                                                           "isError": False}}])
                self.assertTrue(all(event_id for event_id, _ in events))
                self.assertEqual(resumed.read(), b"")  # the response was the end of that stream
                again.close()
                if store is not None:
                    self.assertGreater(store.stored, 3)

    def test_never_another_sessions_events(self) -> None:
        go = threading.Event()
        go.set()
        endpoint = InProcess(self.server(go))
        self.addCleanup(endpoint.stop)
        first, second = endpoint.initialize(), endpoint.initialize()
        conn, stream = post(endpoint.port, call(1, "slow"), in_session(first))
        stream.read()
        conn.close()
        # Event id 1 is some event of the first session: the second gets its own GET stream, not a replay.
        other, resumed = get(endpoint.port, dict(in_session(second), **{"Last-Event-ID": "1"}))
        self.assertEqual(resumed.status, 200)
        event_id, message = read_event(resumed)
        self.assertIsNone(message)  # the priming event of its own GET stream
        endpoint.app.sessions[second].write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        self.assertEqual(read_event(resumed)[1], {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        other.close()

    def test_the_server_closes_a_stream_for_polling(self) -> None:
        server = mcp_ref.MCPServer("polling")

        @server.tool()
        async def poll(ctx: mcp_ref.Context) -> str:
            await ctx.close_standalone_sse_stream()
            await ctx.close_sse_stream()  # SEP-1699: the client comes back for the rest
            await asyncio.sleep(0.2)
            return "polled"

        endpoint = InProcess(server)
        self.addCleanup(endpoint.stop)
        session = endpoint.initialize()
        standalone, get_stream = get(endpoint.port, in_session(session))
        self.addCleanup(standalone.close)
        self.assertIsNone(read_event(get_stream)[1])
        conn, stream = post(endpoint.port, call(1, "poll"), in_session(session))
        primer, message = read_event(stream)
        self.assertIsNone(message)
        self.assertEqual(stream.read(), b"")  # closed by the server, the call running on
        conn.close()
        self.assertEqual(get_stream.read(), b"")  # the GET stream too
        again, resumed = get(endpoint.port, dict(in_session(session), **{"Last-Event-ID": str(primer)}))
        self.assertEqual(read_event(resumed)[1]["result"]["content"], [{"type": "text", "text": "polled"}])
        again.close()

    def test_a_failing_store_costs_resumption_only(self) -> None:
        class Broken:
            def store_event(self, stream_id: str, message: Optional[bytes]) -> str:
                raise OSError("the store is down")

            def replay_events_after(self, last_event_id: str, send_callback: Any) -> Optional[str]:
                raise OSError("the store is down")

        go = threading.Event()
        go.set()
        endpoint = InProcess(self.server(go), event_store=Broken())
        self.addCleanup(endpoint.stop)
        session = endpoint.initialize()
        with unittest.mock.patch("sys.stderr", io.StringIO()) as err:
            conn, stream = post(endpoint.port, call(1, "slow"), in_session(session))
            events = stream.read().decode()
            conn.close()
        self.assertNotIn("id:", events)
        self.assertIn('"result"', events)
        self.assertIn("mcp_ref: the event store failed:", err.getvalue())

    def test_a_subclass_with_its_own_storage_ends_sessions(self) -> None:
        """A store written as the SDK's users write one: a subclass with its own
        __init__ that never runs EventStore's.  Ending a session must not reach
        for the base class's storage (it once raised AttributeError on DELETE)."""
        class Own(mcp_ref.EventStore):
            def __init__(self) -> None:  # no super().__init__(): its own storage
                self.events: List[Tuple[str, Optional[bytes]]] = []

            def store_event(self, stream_id: str, message: Optional[bytes]) -> str:
                self.events.append((stream_id, message))
                return str(len(self.events))

            def replay_events_after(self, last_event_id: str, send_callback: Any) -> Optional[str]:
                return None

        go = threading.Event()
        go.set()
        store = Own()
        endpoint = InProcess(self.server(go), event_store=store)
        self.addCleanup(endpoint.stop)
        session = endpoint.initialize()
        conn, stream = post(endpoint.port, call(1, "slow"), in_session(session))
        self.assertIn('"result"', stream.read().decode())
        conn.close()
        with unittest.mock.patch("sys.stderr", io.StringIO()) as err:
            conn = http.client.HTTPConnection("127.0.0.1", endpoint.port, timeout=30)
            conn.request("DELETE", "/mcp", headers=in_session(session))
            self.assertEqual(conn.getresponse().status, 200)
            conn.close()
        self.assertEqual(err.getvalue(), "")
        self.assertTrue(store.events)

    def test_the_store_is_bounded(self) -> None:
        store = mcp_ref.EventStore(max_bytes=10_000)
        ids = [store.store_event("s/1", b"x" * 100) for _ in range(1000)]
        self.assertLess(sum(len(m or b"") + 64 for _, m in store._events.values()), 10_000)
        found: List[Any] = []
        self.assertIsNone(store.replay_events_after(ids[0], found.append))  # gone: evicted long ago
        self.assertEqual(store.replay_events_after(ids[-3], found.append), "s/1")
        self.assertEqual([(e.message, e.event_id) for e in found], [(b"x" * 100, ids[-2]), (b"x" * 100, ids[-1])])
        store.forget("s/")
        self.assertEqual((store._events, store._streams, store._size), ({}, {}, 0))


class DisconnectTest(unittest.TestCase):
    """basic/transports (2025-11-25): a disconnection "SHOULD NOT be interpreted
    as the client cancelling its request"; 2026-07-28 streamable-http,
    "Cancellation": closing the stream "MUST be treated as cancellation"."""

    def test_each_eras_rule(self) -> None:
        seen: List[str] = []
        go = threading.Event()
        server = mcp_ref.MCPServer("gone")

        @server.tool()
        async def quiet(ctx: mcp_ref.Context) -> str:
            try:
                while not go.is_set():
                    await asyncio.sleep(0.02)
            except asyncio.CancelledError:
                seen.append("cancelled")
                raise
            seen.append("finished")
            return "done"

        endpoint = InProcess(server)
        self.addCleanup(endpoint.stop)
        session = endpoint.initialize()
        for era, message, headers, expected in (
                ("handshake", call(1, "quiet"), in_session(session), "finished"),
                ("2026-07-28", modern_call(2, "quiet"), modern_headers("tools/call", "quiet"), "cancelled")):
            with self.subTest(era=era):
                seen.clear()
                go.clear()
                sock = socket.create_connection(("127.0.0.1", endpoint.port), timeout=10)
                body = json.dumps(message).encode()
                lines = ["POST /mcp HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json",
                         f"Accept: {ACCEPT}", f"Content-Length: {len(body)}"]
                lines += [f"{k}: {v}" for k, v in headers.items()]
                sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
                time.sleep(0.3)
                sock.close()  # before any answer, JSON or stream
                deadline = time.monotonic() + 10
                while not seen and time.monotonic() < deadline:
                    if expected == "finished" and time.monotonic() > deadline - 8.5:  # time enough to notice
                        go.set()  # (2026-07-28: the cancellation comes without it)
                    time.sleep(0.05)
                go.set()
                self.assertEqual(seen, [expected])


    def test_no_handshake_configuration_takes_a_disconnection_for_a_cancellation(self) -> None:
        # Every way a handshake-era call is answered: in a session (SSE, or
        # JSON with json_response) or with stateless_http; a 2025-06-18 session
        # (no priming event) or a 2025-11-25 one; an async tool and a
        # synchronous one on the pool.  Each client leaves before any answer.
        go = threading.Event()
        seen: Dict[str, str] = {}
        server = mcp_ref.MCPServer("gone")

        @server.tool()
        async def quiet(key: str, ctx: mcp_ref.Context) -> str:
            try:
                while not go.is_set():
                    await asyncio.sleep(0.02)
            except asyncio.CancelledError:
                seen[key] = "cancelled"
                raise
            seen[key] = "finished"
            return "done"

        @server.tool()
        def quiet_sync(key: str, ctx: mcp_ref.Context) -> str:
            while not go.is_set():
                if ctx.cancelled:
                    seen[key] = "cancelled"
                    return "cancelled"
                time.sleep(0.02)
            seen[key] = "finished"
            return "done"

        socks = []
        for mode, options in (("session", {}), ("json", {"json_response": True}),
                              ("stateless", {"stateless_http": True})):
            endpoint = InProcess(server, **options)
            self.addCleanup(endpoint.stop)
            for version in ("2025-06-18", HANDSHAKE):
                headers = {"MCP-Protocol-Version": version}
                if mode != "stateless":
                    headers["Mcp-Session-Id"] = endpoint.initialize(version)
                for tool in ("quiet", "quiet_sync"):
                    key = f"{mode} {version} {tool}"
                    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                               "params": {"name": tool, "arguments": {"key": key}}}
                    body = json.dumps(message).encode()
                    lines = ["POST /mcp HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json",
                             f"Accept: {ACCEPT}", f"Content-Length: {len(body)}"]
                    lines += [f"{k}: {v}" for k, v in headers.items()]
                    sock = socket.create_connection(("127.0.0.1", endpoint.port), timeout=10)
                    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
                    socks.append((key, sock))
        time.sleep(0.3)
        for _, sock in socks:
            sock.close()  # before any answer, JSON or stream
        time.sleep(1.0)  # the server looks every _POLL (0.25 s): it has seen them go
        go.set()
        deadline = time.monotonic() + 10
        while len(seen) < len(socks) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(seen, {key: "finished" for key, _ in socks})


    def test_a_client_that_only_half_closes_still_gets_its_answer(self) -> None:
        # The end of a client's input is all a server sees of a disconnection,
        # and a client that shut down its sending side (shutdown(SHUT_WR), after
        # the request) has not left: before 2026-07-28 it gets its answer, not an
        # error, and the call is not cut short.
        server = mcp_ref.MCPServer("half")

        @server.tool()
        async def slow(ctx: mcp_ref.Context) -> str:
            await asyncio.sleep(0.8)
            return "done"

        for mode, options in (("session", {}), ("stateless", {"stateless_http": True})):
            with self.subTest(mode=mode):
                endpoint = InProcess(server, **options)
                self.addCleanup(endpoint.stop)
                headers = in_session(endpoint.initialize()) if mode == "session" else {
                    "MCP-Protocol-Version": HANDSHAKE}
                body = json.dumps(call(1, "slow")).encode()
                lines = ["POST /mcp HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json",
                         f"Accept: {ACCEPT}", f"Content-Length: {len(body)}", "Connection: close"]
                lines += [f"{k}: {v}" for k, v in headers.items()]
                with socket.create_connection(("127.0.0.1", endpoint.port), timeout=10) as sock:
                    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
                    sock.shutdown(socket.SHUT_WR)
                    data = b""
                    for piece in iter(lambda: sock.recv(65536), b""):
                        data += piece
                head, _, answer = data.partition(b"\r\n\r\n")
                self.assertTrue(head.startswith(b"HTTP/1.1 200 "), head)
                self.assertEqual(json.loads(answer)["result"]["content"], [{"type": "text", "text": "done"}])


class BoundTest(unittest.TestCase):
    """A client that never reads: what waits for it is bounded (max_stream_buffer)."""

    def app(self) -> Tuple[Any, threading.Event, List[int]]:
        finished = threading.Event()
        sent: List[int] = []
        server = mcp_ref.MCPServer("flood")

        @server.tool()
        def flood(ctx: mcp_ref.Context) -> str:
            for n in range(200):
                if ctx.cancelled:
                    break
                ctx.info("x" * 16_000)
                sent.append(n)
            finished.set()
            return "flooded"

        return server.streamable_http_app(max_stream_buffer=64 * 1024), finished, sent

    def wsgi(self, app: Any, method: str, message: Any, headers: Dict[str, str]) -> Tuple[str, Dict[str, str], Any]:
        body = b"" if message is None else json.dumps(message).encode()
        environ = {"REQUEST_METHOD": method, "PATH_INFO": "/mcp", "HTTP_HOST": "127.0.0.1",
                   "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)), "HTTP_ACCEPT": ACCEPT,
                   "wsgi.input": io.BytesIO(body)}
        environ.update({"HTTP_" + k.upper().replace("-", "_"): v for k, v in headers.items()})
        started: List[Any] = []
        out = app(environ, lambda status, response_headers: started.extend([status, dict(response_headers)]))
        return started[0], started[1], out

    def test_handshake_era_closes_the_stream_and_keeps_the_rest_for_resuming(self) -> None:
        app, finished, sent = self.app()
        self.addCleanup(app.close)
        _, headers, _ = self.wsgi(app, "POST", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}, {})
        session = headers["Mcp-Session-Id"]
        status, headers, body = self.wsgi(app, "POST", call(1, "flood"), in_session(session))
        self.assertEqual(headers["Content-Type"], "text/event-stream")
        self.assertTrue(finished.wait(30))  # nobody read a byte meanwhile
        text = b"".join(body)
        self.assertRegex(text, rb"\Aid: \d+\nretry: 1000\ndata: \n\n")  # the priming event
        events = re.findall(rb"data: (.+)\n\n", text)
        self.assertLess(len(events), 8)  # 64 KiB of 16 kB messages at most: then the stream ended
        self.assertEqual(len(sent), 200)  # the call was not cancelled
        last = re.findall(rb"id: (\d+)\n", text)[-1].decode()
        _, _, replay = self.wsgi(app, "GET", None, dict(in_session(session), **{"Last-Event-ID": last}))
        rest = [json.loads(data) for data in re.findall(rb"data: (.+)\n\n", b"".join(replay))]
        self.assertEqual(len(events) + len(rest), 201)  # everything, once
        self.assertEqual(rest[-1]["result"]["content"], [{"type": "text", "text": "flooded"}])

    def test_2026_closes_the_stream_and_cancels_the_call(self) -> None:
        app, finished, sent = self.app()
        self.addCleanup(app.close)
        meta = dict(META, **{"io.modelcontextprotocol/logLevel": "info"})
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "flood", "arguments": {},
                                                                              "_meta": meta}}
        _, headers, body = self.wsgi(app, "POST", message, modern_headers("tools/call", "flood"))
        self.assertEqual(headers["Content-Type"], "text/event-stream")
        self.assertTrue(finished.wait(30))
        self.assertLess(len(sent), 200)  # cancelled when its stream was cut
        self.assertLess(len(re.findall(rb"data: ", b"".join(body))), 8)


class AnnouncementTest(unittest.TestCase):
    def test_once_to_every_get_stream_and_listen_stream(self) -> None:
        server = mcp_ref.MCPServer("lists")

        @server.tool()
        def change(ctx: mcp_ref.Context) -> str:
            server.add_tool(lambda: "hi", name="newt")
            server.remove_tool("newt")
            ctx.notify_tools_changed()  # three changes, one call: one announcement
            return "changed"

        endpoint = InProcess(server)
        self.addCleanup(endpoint.stop)
        discovered = endpoint.modern("server/discover")
        self.assertEqual(discovered.json()["result"]["capabilities"], {"logging": {}, "tools": {"listChanged": True}})
        sessions = [endpoint.initialize(), endpoint.initialize()]
        streams = []
        for session in sessions:
            conn, stream = get(endpoint.port, in_session(session))
            self.addCleanup(conn.close)
            self.assertIsNone(read_event(stream)[1])  # priming
            streams.append((conn, stream))
        conn, listen = post(endpoint.port, {"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen", "params": {
            "notifications": {"toolsListChanged": True}, "_meta": META}}, modern_headers("subscriptions/listen"))
        self.addCleanup(conn.close)
        sub = {"io.modelcontextprotocol/subscriptionId": "sub"}
        self.assertEqual(read_event(listen)[1]["method"], "notifications/subscriptions/acknowledged")
        streams.append((conn, listen))
        reply = endpoint.request("POST", modern_call(1, "change"), modern_headers("tools/call", "change"))
        self.assertEqual(reply.json()["result"]["content"], [{"type": "text", "text": "changed"}])
        expected = [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}] * 2 + [
            {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": sub}}]
        self.assertEqual([read_event(stream)[1] for _, stream in streams], expected)
        for conn, stream in streams:  # and nothing more
            conn.sock.settimeout(0.5)
            with self.assertRaises(socket.timeout):
                read_event(stream)


class ListenEndTest(unittest.TestCase):
    def test_a_server_that_stops_ends_its_listen_streams(self) -> None:
        # 2026-07-28 basic/patterns/cancellation: a server MUST send notifications/cancelled
        # referencing a subscriptions/listen request when it tears the stream down; then the
        # completion result (basic/patterns/subscriptions, "Graceful Closure"), both with
        # the subscriptionId (basic/index, "_meta"), and the stream ends.
        endpoint = InProcess(mcp_ref.MCPServer("lists", version="1"))
        self.addCleanup(endpoint.stop)
        conn, listen = post(endpoint.port, {"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen", "params": {
            "notifications": {"toolsListChanged": True}, "_meta": META}}, modern_headers("subscriptions/listen"))
        self.addCleanup(conn.close)
        self.assertEqual(read_event(listen)[1]["method"], "notifications/subscriptions/acknowledged")
        endpoint.app.close()
        sub = {"io.modelcontextprotocol/subscriptionId": "sub"}
        self.assertEqual(read_event(listen)[1], {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
            "requestId": "sub", "reason": "the server is stopping", "_meta": sub}})
        self.assertEqual(read_event(listen)[1], {"jsonrpc": "2.0", "id": "sub", "result": {
            "_meta": dict(sub, **{"io.modelcontextprotocol/serverInfo": {"name": "lists", "version": "1"}}),
            "resultType": "complete"}})
        with self.assertRaises(EOFError):
            read_event(listen)

    def ends(self, port: int, stop: Any) -> float:
        """Open a listen stream on ``port``, ``stop()`` the server: its end as the revision asks, and how long
        the process took to exit."""
        conn, listen = post(port, {"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen", "params": {
            "notifications": {"toolsListChanged": True}, "_meta": META}}, modern_headers("subscriptions/listen"))
        self.addCleanup(conn.close)
        self.assertEqual(read_event(listen)[1]["method"], "notifications/subscriptions/acknowledged")
        started = time.monotonic()
        process = stop()
        sub = {"io.modelcontextprotocol/subscriptionId": "sub"}
        self.assertEqual(read_event(listen)[1], {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
            "requestId": "sub", "reason": "the server is stopping", "_meta": sub}})
        self.assertEqual(read_event(listen)[1]["result"]["resultType"], "complete")
        self.assertEqual(process.wait(30), 0)
        return time.monotonic() - started

    def test_sigterm_ends_listen_streams_first(self) -> None:
        # The embedded server (serve --http, run(transport="streamable-http")):
        # SIGTERM gives requests in flight up to 5 s to finish, and an open
        # listen stream counted as one (it never ends by itself): the exit
        # waited the whole 5 s.  Now listen streams end first.
        folder = tempfile.mkdtemp(prefix="mcp_ref-sse-")
        self.addCleanup(shutil.rmtree, folder, True)
        script = http_script(folder, os.path.join(HERE, "examples", "weather.py"))
        server = ServerProcess(command=python_command(script))
        self.addCleanup(server.stop)
        took = self.ends(server.port, lambda: (server.process.send_signal(signal.SIGTERM), server.process)[1])
        self.assertLess(took, 3.0)  # (0.25 s unloaded: a stream looks every _POLL)

    @unittest.skipUnless(os.path.exists(GUNICORN), "needs gunicorn")
    @needs_layers("cli")  # mcp_ref:wsgi_app, the app gunicorn imports, is the command line's (section 34)
    def test_gunicorn(self) -> None:
        # Under gunicorn the worker's graceful timeout cut the stream, with no
        # notifications/cancelled: the app chains the worker's SIGTERM handler.
        process = subprocess.Popen([GUNICORN, "-k", "gthread", "--threads", "4", "-w", "1", "--chdir", HERE, "-b",
                                    "127.0.0.1:0", "--graceful-timeout", "20",
                                    'mcp_ref:wsgi_app("examples/weather.py")'],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.addCleanup(lambda: (process.poll() is None and process.kill(), process.wait(30),
                                 process.stderr and process.stderr.close()))
        assert process.stderr is not None
        port = None
        while port is None:
            line = process.stderr.readline().decode()
            self.assertTrue(line, "gunicorn did not start")
            found = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", line)
            port = int(found.group(1)) if found else None
        threading.Thread(target=process.stderr.read, daemon=True).start()  # (never a full pipe)
        for _ in range(100):  # the worker loads the app after the master listens
            if post(port, modern_call(1, "get_temperature"), modern_headers("tools/call", "get_temperature"))[
                    1].status == 200:
                break
            time.sleep(0.1)
        took = self.ends(port, lambda: (process.send_signal(signal.SIGTERM), process)[1])
        self.assertLess(took, 15.0)  # (the stream ends at once; gunicorn keeps the connection 2 s, then exits)

    def test_the_chain_is_gunicorns_alone(self) -> None:
        # The app chains SIGTERM only where a gunicorn worker's handler is in
        # place (gunicorn loads the app in the worker's main thread after
        # setting it); elsewhere a process's handlers are its own.
        class Worker:
            __module__ = "gunicorn.workers.gthread"
            alive = True

            def handle_exit(self, signum: int, frame: Any) -> None:
                self.alive = False

        server = mcp_ref.MCPServer("lists", version="1")
        before = signal.getsignal(signal.SIGTERM)
        self.addCleanup(signal.signal, signal.SIGTERM, before)
        with unittest.mock.patch.dict(sys.modules, {"gunicorn": sys.modules[__name__]}):
            server.streamable_http_app()
            self.assertIs(signal.getsignal(signal.SIGTERM), before)  # not a worker's: left alone
            worker = Worker()
            signal.signal(signal.SIGTERM, worker.handle_exit)
            apps = [server.streamable_http_app(), server.streamable_http_app()]
            chained = signal.getsignal(signal.SIGTERM)
            self.assertIsInstance(chained, mcp_ref._ChainedStop)
            chained(signal.SIGTERM, None)  # type: ignore[operator]
        self.assertEqual(([app.listens_end for app in apps], worker.alive), ([True, True], False))
        signal.signal(signal.SIGTERM, worker.handle_exit)
        with unittest.mock.patch.dict(sys.modules):
            sys.modules.pop("gunicorn", None)
            server.streamable_http_app()  # gunicorn not loaded: nothing chained
        self.assertEqual(signal.getsignal(signal.SIGTERM), worker.handle_exit)


if __name__ == "__main__":
    unittest.main()

"""The wire: JSON-RPC 2.0 over stdio, driven through real pipes, in every revision.

Each test starts testdata/wire_server.py as a subprocess (as a client would) and
asserts whole frames.
"""

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import unittest
from typing import Any, Dict, List, Optional, Tuple

from tests._testing import HERE  # the repository's root
from tests._testing import python_command  # a server's command line, on the module under test


SERVER = os.path.join(HERE, "tests", "testdata", "wire_server.py")

INFO_SERVER = os.path.join(HERE, "tests", "testdata", "info_server.py")

MODERN = "2026-07-28"

META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}

SERVER_INFO = {"name": "wire", "version": "1.0"}


class ServerProcess:
    """A server on real pipes; lines are read on a thread so reads can time out."""

    def __init__(self, env: Optional[Dict[str, str]] = None, script: str = SERVER, pump: bool = True) -> None:
        full_env = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))
        self.process = subprocess.Popen(python_command(script), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=full_env)
        self.lines: "queue.Queue[Optional[bytes]]" = queue.Queue()
        self.stderr_chunks: List[bytes] = []
        if pump:  # without it, the test reads stdout itself (and may close it)
            threading.Thread(target=self._pump, daemon=True).start()
        self._stderr_pump = threading.Thread(target=self._pump_stderr, daemon=True)
        self._stderr_pump.start()

    def _pump(self) -> None:
        for line in self.process.stdout:  # type: ignore[union-attr]
            self.lines.put(line)
        self.lines.put(None)

    def _pump_stderr(self) -> None:
        for chunk in iter(lambda: self.process.stderr.read1(65536), b""):  # type: ignore[union-attr]
            self.stderr_chunks.append(chunk)

    @property
    def stderr(self) -> str:
        """What the server wrote to stderr; all of it once it has exited (its
        last words may still be in the pipe when wait() returns, on a loaded machine)."""
        if self.process.poll() is not None:
            self._stderr_pump.join(10)
        return b"".join(self.stderr_chunks).decode("utf-8", "replace")

    def send(self, message: Any) -> None:
        data = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
        self.process.stdin.write(data)  # type: ignore[union-attr]
        self.process.stdin.flush()  # type: ignore[union-attr]

    def recv(self, timeout: float = 10.0) -> Any:
        line = self.lines.get(timeout=timeout)
        if line is None:
            raise EOFError("the server closed stdout")
        assert line.endswith(b"\n"), line
        return json.loads(line)

    def recv_raw(self, timeout: float = 10.0) -> Optional[bytes]:
        return self.lines.get(timeout=timeout)

    def nothing_for(self, seconds: float) -> bool:
        try:
            line = self.lines.get(timeout=seconds)
        except queue.Empty:
            return True
        self.lines.put(line)
        return False

    def request(self, id_: Any, method: str, params: Optional[Dict[str, Any]] = None) -> Any:
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.recv()

    def initialize(self, version: str = "2025-11-25") -> Any:
        reply = self.request(0, "initialize", {"protocolVersion": version, "capabilities": {},
                                                "clientInfo": {"name": "test", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return reply

    def close(self, timeout: float = 20.0) -> int:
        try:
            self.process.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        return self.process.wait(timeout=timeout)

    def remaining(self) -> List[Any]:
        out = []
        while True:
            line = self.lines.get(timeout=10)
            if line is None:
                return out
            out.append(json.loads(line))

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass


class StdioWire:
    """An MCPServer's stdio connection in this process: each message as its
    reader handles it, and every frame written since the last look."""

    def __init__(self, server: Any, version: Optional[str] = None, caps: Optional[Dict[str, Any]] = None,
                 initialized: bool = True) -> None:
        import io

        from tests._testing import mcp_ref

        self.conn = mcp_ref._StdioServer(server, exit_process=False)
        self.conn.out = io.BytesIO()
        self.seen = 0
        if version is not None and version != MODERN:  # a session: the handshake first
            self.send({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": caps or {}, "clientInfo": {"name": "t", "version": "1"}}})
            if initialized:
                self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: Any, settle: bool = True) -> List[Any]:
        """The frames written after ``message``: once its calls are answered (``settle``), or at once."""
        self.conn.handle_line(json.dumps(message).encode())
        if settle:
            self.conn.settle_all(10)
            self.conn.draining = False
        return self.frames()

    def frames(self) -> List[Any]:
        data = self.conn.out.getvalue()
        new, self.seen = data[self.seen:], len(data)
        return [json.loads(line) for line in new.splitlines()]

    def close(self) -> None:
        from tests._testing import end_threads

        end_threads(self.conn)


def wsgi_post(app: Any, message: Any, session: Optional[str] = None,
              version: str = "2025-11-25") -> Tuple[int, List[Any]]:
    """(status, the JSON messages of the body: its one object, or its SSE
    events) of a POST to the Streamable HTTP app, called as a WSGI server
    does; a 2026-07-28 message with the standard headers a client derives
    from its body, a session's with Mcp-Session-Id."""
    import io

    body = json.dumps(message).encode()
    environ: Dict[str, Any] = {"REQUEST_METHOD": "POST", "PATH_INFO": "/mcp", "HTTP_HOST": "127.0.0.1",
                               "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)),
                               "HTTP_ACCEPT": "application/json, text/event-stream", "wsgi.input": io.BytesIO(body)}
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    if isinstance(meta, dict) and "io.modelcontextprotocol/protocolVersion" in meta:
        environ.update(HTTP_MCP_PROTOCOL_VERSION=meta["io.modelcontextprotocol/protocolVersion"],
                       HTTP_MCP_METHOD=message["method"])
        name = params.get("uri" if message["method"] == "resources/read" else "name")
        if isinstance(name, str):
            environ["HTTP_MCP_NAME"] = name
    elif session is not None:
        environ.update(HTTP_MCP_SESSION_ID=session, HTTP_MCP_PROTOCOL_VERSION=version)
    status: List[str] = []
    chunks = app(environ, lambda line, headers: status.append(line))
    try:
        data = b"".join(chunks)
    finally:
        getattr(chunks, "close", lambda: None)()
    text = data.decode()
    if text.startswith("{") or text.startswith("["):
        return int(status[0].split()[0]), [json.loads(text)]
    return int(status[0].split()[0]), [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]


def wsgi_session(app: Any, version: str = "2025-11-25", caps: Optional[Dict[str, Any]] = None,
                 initialized: bool = True) -> str:
    """A session of the app, after its handshake (notifications/initialized sent or not)."""
    import io

    body = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": caps or {}, "clientInfo": {"name": "t", "version": "1"}}}).encode()
    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/mcp", "HTTP_HOST": "127.0.0.1",
               "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)),
               "HTTP_ACCEPT": "application/json, text/event-stream", "wsgi.input": io.BytesIO(body)}
    headers: List[Any] = []
    b"".join(app(environ, lambda line, sent: headers.extend(sent)))
    session = str(dict(headers)["Mcp-Session-Id"])
    if initialized:
        wsgi_post(app, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session, version)
    return session


class WireTestCase(unittest.TestCase):
    env: Optional[Dict[str, str]] = None

    def setUp(self) -> None:
        self.server = ServerProcess(self.env)
        self.addCleanup(self.server.kill)


ADD_TOOL = {
    "name": "add", "title": "Add", "description": "Add two numbers.",
    "inputSchema": {"type": "object", "properties": {"a": {"title": "A", "type": "integer"},
                                                     "b": {"default": 1, "title": "B", "type": "integer"}},
                    "required": ["a"], "title": "addArguments"},
    "outputSchema": {"properties": {"result": {"title": "Result", "type": "integer"}}, "required": ["result"],
                     "title": "addOutput", "type": "object"},
    "annotations": {"readOnlyHint": True}, "icons": [{"src": "data:,"}], "_meta": {"k": 1},
}


def add_tool_in(version: str) -> Dict[str, Any]:
    drop = {"2024-11-05": {"title", "outputSchema", "annotations", "icons", "_meta"},
            "2025-03-26": {"title", "outputSchema", "icons", "_meta"},
            "2025-06-18": {"icons"}}.get(version, set())
    return {k: v for k, v in ADD_TOOL.items() if k not in drop}


class HandshakeTest(WireTestCase):
    def test_every_handshake_revision(self) -> None:
        for version in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"):
            with self.subTest(version=version):
                server = ServerProcess()
                self.addCleanup(server.kill)
                self.assertEqual(server.initialize(version), {"jsonrpc": "2.0", "id": 0, "result": {
                    "protocolVersion": version, "capabilities": {"logging": {}, "tools": {"listChanged": True}},
                    "serverInfo": SERVER_INFO, "instructions": "A server for tests."}})
                tools = server.request(1, "tools/list")["result"]["tools"]
                self.assertEqual(tools[0], add_tool_in(version))
                expected_call: Dict[str, Any] = {"content": [{"type": "text", "text": "5"}], "isError": False}
                if version >= "2025-06-18":
                    expected_call = {"content": [{"type": "text", "text": "5"}], "structuredContent": {"result": 5},
                                     "isError": False}
                self.assertEqual(server.request(2, "tools/call", {"name": "add", "arguments": {"a": 4}}),
                                 {"jsonrpc": "2.0", "id": 2, "result": expected_call})
                self.assertEqual(server.request("p", "ping"), {"jsonrpc": "2.0", "id": "p", "result": {}})
                self.assertEqual(server.close(), 0)

    def test_unknown_version_gets_our_latest(self) -> None:
        self.assertEqual(self.server.initialize("1999-01-01")["result"]["protocolVersion"], "2025-11-25")
        self.assertEqual(self.server.initialize(MODERN)["result"]["protocolVersion"], "2025-11-25")

    def test_requests_before_initialize_are_refused_but_ping(self) -> None:
        self.assertEqual(self.server.request(1, "ping"), {"jsonrpc": "2.0", "id": 1, "result": {}})
        reply = self.server.request(2, "tools/list")
        self.assertEqual(reply["error"]["code"], -32602)
        self.assertEqual(reply["id"], 2)

    def test_server_info_fields_by_revision(self) -> None:
        # A server that sets every field: each revision gets exactly the fields its
        # Implementation defines (title from 2025-06-18; description, websiteUrl
        # and icons from 2025-11-25), in initialize and in 2026-07-28's _meta.
        server = ServerProcess(script=INFO_SERVER)
        self.addCleanup(server.kill)
        basic = {"name": "info", "version": "2.0"}
        titled = dict(basic, title="Info Server")
        full = dict(titled, description="A server that describes itself.", websiteUrl="https://example.com/info",
                    icons=[{"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}])
        for version, expected in (("2024-11-05", basic), ("2025-03-26", basic), ("2025-06-18", titled),
                                  ("2025-11-25", full)):
            with self.subTest(version=version):
                self.assertEqual(server.initialize(version)["result"]["serverInfo"], expected)
        meta_key = "io.modelcontextprotocol/serverInfo"
        self.assertEqual(server.request(1, "server/discover", {"_meta": META})["result"]["_meta"], {meta_key: full})
        self.assertEqual(server.request(2, "tools/list", {"_meta": META})["result"]["_meta"], {meta_key: full})
        call = {"name": "echo", "arguments": {"text": "a"}, "_meta": META}
        self.assertEqual(server.request(3, "tools/call", call)["result"]["_meta"], {meta_key: full})
        self.assertEqual(server.close(), 0)
        # A server that sets none of them: name and version only.
        self.assertEqual(self.server.initialize("2025-11-25")["result"]["serverInfo"], SERVER_INFO)

    def test_unknown_method_and_bad_params(self) -> None:
        self.server.initialize()
        self.assertEqual(self.server.request(1, "resources/list"), {
            "jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found: resources/list"}})
        self.assertEqual(self.server.request(2, "tools/call", {"name": 5}), {
            "jsonrpc": "2.0", "id": 2,
            "error": {"code": -32602, "message": 'Invalid params: tools/call needs "name" (a string)'}})
        self.assertEqual(self.server.request(3, "tools/call", {"name": "add", "arguments": [1]})["error"]["code"],
                         -32602)
        self.assertEqual(self.server.request(4, "tools/call", {"name": "nope"}), {
            "jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "Unknown tool: nope"}})

    def test_batches_only_in_2025_03_26(self) -> None:
        batch = [{"jsonrpc": "2.0", "id": 1, "method": "ping"},
                 {"jsonrpc": "2.0", "method": "notifications/progress"},
                 {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1}}}]
        self.server.initialize("2025-06-18")
        self.server.send(batch)
        self.assertEqual(self.server.recv(), {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32600, "message": "Invalid Request: JSON-RPC batches are not part of protocol revision "
                                       "2025-06-18"}})
        server = ServerProcess()
        self.addCleanup(server.kill)
        server.initialize("2025-03-26")
        server.send(batch)
        self.assertEqual(server.recv(), [
            {"jsonrpc": "2.0", "id": 1, "result": {}},
            {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "2"}], "isError": False}}])

    def test_pagination(self) -> None:
        server = ServerProcess({"WIRE_PAGE_SIZE": "5"})
        self.addCleanup(server.kill)
        server.initialize()
        names: List[str] = []
        cursor = None
        for i in range(10):
            result = server.request(i + 1, "tools/list", {"cursor": cursor} if cursor else {})["result"]
            names += [t["name"] for t in result["tools"]]
            self.assertLessEqual(len(result["tools"]), 5)
            cursor = result.get("nextCursor")
            if cursor is None:
                break
        self.assertEqual(names[:3], ["add", "point", "echo"])
        self.assertEqual(len(names), len(set(names)))
        self.assertGreater(len(names), 10)
        self.assertEqual(server.request(99, "tools/list", {"cursor": "bogus"})["error"]["code"], -32602)


class StatelessTest(WireTestCase):
    def test_discover(self) -> None:
        # logging declared, as in a session: any tool may log through its Context, and
        # servers that emit log messages MUST declare it (server/utilities/logging).
        self.assertEqual(self.server.request(1, "server/discover", {"_meta": META}), {
            "jsonrpc": "2.0", "id": 1, "result": {
                "supportedVersions": [MODERN], "capabilities": {"logging": {}, "tools": {"listChanged": True}},
                "instructions": "A server for tests.",
                "ttlMs": 0, "cacheScope": "private", "resultType": "complete",
                "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO}}})

    def test_list_and_call(self) -> None:
        listed = self.server.request(1, "tools/list", {"_meta": META})
        self.assertEqual(listed["result"]["tools"][0], ADD_TOOL)
        self.assertEqual({k: v for k, v in listed["result"].items() if k != "tools"}, {
            "ttlMs": 0, "cacheScope": "private", "resultType": "complete",
            "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO}})
        call = {"name": "point", "arguments": {"x": 3}, "_meta": META}
        self.assertEqual(self.server.request(2, "tools/call", call), {
            "jsonrpc": "2.0", "id": 2, "result": {
                "content": [{"type": "text", "text": '{\n  "x": 3,\n  "y": 0\n}'}],
                "structuredContent": {"x": 3, "y": 0}, "isError": False, "resultType": "complete",
                "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO}}})

    def test_meta_is_required(self) -> None:
        self.assertEqual(self.server.request(1, "server/discover", {}), {"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32602, "message": "Invalid params: _meta must carry io.modelcontextprotocol/protocolVersion and "
                                       "io.modelcontextprotocol/clientCapabilities"}})
        meta = {"io.modelcontextprotocol/protocolVersion": MODERN}
        self.assertEqual(self.server.request(2, "tools/list", {"_meta": meta}), {"jsonrpc": "2.0", "id": 2, "error": {
            "code": -32602, "message": "Invalid params: _meta must carry io.modelcontextprotocol/clientCapabilities"}})

    def test_unsupported_version(self) -> None:
        meta = dict(META, **{"io.modelcontextprotocol/protocolVersion": "2099-01-01"})
        self.assertEqual(self.server.request(1, "tools/list", {"_meta": meta}), {"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32022, "message": "Unsupported protocol version",
            "data": {"supported": [MODERN], "requested": "2099-01-01"}}})

    def test_initialize_is_no_2026_method(self) -> None:
        # _meta names the revision, 2026-07-28, which has no initialize: -32601,
        # with or without the rest of the envelope (the method is looked up first).
        params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
        half = {"io.modelcontextprotocol/protocolVersion": MODERN}
        for id_, meta in ((1, META), (2, half)):
            self.assertEqual(self.server.request(id_, "initialize", dict(params, _meta=meta)), {
                "jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "Method not found: initialize"}})
        self.assertEqual(self.server.request(3, "tools/list", {"_meta": half})["error"]["code"], -32602)
        # Nothing was initialized: the handshake still works on this connection.
        self.assertEqual(self.server.initialize("2025-06-18")["result"]["protocolVersion"], "2025-06-18")

    def test_no_ping_in_2026(self) -> None:
        self.assertEqual(self.server.request(1, "ping", {"_meta": META}), {
            "jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found: ping"}})

    def test_unknown_tool_is_a_protocol_error(self) -> None:
        self.assertEqual(self.server.request(1, "tools/call", {"name": "nope", "arguments": {}, "_meta": META}), {
            "jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unknown tool: nope"}})

    def test_probe_then_fall_back_to_initialize(self) -> None:
        # stdio "Backward Compatibility": a dual-era client probes first; both eras
        # work on one connection.
        self.assertIn("result", self.server.request(1, "server/discover", {"_meta": META}))
        self.assertEqual(self.server.initialize("2025-06-18")["result"]["protocolVersion"], "2025-06-18")
        self.assertEqual(self.server.request(2, "tools/call", {"name": "add", "arguments": {"a": 1}})["result"],
                         {"content": [{"type": "text", "text": "2"}], "structuredContent": {"result": 2},
                          "isError": False})
        self.assertEqual(self.server.request(3, "tools/call", {"name": "add", "arguments": {"a": 1}, "_meta": META})[
            "result"]["resultType"], "complete")


class MessageErrorTest(WireTestCase):
    def test_parse_error(self) -> None:
        self.server.send(b'{"jsonrpc": "2.0", "id": 1, "method": \n')
        self.assertEqual(self.server.recv(), {"jsonrpc": "2.0", "id": None,
                                              "error": {"code": -32700, "message": "Parse error: not valid JSON"}})

    def test_invalid_requests(self) -> None:
        cases = [
            ({"id": 1, "method": "ping"}, 1, 'Invalid Request: "jsonrpc" must be "2.0"'),
            ({"jsonrpc": "2.0", "id": 2, "method": 7}, 2, 'Invalid Request: "method" must be a string'),
            ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, None,
             'Invalid Request: "id" must be a string or an integer'),
            ([], None, "Invalid Request: JSON-RPC batches are not part of protocol revision (none negotiated)"),
            ("hello", None, "Invalid Request: a message must be a JSON object"),
        ]
        for message, id_, text in cases:
            with self.subTest(message=message):
                self.server.send(message)
                self.assertEqual(self.server.recv(), {"jsonrpc": "2.0", "id": id_,
                                                      "error": {"code": -32600, "message": text}})
        self.server.send({"jsonrpc": "2.0", "id": 3, "method": "ping", "params": [1]})
        self.assertEqual(self.server.recv()["error"]["code"], -32602)

    def test_notifications_are_never_answered(self) -> None:
        for message in ({"jsonrpc": "2.0", "method": "notifications/initialized"},
                        {"jsonrpc": "2.0", "method": "no/such/notification", "params": {"x": 1}},
                        {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "nope"}},
                        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "bad"},
                        {"jsonrpc": "2.0", "id": 5, "result": {}}):
            self.server.send(message)
        self.assertEqual(self.server.request(9, "ping"), {"jsonrpc": "2.0", "id": 9, "result": {}})


class ConcurrencyTest(WireTestCase):
    def test_slow_tool_blocks_nothing(self) -> None:
        self.server.initialize()
        call = {"jsonrpc": "2.0", "method": "tools/call"}
        self.server.send(dict(call, id="slow", params={"name": "sleep", "arguments": {"seconds": 1.5}}))
        self.server.send(dict(call, id="aslow", params={"name": "async_sleep", "arguments": {"seconds": 1.5}}))
        started = time.monotonic()
        self.assertEqual(self.server.request("ping", "ping")["id"], "ping")
        self.assertEqual(self.server.request("list", "tools/list")["id"], "list")
        self.assertEqual(self.server.request("fast", "tools/call", {"name": "add", "arguments": {"a": 1}})["id"],
                         "fast")
        self.assertLess(time.monotonic() - started, 1.0)
        self.assertEqual({self.server.recv()["id"], self.server.recv()["id"]}, {"slow", "aslow"})

    def test_blocked_event_loop_does_not_block_the_server(self) -> None:
        self.server.initialize()
        self.server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "blocks_loop", "arguments": {"seconds": 1.5}}})
        time.sleep(0.2)
        started = time.monotonic()
        self.assertEqual(self.server.request(2, "tools/call", {"name": "add", "arguments": {"a": 1}})["id"], 2)
        self.assertLess(time.monotonic() - started, 1.0)
        self.assertEqual(self.server.recv()["id"], 1)

    def test_cancelled_requests_get_no_response(self) -> None:
        self.server.initialize()
        self.server.send({"jsonrpc": "2.0", "id": "h", "method": "tools/call", "params": {"name": "hang"}})
        self.server.send({"jsonrpc": "2.0", "id": "s", "method": "tools/call",
                          "params": {"name": "async_sleep", "arguments": {"seconds": 30}}})
        time.sleep(0.2)
        for id_ in ("h", "s"):
            self.server.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                              "params": {"requestId": id_, "reason": "user"}})
        self.assertEqual(self.server.request("r", "tools/call", {"name": "release"})["id"], "r")
        self.assertTrue(self.server.nothing_for(1.0))
        self.assertEqual(self.server.close(), 0)
        self.assertEqual(self.server.remaining(), [])


class ProcessTest(WireTestCase):
    def test_stdout_carries_protocol_messages_only(self) -> None:
        self.server.initialize()
        reply = self.server.request(1, "tools/call", {"name": "noisy"})
        self.assertEqual(reply["result"]["content"], [{"type": "text", "text": "quiet on stdout"}])
        self.assertEqual(self.server.close(), 0)
        for text in ("print() from a tool", "sys.stdout.write from a tool", "os.write(1) from a tool",
                     "a child process writing to fd 1"):
            self.assertIn(text, self.server.stderr)

    def test_end_of_input_answers_everything_in_flight(self) -> None:
        self.server.initialize()
        for i in range(4):
            self.server.send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                              "params": {"name": "sleep" if i % 2 else "async_sleep", "arguments": {"seconds": 0.5}}})
        self.assertEqual(self.server.close(), 0)
        self.assertEqual(sorted(m["id"] for m in self.server.remaining()), [0, 1, 2, 3])

    def test_sigterm_and_sigint_exit_promptly(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGINT):
            with self.subTest(signal=sig):
                server = ServerProcess()
                self.addCleanup(server.kill)
                server.initialize()
                server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "hang"}})
                time.sleep(0.2)
                started = time.monotonic()
                server.process.send_signal(sig)
                self.assertEqual(server.process.wait(timeout=5), 0)
                self.assertLess(time.monotonic() - started, 3)
                self.assertNotIn("Traceback", server.stderr)

    def test_sigterm_ends_listen_streams_as_the_revision_asks(self) -> None:
        # 2026-07-28 basic/patterns/cancellation: a server that tears a subscriptions/listen
        # stream down MUST send notifications/cancelled referencing it; then its completion
        # result (basic/patterns/subscriptions, "Graceful Closure"), with the subscriptionId.
        for id_ in ("sub", 5):
            self.server.send({"jsonrpc": "2.0", "id": id_, "method": "subscriptions/listen", "params": {
                "notifications": {"toolsListChanged": True}, "_meta": META}})
            self.assertEqual(self.server.recv()["method"], "notifications/subscriptions/acknowledged")
        self.server.process.send_signal(signal.SIGTERM)
        self.assertEqual(self.server.process.wait(timeout=10), 0)
        ends = []
        for id_ in ("sub", 5):
            sub = {"io.modelcontextprotocol/subscriptionId": id_}
            ends += [{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
                "requestId": id_, "reason": "the server is stopping", "_meta": sub}},
                {"jsonrpc": "2.0", "id": id_, "result": {
                    "_meta": dict(sub, **{"io.modelcontextprotocol/serverInfo": SERVER_INFO}),
                    "resultType": "complete"}}]
        self.assertEqual(self.server.remaining(), ends)

    def test_closed_stdout_ends_quietly(self) -> None:
        self.server.kill()
        self.server = ServerProcess(pump=False)
        self.addCleanup(self.server.kill)
        self.server.send({"jsonrpc": "2.0", "id": 0, "method": "ping"})
        self.assertEqual(json.loads(self.server.process.stdout.readline()), {"jsonrpc": "2.0", "id": 0, "result": {}})
        self.server.process.stdout.close()  # type: ignore[union-attr]
        try:
            for i in range(50):
                self.server.send({"jsonrpc": "2.0", "id": i, "method": "ping"})
        except BrokenPipeError:
            pass
        self.assertEqual(self.server.process.wait(timeout=10), 0)
        self.assertNotIn("Traceback", self.server.stderr)

    def test_run_returns_with_its_event_loop_closed(self) -> None:
        # An async tool's event loop, stopped at the end of input and left open,
        # was closed by the garbage collector at exit, after its self-pipe: a
        # traceback on stderr on CPython 3.13 ("Invalid file descriptor: -1").
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            script = os.path.join(folder, "loop_server.py")
            with open(script, "w", encoding="utf-8") as f:
                f.write(f"import gc, asyncio, sys\nsys.path.insert(0, {HERE!r})\nfrom mcp_ref import MCPServer\n"
                        "mcp = MCPServer('loop')\n@mcp.tool()\nasync def wait() -> int:\n"
                        "    await asyncio.sleep(0)\n    return 1\nmcp.run()\n"
                        "loops = [o for o in gc.get_objects() if isinstance(o, asyncio.AbstractEventLoop)]\n"
                        "print('loops', len(loops), 'open', sum(not o.is_closed() for o in loops), file=sys.stderr)\n")
            frames = [{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "wait", "arguments": {}, "_meta": META}}]
            done = subprocess.run(python_command(script), input="".join(json.dumps(f) + "\n" for f in frames),
                                  capture_output=True, text=True, timeout=60)
        self.assertEqual(json.loads(done.stdout)["result"]["structuredContent"], {"result": 1})
        self.assertIn("loops 1 open 0", done.stderr)
        self.assertNotIn("Traceback", done.stderr)


CORPUS = os.path.join(HERE, "tests", "testdata", "resource_corpus.py")

CORPUS_INFO = {"name": "resources", "version": "1.0"}

ALL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", MODERN)


def corpus_server() -> Any:
    """The corpus in this process: what its lists should be, revision by revision."""
    sys.path.insert(0, os.path.join(HERE, "tests", "testdata"))
    os.environ.pop("CORPUS_SERVER", None)
    import resource_corpus

    return resource_corpus.server


class ResourcesWireTest(unittest.TestCase):
    """testdata/resource_corpus.py over real pipes, whole frames, in every revision."""

    def start(self, version: str) -> ServerProcess:
        server = ServerProcess(script=CORPUS)
        self.addCleanup(server.kill)
        if version != MODERN:
            capabilities = {"logging": {}, "tools": {"listChanged": True},
                            "resources": {"subscribe": True, "listChanged": True}, "prompts": {"listChanged": True}}
            if version >= "2025-03-26":
                capabilities["completions"] = {}
            self.assertEqual(server.initialize(version), {"jsonrpc": "2.0", "id": 0, "result": {
                "protocolVersion": version, "capabilities": capabilities, "serverInfo": CORPUS_INFO,
                "instructions": "Resources and prompts for tests."}})
        return server

    def ask(self, server: ServerProcess, version: str, id_: int, method: str,
            params: Optional[Dict[str, Any]] = None) -> Any:
        params = dict(params or {})
        if version == MODERN:
            params["_meta"] = META
        return server.request(id_, method, params)

    def frame(self, version: str, id_: int, result: Dict[str, Any], cacheable: bool = False) -> Dict[str, Any]:
        """A response as the revision decorates it: 2026-07-28 adds resultType, the
        server's Implementation in _meta, and the caching hints where they belong."""
        if version == MODERN:
            result = dict(result, resultType="complete", _meta={"io.modelcontextprotocol/serverInfo": CORPUS_INFO})
            if cacheable:
                result.update(ttlMs=0, cacheScope="private")
        return {"jsonrpc": "2.0", "id": id_, "result": result}

    def test_lists_in_every_revision(self) -> None:
        corpus = corpus_server()
        for version in ALL_VERSIONS:
            with self.subTest(version=version):
                server = self.start(version)
                for n, (method, key, items) in enumerate((
                        ("resources/list", "resources", corpus.list_resources(version)),
                        ("resources/templates/list", "resourceTemplates", corpus.list_resource_templates(version)),
                        ("prompts/list", "prompts", corpus.list_prompts(version)))):
                    self.assertEqual(self.ask(server, version, n, method),
                                     self.frame(version, n, {key: items}, cacheable=True))
                hello = {"uri": "greeting://hello", "name": "hello", "description": "A friendly greeting.",
                         "mimeType": "text/plain"}
                if version >= "2025-06-18":
                    hello["title"] = "Hello"
                self.assertEqual(corpus.list_resources(version)[0], hello)
                self.assertEqual(server.close(), 0)

    def test_reads_in_every_revision(self) -> None:
        for version in ALL_VERSIONS:
            with self.subTest(version=version):
                server = self.start(version)
                self.assertEqual(self.ask(server, version, 1, "resources/read", {"uri": "greeting://hello"}),
                                 self.frame(version, 1, {"contents": [{"uri": "greeting://hello",
                                                                       "mimeType": "text/plain",
                                                                       "text": "Hello, world!"}]}, cacheable=True))
                self.assertEqual(self.ask(server, version, 2, "resources/read", {"uri": "blob://65"}),
                                 self.frame(version, 2, {"contents": [{"uri": "blob://65", "mimeType": "image/png",
                                                                       "blob": "QUFB"}]}, cacheable=True))
                self.assertEqual(self.ask(server, version, 3, "resources/read", {"uri": "weather://paris/2"}),
                                 self.frame(version, 3, {"contents": [{
                                     "uri": "weather://paris/2", "mimeType": "application/json",
                                     "text": '{\n  "city": "paris",\n  "day": 2,\n  "temperature": 16.5\n}'}]},
                                     cacheable=True))
                annotated = {"uri": "data://annotated", "mimeType": "text/plain", "text": "annotated"}
                if version >= "2025-06-18":
                    annotated["_meta"] = {"owner": "tests"}
                self.assertEqual(self.ask(server, version, 4, "resources/read", {"uri": "data://annotated"}),
                                 self.frame(version, 4, {"contents": [annotated]}, cacheable=True))

    def test_read_errors_in_every_revision(self) -> None:
        for version in ALL_VERSIONS:
            with self.subTest(version=version):
                server = self.start(version)
                # server/resources, "Error Handling": -32002 until 2025-11-25, -32602 from 2026-07-28.
                self.assertEqual(self.ask(server, version, 1, "resources/read", {"uri": "nothing://here"}), {
                    "jsonrpc": "2.0", "id": 1, "error": {"code": -32602 if version == MODERN else -32002,
                                                         "message": "Unknown resource: nothing://here",
                                                         "data": {"uri": "nothing://here"}}})
                self.assertEqual(self.ask(server, version, 2, "resources/read", {"uri": "data://fails"}), {
                    "jsonrpc": "2.0", "id": 2, "error": {"code": -32603,
                                                         "message": "Error reading resource data://fails",
                                                         "data": {"uri": "data://fails"}}})
                self.assertEqual(self.ask(server, version, 3, "resources/read", {"uri": "files://../secret"})
                                 ["error"]["message"], "Unknown resource: files://../secret")
                self.assertEqual(self.ask(server, version, 4, "resources/read", {"uri": 7}), {
                    "jsonrpc": "2.0", "id": 4, "error": {
                        "code": -32602, "message": 'Invalid params: resources/read needs "uri" (a string)'}})
                still = self.ask(server, version, 5, "ping" if version != MODERN else "server/discover")
                self.assertIn("result", still)  # still serving
                self.assertEqual(server.close(), 0)
                self.assertIn("RuntimeError: a detail at /srv/secret.py", server.stderr)  # the detail: stderr only

    def test_prompts_in_every_revision(self) -> None:
        for version in ALL_VERSIONS:
            with self.subTest(version=version):
                server = self.start(version)
                greeting = {"role": "user", "content": {"type": "text", "text": "Hello, Ada! Hello, Ada!"}}
                self.assertEqual(self.ask(server, version, 1, "prompts/get", {"name": "greet", "arguments": {
                    "name": "Ada", "times": "2"}}), self.frame(version, 1, {"description": "Greet someone.",
                                                                           "messages": [greeting]}))
                audio = {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}
                if version < "2025-03-26":
                    audio = {"type": "text", "text": f"[audio content, audio/wav, not supported by {version}]"}
                rich = self.ask(server, version, 2, "prompts/get", {"name": "rich"})["result"]["messages"]
                self.assertEqual(rich[2], {"role": "assistant", "content": audio})
                self.assertEqual(self.ask(server, version, 3, "prompts/get", {"name": "greet"}), {
                    "jsonrpc": "2.0", "id": 3, "error": {
                        "code": -32602, "message": "Missing required arguments for prompt greet: name"}})
                self.assertEqual(self.ask(server, version, 4, "prompts/get", {"name": "fails_prompt", "arguments": {
                    "reason": "x"}}), {"jsonrpc": "2.0", "id": 4, "error": {
                        "code": -32603, "message": "Error rendering prompt fails_prompt"}})

    def test_completion_in_every_revision(self) -> None:
        for version in ALL_VERSIONS:
            with self.subTest(version=version):
                server = self.start(version)
                params = {"ref": {"type": "ref/resource", "uri": "weather://{city}/{day}"},
                          "argument": {"name": "day", "value": ""}, "context": {"arguments": {"city": "oslo"}}}
                self.assertEqual(self.ask(server, version, 1, "completion/complete", params), self.frame(
                    version, 1, {"completion": {"values": ["oslo-1", "oslo-2"], "total": 7, "hasMore": True}}))

    def test_pages_and_cursors(self) -> None:
        server = self.start("2025-11-25")
        first = server.request(1, "prompts/list", {"cursor": "8"})["result"]
        self.assertEqual([p["name"] for p in first["prompts"]], ["plain_value"])
        self.assertEqual(server.request(2, "resources/templates/list", {"cursor": "99"}), {
            "jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Invalid params: unknown cursor"}})

    def test_subscriptions_notify_over_the_pipe(self) -> None:
        server = self.start("2025-11-25")
        self.assertEqual(server.request(1, "resources/subscribe", {"uri": "config://app"}),
                         {"jsonrpc": "2.0", "id": 1, "result": {}})
        server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": {"name": "touch", "arguments": {"uri": "config://app"}}})
        self.assertEqual(server.recv(), {"jsonrpc": "2.0", "method": "notifications/resources/updated",
                                         "params": {"uri": "config://app"}})
        self.assertEqual(server.recv()["id"], 2)
        self.assertEqual(server.request(3, "resources/unsubscribe", {"uri": "config://app"})["result"], {})
        self.assertEqual(server.request(4, "tools/call", {"name": "touch", "arguments": {"uri": "config://app"}})
                         ["id"], 4)  # and no notification before it
        modern = self.start(MODERN)
        self.assertEqual(self.ask(modern, MODERN, 1, "resources/subscribe", {"uri": "config://app"}), {
            "jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found: resources/subscribe"}})


if __name__ == "__main__":
    unittest.main()

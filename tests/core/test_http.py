"""Streamable HTTP: raw http.client against mcp_ref's own server on 127.0.0.1
(an ephemeral port), in both eras, asserting statuses, headers and whole frames.

* 2026-07-28: stateless POSTs; the standard headers checked against the body
  (-32020), x-mcp-header's Mcp-Param headers, the error-code to HTTP-status table.
* 2025-03-26 .. 2025-11-25: sessions (Mcp-Session-Id, 400, 404, DELETE), the
  GET stream, MCP-Protocol-Version, batches in 2025-03-26.
* Hostile bodies and headers, slow clients, clients that disconnect mid-stream,
  many concurrent streams, request timeouts, SIGTERM.
* The edge: loopback binds however spelled, RFC 9112 framing, read deadlines,
  the per-client connection cap, the process's fds and stderr, SIGTERM drains.
* In process: the ``stream`` hook a call uses to send before its response,
  the GET stream, bearer tokens and the protected-resource metadata.
* gunicorn (when installed: .ci/run installs it) with several workers.
"""

from tests._testing import HERE  # the repository's root
from tests._testing import python_command  # a server's command line, on the module under test

import base64
import http.client
import io
import json
import os
import re
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

import mcp_ref  # noqa: E402


sys.path.insert(0, HERE)


SERVER = os.path.join(HERE, "tests", "testdata", "http_server.py")

CLI = os.path.join(HERE, "mcp_ref.py")

MODERN = "2026-07-28"

META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}

INFO = {"io.modelcontextprotocol/serverInfo": {"name": "http-test", "version": "1.0"}}

ACCEPT = "application/json, text/event-stream"


class Response:
    def __init__(self, status: int, headers: Dict[str, str], body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body

    def json(self) -> Any:
        return json.loads(self.body)

    def events(self) -> List[Any]:
        """The JSON messages of an SSE body, in order (comments skipped)."""
        out = []
        for line in self.body.decode().splitlines():
            if line.startswith("data:"):
                out.append(json.loads(line[5:]))
        return out


class Endpoint:
    """An MCP endpoint at 127.0.0.1:port/mcp, spoken to with http.client."""

    port = 0

    def request(self, method: str, body: Any = None, headers: Optional[Dict[str, str]] = None,
                path: str = "/mcp", timeout: float = 10.0) -> Response:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        all_headers = {"Content-Type": "application/json", "Accept": ACCEPT}
        all_headers.update(headers or {})
        try:
            conn.request(method, path, body=data, headers={k: v for k, v in all_headers.items() if v is not None})
            response = conn.getresponse()
            return Response(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
        finally:
            conn.close()

    def modern(self, method: str, params: Optional[Dict[str, Any]] = None, id_: Any = 1,
               headers: Optional[Dict[str, str]] = None) -> Response:
        params = dict(params or {}, _meta=META)
        standard = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
        if method == "tools/call":
            standard["Mcp-Name"] = params["name"]
        standard.update(headers or {})
        return self.request("POST", {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}, standard)

    def initialize(self, version: str = "2025-11-25") -> str:
        reply = self.request("POST", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        assert reply.status == 200, reply.body
        session = reply.headers["mcp-session-id"]
        self.request("POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}, {"Mcp-Session-Id": session})
        return session

    def in_session(self, session: str, message: Any, version: str = "2025-11-25") -> Response:
        return self.request("POST", message, {"Mcp-Session-Id": session, "MCP-Protocol-Version": version})


class ServerProcess(Endpoint):
    """testdata/http_server.py on an ephemeral port, in its own process."""

    def __init__(self, options: Optional[Dict[str, Any]] = None, env: Optional[Dict[str, str]] = None,
                 command: Optional[List[str]] = None) -> None:
        command = command or python_command(SERVER, "0", json.dumps(options or {}))
        self.process = subprocess.Popen(command, stderr=subprocess.PIPE, env=dict(os.environ, **(env or {})))
        line = self.process.stderr.readline().decode()  # type: ignore[union-attr]
        assert "serving" in line, line
        self.port = int(line.rsplit(":", 1)[1].split("/")[0])
        self.drain = threading.Thread(target=self.process.stderr.read, daemon=True)  # type: ignore[union-attr]
        self.drain.start()

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.terminate()
        code = self.process.wait(10)
        self.drain.join(5)
        self.process.stderr.close()  # type: ignore[union-attr]
        return code


class InProcess(Endpoint):
    """An app served by mcp_ref's HTTP server on a thread of this process."""

    def __init__(self, server: mcp_ref.MCPServer, **options: Any) -> None:
        self.app = server.streamable_http_app(**options)
        self.httpd = mcp_ref._HttpServer(self.app, "127.0.0.1", 0)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.app.close()
        self.httpd.server_close()


def error_of(reply: Response) -> Tuple[int, int, Any]:
    body = reply.json()
    return reply.status, body["error"]["code"], body.get("id")


class SharedServer(unittest.TestCase):
    server: ServerProcess

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = ServerProcess()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.stop()


class ModernEraTest(SharedServer):
    def test_call_is_answered_with_one_json_object(self) -> None:
        reply = self.server.modern("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}, id_=7)
        self.assertEqual(reply.status, 200)
        self.assertEqual(reply.headers["content-type"], "application/json")
        self.assertNotIn("mcp-session-id", reply.headers)
        self.assertEqual(reply.json(), {"jsonrpc": "2.0", "id": 7, "result": {
            "content": [{"type": "text", "text": "5"}], "structuredContent": {"result": 5}, "isError": False,
            "resultType": "complete", "_meta": INFO}})

    def test_discover_and_list(self) -> None:
        discover = self.server.modern("server/discover").json()["result"]
        self.assertEqual(discover["supportedVersions"], [MODERN])
        names = [t["name"] for t in self.server.modern("tools/list").json()["result"]["tools"]]
        self.assertEqual(names, ["add", "sleepy", "waits", "regional"])

    def test_error_codes_map_to_http_statuses(self) -> None:
        s = self.server
        self.assertEqual(error_of(s.modern("nope/nothing", id_=3)), (404, -32601, 3))
        for removed in ("initialize", "ping", "logging/setLevel"):
            self.assertEqual(error_of(s.modern(removed, id_=4))[:2], (404, -32601), removed)
        self.assertEqual(error_of(s.modern("tools/call", {"name": "missing"}, id_=5)), (400, -32602, 5))
        # initialize with only the revision in _meta: still no method of 2026-07-28.
        half = {"io.modelcontextprotocol/protocolVersion": MODERN}
        initialize = s.request("POST", {"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"},
            "_meta": half}}, {"MCP-Protocol-Version": MODERN, "Mcp-Method": "initialize"})
        self.assertEqual(error_of(initialize), (404, -32601, 9))
        self.assertNotIn("mcp-session-id", initialize.headers)
        no_meta = s.request("POST", {"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": {}},
                            {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"})
        self.assertEqual(error_of(no_meta), (400, -32602, 6))
        old = dict(META, **{"io.modelcontextprotocol/protocolVersion": "1999-01-01"})
        unsupported = s.request("POST", {"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {"_meta": old}},
                                {"MCP-Protocol-Version": "1999-01-01", "Mcp-Method": "tools/list"})
        self.assertEqual(error_of(unsupported), (400, -32022, 8))
        self.assertEqual(unsupported.json()["error"]["data"], {"supported": [MODERN], "requested": "1999-01-01"})

    def test_headers_must_agree_with_the_body(self) -> None:
        s = self.server
        call = {"name": "add", "arguments": {"a": 1}}
        for headers in ({"MCP-Protocol-Version": None}, {"MCP-Protocol-Version": "2025-11-25"},
                        {"Mcp-Method": None}, {"Mcp-Method": "TOOLS/CALL"}, {"Mcp-Name": None},
                        {"Mcp-Name": "sub"}, {"Mcp-Name": "=?base64?YWRk?"}, {"Mcp-Name": "=?base64?!!!?="}):
            with self.subTest(headers=headers):
                reply = s.modern("tools/call", call, id_=9, headers=headers)  # type: ignore[arg-type]
                self.assertEqual(error_of(reply), (400, -32020, 9))
                self.assertTrue(reply.json()["error"]["message"].startswith("Header mismatch: "))
        encoded = "=?base64?" + base64.b64encode(b"add").decode() + "?="
        for name in (encoded, "  add  "):
            self.assertEqual(s.modern("tools/call", call, headers={"Mcp-Name": name}).status, 200, name)

    def test_mcp_param_headers_mirror_x_mcp_header_arguments(self) -> None:
        s = self.server
        args = {"region": "us-west1", "query": "q", "limit": 5, "verbose": True}
        good = {"Mcp-Param-Region": "us-west1", "Mcp-Param-Limit": "5", "Mcp-Param-Verbose": "true"}
        reply = s.modern("tools/call", {"name": "regional", "arguments": args}, headers=good)
        self.assertEqual(reply.json()["result"]["content"][0]["text"], "us-west1:q:5:True")
        self.assertEqual(s.modern("tools/call", {"name": "regional", "arguments": args},
                                  headers=dict(good, **{"Mcp-Param-Limit": "5.0"})).status, 200)
        umlaut = dict(args, region="Zürich")
        sentinel = "=?base64?" + base64.b64encode("Zürich".encode()).decode() + "?="
        self.assertEqual(s.modern("tools/call", {"name": "regional", "arguments": umlaut},
                                  headers=dict(good, **{"Mcp-Param-Region": sentinel})).status, 200)
        bad = [dict(good, **{"Mcp-Param-Region": "eu"}), dict(good, **{"Mcp-Param-Region": None}),
               dict(good, **{"Mcp-Param-Verbose": "True"}), dict(good, **{"Mcp-Param-Limit": "6"}),
               dict(good, **{"Mcp-Param-Region": "=?base64?%%%?="})]
        for headers in bad:
            with self.subTest(headers=headers):
                reply = s.modern("tools/call", {"name": "regional", "arguments": args}, id_=2, headers=headers)
                self.assertEqual(error_of(reply), (400, -32020, 2))
        # An x-mcp-header integer outside JavaScript's safe range (2**53 - 1) is refused, whatever
        # its header says ("x-mcp-header": integer values MUST be within that range).
        for limit, header in ((2 ** 53 - 1, True), (-(2 ** 53 - 1), True), (2 ** 53, False), (-(2 ** 53), False)):
            with self.subTest(limit=limit):
                reply = s.modern("tools/call", {"name": "regional", "arguments": dict(args, limit=limit)}, id_=3,
                                 headers=dict(good, **{"Mcp-Param-Limit": str(limit)}))
                if header:
                    self.assertEqual(reply.status, 200)
                else:
                    self.assertEqual(error_of(reply), (400, -32020, 3))
                    self.assertIn("outside JavaScript's safe range", reply.json()["error"]["message"])
        # An argument absent from the body: its header must be absent too.
        partial = {"region": "us", "query": "q"}
        self.assertEqual(s.modern("tools/call", {"name": "regional", "arguments": partial},
                                  headers={"Mcp-Param-Region": "us"}).status, 200)
        self.assertEqual(error_of(s.modern("tools/call", {"name": "regional", "arguments": partial},
                                           headers={"Mcp-Param-Region": "us", "Mcp-Param-Limit": "10"}))[:2],
                         (400, -32020))

    def test_notifications_responses_get_and_delete(self) -> None:
        s = self.server
        note = s.request("POST", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                  "params": {"requestId": 1, "_meta": META}}, {"MCP-Protocol-Version": MODERN})
        self.assertEqual((note.status, note.body), (202, b""))
        posted = s.request("POST", {"jsonrpc": "2.0", "id": 1, "result": {}})
        self.assertEqual(error_of(posted), (400, -32600, None))
        for verb in ("GET", "DELETE"):
            reply = s.request(verb, headers={"MCP-Protocol-Version": MODERN})
            self.assertEqual((reply.status, reply.headers.get("allow")), (405, "POST"), verb)
        # A session id on a modern request is ignored, and none is minted.
        reply = s.modern("tools/list", headers={"Mcp-Session-Id": "not-a-session"})
        self.assertEqual(reply.status, 200)
        self.assertNotIn("mcp-session-id", reply.headers)


class HandshakeEraTest(SharedServer):
    def test_session_lifecycle(self) -> None:
        s = self.server
        session = s.initialize()
        self.assertRegex(session, r"^[0-9a-f]{32}$")
        listed = s.in_session(session, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        self.assertEqual(listed.status, 200)
        self.assertEqual(len(listed.json()["result"]["tools"]), 4)
        called = s.in_session(session, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                        "params": {"name": "add", "arguments": {"a": 1}}})
        self.assertEqual(called.json(), {"jsonrpc": "2.0", "id": 2, "result": {
            "content": [{"type": "text", "text": "2"}], "structuredContent": {"result": 2}, "isError": False}})
        # Errors within a session are JSON-RPC's, on a 200.
        self.assertEqual(error_of(s.in_session(session, {"jsonrpc": "2.0", "id": 3, "method": "nope"})),
                         (200, -32601, 3))
        self.assertEqual(s.request("DELETE", headers={"Mcp-Session-Id": session}).status, 200)
        gone = s.in_session(session, {"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
        self.assertEqual(gone.status, 404)
        self.assertEqual(s.request("DELETE", headers={"Mcp-Session-Id": session}).status, 404)

    def test_requests_need_a_session(self) -> None:
        s = self.server
        reply = s.request("POST", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                          {"MCP-Protocol-Version": "2025-11-25"})
        self.assertEqual(error_of(reply), (400, -32602, 1))
        self.assertEqual(s.in_session("f" * 32, {"jsonrpc": "2.0", "id": 1, "method": "ping"}).status, 404)
        self.assertEqual(s.request("GET", headers={"Accept": "text/event-stream"}).status, 400)
        self.assertEqual(s.request("DELETE").status, 400)

    def test_protocol_version_header(self) -> None:
        s = self.server
        session = s.initialize("2025-06-18")
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        self.assertEqual(s.in_session(session, ping, "2025-06-18").status, 200)
        self.assertEqual(s.request("POST", ping, {"Mcp-Session-Id": session}).status, 200)  # absent: 2025-03-26
        self.assertEqual(error_of(s.in_session(session, ping, "2099-01-01")), (400, -32600, None))

    def test_get_stream_one_per_session(self) -> None:
        s = self.server
        session = s.initialize()
        conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=5)
        conn.request("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": session})
        stream = conn.getresponse()
        self.assertEqual((stream.status, stream.getheader("Content-Type")), (200, "text/event-stream"))
        self.assertEqual(stream.getheader("X-Accel-Buffering"), "no")
        # The priming event (2025-11-25 basic/transports, "Resumability and Redelivery"): an id, no data.
        self.assertRegex(b"".join(stream.readline() for _ in range(4)), rb"\Aid: \d+\nretry: 1000\ndata: \n\n\Z")
        second = s.request("GET", headers={"Accept": "text/event-stream", "Mcp-Session-Id": session})
        self.assertEqual(second.status, 409)
        self.assertEqual(s.request("GET", headers={"Accept": "application/json", "Mcp-Session-Id": session}).status,
                         406)
        s.request("DELETE", headers={"Mcp-Session-Id": session})  # ends the stream
        stream.read()
        conn.close()

    def test_batches_in_2025_03_26_only(self) -> None:
        s = self.server
        old = s.initialize("2025-03-26")
        batch = [{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1}}},
                 {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}},
                 {"jsonrpc": "2.0", "id": 2, "method": "ping"}]
        reply = s.in_session(old, batch, "2025-03-26")
        self.assertEqual(reply.status, 200)
        self.assertEqual(sorted(m["id"] for m in reply.json()), [1, 2])
        self.assertEqual(s.in_session(old, batch[1:2], "2025-03-26").status, 202)
        new = s.initialize("2025-11-25")
        self.assertEqual(error_of(s.in_session(new, batch)), (400, -32600, None))
        # Refused as on stdio, by the same rule (_Connection.batch_refused): the revision first.
        for session, version, text in ((new, "2025-11-25", "JSON-RPC batches are not part of protocol revision "
                                                           "2025-11-25"), (old, "2025-03-26", "empty batch")):
            reply = s.in_session(session, [], version)
            self.assertEqual((reply.status, reply.json()["error"]), (400, {
                "code": -32600, "message": f"Invalid Request: {text}"}))

    def test_client_responses_are_accepted(self) -> None:
        session = self.server.initialize()
        reply = self.server.in_session(session, {"jsonrpc": "2.0", "id": "s1", "result": {}})
        self.assertEqual((reply.status, reply.body), (202, b""))


class HostileTest(SharedServer):
    def test_bodies(self) -> None:
        s = self.server
        cases = [(b"{nope", (400, -32700, None)), (b"\xff\xfe{}", (400, -32700, None)),
                 (b"[]", (400, -32600, None)), (b"42", (400, -32600, None)), (b"NaN", (400, -32700, None)),
                 (b"[" * 100 + b"]" * 100, (400, -32600, None)), (b"[" * 50000, (400, -32700, None))]
        for body, expected in cases:
            with self.subTest(body=body[:20]):
                self.assertEqual(error_of(s.request("POST", body)), expected)
        # Why a body is no JSON, in the words stdio uses (test_robustness: each reason there).
        for body, reason in ((b"{nope", "not valid JSON"), (b"\xff\xfe{}", "invalid UTF-8"),
                             (b"NaN", "not valid JSON"), (b"[" * 50000, "nested too deeply")):
            with self.subTest(body=body[:20]):
                self.assertEqual(s.request("POST", body).json()["error"]["message"], f"Parse error: {reason}")

    def test_size_limit(self) -> None:
        s = self.server
        big = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "a" * 70000}}
        self.assertEqual(error_of(s.request("POST", big)), (413, -32600, None))
        # Refused on its Content-Length, before a byte of it is read.
        sock = socket.create_connection(("127.0.0.1", s.port), timeout=5)
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Accept: application/json, text/event-stream\r\nContent-Length: 999999999\r\n\r\n")
        self.assertIn(b" 413 ", sock.recv(4096).split(b"\r\n")[0])
        sock.close()

    def test_media_types(self) -> None:
        s = self.server
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        self.assertEqual(s.request("POST", ping, {"Content-Type": "text/plain"}).status, 415)
        self.assertEqual(s.request("POST", ping, {"Accept": "application/json"}).status, 406)
        self.assertEqual(s.request("POST", ping, {"Accept": "text/event-stream"}).status, 406)
        self.assertEqual(s.request("POST", ping, {"Accept": None}).status, 406)
        self.assertNotEqual(s.request("POST", ping, {"Accept": "*/*"}).status, 406)
        self.assertEqual(s.request("PUT", ping).status, 405)
        self.assertEqual(s.request("POST", ping, path="/other").status, 404)

    def test_dns_rebinding(self) -> None:
        s = self.server
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        self.assertEqual(error_of(s.request("POST", ping, {"Host": "evil.example"})), (421, -32600, None))
        self.assertEqual(error_of(s.request("POST", ping, {"Origin": "http://evil.example"})), (403, -32600, None))
        for host in ("localhost", f"localhost:{s.port}", f"[::1]:{s.port}", "127.0.0.1"):
            self.assertNotIn(s.request("POST", ping, {"Host": host}).status, (403, 421), host)
        self.assertNotEqual(s.request("POST", ping, {"Origin": f"http://localhost:{s.port}"}).status, 403)

    def test_broken_http(self) -> None:
        s = self.server
        replies = []
        for raw in (b"GARBAGE\r\n\r\n", b"POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                    b"POST /mcp HTTP/1.1\r\n" + b"X-A: b\r\n" * 200 + b"\r\n",
                    b"POST /mcp HTTP/1.1\r\nContent-Length: nope\r\n\r\n",
                    b"POST /mcp HTTP/1.1\r\nX-Big: " + b"a" * 70000 + b"\r\n\r\n",
                    b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n",
                    b"POST /mcp HTTP/1.1\r\n folded: header\r\n\r\n", b"POST /mcp HTTP/2.0\r\n\r\n"):
            sock = socket.create_connection(("127.0.0.1", s.port), timeout=5)
            sock.sendall(raw)
            replies.append(sock.recv(4096).split(b"\r\n")[0])
            sock.close()
        self.assertEqual([line.split(b" ")[1] for line in replies],
                         [b"400", b"411", b"431", b"400", b"431", b"414", b"400", b"400"])
        self.assertEqual(s.modern("tools/list").status, 200)  # and it serves on

    def test_keep_alive_survives_errors(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=5)
        for body in (b"{nope", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()):
            conn.request("POST", "/mcp", body=body, headers={"Content-Type": "application/json", "Accept": ACCEPT})
            response = conn.getresponse()
            response.read()
        self.assertEqual(response.status, 200)  # ping: allowed before initialize (basic/lifecycle)
        conn.close()


class HeaderRulesTest(unittest.TestCase):
    """The rules of 2026-07-28 "Value Encoding" and "x-mcp-header", alone."""

    def test_x_mcp_header_annotations(self) -> None:
        find = mcp_ref._x_mcp_headers

        def schema(**properties: Any) -> Dict[str, Any]:
            return {"type": "object", "properties": properties}

        # A nullable primitive (Optional[str]) takes one: a null value sends no header ("Value Encoding").
        self.assertEqual(find(schema(a={"anyOf": [{"type": "string", "maxLength": 9}, {"type": "null"}],
                                        "default": None, "x-mcp-header": "A"},
                                     b={"type": ["null", "integer"], "x-mcp-header": "B"})),
                         [(("a",), "A", "string"), (("b",), "B", "integer")])
        self.assertEqual(sorted(find(schema(r={"type": "string", "x-mcp-header": "Region"},
                                            o={"type": "object", "properties": {"n": {"type": "integer",
                                                                                      "x-mcp-header": "N"}}}))),
                         [(("o", "n"), "N", "integer"), (("r",), "Region", "string")])
        invalid = [schema(a={"type": "number", "x-mcp-header": "A"}),
                   schema(a={"type": "string", "x-mcp-header": "A b"}),
                   schema(a={"type": "string", "x-mcp-header": "A"}, b={"type": "string", "x-mcp-header": "a"}),
                   schema(a={"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}),
                   schema(a={"anyOf": [{"type": "string", "x-mcp-header": "A"}]}),
                   dict(schema(), **{"x-mcp-header": "Root"})]
        for case in invalid:
            self.assertIsNone(find(case), case)

    def test_an_invalid_annotation_is_refused_at_registration(self) -> None:
        # server/tools and basic/transports/streamable-http, "x-mcp-header": a token,
        # case-insensitively unique, on a string, integer or boolean property reached
        # by properties alone; a client drops a tool that breaks one, so the server
        # refuses it where it is made (InvalidSignature naming the tool and parameter).
        def schema(**properties: Any) -> Dict[str, Any]:
            return {"type": "object", "properties": properties}

        where = "on no property reached by properties alone (not through items, anyOf, oneOf, allOf, not, " \
                "if/then/else or $ref)"
        cases = [
            (schema(n={"type": "number", "x-mcp-header": "N"}),
             "parameter 'n': x-mcp-header 'N' needs a property of type string, integer or boolean, not 'number'"),
            (schema(tags={"type": "array", "items": {"type": "string"}, "x-mcp-header": "Tags"}),
             "parameter 'tags': x-mcp-header 'Tags' needs a property of type string, integer or boolean, not 'array'"),
            (schema(o={"anyOf": [{"type": "number"}, {"type": "null"}], "x-mcp-header": "O"}),
             "parameter 'o': x-mcp-header 'O' needs a property of type string, integer or boolean, not 'number'"),
            (schema(o={"anyOf": [{"type": "string"}, {"type": "integer"}], "x-mcp-header": "O"}),
             "parameter 'o': x-mcp-header 'O' needs a property of type string, integer or boolean, not None"),
            (schema(o={"type": ["string", "integer"], "x-mcp-header": "O"}),
             "parameter 'o': x-mcp-header 'O' needs a property of type string, integer or boolean, not "
             "['string', 'integer']"),
            (schema(a={"type": "string", "x-mcp-header": "A b"}),
             "parameter 'a': x-mcp-header 'A b' is not an HTTP token"),
            (schema(a={"type": "string", "x-mcp-header": ""}), "parameter 'a': x-mcp-header '' is not an HTTP token"),
            (schema(a={"type": "string", "x-mcp-header": "A\r\nX: 1"}),
             "parameter 'a': x-mcp-header 'A\\r\\nX: 1' is not an HTTP token"),
            (schema(a={"type": "string", "x-mcp-header": 7}), "parameter 'a': x-mcp-header 7 is not an HTTP token"),
            (schema(Region={"type": "string", "x-mcp-header": "Region"},
                    region={"type": "string", "x-mcp-header": "region"}),
             "parameter 'region': x-mcp-header 'region' repeats that of parameter 'Region' (the names are "
             "case-insensitive)"),
            (schema(a={"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}),
             f"x-mcp-header 'A' is {where}"),
            (schema(a={"anyOf": [{"type": "string", "x-mcp-header": "A"}]}), f"x-mcp-header 'A' is {where}"),
            (dict(schema(), **{"x-mcp-header": "Root"}), f"x-mcp-header 'Root' is {where}"),
        ]

        def echo(**arguments: Any) -> str:
            return "ok"

        for input_schema, problem in cases:
            with self.subTest(problem=problem):
                server = mcp_ref.MCPServer("h")
                with self.assertRaises(mcp_ref.InvalidSignature) as raised:
                    server.add_tool(echo, name="t", input_schema=input_schema)
                self.assertEqual(str(raised.exception), f"Tool t: {problem}")
                self.assertEqual(server.list_tools(), [])  # never published
        # From a signature too: a number parameter that a Field marks.
        from typing import Annotated

        def scaled(factor: Annotated[float, mcp_ref.Field(json_schema_extra={"x-mcp-header": "Factor"})]) -> str:
            return "x"

        with self.assertRaises(mcp_ref.InvalidSignature) as raised:
            mcp_ref.MCPServer("h").add_tool(scaled)
        self.assertEqual(str(raised.exception), "Tool scaled: parameter 'factor': x-mcp-header 'Factor' needs a "
                                                "property of type string, integer or boolean, not 'number'")

    def test_header_names_fuzzed(self) -> None:
        # Seeded: a name is accepted exactly when it is 1*tchar (RFC 9110 5.6.2).
        import random

        tchar = set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        alphabet = sorted(tchar) + list(' "(),/:;<=>?@[\\]{}\x00\t\r\n\x7fé')
        rng = random.Random(31)
        for _ in range(300):
            name = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4)))
            server = mcp_ref.MCPServer("h")
            good = bool(name) and set(name) <= tchar
            with self.subTest(name=name):
                try:
                    server.add_tool(lambda **a: "", name="t", input_schema={"type": "object", "properties": {
                        "p": {"type": "string", "x-mcp-header": name}}})
                except mcp_ref.InvalidSignature:
                    self.assertFalse(good)
                else:
                    self.assertTrue(good)
                    self.assertEqual(mcp_ref._x_mcp_headers(server.list_tools()[0]["inputSchema"]),
                                     [(("p",), name, "string")])


class StreamTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.server = ServerProcess({"sse_after": 0.2, "keepalive": 0.2, "request_timeout": 3})

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.stop()

    def test_a_long_call_is_answered_on_a_stream(self) -> None:
        reply = self.server.modern("tools/call", {"name": "waits", "arguments": {"seconds": 0.7}}, id_="w")
        self.assertEqual(reply.headers["content-type"], "text/event-stream")
        self.assertEqual(reply.headers["transfer-encoding"], "chunked")
        self.assertIn(b": keepalive\n\n", reply.body)
        self.assertEqual(reply.events()[-1]["result"]["content"][0]["text"], "waited 0.7")

    def test_the_request_timeout(self) -> None:
        reply = self.server.modern("tools/call", {"name": "waits", "arguments": {"seconds": 10}}, id_=5)
        self.assertEqual(reply.events(), [{"jsonrpc": "2.0", "id": 5, "error": {
            "code": -32603, "message": "Internal error: the call did not finish within the server's request timeout"}}])

    def test_closing_the_stream_cancels_the_call(self) -> None:
        marker = os.path.join(tempfile.mkdtemp(), "cancelled")
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=5)
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "waits", "arguments": {"seconds": 30, "marker": marker}, "_meta": META}}
        conn.request("POST", "/mcp", body=json.dumps(body), headers={
            "Content-Type": "application/json", "Accept": ACCEPT, "MCP-Protocol-Version": MODERN,
            "Mcp-Method": "tools/call", "Mcp-Name": "waits"})
        response = conn.getresponse()
        self.assertEqual(response.getheader("Content-Type"), "text/event-stream")
        response.readline()
        conn.sock.shutdown(socket.SHUT_RDWR)  # type: ignore[union-attr]
        conn.close()
        deadline = time.monotonic() + 5
        while not os.path.exists(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertTrue(os.path.exists(marker), "the tool was not cancelled")

    def test_many_concurrent_streams(self) -> None:
        results: List[Any] = [None] * 40

        def one(n: int) -> None:
            name = "waits" if n % 2 else "sleepy"
            reply = self.server.modern("tools/call", {"name": name, "arguments": {"seconds": 0.3}}, id_=n)
            results[n] = (reply.events() or [reply.json()])[-1]

        threads = [threading.Thread(target=one, args=(n,)) for n in range(40)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        self.assertEqual([r["id"] for r in results], list(range(40)))
        self.assertTrue(all(r["result"]["isError"] is False for r in results))

    def test_a_slow_client_holds_up_no_one(self) -> None:
        sock = socket.create_connection(("127.0.0.1", self.server.port), timeout=5)
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{\"jsonrpc\"")  # and then nothing
        started = time.monotonic()
        self.assertEqual(self.server.modern("tools/list").status, 200)
        self.assertLess(time.monotonic() - started, 2)
        sock.close()


class ShutdownTest(unittest.TestCase):
    def test_sigterm_and_sigint_stop_the_server_cleanly(self) -> None:
        for signum in (signal.SIGTERM, signal.SIGINT):
            server = ServerProcess()
            session = server.initialize()
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
            conn.request("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": session})
            stream = conn.getresponse()
            stream.readline()
            started = time.monotonic()
            for _ in range(20):  # a burst: the handler must never wait for a lock the main thread holds
                server.process.send_signal(signum)
            # It exits by itself: stop() would send SIGTERM once more, which kills
            # with -15 if it comes as run() returns (the default handler back).
            self.assertEqual(server.process.wait(10), 0)
            self.assertEqual(server.stop(), 0)
            self.assertLess(time.monotonic() - started, 3)
            conn.close()


def streaming_server() -> mcp_ref.MCPServer:
    """A server whose 'progress' tool sends notifications on its call's stream,
    as Context will: through the _Pending.stream of its call."""
    server = mcp_ref.MCPServer("inproc", version="1")
    box: Dict[str, Any] = {}

    @server.tool()
    def progress(steps: int) -> str:
        conn = box["conn"]()
        call = next(c for calls in conn.pending.values() for c in calls)
        for n in range(steps):
            call.stream(mcp_ref._encode({"jsonrpc": "2.0", "method": "notifications/progress",
                                         "params": {"progressToken": "t", "progress": n}}))
            time.sleep(0.05)
        return "done"

    server._tools["progress"].context_kwarg = "ctx"  # type: ignore[attr-defined]  # runs off the request thread
    server.box = box  # type: ignore[attr-defined]
    return server


class InProcessTest(unittest.TestCase):
    def test_an_unread_body_keeps_the_connection_or_says_close(self) -> None:
        # A 404 leaves the POST's body unread.  A short one is read and dropped, so the
        # connection serves the next request; a long one closes it, and the response
        # says so (RFC 9112, 9.6).  Before, a kept-alive response was followed by a close:
        # the client's next request (the initialize after a 404'd server/discover) met it.
        endpoint = InProcess(mcp_ref.MCPServer("unread"))
        try:
            for size, kept in ((10, True), (65536, True), (200_000, False)):
                with self.subTest(size=size), socket.create_connection(("127.0.0.1", endpoint.port)) as sock:
                    body = b"x" * size
                    sock.sendall(b"POST /nope HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                 b"Content-Length: %d\r\n\r\n%s" % (size, body))
                    reader = sock.makefile("rb")
                    head = b""
                    while not head.endswith(b"\r\n\r\n"):
                        head += reader.readline()
                    self.assertTrue(head.startswith(b"HTTP/1.1 404"), head)
                    self.assertEqual(b"Connection: close" in head, not kept, head)
                    reader.read(int(re.search(rb"Content-Length: (\d+)", head).group(1)))  # type: ignore[union-attr]
                    if kept:
                        sock.sendall(b"GET /nope HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                        self.assertTrue(reader.readline().startswith(b"HTTP/1.1 404"))
                    reader.close()
        finally:
            endpoint.stop()

    def test_a_call_streams_before_its_response(self) -> None:
        server = streaming_server()
        endpoint = InProcess(server)
        original = mcp_ref._HttpExchange.__init__
        made: List[Any] = []

        def remember(self: Any, app: Any, *environ: Any) -> None:
            original(self, app, *environ)
            made.append(self)

        server.box["conn"] = lambda: made[-1]  # type: ignore[attr-defined]
        mcp_ref._HttpExchange.__init__ = remember  # type: ignore[method-assign]
        try:
            reply = endpoint.modern("tools/call", {"name": "progress", "arguments": {"steps": 3}}, id_=1)
        finally:
            mcp_ref._HttpExchange.__init__ = original  # type: ignore[method-assign]
            endpoint.stop()
        self.assertEqual(reply.headers["content-type"], "text/event-stream")
        events = reply.events()
        self.assertEqual([e.get("method") for e in events], ["notifications/progress"] * 3 + [None])
        self.assertEqual(events[-1]["result"]["content"], [{"type": "text", "text": "done"}])
        self.assertTrue(reply.body.startswith(b"event: message\ndata: {"))

    def test_completion_is_rate_limited_per_client_across_sessions(self) -> None:
        # server/utilities/completion: "Implement appropriate rate limiting".  Over HTTP the
        # client is the one its other limits count (_client_of: here the address), whichever
        # session or stateless request it sends: its sessions share one bucket.  Past it,
        # -32600 as past the task limits: 400 outside a session (_HTTP_STATUS), 200 in one.
        server = mcp_ref.MCPServer("limited", completion_rate=0.001, completion_burst=3)
        server.prompt(name="greet")(lambda name: name)
        server.completion()(lambda ref, argument, context: ["Ada"])
        ask = {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}}
        endpoint = InProcess(server)
        try:
            one, two = endpoint.initialize(), endpoint.initialize()
            replies = [endpoint.in_session(session, {"jsonrpc": "2.0", "id": n, "method": "completion/complete",
                                                     "params": ask}) for n, session in enumerate([one, two, one, two])]
            modern = endpoint.modern("completion/complete", ask, id_=9)
        finally:
            endpoint.stop()
        self.assertEqual([r.json()["result"]["completion"]["values"] for r in replies[:3]], [["Ada"]] * 3)
        self.assertEqual((replies[3].status, replies[3].json()["error"]["code"]), (200, -32600))
        self.assertTrue(replies[3].json()["error"]["message"].startswith(
            "Too many completion requests: this client may send 0.001 a second, 3 at once; try again in "))
        self.assertEqual(error_of(modern), (400, -32600, 9))

    def test_the_get_stream_carries_what_belongs_to_no_request(self) -> None:
        endpoint = InProcess(mcp_ref.MCPServer("inproc"))
        try:
            session = endpoint.initialize()
            conn = http.client.HTTPConnection("127.0.0.1", endpoint.port, timeout=5)
            conn.request("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": session})
            stream = conn.getresponse()
            while stream.readline() != b"\n":  # the priming event
                pass
            endpoint.app.sessions[session].write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            self.assertRegex(stream.readline(), rb"\Aid: \d+\n\Z")
            self.assertEqual(stream.readline(), b"event: message\n")
            self.assertEqual(json.loads(stream.readline()[5:]), {
                "jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            conn.close()
        finally:
            endpoint.stop()

    def test_bearer_tokens_and_the_metadata_document(self) -> None:
        class Auth:
            issuer_url = "https://auth.example.com"
            resource_server_url = "http://127.0.0.1/mcp"
            required_scopes = ["mcp:read"]

        class Token:
            def __init__(self, scopes: List[str]) -> None:
                self.scopes, self.expires_at, self.resource = scopes, None, "http://127.0.0.1/mcp"

        async def verify(token: str) -> Optional[Token]:
            return {"good": Token(["mcp:read"]), "weak": Token([])}.get(token)

        verifier = type("Verifier", (), {"verify_token": staticmethod(verify)})()
        endpoint = InProcess(mcp_ref.MCPServer("auth", token_verifier=verifier, auth=Auth()))
        try:
            document = endpoint.request("GET", path="/.well-known/oauth-protected-resource/mcp")
            self.assertEqual(document.json(), {"resource": "http://127.0.0.1/mcp", "bearer_methods_supported": [
                "header"], "authorization_servers": ["https://auth.example.com"], "scopes_supported": ["mcp:read"]})
            self.assertEqual(endpoint.request("GET", path="/.well-known/oauth-protected-resource").status, 200)
            denied = endpoint.modern("tools/list")
            self.assertEqual(denied.status, 401)
            self.assertEqual(denied.headers["www-authenticate"], 'Bearer error="invalid_token", error_description='
                             '"Authentication required", scope="mcp:read", resource_metadata='
                             '"http://127.0.0.1/.well-known/oauth-protected-resource/mcp"')
            self.assertEqual(endpoint.modern("tools/list", headers={"Authorization": "Bearer bad"}).status, 401)
            weak = endpoint.modern("tools/list", headers={"Authorization": "Bearer weak"})
            self.assertEqual(weak.status, 403)
            self.assertIn('error="insufficient_scope"', weak.headers["www-authenticate"])
            self.assertEqual(endpoint.modern("tools/list", headers={"Authorization": "Bearer good"}).status, 200)
        finally:
            endpoint.stop()

    def test_options(self) -> None:
        endpoint = InProcess(streaming_server(), json_response=True, stateless_http=True, allowed_hosts=["*"])
        try:
            reply = endpoint.request("POST", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                     {"MCP-Protocol-Version": "2025-06-18", "Host": "anything.example"})
            self.assertEqual(reply.status, 200)
            self.assertNotIn("mcp-session-id", reply.headers)
            self.assertEqual(len(reply.json()["result"]["tools"]), 1)
            self.assertEqual(endpoint.request("POST", {"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                              {"Accept": "application/json"}).status, 200)
        finally:
            endpoint.stop()


class Token:
    """The SDK's AccessToken, as far as the app reads it."""

    def __init__(self, scopes: List[str], resource: Any = None, claims: Any = None) -> None:
        self.scopes, self.resource, self.claims = scopes, resource, claims
        self.client_id, self.expires_at, self.subject = "app", None, None


class OneFlowTest(unittest.TestCase):
    """One flow per rule (issue 34): a message is classified once, whichever
    transport carries it, and the dispatcher's tables map each method to its
    handler, the same for stdio and HTTP."""

    @staticmethod
    def post(app: Any, message: Dict[str, Any], **headers: str) -> Tuple[str, bytes]:
        body = json.dumps(message).encode()
        environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/mcp", "SCRIPT_NAME": "", "QUERY_STRING": "",
                   "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "HTTP_HOST": "127.0.0.1:8000",
                   "REMOTE_ADDR": "127.0.0.1", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http",
                   "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.version": (1, 0),
                   "wsgi.multithread": True, "wsgi.multiprocess": False, "wsgi.run_once": False,
                   "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)), "HTTP_ACCEPT": ACCEPT}
        environ.update(("HTTP_" + key.upper(), value) for key, value in headers.items())
        status: List[str] = []
        out = b"".join(app(environ, lambda s, h, exc=None: status.append(s)))
        return status[0], out

    def test_a_message_is_classified_once(self) -> None:
        # Before, a 2026-07-28 POST was classified by the HTTP app, then again by handle_message.
        server = mcp_ref.MCPServer("flow")

        @server.tool()
        def add(a: int, b: int = 1) -> int:
            return a + b

        app = server.streamable_http_app()
        calls: List[Any] = []
        classify = mcp_ref._Dispatcher.classify

        def counted(rpc: Any, message: Any) -> Any:
            calls.append(message)
            return classify(rpc, message)

        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": META}}
        with unittest.mock.patch.object(mcp_ref._Dispatcher, "classify", counted):
            status, body = self.post(app, call, mcp_protocol_version=MODERN, mcp_method="tools/call",
                                     mcp_name="add")
        self.assertEqual(status, "200 OK", body)
        self.assertEqual(json.loads(body)["result"]["structuredContent"], {"result": 5})
        self.assertEqual(len(calls), 1)

    def test_dispatch_is_a_table_of_handlers(self) -> None:
        # Before, the tables named methods of the dispatcher as strings, and tools/call as "tools_call".
        for table in (mcp_ref._HANDSHAKE_REQUESTS, mcp_ref._STATELESS_REQUESTS):
            for method, handler in table.items():
                with self.subTest(method=method):
                    self.assertTrue(callable(handler), handler)
        self.assertIs(mcp_ref._HANDSHAKE_REQUESTS["tools/call"], mcp_ref._STATELESS_REQUESTS["tools/call"])


class InlineAnswerTest(unittest.TestCase):
    """A call answered on the POST's own thread goes out as JSON with no
    channel opened (_Pending); one answered elsewhere, or with messages first,
    comes on the channel as before."""

    @staticmethod
    def post(app: Any, message: Dict[str, Any]) -> Any:
        body = json.dumps(message).encode()
        environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/mcp", "HTTP_HOST": "127.0.0.1:8000",
                   "REMOTE_ADDR": "127.0.0.1", "CONTENT_TYPE": "application/json",
                   "CONTENT_LENGTH": str(len(body)), "HTTP_ACCEPT": "application/json, text/event-stream",
                   "HTTP_MCP_PROTOCOL_VERSION": "2026-07-28", "HTTP_MCP_METHOD": "tools/call",
                   "HTTP_MCP_NAME": message["params"]["name"], "wsgi.input": io.BytesIO(body)}
        status: List[Any] = []
        data = b"".join(app(environ, lambda s, h, exc=None: status.append((s, dict(h)))))
        return status[0], data

    def test_no_channel_for_an_answer_on_the_posts_thread(self) -> None:
        server = mcp_ref.MCPServer("inline")

        @server.tool()
        def add(a: int, b: int) -> int:
            return a + b

        @server.tool()
        async def later(a: int) -> int:  # runs on the event loop: another thread answers
            return a

        @server.tool()
        def chatty(ctx: mcp_ref.Context) -> str:  # a message before its response
            ctx.info("working")
            return "done"

        app = server.streamable_http_app()
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                "io.modelcontextprotocol/logLevel": "info"}
        opened: List[Any] = []
        channel_of = mcp_ref._HttpApp._channel

        def spy(app_: Any, conn: Any, method: Any) -> Any:
            opened.append(method)
            return channel_of(app_, conn, method)

        with unittest.mock.patch.object(mcp_ref._HttpApp, "_channel", spy):
            for i, (name, arguments) in enumerate([("add", {"a": 2, "b": 3}), ("later", {"a": 7}),
                                                   ("chatty", {})]):
                del opened[:]
                (status, headers), data = self.post(app, {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                                          "params": {"name": name, "arguments": arguments,
                                                                     "_meta": meta}})
                self.assertEqual(status, "200 OK", data)
                if name == "add":
                    self.assertEqual(opened, [])
                    self.assertEqual(headers["Content-Type"], "application/json")
                    self.assertEqual(json.loads(data)["result"]["structuredContent"], {"result": 5})
                elif name == "chatty":  # the log message first, on the stream
                    self.assertEqual(opened, ["tools/call"])
                    events = [json.loads(line[5:]) for line in data.decode().splitlines() if line.startswith("data:")]
                    self.assertEqual([e.get("method") for e in events], ["notifications/message", None])
                    self.assertEqual(events[-1]["result"]["content"][0]["text"], "done")
                else:
                    self.assertIn(b'"structuredContent":{"result":7}', data)

    def test_pending_orders_a_response_from_any_thread(self) -> None:
        for _ in range(200):
            channel = mcp_ref._ResponseQueue()
            pending = mcp_ref._Pending(lambda channel=channel: channel)
            thread = threading.Thread(target=pending.reply, args=(b"r",))
            thread.start()
            got = pending.settle()
            thread.join()
            if got is None:  # the response came first: kept, no channel
                self.assertTrue(pending.answered)
                self.assertEqual(pending.answer, b"r")
                self.assertEqual(channel.get(0), None)
            else:  # the POST looked first: the response on the channel, nothing kept
                self.assertIs(got, channel)
                self.assertEqual(channel.get(5), (True, b"r", None))
                self.assertFalse(pending.answered)
        cancelled = mcp_ref._Pending(mcp_ref._ResponseQueue)
        cancelled.reply(None)  # a cancelled call: answered, with nothing to send
        self.assertIsNone(cancelled.settle())
        self.assertTrue(cancelled.answered)
        first = mcp_ref._Pending(mcp_ref._ResponseQueue)
        first.send(b"m")
        first.reply(b"r")
        channel = first.settle()
        assert channel is not None
        self.assertEqual([channel.get(0), channel.get(0)], [(False, b"m", None), (True, b"r", None)])


if __name__ == "__main__":
    unittest.main()

"""Streamable HTTP (sections 19-22) as the layers refine it: the tests of the topic that need a layer
(SDK fidelity, patterns, the client, the command line or the accelerators); the
core's own are in tests/core/test_http.py.

Streamable HTTP: raw http.client against mcp_ref's own server on 127.0.0.1
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

import base64
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import unittest
import unittest.mock
from typing import Any, Optional, Tuple

import mcp_ref  # noqa: E402

from tests.core.test_access import AuthSettings, _BearerTokenTestShared
from tests.core.test_http import (ACCEPT, CLI, Endpoint, InProcess, META, MODERN, SERVER, ServerProcess, SharedServer,
    error_of)


sys.path.insert(0, HERE)


class HeaderRulesTest(unittest.TestCase):
    """The rules of 2026-07-28 "Value Encoding" and "x-mcp-header", alone."""

    def test_header_values(self) -> None:
        text = mcp_ref._header_text
        self.assertEqual(text("plain"), "plain")
        self.assertEqual(text("=?base64?" + base64.b64encode("Zürich".encode()).decode() + "?="), "Zürich")
        self.assertEqual(text("=?base64?YWJj?"), "=?base64?YWJj?")  # no ?= suffix: literal
        for bad in ("=?base64?YWJ?=", "=?base64?YW Jj?=", "=?base64?//8=?=", "caf\u00e9", "a\x00b", None):
            self.assertIsNone(text(bad), bad)
        self.assertEqual(mcp_ref._header_value("Zürich"), "=?base64?WsO8cmljaA==?=")
        self.assertEqual(mcp_ref._header_value(" padded "), "=?base64?IHBhZGRlZCA=?=")
        self.assertEqual(mcp_ref._header_value("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")


class InProcessTest(unittest.TestCase):
    def test_a_tools_missing_capability_is_a_400(self) -> None:
        # basic/index: -32021 is "400 Bad Request" on HTTP, also when a tool's
        # question finds the capability undeclared (after the call started).
        server = mcp_ref.MCPServer("inproc")

        @server.tool()
        async def sample(ctx: mcp_ref.Context) -> str:
            result = await ctx.session.create_message(messages=[], max_tokens=5)
            return str(result)

        endpoint = InProcess(server)
        try:
            reply = endpoint.modern("tools/call", {"name": "sample", "arguments": {}}, id_=4)
        finally:
            endpoint.stop()
        self.assertEqual(error_of(reply), (400, -32021, 4))
        self.assertEqual(reply.json()["error"]["data"], {"requiredCapabilities": {"sampling": {}}})

    def test_a_resource_logs_and_asks_on_the_posts_stream(self) -> None:
        # In a session, a resource's function that takes a Context runs off the
        # request's thread: its log line and its question go out on the POST's SSE
        # stream while it runs, the answer comes in another POST (as a tool's).
        server = mcp_ref.MCPServer("inproc")

        @server.resource("notes://{topic}")
        def note(topic: str, ctx: mcp_ref.Context) -> str:
            ctx.info(f"reading {topic}")
            asked = [{"role": "user", "content": {"type": "text", "text": topic}}]
            return str(ctx.session.create_message(asked, max_tokens=5).result().content.text)

        endpoint = InProcess(server)
        try:
            reply = endpoint.request("POST", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {"sampling": {}},
                "clientInfo": {"name": "t", "version": "1"}}})
            session = reply.headers["mcp-session-id"]
            endpoint.in_session(session, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            conn = http.client.HTTPConnection("127.0.0.1", endpoint.port, timeout=5)
            conn.request("POST", "/mcp", body=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                                                          "params": {"uri": "notes://cats"}}),
                         headers={"Content-Type": "application/json", "Accept": ACCEPT, "Mcp-Session-Id": session,
                                  "MCP-Protocol-Version": "2025-11-25"})
            stream = conn.getresponse()
            self.assertEqual(stream.getheader("Content-Type"), "text/event-stream")

            def event() -> Any:
                while True:
                    line = stream.readline()
                    if line.startswith(b"data: ") and line != b"data: \n":  # not the priming event
                        return json.loads(line[6:])

            self.assertEqual(event(), {"jsonrpc": "2.0", "method": "notifications/message",
                                       "params": {"level": "info", "data": "reading cats"}})
            asked = event()
            self.assertEqual(asked, {"jsonrpc": "2.0", "id": "mcp_ref-1", "method": "sampling/createMessage",
                                     "params": {"messages": [{"role": "user", "content": {"type": "text",
                                                                                          "text": "cats"}}],
                                                "maxTokens": 5}})
            answered = endpoint.in_session(session, {"jsonrpc": "2.0", "id": asked["id"], "result": {
                "role": "assistant", "content": {"type": "text", "text": "purr"}, "model": "m"}})
            self.assertEqual(answered.status, 202)
            self.assertEqual(event(), {"jsonrpc": "2.0", "id": 1, "result": {
                "contents": [{"uri": "notes://cats", "mimeType": "text/plain", "text": "purr"}]}})
            conn.close()
            # 2026-07-28: an InputRequiredResult, or -32021 (HTTP 400) without the capability.
            reply = endpoint.modern("resources/read", {"uri": "notes://dogs"}, id_=2,
                                    headers={"Mcp-Name": "notes://dogs"})
            self.assertEqual(error_of(reply), (400, -32021, 2))
            with_sampling = dict(META, **{"io.modelcontextprotocol/clientCapabilities": {"sampling": {}}})
            reply = endpoint.request("POST", {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {
                "uri": "notes://dogs", "_meta": with_sampling}}, {"MCP-Protocol-Version": MODERN,
                                                                   "Mcp-Method": "resources/read",
                                                                   "Mcp-Name": "notes://dogs"})
            # No log level asked for: no log line, and the answer is one JSON object.
            self.assertEqual(reply.headers["content-type"], "application/json")
            self.assertEqual(reply.json()["result"]["resultType"], "input_required")
            self.assertEqual(list(reply.json()["result"]["inputRequests"]), ["sampling_0"])
        finally:
            endpoint.stop()


class BearerTokenTest(_BearerTokenTestShared, unittest.TestCase):
    """tests.core.test_access.BearerTokenTest's requirement (its
    docstring quotes the spec), with the SDK's auth settings and token objects."""

    def test_a_set_up_that_cannot_be_served_is_refused_when_made(self) -> None:
        verifier = type("Verifier", (), {"verify_token": staticmethod(lambda token: None)})()
        for options, words in (
                ({"token_verifier": verifier}, "token_verifier= needs auth= settings with resource_server_url "
                                               "and issuer_url"),
                ({"token_verifier": verifier, "auth": AuthSettings(resource=None)},
                 "needs auth= settings with resource_server_url:"),
                ({"token_verifier": verifier, "auth": AuthSettings(issuer=None)}, "settings with issuer_url:"),
                ({"auth": AuthSettings()}, "auth= needs a token_verifier="),
                ({"token_verifier": verifier, "auth": AuthSettings(resource="https://mcp.example.com/mcp#x")},
                 "without a fragment"),
                ({"token_verifier": verifier, "auth": AuthSettings(resource="mcp.example.com")}, "absolute http"),
                ({"token_verifier": verifier, "auth": AuthSettings(), "scope_hierarchy": {"files": "files:read"}},
                 "scope_hierarchy maps a scope to the list of scopes it implies"),
                ({"scope_hierarchy": {"files": ["files:read"]}}, "scope_hierarchy= needs token_verifier=")):
            with self.subTest(options=sorted(options)):
                for make in (mcp_ref.MCPServer, mcp_ref.FastMCP):
                    with self.assertRaises(ValueError) as caught:
                        make("auth", **options)
                    self.assertIn(words, str(caught.exception))


class CliOverHttpTest(SharedServer):
    def cli(self, *args: str) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
        from tests.layers.test_cli import COMMAND  # from the cached bytecode: test_cli runs the file itself as a script

        return subprocess.run([*COMMAND, *args], capture_output=True, text=True, timeout=60)

    def test_list_and_call_in_both_eras(self) -> None:
        url = f"http://127.0.0.1:{self.server.port}/mcp"
        for protocol in ([], ["--protocol", "2025-11-25"], ["--protocol", "2025-03-26"]):
            run = self.cli("call", url, "add", "a=2", "b=40", *protocol)
            structured = "" if "2025-03-26" in protocol else 'structuredContent:\n  {\n    "result": 42\n  }\n'
            self.assertEqual((run.returncode, run.stdout), (0, f"content:\n  42\n{structured}isError: false\n"),
                             run.stderr)
            listed = self.cli("list", url, *protocol)
            self.assertIn("\nregional(", listed.stdout)
        traced = self.cli("call", url, "add", "a=1", "--trace")
        self.assertIn('-> {"jsonrpc": "2.0", "id": 1, "method": "server/discover"', traced.stderr)
        self.assertEqual(self.cli("call", url, "add", "a=x").returncode, 2)  # the schema refuses it
        self.assertEqual(self.cli("call", url, "nope").returncode, 2)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            closed = probe.getsockname()[1]
        refused = self.cli("list", f"http://127.0.0.1:{closed}/mcp")
        self.assertEqual(refused.returncode, 3)
        self.assertEqual(len(refused.stderr.strip().splitlines()), 1)
        for path in ("/nope", ""):  # issue 25: a hint, rather than a bare 404
            missed = self.cli("list", f"http://127.0.0.1:{self.server.port}{path}")
            self.assertEqual((missed.returncode, missed.stdout), (2, ""), missed.stderr)
            self.assertEqual(missed.stderr, f"mcp_ref: no MCP endpoint at http://127.0.0.1:{self.server.port}{path} "
                                            f"(HTTP 404); MCP servers usually serve at /mcp: "
                                            f"http://127.0.0.1:{self.server.port}{path}/mcp\n")

    def test_serve_http(self) -> None:
        server = ServerProcess(command=[sys.executable, CLI, "serve", os.path.join(HERE, "examples", "weather.py"),
                                        "--http", "127.0.0.1:0"])
        try:
            run = self.cli("call", f"http://127.0.0.1:{server.port}/mcp", "get_temperature", "city=London")
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIn('"result": 17', run.stdout)
        finally:
            self.assertEqual(server.stop(), 0)
        self.assertEqual(self.cli("serve", "x.py", "--http", "nonsense").returncode, 2)
        self.assertEqual(self.cli("list", "x.py", "--http", "1").returncode, 2)


def find_gunicorn() -> Optional[str]:
    candidates = [os.environ.get("MCP_REF_GUNICORN", ""), os.path.join(os.path.dirname(sys.executable), "gunicorn"),
                  os.path.join(HERE, ".cache", "venv", "bin", "gunicorn"), shutil.which("gunicorn") or ""]
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


@unittest.skipUnless(find_gunicorn(), "gunicorn is not installed (pip install gunicorn; .ci/run installs it)")
class GunicornTest(unittest.TestCase):
    def start(self, workers: int) -> Tuple[subprocess.Popen, Endpoint]:  # type: ignore[type-arg]
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        process = subprocess.Popen([str(find_gunicorn()), "-k", "gthread", "--threads", "4", "-w", str(workers),
                                    "-b", f"127.0.0.1:{port}", "--chdir", HERE, "--log-level", "warning",
                                    f'mcp_ref:wsgi_app("{SERVER}")'], stderr=subprocess.DEVNULL)
        endpoint = Endpoint()
        endpoint.port = port
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                endpoint.request("GET")
                return process, endpoint
            except OSError:
                time.sleep(0.1)
        process.kill()
        raise AssertionError("gunicorn did not start")

    def test_stateless_era_on_several_workers(self) -> None:
        process, endpoint = self.start(3)
        try:
            for n in range(30):
                reply = endpoint.modern("tools/call", {"name": "add", "arguments": {"a": n}}, id_=n)
                self.assertEqual(reply.json()["result"]["structuredContent"], {"result": n + 1})
            self.assertEqual(error_of(endpoint.modern("tools/call", {"name": "add"}, headers={"Mcp-Name": "x"}))[:2],
                             (400, -32020))
            slow = endpoint.modern("tools/call", {"name": "waits", "arguments": {"seconds": 0.1}})
            self.assertEqual(slow.json()["result"]["content"][0]["text"], "waited 0.1")
        finally:
            process.terminate()
            process.wait(10)

    def test_sessions_on_one_worker(self) -> None:
        process, endpoint = self.start(1)
        try:
            session = endpoint.initialize()
            reply = endpoint.in_session(session, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                                  "params": {"name": "add", "arguments": {"a": 1}}})
            self.assertEqual(reply.json()["result"]["structuredContent"], {"result": 2})
            self.assertEqual(endpoint.request("DELETE", headers={"Mcp-Session-Id": session}).status, 200)
        finally:
            process.terminate()
            process.wait(10)


if __name__ == "__main__":
    unittest.main()

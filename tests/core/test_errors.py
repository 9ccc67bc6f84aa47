"""Errors as the SDK sends them (server/tools, "Error Handling").

An MCPError raised in a tool, a resource, a prompt or a completion handler
(mcp_ref's, the SDK's ``mcp.shared.exceptions.MCPError`` and its subclasses, or
SDK 1.x's ``McpError``) is the request's JSON-RPC error with its code, message
and data; a ToolError or any other exception in a tool is an ``isError``
result.  testdata/errors_server.py raises each, over real pipes in both eras
and over HTTP; with the SDK installed the same file served by the SDK
(ERRORS_SERVER=sdk) must answer the same frames.
"""

import importlib.util
import os
import runpy
import sys
import unittest
from typing import Any, Dict, List, Tuple

from tests._testing import HERE, mcp_ref, needs_layers

from tests.core.test_http import InProcess
from tests.core.test_wire import ServerProcess


SERVER = os.path.join(HERE, "tests", "testdata", "errors_server.py")

MODERN = "2026-07-28"

META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}

HAVE_SDK = importlib.util.find_spec("mcp") is not None and importlib.util.find_spec("mcp.server") is not None


URL_DATA = {"elicitations": [{"mode": "url", "message": "Sign in", "url": "https://example.com/login",
                              "elicitationId": "e1"}]}

# What each kind of failure raises, as the JSON-RPC error the SDK sends for it.
ERRORS = {
    "data": {"code": -32002, "message": "with data", "data": {"a": [1, 2]}},
    "nodata": {"code": -32001, "message": "no data here"},  # data None: left out
    "params": {"code": -32602, "message": "bad params", "data": "x"},
    "url": {"code": -32042, "message": "URL elicitation required", "data": URL_DATA},
}


# A tool's URL elicitation required error, in 2026-07-28: a round asking the URL
# elicitations, which needs the client's elicitation.url (these clients declare none).
URL_ROUND_REFUSED = {"code": -32021, "message": "Missing required client capability",
                     "data": {"requiredCapabilities": {"elicitation": {"url": {}}}}}


def error_in(kind: str, version: str, method: str = "") -> Dict[str, Any]:
    """ERRORS[kind] as sent in ``version`` by ``method``: 2026-07-28 basic/index,
    "Error Codes", forbids -32002 (-32602 replaced it) and any code of
    -32020..-32099 it does not define, -32042 included (-32603 then; a tool's is
    an InputRequiredResult round); message and data as raised (docs/sdk-differences.md, 52)."""
    error = dict(ERRORS[kind])
    if version == MODERN and error["code"] == -32042 and method == "tools/call":
        return URL_ROUND_REFUSED
    if version == MODERN and error["code"] in (-32002, -32042):
        error["code"] = -32602 if error["code"] == -32002 else -32603
    return error


def requests(kind: str) -> List[Tuple[str, Dict[str, Any]]]:
    """The four places a server's function may raise."""
    return [("tools/call", {"name": "fails", "arguments": {"kind": kind}}),
            ("resources/read", {"uri": f"errors://{kind}"}),
            ("prompts/get", {"name": "prompt", "arguments": {"kind": kind}}),
            ("completion/complete", {"ref": {"type": "ref/prompt", "name": "prompt"},
                                     "argument": {"name": "kind", "value": kind}})]


class Client:
    """One server process, in a session (2025-11-25) or statelessly (2026-07-28)."""

    def __init__(self, test: unittest.TestCase, version: str, raise_: str, sdk: bool = False) -> None:
        self.process = ServerProcess({"ERRORS_RAISE": raise_, "ERRORS_SERVER": "sdk" if sdk else "mcp_ref"},
                                     script=SERVER)
        test.addCleanup(self.process.kill)
        self.version, self.next_id = version, 0
        if version != MODERN:
            self.process.initialize(version)

    def ask(self, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
        """The response, without "jsonrpc" and "id"."""
        self.next_id += 1
        params = dict(params, _meta=META) if self.version == MODERN else params
        reply = self.process.request(self.next_id, method, params)
        assert reply["id"] == self.next_id, reply
        return {k: v for k, v in reply.items() if k not in ("jsonrpc", "id")}


class ErrorsOnTheWireTest(unittest.TestCase):
    def check(self, raise_: str) -> None:
        kinds = [k for k in ERRORS if raise_ != "v1" or k != "url"]
        for version in ("2025-11-25", MODERN):
            client = Client(self, version, raise_)
            for kind in kinds:
                for method, params in requests(kind):
                    with self.subTest(raise_=raise_, version=version, method=method, kind=kind):
                        self.assertEqual(client.ask(method, params), {"error": error_in(kind, version, method)})
            # A resource's MCPError, read by a tool through its Context: the tool's.
            with self.subTest(raise_=raise_, version=version, tool="reads"):
                self.assertEqual(client.ask("tools/call", {"name": "reads", "arguments": {"kind": "data"}}),
                                 {"error": error_in("data", version)})
            # An MCPError from an argument's own code (a dataclass's __post_init__) too.
            with self.subTest(raise_=raise_, version=version, tool="at"):
                self.assertEqual(client.ask("tools/call", {"name": "at", "arguments": {"point": {"x": -1}}}), {
                    "error": {"code": -32003, "message": "a point below zero", "data": {"x": -1}}})
            # A ToolError, and any other exception, stay a tool execution error.
            for kind, text in (("tool", "Error executing tool fails: told"), ("crash", "Error executing tool fails")):
                with self.subTest(raise_=raise_, version=version, kind=kind):
                    result = client.ask("tools/call", {"name": "fails", "arguments": {"kind": kind}})["result"]
                    self.assertEqual((result["content"], result["isError"]), ([{"type": "text", "text": text}], True))

    def test_mcp_ref_mcp_error(self) -> None:
        self.check("ours")

    @needs_layers("sdk")  # SDK 1.x's McpError is recognised by _sdk_error (section 28), not by the core
    def test_sdk_1x_mcp_error(self) -> None:
        # McpError(ErrorData(...)), as SDK 1.x spells it: recognised by its class's name and module.
        self.check("v1")

    @unittest.skipUnless(HAVE_SDK, "the official SDK (pip install 'mcp==2.3.*') is not installed; .ci/run installs it")
    def test_sdk_mcp_error(self) -> None:
        self.check("sdk")

    def test_an_error_without_an_integer_code_is_a_tool_failure(self) -> None:
        server = mcp_ref.MCPServer("e")

        @server.tool()
        def odd() -> str:
            raise mcp_ref.MCPError("E1", "not a JSON-RPC code")  # type: ignore[arg-type]

        with _quiet():
            self.assertEqual(server.call_tool("odd", {}), {
                "content": [{"type": "text", "text": "Error executing tool odd"}], "isError": True})

    def test_in_process_call_tool_raises_it(self) -> None:
        server = _load_server("ours")
        with self.assertRaises(mcp_ref.MCPError) as raised:
            server.call_tool("fails", {"kind": "data"})
        self.assertEqual((raised.exception.code, raised.exception.message, raised.exception.data),
                         (-32002, "with data", {"a": [1, 2]}))

    def test_over_http_the_code_gives_the_status(self) -> None:
        # 2026-07-28 basic/transports/streamable-http: -32602 is 400 (-32002 renumbered
        # to it too); a code of the server's own, or -32603 (what -32042 became), 200.
        endpoint = InProcess(_load_server("ours"))
        self.addCleanup(endpoint.stop)
        for kind, status in (("params", 400), ("data", 400), ("url", 400), ("nodata", 200)):
            with self.subTest(kind=kind):
                reply = endpoint.modern("tools/call", {"name": "fails", "arguments": {"kind": kind}}, id_=3)
                self.assertEqual((reply.status, reply.json()), (status, {"jsonrpc": "2.0", "id": 3, "error": error_in(
                    kind, MODERN, "tools/call")}))

    def test_2026_a_tools_url_elicitation_required_is_a_round(self) -> None:
        # 2026-07-28 removed -32042 (basic/index, "Error Codes"); the client learns the
        # outcome of an out-of-band interaction by retrying the request (changelog,
        # basic/patterns/mrtr): the error's URL elicitations are asked by an
        # InputRequiredResult, without elicitationId; stdio and HTTP alike.
        from tests.core.test_wire import StdioWire, wsgi_post

        server = _load_server("ours")
        meta = {"io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"url": {}}}}
        call = {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                "params": {"name": "fails", "arguments": {"kind": "url"}, "_meta": meta}}
        wire = StdioWire(server)
        self.addCleanup(wire.close)
        app = server.streamable_http_app()
        self.addCleanup(app.close)
        status, frames = wsgi_post(app, call)
        for result in (wire.send(call)[-1]["result"], frames[-1]["result"]):
            self.assertEqual((result["resultType"], result["inputRequests"]), ("input_required", {"elicitation_0": {
                "method": "elicitation/create", "params": {"mode": "url", "message": "Sign in",
                                                           "url": "https://example.com/login"}}}))
        self.assertEqual(status, 200)
        # A handshake session keeps the error as raised (2025-11-25 defines it).
        session = StdioWire(server, "2025-11-25", {"elicitation": {"url": {}}})
        self.addCleanup(session.close)
        self.assertEqual(session.send(dict(call, params={"name": "fails", "arguments": {"kind": "url"}}))[-1]["error"],
                         ERRORS["url"])

    def test_2026_codes_it_forbids_are_renumbered(self) -> None:
        # 2026-07-28 basic/index, "Error Codes": an implementation MUST NOT emit a code
        # of -32020..-32099 the revision does not define, nor -32002 or -32042; its
        # own three (-32020, -32021, -32022) and the legacy -32000..-32019 pass.
        # Seeded: codes from the whole reserved range, on stdio and over HTTP.
        import random

        server = mcp_ref.MCPServer("codes")

        @server.tool()
        def fails(code: int) -> str:
            raise mcp_ref.MCPError(code, "raised", {"code": code})

        @server.resource("codes://{code}")
        def read(code: str) -> str:
            raise mcp_ref.MCPError(int(code), "raised", {"code": int(code)})

        def sent(code: int, version: str) -> int:
            if version != MODERN or code in (-32020, -32021, -32022) or not -32099 <= code <= -32002:
                return code
            return -32602 if code == -32002 else code if code > -32020 else -32603

        codes = [-32002, -32042, -32020, -32021, -32022, -32099, -32019, -32000, -32603, -1, 7]
        codes += random.Random(31).sample(range(-32099, -32019), 6)
        endpoint = InProcess(server)
        self.addCleanup(endpoint.stop)
        for version in ("2025-11-25", MODERN):
            frames = _Frames(server, version)
            self.addCleanup(frames.close)
            for code in codes:
                with self.subTest(version=version, code=code):
                    expected = {"code": sent(code, version), "message": "raised", "data": {"code": code}}
                    self.assertEqual(frames.ask("tools/call", {"name": "fails", "arguments": {"code": code}}),
                                     expected)
                    self.assertEqual(frames.ask("resources/read", {"uri": f"codes://{code}"}), expected)
                    if version == MODERN:
                        reply = endpoint.modern("tools/call", {"name": "fails", "arguments": {"code": code}})
                        self.assertEqual(reply.json()["error"], expected)


@unittest.skipUnless(HAVE_SDK, "the official SDK (pip install 'mcp==2.3.*') is not installed; .ci/run installs it")
class SdkParityTest(unittest.TestCase):
    """The same file, served by the SDK and by mcp_ref, raising the SDK's errors."""

    def test_same_frames(self) -> None:
        for version in ("2025-11-25", MODERN):
            ours, theirs = Client(self, version, "sdk"), Client(self, version, "sdk", sdk=True)
            asked = [r for kind in ERRORS for r in requests(kind)]
            asked += [("tools/call", {"name": "at", "arguments": {"point": {"x": -1}}}),
                      ("tools/call", {"name": "reads", "arguments": {"kind": "data"}}),
                      ("tools/call", {"name": "fails", "arguments": {"kind": "tool"}}),
                      ("tools/call", {"name": "fails", "arguments": {"kind": "crash"}})]
            for method, params in asked:
                with self.subTest(version=version, method=method, params=params):
                    expected = theirs.ask(method, params)
                    error = expected.get("error")
                    if version == MODERN and error is not None and error["code"] in (-32002, -32042):
                        # docs/sdk-differences.md, 52: the SDK sends the codes 2026-07-28 forbids as raised
                        expected = {"error": dict(error, code=-32602 if error["code"] == -32002 else -32603)}
                        if error["code"] == -32042 and method == "tools/call":
                            expected = {"error": URL_ROUND_REFUSED}
                    self.assertEqual(ours.ask(method, params), expected)


class _Frames:
    """A server's stdio connection in this process, in a session of ``version`` or statelessly."""

    def __init__(self, server: Any, version: str) -> None:
        from tests.core.test_wire import StdioWire

        self.version = version
        self.wire = StdioWire(server, version)

    def ask(self, method: str, params: Dict[str, Any]) -> Any:
        """The error of the response (None for a result)."""
        if self.version == MODERN:
            params = dict(params, _meta=META)
        frames = self.wire.send({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        return frames[-1].get("error")

    def close(self) -> None:
        self.wire.close()


def _load_server(raise_: str) -> Any:
    os.environ["ERRORS_RAISE"] = raise_
    try:
        return runpy.run_path(SERVER)["mcp"]
    finally:
        del os.environ["ERRORS_RAISE"]


class _quiet:
    """stderr silenced: the traceback a failing tool logs."""

    def __enter__(self) -> None:
        self.saved = sys.stderr
        sys.stderr = open(os.devnull, "w")

    def __exit__(self, *exc: Any) -> None:
        sys.stderr.close()
        sys.stderr = self.saved


if __name__ == "__main__":
    unittest.main()

"""Extensions (SEP-2133) as the SDK frames them, and MCP Apps (io.modelcontextprotocol/ui).

* The core's declaration (sections 14 and 15): ``capabilities.extensions`` in
  2026-07-28, none in the handshake revisions (the SDK's ServerCapabilities of
  2025-11-25 has no such field); the tasks extension declared through it.
* The SDK's interface (section 28): Extension, ToolBinding, ResourceBinding,
  MethodBinding (params read through a RequestParams subclass, by mcp_ref's own
  introspection; a spec method refused), intercept_tool_call in the order given,
  identifiers checked as the SDK checks them.
* MCP Apps (section 28): Apps, ResourceCsp, ResourcePermissions,
  client_supports_apps, ``ui://`` only, ``_meta.ui`` on tools, resources and contents.
* The client (section 31): the extensions it declares, the server's, send_request.
* Drop-in: examples/apps_sdk.py, a server written for the SDK, served by mcp_ref
  with only its ``from mcp... import`` lines changed, over stdio and HTTP,
  answers the SDK's frames (recorded below; with the SDK installed, compared live).
* examples/extension.py: a server of mcp_ref's own that declares and serves an
  extension, over stdio and HTTP.
* Skills (io.modelcontextprotocol/skills) through the same interface: the
  entries, the files and their digests, directories, the YAML frontmatter subset
  (checked against PyYAML where it is installed), the client's verification.
"""

import asyncio
import contextlib
import importlib.util
import io
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import unittest
from typing import Any, Dict, List, Optional, Tuple

from tests._testing import HERE, end_threads, has_module, mcp_ref, wait_for_port

from tests.core.test_wire import ServerProcess


MCPServer = mcp_ref.MCPServer

Extension, MethodBinding, ToolBinding = mcp_ref.Extension, mcp_ref.MethodBinding, mcp_ref.ToolBinding

ResourceBinding, RequestParams, Apps = mcp_ref.ResourceBinding, mcp_ref.RequestParams, mcp_ref.Apps

MODERN, LEGACY = "2026-07-28", "2025-11-25"

UI = "io.modelcontextprotocol/ui"

APP = "text/html;profile=mcp-app"

APPS_CAPS = {"extensions": {UI: {"mimeTypes": [APP]}}}

SDK_FILE = os.path.join(HERE, "examples", "apps_sdk.py")

OWN_FILE = os.path.join(HERE, "examples", "extension.py")

HAVE_SDK = has_module("mcp") and has_module("mcp_types") and has_module("pydantic")

NEEDS_SDK = "the official SDK (pip install 'mcp==2.3.*') is not installed; CI's venv has it"


_SPEC = importlib.util.spec_from_file_location("_ci_conformance", os.path.join(HERE, ".ci", "conformance.py"))

assert _SPEC is not None and _SPEC.loader is not None

conformance = importlib.util.module_from_spec(_SPEC)

_SPEC.loader.exec_module(conformance)


class Wire:
    """One connection without a transport, in one era: each request's frame
    (its id left out).  ``caps``: the client's capabilities."""

    def __init__(self, server: Any, version: str = MODERN, caps: Optional[Dict[str, Any]] = None) -> None:
        self.server, self.version, self.caps, self.ids = server, version, caps or {}, 0

        class Connection(mcp_ref._Connection):  # type: ignore[misc, name-defined]
            def write(self, message: Any) -> None:
                pass

        self.conn = Connection(server)
        if version != MODERN:
            self.initialize = self.send("initialize", {"protocolVersion": version, "capabilities": self.caps,
                                                       "clientInfo": {"name": "t", "version": "1"}})

    def close(self) -> None:
        end_threads(self.conn)

    def send(self, method: str, params: Optional[Dict[str, Any]] = None, raw: bool = False) -> Any:
        self.ids += 1
        params = dict(params or {})
        if self.version == MODERN and method != "initialize":
            params["_meta"] = dict(params.get("_meta") or {}, **{
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": self.caps})
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": self.ids, "method": method}
        if params or not raw:
            message["params"] = params
        done, replies = threading.Event(), []  # type: Tuple[threading.Event, List[bytes]]

        def reply(data: Optional[bytes]) -> None:
            replies.append(data or b"null")
            done.set()

        frame = self.conn.handle_message(message, reply)
        if frame is mcp_ref._STARTED:
            assert done.wait(30), f"{method} was not answered"
            frame = json.loads(replies[0])
        frame.pop("id")
        frame.pop("jsonrpc")
        if "result" in frame:
            frame["result"].pop("_meta", None)
            frame["result"].pop("resultType", None)
        return frame


class Case(unittest.TestCase):
    maxDiff = None

    def wire(self, server: Any, version: str = MODERN, caps: Optional[Dict[str, Any]] = None) -> Wire:
        wire = Wire(server, version, caps)
        self.addCleanup(wire.close)
        return wire


class GreetParams(RequestParams):
    name: str
    times: int = 1


class Greeter(Extension):
    identifier = "com.example/greeter"

    def __init__(self, handler: Any = None, versions: Any = None) -> None:
        self.handler, self.versions = handler, versions

    def settings(self) -> Dict[str, Any]:
        return {"languages": ["en", "fr"]}

    def methods(self) -> Any:
        return [MethodBinding("greeter/greet", GreetParams, self.handler or greet, self.versions)]


async def greet(ctx: Any, params: GreetParams) -> Dict[str, Any]:
    return {"greeting": ", ".join([f"Hello, {params.name}"] * params.times)}


def binding_of(method: Any) -> Any:
    """An extension that adds one method."""
    class Own(Extension):
        identifier = "com.example/own"

        def methods(self) -> Any:
            return [method]

    return Own()


def any_json(rng: random.Random, depth: int = 2) -> Any:
    if depth <= 0 or rng.random() < 0.6:
        return rng.choice([None, True, False, 0, 1, -1, 2, 10**20, 1.5, "", "2", "x", "é", [], {}])
    if rng.random() < 0.5:
        return [any_json(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(["a", "name", "_meta"]): any_json(rng, depth - 1) for _ in range(rng.randint(0, 3))}


def clock_apps() -> Any:
    apps = Apps()

    @apps.tool(resource_uri="ui://clock/app.html", visibility=["app"], title="Clock")
    def now(ctx: mcp_ref.Context) -> str:
        return "drawn" if mcp_ref.client_supports_apps(ctx) else "It is noon."

    apps.add_html_resource("ui://clock/app.html", "<p>clock</p>", csp=mcp_ref.ResourceCsp(frame_domains=["https://a"]),
                           permissions=mcp_ref.ResourcePermissions(camera={}, geolocation={}), prefers_border=False)
    return apps


class InterfaceTest(Case):
    def test_a_spec_method_is_refused_at_construction(self) -> None:
        for method in ("tools/call", "tools/list", "initialize", "server/discover", "resources/read",
                       "completion/complete", "subscriptions/listen", "ping", "logging/setLevel"):
            with self.subTest(method=method), self.assertRaises(ValueError) as caught:
                MethodBinding(method, GreetParams, greet)
            self.assertEqual(str(caught.exception), f"MethodBinding cannot bind spec method {method!r}; extension "
                             "methods are additive — use Extension.intercept_tool_call or Server.middleware to wrap "
                             "core behaviour")

    def test_an_empty_set_of_revisions_is_refused(self) -> None:
        with self.assertRaisesRegex(ValueError, "^MethodBinding for 'a/b' has an empty protocol_versions set"):
            MethodBinding("a/b", GreetParams, greet, frozenset())

    def test_identifiers_are_checked_as_the_sdk_checks_them(self) -> None:
        for good in (UI, "com.example/greeter", "a.b-c.d9/x_y.z-1", "x/y"):
            mcp_ref.validate_extension_identifier(good, owner="E")
        for bad in ("ui", "com.example/", "/x", "1com/x", "com./x", "com-/x", "com.example/-x", "com.example/x-",
                    "com.example/x y", "a/b/c", None, 5, ""):
            with self.subTest(identifier=bad), self.assertRaises(TypeError) as caught:
                mcp_ref.validate_extension_identifier(bad, owner="E")
            self.assertEqual(str(caught.exception), "E.identifier must be a `vendor-prefix/name` string "
                                                    f"(reverse-DNS prefix required), got {bad!r}")

    def test_a_class_with_a_bad_identifier_fails_when_defined(self) -> None:
        with self.assertRaisesRegex(TypeError, "^Bad.identifier must be"):
            class Bad(Extension):
                identifier = "bad"

    def test_an_instance_identifier_is_checked_when_applied(self) -> None:
        class PerInstance(Extension):
            def __init__(self, identifier: Any) -> None:
                self.identifier = identifier

        self.assertEqual(mcp_ref._extensions_declared(MCPServer(extensions=[PerInstance("com.a/b")])),
                         {"com.a/b": {}})
        for bad in ("nope", None):
            with self.subTest(identifier=bad), self.assertRaisesRegex(TypeError, "^PerInstance.identifier must"):
                MCPServer(extensions=[PerInstance(bad)])
        with self.assertRaisesRegex(TypeError, "^object.identifier must"):
            MCPServer(extensions=[object()])

    def test_an_identifier_or_a_method_given_twice_is_refused(self) -> None:
        with self.assertRaisesRegex(ValueError, "^Extension 'com.example/greeter' is already registered$"):
            MCPServer(extensions=[Greeter(), Greeter()])

        class Other(Extension):
            identifier = "com.example/other"

            def methods(self) -> Any:
                return [MethodBinding("greeter/greet", GreetParams, greet)]

        with self.assertRaisesRegex(ValueError, "^Extension 'com.example/other' binds method 'greeter/greet', which "
                                                "is already registered; extension methods are additive"):
            MCPServer(extensions=[Greeter(), Other()])

    def test_a_method_mcp_ref_serves_itself_is_refused(self) -> None:
        for method in ("tasks/get", "tasks/update", "tasks/result"):  # the tasks extension's (section 16)
            with self.subTest(method=method):
                with self.assertRaisesRegex(ValueError, f"^Extension 'com.example/own' binds method '{method}', "
                                                        "which is already registered"):
                    MCPServer(extensions=[binding_of(MethodBinding(method, GreetParams, greet))])

    def test_the_sdks_annotations_are_there(self) -> None:
        """What an SDK-written extension annotates with, made when first imported."""
        code = ("import sys; sys.path.insert(0, %r); import mcp_ref; before = 'typing' in sys.modules; "
                "from mcp_ref import CallNext, HandlerResult, Visibility, CallToolRequestParams; "
                "print(before, Visibility.__args__, CallNext.__args__[0], HandlerResult, "
                "CallToolRequestParams(name='t', arguments={'a': 1}).arguments)" % HERE)
        out = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.stdout, "False ('model', 'app') typing.Any typing.Any {'a': 1}\n", out.stderr)

    def test_the_defaults_add_nothing(self) -> None:
        class Bare(Extension):
            identifier = "com.example/bare"

        server = MCPServer(extensions=[Bare()])
        self.assertEqual((server.list_tools(), server._methods, server._interceptors), ([], {}, []))
        self.assertEqual(mcp_ref._extensions_declared(server), {"com.example/bare": {}})


class DeclarationTest(Case):
    def test_declared_in_2026_only(self) -> None:
        server = MCPServer("d", extensions=[clock_apps(), Greeter()])
        discovered = self.wire(server).send("server/discover")["result"]["capabilities"]
        self.assertEqual(discovered["extensions"], {UI: {}, "com.example/greeter": {"languages": ["en", "fr"]}})
        for version in ("2024-11-05", "2025-06-18", LEGACY):
            with self.subTest(version=version):
                initialized = self.wire(server, version).initialize["result"]["capabilities"]
                self.assertNotIn("extensions", initialized)

    def test_the_settings_are_read_once(self) -> None:
        class Counting(Extension):
            identifier = "com.example/counting"
            reads = 0

            def settings(self) -> Dict[str, Any]:
                Counting.reads += 1
                return {"reads": Counting.reads}

        server = MCPServer(extensions=[Counting()])
        for _ in range(2):
            self.assertEqual(self.wire(server).send("server/discover")["result"]["capabilities"]["extensions"],
                             {"com.example/counting": {"reads": 1}})

    def test_tasks_declare_themselves_through_the_same_table(self) -> None:
        server = MCPServer("t", extensions=[Greeter()])
        self.assertEqual(mcp_ref._extensions_declared(server), {"com.example/greeter": {"languages": ["en", "fr"]}})
        server.add_tool(lambda: 1, name="slow", task_support="optional")
        self.addCleanup(server._tasks.close)
        self.assertEqual(self.wire(server).send("server/discover")["result"]["capabilities"]["extensions"],
                         {"io.modelcontextprotocol/tasks": {}, "com.example/greeter": {"languages": ["en", "fr"]}})
        legacy = self.wire(server, LEGACY).initialize["result"]["capabilities"]  # 2025-11-25's own capability
        self.assertEqual(legacy["tasks"], {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
        self.assertNotIn("extensions", legacy)
        with self.assertRaisesRegex(ValueError, "'io.modelcontextprotocol/tasks' is already registered"):
            MCPServer(extensions=[type("Tasks", (Extension,), {"identifier": "io.modelcontextprotocol/tasks"})()])


class MethodTest(Case):
    def test_the_params_are_read_through_their_type(self) -> None:
        for version in (MODERN, LEGACY):
            with self.subTest(version=version):
                wire = self.wire(MCPServer(extensions=[Greeter()]), version)
                self.assertEqual(wire.send("greeter/greet", {"name": "Ann", "times": "2"}),
                                 {"result": {"greeting": "Hello, Ann, Hello, Ann"}})  # lax, as pydantic is
                self.assertEqual(wire.send("greeter/greet", {"name": "Bo", "extra": 1}),
                                 {"result": {"greeting": "Hello, Bo"}})  # another key: ignored

    def test_params_that_do_not_fit_are_invalid_params_that_say_why(self) -> None:
        for version in (MODERN, LEGACY):
            wire = self.wire(MCPServer(extensions=[Greeter()]), version)
            with self.subTest(version=version):
                self.assertEqual(wire.send("greeter/greet", {"times": "x"}), {"error": {
                    "code": -32602, "message": "Invalid params for greeter/greet: 2 validation errors for GreetParams\n"
                    "name\n  Field required [type=missing, input_value={'times': 'x'}, input_type=dict]\ntimes\n  "
                    "Input should be a valid integer, unable to parse string as an integer [type=int_parsing, "
                    "input_value='x', input_type=str]"}})
        self.assertEqual(self.wire(MCPServer(extensions=[Greeter()]), LEGACY).send("greeter/greet", raw=True)[
            "error"]["code"], -32602)  # no params: {} is read, and name is required

    def test_the_handler_gets_the_request_context_and_the_meta(self) -> None:
        seen: Dict[str, Any] = {}

        def handler(ctx: Any, params: GreetParams) -> None:
            seen.update(meta=params.meta, version=ctx.protocol_version, apps=mcp_ref.client_supports_apps(ctx),
                        kind=type(params).__name__, caps=ctx.session.client_capabilities.extensions is not None)

        wire = self.wire(MCPServer(extensions=[Greeter(handler)]), MODERN, APPS_CAPS)
        self.assertEqual(wire.send("greeter/greet", {"name": "a", "_meta": {"k": 1}}), {"result": {}})  # None: {}
        self.assertEqual(seen["meta"]["k"], 1)
        self.assertEqual({k: v for k, v in seen.items() if k != "meta"},
                         {"version": MODERN, "apps": True, "kind": "GreetParams", "caps": True})

    def test_what_the_handler_raises(self) -> None:
        codes = iter((-31000, -32099))

        def refuses(ctx: Any, params: GreetParams) -> None:
            raise mcp_ref.MCPError(next(codes), "not today", {"why": "closed"})

        def breaks(ctx: Any, params: GreetParams) -> None:
            raise KeyError("k")

        wire = self.wire(MCPServer(extensions=[Greeter(refuses)]))
        frame = wire.send("greeter/greet", {"name": "a"})
        self.assertEqual(frame, {"error": {"code": -31000, "message": "not today", "data": {"why": "closed"}}})
        # A code of -32020..-32099 that 2026-07-28 does not define is -32603 (basic/index, docs/sdk-differences.md, 52).
        frame = wire.send("greeter/greet", {"name": "a"})
        self.assertEqual(frame, {"error": {"code": -32603, "message": "not today", "data": {"why": "closed"}}})
        with contextlib.redirect_stderr(io.StringIO()) as stderr:  # (logged there, with its traceback)
            frame = self.wire(MCPServer(extensions=[Greeter(breaks)])).send("greeter/greet", {"name": "a"})
        self.assertIn("KeyError: 'k'", stderr.getvalue())
        # The SDK's code: 0 (docs/sdk-differences.md, 50).
        self.assertEqual(frame, {"error": {"code": -32603, "message": "'k'"}})

    def test_a_result_is_an_object(self) -> None:
        with contextlib.redirect_stderr(io.StringIO()):
            frame = self.wire(MCPServer(extensions=[Greeter(lambda ctx, p: [1])])).send("greeter/greet", {"name": "a"})
        self.assertEqual(frame["error"], {"code": -32603, "message": "greeter/greet returned list, not a JSON object"})

    def test_random_params_are_answered(self) -> None:
        """Seeded fuzz: whatever the params, a result or -32602, never -32603 nor silence."""
        rng = random.Random(33)
        echo = Greeter(lambda ctx, p: {"name": p.name, "times": p.times, "meta": p.meta})
        for version in (MODERN, LEGACY):
            wire = self.wire(MCPServer(extensions=[echo]), version)
            for _ in range(300):
                params = {rng.choice(["name", "times", "x", "_meta"]): any_json(rng) for _ in range(rng.randint(0, 3))}
                if "_meta" in params and version == MODERN:
                    params["_meta"] = {}  # (2026-07-28: _meta carries the revision; a non-object is another test's)
                frame = wire.send("greeter/greet", params)
                with self.subTest(version=version, params=params):
                    self.assertTrue("result" in frame or frame["error"]["code"] == -32602, frame)
        deep: Any = "x"
        for _ in range(200):
            deep = {"name": deep}
        self.assertEqual(self.wire(MCPServer(extensions=[Greeter()]), LEGACY).send("greeter/greet", deep)["error"][
            "code"], -32602)

    def test_a_cancelled_request_is_not_answered(self) -> None:
        """basic/utilities/cancellation: a method that waits, cancelled, sends nothing."""
        release, replies = threading.Event(), []  # type: Tuple[threading.Event, List[Any]]

        def waits(ctx: Any, params: GreetParams) -> Dict[str, Any]:
            release.wait(30)
            return {"late": True}

        wire = self.wire(MCPServer(extensions=[Greeter(waits)]), LEGACY)
        done = threading.Event()
        started = wire.conn.handle_message({"jsonrpc": "2.0", "id": 7, "method": "greeter/greet",
                                            "params": {"name": "a"}}, lambda data: (replies.append(data), done.set()))
        self.assertIs(started, mcp_ref._STARTED)
        wire.conn.handle_message({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                  "params": {"requestId": 7}}, lambda data: None)
        release.set()
        self.assertTrue(done.wait(30))
        self.assertEqual(replies, [None])  # (None: nothing is written)

    def test_a_method_of_some_revisions_only(self) -> None:
        server = MCPServer(extensions=[Greeter(versions=frozenset({LEGACY}))])
        self.assertEqual(self.wire(server).send("greeter/greet", {"name": "a"}),
                         {"error": {"code": -32601, "message": "Method not found: greeter/greet"}})
        self.assertEqual(self.wire(server, LEGACY).send("greeter/greet", {"name": "a"}),
                         {"result": {"greeting": "Hello, a"}})

    def test_other_methods_are_still_not_found(self) -> None:
        for version in (MODERN, LEGACY):
            with self.subTest(version=version):
                self.assertEqual(self.wire(MCPServer(extensions=[Greeter()]), version).send("greeter/other"),
                                 {"error": {"code": -32601, "message": "Method not found: greeter/other"}})


class Recorder(Extension):
    def __init__(self, name: str, log: List[str], answer: Any = None, raises: Any = None) -> None:
        self.identifier, self.log, self.answer, self.raises = f"com.example/{name}", log, answer, raises

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        self.log.append(f"{self.identifier[12:]} in {params.name} {params.arguments}")
        if self.raises is not None:
            raise self.raises
        if self.answer is not None:
            return self.answer
        await asyncio.sleep(0)  # an interceptor may wait, whatever the tool is
        result = await call_next(ctx)
        self.log.append(f"{self.identifier[12:]} out {result.is_error} {result.content[0].text}")
        return result


class InterceptTest(Case):
    def server(self, *extensions: Any) -> Any:
        server = MCPServer("i", extensions=list(extensions))

        @server.tool()
        def double(n: int) -> int:
            return 2 * n

        @server.tool()
        async def later(n: int) -> int:
            await asyncio.sleep(0)
            return n

        return server

    def test_composed_in_the_order_given_first_outermost(self) -> None:
        for version in (MODERN, LEGACY):
            log: List[str] = []
            wire = self.wire(self.server(Recorder("a", log), Recorder("b", log)), version)
            for tool in ("double", "later"):
                with self.subTest(version=version, tool=tool):
                    del log[:]
                    frame = wire.send("tools/call", {"name": tool, "arguments": {"n": 3}})
                    self.assertFalse(frame["result"]["isError"])
                    text = frame["result"]["content"][0]["text"]
                    self.assertEqual(log, ["a in %s {'n': 3}" % tool, "b in %s {'n': 3}" % tool,
                                           f"b out False {text}", f"a out False {text}"])

    def test_the_in_process_call_is_intercepted_too(self) -> None:
        log: List[str] = []
        self.assertEqual(self.server(Recorder("a", log)).call_tool("double", {"n": 2})["structuredContent"],
                         {"result": 4})
        self.assertEqual(log, ["a in double {'n': 2}", "a out False 4"])

    def test_an_answer_in_the_tools_place(self) -> None:
        refused = mcp_ref.CallToolResult(content=[mcp_ref.TextContent(type="text", text="no")], is_error=True)
        for answer, sent in ((refused, {"content": [{"type": "text", "text": "no"}], "isError": True}),
                             ({"content": [], "isError": False}, {"content": [], "isError": False})):
            log: List[str] = []
            with self.subTest(answer=answer):
                frame = self.wire(self.server(Recorder("a", log, answer), Recorder("b", log))).send(
                    "tools/call", {"name": "double", "arguments": {"n": 1}})
                self.assertEqual((frame, log), ({"result": sent}, ["a in double {'n': 1}"]))

    def test_what_an_interceptor_raises(self) -> None:
        with contextlib.redirect_stderr(io.StringIO()):
            frame = self.wire(self.server(Recorder("a", [], raises=ValueError("bad")))).send(
                "tools/call", {"name": "double", "arguments": {"n": 1}})
        # The SDK's code: 0 (docs/sdk-differences.md, 50).
        self.assertEqual(frame, {"error": {"code": -32603, "message": "bad"}})
        frame = self.wire(self.server(Recorder("a", [], raises=mcp_ref.MCPError(-32001, "stop")))).send(
            "tools/call", {"name": "double", "arguments": {"n": 1}})
        self.assertEqual(frame, {"error": {"code": -32001, "message": "stop"}})

    def test_an_interceptor_that_returns_no_result(self) -> None:
        with contextlib.redirect_stderr(io.StringIO()):
            frame = self.wire(self.server(Recorder("a", [], answer="x"))).send("tools/call", {"name": "double"})
        self.assertEqual(frame, {"error": {"code": -32603, "message": "an interceptor returned str, not a result"}})

    def test_unknown_tools_and_refused_arguments_as_without_interceptors(self) -> None:
        log: List[str] = []
        wire = self.wire(self.server(Recorder("a", log)))
        self.assertEqual(wire.send("tools/call", {"name": "nope", "arguments": {}})["error"]["code"], -32602)
        frame = wire.send("tools/call", {"name": "double", "arguments": {"n": "x"}})
        self.assertTrue(frame["result"]["isError"])
        self.assertEqual(log[0], "a in double {'n': 'x'}")  # the interceptor sees the call; the tool refuses it


class AppsTest(Case):
    def test_meta_ui_on_tools_resources_and_contents(self) -> None:
        server = MCPServer("clock", extensions=[clock_apps()])
        wire = self.wire(server, MODERN, APPS_CAPS)
        tool = wire.send("tools/list")["result"]["tools"][0]
        self.assertEqual((tool["name"], tool["title"], tool["_meta"]),
                         ("now", "Clock", {"ui": {"resourceUri": "ui://clock/app.html", "visibility": ["app"]}}))
        ui = {"csp": {"frameDomains": ["https://a"]}, "permissions": {"camera": {}, "geolocation": {}},
              "prefersBorder": False}
        self.assertEqual(wire.send("resources/list")["result"]["resources"], [
            {"uri": "ui://clock/app.html", "name": "ui://clock/app.html", "mimeType": APP, "_meta": {"ui": ui}}])
        self.assertEqual(wire.send("resources/read", {"uri": "ui://clock/app.html"})["result"]["contents"], [
            {"uri": "ui://clock/app.html", "mimeType": APP, "text": "<p>clock</p>", "_meta": {"ui": ui}}])

    def test_text_for_a_client_without_apps(self) -> None:
        server = MCPServer("clock", extensions=[clock_apps()])
        for version in (MODERN, LEGACY):
            for caps, text in ((APPS_CAPS, "drawn"), ({}, "It is noon."),
                               ({"extensions": {UI: {}}}, "It is noon."),  # mimeTypes is required
                               ({"extensions": {UI: {"mimeTypes": ["text/html"]}}}, "It is noon.")):
                with self.subTest(version=version, caps=caps):
                    frame = self.wire(server, version, caps).send("tools/call", {"name": "now", "arguments": {}})
                    self.assertEqual(frame["result"]["content"], [{"type": "text", "text": text}])

    def test_in_2026_each_request_says_what_the_client_supports(self) -> None:
        wire = self.wire(MCPServer("clock", extensions=[clock_apps()]), MODERN, APPS_CAPS)
        self.assertEqual(wire.send("tools/call", {"name": "now"})["result"]["content"][0]["text"], "drawn")
        wire.caps = {}
        self.assertEqual(wire.send("tools/call", {"name": "now"})["result"]["content"][0]["text"], "It is noon.")

    def test_ui_scheme_only(self) -> None:
        apps = Apps()
        for uri in ("https://x/app.html", "UI://x", "", None):
            with self.subTest(uri=uri):
                with self.assertRaisesRegex(ValueError, "^MCP Apps URIs must use the ui:// scheme, got "):
                    apps.tool(resource_uri=uri)  # type: ignore[arg-type]
                with self.assertRaisesRegex(ValueError, "^MCP Apps URIs must use the ui:// scheme, got "):
                    apps.add_html_resource(uri, "<p>")  # type: ignore[arg-type]

    def test_what_apps_refuses(self) -> None:
        apps = Apps()
        with self.assertRaisesRegex(ValueError, r"^Apps.tool\(\) owns _meta\['ui'\]"):
            apps.tool(resource_uri="ui://a", meta={"ui": {}})
        with self.assertRaisesRegex(ValueError, r"^visibility is a list of 'model' and 'app', not \['user'\]$"):
            apps.tool(resource_uri="ui://a", visibility=["user"])
        apps.tool(resource_uri="ui://missing")(lambda: "x")
        with self.assertRaisesRegex(ValueError, "^Apps tool '<lambda>' binds resource_uri 'ui://missing', but no such "
                                                "resource is registered"):
            MCPServer(extensions=[apps])
        with self.assertRaisesRegex(ValueError, "^MCP Apps resources are served as 'text/html;profile=mcp-app', got "
                                                "'text/html'$"):
            Apps().add_resource(mcp_ref.TextResource("ui://a", "<p>", mime_type="text/html"))
        with self.assertRaisesRegex(TypeError, "^ResourceCsp has no field 'script_domains'$"):
            mcp_ref.ResourceCsp(script_domains=[])

    def test_a_resource_made_already_and_extra_meta(self) -> None:
        apps = Apps()
        page = mcp_ref.TextResource("ui://page", "<p>")
        apps.add_resource(page)  # its MIME type: Apps'
        self.assertEqual(page.mime_type, "text/plain")  # (the object given is left as it was)
        apps.tool(resource_uri="ui://page", meta={"com.example/k": 1}, name="shown")(lambda: "x")
        server = MCPServer(extensions=[apps])
        self.assertEqual(server.list_resources()[0]["mimeType"], APP)
        self.assertEqual(server.list_tools()[0]["_meta"], {"com.example/k": 1, "ui": {"resourceUri": "ui://page"}})
        self.assertEqual((mcp_ref.EXTENSION_ID, mcp_ref.APP_MIME_TYPE), (UI, APP))

    def test_resources_of_other_extensions_and_required_extensions(self) -> None:
        class Docs(Extension):
            identifier = "com.example/docs"

            def resources(self) -> Any:
                return [ResourceBinding(mcp_ref.TextResource("docs://a", "A"))]

            def tools(self) -> Any:
                return [ToolBinding(self.needs, kwargs={"name": "needs"})]

            def needs(self, ctx: mcp_ref.Context) -> str:
                mcp_ref.require_client_extension(ctx, "com.example/docs")
                return "ok"

        server = MCPServer(extensions=[Docs()])
        self.assertEqual(server.read_resource("docs://a")["contents"][0]["text"], "A")
        self.assertEqual(self.wire(server, MODERN, {"extensions": {"com.example/docs": {}}}).send(
            "tools/call", {"name": "needs"})["result"]["content"][0]["text"], "ok")
        self.assertEqual(self.wire(server).send("tools/call", {"name": "needs"}), {"error": {
            "code": -32021, "message": "Client did not declare required extension 'com.example/docs'",
            "data": {"requiredCapabilities": {"extensions": {"com.example/docs": {}}}}}})


# Each scenario: (revision, the client's capabilities); the requests sent in each.
SCENARIOS = {"legacy": (LEGACY, {}), "legacy+apps": (LEGACY, APPS_CAPS),
             "modern": (MODERN, {}), "modern+apps": (MODERN, APPS_CAPS)}

REQUESTS: List[Tuple[str, Optional[Dict[str, Any]]]] = [
    ("tools/list", {}),
    ("tools/call", {"name": "get_time", "arguments": {}}),
    ("tools/call", {"name": "shout", "arguments": {"text": "quiet"}}),
    ("tools/call", {"name": "shout", "arguments": {"text": "hi"}}),
    ("resources/list", {}),
    ("resources/read", {"uri": "ui://clock/app.html"}),
    ("greeter/greet", {"name": "Ann", "times": 2}),
    ("greeter/greet", {"name": "Bo", "_meta": {"k": 1}}),
    ("greeter/greet", {"times": "x"}),
    ("greeter/greet", None),
]

HTML = """<!doctype html>
<html><body><p id="time">...</p>
<script>
window.addEventListener("message", (event) => {
  const result = event.data && event.data.params && event.data.params.structuredContent;
  if (result) document.getElementById("time").textContent = result.result;
});
</script></body></html>"""

UI_META = {"ui": {"csp": {"connectDomains": ["https://api.example.com"], "resourceDomains": ["https://cdn.example.com"]},
                  "permissions": {"clipboardWrite": {}}, "domain": "clock.example.com", "prefersBorder": True}}


def sdk_frames(apps: bool) -> List[Dict[str, Any]]:
    """What the SDK answers to REQUESTS (recorded from mcp 2.3.0, resultType and
    _meta left out), the invalid params as their code (docs/sdk-differences.md, 51)."""
    text = "12:00" if apps else "It is 12:00."
    result = {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text}, "isError": False}
    return [
        {"result": {"tools": [
            {"name": "get_time", "description": "The time at noon",
             "inputSchema": {"type": "object", "properties": {}, "title": "get_timeArguments"},
             "outputSchema": {"properties": {"result": {"title": "Result", "type": "string"}}, "required": ["result"],
                              "title": "get_timeOutput", "type": "object"},
             "_meta": {"ui": {"resourceUri": "ui://clock/app.html", "visibility": ["model", "app"]}}},
            {"name": "shout", "description": "Shout the text.",
             "inputSchema": {"type": "object", "properties": {"text": {"title": "Text", "type": "string"}},
                             "required": ["text"], "title": "shoutArguments"},
             "outputSchema": {"properties": {"result": {"title": "Result", "type": "string"}}, "required": ["result"],
                              "title": "shoutOutput", "type": "object"},
             "_meta": {"com.example/greeter": {"loud": True}}}]}},
        {"result": result},
        {"result": {"content": [{"type": "text", "text": "Refused: no shouting quietly"}], "isError": True}},
        {"result": {"content": [{"type": "text", "text": "HI"}], "structuredContent": {"result": "HI"},
                    "isError": False}},
        {"result": {"resources": [{"uri": "ui://clock/app.html", "name": "ui://clock/app.html", "title": "Clock",
                                   "mimeType": APP, "_meta": UI_META}]}},
        {"result": {"contents": [{"uri": "ui://clock/app.html", "mimeType": APP, "text": HTML, "_meta": UI_META}]}},
        {"result": {"greeting": "Hello, Ann, Hello, Ann"}},
        {"result": {"greeting": "Hello, Bo"}},
        {"error": -32602},
        {"error": -32602},
    ]


SERVER_EXTENSIONS = {UI: {}, "com.example/greeter": {"languages": ["en", "fr"]}}


def rewritten(directory: str) -> str:
    """examples/apps_sdk.py with every ``from mcp... import`` line now ``from mcp_ref import``."""
    with open(SDK_FILE, encoding="utf-8") as f:
        source = conformance.rewrite_imports(f.read(), None)
    path = os.path.join(directory, "apps_ref.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    return path


def normalised(frame: Dict[str, Any]) -> Dict[str, Any]:
    """A frame as compared: no id, no 2026-07-28 decoration, an error's code only."""
    frame = {k: v for k, v in frame.items() if k not in ("id", "jsonrpc")}
    if "error" in frame:
        return {"error": frame["error"]["code"]}
    frame["result"] = {k: v for k, v in frame["result"].items()
                       if k not in ("_meta", "resultType", "ttlMs", "cacheScope")}
    return frame


def stdio_frames(script: str, scenario: str, env: Optional[Dict[str, str]] = None) -> Tuple[Any, List[Any]]:
    """The server's declared extensions (None: none) and its frames for REQUESTS."""
    version, caps = SCENARIOS[scenario]
    server = ServerProcess(env=env, script=script)
    try:
        if version == MODERN:
            meta = {"io.modelcontextprotocol/protocolVersion": MODERN,
                    "io.modelcontextprotocol/clientCapabilities": caps}
            server.send({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": meta}})
        else:
            meta = {}
            server.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": caps, "clientInfo": {"name": "t", "version": "1"}}})
        # The first answer waits for the process to start: the SDK's imports take seconds on a loaded machine.
        declared = server.recv(timeout=60)["result"]["capabilities"]
        if version != MODERN:
            server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        frames = []
        for id_, (method, params) in enumerate(REQUESTS, 1):
            sent = None if params is None and not meta else dict(params or {})
            if meta:
                sent = dict(sent or {}, _meta=dict((sent or {}).get("_meta") or {}, **meta))
            frames.append(normalised(server.request(id_, method, sent)))
        return declared.get("extensions"), frames
    finally:
        server.kill()


class DropInTest(Case):
    """examples/apps_sdk.py, written for the SDK, served by mcp_ref with only its
    imports changed (no SDK, no pydantic needed), answers the SDK's frames."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.directory = tempfile.mkdtemp()
        cls.script = rewritten(cls.directory)
        cls.env = {"PYTHONPATH": HERE}

    def test_only_the_import_lines_changed(self) -> None:
        with open(SDK_FILE, encoding="utf-8") as f, open(self.script, encoding="utf-8") as g:
            before, after = f.read().split("\n"), g.read().split("\n")
        changed = [(a, b) for a, b in zip(before, after) if a != b]
        self.assertEqual(len(before), len(after))
        self.assertEqual(len(changed), 6)
        self.assertTrue(all(a.startswith("from mcp") and b.startswith("from mcp_ref import ") for a, b in changed))

    def test_neither_the_sdk_nor_pydantic_is_imported(self) -> None:
        code = (f"import runpy, sys; runpy.run_path({self.script!r}); "
                "print(sorted(m for m in ('mcp', 'mcp_types', 'pydantic') if m in sys.modules))")
        out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, **self.env), capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(out.stdout, "[]\n", out.stderr)

    def test_the_sdks_frames_over_stdio(self) -> None:
        for scenario, (version, caps) in SCENARIOS.items():
            with self.subTest(scenario=scenario):
                declared, frames = stdio_frames(self.script, scenario, self.env)
                self.assertEqual(declared, SERVER_EXTENSIONS if version == MODERN else None)
                self.assertEqual(frames, sdk_frames(bool(caps)))

    def test_the_same_over_http_with_mcp_refs_client(self) -> None:
        frames_over_http(self, self.script, self.env)


def frames_over_http(case: unittest.TestCase, script: str, env: Dict[str, str]) -> None:
    """``script`` served over HTTP on a free port, and client_frames in each era, with and without Apps."""
    port = free_port()
    process = subprocess.Popen([sys.executable, script, f"127.0.0.1:{port}"], env=dict(os.environ, **env),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    case.addCleanup(stop, process)
    wait_for_port(port)
    for version in (None, LEGACY):
        for apps in (False, True):
            with case.subTest(version=version, apps=apps):
                client_frames(case, f"http://127.0.0.1:{port}/mcp", version, apps)


def client_frames(case: unittest.TestCase, server: Any, version: Optional[str], apps: bool) -> None:
    """mcp_ref.Client against examples/apps_sdk.py: what it sees is the SDK's frames."""
    expected = sdk_frames(apps)
    with mcp_ref.Client(server, protocol_version=version, apps=apps) as client:
        case.assertEqual(client.server_extensions, SERVER_EXTENSIONS if version is None else {})
        tools = client.list_tools()["tools"]
        case.assertEqual(tools, expected[0]["result"]["tools"])
        result = client.call_tool("get_time", {})
        case.assertEqual({k: v for k, v in result.items() if k not in ("_meta", "resultType")}, expected[1]["result"])
        read = client.read_resource("ui://clock/app.html")
        case.assertEqual(read["contents"], expected[5]["result"]["contents"])
        case.assertEqual(client.send_request("greeter/greet", {"name": "Ann", "times": 2})["greeting"],
                         "Hello, Ann, Hello, Ann")
        with case.assertRaises(mcp_ref.MCPError) as caught:
            client.send_request("greeter/greet", {"times": "x"})
        case.assertEqual(caught.exception.code, -32602)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def stop(process: "subprocess.Popen[bytes]") -> None:
    process.terminate()
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stderr is not None:
        process.stderr.close()


@unittest.skipUnless(HAVE_SDK, NEEDS_SDK)
class SdkDifferentialTest(Case):
    """With the SDK installed: the file as written, served by the SDK, and with
    its imports changed, served by mcp_ref, send the same frames (the invalid
    params' error compared by code: docs/sdk-differences.md, 51)."""

    def test_the_same_frames_as_the_sdk_in_each_scenario(self) -> None:
        directory = tempfile.mkdtemp()
        script = rewritten(directory)
        for scenario in SCENARIOS:
            with self.subTest(scenario=scenario):
                self.assertEqual(stdio_frames(script, scenario, {"PYTHONPATH": HERE}), stdio_frames(SDK_FILE, scenario))

    def test_identifiers_and_spec_methods_as_the_sdk_has_them(self) -> None:
        """Seeded: random identifiers get the SDK's verdict and text; the spec
        methods refused are the SDK's SPEC_CLIENT_METHODS."""
        from mcp.shared.extension import validate_extension_identifier
        from mcp_types.methods import SPEC_CLIENT_METHODS

        self.assertEqual(mcp_ref._SPEC_CLIENT_METHODS, frozenset(SPEC_CLIENT_METHODS))
        rng = random.Random(2133)
        alphabet, valid = "aZ09.-_/ é", 0
        for _ in range(3000):
            parts = ["".join(rng.choice(chars) for _ in range(rng.randint(1, 4)))
                     for chars in ("aabbZZ0-", "aabbZ9-", "aabb0._-")]
            identifier = f"{parts[0]}.{parts[1]}/{parts[2]}" if rng.random() < 0.5 else \
                "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
            verdicts = []
            for check in (validate_extension_identifier, mcp_ref.validate_extension_identifier):
                try:
                    check(identifier, owner="E")
                    verdicts.append(None)
                except TypeError as exc:
                    verdicts.append(str(exc))
            with self.subTest(identifier=identifier):
                self.assertEqual(verdicts[0], verdicts[1])
            valid += verdicts[1] is None
        self.assertGreater(valid, 100)

    def test_mcp_refs_client_against_the_sdks_server(self) -> None:
        for version in (None, LEGACY):
            with self.subTest(version=version):
                client_frames(self, [sys.executable, SDK_FILE], version, True)

    def test_mcp_refs_client_against_the_sdks_server_over_http(self) -> None:
        frames_over_http(self, SDK_FILE, {})


class OwnExtensionTest(Case):
    def test_over_stdio_and_http(self) -> None:
        port = free_port()
        process = subprocess.Popen([sys.executable, os.path.join(HERE, "mcp_ref.py"), "serve", OWN_FILE, "--http",
                                    f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.addCleanup(stop, process)
        wait_for_port(port)
        stdio = [sys.executable, os.path.join(HERE, "mcp_ref.py"), "serve", OWN_FILE]
        for server in (stdio, f"http://127.0.0.1:{port}/mcp"):
            for version in (None, LEGACY):
                with self.subTest(server=server, version=version), \
                        mcp_ref.Client(server, protocol_version=version) as client:
                    self.assertEqual(client.server_extensions,
                                     {"com.example/letters": {"alphabet": "latin"}} if version is None else {})
                    self.assertEqual(client.send_request("letters/count", {"text": "banana"})["count"], 3)
                    self.assertEqual(client.send_request("letters/count", {"text": "banana", "letter": "n"})["count"],
                                     2)
                    with self.assertRaisesRegex(mcp_ref.MCPError, "^Invalid params for letters/count: 1 validation "
                                                                  "error for CountParams\ntext\n  Field required"):
                        client.send_request("letters/count", {})

    def test_it_is_short_and_the_docs_show_it(self) -> None:
        with open(OWN_FILE, encoding="utf-8") as f:
            code = f.read().split('"""')[2].strip()
        self.assertLess(len([line for line in code.split("\n") if line.strip()]), 20)
        with open(os.path.join(HERE, "docs", "servers.md"), encoding="utf-8") as f:
            self.assertIn(f"```python\n{code}\n```", f.read())


class ClientTest(Case):
    def declared(self, version: Optional[str], **options: Any) -> Dict[str, Any]:
        """The capabilities the client sends to examples/extension.py."""
        sent: List[Any] = []
        command = [sys.executable, os.path.join(HERE, "mcp_ref.py"), "serve", OWN_FILE]
        with mcp_ref.Client(command, protocol_version=version, trace=lambda d, m: sent.append((d, m)), **options):
            pass
        first = next(m for d, m in sent if d == "->")
        params = first["params"]
        return params["capabilities"] if "capabilities" in params else \
            params["_meta"]["io.modelcontextprotocol/clientCapabilities"]

    def test_the_extensions_it_declares_in_each_revision(self) -> None:
        ours = {"com.example/letters": {"v": 1}}
        for version in (MODERN, LEGACY, "2024-11-05"):
            with self.subTest(version=version):
                self.assertEqual(self.declared(version, apps=True, extensions=ours)["extensions"],
                                 {"com.example/letters": {"v": 1}, UI: {"mimeTypes": [APP]}})
                self.assertNotIn("extensions", self.declared(version))
        self.assertEqual(self.declared(MODERN, tasks=True, apps=True)["extensions"],
                         {UI: {"mimeTypes": [APP]}, "io.modelcontextprotocol/tasks": {}})

    def test_what_it_refuses(self) -> None:
        with self.assertRaisesRegex(TypeError, "^Client.extensions.identifier must be a `vendor-prefix/name`"):
            mcp_ref.Client("x.py", extensions={"apps": {}})
        with self.assertRaisesRegex(TypeError, "^the settings of extension 'com.a/b' must be a dict, not list$"):
            mcp_ref.Client("x.py", extensions={"com.a/b": []})  # type: ignore[dict-item]
        client = mcp_ref.Client("x.py")
        self.assertEqual(client.server_extensions, {})
        with self.assertRaisesRegex(RuntimeError, "not connected"):
            client.send_request("letters/count")
        with self.assertRaisesRegex(ValueError, "^a request's method is a non-empty string"):
            client.send_request("")


REFUNDS = """---
name: refunds
description: Process customer refund requests per company policy
license: Apache-2.0
allowed-tools:
- Read
- Bash
metadata:
  version: "2.1.0"
  author: acme  # the team
  reviewed: true
  pages: 3
---

# Refunds

See `examples/email.md`.
"""

SKILLS_SERVER = """import sys
sys.path.insert(0, {here!r})
from mcp_ref import MCPServer, Skills

skills = Skills()
skills.add_skill({refunds!r}, prefix="acme")
mcp = MCPServer("docs", extensions=[skills])
if len(sys.argv) > 1:  # a file changed once its entry was made
    next(r for r in skills.resources() if r.resource.uri.endswith("email.md")).resource.text = "changed"
if __name__ == "__main__":
    mcp.run()
"""


def write(path: str, data: Any) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def sha(data: bytes) -> str:
    import hashlib

    return "sha256:" + hashlib.sha256(data).hexdigest()


class SkillsTest(Case):
    def setUp(self) -> None:
        self.root = tempfile.mkdtemp()
        self.refunds = os.path.join(self.root, "refunds")
        write(os.path.join(self.refunds, "SKILL.md"), REFUNDS)
        write(os.path.join(self.refunds, "examples", "email.md"), "Dear customer,\r\n")
        write(os.path.join(self.refunds, "scripts", "logo.bin"), b"\x89\xff\x00")
        write(os.path.join(self.refunds, ".hidden"), "not served")

    def entry(self) -> Dict[str, Any]:
        base = "skill://acme/refunds"
        return {"uri": f"{base}/SKILL.md", "frontmatter": {
            "name": "refunds", "description": "Process customer refund requests per company policy",
            "license": "Apache-2.0", "allowed-tools": ["Read", "Bash"],
            "metadata": {"version": "2.1.0", "author": "acme", "reviewed": True, "pages": 3}},
            "resources": [{"uri": f"{base}/{path}", "digest": sha(data), "size": len(data)} for path, data in (
                ("SKILL.md", REFUNDS.encode()), ("examples/email.md", b"Dear customer,\r\n"),
                ("scripts/logo.bin", b"\x89\xff\x00"))]}

    def server(self, **options: Any) -> Any:
        skills = mcp_ref.Skills(**options)
        skills.add_skill(self.refunds, prefix="acme")
        return MCPServer("docs", extensions=[skills])

    def test_the_entries_and_the_declaration(self) -> None:
        wire = self.wire(self.server(ttl_ms=300000, cache_scope="public"))
        self.assertEqual(wire.send("server/discover")["result"]["capabilities"]["extensions"],
                         {mcp_ref.SKILLS_EXTENSION: {"directoryRead": True}})
        self.assertEqual(mcp_ref.SKILLS_EXTENSION, "io.modelcontextprotocol/skills")
        self.assertEqual(wire.send("skills/list"), {"result": {"skills": [self.entry()], "ttlMs": 300000,
                                                               "cacheScope": "public"}})
        self.assertEqual(wire.send("skills/get", {"uri": "skill://acme/refunds/SKILL.md"}),
                         {"result": {"skill": self.entry(), "ttlMs": 300000, "cacheScope": "public"}})
        self.assertEqual(wire.send("skills/get", {"uri": "skill://acme/chargebacks/SKILL.md"}), {"error": {
            "code": -32602, "message": "No skill is served at skill://acme/chargebacks/SKILL.md"}})
        self.assertEqual(wire.send("skills/list", {"cursor": "1"})["error"]["code"], -32602)

    def test_the_files_are_resources_whose_bytes_the_digests_cover(self) -> None:
        wire = self.wire(self.server())
        listed = {r["uri"]: r for r in wire.send("resources/list")["result"]["resources"]}
        self.assertEqual(listed["skill://acme/refunds/SKILL.md"], {
            "uri": "skill://acme/refunds/SKILL.md", "name": "refunds", "mimeType": "text/markdown",
            "description": "Process customer refund requests per company policy"})
        for item in self.entry()["resources"]:
            contents = wire.send("resources/read", {"uri": item["uri"]})["result"]["contents"][0]
            self.assertEqual(sha(mcp_ref._content_bytes(contents)), item["digest"], item["uri"])

    def test_directories(self) -> None:
        wire = self.wire(self.server())
        self.assertEqual(wire.send("resources/directory/read", {"uri": "skill://acme/refunds"})["result"], {
            "resources": [
                {"uri": "skill://acme/refunds/SKILL.md", "name": "refunds", "mimeType": "text/markdown",
                 "description": "Process customer refund requests per company policy"},
                {"uri": "skill://acme/refunds/examples", "name": "examples", "mimeType": "inode/directory"},
                {"uri": "skill://acme/refunds/scripts", "name": "scripts", "mimeType": "inode/directory"}]})
        self.assertEqual(wire.send("resources/directory/read", {"uri": "skill://acme"})["result"]["resources"],
                         [{"uri": "skill://acme/refunds", "name": "refunds", "mimeType": "inode/directory"}])
        self.assertEqual(wire.send("resources/directory/read", {"uri": "skill://acme/refunds/SKILL.md"}), {"error": {
            "code": -32602, "message": "skill://acme/refunds/SKILL.md is not a directory resource"}})
        without = self.wire(self.server(directory_read=False))
        self.assertEqual(without.send("server/discover")["result"]["capabilities"]["extensions"],
                         {"io.modelcontextprotocol/skills": {}})
        self.assertEqual(without.send("resources/directory/read", {"uri": "skill://acme"})["error"]["code"], -32601)

    def test_what_add_skill_refuses(self) -> None:
        skills = mcp_ref.Skills()
        skills.add_skill(self.refunds)
        with self.assertRaisesRegex(ValueError, "^a skill is served at skill://refunds/SKILL.md already$"):
            skills.add_skill(self.refunds)
        cases = [("other", REFUNDS, "the skill's name 'refunds' is not its directory's name 'other'"),
                 ("bad", REFUNDS.replace("name: refunds", "name: Bad_Name"), "name must be 1 to 64 lowercase"),
                 ("nodesc", "---\nname: nodesc\n---\n", "needs a description"),
                 ("plain", "# no frontmatter\n", "begins with YAML frontmatter"),
                 ("open", "---\nname: open\n", "has no closing --- line")]
        for directory, text, message in cases:
            with self.subTest(directory=directory):
                write(os.path.join(self.root, directory, "SKILL.md"), text)
                with self.assertRaisesRegex(ValueError, re.escape(message)):
                    mcp_ref.Skills().add_skill(os.path.join(self.root, directory))
        with self.assertRaisesRegex(ValueError, "has no SKILL.md$"):
            mcp_ref.Skills().add_skill(os.path.join(self.refunds, "examples"))
        write(os.path.join(self.root, "latin", "SKILL.md"), b"---\nname: latin\ndescription: \xe9\n---\n")
        with self.assertRaisesRegex(ValueError, "SKILL.md is not UTF-8 text$"):
            mcp_ref.Skills().add_skill(os.path.join(self.root, "latin"))

    def test_the_limits_a_host_must_accept(self) -> None:
        saved = mcp_ref._SKILL_LIMITS
        self.addCleanup(setattr, mcp_ref, "_SKILL_LIMITS", saved)
        for limits in ((2, 10**6), (10, 100)):
            mcp_ref._SKILL_LIMITS = limits
            with self.subTest(limits=limits), self.assertRaisesRegex(ValueError, "is over the limits of"):
                mcp_ref.Skills().add_skill(self.refunds)

    def test_the_yaml_subset(self) -> None:
        read = [("a: b", {"a": "b"}), ("a: 'it''s'", {"a": "it's"}), ('a: "x\\ty"', {"a": "x\ty"}),
                ("a: 1\nb: -2\nc: 1.5\nd: 0x1F\ne: .5", {"a": 1, "b": -2, "c": 1.5, "d": 31, "e": 0.5}),
                ("a: true\nb: False\nc: null\nd: ~\ne:", {"a": True, "b": False, "c": None, "d": None, "e": None}),
                ("a: x # note\n# a comment\nb: https://example.com/p#q", {"a": "x", "b": "https://example.com/p#q"}),
                ("m:\n  k: v\n  n:\n    - 1\n    - two", {"m": {"k": "v", "n": [1, "two"]}}),
                ("l:\n- a\n- b\nz: 1", {"l": ["a", "b"], "z": 1}), ("key : v", {"key": "v"})]
        for text, value in read:
            with self.subTest(text=text):
                self.assertEqual(mcp_ref._frontmatter(f"---\n{text}\n---\nbody", "S"), value)
        refused = ["a: yes", "a: Off", "a: 010", "a: 0o17", "a: 1_000", "a: 1:30", "a: 1e3", "a: 2026-01-05",
                   "a: [1, 2]", "a: {b: 1}", "a: &x 1", "a: *x", "a: !tag x", "a: |", "a: >", "a: b: c", "a: .inf",
                   "a:\n  b\n", "a: 1\na: 2", "a:1", "- a", "a: 'x", 'a: "\\x41"', "a:\n  - - b", "a:\n\t- b",
                   "a: x\n  y"]
        for text in refused:
            with self.subTest(text=text), self.assertRaisesRegex(ValueError, "^S: line [0-9]+: "):
                mcp_ref._frontmatter(f"---\n{text}\n---\n", "S")

    @unittest.skipUnless(has_module("yaml"), "PyYAML is not installed (CI's venv has it)")
    def test_what_the_subset_reads_pyyaml_reads_the_same(self) -> None:
        """Seeded: random frontmatter of tricky words; whatever _frontmatter reads,
        PyYAML reads the same (where they would differ, _frontmatter refuses)."""
        import yaml

        rng = random.Random(2133)
        words = ["a", "yes", "No", "on", "1", "-1", "+1", "01", "0x1F", "0o7", "1.5", ".5", "1.", "1e3", "1.0e+3",
                 "true", "FALSE", "null", "~", "Null", "2026-01-05", "12:30", "1_000", "x # c", "a#b", "'q'",
                 "'it''s'", '"d"', '"\\u00e9"', "https://x/y", "- a", "[a]", "{a: 1}", "&a", "*a", "!t x", "|",
                 "-", "?", ":", "a: b", "é", ".inf", ".NaN", "@x", "%x", "`x`", "x:", "a -b", "0", "-0", "0.0"]
        read = 0
        for _ in range(2000):
            lines = []
            for key in rng.sample(["a", "b", "c", "d"], rng.randint(1, 4)):
                roll = rng.random()
                if roll < 0.6:
                    lines.append(f"{key}: {rng.choice(words)}")
                elif roll < 0.8:
                    lines += [f"{key}:"] + [f"{rng.choice(['', '  '])}- {rng.choice(words)}" for _ in range(2)]
                else:
                    lines += [f"{key}:"] + [f"  {k}: {rng.choice(words)}" for k in ("x", "y")]
            text = "\n".join(lines)
            try:
                ours = mcp_ref._frontmatter(f"---\n{text}\n---\n", "S")
            except ValueError:
                continue
            read += 1
            with self.subTest(text=text):
                self.assertEqual(ours, yaml.safe_load(text))
        self.assertGreater(read, 100)

    def test_the_client_over_stdio_and_http(self) -> None:
        script = os.path.join(self.root, "skills_server.py")
        write(script, SKILLS_SERVER.format(here=HERE, refunds=self.refunds))
        port = free_port()
        process = subprocess.Popen([sys.executable, os.path.join(HERE, "mcp_ref.py"), "serve", script, "--http",
                                    f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.addCleanup(stop, process)
        wait_for_port(port)
        for server in ([sys.executable, script], f"http://127.0.0.1:{port}/mcp"):
            with self.subTest(server=server), mcp_ref.Client(server) as client:
                self.assertEqual(client.list_skills(all_pages=True)["skills"], [self.entry()])
                skill = client.get_skill("skill://acme/refunds/SKILL.md")
                self.assertEqual(skill, self.entry())
                self.assertEqual(client.read_skill_file(skill, skill["uri"]), REFUNDS.encode())
                self.assertEqual(client.read_skill_file(skill, "skill://acme/refunds/scripts/logo.bin"),
                                 b"\x89\xff\x00")
                children = client.read_directory("skill://acme/refunds/examples")["resources"]
                self.assertEqual([c["uri"] for c in children], ["skill://acme/refunds/examples/email.md"])
                with self.assertRaisesRegex(ValueError, "is not a file of the skill"):
                    client.read_skill_file(skill, "skill://acme/refunds/credit-note.md")
                with self.assertRaisesRegex(ValueError, "its frontmatter is not the skill entry's"):
                    client.read_skill_file(dict(skill, frontmatter={"name": "refunds"}), skill["uri"])
                with self.assertRaisesRegex(mcp_ref.MCPError, "^No skill is served at skill://x/SKILL.md$"):
                    client.get_skill("skill://x/SKILL.md")
        with mcp_ref.Client([sys.executable, script, "--changed"]) as client:  # the file changed since
            skill = client.get_skill("skill://acme/refunds/SKILL.md")
            with self.assertRaisesRegex(ValueError, "email.md is not what the skill's entry describes"):
                client.read_skill_file(skill, "skill://acme/refunds/examples/email.md")

    def test_a_client_asks_only_a_server_that_declared_skills(self) -> None:
        with mcp_ref.Client([sys.executable, os.path.join(HERE, "mcp_ref.py"), "serve", OWN_FILE]) as client:
            for call in (client.list_skills, lambda: client.get_skill("skill://a/SKILL.md"),
                         lambda: client.read_directory("skill://a")):
                with self.assertRaisesRegex(RuntimeError, "^the server did not declare"):
                    call()


if __name__ == "__main__":
    unittest.main()

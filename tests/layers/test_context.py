"""Context (sections 12-13) as the layers refine it: the tests of the topic that need a layer
(SDK fidelity, patterns, the client, the command line or the accelerators); the
core's own are in tests/core/test_context.py.

Context and resolvers (sections 12, 13 and 27) on the wire: whole frames over
real pipes, in every revision that has each feature, with the test playing the
client.

testdata/context_server.py is served as a subprocess (``python mcp_ref.py serve``
where the command line matters, the file itself elsewhere).  Covered: logging
(logging/setLevel; 2026-07-28's per-request level), progress, questions to the
client (elicitation in form and URL mode, sampling, roots) as server-to-client
requests in a session and as InputRequiredResult rounds with a signed
requestState in 2026-07-28, a tool's own InputRequiredResult, Context injection,
the lifespan, cancellation, and list_changed.

The last class drives the official SDK's client (test-only, ``mcp`` 2.3.x)
against mcp_ref and against the SDK serving the same file
(testdata/sdk_context_launcher.py), with testdata/frame_tap.py recording the
frames between them, and compares them; it skips without the SDK.
"""

import contextlib
import importlib.util
import io
import json
import os
import sys
import unittest
import unittest.mock
from typing import Any, Dict, List, Tuple

from tests._testing import mcp_ref, needs_layers

from tests._testing import HERE  # the repository's root

from tests.core.test_context import (ALL_CAPS, FORM, FORM_ANSWER, FORM_PARAMS, LATEST, MCP_REF, META_CAPS,
    META_VERSION, MODERN, ROOTS_ANSWER, SAMPLING_ANSWER, SPARES, asking_server, question, result_frame,
    rpc_error_frame, tool_error_frame, tools_call, until_asked)
from tests.core.test_context import (ContextTestCase, closing_stdin_fails_open_questions,
    demo_every_tool_as_documented, lifespan_entered_before_serving_and_left_after)
from tests.core.test_wire import StdioWire, wsgi_post, wsgi_session


def tearDownModule() -> None:  # noqa: N802  (unittest's name)
    SPARES.close()


class ResolverRegistrationTest(unittest.TestCase):
    """What cannot be resolved is refused at registration, in the SDK's words."""

    def refused(self, fn: Any) -> str:
        with self.assertRaises(mcp_ref.InvalidSignature) as caught:
            mcp_ref.MCPServer("r").add_tool(fn)
        return str(caught.exception)

    def test_refusals(self) -> None:
        from typing import Annotated, Optional, Union

        later = mcp_ref.Resolve(str)

        def cycle_a(b: Annotated[str, later]) -> str:
            return b

        def cycle_b(a: Annotated[str, mcp_ref.Resolve(cycle_a)]) -> str:
            return a

        later.fn = cycle_b

        def unknown(nothing: int) -> str:
            return ""

        def two_questions() -> Union[mcp_ref.Elicit, mcp_ref.ListRoots]:
            return mcp_ref.ListRoots()

        def tool_cycle(x: Annotated[str, mcp_ref.Resolve(cycle_b)]) -> str:
            return x

        def tool_unknown(x: Annotated[str, mcp_ref.Resolve(unknown)]) -> str:
            return x

        def tool_union(x: Optional[Annotated[str, mcp_ref.Resolve(unknown)]]) -> str:
            return str(x)

        def tool_two(x: Annotated[str, mcp_ref.Resolve(two_questions)]) -> str:
            return x

        def tool_own(x: Annotated[str, mcp_ref.Resolve(cycle_a)]) -> Union[str, mcp_ref.InputRequiredResult]:
            return x

        self.assertEqual(self.refused(tool_cycle), "Resolver 'cycle_b' has a cyclic dependency")
        self.assertEqual(self.refused(tool_unknown), "Resolver 'unknown' parameter 'nothing' cannot be resolved: "
                                                     "expected a Context, an Annotated[_, Resolve(...)], or a tool "
                                                     "argument by name")
        self.assertEqual(self.refused(tool_union), "Parameter 'x' of 'tool_union' wraps `Resolve(...)` in a union; "
                                                   "annotate the parameter directly as `Annotated[T, Resolve(...)]`")
        self.assertEqual(self.refused(tool_two), "Resolver 'two_questions' return annotation has multiple "
                                                 "Elicit/Sample/ListRoots arms; a resolver asks one question - split "
                                                 "it into separate resolvers")
        self.assertTrue(self.refused(tool_own).startswith("Tool 'tool_own' combines Resolve(...) parameters with an "
                                                          "InputRequiredResult return"))

    def test_in_process_and_closures(self) -> None:
        from typing import Annotated

        def factory(n: int) -> Any:
            def value() -> int:
                return n
            return value

        server = mcp_ref.MCPServer("r")

        @server.tool()
        async def add(a: int, one: Annotated[int, mcp_ref.Resolve(factory(1))],
                      two: Annotated[int, mcp_ref.Resolve(factory(2))]) -> int:
            return a + one + two

        tool = server._tools["add"]
        assert tool.resolved is not None
        keys = sorted(plan.key for plan in tool.resolved[1].values())
        self.assertEqual(keys, [f"{__name__}:{self.test_in_process_and_closures.__qualname__}.<locals>.factory."
                                f"<locals>.value" + suffix for suffix in ("", "#1")])
        self.assertEqual(server.call_tool("add", {"a": 10})["structuredContent"], {"result": 13})

        # A body that returns its own InputRequiredResult without declaring it: one
        # input_required channel per call, so a crash, as in the SDK.
        @server.tool()
        def own(x: Annotated[int, mcp_ref.Resolve(factory(3))]) -> Any:
            return mcp_ref.InputRequiredResult(input_requests={})

        with contextlib.redirect_stderr(io.StringIO()) as logged:
            self.assertEqual(server.call_tool("own", {}), {
                "content": [{"type": "text", "text": "Error executing tool own"}], "isError": True})
        self.assertIn("RuntimeError: the tool returned an InputRequiredResult but its parameters use Resolve(...)",
                      logged.getvalue())


class DeclaredCapabilityTest(unittest.TestCase):
    """client/sampling: a tool-enabled sampling request only to a client that
    declared sampling.tools (MUST NOT otherwise), includeContext other than
    "none" only with sampling.context (SHOULD NOT: refused too); stdio and
    HTTP, both eras.  The refusal reaches the tool as the other undeclared
    capabilities do: an MCPError, passed on as the call's error."""

    CASES = (("with_tools", {}, ("sampling", "tools")), ("with_choice", {}, ("sampling", "tools")),
             ("with_context", {}, ("sampling", "context")), ("with_context", {"include": "allServers"},
                                                              ("sampling", "context")))

    def setUp(self) -> None:
        self.server = asking_server()
        self.app = self.server.streamable_http_app()
        self.addCleanup(self.app.close)

    def session_refusal(self, id_: Any, capability: Tuple[str, ...]) -> Dict[str, Any]:
        return rpc_error_frame(id_, -32600, f"the client does not support {'.'.join(capability)} (it did not "
                                            "declare that capability)")

    def test_a_session_refuses_what_the_client_did_not_declare(self) -> None:
        wire = StdioWire(self.server, LATEST, {"sampling": {}})
        self.addCleanup(wire.close)
        session = wsgi_session(self.app, LATEST, {"sampling": {}})
        for n, (tool, arguments, capability) in enumerate(self.CASES):
            with self.subTest(tool=tool, arguments=arguments):
                self.assertEqual(wire.send(tools_call(n, tool, **arguments)), [self.session_refusal(n, capability)])
                self.assertEqual(wsgi_post(self.app, tools_call(n, tool, **arguments), session),
                                 (200, [self.session_refusal(n, capability)]))

    def test_declared_it_is_asked(self) -> None:
        caps = {"sampling": {"tools": {}, "context": {}}}
        answer = {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m9"}
        for n, (tool, arguments, _) in enumerate(self.CASES + (("with_context", {"include": "none"}, None),)):
            with self.subTest(tool=tool, arguments=arguments):
                wire = StdioWire(self.server, LATEST, caps if n < 4 else {"sampling": {}})
                self.addCleanup(wire.close)
                asked = until_asked(wire, tools_call(n, tool, **arguments))
                self.assertEqual(asked[-1]["method"], "sampling/createMessage")
                frames = wire.send({"jsonrpc": "2.0", "id": asked[-1]["id"], "result": answer})
                self.assertEqual(frames[-1]["result"]["content"], [{"type": "text", "text": "m9"}])

    def test_2026_refuses_with_32021(self) -> None:
        wire = StdioWire(self.server)
        self.addCleanup(wire.close)
        meta = {META_VERSION: MODERN, META_CAPS: {"sampling": {}}}
        for n, (tool, arguments, capability) in enumerate(self.CASES + (("own_question", {}, ("sampling", "tools")),)):
            with self.subTest(tool=tool, arguments=arguments):
                required = {capability[0]: {capability[1]: {}}}
                expected = rpc_error_frame(n, -32021, "Missing required client capability",
                                           {"requiredCapabilities": required})
                self.assertEqual(wire.send(tools_call(n, tool, meta, **arguments)), [expected])
                self.assertEqual(wsgi_post(self.app, tools_call(n, tool, meta, **arguments)), (400, [expected]))
        declared = {META_VERSION: MODERN, META_CAPS: {"sampling": {"tools": {}}}}
        frames = wire.send(tools_call(9, "with_tools", declared))
        self.assertEqual(list(frames[-1]["result"]["inputRequests"]), ["sampling_0"])


_CORE: List[Any] = []


def core_alone() -> Any:
    """mcp_ref.py cut at its line "# ---- layers" as .ci/cut_core.py cuts it: the
    core, a module of its own (made once, in this process)."""
    if not _CORE:
        import types

        spec = importlib.util.spec_from_file_location("cut_core", os.path.join(HERE, ".ci", "cut_core.py"))
        cut_core = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(cut_core)  # type: ignore[union-attr]
        with open(MCP_REF, encoding="utf-8") as f:
            core = cut_core.split(f.read())[0]
        module = types.ModuleType("mcp_ref_core_alone")
        module.__file__ = MCP_REF
        sys.modules[module.__name__] = module  # (for the classes' __module__), gone again at once
        try:
            exec(compile(core, MCP_REF, "exec"), module.__dict__)
        finally:
            del sys.modules[module.__name__]
        _CORE.append(module)
    return _CORE[0]


class CoreAloneContextTest(unittest.TestCase):
    """The core's Context has no SDK shapes: no ctx.session or ctx.request_context
    (the SDK layer gives them, section 27), the client's answers as JSON,
    checked as schema.ts writes them (the SDK layer: as its models take them), and
    ctx.elicit's outcome as the core's classes even where the function took the
    SDK's own Context (section 28 gives that one the SDK's classes)."""

    def test_no_session_nor_request_context(self) -> None:
        ctx = core_alone().Context()
        self.assertFalse(hasattr(ctx, "session"))
        self.assertFalse(hasattr(ctx, "request_context"))
        with self.assertRaisesRegex(AttributeError, r"ask the client with ctx\.create_message, ctx\.list_roots or "
                                                    r"ctx\.elicit"):
            _ = ctx.session
        self.assertEqual(type(mcp_ref.Context().session).__name__, "_ClientSession")  # the whole file's

    def test_answers_as_the_client_sent_them(self) -> None:
        core = core_alone()
        responses = {"q": {"action": "accept", "content": {"x": 1}}, "r": ROOTS_ANSWER}
        for sdk_models in (False, True):
            plain = core._input_responses(responses, sdk_models)
            self.assertEqual((type(plain), [type(answer) for answer in plain.values()]), (dict, [dict, dict]))
            self.assertEqual(plain, responses)
            outcome = core._elicitation_outcome({}, {}, {"action": "decline"}, sdk=sdk_models)
            self.assertIs(type(outcome), core.DeclinedElicitation)
            schema = {"type": "object", "properties": {"x": {"type": "string"}}}
            outcome = core._elicitation_outcome(schema, schema, {"action": "accept", "content": {"x": "1"}},
                                                sdk=sdk_models)
            self.assertEqual(outcome, core.AcceptedElicitation({"x": "1"}))
        whole = mcp_ref._input_responses(responses)  # the SDK layer's: each read as its result class
        self.assertEqual([type(answer).__name__ for answer in whole.values()], ["ElicitResult", "ListRootsResult"])

    def test_answers_checked_as_the_schema_writes_them(self) -> None:
        # The core's results as schema.ts has them; the SDK layer's as leniently as
        # the SDK's models take them.
        block = {"type": "text", "text": "x"}
        for method, answer, core_says in (
                ("sampling/createMessage", SAMPLING_ANSWER, None),
                ("sampling/createMessage", dict(SAMPLING_ANSWER, content=[block, {"type": "tool_use", "id": "1",
                                                                                  "name": "t", "input": {}}]), None),
                ("sampling/createMessage", dict(SAMPLING_ANSWER, stopReason=None), "$.stopReason"),
                ("sampling/createMessage", dict(SAMPLING_ANSWER, content={"text": "x"}), "$.content"),
                ("sampling/createMessage", dict(SAMPLING_ANSWER, content=[{"type": "tool_result", "toolUseId": "1"}]),
                 "$.content"),
                ("roots/list", ROOTS_ANSWER, None),
                ("roots/list", {"roots": [{"uri": "file:///a", "name": None}]}, "$.roots[0].name"),
                ("elicitation/create", {"action": "accept", "content": {"a": 1, "b": ["x"], "c": True}}, None),
                ("elicitation/create", {"action": "accept", "content": {"a": None}}, "$.content.a"),
                ("elicitation/create", {"action": "cancel", "_meta": None}, "$._meta")):
            with self.subTest(method=method, answer=answer):
                self.assertEqual(core_alone()._answer_problem(method, answer), core_says)
                self.assertIsNone(mcp_ref._answer_problem(method, answer))

    def test_a_form_asked_by_the_core_alone(self) -> None:
        """ctx.elicit_form is the core's (examples/everything.py asks with it on
        the cut file): the client's ElicitResult as JSON; a null value refused
        there, as schema.ts has it, and taken by the whole file, as the SDK's model does."""
        core = core_alone()
        lenient = {"action": "accept", "content": {"ok": True, "note": None}}
        for module, said in ((core, "Error executing tool form: the client's answer to elicitation/create is "
                                    "invalid: $.content.note does not fit ElicitResult"),
                             (mcp_ref, json.dumps(lenient, sort_keys=True))):
            with self.subTest(module=module.__name__):
                server = module.MCPServer("context", version="1.0")

                async def form(ctx: module.Context) -> str:  # type: ignore[name-defined]
                    return json.dumps(await ctx.elicit_form("Sure?", FORM), sort_keys=True)

                server.add_tool(form)
                wire = StdioWire.__new__(StdioWire)  # the module's own stdio connection (StdioWire: the whole file's)
                wire.conn, wire.seen = module._StdioServer(server, exit_process=False), 0
                wire.conn.out = io.BytesIO()
                self.addCleanup(wire.close)
                wire.send({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
                    "protocolVersion": LATEST, "capabilities": ALL_CAPS, "clientInfo": {"name": "t", "version": "1"}}})
                wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
                for n, answer, text in ((1, FORM_ANSWER, json.dumps(FORM_ANSWER, sort_keys=True)), (2, lenient, said)):
                    asked = until_asked(wire, tools_call(n, "form"))
                    self.assertEqual(asked[-1], question(n, "elicitation/create", FORM_PARAMS))
                    frames = wire.send({"jsonrpc": "2.0", "id": asked[-1]["id"], "result": answer})
                    error = text.startswith("Error")
                    self.assertEqual(frames, [tool_error_frame(n, LATEST, text) if error else
                                              result_frame(n, LATEST, text)])


@needs_layers("cli")
class ServeTest(ContextTestCase):
    """Three tests of the core (tests/core/test_context.py runs them on the file
    itself) on ``python mcp_ref.py serve`` the file: the command line imports it
    and serves what it finds, lifespan and all."""

    def test_closing_stdin_fails_open_questions(self) -> None:
        closing_stdin_fails_open_questions(self, cli=True)

    def test_lifespan_entered_before_serving_and_left_after(self) -> None:
        lifespan_entered_before_serving_and_left_after(self, cli=True)

    def test_demo_every_tool_as_documented(self) -> None:
        demo_every_tool_as_documented(self, cli=True)


if __name__ == "__main__":
    unittest.main()

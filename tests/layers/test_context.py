"""Context (sections 12-13) as the layers refine it: the tests of the topic that need a layer
(SDK fidelity, patterns, the client, the command line or the accelerators); the
core's own are in tests/core/test_context.py.

On the wire, as tests/core/test_context.py (whole frames over real pipes, the
test playing the client), what only the SDK's API has (section 27): resolvers
(``Annotated[T, Resolve(fn)]``), ctx.request_context,
ctx.session.check_client_capability, pydantic's lax values in an answer, and
examples/context_demo.py; testdata/context_server.py is served as a subprocess
(``python mcp_ref.py serve`` where the command line matters, the file itself
elsewhere).  In process: resolvers refused at registration, the capabilities a
sampling request needs, and the core alone's Context beside the whole file's.

The last class drives the official SDK's client (test-only, ``mcp`` 2.3.x)
against mcp_ref and against the SDK serving the same file
(testdata/sdk_context_launcher.py), with testdata/frame_tap.py recording the
frames between them, and compares them; it skips without the SDK.
"""

import asyncio
import contextlib
import importlib.util
import io
import json
import os
import re
import shutil
import sys
import tempfile
import unittest
import unittest.mock
from typing import Any, Dict, List, Optional, Tuple

from tests._testing import mcp_ref, needs_layers

from tests._testing import HERE  # the repository's root
from tests._testing import python_command  # a server's command line, on the module under test

from tests.core.test_context import (ALL_CAPS, BOOKING_SCHEMA, FORM, FORM_ANSWER, FORM_PARAMS, LATEST, MCP_REF,
    META_CAPS, META_LOG, META_VERSION, MODERN, ROOTS_ANSWER, SAMPLING_ANSWER, SERVER, SERVER_INFO, SPARES,
    asking_server, form_params, input_required_frame, log_frame, notification, progress_frame, question,
    result_frame, rpc_error_frame, take_state, tool_error_frame, tools_call, until_asked)
from tests.core.test_context import (ContextServer, ContextTestCase, closing_stdin_fails_open_questions,
    lifespan_entered_before_serving_and_left_after)
from tests.core.test_wire import StdioWire, wsgi_post, wsgi_session


SDK_LAUNCHER = os.path.join(HERE, "tests", "testdata", "sdk_context_launcher.py")

DEMO = os.path.join(HERE, "examples", "context_demo.py")

FRAME_TAP = os.path.join(HERE, "tests", "testdata", "frame_tap.py")


def tearDownModule() -> None:  # noqa: N802  (unittest's name)
    SPARES.close()


class SessionQuestionTest(ContextTestCase):
    """As tests.core.test_context.SessionQuestionTest (the server asks, the test
    answers as the client), with the SDK layer: an answer's value converted as
    pydantic's lax mode does, and ctx.session.check_client_capability."""

    def test_form_elicitation_takes_a_lax_value(self) -> None:
        # "4" for an integer, as the SDK's model takes it (the core alone refuses it: not an integer).
        server = self.session()
        self.call(server, 1, "book")
        asked = server.recv()
        self.assertEqual(asked, question(1, "elicitation/create", form_params("When and for how many?")))
        server.answer(asked, {"action": "accept", "content": {"date": "wed", "guests": "4"}})
        self.assertEqual(server.until(1), [result_frame(1, LATEST, "accept: wed for 4")])

    def test_check_client_capability(self) -> None:
        server = self.session(caps={"roots": {}, "sampling": {}, "elicitation": {}})
        for n, (capability, expected) in enumerate((({"sampling": {}}, True), ({"roots": {}, "sampling": {}}, True),
                                                    ({"tasks": {}}, False), ({}, True)), start=1):
            with self.subTest(capability=capability):
                self.call(server, n, "check_capability", {"capability": capability})
                self.assertEqual(server.until(n)[-1]["result"]["structuredContent"], {"result": expected})

    # As the SDK's: roots.listChanged, sampling.context, sampling.tools and
    # experimental values count too (it once compared top-level keys only; fixed in 310fb45).
    def test_check_client_capability_looks_inside(self) -> None:
        server = self.session(caps={"roots": {}, "sampling": {}})
        for n, capability in enumerate(({"roots": {"listChanged": True}}, {"sampling": {"tools": {}}}), start=1):
            self.call(server, n, "check_capability", {"capability": capability})
            self.assertEqual(server.until(n)[-1]["result"]["structuredContent"], {"result": False})


class RequestContextTest(ContextTestCase):
    """``ctx.request_context`` as the SDK has it (the core's Context: ctx.lifespan_context, ctx.meta)."""

    # The object the lifespan yielded, as in the SDK (it was once wrapped in a
    # _Record, so a dict could not be indexed; fixed in 310fb45).
    def test_request_context_lifespan_context_is_what_the_lifespan_yielded(self) -> None:
        server = self.session()
        self.call(server, 1, "lifespan_sdk_style")
        self.assertEqual(server.until(1), [result_frame(1, LATEST, "connected")])

    # In the SDK 2.3 ``ctx.request_context.meta`` is a dict (mcp_types.RequestParamsMeta,
    # the snake_case key "progress_token"); it was once a _Record here (fixed in 310fb45).
    def test_request_context_meta_as_the_sdk_has_it(self) -> None:
        server = self.session()
        self.call(server, 1, "meta_sdk_style", meta={"progressToken": 5})
        self.assertEqual(server.until(1), [result_frame(1, LATEST, "token 5")])


class SdkSessionMethodsTest(ContextTestCase):
    """As tests.core.test_context.SdkSessionMethodsTest, for the SDK's ServerSession
    method that the core's Context has no counterpart of: check_client_capability."""

    def test_check_client_capability(self) -> None:
        # ServerSession.check_client_capability, where the SDK's rule and ours
        # agree: roots.listChanged and sampling.tools when asked for, experimental
        # values equal, {} always.  (Ours also requires what the SDK's v1 rule
        # leaves unchecked, such as tasks or elicitation's URL mode: next test.)
        server = self.session(caps={"roots": {"listChanged": True}, "sampling": {},
                                    "experimental": {"x": {"y": 1}}})
        for n, (capability, declared) in enumerate((
                ({"roots": {"listChanged": True}}, True), ({"sampling": {"tools": {}}}, False),
                ({"experimental": {"x": {"y": 1}}}, True), ({"experimental": {"x": {"y": 2}}}, False),
                ({"elicitation": {}}, False), ({}, True)), start=1):
            with self.subTest(capability=capability):
                self.call(server, n, "check_capability", {"capability": capability})
                self.assertEqual(server.until(n), [result_frame(n, LATEST, "true" if declared else "false",
                                                                {"result": declared})])

    # docs/sdk-differences.md, 33: every key asked for must
    # be declared; the SDK's v1 rule answers true for tasks and for elicitation's modes.
    def test_check_client_capability_asks_for_every_key(self) -> None:
        server = self.session(caps={"elicitation": {}, "sampling": {}})
        for n, capability in enumerate(({"tasks": {}}, {"elicitation": {"url": {}}}), start=1):
            with self.subTest(capability=capability):
                self.call(server, n, "check_capability", {"capability": capability})
                self.assertEqual(server.until(n), [result_frame(n, LATEST, "false", {"result": False})])


RESOLVER = "__main__:resolve_{}"  # a resolver's key on the wire: module:qualname (the file runs as __main__)

MODERN_BOOKING = {k: v for k, v in BOOKING_SCHEMA.items() if k != "title"}  # as the SDK sends it in 2026-07-28


def reserve_question(version: str) -> Dict[str, Any]:
    params = form_params("Book Oslo: when and for how many?", version)
    if version == MODERN:
        params["requestedSchema"] = MODERN_BOOKING
    return params


class ResolverTest(ContextTestCase):
    """Parameters filled by resolvers (testdata/context_server.py: reserve,
    reserve_outcome, survey), as the SDK's mcp.server.mcpserver.resolve fills them."""

    def test_not_in_the_input_schema(self) -> None:
        server = self.shared()
        server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": self.modern_meta()}})
        tools = {t["name"]: t for t in server.until(1)[-1]["result"]["tools"]}
        for name in ("reserve", "reserve_outcome", "survey"):
            self.assertEqual(tools[name]["inputSchema"], {
                "type": "object", "properties": {"venue": {"title": "Venue", "type": "string"}},
                "required": ["venue"], "title": f"{name}Arguments"})

    def test_a_session_asks_each_question_once(self) -> None:
        # reserve's two parameters need the same resolver (one directly, one through
        # resolve_line, which also takes the argument venue): one question.
        server = self.session()
        for n, (answer, text) in enumerate(((
                {"action": "accept", "content": {"date": "mon"}}, "Oslo on mon for 2"),
                ({"action": "decline"}, "Error executing tool reserve: Resolver for parameter 'booking' could not "
                                        "resolve: elicitation was decline")), start=1):
            with self.subTest(answer=answer):
                self.call(server, n, "reserve", {"venue": "Oslo"})
                asked = server.recv()
                self.assertEqual(asked, question(n, "elicitation/create", reserve_question(LATEST)))
                server.answer(asked, answer)
                expected = result_frame(n, LATEST, text) if n == 1 else tool_error_frame(n, LATEST, text)
                self.assertEqual(server.until(n), [expected])

    def test_the_whole_outcome(self) -> None:
        server = self.session()
        for n, action in enumerate(("decline", "cancel"), start=1):
            self.call(server, n, "reserve_outcome", {"venue": "Oslo"})
            server.answer(server.recv(), {"action": action})
            self.assertEqual(server.until(n), [result_frame(n, LATEST, f"Oslo: {action}")])

    def test_sampling_roots_and_a_log_line_in_a_session(self) -> None:
        server = self.session()
        self.call(server, 1, "survey", {"venue": "Oslo"})
        self.assertEqual(server.recv(), log_frame("warning", "sampling for Oslo"))
        asked = server.recv()
        self.assertEqual(asked, question(1, "sampling/createMessage", {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Describe Oslo"}}], "maxTokens": 20,
            "systemPrompt": "One line."}))
        server.answer(asked, SAMPLING_ANSWER)
        asked = server.recv()
        self.assertEqual(asked, question(2, "roots/list", {}))
        server.answer(asked, ROOTS_ANSWER)
        asked = server.recv()
        self.assertEqual(asked, question(3, "elicitation/create", reserve_question(LATEST)))
        server.answer(asked, {"action": "accept", "content": {"date": "sat"}})
        self.assertEqual(server.until(1), [result_frame(1, LATEST, "short; 2 roots; sat")])

    def test_an_undeclared_capability_is_32021_in_a_session_too(self) -> None:
        # The SDK's rule for resolvers, in its words (a tool's own ctx.elicit: a tool error).
        server = self.session(caps={"sampling": {}})
        self.call(server, 1, "reserve", {"venue": "Oslo"})
        self.assertEqual(server.until(1), [rpc_error_frame(
            1, -32021, f"Client did not declare the form elicitation capability required by resolver "
                       f"'{RESOLVER.format('booking')}'", {"requiredCapabilities": {"elicitation": {"form": {}}}})])

    def test_2026_one_round_for_every_question(self) -> None:
        server = self.shared()
        frames = self.modern_call(server, 1, "survey", {"venue": "Oslo"}, meta={META_LOG: "warning"})
        state = take_state(frames[-1])
        self.assertEqual(frames, [log_frame("warning", "sampling for Oslo"), input_required_frame(1, {
            RESOLVER.format("summary"): {"method": "sampling/createMessage", "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "Describe Oslo"}}],
                "maxTokens": 20, "systemPrompt": "One line."}},
            RESOLVER.format("roots"): {"method": "roots/list", "params": {}},
            RESOLVER.format("booking"): {"method": "elicitation/create", "params": reserve_question(MODERN)}})])
        answers = {RESOLVER.format("summary"): SAMPLING_ANSWER, RESOLVER.format("roots"): ROOTS_ANSWER,
                   RESOLVER.format("booking"): {"action": "accept", "content": {"date": "sun", "guests": 5}}}
        frames = self.modern_call(server, 2, "survey", {"venue": "Oslo"}, inputResponses=answers, requestState=state)
        self.assertEqual(frames, [result_frame(2, MODERN, "short; 2 roots; sun")])

    def test_2026_answers_are_kept_across_rounds(self) -> None:
        # reserve: one round; the answer, then the outcome of an answer of the wrong shape.
        server = self.shared()
        key = RESOLVER.format("booking")
        frames = self.modern_call(server, 1, "reserve", {"venue": "Oslo"})
        state = take_state(frames[-1])
        self.assertEqual(frames, [input_required_frame(1, {key: {
            "method": "elicitation/create", "params": reserve_question(MODERN)}})])
        for n, answer, text in (
                (2, {"action": "accept", "content": {"date": "mon", "guests": 3}}, "Oslo on mon for 3"),
                (3, {"action": "accept", "content": {"guests": 3}},
                 f"Resolver '{key}' received an accepted elicitation whose content does not match the requested "
                 "schema"),
                (4, {"action": "accept"}, f"Resolver '{key}' received an accepted elicitation with no content"),
                (5, {"roots": []}, f"Resolver '{key}' received a non-elicitation response"),
                (6, {"action": "cancel"}, "Resolver for parameter 'booking' could not resolve: elicitation was "
                                          "cancel")):
            with self.subTest(answer=answer):
                frames = self.modern_call(server, n, "reserve", {"venue": "Oslo"}, inputResponses={key: answer},
                                          requestState=state)
                expected = result_frame(n, MODERN, text) if n == 2 else tool_error_frame(
                    n, MODERN, f"Error executing tool reserve: {text}")
                self.assertEqual(frames, [expected])

    def test_2026_an_answer_to_a_question_never_asked_asks_again(self) -> None:
        # Only the question the state says was asked may be answered (the SDK's rule):
        # an answer sent without it, or for other arguments, is not taken.
        server = self.shared()
        key = RESOLVER.format("booking")
        answer = {key: {"action": "accept", "content": {"date": "mon"}}}
        frames = self.modern_call(server, 1, "reserve", {"venue": "Oslo"}, inputResponses=answer)
        take_state(frames[-1])
        self.assertEqual(frames, [input_required_frame(1, {key: {
            "method": "elicitation/create", "params": reserve_question(MODERN)}})])
        state = take_state(self.modern_call(server, 2, "reserve", {"venue": "Bergen"})[-1])
        frames = self.modern_call(server, 3, "reserve", {"venue": "Oslo"}, inputResponses=answer, requestState=state)
        self.assertEqual(frames, [rpc_error_frame(3, -32602, "Invalid params: requestState belongs to another "
                                                             "request")])

    def test_2026_missing_capability(self) -> None:
        server = self.shared()
        for n, caps, name, what, required in (
                (1, {"elicitation": {"url": {}}, "sampling": {}, "roots": {}}, "booking", "form elicitation",
                 {"elicitation": {"form": {}}}),
                (2, {"elicitation": {}, "roots": {}}, "summary", "sampling", {"sampling": {}}),
                (3, {"elicitation": {}, "sampling": {}}, "roots", "roots", {"roots": {}})):
            with self.subTest(caps=caps):
                frames = self.modern_call(server, n, "survey", {"venue": "Oslo"}, caps=caps)
                self.assertEqual(frames, [rpc_error_frame(
                    n, -32021, f"Client did not declare the {what} capability required by resolver "
                               f"'{RESOLVER.format(name)}'", {"requiredCapabilities": required})])


class DemoTest(ContextTestCase):
    """examples/context_demo.py, which uses the SDK's API (Resolve, Elicit, ctx.session)."""

    def test_every_tool_as_documented(self) -> None:
        demo_every_tool_as_documented(self, cli=False)


def demo_every_tool_as_documented(self: "ContextTestCase", cli: bool) -> None:
    """examples/context_demo.py run as a script (DemoTest); as its docstring says,
    ``python mcp_ref.py serve examples/context_demo.py`` (ServeTest)."""
    server = ContextServer(cli=cli, script=DEMO)
    self.addCleanup(server.kill)
    reply = server.request(0, "initialize", {"protocolVersion": LATEST, "capabilities": ALL_CAPS,
                                             "clientInfo": {"name": "t", "version": "1"}})
    self.assertEqual(reply["result"]["serverInfo"], {"name": "context-demo", "version": ""})
    server.send(notification("notifications/initialized"))  # before it the server may ask nothing
    self.call(server, 1, "count", {"to": 2}, {"progressToken": "c"})
    self.assertEqual(server.until(1), [
        log_frame("info", "counting to 2"), progress_frame("c", 1, 2, "at 1"), progress_frame("c", 2, 2, "at 2"),
        result_frame(1, LATEST, "counted to 2")])
    self.call(server, 2, "greet", {"name": "Ada"})
    self.assertEqual(server.until(2), [log_frame("debug", "greeting Ada"), result_frame(2, LATEST, "Hello, Ada!")])
    self.call(server, 3, "schedule")
    asked = server.recv()
    self.assertEqual(asked, question(1, "elicitation/create", {"mode": "form", "message": "When shall we meet?",
                                                               "requestedSchema": {
        "properties": {"day": {"title": "Day", "type": "string"},
                       "minutes": {"default": 30, "title": "Minutes", "type": "integer"}},
        "required": ["day"], "title": "Meeting", "type": "object"}}))
    server.answer(asked, {"action": "accept", "content": {"day": "Monday"}})
    self.assertEqual(server.until(3), [result_frame(3, LATEST, "meeting on Monday for 30 minutes")])
    self.call(server, 4, "haiku", {"topic": "rain"})
    asked = server.recv()
    self.assertEqual(asked["params"], {"messages": [{"role": "user", "content": {
        "type": "text", "text": "Write a haiku about rain."}}], "maxTokens": 60})
    server.answer(asked, {"role": "assistant", "content": {"type": "text", "text": "drops"}, "model": "m"})
    self.assertEqual(server.until(4), [result_frame(4, LATEST, "drops")])
    self.call(server, 5, "workspace")
    server.answer(server.recv(), ROOTS_ANSWER)
    self.assertEqual(server.until(5)[-1]["result"]["structuredContent"], {"result": ["file:///a", "file:///b"]})
    # The same tool in 2026-07-28: the question comes back as input_required.
    frames = self.modern_call(server, 6, "schedule")
    state = take_state(frames[-1])
    self.assertEqual(list(frames[-1]["result"]["inputRequests"]), ["elicitation_0"])
    frames = self.modern_call(server, 7, "schedule", requestState=state,
                              inputResponses={"elicitation_0": {"action": "decline"}})
    self.assertEqual(len(frames), 1)
    self.assertEqual(frames[0]["result"]["structuredContent"], {"result": "no meeting (decline)"})
    # A parameter filled by a resolver, and a resource that logs.
    self.call(server, 8, "book_room", {"room": "Attic"})
    asked = server.recv()
    self.assertEqual(asked["params"]["message"], "When do you need Attic?")
    server.answer(asked, {"action": "accept", "content": {"day": "Friday", "minutes": 45}})
    self.assertEqual(server.until(8), [result_frame(8, LATEST, "Attic booked on Friday for 45 minutes")])
    server.send({"jsonrpc": "2.0", "id": 9, "method": "resources/read", "params": {"uri": "minutes://monday"}})
    text = "Minutes of monday: nothing decided."
    self.assertEqual(server.until(9), [log_frame("info", "reading the minutes of monday"), {
        "jsonrpc": "2.0", "id": 9, "result": {"contents": [
            {"uri": "minutes://monday", "mimeType": "text/plain", "text": text}]}}])
    self.assertEqual(server.close(), 0)


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
    """Two tests of the core (tests/core/test_context.py runs them on the file
    itself) and the demo's (DemoTest) on ``python mcp_ref.py serve`` the file:
    the command line imports it and serves what it finds, lifespan and all."""

    def test_closing_stdin_fails_open_questions(self) -> None:
        closing_stdin_fails_open_questions(self, cli=True)

    def test_lifespan_entered_before_serving_and_left_after(self) -> None:
        lifespan_entered_before_serving_and_left_after(self, cli=True)

    def test_demo_every_tool_as_documented(self) -> None:
        demo_every_tool_as_documented(self, cli=True)


HAVE_SDK = importlib.util.find_spec("mcp") is not None and importlib.util.find_spec("mcp.client") is not None


# The calls each client makes, in order (newt: the tool that register adds).
SDK_CALLS: List[Tuple[str, Dict[str, Any]]] = [
    ("log_levels", {}), ("progress", {"steps": 3}), ("progress_back", {}), ("book", {}), ("book_twice", {}),
    ("book_form", {}),
    ("visit", {}), ("summarize", {"text": "t"}), ("roots", {}), ("everything", {}), ("about", {}),
    ("named_anything", {"a": 1}), ("generic_context", {"x": "y"}), ("lifespan_sdk_style", {}),
    ("meta_sdk_style", {}), ("register", {"name": "newt"}), ("newt", {}), ("announce", {}),
    ("reserve", {"venue": "Oslo"}), ("reserve_outcome", {"venue": "Oslo"}), ("survey", {"venue": "Oslo"}),
]

# Tools whose parameters the SDK's Resolve(...) markers fill: the same questions and
# results from both servers in both eras (the SDK's server asks them in 2026-07-28 too).
RESOLVED = {"reserve", "reserve_outcome", "survey"}

QUESTIONS = {"book", "book_twice", "book_form", "visit", "summarize", "roots", "everything"}

# Where mcp_ref differs on purpose (docs/sdk-differences.md), asserted apart:
#   progress_back  a progress value that does not increase is dropped (the spec: MUST increase);
#   register       tools/list_changed is sent to sessions when a tool is added;
# and lifespan_sdk_style, meta_sdk_style, whose progress token differs in 2026-07-28.
DIFFERENT = {"progress_back", "register", "lifespan_sdk_style", "meta_sdk_style"}


async def _drive(command: List[str], mode: str) -> Dict[str, Any]:
    """One SDK client session: every call of SDK_CALLS, with what the client's
    callbacks saw for each (questions, log lines, progress, notifications)."""
    import mcp_types as types
    from mcp import Client, StdioServerParameters

    events: List[Any] = []

    def dump(model: Any) -> Any:
        return model.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def sampling(context: Any, params: Any) -> Any:
        events.append(["sampling", dump(params)])
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="sampled"),
                                         model="m1", stop_reason="endTurn")

    async def elicitation(context: Any, params: Any) -> Any:
        events.append(["elicitation", dump(params)])
        if getattr(params, "mode", None) == "url":
            return types.ElicitResult(action="accept")
        return types.ElicitResult(action="accept", content={"date": "friday", "guests": 4})

    async def list_roots(context: Any) -> Any:
        events.append(["roots"])
        return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])

    async def logging(params: Any) -> None:
        events.append(["log", dump(params)])

    async def messages(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            events.append(["tools/list_changed"])

    out: Dict[str, Any] = {"calls": {}}
    # The SDK's server warns on stderr that logging, sampling and roots are deprecated in 2026-07-28.
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=HERE,
                                   env={"PYTHONWARNINGS": "ignore::UserWarning"})
    async with Client(params, mode=mode, sampling_callback=sampling, elicitation_callback=elicitation,
                      list_roots_callback=list_roots, logging_callback=logging, message_handler=messages,
                      log_level="warning") as client:
        out["version"] = client.protocol_version
        out["tools"] = {t.name: dump(t) for t in (await client.list_tools()).tools}
        for name, arguments in SDK_CALLS:
            events.clear()

            async def progress(value: float, total: Optional[float], message: Optional[str]) -> None:
                events.append(["progress", value, total, message])

            try:
                result = await client.call_tool(name, arguments, progress_callback=progress)
                outcome = {"result": dump(result)}
            except Exception as exc:  # noqa: BLE001  (the SDK's server refuses some calls in 2026-07-28)
                outcome = {"raised": f"{type(exc).__name__}: {exc}"}
            outcome["events"] = list(events)
            out["calls"][name] = outcome
        # A resource and a prompt whose functions log and ask, as a tool does.
        for what, read in (("note", lambda: client.read_resource("notes://cats")),
                           ("plan", lambda: client.get_prompt("plan", {"topic": "trip"}))):
            events.clear()
            try:
                outcome = {"result": dump(await read())}
            except Exception as exc:  # noqa: BLE001  (the SDK's server cannot ask in 2026-07-28)
                outcome = {"raised": f"{type(exc).__name__}: {exc}"}
            outcome["events"] = list(events)
            out[what] = outcome
    return out


def _normalised(outcome: Dict[str, Any]) -> Dict[str, Any]:
    """A call's result without what must differ: the 2026 decoration, the
    request id (mcp_ref's question rounds use more requests)."""
    result = dict(outcome.get("result") or {})
    result.pop("_meta", None)
    result.pop("resultType", None)
    structured = result.get("structuredContent")
    if isinstance(structured, dict) and "request_id" in structured:
        structured = result["structuredContent"] = dict(structured, request_id="*")
        result["content"] = [{"type": "text", "text": json.dumps(structured, indent=2)}]
    return {"result": result, "events": outcome["events"]}


def _server_frames(log: str) -> List[Any]:
    """What the server wrote: [kind, method, params] for its notifications,
    [kind, method, params, id] for its requests, ['response', id] for its responses."""
    frames: List[Any] = []
    with open(log, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("< "):
                continue
            frame = json.loads(line[2:])
            if "method" in frame:
                if "id" in frame:
                    frames.append(["request", frame["method"], frame.get("params"), frame["id"]])
                else:
                    frames.append(["notification", frame["method"], frame.get("params")])
            else:
                frames.append(["response", frame.get("id")])
    return frames


@unittest.skipUnless(HAVE_SDK, "the official SDK (pip install 'mcp==2.3.*') is not installed; .ci/run installs it")
class SdkClientTest(unittest.TestCase):
    """The SDK's client against testdata/context_server.py run as a script (on
    the module under test) and against the SDK serving the same file, in legacy mode (2025-11-25) and
    in its default mode (2026-07-28)."""

    runs: Dict[Tuple[str, str], Dict[str, Any]] = {}
    maxDiff = None

    @classmethod
    def setUpClass(cls) -> None:
        cls.folder = tempfile.mkdtemp(prefix="mcp_ref-context-")
        commands = {"ref": python_command(SERVER), "sdk": [sys.executable, SDK_LAUNCHER, SERVER]}
        keys = [(mode, side) for mode in ("legacy", "auto") for side in ("ref", "sdk")]

        async def all_runs() -> List[Dict[str, Any]]:
            return await asyncio.gather(*(
                _drive([sys.executable, FRAME_TAP, os.path.join(cls.folder, f"{mode}-{side}.log")] + commands[side],
                       mode) for mode, side in keys))

        for key, run in zip(keys, asyncio.run(all_runs())):
            log = os.path.join(cls.folder, f"{key[0]}-{key[1]}.log")
            run["frames"] = _server_frames(log)
            with open(log, encoding="utf-8") as f:
                run["initialize"] = json.loads(f.readlines()[1][2:]).get("result")
            cls.runs[key] = run

    @classmethod
    def tearDownClass(cls) -> None:
        shutil.rmtree(cls.folder, ignore_errors=True)

    def test_revisions(self) -> None:
        self.assertEqual(self.runs["legacy", "ref"]["version"], "2025-11-25")
        self.assertEqual(self.runs["legacy", "sdk"]["version"], "2025-11-25")
        self.assertEqual(self.runs["auto", "ref"]["version"], MODERN)
        self.assertEqual(self.runs["auto", "sdk"]["version"], MODERN)

    def test_same_input_schemas(self) -> None:
        for mode in ("legacy", "auto"):
            ours, theirs = self.runs[mode, "ref"]["tools"], self.runs[mode, "sdk"]["tools"]
            self.assertEqual(set(theirs), {name for name, _ in SDK_CALLS if name != "newt"} | {"seen", "wait_async"})
            for name in theirs:
                with self.subTest(mode=mode, tool=name):
                    self.assertEqual(ours[name]["inputSchema"], theirs[name]["inputSchema"])

    def test_handshake_era_same_results_and_notifications(self) -> None:
        ours, theirs = self.runs["legacy", "ref"]["calls"], self.runs["legacy", "sdk"]["calls"]
        for name, _ in SDK_CALLS:
            if name in DIFFERENT:
                continue
            with self.subTest(tool=name):
                self.assertNotIn("raised", ours[name])
                self.assertEqual(_normalised(ours[name]), _normalised(theirs[name]))

    def test_2026_same_results_where_the_sdk_answers(self) -> None:
        ours, theirs = self.runs["auto", "ref"]["calls"], self.runs["auto", "sdk"]["calls"]
        for name, _ in SDK_CALLS:
            if name in DIFFERENT or name in QUESTIONS:
                continue
            with self.subTest(tool=name):
                self.assertEqual(_normalised(ours[name]), _normalised(theirs[name]))

    def test_2026_questions_go_through_input_required_rounds(self) -> None:
        # The SDK 2.3's server cannot ask over stdio in 2026-07-28: ctx.elicit and
        # ctx.session raise there ("no back-channel", JSON-RPC error -32600);
        # mcp_ref asks with InputRequiredResult, which the SDK's client answers
        # with the same callbacks, to the same results as in a session.
        for name in sorted(QUESTIONS):
            with self.subTest(tool=name):
                theirs = self.runs["auto", "sdk"]["calls"][name]
                self.assertIn("no back-channel", theirs["raised"])
                in_session = json.loads(json.dumps(_normalised(self.runs["legacy", "sdk"]["calls"][name])))
                if name == "visit":  # 2026-07-28 removed a URL elicitation's elicitationId (client/elicitation)
                    in_session["events"][0][1].pop("elicitationId")
                self.assertEqual(_normalised(self.runs["auto", "ref"]["calls"][name]), in_session)
        rounds = [f for f in self.runs["auto", "ref"]["frames"] if f[0] == "request"]
        self.assertEqual(rounds, [], "no server-to-client requests in 2026-07-28")

    def test_resolvers_ask_the_same_in_both_eras(self) -> None:
        # Resolve(...): the SDK's server asks in 2026-07-28 too (InputRequiredResult
        # rounds), and the client sees the same questions, log lines and results.
        for mode in ("legacy", "auto"):
            ours, theirs = self.runs[mode, "ref"]["calls"], self.runs[mode, "sdk"]["calls"]
            for name in sorted(RESOLVED):
                with self.subTest(mode=mode, tool=name):
                    self.assertNotIn("raised", ours[name])
                    self.assertEqual(_normalised(ours[name]), _normalised(theirs[name]))
            # In 2026-07-28 the resolvers run again on the retry (on both): its log line twice.
            again = ["log"] if mode == "auto" else []
            self.assertEqual([e[0] for e in ours["survey"]["events"]],
                             ["log", "sampling", "roots", "elicitation"] + again)
        for side in ("ref", "sdk"):  # survey's three questions in one round, keyed module:qualname
            with open(os.path.join(self.folder, f"auto-{side}.log"), encoding="utf-8") as f:
                rounds = [json.loads(line[2:])["result"]["inputRequests"] for line in f
                          if line.startswith("< ") and '"inputRequests"' in line]
            rounds = rounds[-5:-2] if side == "ref" else rounds[-3:]  # the resolvers' (then ref: note, plan)
            module = "__main__"  # both run the file as a script (serve would import it as context_server)
            self.assertEqual([sorted(r) for r in rounds], [[f"{module}:resolve_booking"]] * 2 + [sorted(
                f"{module}:resolve_{n}" for n in ("booking", "roots", "summary"))])
            self.assertEqual(rounds[-1][f"{module}:resolve_roots"]["method"], "roots/list")
        for mode in ("legacy", "auto"):
            self.assertNotIn("line", self.runs[mode, "ref"]["tools"]["reserve"]["inputSchema"]["properties"])

    def test_resources_and_prompts_log_and_ask(self) -> None:
        # In a session, as the SDK's: the log line and the question on the
        # request's stream, before its response.
        for what in ("note", "plan"):
            with self.subTest(what=what):
                ours, theirs = self.runs["legacy", "ref"][what], self.runs["legacy", "sdk"][what]
                self.assertNotIn("raised", ours)
                self.assertEqual(ours, theirs)
                self.assertEqual(len(ours["events"]), 2)
                # 2026-07-28: the SDK's server cannot ask ("no back-channel"); mcp_ref
                # answers with an InputRequiredResult, which the client answers with the
                # same callback; the function runs again on the retry (its log line twice).
                modern = self.runs["auto", "ref"][what]
                self.assertIn("no back-channel", self.runs["auto", "sdk"][what]["raised"])
                self.assertEqual(modern["events"], ours["events"] + ours["events"][:1])
                result = dict(modern["result"])
                self.assertEqual(result.pop("_meta"), {"io.modelcontextprotocol/serverInfo": SERVER_INFO})
                self.assertEqual(result, ours["result"])

    def test_where_mcp_ref_differs_on_purpose(self) -> None:
        for mode in ("legacy", "auto"):
            with self.subTest(mode=mode):
                ours, theirs = self.runs[mode, "ref"]["calls"], self.runs[mode, "sdk"]["calls"]
                values = [e[1] for e in theirs["progress_back"]["events"]]
                self.assertEqual(values, [1, 2, 2, 1.5, 3])  # the SDK sends what it is given
                self.assertEqual([e[1] for e in ours["progress_back"]["events"]], [1, 2, 3])
                self.assertEqual(_normalised(ours["progress_back"])["result"],
                                 _normalised(theirs["progress_back"])["result"])
                self.assertEqual(theirs["register"]["events"], [])  # the SDK announces nothing
                expected = [["tools/list_changed"]] if mode == "legacy" else []  # sessions only
                self.assertEqual(ours["register"]["events"], expected)
                self.assertEqual(_normalised(ours["newt"]), _normalised(theirs["newt"]))

    def test_request_context_as_the_sdk_has_it(self) -> None:
        for mode in ("legacy", "auto"):
            ours, theirs = self.runs[mode, "ref"]["calls"], self.runs[mode, "sdk"]["calls"]
            for name in ("lifespan_sdk_style", "meta_sdk_style"):
                with self.subTest(mode=mode, tool=name):
                    got, expected = json.dumps(_normalised(ours[name])), json.dumps(_normalised(theirs[name]))
                    if mode == "auto":  # the token is the request's id: mcp_ref's question rounds took more
                        got, expected = re.sub(r"token \d+", "token N", got), re.sub(r"token \d+", "token N", expected)
                    self.assertEqual(got, expected)
                    self.assertNotIn("None", got)

    def test_handshake_frames_in_the_same_order(self) -> None:
        def comparable(frames: List[Any]) -> List[Any]:
            """The frames less the differences on purpose, and the SDK's roots/list without params."""
            out, last = [], {}
            for frame in frames:
                if frame[:2] == ["notification", "notifications/tools/list_changed"]:
                    continue
                if frame[:2] == ["notification", "notifications/progress"]:
                    token, value = frame[2]["progressToken"], frame[2]["progress"]
                    if token in last and value <= last[token]:
                        continue
                    last[token] = value
                if frame[:2] == ["request", "roots/list"]:
                    frame = ["request", "roots/list", frame[2] or {}]
                out.append(frame[:3])
            return out

        ours, theirs = self.runs["legacy", "ref"]["frames"], self.runs["legacy", "sdk"]["frames"]
        self.assertEqual(comparable(ours), comparable(theirs))
        # Every notification and question comes before its call's response, in the
        # same order on both; the questions' ids differ: "mcp_ref-N", the SDK's 1, 2, ...
        ids = [frame[3] for frame in ours if frame[0] == "request"]
        self.assertEqual(ids, [f"mcp_ref-{n}" for n in range(1, 18)])  # book 1, book_twice 2, visit,
        self.assertEqual([frame[3] for frame in theirs if frame[0] == "request"], list(range(1, 18)))  # ...
        # The SDK sends roots/list without params, mcp_ref with {} (both valid).
        self.assertIn(["request", "roots/list", None], [f[:3] for f in theirs])
        self.assertIn(["request", "roots/list", {}], [f[:3] for f in ours])

    def test_handshake_capabilities(self) -> None:
        # The SDK 2.3 logs without declaring logging, and says listChanged false;
        # mcp_ref declares logging and announces the changes of all three lists.
        ours, theirs = self.runs["legacy", "ref"]["initialize"], self.runs["legacy", "sdk"]["initialize"]
        self.assertEqual(ours["capabilities"], {"logging": {}, "tools": {"listChanged": True},
                                                "prompts": {"listChanged": True},
                                                "resources": {"subscribe": True, "listChanged": True}})
        self.assertNotIn("logging", theirs["capabilities"])
        self.assertEqual(theirs["capabilities"]["tools"], {"listChanged": False})
        self.assertEqual({k: v for k, v in ours.items() if k != "capabilities"},
                         {k: v for k, v in theirs.items() if k != "capabilities"})


if __name__ == "__main__":
    unittest.main()

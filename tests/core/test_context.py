"""Context (sections 12 and 13) on the wire: whole frames over real pipes, in
every revision that has each feature, with the test playing the client.

testdata/context_server.py is served as a subprocess: the file itself, on the
module under test (python_command; tests/layers/test_context.py runs two of
these tests on ``python mcp_ref.py serve`` too).  Covered: logging
(logging/setLevel; 2026-07-28's per-request level), progress, questions to the
client (elicitation in form and URL mode, sampling, roots) as server-to-client
requests in a session and as InputRequiredResult rounds with a signed
requestState in 2026-07-28, a tool's own InputRequiredResult, Context injection,
the lifespan, cancellation, and list_changed.

The file's tools are written in the SDK's API (ctx.session); on the core alone
they ask with the Context's own methods, which send the same frames
(context_server.session), so these tests check both.  What only the SDK's API has
(resolvers, ctx.request_context, ctx.session.check_client_capability,
pydantic's lax values, examples/context_demo.py) and the SDK's client against
the SDK serving the same file are in tests/layers/test_context.py.
"""

import base64
import contextlib
import hashlib
import hmac
import io
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import unittest
import unittest.mock
from typing import Any, Dict, List, Optional, Tuple

from tests._testing import mcp_ref

from tests._testing import HERE  # the repository's root
from tests._testing import UNDER_TEST  # the core alone's folder (None: the whole file)
from tests._testing import python_command  # a server's command line, on the module under test

from tests.core.test_wire import ServerProcess, StdioWire, wsgi_post, wsgi_session


MCP_REF = os.path.join(HERE, "mcp_ref.py")

SERVER = os.path.join(HERE, "tests", "testdata", "context_server.py")


MODERN = "2026-07-28"

HANDSHAKE = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

LATEST = "2025-11-25"

ALL_CAPS: Dict[str, Any] = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {"listChanged": True}}

META_VERSION = "io.modelcontextprotocol/protocolVersion"

META_CAPS = "io.modelcontextprotocol/clientCapabilities"

META_LOG = "io.modelcontextprotocol/logLevel"

SERVER_INFO = {"name": "context", "version": "1.0"}

STATE = re.compile(r"v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")


BOOKING_SCHEMA = {"properties": {"date": {"title": "Date", "type": "string"},
                                 "guests": {"default": 2, "title": "Guests", "type": "integer"}},
                  "required": ["date"], "title": "Booking", "type": "object"}

LOG_LINES = [("debug", "a debug line"), ("info", "an info line"), ("warning", "a warning line"),
             ("error", "an error line"), ("critical", {"structured": [1, 2]})]

SAMPLING_ANSWER = {"role": "assistant", "content": {"type": "text", "text": "short"}, "model": "m1",
                   "stopReason": "endTurn"}

ROOTS_ANSWER = {"roots": [{"uri": "file:///a", "name": "A"}, {"uri": "file:///b", "name": "B"}]}


def notification(method: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    frame: Dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        frame["params"] = params
    return frame


def log_frame(level: str, data: Any, logger: Optional[str] = None) -> Dict[str, Any]:
    params = {"level": level, "data": data}
    if logger is not None:
        params["logger"] = logger
    return notification("notifications/message", params)


def log_frames(least: str) -> List[Dict[str, Any]]:
    levels = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
    return [log_frame(level, data, "db" if level == "critical" else None)
            for level, data in LOG_LINES if levels.index(level) >= levels.index(least)]


def progress_frame(token: Any, progress: float, total: Optional[float] = None,
                   message: Optional[str] = None) -> Dict[str, Any]:
    params: Dict[str, Any] = {"progressToken": token, "progress": progress}
    if total is not None:
        params["total"] = total
    if message is not None:
        params["message"] = message
    return notification("notifications/progress", params)


def question(n: int, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": f"mcp_ref-{n}", "method": method, "params": params}


def form_params(message: str, version: str = LATEST) -> Dict[str, Any]:
    params: Dict[str, Any] = {"message": message, "requestedSchema": BOOKING_SCHEMA}
    return {"mode": "form", **params} if version >= "2025-11-25" else params


URL_PARAMS = {"mode": "url", "message": "Please sign in", "url": "https://example.com/login",
              "elicitationId": "login-1"}

# 2026-07-28 removed elicitationId (client/elicitation; changelog: the retry tells the outcome).
MODERN_URL_PARAMS = {k: v for k, v in URL_PARAMS.items() if k != "elicitationId"}


def sampling_params(text: str) -> Dict[str, Any]:
    return {"messages": [{"role": "user", "content": {"type": "text", "text": f"Summarize: {text}"}}],
            "maxTokens": 50, "systemPrompt": "Be brief.", "temperature": 0.5}


def decorate(result: Dict[str, Any], version: str) -> Dict[str, Any]:
    if version == MODERN:
        return dict(result, resultType="complete", _meta={"io.modelcontextprotocol/serverInfo": SERVER_INFO})
    return result


def result_frame(id_: Any, version: str, text: str, structured: Any = None) -> Dict[str, Any]:
    """A tool's text result (structured as {"result": text} where the revision has it)."""
    result: Dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if version >= "2025-06-18":
        result["structuredContent"] = {"result": text} if structured is None else structured
    result["isError"] = False
    return {"jsonrpc": "2.0", "id": id_, "result": decorate(result, version)}


def tool_error_frame(id_: Any, version: str, text: str) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_,
            "result": decorate({"content": [{"type": "text", "text": text}], "isError": True}, version)}


def rpc_error_frame(id_: Any, code: int, message: str, data: Any = None) -> Dict[str, Any]:
    error: Dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": id_, "error": error}


def input_required_frame(id_: Any, requests: Dict[str, Any]) -> Dict[str, Any]:
    """An InputRequiredResult; its requestState is checked apart (take_state)."""
    return {"jsonrpc": "2.0", "id": id_, "result": {
        "resultType": "input_required", "inputRequests": requests,
        "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO}}}


def take_state(frame: Dict[str, Any]) -> str:
    """The requestState of an InputRequiredResult frame, removed from it."""
    state = frame["result"].pop("requestState")
    assert STATE.fullmatch(state), state
    return str(state)


def resign(state: str, key: bytes, **changes: Any) -> str:
    """A requestState with its payload changed and signed again with ``key``: the
    format section 12 describes (v1.<base64url JSON>.<base64url HMAC-SHA256 of the body>)."""
    _, body, _ = state.split(".")
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    payload.update(changes)
    body = base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode()).decode().rstrip("=")
    signature = base64.urlsafe_b64encode(hmac.new(key, body.encode(), hashlib.sha256).digest()).decode().rstrip("=")
    return f"v1.{body}.{signature}"


class ContextServer(ServerProcess):
    """testdata/context_server.py on real pipes: the file itself, or ``mcp_ref.py serve`` it."""

    def __init__(self, env: Optional[Dict[str, str]] = None, cli: bool = False, script: str = SERVER) -> None:
        command = [sys.executable, MCP_REF, "serve", script] if cli else python_command(script)
        full_env = dict(os.environ, PYTHONUNBUFFERED="1")
        # PYTHONDONTWRITEBYTECODE would have every server compile mcp_ref.py anew
        # (a quarter of a second, some sixty times).
        for name in ("MCP_REF_STATE_KEY", "CONTEXT_REQUEST_TIMEOUT", "PYTHONDONTWRITEBYTECODE"):
            full_env.pop(name, None)
        full_env.update(env or {})
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=full_env)
        self.lines: "queue.Queue[Optional[bytes]]" = queue.Queue()
        self.stderr_chunks: List[bytes] = []
        self.init_reply: Dict[str, Any] = {}
        threading.Thread(target=self._pump, daemon=True).start()
        self._stderr_pump = threading.Thread(target=self._pump_stderr, daemon=True)
        self._stderr_pump.start()

    def until(self, id_: Any) -> List[Dict[str, Any]]:
        """Every frame up to and including the response to request ``id_``."""
        frames = []
        while True:
            frame = self.recv()
            frames.append(frame)
            if "method" not in frame and frame.get("id") == id_:
                return frames

    def answer(self, asked: Dict[str, Any], result: Any = None, error: Any = None) -> None:
        frame: Dict[str, Any] = {"jsonrpc": "2.0", "id": asked["id"]}
        if error is not None:
            frame["error"] = error
        else:
            frame["result"] = result
        self.send(frame)


class _Spares:
    """Servers of the default kind started ahead, so that a test need not wait
    for one to import (a few tenths of a second each, some sixty times)."""

    AHEAD = 2

    def __init__(self) -> None:
        self.ready: List[ContextServer] = []
        self.stateless: Optional[ContextServer] = None

    def take(self, env: Optional[Dict[str, str]], cli: bool) -> ContextServer:
        if env or cli:
            return ContextServer(env, cli)
        server = self.ready.pop(0) if self.ready else ContextServer()
        while len(self.ready) < self.AHEAD:
            self.ready.append(ContextServer())
        return server

    def shared(self) -> ContextServer:
        """One server for the tests of 2026-07-28 alone, whose requests share no
        state: drained of anything a failed test left unread."""
        if self.stateless is None or self.stateless.process.poll() is not None:
            self.stateless = ContextServer()
        while not self.stateless.nothing_for(0):
            self.stateless.lines.get()
        return self.stateless

    def close(self) -> None:
        while self.ready:
            self.ready.pop().kill()
        if self.stateless is not None:
            self.stateless.kill()


SPARES = _Spares()


def tearDownModule() -> None:  # noqa: N802  (unittest's name)
    SPARES.close()


class ContextTestCase(unittest.TestCase):
    maxDiff = None

    def start(self, env: Optional[Dict[str, str]] = None, cli: bool = False) -> ContextServer:
        server = SPARES.take(env, cli)
        self.addCleanup(server.kill)
        return server

    @staticmethod
    def shared() -> ContextServer:
        return SPARES.shared()

    def session(self, version: str = LATEST, caps: Optional[Dict[str, Any]] = None,
                env: Optional[Dict[str, str]] = None, cli: bool = False) -> ContextServer:
        """A server after the handshake of ``version``, the client declaring ``caps``."""
        server = self.start(env, cli)
        reply = server.request(0, "initialize", {"protocolVersion": version,
                                                 "capabilities": ALL_CAPS if caps is None else caps,
                                                 "clientInfo": {"name": "test-client", "version": "1"}})
        self.assertEqual(reply["result"]["protocolVersion"], version)
        server.init_reply = reply
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return server

    @staticmethod
    def call(server: ContextServer, id_: Any, name: str, arguments: Optional[Dict[str, Any]] = None,
             meta: Optional[Dict[str, Any]] = None, **params: Any) -> None:
        body: Dict[str, Any] = {"name": name, "arguments": arguments or {}}
        if meta is not None:
            body["_meta"] = meta
        body.update(params)
        server.send({"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": body})

    @staticmethod
    def modern_meta(caps: Optional[Dict[str, Any]] = None, **extra: Any) -> Dict[str, Any]:
        meta = {META_VERSION: MODERN, META_CAPS: ALL_CAPS if caps is None else caps}
        meta.update(extra)
        return meta

    def modern_call(self, server: ContextServer, id_: Any, name: str, arguments: Optional[Dict[str, Any]] = None,
                    caps: Optional[Dict[str, Any]] = None, meta: Optional[Dict[str, Any]] = None,
                    **params: Any) -> List[Dict[str, Any]]:
        """A 2026-07-28 tools/call; every frame up to its response."""
        self.call(server, id_, name, arguments, dict(self.modern_meta(caps), **(meta or {})), **params)
        return server.until(id_)


class LoggingTest(ContextTestCase):
    def test_every_level_before_set_level_in_every_handshake_revision(self) -> None:
        for version in HANDSHAKE:
            with self.subTest(version=version):
                server = self.session(version)
                # Declared (the SDK 2.3 logs without declaring it); list_changed too (ListChangedTest).
                self.assertEqual(server.init_reply["result"]["capabilities"],
                                 {"logging": {}, "tools": {"listChanged": True}, "prompts": {"listChanged": True},
                                  "resources": {"subscribe": True, "listChanged": True}})
                self.call(server, 1, "log_levels")
                self.assertEqual(server.until(1), log_frames("debug") + [result_frame(1, version, "logged")])

    def test_set_level_sets_the_least_level(self) -> None:
        server = self.session()
        for n, (level, least) in enumerate((("warning", "warning"), ("critical", "critical"), ("debug", "debug"))):
            with self.subTest(level=level):
                self.assertEqual(server.request(f"s{n}", "logging/setLevel", {"level": level}),
                                 {"jsonrpc": "2.0", "id": f"s{n}", "result": {}})
                self.call(server, n, "log_levels")
                self.assertEqual(server.until(n), log_frames(least) + [result_frame(n, LATEST, "logged")])
        self.assertEqual(server.request(9, "logging/setLevel", {"level": "emergency"})["result"], {})
        self.call(server, 10, "log_levels")
        self.assertEqual(server.until(10), [result_frame(10, LATEST, "logged")])

    def test_set_level_refuses_an_unknown_level(self) -> None:
        server = self.session()
        for level in ("verbose", None, 3):
            with self.subTest(level=level):
                reply = server.request(1, "logging/setLevel", {"level": level})
                self.assertEqual(reply["error"]["code"], -32602)
        self.call(server, 2, "log_levels")  # the level stays as it was: every level
        self.assertEqual(server.until(2), log_frames("debug") + [result_frame(2, LATEST, "logged")])

    def test_2026_logs_only_at_the_request_level(self) -> None:
        server = self.shared()
        cases = [({}, None), ({META_LOG: "debug"}, "debug"), ({META_LOG: "warning"}, "warning"),
                 ({META_LOG: "emergency"}, None)]
        for n, (meta, least) in enumerate(cases):
            with self.subTest(meta=meta):
                frames = self.modern_call(server, n, "log_levels", meta=meta)
                self.assertEqual(frames, (log_frames(least) if least else []) + [result_frame(n, MODERN, "logged")])

    def test_2026_refuses_an_unknown_request_level(self) -> None:
        # server/utilities/logging, "Error Handling": an unrecognised level is
        # -32602, as logging/setLevel refuses one; in any request, and over HTTP.
        server = self.shared()
        refused = ("Invalid params: io.modelcontextprotocol/logLevel must be one of debug, info, notice, warning, "
                   "error, critical, alert, emergency")
        for n, level in enumerate(("verbose", 3, None, "DEBUG")):
            with self.subTest(level=level):
                frames = self.modern_call(server, n, "log_levels", meta={META_LOG: level})
                self.assertEqual(frames, [rpc_error_frame(n, -32602, refused)])
        self.assertEqual(server.request(9, "tools/list", {"_meta": self.modern_meta(**{META_LOG: "loud"})}),
                         rpc_error_frame(9, -32602, refused))
        app = mcp_ref.MCPServer("h").streamable_http_app()
        self.addCleanup(app.close)
        reply = wsgi_post(app, {"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                                "params": {"_meta": self.modern_meta(**{META_LOG: "loud"})}})
        self.assertEqual(reply, (400, [rpc_error_frame(1, -32602, refused)]))

    def test_2026_has_no_set_level(self) -> None:
        server = self.shared()
        self.assertEqual(server.request(1, "logging/setLevel", {"level": "error", "_meta": self.modern_meta()}),
                         rpc_error_frame(1, -32601, "Method not found: logging/setLevel"))

    def test_sync_tool_logs_and_reports_without_await(self) -> None:
        for version in ("2024-11-05", LATEST, MODERN):
            with self.subTest(version=version):
                half = None if version == "2024-11-05" else "half"
                expected = [log_frame("info", "sync info"), progress_frame(9, 1, 2, half),
                            log_frame("warning", {"n": 1}, "session"), progress_frame(9, 2, 2),
                            result_frame(1, version, "done")]
                if version == MODERN:
                    server = self.shared()
                    frames = self.modern_call(server, 1, "sync_log_progress",
                                              meta={"progressToken": 9, META_LOG: "info"})
                else:
                    server = self.session(version)
                    self.call(server, 1, "sync_log_progress", meta={"progressToken": 9})
                    frames = server.until(1)
                self.assertEqual(frames, expected)


class ProgressTest(ContextTestCase):
    def test_progress_with_a_token_in_every_revision(self) -> None:
        for version in HANDSHAKE + (MODERN,):
            server = self.shared() if version == MODERN else self.session(version)
            for n, token in enumerate(("tok", 7)):
                with self.subTest(version=version, token=token):
                    message = version >= "2025-03-26"  # ProgressNotification.message: from 2025-03-26
                    expected = [progress_frame(token, i, 3, f"step {i}" if message else None) for i in (1, 2, 3)]
                    expected.append(result_frame(n, version, "3 steps"))
                    if version == MODERN:
                        frames = self.modern_call(server, n, "progress", {"steps": 3}, meta={"progressToken": token})
                    else:
                        self.call(server, n, "progress", {"steps": 3}, {"progressToken": token})
                        frames = server.until(n)
                    self.assertEqual(frames, expected)

    def test_no_token_no_progress(self) -> None:
        server = self.session()
        self.call(server, 1, "progress", {"steps": 3})
        self.assertEqual(server.until(1), [result_frame(1, LATEST, "3 steps")])
        self.call(server, 2, "progress", {"steps": 2}, {"other": 1})
        self.assertEqual(server.until(2), [result_frame(2, LATEST, "2 steps")])
        self.assertEqual(self.modern_call(server, 3, "progress", {"steps": 2}), [result_frame(3, MODERN, "2 steps")])

    def test_a_value_that_does_not_increase_is_dropped(self) -> None:
        server = self.session()
        self.call(server, 1, "progress_back", meta={"progressToken": "t"})  # reports 1, 2, 2, 1.5, 3
        self.assertEqual(server.until(1), [progress_frame("t", 1), progress_frame("t", 2), progress_frame("t", 3),
                                           result_frame(1, LATEST, "done")])
        self.call(server, 2, "progress_back", meta={"progressToken": "t"})  # a new request starts afresh
        self.assertEqual(len(server.until(2)), 4)


class SessionQuestionTest(ContextTestCase):
    """The server asks with a JSON-RPC request of its own; the test answers as the client."""

    def test_form_elicitation_accept_decline_cancel(self) -> None:
        server = self.session()
        answers = [({"action": "accept", "content": {"date": "mon", "guests": 3}}, "accept: mon for 3"),
                   ({"action": "accept", "content": {"date": "tue"}}, "accept: tue for 2"),  # the default
                   ({"action": "decline"}, "decline"), ({"action": "cancel"}, "cancel")]
        for n, (answer, text) in enumerate(answers, start=1):
            with self.subTest(answer=answer):
                self.call(server, n, "book")
                asked = server.recv()
                self.assertEqual(asked, question(n, "elicitation/create", form_params("When and for how many?")))
                server.answer(asked, answer)
                self.assertEqual(server.until(n), [result_frame(n, LATEST, text)])

    def test_form_elicitation_before_modes(self) -> None:
        server = self.session("2025-06-18", {"elicitation": {}})
        self.call(server, 1, "book")
        asked = server.recv()
        self.assertEqual(asked, question(1, "elicitation/create", form_params("When and for how many?", "2025-06-18")))
        server.answer(asked, {"action": "accept", "content": {"date": "mon"}})
        self.assertEqual(server.until(1), [result_frame(1, "2025-06-18", "accept: mon for 2")])

    def test_elicit_form_sends_mode_where_the_revision_has_it(self) -> None:
        # ctx.session.elicit_form, with the SDK's related_request_id (a routing hint, never a param);
        # on the core alone ctx.elicit_form, the same frames.
        schema = {"type": "object", "properties": {"date": {"type": "string"}}}
        for n, version in enumerate(("2025-06-18", "2025-11-25"), start=1):
            with self.subTest(version=version):
                server = self.session(version, {"elicitation": {}})
                self.call(server, n, "book_form")
                asked = server.recv()
                params = {"message": "When?", "requestedSchema": schema}
                self.assertEqual(asked, question(1, "elicitation/create",
                                                 {"mode": "form", **params} if version >= "2025-11-25" else params))
                server.answer(asked, {"action": "decline"})
                self.assertEqual(server.until(n), [result_frame(n, version, "decline")])
        frames = self.modern_call(self.shared(), 1, "book_form")
        self.assertEqual(frames[-1]["result"]["inputRequests"], {"elicitation_0": {
            "method": "elicitation/create", "params": {"mode": "form", "message": "When?", "requestedSchema": schema}}})

    def test_url_elicitation(self) -> None:
        server = self.session()
        for n, action in enumerate(("accept", "decline", "cancel"), start=1):
            self.call(server, n, "visit")
            asked = server.recv()
            self.assertEqual(asked, question(n, "elicitation/create", URL_PARAMS))
            server.answer(asked, {"action": action})
            self.assertEqual(server.until(n), [result_frame(n, LATEST, action)])

    def test_sampling(self) -> None:
        server = self.session()
        self.call(server, 1, "summarize", {"text": "a long text"})
        asked = server.recv()
        self.assertEqual(asked, question(1, "sampling/createMessage", sampling_params("a long text")))
        server.answer(asked, SAMPLING_ANSWER)
        self.assertEqual(server.until(1), [result_frame(1, LATEST, "m1/assistant/endTurn: short")])

    def test_roots(self) -> None:
        server = self.session()
        self.call(server, 1, "roots")
        asked = server.recv()
        self.assertEqual(asked, question(1, "roots/list", {}))
        server.answer(asked, ROOTS_ANSWER)
        texts = ["A=file:///a", "B=file:///b"]
        self.assertEqual(server.until(1), [{"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": t} for t in texts], "structuredContent": {"result": texts},
            "isError": False}}])

    def test_an_answer_that_does_not_fit_the_question_is_a_tool_error(self) -> None:
        # The SDK validates the client's result as its model: a malformed one fails the call.
        server = self.session()
        self.call(server, 1, "roots")
        server.answer(server.recv(), {"roots": [{"uri": 5}]})
        self.assertEqual(server.until(1), [tool_error_frame(1, LATEST, "Error executing tool roots: the client's "
                                                                       "answer to roots/list is invalid: "
                                                                       "$.roots[0].uri does not fit ListRootsResult")])

    def test_sampling_and_roots_in_the_first_revision(self) -> None:
        server = self.session("2024-11-05", {"sampling": {}, "roots": {}})
        self.call(server, 1, "summarize", {"text": "x"})
        server.answer(server.recv(), {"role": "assistant", "content": {"type": "text", "text": "B"}, "model": "m"})
        self.assertEqual(server.until(1), [{"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": "m/assistant/None: B"}], "isError": False}}])

    def test_three_questions_in_one_call_async_and_sync(self) -> None:
        server = self.session()
        for n, tool, first in ((1, "everything", "When?"), (2, "sync_everything", "When?")):
            with self.subTest(tool=tool):
                self.call(server, n, tool)
                base = 3 * (n - 1)
                asked = server.recv()
                if tool == "sync_everything":
                    self.assertEqual(asked, log_frame("info", "sync info"))
                    asked = server.recv()
                self.assertEqual(asked, question(base + 1, "elicitation/create", form_params(first)))
                server.answer(asked, {"action": "accept", "content": {"date": "fri", "guests": 5}})
                asked = server.recv()
                self.assertEqual(asked["method"], "sampling/createMessage")
                self.assertEqual(asked["id"], f"mcp_ref-{base + 2}")
                server.answer(asked, SAMPLING_ANSWER)
                asked = server.recv()
                self.assertEqual(asked, question(base + 3, "roots/list", {}))
                server.answer(asked, ROOTS_ANSWER)
                self.assertEqual(server.until(n), [result_frame(n, LATEST, "accept: fri for 5; short; 2 roots")])

    # The tool gets an MCPError; uncaught, it is the call's JSON-RPC error, as
    # any MCPError is (the SDK asks anyway, and passes the client's error on).
    def test_undeclared_capability_is_an_error_and_nothing_is_asked(self) -> None:
        server = self.session(caps={})
        for n, (tool, capability) in enumerate((("book", "elicitation"), ("visit", "elicitation.url"),
                                                ("summarize", "sampling"), ("roots", "roots")), start=1):
            with self.subTest(tool=tool):
                self.call(server, n, tool, {"text": "x"} if tool == "summarize" else {})
                self.assertEqual(server.until(n), [rpc_error_frame(
                    n, -32600, f"the client does not support {capability} (it did not declare that capability)")])
        self.call(server, 9, "swallow")  # a tool may catch it: an MCPError
        self.assertEqual(server.until(9)[0]["result"]["content"][0]["text"],
                         "swallowed MCPError: the client does not support elicitation (it did not declare that "
                         "capability)")

    def test_url_needs_its_own_capability(self) -> None:
        server = self.session(caps={"elicitation": {}})  # an empty object: form only
        self.call(server, 1, "visit")
        self.assertEqual(server.until(1), [rpc_error_frame(
            1, -32600, "the client does not support elicitation.url (it did not declare that capability)")])

    def test_elicitation_modes_by_declared_capability(self) -> None:
        # client/elicitation (2025-11-25): {} and {"form": {}} declare form mode, {"url": {}} URL mode.
        for caps, form, url in (({"elicitation": {}}, True, False), ({"elicitation": {"form": {}}}, True, False),
                                ({"elicitation": {"url": {}}}, False, True),
                                ({"elicitation": {"form": {}, "url": {}}}, True, True)):
            server = self.session(caps=caps)
            for n, (tool, allowed) in enumerate((("book", form), ("visit", url)), start=1):
                with self.subTest(caps=caps, tool=tool):
                    self.call(server, n, tool)
                    frame = server.recv()
                    self.assertEqual(frame.get("method") == "elicitation/create", allowed, frame)
                    if allowed:
                        server.answer(frame, {"action": "decline"})
                        self.assertEqual(server.until(n), [result_frame(n, LATEST, "decline")])
                    else:
                        self.assertEqual(frame["error"]["code"], -32600)

    # A client declaring {"elicitation": {"url": {}}} supports URL mode only
    # (client/elicitation, 2025-11-25: an empty object means form); it was once
    # sent a form elicitation anyway (fixed in 310fb45).
    def test_url_only_client_is_not_asked_a_form(self) -> None:
        server = self.session(caps={"elicitation": {"url": {}}})
        self.call(server, 1, "book")
        frame = server.recv()  # the call's error, not a question
        self.assertEqual((frame.get("id"), frame.get("method")), (1, None))
        self.assertIn("the client does not support elicitation", frame["error"]["message"])

    def test_questions_of_two_calls_answered_in_reverse_order(self) -> None:
        server = self.session()
        self.call(server, 1, "book")
        self.call(server, 2, "sync_everything")
        frames = [server.recv() for _ in range(3)]  # two questions and a log line, in either order
        questions = {frame["params"]["message"]: frame for frame in frames if "id" in frame}
        server.answer(questions["When?"], {"action": "decline"})  # sync_everything's, first
        asked = server.recv()
        self.assertEqual(asked["method"], "sampling/createMessage")
        server.answer(questions["When and for how many?"], {"action": "accept", "content": {"date": "sat"}})
        self.assertEqual(server.until(1), [result_frame(1, LATEST, "accept: sat for 2")])
        server.answer(asked, SAMPLING_ANSWER)
        server.answer(server.recv(), ROOTS_ANSWER)
        self.assertEqual(server.until(2), [result_frame(2, LATEST, "decline; short; 2 roots")])

    def test_many_calls_asking_at_once(self) -> None:
        # More sync tools waiting for answers than the pool has workers (8), and
        # async ones beside them: every question reaches the client, every answer its tool.
        server = self.session()
        for n in range(12):
            self.call(server, f"s{n}", "sync_everything")
            self.call(server, f"a{n}", "book")
        answers = {"elicitation/create": {"action": "accept", "content": {"date": "d"}},
                   "sampling/createMessage": SAMPLING_ANSWER, "roots/list": ROOTS_ANSWER}
        results: Dict[str, str] = {}
        while len(results) < 24:
            frame = server.recv()
            if "method" not in frame:
                results[frame["id"]] = frame["result"]["content"][0]["text"]
            elif "id" in frame:
                server.answer(frame, answers[frame["method"]])
        self.assertEqual(results, dict([(f"s{n}", "accept: d for 2; short; 2 roots") for n in range(12)] +
                                       [(f"a{n}", "accept: d for 2") for n in range(12)]))

    def test_client_that_never_answers(self) -> None:
        server = self.session(env={"CONTEXT_REQUEST_TIMEOUT": "0.3"})
        for n, tool in ((1, "book"), (2, "sync_everything")):
            with self.subTest(tool=tool):
                started = time.monotonic()
                self.call(server, n, tool)
                frames = server.until(n)
                self.assertGreaterEqual(time.monotonic() - started, 0.3)
                self.assertEqual(frames[-1], rpc_error_frame(n, -32603, "the client did not answer within 0.3 s"))
                # basic/lifecycle "Timeouts": the server gives up, and says so (basic/utilities/cancellation).
                self.assertEqual(frames[-2], notification("notifications/cancelled", {
                    "requestId": frames[-3]["id"], "reason": "the client did not answer within 0.3 s"}))
                self.assertEqual(frames[-3]["method"], "elicitation/create")
                server.answer(frames[-3], {"action": "decline"})  # too late: ignored
        self.assertTrue(server.nothing_for(0.2))
        self.assertEqual(server.request(3, "ping"), {"jsonrpc": "2.0", "id": 3, "result": {}})

    def test_answered_twice_the_first_answer_stands(self) -> None:
        server = self.session()
        self.call(server, 1, "visit")
        asked = server.recv()
        server.answer(asked, {"action": "accept"})
        server.answer(asked, {"action": "decline"})
        server.answer(asked, error={"code": -1, "message": "late"})
        self.assertEqual(server.until(1), [result_frame(1, LATEST, "accept")])
        self.assertTrue(server.nothing_for(0.2))
        self.assertEqual(server.request(2, "ping")["result"], {})

    def test_garbage_answers(self) -> None:
        server = self.session()
        cases: List[Tuple[Dict[str, Any], str]] = [
            ({"result": {"action": "maybe"}}, "the client's elicitation answer has no valid action: 'maybe'"),
            ({"result": 5}, "the client's response holds no result object"),
            ({"result": None}, "the client's response holds no result object"),
        ]
        for n, (answer, why) in enumerate(cases, start=1):
            with self.subTest(answer=answer):
                self.call(server, n, "book")
                asked = server.recv()
                server.send(dict({"jsonrpc": "2.0", "id": asked["id"]}, **answer))
                self.assertEqual(server.until(n), [tool_error_frame(n, LATEST, f"Error executing tool book: {why}")])
        # An error response: the tool's MCPError, and uncaught, the call's error (as the SDK passes it on).
        for n, (error, code, why) in enumerate((("bad", -32603, "the client's error response is malformed"),
                                                ({"code": -1, "message": "the user is away"}, -1, "the user is away"),
                                                ({"code": -1, "message": "away", "data": [1]}, -1, "away")), start=4):
            with self.subTest(error=error):
                self.call(server, n, "book")
                server.send({"jsonrpc": "2.0", "id": server.recv()["id"], "error": error})
                self.assertEqual(server.until(n), [rpc_error_frame(n, code, why, error.get("data")
                                                                   if isinstance(error, dict) else None)])
        # Content that does not fit the schema: the tool fails as the SDK's does (ValueError there).
        for n, content in enumerate(({"date": 5}, {"guests": 1}, None), start=10):
            with self.subTest(content=content):
                self.call(server, n, "book")
                server.answer(server.recv(), {"action": "accept", "content": content})
                self.assertEqual(server.until(n), [tool_error_frame(n, LATEST, "Error executing tool book")])
        # Responses to requests we never sent are ignored.
        for id_ in ("mcp_ref-999", 77, "x"):
            server.send({"jsonrpc": "2.0", "id": id_, "result": {}})
        self.assertTrue(server.nothing_for(0.2))
        self.assertEqual(server.request(20, "ping")["result"], {})

    def test_an_answer_inside_a_batch(self) -> None:
        server = self.session("2025-03-26", {"sampling": {}})
        self.call(server, 1, "summarize", {"text": "x"})
        asked = server.recv()
        server.send([{"jsonrpc": "2.0", "id": asked["id"], "result": SAMPLING_ANSWER},
                     {"jsonrpc": "2.0", "id": 2, "method": "ping"}])
        frames = [server.recv(), server.recv()]
        self.assertIn([{"jsonrpc": "2.0", "id": 2, "result": {}}], frames)
        self.assertIn({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": "m1/assistant/endTurn: short"}], "isError": False}}, frames)

    def test_closing_stdin_fails_open_questions(self) -> None:
        closing_stdin_fails_open_questions(self, cli=False)

    def test_cancelled_while_asking(self) -> None:
        server = self.session()
        for n, tool in ((1, "book"), (2, "sync_everything")):
            with self.subTest(tool=tool):
                self.call(server, n, tool)
                asked = server.recv()
                if "id" not in asked:  # sync_everything logs first
                    asked = server.recv()
                server.send(notification("notifications/cancelled", {"requestId": n, "reason": "user"}))
                time.sleep(0.1)
                server.answer(asked, {"action": "decline"})  # too late: ignored
        self.assertTrue(server.nothing_for(0.3))  # no response for either
        self.assertEqual(server.request(3, "ping"), {"jsonrpc": "2.0", "id": 3, "result": {}})

    def test_input_required_result_in_a_session_is_a_tool_error(self) -> None:
        server = self.session()
        self.call(server, 1, "ask_own", {"topic": "fruit"})
        self.assertEqual(server.until(1), [tool_error_frame(
            1, LATEST, "Error executing tool ask_own: InputRequiredResult exists only in protocol 2026-07-28; in a "
                       "session, ctx.elicit, ctx.create_message and ctx.list_roots ask the client directly")])


class InputRequiredTest(ContextTestCase):
    """No server-to-client requests: the call ends asking; the client retries."""

    def test_form_elicitation_round(self) -> None:
        server = self.shared()
        frames = self.modern_call(server, 1, "book")
        state = take_state(frames[-1])
        self.assertEqual(frames, [input_required_frame(1, {"elicitation_0": {
            "method": "elicitation/create", "params": form_params("When and for how many?", MODERN)}})])
        frames = self.modern_call(server, 2, "book", inputResponses={
            "elicitation_0": {"action": "accept", "content": {"date": "mon"}}}, requestState=state)
        self.assertEqual(frames, [result_frame(2, MODERN, "accept: mon for 2")])
        # The first round may also be answered without a state: nothing was asked before it.
        frames = self.modern_call(server, 3, "book", inputResponses={"elicitation_0": {"action": "cancel"}})
        self.assertEqual(frames, [result_frame(3, MODERN, "cancel")])

    def test_url_sampling_roots(self) -> None:
        server = self.shared()
        for n, tool, arguments, key, request, answer, text in (
                (1, "visit", {}, "elicitation_0", {"method": "elicitation/create", "params": MODERN_URL_PARAMS},
                 {"action": "accept"}, "accept"),
                (3, "summarize", {"text": "t"}, "sampling_0",
                 {"method": "sampling/createMessage", "params": sampling_params("t")}, SAMPLING_ANSWER,
                 "m1/assistant/endTurn: short"),
                (5, "roots", {}, "roots_0", {"method": "roots/list", "params": {}}, ROOTS_ANSWER, None)):
            with self.subTest(tool=tool):
                frames = self.modern_call(server, n, tool, arguments)
                state = take_state(frames[-1])
                self.assertEqual(frames, [input_required_frame(n, {key: request})])
                frames = self.modern_call(server, n + 1, tool, arguments, inputResponses={key: answer},
                                          requestState=state)
                if text is not None:
                    self.assertEqual(frames, [result_frame(n + 1, MODERN, text)])
                else:
                    self.assertEqual(frames[-1]["result"]["structuredContent"],
                                     {"result": ["A=file:///a", "B=file:///b"]})

    def test_many_rounds_async_and_sync(self) -> None:
        server = self.shared()
        for tool in ("everything", "sync_everything"):
            with self.subTest(tool=tool):
                frames = self.modern_call(server, 1, tool)
                state = take_state(frames[-1])
                self.assertEqual(frames, [input_required_frame(1, {"elicitation_0": {
                    "method": "elicitation/create", "params": form_params("When?", MODERN)}})])
                frames = self.modern_call(server, 2, tool, requestState=state, inputResponses={
                    "elicitation_0": {"action": "accept", "content": {"date": "fri", "guests": 5}}})
                state = take_state(frames[-1])
                self.assertEqual(list(frames[-1]["result"]["inputRequests"]), ["sampling_1"])
                self.assertEqual(frames[-1]["result"]["inputRequests"]["sampling_1"]["method"],
                                 "sampling/createMessage")
                # Only this round's answer: the earlier one rides the state.
                frames = self.modern_call(server, 3, tool, requestState=state,
                                          inputResponses={"sampling_1": SAMPLING_ANSWER})
                state = take_state(frames[-1])
                self.assertEqual(frames, [input_required_frame(3, {"roots_2": {"method": "roots/list",
                                                                               "params": {}}})])
                frames = self.modern_call(server, 4, tool, requestState=state,
                                          inputResponses={"roots_2": ROOTS_ANSWER})
                self.assertEqual(frames, [result_frame(4, MODERN, "accept: fri for 5; short; 2 roots")])

    def test_two_elicitations(self) -> None:
        server = self.shared()
        frames = self.modern_call(server, 1, "book_twice")
        state = take_state(frames[-1])
        frames = self.modern_call(server, 2, "book_twice", requestState=state, inputResponses={
            "elicitation_0": {"action": "accept", "content": {"date": "mon"}}})
        state = take_state(frames[-1])
        self.assertEqual(frames, [input_required_frame(2, {"elicitation_1": {
            "method": "elicitation/create", "params": form_params("Second booking?", MODERN)}})])
        frames = self.modern_call(server, 3, "book_twice", requestState=state,
                                  inputResponses={"elicitation_1": {"action": "decline"}})
        self.assertEqual(frames, [result_frame(3, MODERN, "accept: mon for 2 | decline")])

    def test_wrong_or_missing_answers_are_asked_again(self) -> None:
        server = self.shared()
        frames = self.modern_call(server, 1, "book")
        state = take_state(frames[-1])
        asked = frames[-1]
        for n, responses in enumerate(({"wrong_key": {"action": "accept", "content": {"date": "x"}}}, {}, None),
                                      start=2):
            with self.subTest(responses=responses):
                params: Dict[str, Any] = {"requestState": state}
                if responses is not None:
                    params["inputResponses"] = responses
                frames = self.modern_call(server, n, "book", **params)
                take_state(frames[-1])
                self.assertEqual(frames[-1]["result"], asked["result"])
        # Extra keys beside the right one do no harm.
        frames = self.modern_call(server, 9, "book", requestState=state, inputResponses={
            "elicitation_0": {"action": "decline"}, "extra": {"action": "accept"}})
        self.assertEqual(frames, [result_frame(9, MODERN, "decline")])

    def test_an_answer_of_the_wrong_shape_is_a_tool_error(self) -> None:
        # A result of another kind, or content that does not fit the question: the
        # tool's error, as the SDK's resolvers answer (test_2026_answers_are_kept_across_rounds).
        server = self.shared()
        for n, tool, answer, text in (
                (1, "book", {"roots": []}, "Error executing tool book: the client's elicitation answer has no valid "
                                           "action: None"),
                (2, "book", {"action": "accept", "content": {"date": 5}}, "Error executing tool book"),
                (3, "summarize", ROOTS_ANSWER, "Error executing tool summarize: the client's answer to "
                                               "sampling/createMessage is invalid: $ does not fit CreateMessageResult"),
                (4, "roots", {"action": "decline"}, "Error executing tool roots: the client's answer to roots/list is "
                                                    "invalid: $ does not fit ListRootsResult"),
                (5, "book_form", {"action": "accept", "content": {"date": 5}},
                 "Error executing tool book_form: the client's answer to elicitation/create is invalid: $.content.date "
                 "does not match the requested schema")):
            with self.subTest(tool=tool, answer=answer):
                key = {"summarize": "sampling_0", "roots": "roots_0"}.get(tool, "elicitation_0")
                frames = self.modern_call(server, n, tool, {"text": "t"} if tool == "summarize" else {},
                                          inputResponses={key: answer})
                self.assertEqual(frames, [tool_error_frame(n, MODERN, text)])

    def test_an_answer_that_is_no_result_is_refused_before_the_call_runs(self) -> None:
        # basic/patterns/mrtr, "Error Handling": each answer an ElicitResult, CreateMessageResult or
        # ListRootsResult (2026-07-28 schema.ts); the SDK answers -32602 before the tool runs too.
        server = self.shared()
        for n, (tool, key, answer) in enumerate((
                ("book", "elicitation_0", {"action": "maybe"}), ("book", "elicitation_0", "yes"),
                ("book", "elicitation_0", None), ("book", "elicitation_0", {"action": "accept", "content": {"d": [1]}}),
                ("summarize", "sampling_0", {"role": "assistant", "content": 5, "model": "m"}),
                ("roots", "roots_0", {"roots": 5}), ("roots", "roots_0", {"roots": [{"uri": 5}]}),
                ("roots", "roots_0", {"roots": [{"uri": "https://x"}]}),
                ("book", "other", {"content": {}})), start=1):
            with self.subTest(tool=tool, answer=answer):
                frames = self.modern_call(server, n, tool, {"text": "t"} if tool == "summarize" else {},
                                          inputResponses={key: answer})
                self.assertEqual(frames, [rpc_error_frame(n, -32602, f"Invalid params: inputResponses[{key!r}] is no "
                                                                     "ElicitResult, CreateMessageResult or "
                                                                     "ListRootsResult")])

    def test_input_responses_must_be_an_object(self) -> None:
        server = self.shared()
        for n, value in enumerate(([], "x", 5, None), start=1):
            with self.subTest(value=value):
                self.assertEqual(self.modern_call(server, n, "book", inputResponses=value), [rpc_error_frame(
                    n, -32602, 'Invalid params: "inputResponses" must be an object')])

    def test_tampered_state_is_refused(self) -> None:
        server = self.shared()
        frames = self.modern_call(server, 1, "book_twice")
        state = take_state(frames[-1])
        _, body, signature = state.split(".")
        flipped = body[:-3] + ("A" if body[-3] != "A" else "B") + body[-2:]
        cases = [(f"v1.{flipped}.{signature}", "fails verification"),
                 (f"v1.{body}.{signature[:-1]}", "fails verification"),
                 (f"v1.{body}.", "fails verification"),
                 (f"v2.{body}.{signature}", "is malformed"),
                 (state + ".x", "is malformed"), ("garbage", "is malformed"), (5, "is malformed"),
                 ({"s": state}, "is malformed"),
                 # Non-ASCII text, a lone surrogate: forged, not our bug (they were -32603).
                 (f"v1.{body}.{signature[:-1]}\u00e9", "is malformed"),
                 (f"v1.{body}\ud800.{signature}", "is malformed"), (f"v1.\u00e9.{signature}", "is malformed")]
        for n, (bad, why) in enumerate(cases, start=2):
            with self.subTest(state=bad):
                frames = self.modern_call(server, n, "book_twice", requestState=bad,
                                          inputResponses={"elicitation_0": {"action": "decline"}})
                self.assertEqual(frames, [rpc_error_frame(n, -32602, f"Invalid params: requestState {why}")])
        frames = self.modern_call(server, 20, "book_twice", requestState=state,
                                  inputResponses={"elicitation_0": {"action": "decline"}})
        self.assertEqual(frames[-1]["result"]["resultType"], "input_required")  # the real one still works

    def test_an_empty_key_is_refused(self) -> None:
        # With an empty key anyone can sign: a state the client forged would pass
        # verification.  An environment's MCP_REF_STATE_KEY=$(cat missing-file) is one.
        for key in ("", b""):
            with self.subTest(key=key), self.assertRaisesRegex(ValueError, "^request_state_key is empty: "):
                mcp_ref.MCPServer("x", request_state_key=key)
        with unittest.mock.patch.dict(os.environ, {"MCP_REF_STATE_KEY": ""}), \
                self.assertRaisesRegex(ValueError, "^MCP_REF_STATE_KEY is empty: a requestState signed with an "
                                                   "empty key could be forged"):
            mcp_ref.MCPServer("x")
        with unittest.mock.patch.dict(os.environ, {"MCP_REF_STATE_KEY": "k"}):
            self.assertEqual(mcp_ref.MCPServer("x")._state_key, b"k")
        with unittest.mock.patch.dict(os.environ):
            os.environ.pop("MCP_REF_STATE_KEY", None)
            one, two = mcp_ref.MCPServer("x")._state_key, mcp_ref.MCPServer("x")._state_key
            self.assertEqual((len(one), one == two), (32, False))  # a key of its own, each

    def test_state_of_another_call_is_refused(self) -> None:
        server = self.shared()
        frames = self.modern_call(server, 1, "summarize", {"text": "one"})
        state = take_state(frames[-1])
        for n, tool, arguments in ((2, "book", {}), (3, "summarize", {"text": "two"}), (4, "summarize", {})):
            with self.subTest(tool=tool, arguments=arguments):
                frames = self.modern_call(server, n, tool, arguments, requestState=state)
                self.assertEqual(frames, [rpc_error_frame(n, -32602,
                                                          "Invalid params: requestState belongs to another request")])

    def test_state_key_from_the_environment_expiry_and_other_processes(self) -> None:
        key = "a shared key"
        first, second = self.start({"MCP_REF_STATE_KEY": key}), self.start({"MCP_REF_STATE_KEY": key})
        frames = self.modern_call(first, 1, "book_twice")
        state = take_state(frames[-1])
        answer = {"elicitation_0": {"action": "accept", "content": {"date": "mon"}}}
        # Another process with the same key takes the state (servers behind a load balancer).
        frames = self.modern_call(second, 2, "book_twice", requestState=state, inputResponses=answer)
        self.assertEqual(list(frames[-1]["result"]["inputRequests"]), ["elicitation_1"])
        # Signed again with the key: accepted; expired: refused; another key: refused.
        fresh = resign(state, key.encode(), x=int(time.time()) + 60)
        self.assertEqual(self.modern_call(first, 3, "book_twice", requestState=fresh, inputResponses=answer)[-1]
                         ["result"]["resultType"], "input_required")
        expired = resign(state, key.encode(), x=int(time.time()) - 1)
        self.assertEqual(self.modern_call(first, 4, "book_twice", requestState=expired, inputResponses=answer),
                         [rpc_error_frame(4, -32602, "Invalid params: requestState has expired")])
        other = resign(state, b"another key")
        self.assertEqual(self.modern_call(first, 5, "book_twice", requestState=other, inputResponses=answer),
                         [rpc_error_frame(5, -32602, "Invalid params: requestState fails verification")])
        # Earlier answers forged into a re-signed state are what the server then believes: the key is the trust.
        forged = resign(state, key.encode(), r={"elicitation_0": {"action": "cancel"}})
        frames = self.modern_call(first, 6, "book_twice", requestState=forged,
                                  inputResponses={"elicitation_1": {"action": "cancel"}})
        self.assertEqual(frames, [result_frame(6, MODERN, "cancel | cancel")])
        # Without a key, each process signs with its own.
        third = self.start()
        self.assertEqual(self.modern_call(third, 7, "book_twice", requestState=state, inputResponses=answer),
                         [rpc_error_frame(7, -32602, "Invalid params: requestState fails verification")])

    def test_missing_capability_is_32021(self) -> None:
        server = self.shared()
        for n, tool, caps, required in ((1, "book", {}, {"elicitation": {}}),
                                        (2, "summarize", {"elicitation": {}}, {"sampling": {}}),
                                        (3, "roots", {"sampling": {}}, {"roots": {}}),
                                        (4, "ask_own_roots", {}, {"roots": {}}),
                                        (5, "everything", {"elicitation": {}}, {"sampling": {}})):
            with self.subTest(tool=tool, caps=caps):
                arguments = {"text": "x"} if tool == "summarize" else {}
                responses = {"elicitation_0": {"action": "decline"}} if tool == "everything" else None
                params = {} if responses is None else {"inputResponses": responses}
                frames = self.modern_call(server, n, tool, arguments, caps=caps, **params)
                self.assertEqual(frames, [rpc_error_frame(n, -32021, "Missing required client capability",
                                                          {"requiredCapabilities": required})])

    # A URL elicitation refused for want of elicitation.url names it (it once
    # said {"elicitation": {}}, which the client had declared; fixed in 310fb45).
    def test_missing_url_capability_names_url(self) -> None:
        server = self.shared()
        frames = self.modern_call(server, 1, "visit", caps={"elicitation": {}})
        self.assertEqual(frames, [rpc_error_frame(1, -32021, "Missing required client capability",
                                                  {"requiredCapabilities": {"elicitation": {"url": {}}}})])

    def test_elicitation_modes_by_declared_capability(self) -> None:
        server = self.shared()
        for n, (caps, tool, required) in enumerate((
                ({"elicitation": {}}, "book", None), ({"elicitation": {"form": {}}}, "book", None),
                ({"elicitation": {"url": {}}}, "visit", None), ({"elicitation": {}}, "visit", {"url": {}}),
                ({"elicitation": {"form": {}}}, "visit", {"url": {}}))):
            with self.subTest(caps=caps, tool=tool):
                frames = self.modern_call(server, n, tool, caps=caps)
                if required is None:
                    self.assertEqual(frames[-1]["result"]["resultType"], "input_required")
                else:
                    self.assertEqual(frames, [rpc_error_frame(n, -32021, "Missing required client capability",
                                                              {"requiredCapabilities": {"elicitation": required}})])

    # A form elicitation refused to a client that declared URL mode only
    # ({"elicitation": {"url": {}}}) names form mode, as the SDK's resolver does.
    def test_missing_form_capability_names_form(self) -> None:
        frames = self.modern_call(self.shared(), 1, "book", caps={"elicitation": {"url": {}}})
        self.assertEqual(frames, [rpc_error_frame(1, -32021, "Missing required client capability",
                                                  {"requiredCapabilities": {"elicitation": {"form": {}}}})])

    def test_the_state_keeps_only_the_answers_read(self) -> None:
        server = self.shared()
        frames = self.modern_call(server, 1, "book_twice", inputResponses={
            "elicitation_0": {"action": "decline"}, "extra": {"action": "accept", "content": {"x": "y" * 100}}})
        body = take_state(frames[-1]).split(".")[1]
        payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        self.assertEqual(payload["r"], {"elicitation_0": {"action": "decline"}})  # signed, readable: no secrets

    def test_a_question_unwinds_past_except_exception(self) -> None:
        server = self.shared()
        frames = self.modern_call(server, 1, "swallow")
        take_state(frames[-1])
        self.assertEqual(list(frames[-1]["result"]["inputRequests"]), ["elicitation_0"])
        frames = self.modern_call(server, 2, "swallow", inputResponses={"elicitation_0": {"action": "cancel"}})
        self.assertEqual(frames, [result_frame(2, MODERN, "cancel")])

    def test_a_tools_own_input_required_result(self) -> None:
        server = self.shared()
        frames = self.modern_call(server, 1, "ask_own", {"topic": "fruit"})
        state = take_state(frames[-1])
        schema = {"type": "object", "properties": {"choice": {"type": "string"}}, "required": ["choice"]}
        self.assertEqual(frames, [input_required_frame(1, {"pick": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "Pick a fruit", "requestedSchema": schema}}})])
        self.assertNotIn("asked about fruit", state)  # signed, not readable as is (base64)
        frames = self.modern_call(server, 2, "ask_own", {"topic": "fruit"}, requestState=state,
                                  inputResponses={"pick": {"action": "accept", "content": {"choice": "apple"}}})
        self.assertEqual(frames, [{"jsonrpc": "2.0", "id": 2, "result": decorate({
            "content": [{"type": "text", "text": "asked about fruit: apple"}], "isError": False}, MODERN)}])
        # The tool's state is protected like the server's own.
        frames = self.modern_call(server, 3, "ask_own", {"topic": "veg"}, requestState=state,
                                  inputResponses={"pick": {"action": "accept", "content": {"choice": "leek"}}})
        self.assertEqual(frames, [rpc_error_frame(3, -32602, "Invalid params: requestState belongs to another "
                                                             "request")])


class ResourcePromptTest(ContextTestCase):
    """A resource's or a prompt's function that takes a Context logs, reports
    progress and asks the client as a tool does: on the request's stream in a
    session, with InputRequiredResult rounds in 2026-07-28."""

    @staticmethod
    def read(server: ContextServer, id_: Any, uri: str, meta: Optional[Dict[str, Any]] = None,
             **params: Any) -> None:
        body: Dict[str, Any] = dict(params, uri=uri)
        if meta is not None:
            body["_meta"] = meta
        server.send({"jsonrpc": "2.0", "id": id_, "method": "resources/read", "params": body})

    @staticmethod
    def get(server: ContextServer, id_: Any, name: str, arguments: Dict[str, str],
            meta: Optional[Dict[str, Any]] = None, **params: Any) -> None:
        body: Dict[str, Any] = dict(params, name=name, arguments=arguments)
        if meta is not None:
            body["_meta"] = meta
        server.send({"jsonrpc": "2.0", "id": id_, "method": "prompts/get", "params": body})

    @staticmethod
    def contents(id_: Any, uri: str, text: str, modern: bool = False) -> Dict[str, Any]:
        result: Dict[str, Any] = {"contents": [{"uri": uri, "mimeType": "text/plain", "text": text}]}
        if modern:
            result = dict(result, ttlMs=0, cacheScope="private", resultType="complete",
                          _meta={"io.modelcontextprotocol/serverInfo": SERVER_INFO})
        return {"jsonrpc": "2.0", "id": id_, "result": result}

    def test_a_template_logs_reports_and_asks_in_every_handshake_revision(self) -> None:
        for version in HANDSHAKE:
            with self.subTest(version=version):
                server = self.session(version, caps=ALL_CAPS if version >= "2025-06-18" else {"elicitation": {}})
                self.read(server, 1, "notes://cats", {"progressToken": "p"})
                self.assertEqual(server.recv(), log_frame("warning", "reading cats"))
                self.assertEqual(server.recv(), progress_frame("p", 1, 2))
                asked = server.recv()
                if version < "2025-06-18":  # no elicitation in that revision: the read fails, saying why
                    self.assertEqual(asked, rpc_error_frame(1, -32600, f"elicitation.form does not exist in "
                                                                       f"protocol {version}"))
                    continue
                self.assertEqual(asked, question(1, "elicitation/create", form_params("Which cats note?", version)))
                server.answer(asked, {"action": "accept", "content": {"date": "tue"}})
                self.assertEqual(server.until(1), [self.contents(1, "notes://cats", "cats: accept: tue for 2")])

    def test_a_prompt_samples_in_a_session(self) -> None:
        server = self.session()
        self.get(server, 1, "plan", {"topic": "trip"})
        self.assertEqual(server.recv(), log_frame("warning", "planning trip"))
        asked = server.recv()
        self.assertEqual(asked, question(1, "sampling/createMessage", {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Plan trip"}}], "maxTokens": 10}))
        server.answer(asked, SAMPLING_ANSWER)
        self.assertEqual(server.until(1), [{"jsonrpc": "2.0", "id": 1, "result": {
            "description": "A prompt that logs and asks the client's model.",
            "messages": [{"role": "user", "content": {"type": "text", "text": "Plan for trip: short"}}]}}])

    def test_a_static_resource_with_a_context_and_other_requests_meanwhile(self) -> None:
        # While the read waits for the client's answer, the server reads and answers the rest.
        server = self.session()
        self.read(server, 1, "notes://today")
        self.assertEqual(server.recv(), log_frame("info", "today read"))
        asked = server.recv()
        self.assertEqual(asked, question(1, "roots/list", {}))
        self.assertEqual(server.request(2, "ping"), {"jsonrpc": "2.0", "id": 2, "result": {}})
        server.answer(asked, ROOTS_ANSWER)
        self.assertEqual(server.until(1), [self.contents(1, "notes://today", "today: A")])

    def test_a_refused_question_and_cancellation(self) -> None:
        server = self.session(caps={"elicitation": {}})
        self.read(server, 1, "notes://today")
        self.assertEqual(server.until(1), [log_frame("info", "today read"), rpc_error_frame(
            1, -32600, "the client does not support roots (it did not declare that capability)")])
        server = self.session()
        self.get(server, 2, "plan", {"topic": "x"})
        server.recv()
        server.recv()  # the question, never answered: the client cancels the request instead
        server.send(notification("notifications/cancelled", {"requestId": 2}))
        self.assertEqual(server.request(3, "ping")["result"], {})
        self.assertTrue(server.nothing_for(0.3))  # nothing is sent for a cancelled request

    def test_2026_a_template_asks_with_input_required(self) -> None:
        server = self.shared()
        meta = dict(self.modern_meta(), **{META_LOG: "warning"})
        self.read(server, 1, "notes://cats", meta)
        frames = server.until(1)
        state = take_state(frames[-1])
        self.assertEqual(frames, [log_frame("warning", "reading cats"), input_required_frame(1, {"elicitation_0": {
            "method": "elicitation/create", "params": form_params("Which cats note?", MODERN)}})])
        answer = {"elicitation_0": {"action": "accept", "content": {"date": "fri", "guests": 1}}}
        self.read(server, 2, "notes://cats", self.modern_meta(), inputResponses=answer, requestState=state)
        self.assertEqual(server.until(2), [self.contents(2, "notes://cats", "cats: accept: fri for 1", True)])
        # The state is bound to the URI it was asked for.
        self.read(server, 3, "notes://dogs", self.modern_meta(), inputResponses=answer, requestState=state)
        self.assertEqual(server.until(3), [rpc_error_frame(3, -32602, "Invalid params: requestState belongs to "
                                                                      "another request")])
        self.read(server, 4, "notes://cats", self.modern_meta(), inputResponses=[])
        self.assertEqual(server.until(4), [rpc_error_frame(4, -32602, 'Invalid params: "inputResponses" must be '
                                                                      'an object')])

    def test_2026_a_prompt_asks_and_capabilities_are_checked(self) -> None:
        server = self.shared()
        self.get(server, 1, "plan", {"topic": "trip"}, self.modern_meta())
        frames = server.until(1)
        state = take_state(frames[-1])
        self.assertEqual(frames, [input_required_frame(1, {"sampling_0": {
            "method": "sampling/createMessage",
            "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Plan trip"}}],
                       "maxTokens": 10}}})])
        self.get(server, 2, "plan", {"topic": "trip"}, self.modern_meta(), requestState=state,
                 inputResponses={"sampling_0": SAMPLING_ANSWER})
        self.assertEqual(server.until(2)[-1]["result"]["messages"][0]["content"]["text"], "Plan for trip: short")
        for n, send in ((3, lambda meta: self.get(server, 3, "plan", {"topic": "trip"}, meta)),
                        (4, lambda meta: self.read(server, 4, "notes://today", meta))):
            send(self.modern_meta({"elicitation": {}}))
            self.assertEqual(server.until(n), [rpc_error_frame(n, -32021, "Missing required client capability", {
                "requiredCapabilities": {"sampling": {}} if n == 3 else {"roots": {}}})])

    def test_2026_a_templates_own_input_required_result(self) -> None:
        server = self.shared()
        self.read(server, 1, "notes://own/color", self.modern_meta())
        frames = server.until(1)
        state = take_state(frames[-1])
        self.assertEqual(frames, [input_required_frame(1, {"pick": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "Which color?", "requestedSchema": {
                "type": "object", "properties": {"choice": {"type": "string"}}, "required": ["choice"]}}}})])
        self.read(server, 2, "notes://own/color", self.modern_meta(), requestState=state,
                  inputResponses={"pick": {"action": "accept", "content": {"choice": "red"}}})
        self.assertEqual(server.until(2), [self.contents(2, "notes://own/color", "asked about color: red", True)])
        # In a session there is no such result: the read fails, saying why.
        server = self.session()
        self.read(server, 3, "notes://own/color")
        self.assertEqual(server.until(3), [rpc_error_frame(3, -32603, "Error reading resource notes://own/color: "
                                                                      "InputRequiredResult exists only in protocol "
                                                                      "2026-07-28", {"uri": "notes://own/color"})])


class InjectionTest(ContextTestCase):
    def test_context_is_no_argument(self) -> None:
        server = self.session()
        tools = {t["name"]: t for t in server.request(1, "tools/list")["result"]["tools"]}
        self.assertEqual(tools["named_anything"]["inputSchema"], {
            "type": "object", "properties": {"a": {"title": "A", "type": "integer"},
                                             "b": {"default": 2, "title": "B", "type": "integer"}},
            "required": ["a"], "title": "named_anythingArguments"})
        self.assertEqual(tools["generic_context"]["inputSchema"], {  # "Context[Any, Any]", a string
            "type": "object", "properties": {"x": {"title": "X", "type": "string"}}, "required": ["x"],
            "title": "generic_contextArguments"})
        # The server runs the module under test: the core alone has no SDK API, so no resolvers.
        self.assertEqual("reserve" in tools, UNDER_TEST is None)
        for name in ("log_levels", "book", "sync_about", "sync_everything", "about"):  # ctx alone; "Context"
            self.assertEqual(tools[name]["inputSchema"], {"type": "object", "properties": {},
                                                          "title": f"{name}Arguments"})
        self.call(server, 2, "named_anything", {"a": 1})
        self.assertEqual(server.until(2), [result_frame(2, LATEST, "3", {"result": 3})])
        self.call(server, 3, "generic_context", {"x": "y"})
        self.assertEqual(server.until(3), [result_frame(3, LATEST, "y in context")])
        # A client cannot pass the Context: the extra argument is dropped, the server's is used.
        self.call(server, 4, "named_anything", {"a": 1, "b": 5, "context_of_call": "forged"})
        self.assertEqual(server.until(4), [result_frame(4, LATEST, "6", {"result": 6})])

    def test_what_the_context_knows_of_the_request(self) -> None:
        server = self.session(env={})
        self.call(server, "r-1", "sync_about", meta={"progressToken": "p"})
        about = server.until("r-1")[-1]["result"]["structuredContent"]
        self.assertEqual(about, {
            "request_id": "r-1", "protocol_version": LATEST, "client": "test-client", "capabilities": ALL_CAPS,
            "meta": {"progressToken": "p"}, "progress_token": "p",
            "lifespan": {"db": "connected", "server": "context"}, "input_responses": None, "request_state": None})
        caps = {"sampling": {}}
        frames = self.modern_call(server, 7, "sync_about", caps=caps, meta={
            "io.modelcontextprotocol/clientInfo": {"name": "modern-client", "version": "2"}})
        about = frames[-1]["result"]["structuredContent"]
        self.assertEqual(about["request_id"], "7")
        self.assertEqual(about["protocol_version"], MODERN)
        self.assertEqual(about["client"], "modern-client")  # each request says who it is
        self.assertEqual(about["capabilities"], caps)
        self.assertEqual(about["progress_token"], None)
        self.assertEqual(about["meta"][META_VERSION], MODERN)
        self.call(server, 8, "about")
        self.assertEqual(server.until(8)[-1]["result"]["structuredContent"], {
            "request_id": "8", "protocol_version": LATEST, "server": "context", "elicitation": True,
            "sampling": True})


class LifespanTest(ContextTestCase):
    def test_entered_before_serving_and_left_after(self) -> None:
        lifespan_entered_before_serving_and_left_after(self, cli=False)

class CancellationTest(ContextTestCase):
    def wait_seen(self, server: ContextServer, what: str) -> None:
        deadline = time.monotonic() + 5
        n = 100
        while time.monotonic() < deadline:
            n += 1
            self.call(server, n, "seen")
            if what in server.until(n)[-1]["result"]["structuredContent"]["result"]:
                return
            time.sleep(0.05)
        self.fail(f"the tools never saw: {what}")

    def test_async_and_sync_tools(self) -> None:
        server = self.session()
        self.call(server, 1, "wait_async", {"seconds": 10})
        self.call(server, 2, "wait_sync", {"seconds": 10})
        self.wait_seen(server, "wait_async started")
        self.wait_seen(server, "wait_sync started")
        for id_ in (1, 2):
            server.send(notification("notifications/cancelled", {"requestId": id_, "reason": "user"}))
        self.wait_seen(server, "wait_async cancelled")  # the task got CancelledError
        self.wait_seen(server, "wait_sync saw cancelled")  # ctx.cancelled turned True
        self.assertTrue(server.nothing_for(0.3))  # and neither was answered
        self.assertEqual(server.close(), 0)
        self.assertEqual(server.remaining(), [])


class ListChangedTest(ContextTestCase):
    def test_a_tool_that_adds_a_tool(self) -> None:
        server = self.session()
        self.call(server, 1, "register", {"name": "newt"})
        self.assertEqual(server.until(1), [notification("notifications/tools/list_changed"),
                                           result_frame(1, LATEST, "registered newt")])
        names = [t["name"] for t in server.request(2, "tools/list")["result"]["tools"]]
        self.assertEqual(names[-1], "newt")
        self.call(server, 3, "newt")
        self.assertEqual(server.until(3), [result_frame(3, LATEST, "I am newt")])
        self.call(server, 4, "unregister", {"name": "newt"})
        self.assertEqual(server.until(4), [notification("notifications/tools/list_changed"),
                                           result_frame(4, LATEST, "removed newt")])

    def test_2026_to_the_streams_that_listen(self) -> None:
        server = self.start()
        server.send({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen", "params": {
            "notifications": {"toolsListChanged": True}, "_meta": self.modern_meta()}})
        subscription = {"_meta": {"io.modelcontextprotocol/subscriptionId": "sub"}}
        self.assertEqual(server.recv(), notification("notifications/subscriptions/acknowledged",
                                                     dict(subscription, notifications={"toolsListChanged": True})))
        self.assertEqual(self.modern_call(server, 1, "register", {"name": "newt"}), [
            notification("notifications/tools/list_changed", subscription),
            result_frame(1, MODERN, "registered newt")])
        self.assertEqual(self.modern_call(server, 2, "unregister", {"name": "newt"}), [
            notification("notifications/tools/list_changed", subscription), result_frame(2, MODERN, "removed newt")])
        server.send(notification("notifications/cancelled", {"requestId": "sub"}))  # the stream ends
        self.assertEqual(self.modern_call(server, 3, "register", {"name": "newt"}),
                         [result_frame(3, MODERN, "registered newt")])
        self.assertTrue(server.nothing_for(0.2))

    def test_no_list_changed_without_a_session(self) -> None:
        server = self.shared()  # 2026-07-28 only: no session to notify
        self.assertEqual(self.modern_call(server, 1, "register", {"name": "newt"}),
                         [result_frame(1, MODERN, "registered newt")])
        self.assertTrue(server.nothing_for(0.2))


class SdkSessionMethodsTest(ContextTestCase):
    """Three of the SDK's Context and ServerSession methods, whole frames as the
    SDK sends them (mcp 2.3: mcp/server/mcpserver/context.py, mcp/server/session.py):
    on the core alone, the Context's own that send the same (ctx.log, ctx.notify_tools_changed)."""

    def test_elicit_url_sends_the_url_request_and_takes_the_action(self) -> None:
        # Context.elicit_url: elicitation/create in URL mode (client/elicitation,
        # 2025-11-25); the answer's action only (accept means the user agreed to go).
        server = self.session(caps={"elicitation": {"url": {}}})
        self.call(server, 1, "visit")
        asked = server.recv()
        self.assertEqual(asked, {"jsonrpc": "2.0", "id": "mcp_ref-1", "method": "elicitation/create", "params": {
            "mode": "url", "message": "Please sign in", "url": "https://example.com/login",
            "elicitationId": "login-1"}})
        server.answer(asked, {"action": "accept", "content": {"ignored": True}})
        self.assertEqual(server.until(1), [result_frame(1, LATEST, "accept")])

    def test_send_log_message_at_or_above_the_level(self) -> None:
        # ServerSession.send_log_message: notifications/message with its logger;
        # below logging/setLevel's level nothing is sent (server/utilities/logging).
        server = self.session()
        self.assertEqual(server.request(1, "logging/setLevel", {"level": "warning"}),
                         {"jsonrpc": "2.0", "id": 1, "result": {}})
        self.call(server, 2, "sync_log_progress")  # ctx.info (dropped), then send_log_message at warning
        self.assertEqual(server.until(2), [log_frame("warning", {"n": 1}, "session"), result_frame(2, LATEST, "done")])
        server.request(3, "logging/setLevel", {"level": "error"})
        self.call(server, 4, "sync_log_progress")
        self.assertEqual(server.until(4), [result_frame(4, LATEST, "done")])

    def test_send_log_message_in_2026_only_when_the_request_asks(self) -> None:
        # 2026-07-28: a per-request opt-in (the request's _meta log level), as the SDK's.
        server = self.shared()
        self.assertEqual(self.modern_call(server, 1, "sync_log_progress"), [result_frame(1, MODERN, "done")])
        self.assertEqual(self.modern_call(server, 2, "sync_log_progress", meta={META_LOG: "warning"}),
                         [log_frame("warning", {"n": 1}, "session"), result_frame(2, MODERN, "done")])

    def test_send_tool_list_changed(self) -> None:
        # ServerSession.send_tool_list_changed: notifications/tools/list_changed,
        # without params (server/tools, "List Changed Notification"), before the response.
        for version in HANDSHAKE:
            with self.subTest(version=version):
                server = self.session(version)
                self.call(server, 1, "announce")
                self.assertEqual(server.until(1), [notification("notifications/tools/list_changed"),
                                                   result_frame(1, version, "announced")])

    def test_send_tool_list_changed_in_2026_to_the_streams_that_listen(self) -> None:
        server = self.start()
        self.assertEqual(self.modern_call(server, 1, "announce"), [result_frame(1, MODERN, "announced")])
        server.send({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen", "params": {
            "notifications": {"toolsListChanged": True}, "_meta": self.modern_meta()}})
        subscription = {"_meta": {"io.modelcontextprotocol/subscriptionId": "sub"}}
        self.assertEqual(server.recv()["method"], "notifications/subscriptions/acknowledged")
        self.assertEqual(self.modern_call(server, 2, "announce"), [
            notification("notifications/tools/list_changed", subscription), result_frame(2, MODERN, "announced")])


# Two tests of the core run twice: here on the file itself, and in
# tests/layers/test_context.py on the file served by the command line (``cli``).

def closing_stdin_fails_open_questions(self: "ContextTestCase", cli: bool) -> None:
    """The file itself in tests/core (the core), ``mcp_ref.py serve`` it in tests/layers/test_context.py."""
    server = self.session(cli=cli)
    self.call(server, 1, "book")
    self.call(server, 2, "sync_everything")
    self.call(server, 3, "summarize", {"text": "x"})
    asked = [server.recv() for _ in range(4)]  # three questions and sync_everything's log line
    self.assertEqual(sorted(str(frame.get("id")) for frame in asked),
                     ["None", "mcp_ref-1", "mcp_ref-2", "mcp_ref-3"])
    self.assertEqual(server.request(4, "ping")["result"], {})
    self.assertEqual(server.close(), 0)
    replies = server.remaining()
    self.assertEqual(sorted(frame["id"] for frame in replies), [1, 2, 3])  # each exactly once
    for frame in replies:
        tool = {1: "book", 2: "sync_everything", 3: "summarize"}[frame["id"]]
        self.assertEqual(frame, rpc_error_frame(frame["id"], -32603, "the client closed its end of the connection"),
                         tool)
    self.assertIn("context_server: lifespan exited", server.stderr)
    self.assertNotIn("Traceback", server.stderr)


def lifespan_entered_before_serving_and_left_after(self: "ContextTestCase", cli: bool) -> None:
    """The file itself in tests/core (the core), ``mcp_ref.py serve`` it in tests/layers/test_context.py."""
    server = self.session(cli=cli)
    self.call(server, 1, "seen")
    self.assertEqual(server.until(1)[-1]["result"]["structuredContent"], {"result": ["lifespan entered"]})
    self.assertNotIn("lifespan exited", server.stderr)
    self.assertEqual(server.close(), 0)
    self.assertIn("context_server: lifespan exited", server.stderr)


class InProcessTest(unittest.TestCase):
    def test_context_outside_a_connection(self) -> None:
        server = mcp_ref.MCPServer("p")

        def quiet(ctx: mcp_ref.Context) -> str:
            ctx.info("nowhere to go")
            ctx.report_progress(1, 2)
            return f"{ctx.request_id!r} {ctx.protocol_version} {ctx.cancelled}"

        def asks(ctx: "mcp_ref.Context") -> str:
            return str(ctx.elicit("?", {"type": "object", "properties": {}}).result())

        server.add_tool(quiet)
        server.add_tool(asks)
        self.assertEqual(server.list_tools()[0]["inputSchema"], {"type": "object", "properties": {},
                                                                 "title": "quietArguments"})
        self.assertEqual(server.call_tool("quiet", {}, protocol_version=LATEST)["content"][0]["text"],
                         f"'' {LATEST} False")
        with self.assertRaises(mcp_ref.MCPError) as raised:  # as the call's JSON-RPC error would be
            server.call_tool("asks", {}, protocol_version=LATEST)
        self.assertEqual((raised.exception.code, raised.exception.message, raised.exception.data), (
            -32600, "the client does not support elicitation (it did not declare that capability)", None))


def asking_server() -> mcp_ref.MCPServer:
    """Tools that ask the client: sampling with tools, with context, plain; a form."""
    server = mcp_ref.MCPServer("asking")
    said = [{"role": "user", "content": {"type": "text", "text": "hi"}}]

    @server.tool()
    async def with_tools(ctx: mcp_ref.Context) -> str:
        tools = [{"name": "t", "inputSchema": {"type": "object"}}]
        return str((await ctx.session.create_message(said, max_tokens=5, tools=tools)).model)

    @server.tool()
    async def with_choice(ctx: mcp_ref.Context) -> str:
        return str((await ctx.session.create_message(said, max_tokens=5, tool_choice={"mode": "auto"})).model)

    @server.tool()
    async def with_context(ctx: mcp_ref.Context, include: str = "thisServer") -> str:
        return str((await ctx.session.create_message(said, max_tokens=5, include_context=include)).model)

    @server.tool()
    async def form(ctx: mcp_ref.Context) -> str:
        return str((await ctx.elicit("?", {"type": "object", "properties": {}})).action)

    @server.tool()
    def own_question(ctx: mcp_ref.Context) -> Any:  # 2026-07-28: a tool's own InputRequiredResult
        return mcp_ref.InputRequiredResult({"s": {"method": "sampling/createMessage", "params": {
            "messages": said, "maxTokens": 5, "tools": [{"name": "t", "inputSchema": {"type": "object"}}]}}})

    return server


def tools_call(id_: Any, name: str, meta: Optional[Dict[str, Any]] = None, **arguments: Any) -> Dict[str, Any]:
    params: Dict[str, Any] = {"name": name, "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": params}


def until_asked(wire: StdioWire, message: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The frames of a call sent now, once it has asked the client (an async tool runs on)."""
    frames = wire.send(message, settle=False)
    deadline = time.monotonic() + 10
    while not any("method" in f and "id" in f for f in frames) and time.monotonic() < deadline:
        time.sleep(0.005)
        frames += wire.frames()
    return frames


class InitializedTest(unittest.TestCase):
    """basic/lifecycle: the server SHOULD NOT send requests other than pings
    and logging before the client's notifications/initialized; a question
    asked before it is refused to the tool (an MCPError, the call's error)."""

    REFUSED = "elicitation/create cannot be sent before the client's notifications/initialized"

    def test_no_question_before_initialized_stdio(self) -> None:
        wire = StdioWire(asking_server(), LATEST, ALL_CAPS, initialized=False)
        self.addCleanup(wire.close)
        self.assertEqual(wire.send(tools_call(1, "form")), [rpc_error_frame(1, -32600, self.REFUSED)])
        wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        asked = until_asked(wire, tools_call(2, "form"))
        self.assertEqual(asked[-1]["method"], "elicitation/create")
        frames = wire.send({"jsonrpc": "2.0", "id": asked[-1]["id"], "result": {"action": "decline"}})
        self.assertEqual(frames[-1]["result"]["content"], [{"type": "text", "text": "decline"}])

    def test_no_question_before_initialized_http(self) -> None:
        app = asking_server().streamable_http_app()
        self.addCleanup(app.close)
        session = wsgi_session(app, LATEST, ALL_CAPS, initialized=False)
        self.assertEqual(wsgi_post(app, tools_call(1, "form"), session), (200, [rpc_error_frame(1, -32600,
                                                                                                self.REFUSED)]))


FORM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}

FORM_PARAMS = {"mode": "form", "message": "Sure?", "requestedSchema": FORM}

FORM_ANSWER = {"action": "accept", "content": {"ok": True}}


def plain_server() -> mcp_ref.MCPServer:
    """Tools that ask with the Context's own methods (create_message, list_roots,
    elicit_form), async and sync: each answer is the client's result as JSON, a dict."""
    server = mcp_ref.MCPServer("context", version="1.0")
    said = [{"role": "user", "content": {"type": "text", "text": "hi"}}]

    @server.tool()
    async def sample(ctx: mcp_ref.Context) -> str:
        answer = await ctx.create_message(said, 5, system_prompt="Be brief.", temperature=None)
        return f"{type(answer).__name__} {json.dumps(answer, sort_keys=True)}"

    @server.tool()
    async def roots(ctx: mcp_ref.Context) -> str:
        answer = await ctx.list_roots()
        return f"{type(answer).__name__} {json.dumps(answer, sort_keys=True)}"

    @server.tool()
    def sync_roots(ctx: mcp_ref.Context) -> str:  # (a sync tool: the answer is .result())
        answer = ctx.list_roots().result()
        return f"{type(answer).__name__} {json.dumps(answer, sort_keys=True)}"

    @server.tool()
    async def form(ctx: mcp_ref.Context) -> str:
        answer = await ctx.elicit_form("Sure?", FORM)
        return f"{type(answer).__name__} {json.dumps(answer, sort_keys=True)}"

    @server.tool()
    def sync_form(ctx: mcp_ref.Context) -> str:
        answer = ctx.elicit_form("Sure?", FORM).result()
        return f"{type(answer).__name__} {json.dumps(answer, sort_keys=True)}"

    @server.tool()
    def form_as_text(ctx: mcp_ref.Context) -> str:  # a schema given as JSON text: refused, it is no object
        return str(ctx.elicit_form("Sure?", json.dumps(FORM)))  # type: ignore[arg-type]

    return server


class ContextQuestionTest(unittest.TestCase):
    """ctx.create_message, ctx.list_roots and ctx.elicit_form (client/sampling,
    client/roots, client/elicitation) ask as ctx.session's methods do, and give
    the client's result as JSON, checked against the schema (a form's content
    against its requestedSchema): in a session, and in 2026-07-28 over stdio and HTTP."""

    SAMPLING = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5,
                "systemPrompt": "Be brief."}

    def setUp(self) -> None:
        self.server = plain_server()

    def test_in_a_session(self) -> None:
        wire = StdioWire(self.server, LATEST, ALL_CAPS)
        self.addCleanup(wire.close)
        for n, (tool, method, params, answer) in enumerate((
                ("sample", "sampling/createMessage", self.SAMPLING, SAMPLING_ANSWER),
                ("roots", "roots/list", {}, ROOTS_ANSWER),
                ("form", "elicitation/create", FORM_PARAMS, FORM_ANSWER)), start=1):
            with self.subTest(tool=tool):
                asked = until_asked(wire, tools_call(n, tool))
                self.assertEqual(asked[-1], question(n, method, params))
                frames = wire.send({"jsonrpc": "2.0", "id": asked[-1]["id"], "result": answer})
                self.assertEqual(frames, [result_frame(n, LATEST, f"dict {json.dumps(answer, sort_keys=True)}")])

    def test_an_answer_that_does_not_fit_is_a_tool_error(self) -> None:
        wire = StdioWire(self.server, LATEST, ALL_CAPS)
        self.addCleanup(wire.close)
        asked = until_asked(wire, tools_call(1, "sample"))
        frames = wire.send({"jsonrpc": "2.0", "id": asked[-1]["id"], "result": {"role": "assistant", "content": {
            "type": "text", "text": "x"}}})
        self.assertEqual(frames, [tool_error_frame(1, LATEST, "Error executing tool sample: the client's answer to "
                                                              "sampling/createMessage is invalid: $ does not fit "
                                                              "CreateMessageResult")])

    def test_a_form_answer_that_does_not_match_its_schema_is_a_tool_error(self) -> None:
        wire = StdioWire(self.server, LATEST, ALL_CAPS)
        self.addCleanup(wire.close)
        for n, (content, where) in enumerate(((
                {"ok": "yes"}, "$.content.ok"), ({"sure": True}, "$.content")), start=1):
            with self.subTest(content=content):
                asked = until_asked(wire, tools_call(n, "form"))
                self.assertEqual(asked[-1], question(n, "elicitation/create", FORM_PARAMS))
                frames = wire.send({"jsonrpc": "2.0", "id": asked[-1]["id"], "result": {
                    "action": "accept", "content": content}})
                self.assertEqual(frames, [tool_error_frame(
                    n, LATEST, f"Error executing tool form: the client's answer to elicitation/create is invalid: "
                               f"{where} does not match the requested schema")])

    def test_a_form_takes_a_json_schema_object_only(self) -> None:
        with self.assertRaisesRegex(TypeError, r"^requested_schema must be a JSON Schema object \(a dict\), not str$"):
            mcp_ref.Context().elicit_form("Sure?", json.dumps(FORM))  # type: ignore[arg-type]
        wire = StdioWire(self.server, LATEST, ALL_CAPS)  # in a tool: its error, nothing asked
        self.addCleanup(wire.close)
        with contextlib.redirect_stderr(io.StringIO()) as logged:
            self.assertEqual(wire.send(tools_call(1, "form_as_text")),
                             [tool_error_frame(1, LATEST, "Error executing tool form_as_text")])
        self.assertIn("TypeError: requested_schema must be a JSON Schema object", logged.getvalue())

    def test_in_2026_07_28_over_stdio_and_http(self) -> None:
        wire = StdioWire(self.server)
        self.addCleanup(wire.close)
        app = self.server.streamable_http_app()
        self.addCleanup(app.close)
        meta = {META_VERSION: MODERN, META_CAPS: ALL_CAPS}
        for tool, key, method, params, answer in (
                ("sample", "sampling_0", "sampling/createMessage", self.SAMPLING, SAMPLING_ANSWER),
                ("roots", "roots_0", "roots/list", {}, ROOTS_ANSWER),
                ("sync_roots", "roots_0", "roots/list", {}, ROOTS_ANSWER),
                ("form", "elicitation_0", "elicitation/create", FORM_PARAMS, FORM_ANSWER),
                ("sync_form", "elicitation_0", "elicitation/create", FORM_PARAMS, {"action": "cancel"})):
            for transport, send in (("stdio", wire.send), ("http", lambda message: wsgi_post(app, message)[1])):
                with self.subTest(tool=tool, transport=transport):
                    frames = send(tools_call(1, tool, meta))
                    state = take_state(frames[-1])
                    self.assertEqual(frames, [input_required_frame(1, {key: {"method": method, "params": params}})])
                    retry = tools_call(2, tool, meta)
                    retry["params"].update(inputResponses={key: answer}, requestState=state)
                    text = f"dict {json.dumps(answer, sort_keys=True)}"
                    self.assertEqual(send(retry), [result_frame(2, MODERN, text)])


if __name__ == "__main__":
    unittest.main()

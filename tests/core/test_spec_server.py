"""Sentences of the specification that no topic's test showed, one small test each.

Each test names the page it checks; spec/server.tsv maps the sentence to it
(test_requirements.py checks the mapping). Larger behaviours live in the module
of their topic.
"""

from tests import _testing  # (first: it puts the module under test on sys.path)
import asyncio
import dataclasses
import io
import json
import logging
import os
import random
import re
import threading
import time
import unittest
from typing import Annotated, Any, Dict, List, Optional

import mcp_ref

from tests.core.test_http import InProcess
from tests.core.test_tasks import Case, Client as TaskClient, SessionClient, opened, task_server
from tests.core.test_wire import META, WireTestCase


WAIT = 10.0


@dataclasses.dataclass
class Name:
    name: str


class Connection:
    """A connection without a transport that keeps every frame the server writes."""

    def __init__(self, server: mcp_ref.MCPServer) -> None:
        frames = self.frames = []  # type: List[Dict[str, Any]]

        class Conn(mcp_ref._Connection):  # type: ignore[misc, name-defined]
            def write(self, message: Any) -> None:
                frames.append(json.loads(message))

        self.conn = opened(Conn(server))
        self.ids = 0

    def request(self, method: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        self.ids += 1
        replies: List[bytes] = []
        done = threading.Event()

        def reply(data: Optional[bytes]) -> None:
            replies.append(data or b"null")
            done.set()

        message = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params or {}}
        frame = self.conn.handle_message(message, reply)
        if frame is mcp_ref._STARTED:
            assert done.wait(WAIT), f"{method} was not answered"
            frame = json.loads(replies[0])
        self.frames.append(frame)
        return frame  # type: ignore[no-any-return]


class JsonRpcTest(WireTestCase):
    """basic/index "Requests" and basic/transports: the message rules over stdio."""

    def test_a_null_id_is_an_invalid_request(self) -> None:
        # "Unlike base JSON-RPC, the ID MUST NOT be null."
        self.assertEqual(self.server.request(None, "ping"), {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32600, "message": 'Invalid Request: "id" must be a string or an integer'}})
        self.assertEqual(self.server.request(1, "ping"), {"jsonrpc": "2.0", "id": 1, "result": {}})

    def test_a_line_that_is_not_utf_8_is_a_parse_error(self) -> None:
        # "JSON-RPC messages MUST be UTF-8 encoded": Latin-1 bytes are no message.
        for line in (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "\xff\xfe"}}\n',
                     '{"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"x": "é"}}\n'.encode("latin-1")):
            self.server.send(line)
            self.assertEqual(self.server.recv(), {"jsonrpc": "2.0", "id": None, "error": {
                "code": -32700, "message": "Parse error: invalid UTF-8"}})
        self.assertEqual(self.server.request(3, "ping"), {"jsonrpc": "2.0", "id": 3, "result": {}})

    def test_tool_names_are_case_sensitive(self) -> None:
        # server/tools "Tool Names": "Tool names SHOULD be considered case-sensitive."
        self.server.initialize()
        self.assertEqual(self.server.request(1, "tools/call", {"name": "ADD", "arguments": {"a": 1}}), {
            "jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unknown tool: ADD"}})
        self.assertIn("result", self.server.request(2, "tools/call", {"name": "add", "arguments": {"a": 1}}))


def sse(body: bytes) -> List[Any]:
    """The JSON messages of an SSE body (a priming event's empty data left out)."""
    lines = body.decode().splitlines()
    return [json.loads(line[5:]) for line in lines if line.startswith("data:") and line[5:].strip()]


class ProgressTest(Case):
    """basic/utilities/progress: "Progress notifications MUST stop after completion";
    a log line of a finished request is not sent either (2026-07-28: notifications/message
    is request-scoped), over a bare connection, stdio and HTTP."""

    @staticmethod
    def keeper() -> Any:
        server = mcp_ref.MCPServer("progress", request_timeout=1)  # a late question must not hang the test
        server.kept = []  # type: ignore[attr-defined]

        @server.tool()
        def remembers(ctx: mcp_ref.Context) -> str:
            ctx.report_progress(1, 2)
            server.kept.append(ctx)  # type: ignore[attr-defined]
            return "done"

        return server

    @staticmethod
    def late(ctx: mcp_ref.Context) -> None:
        """What a Context kept past its call tries to send; none of it may go out."""
        ctx.report_progress(2, 2)
        ctx.info("too late")
        if ctx.protocol_version != "2026-07-28":  # a question to the client fails (none goes out)
            with unittest.TestCase().assertRaisesRegex(mcp_ref.MCPError, "outside of a request"):
                ctx.elicit("too late", {"type": "object", "properties": {}})

    def test_no_progress_after_the_response(self) -> None:
        server = self.keeper()
        conn = Connection(server)
        conn.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                                    "clientInfo": {"name": "t", "version": "1"}})
        reply = conn.request("tools/call", {"name": "remembers", "arguments": {}, "_meta": {"progressToken": "p"}})
        self.assertEqual(reply["result"]["content"], [{"type": "text", "text": "done"}])
        self.assertEqual([f.get("method") for f in conn.frames], [None, "notifications/progress", None])
        self.late(server.kept[0])  # type: ignore[attr-defined]  # the request is over: nothing is sent
        time.sleep(0.1)
        self.assertEqual([f.get("method") for f in conn.frames], [None, "notifications/progress", None])

    def test_no_progress_after_the_response_over_stdio(self) -> None:
        server = self.keeper()
        conn = opened(mcp_ref._StdioServer(server))
        conn.out = io.BytesIO()
        conn.handle_line(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "t", "version": "1"}}}).encode())
        for n, meta in enumerate(({"progressToken": "p"}, dict(META, progressToken="p", **{
                "io.modelcontextprotocol/logLevel": "debug"})), start=1):
            conn.handle_line(json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": "remembers", "arguments": {}, "_meta": meta}}).encode())
            conn.settle_all(WAIT)
            conn.draining = False
            self.late(server.kept[-1])  # type: ignore[attr-defined]
        frames = [json.loads(line) for line in conn.out.getvalue().splitlines()]
        self.assertEqual([(f.get("id"), f.get("method")) for f in frames], [
            (0, None), (None, "notifications/progress"), (1, None), (None, "notifications/progress"), (2, None)])

    def test_no_progress_after_the_response_over_http(self) -> None:
        server = self.keeper()
        endpoint = InProcess(server)
        self.addCleanup(endpoint.stop)
        reply = endpoint.request("POST", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "t", "version": "1"}}})
        session = reply.headers["mcp-session-id"]
        endpoint.in_session(session, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "remembers", "arguments": {}, "_meta": {"progressToken": "p"}}}
        first = sse(endpoint.in_session(session, call).body)
        self.assertEqual([f.get("method") for f in first], ["notifications/progress", None])
        self.late(server.kept[-1])  # type: ignore[attr-defined]
        second = sse(endpoint.in_session(session, dict(call, id=2)).body)  # the session's next response
        self.assertEqual([(f.get("id"), f.get("method")) for f in second],
                         [(None, "notifications/progress"), (2, None)])
        modern = endpoint.modern("tools/call", {"name": "remembers", "arguments": {}})
        self.assertEqual(modern.json()["result"]["content"], [{"type": "text", "text": "done"}])
        self.late(server.kept[-1])  # type: ignore[attr-defined]

    def test_a_report_racing_the_response_goes_before_it_or_not_at_all(self) -> None:
        # Another thread reports progress while the call ends (stdio, in order of
        # writing): each report is written before the response, or dropped; never after it.
        server = mcp_ref.MCPServer("race")
        started = threading.Event()
        shared: List[Any] = []

        @server.tool()
        def racing(delay: float, ctx: mcp_ref.Context) -> str:
            shared.append(ctx)
            started.set()
            time.sleep(delay)
            return "done"

        conn = opened(mcp_ref._StdioServer(server))
        conn.out = io.BytesIO()
        conn.handle_line(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}).encode())
        random_ = random.Random(31)
        for n in range(1, 31):
            started.clear()
            stop = threading.Event()

            def report(stop: threading.Event) -> None:
                started.wait(WAIT)
                step = 0
                while not stop.is_set():
                    step += 1
                    shared[-1].report_progress(step)

            reporter = threading.Thread(target=report, args=(stop,))
            reporter.start()
            conn.handle_line(json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": "racing", "arguments": {"delay": random_.random() / 500}, "_meta": {"progressToken": n}}}
                                        ).encode())
            conn.settle_all(WAIT)
            conn.draining = False
            time.sleep(0.002)
            stop.set()
            reporter.join(WAIT)
        frames = [json.loads(line) for line in conn.out.getvalue().splitlines()]
        for n in range(1, 31):
            mine = [f for f in frames if f.get("id") == n or f.get("params", {}).get("progressToken") == n]
            self.assertEqual(mine[-1].get("id"), n)


class StdioSession:
    """A stdio connection in process, after the handshake: each line handled as
    the reader handles it; ``frames()`` is everything written, in order."""

    def __init__(self, server: mcp_ref.MCPServer, caps: Optional[Dict[str, Any]] = None) -> None:
        self.conn = opened(mcp_ref._StdioServer(server))
        self.conn.out = io.BytesIO()
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": caps or {},
            "clientInfo": {"name": "t", "version": "1"}}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: Dict[str, Any]) -> None:
        self.conn.handle_line(json.dumps(message).encode())
        self.conn.settle_all(WAIT)
        self.conn.draining = False

    def frames(self) -> List[Dict[str, Any]]:
        return [json.loads(line) for line in self.conn.out.getvalue().splitlines()]


ALL_QUESTIONS = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}


def asking_server(timeout: Optional[float], request_timeout: float = 30.0) -> mcp_ref.MCPServer:
    """Tools that ask the client each kind of question (with ``timeout`` per request, if given)."""
    server = mcp_ref.MCPServer("asking", request_timeout=request_timeout)
    per = {} if timeout is None else {"request_read_timeout_seconds": timeout}
    message = [{"role": "user", "content": {"type": "text", "text": "q"}}]
    questions: Dict[str, Any] = {
        "form": lambda ctx: ctx.elicit("When?", {"type": "object", "properties": {}}, **per),
        "url": lambda ctx: ctx.elicit_url("Go", "https://example.com/a", "e1", **per),
        "sampling": lambda ctx: ctx.session.create_message(message, max_tokens=5, **per),
        "roots": lambda ctx: ctx.session.list_roots(**per),
        "form_json": lambda ctx: ctx.session.elicit_form("When?", {"type": "object", "properties": {}}, **per),
    }

    @server.tool()
    def ask_sync(kind: str, ctx: mcp_ref.Context) -> str:
        try:
            return repr(questions[kind](ctx).result())
        except ValueError as exc:  # (a tool error's text would hide it)
            return str(exc)

    @server.tool()
    async def ask_async(kind: str, ctx: mcp_ref.Context) -> str:
        return repr(await questions[kind](ctx))

    return server


class ProgressFloodTest(unittest.TestCase):
    """ProgressTest's ordering holds when a notification cannot be sent: an async
    tool whose progress overflows a 2026-07-28 response (max_stream_buffer) has
    its call cancelled by that very report, on its own thread; the event loop
    goes on serving."""

    def test_a_report_that_overflows_the_response(self) -> None:
        server = mcp_ref.MCPServer("flood")

        @server.tool()
        async def flood(ctx: mcp_ref.Context) -> str:
            for i in range(1, 2000):
                await ctx.report_progress(i, message="x" * 500)
            return "done"

        @server.tool()
        async def hello() -> str:
            return "hi"

        endpoint = InProcess(server, max_stream_buffer=2000, sse_after=0.0)
        self.addCleanup(endpoint.stop)
        session = endpoint.initialize()
        for _ in range(5):  # (the overflow comes as the scheduler wills: a few times over)
            endpoint.request("POST", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "flood", "arguments": {}, "_meta": dict(META, progressToken=1)}},
                {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "flood"})
        for reply in (endpoint.modern("tools/call", {"name": "hello", "arguments": {}}, id_=2),
                      endpoint.in_session(session, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                                    "params": {"name": "hello", "arguments": {}}})):
            self.assertEqual(sse(reply.body)[-1]["result"]["content"], [{"type": "text", "text": "hi"}])


class _QuestionTimeoutTestShared:
    """What QuestionTimeoutTest here and its part in tests/layers share."""

    def check_gave_up(self, frames: List[Dict[str, Any]], id_: int, seconds: str) -> None:
        reason = f"the client did not answer within {seconds} s"
        asked, cancelled, response = frames[-3:]
        self.assertIn(asked["method"], ("elicitation/create", "sampling/createMessage", "roots/list"))
        self.assertEqual(cancelled, {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                     "params": {"requestId": asked["id"], "reason": reason}})
        self.assertEqual(response["id"], id_)
        self.assertIn(reason, json.dumps(response))


class QuestionTimeoutTest(_QuestionTimeoutTestShared, Case):
    """2025-11-25 basic/lifecycle "Timeouts": a question to the client that is not
    answered in time is given up with notifications/cancelled ("the sender SHOULD
    issue a cancellation notification for that request and stop waiting"), and
    its timeout may be set per request ("SDKs ... SHOULD allow these timeouts to
    be configured on a per-request basis": ``request_read_timeout_seconds``, the
    SDK's name)."""

    def test_a_question_given_up_is_cancelled_over_stdio(self) -> None:
        session = StdioSession(asking_server(None, request_timeout=0.2), ALL_QUESTIONS)
        for n, tool in enumerate(("ask_sync", "ask_async"), start=1):
            session.send({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                          "params": {"name": tool, "arguments": {"kind": "form"}}})
            frames = session.frames()
            self.check_gave_up(frames, n, "0.2")
            session.send({"jsonrpc": "2.0", "id": frames[-3]["id"], "result": {"action": "accept"}})  # ignored
            self.assertEqual(len(session.frames()), len(frames))


    def test_a_timeout_that_is_no_duration_is_refused(self) -> None:
        for bad in (0, -1, True, "1", float("nan")):
            with self.subTest(timeout=bad):
                session = StdioSession(asking_server(bad), ALL_QUESTIONS)  # type: ignore[arg-type]
                session.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                              "params": {"name": "ask_sync", "arguments": {"kind": "form"}}})
                self.assertEqual(session.frames()[-1]["result"]["content"][0]["text"],
                                 f"request_read_timeout_seconds must be a number of seconds > 0, not {bad!r}")


class CancellationLogTest(Case):
    """basic/utilities/cancellation "Implementation Notes": "Both parties SHOULD log
    cancellation reasons for debugging": at DEBUG on the ``mcp_ref`` logger, the
    client's values repr'd; nothing on stdout (stdio's protocol stream)."""

    def cancel(self, deliver: Any, params: Dict[str, Any]) -> List[str]:
        logging.getLogger("mcp_ref").disabled = False  # (dictConfig elsewhere disables it)
        with self.assertLogs("mcp_ref", "DEBUG") as logs:
            deliver({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})
        self.assertEqual([r.levelname for r in logs.records], ["DEBUG"])
        return [r.getMessage() for r in logs.records]

    def test_over_stdio(self) -> None:
        session = StdioSession(mcp_ref.MCPServer("cancel"))

        def deliver(message: Dict[str, Any]) -> None:
            session.conn.handle_line(json.dumps(message).encode())

        self.assertEqual(self.cancel(deliver, {"requestId": 7, "reason": "User requested cancellation"}),
                         ["the client cancelled request 7: 'User requested cancellation'"])
        self.assertEqual(self.cancel(deliver, {"requestId": "x"}),
                         ["the client cancelled request 'x': no reason given"])
        self.assertEqual(self.cancel(deliver, {"requestId": 8, "reason": "two\nlines", "_meta": META}),
                         ["the client cancelled request 8: 'two\\nlines'"])
        self.assertEqual([f.get("id") for f in session.frames()], [0])  # stdout: the protocol's alone

    def test_over_http(self) -> None:
        endpoint = InProcess(mcp_ref.MCPServer("cancel"))
        self.addCleanup(endpoint.stop)
        session = endpoint.initialize()
        # (2026-07-28's HTTP defines no client notification: a client cancels by closing the stream.)
        self.assertEqual(self.cancel(lambda m: endpoint.in_session(session, m), {"requestId": 3, "reason": "gone"}),
                         ["the client cancelled request 3: 'gone'"])


class TaskAuditTest(Case):
    """basic/utilities/tasks "Audit and Logging": "Log task creation, completion, and
    retrieval events for audit purposes; Include auth context in logs when available;
    Monitor for suspicious patterns (e.g., many failed task lookups)": on the
    ``mcp_ref.tasks`` logger, with the requestor (here a token's principal)."""

    def test_creation_changes_reads_and_failed_lookups_are_logged(self) -> None:
        server = task_server()
        self.addCleanup(server.gate.set)  # type: ignore[attr-defined]
        alice, bob = SessionClient(server, "alice"), SessionClient(server, "bob")
        logging.getLogger("mcp_ref.tasks").disabled = False  # (dictConfig elsewhere disables it)
        with self.assertLogs("mcp_ref.tasks", "DEBUG") as logs:
            task_id = alice.ask("tools/call", {"name": "quick", "arguments": {"n": 1}, "task": {}})["task"]["taskId"]
            alice.ask("tasks/result", {"taskId": task_id})
            bob.ask("tasks/get", {"taskId": task_id})  # another's: not found, as an unknown one
            alice.ask("tasks/get", {"taskId": "no\nsuch"})
        self.assertEqual({(r.levelname, r.getMessage()) for r in logs.records}, {  # (a read may come first, too)
            ("INFO", f"task {task_id} created for 'alice': tool 'quick'"),
            ("INFO", f"task {task_id} of 'alice': working -> completed"),
            ("DEBUG", f"task {task_id} read by 'alice'"),
            ("INFO", f"task '{task_id}' not found for 'bob'"),
            ("INFO", "task 'no\\nsuch' not found for 'alice'")})

    def test_a_cancellation_is_logged(self) -> None:
        server = task_server()
        self.addCleanup(server.gate.set)  # type: ignore[attr-defined]
        client = SessionClient(server)
        task_id = client.ask("tools/call", {"name": "gated", "arguments": {}, "task": {}})["task"]["taskId"]
        logging.getLogger("mcp_ref.tasks").disabled = False  # (dictConfig elsewhere disables it)
        with self.assertLogs("mcp_ref.tasks", "INFO") as logs:
            client.ask("tasks/cancel", {"taskId": task_id})
        self.assertIn(f"INFO:mcp_ref.tasks:task {task_id} of '': working -> cancelled", logs.output)


class SessionTasksTest(Case):
    """2025-11-25 basic/utilities/tasks, beyond test_tasks.SessionTasksTest."""

    def setUp(self) -> None:
        super().setUp()
        self.server = task_server()
        self.addCleanup(self.server.gate.set)  # type: ignore[attr-defined]
        self.client = SessionClient(self.server)

    def create(self, name: str) -> str:
        return self.client.ask("tools/call", {"name": name, "arguments": {"n": 1}, "task": {}})["task"][
            "taskId"]  # type: ignore[no-any-return]

    def settled(self, task_id: str) -> Dict[str, Any]:
        deadline = time.monotonic() + WAIT
        while True:
            task = self.client.ask("tasks/get", {"taskId": task_id})
            if task["status"] in ("completed", "failed", "cancelled") or time.monotonic() > deadline:
                return task

    def test_task_ids_are_unique_uuid4(self) -> None:
        # "Task IDs MUST be unique among all tasks controlled by the receiver"; without
        # context-binding "cryptographically secure task IDs": uuid4 (os.urandom's 122 bits).
        ids = [self.create("quick") for _ in range(50)]
        self.assertEqual(len(set(ids)), 50)
        for task_id in ids:
            self.assertRegex(task_id, r"\A[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\Z")

    def test_tasks_result_waits_for_the_end(self) -> None:
        # "Result Retrieval": tasks/result on a working task "MUST block the response
        # until the task reaches a terminal status".
        task_id = self.create("gated")
        answers: List[Dict[str, Any]] = []
        waiter = threading.Thread(target=lambda: answers.append(self.client.ask("tasks/result", {"taskId": task_id})))
        waiter.start()
        time.sleep(0.3)
        self.assertEqual(answers, [])
        self.assertEqual(self.client.ask("tasks/get", {"taskId": task_id})["status"], "working")
        self.server.gate.set()  # type: ignore[attr-defined]
        waiter.join(WAIT)
        self.assertEqual(answers[0]["content"], [{"type": "text", "text": "released"}])
        self.assertEqual(answers[0]["_meta"], {"io.modelcontextprotocol/related-task": {"taskId": task_id}})

    def test_the_task_id_parameter_wins_over_related_task_meta(self) -> None:
        # "the taskId parameter in the request MUST be used as the source of truth";
        # "receivers MUST ignore such metadata if present".
        done, working = self.create("quick"), self.create("gated")
        self.settled(done)
        other = {"io.modelcontextprotocol/related-task": {"taskId": done}}
        for method in ("tasks/get", "tasks/cancel"):
            with self.subTest(method=method):
                self.assertEqual(self.client.ask(method, {"taskId": working, "_meta": other})["taskId"], working)
        self.assertEqual(self.client.ask("tasks/get", {"taskId": working})["status"], "cancelled")
        self.assertEqual(self.client.ask("tasks/result", {"taskId": done, "_meta": {
            "io.modelcontextprotocol/related-task": {"taskId": working}}})["_meta"], other)

    def test_get_list_and_cancel_carry_no_related_task(self) -> None:
        # "for the tasks/get, tasks/list, and tasks/cancel operations, receivers SHOULD
        # NOT include io.modelcontextprotocol/related-task metadata in the result messages".
        task_id = self.create("gated")
        for method, params in (("tasks/get", {"taskId": task_id}), ("tasks/list", {}),
                               ("tasks/cancel", {"taskId": task_id})):
            with self.subTest(method=method):
                result = self.client.ask(method, params)
                self.assertNotIn("error", result)
                self.assertNotIn("io.modelcontextprotocol/related-task", result.get("_meta", {}))
                for task in result.get("tasks", []):
                    self.assertNotIn("_meta", task)

    def test_a_failed_task_says_why(self) -> None:
        # "Task Execution Errors": "The tasks/get response SHOULD include a statusMessage
        # field with diagnostic information about the failure."
        task = self.settled(self.create("crash"))
        self.assertEqual((task["status"], task["statusMessage"]), ("failed", "it crashed"))
        self.assertEqual(self.client.ask("tasks/result", {"taskId": task["taskId"]}), {"error": {
            "code": -32603, "message": "it crashed"}})


class BearerTest(unittest.TestCase):
    """2025-11-25 basic/authorization "Access Token Usage" and "Error Handling": what
    the resource server does with a bearer token, over HTTP."""

    def setUp(self) -> None:
        self.endpoint = self.serve(["mcp:read"])

    def serve(self, required: List[str]) -> InProcess:
        class Auth:
            issuer_url = "https://auth.example.com"
            resource_server_url = "http://127.0.0.1/mcp"
            required_scopes = required

        class Token:
            def __init__(self, scopes: List[str], expires_at: Optional[int] = None) -> None:
                self.scopes, self.expires_at = scopes, expires_at
                self.resource = "http://127.0.0.1/mcp"  # issued for this server (test_http.BearerTokenTest)

        async def verify(token: str) -> Optional[Token]:
            return {"good": Token(["mcp:read"]), "old": Token(["mcp:read"], int(time.time()) - 60),
                    "weak": Token(["other"])}.get(token)

        verifier = type("Verifier", (), {"verify_token": staticmethod(verify)})()
        endpoint = InProcess(mcp_ref.MCPServer("auth", token_verifier=verifier, auth=Auth()))
        self.addCleanup(endpoint.stop)
        return endpoint

    def test_an_expired_token_is_refused(self) -> None:
        # "Invalid or expired tokens MUST receive a HTTP 401 response" (OAuth 2.1 section 5.3).
        reply = self.endpoint.modern("tools/list", headers={"Authorization": "Bearer old"})
        self.assertEqual(reply.status, 401)
        self.assertIn('error="invalid_token"', reply.headers["www-authenticate"])
        self.assertEqual(self.endpoint.modern("tools/list", headers={"Authorization": "Bearer good"}).status, 200)

    def test_a_token_in_the_query_is_no_token(self) -> None:
        # "Access tokens MUST NOT be included in the URI query string": one there is not read.
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
        headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
        for path in ("/mcp?access_token=good", "/mcp?token=good"):
            with self.subTest(path=path):
                self.assertEqual(self.endpoint.request("POST", body, headers, path=path).status, 401)

    def test_insufficient_scope_names_the_scope(self) -> None:
        # "Runtime Insufficient Scope Errors": 403 with error="insufficient_scope" and
        # "the scopes needed to satisfy the current request in the scope parameter".
        reply = self.endpoint.modern("tools/list", headers={"Authorization": "Bearer weak"})
        self.assertEqual(reply.status, 403)
        self.assertIn('error="insufficient_scope"', reply.headers["www-authenticate"])
        self.assertIn('scope="mcp:read"', reply.headers["www-authenticate"])

    def test_every_required_scope_in_one_challenge(self) -> None:
        # 2026-07-28: "servers SHOULD include all scopes required for the current
        # operation in a single challenge".
        reply = self.serve(["mcp:read", "mcp:write"]).modern("tools/list", headers={"Authorization": "Bearer good"})
        self.assertEqual(reply.status, 403)
        self.assertIn('scope="mcp:read mcp:write"', reply.headers["www-authenticate"])


class HttpHeadersTest(unittest.TestCase):
    """2026-07-28 basic/transports/streamable-http: a call's SSE stream and the header encoding."""

    def test_a_post_stream_says_x_accel_buffering_no(self) -> None:
        # "When initiating an SSE stream, servers SHOULD include the X-Accel-Buffering: no
        # header"; "The server MUST NOT send independent JSON-RPC requests on this stream":
        # a question is the call's InputRequiredResult.
        server = mcp_ref.MCPServer("streams")

        @server.tool()
        async def slow(ctx: mcp_ref.Context) -> str:
            await ctx.info("working")
            await asyncio.sleep(0.3)
            answer = await ctx.elicit("Your name?", Name)
            return str(answer.action)

        endpoint = InProcess(server, sse_after=0.05)
        self.addCleanup(endpoint.stop)
        meta = dict(META, **{"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
                             "io.modelcontextprotocol/logLevel": "info"})
        reply = endpoint.request("POST", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "slow", "arguments": {}, "_meta": meta}}, {
            "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "slow"})
        self.assertEqual((reply.status, reply.headers["content-type"]), (200, "text/event-stream"))
        self.assertEqual(reply.headers["x-accel-buffering"], "no")
        events = reply.events()
        self.assertEqual([e.get("method") for e in events], ["notifications/message", None])
        self.assertEqual(events[-1]["result"]["resultType"], "input_required")
        self.assertFalse([e for e in events if "method" in e and "id" in e])

    def test_a_batch_is_refused(self) -> None:
        # "The body of the HTTP POST MUST be a single JSON-RPC request or notification."
        server = mcp_ref.MCPServer("batches")
        server.add_tool(lambda a: a, name="echo")
        endpoint = InProcess(server)
        self.addCleanup(endpoint.stop)
        batch = [{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}]
        reply = endpoint.request("POST", batch, {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
        self.assertEqual(reply.status, 400)
        self.assertEqual(reply.json()["error"]["code"], -32600)

    def regional(self) -> InProcess:
        server = mcp_ref.MCPServer("headers")

        @server.tool()
        def regional(region: Annotated[str, mcp_ref.Field(json_schema_extra={"x-mcp-header": "Region"})] = "eu") -> str:
            return region

        endpoint = InProcess(server)
        self.addCleanup(endpoint.stop)
        return endpoint

    def call(self, endpoint: InProcess, arguments: Dict[str, Any], headers: Dict[str, str]) -> Any:
        return endpoint.request("POST", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "regional", "arguments": arguments, "_meta": META}}, headers)

    def test_header_names_are_case_insensitive(self) -> None:
        # "Clients and servers MUST use case-insensitive comparisons for header names."
        endpoint = self.regional()
        for spell in (str.lower, str.upper):
            headers = {spell(k): v for k, v in (("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"),
                                                ("Mcp-Name", "regional"), ("Mcp-Param-Region", "us"))}
            with self.subTest(headers=headers):
                reply = self.call(endpoint, {"region": "us"}, headers)
                self.assertEqual((reply.status, reply.json()["result"]["content"][0]["text"]), (200, "us"))

    def test_no_header_is_expected_for_an_absent_or_null_argument(self) -> None:
        # "Parameter value is null | Client MUST omit the header | Server MUST NOT expect the
        # header" (and likewise a parameter not in the arguments).
        endpoint = self.regional()
        headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "regional"}
        self.assertEqual(self.call(endpoint, {}, headers).json()["result"]["content"][0]["text"], "eu")
        reply = self.call(endpoint, {"region": None}, headers)
        self.assertEqual(reply.status, 200)  # no -32020: the argument's own check refuses it
        self.assertTrue(reply.json()["result"]["isError"])
        mismatch = self.call(endpoint, {"region": "us"}, headers)  # a value, and no header: rejected
        self.assertEqual((mismatch.status, mismatch.json()["error"]["code"]), (400, -32020))

    def test_the_base64_marker_is_lowercase_only(self) -> None:
        # "Value Encoding": "These markers are case-sensitive and MUST appear exactly as
        # shown (lowercase)": another spelling is a literal value.
        self.assertEqual(mcp_ref._header_text("=?base64?YWJj?="), "abc")
        for literal in ("=?BASE64?YWJj?=", "=?Base64?YWJj?="):
            self.assertEqual(mcp_ref._header_text(literal), literal)


class MrtrTest(Case):
    """2026-07-28 basic/patterns/mrtr: "Servers MUST NOT send InputRequiredResult
    responses on any other client requests" than tools/call, prompts/get, resources/read."""

    def test_capabilities_are_read_from_each_request(self) -> None:
        # schema, RequestMetaObject: "Servers MUST NOT infer capabilities from prior requests."
        server = mcp_ref.MCPServer("asks")

        @server.tool()
        async def ask(ctx: mcp_ref.Context) -> str:
            answer = await ctx.elicit("Your name?", Name)
            return str(answer.action)

        conn = Connection(server)
        caps = "io.modelcontextprotocol/clientCapabilities"
        declared = conn.request("tools/call", {"name": "ask", "arguments": {}, "_meta": dict(META, **{
            caps: {"elicitation": {}}})})
        self.assertEqual(declared["result"]["resultType"], "input_required")
        undeclared = conn.request("tools/call", {"name": "ask", "arguments": {}, "_meta": META})
        self.assertEqual(undeclared["error"]["code"], -32021)
        self.assertEqual(undeclared["error"]["data"], {"requiredCapabilities": {"elicitation": {}}})

    def test_a_completion_handler_cannot_ask(self) -> None:
        server = mcp_ref.MCPServer("asks")

        @server.prompt()
        def greet(who: str) -> str:
            return f"Hello, {who}"

        @server.completion()
        async def complete(ref: Any, argument: Any, context: Any) -> Any:
            return mcp_ref.InputRequiredResult(input_requests={"a": {"method": "roots/list", "params": {}}})

        conn = Connection(server)
        reply = conn.request("completion/complete", {"ref": {"type": "ref/prompt", "name": "greet"},
                                                     "argument": {"name": "who", "value": ""}, "_meta": META})
        self.assertEqual(reply["result"]["resultType"], "complete")
        self.assertNotIn("inputRequests", reply["result"])


class ListsTest(Case):
    """2026-07-28 server/tools, server/prompts, server/resources: the listed set "MUST NOT
    vary per-connection or as a side effect of other requests on the connection"."""

    def test_every_connection_lists_the_same(self) -> None:
        server = mcp_ref.MCPServer("lists")
        server.add_tool(lambda a: a, name="echo")
        server.prompt(name="greet")(lambda: "hi")
        server.add_resource(mcp_ref.TextResource("x://one", text="1"))
        first, second = Connection(server), Connection(server)
        first.request("tools/call", {"name": "echo", "arguments": {"a": 1}, "_meta": META})
        first.request("resources/read", {"uri": "x://one", "_meta": META})
        for method in ("tools/list", "prompts/list", "resources/list"):
            with self.subTest(method=method):
                lists = [conn.request(method, {"_meta": META})["result"] for conn in (first, second)]
                self.assertEqual(lists[0], lists[1])
                self.assertTrue(lists[0][method.split("/")[0]])

    def test_every_page_has_the_lists_cache_scope(self) -> None:
        # server/utilities/caching: "Servers MUST apply the same cacheScope to all response
        # pages for a given list request."
        for scope in ("public", "private"):
            server = mcp_ref.MCPServer("pages", cache_scope=scope, page_size=1)
            for name in ("a", "b", "c"):
                server.add_tool(lambda x: x, name=name)
            conn, cursor, scopes = Connection(server), None, []
            while True:
                result = conn.request("tools/list", dict({"_meta": META}, **({"cursor": cursor} if cursor else {})))[
                    "result"]
                scopes.append(result["cacheScope"])
                cursor = result.get("nextCursor")
                if not cursor:
                    break
            self.assertEqual(scopes, [scope] * 3)


class LoggingTest(Case):
    """2026-07-28 server/utilities/logging: "notifications/message is request-scoped: the
    server MUST NOT deliver it on a subscriptions/listen stream"."""

    def test_a_log_line_stays_with_its_request(self) -> None:
        server = mcp_ref.MCPServer("logs")

        @server.tool()
        async def chatty(ctx: mcp_ref.Context) -> str:
            await ctx.warning("a warning line")
            ctx.notify_tools_changed()
            return "said"

        listener, caller = Connection(server), Connection(server)
        server._connections.append(listener.conn)  # as the HTTP app registers a listen stream's
        self.addCleanup(server._connections.remove, listener.conn)
        started = listener.conn.handle_message({"jsonrpc": "2.0", "id": "l", "method": "subscriptions/listen",
                                                "params": {"notifications": {"toolsListChanged": True},
                                                           "_meta": META}}, lambda data: None)
        self.assertIs(started, mcp_ref._STARTED)
        reply = caller.request("tools/call", {"name": "chatty", "arguments": {}, "_meta": dict(META, **{
            "io.modelcontextprotocol/logLevel": "debug"})})
        self.assertEqual(reply["result"]["content"], [{"type": "text", "text": "said"}])
        self.assertEqual([f.get("method") for f in caller.frames], ["notifications/message", None])
        deadline = time.monotonic() + WAIT
        while len(listener.frames) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual([f.get("method") for f in listener.frames], [
            "notifications/subscriptions/acknowledged", "notifications/tools/list_changed"])


class TasksHttpTest(unittest.TestCase):
    """2025-11-25 basic/utilities/tasks "Input Required Status": "servers SHOULD NOT
    upgrade to an SSE stream in response to a tasks/get request"."""

    def test_tasks_get_is_answered_with_json(self) -> None:
        server = task_server()
        self.addCleanup(server._tasks.close)
        self.addCleanup(server.gate.set)  # type: ignore[attr-defined]
        endpoint = InProcess(server, sse_after=0.0)
        self.addCleanup(endpoint.stop)
        session = endpoint.initialize()
        created = endpoint.in_session(session, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "gated", "arguments": {}, "task": {}}})
        task_id = created.json()["result"]["task"]["taskId"]
        for n in range(3):
            reply = endpoint.in_session(session, {"jsonrpc": "2.0", "id": 2 + n, "method": "tasks/get",
                                                  "params": {"taskId": task_id}})
            self.assertEqual((reply.status, reply.headers["content-type"]), (200, "application/json"))
            self.assertEqual(reply.json()["result"]["status"], "working")


class TasksExtensionTest(Case):
    """The tasks extension, "Task Update Requests": "Each request key in inputRequests
    MUST be unique over the lifetime of a single task"; a server "SHOULD ignore any
    inputResponses ... mapped to a key that is not currently outstanding"."""

    def test_a_working_task_is_got_as_working(self) -> None:
        # "Task Polling": "If the status is working, the server MUST return a Task object
        # with status working", its resultType "complete".
        server = task_server()
        self.addCleanup(server.gate.set)  # type: ignore[attr-defined]
        client = TaskClient(server)
        task_id = client.call("gated")["taskId"]
        task = client.get(task_id)
        self.assertEqual((task["taskId"], task["status"], task["resultType"]), (task_id, "working", "complete"))
        self.assertFalse({"result", "error", "inputRequests"} & set(task))
        server.gate.set()  # type: ignore[attr-defined]
        self.assertEqual(client.settled(task_id)["status"], "completed")


class DocumentedTest(unittest.TestCase):
    """basic/index "JSON Schema Usage": implementations "SHOULD document which additional
    dialects they support": the README says 2020-12, and only it."""

    def test_the_readme_names_the_dialect(self) -> None:
        with open(os.path.join(_testing.HERE, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        self.assertIn("| `validate(instance, schema)` | JSON Schema 2020-12", readme)
        self.assertNotRegex(readme, r"draft[- ]0[467] (is|are) supported")


# basic/index "_meta": an optional prefix of dot-separated labels (each starting with
# a letter, ending with a letter or digit) and a slash, then a name that, unless empty,
# begins and ends with an alphanumeric character.
_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"

META_KEY = re.compile(rf"(?:{_LABEL}(?:\.{_LABEL})*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?")


def meta_keys(value: Any) -> List[str]:
    """Every key of every ``_meta`` object inside a frame."""
    keys: List[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "_meta" and isinstance(item, dict):
                keys += list(item)
            keys += meta_keys(item)
    elif isinstance(value, list):
        for item in value:
            keys += meta_keys(item)
    return keys


class MetaKeysTest(Case):
    """basic/index "_meta": the keys the server writes follow the naming rules, and
    its own are under a reverse-DNS prefix (io.modelcontextprotocol/)."""

    def test_the_keys_the_server_writes_follow_the_grammar(self) -> None:
        server = task_server()
        frames: List[Any] = []
        modern = TaskClient(server)
        task_id = modern.call("quick", {"n": 1})["taskId"]
        modern.settled(task_id)
        session = SessionClient(server)
        created = session.ask("tools/call", {"name": "quick", "arguments": {"n": 2}, "task": {}})
        frames.append(session.ask("tasks/result", {"taskId": created["task"]["taskId"]}))
        conn = Connection(server)
        for method, params in (("server/discover", {}), ("tools/list", {}),
                               ("tools/call", {"name": "quick", "arguments": {"n": 3}})):
            conn.request(method, dict(params, _meta=META))
        frames += conn.frames + modern.written + session.written
        keys = set(meta_keys(frames))
        self.assertIn("io.modelcontextprotocol/serverInfo", keys)
        self.assertIn("io.modelcontextprotocol/related-task", keys)
        for key in keys:
            self.assertRegex(key, META_KEY)
            self.assertTrue(META_KEY.fullmatch(key), key)
            self.assertTrue(key.startswith("io.modelcontextprotocol/"), key)
        self.assertFalse(META_KEY.fullmatch("1bad/x") or META_KEY.fullmatch("a./x") or META_KEY.fullmatch("-x"))


if __name__ == "__main__":
    unittest.main()

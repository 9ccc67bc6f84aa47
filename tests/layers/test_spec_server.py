"""The specification's sentences as the layers refine it: the tests of the topic that need a layer
(SDK fidelity, patterns, the client, the command line or the accelerators); the
core's own are in tests/core/test_spec_server.py.

Sentences of the specification that no topic's test showed, one small test each.

Each test names the page it checks; spec/server.tsv maps the sentence to it
(test_requirements.py checks the mapping). Larger behaviours live in the module
of their topic.
"""

from tests import _testing  # noqa: F401  (first: it puts the module under test on sys.path)
import inspect
import io
import json
import time
import unittest
from typing import Any, Dict, List

import mcp_ref

from tests.core.test_http import InProcess
from tests.core.test_spec_server import ALL_QUESTIONS, StdioSession, WAIT, asking_server, sse
from tests.core.test_tasks import ACCEPT, Case, Client as TaskClient, NAME_QUESTION, opened, task_server
from tests.core.test_wire import META
from tests.core.test_spec_server import _QuestionTimeoutTestShared


class HttpDefaultsTest(unittest.TestCase):
    """2025-11-25 basic/transports "Security Warning": "When running locally, servers
    SHOULD bind only to localhost (127.0.0.1)": every way to serve HTTP binds there
    unless told otherwise."""

    def test_the_default_bind_is_loopback(self) -> None:
        for function in (mcp_ref._run_http, mcp_ref.MCPServer.streamable_http_app):
            self.assertEqual(inspect.signature(function).parameters["host"].default, "127.0.0.1", function)
        self.assertEqual(mcp_ref._host_port("8000"), ("127.0.0.1", 8000))  # serve --http PORT


class QuestionTimeoutTest(_QuestionTimeoutTestShared, Case):
    """tests.core.test_spec_server.QuestionTimeoutTest's requirement (its
    docstring quotes the spec), with the SDK's API."""


    def test_a_timeout_per_request(self) -> None:
        session = StdioSession(asking_server(0.1), ALL_QUESTIONS)  # the server's own: 30 s
        n = 0
        for tool in ("ask_sync", "ask_async"):
            for kind in ("form", "url", "sampling", "roots", "form_json"):
                with self.subTest(tool=tool, kind=kind):
                    n += 1
                    started = time.monotonic()
                    session.send({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                  "params": {"name": tool, "arguments": {"kind": kind}}})
                    self.assertLess(time.monotonic() - started, 5)
                    self.check_gave_up(session.frames(), n, "0.1")


class QuestionTimeoutHttpTest(unittest.TestCase):
    """QuestionTimeoutTest, over HTTP: the notifications/cancelled goes on the call's stream."""

    check_gave_up = QuestionTimeoutTest.check_gave_up

    def test_a_question_given_up_is_cancelled_over_http(self) -> None:
        endpoint = InProcess(asking_server(None, request_timeout=0.2))
        self.addCleanup(endpoint.stop)
        reply = endpoint.request("POST", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": ALL_QUESTIONS,
            "clientInfo": {"name": "t", "version": "1"}}})
        session = reply.headers["mcp-session-id"]
        endpoint.in_session(session, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        for n, tool in enumerate(("ask_sync", "ask_async"), start=1):
            events = sse(endpoint.in_session(session, {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": tool, "arguments": {"kind": "sampling"}}}).body)
            self.check_gave_up(events, n, "0.2")


class ServerCancelsOnlyListensTest(Case):
    """2026-07-28 basic/patterns/cancellation: "Servers MUST NOT send
    `notifications/cancelled` for any other purpose" than ending a
    subscriptions/listen stream: calls that ask each kind of question (InputRequiredResult
    rounds, no request of the server's), left past the handshake era's question
    timeout, send none; the stop cancels the listen alone."""

    def test_over_stdio(self) -> None:
        conn = opened(mcp_ref._StdioServer(asking_server(None, request_timeout=0.2)))
        conn.out = io.BytesIO()
        meta = dict(META, **{"io.modelcontextprotocol/clientCapabilities": ALL_QUESTIONS})

        def send(message: Dict[str, Any]) -> None:
            conn.handle_line(json.dumps(message).encode())
            conn.settle_all(WAIT)

        send({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen", "params": {
            "notifications": {"toolsListChanged": True}, "_meta": meta}})
        for n, kind in enumerate(("form", "url", "sampling", "roots"), start=1):
            send({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": "ask_sync", "arguments": {"kind": kind}, "_meta": meta}})
        time.sleep(0.3)  # past the handshake era's question timeout
        for data in conn.listen_ends():
            conn.out.write(data)
        frames = [json.loads(line) for line in conn.out.getvalue().splitlines()]
        answered = {f["id"]: f["result"].get("resultType") for f in frames if "result" in f}
        self.assertEqual(answered, {1: "input_required", 2: "input_required", 3: "input_required",
                                    4: "input_required", "sub": "complete"})
        cancels = [f["params"]["requestId"] for f in frames if f.get("method") == "notifications/cancelled"]
        self.assertEqual(cancels, ["sub"])


class TasksExtensionTest(Case):
    """The tasks extension, "Task Update Requests": "Each request key in inputRequests
    MUST be unique over the lifetime of a single task"; a server "SHOULD ignore any
    inputResponses ... mapped to a key that is not currently outstanding"."""

    def test_each_question_of_a_task_has_a_new_key(self) -> None:
        server = task_server()
        self.addCleanup(server.gate.set)  # type: ignore[attr-defined]
        schema = NAME_QUESTION["params"]["requestedSchema"]

        @server.tool(task_support="optional")
        async def twice(ctx: mcp_ref.Context) -> str:
            await ctx.start_task()
            first = await ctx.session.elicit(message="First?", requested_schema=schema)
            second = await ctx.session.elicit(message="Second?", requested_schema=schema)
            return f"{first.content['name']} {second.content['name']}"

        client = TaskClient(server)
        task_id = client.call("twice")["taskId"]
        keys: List[str] = []
        for name in ("Ada", "Bob"):
            task = client.settled(task_id, ("input_required",))
            (key,) = task["inputRequests"]
            self.assertNotIn(key, keys)
            keys.append(key)
            answers = {k: dict(ACCEPT, content={"name": "Eve"}) for k in keys[:-1]}  # answered already: ignored
            answers[key] = dict(ACCEPT, content={"name": name})
            self.assertEqual(client.ask("tasks/update", {"taskId": task_id, "inputResponses": answers}),
                             {"resultType": "complete"})
            deadline = time.monotonic() + WAIT
            while client.get(task_id).get("inputRequests") == {key: task["inputRequests"][key]}:
                self.assertLess(time.monotonic(), deadline)
                time.sleep(0.01)
        self.assertEqual(client.settled(task_id)["result"]["content"], [{"type": "text", "text": "Ada Bob"}])


if __name__ == "__main__":
    unittest.main()

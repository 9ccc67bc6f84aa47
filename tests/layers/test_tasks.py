"""Tasks (section 16) as the layers refine it: the tests of the topic that need a layer
(SDK fidelity, patterns, the client, the command line or the accelerators); the
core's own are in tests/core/test_tasks.py.

Section 16, Tasks: the io.modelcontextprotocol/tasks extension (2026-07-28),
in process through a connection without a transport, and over real pipes for
what needs a process to die: a restart mid-task and a worker that dies, with
the SQLite store.

The races (cancellation against completion, answers sent twice, late or
concurrently) are generated from fixed seeds, as test_faults is;
MCP_REF_TASKS_SEED=N runs seed N only.  So is the bad input of FuzzTest: every
tasks request with each param broken in turn, as test_malformed breaks the others.
"""

from tests import _testing  # noqa: F401  (first: it puts the module under test on sys.path)
import contextlib
import io
import json
import random
import threading
import unittest
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List

import mcp_ref
from mcp_ref import Context, MCPServer

from tests.core.test_tasks import (ACCEPT, ASKING_CAPS, CAPS, Case, Client, FuzzHttp, FuzzStdio, FuzzWsgi, MISSING,
    MODEL_ANSWER, MODERN, NAME_QUESTION, NOT_FOUND, PV, SEEDS, SESSION, TASK, TASKS_CAPS, answer_of,
    asking_server, opened, plain_task, task_server)
from tests.core import test_malformed as malformed
from tests.core.test_tasks import _AskingTestShared


class WireTest(Case):
    """What the extension's pages give, frame by frame ("Task Creation",
    "Task Polling", "Task Update Requests", "Task Cancellation", "Error Handling")."""

    maxDiff = None

    def setUp(self) -> None:
        super().setUp()
        self.server = task_server()
        self.client = Client(self.server)
        self.addCleanup(self.server.gate.set)  # type: ignore[attr-defined]

    def test_a_question_then_its_answer(self) -> None:
        task_id = self.client.call("ask_name")["taskId"]
        task = self.client.settled(task_id, ("input_required",))
        self.assertEqual(plain_task(task), dict(TASK, resultType="complete", status="input_required",
                                                inputRequests={"elicitation_0": NAME_QUESTION}))
        self.assertEqual(self.client.ask("tasks/update", {"taskId": task_id, "inputResponses": {
            "elicitation_0": ACCEPT}}), {"resultType": "complete"})
        self.assertEqual(self.client.settled(task_id)["result"]["content"], [{"type": "text", "text": "Hello, Ada!"}])

    def test_an_answer_is_the_sdks_model(self) -> None:
        # The conformance fixture's elicitation-sep1034-defaults tool json.dumps the
        # answer's content: it was an attribute view, "not JSON serializable".
        @self.server.tool(task_support="optional")
        async def dumps(ctx: Context) -> str:
            await ctx.start_task()  # a task when the client declared the extension
            answer = await ctx.session.elicit(message="Your name?", requested_schema=NAME_QUESTION["params"][
                "requestedSchema"])
            return f"{answer.action} {json.dumps(answer.content)} {answer.content['name']} {type(answer).__name__}"

        want = [{"type": "text", "text": 'accept {"name": "Ada"} Ada ElicitResult'}]
        answered = self.client.ask("tools/call", {"name": "dumps", "arguments": {}, "inputResponses": {
            "elicitation_0": ACCEPT}}, caps={"elicitation": {}})
        self.assertEqual(answered["content"], want)
        task_id = self.client.call("dumps")["taskId"]
        self.client.settled(task_id, ("input_required",))
        self.client.ask("tasks/update", {"taskId": task_id, "inputResponses": {"elicitation_0": ACCEPT}})
        self.assertEqual(self.client.settled(task_id)["result"]["content"], want)

    def test_an_answer_of_the_wrong_kind_is_refused(self) -> None:
        task_id = self.client.call("ask_name")["taskId"]
        self.client.settled(task_id, ("input_required",))
        self.assertEqual(self.client.ask("tasks/update", {"taskId": task_id, "inputResponses": {
            "elicitation_0": {"action": "maybe"}}}), {"error": {
                "code": -32602, "message": "Invalid params: inputResponses['elicitation_0'] is no result of "
                                           "elicitation/create"}})
        self.assertEqual(self.client.get(task_id)["status"], "input_required")
        self.assertEqual(self.client.ask("tasks/update", {"taskId": task_id, "inputResponses": []}), {"error": {
            "code": -32602, "message": 'Invalid params: tasks/update needs "inputResponses" (an object)'}})

    def test_questions_before_the_task_then_the_task(self) -> None:
        # "resolve all MRTR exchanges synchronously before responding with a
        # CreateTaskResult": the first round is an InputRequiredResult, the
        # retry a task whose run reads the same answer.
        @self.server.tool(task_support="required")
        async def deploy(ctx: Context) -> str:
            answer = await ctx.session.elicit(message="Your name?", requested_schema=NAME_QUESTION["params"][
                "requestedSchema"])
            await ctx.start_task()
            return f"deployed by {answer.content['name']}"

        first = self.client.call("deploy")
        state = first.pop("requestState")
        self.assertEqual(first, {"resultType": "input_required", "inputRequests": {"elicitation_0": NAME_QUESTION}})
        created = self.client.call("deploy", inputResponses={"elicitation_0": ACCEPT}, requestState=state)
        self.assertEqual(plain_task(created), dict(TASK, resultType="task", status="working"))
        self.assertEqual(self.client.settled(created["taskId"])["result"]["content"],
                         [{"type": "text", "text": "deployed by Ada"}])


class NotificationTest(Case):
    """notifications/tasks on a subscriptions/listen stream ("Task Status Notifications")."""

    maxDiff = None

    def test_a_listen_stream_gets_its_tasks_changes(self) -> None:
        server = task_server()
        alice, bob = Client(server, "alice"), Client(server, "bob")
        task_id = alice.call("ask_name")["taskId"]
        alice.settled(task_id, ("input_required",))
        meta = {"io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": TASKS_CAPS}
        for client in (alice, bob):
            server._connections.append(client.conn)  # as the HTTP app registers a listen stream's
            self.addCleanup(server._connections.remove, client.conn)
            self.assertIs(client.conn.handle_message({"jsonrpc": "2.0", "id": "l", "method": "subscriptions/listen",
                                                      "params": {"notifications": {"taskIds": [task_id, "other"]},
                                                                 "_meta": meta}}, lambda data: None),
                          mcp_ref._STARTED)
        alice.ask("tasks/update", {"taskId": task_id, "inputResponses": {"elicitation_0": ACCEPT}})
        alice.settled(task_id)
        ack = {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {
            "notifications": {"taskIds": [task_id]}, "_meta": {"io.modelcontextprotocol/subscriptionId": "l"}}}
        self.assertEqual(alice.written[0], ack)
        self.assertEqual([(f["method"], f["params"]["status"]) for f in alice.written[1:]], [
            ("notifications/tasks", "working"), ("notifications/tasks", "completed")])
        self.assertEqual(alice.written[-1]["params"]["result"]["content"], [{"type": "text", "text": "Hello, Ada!"}])
        self.assertEqual(bob.written, [dict(ack, params=dict(ack["params"], notifications={"taskIds": []}))])
        frame = alice.conn.handle_message({"jsonrpc": "2.0", "id": "m", "method": "subscriptions/listen", "params": {
            "notifications": {"taskIds": [task_id]}, "_meta": dict(meta, **{
                "io.modelcontextprotocol/clientCapabilities": {}})}}, lambda data: None)
        self.assertEqual(frame, {"jsonrpc": "2.0", "id": "m", "error": MISSING})


class OwnerTest(Case):
    """One client never reads, answers or cancels another's task: "not found"."""

    def test_another_principals_task_is_not_found(self) -> None:
        server = task_server()
        self.addCleanup(server.gate.set)  # type: ignore[attr-defined]
        alice, bob = Client(server, "alice"), Client(server, "bob")
        task_id = alice.call("ask_name")["taskId"]
        alice.settled(task_id, ("input_required",))
        self.assertEqual(bob.get(task_id), {"error": NOT_FOUND})
        self.assertEqual(bob.ask("tasks/update", {"taskId": task_id, "inputResponses": {"elicitation_0": ACCEPT}}),
                         {"error": NOT_FOUND})
        self.assertEqual(bob.ask("tasks/cancel", {"taskId": task_id}), {"error": NOT_FOUND})
        self.assertEqual(Client(server).get(task_id), {"error": NOT_FOUND})  # no principal: another owner
        self.assertEqual(alice.get(task_id)["status"], "input_required")

FUZZ_REQUESTS = {  # per era: the params of each request that works; {id} a task of the client's
    MODERN: {"tasks/get": {"taskId": "{id}"}, "tasks/cancel": {"taskId": "{id}"},
             "tasks/update": {"taskId": "{waiting}", "inputResponses": {"elicitation_0": ACCEPT}},
             "tools/call": {"name": "quick", "arguments": {"n": 1}}, "tasks/list": {}, "tasks/result": {}},
    SESSION: {"tasks/get": {"taskId": "{id}"}, "tasks/cancel": {"taskId": "{id}"},
              "tasks/result": {"taskId": "{id}"}, "tasks/list": {"cursor": "{id}"},
              "tools/call": {"name": "quick", "arguments": {"n": 1}, "task": {"ttl": 60000}},
              "tasks/update": {"taskId": "{id}", "inputResponses": {}}}}

FUZZ_NESTED = [("task", "ttl"), ("inputResponses", "elicitation_0"), ("inputResponses", "never_asked"),
               ("arguments", "n"), ("_meta", PV), ("_meta", CAPS)]

# The codes a request may be refused with: bad params, unknown method, the
# extension not declared, an unsupported version, a standard header that cannot
# match the body (a taskId no string), a bad message.  Never -32603 (a bug of ours).
REFUSALS = {-32602, -32601, -32021, -32022, -32020, -32600, -32700}


def deep(depth: int) -> Any:
    value: Any = "bottom"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


def fuzz_cases(era: str, seed: int, ids: Dict[str, str]) -> Any:
    """(what was broken, the message) for each tasks request of the era."""
    values = malformed.Values(seed)
    rng = random.Random(seed)

    def each() -> List[Any]:
        odd = [deep(200), deep(40), "x" * 100000, [ids["id"]] * 1000, {ids["id"]: ACCEPT}, 10**400, -1.5]
        return values.each_type() + [ids["unknown"], ids["other"], ids["waiting"], rng.choice(odd), malformed.ABSENT]

    for method, good in FUZZ_REQUESTS[era].items():
        good = json.loads(json.dumps(good).replace("{id}", ids["id"]).replace("{waiting}", ids["waiting"]))
        if era == MODERN:
            good["_meta"] = {PV: MODERN, CAPS: TASKS_CAPS}
        for key in sorted(set(good) | {"_meta", "taskId", "inputResponses", "task", "cursor"}):
            for value in each():
                params = dict(good)
                params.pop(key, None) if value is malformed.ABSENT else params.__setitem__(key, value)
                yield f"{method} {key}={value!r:.40}", malformed.message(method, params)
        for key, member in FUZZ_NESTED:
            if isinstance(good.get(key), dict):
                for value in each():
                    inner = dict(good[key])
                    inner.pop(member, None) if value is malformed.ABSENT else inner.__setitem__(member, value)
                    broken = malformed.message(method, dict(good, **{key: inner}))
                    yield f"{method} {key}.{member}={value!r:.40}", broken
        for value in each()[:3]:  # an id of each kind
            yield f"{method} id={value!r:.40}", dict(malformed.message(method, good), id=value)


def fuzz_ids(server: MCPServer, era: str, send: Any) -> Dict[str, str]:
    """The task ids the cases name: one of the client's, one waiting for an
    answer, another principal's, and one that never was."""
    meta = {PV: MODERN, CAPS: TASKS_CAPS} if era == MODERN else None
    ids = {}
    for key, name in (("id", "quick"), ("waiting", "ask_name")):
        params: Dict[str, Any] = {"name": name, "arguments": {"n": 1} if name == "quick" else {}}
        params.update({"_meta": meta} if meta else {"task": {}})
        frame, = [f for f in send(malformed.message("tools/call", params)) if "id" in f]
        task = frame["result"] if era == MODERN else frame["result"]["task"]
        ids[key] = task["taskId"]
    other = Client(server, principal="mallory").call("quick", {"n": 1})
    return dict(ids, other=other["taskId"], unknown="00000000-0000-4000-8000-000000000000")


class FuzzTest(Case):
    """Every tasks request, however malformed, gets exactly one answer: its id,
    a refusal with the right code (never -32603), nothing logged as a bug, no
    stray byte; and the server serves on."""

    maxDiff = None

    def check(self, era: str, transports: Any) -> None:
        server = task_server()
        self.addCleanup(server.gate.set)  # type: ignore[attr-defined]
        clients, port = transports(server, era)
        ids = fuzz_ids(server, era, clients[0].send)
        for seed in SEEDS:
            problems: List[str] = []
            logged = io.StringIO()
            cases = list(fuzz_cases(era, seed, ids))
            with contextlib.redirect_stderr(logged), ThreadPoolExecutor(len(clients)) as pool:
                # each client on a thread of its own, with every len(clients)-th case
                for found in pool.map(self.several, clients, [cases[n::len(clients)] for n in range(len(clients))]):
                    problems += found
            if "Traceback" in logged.getvalue() or "internal error" in logged.getvalue():
                problems.append("logged: " + logged.getvalue()[-2000:])
            self.assertEqual(problems[:20], [], f"seed {seed}, {len(problems)} problems")
        alive = clients[-1].send(malformed.message("tasks/get", {"taskId": ids["other"], "_meta": {
            PV: MODERN, CAPS: TASKS_CAPS}} if era == MODERN else {"taskId": ids["other"]}))
        self.assertEqual([f.get("error") for f in alive if "id" in f], [NOT_FOUND])

    def several(self, client: Any, cases: List[Any]) -> List[str]:
        return [problem for case in cases for problem in self.one(client, *case)]

    def one(self, client: Any, what: str, msg: Dict[str, Any]) -> List[str]:
        try:
            answers = [f for f in client.send(msg) if malformed.answered(f)]
        except Exception as exc:
            return [f"{what}: raised {exc!r}"]
        want = malformed.expected_id(msg)
        if want is malformed.ABSENT:
            return [f"{what}: a notification answered: {answers}"] if answers else []
        if len(answers) == 1 and "nested deeper than 64 levels" in str(answers[0].get("error")):
            want = None  # refused unread (section 4's depth limit): its id unknown
        if len(answers) != 1 or answers[0].get("id", malformed.ABSENT) != want:
            return [f"{what}: {len(answers)} answers, want one with id {want!r}: {answers}"]
        error = answers[0].get("error")
        if error is not None and error.get("code") not in REFUSALS:
            return [f"{what}: {error}"]
        return []

    def test_stdio(self) -> None:
        for era in (MODERN, SESSION):
            with self.subTest(era):
                self.check(era, lambda server, era: ([FuzzStdio(server, era)], None))

    def test_wsgi(self) -> None:
        for era in (MODERN, SESSION):
            with self.subTest(era):
                self.check(era, lambda server, era: ([FuzzWsgi(server, era)], None))

    def test_http_server_several_clients(self) -> None:
        for era in (MODERN, SESSION):
            with self.subTest(era):
                self.check(era, self.served)

    def served(self, server: MCPServer, era: str) -> Any:
        httpd = mcp_ref._HttpServer(opened(server.streamable_http_app()), "127.0.0.1", 0)
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.addCleanup(httpd.server_close)
        self.addCleanup(httpd.shutdown)
        port = httpd.server_address[1]
        clients = [FuzzHttp(port, era) for _ in range(4)]
        for client in clients:
            self.addCleanup(client.http.close)
        return clients, port


class AskingTest(_AskingTestShared, Case):
    """tests.core.test_tasks.AskingTest's requirement (its
    docstring quotes the spec), with the SDK's API."""

    maxDiff = None

    def test_session_questions_over_stdio(self) -> None:
        for name, question, answer, text in (
                ("ask_name", "elicitation/create", {"action": "accept", "content": {"name": "Ada"}}, "Hello, Ada!"),
                ("ask_model", "sampling/createMessage", MODEL_ANSWER, "The model says 42")):
            with self.subTest(name):
                self.stdio_question(name, question, answer, text)

    def test_modern_questions(self) -> None:
        caps = dict(TASKS_CAPS, **ASKING_CAPS)
        for name, key, answer, text in (
                ("ask_name", "elicitation_0", {"action": "accept", "content": {"name": "Ada"}}, "Hello, Ada!"),
                ("ask_model", "sampling_0", MODEL_ANSWER, "The model says 42")):
            for transport in (FuzzStdio, FuzzWsgi):
                with self.subTest(name=name, transport=transport.__name__):
                    client = transport(asking_server(), MODERN)
                    meta = {PV: MODERN, CAPS: caps}
                    task_id = answer_of(client, "tools/call", {"name": name, "arguments": {}, "_meta": meta})["taskId"]
                    task = self.modern_settled(client, task_id, meta)
                    self.assertEqual((task["status"], list(task.get("inputRequests", {}))), ("input_required", [key]))
                    answer_of(client, "tasks/update", {"taskId": task_id, "inputResponses": {key: answer},
                                                       "_meta": meta})
                    task = self.modern_settled(client, task_id, meta)
                    self.assertEqual(task["result"]["content"], [{"type": "text", "text": text}])


if __name__ == "__main__":
    unittest.main()

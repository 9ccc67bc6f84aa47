"""Section 16, Tasks: the io.modelcontextprotocol/tasks extension (2026-07-28),
in process through a connection without a transport, and over real pipes for
what needs a process to die: a restart mid-task and a worker that dies, with
the SQLite store.

The races (cancellation against completion, answers sent twice, late or
concurrently) are generated from fixed seeds, as test_faults is;
MCP_REF_TASKS_SEED=N runs seed N only.  So is the bad input of FuzzTest: every
tasks request with each param broken in turn, as test_malformed breaks the others.
"""

from tests._testing import end_threads, needs_layers
from tests._testing import HERE  # the repository's root
from tests._testing import python_command  # a server's command line, on the module under test

import contextlib
import dataclasses
import http.client
import io
import json
import os
import random
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import types
import unittest
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Tuple
from unittest import mock

import mcp_ref
from mcp_ref import Context, InputRequiredResult, MCPServer, ToolError

from tests.core import test_malformed as malformed


MODERN = "2026-07-28"

EXT = "io.modelcontextprotocol/tasks"

TASKS_CAPS = {"extensions": {EXT: {}}, "elicitation": {}}

MISSING = {"code": -32021, "message": "Missing required client capability",
           "data": {"requiredCapabilities": {"extensions": {EXT: {}}}}}

NOT_FOUND = {"code": -32602, "message": "Failed to retrieve task: Task not found"}

ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")

_ONE_SEED = os.environ.get("MCP_REF_TASKS_SEED")

SEEDS = (int(_ONE_SEED),) if _ONE_SEED else (1, 2, 3)

WAIT = 30.0  # seconds a task may take to settle on a loaded machine

NAME_QUESTION = {"method": "elicitation/create", "params": {
    "mode": "form", "message": "Your name?",
    "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}

ACCEPT = {"action": "accept", "content": {"name": "Ada"}}


OPENED: List[Any] = []  # what the running test opened, closed when it ends (Case)


def opened(thing: Any) -> Any:
    OPENED.append(thing)
    return thing


class Case(unittest.TestCase):
    """A test that closes what it opened (its servers' task threads and SQLite
    stores, its connections' and apps' pools of tool threads and event loops),
    last, and leaves no thread running: the tests left some 680 in one process."""

    def setUp(self) -> None:
        self.addCleanup(self.close_opened, set(threading.enumerate()))

    def close_opened(self, threads: Any) -> None:
        while OPENED:
            close(OPENED.pop())
        deadline = time.monotonic() + WAIT
        started = [thread for thread in threading.enumerate() if thread not in threads]
        for thread in started:
            thread.join(max(0.0, deadline - time.monotonic()))
        self.assertEqual([thread.name for thread in started if thread.is_alive()], [])


def close(thing: Any) -> None:
    if isinstance(thing, MCPServer):
        thing._tasks.close()
    elif isinstance(thing, mcp_ref.TaskStore):
        thing.close()
    else:  # a connection or an app: its pool, its event loop (stopped, then closed)
        end_threads(thing, WAIT)
        if isinstance(thing, mcp_ref._HttpApp):
            thing.close()


def task_server(**options: Any) -> MCPServer:
    """A server of task tools: each kind of outcome, a question, two at once."""
    server = MCPServer("tasks", version="1", **options)
    gate = threading.Event()
    server.gate = gate  # type: ignore[attr-defined]

    @server.tool(task_support="optional")
    def quick(n: int) -> int:
        return n * 2

    @server.tool(task_support="optional")
    def gated(ctx: Context) -> str:
        ctx.start_task()
        while not gate.wait(0.01) and not ctx.cancelled:
            pass
        return "released"

    @server.tool(task_support="required")
    def broken() -> str:
        raise ToolError("no luck")

    @server.tool(task_support="optional")
    def crash() -> str:
        raise mcp_ref.MCPError(mcp_ref.INTERNAL_ERROR, "it crashed")

    @server.tool(task_support="optional", output_schema={"type": "object", "properties": {"n": {"type": "integer"}},
                                                          "required": ["n"]})
    def wrong_shape() -> Dict[str, Any]:
        return {"n": "not a number"}

    @server.tool(task_support="optional")
    async def ask_name(ctx: Context) -> str:
        await ctx.start_task()
        answer = await ctx.session.elicit(message="Your name?", requested_schema=NAME_QUESTION["params"][
            "requestedSchema"])
        return f"Hello, {answer.content['name']}!"

    @server.tool(task_support="optional")
    def two_questions(ctx: Context) -> Any:
        ctx.start_task()
        answers = ctx.input_responses or {}
        if "a" in answers and "b" in answers:
            return "both"
        return InputRequiredResult(input_requests={"a": NAME_QUESTION, "b": NAME_QUESTION})

    @server.tool()
    def plain(n: int) -> int:
        return n

    return server


class Client:
    """A connection without a transport: each request's result or error, for
    the principal ``principal`` (what section 21 sets from a verified token)."""

    def __init__(self, server: MCPServer, principal: Optional[str] = None) -> None:
        written = self.written = []  # type: List[Dict[str, Any]]

        class Connection(mcp_ref._Connection):  # type: ignore[misc, name-defined]
            def write(self, message: Any) -> None:
                written.append(json.loads(message))

        self.conn = opened(Connection(server))
        self.conn.principal = principal
        opened(server)
        self.ids = 0
        self.lock = threading.Lock()

    def ask(self, method: str, params: Optional[Dict[str, Any]] = None,
            caps: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        with self.lock:
            self.ids += 1
            id_ = self.ids
        meta = {"io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": TASKS_CAPS if caps is None else caps}
        replies: List[bytes] = []
        done = threading.Event()

        def reply(data: Optional[bytes]) -> None:
            replies.append(data or b"null")
            done.set()

        frame = self.conn.handle_message({"jsonrpc": "2.0", "id": id_, "method": method,
                                          "params": dict(params or {}, _meta=meta)}, reply)
        if frame is mcp_ref._STARTED:
            assert done.wait(WAIT), f"{method} was not answered"
            frame = json.loads(replies[0])
        assert frame["id"] == id_, frame
        if "error" in frame:
            return {"error": frame["error"]}
        result = dict(frame["result"])
        meta_out = result.pop("_meta")
        assert set(meta_out) == {"io.modelcontextprotocol/serverInfo"}, meta_out
        return result

    def call(self, name: str, arguments: Optional[Dict[str, Any]] = None, **params: Any) -> Dict[str, Any]:
        return self.ask("tools/call", dict(params, name=name, arguments=arguments or {}))

    def get(self, task_id: str) -> Dict[str, Any]:
        return self.ask("tasks/get", {"taskId": task_id})

    def settled(self, task_id: str, statuses: tuple = ("completed", "failed", "cancelled")) -> Dict[str, Any]:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            task = self.get(task_id)
            if task.get("status") in statuses:
                return task
            time.sleep(0.01)
        raise AssertionError(f"task {task_id} is still {task}")


def plain_task(task: Dict[str, Any]) -> Dict[str, Any]:
    """A task with its id and timestamps checked, then replaced by stand-ins."""
    assert UUID.fullmatch(task["taskId"]), task
    assert ISO.fullmatch(task["createdAt"]) and ISO.fullmatch(task["lastUpdatedAt"]), task
    return dict(task, taskId="ID", createdAt="T", lastUpdatedAt="T")


TASK = {"taskId": "ID", "createdAt": "T", "lastUpdatedAt": "T", "ttlMs": 3600000, "pollIntervalMs": 1000}


class WireTest(Case):
    """What the extension's pages give, frame by frame ("Task Creation",
    "Task Polling", "Task Update Requests", "Task Cancellation", "Error Handling")."""

    maxDiff = None

    def setUp(self) -> None:
        super().setUp()
        self.server = task_server()
        self.client = Client(self.server)
        self.addCleanup(self.server.gate.set)  # type: ignore[attr-defined]

    def test_a_task_from_create_to_its_result(self) -> None:
        created = self.client.call("quick", {"n": 21})
        self.assertEqual(plain_task(created), dict(TASK, resultType="task", status="working"))
        self.assertEqual(plain_task(self.client.settled(created["taskId"])), dict(
            TASK, resultType="complete", status="completed",
            result={"content": [{"type": "text", "text": "42"}], "structuredContent": {"result": 42},
                    "isError": False}))

    def test_a_tool_error_completes_and_a_protocol_error_fails(self) -> None:
        broken = self.client.settled(self.client.call("broken")["taskId"])
        self.assertEqual(plain_task(broken), dict(TASK, resultType="complete", status="completed", result={
            "content": [{"type": "text", "text": "Error executing tool broken: no luck"}], "isError": True}))
        crash = self.client.settled(self.client.call("crash")["taskId"])
        self.assertEqual(plain_task(crash), dict(TASK, resultType="complete", status="failed",
                                                 statusMessage="it crashed",
                                                 error={"code": -32603, "message": "it crashed"}))

    def test_a_failed_tasks_error_carries_no_code_2026_forbids(self) -> None:
        # 2026-07-28 basic/index, "Error Codes": an MCPError of -32002 or of an undefined
        # code of -32020..-32099 fails the task with -32602 or -32603 (docs/sdk-differences.md, 52).
        @self.server.tool(task_support="required")
        def gone(code: int) -> str:
            raise mcp_ref.MCPError(code, "no such thing", {"uri": "x://a"})

        for code, sent in ((-32002, -32602), (-32042, -32603), (-32050, -32603), (-32010, -32010)):
            with self.subTest(code=code):
                task = self.client.settled(self.client.call("gone", {"code": code})["taskId"])
                self.assertEqual((task["status"], task["error"]), ("failed", {
                    "code": sent, "message": "no such thing", "data": {"uri": "x://a"}}))

    def test_the_result_is_checked_against_the_output_schema(self) -> None:
        # A task's result is a tool result like any other (MCPServer._call's step 4).
        task = self.client.settled(self.client.call("wrong_shape")["taskId"])
        self.assertEqual(task["status"], "completed")
        self.assertTrue(task["result"]["isError"])
        self.assertIn("Error executing tool wrong_shape: 1 validation error", task["result"]["content"][0]["text"])

    def test_partial_answers_keep_the_task_waiting(self) -> None:
        task_id = self.client.call("two_questions")["taskId"]
        self.client.settled(task_id, ("input_required",))
        self.client.ask("tasks/update", {"taskId": task_id, "inputResponses": {"a": ACCEPT, "zz": ACCEPT}})
        task = self.client.get(task_id)
        self.assertEqual((task["status"], task["inputRequests"]), ("input_required", {"b": NAME_QUESTION}))
        self.client.ask("tasks/update", {"taskId": task_id, "inputResponses": {"b": ACCEPT}})
        self.assertEqual(self.client.settled(task_id)["result"]["content"], [{"type": "text", "text": "both"}])

    def test_cancel_acks_and_is_idempotent(self) -> None:
        task_id = self.client.call("gated")["taskId"]
        self.assertEqual(self.client.ask("tasks/cancel", {"taskId": task_id}), {"resultType": "complete"})
        self.assertEqual(plain_task(self.client.get(task_id)), dict(
            TASK, resultType="complete", status="cancelled", statusMessage="Cancelled by the client"))
        self.assertEqual(self.client.ask("tasks/cancel", {"taskId": task_id}), {"resultType": "complete"})

    def test_without_the_extension(self) -> None:
        # "MUST NOT return CreateTaskResult to a client that did not include the
        # extension capability on its request": optional runs as a call, required is -32021.
        self.assertEqual(self.client.ask("tools/call", {"name": "quick", "arguments": {"n": 1}}, caps={}), {
            "content": [{"type": "text", "text": "2"}], "structuredContent": {"result": 2}, "isError": False,
            "resultType": "complete"})
        self.assertEqual(self.client.ask("tools/call", {"name": "broken", "arguments": {}}, caps={}),
                         {"error": MISSING})
        for method in ("tasks/get", "tasks/update", "tasks/cancel"):
            self.assertEqual(self.client.ask(method, {"taskId": "x", "inputResponses": {}}, caps={}),
                             {"error": MISSING})
        self.server.gate.set()  # type: ignore[attr-defined]
        # ctx.start_task() does nothing there: the call goes on as a call.
        self.assertEqual(self.client.ask("tools/call", {"name": "gated", "arguments": {}}, caps={})["content"],
                         [{"type": "text", "text": "released"}])

    def test_the_extension_is_advertised_only_with_task_tools(self) -> None:
        self.assertEqual(self.client.ask("server/discover")["capabilities"]["extensions"], {EXT: {}})
        plain = MCPServer("plain")
        plain.add_tool(plain_task, name="number")
        self.assertNotIn("extensions", Client(plain).ask("server/discover")["capabilities"])

    def test_an_unknown_task_and_removed_methods(self) -> None:
        self.assertEqual(self.client.get("nope"), {"error": NOT_FOUND})
        self.assertEqual(self.client.ask("tasks/get", {"taskId": 7}), {"error": {
            "code": -32602, "message": 'Invalid params: "taskId" must be a string'}})
        for method in ("tasks/result", "tasks/list"):
            self.assertEqual(self.client.ask(method, {"taskId": "x"}), {"error": {
                "code": -32601, "message": f"Method not found: {method}"}})

    def test_task_support_is_checked_where_declared(self) -> None:
        with self.assertRaisesRegex(ValueError, "task_support must be one of forbidden, optional, required, "
                                                "not 'sometimes'"):
            MCPServer("x").tool(task_support="sometimes")(lambda: 1)


class SessionClient(Client):
    """A 2025-11-25 session on a connection without a transport."""

    def __init__(self, server: MCPServer, principal: Optional[str] = None) -> None:
        super().__init__(server, principal)
        self.initialized = self.ask("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                                   "clientInfo": {"name": "t", "version": "1"}})

    def ask(self, method: str, params: Optional[Dict[str, Any]] = None,
            caps: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        with self.lock:
            self.ids += 1
            id_ = self.ids
        replies: List[bytes] = []
        done = threading.Event()

        def reply(data: Optional[bytes]) -> None:
            replies.append(data or b"null")
            done.set()

        frame = self.conn.handle_message({"jsonrpc": "2.0", "id": id_, "method": method, "params": params or {}},
                                         reply)
        if frame is mcp_ref._STARTED:
            assert done.wait(WAIT), f"{method} was not answered"
            frame = json.loads(replies[0])
        return {"error": frame["error"]} if "error" in frame else frame["result"]


def stopped_clock() -> Any:
    """mcp_ref's time module, with time.time() standing still: a coarse clock
    (Windows: 15.6 ms) gives quick creates one createdAt, here always."""
    now = time.time()
    return types.SimpleNamespace(**dict(vars(time), time=lambda: now))


TASK_V1 = {"taskId": "ID", "createdAt": "T", "lastUpdatedAt": "T", "ttl": 5000, "pollInterval": 1000}


class SessionTasksTest(Case):
    """2025-11-25 (basic/utilities/tasks): the client asks for a task with ``task``."""

    maxDiff = None

    def setUp(self) -> None:
        super().setUp()
        self.server = task_server()
        self.addCleanup(self.server.gate.set)  # type: ignore[attr-defined]
        self.client = SessionClient(self.server)

    def test_capability_and_execution(self) -> None:
        self.assertEqual(self.client.initialized["capabilities"]["tasks"], {
            "list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
        tools = {tool["name"]: tool.get("execution") for tool in self.client.ask("tools/list")["tools"]}
        self.assertEqual((tools["quick"], tools["broken"], tools["plain"]), (
            {"taskSupport": "optional"}, {"taskSupport": "required"}, None))

    def test_create_get_result_list(self) -> None:
        created = self.client.ask("tools/call", {"name": "quick", "arguments": {"n": 2}, "task": {"ttl": 5000}})
        self.assertEqual(set(created), {"task"})
        task_id = created["task"]["taskId"]
        self.assertEqual(plain_task(created["task"]), dict(TASK_V1, status="working"))
        self.assertEqual(self.client.ask("tasks/result", {"taskId": task_id}), {
            "content": [{"type": "text", "text": "4"}], "structuredContent": {"result": 4}, "isError": False,
            "_meta": {"io.modelcontextprotocol/related-task": {"taskId": task_id}}})
        self.assertEqual(plain_task(self.client.ask("tasks/get", {"taskId": task_id})),
                         dict(TASK_V1, status="completed"))
        self.assertEqual([plain_task(t) for t in self.client.ask("tasks/list")["tasks"]],
                         [dict(TASK_V1, status="completed")])
        self.assertEqual(self.client.ask("tasks/cancel", {"taskId": task_id}), {"error": {
            "code": -32602, "message": "Cannot cancel task: already in terminal status 'completed'"}})

    def test_cancel_a_failure_and_required(self) -> None:
        task_id = self.client.ask("tools/call", {"name": "gated", "arguments": {}, "task": {}})["task"]["taskId"]
        cancelled = self.client.ask("tasks/cancel", {"taskId": task_id})
        self.assertEqual(plain_task(cancelled), dict(TASK_V1, status="cancelled", ttl=3600000,
                                                     statusMessage="Cancelled by the client"))
        task_id = self.client.ask("tools/call", {"name": "crash", "arguments": {}, "task": {}})["task"]["taskId"]
        self.assertEqual(self.client.ask("tasks/result", {"taskId": task_id}), {"error": {
            "code": -32603, "message": "it crashed"}})
        self.assertEqual(self.client.ask("tools/call", {"name": "broken", "arguments": {}}), {"error": {
            "code": -32601, "message": "Method not found: tool broken must be called as a task"}})
        self.assertEqual(self.client.ask("tasks/update", {"taskId": task_id}), {"error": {
            "code": -32601, "message": "Method not found: tasks/update"}})

    def test_tasks_follow_the_task_tools(self) -> None:
        # Whether the server has a task tool is asked when the tools change, not
        # at each poll: removed, tasks/* are unknown methods; one back, they work.
        task_id = self.client.ask("tools/call", {"name": "quick", "arguments": {"n": 2}, "task": {}})["task"]["taskId"]
        self.assertEqual(self.client.ask("tasks/result", {"taskId": task_id})["content"], [{"type": "text",
                                                                                              "text": "4"}])
        tools = {name: self.server._tools[name] for name in self.server._tools}
        for name, tool in tools.items():
            if tool.task_support != "forbidden":
                self.server.remove_tool(name)
        self.assertEqual(self.client.ask("tasks/get", {"taskId": task_id}), {"error": {
            "code": -32601, "message": "Method not found: tasks/get"}})
        self.server.add_tool(lambda n: n, name="again", task_support="optional")
        self.assertEqual(self.client.ask("tasks/get", {"taskId": task_id})["status"], "completed")

    def test_the_task_tools_are_read_from_a_copy(self) -> None:
        # add_tool on another thread while tools_changed reads the tools:
        # "dictionary changed size during iteration".  A tool whose
        # task_support adds one stands in for that thread, deterministically.
        server = self.server

        class Adding:
            @property
            def task_support(self) -> str:
                server._tools[f"added{len(server._tools)}"] = server._tools["quick"]
                return "optional"

        kept = dict(server._tools)
        self.addCleanup(server._tools.update, kept)
        self.addCleanup(server._tools.clear)
        server._tools["adding"] = Adding()  # type: ignore[assignment]
        server._tasks.tools_changed()
        self.assertEqual(mcp_ref._task_tools(server)["adding"], "optional")

    def test_an_unknown_cursor_is_invalid_params(self) -> None:
        # server/utilities/pagination: "Invalid cursors SHOULD result in -32602";
        # the listing never starts again from the top.  The three tasks are
        # created at one instant, so they are listed by taskId, whatever the clock.
        self.server.page_size = 1
        with mock.patch.object(mcp_ref, "time", stopped_clock()):
            ids = [self.client.ask("tools/call", {"name": "quick", "arguments": {"n": n}, "task": {}})["task"][
                "taskId"] for n in range(3)]
            first = self.client.ask("tasks/list")
            second = self.client.ask("tasks/list", {"cursor": first["nextCursor"]})
        self.assertEqual([task["taskId"] for task in first["tasks"] + second["tasks"]], sorted(ids)[:2])
        other = SessionClient(self.server, principal="mallory")
        for cursor in ("never-issued", "00000000-0000-4000-8000-000000000000", 7, first["nextCursor"]):
            ask = other.ask if cursor == first["nextCursor"] else self.client.ask  # another's task id: not ours
            self.assertEqual(ask("tasks/list", {"cursor": cursor}), {"error": {
                "code": -32602, "message": "Invalid params: unknown cursor"}}, cursor)

    def test_older_revisions_have_no_tasks(self) -> None:
        client = Client(self.server)
        client.ask = SessionClient.ask.__get__(client)  # type: ignore[method-assign]
        client.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "t", "version": "1"}})
        self.assertEqual(client.ask("tasks/list"), {"error": {"code": -32601, "message": "Method not found: "
                                                                                         "tasks/list"}})
        self.assertEqual(client.ask("tools/call", {"name": "quick", "arguments": {"n": 1}, "task": {}})["content"],
                         [{"type": "text", "text": "2"}])


class CloseTest(Case):
    """_Tasks.close(): a server's task threads end (a process that makes server
    after server, as a test suite does, kept 17 threads of each)."""

    def test_the_pool_and_the_heartbeat_end(self) -> None:
        server = task_server()
        client = Client(server)
        client.settled(client.call("quick", {"n": 1})["taskId"])
        tasks = server._tasks
        threads = [thread for thread in threading.enumerate()
                   if getattr(getattr(thread, "_target", None), "__self__", None) in (tasks, tasks.pool)]
        self.assertGreater(len(threads), 1)  # the pool's, and the heartbeat (which slept 10 s)
        tasks.close()
        for thread in threads:
            thread.join(WAIT)
        self.assertEqual([thread for thread in threads if thread.is_alive()], [])
        self.assertEqual(client.settled(client.call("quick", {"n": 2})["taskId"])["status"], "completed")
        tasks.close()

    def test_only_the_store_it_made_is_closed(self) -> None:
        folder = tempfile.mkdtemp()
        given = mcp_ref.SqliteTaskStore(os.path.join(folder, "given.db"))
        self.addCleanup(given.close)
        with mock.patch.dict(os.environ, {"MCP_REF_TASK_STORE": os.path.join(folder, "made.db")}):
            servers = [task_server(), task_server(task_store=given)]
            for server in servers:
                client = Client(server)
                client.settled(client.call("quick", {"n": 1})["taskId"])
                server._tasks.close()
        made = servers[0]._tasks.store
        self.assertIsInstance(made, mcp_ref.SqliteTaskStore)
        self.assertEqual((made.idle, bool(given.idle)), ([], True))  # type: ignore[attr-defined]
        task_server(task_store=object())._tasks.close()  # a store without close(): never asked


class InPlaceStore(mcp_ref.InMemoryTaskStore):
    """A store that keeps one dict per task and updates it in place (a cache
    over a database might): against the contract, but seen all the same."""

    def __init__(self) -> None:
        super().__init__()
        self.kept: Dict[str, Dict[str, Any]] = {}

    def peek(self, task_id: str) -> Optional[Dict[str, Any]]:
        record = self.get(task_id)
        if record is None:
            return None
        kept = self.kept.setdefault(task_id, record)
        kept.update(record)
        return kept


class PollTest(Case):
    """What tasks/get keeps to answer the next poll of an unchanged task (_Tasks.shown)."""

    def test_a_change_is_seen_when_the_store_updates_in_place(self) -> None:
        # The Task is shown anew when the record's revision changes, not only
        # when peek hands out another object.
        client = Client(task_server(task_store=InPlaceStore()))
        task_id = client.call("gated")["taskId"]
        self.assertEqual(client.get(task_id)["status"], "working")
        client.ask("tasks/cancel", {"taskId": task_id})
        self.assertEqual(client.get(task_id)["status"], "cancelled")

    def test_the_tasks_kept_are_bounded_in_bytes(self) -> None:
        # Each polled Task was kept with its result (up to max_result_bytes)
        # and its JSON text, 1,024 of them: past the stores' own bound.
        server = task_server()

        @server.tool(task_support="optional")
        def big(n: int) -> str:
            return "x" * n

        client = Client(server)
        budget = mcp_ref._TASK_VIEWS[1]
        for _ in range(20):
            client.settled(client.call("big", {"n": budget // 10})["taskId"])
            kept = [entry[1] for entry in server._tasks.shows.values()]
            self.assertLessEqual(sum(len(mcp_ref._ENCODER.encode(task)) for task in kept), budget)
        huge = client.call("big", {"n": budget // 4})["taskId"]
        client.settled(huge)
        self.assertNotIn(huge, [key[0] for key in server._tasks.shows])  # one that big: not kept at all

    def test_a_task_gone_is_not_kept(self) -> None:
        server = task_server(task_ttl=0.3)
        client = Client(server)
        task_id = client.call("quick", {"n": 1})["taskId"]
        client.settled(task_id)
        self.assertIn(task_id, [key[0] for key in server._tasks.shows])
        time.sleep(0.5)
        self.assertEqual(client.get(task_id)["error"]["message"], "Failed to retrieve task: Task has expired")
        self.assertNotIn(task_id, [key[0] for key in server._tasks.shows])


class BoundsTest(Case):

    def test_expiry(self) -> None:
        server = task_server(task_ttl=0.3)
        client = Client(server)
        created = client.call("quick", {"n": 1})
        self.assertEqual(created["ttlMs"], 300)
        client.settled(created["taskId"])
        time.sleep(0.5)
        self.assertEqual(client.get(created["taskId"]), {"error": {
            "code": -32602, "message": "Failed to retrieve task: Task has expired"}})
        self.assertEqual(client.get(created["taskId"]), {"error": NOT_FOUND})  # and deleted

    def test_an_expired_task_is_not_listed(self) -> None:
        # tasks/list showed a task that tasks/get called expired (found probing beside FuzzTest).
        server = task_server()
        client = SessionClient(server)
        short = client.ask("tools/call", {"name": "quick", "arguments": {"n": 1}, "task": {"ttl": 300}})["task"]
        kept = client.ask("tools/call", {"name": "quick", "arguments": {"n": 1}, "task": {"ttl": 60000}})["task"]
        client.ask("tasks/result", {"taskId": short["taskId"]})
        time.sleep(0.5)
        self.assertEqual([task["taskId"] for task in client.ask("tasks/list")["tasks"]], [kept["taskId"]])

    def test_tasks_per_client_and_per_server(self) -> None:
        server = task_server(max_tasks_per_client=1, max_tasks=2)
        self.addCleanup(server.gate.set)  # type: ignore[attr-defined]
        alice, bob, carol = Client(server, "alice"), Client(server, "bob"), Client(server, "carol")
        alice.call("gated")
        self.assertEqual(alice.call("gated"), {"error": {"code": -32600, "message": (
            "Too many tasks: this client (principal alice) has 1 tasks not finished (limit 1)")}})
        bob.call("gated")
        self.assertEqual(carol.call("quick", {"n": 1})["error"]["message"], (
            "Too many tasks: this server has 2 tasks stored (limit 2)"))

    def test_stored_tasks_per_client(self) -> None:
        # max_tasks is the server's: one client's finished tasks (kept for
        # task_ttl) filled it for everyone.  Each client has a cap of its own,
        # a principal's, else a peer's (HTTP) or a connection's (stdio): see
        # test_the_caps_count_a_peer_not_a_session.
        for store in task_stores():
            with self.subTest(store=type(store).__name__):
                server = opened(task_server(task_store=store, max_stored_tasks_per_client=3, max_tasks=6))
                alice, bob = Client(server, "alice"), Client(server, "bob")
                for n in range(3):
                    alice.settled(alice.call("quick", {"n": n})["taskId"])
                self.assertEqual(alice.call("quick", {"n": 1}), {"error": {"code": -32600, "message": (
                    "Too many tasks: this client (principal alice) has 3 tasks stored (limit 3; a task is kept 3600 s "
                    "after it is created)")}})
                self.assertEqual(bob.call("quick", {"n": 1})["status"], "working")
                for transport in (FuzzStdio, FuzzWsgi):  # the peer (HTTP) or the connection (stdio)
                    client = transport(server, SESSION)
                    answer = answer_of(client, "tools/call", {"name": "quick", "arguments": {"n": 1}, "task": {}})
                    self.assertEqual(set(answer), {"task"}, transport.__name__)
                self.assertEqual(answer_of(client, "tools/call", {"name": "quick", "arguments": {"n": 1},
                                                                  "task": {}}), {"error": {
                    "code": -32600, "message": "Too many tasks: this server has 6 tasks stored (limit 6)"}})

    def test_the_caps_count_a_peer_not_a_session(self) -> None:
        # The per-client caps counted a task's owner: "" for every anonymous
        # 2026-07-28 client over HTTP (one client's finished tasks refused all
        # the others for an hour, as "this client has 1000 tasks stored"), and
        # a session in 2025-11-25 (one peer's many sessions, a cap each).  Now
        # they count the client the HTTP app's own limits count (a token's
        # principal, else the peer address); over stdio, the connection.
        for store in task_stores():
            with self.subTest(store=type(store).__name__):
                server = opened(task_server(task_store=store, max_stored_tasks_per_client=2, max_tasks=100))
                app = opened(server.streamable_http_app())
                x, y = (FuzzWsgi(server, MODERN, peer, app) for peer in ("10.0.0.1", "10.0.0.2"))
                self.assertEqual([new_task(x), new_task(x), new_task(x), new_task(y)], [
                    "working", "working", "Too many tasks: this client (address 10.0.0.1) has 2 tasks stored "
                    "(limit 2; a task is kept 3600 s after it is created)", "working"])
                sessions = [FuzzWsgi(server, SESSION, "10.0.0.3", app) for _ in range(3)]
                self.assertEqual([new_task(s) for s in sessions] + [new_task(FuzzWsgi(server, SESSION, "10.0.0.4"))], [
                    "working", "working", "Too many tasks: this client (address 10.0.0.3) has 2 tasks stored "
                    "(limit 2; a task is kept 3600 s after it is created)", "working"])
                one, two = FuzzStdio(server, MODERN), FuzzStdio(server, MODERN)
                self.assertEqual([new_task(one), new_task(one), new_task(one), new_task(two)], [
                    "working", "working", "Too many tasks: this connection has 2 tasks stored "
                    "(limit 2; a task is kept 3600 s after it is created)", "working"])

    def test_unfinished_tasks_per_peer(self) -> None:
        server = opened(task_server(max_tasks_per_client=1))
        self.addCleanup(server.gate.set)  # type: ignore[attr-defined]
        x, y = FuzzWsgi(server, MODERN, "10.0.0.1"), FuzzWsgi(server, MODERN, "10.0.0.2")
        self.assertEqual([new_task(x, "gated"), new_task(x, "gated"), new_task(y, "gated")], [
            "working", "Too many tasks: this client (address 10.0.0.1) has 1 tasks not finished (limit 1)",
            "working"])

    def test_peers_of_the_http_server(self) -> None:
        # The same, from two loopback addresses to the embedded server (section 34).
        try:
            socket.create_connection(("127.0.0.1", 9), 0.01, source_address=("127.0.0.3", 0)).close()
        except ConnectionRefusedError:
            pass  # bound; nothing listens at port 9
        except OSError:
            self.skipTest("no loopback address but 127.0.0.1")
        server = opened(task_server(max_stored_tasks_per_client=1))
        httpd = mcp_ref._HttpServer(opened(server.streamable_http_app()), "127.0.0.1", 0)
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.addCleanup(httpd.server_close)
        self.addCleanup(httpd.shutdown)
        port = httpd.server_address[1]
        x, y = FuzzHttp(port, MODERN, "127.0.0.2"), FuzzHttp(port, MODERN, "127.0.0.3")
        self.addCleanup(x.http.close)
        self.addCleanup(y.http.close)
        self.assertEqual([new_task(x), new_task(x), new_task(y)], [
            "working", "Too many tasks: this client (address 127.0.0.2) has 1 tasks stored (limit 1; a task is kept "
            "3600 s after it is created)", "working"])

    def test_result_size(self) -> None:
        server = task_server(max_result_bytes=1000)

        @server.tool(task_support="optional")
        def big() -> str:
            return "x" * 5000

        client = Client(server)
        task = client.settled(client.call("big")["taskId"])
        self.assertEqual(task["result"], {"content": [{"type": "text", "text": (
            "Error executing tool big: the result is at least 5000 bytes of JSON, over this server's limit of 1000")}],
            "isError": True})


class RaceTest(Case):
    """Generated from seeds: a task settles once, whatever races it."""

    def test_cancellation_racing_completion(self) -> None:
        for seed in SEEDS:
            with self.subTest(seed=seed):
                self.cancel_race(seed)

    def cancel_race(self, seed: int) -> None:
        rng = random.Random(seed)
        server = MCPServer("race")

        @server.tool(task_support="optional")
        def work(delay: float) -> str:
            time.sleep(delay)
            return "done"

        client = Client(server)
        plan = [(rng.random() * 0.02, rng.random() * 0.02) for _ in range(30)]
        ids = [client.call("work", {"delay": work_delay})["taskId"] for work_delay, _ in plan]

        def cancel(task_id: str, wait: float) -> Dict[str, Any]:
            time.sleep(wait)
            return client.ask("tasks/cancel", {"taskId": task_id})

        with ThreadPoolExecutor(8) as pool:
            acks = list(pool.map(cancel, ids, [wait for _, wait in plan]))
        self.assertEqual(acks, [{"resultType": "complete"}] * len(ids))
        first = {task_id: client.settled(task_id) for task_id in ids}
        for task in first.values():
            self.assertIn(task["status"], ("completed", "cancelled"), (seed, task))
            self.assertEqual("result" in task, task["status"] == "completed", (seed, task))
        time.sleep(0.1)  # the runs still going have ended: none changed a settled task
        self.assertEqual({task_id: client.get(task_id) for task_id in ids}, first, seed)

    def test_answers_sent_twice_late_or_at_once(self) -> None:
        for seed in SEEDS:
            with self.subTest(seed=seed):
                self.answer_race(seed)

    def answer_race(self, seed: int) -> None:
        rng = random.Random(seed)
        client = Client(task_server())
        task_id = client.call("two_questions")["taskId"]
        client.settled(task_id, ("input_required",))
        sends = [{"a": ACCEPT}, {"b": ACCEPT}, {"a": ACCEPT, "b": ACCEPT}, {"b": ACCEPT}, {"c": ACCEPT}]
        rng.shuffle(sends)

        def update(answers: Dict[str, Any]) -> Dict[str, Any]:
            return client.ask("tasks/update", {"taskId": task_id, "inputResponses": answers})

        with ThreadPoolExecutor(5) as pool:
            acks = list(pool.map(update, sends))
        self.assertEqual(acks, [{"resultType": "complete"}] * len(sends))
        task = client.settled(task_id)
        self.assertEqual(task["result"]["content"], [{"type": "text", "text": "both"}], seed)
        # Late: the task no longer waits; ignored, acknowledged, nothing changed.
        self.assertEqual(update({"a": ACCEPT}), {"resultType": "complete"})
        self.assertEqual(client.get(task_id), task)


class StoreTest(Case):
    """The TaskStore contract, for both stores: compare-and-set, list, count, purge."""

    def stores(self) -> List[mcp_ref.TaskStore]:
        folder = tempfile.mkdtemp()
        return [mcp_ref.InMemoryTaskStore(), opened(mcp_ref.SqliteTaskStore(os.path.join(folder, "tasks.db")))]

    def test_contract(self) -> None:
        for store in self.stores():
            with self.subTest(store=type(store).__name__):
                for n, owner in enumerate(("a", "b", "a", "a")):
                    store.create({"taskId": f"t{n}", "owner": owner, "status": "working", "revision": 0,
                                  "createdAt": 100.0 + n, "expiresAt": None if n else 150.0})
                stale, fresh = store.get("t1"), store.get("t1")
                assert stale is not None and fresh is not None
                fresh["status"] = "completed"
                self.assertTrue(store.update(fresh))
                self.assertEqual(fresh["revision"], 1)
                stale["status"] = "cancelled"
                self.assertFalse(store.update(stale))  # another writer got there first
                self.assertEqual(store.get("t1"), fresh)
                self.assertEqual(store.count("a"), (3, 4))
                self.assertEqual((store.owned("a"), store.owned("b"), store.owned("c")), (3, 1, 0))
                store.create({"taskId": "t4", "owner": "a", "client": "c", "status": "working", "revision": 0,
                              "createdAt": 110.0, "expiresAt": None})  # its caps count "c", not its owner
                self.assertEqual((store.count("a"), store.count("c"), store.owned("a"), store.owned("c")),
                                 ((3, 5), (1, 5), 3, 1))
                store.delete("t4")
                self.assertEqual([r["taskId"] for r in store.list("a", None, 2)], ["t0", "t2"])
                self.assertEqual([r["taskId"] for r in store.list("a", "t2", 2)], ["t3"])
                store.purge(200.0)
                self.assertIsNone(store.get("t0"))
                store.delete("t3")
                self.assertEqual(store.count("a"), (1, 2))

    def test_peek_sees_every_write(self) -> None:
        # What a poll reads: the record as get gives it, after each write; with
        # SQLite, also a write by another process's store (another worker).
        folder = tempfile.mkdtemp()
        path = os.path.join(folder, "tasks.db")
        pairs = [(mcp_ref.InMemoryTaskStore(),) * 2,
                 (opened(mcp_ref.SqliteTaskStore(path)), opened(mcp_ref.SqliteTaskStore(path)))]
        for store, other in pairs:
            with self.subTest(store=type(store).__name__):
                self.assertIsNone(store.peek("t"))
                store.create({"taskId": "t", "owner": "a", "status": "working", "revision": 0, "createdAt": 1.0,
                              "expiresAt": 50.0, "n": 0})
                for n in range(1, 4):
                    self.assertEqual(store.peek("t"), store.get("t"))
                    self.assertEqual(store.peek("t"), store.peek("t"))
                    record = other.get("t")
                    assert record is not None
                    record.update(n=n, status="completed" if n == 3 else "working")
                    self.assertTrue(other.update(record))
                    self.assertEqual(dict(store.peek("t") or {}, revision=0), dict(record, revision=0))
                self.assertEqual(store.count("a"), (0, 1))
                other.delete("t")
                self.assertIsNone(store.peek("t"))

    def test_the_records_kept_parsed_are_bounded(self) -> None:
        limit = mcp_ref._TASK_VIEWS[0]
        for store in self.stores():
            with self.subTest(store=type(store).__name__):
                for n in range(limit + 10):
                    store.create({"taskId": f"t{n}", "owner": "", "status": "working", "revision": 0,
                                  "createdAt": 1.0, "expiresAt": None})
                    self.assertEqual(store.peek(f"t{n}"), store.get(f"t{n}"))
                self.assertLessEqual(len(store.views), limit)  # type: ignore[attr-defined]

    def test_the_bytes_kept_parsed_are_those_of_the_records_kept(self) -> None:
        # viewed counts the JSON text of the records kept parsed: a record
        # replaced or deleted is no longer counted (else the bound is reached early).
        for store in self.stores():
            with self.subTest(store=type(store).__name__):
                store.create({"taskId": "t", "owner": "", "status": "working", "revision": 0, "createdAt": 1.0,
                              "expiresAt": None, "n": 0})
                for n in range(1, 4):
                    record = store.peek("t")
                    assert record is not None
                    self.assertEqual(store.viewed, len(json.dumps(record)))  # type: ignore[attr-defined]
                    self.assertTrue(store.update(dict(record, n="x" * n)))
                store.delete("t")
                self.assertIsNone(store.peek("t"))
                self.assertEqual(store.viewed, 0)  # type: ignore[attr-defined]

    @unittest.skipUnless(os.path.isdir("/proc/self/fd"), "counts open files in /proc")
    def test_sqlite_threads_that_end_leave_no_connection(self) -> None:
        # A thread per HTTP connection, a new stdio reader after a slow call:
        # threads come and go, and the store's connections must not pile up
        # (a connection per thread stayed open after its thread ended).
        store = opened(mcp_ref.SqliteTaskStore(os.path.join(tempfile.mkdtemp(), "tasks.db")))
        store.create({"taskId": "t", "owner": "", "status": "working", "revision": 0, "createdAt": 1.0,
                      "expiresAt": None})
        files = len(os.listdir("/proc/self/fd"))
        for _ in range(5):
            threads = [threading.Thread(target=store.get, args=("t",)) for _ in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(WAIT)
        self.assertLessEqual(len(os.listdir("/proc/self/fd")), files + 2 * store._IDLE)
        self.assertEqual(store.peek("t"), store.get("t"))

    def test_close_closes_the_connections(self) -> None:
        # The idle connections stayed open while the store lived (3.13 warns
        # "unclosed database" when it is collected).  After close(), the store
        # still works, on a connection per statement that it closes.
        store = opened(mcp_ref.SqliteTaskStore(os.path.join(tempfile.mkdtemp(), "tasks.db")))
        store.create({"taskId": "t", "owner": "", "status": "working", "revision": 0, "createdAt": 1.0,
                      "expiresAt": None})
        idle = list(store.idle)
        self.assertTrue(idle)
        store.close()
        for db in idle:
            with self.assertRaises(sqlite3.ProgrammingError):
                db.execute("SELECT 1")
        self.assertEqual((store.peek("t") or {}).get("status"), "working")
        self.assertEqual(store.idle, [])
        mcp_ref.InMemoryTaskStore().close()  # nothing to close: the interface's default

    def test_counts_follow_every_write(self) -> None:
        # count without reading every record: kept as records are created,
        # updated (to a terminal status and back), deleted and purged.
        store = mcp_ref.InMemoryTaskStore()
        for n in range(6):
            store.create({"taskId": f"t{n}", "owner": "ab"[n % 2], "status": "working", "revision": 0,
                          "createdAt": float(n), "expiresAt": 100.0 + n if n < 4 else None})
        record = store.get("t0")
        assert record is not None
        for status, want in (("completed", (2, 6)), ("input_required", (3, 6)), ("failed", (2, 6))):
            record["status"] = status
            self.assertTrue(store.update(record))
            self.assertEqual(store.count("a"), want)
        record["expiresAt"] = 200.0  # a later expiry: purged by that, not the first
        self.assertTrue(store.update(record))
        store.purge(103.5)
        self.assertEqual((store.count("a"), store.count("b")), ((1, 3), (1, 3)))
        self.assertEqual([r["taskId"] for r in store.list("a", None, 10)], ["t0", "t4"])
        store.purge(300.0)
        self.assertEqual((store.count("a"), store.count("b")), ((1, 2), (1, 2)))
        self.assertEqual([r["taskId"] for r in store.list("a", None, 10)], ["t4"])
        store.delete("t5")
        self.assertEqual(store.count("b"), (0, 1))
        self.assertEqual((store.owned("a"), store.owned("b")), (1, 0))
        store.create({"taskId": "t6", "owner": "a", "client": "c", "status": "working", "revision": 0,
                      "createdAt": 6.0, "expiresAt": None})  # the caps of a client apart from the owner
        record = store.get("t6")
        assert record is not None
        record["status"] = "completed"
        self.assertTrue(store.update(record))
        self.assertEqual((store.count("c"), store.owned("c"), store.owned("a")), ((0, 2), 1, 1))
        store.delete("t6")
        self.assertEqual((store.owned("c"), store.stored, store.unfinished), (0, {"a": 1}, {"a": 1}))


SCRIPT = """
import os, sys, time
sys.path.insert(0, {here!r})
import mcp_ref
from mcp_ref import Context, MCPServer, SqliteTaskStore

mcp = MCPServer("restart", task_store=SqliteTaskStore(os.environ["TASK_DB"], float(os.environ.get("TASK_TIMEOUT", 30))))
mcp._tasks.lease = float(os.environ.get("TASK_LEASE", "30"))

@mcp.tool(task_support="optional")
async def ask_name(ctx: Context) -> str:
    await ctx.start_task()
    answer = await ctx.elicit_form("Your name?", {{
        "type": "object", "properties": {{"name": {{"type": "string"}}}}, "required": ["name"]}})
    return f"Hello, {{answer['content']['name']}} from process {{os.getpid()}}"

@mcp.tool(task_support="optional")
def forever() -> str:
    time.sleep(300)
    return "never"

mcp.run()
"""


class Process:
    """A stdio server of SCRIPT on the SQLite file ``db``."""

    def __init__(self, script: str, db: str, lease: float = 30.0, **more: str) -> None:
        env = dict(os.environ, TASK_DB=db, TASK_LEASE=str(lease), **more)
        self.process = subprocess.Popen(python_command(script), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, env=env)
        self.ids = 0

    def ask(self, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.ids += 1
        meta = {"io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": TASKS_CAPS}
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.ids, "method": method,
                                             "params": dict(params, _meta=meta)}).encode() + b"\n")
        self.process.stdin.flush()
        while True:
            frame = json.loads(self.process.stdout.readline())
            if frame.get("id") == self.ids:
                return frame.get("result") or frame

    def settled(self, task_id: str, statuses: tuple) -> Dict[str, Any]:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            task = self.ask("tasks/get", {"taskId": task_id})
            if task.get("status") in statuses:
                return task
            time.sleep(0.05)
        raise AssertionError(f"task {task_id} is still {task}")

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(WAIT)
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()


def server_files(case: unittest.TestCase, template: str) -> Tuple[str, str]:
    """A scratch folder's task database path and a server script written from ``template``."""
    folder = tempfile.TemporaryDirectory()
    case.addCleanup(folder.cleanup)
    script = os.path.join(folder.name, "server.py")
    with open(script, "w") as f:
        f.write(template.format(here=HERE))
    return os.path.join(folder.name, "tasks.db"), script


class RestartTest(Case):

    def setUp(self) -> None:
        super().setUp()
        self.db, self.script = server_files(self, SCRIPT)

    def start(self, lease: float = 30.0) -> Process:
        process = Process(self.script, self.db, lease)
        self.addCleanup(process.kill)
        return process

    def test_a_restart_mid_task(self) -> None:
        # The task waits for its answer when its server is killed; the next
        # server process takes the answer and runs it to its end.
        first = self.start()
        task_id = first.ask("tools/call", {"name": "ask_name", "arguments": {}})["taskId"]
        first.settled(task_id, ("input_required",))
        first.kill()
        second = self.start()
        self.assertEqual(second.ask("tasks/update", {"taskId": task_id, "inputResponses": {
            "elicitation_0": ACCEPT}})["resultType"], "complete")
        task = second.settled(task_id, ("completed",))
        self.assertEqual(task["result"]["content"][0]["text"],
                         f"Hello, Ada from process {second.process.pid}")

    def test_a_worker_that_dies(self) -> None:
        # Its lease lapses: the task is failed, never working forever.
        first = self.start(lease=0.6)
        task_id = first.ask("tools/call", {"name": "forever", "arguments": {}})["taskId"]
        time.sleep(1.0)
        self.assertEqual(first.ask("tasks/get", {"taskId": task_id})["status"], "working")  # renewed meanwhile
        first.kill()
        second = self.start(lease=0.6)
        task = second.settled(task_id, ("failed",))
        self.assertEqual((task["error"], task["statusMessage"]), (
            {"code": -32603, "message": "Internal error: the worker running the task stopped"},
            "The worker running the task stopped"))


SESSION = "2025-11-25"

PV, CAPS = malformed.PV, malformed.CAPS


class FuzzStdio(malformed.Stdio):
    def __init__(self, server: MCPServer, era: str) -> None:
        self.conn = opened(mcp_ref._StdioServer(server))
        self.conn.out = io.BytesIO()
        self.era = era
        if era != MODERN:
            self.send(malformed.initialize(SESSION))


class FuzzWsgi:
    """The Streamable HTTP app, called as a WSGI server calls it (from ``peer``, a REMOTE_ADDR, if given)."""

    peer = ""

    def __init__(self, server: MCPServer, era: str, peer: str = "", app: Any = None) -> None:
        self.era, self.session, self.peer = era, None, peer
        self.app = app or opened(server.streamable_http_app())
        if era != MODERN:
            self.send(malformed.initialize(SESSION))

    def send(self, msg: Dict[str, Any]) -> List[Any]:
        body = json.dumps(msg).encode()
        environ = {"HTTP_" + k.upper().replace("-", "_"): v for k, v in fuzz_headers(self, msg).items()}
        environ.update(REQUEST_METHOD="POST", PATH_INFO="/mcp", CONTENT_LENGTH=str(len(body)), HTTP_HOST="127.0.0.1",
                       CONTENT_TYPE="application/json", **{"wsgi.input": io.BytesIO(body)})
        if self.peer:
            environ["REMOTE_ADDR"] = self.peer
        status: List[Any] = []
        chunks = self.app(environ, lambda s, h: status.append(dict(h)))
        data = b"".join(chunks)
        getattr(chunks, "close", _nothing)()
        return fuzz_frames(self, msg, status[0].get, data)


def _nothing() -> None:
    pass


def fuzz_headers(client: Any, msg: Dict[str, Any]) -> Dict[str, str]:
    """The headers a client sends with ``msg`` (2026-07-28's derived from its body)."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    params = msg.get("params")
    if client.session is not None:
        headers.update({"Mcp-Session-Id": client.session, "Mcp-Protocol-Version": SESSION})
    elif client.era == MODERN and isinstance(params, dict) and isinstance(msg.get("method"), str):
        meta = params.get("_meta")
        version = meta.get(PV) if isinstance(meta, dict) else None
        name = params.get("name" if msg["method"] == "tools/call" else "taskId")
        headers["Mcp-Method"] = msg["method"]
        for header, value in (("Mcp-Protocol-Version", version), ("Mcp-Name", name)):
            if isinstance(value, str) and value.isascii() and value.isprintable() and len(value) < 1000:
                headers[header] = value
    return headers


def fuzz_frames(client: Any, msg: Dict[str, Any], header: Any, body: bytes) -> List[Any]:
    """The messages of a response: its JSON, or its SSE events' data."""
    if msg.get("method") == "initialize" and header("Mcp-Session-Id"):
        client.session = header("Mcp-Session-Id")
    if header("Content-Type") == "application/json":
        return malformed.flat([json.loads(body)])
    return [json.loads(line[5:]) for line in body.decode().split("\n") if line.startswith("data:") and line[5:].strip()]


class FuzzHttp:
    """A client of the embedded HTTP server (section 34): its own connection (from the address ``peer``)."""

    def __init__(self, port: int, era: str, peer: str = "127.0.0.1") -> None:
        self.era, self.session = era, None
        self.http = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT, source_address=(peer, 0))
        if era != MODERN:
            self.send(malformed.initialize(SESSION))

    def send(self, msg: Dict[str, Any]) -> List[Any]:
        self.http.request("POST", "/mcp", json.dumps(msg).encode(), fuzz_headers(self, msg))
        response = self.http.getresponse()
        return fuzz_frames(self, msg, response.getheader, response.read())


def odd_task_ids(seed: int, count: int = 40) -> List[str]:
    rng = random.Random(seed)
    pools = ["\ud800", "\udfff", "\udc80", "\x00", "é", "\U0001f600", "'", '"', "%", "_", "\\", "a", "0", "-"]
    ids = ["\ud800", "a\udc80b", "\x00", "", "x" * 5000, "00000000-0000-4000-8000-00000000000\udfff"]
    while len(ids) < count:
        ids.append("".join(rng.choice(pools) for _ in range(rng.randint(1, 12))))
    return ids


def task_stores() -> List[mcp_ref.TaskStore]:
    return [mcp_ref.InMemoryTaskStore(),
            opened(mcp_ref.SqliteTaskStore(os.path.join(tempfile.mkdtemp(), "tasks.db")))]


class TaskIdTest(Case):

    def test_the_stores_find_no_odd_id(self) -> None:
        for store in task_stores():
            store.create({"taskId": "t", "owner": "a", "status": "working", "revision": 0, "createdAt": 1.0,
                          "expiresAt": None})
            for seed in SEEDS:
                for task_id in odd_task_ids(seed):
                    with self.subTest(store=type(store).__name__, seed=seed, task_id=ascii(task_id[:20])):
                        self.assertIsNone(store.get(task_id))
                        self.assertIsNone(store.peek(task_id))
                        self.assertFalse(store.update({"taskId": task_id, "owner": "a", "status": "working",
                                                       "revision": 0, "createdAt": 1.0, "expiresAt": None}))
                        store.delete(task_id)
                        self.assertEqual([r["taskId"] for r in store.list("a", task_id, 5)], ["t"])
            self.assertEqual(store.count("a"), (1, 1))

    def test_over_stdio_and_http(self) -> None:
        for store in task_stores():
            server = task_server(task_store=store)
            for era in (MODERN, SESSION):
                for transport in (FuzzStdio, FuzzWsgi):
                    with self.subTest(store=type(store).__name__, era=era, transport=transport.__name__):
                        self.odd_ids(transport(server, era), era)

    def odd_ids(self, client: Any, era: str) -> None:
        methods = ("tasks/get", "tasks/cancel", "tasks/update") if era == MODERN else (
            "tasks/get", "tasks/cancel", "tasks/result")
        logged = io.StringIO()
        with contextlib.redirect_stderr(logged):
            for seed in SEEDS:
                for n, task_id in enumerate(odd_task_ids(seed)):
                    method = methods[n % len(methods)]
                    params: Dict[str, Any] = {"taskId": task_id}
                    if era == MODERN:
                        params["_meta"] = {PV: MODERN, CAPS: TASKS_CAPS}
                        if method == "tasks/update":
                            params["inputResponses"] = {"elicitation_0": ACCEPT}
                    frames = [f for f in client.send(malformed.message(method, params)) if "id" in f]
                    codes = [f.get("error", {}).get("code") for f in frames]
                    if codes == [-32020] and isinstance(client, FuzzWsgi) and era == MODERN:
                        # Mcp-Name cannot carry it (fuzz_headers leaves it out): a header mismatch
                        self.assertFalse(task_id.isascii() and task_id.isprintable() and len(task_id) < 1000)
                        continue
                    self.assertEqual([f.get("error") for f in frames], [NOT_FOUND], (method, ascii(task_id)))
        self.assertEqual(logged.getvalue(), "")


class ForbiddenTest(Case):
    """basic/utilities/tasks, "Tool-Level Negotiation": a tool whose taskSupport is
    forbidden, called with ``task``: -32601 ("Servers SHOULD"), where the server
    declares tasks; a server that declares none processes it "normally,
    ignoring" ``task``.  2026-07-28's extension has no ``task``: a plain call."""

    def test_stdio_and_http(self) -> None:
        with_tasks, without = task_server(), MCPServer("plain")

        def plain(n: int) -> int:  # (as task_server's: an unannotated n is a string to the core alone)
            return n

        without.add_tool(plain)
        call = {"name": "plain", "arguments": {"n": 3}, "task": {}}
        for transport in (FuzzStdio, FuzzWsgi):
            with self.subTest(transport.__name__):
                frames = transport(with_tasks, SESSION).send(malformed.message("tools/call", call))
                self.assertEqual([f.get("error") for f in frames if "id" in f], [{
                    "code": -32601, "message": "Method not found: tool plain cannot be called as a task"}])
                frames = transport(without, SESSION).send(malformed.message("tools/call", call))
                self.assertEqual([f["result"]["content"] for f in frames if "id" in f], [[{"type": "text",
                                                                                           "text": "3"}]])
                frames = transport(with_tasks, MODERN).send(malformed.message("tools/call", dict(call, _meta={
                    PV: MODERN, CAPS: TASKS_CAPS})))
                self.assertEqual([f["result"]["content"] for f in frames if "id" in f], [[{"type": "text",
                                                                                           "text": "3"}]])


class SessionlessWsgi(FuzzWsgi):
    """A handshake-era client of a stateless_http app: no session, the revision in its header."""

    def __init__(self, app: Any) -> None:
        self.era, self.app, self.session = SESSION, app, None

    def send(self, msg: Dict[str, Any]) -> List[Any]:
        body = json.dumps(msg).encode()
        environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/mcp", "CONTENT_LENGTH": str(len(body)),
                   "HTTP_HOST": "127.0.0.1", "CONTENT_TYPE": "application/json", "wsgi.input": io.BytesIO(body),
                   "HTTP_ACCEPT": "application/json, text/event-stream", "HTTP_MCP_PROTOCOL_VERSION": SESSION}
        status: List[Any] = []
        chunks = self.app(environ, lambda s, h: status.append(dict(h)))
        data = b"".join(chunks)
        getattr(chunks, "close", _nothing)()
        return fuzz_frames(self, msg, status[0].get, data)


def answer_of(client: Any, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
    frame, = [f for f in client.send(malformed.message(method, params)) if "id" in f]
    return frame.get("result") or {"error": frame.get("error")}


def new_task(client: Any, tool: str = "quick") -> str:
    """A new task's status, or the refusal's message, for a client of either era."""
    params: Dict[str, Any] = {"name": tool, "arguments": {"n": 1} if tool == "quick" else {}}
    params.update({"_meta": {PV: MODERN, CAPS: TASKS_CAPS}} if client.era == MODERN else {"task": {}})
    answer = answer_of(client, "tools/call", params)
    return str(answer["error"]["message"] if "error" in answer else answer.get("task", answer)["status"])


class IsolationTest(Case):
    """basic/utilities/tasks, "Task Isolation and Access Control": without a
    token, a task belongs to its HTTP session (another session's id is not
    found, and tasks/list lists the requestor's own); tasks.list is declared
    only where requestors can be told apart (_tasks_declared)."""

    maxDiff = None

    def test_sessions_over_http(self) -> None:
        server = opened(task_server())
        self.addCleanup(server.gate.set)  # type: ignore[attr-defined]
        alice = FuzzWsgi(server, SESSION)
        bob = FuzzWsgi.__new__(FuzzWsgi)
        bob.era, bob.app, bob.session = SESSION, alice.app, None
        bob.send(malformed.initialize(SESSION))  # a session of its own, on the same app
        self.assertNotEqual(alice.session, bob.session)
        task_id = answer_of(alice, "tools/call", {"name": "gated", "arguments": {}, "task": {}})["task"]["taskId"]
        mine = answer_of(bob, "tools/call", {"name": "quick", "arguments": {"n": 1}, "task": {}})["task"]["taskId"]
        self.assertEqual([t["taskId"] for t in answer_of(alice, "tasks/list", {})["tasks"]], [task_id])
        self.assertEqual([t["taskId"] for t in answer_of(bob, "tasks/list", {})["tasks"]], [mine])
        for method in ("tasks/get", "tasks/result", "tasks/cancel"):
            self.assertEqual(answer_of(bob, method, {"taskId": task_id}), {"error": NOT_FOUND}, method)
        self.assertEqual(answer_of(alice, "tasks/get", {"taskId": task_id})["status"], "working")
        server.gate.set()  # type: ignore[attr-defined]
        self.assertEqual(answer_of(alice, "tasks/result", {"taskId": task_id})["content"],
                         [{"type": "text", "text": "released"}])

    def test_the_limitation_is_documented(self) -> None:
        # "receivers SHOULD document this limitation clearly" where tasks cannot be bound to a requestor
        with open(os.path.join(HERE, "docs", "context-and-tasks.md"), encoding="utf-8") as f:
            readme = " ".join(f.read().split())
        self.assertIn("A request with neither token nor session (2026-07-28 over HTTP without auth, "
                      "`stateless_http`) cannot be told from another: its task id (a random UUID, 122 bits) "
                      "is the secret", readme)

    def test_where_tasks_list_is_declared(self) -> None:
        server = opened(task_server())
        initialize = malformed.initialize(SESSION)
        declared = {}
        for name, client in (("stdio", FuzzStdio(server, MODERN)), ("session", FuzzWsgi(server, MODERN)),
                             ("stateless_http", SessionlessWsgi(opened(server.streamable_http_app(
                                 stateless_http=True))))):
            declared[name] = answer_of(client, "initialize", initialize["params"])["capabilities"]["tasks"]
            if name == "stateless_http":
                self.assertEqual(answer_of(client, "tasks/list", {}), {"error": {
                    "code": -32601, "message": "Method not found: tasks/list"}})
        full = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
        self.assertEqual(declared, {"stdio": full, "session": full, "stateless_http": {
            "cancel": {}, "requests": {"tools": {"call": {}}}}})
        app = opened(server.streamable_http_app(stateless_http=True))
        self.assertTrue(mcp_ref._tells_requestors_apart(mcp_ref._HttpExchange(app, {"mcp_ref.principal": "alice"})))
        self.assertFalse(mcp_ref._tells_requestors_apart(mcp_ref._HttpExchange(app, {})))


ASKING_CAPS = {"elicitation": {}, "sampling": {}}


@dataclasses.dataclass
class Name:
    name: str

MODEL_ANSWER = {"role": "assistant", "content": {"type": "text", "text": "42"}, "model": "m"}


def asking_server() -> MCPServer:
    """Task tools that ask the client (elicitation, sampling) and report progress."""
    server = opened(MCPServer("asking"))

    @server.tool(task_support="optional")
    async def ask_name(ctx: Context) -> str:
        await ctx.start_task()
        answer = await ctx.elicit("Your name?", Name)
        return f"Hello, {answer.data.name}!"

    @server.tool(task_support="optional")
    async def ask_model(ctx: Context) -> str:
        await ctx.start_task()
        answer = await ctx.session.create_message(messages=[{"role": "user", "content": {
            "type": "text", "text": "The answer?"}}], max_tokens=10)
        return f"The model says {answer.content.text}"

    @server.tool(task_support="optional")
    def steps(ctx: Context) -> str:
        ctx.start_task()
        for n in (1, 2, 3):
            ctx.report_progress(n, 3)
        server.kept = ctx  # type: ignore[attr-defined]
        return "done"

    return server


class StdioPeer:
    """A client of the stdio transport in process: lines in, lines out, read as they come."""

    def __init__(self, server: MCPServer) -> None:
        self.conn = opened(mcp_ref._StdioServer(server))
        self.conn.out = io.BytesIO()
        self.ids = 0

    def frames(self) -> List[Dict[str, Any]]:
        return [json.loads(line) for line in self.conn.out.getvalue().splitlines()]

    def post(self, msg: Dict[str, Any]) -> None:
        self.conn.handle_line(json.dumps(msg).encode())

    def wait(self, found: Any) -> Dict[str, Any]:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            for frame in self.frames():
                if found(frame):
                    return frame
            time.sleep(0.01)
        raise AssertionError(f"not seen; frames: {self.frames()[-5:]}")

    def request(self, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
        self.ids += 1
        id_ = self.ids
        self.post({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
        return self.wait(lambda f: f.get("id") == id_ and "method" not in f)


class _AskingTestShared:
    """What AskingTest here and its part in tests/layers share."""

    def session_task(self, peer: Any, name: str, progress: bool = False) -> str:
        peer.request("initialize", dict(malformed.initialize(SESSION)["params"], capabilities=ASKING_CAPS))
        params: Dict[str, Any] = {"name": name, "arguments": {}, "task": {}}
        if progress:
            params["_meta"] = {"progressToken": "p1"}
        return str(peer.request("tools/call", params)["result"]["task"]["taskId"])

    def stdio_question(self, name: str, question: str, answer: Dict[str, Any], text: str) -> None:
        peer = StdioPeer(asking_server())
        task_id = self.session_task(peer, name)
        peer.post({"jsonrpc": "2.0", "id": "r", "method": "tasks/result", "params": {"taskId": task_id}})
        asked = peer.wait(lambda f: f.get("method") == question)
        self.assertEqual(asked["params"]["_meta"], {"io.modelcontextprotocol/related-task": {"taskId": task_id}})
        self.assertEqual(peer.request("tasks/get", {"taskId": task_id})["result"]["status"], "input_required")
        peer.post({"jsonrpc": "2.0", "id": asked["id"], "result": answer})
        result = peer.wait(lambda f: f.get("id") == "r")["result"]
        self.assertEqual(result["content"], [{"type": "text", "text": text}])

    def modern_settled(self, client: Any, task_id: str, meta: Dict[str, Any]) -> Dict[str, Any]:
        deadline = time.monotonic() + WAIT
        while True:
            task = answer_of(client, "tasks/get", {"taskId": task_id, "_meta": meta})
            if task["status"] != "working" or time.monotonic() > deadline:
                return task
            time.sleep(0.01)


class AskingTest(_AskingTestShared, Case):
    """A task that asks the client what it declared (elicitation, sampling), in
    both revisions: 2025-11-25, its questions relayed on tasks/result with the
    related-task _meta ("Input Required Status"); 2026-07-28, inputRequests and
    tasks/update.  The capabilities reach the run (they were lost: "the client
    does not support elicitation")."""

    maxDiff = None

    def test_a_refused_question_fails_the_task(self) -> None:
        # The client answers with an error, or with no result of the question:
        # the task fails with it, as ctx.elicit raising it would fail a call.
        for answer, error in (({"error": {"code": -1, "message": "User rejected"}}, {"code": -1, "message": (
                "User rejected")}), ({"result": {"action": "maybe"}}, {"code": -32602, "message": (
                    "Invalid params: the client's answer is no result of elicitation/create")})):
            with self.subTest(answer=answer):
                peer = StdioPeer(asking_server())
                task_id = self.session_task(peer, "ask_name")
                peer.post({"jsonrpc": "2.0", "id": "r", "method": "tasks/result", "params": {"taskId": task_id}})
                asked = peer.wait(lambda f: f.get("method") == "elicitation/create")
                peer.post(dict(answer, jsonrpc="2.0", id=asked["id"]))
                self.assertEqual(peer.wait(lambda f: f.get("id") == "r")["error"], error)
                task = peer.request("tasks/get", {"taskId": task_id})["result"]
                self.assertEqual((task["status"], task["statusMessage"]), (
                    "failed", "A question to the client failed: " + error["message"]))

    def test_session_questions_over_http(self) -> None:
        server = asking_server()
        client = FuzzWsgi.__new__(FuzzWsgi)
        client.era, client.app, client.session = SESSION, opened(server.streamable_http_app()), None
        client.send(malformed.message("initialize", dict(malformed.initialize(SESSION)["params"],
                                                         capabilities=ASKING_CAPS)))
        call = {"name": "ask_name", "arguments": {}, "task": {}}
        task_id = answer_of(client, "tools/call", call)["task"]["taskId"]
        deadline = time.monotonic() + WAIT
        while answer_of(client, "tasks/get", {"taskId": task_id})["status"] != "input_required":
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.01)
        seen: List[Any] = []
        reader = threading.Thread(target=lambda: seen.extend(client.send(malformed.message(
            "tasks/result", {"taskId": task_id}))))
        reader.start()
        session, = [c for c in list(server._connections) if getattr(c, "id", None) == client.session]
        while not session.outgoing and reader.is_alive():  # the question sent on tasks/result's SSE stream
            time.sleep(0.01)
        client.send({"jsonrpc": "2.0", "id": next(iter(session.outgoing)), "result": ACCEPT})
        reader.join(WAIT)
        question, result = seen[0], seen[-1]["result"]
        self.assertEqual((question["method"], question["params"]["_meta"]), (
            "elicitation/create", {"io.modelcontextprotocol/related-task": {"taskId": task_id}}))
        self.assertEqual(result["content"], [{"type": "text", "text": "Hello, Ada!"}])


class TaskProgressTest(Case):
    """basic/utilities/progress: "For task-augmented requests, the progressToken
    provided in the original request MUST continue to be used for progress
    notifications throughout the task's lifetime, even after the
    CreateTaskResult has been returned" (2025-11-25), each with the related-task _meta."""

    def test_over_stdio(self) -> None:
        server = asking_server()
        peer = StdioPeer(server)
        task_id = AskingTest.session_task(self, peer, "steps", progress=True)  # type: ignore[arg-type]
        result = peer.request("tasks/result", {"taskId": task_id})["result"]
        self.assertEqual(result["content"], [{"type": "text", "text": "done"}])
        server.kept.report_progress(4, 3)  # type: ignore[attr-defined]  # the task has ended: "MUST stop"
        progress = [f["params"] for f in peer.frames() if f.get("method") == "notifications/progress"]
        self.assertEqual(progress, [{"progressToken": "p1", "progress": n, "total": 3, "_meta": {
            "io.modelcontextprotocol/related-task": {"taskId": task_id}}} for n in (1, 2, 3)])


class IndexTest(Case):
    """SqliteTaskStore: what creating, listing and expiry read is indexed, so
    that creating a task costs about the same with 300 stored or 10,000 (the
    timing is bench/micro.py's task_creation, not a unit test's): no query
    scans the table, and the count of all is kept by triggers."""

    def test_no_query_scans_the_table(self) -> None:
        store = opened(mcp_ref.SqliteTaskStore(os.path.join(tempfile.mkdtemp(), "tasks.db")))
        queries = {"purge": ("DELETE FROM mcp_tasks WHERE expires IS NOT NULL AND expires < ?", (1.0,)),
                   "count": (f"SELECT COUNT(*) FROM mcp_tasks WHERE client = ? AND {store._UNFINISHED}", ("a",)),
                   "owned": ("SELECT COUNT(*) FROM mcp_tasks WHERE client = ?", ("a",)),
                   "list": ("SELECT data FROM mcp_tasks WHERE owner = ? AND (created, id) > (?, ?) ORDER BY created, "
                            "id LIMIT ?", ("a", 1.0, "", 5))}
        db = store._connect()
        self.addCleanup(db.close)
        for name, (query, args) in queries.items():
            plan = " ".join(row[-1] for row in db.execute("EXPLAIN QUERY PLAN " + query, args))
            self.assertIn("USING", plan, name)
            self.assertNotIn("SCAN", plan, name)

    def test_a_file_made_before_the_indexes(self) -> None:
        path = os.path.join(tempfile.mkdtemp(), "tasks.db")
        old = sqlite3.connect(path)
        old.execute("CREATE TABLE mcp_tasks (id TEXT PRIMARY KEY, owner TEXT NOT NULL, status TEXT NOT NULL, "
                    "revision INTEGER NOT NULL, created REAL NOT NULL, expires REAL, data TEXT NOT NULL)")
        for n in range(3):
            record = {"taskId": f"t{n}", "owner": "a", "status": "working", "revision": 0, "createdAt": 1.0 + n,
                      "expiresAt": 10.0 if n == 0 else None}
            old.execute("INSERT INTO mcp_tasks VALUES (?, ?, ?, ?, ?, ?, ?)", (
                record["taskId"], "a", "working", 0, record["createdAt"], record["expiresAt"], json.dumps(record)))
        old.commit()
        old.close()
        stores = [opened(mcp_ref.SqliteTaskStore(path)) for _ in range(2)]  # the second finds it done
        self.assertEqual([store.count("a") for store in stores], [(3, 3), (3, 3)])  # (no client: the owner's)
        stores[0].create({"taskId": "t3", "owner": "b", "client": "b", "status": "completed", "revision": 0,
                          "createdAt": 5.0, "expiresAt": None})
        stores[1].purge(20.0)
        stores[0].delete("t1")
        self.assertEqual((stores[1].count("a"), stores[1].count("b")), ((1, 2), (0, 2)))
        self.assertEqual([r["taskId"] for r in stores[0].list("a", None, 5)], ["t2"])


STOP_SCRIPT = """
import os, sys, time
sys.path.insert(0, {here!r})
from mcp_ref import MCPServer, SqliteTaskStore

mcp = MCPServer("stop", task_store=SqliteTaskStore(os.environ["TASK_DB"]))

@mcp.tool(task_support="optional")
def forever() -> str:
    time.sleep(300)
    return "never"
"""

WSGI_CALL = """
import io, json
msg, headers = json.loads(sys.argv[1])
body = json.dumps(msg).encode()
environ = {"HTTP_" + k.upper().replace("-", "_"): v for k, v in headers.items()}
environ.update(REQUEST_METHOD="POST", PATH_INFO="/mcp", CONTENT_LENGTH=str(len(body)), HTTP_HOST="127.0.0.1",
               CONTENT_TYPE="application/json", **{"wsgi.input": io.BytesIO(body)})
print(b"".join(mcp.streamable_http_app()(environ, lambda status, sent: None)).decode(), flush=True)
"""

GUNICORN = os.path.join(os.path.dirname(sys.executable), "gunicorn")  # the venv's, else the PATH's

GUNICORN = GUNICORN if os.path.exists(GUNICORN) else shutil.which("gunicorn") or ""


class GracefulStopTest(Case):
    """A graceful stop (SIGTERM) fails the tasks the process runs before it is
    gone: they were left working until their 30 s lease lapsed and another
    worker failed them.  Over stdio, the embedded HTTP server, and gunicorn's
    workers (atexit, once its requests in flight are done)."""

    def setUp(self) -> None:
        super().setUp()
        self.db, self.script = server_files(self, STOP_SCRIPT)

    def stopped(self, process: subprocess.Popen, task_id: str) -> None:  # type: ignore[type-arg]
        started = time.monotonic()
        process.send_signal(15)
        process.wait(WAIT)
        took = time.monotonic() - started
        store = opened(mcp_ref.SqliteTaskStore(self.db))
        record = store.get(task_id) or {}
        self.assertEqual((record.get("status"), record.get("statusMessage"), record.get("error")), (
            "failed", "The server stopped while the task ran",
            {"code": -32603, "message": "Internal error: the server stopped while the task ran"}))
        self.assertLess(took, 10.0)  # (a second, give or take a loaded machine's start of Python)

    def test_stdio(self) -> None:
        with open(self.script, "a") as f:
            f.write("mcp.run()\n")
        process = Process(self.script, self.db)
        self.addCleanup(process.kill)
        task_id = process.ask("tools/call", {"name": "forever", "arguments": {}})["taskId"]
        self.stopped(process.process, task_id)

    def http(self, command: List[str], ready: str) -> None:
        env = dict(os.environ, TASK_DB=self.db)
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, env=env, cwd=HERE)
        self.addCleanup(lambda: (process.poll() is None and process.kill(), process.wait(WAIT),
                                 process.stderr and process.stderr.close()))
        assert process.stderr is not None
        port = None
        while port is None:
            line = process.stderr.readline().decode()
            self.assertTrue(line, "the server did not start")
            found = re.search(ready, line)
            port = int(found.group(1)) if found else None
        threading.Thread(target=process.stderr.read, daemon=True).start()  # (never a full pipe)
        client = FuzzHttp(port, MODERN)
        self.addCleanup(client.http.close)
        frame, = client.send(malformed.message("tools/call", {"name": "forever", "arguments": {}, "_meta": {
            PV: MODERN, CAPS: TASKS_CAPS}}))
        client.http.close()
        self.stopped(process, frame["result"]["taskId"])

    def test_embedded_http(self) -> None:
        with open(self.script, "a") as f:
            f.write('mcp.run(transport="streamable-http", host="127.0.0.1", port=0)\n')
        self.http(python_command(self.script), r"serving .* on http://127\.0\.0\.1:(\d+)/")

    def test_interpreter_exit(self) -> None:
        # A WSGI server's worker ends as a script does: atexit, where Python
        # 3.12 starts no thread (the stop failed the tasks on one).
        msg = malformed.message("tools/call", {"name": "forever", "arguments": {}, "_meta": {
            PV: MODERN, CAPS: TASKS_CAPS}})
        client = type("Client", (), {"session": None, "era": MODERN})()
        headers = fuzz_headers(client, msg)
        with open(self.script, "a") as f:
            f.write(WSGI_CALL)
        done = subprocess.run(python_command(self.script, json.dumps([msg, headers])), capture_output=True,
                              env=dict(os.environ, TASK_DB=self.db), timeout=WAIT, check=True)
        task_id = re.search(r'"taskId": ?"([^"]+)"', done.stdout.decode())
        self.assertTrue(task_id, done.stdout.decode() + done.stderr.decode())
        self.assertNotIn(b"Traceback", done.stderr)
        store = opened(mcp_ref.SqliteTaskStore(self.db))
        record = store.get(task_id.group(1) if task_id else "") or {}
        self.assertEqual((record.get("status"), record.get("statusMessage")), (
            "failed", "The server stopped while the task ran"))

    @unittest.skipUnless(os.path.exists(GUNICORN), "needs gunicorn")
    @needs_layers("cli")  # mcp_ref:wsgi_app, the app gunicorn imports, is the command line's (section 34)
    def test_gunicorn(self) -> None:
        self.http([GUNICORN, "-k", "gthread", "--threads", "4", "-w", "1", "--chdir", HERE, "-b", "127.0.0.1:0",
                   f'mcp_ref:wsgi_app("{self.script}")'], r"Listening at: http://127\.0\.0\.1:(\d+)")


class LockedStoreTest(Case):
    """Over stdio, a SQLite file another process has locked held the whole
    connection for the store's busy timeout: tasks were created (and polled)
    on the reader.  Now the store's work runs as a call does, and a call that
    waits passes reading on: a ping is answered at once, the task when the
    lock is released."""

    def test_reads_while_another_process_writes(self) -> None:
        # WAL lets readers run beside a writer: a new connection reads at once
        # (it waited for the write lock to set up a schema that was there).
        path = os.path.join(tempfile.mkdtemp(), "tasks.db")
        made = opened(mcp_ref.SqliteTaskStore(path))
        made.create({"taskId": "t", "owner": "", "status": "working", "revision": 0, "createdAt": 1.0,
                     "expiresAt": None})
        locker = sqlite3.connect(path, isolation_level=None)
        self.addCleanup(locker.close)
        locker.execute("BEGIN IMMEDIATE")
        started = time.monotonic()
        self.assertEqual((opened(mcp_ref.SqliteTaskStore(path, timeout=3)).get("t") or {}).get("status"), "working")
        self.assertLess(time.monotonic() - started, 2.0)
        locker.execute("ROLLBACK")

    def test_a_ping_while_the_store_waits(self) -> None:
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        db, script = os.path.join(folder.name, "tasks.db"), os.path.join(folder.name, "server.py")
        with open(script, "w") as f:
            f.write(SCRIPT.format(here=HERE))
        process = Process(script, db, TASK_TIMEOUT="20")
        self.addCleanup(process.kill)
        first = process.ask("tools/call", {"name": "forever", "arguments": {}})["taskId"]  # the file made
        locker = sqlite3.connect(db, isolation_level=None)
        self.addCleanup(locker.close)
        locker.execute("BEGIN IMMEDIATE")  # another process writes: the store's writes wait
        meta = {"io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": TASKS_CAPS}
        assert process.process.stdin is not None and process.process.stdout is not None
        started = time.monotonic()
        for id_, method, params in ((100, "tools/call", {"name": "forever", "arguments": {}}),
                                    (101, "tasks/cancel", {"taskId": first}), (102, "tools/list", {})):
            process.process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": id_, "method": method,
                                                    "params": dict(params, _meta=meta)}).encode() + b"\n")
        process.process.stdin.flush()
        listed = json.loads(process.process.stdout.readline())
        self.assertEqual(listed["id"], 102)
        self.assertLess(time.monotonic() - started, 5.0)  # (20 s when the reader waited for the lock)
        locker.execute("ROLLBACK")
        answers = {frame["id"]: frame for frame in (json.loads(process.process.stdout.readline()) for _ in "ab")}
        self.assertEqual((answers[100]["result"]["resultType"], answers[101]["result"]["resultType"]), (
            "task", "complete"))


class ChoicesTest(Case):
    """Where the spec lets the server choose, mcp_ref's choice (docs/context-and-tasks.md, "Tasks"):
    a requested ttl above task_ttl is lowered to it ("Receivers MAY override
    the requested ttl"), one below is honoured, none is task_ttl, and
    task_ttl=None keeps a task until it is deleted; a tool error (isError) is
    a failed task in 2025-11-25 ("should reach failed status"), whose
    tasks/result is the call's result, and a completed one in 2026-07-28 (MUST)."""

    maxDiff = None

    def test_ttl(self) -> None:
        for task_ttl, asked, granted in ((3600.0, 36000000, 3600000), (3600.0, 5000, 5000), (3600.0, None, 3600000),
                                         (None, 5000, 5000), (None, None, None)):
            with self.subTest(task_ttl=task_ttl, asked=asked):
                client = SessionClient(task_server(task_ttl=task_ttl))
                task = {} if asked is None else {"ttl": asked}
                created = client.ask("tools/call", {"name": "quick", "arguments": {"n": 1}, "task": task})["task"]
                shown = client.ask("tasks/get", {"taskId": created["taskId"]})
                self.assertEqual((created["ttl"], shown["ttl"]), (granted, granted))
        modern = Client(task_server(task_ttl=60))
        self.assertEqual(modern.call("quick", {"n": 1})["ttlMs"], 60000)

    def test_a_tool_error(self) -> None:
        server = task_server()
        session = SessionClient(server)
        task_id = session.ask("tools/call", {"name": "broken", "arguments": {}, "task": {}})["task"]["taskId"]
        result = session.ask("tasks/result", {"taskId": task_id})
        self.assertEqual(result, {"content": [{"type": "text", "text": "Error executing tool broken: no luck"}],
                                  "isError": True, "_meta": {"io.modelcontextprotocol/related-task": {
                                      "taskId": task_id}}})
        shown = session.ask("tasks/get", {"taskId": task_id})
        self.assertEqual((shown["status"], shown["statusMessage"]), ("failed", "Error executing tool broken: no luck"))
        modern = Client(server)
        task = modern.settled(modern.call("broken")["taskId"])
        self.assertEqual((task["status"], task["result"]["isError"], "error" in task), ("completed", True, False))


class TaskProgressHttpTest(Case):
    """The same over HTTP: a session's task reports its progress on the
    session's GET stream (the POST that created it has been answered)."""

    def test_on_the_get_stream(self) -> None:
        server = asking_server()
        httpd = mcp_ref._HttpServer(opened(server.streamable_http_app()), "127.0.0.1", 0)
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.addCleanup(httpd.server_close)
        self.addCleanup(httpd.shutdown)
        port = httpd.server_address[1]
        client = FuzzHttp(port, SESSION)
        self.addCleanup(client.http.close)
        get = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
        self.addCleanup(get.close)
        get.request("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": str(client.session),
                                            "Mcp-Protocol-Version": SESSION})
        stream = get.getresponse()
        self.assertEqual(stream.status, 200)
        events: List[Dict[str, Any]] = []

        def read() -> None:
            while len(events) < 3:
                line = stream.readline()
                if not line:
                    return
                if line.startswith(b"data:") and line[5:].strip():
                    events.append(json.loads(line[5:]))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        task_id = answer_of(client, "tools/call", {"name": "steps", "arguments": {}, "task": {},
                                                   "_meta": {"progressToken": 7}})["task"]["taskId"]
        self.assertEqual(answer_of(client, "tasks/result", {"taskId": task_id})["content"],
                         [{"type": "text", "text": "done"}])
        reader.join(WAIT)
        self.assertEqual(events, [{"jsonrpc": "2.0", "method": "notifications/progress", "params": {
            "progressToken": 7, "progress": n, "total": 3, "_meta": {
                "io.modelcontextprotocol/related-task": {"taskId": task_id}}}} for n in (1, 2, 3)])


if __name__ == "__main__":
    unittest.main()

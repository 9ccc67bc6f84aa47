"""mcp_ref.Client (sections 31 and 32): against mcp_ref's own server
(examples/everything.py) over stdio and Streamable HTTP, in both eras, and
against the official SDK's server (skipped when the SDK is not installed)."""

from tests._testing import BOTH, accelerators, copy_into, wait_for_port
from tests._testing import HERE  # the repository's root

import contextlib
import importlib.util
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import unittest
from dataclasses import dataclass
from typing import Any, Dict, List, Optional
from unittest import mock

import mcp_ref
from mcp_ref import Client, MCPError

from tests.core.test_http import InProcess
from tests.layers.test_cli import CliTestCase, EVERYTHING_CALLS, EVERYTHING_TS, HAVE_EVERYTHING_TS


CLI = os.path.join(HERE, "mcp_ref.py")

EVERYTHING = os.path.join(HERE, "examples", "everything.py")

QUICKSTART = os.path.join(HERE, "examples", "quickstart.py")

LAUNCHER = os.path.join(HERE, "tests", "testdata", "sdk_launcher.py")

HAVE_SDK = importlib.util.find_spec("mcp") is not None and importlib.util.find_spec("uvicorn") is not None

STDIO = [sys.executable, CLI, "serve", EVERYTHING]

# The same serve, with tasks/get suggested every 50 ms rather than every second
# (the client sleeps what the server suggests: ten tasks would wait ten seconds).
FAST_POLLS = [sys.executable, "-c", f"import sys; sys.path.insert(0, {HERE!r}); import mcp_ref; "
              f"mcp_ref._TASK_POLL_MS = 50; sys.exit(mcp_ref.main(['serve', {EVERYTHING!r}]))"]

ASKING = os.path.join(HERE, "tests", "testdata", "client_server.py")

ERAS = ("2025-11-25", "2026-07-28")


def load_everything() -> mcp_ref.MCPServer:
    spec = importlib.util.spec_from_file_location("everything_for_client", EVERYTHING)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.mcp  # type: ignore[no-any-return]


def text(result: Dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in result["content"])


def answer_form(params: Dict[str, Any]) -> Dict[str, Any]:
    """A name, and a value of its type for each other field the form requires (the client checks
    the content against the requestedSchema before sending it)."""
    schema = params.get("requestedSchema") or {}
    content: Dict[str, Any] = {"name": "Ada"}
    for field in schema.get("required") or ():
        kind = (schema.get("properties") or {}).get(field, {}).get("type")
        content.setdefault(field, {"integer": 1, "number": 1, "boolean": True}.get(kind, "blue"))
    return {"action": "accept", "content": content}


def sample(params: Dict[str, Any]) -> Dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "test",
            "stopReason": "endTurn"}


def roots() -> List[Dict[str, Any]]:
    return [{"uri": "file:///tmp/project", "name": "project"}]


class Everything:
    """The same checks over any transport: ``connect(protocol_version, **callbacks)``."""

    def connect(self, protocol_version: Optional[str], **options: Any) -> Client:
        raise NotImplementedError

    def polls_fast(self) -> Any:
        """A context in which connect's server suggests polling a task every 50 ms."""
        raise NotImplementedError

    def test_lists_calls_and_reads_in_both_eras(self) -> None:
        for era in ERAS:
            with self.subTest(era=era), self.connect(era) as client:  # type: ignore[attr-defined]
                self.assertEqual(client.protocol_version, era)
                names = [tool["name"] for tool in client.list_tools(all_pages=True)["tools"]]
                self.assertIn("test_simple_text", names)
                self.assertEqual(text(client.call_tool("test_simple_text")),
                                 "This is a simple text response for testing.")
                self.assertIs(client.call_tool("test_error_handling")["isError"], True)
                uris = [r["uri"] for r in client.list_resources()["resources"]]
                self.assertIn("test://static-text", uris)
                self.assertEqual(client.read_resource("test://static-text")["contents"][0]["text"],
                                 "This is the content of the static text resource.")
                templates = client.list_resource_templates()["resourceTemplates"]
                self.assertEqual([t["uriTemplate"] for t in templates], ["test://template/{id}/data"])
                prompt = client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
                self.assertEqual(prompt["messages"][0]["content"]["text"],
                                 "Prompt with arguments: arg1='a', arg2='b'")
                self.assertIn("test_simple_prompt", [p["name"] for p in client.list_prompts()["prompts"]])
                completed = client.complete({"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                                            {"name": "arg1", "value": "p"})
                self.assertIn("values", completed["completion"])

    def test_default_is_2026_07_28(self) -> None:
        with self.connect(None) as client:  # type: ignore[attr-defined]
            self.assertEqual(client.protocol_version, "2026-07-28")
            self.assertEqual(client.initialize_result["supportedVersions"][-1], "2026-07-28")

    def test_callbacks_answer_the_server(self) -> None:
        for era in ERAS:
            with self.subTest(era=era), self.connect(era, elicitation_callback=answer_form,
                                                     sampling_callback=sample) as client:  # type: ignore[attr-defined]
                self.assertEqual(text(client.call_tool("test_streaming_elicitation")), "action=accept")
                self.assertEqual(text(client.call_tool("test_sampling", {"prompt": "capital?"})),
                                 "LLM response: Paris")


    def test_missing_capability_is_named(self) -> None:
        # 2026-07-28: -32021, the capability and the callback that declares it named.
        with self.connect("2026-07-28") as client:  # type: ignore[attr-defined]
            with self.assertRaises(MCPError) as caught:
                client.call_tool("test_missing_capability")
        self.assertEqual(caught.exception.code, -32021)
        self.assertIn("tools/call needs the client capability sampling (pass sampling_callback=...)",
                      str(caught.exception))
        # A tool that must be a task, without Client(tasks=True): the keyword is named as well.
        with self.connect("2026-07-28") as client:  # type: ignore[attr-defined]
            with self.assertRaises(MCPError) as caught:
                client.call_tool("failing_job")
        self.assertEqual(caught.exception.code, -32021)
        self.assertIn("tools/call needs the client capability extensions.io.modelcontextprotocol/tasks "
                      "(pass tasks=True)", str(caught.exception))

    def test_input_rounds_of_2026_07_28(self) -> None:
        with self.connect("2026-07-28", elicitation_callback=answer_form, sampling_callback=sample,
                          list_roots_callback=roots) as client:  # type: ignore[attr-defined]
            for name in ("test_input_required_result_elicitation", "test_input_required_result_sampling",
                         "test_input_required_result_list_roots", "test_input_required_result_request_state",
                         "test_input_required_result_multiple_inputs", "test_input_required_result_multi_round"):
                with self.subTest(name=name):
                    result = client.call_tool(name)
                    self.assertEqual(result["resultType"], "complete")
                    self.assertIsNot(result.get("isError"), True, result)

    def test_tasks_followed_to_their_result(self) -> None:
        # Issue 24: with tasks=True a call the server makes a task is polled to
        # its end and returns as any call; return_task=True gives the handle.
        with self.polls_fast():  # type: ignore[attr-defined]
            self.check_tasks_followed()

    def check_tasks_followed(self) -> None:
        for era in ERAS:
            with self.subTest(era=era), self.connect(era, tasks=True) as client:  # type: ignore[attr-defined]
                seen: List[str] = []
                result = client.call_tool("slow_compute", {"seconds": 0.2, "label": "x"},
                                          task_callback=lambda task, seen=seen: seen.append(task["status"]))
                self.assertEqual(text(result), "Computed x in 0.2s")
                self.assertEqual((seen[0], seen[-1]), ("working", "completed"))
                self.assertEqual(text(client.call_tool("failing_job")),
                                 "Error executing tool failing_job: The job failed")
                with self.assertRaises(MCPError) as caught:
                    client.call_tool("protocol_error_job")
                self.assertEqual((caught.exception.code, caught.exception.message), (-32603, "The job crashed"))
                created = client.call_tool("slow_compute", {"seconds": 0.1}, return_task=True)
                task = created if era == "2026-07-28" else created["task"]
                self.assertEqual(task["status"], "working")
        # 2026-07-28: a task's questions answered with tasks/update, each once.
        confirm = {"action": "accept", "content": {"name": "Ada", "confirm": True}}
        with self.connect("2026-07-28", tasks=True,  # type: ignore[attr-defined]
                          elicitation_callback=lambda params: confirm) as client:
            self.assertEqual(text(client.call_tool("confirm_delete", {"filename": "a"})), "Deleted a")
            self.assertEqual(text(client.call_tool("multi_input")), "Both answers received")
        with self.connect("2026-07-28") as client:  # type: ignore[attr-defined]
            # Without tasks=True the extension is not declared: an ordinary call.
            self.assertEqual(text(client.call_tool("slow_compute", {"seconds": 0.1})), "Computed result in 0.1s")

    def test_task_methods(self) -> None:
        # Issue 32: a task worked by hand, in both task revisions, with the
        # SDK's names (call_tool_as_task, get_task, poll_task, get_task_result,
        # list_tasks, cancel_task); return_task=True's handle works with them.
        with self.polls_fast():  # type: ignore[attr-defined]
            for era in ERAS:
                with self.subTest(era=era), self.connect(era) as client:  # type: ignore[attr-defined]
                    created = client.call_tool_as_task("slow_compute", {"seconds": 0.3, "label": "x"})
                    task = created if era == "2026-07-28" else created["task"]
                    self.assertEqual((task["status"], created.get("resultType", "task")), ("working", "task"))
                    self.assertEqual(client.get_task(task["taskId"])["taskId"], task["taskId"])
                    statuses = [polled["status"] for polled in client.poll_task(task["taskId"])]
                    self.assertEqual(statuses[-1], "completed")
                    self.assertEqual(text(client.get_task_result(task["taskId"])), "Computed x in 0.3s")
                    long = client.call_tool_as_task("slow_compute", {"seconds": 60})
                    long_id = (long if era == "2026-07-28" else long["task"])["taskId"]
                    client.cancel_task(long_id)
                    self.assertEqual(client.get_task(long_id)["status"], "cancelled")
                    if era == "2025-11-25":
                        listed = [t["taskId"] for t in client.list_tasks(all_pages=True)["tasks"]]
                        self.assertTrue({task["taskId"], long_id} <= set(listed), listed)
                    else:  # the extension has no tasks/list: said without asking
                        with self.assertRaises(MCPError) as caught:
                            client.list_tasks()
                        self.assertEqual(caught.exception.code, -32601)
                with self.subTest(era=era, handle="return_task"), self.connect(era, tasks=True) as client:  # type: ignore[attr-defined]
                    created = client.call_tool("slow_compute", {"seconds": 0.1}, return_task=True)
                    task_id = (created if era == "2026-07-28" else created["task"])["taskId"]
                    self.assertEqual(text(client.get_task_result(task_id)), "Computed result in 0.1s")
            with self.connect("2026-07-28", elicitation_callback=lambda params: {  # type: ignore[attr-defined]
                    "action": "accept", "content": {"confirm": True}}) as client:
                created = client.call_tool_as_task("confirm_delete", {"filename": "a"})
                self.assertEqual(text(client.get_task_result(created["taskId"])), "Deleted a")  # via tasks/update

    def test_a_task_given_up_is_cancelled(self) -> None:
        # Issue 32: following a task is bounded (read_timeout_seconds here),
        # not 100,000 polls; a task call_tool gives up, by its deadline or an
        # interrupt (Ctrl-C), is cancelled with tasks/cancel rather than left running.
        with self.polls_fast():  # type: ignore[attr-defined]
            for era in ERAS:
                with self.subTest(era=era), self.connect(era, tasks=True) as client:  # type: ignore[attr-defined]
                    seen: List[str] = []
                    started = time.monotonic()
                    with self.assertRaises(ConnectionError) as caught:
                        client.call_tool("slow_compute", {"seconds": 60}, read_timeout_seconds=1,
                                         task_callback=lambda task, seen=seen: seen.append(task["taskId"]))
                    self.assertLess(time.monotonic() - started, 10)
                    self.assertIn(f"task {seen[0]} did not end within 1 s", str(caught.exception))
                    self.assertEqual(client.get_task(seen[0])["status"], "cancelled")

                    def interrupt(task: Dict[str, Any], seen: List[str] = seen) -> None:
                        seen.append(task["taskId"])
                        raise KeyboardInterrupt

                    with self.assertRaises(KeyboardInterrupt):
                        client.call_tool("slow_compute", {"seconds": 60}, task_callback=interrupt)
                    self.assertEqual(client._given_up, (seen[-1], True))  # the server answered tasks/cancel
                    self.assertEqual(client.get_task(seen[-1])["status"], "cancelled")

    def test_listen_for_list_changes_and_tasks(self) -> None:
        # Issue 32: subscriptions/listen (2026-07-28) as an iterator: the
        # acknowledged filter, then each notification of the stream.
        with self.polls_fast():  # type: ignore[attr-defined]
            with self.connect("2026-07-28") as client:  # type: ignore[attr-defined]
                with client.listen(tools_list_changed=True) as events:
                    self.assertEqual(events.honored, {"toolsListChanged": True})
                    client.call_tool("test_trigger_tool_change")
                    event = events.get(10)
                    self.assertEqual(event["method"], "notifications/tools/list_changed", event)
                task_id = client.call_tool_as_task("slow_compute", {"seconds": 0.3})["taskId"]
                with client.listen(task_ids=[task_id]) as events:
                    self.assertEqual(events.honored, {"taskIds": [task_id]})
                    statuses = []
                    for event in events:
                        self.assertEqual((event["method"], event["params"]["taskId"]), ("notifications/tasks", task_id))
                        statuses.append(event["params"]["status"])
                        if statuses[-1] == "completed":
                            break
                    self.assertEqual(event["params"]["result"]["content"][0]["text"], "Computed result in 0.3s")
                self.assertIn("slow_compute", [tool["name"] for tool in client.list_tools(all_pages=True)["tools"]])
                with self.assertRaises(MCPError) as caught:  # refused at once (HTTP: a JSON answer, no stream)
                    client.listen(task_ids=[task_id] * 1000)
                self.assertEqual(caught.exception.code, -32602)
            with self.connect("2025-11-25") as client, self.assertRaises(RuntimeError):  # type: ignore[attr-defined]
                client.listen(tools_list_changed=True)

    def test_progress_and_logs(self) -> None:
        logs: List[Any] = []
        for era in ERAS:
            with self.subTest(era=era), self.connect(era, logging_callback=logs.append) as client:  # type: ignore[attr-defined]
                progress: List[Any] = []
                client.call_tool("test_tool_with_progress", progress_callback=lambda *a, seen=progress: seen.append(a))
                self.assertEqual(progress, [(0, 100, "Completed step 0 of 100"), (50, 100, "Completed step 50 of 100"),
                                            (100, 100, "Completed step 100 of 100")])
                del logs[:]
                client.set_logging_level("info")
                client.call_tool("test_tool_with_logging")
                self.assertEqual([entry["data"] for entry in logs], [
                    "Tool execution started", "Tool processing data", "Tool execution completed"])

    def test_a_callback_that_raises_is_shown_and_the_exchange_goes_on(self) -> None:
        def broken(params: Dict[str, Any]) -> None:
            raise KeyError("the callback's own bug")

        for era in ERAS:
            stderr = io.StringIO()
            with self.subTest(era=era), contextlib.redirect_stderr(stderr), \
                    self.connect(era, logging_callback=broken) as client:  # type: ignore[attr-defined]
                client.set_logging_level("info")
                self.assertEqual(text(client.call_tool("test_tool_with_logging")),
                                 "Tool with logging executed successfully")
                listed = client.list_tools(all_pages=True)["tools"]
                self.assertIn("test_tool_with_logging", [tool["name"] for tool in listed])
            self.assertIn("mcp_ref.Client: a callback raised on notifications/message:", stderr.getvalue())
            self.assertIn("KeyError", stderr.getvalue())


class StdioTest(Everything, unittest.TestCase):
    command = STDIO

    def connect(self, protocol_version: Optional[str], **options: Any) -> Client:
        return Client(self.command, protocol_version=protocol_version, **options)

    def polls_fast(self) -> Any:
        return mock.patch.object(self, "command", FAST_POLLS)

    def test_elicitation_form_defaults_and_url_mode(self) -> None:
        asked: List[Dict[str, Any]] = []

        def answer(params: Dict[str, Any]) -> Dict[str, Any]:
            asked.append(params)
            return {"action": "accept", "content": {"age": 31}} if params.get("mode") != "url" else {"action": "accept"}

        for era in ERAS:
            with self.subTest(era=era), Client([sys.executable, ASKING], protocol_version=era,
                                               elicitation_callback=answer) as client:
                self.assertEqual(text(client.call_tool("ask")),
                                 "accept Profile(name='John Doe', age=31, verified=True)")
                self.assertEqual(text(client.call_tool("visit")), "accept")
                self.assertEqual(asked[-1]["url"], "https://example.com/sign-in")

    def test_the_handshake_eras(self) -> None:
        for era in mcp_ref.HANDSHAKE_VERSIONS:
            with self.subTest(era=era), Client(STDIO, protocol_version=era) as client:
                self.assertEqual(client.protocol_version, era)
                self.assertEqual(client.send_ping(), {})
                self.assertEqual(client.initialize_result["serverInfo"]["name"], "mcp-conformance-test-server")

    def test_a_command_string(self) -> None:
        with Client(f'"{sys.executable}" "{QUICKSTART}"') as client:
            self.assertEqual(client.call_tool("add", {"a": 1, "b": 2})["structuredContent"], {"result": 3})

    def test_failures(self) -> None:
        with self.assertRaises(ValueError):
            Client(["/no/such/server"]).initialize()
        with self.assertRaises(ValueError):
            Client(STDIO, protocol_version="1999-01-01")
        with self.assertRaises(RuntimeError):
            Client(STDIO).list_tools()
        with self.assertRaises(ConnectionError):  # exits at once
            Client([sys.executable, "-c", "pass"]).initialize()
        with Client(STDIO) as client, self.assertRaises(MCPError) as caught:
            client.call_tool("no_such_tool")
        self.assertEqual(caught.exception.code, -32602)


class ReadmeTest(unittest.TestCase):
    def test_the_three_lines(self) -> None:
        import contextlib
        import io
        import re

        with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        code = re.search(r"^## A client\n.*?^```py\n(.*?)^```$", readme, re.S | re.M).group(1)  # type: ignore[union-attr]
        code = code.replace('"python examples/quickstart.py"', repr(f'"{sys.executable}" "{QUICKSTART}"'))
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, "README.md", "exec"), {"__name__": "readme_client"})
        self.assertEqual(printed.getvalue(), "{'result': 3}\n")


DISCOVERED = "answer(request, {'supportedVersions': ['2026-07-28'], 'capabilities': {}, 'serverInfo': {'name': 'f', " \
             "'version': '1'}})"


class NegotiationTest(CliTestCase):
    """The revision agreed with fake servers (test_cli's), as basic/versioning says."""

    def test_retried_with_a_version_the_server_lists(self) -> None:
        refuse_once = ("send({'jsonrpc': '2.0', 'id': request['id'], 'error': {'code': -32022, 'message': "
                       "'Unsupported protocol version', 'data': {'supported': ['2026-07-28']}}}) if not "
                       "os.path.exists(__file__ + '.asked') and not open(__file__ + '.asked', 'w').close() "
                       f"else {DISCOVERED}")
        with Client(self.fake({"server/discover": refuse_once})) as client:
            self.assertEqual(client.protocol_version, "2026-07-28")
            self.assertEqual(client.list_tools()["tools"], [{"name": "echo", "inputSchema": {"type": "object"}}])

    def test_a_handshake_server_is_met_in_its_era(self) -> None:
        handlers = {"server/discover": "send({'jsonrpc': '2.0', 'id': request['id'], 'error': {'code': -32601, "
                                       "'message': 'Method not found'}})",
                    "initialize": "answer(request, {'protocolVersion': '2025-06-18', 'capabilities': {}, "
                                  "'serverInfo': {'name': 'f', 'version': '1'}})"}
        with Client(self.fake(handlers)) as client:
            self.assertEqual(client.protocol_version, "2025-06-18")
        unknown = {"initialize": "answer(request, {'protocolVersion': '1999-01-01', 'capabilities': {}, "
                                 "'serverInfo': {'name': 'f', 'version': '1'}})"}
        sent: List[Dict[str, Any]] = []
        client = Client(self.fake(unknown), protocol_version="2025-11-25", trace=sent_into(sent))
        with self.assertRaises(ConnectionError) as caught:
            client.initialize()
        self.assertEqual(str(caught.exception), 'the server answered initialize with protocol version "1999-01-01", '
                                                'which this client does not speak')
        # schema, InitializeRequest: "If the client cannot support this version, it MUST disconnect"
        self.assertEqual([m.get("method") for m in sent], ["initialize"])  # no notifications/initialized
        self.assertIsNone(client._transport)

    def test_a_repeated_cursor_ends_the_listing(self) -> None:
        again = {"server/discover": DISCOVERED, "tools/list": "answer(request, {'tools': [TOOL], 'nextCursor': 'x'})"}
        with Client(self.fake(again)) as client:
            self.assertEqual(client.list_tools()["nextCursor"], "x")
            with self.assertRaises(ConnectionError) as caught:
                client.list_tools(all_pages=True)
        self.assertEqual(str(caught.exception),
                         "tools/list: the server sent the cursor 'x' again (it would list forever)")

    def test_a_malformed_page_is_the_servers_failure(self) -> None:
        # Before, 'echo' was listed as four tools' worth of letters (then dropped),
        # and a cursor [1] ended the listing silently.
        cases = [("{'tools': 'echo'}", "tools/list: tools is not a list"),
                 ("{'tools': [TOOL], 'nextCursor': [1]}", "tools/list: nextCursor [1] is not a string")]
        for page, said in cases:
            fake = self.fake({"server/discover": DISCOVERED, "tools/list": f"answer(request, {page})"})
            with self.subTest(page=page), Client(fake) as client:
                with self.assertRaises(ConnectionError) as caught:
                    client.list_tools(all_pages=True)
                self.assertEqual(str(caught.exception), said)


HANDSHAKE = "answer(request, {'protocolVersion': '2025-11-25', 'capabilities': {}, 'serverInfo': {'name': 'f', " \
            "'version': '1'}})"


def sent_into(messages: List[Dict[str, Any]]) -> Any:
    """A trace that keeps what the client sends."""
    return lambda way, message: messages.append(message) if way == "->" else None


LEGACY = {"server/discover": "send({'jsonrpc': '2.0', 'id': request['id'], 'error': {'code': -32601, "
                             "'message': 'Method not found'}})", "initialize": HANDSHAKE}


class ClientMustTest(CliTestCase):
    """The client's MUSTs that no conformance scenario scores, each against a fake server (test_cli's)."""

    def test_an_unknown_result_type_is_invalid(self) -> None:
        # 2026-07-28 basic/index: "A resultType of any value unrecognized by the client MUST be
        # considered invalid"; absent is "complete"; "task" only once the tasks extension is declared.
        # (ext-tasks: a CreateTaskResult "in response to an unsupported request type", tools/list here,
        # "MUST interpret this as an invalid response".)
        cases = {"'banana'": ({}, '"banana"'), "'task'": ({}, '"task"'), "None": ({"tasks": True}, "null"),
                 "'task' ": ({"tasks": True}, '"task"')}
        for kind, (options, said) in cases.items():
            fake = self.fake({"server/discover": DISCOVERED,
                              "tools/list": f"answer(request, {{'tools': [TOOL], 'resultType': {kind.strip()}}})"})
            with self.subTest(kind=kind), Client(fake, **options) as client:
                with self.assertRaises(ConnectionError) as caught:
                    client.list_tools()
                self.assertIn(f"tools/list: the server's resultType {said} is not one this client recognizes",
                              str(caught.exception))
        fake = self.fake({"server/discover": DISCOVERED, "tools/list": "answer(request, {'tools': [TOOL]})"})
        with Client(fake) as client:  # absent: complete
            self.assertEqual(client.list_tools()["tools"], [{"name": "echo", "inputSchema": {"type": "object"}}])
        legacy = self.fake({"initialize": HANDSHAKE,
                            "tools/list": "answer(request, {'tools': [TOOL], 'resultType': 'banana'})"})
        with Client(legacy, protocol_version="2025-11-25") as client:  # not a field of the handshake era
            self.assertEqual(len(client.list_tools()["tools"]), 1)

    def test_an_empty_cursor_is_a_cursor(self) -> None:
        # server/utilities/pagination: "an empty string is a valid cursor and thus MUST NOT be
        # treated as the end of results".  Before, "" ended the listing after the first page.
        pages = ("answer(request, {'tools': [TOOL], 'nextCursor': ''} if 'cursor' not in request['params'] else "
                 "{'tools': [dict(TOOL, name='second')], 'nextCursor': None} if request['params']['cursor'] == '' "
                 "else {'tools': []})")
        with Client(self.fake({"server/discover": DISCOVERED, "tools/list": pages})) as client:
            self.assertEqual([t["name"] for t in client.list_tools(all_pages=True)["tools"]], ["echo", "second"])
            self.assertEqual(client.list_tools(cursor="")["tools"][0]["name"], "second")

    def test_no_response_is_written_in_2026_07_28(self) -> None:
        # basic/transports/stdio, "Sending Messages": "The client MUST NOT write JSON-RPC
        # responses" (2026-07-28: the server's questions come in InputRequiredResult).  Before,
        # the server's ping was answered; in the handshake era it still is (basic/utilities/ping).
        ping = ("send({'jsonrpc': '2.0', 'id': 'p', 'method': 'ping'}); "
                "send({'jsonrpc': '2.0', 'id': 'r', 'method': 'roots/list'}); answer(request, {'tools': [TOOL]})")
        for handlers, era, answered in (({"server/discover": DISCOVERED}, "2026-07-28", []),
                                        (LEGACY, "2025-11-25", ["p", "r"])):
            sent: List[Dict[str, Any]] = []
            seen: List[Dict[str, Any]] = []
            fake = self.fake(dict(handlers, **{"tools/list": ping}))
            with self.subTest(era=era), Client(fake, list_roots_callback=roots, message_handler=seen.append,
                                               trace=sent_into(sent)) as client:
                self.assertEqual(len(client.list_tools()["tools"]), 1)
                self.assertEqual(client.protocol_version, era)
            self.assertEqual([m["id"] for m in sent if "method" not in m], answered)
            self.assertEqual([m["method"] for m in seen], ["ping", "roots/list"])  # the handler still sees them

    def test_no_task_asked_of_a_server_without_tool_tasks(self) -> None:
        # 2025-11-25 basic/utilities/tasks, "Tool-Level Negotiation": without tasks.requests.tools.call
        # in the server's capabilities "clients MUST NOT attempt to use task augmentation on that
        # server's tools, regardless of the execution.taskSupport value".  Before, task was sent.
        # With it, a tool's taskSupport decides: absent or "forbidden", never; "required", always.
        tools = ("[dict(TOOL, name=support, execution={'taskSupport': support}) for support in "
                 "('optional', 'required', 'forbidden')] + [dict(TOOL, name='absent')]")
        declared = HANDSHAKE.replace("'capabilities': {}", "'capabilities': {'tasks': {'requests': {'tools': "
                                                            "{'call': {}}}}}")
        for initialize, asked in ((HANDSHAKE, set()), (declared, {"optional", "required"})):
            sent: List[Dict[str, Any]] = []
            listing = {"tools/list": f"answer(request, {{'tools': {tools}}})"}
            fake = self.fake(dict(LEGACY, initialize=initialize, **listing))
            with self.subTest(asked=asked), Client(fake, tasks=True, trace=sent_into(sent)) as client:
                for name in ("optional", "required", "forbidden", "absent"):
                    client.call_tool(name, {"a": 1})
            calls = [m["params"] for m in sent if m.get("method") == "tools/call"]
            self.assertEqual({call["name"] for call in calls if "task" in call}, asked)

    def test_an_undeclared_elicitation_mode_is_invalid_params(self) -> None:
        # 2025-11-25 client/elicitation, "Error Handling": "Server sends an elicitation/create request
        # with a mode not declared in client capabilities: -32602".  Before, the callback got it.
        asked: List[Dict[str, Any]] = []
        for era, mode, refused in (("2025-11-25", "'telepathy'", True), ("2025-11-25", "7", True),
                                   ("2025-06-18", "'url'", True), ("2025-06-18", "'form'", False),
                                   ("2025-11-25", "'url'", False), ("2025-11-25", None, False)):
            sent: List[Dict[str, Any]] = []
            given = "" if mode is None else f"'mode': {mode}, "  # absent: form mode
            ask = (f"send({{'jsonrpc': '2.0', 'id': 'e', 'method': 'elicitation/create', 'params': {{{given}"
                   "'message': 'm', 'url': 'https://example.com', 'elicitationId': 'x', 'requestedSchema': "
                   "{'type': 'object', 'properties': {}}}}); answer(request, {'tools': [TOOL]})")
            fake = self.fake(dict(LEGACY, initialize=HANDSHAKE.replace("2025-11-25", era), **{"tools/list": ask}))
            with self.subTest(era=era, mode=mode), Client(
                    fake, elicitation_callback=lambda params: asked.append(params) or {"action": "decline"},
                    trace=sent_into(sent)) as client:
                client.list_tools()
            reply = [m for m in sent if m.get("id") == "e"][0]
            if refused:
                self.assertEqual(reply["error"]["code"], -32602)
                self.assertIn(f"Elicitation mode {str(mode).replace(chr(39), chr(34))} is not one this client declared",
                              reply["error"]["message"])
            else:
                self.assertEqual(reply["result"], {"action": "decline"})
        self.assertEqual(len(asked), 3)  # only the declared modes reached the callback

    def test_sampling_with_tools_is_refused(self) -> None:
        # 2025-11-25 schema, CreateMessageRequestParams.tools: "The client MUST return an error if this
        # field is provided but ClientCapabilities.sampling.tools is not declared" (this client declares
        # sampling without tools).  Before, the callback got the request.
        sent: List[Dict[str, Any]] = []
        asked: List[Dict[str, Any]] = []
        ask = ("send({'jsonrpc': '2.0', 'id': 's', 'method': 'sampling/createMessage', 'params': {'messages': [], "
               "'maxTokens': 5, 'tools': [{'name': 't', 'inputSchema': {'type': 'object'}}]}}); "
               "answer(request, {'tools': [TOOL]})")
        with Client(self.fake(dict(LEGACY, **{"tools/list": ask})), trace=sent_into(sent),
                    sampling_callback=lambda params: asked.append(params) or sample(params)) as client:
            client.list_tools()
        reply = [m for m in sent if m.get("id") == "s"][0]
        self.assertEqual(reply["error"], {"code": -32602, "message": "This client did not declare sampling.tools: "
                                                                    "it takes no tools in sampling"})
        self.assertEqual(asked, [])

    def test_a_timeout_for_one_call(self) -> None:
        # basic/lifecycle, "Timeouts": "SDKs and other middleware SHOULD allow these timeouts to be
        # configured on a per-request basis": call_tool(read_timeout_seconds=...), for that call only.
        fake = self.fake(dict(LEGACY, **{"tools/call": "time.sleep(30)"}))
        with Client(fake, timeout=60) as client:
            started = time.monotonic()
            with self.assertRaises(ConnectionError) as caught:
                client.call_tool("echo", {}, read_timeout_seconds=0.5)
            self.assertLess(time.monotonic() - started, 10)
            self.assertEqual(str(caught.exception), "the server did not answer tools/call within 0.5 s")
            self.assertEqual(client._transport.timeout, 60)  # the client's own again

    def test_roots_changed_are_notified(self) -> None:
        # client/roots (2025-11-25): "When roots change, clients that support listChanged MUST send
        # a notification".  Before, roots.listChanged was declared with no way to send it.
        sent: List[Dict[str, Any]] = []
        trace = sent_into(sent)
        with Client(self.fake(LEGACY), list_roots_callback=roots, trace=trace) as client:
            self.assertEqual(client.initialize_result["protocolVersion"], "2025-11-25")
            client.send_roots_list_changed()
        initialize = [m for m in sent if m.get("method") == "initialize"][0]
        self.assertEqual(initialize["params"]["capabilities"]["roots"], {"listChanged": True})
        self.assertEqual(sent[-1], {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
        sent.clear()  # 2026-07-28 has no such notification (changelog: removed); roots carry no listChanged
        with Client(self.fake({"server/discover": DISCOVERED}), list_roots_callback=roots, trace=trace) as client:
            client.send_roots_list_changed()
        self.assertEqual([m.get("method") for m in sent], ["server/discover"])
        self.assertEqual(sent[0]["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["roots"], {})
        with Client(self.fake(LEGACY)) as client, self.assertRaises(RuntimeError):
            client.send_roots_list_changed()  # no roots declared

    def test_roots_are_file_uris(self) -> None:
        # client/roots, "Root": the uri "MUST be a file:// URI".  Before, any uri was sent on.
        sent: List[Dict[str, Any]] = []
        ask = ("send({'jsonrpc': '2.0', 'id': 'r', 'method': 'roots/list'}); answer(request, {'tools': [TOOL]})")
        for uris, good in ((["https://example.com/x"], False), (["file:///a", "/home/me"], False), ([None], False),
                           (["file:///a", "FILE:///b"], True)):
            sent.clear()
            listed = [{"uri": uri} for uri in uris]
            with self.subTest(uris=uris), Client(self.fake(dict(LEGACY, **{"tools/list": ask})),
                                                 list_roots_callback=lambda listed=listed: listed,
                                                 trace=sent_into(sent)) as client:
                client.list_tools()
            reply = [m for m in sent if m.get("id") == "r"][0]
            if good:
                self.assertEqual(reply["result"], {"roots": listed})
            else:
                self.assertEqual(reply["error"]["code"], -32603)
                self.assertIn("which is not a file:// URI (client/roots)", reply["error"]["message"])

    def test_each_call_has_its_own_progress_token(self) -> None:
        # basic/utilities/progress: progress tokens "MUST be a string or integer value" and
        # "MUST be unique across all active requests": each call given a progress_callback
        # sends a token of its own, and each report reaches the callback of its own call.
        report = ("send({'jsonrpc': '2.0', 'method': 'notifications/progress', 'params': {"
                  "'progressToken': request['params']['_meta']['progressToken'], 'progress': 1, "
                  "'message': request['params']['name']}}); answer(request, {'content': [], 'isError': False})")
        for era, handlers in (("2026-07-28", {"server/discover": DISCOVERED}), ("2025-11-25", LEGACY)):
            sent: List[Dict[str, Any]] = []
            seen: Dict[str, List[Any]] = {}
            with self.subTest(era=era), Client(self.fake(dict(handlers, **{"tools/call": report})),
                                               trace=sent_into(sent)) as client:
                for name in ("a", "b", "a"):
                    client.call_tool(name, progress_callback=lambda *report, name=name, seen=seen: seen.setdefault(
                        name, []).append(report))
                tokens = [m["params"]["_meta"]["progressToken"] for m in sent if m.get("method") == "tools/call"]
                self.assertEqual(len(set(tokens)), 3, tokens)
                self.assertTrue(all(type(token) in (int, str) for token in tokens), tokens)
                self.assertEqual(seen, {"a": [(1, None, "a"), (1, None, "a")], "b": [(1, None, "b")]})

    def test_a_server_that_exits_is_restarted_in_2026_07_28(self) -> None:
        # 2026-07-28 basic/transports/stdio, "Unexpected Termination": "If the server process exits
        # unexpectedly, the client SHOULD restart it ... any in-flight requests are simply lost".
        # Before, every request after the exit raised ConnectionError.  The lost call is not sent again
        # (it may have run); the next request goes to a fresh process, probed with server/discover.
        starts = self.write("starts.txt", "")
        count = f"open({starts!r}, 'a').write('x'); "
        first = f"len(open({starts!r}).read()) == 1"
        for era, handlers in (("2026-07-28", {"server/discover": count + DISCOVERED}),
                              ("2025-11-25", dict(LEGACY, initialize=count + HANDSHAKE))):
            open(starts, "w").close()
            crash = f"os._exit(3) if {first} else answer(request, {{'content': [], 'isError': False}})"
            sent: List[Dict[str, Any]] = []
            with self.subTest(era=era), Client(self.fake(dict(handlers, **{"tools/call": crash})),
                                               trace=sent_into(sent)) as client:
                with self.assertRaises(ConnectionError) as caught:
                    client.call_tool("echo")
                self.assertIn("the server exited before answering tools/call (exit code 3)", str(caught.exception))
                if era == "2026-07-28":
                    self.assertEqual(client.call_tool("echo")["content"], [])
                    self.assertEqual(client.protocol_version, era)
                    methods = [m.get("method") for m in sent]
                    self.assertEqual(methods, ["server/discover", "tools/list", "tools/call", "server/discover",
                                               "tools/call"])
                else:  # a session ends with its process
                    with self.assertRaises(ConnectionError):
                        client.call_tool("echo")
            with open(starts) as f:
                self.assertEqual(len(f.read()), 2 if era == "2026-07-28" else 1)

    def test_a_restarted_server_is_listened_to_again(self) -> None:
        # 2026-07-28 basic/patterns/subscriptions, "Graceful Closure": "On stdio, if the connection
        # is terminated and then re-established, the client MUST re-send subscriptions/listen to
        # re-establish its subscriptions".  Before, the restart ended the streams.  The server exits
        # while the stream is read ("read"), or during a request ("call"): the new process is asked
        # with the same filter, and the stream goes on; one the new process refuses ends, saying why;
        # one whose server exits again at once is not restarted without end.
        starts = self.write("starts.txt", "")
        count = f"open({starts!r}, 'a').write('x'); "
        first = f"len(open({starts!r}).read()) == 1"
        meta = "{'_meta': {'io.modelcontextprotocol/subscriptionId': request['id']}}"
        ack = ("send({'jsonrpc': '2.0', 'method': 'notifications/subscriptions/acknowledged', 'params': dict("
               f"{meta}, notifications=request['params']['notifications'])}})")
        changed = f"send({{'jsonrpc': '2.0', 'method': 'notifications/tools/list_changed', 'params': {meta}}})"
        refuse = "send({'jsonrpc': '2.0', 'id': request['id'], 'error': {'code': -32601, 'message': 'gone'}})"
        empty = "answer(request, {'content': [], 'isError': False})"
        for case, listen, call in (("read", f"{ack}; os._exit(3) if {first} else {changed}", empty),
                                   ("call", f"{ack}; None if {first} else {changed}",
                                    f"os._exit(3) if {first} else {empty}"),
                                   ("refused", f"({ack}, os._exit(3)) if {first} else {refuse}", empty),
                                   ("again", f"{ack}; os._exit(3)", empty)):
            open(starts, "w").close()
            sent: List[Dict[str, Any]] = []
            handlers = {"server/discover": count + DISCOVERED, "subscriptions/listen": listen, "tools/call": call}
            with self.subTest(case=case), Client(self.fake(handlers), trace=sent_into(sent)) as client:
                events = client.listen(tools_list_changed=True)
                if case == "call":
                    with self.assertRaises(ConnectionError):
                        client.call_tool("echo")
                    self.assertEqual(client.call_tool("echo")["content"], [])  # (the restart, and the listen again)
                if case in ("read", "call"):
                    self.assertEqual(events.get(10), {"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                                                      "params": {"_meta": {mcp_ref.META_SUBSCRIPTION_ID: events.id}}})
                    self.assertIsNone(events.ending)
                    self.assertEqual(events.honored, {"toolsListChanged": True})
                else:
                    # A spacing longer than the monotonic clock has run: as on a machine just
                    # booted, where "never restarted" must still allow the first restart.
                    with mock.patch.object(mcp_ref, "_RELISTEN_SPACING", time.monotonic() + 600.0), \
                            self.assertRaises(ConnectionError) as cut:
                        next(events)
                    self.assertIn("the restarted server" if case == "refused" else "the server exited",
                                  str(cut.exception))
                listens = [m for m in sent if m.get("method") == "subscriptions/listen"]
                self.assertEqual([m["params"]["notifications"] for m in listens], [{"toolsListChanged": True}] * 2)
                self.assertEqual([m.get("method") for m in sent if m.get("method") in (
                    "server/discover", "subscriptions/listen")], ["server/discover", "subscriptions/listen"] * 2)
            with open(starts) as f:
                self.assertEqual(len(f.read()), 2, case)

    def test_a_modern_error_to_the_probe_is_no_fallback(self) -> None:
        # basic/versioning, "Backward Compatibility": "a recognized modern JSON-RPC error ...
        # identifies a modern server"; -32021 and -32020 are 2026-07-28's (basic/index, "Error
        # Codes"): raised as the server's, not met with initialize.  Before, initialize was sent.
        for code in (-32021, -32020):
            refuse = (f"send({{'jsonrpc': '2.0', 'id': request['id'], 'error': {{'code': {code}, "
                      "'message': 'modern', 'data': {'requiredCapabilities': {'sampling': {}}}}})")
            fake = self.fake({"server/discover": refuse, "initialize": HANDSHAKE})
            with self.subTest(code=code), self.assertRaises(MCPError) as caught:
                Client(fake).initialize()
            self.assertEqual(caught.exception.code, code)

    def test_a_probe_without_answer_falls_back_to_initialize(self) -> None:
        # basic/transports/stdio, "Backward Compatibility": a server that "does not respond within
        # a reasonable timeout" is legacy: fall back to initialize.  Before, the timeout was raised;
        # a late answer to the probe is dropped, not taken for initialize's.
        for probe in ("pass", "time.sleep(1.5); send({'jsonrpc': '2.0', 'id': request['id'], "
                              "'error': {'code': -32600, 'message': 'not initialized'}})"):
            with self.subTest(probe=probe[:10]), Client(self.fake({"server/discover": probe, "initialize": HANDSHAKE}),
                                                        timeout=1) as client:
                self.assertEqual(client.protocol_version, "2025-11-25")
                self.assertEqual(client.list_tools()["tools"][0]["name"], "echo")
        with self.assertRaises(ConnectionError):  # a revision asked for: no fallback
            Client(self.fake({"server/discover": "pass"}), protocol_version="2026-07-28", timeout=0.5).initialize()


# A stdio server that keeps every byte the client writes (its first argument, a file) and
# answers as a server of the handshake era ("legacy") or of 2026-07-28 ("modern").
RECORDER = """\
import json, sys
log, modern = open(sys.argv[1], "ab"), sys.argv[2] == "modern"
def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()
for raw in sys.stdin.buffer:
    log.write(raw)
    log.flush()
    message = json.loads(raw)
    method, id_ = message.get("method"), message.get("id")
    if method is None or id_ is None:
        continue
    result = {}
    if method == "server/discover" and not modern:
        send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "Method not found"}})
        continue
    if method == "server/discover":
        result = {"supportedVersions": ["2026-07-28"], "capabilities": {}, "serverInfo": {"name": "f", "version": "1"}}
    elif method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "f", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        if not modern:
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}})
            send({"jsonrpc": "2.0", "id": "s1", "method": "ping"})
            send({"jsonrpc": "2.0", "id": "s2", "method": "sampling/createMessage", "params": {
                "messages": [], "maxTokens": 5, "task": {"ttl": 1000}}})
        result = {"content": [{"type": "text", "text": json.dumps(message["params"]["arguments"])}]}
    send({"jsonrpc": "2.0", "id": id_, "result": result})
"""


class ClientWireTest(CliTestCase):
    """What the client writes, byte for byte (stdio) and header for header (HTTP), in both eras:
    basic/index's message rules, basic/lifecycle's order, basic/transports' framing and headers."""

    def recorded(self, era: str, **options: Any) -> List[bytes]:
        log = os.path.join(self.folder, f"sent-{era}.log")
        script = self.write("recorder.py", RECORDER)
        with Client([sys.executable, "-I", "-S", script, log, "modern" if era == "2026-07-28" else "legacy"],
                    sampling_callback=sample, elicitation_callback=answer_form, list_roots_callback=roots,
                    **options) as client:
            self.assertEqual(client.protocol_version, era)
            client.list_tools()
            client.call_tool("echo", {"text": "two\nlines, caf\u00e9 \u2603"})
            if era != "2026-07-28":
                client.send_ping()
        with open(log, "rb") as f:
            return f.read().split(b"\n")

    def test_stdio_messages_in_both_eras(self) -> None:
        for era in ERAS:
            with self.subTest(era=era):
                lines = self.recorded(era)
                self.assertEqual(lines[-1], b"")  # every message ends with a newline, none within one
                messages = [json.loads(line.decode("utf-8")) for line in lines[:-1]]  # UTF-8, one per line
                self.assertTrue(all(m["jsonrpc"] == "2.0" for m in messages))
                requests = [m for m in messages if "method" in m and "id" in m]
                ids = [m["id"] for m in requests]
                self.assertTrue(all(type(i) is int for i in ids), ids)  # never null, never reused
                self.assertEqual(len(ids), len(set(ids)))
                notifications = [m["method"] for m in messages if "method" in m and "id" not in m]
                self.assertFalse([m for m in messages if str(m.get("method")).startswith("notifications/")
                                  and "id" in m])
                replies = [m for m in messages if "method" not in m]
                self.assertEqual(messages[0]["method"], "server/discover")
                if era == "2026-07-28":
                    self.assertEqual((notifications, replies), ([], []))
                    self.assertEqual(messages[0]["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], era)
                    for meta in (m["params"]["_meta"] for m in requests):  # on every request (basic/index)
                        self.assertEqual(meta["io.modelcontextprotocol/protocolVersion"], era)
                        self.assertEqual(meta["io.modelcontextprotocol/clientInfo"]["name"], "mcp_ref")
                        self.assertEqual(meta["io.modelcontextprotocol/clientCapabilities"], {
                            "sampling": {}, "elicitation": {"form": {}, "url": {}}, "roots": {}})
                    continue
                methods = [m["method"] for m in messages if "method" in m]
                self.assertEqual(methods[1:3], ["initialize", "notifications/initialized"])
                self.assertEqual(set(requests[1]["params"]), {"protocolVersion", "capabilities", "clientInfo"})
                self.assertEqual(requests[1]["params"]["protocolVersion"], "2025-11-25")  # the latest it speaks
                self.assertEqual(requests[1]["params"]["capabilities"], {  # one for each callback given
                    "sampling": {}, "elicitation": {"form": {}, "url": {}}, "roots": {"listChanged": True}})
                self.assertEqual(len(replies), 2)  # the server's notification is not answered
                self.assertEqual(replies[0], {"jsonrpc": "2.0", "id": "s1", "result": {}})
                # A task asked of the client, which declares no tasks: done as an ordinary request.
                self.assertEqual(replies[1], {"jsonrpc": "2.0", "id": "s2", "result": sample({})})

    def test_http_headers_in_both_eras(self) -> None:
        legacy = FakeHttp(legacy_http("s-1"))
        self.addCleanup(legacy.stop)
        with Client(legacy.url, protocol_version="2025-11-25", timeout=5) as client:
            client.list_tools()
            client.call_tool("echo", {"a": 1})
        for n, (message, headers) in enumerate(legacy.seen):
            with self.subTest(era="2025-11-25", method=message.get("method")):
                self.assertEqual(headers["Accept"], "application/json, text/event-stream")
                self.assertEqual(headers["Content-Type"], "application/json")
                if n:  # after initialize: its revision and session on every request
                    self.assertEqual((headers["MCP-Protocol-Version"], headers["Mcp-Session-Id"]),
                                     ("2025-11-25", "s-1"))
                else:
                    self.assertNotIn("Mcp-Session-Id", headers)

        def modern(message: Dict[str, Any], headers: Any) -> Any:
            result = {"supportedVersions": ["2026-07-28"], "capabilities": {}, "serverInfo": {
                "name": "f", "version": "1"}} if message["method"] == "server/discover" else {"tools": []}
            return 200, {}, {"jsonrpc": "2.0", "id": message["id"], "result": result}

        server = FakeHttp(modern)
        self.addCleanup(server.stop)
        with Client(server.url, timeout=5) as client:
            client.list_tools()
        for message, headers in server.seen:
            with self.subTest(era="2026-07-28", method=message.get("method")):
                self.assertEqual(headers["MCP-Protocol-Version"], "2026-07-28")
                self.assertEqual(headers["Mcp-Method"], message["method"])
                self.assertEqual(headers["Accept"], "application/json, text/event-stream")
                self.assertNotIn("Mcp-Session-Id", headers)

    def test_task_requests_carry_the_task_id_alone(self) -> None:
        # 2025-11-25 basic/utilities/tasks: tools/call asks for the task; tasks/get and tasks/result
        # name it by their taskId, without related-task metadata ("requestors SHOULD NOT include").
        sent: List[Dict[str, Any]] = []
        with Client(FAST_POLLS, protocol_version="2025-11-25", tasks=True, trace=sent_into(sent)) as client:
            self.assertEqual(text(client.call_tool("slow_compute", {"seconds": 0.1})), "Computed result in 0.1s")
        call = [m for m in sent if m.get("method") == "tools/call"][0]
        self.assertEqual(call["params"]["task"], {})
        asked = [m for m in sent if m.get("method", "").startswith("tasks/")]
        self.assertEqual({m["method"] for m in asked}, {"tasks/get", "tasks/result"})
        self.assertEqual(len({m["params"]["taskId"] for m in asked}), 1)
        self.assertTrue(all(set(m["params"]) == {"taskId"} for m in asked), asked)


@dataclass
class Sum:
    result: int


class StructuredTest(unittest.TestCase):
    """structuredContent checked against the outputSchema, and read into a type."""

    def test_result_type(self) -> None:
        with Client([sys.executable, QUICKSTART], protocol_version="2025-11-25") as client:
            self.assertEqual(client.call_tool("add", {"a": 1, "b": 2}, result_type=int), 3)
            self.assertEqual(client.call_tool("add", {"a": 1, "b": 2}, result_type=Sum), Sum(3))
            person = client.call_tool("describe", {"name": "Ada", "tags": ["x"]}, result_type=Dict[str, Any])
            self.assertEqual(person, {"name": "Ada", "tags": ["x"], "tag_count": 1})

    def test_a_mismatch_is_refused(self) -> None:
        result = {"content": [], "structuredContent": {"result": "three"}, "isError": False}
        tool = {"name": "add", "outputSchema": {"type": "object", "properties": {"result": {"type": "integer"}},
                                                "required": ["result"]}}
        with self.assertRaises(RuntimeError) as caught:
            mcp_ref._read_structured("add", result, tool, None)
        self.assertTrue(str(caught.exception).startswith("Invalid structured content returned by tool add: "),
                        caught.exception)
        with self.assertRaises(RuntimeError) as missing:
            mcp_ref._read_structured("add", {"content": []}, tool, None)
        self.assertEqual(str(missing.exception), "Tool add has an output schema but did not return structured content")
        # A $ref that is not local is never fetched, and refused rather than left unchecked
        # (2026-07-28 basic/index, "$ref Resolution"; OutputSchemaTest).
        remote = {"name": "t", "outputSchema": {"$ref": "http://127.0.0.1:9/schema.json"}}
        with self.assertRaises(RuntimeError):
            mcp_ref._read_structured("t", result, remote, None)


HOSTILE_SEEDS = range(14)

HOSTILE_KINDS = ("deep", "wide", "refs", "enum", "pattern", "recursive", "anyof")

HOSTILE_SAID = {"deep": "its subschemas are nested more than 64 deep", "wide": "it has more than 20000 subschemas",
                "refs": "took more than 0.5 s", "anyof": "took more than 0.5 s", "enum": "Input should be [0], [1]",
                "pattern": "String should match pattern", "recursive": "nested too deeply"}


def hostile_schema(kind: str, rng: Any) -> Any:
    """(schema, value): one of the shapes that would hold a naive validator, sized by ``rng``."""
    if kind == "deep":  # a maximum schema depth
        schema: Any = {"type": "string"}
        for _ in range(rng.randint(65, 400)):
            schema = {rng.choice(["not", "items", "additionalProperties"]): schema}
        return kind, schema, [[1]]
    if kind == "wide":  # a cap on the subschemas
        return kind, {"allOf": [{"type": "string", "minLength": i} for i in range(rng.randint(20001, 60000))]}, "x"
    if kind == "refs":  # allOf of two $refs to the next: 2**n checks of one value
        n = rng.randint(30, 60)
        defs = {f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]} for i in range(n)}
        defs[f"d{n}"] = {"type": rng.choice(["integer", "string"])}
        return kind, {"$defs": defs, "$ref": "#/$defs/d0"}, 1
    if kind == "enum":  # a huge enum of unhashable values, the value not in it
        return kind, {"enum": [[i] for i in range(rng.randint(50000, 150000))]}, [-1]
    if kind == "pattern":  # catastrophic for a backtracking engine; section 30 is linear
        pattern = rng.choice(["^(a+)+$", "^(a|a)*$", "^(a|aa)+$", "(x+x+)+y", "^(\\w+\\s?)*$"])
        return kind, {"type": "object", "properties": {"s": {"pattern": pattern}}}, \
            {"s": "a" * rng.randint(20000, 60000) + "!"}
    if kind == "recursive":  # a recursive schema, a value nested past the recursion limit
        value: Any = []
        for _ in range(rng.randint(3000, 6000)):
            value = [value]
        return kind, {"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}}, "$ref": "#/$defs/n"}, value
    width = rng.randint(2, 4)  # arms that each descend and fail at the leaf: width**depth paths
    value = "x"
    for _ in range(rng.randint(25, 40)):
        value = [value]
    arm = {"type": "array", "items": {"$ref": "#/$defs/a"}}
    return kind, {"$defs": {"a": {"anyOf": [{"type": "integer"}] + [arm] * width}}, "$ref": "#/$defs/a"}, value


class OutputSchemaTest(CliTestCase):
    """A server's outputSchema that this client cannot check by: refused with an error saying why
    (2025-11-25 and 2026-07-28 basic/index, "JSON Schema Usage"), before the call is sent, over stdio
    in both eras (the rule is the client's, the same over HTTP: _read_structured and call_tool)."""

    def calls(self, schema: Dict[str, Any]) -> Any:
        """(exception or result, the methods sent) of call_tool("t") for a tool of ``schema``, in each era."""
        tool = json.dumps({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema})
        listed = f"answer(request, {{'tools': [json.loads({tool!r})]}})"
        call = "answer(request, {'content': [], 'structuredContent': {'n': 1}})"
        for era, handlers in (("2026-07-28", {"server/discover": DISCOVERED}), ("2025-11-25", LEGACY)):
            sent: List[Dict[str, Any]] = []
            fake = self.fake(dict(handlers, **{"tools/list": listed, "tools/call": call}))
            with Client(fake, trace=sent_into(sent)) as client:
                try:
                    outcome: Any = client.call_tool("t")
                except RuntimeError as exc:
                    outcome = exc
            yield era, outcome, [m.get("method") for m in sent]

    def test_another_dialect_is_refused_before_the_call(self) -> None:
        # "They MUST handle unsupported dialects gracefully by returning an appropriate error
        # indicating the dialect is not supported."  Before, draft-07's schema was checked as 2020-12.
        for dialect in ("http://json-schema.org/draft-04/schema#", "https://json-schema.org/draft/2019-09/schema",
                        "https://example.com/my-dialect"):
            schema = {"$schema": dialect, "type": "object", "properties": {"n": {"type": "integer"}}}
            for era, outcome, methods in self.calls(schema):
                with self.subTest(dialect=dialect, era=era):
                    self.assertIsInstance(outcome, RuntimeError)
                    self.assertEqual(str(outcome), f"Tool t was not called: its outputSchema cannot be used to "
                                                   f"check the result: it declares $schema {dialect!r}, a JSON Schema "
                                                   f"dialect mcp_ref does not support (it validates JSON Schema "
                                                   f"2020-12 only: https://json-schema.org/draft/2020-12/schema)")
                    self.assertNotIn("tools/call", methods)
        for dialect in ("https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#"):
            schema = {"$schema": dialect, "type": "object", "properties": {"n": {"type": "integer"}}}
            for era, outcome, methods in self.calls(schema):
                with self.subTest(dialect=dialect, era=era):
                    self.assertEqual((outcome["structuredContent"], methods[-1]), ({"n": 1}, "tools/call"))

    def test_draft_07_and_06_are_read_by_their_own_rules(self) -> None:
        # The TypeScript SDK publishes draft-07 outputSchemas (zod's); the client reads them
        # by draft-07's rules (basic/index: "SHOULD document which additional dialects they
        # support"), so its tools are called and checked, never refused.
        for dialect in ("http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-06/schema"):
            schema = {"$schema": dialect, "type": "object", "properties": {"n": {"type": "integer"}}}
            for era, outcome, methods in self.calls(schema):
                with self.subTest(dialect=dialect, era=era):
                    self.assertEqual((outcome["structuredContent"], methods[-1]), ({"n": 1}, "tools/call"))
        draft = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                 "definitions": {"n": {"type": "integer"}},
                 "properties": {"pair": {"type": "array", "items": [{"$ref": "#/definitions/n"}],
                                         "additionalItems": {"type": "string"}},
                                "r": {"$ref": "#/definitions/n", "type": "string"}},  # beside $ref: ignored
                 "dependencies": {"a": ["b"], "c": {"required": ["d"]}}}
        tool = {"name": "t", "outputSchema": draft}
        for good in ({"pair": [1, "x", "y"]}, {"r": 3}, {"a": 1, "b": 2}, {"c": 1, "d": 1}, {}):
            with self.subTest(good=good):
                result = {"content": [], "structuredContent": good}
                self.assertIs(mcp_ref._read_structured("t", result, tool, None), result)
        for bad in ({"pair": ["1"]}, {"pair": [1, 2]}, {"r": "x"}, {"a": 1}, {"c": 1}):
            with self.subTest(bad=bad), self.assertRaisesRegex(RuntimeError, "Invalid structured content"):
                mcp_ref._read_structured("t", {"content": [], "structuredContent": bad}, tool, None)

    def test_a_schema_without_dollar_schema_is_read_as_2020_12(self) -> None:
        # basic/index, "JSON Schema Usage": implementations "MUST support JSON Schema 2020-12 for
        # schemas without an explicit $schema field": that draft's own keywords (prefixItems, $defs,
        # dependentRequired) are checked, not skipped as unknown words (and unevaluated*, dependentSchemas:
        # test_unevaluated_and_dependent_schemas_are_checked).
        schema = {"type": "object", "$defs": {"n": {"type": "integer"}},
                  "properties": {"pair": {"type": "array", "prefixItems": [{"$ref": "#/$defs/n"}, {"type": "string"}]},
                                 "a": {}, "b": {}},
                  "dependentRequired": {"a": ["b"]}}
        tool = {"name": "t", "outputSchema": schema}
        good = {"content": [], "structuredContent": {"pair": [1, "x"], "a": 1, "b": 2}}
        self.assertIs(mcp_ref._read_structured("t", good, tool, None), good)
        for bad in ({"pair": ["1", "x"]}, {"pair": [1, 2]}, {"a": 1}):
            with self.subTest(bad=bad), self.assertRaisesRegex(RuntimeError, "^Invalid structured content"):
                mcp_ref._read_structured("t", {"content": [], "structuredContent": bad}, tool, None)

    def test_unevaluated_and_dependent_schemas_are_checked(self) -> None:
        # basic/index, "JSON Schema Usage": 2020-12's unevaluatedProperties, unevaluatedItems and
        # dependentSchemas checked (before, ignored: every value passed), $dynamicRef across resources refused
        # before the call (never half-checked).
        schema = {"type": "object", "properties": {"a": {}, "l": {"prefixItems": [{}], "unevaluatedItems": False}},
                  "dependentSchemas": {"a": {"properties": {"b": {"type": "integer"}}, "required": ["b"]}},
                  "unevaluatedProperties": False}
        tool = {"name": "t", "outputSchema": schema}
        for on in BOTH:
            with self.subTest(accelerated=on), accelerators(on):
                good = {"content": [], "structuredContent": {"a": 1, "b": 2, "l": [1]}}
                self.assertIs(mcp_ref._read_structured("t", good, dict(tool), None), good)
                for bad, said in (({"b": 2}, "b\n  Extra inputs are not permitted"), ({"a": 1}, "b\n  Field required"),
                                  ({"l": [1, 2]}, "l.1\n  Array item not permitted"),
                                  ({"a": 1, "b": "x"}, "b\n  Input should be a valid integer")):
                    with self.subTest(bad=bad), self.assertRaisesRegex(RuntimeError, "^Invalid structured content"):
                        try:
                            mcp_ref._read_structured("t", {"content": [], "structuredContent": bad}, dict(tool), None)
                        except RuntimeError as exc:
                            self.assertIn(said, str(exc))
                            raise
        for era, outcome, _methods in self.calls(schema):
            with self.subTest(era=era):  # the server's {"n": 1}: "n" evaluated by no keyword
                self.assertIsInstance(outcome, RuntimeError)
                self.assertIn("n\n  Extra inputs are not permitted", str(outcome))
        dynamic = {"type": "object", "$defs": {"n": {"$id": "urn:n", "$dynamicAnchor": "n"}},
                   "properties": {"n": {"$dynamicRef": "#n"}}}
        for era, outcome, methods in self.calls(dynamic):
            with self.subTest(era=era):
                self.assertIn("mcp_ref does not support $dynamicRef", str(outcome))
                self.assertNotIn("tools/call", methods)

    def test_a_ref_it_cannot_resolve_is_refused(self) -> None:
        # 2026-07-28 basic/index, "$ref Resolution": never fetched (MUST NOT), and "Schemas that fail to
        # validate due to an unresolved external $ref SHOULD be rejected rather than silently treated as
        # permissive".  Before, the content went unchecked.
        for ref, said in (("http://127.0.0.1:9/schema.json", "only local $ref is supported"),
                          ("other.json#/x", "only local $ref is supported"), ("#/$defs/missing", "points at nothing")):
            for era, outcome, methods in self.calls({"type": "object", "properties": {"n": {"$ref": ref}}}):
                with self.subTest(ref=ref, era=era):
                    self.assertIsInstance(outcome, RuntimeError)
                    self.assertIn(said, str(outcome))
                    self.assertIn("mcp_ref never fetches a schema", str(outcome))
                    self.assertNotIn("tools/call", methods)

    def test_hostile_schemas_are_bounded(self) -> None:
        # 2026-07-28 basic/index, "Composition-Keyword Resource Use": "a maximum schema depth, a cap
        # on the total number of subschemas, or a per-validation time budget".  Before, the "refs"
        # and "anyof" shapes ran for ever (2**n checks), "deep" raised RecursionError, "wide" compiled
        # tens of thousands of closures.  Each seed: a clear RuntimeError, or the value judged, in time.
        import random

        with mock.patch.object(mcp_ref, "_SCHEMA_CHECK_SECONDS", 0.5):
            for seed in HOSTILE_SEEDS:
                kind, schema, value = hostile_schema(HOSTILE_KINDS[seed % len(HOSTILE_KINDS)], random.Random(seed))
                tool = {"name": "t", "outputSchema": schema}
                start = time.monotonic()
                with self.subTest(seed=seed, kind=kind):
                    with self.assertRaises(RuntimeError) as caught:
                        mcp_ref._read_structured("t", {"content": [], "structuredContent": value}, tool, None)
                    self.assertLess(time.monotonic() - start, 4.0, kind)  # (the budget: 0.5 s)
                    said = str(caught.exception)
                    self.assertLess(len(said), 4200)  # an enum of 150,000 values is not repeated whole
                    self.assertTrue(said.startswith(("Could not check the structured content of tool t: ",
                                                     "Invalid structured content returned by tool t: ")), said[:300])
                    self.assertIn(HOSTILE_SAID[kind], said)
        with self.subTest("over stdio: refused before the call"):
            for _era, outcome, methods in self.calls({"allOf": [{"type": "object"}] * 20001}):
                self.assertEqual(str(outcome), "Tool t was not called: its outputSchema cannot be used to check the "
                                               "result: it has more than 20000 subschemas")
                self.assertNotIn("tools/call", methods)


class HttpTest(Everything, unittest.TestCase):
    endpoint: InProcess

    @classmethod
    def setUpClass(cls) -> None:
        cls.endpoint = InProcess(load_everything())
        cls.url = f"http://127.0.0.1:{cls.endpoint.port}/mcp"

    @classmethod
    def tearDownClass(cls) -> None:
        cls.endpoint.stop()

    def connect(self, protocol_version: Optional[str], **options: Any) -> Client:
        return Client(self.url, protocol_version=protocol_version, **options)

    def polls_fast(self) -> Any:
        return mock.patch.object(mcp_ref, "_TASK_POLL_MS", 50)

    def test_elicitation_in_the_handshake_eras(self) -> None:
        # The answer goes on a connection of its own, while the call's SSE
        # stream is still being read (it crashed with ResponseNotReady).
        for era in ("2025-06-18", "2025-11-25"):
            with self.subTest(era=era), self.connect(era, elicitation_callback=answer_form) as client:
                self.assertEqual(text(client.call_tool("test_streaming_elicitation")), "action=accept")

    def test_command_line_elicitation_over_http(self) -> None:
        # The command line's callback, a person answering at the terminal.
        answer = {"action": "accept", "content": {"response": "yes"}}
        with mock.patch.object(mcp_ref, "_person_at_terminal", lambda: True), \
                mock.patch.object(mcp_ref, "_elicit_at_terminal", lambda params: answer):
            for era in ("2025-06-18", "2025-11-25"):
                with self.subTest(era=era), \
                        self.connect(era, elicitation_callback=mcp_ref._answer_elicitation) as client:
                    self.assertEqual(text(client.call_tool("test_streaming_elicitation")), "action=accept")

    def test_session_ends_with_delete(self) -> None:
        client = self.connect("2025-11-25")
        client.initialize()
        session = client._transport.session
        self.assertTrue(session)
        client.close()
        gone = self.endpoint.in_session(session, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        self.assertEqual(gone.status, 404)

    def test_a_session_the_server_ended_is_started_anew(self) -> None:
        # 2025-11-25 basic/transports, "Session Management": on HTTP 404 for a request with
        # its session id the client "MUST start a new session by sending a new InitializeRequest
        # without a session ID attached".  Before, the 404 was raised and the dead id kept.
        for era in ("2025-06-18", "2025-11-25"):
            with self.subTest(era=era), self.connect(era) as client:
                self.assertTrue(client.list_tools()["tools"])
                old = client._transport.session
                session = self.endpoint.app.table.open[old]
                self.endpoint.app.table.remove(session)  # the server ends it, as on its idle timeout
                session.end()
                self.assertEqual(text(client.call_tool("test_simple_text")),
                                 "This is a simple text response for testing.")
                self.assertNotIn(client._transport.session, (None, old))
                self.assertEqual(client.protocol_version, era)

    def test_resumed_after_the_server_closes_the_stream(self) -> None:
        # test_reconnection closes the call's SSE stream; the result comes on a
        # GET with Last-Event-ID (basic/transports, "Resumability and Redelivery").
        with self.connect("2025-11-25") as client:
            self.assertEqual(text(client.call_tool("test_reconnection")), "Reconnection test completed")

    def test_server_messages_on_the_get_stream(self) -> None:
        seen: List[Dict[str, Any]] = []
        arrived = threading.Event()

        def handler(message: Dict[str, Any]) -> None:
            seen.append(message)
            if message.get("method") == "notifications/tools/list_changed":
                arrived.set()

        with self.connect("2025-11-25", message_handler=handler) as client:
            client.call_tool("test_trigger_tool_change")
            self.assertTrue(arrived.wait(10), seen)

    def test_an_answer_that_is_not_http_is_a_connection_error(self) -> None:
        listener = socket.create_server(("127.0.0.1", 0))
        self.addCleanup(listener.close)

        def garbage() -> None:
            conn, _ = listener.accept()
            with conn:
                conn.recv(65536)
                conn.sendall(b"garbage\r\n\r\n")

        threading.Thread(target=garbage, daemon=True).start()
        with self.assertRaises(ConnectionError) as caught:
            Client(f"http://127.0.0.1:{listener.getsockname()[1]}/mcp", timeout=10).initialize()
        self.assertIn("not HTTP", str(caught.exception))


class FakeHttp:
    """A fake Streamable HTTP server on a thread: ``answer(message, headers)`` gives the
    POST's (status, headers, JSON body), or None to close the connection unanswered;
    a GET is 405 (no stream), a DELETE 200.  ``seen`` holds each POST's (message, headers)."""

    def __init__(self, answer: Any) -> None:
        import http.server
        import json

        seen: List[Any] = []
        self.seen = seen

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                seen.append((message, dict(self.headers)))
                reply = answer(message, self.headers)
                if reply is None:
                    self.close_connection = True
                    return
                status, headers, body = reply
                data = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                for name, value in dict(headers, **{"Content-Type": "application/json",
                                                    "Content-Length": str(len(data))}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                self.send_response(405)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_DELETE = do_GET  # noqa: N815

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]  # a client's reset is the test's
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/mcp"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def legacy_http(session: str = "s1") -> Any:
    """A 2025-11-25 server's answers: initialize opens ``session``; tools/list lists echo."""
    def answer(message: Dict[str, Any], headers: Any) -> Any:
        result = {"initialize": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {
            "name": "f", "version": "1"}}, "tools/list": {"tools": [{"name": "echo", "inputSchema": {
                "type": "object"}}]}}.get(message.get("method"), {})
        if "id" not in message:
            return 202, {}, None
        return 200, {"Mcp-Session-Id": session} if message["method"] == "initialize" else {}, {
            "jsonrpc": "2.0", "id": message["id"], "result": result}
    return answer


FORM = {"type": "object", "properties": {"name": {"type": "string", "minLength": 2},
                                         "age": {"type": "integer", "minimum": 0, "default": 1}},
        "required": ["name"]}

# What elicitation_callback answers, and whether that fits FORM (its defaults filled).
FORM_ANSWERS = [({"action": "accept", "content": {"name": "Ada", "age": 36}}, True),
                ({"action": "accept", "content": {"name": "Ada"}}, True),  # age: its default
                ({"action": "decline"}, True), ({"action": "cancel"}, True),
                ({"action": "accept", "content": {"name": "A"}}, False),
                ({"action": "accept", "content": {"age": 3}}, False),
                ({"action": "accept", "content": {"name": "Ada", "age": -1}}, False),
                ({"action": "accept", "content": {"name": "Ada", "age": "36"}}, False),
                ({"action": "accept"}, False)]


def input_round(schema: Dict[str, Any]) -> Dict[str, Any]:
    """A 2026-07-28 tools/call answer that asks the client to fill a form of ``schema``."""
    return {"resultType": "input_required", "inputRequests": {"form": {"method": "elicitation/create", "params": {
        "message": "Who?", "requestedSchema": schema}}}}


class ElicitationCheckTest(CliTestCase):
    """client/elicitation, "Form Mode Security": "Clients SHOULD validate all responses against the
    provided schema".  Content that does not fit is the callback's bug and never sent: the server's
    request is answered -32603 saying so (2025-11-25), an input round's raised to the caller as
    ValueError (2026-07-28: the server holds no request to answer); a schema the client cannot check
    by is -32602 before the callback is asked.  Before, any content was sent on."""

    def test_over_stdio_in_the_handshake_era(self) -> None:
        draft_04 = dict(FORM, **{"$schema": "http://json-schema.org/draft-04/schema#"})  # a dialect not read
        for answer, fits in FORM_ANSWERS + [(None, False)]:
            schema = FORM if answer is not None else draft_04
            ask = (f"send({{'jsonrpc': '2.0', 'id': 'e', 'method': 'elicitation/create', 'params': {{'message': "
                   f"'Who?', 'requestedSchema': json.loads({json.dumps(schema)!r})}}}}); "
                   f"answer(request, {{'tools': [TOOL]}})")
            sent: List[Dict[str, Any]] = []
            asked: List[Any] = []
            with self.subTest(answer=answer), Client(
                    self.fake(dict(LEGACY, **{"tools/list": ask})), trace=sent_into(sent),
                    elicitation_callback=lambda params, answer=answer, asked=asked: asked.append(params) or dict(
                        answer or {"action": "decline"})) as client:
                client.list_tools()
            reply = [m for m in sent if m.get("id") == "e"][0]
            if answer is None:  # another dialect: refused before the callback
                self.assertEqual((reply["error"]["code"], asked), (-32602, []))
                self.assertIn("The requestedSchema cannot be used: it declares $schema", reply["error"]["message"])
            elif fits:
                content = answer.get("content")
                self.assertEqual(reply["result"], dict(answer, content=dict(content, age=content.get("age", 1)))
                                 if content else answer)
            else:
                self.assertEqual(reply["error"]["code"], -32603)
                self.assertIn("elicitation_callback's content does not fit the requestedSchema: ",
                              reply["error"]["message"])
                self.assertNotIn("\n", reply["error"]["message"])

    def check_input_rounds(self, connect: Any, calls: Any) -> None:
        """2026-07-28: each answer given to an input round of ``connect(callback)``'s server;
        ``calls()``: the params of the tools/call it got since ``connect``."""
        for answer, fits in FORM_ANSWERS:
            with self.subTest(answer=answer), connect(lambda params, answer=answer: dict(answer)) as client:
                if fits:
                    self.assertEqual(client.call_tool("ask")["structuredContent"],
                                     calls()[-1]["inputResponses"]["form"])
                    self.assertEqual(len(calls()), 2)
                else:
                    with self.assertRaises(ValueError) as caught:
                        client.call_tool("ask")
                    self.assertIn("elicitation_callback's content does not fit the requestedSchema: ",
                                  str(caught.exception))
                    self.assertEqual(len(calls()), 1)  # never sent

    def test_input_rounds_over_stdio(self) -> None:
        record = self.write("calls.jsonl", "")
        rounds = (f"open({record!r}, 'a').write(json.dumps(request['params']) + '\\n'); answer(request, "
                  f"{{'content': [], 'structuredContent': request['params']['inputResponses']['form']}} "
                  f"if 'inputResponses' in request['params'] else json.loads({json.dumps(input_round(FORM))!r}))")
        fake = self.fake({"server/discover": DISCOVERED, "tools/call": rounds})

        def connect(callback: Any) -> Client:
            open(record, "w").close()
            return Client(fake, elicitation_callback=callback)

        def calls() -> List[Dict[str, Any]]:
            with open(record) as f:
                return [json.loads(line) for line in f]

        self.check_input_rounds(connect, calls)

    def test_input_rounds_over_http(self) -> None:
        calls: List[Dict[str, Any]] = []

        def answer(message: Dict[str, Any], headers: Any) -> Any:
            method, params = message.get("method"), message.get("params") or {}
            if "id" not in message:
                return 202, {}, None
            if method == "server/discover":
                result: Any = {"supportedVersions": ["2026-07-28"], "capabilities": {}, "serverInfo": {
                    "name": "f", "version": "1"}}
            elif method == "tools/call":
                calls.append(params)
                result = {"content": [], "structuredContent": params["inputResponses"]["form"]} \
                    if "inputResponses" in params else input_round(FORM)
            else:
                result = {"tools": [{"name": "ask", "inputSchema": {"type": "object"}}]}
            return 200, {}, {"jsonrpc": "2.0", "id": message["id"], "result": result}

        server = FakeHttp(answer)
        self.addCleanup(server.stop)

        def connect(callback: Any) -> Client:
            calls.clear()
            return Client(server.url, elicitation_callback=callback, timeout=5)

        self.check_input_rounds(connect, lambda: calls)


class HttpMustTest(unittest.TestCase):
    """The client's MUSTs over HTTP, against FakeHttp."""

    def fake(self, answer: Any) -> FakeHttp:
        server = FakeHttp(answer)
        self.addCleanup(server.stop)
        return server

    def test_a_probe_refused_falls_back_to_initialize(self) -> None:
        # basic/versioning, "Backward Compatibility": a legacy server is met with initialize;
        # one that closes the connection on server/discover is one.  Before: ConnectionError.
        legacy = legacy_http()
        server = self.fake(lambda message, headers: None if message.get("method") == "server/discover"
                           else legacy(message, headers))
        with Client(server.url, timeout=5) as client:
            self.assertEqual(client.protocol_version, "2025-11-25")
            self.assertEqual(client.list_tools()["tools"][0]["name"], "echo")
        methods = [m.get("method") for m, _ in server.seen]
        self.assertEqual(methods[methods.index("initialize"):],
                         ["initialize", "notifications/initialized", "tools/list"])
        self.assertNotIn("Mcp-Session-Id", server.seen[methods.index("initialize")][1])

    def test_x_mcp_header_in_2026_07_28(self) -> None:
        # 2026-07-28 basic/transports/streamable-http, "Custom Headers from Tool Parameters": a tool
        # whose x-mcp-header breaks the constraints is left out of tools/list; a valid one's argument
        # goes in Mcp-Param-*, Base64-encoded where not plain ASCII, omitted when null or absent;
        # Mcp-Method and Mcp-Name mirror the body.
        good = {"name": "r\u00e9gion", "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"}, "n": {"type": "integer", "x-mcp-header": "N"}}}}
        bad = [{"name": name, "inputSchema": {"type": "object", "properties": {"a": schema}}} for name, schema in (
            ("number", {"type": "number", "x-mcp-header": "A"}), ("space", {"type": "string", "x-mcp-header": "A b"}),
            ("empty", {"type": "string", "x-mcp-header": ""}),
            ("items", {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}))]

        def answer(message: Dict[str, Any], headers: Any) -> Any:
            result = {"server/discover": {"supportedVersions": ["2026-07-28"], "capabilities": {}, "serverInfo": {
                "name": "f", "version": "1"}}, "tools/list": {"tools": [good, *bad]}}.get(
                message["method"], {"content": []})
            return 200, {}, {"jsonrpc": "2.0", "id": message["id"], "result": result}

        server = self.fake(answer)
        warned = io.StringIO()
        with Client(server.url, timeout=5) as client:
            with contextlib.redirect_stderr(warned):
                self.assertEqual([tool["name"] for tool in client.list_tools()["tools"]], ["r\u00e9gion"])
            # "Clients SHOULD log a warning when rejecting a tool definition, including the tool name
            # and the reason for rejection" (before, it was left out in silence)
            self.assertEqual([line.split("'")[1] for line in warned.getvalue().splitlines()],
                             ["number", "space", "empty", "items"])
            self.assertIn("an x-mcp-header of its inputSchema breaks the rules", warned.getvalue())
            client.call_tool("r\u00e9gion", {"region": "Z\u00fcrich", "n": 7})
            client.call_tool("r\u00e9gion", {"region": "plain", "n": None})
            client.call_tool("r\u00e9gion", {})
        calls = [headers for message, headers in server.seen if message["method"] == "tools/call"]
        self.assertEqual([{k: v for k, v in h.items() if k.startswith("Mcp-Param-")} for h in calls],
                         [{"Mcp-Param-Region": "=?base64?WsO8cmljaA==?=", "Mcp-Param-N": "7"},
                          {"Mcp-Param-Region": "plain"}, {}])
        self.assertEqual({(h["Mcp-Method"], h["Mcp-Name"]) for h in calls}, {("tools/call", "=?base64?csOpZ2lvbg==?=")})

    def test_a_header_mismatch_lists_the_tools_again(self) -> None:
        # 2026-07-28 basic/transports/streamable-http: on a HeaderMismatch "the client SHOULD call
        # tools/list to check whether the tool's x-mcp-header annotations have changed".  The tool
        # gained one since it was listed: listed again, the call goes out once more with its header.
        # Before, the -32020 was raised.
        listed: List[int] = []

        def answer(message: Dict[str, Any], headers: Any) -> Any:
            reply: Dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
            if message["method"] == "server/discover":
                reply["result"] = {"supportedVersions": ["2026-07-28"], "capabilities": {},
                                   "serverInfo": {"name": "f", "version": "1"}}
            elif message["method"] == "tools/list":
                listed.append(1)
                region = {"type": "string"} if len(listed) == 1 else {"type": "string", "x-mcp-header": "Region"}
                reply["result"] = {"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {
                    "region": region}}}]}
            elif headers.get("Mcp-Param-Region") != message["params"]["arguments"]["region"]:
                reply["error"] = {"code": -32020, "message": "Header mismatch: Mcp-Param-Region"}
                return 400, {}, reply
            else:
                reply["result"] = {"content": [{"type": "text", "text": "ok"}]}
            return 200, {}, reply

        server = self.fake(answer)
        with Client(server.url, timeout=5) as client:
            self.assertEqual(text(client.call_tool("t", {"region": "eu"})), "ok")
            self.assertEqual(text(client.call_tool("t", {"region": "us"})), "ok")
        self.assertEqual([m["method"] for m, _ in server.seen][1:],
                         ["tools/list", "tools/call", "tools/list", "tools/call", "tools/call"])

    def test_a_session_id_outside_visible_ascii_is_refused(self) -> None:
        # 2025-11-25 basic/transports: "The session ID MUST only contain visible ASCII characters
        # (ranging from 0x21 to 0x7E)".  Before, it was taken and echoed in every request.
        for session in ("a b", "a\tb", "caf\u00e9", "a\x7fb"):
            server = self.fake(legacy_http(session))
            with self.subTest(session=session), self.assertRaises(ConnectionError) as caught:
                Client(server.url, protocol_version="2025-11-25", timeout=5).initialize()
            self.assertIn("holds characters other than visible ASCII (0x21-0x7E)", str(caught.exception))
            self.assertEqual([m.get("method") for m, _ in server.seen], ["initialize"])  # nothing echoed it
        server = self.fake(legacy_http("!~"))
        with Client(server.url, protocol_version="2025-11-25", timeout=5) as client:
            client.list_tools()
        self.assertEqual(server.seen[-1][1].get("Mcp-Session-Id"), "!~")


class HeadersTest(unittest.TestCase):
    """What goes in the headers of a 2026-07-28 request (basic/transports)."""

    def test_param_headers(self) -> None:
        schema = {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"}, "n": {"type": "integer", "x-mcp-header": "N"},
            "on": {"type": "boolean", "x-mcp-header": "On"}, "text": {"type": "string", "x-mcp-header": "Text"},
            "gone": {"type": "string", "x-mcp-header": "Gone"}, "plain": {"type": "string"}}}
        headers = mcp_ref._mcp_param_headers(schema, {"region": "us-west1", "n": 42, "on": False,
                                                      "text": " Hello, 世界", "gone": None, "plain": "x"})
        self.assertEqual(headers, {"Mcp-Param-Region": "us-west1", "Mcp-Param-N": "42", "Mcp-Param-On": "false",
                                   "Mcp-Param-Text": "=?base64?IEhlbGxvLCDkuJbnlYw=?="})

    def test_an_integer_beyond_javascripts_safe_range_is_not_sent(self) -> None:
        # 2026-07-28 basic/transports, "x-mcp-header": integer values MUST be within
        # -(2**53 - 1) .. 2**53 - 1; the call is refused before anything is sent.
        schema = {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}}
        for n in (2 ** 53 - 1, -(2 ** 53 - 1)):
            self.assertEqual(mcp_ref._mcp_param_headers(schema, {"n": n}), {"Mcp-Param-N": str(n)})
        for n in (2 ** 53, -(2 ** 53), 10 ** 30):
            with self.subTest(n=n), self.assertRaisesRegex(ValueError, "outside JavaScript's safe integer range"):
                mcp_ref._mcp_param_headers(schema, {"n": n})

    def test_auth_hook_and_fixed_headers(self) -> None:
        # headers(url) before each request; unauthorized(...) on a 401, or a 403
        # for insufficient_scope: True, the request is sent once more.
        class Auth:
            def __init__(self, tokens: List[str]) -> None:
                self.tokens, self.calls = tokens, []  # type: ignore[var-annotated]

            def headers(self, url: str) -> Dict[str, str]:
                return {"Authorization": f"Bearer {self.tokens[0]}"}

            def unauthorized(self, url: str, status: int, www_authenticate: str) -> bool:
                self.calls.append((status, www_authenticate.split(",")[0]))
                if len(self.tokens) == 1:
                    return False
                self.tokens.pop(0)
                return True

        class Token:
            def __init__(self, scopes: List[str]) -> None:
                self.scopes, self.expires_at, self.client_id = scopes, None, "u"
                self.resource = "http://127.0.0.1/mcp"

        settings = type("Settings", (), {"required_scopes": ["mcp"], "resource_server_url": "http://127.0.0.1/mcp",
                                         "issuer_url": "https://auth.example.com"})()
        tokens = {"good": Token(["mcp"]), "weak": Token([])}
        verifier = type("Verifier", (), {"verify_token": staticmethod(tokens.get)})()
        server = mcp_ref.MCPServer("auth", token_verifier=verifier, auth=settings)
        server.add_tool(lambda: "ok", name="test_simple_text")
        endpoint = InProcess(server)
        url = f"http://127.0.0.1:{endpoint.port}/mcp"
        try:
            for era in ERAS:
                with self.subTest(era=era):
                    auth = Auth(["old", "weak", "good"])
                    with Client(url, protocol_version=era, auth=auth, headers={"X-Trace": "1"}) as client:
                        self.assertEqual(text(client.call_tool("test_simple_text")), "ok")
                    self.assertEqual(auth.calls, [(401, 'Bearer error="invalid_token"'),
                                                  (403, 'Bearer error="insufficient_scope"')])
            refused = Auth(["old"])
            with self.assertRaises(MCPError) as caught:
                Client(url, auth=refused, protocol_version="2026-07-28").initialize()
            self.assertIn("401", caught.exception.message)
            self.assertEqual(len(refused.calls), 1)
        finally:
            endpoint.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # type: ignore[no-any-return]


@unittest.skipUnless(HAVE_SDK, "the official SDK (pip install 'mcp==2.3.*') is not installed; .ci/run installs it")
class SdkServerTest(unittest.TestCase):
    """Interop: the same example file served by the SDK's MCPServer (testdata/sdk_launcher.py)."""

    def check(self, client: Client) -> None:
        with client:
            self.assertEqual([t["name"] for t in client.list_tools()["tools"]], ["add", "describe", "slow_echo"])
            self.assertEqual(client.call_tool("add", {"a": 2, "b": 3})["structuredContent"], {"result": 5})
            self.assertEqual(client.call_tool("add", {"a": 2, "b": 3}, result_type=int), 5)

    def test_stdio(self) -> None:
        for era in (None,) + ERAS + ("2025-03-26",):
            with self.subTest(era=era):
                self.check(Client([sys.executable, LAUNCHER, QUICKSTART], protocol_version=era))

    def test_http(self) -> None:
        port = free_port()
        server = subprocess.Popen([sys.executable, LAUNCHER, QUICKSTART, "--http", str(port)],
                                  stderr=subprocess.DEVNULL)
        try:
            wait_for_port(port)
            for era in (None,) + ERAS + ("2025-03-26",):
                with self.subTest(era=era):
                    self.check(Client(f"http://127.0.0.1:{port}/mcp", protocol_version=era))
        finally:
            server.terminate()
            server.wait(10)


NODE_DIR = os.environ.get("MCP_REF_NODE_DIR", os.path.join(HERE, ".cache", "node"))

HAVE_TS_SDK = bool(shutil.which("node")) and os.path.isdir(
    os.path.join(NODE_DIR, "node_modules", "@modelcontextprotocol", "sdk"))


@unittest.skipUnless(HAVE_TS_SDK, f"node or the TypeScript SDK is missing (npm install --prefix {NODE_DIR} "
                                  "@modelcontextprotocol/sdk); .ci/run installs it")
class TypeScriptServerTest(unittest.TestCase):
    """Interop: the TypeScript SDK's server (testdata/ts_server.mjs), which
    speaks the handshake era only: the client falls back to it."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.script = os.path.join(NODE_DIR, "ts_server.mjs")  # beside its node_modules
        copy_into(os.path.join(HERE, "tests", "testdata", "ts_server.mjs"), cls.script)

    def check(self, client: Client) -> None:
        with client:
            self.assertEqual(client.protocol_version, "2025-11-25")
            self.assertEqual(client.call_tool("add", {"a": 1, "b": 2}, result_type=int), 3)
            self.assertEqual(text(client.call_tool("ask")), "accept Ada")
            self.assertEqual(text(client.call_tool("sample")), "Paris")

    def test_stdio(self) -> None:
        self.check(Client(["node", self.script], elicitation_callback=answer_form, sampling_callback=sample))

    def test_http(self) -> None:
        port = free_port()
        server = subprocess.Popen(["node", self.script, "--http", str(port)], stderr=subprocess.PIPE)
        try:
            self.assertEqual(server.stderr.readline(), b"listening\n")  # type: ignore[union-attr]
            self.check(Client(f"http://127.0.0.1:{port}/mcp", elicitation_callback=answer_form,
                              sampling_callback=sample))
        finally:
            server.terminate()
            server.wait(10)
            server.stderr.close()  # type: ignore[union-attr]


# A 2025-11-25 server whose task needs input: input_required at once, and the
# question sent only on tasks/result (as the TypeScript SDK queues it); a client
# that keeps polling tasks/get is told so after 40 polls.
QUEUED_QUESTION = r'''
import json, sys
def send(message):
    sys.stdout.write(json.dumps(dict(message, jsonrpc="2.0")) + "\n")
    sys.stdout.flush()
task = {"taskId": "t1", "status": "input_required", "createdAt": "2025-11-25T10:30:00Z",
        "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 60000, "pollInterval": 20}
polls = 0
for line in sys.stdin:
    message = json.loads(line)
    method, id_ = message.get("method"), message.get("id")
    if method == "initialize":
        send({"id": id_, "result": {"protocolVersion": "2025-11-25", "serverInfo": {"name": "queued", "version": "1"},
              "capabilities": {"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}}})
    elif method == "tools/list":
        send({"id": id_, "result": {"tools": [{"name": "research", "inputSchema": {"type": "object"},
                                               "execution": {"taskSupport": "required"}}]}})
    elif method == "tools/call":
        assert message["params"]["task"] == {}, message
        send({"id": id_, "result": {"task": dict(task, status="working")}})
    elif method == "tasks/get":
        polls += 1
        if polls > 40:
            send({"id": id_, "error": {"code": -32603, "message": "polled 40 times without tasks/result"}})
        else:
            send({"id": id_, "result": task})
    elif method == "tasks/result":
        related = {"io.modelcontextprotocol/related-task": {"taskId": "t1"}}
        send({"id": "q1", "method": "elicitation/create", "params": {"message": "Which one?", "_meta": related,
              "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}})
        answer = json.loads(sys.stdin.readline())
        name = answer["result"]["content"]["name"]
        if answer["result"].get("_meta") != related:  # ("responses related to a task MUST include" it)
            name = "an answer without the related-task _meta"
        send({"id": id_, "result": {"content": [{"type": "text", "text": "about " + name}], "_meta": related}})
    elif id_ is not None:
        send({"id": id_, "result": {}})
'''


# A 2026-07-28 server whose listen streams end as told: "tools" acknowledged,
# one notification, then its graceful end (the response); "refuse" -32021.
LISTENING = r'''
import json, sys
def send(message):
    sys.stdout.write(json.dumps(dict(message, jsonrpc="2.0")) + "\n")
    sys.stdout.flush()
quiet = None
for line in sys.stdin:
    message = json.loads(line)
    method, id_, params = message.get("method"), message.get("id"), message.get("params") or {}
    meta = {"io.modelcontextprotocol/subscriptionId": id_}
    if method == "server/discover":
        send({"id": id_, "result": {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                                    "serverInfo": {"name": "listening", "version": "1"}}})
    elif method == "subscriptions/listen" and params["notifications"].get("toolsListChanged"):
        send({"method": "notifications/subscriptions/acknowledged",
              "params": {"notifications": {"toolsListChanged": True}, "_meta": meta}})
        send({"method": "notifications/tools/list_changed", "params": {"_meta": meta}})
        send({"method": "notifications/prompts/list_changed", "params": {"_meta": meta}})
        other = {"io.modelcontextprotocol/subscriptionId": 99}
        send({"method": "notifications/tools/list_changed", "params": {"_meta": other}})
        send({"id": id_, "result": {"resultType": "complete", "_meta": meta}})
    elif method == "subscriptions/listen" and params["notifications"].get("promptsListChanged"):
        quiet = meta  # acknowledged; its notifications come while tools/list is asked
        send({"method": "notifications/subscriptions/acknowledged",
              "params": {"notifications": {"promptsListChanged": True}, "_meta": meta}})
    elif method == "tools/list" and quiet:
        for _ in range(3):
            send({"method": "notifications/prompts/list_changed", "params": {"_meta": quiet}})
        send({"id": id_, "result": {"tools": []}})
    elif method == "subscriptions/listen":
        needed = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
        send({"id": id_, "error": {"code": -32021, "message": "Missing required client capability",
                                   "data": {"requiredCapabilities": needed}}})
    elif id_ is not None:
        send({"id": id_, "result": {"tools": []}})
'''


class ListenTest(unittest.TestCase):
    def test_ends_refusals_and_cuts(self) -> None:
        # Issue 32: a graceful end (the server's response) ends the iteration;
        # a notification of another subscription is not this one's; a refusal
        # is MCPError; a stream cut (the server gone) is ConnectionError.
        seen: List[Dict[str, Any]] = []
        with Client([sys.executable, "-c", LISTENING], message_handler=seen.append) as client:
            with client.listen(tools_list_changed=True, resources_list_changed=True) as events:
                self.assertEqual(events.honored, {"toolsListChanged": True})
                self.assertEqual([event["method"] for event in events], ["notifications/tools/list_changed",
                                                                         "notifications/prompts/list_changed"])
            self.assertEqual(len([m for m in seen if m["method"] == "notifications/tools/list_changed"]), 2)
            with self.assertRaises(MCPError) as caught:
                client.listen(task_ids=["t1"])
            self.assertEqual(caught.exception.code, -32021)
            with mock.patch.object(mcp_ref, "_LISTEN_BACKLOG", 1), client.listen(prompts_list_changed=True) as events:
                client.list_tools()  # three notifications meanwhile: one kept, then the stream ends, said
                self.assertEqual(events.get(5)["method"], "notifications/prompts/list_changed")
                with self.assertRaises(ConnectionError) as cut:
                    next(events)
                self.assertIn("more than 1 notifications were left unread", str(cut.exception))
        with Client(STDIO, protocol_version="2026-07-28") as client:  # killed: restarted, and listened to again
            events = client.listen(tools_list_changed=True)
            killed = client._transport.process
            killed.kill()
            self.assertIsNone(events.get(1))
            self.assertIsNone(events.ending)
            self.assertIsNot(client._transport.process, killed)
            self.assertIn(events.id, client._subscriptions)


# A 2025-11-25 server whose task never ends and that never answers tasks/cancel.
DEAF_TO_CANCEL = r'''
import json, sys
def send(message):
    sys.stdout.write(json.dumps(dict(message, jsonrpc="2.0")) + "\n")
    sys.stdout.flush()
task = {"taskId": "t1", "status": "working", "createdAt": "2025-11-25T10:30:00Z",
        "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": None, "pollInterval": 20}
for line in sys.stdin:
    message = json.loads(line)
    method, id_ = message.get("method"), message.get("id")
    if method == "initialize":
        send({"id": id_, "result": {"protocolVersion": "2025-11-25", "serverInfo": {"name": "deaf", "version": "1"},
              "capabilities": {"tools": {}, "tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}}}}})
    elif method == "tools/list":
        send({"id": id_, "result": {"tools": [{"name": "forever", "inputSchema": {"type": "object"},
                                               "execution": {"taskSupport": "required"}}]}})
    elif method == "tools/call":
        send({"id": id_, "result": {"task": task}})
    elif method == "tasks/get":
        send({"id": id_, "result": task})
    elif id_ is not None and method != "tasks/cancel":
        send({"id": id_, "result": {}})
'''


class GivenUpTest(unittest.TestCase):
    def test_a_cancel_not_answered_is_said(self) -> None:
        # The command line says "cancelled" only when the server answered
        # tasks/cancel; the wait for that answer is short (_CANCEL_WAIT).
        def interrupt(task: Dict[str, Any]) -> None:
            raise KeyboardInterrupt

        with Client([sys.executable, "-c", DEAF_TO_CANCEL], tasks=True) as client, \
                mock.patch.object(mcp_ref, "_CANCEL_WAIT", 0.5):
            started = time.monotonic()
            with self.assertRaises(KeyboardInterrupt):
                client.call_tool("forever", task_callback=interrupt)
            self.assertLess(time.monotonic() - started, 5)
            self.assertEqual(client._given_up, ("t1", False))


# A 2025-11-25 server whose task asks to be polled every 300 ms, and ends at
# the third poll; its result says the shortest gap between two polls.
POLLED = r'''
import json, sys, time
def send(message):
    sys.stdout.write(json.dumps(dict(message, jsonrpc="2.0")) + "\n")
    sys.stdout.flush()
task = {"taskId": "t1", "status": "working", "createdAt": "2025-11-25T10:30:00Z",
        "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 60000, "pollInterval": 300}
polls = []
for line in sys.stdin:
    message = json.loads(line)
    method, id_ = message.get("method"), message.get("id")
    if method == "initialize":
        send({"id": id_, "result": {"protocolVersion": "2025-11-25", "serverInfo": {"name": "polled", "version": "1"},
              "capabilities": {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}}}})
    elif method == "tools/list":
        send({"id": id_, "result": {"tools": [{"name": "slow", "inputSchema": {"type": "object"},
                                               "execution": {"taskSupport": "required"}}]}})
    elif method == "tools/call":
        polls.append(time.monotonic())
        send({"id": id_, "result": {"task": task}})
    elif method == "tasks/get":
        polls.append(time.monotonic())
        send({"id": id_, "result": dict(task, status="completed" if len(polls) > 3 else "working")})
    elif method == "tasks/result":
        gap = min(later - earlier for earlier, later in zip(polls, polls[1:]))
        send({"id": id_, "result": {"content": [{"type": "text", "text": str(round(gap * 1000))}]}})
    elif id_ is not None:
        send({"id": id_, "result": {}})
'''


class PollIntervalTest(unittest.TestCase):
    def test_the_servers_poll_interval_is_kept(self) -> None:
        # "Requestors SHOULD respect the pollInterval provided" (2025-11-25
        # basic/utilities/tasks): 300 ms asked, no two polls closer.
        with Client([sys.executable, "-c", POLLED], tasks=True) as client:
            self.assertGreaterEqual(int(text(client.call_tool("slow"))), 290)


# A 2025-11-25 server listing its tasks in two pages, the cursor an odd string
# that must come back exactly as it went out.
PAGED_TASKS = r'''
import json, sys
def send(message):
    sys.stdout.write(json.dumps(dict(message, jsonrpc="2.0")) + "\n")
    sys.stdout.flush()
CURSOR = " p=2&x=ä/+?"
def task(task_id):
    return {"taskId": task_id, "status": "completed", "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": None}
for line in sys.stdin:
    message = json.loads(line)
    method, id_, params = message.get("method"), message.get("id"), message.get("params") or {}
    if method == "initialize":
        send({"id": id_, "result": {"protocolVersion": "2025-11-25", "serverInfo": {"name": "paged", "version": "1"},
              "capabilities": {"tasks": {"list": {}, "requests": {"tools": {"call": {}}}}}}})
    elif method == "tasks/list" and "cursor" not in params:
        send({"id": id_, "result": {"tasks": [task("a")], "nextCursor": CURSOR}})
    elif method == "tasks/list" and params["cursor"] == CURSOR:
        send({"id": id_, "result": {"tasks": [task("b")]}})
    elif method == "tasks/list":
        send({"id": id_, "error": {"code": -32602, "message": "Invalid params: cursor changed"}})
    elif id_ is not None:
        send({"id": id_, "result": {}})
'''


class ListTasksTest(unittest.TestCase):
    def test_pages_with_the_cursor_as_sent(self) -> None:
        # "Requestors MUST treat cursors as opaque tokens and not attempt to
        # parse or modify them" (2025-11-25 basic/utilities/tasks, "Task Listing").
        with Client([sys.executable, "-c", PAGED_TASKS]) as client:
            first = client.list_tasks()
            self.assertEqual(([t["taskId"] for t in first["tasks"]], first["nextCursor"]), (["a"], " p=2&x=ä/+?"))
            self.assertEqual([t["taskId"] for t in client.list_tasks(first["nextCursor"])["tasks"]], ["b"])
            self.assertEqual([t["taskId"] for t in client.list_tasks(all_pages=True)["tasks"]], ["a", "b"])


class InputRequiredTest(unittest.TestCase):
    def test_2025_input_required_calls_tasks_result(self) -> None:
        # Issue 32: on input_required the requestor SHOULD call tasks/result
        # (2025-11-25 basic/utilities/tasks); the queued question comes on it,
        # to the callback.  It polled tasks/get, never calling it: a hang.  The
        # answer carries the task's related-task _meta (it had none).
        asked: List[Dict[str, Any]] = []

        def answer(params: Dict[str, Any]) -> Dict[str, Any]:
            asked.append(params)
            return {"action": "accept", "content": {"name": "Ada"}}

        with Client([sys.executable, "-c", QUEUED_QUESTION], tasks=True, elicitation_callback=answer,
                    timeout=20) as client:
            self.assertEqual(text(client.call_tool("research")), "about Ada")
            self.assertEqual([params["message"] for params in asked], ["Which one?"])


def answer_everything(params: Dict[str, Any]) -> Dict[str, Any]:
    """The everything server's questions: a URL visited, any form filled in."""
    if params.get("mode") == "url":
        return {"action": "accept"}
    properties = (params.get("requestedSchema") or {}).get("properties") or {}
    content = {"interpretation": "programming"} if "interpretation" in properties else {}
    for name, prop in properties.items():
        kind = prop.get("type")
        if name not in content and kind in ("string", "boolean", "integer", "number"):
            choices = prop.get("enum") or [one["const"] for one in prop.get("oneOf", ()) if "const" in one]
            content[name] = choices[0] if choices else {"string": "x", "boolean": True}.get(kind, 1)
    return {"action": "accept", "content": content}


@unittest.skipUnless(HAVE_EVERYTHING_TS, f"node or the everything server is missing (npm install --prefix {NODE_DIR} "
                                         "@modelcontextprotocol/server-everything); .ci/run installs it")
class TypeScriptEverythingTest(unittest.TestCase):
    """Issue 32: every tool of the TypeScript SDK's everything server
    completes through Client, tasks included (its research query asks a
    question while a task, on tasks/result), over stdio and HTTP."""

    def check(self, client: Client) -> None:
        with client:
            self.assertEqual(client.protocol_version, "2025-11-25")
            listed = {tool["name"] for tool in client.list_tools(all_pages=True)["tools"]}
            self.assertEqual(listed, set(EVERYTHING_CALLS), "the server's tools changed: update EVERYTHING_CALLS")
            for name, (arguments, expected) in EVERYTHING_CALLS.items():
                with self.subTest(tool=name):
                    result = client.call_tool(name, arguments)
                    self.assertIsNot(result.get("isError"), True, result)
                    shown = json.dumps(result)
                    self.assertIn(expected, shown)
            created = client.call_tool_as_task("simulate-research-query", {"topic": "tasks"})
            task_id = created["task"]["taskId"]
            self.assertIn(task_id, [task["taskId"] for task in client.list_tasks(all_pages=True)["tasks"]])
            self.assertEqual(client.cancel_task(task_id)["status"], "cancelled")

    def connect(self, server: Any) -> Client:
        return Client(server, tasks=True, elicitation_callback=answer_everything, sampling_callback=sample,
                      list_roots_callback=roots, timeout=30)

    def test_stdio(self) -> None:
        quiet = ["sh", "-c", 'exec node "$0" stdio 2> /dev/null', EVERYTHING_TS] if os.name == "posix" else []
        self.check(self.connect(quiet or ["node", EVERYTHING_TS, "stdio"]))  # (its stderr chatters)

    def test_http(self) -> None:
        port = free_port()
        server = subprocess.Popen(["node", EVERYTHING_TS, "streamableHttp"], env=dict(os.environ, PORT=str(port)),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for_port(port)
            self.check(self.connect(f"http://127.0.0.1:{port}/mcp"))
        finally:
            server.terminate()
            server.wait(10)


if __name__ == "__main__":
    unittest.main()

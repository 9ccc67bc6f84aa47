"""mcp_ref.Client (sections 29 and 30): against mcp_ref's own server
(examples/everything.py) over stdio and Streamable HTTP, in both eras, and
against the official SDK's server (skipped when the SDK is not installed)."""

import contextlib
import importlib.util
import io
import os
import shutil
import socket
import subprocess
import sys
import threading
import unittest
from dataclasses import dataclass
from typing import Any, Dict, List, Optional
from unittest import mock

import mcp_ref
from mcp_ref import Client, MCPError
from test_cli import CliTestCase
from _testing import copy_into, wait_for_port
from test_http import InProcess

HERE = os.path.dirname(os.path.abspath(__file__))
CLI = os.path.join(HERE, "mcp_ref.py")
EVERYTHING = os.path.join(HERE, "examples", "everything.py")
QUICKSTART = os.path.join(HERE, "examples", "quickstart.py")
LAUNCHER = os.path.join(HERE, "testdata", "sdk_launcher.py")
HAVE_SDK = importlib.util.find_spec("mcp") is not None and importlib.util.find_spec("uvicorn") is not None
STDIO = [sys.executable, CLI, "serve", EVERYTHING]
# The same serve, with tasks/get suggested every 50 ms rather than every second
# (the client sleeps what the server suggests: ten tasks would wait ten seconds).
FAST_POLLS = [sys.executable, "-c", f"import sys; sys.path.insert(0, {HERE!r}); import mcp_ref; "
              f"mcp_ref._TASK_POLL_MS = 50; sys.exit(mcp_ref.main(['serve', {EVERYTHING!r}]))"]
ASKING = os.path.join(HERE, "testdata", "client_server.py")
ERAS = ("2025-11-25", "2026-07-28")


def load_everything() -> mcp_ref.MCPServer:
    spec = importlib.util.spec_from_file_location("everything_for_client", EVERYTHING)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.mcp  # type: ignore[no-any-return]


def text(result: Dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in result["content"])


def answer_form(params: Dict[str, Any]) -> Dict[str, Any]:
    return {"action": "accept", "content": {"name": "Ada"}}


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
        with self.assertRaises(ConnectionError) as caught:
            Client(self.fake(unknown), protocol_version="2025-11-25").initialize()
        self.assertEqual(str(caught.exception), 'the server answered initialize with protocol version "1999-01-01", '
                                                'which this client does not speak')

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
        # A $ref that is not local is left alone (never fetched): the content is not checked against it.
        remote = {"name": "t", "outputSchema": {"$ref": "http://127.0.0.1:9/schema.json"}}
        self.assertEqual(mcp_ref._read_structured("t", result, remote, None), result)


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
        copy_into(os.path.join(HERE, "testdata", "ts_server.mjs"), cls.script)

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


if __name__ == "__main__":
    unittest.main()

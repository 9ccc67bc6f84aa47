"""The SDK's names a server file imports (section 26's models, section 27's
classes), FastMCP, MCPServer's keywords and run() returning (issue 23).

Each name is tested where a server uses it, on the wire: through the WSGI app
of section 19 in process (test_http_sessions.request), or a server process.
"""

import glob
import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
import unittest
from typing import Any, Dict, List, Optional

from tests._testing import HERE, has_module, mcp_ref

from tests.core.test_http_sessions import request


MODERN = "2026-07-28"

CAPS = {"elicitation": {"form": {}}, "sampling": {}, "roots": {}}

NAMES = ("ServerRequestContext", "RequestStateSecurity", "MISSING_REQUIRED_CLIENT_CAPABILITY", "CompletionArgument",
         "CompletionContext", "InputRequest", "EmptyResult", "CreateMessageRequest", "CreateMessageRequestParams",
         "CreateMessageResult", "SamplingMessage", "ElicitRequest", "ElicitRequestFormParams", "ElicitResult",
         "ListRootsRequest", "ListRootsResult", "SetLevelRequestParams", "SubscribeRequestParams",
         "UnsubscribeRequestParams", "TextResourceContents", "BlobResourceContents", "EventStore", "EventMessage",
         "EventCallback", "JSONRPCMessage", "FastMCP", "PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND",
         "INVALID_PARAMS", "INTERNAL_ERROR", "URL_ELICITATION_REQUIRED")

NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

ANSWERS = {"ask": {"action": "accept", "content": {"name": "Ada"}},
           "sample": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"},
           "roots": {"roots": [{"uri": "file:///a", "name": "a"}, {"uri": "file:///b"}]}}


def call(app: Any, name: str, arguments: Optional[Dict[str, Any]] = None, **params: Any) -> Dict[str, Any]:
    """A 2026-07-28 tools/call to the app, its JSON-RPC response."""
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": CAPS}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": dict(params, name=name, arguments=arguments or {}, _meta=meta)}
    reply = request(app, "POST", body, {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": name})
    return reply.json()  # type: ignore[no-any-return]


def questions_server() -> Any:
    """The SDK's conformance fixture's InputRequiredResult tools, in its words."""
    from mcp_ref import (CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, ElicitRequest,
                         ElicitRequestFormParams, ElicitResult, InputRequest, InputRequiredResult, ListRootsRequest,
                         ListRootsResult, MCPServer, SamplingMessage, TextContent)

    server = MCPServer("names", request_state_key=b"k" * 32)

    @server.tool()
    def everything(ctx: mcp_ref.Context) -> str:
        responses = ctx.input_responses
        if responses:
            ask, sample, roots = responses["ask"], responses["sample"], responses["roots"]
            kinds = [isinstance(ask, ElicitResult), isinstance(sample, CreateMessageResult),
                     isinstance(roots, ListRootsResult)]
            return json.dumps([kinds, ask.action, ask.content.get("name"), sample.content.type, sample.content.text,
                               sample.stop_reason, len(roots.roots), roots.roots[0].uri, roots.roots[1].name,
                               responses["ask"]["content"]["name"]])
        requests: Dict[str, InputRequest] = {
            "ask": ElicitRequest(params=ElicitRequestFormParams(message="Name?", requested_schema=NAME_SCHEMA)),
            "sample": CreateMessageRequest(params=CreateMessageRequestParams(
                messages=[SamplingMessage(role="user", content=TextContent(type="text", text="Capital?"))],
                max_tokens=100)),
            "roots": ListRootsRequest()}
        return InputRequiredResult(input_requests=requests, request_state="s")  # type: ignore[return-value]

    @server.tool()
    async def sample(ctx: mcp_ref.Context) -> str:
        result = await ctx.session.create_message(
            messages=[SamplingMessage(role="user", content=TextContent(type="text", text="Hi"))], max_tokens=5)
        return str(result.content.text)

    return server


class NamesTest(unittest.TestCase):
    def test_every_name_is_exported(self) -> None:
        for name in NAMES:
            with self.subTest(name=name):
                self.assertIn(name, mcp_ref.__all__)
                self.assertIsNotNone(getattr(mcp_ref, name))
        namespace: Dict[str, Any] = {}
        exec("from mcp_ref import *", namespace)
        self.assertLessEqual(set(NAMES), set(namespace))

    def test_the_models_are_made_when_first_imported(self) -> None:
        code = (f"import sys; sys.path.insert(0, {HERE!r}); import mcp_ref; before = 'ElicitResult' in vars(mcp_ref); "
                "from mcp_ref import ElicitResult; "
                "print(before, 'ElicitResult' in vars(mcp_ref), ElicitResult.__module__)")
        out = subprocess.run([sys.executable, "-I", "-S", "-c", code], cwd=HERE, capture_output=True, text=True,
                             timeout=60)
        self.assertEqual(out.stdout, "False True mcp_ref\n", out.stderr)
        with self.assertRaisesRegex(AttributeError, "^module 'mcp_ref' has no attribute 'NoSuchName'$"):
            mcp_ref.NoSuchName  # noqa: B018

    def test_error_codes_are_the_sdks(self) -> None:
        self.assertEqual([mcp_ref.PARSE_ERROR, mcp_ref.INVALID_REQUEST, mcp_ref.METHOD_NOT_FOUND,
                          mcp_ref.INVALID_PARAMS, mcp_ref.INTERNAL_ERROR, mcp_ref.MISSING_REQUIRED_CLIENT_CAPABILITY,
                          mcp_ref.URL_ELICITATION_REQUIRED], [-32700, -32600, -32601, -32602, -32603, -32021, -32042])

    def test_existing_classes_under_the_sdks_names(self) -> None:
        self.assertIs(mcp_ref.CompletionArgument, mcp_ref._CompletionArgument)
        self.assertIs(mcp_ref.CompletionContext, mcp_ref._CompletionContext)
        self.assertIs(mcp_ref.ServerRequestContext, mcp_ref._RequestContext)
        self.assertIs(mcp_ref.ServerRequestContext[Any, Any], mcp_ref.ServerRequestContext)
        self.assertIs(mcp_ref.JSONRPCMessage, bytes)  # what an EventStore is given here


class ModelTest(unittest.TestCase):
    def test_json_in_camel_case_unset_fields_left_out(self) -> None:
        from mcp_ref import (CreateMessageRequest, CreateMessageRequestParams, EmptyResult, SamplingMessage,
                             TextContent, TextResourceContents)

        message = SamplingMessage(role="user", content=TextContent(type="text", text="x"))
        self.assertEqual(CreateMessageRequest(params=CreateMessageRequestParams(
            messages=[message], max_tokens=5, system_prompt="Be brief")), {
            "method": "sampling/createMessage",
            "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "x"}}], "maxTokens": 5,
                       "systemPrompt": "Be brief"}})
        self.assertEqual(json.dumps(EmptyResult()), "{}")
        self.assertEqual(TextResourceContents(uri="a://b", text="t", mimeType="text/plain"),
                         TextResourceContents(uri="a://b", text="t", mime_type="text/plain"))

    def test_read_by_attribute_in_pythons_spelling(self) -> None:
        from mcp_ref import ElicitRequest, ElicitRequestFormParams, ElicitResult, TextResourceContents

        result = ElicitResult(action="accept", content={"name": "Ada"})
        self.assertEqual((result.action, result.content, result.meta), ("accept", {"name": "Ada"}, None))
        contents = TextResourceContents(uri="a://b", text="t", mime_type="text/plain")
        self.assertEqual((contents.uri, contents.mime_type, contents.text), ("a://b", "text/plain", "t"))
        asked = ElicitRequest(params=ElicitRequestFormParams(message="m", requested_schema=NAME_SCHEMA))
        self.assertEqual((asked.method, asked.params.mode, asked.params.requested_schema),
                         ("elicitation/create", "form", NAME_SCHEMA))
        result.action = "decline"
        result.content = None
        self.assertEqual(result, {"action": "decline"})
        self.assertEqual(repr(result), "ElicitResult(action='decline')")
        with self.assertRaisesRegex(AttributeError, "^'ElicitResult' object has no attribute 'data'$"):
            result.data  # noqa: B018

    def test_keywords_checked(self) -> None:
        from mcp_ref import ElicitResult, SetLevelRequestParams

        with self.assertRaisesRegex(TypeError, r"^ElicitResult\(\) missing required keyword argument: 'action'$"):
            ElicitResult(content={})
        with self.assertRaisesRegex(TypeError, r"^SetLevelRequestParams\(\) got an unexpected keyword argument "
                                               r"'levle'$"):
            SetLevelRequestParams(levle="info")
        self.assertEqual(SetLevelRequestParams(level="info").level, "info")

    def test_params_of_the_sdks_request_handlers(self) -> None:
        from mcp_ref import SubscribeRequestParams, UnsubscribeRequestParams

        self.assertEqual(SubscribeRequestParams(uri="test://a").uri, "test://a")
        self.assertEqual(UnsubscribeRequestParams(**{"uri": "test://a", "_meta": {"k": 1}}).meta, {"k": 1})


class WireTest(unittest.TestCase):
    def test_input_required_result_of_the_sdks_requests(self) -> None:
        app = questions_server().streamable_http_app(json_response=True)
        frame = call(app, "everything")
        state = frame["result"].pop("requestState")
        frame["result"].pop("_meta")
        self.assertEqual(frame["result"], {"resultType": "input_required", "inputRequests": {
            "ask": {"method": "elicitation/create",
                    "params": {"mode": "form", "message": "Name?", "requestedSchema": NAME_SCHEMA}},
            "sample": {"method": "sampling/createMessage", "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "Capital?"}}], "maxTokens": 100}},
            "roots": {"method": "roots/list"}}})
        frame = call(app, "everything", requestState=state, inputResponses=ANSWERS)
        self.assertEqual(json.loads(frame["result"]["content"][0]["text"]),
                         [[True, True, True], "accept", "Ada", "text", "Paris", None, 2, "file:///a", None, "Ada"])

    def test_sampling_message_given_to_create_message(self) -> None:
        app = questions_server().streamable_http_app(json_response=True)
        frame = call(app, "sample")
        (key, asked), = frame["result"]["inputRequests"].items()
        self.assertEqual(asked, {"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}], "maxTokens": 5}})
        frame = call(app, "sample", requestState=frame["result"]["requestState"],
                     inputResponses={key: ANSWERS["sample"]})
        self.assertEqual(frame["result"]["content"], [{"type": "text", "text": "Paris"}])

    def test_resource_contents_in_a_tool_and_a_prompt(self) -> None:
        from mcp_ref import EmbeddedResource, MCPServer, TextResourceContents, UserMessage

        server = MCPServer("contents")
        contents = TextResourceContents(uri="test://r", mime_type="text/plain", text="inside")
        wire = {"type": "resource", "resource": {"uri": "test://r", "mimeType": "text/plain", "text": "inside"}}

        @server.tool()
        def embedded() -> list:
            return [EmbeddedResource(type="resource", resource=contents)]

        @server.prompt()
        def with_resource() -> list:
            return [UserMessage(role="user", content=EmbeddedResource(type="resource", resource=contents))]

        self.assertEqual(server.call_tool("embedded")["content"], [wire])
        self.assertEqual(server.get_prompt("with_resource")["messages"], [{"role": "user", "content": wire}])

    def test_resource_contents_returned_from_a_resource_is_its_json_text(self) -> None:
        """As the SDK sends it, without its "_meta": null (docs/sdk-differences.md, 37)."""
        from mcp_ref import MCPServer, TextResourceContents

        server = MCPServer("contents")

        @server.resource("test://r")
        def read() -> TextResourceContents:
            return TextResourceContents(uri="test://r", text="hi", mime_type="text/plain")

        self.assertEqual(server.read_resource("test://r")["contents"], [{
            "uri": "test://r", "mimeType": "text/plain",
            "text": '{\n  "uri": "test://r",\n  "mimeType": "text/plain",\n  "text": "hi"\n}'}])

    def test_completion_handler_gets_the_sdks_classes(self) -> None:
        from mcp_ref import Completion, CompletionArgument, CompletionContext, MCPServer

        server = MCPServer("complete")
        seen: List[Any] = []

        @server.prompt()
        def greet(name: str) -> str:
            return name

        @server.completion()
        def complete(ref: Any, argument: CompletionArgument, context: Optional[CompletionContext]) -> Completion:
            seen.append((isinstance(argument, CompletionArgument), argument.name, argument.value,
                         isinstance(context, CompletionContext), context and context.arguments))
            return Completion(values=["Ada"], total=1, has_more=False)

        meta = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
        body = {"jsonrpc": "2.0", "id": 1, "method": "completion/complete", "params": {
            "ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"},
            "context": {"arguments": {}}, "_meta": meta}}
        reply = request(server.streamable_http_app(json_response=True), "POST", body,
                        {"MCP-Protocol-Version": MODERN, "Mcp-Method": "completion/complete"})
        self.assertEqual(reply.json()["result"]["completion"], {"values": ["Ada"], "total": 1, "hasMore": False})
        self.assertEqual(seen, [(True, "name", "A", True, {})])


class KeywordsTest(unittest.TestCase):
    def test_unknown_keyword_as_python_refuses_it(self) -> None:
        with self.assertRaisesRegex(TypeError, r"^MCPServer\.__init__\(\) got an unexpected keyword argument "
                                               r"'instruction'$"):
            mcp_ref.MCPServer("x", instruction="typo")
        with self.assertRaisesRegex(TypeError, r"^FastMCP\.__init__\(\) got an unexpected keyword argument 'prot'$"):
            mcp_ref.FastMCP("x", prot=1)

    def test_the_sdks_keywords_taken_or_refused(self) -> None:
        server = mcp_ref.MCPServer("x", debug=True, log_level="DEBUG", dependencies=["a"], subscriptions=None)
        self.assertEqual(server.settings["log_level"], "DEBUG")
        message = r"^middleware= is not supported by mcp_ref \(wrap streamable_http_app\(\), a WSGI app\)$"
        with self.assertRaisesRegex(ValueError, message):
            mcp_ref.MCPServer("x", middleware=[object()])

    def test_request_state_security_signs_under_the_key_and_the_name(self) -> None:
        from mcp_ref import RequestStateSecurity

        secret = b"everything-server-fixture-request-state-key"

        def server(name: Optional[str], **options: Any) -> Any:
            return state_server(name, RequestStateSecurity(keys=[secret], **options))

        first = call(server("svc"), "ask")["result"]["requestState"]
        retry = {"requestState": first, "inputResponses": {"a": ANSWERS["roots"]}}
        # Another process with the same secret and name reads it; another service's is refused.
        self.assertEqual(call(server("svc"), "ask", **retry)["result"]["content"][0]["text"], "state: r1")
        self.assertEqual(call(server("other"), "ask", **retry)["error"]["message"],
                         "Invalid params: requestState fails verification")
        self.assertEqual(call(server(None, audience="svc"), "ask", **retry)["result"]["content"][0]["text"],
                         "state: r1")
        with self.assertRaisesRegex(ValueError, "^request_state_security is configured but this server has no name"):
            server(None)

    def test_request_state_security_refuses_what_it_cannot_honour(self) -> None:
        from mcp_ref import RequestStateSecurity

        key = b"k" * 32
        for options, message in [
                ({}, "^RequestStateSecurity takes exactly one of keys= or codec=$"),
                ({"keys": [key, key]}, r"^mcp_ref signs requestState with one key: keys=\[secret\]"),
                ({"codec": object()}, r"^mcp_ref signs requestState with one key"),
                ({"keys": [b"short"]}, "^request-state keys must be at least 32 bytes of secret randomness; "
                                       "keys\\[0\\] is 5 bytes$"),
                ({"keys": [key], "ttl": 60}, "^mcp_ref's requestState lives 600 seconds")]:
            with self.subTest(options=options), self.assertRaisesRegex(ValueError, message):
                RequestStateSecurity(**options)
        with self.assertRaisesRegex(ValueError, "^give request_state_key= or request_state_security=, not both$"):
            mcp_ref.MCPServer("x", request_state_key=key, request_state_security=RequestStateSecurity(keys=[key]))
        self.assertEqual(len(RequestStateSecurity.ephemeral().key), 32)

    @unittest.skipUnless(has_module("mcp") and has_module("cryptography"), "the SDK is not installed")
    def test_the_sdks_own_policy_seals_with_its_codec(self) -> None:
        from mcp.server.mcpserver import RequestStateSecurity

        secret = b"everything-server-fixture-request-state-key"
        apps = {name: state_server(name, RequestStateSecurity(keys=[secret])) for name in ("svc", "svc2", "other")}
        first = call(apps["svc"], "ask")["result"]["requestState"]
        self.assertFalse(first.count(".") == 2 and first.split(".")[1].startswith("eyJ"))  # encrypted, not ours
        retry = {"requestState": first, "inputResponses": {"a": ANSWERS["roots"]}}
        self.assertEqual(call(apps["svc"], "ask", **retry)["result"]["content"][0]["text"], "state: r1")
        verdicts = [call(apps["svc"], "ask", requestState=first[:-2] + "AA", inputResponses={})["error"]["message"],
                    call(apps["other"], "ask", **retry)["error"]["message"]]
        self.assertEqual(verdicts, ["Invalid params: requestState fails verification"] * 2)
        with self.assertRaisesRegex(ValueError, "^mcp_ref's requestState lives 600 seconds"):
            mcp_ref.MCPServer("x", request_state_security=RequestStateSecurity(keys=[secret], ttl=60))


def state_server(name: Optional[str], security: Any) -> Any:
    """A tool that asks once, with its request_state, then says what came back."""
    one = mcp_ref.MCPServer(name, request_state_security=security)

    @one.tool()
    def ask(ctx: mcp_ref.Context) -> str:
        if ctx.request_state is None:
            return mcp_ref.InputRequiredResult(  # type: ignore[return-value]
                input_requests={"a": mcp_ref.ListRootsRequest()}, request_state="r1")
        return f"state: {ctx.request_state}"

    return one.streamable_http_app(json_response=True)


class FastMCPTest(unittest.TestCase):
    def test_1x_constructor_and_settings(self) -> None:
        mcp = mcp_ref.FastMCP("legacy", "Use it.", port=9123, json_response=True, stateless_http=True,
                              warn_on_duplicate_tools=False)
        self.assertIsInstance(mcp, mcp_ref.MCPServer)
        self.assertEqual((mcp.name, mcp.instructions, mcp.settings.port, mcp.settings.host, mcp.settings.json_response,
                          mcp.settings.streamable_http_path), ("legacy", "Use it.", 9123, "127.0.0.1", True, "/mcp"))

        @mcp.tool()
        def add(a: int, b: int) -> int:
            return a + b

        app = mcp.streamable_http_app()  # json_response and stateless_http from the constructor
        reply = request(app, "POST", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                      "params": {"name": "add", "arguments": {"a": 1, "b": 2}}},
                        {"MCP-Protocol-Version": "2025-06-18"})
        self.assertEqual(reply.headers["content-type"], "application/json")
        self.assertEqual(reply.json()["result"]["structuredContent"], {"result": 3})

    def test_sse_refused(self) -> None:
        mcp = mcp_ref.FastMCP("legacy")
        message = r'^mcp_ref does not serve the SSE transport of 2024-11-05: use run\(transport="streamable-http"\)$'
        with self.assertRaisesRegex(ValueError, message):
            mcp.run(transport="sse")
        with self.assertRaisesRegex(ValueError, message):
            mcp.sse_app()


RUN_SCRIPT = """
import sys
sys.path.insert(0, {here!r})
import mcp_ref

server = mcp_ref.{cls}("after")
server.run({args})
print("run returned")
print("stderr too", file=sys.stderr)
sys.exit(3)
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RunTest(unittest.TestCase):
    def script(self, cls: str, args: str) -> List[str]:
        path = os.path.join(self.tmp, "server.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(RUN_SCRIPT.format(here=HERE, cls=cls, args=args)))
        return [sys.executable, path]

    def setUp(self) -> None:
        import tempfile

        self.tmp = tempfile.mkdtemp()

    def test_stdio_run_returns_at_the_end_of_input(self) -> None:
        init = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        out = subprocess.run(self.script("MCPServer", ""), input=json.dumps(init) + "\n", capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(out.stdout, '{"jsonrpc":"2.0","id":1,"result":{}}\nrun returned\n')
        self.assertEqual(out.returncode, 3, out.stderr)
        self.assertIn("stderr too", out.stderr)

    def test_stdio_run_ends_its_threads(self) -> None:
        """run() returns, and the threads of that run go with it (the pool that
        ran the sync calls, the event loop, the watchdog, the reader): a program
        that serves again and again must not keep each run's threads."""
        path = os.path.join(self.tmp, "server.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(f'''
                import os, sys, threading, time
                sys.path.insert(0, {HERE!r})
                import mcp_ref

                server = mcp_ref.MCPServer("after")

                @server.tool()
                def slow() -> int:
                    time.sleep(0.3)  # past the inline run's watch: the pool takes the call over
                    return 1

                @server.tool()
                async def later() -> int:
                    return 2

                for _ in range(3):
                    os.dup2(os.open({os.path.join(self.tmp, "input")!r}, os.O_RDONLY), 0)  # what it reads
                    server.run()
                deadline = time.monotonic() + 30
                ours = lambda: sorted(t.name for t in threading.enumerate() if t.name.startswith("mcp_ref-"))
                while time.monotonic() < deadline and ours():
                    time.sleep(0.05)
                print("threads left:", ours())
                '''))
        frames = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
                  {"jsonrpc": "2.0", "method": "notifications/initialized"},
                  {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow", "arguments": {}}},
                  {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "later", "arguments": {}}}]
        with open(os.path.join(self.tmp, "input"), "w", encoding="utf-8") as f:
            f.write("".join(json.dumps(frame) + "\n" for frame in frames))
        out = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=120)
        self.assertEqual(out.stdout.splitlines()[-1], "threads left: []", out.stdout + out.stderr)
        self.assertEqual(out.stdout.count('"result":{"content"'), 6, out.stdout + out.stderr)

    @unittest.skipIf(sys.platform == "win32", "SIGTERM")
    def test_http_run_returns_after_sigterm(self) -> None:
        port = free_port()
        process = subprocess.Popen(self.script("FastMCP", f"transport='streamable-http', port={port}"),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.05)
            process.send_signal(signal.SIGTERM)
            stdout, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
        self.assertEqual(stdout, "run returned\n")
        self.assertEqual(process.returncode, 3, stderr)

    def test_command_line_keeps_its_exit_code(self) -> None:
        path = os.path.join(self.tmp, "plain.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write("from mcp_ref import MCPServer\nserver = MCPServer('plain')\n")
        out = subprocess.run([sys.executable, os.path.join(HERE, "mcp_ref.py"), "serve", path], input="",
                             capture_output=True, text=True, timeout=60)
        self.assertEqual((out.returncode, out.stdout), (0, ""), out.stderr)


class ReadmeNamesTest(unittest.TestCase):
    """The README's drop-in claim: a server file runs unchanged whose imports name
    only what mcp_ref exports.  Every name its API table lists is exported, and
    used by some test."""

    @staticmethod
    def listed() -> List[str]:
        with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
            api = f.read().split("\n## API\n", 1)[1].split("\n## ", 1)[0]
        names: List[str] = []
        for cell in re.findall(r"^\| (.*?) \| ", api, re.M):  # a row's first cell
            for token in re.findall(r"`([^`]+)`", cell):
                name = re.match(r"[A-Za-z_]\w*", token)  # not `.method()`
                if name is not None and name.group() not in names and name.group() != "None":
                    names.append(name.group())
        return names

    def test_every_listed_name_is_exported(self) -> None:
        names = self.listed()
        self.assertGreater(len(names), 70)
        namespace: Dict[str, Any] = {}
        exec("from mcp_ref import *", namespace)
        for name in names:
            with self.subTest(name=name):
                self.assertIn(name, mcp_ref.__all__)
                self.assertIn(name, namespace)

    def test_every_listed_name_is_tested(self) -> None:
        texts = []
        for path in sorted(glob.glob(os.path.join(HERE, "test_*.py")) +
                           glob.glob(os.path.join(HERE, "tests", "**", "test_*.py"), recursive=True)):
            with open(path, encoding="utf-8") as f:
                texts.append(re.sub(r"^NAMES = \(.*?\)\n", "", f.read(), flags=re.S | re.M))  # a list, no use
        text = "\n".join(texts)
        for name in self.listed():
            with self.subTest(name=name):
                self.assertRegex(text, rf"\b{name}\b")

    def test_the_names_no_other_test_used(self) -> None:
        from mcp_ref import (Audio, CancelledElicitation, DeclinedElicitation, EventCallback, EventMessage,
                             EventStore, FunctionResource, ImageContent)

        server = mcp_ref.MCPServer("t")
        server.add_tool(lambda: [ImageContent(data="AAA=", mime_type="image/png"), Audio(data=b"RIFF", format="wav")],
                        name="media")
        self.assertEqual(server.call_tool("media")["content"], [
            {"type": "image", "data": "AAA=", "mimeType": "image/png"},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}])
        server.add_resource(FunctionResource.from_function(lambda: "hi", "test://hi", name="hi"))
        self.assertEqual(server.read_resource("test://hi")["contents"],
                         [{"uri": "test://hi", "mimeType": "text/plain", "text": "hi"}])

        def outcome(ctx: mcp_ref.Context) -> str:
            answer = ctx.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}}).result()
            return f"{type(answer).__name__} {isinstance(answer, (DeclinedElicitation, CancelledElicitation))}"

        server.add_tool(outcome)
        for action, name in (("decline", "DeclinedElicitation"), ("cancel", "CancelledElicitation")):
            request = mcp_ref._Request(None, None, MODERN, {"_meta": {
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}})
            request.answers["elicitation_0"] = {"action": action}
            result = server._invoke(server._tool_named("outcome"), {}, request)  # type: ignore[arg-type]
            self.assertEqual(result["content"][0]["text"], f"{name} True")
        replayed: List[Any] = []
        callback: EventCallback = replayed.append  # type: ignore[assignment]
        store = EventStore()
        first = store.store_event("s", b"{}")
        store.store_event("s", b"[]")
        self.assertEqual(store.replay_events_after(first, callback), "s")
        self.assertEqual([(m.message, type(m) is EventMessage) for m in replayed], [(b"[]", True)])


if __name__ == "__main__":
    unittest.main()

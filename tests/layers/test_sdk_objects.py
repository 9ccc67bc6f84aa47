"""The SDK's own objects (section 28: _sdk_object, _sdk_block, _wire_value, _sdk_model, _sdk_prompt).

A server written for the SDK returns the SDK's models (mcp.types, its prompt
messages, its Image helper); mcp_ref reads them where it reads its own, and
sends what the SDK sends.  The differential tests serve testdata/sdk_objects_server.py
twice, with mcp_ref's MCPServer and with the SDK's, play the client over stdio
and compare the frames; the two deliberate differences are asserted whole.

They need the SDK (test-only, ``mcp`` 2.3.x, in CI's venv) and skip without it.
"""

import json
import os
import subprocess
import sys
import unittest
from typing import Annotated, Any, Dict, List, Tuple

from tests._testing import HERE, has_module, mcp_ref

from tests.core.test_wire import ServerProcess


HAVE_SDK = has_module("mcp") and has_module("mcp_types")

NEEDS_SDK = "the official SDK (pip install 'mcp==2.3.*') is not installed; CI's venv has it"

SERVER = os.path.join(HERE, "tests", "testdata", "sdk_objects_server.py")

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}

ANSWER = {"city": {"action": "accept", "content": {"city": "Paris"}}}


SESSION_REQUESTS: List[Tuple[str, Dict[str, Any]]] = [
    ("tools/list", {}),
    ("tools/call", {"name": "blocks", "arguments": {}}),
    ("tools/call", {"name": "image", "arguments": {}}),
    ("tools/call", {"name": "result", "arguments": {}}),
    ("tools/call", {"name": "failed", "arguments": {}}),
    ("prompts/get", {"name": "messages"}),
    ("prompts/get", {"name": "prompt_message"}),
    ("prompts/get", {"name": "whole_result"}),
    ("resources/read", {"uri": "test://contents"}),
]

MODERN_REQUESTS: List[Tuple[str, Dict[str, Any]]] = [
    ("tools/call", {"name": "ask", "arguments": {}}),
    ("prompts/get", {"name": "asking_prompt"}),
    ("resources/read", {"uri": "test://asking/x"}),
]

# docs/sdk-differences.md, 35: the SDK sends these as the JSON text of the model.
DELIBERATE = {"prompts/get prompt_message", "prompts/get whole_result"}


def with_mime_types(frame: Any) -> Any:
    """docs/sdk-differences.md, 55: an embedded resource
    in a prompt message without a mimeType gets one (the SDK sends none)."""
    for message in (frame.get("result") or {}).get("messages") or []:
        resource = message["content"].get("resource") if message["content"].get("type") == "resource" else None
        if isinstance(resource, dict) and "mimeType" not in resource:
            resource["mimeType"] = "text/plain" if "text" in resource else "application/octet-stream"
    return frame


def serve(kind: str) -> ServerProcess:
    return ServerProcess(env={"SDK_OBJECTS_SERVER": kind}, script=SERVER)


def session_frames(kind: str) -> Dict[str, Any]:
    """Each response of SESSION_REQUESTS, after the handshake, by "method name"."""
    server, out = serve(kind), {}
    try:
        out["serverInfo"] = server.initialize()["result"]["serverInfo"]
        for id_, (method, params) in enumerate(SESSION_REQUESTS, 1):
            out[f"{method} {params.get('name', params.get('uri', ''))}"] = server.request(id_, method, params)
    finally:
        server.kill()
    return out


def modern_frames(kind: str) -> Dict[str, Any]:
    """2026-07-28: each of MODERN_REQUESTS, which asks the client, then its retry
    with the answer and the requestState it got (the state's own bytes differ:
    mcp_ref's is signed, the SDK's sealed; whether one is there is compared)."""
    server, out = serve(kind), {}
    try:
        for id_, (method, params) in enumerate(MODERN_REQUESTS, 1):
            asked = server.request(id_, method, dict(params, _meta=MODERN_META))
            state = asked["result"].pop("requestState", None)
            asked["result"]["requestState"] = state is not None
            retry = dict(params, _meta=MODERN_META, inputResponses=ANSWER)
            if state is not None:
                retry["requestState"] = state
            out[method] = [asked, server.request(id_ + 10, method, retry)]
    finally:
        server.kill()
    return out


@unittest.skipUnless(HAVE_SDK, NEEDS_SDK)
class DifferentialTest(unittest.TestCase):
    """The same server file, served by mcp_ref and by the SDK: the same frames."""

    maxDiff = None

    def test_session_frames_are_the_sdks(self) -> None:
        ours, theirs = session_frames("ref"), session_frames("sdk")
        self.assertEqual(ours.keys(), theirs.keys())
        for key in ours:
            if key not in DELIBERATE:
                with self.subTest(key=key):
                    self.assertEqual(ours[key], with_mime_types(theirs[key]))

    def test_modern_rounds_are_the_sdks(self) -> None:
        ours, theirs = modern_frames("ref"), modern_frames("sdk")
        for method in ours:
            with self.subTest(method=method):
                asked, answered = ours[method]
                self.assertEqual(asked["result"]["resultType"], "input_required")
                self.assertIn('"text": "', json.dumps(answered["result"]))
                self.assertIn("Paris", json.dumps(answered["result"]))
                if method == "tools/call":  # the SDK's Context reads the answers of a tool only
                    self.assertEqual([asked, answered], theirs[method])
                else:  # mcp_ref signs a requestState even when the function gave none
                    self.assertEqual(dict(asked["result"], requestState=False), theirs[method][0]["result"])

    def test_the_deliberate_differences(self) -> None:
        ours = session_frames("ref")
        self.assertEqual(ours["prompts/get prompt_message"]["result"]["messages"],
                         [{"role": "assistant", "content": {"type": "text", "text": "as the assistant"}}])
        self.assertEqual(ours["prompts/get whole_result"]["result"]["messages"],
                         [{"role": "user", "content": {"type": "text", "text": "x"}}])


@unittest.skipUnless(HAVE_SDK, NEEDS_SDK)
class InsideOurObjectsTest(unittest.TestCase):
    """The SDK's models inside mcp_ref's own blocks and messages: as the SDK sends them."""

    def test_resource_contents_in_our_embedded_resource(self) -> None:
        from mcp.types import Annotations, TextResourceContents

        def embed() -> Any:
            return mcp_ref.EmbeddedResource(resource=TextResourceContents(uri="test://a", text="t"),
                                            annotations=Annotations(priority=0.5))

        server = mcp_ref.MCPServer("t")
        server.add_tool(embed)
        self.assertEqual(server.call_tool("embed"), {
            "content": [{"type": "resource", "resource": {"uri": "test://a", "text": "t"},
                         "annotations": {"priority": 0.5}}],
            "isError": False})

    def test_resource_contents_in_a_message_dict(self) -> None:
        from mcp.types import BlobResourceContents

        server = mcp_ref.MCPServer("t")

        @server.prompt()
        def embedded() -> Any:
            return {"role": "user", "content": {"type": "resource",
                                                "resource": BlobResourceContents(uri="test://b", blob="AA==")}}

        self.assertEqual(server.get_prompt("embedded")["messages"],
                         [{"role": "user", "content": {"type": "resource", "resource": {
                             "uri": "test://b", "blob": "AA==",
                             "mimeType": "application/octet-stream"}}}])  # docs/sdk-differences.md, 55: supplied

    def test_the_sdks_input_required_result_in_a_session_is_refused_as_ours(self) -> None:
        from mcp.types import InputRequiredResult

        server = mcp_ref.MCPServer("t")

        @server.tool()
        def ask() -> Any:
            return InputRequiredResult(request_state="s")

        text = server.call_tool("ask", protocol_version="2025-11-25")["content"][0]["text"]
        self.assertTrue(text.startswith("Error executing tool ask: InputRequiredResult exists only in protocol "
                                        "2026-07-28"), text)


@unittest.skipUnless(HAVE_SDK, NEEDS_SDK)
class SdkServerCodeTest(unittest.TestCase):
    """What SDK-written server code does with the SDK's own classes (section 28)."""

    def answers(self, fn: Any) -> str:
        """What ``fn`` returns on the retry that carries ANSWER."""
        server = mcp_ref.MCPServer("t")
        server.add_tool(fn)
        request = mcp_ref._Request(None, None, "2026-07-28", {"inputResponses": ANSWER})
        return server._invoke(server._tool_named(fn.__name__), {}, request)["content"][0]["text"]  # type: ignore

    def test_input_responses_are_the_sdks_models_to_the_sdks_context(self) -> None:
        from mcp.server.mcpserver import Context as SdkContext
        from mcp.types import ElicitResult

        def sdk(ctx: SdkContext) -> str:  # the SDK's idiom: isinstance against its own class
            answer = (ctx.input_responses or {})["city"]
            return f"{isinstance(answer, ElicitResult)} {answer.action} {answer.content}"

        def ours(ctx: mcp_ref.Context) -> str:  # mcp_ref's: its own classes, still the client's JSON
            answer = (ctx.input_responses or {})["city"]
            return f"{isinstance(answer, ElicitResult)} {answer.action} {answer['content']}"

        self.assertEqual(self.answers(sdk), "True accept {'city': 'Paris'}")
        self.assertEqual(self.answers(ours), "False accept {'city': 'Paris'}")

    def test_every_function_that_takes_the_sdks_context_gets_the_sdks_models(self) -> None:
        # A tool, a plain resource, a resource template and a prompt alike: the
        # answers of ctx.session, of ctx.elicit and ctx.input_responses.
        from mcp.server.elicitation import AcceptedElicitation
        from mcp.server.mcpserver import Context as SdkContext
        from mcp.types import ElicitResult, ListRootsResult
        from pydantic import BaseModel

        class City(BaseModel):
            city: str

        def seen(ctx: SdkContext) -> str:
            elicited = ctx.session.elicit_form("City?", {"type": "object", "properties": {"city": {"type": "string"}}})
            roots = ctx.session.list_roots()
            outcome = ctx.elicit("City?", City)
            answer = (ctx.input_responses or {})["city"]
            return " ".join(type(v.result()).__name__ + str(isinstance(v.result(), t)) for v, t in (
                (elicited, ElicitResult), (roots, ListRootsResult), (outcome, AcceptedElicitation))) + \
                f" {isinstance(answer, ElicitResult)} {outcome.result().data.city}"

        def tool(ctx: SdkContext) -> str:
            return seen(ctx)

        def plain(ctx: SdkContext) -> str:
            return seen(ctx)

        def template(name: str, ctx: SdkContext) -> str:
            return seen(ctx)

        def prompt(ctx: SdkContext) -> str:
            return seen(ctx)

        def resolver(ctx: SdkContext) -> str:
            return seen(ctx)

        def resolved(answer: Annotated[str, mcp_ref.Resolve(resolver)]) -> str:
            return answer

        server = mcp_ref.MCPServer("t")
        server.add_tool(tool)
        server.add_tool(resolved)
        server.resource("test://plain")(plain)
        server.resource("test://t/{name}")(template)
        server.prompt()(prompt)

        def request() -> Any:
            caps = {"elicitation": {"form": {}}, "roots": {}}
            made = mcp_ref._Request(None, None, "2026-07-28", {"inputResponses": ANSWER, "_meta": {
                "io.modelcontextprotocol/clientCapabilities": caps}})
            made.answers.update({"elicitation_0": ANSWER["city"], "roots_1": {"roots": [{"uri": "file:///r"}]},
                                 "elicitation_2": ANSWER["city"]})
            return made

        expected = "ElicitResultTrue ListRootsResultTrue AcceptedElicitationTrue True Paris"
        self.assertEqual(server._invoke(server._tool_named("tool"), {}, request())["content"][0]["text"], expected)
        self.assertEqual(server._invoke(server._tool_named("resolved"), {}, request())["content"][0]["text"], expected)
        for uri in ("test://plain", "test://t/x"):
            self.assertEqual(mcp_ref._read_resource(server, uri, request())[0]["contents"][0]["text"], expected)
        rendered = server._prompts["prompt"].render({}, server, request())
        self.assertEqual(rendered["messages"][0]["content"]["text"], expected)

    def test_the_sdks_prompt_object_is_registered(self) -> None:
        from mcp.server.mcpserver.prompts.base import Prompt as SdkPrompt

        def greet(name: str) -> str:
            """Greets."""
            return f"Hello {name}"

        server = mcp_ref.MCPServer("t")
        server.add_prompt(SdkPrompt.from_function(greet, name="hello", description="a greeting"))
        self.assertEqual(server.get_prompt("hello", {"name": "Ann"})["messages"],
                         [{"role": "user", "content": {"type": "text", "text": "Hello Ann"}}])
        with self.assertRaisesRegex(TypeError, "add_prompt takes a Prompt, not str"):
            server.add_prompt("hello")  # type: ignore[arg-type]


class NothingImportedTest(unittest.TestCase):
    def test_a_server_of_plain_values_imports_neither_the_sdk_nor_pydantic(self) -> None:
        # The hooks decide by the class's module: a value that did not come from
        # the SDK costs no import.
        code = ("import sys, mcp_ref\n"
                "s = mcp_ref.MCPServer('t')\n"
                "s.add_tool(lambda: {'a': [1]}, name='t')\n"
                "s.add_prompt(mcp_ref.Prompt(lambda: ['hi', {'role': 'user', 'content': 'x'}], name='p'))\n"
                "s.call_tool('t'); s.get_prompt('p')\n"
                "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types', 'pydantic')))\n")
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=HERE)
        self.assertEqual((run.stdout, run.stderr), ("[]\n", ""))


if __name__ == "__main__":
    unittest.main()

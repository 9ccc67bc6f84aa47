"""Resources and prompts (sections 10-11) as the layers refine it: the tests of the topic that need a layer
(SDK fidelity, patterns, the client, the command line or the accelerators); the
core's own are in tests/core/test_resources.py.

Sections 10 and 11: resources, URI templates, prompts and completion.

Runs with ``python -m unittest`` and no package installed.  What the SDK
publishes and answers comes from ``testdata/sdk_resource_expectations.json``
(recorded by ``testdata/regen_resource_expectations.py`` from
``testdata/resource_corpus.py``); where mcp_ref deliberately differs
(docs/sdk-differences.md), the test asserts our behaviour and
names the item.  Frames are whole JSON-RPC responses, made in process by a
connection without a transport (test_wire.py drives the same over pipes).
"""

import os
import sys
import unittest
from typing import Any, Dict

from tests._testing import HERE  # the repository's root

from tests.core.test_resources import (BAD_VARIABLES, Frames, MCPServer, META, MODERN, PROMPT_ERRORS, PROMPT_RESULTS,
    cleandoc, defined_in, load_corpus, mcp_ref, recorded_revisions)


sys.path.insert(0, HERE)

sys.path.insert(0, os.path.join(HERE, "tests", "testdata"))


class SdkParityTest(unittest.TestCase):
    """Every response of the corpus, in three revisions, against the SDK's."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.corpus = load_corpus()

    def frames(self, version: str) -> Frames:
        return Frames(self.corpus.server, version)

    def test_reads(self) -> None:
        for version, recorded in recorded_revisions().items():
            frames = self.frames(version)
            for uri, expected in recorded["reads"]:
                with self.subTest(version=version, uri=uri):
                    ours = frames.ask("resources/read", {"uri": uri})
                    if uri in BAD_VARIABLES:  # 17
                        self.assertEqual(expected["error"]["code"], -32603)
                        expected = {"error": {"code": -32602, "data": {"uri": uri}, "message": (
                            f"Invalid params: {uri} does not fit resource template {BAD_VARIABLES[uri]}")}}
                    elif "error" in expected and expected["error"]["code"] == -32602 and version != MODERN:
                        expected["error"]["code"] = -32002  # 16: not found, as the handshake revisions number it
                    elif "result" in expected:
                        expected["result"]["contents"] = [defined_in(version, c)
                                                          for c in expected["result"]["contents"]]
                    self.assertEqual(ours, expected)

    def test_prompts(self) -> None:
        for version, recorded in recorded_revisions().items():
            frames = self.frames(version)
            for name, arguments, expected in recorded["gets"]:
                key = f"{name} {arguments}"
                with self.subTest(version=version, prompt=key):
                    ours = frames.ask("prompts/get", {"name": name, "arguments": arguments})
                    if key in PROMPT_ERRORS:  # 18
                        code, message = PROMPT_ERRORS[key]
                        self.assertIn(expected["error"]["code"], (0, -32603))
                        expected = {"error": {"code": code, "message": message}}
                    elif key in PROMPT_RESULTS:  # 19
                        self.assertIn("error", expected)
                        expected = {"result": dict(PROMPT_RESULTS[key], **(
                            {k: v for k, v in ours.get("result", {}).items() if k in ("resultType", "_meta")}))}
                    else:
                        expected["result"] = cleandoc(expected["result"])
                        if version < "2025-03-26":  # 15: no audio blocks before 2025-03-26
                            for message in expected["result"]["messages"]:
                                if message["content"]["type"] == "audio":
                                    message["content"] = {"type": "text", "text": "[audio content, audio/wav, not "
                                                                                  "supported by 2024-11-05]"}
                            if name == "rich":  # and no resource links before 2025-06-18
                                expected["result"]["messages"][4]["content"] = {
                                    "type": "text", "text": "[resource link: config://app]"}
                    self.assertEqual(ours, expected)


class RegistrationTest(unittest.TestCase):
    def test_string_annotations(self) -> None:
        # The same fixtures with ``from __future__ import annotations``.
        namespace: Dict[str, Any] = {}
        exec(compile("from __future__ import annotations\n"
                     "import typing\n"
                     "def item(n: int, tags: typing.List[str]) -> str:\n"
                     "    return f'{n + 1} {tags}'\n", "<fixture>", "exec"), namespace)
        server = MCPServer("r")
        exec(compile("from __future__ import annotations\n"
                     "def one_more(n: int, tags: str = '') -> str:\n"
                     "    return f'{n + 1}'\n", "<fixture>", "exec"), namespace)
        server.resource("items://{n}{?tags}")(namespace["one_more"])
        server.prompt()(namespace["item"])
        self.assertEqual(server.read_resource("items://41")["contents"][0]["text"], "42")
        self.assertEqual(server.get_prompt("item", {"n": "1", "tags": '["a"]'})["messages"][0]["content"]["text"],
                         "2 ['a']")


class ContextTest(unittest.TestCase):
    """A template's or a prompt's parameter annotated Context is the server's to fill."""

    def test_templates_and_prompts_take_a_context(self) -> None:
        server = mcp_ref.MCPServer("ctx")

        @server.resource("users://{id}/profile")
        def profile(id: int, ctx: mcp_ref.Context) -> str:
            return f"{id} {ctx.protocol_version} {ctx.meta.trace}"

        @server.prompt()
        def hello(name: str, ctx: mcp_ref.Context) -> str:
            return f"hi {name} {ctx.protocol_version}"

        self.assertEqual([a["name"] for a in server.list_prompts()[0]["arguments"]], ["name"])
        self.assertEqual(server.read_resource("users://3/profile")["contents"][0]["text"], "3 None None")
        rpc = mcp_ref._Dispatcher(server)
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}, "trace": "t1"}
        read = rpc.resources_read({"uri": "users://4/profile", "_meta": meta}, "2026-07-28")
        self.assertEqual(read["contents"][0]["text"], "4 2026-07-28 t1")
        got = rpc.prompts_get({"name": "hello", "arguments": {"name": "b"}, "_meta": meta}, "2026-07-28")
        self.assertEqual(got["messages"][0]["content"]["text"], "hi b 2026-07-28")

    def test_a_static_resource_takes_a_context(self) -> None:
        # The SDK refuses a Context on a resource without URI variables; the spec
        # has nothing against it, and a static resource may want to log or ask too.
        server = mcp_ref.MCPServer("ctx", request_state_key="k")

        @server.resource("data://roots")
        def roots(ctx: mcp_ref.Context) -> str:
            return ", ".join(r.name for r in ctx.session.list_roots().result().roots)

        @server.tool()
        def reads(ctx: mcp_ref.Context) -> str:
            return str(ctx.read_resource("data://roots").result()[0].content)

        rpc = mcp_ref._Dispatcher(server)
        meta = dict(META, **{"io.modelcontextprotocol/clientCapabilities": {"roots": {}}})
        first = rpc.resources_read({"uri": "data://roots", "_meta": meta}, MODERN)
        self.assertEqual((first["resultType"], first["inputRequests"]),
                         ("input_required", {"roots_0": {"method": "roots/list", "params": {}}}))
        retry = {"uri": "data://roots", "_meta": meta, "requestState": first["requestState"],
                 "inputResponses": {"roots_0": {"roots": [{"uri": "file:///a", "name": "a"}]}}}
        self.assertEqual(rpc.resources_read(retry, MODERN)["contents"][0]["text"], "a")
        # Read from a tool, the resource's question is the tool's (the same request):
        # in process there is no client, which declared nothing.
        with self.assertRaises(mcp_ref.MCPError) as refused:
            server.call_tool("reads", {})
        self.assertEqual((refused.exception.code, refused.exception.data), (-32021, {"requiredCapabilities": {
            "roots": {}}}))
        with self.assertRaises(mcp_ref._RpcError) as caught:
            rpc.resources_read({"uri": "data://roots", "_meta": META}, MODERN)
        self.assertEqual((caught.exception.code, caught.exception.data), (-32021, {"requiredCapabilities": {
            "roots": {}}}))

    def test_resolve_parameters_are_for_tools(self) -> None:
        from typing import Annotated

        server = mcp_ref.MCPServer("ctx")

        def value() -> str:
            return "v"

        with self.assertRaises(mcp_ref.InvalidSignature) as caught:
            @server.prompt()
            def asks(x: Annotated[str, mcp_ref.Resolve(value)]) -> str:
                return x
        self.assertEqual(str(caught.exception), "'asks': Resolve(...) parameters are for tools; a resource or a "
                                                "prompt asks the client through its Context")


if __name__ == "__main__":
    unittest.main()

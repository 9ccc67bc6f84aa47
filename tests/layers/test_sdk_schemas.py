"""Schemas as the SDK writes them from what a server file declares.

* A tool returning a union with ``InputRequiredResult`` (2026-07-28,
  basic/patterns/mrtr): the output schema is the rest of the union's, as the
  SDK's func_metadata strips that arm (section 9, _data_arms), and the final
  round sends ``structuredContent``.
* ``Field(json_schema_extra=...)``, a dict or a callable, as pydantic applies it
  (section 26): ``x-mcp-header`` (checked over HTTP, 2026-07-28
  basic/transports) and SEP-1330's titled enums among them.

The expected schemas are the SDK's (mcp 2.3 with pydantic 2), written out; with
the SDK installed the tests also compare with it live.
"""

import asyncio
import contextlib
import dataclasses
import importlib.util
import io
import json
import unittest
from typing import Annotated, Any, Dict, List, Optional, Sequence, Union

from tests._testing import mcp_ref

from tests.core.test_http import InProcess, MODERN


HAVE_SDK = importlib.util.find_spec("mcp") is not None and importlib.util.find_spec("mcp.server") is not None

NEEDS_SDK = "the official SDK (pip install 'mcp==2.3.*') is not installed; .ci/run installs it"

IRR = mcp_ref.InputRequiredResult

ELICITING = {"io.modelcontextprotocol/protocolVersion": MODERN,
             "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}


def output_schemas(server: Any) -> Dict[str, Any]:
    return {tool["name"]: tool.get("outputSchema") for tool in server.list_tools()}


def wrapped(name: str, result: Dict[str, Any]) -> Dict[str, Any]:
    return {"properties": {"result": dict(result, title="Result")}, "required": ["result"],
            "title": f"{name}Output", "type": "object"}


def union_tools(irr: Any) -> List[Any]:
    """Tools whose return annotations hold ``irr`` (ours or the SDK's class)."""
    def text() -> Union[str, irr]:  # type: ignore[valid-type]
        return "x"

    def alone() -> irr:  # type: ignore[valid-type]
        return irr(input_requests={})

    def two() -> Union[int, str, irr]:  # type: ignore[valid-type]
        return 1

    def optional() -> Optional[Union[irr, Dict[str, Any]]]:  # type: ignore[valid-type]
        return {}

    def items() -> Union[List[str], irr]:  # type: ignore[valid-type]
        return ["a"]

    def mapping() -> Union[dict[str, int], irr]:  # type: ignore[valid-type]
        return {"a": 1}

    return [text, alone, two, optional, items, mapping]


# The SDK's outputSchema of each (mcp 2.3): the rest of the union, wrapped as it would be alone.
UNION_SCHEMAS = {
    "text": wrapped("text", {"type": "string"}),
    "alone": None,
    "two": wrapped("two", {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
    "optional": wrapped("optional", {"anyOf": [{"additionalProperties": True, "type": "object"}, {"type": "null"}]}),
    "items": wrapped("items", {"items": {"type": "string"}, "type": "array"}),
    "mapping": {"additionalProperties": {"type": "integer"}, "title": "mappingDictOutput", "type": "object"},
}


class InputRequiredUnionTest(unittest.TestCase):
    def test_the_output_schema_is_the_rest_of_the_union(self) -> None:
        server = mcp_ref.MCPServer("u")
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            for fn in union_tools(IRR):
                server.add_tool(fn)
            server.add_tool(union_tools(IRR)[1], name="alone_structured", structured_output=True)
        self.assertEqual(output_schemas(server), dict(UNION_SCHEMAS, alone_structured=None))
        self.assertEqual(stderr.getvalue(), "")  # no "is unstructured"

    def test_the_final_round_sends_structured_content(self) -> None:
        server = mcp_ref.MCPServer("u")
        question = {"method": "elicitation/create", "params": {"mode": "form", "message": "Name?", "requestedSchema": {
            "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}

        @server.tool()
        def greet(ctx: mcp_ref.Context) -> Union[str, IRR]:
            if not ctx.input_responses:
                return IRR(input_requests={"name": question}, request_state="asked")
            return f"hello {ctx.input_responses['name']['content']['name']} ({ctx.request_state})"

        endpoint = InProcess(server)
        self.addCleanup(endpoint.stop)
        first = call(endpoint, 1, {"name": "greet", "arguments": {}})["result"]
        self.assertEqual((first["resultType"], first["inputRequests"]), ("input_required", {"name": question}))
        final = call(endpoint, 2, {"name": "greet", "arguments": {}, "requestState": first["requestState"],
                                   "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}}})
        self.assertEqual({k: v for k, v in final["result"].items() if k != "_meta"}, {
            "content": [{"type": "text", "text": "hello Ada (asked)"}],
            "structuredContent": {"result": "hello Ada (asked)"}, "isError": False, "resultType": "complete"})

    @unittest.skipUnless(HAVE_SDK, NEEDS_SDK)
    def test_the_sdks_class_and_the_sdks_schemas(self) -> None:
        self.maxDiff = None
        from mcp.server import MCPServer
        from mcp.types import InputRequiredResult

        ours, theirs = mcp_ref.MCPServer("u"), MCPServer("u")
        for fn in union_tools(InputRequiredResult):
            ours.add_tool(fn)
            theirs.add_tool(fn)
        listed = asyncio.run(theirs.list_tools())
        sdk = {t.name: t.model_dump(by_alias=True, exclude_none=True).get("outputSchema") for t in listed}
        self.assertEqual(sdk, UNION_SCHEMAS)
        self.assertEqual(output_schemas(ours), UNION_SCHEMAS)


def seen(schema: Dict[str, Any]) -> None:
    """A json_schema_extra function: it records the keys it was shown."""
    schema["seen"] = sorted(schema)


def extra_tools(F: Any) -> List[Any]:
    """Tools whose parameters use ``F`` (mcp_ref's Field or pydantic's) with json_schema_extra."""
    def header(region: Annotated[str, F(description="Mirrored", json_schema_extra={"x-mcp-header": "Region"})]
               = "<none>") -> str:  # the conformance fixture's parameter
        return region

    def default_field(q: str = F("", json_schema_extra=seen)) -> str:
        return q

    def annotated_callable(q: Annotated[str, F(json_schema_extra=seen)]) -> str:
        return q

    def override(n: int = F(3, title="T", description="d", json_schema_extra={"title": "over", "description": "D2",
                                                                            "default": 4})) -> int:
        return n

    def titled(color: str = F(json_schema_extra={"oneOf": [{"const": "r", "title": "Red"},
                                                           {"const": "g", "title": "Green"}]})) -> str:
        return color

    choices = {"items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}}

    def multi(tags: List[str] = F(json_schema_extra=choices)) -> str:  # noqa: B008
        return ",".join(tags)

    def opt(n: Annotated[Optional[int], F(ge=1, json_schema_extra=seen)] = 2) -> str:  # (None: 3.9 wraps it)
        return str(n)

    def legacy(size: str = F("m", json_schema_extra={"enum": ["s", "m"], "enumNames": ["Small", "Medium"]})) -> str:
        return size

    @dataclasses.dataclass
    class Pt:
        level: str = F("low", json_schema_extra={"oneOf": [{"const": "low", "title": "Low"}]})
        x: Annotated[int, F(json_schema_extra={"x-k": 1})] = 0

    def dc(p: Pt) -> str:
        return p.level

    def ann_default(n: Annotated[int, F(json_schema_extra={"default": 9})] = 3) -> int:
        return n

    def items(t: List[Annotated[str, F(json_schema_extra={"x-i": 1})]]) -> str:
        return ",".join(t)

    def ref(p: Annotated[Pt, F(description="a point", json_schema_extra={"x-r": 1})]) -> str:
        return p.level

    return [header, default_field, annotated_callable, override, titled, multi, opt, legacy, dc, ann_default, items,
            ref]


PT = {"properties": {"level": {"default": "low", "oneOf": [{"const": "low", "title": "Low"}], "title": "Level",
                               "type": "string"},
                     "x": {"default": 0, "title": "X", "type": "integer", "x-k": 1}},
      "title": "Pt", "type": "object"}


def arguments(name: str, properties: Dict[str, Any], required: Sequence[str] = (), **more: Any) -> Dict[str, Any]:
    schema = dict(more, properties=properties, title=f"{name}Arguments", type="object")
    return dict(schema, required=list(required)) if required else schema


# The SDK's inputSchema of each, with pydantic's Field (mcp 2.3, pydantic 2.14).
EXTRA_SCHEMAS = {
    "header": arguments("header", {"region": {"default": "<none>", "description": "Mirrored", "title": "Region",
                                              "type": "string", "x-mcp-header": "Region"}}),
    "default_field": arguments("default_field", {"q": {"default": "", "seen": ["default", "type"], "title": "Q",
                                                       "type": "string"}}),
    "annotated_callable": arguments("annotated_callable", {"q": {"seen": ["type"], "title": "Q", "type": "string"}},
                                    ["q"]),
    "override": arguments("override", {"n": {"default": 4, "description": "D2", "title": "over", "type": "integer"}}),
    "titled": arguments("titled", {"color": {
        "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}], "title": "Color",
        "type": "string"}},
        ["color"]),
    "multi": arguments("multi", {"tags": {
        "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}, "title": "Tags",
        "type": "array"}},
        ["tags"]),
    "opt": arguments("opt", {"n": {"anyOf": [{"minimum": 1, "type": "integer"}, {"type": "null"}], "default": 2,
                                   "seen": ["anyOf", "default"], "title": "N"}}),
    "legacy": arguments("legacy", {"size": {"default": "m", "enum": ["s", "m"], "enumNames": ["Small", "Medium"],
                                            "title": "Size", "type": "string"}}),
    "dc": arguments("dc", {"p": {"$ref": "#/$defs/Pt"}}, ["p"], **{"$defs": {"Pt": PT}}),
    "ann_default": arguments("ann_default", {"n": {"default": 9, "title": "N", "type": "integer"}}),
    "items": arguments("items", {"t": {"items": {"type": "string", "x-i": 1}, "title": "T", "type": "array"}}, ["t"]),
    "ref": arguments("ref", {"p": {"$ref": "#/$defs/Pt", "description": "a point", "x-r": 1}}, ["p"],
                     **{"$defs": {"Pt": PT}}),
}


def input_schemas(server: Any) -> Dict[str, Any]:
    return {tool["name"]: tool["inputSchema"] for tool in server.list_tools()}


def server_of(tools: List[Any]) -> Any:
    server = mcp_ref.MCPServer("x")
    for fn in tools:
        server.add_tool(fn)
    return server


class FieldExtraTest(unittest.TestCase):
    def test_the_sdks_schemas(self) -> None:
        # A dict merged over the Field's own keywords; a function shown the schema
        # (with the default, without the title) as pydantic shows it.
        self.maxDiff = None
        self.assertEqual(input_schemas(server_of(extra_tools(mcp_ref.Field))), EXTRA_SCHEMAS)

    def test_an_output_schema_too(self) -> None:
        @dataclasses.dataclass
        class Out:
            a: str = mcp_ref.Field("x", json_schema_extra={"x-o": 1})

        def made() -> Out:
            return Out()

        def text() -> Annotated[str, mcp_ref.Field(json_schema_extra={"x-w": 1})]:
            return ""

        self.assertEqual(output_schemas(server_of([made, text])), {
            "made": {"properties": {"a": {"default": "x", "title": "A", "type": "string", "x-o": 1}}, "title": "Out",
                     "type": "object"},
            "text": wrapped("text", {"type": "string", "x-w": 1})})

    def test_arguments_keep_their_python_defaults(self) -> None:
        # An extra's "default" is published; the function's own default is what it gets.
        server = server_of(extra_tools(mcp_ref.Field))
        for name in ("override", "ann_default"):
            self.assertEqual(server.call_tool(name, {})["structuredContent"], {"result": 3})

    def test_its_keywords_are_checked(self) -> None:
        # docs/sdk-differences.md, 39: published, so checked (pydantic publishes them only).
        server = server_of(extra_tools(mcp_ref.Field))
        self.assertEqual(server.call_tool("titled", {"color": "r"})["structuredContent"], {"result": "r"})
        self.assertEqual(server.call_tool("titled", {"color": "b"}), {"content": [{"type": "text", "text": (
            "Error executing tool titled: 1 validation error for titledArguments\ncolor\n  Input should match exactly "
            "one schema [type=one_of, input_value='b', input_type=str]")}], "isError": True})

    def test_anything_but_a_dict_or_a_function_is_refused(self) -> None:
        with self.assertRaises(TypeError) as refused:
            mcp_ref.Field(json_schema_extra=[("x-mcp-header", "Region")])  # type: ignore[arg-type]
        self.assertEqual(str(refused.exception), "json_schema_extra is a dict or a function of the schema, not list")

    def test_a_titled_enum_in_an_elicitation(self) -> None:
        # SEP-1330: a single choice as oneOf of const and title, a multiple one as items' anyOf.
        @dataclasses.dataclass
        class Choice:
            level: str = mcp_ref.Field(json_schema_extra={"oneOf": [{"const": "low", "title": "Low"},
                                                                    {"const": "high", "title": "High"}]})
            tags: List[str] = mcp_ref.Field(json_schema_extra={"items": {"anyOf": [{"const": "a", "title": "A"}]}})

        server = mcp_ref.MCPServer("e")

        @server.tool()
        async def pick(ctx: mcp_ref.Context) -> str:
            answer = await ctx.elicit("Pick", Choice)
            return f"{answer.data.level} {answer.data.tags}"

        endpoint = InProcess(server)
        self.addCleanup(endpoint.stop)
        first = call(endpoint, 1, {"name": "pick", "arguments": {}})["result"]
        self.assertEqual(first["inputRequests"]["elicitation_0"]["params"]["requestedSchema"], {
            "properties": {"level": {"oneOf": [{"const": "low", "title": "Low"}, {"const": "high", "title": "High"}],
                                     "title": "Level", "type": "string"},
                           "tags": {"items": {"anyOf": [{"const": "a", "title": "A"}]}, "title": "Tags",
                                    "type": "array"}},
            "required": ["level", "tags"], "title": "Choice", "type": "object"})
        answered = {"elicitation_0": {"action": "accept", "content": {"level": "high", "tags": ["a"]}}}
        final = call(endpoint, 2, {"name": "pick", "arguments": {}, "requestState": first["requestState"],
                                   "inputResponses": answered})["result"]
        self.assertEqual(final["structuredContent"], {"result": "high ['a']"})

    @unittest.skipUnless(HAVE_SDK, NEEDS_SDK)
    def test_against_the_sdk(self) -> None:
        import pydantic
        from mcp.server import MCPServer

        self.maxDiff = None
        theirs = MCPServer("x")
        for fn in extra_tools(pydantic.Field):
            theirs.add_tool(fn)
        sdk = {t.name: t.model_dump(by_alias=True, exclude_none=True)["inputSchema"]
               for t in asyncio.run(theirs.list_tools())}
        self.assertEqual(sdk, EXTRA_SCHEMAS)
        self.assertEqual(input_schemas(server_of(extra_tools(pydantic.Field))), EXTRA_SCHEMAS)  # pydantic's own


class CustomHeaderTest(unittest.TestCase):
    """x-mcp-header from a Field, checked over HTTP (2026-07-28 basic/transports,
    "Custom Headers from Tool Parameters"), as the conformance scenario
    http-custom-header-server-validation sends them."""

    def test_mirrored_headers(self) -> None:
        endpoint = InProcess(server_of(extra_tools(mcp_ref.Field)[:1]))
        self.addCleanup(endpoint.stop)
        for n, (region, header, status) in enumerate((
                ("eu", "eu", 200), ("eu", "us", 400), ("eu", None, 400), (None, None, 200), (None, "eu", 400),
                ("  x", "=?base64?ICB4?=", 200)), start=1):
            with self.subTest(region=region, header=header):
                params: Dict[str, Any] = {"name": "header", "arguments": {} if region is None else {"region": region}}
                reply = endpoint.modern("tools/call", params, id_=n, headers=None if header is None else {
                    "Mcp-Param-Region": header})
                self.assertEqual(reply.status, status, reply.body)
                body = json.loads(reply.body)
                if status == 400:
                    self.assertEqual(body["error"]["code"], -32020)
                else:
                    self.assertEqual(body["result"]["structuredContent"], {"result": region or "<none>"})


def call(endpoint: Any, id_: int, params: Dict[str, Any]) -> Dict[str, Any]:
    """A 2026-07-28 tools/call from a client that declared elicitation."""
    reply = endpoint.request("POST", {"jsonrpc": "2.0", "id": id_, "method": "tools/call",
                                      "params": dict(params, _meta=ELICITING)},
                             {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": params["name"]})
    assert reply.status == 200, reply.body
    return json.loads(reply.body)  # type: ignore[no-any-return]


if __name__ == "__main__":
    unittest.main()

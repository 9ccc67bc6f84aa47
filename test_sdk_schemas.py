"""Schemas as the SDK writes them from what a server file declares.

* A tool returning a union with ``InputRequiredResult`` (2026-07-28,
  basic/patterns/mrtr): the output schema is the rest of the union's, as the
  SDK's func_metadata strips that arm (section 24, _data_arms), and the final
  round sends ``structuredContent``.
* ``Field(json_schema_extra=...)``, a dict or a callable, as pydantic applies it
  (section 23): ``x-mcp-header`` (checked over HTTP, 2026-07-28
  basic/transports) and SEP-1330's titled enums among them.

The expected schemas are the SDK's (mcp 2.3 with pydantic 2), written out; with
the SDK installed the tests also compare with it live.
"""

import asyncio
import contextlib
import importlib.util
import io
import json
import sys
import unittest
from typing import Any, Dict, List, Optional, Union

from _testing import mcp_ref
from test_http import MODERN, InProcess

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


def call(endpoint: Any, id_: int, params: Dict[str, Any]) -> Dict[str, Any]:
    """A 2026-07-28 tools/call from a client that declared elicitation."""
    reply = endpoint.request("POST", {"jsonrpc": "2.0", "id": id_, "method": "tools/call",
                                      "params": dict(params, _meta=ELICITING)},
                             {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": params["name"]})
    assert reply.status == 200, reply.body
    return json.loads(reply.body)  # type: ignore[no-any-return]


if __name__ == "__main__":
    unittest.main()

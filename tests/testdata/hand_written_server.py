"""Tools with hand-written schemas (MCPServer.add_tool(input_schema=..., output_schema=...)),
for test_hand_written.py."""

import os
import sys
from typing import Any, Dict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from mcp_ref import Context, MCPServer  # noqa: E402

CONTACT = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                          "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
                   "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                   "phone": {"type": "string"}, "email": {"type": "string"}},
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}
SCALE_IN = {"type": "object", "properties": {"values": {"type": "array", "items": {"type": "number"}},
                                             "factor": {"type": "integer", "minimum": 1}},
            "required": ["values"]}
SCALE_OUT = {"type": "object", "properties": {"scaled": {"type": "array", "items": {"type": "number"}}},
             "required": ["scaled"], "additionalProperties": False}

mcp = MCPServer("hand-written")


@mcp.tool(input_schema=CONTACT)
def contact(**arguments: Any) -> str:
    """Every argument, as the JSON it came as."""
    return repr(sorted(arguments.items()))


@mcp.tool(input_schema=SCALE_IN, output_schema=SCALE_OUT)
def scale(values: Any, ctx: Context, factor: int = 2) -> Dict[str, Any]:
    return {"scaled": [v * factor for v in values]}


@mcp.tool(output_schema=SCALE_OUT)
def halve(values: list, wrong: bool = False) -> Dict[str, Any]:
    """Input from the signature, output by hand."""
    return {"scaled": [v / 2 for v in values], **({"extra": 1} if wrong else {})}


if __name__ == "__main__":
    mcp.run()

"""Hand-written schemas (section 28, _SchemaTool): ``add_tool(fn, input_schema=...,
output_schema=...)`` and ``@tool(...)`` publish them as written, check the
arguments against the inputSchema strictly (section 6) and hand them over as
JSON values, and check a result against the outputSchema.

testdata/hand_written_server.py is served over stdio, the test playing the client;
registration is checked in process, in both accelerator modes.
"""

import json
import os
import sys
import unittest
from typing import Any, Dict

from tests._testing import BOTH, HERE, NEEDS_JSONSCHEMA, accelerators, has_module, mcp_ref, needs_layers

from tests.core.test_wire import ServerProcess


SERVER = os.path.join(HERE, "tests", "testdata", "hand_written_server.py")

sys.path.insert(0, os.path.join(HERE, "tests", "testdata"))

import hand_written_server as fixture  # noqa: E402  (its schemas, as written)


def text_result(text: str, structured: Any = None, error: bool = False) -> Dict[str, Any]:
    out: Dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if structured is not None:
        out["structuredContent"] = structured
    out["isError"] = error
    return out


class OnTheWireTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = ServerProcess(script=SERVER)
        cls.server.initialize()
        cls.ids = iter(range(1, 1000))

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.kill()

    def call(self, name: str, arguments: Dict[str, Any]) -> Any:
        reply = self.server.request(next(self.ids), "tools/call", {"name": name, "arguments": arguments})
        return reply["result"]

    def test_published_as_written(self) -> None:
        tools = self.server.request(next(self.ids), "tools/list", {})["result"]["tools"]
        self.assertEqual(tools[0]["inputSchema"], fixture.CONTACT)
        self.assertEqual(list(tools[0]["inputSchema"]), list(fixture.CONTACT))  # in its own key order
        self.assertEqual(tools[1], {"name": "scale", "description": "", "inputSchema": fixture.SCALE_IN,
                                    "outputSchema": fixture.SCALE_OUT})
        self.assertEqual(tools[2]["outputSchema"], fixture.SCALE_OUT)
        self.assertEqual(tools[2]["inputSchema"]["title"], "halveArguments")  # the signature's

    @needs_layers("sdk")  # the refusals in pydantic's words (section 24); the core says "$.phone: Field required"
    def test_arguments_checked_by_every_keyword_and_given_as_json(self) -> None:
        given = "[('address', {'city': 'X'}), ('email', 'a@b'), ('name', 'Ada')]"
        self.assertEqual(self.call("contact", {"name": "Ada", "email": "a@b", "address": {"city": "X"}}),
                         text_result(given, {"result": given}))  # -> str: the annotation's outputSchema
        self.assertEqual(self.call("contact", {"name": "Ada", "contactMethod": "phone", "email": "a@b"}), text_result(
            "Error executing tool contact: 1 validation error for contactArguments\nphone\n  Field required "
            "[type=missing, input_value={'name': 'Ada', 'contactM...'phone', 'email': 'a@b'}, input_type=dict]",
            error=True))  # if/then
        refused = self.call("contact", {"name": "Ada", "phone": "1", "fax": "2"})["content"][0]["text"]
        self.assertIn("fax\n  Extra inputs are not permitted", refused)  # additionalProperties: false

    @needs_layers("sdk")  # the refusals in pydantic's words (section 24); the core says "$.values[0]: ..."
    def test_strict_no_lax_conversion(self) -> None:
        self.assertEqual(self.call("scale", {"values": ["1"]}), text_result(
            "Error executing tool scale: 1 validation error for scaleArguments\nvalues.0\n  Input should be a valid "
            "number [type=float_type, input_value='1', input_type=str]", error=True))
        self.assertEqual(self.call("scale", {"values": [1], "factor": 0}), text_result(
            "Error executing tool scale: 1 validation error for scaleArguments\nfactor\n  Input should be greater "
            "than or equal to 1 [type=greater_than_equal, input_value=0, input_type=int]", error=True))

    @needs_layers("sdk")  # the refusal in pydantic's words (section 24); the core says "$.extra: ..."
    def test_results_checked_against_the_output_schema(self) -> None:
        self.assertEqual(self.call("scale", {"values": [1, 2.5]}),
                         text_result('{\n  "scaled": [\n    2,\n    5.0\n  ]\n}', {"scaled": [2, 5.0]}))
        self.assertEqual(self.call("halve", {"values": [1, 3]}),
                         text_result('{\n  "scaled": [\n    0.5,\n    1.5\n  ]\n}', {"scaled": [0.5, 1.5]}))
        self.assertEqual(self.call("halve", {"values": [1], "wrong": True}), text_result(
            "Error executing tool halve: 1 validation error for Output\nextra\n  Extra inputs are not permitted "
            "[type=extra_forbidden, input_value=1, input_type=int]", error=True))


class RegistrationTest(unittest.TestCase):
    def refused(self, fn: Any, **schemas: Any) -> str:
        with self.assertRaises(mcp_ref.InvalidSignature) as caught:
            mcp_ref.MCPServer("t").add_tool(fn, **schemas)
        return str(caught.exception)

    def test_what_cannot_be_a_hand_written_tool(self) -> None:
        def f(a: Any, b: int = 0) -> None:
            pass

        obj = {"type": "object", "properties": {"a": {}}}
        self.assertEqual(self.refused(f, input_schema={"type": "string"}),
                         'Tool f: its inputSchema must be a JSON Schema object with "type": "object"')
        self.assertEqual(self.refused(f, output_schema={"properties": {}}),
                         'Tool f: its outputSchema must be a JSON Schema object with "type": "object"')
        self.assertTrue(self.refused(f, input_schema={"type": "object", "default": float("nan")}).startswith(
            "Tool f: its inputSchema is not JSON (Out of range float values are not JSON compliant"))  # (3.13: ": nan")
        self.assertEqual(self.refused(f, input_schema={"type": "object", "properties": {"b": {}}}),
                         "Tool f: parameters ['a'] have no default and are not properties of its inputSchema "
                         "(or are positional-only)")
        self.assertEqual(self.refused(f, input_schema={"type": "object", "properties": {"a": {}, "c": {}}}),
                         "Tool f: the properties ['c'] of its inputSchema name no parameter; take them by name, or "
                         "all with **arguments")
        self.assertEqual(self.refused(lambda a: a, input_schema=obj), "You must provide a name for lambda functions")

    def test_only_json_schema_2020_12(self) -> None:
        # basic/index (2025-11-25, 2026-07-28), "JSON Schema Usage": no $schema is
        # 2020-12; a declared dialect the validator does not implement MUST be
        # refused with an error saying so.  2020-12 alone is implemented (docs/servers.md,
        # "Hand-written schemas"): draft-07 reads items, dependencies and $ref otherwise.
        def f() -> Any:
            return {}

        for dialect in ("https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#"):
            for key in ("input_schema", "output_schema"):
                with self.subTest(dialect=dialect, key=key):
                    server = mcp_ref.MCPServer("t")
                    server.add_tool(f, **{key: {"$schema": dialect, "type": "object"}})
                    self.assertEqual(len(server.list_tools()), 1)
        refused = ["http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-07/schema#",
                   "http://json-schema.org/draft-07/schema", "https://json-schema.org/draft/2019-09/schema",
                   "http://json-schema.org/draft/2020-12/schema", "https://example.com/my-dialect", "", 7, None]
        for dialect in refused:
            for key, name in (("input_schema", "inputSchema"), ("output_schema", "outputSchema")):
                with self.subTest(dialect=dialect, key=key):
                    self.assertEqual(self.refused(f, **{key: {"$schema": dialect, "type": "object"}}),
                                     f"Tool f: its {name} declares $schema {dialect!r}, a JSON Schema dialect mcp_ref "
                                     "does not support (it validates JSON Schema 2020-12 only: "
                                     "https://json-schema.org/draft/2020-12/schema)")
        # draft-07's tuple form: by 2020-12's rules ["a", "b"] would pass; refused, never misread.
        with self.assertRaises(ValueError) as raised:
            mcp_ref.validate(["a", "b"], {"$schema": "http://json-schema.org/draft-07/schema#", "type": "array",
                                          "items": [{"type": "integer"}]})
        self.assertIn("'http://json-schema.org/draft-07/schema#', a JSON Schema dialect mcp_ref does not support",
                      str(raised.exception))
        mcp_ref.validate([1], {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array",
                               "prefixItems": [{"type": "integer"}]})

    def test_an_invalid_schema_is_refused(self) -> None:
        # basic/index, "JSON Schema Usage": schemas MUST be valid according to their
        # dialect (2020-12's meta-schema); the first fault named by its JSON path.
        def f() -> Any:
            return {}

        prefix = "Tool f: its inputSchema is no valid JSON Schema 2020-12: "
        cases = [({"properties": {"a": {"type": "strnig"}}},
                  "$.properties.a.type: must be a JSON type name, or an array of distinct ones, not 'strnig'"),
                 ({"properties": {"a": {"minimum": "1"}}}, "$.properties.a.minimum: must be a number, not '1'"),
                 ({"required": "a"}, "$.required: must be an array of distinct strings, not 'a'"),
                 ({"required": ["a", "a"]}, "$.required: must be an array of distinct strings, not ['a', 'a']"),
                 ({"properties": []}, "$.properties: must be an object of schemas, not []"),
                 ({"properties": {"a": {"maxLength": -1}}},
                  "$.properties.a.maxLength: must be an integer >= 0, not -1"),
                 ({"properties": {"a": {"maxItems": 1.5}}},
                  "$.properties.a.maxItems: must be an integer >= 0, not 1.5"),
                 ({"properties": {"a": {"items": [{"type": "string"}]}}},  # draft-07's tuple form
                  "$.properties.a.items: a schema must be an object or a boolean, not [{'type': 'string'}]"),
                 ({"anyOf": []}, "$.anyOf: must be a non-empty array of schemas, not []"),
                 ({"allOf": [{"not": 3}]}, "$.allOf[0].not: a schema must be an object or a boolean, not 3"),
                 ({"properties": {"a": {"multipleOf": 0}}},
                  "$.properties.a.multipleOf: must be a number above 0, not 0"),
                 ({"$defs": {"x": {"uniqueItems": "yes"}}},
                  "$.$defs.x.uniqueItems: must be true or false, not 'yes'"),
                 ({"dependentRequired": {"a": "b"}},
                  "$.dependentRequired: must be an object of arrays of distinct strings, not {'a': 'b'}")]
        for schema, problem in cases:
            with self.subTest(problem=problem):
                self.assertEqual(self.refused(f, input_schema=dict(schema, type="object")), prefix + problem)
        self.assertEqual(self.refused(f, output_schema={"type": "object", "maxProperties": "2"}),
                         "Tool f: its outputSchema is no valid JSON Schema 2020-12: $.maxProperties: must be an "
                         "integer >= 0, not '2'")
        valid = {"type": ["object", "null"], "properties": {"t": {"type": "array", "prefixItems": [True],
                                                                  "items": False, "maxItems": 2.0}},
                 "unknownKeyword": [1], "required": [], "examples": [{}], "default": {}}
        mcp_ref.MCPServer("t").add_tool(lambda **a: "", name="g", input_schema=dict(valid, type="object"))

    @unittest.skipUnless(has_module("jsonschema"), NEEDS_JSONSCHEMA)
    def test_validity_agrees_with_the_meta_schema(self) -> None:
        # Seeded fuzz: a schema refused exactly when jsonschema's 2020-12 meta-schema refuses it.
        import random

        from jsonschema import Draft202012Validator

        rng = random.Random(31)
        keywords = ["type", "minimum", "maxLength", "multipleOf", "required", "properties", "items", "anyOf",
                    "enum", "uniqueItems", "pattern", "not", "dependentRequired", "title", "other"]
        values = ["string", "strnig", 0, -1, 1.5, 2.0, "a", ["a"], ["a", "a"], [], {}, {"a": {}}, {"a": 1},
                  [{}], True, None, {"a": ["b"]}, ["string", "null"]]
        for n in range(400):
            schema = {"type": "object", "properties": {"p": {
                rng.choice(keywords): rng.choice(values) for _ in range(rng.randint(1, 3))}}}
            meta_valid = Draft202012Validator(Draft202012Validator.META_SCHEMA).is_valid(schema)
            with self.subTest(n=n, schema=schema):
                try:
                    mcp_ref.MCPServer("t").add_tool(lambda **a: "", name="t", input_schema=schema)
                    ours = True
                except mcp_ref.InvalidSignature:
                    ours = False
                self.assertEqual(ours, meta_valid)

    def test_both_modes_and_the_decorator(self) -> None:
        for on in BOTH:
            with self.subTest(accelerated=on), accelerators(on):
                server = mcp_ref.MCPServer("t")

                @server.tool(input_schema={"type": "object", "properties": {"n": {"type": "integer"}},
                                           "required": ["n"]},
                             output_schema={"type": "object", "properties": {"n": {"type": "integer"}}})
                def echo(n: Any, unused: Any = "kept") -> Any:
                    return {"n": n}

                self.assertEqual(server.call_tool("echo", {"n": 3}),
                                 text_result('{\n  "n": 3\n}', {"n": 3}))
                self.assertTrue(server.call_tool("echo", {"n": 3.5})["isError"])
                self.assertEqual(json.dumps(server.list_tools()[0]["inputSchema"]),
                                 '{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}')


if __name__ == "__main__":
    unittest.main()

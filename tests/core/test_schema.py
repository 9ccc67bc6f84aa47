"""Section 5, JSON Schema generation: annotations to the SDK's (pydantic's) schemas.

Every corpus tool's inputSchema and outputSchema against what the official SDK
publishes (``testdata/sdk_expectations.json``, recorded by
``testdata/regen_expectations.py``), json_schema() against pydantic's
TypeAdapter, and the published schemas as valid JSON Schema 2020-12.  Where
mcp_ref deliberately differs (docs/sdk-differences.md), the test asserts our
behaviour and names the difference.
"""

import dataclasses
import enum
import json
import sys
import typing
import unittest
from typing import Any, Dict, List, Optional, Tuple, Union

from tests._testing import NEEDS_JSONSCHEMA, NEEDS_PYDANTIC, SDK, Field, has_module, load_corpus, mcp_ref


# Tools whose published schema differs on purpose (docs/sdk-differences.md).
SCHEMA_DEVIATIONS = {
    # The SDK wraps typing.Dict[str, T] but not dict[str, T]; both are objects here.
    "echo_Dict_str_int": "typing.Dict",
    "ret_typing_dict": "typing.Dict",
    "dict_result_typed": "typing.Dict",
    # The SDK sends the raw docstring; we send inspect.cleandoc's text.
    "get_weather": "cleandoc",
}


class SchemaParityTest(unittest.TestCase):
    """inputSchema and outputSchema of every corpus tool, as the SDK publishes them."""

    def check_corpus(self, strings: bool) -> None:
        corpus = load_corpus(strings)
        ours = {t["name"]: t for t in corpus.server.list_tools()}
        theirs = SDK["tools_strings" if strings else "tools"]
        compared = 0
        for name, expected in theirs.items():
            if name not in ours:  # a tool of a newer Python (PEP 604, typing.Required)
                self.assertTrue(sys.version_info < (3, 11), name)
                continue
            with self.subTest(tool=name):
                got = ours[name]
                if name in SCHEMA_DEVIATIONS:
                    self.check_schema_deviation(name, got, expected)
                else:
                    self.assertEqual(got, expected)
                    # Same key order too: the wire frames are byte-identical.
                    self.assertEqual(json.dumps(got.get("outputSchema")), json.dumps(expected.get("outputSchema")))
                compared += 1
        self.assertGreaterEqual(compared, 140 if sys.version_info >= (3, 11) else 135)

    def check_schema_deviation(self, name: str, got: Dict[str, Any], expected: Dict[str, Any]) -> None:
        kind = SCHEMA_DEVIATIONS[name]
        self.assertEqual(got["inputSchema"], expected["inputSchema"])
        if kind == "cleandoc":
            self.assertEqual(got["description"], "Get the weather.\n\nIndented second paragraph.")
            self.assertEqual(got["outputSchema"], expected["outputSchema"])
        else:  # typing.Dict[str, T] is the object itself, like dict[str, T]
            wrapped = expected["outputSchema"]["properties"]["result"]
            self.assertEqual(got["outputSchema"]["additionalProperties"], wrapped["additionalProperties"])
            self.assertEqual(got["outputSchema"]["title"], f"{name}DictOutput")

    def test_every_corpus_tool_matches_the_sdk(self) -> None:
        self.check_corpus(strings=False)

    def test_string_annotations_match_the_sdk(self) -> None:
        self.check_corpus(strings=True)

    def test_expectations_are_recorded_for_the_whole_corpus(self) -> None:
        """Every corpus tool and every corpus call has the SDK's answer on file, in
        the corpus's order: a tool or call added without running
        regen_expectations.py would otherwise be compared with nothing."""
        for strings in (False, True):
            corpus = load_corpus(strings)
            ours = [t["name"] for t in corpus.server.list_tools()]
            theirs = list(SDK["tools_strings" if strings else "tools"])
            with self.subTest(strings=strings):
                self.assertEqual(ours, [name for name in theirs if name in ours])
                if sys.version_info >= (3, 11):  # the recording's Python has every tool
                    self.assertEqual(ours, theirs)
        corpus = load_corpus(strings=False)
        names = {t["name"] for t in corpus.server.list_tools()}
        self.assertEqual([[name, arguments] for name, arguments in corpus.CALLS],
                         [[name, arguments] for name, arguments, _ in SDK["calls"] if name in names])
        self.assertGreaterEqual(len(SDK["tools"]), 150)
        self.assertGreaterEqual(len(SDK["calls"]), 300)


@unittest.skipUnless(has_module("jsonschema"), NEEDS_JSONSCHEMA)
class PublishedSchemaTest(unittest.TestCase):
    def test_published_schemas_are_valid_2020_12(self) -> None:
        import jsonschema

        for strings in (False, True):
            for tool in load_corpus(strings).server.list_tools():
                with self.subTest(tool=tool["name"]):
                    jsonschema.Draft202012Validator.check_schema(tool["inputSchema"])
                    if "outputSchema" in tool:
                        jsonschema.Draft202012Validator.check_schema(tool["outputSchema"])


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


@dataclasses.dataclass
class Node:
    value: int
    next: "Optional[Node]" = None


class JsonSchemaTest(unittest.TestCase):
    """json_schema() against pydantic's TypeAdapter(...).json_schema(), literally."""

    CASES: List[Tuple[Any, Dict[str, Any]]] = [
        (bytes, {"format": "binary", "type": "string"}),
        (None, {"type": "null"}),
        (Any, {}),
        (list, {"items": {}, "type": "array"}),
        (dict, {"additionalProperties": True, "type": "object"}),
        (set, {"items": {}, "type": "array", "uniqueItems": True}),
        (Tuple[()], {"maxItems": 0, "minItems": 0, "type": "array"}),
        (Tuple[int, ...], {"items": {"type": "integer"}, "type": "array"}),
        (Tuple[int, str], {"maxItems": 2, "minItems": 2, "prefixItems": [{"type": "integer"}, {"type": "string"}],
                           "type": "array"}),
        (typing.FrozenSet[str], {"items": {"type": "string"}, "type": "array", "uniqueItems": True}),
        (typing.Sequence[int], {"items": {"type": "integer"}, "type": "array"}),
        (Dict[int, str], {"additionalProperties": {"type": "string"}, "type": "object"}),
        (typing.Mapping[str, int], {"additionalProperties": {"type": "integer"}, "type": "object"}),
        (Union[None, int], {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        (Union[int, str, None], {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]}),
        (typing.Literal["a"], {"const": "a", "type": "string"}),
        (typing.Literal[1, "a"], {"enum": [1, "a"]}),
        (typing.Literal[None], {"const": None, "type": "null"}),
        (typing.Literal[True], {"const": True, "type": "boolean"}),
        (Color, {"enum": ["red", "green"], "title": "Color", "type": "string"}),
        (List[Color], {"$defs": {"Color": {"enum": ["red", "green"], "title": "Color", "type": "string"}},
                       "items": {"$ref": "#/$defs/Color"}, "type": "array"}),
        (Point, {"properties": {"x": {"title": "X", "type": "integer"},
                                "y": {"default": 0, "title": "Y", "type": "integer"}},
                 "required": ["x"], "title": "Point", "type": "object"}),
        (Node, {"$defs": {"Node": {"properties": {
            "value": {"title": "Value", "type": "integer"},
            "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}], "default": None}},
            "required": ["value"], "title": "Node", "type": "object"}}, "$ref": "#/$defs/Node"}),
        (typing.Annotated[int, Field(ge=1, description="d")], {"description": "d", "minimum": 1, "type": "integer"}),
        (typing.Annotated[str, Field(min_length=2, pattern="^a")], {"minLength": 2, "pattern": "^a", "type": "string"}),
        (typing.Annotated[List[int], Field(min_length=1)], {"items": {"type": "integer"}, "minItems": 1,
                                                             "type": "array"}),
        (typing.Annotated[float, Field(gt=0, lt=1, multiple_of=0.5)],
         {"exclusiveMaximum": 1, "exclusiveMinimum": 0, "multipleOf": 0.5, "type": "number"}),
        (typing.Annotated[Optional[int], Field(ge=1)], {"anyOf": [{"minimum": 1, "type": "integer"},
                                                                   {"type": "null"}]}),
        (typing.Annotated[Dict[str, int], Field(min_length=1)],
         {"additionalProperties": {"type": "integer"}, "minProperties": 1, "type": "object"}),
    ]

    def test_cases(self) -> None:
        for annotation, expected in self.CASES:
            with self.subTest(annotation=annotation):
                self.assertEqual(mcp_ref.json_schema(annotation), expected)

    def test_stdlib_value_types(self) -> None:
        import datetime
        import decimal
        import pathlib
        import uuid

        self.assertEqual(mcp_ref.json_schema(datetime.datetime), {"format": "date-time", "type": "string"})
        self.assertEqual(mcp_ref.json_schema(datetime.timedelta), {"format": "duration", "type": "string"})
        self.assertEqual(mcp_ref.json_schema(uuid.UUID), {"format": "uuid", "type": "string"})
        self.assertEqual(mcp_ref.json_schema(decimal.Decimal), {"anyOf": [{"type": "number"}, {"type": "string"}]})
        self.assertEqual(mcp_ref.json_schema(pathlib.Path), {"format": "path", "type": "string"})

    def test_unsupported_annotation_is_a_type_error(self) -> None:
        with self.assertRaisesRegex(TypeError, "cannot describe"):
            mcp_ref.json_schema(typing.Callable[[int], int])

    @unittest.skipUnless(has_module("pydantic"), NEEDS_PYDANTIC)
    def test_same_as_pydantic(self) -> None:
        from pydantic import Field as PydanticField
        from pydantic import TypeAdapter

        for annotation, expected in self.CASES:
            if typing.get_origin(annotation) is typing.Annotated:
                metadata = annotation.__metadata__[0]
                annotation = typing.Annotated[annotation.__origin__, PydanticField(
                    description=metadata.description, **metadata.constraints)]
            with self.subTest(annotation=annotation):
                self.assertEqual(TypeAdapter(annotation).json_schema(), expected)


# Fixtures of PydanticRulesTest: what pydantic 2 makes of them, rule by rule.
@dataclasses.dataclass
class Twin:
    x: int


def _other_twin() -> type:
    @dataclasses.dataclass
    class Twin:  # a second class of the name
        y: str

    return Twin


OtherTwin = _other_twin()


class Aliased(enum.Enum):
    B = 1
    C = 1  # an alias of B
    D = 2


@dataclasses.dataclass
class FieldDefaults:
    c: typing.Annotated[int, Field(default=4)]
    a: int = Field(3, ge=1)  # type: ignore[assignment]
    b: int = Field(description="needed")  # type: ignore[assignment]
    d: typing.Annotated[int, Field(default=4)] = 5
    e: List[int] = Field(default_factory=list)  # type: ignore[assignment]
    f: object = object()  # no JSON: no default published
    g: Any = dataclasses.field(default_factory=object)


FIELD_DEFAULTS = {
    "properties": {"c": {"default": 4, "title": "C", "type": "integer"},
                   "a": {"default": 3, "minimum": 1, "title": "A", "type": "integer"},
                   "b": {"description": "needed", "title": "B", "type": "integer"},
                   "d": {"default": 5, "title": "D", "type": "integer"},
                   "e": {"items": {"type": "integer"}, "title": "E", "type": "array"},
                   "f": {"title": "F"}, "g": {"title": "G"}},
    "required": ["b"], "title": "FieldDefaults", "type": "object"}


class _PydanticRulesTestShared:
    """What PydanticRulesTest here and its part in tests/layers share."""

    def cases(self, field: Any) -> List[Tuple[Any, Dict[str, Any]]]:
        import decimal

        number_or_text = [{"type": "number"}, {"type": "string"}]
        module = Twin.__module__.replace(".", "__")  # pydantic's normalize_name: a dot is "__"
        twin = f"{module}__Twin"
        other = f"{module}___other_twin___locals___Twin"
        return [
            (Optional[decimal.Decimal], {"anyOf": number_or_text + [{"type": "null"}]}),
            (Union[decimal.Decimal, float], {"anyOf": number_or_text}),
            (Union[decimal.Decimal, int, None], {"anyOf": number_or_text + [{"type": "integer"}, {"type": "null"}]}),
            (Union[List[int], typing.Sequence[int]], {"items": {"type": "integer"}, "type": "array"}),
            (Union[int, typing.Annotated[Optional[str], field(min_length=1)]],
             {"anyOf": [{"type": "integer"}, {"minLength": 1, "type": "string"}, {"type": "null"}]}),
            (Union[Optional[int], List[Optional[str]]],
             {"anyOf": [{"type": "integer"}, {"items": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                                              "type": "array"}, {"type": "null"}]}),
            (Dict[str, typing.Annotated[int, field(title="T", description="d")]],
             {"additionalProperties": {"description": "d", "type": "integer"}, "type": "object"}),
            (Dict[str, Dict[str, typing.Annotated[int, field(title="T")]]],
             {"additionalProperties": {"additionalProperties": {"type": "integer"}, "type": "object"},
              "type": "object"}),
            (List[typing.Annotated[int, field(title="T")]], {"items": {"title": "T", "type": "integer"},
                                                             "type": "array"}),
            (Dict[str, typing.Annotated[Twin, field(title="T", description="d")]], {
                "$defs": {"Twin": {"properties": {"x": {"title": "X", "type": "integer"}}, "required": ["x"],
                                   "title": "Twin", "type": "object"}},
                "additionalProperties": {"$ref": "#/$defs/Twin", "description": "d"}, "type": "object"}),
            (List[typing.Annotated[Aliased, field(title="T")]], {
                "$defs": {"Aliased": {"enum": [1, 1, 2], "title": "Aliased", "type": "integer"}},
                "items": {"$ref": "#/$defs/Aliased", "title": "T"}, "type": "array"}),
            (Tuple[Twin, OtherTwin, Twin], {
                "$defs": {twin: {"properties": {"x": {"title": "X", "type": "integer"}}, "required": ["x"],
                                 "title": "Twin", "type": "object"},
                          other: {"properties": {"y": {"title": "Y", "type": "string"}}, "required": ["y"],
                                  "title": "Twin", "type": "object"}},
                "maxItems": 3, "minItems": 3, "prefixItems": [{"$ref": f"#/$defs/{twin}"},
                                                              {"$ref": f"#/$defs/{other}"},
                                                              {"$ref": f"#/$defs/{twin}"}],
                "type": "array"}),
            (Aliased, {"enum": [1, 1, 2], "title": "Aliased", "type": "integer"}),
            (Dict[typing.Literal["a", "b"], int], {"additionalProperties": {"type": "integer"},
                                                   "propertyNames": {"enum": ["a", "b"]}, "type": "object"}),
            (Dict[Aliased, str], {"$defs": {"Aliased": {"enum": [1, 1, 2], "title": "Aliased", "type": "integer"}},
                                  "additionalProperties": {"type": "string"},
                                  "propertyNames": {"$ref": "#/$defs/Aliased"}, "type": "object"}),
            (Dict[typing.Annotated[str, field(pattern="^x")], Any], {"patternProperties": {"^x": {}},
                                                                     "type": "object"}),
            (Dict[typing.Annotated[str, field(pattern="^x", min_length=2)], int], {
                "patternProperties": {"^x": {"type": "integer"}}, "propertyNames": {"minLength": 2},
                "type": "object"}),
        ]


class PydanticRulesTest(_PydanticRulesTestShared, unittest.TestCase):
    """Unions flattened and de-duplicated, no title on additionalProperties,
    classes of one name, Enum aliases, Field(...) defaults: pydantic's rules."""

    def test_cases(self) -> None:
        for annotation, expected in self.cases(Field):
            with self.subTest(annotation=annotation):
                self.assertEqual(mcp_ref.json_schema(annotation), expected)

    def test_field_defaults_of_a_dataclass(self) -> None:
        self.assertEqual(mcp_ref.json_schema(FieldDefaults), FIELD_DEFAULTS)

    def test_defaults_that_are_no_json_are_left_out(self) -> None:
        # pydantic leaves out a default it cannot serialise (with a warning), but
        # writes NaN and infinity, which JSON has not: left out here too (docs/sdk-differences.md, 29).
        @dataclasses.dataclass
        class Odd:
            a: float = float("nan")
            b: float = float("inf")
            c: Any = dataclasses.field(default_factory=object)
            d: bytes = b"\xff"
            e: typing.FrozenSet[int] = frozenset({1})

        self.assertEqual(mcp_ref.json_schema(Odd)["properties"], {
            "a": {"title": "A", "type": "number"}, "b": {"title": "B", "type": "number"}, "c": {"title": "C"},
            "d": {"format": "binary", "title": "D", "type": "string"},
            "e": {"default": [1], "items": {"type": "integer"}, "title": "E", "type": "array", "uniqueItems": True}})

    def test_field_defaults_fill_absent_arguments(self) -> None:
        def make(value: FieldDefaults, n: typing.Annotated[int, Field(default=7)]) -> str:
            return repr((value.a, value.c, value.d, value.e, n))

        server = mcp_ref.MCPServer("t")
        server.add_tool(make)
        schema = server.list_tools()[0]["inputSchema"]
        self.assertEqual(schema["properties"]["n"], {"default": 7, "title": "N", "type": "integer"})
        self.assertEqual(schema["required"], ["value"])
        self.assertEqual(server.call_tool("make", {"value": {"b": 1}})["structuredContent"],
                         {"result": "(3, 4, 5, [], 7)"})
        self.assertIn("Field required", server.call_tool("make", {"value": {}})["content"][0]["text"])


if __name__ == "__main__":
    unittest.main()

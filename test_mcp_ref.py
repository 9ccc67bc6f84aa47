"""Tests of mcp_ref's sections: schemas, validation, results, the server API.

Runs with ``python -m unittest`` and no package installed; the few tests that
need pydantic or jsonschema say why they skip.  Expected schemas and results
come from the official SDK (``testdata/sdk_expectations.json``, recorded by
``testdata/regen_expectations.py``); where mcp_ref deliberately differs (the
README's list), the test asserts our behaviour and names the difference.
"""

import contextlib
import dataclasses
import doctest
import enum
import importlib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import typing
import unittest
from typing import Any, Dict, List, Optional, Tuple, Union
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
mcp_ref = importlib.import_module(os.environ.get("MCP_REF_MODULE", "mcp_ref"))  # the module under test
MCPServer, Field = mcp_ref.MCPServer, mcp_ref.Field
validate, ValidationError = mcp_ref.validate, mcp_ref.ValidationError

with open(os.path.join(HERE, "testdata", "sdk_expectations.json"), encoding="utf-8") as _f:
    SDK = json.load(_f)


def load_corpus(strings: bool) -> Any:
    """testdata/corpus.py on mcp_ref; with ``strings`` every echo annotation is a string."""
    os.environ.pop("CORPUS_SERVER", None)
    os.environ["CORPUS_STRINGS"] = "1" if strings else "0"
    name = f"corpus_ref_{int(strings)}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "testdata", "corpus.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def load_example(name: str) -> Any:
    """examples/weather.py as a module of its own name (registered, as an import would)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "examples", "weather.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    return sys.modules[name]


def without_help_links(result: Dict[str, Any]) -> Dict[str, Any]:
    """An SDK result as the documentation prints it: no pydantic help-page links,
    no object addresses or module names that differ between the two processes."""
    text = json.dumps(result)
    text = re.sub(r"0x[0-9a-f]+", "0x", text)
    text = re.sub(r"corpus_(sdk|ref)_\d", "corpus", text)
    out = json.loads(text)
    out.pop("resultType", None)  # the wire decoration of 2026-07-28, added by the dispatcher
    for block in out.get("content", []):
        if "text" in block:
            block["text"] = re.sub(r"\n *For further information visit \S+", "", block["text"])
    return out


# ---------------------------------------------------------------------------
# Deliberate differences from the SDK (README, "Where mcp_ref differs")
# ---------------------------------------------------------------------------

# Tools whose published schema differs on purpose.
SCHEMA_DEVIATIONS = {
    # The SDK wraps typing.Dict[str, T] but not dict[str, T]; both are objects here.
    "echo_Dict_str_int": "typing.Dict",
    "ret_typing_dict": "typing.Dict",
    "dict_result_typed": "typing.Dict",
    # The SDK sends the raw docstring; we send inspect.cleandoc's text.
    "get_weather": "cleandoc",
}

# Calls whose result differs on purpose, by kind of difference.
CALL_DEVIATIONS = {
    # The SDK 2.3 hides why a result failed its schema; the documentation shows it.
    "detailed_output_error": {
        "ret_int_bad_float", "ret_str_from_int", "ret_dataclass_missing", "ret_dataclass_wrong",
        "ret_dict_wrong_value", "ret_typeddict_missing", "ret_literal_bad",
    },
    # content is written from the checked value, so it says what structuredContent says.
    "text_from_checked_value": {
        "ret_int_from_float", "ret_float_from_int", "ret_dataclass_from_dict", "ret_dataclass_extra",
        "ret_dict_of_floats", "ret_typeddict_value", "ret_annotated_class_value",
    },
    "typing.Dict": {"echo_Dict_str_int", "ret_typing_dict", "dict_result_typed"},
    # The SDK parses '["a"]' sent to Optional[str] into a list, then rejects it.
    "json_text_for_strings": {"echo_optional_str"},
    # The SDK validates an exhausted generator and sends {"result": []}.
    "generator_consumed": {"ret_list_from_generator"},
    # pydantic's date, time and UUID parsers word their messages in more detail.
    "parser_message": {"echo_datetime", "echo_date", "echo_uuid"},
}


def call_deviation(name: str, arguments: Dict[str, Any], expected: Dict[str, Any]) -> Optional[str]:
    for kind, names in CALL_DEVIATIONS.items():
        if name in names:
            if kind == "json_text_for_strings" and arguments.get("value") != '["a"]':
                continue
            if kind == "parser_message" and not expected.get("isError"):
                continue
            if kind == "typing.Dict" and expected.get("isError"):
                continue
            return kind
    return None


# ---------------------------------------------------------------------------
# Schemas
# ---------------------------------------------------------------------------


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

    def test_corpus_is_large(self) -> None:
        self.assertGreaterEqual(len(SDK["tools"]), 150)
        self.assertGreaterEqual(len(SDK["calls"]), 300)


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

    @unittest.skipUnless(importlib.util.find_spec("pydantic"), "pydantic is not installed (CI's venv has it)")
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


# The WeatherData schema printed on the SDK's "Structured output" page.
DOCS_WEATHER_SCHEMA = {
    "properties": {
        "temperature": {"description": "Degrees Celsius.", "title": "Temperature", "type": "number"},
        "humidity": {"description": "Relative humidity, 0 to 1.", "title": "Humidity", "type": "number"},
        "conditions": {"title": "Conditions", "type": "string"}},
    "required": ["temperature", "humidity", "conditions"], "title": "WeatherData", "type": "object"}


class DocsPageSchemaTest(unittest.TestCase):
    """Every schema printed on the SDK's "Structured output" page."""

    def setUp(self) -> None:
        self.module = load_example("weather_example")
        self.tools = {t["name"]: t for t in self.module.mcp.list_tools()}

    def test_wrapped_int(self) -> None:
        self.assertEqual(self.tools["get_temperature"]["outputSchema"], {
            "properties": {"result": {"title": "Result", "type": "integer"}},
            "required": ["result"], "title": "get_temperatureOutput", "type": "object"})

    def test_model_with_descriptions(self) -> None:
        self.assertEqual(self.tools["get_weather"]["outputSchema"], DOCS_WEATHER_SCHEMA)

    def test_typeddict(self) -> None:
        schema = self.tools["get_weather_dict"]["outputSchema"]
        self.assertEqual(schema["properties"]["humidity"], {"title": "Humidity", "type": "number"})
        self.assertEqual(schema["required"], ["temperature", "humidity", "conditions"])

    def test_list_of_models(self) -> None:
        @dataclasses.dataclass
        class WeatherData:
            temperature: float
            humidity: float
            conditions: str

        server = MCPServer("Weather")

        def get_forecast(city: str, days: int) -> List[WeatherData]:
            return []

        server.add_tool(get_forecast)
        self.assertEqual(server.list_tools()[0]["outputSchema"], {
            "$defs": {"WeatherData": {
                "properties": {"temperature": {"title": "Temperature", "type": "number"},
                               "humidity": {"title": "Humidity", "type": "number"},
                               "conditions": {"title": "Conditions", "type": "string"}},
                "required": ["temperature", "humidity", "conditions"], "title": "WeatherData", "type": "object"}},
            "properties": {"result": {"items": {"$ref": "#/$defs/WeatherData"}, "title": "Result", "type": "array"}},
            "required": ["result"], "title": "get_forecastOutput", "type": "object"})

    def test_dict_of_floats(self) -> None:
        self.assertEqual(self.tools["get_temperatures"]["outputSchema"], {
            "additionalProperties": {"type": "number"}, "title": "get_temperaturesDictOutput", "type": "object"})

    def test_opting_out_and_classes_without_hints(self) -> None:
        self.assertNotIn("outputSchema", self.tools["weather_report"])
        self.assertNotIn("outputSchema", self.tools["get_station"])

    def test_structured_output_true_raises_for_a_class_without_hints(self) -> None:
        server = MCPServer("Weather")
        with self.assertRaises(mcp_ref.InvalidSignature) as caught:
            server.add_tool(self.module.get_station, structured_output=True)
        self.assertEqual(str(caught.exception), "Function get_station: return type <class "
                         "'weather_example.Station'> is not serializable for structured output")


class RegistrationTest(unittest.TestCase):
    def register(self, fn: Any, **kwargs: Any) -> Dict[str, Any]:
        server = MCPServer("t")
        server.add_tool(fn, **kwargs)
        return server.list_tools()[0]

    def test_refused_signatures(self) -> None:
        def star(*args: int) -> int:
            return 0

        def kwargs(**options: int) -> int:
            return 0

        def positional(a: int, /) -> int:  # noqa: E999 (3.8+ syntax)
            return a

        def private(_secret: int) -> int:
            return 0

        def unresolvable(x: "Missing") -> int:  # type: ignore[name-defined]  # noqa: F821
            return 0

        cases = [
            (star, "Parameter *args of star: variadic parameters cannot be tool arguments; name each argument"),
            (kwargs, "Parameter **options of kwargs: variadic parameters cannot be tool arguments; name each argument"),
            (positional, "Parameter a of positional is positional-only; tool arguments are passed by name"),
            (private, "Parameter _secret of private cannot start with '_'"),
            (lambda x: x, "You must provide a name for lambda functions"),
        ]
        for fn, message in cases:
            with self.subTest(message=message):
                with self.assertRaises(mcp_ref.InvalidSignature) as caught:
                    self.register(fn)
                self.assertEqual(str(caught.exception), message)
        with self.assertRaisesRegex(mcp_ref.InvalidSignature, "Unable to evaluate type annotations .*'unresolvable'"):
            self.register(unresolvable)

    def test_lambda_with_a_name(self) -> None:
        tool = self.register(lambda x: x, name="identity")
        self.assertEqual(tool["inputSchema"]["properties"], {"x": {"title": "x", "type": "string"}})

    def test_decorator_misuse(self) -> None:
        server = MCPServer("t")
        with self.assertRaisesRegex(TypeError, "Did you forget to call it"):
            server.tool(lambda: 1)  # type: ignore[arg-type]

    def test_metadata_fields(self) -> None:
        def f(x: int) -> int:
            """  Doc.  """
            return x

        tool = self.register(f, title="T", annotations=mcp_ref.ToolAnnotations(read_only_hint=True),
                             icons=[{"src": "https://example.com/i.png", "mimeType": "image/png"}], meta={"k": 1})
        self.assertEqual(tool["title"], "T")
        import inspect

        self.assertEqual(tool["description"], inspect.cleandoc(f.__doc__))
        self.assertEqual(tool["annotations"], {"readOnlyHint": True})
        self.assertEqual(tool["icons"], [{"src": "https://example.com/i.png", "mimeType": "image/png"}])
        self.assertEqual(tool["_meta"], {"k": 1})

    def test_fields_by_revision(self) -> None:
        def f(x: int) -> int:
            return x

        server = MCPServer("t")
        server.add_tool(f, title="T", annotations={"readOnlyHint": True}, icons=[{"src": "a"}], meta={"k": 1})
        self.assertEqual(set(server.list_tools("2024-11-05")[0]), {"name", "description", "inputSchema"})
        self.assertEqual(set(server.list_tools("2025-03-26")[0]), {"name", "description", "inputSchema",
                                                                   "annotations"})
        self.assertEqual(set(server.list_tools("2025-06-18")[0]), {"name", "title", "description", "inputSchema",
                                                                   "outputSchema", "annotations", "_meta"})
        self.assertEqual(set(server.list_tools("2025-11-25")[0]), {"name", "title", "description", "inputSchema",
                                                                   "outputSchema", "annotations", "icons", "_meta"})

    def test_nested_plain_classes(self) -> None:
        # Deliberate difference: the SDK crashes at registration on both.
        class Station:
            name: str
            online: bool = True

        class Opaque:
            pass

        def stations() -> List[Station]:
            station = Station()
            station.name = "Heathrow"
            return [station]

        def opaque() -> List[Opaque]:
            return [Opaque()]

        tool = self.register(stations)
        self.assertEqual(tool["outputSchema"]["$defs"]["Station"], {
            "properties": {"name": {"title": "Name", "type": "string"},
                           "online": {"default": True, "title": "Online", "type": "boolean"}},
            "required": ["name"], "title": "Station", "type": "object"})
        server = MCPServer("t")
        server.add_tool(stations)
        self.assertEqual(server.call_tool("stations", {})["structuredContent"],
                         {"result": [{"name": "Heathrow", "online": True}]})
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertNotIn("outputSchema", self.register(opaque))

    def test_structured_output_true_without_annotation(self) -> None:
        def f(x: int):  # type: ignore[no-untyped-def]
            return x

        with self.assertRaisesRegex(mcp_ref.InvalidSignature, "return annotation required"):
            self.register(f, structured_output=True)


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


class ValidateTest(unittest.TestCase):
    def errors(self, instance: Any, schema: Any) -> List[Tuple[str, str, str]]:
        try:
            validate(instance, schema)
        except ValidationError as exc:
            return [(e.path, e.kind, e.msg) for e in exc.errors]
        return []

    def test_every_error_is_listed_with_its_path(self) -> None:
        schema = {"type": "object", "required": ["a", "b"], "properties": {
            "a": {"type": "array", "items": {"type": "integer", "maximum": 3}},
            "c": {"type": "string", "pattern": "^x"}}}
        self.assertEqual(self.errors({"a": [1, 5, "z"], "c": "y"}, schema), [
            ("$.a[1]", "less_than_equal", "Input should be less than or equal to 3"),
            ("$.a[2]", "int_type", "Input should be a valid integer"),
            ("$.c", "string_pattern_mismatch", "String should match pattern '^x'"),
            ("$.b", "missing", "Field required"),
        ])

    def test_strict_mode_converts_nothing(self) -> None:
        self.assertEqual(self.errors("17", {"type": "integer"})[0][1], "int_type")
        self.assertEqual(self.errors(1.0, {"type": "integer"}), [])  # JSON: 1.0 is an integer
        self.assertEqual(self.errors(True, {"type": "integer"})[0][1], "int_type")

    def test_refs_and_recursion(self) -> None:
        schema = {"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}},
                                  "additionalProperties": False}}, "$ref": "#/$defs/n"}
        self.assertEqual(self.errors({"next": {"next": {}}}, schema), [])
        self.assertEqual(self.errors({"next": {"x": 1}}, schema),
                         [("$.next.x", "extra_forbidden", "Extra inputs are not permitted")])

    def test_unicode_property_classes(self) -> None:
        self.assertEqual(self.errors("héllo", {"pattern": "^\\p{Letter}+$"}), [])
        self.assertEqual(len(self.errors("h3llo", {"pattern": "^\\p{Letter}+$"})), 1)

    def test_message_format(self) -> None:
        with self.assertRaises(ValidationError) as caught:
            validate({"n": "x" * 60}, {"properties": {"n": {"type": "integer"}}, "required": ["m"]})
        self.assertEqual(str(caught.exception), (
            "2 validation errors for value\n"
            "n\n  Input should be a valid integer [type=int_type, "
            "input_value='xxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxxx', input_type=str]\n"
            "m\n  Field required [type=missing, input_value={'n': 'xxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxx'}, "
            "input_type=dict]"))

    def test_schema_compiled_once(self) -> None:
        schema = {"type": "integer"}
        validate(1, schema)
        checker = mcp_ref._COMPILED[id(schema)][1]
        validate(2, schema)
        self.assertIs(mcp_ref._COMPILED[id(schema)][1], checker)

    def test_remote_refs_are_refused(self) -> None:
        with self.assertRaisesRegex(ValueError, "only local \\$ref"):
            validate(1, {"$ref": "https://example.com/schema"})

    @unittest.skipUnless(os.path.exists(os.path.join(HERE, "..", "shared", "jsts", "run_jsts.py")),
                         "the JSON Schema Test Suite runner (../shared/jsts) is not beside this checkout")
    def test_json_schema_test_suite(self) -> None:
        run = subprocess.run([sys.executable, os.path.join(HERE, "..", "shared", "jsts", "run_jsts.py")],
                             cwd=HERE, capture_output=True, text=True, timeout=300)
        self.assertEqual(run.returncode, 0, run.stdout[-3000:])
        self.assertRegex(run.stdout.strip().splitlines()[-1], r"^jsts: \d+ passed, 0 failed, \d+ skipped$")


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------


class ResultParityTest(unittest.TestCase):
    """Every (tool, arguments) case of the corpus, against the SDK's result."""

    def test_calls(self) -> None:
        corpus = load_corpus(strings=False)
        names = {t["name"] for t in corpus.server.list_tools()}
        checked = deviations = 0
        for name, arguments, expected in SDK["calls"]:
            if name not in names:
                continue
            expected = without_help_links(expected)
            with self.subTest(tool=name, arguments=arguments), contextlib.redirect_stderr(io.StringIO()):
                got = without_help_links(corpus.server.call_tool(name, arguments))
                # Once a result type has been seen, its results take the quick paths
                # (objects copied as they are, written in one pass): the same result.
                self.assertEqual(without_help_links(corpus.server.call_tool(name, arguments)), got)
                kind = call_deviation(name, arguments, expected)
                if kind is None:
                    self.assertEqual(got, expected)
                else:
                    deviations += 1
                    self.check_deviation(kind, name, got, expected)
                checked += 1
        self.assertGreaterEqual(checked, 300)
        self.assertLessEqual(deviations, 30)

    def check_deviation(self, kind: str, name: str, got: Dict[str, Any], expected: Dict[str, Any]) -> None:
        if kind == "detailed_output_error":
            self.assertEqual(expected["content"][0]["text"], f"Error executing tool {name}")
            self.assertTrue(got["isError"])
            self.assertNotIn("structuredContent", got)
            self.assertRegex(got["content"][0]["text"],
                             rf"^Error executing tool {name}: \d+ validation errors? for \w+\n")
        elif kind == "text_from_checked_value":
            self.assertEqual(got["structuredContent"], expected["structuredContent"])
            self.assertEqual(got["content"][0]["text"], json.dumps(got["structuredContent"].get(
                "result", got["structuredContent"]), indent=2))
        elif kind == "typing.Dict":
            self.assertEqual(got["structuredContent"], expected["structuredContent"]["result"])
            self.assertEqual(got["content"], expected["content"])
        elif kind == "json_text_for_strings":
            self.assertEqual(got["structuredContent"], {"result": '["a"]'})
        elif kind == "generator_consumed":
            self.assertEqual(expected["structuredContent"], {"result": []})
            self.assertEqual(got["structuredContent"], {"result": [0, 1, 2]})
            self.assertEqual(got["content"], expected["content"])
        elif kind == "parser_message":
            self.assertTrue(got["isError"])
            # Same header and location; pydantic's parsers explain more.
            got_lines, expected_lines = got["content"][0]["text"], expected["content"][0]["text"]
            self.assertEqual(got_lines.splitlines()[:2], expected_lines.splitlines()[:2])
        else:
            self.fail(kind)

    def test_structured_content_conforms_to_the_output_schema(self) -> None:
        """The property the SDK promises: every successful structured result
        validates against the published outputSchema (and with jsonschema, in CI)."""
        corpus = load_corpus(strings=False)
        tools = {t["name"]: t for t in corpus.server.list_tools()}
        try:
            import jsonschema
        except ImportError:
            jsonschema = None
        checked = 0
        for name, arguments in corpus.CALLS:
            if name not in tools:
                continue
            with contextlib.redirect_stderr(io.StringIO()):  # the corpus's crashing tool logs a traceback
                result = corpus.server.call_tool(name, arguments)
            schema = tools[name].get("outputSchema")
            if result["isError"] or schema is None:
                continue
            with self.subTest(tool=name, arguments=arguments):
                validate(result["structuredContent"], schema)
                if jsonschema is not None:
                    jsonschema.Draft202012Validator(schema).validate(result["structuredContent"])
                checked += 1
        self.assertGreaterEqual(checked, 150)

    @unittest.skipUnless(importlib.util.find_spec("jsonschema"), "jsonschema is not installed (CI's venv has it)")
    def test_published_schemas_are_valid_2020_12(self) -> None:
        import jsonschema

        for strings in (False, True):
            for tool in load_corpus(strings).server.list_tools():
                with self.subTest(tool=tool["name"]):
                    jsonschema.Draft202012Validator.check_schema(tool["inputSchema"])
                    if "outputSchema" in tool:
                        jsonschema.Draft202012Validator.check_schema(tool["outputSchema"])


class DocsPageResultTest(unittest.TestCase):
    """The results printed on the SDK's "Structured output" page, literally."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.module = load_example("weather_results")

    def call(self, tool: str, **arguments: Any) -> Dict[str, Any]:
        return self.module.mcp.call_tool(tool, arguments)  # type: ignore[no-any-return]

    def test_get_temperature(self) -> None:
        self.assertEqual(self.call("get_temperature", city="London"), {
            "content": [{"type": "text", "text": "17"}], "structuredContent": {"result": 17}, "isError": False})

    def test_get_weather(self) -> None:
        for tool in ("get_weather", "get_weather_dict"):
            self.assertEqual(self.call(tool, city="London"), {
                "content": [{"type": "text", "text": '{\n  "temperature": 16.2,\n  "humidity": 0.83,\n'
                                                     '  "conditions": "Overcast"\n}'}],
                "structuredContent": {"temperature": 16.2, "humidity": 0.83, "conditions": "Overcast"},
                "isError": False})

    def test_forecast_is_one_block_per_item(self) -> None:
        result = self.call("get_forecast", city="London", days=2)
        self.assertEqual(len(result["content"]), 2)
        self.assertEqual([d["temperature"] for d in result["structuredContent"]["result"]], [16.2, 17.2])

    def test_dict(self) -> None:
        self.assertEqual(self.call("get_temperatures", cities=["London", "Reykjavik"])["structuredContent"],
                         {"London": 16.2, "Reykjavik": 4.4})

    def test_upstream_lost_a_field(self) -> None:
        self.assertEqual(self.call("get_weather_upstream", city="London"), {
            "content": [{"type": "text", "text": (
                "Error executing tool get_weather_upstream: 1 validation error for WeatherData\n"
                "humidity\n"
                "  Field required [type=missing, input_value={'temperature': 16.2, 'conditions': 'Overcast'}, "
                "input_type=dict]")}],
            "isError": True})

    def test_opted_out(self) -> None:
        self.assertEqual(self.call("weather_report", city="Paris"), {
            "content": [{"type": "text", "text": "Paris: 17 degrees, overcast, light rain easing by evening."}],
            "isError": False})

    def test_class_without_hints_is_its_repr(self) -> None:
        result = self.call("get_station", name="Heathrow")
        self.assertEqual(set(result), {"content", "isError"})
        self.assertRegex(result["content"][0]["text"], r'^"<weather_results\.Station object at 0x[0-9a-f]+>"$')


class ContentTest(unittest.TestCase):
    def server(self, fn: Any, **kwargs: Any) -> Any:
        server = MCPServer("t")
        server.add_tool(fn, **kwargs)
        return server

    def test_content_blocks(self) -> None:
        def blocks() -> List[Union[str, mcp_ref.TextContent, mcp_ref.Image, mcp_ref.ResourceLink]]:
            return ["a", mcp_ref.TextContent(type="text", text="b"),
                    mcp_ref.Image(data=b"\x89PNG", format="png"),
                    mcp_ref.ResourceLink(name="r", uri="file:///r")]

        result = self.server(blocks).call_tool("blocks", {})
        self.assertEqual(result, {"content": [
            {"type": "text", "text": "a"}, {"type": "text", "text": "b"},
            {"type": "image", "data": "iVBORw==", "mimeType": "image/png"},
            {"type": "resource_link", "name": "r", "uri": "file:///r"}], "isError": False})
        self.assertNotIn("outputSchema", self.server(blocks).list_tools()[0])

    def test_older_revisions_get_known_blocks_only(self) -> None:
        def link() -> Any:
            return mcp_ref.ResourceLink(name="r", uri="file:///r")

        result = self.server(link).call_tool("link", {}, protocol_version="2025-03-26")
        self.assertEqual(result["content"], [{"type": "text", "text": "[resource link: file:///r]"}])

    def test_blocks_compare_like_dataclasses(self) -> None:
        self.assertEqual(mcp_ref.TextContent(type="text", text="a"), mcp_ref.TextContent(text="a"))
        self.assertNotEqual(mcp_ref.TextContent(text="a"), mcp_ref.TextContent(text="b"))
        self.assertEqual(repr(mcp_ref.TextContent(text="a")), "TextContent(type='text', text='a')")

    def test_call_tool_result_passes_through(self) -> None:
        def raw() -> mcp_ref.CallToolResult:
            return mcp_ref.CallToolResult(content=[mcp_ref.TextContent(text="hi")], structured_content={"a": 1},
                                          meta={"app": True})

        self.assertEqual(self.server(raw).call_tool("raw", {}), {
            "content": [{"type": "text", "text": "hi"}], "structuredContent": {"a": 1}, "isError": False,
            "_meta": {"app": True}})

    def test_annotated_call_tool_result_is_checked(self) -> None:
        def checked() -> typing.Annotated[mcp_ref.CallToolResult, Point]:
            return mcp_ref.CallToolResult(content=[], structured_content={"x": "nope"})

        server = self.server(checked)
        self.assertEqual(server.list_tools()[0]["outputSchema"]["title"], "Point")
        result = server.call_tool("checked", {})
        self.assertTrue(result["isError"])
        self.assertIn("x\n  Input should be a valid integer", result["content"][0]["text"])

    def test_tool_error_and_crash(self) -> None:
        def fails(kind: str) -> int:
            if kind == "tool":
                raise mcp_ref.ToolError("the city is unknown")
            raise RuntimeError("secret /etc/passwd")

        server = self.server(fails)
        self.assertEqual(server.call_tool("fails", {"kind": "tool"}), {
            "content": [{"type": "text", "text": "Error executing tool fails: the city is unknown"}], "isError": True})
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            crash = server.call_tool("fails", {"kind": "crash"})
        self.assertEqual(crash["content"], [{"type": "text", "text": "Error executing tool fails"}])
        self.assertIn("RuntimeError: secret /etc/passwd", stderr.getvalue())

    def test_unserialisable_and_cyclic_results(self) -> None:
        def cyclic() -> Dict[str, Any]:
            data: Dict[str, Any] = {}
            data["self"] = data
            return data

        def bad_bytes() -> bytes:
            return b"\xff"

        def nan() -> float:
            return float("nan")

        for fn, fragment in ((cyclic, "cyclic"), (bad_bytes, "unable to parse raw data as a unicode string"),
                             (nan, "finite number")):
            with self.subTest(fn=fn.__name__):
                result = self.server(fn).call_tool(fn.__name__, {})
                self.assertTrue(result["isError"])
                self.assertIn(fragment, result["content"][0]["text"])

    def test_objects_taken_as_they_are_or_converted(self) -> None:
        """An object whose fields are exactly their declared types is copied as it
        is; anything else (an int for a float, a bool for an int, an extra attribute,
        keys out of order, NaN) takes the converting path, with pydantic's result."""
        @dataclasses.dataclass
        class Row:
            city: str
            temperature: float
            count: int
            ok: bool

        def rows(change: str) -> List[Any]:
            row: Any = Row("a", 1.5, 2, True)
            if change == "dict out of order":
                row = {"ok": True, "count": 2, "temperature": 1.5, "city": "a"}
            elif change != "none":
                setattr(row, *{"int for float": ("temperature", 2), "bool for int": ("count", True),
                               "extra attribute": ("other", 1), "nan": ("temperature", float("nan"))}[change])
            return [Row("b", 0.5, 1, False), row]

        def annotated(change: str) -> List[Row]:
            return rows(change)

        server = self.server(annotated)
        first = {"city": "b", "temperature": 0.5, "count": 1, "ok": False}
        for change, second in (("none", {"city": "a", "temperature": 1.5, "count": 2, "ok": True}),
                               ("int for float", {"city": "a", "temperature": 2.0, "count": 2, "ok": True}),
                               ("bool for int", {"city": "a", "temperature": 1.5, "count": 1, "ok": True}),
                               ("extra attribute", {"city": "a", "temperature": 1.5, "count": 2, "ok": True}),
                               ("dict out of order", {"ok": True, "count": 2, "temperature": 1.5, "city": "a"})):
            with self.subTest(change=change):
                result = server.call_tool("annotated", {"change": change})
                self.assertEqual(result["structuredContent"], {"result": [first, second]})
                self.assertEqual([b["text"] for b in result["content"]],
                                 [json.dumps(first, indent=2), json.dumps(second, indent=2)])
                self.assertIs(type(second["temperature"]), float)
        result = server.call_tool("annotated", {"change": "nan"})
        self.assertTrue(result["isError"])
        self.assertIn("result.1.temperature\n  Input should be a finite number", result["content"][0]["text"])

    def test_lists_checked_in_passes_agree_with_item_by_item(self) -> None:
        """A list of exact objects is checked in a few passes over its members
        (the accelerator _fast_list); whatever the list holds, the result is the one the item
        checker gives item by item."""
        import random

        @dataclasses.dataclass
        class Row:
            city: str
            temperature: float
            count: int

        @dataclasses.dataclass
        class Other:
            city: str
            temperature: float
            count: int

        @dataclasses.dataclass
        class Slotted:
            __slots__ = ("city", "temperature", "count")
            city: str
            temperature: float
            count: int

        rng = random.Random(5)

        def item() -> Any:
            row: Any = rng.choice([Row, Row, Row, Other, Slotted])("a", 1.5, 2)
            change = rng.randrange(12)
            if change == 0:
                row.temperature = rng.choice([2, float("nan"), float("inf"), 1e308, True])
            elif change == 1:
                row.count = rng.choice([True, 2.0, "3", None])
            elif change == 2 and not isinstance(row, Slotted):
                row.extra = 1
            elif change == 3:
                row = {"city": "b", "temperature": 0.5, "count": 1}
            elif change == 4:
                row = {"count": 1, "temperature": 0.5, "city": "b"}
            elif change == 5:
                row = {"city": "b", "temperature": 0.5}
            elif change == 6:
                row = {"city": "b", "temperature": 0.5, "number": 1}  # another key of the same type
            return row

        cases = [[item() for _ in range(rng.randint(0, 4))] for _ in range(400)]
        # Two big finite floats whose sum overflows: still fine.
        cases.append([Row("a", 1e308, 1), Row("b", 1e308, 2)])

        def rows(case: int) -> List[Row]:
            return cases[case]

        def results() -> List[Any]:
            server = self.server(rows)
            stderr = io.StringIO()
            with contextlib.redirect_stderr(stderr):
                return [server.call_tool("rows", {"case": i}) for i in range(len(cases))]

        in_passes = results()
        with mock.patch.object(mcp_ref, "_fast_list", lambda *shape: lambda values: None):
            item_by_item = results()
        self.assertEqual(in_passes, item_by_item)
        self.assertGreater(sum(not r["isError"] for r in in_passes), 100)
        self.assertGreater(sum(r["isError"] for r in in_passes), 20)

    def test_result_size_limit(self) -> None:
        def big() -> str:
            return "x" * 5000

        server = MCPServer("t", max_result_bytes=1000)
        server.add_tool(big)
        text = server.call_tool("big", {})["content"][0]["text"]
        self.assertRegex(text, r"^Error executing tool big: the result is at least \d+ bytes of JSON, over this "
                               r"server's limit of 1000$")

    def test_async_tool_in_process(self) -> None:
        async def double(x: int) -> int:
            return x * 2

        self.assertEqual(self.server(double).call_tool("double", {"x": 2})["structuredContent"], {"result": 4})

    def test_unknown_tool(self) -> None:
        with self.assertRaisesRegex(mcp_ref.ToolError, "Unknown tool: nope"):
            MCPServer("t").call_tool("nope", {})

    def test_arguments_become_python_values(self) -> None:
        corpus = load_corpus(strings=False)
        cases = [
            ("tuple_set_params", {"pair": [1, "a"], "tags": ["b", "a", "b"]}, "tuple(1, 'a') set['a', 'b'] frozenset"),
            ("enum_param", {"color": "red", "level": "2"}, "Color.RED HIGH"),
            ("struct_param", {"point": {"x": 1}, "movie": {"title": "t", "year": 1}}, "1,0 t green"),
            ("datetime_param", {"when": "2024-05-01T10:00:00Z"}, "2024-05-01T11:00:00+00:00"),
        ]
        for name, arguments, text in cases:
            with self.subTest(tool=name):
                self.assertEqual(corpus.server.call_tool(name, arguments)["content"][0]["text"], text)


@unittest.skipUnless(importlib.util.find_spec("pydantic"), "pydantic is not installed (CI's venv has it)")
class PydanticModelTest(unittest.TestCase):
    """The SDK page's own examples, with pydantic models: pydantic describes them."""

    def setUp(self) -> None:
        from pydantic import BaseModel
        from pydantic import Field as PydanticField

        class WeatherData(BaseModel):
            temperature: float = PydanticField(description="Degrees Celsius.")
            humidity: float = PydanticField(description="Relative humidity, 0 to 1.")
            conditions: str

        class Plain(BaseModel):
            temperature: float
            humidity: float
            conditions: str

        self.server = MCPServer("Weather")

        def get_weather(city: str) -> WeatherData:
            return WeatherData(temperature=16.2, humidity=0.83, conditions="Overcast")

        def get_forecast(city: str, days: int) -> List[Plain]:
            return [Plain(temperature=16.2 + day, humidity=0.83, conditions="Overcast") for day in range(days)]

        def get_upstream(city: str) -> Plain:
            return json.loads('{"temperature": 16.2, "conditions": "Overcast"}')  # type: ignore[no-any-return]

        def echo_model(data: Plain) -> str:
            return f"{type(data).__name__} {data.temperature}"

        for fn in (get_weather, get_forecast, get_upstream, echo_model):
            self.server.add_tool(fn)
        self.tools = {t["name"]: t for t in self.server.list_tools()}

    def test_schemas_of_the_docs_page(self) -> None:
        self.assertEqual(self.tools["get_weather"]["outputSchema"], DOCS_WEATHER_SCHEMA)
        forecast = self.tools["get_forecast"]["outputSchema"]
        self.assertEqual(forecast["properties"], {"result": {"items": {"$ref": "#/$defs/Plain"}, "title": "Result",
                                                             "type": "array"}})
        self.assertEqual(forecast["$defs"]["Plain"]["required"], ["temperature", "humidity", "conditions"])
        self.assertEqual(self.tools["echo_model"]["inputSchema"]["properties"]["data"], {"$ref": "#/$defs/Plain"})

    def test_results(self) -> None:
        self.assertEqual(self.server.call_tool("get_weather", {"city": "London"})["structuredContent"],
                         {"temperature": 16.2, "humidity": 0.83, "conditions": "Overcast"})
        self.assertEqual(len(self.server.call_tool("get_forecast", {"city": "x", "days": 2})["content"]), 2)
        self.assertEqual(self.server.call_tool("get_upstream", {"city": "London"})["content"][0]["text"], (
            "Error executing tool get_upstream: 1 validation error for Plain\nhumidity\n  Field required "
            "[type=missing, input_value={'temperature': 16.2, 'conditions': 'Overcast'}, input_type=dict]"))
        self.assertEqual(self.server.call_tool("echo_model", {"data": {"temperature": 1, "humidity": 0,
                                                                       "conditions": "x"}})["content"][0]["text"],
                         "Plain 1.0")


class PrettyTextTest(unittest.TestCase):
    """content text is written by mcp_ref._pretty: exactly json.dumps(indent=2)."""

    def test_same_as_json_dumps(self) -> None:
        import random

        rng = random.Random(7)

        def value(depth: int = 0) -> Any:
            kind = rng.choice("sifbnld" if depth < 4 else "sif")
            if kind == "s":
                return rng.choice(["", 'a"b', "é\n✓\u2028", "\x00", "tab\t"])
            if kind == "i":
                return rng.randint(-10**20, 10**20)
            if kind == "f":
                return rng.choice([0.1, -1e300, 1e-7, 16.2, 3.0, -0.0])
            if kind == "b":
                return rng.random() < 0.5
            if kind == "n":
                return None
            if kind == "l":
                return [value(depth + 1) for _ in range(rng.randint(0, 3))]
            return {rng.choice(["a", "é", '"k']) + str(i): value(depth + 1) for i in range(rng.randint(0, 3))}

        for _ in range(3000):
            data = value()
            self.assertEqual(mcp_ref._pretty(data), json.dumps(data, indent=2, ensure_ascii=False))
        for bad in ([1.0, float("nan")], {"a": {"b": float("inf")}}, float("-inf")):
            with self.assertRaises(mcp_ref._NotJSON):
                mcp_ref._pretty(bad)

    def test_objects_written_in_one_pass(self) -> None:
        """_fast_structured: a list of two or more objects of leaves gets its
        content text and its JSON from one pass of json's C encoder: the same
        text as json.dumps(indent=2), JSON that parses back to the value; any
        other value gets exactly what the rule, _structured_result, gives."""
        import random

        rng = random.Random(11)
        leaves = ["", "},\n  {", ",\n  ", "},\\n  {", "\\", 'a"b', '\\"', "é\n✓\x00", 0, -7, 16.2, 1e300, True, None]

        def flat() -> Dict[str, Any]:
            return {rng.choice(["a", "é", '"k', "},"]) + str(i): rng.choice(leaves) for i in range(rng.randint(1, 4))}

        written = 0
        for _ in range(2000):
            items = [flat() for _ in range(rng.randint(1, 5))]
            if rng.random() < 0.2:  # one item that is not an object of leaves
                items[rng.randrange(len(items))] = rng.choice([{}, {"a": [1]}, {"b": {"c": 1}}, [1, 2], "s", 3])
            wrap = rng.random() < 0.5
            structured = {"result": items} if wrap else items
            got = mcp_ref._fast_structured(items, items, structured, wrap)
            rule = mcp_ref._structured_result(items, items, structured, wrap)
            flat_only = len(items) > 1 and all(
                type(i) is dict and i and all(type(v) in (str, int, float, bool, type(None)) for v in i.values())
                for i in items)
            if not flat_only:
                self.assertEqual(got, rule)
                continue
            written += 1
            self.assertIs(type(got["structuredContent"]), mcp_ref._PreEncoded)
            self.assertEqual(got["content"], rule["content"])
            data = got["structuredContent"].json
            self.assertEqual(json.loads(data), structured)
            self.assertNotIn("\n", data)
        self.assertGreater(written, 500)
        nan = [{"a": 1.0}, {"a": float("nan")}]
        with self.assertRaises(mcp_ref._NotJSON):  # as the rule: never sent
            mcp_ref._fast_structured(nan, nan, nan, False)
        strings = ["a", "b"]  # a string item is its own text
        self.assertEqual(mcp_ref._fast_structured(strings, [{"a": 1}, {"a": 2}], strings, False)["structuredContent"],
                         strings)

    def test_written_result_on_the_wire(self) -> None:
        """A written structuredContent is put into the message as it is; if the
        stand-in it replaces occurred anywhere else, the value is encoded instead."""
        structured = {"result": [{"a": 1}]}
        for text in ("[a]", mcp_ref._PLACEHOLDER):
            result = {"content": [{"type": "text", "text": text}], "isError": False,
                      "structuredContent": mcp_ref._PreEncoded(structured, '{"result":[{"a": 1}]}')}
            message = json.loads(mcp_ref._fast_encode_reply(
                result, lambda r: {"jsonrpc": "2.0", "id": 1, "result": r}))
            self.assertEqual(message["result"], {"content": [{"type": "text", "text": text}], "isError": False,
                                                 "structuredContent": structured})


class WireEncodingTest(unittest.TestCase):
    """_encode writes each message as compact JSON on one line, with json's C
    encoder object or without it, and fails the way json.dumps fails."""

    def test_same_as_json_dumps(self) -> None:
        messages = [{"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "a\nb\u2028é"}],
                                                          "structuredContent": {"result": [1, 2.5, None, True]},
                                                          "isError": False}},
                    {"jsonrpc": "2.0", "id": "x", "error": {"code": -32600, "message": "Invalid Request"}}]
        cyclic: Dict[str, Any] = {}
        cyclic["self"] = cyclic
        for dumps in (mcp_ref._fast_dumps, mcp_ref._ENCODER.encode):
            with self.subTest(dumps=dumps), mock.patch.object(mcp_ref, "_dumps_message", dumps):
                for message in messages:
                    self.assertEqual(mcp_ref._encode(message), json.dumps(
                        message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
                with self.assertRaises(ValueError):
                    mcp_ref._encode({"x": float("nan")})
                with self.assertRaises(TypeError):
                    mcp_ref._encode({"x": object()})
                with self.assertRaises((ValueError, RecursionError)):  # json's check, or the C encoder's depth
                    mcp_ref._encode(cyclic)

    def test_cyclic_passthrough_result_is_a_tool_error(self) -> None:
        def raw() -> mcp_ref.CallToolResult:
            meta: Dict[str, Any] = {}
            meta["again"] = meta
            return mcp_ref.CallToolResult(content=[mcp_ref.TextContent(text="hi")], meta=meta)

        server = MCPServer("t")
        server.add_tool(raw)
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            result = server.call_tool("raw", {})
        self.assertTrue(result["isError"])
        self.assertIn("cyclic", result["content"][0]["text"])


class DoctestTest(unittest.TestCase):
    """The module docstring's examples are tests too (under unittest and pytest alike)."""

    def test_docstring_examples(self) -> None:
        result = doctest.testmod(mcp_ref, optionflags=doctest.ELLIPSIS)
        self.assertGreater(result.attempted, 5)
        self.assertEqual(result.failed, 0)


if __name__ == "__main__":
    unittest.main()

"""Sections 4 and 8: Python values as JSON, and the results built from them
(``content`` blocks, the text the model reads, ``structuredContent``).

Every corpus call against the SDK's recorded result, the results printed on
the SDK's "Structured output" page, content blocks, passthrough results, tool
errors, and the content text of nested values in both modes of the
accelerators.
"""

import collections
import contextlib
import dataclasses
import datetime
import decimal
import enum
import io
import json
import pathlib
import typing
import unittest
import uuid
from typing import Any, Dict, List, Optional, Union

from _testing import BOTH, NEEDS_PYDANTIC, SDK, accelerators, has_module, load_corpus, load_example, mcp_ref, \
    server_with, without_help_links

validate = mcp_ref.validate

# Calls whose result differs on purpose (README, "Where mcp_ref differs"), by kind of difference.
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
    # pydantic's date, time and UUID parsers word their messages in more detail (same error type).
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
# 4. Python values as JSON
# ---------------------------------------------------------------------------


class Shade(enum.Enum):
    DARK = "dark"


class Level(enum.IntEnum):
    HIGH = 2


@dataclasses.dataclass
class Dated:
    x: int
    when: datetime.date


# Values and what pydantic's JSON mode (to_jsonable_python) makes of them.
JSON_VALUES: List[Any] = [
    (datetime.datetime(2024, 5, 1, 10, 0, 0, 500, tzinfo=datetime.timezone.utc), "2024-05-01T10:00:00.000500Z"),
    (datetime.datetime(2024, 5, 1, 10, 0, tzinfo=datetime.timezone(-datetime.timedelta(hours=5, minutes=30))),
     "2024-05-01T10:00:00-05:30"),
    (datetime.datetime(2024, 5, 1), "2024-05-01T00:00:00"),
    (datetime.date(2024, 5, 1), "2024-05-01"),
    (datetime.time(10, 0, 1, 5), "10:00:01.000005"),
    (datetime.timedelta(days=1, hours=2, minutes=3, seconds=4, microseconds=500000), "P1DT2H3M4.5S"),
    (datetime.timedelta(0), "PT0S"),
    (datetime.timedelta(seconds=-1), "-PT1S"),
    (datetime.timedelta(days=-1, microseconds=1), "-PT23H59M59.999999S"),
    (datetime.timedelta(microseconds=-1), "-PT0.000001S"),
    (decimal.Decimal("1.50"), "1.50"),
    (uuid.UUID(int=5), "00000000-0000-0000-0000-000000000005"),
    (pathlib.Path("/a/b"), "/a/b"),
    (Shade.DARK, "dark"),
    (Level.HIGH, 2),
    (Dated(1, datetime.date(2024, 1, 2)), {"x": 1, "when": "2024-01-02"}),
    ((1, "a"), [1, "a"]),
    ({3}, [3]),
    (frozenset({"x"}), ["x"]),
    (b"hi", "hi"),
    (bytearray(b"hi"), "hi"),
    (collections.OrderedDict(a=1), {"a": 1}),
    ({1: "a", 2.5: "b", False: "c"}, {"1": "a", "2.5": "b", "false": "c"}),
    ([Shade.DARK, (Dated(2, datetime.date(2020, 2, 29)),)], ["dark", [{"x": 2, "when": "2020-02-29"}]]),
    (10**30, 10**30),
]


class JsonValuesTest(unittest.TestCase):
    def test_values_as_pydantic_writes_them(self) -> None:
        for value, expected in JSON_VALUES:
            with self.subTest(value=value):
                got = mcp_ref._jsonable(value)
                self.assertEqual(got, expected)
                self.assertEqual(json.dumps(got), json.dumps(expected))  # types and key order too

    @unittest.skipUnless(has_module("pydantic"), NEEDS_PYDANTIC)
    def test_same_as_pydantic(self) -> None:
        from pydantic_core import to_jsonable_python

        for value, expected in JSON_VALUES:
            with self.subTest(value=value):
                self.assertEqual(json.dumps(to_jsonable_python(value)), json.dumps(expected))

    def test_values_json_cannot_carry(self) -> None:
        cyclic: List[Any] = []
        cyclic.append(cyclic)
        for value, message in ((float("nan"), "Input should be a finite number"),
                               ([1, {"a": float("-inf")}], "Input should be a finite number"),
                               (b"\xff", "Input should be a valid string, unable to parse raw data as a unicode "
                                          "string"),
                               (cyclic, "Recursion error - cyclic reference detected"),
                               (object(), "Unable to serialize unknown type: object"),
                               ({object(): 1}, "Unable to serialize dictionary key of type object")):
            with self.subTest(value=value):
                with self.assertRaises(mcp_ref._NotJSON) as caught:
                    mcp_ref._jsonable(value)
                self.assertEqual(caught.exception.msg, message)


# ---------------------------------------------------------------------------
# 8. Content and results
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
            # Same header, location and error type; pydantic's parsers explain more.
            got_lines, expected_lines = got["content"][0]["text"], expected["content"][0]["text"]
            self.assertEqual(got_lines.splitlines()[:2], expected_lines.splitlines()[:2])
            kinds = [text.split("[type=", 1)[1].split(",", 1)[0] for text in (got_lines, expected_lines)]
            self.assertEqual(kinds[0], kinds[1])
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


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


@dataclasses.dataclass
class Inner:
    name: str
    weight: float
    tags: List[str]


@dataclasses.dataclass
class Outer:
    city: str
    inners: List[Inner]
    counts: Dict[str, int]
    note: Optional[str] = None


class ContentTest(unittest.TestCase):
    def test_content_blocks(self) -> None:
        def blocks() -> List[Union[str, mcp_ref.TextContent, mcp_ref.Image, mcp_ref.ResourceLink]]:
            return ["a", mcp_ref.TextContent(type="text", text="b"),
                    mcp_ref.Image(data=b"\x89PNG", format="png"),
                    mcp_ref.ResourceLink(name="r", uri="file:///r")]

        result = server_with(blocks).call_tool("blocks", {})
        self.assertEqual(result, {"content": [
            {"type": "text", "text": "a"}, {"type": "text", "text": "b"},
            {"type": "image", "data": "iVBORw==", "mimeType": "image/png"},
            {"type": "resource_link", "name": "r", "uri": "file:///r"}], "isError": False})
        self.assertNotIn("outputSchema", server_with(blocks).list_tools()[0])

    def test_older_revisions_get_known_blocks_only(self) -> None:
        def link() -> Any:
            return mcp_ref.ResourceLink(name="r", uri="file:///r")

        result = server_with(link).call_tool("link", {}, protocol_version="2025-03-26")
        self.assertEqual(result["content"], [{"type": "text", "text": "[resource link: file:///r]"}])

    def test_blocks_compare_like_dataclasses(self) -> None:
        self.assertEqual(mcp_ref.TextContent(type="text", text="a"), mcp_ref.TextContent(text="a"))
        self.assertNotEqual(mcp_ref.TextContent(text="a"), mcp_ref.TextContent(text="b"))
        self.assertEqual(repr(mcp_ref.TextContent(text="a")), "TextContent(type='text', text='a')")

    def test_call_tool_result_passes_through(self) -> None:
        def raw() -> mcp_ref.CallToolResult:
            return mcp_ref.CallToolResult(content=[mcp_ref.TextContent(text="hi")], structured_content={"a": 1},
                                          meta={"app": True})

        self.assertEqual(server_with(raw).call_tool("raw", {}), {
            "content": [{"type": "text", "text": "hi"}], "structuredContent": {"a": 1}, "isError": False,
            "_meta": {"app": True}})

    def test_annotated_call_tool_result_is_checked(self) -> None:
        def checked() -> typing.Annotated[mcp_ref.CallToolResult, Point]:
            return mcp_ref.CallToolResult(content=[], structured_content={"x": "nope"})

        server = server_with(checked)
        self.assertEqual(server.list_tools()[0]["outputSchema"]["title"], "Point")
        result = server.call_tool("checked", {})
        self.assertTrue(result["isError"])
        self.assertIn("x\n  Input should be a valid integer", result["content"][0]["text"])

    def test_tool_error_and_crash(self) -> None:
        def fails(kind: str) -> int:
            if kind == "tool":
                raise mcp_ref.ToolError("the city is unknown")
            raise RuntimeError("secret /etc/passwd")

        server = server_with(fails)
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
                result = server_with(fn).call_tool(fn.__name__, {})
                self.assertTrue(result["isError"])
                self.assertIn(fragment, result["content"][0]["text"])

    def test_text_of_a_list_of_nested_objects(self) -> None:
        """A list result is one text block per item, each item's JSON indented by
        2 (ensure_ascii off), written from the checked item: nested dataclasses,
        lists and dicts, dicts among the items, ints made floats, in both modes."""
        def outers(n: int) -> List[Outer]:
            items: List[Any] = [Outer(f"city {i} é✓", [Inner("a\n\"b\"", i, ["x", "ü"]), Inner("c", 0.5, [])],
                                      {"k": i, "ünï": -i}, None if i % 2 else "n") for i in range(n)]
            items.append({"city": "dict", "inners": [{"name": "d", "weight": 2, "tags": ["t"]}], "counts": {}})
            return items

        for on in BOTH:
            with self.subTest(accelerated=on), accelerators(on):
                server = server_with(outers)
                for n in (0, 1, 3, 12):
                    result = server.call_tool("outers", {"n": n})
                    items = result["structuredContent"]["result"]
                    self.assertEqual(len(items), n + 1)
                    self.assertEqual(items[-1], {"city": "dict", "inners": [{"name": "d", "weight": 2.0,
                                                                              "tags": ["t"]}],
                                                 "counts": {}, "note": None})
                    self.assertEqual(items[0 if n else -1]["inners"][0]["weight"], 0.0 if n else 2.0)
                    self.assertEqual(result["content"], [
                        {"type": "text", "text": json.dumps(item, indent=2, ensure_ascii=False)} for item in items])
                    self.assertFalse(result["isError"])


@dataclasses.dataclass
class Empty:
    pass


@dataclasses.dataclass
class Defaults:
    value: int = 17


@dataclasses.dataclass
class Made:
    value: int
    tags: List[str] = dataclasses.field(default_factory=lambda: ["new"])
    when: datetime.date = dataclasses.field(default_factory=lambda: datetime.date(2020, 1, 2))


class Pair(typing.TypedDict, total=False):
    a: int
    b: bool


class ConvertedResultTest(unittest.TestCase):
    """A result is converted through its declared type (pydantic's lax mode, as
    the SDK's convert_result validates it with the output model) and sent in
    pydantic's JSON mode; the content text follows the converted value."""

    def call(self, annotation: Any, value: Any) -> Dict[str, Any]:
        def tool() -> None:
            return value  # type: ignore[no-any-return]

        tool.__annotations__["return"] = annotation
        return server_with(tool).call_tool("tool", {})  # type: ignore[no-any-return]

    def test_json_forms_are_parsed_and_normalised(self) -> None:
        for on in BOTH:
            with accelerators(on):
                for annotation, value, structured, texts in [
                    (Optional[datetime.datetime], "2024-01-02", "2024-01-02T00:00:00", ["2024-01-02T00:00:00"]),
                    (Optional[datetime.datetime], 1577836800, "2020-01-01T00:00:00Z", ["2020-01-01T00:00:00Z"]),
                    (List[datetime.date], ["2020-01-02T00:00:00"], ["2020-01-02"], ["2020-01-02"]),
                    (Optional[datetime.time], 3600, "01:00:00Z", ["01:00:00Z"]),
                    (List[datetime.timedelta], ["1 day, 01:00:00", 90], ["P1DT1H", "PT1M30S"], ["P1DT1H", "PT1M30S"]),
                    (List[uuid.UUID], ["12345678123456781234567812345678"], ["12345678-1234-5678-1234-567812345678"],
                     ["12345678-1234-5678-1234-567812345678"]),
                    (List[decimal.Decimal], [1.5, 2, "0.10"], ["1.5", "2", "0.10"], ["1.5", "2", "0.10"]),
                    (List[pathlib.Path], [""], ["."], ["."]),
                    (Dict[int, str], {"1": "a", 2: "b"}, {"1": "a", "2": "b"}, ['{\n  "1": "a",\n  "2": "b"\n}']),
                    (typing.Literal[1, 2], 2.0, 2, ["2"]),
                    (Union[float, int], 5, 5, ["5"]),
                    (Union[int, float], 5.0, 5.0, ["5.0"]),
                    (Union[uuid.UUID, str], "", "", [""]),
                    # pydantic's strict mode takes no JSON value for bytes, a Path or a Decimal: the lax arms in order
                    (Union[bool, bytes], "f", False, ["false"]),
                    (Union[pathlib.Path, int, bytes], "", ".", ["."]),
                    (Union[decimal.Decimal, bool, None], 1.5, "1.5", ["1.5"]),
                    (Union[typing.Mapping[str, bytes], Empty, None], {"": "é"}, {}, ["{}"]),
                    (Union[Empty, Pair, None], {"a": 1, "b": True}, {"a": 1, "b": True},
                     ['{\n  "a": 1,\n  "b": true\n}']),
                    (Union[Defaults, Dict[str, bytes]], {}, {}, ["{}"]),  # the dict is exact: no default filled
                    (Union[decimal.Decimal, int, None], 2.0, "2.0", ["2.0"]),  # strict int takes no float
                    (Union[Any, Pair], {"a": 1, "x": 2}, {"a": 1}, ['{\n  "a": 1\n}']),  # Any ranks below a class
                    (Union[typing.Set[int], List[int]], [1, 1], [1, 1], ["1", "1"]),  # a list is no set
                    # a set of sets keeps one of each, whatever their order; the text has a block per item kept;
                    # a set of strings and numbers is in the order of pydantic's set ("0" added first)
                    (typing.FrozenSet[typing.FrozenSet[typing.Literal[0, "0"]]], [[], ["0", 0], [0, "0"]],
                     [[], list(frozenset(["0", 0]))], ["0", "0"]),
                    (typing.Set[int], [1, 1, 2], [1, 2], ["1", "2"]),
                    # An object of exactly one arm's type is that arm's, as in pydantic's smart unions.
                    (Union[datetime.datetime, datetime.date], datetime.date(2020, 1, 2), "2020-01-02",
                     ['"2020-01-02"']),
                    (Union[float, decimal.Decimal], decimal.Decimal("1.5"), "1.5", ['"1.5"']),
                ]:
                    with self.subTest(accelerated=on, annotation=annotation, value=value):
                        result = self.call(annotation, value)
                        self.assertEqual(result["structuredContent"], {"result": structured})
                        self.assertEqual([b["text"] for b in result["content"]], texts)

    def test_as_pydantic_builds_it(self) -> None:
        """What pydantic's validation makes of a returned value, sent as the SDK sends it."""
        for on in BOTH:
            with accelerators(on):
                for annotation, value, structured in [
                    # a bare dict, Any and dict[int, T] take a key that is no string, which JSON writes as text
                    (Dict[int, int], {1: 2}, {"1": 2}),
                    (Union[Dict[str, int], dict], {1: 2}, {"1": 2}),
                    # a dataclass's default_factory runs for a field the result lacks (not validated: as made)
                    (Optional[Made], {"value": 1}, {"value": 1, "tags": ["new"], "when": "2020-01-02"}),
                    (List[Union[Made, int]], [{"value": 1, "tags": []}], [{"value": 1, "tags": [], "when":
                                                                          "2020-01-02"}]),
                    # a Literal's value is found by Python's equality, as exactly as an arm of the value's type
                    (Union[Any, typing.Literal[1]], True, 1),
                    (Union[Any, typing.Literal[True]], 1.0, True),
                    (Union[float, typing.Literal[True]], 1, True),
                    (Union[int, typing.Literal[True]], 1, 1),
                    # tuple[T, ...] takes a list only in pydantic's lax pass, where arms are tried in order
                    (Union[typing.Tuple[uuid.UUID, datetime.time], tuple],
                     ["12345678-1234-5678-1234-567812345678", "10:20:30.5"],
                     ["12345678-1234-5678-1234-567812345678", "10:20:30.500000"]),
                ]:
                    with self.subTest(accelerated=on, annotation=annotation, value=value):
                        self.assertEqual(self.call(annotation, value)["structuredContent"], {"result": structured})

    def test_a_set_is_sent_in_the_order_of_pydantic_s_set(self) -> None:
        """pydantic builds a set by adding each item to an empty one and dumps it
        in that set's order, which for strings is the process's hash order."""
        words = ["b", "a", "é", "x", "d", "c", "17", "true", "null", "ab c", "P1D", "1.5"]

        def pydantic_order(items: Any) -> List[Any]:
            built: set[Any] = set()
            for item in items:
                built.add(item)
            return list(built)

        returned = set(words)  # a set literal's order need not be the order of a set built item by item
        for on in BOTH:
            with accelerators(on):
                for annotation, value, expected in [
                    (typing.Set[str], returned, pydantic_order(returned)),
                    (typing.FrozenSet[str], frozenset(words), pydantic_order(frozenset(words))),
                    (typing.Set[str], words, pydantic_order(words)),
                    (List[typing.Set[Union[str, int]]], [words + [1, 2]], [pydantic_order(words + [1, 2])]),
                    (typing.Set[typing.Literal[True, 1]], [True, 1], [True]),  # equal in Python: one item
                ]:
                    with self.subTest(accelerated=on, annotation=annotation, value=value):
                        self.assertEqual(self.call(annotation, value)["structuredContent"], {"result": expected})
                # the text is written from the items as the set holds them (null: no block), null moved too
                items = next((c for c in (["17", None, w] for w in words) if pydantic_order(c).index(None) != 1),
                             ["17", None, "b"])
                result = self.call(typing.Set[Optional[str]], items)
                order = pydantic_order(items)
                self.assertEqual(result["structuredContent"], {"result": order})
                self.assertEqual(result["content"], [{"type": "text", "text": t} for t in order if t is not None])

    def test_what_pydantic_refuses_is_refused(self) -> None:
        for annotation, value, place, kind in [
            (Optional[datetime.datetime], "not a date", "result", "datetime_from_date_parsing"),
            (List[uuid.UUID], ["not-a-uuid"], "result.0", "uuid_parsing"),
            (List[decimal.Decimal], ["abc"], "result.0", "decimal_parsing"),
            (List[decimal.Decimal], [True], "result.0", "decimal_type"),
            (List[datetime.date], ["2023-02-29"], "result.0", "date_from_datetime_parsing"),
            (Dict[int, str], {"x": "a"}, "result.x.[key]", "int_parsing"),
            (List[int], [1e20], "result.0", "int_parsing_size"),
            # pydantic builds a set's items: a dict cannot be one
            (typing.Set[Dict[str, datetime.time]], [{"b": "10:20:30"}], "result.0", "set_item_not_hashable"),
            (typing.FrozenSet[Union[Dict[str, str], int]], [2, {"a": "b"}], "result.1", "set_item_not_hashable"),
            # an arm of exactly the value's type that its bound refuses does not win
            (Optional[typing.Annotated[decimal.Decimal, mcp_ref.Field(gt=5)]], decimal.Decimal("1"), "result",
             "greater_than"),
            # a Python dict's key need not be a string; pydantic's dict[str, T] takes no other
            (List[Dict[str, int]], [{1: 2}], "result.0.1.[key]", "string_type"),
            (typing.Mapping[str, Any], {None: 2}, "result.None.[key]", "string_type"),
            (Optional[Defaults], {1: 2}, "result.1", "invalid_key"),  # a dataclass's, in its own words
        ]:
            with self.subTest(annotation=annotation, value=value):
                text = self.call(annotation, value)["content"][0]["text"]
                self.assertEqual(text.splitlines()[1], place)
                self.assertIn(f"[type={kind},", text)

    @unittest.skipUnless(has_module("pydantic"), NEEDS_PYDANTIC)
    def test_structured_content_is_pydantic_json_mode(self) -> None:
        import pydantic

        for annotation, value in [
            (Optional[datetime.datetime], "2024-01-02"), (List[datetime.date], [1577836800, "2020-01-02T00:00:00Z"]),
            (List[datetime.timedelta], [3600, "P1W", "-1 day", datetime.timedelta(days=800, microseconds=5)]),
            (List[decimal.Decimal], [0.1, 1e20, " 1_000 ", 3]), (Dict[int, List[datetime.time]], {"7": ["01:00", 5]}),
            (Optional[uuid.UUID], "{12345678-1234-5678-1234-567812345678}"),
            (Union[datetime.datetime, datetime.date], datetime.date(2020, 1, 2)),
            (Union[datetime.date, datetime.datetime], datetime.datetime(2020, 1, 2, 3)),
            (Union[float, decimal.Decimal], decimal.Decimal("1.5")), (Union[datetime.date, str], "2020-01-02"),
            (Union[bool, bytes], "f"), (Union[pathlib.Path, int, bytes], ""), (Union[decimal.Decimal, bool], 1.5),
            (Union[typing.Mapping[str, bytes], Empty, None], {"": "é"}),
            (typing.Set[typing.Tuple[int, ...]], [[1], [1]]),
        ]:
            with self.subTest(annotation=annotation, value=value):
                adapter = pydantic.TypeAdapter(annotation)
                expected = adapter.dump_python(adapter.validate_python(value), mode="json")
                self.assertEqual(self.call(annotation, value)["structuredContent"], {"result": expected})

    @unittest.skipUnless(has_module("pydantic"), NEEDS_PYDANTIC)
    def test_an_object_that_is_null_has_its_block(self) -> None:
        """A RootModel of None in a tuple is an item whose JSON is null: its block
        reads "null", as the SDK writes the object it was given."""
        import pydantic

        class Nothing(pydantic.RootModel[None]):
            pass

        result = self.call(typing.Tuple[str, Nothing], ("a", Nothing(None)))
        self.assertEqual(result["structuredContent"], {"result": ["a", None]})
        self.assertEqual(result["content"], [{"type": "text", "text": "a"}, {"type": "text", "text": "null"}])


if __name__ == "__main__":
    unittest.main()

"""Content (sections 4 and 8) as the layers refine it: the tests of the topic that need a layer
(SDK fidelity, patterns, the client, the command line or the accelerators); the
core's own are in tests/core/test_content.py.

Sections 4 and 8: Python values as JSON, and the results built from them
(``content`` blocks, the text the model reads, ``structuredContent``).

Every corpus call against the SDK's recorded result, the results printed on
the SDK's "Structured output" page, content blocks, passthrough results, tool
errors, and the content text of nested values in both modes of the
accelerators.
"""

import contextlib
import dataclasses
import datetime
import decimal
import io
import json
import pathlib
import typing
import unittest
import uuid
from typing import Any, Dict, List, Optional, Union

from tests._testing import BOTH, NEEDS_PYDANTIC, SDK, accelerators, has_module, load_corpus, load_example, mcp_ref, \
    server_with, without_help_links

from tests.core.test_content import Inner, Outer, Point, call_deviation, _ResultParityTestShared


class ResultParityTest(_ResultParityTestShared, unittest.TestCase):
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


class DocsPageResultTest(unittest.TestCase):
    """The results printed on the SDK's "Structured output" page, literally."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.module = load_example("weather_results")

    def call(self, tool: str, **arguments: Any) -> Dict[str, Any]:
        return self.module.mcp.call_tool(tool, arguments)  # type: ignore[no-any-return]

    def test_upstream_lost_a_field(self) -> None:
        self.assertEqual(self.call("get_weather_upstream", city="London"), {
            "content": [{"type": "text", "text": (
                "Error executing tool get_weather_upstream: 1 validation error for WeatherData\n"
                "humidity\n"
                "  Field required [type=missing, input_value={'temperature': 16.2, 'conditions': 'Overcast'}, "
                "input_type=dict]")}],
            "isError": True})


class ContentTest(unittest.TestCase):
    def test_annotated_call_tool_result_is_checked(self) -> None:
        def checked() -> typing.Annotated[mcp_ref.CallToolResult, Point]:
            return mcp_ref.CallToolResult(content=[], structured_content={"x": "nope"})

        server = server_with(checked)
        self.assertEqual(server.list_tools()[0]["outputSchema"]["title"], "Point")
        result = server.call_tool("checked", {})
        self.assertTrue(result["isError"])
        self.assertIn("x\n  Input should be a valid integer", result["content"][0]["text"])

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

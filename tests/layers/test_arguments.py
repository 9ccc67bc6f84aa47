"""Arguments (section 7) as the layers refine it: the tests of the topic that need a layer
(SDK fidelity, patterns, the client, the command line or the accelerators); the
core's own are in tests/core/test_arguments.py.

Section 7, Arguments: JSON arguments back into the parameters' Python types
(dataclasses, Enum members, datetimes, tuples, sets...), as pydantic hands
them to the SDK's tools, after the lax input check of sections 6, 24 and 25.
"""

import dataclasses
import datetime
import decimal
import enum
import pathlib
import unittest
import uuid
from typing import FrozenSet, Annotated, Any, Dict, List, Literal, Optional, Set, Tuple, TypedDict, Union

from tests._testing import Field, load_corpus, needs_layers, server_with

from tests.core.test_arguments import Inner, Point2, _core


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Nothing:
    pass


class Blob(TypedDict):
    data: bytes


@dataclasses.dataclass
class Outer:
    inners: List[Inner]
    when: datetime.date
    tags: Set[str]
    by_name: Dict[str, Inner]
    maybe: Optional[Inner] = None


class ArgumentsTest(unittest.TestCase):
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

    def test_the_values_a_tool_receives(self) -> None:
        """Exactly what the SDK 2.3 (pydantic) passes for the same arguments:
        nested dataclasses, a date, a set, JSON text parsed for a tuple (not for
        a string), lax numbers and booleans, the union arm the value fits, extra
        arguments dropped."""
        seen: List[Dict[str, Any]] = []

        def take(outer: Outer, pair: Tuple[int, str], ids: List[uuid.UUID], amount: decimal.Decimal,
                 path: pathlib.Path, color: Color, count: int, flag: bool, either: Union[int, Inner],
                 text: str = "") -> str:
            seen.append(dict(outer=outer, pair=pair, ids=ids, amount=amount, path=path, color=color, count=count,
                             flag=flag, either=either, text=text))
            return "ok"

        server = server_with(take)
        arguments = {
            "outer": {"inners": [{"n": 1}, {"n": "2"}], "when": "2024-05-01", "tags": ["b", "a", "b"],
                      "by_name": {"x": {"n": 3}}, "maybe": {"n": 4}},
            "pair": '[1, "a"]', "ids": ["12345678-1234-5678-1234-567812345678"], "amount": 1.5, "path": "/tmp/x",
            "color": "red", "count": "17", "flag": "true", "either": {"n": 5}, "text": '["a"]', "extra": 1}
        self.assertEqual(server.call_tool("take", arguments), {
            "content": [{"type": "text", "text": "ok"}], "structuredContent": {"result": "ok"}, "isError": False})
        self.assertEqual(seen, [{
            "outer": Outer([Inner(1), Inner(2)], datetime.date(2024, 5, 1), {"a", "b"}, {"x": Inner(3)}, Inner(4)),
            "pair": (1, "a"), "ids": [uuid.UUID("12345678-1234-5678-1234-567812345678")],
            "amount": decimal.Decimal("1.5"), "path": pathlib.Path("/tmp/x"), "color": Color.RED, "count": 17,
            "flag": True, "either": Inner(5), "text": '["a"]'}])
        self.assertEqual([type(v) for v in seen[0].values()],
                         [Outer, tuple, list, decimal.Decimal, type(pathlib.Path("/tmp/x")), Color, int, bool, Inner,
                          str])
        self.assertIs(type(seen[0]["outer"].tags), set)

        # Invalid arguments never reach the function; every error is listed.
        result = server.call_tool("take", dict(arguments, color="blue", count=1.5))
        self.assertEqual(result, {"content": [{"type": "text", "text": (
            "Error executing tool take: 2 validation errors for takeArguments\n"
            "color\n  Input should be 'red' [type=enum, input_value='blue', input_type=str]\n"
            "count\n  Input should be a valid integer, got a number with a fractional part "
            "[type=int_from_float, input_value=1.5, input_type=float]")}], "isError": True})
        self.assertEqual(len(seen), 1)

    def test_pydantic_lax_forms_arrive_converted(self) -> None:
        """pydantic's lax mode for arguments (each form in mcp_ref._LAX_TABLE is
        checked against pydantic in test_validation): Unix times, a midnight
        datetime for a date, seconds and "1 day" for durations, "1_000" for an
        int, true for Literal[1], int keys, and the exact union arm first."""
        seen: List[Dict[str, Any]] = []

        class Level(enum.IntEnum):
            LOW = 1

        def take(when: datetime.datetime, day: datetime.date, at: datetime.time, span: datetime.timedelta,
                 wait: datetime.timedelta, n: int, one: Literal[1, 2], level: Level, plain: Color,
                 keyed: Dict[int, str], number: Union[float, int], ident: Union[uuid.UUID, str]) -> str:
            seen.append({k: v for k, v in locals().items() if k != "seen"})
            return "ok"

        server = server_with(take)
        arguments = {"when": "1577836800", "day": "2020-01-02T00:00:00Z", "at": 3600.5, "span": "1 day, 01:00:00",
                     "wait": 1.5, "n": "1_000", "one": True, "level": "1", "plain": "red", "keyed": {"7": "a"},
                     "number": 5, "ident": ""}
        self.assertFalse(server.call_tool("take", arguments)["isError"])
        utc = datetime.timezone.utc
        self.assertEqual(seen, [{
            "when": datetime.datetime(2020, 1, 1, tzinfo=utc), "day": datetime.date(2020, 1, 2),
            "at": datetime.time(1, 0, 0, 500000, tzinfo=utc), "span": datetime.timedelta(days=1, hours=1),
            "wait": datetime.timedelta(seconds=1.5), "n": 1000, "one": 1, "level": Level.LOW, "plain": Color.RED,
            "keyed": {7: "a"}, "number": 5, "ident": ""}])
        self.assertEqual((type(seen[0]["one"]), type(seen[0]["number"])), (int, int))

        refused = {"day": ("2020-01-02T00:00:01", "date_from_datetime_inexact"),
                   "when": ("not a date", "datetime_from_date_parsing"), "n": (1e20, "int_parsing_size"),
                   "keyed": ({"x": "a"}, "int_parsing"), "span": ("3600", "time_delta_parsing")}
        for name, (value, kind) in refused.items():
            with self.subTest(argument=name):
                text = server.call_tool("take", dict(arguments, **{name: value}))["content"][0]["text"]
                self.assertIn(f"[type={kind},", text)
        self.assertEqual(len(seen), 1)

    def test_a_union_takes_the_arm_pydantic_chooses(self) -> None:
        """pydantic's smart union in Python mode (the SDK's model_validate): an arm
        the value is an instance of wins; bytes, a Path, an Enum or a timedelta
        take a JSON value only by conversion, so the first arm that converts wins."""
        class Level(enum.IntEnum):
            LOW = 3

        seen: List[Any] = []

        def take(value: Any) -> str:
            seen.append(value)
            return "ok"

        for annotation, argument, expected in [
            (Union[bool, bytes], "f", False),
            (Union[float, bool, bytes], " 2 ", 2.0),
            (Union[bytes, int], "abc", b"abc"),
            (Union[pathlib.Path, Literal["b", "a"], None], "a", "a"),
            (Union[pathlib.Path, int, bytes], "", pathlib.Path(".")),
            (Union[datetime.timedelta, Level], 3, datetime.timedelta(seconds=3)),
            (Union[Level, datetime.timedelta], 3, Level.LOW),
            (Union[bytes, str], "abc", "abc"),
            # a value the arm converts from another JSON type: that arm's object,
            # not the string the check made of it (str takes no number)
            (Union[datetime.date, str], 1699920000, datetime.date(2023, 11, 14)),
            (Union[datetime.datetime, datetime.date, str, None], 0,
             datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)),
            (Union[decimal.Decimal, str], 1.5, decimal.Decimal("1.5")),
            (Union[str, decimal.Decimal], 2, decimal.Decimal(2)),
            (Union[Annotated[decimal.Decimal, Field(description="d")], str], 1.5, decimal.Decimal("1.5")),
            (Union[str, Annotated[datetime.date, Field(description="d")]], 1699920000, datetime.date(2023, 11, 14)),
            (Union[datetime.date, str], "2020-01-02", "2020-01-02"),
            (Union[decimal.Decimal, str], "1.5", "1.5"),
            # a Python-only arm is lax, as a later arm that converts the string is: the first wins,
            # Annotated or not (pydantic's lax-or-strict floors a Path to Lax)
            (Union[pathlib.Path, Annotated[decimal.Decimal, Field(description="d")]], " 1.5 ",
             pathlib.Path(" 1.5 ")),
            (Union[bytes, Annotated[decimal.Decimal, Field(ge=0)]], " 1.5 ", b" 1.5 "),
            (Union[pathlib.Path, Annotated[Optional[decimal.Decimal], Field(description="d")]], " 1.5 ",
             pathlib.Path(" 1.5 ")),
            # a string the check reads as a number: the first arm that takes the string, not the float
            (Union[Level, float], "3", Level.LOW),
            (Union[Level, Annotated[float, Field(description="d")]], "3", Level.LOW),
            (Union[Level, int], "3", Level.LOW),
            (Union[float, Level], "3", 3.0),
            # of the classes of fields, the one the object sets the most fields of
            (Union[Inner, Point2, None], {"n": 1, "m": 2}, Point2(1, 2)),
            (Union[Point2, Inner], {"n": 1}, Point2(1, 0)),
            # a class whose field converts (bytes from a string) is lax, but sets more fields than one of none
            (Union[Nothing, Blob], {"data": "abc"}, {"data": b"abc"}),
            # a dict[int, T] whose keys are no integers is not taken: Any is
            (Union[Dict[int, str], Any], {"name": "x"}, {"name": "x"}),
            # an arm that converts a part (a Decimal from a string) is lax: Any takes the value as it is
            (Union[List[decimal.Decimal], Any], [" 1.5 "], [" 1.5 "]),
            # a Literal's value found by Python's equality is as exact as an arm of the value's type
            (Union[Any, Literal[1]], True, 1),
            (Union[Any, Literal[True]], 1.0, True),
            (Union[Any, Literal[0]], False, 0),
            (Union[float, Literal[True]], 1, True),
            (Union[int, Literal[True]], 1, 1),
            (Union[Literal[True], int], 1, True),
            # JSON text where the Literal takes no such string: "null" is None, as the SDK's pre-parse reads it
            (Literal[None, ""], "null", None),
            (Optional[Literal["x"]], "null", None),
            (Literal[None, ""], "", ""),
        ]:
            with self.subTest(annotation=annotation, argument=argument):
                take.__annotations__["value"] = annotation
                seen.clear()
                self.assertFalse(server_with(take).call_tool("take", {"value": argument})["isError"])
                self.assertEqual(seen, [expected])
                self.assertIs(type(seen[0]), type(expected))

    def test_a_nested_union_weighs_the_number_the_check_made(self) -> None:
        # docs/sdk-differences.md, 46: only a parameter's own union sees the string as sent ("3" is Level.LOW,
        # above); inside a list, a dict or a class it weighs the number, where pydantic
        # gives the member.  What goes back on the wire is the same.
        class Level(enum.IntEnum):
            LOW = 3

        def take(items: List[Union[Level, float]], named: Dict[str, Union[Level, float]]) -> List[float]:
            self.assertEqual([type(items[0]), type(named["a"])], [int, int])
            return [items[0], named["a"]]

        result = server_with(take).call_tool("take", {"items": ["3"], "named": {"a": "3"}})
        self.assertEqual(result["structuredContent"], {"result": [3, 3]})

    def test_a_result_in_a_union_of_classes_sets_the_most_fields(self) -> None:
        # Blob's bytes field makes it lax in pydantic's smart union; Nothing sets no field, Blob one
        def echo(value: Union[Nothing, Blob]) -> Union[Nothing, Blob]:
            return value

        result = server_with(echo).call_tool("echo", {"value": {"data": "abc"}})
        self.assertEqual(result["structuredContent"], {"result": {"data": "abc"}})

    def test_a_set_refuses_items_it_cannot_hold(self) -> None:
        def take(value: Set[Dict[str, int]], pairs: Set[Tuple[int, ...]] = frozenset()) -> str:  # type: ignore[assignment]
            return repr(sorted(pairs))

        server = server_with(take)
        self.assertEqual(server.call_tool("take", {"value": [], "pairs": [[1], [2], [1]]})["content"][0]["text"],
                         "[(1,), (2,)]")
        self.assertEqual(server.call_tool("take", {"value": [{"a": 1}, {"a": "x"}]})["content"][0]["text"],
                         "Error executing tool take: 2 validation errors for takeArguments\nvalue.0\n"
                         "  Set items should be hashable [type=set_item_not_hashable, input_value={'a': 1}, "
                         "input_type=dict]\nvalue.1.a\n  Input should be a valid integer, unable to parse string as "
                         "an integer [type=int_parsing, input_value='x', input_type=str]")

        def frozen(value: FrozenSet[Dict[str, bool]]) -> int:
            return len(value)

        self.assertEqual(server_with(frozen).call_tool("frozen", {"value": None})["content"][0]["text"],
                         "Error executing tool frozen: 1 validation error for frozenArguments\nvalue\n  Input should "
                         "be a valid frozenset [type=frozen_set_type, input_value=None, input_type=NoneType]")


        def pay(amount: Annotated[decimal.Decimal, Field(ge=0)]) -> str:
            return repr(amount)

        server = server_with(pay)
        self.assertEqual(server.call_tool("pay", {"amount": "1_000.5"})["content"][0]["text"], "Decimal('1000.5')")
        self.assertEqual(server.call_tool("pay", {"amount": "-1"})["content"][0]["text"].splitlines()[1:], [
            "amount", "  Input should be greater than or equal to 0 [type=greater_than_equal, input_value='-1', "
            "input_type=str]"])


class CoreRulesTest(unittest.TestCase):
    """The core's own rules at the seams of sections 2, 7 and 9, which the SDK
    layer refines: plain texts, the strict forms, none of the SDK's extras."""

    core: Any

    @classmethod
    def setUpClass(cls) -> None:
        cls.core = _core()

    @needs_layers("sdk")
    def test_the_sdk_layer_refines_each_seam(self) -> None:
        from tests._testing import mcp_ref

        seams = ("_is_pydantic_model", "_format_errors", "_lax_parse", "_build_union", "_is_pydantic_field",
                 "_pydantic_value", "_involves_pydantic", "_pydantic_arguments", "_pydantic_read",
                 "_pydantic_structured", "_pydantic_output", "_pydantic_checked", "_json_text_params",
                 "_unannotated_check", "_json_text_arguments", "_resolve_marker", "_resolvers_of", "_takes_sdk_context",
                 "_sdk_model_json")
        for name in seams:
            with self.subTest(seam=name):
                self.assertIn(name, self.core._SEAMS)
                self.assertEqual(getattr(self.core, name).__module__, "mcp_ref_core")
                self.assertNotEqual(getattr(mcp_ref, name).__qualname__, name)  # the layer's, under its own name
        with self.assertRaisesRegex(RuntimeError, "not a seam of the core: _format_error"):
            self.core._refine(_format_error=str)


if __name__ == "__main__":
    unittest.main()

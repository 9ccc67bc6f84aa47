"""Tools (section 9) as the layers refine it: the tests of the topic that need a layer
(SDK fidelity, patterns, the client, the command line or the accelerators); the
core's own are in tests/core/test_tools.py.

Sections 9 and 14, Tools and MCPServer: registration, the structured-output
table (rows S1-S13 and errors E1-E3 of ``_output_schema``, after
docs/servers/structured-output.md), and the in-process MCPServer API.
"""

import contextlib
import dataclasses
import datetime
import enum
import io
import json
import typing
import unittest
from typing import Any, Dict, List, Union

from tests._testing import BOTH, NEEDS_PYDANTIC, Field, MCPServer, accelerators, has_module, server_with

from tests.core.test_tools import DOCS_WEATHER_SCHEMA, Point, POINT_SCHEMA, Shade, Station, text, wrapped
from tests.core.test_tools import _StructuredOutputTestShared


class RegistrationTest(unittest.TestCase):
    def register(self, fn: Any, **kwargs: Any) -> Dict[str, Any]:
        server = MCPServer("t")
        server.add_tool(fn, **kwargs)
        return server.list_tools()[0]

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


class StructuredOutputTest(_StructuredOutputTestShared, unittest.TestCase):
    """Each row of the table in ``_output_schema`` (section 9): the exact
    outputSchema (None: not published) and one call's exact result."""

    def test_a_decimal_equal_to_a_literal_is_sent_as_the_decimal(self) -> None:
        # docs/sdk-differences.md, 47: pydantic's union finds the Literal's 1 by Python's equality and sends 1
        import decimal

        def pick() -> Union[typing.Literal[1], decimal.Decimal]:
            return decimal.Decimal("1")

        def two() -> Union[typing.Literal[2], float]:
            return 2.0  # its own JSON type: the literal, as in pydantic

        self.assertEqual(server_with(pick).call_tool("pick", {})["structuredContent"], {"result": "1"})
        self.assertEqual(json.dumps(server_with(two).call_tool("two", {})["structuredContent"]), '{"result": 2}')

    def test_s7_scalars_are_wrapped(self) -> None:
        def a_str() -> str:
            return "hi"

        def an_int() -> int:
            return 3

        def a_float() -> float:
            return 2

        def a_bool() -> bool:
            return True

        def some_bytes() -> bytes:
            return b"hi"

        def nothing() -> None:
            return None

        for fn, schema, value, shown in (
                (a_str, {"type": "string"}, "hi", [text("hi")]),
                (an_int, {"type": "integer"}, 3, [text("3")]),
                (a_float, {"type": "number"}, 2.0, [text("2.0")]),
                (a_bool, {"type": "boolean"}, True, [text("true")]),
                (some_bytes, {"format": "binary", "type": "string"}, "hi", [text('"hi"')]),
                (nothing, {"type": "null"}, None, [])):
            with self.subTest(fn=fn.__name__):
                self.check(fn, wrapped(fn.__name__, schema),
                           {"content": shown, "structuredContent": {"result": value}, "isError": False})

    def test_a_str_takes_no_other_object(self) -> None:
        # pydantic's str (the SDK's output model) takes a str, bytes or an Enum
        # member; a Decimal, UUID, date or Path returned for it is refused, though
        # its JSON form is a string.  In a list or a dict's values alike.
        import decimal
        import pathlib
        import uuid

        returned: List[Any] = []

        def named() -> str:
            return returned[0]  # type: ignore[no-any-return]

        def labels() -> Dict[str, List[str]]:
            return {"a": ["x", returned[0]]}

        for value, text_ in ((decimal.Decimal("1.5"), "Decimal('1.5')"), (uuid.UUID(int=1), repr(uuid.UUID(int=1))),
                             (datetime.date(2020, 1, 2), "datetime.date(2020, 1, 2)"),
                             (pathlib.PurePosixPath("/a"), "PurePosixPath('/a')")):
            returned[:] = [value]
            kind = type(value).__name__
            with self.subTest(value=value):
                self.assertEqual(server_with(named).call_tool("named", {})["content"][0]["text"],
                                 "Error executing tool named: 1 validation error for namedOutput\nresult\n  Input "
                                 f"should be a valid string [type=string_type, input_value={text_}, input_type={kind}]")
                self.assertIn(f"a.1\n  Input should be a valid string [type=string_type, input_value={text_}",
                              server_with(labels).call_tool("labels", {})["content"][0]["text"])
        for value, sent in ((b"hi", "hi"), (Shade.DARK, "dark")):
            returned[:] = [value]
            with self.subTest(value=value):
                self.assertEqual(server_with(named).call_tool("named", {})["structuredContent"], {"result": sent})

    def test_s8_dict_with_string_keys_is_the_object(self) -> None:
        def temperatures() -> Dict[str, float]:
            return {"a": 1, "b": 2.5}

        self.check(temperatures, {"additionalProperties": {"type": "number"}, "title": "temperaturesDictOutput",
                                  "type": "object"},
                   {"content": [text('{\n  "a": 1.0,\n  "b": 2.5\n}')], "structuredContent": {"a": 1.0, "b": 2.5},
                    "isError": False})

    def test_s12_dataclass_and_annotated_class_are_the_object(self) -> None:
        def point() -> Point:
            return Point(1)

        def station() -> Station:
            return Station("a")

        self.check(point, POINT_SCHEMA, {"content": [text('{\n  "x": 1,\n  "y": 0\n}')],
                                         "structuredContent": {"x": 1, "y": 0}, "isError": False})
        self.check(station, {"properties": {"name": {"title": "Name", "type": "string"},
                                            "online": {"default": True, "title": "Online", "type": "boolean"}},
                             "required": ["name"], "title": "Station", "type": "object"},
                   {"content": [text('{\n  "name": "a",\n  "online": true\n}')],
                    "structuredContent": {"name": "a", "online": True}, "isError": False})


@unittest.skipUnless(has_module("pydantic"), NEEDS_PYDANTIC)
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


class MCPServerTest(unittest.TestCase):
    def test_classes_of_one_name_keep_their_conversions(self) -> None:
        # Renaming the $defs of two classes named P must not cost a date its lax forms.
        first = dataclasses.make_dataclass("P", [("x", int)])
        second = dataclasses.make_dataclass("P", [("y", int)])
        first.__module__, second.__module__ = __name__, "_testing"  # two modules, one name

        def both(a: first, b: second, d: datetime.date) -> str:  # type: ignore[valid-type]
            return d.isoformat()

        server = MCPServer("t")
        server.add_tool(both)
        result = server.call_tool("both", {"a": {"x": 1}, "b": {"y": 2}, "d": 1577836800})
        self.assertEqual(result["structuredContent"], {"result": "2020-01-01"}, result)

    def test_duplicate_warning_can_be_turned_off(self) -> None:
        def one() -> int:
            return 1

        server = MCPServer("t", warn_on_duplicate_tools=False)  # the SDK's setting
        server.add_tool(one)
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            server.add_tool(lambda: 2, name="one")
        self.assertEqual(stderr.getvalue(), "")
        self.assertEqual(server.call_tool("one", {})["structuredContent"], {"result": 1})

    def test_a_union_of_classes_picks_as_pydantic_does(self) -> None:
        # pydantic's smart union for a dict: of the arms it fits, the one that
        # sets the most fields; a class without fields ignores every key (the
        # SDK's answers; a dict holding an instance was "cannot be converted").
        @dataclasses.dataclass
        class Empty:
            pass

        @dataclasses.dataclass
        class One:
            a: int = 1

        @dataclasses.dataclass
        class Two:
            a: int = 1
            b: int = 2

        def take(x: Union[Empty, One, Two]) -> str:
            return repr(x)

        def give(which: int) -> Union[Empty, int]:
            return [{"a": Empty()}, {"a": 2}][which]  # type: ignore[return-value]

        for on in BOTH:
            with self.subTest(accelerated=on), accelerators(on):
                server = server_with(take, give)
                taken = [server.call_tool("take", {"x": x})["structuredContent"]["result"]
                         for x in ({}, {"a": 2}, {"b": 3}, {"z": 1})]
                self.assertEqual([t.split(".")[-1] for t in taken],
                                 ["Empty()", "One(a=2)", "Two(a=1, b=3)", "Empty()"])
                for which in (0, 1):
                    self.assertEqual(server.call_tool("give", {"which": which}),
                                     {"content": [text("{}")], "structuredContent": {"result": {}}, "isError": False})

    def test_dictionary_keys_are_checked_as_pydantic_checks_them(self) -> None:
        # A Literal key in propertyNames, a pattern key in patternProperties alone;
        # the error under the key, then "[key]" (the SDK's text).
        def count(letters: Dict[typing.Literal["a", "b"], int] = {},  # noqa: B006
                  tagged: Dict[typing.Annotated[str, Field(pattern="^x")], int] = {}) -> int:  # noqa: B006
            return len(letters) + len(tagged)

        server = server_with(count)
        self.assertEqual(server.call_tool("count", {"letters": {"a": 1}, "tagged": {"xy": 2}})["structuredContent"],
                         {"result": 2})
        self.assertEqual(server.call_tool("count", {"letters": {"c": 1}, "tagged": {"y": 2}})["content"][0]["text"], (
            "Error executing tool count: 2 validation errors for countArguments\n"
            "letters.c.[key]\n  Input should be 'a' or 'b' [type=literal_error, input_value='c', input_type=str]\n"
            "tagged.y.[key]\n  String should match pattern '^x' [type=string_pattern_mismatch, input_value='y', "
            "input_type=str]"))

    def test_multiple_of_is_exact(self) -> None:
        # docs/sdk-differences.md: pydantic's float multiple_of allows a
        # relative error of 1e-9, so the SDK takes 1e20 as a multiple of 3 and
        # 0.30000000000000004 as one of 0.1; here both are refused, 0.3 is taken.
        def scaled(x: typing.Annotated[float, Field(multiple_of=3)] = 0.0,
                   y: typing.Annotated[float, Field(multiple_of=0.1)] = 0.0) -> float:
            return x + y

        server = server_with(scaled)
        self.assertEqual(server.call_tool("scaled", {"x": 1e20})["content"][0]["text"], (
            "Error executing tool scaled: 1 validation error for scaledArguments\nx\n  Input should be a multiple "
            "of 3 [type=multiple_of, input_value=1e+20, input_type=float]"))
        self.assertTrue(server.call_tool("scaled", {"y": 0.30000000000000004})["isError"])
        self.assertEqual(server.call_tool("scaled", {"x": 3e20, "y": 0.3})["structuredContent"], {"result": 3e20})

    def test_numbers_beyond_float_range_are_tool_errors(self) -> None:
        # pydantic (the SDK) refuses an int that no float can hold: float_type.
        class Level(enum.IntEnum):
            ONE = 1

        def half(x: float) -> float:
            return x / 2

        def huge() -> float:
            return 10 ** 400  # type: ignore[return-value]

        def level(x: Level) -> int:
            return int(x)

        for on in BOTH:
            with self.subTest(accelerated=on), accelerators(on):
                server = server_with(half, huge, level)
                self.assertEqual(server.call_tool("half", {"x": 10 ** 400}), {"content": [{"type": "text", "text": (
                    "Error executing tool half: 1 validation error for halfArguments\nx\n  Input should be a valid "
                    "number [type=float_type, input_value=1000000000000000000000000...000000000000000000000000, "
                    "input_type=int]")}], "isError": True})
                self.assertEqual(server.call_tool("half", {"x": -10 ** 300})["structuredContent"], {"result": -5e299})
                self.assertEqual(server.call_tool("huge", {})["content"][0]["text"], (
                    "Error executing tool huge: 1 validation error for hugeOutput\nresult\n  Input should be a valid "
                    "number [type=float_type, input_value=1000000000000000000000000...000000000000000000000000, "
                    "input_type=int]"))
                # An IntEnum given digits past Python's int() limit: not a member (the SDK's text).
                self.assertEqual(server.call_tool("level", {"x": "1" * 5000})["content"][0]["text"], (
                    "Error executing tool level: 1 validation error for levelArguments\nx\n  Input should be 1 "
                    "[type=enum, input_value='111111111111111111111111...11111111111111111111111', input_type=str]"))


if __name__ == "__main__":
    unittest.main()

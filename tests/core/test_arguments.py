"""Section 7, Arguments: JSON arguments back into the parameters' Python types
(dataclasses, Enum members, datetimes, tuples, sets...), as pydantic hands
them to the SDK's tools, after the lax input check of sections 6, 24 and 25.
"""

import dataclasses
import datetime
import decimal
import pathlib
import unittest
import uuid
from typing import Annotated, Any, List, Optional, Union

from tests._testing import Field


@dataclasses.dataclass
class Inner:
    n: int


@dataclasses.dataclass
class Point2:
    n: int
    m: int = 0


def _core() -> Any:
    """The core alone: mcp_ref.py cut at its line "# ---- layers", as a module of its own."""
    import re
    import sys
    import types

    from tests._testing import SOURCE

    with open(SOURCE, encoding="utf-8") as f:
        source = f.read()
    cut = re.search(r"^# ---- layers", source, re.M)
    assert cut is not None
    core = types.ModuleType("mcp_ref_core")
    core.__file__ = "mcp_ref_core.py"
    sys.modules["mcp_ref_core"] = core
    try:
        exec(compile(source[:cut.start()], core.__file__, "exec"), vars(core))
    finally:
        del sys.modules["mcp_ref_core"]
    return core


class CoreRulesTest(unittest.TestCase):
    """The core's own rules at the seams of sections 2, 7 and 9, which the SDK
    layer refines: plain texts, the strict forms, none of the SDK's extras."""

    core: Any

    @classmethod
    def setUpClass(cls) -> None:
        cls.core = _core()

    def test_error_text_names_each_failing_value(self) -> None:
        item = self.core._ErrorItem
        errors = [item(("a",), "Field required", "missing", {}), item(("items", 0), "Input should be a valid "
                                                                        "integer", "int_type", "x")]
        self.assertEqual(str(self.core.ValidationError(errors[:1], "addArguments")),
                         "1 validation error for addArguments\n  $.a: Field required")
        self.assertEqual(self.core._format_errors(errors, "f").splitlines(), [
            "2 validation errors for f", "  $.a: Field required", "  $.items[0]: Input should be a valid integer"])

    def test_standard_library_values_from_their_published_forms(self) -> None:
        parse = self.core._lax_parse
        utc = datetime.timezone.utc
        for kind, tp, sent, made in (
                ("date", datetime.date, "2024-02-29", datetime.date(2024, 2, 29)),
                ("datetime", datetime.datetime, "2024-01-01T10:00:00Z", datetime.datetime(2024, 1, 1, 10, tzinfo=utc)),
                ("time", datetime.time, "10:00:00z", datetime.time(10, tzinfo=utc)),
                ("timedelta", datetime.timedelta, "P1W2DT3H4M5.5S",
                 datetime.timedelta(days=9, hours=3, minutes=4, seconds=5.5)),
                ("timedelta", datetime.timedelta, "-PT1M", datetime.timedelta(minutes=-1)),
                ("uuid", uuid.UUID, "12345678-1234-5678-1234-567812345678",
                 uuid.UUID("12345678-1234-5678-1234-567812345678")),
                ("decimal", decimal.Decimal, 0.1, decimal.Decimal("0.1")),
                ("decimal", decimal.Decimal, "1.50", decimal.Decimal("1.50")),
                ("path", pathlib.PurePosixPath, "a/b", pathlib.PurePosixPath("a/b"))):
            with self.subTest(kind=kind, sent=sent):
                self.assertEqual(parse(kind, tp, sent), made)

    def test_other_forms_refused_with_the_form_named(self) -> None:
        for kind, tp, sent in (("date", datetime.date, "2024-02-30"), ("date", datetime.date, 1700000000),
                               ("datetime", datetime.datetime, "yesterday"), ("timedelta", datetime.timedelta, "P1Y"),
                               ("timedelta", datetime.timedelta, "PT"), ("timedelta", datetime.timedelta, 60),
                               ("decimal", decimal.Decimal, "nan"), ("decimal", decimal.Decimal, "1_000"),
                               ("decimal", decimal.Decimal, float("inf")), ("decimal", decimal.Decimal, True),
                               ("uuid", uuid.UUID, "not-a-uuid"), ("path", pathlib.Path, 5)):
            with self.subTest(kind=kind, sent=sent):
                with self.assertRaises(self.core._BuildError) as caught:
                    self.core._lax_parse(kind, tp, sent)
                msg, error_kind, value = caught.exception.item
                self.assertEqual((msg, error_kind, value), (f"Input should be {self.core._STRICT_FORMS[kind]}",
                                                            f"{kind}_parsing", sent))

    def test_a_union_s_argument_is_the_first_arm_it_passes(self) -> None:
        build = self.core._build_union
        self.assertEqual(build(Union[int, str], 3), 3)
        self.assertEqual(build(Union[datetime.date, str], "hello"), "hello")  # the date refuses it: the next arm
        self.assertEqual(build(Union[datetime.date, str], "2024-01-01"), datetime.date(2024, 1, 1))
        self.assertEqual(build(Union[str, Inner], {"n": 1}), Inner(1))
        self.assertEqual(build(Optional[List[int]], [1]), [1])

    def test_a_tool_call_in_the_core_alone(self) -> None:
        server = self.core.MCPServer("core")

        @server.tool()
        def add(a: int, when: datetime.date, b: Union[int, str] = 1) -> str:
            return repr((a, when, b))

        self.assertEqual(server.call_tool("add", {"a": 2, "when": "2024-01-02", "b": "x"})["content"][0]["text"],
                         "(2, datetime.date(2024, 1, 2), 'x')")
        for arguments, text in (({"when": "2024-01-02"}, "$.a: Field required"),
                                ({"a": "2", "when": "2024-01-02"}, "$.a: Input should be a valid integer"),
                                ({"a": 2, "when": "2024-13-02"},
                                 "$.when: Input should be a valid date (RFC 3339 full-date: YYYY-MM-DD)")):
            with self.subTest(arguments=arguments):
                result = server.call_tool("add", arguments)
                self.assertTrue(result["isError"])
                self.assertEqual(result["content"][0]["text"],
                                 f"Error executing tool add: 1 validation error for addArguments\n  {text}")

    def test_an_integer_sent_with_a_fraction_of_zero_is_an_int(self) -> None:
        # 15.0 is an integer to JSON Schema (2020-12 Validation, 6.1.1), so the strict
        # check passes it; the parameter, wherever an int sits in its type, gets the int.
        server = self.core.MCPServer("core")

        @server.tool()
        def take(n: int, items: List[int], maybe: Optional[int] = None, point: Optional[Inner] = None) -> str:
            return repr((n, items, maybe, point))

        self.assertEqual(server.call_tool("take", {"n": 15.0, "items": [1.0, 2], "maybe": 3.0, "point": {"n": 4.0}})[
            "content"][0]["text"], "(15, [1, 2], 3, Inner(n=4))")
        self.assertTrue(server.call_tool("take", {"n": 15.5, "items": []})["isError"])

    def test_a_fraction_of_a_second_has_any_number_of_digits(self) -> None:
        # RFC 3339's time-secfrac is "." 1*DIGIT: read to microseconds on every CPython
        # (fromisoformat reads 3 or 6 digits only before 3.11).
        utc = datetime.timezone.utc
        for kind, tp, sent, made in (
                ("time", datetime.time, "10:20:30.5", datetime.time(10, 20, 30, 500000)),
                ("time", datetime.time, "10:20:30.1234567Z", datetime.time(10, 20, 30, 123456, tzinfo=utc)),
                ("datetime", datetime.datetime, "2024-05-01T10:00:00.25+00:00",
                 datetime.datetime(2024, 5, 1, 10, 0, 0, 250000, tzinfo=utc)),
                ("datetime", datetime.datetime, "2024-05-01T10:00:00.1234z",
                 datetime.datetime(2024, 5, 1, 10, 0, 0, 123400, tzinfo=utc))):
            with self.subTest(sent=sent):
                self.assertEqual(self.core._lax_parse(kind, tp, sent), made)

    def test_an_unannotated_parameter_is_checked_as_published(self) -> None:
        # Published as the SDK publishes it, a string (its WithJsonSchema), and checked
        # so; the SDK layer takes any value there, as the SDK's Any does (_unannotated_check).
        server = self.core.MCPServer("core")

        @server.tool()
        def join(x, y=3):  # type: ignore[no-untyped-def]
            return f"{x}-{y}"

        schema = server.list_tools()[0]["inputSchema"]
        self.assertEqual(schema["properties"]["y"], {"default": 3, "title": "y", "type": "string"})
        self.assertEqual(server.call_tool("join", {"x": "a", "y": "b"})["content"][0]["text"], "a-b")
        refused = server.call_tool("join", {"x": "a", "y": [1]})
        self.assertEqual((refused["isError"], refused["content"][0]["text"]), (
            True, "Error executing tool join: 1 validation error for joinArguments\n  $.y: Input should be a valid "
                  "string"))

    def test_a_result_is_checked_as_the_json_it_sends(self) -> None:
        server = self.core.MCPServer("core")

        @server.tool()
        def make(n: int) -> Point2:
            return Point2(n, 2)

        @server.tool()
        def count(n: int) -> int:
            return "many" if n else n  # type: ignore[return-value]

        self.assertEqual(server.call_tool("make", {"n": 1})["structuredContent"], {"n": 1, "m": 2})
        self.assertEqual(server.call_tool("count", {"n": 0})["structuredContent"], {"result": 0})
        refused = server.call_tool("count", {"n": 1})
        self.assertTrue(refused["isError"])
        self.assertIn("1 validation error for countOutput\n  $.result: ", refused["content"][0]["text"])

    def test_nothing_of_the_sdk_s_at_the_seams(self) -> None:
        core = self.core
        self.assertFalse(core._involves_pydantic(int))
        self.assertFalse(core._is_pydantic_field(Field(3)))
        self.assertFalse(core._takes_sdk_context(len, "ctx"))
        self.assertIsNone(core._resolve_marker(Annotated[int, "x"]))
        self.assertEqual(core._json_text_params([], {"properties": {}}), {})
        self.assertEqual(core._json_text_arguments({"a": "[1]"}, {}), {"a": "[1]"})


if __name__ == "__main__":
    unittest.main()

"""Section 4, Python values as JSON: what a tool's return value becomes
(JsonValuesTest); the content blocks built from it are section 8's (test_content.py).
"""

import collections
import dataclasses
import datetime
import decimal
import enum
import json
import pathlib
import unittest
import uuid
from typing import Any, List

from tests._testing import NEEDS_PYDANTIC, has_module, mcp_ref


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


if __name__ == "__main__":
    unittest.main()

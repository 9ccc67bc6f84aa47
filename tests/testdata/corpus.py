"""The test corpus: one server of many tools, written for the SDK's tool layer.

It runs unchanged on either implementation: ``CORPUS_SERVER=sdk`` imports the
official SDK (used only by ``regen_expectations.py`` to record what the SDK
publishes and returns); anything else imports ``mcp_ref``.

Three kinds of tool:
  * ``echo_*``: ``def f(value: T) -> T: return value`` for every annotation T in
    ECHO; called with every argument in its row (the input and output paths);
  * ``ret_*``: no parameters, returns a Python value for a return annotation
    (conversion to JSON: dataclass instances, datetimes, generators...);
  * hand-written tools: signatures, defaults, Field metadata, errors.

With ``CORPUS_STRINGS=1`` every ``echo_*`` annotation is given as a string, as
``from __future__ import annotations`` leaves it.
"""

# Several names are used only inside the annotation strings the tools eval.
import dataclasses  # noqa: F401
import datetime
import decimal  # noqa: F401
import enum
import os
import pathlib  # noqa: F401
import sys
import uuid
from dataclasses import dataclass, field
from typing import (Any, Dict, FrozenSet, List, Literal, Mapping, Optional, Sequence, Set,  # noqa: F401
                    Tuple, TypedDict, Union)

if os.environ.get("CORPUS_SERVER") == "sdk":
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import Field
    from typing_extensions import Annotated, NotRequired, Required
else:
    from typing import Annotated

    from mcp_ref import Field, MCPServer, ToolError

    try:
        from typing import NotRequired, Required
    except ImportError:  # Python < 3.11
        NotRequired = Required = None  # type: ignore[assignment]

STRINGS = os.environ.get("CORPUS_STRINGS") == "1"
server = MCPServer("corpus")


# -- types used in annotations --------------------------------------------------


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Documented(enum.Enum):
    """Documented enum."""

    A = "a"


@dataclass
class Point:
    x: int
    y: int = 0


@dataclass
class Weather:
    """Weather at one place."""

    temperature: float
    conditions: str
    tags: List[str] = field(default_factory=list)


@dataclass
class Tree:
    value: int
    children: "List[Tree]" = field(default_factory=list)


@dataclass
class WithEnum:
    color: Color
    level: Optional[Level] = None


@dataclass
class Nested:
    point: Point
    points: List[Point]
    lookup: Dict[str, Point]


class Movie(TypedDict):
    title: str
    year: int


class Partial(TypedDict, total=False):
    title: str
    year: int


class Annotated_Class:
    name: str
    count: int = 3
    ratio: Optional[float] = None


class NoHints:
    def __init__(self) -> None:
        self.name = "x"


@dataclass
class Shape:
    kind: Literal["circle", "square"]
    size: float


@dataclass
class Stamp:
    when: datetime.datetime
    day: datetime.date
    id: uuid.UUID


@dataclass
class Sample:
    items: Tuple[int, str]
    tags: Set[str]


# -- echo tools -------------------------------------------------------------------
# (name, annotation source, argument values to call with, minimum Python)

ECHO: List[Tuple[str, str, List[Any], Tuple[int, int]]] = [
    ("str", "str", ["hi", "", 17, None, ["a"], "é✓"], (3, 9)),
    ("int", "int", [17, "17", 17.0, 17.5, "x", None, True, " 8 ", "1e3", 10**20], (3, 9)),
    ("float", "float", [1.5, 2, "2.5", "x", None, True, "1e3"], (3, 9)),
    ("bool", "bool", [True, False, "true", "no", 1, 0, 2, "maybe", None], (3, 9)),
    ("bytes", "bytes", ["abc", 1], (3, 9)),
    ("none", "None", [None, 1], (3, 9)),
    ("any", "Any", [1, "a", [1, {"b": None}], None], (3, 9)),
    ("object", "object", [1, {"a": [1]}], (3, 9)),
    ("list_int", "list[int]", [[1, 2], ["1", 2.0], [1, "x"], "[1, 2]", "x", [], None], (3, 9)),
    ("List_int", "List[int]", [[1, 2], [1, "x"]], (3, 9)),
    ("list_str", "list[str]", [["a"], [1], '["a", "b"]'], (3, 9)),
    ("list_bare", "list", [[1, "a"], "x"], (3, 9)),
    ("sequence_int", "Sequence[int]", [[1, 2], [1.5]], (3, 9)),
    ("tuple_fixed", "tuple[int, str]", [[1, "a"], [1], [1, "a", 2], ["1", "a"]], (3, 9)),
    ("Tuple_fixed", "Tuple[int, str, bool]", [[1, "a", True], [1, "a", "x"]], (3, 9)),
    ("tuple_var", "tuple[int, ...]", [[1, 2, 3], [], ["a"]], (3, 9)),
    ("tuple_bare", "tuple", [[1, "a"]], (3, 9)),
    ("set_int", "set[int]", [[1, 2], [1, 1, 2], [1, "x"]], (3, 9)),
    ("Set_str", "Set[str]", [["a"]], (3, 9)),
    ("frozenset_str", "frozenset[str]", [["a"]], (3, 9)),
    ("FrozenSet_int", "FrozenSet[int]", [[3]], (3, 9)),
    ("dict_str_int", "dict[str, int]", [{"a": 1}, {"a": "x"}, {}, '{"a": 1}', [1]], (3, 9)),
    ("Dict_str_int", "Dict[str, int]", [{"a": 1}, {"a": 1.5}], (3, 9)),
    ("dict_str_any", "dict[str, Any]", [{"a": [1, None]}], (3, 9)),
    ("dict_int_str", "dict[int, str]", [{"1": "a"}], (3, 9)),
    ("dict_bare", "dict", [{"a": 1}, 3], (3, 9)),
    ("mapping_str_float", "Mapping[str, float]", [{"a": 1}], (3, 9)),
    ("dict_nested", "dict[str, list[int]]", [{"a": [1]}, {"a": ["x"]}], (3, 9)),
    ("optional_int", "Optional[int]", [1, None, "2", "x"], (3, 9)),
    ("optional_str", "Optional[str]", ["a", None, '["a"]'], (3, 9)),
    ("union_int_str", "Union[int, str]", [1, "a", "17", 1.5, None, [1]], (3, 9)),
    ("union_str_int", "Union[str, int]", [1, "a", "17"], (3, 9)),
    ("union_none_first", "Union[None, int]", [None, 3], (3, 9)),
    ("union_three", "Union[int, str, None]", [None, "a", 2], (3, 9)),
    ("pep604", "int | None", [1, None, "x"], (3, 10)),
    ("pep604_three", "int | str | list[int]", [1, "a", [1], {}], (3, 10)),
    ("literal_one", 'Literal["a"]', ["a", "b"], (3, 9)),
    ("literal_str", 'Literal["a", "b"]', ["a", "c", 1], (3, 9)),
    ("literal_int", "Literal[1, 2]", [1, 3, "1"], (3, 9)),
    ("literal_mixed", 'Literal[1, "a"]', [1, "a", "b"], (3, 9)),
    ("literal_bool", "Literal[True]", [True, False], (3, 9)),
    ("literal_optional", 'Optional[Literal["x", "y"]]', ["x", None, "z"], (3, 9)),
    ("enum", "Color", ["red", "blue", 1], (3, 9)),
    ("int_enum", "Level", [1, 3, "1"], (3, 9)),
    ("documented_enum", "Documented", ["a"], (3, 9)),
    ("list_enum", "list[Color]", [["red", "green"], ["red", "x"]], (3, 9)),
    ("dataclass", "Point", [{"x": 1, "y": 2}, {"x": 1}, {"y": 2}, {"x": "a"}, {"x": 1, "z": 3}, 3, '{"x": 5}'], (3, 9)),
    ("dataclass_doc", "Weather", [{"temperature": 1, "conditions": "ok"}, {"temperature": "hot"}], (3, 9)),
    ("dataclass_recursive", "Tree", [{"value": 1, "children": [{"value": 2}]}, {"value": 1, "children": [{}]}],
     (3, 9)),
    ("dataclass_enum", "WithEnum", [{"color": "red"}, {"color": "red", "level": 2}, {"color": "x"}], (3, 9)),
    ("dataclass_nested", "Nested", [{"point": {"x": 1}, "points": [{"x": 2}], "lookup": {"a": {"x": 3}}},
                                    {"point": {}, "points": [], "lookup": {}}], (3, 9)),
    ("dataclass_literal", "Shape", [{"kind": "circle", "size": 2}, {"kind": "oval", "size": 2}], (3, 9)),
    ("dataclass_stdlib", "Stamp", [{"when": "2024-05-01T10:00:00", "day": "2024-05-01",
                                    "id": "12345678-1234-5678-1234-567812345678"}], (3, 9)),
    ("dataclass_tuple_set", "Sample", [{"items": [1, "a"], "tags": ["x", "x"]}], (3, 9)),
    ("optional_dataclass", "Optional[Point]", [{"x": 1}, None, {"y": 1}], (3, 9)),
    ("list_dataclass", "list[Point]", [[{"x": 1}, {"x": 2, "y": 3}], [{"x": "a"}]], (3, 9)),
    ("dict_dataclass", "dict[str, Point]", [{"a": {"x": 1}}, {"a": {}}], (3, 9)),
    ("union_dataclass", "Union[Point, Movie]", [{"x": 1}, {"title": "t", "year": 1}], (3, 9)),
    ("typeddict", "Movie", [{"title": "t", "year": 1999}, {"title": "t"}, {"title": "t", "year": "x"}], (3, 9)),
    ("typeddict_partial", "Partial", [{"title": "t"}, {}, {"year": "1"}], (3, 9)),
    ("list_typeddict", "list[Movie]", [[{"title": "t", "year": 1}]], (3, 9)),
    ("datetime", "datetime.datetime", ["2024-05-01T10:00:00", "2024-05-01T10:00:00Z", "2024-05-01T10:00:00+02:00",
                                       "nope"], (3, 9)),
    ("date", "datetime.date", ["2024-05-01", "2024-13-01"], (3, 9)),
    ("time", "datetime.time", ["10:20:30", "10:20:30.5"], (3, 9)),
    ("timedelta", "datetime.timedelta", ["PT1H30M", "P1D", "P1DT2H3M4.5S", "PT0S"], (3, 9)),
    ("uuid", "uuid.UUID", ["12345678-1234-5678-1234-567812345678", "x"], (3, 9)),
    ("decimal", "decimal.Decimal", ["1.50", 2.5, 3], (3, 9)),
    ("path", "pathlib.Path", ["/tmp/x"], (3, 9)),
    ("annotated_ge", "Annotated[int, Field(ge=1, le=10, description='A small number')]", [5, 0, 11, "7"], (3, 9)),
    ("annotated_gt", "Annotated[float, Field(gt=0, lt=1)]", [0.5, 0, 1], (3, 9)),
    ("annotated_multiple", "Annotated[int, Field(multiple_of=5)]", [10, 11], (3, 9)),
    ("annotated_str", "Annotated[str, Field(min_length=2, max_length=4, pattern='^a')]", ["abc", "a", "abcde", "bcd"],
     (3, 9)),
    ("annotated_list", "Annotated[list[int], Field(min_length=1, max_length=2)]", [[1], [], [1, 2, 3]], (3, 9)),
    ("annotated_dict", "Annotated[dict[str, int], Field(min_length=1)]", [{"a": 1}, {}], (3, 9)),
    ("annotated_title", "Annotated[int, Field(title='Count', examples=[1, 2])]", [1], (3, 9)),
    ("annotated_optional", "Annotated[Optional[int], Field(ge=1)]", [1, None, 0], (3, 9)),
    ("annotated_dataclass", "Annotated[Point, Field(description='A point')]", [{"x": 1}], (3, 9)),
    ("list_of_optional", "list[Optional[int]]", [[1, None]], (3, 9)),
    ("list_of_lists", "list[list[str]]", [[["a"], []], [["a", 1]]], (3, 9)),
    ("optional_list", "Optional[list[int]]", [[1], None, '[1, 2]'], (3, 9)),
    ("tuple_of_dataclass", "tuple[Point, Movie]", [[{"x": 1}, {"title": "t", "year": 1}]], (3, 9)),
]

if sys.version_info >= (3, 11):
    class Mode(enum.StrEnum):
        FAST = "fast"
        SLOW = "slow"

    ECHO.append(("str_enum", "Mode", ["fast", "medium"], (3, 11)))

if Required is not None:
    class Qualified(TypedDict, total=False):
        title: Required[str]
        year: int

    class QualifiedTotal(TypedDict):
        title: str
        year: NotRequired[int]

    ECHO += [
        ("typeddict_required", "Qualified", [{"title": "t"}, {"year": 1}], (3, 9)),
        ("typeddict_notrequired", "QualifiedTotal", [{"title": "t"}, {"year": 1}], (3, 9)),
    ]


def _echo(name: str, source: str) -> Any:
    def tool(value):  # type: ignore[no-untyped-def]
        return value

    tool.__name__ = tool.__qualname__ = f"echo_{name}"
    annotation = source if STRINGS else eval(source, globals())
    tool.__annotations__ = {"value": annotation, "return": annotation}
    return tool


for _name, _source, _args, _minimum in ECHO:
    if sys.version_info >= _minimum:
        server.add_tool(_echo(_name, _source))


# -- return tools: Python values turned into JSON -----------------------------------
# (name, return annotation source, expression for the returned value)

RETURNS: List[Tuple[str, str, str]] = [
    ("int_from_str", "int", "'17'"),
    ("int_from_float", "int", "17.0"),
    ("int_bad_float", "int", "17.5"),
    ("float_from_int", "float", "3"),
    ("str_from_int", "str", "5"),
    ("bool_value", "bool", "True"),
    ("none_value", "None", "None"),
    ("bytes_value", "bytes", "b'caf\\xc3\\xa9'"),
    ("list_from_tuple", "list[int]", "(1, 2)"),
    ("list_from_generator", "list[int]", "(i for i in range(3))"),
    ("tuple_value", "tuple[int, str]", "(1, 'a')"),
    ("set_value", "set[int]", "{3}"),
    ("dataclass_instance", "Point", "Point(1, 2)"),
    ("dataclass_from_dict", "Point", "{'x': 1}"),
    ("dataclass_missing", "Weather", "{'temperature': 16.2}"),
    ("dataclass_extra", "Point", "{'x': 1, 'y': 2, 'z': 3}"),
    ("dataclass_wrong", "Point", "Point('a', 2)"),
    ("nested_instances", "Nested", "Nested(Point(1), [Point(2, 3)], {'k': Point(4)})"),
    ("recursive_instance", "Tree", "Tree(1, [Tree(2)])"),
    ("enum_member", "WithEnum", "WithEnum(Color.RED, Level.HIGH)"),
    ("list_of_instances", "list[Point]", "[Point(1), Point(2, 2)]"),
    ("empty_list", "list[Point]", "[]"),
    ("dict_of_floats", "dict[str, float]", "{'London': 16.2, 'Reykjavik': 4}"),
    ("dict_wrong_value", "dict[str, float]", "{'London': 'warm'}"),
    ("typing_dict", "Dict[str, int]", "{'a': 1}"),
    ("dict_int_keys", "dict[int, str]", "{1: 'a'}"),
    ("typeddict_value", "Movie", "{'title': 't', 'year': 1999, 'extra': 1}"),
    ("typeddict_missing", "Movie", "{'title': 't'}"),
    ("partial_value", "Partial", "{'title': 't'}"),
    ("annotated_class_value", "Annotated_Class", "_annotated()"),
    ("no_hints_value", "NoHints", "NoHints()"),
    ("optional_none", "Optional[Point]", "None"),
    ("union_value", "Union[int, str]", "'17'"),
    ("literal_value", "Literal['a', 'b']", "'a'"),
    ("literal_bad", "Literal['a', 'b']", "'c'"),
    ("stamp_value", "Stamp", "Stamp(datetime.datetime(2024, 5, 1, 10, 0, tzinfo=datetime.timezone.utc), "
                             "datetime.date(2024, 5, 1), uuid.UUID(int=1))"),
    ("datetime_list", "list[datetime.datetime]", "[datetime.datetime(2024, 5, 1, 10, 0, 0, 500)]"),
    ("timedelta_list", "list[datetime.timedelta]", "[datetime.timedelta(hours=1, minutes=30), "
                                                   "datetime.timedelta(days=2, seconds=1.5)]"),
    ("decimal_list", "list[decimal.Decimal]", "[decimal.Decimal('1.50')]"),
    ("path_list", "list[pathlib.Path]", "[pathlib.Path('/tmp/x')]"),
    ("uuid_list", "list[uuid.UUID]", "[uuid.UUID(int=5)]"),
    ("enum_list", "list[Color]", "[Color.GREEN, 'red']"),
    ("sample_value", "Sample", "Sample((1, 'a'), {'x'})"),
    ("any_value", "Any", "{'a': (1, 2), 'b': Color.RED}"),
    ("str_list", "list[str]", "['a', 'b']"),
    ("nested_list", "list[list[int]]", "[[1], [2, 3]]"),
    ("optional_list_none", "Optional[list[int]]", "None"),
]


class _Bag:
    pass


def _annotated() -> Any:
    obj = _Bag()
    obj.name, obj.count = "n", 4  # type: ignore[attr-defined]
    return obj


def _returner(name: str, source: str, expression: str) -> Any:
    def tool():  # type: ignore[no-untyped-def]
        return eval(expression, globals())

    tool.__name__ = tool.__qualname__ = f"ret_{name}"
    tool.__annotations__ = {"return": source if STRINGS else eval(source, globals())}
    return tool


for _name, _source, _expression in RETURNS:
    server.add_tool(_returner(_name, _source, _expression))


# -- hand-written tools --------------------------------------------------------------


@server.tool()
def get_weather(city: str, days: int = 1, units: Literal["c", "f"] = "c") -> Weather:
    """Get the weather.

    Indented second paragraph.
    """
    return Weather(temperature=16.2 if units == "c" else 61.2, conditions=f"{city} x{days}")


@server.tool(name="renamed", title="A title", description="Explicit description")
def original_name(a_b_c: int, x2: str = "q") -> str:
    return f"{a_b_c}{x2}"


@server.tool()
def unannotated(x, y=3):  # type: ignore[no-untyped-def]
    return f"{x}-{y}"


@server.tool()
def defaults(a: Optional[int] = None, b: List[int] = [1, 2], c: Color = Color.RED,  # noqa: B006
             d: Tuple[int, int] = (1, 2), e: float = 1.5, f: bool = False) -> dict:
    return {"a": a, "b": b, "c": c.value, "d": list(d), "e": e, "f": f}


@server.tool()
def field_defaults(n: int = Field(default=3, description="How many"),
                   s: str = Field("x", title="The S", max_length=3)) -> str:
    return s * n


@server.tool()
def annotated_params(n: Annotated[int, Field(description="A count", ge=0)],
                     tags: Annotated[List[str], Field(description="Tags")] = ["a"]) -> List[str]:  # noqa: B006
    return tags * n


@server.tool()
def struct_param(point: Point, movie: Movie, color: Color = Color.GREEN) -> str:
    return f"{point.x},{point.y} {movie['title']} {color.value}"


@server.tool()
def no_return(x: int):  # type: ignore[no-untyped-def]
    return x * 2


@server.tool()
def returns_none(x: int) -> None:
    return None


@server.tool()
def raises_tool_error(x: int) -> int:
    raise ToolError(f"bad x: {x}")


@server.tool()
def raises_value_error(x: int) -> int:
    raise ValueError("secret detail /etc/passwd")


@server.tool(structured_output=False)
def unstructured_report(city: str) -> str:
    return f"Report for {city}"


@server.tool(structured_output=False)
def unstructured_dataclass() -> Point:
    return Point(1, 2)


@server.tool()
def no_hints() -> NoHints:
    return NoHints()


@server.tool()
def list_of_strs() -> List[str]:
    return ["one", "two"]


@server.tool()
def async_double(x: int) -> int:
    return x * 2


@server.tool()
async def async_tool(x: int) -> Point:
    return Point(x, x)


@server.tool()
def keyword_only(a: int, *, b: int = 2) -> int:
    return a + b


@server.tool()
def datetime_param(when: datetime.datetime, delta: datetime.timedelta = datetime.timedelta(hours=1)) -> str:
    return (when + delta).isoformat()


@server.tool()
def tuple_set_params(pair: Tuple[int, str], tags: Set[str], frozen: FrozenSet[int] = frozenset()) -> str:
    return f"{type(pair).__name__}{pair} {type(tags).__name__}{sorted(tags)} {type(frozen).__name__}"


@server.tool()
def enum_param(color: Color, level: Level = Level.LOW) -> str:
    return f"{type(color).__name__}.{color.name} {level.name}"


@server.tool()
def dict_result_typed() -> Dict[str, Point]:
    return {"a": Point(1)}


def _py_calls() -> List[Tuple[str, Dict[str, Any]]]:
    """The (tool, arguments) cases, in a stable order."""
    calls: List[Tuple[str, Dict[str, Any]]] = []
    for name, _source, values, minimum in ECHO:
        if sys.version_info >= minimum:
            calls.extend((f"echo_{name}", {"value": v}) for v in values)
            calls.append((f"echo_{name}", {}))
    calls.extend((f"ret_{name}", {}) for name, _s, _e in RETURNS)
    calls += [
        ("get_weather", {"city": "London"}),
        ("get_weather", {"city": "Oslo", "days": "3", "units": "f"}),
        ("get_weather", {"city": "Oslo", "units": "k"}),
        ("get_weather", {"city": "Oslo", "extra": 1}),
        ("get_weather", {}),
        ("renamed", {"a_b_c": 1}),
        ("unannotated", {"x": 1}),
        ("unannotated", {"x": "a", "y": "b"}),
        ("defaults", {}),
        ("defaults", {"a": 3, "b": [3], "c": "green", "d": [5, 6], "e": 2, "f": "yes"}),
        ("defaults", {"a": "null"}),
        ("field_defaults", {}),
        ("field_defaults", {"n": 2, "s": "ab"}),
        ("field_defaults", {"s": "abcd"}),
        ("annotated_params", {"n": 2}),
        ("annotated_params", {"n": -1}),
        ("struct_param", {"point": {"x": 1}, "movie": {"title": "t", "year": 1}}),
        ("struct_param", {"point": '{"x": 1}', "movie": {"title": "t", "year": 1}, "color": "red"}),
        ("struct_param", {"point": {"x": "a"}, "movie": {}}),
        ("no_return", {"x": 2}),
        ("returns_none", {"x": 2}),
        ("raises_tool_error", {"x": 2}),
        ("raises_value_error", {"x": 2}),
        ("unstructured_report", {"city": "Paris"}),
        ("unstructured_dataclass", {}),
        ("list_of_strs", {}),
        ("async_double", {"x": 4}),
        ("async_tool", {"x": 4}),
        ("keyword_only", {"a": 1}),
        ("keyword_only", {"a": 1, "b": 5}),
        ("datetime_param", {"when": "2024-05-01T10:00:00"}),
        ("datetime_param", {"when": "2024-05-01T10:00:00", "delta": "P1D"}),
        ("tuple_set_params", {"pair": [1, "a"], "tags": ["b", "a", "b"]}),
        ("enum_param", {"color": "red"}),
        ("enum_param", {"color": "red", "level": 2}),
        ("dict_result_typed", {}),
    ]
    return calls


CALLS = _py_calls()


# -- a second server: lax inputs, rejections, JSON forms returned, pydantic models ----
# Recorded under "more_tools" and "more_calls" and compared by test_differential.py,
# which lists the disagreements still open (its KNOWN); the pydantic tools exist only
# where pydantic is installed (CI's venv), as a user's models bring it.

more = MCPServer("corpus-more")

try:
    import pydantic
except ImportError:
    pydantic = None


class Mixed(enum.Enum):
    X = "x"
    TWO = 2


class IntMixin(int, enum.Enum):
    ONE = 1
    TWO = 2


@dataclass
class Defaulted:
    path: pathlib.Path = pathlib.Path("")
    when: Optional[datetime.time] = None


class PathBox(TypedDict):
    y: pathlib.Path


class NoFields(TypedDict):
    pass


@dataclass
class Empty:
    pass


# (name, annotation source, argument values): lax forms pydantic takes and values it refuses.
MORE_ECHO: List[Tuple[str, str, List[Any]]] = [
    ("lax_int", "int", ["1_000", " 8 ", 17.0, True, "0x1f", 1e300, "1e3"]),
    ("lax_float", "float", ["1e3", True, " 2 ", "1_000.5", "inf", "true"]),
    ("lax_bool", "bool", ["off", "YES", "t", 0, 1.5, "tru"]),
    ("lax_date", "datetime.date", [1714521600, "2024-05-01T00:00:00", "1714521600", "2024-05-01T10:00:00", 1.5]),
    ("lax_datetime", "datetime.datetime", [1714557600, "2024-05-01", "1714557600", "2024-05-01 10:00"]),
    ("lax_time", "datetime.time", [3600, "10:20", 3600.5, None]),
    ("lax_timedelta", "datetime.timedelta", [3600, 1.5, "1:02:03", "-1", False]),
    ("lax_uuid", "uuid.UUID", ["12345678123456781234567812345678", "urn:uuid:12345678-1234-5678-1234-567812345678",
                               1]),
    ("lax_decimal", "decimal.Decimal", [2.5, "1_000", " 1.5 ", True, None]),
    ("lax_path", "pathlib.Path", ["", None]),
    ("lax_literal_bool", "Literal[True]", [1, 1.0, "true"]),
    ("lax_literal_int", "Literal[1, 2]", [True, "1", 2.0]),
    ("lax_enum_mixed", "Mixed", ["2", 2, "x"]),
    ("lax_enum_int_mixin", "IntMixin", ["1", 1.0, 3]),
    ("lax_tuple", "tuple", [17, {}, "[1]"]),
    ("lax_frozenset", "frozenset[int]", [-1, [1, 1]]),
    ("lax_sequence", "Sequence[int]", [{}, [1, "2"]]),
    ("lax_mapping_uuid", "Mapping[str, uuid.UUID]", [{"a": "x"}, {"a": "12345678123456781234567812345678"}]),
    ("lax_dict_int_keys", "dict[int, float]", [{"x": "x"}, {"1": "2.5"}]),
    ("lax_union_temporal", "Union[bool, datetime.datetime, bytes]", ["é", 1714557600, "true"]),
    ("lax_union_exact", "Union[decimal.Decimal, None, int]", [-73, "1.5", 2.5]),
    ("lax_union_bytes_str", "Union[bytes, str]", ["abc"]),
    ("lax_optional_float", "Optional[float]", ["true", "null", None]),
    ("lax_defaulted", "Defaulted", [{}, {"when": 3600}]),
    # the smart union: a class one of whose fields converts (a Path from a string) ranks below Any
    ("union_any_path_class", "Union[Any, PathBox]", [{"y": ""}]),
    ("union_path_class_any", "Union[PathBox, Any]", [{"y": ""}]),
    ("union_any_dataclass", "Union[Any, Empty]", [{"a": -1}]),
    ("union_int_any_dataclass", "Union[int, Any, Defaulted]", [{"when": 3600, "b": []}]),
    # JSON text for a type that takes no such string: read as JSON
    ("json_text_optional_time", "Union[bool, datetime.time, None]", ["null", "[1]"]),
    ("json_text_decimal", "Optional[decimal.Decimal]", ["null", "{}"]),
    # length constraints, as pydantic-core counts each container
    ("size_list_max", "Annotated[list[int], Field(max_length=1)]", [["x", "y"], [1, "y"]]),
    ("size_list_min", "Annotated[list[int], Field(min_length=3)]", [["x"]]),
    ("size_tuple_max", "Annotated[Tuple[int, ...], Field(max_length=1)]", [["x", 1], [1, 2, "x"]]),
    ("size_tuple_min", "Annotated[Tuple[int, ...], Field(min_length=3)]", [["x"]]),
    ("size_sequence_max", "Annotated[Sequence[int], Field(max_length=1)]", [[1, 2, "x"], [1, 1, 1]]),
    ("size_set_max", "Annotated[set[int], Field(max_length=1)]", [["x", 1], [1, 2, "x"], [1, 1, 1]]),
    ("size_set_min", "Annotated[set[int], Field(min_length=3)]", [["x"]]),
    ("union_sequence_label", "Union[int, Annotated[Sequence[bool], Field(min_length=2, max_length=2)]]", [[1]]),
]

# (name, return annotation source, expression): JSON forms and wrong values returned for typed outputs.
MORE_RETURNS: List[Tuple[str, str, str]] = [
    ("json_time", "Optional[datetime.time]", "'10:20:30.5'"),
    ("json_time_bad", "Optional[datetime.time]", "'x'"),
    ("json_path", "Union[pathlib.Path, int]", "''"),
    ("json_date_from_datetime", "Optional[datetime.date]", "'2024-05-01T10:00:00'"),
    ("json_float_big_int", "list[float]", "[10**20]"),
    ("json_mapping_datetime", "Mapping[str, datetime.datetime]", "{'a': '2024-05-01 10:00'}"),
    ("json_literal_bool", "Literal[True]", "1.0"),
    ("json_multiple_big", "Annotated[float, Field(multiple_of=3)]", "10**20"),
    ("json_frozenset", "frozenset[int]", "[3, 1, 2]"),
    ("set_true_is_one", "FrozenSet[Union[bool, int, pathlib.Path]]", "[1, 17, True]"),
    ("union_typeddict_over_dict", "Union[bytes, NoFields, dict, None]", "{'b': []}"),
    ("union_typeddict_over_float_dict", "Union[NoFields, Dict[str, float]]", "{'b': 10**20}"),
    ("union_int_dict_over_typeddict", "Union[NoFields, Dict[str, int]]", "{'b': 10**20}"),
    ("union_any_over_dataclass", "Union[Any, Empty]", "{'a': -1}"),
    # a set of Decimals: one of equal ones, in the order of their (numeric, so any process's) hashes
    ("set_order_decimals", "set[decimal.Decimal]", "['1.50', '1.5', '-3.25', '0', '7']"),
]

_MORE_CALLS: List[Tuple[str, Dict[str, Any]]] = []
for _name, _source, _args in MORE_ECHO:
    more.add_tool(_echo(_name, _source))
    _MORE_CALLS.extend((f"echo_{_name}", {"value": v}) for v in _args)
for _name, _source, _expression in MORE_RETURNS:
    more.add_tool(_returner(_name, _source, _expression))
    _MORE_CALLS.append((f"ret_{_name}", {}))


if pydantic is not None:
    from pydantic import BaseModel, ConfigDict, RootModel, computed_field, field_validator, model_validator
    from pydantic import Field as PField
    from pydantic.dataclasses import dataclass as pydantic_dataclass

    class Checked(BaseModel):
        """A model with validators."""

        count: int
        name: str = ""

        @field_validator("count")
        @classmethod
        def _not_negative(cls, v: int) -> int:
            if v < 0:
                raise ValueError("must not be negative")
            return v

        @field_validator("name", mode="before")
        @classmethod
        def _strip(cls, v: Any) -> Any:
            return v.strip() if isinstance(v, str) else v

        @model_validator(mode="after")
        def _unlucky(self) -> "Checked":
            if self.count == 13:
                raise ValueError("13 is unlucky")
            return self

    class Computed(BaseModel):
        width: int
        height: int = 1

        @computed_field  # type: ignore[prop-decorator]
        @property
        def area(self) -> int:
            return self.width * self.height

    class ComputedForbid(Computed):
        model_config = ConfigDict(extra="forbid")

    class Aliased(BaseModel):
        model_config = ConfigDict(populate_by_name=True)
        first_name: str = PField(alias="firstName")
        age: int = PField(0, alias="Age")

    class AliasOnly(BaseModel):
        first_name: str = PField(alias="firstName")

    class StrictModel(BaseModel):
        model_config = ConfigDict(strict=True)
        n: int
        when: Optional[datetime.date] = None

    class Base(BaseModel):
        id: int

    class Child(Base):
        label: str = "x"

    class Numbers(RootModel[List[int]]):
        pass

    @pydantic_dataclass
    class PydanticPoint:
        x: int
        y: Annotated[int, PField(ge=0)] = 0

    MORE_MODELS: List[Tuple[str, str, List[Any]]] = [
        ("model_validators", "Checked", [{"count": 1, "name": " a "}, {"count": -1}, {"count": 13}, {"count": "2"}]),
        ("model_computed", "Computed", [{"width": 2, "height": 3}, {"width": 2, "area": 9}]),
        ("model_computed_forbid", "ComputedForbid", [{"width": 2}, {"width": 2, "area": 2}]),
        ("model_aliases", "Aliased", [{"firstName": "a"}, {"first_name": "a", "age": 3}, {"firstName": "a", "Age": "4"},
                                      {}]),
        ("model_alias_only", "AliasOnly", [{"firstName": "a"}, {"first_name": "a"}]),
        ("model_strict", "StrictModel", [{"n": 1}, {"n": "1"}, {"n": 1.0}, {"n": 1, "when": "2024-05-01"}]),
        ("model_subclass", "Child", [{"id": 1}, {"id": 1, "label": "y"}, {"label": "y"}]),
        ("model_root", "Numbers", [[1, 2], ["1"], [1, "x"], {}]),
        ("model_pydantic_dataclass", "PydanticPoint", [{"x": 1}, {"x": 1, "y": -1}, {"x": "a"}]),
        ("model_list", "list[Checked]", [[{"count": 1}, {"count": -2}]]),
        ("model_optional", "Optional[Child]", [None, {"id": 2}]),
    ]
    MORE_MODEL_RETURNS: List[Tuple[str, str, str]] = [
        ("model_instance", "Checked", "Checked(count=2, name='n')"),
        ("model_dict", "Checked", "{'count': 3}"),
        ("model_dict_invalid", "Checked", "{'count': -3}"),
        ("model_constructed", "Checked", "Checked.model_construct(name='no count')"),
        ("model_computed_instance", "Computed", "Computed(width=2, height=5)"),
        ("model_computed_forbid_instance", "ComputedForbid", "ComputedForbid(width=2)"),
        ("model_aliased_instance", "Aliased", "Aliased(firstName='a', Age=3)"),
        ("model_aliased_dict_by_name", "Aliased", "{'first_name': 'a'}"),
        ("model_child_as_base", "Base", "Child(id=1, label='z')"),
        ("model_root_instance", "Numbers", "Numbers([3, 4])"),
        ("model_root_wrong", "Numbers", "['x']"),
        ("model_pydantic_dataclass_instance", "PydanticPoint", "PydanticPoint(x=1)"),
        ("model_list_instances", "list[Computed]", "[Computed(width=1), Computed(width=2, height=2)]"),
    ]
    for _name, _source, _args in MORE_MODELS:
        more.add_tool(_echo(_name, _source))
        _MORE_CALLS.extend((f"echo_{_name}", {"value": v}) for v in _args)
    for _name, _source, _expression in MORE_MODEL_RETURNS:
        more.add_tool(_returner(_name, _source, _expression))
        _MORE_CALLS.append((f"ret_{_name}", {}))

MORE_CALLS = _MORE_CALLS

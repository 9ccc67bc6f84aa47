"""Sections 9 and 14, Tools and MCPServer: registration, the structured-output
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
from typing import Any, Dict, List, Optional, Tuple, TypedDict, Union

from tests._testing import BOTH, Field, MCPServer, accelerators, has_module, load_example, mcp_ref, server_with


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

    def test_structured_output_true_without_annotation(self) -> None:
        def f(x: int):  # type: ignore[no-untyped-def]
            return x

        with self.assertRaisesRegex(mcp_ref.InvalidSignature, "return annotation required"):
            self.register(f, structured_output=True)


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


POINT_SCHEMA = {"properties": {"x": {"title": "X", "type": "integer"},
                               "y": {"default": 0, "title": "Y", "type": "integer"}},
                "required": ["x"], "title": "Point", "type": "object"}


class Movie(TypedDict):
    title: str
    year: int


class Station:
    """A class with annotations and no dataclass: a model of its annotations."""

    name: str
    online: bool = True

    def __init__(self, name: str) -> None:
        self.name = name


class Opaque:
    """A class without annotations: no JSON Schema."""

    def __repr__(self) -> str:
        return "Opaque()"


class Shade(enum.Enum):
    DARK = "dark"


def text(value: str) -> Dict[str, str]:
    return {"type": "text", "text": value}


def wrapped(name: str, result: Dict[str, Any], **extra: Any) -> Dict[str, Any]:
    """The outputSchema of a value wrapped in {"result": ...} (keys in pydantic's order)."""
    return {**extra, "properties": {"result": dict(sorted({**result, "title": "Result"}.items()))},
            "required": ["result"], "title": f"{name}Output", "type": "object"}


class _StructuredOutputTestShared:
    """What StructuredOutputTest here and its part in tests/layers share."""

    def check(self, fn: Any, schema: Optional[Dict[str, Any]], result: Dict[str, Any], **options: Any) -> None:
        server = server_with(fn, **options)
        tool = server.list_tools()[0]
        self.assertEqual(tool.get("outputSchema"), schema)
        if schema is not None:  # in the order pydantic writes it: the frames are byte-identical
            self.assertEqual(json.dumps(tool["outputSchema"]), json.dumps(schema))
        self.assertEqual(server.call_tool(fn.__name__, {}), result)

    def refused(self, fn: Any) -> str:
        with self.assertRaises(mcp_ref.InvalidSignature) as caught:
            server_with(fn, structured_output=True)
        return str(caught.exception)


class StructuredOutputTest(_StructuredOutputTestShared, unittest.TestCase):
    """Each row of the table in ``_output_schema`` (section 9): the exact
    outputSchema (None: not published) and one call's exact result."""

    def test_s1_opted_out(self) -> None:
        def count() -> int:
            return 3

        self.check(count, None, {"content": [text("3")], "isError": False}, structured_output=False)

    def test_s2_no_return_annotation(self) -> None:
        def untyped():  # type: ignore[no-untyped-def]
            return {"a": 1}

        self.check(untyped, None, {"content": [text('{\n  "a": 1\n}')], "isError": False})

    def test_s3_call_tool_result(self) -> None:
        def raw() -> mcp_ref.CallToolResult:
            return mcp_ref.CallToolResult(content=[mcp_ref.TextContent(text="hi")], structured_content={"a": 1})

        self.check(raw, None, {"content": [text("hi")], "structuredContent": {"a": 1}, "isError": False})

    def test_s4_annotated_call_tool_result(self) -> None:
        def raw_point() -> typing.Annotated[mcp_ref.CallToolResult, Point]:
            return mcp_ref.CallToolResult(content=[mcp_ref.TextContent(text="hi")], structured_content={"x": 1, "y": 2})

        def raw_list() -> typing.Annotated[mcp_ref.CallToolResult, List[int]]:
            return mcp_ref.CallToolResult(content=[], structured_content={"result": [1, 2]})

        self.check(raw_point, POINT_SCHEMA, {"content": [text("hi")], "structuredContent": {"x": 1, "y": 2},
                                             "isError": False})
        self.check(raw_list, wrapped("raw_list", {"items": {"type": "integer"}, "type": "array"}),
                   {"content": [], "structuredContent": {"result": [1, 2]}, "isError": False})

    def test_s5_content_blocks(self) -> None:
        def blocks() -> List[mcp_ref.TextContent]:
            return [mcp_ref.TextContent(text="a"), mcp_ref.TextContent(text="b")]

        def image() -> mcp_ref.Image:
            return mcp_ref.Image(data=b"\x89PNG", format="png")

        self.check(blocks, None, {"content": [text("a"), text("b")], "isError": False})
        self.check(image, None, {"content": [{"type": "image", "data": "iVBORw==", "mimeType": "image/png"}],
                                 "isError": False})

    def test_s6_any(self) -> None:
        def anything() -> Any:
            return {"a": 1}

        self.check(anything, None, {"content": [text('{\n  "a": 1\n}')], "isError": False})

    def test_s9_dict_with_other_keys_is_wrapped(self) -> None:
        def by_number() -> Dict[int, str]:
            return {1: "a"}

        self.check(by_number, wrapped("by_number", {"additionalProperties": {"type": "string"}, "type": "object"}),
                   {"content": [text('{\n  "1": "a"\n}')], "structuredContent": {"result": {"1": "a"}},
                    "isError": False})

    def test_s10_lists_unions_literals_are_wrapped(self) -> None:
        def numbers() -> List[int]:
            return [1, 2]

        def pair() -> Tuple[int, str]:
            return (1, "a")

        def maybe() -> Optional[Point]:
            return Point(1)

        def choice() -> typing.Literal["a", "b"]:
            return "a"

        self.check(numbers, wrapped("numbers", {"items": {"type": "integer"}, "type": "array"}),
                   {"content": [text("1"), text("2")], "structuredContent": {"result": [1, 2]}, "isError": False})
        self.check(pair, wrapped("pair", {"maxItems": 2, "minItems": 2,
                                          "prefixItems": [{"type": "integer"}, {"type": "string"}], "type": "array"}),
                   {"content": [text("1"), text("a")], "structuredContent": {"result": [1, "a"]}, "isError": False})
        self.check(maybe, {"$defs": {"Point": POINT_SCHEMA},
                           "properties": {"result": {"anyOf": [{"$ref": "#/$defs/Point"}, {"type": "null"}]}},
                           "required": ["result"], "title": "maybeOutput", "type": "object"},
                   {"content": [text('{\n  "x": 1,\n  "y": 0\n}')], "structuredContent": {"result": {"x": 1, "y": 0}},
                    "isError": False})
        self.check(choice, wrapped("choice", {"enum": ["a", "b"], "type": "string"}),
                   {"content": [text("a")], "structuredContent": {"result": "a"}, "isError": False})

    def test_s11_typeddict_is_the_object(self) -> None:
        # pydantic models: PydanticModelTest.
        def movie() -> Movie:
            return {"title": "t", "year": 1}

        self.check(movie, {"properties": {"title": {"title": "Title", "type": "string"},
                                          "year": {"title": "Year", "type": "integer"}},
                           "required": ["title", "year"], "title": "Movie", "type": "object"},
                   {"content": [text('{\n  "title": "t",\n  "year": 1\n}')],
                    "structuredContent": {"title": "t", "year": 1}, "isError": False})

    def test_s12_a_class_value_the_sdk_cannot_write_is_no_schema(self) -> None:
        """The SDK makes a class's values its model's defaults; one pydantic cannot
        write as JSON (a __slots__ entry, an object) fails its schema: unstructured."""
        class Slotted:
            __slots__ = ("name",)
            name: str

            def __init__(self, name: str) -> None:
                self.name = name

            def __repr__(self) -> str:
                return f"Slotted({self.name!r})"

        class Holder:
            name: str
            marker: Any = object()

        def slotted() -> Slotted:
            return Slotted("a")

        def holder() -> Holder:
            return Holder()

        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            self.check(slotted, None, {"content": [text('"Slotted(\'a\')"')], "isError": False})
            server_with(holder)
        self.assertEqual(stderr.getvalue().splitlines(), [
            "mcp_ref: slotted is unstructured: Slotted.name's class value is no JSON default (Unable to serialize "
            "unknown type: member_descriptor)",
            "mcp_ref: holder is unstructured: Holder.marker's class value is no JSON default (Unable to serialize "
            "unknown type: object)"])
        with self.assertRaises(mcp_ref.InvalidSignature):
            server_with(slotted, structured_output=True)

        # As a parameter (docs/sdk-differences.md, 10), a slot is no default: the field is required.
        def take(value: Slotted) -> str:
            return value.name

        self.assertEqual(server_with(take).list_tools()[0]["inputSchema"]["$defs"]["Slotted"]["required"], ["name"])

    def test_s13_classes_without_annotations_are_unstructured(self) -> None:
        def opaque() -> Opaque:
            return Opaque()

        def when() -> datetime.datetime:
            return datetime.datetime(2024, 5, 1, 10, 0)

        def shade() -> Shade:
            return Shade.DARK

        self.check(opaque, None, {"content": [text('"Opaque()"')], "isError": False})
        self.check(when, None, {"content": [text('"2024-05-01T10:00:00"')], "isError": False})
        self.check(shade, None, {"content": [text('"dark"')], "isError": False})

    def test_e1_structured_output_without_annotation(self) -> None:
        def untyped(x: int):  # type: ignore[no-untyped-def]
            return x

        self.assertEqual(self.refused(untyped), "Function untyped: return annotation required for structured output")

    def test_e2_structured_output_for_a_class_without_annotations(self) -> None:
        def opaque() -> Opaque:
            return Opaque()

        def when() -> datetime.datetime:
            return datetime.datetime(2024, 5, 1)

        self.assertEqual(self.refused(opaque),
                         f"Function opaque: return type {Opaque} is not serializable for structured output")
        self.assertEqual(self.refused(when), "Function when: return type <class 'datetime.datetime'> is not "
                                             "serializable for structured output")

    def test_e3_structured_output_for_an_annotation_without_json_schema(self) -> None:
        def function() -> typing.Callable[[int], int]:
            return len

        self.assertEqual(self.refused(function), "Function function: return type typing.Callable[[int], int] is not "
                         "serializable for structured output (cannot describe typing.Callable[[int], int] as JSON "
                         "Schema)")
        # Without structured_output=True: unstructured, and a line on stderr.
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            self.check(function, None, {"content": [text('"<built-in function len>"')], "isError": False})
        self.assertEqual(stderr.getvalue(), "mcp_ref: function is unstructured: cannot describe "
                                            "typing.Callable[[int], int] as JSON Schema\n")


class ToolNameTest(unittest.TestCase):
    """server/tools "Tool Names": 1 to 128 characters (SHOULD); only A-Z a-z 0-9 _ - .
    (SHOULD); no spaces, commas or other special characters (SHOULD NOT).  A name
    that is not so is registered with a warning, logged as the SDK logs it."""

    LOGGER = "mcp.shared.tool_name_validation"
    NAMES = ["", "x" * 128, "x" * 129, "get weather", "a,b", "-lead", "trail-", ".dot", "dot.", "caf\u00e9",
             "a/b", "a b,c\u00e9 ", "tab\tname", "new\nline", "ok_name-1.2", "A", "\u0661", "<lambda>x", "a:b"]

    def logged(self, register: Any, name: str) -> List[str]:
        logger = __import__("logging").getLogger(self.LOGGER)
        logger.disabled = False  # (dictConfig elsewhere disables it)
        with self.assertLogs(logger, "DEBUG") as logs:
            logger.debug("start")  # assertLogs needs one record; a name without warnings logs none
            register(name)
        self.assertTrue(all(r.levelname == "WARNING" for r in logs.records[1:]))
        return [r.getMessage() for r in logs.records[1:]]

    def test_a_name_not_advised_is_registered_with_the_sdks_warning(self) -> None:
        server = MCPServer("names")
        self.assertEqual(self.logged(lambda n: server.add_tool(lambda: 1, name=n), "get weather"), [
            'Tool name validation warning for "get weather":',
            "  - Tool name contains spaces, which may cause parsing issues",
            "  - Tool name contains invalid characters: ' '",
            "  - Allowed characters are: A-Z, a-z, 0-9, underscore (_), dash (-), and dot (.)",
            "Tool registration will proceed, but this may cause compatibility issues.",
            "Consider updating the tool name to conform to the MCP tool naming standard.",
            "See SEP-986 (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names) "
            "for more details."])
        self.assertEqual([t["name"] for t in server.list_tools()], ["get weather"])  # a SHOULD: still registered
        self.assertEqual(self.logged(lambda n: server.tool(name=n)(lambda: 1), "x" * 129)[1],
                         "  - Tool name exceeds maximum length of 128 characters (current: 129)")
        self.assertEqual(self.logged(lambda n: server.tool(name=n)(lambda: 1), "ok_name-1.2"), [])

    def test_the_same_lines_as_the_sdk(self) -> None:
        if not has_module("mcp"):
            self.skipTest("the SDK is not installed")
        from mcp.shared.tool_name_validation import validate_and_warn_tool_name

        for name in self.NAMES:
            with self.subTest(name=name):
                ours = self.logged(lambda n: mcp_ref._warn_tool_name(n), name)
                self.assertEqual(ours, self.logged(validate_and_warn_tool_name, name))
                self.assertEqual(bool(ours), name not in ("x" * 128, "ok_name-1.2", "A"))

    def test_nothing_on_stdout(self) -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            MCPServer("names").add_tool(lambda: 1, name="a b")
        self.assertEqual(out.getvalue(), "")


class MCPServerTest(unittest.TestCase):
    def test_a_mutable_default_is_each_call_s_own(self) -> None:
        def tagged(tags: typing.Annotated[List[str], Field(default=[])], more: List[str] = Field(default=["a"])) -> int:  # noqa: B008
            tags.append("x")
            more.append("y")
            return len(tags) + len(more)

        server = MCPServer("t")
        server.add_tool(tagged)
        self.assertEqual([server.call_tool("tagged", {})["structuredContent"] for _ in range(3)], [{"result": 3}] * 3)

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

        self.assertEqual(server_with(double).call_tool("double", {"x": 2})["structuredContent"], {"result": 4})

    def test_unknown_tool(self) -> None:
        with self.assertRaisesRegex(mcp_ref.ToolError, "Unknown tool: nope"):
            MCPServer("t").call_tool("nope", {})

    def test_remove_and_replace(self) -> None:
        def one() -> int:
            return 1

        def other() -> int:
            return 2

        # The SDK's ToolManager.add_tool: the first tool of a name stays, with a warning.
        server = server_with(one)
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            server.add_tool(other, name="one")
        self.assertEqual(stderr.getvalue(), "mcp_ref: tool 'one' registered again; the first one stays\n")
        self.assertEqual(server.call_tool("one", {})["structuredContent"], {"result": 1})
        self.assertEqual([t["name"] for t in server.list_tools()], ["one"])
        server.remove_tool("one")
        self.assertEqual(server.list_tools(), [])
        with self.assertRaisesRegex(mcp_ref.ToolError, "Unknown tool: one"):
            server.remove_tool("one")
        server.add_tool(other, name="one")  # removed: the name is free again
        self.assertEqual(server.call_tool("one", {})["structuredContent"], {"result": 2})

    def test_empty_description_takes_the_docstring(self) -> None:
        # The SDK's Tool.from_function: ``description or fn.__doc__ or ""``.
        def documented() -> int:
            """The docstring."""
            return 1

        def bare() -> int:
            return 1

        server = MCPServer("t")
        server.add_tool(documented, description="")
        server.add_tool(documented, name="given", description="Given.")
        server.add_tool(bare, description="")
        self.assertEqual([t["description"] for t in server.list_tools()], ["The docstring.", "Given.", ""])

    def test_an_instance_takes_its_own_class_in_a_union(self) -> None:
        # pydantic's smart union: Empty() is Empty, though its fields ({}) fit Origin
        # too (which would fill in x); the SDK sends {"result": {}}.
        @dataclasses.dataclass
        class Origin:
            x: int = 0

        @dataclasses.dataclass
        class Empty:
            pass

        def pick(which: int) -> Union[Origin, Empty, int]:
            return [Empty(), Origin(1), 3][which]

        for on in BOTH:
            with self.subTest(accelerated=on), accelerators(on):
                server = server_with(pick)
                self.assertEqual([server.call_tool("pick", {"which": i})["structuredContent"] for i in range(3)],
                                 [{"result": {}}, {"result": {"x": 1}}, {"result": 3}])
                self.assertEqual(server.call_tool("pick", {"which": 0})["content"], [text("{}")])

    def test_annotated_field_default_is_a_default(self) -> None:
        # pydantic (the SDK): Annotated[T, Field(default=...)] is not required and
        # publishes its default, for a parameter and for the wrapped result.
        def echo(value: typing.Annotated[int, Field(lt=5, default=1)]) -> typing.Annotated[int, Field(default=1)]:
            return value

        tool = server_with(echo).list_tools()[0]
        self.assertEqual(tool["inputSchema"], {"type": "object", "properties": {"value": {
            "default": 1, "exclusiveMaximum": 5, "title": "Value", "type": "integer"}}, "title": "echoArguments"})
        self.assertEqual(tool["outputSchema"], {"properties": {"result": {"default": 1, "title": "Result",
                                                                          "type": "integer"}},
                                                "title": "echoOutput", "type": "object"})
        self.assertEqual(server_with(echo).call_tool("echo", {})["structuredContent"], {"result": 1})

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



class CallNowTest(unittest.TestCase):
    """MCPServer._call_now, the steps of _call without its awaits (for a call
    that never waits), ends every call as _call does: generated tools and
    arguments, seeded, through both, in every revision."""

    def test_the_same_outcome_as_call(self) -> None:
        import random

        server = MCPServer("t")
        outcomes: Dict[str, Any] = {
            "value": lambda n: n, "wrong type": lambda n: "x" * n, "raises": lambda n: 1 // 0,
            "protocol error": lambda n: (_ for _ in ()).throw(mcp_ref.MCPError(-32001, f"no {n}", {"n": n})),
            "input required": lambda n: mcp_ref.InputRequiredResult({"a": {"method": "roots/list", "params": {}}}),
            "dict": lambda n: {"n": n}, "none": lambda n: None}

        def typed(outcome: Any) -> Any:
            def tool(n: int, label: str = "") -> int:
                return outcome(n)  # type: ignore[no-any-return]
            return tool

        def untyped(outcome: Any) -> Any:
            return lambda n: outcome(n)

        for name, outcome in outcomes.items():
            server.add_tool(typed(outcome), name=name.replace(" ", "_"))
            server.add_tool(untyped(outcome), name=name.replace(" ", "_") + "_untyped")
        arguments: List[Any] = [{"n": 2}, {"n": "2"}, {"n": 2.5}, {}, {"n": 1, "label": 3}, {"n": True},
                                {"n": 3, "extra": None}, {"n": -(2 ** 70)}]
        rng = random.Random(7)
        for _ in range(300):
            tool = rng.choice(list(server._tools.values()))
            args = dict(rng.choice(arguments))
            version = rng.choice(mcp_ref._ALL_VERSIONS)
            with self.subTest(tool=tool.name, arguments=args, version=version), \
                    contextlib.redirect_stderr(io.StringIO()):  # (the server logs what a tool raises)
                now = server._call_now(tool, dict(args), mcp_ref._Request(None, None, version, {}))
                awaited = mcp_ref._run_without_loop(server._call(tool, dict(args), mcp_ref._Request(None, None, version,
                                                                                                    {})))
                self.assertEqual(self._shown(now), self._shown(awaited))

    @staticmethod
    def _shown(outcome: Any) -> Any:
        """An outcome as comparable data: an _RpcError by its fields."""
        if isinstance(outcome, Exception):
            return type(outcome).__name__, vars(outcome)
        return outcome


if __name__ == "__main__":
    unittest.main()

"""Sections 4 and 8: Python values as JSON, and the results built from them
(``content`` blocks, the text the model reads, ``structuredContent``).

Every corpus call against the SDK's recorded result, the results printed on
the SDK's "Structured output" page, content blocks, passthrough results, tool
errors, and the content text of nested values in both modes of the
accelerators.
"""

import contextlib
import dataclasses
import io
import json
import unittest
from typing import Any, Dict, List, Optional, Union

from tests._testing import load_corpus, load_example, mcp_ref, server_with


validate = mcp_ref.validate


# Calls whose result differs on purpose (docs/sdk-differences.md), by kind of difference.
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


class _ResultParityTestShared:
    """What ResultParityTest here and its part in tests/layers share."""

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


class ResultParityTest(_ResultParityTestShared, unittest.TestCase):
    """Every (tool, arguments) case of the corpus, against the SDK's result."""

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


if __name__ == "__main__":
    unittest.main()

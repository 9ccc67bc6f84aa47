"""A server whose tools, resources, prompts and completion raise, for tests/core/test_errors.py.

Runs on mcp_ref, or with ERRORS_SERVER=sdk on the SDK (through
testdata/sdk_launcher.py's stand-in module).  What it raises is picked by
ERRORS_RAISE:

    ours   mcp_ref.MCPError (the default)
    sdk    the SDK's mcp.shared.exceptions.MCPError and UrlElicitationRequiredError
    v1     a stand-in for SDK 1.x's McpError: McpError(ErrorData(code, message, data))
"""

import dataclasses
import os
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
if os.environ.get("ERRORS_SERVER") == "sdk":  # served by the SDK: its MCPServer behind the name mcp_ref
    sys.path.insert(0, HERE)
    import sdk_launcher  # noqa: F401

import mcp_ref  # noqa: E402
from mcp_ref import MCPServer, ToolError  # noqa: E402

RAISE = os.environ.get("ERRORS_RAISE", "ours")


class ErrorData:
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        self.code, self.message, self.data = code, message, data


class McpError(Exception):
    """SDK 1.x's shape: the error on ``.error``."""

    def __init__(self, error: ErrorData) -> None:
        super().__init__(error.message)
        self.error = error


McpError.__module__ = "mcp.shared.exceptions"


def error(code: int, message: str, data: Any = None) -> Exception:
    if RAISE == "sdk":
        from mcp.shared.exceptions import MCPError

        return MCPError(code, message, data)
    if RAISE == "v1":
        return McpError(ErrorData(code, message, data))
    return mcp_ref.MCPError(code, message, data)  # type: ignore[no-any-return]


def url_required() -> Exception:
    if RAISE == "sdk":
        from mcp.shared.exceptions import UrlElicitationRequiredError
        from mcp.types import ElicitRequestURLParams

        return UrlElicitationRequiredError([ElicitRequestURLParams(
            message="Sign in", url="https://example.com/login", elicitation_id="e1")])
    return error(-32042, "URL elicitation required", {"elicitations": [{
        "mode": "url", "message": "Sign in", "url": "https://example.com/login", "elicitationId": "e1"}]})


mcp = MCPServer("errors")


def failure(kind: str) -> Exception:
    return {
        "data": lambda: error(-32002, "with data", {"a": [1, 2]}),
        "nodata": lambda: error(-32001, "no data here"),
        "params": lambda: error(-32602, "bad params", "x"),
        "url": url_required,
        "tool": lambda: ToolError("told"),
        "crash": lambda: ValueError("a secret path"),
    }[kind]()


@mcp.tool()
def fails(kind: str) -> str:
    raise failure(kind)


@dataclasses.dataclass
class Point:
    x: int

    def __post_init__(self) -> None:
        if self.x < 0:
            raise error(-32003, "a point below zero", {"x": self.x})


@mcp.tool()
def at(point: Point) -> int:
    return point.x


@mcp.tool()
async def reads(kind: str, ctx: mcp_ref.Context) -> str:
    contents = await ctx.read_resource(f"errors://{kind}")
    return str(contents)


@mcp.resource("errors://{kind}")
def resource(kind: str) -> str:
    raise failure(kind)


@mcp.prompt()
def prompt(kind: str) -> str:
    raise failure(kind)


@mcp.completion()
async def complete(ref: Any, argument: Any, context: Any) -> Any:
    raise failure(argument.value)


if __name__ == "__main__":
    mcp.run()

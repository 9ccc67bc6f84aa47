"""The resources-and-prompts corpus: one server, written for the SDK's MCPServer.

It runs unchanged on either implementation: ``CORPUS_SERVER=sdk`` imports the
official SDK (used only by ``regen_resource_expectations.py`` to record what
the SDK publishes and returns); anything else imports ``mcp_ref``.  Run as a
script, it serves over stdio (the wire tests start it so).

READS, GETS and COMPLETES are the requests the recording and the parity tests
send: every resource and template (with good and bad URIs), every prompt (with
good, missing and bad arguments), completions of both kinds of reference.
"""

import asyncio
import os
import sys
from typing import Any, Dict, List, Literal, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "resource_files")

if os.environ.get("CORPUS_SERVER") == "sdk":
    from mcp.server import MCPServer
    from mcp.server.mcpserver import AssistantMessage, Audio, Image, Message, UserMessage
    from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
    from mcp.server.mcpserver.resources import BinaryResource, FileResource, FunctionResource, TextResource
    from mcp_types import Completion, EmbeddedResource, ResourceLink, ResourceTemplateReference, TextContent
    from pydantic import Field
else:
    sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
    from mcp_ref import (AssistantMessage, Audio, BinaryResource, Completion, EmbeddedResource,  # noqa: E402
                         Field, FileResource, FunctionResource, Image, MCPServer, Message, ResourceError,
                         ResourceLink, ResourceNotFoundError, ResourceTemplateReference, TextContent, TextResource,
                         UserMessage)

server = MCPServer("resources", instructions="Resources and prompts for tests.", version="1.0")


# -- static resources ------------------------------------------------------------


@server.resource("greeting://hello", title="Hello", description="A friendly greeting.")
def hello() -> str:
    return "Hello, world!"


@server.resource("config://app")
def app_config() -> Dict[str, Any]:
    """The application's settings."""
    return {"theme": "dark", "languages": ["en", "fr"], "beta": False, "ratio": 0.5, "name": "café"}


@server.resource("data://bytes", mime_type="application/octet-stream")
def raw_bytes() -> bytes:
    return bytes(range(8))


@server.resource("data://list")
def a_list() -> List[int]:
    return [1, 2, 3]


@server.resource("data://none")
def nothing() -> None:
    return None


@server.resource("data://async", mime_type="text/markdown")
async def later() -> str:
    """Read asynchronously.

    The description keeps its indentation in the SDK."""
    await asyncio.sleep(0)
    return "# Later"


@server.resource("data://annotated", icons=[{"src": "https://example.com/i.png", "mimeType": "image/png"}],
                 annotations={"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-12T15:00:58Z"},
                 meta={"owner": "tests"})
def annotated() -> str:
    return "annotated"


@server.resource("data://fails")
def fails() -> str:
    raise RuntimeError("a detail at /srv/secret.py")


@server.resource("data://refuses")
def refuses() -> str:
    raise ResourceError("this resource is resting")


server.add_resource(TextResource(uri="text://plain", name="plain", text="plain text", description="A text resource."))
server.add_resource(TextResource(uri="text://unnamed", text="no name given"))
server.add_resource(BinaryResource(uri="binary://default", name="default", data=b"\x00\xff"))
server.add_resource(BinaryResource(uri="binary://png", name="png", data=b"\x89PNG", mime_type="image/png"))
server.add_resource(FileResource(uri="file:///notes.txt", name="notes", path=os.path.join(FILES, "notes.txt")))
server.add_resource(FileResource(uri="file:///pixel.png", name="pixel", path=os.path.join(FILES, "pixel.png"),
                                 mime_type="image/png"))
server.add_resource(FileResource(uri="file:///data.json", name="data", path=os.path.join(FILES, "data.json"),
                                 mime_type="application/json"))
server.add_resource(FunctionResource.from_function(lambda: {"made": "by hand"}, uri="fn://hand", name="hand"))


# -- templates -------------------------------------------------------------------


@server.resource("users://{user_id}/profile", title="User profile")
def profile(user_id: int) -> Dict[str, Any]:
    """A user's profile."""
    return {"id": user_id, "name": f"user{user_id}", "double": user_id * 2}


@server.resource("files://{+path}", mime_type="text/plain")
def file_path(path: str) -> str:
    return f"contents of {path}"


@server.resource("search://{kind}{?q,limit}")
def search(kind: Literal["books", "films"], q: str = "", limit: int = 10) -> List[str]:
    return [f"{kind}:{q}:{n}" for n in range(min(limit, 3))]


@server.resource("tree://root{/parts*}")
def tree(parts: List[str]) -> str:
    return " > ".join(parts) or "(root)"


@server.resource("weather://{city}/{day}", mime_type="application/json")
async def weather(city: str, day: int) -> Dict[str, Any]:
    await asyncio.sleep(0)
    return {"city": city, "day": day, "temperature": 16.5}


@server.resource("blob://{n}", mime_type="image/png")
def blob(n: int) -> bytes:
    return bytes([n % 256]) * 3


@server.resource("broken://{name}")
def broken(name: str) -> str:
    if name == "missing":
        raise ResourceNotFoundError(f"No such thing: {name}")
    if name == "resting":
        raise ResourceError(f"{name} is resting")
    raise ValueError("an internal detail")


# -- prompts ---------------------------------------------------------------------


@server.prompt(title="Greet")
def greet(name: str = Field(description="Who to greet"), times: int = 1) -> str:
    """Greet someone."""
    return " ".join([f"Hello, {name}!"] * times)


@server.prompt()
def review(code: str, language: Optional[str] = None) -> List[Message]:
    """Review some code.

    Two lines of description."""
    return [UserMessage(f"Review this {language or 'code'}:\n{code}"),
            AssistantMessage("Which part worries you?"),
            {"role": "user", "content": "The loop."}]


@server.prompt()
async def slow(topic: str) -> str:
    await asyncio.sleep(0)
    return f"Tell me about {topic}."


@server.prompt()
def no_arguments() -> str:
    return "A prompt without arguments."


@server.prompt()
def rich() -> List[Any]:
    return [
        UserMessage(TextContent(type="text", text="text block")),
        UserMessage(Image(data=b"\x89PNG", format="png")),
        AssistantMessage(Audio(data=b"RIFF", format="wav")),
        UserMessage(EmbeddedResource(type="resource", resource={"uri": "config://app", "text": "{}",
                                                                "mimeType": "application/json"})),
        UserMessage(ResourceLink(type="resource_link", uri="config://app", name="app")),
        {"role": "assistant", "content": {"type": "text", "text": "a dict block"}},
    ]


@server.prompt()
def numbers(values: List[int], scale: float = 1.0) -> str:
    return str([v * scale for v in values])


@server.prompt()
def fails_prompt(reason: str) -> str:
    raise RuntimeError(f"a detail: {reason}")


@server.prompt()
def bad_role() -> List[Dict[str, Any]]:
    return [{"role": "system", "content": "not a role of MCP"}]


@server.prompt()
def plain_value() -> int:
    return 42


# -- completion ------------------------------------------------------------------

LANGUAGES = ["python", "pytorch", "pyside", "rust", "ruby"]


@server.completion()
async def complete(ref: Any, argument: Any, context: Any) -> Optional[Completion]:
    if isinstance(ref, ResourceTemplateReference):
        if argument.name == "day":
            city = (context.arguments or {}).get("city", "") if context else ""
            return Completion(values=[f"{city}-1", f"{city}-2"], total=7, has_more=True)
        return Completion(values=[c for c in ("london", "lisbon", "paris") if c.startswith(argument.value)])
    if argument.name == "language":
        return Completion(values=[lang for lang in LANGUAGES if lang.startswith(argument.value)])
    if argument.name == "code":
        raise RuntimeError("completion failed")
    return None


# -- a change, for the subscription tests (mcp_ref only: the SDK's MCPServer
# has no resources/subscribe) ----------------------------------------------------

if hasattr(server, "notify_resource_updated"):

    @server.tool()
    def touch(uri: str) -> str:
        """Tell the clients subscribed to ``uri`` that it changed."""
        server.notify_resource_updated(uri)
        return f"touched {uri}"


# -- the requests ------------------------------------------------------------------

READS = [
    "greeting://hello", "config://app", "data://bytes", "data://list", "data://none", "data://async",
    "data://annotated", "data://fails", "data://refuses", "text://plain", "text://unnamed", "binary://default",
    "binary://png", "file:///notes.txt", "file:///pixel.png", "file:///data.json", "fn://hand",
    "users://42/profile", "users://abc/profile", "users://42/other",
    "files://a/b/c.txt", "files://a/../../etc/passwd", "files:///etc/passwd", "files://a%2Fb",
    "search://books", "search://films?q=dune&limit=2", "search://music?q=x", "search://books?limit=x",
    "tree://root", "tree://root/a/b/c", "weather://london/3", "blob://65",
    "broken://missing", "broken://resting", "broken://other",
    "nothing://here", "",
]

GETS = [
    ("greet", {"name": "Ada"}), ("greet", {"name": "Ada", "times": "2"}), ("greet", {}),
    ("greet", {"name": "Ada", "times": "two"}), ("greet", {"name": "Ada", "extra": "ignored?"}),
    ("review", {"code": "x = 1"}), ("review", {"code": "x = 1", "language": "python"}),
    ("slow", {"topic": "MCP"}), ("no_arguments", {}), ("rich", {}),
    ("numbers", {"values": "[1, 2]"}), ("numbers", {"values": "[1, 2]", "scale": "0.5"}), ("numbers", {"values": "1"}),
    ("fails_prompt", {"reason": "r"}), ("bad_role", {}), ("plain_value", {}), ("unknown", {}),
]

COMPLETES = [
    {"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "language", "value": "py"}},
    {"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "language", "value": "zz"}},
    {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}},
    {"ref": {"type": "ref/resource", "uri": "weather://{city}/{day}"}, "argument": {"name": "city", "value": "l"}},
    {"ref": {"type": "ref/resource", "uri": "weather://{city}/{day}"}, "argument": {"name": "day", "value": ""},
     "context": {"arguments": {"city": "london"}}},
    {"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "code", "value": "x"}},
]


if __name__ == "__main__":
    server.run()

# SPDX-License-Identifier: MIT
"""mcp_ref: a Model Context Protocol server in one standard-library file.

Copy this file into your project; nothing else is needed (CPython 3.9 to 3.13,
no third-party package).  It serves MCP tools, resources and prompts over stdio
and Streamable HTTP for every protocol revision: 2024-11-05, 2025-03-26,
2025-06-18 and 2025-11-25 (the ``initialize`` handshake) and 2026-07-28
(stateless: ``server/discover`` and per-request ``_meta``).  It is a drop-in
for the official SDK's ``mcp.server.MCPServer``: the same decorators, the same
``inputSchema`` and
``outputSchema``, the same ``content`` and ``structuredContent``.

>>> server = MCPServer("demo")
>>> @server.tool()
... def add(a: int, b: int = 1) -> int:
...     '''Add two numbers.'''
...     return a + b
>>> server.call_tool("add", {"a": "2"})
{'content': [{'type': 'text', 'text': '3'}], 'structuredContent': {'result': 3}, 'isError': False}
>>> print(server.call_tool("add", {"b": 2})["content"][0]["text"])
Error executing tool add: 1 validation error for addArguments
a
  Field required [type=missing, input_value={'b': 2}, input_type=dict]

The return annotation IS the output schema (docs/servers/structured-output.md).
Each row is one branch of ``_output_schema``, labelled with its row (section 9):

    row  return annotation                            structured output
    S1   structured_output=False                      none: content only
    S2   no return annotation                         none (with structured_output=True: an error)
    S3   CallToolResult                               none: the result is sent as returned
    S4   Annotated[CallToolResult, T]                 T's schema; structured_content checked
    S5   content blocks, Image, Audio                 none
    S6   Any                                          none
    S7   str, int, float, bool, bytes, None           wrapped: {"result": value}
    S8   dict[str, T]                                 the object itself
    S9   dict[K, T], K not str                        wrapped
    S10  list, tuple, set, Union, Optional, Literal   wrapped
    S11  pydantic BaseModel, TypedDict                the object itself
    S12  dataclass, class with annotations            the object itself
    S13  class without annotations, datetime, Enum    none (with structured_output=True: an error)

Every result is checked against its schema before it leaves; a mismatch is a
tool error (``isError: true``) whose text names the failing field.  One example
per row (``schema`` shows what ``tools/list`` publishes as ``outputSchema``):

>>> import dataclasses, typing
>>> def schema(annotation, **options):
...     def tool(): pass
...     tool.__annotations__["return"] = annotation
...     one = MCPServer("rows")
...     one.add_tool(tool, **options)
...     return one.list_tools()[0].get("outputSchema")
>>> schema(int, structured_output=False) is None                        # S1
True
>>> schema(_MISSING) is None                                            # S2
True
>>> schema(CallToolResult) is None                                      # S3
True
>>> schema(typing.Annotated[CallToolResult, typing.List[int]])["properties"]     # S4
{'result': {'items': {'type': 'integer'}, 'title': 'Result', 'type': 'array'}}
>>> schema(typing.List[TextContent]) is None                            # S5
True
>>> schema(typing.Any) is None                                          # S6
True
>>> schema(int)["properties"]                                           # S7
{'result': {'title': 'Result', 'type': 'integer'}}
>>> schema(dict[str, float])                                            # S8
{'additionalProperties': {'type': 'number'}, 'title': 'toolDictOutput', 'type': 'object'}
>>> schema(typing.Dict[int, str])["properties"]["result"]["type"]      # S9
'object'
>>> schema(typing.Optional[str])["properties"]["result"]["anyOf"]      # S10
[{'type': 'string'}, {'type': 'null'}]
>>> class Movie(typing.TypedDict):
...     title: str
>>> schema(Movie)                                                       # S11
{'properties': {'title': {'title': 'Title', 'type': 'string'}}, 'required': ['title'], ...'title': 'Movie', ...}
>>> @dataclasses.dataclass
... class Point:
...     x: float
>>> schema(Point)["properties"]                                         # S12
{'x': {'title': 'X', 'type': 'number'}}
>>> class Station:
...     def __init__(self): self.name = "a"
>>> schema(Station) is None                                             # S13
True

Contents, in the order data flows (a section per topic; the spec page each follows):

     1. Constants               revisions, error codes, _meta keys (basic/versioning, basic/index)
     2. Errors                  protocol errors and tool errors (JSON-RPC 2.0; server/tools, "Error Handling")
     3. Type introspection      reading annotations without importing typing or inspect
     4. Python values as JSON   the JSON a result becomes; the text the model reads
     5. JSON Schema generation  annotations to the SDK's schemas (server/tools: inputSchema, outputSchema)
     6. Validation              JSON Schema 2020-12 checkers, compiled once: strict, input and output modes
     7. Arguments               JSON arguments back into the parameters' Python types (server/tools)
     8. Content                 content blocks and results (server/tools, "Tool Result")
     9. Tools                   registration; the structured-output table (docs/servers/structured-output.md)
    10. Resources               resources and URI templates (server/resources, RFC 6570)
    11. Prompts and completion  prompts, completion (server/prompts, server/utilities/completion)
    12. Context                 logging, progress, cancellation, questions to the client
                                (server/utilities/logging, basic/utilities/progress, client/elicitation,
                                client/sampling, client/roots)
    13. Request state           the signed requestState of multi round-trip requests
                                (basic/patterns/mrtr)
    14. MCPServer               the public API of the SDK's MCPServer
    15. JSON-RPC dispatch       routing, per-revision fields (basic/lifecycle, server/tools,
                                server/utilities/pagination, server/utilities/caching)
    16. Tasks                   long-running calls: a task answers tools/call; get, result, cancel
                                (basic/utilities/tasks; the io.modelcontextprotocol/tasks extension)
    17. Connections             a connection's batches, calls in flight and their cancellation
                                (basic/utilities/cancellation)
    18. stdio                   wire encoding; the stdio transport (basic/transports)
    19. Streamable HTTP         one endpoint for both eras, a WSGI app (basic/transports)
    20. SSE streams             a response's messages, bounded; resumable streams and the event store
                                (basic/transports, "Resumability and Redelivery")
    21. HTTP access control     Host and Origin checks; bearer tokens; sessions bound to their user,
                                limits per client (basic/security_best_practices, basic/authorization)
    22. SDK fidelity            fenced from here on: pydantic's own types, smart union, error texts
    23. SDK fidelity            pydantic's lax mode, as the SDK validates: its conversion table
    24. SDK fidelity            pydantic's schema spellings: Field, $defs names, key order, formats;
                                its JSON mode (an Enum's value, a datetime's ISO text)
    25. SDK fidelity            the SDK's API: Resolve(...) parameters, ctx.session, its result, resource and
                                message classes
    26. SDK fidelity            the SDK's names a server imports (mcp.types), its own objects, MCPError as
                                it sends it, its constructor's keywords, FastMCP; hand-written schemas;
                                Image, Audio, ToolAnnotations; its event store's shape; its registration;
                                its extensions (SEP-2133) and MCP Apps (io.modelcontextprotocol/ui);
                                skills (io.modelcontextprotocol/skills) through the same interface
    27. SDK fidelity            lax validation: pydantic's checks of containers, in its order;
                                URI template matching: the SDK's matcher, in linear time
    28. Patterns                ECMA-262 regular expressions in linear time, for pattern and patternProperties
    29. A client                mcp_ref.Client over stdio or HTTP, every revision; callbacks
    30. A client                Streamable HTTP: POST, SSE, sessions, headers (basic/transports)
    31. A client                OAuth 2.1: discovery, registration, PKCE, tokens (basic/authorization)
    32. Command line            list, call, resources, read, prompts, prompt, serve
    33. Command line            the HTTP server of serve --http and run("streamable-http"): a standard-library
                                server for the WSGI app (RFC 9112 framing, limits per client)
    34. Accelerators            faster twins of rules above, chosen in one place (MCP_REF_PURE=1: off)

Run a server file with ``python mcp_ref.py serve server.py`` (over HTTP: add
``--http 127.0.0.1:8000``), or call ``server.run()`` (``run(transport=
"streamable-http")``) at the end of it.  ``python mcp_ref.py --help`` lists the
command line (a small client, over stdio or HTTP: ``list``, ``call``,
``resources``, ``read``, ``prompts``, ``prompt``, ``complete``, ``serve``).
"""

from __future__ import annotations

import functools  # loaded by json already
import contextvars  # a built-in module: nothing to load
import io  # loaded at startup (sys.stdout)
import itertools  # loaded by json already
import json
import os
import sys
import time  # a built-in module: nothing to load

if sys.version_info < (3, 9):  # else the first failure would be an obscure one, deep in typing
    _TOO_OLD = "mcp_ref needs Python 3.9 or newer, not %d.%d" % sys.version_info[:2]
    raise SystemExit(_TOO_OLD) if __name__ == "__main__" else ImportError(_TOO_OLD)  # one line, or a traceback

from bisect import bisect_right  # for the classes of patterns (section 28)
from operator import eq, length_hint
from types import MappingProxyType  # loaded by json already (re, enum)

# typing takes longer to import than the rest of this module; it is needed only
# where a user's annotation brings it (then it is loaded already) or is a string.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Deque, Dict, FrozenSet, Iterable, Iterator, List, Optional, Tuple, Union

__version__ = "0.1.0"

__all__ = (
    "MCPServer",
    "Field",
    "ToolError",
    "InvalidSignature",
    "ValidationError",
    "validate",
    "json_schema",
    "wsgi_app",
    "TextContent",
    "ImageContent",
    "AudioContent",
    "EmbeddedResource",
    "ResourceLink",
    "CallToolResult",
    "ToolAnnotations",
    "Image",
    "Audio",
    "Resource",
    "TextResource",
    "BinaryResource",
    "FileResource",
    "FunctionResource",
    "ResourceError",
    "ResourceNotFoundError",
    "Prompt",
    "EventStore",
    "EventMessage",
    "Message",
    "UserMessage",
    "AssistantMessage",
    "Completion",
    "PromptReference",
    "ResourceTemplateReference",
    "Context",
    "MCPError",
    "InputRequiredResult",
    "ElicitationResult",
    "AcceptedElicitation",
    "DeclinedElicitation",
    "CancelledElicitation",
    "Resolve",
    "Elicit",
    "Sample",
    "ListRoots",
    "TaskStore",
    "InMemoryTaskStore",
    "SqliteTaskStore",
    "Client",
    # The SDK's names a server file imports (section 25; most made when first imported)
    "FastMCP",
    "RequestStateSecurity",
    "ServerRequestContext",
    "PARSE_ERROR",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "INVALID_PARAMS",
    "INTERNAL_ERROR",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "URL_ELICITATION_REQUIRED",
    "CompletionArgument",
    "CompletionContext",
    "EmptyResult",
    "InputRequest",
    "CreateMessageRequest",
    "CreateMessageRequestParams",
    "CreateMessageResult",
    "SamplingMessage",
    "ElicitRequest",
    "ElicitRequestFormParams",
    "ElicitResult",
    "ListRootsRequest",
    "ListRootsResult",
    "Root",
    "SetLevelRequestParams",
    "CallToolRequestParams",
    "SubscribeRequestParams",
    "UnsubscribeRequestParams",
    "TextResourceContents",
    "BlobResourceContents",
    "EventCallback",
    "JSONRPCMessage",
    # Extensions (SEP-2133) and MCP Apps, as the SDK names them (section 26)
    "Extension",
    "ToolBinding",
    "ResourceBinding",
    "MethodBinding",
    "RequestParams",
    "validate_extension_identifier",
    "require_client_extension",
    "Apps",
    "ResourceCsp",
    "ResourcePermissions",
    "client_supports_apps",
    "Visibility",
    "CallNext",
    "HandlerResult",
    "EXTENSION_ID",
    "APP_MIME_TYPE",
    "Skills",
    "SKILLS_EXTENSION",
    # The client's OAuth 2.1 (section 31)
    "OAuthClientProvider",
    "OAuthFlowError",
)


# ---------------------------------------------------------------------------
# 1. Constants
# ---------------------------------------------------------------------------


#: Handshake-era revisions, oldest first (docs/specification/<v>/basic/lifecycle).
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
#: Stateless revisions: version and capabilities travel in every request's
#: ``_meta`` (docs/specification/2026-07-28/basic/versioning).
STATELESS_VERSIONS = ("2026-07-28",)
LATEST_HANDSHAKE_VERSION = HANDSHAKE_VERSIONS[-1]
_ALL_VERSIONS = HANDSHAKE_VERSIONS + STATELESS_VERSIONS

# JSON-RPC 2.0 error codes (JSON-RPC 2.0, section 5.1 "Error object", which
# basic/index adopts), and the MCP codes of 2026-07-28 basic/index.
PARSE_ERROR = -32700  # JSON-RPC 2.0 5.1: invalid JSON
INVALID_REQUEST = -32600  # JSON-RPC 2.0 5.1: not a valid Request object
METHOD_NOT_FOUND = -32601  # JSON-RPC 2.0 5.1
INVALID_PARAMS = -32602  # JSON-RPC 2.0 5.1; server/tools "Error Handling": an unknown tool
INTERNAL_ERROR = -32603  # JSON-RPC 2.0 5.1
UNSUPPORTED_PROTOCOL_VERSION = -32022  # 2026-07-28 basic/index (basic/versioning: the supported list in data)
RESOURCE_NOT_FOUND = -32002  # server/resources, "Error Handling", until 2025-11-25 (then -32602)

# Reserved ``_meta`` keys of the 2026-07-28 revision (basic/index, "_meta").
META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"

# Which revision introduced which optional field (the schema.ts of each).
# The dispatcher (section 15) gates every field through _has.
_SINCE = {
    "tool.annotations": "2025-03-26",
    "tool.title": "2025-06-18",
    "tool.outputSchema": "2025-06-18",
    "tool._meta": "2025-06-18",
    "tool.icons": "2025-11-25",
    "result.structuredContent": "2025-06-18",
    "content.audio": "2025-03-26",
    "content.resource_link": "2025-06-18",
    "impl.title": "2025-06-18",
    "impl.extra": "2025-11-25",
    "resource.title": "2025-06-18",  # resources and resource templates
    "resource._meta": "2025-06-18",
    "resource.icons": "2025-11-25",
    "contents._meta": "2025-06-18",
    "prompt.title": "2025-06-18",
    "prompt._meta": "2025-06-18",
    "prompt.icons": "2025-11-25",
    "annotations.lastModified": "2025-06-18",
    "capability.completions": "2025-03-26",  # completion/complete itself is in 2024-11-05 too
}
_ALL_RESULT_FIELDS_SINCE = max(_SINCE[f] for f in ("result.structuredContent", "content.audio",
                                                    "content.resource_link"))
_BATCH_VERSIONS = ("2025-03-26",)  # JSON-RPC batches: added in 2025-03-26, removed in 2025-06-18


def _has(version: str, feature: str) -> bool:
    """Whether the negotiated revision defines ``feature`` (dates compare as text)."""
    return version >= _SINCE[feature]


_MISSING: Any = type("_MissingType", (), {"__repr__": lambda self: "MISSING"})()  # no value given
_ABSENT: Any = object()  # a stand-in that is nothing a user could pass
_NoneType = type(None)


# ---------------------------------------------------------------------------
# 2. Errors
# ---------------------------------------------------------------------------
#
# Two kinds of failure, as server/tools ("Error Handling") separates them: a
# protocol error is a JSON-RPC error response (_RpcError, JSON-RPC 2.0 section
# 5.1), and a tool's own failure is a result with ``isError: true`` (ToolError,
# ValidationError), which the model reads.  A ValidationError's text is
# pydantic's report, through the hook _format_errors (section 22).

class InvalidSignature(TypeError):
    """A function cannot be registered as a tool; the message names it and why."""


class ToolError(Exception):
    """Raise in a tool to report a failure the model should read.

    The result is ``isError: true`` with the text
    ``Error executing tool NAME: message``.
    """


class _ErrorItem:
    """One failure: where (``loc``, a tuple of keys and indexes), what, of which kind."""

    __slots__ = ("loc", "msg", "kind", "value")

    def __init__(self, loc: Tuple[Any, ...], msg: str, kind: str, value: Any) -> None:
        self.loc, self.msg, self.kind, self.value = loc, msg, kind, value

    def __repr__(self) -> str:
        return f"_ErrorItem({self.path}, {self.msg!r}, {self.kind!r})"

    @property
    def path(self) -> str:
        """The JSON path of the failing value, ``$`` for the root."""
        return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in self.loc)


class ValidationError(ValueError):
    """A value does not conform to a schema.

    ``errors`` lists every failure with its ``loc`` (a tuple of keys and
    indexes), ``path`` (JSON path), ``msg`` and ``kind`` (the SDK's error
    type, such as ``missing`` or ``int_parsing``).  ``str()`` gives the text in
    the SDK's format (_format_errors, section 22), without help-page links.
    """

    def __init__(self, errors: List[_ErrorItem], title: str = "value") -> None:
        self.errors = errors
        self.title = title
        super().__init__(_format_errors(errors, title))


class _NotJSON(Exception):
    """A value that cannot be turned into JSON (bad bytes, a cycle, an unknown type)."""

    def __init__(self, msg: str, kind: str) -> None:
        super().__init__(msg)
        self.msg = msg
        self.kind = kind


class _Unsupported(Exception):
    """An annotation that has no JSON Schema (the SDK would refuse it too)."""


class _BuildError(Exception):
    """A JSON argument that its parameter's Python type refuses (section 7)."""

    def __init__(self, msg: str, kind: str, value: Any) -> None:
        super().__init__(msg)
        self.item = (msg, kind, value)


class _RpcError(Exception):
    """A JSON-RPC error response: ``code``, ``message`` and optional ``data``."""

    def __init__(self, code: int, message: str, data: Any = _MISSING) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data

    def to_wire(self) -> Dict[str, Any]:
        error: Dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not _MISSING:
            error["data"] = self.data
        return error


# ---------------------------------------------------------------------------
# 3. Type introspection
# ---------------------------------------------------------------------------
#
# A tool's schemas come from its signature (server/tools: inputSchema, and
# outputSchema from its return annotation, docs/servers/structured-output.md).
# These read annotations without importing typing or inspect (import stays cheap).

def _module(name: str) -> Any:
    """A module only if the program already imported it: a type from a module
    nobody imported cannot appear in an annotation, so we never import one."""
    return sys.modules.get(name)


def _typing(name: str) -> Any:
    """A name of typing, or a sentinel when typing is not loaded (and so no
    annotation can hold it)."""
    return getattr(sys.modules.get("typing"), name, _ABSENT)


def _is_any(tp: Any) -> bool:
    return tp is _typing("Any")


def _origin(tp: Any) -> Any:
    return getattr(tp, "__origin__", None)


def _args(tp: Any) -> Tuple[Any, ...]:
    return getattr(tp, "__args__", ()) or ()


def _is_annotated(tp: Any) -> bool:
    return hasattr(tp, "__metadata__") and _origin(tp) is not None


def _is_union(tp: Any) -> bool:
    if _origin(tp) is _typing("Union"):
        return True
    union_type = getattr(_module("types"), "UnionType", None)  # PEP 604, 3.10+
    return union_type is not None and isinstance(tp, union_type)


def _is_literal(tp: Any) -> bool:
    return _origin(tp) is _typing("Literal")


def _qualifier(tp: Any) -> Optional[str]:
    """``Required``/``NotRequired``/``ReadOnly`` from typing or typing_extensions."""
    origin = _origin(tp)
    name = getattr(origin, "_name", None) or getattr(tp, "_name", None)
    if origin is not None and name in ("Required", "NotRequired", "ReadOnly"):
        return str(name)
    return None


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__total__")


def _is_dataclass(tp: Any) -> bool:
    return isinstance(tp, type) and hasattr(tp, "__dataclass_fields__")


def _is_subclass(obj: Any, cls: type) -> bool:
    return isinstance(obj, type) and issubclass(obj, cls)


def _is_enum(tp: Any) -> bool:
    enum = _module("enum")
    return enum is not None and _is_subclass(tp, enum.Enum)


def _is_enum_member(value: Any) -> bool:
    enum = _module("enum")
    return enum is not None and isinstance(value, enum.Enum)


def _literal_values(tp: Any) -> List[Any]:
    values: List[Any] = []
    for arg in _args(tp):
        if _is_literal(arg):  # nested Literal flattens
            values.extend(_literal_values(arg))
        else:
            values.append(arg)
    return values


def _type_hints(obj: Any) -> Dict[str, Any]:
    """Resolved annotations (string annotations and forward references too).

    ``typing.get_type_hints`` does this; when nothing has imported typing and no
    annotation is a string, the annotations are already objects: read them."""
    if "typing" not in sys.modules:
        raw = _raw_annotations(obj)
        if not any(isinstance(v, str) for v in raw.values()):
            return {k: _NoneType if v is None else v for k, v in raw.items()}
    import typing

    try:
        return typing.get_type_hints(obj, include_extras=True)
    except Exception as exc:
        name = getattr(obj, "__qualname__", repr(obj))
        raise InvalidSignature(f"Unable to evaluate type annotations for {name!r}: {exc}") from exc


def _raw_annotations(obj: Any) -> Dict[str, Any]:
    if not isinstance(obj, type):
        return dict(getattr(obj, "__annotations__", None) or {})
    merged: Dict[str, Any] = {}
    for base in reversed(obj.__mro__):  # as get_type_hints: later classes win
        merged.update(base.__dict__.get("__annotations__", {}))
    return merged


def _dataclass_missing() -> Any:
    return _module("dataclasses").MISSING  # loaded: a dataclass exists


_DATACLASS_NAMES: Dict[type, Tuple[str, ...]] = {}


def _dataclass_names(cls: type) -> Tuple[str, ...]:
    """A dataclass's field names (not its ClassVar or InitVar pseudo-fields), once per class."""
    names = _DATACLASS_NAMES.get(cls)
    if names is None:
        names = tuple(f.name for f in cls.__dataclass_fields__.values()  # type: ignore[attr-defined]
                      if str(getattr(f, "_field_type", "_FIELD")) == "_FIELD")
        _DATACLASS_NAMES[cls] = names
    return names


# ---------------------------------------------------------------------------
# 4. Python values as JSON
# ---------------------------------------------------------------------------
#
# Python values as JSON data (RFC 8259), for results, defaults and the ``{}``
# (Any) schema; and JSON data as the indented text the model reads.  What the
# SDK makes of a value of another type (a dataclass, a datetime, an Enum
# member) is its JSON mode's, one level at a time: the hook _native (section 24).


def _is_finite(number: Any) -> bool:
    """False for NaN and the infinities, which JSON cannot carry (RFC 8259):
    for them ``x - x`` is NaN; for every other int or float it is 0."""
    return bool(number - number == 0)


_NATIVE: frozenset[type] = frozenset((str, int, float, bool, _NoneType, list, dict))


def _dataclass_dict(value: Any) -> Dict[str, Any]:
    """A dataclass instance's fields, one level deep."""
    return {name: getattr(value, name) for name in _dataclass_names(type(value))}


def _jsonable(value: Any, depth: int = 0, seen: Optional[set[int]] = None) -> Any:
    """Any Python value, deeply, as JSON data; for the ``{}`` (Any) schema and defaults."""
    value = _native(value)  # fidelity hook: one level, as the SDK's JSON mode writes it (section 24)
    tp = type(value)
    if tp is float and not _is_finite(value):
        raise _NotJSON("Input should be a finite number", "finite_number")
    if tp in (str, int, float, bool, _NoneType):
        return value
    if depth > 500:
        raise _NotJSON("Value is nested too deeply", "recursion_loop")
    seen = set() if seen is None else seen
    if id(value) in seen:
        raise _NotJSON("Recursion error - cyclic reference detected", "recursion_loop")
    if tp is list:
        seen.add(id(value))
        out: Any = [_jsonable(v, depth + 1, seen) for v in value]
    elif tp is dict:
        seen.add(id(value))
        out = {_key(k): _jsonable(v, depth + 1, seen) for k, v in value.items()}
    else:
        raise _NotJSON(f"Unable to serialize unknown type: {type(value).__name__}", "serialization")
    seen.discard(id(value))
    return out


def _key(key: Any) -> str:
    """An object's member name: a string (RFC 8259 §4); a number's key its JSON text."""
    key = _native(key)
    if isinstance(key, str):
        return key
    if isinstance(key, (int, float, bool)) or key is None:
        return json.dumps(key)
    raise _NotJSON(f"Unable to serialize dictionary key of type {type(key).__name__}", "serialization")


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object"


def _json_equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true != 1, recursively."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _pretty(value: Any) -> str:
    """JSON data as the text the model reads: ``json.dumps(value, indent=2,
    ensure_ascii=False)``, which is what the SDK's ``to_json(value, indent=2)``
    writes (docs/servers/structured-output.md, "content").  Twin: _fast_pretty, section 34."""
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError:
        raise _NotJSON("Input should be a finite number", "finite_number") from None


# ---------------------------------------------------------------------------
# 5. JSON Schema generation
# ---------------------------------------------------------------------------


class _SchemaBuilder:
    """Turns annotations into the SDK's JSON Schema, collecting ``$defs``.

    One method per annotation family, in the order of the module docstring's table.
    """

    def __init__(self) -> None:
        self.defs: Dict[str, Dict[str, Any]] = {}
        self.class_kinds: Dict[str, str] = {}  # title -> "dataclass", "typeddict", "model", "enum", "int_enum", ...
        self._names: Dict[Any, str] = {}  # class -> its name in $defs

    # -- entry points -------------------------------------------------------

    def schema(self, tp: Any) -> Dict[str, Any]:
        """The schema of one annotation, as the SDK's GenerateJsonSchema makes it;
        classes go to ``$defs`` and are referenced.  Raises _Unsupported."""
        if isinstance(tp, str):
            raise _Unsupported(f"unresolved forward reference {tp!r}")
        if type(tp) is _typing("ForwardRef"):
            raise _Unsupported(f"unresolved forward reference {tp.__forward_arg__!r}")
        if _is_annotated(tp):
            return self.annotated(tp)
        if tp is object or _is_any(tp):
            return {}
        if tp is None or tp is _NoneType:
            return {"type": "null"}
        scalar = self.scalar(tp)
        if scalar is not None:
            return scalar
        if _is_literal(tp):
            return self.literal(tp)
        if _is_union(tp):
            return self.union(tp)
        if _origin(tp) is not None or tp in (list, tuple, set, frozenset, dict):
            return self.container(tp)
        supertype = getattr(tp, "__supertype__", None)  # typing.NewType
        if supertype is not None:
            return self.schema(supertype)
        if type(tp) is _typing("TypeVar"):
            return {}
        if isinstance(tp, type):
            return self.ref(tp)
        raise _Unsupported(f"cannot describe {tp!r} as JSON Schema")

    def field_schema(self, tp: Any, name: str, default: Any = _MISSING, own: Optional[Field] = None) -> Dict[str, Any]:
        """A field's schema: the type's, with the annotations "title" and "default"
        (Validation 2020-12 §9.1, §9.2) and its Fields' keywords as the SDK adds
        them (_field_annotations, section 24)."""
        later: List[Field] = []  # its Annotated Fields' json_schema_extra, applied with the default there
        schema = self.annotated(tp, later) if _is_annotated(tp) else self.schema(tp)
        fields = [(f, False) for f in later] + ([] if own is None else [(own, True)])
        return _field_annotations(schema, name, default, fields)

    # -- one method per annotation family ---------------------------------------

    def annotated(self, tp: Any, later: Optional[List[Field]] = None) -> Dict[str, Any]:
        """``later``: a field's, to which its Fields' json_schema_extra are left."""
        inner = tp.__origin__
        metadata = tp.__metadata__
        if any(_is_pydantic_field(m) or type(m).__module__.startswith("annotated_types") for m in metadata):
            return _pydantic_schema(self, tp)  # the user's pydantic describes its own (section 22)
        schema = self.schema(inner)
        for meta in metadata:
            if isinstance(meta, Field):
                # The SDK writes title, description and examples beside a
                # $ref (2020-12 allows siblings); only constraints need allOf.
                if "$ref" in schema and meta.constraints:
                    schema = {"allOf": [schema]}
                meta.apply(schema, extra=later is None)
                if later is not None:
                    later.append(meta)
        return schema

    def scalar(self, tp: Any) -> Optional[Dict[str, Any]]:
        if tp is str:
            return {"type": "string"}
        if tp is bool:
            return {"type": "boolean"}
        if tp is int:
            return {"type": "integer"}
        if tp is float:
            return {"type": "number"}
        if tp is bytes:
            return {"format": "binary", "type": "string"}
        if not isinstance(tp, type):
            return None
        return _stdlib_scalar_schema(tp)  # fidelity hook: a date, a UUID, a Decimal (section 24)

    def literal(self, tp: Any) -> Dict[str, Any]:
        values = [v.value if _is_enum_member(v) else v for v in _literal_values(tp)]
        schema: Dict[str, Any] = {"const": values[0]} if len(values) == 1 else {"enum": values}
        kinds = {_json_type(v) for v in values}
        if len(kinds) == 1:
            schema["type"] = kinds.pop()
        return schema

    def union(self, tp: Any) -> Dict[str, Any]:
        """A value of any arm: anyOf (Core 2020-12 §10.2.1.2), the arms' schemas,
        spelled as the SDK spells it (_union_schema, section 24)."""
        return _union_schema(self, [self.schema(a) for a in _args(tp) if a is not _NoneType], _NoneType in _args(tp))

    def container(self, tp: Any) -> Dict[str, Any]:
        origin = _origin(tp) or tp
        args = _args(tp)
        abc = _module("collections.abc")
        if origin is tuple:  # an array, item by item (prefixItems, Core 2020-12 §10.3.1.1)
            return _ContainerSchema(_tuple_schema(self, tp, args), "tuple")  # the SDK's spelling: section 24
        if origin in (set, frozenset) or (abc and origin in (abc.Set, abc.MutableSet)):
            items = self.schema(args[0]) if args else {}
            schema = _ContainerSchema({"items": items, "type": "array", "uniqueItems": True},
                                      "frozenset" if origin is frozenset else "set")
            # The SDK puts each item in a Python set: one it builds as a dict, a
            # list or an unfrozen dataclass is refused (set_item_not_hashable).
            return _TypedSchema(schema, tp) if args and _may_be_unhashable(args[0]) else schema
        if origin is list or (abc and origin in (abc.Sequence, abc.MutableSequence, abc.Iterable, abc.Collection)):
            return _ContainerSchema({"items": self.schema(args[0]) if args else {}, "type": "array"},
                                    "sequence" if abc and origin is abc.Sequence else "list")
        if origin is dict or (abc and origin in (abc.Mapping, abc.MutableMapping)) or _is_subclass(origin, dict):
            # An object whose values all have the values' schema (additionalProperties,
            # Core 2020-12 §10.3.2.3); the SDK's spelling of its keys: section 24.
            return _dict_schema(self, tp, args)
        raise _Unsupported(f"cannot describe {tp!r} as JSON Schema")

    def ref(self, cls: type) -> Dict[str, Any]:
        """Enums, dataclasses, TypedDicts, annotated classes and BaseModels (S11) live
        in ``$defs`` and are referenced, as the SDK does."""
        if _is_pydantic_model(cls):
            return _pydantic_schema(self, cls)  # S11, a BaseModel: pydantic's own schema (section 22)
        name = self._names.get(cls)
        if name is None:
            name = _def_name(self, cls)  # fidelity hook: the SDK's $defs names (section 24)
            self._names[cls] = name  # before building: a recursive class refers to itself
            try:
                if _is_enum(cls):
                    definition = _enum_schema(cls)  # its values' enum (Validation 2020-12 §6.1.2), section 24
                elif _is_typeddict(cls):
                    definition = self.typeddict(cls)
                elif _is_dataclass(cls):
                    definition = self.dataclass(cls)
                else:
                    definition = self.annotated_class(cls)
                self.class_kinds[cls.__name__] = _class_kind(cls)  # fidelity hook: its errors' words (section 27)
            except BaseException:
                del self._names[cls]
                raise
            self.defs[name] = definition
        return {"$ref": f"#/$defs/{name}"}

    def _object(self, cls: type, fields: List[Tuple[str, Any, Any, bool]], doc: Optional[str]) -> Dict[str, Any]:
        properties = {}
        required = []
        for name, tp, default, is_required in fields:
            is_required = is_required or isinstance(default, Field) or _is_pydantic_field(default)
            tp, default, own, has_default = _field_parts(tp, default)
            properties[name] = self.field_schema(tp, name, default, own)
            if is_required and not has_default:
                required.append(name)
        schema: Dict[str, Any] = {}
        if doc:
            schema["description"] = _cleandoc(doc)
        schema["properties"] = properties
        if required:
            schema["required"] = required
        schema["title"] = cls.__name__
        schema["type"] = "object"
        return schema

    def typeddict(self, cls: type) -> Dict[str, Any]:
        hints = _type_hints(cls)
        required_keys = getattr(cls, "__required_keys__", set(hints) if cls.__total__ else set())  # type: ignore[attr-defined]
        fields = []
        for name, tp in hints.items():
            required = name in required_keys
            while True:  # Required/NotRequired/ReadOnly, in either order
                qualifier = _qualifier(tp)
                if qualifier is None:
                    break
                if qualifier != "ReadOnly":
                    required = qualifier == "Required"
                tp = _args(tp)[0]
            fields.append((name, tp, _MISSING, required))
        return self._object(cls, fields, cls.__doc__)

    def dataclass(self, cls: type) -> Dict[str, Any]:
        hints = _type_hints(cls)
        names = _dataclass_names(cls)  # not the ClassVar and InitVar pseudo-fields
        fields = []
        factories = {}
        for f in cls.__dataclass_fields__.values():  # type: ignore[attr-defined]
            if f.name not in names:
                continue
            default = f.default
            has_factory = f.default_factory is not _dataclass_missing()
            default = _MISSING if default is _dataclass_missing() else default
            fields.append((f.name, hints.get(f.name, object), default, default is _MISSING and not has_factory))
            if has_factory:
                factories[f.name] = f.default_factory
        # Fidelity hooks: not dataclass()'s docstring (section 27); factories run in results (section 24).
        return _with_factories(self._object(cls, fields, _dataclass_doc(cls)), factories)

    def annotated_class(self, cls: type) -> Dict[str, Any]:
        """A plain class with annotated attributes, read like the SDK's
        ``_create_model_from_class``: a class-level value is the default."""
        hints = {k: v for k, v in _type_hints(cls).items() if not k.startswith("_")}
        class_var = _typing("ClassVar")
        hints = {k: v for k, v in hints.items() if _origin(v) is not class_var and v is not class_var}
        if not hints:
            raise _Unsupported(f"{cls!r} has no annotated attributes")
        fields = []
        for name, tp in hints.items():
            default = _class_value(cls, name)  # section 24
            fields.append((name, tp, default, default is _MISSING))
        return self._object(cls, fields, None)

    # -- roots --------------------------------------------------------------

    def root(self, tp: Any, inline_recursive: bool = True) -> Dict[str, Any]:
        """A complete schema.  A root class is inlined, as the SDK does; a
        recursive one stays a bare ``$ref`` in its generator, and SDK 2.3 inlines it
        (``_inline_root_ref``) because ``outputSchema`` needs an object root."""
        return self.finish(self.schema(tp), inline_recursive)

    def finish(self, schema: Dict[str, Any], inline_recursive: bool = True) -> Dict[str, Any]:
        """The root schema with the definitions it refers to under ``$defs``
        (Core 2020-12 §8.2.4), finished as the SDK publishes it: names made
        unique, a root class inlined, keys sorted (_finished_schema, section 24)."""
        return _finished_schema(self, schema, inline_recursive)


def json_schema(annotation: Any) -> Dict[str, Any]:
    """The JSON Schema of an annotation, as the SDK publishes it
    (``TypeAdapter(annotation).json_schema()``).

    >>> from typing import List, Optional
    >>> json_schema(Optional[List[int]])
    {'anyOf': [{'items': {'type': 'integer'}, 'type': 'array'}, {'type': 'null'}]}
    """
    builder = _SchemaBuilder()
    try:
        return builder.root(annotation, inline_recursive=False)
    except _Unsupported as exc:
        raise TypeError(str(exc)) from None


# ---------------------------------------------------------------------------
# 6. Validation
# ---------------------------------------------------------------------------
#
# A schema is compiled once into a checker: ``check(value, loc, errors)``
# returns the value (converted, in the lax modes) and appends an _ErrorItem per
# failure.  Three modes:
#   strict  JSON Schema 2020-12 as written: ``validate()``.
#   input   tool arguments (MUST, server/tools "Security Considerations":
#           servers validate all tool inputs), with the SDK's leniencies (its
#           lax mode, section 23):
#           "17" and 17.0 for integers, "true" for booleans, extra keys dropped;
#           a type JSON Schema cannot name (a date, a Decimal, dict[int, T]'s
#           keys) converted through its annotation (_LAX_TABLE, section 23).
#   output  tool results: the same, plus Python values turned into JSON
#           (dataclasses, objects read by attribute, datetime, UUID, Enum, ...)
#           and absent fields filled with their published defaults.

if TYPE_CHECKING:
    _Checker = Callable[[Any, Tuple[Any, ...], List[_ErrorItem]], Any]


# Keywords that only annotate: a schema of "type" and these is a bare type.
_ANNOTATION_KEYS = frozenset(("type", "title", "description", "default", "examples", "format", "$comment"))
_COMPILED: Dict[int, Tuple[Any, _Checker]] = {}


def validate(instance: Any, schema: Any) -> None:
    """Check a JSON value against a JSON Schema (draft 2020-12, the keywords tool
    schemas use; ``format`` and other annotations have no effect).

    Raises ``ValidationError`` listing every failure.  Each schema object is
    compiled once and the checker reused while the object lives.

    >>> validate({"n": 3}, {"type": "object", "properties": {"n": {"type": "integer", "minimum": 5}}})
    Traceback (most recent call last):
    ...
    mcp_ref.ValidationError: 1 validation error for value
    n
      Input should be greater than or equal to 5 [type=greater_than_equal, input_value=3, input_type=int]
    """
    entry = _COMPILED.get(id(schema))
    if entry is None or entry[0] is not schema:
        if len(_COMPILED) > 256:
            _COMPILED.clear()
        entry = (schema, _checker(schema))
        _COMPILED[id(schema)] = entry
    errors: List[_ErrorItem] = []
    try:
        entry[1](instance, (), errors)
    except RecursionError:
        errors.append(_ErrorItem((), "Value or schema is nested too deeply (or recursive)", "recursion_loop", instance))
    if errors:
        raise ValidationError(errors)


def _checker(schema: Any, mode: str = "strict", class_kinds: Optional[Dict[str, str]] = None) -> _Checker:
    """The checker of a root schema in one of the three modes."""
    return _COMPILER(schema, mode, class_kinds).compile(schema)


# Twin: _FastCompiler, section 34 (_COMPILER below picks one).
class _Compiler:
    """Compiles one root schema (and the ``$ref`` targets inside it) into
    checkers, as above.  Each keyword family has its method, in the order
    ``compile`` runs them; the lax modes' refinements are hooks (section 27)."""

    def __init__(self, root: Any, mode: str, class_kinds: Optional[Dict[str, str]] = None) -> None:
        self.root = root
        self.mode = mode
        # "arms": strict, as a lax union tries its arms first (see _any_of)
        self.lax = mode not in ("strict", "arms")
        self.output = mode == "output"
        # Which Python family each object title came from, for the SDK's wording
        # of type errors ("a dictionary or an instance of Point").
        self.class_kinds = class_kinds or {}
        self._by_pointer: Dict[str, _Checker] = {}
        self._recursive: set[str] = set()  # $refs met again while being compiled

    def compile(self, schema: Any, is_def: bool = False) -> _Checker:
        """The checker of one (sub)schema: its ``type`` first (a type error stops
        there, as the SDK reports one error per value), then each keyword."""
        if schema is True or schema == {}:  # fidelity hook: the lax modes make a Python value JSON (section 27)
            return _lax_anything if self.lax else self._anything
        if schema is False:
            return self._nothing
        if not isinstance(schema, dict):
            raise TypeError(f"a schema must be an object or a boolean, not {type(schema).__name__}")
        if self.lax and type(schema) is _TypedSchema:  # fidelity hook: a type JSON Schema cannot name (section 23)
            return _lax_typed(self, schema)
        if self.mode == "arms" and _python_only(self, schema):  # fidelity hook: the smart union (section 22)
            return self._nothing  # no JSON value is an instance of the class, as the SDK's strict mode sees it
        if self.lax and type(schema) is _UnionSchema:
            schema = dict(schema, anyOf=schema.members)
        steps: List[_Checker] = []
        if "$ref" in schema:
            # In 2020-12, $ref applies beside its sibling keywords, "type" included.
            if not (set(schema) - _ANNOTATION_KEYS) - {"$ref"} and "type" not in schema:
                return self._ref(schema["$ref"])  # nothing else to check: no wrapper around it
            steps.append(self._ref(schema["$ref"]))
        type_step = self._type(schema)
        for keyword_steps in (
            self._enum_const(schema, is_def),
            self._numeric(schema),
            self._string(schema),
            self._array(schema),
            self._object(schema),
            self._combinators(schema),
        ):
            steps.extend(keyword_steps)
        if type_step is None and not steps:
            return _lax_anything if self.lax else self._anything
        return self._steps_in_order(schema, type_step, steps)

    def _steps_in_order(self, schema: Dict[str, Any], type_step: Optional[Callable[..., Any]],
                  steps: List[_Checker]) -> _Checker:
        """The type step, then the keyword steps, as one checker: a value is valid
        when every keyword's assertion holds (Core 2020-12 §7.6).  The lax modes
        first turn a Python value into JSON: the hook _lax_steps (section 23)."""
        if self.lax:  # fidelity hook: a dataclass, a datetime, an Enum member made JSON (section 23)
            return _lax_steps(schema, type_step, steps)

        def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
            sent = value
            if type_step is not None:
                before = len(errors)
                value = type_step(value, loc, errors)
                if len(errors) > before:
                    return value  # the other keywords would only repeat the type error
            before = len(errors)
            for step in steps:
                value = step(value, loc, errors)
            if value is not sent and len(errors) > before:
                _show_as_sent(errors, before, value, sent)
            return value

        return check

    @staticmethod
    def _anything(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
        return value

    @staticmethod
    def _nothing(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
        errors.append(_ErrorItem(loc, "No value is allowed here (false schema)", "false_schema", value))
        return value

    # -- $ref ---------------------------------------------------------------

    def _ref(self, ref: str) -> _Checker:
        if not ref.startswith("#"):
            raise ValueError(f"only local $ref is supported, not {ref!r}")
        compiled = self._by_pointer.get(ref)
        if compiled is not None:
            self._recursive.add(ref)  # (or merely reused; either way the indirection stays)
            return compiled
        cell: List[_Checker] = []

        def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
            return cell[0](value, loc, errors)

        self._by_pointer[ref] = check  # registered before compiling: a recursive schema meets it again
        cell.append(self.compile(self._resolve(ref), is_def=ref.startswith("#/$defs/")))
        if ref in self._recursive:
            return check
        self._by_pointer[ref] = cell[0]  # not recursive: later uses call the checker itself
        return cell[0]

    def _resolve(self, ref: str) -> Any:
        target = self.root
        pointer = ref[1:]
        if "%" in pointer:  # a URI fragment may percent-encode its characters
            from urllib.parse import unquote

            pointer = unquote(pointer)
        for token in pointer.split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(target, list):
                target = target[int(token)]
            elif isinstance(target, dict) and token in target:
                target = target[token]
            else:
                raise ValueError(f"$ref {ref!r} points at nothing")
        return target

    # -- type ---------------------------------------------------------------

    def _type(self, schema: Dict[str, Any]) -> Optional[Callable[..., Any]]:
        """type (Validation 2020-12 §6.1.1): the value is of one of the listed
        JSON types, and "integer" matches "any number with a zero fractional
        part" (1.0).  The lax modes convert what the SDK takes instead: the
        hook _lax_type (section 23)."""
        declared = schema.get("type")
        if declared is None:
            return None
        types = [declared] if isinstance(declared, str) else list(declared)
        if self.lax:  # fidelity hook: "17" and 17.0 for an integer (section 23)
            return _lax_type(self, schema, types)
        # The error's words are pydantic's (_type_error, section 22).
        msg, kind = _type_error(types[0], *_type_words(self, schema)) if len(types) == 1 else (
            f"Input should be of type {' or '.join(types)}", "type")
        arms = self.mode == "arms"  # the smart union's strict int (_Union, section 22) takes no 2.0

        def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
            for t in types:
                if _is_json_type(value, t) and not (arms and t == "integer" and type(value) is float):
                    return value
            errors.append(_ErrorItem(loc, msg, kind, value))
            return value

        return check

    # -- enum and const ------------------------------------------------------

    def _enum_const(self, schema: Dict[str, Any], is_def: bool) -> List[_Checker]:
        """const and enum (Validation 2020-12 §6.1.2-3): the value equals an
        allowed one.  The lax modes take what the SDK's Literal and Enum take:
        the hook _lax_allowed (section 27)."""
        steps: List[_Checker] = []
        kind = "enum" if is_def else "literal_error"  # an Enum class, or a Literal
        for keyword in ("const", "enum"):
            if keyword not in schema:
                continue
            allowed = [schema["const"]] if keyword == "const" else list(schema["enum"])
            if self.lax:  # fidelity hook: 2.0 is Literal[1, 2]'s 2, "1" an IntEnum's 1 (section 27)
                steps.append(_lax_allowed(self, schema, is_def, allowed, kind))
                continue

            def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem], allowed: List[Any] = allowed) -> Any:
                for candidate in allowed:
                    if _json_equal(value, candidate):
                        return value
                errors.append(_ErrorItem(loc, f"Input should be {_one_of_text(allowed)}", kind, value))
                return value

            steps.append(check)
        return steps

    # -- numbers -------------------------------------------------------------

    def _numeric(self, schema: Dict[str, Any]) -> List[_Checker]:
        bounds = [
            (k, schema[k], kind, text)
            for k, kind, text in (
                ("minimum", "greater_than_equal", "greater than or equal to"),
                ("exclusiveMinimum", "greater_than", "greater than"),
                ("maximum", "less_than_equal", "less than or equal to"),
                ("exclusiveMaximum", "less_than", "less than"),
            )
            if k in schema
        ]
        multiple = schema.get("multipleOf")
        if not bounds and multiple is None:
            return []
        ops: Dict[str, Callable[[Any, Any], bool]] = {
            "minimum": lambda v, b: v >= b, "exclusiveMinimum": lambda v, b: v > b,
            "maximum": lambda v, b: v <= b, "exclusiveMaximum": lambda v, b: v < b,
        }
        checks = [(ops[k], bound, kind, text) for k, bound, kind, text in bounds]
        if self.lax:  # fidelity hook: the SDK stops at the first failure, in its order (section 22)
            return [_first_bound_failure(checks, multiple)]

        def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                return value
            for op, bound, kind, text in checks:
                if not op(value, bound):
                    errors.append(_ErrorItem(loc, f"Input should be {text} {_number_text(bound)}", kind, value))
            if multiple is not None and not _is_multiple(value, multiple):
                errors.append(_ErrorItem(loc, f"Input should be a multiple of {_number_text(multiple)}",
                                         "multiple_of", value))
            return value

        return [check]

    # -- strings -------------------------------------------------------------

    def _string(self, schema: Dict[str, Any]) -> List[_Checker]:
        """minLength, maxLength and pattern (ECMA-262, searched, not anchored;
        Validation 2020-12 §6.3).  The lax modes stop at the first length error:
        the hook _lax_string (section 27)."""
        low, high, pattern = schema.get("minLength"), schema.get("maxLength"), schema.get("pattern")
        if low is None and high is None and pattern is None:
            return []
        search = None if pattern is None else _compile_pattern(pattern)  # section 28
        if self.lax:  # fidelity hook: the first length error only, and then no pattern (section 27)
            return [_lax_string(low, high, pattern, search)]

        def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
            if not isinstance(value, str):
                return value
            _check_size(len(value), low, high, "String", "character", False, loc, value, errors,
                        ("string_too_short", "string_too_long"))
            if search is not None and not search(value):
                errors.append(_ErrorItem(loc, f"String should match pattern '{pattern}'", "string_pattern_mismatch",
                                         value))
            return value

        return [check]

    def _array(self, schema: Dict[str, Any]) -> List[_Checker]:
        """prefixItems and items, then uniqueItems, minItems/maxItems and contains
        (Core 2020-12 §10.3.1, Validation 2020-12 §6.4).  The lax modes keep one
        of each item of a set and report a short tuple's members: the hook
        _lax_array (section 27)."""
        prefix = [self.compile(s) for s in schema.get("prefixItems", ())]
        items = self.compile(schema["items"]) if "items" in schema else None
        contains = self.compile(schema["contains"]) if "contains" in schema else None
        low, high = schema.get("minItems"), schema.get("maxItems")
        unique = schema.get("uniqueItems") is True
        if not (prefix or items or contains or low is not None or high is not None or unique):
            return []
        noun = _array_noun(schema, bool(prefix), unique)  # fidelity hook: its errors' words (section 27)
        each = self._each_item(items) if items is not None and not prefix else None
        if self.lax:  # fidelity hook: a set keeps one of each, a tuple's members reported (section 27)
            return [_lax_array(schema, noun, prefix, items, each, contains, self.output)]

        def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
            if not isinstance(value, list):
                return value
            out = value
            if each is not None:  # the usual array: one schema for every item
                out = each(value, loc, errors)
            elif prefix or items is not None:
                subs = prefix + [items] * (len(value) - len(prefix)) if items is not None else prefix
                out = [sub(item, loc + (i,), errors) for i, (sub, item) in enumerate(zip(subs, value))]
                out += value[len(out):]
            if unique and not _all_unique(out):
                errors.append(_ErrorItem(loc, f"{noun} should have unique items", "unique_items", value))
            _check_size(len(out), low, high, noun, "item", True, loc, value, errors)
            if contains is not None:
                _check_contains(schema, contains, out, loc, value, errors)
            return out

        return [check]

    def _each_item(self, items: _Checker) -> Callable[[List[Any], Tuple[Any, ...], List[_ErrorItem]], List[Any]]:
        """The checked items of an array with one schema for all of them."""
        def each(value: List[Any], loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> List[Any]:
            return [items(item, loc + (i,), errors) for i, item in enumerate(value)]

        return each

    # -- objects -------------------------------------------------------------

    def _object(self, schema: Dict[str, Any]) -> List[_Checker]:
        """properties, patternProperties, additionalProperties and propertyNames
        key by key; then required, minProperties/maxProperties, dependentRequired
        (Validation 2020-12 §6.5).  The lax modes fill defaults and report as
        pydantic does: the hook _lax_object (section 27)."""
        properties = {k: self.compile(s) for k, s in (schema.get("properties") or {}).items()}
        required = list(schema.get("required", ()))
        members = self._members(schema, properties)
        if self.lax:  # fidelity hook: defaults filled, errors in the model's field order (section 27)
            return _lax_object(self, schema, properties, required, members)
        low, high = schema.get("minProperties"), schema.get("maxProperties")
        dependent = schema.get("dependentRequired") or {}
        if members is None and not (required or low is not None or high is not None or dependent):
            return []

        def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
            if not isinstance(value, dict):
                return value
            out = value if members is None else members(value, loc, errors)
            for key in required:
                if key not in value:
                    errors.append(_ErrorItem(loc + (key,), "Field required", "missing", value))
            _check_size(len(value), low, high, "Dictionary", "item", True, loc, value, errors)
            if dependent:
                _check_dependent(dependent, value, loc, errors)
            return out

        return [check]

    def _object_step(self, schema: Dict[str, Any], properties: Dict[str, _Checker], required: List[str],
                     defaults: Dict[str, Any], general: _Checker) -> _Checker:
        """The step for an object of declared properties only (what the schema
        builder makes): ``general`` here; the accelerators replace it."""
        return general

    def _members(self, schema: Dict[str, Any], properties: Dict[str, _Checker]) -> Optional[_Checker]:
        """Checks each member by the keywords that name or match its key:
        properties, patternProperties, additionalProperties and propertyNames
        (Core 2020-12 §10.3.2.1-4); a new dict of the members kept (None: no such
        keyword).  The lax modes drop or convert keys as the SDK: _lax_members."""
        extra = schema.get("additionalProperties", _MISSING)
        extra_check = None if extra is _MISSING else self.compile(extra)
        patterns = [(_compile_pattern(p), self.compile(s)) for p, s in (schema.get("patternProperties") or {}).items()]
        names = self.compile(schema["propertyNames"]) if "propertyNames" in schema else None
        if not (properties or extra_check or patterns or names):
            return None
        if self.lax:  # fidelity hook: extra keys dropped, keys made strings (section 23)
            return _lax_members(schema, properties, extra, extra_check, patterns, names, self.class_kinds)

        def members(value: Dict[Any, Any], loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Dict[str, Any]:
            out: Dict[str, Any] = {}
            for key, item in value.items():
                sub = properties.get(key)
                matched = sub is not None
                if sub is not None:
                    item = sub(item, loc + (key,), errors)
                for search, pattern_check in patterns:
                    if search(key):
                        matched = True
                        item = pattern_check(item, loc + (key,), errors)
                if not matched:
                    if extra is False:
                        errors.append(_ErrorItem(loc + (key,), "Extra inputs are not permitted", "extra_forbidden",
                                                 item))
                        continue
                    if extra_check is not None:
                        item = extra_check(item, loc + (key,), errors)
                if names is not None:
                    names(key, loc + (key,), errors)
                out[key] = item
            return out

        return members


    def _combinators(self, schema: Dict[str, Any]) -> List[_Checker]:
        steps: List[_Checker] = []
        if "allOf" in schema:
            parts = [self.compile(s) for s in schema["allOf"]]

            def all_of(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
                for part in parts:
                    value = part(value, loc, errors)
                return value

            steps.append(all_of)
        if "anyOf" in schema:
            steps.append(self._any_of([self.compile(s) for s in schema["anyOf"]], schema["anyOf"]))
        if "oneOf" in schema:
            arms = [self.compile(s) for s in schema["oneOf"]]

            def one_of(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
                passing = [arm for arm in arms if _passes(arm, value, loc)]
                if len(passing) == 1:
                    return passing[0](value, loc, [])
                msg = "Input should match exactly one schema" + (f", but matches {len(passing)}" if passing else "")
                errors.append(_ErrorItem(loc, msg, "one_of", value))
                return value

            steps.append(one_of)
        if "not" in schema:
            negated = self.compile(schema["not"])

            def not_(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
                if _passes(negated, value, loc):
                    errors.append(_ErrorItem(loc, "Input should not match the 'not' schema", "not", value))
                return value

            steps.append(not_)
        if "if" in schema:
            condition = self.compile(schema["if"])
            then = self.compile(schema["then"]) if "then" in schema else None
            otherwise = self.compile(schema["else"]) if "else" in schema else None

            def if_then_else(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
                branch = then if _passes(condition, value, loc) else otherwise
                return branch(value, loc, errors) if branch is not None else value

            steps.append(if_then_else)
        return steps

    def _any_of(self, arms: List[_Checker], schemas: List[Any]) -> _Checker:
        union = _Union(self, arms, schemas)
        if self.lax:  # fidelity hook: the smart union (_Union, section 22) picks the arm (section 27)
            return _lax_any_of(union)

        def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
            for arm in union.strict:
                if _passes(arm, value, loc):
                    return value
            return union.first_or_errors(value, loc, errors)

        return check


_COMPILER = _Compiler  # or _FastCompiler: see _use_accelerators


def _is_multiple(value: Any, multiple: Any) -> bool:
    """multipleOf in exact arithmetic: "division by this keyword's value results
    in an integer" (JSON Schema validation 6.2.1), with each number taken as the
    decimal its JSON text denotes (a float's shortest repr), never through a
    rounded float quotient: 1e20 is no multiple of 3, 1e308 is one of 1e-308."""
    if type(value) is int and type(multiple) is int and multiple:  # the common case, and exact
        return bool(value % multiple == 0)
    if type(value) is float and value.is_integer() and abs(value) < 2.0 ** 53 and type(multiple) is int and multiple:
        return int(value) % multiple == 0  # an integral float this small is its integer, exactly
    a, b = _decimal_parts(value), _decimal_parts(multiple)
    if a is None or b is None or b[0] == 0:
        return False
    # value = m1 * 10**e1 and multiple = m2 * 10**e2: scaled to one exponent, integers.
    (m1, e1), (m2, e2) = a, b
    low = min(e1, e2)
    return bool((m1 * 10 ** (e1 - low)) % (m2 * 10 ** (e2 - low)) == 0)


def _decimal_parts(number: Any) -> Optional[Tuple[int, int]]:
    """(m, e) with number == m * 10**e exactly, for an int or a finite float
    read as its shortest decimal repr; None for NaN and the infinities."""
    if isinstance(number, int):
        return int(number), 0
    if not isinstance(number, float) or not _is_finite(number):
        return None
    mantissa, _, exponent = repr(number).partition("e")
    whole, _, fraction = mantissa.partition(".")
    return int(whole + fraction), int(exponent or 0) - len(fraction)


def _all_unique(items: List[Any]) -> bool:
    """uniqueItems (Validation 2020-12 §6.4.3): no two items equal as JSON values."""
    return not any(_json_equal(item, seen) for i, item in enumerate(items) for seen in items[:i])


def _check_contains(schema: Dict[str, Any], contains: _Checker, items: List[Any], loc: Tuple[Any, ...], value: Any,
                    errors: List[_ErrorItem]) -> None:
    """contains, minContains and maxContains (Validation 2020-12 §6.4.4-5): how
    many items match ``contains``, at least 1 unless minContains says otherwise."""
    found = sum(1 for i, item in enumerate(items) if _passes(contains, item, loc + (i,)))
    for bound, word in ((schema.get("minContains", 1), "least"), (schema.get("maxContains"), "most")):
        if bound is not None and (found < bound if word == "least" else found > bound):
            text = f"Array should contain at {word} {_plural(bound, 'matching item')}, not {found}"
            errors.append(_ErrorItem(loc, text, "contains", value))


def _check_dependent(dependent: Dict[str, List[str]], value: Dict[str, Any], loc: Tuple[Any, ...],
                     errors: List[_ErrorItem]) -> None:
    """dependentRequired (Validation 2020-12 §6.5.4): each key present requires its listed keys."""
    for key, needed in dependent.items():
        if key in value:
            for other in needed:
                if other not in value:
                    errors.append(_ErrorItem(loc + (other,), f"Field required when {key!r} is present",
                                             "missing", value))


def _is_json_type(value: Any, kind: str) -> bool:
    tp = type(value)
    if kind == "string":
        return tp is str
    if kind == "integer":
        return (tp is int) or (tp is float and value.is_integer())
    if kind == "number":  # NaN and infinity are no JSON numbers
        return tp is int or (tp is float and value - value == 0)
    if kind == "object":
        return tp is dict
    if kind == "array":
        return tp is list
    if kind == "boolean":
        return tp is bool
    if kind == "null":
        return value is None
    return False


def _passes(check: _Checker, value: Any, loc: Tuple[Any, ...]) -> bool:
    errors: List[_ErrorItem] = []
    check(value, loc, errors)
    return not errors


# ---------------------------------------------------------------------------
# 7. Arguments: JSON back into Python values
# ---------------------------------------------------------------------------
#
# A tools/call's ``arguments`` (server/tools, "Calling Tools") are validated
# against the published inputSchema first (section 6); then each value becomes
# what the annotation asks for (a dataclass, an Enum member, a datetime, a
# tuple...), as the SDK's tools receive it.  A parameter whose annotation
# involves pydantic (the hook _involves_pydantic, section 22) is not read here:
# the tool's arguments model takes it whole (section 9).


def _build(tp: Any, value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem], sent: Any = _MISSING) -> Any:
    """``value`` (checked JSON) as ``tp``; ``sent``: the argument as it came, where known."""
    try:
        return _build_value(tp, value, sent)
    except _BuildError as exc:
        msg, kind, bad = exc.item
        errors.append(_ErrorItem(loc, msg, kind, bad))
    except (TypeError, ValueError) as exc:
        errors.append(_ErrorItem(loc, f"Value error, {exc}", "value_error", value))
    return value


def _build_value(tp: Any, value: Any, sent: Any = _MISSING) -> Any:
    if _is_annotated(tp):
        if any(_is_pydantic_field(m) for m in tp.__metadata__):
            return _pydantic_value(tp, value)
        return _build_value(tp.__origin__, value, sent)
    if value is None or tp is object or tp in (str, int, float, bool, _NoneType) or _is_any(tp):
        return value
    if tp is bytes:
        return value.encode("utf-8") if isinstance(value, str) else value
    if _is_literal(tp):
        for option in _literal_values(tp):
            if _is_enum_member(option) and _json_equal(option.value, value):
                return option
        return value
    if _is_union(tp):
        return _build_union(tp, value, sent)
    origin = _origin(tp) or tp
    args = _args(tp)
    if origin is tuple and isinstance(value, list):
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_build_value(args[0], v) for v in value)
        if args and args != ((),):
            return tuple(_build_value(a, v) for a, v in zip(args, value))
        return tuple(value)
    if origin in (set, frozenset) and isinstance(value, list):
        return origin(_build_value(args[0], v) if args else v for v in value)
    if isinstance(value, list):
        item = args[0] if args else object
        return [_build_value(item, v) for v in value]
    if isinstance(value, dict) and not isinstance(origin, type) or origin is dict or _is_subclass(origin, dict) \
            and not _is_typeddict(origin):
        if isinstance(value, dict) and len(args) == 2:
            return {_build_key(args[0], k): _build_value(args[1], v) for k, v in value.items()}
        return value
    if _is_pydantic_model(tp):
        return tp.model_validate(value)
    if _is_enum(tp):
        try:
            return tp(value)
        except ValueError:
            raise _BuildError(f"Input should be {_one_of_text([m.value for m in tp])}", "enum", value) from None
    if isinstance(tp, type) and isinstance(value, (str, int, float)):
        return _build_stdlib(tp, value)
    if isinstance(tp, type) and isinstance(value, dict):
        return _build_object(tp, value)
    return value


def _build_key(tp: Any, key: str) -> Any:
    """A dict key as its type: the checked JSON key ("1" for dict[int, T]) is the number's text."""
    if tp is int:
        return int(key)
    if tp is float:
        return float(key)
    return _build_value(tp, key)


def _build_object(tp: type, value: Dict[str, Any]) -> Any:
    if _is_typeddict(tp):
        hints = _type_hints(tp)
        return {k: _build_value(_strip_qualifiers(hints.get(k, object)), v) for k, v in value.items()}
    hints = _type_hints(tp)
    built = {k: _build_value(hints.get(k, object), v) for k, v in value.items() if k in hints}
    _fill_field_defaults(tp, hints, built)  # fidelity hook: a Field's default, as the SDK fills it (section 24)
    if _is_dataclass(tp):
        init = {f.name for f in tp.__dataclass_fields__.values() if f.init}  # type: ignore[attr-defined]
        obj = tp(**{k: v for k, v in built.items() if k in init})
        for k, v in built.items():
            if k not in init:
                setattr(obj, k, v)
        return obj
    obj = object.__new__(tp)  # an annotated class: attributes set as the schema names them
    for k, v in built.items():
        setattr(obj, k, v)
    return obj


def _strip_qualifiers(tp: Any) -> Any:
    while _qualifier(tp) is not None:
        tp = _args(tp)[0]
    return tp


def _build_stdlib(tp: type, value: Any) -> Any:
    """A value of one of _LAX_TABLE's types (section 23) from its checked JSON form."""
    kind = _lax_kind(tp)
    return value if kind is None else _lax_parse(kind, tp, value)


# ---------------------------------------------------------------------------
# 8. Content
# ---------------------------------------------------------------------------
#
# The content blocks of server/tools ("Tool Result": text, image, audio,
# resource links, embedded resources; schema.ts ContentBlock) and the
# CallToolResult that carries them.  A result with structuredContent SHOULD
# also carry its JSON as a text block (server/tools, "Structured Content"):
# _structured_result writes both from the same checked value.
#
# Content blocks and results as small dataclasses.  The field names follow the
# SDK's Python spelling (``structured_content``, ``is_error``, ``mime_type``);
# ``to_wire()`` gives the protocol's camelCase.


def _drop_none(d: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


class _Block:
    """Shared by the content block types: their wire form, and the equality and
    repr of a dataclass (without importing dataclasses, which imports inspect)."""

    type: str
    _wire: Tuple[Tuple[str, str], ...] = ()

    def to_wire(self) -> Dict[str, Any]:
        out = {"type": self.type}
        for attr, key in self._wire:
            value = getattr(self, attr)
            if value is not None:
                out[key] = _wire_value(value)  # the SDK's models inside as it sends them (section 25)
        return out

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if v is not None)
        return f"{type(self).__name__}({fields})"


class TextContent(_Block):
    """A text block: ``TextContent(type="text", text="...")``."""

    _wire = (("text", "text"), ("annotations", "annotations"), ("meta", "_meta"))

    def __init__(self, type: str = "text", text: str = "", annotations: Any = None, meta: Any = None,
                 **kwargs: Any) -> None:
        self.type, self.text, self.annotations, self.meta = type, text, annotations, kwargs.get("_meta", meta)


class ImageContent(_Block):
    """Base64 image data with its MIME type."""

    _wire = (("data", "data"), ("mime_type", "mimeType"), ("annotations", "annotations"), ("meta", "_meta"))

    def __init__(self, type: str = "image", data: str = "", mime_type: str = "", annotations: Any = None,
                 meta: Any = None, **kwargs: Any) -> None:
        self.type, self.data, self.annotations = type, data, annotations
        self.mime_type = kwargs.get("mimeType", mime_type)
        self.meta = kwargs.get("_meta", meta)


class AudioContent(ImageContent):
    """Base64 audio data with its MIME type (protocol revisions from 2025-03-26)."""

    def __init__(self, type: str = "audio", **kwargs: Any) -> None:
        super().__init__(type=type, **kwargs)


class EmbeddedResource(_Block):
    """A resource's contents inside the result: ``resource`` is
    ``{"uri": ..., "text": ...}`` or ``{"uri": ..., "blob": ...}``."""

    _wire = (("resource", "resource"), ("annotations", "annotations"), ("meta", "_meta"))

    def __init__(self, type: str = "resource", resource: Any = None, annotations: Any = None,
                 meta: Any = None, **kwargs: Any) -> None:
        self.type, self.resource, self.annotations, self.meta = type, resource, annotations, kwargs.get("_meta", meta)


class ResourceLink(_Block):
    """A link to a resource (protocol revisions from 2025-06-18)."""

    _wire = (("name", "name"), ("uri", "uri"), ("title", "title"), ("description", "description"),
             ("mime_type", "mimeType"), ("size", "size"), ("annotations", "annotations"), ("meta", "_meta"))

    def __init__(self, type: str = "resource_link", name: str = "", uri: str = "", title: Optional[str] = None,
                 description: Optional[str] = None, mime_type: Optional[str] = None, size: Optional[int] = None,
                 annotations: Any = None, meta: Any = None, **kwargs: Any) -> None:
        self.type, self.name, self.uri, self.title, self.description = type, name, uri, title, description
        self.mime_type = kwargs.get("mimeType", mime_type)
        self.size, self.annotations, self.meta = size, annotations, kwargs.get("_meta", meta)


class CallToolResult:
    """A tool result built by hand; returned from a tool, it is sent as it is
    (its ``structured_content`` checked when the annotation is
    ``Annotated[CallToolResult, Model]``)."""

    def __init__(self, content: Optional[List[Any]] = None, structured_content: Any = None,
                 is_error: bool = False, meta: Optional[Dict[str, Any]] = None, **kwargs: Any) -> None:
        self.content = list(content or [])
        self.structured_content = kwargs.get("structuredContent", structured_content)
        self.is_error = kwargs.get("isError", is_error)
        self.meta = kwargs.get("_meta", meta)


_CONTENT_TYPES = (TextContent, ImageContent, AudioContent, EmbeddedResource, ResourceLink)


def _is_content_class(tp: Any) -> bool:
    if isinstance(tp, type) and issubclass(tp, _CONTENT_TYPES):
        return True
    return _is_sdk_content(tp)  # the SDK's Image, Audio and own content models (section 26)


def _returns_content(tp: Any) -> bool:
    """Content blocks, bare or as items or union arms: the SDK leaves these unstructured."""
    if _is_annotated(tp):
        return _returns_content(tp.__origin__)
    abc = _module("collections.abc")
    if _is_union(tp) or _origin(tp) in (list, tuple) or (abc is not None and _origin(tp) is abc.Sequence):
        return any(_returns_content(a) for a in _args(tp))
    return _is_content_class(tp)


_NOT_BLOCKS: set[type] = set(_NATIVE)  # types seen that are no content block


_SHAPED = frozenset((str, list, tuple, _NoneType))  # content other than one JSON text


def _one_json_text(kinds: set[type]) -> bool:
    """Whether a value of each of these types (seen before) is sent as one
    JSON text: not a content block, a string, a list or nothing."""
    return kinds <= _NOT_BLOCKS and not kinds & _SHAPED


def _content_block(value: Any) -> Optional[Dict[str, Any]]:
    if type(value) in _NOT_BLOCKS:
        return None
    if isinstance(value, _Block):
        return value.to_wire()
    if isinstance(value, _Media):  # the SDK's Image or Audio (section 26)
        return value.to_block().to_wire()
    if _is_content_class(type(value)):  # the SDK's own blocks (section 25)
        return _sdk_block(value)
    if len(_NOT_BLOCKS) < 1000 and not isinstance(value, (str, list, tuple)):  # those are shaped
        _NOT_BLOCKS.add(type(value))
    return None


def _content(value: Any) -> List[Dict[str, Any]]:
    """The ``content`` blocks for the model: text as is, a list item by item,
    blocks as blocks, anything else as JSON text indented by 2."""
    if value is None:
        return []
    block = _content_block(value)
    if block is not None:
        return [block]
    if isinstance(value, (list, tuple)):
        return [b for item in value for b in _content(item)]
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    return [{"type": "text", "text": _dumps_text(value)}]


def _checked_content(raw: Any, checked: Any) -> List[Dict[str, Any]]:
    """``content`` for a structured result: shaped like the SDK's (a list or
    tuple becomes a block per item, a string is sent as is), but written from the
    checked value, so the text the model reads agrees with ``structuredContent``."""
    if type(raw) in _NOT_BLOCKS and type(raw) not in _SHAPED:  # an object or number (_one_json_text)
        if type(raw) in (int, float, bool) and isinstance(checked, str):
            # a number read as a string (a Decimal, a timedelta): its text bare,
            # as the SDK shows the number it was given
            return [{"type": "text", "text": checked}]
        return [{"type": "text", "text": _pretty(checked)}]
    if raw is None:
        return []
    block = _content_block(raw)
    if block is not None:
        return [block]
    if isinstance(raw, (list, tuple)) and isinstance(checked, list) and len(raw) == len(checked):
        if _one_json_text(set(map(type, raw))) and not any(type(c) is str for c in checked):
            return [{"type": "text", "text": _pretty(item)} for item in checked]
        # (no JSON item becomes null or comes of one: such a pair is a set's reordered item, written as checked)
        return [b for r, c in zip(raw, checked) for b in _checked_content(
            c if r is None or c is None and type(r) in (str, int, float, bool) else r, c)]
    if isinstance(raw, (list, tuple)) and isinstance(checked, list):  # a set kept one of each: its own items
        return [b for c in checked for b in _checked_content(c, c)]
    if isinstance(raw, str) and isinstance(checked, str):
        return [{"type": "text", "text": checked}]
    return [{"type": "text", "text": _pretty(checked)}]  # checked values are JSON data already


def _structured_result(raw: Any, shown: Any, structured: Any, wrap: bool) -> Dict[str, Any]:
    """A tools/call result with ``structuredContent`` (``{"result": shown}``
    when ``wrap``) and its ``content`` written from the same checked value
    (server/tools, "Structured Content").  Twin: _fast_structured, section 34."""
    return {"content": _checked_content(raw, shown), "structuredContent": structured, "isError": False}


def _dumps_text(value: Any) -> str:
    """Any value as the SDK's ``to_json(value, fallback=str, indent=2)`` writes it."""
    try:
        data = _jsonable(value)
    except _NotJSON:
        data = str(value)
    return _pretty(data)


# ---------------------------------------------------------------------------
# 9. Tools
# ---------------------------------------------------------------------------
#
# A tool as server/tools defines it: a name, a description, an inputSchema
# (from the parameters) and, from 2025-06-18, an outputSchema (from the return
# annotation, as the structured-output table below says).  MUST (server/tools,
# "Output Schema"): a server's structured results conform to its outputSchema;
# enforced by _Tool.check_output, whose mismatch is an isError result.  MUST
# (server/tools, "Security Considerations"): servers validate all tool inputs;
# enforced by _Tool.arguments against _checked_input_schema's schema.
# Annotations that _involves_pydantic finds go to pydantic (section 22).

# Parameter types whose checked JSON value is already the Python value.
_AS_IS = (str, int, float, bool, object, _MISSING)


class _Param:
    """A tool parameter: its name, annotation (or _MISSING) and default (or _MISSING);
    ``key``, the argument's name on the wire (the name, or the alias _pydantic_arguments
    reads), and ``delegated``, whether _pydantic_arguments publishes and checks it."""

    __slots__ = ("name", "annotation", "default", "as_is", "key", "delegated")

    def __init__(self, name: str, annotation: Any, default: Any) -> None:
        self.name, self.annotation, self.default = name, annotation, default
        self.as_is = any(annotation is t for t in _AS_IS) or _is_any(annotation)
        self.key = name
        self.delegated = _is_pydantic_field(default) or (annotation is not _MISSING and _involves_pydantic(annotation))


class _Tool:
    """A registered function: its published schemas and its compiled checkers."""

    task_support = "forbidden"  # whether a call may become a task (section 16): add_tool sets it

    def __init__(self, fn: Callable[..., Any], name: Optional[str], title: Optional[str],
                 description: Optional[str], annotations: Any, icons: Any, meta: Any,
                 structured_output: Optional[bool]) -> None:
        self.fn = fn
        self.name = str(name or getattr(fn, "__name__", ""))
        if self.name == "<lambda>" or not self.name:
            raise InvalidSignature("You must provide a name for lambda functions")
        fn_name = getattr(fn, "__name__", self.name)
        self.title = title
        # The SDK's ``description or fn.__doc__``: an empty description takes the docstring too.
        self.description = description or _cleandoc(getattr(fn, "__doc__", None))
        self.annotations = annotations
        self.icons = icons
        self.meta = meta
        self.is_async = _is_async(fn)
        self.params, return_annotation = _signature(fn, fn_name)
        self.context_param = _context_parameter(fn)
        self.sdk_models = _takes_sdk_context(fn, self.context_param)  # section 26
        # Parameters filled by resolvers, and the resolvers (section 25); None: none.
        self.resolved = _resolvers_of(fn, self.name, [p.name for p in self.params], return_annotation)
        self.input_schema, class_kinds, self._arguments_model = _input_schema(fn_name, self.params)
        self.output_schema, self.wrap, self.validate_ctr, out_kinds, self._output_adapter = _output_schema(
            fn_name, return_annotation, structured_output)
        self.input_title = self.input_schema["title"]
        self._input_check = _checker(_checked_input_schema(self.input_schema, self.params), "input", class_kinds)
        self._output_check = _checker(self.output_schema, "output", out_kinds) \
            if self.output_schema and self._output_adapter is None else None
        self._own = [p for p in self.params if not p.delegated]  # the parameters our checker converts
        # A default given as Field(...) (or in Annotated[T, Field(default=...)]) is
        # filled in by arguments(): the function's own default is the Field object.
        self._field_defaults = {p.name: holder for p in self._own
                                if (holder := _field_holder(p.annotation, p.default)) is not None}
        self.output_title = (self.output_schema or {}).get("title", "Output")
        # Where a string argument may be JSON text: the SDK's pre-parse (_json_text_params, section 27).
        self._json_params = _json_text_params(self.params, self.input_schema)

    # -- the three steps of a call ---------------------------------------------

    def arguments(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        """Validated keyword arguments for the function, or ValidationError."""
        arguments = _json_text_arguments(arguments, self._json_params)  # the SDK's pre-parse (section 23)
        errors: List[_ErrorItem] = []
        checked = self._input_check(arguments, (), errors)
        kwargs = {}
        if not errors:
            for p in self._own:
                if p.name in checked:
                    value = checked[p.name]
                    kwargs[p.name] = value if p.as_is else _build(p.annotation, value, (p.name,), errors,
                                                                  arguments.get(p.name, _MISSING))
                elif p.name in self._field_defaults:
                    kwargs[p.name] = _field_default(self._field_defaults[p.name])
        if self._arguments_model is not None:  # pydantic's own parameters (section 22)
            _pydantic_read(self._arguments_model, arguments, kwargs, errors)
        if errors:
            raise ValidationError(errors, self.input_title)
        return kwargs

    def result(self, value: Any) -> Dict[str, Any]:
        """The wire result of a returned value; ValidationError when it does not fit its schema."""
        if isinstance(value, CallToolResult) or type(value).__name__ == "CallToolResult" and hasattr(value, "content"):
            return self._passthrough(value)
        if self._output_adapter is not None:
            structured = _pydantic_output(self._output_adapter, {"result": value} if self.wrap else value)
        elif self._output_check is None:
            return {"content": _content(value), "isError": False}
        else:
            structured = self.check_output({"result": value} if self.wrap else value)
        shown = structured["result"] if self.wrap else structured
        return _structured_result(value, shown, structured, self.wrap)

    def check_output(self, value: Any) -> Any:
        if self._output_adapter is not None:  # a CallToolResult's own structured content: checked, sent as given
            return _pydantic_checked(self._output_adapter, value)
        errors: List[_ErrorItem] = []
        assert self._output_check is not None
        try:
            checked = self._output_check(value, (), errors)
        except RecursionError:
            errors.append(_ErrorItem((), "Recursion error - cyclic reference detected", "recursion_loop",
                                     "<cyclic value>"))
        if errors:
            raise ValidationError(errors, self.output_title)
        return checked

    def _passthrough(self, value: Any) -> Dict[str, Any]:
        structured = getattr(value, "structured_content", None)
        is_error = bool(getattr(value, "is_error", False))
        if self.validate_ctr and (self._output_check or self._output_adapter) is not None and not is_error:
            structured = self.check_output(structured)
        out: Dict[str, Any] = {"content": [b for item in value.content for b in _content(item)]}
        if structured is not None:
            out["structuredContent"] = _jsonable(structured)
        out["isError"] = is_error
        meta = getattr(value, "meta", None)
        if meta:
            out["_meta"] = _jsonable(meta)
        return out

    def describe(self) -> Dict[str, Any]:
        """The tool as ``tools/list`` publishes it in the newest revision."""
        tool: Dict[str, Any] = {"name": self.name}
        if self.title is not None:
            tool["title"] = self.title
        tool["description"] = self.description
        tool["inputSchema"] = self.input_schema
        if self.output_schema is not None:
            tool["outputSchema"] = self.output_schema
        if self.annotations is not None:
            tool["annotations"] = _annotations_wire(self.annotations)
        if self.icons is not None:
            tool["icons"] = _icons_wire(self.icons)
        if self.meta is not None:
            tool["_meta"] = _jsonable(self.meta)
        return tool


def _annotations_wire(annotations: Any) -> Dict[str, Any]:
    annotations = _sdk_model_json(annotations)  # the SDK's ToolAnnotations model, as its JSON (section 26)
    if isinstance(annotations, ToolAnnotations):  # the SDK's class, in Python's spelling (section 26)
        return annotations.wire
    if isinstance(annotations, dict):
        return _drop_none(annotations)
    raise TypeError(f"annotations must be ToolAnnotations or a dict, not {type(annotations).__name__}")


def _is_async(fn: Any) -> bool:
    while hasattr(fn, "func") and not hasattr(fn, "__code__"):  # functools.partial
        fn = fn.func
    code = getattr(fn, "__code__", None)
    if code is None:
        code = getattr(type(fn).__dict__.get("__call__"), "__code__", None)  # a callable object
    return bool(code is not None and code.co_flags & 0x80)  # CO_COROUTINE


_POSITIONAL_ONLY, _ORDINARY, _VAR_POSITIONAL, _KEYWORD_ONLY, _VAR_KEYWORD = range(5)  # inspect's kinds


def _signature(fn: Callable[..., Any], fn_name: str) -> Tuple[List[_Param], Any]:
    """Parameters and return annotation, refusing what cannot be sent as JSON
    arguments (the SDK publishes ``*args``/``**kwargs`` as if they were ordinary)."""
    try:
        hints = {} if isinstance(fn, type) else _type_hints(_unwrapped(fn))
    except InvalidSignature as exc:
        raise InvalidSignature(f"Unable to evaluate type annotations for callable {fn_name!r}: "
                               f"{exc.__cause__}") from exc.__cause__
    params = []
    for name, kind, default in _parameters(fn, fn_name):
        if _is_context(hints.get(name)) or _resolve_marker(hints.get(name)) is not None:
            continue  # filled by the server (section 25), no argument
        if name.startswith("_"):
            raise InvalidSignature(f"Parameter {name} of {fn_name} cannot start with '_'")
        if kind in (_VAR_POSITIONAL, _VAR_KEYWORD):
            star = "*" if kind == _VAR_POSITIONAL else "**"
            raise InvalidSignature(f"Parameter {star}{name} of {fn_name}: variadic parameters cannot be tool "
                                   "arguments; name each argument")
        if kind == _POSITIONAL_ONLY:
            raise InvalidSignature(f"Parameter {name} of {fn_name} is positional-only; tool arguments are "
                                   "passed by name")
        params.append(_Param(name, hints.get(name, _MISSING), default))
    return params, hints.get("return", _MISSING)


def _is_context(tp: Any) -> bool:
    """A ``Context`` annotation, ``Context[...]`` too, or the SDK's own Context."""
    tp = _origin(tp) or tp
    return _is_subclass(tp, Context) or (isinstance(tp, type) and tp.__name__ == "Context"
                                         and tp.__module__.startswith("mcp."))


def _context_parameter(fn: Any) -> Optional[str]:
    """The name of the parameter annotated Context, if there is one."""
    try:
        hints = {} if isinstance(fn, type) else _type_hints(_unwrapped(fn))
    except InvalidSignature:
        return None
    return next((name for name, tp in hints.items() if name != "return" and _is_context(tp)), None)


def _unwrapped(fn: Any) -> Any:
    while hasattr(fn, "__wrapped__"):  # functools.wraps, as inspect.unwrap
        fn = fn.__wrapped__
    return fn


def _parameters(fn: Any, fn_name: str) -> List[Tuple[str, int, Any]]:
    """(name, kind, default or _MISSING) of each parameter.  A plain function's
    code object says it all; anything else (a partial, a method, a callable
    object, a wrapper) is left to inspect, which costs more to import."""
    code = getattr(fn, "__code__", None)
    if code is None or hasattr(fn, "__wrapped__") or hasattr(fn, "__self__") or not hasattr(fn, "__defaults__"):
        return _parameters_by_inspect(fn, fn_name)
    positional = code.co_argcount
    names = code.co_varnames[: positional + code.co_kwonlyargcount]
    defaults = fn.__defaults__ or ()
    keyword_defaults = fn.__kwdefaults__ or {}
    out = []
    for i, name in enumerate(names[:positional]):
        j = i - (positional - len(defaults))
        kind = _POSITIONAL_ONLY if i < code.co_posonlyargcount else _ORDINARY
        out.append((name, kind, defaults[j] if j >= 0 else _MISSING))
    rest = positional + code.co_kwonlyargcount
    if code.co_flags & 0x04:  # CO_VARARGS
        out.append((code.co_varnames[rest], _VAR_POSITIONAL, _MISSING))
        rest += 1
    out.extend((name, _KEYWORD_ONLY, keyword_defaults.get(name, _MISSING)) for name in names[positional:])
    if code.co_flags & 0x08:  # CO_VARKEYWORDS
        out.append((code.co_varnames[rest], _VAR_KEYWORD, _MISSING))
    return out


def _parameters_by_inspect(fn: Any, fn_name: str) -> List[Tuple[str, int, Any]]:
    import inspect

    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise InvalidSignature(f"Cannot read the signature of {fn_name!r}: {exc}") from exc
    return [(p.name, int(p.kind), _MISSING if p.default is p.empty else p.default) for p in sig.parameters.values()]


def _input_schema(fn_name: str, params: List[_Param]) -> Tuple[Dict[str, Any], Dict[str, str], Any]:
    """(inputSchema, class_kinds, _pydantic_arguments' model or None): each
    parameter's schema, and whether it is required, in the parameters' order."""
    builder = _SchemaBuilder()
    arguments_model, delegated = _pydantic_arguments(fn_name, params, builder)  # pydantic's own parameters
    properties: Dict[str, Any] = {}
    required = []
    for p in params:
        schema, needed = delegated[p.name] if p.delegated else _parameter_schema(fn_name, p, builder)
        if schema is not None:
            properties[p.key] = schema
        if needed:
            required.append(p.key)
    schema = {"properties": properties}
    if required:
        schema["required"] = required
    schema["title"] = f"{fn_name}Arguments"
    schema = builder.finish({**schema, "type": "object"})
    # The SDK's Tool model lists "type" first in inputSchema.
    return {"type": "object", **{k: v for k, v in schema.items() if k != "type"}}, builder.class_kinds, arguments_model


def _parameter_schema(fn_name: str, p: _Param, builder: _SchemaBuilder) -> Tuple[Dict[str, Any], bool]:
    """A parameter's schema, with its default, and whether it is required (it
    has none).  The default may come from a Field (_field_default_of)."""
    field, default, factory = _field_default_of(p.annotation, p.default)
    try:
        if p.annotation is _MISSING:
            schema: Dict[str, Any] = {"title": p.name, "type": "string"}  # the SDK's WithJsonSchema
            if default is not _MISSING:
                schema["default"] = _jsonable(default)
        else:
            schema = builder.field_schema(p.annotation, p.name, default, field)
    except (_Unsupported, _NotJSON) as exc:
        raise InvalidSignature(f"Parameter {p.name} of {fn_name}: {exc}") from None
    return schema, default is _MISSING and not factory


def _checked_input_schema(schema: Dict[str, Any], params: List[_Param]) -> Dict[str, Any]:
    """The schema our own checker applies to the arguments (MUST, server/tools
    "Security Considerations": servers validate all tool inputs; a refused one is
    a tool execution error, "Error Handling"): an unannotated parameter takes
    any value (the SDK's Any, published as a string), and
    those _pydantic_arguments publishes are left to _pydantic_read."""
    delegated = {p.key for p in params if p.delegated}
    free = {p.key for p in params if p.annotation is _MISSING} | delegated
    checked = dict(schema, properties={k: {} if k in free else v for k, v in schema["properties"].items()})
    required = [k for k in schema.get("required", ()) if k not in delegated]
    if required:
        checked["required"] = required
    else:
        checked.pop("required", None)
    return checked


# The structured-output rules of docs/servers/structured-output.md, one branch
# each, tried in this order; the module docstring shows every row at work.
#
#   row  return annotation                               outputSchema                 the page's section
#   ---  ----------------------------------------------  ---------------------------  -------------------------
#   S1   structured_output=False                         none                         Opting out
#   S2   no return annotation                            none; True: error E1         Opting out
#   S3   CallToolResult                                  none; the result as returned (tip: CallToolResult)
#   S4   Annotated[CallToolResult, T]                    T's (S7-S13); checked        (the SDK's own rule)
#   S5   content blocks, Image, Audio, in a list/union   none                         A class without type hints
#   S6   Any                                             none                         (the SDK on Python 3.11+)
#   S7   str, int, float, bool, bytes, None              {"result": T}                The output schema
#   S8   dict[str, T]                                    the object itself            Dictionaries
#   S9   dict[K, T] with K not str                       {"result": T}                Dictionaries
#   S10  list, tuple, set, Union, Optional, Literal...   {"result": T}                Lists
#   S11  pydantic BaseModel, TypedDict                   the class's schema           Return a model; A TypedDict
#   S12  dataclass, class with annotations               its annotations, as a model  A dataclass
#   S13  class without annotations (datetime, Enum...)   none; True: error E2         A class without type hints
#   E3   structured_output=True and T has no JSON Schema                    error     Opting out
#
# Without structured_output=True, a T that has no JSON Schema falls back to
# unstructured with a line on stderr (the SDK does so silently).

if TYPE_CHECKING:
    _Output = Tuple[Optional[Dict[str, Any]], bool, bool, Dict[str, str], Any]
_UNSTRUCTURED: _Output = (None, False, False, {}, None)


def _output_schema(fn_name: str, annotation: Any, structured: Optional[bool]) -> _Output:
    """(outputSchema, wrap in {"result": ...}, check a returned CallToolResult,
    class_kinds, _pydantic_structured's TypeAdapter or None) by the table above: the SDK's
    ``func_metadata`` rules, without its crashes."""
    annotation = _data_arms(annotation)  # an InputRequiredResult arm is no data: the rest's rows (section 26)
    if structured is False or annotation is _ABSENT:  # S1; InputRequiredResult alone
        return _UNSTRUCTURED
    if annotation is _MISSING:  # S2
        if structured:
            raise InvalidSignature(f"Function {fn_name}: return annotation required for structured output")  # E1
        return _UNSTRUCTURED
    inner, metadata = annotation, ()
    if _is_annotated(annotation):
        inner, metadata = annotation.__origin__, annotation.__metadata__
    check_result = False
    if _is_subclass(inner, CallToolResult) or (isinstance(inner, type) and inner.__name__ == "CallToolResult"):
        if not metadata:  # S3
            return _UNSTRUCTURED
        annotation = inner = metadata[0]  # S4
        check_result = True
    if structured is None and _returns_content(inner):  # S5
        return _UNSTRUCTURED
    if structured is None and _is_any(inner):  # S6
        return _UNSTRUCTURED
    builder = _SchemaBuilder()
    made: Optional[Tuple[Dict[str, Any], bool, Any]]
    try:
        if _involves_pydantic(annotation):
            made = _pydantic_structured(fn_name, annotation, inner)
        else:
            plain = _structured_schema(fn_name, annotation, inner, builder)
            made = None if plain is None else (plain[0], plain[1], None)
    except (_Unsupported, _NotJSON) as exc:
        if structured:  # E3
            raise InvalidSignature(f"Function {fn_name}: return type {inner} is not serializable for structured "
                                   f"output ({exc})") from None
        print(f"mcp_ref: {fn_name} is unstructured: {exc}", file=sys.stderr)
        return _UNSTRUCTURED
    if made is None:  # S13
        if structured:
            raise InvalidSignature(f"Function {fn_name}: return type {inner} is not serializable for "
                                   "structured output")  # E2
        return _UNSTRUCTURED
    schema, wrap, adapter = made
    return schema, wrap, check_result, builder.class_kinds, adapter


def _structured_schema(fn_name: str, annotation: Any, inner: Any,
                       builder: _SchemaBuilder) -> Optional[Tuple[Dict[str, Any], bool]]:
    """Rows S7-S13 of the structured-output table: (outputSchema, wrapped), or None (S13)."""
    if inner is None or inner is _NoneType or inner in (str, int, float, bool, bytes):  # S7
        return _wrapped_schema(fn_name, annotation, builder)
    if _origin(inner) is dict:
        args = _args(inner)
        if len(args) == 2 and args[0] is str:  # S8; typing.Dict[str, T] too, which the SDK wraps
            return builder.finish({**builder.schema(inner), "title": f"{fn_name}DictOutput"}), False
        return _wrapped_schema(fn_name, annotation, builder)  # S9
    if _origin(inner) is not None or not isinstance(inner, type):  # S10
        return _wrapped_schema(fn_name, annotation, builder)
    if _is_pydantic_model(inner) or _is_typeddict(inner):  # S11
        return builder.root(inner), False
    if _has_annotations(inner):  # S12
        # The SDK rebuilds every other annotated class (dataclasses included)
        # as a model of its annotations: no docstring, class values as defaults.
        _class_values_json(inner)  # (one it cannot write: no schema; section 24)
        schema = builder.finish(builder.annotated_class(inner))
        builder.class_kinds[inner.__name__] = "model"
        return schema, False
    return None  # S13


def _wrapped_schema(fn_name: str, annotation: Any, builder: _SchemaBuilder) -> Tuple[Dict[str, Any], bool]:
    """``{"result": T}``, as the SDK wraps a value that is not a JSON object."""
    result = builder.field_schema(annotation, "result")
    schema: Dict[str, Any] = {"properties": {"result": result}, "required": ["result"]}
    if _field_holder(annotation, _MISSING) is not None:  # Annotated[T, Field(default=...)]: not required
        del schema["required"]
    return builder.finish({**schema, "title": f"{fn_name}Output", "type": "object"}), True


def _has_annotations(cls: type) -> bool:
    try:
        return bool(_type_hints(cls))
    except InvalidSignature:
        return False


# ---------------------------------------------------------------------------
# 10. Resources
# ---------------------------------------------------------------------------
#
# server/resources, as the SDK's MCPServer offers them, and URI templates (RFC
# 6570).  The parameters of a resource template (and of a prompt, section 11)
# are a tool's arguments by another route: one _Tool (section 9) publishes,
# checks and converts them, so "5" becomes 5 for an int, and the errors read as
# a tool's do.  Per-revision fields are gated by the dispatcher (_fields_for).


class ResourceError(Exception):
    """Raise in a resource to report a failure the client should read: the
    read is answered with JSON-RPC error -32603 and this message."""


class ResourceNotFoundError(ResourceError):
    """No resource at that URI: -32002 in the handshake revisions, -32602 from
    2026-07-28 (server/resources, "Error Handling")."""


class _Record:
    """Equality and repr from the attributes, as a dataclass has them."""

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if v is not None and k not in ("fn", "params"))
        return f"{type(self).__name__}({fields})"


# -- resources -----------------------------------------------------------------


class Resource(_Record):
    """A resource to list and read (the SDK's ``Resource``): a subclass defines
    ``read()``, which returns text (``str``) or ``bytes`` (sent base64), or an
    awaitable of either.  ``name`` defaults to the URI; ``cache_ttl_ms`` and
    ``cache_scope`` override the server's caching hints for its reads (2026-07-28)."""

    def __init__(self, uri: str, *, name: Optional[str] = None, title: Optional[str] = None,
                 description: Optional[str] = None, mime_type: Optional[str] = None, icons: Optional[List[Any]] = None,
                 annotations: Any = None, meta: Optional[Dict[str, Any]] = None, cache_ttl_ms: Optional[int] = None,
                 cache_scope: Optional[str] = None) -> None:
        if not isinstance(uri, str) or not uri:
            raise ValueError(f"A resource needs a URI (a non-empty string), not {uri!r}")
        self.uri, self.name, self.title, self.description = uri, name or uri, title, description
        self.mime_type = mime_type or "text/plain"  # the SDK's default, whatever the content
        if annotations is not None:
            _resource_annotations(annotations, uri)  # checked now, not at the first list
        self.icons, self.annotations, self.meta = icons, annotations, meta
        if cache_ttl_ms is not None and (type(cache_ttl_ms) is not int or cache_ttl_ms < 0):
            raise ValueError(f"cache_ttl_ms of {uri} must be an integer >= 0, not {cache_ttl_ms!r}")
        if cache_scope not in (None, "public", "private"):
            raise ValueError(f"cache_scope of {uri} must be 'public' or 'private', not {cache_scope!r}")
        self.cache_ttl_ms, self.cache_scope = cache_ttl_ms, cache_scope

    def read(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define read()")

    def describe(self, key: str = "uri") -> Dict[str, Any]:
        """As ``resources/list`` publishes it in the newest revision (``key``:
        ``uriTemplate`` for a template)."""
        item: Dict[str, Any] = {key: self.uri, "name": self.name, "title": self.title,
                                "description": self.description, "mimeType": self.mime_type}
        if self.icons is not None:
            item["icons"] = _icons_wire(self.icons)
        if self.annotations is not None:
            item["annotations"] = _resource_annotations(self.annotations, self.uri)
        if self.meta is not None:
            item["_meta"] = _jsonable(self.meta)
        return _drop_none(item)


def _icons_wire(icons: List[Any]) -> List[Any]:
    return [_jsonable(_drop_none(i)) if isinstance(i, dict) else _wire_value(i) for i in icons]  # (section 25)


def _resource_annotations(value: Any, where: str) -> Dict[str, Any]:
    """Annotations (audience, priority, lastModified) as a dict, checked."""
    value = _sdk_model_json(value)  # the SDK's Annotations model, as its JSON (section 26)
    if not isinstance(value, dict):
        raise TypeError(f"The annotations of {where} must be a dict, not {type(value).__name__}")
    notes = _drop_none(value)
    audience, priority = notes.get("audience", []), notes.get("priority", 0)
    if not (isinstance(audience, list) and set(audience) <= {"user", "assistant"}):
        raise ValueError(f"The annotations of {where}: audience is a list of 'user' and 'assistant', not {audience!r}")
    if isinstance(priority, bool) or not isinstance(priority, (int, float)) or not 0 <= priority <= 1:
        raise ValueError(f"The annotations of {where}: priority is a number from 0 to 1, not {priority!r}")
    return notes


class _Template:
    """A resource template: its URI pattern, its listing, and its function,
    whose parameters are the template's variables."""

    def __init__(self, fn: Callable[..., Any], uri: str, **options: Any) -> None:
        self.pattern = _UriTemplate(uri)
        self.params = _arguments_of(fn, options.pop("name", None), options.pop("description", None))
        self.info = Resource(uri, name=self.params.name, description=self.params.description, **options)
        names = [p.name for p in self.params.params]
        if set(names) != set(self.pattern.names):
            raise ValueError(f"Mismatch between URI parameters {sorted(self.pattern.names)} and function "
                             f"parameters {sorted(names)} of {uri}")
        # The client may leave a {?query} variable out: its parameter needs a default.
        bare = sorted(p.name for p in self.params.params if p.name in self.pattern.query and p.default is _MISSING)
        if bare:
            raise ValueError(f"Resource {uri}: the query parameters {bare} need default values")


def _arguments_of(fn: Callable[..., Any], name: Optional[str], description: Optional[str]) -> _Tool:
    # The one place a template's or a prompt's parameters become a schema,
    # a check and a conversion: the tools' (no output schema).
    params = _Tool(fn, name, None, description, None, None, None, False)
    if params.resolved is not None:  # as in the SDK, resolvers fill tool parameters only
        raise InvalidSignature(f"{params.name!r}: Resolve(...) parameters are for tools; a resource or a prompt "
                               f"asks the client through its Context")
    return params


def _give_context(params: _Tool, kwargs: Dict[str, Any], server: MCPServer, request: Optional[_Request]) -> None:
    """A template's or a prompt's parameter annotated Context gets the request's
    (section 12): it logs, reports progress and asks the client as a tool's
    does (the dispatcher runs such a function as a call: _Connection.start_request)."""
    if params.context_param is not None:
        kwargs[params.context_param] = Context(request, server, sdk_models=params.sdk_models)


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """A user function's value: awaited when it is async (on an event loop of its own)."""
    value = fn(*args, **kwargs)
    if hasattr(value, "__await__"):
        async def wait() -> Any:
            return await value

        value = _run_coroutine(wait())
    return value


def _read_resource(server: MCPServer, uri: str, request: Optional[_Request] = None) -> Tuple[Dict[str, Any], Resource]:
    """The ``resources/read`` result of ``uri`` and the resource it came from;
    errors as _RpcError (not found: RESOURCE_NOT_FOUND, which the dispatcher
    renumbers for 2026-07-28).  Static resources first, then templates in order."""
    data = {"uri": uri}
    resource, found = _find_resource(server, uri)
    info = resource.info if found is not None else resource
    try:
        if found is None:
            context_param = getattr(resource, "context_param", None)
            value = _call(resource.read) if context_param is None else \
                _call(resource.fn, **{context_param: Context(request, server, sdk_models=resource.sdk_models)})
        else:
            try:
                kwargs = resource.params.arguments(found)
            except ValidationError as exc:  # the URI's variables do not convert: the client's error
                raise _RpcError(INVALID_PARAMS, f"Invalid params: {uri} does not fit resource template "
                                                f"{resource.pattern.template}: {exc}", data) from None
            _give_context(resource.params, kwargs, server, request)
            value = _call(resource.params.fn, **kwargs)
        value = _sdk_object(value, "resource")  # the SDK's own InputRequiredResult, read as ours (section 26)
        if isinstance(value, InputRequiredResult):  # 2026-07-28: the resource asks the client first
            if request is None or not request.stateless:
                raise _RpcError(INTERNAL_ERROR, f"Error reading resource {uri}: InputRequiredResult exists only in "
                                                "protocol 2026-07-28", data)
            raise _Asking(value)
        if isinstance(value, Resource):  # a function may hand over another resource
            value = _call(value.read)
        contents = _contents(uri, value, info)
    except (_RpcError, _Asking, _InputRequired, _CapabilityMissing):
        raise  # the last three: the dispatcher answers with the question (section 12)
    except ResourceError as exc:
        code = RESOURCE_NOT_FOUND if isinstance(exc, ResourceNotFoundError) else INTERNAL_ERROR
        raise _RpcError(code, str(exc) or f"Error reading resource {uri}", data) from None
    except BaseException as exc:  # SystemExit too: it must not end the thread that reads stdin
        what = "reading resource" if found is None else "creating resource from template"  # the SDK's words
        raise _failed(f"resource {uri}", f"Error {what} {uri}", exc, data) from None
    size = len(contents.get("text", contents.get("blob", "")))
    if size > server.max_result_bytes:
        raise _RpcError(INTERNAL_ERROR, f"Error reading resource {uri}: at least {size} bytes, over this server's "
                                        f"limit of {server.max_result_bytes}", data)
    return {"contents": [contents]}, info


class _Asking(Exception):
    """A resource function returned an InputRequiredResult (2026-07-28): ``value``."""

    def __init__(self, value: InputRequiredResult) -> None:
        super().__init__("the resource asks the client")
        self.value = value


def _failed(what: str, message: str, exc: BaseException, data: Any = _MISSING) -> _RpcError:
    """-32603 for a user's function that raised, without details (as the SDK: the traceback
    on stderr only); an MCPError (the client's refusal, or the function's own) passed on."""
    error = _protocol_error(exc)  # section 26: ours or the SDK's
    if error is not None:
        return error
    _log_exception(f"{what} raised an exception", exc)
    return _RpcError(INTERNAL_ERROR, message, data)


def _find_resource(server: MCPServer, uri: str) -> Tuple[Any, Optional[Dict[str, Any]]]:
    """The static resource at ``uri`` (and None), or the first template that
    matches it (and its variables); RESOURCE_NOT_FOUND when there is neither."""
    resource = server._resources.get(uri)
    if resource is not None:
        return resource, None
    for template in server._templates.values():
        found = template.pattern.match(uri)
        if found is not None:
            if _resource_security_refuses(found):
                break  # the SDK's default ResourceSecurity (section 25): a traversal is no resource at all
            return template, found
    raise _RpcError(RESOURCE_NOT_FOUND, f"Unknown resource: {uri}", {"uri": uri})


def _contents(uri: str, value: Any, info: Resource) -> Dict[str, Any]:
    """One TextResourceContents or BlobResourceContents, as the SDK writes them."""
    contents: Dict[str, Any] = {"uri": uri, "mimeType": info.mime_type}
    if isinstance(value, (bytes, bytearray, memoryview)):
        import base64

        contents["blob"] = base64.b64encode(value).decode("ascii")
    else:
        contents["text"] = value if isinstance(value, str) else _dumps_text(value)
    if info.meta is not None:  # the SDK copies the resource's _meta onto its contents
        contents["_meta"] = _jsonable(info.meta)
    return contents


# -- URI templates (RFC 6570) ------------------------------------------------------
#
# A template's variables name what a resources/read URI supplies
# (server/resources, "Resource Templates").  RFC 6570 defines expansion only;
# reading the values back out of a URI is the SDK's matcher, fenced in
# section 27 (_UriTemplate): levels 1 to 3, a trailing {?a,b} query optional
# and in any order, linear in the URI's length.


# ---------------------------------------------------------------------------
# 11. Prompts and completion
# ---------------------------------------------------------------------------
#
# server/prompts and server/utilities/completion, as the SDK's MCPServer
# offers them.  A prompt's arguments are checked and converted as a tool's
# are (one _Tool, section 9).


class Message(_Record):
    """A prompt message: a ``role`` ("user" or "assistant") and one content
    block (text given as a ``str``, an ``Image``, an ``Audio``, a content block
    or its dict)."""

    def __init__(self, content: Any, role: str = "user", **kwargs: Any) -> None:
        if role not in ("user", "assistant"):
            raise ValueError(f"A message's role is 'user' or 'assistant', not {role!r}")
        if kwargs:
            raise TypeError(f"Message() got unexpected arguments: {', '.join(kwargs)}")
        self.role = role
        self.content = _message_content(content)

    def to_wire(self) -> Dict[str, Any]:
        return {"role": self.role, "content": self.content}


# The keys each content block needs (server/prompts, "Data Types"; schema.ts ContentBlock).
_BLOCK_KEYS = {"text": ("text",), "image": ("data", "mimeType"), "audio": ("data", "mimeType"),
               "resource": ("resource",), "resource_link": ("uri", "name")}


def _message_content(content: Any) -> Dict[str, Any]:
    if isinstance(content, str):
        return {"type": "text", "text": content}
    block = _wire_value(content) if isinstance(content, dict) else _content_block(content)  # (section 25)
    if block is None:
        raise TypeError(f"A message's content is text or a content block, not {type(content).__name__}")
    if block.get("type") not in _BLOCK_KEYS:
        raise ValueError(f"The content block {_truncated_repr(block)} has no known type ({', '.join(_BLOCK_KEYS)})")
    missing = [k for k in _BLOCK_KEYS[block["type"]] if k not in block]
    if missing:
        raise ValueError(f"The content block {_truncated_repr(block)} lacks {', '.join(missing)}")
    if block["type"] == "resource":
        resource = block["resource"]
        if not (isinstance(resource, dict) and "uri" in resource and ("text" in resource or "blob" in resource)):
            raise ValueError("An embedded resource needs a uri, and a text or a blob")
    return _jsonable(block)  # type: ignore[no-any-return]


class Prompt(_Record):
    """A prompt: a function whose parameters are its arguments (required when
    they have no default; a ``Field(description=...)`` describes one), returning
    the messages: a string (one user message), a content block, a ``Message``,
    a dict with ``role`` and ``content``, or a list of these."""

    def __init__(self, fn: Callable[..., Any], name: Optional[str] = None, title: Optional[str] = None,
                 description: Optional[str] = None, icons: Optional[List[Any]] = None,
                 meta: Optional[Dict[str, Any]] = None) -> None:
        self.params = _arguments_of(fn, name, description)
        self.fn, self.name, self.title, self.icons, self.meta = fn, self.params.name, title, icons, meta
        self.description = self.params.description
        schema = self.params.input_schema
        required = schema.get("required", [])
        self.arguments = [_drop_none({"name": key, "description": prop.get("description"), "required": key in required})
                          for key, prop in schema["properties"].items()]

    @classmethod
    def from_function(cls, fn: Callable[..., Any], name: Optional[str] = None, title: Optional[str] = None,
                      description: Optional[str] = None, icons: Optional[List[Any]] = None) -> Prompt:
        return cls(fn, name, title, description, icons)

    def describe(self) -> Dict[str, Any]:
        """As ``prompts/list`` publishes it in the newest revision."""
        item = {"name": self.name, "title": self.title, "description": self.description, "arguments": self.arguments,
                "icons": None if self.icons is None else _icons_wire(self.icons),
                "_meta": None if self.meta is None else _jsonable(self.meta)}
        return _drop_none(item)

    def render(self, arguments: Dict[str, Any], server: Optional[MCPServer] = None,
               request: Optional[_Request] = None) -> Dict[str, Any]:
        """The ``prompts/get`` result; errors as _RpcError (server/prompts, "Error Handling")."""
        missing = [a["name"] for a in self.arguments if a["required"] and a["name"] not in arguments]
        if missing:
            raise _RpcError(INVALID_PARAMS, f"Missing required arguments for prompt {self.name}: {', '.join(missing)}")
        try:
            try:
                kwargs = self.params.arguments(arguments)
            except ValidationError as exc:
                raise _RpcError(INVALID_PARAMS, f"Invalid arguments for prompt {self.name}: {exc}") from None
            if server is not None:
                _give_context(self.params, kwargs, server, request)
            value = _sdk_object(_call(self.fn, **kwargs), "prompt")  # the SDK's own results (section 26)
            if isinstance(value, InputRequiredResult):  # 2026-07-28: the prompt asks the client first
                if server is None or request is None or not request.stateless:
                    raise _RpcError(INTERNAL_ERROR, f"Error rendering prompt {self.name}: InputRequiredResult "
                                                    "exists only in protocol 2026-07-28")
                return server._input_required(self.params, request, value)
            items = value if isinstance(value, (list, tuple)) else [value]
            messages = [_message(item).to_wire() for item in items]
        except _RpcError:
            raise
        except _InputRequired:  # a question without its answer yet (2026-07-28)
            assert server is not None and request is not None
            return server._input_required(self.params, request, None)
        except _CapabilityMissing as exc:
            raise _RpcError(MISSING_REQUIRED_CLIENT_CAPABILITY, exc.message,
                            {"requiredCapabilities": exc.required}) from None
        except BaseException as exc:  # SystemExit too: it must not end the thread that reads stdin
            raise _failed(f"prompt {self.name!r}", f"Error rendering prompt {self.name}", exc) from None
        return {"description": self.description, "messages": messages}


def _message(item: Any) -> Message:
    item = _sdk_object(item, "message")  # the SDK's own messages (section 26)
    if isinstance(item, Message):
        return item
    if isinstance(item, dict):
        if "content" not in item or set(item) - {"role", "content"}:
            raise ValueError(f"A message is {{'role': ..., 'content': ...}}, not {_truncated_repr(item)}")
        return Message(**item)
    if isinstance(item, str) or isinstance(item, (_Block, _Media)) or _content_block(item) is not None:
        return UserMessage(item)
    return UserMessage(_dumps_text(item))  # anything else: its JSON text, as the SDK


# -- completion (server/utilities/completion) -------------------------------------


def _complete(server: MCPServer, params: Dict[str, Any]) -> Dict[str, Any]:
    """The ``completion/complete`` result: the server's handler called with
    (ref, argument, context), as the SDK calls it; errors as _RpcError."""
    ref, argument, context = params.get("ref"), params.get("argument"), params.get("context")
    reference, label, names = _completable(server, ref)
    if not isinstance(argument, dict) or not all(isinstance(argument.get(k), str) for k in ("name", "value")):
        raise _RpcError(INVALID_PARAMS, 'Invalid params: "argument" needs "name" and "value" (strings)')
    if argument["name"] not in names:
        raise _RpcError(INVALID_PARAMS, f"Invalid params: {label} has no argument {argument['name']!r}")
    resolved = None if context is None else context.get("arguments") if isinstance(context, dict) else _ABSENT
    if resolved is not None and not (isinstance(resolved, dict) and all(map(_is_str, resolved.values()))):
        raise _RpcError(INVALID_PARAMS, 'Invalid params: "context" is {"arguments": {name: string, ...}}')
    try:
        found = _call(server._completion or _no_handler, reference,
                      _CompletionArgument(argument["name"], argument["value"]),
                      None if context is None else _CompletionContext(resolved))
        return {"completion": _completion_wire(found)}
    except BaseException as exc:
        raise _failed("the completion handler", f"Error completing argument {argument['name']}", exc) from None


def _no_handler(*args: Any) -> None:
    return None


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _completable(server: MCPServer, ref: Any) -> Tuple[Any, str, List[str]]:
    """What ``ref`` names, as the handler gets it, and its argument names; or
    _RpcError: a prompt or a template this server does not have."""
    kind = ref.get("type") if isinstance(ref, dict) else None
    if kind == "ref/prompt" and isinstance(ref.get("name"), str):
        prompt = server._prompts.get(ref["name"])
        if prompt is None:
            raise _RpcError(INVALID_PARAMS, f"Unknown prompt: {ref['name']}")
        title = ref.get("title")
        return PromptReference(prompt.name, title), f"prompt {prompt.name}", [a["name"] for a in prompt.arguments]
    if kind == "ref/resource" and isinstance(ref.get("uri"), str):
        template = server._templates.get(ref["uri"])
        if template is None:
            raise _RpcError(INVALID_PARAMS, f"Unknown resource template: {ref['uri']}")
        return ResourceTemplateReference(ref["uri"]), f"resource template {ref['uri']}", template.pattern.names
    raise _RpcError(INVALID_PARAMS, 'Invalid params: "ref" is {"type": "ref/prompt", "name": ...} or '
                                    '{"type": "ref/resource", "uri": ...}')


def _completion_wire(found: Any) -> Dict[str, Any]:
    """A handler's answer as the result's ``completion``: None is no values;
    past 100 values (the spec's maximum), the first 100 and ``hasMore``."""
    if isinstance(found, (list, tuple)):
        found = Completion(list(found))
    elif isinstance(found, dict):
        found = Completion(found.get("values"), found.get("total"), found.get("hasMore", found.get("has_more")))
    values = list(getattr(found, "values", None) or [])
    total, more = getattr(found, "total", None), getattr(found, "has_more", None)
    if not all(map(_is_str, values)) or not (total is None or type(total) is int) or more not in (None, True, False):
        raise TypeError(f"A completion is Completion(values=[str, ...], total=int, has_more=bool), not {found!r}")
    if len(values) > 100:
        values, total, more = values[:100], len(values) if total is None else total, True
    return _drop_none({"values": values, "total": total, "hasMore": more})


def _offers(server: MCPServer) -> Dict[str, bool]:
    """What the server has of these: what its capabilities advertise and what it serves."""
    return {"resources": bool(server._resources or server._templates), "prompts": bool(server._prompts),
            "completions": server._completion is not None}


# ---------------------------------------------------------------------------
# 12. Context
# ---------------------------------------------------------------------------
#
# What a tool, a resource or a prompt may do besides returning (the SDK's
# mcp.server.mcpserver.Context): log to the client (server/utilities/logging),
# report progress (basic/utilities/progress), see that it was cancelled
# (basic/utilities/cancellation), and ask the client a question: elicitation,
# sampling, roots (client/elicitation, client/sampling, client/roots).  A
# resources/read or prompts/get whose function takes a Context runs as a
# tools/call does (_Connection.start_request), so the same holds there.
#
# A question travels differently in the two eras, with the same tool code:
#   handshake   a server-to-client JSON-RPC request on the same connection; the
#               call waits for the client's response (_Connection.ask).
#   2026-07-28  no server-to-client requests (basic/patterns/mrtr): the call
#               ends with an InputRequiredResult that carries the question;
#               the client retries with inputResponses and the tool runs again
#               from the start, now finding the answer.  Answers from earlier
#               rounds ride a signed requestState (section 13).
#
# Every Context method is awaitable, as in the SDK.  A sync tool (on its own
# thread) may call them without await: the work is done at once, and a
# question's answer is the ``.result()`` of what the method returns.

_LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"  # 2026-07-28: a request's own log level
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021  # 2026-07-28 basic/index


class MCPError(Exception):
    """The client refused or failed a request of the server (a JSON-RPC error
    response), or cannot receive it: ``code``, ``message`` and ``data``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class _BadAnswer(MCPError):
    """An answer unfit for its question: a tool error in a tool, as the SDK's models refuse it."""


class InputRequiredResult:
    """Returned by a tool in 2026-07-28 (basic/patterns/mrtr): the client must
    answer ``input_requests`` (key -> ``{"method": ..., "params": ...}``) and
    retry; ``request_state`` comes back as ``ctx.request_state`` (signed by the
    server on the way, so a client cannot alter it)."""

    def __init__(self, input_requests: Optional[Dict[str, Any]] = None, request_state: Optional[str] = None,
                 **kwargs: Any) -> None:
        self.input_requests = kwargs.get("inputRequests", input_requests)
        self.request_state = kwargs.get("requestState", request_state)


class _AwaitableValue:
    """A Context method's value, there already: ``await`` it, or ``.result()``."""

    __slots__ = ("value",)

    def __init__(self, value: Any = None) -> None:
        self.value = value

    def result(self) -> Any:
        return self.value

    def __await__(self) -> Any:
        return self.value
        yield  # a generator: awaitable without an event loop's help


# Read-only: an attempt to record an answer outside a stateless call fails loudly.
_NO_ANSWERS: Any = MappingProxyType({})


class _Request:
    """What a call knows of its request: id, revision, params and ``_meta``,
    the client, and where its messages go.  Behind every Context."""

    # Until a call sets them, shared defaults (made once, not per call: every
    # tools/call makes a _Request).  The dicts are a stateless call's own.
    last_progress: Optional[float] = None
    asked = 0  # questions asked so far in this run (their keys: _Request.ask)
    answers: Dict[str, Any] = _NO_ANSWERS  # 2026-07-28: this round's and earlier rounds' answers
    used: Dict[str, Any] = _NO_ANSWERS  # 2026-07-28: the answers this run has read
    wanted: Dict[str, Any] = _NO_ANSWERS  # 2026-07-28: questions to send back unanswered
    user_state: Optional[str] = None  # 2026-07-28: a tool's own requestState, verified
    binding = ""  # 2026-07-28: what its requestState is bound to (_state_binding)
    task_ready = False  # ctx.start_task() makes the call a task (section 16, _Tasks.for_call)
    task_id: Optional[str] = None  # a task's run: what its messages carry as related-task (section 16)

    def __init__(self, conn: Optional[_Connection], call: Optional[_CallInFlight], version: Optional[str],
                 params: Dict[str, Any]) -> None:
        self.conn, self.call, self.version, self.params = conn, call, version, params
        self.stateless = version in STATELESS_VERSIONS
        if self.stateless:
            self.answers, self.used, self.wanted = {}, {}, {}

    @property
    def meta(self) -> Dict[str, Any]:
        """The request's ``_meta`` ({} without one): read where asked (most calls never do)."""
        meta = self.params.get("_meta")
        return meta if isinstance(meta, dict) else {}

    def client_capabilities(self) -> Optional[Dict[str, Any]]:
        if self.stateless:
            caps = self.meta.get(META_CLIENT_CAPABILITIES)
            return caps if isinstance(caps, dict) else None
        return None if self.conn is None else self.conn.rpc.client_capabilities

    def send(self, method: str, params: Dict[str, Any]) -> None:
        """A notification on this request's stream (nowhere, outside a connection)."""
        if self.call is not None and not self.call.cancelled:
            self.call.stream(_encode_safely({"jsonrpc": "2.0", "method": method, "params": params}))

    def log_allowed(self, level: str) -> bool:
        if self.stateless:  # only what the request asked for, at its level or above
            wanted = self.meta.get(META_LOG_LEVEL)
        else:
            wanted = "debug" if self.conn is None or self.conn.rpc.log_level is None else self.conn.rpc.log_level
        return wanted in _LOG_LEVELS and _LOG_LEVELS.index(level) >= _LOG_LEVELS.index(str(wanted))

    # -- questions to the client ----------------------------------------------------

    def ask(self, method: str, params: Dict[str, Any], capability: Tuple[str, ...],
            convert: Callable[[Dict[str, Any]], Any]) -> Any:
        """A question to the client, answered by ``convert(the client's result)``:
        at once in the stateless era (or an _InputRequired unwinds the call), else
        by the client's response, awaited or waited for."""
        self._check_capability(capability)
        if self.stateless:
            key = f"{method.split('/')[0]}_{self.asked}"
            self.asked += 1
            answer = self.answers.get(key)
            if isinstance(answer, dict):
                self.used[key] = answer  # what the next round's state keeps (nothing the client added)
                return _AwaitableValue(convert(answer))
            self.wanted[key] = {"method": method, "params": params}
            raise _InputRequired()
        if self.conn is None or self.call is None:
            raise MCPError(INTERNAL_ERROR, f"{method}: there is no client to ask outside of a request")
        answer_ = self.conn.ask(self.call, method, params)
        timeout = self.conn.server.request_timeout
        if _in_event_loop():
            return _AwaitableAnswer(answer_, timeout, convert)
        return _AwaitableValue(convert(answer_.wait(timeout)))

    def check_question(self, question: Any) -> None:
        """A question in a tool's own InputRequiredResult: one of the kinds the
        spec allows there, of a capability the client declared."""
        method = question.get("method") if isinstance(question, dict) else None
        capability: Optional[Tuple[str, ...]] = {
            "elicitation/create": ("elicitation", "form"), "sampling/createMessage": ("sampling",),
            "roots/list": ("roots",),
        }.get(str(method))
        if capability is None:
            raise ValueError(f"an input request must be elicitation/create, sampling/createMessage or "
                             f"roots/list, not {_truncated_repr(method)}")
        params = question.get("params")
        if method == "elicitation/create" and isinstance(params, dict) and params.get("mode") == "url":
            capability = ("elicitation", "url")
        self._check_capability(capability)

    def _check_capability(self, capability: Tuple[str, ...]) -> None:
        """The client must have declared what it is asked (client/elicitation etc.)."""
        if capability[0] == "elicitation" and not self.stateless:
            since = "2025-06-18" if capability[-1] == "form" else "2025-11-25"
            if str(self.version) < since:  # the revision has no such request
                raise MCPError(INVALID_REQUEST, f"{'.'.join(capability)} does not exist in protocol {self.version}")
        missing = self._missing(capability)
        if missing is None:
            return
        if self.version in STATELESS_VERSIONS:  # (a 2025-11-25 task's run asks as a stateless one, in its revision)
            raise _CapabilityMissing(missing)
        raise MCPError(INVALID_REQUEST, f"the client does not support {'.'.join(missing)} (it did not declare that "
                                        "capability)")

    def _missing(self, capability: Tuple[str, ...]) -> Optional[Tuple[str, ...]]:
        """What of ``capability`` the client did not declare, or None.  Elicitation's
        form mode is ``{}`` or ``{"form": {}}``: an object with only ``url``
        declares URL mode alone (client/elicitation, 2025-11-25)."""
        declared: Any = self.client_capabilities() or {}
        for depth, name in enumerate(capability):
            parent = declared
            declared = declared.get(name) if isinstance(declared, dict) else None
            if declared is None and name == "form" and parent == {}:
                declared = parent
            if declared is None:
                # What is missing: {"elicitation": {}} when nothing of it was
                # declared, {"elicitation": {"form": {}}} when only another mode was.
                return capability[:1] if depth == 0 and capability[-1] == "form" else capability
        return None


class _InputRequired(BaseException):
    """Unwinds a stateless call at its first unanswered question (a BaseException,
    so that a tool's ``except Exception`` does not swallow it)."""


class _BadArguments(BaseException):
    """A call's arguments did not convert: ``result`` is its tool error."""

    def __init__(self, result: Dict[str, Any]) -> None:
        super().__init__()
        self.result = result


class _CapabilityMissing(BaseException):
    """A stateless call asked what the client did not declare: -32021."""

    def __init__(self, capability: Tuple[str, ...], message: str = "Missing required client capability") -> None:
        super().__init__(capability)
        self.message = message
        required: Dict[str, Any] = {}
        for name in reversed(capability):  # ("elicitation", "url") -> {"elicitation": {"url": {}}}
            required = {name: required}
        self.required = required


def _in_event_loop() -> bool:
    asyncio = sys.modules.get("asyncio")
    return asyncio is not None and asyncio._get_running_loop() is not None


class _Answer:
    """The client's response to one request of ours, when it comes."""

    def __init__(self) -> None:
        import threading

        self.done = threading.Event()
        self.result: Any = None
        self.error: Optional[Dict[str, Any]] = None
        self.then: List[Callable[[], None]] = []

    def settle(self, result: Any, error: Optional[Dict[str, Any]]) -> None:
        if self.done.is_set():
            return  # answered twice: the first answer stands
        self.result, self.error = result, error
        self.done.set()
        for callback in self.then:
            callback()

    def value(self) -> Dict[str, Any]:
        if self.error is not None:
            raise MCPError(int(self.error.get("code", INTERNAL_ERROR)), str(self.error.get("message", "")),
                           self.error.get("data"))
        if not isinstance(self.result, dict):
            raise _BadAnswer(INVALID_REQUEST, "the client's response holds no result object")
        return self.result

    def wait(self, timeout: float) -> Dict[str, Any]:
        if not self.done.wait(timeout):
            self.settle(None, {"code": INTERNAL_ERROR, "message": f"the client did not answer within {timeout:g} s"})
        return self.value()


class Context:
    """The request a tool is serving, and what it may do besides returning.

    A parameter annotated ``Context`` (any name) is filled by the server and is
    no argument of the tool.  Every method is awaitable as in the SDK; in a sync
    tool call it without ``await`` (a question's answer: ``.result()``)."""

    def __init__(self, request: Optional[_Request] = None, server: Optional[MCPServer] = None, *,
                 sdk_models: bool = False) -> None:
        self._request = request or _Request(None, None, None, {})
        self._server = server
        self._sdk_models = sdk_models  # the function took the SDK's Context: answers as its classes

    def __class_getitem__(cls, item: Any) -> Any:
        return cls  # Context[ServerSession, State], as the SDK's generic is written

    # -- the request -------------------------------------------------------------------

    @property
    def request_id(self) -> str:
        call = self._request.call
        return "" if call is None else str(call.id)

    @property
    def protocol_version(self) -> Optional[str]:
        return self._request.version

    @property
    def client_capabilities(self) -> Optional[_JsonObject]:
        caps = self._request.client_capabilities()
        return None if caps is None else _JsonObject(caps)

    @property
    def client_info(self) -> Optional[_JsonObject]:
        request = self._request
        info = request.meta.get(META_CLIENT_INFO) if request.stateless else (
            None if request.conn is None else request.conn.rpc.client_info)
        return _JsonObject(info) if isinstance(info, dict) else None

    @property
    def meta(self) -> _JsonObject:
        """The request's ``_meta`` (``ctx.meta.progress_token``, ...)."""
        return _JsonObject(self._request.meta)

    @property
    def request_context(self) -> _RequestContext:
        """The SDK's spelling: ``.request_id``, ``.meta``, ``.lifespan_context``, ``.session``."""
        return _RequestContext(self)

    @property
    def lifespan_context(self) -> Any:
        return None if self._server is None else self._server._lifespan_state

    @property
    def mcp_server(self) -> MCPServer:
        if self._server is None:
            raise ValueError("Context is not available outside of a request")
        return self._server

    @property
    def cancelled(self) -> bool:
        """Whether the client cancelled this request: a sync tool may stop early
        (an async tool's task is cancelled instead)."""
        call = self._request.call
        return call is not None and call.cancelled

    def start_task(self) -> _AwaitableValue:
        """Go on as a task (section 16): in a call that may become one (a tool
        with task support, a client that declared the tasks extension), the call
        is answered with a task now and the tool runs again in it, from the
        start, with the answers it had; anywhere else, nothing happens."""
        if self._request.task_ready:
            raise _StartTask()
        return _AwaitableValue(None)

    @property
    def input_responses(self) -> Optional[Dict[str, Any]]:
        """2026-07-28: the client's answers to a returned InputRequiredResult."""
        responses = self._request.params.get("inputResponses")
        return _input_responses(responses, self._sdk_models) if isinstance(responses, dict) else None

    @property
    def request_state(self) -> Optional[str]:
        """2026-07-28: the ``request_state`` of the InputRequiredResult this retry answers."""
        return self._request.user_state

    @property
    def session(self) -> _ClientSession:
        """The SDK's ``ctx.session``: sampling, roots and the raw notifications."""
        return _ClientSession(self._request, self._sdk_models)

    # -- logging and progress ----------------------------------------------------------

    def log(self, level: str, data: Any, *, logger_name: Optional[str] = None) -> _AwaitableValue:
        """``notifications/message`` at ``level`` (server/utilities/logging), if the
        client wants that level: ``logging/setLevel``, or in 2026-07-28 the
        request's own ``_meta`` (none there: nothing is sent)."""
        if level not in _LOG_LEVELS:
            raise ValueError(f"log level must be one of {', '.join(_LOG_LEVELS)}, not {level!r}")
        if self._request.log_allowed(level):
            params: Dict[str, Any] = {"level": level, "data": _jsonable(data)}
            if logger_name is not None:
                params["logger"] = logger_name
            self._request.send("notifications/message", params)
        return _AwaitableValue()

    def debug(self, data: Any, *, logger_name: Optional[str] = None) -> _AwaitableValue:
        return self.log("debug", data, logger_name=logger_name)

    def info(self, data: Any, *, logger_name: Optional[str] = None) -> _AwaitableValue:
        return self.log("info", data, logger_name=logger_name)

    def warning(self, data: Any, *, logger_name: Optional[str] = None) -> _AwaitableValue:
        return self.log("warning", data, logger_name=logger_name)

    def error(self, data: Any, *, logger_name: Optional[str] = None) -> _AwaitableValue:
        return self.log("error", data, logger_name=logger_name)

    def report_progress(self, progress: float, total: Optional[float] = None,
                        message: Optional[str] = None) -> _AwaitableValue:
        """``notifications/progress`` for the request's ``progressToken``
        (basic/utilities/progress); nothing without a token, and nothing that
        does not increase (the spec: progress MUST increase)."""
        request = self._request
        token = request.meta.get("progressToken")
        if token is None or (request.last_progress is not None and progress <= request.last_progress):
            return _AwaitableValue()
        request.last_progress = progress
        params: Dict[str, Any] = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None and (request.version or STATELESS_VERSIONS[-1]) >= "2025-03-26":
            params["message"] = message
        if request.task_id is not None:  # basic/utilities/tasks: "All ... notifications ... related to a task"
            params["_meta"] = {_RELATED_TASK: {"taskId": request.task_id}}
        request.send("notifications/progress", params)
        return _AwaitableValue()

    def notify_resource_updated(self, uri: str) -> _AwaitableValue:
        """``notifications/resources/updated`` to the clients subscribed to ``uri``."""
        self.mcp_server.notify_resource_updated(str(uri))
        return _AwaitableValue()

    def notify_tools_changed(self) -> _AwaitableValue:
        self.mcp_server._list_changed("tools")
        return _AwaitableValue()

    def notify_prompts_changed(self) -> _AwaitableValue:
        self.mcp_server._list_changed("prompts")
        return _AwaitableValue()

    def notify_resources_changed(self) -> _AwaitableValue:
        self.mcp_server._list_changed("resources")
        return _AwaitableValue()

    def close_sse_stream(self) -> _AwaitableValue:
        """End this call's SSE response now, the call going on (SEP-1699,
        polling): the client comes back with Last-Event-ID for the rest.  Only
        a resumable stream (a session's, over HTTP) is closed; else nothing."""
        call = self._request.call
        channel = getattr(call.stream, "__self__", None) if call is not None else None
        if isinstance(channel, _ResponseQueue):
            channel.close()
        return _AwaitableValue()

    def close_standalone_sse_stream(self) -> _AwaitableValue:
        """As close_sse_stream, for the session's GET stream."""
        channel = getattr(self._request.conn, "stream", None)
        if isinstance(channel, _ResponseQueue):
            channel.close()
        return _AwaitableValue()

    def read_resource(self, uri: str) -> _AwaitableValue:
        """A resource of this server, read (server/resources): a list of contents,
        each with ``.content`` (text, or bytes for a blob) and ``.mime_type``.
        An unknown URI raises ResourceNotFoundError; a failed read, ResourceError."""
        return _AwaitableValue(_contents_read(self.mcp_server, str(uri), self._request))

    # -- questions -----------------------------------------------------------------------

    def elicit(self, message: str, schema: Any) -> Any:
        """Ask the user for values of ``schema`` (a class of flat primitive fields,
        or a JSON Schema dict): client/elicitation, form mode.
        The answer, an ElicitationResult: AcceptedElicitation (``.data``: a
        ``schema``), DeclinedElicitation or CancelledElicitation."""
        requested = _elicitation_schema(schema)
        params = _form_params(self._request, message, requested)
        return self._request.ask("elicitation/create", params, ("elicitation", "form"),
                                 functools.partial(_elicitation_outcome, schema, requested, sdk=self._sdk_models))

    def elicit_url(self, message: str, url: str, elicitation_id: str) -> Any:
        """Send the user to ``url`` (URL-mode elicitation, from 2025-11-25):
        the answer says whether they agreed to go."""
        params = {"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id}
        return self._request.ask("elicitation/create", params, ("elicitation", "url"),
                                 lambda result: _ELICITATION.get(str(result.get("action")), CancelledElicitation)())


def _form_params(request: _Request, message: str, requested: Dict[str, Any]) -> Dict[str, Any]:
    """A form elicitation's params: ``mode`` from 2025-11-25 on, where
    client/elicitation defines it (the SDK always sends it; 2025-06-18's
    ElicitRequest has no such field)."""
    params: Dict[str, Any] = {"message": message, "requestedSchema": requested}
    if (request.version or STATELESS_VERSIONS[-1]) >= "2025-11-25":
        params = {"mode": "form", **params}
    return params


# What the client answers each question with (2026-07-28 schema.ts: ElicitResult,
# CreateMessageResult, ListRootsResult), as leniently as the SDK's models take
# it (a content block's "type" may be left out; null for what may be absent).
_BLOCK: Dict[str, Any] = {"anyOf": [
    {"type": "object", "required": ["text"], "properties": {"type": {"const": "text"}, "text": {"type": "string"}}},
    {"type": "object", "required": ["data", "mimeType"], "properties": {
        "type": {"enum": ["image", "audio"]}, "data": {"type": "string"}, "mimeType": {"type": "string"}}},
    {"type": "object", "required": ["name", "id", "input"], "properties": {
        "type": {"const": "tool_use"}, "name": {"type": "string"}, "id": {"type": "string"},
        "input": {"type": "object"}}},
    {"type": "object", "required": ["toolUseId"], "properties": {
        "type": {"const": "tool_result"}, "toolUseId": {"type": "string"}}}]}
_META_FIELD = {"type": ["object", "null"]}
_ANSWERS: Dict[str, Dict[str, Any]] = {
    "elicitation/create": {"type": "object", "required": ["action"], "properties": {
        "action": {"enum": ["accept", "decline", "cancel"]}, "_meta": _META_FIELD,
        "content": {"type": ["object", "null"], "additionalProperties": {"anyOf": [
            {"type": ["string", "number", "boolean", "null"]}, {"type": "array", "items": {"type": "string"}}]}}}},
    "sampling/createMessage": {"type": "object", "required": ["role", "content", "model"], "properties": {
        "role": {"enum": ["user", "assistant"]}, "model": {"type": "string"},
        "stopReason": {"type": ["string", "null"]}, "_meta": _META_FIELD,
        "content": {"anyOf": [_BLOCK, {"type": "array", "items": _BLOCK}]}}},
    "roots/list": {"type": "object", "required": ["roots"], "properties": {"_meta": _META_FIELD, "roots": {
        "type": "array", "items": {"type": "object", "required": ["uri"], "properties": {
            "uri": {"type": "string", "pattern": "^file://"}, "name": {"type": ["string", "null"]},
            "_meta": _META_FIELD}}}}},
}
@functools.lru_cache(maxsize=None)
def _answer_checker(method: str) -> _Checker:
    return _checker(_ANSWERS[method], "strict")


def _answer_problem(method: str, answer: Any) -> Optional[str]:
    """Where ``answer`` is no result of ``method`` (the client's), or None."""
    errors: List[_ErrorItem] = []
    _answer_checker(method)(answer, (), errors)
    return None if not errors else _where(answer, errors[0].loc)


def _where(value: Any, loc: Tuple[Any, ...]) -> str:
    """The JSON path of the failing value (the keys of a union's arms left out)."""
    path = "$"
    for step in loc:
        if isinstance(value, dict) and step in value or isinstance(value, list) and isinstance(step, int):
            value = value[step]
            path += f"[{step}]" if isinstance(step, int) else f".{step}"
    return path


_ELICITABLE = frozenset(("string", "number", "integer", "boolean"))


def _elicitation_schema(schema: Any) -> Dict[str, Any]:
    """The requestedSchema of a class: an object of primitive fields only
    (client/elicitation, "Requested Schema"), as the SDK refuses anything else."""
    if isinstance(schema, dict):
        return schema
    rendered = json_schema(schema)
    for name, prop in (rendered.get("properties") or {}).items():
        kind = prop.get("type") if isinstance(prop, dict) else None
        items = prop.get("items") if isinstance(prop, dict) else None
        if not (kind in _ELICITABLE or "enum" in prop or (kind == "array" and isinstance(items, dict)
                                                            and ("enum" in items or "anyOf" in items))):
            raise TypeError(f"Elicitation schema field {name!r} must be a primitive type (string, number, "
                            "integer, boolean) or an enum")
    if rendered.get("type") != "object" or "$defs" in rendered:
        raise TypeError(f"an elicitation schema must be a class of primitive fields, not {schema!r}")
    return rendered


def _elicited(schema: Any, requested: Dict[str, Any], content: Any) -> Any:
    """An accepted answer, checked against the schema and built as its class."""
    errors: List[_ErrorItem] = []
    checked = _checker(requested, "input")(content, (), errors)
    if errors:
        raise ValidationError(errors, str(requested.get("title", "elicitation")))
    if isinstance(schema, dict):
        return checked
    return _build_value(schema, checked)


# ---------------------------------------------------------------------------
# 13. Request state
# ---------------------------------------------------------------------------
#
# 2026-07-28 has no server-to-client requests (basic/patterns/mrtr): a call
# that needs the client's input ends with an InputRequiredResult (section 12,
# _Request.ask), and the client retries with inputResponses and the
# requestState the server gave it.  The state carries the answers of earlier
# rounds and the tool's own request_state; the dispatcher opens it (section 15)
# and MCPServer (section 14) seals it into the next InputRequiredResult.


# -- requestState (2026-07-28, basic/patterns/mrtr) -------------------------------------
#
# The client must not be able to alter what it echoes (the spec: "MUST protect
# its integrity ... and MUST reject state that fails verification"): the state is
# signed with HMAC-SHA256 under the server's key, bound to the method, its
# target and a digest of its arguments, and it expires.  It is signed, not
# encrypted: a tool must not put secrets in its own request_state.

_STATE_TTL = 600.0  # seconds a requestState stays valid


def _state_binding(method: str, target: str, arguments: Any, principal: Optional[str] = None) -> str:
    """What a requestState belongs to: the request, and over HTTP with a token
    verifier the principal it was issued to, so another user's replay is
    refused (basic/security_best_practices: bind state to the user)."""
    import hashlib

    digest = hashlib.sha256(json.dumps(arguments, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    if principal is None:
        return f"{method}\n{target}\n{digest[:32]}"
    return f"{method}\n{target}\n{digest[:32]}\n{hashlib.sha256(principal.encode()).hexdigest()[:32]}"


def _seal_state(key: Any, binding: str, answers: Dict[str, Any], user_state: Optional[str]) -> str:
    import base64
    import hashlib
    import hmac

    payload = json.dumps({"b": binding, "x": int(time.time() + _STATE_TTL), "r": answers, "s": user_state},
                         separators=(",", ":")).encode()
    if not isinstance(key, bytes):  # the SDK's RequestStateSecurity (_SdkStateCodec, section 26): it seals
        return key.seal(payload)  # type: ignore[no-any-return]
    body = base64.urlsafe_b64encode(payload).decode().rstrip("=")
    signature = base64.urlsafe_b64encode(hmac.new(key, body.encode(), hashlib.sha256).digest()).decode().rstrip("=")
    return f"v1.{body}.{signature}"


def _open_state(key: Any, binding: str, token: Any) -> Tuple[Dict[str, Any], Optional[str]]:
    """(earlier answers, the tool's own state) from a requestState; -32602 if it
    was altered, has expired, or belongs to another request."""
    import base64
    import hashlib
    import hmac

    def refuse(why: str) -> _RpcError:
        return _RpcError(INVALID_PARAMS, f"Invalid params: requestState {why}")

    if not isinstance(key, bytes):  # the SDK's RequestStateSecurity (_SdkStateCodec, section 26) opens it
        key, token = key.opened(token)
    # Our tokens are ASCII: anything else (a lone surrogate too) is forged, and
    # hmac.compare_digest refuses non-ASCII text (a TypeError, not a verdict).
    if not isinstance(token, str) or not token.isascii() or token.count(".") != 2 or not token.startswith("v1."):
        raise refuse("is malformed")
    _, body, signature = token.split(".")
    expected = base64.urlsafe_b64encode(hmac.new(key, body.encode(), hashlib.sha256).digest()).decode().rstrip("=")
    if not hmac.compare_digest(expected, signature):
        raise refuse("fails verification")
    try:
        payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except ValueError:
        raise refuse("is malformed") from None
    if not isinstance(payload, dict) or payload.get("b") != binding:
        raise refuse("belongs to another request")
    if not isinstance(payload.get("x"), int) or payload["x"] < time.time():
        raise refuse("has expired")
    return dict(payload.get("r") or {}), payload.get("s")


# ---------------------------------------------------------------------------
# 14. MCPServer
# ---------------------------------------------------------------------------


class MCPServer:
    """An MCP server of tools; the SDK's ``MCPServer`` tool layer, standard library only.
    Its tools follow server/tools (a tools/call's steps: "tools/call, top to
    bottom" below), its resources and prompts server/resources and server/prompts.

    Limits (each a keyword argument):
      ``max_message_bytes``  a longer input line is answered with an error and
                             skipped without being held in memory (4 MiB);
      ``max_depth``          deeper JSON nesting in a message is refused (64);
      ``max_result_bytes``   a larger tool result becomes a tool error (16 MiB);
      ``max_batch``          a JSON-RPC batch of more messages is refused (1000);
      ``page_size``          ``tools/list`` pages of this many tools, with cursors;
      ``workers``            threads for synchronous tools (8);
      ``drain_timeout``      at the end of input, calls still running after this
                             many seconds are answered with an error (10);
      ``request_timeout``    seconds a question to the client may wait (300).
    ``lifespan``: as the SDK's, a function of the server returning an async
    context manager, entered before serving and exited after; what it yields is
    ``ctx.lifespan_context``.  ``request_state_key``: the key that signs a
    2026-07-28 requestState (bytes or text; also MCP_REF_STATE_KEY in the
    environment); processes behind one load balancer need the same key, and
    without one each process makes its own.
    Tasks (section 16): ``task_store`` (a TaskStore; by default SQLite at
    $MCP_REF_TASK_STORE, else memory), ``task_ttl`` (seconds a task is kept,
    3600; None: unlimited), ``max_tasks_per_client`` (unfinished, 100),
    ``max_stored_tasks_per_client`` (stored, finished or not, 1000) and
    ``max_tasks`` (stored, 10000); a client is a token's principal, else a session.
    ``scope_hierarchy``: each scope with the narrower ones it implies (HTTP's bearer tokens, section 21).
    The SDK's other keywords: ``request_state_security`` (section 25), those of
    no effect here (``debug``, ``log_level``, ...); a few refused; any other a TypeError.
    """

    scope_hierarchy: Optional[Dict[str, List[str]]]  # set with the SDK's auth keywords (_sdk_settings)

    def __init__(
        self,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        instructions: Optional[str] = None,
        website_url: Optional[str] = None,
        icons: Optional[List[Any]] = None,
        version: str = "",
        *,
        page_size: Optional[int] = None,
        max_message_bytes: int = 4 * 1024 * 1024,
        max_depth: int = 64,
        max_result_bytes: int = 16 * 1024 * 1024,
        max_batch: int = 1000,
        workers: int = 8,
        drain_timeout: float = 10.0,
        request_timeout: float = 300.0,
        cache_ttl_ms: int = 0,
        cache_scope: str = "private", extensions: Optional[List[Any]] = None,
        lifespan: Optional[Callable[[Any], Any]] = None, request_state_key: Any = None,
        task_store: Optional[TaskStore] = None, task_ttl: Optional[float] = 3600.0,  # section 16
        max_tasks_per_client: int = 100, max_tasks: int = 10000, max_stored_tasks_per_client: Optional[int] = 1000,
        scope_hierarchy: Optional[Dict[str, List[str]]] = None,  # section 21
        **sdk_settings: Any,
    ) -> None:
        self.name = name or "mcp-server"
        self.title = title
        self.description = description
        self.instructions = instructions
        self.website_url = website_url
        self.icons = icons
        self.version = version
        self.page_size = page_size
        self.max_message_bytes = max_message_bytes
        self.max_depth = max_depth
        self.max_result_bytes = max_result_bytes
        self.max_batch = max_batch
        self.workers = workers
        self.drain_timeout = drain_timeout
        self.request_timeout = request_timeout
        self.lifespan = lifespan
        self._lifespan_state: Any = None
        key = request_state_key if request_state_key is not None else os.environ.get("MCP_REF_STATE_KEY")
        self._state_key: Any = key.encode() if isinstance(key, str) else bytes(key) if key else os.urandom(32)
        self._connections: List[Any] = []  # the connections serving now: list_changed goes to each
        self.cache_ttl_ms, self.cache_scope = cache_ttl_ms, cache_scope
        self.settings = _sdk_settings(self, name, request_state_key, sdk_settings, scope_hierarchy)
        self._tools: Dict[str, _Tool] = {}
        self._resources: Dict[str, Resource] = {}  # sections 10 and 11, as the next three
        self._templates: Dict[str, _Template] = {}
        self._prompts: Dict[str, Prompt] = {}
        self._completion: Optional[Callable[..., Any]] = None
        self._subscribers: Dict[str, Tuple[Any, ...]] = {}  # uri -> the _Dispatchers subscribed to it
        self.task_ttl, self.max_tasks_per_client, self.max_tasks = task_ttl, max_tasks_per_client, max_tasks
        self.max_stored_tasks_per_client = max_stored_tasks_per_client
        self._tasks = _Tasks(self, task_store)  # section 16
        self._add_extensions(extensions or [])
        for resource in sdk_settings.pop("resources", None) or ():  # the SDK's MCPServer(resources=[...])
            self.add_resource(resource)

    def _add_extensions(self, extensions: List[Any]) -> None:
        """Extensions (basic/versioning, "Extension Negotiation"; SEP-2133): each
        identifier's settings, declared under capabilities.extensions in 2026-07-28
        (None: not now); the request methods they add, each a function of (params,
        _Request); their tools/call interceptors, the first given outermost
        (_calling).  ``extensions``: the SDK's Extension objects (section 26)."""
        self._extensions: Dict[str, Callable[[], Optional[Dict[str, Any]]]] = {  # section 16's, as it declares it
            TASKS_EXTENSION: lambda: _tasks_declared(self, STATELESS_VERSIONS[-1], None).get("extensions", {}).get(
                TASKS_EXTENSION)}
        self._methods: Dict[str, Callable[[Dict[str, Any], _Request], Dict[str, Any]]] = {}
        self._interceptors: List[Any] = []
        for extension in extensions:
            _apply_extension(self, extension)

    # -- registration ----------------------------------------------------------

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        annotations: Any = None,
        icons: Optional[List[Any]] = None,
        meta: Optional[Dict[str, Any]] = None,
        structured_output: Optional[bool] = None,
        input_schema: Optional[Dict[str, Any]] = None,
        output_schema: Optional[Dict[str, Any]] = None,
        task_support: str = "forbidden",
    ) -> None:
        """Register ``fn`` as a tool; raises InvalidSignature if it cannot be one.  ``input_schema``,
        ``output_schema``: hand-written, published as written; the arguments come as JSON values.
        ``task_support``: "forbidden", "optional" or "required", whether a call may become a task (section 16)."""
        if task_support not in _TASK_SUPPORT:
            raise ValueError(f"task_support must be one of {', '.join(_TASK_SUPPORT)}, not {task_support!r}")
        tool = _Tool(fn, name, title, description, annotations, icons, meta, structured_output) \
            if input_schema is None and output_schema is None else _SchemaTool(  # hand-written (section 26)
                fn, name, title, description, annotations, icons, meta, structured_output, input_schema, output_schema)
        tool.task_support = task_support
        if _kept_first(self, "tool", tool.name, self._tools):  # as in the SDK, the first one stays (section 26)
            return
        self._tools[tool.name] = tool
        self._list_changed("tools")

    def tool(
        self,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        annotations: Any = None,
        icons: Optional[List[Any]] = None,
        meta: Optional[Dict[str, Any]] = None,
        structured_output: Optional[bool] = None,
        input_schema: Optional[Dict[str, Any]] = None,
        output_schema: Optional[Dict[str, Any]] = None,
        task_support: str = "forbidden",
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator that registers a tool: ``@server.tool()``; see add_tool."""
        _called_bare(name, "tool", "()")  # @tool without (): the SDK's TypeError (section 26)

        def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.add_tool(fn, name, title, description, annotations, icons, meta, structured_output,
                          input_schema, output_schema, task_support)
            return fn

        return decorator

    def remove_tool(self, name: str) -> None:
        if name not in self._tools:
            raise ToolError(f"Unknown tool: {name}")
        del self._tools[name]
        self._list_changed("tools")

    def _list_changed(self, kind: str) -> None:
        """notifications/{kind}/list_changed to each connection serving now
        (server/tools, "List Changed"), once per call that changes the list:
        during one (_announce_changes), when it ends."""
        if kind == "tools":
            self._tasks.tools_changed()  # whether a tool may become a task (section 16)
        pending = _CHANGES.get()
        if pending is not None:
            pending.setdefault(kind)
            return
        for connection in list(self._connections):
            connection.list_changed(kind)

    # -- in-process API ----------------------------------------------------------

    def list_tools(self, protocol_version: str = STATELESS_VERSIONS[-1]) -> List[Dict[str, Any]]:
        """The tools as ``tools/list`` sends them in ``protocol_version``."""
        return [_tool_for(t.describe(), protocol_version) for t in self._tools.values()]

    def call_tool(self, name: str, arguments: Optional[Dict[str, Any]] = None,
                  protocol_version: str = STATELESS_VERSIONS[-1]) -> Dict[str, Any]:
        """Call a tool and return the ``tools/call`` result as sent on the wire.
        An unknown tool raises ToolError (on the wire: JSON-RPC error -32602)."""
        try:
            tool = self._tool_named(name)
        except _RpcError as exc:
            raise ToolError(exc.message) from None
        outcome = self._invoke(tool, arguments or {}, _Request(None, None, protocol_version, {}))
        if isinstance(outcome, _RpcError):
            raise MCPError(outcome.code, outcome.message, None if outcome.data is _MISSING else outcome.data)
        result = _result_for(outcome, protocol_version)
        return json.loads(self._encode_result(tool, result, lambda r: r))  # type: ignore[no-any-return]

    def _invoke(self, tool: _Tool, arguments: Dict[str, Any], request: _Request) -> Any:
        """_call, start to end, on this thread: a sync tool's call never waits, so
        it needs no event loop (_call_sync); an async tool's gets one of its own.
        The list changes it makes are announced once, when it ends."""
        token = _CHANGES.set(changes := {})  # type: ignore[var-annotated]
        try:
            if tool.is_async or self._interceptors:  # an interceptor may wait (section 26)
                return _run_coroutine(self._calling(tool, arguments, request))
            return _call_sync(self, tool, arguments, request)
        finally:  # (most calls change nothing: the context's only reset)
            self._announce_changes(token) if changes else _CHANGES.reset(token)

    def _announce_changes(self, token: Any) -> None:
        """The end of a call: each list it changed announced once, before its
        response.  A tool that adds a tool, removes one and calls
        ctx.notify_tools_changed() sends one notifications/tools/list_changed,
        not three: the client lists again once either way."""
        changes = _CHANGES.get()
        _CHANGES.reset(token)
        for kind in changes:  # in the order of the first change
            self._list_changed(kind)

    # -- tools/call, top to bottom (server/tools) --------------------------------
    #
    # Every call takes these steps, in this order.  server/tools, "Error
    # Handling", gives each outcome: a request for a tool that does not exist is
    # a protocol error; whatever goes wrong with one that does is a tool
    # execution error, a result with isError: true that the model reads and can
    # act on.
    #
    #   step                                 outcome                           method
    #   -----------------------------------  --------------------------------  --------------
    #   1. find the tool                     unknown: JSON-RPC error -32602    _tool_named
    #   2. convert the arguments             refused: isError                  _call
    #   3. run the tool                      raised: isError                   _call
    #                                        an MCPError: its JSON-RPC error   _call (_stopped)
    #   4. check the result (outputSchema)   a mismatch: isError               _call
    #   5. encode the response               not JSON, too large: isError      _encode_result
    #
    # call_tool (above) takes the five steps in process.  On the wire, the
    # dispatcher's tools/call takes step 1 (section 15), and section 17 decides
    # where _call runs (inline, on the pool, on the event loop) and answers it
    # with step 5; neither decides an outcome.  A sync tool's call skips _call's
    # coroutine: _fast_call_sync (section 34), the same steps in the same order.

    def _tool_named(self, name: str) -> _Tool:
        """Step 1."""
        tool = self._tools.get(name)
        if tool is None:  # server/tools, "Error Handling": unknown tools are protocol errors
            raise _RpcError(INVALID_PARAMS, f"Unknown tool: {name}")
        return tool

    def _calling(self, tool: _Tool, arguments: Dict[str, Any], request: _Request) -> Any:
        """The coroutine of steps 2 to 4: _call, inside the extensions' interceptors
        when there are any (SEP-2133: an extension may wrap tools/call; section 26)."""
        return _intercepted(self, tool, arguments, request) if self._interceptors else \
            self._call(tool, arguments, request)

    async def _call(self, tool: _Tool, arguments: Dict[str, Any], request: _Request) -> Any:
        """Steps 2 to 4, for sync and async tools alike: the call's result, or
        (2026-07-28) an InputRequiredResult asking the client, or the -32021
        _RpcError of a question the client cannot take.  Whatever is raised at
        any step ends the call in exactly one of those (_stopped)."""
        try:
            # 2. The arguments, converted by the inputSchema's rules.  Refused, they
            # are a tool execution error (server/tools, "Error Handling", 2025-11-25:
            # "Input validation errors"; the SDK answers so in every revision).
            kwargs = self._arguments(tool, arguments, request)
            if tool.resolved is not None:  # the SDK's Resolve(...) parameters (section 25)
                kwargs.update(await _resolve_parameters(tool, kwargs, request, self))
            # 3. Run.  What the tool raises is a tool execution error too ("API
            # failures", "Business logic errors"): isError (_failure).  An MCPError
            # (ours or the SDK's) is the protocol error the tool chose: _stopped.
            value = tool.fn(**kwargs)
            if tool.is_async:
                value = await value
            value = value if type(value) in _NATIVE else _sdk_object(value, "tool")  # the SDK's own (section 26)
            if isinstance(value, InputRequiredResult):  # its questions checked: -32021 when undeclared
                return self._input_required(tool, request, value)
        except BaseException as exc:
            return self._stopped(tool, request, exc)
        # 4. The result as content and structuredContent, which MUST conform to the
        # outputSchema (server/tools, "Output Schema"): a mismatch is isError.
        return self._checked_result(tool, value)

    def _arguments(self, tool: _Tool, arguments: Dict[str, Any], request: _Request) -> Dict[str, Any]:
        """Step 2: the function's keyword arguments; _BadArguments (with the
        call's result, isError) when the client's do not convert."""
        try:
            kwargs = tool.arguments(arguments)
        except ValidationError as exc:
            raise _BadArguments(_tool_error(f"Error executing tool {tool.name}: {exc}")) from None
        except RecursionError:
            raise _BadArguments(_tool_error(f"Error executing tool {tool.name}: arguments are nested too "
                                            "deeply")) from None
        except BaseException as exc:  # an argument's own code (a dataclass's __post_init__, say)
            if _protocol_error(exc) is not None:
                raise  # an MCPError: its JSON-RPC error (_stopped), as the SDK passes it on
            raise _BadArguments(self._failure(tool, exc, request)) from None
        if tool.context_param is not None:
            kwargs[tool.context_param] = Context(request, self, sdk_models=tool.sdk_models)
        return kwargs

    def _stopped(self, tool: _Tool, request: _Request, exc: BaseException) -> Any:
        """Steps 2 and 3: the result of a call that raised, at whichever step."""
        if isinstance(exc, _BadArguments):
            return exc.result
        if isinstance(exc, _InputRequired):  # a question without its answer yet (stateless)
            return self._input_required(tool, request, None)
        if isinstance(exc, _CapabilityMissing):
            return _RpcError(MISSING_REQUIRED_CLIENT_CAPABILITY, exc.message, {"requiredCapabilities": exc.required})
        if isinstance(exc, _StartTask):  # ctx.start_task(): the call goes on as a task (section 16)
            return self._tasks.begin(tool, request)
        error = _protocol_error(exc)  # an MCPError: a protocol error, as the SDK sends it (section 26)
        if error is not None and not isinstance(exc, _BadAnswer):  # (server/tools, "Error Handling")
            return error
        return self._failure(tool, exc, request)  # CancelledError too: the tool's own, or the client's (unsent)

    def _input_required(self, tool: _Tool, request: _Request, value: Optional[InputRequiredResult]) -> Dict[str, Any]:
        """The call ends asking the client (2026-07-28, basic/patterns/mrtr): the
        questions asked, and a signed requestState with the answers so far."""
        if value is not None and getattr(tool, "resolved", None) is not None:
            # One input_required channel per call (the SDK's rule, a crash there): the resolvers' or the tool's.
            return self._failure(tool, RuntimeError("the tool returned an InputRequiredResult but its parameters "
                                                    "use Resolve(...)"), request)
        if not request.stateless:
            return _tool_error(f"Error executing tool {tool.name}: InputRequiredResult exists only in protocol "
                               "2026-07-28; in a session, ctx.elicit and ctx.session ask the client directly")
        questions = dict(request.wanted)
        if value is not None:
            for key, question in (value.input_requests or {}).items():
                question = _wire_value(question)
                request.check_question(question)
                questions[str(key)] = question
        result: Dict[str, Any] = {"resultType": "input_required"}
        if questions:
            result["inputRequests"] = questions
        user_state = request.user_state if value is None else value.request_state
        result["requestState"] = _seal_state(self._state_key, request.binding, request.used, user_state)
        return result

    def _failure(self, tool: _Tool, exc: BaseException, request: Optional[_Request] = None) -> Dict[str, Any]:
        """Step 3: a tool that raised, as a tool execution error (isError): a
        ToolError's or _BadAnswer's text, anything else without its details."""
        if isinstance(exc, ToolError):
            return _tool_error(f"Error executing tool {tool.name}: {exc}")
        if isinstance(exc, _BadAnswer):  # our own words about the client's answer, no paths
            return _tool_error(f"Error executing tool {tool.name}: {exc.message}")
        if request is not None and request.call is not None and request.call.cancelled:
            return _tool_error(f"Error executing tool {tool.name}: cancelled")  # never sent
        if isinstance(exc, (KeyboardInterrupt, SystemExit)) and not isinstance(exc, Exception):
            print(f"mcp_ref: tool {tool.name!r} raised {type(exc).__name__}; reported as a tool error",
                  file=sys.stderr)
        _log_exception(f"tool {tool.name!r} raised an exception", exc)
        # The model gets no traceback and no file paths: those stay on stderr.
        return _tool_error(f"Error executing tool {tool.name}")

    def _checked_result(self, tool: _Tool, value: Any) -> Dict[str, Any]:
        """Step 4: the tool's value as its result (section 9), checked against
        the outputSchema; a mismatch, or a value that is no JSON, is isError."""
        try:
            return tool.result(value)
        except ValidationError as exc:
            return _tool_error(f"Error executing tool {tool.name}: {exc}")
        except _NotJSON as exc:
            return _tool_error(f"Error executing tool {tool.name}: {exc.msg}")
        except RecursionError:
            return _tool_error(f"Error executing tool {tool.name}: the result is cyclic or nested too deeply")
        except BaseException as exc:
            _log_exception(f"tool {tool.name!r} returned a value that cannot be sent", exc)
            return _tool_error(f"Error executing tool {tool.name}: the result cannot be converted to JSON "
                               f"({type(exc).__name__})")

    def _encode_result(self, tool: _Tool, result: Dict[str, Any],
                       frame: Callable[[Dict[str, Any]], Any]) -> bytes:
        """Step 5: the wire bytes of ``frame(result)``; a result that is no JSON,
        or is over ``max_result_bytes``, becomes a tool error (measured once, as sent)."""
        least = _least_size(result)
        if least > self.max_result_bytes:  # refused before the whole message is made
            return _encode(frame(_tool_error(f"Error executing tool {tool.name}: the result is at least {least} "
                                             f"bytes of JSON, over this server's limit of {self.max_result_bytes}")))
        try:
            data = _encode_reply(result, frame)
        except Exception as exc:  # TypeError, ValueError, RecursionError from json; anything from a value's code
            _log_exception(f"tool {tool.name!r} returned a result that is not JSON", exc)
            return _encode(frame(_tool_error(f"Error executing tool {tool.name}: the result cannot be converted to "
                                             f"JSON ({type(exc).__name__})")))
        if len(data) > self.max_result_bytes:
            return _encode(frame(_tool_error(f"Error executing tool {tool.name}: the result is at least {len(data)} "
                                             f"bytes of JSON, over this server's limit of {self.max_result_bytes}")))
        return data

    # -- resources, prompts and completion (sections 10 and 11) ------------------

    def resource(
        self,
        uri: str,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        mime_type: Optional[str] = None,
        icons: Optional[List[Any]] = None,
        annotations: Any = None,
        meta: Optional[Dict[str, Any]] = None,
        cache_ttl_ms: Optional[int] = None,
        cache_scope: Optional[str] = None,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator registering a resource: ``@server.resource("config://app")``
        on a function without parameters, or a template,
        ``@server.resource("weather://{city}")``, whose URI variables are the
        function's parameters.  The function returns text, bytes, or any other
        value (sent as JSON text); it may be async."""
        _called_bare(uri, "resource", "('uri')")  # @resource without a URI: the SDK's TypeError (section 26)
        options = {"title": title, "mime_type": mime_type, "icons": icons, "annotations": annotations, "meta": meta,
                   "cache_ttl_ms": cache_ttl_ms, "cache_scope": cache_scope}
        variables = _UriTemplate(uri).names  # a malformed template fails here, before the function

        def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
            if variables:
                self._templates[uri] = _Template(fn, uri, name=name, description=description, **options)
                return fn
            params = _arguments_of(fn, name, description)
            if params.params:
                raise ValueError(f"Resource {uri!r} has no URI template variables, but the function declares "
                                 f"parameters {[p.name for p in params.params]}; add {{...}} variables to the URI or "
                                 f"remove the parameters")
            self.add_resource(FunctionResource(uri, fn, name=params.name, description=params.description, **options))
            return fn

        return decorator

    def add_resource(self, resource: Resource) -> None:
        """Register a Resource (TextResource, BinaryResource, FileResource, ...);
        as in the SDK, a second one at the same URI is ignored."""
        if not isinstance(resource, Resource):
            raise TypeError(f"add_resource takes a Resource (TextResource, FileResource, ...), "
                            f"not {type(resource).__name__}")
        if _kept_first(self, "resource", resource.uri, self._resources):  # section 26
            return
        self._resources[resource.uri] = resource
        self._list_changed("resources")

    def list_resources(self, protocol_version: str = STATELESS_VERSIONS[-1]) -> List[Dict[str, Any]]:
        """The resources as ``resources/list`` sends them in ``protocol_version``."""
        return [_fields_for(r.describe(), protocol_version, "resource") for r in self._resources.values()]

    def list_resource_templates(self, protocol_version: str = STATELESS_VERSIONS[-1]) -> List[Dict[str, Any]]:
        """The templates as ``resources/templates/list`` sends them in ``protocol_version``."""
        return [_fields_for(t.info.describe("uriTemplate"), protocol_version, "resource")
                for t in self._templates.values()]

    def read_resource(self, uri: str, protocol_version: str = STATELESS_VERSIONS[-1]) -> Dict[str, Any]:
        """The ``resources/read`` result as sent.  No such resource raises
        ResourceNotFoundError; a failed read, ResourceError."""
        try:
            result, _ = _read_resource(self, uri)
        except _RpcError as exc:
            raise (ResourceNotFoundError if exc.code == RESOURCE_NOT_FOUND else ResourceError)(exc.message) from None
        return _contents_for(result, protocol_version)

    def notify_resource_updated(self, uri: str) -> None:
        """Send ``notifications/resources/updated`` to the clients subscribed to
        ``uri`` (resources/subscribe, handshake revisions)."""
        for rpc in self._subscribers.get(uri, ()):
            if rpc.send is not None:
                rpc.send({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})
        for connection in list(self._connections):  # 2026-07-28: subscriptions/listen
            connection.resource_updated(uri)

    def prompt(
        self,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        icons: Optional[List[Any]] = None,
        meta: Optional[Dict[str, Any]] = None,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator registering a prompt: ``@server.prompt()``; its parameters
        are the prompt's arguments, its value the messages."""
        _called_bare(name, "prompt", "()")  # @prompt without (): the SDK's TypeError (section 26)

        def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.add_prompt(Prompt(fn, name, title, description, icons, meta))
            return fn

        return decorator

    def add_prompt(self, prompt: Prompt) -> None:
        """Register a Prompt; as in the SDK, a second one of the same name is ignored."""
        if not isinstance(prompt, Prompt):
            prompt = _sdk_prompt(prompt)  # the SDK's own Prompt, read as ours (section 26), or a TypeError
        if _kept_first(self, "prompt", prompt.name, self._prompts):  # section 26
            return
        self._prompts[prompt.name] = prompt
        self._list_changed("prompts")

    def remove_prompt(self, name: str) -> None:
        if name not in self._prompts:
            raise ValueError(f"Unknown prompt: {name}")
        del self._prompts[name]
        self._list_changed("prompts")

    def list_prompts(self, protocol_version: str = STATELESS_VERSIONS[-1]) -> List[Dict[str, Any]]:
        """The prompts as ``prompts/list`` sends them in ``protocol_version``."""
        return [_fields_for(p.describe(), protocol_version, "prompt") for p in self._prompts.values()]

    def get_prompt(self, name: str, arguments: Optional[Dict[str, Any]] = None,
                   protocol_version: str = STATELESS_VERSIONS[-1]) -> Dict[str, Any]:
        """The ``prompts/get`` result as sent; an unknown prompt, missing or
        invalid arguments, or a failing prompt raise ValueError."""
        prompt = self._prompts.get(name)
        if prompt is None:
            raise ValueError(f"Unknown prompt: {name}")
        try:
            return _messages_for(prompt.render(arguments or {}, self), protocol_version)
        except _RpcError as exc:
            raise ValueError(exc.message) from None

    def completion(self) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator registering the completion handler, called as
        ``handler(ref, argument, context)`` (it may be async) and returning a
        Completion, a list of strings, or None."""

        def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
            self._completion = fn
            return fn

        return decorator

    # -- serving ---------------------------------------------------------------

    def run(self, transport: str = "stdio", **kwargs: Any) -> None:
        """Serve, and return when the transport ends: the client closes stdin
        (SIGTERM/SIGINT end the process).  ``transport="streamable-http"``: HTTP
        on ``host`` and ``port`` (127.0.0.1:8000) until SIGTERM/SIGINT; see
        ``streamable_http_app``, and _HttpServer for ``max_client_connections``
        and ``read_timeout``; an address it cannot serve on is SystemExit(2)."""
        if transport not in ("stdio", "streamable-http"):
            raise ValueError(f"mcp_ref serves the stdio and streamable-http transports, not {transport!r}")
        if _IMPORTING:  # the command line's serve is importing the file (section 32): it would serve twice
            raise RuntimeError('run() is called as the file is imported; call it under if __name__ == "__main__":')
        # HTTP: the app of section 19 on the embedded server (_run_http, section 33).
        code = _run_http(self, exit_process=False, **kwargs) if transport == "streamable-http" else \
            _StdioServer(self, exit_process=False).serve()  # (the command line's ends the process)
        if code:
            raise SystemExit(code)

    # -- Streamable HTTP (section 19) ------------------------------------------------

    def streamable_http_app(
        self,
        *,
        streamable_http_path: str = "/mcp",
        json_response: bool = False,
        stateless_http: bool = False,
        max_request_body_size: Optional[int] = None,
        session_idle_timeout: Optional[float] = 1800.0,
        max_sessions: Optional[int] = 10000,
        max_sessions_per_client: Optional[int] = 1000,
        max_streams_per_client: Optional[int] = 100,
        transport_security: Any = None,
        host: str = "127.0.0.1",
        allowed_hosts: Optional[List[str]] = None,
        allowed_origins: Optional[List[str]] = None,
        request_timeout: Optional[float] = 300.0,
        sse_after: float = 10.0,
        keepalive: float = 15.0,
        event_store: Any = None,
        retry_interval: Optional[int] = 1000,
        max_stream_buffer: Optional[int] = 4 * 1024 * 1024,
        **sdk_options: Any,
    ) -> Callable[..., Any]:
        """The Streamable HTTP transport (section 19) as a WSGI application: one
        endpoint, both eras (2026-07-28 stateless; 2025-03-26 .. 2025-11-25 with
        sessions).  The keywords are the SDK's where it has them; what each one
        does, and its default: README, "Serving over HTTP"."""
        options = dict(streamable_http_path=streamable_http_path, json_response=json_response,
                       stateless_http=stateless_http, max_request_body_size=max_request_body_size,
                       session_idle_timeout=session_idle_timeout, max_sessions=max_sessions,
                       max_sessions_per_client=max_sessions_per_client,
                       max_streams_per_client=max_streams_per_client,
                       transport_security=transport_security, host=host, allowed_hosts=allowed_hosts,
                       allowed_origins=allowed_origins, request_timeout=request_timeout, sse_after=sse_after,
                       keepalive=keepalive, event_store=event_store, retry_interval=retry_interval,
                       max_stream_buffer=max_stream_buffer)
        return _HttpApp(self, options)


# The lists a call has changed so far (None outside a call): MCPServer._announce_changes.
_CHANGES: Any = contextvars.ContextVar("mcp_ref_changes", default=None)


def _least_size(result: Dict[str, Any]) -> int:
    """A lower bound of a result's encoded size: its content's texts and data."""
    size = 0
    for block in result.get("content", ()):
        if type(block) is dict:  # (ours; a subclass is left out: still a lower bound)
            value = block.get("text") or block.get("data")  # a block has one or the other
            if type(value) is str:
                size += len(value)
    return size


def _tool_error(text: str) -> Dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _log_exception(what: str, exc: BaseException) -> None:
    import traceback

    print(f"mcp_ref: {what}:", file=sys.stderr)
    traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)


def _run_coroutine(coro: Any) -> Any:
    import asyncio

    return asyncio.run(coro)


# Twin: _fast_call_sync, section 34.
def _call_sync(server: MCPServer, tool: _Tool, arguments: Dict[str, Any], request: _Request) -> Any:
    """A sync tool's call: MCPServer._call, which then never waits."""
    return _run_without_loop(server._call(tool, arguments, request))


def _run_without_loop(coro: Any) -> Any:
    """The value of a coroutine that never waits, without an event loop."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()
    raise RuntimeError("a synchronous tool's call waited for something")


# ---------------------------------------------------------------------------
# 15. JSON-RPC dispatch
# ---------------------------------------------------------------------------


def _error_response(id_: Any, error: _RpcError) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "error": error.to_wire()}


def _echo(value: Any) -> Any:
    """A client's value, to be sent back in an error's data: as it came when it
    is a string (an infinity or a deep object would make the reply unencodable)."""
    return value if isinstance(value, str) else _truncated_repr(value)


def _valid_id(id_: Any) -> bool:
    # MCP: "a string or integer ID", never null (basic/index, Requests).
    return isinstance(id_, str) or (isinstance(id_, int) and not isinstance(id_, bool))


# The requests of each era (server/tools, basic/lifecycle, basic/versioning):
# method -> the _Dispatcher method that answers it ("tools_call": _Connection).
# Resources, prompts, completion: server/resources, server/prompts,
# server/utilities/completion; resources/subscribe left 2026-07-28 for
# subscriptions/listen.
_HANDSHAKE_REQUESTS = {"ping": "ping", "logging/setLevel": "set_level", "tools/list": "tools_list",
                       "tools/call": "tools_call",
                       "resources/list": "resources_list", "resources/templates/list": "resource_templates_list",
                       "resources/read": "resources_read", "resources/subscribe": "resources_subscribe",
                       "resources/unsubscribe": "resources_unsubscribe", "prompts/list": "prompts_list",
                       "prompts/get": "prompts_get", "completion/complete": "complete",
                       "tasks/get": "tasks_get", "tasks/result": "tasks_result", "tasks/list": "tasks_list",
                       "tasks/cancel": "tasks_cancel"}
_STATELESS_REQUESTS = {"server/discover": "discover", "tools/list": "tools_list", "tools/call": "tools_call",
                       "resources/list": "resources_list", "resources/templates/list": "resource_templates_list",
                       "resources/read": "resources_read", "prompts/list": "prompts_list",
                       "prompts/get": "prompts_get", "completion/complete": "complete",
                       "subscriptions/listen": "listen",
                       "tasks/get": "tasks_get", "tasks/update": "tasks_update", "tasks/cancel": "tasks_cancel"}
# The requests whose function may take a Context: answered as a call is when it does (_runs_with_context).
_CONTEXT_HANDLERS = ("resources_read", "prompts_get")
META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
# What a subscriptions/listen stream can carry (SubscriptionFilter of 2026-07-28),
# besides resourceSubscriptions, a list of URIs.
_SUBSCRIBABLE = ("toolsListChanged", "promptsListChanged", "resourcesListChanged")


class _Dispatcher:
    """Routes one connection's messages.  Handshake era: ``initialize`` fixes the
    revision for the connection.  2026-07-28: each request carries its own
    revision in ``_meta``.  Both eras may share one connection (basic/versioning,
    "A dual-era server MAY serve both eras concurrently")."""

    def __init__(self, server: MCPServer) -> None:
        self.server = server
        self.version: Optional[str] = None  # negotiated by initialize
        self.client_capabilities: Optional[Dict[str, Any]] = None  # declared at initialize
        self.client_info: Optional[Dict[str, Any]] = None
        self.log_level: Optional[str] = None  # logging/setLevel; None: every level
        self.send: Optional[Callable[[Any], None]] = None  # the connection's write: notifications
        self.conn: Any = None  # the _Connection it routes for (whom its tasks belong to: section 16)

    def classify(self, message: Any) -> Tuple[str, Any]:
        """('request'|'notification'|'response'|'invalid', id or error)."""
        if not isinstance(message, dict):
            return "invalid", _RpcError(INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
        id_ = message.get("id", _MISSING)
        if "method" not in message and ("result" in message or "error" in message):
            return "response", id_
        if message.get("jsonrpc") != "2.0":
            return "invalid", _RpcError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
        if not isinstance(message.get("method"), str):
            return "invalid", _RpcError(INVALID_REQUEST, 'Invalid Request: "method" must be a string')
        if id_ is not _MISSING and not _valid_id(id_):
            return "invalid", _RpcError(INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer')
        params = message.get("params", _MISSING)
        if params is not _MISSING and not isinstance(params, dict):  # null and arrays too: MCP's are objects
            if id_ is _MISSING:
                return "notification", None  # never answered, whatever it holds
            return "invalid", _RpcError(INVALID_PARAMS, 'Invalid params: "params" must be an object')
        return ("notification", None) if id_ is _MISSING else ("request", id_)

    def route(self, method: str, params: Dict[str, Any]) -> Tuple[str, Optional[str]]:
        """(the name of the method that answers, revision) for a request, or raises _RpcError."""
        meta = params.get("_meta")
        if isinstance(meta, dict) and META_PROTOCOL_VERSION in meta:  # 2026-07-28: no initialize
            version = meta[META_PROTOCOL_VERSION]
            if version not in STATELESS_VERSIONS:
                raise _RpcError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                                {"supported": list(STATELESS_VERSIONS), "requested": _echo(version)})
            # The revision is known: a method it does not have (initialize, ping)
            # is -32601 before its params are looked at, as JSON-RPC orders them.
            if method not in _STATELESS_REQUESTS and not self.extension_serves(method, str(version)):
                raise _RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
            if not isinstance(meta.get(META_CLIENT_CAPABILITIES), dict):
                raise _RpcError(INVALID_PARAMS, f"Invalid params: _meta must carry {META_CLIENT_CAPABILITIES}")
            return _STATELESS_REQUESTS.get(method, "extension_method"), str(version)
        if method == "initialize":
            return "initialize", None
        if method == "server/discover":
            raise _RpcError(INVALID_PARAMS, f"Invalid params: _meta must carry {META_PROTOCOL_VERSION} "
                                            f"and {META_CLIENT_CAPABILITIES}")
        if self.version is None:
            if method == "ping":  # allowed before initialization (basic/lifecycle)
                return "ping", None
            raise _RpcError(INVALID_PARAMS, f"Invalid params: send initialize first, or carry "
                                            f"{META_PROTOCOL_VERSION} in _meta (protocol 2026-07-28)")
        if method in _HANDSHAKE_REQUESTS:
            return _HANDSHAKE_REQUESTS[method], self.version
        if self.extension_serves(method, self.version):
            return "extension_method", self.version
        raise _RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")

    def extension_serves(self, method: str, version: str) -> bool:
        """Whether an extension added ``method`` for ``version`` (additive only: the
        spec's methods are answered above, whatever an extension says)."""
        served = self.server._methods.get(method)
        versions = getattr(served, "protocol_versions", None)
        return served is not None and (versions is None or version in versions)

    # -- the requests, each answered at once (tools/call: by _Connection.start_call) ------

    def initialize(self, params: Dict[str, Any], version: Optional[str]) -> Dict[str, Any]:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise _RpcError(INVALID_PARAMS, 'Invalid params: initialize needs "protocolVersion" (a string)')
        # basic/lifecycle, "Version Negotiation": echo a version we support,
        # otherwise offer our latest.
        version = requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE_VERSION
        self.version = version
        capabilities, info = params.get("capabilities"), params.get("clientInfo")
        self.client_capabilities = capabilities if isinstance(capabilities, dict) else {}
        self.client_info = info if isinstance(info, dict) else None
        result: Dict[str, Any] = {"protocolVersion": version, "capabilities": self.capabilities(version),
                                  "serverInfo": _server_info(self.server, version)}
        if self.server.instructions is not None:
            result["instructions"] = self.server.instructions
        return result

    def ping(self, params: Dict[str, Any], version: Optional[str]) -> Dict[str, Any]:
        return {}

    def extension_method(self, method: str) -> Callable[..., Dict[str, Any]]:
        """What answers a request an extension added (basic/versioning, "Extension
        Negotiation"): its function, which checks the params itself (-32602 when
        they do not fit), as _Connection.start_request calls a handler."""
        served = self.server._methods[method]
        return lambda params, version, request: served(params, request)

    def set_level(self, params: Dict[str, Any], version: Optional[str]) -> Dict[str, Any]:
        """logging/setLevel (server/utilities/logging): the least level sent from now on."""
        level = params.get("level")
        if level not in _LOG_LEVELS:
            raise _RpcError(INVALID_PARAMS, f"Invalid params: level must be one of {', '.join(_LOG_LEVELS)}")
        self.log_level = str(level)
        return {}

    def discover(self, params: Dict[str, Any], version: Optional[str]) -> Dict[str, Any]:
        result: Dict[str, Any] = {"supportedVersions": list(STATELESS_VERSIONS),
                                  "capabilities": self.capabilities(str(version))}
        if self.server.instructions is not None:
            result["instructions"] = self.server.instructions
        return self._cacheable(result)

    def capabilities(self, version: str) -> Dict[str, Any]:
        """What the server offers (basic/lifecycle, "Capability Negotiation"):
        resources, prompts and completions only when it has them; in a session,
        logging.  A change of any list is announced (server/tools, "List
        Changed"): to a session, and in 2026-07-28 to the subscriptions/listen
        streams that ask for it, which also carry resources/updated."""
        stateless = version in STATELESS_VERSIONS
        capabilities: Dict[str, Any] = {} if stateless else {"logging": {}}
        capabilities["tools"] = {"listChanged": True}
        offers = _offers(self.server)
        if offers["resources"]:
            capabilities["resources"] = {"subscribe": True, "listChanged": True}
        if offers["prompts"]:
            capabilities["prompts"] = {"listChanged": True}
        if offers["completions"] and _has(version, "capability.completions"):
            capabilities["completions"] = {}
        tasks = _tasks_declared(self.server, version, self.conn)  # section 16: 2025-11-25's tasks; the extension
        capabilities.update((key, value) for key, value in tasks.items() if key != "extensions")
        extensions = _extensions_declared(self.server) if stateless else {}  # the tasks extension among them
        if extensions:
            capabilities["extensions"] = extensions
        return capabilities

    def tools_list(self, params: Dict[str, Any], version: Optional[str]) -> Dict[str, Any]:
        tools = _with_execution(self.server, self.server.list_tools(str(version)), version)  # section 16
        return self._paged("tools", tools, params, version)

    def tasks_result(self, params: Dict[str, Any], version: Optional[str],
                     request: Optional[_Request] = None) -> Dict[str, Any]:
        """2025-11-25's tasks/result (section 16): it waits, so it runs as a call does."""
        return self.server._tasks.result(params, version, request or _Request(None, None, version, params))

    def _paged(self, key: str, items: List[Any], params: Dict[str, Any], version: Optional[str]) -> Dict[str, Any]:
        """One page of a list (server/utilities/pagination): ``page_size`` items
        from the cursor, which is the position (opaque to the client)."""
        cursor = params.get("cursor")
        start = 0
        if cursor is not None:
            if not (isinstance(cursor, str) and cursor.isascii() and cursor.isdigit() and len(cursor) < 10
                    and int(cursor) <= len(items)):
                raise _RpcError(INVALID_PARAMS, "Invalid params: unknown cursor")
            start = int(cursor)
        result: Dict[str, Any] = {key: items[start:]}
        size = self.server.page_size
        if size:
            result[key] = items[start:start + size]
            if start + size < len(items):
                result["nextCursor"] = str(start + size)
        return self._cacheable(result) if version in STATELESS_VERSIONS else result

    def _cacheable(self, result: Dict[str, Any]) -> Dict[str, Any]:
        # server/utilities/caching: every cacheable result carries both hints.
        result["ttlMs"] = self.server.cache_ttl_ms
        result["cacheScope"] = self.server.cache_scope
        return result

    def tool_for_call(self, params: Dict[str, Any]) -> Tuple[_Tool, Dict[str, Any]]:
        """A tools/call's tool and arguments (server/tools, "Calling Tools"): the
        call's steps and outcomes are read in section 14 (MCPServer._call), and
        section 17 runs it."""
        name = params.get("name")
        if not isinstance(name, str):
            raise _RpcError(INVALID_PARAMS, 'Invalid params: tools/call needs "name" (a string)')
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise _RpcError(INVALID_PARAMS, 'Invalid params: "arguments" must be an object')
        return self.server._tool_named(name), arguments  # step 1 of tools/call (section 14)

    # -- resources, prompts and completion (sections 10 and 11) --------------------

    def _offered(self, feature: str, method: str) -> None:
        # Not advertised, not served: the capability says what exists (basic/lifecycle).
        if not _offers(self.server)[feature]:
            raise _RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")

    def resources_list(self, params: Dict[str, Any], version: Optional[str]) -> Dict[str, Any]:
        self._offered("resources", "resources/list")
        return self._paged("resources", self.server.list_resources(str(version)), params, version)

    def resource_templates_list(self, params: Dict[str, Any], version: Optional[str]) -> Dict[str, Any]:
        self._offered("resources", "resources/templates/list")
        return self._paged("resourceTemplates", self.server.list_resource_templates(str(version)), params, version)

    def resources_read(self, params: Dict[str, Any], version: Optional[str],
                       request: Optional[_Request] = None) -> Dict[str, Any]:
        """``request``: the read's own, when it runs as a call (_Connection.start_request)."""
        uri = self._uri(params, "resources/read")
        request = request or _Request(None, None, version, params)
        if request.stateless:  # perhaps a retry of an InputRequiredResult (basic/patterns/mrtr)
            _open_retry(request, self.server, "resources/read", uri, {}, params)
        try:
            result, resource = _read_resource(self.server, uri, request)
        except _RpcError as exc:
            if exc.code == RESOURCE_NOT_FOUND and version in STATELESS_VERSIONS and not isinstance(exc, _PassedOn):
                exc.code = INVALID_PARAMS  # 2026-07-28 server/resources, "Error Handling"; an MCPError's as raised
            raise
        except (_InputRequired, _Asking, _CapabilityMissing) as exc:
            return self._asks(uri, request, exc)
        result = _contents_for(result, str(version))
        if version not in STATELESS_VERSIONS:
            return result
        # server/utilities/caching: a resource's own hints over the server's.
        return dict(self._cacheable(result), **_drop_none({"ttlMs": resource.cache_ttl_ms,
                                                           "cacheScope": resource.cache_scope}))

    def _asks(self, uri: str, request: _Request, exc: BaseException) -> Dict[str, Any]:
        """A resource that asks the client (2026-07-28): an InputRequiredResult
        with the questions, or -32021 for one the client cannot take."""
        try:
            if isinstance(exc, _CapabilityMissing):
                raise exc
            return self.server._input_required(None, request, getattr(exc, "value", None))  # type: ignore[arg-type]
        except _CapabilityMissing as missing:
            raise _RpcError(MISSING_REQUIRED_CLIENT_CAPABILITY, missing.message,
                            {"requiredCapabilities": missing.required}) from None
        except Exception as error:  # a malformed question of its own InputRequiredResult
            raise _failed(f"resource {uri}", f"Error reading resource {uri}", error, {"uri": uri}) from None

    def _uri(self, params: Dict[str, Any], method: str) -> str:
        self._offered("resources", method)
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise _RpcError(INVALID_PARAMS, f'Invalid params: {method} needs "uri" (a string)')
        return uri

    def resources_subscribe(self, params: Dict[str, Any], version: Optional[str]) -> Dict[str, Any]:
        uri = self._uri(params, "resources/subscribe")
        _find_resource(self.server, uri)  # or RESOURCE_NOT_FOUND
        subscribers = self.server._subscribers
        subscribers[uri] = subscribers.get(uri, ()) + (self,)  # a new tuple: notify reads without a lock
        return {}

    def resources_unsubscribe(self, params: Dict[str, Any], version: Optional[str]) -> Dict[str, Any]:
        uri = self._uri(params, "resources/unsubscribe")
        subscribers = self.server._subscribers
        subscribers[uri] = tuple(rpc for rpc in subscribers.get(uri, ()) if rpc is not self)
        return {}

    def prompts_list(self, params: Dict[str, Any], version: Optional[str]) -> Dict[str, Any]:
        self._offered("prompts", "prompts/list")
        return self._paged("prompts", self.server.list_prompts(str(version)), params, version)

    def prompts_get(self, params: Dict[str, Any], version: Optional[str],
                    request: Optional[_Request] = None) -> Dict[str, Any]:
        """``request``: the prompt's own, when it runs as a call (_Connection.start_request)."""
        self._offered("prompts", "prompts/get")
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str):
            raise _RpcError(INVALID_PARAMS, 'Invalid params: prompts/get needs "name" (a string)')
        arguments = {} if arguments is None else arguments
        if not (isinstance(arguments, dict) and all(isinstance(v, str) for v in arguments.values())):
            raise _RpcError(INVALID_PARAMS, 'Invalid params: "arguments" must be an object of strings')
        prompt = self.server._prompts.get(name)
        if prompt is None:  # server/prompts, "Error Handling"
            raise _RpcError(INVALID_PARAMS, f"Unknown prompt: {name}")
        request = request or _Request(None, None, version, params)
        if request.stateless:  # perhaps a retry of an InputRequiredResult (basic/patterns/mrtr)
            _open_retry(request, self.server, "prompts/get", name, arguments, params)
        result = prompt.render(arguments, self.server, request)
        return result if "resultType" in result else _messages_for(result, str(version))

    def complete(self, params: Dict[str, Any], version: Optional[str]) -> Dict[str, Any]:
        self._offered("completions", "completion/complete")
        return _complete(self.server, params)

    def finish(self, result: Dict[str, Any], version: Optional[str]) -> Dict[str, Any]:
        """Decorate a result for its revision (2026-07-28: resultType and serverInfo)."""
        if version in STATELESS_VERSIONS:
            meta = dict(result.get("_meta") or {})
            meta[META_SERVER_INFO] = _server_info(self.server, str(version))
            result = dict(result, resultType=result.get("resultType", "complete"), _meta=meta)
        return result


def _open_retry(request: _Request, server: MCPServer, method: str, target: str, arguments: Any,
                params: Dict[str, Any]) -> None:
    """2026-07-28: what a retry answers (basic/patterns/mrtr), its inputResponses
    and the answers of earlier rounds from its verified requestState: of a
    tools/call, a resources/read or a prompts/get."""
    request.binding = _state_binding(method, target, arguments, getattr(request.conn, "principal", None))
    responses = params.get("inputResponses")
    if "inputResponses" in params and not isinstance(responses, dict):
        raise _RpcError(INVALID_PARAMS, 'Invalid params: "inputResponses" must be an object')
    # Each answer must be one of the results the spec allows there, before anything
    # runs (basic/patterns/mrtr, "Error Handling"; the SDK: -32602 otherwise).
    for key, response in (responses or {}).items():
        if all(_answer_problem(kind, response) is not None for kind in _ANSWERS):
            raise _RpcError(INVALID_PARAMS, f"Invalid params: inputResponses[{key!r}] is no ElicitResult, "
                                            f"CreateMessageResult or ListRootsResult")
    if params.get("requestState") is not None:
        request.answers, request.user_state = _open_state(server._state_key, request.binding, params["requestState"])
    request.answers.update(responses or {})


def _extensions_declared(server: MCPServer) -> Dict[str, Any]:
    """capabilities.extensions (2026-07-28, basic/versioning "Extension
    Negotiation"; SEP-2133): each extension's identifier and its settings, those
    declared now.  The SDK declares them in 2026-07-28 only: 2025-11-25's
    ServerCapabilities has no such field."""
    declared = {identifier: settings() for identifier, settings in server._extensions.items()}
    return {identifier: settings for identifier, settings in declared.items() if settings is not None}


def _runs_with_context(server: MCPServer, method: str, params: Dict[str, Any]) -> bool:
    """Whether a resources/read or prompts/get runs a function that takes a
    Context: it then runs as a tool call does (_Connection.start_request), so
    that what it sends reaches the client while it runs, and the client's
    answers to its questions can come in meanwhile."""
    if method == "prompts/get":
        name = params.get("name")
        prompt = server._prompts.get(name) if isinstance(name, str) else None
        return prompt is not None and prompt.params.context_param is not None
    uri = params.get("uri")
    if method != "resources/read" or not isinstance(uri, str):
        return False
    try:
        resource, found = _find_resource(server, uri)
    except _RpcError:
        return False  # answered at once: not found
    return (resource.params if found is not None else resource).__dict__.get("context_param") is not None


def _server_info(server: MCPServer, version: str) -> Dict[str, Any]:
    """The server's Implementation object with only the fields ``version`` defines."""
    info: Dict[str, Any] = {"name": server.name, "version": server.version}
    if server.title is not None and _has(version, "impl.title"):
        info["title"] = server.title
    if _has(version, "impl.extra"):
        extra = {"description": server.description, "websiteUrl": server.website_url,
                 "icons": server.icons and _icons_wire(server.icons)}
        info.update(_jsonable(_drop_none(extra)))
    return info


def _tool_for(tool: Dict[str, Any], version: str) -> Dict[str, Any]:
    """A tool with only the fields ``version`` defines."""
    out = dict(tool)
    for field, feature in (("annotations", "tool.annotations"), ("title", "tool.title"),
                           ("outputSchema", "tool.outputSchema"), ("_meta", "tool._meta"), ("icons", "tool.icons")):
        if field in out and not _has(version, feature):
            del out[field]
    return out


def _fields_for(item: Dict[str, Any], version: str, kind: str) -> Dict[str, Any]:
    """A resource, template, prompt or resource contents (``kind``: "resource",
    "prompt", "contents") with only the fields ``version`` defines."""
    out = dict(item)
    for field in ("title", "_meta", "icons"):
        if field in out and f"{kind}.{field}" in _SINCE and not _has(version, f"{kind}.{field}"):
            del out[field]
    notes = out.get("annotations")
    if isinstance(notes, dict) and "lastModified" in notes and not _has(version, "annotations.lastModified"):
        out["annotations"] = {k: v for k, v in notes.items() if k != "lastModified"}
    return out


def _contents_for(result: Dict[str, Any], version: str) -> Dict[str, Any]:
    return {"contents": [_fields_for(c, version, "contents") for c in result["contents"]]}


def _messages_for(result: Dict[str, Any], version: str) -> Dict[str, Any]:
    """A prompts/get result with only the block types ``version`` defines."""
    return dict(result, messages=[dict(m, content=_block_for(m["content"], version)) for m in result["messages"]])


def _result_for(result: Dict[str, Any], version: str) -> Dict[str, Any]:
    """A tools/call result with only the fields and block types ``version`` defines."""
    if version >= _ALL_RESULT_FIELDS_SINCE or "content" not in result:  # (an InputRequiredResult has none)
        return result
    if not _has(version, "result.structuredContent") and "structuredContent" in result:
        result = {k: v for k, v in result.items() if k != "structuredContent"}
    blocks = result["content"]
    if any(b.get("type") in ("audio", "resource_link") for b in blocks):
        result = dict(result, content=[_block_for(b, version) for b in blocks])
    return result


def _block_for(block: Dict[str, Any], version: str) -> Dict[str, Any]:
    # A block the revision does not know is described in text rather than lost.
    if block.get("type") == "audio" and not _has(version, "content.audio"):
        return {"type": "text", "text": f"[audio content, {block.get('mimeType')}, not supported by {version}]"}
    if block.get("type") == "resource_link" and not _has(version, "content.resource_link"):
        return {"type": "text", "text": f"[resource link: {block.get('uri')}]"}
    return block


# ---------------------------------------------------------------------------
# 16. Tasks
# ---------------------------------------------------------------------------
#
# Long-running calls as tasks: the server answers tools/call with a task, and
# the client polls it, answers its questions and fetches its result later,
# from any connection (basic/utilities/tasks, 2025-11-25; the
# io.modelcontextprotocol/tasks extension for 2026-07-28, "Tasks").
#
# A tool declares its task support where it is declared:
# ``@server.tool(task_support="optional")`` ("forbidden", the default;
# "optional"; "required").  The server decides, call by call, whether a call
# becomes a task ("Task creation is server-directed"): a call of a task tool
# from a client that declared the extension on that request does, when the
# call starts if the tool takes no Context, else when it calls
# ``ctx.start_task()`` (before that, it is an ordinary call: its questions go
# back as an InputRequiredResult, "resolve all MRTR exchanges synchronously
# before responding with a CreateTaskResult", and a result it returns first is
# the immediate-result shortcut).
#
# A task's run is a call like any other (MCPServer._call, section 14: its
# result checked against the outputSchema, isError by the same rules), on a
# thread of this process's task pool.  A question it asks ends the run, as in
# the stateless era (basic/patterns/mrtr): the task is input_required with the
# questions as inputRequests; tasks/update brings the answers (2025-11-25:
# tasks/result relays the questions to the client and takes its answers), and
# once none is outstanding the run starts again with all of them, so that the
# tool reads each answer where it asked.  Everything a task is (status, answers, result,
# TTL) lives in its TaskStore record, so another worker can answer tasks/get,
# take the answers and run it on; the worker running a task renews a lease on
# it, and a task whose lease lapsed (its worker died) is failed.
#
#   where                               what answers                 here
#   tools/call (section 17)             a task, -32021, or the call  _Tasks.for_call
#   ctx.start_task() (_stopped, s. 14)  the call goes on as a task   _Tasks.begin
#   tasks/get, tasks/update,            the task of the client's     _Tasks.answer
#   tasks/cancel (section 17)           principal, or -32602         (_task_owner)
#   2025-11-25's tasks/result           the result; the questions    _Tasks.result, relay
#   initialize, server/discover         what tasks declare           _tasks_declared
#   subscriptions/listen's taskIds      notifications/tasks          _Tasks.listened, announce
#   SIGTERM, the process's exit         its running tasks failed     _Tasks.stop

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
_TASK_TERMINAL = ("completed", "failed", "cancelled")
_TASK_SUPPORT = ("forbidden", "optional", "required")
_TASK_LEASE = 30.0  # seconds a worker vouches for a task it runs; renewed every third of that
_TASK_POLL_MS = 1000  # the pollIntervalMs suggested ("Task Polling")
_TASK_STOP = 1.0  # seconds a graceful stop gives the store to fail the tasks this process runs
_TASK_RETRIES = 100  # compare-and-set attempts before a busy task is reported as an internal error
_TASK_METHODS = frozenset(("tasks_get", "tasks_update", "tasks_cancel", "tasks_list"))
_TASKS_SINCE = "2025-11-25"  # the first revision with tasks (basic/utilities/tasks, experimental there)
_RELATED_TASK = "io.modelcontextprotocol/related-task"  # 2025-11-25: tasks/result's _meta key
_TASK_NOT_FOUND = "Failed to retrieve task: Task not found"  # the extension's own example text
_TASK_VIEWS = (1024, 8 << 20)  # records kept parsed (peek), Tasks kept shown: at most so many, of so much JSON


class TaskStore:
    """Where a server's tasks live: the interface, for a deployment that keeps
    them in the database it already runs.  InMemoryTaskStore is the default,
    SqliteTaskStore survives restarts and is shared by the processes of one
    machine.  ``MCPServer(task_store=...)`` takes one.

    A record is a JSON object: ``taskId``, ``owner`` (the principal it belongs
    to), ``status``, ``revision`` (the store's, for compare-and-set),
    ``createdAt`` and ``expiresAt`` (seconds since the epoch; expiresAt may be
    None), and the server's own fields.  Each method is called from many
    threads, and from several processes sharing one store: a record is
    replaced only by ``update`` with the revision it was read at.  One handed
    out is never changed after (other threads read it): each change is a new
    object with a new revision, by which the server caches what it shows."""

    # Whether a call may wait (a lock, the network): then the server never calls
    # it on stdio's reader, but as it runs a call (section 17).  Memory: no.
    blocking = True

    def create(self, record: Dict[str, Any]) -> None:
        """Store a new record (its taskId is new; its revision is 0)."""
        raise NotImplementedError

    def get(self, task_id: str) -> Optional[Dict[str, Any]]:
        """The record, a copy of its own; None if there is none."""
        raise NotImplementedError

    def peek(self, task_id: str) -> Optional[Dict[str, Any]]:
        """What a poll reads: the record as ``get`` gives it, or one the store keeps (never changed)."""
        return self.get(task_id)

    def update(self, record: Dict[str, Any]) -> bool:
        """Compare-and-set: replace the stored record of ``record["taskId"]`` if
        its revision is still ``record["revision"]``, storing revision + 1
        (set in ``record`` too).  False if it changed meanwhile, or is gone."""
        raise NotImplementedError

    def delete(self, task_id: str) -> None:
        raise NotImplementedError

    def list(self, owner: str, after: Optional[str], limit: int) -> List[Dict[str, Any]]:
        """Up to ``limit`` records of ``owner``, oldest first, from the one
        after the taskId ``after``."""
        raise NotImplementedError

    def count(self, owner: str) -> Tuple[int, int]:
        """(the tasks of ``owner`` not finished, all the tasks stored)."""
        raise NotImplementedError

    def owned(self, owner: str) -> int:
        """How many tasks of ``owner`` are stored, finished or not (by default by
        listing them: a store of its own may count them faster)."""
        count, after = 0, None
        while True:
            page = self.list(owner, after, 1000)
            count += len(page)
            if len(page) < 1000:
                return count
            after = page[-1]["taskId"]

    def purge(self, now: float) -> None:
        """Delete the records whose expiresAt has passed."""
        raise NotImplementedError

    def close(self) -> None:
        """Release what the store holds open (SQLite: idle connections), if anything."""


class InMemoryTaskStore(TaskStore):
    """The default store: this process's memory (gone with it).  Records are
    kept as JSON text, so that no caller holds a reference into the store;
    beside each, what count, list and purge read (owner, status, revision,
    times), so that none of them parses a record: a create is O(log n)."""

    blocking = False  # a lock held for microseconds

    def __init__(self) -> None:
        import threading

        self.lock = threading.Lock()  # guards everything below
        self.records: Dict[str, str] = {}
        self.heads: Dict[str, Tuple[str, str, int, float, Optional[float]]] = {}  # owner, status, revision, ...
        self.views: Dict[str, Dict[str, Any]] = {}  # peek's parsed records, made when first peeked
        self.viewed = 0  # the JSON text of views, in characters
        self.unfinished: Dict[str, int] = {}  # per owner
        self.by_owner: Dict[str, Dict[str, float]] = {}  # per owner, its taskIds' createdAt: what list reads
        self.expiries: List[Tuple[float, str]] = []  # a heap of (expiresAt, taskId); stale entries skipped

    def create(self, record: Dict[str, Any]) -> None:
        with self.lock:
            self._put(record)

    def _put(self, record: Dict[str, Any]) -> None:
        """(Under the lock.)  Store the record, replacing the one of its taskId."""
        import heapq

        task_id, owner, expires = record["taskId"], record["owner"], record["expiresAt"]
        old = self.heads.get(task_id)
        self._drop(task_id)
        self.records[task_id] = json.dumps(record)
        self.heads[task_id] = (owner, record["status"], record["revision"], record["createdAt"], expires)
        if record["status"] not in _TASK_TERMINAL:
            self.unfinished[owner] = self.unfinished.get(owner, 0) + 1
        self.by_owner.setdefault(owner, {})[task_id] = record["createdAt"]
        if expires is not None and (old is None or old[4] != expires):  # one entry per expiry
            heapq.heappush(self.expiries, (expires, task_id))

    def _drop(self, task_id: str) -> None:
        """(Under the lock.)  Forget the record of ``task_id``, if there is one."""
        head = self.heads.pop(task_id, None)
        if head is None:
            return
        if self.views.pop(task_id, None) is not None:
            self.viewed -= len(self.records[task_id])  # the text it was parsed from
        del self.records[task_id]
        owner, status = head[0], head[1]
        mine = self.by_owner[owner]
        del mine[task_id]
        if not mine:
            del self.by_owner[owner]
        if status not in _TASK_TERMINAL:
            self.unfinished[owner] -= 1
            if not self.unfinished[owner]:
                del self.unfinished[owner]

    def get(self, task_id: str) -> Optional[Dict[str, Any]]:
        with self.lock:
            text = self.records.get(task_id)
        return None if text is None else json.loads(text)

    def peek(self, task_id: str) -> Optional[Dict[str, Any]]:
        """The record parsed once per revision, and shared (a poll parses nothing)."""
        view = self.views.get(task_id)  # one dict read: as if before or after a write (which drops it first)
        if view is not None:
            return view
        with self.lock:
            text = self.records.get(task_id)
            if text is None:
                return None
            if len(self.views) >= _TASK_VIEWS[0] or self.viewed + len(text) > _TASK_VIEWS[1]:
                self.views.clear()
                self.viewed = 0
            view = self.views[task_id] = json.loads(text)
            self.viewed += len(text)
            return view  # type: ignore[no-any-return]

    def update(self, record: Dict[str, Any]) -> bool:
        with self.lock:
            head = self.heads.get(record["taskId"])
            if head is None or head[2] != record["revision"]:
                return False
            record["revision"] += 1
            self._put(record)
            return True

    def delete(self, task_id: str) -> None:
        with self.lock:
            self._drop(task_id)

    def list(self, owner: str, after: Optional[str], limit: int) -> List[Dict[str, Any]]:
        with self.lock:
            mine = sorted((created, task_id) for task_id, created in self.by_owner.get(owner, {}).items())
            ids = [task_id for _, task_id in mine]
            start = ids.index(after) + 1 if after in ids else 0
            texts = [self.records[task_id] for task_id in ids[start:start + limit]]
        return [json.loads(text) for text in texts]

    def count(self, owner: str) -> Tuple[int, int]:
        with self.lock:
            return self.unfinished.get(owner, 0), len(self.records)

    def owned(self, owner: str) -> int:
        with self.lock:
            return len(self.by_owner.get(owner, ()))

    def purge(self, now: float) -> None:
        import heapq

        with self.lock:
            while self.expiries and self.expiries[0][0] < now:
                expires, task_id = heapq.heappop(self.expiries)
                head = self.heads.get(task_id)
                if head is not None and head[4] == expires:  # else replaced since, with another expiry
                    self._drop(task_id)


class SqliteTaskStore(TaskStore):
    """Tasks in a SQLite file (``sqlite3``, loaded when first used): they survive
    a restart, and the processes of one machine (gunicorn's workers) share them.
    WAL mode lets readers run beside the writer; a busy database is waited for
    (``timeout`` seconds); compare-and-set is one UPDATE ... WHERE revision = ?,
    atomic in SQLite.  Not for a network file system (SQLite's own advice).
    Threads take turns on a few connections (one at a time each), so that
    threads which come and go (a server's per-connection threads) leave no
    connection open behind them."""

    _IDLE = 16  # connections kept open while no thread uses them (a gunicorn worker's 16 threads: no churn)
    closed = False  # set by close(): then no connection is kept idle

    def __init__(self, path: str, timeout: float = 30.0) -> None:
        import threading

        self.path, self.timeout = path, timeout
        self.lock = threading.Lock()  # guards everything below
        self.idle: List[Any] = []
        self.views: Dict[str, Tuple[int, Dict[str, Any], int]] = {}  # taskId: (revision, record, its text's length)
        self.viewed = 0  # the JSON text of views, in characters

    def _execute(self, query: str, args: Tuple[Any, ...], fetch: str = "") -> Any:
        """One statement on an idle connection (opened if none is): its first
        row (fetch "one"), all its rows ("all"), or how many it changed."""
        with self.lock:
            db = self.idle.pop() if self.idle else None
        if db is None:
            db = self._connect()
        try:
            try:
                cursor = db.execute(query, args)
            except UnicodeEncodeError:  # a client's id with a lone surrogate: no UTF-8 text, so no record has it
                return None if fetch == "one" else [] if fetch == "all" else 0
            return cursor.fetchone() if fetch == "one" else cursor.fetchall() if fetch == "all" else cursor.rowcount
        finally:
            with self.lock:
                kept = not self.closed and len(self.idle) < self._IDLE
                if kept:
                    self.idle.append(db)
            if not kept:
                db.close()

    def _connect(self) -> Any:
        import sqlite3

        # check_same_thread=False: a connection passes from thread to thread, used by one at a time
        db = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False)
        db.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
        db.execute("PRAGMA journal_mode = WAL")
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'mcp_tasks_removed'").fetchone():
            return db  # the schema is there (its last statement's trigger): no write lock to wait for
        db.execute("BEGIN IMMEDIATE")  # one process sets the schema up; the others find it done
        try:
            for statement in self._SCHEMA:
                db.execute(statement)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            db.close()
            raise
        return db

    # What each query reads is indexed, so that creating a task costs the same
    # with 300 stored or 10,000 (bench/README.md, "Tasks"): an owner's tasks in
    # list order (list, count); expiry (purge); and how many are stored, kept by
    # triggers (COUNT(*) of a table reads all of it).  A file made before the
    # indexes gets them, and its count, when first opened.
    _UNFINISHED = "status NOT IN ('completed', 'failed', 'cancelled')"  # _TASK_TERMINAL, as a partial index reads it
    _SCHEMA = (
        "CREATE TABLE IF NOT EXISTS mcp_tasks (id TEXT PRIMARY KEY, owner TEXT NOT NULL, status TEXT NOT NULL, "
        "revision INTEGER NOT NULL, created REAL NOT NULL, expires REAL, data TEXT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS mcp_tasks_owner ON mcp_tasks (owner, created, id)",
        "CREATE INDEX IF NOT EXISTS mcp_tasks_expires ON mcp_tasks (expires) WHERE expires IS NOT NULL",
        f"CREATE INDEX IF NOT EXISTS mcp_tasks_unfinished ON mcp_tasks (owner) WHERE {_UNFINISHED}",
        "CREATE TABLE IF NOT EXISTS mcp_tasks_stored (n INTEGER NOT NULL)",
        "INSERT INTO mcp_tasks_stored SELECT COUNT(*) FROM mcp_tasks WHERE NOT EXISTS (SELECT 1 FROM mcp_tasks_stored)",
        "CREATE TRIGGER IF NOT EXISTS mcp_tasks_added AFTER INSERT ON mcp_tasks "
        "BEGIN UPDATE mcp_tasks_stored SET n = n + 1; END",
        "CREATE TRIGGER IF NOT EXISTS mcp_tasks_removed AFTER DELETE ON mcp_tasks "
        "BEGIN UPDATE mcp_tasks_stored SET n = n - 1; END",
    )

    def create(self, record: Dict[str, Any]) -> None:
        self._execute("INSERT INTO mcp_tasks VALUES (?, ?, ?, ?, ?, ?, ?)", (
            record["taskId"], record["owner"], record["status"], record["revision"], record["createdAt"],
            record["expiresAt"], json.dumps(record)))

    def get(self, task_id: str) -> Optional[Dict[str, Any]]:
        row = self._execute("SELECT data FROM mcp_tasks WHERE id = ?", (task_id,), "one")
        return None if row is None else json.loads(row[0])

    def peek(self, task_id: str) -> Optional[Dict[str, Any]]:
        """Read from the file each time (another worker's writes are seen), but
        parsed only when its revision changed since this process last peeked."""
        seen = self.views.get(task_id)
        row = self._execute("SELECT revision, CASE WHEN revision = ? THEN NULL ELSE data END FROM mcp_tasks "
                            "WHERE id = ?", (-1 if seen is None else seen[0], task_id), "one")
        if row is not None and row[1] is None and seen is not None:
            return seen[1]
        view = None if row is None else (row[0], json.loads(row[1]), len(row[1]))
        with self.lock:
            self.viewed -= self.views.pop(task_id, (0, {}, 0))[2]
            if view is None:
                return None
            if len(self.views) >= _TASK_VIEWS[0] or self.viewed + view[2] > _TASK_VIEWS[1]:
                self.views.clear()
                self.viewed = 0
            self.views[task_id] = view
            self.viewed += view[2]
        return view[1]  # type: ignore[no-any-return]

    def update(self, record: Dict[str, Any]) -> bool:
        new = dict(record, revision=record["revision"] + 1)
        changed = self._execute(
            "UPDATE mcp_tasks SET status = ?, revision = ?, expires = ?, data = ? WHERE id = ? AND revision = ?",
            (new["status"], new["revision"], new["expiresAt"], json.dumps(new), record["taskId"], record["revision"]))
        if changed != 1:
            return False
        record["revision"] = new["revision"]
        return True

    def delete(self, task_id: str) -> None:
        self._execute("DELETE FROM mcp_tasks WHERE id = ?", (task_id,))

    def list(self, owner: str, after: Optional[str], limit: int) -> List[Dict[str, Any]]:
        start = self._execute("SELECT created, id FROM mcp_tasks WHERE id = ? AND owner = ?", (after, owner), "one")
        created, last = start if start is not None else (-1.0, "")
        rows = self._execute("SELECT data FROM mcp_tasks WHERE owner = ? AND (created, id) > (?, ?) "
                             "ORDER BY created, id LIMIT ?", (owner, created, last, limit), "all")  # (SQLite 3.15+)
        return [json.loads(row[0]) for row in rows]

    def count(self, owner: str) -> Tuple[int, int]:
        mine = self._execute(f"SELECT COUNT(*) FROM mcp_tasks WHERE owner = ? AND {self._UNFINISHED}",
                             (owner,), "one")[0]
        return int(mine), int(self._execute("SELECT n FROM mcp_tasks_stored", (), "one")[0])

    def owned(self, owner: str) -> int:
        return int(self._execute("SELECT COUNT(*) FROM mcp_tasks WHERE owner = ?", (owner,), "one")[0])

    def purge(self, now: float) -> None:
        self._execute("DELETE FROM mcp_tasks WHERE expires IS NOT NULL AND expires < ?", (now,))

    def close(self) -> None:
        """Close the idle connections now, one in use when its statement ends (the store still works)."""
        with self.lock:
            idle, self.idle, self.closed = self.idle, [], True
        for db in idle:
            db.close()


class _Deferred:
    """A CreateTaskResult to make as a call is run (_Tasks.made)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Dict[str, Any]]) -> None:
        self.make = make

    def __call__(self, params: Dict[str, Any], version: Optional[str], request: Any) -> Dict[str, Any]:
        return self.make()


class _StartTask(BaseException):
    """ctx.start_task() in a call that may become a task: unwinds its first run
    (a BaseException, as _InputRequired, that a tool's ``except Exception`` lets pass)."""


class _ShownTask(dict):  # type: ignore[type-arg]
    """A Task as a poll shows it (_Tasks.shown, once per revision) with its JSON
    text, counted there; _fast_dumps sends it as written, not encoded again."""

    __slots__ = ("json",)

    def __init__(self, task: Dict[str, Any]) -> None:
        super().__init__(task)
        self.json: str = _ENCODER.encode(task)  # (a result is up to max_result_bytes: shown counts it)


class _Tasks:
    """A server's tasks: its store, the runs of this process and their leases."""

    def __init__(self, server: MCPServer, store: Optional[TaskStore]) -> None:
        import threading

        self.server = server
        self.given = store
        self._store: Optional[TaskStore] = None
        self.lock = threading.Lock()  # guards everything below
        self.running: Dict[str, _CallInFlight] = {}  # the tasks this process runs (or has queued)
        self.pool: Optional[_Workers] = None
        self.heartbeat: Optional[Any] = None  # the running heartbeat's Event, which close() sets to end it
        self.shows: Dict[Tuple[str, Any], Tuple[int, Dict[str, Any], int]] = {}  # shown's: revision, Task, size
        self.shown_size = 0  # the JSON text of the Tasks in shows, in characters
        self.offering = False  # whether a tool may become a task (tools_changed)
        self.lease = _TASK_LEASE

    @property
    def store(self) -> TaskStore:
        """The store given, else SQLite at $MCP_REF_TASK_STORE, else memory (chosen when first used)."""
        if self._store is None:
            path = os.environ.get("MCP_REF_TASK_STORE")
            self._store = self.given or (SqliteTaskStore(path) if path else InMemoryTaskStore())
        return self._store

    # -- tools/call --------------------------------------------------------------

    def for_call(self, tool: _Tool, arguments: Dict[str, Any], request: _Request) -> Any:
        """A call of a task tool: its CreateTaskResult (or a _Deferred one: made),
        or None to run it as a call (ctx.start_task() may still make it a task:
        request.task_ready)."""
        if not request.stateless:
            return self.for_session_call(tool, arguments, request)
        if tool.task_support == "forbidden":  # the extension: the server decides; ``task`` is no param of it
            return None
        if not _declares_tasks(request):
            # "MUST NOT return CreateTaskResult to a client that did not include the
            # extension capability on its request"; a tool that needs it: -32021.
            if tool.task_support == "required":
                raise _RpcError(MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing required client capability",
                                {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}})
            return None
        if tool.context_param is not None:
            request.task_ready = True
            return None
        return self.made(lambda: dict(_task_wire(self.start(tool, arguments, request)), resultType="task"))

    def for_session_call(self, tool: _Tool, arguments: Dict[str, Any], request: _Request) -> Any:
        """2025-11-25 ("Tool-Level Negotiation"): the client asks for a task with
        the ``task`` param, and must for a "required" tool (-32601 otherwise).
        Its ``ttl`` (milliseconds) is honoured up to the server's task_ttl."""
        task = request.params.get("task")
        if str(request.version) < _TASKS_SINCE:
            return None  # no tasks in that revision: the call runs as ever
        if task is None:
            if tool.task_support == "required":
                raise _RpcError(METHOD_NOT_FOUND, f"Method not found: tool {tool.name} must be called as a task")
            return None
        if tool.task_support == "forbidden":
            # "Servers SHOULD return a -32601 (Method not found) error"; a server that
            # declares no tasks "MUST process requests ... normally, ignoring" ``task``.
            if not self.offering:
                return None
            raise _RpcError(METHOD_NOT_FOUND, f"Method not found: tool {tool.name} cannot be called as a task")
        ttl = task.get("ttl") if isinstance(task, dict) else None
        if not isinstance(task, dict) or ttl is not None and (
                not isinstance(ttl, (int, float)) or isinstance(ttl, bool) or not 0 < ttl < 1e15):
            raise _RpcError(INVALID_PARAMS, 'Invalid params: "task" must be an object, its "ttl" a positive number')
        ttl = None if ttl is None else ttl / 1000
        return self.made(lambda: {"task": _task_wire_v1(self.start(tool, arguments, request, ttl))})

    def made(self, make: Callable[[], Dict[str, Any]]) -> Any:
        """The CreateTaskResult ``make`` makes; a _Deferred one where the store
        may wait (SQLite: a file another process has locked waits out the busy
        timeout): the connection makes it as it runs a call, so that stdio's
        reader is not held (a slow call passes reading on, section 18)."""
        return _Deferred(make) if self.store.blocking else make()

    def begin(self, tool: _Tool, request: _Request) -> Any:
        """ctx.start_task() unwound the call: its CreateTaskResult (an _RpcError past a limit)."""
        arguments = request.params.get("arguments")
        try:
            return dict(_task_wire(self.start(tool, arguments if isinstance(arguments, dict) else {}, request)),
                        resultType="task")
        except _RpcError as exc:
            return exc

    def start(self, tool: _Tool, arguments: Dict[str, Any], request: _Request,
              ttl: Optional[float] = None) -> Dict[str, Any]:
        """A new task for the call: durably created ("MUST NOT return
        CreateTaskResult until the task is durably created"), then queued to run."""
        import uuid

        owner = _task_owner(request.conn)
        now = time.time()
        self.store.purge(now)
        self.check_limits(owner)
        limit = self.server.task_ttl
        ttl = limit if ttl is None or limit is not None and ttl > limit else ttl
        meta = _task_meta(request)
        record: Dict[str, Any] = {"taskId": str(uuid.uuid4()), "owner": owner, "status": "working", "revision": 0,
                  "createdAt": now, "updatedAt": now, "expiresAt": None if ttl is None else now + ttl, "ttl": ttl,
                  "tool": tool.name, "arguments": arguments, "meta": meta, "version": request.version,
                  "answers": dict(request.answers), "userState": request.user_state, "lease": now + self.lease}
        self.store.create(record)
        self.submit(record["taskId"], owner, _progress_stream(request))
        return record

    def check_limits(self, owner: str) -> None:
        """-32600 past a limit ("Enforce limits on concurrent tasks per requestor",
        "Resource Management"): the client's unfinished tasks; the client's
        stored, finished or not (kept for task_ttl: one client's finished tasks
        must not fill the server for everyone); the server's stored."""
        server = self.server
        mine, stored = self.store.count(owner)
        kept = self.store.owned(owner) if server.max_stored_tasks_per_client is not None else 0
        if mine >= server.max_tasks_per_client:
            why = f"this client has {mine} tasks not finished (limit {server.max_tasks_per_client})"
        elif server.max_stored_tasks_per_client is not None and kept >= server.max_stored_tasks_per_client:
            why = (f"this client has {kept} tasks stored (limit {server.max_stored_tasks_per_client}; "
                   f"{_ttl_text(server.task_ttl)})")
        elif stored >= server.max_tasks:
            why = f"this server has {stored} tasks stored (limit {server.max_tasks})"
        else:
            return
        raise _RpcError(INVALID_REQUEST, f"Too many tasks: {why}")

    # -- the runs ------------------------------------------------------------------

    def submit(self, task_id: str, owner: str, stream: Optional[Callable[[bytes], None]] = None) -> None:
        """Queue a run of the task on this process's task pool (fair between owners).
        What the run sends (progress) goes to ``stream``; by default nowhere."""
        import threading

        call = _CallInFlight(None, _ignore, stream or _ignore)  # ctx.cancelled
        with self.lock:
            if self.pool is None:
                self.pool = _Workers(max(16, self.server.workers), per_client=max(8, self.server.workers // 2))
            self.running[task_id] = call
            start, pool = self.heartbeat is None, self.pool
            beat = self.heartbeat = self.heartbeat or threading.Event()
        if start:
            threading.Thread(target=self._beat, args=(beat,), name="mcp_ref-task-lease", daemon=True).start()
            _stop_tasks_at_exit(self)
        pool.submit(functools.partial(self._run, task_id, call), owner)

    def stop(self, wait: float = _TASK_STOP) -> None:
        """A graceful stop (SIGTERM, the end of stdio's input, the process
        exiting): the tasks this process runs are failed now, not left
        ``working`` until their lease lapses (30 s) and another worker fails
        them; a run that ends after is dropped (_settle: only from working), and
        is told (ctx.cancelled).  At most ``wait`` seconds: a store that does
        not answer (a locked SQLite file) holds no stop longer."""
        import threading

        with self.lock:
            runs = list(self.running.items())
        if not runs:
            return
        for _, call in runs:
            call.cancelled = True
        failing = threading.Thread(target=self._fail_all, args=([task_id for task_id, _ in runs],),
                                   name="mcp_ref-task-stop", daemon=True)
        failing.start()
        failing.join(wait)

    def _fail_all(self, task_ids: List[str]) -> None:
        for task_id in task_ids:
            try:
                self._change(task_id, functools.partial(_lost, "The server stopped while the task ran"))
            except Exception as exc:
                _log_exception(f"task {task_id} could not be marked failed", exc)

    def close(self) -> None:
        """The task threads end: the pool's once the runs queued have run, the heartbeat
        now (a run still going is not renewed: as a worker that stopped).  The store made
        here is closed, one given is its owner's.  A task submitted later starts them again."""
        with self.lock:
            pool, beat, self.pool, self.heartbeat = self.pool, self.heartbeat, None, None
        if beat is not None:
            beat.set()
        if pool is not None:
            pool.close()
        if self.given is None and self._store is not None:
            self._store.close()

    def _run(self, task_id: str, call: _CallInFlight) -> None:
        """One run of a task: the tool called with every answer so far; the
        outcome settles the task, unless it was cancelled meanwhile."""
        try:
            record = self.store.get(task_id)
            if record is None or record["status"] != "working" or call.cancelled:
                return
            tool = self.server._tools.get(record["tool"])
            if tool is None:  # removed since: as tools/call would answer
                self._settle(task_id, {"status": "failed", "error": {
                    "code": INVALID_PARAMS, "message": f"Unknown tool: {record['tool']}"}})
                return
            request = _task_request(record, call)
            outcome = _invoke_safely(self.server, tool, record["arguments"], request)
            self._settle(task_id, self._outcome(tool, record, request, outcome))
        except Exception as exc:  # a bug of ours, or the store failing: the task is failed if it can be
            _log_exception(f"task {task_id} failed", exc)
            try:
                self._settle(task_id, {"status": "failed", "error": {"code": INTERNAL_ERROR,
                                                                     "message": "Internal error"}})
            except Exception as again:
                _log_exception(f"task {task_id} could not be marked failed", again)
        finally:
            call.cancelled = True  # the run is over: a Context kept past it sends nothing more (progress
            with self.lock:        # "MUST stop after the task reaches a terminal status", basic/utilities/progress)
                if self.running.get(task_id) is call:
                    del self.running[task_id]

    def _outcome(self, tool: _Tool, record: Dict[str, Any], request: _Request, outcome: Any) -> Dict[str, Any]:
        """What a run's outcome makes of the task ("Task Status"): a JSON-RPC
        error fails it; questions make it input_required; a result, isError or
        not, completes it (step 5 of tools/call: _encode_result, its size limit)."""
        if isinstance(outcome, _RpcError):
            return {"status": "failed", "error": outcome.to_wire(), "statusMessage": outcome.message}
        if isinstance(outcome, dict) and outcome.get("resultType") == "input_required":
            asked = outcome.get("inputRequests") or {}
            pending = {key: q for key, q in asked.items() if key not in record["answers"]}
            if not pending:  # it asks again what was answered: it would never end
                return {"status": "failed", "error": {"code": INTERNAL_ERROR, "message": "Internal error: the "
                                                      "tool asked again questions already answered"}}
            _, user_state = _open_state(self.server._state_key, request.binding, outcome["requestState"])
            return {"status": "input_required", "inputRequests": pending, "userState": user_state}
        if outcome is None:
            outcome = _tool_error(f"Error executing tool {tool.name}")
        data = self.server._encode_result(tool, _result_for(outcome, str(record["version"])), lambda r: r)
        result = json.loads(data)
        if result.get("isError") is True and record["version"] not in STATELESS_VERSIONS:
            # 2025-11-25, "Task Execution Errors": "when the tool result has isError
            # set to true, the task should reach failed status" (the extension: MUST
            # be completed); tasks/result still returns the result, as the call would.
            text = next((block.get("text") for block in result.get("content") or () if isinstance(block, dict)
                         and isinstance(block.get("text"), str)), "The tool failed")
            return {"status": "failed", "result": result, "statusMessage": " ".join(str(text).split())[:200]}
        return {"status": "completed", "result": result}

    def _settle(self, task_id: str, changes: Dict[str, Any]) -> None:
        """Apply a run's outcome, if the task is still working (compare-and-set):
        a task cancelled meanwhile stays cancelled, and its result is dropped."""
        self._change(task_id, lambda record: dict(record, **changes) if record["status"] == "working" else None)

    def _change(self, task_id: str,
                change: Callable[[Dict[str, Any]], Optional[Dict[str, Any]]]) -> Optional[Dict[str, Any]]:
        """Read, change, compare-and-set, again while another writer got there
        first: the record stored; None when ``change`` wanted nothing (or there
        is no such task)."""
        for _ in range(_TASK_RETRIES):
            record = self.store.get(task_id)
            new = None if record is None else change(record)
            if new is None:
                return None
            new["updatedAt"] = time.time()
            if self.store.update(new):
                self.announce(new)
                return new
        raise _RpcError(INTERNAL_ERROR, "Internal error: the task is changed by too many requests at once")

    def announce(self, record: Dict[str, Any]) -> None:
        """notifications/tasks ("Task Status Notifications"): the task as tasks/get
        shows it, to the subscriptions/listen streams of this process that asked
        for it (another worker's streams learn it by polling)."""
        task = _task_detailed(record)
        for connection in list(self.server._connections):
            connection.task_changed(record["taskId"], task)

    def listened(self, task_ids: Any, params: Dict[str, Any], conn: Any) -> List[str]:
        """The taskIds of a subscriptions/listen that notifications/tasks will be
        sent for: the client's own, of those named; -32021 without the extension."""
        if not _declares_tasks(_Request(None, None, STATELESS_VERSIONS[-1], params)):
            raise _RpcError(MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing required client capability",
                            {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}})
        if not isinstance(task_ids, list) or len(task_ids) > self.server.max_tasks_per_client:
            raise _RpcError(INVALID_PARAMS, f'Invalid params: "taskIds" must be a list of at most '
                                            f'{self.server.max_tasks_per_client} task ids')
        owner = _task_owner(conn)
        return [task_id for task_id in task_ids
                if isinstance(task_id, str) and (self.store.peek(task_id) or {}).get("owner") == owner]

    def _beat(self, beat: Any) -> None:
        """The heartbeat: while this process runs tasks, renew their leases; and
        pass a cancellation made by another worker on to the run (ctx.cancelled)."""
        while not beat.wait(self.lease / 3):
            with self.lock:
                if self.heartbeat is not beat:
                    return  # closed meanwhile
                runs = list(self.running.items())
                if not runs:
                    self.heartbeat = None
                    return
            for task_id, call in runs:
                try:
                    record = self.store.get(task_id)
                    if record is None or record["status"] in _TASK_TERMINAL:
                        call.cancelled = True
                    elif record["status"] == "working":
                        record["lease"] = time.time() + self.lease
                        self.store.update(record)  # lost to another writer: the next beat renews it
                except Exception as exc:
                    _log_exception(f"renewing the lease of task {task_id} failed", exc)

    # -- tasks/get, tasks/update, tasks/cancel (the extension's methods) ----------------

    def answer(self, handler: str, params: Dict[str, Any], version: Optional[str], conn: Any) -> Dict[str, Any]:
        """A tasks/* request, for a client that declared the extension on it
        ("Protocol Errors": -32021 otherwise), about a task of its principal."""
        if version not in STATELESS_VERSIONS:
            return self.answer_session(handler, params, version, conn)
        request = _Request(None, None, version, params)
        if not _declares_tasks(request):
            raise _RpcError(MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing required client capability",
                            {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}})
        task_id = params.get("taskId")
        if not isinstance(task_id, str):
            raise _RpcError(INVALID_PARAMS, 'Invalid params: "taskId" must be a string')
        owner = _task_owner(conn)
        if handler == "tasks_get":
            return self.shown(self.current(task_id, owner), _task_detailed)
        if handler == "tasks_update":
            return self.update(task_id, owner, params)
        self.current(task_id, owner)
        self._change(task_id, _cancelled)
        with self.lock:
            call = self.running.get(task_id)
        if call is not None:  # cooperative: a tool that reads ctx.cancelled stops early
            call.cancelled = True
        return {}

    def answer_session(self, handler: str, params: Dict[str, Any], version: Optional[str],
                       conn: Any) -> Dict[str, Any]:
        """2025-11-25's tasks/get, tasks/list and tasks/cancel (basic/utilities/tasks),
        served when the server offers tasks (capabilities.tasks)."""
        task_id = self.offered(handler, params, version, conn)
        owner = _task_owner(conn)
        if handler == "tasks_list":
            return self.listed(owner, params)
        record = self.current(task_id, owner)
        if handler == "tasks_cancel":
            if record["status"] in _TASK_TERMINAL:  # "MUST reject ... already in a terminal status"
                raise _RpcError(INVALID_PARAMS, f"Cannot cancel task: already in terminal status "
                                                f"'{record['status']}'")
            record = self._change(task_id, _cancelled) or self.current(task_id, owner)
            with self.lock:
                call = self.running.get(task_id)
            if call is not None:
                call.cancelled = True
        return self.shown(record, _task_wire_v1)

    def shown(self, record: Dict[str, Any], show: Callable[[Dict[str, Any]], Dict[str, Any]]) -> Dict[str, Any]:
        """``show(record)``, made once per revision (a poll of a task that has not changed
        builds nothing), not to be changed: kept by the revision, which each change bumps."""
        key = (record["taskId"], show)
        seen = self.shows.get(key)  # one dict read, without the lock
        if seen is not None and seen[0] == record["revision"]:
            return seen[1]
        task = _ShownTask(show(record))
        with self.lock:
            self.shown_size -= self.shows.pop(key, (0, task, 0))[2]
            if len(task.json) > _TASK_VIEWS[1] // 8:  # so big: built anew at each poll
                return task
            if len(self.shows) >= _TASK_VIEWS[0] or self.shown_size + len(task.json) > _TASK_VIEWS[1]:
                self.shows.clear()
                self.shown_size = 0
            self.shows[key] = (record["revision"], task, len(task.json))
            self.shown_size += len(task.json)
        return task

    def forget(self, task_id: str) -> None:
        """A task gone (deleted, expired): the Tasks shown of it are not kept."""
        with self.lock:
            for show in (_task_detailed, _task_wire_v1):
                self.shown_size -= self.shows.pop((task_id, show), (0, {}, 0))[2]

    def tools_changed(self) -> None:
        """Whether a tool may become a task: asked when the tools change, not at each poll."""
        with self.lock:  # the last to set it has seen every change before it
            self.offering = bool(_task_tools(self.server))

    def offered(self, handler: str, params: Dict[str, Any], version: Optional[str], conn: Any = None) -> str:
        """The request's taskId ("" for tasks/list); -32601 in a revision without
        tasks, from a server that has no task tool (it does not declare them),
        and tasks/list where it is not declared (_tasks_declared)."""
        if handler == "tasks_update" or not self.offering or str(version) < _TASKS_SINCE or \
                handler == "tasks_list" and not _tells_requestors_apart(conn):
            raise _RpcError(METHOD_NOT_FOUND, f"Method not found: tasks/{handler[len('tasks_'):]}")
        task_id = params.get("taskId", "" if handler == "tasks_list" else None)
        if not isinstance(task_id, str):
            raise _RpcError(INVALID_PARAMS, 'Invalid params: "taskId" must be a string')
        return task_id

    def listed(self, owner: str, params: Dict[str, Any]) -> Dict[str, Any]:
        """tasks/list: a page of the client's tasks, oldest first; the cursor is
        the last taskId of the page before (server/utilities/pagination).
        Expired tasks are purged first: tasks/get would not find them."""
        cursor = params.get("cursor")
        self.store.purge(time.time())
        if cursor is not None and (not isinstance(cursor, str) or (self.store.get(cursor) or {}).get("owner") != owner):
            raise _RpcError(INVALID_PARAMS, "Invalid params: unknown cursor")
        size = self.server.page_size or 100
        page = self.store.list(owner, cursor, size + 1)
        result: Dict[str, Any] = {"tasks": [_task_wire_v1(record) for record in page[:size]]}
        if len(page) > size:
            result["nextCursor"] = page[size - 1]["taskId"]
        return result

    def result(self, params: Dict[str, Any], version: Optional[str], request: _Request) -> Dict[str, Any]:
        """2025-11-25's tasks/result: waits (up to request_timeout) for the task to
        end, then its result with the related-task _meta, or its JSON-RPC error.
        It runs as a call does (_Connection.start_request), not on the reader."""
        task_id = self.offered("tasks_result", params, version)
        owner = _task_owner(request.conn)
        deadline = time.monotonic() + self.server.request_timeout
        record = self.current(task_id, owner)
        asked: Dict[str, Optional[_Answer]] = {}
        while record["status"] not in _TASK_TERMINAL:
            if time.monotonic() > deadline or request.call is not None and request.call.cancelled:
                raise _RpcError(INTERNAL_ERROR, f"Internal error: task {task_id} did not finish within "
                                                f"{self.server.request_timeout:g} s")
            if record["status"] == "input_required":
                self.relay(record, request, asked)
            time.sleep(0.05)
            record = self.current(task_id, owner)
        if record["status"] == "failed" and "result" not in record:  # (a tool error: its result, _outcome)
            error = record["error"]
            raise _RpcError(error["code"], error["message"], error.get("data", _MISSING))
        if record["status"] == "cancelled":
            raise _RpcError(INVALID_PARAMS, f"Task {task_id} was cancelled")
        result = record["result"]
        return dict(result, _meta=dict(result.get("_meta") or {}, **{_RELATED_TASK: {"taskId": task_id}}))

    def relay(self, record: Dict[str, Any], request: _Request, asked: Dict[str, Optional[_Answer]]) -> None:
        """2025-11-25, "Input Required Status": the task's questions go to the
        client on tasks/result's stream, each once, with the related-task
        _meta ("MUST include"); an answer is taken as tasks/update takes one
        (the last sets the task working, and its run starts here).  An error
        answer, or one that is no result of its question, fails the task, as
        the same error raised by ctx.elicit would fail a call."""
        conn, call, task_id = request.conn, request.call, record["taskId"]
        if conn is None or call is None:
            return
        for key, question in (record.get("inputRequests") or {}).items():
            if key not in asked:
                params = dict(question.get("params") or {})
                params["_meta"] = dict(params.get("_meta") or {}, **{_RELATED_TASK: {"taskId": task_id}})
                asked[key] = conn.ask(call, str(question.get("method")), params)
        for key, answer in list(asked.items()):
            if answer is None or not answer.done.is_set() or call.cancelled or conn.closed:
                continue  # (a question left by a tasks/result that ended is asked again by the next)
            asked[key] = None
            method = str(((record.get("inputRequests") or {}).get(key) or {}).get("method"))
            error = answer.error if answer.error is not None else None if _answer_problem(
                method, answer.result) is None else {"code": INVALID_PARAMS, "message": f"Invalid params: the "
                                                     f"client's answer is no result of {method}"}
            if error is not None:
                self._change(task_id, functools.partial(_refused, error))
                continue
            stored = self._change(task_id, functools.partial(_answered, {key: answer.result}, self.lease))
            if stored is not None and stored["status"] == "working":
                self.submit(task_id, stored["owner"], _progress_stream(request))

    def current(self, task_id: str, owner: str) -> Dict[str, Any]:
        """The task of ``owner`` (another's is not found: one client never reads
        or cancels another's task); expired: deleted; a run whose lease lapsed
        (its worker died): failed."""
        record = self.store.peek(task_id)  # read, never changed: _change makes a new one
        if record is None or record["owner"] != owner:
            if record is None:  # deleted by another worker, or purged
                self.forget(task_id)
            raise _RpcError(INVALID_PARAMS, _TASK_NOT_FOUND)
        now = time.time()
        if record["expiresAt"] is not None and record["expiresAt"] < now:
            self.store.delete(task_id)
            self.forget(task_id)
            raise _RpcError(INVALID_PARAMS, "Failed to retrieve task: Task has expired")
        if record["status"] == "working" and record["lease"] < now:
            self._change(task_id, functools.partial(_lost, "The worker running the task stopped"))
            record = self.store.peek(task_id) or record
        return record

    def update(self, task_id: str, owner: str, params: Dict[str, Any]) -> Dict[str, Any]:
        """tasks/update: the answers to outstanding questions ("Task Update
        Requests").  Others are ignored, as the extension says (never issued,
        already answered, or the task no longer waits); an answer that is no
        result of its question is refused (-32602).  The last one outstanding
        sets the task working again, and its run starts here."""
        responses = params.get("inputResponses")
        if not isinstance(responses, dict):
            raise _RpcError(INVALID_PARAMS, 'Invalid params: tasks/update needs "inputResponses" (an object)')
        record = self.current(task_id, owner)
        for key, answer in responses.items():
            question = (record.get("inputRequests") or {}).get(key)
            method = question.get("method") if isinstance(question, dict) else None
            if method in _ANSWERS and _answer_problem(str(method), answer) is not None:
                raise _RpcError(INVALID_PARAMS, f"Invalid params: inputResponses[{key!r}] is no result of {method}")
        stored = self._change(task_id, functools.partial(_answered, responses, self.lease))
        if stored is not None and stored["status"] == "working":
            self.submit(task_id, owner)
        return {}


def _declares_tasks(request: _Request) -> bool:
    """Whether the request's own capabilities declare the extension (2026-07-28
    basic/index: "Servers MUST NOT infer capabilities from prior requests")."""
    extensions = (request.client_capabilities() or {}).get("extensions")
    return isinstance(extensions, dict) and isinstance(extensions.get(TASKS_EXTENSION), dict)


def _tasks_declared(server: MCPServer, version: str, conn: Any) -> Dict[str, Any]:
    """What the server declares of tasks, and when: nothing without a task
    tool; 2026-07-28, the extension; 2025-11-25, ``tasks``, with ``list`` only
    where requestors can be told apart ("receivers that cannot identify
    requestors SHOULD NOT declare the tasks.list capability", "Task Isolation
    and Access Control"; tasks/list is then -32601: _Tasks.offered)."""
    if not _task_tools(server):
        return {}
    if version in STATELESS_VERSIONS:
        return {"extensions": {TASKS_EXTENSION: {}}}
    if version < _TASKS_SINCE:
        return {}
    tasks: Dict[str, Any] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    if not _tells_requestors_apart(conn):
        del tasks["list"]
    return {"tasks": tasks}


def _task_owner(conn: Any) -> str:
    """Whom a task belongs to ("When an authorization context is provided,
    receivers MUST bind tasks to said context"): the verified token's principal
    (section 21); without one, the HTTP session that created it; else "".
    "" is stdio's one client, and over HTTP a request with neither token nor
    session (2026-07-28 without auth, stateless_http), where a task id is a
    bearer token (the extension: "MAY use task IDs as bearer tokens"; 122
    random bits) and tasks/list is not offered (README, "Tasks")."""
    principal = getattr(conn, "principal", None)
    if principal:
        return str(principal)
    return f"session {conn.id}" if isinstance(conn, _HttpSession) else ""


def _tells_requestors_apart(conn: Any) -> bool:
    """Whether the requestor of ``conn`` is known: a token's principal, an HTTP
    session, or a connection that is one client (stdio, in process)."""
    return _task_owner(conn) != "" or not isinstance(conn, _HttpExchange)


def _task_request(record: Dict[str, Any], call: _CallInFlight) -> _Request:
    """A run's request: the call's arguments and capabilities, and every answer
    so far, as a stateless retry carries them (ctx.input_responses reads them)."""
    params = {"name": record["tool"], "arguments": record["arguments"], "_meta": record["meta"],
              "inputResponses": record["answers"]}
    request = _Request(None, call, record["version"], params)
    if not request.stateless:  # 2025-11-25: it asks as a 2026-07-28 run does; tasks/result relays (_Tasks.relay)
        request.stateless, request.used, request.wanted = True, {}, {}
    request.answers, request.user_state = dict(record["answers"]), record["userState"]
    request.task_id = record["taskId"]
    return request


def _task_meta(request: _Request) -> Dict[str, Any]:
    """What a run needs of its request's _meta: the revision and the client's
    capabilities, which its questions are checked against (a session's, from
    its initialize); 2025-11-25, the progressToken too ("MUST continue to be
    used for progress notifications throughout the task's lifetime",
    basic/utilities/progress; the extension has no progress on tasks)."""
    if request.stateless:
        return {key: value for key, value in request.meta.items()
                if key in (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES)}
    meta: Dict[str, Any] = {META_CLIENT_CAPABILITIES: request.client_capabilities() or {}}
    token = request.meta.get("progressToken")
    if isinstance(token, (str, int)) and not isinstance(token, bool):
        meta["progressToken"] = token
    return meta


def _progress_stream(request: _Request) -> Optional[Callable[[bytes], None]]:
    """Where a 2025-11-25 run's progress goes: the connection that asked for it
    (stdio's output, a session's GET stream), from this process; None elsewhere."""
    if request.stateless or request.conn is None or "progressToken" not in request.meta:
        return None
    return request.conn.write


def _task_wire(record: Dict[str, Any]) -> Dict[str, Any]:
    """The extension's Task: durations in integer milliseconds (ttlMs, pollIntervalMs)."""
    ttl = record["ttl"]
    task = {"taskId": record["taskId"], "status": record["status"], "createdAt": _iso(record["createdAt"]),
            "lastUpdatedAt": _iso(record["updatedAt"]), "ttlMs": None if ttl is None else int(ttl * 1000),
            "pollIntervalMs": _TASK_POLL_MS}
    if record.get("statusMessage"):
        task["statusMessage"] = record["statusMessage"]
    return task


def _task_wire_v1(record: Dict[str, Any]) -> Dict[str, Any]:
    """2025-11-25's Task: the same, with ttl and pollInterval (milliseconds too)."""
    task = _task_wire(record)
    task["ttl"], task["pollInterval"] = task.pop("ttlMs"), task.pop("pollIntervalMs")
    return task


def _task_tools(server: MCPServer) -> Dict[str, str]:
    """The tools that may become tasks, read from a copy (another thread may add one meanwhile)."""
    return {name: tool.task_support for name, tool in tuple(server._tools.items()) if tool.task_support != "forbidden"}


def _with_execution(server: MCPServer, tools: List[Dict[str, Any]], version: Optional[str]) -> List[Dict[str, Any]]:
    """tools/list in 2025-11-25: a task tool's execution.taskSupport ("Tool-Level
    Negotiation"; 2026-07-28's extension decides per call, and has none)."""
    support = _task_tools(server) if str(version) >= _TASKS_SINCE and version not in STATELESS_VERSIONS else {}
    if not support:
        return tools
    return [dict(tool, execution={"taskSupport": support[tool["name"]]}) if tool["name"] in support else tool
            for tool in tools]


def _task_detailed(record: Dict[str, Any]) -> Dict[str, Any]:
    """tasks/get's DetailedTask: the questions outstanding, the result or the error inlined."""
    task = _task_wire(record)
    field = {"input_required": "inputRequests", "completed": "result", "failed": "error"}.get(record["status"])
    if field is not None and field in record:  # (a 2025-11-25 task failed by a tool error has its result)
        task[field] = record[field]
    return task


@functools.lru_cache(maxsize=4096)  # polled again and again, a task shows the same two times (bench: tasks/get)
def _iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{int(seconds % 1 * 1000):03d}Z"


def _ttl_text(ttl: Optional[float]) -> str:
    return "a task is kept until it is deleted" if ttl is None else f"a task is kept {ttl:g} s after it is created"


def _ignore(data: Any) -> None:
    pass


def _cancelled(record: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    if record["status"] in _TASK_TERMINAL:
        return None  # "idempotent": the same empty ack, the task unchanged
    new = dict(record, status="cancelled", statusMessage="Cancelled by the client")
    new.pop("inputRequests", None)
    return new


def _lost(why: str, record: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    if record["status"] != "working":
        return None
    error = {"code": INTERNAL_ERROR, "message": f"Internal error: {why[0].lower()}{why[1:]}"}
    return dict(record, status="failed", statusMessage=why, error=error)


_STOPPING: Any = None  # the _Tasks of this process that ran tasks (weakly held): each stopped at exit


def _stop_tasks_at_exit(tasks: _Tasks) -> None:
    """Fail the tasks running at exit: a WSGI server's worker that stops
    gracefully (gunicorn: SIGTERM, its requests finished, then exit) runs the
    atexit handlers; stdio and the embedded HTTP server stop theirs first."""
    global _STOPPING
    import weakref

    if _STOPPING is None:
        import atexit

        _STOPPING = weakref.WeakSet()
        atexit.register(lambda: [each.stop() for each in list(_STOPPING)])
    _STOPPING.add(tasks)


def _refused(error: Dict[str, Any], record: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """A task whose question the client answered with an error: failed with it."""
    if record["status"] != "input_required":
        return None
    why = f"A question to the client failed: {error.get('message')}"
    new = dict(record, status="failed", error=error, statusMessage=why)
    new.pop("inputRequests", None)
    return new


def _answered(responses: Dict[str, Any], lease: float, record: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The task with the answers to its outstanding questions taken; working
    again (for a new lease) when none is left."""
    pending = record.get("inputRequests") or {}
    taken = {key: answer for key, answer in responses.items() if key in pending}
    if record["status"] != "input_required" or not taken:
        return None
    left = {key: question for key, question in pending.items() if key not in taken}
    new = dict(record, answers=dict(record["answers"], **taken), inputRequests=left)
    if not left:
        del new["inputRequests"]
        new.update(status="working", lease=time.time() + lease)
    return new


# ---------------------------------------------------------------------------
# 17. Connections
# ---------------------------------------------------------------------------
#
# One client's messages, whatever transport carries them: batches, the calls
# in flight, on which thread each runs, and their cancellation
# (basic/utilities/cancellation) and timeouts.  What a tools/call answers is
# section 14's (MCPServer._call, each outcome as server/tools gives it); this
# section decides only where the call runs: inline on the reading thread, on
# the pool, or on the event loop of async tools.


class _Connection:
    """One client's messages, whatever carries them: dispatch, batches, the
    calls in flight and their cancellation.  A transport subclasses it and
    provides ``write``; a call may run on the calling thread (``inline``), and
    a transport may hand that thread's reading role on (_StdioServer does)."""

    def __init__(self, server: MCPServer) -> None:
        import threading

        self.clock = time.monotonic
        self.server = server
        self.rpc = _Dispatcher(server)
        self.rpc.send = self.write  # notifications/resources/updated
        self.rpc.conn = self
        self.state = threading.Lock()  # guards everything below
        self.settled = threading.Condition(self.state)
        self.in_flight = 0  # calls and batches not yet settled
        self.draining = False  # settle_all waits for in_flight to reach 0
        self.slow_inline = 0  # inline calls past the watchdog (their thread passed reading on), still running
        self.inline: Optional[_CallInFlight] = None  # the call the current reader runs itself
        self.pending: Dict[Any, List[_CallInFlight]] = {}
        self.local = threading.local()  # .lost: this thread has passed reading on
        self.pool: Optional[_Workers] = None
        self.loop: Any = None
        self.outgoing: Dict[str, _Answer] = {}  # our requests to the client, by id
        self.asked = 0
        self.closed = False  # the client can answer nothing more
        self.listeners: Dict[Any, Tuple[Any, Dict[str, Any], Callable[[bytes], None]]] = {}  # subscriptions/listen

    def write(self, message: Any) -> None:
        """Send one message (a dict, or bytes already encoded) to the client."""
        raise NotImplementedError

    def list_changed(self, kind: str) -> None:
        """``notifications/{kind}/list_changed``: to a session (capabilities
        declare ``listChanged``), and in 2026-07-28 to the listen streams that
        asked for it."""
        if self.rpc.version is not None:
            self.write({"jsonrpc": "2.0", "method": f"notifications/{kind}/list_changed"})
        self._to_listeners(lambda honored: honored.get(f"{kind}ListChanged") is True,
                           f"notifications/{kind}/list_changed", {})

    def resource_updated(self, uri: str) -> None:
        """``notifications/resources/updated`` to the listen streams subscribed to ``uri``."""
        self._to_listeners(lambda honored: uri in honored.get("resourceSubscriptions", ()),
                           "notifications/resources/updated", {"uri": uri})

    def _to_listeners(self, wants: Callable[[Dict[str, Any]], bool], method: str, params: Dict[str, Any]) -> None:
        with self.state:
            listeners = list(self.listeners.values())
        for id_, honored, stream in listeners:
            if wants(honored):
                stream(_encode_safely({"jsonrpc": "2.0", "method": method,
                                       "params": dict(params, _meta={META_SUBSCRIPTION_ID: id_})}))

    def task_changed(self, task_id: str, task: Dict[str, Any]) -> None:
        """notifications/tasks (section 16) to the listen streams that name the task."""
        self._to_listeners(lambda honored: task_id in honored.get("taskIds", ()), "notifications/tasks", task)

    def listen(self, id_: Any, params: Dict[str, Any], version: Optional[str],
               stream: Callable[[bytes], None]) -> Any:
        """subscriptions/listen (2026-07-28): a long-lived stream of the
        notifications the client opted in to, acknowledged first; it ends when
        the client cancels the request (no response then)."""
        wanted = params.get("notifications")
        if not isinstance(wanted, dict):
            return _error_response(id_, _RpcError(INVALID_PARAMS, 'Invalid params: "notifications" must be an object'))
        honored: Dict[str, Any] = {name: True for name in _SUBSCRIBABLE if wanted.get(name) is True}
        uris = wanted.get("resourceSubscriptions")
        if isinstance(uris, list) and all(isinstance(uri, str) for uri in uris):
            honored["resourceSubscriptions"] = uris
        if "taskIds" in wanted:  # notifications/tasks (section 16): the client's own tasks
            try:
                honored["taskIds"] = self.server._tasks.listened(wanted["taskIds"], params, self)
            except _RpcError as exc:
                return _error_response(id_, exc)
        stream(_encode_safely({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                               "params": {"notifications": honored, "_meta": {META_SUBSCRIPTION_ID: id_}}}))
        with self.state:
            self.listeners[_id_key(id_)] = (id_, honored, stream)
        return _STARTED

    # -- our requests to the client (Context's questions, handshake era) --------------

    def ask(self, call: _CallInFlight, method: str, params: Dict[str, Any]) -> _Answer:
        """Send a request of ours on the call's stream; its answer comes with the
        client's response (_answered), or fails when the client goes away."""
        answer = _Answer()
        with self.state:
            self.asked += 1
            id_ = f"mcp_ref-{self.asked}"
            self.outgoing[id_] = answer
            call.questions.append(answer)
            closed = self.closed
        if closed:
            answer.settle(None, {"code": INTERNAL_ERROR, "message": "the client has closed the connection"})
        else:
            call.stream(_encode_safely({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}))
        return answer

    def _answered(self, message: Dict[str, Any]) -> None:
        """The client's response to a request of ours; one we never sent, or
        answered already, is ignored."""
        id_ = message.get("id")
        with self.state:
            answer = self.outgoing.pop(id_, None) if isinstance(id_, str) else None
        if answer is not None:
            error = message.get("error")
            answer.settle(message.get("result"), error if isinstance(error, dict) or error is None else
                          {"code": INTERNAL_ERROR, "message": "the client's error response is malformed"})

    def close_questions(self, why: str) -> None:
        """Fail every question still open: the client can no longer answer."""
        with self.state:
            self.closed = True
            answers, self.outgoing = list(self.outgoing.values()), {}
        for answer in answers:
            answer.settle(None, {"code": INTERNAL_ERROR, "message": why})

    def _send(self, data: Optional[bytes]) -> None:
        """A single request's reply: its response, or None (cancelled: nothing)."""
        if data is not None:
            self.write(data)

    # -- messages ----------------------------------------------------------------

    def _handle(self, message: Any, reply: Callable[[Optional[bytes]], None], inline: bool) -> Any:
        """handle_message, never raising: a bug of ours is answered with
        -32603 (a notification, as ever, is not answered)."""
        try:
            return self.handle_message(message, reply, inline)
        except Exception as exc:
            _log_exception("internal error", exc)
            id_ = message.get("id") if isinstance(message, dict) else None
            return _error_response(id_, _RpcError(INTERNAL_ERROR, "Internal error")) if _valid_id(id_) else None

    def handle_message(self, message: Any, reply: Callable[[Optional[bytes]], None],
                       inline: bool = False, stream: Optional[Callable[[bytes], None]] = None) -> Any:
        """The immediate response; None for a notification or a response;
        _STARTED for a call that ``reply`` will answer (None there: cancelled).
        ``stream`` carries the messages a call sends before its response
        (notifications, requests to the client); by default, ``write``."""
        kind, detail = self.rpc.classify(message)
        if kind == "invalid":
            id_ = message.get("id") if isinstance(message, dict) and _valid_id(message.get("id")) else None
            return _error_response(id_, detail)
        if kind == "response":
            self._answered(message)
            return None
        params = message.get("params", {})
        if kind == "notification":
            self.notification(message["method"], params if isinstance(params, dict) else {})
            return None
        id_ = detail
        try:
            handler, version = self.rpc.route(message["method"], params)
            if handler == "listen":
                return self.listen(id_, params, version, stream or self.write)
            if handler in _CONTEXT_HANDLERS and _runs_with_context(self.server, message["method"], params):
                self.start_request(id_, handler, params, version, reply, inline, stream or self.write)
                return _STARTED
            if handler == "extension_method":  # an extension's own request: it may wait, as a call may
                self.start_request(id_, self.rpc.extension_method(message["method"]), params, version, reply,
                                   inline, stream or self.write)
                return _STARTED
            if handler == "tasks_result":  # section 16: it waits for the task, on the pool
                self.start_request(id_, handler, params, version, reply, False, stream or self.write)
                return _STARTED
            if handler in _TASK_METHODS:  # section 16: a task of this connection's principal
                if self.server._tasks.store.blocking:  # (as a call: never held on stdio's reader)
                    tasks, name = self.server._tasks, handler
                    self.start_request(id_, lambda p, v, _: tasks.answer(name, p, v, self), params, version, reply,
                                       inline, stream or self.write)
                    return _STARTED
                return self._ok(id_, self.server._tasks.answer(handler, params, version, self), version)
            if handler != "tools_call":
                return self._ok(id_, getattr(self.rpc, handler)(params, version), version)
            tool, arguments = self.rpc.tool_for_call(params)
            request = self._request_for(tool, arguments, params, version)
            if tool.task_support != "forbidden" or "task" in params:  # section 16: perhaps a task
                created = self.server._tasks.for_call(tool, arguments, request)
                if isinstance(created, _Deferred):  # the store may wait: made as a call is
                    self.start_request(id_, created, params, version, reply, inline, stream or self.write)
                    return _STARTED
                if created is not None:
                    return self._ok(id_, created, version)
        except _RpcError as exc:
            return _error_response(id_, exc)
        self.start_call(id_, tool, arguments, request, reply, inline, stream or self.write)
        return _STARTED

    def _request_for(self, tool: _Tool, arguments: Dict[str, Any], params: Dict[str, Any],
                     version: Optional[str]) -> _Request:
        """A call's _Request; 2026-07-28: with the answers of the client's retry,
        and those of earlier rounds from its verified requestState."""
        request = _Request(self, None, version, params)
        if request.stateless:
            _open_retry(request, self.server, "tools/call", tool.name, arguments, params)
        return request

    def _ok(self, id_: Any, result: Dict[str, Any], version: Optional[str]) -> Dict[str, Any]:
        return {"jsonrpc": "2.0", "id": id_, "result": self.rpc.finish(result, version)}

    def notification(self, method: str, params: Dict[str, Any]) -> None:
        if method == "notifications/cancelled" and _valid_id(params.get("requestId")):
            # basic/utilities/cancellation: stop waiting; send nothing for it.
            key = _id_key(params["requestId"])
            with self.state:
                calls = list(self.pending.get(key, ()))
                self.listeners.pop(key, None)  # a subscriptions/listen stream ends
            for call in calls:
                call.cancelled = True
                for answer in call.questions:
                    answer.settle(None, {"code": INTERNAL_ERROR, "message": "the request was cancelled"})
                if call.future is not None and call.future.cancel():
                    self._complete(call, key, lambda: None)  # a queued call that will never run
        # notifications/initialized and any other notification need no action.

    def handle_batch(self, members: List[Any]) -> None:
        """A JSON-RPC batch (2025-03-26 only): each member handled like a single
        message, calls concurrently; one array of the responses, written when
        the last is ready.  No thread waits for it."""
        version = self.rpc.version
        if version not in _BATCH_VERSIONS:
            self.write(_error_response(None, _RpcError(
                INVALID_REQUEST, f"Invalid Request: JSON-RPC batches are not part of protocol revision "
                                 f"{version or '(none negotiated)'}")))
        elif not members:
            self.write(_error_response(None, _RpcError(INVALID_REQUEST, "Invalid Request: empty batch")))
        elif len(members) > self.server.max_batch:
            self.write(_error_response(None, _RpcError(
                INVALID_REQUEST, f"Invalid Request: a batch of {len(members)} messages, over this server's "
                                 f"limit of {self.server.max_batch}")))
        else:
            with self.state:
                self.in_flight += 1  # the batch itself, until its reply is written
            batch = _Batch(len(members), self._batch_done)
            for message in members:
                response = self._handle(message, batch.add, inline=False)
                if response is not _STARTED:
                    batch.add(None if response is None else _encode_safely(response))

    def _batch_done(self, parts: List[bytes]) -> None:
        try:
            if parts:  # nothing at all is sent for a batch of notifications (JSON-RPC 2.0, "Batch")
                self.write(b"[" + b",".join(part.rstrip(b"\n") for part in parts) + b"]\n")
        finally:
            with self.state:
                self.in_flight -= 1
                if self.draining and not self.in_flight:
                    self.settled.notify_all()

    # -- tools/call ----------------------------------------------------------------

    def start_request(self, id_: Any, handler: Union[str, Callable[..., Dict[str, Any]]], params: Dict[str, Any],
                      version: Optional[str], reply: Callable[[Optional[bytes]], None], inline: bool,
                      stream: Callable[[bytes], None]) -> None:
        """A resources/read or prompts/get whose function takes a Context, run as
        a tools/call is (start_call): inline or on the pool, cancellable, its
        messages on ``stream`` before its one response to ``reply``.  So are
        tasks/result, and the tasks requests of a store that may wait (section
        16): ``handler`` then answers (params, version, request) itself."""
        answers = handler if callable(handler) else getattr(self.rpc, handler)
        call = _CallInFlight(id_, reply, stream)
        request = _Request(self, call, version, params)
        key = _id_key(id_)
        with self.state:
            self.in_flight += 1
            self.pending.setdefault(key, []).append(call)
            inline = inline and not self.slow_inline
            if inline:
                call.started = self.clock()
                self.inline = call

        def answer() -> bytes:
            try:
                return _encode_safely(self._ok(id_, answers(params, version, request), version))
            except _RpcError as exc:
                return _encode_safely(_error_response(id_, exc))
            except BaseException as exc:  # a bug of ours: the call is still answered
                _log_exception("internal error", exc)
                return _encode_safely(_error_response(id_, _RpcError(INTERNAL_ERROR, "Internal error")))

        if not inline:
            call.future = self._workers().submit(lambda: self._complete(call, key, lambda: reply(answer())))
            return
        response = answer()
        if self._inline_done(call):
            self._answer_settled(call, key, lambda: reply(response))

    def start_call(self, id_: Any, tool: _Tool, arguments: Dict[str, Any], request: _Request,
                   reply: Callable[[Optional[bytes]], None], inline: bool,
                   stream: Callable[[bytes], None]) -> None:
        """Where a tools/call runs: inline, on the pool or on the event loop.
        What it does is MCPServer._call's (section 14: steps 2 to 4, whose
        outcomes server/tools gives); its one response, step 5 (_response), goes
        to ``reply`` (None there when the client cancelled it:
        basic/utilities/cancellation)."""
        call = _CallInFlight(id_, reply, stream)
        request.call = call
        version = str(request.version)
        key = _id_key(id_)
        with self.state:
            self.in_flight += 1
            self.pending.setdefault(key, []).append(call)
            # While a call runs handed off (a slow one), the next ones go to the pool.
            inline = inline and not tool.is_async and not self.slow_inline
            if inline:
                call.started = self.clock()
                self.inline = call

        if inline:
            result = _invoke_safely(self.server, tool, arguments, request)
            if self._inline_done(call):
                self._answer_settled(call, key, lambda: reply(self._response(id_, tool, version, result)))
            return

        def complete(result: Any) -> None:
            self._complete(call, key, lambda: reply(self._response(id_, tool, version, result)))

        if tool.is_async:
            call.future = self._submit_async(tool, arguments, request, complete)
        else:
            call.future = self._submit_sync(tool, arguments, request, complete)

    def _response(self, id_: Any, tool: _Tool, version: str, result: Any) -> bytes:
        """Step 5 of a tools/call (MCPServer._encode_result): the wire response of
        its result (None: a bug of ours, a tool error; an _RpcError: -32021)."""
        if isinstance(result, _RpcError):
            return _encode_safely(_error_response(id_, result))
        if result is None:
            result = _tool_error(f"Error executing tool {tool.name}")
        return self.server._encode_result(tool, _result_for(result, version), lambda r: {
            "jsonrpc": "2.0", "id": id_, "result": self.rpc.finish(r, version)})

    def _complete(self, call: _CallInFlight, key: Tuple[str, Any], answer: Callable[[], None]) -> None:
        """Settle a call exactly once, on every path: answer it unless it was
        cancelled, then count it out of the calls in flight, whatever answering
        raised."""
        with self.state:
            if call.settled:
                return
            call.settled = True
        self._answer_settled(call, key, answer)

    def _answer_settled(self, call: _CallInFlight, key: Tuple[str, Any], answer: Callable[[], None]) -> None:
        """_complete, for a call this thread has just marked settled (under the lock)."""
        try:
            if call.cancelled:
                call.reply(None)
            else:
                answer()
        except BaseException as exc:  # a bug of ours: logged; the count below still happens
            _log_exception("answering a call failed", exc)
        finally:
            with self.state:
                entries = self.pending.get(key, [])
                if call in entries:
                    entries.remove(call)
                if not entries:
                    self.pending.pop(key, None)
                self.in_flight -= 1
                if self.draining and not self.in_flight:
                    self.settled.notify_all()

    def _inline_done(self, call: _CallInFlight) -> bool:
        """A call run inline has ended: the reading role is free again (or, if the
        watchdog passed it on meanwhile, this thread stops reading after it).
        Settled here, in the same lock (one lock less than _complete): whether
        this thread is the one to answer it (False: settle_all already did)."""
        with self.state:
            if self.inline is call:
                self.inline = None
            if call.reader_moved_on:  # the watchdog passed reading on: this thread is done after this call
                self.slow_inline -= 1
                self.local.lost = True
            first = not call.settled
            call.settled = True
        return first

    def _submit_sync(self, tool: _Tool, arguments: Dict[str, Any], request: _Request,
                     complete: Callable[[Any], None]) -> _Job:
        return self._workers().submit(lambda: complete(_invoke_safely(self.server, tool, arguments, request)))

    def _workers(self) -> _Workers:
        with self.state:
            if self.pool is None:
                self.pool = _Workers(self.server.workers)
            return self.pool

    def event_loop(self) -> Any:
        """The connection's event loop, on a thread of its own, started once."""
        with self.state:
            if self.loop is None:
                self.loop = _start_event_loop()
            return self.loop

    def _submit_async(self, tool: _Tool, arguments: Dict[str, Any], request: _Request,
                      complete: Callable[[Any], None]) -> Any:
        import asyncio

        async def run() -> None:
            result = None
            token = _CHANGES.set({})  # the task's own context
            try:
                result = await self.server._calling(tool, arguments, request)
            finally:  # also when cancelled, or when anything escaped _call
                self.server._announce_changes(token)
                complete(result)

        return asyncio.run_coroutine_threadsafe(run(), self.event_loop())

    def settle_all(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for every call and batch in flight to be
        answered; answer the calls still running then with an error."""
        deadline = time.monotonic() + timeout
        with self.state:
            self.draining = True
            while self.in_flight and time.monotonic() < deadline:
                self.settled.wait(max(0.0, deadline - time.monotonic()))
            late = [(key, call) for key, calls in self.pending.items() for call in calls]
        error = _RpcError(INTERNAL_ERROR, f"Internal error: the call did not finish within {timeout:g} s "
                                          "of the end of input")
        for key, call in late:
            self._complete(call, key, functools.partial(_answer_with_error, call, error))


class _CallInFlight:
    """A tools/call in flight: where its response goes, how to cancel it, and
    whether it is settled."""

    __slots__ = ("id", "reply", "stream", "future", "cancelled", "settled", "started", "reader_moved_on", "questions")

    def __init__(self, id_: Any, reply: Callable[[Optional[bytes]], None], stream: Callable[[bytes], None]) -> None:
        self.id, self.reply, self.stream = id_, reply, stream  # stream: see handle_message
        self.future: Any = None  # a pool or event-loop future; None while running inline
        self.cancelled = False  # notifications/cancelled: send nothing for it
        self.settled = False  # answered (or not, when cancelled) and counted out: _complete
        self.started = 0.0  # when an inline call began (_StdioServer.clock)
        self.reader_moved_on = False  # the reading role passed to another thread meanwhile
        self.questions: List[_Answer] = []  # its requests to the client (Context)


_STARTED: Any = object()  # handle_message: a call was started, its reply comes later


class _Job:
    """A call queued for the _Workers: cancelled only while it waits."""

    __slots__ = ("run", "state", "lock")

    def __init__(self, run: Callable[[], None]) -> None:
        import threading

        self.run, self.state, self.lock = run, "queued", threading.Lock()

    def cancel(self) -> bool:
        with self.lock:
            if self.state == "queued":
                self.state = "cancelled"
            return self.state == "cancelled"


class _Workers:
    """A fixed number of daemon threads for synchronous calls, all started at
    once, so that no call waits for a thread to start (concurrent.futures
    starts one per submit, and its threads hold the process at exit).

    Fair to every client (over HTTP, many share one pool): calls wait in one
    queue per client, and a free thread takes the first call of the next
    client in turn (round-robin) that runs fewer than ``per_client`` calls.
    So one client's slow calls hold at most ``per_client`` threads, and a call
    of another client waits behind at most one call of each client that has
    calls waiting.  With one client (stdio), this is one queue, first come
    first served.  Bounded: ``count`` threads, and a waiting call is a request
    its transport holds open; ``close()`` ends the threads once the calls
    queued have run (a connection that ended: a process serving one after
    another must not keep every one's threads)."""

    closed = False

    def __init__(self, count: int, per_client: Optional[int] = None) -> None:
        import collections
        import threading

        self.per_client = max(1, per_client or count)
        self.ready = threading.Condition()  # guards everything below
        self.queues: Dict[Any, Deque[_Job]] = {}  # each client's calls waiting, in order
        self.turns: Deque[Any] = collections.deque()  # the clients with calls waiting, next first
        self.running: Dict[Any, int] = {}  # how many calls of each client run now
        for n in range(max(1, count)):
            threading.Thread(target=self._work, name=f"mcp_ref-tool-{n}", daemon=True).start()

    def submit(self, run: Callable[[], None], client: Any = None) -> _Job:
        import collections

        job = _Job(run)
        with self.ready:
            queue = self.queues.get(client)
            if queue is None:
                queue = self.queues[client] = collections.deque()
                self.turns.append(client)
            queue.append(job)
            self.ready.notify()
            if self.closed:  # its threads may have ended: one more runs what is queued, then ends
                import threading
                threading.Thread(target=self._work, name="mcp_ref-tool-late", daemon=True).start()
        return job

    def _next(self) -> Optional[Tuple[Any, _Job]]:
        """(Under the lock.)  The next client in turn below its cap, and its first call."""
        for _ in range(len(self.turns)):
            client = self.turns[0]
            self.turns.rotate(-1)  # its turn is taken: to the back of the line
            if self.running.get(client, 0) >= self.per_client:
                continue
            queue = self.queues[client]
            job = queue.popleft()
            if not queue:
                del self.queues[client]
                self.turns.pop()  # nothing left waiting: out of the line (it is last, just rotated)
            self.running[client] = self.running.get(client, 0) + 1
            return client, job
        return None

    def _work(self) -> None:
        while True:
            with self.ready:
                picked = self._next()
                while picked is None:
                    if self.closed:
                        return
                    self.ready.wait()
                    picked = self._next()
            client, job = picked
            try:
                with job.lock:
                    if job.state != "queued":
                        continue
                    job.state = "running"
                job.run()  # never raises: the calls' own wrappers answer for them
            finally:
                with self.ready:
                    left = self.running.pop(client) - 1
                    if left:
                        self.running[client] = left
                    self.ready.notify()  # a client that was at its cap may have a call waiting

    def close(self) -> None:
        with self.ready:
            self.closed = True
            self.ready.notify_all()


class _Lane(_Workers):
    """One client's way into a shared _Workers: what it submits queues under
    its name (its own threads: none)."""

    def __init__(self, pool: _Workers, client: Any) -> None:
        self.pool, self.client = pool, client

    def submit(self, run: Callable[[], None], client: Any = None) -> _Job:
        return self.pool.submit(run, self.client)

    def close(self) -> None:
        pass  # the threads are the shared pool's


class _Batch:
    """The replies of one JSON-RPC batch, handed to ``done`` together when the
    last member is answered (a notification, or a cancelled call: no reply)."""

    def __init__(self, members: int, done: Callable[[List[bytes]], None]) -> None:
        import threading

        self.waiting = members
        self.parts: List[bytes] = []
        self.done = done
        self.lock = threading.Lock()

    def add(self, reply: Optional[bytes]) -> None:
        with self.lock:
            if reply is not None:
                self.parts.append(reply)
            self.waiting -= 1
            last = self.waiting == 0
        if last:
            self.done(self.parts)


def _start_event_loop() -> Any:
    """A new event loop, running on a daemon thread of its own (async tools' home)."""
    import asyncio
    import threading

    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name="mcp_ref-loop", daemon=True).start()
    return loop


def _answer_with_error(call: _CallInFlight, error: _RpcError) -> None:
    call.reply(_encode(_error_response(call.id, error)))


def _invoke_safely(server: MCPServer, tool: _Tool, arguments: Dict[str, Any], request: _Request) -> Any:
    """server._invoke, never raising: None (answered as a plain tool error)
    when something escaped _call, which would be a bug of ours."""
    try:
        return server._invoke(tool, arguments, request)
    except BaseException as exc:
        _log_exception("internal error", exc)
        return None


def _id_key(id_: Any) -> Tuple[str, Any]:
    # 1 and "1" are different ids.
    return (type(id_).__name__, id_)


# ---------------------------------------------------------------------------
# 18. stdio
# ---------------------------------------------------------------------------


# -- wire encoding ------------------------------------------------------------

_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
_dumps_message = _ENCODER.encode  # or _fast_dumps: see _use_accelerators


def _encode(message: Any) -> bytes:
    """One JSON-RPC message as one line of UTF-8 (stdio: no embedded newlines)."""
    text = _dumps_message(message)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        # A lone surrogate (a client's "\ud800", echoed in an id or an error
        # text) has no UTF-8 form; JSON's \u escapes carry it.
        return json.dumps(message, allow_nan=False, separators=(",", ":")).encode("ascii") + b"\n"


def _encode_safely(message: Any) -> bytes:
    """_encode for a message of ours: one that cannot be encoded (a bug) is
    logged, and its id, when it has one, gets -32603 instead."""
    try:
        return _encode(message)
    except Exception as exc:
        _log_exception("a response could not be encoded", exc)
        id_ = message.get("id") if isinstance(message, dict) else None
        return _encode(_error_response(id_ if _valid_id(id_) else None, _RpcError(INTERNAL_ERROR, "Internal error")))


# Twin: _fast_encode_reply, section 34.
def _encode_reply(result: Dict[str, Any], frame: Callable[[Dict[str, Any]], Any]) -> bytes:
    """The wire bytes of ``frame(result)``: a result inside its response."""
    return _encode(frame(result))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# NaN and Infinity are no JSON (RFC 8259), whatever Python's json accepts.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _too_deep(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))
    return False


class _StdioServer(_Connection):
    """Newline-delimited JSON-RPC on stdin/stdout (basic/transports/stdio).

    One thread at a time reads stdin and answers what is quick (initialize,
    ping, lists, errors) itself.  A synchronous tool runs inline on that reader
    too, because handing every call to another thread would cost more than
    most tools take; if it is still running after ``_HANDOFF`` seconds, a
    watchdog gives the reading role to a new thread, and while any call runs
    that way new calls go to a pool of ``workers`` threads, so a slow tool
    holds up ping, tools/list or other calls once, for at most about
    ``_HANDOFF + _WATCH``.  Async tools run on one event loop thread.  Each
    response is written whole, under a lock; SIGTERM lets the one being
    written finish (_exit_now).
    """

    _HANDOFF = 0.01  # seconds an inline call may hold up reading
    _WATCH = 0.01  # how often the watchdog looks
    _STOP_WAIT = 1.0  # seconds SIGTERM waits for a response being written to move on
    _STOP_LIMIT = 10.0  # seconds it waits for it at most, however slowly the client reads it
    _PIECE = 16384  # bytes: a longer message is written in pieces, so that SIGTERM sees it move

    def __init__(self, server: MCPServer, exit_process: bool = True) -> None:
        import threading

        super().__init__(server)
        self.exit_process = exit_process  # at the end of input; else serve() returns (run())
        self.lock = threading.Lock()  # one response on stdout at a time
        self.end_of_input = threading.Event()
        self.out: Any = None
        self.stdin: Any = None
        self.stderr: Optional[_Stderr] = None
        self.manager: Any = None  # the lifespan's context manager
        self.moved = 0.0  # when the message being written in pieces last moved (_write_pieces)
        self.left = 0  # its bytes not yet taken by the client
        self.stopping = 0.0  # when SIGTERM came: no long message starts after it

    # -- lifecycle -------------------------------------------------------------

    def serve(self) -> int:
        import threading

        self._take_standard_streams()
        self._install_signals()
        self.server._connections.append(self)
        _lifespan(self, "__aenter__")  # the SDK's MCPServer(lifespan=...), section 25
        self._start_reader()
        threading.Thread(target=self._watchdog, name="mcp_ref-watchdog", daemon=True).start()
        while not self.end_of_input.wait(0.5):  # the main thread stays free for signals
            pass
        self._drain()
        return 0

    def _take_standard_streams(self) -> None:
        """The protocol owns stdin and stdout (stdio: "MUST NOT write anything
        ... that is not a valid MCP message"): both move to private descriptors.
        A tool, or a child process, then reads an empty stdin (input() gets
        EOF instead of a request) and writes to stderr when it prints; and
        stderr never blocks serving (_Stderr)."""
        sys.stdout.flush()
        self.stdin = os.fdopen(os.dup(0), "rb")
        self.out = os.fdopen(os.dup(1), "wb")
        self.stderr = _hold_standard_streams()

    def _install_signals(self) -> None:
        import signal

        def stop(signum: int, frame: Any) -> None:
            self._exit_now()

        for name in ("SIGTERM", "SIGINT"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), stop)

    def _exit_now(self) -> None:
        """SIGTERM, SIGINT: stop promptly, and never in the middle of a line
        (stdio: nothing that is not a valid MCP message on stdout).  Holding
        the lock, no new message starts; the one being written finishes while
        the client goes on reading it: for as long as each piece is taken
        within _STOP_WAIT seconds, for _STOP_LIMIT seconds at most (a process
        manager's SIGKILL comes after about that: Docker's 10 s).  A client
        that reads nothing for _STOP_WAIT seconds is not reading, and past
        _STOP_LIMIT a SIGKILL would cut the line the same: then the process
        exits with the line cut and says so on stderr; the client sees its
        input end after a line without its newline, which is no message
        (stdio: messages are delimited by newlines)."""
        self.stopping = start = time.monotonic()
        while not self.lock.acquire(timeout=0.05):
            now = time.monotonic()
            if now - start > self._STOP_LIMIT or now - max(self.moved, start) > self._STOP_WAIT:
                short = f", {self.left} bytes short" if self.left else ""
                print(f"mcp_ref: stopped in the middle of a message{short}: the client was not reading it",
                      file=sys.stderr)
                break
        else:
            try:
                self.out.flush()
            except Exception:
                pass
        self._exit()

    def _exit(self) -> None:
        self.server._tasks.stop()  # section 16: the tasks it runs failed, not left working (os._exit skips atexit)
        if self.stderr is not None:
            self.stderr.close(timeout=0.5)
        os._exit(0)

    def _drain(self) -> None:
        """End of input: every request in flight is answered, then exit 0; what
        is still running after ``drain_timeout`` seconds is answered with an error."""
        self.close_questions("the client closed its end of the connection")
        self.settle_all(self.server.drain_timeout)
        self.server._connections.remove(self)
        _lifespan(self, "__aexit__")
        with self.state:  # batches waiting for those calls have written by now
            unanswered = self.in_flight
        if unanswered:
            print(f"mcp_ref: {unanswered} batches unanswered at exit", file=sys.stderr)
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.loop.stop)
        if self.pool is not None:
            self.pool.close()
        if self.exit_process:
            self._exit()  # tool threads that never end must not hold the process
        self.stderr.close(timeout=0.5)  # type: ignore[union-attr]
        _restore_standard_streams(self.stdin, self.out)

    # -- reading ---------------------------------------------------------------

    def _start_reader(self) -> None:
        import threading

        threading.Thread(target=self._read_loop, name="mcp_ref-reader", daemon=True).start()

    def _read_loop(self) -> None:
        self.local.lost = False
        limit = self.server.max_message_bytes
        try:
            while True:
                line = self.stdin.readline(limit + 1)
                if not line:
                    break
                if len(line) > limit and not line.endswith(b"\n"):
                    self._skip_rest(limit)
                    self.write(_error_response(None, _RpcError(
                        INVALID_REQUEST, f"Invalid Request: message longer than {limit} bytes")))
                    continue
                if line.strip():
                    self.handle_line(line)
                    if self.local.lost:
                        return  # another thread reads now
        except Exception as exc:  # stdin failed: nothing more will come
            _log_exception("reading stdin failed", exc)
        self.end_of_input.set()

    def _skip_rest(self, limit: int) -> None:
        while True:
            chunk = self.stdin.readline(limit)
            if not chunk or chunk.endswith(b"\n"):
                return

    def _watchdog(self) -> None:
        while not self.end_of_input.wait(self._WATCH):  # (then no reading is left to pass on)
            with self.state:
                call = self.inline
                if call is None or self.clock() - call.started < self._HANDOFF:
                    continue
                call.reader_moved_on = True
                self.slow_inline += 1
                self.inline = None
            self._start_reader()
            self._workers()  # the calls that follow go to the pool: start it here, off the reader's path

    def handle_line(self, line: bytes) -> None:
        """One line of input: a message or a batch, answered or started; never raises."""
        try:
            message = _DECODER.decode(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            reason = "invalid UTF-8" if isinstance(exc, UnicodeDecodeError) else \
                "nested too deeply" if isinstance(exc, RecursionError) else "not valid JSON"
            self.write(_error_response(None, _RpcError(PARSE_ERROR, f"Parse error: {reason}")))
            return
        # Each level of nesting opens with a bracket: a line with no more than
        # max_depth of them cannot be too deep, and needs no walk (a speed choice).
        limit = self.server.max_depth
        if line.count(b"{") + line.count(b"[") > limit and _too_deep(message, limit):
            self.write(_error_response(None, _RpcError(
                INVALID_REQUEST, f"Invalid Request: nested deeper than {limit} levels")))
            return
        if isinstance(message, list):
            self.handle_batch(message)
            return
        response = self._handle(message, self._send, inline=True)
        if isinstance(response, dict):
            self.write(response)

    # -- writing ---------------------------------------------------------------

    def write(self, message: Any) -> None:
        """Write one message (a dict, or bytes already encoded) whole, under the lock."""
        data = message if isinstance(message, bytes) else _encode_safely(message)
        with self.lock:
            try:
                if len(data) > self._PIECE:
                    self._write_pieces(data)
                else:
                    self.out.write(data)
                    self.out.flush()
            except (BrokenPipeError, ValueError, OSError):
                # The client closed our stdout: nobody is listening; end quietly.
                os._exit(0)

    def _write_pieces(self, data: bytes) -> None:
        """(Under the lock.)  A long message, a piece at a time: a write to a
        pipe the client drains slowly blocks, and SIGTERM (_exit_now) waits
        for it while each piece moves.  After SIGTERM none starts: a line not
        begun needs no end."""
        if self.stopping:
            return
        view = memoryview(data)
        self.left = len(data)
        for start in range(0, len(data), self._PIECE):
            piece = view[start:start + self._PIECE]
            self.moved = time.monotonic()
            self.out.write(piece)
            self.out.flush()
            self.left -= len(piece)
        self.moved = time.monotonic()


def _hold_standard_streams() -> _Stderr:
    """While serving, in every mode: fd 0 is the null device and fd 1 a copy
    of stderr, so that a tool's ``input()`` or ``print()``, or a child process,
    never reads or writes a client's bytes, and no socket ever gets those
    numbers (_standard_fds keeps them taken); sys.stdout and sys.stderr are
    one _Stderr, whose queue a client that never reads stderr cannot block."""
    sys.stdout.flush()
    _standard_fds()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, encoding="utf-8")
    stderr = _Stderr(os.dup(2))
    sys.stdout = sys.stderr = stderr
    return stderr


def _standard_fds() -> None:
    """Take back fds 0, 1 and 2 where a tool has closed them (0 and 2: the
    null device; 1: a copy of 2), so that the next descriptor the server
    opens, an accepted socket above all, cannot become a tool's stdout."""
    for fd in (0, 2, 1):
        try:
            os.fstat(fd)
        except OSError:
            if fd == 1:
                os.dup2(2, 1)
                continue
            null = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)


class _Stderr:
    """sys.stderr (and sys.stdout) while serving: whatever the server or a tool
    writes is queued for a thread that writes it out, so a client that never
    reads stderr cannot stall serving; past ``limit`` queued writes, writes
    are dropped and counted.  The queue and its thread are made by the first
    write: most servers never write, and start sooner without them."""

    encoding = "utf-8"
    errors = "backslashreplace"

    def __init__(self, fd: int, limit: int = 10000) -> None:
        import threading

        self.fd, self.limit = fd, limit
        self.queue: Any = None  # until the first write
        self.starting = threading.RLock()  # (a signal handler that prints may come in while it is held)
        self.dropped = 0

    def write(self, text: str) -> int:
        if self.queue is None:
            self._start()
        try:
            self.queue.put_nowait(text)
        except Exception:  # queue.Full
            self.dropped += 1
        return len(text)

    def _start(self) -> None:
        import queue
        import threading

        with self.starting:
            if self.queue is None:
                pending: Any = queue.Queue(self.limit)
                threading.Thread(target=self._pump, args=(pending,), name="mcp_ref-stderr", daemon=True).start()
                self.queue = pending

    def _pump(self, pending: Any) -> None:
        while True:
            text = pending.get()
            try:
                os.write(self.fd, text.encode("utf-8", "backslashreplace"))
            except OSError:
                pass  # nobody reads stderr any more: keep draining the queue
            pending.task_done()

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return False

    def close(self, timeout: float) -> None:
        """Give the queue ``timeout`` seconds to reach stderr, saying what was dropped."""
        if self.dropped:
            self.write(f"mcp_ref: {self.dropped} writes to stderr were dropped (nobody was reading it)\n")
        deadline = time.monotonic() + timeout
        while self.queue is not None and self.queue.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.01)


# ---------------------------------------------------------------------------
# 19. Streamable HTTP
# ---------------------------------------------------------------------------
#
# One endpoint (``/mcp``) serves both eras, as a WSGI application
# (``MCPServer.streamable_http_app()``), so that any WSGI server can run it;
# _HttpServer below is the standard library's own.  Which era a POST belongs
# to is read from the message, never guessed:
#
#   POST body                                   served by
#   ------------------------------------------  -------------------------------------------------
#   a request whose _meta names its revision    a fresh _HttpExchange: 2026-07-28 is stateless
#                                               (basic/transports/streamable-http), so any worker
#                                               of any process can answer it
#   initialize (no such _meta)                  a new _HttpSession; its id goes back in
#                                               Mcp-Session-Id (2025-03-26 .. 2025-11-25,
#                                               basic/transports "Session Management")
#   anything with Mcp-Session-Id                that session (404 once it has ended)
#   anything else                               a fresh _HttpExchange, which answers a request
#                                               with the dispatcher's -32602 and HTTP 400
#
# A request is answered with JSON when its answer is ready before it has
# anything else to say; a call that sends messages first (notifications,
# requests to the client: handle_message's ``stream``), or runs longer than
# ``sse_after`` seconds, gets an SSE stream instead, which ends with the
# response.  Calls run as on stdio (a synchronous tool on the request's own
# thread, async tools on one event loop), through the same _Connection.

HEADER_MISMATCH = -32020  # 2026-07-28 basic/transports/streamable-http, "Server Validation"

# The HTTP status of an error response (2026-07-28: basic/transports/
# streamable-http, "Protocol Version Header"; basic/index, "Per-request
# protocol fields"; schema.ts on each error).  Any other error: 200.
_HTTP_STATUS = {PARSE_ERROR: 400, INVALID_REQUEST: 400, INVALID_PARAMS: 400, HEADER_MISMATCH: 400,
                MISSING_REQUIRED_CLIENT_CAPABILITY: 400, UNSUPPORTED_PROTOCOL_VERSION: 400, METHOD_NOT_FOUND: 404}
# Mcp-Name carries this parameter of these requests ("Standard Request Headers").
_NAME_PARAMS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
                "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}  # section 16
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
# Requests whose answer is a stream that stays open until the client leaves
# (basic/patterns/subscriptions): no request_timeout for them.
_LONG_LIVED = frozenset({"subscriptions/listen"})
_SESSION_HEADER = "HTTP_MCP_SESSION_ID"
_PRINCIPAL = "mcp_ref.principal"  # environ: who the verified token speaks for (_HttpAuth.check)
_RETRY_AFTER = "10"  # seconds: a 503 past a limit says when to try again
_VERSION_HEADER = "HTTP_MCP_PROTOCOL_VERSION"
# The stream's own headers: no caching, and no buffering by a proxy (nginx
# honours X-Accel-Buffering; "Receiving Messages" asks for it).
_SSE_HEADERS = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache, no-transform"),
                ("X-Accel-Buffering", "no")]

if TYPE_CHECKING:
    _Reply = Tuple[str, List[Tuple[str, str]], Iterable[bytes]]  # status line, headers, body
    _StartResponse = Callable[..., Any]


class _HttpApp:
    """The WSGI application of one MCPServer: routing, the guards every request
    passes (Host and Origin, the bearer token), and the three methods of the
    endpoint.  Thread-safe: a WSGI server calls it from many threads at once."""

    _POLL = 0.25  # seconds between looks at a silent call's client (gone?) and its deadline

    def __init__(self, server: MCPServer, options: Dict[str, Any]) -> None:
        import threading

        self.server = server
        self.path = options["streamable_http_path"]
        self.json_response = bool(options["json_response"])
        self.stateless = bool(options["stateless_http"])
        self.max_body = int(options["max_request_body_size"] or server.max_message_bytes)
        self.request_timeout = options["request_timeout"]
        self.sse_after = float(options["sse_after"])
        self.keepalive = float(options["keepalive"])
        self.max_stream_buffer = options["max_stream_buffer"]
        store = options["event_store"]
        # The store, ours or a deployment's, called through _Events (section 26): plain or async.
        self.events = None if store is False else _Events(EventStore() if store is None else store)
        self.retry = options["retry_interval"]
        self.hosts, self.origins = _allowed(options)
        self.auth = _HttpAuth.from_settings(server.settings, server.scope_hierarchy)
        self.lock = threading.Lock()
        self.pool: Optional[_Workers] = None
        self.loop: Any = None
        self.closing = threading.Event()
        self.table = _Sessions(options, self.lock, self.closing)  # whose, how many, how long (section 21)
        self.sessions = self.table.open  # by id (the same dict, for good)
        self._param_headers: Dict[_Tool, Optional[List[Tuple[Tuple[str, ...], str, Any]]]] = {}

    def __call__(self, environ: Dict[str, Any], start_response: _StartResponse) -> Iterable[bytes]:
        status, headers, body = self.respond(environ)
        start_response(status, headers)
        return body

    def respond(self, environ: Dict[str, Any]) -> _Reply:
        """One HTTP request's answer (the body may be a stream still to come)."""
        refused = self._guard(environ)
        if refused is not None:
            return refused
        path, method = environ.get("PATH_INFO") or "/", environ.get("REQUEST_METHOD", "GET")
        if self.auth is not None and path in self.auth.metadata_paths:
            return self.auth.metadata(method)
        if path != self.path:
            return _plain(404, "Not Found")
        if self.auth is not None:
            refused = self.auth.check(environ, self._run_async)  # sets environ[_PRINCIPAL]
            if refused is not None:
                return refused
        if method == "POST":
            return self._post_safely(environ)
        if method == "GET":
            return self._get(environ)
        if method == "DELETE":
            return self._delete(environ)
        return _plain(405, "Method Not Allowed", [("Allow", "GET, POST, DELETE")])

    # -- guards ------------------------------------------------------------------

    def _guard(self, environ: Dict[str, Any]) -> Optional[_Reply]:
        """DNS rebinding (basic/transports, "Security Warning"): a Host this
        server does not answer to gets 421; an Origin it does not trust, 403."""
        host = environ.get("HTTP_HOST") or ""
        if self.hosts is not None and not _host_allowed(host, self.hosts):
            return _error_reply(421, None, INVALID_REQUEST, f"Invalid Host header: {_one_line(host, 100)}")
        origin = environ.get("HTTP_ORIGIN")
        if origin is not None and not _origin_allowed(origin, host, self.hosts, self.origins):
            return _error_reply(403, None, INVALID_REQUEST, f"Invalid Origin header: {_one_line(origin, 100)}")
        return None

    # -- POST: every message from the client ---------------------------------------

    def _post_safely(self, environ: Dict[str, Any]) -> _Reply:
        """_post, never raising: a bug of ours is still one answer, -32603 with
        the request's id (as _Connection._handle answers on stdio), never a
        connection closed by the WSGI server."""
        try:
            return self._post(environ)
        except OSError:  # wsgi.input failed (the client left, a read deadline): the WSGI server answers
            raise
        except Exception as exc:
            _log_exception("internal error", exc)
            message = environ.get("mcp_ref.message")
            id_ = message.get("id") if isinstance(message, dict) else None
            return _error_reply(500, id_ if _valid_id(id_) else None, INTERNAL_ERROR, "Internal error")

    def _post(self, environ: Dict[str, Any]) -> _Reply:
        refused = _check_media(environ, self.json_response)
        if refused is not None:
            return refused
        message = environ["mcp_ref.message"] = self._read_message(environ)
        if not isinstance(message, (dict, list)):
            return message  # type: ignore[no-any-return]  # the error reply
        session_id = environ.get(_SESSION_HEADER)
        modern = isinstance(message, dict) and _modern_version(message) is not None
        if session_id is not None and not modern and not self.stateless:
            session = self.table.find(session_id, environ)
            if session is None:
                return _error_reply(404, None, INVALID_REQUEST, "Session not found: it ended, or never began")
            refused = _check_version_header(environ, session.rpc.version)
            if refused is not None:
                return refused
            if isinstance(message, list):
                return self._batch(session, message, environ)
            return self._exchange(session, message, environ, modern=False)
        if isinstance(message, list):
            return _error_reply(400, None, INVALID_REQUEST, "Invalid Request: a JSON-RPC batch needs a session "
                                                            "of protocol revision 2025-03-26")
        if modern:
            return self._post_modern(message, environ)
        if message.get("method") == "initialize" and "id" in message and not self.stateless:
            return self._initialize(message, environ)
        return self._post_sessionless(message, environ)

    def _read_message(self, environ: Dict[str, Any]) -> Any:
        """The body as JSON, or the error reply: too long (413), not JSON (400,
        -32700), nested too deeply (400, -32600)."""
        try:
            length = int(environ.get("CONTENT_LENGTH") or -1)
        except ValueError:
            return _error_reply(400, None, INVALID_REQUEST, "Invalid Request: bad Content-Length")
        if length > self.max_body:
            return _error_reply(413, None, INVALID_REQUEST, f"Invalid Request: message longer than {self.max_body} "
                                                            f"bytes")
        stream = environ["wsgi.input"]
        body = stream.read(length) if length >= 0 else stream.read(self.max_body + 1)
        if len(body) > self.max_body:
            return _error_reply(413, None, INVALID_REQUEST, f"Invalid Request: message longer than {self.max_body} "
                                                            f"bytes")
        try:
            message = _DECODER.decode(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            reason = "invalid UTF-8" if isinstance(exc, UnicodeDecodeError) else \
                "nested too deeply" if isinstance(exc, RecursionError) else "not valid JSON"
            return _error_reply(400, None, PARSE_ERROR, f"Parse error: {reason}")
        limit = self.server.max_depth
        if body.count(b"{") + body.count(b"[") > limit and _too_deep(message, limit):
            return _error_reply(400, None, INVALID_REQUEST, f"Invalid Request: nested deeper than {limit} levels")
        if not isinstance(message, (dict, list)):
            return _error_reply(400, None, INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
        return message

    def _post_modern(self, message: Dict[str, Any], environ: Dict[str, Any]) -> _Reply:
        """2026-07-28: the headers must agree with the body ("Server
        Validation"), then a fresh connection answers.  A message that is no
        valid request or notification is answered first, as on stdio: the
        checks below read its fields (method, params) as JSON-RPC defines them."""
        exchange = _HttpExchange(self, environ)
        id_ = message.get("id") if _valid_id(message.get("id")) else None
        kind, invalid = exchange.rpc.classify(message)
        if kind == "invalid":
            return _json_reply(_error_response(id_, invalid), modern=True)
        mismatch = _header_mismatch(message, environ)
        if mismatch is None and message.get("method") == "tools/call":
            mismatch = self._param_mismatch(message, environ)
        if mismatch is not None:
            return _error_reply(400, id_, HEADER_MISMATCH, f"Header mismatch: {mismatch}")
        if "id" not in message:  # no client notification is defined on this wire: accepted, unread
            return _plain(202, "")
        # subscriptions/listen (basic/patterns/subscriptions) is a request like
        # any other here: its handler streams notifications through ``stream``
        # and answers only when the client goes away; see _HttpApp._exchange.
        # It holds a thread while open: counted against the client's streams.
        if message.get("method") not in _LONG_LIVED:
            return self._exchange(exchange, message, environ, modern=True)
        release = self.table.open_stream(exchange.client)
        if release is None:
            return _busy(id_, f"{self.table.client_streams} streams open by this client, the limit")
        status, headers, body = self._exchange(exchange, message, environ, modern=True)
        if isinstance(body, list):  # answered at once (an error): no stream is held
            release()
            return status, headers, body
        return status, headers, _Counted(body, release)

    def _post_sessionless(self, message: Dict[str, Any], environ: Dict[str, Any]) -> _Reply:
        if "method" not in message and ("result" in message or "error" in message):
            return _error_reply(400, None, INVALID_REQUEST, "Invalid Request: no session to answer; "
                                                            "send Mcp-Session-Id")
        exchange = _HttpExchange(self, environ)
        if self.stateless:  # stateless_http: every request stands alone, in the revision its header names
            header = environ.get(_VERSION_HEADER) or "2025-03-26"
            if header not in HANDSHAKE_VERSIONS:
                return _error_reply(400, None, INVALID_REQUEST, f"Bad Request: unsupported MCP-Protocol-Version: "
                                                                f"{_one_line(header, 40)}")
            exchange.rpc.version = header
        return self._exchange(exchange, message, environ, modern=False)

    def _initialize(self, message: Dict[str, Any], environ: Dict[str, Any]) -> _Reply:
        """The handshake opens a session; its id is sent only with a successful result."""
        session = _HttpSession(self, environ)
        response = self._handle(session, message, _ResponseQueue(), True)
        if not isinstance(response, dict) or "result" not in response:
            return _json_reply(response, modern=False)
        busy = self.table.add(session)
        if busy is not None:
            return _busy(message.get("id"), busy)
        self.server._connections.append(session)  # list changes are announced to it (on its GET stream)
        status, headers, body = _json_reply(response, modern=False)
        return status, headers + [("Mcp-Session-Id", session.id)], body

    # -- a request and its answer --------------------------------------------------

    def _handle(self, conn: _Connection, message: Dict[str, Any], channel: _ResponseQueue, inline: bool) -> Any:
        """handle_message, never raising (as _Connection._handle does for stdio)."""
        stream: Callable[[bytes], None] = channel.send
        if self.json_response and isinstance(conn, _HttpSession):
            stream = conn.write  # no SSE on the POST: what comes before the response goes to the GET stream
        try:
            return conn.handle_message(message, channel.reply, inline, stream)
        except Exception as exc:
            _log_exception("internal error", exc)
            id_ = message.get("id")
            return _error_response(id_, _RpcError(INTERNAL_ERROR, "Internal error")) if _valid_id(id_) else None

    def _exchange(self, conn: _Connection, message: Dict[str, Any], environ: Dict[str, Any],
                  modern: bool) -> _Reply:
        """Answer one message: 202 for a notification or a response, JSON for a
        ready answer, else wait for the call (JSON or SSE: _answer_call)."""
        channel = self._channel(conn, message.get("method"))
        response = self._handle(conn, message, channel, self._inline(message))
        if response is None:
            return _plain(202, "")
        # Outside a session, an error's HTTP status says what it is (_HTTP_STATUS).
        table = not isinstance(conn, _HttpSession) and (modern or not self.stateless)
        if response is not _STARTED:
            return _json_reply(response, table)
        return self._answer_call(conn, message["id"], channel, environ, cancel_on_close=modern,
                                 long_lived=message.get("method") in _LONG_LIVED, table=table)

    def _channel(self, conn: _Connection, method: Any) -> _ResponseQueue:
        """A response's channel: bounded; in a session, for a request that may
        stream, resumable (_ResponseQueue.begin, when it streams)."""
        if not isinstance(conn, _HttpSession) or self.events is None or self.json_response \
                or method not in ("tools/call", "resources/read", "prompts/get"):  # the rest: answered at once
            return _ResponseQueue(self.max_stream_buffer)
        prime = (conn.rpc.version or "") >= "2025-11-25"
        return _ResponseQueue(self.max_stream_buffer, self.events, conn.next_stream_id(), prime)

    def _inline(self, message: Dict[str, Any]) -> bool:
        """Whether a call may run on the request's own thread: not when its tool
        can send messages before its response (a Context parameter), which must
        reach the client while it runs."""
        params = message.get("params")
        if not isinstance(params, dict):
            return True
        if message.get("method") != "tools/call":  # a resource's or a prompt's function too
            return not _runs_with_context(self.server, str(message.get("method")), params)
        name = params.get("name")  # any JSON value: the dispatcher answers one that is no tool's name
        tool = self.server._tools.get(name) if isinstance(name, str) else None
        return tool is None or getattr(tool, "context_param", None) is None and tool.resolved is None

    def _answer_call(self, conn: _Connection, id_: Any, channel: _ResponseQueue, environ: Dict[str, Any],
                     cancel_on_close: bool, long_lived: bool = False, table: bool = False) -> _Reply:
        """JSON if the response comes first and soon (an error's status from
        _HTTP_STATUS when ``table``); otherwise an SSE stream."""
        timeout = None if long_lived else self.request_timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        watch = _HttpCall(conn, id_, cancel_on_close, deadline)
        channel.on_overflow = watch.close
        if long_lived:  # a listen stream: list changes are announced to it while it lasts
            self.server._connections.append(conn)
            watch.closed = functools.partial(_forget_connection, self.server, conn)
        first = self._wait(channel, None if self.json_response else self.sse_after, environ, watch)
        if first is not None and not first[0] or first is None and not self.json_response and not watch.stop:
            if isinstance(conn, _HttpSession):  # a priming event (basic/transports, "Resumability and
                # Redelivery": "immediately send an SSE event consisting of an event ID and an empty data field")
                first = channel.begin(first)
                conn.track(channel)
            return "200 OK", list(_SSE_HEADERS), self._sse(channel, first, watch, environ)
        if first is None:  # the deadline passed (JSON only), the client went, or the server is stopping
            channel.detach()
            if watch.expired():
                watch.cancel()
            watch.close()  # the client gone: the call goes on before 2026-07-28 (_HttpCall)
            return _json_reply(_error_response(id_, _RpcError(INTERNAL_ERROR, watch.late_text())), False)
        watch.done = True
        if first[1] is None:  # cancelled by the client (notifications/cancelled): nothing to send
            return "200 OK", list(_SSE_HEADERS), []
        if table and b'"error"' in first[1]:  # a tool's -32021 is a 400 too (basic/index)
            status, headers, _ = _json_reply(json.loads(first[1]), True)
            return status, headers, [first[1]]
        return "200 OK", [("Content-Type", "application/json")], [first[1]]

    def _wait(self, channel: _ResponseQueue, seconds: Optional[float], environ: Dict[str, Any],
              watch: _HttpCall) -> Any:
        """The channel's first item within ``seconds`` (None: until the
        deadline), skipping messages when nothing but JSON may be sent; None
        if none came (``watch.stop`` says whether it is worth waiting on).
        Before 2026-07-28 the end of the client's input is no reason to stop:
        the call goes on (a disconnection is no cancellation, basic/transports),
        and a client that only half-closed its side still waits for the answer,
        which it gets; one that has gone fails the write, harmlessly."""
        gone = environ.get("mcp_ref.gone", _never) if watch.cancel_on_close else _never
        end = time.monotonic() + seconds if seconds is not None else watch.deadline
        if watch.deadline is not None and end is not None:
            end = min(end, watch.deadline)
        while True:
            step = self._POLL if end is None else min(self._POLL, end - time.monotonic())
            if step <= 0:
                watch.stop = watch.expired()
                return None
            item = channel.get(step)
            if item is not None and not (self.json_response and not item[0]):
                return item
            if gone() or self.closing.is_set():
                watch.stop = True
                return None

    def _sse(self, channel: _ResponseQueue, first: Any, watch: _HttpCall, environ: Dict[str, Any],
             replayed: Optional[List[Tuple[bytes, Optional[str]]]] = None) -> Iterable[bytes]:
        """The POST's event stream: messages, then the response, then the end.
        A comment every ``keepalive`` seconds keeps proxies from timing it out
        and finds a client that has gone (its write fails).  A resumed stream
        begins with what the client missed (``replayed``)."""
        gone = environ.get("mcp_ref.gone", _never)
        try:
            head = b""  # the priming event, and when to come back if cut; in one write with the first event
            if channel.primer is not None and replayed is None:
                retry = b"" if self.retry is None else b"retry: %d\n" % self.retry
                head = b"id: " + channel.primer.encode() + b"\n" + retry + b"data: \n\n"
                if first is None or first[1] is None:
                    yield head
                    head = b""
            for data, event_id in replayed or ():
                yield _sse_event(data, event_id)
            if replayed is not None and channel.finished:
                return  # the response was among them
            item = first if first is not None or channel.primer is not None else (False, b": stream open\n\n", None)
            quiet_since = time.monotonic()
            while True:
                if item is not None:
                    final, data, event_id = item
                    if data is None and not final or channel.overflowed:
                        if head:  # the priming event, still due: the client resumes from it
                            yield head
                        return  # ended early (_CLOSED, or overflowed): the client resumes or has gone
                    if data is not None:
                        yield head + (data if data.startswith(b":") else _sse_event(data, event_id))
                        head = b""
                    quiet_since = time.monotonic()
                    if final:
                        watch.done = True
                        return
                elif watch.expired():
                    watch.cancel()
                    yield _sse_event(_encode(_error_response(watch.id, _RpcError(INTERNAL_ERROR, watch.late_text()))))
                    return
                elif gone() or self.closing.is_set():
                    return
                elif time.monotonic() - quiet_since >= self.keepalive:
                    yield b": keepalive\n\n"
                    quiet_since = time.monotonic()
                item = channel.get(self._POLL)
        finally:
            channel.detach()
            watch.close()

    # -- GET: the session's own stream; DELETE: the session's end -----------------

    def _get(self, environ: Dict[str, Any]) -> _Reply:
        """2025-03-26 .. 2025-11-25 ("Listening for Messages from the Server"):
        one stream per session for what the server sends outside any request.
        2026-07-28 has none: 405."""
        session_id = environ.get(_SESSION_HEADER)
        if self.stateless or environ.get(_VERSION_HEADER) in STATELESS_VERSIONS:
            return _plain(405, "Method Not Allowed", [("Allow", "POST")])
        if "text/event-stream" not in _accepted(environ):
            return _error_reply(406, None, INVALID_REQUEST, "Not Acceptable: the client must accept "
                                                            "text/event-stream")
        if session_id is None:
            return _error_reply(400, None, INVALID_REQUEST, "Bad Request: Mcp-Session-Id is required")
        session = self.table.find(session_id, environ)
        if session is None:
            return _error_reply(404, None, INVALID_REQUEST, "Session not found: it ended, or never began")
        release = self.table.open_stream(session.client)
        if release is None:
            return _busy(None, f"{self.table.client_streams} streams open by this client, the limit")
        last = environ.get("HTTP_LAST_EVENT_ID")
        if last is not None and self.events is not None:
            resumed = self._resume(session, last, environ)
            if resumed is not None:
                status, headers, body = resumed
                if isinstance(body, list):  # answered whole: no stream is held
                    release()
                    return resumed
                return status, headers, _Counted(body, release)
        channel = session.open_stream()
        if channel is None:
            release()
            return _error_reply(409, None, INVALID_REQUEST, "Conflict: this session's GET stream is open already")
        watch = _HttpCall(session, None, False, None)
        return "200 OK", list(_SSE_HEADERS), _Counted(self._sse(channel, None, watch, environ), release)

    def _resume(self, session: _HttpSession, last: str, environ: Dict[str, Any]) -> Optional[_Reply]:
        """GET with Last-Event-ID (basic/transports, "Resumability and
        Redelivery"): what that event's stream sent after it, then what it
        sends from now on.  Never another stream's ("MUST NOT replay messages
        that would have been delivered on a different stream"), nor another
        session's; for an event id it does not know: None (the GET stream)."""
        assert self.events is not None
        events = self.events
        stream_id, replayed = events.replay(last)
        if stream_id is None or not stream_id.startswith(session.id + "/"):
            return None
        channel = session.stream if stream_id == session.id + "/get" else session.live.get(stream_id)
        if channel is None:  # the call has ended: the rest of what it sent, its response last
            return "200 OK", list(_SSE_HEADERS), [_sse_event(data, event_id) for data, event_id in replayed]
        for _ in range(8):  # a client that resumes has left the old response: it ends at its next look
            replayed = channel.attach(lambda: events.replay(last)[1])
            if replayed is not None or self.closing.wait(self._POLL):
                break
        if replayed is None:
            return _error_reply(409, None, INVALID_REQUEST, "Conflict: that stream is open already")
        watch = _HttpCall(session, None, False, None)
        return "200 OK", list(_SSE_HEADERS), self._sse(channel, None, watch, environ, replayed)

    def _delete(self, environ: Dict[str, Any]) -> _Reply:
        session_id = environ.get(_SESSION_HEADER)
        if self.stateless or environ.get(_VERSION_HEADER) in STATELESS_VERSIONS:
            return _plain(405, "Method Not Allowed", [("Allow", "POST")])
        if session_id is None:
            return _error_reply(400, None, INVALID_REQUEST, "Bad Request: Mcp-Session-Id is required")
        session = self.table.find(session_id, environ)  # another user's: as if it did not exist
        if session is None:
            return _error_reply(404, None, INVALID_REQUEST, "Session not found: it ended, or never began")
        self.table.remove(session)
        session.end()
        return _plain(200, "")

    # -- 2025-03-26 batches ----------------------------------------------------------

    def _batch(self, session: _HttpSession, members: List[Any], environ: Dict[str, Any]) -> _Reply:
        """A JSON-RPC batch (2025-03-26 only), as _Connection.handle_batch
        answers one on stdio, its responses in one array on this POST."""
        version = session.rpc.version
        if version not in _BATCH_VERSIONS or not members or len(members) > self.server.max_batch:
            reason = "an empty batch" if not members else \
                f"a batch of {len(members)} messages, over this server's limit of {self.server.max_batch}" \
                if version in _BATCH_VERSIONS else f"JSON-RPC batches are not part of protocol revision {version}"
            return _error_reply(400, None, INVALID_REQUEST, f"Invalid Request: {reason}")
        channel = _ResponseQueue(self.max_stream_buffer)
        batch = _Batch(len(members), lambda parts: channel.reply(
            b"[" + b",".join(part.rstrip(b"\n") for part in parts) + b"]\n" if parts else None))
        for message in members:
            response = self._handle(session, message, _BatchMember(channel, batch), False) \
                if isinstance(message, dict) else _error_response(None, _RpcError(
                    INVALID_REQUEST, "Invalid Request: a message must be a JSON object"))
            if response is not _STARTED:
                batch.add(None if response is None else _encode(response))
        if all(isinstance(m, dict) and "id" not in m for m in members):
            return _plain(202, "")
        return self._answer_call(session, None, channel, environ, cancel_on_close=False)

    # -- x-mcp-header ----------------------------------------------------------------

    def _param_mismatch(self, message: Dict[str, Any], environ: Dict[str, Any]) -> Optional[str]:
        """Mcp-Param-{Name} headers against the arguments they mirror
        ("Custom Headers from Tool Parameters": present together, equal)."""
        params = message.get("params") or {}
        name = params.get("name")
        tool = self.server._tools.get(name) if isinstance(name, str) else None
        if tool is None:
            return None
        annotated = self._param_headers.get(tool, _ABSENT)
        if annotated is _ABSENT:
            annotated = self._param_headers[tool] = _x_mcp_headers(tool.describe()["inputSchema"])
        arguments = params.get("arguments")
        for path, token, kind in annotated or ():
            value = _value_at(arguments, path)
            problem = _param_header_problem(environ.get("HTTP_MCP_PARAM_" + token.upper().replace("-", "_")),
                                            value, kind)
            if problem is not None:
                return f"Mcp-Param-{token} header {problem} the argument {'.'.join(path)!r}"
        return None

    # -- the shared event loop and pool ------------------------------------------------

    def workers(self) -> _Workers:
        """The app's one pool, shared by every client: ``2 * workers`` threads,
        at most ``workers`` of them running one client's calls (_Workers: fair)."""
        with self.lock:
            if self.pool is None:
                self.pool = _Workers(2 * self.server.workers, per_client=self.server.workers)
            return self.pool

    def event_loop(self) -> Any:
        with self.lock:
            if self.loop is None:
                self.loop = _start_event_loop()
            return self.loop

    def _run_async(self, coro: Any, timeout: float) -> Any:
        import asyncio

        return asyncio.run_coroutine_threadsafe(coro, self.event_loop()).result(timeout)

    def close(self) -> None:
        """Stop: every open stream ends, every session is forgotten, and the
        pool's threads end once the calls queued have run."""
        self.closing.set()
        for session in self.table.clear():
            session.end()
        if self.pool is not None:
            self.pool.close()


def _never() -> bool:
    return False


def _forget_connection(server: MCPServer, conn: _Connection) -> None:
    try:
        server._connections.remove(conn)
    except ValueError:  # forgotten already
        pass


class _HttpExchange(_Connection):
    """One stateless request's connection (2026-07-28, or a request with no
    session): nothing outlives the request but the app's pool and loop."""

    def __init__(self, app: _HttpApp, environ: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(app.server)
        self.app = app
        self.loop = app.loop  # one loop and one pool for the whole app, both started when first needed
        # Who sent the request: the verified token's principal (None without
        # auth), which a session and a requestState are bound to; and the
        # client its limits and its share of the pool are counted for.
        self.principal: Optional[str] = None if environ is None else environ.get(_PRINCIPAL)
        self.client = "" if environ is None else _client_of(environ)

    def write(self, message: Any) -> None:
        pass  # handle_message is always given the response's own stream

    def _workers(self) -> _Workers:
        return _Lane(self.app.workers(), self.client)  # the client's own queue in the shared pool

    def event_loop(self) -> Any:
        return self.app.event_loop()  # the app's one loop, for every request's async tools


class _HttpSession(_HttpExchange):
    """A handshake-era session (2025-03-26 .. 2025-11-25): the revision its
    initialize fixed, its calls in flight, and its one GET stream, where
    ``write`` sends what belongs to no request (nothing, while none is open)."""

    def __init__(self, app: _HttpApp, environ: Optional[Dict[str, Any]] = None) -> None:
        import secrets

        super().__init__(app, environ)
        self.id = secrets.token_hex(16)  # visible ASCII, unguessable ("Session Management")
        self.last_used = time.monotonic()
        self.stream: Optional[_ResponseQueue] = None  # the GET stream's, kept while no response has it
        self.streams = itertools.count(1)
        self.live: Dict[str, _ResponseQueue] = {}  # the resumable channels of calls still running

    def write(self, message: Any) -> None:
        stream = self.stream
        if stream is not None:
            stream.send(message if isinstance(message, bytes) else _encode(message))

    def next_stream_id(self) -> str:
        return f"{self.id}/{next(self.streams)}"  # the session's own: _HttpApp._resume checks it

    def track(self, channel: _ResponseQueue) -> None:
        """Keep a call's resumable channel findable until its response is in."""
        with channel.lock:
            if channel.events is not None and not channel.finished:
                channel.live = self.live
                self.live[channel.stream_id] = channel

    def open_stream(self) -> Optional[_ResponseQueue]:
        """The GET stream's channel, now attached to a response (None: one has it)."""
        app = self.app
        with self.state:
            if self.stream is None:
                self.stream = _ResponseQueue(app.max_stream_buffer, app.events, self.id + "/get")
                self.stream.attached, self.stream.held, self.stream.storing = False, False, app.events is not None
            channel = self.stream

        def prime() -> List[Any]:
            if app.events is not None and (self.rpc.version or "") >= "2025-11-25":
                channel.primer = app.events.store(channel.stream_id, None)
            return []

        return None if channel.attach(prime) is None else channel

    def end(self) -> None:
        """DELETE, expiry or shutdown: the GET stream ends; calls still
        running finish, and their answers go nowhere.  Their questions to the
        client fail now: it will answer nothing more (not a cancellation)."""
        self.close_questions("the session has ended")
        with self.state:
            stream, self.stream = self.stream, None
        if stream is not None:
            stream.reply(None)
        if self.app.events is not None:
            self.app.events.forget(self.id + "/")
        _forget_connection(self.server, self)


def _plain(status: int, text: str, headers: Optional[List[Tuple[str, str]]] = None) -> _Reply:
    body = [text.encode()] if text else []
    return _status_line(status), [("Content-Type", "text/plain; charset=utf-8")] + (headers or []), body


def _status_line(status: int) -> str:
    import http

    return f"{status} {http.HTTPStatus(status).phrase}"


def _error_reply(status: int, id_: Any, code: int, message: str, data: Any = _MISSING,
                 headers: Optional[List[Tuple[str, str]]] = None) -> _Reply:
    """A JSON-RPC error response as the HTTP response's body (transport
    errors carry no id: "a JSON-RPC error response that has no id")."""
    body = _encode(_error_response(id_, _RpcError(code, message, data)))
    return _status_line(status), [("Content-Type", "application/json")] + (headers or []), [body]


def _json_reply(response: Any, modern: bool) -> _Reply:
    """A ready response as JSON.  Without a session, an error's status is the
    table's (_HTTP_STATUS); within one, a JSON-RPC error is still 200."""
    status = 200
    if modern and isinstance(response, dict) and isinstance(response.get("error"), dict):
        status = _HTTP_STATUS.get(response["error"].get("code"), 200)
    return _status_line(status), [("Content-Type", "application/json")], [_encode(response)]


def _accepted(environ: Dict[str, Any]) -> List[str]:
    """The media types of the Accept header, parameters dropped, lower case."""
    return [part.split(";")[0].strip().lower() for part in (environ.get("HTTP_ACCEPT") or "").split(",")]


def _check_media(environ: Dict[str, Any], json_only: bool) -> Optional[_Reply]:
    """A POST must send JSON (415) and accept both JSON and SSE (406):
    basic/transports, "Sending Messages to the Server" (JSON only when this
    server never streams)."""
    content_type = (environ.get("CONTENT_TYPE") or "").split(";")[0].strip().lower()
    if content_type != "application/json":
        return _error_reply(415, None, INVALID_REQUEST, "Unsupported Media Type: Content-Type must be "
                                                        "application/json")
    accepted = _accepted(environ)
    wild = "*/*" in accepted
    json_ok = wild or "application/json" in accepted or "application/*" in accepted
    sse_ok = wild or "text/event-stream" in accepted or "text/*" in accepted
    if not json_ok or not (sse_ok or json_only):
        return _error_reply(406, None, INVALID_REQUEST, "Not Acceptable: the client must accept both "
                                                        "application/json and text/event-stream")
    return None


def _check_version_header(environ: Dict[str, Any], negotiated: Optional[str]) -> Optional[_Reply]:
    """MCP-Protocol-Version within a session (2025-06-18 on, "Protocol Version
    Header"): absent means 2025-03-26; one we do not serve is a 400."""
    header = environ.get(_VERSION_HEADER)
    if header is None or header == negotiated or header in HANDSHAKE_VERSIONS:
        return None
    return _error_reply(400, None, INVALID_REQUEST, f"Bad Request: unsupported MCP-Protocol-Version: "
                                                    f"{_one_line(header, 40)} (this session speaks {negotiated})")


def _modern_version(message: Dict[str, Any]) -> Any:
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta.get(META_PROTOCOL_VERSION) if isinstance(meta, dict) else None


def _header_mismatch(message: Dict[str, Any], environ: Dict[str, Any]) -> Optional[str]:
    """What the 2026-07-28 standard headers say that the body does not
    ("Server Validation"), checked once _meta carries the required pair
    (without it, the dispatcher's -32602 answers first)."""
    params = message.get("params") or {}
    meta = params.get("_meta") or {}
    if META_CLIENT_CAPABILITIES not in meta:
        return None
    version = environ.get(_VERSION_HEADER)
    if version != meta.get(META_PROTOCOL_VERSION):
        return (f"MCP-Protocol-Version header value {_shown(version)} does not match the body's "
                f"{META_PROTOCOL_VERSION} {_shown(meta.get(META_PROTOCOL_VERSION))}")
    if "id" not in message:
        return None  # header requirements for notifications are not defined
    method = environ.get("HTTP_MCP_METHOD")
    if method != message.get("method"):
        return f"Mcp-Method header value {_shown(method)} does not match the body's method {_shown(message['method'])}"
    key = _NAME_PARAMS.get(message["method"])
    if key is not None and params.get(key) is not None:
        name = environ.get("HTTP_MCP_NAME")
        if _header_text(name) != params[key]:
            return f"Mcp-Name header value {_shown(name)} does not match the body's {key} {_shown(params[key])}"
    return None


def _shown(value: Any) -> str:
    return "(none)" if value is None else repr(_one_line(str(value), 80))


def _header_text(raw: Optional[str]) -> Optional[str]:
    """A header value as text: ``=?base64?...?=`` decoded ("Value Encoding");
    None for a malformed one, or one with characters a header may not carry."""
    import base64
    import binascii

    if raw is None or any(not (" " <= c <= "~" or c == "\t") for c in raw):
        return None
    raw = raw.strip(" \t")  # optional whitespace around a field value is not part of it (RFC 9110 5.5)
    if not (raw.startswith("=?base64?") and raw.endswith("?=") and len(raw) >= 11):
        return raw
    payload = raw[9:-2]
    try:
        data = base64.b64decode(payload, validate=True)
        if base64.b64encode(data).decode("ascii") != payload:  # canonical form only
            return None
        return data.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


def _x_mcp_headers(schema: Any) -> Optional[List[Tuple[Tuple[str, ...], str, Any]]]:
    """The (property path, header name, type) of each ``x-mcp-header``
    annotation; None when any is invalid (a conforming client then drops the
    tool and sends no such header: server/tools, "x-mcp-header")."""
    import re

    token = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
    found: List[Tuple[Tuple[str, ...], str, Any]] = []
    seen = set()
    stack: List[Tuple[Optional[Tuple[str, ...]], Any]] = [((), schema)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, list):
            stack.extend((None, item) for item in node)
            continue
        if not isinstance(node, dict):
            continue
        if "x-mcp-header" in node:
            name, kind = node["x-mcp-header"], node.get("type")
            if not path or not isinstance(name, str) or not token.match(name) or name.lower() in seen \
                    or kind not in ("string", "integer", "boolean"):
                return None
            seen.add(name.lower())
            found.append((path, name, kind))
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                stack.extend(((path + (k,)) if path is not None else None, v) for k, v in value.items())
            elif key not in ("default", "examples", "const", "enum", "x-mcp-header"):
                stack.append((None, value))  # anything but a properties chain is no place for one
    return found


def _value_at(arguments: Any, path: Tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(arguments, dict):
            return None
        arguments = arguments.get(key)
    return arguments


def _param_header_problem(raw: Optional[str], value: Any, kind: Any) -> Optional[str]:
    """Why one Mcp-Param header does not mirror its argument, or None."""
    if value is None:  # absent or null: the client sends no header
        return None if raw is None else "is present without"
    if isinstance(value, bool):
        rendered: Optional[str] = "true" if value else "false"
    elif isinstance(value, (str, int, float)):
        rendered = str(value)
    else:
        rendered = None
    if raw is None:
        return None if rendered is None else "is missing for"
    text = _header_text(raw)
    if text is None:
        return "is malformed for"
    if kind == "integer" and isinstance(value, (int, float)) and not isinstance(value, bool) and \
            (isinstance(value, int) or value.is_integer()):  # (float() of a huge int overflows)
        try:  # numerically: 42 matches 42.0 ("Server Validation", note)
            return None if _finite(text) == value else "does not match"
        except (ValueError, OverflowError):
            return "does not match"
    return None if text == rendered else "does not match"


# ---------------------------------------------------------------------------
# 20. SSE streams
# ---------------------------------------------------------------------------
#
# What goes out on one HTTP response while a call runs (_ResponseQueue), its
# bounds, and what lets a session's client come back for what it missed:
# event ids, the priming event, the event store and Last-Event-ID
# (2025-03-26 .. 2025-11-25 basic/transports, "Resumability and Redelivery";
# 2026-07-28 streams are not resumable: basic/transports/streamable-http).


class _ResponseQueue:
    """What goes out on one HTTP response, in order: ``(False, bytes, event
    id)`` for a message before the response (``stream``), ``(True, bytes,
    event id)`` for the response (``reply``; None there: a cancelled call,
    nothing to send), and ``_CLOSED``: the server ends the response early.

    A session's channel is resumable (2025-03-26 .. 2025-11-25 basic/transports,
    "Resumability and Redelivery"): once its response is a stream
    (``begin``), each message is kept in the event store under the channel's
    stream id, and stays there for a client that comes back with
    Last-Event-ID, whether or not a response carries it now (``attached``).
    An answer that goes out as one JSON object stores nothing.  Bounded:
    once more than ``limit`` bytes wait for a client that does not read, the
    response ends (``overflowed``; ``on_overflow`` runs) and nothing more is
    queued for it; a resumable channel goes on storing (README, "Limits and
    guarantees")."""

    __slots__ = ("items", "lock", "ready", "limit", "queued", "attached", "overflowed", "on_overflow", "events",
                 "stream_id", "primer", "live", "finished", "storing", "held", "prime", "taken")

    def __init__(self, limit: Optional[int] = None, events: Optional[_Events] = None, stream_id: str = "",
                 prime: bool = False) -> None:
        import collections
        import threading

        self.items: Any = collections.deque()  # all of the channel's state is under its lock
        self.lock = threading.Lock()
        self.ready: Any = None  # a Condition on the lock, made by the first get() that must wait
        self.limit, self.queued = limit, 0
        self.attached, self.overflowed = True, False
        self.on_overflow: Callable[[], None] = _nothing
        self.events, self.stream_id = events, stream_id
        self.primer: Optional[str] = None  # the priming event's id, sent first (2025-11-25)
        self.live: Optional[Dict[str, _ResponseQueue]] = None  # the session's channels still to finish
        self.finished = False  # the response is in
        self.storing = False  # begun: what comes is stored as it comes
        self.held = events is not None  # until ``begin``: everything queued, for the store
        self.prime = prime  # a priming event at ``begin`` (2025-11-25)
        self.taken: Any = None  # the item handed out before ``begin``: stored first

    def send(self, data: bytes) -> None:
        self._put(False, data)

    def reply(self, data: Optional[bytes]) -> None:
        self._put(True, data)

    def _put(self, final: bool, data: Optional[bytes]) -> None:
        with self.lock:
            overflow = self.limit is not None and self.queued > self.limit and not final \
                and (self.attached or self.held)
            if overflow and self.held:  # what waits goes to the store, not away
                self._begin()
            events = self.events if self.storing and data else None
            event_id = events.store(self.stream_id, data) if events is not None else None
            if final:
                self.finished = True
                if self.live is not None:
                    self.live.pop(self.stream_id, None)  # nothing more to resume
            if not self.attached and not self.held:
                return
            if overflow:  # the client is not reading: the response ends, unread
                self.overflowed, self.attached = True, False
                self._drain()
            else:
                self.queued += len(data or b"")
            self.items.append(_CLOSED if overflow else (final, data, event_id))
            if self.ready is not None:  # someone may wait (an answer ready first needs no Condition)
                self.ready.notify()
        if overflow:
            self.on_overflow()

    def get(self, timeout: float) -> Optional[Tuple[bool, Optional[bytes], Optional[str]]]:
        with self.lock:
            if not self.items:
                if self.ready is None:
                    import threading

                    self.ready = threading.Condition(self.lock)
                self.ready.wait(max(0.0, timeout))
            if not self.items:
                return None
            item = self.items.popleft()
            if item[1] is not None:
                self.queued -= len(item[1])
                if self.held:
                    self.taken = item
            return item  # type: ignore[no-any-return]

    def close(self) -> None:
        """Context.close_sse_stream (SEP-1699): end the response now; the call
        goes on, and the client resumes with Last-Event-ID (resumable only)."""
        with self.lock:
            if self.events is None or not self.attached:
                return
            self.attached = False  # what was queued goes out first; what comes, to the store
            self.items.append(_CLOSED)
            if self.ready is not None:
                self.ready.notify()

    def begin(self, first: Any) -> Any:
        """The response is a stream: ``first`` (taken already), with its event id."""
        with self.lock:
            self._begin()
            taken = self.taken
        return taken if first is not None and taken is not None and first[1] is taken[1] else first

    def _begin(self) -> None:
        """From here on everything is stored: the priming event first, then
        the item taken already and what waits (under the lock)."""
        import collections

        if not self.held or self.events is None:
            return
        self.storing, self.held = True, False
        if self.prime:
            self.primer = self.events.store(self.stream_id, None)
        if self.taken is not None:
            self.taken = (self.taken[0], self.taken[1], self.events.store(self.stream_id, self.taken[1]))
        events = self.events
        self.items = collections.deque((final, data, events.store(self.stream_id, data) if data else None)
                                       for final, data, _ in self.items)

    def detach(self) -> None:
        """The response has ended: queue nothing more for it."""
        with self.lock:
            self.attached, self.held = False, False
            self._drain()

    def attach(self, replay: Callable[[], Any]) -> Any:
        """A client resumes (GET with Last-Event-ID): what ``replay`` gives,
        and from then on what comes, with nothing lost or sent twice in
        between (the lock holds _put back); None if a response has it now."""
        with self.lock:
            if self.attached:
                return None
            replayed = replay()
            self._drain()
            self.attached, self.overflowed = True, False
            return replayed

    def _drain(self) -> None:
        self.items.clear()
        self.queued = 0


# A channel's item that ends its response early (overflow, or the server closes it).
_CLOSED = (False, None, None)


class EventStore:
    """The messages of resumable SSE streams, for clients that reconnect with
    Last-Event-ID (basic/transports, "Resumability and Redelivery"): the
    default, in memory, bounded to ``max_bytes`` (the oldest go first).  A
    replacement (``streamable_http_app(event_store=...)``) has the shape of
    the SDK's EventStore: section 26, _Events."""

    def __init__(self, max_bytes: int = 16 * 1024 * 1024) -> None:
        import collections
        import threading

        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._size = 0
        self._count = itertools.count(1)
        self._events: Any = collections.OrderedDict()  # event id -> (stream id, message), oldest first
        self._streams: Dict[str, Any] = {}  # stream id -> deque of its event ids

    def store_event(self, stream_id: str, message: Optional[bytes]) -> str:
        import collections

        with self._lock:
            event_id = str(next(self._count))
            self._events[event_id] = (stream_id, message)
            ids = self._streams.get(stream_id)
            if ids is None:
                ids = self._streams[stream_id] = collections.deque()
            ids.append(event_id)
            self._size += len(message or b"") + 64  # 64: a rough cost of the entry itself
            while self._size > self.max_bytes and len(self._events) > 1:
                self._forget_oldest()
        return event_id

    def replay_events_after(self, last_event_id: str, send_callback: Callable[[EventMessage], Any]) -> Optional[str]:
        with self._lock:
            entry = self._events.get(last_event_id)
            if entry is None:
                return None
            ids = list(self._streams[entry[0]])
            after = [(i, self._events[i][1]) for i in ids[ids.index(last_event_id) + 1:]]
        for event_id, message in after:
            if message is not None:
                send_callback(EventMessage(message, event_id))  # the SDK's EventMessage (section 26)
        return entry[0]  # type: ignore[no-any-return]

    def forget(self, prefix: str) -> None:
        """Drop the streams whose id starts with ``prefix`` (a session that has ended)."""
        with self._lock:
            for stream_id in [s for s in self._streams if s.startswith(prefix)]:
                for event_id in self._streams.pop(stream_id):
                    self._size -= len(self._events.pop(event_id)[1] or b"") + 64

    def _forget_oldest(self) -> None:
        event_id, (stream_id, message) = self._events.popitem(last=False)
        self._size -= len(message or b"") + 64
        ids = self._streams[stream_id]
        ids.popleft()  # ids grow with time: a stream's oldest is the store's oldest
        if not ids:
            del self._streams[stream_id]


class _BatchMember(_ResponseQueue):
    """A batch member's channel: its messages go to the batch's response, its reply into the batch."""

    def __init__(self, channel: _ResponseQueue, batch: _Batch) -> None:
        self.channel, self.batch = channel, batch

    def send(self, data: bytes) -> None:
        self.channel.send(data)

    def reply(self, data: Optional[bytes]) -> None:
        self.batch.add(data)


class _HttpCall:
    """A call being answered on an HTTP response: its deadline, and what
    happens when the response ends before the call does.  2026-07-28: the
    client closing the stream cancels the call (basic/patterns/cancellation);
    before it, a disconnection is not a cancellation (2025-11-25 basic/transports)."""

    def __init__(self, conn: _Connection, id_: Any, cancel_on_close: bool, deadline: Optional[float]) -> None:
        self.conn, self.id, self.cancel_on_close, self.deadline = conn, id_, cancel_on_close, deadline
        self.done = False
        self.stop = False  # no use waiting on: the client went, or the server is stopping
        self.closed: Callable[[], None] = _nothing

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def late_text(self) -> str:
        return "Internal error: the call did not finish within the server's request timeout"

    def cancel(self) -> None:
        if self.id is not None and not self.done:
            self.done = True
            self.conn.notification("notifications/cancelled", {"requestId": self.id})

    def close(self) -> None:
        if self.cancel_on_close:
            self.cancel()
        self.closed()


def _nothing() -> None:
    pass


def _sse_event(data: bytes, event_id: Optional[str] = None) -> bytes:
    # One JSON-RPC message per event, on one data line (_encode writes no
    # newline inside a message); its id, when the stream is resumable.
    head = b"" if event_id is None else b"id: " + event_id.encode() + b"\n"
    return head + b"event: message\ndata: " + data.rstrip(b"\n") + b"\n\n"


# ---------------------------------------------------------------------------
# 21. HTTP access control
# ---------------------------------------------------------------------------
#
# Who may talk to an HTTP server: the Host and Origin checks against DNS
# rebinding (basic/transports, basic/security_best_practices), and bearer
# tokens (basic/authorization); and what each client may hold: its sessions,
# bound to it, and its share of sessions and streams.


def _allowed(options: Dict[str, Any]) -> Tuple[Optional[List[str]], Optional[List[str]]]:
    """The Host and Origin allow-lists (None: any).  By default a server for
    a loopback address answers only to loopback names, as the SDK's does: the
    defence against DNS rebinding (basic/security_best_practices); one for
    another address takes any Host, and an Origin only when it is the
    server's own (basic/transports: servers MUST validate the Origin header
    on all incoming connections; the SDK checks none there)."""
    security = options.get("transport_security")
    hosts, origins = options.get("allowed_hosts"), options.get("allowed_origins")
    if security is not None:  # the SDK's TransportSecuritySettings, or anything shaped like it
        if not getattr(security, "enable_dns_rebinding_protection", True):
            return None, None
        hosts = list(getattr(security, "allowed_hosts", None) or []) or hosts
        origins = list(getattr(security, "allowed_origins", None) or []) or origins
    if hosts is None and _is_loopback(str(options.get("host"))):
        names = list(_LOOPBACK_HOSTS)
        own = _ip_address(str(options.get("host")))
        if own is not None and not any(own == _ip_address(name) for name in names):
            names.append(f"[{own}]" if own.version == 6 else str(own))  # 127.0.0.2: its own address too
        hosts = [f"{name}:*" for name in names] + names
    wildcard = hosts is not None and "*" in hosts  # any Host, said explicitly: any Origin too
    if wildcard:
        hosts = None
    if origins is None and hosts is not None:
        origins = [f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")]
    elif origins is None and not wildcard:  # not loopback, nothing listed: the Host is the deployment's
        origins = []  # choice, yet an Origin is still checked ("MUST validate"): the server's own only
    return hosts, origins


def _is_loopback(host: str) -> bool:
    """Whether a server bound to ``host`` is reachable from this machine only:
    ``localhost``, or any spelling of a loopback address (127.0.0.2, 127.1,
    0:0:0:0:0:0:0:1): compared as addresses, never as strings."""
    if host.lower().rstrip(".") == "localhost":
        return True
    address = _ip_address(host)
    return address is not None and address.is_loopback


def _ip_address(text: str) -> Any:
    """The IP address ``text`` spells ([::1] and the short IPv4 forms that
    bind() accepts, such as 127.1, included), or None for a name."""
    import ipaddress

    text = text.strip("[]")
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if not text or not all(part.isdigit() for part in text.split(".")) or text.count(".") > 3:
        return None
    import socket

    try:  # the forms bind() reads with inet_aton: 127.1, 2130706433 (RFC 3986, 7.4)
        return ipaddress.ip_address(socket.inet_aton(text))
    except OSError:
        return None


def _host_allowed(host: str, allowed: List[str]) -> bool:
    """Whether a Host (or an Origin) matches one of ``allowed`` ("name", or
    "name:*" for any port).  An IP literal matches by address, so
    [0:0:0:0:0:0:0:1] is [::1], however the client spells it."""
    host = host.lower()
    for pattern in allowed:
        pattern = pattern.lower()
        if host == pattern or pattern.endswith(":*") and host.startswith(pattern[:-1]) and \
                host[len(pattern) - 1:].isdigit():
            return True
    scheme, name, port = _host_parts(host)  # (the common spellings matched above, with no parsing)
    address = _ip_address(name) if name[:1] == "[" or name[:1].isdigit() else None
    if address is None:
        return False
    for pattern in allowed:
        p_scheme, p_name, p_port = _host_parts(pattern.lower())
        if p_scheme == scheme and (p_port == port or p_port == "*" and port.isdigit()) and \
                _ip_address(p_name) == address:
            return True
    return False


def _host_parts(text: str) -> Tuple[str, str, str]:
    """("http", "[::1]", "8000") for http://[::1]:8000; ("", "host", "") for host."""
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "", text
    if rest.startswith("["):
        name, _, tail = rest.partition("]")
        return scheme, name + "]", tail[1:] if tail.startswith(":") else tail
    name, _, port = rest.partition(":")
    return scheme, name, port


def _origin_allowed(origin: str, host: str, hosts: Optional[List[str]], origins: Optional[List[str]]) -> bool:
    """An Origin is fine when listed, or when it is this server's own (same
    host) and that host is one it answers to."""
    if origins is not None and _host_allowed(origin, origins):
        return True
    own = origin.lower().split("://", 1)[-1]
    return own == host.lower() and (hosts is None or _host_allowed(own, hosts)) or origins is None


# -- authorization: a resource server (basic/authorization) --


class _HttpAuth:
    """Bearer tokens checked by the user's verifier (the SDK's
    ``token_verifier=``: ``verify_token(token)`` returning an access token, or
    None), and the Protected Resource Metadata document (RFC 9728) that tells
    a client where to get one (basic/authorization, "Authorization Server
    Location").  A token is good when the verifier returns it, it has not
    expired, it was issued for this server (its audience: "Token Handling"),
    and its scopes, with what they imply, hold the required ones.

    What it needs comes from the ``auth=`` settings (the SDK's AuthSettings,
    or any object with its attributes), never from a request: the server's
    own resource identifier (``resource_server_url``: the audience its tokens
    must name, and where its metadata lives) and its authorization server
    (``issuer_url``: the metadata's ``authorization_servers``, which the page
    requires).  Without them no metadata could be served, and every token
    would be for any server: refused when the server is made (_auth_needs).
    ``validate_token_resource=False`` (the SDK's setting) says the verifier
    checked the audience itself; otherwise the token's ``resource`` (the SDK's
    AccessToken field: its RFC 8707 resource indicator), else the ``aud`` of
    its ``claims``, must name ``resource_server_url``."""

    def __init__(self, verifier: Any, auth: Any, hierarchy: Optional[Dict[str, Any]] = None) -> None:
        from urllib.parse import urlsplit

        self.verifier = verifier
        self.scopes = list(getattr(auth, "required_scopes", None) or [])
        resource, issuer = str(auth.resource_server_url), str(auth.issuer_url)
        self.audience: Optional[str] = _resource_identity(resource)  # None: the verifier checks it
        if getattr(auth, "validate_token_resource", None) is False:
            self.audience = None
        self.implied = _scope_closure(hierarchy or {})
        self.told = False  # whether stderr has said why a token without an audience is refused
        parts = urlsplit(resource)
        suffix = parts.path.rstrip("/")
        base = "/.well-known/oauth-protected-resource"  # RFC 9728 section 3.1: inserted before the path
        self.metadata_paths: Tuple[str, ...] = (base + suffix, base) if suffix else (base,)
        self.metadata_url = f"{parts.scheme}://{parts.netloc}{self.metadata_paths[0]}"
        self.document: Dict[str, Any] = {"resource": resource, "authorization_servers": [issuer],
                                         "bearer_methods_supported": ["header"]}
        if self.scopes:
            self.document["scopes_supported"] = self.scopes

    @classmethod
    def from_settings(cls, settings: Dict[str, Any], hierarchy: Optional[Dict[str, Any]] = None) -> Optional[_HttpAuth]:
        verifier = settings.get("token_verifier")
        if verifier is None:
            return None
        return cls(verifier, settings.get("auth"), hierarchy)

    def metadata(self, method: str) -> _Reply:
        if method != "GET":
            return _plain(405, "Method Not Allowed", [("Allow", "GET")])
        return "200 OK", [("Content-Type", "application/json"), ("Cache-Control", "max-age=3600")], \
            [json.dumps(self.document).encode()]

    def check(self, environ: Dict[str, Any], run_async: Callable[[Any, float], Any]) -> Optional[_Reply]:
        """None when the request's bearer token is good; else 401 (none, or
        invalid: OAuth 2.1 section 5.3; issued for another resource: "Token
        Handling") or 403 (too few scopes)."""
        header = environ.get("HTTP_AUTHORIZATION") or ""
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return self._challenge(401, "invalid_token", "Authentication required")
        verify = getattr(self.verifier, "verify_token", self.verifier)
        try:
            access = verify(token.strip())
            if _is_awaitable(access):
                access = run_async(access, 30.0)
        except Exception as exc:
            _log_exception("the token verifier raised", exc)
            access = None
        expires = getattr(access, "expires_at", None)
        if access is None or isinstance(expires, (int, float)) and expires < time.time():
            return self._challenge(401, "invalid_token", "Invalid or expired token")
        if self.audience is not None and self.audience not in _token_audiences(access):
            if not self.told and not _token_audiences(access):  # a set-up to fix, not a client's fault: once
                self.told = True
                print("mcp_ref: a token the verifier accepted names no resource (audience) and was refused; set "
                      "its AccessToken.resource, or AuthSettings(validate_token_resource=False) if the verifier "
                      "checks the audience itself", file=sys.stderr)
            return self._challenge(401, "invalid_token", "Token not issued for this resource")
        granted = set(getattr(access, "scopes", None) or [])
        for scope in list(granted) if self.implied else ():  # 2026-07-28 "Step-Up Authorization Flow"
            granted.update(self.implied.get(scope, ()))
        if any(scope not in granted for scope in self.scopes):
            return self._challenge(403, "insufficient_scope", "Required scope missing")
        environ[_PRINCIPAL] = _principal(access)
        return None

    def _challenge(self, status: int, error: str, description: str) -> _Reply:
        """RFC 6750 section 3, with resource_metadata (RFC 9728 section 5.1)."""
        params = [f'error="{error}"', f'error_description="{description}"']
        if self.scopes:
            params.append(f'scope="{" ".join(self.scopes)}"')
        params.append(f'resource_metadata="{self.metadata_url}"')
        body = json.dumps({"error": error, "error_description": description}).encode()
        return _status_line(status), [("Content-Type", "application/json"),
                                      ("WWW-Authenticate", "Bearer " + ", ".join(params))], [body]


def _auth_needs(settings: Dict[str, Any], hierarchy: Any) -> None:
    """Refuse, when the server is made, an authorization set-up that cannot be
    served as basic/authorization requires (a ValueError saying what to add):
    a verifier without the auth settings that give the server's resource
    identifier and authorization server, auth settings without a verifier
    (nothing would be checked), a resource identifier that is no absolute
    http(s) URI or has a fragment ("Canonical Server URI"), a hierarchy that
    is not scope -> list of scopes."""
    verifier = settings.get("token_verifier")
    auth: Any = settings.get("auth")  # the SDK's AuthSettings, or any object with its fields
    if verifier is None and auth is None:
        if hierarchy:
            raise ValueError("scope_hierarchy= needs token_verifier= and auth=: without them no token is checked")
        return
    if verifier is None:
        raise ValueError("auth= needs a token_verifier=: without one no request's token would be checked")
    missing = [name for name in ("resource_server_url", "issuer_url") if getattr(auth, name, None) is None]
    if missing:
        raise ValueError(f"token_verifier= needs auth= settings with {' and '.join(missing)}: resource_server_url "
                         f"is this server's own URL (the audience its tokens must name, RFC 8707; where its "
                         f"Protected Resource Metadata lives, RFC 9728), issuer_url its authorization server "
                         f"(the metadata's authorization_servers); e.g. auth=AuthSettings(issuer_url="
                         f"'https://auth.example.com', resource_server_url='https://mcp.example.com/mcp')")
    resource = str(auth.resource_server_url)
    if _resource_identity(resource) is None:
        raise ValueError(f"auth.resource_server_url must be an absolute http or https URL without a fragment "
                         f"(basic/authorization, \"Canonical Server URI\"), not {resource!r}")
    for broad, narrower in (hierarchy or {}).items():
        if not isinstance(broad, str) or isinstance(narrower, (str, bytes)) or \
                not all(isinstance(scope, str) for scope in narrower):
            raise ValueError(f"scope_hierarchy maps a scope to the list of scopes it implies; "
                             f"{broad!r}: {narrower!r} is not that")


def _resource_identity(uri: Any) -> Optional[str]:
    """A resource identifier compared as basic/authorization's "Canonical
    Server URI" reads it: scheme and host in any case, a default port
    spelled or not, a trailing slash aside (the SDK compares so too); the
    path's case counts.  None: no absolute http(s) URI, or one with a fragment."""
    from urllib.parse import urlsplit

    if not isinstance(uri, str):
        return None
    try:
        parts = urlsplit(uri.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname or "#" in uri:
        return None
    host = parts.hostname.lower()
    host = f"[{host}]" if ":" in host else host
    netloc = host if port is None or port == {"http": 80, "https": 443}[scheme] else f"{host}:{port}"
    query = "?" + parts.query if parts.query else ""
    return f"{scheme}://{netloc}{parts.path.rstrip('/')}{query}"


def _token_audiences(access: Any) -> List[str]:
    """The resources a verified token was issued for, canonical: its
    ``resource`` (the SDK's AccessToken), else its claims' ``aud`` (RFC 7519
    section 4.1.3, RFC 9068: one string or a list of them)."""
    named = getattr(access, "resource", None)
    if named is None:
        claims = getattr(access, "claims", None)
        named = claims.get("aud") if isinstance(claims, dict) else None
    listed = [] if named is None else list(named) if isinstance(named, (list, tuple, set, frozenset)) else [named]
    return [canonical for canonical in (_resource_identity(str(one)) for one in listed) if canonical is not None]


def _scope_closure(hierarchy: Dict[str, Any]) -> Dict[str, FrozenSet[str]]:
    """Each broader scope with every scope it implies, directly or through
    others (2026-07-28 basic/authorization: "Servers MUST account for scope
    hierarchies, where a broader scope implies narrower ones").  Scope values
    are opaque strings their authorization server defines (RFC 6749 section
    3.3): no hierarchy is read from their spelling ("mcp" need not imply
    "mcp:admin"), only the one the server declares (scope_hierarchy=)."""
    implied: Dict[str, FrozenSet[str]] = {}
    for broad in hierarchy:
        seen: set[str] = set()
        todo = list(hierarchy[broad])
        while todo:
            scope = todo.pop()
            if scope not in seen:
                seen.add(scope)
                todo.extend(hierarchy.get(scope, ()))
        implied[broad] = frozenset(seen)
    return implied


def _principal(access: Any) -> str:
    """Who a verified token speaks for: its (client id, issuer, subject), as
    the SDK's principal_components reads them (a part the verifier does not
    give is null), so two users of one OAuth client differ when it gives a subject."""
    claims = getattr(access, "claims", None)
    issuer = claims.get("iss") if isinstance(claims, dict) else None
    parts = [getattr(access, "client_id", None), issuer, getattr(access, "subject", None)]
    return json.dumps([None if part is None else str(part) for part in parts], separators=(",", ":"))


def _is_awaitable(value: Any) -> bool:
    return hasattr(value, "__await__")


# -- sessions: whose, how many, how long (basic/security_best_practices) --


class _Sessions:
    """The open sessions of an _HttpApp: each bound to the principal whose
    token opened it (basic/security_best_practices, "Session Hijacking":
    bind session IDs to user-specific information); at most ``max_sessions``
    in all and ``max_sessions_per_client`` per client, with at most
    ``max_streams_per_client`` streams open, so that no client fills the
    server; ended when idle for ``session_idle_timeout`` seconds, by a timer.
    A client (_client_of) is the token's principal, else the peer address.
    Shares the app's lock."""

    def __init__(self, options: Dict[str, Any], lock: Any, closing: Any) -> None:
        self.lock, self.closing = lock, closing
        self.idle_timeout = options["session_idle_timeout"]
        self.max_sessions = options["max_sessions"]
        self.client_sessions = options.get("max_sessions_per_client")
        self.client_streams = options.get("max_streams_per_client")
        self.open: Dict[str, _HttpSession] = {}
        self.owned: Dict[str, int] = {}  # sessions open, per client
        self.streaming: Dict[str, int] = {}  # GET and listen streams open, per client
        self.sweeper: Any = None  # the thread that expires idle sessions, while any is open

    def find(self, session_id: str, environ: Dict[str, Any]) -> Optional[_HttpSession]:
        """The session, if it exists and is this request's principal's: another
        user's is answered as if it did not exist (404, as the SDK does)."""
        with self.lock:
            session = self.open.get(session_id)
            if session is None or session.principal != environ.get(_PRINCIPAL):
                return None
            session.last_used = time.monotonic()
            return session

    def add(self, session: _HttpSession) -> Optional[str]:
        """Open a session; past a limit, why not (the idle ones expire first)."""
        with self.lock:
            expired = self._expire_idle()
            busy = f"{len(self.open)} sessions open, the limit" \
                if self.max_sessions is not None and len(self.open) >= self.max_sessions else \
                f"{self.client_sessions} sessions open for this client, the limit" \
                if self.client_sessions is not None and self.owned.get(session.client, 0) >= self.client_sessions \
                else None
            if busy is None:
                self.open[session.id] = session
                self.owned[session.client] = self.owned.get(session.client, 0) + 1
                self._sweep_later()
        for old in expired:
            old.end()
        return busy

    def remove(self, session: _HttpSession) -> None:
        with self.lock:
            self._forget(session)

    def clear(self) -> List[_HttpSession]:
        """Forget every session (the app is closing); they are returned, to end."""
        with self.lock:
            sessions = list(self.open.values())
            self.open.clear()
            self.owned.clear()
        return sessions

    def _forget(self, session: _HttpSession) -> None:
        """(Under the lock.)  Out of the table and its client's count."""
        if self.open.pop(session.id, None) is None:
            return
        left = self.owned.pop(session.client, 0) - 1
        if left > 0:
            self.owned[session.client] = left

    def _expire_idle(self) -> List[_HttpSession]:
        """(Under the lock.)  Forget the sessions idle for ``session_idle_timeout``
        seconds, and return them, to end outside the lock.  A session with a
        call in flight or its GET stream open is in use: idle from when it is not."""
        if self.idle_timeout is None:
            return []
        now = time.monotonic()
        expired = []
        for session in list(self.open.values()):
            if session.in_flight or session.stream is not None and session.stream.attached:  # a response has it
                session.last_used = now
            elif now - session.last_used > self.idle_timeout:
                self._forget(session)
                expired.append(session)
        return expired

    def _sweep_later(self) -> None:
        """(Under the lock.)  Idle sessions end on time, not when the next
        initialize comes: one daemon thread looks every quarter of the timeout
        (at most every minute) while any session is open, then stops."""
        import threading

        if self.idle_timeout is None or self.sweeper is not None:
            return
        self.sweeper = threading.Thread(target=self._sweep, name="mcp_ref-sessions", daemon=True)
        self.sweeper.start()

    def _sweep(self) -> None:
        period = min(max(float(self.idle_timeout) / 4, 0.05), 60.0)
        while not self.closing.wait(period):
            with self.lock:
                expired = self._expire_idle()
                done = not self.open
                if done:
                    self.sweeper = None  # the next session starts another
            for session in expired:
                session.end()  # its GET stream ends; no call is in flight
            if done:
                return

    def open_stream(self, client: str) -> Optional[Callable[[], None]]:
        """Count a stream in for its client: None past ``max_streams_per_client``,
        else the call that counts it out (once)."""
        with self.lock:
            if self.client_streams is not None and self.streaming.get(client, 0) >= self.client_streams:
                return None
            self.streaming[client] = self.streaming.get(client, 0) + 1
        released: List[bool] = []

        def release() -> None:
            with self.lock:
                if released:
                    return
                released.append(True)
                left = self.streaming.pop(client, 0) - 1
                if left > 0:
                    self.streaming[client] = left

        return release


def _client_of(environ: Dict[str, Any]) -> str:
    """Whom a request's limits and share of the pool count against: the
    verified token's principal, else the peer's address."""
    principal = environ.get(_PRINCIPAL)
    return f"principal {principal}" if principal is not None else f"address {environ.get('REMOTE_ADDR') or ''}"


def _busy(id_: Any, why: str) -> _Reply:
    """503 past a limit, with when to try again (RFC 9110 section 10.2.3):
    sessions expire and streams end, so the refusal is temporary."""
    return _error_reply(503, id_, INTERNAL_ERROR, f"Server busy: {why}", headers=[("Retry-After", _RETRY_AFTER)])


class _Counted:
    """A stream's response body that counts it out (``release``) when the WSGI
    server closes it (PEP 3333: always, even unread; a generator not yet
    started would skip its ``finally``)."""

    def __init__(self, body: Iterable[bytes], release: Callable[[], None]) -> None:
        self.body, self.release = body, release

    def __iter__(self) -> Any:
        return iter(self.body)

    def close(self) -> None:
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            self.release()


# ---------------------------------------------------------------------------
# 22. SDK fidelity: pydantic's types, unions and error texts
# ---------------------------------------------------------------------------
#
# Fenced, like the accelerators (section 34): nothing here is an MCP rule.  The
# SDK validates tool arguments and results with pydantic, so to answer as it
# does a rule of the spec path calls a hook where pydantic refines it.  The rule
# reads whole without the hook; this is where the hook's body waits.  Here:
# annotations that hold pydantic's own types (pydantic itself validates them),
# pydantic's "smart" union, which picks the arm a value belongs to, and
# pydantic's error texts, locations (``value.list[int].0``) and order.
#
#   hook                  the rule it refines                 what pydantic or the SDK does                README
#   --------------------  ----------------------------------  -------------------------------------------  ------
#   _format_errors        ValidationError (section 2)         "1 validation error for addArguments", then  1
#                                                             a location and a message per error
#   _involves_pydantic    _output_schema (section 9)          an annotation holding a pydantic type or     24, 25
#                                                             pydantic metadata is pydantic's whole
#   _pydantic_arguments   _input_schema (section 9)           the SDK's arguments model (func_metadata)    24
#                                                             publishes the parameters pydantic validates
#   _pydantic_structured  _output_schema (section 9)          rows S7-S13 through the SDK's output model   12
#   _pydantic_schema      _SchemaBuilder.ref (section 5)      S11: a BaseModel's schema is pydantic's      -
#   _pydantic_value       _build_value (section 7)            an argument with pydantic's own Field        -
#   _pydantic_read        _Tool.arguments (section 9)         the parameters pydantic validates, its own   1
#                                                             errors read as ours (_from_pydantic)
#   _pydantic_output      _Tool.result (section 9)            a result pydantic validates and dumps        12
#   _pydantic_checked     _Tool.check_output (section 9)      a CallToolResult's structured content, by    -
#                                                             pydantic's own output model
#   _Union                _Compiler._any_of (section 6)       the smart union: an arm of the value's exact 7, 9
#                                                             type first, then the one it fills most
#   _build_union          _build_value (section 7)            a union's argument becomes the arm that took -
#                                                             it (a Unix time for Union[date, str]: a date)
#   _type_error           _Compiler._type (section 6)         "Input should be a valid integer", its type  -
#   _type_words           _Compiler._type (section 6)         what those words name: a set, a dataclass    -
#   _bound_failure        _lax_type (section 23)              'nan' and 'inf' refused by a bound           9
#   _first_bound_failure  _Compiler._numeric (section 6)      bounds: the first failure only, in its order -
#   _show_as_sent         _Compiler._steps_in_order (section 6)  an error shows the value as sent          5
#   _check_size           _Compiler._string (section 6)       lengths: one error, the minimum's first      -
#   _one_of_text          _Compiler._enum_const (section 6)   "Input should be 'a' or 'b'"                 -
#   _in_field_order       _lax_object (section 27)            errors in the model's field order            -
#   _BOUNDS               _lax_type (section 23)              the order pydantic-core checks bounds in     -
#   _number_text          _Compiler._numeric (section 6)      a bound as pydantic writes it (2, not 2.0)   -
#   _plural               _check_contains (section 6)         "1 item", "2 items"                          -
#   _too_many             _lax_array (section 27)             a set past max_length: one error, "not more" -
#   _no_members           _lax_object (section 27)            an empty TypedDict or dataclass: every key   -
#                                                             ignored
#   _truncated_repr       _Request.check_question (section 12)  a value in an error, cut as pydantic-core  -
#                                                             cuts it (also in sections 11 and 15)
#   _pydantic_base        _native (section 24)                a BaseModel instance, as its model_dump      -
#   _is_pydantic_model    _SchemaBuilder.ref (section 5)      S11: is this class a BaseModel               -
#   _is_pydantic_field    _Param.__init__ (section 9)         a default that is pydantic's own Field       -
#
# README: the numbered item of "Where mcp_ref differs from the SDK" that the row
# bears on.  test_differential compares what these produce with the SDK's own.

_TYPE_LABELS = {"integer": "int", "number": "float", "string": "str", "boolean": "bool",
                "null": "none", "array": "list", "object": "dict"}


def _arm_label(schema: Any, class_kinds: Dict[str, str]) -> str:
    """pydantic's name of a union member (its validator's name, as pydantic-core
    gives it), which locates the member's errors: ``value.list[int].0``."""
    label = _bare_label(schema, class_kinds)
    # Annotated[T, Field(default=...)] as a member, or inside one
    return f"default[{label}]" if isinstance(schema, dict) and "default" in schema else label


def _bare_label(schema: Any, class_kinds: Dict[str, str]) -> str:
    if not isinstance(schema, dict) or not schema:
        return "any"
    if type(schema) is _TypedSchema:
        tp = schema.py_type
        origin = _origin(tp)
        if origin in (set, frozenset):  # a set whose items may not hash
            return f"{origin.__name__}[{_arm_label(schema.get('items'), class_kinds)}]"
        if origin is not None:  # a dict whose keys are converted
            return f"dict[{_type_label(_args(tp)[0])},{_arm_label(schema.get('additionalProperties'), class_kinds)}]"
        return _type_label(tp)
    if "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        family = class_kinds.get(name, "")
        return f"{family[:-5]}-enum[{name}]" if family.endswith("_enum") else \
            f"enum[{name}]" if family == "enum" else name
    for keyword in ("const", "enum"):
        if keyword in schema:
            values = [schema["const"]] if keyword == "const" else schema[keyword]
            return f"literal[{','.join(repr(v) for v in values)}]"
    if "anyOf" in schema:
        arms = [a for a in schema["anyOf"] if a != {"type": "null"}]
        inner = ",".join(_arm_label(a, class_kinds) for a in arms)
        inner = inner if len(arms) == 1 else f"union[{inner}]"
        return inner if len(arms) == len(schema["anyOf"]) else f"nullable[{inner}]"
    kind = schema.get("type")
    if kind == "array":
        return _array_label(schema, class_kinds)
    if kind == "object":
        values = schema.get("additionalProperties")
        if type(schema) is _ContainerSchema:  # a bare dict
            return "dict[any,any]"
        return f"dict[str,{_arm_label(values, class_kinds)}]" if "properties" not in schema else "dict"
    if not isinstance(kind, str):
        return "any"
    constrained = any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                                            "multipleOf", "minLength", "maxLength", "pattern"))
    label = "bytes" if schema.get("format") == "binary" else _TYPE_LABELS.get(kind, kind)
    return f"constrained-{label}" if constrained and label in ("int", "float", "str", "bytes") else label


def _array_label(schema: Dict[str, Any], class_kinds: Dict[str, str]) -> str:
    container = schema.container if type(schema) is _ContainerSchema else \
        "set" if schema.get("uniqueItems") else "tuple" if "prefixItems" in schema else "list"
    items = schema.get("items")
    item = _arm_label(items, class_kinds)
    if container == "tuple" or "prefixItems" in schema:
        labels = [_arm_label(s, class_kinds) for s in schema.get("prefixItems", ())]
        if items is not None and items is not False:
            labels.append(f"{item}, ...")
        return f"tuple[{', '.join(labels)}]"
    if container == "sequence":
        if not items:  # Sequence and Sequence[Any]: an isinstance check alone
            label = "json-or-python[json=list[any],python=is-instance[Sequence]]"
        else:
            label = (f"json-or-python[json=list[{item}],python=chain[is-instance[Sequence],"
                     "function-wrap[sequence_validator()]]]")
        # pydantic checks a Sequence's lengths after it, in functions (their
        # addresses vary, process by process: any stands for them)
        for key, name in (("minItems", "min_length"), ("maxItems", "max_length")):
            if key in schema:
                label = (f"function-after[functools.partial(<function {name}_validator at 0x0>, "
                         f"{name}={schema[key]})(), {label}]")
        return label
    return f"{container}[{item}]"


def _type_label(tp: Any) -> str:
    """pydantic's validator name of a type the lax table converts (or a dict key's)."""
    if tp in (int, float, str, bool):
        return str(tp.__name__)
    kind = _lax_kind(tp)
    if kind == "path":
        name = tp.__name__
        json = "json=function-after[path_validator(), str]"
        strict = f"json-or-python[{json},python=is-instance[{name}]]"
        return f"lax-or-strict[lax=union[{strict},function-after[path_validator(), str]],strict={strict}]"
    return kind or "any"


def _no_members(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
    return {} if type(value) is dict and value else value


# pydantic-core's constrained int and float check their bounds in this order.
_BOUNDS = {"maximum": ("less_than_equal", "less than or equal to"), "exclusiveMaximum": ("less_than", "less than"),
           "minimum": ("greater_than_equal", "greater than or equal to"),
           "exclusiveMinimum": ("greater_than", "greater than")}


def _bound_failure(schema: Dict[str, Any], number: float) -> Optional[Tuple[str, str]]:
    """The message and type of the first bound (in pydantic's order) a number fails."""
    for key, (kind, text) in _BOUNDS.items():
        bound = schema.get(key)
        if bound is None:
            continue
        fits = number <= bound if key == "maximum" else number < bound if key == "exclusiveMaximum" else \
            number >= bound if key == "minimum" else number > bound
        if not fits:
            return f"Input should be {text} {_number_text(bound)}", kind
    return None


def _first_bound_failure(checks: List[Tuple[Callable[[Any, Any], bool], Any, str, str]], multiple: Any) -> _Checker:
    """The lax modes' numeric keywords: pydantic's constrained int and float stop
    at the first failure, in the order multiple_of, le, lt, ge, gt (pydantic-core's
    constrained validators), where JSON Schema reports every failure."""
    order = ("less_than_equal", "less_than", "greater_than_equal", "greater_than")
    checks = sorted(checks, key=lambda c: order.index(c[2]))

    def first(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return value
        if multiple is not None and not _is_multiple(value, multiple):
            errors.append(_ErrorItem(loc, f"Input should be a multiple of {_number_text(multiple)}",
                                     "multiple_of", value))
            return value
        for op, bound, kind, text in checks:
            if not op(value, bound):
                errors.append(_ErrorItem(loc, f"Input should be {text} {_number_text(bound)}", kind, value))
                return value
        return value

    return first


def _in_field_order(errors: List[_ErrorItem], before: int, depth: int, rank: Dict[str, int]) -> None:
    """pydantic validates a class's fields in their declared order (a missing
    one where it stands), then the keys it does not know: the errors from
    ``before`` on, in that order."""
    def place(e: _ErrorItem) -> int:
        return rank.get(e.loc[depth], len(rank)) if len(e.loc) > depth else -1

    errors[before:] = sorted(errors[before:], key=place)


def _show_as_sent(errors: List[_ErrorItem], before: int, converted: Any, sent: Any) -> None:
    """pydantic checks a bound or a length on the converted value but shows the
    value as sent ('-3', not -3; True, not 1.0): the errors from ``before`` on
    that show the converted value show the sent one."""
    for error in errors[before:]:
        if error.value is converted:
            error.value = sent


class _Union:
    """An anyOf's arms and what pydantic's "smart" union needs to know of them
    (_Compiler._any_of): an arm of exactly the value's type wins (5 is
    Union[float, int]'s int, "17" stays a string in Union[int, str]), then of
    the arms the value fits strictly, Any among them, the one pydantic-core
    ranks first (_smart_pick: the class that sets the most fields, else the
    most exact), then the lax arms in order."""

    def __init__(self, compiler: _Compiler, arms: List[_Checker], schemas: List[Any]) -> None:
        lax = compiler.lax
        self.arms = arms
        self.strict = [type(compiler)(compiler.root, "arms").compile(s) for s in schemas] if lax else arms
        self.labels = [_arm_label(s, compiler.class_kinds) for s in schemas]
        self.null_arm = [i for i, s in enumerate(schemas) if s == {"type": "null"}]
        self.lax = lax
        self.by_class = _class_arms(compiler, schemas) if lax else {}
        # A type converted through its annotation (a UUID, a date), bytes, an
        # Enum, a set and a tuple are exact for their objects alone, never for
        # JSON data: pydantic's strict Python mode, which the SDK's model_validate
        # uses, wants the object ('f' is Union[bool, bytes]'s False; 3 is
        # Union[timedelta, IntEnum]'s 3 seconds).
        self.inexact = [_python_only(compiler, s) for s in schemas]
        self.exact = [s.py_type if type(s) is _TypedSchema else None if self.inexact[i] else _exact_type(s)
                      for i, s in enumerate(schemas)]
        self.fields = [_declared_names(compiler, s) for s in schemas] if lax else []
        self.compiler, self.schemas = compiler, schemas  # for _exactness
        # pydantic finds a Literal's value by Python's equality, as exactly as an
        # arm of the value's type: true is Union[Any, Literal[1]]'s 1.
        self.literals = [_literal_arm(s) for s in schemas]
        # Any takes every value as it is, but pydantic ranks it below an exact arm
        # (a TypedDict takes {"a": 1} in Union[Any, TypedDict]): _smart_pick.
        self.anything = [s is True or isinstance(s, dict) and not set(s) - {"title", "description", "examples"}
                         for s in schemas]
        # else the arms see the object itself and make it JSON
        self.native = not any(type(s) is _TypedSchema for s in schemas)

    def smart(self, value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Tuple[bool, Any]:
        """(True, the value as its chosen arm made it), or (False, the value,
        made JSON) when no arm is chosen before the lax pass."""
        if type(value) not in _NATIVE:
            # pydantic's smart union takes an instance of an arm's own class
            # first: Empty() stays Empty in Union[Point, Empty], though its
            # fields ({}) fit Point too.
            mine = self.by_class.get(type(value).__name__)
            if mine is not None:
                chosen, converted = _taken(self.arms[mine], value, loc)
                if chosen:
                    return True, converted
            if self.native:
                try:
                    value = _native(value)
                except _NotJSON as exc:
                    errors.append(_ErrorItem(loc, exc.msg, exc.kind, value))
                    return True, value
        kind = type(value)
        for i, arm in enumerate(self.strict):
            # (a bare dict's or list's items are Any's: not exact, _most_fields ranks them)
            if self.exact[i] is kind and (self.inexact[i] or _passes(arm, value, loc)) and (
                    kind not in (dict, list) or not value):
                chosen, converted = _taken(self.arms[i], value, loc)  # its bounds may still refuse it (gt=5)
                if chosen:
                    return True, converted
            literal = self.literals[i]
            if literal and kind in _SCALAR_TYPES and value in literal:
                return True, literal[literal.index(value)]
        chosen, converted = self._most_fields(value, loc)
        if chosen:
            return True, converted
        if True in self.anything:
            return True, self.arms[self.anything.index(True)](value, loc, [])
        return False, value

    def _most_fields(self, value: Any, loc: Tuple[Any, ...]) -> Tuple[bool, Any]:
        """Of the arms the value fits strictly (Any too), the one pydantic-core
        ranks first (_smart_pick): a class of fields (a TypedDict, a dataclass,
        a model) by the fields the value sets, else by exactness."""
        def candidates() -> Iterator[Tuple[int, Optional[int], Any]]:
            for i, arm in enumerate(self.strict):
                if self.inexact[i]:
                    continue
                if self.anything[i]:
                    yield 1, None, self.arms[i](value, loc, [])
                    continue
                strict = _passes(arm, value, loc)
                names = self.fields[i] if type(value) is dict and self.lax else None
                if not strict and names is None:
                    continue
                chosen, converted = _taken(self.arms[i], value, loc)
                if chosen and not strict:  # a class whose field converts (bytes from a string): lax, its fields count
                    yield 0, len(names.intersection(value)), converted  # type: ignore[union-attr]
                elif chosen:
                    yield (_exactness(self.compiler, self.schemas[i], value),
                           None if names is None else len(names.intersection(value)), converted)

        picked = _smart_pick(candidates())
        return (False, None) if picked is _MISSING else (True, picked)

    def first_or_errors(self, value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
        """The first arm that takes the value, or every arm's errors, each under
        the arm's name as pydantic names it."""
        collected: List[List[_ErrorItem]] = []
        for arm in self.arms:
            arm_errors: List[_ErrorItem] = []
            converted = arm(value, loc, arm_errors)
            if not arm_errors:
                return converted
            collected.append(arm_errors)
        labelled = self.labels
        null_arm = self.null_arm
        if null_arm and value is not None and len(null_arm) < len(collected) and (self.lax or len(collected) == 2):
            # pydantic's Optional[Union[...]] is nullable[union[...]]: the null
            # arm reports nothing, and Optional[T] reports T's errors alone.
            collected = [c for i, c in enumerate(collected) if i not in null_arm]
            labelled = [label for i, label in enumerate(labelled) if i not in null_arm]
        if len(collected) == 1:
            errors.extend(collected[0])
            return value
        depth = len(loc)
        for label, arm_errors in zip(labelled, collected):
            for e in arm_errors:
                errors.append(_ErrorItem(e.loc[:depth] + (label,) + e.loc[depth:], e.msg, e.kind, e.value))
        return value


def _taken(arm: _Checker, value: Any, loc: Tuple[Any, ...]) -> Tuple[bool, Any]:
    """(whether ``arm`` takes the value without an error, what it made of it)."""
    arm_errors: List[_ErrorItem] = []
    converted = arm(value, loc, arm_errors)
    return not arm_errors, converted


def _exact_type(schema: Any) -> Optional[type]:
    """The Python type a value has when it fits this bare type schema exactly."""
    if not isinstance(schema, dict) or type(schema) is _TypedSchema or set(schema) - _ANNOTATION_KEYS:
        return None
    kind = schema.get("type")  # a list of types ({"type": ["null", "object"]}) names no one type
    return {"string": str, "integer": int, "number": float, "boolean": bool, "null": _NoneType}.get(
        kind) if isinstance(kind, str) else None


def _type_words(compiler: _Compiler, schema: Dict[str, Any]) -> Tuple[str, Optional[str], Optional[str]]:
    """What _type_error's words depend on: the kind of array, the object's
    title and the Python family it came from (a dataclass: "a dictionary or an
    instance of Point"; bytes)."""
    title = schema.get("title")
    family = compiler.class_kinds.get(str(title)) if "properties" in schema else None
    if schema.get("format") == "binary":
        family = "bytes"
    array_kind = schema.container if type(schema) is _ContainerSchema else \
        "set" if schema.get("uniqueItems") else "tuple" if "prefixItems" in schema else "list"
    return array_kind, title, family


def _type_error(kind: str, array_kind: str, title: Optional[str], family: Optional[str] = None) -> Tuple[str, str]:
    if family == "bytes":
        return "Input should be a valid bytes", "bytes_type"
    if kind == "object" and family == "dataclass":
        return f"Input should be a dictionary or an instance of {title}", "dataclass_type"
    if kind == "object" and family == "model":
        return f"Input should be a valid dictionary or instance of {title}", "model_type"
    if kind == "array":
        return {"set": ("Input should be a valid set", "set_type"),
                "frozenset": ("Input should be a valid frozenset", "frozen_set_type"),
                "tuple": ("Input should be a valid tuple", "tuple_type"),
                # Sequence is an isinstance check to pydantic, and a str is refused by its own rule.
                "sequence": ("Input should be an instance of Sequence", "is_instance_of"),
                "sequence_str": ("'str' instances are not allowed as a Sequence value", "sequence_str")}.get(
            array_kind, ("Input should be a valid list", "list_type"))
    return {
        "string": ("Input should be a valid string", "string_type"),
        "integer": ("Input should be a valid integer", "int_type"),
        "number": ("Input should be a valid number", "float_type"),
        "boolean": ("Input should be a valid boolean", "bool_type"),
        "null": ("Input should be None", "none_required"),
        "object": ("Input should be a valid dictionary", "dict_type"),
    }.get(kind, (f"Input should be of type {kind}", "type"))


def _show(value: Any) -> str:
    # pydantic prints Python reprs: "Input should be 'a' or 'b'", "... be True".
    return repr(value) if isinstance(value, (str, bool)) or value is None else json.dumps(value)


def _one_of_text(values: List[Any]) -> str:
    shown = [_show(v) for v in values]
    if not shown:
        return "one of no values (the enum is empty)"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def _plural(n: int, unit: str) -> str:
    return f"{n} {unit}{'' if n == 1 else 's'}"


def _check_size(n: int, low: Optional[int], high: Optional[int], subject: str, unit: str, after: bool,
                loc: Tuple[Any, ...], value: Any, errors: List[_ErrorItem],
                kinds: Tuple[str, str] = ("too_short", "too_long")) -> None:
    """pydantic's length errors: "List should have at least 2 items after
    validation, not 1", "String should have at most 3 characters"."""
    tail = f" after validation, not {n}" if after else ""
    if low is not None and n < low:
        errors.append(_ErrorItem(loc, f"{subject} should have at least {_plural(low, unit)}{tail}", kinds[0], value))
    if high is not None and n > high:
        errors.append(_ErrorItem(loc, f"{subject} should have at most {_plural(high, unit)}{tail}", kinds[1], value))


def _too_many(subject: str, high: int, loc: Tuple[Any, ...], value: Any) -> _ErrorItem:
    """pydantic's length error of a container that stopped as soon as it held
    more than ``high`` items: "not more", not their count."""
    return _ErrorItem(loc, f"{subject} should have at most {_plural(high, 'item')} after validation, not more",
                      "too_long", value)


def _number_text(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _pydantic_read(arguments_model: Tuple[Any, List[Tuple[str, str]], Dict[str, int]],
                   arguments: Dict[str, Any], kwargs: Dict[str, Any], errors: List[_ErrorItem]) -> None:
    """The parameters pydantic validates, as the SDK's arguments model does:
    the whole arguments object goes in (the others' keys are ignored), so
    each error has pydantic's own location and input.  The function gets
    each value under its Python name (the SDK passes an alias as the
    keyword, and the call fails)."""
    model, names, positions = arguments_model
    try:
        instance = model.model_validate(arguments)
    except _module("pydantic_core").ValidationError as exc:
        errors.extend(_from_pydantic(exc).errors)
        # In parameter order, as one model of every parameter reports them.
        errors.sort(key=lambda e: positions.get(e.loc[0], -1) if e.loc else -1)
        return
    for name, field in names:
        kwargs[name] = getattr(instance, field)


def _pydantic_output(adapter: Any, value: Any) -> Any:
    """A result pydantic validates and serialises, with the SDK's options
    (``convert_result``): Python names or aliases accepted, aliases sent; a
    model is dumped from its instance, so a returned subclass keeps its
    fields and computed fields are sent."""
    try:
        validated = adapter.validate_python(value, **_by_alias_and_name())
    except _module("pydantic_core").ValidationError as exc:
        raise _from_pydantic(exc) from None
    if _is_pydantic_model(type(validated)):
        return validated.model_dump(mode="json", by_alias=True)
    return adapter.dump_python(validated, mode="json", by_alias=True)


def _pydantic_checked(adapter: Any, value: Any) -> Any:
    """A CallToolResult's own structured content, checked by pydantic and sent as given."""
    try:
        adapter.validate_python(value)
    except _module("pydantic_core").ValidationError as exc:
        raise _from_pydantic(exc) from None
    return value


def _from_pydantic(exc: Any) -> ValidationError:
    """pydantic's ``ValidationError`` as ours: its own locations, messages, kinds
    and title, so the text is the one the SDK shows (without help-page links)."""
    errors = [_ErrorItem(tuple(e["loc"]), e["msg"], e["type"], e.get("input"))
              for e in exc.errors(include_url=False)]
    return ValidationError(errors, str(exc.title))


def _truncated_repr(value: Any) -> str:
    # pydantic-core shortens a repr of more than 50 UTF-8 bytes to its first 25
    # and last 24 bytes, each cut moved inwards to a character boundary
    # (write_truncated_to_limited_bytes): 'é' counts two.
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__} object>"
    if len(text) <= 12 or (text.isascii() and len(text) <= 50):
        return text
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= 50:
        return text
    # A partial character at either cut is dropped: the boundary is the floor
    # of the head's end and the ceiling of the tail's start.
    return f"{data[:25].decode('utf-8', 'ignore')}...{data[-24:].decode('utf-8', 'ignore')}"


def _format_errors(errors: List[_ErrorItem], title: str) -> str:
    n = len(errors)
    lines = [f"{n} validation error{'s' if n != 1 else ''} for {title}"]
    for e in errors:
        if e.loc:
            # pydantic-core quotes a key that holds a dot: value.`tuple[int, ...]`.0
            lines.append(".".join(f"`{p}`" if type(p) is str and "." in p else str(p) for p in e.loc))
        lines.append(
            f"  {e.msg} [type={e.kind}, input_value={_truncated_repr(e.value)}, "
            f"input_type={type(e.value).__name__}]"
        )
    return "\n".join(lines)


def _pydantic_base() -> Any:
    """pydantic's BaseModel, only when the program imported pydantic itself."""
    module = _module("pydantic")
    return getattr(module, "BaseModel", None)


def _is_pydantic_model(tp: Any) -> bool:
    base = _pydantic_base()
    return base is not None and isinstance(tp, type) and issubclass(tp, base)


def _is_pydantic_field(obj: Any) -> bool:
    fields = _module("pydantic.fields")
    return fields is not None and isinstance(obj, fields.FieldInfo)


def _is_pydantic_type(tp: Any) -> bool:
    """A class pydantic owns: a BaseModel (a RootModel too), a pydantic dataclass,
    or a type that tells pydantic how to validate it (``SecretStr``, ``HttpUrl``...)."""
    if _is_pydantic_model(tp) or (isinstance(tp, type) and hasattr(tp, "__get_pydantic_core_schema__")):
        return True
    dataclasses = _module("pydantic.dataclasses")
    return dataclasses is not None and isinstance(tp, type) and bool(dataclasses.is_pydantic_dataclass(tp))


def _is_pydantic_metadata(obj: Any) -> bool:
    """``Annotated`` metadata only pydantic reads: ``Field``, its validators and
    serializers (``AfterValidator``, ``PlainSerializer``...), annotated_types' constraints."""
    return type(obj).__module__.split(".")[0] in ("pydantic", "pydantic_core", "annotated_types")


def _involves_pydantic(tp: Any, seen: Optional[set[int]] = None) -> bool:
    """Whether an annotation is, or holds anywhere, a pydantic type or pydantic
    metadata: in ``Annotated``, a union arm, a generic's argument, or a field of a
    dataclass or TypedDict.  Such an annotation is validated and serialised by
    pydantic as a whole (sections 7 and 9), as the SDK does: a validator,
    alias, computed field or strict config inside it works only if pydantic
    builds every level around it too.  Everything else keeps our own path."""
    if _module("pydantic") is None:
        return False  # nothing can come from pydantic: no cost on the common path
    seen = set() if seen is None else seen
    if id(tp) in seen or isinstance(tp, str) or _is_literal(tp):
        return False
    seen.add(id(tp))
    if _is_annotated(tp):
        return any(_is_pydantic_metadata(m) for m in tp.__metadata__) or _involves_pydantic(tp.__origin__, seen)
    if _is_pydantic_type(tp):
        return True
    if _origin(tp) is not None or _is_union(tp):
        return any(_involves_pydantic(a, seen) for a in _args(tp) if a is not Ellipsis)
    if _is_dataclass(tp) or _is_typeddict(tp):
        try:
            hints = _type_hints(tp)
        except InvalidSignature:
            return False
        return any(_involves_pydantic(h, seen) for h in hints.values())
    return False


def _pydantic_schema(builder: _SchemaBuilder, tp: Any) -> Dict[str, Any]:
    """The user's own pydantic builds the schema of its own types, its ``$defs``
    merged into the builder's (the SDK's ``TypeAdapter(...).json_schema()``)."""
    pydantic = _module("pydantic")
    schema = pydantic.TypeAdapter(tp).json_schema(ref_template="#/$defs/{model}")
    for name, definition in schema.pop("$defs", {}).items():
        builder.defs.setdefault(name, definition)
    if isinstance(tp, type) and "$ref" not in schema:
        # A model's schema comes inline at the root; keep it in $defs like ours.
        builder.defs.setdefault(tp.__name__, schema)
        builder.class_kinds[tp.__name__] = "model"
        return {"$ref": f"#/$defs/{tp.__name__}"}
    return schema  # type: ignore[no-any-return]


def _pydantic_value(tp: Any, value: Any) -> Any:
    """An argument whose annotation carries pydantic's own Field: pydantic builds it."""
    return _module("pydantic").TypeAdapter(tp).validate_python(value)


def _pydantic_field(field: Field) -> Any:
    """pydantic's own ``Field`` with our Field's settings, for an annotation
    that pydantic validates (_involves_pydantic)."""
    kwargs: Dict[str, Any] = dict(field.constraints)
    for key in ("title", "description", "examples"):
        if getattr(field, key) is not None:
            kwargs[key] = getattr(field, key)
    if field.default_factory is not None:
        kwargs["default_factory"] = field.default_factory
    elif field.default is not _MISSING:
        kwargs["default"] = field.default
    return _module("pydantic").Field(**kwargs)


def _pydantic_arguments(fn_name: str, params: List[_Param],
                        builder: _SchemaBuilder) -> Tuple[Any, Dict[str, Tuple[Any, bool]]]:
    """The parameters pydantic validates, as the SDK's arguments model publishes
    them: (the model, its fields and the parameters' positions, for _pydantic_read;
    by name, the schema, None where SkipJsonSchema hides it, and whether it is
    required), or (None, {}) if none.  The model's $defs join the builder's."""
    delegated = [p for p in params if p.delegated]
    if not delegated:
        return None, {}
    try:
        (model, names), schema = _arguments_model(fn_name, delegated)
    except Exception as exc:  # PydanticUserError, SchemaError...
        raise InvalidSignature(f"Function {fn_name}: pydantic cannot build its arguments: {exc}") from None
    for name, definition in schema.pop("$defs", {}).items():
        builder.defs.setdefault(name, definition)
    properties, required = schema["properties"], schema.get("required", ())
    published = {p.name: (properties[p.key], p.key in required) if p.key in properties else (None, False)
                 for p in delegated}
    return (model, names, {p.key: i for i, p in enumerate(params)}), published


def _arguments_model(fn_name: str, params: List[_Param]) -> Tuple[Tuple[Any, List[Tuple[str, str]]], Any]:
    """The SDK's arguments model (``func_metadata``'s ``ArgModelBase``) for the
    parameters pydantic validates, and its schema.  A model rather than a
    TypeAdapter per parameter: alias, ``validate_default`` and the like are
    options of a model's fields, and only one model reports every parameter's
    errors at once.  Sets each parameter's ``key``: its alias, if it has one."""
    pydantic = _module("pydantic")
    annotated = _typing("Annotated")
    fields: Dict[str, Any] = {}
    names = []
    for p in params:
        annotation, metadata = p.annotation, []
        if annotation is _MISSING:
            annotation = _typing("Any")
            metadata.append(pydantic.WithJsonSchema({"title": p.name, "type": "string"}))
        annotation = _for_pydantic(annotation)
        field = p.name
        if callable(getattr(pydantic.BaseModel, field, None)):
            # A name BaseModel uses (json, copy...): the SDK renames the field and keeps the name as alias.
            field = f"field_{field}"
            metadata.append(pydantic.Field(alias=p.name))
        if metadata:
            annotation = annotated[(annotation, *metadata)]
        default = _pydantic_field(p.default) if isinstance(p.default, Field) else p.default
        # A bare annotation keeps a default given inside Annotated[T, Field(default=...)].
        fields[field] = annotation if default is _MISSING else (annotation, default)
        names.append((p.name, field))
    model = pydantic.create_model(f"{fn_name}Arguments", __config__=pydantic.ConfigDict(arbitrary_types_allowed=True),
                                  **fields)
    schema = model.model_json_schema(by_alias=True, ref_template="#/$defs/{model}")
    for p, (_, field) in zip(params, names):
        p.key = model.model_fields[field].alias or field  # (SkipJsonSchema: not among the properties)
    return (model, names), schema


def _for_pydantic(tp: Any) -> Any:
    """An annotation as pydantic takes it, at any depth of ``Annotated``, unions
    and generics: our own ``Field`` in ``Annotated`` metadata becomes pydantic's
    (pydantic ignores metadata it does not know), and a ``typing.TypedDict``
    becomes one pydantic reads below Python 3.12 (_readable_typeddict)."""
    if _is_annotated(tp):
        metadata = tuple(_pydantic_field(m) if isinstance(m, Field) else m for m in tp.__metadata__)
        return _typing("Annotated")[(_for_pydantic(tp.__origin__), *metadata)]
    if _is_typeddict(tp):
        return _readable_typeddict(tp)
    args = _args(tp)
    if not args or _origin(tp) is None or _is_literal(tp):
        return tp
    new = tuple(_for_pydantic(a) for a in args)
    if all(n is a for n, a in zip(new, args)):
        return tp
    if _is_union(tp):
        return _typing("Union")[new]
    if hasattr(tp, "copy_with"):  # typing's generics
        return tp.copy_with(new)
    return type(tp)(_origin(tp), new)  # list[T] and the other builtin generics (types.GenericAlias)


_READABLE_TYPEDDICTS: Dict[type, Any] = {}


def _readable_typeddict(cls: type) -> Any:
    """pydantic refuses a ``typing.TypedDict`` below Python 3.12; the same keys
    as a ``typing_extensions.TypedDict`` (which pydantic itself imports), as the
    SDK's ``_pydantic_readable_typeddict`` rebuilds a returned one.  An explicit
    ``Required``/``NotRequired`` wins over the class's totality, as in pydantic."""
    extensions = _module("typing_extensions")
    if sys.version_info >= (3, 12) or type(cls).__module__ != "typing" or extensions is None:
        return cls
    if cls in _READABLE_TYPEDDICTS:
        return _READABLE_TYPEDDICTS[cls]
    _READABLE_TYPEDDICTS[cls] = cls  # a recursive one meets itself unchanged (pydantic then says why)
    items: Dict[str, Any] = {}
    for name, hint in _type_hints(cls).items():
        qualifiers = set()
        while _qualifier(hint) is not None:
            qualifiers.add(_qualifier(hint))
            hint = _args(hint)[0]
        item = _for_pydantic(hint)
        if "ReadOnly" in qualifiers and hasattr(extensions, "ReadOnly"):
            item = extensions.ReadOnly[item]
        required = (name in getattr(cls, "__required_keys__", ()) or "Required" in qualifiers) \
            and "NotRequired" not in qualifiers
        items[name] = item if required else extensions.NotRequired[item]
    rebuilt = extensions.TypedDict(cls.__name__, items)
    for attr in ("__doc__", "__module__", "__qualname__", "__pydantic_config__"):
        if hasattr(cls, attr):
            setattr(rebuilt, attr, getattr(cls, attr))
    _READABLE_TYPEDDICTS[cls] = rebuilt
    return rebuilt


def _pydantic_structured(fn_name: str, annotation: Any, inner: Any) -> Optional[Tuple[Dict[str, Any], bool, Any]]:
    """Rows S7-S13 for an annotation pydantic validates (_involves_pydantic):
    (outputSchema, wrapped, TypeAdapter), or None (S13).  The adapter is the
    SDK's output model (``_create_output_model``), built once here; the schema
    is that adapter's, as ``FuncMetadata`` publishes it."""
    pydantic = _module("pydantic")
    wrap = False
    try:
        if _origin(inner) is dict and len(_args(inner)) == 2 and _args(inner)[0] is str:  # S8
            model: Any = _typing("Annotated")[inner, pydantic.Field(title=f"{fn_name}DictOutput")]
        elif inner in (None, _NoneType, str, int, float, bool, bytes) or _origin(inner) is not None \
                or not isinstance(inner, type):  # S7, S9, S10
            model, wrap = pydantic.create_model(f"{fn_name}Output", result=_for_pydantic(annotation)), True
        elif _is_pydantic_model(inner) or _is_typeddict(inner):  # S11
            model = _for_pydantic(inner)
        elif _has_annotations(inner):  # S12
            model = _pydantic_model_of_class(inner)
        else:
            return None  # S13
        adapter = pydantic.TypeAdapter(model)
        schema = adapter.json_schema(ref_template="#/$defs/{model}", schema_generator=_strict_json_schema())
    except Exception as exc:  # pydantic refuses the type (PydanticUserError, SchemaError, a warning made an error)
        raise _Unsupported(f"{type(exc).__name__}: {exc}") from None
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        # A recursive model's root is a bare $ref: SDK 2.3's _inline_root_ref copies the definition onto it.
        schema = {**schema["$defs"][ref[8:]], **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema, wrap, adapter


def _pydantic_model_of_class(cls: type) -> Any:
    """Row S12 through pydantic: the SDK's ``_create_model_from_class``, a model of
    the class's annotations read from its attributes (keeping their ``Annotated``
    metadata, as our own S12 does)."""
    pydantic = _module("pydantic")
    fields: Dict[str, Any] = {}
    for name, tp in _type_hints(cls).items():
        if name.startswith("_") or _origin(tp) is _typing("ClassVar") or tp is _typing("ClassVar"):
            continue
        default = getattr(cls, name, _MISSING)
        fields[name] = _for_pydantic(tp) if default is _MISSING else (_for_pydantic(tp), default)
    return pydantic.create_model(cls.__name__, __config__=pydantic.ConfigDict(from_attributes=True), **fields)


@functools.lru_cache(maxsize=None)
def _by_alias_and_name() -> Dict[str, bool]:
    """The options the SDK validates a result with, so that it may use Python
    names or aliases; ``validate_python`` has them from pydantic 2.11."""
    version = tuple(int(part) for part in str(_module("pydantic").VERSION).split(".")[:2])
    return {"by_alias": True, "by_name": True} if version >= (2, 11) else {}


def _class_arms(compiler: _Compiler, schemas: List[Any]) -> Dict[str, int]:
    """The arms that are a class's $ref (a dataclass, a model, an Enum...),
    by the class's name (its definition's title); the first of a name."""
    out: Dict[str, int] = {}
    for i, arm in enumerate(schemas):
        ref = arm.get("$ref") if isinstance(arm, dict) else None
        if isinstance(ref, str) and not set(arm) - _ANNOTATION_KEYS - {"$ref"}:
            try:
                target = compiler._resolve(ref)
            except (ValueError, IndexError):
                continue
            if isinstance(target, dict) and isinstance(target.get("title"), str):
                out.setdefault(target["title"], i)
    return out


def _declared_names(compiler: _Compiler, schema: Any) -> Optional[frozenset[str]]:
    """The property names an object arm declares (through its $ref), or None."""
    try:
        target = compiler._resolve(schema["$ref"]) if isinstance(schema, dict) and "$ref" in schema else schema
    except (ValueError, IndexError, TypeError):
        return None
    properties = target.get("properties") if isinstance(target, dict) else None
    return frozenset(properties) if isinstance(properties, dict) else None


def _build_union(tp: Any, value: Any, sent: Any = _MISSING) -> Any:
    # The arm the schema check chose (the SDK's smart union, _Union, section 22): the arm of exactly the
    # value's type, else the first arm the JSON value is already an instance of (a Literal's string, a
    # list), else the first arm that converts it (a Path, bytes, an Enum, a date from a string).  A string
    # the check made of a number (a Unix time a date's, a number a Decimal's) comes from an arm that
    # converts, as the SDK's str takes no number: those first; a number made of a string, _first_converting.
    converted = type(value) is str and sent is not _MISSING and type(sent) is not str
    args, kind = _args(tp), type(value)
    if not converted and kind in (str, int, float, bool) and kind in args and (
            args[0] is kind or type(sent) is not str):
        return value
    if type(sent) is str and kind is not str and (made := _first_converting(tp, value, sent)) is not _MISSING:
        return made
    builder = _SchemaBuilder()
    fits: List[Tuple[Any, Any]] = []  # (arm, its schema)
    inexact: List[Any] = []
    lax: List[Any] = []
    for arm in args:
        if arm is _NoneType:
            continue
        try:
            schema = builder.finish(builder.schema(arm))
        except _Unsupported:
            continue
        if _passes(_checker(schema), value, ()):
            fits.append((arm, schema))
            if not _passes(_checker(schema, "arms"), value, ()):
                lax.append(arm)  # it converts a part of the value (a Decimal from a string)
                if _field_names_of(arm) is not None:
                    inexact.append(arm)  # a class one of whose fields converts (a Path from a string)
    # an arm that converts is lax (exactness 0): Any beats it, a class that sets fewer fields does not; a
    # Python-only arm is lax too (pydantic-core's lax-or-strict): Union[Path, Decimal] keeps ' 1.5 ' a Path
    python_only = [arm for arm, _ in fits if _python_only_type(arm)]
    chosen = _smart_pick((0, None, arm) if arm in python_only
                         else (0, *_ranked(arm, schema, value, builder.class_kinds)[1:]) if arm in lax
                         else _ranked(arm, schema, value, builder.class_kinds) for arm, schema in fits
                         if not converted or arm not in python_only)
    # stable: the smart union's pick, the instances, Any, then the arms that convert, each kind in order
    arms = sorted((arm for arm, _ in fits), key=lambda arm: -0.5 if arm is chosen else (-1 if converted else 2)
                  if arm in python_only else 1 if _is_any(arm) else 2 if arm in inexact else 0)
    for arm in arms:
        try:
            return _build_value(arm, value)
        except (_BuildError, TypeError, ValueError):
            continue  # a string the arm's type refuses (a dict[int, T]'s key): the checker chose a later arm
    return value


def _field_names_of(tp: Any) -> Optional[set[str]]:
    """A TypedDict's, a dataclass's or a model's field names (None: not one of those)."""
    if isinstance(tp, type) and (_is_typeddict(tp) or _is_dataclass(tp) or _is_pydantic_model(tp)):
        return set(_type_hints(tp))
    return None


# ---------------------------------------------------------------------------
# 23. SDK fidelity: lax conversions
# ---------------------------------------------------------------------------
#
# Fenced, as section 22 is.  pydantic's lax mode, which the SDK's tool
# arguments and results go through: "17" and 17.0 for an int, "yes" for a
# bool, an object read by attribute, then the standard library's value types
# (a date, a Decimal, a UUID) from the JSON forms pydantic takes, which
# _LAX_TABLE lists and test_differential checks against pydantic.  A schema
# that carries such a Python type (_TypedSchema, _UnionSchema, _ContainerSchema,
# section 24) is still the JSON Schema it looks like to everyone but the lax checkers.
#
#   hook                  the rule it refines                 what pydantic or the SDK does                README
#   --------------------  ----------------------------------  -------------------------------------------  ------
#   _lax_type             _Compiler._type (section 6)         17.0 for an int; other types converted by    -
#                                                             _coerce, refused in pydantic's words
#   _lax_steps            _Compiler._steps_in_order (section 6)  a Python value made JSON first (_native); -
#                                                             a float field's 2 becomes 2.0
#   _coerce               _lax_type (section 23)              "17" and 17.0 for an int, "yes" for a bool,  7
#                                                             a list or an object sent as JSON text
#   _json_text_arguments  _Tool.arguments (section 9)         a list or an object argument sent as JSON    7
#                                                             text, parsed (the SDK's pre_parse_json)
#   _lax_typed            _Compiler.compile (section 6)       a type JSON Schema cannot name (a date, a    11, 30
#                                                             Decimal, dict[int, T]'s keys), converted
#   _lax_member           _lax_allowed (section 27)           true for 1, "1" for an IntEnum's 1           -
#   _lax_kind             _stdlib_scalar_schema (section 24)  which row of _LAX_TABLE an annotation is     -
#   _lax_parse            _build_stdlib (section 7)           the argument built from its JSON form        11
#   _lax_members          _Compiler._members (section 6)      extra keys dropped, keys made strings (not   -
#                                                             for dict[str, T] or a dataclass: refused), a
#                                                             key's own errors under "[key]"
#   _strings_taken        _json_text_params (section 27)      the strings _json_text_arguments keeps       7
#
# README: as in section 22's table.  The wording of a refused date, time or
# duration (_duration_complaint copies speedate's) is README difference 11.

def _json_text_arguments(arguments: Dict[str, Any], json_params: Dict[str, FrozenSet[str]]) -> Dict[str, Any]:
    """Some clients send lists and objects as JSON text; like the SDK
    (pre_parse_json) we parse such a string, but only where the parameter
    cannot take that string (_strings_taken)."""
    out = None
    for name, taken in json_params.items():
        value = arguments.get(name)
        if isinstance(value, str) and value not in taken:
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                continue
            if isinstance(parsed, (list, dict)) or parsed is None:  # (the SDK keeps "true", as int is)
                out = dict(arguments) if out is None else out
                out[name] = parsed
    return arguments if out is None else out


def _strings_taken(schema: Any, root: Dict[str, Any]) -> Optional[FrozenSet[str]]:
    """The JSON strings a parameter's schema takes as they are: None for every
    one, else a Literal's or an Enum's own (so "null" is JSON text for a
    Literal[None, '']: None, as the SDK's pre_parse_json reads it), none
    for a date's, a UUID's or a Decimal's ("null" is Optional[time]'s None)."""
    if schema is True or not isinstance(schema, dict):
        return None if schema else frozenset()
    if "$ref" in schema:
        try:
            return _strings_taken(_Compiler(root, "strict")._resolve(schema["$ref"]), root)
        except ValueError:
            return frozenset()
    if type(schema) is _TypedSchema and _lax_kind(schema.py_type) not in (None, "path") or \
            schema.get("format") in ("uuid", "date", "date-time", "time", "duration"):  # (a pydantic model's)
        return frozenset()  # a date, a UUID, a Decimal: no JSON text of null, a list or an object is one
    if "anyOf" in schema or "oneOf" in schema:
        taken = [_strings_taken(s, root) for s in schema.get("anyOf") or schema.get("oneOf") or []]
        return None if any(t is None for t in taken) else frozenset().union(*taken)  # type: ignore[arg-type]
    if "const" in schema or "enum" in schema:
        return frozenset(v for v in ([schema["const"]] if "const" in schema else schema["enum"]) if type(v) is str)
    kind = schema.get("type")
    return None if kind is None or "string" in ([kind] if isinstance(kind, str) else kind) else frozenset()


def _hashable_as(tp: Any, value: Any) -> bool:
    """Whether the checked JSON ``value``, built as ``tp`` (section 7), can be a set's item."""
    try:
        hash(_build_value(tp, value))
    except TypeError:
        return False
    except Exception:  # noqa: BLE001 - a value that does not build is the item check's to report
        return True
    return True


def _lax_members(schema: Dict[str, Any], properties: Dict[str, _Checker], extra: Any, extra_check: Any,
                 patterns: List[Tuple[Any, _Checker]], names: Optional[_Checker],
                 class_kinds: Dict[str, str]) -> _Checker:
    """_Compiler._members in the lax modes: a key that is no string becomes its
    JSON text ({1: "a"} -> {"1": "a"}) or, for dict[str, T], an error; extra keys are dropped where the SDK's
    models ignore them (declared properties, none for a class without fields,
    and nothing said of the others); a key's own errors under "[key]"."""
    drop_extra = "properties" in schema and extra is _MISSING and not patterns
    # pydantic refuses {1: 2} for dict[str, T] and a dataclass (a TypedDict and a model ignore
    # the key; a bare dict, Any and dict[int, T], _lax_dict_keys, take it: JSON writes "1").
    string_keys = type(schema) is dict and "properties" not in schema
    dataclass = "properties" in schema and class_kinds.get(str(schema.get("title"))) == "dataclass"
    # The SDK's Dict[Annotated[str, Field(pattern=...)], V] is patternProperties
    # alone, and refuses a key that does not match, as its keys' schema does.
    keys_pattern = next(iter(schema["patternProperties"]), None) if (
        len(patterns) == 1 and not properties and extra is _MISSING) else None

    def members(value: Dict[Any, Any], loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                if string_keys or dataclass:
                    errors.append(_ErrorItem(loc + (key, "[key]"), "Input should be a valid string", "string_type",
                                             key) if string_keys else
                                  _ErrorItem(loc + (key,), "Keys should be strings", "invalid_key", key))
                    continue
                try:
                    key = _key(key)
                except _NotJSON as exc:
                    errors.append(_ErrorItem(loc + (key,), exc.msg, exc.kind, key))
                    continue
            sub = properties.get(key)
            matched = sub is not None
            if sub is not None:
                item = sub(item, loc + (key,), errors)
            for search, pattern_check in patterns:
                if search(key):
                    matched = True
                    item = pattern_check(item, loc + (key,), errors)
            if not matched:
                if drop_extra:
                    continue
                if keys_pattern is not None:
                    errors.append(_ErrorItem(loc + (key, "[key]"), f"String should match pattern '{keys_pattern}'",
                                             "string_pattern_mismatch", key))
                    continue
                if extra is False:
                    errors.append(_ErrorItem(loc + (key,), "Extra inputs are not permitted", "extra_forbidden", item))
                    continue
                if extra_check is not None:
                    item = extra_check(item, loc + (key,), errors)
            if names is not None:
                names(key, loc + (key, "[key]"), errors)
            out[key] = item
        return out

    return members


_INT_FLOAT_LIMIT = 2.0 ** 63  # the SDK's int from a float is an i64


def _lax_type(compiler: _Compiler, schema: Dict[str, Any], types: List[str]) -> _Checker:
    """_Compiler._type in the lax modes: 17.0 is the int 17; a value of another
    JSON type is converted where pydantic's lax mode converts it (_coerce: "17"
    for an int, "true" for a bool), and refused in pydantic's words."""
    output = compiler.output
    properties = schema.get("properties") or {}
    array_kind, title, family = _type_words(compiler, schema)
    bounded = any(k in schema for k in _BOUNDS)  # (NaN is a multiple of anything to pydantic)

    def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
        for t in types:
            if _is_json_type(value, t):
                if t == "integer" and type(value) is float:
                    if abs(value) >= _INT_FLOAT_LIMIT:
                        errors.append(_ErrorItem(loc, "Unable to parse input string as an integer, exceeded "
                                                 "maximum size", "int_parsing_size", value))
                        return value
                    return int(value)
                return value
        failure = None
        for t in types:
            converted, failure = _coerce(value, t, output, properties)
            if failure is None:
                return converted
        if failure and not failure[0]:
            failure = None
        if failure and failure[1] == "finite_number" and type(value) is str and bounded:
            # The SDK takes "nan" and "inf" as floats and refuses them by the
            # first bound they fail; one they pass stays refused here (not JSON).
            failure = _bound_failure(schema, float(value.strip())) or failure
        array = "sequence_str" if array_kind == "sequence" and type(value) is str else array_kind
        msg, kind = failure if len(types) == 1 and failure else _type_error(types[0], array, title, family)
        errors.append(_ErrorItem(loc, msg, kind, value))
        return value

    return check


def _lax_steps(schema: Dict[str, Any], type_step: Optional[Callable[..., Any]], steps: List[_Checker]) -> _Checker:
    """_Compiler._steps_in_order in the lax modes: a Python value is first made
    JSON as the SDK's pydantic reads it (_native), and a float field holds a float."""
    if "enum" in schema or "const" in schema:
        type_step = None  # the SDK reports the allowed values, converting nothing
    elif type_step is None and set(schema) - _ANNOTATION_KEYS == {"anyOf"}:
        return steps[0]  # a union sees the value as returned: an instance picks its class's arm
    # The SDK's float fields hold floats: 2 becomes 2.0, after the checks
    # (an error still shows the value as sent).
    to_float = schema.get("type") == "number"
    # A union with an arm converted through its type (Union[datetime, date])
    # sees the object itself, as the SDK's exact match does; its arms make it JSON.
    native = not any(type(arm) is _TypedSchema for arm in schema.get("anyOf", ()))
    # The SDK's str takes a str, bytes or an Enum member, never another
    # object whose JSON form is a string (a Decimal, a UUID, a date, a Path).
    strings_only = schema.get("type") == "string" and not {"enum", "const"} & set(schema)

    def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
        if native and type(value) not in _NATIVE:
            if strings_only and not (isinstance(value, (str, bytes, bytearray)) or _is_enum_member(value)):
                errors.append(_ErrorItem(loc, "Input should be a valid string", "string_type", value))
                return value
            try:
                value = _native(value)
            except _NotJSON as exc:
                errors.append(_ErrorItem(loc, exc.msg, exc.kind, value))
                return value
        # The rule's steps, repeated rather than called: after a type error the
        # value goes back as it is, and only a value the type step took is made
        # a float below (with its own float_type error past float's range).
        sent = value
        if type_step is not None:
            before = len(errors)
            value = type_step(value, loc, errors)
            if len(errors) > before:
                return value  # the other keywords would only repeat the type error
        before = len(errors)
        for step in steps:
            value = step(value, loc, errors)
        if value is not sent and len(errors) > before:
            _show_as_sent(errors, before, value, sent)
        if to_float and type(value) is int:
            try:
                return float(value)
            except OverflowError:  # beyond float's range: the SDK's float_type error
                errors.append(_ErrorItem(loc, "Input should be a valid number", "float_type", value))
        return value

    return check


_BOOL_WORDS = {
    "true": True, "false": False, "yes": True, "no": False, "on": True, "off": False,
    "1": True, "0": False, "t": True, "f": False, "y": True, "n": False,
}


def _coerce(value: Any, kind: str, output: bool, properties: Dict[str, Any]) -> Tuple[Any, Optional[Tuple[str, str]]]:
    """pydantic's lax conversions for one JSON type: (value, None) or (value, (msg, kind))."""
    tp = type(value)
    if kind == "integer":
        if tp is bool:
            return int(value), None
        if tp is float:
            if value != value or value in (float("inf"), float("-inf")):
                return value, ("Input should be a finite number", "finite_number")
            return value, ("Input should be a valid integer, got a number with a fractional part", "int_from_float")
        if tp is str:
            text = value.strip()
            if _is_int_text(text):
                try:
                    return int(text.split(".")[0]), None
                except ValueError:  # past Python's digit limit (sys.set_int_max_str_digits)
                    return value, ("Unable to parse input string as an integer, exceeded maximum size",
                                   "int_parsing_size")
            return value, ("Input should be a valid integer, unable to parse string as an integer", "int_parsing")
    elif kind == "number":
        if tp is bool:
            return float(value), None
        if tp is float:  # nan and infinity are no JSON
            return value, ("Input should be a finite number", "finite_number")
        if tp is str:
            try:
                number = float(value.strip())
            except ValueError:
                return value, ("Input should be a valid number, unable to parse string as a number", "float_parsing")
            if number != number or number in (float("inf"), float("-inf")):
                return value, ("Input should be a finite number", "finite_number")
            return number, None
    elif kind == "boolean":
        if tp is int and value in (0, 1):
            return bool(value), None
        if tp is float and value in (0.0, 1.0):
            return bool(value), None
        if tp is str and value.strip().lower() in _BOOL_WORDS:
            return _BOOL_WORDS[value.strip().lower()], None
        # pydantic reads a number as an i64 first: one it cannot (a fraction, past
        # the i64 range) is no bool_parsing but a bool_type.
        if tp is str or (tp is int and -_INT_FLOAT_LIMIT <= value < _INT_FLOAT_LIMIT) or (
                tp is float and value.is_integer() and abs(value) < _INT_FLOAT_LIMIT):
            return value, ("Input should be a valid boolean, unable to interpret input", "bool_parsing")
    elif kind == "object" and output and properties and tp not in _NATIVE:
        # An object read by attribute (the SDK's from_attributes=True).
        return {name: getattr(value, name) for name in properties if hasattr(value, name)}, None
    return value, ("", "")  # no conversion: the caller words the type error


def _lax_member(value: Any, allowed: List[Any], int_enum: bool, loc: Tuple[Any, ...],
                errors: List[_ErrorItem]) -> Any:
    """What pydantic's lax Literal and Enum take besides the allowed values
    themselves: true for 1 and 1 for true, "1" for an IntEnum's 1.  An int past
    an i64 is refused as pydantic refuses it (it reads an int Literal's input as
    an i64 first).  _MISSING: nothing taken, no error yet."""
    if type(value) in (bool, int, float):
        for candidate in allowed:
            if type(candidate) in (bool, int, float) and value == candidate:
                return candidate
    elif int_enum and isinstance(value, str) and _is_int_text(value.strip()):
        try:  # an IntEnum takes "1"; a plain Enum does not
            number = int(value.strip().split(".")[0])
        except ValueError:  # past Python's digit limit: no member's value
            number = None
        if number is not None and any(_json_equal(number, candidate) for candidate in allowed):
            return number
    if type(value) is int and not -_INT_FLOAT_LIMIT <= value < _INT_FLOAT_LIMIT and any(
            type(c) is int for c in allowed):
        errors.append(_ErrorItem(loc, "Unable to parse input string as an integer, exceeded maximum size",
                                 "int_parsing_size", value))
        return value
    return _MISSING


def _is_int_text(text: str) -> bool:
    """"17" and "17.0" are integers to pydantic; "1e3" and "17.5" are not."""
    digits = text[1:] if text[:1] in "+-" else text
    whole, _, fraction = digits.partition(".")
    if "_" in whole:  # "1_000": single underscores between digits, as pydantic (and int()) read them
        if "__" in whole or whole[:1] == "_" or whole[-1:] == "_":
            return False
        whole = whole.replace("_", "")
    return whole.isascii() and whole.isdigit() and fraction.strip("0") == ""


# -- pydantic's lax mode, type by type ----------------------------------------
#
# The standard library's value types, as pydantic's lax mode converts them
# (https://docs.pydantic.dev/latest/concepts/conversion_table/, and the text
# forms of pydantic-core's speedate), then written in its JSON mode.  One row
# per type: inputs it takes with the JSON it sends, inputs it refuses with the
# error type.  test_validation runs every row through pydantic when it is
# installed, so the table cannot drift from it.

_LAX_TABLE: Tuple[Tuple[str, Tuple[Tuple[Any, Any], ...], Tuple[Tuple[Any, str], ...]], ...] = (
    ("date",
     ((1577836800, "2020-01-01"), (1577836800000, "2020-01-01"), ("1577836800", "2020-01-01"), (0, "1970-01-01"),
      ("2020-01-02", "2020-01-02"), ("2020-01-02T00:00:00", "2020-01-02"), ("2020-01-02T00:00:00Z", "2020-01-02"),
      ("2020-01-02 00:00", "2020-01-02")),
     ((1577836800.5, "date_from_datetime_inexact"), ("2020-01-02T00:00:01", "date_from_datetime_inexact"),
      ("20200102", "date_from_datetime_inexact"), (-1, "date_from_datetime_inexact"),
      ("2023-02-29", "date_from_datetime_parsing"), ("not a date", "date_from_datetime_parsing"),
      (" 2020-01-02", "date_from_datetime_parsing"), (1e20, "date_from_datetime_parsing"),
      (True, "date_type"), (None, "date_type"), ([], "date_type"))),
    ("datetime",
     ((1577836800, "2020-01-01T00:00:00Z"), (1577836800000, "2020-01-01T00:00:00Z"),
      (1577836800.5, "2020-01-01T00:00:00.500000Z"), ("1577836800", "2020-01-01T00:00:00Z"),
      ("-1", "1969-12-31T23:59:59Z"), ("2024-01-02", "2024-01-02T00:00:00"),
      ("2020-01-02 03:04", "2020-01-02T03:04:00"), ("2020-01-02T03:04:05+01:00", "2020-01-02T03:04:05+01:00"),
      ("2020-01-02T03:04:05+0100", "2020-01-02T03:04:05+01:00"),
      ("2020-01-02t03:04:05z", "2020-01-02T03:04:05Z"), ("2020-01-02T03:04:05-00:00", "2020-01-02T03:04:05Z"),
      ("2020-01-02T03:04:05,5", "2020-01-02T03:04:05.500000"),
      ("2020-01-02T03:04:05.123456789", "2020-01-02T03:04:05.123456"), ("60.", "1970-01-01T00:01:00Z"),
      (".24", "1970-01-01T00:00:00.240000Z"), ("1.5e3", "1970-01-01T00:25:00Z"),
      (21000000001.25, "1970-09-01T01:20:00.001250Z")),
     (("not a date", "datetime_from_date_parsing"), ("2023-02-29T00:00:00", "datetime_from_date_parsing"),
      ("2020-01-02T24:00:00", "datetime_from_date_parsing"), ("2020-01-02T03", "datetime_from_date_parsing"),
      ("2020-01-02T03:04:05+01", "datetime_from_date_parsing"), ("2020-1-2", "datetime_from_date_parsing"),
      ("1e9", "datetime_from_date_parsing"), (" 2020-01-02", "datetime_from_date_parsing"),
      (1e20, "datetime_parsing"), (True, "datetime_type"), (None, "datetime_type"))),
    ("time",
     ((3600, "01:00:00Z"), (3600.5, "01:00:00.500000Z"), ("01:00:00", "01:00:00"), ("01:00", "01:00:00"),
      ("01:00:00Z", "01:00:00Z"), ("01:00:00+01:00", "01:00:00+01:00"), ("01:00:00.123", "01:00:00.123000")),
     (("1:00", "time_parsing"), ("25:00", "time_parsing"), ("01:00:00+01", "time_parsing"), ("3600", "time_parsing"),
      ("01:00:00 ", "time_parsing"), (86400, "time_parsing"), (-1, "time_parsing"), (True, "time_type"),
      (None, "time_type"))),
    ("timedelta",
     ((3600, "PT1H"), (1.5, "PT1.5S"), (True, "PT1S"), (0, "PT0S"), ("01:00:00", "PT1H"), ("01:02", "PT1H2M"),
      ("1:02:03", "PT1H2M3S"), ("100:00:00", "P4DT4H"), ("01:00:00.5", "PT1H0.5S"), ("-01:00:00", "-PT1H"),
      ("1 day", "P1D"), ("1d", "P1D"), ("-1 day", "-P1D"), ("+1 day", "P1D"), ("1 days, 1:02:03.5", "P1DT1H2M3.5S"),
      ("2 days 01:00:00", "P2DT1H"), ("P1D", "P1D"), ("PT1H", "PT1H"), ("P1W", "P7D"), ("-PT1S", "-PT1S"),
      ("P1.5D", "P1DT12H"), ("P1DT", "P1D"), ("P1M", "P30D"), ("P1Y", "P1Y"), ("P400D", "P1Y35D"),
      ("PT1.5H", "PT1H30M"), ("1 DAY", "P1D"), ("3D", "P3D"), ("5day,", "P5D"), ("1day01:00:00", "P1DT1H"),
      (93158001334.60156, "P2954Y7DT14H35M34.601563S")),
     (("3600", "time_delta_parsing"), ("abc", "time_delta_parsing"), ("P", "time_delta_parsing"),
      ("PT", "time_delta_parsing"), (" P1D", "time_delta_parsing"), ("1:2:3", "time_delta_parsing"),
      ("1 day 25:00:00", "time_delta_parsing"), ("1_000", "time_delta_parsing"), (1e20, "time_delta_parsing"),
      ("1:01", "time_delta_parsing"), ("01:60", "time_delta_parsing"), ("99D  ", "time_delta_parsing"),
      ("99999999999:00:00", "time_delta_parsing"), ("P99999999999D", "time_delta_parsing"),
      (None, "time_delta_type"))),
    ("uuid",
     (("12345678-1234-5678-1234-567812345678", "12345678-1234-5678-1234-567812345678"),
      ("12345678123456781234567812345678", "12345678-1234-5678-1234-567812345678"),
      ("{12345678-1234-5678-1234-567812345678}", "12345678-1234-5678-1234-567812345678"),
      ("urn:uuid:12345678-1234-5678-1234-567812345678", "12345678-1234-5678-1234-567812345678")),
     (("not-a-uuid", "uuid_parsing"), ("", "uuid_parsing"), (5, "uuid_type"), (1.5, "uuid_type"), (True, "uuid_type"),
      (None, "uuid_type"))),
    ("decimal",
     ((1, "1"), (1.5, "1.5"), (0.1, "0.1"), ("1.50", "1.50"), (" 1.5 ", "1.5"), ("1e3", "1E+3"), (1e20, "1E+20"),
      ("1_000", "1000"), ("1.5e-3", "0.0015"), ("-0", "-0")),
     (("abc", "decimal_parsing"), ("", "decimal_parsing"), ("105 _", "decimal_parsing"), ("nan", "finite_number"),
      ("inf", "finite_number"),
      ("-Infinity", "finite_number"), (True, "decimal_type"), (None, "decimal_type"), ([], "decimal_type"))),
    ("path",
     (("a/b", "a/b"), ("", "."), ("/tmp/x/", "/tmp/x")),
     ((5, "path_type"), (True, "path_type"), (None, "path_type"))),
    ("int",
     ((17, 17), (17.0, 17), ("17", 17), (" 7 ", 7), ("+5", 5), ("17.0", 17), ("1_000", 1000), ("1_0_0", 100),
      (True, 1), (9.2e18, 9200000000000000000), ("99999999999999999999", 99999999999999999999)),
     (("1e3", "int_parsing"), ("_1", "int_parsing"), ("1__0", "int_parsing"), ("1_", "int_parsing"),
      ("0x10", "int_parsing"), (17.5, "int_from_float"), (1e20, "int_parsing_size"), (9.3e18, "int_parsing_size"),
      (None, "int_type"))),
)

_LAX_MESSAGES = {
    "date_type": "Input should be a valid date",
    "date_from_datetime_parsing": "Input should be a valid date or datetime, invalid date format",
    "date_from_datetime_inexact": "Datetimes provided to dates should have zero time - e.g. be exact dates",
    "datetime_type": "Input should be a valid datetime",
    "datetime_from_date_parsing": "Input should be a valid datetime or date, invalid datetime format",
    "datetime_parsing": "Input should be a valid datetime, dates after 9999 are not supported as unix timestamps",
    "time_type": "Input should be a valid time",
    "time_parsing": "Input should be in a valid time format, invalid time format",
    "time_delta_type": "Input should be a valid timedelta",
    "time_delta_parsing": "Input should be a valid timedelta, invalid duration format",
    "uuid_type": "UUID input should be a string, bytes or UUID object",
    "uuid_parsing": "Input should be a valid UUID, invalid format",
    "decimal_type": "Decimal input should be an integer, float, string or Decimal object",
    "decimal_parsing": "Input should be a valid decimal",
    "finite_number": "Input should be a finite number",
    "path_type": "Input is not a valid path",
}

_DATE = r"(\d{4})-(\d{2})-(\d{2})"
_TIME = r"(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|z|[+-]\d{2}:?\d{2})?"
# A Unix time as text: "60.", ".5", "1.5e3" (an exponent only after a point), no spaces.
_NUMBER_TEXT = r"[+-]?(?:\d+|(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?)"
# ISO 8601 durations; a year reads as 365 days and a month as 30, as pydantic reads them.
_DURATION_ISO = (r"([+-]?)P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?"
                 r"(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?")
# "1 day, 01:02:03.5", "2d", "01:02" (hours and minutes), "-01:00:00": Python's str() of a timedelta and kin.
_DURATION_DAYS = (r"(?i)([+-]?)(?:(\d+) ?(?:days?|d)(?:,? *(?=\d)|,? ?$))?"
                  r"(?:(\d+):([0-5]\d)(?::([0-5]\d)(?:\.(\d+))?)?)?")
_UNIX_MS = 2e10  # pydantic reads a larger Unix time as milliseconds
_MAX_DURATION_DAYS = 999_999_999  # timedelta's limit, which pydantic keeps for numbers of seconds


def _lax_kind(tp: Any) -> Optional[str]:
    """The row of _LAX_TABLE a class converts by (None: not one of them)."""
    if not isinstance(tp, type):
        return None
    dt = _module("datetime")
    if dt is not None:
        for cls, kind in ((dt.datetime, "datetime"), (dt.date, "date"), (dt.time, "time"), (dt.timedelta, "timedelta")):
            if issubclass(tp, cls):
                return kind
    for module, cls_name, kind in (("uuid", "UUID", "uuid"), ("decimal", "Decimal", "decimal"),
                                   ("pathlib", "PurePath", "path")):
        m = _module(module)
        if m is not None and issubclass(tp, getattr(m, cls_name)):
            return kind
    return None


def _lax_parse(kind: str, tp: type, value: Any) -> Any:
    """A value of ``tp`` from what pydantic's lax mode takes for it (its row
    in _LAX_TABLE); raises _BuildError with pydantic's error type."""
    try:
        if kind in _LAX_TEMPORAL:
            import datetime as dt

            try:
                return _LAX_TEMPORAL[kind](dt, value)
            except (OverflowError, ValueError):  # a field past what datetime holds
                raise _LaxFailure(_TEMPORAL_PARSING[kind]) from None
        return _LAX_OTHER[kind](tp, value)
    except _LaxFailure as exc:
        msg = exc.msg or _LAX_MESSAGES[exc.kind] + (f" for {tp!r}" if exc.kind == "path_type" else "")
        raise _BuildError(msg, exc.kind, value) from None


class _LaxFailure(Exception):
    """A value its row of _LAX_TABLE refuses; ``kind`` is pydantic's error type,
    ``msg`` its message where the row words it more closely than _LAX_MESSAGES."""

    def __init__(self, kind: str, msg: Optional[str] = None) -> None:
        super().__init__(kind)
        self.kind = kind
        self.msg = msg


def _unix_time(dt: Any, number: Any, kind: str) -> Any:
    """A Unix time (seconds, or milliseconds past 2e10) as an aware UTC datetime."""
    if number != number or number in (float("inf"), float("-inf")):
        raise _LaxFailure(kind)
    if abs(number) > _UNIX_MS:  # milliseconds, and their fraction in microseconds
        whole_ms = int(number // 1)
        whole, ms = divmod(whole_ms, 1000)
        micro = ms * 1000 + int((number - whole_ms) * 1000 + 0.5)  # half up, as pydantic
    else:
        whole = int(number // 1)
        micro = int((number - whole) * 1_000_000 + 0.5)
    try:
        return dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=whole, microseconds=micro)
    except OverflowError:
        raise _LaxFailure(kind) from None


def _clock(dt: Any, groups: Tuple[Optional[str], ...]) -> Any:
    hour, minute, second, fraction, zone = groups
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    tz = None
    if zone:
        if zone in ("Z", "z"):
            tz = dt.timezone.utc
        else:
            digits = zone[1:].replace(":", "")
            offset = dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
            tz = dt.timezone(-offset if zone[0] == "-" else offset)
    return dt.time(int(hour or 0), int(minute or 0), int(second or 0), micro, tzinfo=tz)


def _moment(dt: Any, value: Any, bad: str, out_of_range: str, wrong_type: str) -> Any:
    """A datetime from a Unix time (a number or its text) or an ISO 8601 text
    (a date alone is its midnight), as speedate reads them; else _LaxFailure."""
    import re

    tv = type(value)
    if tv in (int, float):
        return _unix_time(dt, value, out_of_range)
    if tv is not str:
        raise _LaxFailure(wrong_type)  # true included: no Unix time to pydantic
    if re.fullmatch(_NUMBER_TEXT, value):
        return _unix_time(dt, float(value) if "." in value else int(value), bad)
    match = re.fullmatch(_DATE + "(?:[Tt ]" + _TIME + ")?", value)
    if match is None:
        raise _LaxFailure(bad)
    groups = match.groups()
    try:
        day = dt.date(*(int(g) for g in groups[:3]))
        clock = dt.time() if groups[3] is None else _clock(dt, groups[3:])
    except ValueError:
        raise _LaxFailure(bad) from None
    return dt.datetime.combine(day, clock)


def _lax_datetime(dt: Any, value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    return _moment(dt, value, "datetime_from_date_parsing", "datetime_parsing", "datetime_type")


def _lax_date(dt: Any, value: Any) -> Any:
    import re

    if type(value) is str and re.fullmatch(_DATE, value):
        try:
            return dt.date(int(value[:4]), int(value[5:7]), int(value[8:]))
        except ValueError:
            raise _LaxFailure("date_from_datetime_parsing") from None
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    moment = value if isinstance(value, dt.datetime) else _moment(
        dt, value, "date_from_datetime_parsing", "date_from_datetime_parsing", "date_type")
    if moment.time() != dt.time():  # pydantic: a datetime makes a date only at midnight
        raise _LaxFailure("date_from_datetime_inexact")
    return moment.date()


def _lax_time(dt: Any, value: Any) -> Any:
    import re

    tv = type(value)
    if isinstance(value, dt.time):
        return value
    if tv in (int, float):
        if not 0 <= value < 86400:  # (NaN fails this too)
            raise _LaxFailure("time_parsing")
        return (dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=value)).timetz()
    if tv is not str:
        raise _LaxFailure("time_type")
    match = re.fullmatch(_TIME, value)
    try:
        if match is None:
            raise ValueError(value)
        return _clock(dt, match.groups())
    except ValueError:
        raise _LaxFailure("time_parsing") from None


def _lax_timedelta(dt: Any, value: Any) -> Any:
    tv = type(value)
    if isinstance(value, dt.timedelta):
        return value
    if tv in (bool, int, float):  # seconds; pydantic takes true as 1
        if value != value or abs(value) > _MAX_DURATION_DAYS * 86400:
            raise _LaxFailure("time_delta_parsing", _DURATION_TOO_LONG)
        whole = int(value // 1)  # its fraction rounded to the microsecond, as pydantic does
        return dt.timedelta(seconds=whole, microseconds=int((value - whole) * 1_000_000 + 0.5))
    if tv is not str:
        raise _LaxFailure("time_delta_type")
    try:
        return _lax_duration_text(dt, value)
    except (_LaxFailure, OverflowError, ValueError):  # (ValueError, OverflowError: past timedelta's range)
        raise _LaxFailure("time_delta_parsing", f"Input should be a valid timedelta, {_duration_complaint(value)}") \
            from None


_DURATION_TOO_LONG = "Input should be a valid timedelta, durations may not exceed 999,999,999 days"


def _lax_duration_text(dt: Any, value: str) -> Any:
    import re

    iso = re.fullmatch(_DURATION_ISO, value)
    if iso is not None and any(iso.groups()[1:]):
        sign, years, months, weeks, days, hours, minutes, seconds = iso.groups()
        delta = dt.timedelta(days=float(years or 0) * 365 + float(months or 0) * 30 + float(weeks or 0) * 7
                             + float(days or 0), hours=float(hours or 0), minutes=float(minutes or 0),
                             seconds=float(seconds or 0))
        return -delta if sign == "-" else delta
    match = re.fullmatch(_DURATION_DAYS, value)
    if match is None or not any(match.groups()[1:]):
        raise _LaxFailure("time_delta_parsing")
    sign, days, hours, minutes, seconds, fraction = match.groups()
    if days is not None and hours is not None and (seconds is None or int(hours) > 23):
        raise _LaxFailure("time_delta_parsing")  # after a day: a clock time, to the second
    if hours is not None and seconds is None and len(hours) < 2:
        raise _LaxFailure("time_delta_parsing")  # "01:02" is hours and minutes; "1:02" is nothing
    delta = dt.timedelta(days=int(days or 0), hours=int(hours or 0), minutes=int(minutes or 0),
                         seconds=int(seconds or 0), microseconds=int((fraction or "0")[:6].ljust(6, "0")))
    return -delta if sign == "-" else delta


def _duration_complaint(text: str) -> str:
    """Why speedate refuses a duration text, in its words (pydantic's message
    after "Input should be a valid timedelta, "); the reader is speedate's
    Duration::parse_bytes, followed only as far as its own errors go."""
    data = text.encode("utf-8")
    sign = 1 if data[:1] in (b"+", b"-") else 0
    if not data:
        return "input is too short"

    def number(at: int) -> Tuple[Optional[str], int]:
        if at >= len(data):
            return "input is too short", at
        if not 48 <= data[at] <= 57:
            return "invalid digit in duration", at
        end = at
        while end < len(data) and 48 <= data[end] <= 57:
            end += 1
        too_large = int(data[at:end]) > 0xFFFFFFFF
        return ("a numeric value in the duration is too large" if too_large else None), end

    if data[sign:sign + 1] == b"P":
        at, got_t, fraction_before = sign + 1, False, False
        while at < len(data):
            if data[at:at + 1] == b"T":
                if got_t:
                    return "`t` character repeated in duration"
                got_t = True
            else:
                complaint, at = number(at)
                if complaint:
                    return complaint
                fraction = data[at:at + 1] in (b".", b",")
                while fraction and at + 1 < len(data) and 48 <= data[at + 1] <= 57:
                    at += 1
                at += fraction
                if fraction_before:
                    return "quantity fraction invalid in duration"
                fraction_before = fraction
                if data[at:at + 1] not in ((b"H", b"M", b"S") if got_t else (b"Y", b"M", b"W", b"D")):
                    return f"quantity invalid in {'time' if got_t else 'date'} part of duration"
            at += 1
        return "input is too short" if at < 3 else "invalid duration format"
    if b"d" in data or b"D" in data or len(data) - sign < 5:
        complaint, at = number(sign)
        if complaint:
            return complaint
        at += data[at:at + 1] == b" "
        if data[at:at + 1] not in (b"d", b"D"):
            return '"day" identifier in duration not correctly formatted'
        return "invalid duration format"  # (past the day: a clock time, worded as a time's errors)
    hour, colon, _ = data[sign:].partition(b":")
    if not colon:
        return "invalid character in hour"
    if len(hour) > 10:
        return "durations may not exceed 999,999,999 hours"
    if hour and not (hour.isascii() and hour.isdigit()):
        return "invalid character in hour"
    if hour and int(hour) > 24 * 10 ** 8:
        return "durations may not exceed 999,999,999 hours"
    return "invalid duration format"


def _lax_uuid(tp: type, value: Any) -> Any:
    if isinstance(value, tp):
        return value
    if type(value) is not str:
        raise _LaxFailure("uuid_type")
    try:
        return tp(value)
    except ValueError:
        raise _LaxFailure("uuid_parsing") from None


def _lax_decimal(tp: type, value: Any) -> Any:
    tv = type(value)
    number: Any
    if isinstance(value, tp):
        number = value
    elif tv is int:
        number = tp(value)
    elif tv is float:
        number = tp(repr(value))  # 0.1 is Decimal("0.1"), as pydantic reads it
    elif tv is str:
        text = value.strip().replace("_", "")  # "1_000" is 1000; "1 000" is no number
        try:
            if text != text.strip():
                raise ArithmeticError(value)
            number = tp(text)
        except ArithmeticError:
            raise _LaxFailure("decimal_parsing") from None
    else:
        raise _LaxFailure("decimal_type")  # true included: pydantic takes no booleans here
    if not number.is_finite():
        raise _LaxFailure("finite_number")
    return number


def _lax_path(tp: type, value: Any) -> Any:
    if isinstance(value, tp):
        return value
    if type(value) is not str:
        raise _LaxFailure("path_type")
    return tp(value)


_LAX_TEMPORAL: Dict[str, Callable[[Any, Any], Any]] = {
    "datetime": _lax_datetime, "date": _lax_date, "time": _lax_time, "timedelta": _lax_timedelta}
_LAX_OTHER: Dict[str, Callable[[type, Any], Any]] = {"uuid": _lax_uuid, "decimal": _lax_decimal, "path": _lax_path}
_TEMPORAL_PARSING = {"datetime": "datetime_from_date_parsing", "date": "date_from_datetime_parsing",
                     "time": "time_parsing", "timedelta": "time_delta_parsing"}


def _lax_typed(compiler: _Compiler, schema: _TypedSchema) -> _Checker:
    """The lax modes convert through the annotation itself where its schema
    cannot tell (a row of _LAX_TABLE; a dict's keys): what pydantic parses
    is parsed, what it refuses is refused, and the value goes on in its
    JSON mode (the SDK validates a result with its output model, then dumps
    it with ``mode="json"``: ``convert_result`` in func_metadata.py)."""
    tp = schema.py_type
    if schema.get("uniqueItems") is True:  # a set's or a frozenset's own words ("a valid frozenset")
        noun = "frozenset" if _origin(tp) is frozenset else "set"
        plain = compiler.compile(_ContainerSchema(dict(schema), noun))
        return _lax_set_items(compiler, _args(tp)[0], compiler.compile(schema["items"]), plain)
    plain = compiler.compile(dict(schema))
    if _origin(tp) is not None:
        return _lax_dict_keys(compiler, _args(tp)[0], plain, schema.get("additionalProperties", True))
    kind = _lax_kind(tp)
    assert kind is not None
    # Other keywords (a Field's bounds, lengths) are checked on the converted value.
    rest = plain if set(schema) - _ANNOTATION_KEYS - {"anyOf"} else None
    number = kind == "decimal"

    def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
        if type(value) not in _NATIVE and not isinstance(value, tp):
            try:
                value = _native(value)
            except _NotJSON as exc:
                errors.append(_ErrorItem(loc, exc.msg, exc.kind, value))
                return value
        try:
            parsed = _lax_parse(kind, tp, value)
        except _BuildError as exc:
            msg, error_kind, bad = exc.item
            errors.append(_ErrorItem(loc, msg, error_kind, bad))
            return value
        out = _native(parsed)
        if rest is not None:
            before = len(errors)
            rest(float(parsed) if number else out, loc, errors)
            for error in errors[before:]:
                error.value = value  # the error shows the value as sent, as pydantic's does
        return out

    return check


def _lax_set_items(compiler: _Compiler, item_type: Any, item: _Checker, plain: _Checker) -> _Checker:
    """A set whose items pydantic may build unhashable: each item that passes
    is built as the tool would receive it, and one a set cannot hold is
    refused where pydantic refuses it (the item's own errors, if any, instead)."""
    def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
        found: List[_ErrorItem] = []
        if type(value) is list:
            for i, raw in enumerate(value):
                item_errors: List[_ErrorItem] = []
                checked = item(raw, loc + (i,), item_errors)
                if not item_errors and not _hashable_as(item_type, checked):
                    found.append(_ErrorItem(loc + (i,), "Set items should be hashable", "set_item_not_hashable",
                                            raw))
        if not found:
            return plain(value, loc, errors)
        others: List[_ErrorItem] = []
        plain(value, loc, others)
        depth = len(loc)
        errors.extend(sorted(found + others, key=lambda e: e.loc[depth] if len(e.loc) > depth else -1))
        return value

    return check


def _lax_dict_keys(compiler: _Compiler, key_type: Any, plain: _Checker, values: Any) -> _Checker:
    """A dict whose keys pydantic converts (``dict[int, T]``): each key through
    its type (``"x"`` refused at ``(key, "[key]")``), sent as JSON's string.
    A refused key's value is checked still: pydantic reports each entry's
    key error, then its value's."""
    key_schema = ({"type": "integer"} if key_type is int else {"type": "number"} if key_type is float
                  else _TypedSchema({"type": "string"}, key_type))
    key_check = compiler.compile(key_schema)
    value_check = compiler.compile(values)

    def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
        if type(value) is not dict:
            try:
                value = _native(value)
            except _NotJSON as exc:
                errors.append(_ErrorItem(loc, exc.msg, exc.kind, value))
                return value
            if type(value) is not dict:
                return plain(value, loc, errors)
        before = len(errors)
        keyed = {}
        for key, item in value.items():
            converted = key_check(key if type(key) in _NATIVE else _native(key), loc + (key, "[key]"), errors)
            keyed[_key(converted)] = item
        if len(errors) == before:
            return plain(keyed, loc, errors)
        del errors[before:]
        for key, item in value.items():
            key_check(key if type(key) in _NATIVE else _native(key), loc + (key, "[key]"), errors)
            value_check(item, loc + (key,), errors)
        return value

    return check


# ---------------------------------------------------------------------------
# 24. SDK fidelity: schema shapes
# ---------------------------------------------------------------------------
#
# Fenced, as section 22 is.  The structured-output page asks for a JSON Schema
# of each tool's input and output; the SDK publishes the one pydantic writes,
# and its clients compare them, so section 5 calls these hooks for pydantic's
# spellings: the Field class the SDK re-exports, the names of $defs, sorted
# keys, flattened anyOf, and the JSON forms of datetime and timedelta; and the
# schemas that keep the Python type they describe, for section 23's lax checkers.
#
#   hook                  the rule it refines                 what pydantic or the SDK does                README
#   --------------------  ----------------------------------  -------------------------------------------  ------
#   _field_parts          _SchemaBuilder._object (section 5)  a field's Field (ours or pydantic's): its    -
#                                                             keywords, title and default in the schema
#   _field_holder         _Tool.__init__ (section 9)          a default given as Field(default=...), or    -
#                                                             in Annotated[T, Field(default=...)]
#   _field_default_of     _parameter_schema (section 9)       the same, published: the schema's default    -
#   _field_default        _Tool.arguments (section 9)         a mutable default copied for each call       -
#   Field                 _SchemaBuilder.annotated (section 5)  the SDK's Field: constraints, title,       39
#                                                             description, examples, default, and
#                                                             json_schema_extra (a dict or a function)
#   _fill_field_defaults  _build_object (section 7)           absent fields get their Field's default      -
#   _stdlib_scalar_schema  _SchemaBuilder.scalar (section 5)  a date, a UUID, a Decimal: the schema        -
#                                                             pydantic gives, typed for section 23
#   _field_value          _fill_field_defaults (section 24)   a Field's own default (``...``: none)        -
#   _field_annotations    _SchemaBuilder.field_schema (section 5)  a field's default as JSON, or none;    35
#                                                             its Fields' extras; its title from its name
#   _tuple_schema         _SchemaBuilder.container (section 5)  a tuple's prefixItems, minItems, maxItems  -
#   _union_schema         _SchemaBuilder.union (section 5)    nullable_schema, union_schema: the null arm  -
#                                                             last, nested anyOf flattened
#   _dict_schema          _SchemaBuilder.container (section 5)  _common_dict_schema: a keys' pattern as    -
#                                                             patternProperties, other keys in propertyNames
#   _enum_schema          _SchemaBuilder.ref (section 5)      an Enum's title, docstring and value type    -
#   _def_name             _SchemaBuilder.ref (section 5)      get_defs_ref: module__qualname when taken    -
#   _finished_schema      _SchemaBuilder.finish (section 5)   names made unique, a root class inlined,     -
#                                                             $defs pruned, keys sorted
#   _refers_to            _finished_schema (section 24)       a recursive model's $defs entry is kept      -
#   _flattened_any_of     _union_schema (section 24)          a union's anyOf flattened, repeats dropped   -
#   _qualified_name       _def_name (section 24)              a $defs name made unique: module__qualname -
#   _renamed_refs         _finished_schema (section 24)       $refs renamed with their definitions         -
#   _reachable            _finished_schema (section 24)       only the $defs the schema reaches            -
#   _sorted_schema        _finished_schema (section 24)       keys sorted; properties and defaults kept    -
#   _stdlib_scalar_json   _stdlib_scalar_schema (section 24)  a date, a UUID, a Decimal: pydantic's        -
#                                                             format or anyOf
#   _native               _jsonable (section 4)               the JSON mode, one level: an Enum's value, a -
#                                                             dataclass's fields, a datetime's ISO text
#   _iso_datetime         _native (section 24)                a datetime's JSON form: UTC as "Z"           -
#   _iso_duration         _native (section 24)                a timedelta's: ISO 8601, 365 days a year     -
#   _TypedSchema          _dict_schema (section 24)           a schema that carries its Python type        -
#   _may_be_unhashable    _SchemaBuilder.container (section 5)  a set whose items may be built unhashable  -
#   _UnionSchema          _union_schema (section 24)          a union that keeps its members' Python types -
#   _ContainerSchema      _SchemaBuilder.container (section 5)  a list, set or tuple that keeps its type   -
#   _with_factories       _SchemaBuilder.dataclass (section 5)  a dataclass's default_factory, run for a   30
#                                                             result that lacks its field (_FactorySchema)
#   _FactorySchema        _lax_object (section 27)            its factories, in the output mode            30
#   _Factory              _lax_object (section 27)            run for a field a result lacks               30
#   _python_only          _Compiler.compile (section 6)       a class no JSON value is an instance of      -
#   _python_only_type     _build_union (section 22)           the same, of a type (Annotated[T, ...]: T)   -
#   _as_sent              _lax_array (section 27)             values built as their JSON (no date, no      -
#                                                             Enum): a set's order is theirs (_set_order)
#   _class_values_json    _structured_schema (section 9)      S12: a class value pydantic cannot write as  -
#                                                             a default (a __slots__ entry): no schema
#   _class_value          _SchemaBuilder.annotated_class (section 5)  a class value, none for a slot       -
#
# README: as in section 22's table.  test_schema compares the schemas with the
# SDK's (testdata/corpus.py).

_SLOT = type(vars(_ErrorItem)["loc"])  # a __slots__ entry, as its class holds it (types.MemberDescriptorType)


def _class_value(cls: type, name: str) -> Any:
    """A class's value for an annotated attribute, its default (row S12); a
    __slots__ entry holds none."""
    value = getattr(cls, name, _MISSING)
    return _MISSING if type(value) is _SLOT else value


def _class_values_json(cls: type) -> None:
    """Row S12 as the SDK's ``_create_model_from_class`` reads a class: its class
    values are the model's defaults, and a default pydantic cannot write as JSON
    (a ``__slots__`` entry, an object of no JSON type) fails its StrictJsonSchema,
    so the tool has no outputSchema: _Unsupported.  NaN it writes."""
    for name in _type_hints(cls):
        value = getattr(cls, name, _MISSING)
        if name.startswith("_") or value is _MISSING or isinstance(value, Field) or _is_pydantic_field(value):
            continue
        try:
            _jsonable(value)
        except _NotJSON as exc:
            if exc.kind != "finite_number":
                raise _Unsupported(f"{cls.__name__}.{name}'s class value is no JSON default ({exc.msg})") from None


class Field:
    """Field metadata, as the SDK's ``Field`` spells it, for ``Annotated[T, Field(...)]``
    or as a parameter default.  Produces the same schema keywords the SDK does."""

    _KEYWORDS = {
        "ge": "minimum",
        "gt": "exclusiveMinimum",
        "le": "maximum",
        "lt": "exclusiveMaximum",
        "multiple_of": "multipleOf",
        "pattern": "pattern",
    }

    def __init__(
        self,
        default: Any = _MISSING,
        *,
        default_factory: Optional[Callable[[], Any]] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        examples: Optional[List[Any]] = None,
        ge: Optional[float] = None,
        gt: Optional[float] = None,
        le: Optional[float] = None,
        lt: Optional[float] = None,
        multiple_of: Optional[float] = None,
        min_length: Optional[int] = None,
        max_length: Optional[int] = None,
        pattern: Optional[str] = None,
        json_schema_extra: Union[Dict[str, Any], Callable[[Dict[str, Any]], None], None] = None,
    ) -> None:
        if not (json_schema_extra is None or isinstance(json_schema_extra, dict) or callable(json_schema_extra)):
            raise TypeError(f"json_schema_extra is a dict or a function of the schema, not "
                            f"{type(json_schema_extra).__name__}")
        if default is ...:
            default = _MISSING
        self.default = default
        self.default_factory = default_factory
        self.title = title
        self.description = description
        self.examples = examples
        self.constraints = {
            k: v
            for k, v in (
                ("ge", ge), ("gt", gt), ("le", le), ("lt", lt), ("multiple_of", multiple_of),
                ("min_length", min_length), ("max_length", max_length), ("pattern", pattern),
            )
            if v is not None
        }
        self.json_schema_extra = json_schema_extra

    def __repr__(self) -> str:
        return f"Field(default={self.default!r}, title={self.title!r}, description={self.description!r})"

    def apply(self, schema: Dict[str, Any], keywords: bool = True, extra: bool = True) -> None:
        """Add this field's keywords to ``schema`` where the SDK puts them, and
        (``extra``) its json_schema_extra."""
        if keywords:
            self._keywords(schema)
        # Last, over the keywords, as pydantic applies it: a dict merged into the
        # field's schema (x-mcp-header, 2026-07-28 basic/transports; SEP-1330's
        # titled enums, oneOf of const and title), a function called to change it.
        if not extra or self.json_schema_extra is None:
            return
        if isinstance(self.json_schema_extra, dict):
            schema.update(_jsonable(self.json_schema_extra))
        else:
            self.json_schema_extra(schema)

    def _keywords(self, schema: Dict[str, Any]) -> None:
        """Constraints, title, description, examples and default."""
        target = schema
        # The SDK applies constraints of Optional[T] to T's arm.
        arms = schema.get("anyOf")
        if arms and len(arms) == 2 and arms[1] == {"type": "null"}:
            target = arms[0]
        kind = str(target.get("type"))
        for key, value in self.constraints.items():
            if key in ("min_length", "max_length"):
                word = {"string": "Length", "array": "Items", "object": "Properties"}.get(kind, "Length")
                target[("min" if key == "min_length" else "max") + word] = value
                if type(target) is _ContainerSchema and "prefixItems" in target:  # pydantic-core's own bounds
                    low, high = target.lengths
                    target.lengths = (int(value), high) if key == "min_length" else (low, int(value))
            else:
                target[self._KEYWORDS[key]] = value
        if self.title is not None:
            schema["title"] = self.title
        if self.description is not None:
            schema["description"] = self.description
        if self.examples is not None:
            schema["examples"] = _jsonable(self.examples)
        if self.default is not _MISSING and self.default_factory is None:
            try:  # the SDK publishes Annotated[T, Field(default=...)]'s default where T is
                schema["default"] = _jsonable(self.default)
            except (_NotJSON, TypeError, ValueError, RecursionError):
                pass


def _field_annotations(schema: Dict[str, Any], name: str, default: Any,
                       fields: List[Tuple[Field, bool]]) -> Dict[str, Any]:
    """_SchemaBuilder.field_schema: the default as JSON, left out where it is
    none; each Field's keywords (``True``) or only its json_schema_extra; then
    the title the SDK's schemas give a field (GenerateJsonSchema.get_title_from_name),
    none on a model or an enum, nor on Optional[Model]."""
    if default is not _MISSING:
        try:
            schema["default"] = _jsonable(default)
        except (_NotJSON, TypeError, ValueError, RecursionError):
            pass  # the SDK leaves a default it cannot serialise out of the schema
    for field, keywords in fields:
        field.apply(schema, keywords)  # (a json_schema_extra sees no title: the SDK adds it after)
    if "title" not in schema and not _is_ref_like(schema):
        schema["title"] = name.title().replace("_", " ").strip()
    return schema


def _is_ref_like(schema: Dict[str, Any]) -> bool:
    if "$ref" in schema:
        return True
    arms = schema.get("anyOf")
    return isinstance(arms, list) and len(arms) == 2 and "$ref" in arms[0] and arms[1] == {"type": "null"}


def _tuple_schema(builder: _SchemaBuilder, tp: Any, args: Tuple[Any, ...]) -> Dict[str, Any]:
    """_SchemaBuilder.container's tuples: a bare tuple is any array; a fixed one
    its prefixItems, with minItems and maxItems for its length."""
    if tp is tuple or getattr(tp, "_special", False):  # bare tuple or typing.Tuple
        return {"items": {}, "type": "array"}
    if not args or args == ((),):  # tuple[()]; typing.Tuple[()] has args ((),) before 3.11
        return {"maxItems": 0, "minItems": 0, "type": "array"}
    if len(args) == 2 and args[1] is Ellipsis:
        return {"items": builder.schema(args[0]), "type": "array"}
    n = len(args)
    return {"maxItems": n, "minItems": n, "prefixItems": [builder.schema(a) for a in args], "type": "array"}


def _union_schema(builder: _SchemaBuilder, schemas: List[Dict[str, Any]], has_null: bool) -> Dict[str, Any]:
    """_SchemaBuilder.union: the SDK's nullable_schema around its union_schema:
    the arms' schemas, an arm that is itself only an anyOf spliced in,
    duplicates dropped (get_flattened_anyof); the null arm last, whatever the spelling."""
    schema = schemas[0] if len(schemas) == 1 else _flattened_any_of(schemas)
    if has_null and schema != {"type": "null"}:
        schema = _flattened_any_of([schema, {"type": "null"}])
    members = schemas + [{"type": "null"}] if has_null else schemas
    if "anyOf" in schema and len(schema) == 1 and members != schema["anyOf"]:
        # The SDK validates the members as written (a Decimal one arm, a
        # repeated one twice), whatever the published anyOf flattened.
        return _UnionSchema(schema, members)
    return schema


def _dict_schema(builder: _SchemaBuilder, tp: Any, args: Tuple[Any, ...]) -> Dict[str, Any]:
    """_SchemaBuilder.container's mappings: the SDK's _common_dict_schema: the
    values' schema (without its title) for every key, or for the keys that
    match the keys' pattern; keys with other constraints (a Literal, an Enum,
    a length) in propertyNames."""
    keys = builder.schema(args[0]) if args else {}
    values = builder.schema(args[1]) if args else {}
    values.pop("title", None)
    pattern = None
    if "$ref" not in keys:
        pattern = keys.pop("pattern", None)
        keys.pop("title", None)
    schema: Dict[str, Any] = {"type": "object"}
    if pattern is not None:
        schema["patternProperties"] = {pattern: values}
    else:
        schema["additionalProperties"] = values or True
    if (keys.get("type") == "string" and len(keys) > 1) or "$ref" in keys:
        keys.pop("type", None)
        schema["propertyNames"] = keys
    if not args:  # (the SDK names a bare dict's validator dict[any,any]: _arm_label, section 22)
        return _ContainerSchema(schema, "dict")
    # Keys that the SDK converts (dict[int, T]: "1" -> 1, "x" refused) keep their type.
    return _TypedSchema(schema, tp) if args[0] in (int, float) or _lax_kind(args[0]) else schema


def _enum_schema(cls: Any) -> Dict[str, Any]:
    """_SchemaBuilder.ref's Enum: its values, its name as title, its docstring."""
    # The SDK lists every name, aliases too: B = 1 and C = 1 give [1, 1].
    values = [m.value for m in cls.__members__.values()]
    schema: Dict[str, Any] = {"enum": values, "title": cls.__name__}
    doc = cls.__doc__
    if doc and doc != "An enumeration.":
        schema["description"] = _cleandoc(doc)
    kinds = {_json_type(v) for v in values}
    if len(kinds) == 1:
        schema["type"] = kinds.pop()
    return schema


def _def_name(builder: _SchemaBuilder, cls: type) -> str:
    """A class's name in ``$defs``: its own, or module__qualname when taken."""
    name = cls.__name__
    if name in builder.defs or name in builder._names.values():
        name = _qualified_name(cls)  # and the first of the name too, at finish
    return name


def _finished_schema(builder: _SchemaBuilder, schema: Dict[str, Any], inline_recursive: bool) -> Dict[str, Any]:
    """_SchemaBuilder.finish: every class of a name that two classes share named
    by its module path (get_defs_ref; the first one met renamed too); a root
    class inlined; only the ``$defs`` reached, keys sorted."""
    names = builder._names
    short = [cls for cls, name in names.items() if name == cls.__name__]
    renames = {cls.__name__: _qualified_name(cls) for cls in short
               if any(other is not cls and other.__name__ == cls.__name__ for other in names)}
    if renames:
        schema = _renamed_refs(schema, renames)
        builder.defs = {renames.get(n, n): _renamed_refs(d, renames) for n, d in builder.defs.items()}
        builder._names = {cls: renames.get(n, n) for cls, n in names.items()}
    ref = schema.get("$ref")
    if isinstance(ref, str) and len(schema) == 1 and ref.startswith("#/$defs/"):
        name = ref[8:]
        recursive = _refers_to(builder.defs, name)
        if not recursive:
            schema = builder.defs.pop(name)
        elif inline_recursive:
            schema = dict(builder.defs[name])
    reachable = _reachable(schema, builder.defs)
    defs = {n: d for n, d in builder.defs.items() if n in reachable}
    if defs:
        schema = {"$defs": defs, **schema}
    return _sorted_schema(schema)  # type: ignore[no-any-return]


def _qualified_name(cls: type) -> str:
    # The SDK's name of "module.qualname" (normalize_name): [^a-zA-Z0-9.-_] -> "_", "." -> "__".
    text = f"{cls.__module__}.{cls.__qualname__}"
    return "".join(c if c.isascii() and (c.isalnum() or c in ".-_") else "_" for c in text).replace(".", "__")


def _renamed_refs(value: Any, renames: Dict[str, str]) -> Any:
    if isinstance(value, dict):
        out = {k: _renamed_refs(v, renames) for k, v in value.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in renames:
            out["$ref"] = "#/$defs/" + renames[ref[8:]]
        if type(value) is _FactorySchema:
            return _FactorySchema(out, value.factories)
        return _TypedSchema(out, value.py_type) if type(value) is _TypedSchema else out  # (it converts)
    if isinstance(value, list):
        return [_renamed_refs(v, renames) for v in value]
    return value


def _flattened_any_of(schemas: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The SDK's anyOf (get_flattened_anyof): a member that is only an anyOf gives its
    arms, and a schema met again (as JSON, 1 and 1.0 alike) is dropped."""
    members: List[Dict[str, Any]] = []
    for schema in schemas:
        if len(schema) == 1 and "anyOf" in schema:
            arms = schema["anyOf"]
            if type(schema) is _TypedSchema:  # a Decimal's number|string: each arm still converts through the type
                arms = [_TypedSchema(arm, schema.py_type) for arm in arms]
            members.extend(arms)
        else:
            members.append(schema)
    unique: Dict[Any, Dict[str, Any]] = {}
    for member in members:  # of equal arms the first place, and a plain one (exact for JSON) over a typed one
        key = _hashable(member)
        if key not in unique or type(unique[key]) is _TypedSchema and type(member) is not _TypedSchema:
            unique[key] = member
    kept = list(unique.values())
    return kept[0] if len(kept) == 1 else {"anyOf": kept}


def _hashable(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    return value


def _sorted_schema(value: Any, parent: Optional[str] = None) -> Any:
    # The SDK sorts keys alphabetically, except the names under "properties"
    # and values under "default", which keep their order.
    if isinstance(value, dict):
        keys: Iterable[str] = value if parent in ("properties", "default") else sorted(value)
        out = {k: _sorted_schema(value[k], k) for k in keys}
        if type(value) is _ContainerSchema:
            return _ContainerSchema(out, value.container, value.lengths)
        if type(value) is _UnionSchema:
            return _UnionSchema(out, [_sorted_schema(m) for m in value.members])
        if type(value) is _FactorySchema:
            return _FactorySchema(out, value.factories)
        return _TypedSchema(out, value.py_type) if type(value) is _TypedSchema else out
    if isinstance(value, list):
        return [_sorted_schema(v, parent) for v in value]
    return value


def _refers_to(defs: Dict[str, Any], name: str) -> bool:
    needle = f'"#/$defs/{name}"'
    return any(needle in json.dumps(d) for d in defs.values())


def _reachable(schema: Dict[str, Any], defs: Dict[str, Any]) -> set[str]:
    """The definitions the schema reaches through any chain of $refs: only those are kept."""
    seen: set[str] = set()
    frontier = [json.dumps(schema)]
    while frontier:
        chunk = frontier.pop()
        for name in defs:
            if name not in seen and f'"#/$defs/{name}"' in chunk:
                seen.add(name)
                frontier.append(json.dumps(defs[name]))
    return seen


def _stdlib_scalar_schema(tp: type) -> Optional[Dict[str, Any]]:
    """_SchemaBuilder.scalar's other types: the SDK's schemas for the standard
    library's value types (a date, a UUID, a Decimal), typed where _lax_kind
    (section 23) converts them."""
    schema = _stdlib_scalar_json(tp)
    return _TypedSchema(schema, tp) if schema is not None and _lax_kind(tp) is not None else schema


def _stdlib_scalar_json(tp: type) -> Optional[Dict[str, Any]]:
    dt = _module("datetime")
    if dt is not None:
        if issubclass(tp, dt.datetime):
            return {"format": "date-time", "type": "string"}
        if issubclass(tp, dt.date):
            return {"format": "date", "type": "string"}
        if issubclass(tp, dt.time):
            return {"format": "time", "type": "string"}
        if issubclass(tp, dt.timedelta):
            return {"format": "duration", "type": "string"}
    uuid = _module("uuid")
    if uuid is not None and issubclass(tp, uuid.UUID):
        return {"format": "uuid", "type": "string"}
    decimal = _module("decimal")
    if decimal is not None and issubclass(tp, decimal.Decimal):
        return {"anyOf": [{"type": "number"}, {"type": "string"}]}
    pathlib = _module("pathlib")
    if pathlib is not None and issubclass(tp, pathlib.PurePath):
        return {"format": "path", "type": "string"}
    if _is_enum(tp) or tp in (str, int, float, bool):
        return None
    if issubclass(tp, str):
        return {"type": "string"}
    return None


def _field_parts(tp: Any, default: Any) -> Tuple[Any, Any, Optional[Field], bool]:
    """A dataclass or class field as the SDK reads it: (annotation, published
    default, our Field to apply to its schema, whether it has a default or a
    factory).  A Field given as the value (ours or _is_pydantic_field's) is the field's
    metadata and its default the default; with no value,
    ``Annotated[T, Field(default=...)]`` gives one (the value wins over it)."""
    holder = _field_holder(tp, default)
    if holder is None:
        return tp, default, None, default is not _MISSING
    value = _field_value(holder)
    has_default = value is not _MISSING or holder.default_factory is not None
    if holder is not default:  # in the annotation: applied with it
        return tp, value, None, has_default
    if isinstance(holder, Field):
        return tp, value, holder, has_default
    return _typing("Annotated")[tp, holder], value, None, has_default  # _is_pydantic_field: typing is loaded


def _field_holder(tp: Any, default: Any) -> Any:
    """The Field (ours, or one _is_pydantic_field knows) that gives a field's default, or None."""
    if isinstance(default, Field) or _is_pydantic_field(default):
        return default
    if default is _MISSING and _is_annotated(tp):
        for meta in reversed(tp.__metadata__):  # the last one wins, as the SDK merges them
            if (isinstance(meta, Field) or _is_pydantic_field(meta)) and (
                    _field_value(meta) is not _MISSING or meta.default_factory is not None):
                return meta
    return None


def _fill_field_defaults(tp: type, hints: Dict[str, Any], built: Dict[str, Any]) -> None:
    """Absent fields whose default a Field gives (the value ``= Field(3)``, or
    ``Annotated[T, Field(default=3)]``): its default, as the SDK fills them;
    the class itself would take the Field object as the value."""
    if _is_dataclass(tp):
        missing = _dataclass_missing()
        defaults = {f.name: _MISSING if f.default is missing else f.default
                    for f in tp.__dataclass_fields__.values() if f.init}  # type: ignore[attr-defined]
    else:
        defaults = {name: getattr(tp, name, _MISSING) for name in hints if not name.startswith("_")}
    for name, default in defaults.items():
        if name not in built:
            holder = _field_holder(hints.get(name, object), default)
            if holder is not None and (_field_value(holder) is not _MISSING or holder.default_factory is not None):
                built[name] = _field_default(holder)


def _field_default_of(tp: Any, default: Any) -> Tuple[Optional[Field], Any, bool]:
    """A parameter's Field given as its default (its keywords go into the
    schema), and its default and whether a factory makes it: from that Field,
    from Annotated[T, Field(default=...)] (the SDK's default), or as written."""
    if isinstance(default, Field):
        factory = default.default_factory is not None
        return default, _MISSING if factory else default.default, factory
    holder = _field_holder(tp, _MISSING)
    if holder is not None:
        return None, _field_value(holder), holder.default_factory is not None
    return None, default, False


def _field_value(field: Any) -> Any:
    """A Field's own default, or _MISSING (``...``, and the undefined of a field _is_pydantic_field knows)."""
    value = field.default
    if value is ... or type(value).__name__ == "PydanticUndefinedType":  # _is_pydantic_field's
        return _MISSING
    return value


def _native(value: Any) -> Any:
    """_jsonable, one level: a Python value as the SDK's JSON mode
    (pydantic's to_jsonable_python) carries it."""
    tp = type(value)
    if tp in _NATIVE:
        return value
    if _is_enum_member(value):
        return _native(value.value)
    if isinstance(value, (str, int, float)):  # subclasses of the JSON types
        return str(value) if isinstance(value, str) else value
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, (tuple, set, frozenset, list)):
        return list(value)
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise _NotJSON("Input should be a valid string, unable to parse raw data as a unicode string",
                        "string_unicode") from None
    if hasattr(value, "__dataclass_fields__") and not isinstance(value, type):
        return _dataclass_dict(value)
    base = _pydantic_base()
    if base is not None and isinstance(value, base):
        return value.model_dump(mode="json", by_alias=True)
    dt = _module("datetime")
    if dt is not None:
        if isinstance(value, (dt.datetime, dt.time)):
            return _iso_datetime(value)
        if isinstance(value, dt.date):
            return value.isoformat()
        if isinstance(value, dt.timedelta):
            return _iso_duration(value)
    for module, cls in (("uuid", "UUID"), ("decimal", "Decimal"), ("pathlib", "PurePath")):
        m = _module(module)
        if m is not None and isinstance(value, getattr(m, cls)):
            return str(value)
    if hasattr(value, "items") and hasattr(value, "keys"):  # other mappings
        return dict(value.items())
    if _is_generator_like(value):
        return list(value)  # generators are consumed: the SDK silently sends []
    return value


def _is_generator_like(value: Any) -> bool:
    collections_abc = _module("collections.abc")
    return collections_abc is not None and isinstance(value, (collections_abc.Iterator, collections_abc.Set))


def _iso_datetime(value: Any) -> str:
    text: str = value.isoformat()
    # The SDK writes UTC as "Z".
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _iso_duration(td: Any) -> str:
    """A timedelta in ISO 8601, as the SDK serialises it (``P1DT2H3M4.5S``)."""
    total = td.days * 86400 + td.seconds
    sign = "-" if total < 0 or (total == 0 and td.microseconds < 0) else ""
    if sign:
        td = -td
    days, seconds, micro = td.days, td.seconds, td.microseconds
    text = f"{sign}P"
    years, days = divmod(days, 365)  # the SDK counts 365 days as a year: P1Y35D
    if years:
        text += f"{years}Y"
    if days:
        text += f"{days}D"
    if seconds or micro or not (years or days):
        hours, rest = divmod(seconds, 3600)
        minutes, secs = divmod(rest, 60)
        text += "T"
        if hours:
            text += f"{hours}H"
        if minutes:
            text += f"{minutes}M"
        if secs or micro or not (hours or minutes):
            text += f"{secs}.{micro:06d}".rstrip("0").rstrip(".") + "S" if micro else f"{secs}S"
    return text


def _field_default(field: Any) -> Any:
    """A Field's default for one call: a mutable one copied, as the SDK's
    smart_deepcopy does, so that no call sees what another did to it."""
    if isinstance(field, Field):
        value = field.default_factory() if field.default_factory is not None else field.default
    else:
        value = field.get_default(call_default_factory=True)  # a FieldInfo (_is_pydantic_field)
    if type(value) in _IMMUTABLE:
        return value
    import copy

    return copy.deepcopy(value)


_IMMUTABLE = frozenset({int, float, bool, str, bytes, type(None), complex, tuple, frozenset, range})


class _TypedSchema(dict):  # type: ignore[type-arg]
    """A schema that remembers the annotation it describes, where JSON Schema
    alone cannot say how pydantic converts a value (a Decimal is any number or
    string, a date any string, a dict's int keys are strings): the lax modes of
    sections 6 and 23 convert through ``py_type``.  It is a dict to everything else."""

    __slots__ = ("py_type",)

    def __init__(self, schema: Dict[str, Any], py_type: Any) -> None:
        super().__init__(schema)
        self.py_type = py_type


class _UnionSchema(dict):  # type: ignore[type-arg]
    """A union's flattened anyOf (as pydantic publishes it) that remembers the
    members it validates by, and names in its errors: the lax modes check
    ``members``.  A dict to everything else."""

    __slots__ = ("members",)

    def __init__(self, schema: Dict[str, Any], members: List[Any]) -> None:
        super().__init__(schema)
        self.members = members


class _ContainerSchema(dict):  # type: ignore[type-arg]
    """A container's schema that remembers the container pydantic reads it as
    ("list", "tuple", "set", "frozenset", "sequence"; "dict" for a bare dict):
    JSON Schema says "array" or "object" for all of them, pydantic's errors
    name the one it wanted (tuple_type, frozen_set_type, is_instance_of; the
    union member dict[any,any]).  ``lengths``: a fixed tuple's own Field
    (min_length, max_length), which its minItems and maxItems cannot tell
    from the tuple's length (_lax_fixed_tuple).  A dict to everything else."""

    __slots__ = ("container", "lengths")

    def __init__(self, schema: Dict[str, Any], container: str,
                 lengths: Tuple[Optional[int], Optional[int]] = (None, None)) -> None:
        super().__init__(schema)
        self.container = container
        self.lengths = lengths


class _FactorySchema(dict):  # type: ignore[type-arg]
    """A dataclass's schema that keeps its fields' default_factory (as _Factory):
    pydantic runs one for a field a result lacks, in a union or a list (the SDK
    rebuilds a returned dataclass itself without them: row S12).  A dict to
    everything but the output checker."""

    __slots__ = ("factories",)

    def __init__(self, schema: Dict[str, Any], factories: Dict[str, "_Factory"]) -> None:
        super().__init__(schema)
        self.factories = factories


class _Factory:
    """A default_factory, run for each result that lacks its field; its value
    is sent as JSON, unchecked (pydantic's validate_default is off)."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn

    def __call__(self) -> Any:
        return _jsonable(self.fn())


def _with_factories(schema: Dict[str, Any], factories: Dict[str, Callable[[], Any]]) -> Dict[str, Any]:
    return _FactorySchema(schema, {k: _Factory(f) for k, f in factories.items()}) if factories else schema


def _may_be_unhashable(tp: Any) -> bool:
    """Whether the SDK may build a value of ``tp`` that a set cannot hold."""
    if _is_annotated(tp):
        return _may_be_unhashable(tp.__origin__)
    if _is_any(tp) or _is_typeddict(tp):
        return True
    if _is_union(tp) or _origin(tp) is tuple:
        return any(_may_be_unhashable(a) for a in _args(tp) if a is not Ellipsis)
    if _is_literal(tp) or _origin(tp) is frozenset:
        return False
    if _origin(tp) is not None:
        return True  # list, dict, set and their abstract kin are built as lists, dicts and sets
    return isinstance(tp, type) and getattr(tp, "__hash__", None) is None


def _as_sent(schema: Any) -> bool:
    """Whether the values of this schema are built as their JSON: no type JSON
    Schema cannot name (a date, an Enum member hashed by its name) inside."""
    if type(schema) is not dict and schema is not True:
        return False
    return schema is True or "$ref" not in schema and all(
        _as_sent(s) for key in ("anyOf", "oneOf", "allOf") for s in schema.get(key, ()))


_SCALAR_TYPES = (str, int, float, bool, _NoneType)


def _literal_arm(schema: Any) -> Optional[List[Any]]:
    """A Literal arm's values (a const or an enum without other keywords)."""
    if type(schema) is not dict or set(schema) - _ANNOTATION_KEYS - {"const", "enum"}:
        return None
    return [schema["const"]] if "const" in schema else list(schema.get("enum") or ()) or None


def _python_only(compiler: _Compiler, schema: Any) -> bool:
    """Whether the arm is a Python class no JSON value is an instance of."""
    if type(schema) is _TypedSchema:
        return True
    if not isinstance(schema, dict):
        return False
    if schema.get("format") in ("binary", "path") and schema.get("type") == "string":  # bytes, a Path
        return True
    if schema.get("type") == "array" and (schema.get("uniqueItems") is True or "prefixItems" in schema or (
            type(schema) is _ContainerSchema and schema.container == "tuple")):
        return True  # a set or a tuple (tuple[T, ...] too): a JSON list is neither
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and len(schema) == 1:
        try:
            target = compiler._resolve(ref)
        except ValueError:
            return False
        return isinstance(target, dict) and "enum" in target and "title" in target  # an Enum class
    return False


def _python_only_type(tp: Any) -> bool:
    """Whether no JSON value is an instance of ``tp`` (the SDK's strict mode refuses them all);
    Annotated's metadata (a description) changes nothing of that."""
    if _is_annotated(tp):
        tp = tp.__origin__
    return tp is bytes or _lax_kind(tp) is not None or _is_enum(tp) or _origin(tp) in (tuple, set, frozenset)


@functools.lru_cache(maxsize=None)
def _strict_json_schema() -> Any:
    """The SDK's ``StrictJsonSchema``: a schema pydantic would warn about (a
    default it cannot serialise, say) is an error, so the tool is unstructured."""
    json_schema = _module("pydantic.json_schema")

    class StrictJsonSchema(json_schema.GenerateJsonSchema):  # type: ignore[misc, name-defined]
        def emit_warning(self, kind: Any, detail: str) -> None:
            raise ValueError(f"JSON schema warning: {kind} - {detail}")

    return StrictJsonSchema


# ---------------------------------------------------------------------------
# 25. SDK fidelity: the SDK's API
# ---------------------------------------------------------------------------
#
# Fenced, as section 22 is.  What a tool sees of the SDK beyond the spec's
# messages: parameters the server fills (``Annotated[T, Resolve(fn)]``), the
# SDK's session object, and its classes for results, resources and messages.
# The messages themselves (elicitation/create, sampling/createMessage,
# roots/list, InputRequiredResult) are section 12's and section 13's; these
# call them.
#
#   hook                  the rule it refines                 what pydantic or the SDK does                README
#   --------------------  ----------------------------------  -------------------------------------------  ------
#   _resolvers_of         _Tool.__init__ (section 9)          Resolve(...) parameters and their DAG        -
#   _resolve_marker       _signature (section 9)              such a parameter is no argument              -
#   _resolve_parameters   MCPServer._call (section 14)        the resolvers run before the tool            -
#   _wire_value           MCPServer._input_required (section 14)  one of the SDK's models, as JSON         -
#                         _Block.to_wire (section 8), _icons_wire  a model inside: by alias, no null       -
#                         (section 10), _message_content (11)
#   _ClientSession        Context.session (section 12)        ctx.session: the SDK's ServerSession         -
#   _RequestContext       Context.request_context (section 12)  ctx.request_context, meta in snake_case    -
#   _JsonObject           Context.client_capabilities (section 12)  the client's JSON read by attribute,   -
#                                                             as the SDK's models are
#   _ELICITATION          Context.elicit_url (section 12)     an answer as Accepted-, Declined- or         -
#                                                             CancelledElicitation
#   ElicitationResult     Context.elicit (section 12)         the SDK's outcome classes, generic in the    -
#                                                             accepted data's type
#   AcceptedElicitation   Context.elicit (section 12)         ``.data``: the answer built as the schema    -
#   CancelledElicitation  Context.elicit_url (section 12)     an action the client did not send right      -
#   _cleandoc             _Tool.__init__ (section 9)          a description from the docstring             -
#   FunctionResource      MCPServer.resource (section 14)     a function read as a resource                -
#   _lifespan             _StdioServer.serve (section 18)     MCPServer(lifespan=...): entered before      -
#                                                             serving, on the tools' event loop
#   _resource_security_refuses  _find_resource (section 10)   the default ResourceSecurity: a traversal,   -
#                                                             a NUL or an absolute path is no resource
#   _contents_read        Context.read_resource (section 12)  ctx.read_resource: ReadResourceContents      -
#   _elicitation_outcome  Context.elicit (section 12)         an answer as Accepted-, Declined- or         -
#                                                             CancelledElicitation, ``.data`` built
#   UserMessage           _message (section 11)               a prompt's string as the SDK's message       -
#   _CompletionArgument   _complete (section 11)              the completion handler's arguments, as the   -
#                                                             SDK's models
#   _CompletionContext    _complete (section 11)              its context (the arguments resolved so far)  -
#   ResourceTemplateReference  _completable (section 11)      a template's ref, as the SDK's model         -
#   PromptReference       _completable (section 11)           a prompt's ref, as the SDK's model           -
#   Completion            _completion_wire (section 11)       a handler's answer, as the SDK's model       -
#   _AwaitableAnswer      _Request.ask (section 12)           an async tool awaits the client's answer on  -
#                                                             its loop: the SDK's Context is async
#
# README: as in section 22's table.  test_context checks these on the wire.
#
# A tool parameter annotated ``Annotated[T, Resolve(fn)]`` is no argument (not in
# inputSchema): the server fills it by running ``fn`` before the tool, as the
# SDK's mcp.server.mcpserver.resolve does.  A resolver takes the Context, tool
# arguments by name, and other resolvers' values (a DAG, each run once per
# call), and may return a question, Elicit, Sample or ListRoots, whose answer is
# injected: the whole outcome for ``Annotated[ElicitationResult[T], ...]``, the
# accepted value for ``Annotated[T, ...]`` (decline or cancel end the call).
#
#   handshake   each question is a request to the client, as ctx.elicit's
#   2026-07-28  every question unanswered this round, together, in one
#               InputRequiredResult keyed by the resolver's "module:qualname";
#               the answers ride the signed requestState with a digest of each
#               question, so a question asked differently is asked again
#
# A question the client did not declare the capability for is -32021 in both
# eras (the SDK's rule for resolvers), worded as the SDK words it.


class Resolve:
    """``Annotated[T, Resolve(fn)]``: the parameter is ``fn``'s value, not an argument."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        if not callable(fn):
            raise TypeError(f"Resolve() takes a function, not {type(fn).__name__}")
        self.fn = fn


class Elicit:
    """A resolver's question to the user (form elicitation): ``Elicit(message, Schema)``;
    ``Elicit[Schema]`` as a return annotation."""

    def __init__(self, message: str, schema: Any) -> None:
        self.message, self.schema = message, schema
        self.requested = _elicitation_schema(schema)  # a schema that cannot be asked fails here

    def __class_getitem__(cls, item: Any) -> Any:
        return cls


class Sample:
    """A resolver's request to the client's model (sampling/createMessage), with
    the options of ``ctx.session.create_message``; ``tools`` or ``tool_choice``
    need the client's ``sampling.tools``."""

    def __init__(self, messages: List[Any], *, max_tokens: int, **options: Any) -> None:
        self.messages, self.max_tokens, self.options = messages, max_tokens, options


class ListRoots:
    """A resolver's request for the client's roots (roots/list)."""


_QUESTIONS = (Elicit, Sample, ListRoots)


class _Resolver:
    """One resolver, analysed at registration: how each parameter is filled
    (("context", whether it takes the SDK's Context), ("argument", None) or
    ("resolve", (Resolve, whole outcome))),
    and its key on the wire."""

    __slots__ = ("fn", "name", "params", "is_async", "key")

    def __init__(self, fn: Callable[..., Any], params: List[Tuple[str, str, Any]], key: str) -> None:
        self.fn, self.params, self.key = fn, params, key
        self.name = getattr(fn, "__name__", None) or type(fn).__name__
        self.is_async = _is_async(fn)


def _resolve_marker(tp: Any) -> Optional[Tuple[Resolve, bool]]:
    """(the Resolve, whether the whole outcome is wanted) of ``Annotated[T, Resolve(fn)]``."""
    if not _is_annotated(tp):
        return None
    marker = next((m for m in tp.__metadata__ if isinstance(m, Resolve)), None)
    if marker is None:
        return None
    inner = _args(tp)[0] if _args(tp) else _origin(tp)
    members = _args(inner) if _is_union(inner) else (inner,)
    return marker, any(_is_subclass(m, ElicitationResult) for m in members)


def _buried_resolve(tp: Any) -> bool:
    if _is_annotated(tp):
        return any(isinstance(m, Resolve) for m in tp.__metadata__)
    return any(_buried_resolve(arg) for arg in _args(tp))


def _resolved_parameters(fn: Callable[..., Any], fn_name: str) -> Dict[str, Tuple[Resolve, bool]]:
    """The parameters of ``fn`` that resolvers fill, in order."""
    hints = _hints_or_none(fn)
    resolved = {}
    for name, tp in hints.items():
        found = None if name == "return" else _resolve_marker(tp)
        if found is not None:
            resolved[name] = found
        elif name != "return" and _buried_resolve(tp):
            raise InvalidSignature(f"Parameter {name!r} of {fn_name!r} wraps `Resolve(...)` in a union; annotate "
                                   "the parameter directly as `Annotated[T, Resolve(...)]`")
    return resolved


def _hints_or_none(fn: Any) -> Dict[str, Any]:
    """A function's or a callable object's annotations; none when they cannot be
    read (the SDK's tolerance: such a resolver takes only arguments by name)."""
    target = fn if hasattr(fn, "__code__") or hasattr(fn, "__func__") else type(fn).__call__  # an object's method
    try:
        return {} if isinstance(fn, type) else _type_hints(_unwrapped(target))
    except InvalidSignature:
        return {}


def _resolvers_of(fn: Callable[..., Any], tool_name: str, arguments: List[str],
                  returns: Any) -> Optional[Tuple[Dict[str, Tuple[Resolve, bool]], Dict[Any, _Resolver]]]:
    """A tool's resolved parameters and its resolvers (the DAG, each once), or
    None when it has none; InvalidSignature for what cannot be resolved."""
    resolved = _resolved_parameters(fn, tool_name)
    if not resolved:
        return None
    if _has_input_required(returns):
        raise InvalidSignature(f"Tool {tool_name!r} combines Resolve(...) parameters with an InputRequiredResult "
                               "return; a call has one input_required channel, so the multi-round flow is driven "
                               "either by resolvers or by the tool body, not both")
    plans: Dict[Any, _Resolver] = {}
    bases: Dict[str, int] = {}

    def analyse(fn: Callable[..., Any], stack: Tuple[Any, ...]) -> None:
        identity = _resolver_identity(fn)
        name = getattr(fn, "__name__", None) or type(fn).__name__
        if identity in stack:
            raise InvalidSignature(f"Resolver {name!r} has a cyclic dependency")
        if identity in plans:
            return
        # The wire key outlives the process (a retry may reach another): module and
        # qualified name, numbered when two resolvers share them (closures).
        base = (f"{getattr(fn, '__module__', None) or type(fn).__module__}:"
                f"{getattr(fn, '__qualname__', None) or type(fn).__qualname__}")
        seen = bases[base] = bases.get(base, -1) + 1
        hints = _hints_or_none(fn)
        params: List[Tuple[str, str, Any]] = []
        for param, _, _ in _parameters(fn, name):
            tp = hints.get(param)
            marker = _resolve_marker(tp)
            if tp is not None and _is_context(_args(tp)[0] if _is_annotated(tp) else tp):
                params.append((param, "context", _takes_sdk_context(fn, param)))  # section 26
            elif marker is not None:
                params.append((param, "resolve", marker))
            elif param in arguments:
                params.append((param, "argument", None))
            else:
                raise InvalidSignature(f"Resolver {name!r} parameter {param!r} cannot be resolved: expected a "
                                       "Context, an Annotated[_, Resolve(...)], or a tool argument by name")
        returned = hints.get("return")
        arms = _args(returned) if _is_union(returned) else (returned,)
        if sum(1 for arm in arms if any(_is_subclass(arm, kind) for kind in _QUESTIONS)) > 1:
            raise InvalidSignature(f"Resolver {name!r} return annotation has multiple Elicit/Sample/ListRoots arms; "
                                   "a resolver asks one question - split it into separate resolvers")
        plans[identity] = _Resolver(fn, params, base if not seen else f"{base}#{seen}")
        for _, kind, detail in params:
            if kind == "resolve":
                analyse(detail[0].fn, stack + (identity,))

    for marker, _ in resolved.values():
        analyse(marker.fn, ())
    return resolved, plans


def _resolver_identity(fn: Any) -> Any:
    """A bound method is made anew at each access: its function and object
    identify it (two references to ``auth.login`` are one resolver)."""
    owner = getattr(fn, "__self__", None)
    if owner is not None:
        func = getattr(fn, "__func__", None)
        return (id(func) if func is not None else getattr(fn, "__name__", id(fn)), id(owner))
    return id(fn)


class _Unanswered(Exception):
    """A resolver waits for an answer of a later round (2026-07-28)."""


async def _resolve_parameters(tool: _Tool, kwargs: Dict[str, Any], request: _Request,
                              server: MCPServer) -> Dict[str, Any]:
    """The values of a tool's resolved parameters; in 2026-07-28, an _InputRequired
    when some question waits for the client (every one of them asked at once)."""
    assert tool.resolved is not None
    resolution = _Resolution(tool, kwargs, Context(request, server), request)
    values = {}
    for name, (marker, whole) in tool.resolved[0].items():
        try:
            outcome = await resolution.value_of(marker.fn)
        except _Unanswered:
            continue
        values[name] = outcome if whole else _accepted_value(outcome, name)
    if request.wanted:
        request.user_state = json.dumps({"q": resolution.digests}, separators=(",", ":"))
        raise _InputRequired()
    return values


def _accepted_value(outcome: ElicitationResult, name: str) -> Any:
    if isinstance(outcome, AcceptedElicitation):
        return outcome.data
    raise ToolError(f"Resolver for parameter {name!r} could not resolve: elicitation was {outcome.action}")


class _Resolution:
    """One call's walk of its resolvers."""

    def __init__(self, tool: _Tool, kwargs: Dict[str, Any], ctx: Context, request: _Request) -> None:
        assert tool.resolved is not None
        self.plans, self.ctx, self.request = tool.resolved[1], ctx, request
        self.arguments = {p.name: kwargs.get(p.name, p.default) for p in tool.params}
        self.done: Dict[Any, ElicitationResult] = {}
        self.digests: Dict[str, str] = {}  # 2026-07-28: the question each key asked, or was answered
        asked = None
        if request.stateless and request.user_state:
            try:
                asked = json.loads(request.user_state).get("q")
            except (ValueError, AttributeError):
                asked = None
        self.asked: Dict[str, Any] = asked if isinstance(asked, dict) else {}

    async def value_of(self, fn: Callable[..., Any]) -> ElicitationResult:
        identity = _resolver_identity(fn)
        if identity in self.done:
            return self.done[identity]
        plan = self.plans[identity]
        if plan.key in self.request.wanted:
            raise _Unanswered()  # asked already this round, for another parameter
        kwargs: Dict[str, Any] = {}
        waiting = False
        for name, kind, detail in plan.params:
            if kind == "context":  # the SDK's Context gets the SDK's models, as a tool's does
                kwargs[name] = Context(self.ctx._request, self.ctx._server, sdk_models=True) if detail else self.ctx
            elif kind == "argument":
                kwargs[name] = self.arguments[name]
            else:
                try:  # every dependency, so that all the questions of a round go together
                    outcome = await self.value_of(detail[0].fn)
                except _Unanswered:
                    waiting = True
                    continue
                kwargs[name] = outcome if detail[1] else _accepted_value(outcome, name)
        if waiting:
            raise _Unanswered()
        value = await _run_resolver(plan, kwargs)
        result = await self.ask(value, plan.key) if isinstance(value, _QUESTIONS) else AcceptedElicitation(value)
        self.done[identity] = result
        return result

    async def ask(self, question: Any, key: str) -> ElicitationResult:
        request = self.request
        method, params, capability, what = _resolver_question(question, request.version)
        if not request.stateless:
            if request._missing(capability) is not None and request.conn is not None:
                raise _CapabilityMissing(capability, f"Client did not declare the {what} capability required by "
                                                     f"resolver {key!r}")
            if isinstance(question, Elicit):
                try:
                    return await self.ctx.elicit(question.message, question.schema)  # type: ignore[no-any-return]
                except ValidationError as exc:
                    raise ToolError(f"Resolver {key!r}: {exc}") from None
            return AcceptedElicitation(await request.ask(method, params, capability, _JsonObject))
        import hashlib

        wire = {"method": method, "params": params}
        digest = hashlib.sha256(json.dumps(wire, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:32]
        answer = request.answers.get(key)
        if answer is not None and self.asked.get(key) != digest:
            answer = None  # an answer to another question (the server changed meanwhile): ask again
        self.digests[key] = digest
        if answer is None:
            if request._missing(capability) is not None:
                raise _CapabilityMissing(capability, f"Client did not declare the {what} capability required by "
                                                     f"resolver {key!r}")
            request.wanted[key] = wire
            raise _Unanswered()
        request.used[key] = answer
        return _resolver_answer(question, key, answer)


async def _run_resolver(plan: _Resolver, kwargs: Dict[str, Any]) -> Any:
    """A resolver's value: a sync one on a thread of its own when an event loop
    runs here (as the SDK does), so that it may wait; an async one awaited."""
    if plan.is_async:
        if _in_event_loop():
            return await plan.fn(**kwargs)
        return _call(plan.fn, **kwargs)  # a sync tool's call: on an event loop of its own
    if _in_event_loop():
        import asyncio

        return await asyncio.get_running_loop().run_in_executor(None, functools.partial(plan.fn, **kwargs))
    return plan.fn(**kwargs)


def _resolver_question(question: Any, version: Optional[str]) -> Tuple[str, Dict[str, Any], Tuple[str, ...], str]:
    """(method, params, capability, its name in the SDK's words) of a question."""
    if isinstance(question, Elicit):
        requested = question.requested
        if version in STATELESS_VERSIONS:  # as the SDK sends it there: the spec's requestedSchema has no title
            requested = {k: v for k, v in requested.items() if k != "title"}
        params: Dict[str, Any] = {"message": question.message, "requestedSchema": requested}
        if (version or STATELESS_VERSIONS[-1]) >= "2025-11-25":
            params = {"mode": "form", **params}
        return "elicitation/create", params, ("elicitation", "form"), "form elicitation"
    if isinstance(question, Sample):
        tools = question.options.get("tools") is not None or question.options.get("tool_choice") is not None
        return ("sampling/createMessage", _sampling_params(question.messages, question.max_tokens, question.options),
                ("sampling", "tools") if tools else ("sampling",), "sampling.tools" if tools else "sampling")
    return "roots/list", {}, ("roots",), "roots"


def _resolver_answer(question: Any, key: str, answer: Any) -> ElicitationResult:
    """The client's answer (2026-07-28) as the outcome it stands for, checked as the SDK checks it."""
    if not isinstance(question, Elicit):
        needed = ("roots",) if isinstance(question, ListRoots) else ("role", "content", "model")
        if not (isinstance(answer, dict) and all(k in answer for k in needed)):
            raise ToolError(f"Resolver {key!r} received a response of the wrong kind")
        return AcceptedElicitation(_JsonObject(answer))
    outcome = _ELICITATION.get(str(answer.get("action"))) if isinstance(answer, dict) else None
    if outcome is None:
        raise ToolError(f"Resolver {key!r} received a non-elicitation response")
    if outcome is not AcceptedElicitation:
        return outcome()
    if answer.get("content") is None:
        raise ToolError(f"Resolver {key!r} received an accepted elicitation with no content")
    try:
        return outcome(_elicited(question.schema, question.requested, answer["content"]))
    except ValidationError:
        raise ToolError(f"Resolver {key!r} received an accepted elicitation whose content does not match the "
                        "requested schema") from None


class _JsonObject:
    """A JSON object from the client read by attribute, as the SDK's models are:
    ``result.stop_reason`` reads ``stopReason``."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data

    def __getattr__(self, name: str) -> Any:
        data = self.__dict__.get("_data", {})
        first, *rest = name.split("_")
        camel = first + "".join(word.title() for word in rest)
        for key in (name, camel):
            if key in data:
                value = data[key]
                if isinstance(value, dict):
                    return _JsonObject(value)
                if isinstance(value, list):
                    return [_JsonObject(v) if isinstance(v, dict) else v for v in value]
                return value
        if name.startswith("_"):
            raise AttributeError(name)
        return None  # an optional field the client left out

    def model_dump(self, **options: Any) -> Dict[str, Any]:
        return dict(self._data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _JsonObject) and other._data == self._data

    def __repr__(self) -> str:
        return f"JsonObject({self._data!r})"


_RESULT_NAMES = {"elicitation/create": "ElicitResult", "sampling/createMessage": "CreateMessageResult",
                 "roots/list": "ListRootsResult"}


def _answer(method: str, requested: Any, sdk_models: bool, result: Dict[str, Any]) -> Any:
    """ctx.session's view of the client's answer, checked against what was
    asked: the result of that request (the SDK validates it as its model), and
    an accepted form's content against its requestedSchema (client/elicitation).
    It is that model (section 26; the SDK's own to the SDK's Context)."""
    problem = _answer_problem(method, result)
    if problem is not None:
        problem += f" does not fit {_RESULT_NAMES[method]}"
    elif requested is not None and result.get("action") == "accept" and result.get("content") is not None:
        errors: List[_ErrorItem] = []
        _checker(requested, "strict")(result["content"], (), errors)
        if errors:
            problem = _where(result, ("content",) + errors[0].loc) + " does not match the requested schema"
    if problem is not None:
        raise _BadAnswer(INVALID_PARAMS, f"the client's answer to {method} is invalid: {problem}")
    return (_sdk_model if sdk_models else _model_view)(_RESULT_NAMES[method], result)


class _ClientSession:
    """``ctx.session``: what the SDK's ServerSession offers a tool."""

    def __init__(self, request: _Request, sdk_models: bool = False) -> None:
        self._request = request
        self._sdk_models = sdk_models  # the function took the SDK's Context: answers as its classes

    @property
    def client_capabilities(self) -> Optional[_JsonObject]:
        caps = self._request.client_capabilities()
        return None if caps is None else _JsonObject(caps)

    def check_client_capability(self, capability: Any) -> bool:
        """Whether the client declared all of ``capability``, nested keys too."""
        return _declares(self._request.client_capabilities() or {}, _wire_value(capability) or {})

    def create_message(self, messages: List[Any], max_tokens: int, **options: Any) -> Any:
        """sampling/createMessage (client/sampling): the client's model answers.
        Options as the SDK spells them (``system_prompt``, ``temperature``, ...)."""
        params = _sampling_params(messages, max_tokens, options)
        return self._request.ask("sampling/createMessage", params, ("sampling",),
                                 functools.partial(_answer, "sampling/createMessage", None, self._sdk_models))

    def list_roots(self) -> Any:
        """roots/list (client/roots): the client's roots."""
        return self._request.ask("roots/list", {}, ("roots",),
                                 functools.partial(_answer, "roots/list", None, self._sdk_models))

    def elicit_form(self, message: str, requested_schema: Dict[str, Any], related_request_id: Any = None) -> Any:
        """elicitation/create with a schema as JSON: the answer as sent (``.action``, ``.content``).
        ``related_request_id`` only routes the SDK's request (its stream): ours
        always go on the call's own, and it is no param."""
        params = _form_params(self._request, message, _wire_value(requested_schema))
        return self._request.ask("elicitation/create", params, ("elicitation", "form"),
                                 functools.partial(_answer, "elicitation/create", params["requestedSchema"],
                                                   self._sdk_models))

    elicit = elicit_form  # the SDK's older name

    def send_log_message(self, level: str, data: Any, logger: Optional[str] = None, **_: Any) -> _AwaitableValue:
        return Context(self._request).log(level, data, logger_name=logger)

    def report_progress(self, progress: float, total: Optional[float] = None,
                        message: Optional[str] = None) -> _AwaitableValue:
        return Context(self._request).report_progress(progress, total, message)

    def send_tool_list_changed(self) -> _AwaitableValue:
        """As ``ctx.notify_tools_changed()``: to every connection that asked for it."""
        if self._request.conn is not None:
            self._request.conn.server._list_changed("tools")
        return _AwaitableValue()


class _RequestContext:
    """``ctx.request_context``, as the SDK's: ``meta`` a dict with its keys in
    Python's spelling (``meta.get("progress_token")``, or ``meta.progress_token``),
    ``lifespan_context`` what the lifespan yielded."""

    def __init__(self, ctx: Context) -> None:
        self.request_id = ctx.request_id
        self.meta = _Meta({_snake_case(k): v for k, v in ctx._request.meta.items()})
        self.lifespan_context = ctx.lifespan_context
        self.session = ctx.session

    def __class_getitem__(cls, item: Any) -> Any:
        return cls  # ServerRequestContext[L, R], as the SDK's generic is written


class _Meta(Dict[str, Any] if TYPE_CHECKING else dict):  # type: ignore[misc]
    def __getattr__(self, name: str) -> Any:
        return self.get(name)


def _snake_case(key: str) -> str:
    if "/" in key:  # a reserved key (io.modelcontextprotocol/...) stays as it is
        return key
    return "".join("_" + c.lower() if c.isupper() else c for c in key)


def _sampling_params(messages: List[Any], max_tokens: int, options: Dict[str, Any]) -> Dict[str, Any]:
    params: Dict[str, Any] = {"messages": [_wire_value(m) for m in messages], "maxTokens": max_tokens}
    for name, value in options.items():
        # related_request_id picks the SDK's stream for the request, it is no
        # param of it (CreateMessageRequestParams has none): ours go on the call's own.
        if value is not None and name != "related_request_id":
            first, *rest = name.split("_")
            params[first + "".join(word.title() for word in rest)] = _wire_value(value)
    return params


def _declares(declared: Any, wanted: Any) -> bool:
    """Each key of ``wanted`` declared, nested keys too; a value (listChanged: true,
    an experimental setting) declared equal, as the SDK compares them."""
    if not isinstance(wanted, dict):
        return bool(declared == wanted)
    if not wanted:
        return True
    return isinstance(declared, dict) and all(key in declared and _declares(declared[key], value)
                                              for key, value in wanted.items())


def _wire_value(value: Any) -> Any:
    """One of the SDK's models, one of our content blocks, or plain JSON, as JSON."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, _Block):
        return value.to_wire()
    if isinstance(value, dict):
        return {k: _wire_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_wire_value(v) for v in value]
    return _jsonable(value)


class ElicitationResult:
    """The user's answer to ``ctx.elicit``: ``action`` is "accept" (``data``
    holds the answer, converted to the schema's type), "decline" or "cancel"."""

    action = ""

    def __init__(self, data: Any = None) -> None:
        self.data = data

    def __class_getitem__(cls, item: Any) -> Any:
        return cls  # ElicitationResult[T], AcceptedElicitation[T], as the SDK's generics are written

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.data == self.data  # type: ignore[attr-defined, unused-ignore]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(action={self.action!r}, data={self.data!r})"


class AcceptedElicitation(ElicitationResult):
    action = "accept"


class DeclinedElicitation(ElicitationResult):
    action = "decline"


class CancelledElicitation(ElicitationResult):
    action = "cancel"


_ELICITATION = {"accept": AcceptedElicitation, "decline": DeclinedElicitation, "cancel": CancelledElicitation}


class _AwaitableAnswer:
    """An async tool's wait for the client's response, on its event loop: the SDK's
    Context methods are coroutines (_Request.ask, section 12)."""

    def __init__(self, answer: _Answer, timeout: float, convert: Callable[[Dict[str, Any]], Any]) -> None:
        self.answer, self.timeout, self.convert = answer, timeout, convert

    def __await__(self) -> Any:
        return self._wait().__await__()

    async def _wait(self) -> Any:
        import asyncio

        loop = asyncio.get_running_loop()
        arrived = loop.create_future()
        self.answer.then.append(lambda: (loop.call_soon_threadsafe(_wake, arrived), None)[1])
        if self.answer.done.is_set():
            _wake(arrived)
        try:
            await asyncio.wait_for(arrived, self.timeout)
        except asyncio.TimeoutError:
            self.answer.settle(None, {"code": INTERNAL_ERROR,
                                      "message": f"the client did not answer within {self.timeout:g} s"})
        return self.convert(self.answer.value())


def _wake(future: Any) -> None:
    if not future.done():
        future.set_result(None)


def _elicitation_outcome(schema: Any, requested: Dict[str, Any], result: Dict[str, Any], *,
                         sdk: bool = False) -> ElicitationResult:
    """The client's ElicitResult as the SDK's outcome class (the SDK's own to
    the SDK's Context); an accepted one's ``.data`` built as its class."""
    outcome = _ELICITATION.get(str(result.get("action")))
    if outcome is None:
        raise _BadAnswer(INVALID_PARAMS, f"the client's elicitation answer has no valid action: "
                                         f"{_truncated_repr(result.get('action'))}")
    made = outcome() if outcome is not AcceptedElicitation else outcome(_elicited(schema, requested,
                                                                                  result.get("content")))
    return _sdk_elicitation(made) if sdk else made


class TextResource(Resource):
    """A resource whose content is ``text``."""

    def __init__(self, uri: str, text: str = "", **options: Any) -> None:
        super().__init__(uri, **options)
        self.text = text

    def read(self) -> str:
        return self.text


class BinaryResource(Resource):
    """A resource whose content is ``data`` (bytes, sent base64-encoded)."""

    def __init__(self, uri: str, data: bytes = b"", **options: Any) -> None:
        super().__init__(uri, **options)
        self.data = data

    def read(self) -> bytes:
        return self.data


class FileResource(Resource):
    """A file, read when the resource is read: decoded as ``encoding`` and sent
    as text, or sent as bytes when ``encoding`` is None.  By default, as in the
    SDK, the ``charset`` of ``mime_type``, else ``utf-8-sig`` for textual types
    (``text/*``, JSON, XML), else bytes."""

    def __init__(self, uri: str, path: Any = None, encoding: Any = _MISSING, **options: Any) -> None:
        super().__init__(uri, **options)
        if path is None or not os.path.isabs(os.fspath(path)):
            raise ValueError(f"The path of resource {uri} must be absolute, not {path!r}")
        self.path = path
        self.encoding = _file_encoding(self.mime_type) if encoding is _MISSING else encoding
        if self.encoding is not None:
            try:  # an unknown codec, or one that is no text encoding, fails here and not at a read
                b"x".decode(self.encoding)
            except LookupError as exc:
                raise ValueError(f"Resource {uri}: {exc}") from None
            except UnicodeError:
                pass  # a text encoding: the probe byte just does not decode in it

    def read(self) -> Any:
        with open(self.path, "rb") as f:
            data = f.read()
        return data if self.encoding is None else data.decode(self.encoding)


def _file_encoding(mime_type: str) -> Optional[str]:
    essence, *parameters = (part.strip() for part in mime_type.split(";"))
    for parameter in parameters:
        key, _, value = parameter.partition("=")
        if key.strip().lower() == "charset" and value:
            return value.strip().strip('"')
    essence = essence.lower()
    textual = essence.startswith("text/") or essence.endswith(("+json", "+xml")) or essence in (
        "application/json", "application/xml")
    return "utf-8-sig" if textual else None


class FunctionResource(Resource):
    """A function without parameters, called at each read; it returns text,
    bytes, or anything else, sent as JSON text (indented by 2, as the SDK does).
    A parameter annotated Context gets the read's (section 12)."""

    def __init__(self, uri: str, fn: Callable[..., Any], **options: Any) -> None:
        super().__init__(uri, **options)
        self.fn = fn
        self.context_param = _context_parameter(fn)
        self.sdk_models = _takes_sdk_context(fn, self.context_param)  # section 26

    @classmethod
    def from_function(cls, fn: Callable[..., Any], uri: str, name: Optional[str] = None,
                      description: Optional[str] = None, **options: Any) -> FunctionResource:
        name = name or getattr(fn, "__name__", None)
        if not name or name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        if description is None:
            description = _cleandoc(getattr(fn, "__doc__", None))
        return cls(uri, fn, name=name, description=description, **options)

    def read(self) -> Any:
        return self.fn()


def _resource_security_refuses(values: Dict[str, Any]) -> bool:
    """Whether the SDK's default ResourceSecurity refuses a template's values:
    one holds a NUL, a ``..`` that climbs above its start, or an absolute path
    (POSIX or Windows)."""
    return any(_unsafe(v) for value in values.values() for v in (value if isinstance(value, list) else [value]))


def _unsafe(value: str) -> bool:
    """A template value the SDK's default ResourceSecurity refuses: a NUL, a
    ``..`` that climbs above its start, or an absolute path (POSIX or Windows)."""
    if "\0" in value:
        return True
    depth = 0
    for part in value.replace("\\", "/").split("/"):
        depth += -1 if part == ".." else 0 if part in ("", ".") else 1
        if depth < 0:
            return True
    return value[:1] in ("/", "\\") or len(value) > 1 and value[1] == ":" and value[0].isascii() and value[0].isalpha()


def _contents_read(server: MCPServer, uri: str, request: _Request) -> List[_JsonObject]:
    """``ctx.read_resource(uri)``: the SDK's ReadResourceContents, each with
    ``.content`` (text, or bytes for a blob) and ``.mime_type``; its errors as
    ResourceNotFoundError or ResourceError."""
    import base64

    try:
        result, _ = _read_resource(server, uri, request)
    except _RpcError as exc:
        raise _read_failure(exc) from None
    except _Asking:  # its own InputRequiredResult answers a resources/read, not this call
        raise ResourceError(f"Resource {uri} asks the client: read it with resources/read") from None
    return [_JsonObject({"content": c["text"] if "text" in c else base64.b64decode(c.get("blob", "")),
                         "mime_type": c.get("mimeType")}) for c in result["contents"]]


def _lifespan(connection: _StdioServer, step: str) -> None:
    """Enter (before serving) or exit (after) the server's lifespan, on the
    event loop its async tools share (the SDK's ``MCPServer(lifespan=...)``)."""
    if connection.server.lifespan is None:
        return  # (and asyncio, 7 MiB, stays unloaded)
    import asyncio

    if step == "__aenter__":
        connection.manager = connection.server.lifespan(connection.server)
        entered = asyncio.run_coroutine_threadsafe(connection.manager.__aenter__(), connection.event_loop())
        connection.server._lifespan_state = entered.result()
        return
    try:
        leaving = asyncio.run_coroutine_threadsafe(connection.manager.__aexit__(None, None, None),
                                                   connection.event_loop())
        leaving.result(timeout=connection.server.drain_timeout)
    except BaseException as exc:
        _log_exception("leaving the server's lifespan failed", exc)


class UserMessage(Message):
    """A message from the user: ``UserMessage("text")``."""

    def __init__(self, content: Any, role: str = "user", **kwargs: Any) -> None:
        super().__init__(content, role, **kwargs)


class AssistantMessage(Message):
    """A message from the assistant: ``AssistantMessage("text")``."""

    def __init__(self, content: Any, role: str = "assistant", **kwargs: Any) -> None:
        super().__init__(content, role, **kwargs)


class Completion(_Record):
    """What a completion handler returns: ``values`` (at most 100 are sent),
    and optionally ``total`` and ``has_more``."""

    def __init__(self, values: Optional[List[str]] = None, total: Optional[int] = None,
                 has_more: Optional[bool] = None, **kwargs: Any) -> None:
        self.values, self.total = list(values or []), total
        self.has_more = kwargs.get("hasMore", has_more)


class PromptReference(_Record):
    """``ref`` of a completion request for a prompt's argument."""

    def __init__(self, name: str, title: Optional[str] = None, type: str = "ref/prompt") -> None:
        self.type, self.name, self.title = type, name, title


class ResourceTemplateReference(_Record):
    """``ref`` of a completion request for a resource template's variable."""

    def __init__(self, uri: str, type: str = "ref/resource") -> None:
        self.type, self.uri = type, uri


class _CompletionArgument(_Record):
    def __init__(self, name: str, value: str) -> None:
        self.name, self.value = name, value


class _CompletionContext(_Record):
    def __init__(self, arguments: Optional[Dict[str, str]] = None) -> None:
        self.arguments = arguments


# inspect.cleandoc strips all white space before Python 3.13, spaces only from 3.13 on.
_INDENT_CHARS = " " if sys.version_info >= (3, 13) else None


def _cleandoc(doc: Optional[str]) -> str:
    """``inspect.cleandoc(doc)`` without importing inspect, with one difference:
    lines of only white space at either end are dropped, where inspect drops
    only empty ones.  Before Python 3.13 the compiler leaves a docstring's
    indentation in place, so the docstring ``'Text.\\n    '`` would
    otherwise end in a line of four spaces on 3.9-3.12 and not on 3.13."""
    if not doc:
        return ""
    lines = doc.expandtabs().split("\n")
    indents = [len(ln) - len(ln.lstrip(_INDENT_CHARS)) for ln in lines[1:] if ln.lstrip(_INDENT_CHARS)]
    margin = min(indents) if indents else 0
    lines = [lines[0].lstrip(_INDENT_CHARS)] + [ln[margin:] for ln in lines[1:]]
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# 26. SDK fidelity: the SDK's names, objects and errors
# ---------------------------------------------------------------------------
#
# Fenced, as section 22 is.  What a server written for the SDK brings beyond
# its decorators: the names it imports (mcp.types, mcp.server), the SDK's own
# objects it returns, the MCPError it raises, its constructor's keywords and its
# 1.x name, FastMCP; hand-written schemas, as the SDK's low-level Server
# takes them; its Image, Audio and ToolAnnotations, the shape of its event
# store, and how its decorators and registration fail; its extension interface
# (Extension and its bindings, MCPServer(extensions=[...])), MCP Apps, and skills
# through the same interface.  Nothing here costs a server that does not use it.
#
#   hook                  the rule it refines                 what pydantic or the SDK does                README
#   --------------------  ----------------------------------  -------------------------------------------  ------
#   _input_responses      Context.input_responses (section 12)  each answer as the SDK's result class      -
#   _sdk_model,           _answer, _elicitation_outcome       to a function that took the SDK's Context:  -
#   _sdk_elicitation      (section 25)                        the SDK's own classes (ctx.session, elicit)
#   _takes_sdk_context    _Tool.__init__ (section 9)          a function that takes the SDK's Context      -
#   _sdk_prompt           MCPServer.add_prompt (section 14)   the SDK's own Prompt object, registered      -
#                                                             reads the SDK's own models (_sdk_model)
#   _sdk_object           MCPServer._call (section 14),        the SDK's InputRequiredResult, CallTool-     40
#                         Prompt.render, _message (section 11),  Result, GetPromptResult, prompt
#                         _read_resource (section 10)         messages: read as ours
#   _sdk_block            _content_block (section 8)          the SDK's content blocks, Image and Audio   -
#   _SchemaTool           MCPServer.add_tool (section 14)     hand-written inputSchema, outputSchema, as   -
#                                                             the low-level Server's tools/list
#   _protocol_error       MCPServer._stopped (section 14),    an MCPError (ours, the SDK's, 1.x's          -
#                         _failed (section 10)                McpError): its JSON-RPC error, passed on
#   _PassedOn             _Dispatcher.resources_read          that error's code as raised (-32002 too)     -
#                         (section 15)
#   _read_failure         _contents_read (section 25)         a resource's MCPError reaches the tool as    -
#                                                             one
#   _sdk_settings         MCPServer.__init__ (section 14)     the SDK's other keywords; unknown: TypeError  35
#   _data_arms            _output_schema (section 9)          an InputRequiredResult arm is no data: the   -
#                                                             output schema is the rest of the union's
#   _Media                _content_block (section 8),         the SDK's Image and Audio: bytes or a file,  -
#                         _message (section 11)               sent as a base64 block
#   _is_sdk_content       _is_content_class (section 8)       Image, Audio and the SDK's own blocks are    -
#                                                             content blocks (S5)
#   _Events               _HttpApp.__init__ (section 19)      the event store, ours or of the SDK's shape:  -
#                                                             async methods run on a loop of its own; a
#                                                             failing store logged, its message still sent
#   ToolAnnotations       _annotations_wire (section 9)       the SDK's class for a tool's hints, its      -
#                                                             keywords in Python's spelling
#   _called_bare          MCPServer.tool (section 14),        a decorator used without its call: the SDK's  -
#                         MCPServer.resource, MCPServer.prompt  TypeError, in its words
#   _kept_first           MCPServer.add_tool (section 14),    a name registered again: the first stays,    -
#                         add_resource, add_prompt            with a warning (warn_on_duplicate_tools)
#   _sdk_model_json       _annotations_wire (section 9),      one of the SDK's models (ToolAnnotations,    -
#                         _resource_annotations (section 10)  Annotations) as the JSON it sends
#   EventMessage          EventStore.replay_events_after (section 20)  the SDK's EventMessage: a replayed    -
#                                                             message and its event id, as its callback
#                                                             takes them
#   _apply_extension      MCPServer._add_extensions           MCPServer(extensions=[...]): the SDK's       -
#                         (section 14)                        Extension objects (and Apps) onto the
#                                                             core's tables of extensions and methods
#   _intercepted          MCPServer._calling (section 14)     the extensions' intercept_tool_call around   -
#                                                             tools/call, the first given outermost
#
# README: as in section 22's table.  test_sdk_names, test_sdk_objects,
# test_sdk_errors and test_hand_written check these on the wire.


# -- the SDK's names a server file imports (mcp.types, mcp.server) ------------------
#
# Each is a small class made at its first import (module __getattr__, below): a
# dict of its JSON, camelCase keys and unset fields left out, so that wherever
# mcp_ref sends JSON it goes as it is (an InputRequiredResult's question, an
# EmbeddedResource's contents); read by attribute in Python's spelling, as the
# SDK's models are (``result.content.text``, ``params.uri``).  A field is
# "name", "name!" (required), "name:Kind" (a nested object read as Kind),
# "name=value" (a default); ``<Base`` names the base class.  A keyword the
# model does not have is a TypeError (the SDK's models keep it).

_SDK_MODELS = {
    "EmptyResult": "", "InputRequest": "",  # InputRequest: the three questions of an InputRequiredResult
    "CreateMessageRequest": "<InputRequest method=sampling/createMessage params!:CreateMessageRequestParams",
    "CreateMessageRequestParams": "messages!:SamplingMessage max_tokens! system_prompt include_context temperature "
                                  "stop_sequences metadata model_preferences tools tool_choice _meta",
    "CreateMessageResult": "role! content!:_JsonObject model! stop_reason _meta",
    "SamplingMessage": "role! content!:_JsonObject _meta",
    "ElicitRequest": "<InputRequest method=elicitation/create params!:ElicitRequestFormParams",
    "ElicitRequestFormParams": "mode=form message! requested_schema! _meta",
    "ElicitResult": "action! content _meta",
    "ListRootsRequest": "<InputRequest method=roots/list params",
    "ListRootsResult": "roots!:Root _meta", "Root": "uri! name _meta",
    "SetLevelRequestParams": "level! _meta", "SubscribeRequestParams": "uri! _meta",
    "CallToolRequestParams": "name! arguments _meta",
    "UnsubscribeRequestParams": "uri! _meta",
    "TextResourceContents": "uri! mime_type _meta text!", "BlobResourceContents": "uri! mime_type _meta blob!",
}
# Already here under another name (section 25), or no class: what the SDK's name stands for.
_SDK_ALIASES = {"CompletionArgument": "_CompletionArgument", "CompletionContext": "_CompletionContext",
                "ServerRequestContext": "_RequestContext"}
# Declared without a value, for readers and checkers: __getattr__ makes each.
EmptyResult: Any
InputRequest: Any
CallToolRequestParams: Any
CreateMessageRequest: Any
CreateMessageRequestParams: Any
CreateMessageResult: Any
SamplingMessage: Any
ElicitRequest: Any
ElicitRequestFormParams: Any
ElicitResult: Any
ListRootsRequest: Any
ListRootsResult: Any
Root: Any
SetLevelRequestParams: Any
SubscribeRequestParams: Any
UnsubscribeRequestParams: Any
TextResourceContents: Any
BlobResourceContents: Any
EventCallback: Any
JSONRPCMessage: Any
CallNext: Any  # an interceptor's call_next, HandlerResult what it gives (mcp.server.context)
HandlerResult: Any
Visibility: Any  # where an Apps tool is shown (mcp.server.apps)
CompletionArgument: Any
CompletionContext: Any
ServerRequestContext: Any
URL_ELICITATION_REQUIRED = -32042  # 2025-11-25 client/elicitation: the URL elicitations a request waits for


class _Model(dict):  # type: ignore[type-arg]
    """One of the SDK's models (_SDK_MODELS) as its JSON, read by attribute."""

    _fields: Tuple[Tuple[str, str, Any, str], ...] = ()  # (attribute, JSON key, default, kind)

    def __init__(self, **values: Any) -> None:
        super().__init__()
        unknown = [name for name in values if not any(name in field[:2] for field in self._fields)]
        if unknown:
            raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {unknown[0]!r}")
        for attr, key, default, _ in self._fields:
            value = values[attr] if attr in values else values.get(key, default)
            if value is _MISSING:
                raise TypeError(f"{type(self).__name__}() missing required keyword argument: {attr!r}")
            if value is not None:
                self[key] = _wire_value(value)

    def __getattr__(self, name: str) -> Any:
        field = next((f for f in type(self)._fields if f[0] == name), None)
        if field is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        value, kind = self.get(field[1]), field[3]
        if kind and isinstance(value, list):
            return [_model_view(kind, v) for v in value]
        return _model_view(kind, value) if kind else value

    def __setattr__(self, name: str, value: Any) -> None:
        key = next((f[1] for f in type(self)._fields if f[0] == name), None)
        if key is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self.pop(key, None)
        if value is not None:
            self[key] = _wire_value(value)

    def __repr__(self) -> str:
        shown = ", ".join(f"{attr}={self[key]!r}" for attr, key, _, _ in self._fields if key in self)
        return f"{type(self).__name__}({shown})"


def _model_view(kind: str, value: Any) -> Any:
    """A nested JSON object read as ``kind`` (one of _SDK_MODELS, or _JsonObject)."""
    if not isinstance(value, dict):
        return value
    if kind == "_JsonObject":
        return _JsonObject(value)
    view = dict.__new__(_sdk_name(kind))
    dict.update(view, value)
    return view


def _sdk_name(name: str) -> Any:
    """One of the SDK's names (_SDK_MODELS, _SDK_ALIASES), made once."""
    found = globals().get(name)
    if found is not None:
        return found
    if name in _SDK_ALIASES:
        found = globals()[_SDK_ALIASES[name]]
    elif name == "JSONRPCMessage":
        found = bytes  # what an event store is given and gives back here: the message's JSON, encoded
    elif name == "EventCallback":
        import collections.abc

        found = collections.abc.Callable[[EventMessage], collections.abc.Awaitable[None]]
    elif name in ("CallNext", "HandlerResult", "Visibility"):  # (typing: loaded only for these)
        import typing

        found = {"CallNext": typing.Callable[[typing.Any], typing.Awaitable[typing.Any]],
                 "HandlerResult": typing.Any, "Visibility": typing.Literal["model", "app"]}[name]
    else:
        spec = _SDK_MODELS[name].split()
        base = _sdk_name(spec.pop(0)[1:]) if spec and spec[0].startswith("<") else _Model
        fields = []
        for token in spec:
            token, _, default = token.partition("=")
            token, _, kind = token.partition(":")
            attr = token.rstrip("!").lstrip("_")
            first, *rest = attr.split("_")
            key = "_meta" if token == "_meta" else first + "".join(word.title() for word in rest)
            fields.append((attr, key, _MISSING if token.endswith("!") else default or None, kind))
        found = type(name, (base,), {"_fields": tuple(fields), "__module__": __name__})
    globals()[name] = found
    return found


def _input_responses(responses: Dict[str, Any], sdk_models: bool = False) -> Dict[str, Any]:
    """ctx.input_responses as the SDK gives them: each answer the result its
    shape is (ElicitResult, ListRootsResult, CreateMessageResult, as pydantic's
    smart union picks), still the client's JSON underneath; to a function that
    took the SDK's own Context, the SDK's own models (mcp.types), as it checks
    them with isinstance."""
    kinds = (("action", "ElicitResult"), ("roots", "ListRootsResult"), ("model", "CreateMessageResult"))
    view = _sdk_model if sdk_models else _model_view
    return {key: next((view(kind, answer) for field, kind in kinds
                       if isinstance(answer, dict) and field in answer), answer)
            for key, answer in responses.items()}


def _sdk_model(kind: str, value: Dict[str, Any]) -> Any:
    """The SDK's own model ``kind`` of ``value``; ours where it refuses the value."""
    try:
        return getattr(sys.modules["mcp.types"], kind).model_validate(value)
    except Exception:  # (no mcp.types loaded, or pydantic's ValidationError): the value as ours
        return _model_view(kind, value)


def _sdk_elicitation(outcome: Any) -> Any:
    """ctx.elicit's outcome as the SDK's own class of mcp.server.elicitation;
    ours where it refuses the value (a dict schema's data: no BaseModel)."""
    try:
        made = getattr(sys.modules["mcp.server.elicitation"], type(outcome).__name__)
        return made(data=outcome.data) if isinstance(outcome, AcceptedElicitation) else made()
    except Exception:  # (no mcp.server.elicitation loaded, or pydantic's ValidationError)
        return outcome


def _sdk_prompt(prompt: Any) -> Prompt:
    """The SDK's own Prompt (``Prompt.from_function`` of mcp.server.mcpserver) as ours."""
    if type(prompt).__name__ != "Prompt" or not type(prompt).__module__.startswith("mcp.") or \
            not callable(getattr(prompt, "fn", None)):
        raise TypeError(f"add_prompt takes a Prompt, not {type(prompt).__name__}")
    return Prompt(prompt.fn, prompt.name, prompt.title, prompt.description, prompt.icons)


def _takes_sdk_context(fn: Any, context_param: Optional[str]) -> bool:
    """Whether ``fn``'s Context parameter is annotated with the SDK's own Context."""
    if context_param is None:
        return False
    try:
        tp = _type_hints(_unwrapped(fn)).get(context_param)
    except InvalidSignature:
        return False
    tp = _origin(tp) or tp
    return isinstance(tp, type) and tp.__module__.startswith("mcp.") and not _is_subclass(tp, Context)


_SDK_TYPES = ("JSONRPCMessage", "EventCallback", "CallNext", "HandlerResult", "Visibility")  # (annotations)


def __getattr__(name: str) -> Any:  # PEP 562: the SDK's names, made when first imported
    if name in _SDK_MODELS or name in _SDK_ALIASES or name in _SDK_TYPES:
        return _sdk_name(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- the SDK's own objects ----------------------------------------------------------
#
# A server written for the SDK returns its models (mcp.types, that is mcp_types,
# and its prompt messages).  Where a rule classifies a value, _sdk_object makes
# such a model our own class; a model inside ours (an EmbeddedResource's
# contents, an Icon) goes out as the SDK sends it (_wire_value: by alias, no null).
# The class's module decides: a value not from the SDK imports nothing.


def _sdk_object(value: Any, rule: str) -> Any:
    """Our equivalent of the SDK's model, when it is one that ``rule`` (a key of
    _SDK_TAKEN) takes; anything else as it is."""
    accepted = _SDK_TAKEN[rule]
    for cls in type(value).__mro__[:-1]:  # a subclass of the SDK's model too
        if cls.__name__ in accepted and cls.__module__.split(".")[0] in ("mcp", "mcp_types"):
            return _SDK_OBJECTS[cls.__name__](value)
    return value


_SDK_OBJECTS: Dict[str, Callable[[Any], Any]] = {
    "InputRequiredResult": lambda v: InputRequiredResult(v.input_requests, v.request_state),
    "CallToolResult": lambda v: CallToolResult(v.content, v.structured_content, bool(v.is_error), v.meta),
    "GetPromptResult": lambda v: [_sdk_object(m, "message") for m in v.messages],  # (the SDK: its JSON text)
    **dict.fromkeys(("PromptMessage", "Message", "UserMessage", "AssistantMessage"),
                    lambda v: Message(v.content, v.role)),
}
# What each rule takes of them; the SDK reads any other model as a value (a prompt's: its JSON text).
_SDK_MESSAGES = ("PromptMessage", "Message", "UserMessage", "AssistantMessage")
_SDK_TAKEN: Dict[str, Tuple[str, ...]] = {
    "tool": ("InputRequiredResult", "CallToolResult"), "resource": ("InputRequiredResult",),
    "prompt": ("InputRequiredResult", "GetPromptResult") + _SDK_MESSAGES, "message": _SDK_MESSAGES}


def _sdk_block(value: Any) -> Optional[Dict[str, Any]]:
    """One of the SDK's content blocks as the SDK sends it; its Image and Audio
    helpers as the block they make."""
    for make in ("to_image_content", "to_audio_content"):
        if hasattr(value, make):
            value = getattr(value, make)()
    return value.model_dump(mode="json", by_alias=True, exclude_none=True) if hasattr(value, "model_dump") else None


# -- hand-written schemas -----------------------------------------------------------
#
# add_tool(fn, input_schema=..., output_schema=...) publishes a schema as written
# (every 2020-12 keyword: $defs, $anchor, if/then/else), as the SDK's low-level
# Server allows.  Servers MUST validate all tool inputs (server/tools, "Security
# Considerations"): strictly against it (section 6), then handed over by keyword as
# JSON values.  A result is checked as its JSON against the outputSchema, unwrapped.


class _SchemaTool(_Tool):
    """A tool with a hand-written inputSchema, outputSchema or both; the other
    one, if any, comes from the signature as for any tool."""

    def __init__(self, fn: Callable[..., Any], name: Optional[str], title: Optional[str], description: Optional[str],
                 annotations: Any, icons: Any, meta: Any, structured_output: Optional[bool], input_schema: Any,
                 output_schema: Any) -> None:
        self._takes: Any = None  # the argument names the function takes (True: all); None: the signature's
        if input_schema is None:
            super().__init__(fn, name, title, description, annotations, icons, meta, False)
        else:
            self.fn, self.title, self.annotations, self.icons, self.meta = fn, title, annotations, icons, meta
            self.name = str(name or getattr(fn, "__name__", ""))
            if self.name in ("", "<lambda>"):
                raise InvalidSignature("You must provide a name for lambda functions")
            self.description = description or _cleandoc(getattr(fn, "__doc__", None))
            self.is_async, self.params, self.resolved = _is_async(fn), [], None
            self.context_param = _context_parameter(fn)
            self.sdk_models = _takes_sdk_context(fn, self.context_param)
            self.input_schema, self._input_check = _hand_written(input_schema, "inputSchema", self.name)
            self.input_title = self.input_schema.get("title", f"{self.name}Arguments")
            self._takes = _keywords_taken(fn, self.name, self.input_schema, self.context_param)
            if output_schema is None:  # the return annotation's, as _Tool.__init__ makes it
                annotation = _hints_or_none(fn).get("return", _MISSING)
                self.output_schema, self.wrap, self.validate_ctr, out_kinds, self._output_adapter = _output_schema(
                    self.name, annotation, structured_output)
                self._output_check = _checker(self.output_schema, "output", out_kinds) \
                    if self.output_schema and self._output_adapter is None else None
                self.output_title = (self.output_schema or {}).get("title", "Output")
        if output_schema is not None:
            self.output_schema, self._output_check = _hand_written(output_schema, "outputSchema", self.name)
            self.wrap, self.validate_ctr, self._output_adapter = False, True, None
            self.output_title = self.output_schema.get("title", "Output")

    def arguments(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        if self._takes is None:
            return super().arguments(arguments)
        errors: List[_ErrorItem] = []
        self._input_check(arguments, (), errors)
        if errors:
            raise ValidationError(errors, self.input_title)
        return {k: v for k, v in arguments.items() if self._takes is True or k in self._takes}

    def check_output(self, value: Any) -> Any:
        return super().check_output(_jsonable(value))


def _hand_written(schema: Any, key: str, tool: str) -> Tuple[Dict[str, Any], _Checker]:
    """A copy of the schema as JSON, and its strict checker; InvalidSignature when it is no
    object schema (server/tools: both schemas have type "object") or cannot be compiled."""
    try:
        copy = json.loads(json.dumps(schema, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InvalidSignature(f"Tool {tool}: its {key} is not JSON ({exc})") from None
    if not isinstance(copy, dict) or copy.get("type") != "object":
        raise InvalidSignature(f'Tool {tool}: its {key} must be a JSON Schema object with "type": "object"')
    try:
        return copy, _checker(copy)
    except Exception as exc:
        raise InvalidSignature(f"Tool {tool}: its {key} cannot be compiled: {type(exc).__name__}: {exc}") from None


def _keywords_taken(fn: Callable[..., Any], tool: str, schema: Dict[str, Any], context_param: Optional[str]) -> Any:
    """The argument names ``fn`` takes (True with ``**kwargs``: all); InvalidSignature when a property
    names no parameter or a parameter without a default is no property: no call fails on the signature."""
    parameters = [p for p in _parameters(fn, tool) if p[0] != context_param]
    properties = set(schema.get("properties") or ())
    if _resolved_parameters(fn, tool):
        raise InvalidSignature(f"Tool {tool}: Resolve(...) parameters need the inputSchema of the signature")
    bare = [n for n, kind, default in parameters if default is _MISSING and kind != _VAR_POSITIONAL
            and kind != _VAR_KEYWORD and (kind == _POSITIONAL_ONLY or n not in properties)]
    if bare:
        raise InvalidSignature(f"Tool {tool}: parameters {bare} have no default and are not properties of its "
                               "inputSchema (or are positional-only)")
    if any(kind == _VAR_KEYWORD for _, kind, _ in parameters):
        return True
    named = {n for n, kind, _ in parameters if kind in (_ORDINARY, _KEYWORD_ONLY)}
    if properties - named:
        raise InvalidSignature(f"Tool {tool}: the properties {sorted(properties - named)} of its inputSchema name "
                               "no parameter; take them by name, or all with **arguments")
    return frozenset(named)


# -- the SDK's constructor keywords, its requestState policy, and its 1.x name ---------

# The SDK's MCPServer keywords beyond ours: None, taken (used, or of no effect here); else refused, saying why.
_SDK_KEYWORDS: Dict[str, Optional[str]] = dict.fromkeys((
    "debug", "log_level", "dependencies", "warn_on_duplicate_resources", "warn_on_duplicate_tools",
    "warn_on_duplicate_prompts", "auth", "token_verifier", "resources", "request_state_security"))
_SDK_KEYWORDS.update({
    "auth_server_provider": "no authorization server here; token_verifier= (with auth=) checks bearer tokens",
    "tools": "register functions with add_tool() or @server.tool()",
    "middleware": "wrap streamable_http_app(), a WSGI app", "subscriptions": "subscriptions/listen is served here",
    "cache_hints": "cache_ttl_ms= and cache_scope= set them", "resource_security": "the default policy applies"})


_STATE_FIXED = ("mcp_ref's requestState lives 600 seconds and is bound to the bearer token's principal: ttl= "
                "and bind_principal= cannot change that")


def _sdk_settings(server: MCPServer, name: Optional[str], state_key: Any, settings: Dict[str, Any],
                  scope_hierarchy: Any = None) -> Dict[str, Any]:
    """MCPServer's other keywords, as Python refuses an unknown one; the SDK's
    request_state_security mapped onto section 13's signing key; the SDK's
    token_verifier and auth, with mcp_ref's scope_hierarchy, checked (section 21)."""
    for keyword, value in settings.items():
        if keyword not in _SDK_KEYWORDS:
            raise TypeError(f"{type(server).__name__}.__init__() got an unexpected keyword argument {keyword!r}")
        why = _SDK_KEYWORDS[keyword]
        if why is not None and value is not None:
            raise ValueError(f"{keyword}= is not supported by mcp_ref ({why})")
    _auth_needs(settings, scope_hierarchy)  # a token set-up that cannot be served: refused now
    server.scope_hierarchy = scope_hierarchy
    security = settings.get("request_state_security")
    if security is not None:
        ours = isinstance(security, RequestStateSecurity)
        if not ours and (getattr(security, "ttl", None) != _STATE_TTL or getattr(getattr(
                security, "bind_principal", None), "__name__", None) != "authenticated_principal"):
            raise ValueError(_STATE_FIXED)
        if state_key is not None:
            raise ValueError("give request_state_key= or request_state_security=, not both")
        if not name and security.audience is None:
            raise ValueError("request_state_security is configured but this server has no name: the state is bound "
                             "to the server's name; name the server or set RequestStateSecurity(audience=...)")
        audience = security.audience or server.name
        server._state_key = security.key_for(audience) if ours else _SdkStateCodec(security.codec, audience)
    return settings


class RequestStateSecurity:
    """The SDK's policy for the 2026-07-28 requestState (section 13): ``keys=[secret]``
    (32 bytes or more) signs it (HMAC-SHA256) under a key bound to ``audience``
    (by default the server's name).  A key ring, a ``codec``, ``bind_principal``, another ``ttl``: refused."""

    def __init__(self, *, keys: Optional[List[Any]] = None, codec: Any = None, ttl: float = _STATE_TTL,
                 bind_principal: Any = _MISSING, audience: Optional[str] = None) -> None:
        if (keys is None) == (codec is None):
            raise ValueError("RequestStateSecurity takes exactly one of keys= or codec=")
        if keys is None or len(keys) != 1:
            raise ValueError("mcp_ref signs requestState with one key: keys=[secret] (no codec=, no key ring)")
        key = keys[0]
        if not isinstance(key, (bytes, bytearray, str)):
            raise TypeError(f"request-state keys must be bytes, bytearray, or str; keys[0] is {type(key).__name__}")
        self.key = key.encode() if isinstance(key, str) else bytes(key)
        if len(self.key) < 32:
            raise ValueError(f"request-state keys must be at least 32 bytes of secret randomness; keys[0] is "
                             f"{len(self.key)} bytes")
        if ttl != _STATE_TTL or bind_principal is not _MISSING:
            raise ValueError(_STATE_FIXED)
        self.ttl, self.audience = ttl, audience

    @classmethod
    def ephemeral(cls, *, ttl: float = _STATE_TTL, audience: Optional[str] = None) -> RequestStateSecurity:
        return cls(keys=[os.urandom(32)], ttl=ttl, audience=audience)

    def key_for(self, audience: str) -> bytes:
        import hmac

        return hmac.digest(self.key, b"mcp_ref requestState audience\n" + audience.encode(), "sha256")


class _SdkStateCodec:
    """The SDK's own RequestStateSecurity as section 13's key: its codec (AES-GCM) seals the payload
    after the audience; a token it opens goes on signed by this process, for _open_state's checks."""

    def __init__(self, codec: Any, audience: str) -> None:
        self.codec, self.audience, self.local = codec, audience.encode() + b"\0", os.urandom(32)

    def seal(self, payload: bytes) -> str:
        return str(self.codec.seal(self.audience + payload))

    def opened(self, token: Any) -> Tuple[bytes, str]:
        import base64
        import hmac

        try:
            plain = self.codec.unseal(token) if isinstance(token, str) else b""
        except Exception:  # the SDK's InvalidRequestState, or whatever a codec raises for a forged token
            plain = b""
        plain = plain[len(self.audience):] if plain.startswith(self.audience) else b""  # another service's: forged
        body = base64.urlsafe_b64encode(plain or b"-")
        signature = hmac.digest(self.local, body.rstrip(b"="), "sha256") if plain else b""
        return self.local, f"v1.{body.decode().rstrip('=')}.{base64.urlsafe_b64encode(signature).decode().rstrip('=')}"


_SSE_REFUSED = 'mcp_ref does not serve the SSE transport of 2024-11-05: use run(transport="streamable-http")'


class FastMCP(MCPServer):
    """The SDK 1.x name (``from mcp.server.fastmcp import FastMCP``): an MCPServer
    that keeps 1.x's HTTP settings (``host``, ``port``, ``json_response``, ...,
    read as ``mcp.settings.port``) for ``run("streamable-http")``.  Its SSE
    transport (``run("sse")``, ``sse_app()``) is refused."""

    def __init__(self, name: Optional[str] = None, instructions: Optional[str] = None,
                 website_url: Optional[str] = None, icons: Optional[List[Any]] = None, auth_server_provider: Any = None,
                 token_verifier: Any = None, event_store: Any = None, retry_interval: Optional[int] = None, *,
                 host: str = "127.0.0.1", port: int = 8000, mount_path: str = "/", sse_path: str = "/sse",
                 message_path: str = "/messages/",
                 streamable_http_path: str = "/mcp", json_response: bool = False, stateless_http: bool = False,
                 max_request_body_size: Optional[int] = None, transport_security: Any = None, **options: Any) -> None:
        super().__init__(name, instructions=instructions, website_url=website_url, icons=icons,
                         auth_server_provider=auth_server_provider, token_verifier=token_verifier, **options)
        self._http = _drop_none({
            "host": host, "streamable_http_path": streamable_http_path, "json_response": json_response,
            "stateless_http": stateless_http, "max_request_body_size": max_request_body_size,
            "transport_security": transport_security, "event_store": event_store, "retry_interval": retry_interval})
        self.settings = _Meta({**self.settings, **self._http, "port": port, "mount_path": mount_path,
                               "sse_path": sse_path, "message_path": message_path})

    def run(self, transport: str = "stdio", mount_path: Optional[str] = None, **kwargs: Any) -> None:
        """1.x's run: "stdio" or "streamable-http" (on the constructor's host and port)."""
        if transport == "sse":
            raise ValueError(_SSE_REFUSED)
        if transport == "streamable-http":
            kwargs = {"host": self._http["host"], "port": self.settings["port"], **kwargs}
        super().run(transport, **kwargs)

    def streamable_http_app(self, **options: Any) -> Callable[..., Any]:
        return super().streamable_http_app(**{**self._http, **options})

    def sse_app(self, mount_path: Optional[str] = None) -> Any:
        raise ValueError(_SSE_REFUSED)


# -- errors the SDK's way -------------------------------------------------------


def _protocol_error(exc: BaseException) -> Optional[_RpcError]:
    """An MCPError a tool, a resource, a prompt or a completion handler raised:
    ours, the SDK's (``mcp.shared.exceptions.MCPError`` and its subclasses, such
    as UrlElicitationRequiredError) or SDK 1.x's ``McpError``.  The JSON-RPC error
    it carries, as the SDK sends it: its code, message, and data unless None.
    None for any other exception, or for an error no JSON-RPC error can carry."""
    code: Any
    message: Any
    if isinstance(exc, MCPError):
        code, message, data = exc.code, exc.message, exc.data
    elif any(cls.__name__ in ("MCPError", "McpError") and cls.__module__.startswith("mcp.")
             for cls in type(exc).__mro__):
        error = getattr(exc, "error", exc)  # 1.x keeps an ErrorData there; 2.x has both
        code, message, data = (getattr(error, name, None) for name in ("code", "message", "data"))
    else:
        return None
    if not isinstance(code, int) or isinstance(code, bool) or not isinstance(message, str):
        return None  # (an error code is an integer: JSON-RPC 2.0 section 5.1)
    try:
        data = _jsonable(data)  # the SDK dumps ErrorData's data to JSON
    except Exception:  # _NotJSON, a value's own failure: _encode_safely answers -32603
        pass
    return _PassedOn(int(code), message, _MISSING if data is None else data)


class _PassedOn(_RpcError):
    """An MCPError's own JSON-RPC error: sent as raised, its code never renumbered."""


def _read_failure(exc: _RpcError) -> Exception:
    """A failed read as ctx.read_resource raises it: the resource's own MCPError
    stays one (the SDK passes it on); otherwise ResourceNotFoundError or ResourceError."""
    if isinstance(exc, _PassedOn):
        return MCPError(exc.code, exc.message, None if exc.data is _MISSING else exc.data)
    return (ResourceNotFoundError if exc.code == RESOURCE_NOT_FOUND else ResourceError)(exc.message)


def _has_input_required(tp: Any) -> bool:
    if _is_annotated(tp):
        return _has_input_required(_args(tp)[0] if _args(tp) else _origin(tp))
    if _is_union(tp):
        return any(_has_input_required(arg) for arg in _args(tp))
    return _is_input_required(tp)


def _is_input_required(tp: Any) -> bool:
    """InputRequiredResult, ours or the SDK's (mcp.types)."""
    return _is_subclass(tp, InputRequiredResult) or (isinstance(tp, type) and tp.__name__ == "InputRequiredResult"
                                                      and tp.__module__.startswith("mcp"))


def _data_arms(annotation: Any) -> Any:
    """A tool's return annotation without its InputRequiredResult arms, as the
    SDK's func_metadata strips them: a round that asks the client
    (basic/patterns/mrtr) carries no data, so the output schema is the rest of
    the union's (an Annotated around the union dropped, as there); _ABSENT when
    nothing is left: no output schema, and no word on stderr."""
    inner = _origin(annotation) if _is_annotated(annotation) else annotation
    if _is_input_required(inner):
        return _ABSENT
    if not _is_union(inner):
        return annotation
    rest = tuple(arm for arm in _args(inner) if not _is_input_required(arm))
    if len(rest) == len(_args(inner)):
        return annotation
    if not rest:
        return _ABSENT
    import typing  # (a union of types alone, X | Y, can be read without it)

    return rest[0] if len(rest) == 1 else typing.Union[rest]


# -- the SDK's Image and Audio (mcp.server.mcpserver) ------------------------------
#
# Conveniences a tool returns for a content block (S5): bytes or a file, sent
# as section 8's ImageContent or AudioContent, base64-encoded.

class _Media:
    """Shared by ``Image`` and ``Audio``: bytes or a file, sent base64-encoded."""

    _kind = "image"
    _types: Dict[str, str] = {}

    def __init__(self, path: Any = None, data: Optional[bytes] = None, format: Optional[str] = None) -> None:
        if (path is None) == (data is None):
            raise ValueError("Pass exactly one of path or data")
        self.path, self.data, self.format = path, data, format

    def mime_type(self) -> str:
        if self.format:
            return f"{self._kind}/{self.format.lower()}"
        if self.path is not None:
            suffix = os.path.splitext(str(self.path))[1].lower()
            return self._types.get(suffix, "application/octet-stream")
        return f"{self._kind}/{'png' if self._kind == 'image' else 'wav'}"

    def to_block(self) -> ImageContent:
        import base64

        raw = self.data
        if raw is None:
            with open(self.path, "rb") as f:
                raw = f.read()
        cls = ImageContent if self._kind == "image" else AudioContent
        return cls(data=base64.b64encode(raw).decode("ascii"), mime_type=self.mime_type())


class Image(_Media):
    """An image for the model: ``Image(path="chart.png")`` or ``Image(data=b"...", format="png")``."""

    _types = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
              ".webp": "image/webp"}


class Audio(_Media):
    """Audio for the model: ``Audio(path="note.wav")`` or ``Audio(data=b"...", format="wav")``."""

    _kind = "audio"
    _types = {".wav": "audio/wav", ".mp3": "audio/mpeg", ".ogg": "audio/ogg", ".flac": "audio/flac",
              ".m4a": "audio/mp4", ".aac": "audio/aac"}


def _is_sdk_content(tp: Any) -> bool:
    """Image and Audio, and the SDK's own content models (mcp.types) when a
    server still imports them: content blocks, left unstructured (S5)."""
    if isinstance(tp, type) and issubclass(tp, (Image, Audio)):
        return True
    return isinstance(tp, type) and tp.__module__.startswith("mcp") and tp.__name__ in (
        "TextContent", "ImageContent", "AudioContent", "EmbeddedResource", "ResourceLink", "Image", "Audio")


# -- a deployment's event store, of the SDK's EventStore shape ------------------------
#
# Section 20's EventStore keeps a session's streams for Last-Event-ID
# (basic/transports, "Resumability and Redelivery").  A replacement, shared by
# several workers for instance, has the shape of the SDK's EventStore: its two
# methods may be plain or ``async``.  ``store_event(stream_id, message)`` keeps
# ``message`` (the JSON-RPC message as bytes; None for a priming event) and
# returns a new event id, unique across streams, without newlines;
# ``replay_events_after(last_event_id, send_callback)`` calls
# ``send_callback(EventMessage(message, event_id))`` for each message of that
# event's stream stored after it, in order, and returns the stream id (None for
# an id it does not know).  _Events calls it as section 20 needs it, and a
# store that fails costs no message.

class EventMessage:
    """A stored message as EventStore.replay_events_after hands it back (the
    SDK's EventMessage): the JSON-RPC message as bytes, and its event id."""

    __slots__ = ("message", "event_id")

    def __init__(self, message: bytes, event_id: Optional[str] = None) -> None:
        self.message, self.event_id = message, event_id


class _Events:
    """The app's event store as its callers need it: plain calls, whether its
    methods are plain or ``async`` (run then on a loop of their own, never on
    a tool's, which may be the caller)."""

    def __init__(self, store: Any) -> None:
        import inspect

        self.backend = store
        self.own = type(store) is EventStore
        self.is_async = inspect.iscoroutinefunction(store.store_event)
        self.loop: Any = _start_event_loop() if self.is_async else None

    def store(self, stream_id: str, message: Optional[bytes]) -> Optional[str]:
        """The new event's id; None (an event without one) if the store failed."""
        if self.own:  # ours: no await, no failure, ids of digits
            return self.backend.store_event(stream_id, message)  # type: ignore[no-any-return]
        try:
            event_id = str(self._run(self.backend.store_event(stream_id, message)))
        except Exception as exc:  # a store of the deployment's: the message is still sent
            _log_exception("the event store failed", exc)
            return None
        return event_id if event_id and "\n" not in event_id and "\r" not in event_id else None

    def replay(self, last_event_id: str) -> Tuple[Optional[str], List[Tuple[bytes, Optional[str]]]]:
        """The stream id of ``last_event_id`` and what it holds after it."""
        found: List[Tuple[bytes, Optional[str]]] = []

        def keep(event: Any) -> None:
            found.append((event.message, event.event_id))

        async def keep_async(event: Any) -> None:
            keep(event)

        send = keep_async if self.is_async else keep
        try:
            stream_id = self._run(self.backend.replay_events_after(last_event_id, send))
        except Exception as exc:  # as an event id it does not know
            _log_exception("the event store failed", exc)
            return None, []
        return (stream_id if isinstance(stream_id, str) else None), found

    def forget(self, prefix: str) -> None:
        """An ended session's streams dropped, where the store can: the SDK's
        shape has no such method, and a subclass of ours that did not run
        EventStore.__init__ keeps its own storage."""
        forget = getattr(self.backend, "forget", None)
        if forget is None or (getattr(type(self.backend), "forget", None) is EventStore.forget
                              and not hasattr(self.backend, "_lock")):
            return
        try:
            forget(prefix)
        except Exception as exc:  # a store of the deployment's: the session still ends
            _log_exception("the event store failed", exc)

    def _run(self, value: Any) -> Any:
        import asyncio
        import inspect

        if not inspect.isawaitable(value):
            return value
        return asyncio.run_coroutine_threadsafe(value, self.loop).result(30)  # type: ignore[arg-type]


# -- the SDK's ToolAnnotations (mcp.types) -----------------------------------------

class ToolAnnotations:
    """Hints about a tool's behaviour (protocol revisions from 2025-03-26)."""

    def __init__(self, title: Optional[str] = None, read_only_hint: Optional[bool] = None,
                 destructive_hint: Optional[bool] = None, idempotent_hint: Optional[bool] = None,
                 open_world_hint: Optional[bool] = None, **kwargs: Any) -> None:
        self.wire = _drop_none({
            "title": title,
            "readOnlyHint": kwargs.get("readOnlyHint", read_only_hint),
            "destructiveHint": kwargs.get("destructiveHint", destructive_hint),
            "idempotentHint": kwargs.get("idempotentHint", idempotent_hint),
            "openWorldHint": kwargs.get("openWorldHint", open_world_hint),
        })


# -- the SDK's registration: a decorator without (), a name registered twice --------


def _called_bare(first: Any, decorator: str, call: str) -> None:
    """``@server.tool`` without its call hands the function over as the first
    argument: the SDK's TypeError, in its words."""
    if callable(first):
        raise TypeError(f"The @{decorator} decorator was used incorrectly. Did you forget to call it? "
                        f"Use @{decorator}{call} instead of @{decorator}")


def _kept_first(server: MCPServer, kind: str, name: str, registered: Dict[str, Any]) -> bool:
    """Whether a tool, resource or prompt of this name is registered already:
    the SDK keeps the first, with a warning (for a tool, unless
    warn_on_duplicate_tools=False); remove_tool and remove_prompt make room."""
    if name not in registered:
        return False
    if kind != "tool" or server.settings.get("warn_on_duplicate_tools", True):
        print(f"mcp_ref: {kind} {name!r} registered again; the first one stays", file=sys.stderr)
    return True


def _sdk_model_json(value: Any) -> Any:
    """One of the SDK's models (its ToolAnnotations, its Annotations) as the
    JSON it sends, by alias and without nulls; anything else as it is."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


# -- extensions (SEP-2133) as the SDK frames them: mcp.server.extension --------------
#
# An extension is an identifier, its settings, and what it adds: tools, resources,
# request methods of its own, one tools/call interceptor.  MCPServer(extensions=[...])
# applies each (_apply_extension) onto the core's three tables (section 14): the
# settings declared under capabilities.extensions, the methods the dispatcher routes
# (section 15), the interceptors MCPServer._calling runs (_intercepted).  Additive: a spec
# method is refused when the binding is made, as the SDK refuses it.

# The SDK's SPEC_CLIENT_METHODS (mcp_types.methods): no extension may bind these.
_SPEC_CLIENT_METHODS = frozenset((
    "completion/complete", "initialize", "logging/setLevel", "ping", "prompts/get", "prompts/list",
    "resources/list", "resources/read", "resources/subscribe", "resources/templates/list", "resources/unsubscribe",
    "server/discover", "subscriptions/listen", "tools/call", "tools/list"))
# basic/index, "_meta" key names, with the prefix required: labels.../name.
_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_EXTENSION_IDENTIFIER = rf"{_LABEL}(?:\.{_LABEL})*/[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"


def validate_extension_identifier(identifier: Any, *, owner: str) -> None:
    """The SDK's check (mcp.shared.extension): a ``vendor-prefix/name`` string,
    else its TypeError, in its words."""
    import re  # (loaded by json already)

    if not isinstance(identifier, str) or not re.fullmatch(_EXTENSION_IDENTIFIER, identifier):
        raise TypeError(f"{owner}.identifier must be a `vendor-prefix/name` string "
                        f"(reverse-DNS prefix required), got {identifier!r}")


class RequestParams:
    """The SDK's ``mcp_types.RequestParams``: subclass it with annotated fields
    to type an extension method's params (``MethodBinding``).  mcp_ref reads the
    annotations as it reads a tool's (no pydantic): the params are converted and
    checked as arguments are, and ``meta`` is the request's ``_meta``."""

    meta = None  # (no annotation of its own: a subclass's fields are its annotations)

    def __init__(self, **fields: Any) -> None:
        for name, value in fields.items():
            setattr(self, "meta" if name == "_meta" else name, value)

    def model_dump(self, **options: Any) -> Dict[str, Any]:
        return {name: getattr(self, name) for name in _type_hints(type(self))}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.model_dump().items())})"


class ToolBinding:
    """A tool an extension adds (``fn``), the ``_meta`` to stamp on it, and
    ``kwargs`` for MCPServer.add_tool."""

    def __init__(self, fn: Callable[..., Any], meta: Optional[Dict[str, Any]] = None,
                 kwargs: Optional[Dict[str, Any]] = None) -> None:
        self.fn, self.meta, self.kwargs = fn, meta, dict(kwargs or {})


class ResourceBinding:
    """A resource an extension adds, made already."""

    def __init__(self, resource: Any) -> None:
        self.resource = resource


class MethodBinding:
    """A request method an extension serves: its params checked against
    ``params_type`` (a RequestParams subclass) before ``handler(ctx, params)``
    runs; ``protocol_versions`` (None: all) the revisions it exists in.  A spec
    method, or an empty set of revisions, is refused here (the SDK's ValueErrors)."""

    def __init__(self, method: str, params_type: Any, handler: Callable[..., Any],
                 protocol_versions: Optional[FrozenSet[str]] = None) -> None:
        if method in _SPEC_CLIENT_METHODS:
            raise ValueError(f"MethodBinding cannot bind spec method {method!r}; extension methods are additive "
                             "— use Extension.intercept_tool_call or Server.middleware to wrap core behaviour")
        if protocol_versions is not None and not protocol_versions:
            raise ValueError(f"MethodBinding for {method!r} has an empty protocol_versions set, so it could "
                             "never be served; use None to admit every version")
        self.method, self.params_type, self.handler = method, params_type, handler
        self.protocol_versions = protocol_versions


class Extension:
    """The SDK's ``mcp.server.extension.Extension``: set ``identifier`` (checked
    when the class is made) and override what the extension adds."""

    identifier: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("identifier") is not None:  # (one set in __init__: checked when applied)
            validate_extension_identifier(cls.__dict__["identifier"], owner=cls.__name__)

    def settings(self) -> Dict[str, Any]:
        """Declared at ``capabilities.extensions[identifier]``."""
        return {}

    def tools(self) -> List[ToolBinding]:
        return []

    def resources(self) -> List[ResourceBinding]:
        return []

    def methods(self) -> List[MethodBinding]:
        return []

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Callable[[Any], Any]) -> Any:
        """Wrap tools/call: return a result without ``await call_next(ctx)`` to
        answer in the tool's place, or pass it on (the default)."""
        return await call_next(ctx)


def _apply_extension(server: MCPServer, extension: Any) -> None:
    """MCPServer(extensions=[...]): one extension onto the core's tables
    (section 14), as the SDK's MCPServer._apply_extension does it."""
    given = getattr(extension, "identifier", None)
    validate_extension_identifier(given, owner=type(extension).__name__)
    identifier = str(given)
    if identifier in server._extensions:
        raise ValueError(f"Extension {identifier!r} is already registered")
    for tool in extension.tools():
        server.add_tool(tool.fn, meta=tool.meta, **tool.kwargs)
    for binding in extension.resources():
        server.add_resource(binding.resource)
    for method in extension.methods():
        if method.method in server._methods or method.method in _HANDSHAKE_REQUESTS or \
                method.method in _STATELESS_REQUESTS:  # (tasks/*: section 16 serves them)
            raise ValueError(f"Extension {identifier!r} binds method {method.method!r}, which is already "
                             "registered; extension methods are additive and cannot replace another handler")
        server._methods[method.method] = _ExtensionMethod(server, method)
    settings = extension.settings()  # read once, as the SDK reads it
    server._extensions[identifier] = lambda: settings
    if getattr(type(extension), "intercept_tool_call", None) is not Extension.intercept_tool_call:
        server._interceptors.append(extension)


class _ExtensionMethod:
    """A MethodBinding as the dispatcher calls it (_Dispatcher.extension_method,
    section 15): the params read as a tool's arguments are (its RequestParams
    type, or a pydantic model), then the handler, awaited when it is async."""

    def __init__(self, server: MCPServer, binding: MethodBinding) -> None:
        self.server, self.binding, self.protocol_versions = server, binding, binding.protocol_versions

        def params(params: Any) -> None:
            pass

        params.__annotations__ = {"params": binding.params_type}
        self.reader = _Tool(params, binding.method, None, None, None, None, None, False)

    def __call__(self, params: Dict[str, Any], request: _Request) -> Dict[str, Any]:
        fields = {key: value for key, value in params.items() if key != "_meta"}
        try:
            value = self.reader.arguments({"params": fields})["params"]
        except ValidationError as exc:
            kind = getattr(self.binding.params_type, "__name__", "params").lstrip("_")
            raise _RpcError(INVALID_PARAMS, f"Invalid params for {self.binding.method}: "
                                            f"{_params_errors(str(exc), kind)}") from None
        except RecursionError:
            raise _RpcError(INVALID_PARAMS, f"Invalid params for {self.binding.method}: nested too deeply") from None
        except Exception as exc:  # the params type's own code refused them
            raise _handler_error(f"reading the params of {self.binding.method}", exc) from None
        try:
            if "_meta" in params:
                value.meta = params["_meta"]
        except (AttributeError, TypeError, ValueError):  # a frozen or slotted type: left without it
            pass
        try:
            result = self.binding.handler(_extension_context(self.server, request), value)
            if hasattr(result, "__await__"):
                result = _run_coroutine(_awaited(result))
            result = {} if result is None else _wire_value(result)
            if not isinstance(result, dict):  # (a result is a JSON object: basic/index, "Responses")
                raise TypeError(f"{self.binding.method} returned {type(result).__name__}, not a JSON object")
        except _RpcError:
            raise
        except Exception as exc:
            raise _handler_error(f"extension method {self.binding.method}", exc) from None
        return result


def _handler_error(what: str, exc: Exception) -> _RpcError:
    """What an extension's handler or interceptor raised, as the error sent: an
    MCPError's own (as the SDK sends it); anything else -32603 with its text
    (the SDK sends its text with code 0, no JSON-RPC error code: README 50)."""
    error = _protocol_error(exc)
    if error is not None:
        return error
    _log_exception(what, exc)
    return _RpcError(INTERNAL_ERROR, str(exc) or type(exc).__name__)


def _params_errors(text: str, kind: str) -> str:
    """The errors of the params read as a tool's one argument, told of the params
    (the SDK says only "Invalid request parameters": README 51)."""
    text = text.replace(" for paramsArguments", " for " + kind, 1)
    return text.replace("\nparams.", "\n").replace("\nparams\n", "\n(the params)\n")


async def _awaited(value: Any) -> Any:
    return await value


def _extension_context(server: MCPServer, request: _Request) -> Any:
    """What an extension's handler and interceptor get: the SDK's request
    context (``ctx.session``, ``ctx.meta``, ``ctx.protocol_version``)."""
    ctx = _RequestContext(Context(request, server))
    ctx.protocol_version = request.version  # type: ignore[attr-defined]
    return ctx


async def _intercepted(server: MCPServer, tool: _Tool, arguments: Dict[str, Any], request: _Request) -> Any:
    """MCPServer._call inside the extensions' intercept_tool_call, the first
    given outermost (the SDK's compose_tool_call_handler).  An interceptor reads
    the call's params and the result by attribute; what it returns instead is
    sent as it is; what it raises is a protocol error (_handler_error)."""
    params = _CallToolParams(tool.name, arguments, request.params.get("_meta"))

    async def innermost(ctx: Any) -> Any:
        result = await server._call(tool, arguments, request)
        if isinstance(result, _RpcError):
            raise result
        return _JsonObject(result)

    chain: Callable[[Any], Any] = innermost
    for extension in reversed(server._interceptors):
        chain = _bound_interceptor(extension, params, chain)
    try:
        return _interceptor_result(await chain(_extension_context(server, request)))
    except _RpcError as exc:
        return exc
    except Exception as exc:  # a protocol error, as the SDK sends it (README 50)
        return _handler_error(f"intercepting tool {tool.name!r}", exc)
    except BaseException as exc:  # cancelled
        return server._stopped(tool, request, exc)


class _CallToolParams:
    """The SDK's CallToolRequestParams, as an interceptor reads them."""

    def __init__(self, name: str, arguments: Dict[str, Any], meta: Any) -> None:
        self.name, self.arguments, self.meta = name, arguments, meta

    def model_dump(self, **options: Any) -> Dict[str, Any]:
        return _drop_none({"name": self.name, "arguments": self.arguments, "_meta": self.meta})


def _bound_interceptor(extension: Any, params: Any, call_next: Callable[[Any], Any]) -> Callable[[Any], Any]:
    async def call(ctx: Any) -> Any:
        return await extension.intercept_tool_call(params, ctx, call_next)

    return call


def _interceptor_result(value: Any) -> Dict[str, Any]:
    """What an interceptor returned, as the result sent: the call's own result,
    a dict, our CallToolResult or one of the SDK's models."""
    if isinstance(value, _JsonObject):
        return value._data
    if isinstance(value, CallToolResult):
        return _drop_none({"content": [_wire_value(block) for block in value.content],
                           "structuredContent": _wire_value(value.structured_content), "isError": value.is_error,
                           "_meta": value.meta})
    result = {} if value is None else _wire_value(value)
    if not isinstance(result, dict):
        raise TypeError(f"an interceptor returned {type(value).__name__}, not a result")
    return result


def _client_extension(ctx: Any, identifier: str) -> Optional[Dict[str, Any]]:
    """The settings the client declared for extension ``identifier`` (None: not
    declared), from a tool's Context or an extension's request context: in
    2026-07-28 this request's own capabilities (basic/index, "Statelessness")."""
    request = getattr(ctx, "_request", None) or getattr(getattr(ctx, "session", None), "_request", None)
    if isinstance(request, _Request):
        capabilities = request.client_capabilities() or {}
    else:  # another kind of context: what it says the client declared
        capabilities = _wire_value(getattr(getattr(ctx, "session", ctx), "client_capabilities", None)) or {}
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    settings = extensions.get(identifier) if isinstance(extensions, dict) else None
    return settings if isinstance(settings, dict) else None


def require_client_extension(ctx: Any, identifier: str) -> None:
    """The SDK's check that the client declared extension ``identifier``, else
    -32021 with the requiredCapabilities it lacks (basic/versioning: the party
    that supports an extension falls back to the core, or rejects the request)."""
    if _client_extension(ctx, identifier) is None:
        raise MCPError(MISSING_REQUIRED_CLIENT_CAPABILITY, f"Client did not declare required extension {identifier!r}",
                       {"requiredCapabilities": {"extensions": {identifier: {}}}})


# -- MCP Apps (io.modelcontextprotocol/ui) as the SDK frames it: mcp.server.apps -------
#
# modelcontextprotocol/ext-apps, specification/2026-01-26/apps.mdx: a tool names
# its UI in _meta.ui.resourceUri (and who sees it in _meta.ui.visibility); the UI is
# a ui:// resource of MIME type text/html;profile=mcp-app, whose _meta.ui (csp,
# permissions, domain, prefersBorder) the SDK copies onto its contents.  A client
# declares Apps with the MIME types it renders; a server falls back to text for
# any other ("Graceful Degradation").

EXTENSION_ID = "io.modelcontextprotocol/ui"
APP_MIME_TYPE = "text/html;profile=mcp-app"


class _UiSettings:
    """ResourceCsp and ResourcePermissions: keyword fields in Python's spelling,
    dumped in camelCase without the unset ones (the SDK's pydantic models)."""

    _FIELDS: Tuple[str, ...] = ()

    def __init__(self, **fields: Any) -> None:
        for name, value in fields.items():
            snake = "".join("_" + c.lower() if c.isupper() else c for c in name)
            if snake not in self._FIELDS:
                raise TypeError(f"{type(self).__name__} has no field {name!r}")
            setattr(self, snake, value)

    def model_dump(self, **options: Any) -> Dict[str, Any]:
        dumped = {name: getattr(self, name, None) for name in self._FIELDS}
        return {_camel(name): value for name, value in dumped.items() if value is not None}


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


class ResourceCsp(_UiSettings):
    """The origins a UI may reach (``_meta.ui.csp``): connect_domains,
    resource_domains, frame_domains, base_uri_domains."""

    _FIELDS = ("connect_domains", "resource_domains", "frame_domains", "base_uri_domains")


class ResourcePermissions(_UiSettings):
    """What a UI asks the browser for (``_meta.ui.permissions``): camera,
    microphone, geolocation, clipboard_write, each ``{}``."""

    _FIELDS = ("camera", "microphone", "geolocation", "clipboard_write")


class Apps(Extension):
    """The MCP Apps extension: ``@apps.tool(resource_uri="ui://...")`` binds a
    tool to its UI, ``apps.add_html_resource("ui://...", html)`` serves the UI;
    ``MCPServer(extensions=[apps])``."""

    identifier = EXTENSION_ID

    def __init__(self) -> None:
        self._tools: List[Tuple[ToolBinding, str]] = []  # (binding, the resource it names)
        self._resources: List[ResourceBinding] = []

    def tool(self, *, resource_uri: str, visibility: Optional[List[str]] = None,
             meta: Optional[Dict[str, Any]] = None, **tool_kwargs: Any) -> Callable[[Callable[..., Any]], Any]:
        """A tool bound to a ``ui://`` resource: ``_meta.ui.resourceUri`` (and
        ``visibility``, "model" and/or "app"); other keywords go to add_tool."""
        _require_ui_scheme(resource_uri)
        if meta and "ui" in meta:
            raise ValueError("Apps.tool() owns _meta['ui']; pass resource_uri=/visibility= instead of a 'ui' meta key")
        ui: Dict[str, Any] = {"resourceUri": resource_uri}
        if visibility is not None:
            ui["visibility"] = list(visibility)
            if not set(ui["visibility"]) <= {"model", "app"}:  # ext-apps, McpUiToolMeta: "model" | "app"
                raise ValueError(f"visibility is a list of 'model' and 'app', not {visibility!r}")

        def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
            self._tools.append((ToolBinding(fn, {**(meta or {}), "ui": ui}, tool_kwargs), resource_uri))
            return fn

        return decorator

    def add_html_resource(self, uri: str, html: str, *, name: Optional[str] = None, title: Optional[str] = None,
                          description: Optional[str] = None, csp: Any = None, permissions: Any = None,
                          domain: Optional[str] = None, prefers_border: Optional[bool] = None) -> None:
        """A ``ui://`` HTML resource, served as text/html;profile=mcp-app with its
        ``_meta.ui``: ``csp`` (ResourceCsp), ``permissions`` (ResourcePermissions),
        ``domain``, ``prefers_border``."""
        _require_ui_scheme(uri)
        ui: Dict[str, Any] = {}
        if csp is not None:
            ui["csp"] = csp.model_dump(by_alias=True, exclude_none=True)
        if permissions is not None:
            ui["permissions"] = permissions.model_dump(by_alias=True, exclude_none=True)
        if domain is not None:
            ui["domain"] = domain
        if prefers_border is not None:
            ui["prefersBorder"] = prefers_border
        self.add_resource(TextResource(uri, html, name=name or uri, title=title, description=description,
                                       mime_type=APP_MIME_TYPE, meta={"ui": ui} if ui else None))

    def add_resource(self, resource: Any) -> None:
        """A ``ui://`` resource made already; without a MIME type of its own it is
        served as text/html;profile=mcp-app, with another it is refused."""
        _require_ui_scheme(resource.uri)
        mime_type = getattr(resource, "mime_type", None)
        if mime_type in (None, "text/plain") and isinstance(resource, Resource):  # (text/plain: our default)
            import copy

            resource = copy.copy(resource)  # (the caller's object unchanged, as the SDK's model_copy)
            resource.mime_type = APP_MIME_TYPE
        elif mime_type != APP_MIME_TYPE:
            raise ValueError(f"MCP Apps resources are served as {APP_MIME_TYPE!r}, got {mime_type!r}")
        self._resources.append(ResourceBinding(resource))

    def tools(self) -> List[ToolBinding]:
        """The bound tools; one naming a resource not added here is refused
        ("Resource MUST exist on the server")."""
        registered = {binding.resource.uri for binding in self._resources}
        for tool, uri in self._tools:
            if uri not in registered:
                raise ValueError(f"Apps tool {tool.fn.__name__!r} binds resource_uri {uri!r}, but no such resource "
                                 "is registered; add it with add_html_resource() or add_resource()")
        return [tool for tool, _ in self._tools]

    def resources(self) -> List[ResourceBinding]:
        return list(self._resources)


def client_supports_apps(ctx: Any) -> bool:
    """Whether the client declared MCP Apps with text/html;profile=mcp-app among
    its ``mimeTypes`` (ext-apps, "Client (Host) Capabilities"): else a UI tool
    answers in text alone."""
    settings = _client_extension(ctx, EXTENSION_ID)
    mime_types = settings.get("mimeTypes") if settings is not None else None
    return isinstance(mime_types, (list, tuple)) and APP_MIME_TYPE in mime_types


def _require_ui_scheme(uri: Any) -> None:
    if not isinstance(uri, str) or not uri.startswith("ui://"):
        raise ValueError(f"MCP Apps URIs must use the ui:// scheme, got {uri!r}")


# -- Skills (io.modelcontextprotocol/skills), with the same interface ------------------
#
# modelcontextprotocol/ext-skills, specification/stable/skills.mdx (the SDK 2.3 has
# none): each file of a skill directory is a resource, skill://<skill-path>/<file>;
# skills/list and skills/get answer Skill entries (the SKILL.md's frontmatter as JSON,
# every file with its sha256 digest and size); resources/directory/read (directoryRead)
# lists a directory's children.  The frontmatter is YAML, which the standard library
# cannot read: _frontmatter reads the subset skills are written in (a mapping of
# scalars, nested mappings and lists) and refuses the rest, naming the line, rather
# than send a frontmatter other than the file's ("MUST be identical in content").

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
_SKILL_LIMITS = (512, 16 * 1024 * 1024)  # files and bytes a host must accept ("Limits")
_DIRECTORY_MIME = "inode/directory"


# The params of its methods (a cursor, when given, is a string: PaginatedRequest).
class _ListSkillsParams(RequestParams):
    cursor: str = None  # type: ignore[assignment]


class _GetSkillParams(RequestParams):
    uri: str


class _ReadDirectoryParams(RequestParams):
    uri: str
    cursor: str = None  # type: ignore[assignment]


class Skills(Extension):
    """The skills extension: ``skills.add_skill("path/to/skill", prefix="acme")``
    serves a skill directory (its SKILL.md and every file) at
    ``skill://acme/<name>/...``; ``MCPServer(extensions=[skills])``.
    ``directory_read`` serves resources/directory/read too; ``ttl_ms`` and
    ``cache_scope`` are the listings' caching hints (CacheableResult)."""

    identifier = SKILLS_EXTENSION

    def __init__(self, *, directory_read: bool = True, ttl_ms: int = 0, cache_scope: str = "private") -> None:
        self.directory_read, self.ttl_ms, self.cache_scope = directory_read, ttl_ms, cache_scope
        self._skills: Dict[str, Dict[str, Any]] = {}  # the SKILL.md's URI -> its entry
        self._files: Dict[str, Resource] = {}  # every file's URI -> its resource

    def add_skill(self, directory: str, *, prefix: Optional[str] = None) -> Dict[str, Any]:
        """Serve the skill in ``directory`` (whose name is the skill's ``name``);
        its entry.  A skill the Agent Skills rules or the limits refuse is a ValueError."""
        root = os.path.abspath(directory)
        files = _skill_files(root)
        try:
            frontmatter = _frontmatter(files["SKILL.md"].decode("utf-8"), os.path.join(root, "SKILL.md"))
        except UnicodeDecodeError:
            raise ValueError(f"{os.path.join(root, 'SKILL.md')} is not UTF-8 text") from None
        name = frontmatter.get("name")
        _check_skill(root, frontmatter, files)
        base = "skill://" + (f"{prefix.strip('/')}/" if prefix else "") + str(name)
        uri = f"{base}/SKILL.md"
        if uri in self._skills:
            raise ValueError(f"a skill is served at {uri} already")
        import hashlib

        order = ["SKILL.md"] + sorted(path for path in files if path != "SKILL.md")
        entry = {"uri": uri, "frontmatter": frontmatter, "resources": [
            {"uri": f"{base}/{path}", "digest": "sha256:" + hashlib.sha256(files[path]).hexdigest(),
             "size": len(files[path])} for path in order]}
        for path in order:
            self._files[f"{base}/{path}"] = _skill_resource(f"{base}/{path}", path, files[path], frontmatter)
        self._skills[uri] = entry
        return entry

    def settings(self) -> Dict[str, Any]:
        return {"directoryRead": True} if self.directory_read else {}

    def resources(self) -> List[ResourceBinding]:
        return [ResourceBinding(resource) for resource in self._files.values()]

    def methods(self) -> List[MethodBinding]:
        bindings = [MethodBinding("skills/list", _ListSkillsParams, self._list),
                    MethodBinding("skills/get", _GetSkillParams, self._get)]
        if self.directory_read:
            bindings.append(MethodBinding("resources/directory/read", _ReadDirectoryParams, self._directory))
        return bindings

    def _list(self, ctx: Any, params: Any) -> Dict[str, Any]:
        if params.cursor is not None:  # one page: no cursor was given out
            raise _RpcError(INVALID_PARAMS, "Invalid params: unknown cursor")
        return {"skills": list(self._skills.values()), "ttlMs": self.ttl_ms, "cacheScope": self.cache_scope}

    def _get(self, ctx: Any, params: Any) -> Dict[str, Any]:
        entry = self._skills.get(params.uri)
        if entry is None:  # "Error Handling": -32602
            raise _RpcError(INVALID_PARAMS, f"No skill is served at {params.uri}")
        return {"skill": entry, "ttlMs": self.ttl_ms, "cacheScope": self.cache_scope}

    def _directory(self, ctx: Any, params: Any) -> Dict[str, Any]:
        """resources/directory/read: a directory's direct children, files as
        resources/list describes them, subdirectories as inode/directory."""
        uri = str(params.uri).rstrip("/")
        below = [path for path in self._files if path.startswith(uri + "/")]
        if not below or params.cursor is not None:
            raise _RpcError(INVALID_PARAMS, "Invalid params: unknown cursor" if below else
                            f"{params.uri} is not a directory resource")  # (the words of "Error Handling")
        children: Dict[str, Dict[str, Any]] = {}
        for path in below:
            child, _, rest = path[len(uri) + 1:].partition("/")
            children[child] = {"uri": f"{uri}/{child}", "name": child, "mimeType": _DIRECTORY_MIME} if rest else \
                self._files[path].describe()  # "their ordinary Resource metadata"
        return {"resources": [children[name] for name in sorted(children)]}


def _skill_files(root: str) -> Dict[str, bytes]:
    """Every file under ``root`` by its relative path ("/"-separated): symbolic
    links and hidden files left out, the limits checked as the files are read."""
    if not os.path.isfile(os.path.join(root, "SKILL.md")):
        raise ValueError(f"{root} is no skill: it has no SKILL.md")
    files: Dict[str, bytes] = {}
    total = 0
    for folder, folders, names in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and
                            not os.path.islink(os.path.join(folder, f)))
        for name in sorted(names):
            path = os.path.join(folder, name)
            if name.startswith(".") or os.path.islink(path):
                continue
            with open(path, "rb") as f:
                data = f.read(_SKILL_LIMITS[1] + 1)
            total += len(data)
            files[os.path.relpath(path, root).replace(os.sep, "/")] = data
            if len(files) > _SKILL_LIMITS[0] or total > _SKILL_LIMITS[1]:
                raise ValueError(f"the skill in {root} is over the limits of {_SKILL_LIMITS[0]} files and "
                                 f"{_SKILL_LIMITS[1]} bytes a host must accept (skills, \"Limits\")")
    return files


def _check_skill(root: str, frontmatter: Dict[str, Any], files: Dict[str, bytes]) -> None:
    """The Agent Skills rules a served skill must keep ("Skill Format"): a name
    of lowercase letters, digits and single hyphens (64 at most), the directory's
    own name; a description (1024 characters at most)."""
    import re

    name, description = frontmatter.get("name"), frontmatter.get("description")
    where = os.path.join(root, "SKILL.md")
    if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", name) or len(name) > 64:
        raise ValueError(f"{where}: the frontmatter's name must be 1 to 64 lowercase letters, digits and single "
                         f"hyphens, not {name!r}")
    if name != os.path.basename(root):
        raise ValueError(f"{where}: the skill's name {name!r} is not its directory's name "
                         f"{os.path.basename(root)!r}")
    if not isinstance(description, str) or not description.strip() or len(description) > 1024:
        raise ValueError(f"{where}: the frontmatter needs a description of 1 to 1024 characters")


def _skill_resource(uri: str, path: str, data: bytes, frontmatter: Dict[str, Any]) -> Resource:
    """A skill's file as a resource: SKILL.md as text/markdown named and
    described by its frontmatter ("Resource Metadata"); text as text, the rest
    as bytes, so that what is read is the bytes the digest covers."""
    import mimetypes

    name = os.path.basename(path)
    mime_type = "text/markdown" if path.endswith(".md") else mimetypes.guess_type(name)[0]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return BinaryResource(uri, data, name=name, mime_type=mime_type or "application/octet-stream")
    if path == "SKILL.md":
        return TextResource(uri, text, name=str(frontmatter["name"]), description=str(frontmatter["description"]),
                            mime_type=mime_type)
    return TextResource(uri, text, name=name, mime_type=mime_type or "text/plain")


# -- YAML frontmatter: the subset skills are written in -----------------------------


def _frontmatter(text: str, where: str) -> Dict[str, Any]:
    """The YAML frontmatter opening ``text`` (between two ``---`` lines) as JSON:
    a block mapping of plain, single- or double-quoted scalars (YAML 1.2's core
    schema), nested block mappings and block lists.  What else YAML allows (flow
    collections, anchors, tags, block scalars, multi-line scalars, words YAML 1.1
    reads otherwise, such as ``yes``) is a ValueError naming the line."""
    lines = text.split("\n")
    if lines[0].rstrip("\r") != "---":
        raise ValueError(f"{where}: a SKILL.md begins with YAML frontmatter (a line ---)")
    end = next((i for i, line in enumerate(lines[1:], 1) if line.rstrip("\r") in ("---", "...")), None)
    if end is None:
        raise ValueError(f"{where}: the frontmatter has no closing --- line")
    rows = [(number, line.rstrip("\r")) for number, line in enumerate(lines[1:end], 2)
            if line.strip() and not line.lstrip().startswith("#")]
    value, rest = _yaml_block(rows, 0, where)
    if rest or not isinstance(value, dict):
        raise ValueError(f"{where}: line {rest[0][0] if rest else 2}: the frontmatter must be one mapping")
    return value


def _yaml_block(rows: List[Tuple[int, str]], indent: int, where: str) -> Tuple[Any, List[Tuple[int, str]]]:
    """The mapping or list whose lines start at ``indent``; the lines after it."""
    is_list = rows[0][1][indent:].startswith("- ") or rows[0][1][indent:] == "-"
    out: Any = [] if is_list else {}
    while rows and len(rows[0][1]) - len(rows[0][1].lstrip(" ")) == indent:
        number, line = rows[0]
        body = line[indent:]
        item = body.startswith("- ") or body == "-"
        if is_list and not item:  # the end of a list written at its key's indent
            break
        if "\t" in line[:indent + 1] or item and not is_list:
            raise ValueError(f"{where}: line {number}: not read by mcp_ref's YAML subset (a list item or a tab)")
        if is_list:
            if not body[2:].strip():
                raise ValueError(f"{where}: line {number}: nested lists are not read by mcp_ref's YAML subset")
            out.append(_yaml_scalar(body[2:].strip(), number, where))
            rows = rows[1:]
            continue
        key, colon, value = body.partition(":")
        key = key.rstrip()
        if not colon or value[:1] not in ("", " ") or not key or key[0] in "\"'?{[&*!|>%@`-":
            raise ValueError(f"{where}: line {number}: expected `key: value`")
        if key in out:
            raise ValueError(f"{where}: line {number}: the key {key!r} is given twice")
        rows = rows[1:]
        if value.strip():
            out[key] = _yaml_scalar(value.strip(), number, where)
        elif rows and len(rows[0][1]) - len(rows[0][1].lstrip(" ")) > indent:
            out[key], rows = _yaml_block(rows, len(rows[0][1]) - len(rows[0][1].lstrip(" ")), where)
        elif rows and rows[0][1][indent:indent + 2] == "- " and rows[0][1][indent] != " ":  # a list not indented
            out[key], rows = _yaml_block(rows, indent, where)
        else:
            out[key] = None
    if rows and len(rows[0][1]) - len(rows[0][1].lstrip(" ")) > indent:
        raise ValueError(f"{where}: line {rows[0][0]}: a multi-line value is not read by mcp_ref's YAML subset")
    return out, rows


def _yaml_scalar(text: str, number: int, where: str) -> Any:
    """One scalar, as YAML 1.2's core schema types it."""
    import re

    if text.startswith('"'):
        try:
            return json.loads(text)  # (JSON's escapes: YAML's double-quoted style, where they agree)
        except ValueError:
            raise ValueError(f"{where}: line {number}: a double-quoted value mcp_ref's YAML subset cannot read") \
                from None
    if text.startswith("'"):
        if len(text) < 2 or not text.endswith("'") or "'" in text[1:-1].replace("''", ""):
            raise ValueError(f"{where}: line {number}: a single-quoted value mcp_ref's YAML subset cannot read")
        return text[1:-1].replace("''", "'")
    text = text.split(" #", 1)[0].rstrip()  # a comment
    if text[0] in "[{&*!|>%@`" or ": " in text or text.endswith(":") or text[:2] in ("- ", "? ", ": ") or \
            text in ("-", "?"):
        raise ValueError(f"{where}: line {number}: {text!r} is not read by mcp_ref's YAML subset (quote it)")
    if re.fullmatch(r"null|Null|NULL|~", text):
        return None
    if re.fullmatch(r"true|True|TRUE|false|False|FALSE", text):
        return text.lower() == "true"
    if re.fullmatch(r"(?i:y|yes|n|no|on|off)|[-+]?0[0-9_]+|0o[0-7]+|[-+]?[0-9][0-9_]*[_:][0-9_:]*(\.[0-9_]*)?|"
                    r"[-+]?[0-9.]*[0-9][0-9.]*[eE][-+]?[0-9]+|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?", text):
        # (1.1: yes is true, 010 octal, 0o7 and 1e3 text, 2026-01-05 a date)
        raise ValueError(f"{where}: line {number}: YAML 1.1 and 1.2 read {text!r} differently (quote it)")
    if re.fullmatch(r"[-+]?[0-9]+|0x[0-9a-fA-F]+", text):
        return int(text, 16 if text.startswith("0x") else 10)
    if re.fullmatch(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?", text):
        return float(text)
    if re.fullmatch(r"[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)", text):
        raise ValueError(f"{where}: line {number}: {text!r} has no JSON form")
    return text


# ---------------------------------------------------------------------------
# 27. SDK fidelity: lax validation and URI template matching
# ---------------------------------------------------------------------------
#
# Fenced, as section 22 is.  Two parts.  Lax validation: where pydantic's lax
# mode (section 23) checks a keyword family in its own order, the rule of
# section 6 hands the lax modes to a hook here; and the words and families
# its errors name, which section 5 records.  URI template matching: RFC
# 6570 defines how a template expands, not how a URI is matched against it;
# the SDK's matcher decides which URIs a template serves and what each
# variable receives.  This is that matcher, re-derived to run in linear time.
#
#   hook                  the rule it refines                 what pydantic or the SDK does                README
#   --------------------  ----------------------------------  -------------------------------------------  ------
#   _class_kind           _SchemaBuilder.ref (section 5)      a class's family, as its errors name it:     -
#                                                             int-enum[Color], a dataclass, a TypedDict
#   _dataclass_doc        _SchemaBuilder.dataclass (section 5)  no description from dataclass()'s own      -
#                                                             docstring ("Point(x: int)")
#   _array_noun           _Compiler._array (section 6)        "List", "Tuple", "Set", "Frozenset" in its   -
#                                                             errors, the container pydantic reads
#   _lax_anything         _Compiler.compile (section 6)       any value, made JSON as the SDK writes it    -
#   _lax_allowed          _Compiler._enum_const (section 6)   the allowed value itself (2.0 for 2), or     -
#                                                             what _lax_member converts
#   _lax_string           _Compiler._string (section 6)       the first length error only; then no pattern -
#   _lax_any_of           _Compiler._any_of (section 6)       the smart union's arm (_Union.smart) first   7, 9
#   _lax_array            _Compiler._array (section 6)        a set keeps one of each item (_dedupe); a    -
#                                                             short tuple's missing members, each
#   _lax_object           _Compiler._object (section 6)       defaults filled; errors in field order; a    -
#                                                             dict's size counted once its items pass
#   _dict_too_long        _lax_object (section 27)            a dict past max_length: one error            -
#   _set_order            _lax_array (section 27)             a set's items in the order pydantic's set    -
#                                                             is dumped in (hash order)
#   _smart_pick,          _Union._most_fields (section 22),   the smart union's rank of the arms a value   -
#   _exactness, _ranked   _build_union (section 22)           fits: fields set, then exactness
#   _first_converting     _build_union (section 22)           a string the check read as a number ('3' an  -
#                                                             IntEnum's 3): the first arm that takes it
#   _dedupe               _lax_array (section 27)             items equal as JSON kept once; a set of      -
#                                                             sets whatever their order (_same_set)
#   _json_text_params     _Tool.__init__ (section 9)          where a string argument may be JSON text:    7
#                                                             _strings_taken (section 23) for each
#   _UriTemplate          _Template.__init__ (section 10)     a template's variables and the values a URI  -
#                                                             gives them (levels 1 to 3, /.; explodes)
#
# test_resources checks these on the wire.


# -- Lax validation ----------------------------------------------------------------
#
# pydantic's lax mode (section 23) checks a container's size and members in its
# own order and words.  Each _lax_ hook here is the lax modes' copy of one
# keyword family of _Compiler (section 6): the same assertions, with pydantic's
# stops.  First the words: the class families and containers errors name.

def _class_kind(cls: type) -> str:
    """The family of a class in ``$defs``, as the SDK's errors name it
    (_type_words, _arm_label): an Enum by its mixin (int_enum: int-enum[Color]),
    "typeddict", "dataclass", or "model" for an annotated class."""
    if _is_enum(cls):
        return next((f"{t.__name__}_enum" for t in (int, str, float) if issubclass(cls, t)), "enum")
    if _is_typeddict(cls):
        return "typeddict"
    return "dataclass" if _is_dataclass(cls) else "model"


def _dataclass_doc(cls: type) -> Optional[str]:
    """A dataclass's description: its docstring, but not the one dataclass()
    writes ("Name(field: type, ...)") for a class that has none; the SDK does
    not publish that one."""
    doc = cls.__doc__
    return None if doc and doc.startswith(cls.__name__ + "(") else doc


def _array_noun(schema: Dict[str, Any], tuple_like: bool, unique: bool) -> str:
    """What pydantic's errors call an array: the container it reads it as
    (_ContainerSchema, section 24), "List", "Tuple", "Set" or "Frozenset"."""
    container = schema.container if type(schema) is _ContainerSchema else ""
    return "Frozenset" if container == "frozenset" else "Set" if unique else \
        "Tuple" if tuple_like or container == "tuple" else "Value" if container == "sequence" else "List"


def _lax_anything(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
    """_Compiler._anything in the lax modes: any value, made JSON as the SDK writes it."""
    try:
        return _jsonable(value)
    except _NotJSON as exc:
        errors.append(_ErrorItem(loc, exc.msg, exc.kind, value))
        return value


def _lax_allowed(compiler: _Compiler, schema: Dict[str, Any], is_def: bool, allowed: List[Any],
                 kind: str) -> _Checker:
    """_Compiler._enum_const as the SDK's Literal and Enum take a value: the
    allowed value itself (2.0 is Literal[1, 2]'s 2), or what _lax_member converts."""
    int_enum = is_def and compiler.class_kinds.get(str(schema.get("title"))) == "int_enum"

    def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
        for candidate in allowed:
            if _json_equal(value, candidate):
                return candidate if type(candidate) is not type(value) else value
        taken = _lax_member(value, allowed, int_enum, loc, errors)
        if taken is not _MISSING:
            return taken
        errors.append(_ErrorItem(loc, f"Input should be {_one_of_text(allowed)}", kind, value))
        return value

    return check


def _lax_string(low: Optional[int], high: Optional[int], pattern: Optional[str],
                search: Optional[Callable[[str], Any]]) -> _Checker:
    """_Compiler._string as pydantic checks a str: the first length error only,
    the minimum's first, and after a length error the pattern is not tried."""
    def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
        if not isinstance(value, str):
            return value
        before = len(errors)
        n = len(value)
        _check_size(n, low, None if low is not None and n < low else high, "String", "character",
                    False, loc, value, errors, ("string_too_short", "string_too_long"))
        if search is not None and len(errors) == before and not search(value):
            errors.append(_ErrorItem(loc, f"String should match pattern '{pattern}'", "string_pattern_mismatch",
                                     value))
        return value

    return check


def _lax_any_of(union: _Union) -> _Checker:
    """_Compiler._any_of in the lax modes: pydantic's smart union picks the arm
    (_Union.smart); failing that, the first arm's errors or all of them."""
    def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
        chosen, value = union.smart(value, loc, errors)
        return value if chosen else union.first_or_errors(value, loc, errors)

    return check


def _lax_array(schema: Dict[str, Any], noun: str, prefix: List[_Checker], items: Optional[_Checker],
               each: Optional[_Checker], contains: Optional[_Checker], output: bool) -> _Checker:
    """_Compiler._array as pydantic checks a list, a tuple and a set: a set
    keeps one of each item (_dedupe), a result's in the order of pydantic's set
    (_set_order, items made by _set_key: _as_sent values, tuples of them,
    dates, UUIDs, Decimals); a short tuple reports each missing
    member, not the count; a fixed tuple too long is reported alone, its
    members unchecked; the sizes as _lax_sizes counts them (a set's "not
    more": _too_many)."""
    low, high = schema.get("minItems"), schema.get("maxItems")
    unique = schema.get("uniqueItems") is True
    item_schema = schema.get("items")
    sets_of_sets = unique and isinstance(item_schema, dict) and item_schema.get("uniqueItems") is True
    set_key = _set_key(item_schema) if unique and output else None
    missing_members = bool(prefix) and low is not None
    fixed = bool(prefix) and items is None and high is not None
    container = "fixed" if prefix else schema.container if type(schema) is _ContainerSchema else "list"
    if fixed and type(schema) is _ContainerSchema and schema.lengths != (None, None):
        return _lax_fixed_tuple(prefix, schema.lengths, noun, contains, schema)

    def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
        if not isinstance(value, list):
            return value
        if fixed and len(value) > (high or 0):
            _check_size(len(value), None, high, noun, "item", True, loc, value, errors)
            return value
        if container == "list" and high is not None and len(value) > high:
            # pydantic-core counts a list's items, valid or not, and stops at the
            # one past its maximum: that error alone.
            _check_size(len(value), None, high, noun, "item", True, loc, value, errors)
            return value
        before = len(errors)
        out = value
        if each is not None:  # the usual array: one schema for every item
            out = each(value, loc, errors)
        elif prefix or items is not None:
            subs = prefix + [items] * (len(value) - len(prefix)) if items is not None else prefix
            out = [sub(item, loc + (i,), errors) for i, (sub, item) in enumerate(zip(subs, value))]
            out += value[len(out):]
            if missing_members and len(value) < len(prefix):
                out = out[:len(value)] + _missing_members(schema, len(value), min(len(prefix), low or 0), loc,
                                                          value, errors)
        bad = {e.loc[len(loc)] for e in errors[before:] if len(e.loc) > len(loc)}
        if unique:
            out = _set_order(_dedupe(out, sets_of_sets), set_key)  # one of each, in the order of the SDK's set
        short_tuple = missing_members and len(value) < len(prefix)
        _lax_sizes(container, out if not bad else [v for i, v in enumerate(value) if i not in bad], bool(bad),
                   None if short_tuple else low, high, noun, loc, value, errors, before, sets_of_sets)
        if contains is not None:
            _check_contains(schema, contains, out, loc, value, errors)
        return out

    return check


def _lax_fixed_tuple(prefix: List[_Checker], lengths: Tuple[Optional[int], Optional[int]], noun: str,
                     contains: Optional[_Checker], schema: Dict[str, Any]) -> _Checker:
    """A fixed tuple with a Field's min_length or max_length (tuple[int, str]),
    as pydantic-core's tuple validator checks it: the members in order, each
    valid one counted, past the Field's maximum that error alone; then each
    missing member; extra items reported alone, against the tuple's length;
    last the Field's minimum against the valid members ("not 0" when none is)."""
    low, high = lengths

    def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
        if not isinstance(value, list):
            return value
        before, out = len(errors), []
        for i, (sub, item) in enumerate(zip(prefix, value)):
            mark = len(errors)
            checked = sub(item, loc + (i,), errors)
            if len(errors) == mark:
                out.append(checked)
                if high is not None and len(out) > high:
                    del errors[before:]
                    _check_size(len(value), None, high, noun, "item", True, loc, value, errors)
                    return value
        if len(value) > len(prefix):
            del errors[before:]
            _check_size(len(value), None, len(prefix), noun, "item", True, loc, value, errors)
            return value
        out += _missing_members(schema, len(value), len(prefix), loc, value, errors)
        _check_size(len(out), low, None, noun, "item", True, loc, value, errors)
        if contains is not None:
            _check_contains(schema, contains, out, loc, value, errors)
        return out

    return check


def _missing_members(schema: Dict[str, Any], start: int, stop: int, loc: Tuple[Any, ...], value: List[Any],
                     errors: List[_ErrorItem]) -> List[Any]:
    """A short tuple's members from ``start``: a member's Field default where it
    has one (pydantic-core's default_value, not validated), else "Field required"."""
    filled = []
    for i, member in enumerate(schema["prefixItems"][start:stop], start):
        if isinstance(member, dict) and "default" in member:
            default = member["default"]
            filled.append(json.loads(json.dumps(default)) if isinstance(default, (list, dict)) else default)
        else:
            errors.append(_ErrorItem(loc + (i,), "Field required", "missing", value))
    return filled


def _lax_sizes(container: str, valid: List[Any], bad: bool, low: Optional[int], high: Optional[int], noun: str,
               loc: Tuple[Any, ...], value: List[Any], errors: List[_ErrorItem], before: int,
               sets_of_sets: bool) -> None:
    """pydantic-core's length checks of an array with ``valid`` items (its items'
    errors, if ``bad``, from ``before`` on): a tuple and a set count their valid
    items as they go and stop past the maximum, that error alone (a set's "not
    more"); a tuple's too few are its valid ones; a list's, a set's and a
    Sequence's size is checked only when every item passed; a fixed tuple's
    (tuple[int, str]) always, item by item."""
    if container == "fixed":
        _check_size(len(value), low, high, noun, "item", True, loc, value, errors)
        return
    count = len(_dedupe(valid, sets_of_sets)) if container in ("set", "frozenset") and bad else len(valid)
    if high is not None and count > high and container in ("tuple", "set", "frozenset"):
        del errors[before:]
        if container == "tuple":
            _check_size(len(value), None, high, noun, "item", True, loc, value, errors)
        else:
            errors.append(_too_many(noun, high, loc, value))
    elif not bad or container == "tuple":
        _check_size(count, low, high, noun, "item", True, loc, value, errors)


def _lax_object(compiler: _Compiler, schema: Dict[str, Any], properties: Dict[str, _Checker],
                required: List[str], members: Optional[_Checker]) -> List[_Checker]:
    """_Compiler._object as pydantic checks a model or a dict: the output mode
    fills absent fields with their published defaults; errors come in the
    model's field order (_in_field_order); a dict past its maximum is one error
    (_dict_too_long), and its size is counted only once its items all pass; an
    empty TypedDict or dataclass ignores every key (_no_members)."""
    defaults = {k: s["default"] for k, s in (schema.get("properties") or {}).items()
                if compiler.output and isinstance(s, dict) and "default" in s}
    defaults.update(schema.factories if compiler.output and type(schema) is _FactorySchema else {})  # section 24
    low, high = schema.get("minProperties"), schema.get("maxProperties")
    dependent = schema.get("dependentRequired") or {}
    if members is None and not (required or low is not None or high is not None or dependent):
        if schema.get("properties") == {} and not (
                {"additionalProperties", "patternProperties", "propertyNames"} & set(schema)):
            return [_no_members]
        return []
    rank = {key: i for i, key in enumerate(properties)}

    def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
        if not isinstance(value, dict):
            return value
        before = len(errors)
        out = value if members is None else members(value, loc, errors)
        for key in required:
            if key not in value:
                errors.append(_ErrorItem(loc + (key,), "Field required", "missing", value))
        for key, default in defaults.items():
            if key not in out:
                out[key] = default() if type(default) is _Factory else default
        if len(errors) > before + 1 and rank:
            _in_field_order(errors, before, len(loc), rank)
        if high is not None:
            _dict_too_long(value, high, loc, errors, before)
        if len(errors) == before:  # the SDK counts a dict's items only once they all pass
            _check_size(len(value), low, None, "Dictionary", "item", True, loc, value, errors)
        if dependent:
            _check_dependent(dependent, value, loc, errors)
        return out

    # The objects of generated schemas: declared properties, nothing else to check.
    if properties and not ("propertyNames" in schema or low is not None or high is not None or dependent
                           or "additionalProperties" in schema or "patternProperties" in schema):
        return [compiler._object_step(schema, properties, required, defaults, check)]
    return [check]


def _dict_too_long(value: Dict[str, Any], high: int, loc: Tuple[Any, ...], errors: List[_ErrorItem],
                   before: int) -> None:
    """pydantic's dict stops as soon as it holds more than ``high`` items that
    pass: that one error ("not more"), whatever else it found (pydantic 2.14)."""
    failed = {e.loc[len(loc)] for e in errors[before:] if len(e.loc) > len(loc)}
    if sum(1 for key in value if key not in failed) > high:
        del errors[before:]
        errors.append(_too_many("Dictionary", high, loc, value))


def _dedupe(items: List[Any], sets: bool = False) -> List[Any]:
    """One of each item, by Python's equality, as the SDK's set holds them (true
    is 1, [1] is [true]); with ``sets``, items that are sets themselves (a
    frozenset of frozensets) are equal whatever their order."""
    same = _same_set if sets else eq
    out: List[Any] = []
    for item in items:
        if not any(same(item, seen) for seen in out):
            out.append(item)
    return out


def _same_set(a: Any, b: Any) -> bool:
    if type(a) is not list or type(b) is not list:
        return bool(a == b)
    return len(a) == len(b) and all(any(x == y for y in b) for x in a)


def _set_order(items: List[Any], key: Optional[Callable[[Any], Any]]) -> List[Any]:
    """A set's items in the order the SDK sends them: pydantic builds a set by
    adding each item to an empty one, and dumps it in that set's order (a
    string's hash, so each process's own).  Each item is added as ``key``
    makes it (_set_key: true and 1, equal in Python, are one item); without a
    key, or one that fails, the items keep their order."""
    if key is None or len(items) < 2:
        return items
    built: set[Any] = set()
    first: Dict[Any, Any] = {}
    try:
        for item in items:
            made = key(item)
            built.add(made)
            first.setdefault(made, item)
    except Exception:  # noqa: BLE001 - an item this process does not build as pydantic does
        return items
    return [first[made] for made in built]


def _set_key(schema: Any) -> Optional[Callable[[Any], Any]]:
    """How pydantic's set holds an item of ``schema``, where this process can
    build it alike: the JSON value itself (_as_sent), a tuple of such values,
    or a date, a UUID, a Decimal (equal ones hash alike).  None: an Enum
    member, hashed by its name, and the rest keep their order."""
    if isinstance(schema, dict) and schema.get("format") == "binary":
        return _utf8  # bytes
    if _as_sent(schema):
        return _scalar
    if type(schema) is _ContainerSchema and schema.container == "tuple" and all(
            _as_sent(s) for s in [*schema.get("prefixItems", ()), schema.get("items", True)] if s is not False):
        return tuple
    if type(schema) is _TypedSchema and _lax_kind(schema.py_type) not in (None, "path"):
        return functools.partial(_build_value, schema.py_type)
    return None


def _utf8(item: str) -> bytes:
    return item.encode()


def _scalar(item: Any) -> Any:
    if type(item) not in _SCALAR_TYPES:
        raise TypeError(item)
    return item


def _smart_pick(candidates: Iterable[Tuple[int, Optional[int], Any]]) -> Any:
    """pydantic-core's smart union over the arms that take a value, in order, as
    (exactness, fields set or None, what the arm made): an exact arm of no
    fields at once; else the arm that sets the most fields, or (no count to
    compare) the more exact, the first on a tie.  _MISSING if none."""
    best: Optional[Tuple[int, Optional[int], Any]] = None
    for exact, count, made in candidates:
        if exact == 2 and count is None:
            return made
        if best is None:
            best = (exact, count, made)
        elif count is not None and best[1] is not None and count != best[1]:
            if count > best[1]:
                best = (exact, count, made)
        elif exact > best[0]:
            best = (exact, count, made)
    return _MISSING if best is None else best[2]


def _exactness(compiler: _Compiler, schema: Any, value: Any) -> int:
    """How exactly a JSON value that fits ``schema`` strictly is of its type, as
    pydantic-core ranks it: 2, or 1 where Any takes a part (a bare dict's
    values), an int stands for a float, or a dataclass or model is built from
    an object (a TypedDict's object is exact)."""
    if not isinstance(schema, dict) or not set(schema) - {"title", "description", "examples"}:
        return 1  # Any
    if "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        if compiler.class_kinds.get(name) in ("dataclass", "model"):
            return 1
        try:
            schema = compiler._resolve(schema["$ref"])
        except ValueError:
            return 2
        if not isinstance(schema, dict):
            return 2
    if "anyOf" in schema:
        return max([_exactness(compiler, arm, value) for arm in schema["anyOf"]] or [2])
    if type(value) is int and schema.get("type") == "number":
        return 1
    if isinstance(value, list):
        prefix, items = schema.get("prefixItems") or [], schema.get("items", True)
        return min([_exactness(compiler, prefix[i] if i < len(prefix) else items, v) for i, v in enumerate(value)]
                   or [2])
    if isinstance(value, dict):
        properties, extra = schema.get("properties") or {}, schema.get("additionalProperties", True)
        declared = "properties" in schema and "additionalProperties" not in schema  # a class: extra keys ignored
        return min([_exactness(compiler, properties.get(k, extra), v) for k, v in value.items()
                    if k in properties or not declared] or [2])
    return 2


def _ranked(arm: Any, schema: Any, value: Any, class_kinds: Dict[str, str]) -> Tuple[int, Optional[int], Any]:
    """An arm that takes ``value`` as _smart_pick ranks it: (exactness, fields set, the arm)."""
    if _is_any(arm):
        return 1, None, arm
    names = _field_names_of(arm)
    exact = 1 if names is not None and not _is_typeddict(arm) else \
        _exactness(_Compiler(schema, "strict", class_kinds), schema, value)
    return exact, None if names is None or type(value) is not dict else len(names.intersection(value)), arm


def _first_converting(tp: Any, value: Any, sent: str) -> Any:
    """A string the check read as another JSON value ('3' an IntEnum's 3): no arm was exact for the
    string (str, a Literal's or Any keeps it as sent), so pydantic's smart union found each arm that
    took it lax and kept the first, as the check's first pass did: Union[IntEnum, float] gives the
    member, not 3.0, which a float beside it would take strictly.  That arm's object; ``value`` when
    it is the first arm's own; _MISSING when no Python-only arm comes before (_build_union decides)."""
    kind = type(value)
    for arm in _args(tp):
        if arm is kind:
            return value
        if arm not in _SCALAR_TYPES and _python_only_type(arm):
            break
    else:
        return _MISSING
    builder = _SchemaBuilder()
    arms = [arm for arm in _args(tp) if arm is not _NoneType]
    try:  # the arms under one root, where a class stays a $def (its lax words: an IntEnum takes "3")
        root = builder.finish({"anyOf": [builder.schema(arm) for arm in arms]})
    except _Unsupported:
        return value
    compiler = _COMPILER(root, "input", builder.class_kinds)
    for arm, schema in zip(arms, root["anyOf"]):
        errors: List[_ErrorItem] = []
        made = compiler.compile(schema)(sent, (), errors)
        if not errors:
            return _build_value(arm, made)
    return value


def _json_text_params(params: List[_Param], input_schema: Dict[str, Any]) -> Dict[str, FrozenSet[str]]:
    """The parameters whose string argument _json_text_arguments (section 23)
    may read as JSON text, each with the strings it keeps as they are."""
    published = input_schema["properties"]
    return {p.key: taken for p in params if p.key in published and
            (taken := _strings_taken(published[p.key], input_schema)) is not None}


# -- URI templates (RFC 6570) ------------------------------------------------------
#
# The SDK's matcher, re-derived: levels 1 to 3, plus the explode of {/x*},
# {.x*} and {;x*}.  A template is a row of literals and captures; a capture's
# value ends at one of its operator's stop characters.  At most one capture may
# span segments ({+x}, {#x}, an explode): it takes what its neighbours leave.
# No two captures may touch, so each boundary is anchored on a literal and one
# scan from each end decides the match without backtracking (a regular
# expression would backtrack, polynomially in the number of captures).  A
# trailing {?a,b}{&c} is a query: its variables are optional and in any order.

_OPERATORS = {  # operator: (first, separator, named, stop characters)
    "": ("", ",", False, "/?#&,"),
    "+": ("", ",", False, "?#"),
    "#": ("#", ",", False, ""),
    ".": (".", ".", False, "./?#"),
    "/": ("/", "/", False, "/?#"),
    ";": (";", ";", True, ";/?#"),
    "?": ("?", "&", True, "&#"),
    "&": ("&", "&", True, "&#"),
}
_MAX_URI = 65536  # longer URIs match no template (the SDK's bound)

if TYPE_CHECKING:
    _Capture = Tuple[str, str, bool, bool]  # name, operator, explode, ";name" may stand alone
    _Atom = Any  # a literal (str) or a _Capture


class _UriTemplate:
    """A parsed URI template: ``names`` of its variables, ``query`` the optional
    ones, ``match(uri)`` the values of a URI (lists for explodes) or None.

    >>> _UriTemplate("users://{id}/profile").match("users://42/profile")
    {'id': '42'}
    >>> _UriTemplate("file://docs/{+path}").match("file://docs/src/a%20b.py")
    {'path': 'src/a b.py'}
    >>> _UriTemplate("logs://{service}{?since,level}").match("logs://api?level=error&x=1")
    {'service': 'api', 'level': 'error'}
    >>> _UriTemplate("tree://{/parts*}").match("tree:///a/b")
    {'parts': ['a', 'b']}
    >>> _UriTemplate("users://{id}/profile").match("users://4/2/profile") is None
    True
    """

    def __init__(self, template: str) -> None:
        self.template = template
        parts = self._parse(template)
        tail = len(parts)
        while tail and isinstance(parts[tail - 1], tuple) and parts[tail - 1][0] in ("?", "&"):
            tail -= 1
        # The query tail is split off only where the path part cannot hold a ? or #.
        if tail < len(parts) and parts[tail][0] == "?" and not any(
                ("?" in p or "#" in p) if isinstance(p, str) else p[0] in ("?", "#") for p in parts[:tail]):
            self.query = [name for _, variables in parts[tail:] for name, _ in variables]
            parts = parts[:tail]
        else:
            self.query = []
        atoms = self._atoms(parts)
        spans = [i for i, a in enumerate(atoms) if not isinstance(a, str) and (a[2] or a[1] in ("+", "#"))]
        for a, b in zip(atoms, atoms[1:]):
            if not isinstance(a, str) and not isinstance(b, str):
                raise ValueError(f"URI template {template!r}: variables {a[0]!r} and {b[0]!r} touch; put a "
                                 f"literal between them so that a URI says where one ends")
        if len(spans) > 1:
            raise ValueError(f"URI template {template!r}: more than one variable that spans segments ({{+x}}, "
                             f"{{#x}} or an explode); a match would be ambiguous")
        self.greedy: Optional[_Capture] = atoms[spans[0]] if spans else None
        self.prefix, self.suffix = (atoms[:spans[0]], atoms[spans[0] + 1:]) if spans else ([], atoms)

    def _parse(self, template: str) -> List[Any]:
        """Literals and (operator, [(name, explode)]) expressions, in order."""
        import re

        parts: List[Any] = []
        names: List[str] = []
        at = 0
        while at < len(template):
            brace = template.find("{", at)
            if brace < 0:
                parts.append(template[at:])
                break
            parts.append(template[at:brace])
            end = template.find("}", brace)
            where = f"URI template {template!r}, position {brace}"
            if end < 0:
                raise ValueError(f"{where}: '{{' is never closed")
            body = template[brace + 1:end]
            op = body[0] if body[:1] in ("+", "#", ".", "/", ";", "?", "&") else ""
            variables = []
            for spec in body[len(op):].split(","):
                name = spec[:-1] if spec.endswith("*") else spec
                if ":" in spec:
                    raise ValueError(f"{where}: prefix modifiers ({{{spec}}}) are not supported")
                if not re.fullmatch(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*", name):
                    raise ValueError(f"{where}: {name!r} is not a variable name")
                if spec.endswith("*") and op not in ("/", ".", ";"):
                    raise ValueError(f"{where}: an explode ({{{op}{spec}}}) matches only with /, . or ;")
                if name in names:
                    raise ValueError(f"URI template {template!r}: variable {name!r} appears twice")
                names.append(name)
                variables.append((name, spec.endswith("*")))
            parts.append((op, variables))
            at = end + 1
        if sum(1 for p in parts if isinstance(p, tuple) and p[0] == "?") > 1:
            raise ValueError(f"URI template {template!r}: more than one {{?...}}; use {{?a,b}} or {{?a}}{{&b}}")
        self.names = names
        return [p for p in parts if p != ""]

    @staticmethod
    def _atoms(parts: List[Any]) -> List[_Atom]:
        """Each expression as literals (its first and separator characters, and
        the names of named operators) and one capture per variable."""
        atoms: List[_Atom] = []

        def literal(text: str) -> None:
            if atoms and isinstance(atoms[-1], str):
                atoms[-1] += text
            elif text:
                atoms.append(text)

        for part in parts:
            if isinstance(part, str):
                literal(part)
                continue
            op, variables = part
            first, separator, named, _ = _OPERATORS[op]
            for n, (name, explode) in enumerate(variables):
                if not explode:  # an explode's capture holds its own separators
                    literal((separator if n else first) + (name + ("" if op == ";" else "=") if named else ""))
                atoms.append((name, op, explode, named and op == ";" and not explode))
        return atoms

    def match(self, uri: str) -> Optional[Dict[str, Any]]:
        if len(uri) > _MAX_URI:
            return None
        query = ""
        if self.query:
            uri, _, query = uri.partition("#")[0].partition("?")
        values = self._scan(uri)
        if values is not None and query:
            from urllib.parse import unquote

            pairs: Dict[str, str] = {}
            for pair in query.split("&"):  # RFC 3986: "+" is a plus; names are never decoded
                key, _, value = pair.partition("=")
                pairs.setdefault(key, unquote(value))
            values.update((name, pairs[name]) for name in self.query if name in pairs)
        return values

    def _scan(self, uri: str) -> Optional[Dict[str, Any]]:
        if self.greedy is None:  # anchored at both ends
            found = _scan_back(self.suffix, uri, len(uri), True)
            return found[0] if found is not None and found[1] == 0 else None
        back = _scan_back(self.suffix, uri, len(uri), False)
        front = None if back is None else _scan_forward(self.prefix, uri, back[1])
        if back is None or front is None:
            return None
        middle = _spanning(self.greedy, uri[front[1]:back[1]])  # what the bounded captures leave
        return None if middle is None else {**front[0], self.greedy[0]: middle, **back[0]}


def _scan_back(atoms: List[_Atom], uri: str, end: int, anchored: bool) -> Optional[Tuple[Dict[str, Any], int]]:
    """Match ``atoms`` right to left ending at ``end``: each capture starts just
    after the last occurrence of the literal before it (so the first capture is
    the greedy one, as in a regular expression); (values, start) or None."""
    from urllib.parse import unquote

    values: Dict[str, Any] = {}
    pos = end
    for i in range(len(atoms) - 1, -1, -1):
        atom = atoms[i]
        if isinstance(atom, str):
            if not uri.endswith(atom, 0, pos):
                return None
            pos -= len(atom)
            continue
        name, op, _, alone = atom
        before = atoms[i - 1] if i else None
        if alone and uri.endswith(str(before), 0, pos):  # ";name" with an empty value
            values[name] = ""
            continue
        earliest = pos
        while earliest and uri[earliest - 1] not in _OPERATORS[op][3]:
            earliest -= 1
        if alone:
            start = uri.find("=", earliest, pos) + 1
            if not start:
                return None
            values[name], pos = unquote(uri[start:pos]), start - 1
            continue
        if before is None:
            start = earliest
        elif anchored and i == 1:  # the template's first literal is at the start of the URI
            start = len(before)
            if not earliest <= start <= pos:
                return None
        else:
            start = uri.rfind(before, 0, pos) + len(before)
            if start < max(earliest, len(before)):
                return None
        values[name], pos = unquote(uri[start:pos]), start
    return values, pos


def _scan_forward(atoms: List[_Atom], uri: str, limit: int) -> Optional[Tuple[Dict[str, Any], int]]:
    """Match ``atoms`` left to right before ``limit``, each capture as short as
    the literal after it allows (it ends the prefix of a spanning capture)."""
    from urllib.parse import unquote

    values: Dict[str, Any] = {}
    pos = 0
    for i, atom in enumerate(atoms):
        if isinstance(atom, str):
            if pos + len(atom) > limit or not uri.startswith(atom, pos):
                return None
            pos += len(atom)
            continue
        name, op, _, alone = atom
        after = atoms[i + 1]
        if alone and uri.startswith(after, pos):
            values[name] = ""
            continue
        if alone:
            if uri[pos:pos + 1] != "=":
                return None
            pos += 1
        latest = pos
        while latest < limit and uri[latest] not in _OPERATORS[op][3]:
            latest += 1
        end = uri.find(after, pos, latest + len(after))
        if end < 0:
            return None
        values[name], pos = unquote(uri[pos:end]), end
    return values, pos


def _spanning(capture: _Capture, raw: str) -> Any:
    """The value of the one capture that may span segments: text, or for an
    explode the list of its items; None when ``raw`` is not its shape."""
    from urllib.parse import unquote

    name, op, explode, _ = capture
    _, separator, named, stops = _OPERATORS[op]
    if not explode:
        return None if any(c in stops for c in raw) else unquote(raw)
    if not raw:
        return []
    if raw[0] != separator or any(c in stops and c != separator for c in raw):
        return None
    items = []
    for item in raw.split(separator)[1:]:
        if named:
            if item != name and not item.startswith(name + "="):
                return None
            item = item[len(name) + 1:]
        items.append(unquote(item))
    return items


# ---------------------------------------------------------------------------
# 28. Patterns: ECMA-262 regular expressions in linear time
# ---------------------------------------------------------------------------
#
# Fenced: JSON Schema 2020-12 only says what a pattern means; how to match it
# safely is this engine's business.
#
#   entry                 where the spec path calls it        what it serves
#   --------------------  ----------------------------------  ---------------------------------------------
#   _compile_pattern      _Compiler._string (section 6)       "pattern" (Validation 2020-12 §6.3.3)
#   _compile_pattern      _Compiler._members (section 6)      "patternProperties" (Core 2020-12 §10.3.2.2)
#
# ECMA-262 regular expressions for JSON Schema pattern, matched in linear time.
#
# JSON Schema patterns are ECMA-262 regular expressions (Core 2020-12 §6.4) and
# are not anchored: "a+" matches "xxaayy" (Validation 2020-12 §6.3.3).  Python's
# re differs in ways that change results ($ also matches before a final
# newline, \d \w \s are Unicode-wide, no \p{..}) and it backtracks:
# re.search(r"\d+$", "1" * 12000 + "x") takes seconds.
#
# Here a pattern is parsed with the ECMA-262 grammar (§22.2.1 with the u flag:
# code points, strict escapes) into a small tree and compiled to a Thompson NFA,
# whose set of live states (an int bitset) is carried along the text: a search
# costs O(len(text) * program size).  The state sets are memoised as a lazily
# built DFA (state set + character -> next state set), so a long benign string
# costs one dict lookup per character; the DFA is flushed when it outgrows a
# budget, and a search on which it thrashes goes on as a plain simulation.
#
# Assertions read bits of a position's context: at start, at end, previous and
# next character are word characters (the state remembers the previous one).
# Lookarounds are context bits too.  Each lookaround body is its own program and,
# before the main search, one pass over the text marks where it matches: a
# lookbehind body runs forward and marks each position where a match ends, a
# lookahead body runs reversed, right to left, and marks where a match starts.
# Every pass starts a thread at each position, so the whole stays linear:
# O(len(text) * total program size).  With no captures to report, "the body
# matches text[i:j] for some j" is all a lookaround asks, so this is exact.
#
# Backreferences (\1, \k<name>) are refused with ValueError: no automaton can
# match them (the problem is NP-hard), and handing them to re would bring the
# exponential case back.  Also refused: Script properties and binary properties
# other than Any, ASCII and Assigned.  General_Category comes from unicodedata
# (the running Python's Unicode version).
#
# Python's re serves as an accelerator (section 34, _rx_accelerated) only where
# its backtracking provably stays linear.


def _unicodedata() -> Any:
    import unicodedata  # only for \p{...} classes

    return unicodedata  # (its category() is typed Any here)


if TYPE_CHECKING:
    _RxRanges = List[Tuple[int, int]]

_RX_ACCELERATE = True        # default of _compile_pattern(accelerate=None)
_RX_MAX_PROGRAM = 50_000     # NFA instructions of one pattern, lookaround bodies included
_RX_MAX_ACCELERATED = 5_000  # larger programs skip the re-safety analysis
_RX_MAX_UNANCHORED = 20      # longest match for which re.search (retried at every position) is used
_RX_CACHE_BUDGET = 50_000    # cached DFA states, transitions and closures per program (about 64 B each)
_RX_MAX_CP = 0x10FFFF

# ECMA-262 §22.2.2 CompileToCharSet: \d and \w are ASCII only; \s is WhiteSpace
# (TAB VT FF ZWNBSP and category Zs, stable since Unicode 6.3) plus LineTerminator.
_RX_DIGITS = [(0x30, 0x39)]
_RX_WORD_RANGES = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
_RX_SPACES = [(0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
              (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF)]
_RX_ESCAPE_SETS = {"d": _RX_DIGITS, "w": _RX_WORD_RANGES, "s": _RX_SPACES}
_RX_WORD = frozenset(chr(c) for lo, hi in _RX_WORD_RANGES for c in range(lo, hi + 1))
_RX_CONTROL = {"f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
_RX_IDENTITY = "^$\\.*+?()[]{}|/"  # IdentityEscape[+UnicodeMode]: SyntaxCharacter or "/"
_RX_HEX = "0123456789abcdefABCDEF"
# General_Category values and aliases usable in \p{..} (PropertyValueAliases.txt).
_RX_GC_NAMES = (
    "C Other|Cc Control cntrl|Cf Format|Cn Unassigned|Co Private_Use|Cs Surrogate|L Letter|"
    "LC Cased_Letter|Ll Lowercase_Letter|Lm Modifier_Letter|Lo Other_Letter|Lt Titlecase_Letter|"
    "Lu Uppercase_Letter|M Mark Combining_Mark|Mc Spacing_Mark|Me Enclosing_Mark|Mn Nonspacing_Mark|"
    "N Number|Nd Decimal_Number digit|Nl Letter_Number|No Other_Number|P Punctuation punct|"
    "Pc Connector_Punctuation|Pd Dash_Punctuation|Pe Close_Punctuation|Pf Final_Punctuation|"
    "Pi Initial_Punctuation|Po Other_Punctuation|Ps Open_Punctuation|S Symbol|Sc Currency_Symbol|"
    "Sk Modifier_Symbol|Sm Math_Symbol|So Other_Symbol|Z Separator|Zl Line_Separator|"
    "Zp Paragraph_Separator|Zs Space_Separator")


@functools.lru_cache(maxsize=None)  # made when a pattern first names a category, not at import
def _rx_gc_table() -> dict[str, frozenset[str]]:
    rows = [row.split() for row in _RX_GC_NAMES.split("|")]
    leaves = [row[0] for row in rows if len(row[0]) == 2 and row[0] != "LC"]
    table: dict[str, frozenset[str]] = {}
    for row in rows:  # "L" stands for every "Lx"; "LC" for Lu Ll Lt
        cats = ("Lu", "Ll", "Lt") if row[0] == "LC" else [c for c in leaves if c.startswith(row[0])]
        table.update(dict.fromkeys(row, frozenset(cats)))
    return table


@functools.lru_cache(maxsize=None)
def _rx_every_category() -> frozenset[str]:
    return frozenset(cat for group in "CLMNPSZ" for cat in _rx_gc_table()[group])


def _rx_merge(ranges: _RxRanges) -> _RxRanges:
    out: _RxRanges = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(hi, out[-1][1]))
        else:
            out.append((lo, hi))
    return out


def _rx_complement(ranges: _RxRanges) -> _RxRanges:
    out: _RxRanges = []
    start = 0
    for lo, hi in _rx_merge(ranges):
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    return out + [(start, _RX_MAX_CP)] if start <= _RX_MAX_CP else out


class _RxClass:
    """A set of code points: merged ranges or'ed with General_Category values, maybe negated."""

    __slots__ = ("ranges", "starts", "cats", "negated")

    def __init__(self, ranges: _RxRanges, cats: frozenset[str] = frozenset(), negated: bool = False) -> None:
        self.ranges, self.cats, self.negated = _rx_merge(ranges), cats, negated
        self.starts = [lo for lo, _ in self.ranges]

    def has(self, ch: str) -> bool:
        i = bisect_right(self.starts, ord(ch)) - 1
        hit = i >= 0 and ord(ch) <= self.ranges[i][1]
        if not hit and self.cats:
            hit = _unicodedata().category(ch) in self.cats
        return hit != self.negated

    def points(self) -> _RxRanges:
        """The ranges with negation applied (for classes without categories)."""
        return _rx_complement(self.ranges) if self.negated else self.ranges


# "." without the s flag: anything but a LineTerminator (ECMA-262 §22.2.2 CompileAtom).
_RX_DOT = _RxClass([(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)], negated=True)


class _RxNode:
    """Pattern tree: char (cls), cat/alt (kids), rep (kids[0], lo, hi=-1 unbounded),
    assert (arg in ^ $ b B), look (kids[0], arg in = ! <= <!).  Groups vanish."""

    __slots__ = ("kind", "kids", "cls", "lo", "hi", "arg")

    def __init__(self, kind: str, kids: list[_RxNode] | None = None, cls: _RxClass = _RX_DOT,
                 lo: int = 0, hi: int = 0, arg: str = "") -> None:
        self.kind, self.kids, self.cls, self.lo, self.hi, self.arg = kind, kids or [], cls, lo, hi, arg


def _rx_shown(pattern: str) -> str:
    return repr(pattern) if len(pattern) <= 200 else repr(pattern[:200]) + "..."


def _rx_is_digit(ch: str) -> bool:
    return ch != "" and ch in "0123456789"


class _RxParser:
    """Recursive descent over ECMA-262 §22.2.1 Pattern[+UnicodeMode, +NamedCaptureGroups]."""

    def __init__(self, src: str) -> None:
        self.src, self.pos = src, 0
        self.names: set[str] = set()
        self.classes: dict[tuple[tuple[tuple[int, int], ...], frozenset[str], bool], _RxClass] = {}

    def cls(self, ranges: _RxRanges, cats: frozenset[str] = frozenset(), negated: bool = False) -> _RxClass:
        """One object per distinct class: a new character is tested once per class."""
        key = (tuple(_rx_merge(ranges)), cats, negated)
        found = self.classes.get(key)
        if found is None:
            found = self.classes[key] = _RxClass(ranges, cats, negated)
        return found

    def fail(self, problem: str) -> ValueError:
        return ValueError(f"invalid pattern {_rx_shown(self.src)}: {problem} (at offset {self.pos})")

    def peek(self, ahead: int = 0) -> str:
        return self.src[self.pos + ahead:self.pos + ahead + 1]

    def eat(self, text: str) -> bool:
        found = self.src.startswith(text, self.pos)
        self.pos += len(text) if found else 0
        return found

    def parse(self) -> _RxNode:
        node = self.disjunction()
        if self.pos < len(self.src):
            raise self.fail("unmatched ')'")
        return node

    def disjunction(self) -> _RxNode:
        alts = [self.alternative()]
        while self.eat("|"):
            alts.append(self.alternative())
        return alts[0] if len(alts) == 1 else _RxNode("alt", alts)

    def alternative(self) -> _RxNode:
        terms = []
        while self.peek() not in ("", "|", ")"):
            atom, quantifiable = self.atom()
            bounds = self.quantifier()
            if bounds is not None:
                if not quantifiable:  # Annex B allows (?=a)* only without the u flag
                    raise self.fail("an assertion cannot be quantified")
                atom = _RxNode("rep", [atom], lo=bounds[0], hi=bounds[1])
            terms.append(atom)
        return terms[0] if len(terms) == 1 else _RxNode("cat", terms)

    def number(self) -> int | None:
        start = self.pos
        while _rx_is_digit(self.peek()):
            self.pos += 1
        digits = self.src[start:self.pos]  # a huge count only needs to exceed the cap
        return (int(digits) if len(digits) < 10 else 10 ** 9) if digits else None

    def quantifier(self) -> tuple[int, int] | None:
        ch = self.peek()
        if ch and ch in "*+?":
            self.pos += 1
            bounds = {"*": (0, -1), "+": (1, -1), "?": (0, 1)}[ch]
        elif ch == "{":  # with the u flag, a "{" that starts no quantifier is an error
            self.pos += 1
            lo = hi = self.number()
            if self.eat(","):
                hi = self.number()
                hi = -1 if hi is None else hi
            if lo is None or hi is None or not self.eat("}"):
                raise self.fail("incomplete quantifier: expected {n}, {n,} or {n,m}")
            if -1 < hi < lo:
                raise self.fail("numbers out of order in {} quantifier")
            bounds = (lo, hi)
        else:
            return None
        self.eat("?")  # laziness changes which match is found, never whether one is
        return bounds

    def atom(self) -> tuple[_RxNode, bool]:
        """The next atom, and whether a quantifier may follow it."""
        ch = self.src[self.pos]
        self.pos += 1
        if ch == "\\":
            return self.atom_escape()
        if ch == "(":
            return self.group()
        if ch == "[":
            return _RxNode("char", cls=self.char_class()), True
        if ch in "^$":
            return _RxNode("assert", arg=ch), False
        if ch in "*+?{":
            raise self.fail(f"nothing to repeat before {ch!r}")
        if ch in "]}":
            raise self.fail(f"lone {ch!r} must be escaped in unicode mode")
        return _RxNode("char", cls=_RX_DOT if ch == "." else self.cls([(ord(ch), ord(ch))])), True

    def group(self) -> tuple[_RxNode, bool]:
        kind = ""
        if self.eat("?"):
            kind = next((k for k in ("=", "!", "<=", "<!", ":") if self.eat(k)), "")
            if not kind and not self.eat("<"):
                raise self.fail("'(?' must be followed by ':', '=', '!', '<=', '<!' or '<name>'")
            if not kind:
                self.group_name()
        body = self.disjunction()
        if not self.eat(")"):
            raise self.fail("missing ')'")
        return (body, True) if kind in ("", ":") else (_RxNode("look", [body], arg=kind), False)

    def group_name(self) -> None:
        end = self.src.find(">", self.pos)
        name = self.src[self.pos:end] if end > 0 else ""
        if not name.replace("$", "_").isidentifier():  # GroupName is an IdentifierName
            raise self.fail("invalid capture group name")
        if name in self.names:
            raise self.fail(f"duplicate capture group name {name!r}")
        self.names.add(name)
        self.pos = end + 1

    def atom_escape(self) -> tuple[_RxNode, bool]:
        ch = self.peek()
        if ch and ch in "bB":
            self.pos += 1
            return _RxNode("assert", arg=ch), False
        if ch and ch in "k123456789":
            raise self.fail("backreferences are not supported (matching them is NP-hard)")
        item = self.escape(in_class=False)
        return _RxNode("char", cls=item if isinstance(item, _RxClass) else self.cls([(item, item)])), True

    def escape(self, in_class: bool) -> _RxClass | int:
        """After a backslash: a class escape (\\d, \\p{..}) or one code point."""
        ch = self.peek()
        self.pos += 1
        if ch and ch in "dDwWsS":
            ranges = _RX_ESCAPE_SETS[ch.lower()]
            return self.cls(_rx_complement(ranges) if ch.isupper() else ranges)
        if ch and ch in "pP":
            return self.property(negate=ch == "P")
        if ch in _RX_CONTROL:
            return _RX_CONTROL[ch]
        if ch == "c" and self.peek().isascii() and self.peek().isalpha():
            self.pos += 1
            return ord(self.src[self.pos - 1]) % 32
        if ch == "0" and not _rx_is_digit(self.peek()):
            return 0
        if ch == "x" or (ch == "u" and not self.eat("{")):
            return self.hex(2 if ch == "x" else 4)
        if ch == "u":  # \u{...}: any number of hex digits, at most U+10FFFF
            end = self.src.find("}", self.pos)
            digits = self.src[self.pos:end] if end >= 0 else ""
            if not digits or any(c not in _RX_HEX for c in digits) or int(digits, 16) > _RX_MAX_CP:
                raise self.fail("invalid \\u{...} escape")
            self.pos = end + 1
            return int(digits, 16)
        if ch and (ch in _RX_IDENTITY or (in_class and ch in "-b")):
            return 8 if ch == "b" else ord(ch)  # [\b] is backspace (ClassEscape :: b)
        self.pos -= 1
        raise self.fail(f"invalid escape '\\{ch}' in unicode mode" if ch else "'\\' at end of pattern")

    def hex(self, count: int) -> int:
        digits = self.src[self.pos:self.pos + count]
        if len(digits) != count or any(c not in _RX_HEX for c in digits):
            raise self.fail(f"expected {count} hexadecimal digits")
        self.pos += count
        cp = int(digits, 16)
        trail = self.src[self.pos + 2:self.pos + 6]  # u mode: \uD83D\uDE00 is one code point
        if count == 4 and 0xD800 <= cp <= 0xDBFF and self.src.startswith("\\u", self.pos) \
                and len(trail) == 4 and all(c in _RX_HEX for c in trail) and 0xDC00 <= int(trail, 16) <= 0xDFFF:
            self.pos += 6
            return 0x10000 + ((cp - 0xD800) << 10) + (int(trail, 16) - 0xDC00)
        return cp

    def property(self, negate: bool) -> _RxClass:
        end = self.src.find("}", self.pos)
        if not self.eat("{") or end < 0:
            raise self.fail("\\p and \\P need a {Property} in unicode mode")
        text, self.pos = self.src[self.pos:end], end + 1
        name, eq, value = text.partition("=")
        if name in ("Script", "sc", "Script_Extensions", "scx"):
            raise self.fail(f"Unicode script properties are not supported: {text!r}")
        ranges: _RxRanges = []
        table = _rx_gc_table()
        cats = table.get(value) if eq and name in ("General_Category", "gc") else table.get(text)
        if text in ("Any", "ASCII"):  # the binary properties that need no Unicode table
            ranges, cats = [(0, _RX_MAX_CP if text == "Any" else 0x7F)], frozenset()
        elif text == "Assigned":
            cats = _rx_every_category() - {"Cn"}
        if cats is None:
            raise self.fail(f"unknown or unsupported Unicode property {text!r}")
        if negate:  # a property is ranges or categories, never both
            return self.cls(_rx_complement(ranges)) if ranges else self.cls([], _rx_every_category() - cats)
        return self.cls(ranges, cats)

    def char_class(self) -> _RxClass:
        negated = self.eat("^")
        ranges: _RxRanges = []
        cats: set[str] = set()
        while not self.eat("]"):
            if self.pos >= len(self.src):
                raise self.fail("missing ']'")
            lo = self.class_atom()
            if self.peek() == "-" and self.peek(1) not in ("", "]"):
                self.pos += 1
                hi = self.class_atom()
                if isinstance(lo, _RxClass) or isinstance(hi, _RxClass):
                    raise self.fail("a class escape cannot be a range endpoint in unicode mode")
                if lo > hi:
                    raise self.fail("range out of order in character class")
                ranges.append((lo, hi))
            elif isinstance(lo, _RxClass):
                ranges += lo.ranges
                cats |= lo.cats
            else:
                ranges.append((lo, lo))
        return self.cls(ranges, frozenset(cats), negated)

    def class_atom(self) -> _RxClass | int:
        self.pos += 1
        return self.escape(in_class=True) if self.src[self.pos - 1] == "\\" else ord(self.src[self.pos - 1])


# Instructions are (op, a, b); a _RX_CHAR's class and an _RX_ASSERT's test are kept aside.
_RX_CHAR, _RX_SPLIT, _RX_JMP, _RX_ASSERT, _RX_MATCH = range(5)
# Context bits of a text position; lookaround k owns bit 1 << (_RX_LOOK_SHIFT + k).
_RX_AT_START, _RX_AT_END, _RX_PREV_WORD, _RX_NEXT_WORD, _RX_LOOK_SHIFT = 1, 2, 4, 8, 4
# An assertion holds where ctx & mask is one of the accepted values (ECMA-262
# CompileAssertion: ^ $ without the m flag look at the ends of the input only).
_RX_WORDS = _RX_PREV_WORD | _RX_NEXT_WORD
_RX_ASSERTS = {"^": (_RX_AT_START, frozenset((_RX_AT_START,))), "$": (_RX_AT_END, frozenset((_RX_AT_END,))),
               "b": (_RX_WORDS, frozenset((_RX_PREV_WORD, _RX_NEXT_WORD))), "B": (_RX_WORDS, frozenset((0, _RX_WORDS)))}


class _RxCompiler:
    """Emits the programs of one pattern; each lookaround body becomes its own."""

    def __init__(self, pattern: str) -> None:
        self.pattern, self.size, self.reverse = pattern, 0, False
        self.looks: list[_RxProgram] = []  # lookaround bodies, inner ones first
        self.look_bits: dict[int, int] = {}  # id(look node) -> its context bit
        self.code: list[tuple[int, int, int]] = []
        self.classes: dict[int, _RxClass] = {}
        self.tests: dict[int, tuple[int, frozenset[int]]] = {}

    def program(self, node: _RxNode, reverse: bool) -> _RxProgram:
        saved = self.code, self.classes, self.tests, self.reverse
        self.code, self.classes, self.tests, self.reverse = [], {}, {}, reverse
        self.emit(node)
        self.add(_RX_MATCH)
        prog = _RxProgram(self.code, self.classes, self.tests, reverse)
        self.code, self.classes, self.tests, self.reverse = saved
        return prog

    def too_large(self) -> ValueError:
        return ValueError(f"invalid pattern {_rx_shown(self.pattern)}: too large once counted "
                          f"repetitions are expanded (over {_RX_MAX_PROGRAM} instructions)")

    def add(self, op: int, a: int = 0, b: int = 0) -> int:
        self.size += 1
        if self.size > _RX_MAX_PROGRAM:
            raise self.too_large()
        self.code.append((op, a, b))
        return len(self.code) - 1

    def emit(self, node: _RxNode) -> None:
        if node.kind == "char":
            self.classes[self.add(_RX_CHAR)] = node.cls
        elif node.kind == "cat":  # a reversed program (a lookahead body) reads right to left
            for kid in reversed(node.kids) if self.reverse else node.kids:
                self.emit(kid)
        elif node.kind == "alt":  # SPLIT next, L2; kid 1; JMP end; L2: SPLIT ...; last kid
            jumps = []
            for kid in node.kids[:-1]:
                split = self.add(_RX_SPLIT, len(self.code) + 1)
                self.emit(kid)
                jumps.append(self.add(_RX_JMP))
                self.code[split] = (_RX_SPLIT, split + 1, len(self.code))
            self.emit(node.kids[-1])
            for pc in jumps:
                self.code[pc] = (_RX_JMP, len(self.code), 0)
        elif node.kind == "rep":
            self.repeat(node.kids[0], node.lo, node.hi)
        else:
            self.tests[self.add(_RX_ASSERT)] = _RX_ASSERTS[node.arg] if node.kind == "assert" else self.look(node)

    def look(self, node: _RxNode) -> tuple[int, frozenset[int]]:
        bit = self.look_bits.get(id(node))
        if bit is None:  # compile a body once, even inside an expanded {n,m}
            self.looks.append(self.program(node.kids[0], reverse=node.arg in ("=", "!")))
            bit = self.look_bits[id(node)] = 1 << (_RX_LOOK_SHIFT + len(self.looks) - 1)
        return bit, frozenset((bit,) if node.arg in ("=", "<=") else (0,))

    def repeat(self, body: _RxNode, lo: int, hi: int) -> None:
        if max(lo, hi) > _RX_MAX_PROGRAM:  # also stops (?:){1000000000} from looping for long
            raise self.too_large()
        for _ in range(lo - 1 if hi < 0 and lo > 0 else lo):
            self.emit(body)
        if hi < 0 and lo > 0:  # the last copy loops: L: body; SPLIT L, next
            top = len(self.code)
            self.emit(body)
            self.add(_RX_SPLIT, top, len(self.code) + 1)
        elif hi < 0:  # L: SPLIT next, end; body; JMP L
            top = self.add(_RX_SPLIT)
            self.emit(body)
            self.add(_RX_JMP, top)
            self.code[top] = (_RX_SPLIT, top + 1, len(self.code))
        else:  # optional copies nest, (x(x(x)?)?)?, so each needs the one before
            splits = []
            for _ in range(hi - lo):
                splits.append(self.add(_RX_SPLIT))
                self.emit(body)
            for pc in splits:
                self.code[pc] = (_RX_SPLIT, pc + 1, len(self.code))


class _RxState:
    """A DFA state: the NFA instructions reached by consuming a character (a bitset,
    bit pc for instruction pc), whether that character is a word character (when \\b
    or \\B need it), and whether MATCH was reached just before it (a "hit")."""

    __slots__ = ("kernel", "word", "hit", "next0", "rows", "closures")

    def __init__(self, kernel: int, word: bool, hit: bool) -> None:
        self.kernel, self.word, self.hit = kernel, word, hit
        self.next0: dict[str, _RxState] = {}  # transitions where no outside bit is set
        self.rows: dict[int, dict[str, _RxState]] | None = None  # outside bits -> transitions
        self.closures: dict[int, int] = {}  # context -> closure


class _RxProgram:
    """One Thompson NFA (pc 0 is the start), its lazily built DFA, and memos for the
    plain simulation.  Sets of instructions are int bitsets."""

    def __init__(self, code: list[tuple[int, int, int]], classes: dict[int, _RxClass],
                 tests: dict[int, tuple[int, frozenset[int]]], reverse: bool) -> None:
        self.code, self.tests, self.reverse = code, tests, reverse
        self.uses = 0  # the context bits that this program's assertions read
        for mask, _ in tests.values():
            self.uses |= mask
        self.words = bool(self.uses & _RX_WORDS)
        self.match = 1 << (len(code) - 1)  # MATCH is the last instruction
        readers: dict[_RxClass, int] = {}  # class -> the _RX_CHAR instructions reading it
        for pc, cls in classes.items():
            readers[cls] = readers.get(cls, 0) | 1 << pc
        self.stops = self.match | sum(readers.values())  # instructions that are their own closure
        self.literals: dict[str, int] = {}  # single code points are looked up, not tested
        self.others: list[tuple[_RxClass, int]] = []
        for cls, pcs in readers.items():
            lo, hi = cls.ranges[0] if len(cls.ranges) == 1 and not cls.cats and not cls.negated else (0, -1)
            if lo == hi:
                self.literals[chr(lo)] = self.literals.get(chr(lo), 0) | pcs
            else:
                self.others.append((cls, pcs))
        self.empty = _RxState(0, False, False)
        self.dead: _RxState | None = None
        self.flushes = 0
        self.flush()
        # Dead: no thread alive and none can start mid-text (^abc after a mismatch),
        # so only the end of the text can still matter.
        mids = {ctx & self.uses for ctx in (0, _RX_PREV_WORD, _RX_NEXT_WORD, _RX_WORDS)}
        if not self.uses >> _RX_LOOK_SHIFT and not any(self.threads(0, ctx) for ctx in mids):
            self.dead = self.empty

    def flush(self) -> None:
        """RE2-style: forget every cached state and memo, start caching again."""
        self.empty.next0.clear()
        self.empty.rows = None
        self.empty.closures.clear()
        self.states = {(0, False, False): self.empty}
        self.reach: dict[int, dict[int, int]] = {}  # ctx -> {1 << pc: closure of pc alone}
        self.chars: dict[str, int] = {}  # ch -> the _RX_CHAR instructions whose class has ch
        self.budget, self.flushes = _RX_CACHE_BUDGET, self.flushes + 1

    def spend(self, units: int) -> None:
        self.budget -= units
        if self.budget < 0:
            self.flush()

    def threads(self, kernel: int, ctx: int) -> int:
        """The _RX_CHAR instructions alive at a position, plus the MATCH bit if it is
        reached (Thompson's closure).  pc 0 joins everywhere: the search is unanchored."""
        reach = self.reach.get(ctx)
        if reach is None:
            reach = self.reach[ctx] = {}
        got = (kernel | 1) & self.stops
        todo = (kernel | 1) ^ got
        while todo:
            low = todo & -todo  # the lowest instruction left
            todo ^= low
            known = reach.get(low)
            got |= self.epsilon(low, ctx, reach) if known is None else known
        return got

    def epsilon(self, bit: int, ctx: int, reach: dict[int, int]) -> int:
        """The closure of one instruction: what it reaches without reading."""
        stack, seen, got = [bit.bit_length() - 1], set(), 0
        while stack:
            pc = stack.pop()
            if pc not in seen:
                seen.add(pc)
                op, a, b = self.code[pc]
                if op == _RX_SPLIT:
                    stack += (a, b)
                elif op == _RX_JMP:
                    stack.append(a)
                elif op == _RX_ASSERT:
                    mask, accepted = self.tests[pc]
                    if ctx & mask in accepted:
                        stack.append(pc + 1)
                else:  # _RX_CHAR or _RX_MATCH
                    got |= 1 << pc
        reach[bit] = got
        self.spend(1 + (got.bit_length() >> 6))
        return got

    def readers(self, ch: str) -> int:
        """The _RX_CHAR instructions whose class has ch (memoised in self.chars)."""
        readers = self.literals.get(ch, 0)
        for cls, pcs in self.others:
            readers |= pcs if cls.has(ch) else 0
        self.chars[ch] = readers
        self.spend(1)
        return readers

    def context(self, text: str, i: int, ctx: int) -> int:
        """ctx plus the word bits of position i (ECMA-262 IsWordChar on both sides)."""
        if self.words and i and text[i - 1] in _RX_WORD:
            ctx |= _RX_PREV_WORD
        if self.words and i < len(text) and text[i] in _RX_WORD:
            ctx |= _RX_NEXT_WORD
        return ctx

    def closure(self, st: _RxState, ctx: int) -> int:
        got = st.closures.get(ctx)
        if got is None:
            got = st.closures[ctx] = self.threads(st.kernel, ctx)
            self.spend(1 + (got.bit_length() >> 6))
        return got

    def step(self, st: _RxState, outside: int, ch: str, row: dict[str, _RxState]) -> _RxState:
        """The DFA transition on ch at a position with these outside context bits,
        remembered in row.  The word bits follow from st and ch (swapped when reversed)."""
        word = ch in _RX_WORD
        before, after = (word, st.word) if self.reverse else (st.word, word)
        ctx = outside | (_RX_PREV_WORD if before else 0) | (_RX_NEXT_WORD if after else 0)
        threads, readers = self.closure(st, ctx & self.uses), self.chars.get(ch)
        kernel = (threads & (self.readers(ch) if readers is None else readers)) << 1  # pc reads ch: on to pc + 1
        hit = bool(threads & self.match)
        key = (kernel, False, False) if self.dead and not kernel and not hit else (kernel, word and self.words, hit)
        nxt = self.states.get(key)
        if nxt is None:
            nxt = self.states[key] = _RxState(*key)
            self.spend(4 + (kernel.bit_length() >> 6))
        row[ch] = nxt
        self.spend(1)
        return nxt


def _rx_search(prog: _RxProgram, text: str) -> bool:
    """Search with a program without lookarounds: mid-text no outside context bit is
    set, so a warm DFA costs one dict lookup per character."""
    if not text:
        return _rx_simulate(prog, text, None, 0, 0, 0)
    st, dead, flushes = prog.step(prog.empty, _RX_AT_START & prog.uses, text[0], {}), prog.dead, prog.flushes
    chars = iter(text)
    next(chars)
    for ch in chars:
        if st.hit:
            return True
        if st is dead:
            break
        nxt = st.next0.get(ch)
        if nxt is None:
            if prog.flushes > flushes + 1:  # the cache thrashes: plain simulation is faster
                return _rx_simulate(prog, text, None, 0, len(text) - length_hint(chars) - 1, st.kernel)
            nxt = prog.step(st, 0, ch, st.next0)
        st = nxt
    return st.hit or _rx_simulate(prog, text, None, 0, len(text), st.kernel)


def _rx_scan(prog: _RxProgram, text: str, outside: list[int], bit: int) -> bool:
    """Run prog over text with the DFA, right to left if prog.reverse.  outside[i]
    holds the context bits of position i that no state can know: the ends and
    lookaround results.  With bit 0, tell whether MATCH is reached anywhere; else
    set bit in outside[i] at each position i where it is."""
    n, st, flushes = len(text), prog.empty, prog.flushes
    for i in range(n, 0, -1) if prog.reverse else range(n):
        ch, bits = text[i - 1 if prog.reverse else i], outside[i] & prog.uses
        if st.rows is None:  # made on demand: fewer objects for the garbage collector
            st.rows = {0: st.next0}
        row = st.rows.get(bits)
        if row is None:
            row = st.rows[bits] = {}
        nxt = row.get(ch)
        if nxt is None:
            if prog.flushes > flushes + 1:
                return _rx_simulate(prog, text, outside, bit, i, st.kernel)
            nxt = prog.step(st, bits, ch, row)
        st = nxt
        if st.hit:  # MATCH at position i, before ch
            if not bit:
                return True
            outside[i] |= bit
    return _rx_simulate(prog, text, outside, bit, 0 if prog.reverse else n, st.kernel)


def _rx_simulate(prog: _RxProgram, text: str, outside: list[int] | None, bit: int,
                 start: int, kernel: int) -> bool:
    """Like _rx_scan (outside None: only the ends), but a plain Thompson simulation
    from position start with these threads: no DFA state is made.  This runs when
    the DFA cache thrashes, and for the last position."""
    n = len(text)
    for i in range(start, 0, -1) if prog.reverse else range(start, n):
        ctx = outside[i] if outside is not None else _RX_AT_START if i == 0 else 0
        threads = prog.threads(kernel, prog.context(text, i, ctx) & prog.uses)
        if threads & prog.match:
            if outside is None or not bit:
                return True
            outside[i] |= bit
        ch = text[i - 1] if prog.reverse else text[i]
        readers = prog.chars.get(ch)
        kernel = (threads & (prog.readers(ch) if readers is None else readers)) << 1
    end = 0 if prog.reverse else n
    ctx = outside[end] if outside is not None else _RX_AT_END | (_RX_AT_START if n == 0 else 0)
    if not prog.threads(kernel, prog.context(text, end, ctx) & prog.uses) & prog.match:
        return False
    if outside is not None:
        outside[end] |= bit
    return True


class _RxMatcher:
    """The search predicate: lookaround passes first (inner ones first), then the main one."""

    def __init__(self, prog: _RxProgram, looks: list[_RxProgram]) -> None:
        self.prog, self.looks = prog, looks

    def __call__(self, text: str) -> bool:
        if not self.looks:
            return _rx_search(self.prog, text)
        outside = [0] * (len(text) + 1)
        outside[0] |= _RX_AT_START
        outside[-1] |= _RX_AT_END
        for k, body in enumerate(self.looks):
            _rx_scan(body, text, outside, 1 << (_RX_LOOK_SHIFT + k))
        return _rx_scan(self.prog, text, outside, 0)


# --- The re accelerator, for patterns on which re's backtracking stays linear ---

def _compile_pattern(pattern: str, accelerate: bool | None = None) -> Callable[[str], bool]:
    """A search predicate for an ECMA-262 ``pattern``: true where it matches anywhere
    in the string (JSON Schema patterns are not anchored).  ValueError names the
    problem.  accelerate: use re where provably safe (default: _RX_ACCELERATE)."""
    try:
        node = _RxParser(pattern).parse()
        compiler = _RxCompiler(pattern)
        prog = compiler.program(node, reverse=False)  # even for re: same errors either way
        if (_RX_ACCELERATE if accelerate is None else accelerate) and not compiler.looks \
                and compiler.size <= _RX_MAX_ACCELERATED:
            fast = _rx_accelerated(node)
            if fast is not None:
                return fast
    except RecursionError:
        raise ValueError(f"invalid pattern {_rx_shown(pattern)}: nested too deeply") from None
    return _RxMatcher(prog, compiler.looks)


# ---------------------------------------------------------------------------
# 29. A client
# ---------------------------------------------------------------------------
#
# Fenced: the spec path is the server; this client serves users and the command line.
#
#   entry                 where it is used                    what it serves
#   --------------------  ----------------------------------  ---------------------------------------------
#   Client                users (public), _cli (section 32)   a server over stdio or HTTP, every revision
#   _StdioClient          Client                              a server over stdio, started as a child
#   _load_server          wsgi_app (section 33)               a server file, for serve and for WSGI servers
#   _finite               _param_header_problem (section 19)  a number's text read as a finite float
#
# A client over stdio (a child process it starts) or Streamable HTTP: it
# speaks to a server as a real client would (initialize, or 2026-07-28's
# per-request _meta), answers its questions with the caller's callbacks (the
# command line's ask at the terminal), and refuses whatever the server sends malformed.
# A request has one deadline, whatever the server sends meanwhile; given up on,
# it is cancelled and its late answer dropped; a message is at most
# max_message_bytes, read and held no further (basic/lifecycle, "Timeouts").

# Seconds a server gets to exit once its stdin is closed, and again after SIGTERM.
_GRACE = 1.0
# Bytes of one message the client reads (a stdio line, an SSE event, a JSON body): the
# server's own max_message_bytes; Client(max_message_bytes=...) sets another.
_MAX_MESSAGE = 4 * 1024 * 1024


class _UsageError(Exception):
    """Bad command-line use: exit code 2."""


class _Refused(_UsageError):
    """Our own ``serve`` child refused the file and said why on stderr: exit
    code 2, and nothing to add, so that stderr stays one line."""


class _ServerFailed(Exception):
    """The server died, timed out, answered with an error or sent something
    malformed: exit code 3."""


class _TimedOut(_ServerFailed):
    """A request's deadline passed (the transport names the request)."""

    def __init__(self) -> None:
        super().__init__("the server did not answer within the timeout")


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if abs(value) == float("inf"):
        raise OverflowError(text)  # not a ValueError: key=value must not take it for text
    return value


# NaN and Infinity are Python's, not JSON (RFC 8259).  1e400 is JSON's syntax,
# but Python reads it as inf, which would go out as Infinity: refused as bad
# usage.  The decoders are the command line's own.
_SERVER_JSON = json.JSONDecoder(parse_constant=_not_json)
_USER_JSON = json.JSONDecoder(parse_constant=_not_json, parse_float=_finite)


def _user_json(text: str, what: str) -> Any:
    """``text`` read as JSON, or ValueError when it is not JSON.  JSON that
    cannot be sent on (a number beyond a double, nesting too deep) is bad usage."""
    try:
        return _USER_JSON.decode(text)
    except OverflowError as exc:
        raise _UsageError(f"{what}: the number {exc} is beyond a double (it would be sent as Infinity, "
                          f"which is not JSON); quote it to send text") from None
    except RecursionError:
        raise _UsageError(f"{what}: nested too deeply") from None


def _load_server(path: str) -> MCPServer:
    """Import a server file and find its MCPServer; every failure is bad usage."""
    import importlib.util

    if not os.path.isfile(path):
        raise _UsageError(f"no such file: {path}")
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)
    name = os.path.splitext(os.path.basename(path))[0]
    if not name.isidentifier() or name in sys.modules:
        name = "_mcp_ref_server"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise _UsageError(f"cannot import {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the file's own bug: what it raised, and where
        raise _UsageError(f"cannot load {path}: {_raised(exc, path)}") from None
    servers = [v for v in vars(module).values() if isinstance(v, MCPServer)]
    if not servers:
        raise _UsageError(f"{path} defines no mcp_ref.MCPServer")
    return servers[0]


def _raised(exc: BaseException, path: str) -> str:
    """``ZeroDivisionError: division by zero (line 3)``, the line being the
    last of ``path`` in the traceback (a SyntaxError names its own)."""
    import traceback

    where = ""
    for frame, line in traceback.walk_tb(exc.__traceback__):
        if os.path.abspath(frame.f_code.co_filename) == os.path.abspath(path):
            where = f" (line {line})"
    return _one_line(f"{type(exc).__name__}: {exc}", 300) + where


class _StdioClient:
    """Client's stdio transport: the server a child process, a message a line."""

    def __init__(self, command: List[str], trace: Optional[Callable[[str, Any], None]], timeout: float,
                 own: bool = False, limit: int = _MAX_MESSAGE) -> None:
        import subprocess
        import threading

        self.trace = trace
        self.timeout = timeout
        self.own = own  # our own serve child: its exit code 2 is a file it refused
        self.heard = False
        self.next_id = 0
        self.limit = limit  # bytes of one message (Client(max_message_bytes=...))
        self.held = 0.0  # seconds the caller's callbacks took: no request's deadline counts them
        self.forgotten: "set[int]" = set()  # requests given up on: their late answers are dropped
        self.cancellable = True  # the request waiting: with notifications/cancelled when given up on
        self.handler: Callable[[Dict[str, Any]], None] = lambda message: None  # Client's
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the command
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise _UsageError(f"cannot start the server {command[0]!r}: {reason}") from None
        self.lines = _Lines(limit)
        stdout = self.process.stdout
        assert stdout is not None and self.process.stdin is not None
        self.stdin = self.process.stdin
        if os.name == "posix":
            os.set_blocking(self.stdin.fileno(), False)  # (written with os.write, by a deadline: _write)
        threading.Thread(target=_pump, args=(stdout, self.lines, limit), daemon=True).start()

    def _show(self, arrow: str, message: Any) -> None:
        if self.trace is not None:
            self.trace(arrow, message)

    def send(self, message: Dict[str, Any], end: Optional[float] = None) -> None:
        """Write one message, by ``end`` (a request's deadline; else the timeout
        from now): a server that stops reading its stdin cannot hold the client."""
        try:
            data = json.dumps(message, allow_nan=False).encode() + b"\n"
        except (ValueError, RecursionError) as exc:  # only the user's arguments can do this
            raise _UsageError(f"cannot send the arguments as JSON: {exc}") from None
        self._show("->", message)
        what = message.get("method", "our answer")
        if self.stdin.closed:  # (by _write's failure)
            raise _ServerFailed(f"cannot send {what}: the server stopped reading what this client sends")
        try:
            if not self._write(data, time.monotonic() - self.held + self.timeout if end is None else end):
                self.stdin.close()  # a message cut short: the server reads nothing more of ours
                raise _ServerFailed(f"the server did not read {what} within {self.timeout:g} s")
        except OSError:  # BrokenPipeError: it is gone
            raise self._died(f"before reading {what}") from None

    def _write(self, data: bytes, end: float) -> bool:
        """Whether all of ``data`` went into the pipe by ``end``.  POSIX: the pipe
        is non-blocking and waited on; elsewhere a write blocks until it is read."""
        import selectors

        if os.name != "posix":
            self.stdin.write(data)
            self.stdin.flush()
            return True
        fd, view = self.stdin.fileno(), memoryview(data)
        while view:
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:  # the pipe is full: the server is not reading (yet)
                left = end + self.held - time.monotonic()
                with selectors.DefaultSelector() as selector:
                    selector.register(fd, selectors.EVENT_WRITE)
                    if left <= 0 or not selector.select(left):
                        return False
        return True

    def request(self, method: str, params: Dict[str, Any], headers: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        """The response to one request: an object with a "result" object or an
        "error" object; anything else from the server is _ServerFailed.  (headers: HTTP's only)"""
        self.next_id += 1
        id_ = self.next_id
        # One deadline for the request, whatever the server sends meanwhile
        # (basic/lifecycle, "Timeouts"); the time our callbacks take is not the server's.
        end = time.monotonic() + self.timeout - self.held
        self.send({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}, end)
        self.cancellable = _cancellable(method, params)
        while True:
            message = self._receive(method, end, id_)
            if "method" in message:  # the server's own request or notification: Client's to answer
                self.handler(message)
            elif type(message.get("id")) is int and message["id"] in self.forgotten:
                self.forgotten.discard(message["id"])  # a late answer to a request given up on: dropped
            else:
                try:
                    return _response(message, id_, method)
                except _ServerFailed as exc:  # its own answer may follow: given up on too
                    raise self._give_up(id_, method, str(exc)) from None

    def _receive(self, method: str, end: float, id_: int) -> Dict[str, Any]:
        """The server's next message: one JSON object on one line.  A request
        that fails here, its answer perhaps unread, is given up on (_give_up)."""
        import threading

        # A huge --timeout would overflow the lock's wait; none left: the deadline
        # holds even while lines keep coming (a server that floods notifications).
        left = end + self.held - time.monotonic()
        line = self.lines.get(min(left, threading.TIMEOUT_MAX)) if left > 0 else _Lines.EMPTY
        if line is _Lines.EMPTY:
            raise self._give_up(id_, method, f"the server did not answer {method} within {self.timeout:g} s")
        if line is None:
            raise self._died(f"before answering {method}")
        self.heard = True
        if line is _Lines.TOO_LONG:
            raise self._give_up(id_, method, f"the server wrote a message longer than {self.limit} bytes "
                                             f"(the client's max_message_bytes) while {method} waited")
        if not line.endswith(b"\n"):  # the cut last line of a server that exited
            raise self._died(f"in the middle of its answer to {method}")
        try:
            message = _SERVER_JSON.decode(line.decode("utf-8"))
        except RecursionError:
            raise self._give_up(id_, method, f"the server wrote JSON nested too deeply to read: {line[:100]!r}") \
                from None
        except ValueError as exc:
            reason = _one_line(str(exc), 80)
            raise self._give_up(id_, method, f"the server wrote a line that is not JSON ({reason}): "
                                             f"{line[:100]!r}") from None
        self._show("<-", message)
        if not isinstance(message, dict):
            raise self._give_up(id_, method, f"the server wrote JSON that is not an object: {line[:100]!r}")
        return message

    def _give_up(self, id_: int, method: str, reason: str) -> _ServerFailed:
        """What to raise for a request given up on: the server is told
        (notifications/cancelled, where _cancellable), and its late answer will be dropped."""
        self.forgotten.add(id_)
        if self.cancellable:
            try:
                self.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": id_, "reason": reason}})
            except _ServerFailed:  # gone: nothing to tell
                pass
        return _ServerFailed(reason)

    def _died(self, when: str) -> Exception:
        """What to raise once the server has closed its end of a pipe."""
        import subprocess

        try:
            code = self.process.wait(timeout=_GRACE)
        except subprocess.TimeoutExpired:
            return _ServerFailed(f"the server closed the pipe {when} but did not exit")
        if self.own and code == 2 and not self.heard:
            return _Refused()
        how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        return _ServerFailed(f"the server exited {when} ({how})")

    def close(self) -> None:
        """Close the server's stdin, its cue to exit; one that does not, within
        _GRACE seconds, is terminated, and then killed."""
        import subprocess

        self.lines.close()
        try:
            self.stdin.close()
        except OSError:  # the flush, into a pipe the server has closed
            pass
        for stop in (None, self.process.terminate, self.process.kill):
            try:
                if stop is not None:
                    stop()
                self.process.wait(timeout=_GRACE)
                return
            except subprocess.TimeoutExpired:
                continue
            except OSError:  # gone already
                return


def _cancellable(method: str, params: Dict[str, Any]) -> bool:
    """Whether a request given up on is cancelled with notifications/cancelled
    (basic/utilities/cancellation): not initialize (clients MUST NOT), nor a
    task-augmented request (tasks/cancel MUST be used instead, once it is a task)."""
    return method != "initialize" and "task" not in params


def _pump(stdout: Any, lines: _Lines, limit: int) -> None:
    """The reader of a server's stdout: its lines, one message each, into
    ``lines``; a line longer than ``limit`` is skipped, read a piece at a time
    (never held whole), and TOO_LONG put in its place; None at the end."""
    with stdout:  # closed at the end of its output
        while True:
            line = stdout.readline(limit + 1)
            if len(line) > limit and not line.endswith(b"\n"):
                line = b"-"  # (freed before the rest is read)
                while line and not line.endswith(b"\n"):
                    line = stdout.readline(65536)
                lines.put(_Lines.TOO_LONG)
            elif line:
                lines.put(line)
            else:
                break
    lines.put(None)


class _Lines:
    """The lines read ahead of the client, at most about ``limit`` bytes of
    them: a server that floods its stdout waits on its pipe, as a peer that
    reads slowly makes it, rather than filling the client's memory."""

    EMPTY: Any = object()  # get: nothing came in time
    TOO_LONG: Any = object()  # in place of a line longer than the limit

    def __init__(self, limit: int) -> None:
        import collections
        import threading

        self.limit, self.size, self.closed = limit, 0, False
        self.items: Any = collections.deque()
        self.ready = threading.Condition()

    def put(self, item: Any) -> None:
        size = len(item) if isinstance(item, bytes) else 0
        with self.ready:
            while self.size and self.size + size > self.limit and not self.closed:
                self.ready.wait()
            if not self.closed:
                self.items.append(item)
                self.size += size
            self.ready.notify_all()

    def get(self, timeout: float) -> Any:
        with self.ready:
            if not self.items and not self.ready.wait_for(lambda: self.items, timeout):
                return self.EMPTY
            item = self.items.popleft()
            self.size -= len(item) if isinstance(item, bytes) else 0
            self.ready.notify_all()
            return item

    def close(self) -> None:
        with self.ready:
            self.closed = True
            self.items.clear()
            self.ready.notify_all()


def _person_at_terminal() -> bool:
    """Whether a person is at the terminal to answer an elicitation."""
    return sys.stdin is not None and sys.stdin.isatty() and sys.stderr.isatty()


def _elicit_at_terminal(params: Any) -> Dict[str, Any]:
    """An elicitation answered by the user: each field of the requested schema
    asked for on stderr and read from stdin; no declines, and the end of input
    or an answer that is not of its field's type cancels."""
    params = params if isinstance(params, dict) else {}
    print(f"The server asks: {_one_line(str(params.get('message', '')), 500)}", file=sys.stderr)
    try:
        if _read_line("Answer? [y/N] ").strip().lower() not in ("y", "yes"):
            return {"action": "decline"}
        content: Dict[str, Any] = {}
        schema = params.get("requestedSchema")
        for name, prop in ((schema or {}).get("properties") or {}).items() if isinstance(schema, dict) else ():
            kind = str(prop.get("type")) if isinstance(prop, dict) else "string"
            text = _read_line(f"  {name} ({kind}): ").strip()
            if text:
                content[name] = _typed_answer(kind, text)
        return {"action": "accept", "content": content}
    except (EOFError, ValueError):
        return {"action": "cancel"}


def _typed_answer(kind: str, text: str) -> Any:
    if kind == "integer":
        return int(text)
    if kind == "number":
        return float(text)
    if kind == "boolean":
        return text.lower() in ("y", "yes", "true", "1")
    return text


def _response(message: Dict[str, Any], id_: int, method: str) -> Dict[str, Any]:
    """``message`` checked as the response to our request ``id_``: one request
    is in flight at a time, so any other response is the server's failure."""
    got = message.get("id")
    if got is None and "error" in message:  # about a line it could not read: no answer will follow
        raise _ServerFailed(f"the server reported an error while {method} waited: {_error_text(message['error'])}")
    if type(got) is not int or got != id_:  # 1.0, "1" and true are not the id 1
        raise _ServerFailed(f"the server answered id {_one_line(json.dumps(got), 40)} while {method} (id {id_}) waited")
    if ("result" in message) == ("error" in message):
        both = "both" if "result" in message else "neither"
        raise _ServerFailed(f"the server's answer to {method} has {both} result and error")
    if "error" in message and not isinstance(message["error"], dict):
        raise _ServerFailed(f"{method} failed: {_error_text(message['error'])}")
    if "result" in message and not isinstance(message["result"], dict):
        raise _ServerFailed(f"the server's result for {method} is not an object")
    return message


def _checked_tools(page: Any) -> List[Dict[str, Any]]:
    """A page of tools/list's ``tools``: a list of objects, each with a name."""
    if not isinstance(page, list):
        raise _ServerFailed("tools/list: tools is not a list")
    for index, tool in enumerate(page):
        if not isinstance(tool, dict):
            raise _ServerFailed(f"tools/list: tool {index} is not an object")
        if not isinstance(tool.get("name"), str):
            raise _ServerFailed(f"tools/list: tool {index} has no name (a string)")
    return page


def _error_text(error: Any) -> str:
    if not isinstance(error, dict):
        return f"an error that is not an object: {_one_line(json.dumps(error), 80)}"
    message, code = error.get("message"), error.get("code")
    text = _one_line(message, 1000) if isinstance(message, str) else "no message"
    return f"{text} (JSON-RPC error {code if type(code) is int else 'without a code'})"


# -- mcp_ref.Client: the public client --------------------------------------------------

_ROUNDS = 10  # rounds of questions a 2026-07-28 request may bring (basic/patterns/mrtr)
_MAX_PAGES = 1000  # pages a list with all_pages=True may take (a server may paginate forever)
_TASK_POLLS = 100_000  # tasks/get polls before call_tool gives up on a task (a day at 1 s)
# The callback that answers each method a server may ask the client, and the
# capability it declares (client/sampling, client/elicitation, client/roots).
_CALLBACKS = {"sampling/createMessage": ("sampling_callback", "sampling"),
              "elicitation/create": ("elicitation_callback", "elicitation"),
              "roots/list": ("list_roots_callback", "roots")}


class Client:
    """A client of one MCP server, over stdio or Streamable HTTP, in every revision.

    >>> with Client("python server.py") as client:               # doctest: +SKIP
    ...     print(client.call_tool("add", {"a": 1, "b": 2})["structuredContent"])
    {'result': 3}

    ``server`` is a command (a string, split as a POSIX shell would, or a list)
    started as a child process that speaks stdio, or an ``http(s)://`` URL of a
    Streamable HTTP endpoint.  ``with`` connects (``initialize()``) and closes.
    ``protocol_version`` None asks for 2026-07-28 (``server/discover``, then
    per-request ``_meta``) and falls back to the ``initialize`` handshake with
    2025-11-25 for a server that does not speak it (basic/versioning); a given
    revision is used as is.  After ``initialize()``, ``protocol_version`` is the
    revision spoken and ``initialize_result`` the server's answer.

    The methods are ``ClientSession``'s; each returns the result as JSON (a
    dict).  A list method returns one page (``cursor``: the next);
    ``all_pages=True`` follows ``nextCursor`` and returns every item in one
    result.  A JSON-RPC error is raised as
    ``MCPError`` (``code``, ``message``, ``data``; -32021 names the capability
    the server needs); a server that dies, times out or sends what is not MCP
    raises ``ConnectionError``; arguments that are not JSON, ``ValueError``.
    ``timeout`` is one deadline per request, whatever the server sends
    meanwhile (the callbacks' time not counted); a request given up on is
    cancelled and its late answer dropped.  ``max_message_bytes`` bounds one
    message read (a stdio line, an SSE event, a JSON body; 4 MiB, the
    server's own limit): a longer one fails the request waiting on it, unread.

    Callbacks answer the server's requests, given its ``params`` (a dict) and
    returning the result as a dict (raising ``MCPError``: that error); the
    client declares exactly the capabilities it has callbacks for:
    ``sampling_callback(params)``, ``elicitation_callback(params)`` (form and
    URL mode; an accepted form gets the schema's defaults for fields left out),
    ``list_roots_callback()``; ``logging_callback(params)`` hears log messages,
    ``message_handler(message)`` every message of the server's own, and
    ``call_tool(..., progress_callback=f)`` calls ``f(progress, total, message)``.
    ``trace(direction, message)`` sees every JSON-RPC message, both ways, as
    sent and as read (direction ``"->"`` or ``"<-"``): the command line's --trace.

    In 2026-07-28 a request answered with ``resultType: "input_required"`` is
    asked of the same callbacks and sent again with ``inputResponses`` and the
    server's ``requestState`` unchanged (basic/patterns/mrtr), at most 10 rounds.

    Over HTTP, ``headers`` go with every request, and ``auth`` is any object
    with ``headers(url) -> dict`` (called before each request, its headers
    added) and ``unauthorized(url, status, www_authenticate) -> bool`` (on a
    401, or a 403 with ``insufficient_scope``; True: sent again with fresh
    headers, twice at most).  Sessions, the GET stream, resumption, headers:
    section 30.  The API is synchronous (no async one); a ``$ref`` is never fetched.

    ``tasks=True`` takes tasks (section 16): in 2026-07-28 the client declares
    the tasks extension, in 2025-11-25 it asks for a task where a tool's
    ``execution.taskSupport`` allows one; ``call_tool`` follows a task to its result.

    Extensions (SEP-2133): ``extensions`` maps each identifier the client
    supports to its settings, declared under ``capabilities.extensions`` in every
    revision; ``apps=True`` declares MCP Apps with the MIME type it renders
    (``text/html;profile=mcp-app``).  ``server_extensions`` is what the server
    declared; ``send_request(method, params)`` sends any request, an
    extension's own method too.
    """

    def __init__(self, server: Union[str, List[str]], *, protocol_version: Optional[str] = None,
                 sampling_callback: Optional[Callable[..., Any]] = None,
                 elicitation_callback: Optional[Callable[..., Any]] = None,
                 list_roots_callback: Optional[Callable[..., Any]] = None,
                 logging_callback: Optional[Callable[..., Any]] = None,
                 message_handler: Optional[Callable[..., Any]] = None,
                 client_info: Optional[Dict[str, Any]] = None, auth: Any = None,
                 headers: Optional[Dict[str, str]] = None, timeout: float = 60.0,
                 trace: Optional[Callable[[str, Any], None]] = None, tasks: bool = False,
                 extensions: Optional[Dict[str, Dict[str, Any]]] = None, apps: bool = False,
                 max_message_bytes: int = _MAX_MESSAGE) -> None:
        if protocol_version is not None and protocol_version not in _ALL_VERSIONS:
            raise ValueError(f"unknown protocol_version {protocol_version!r}; known: {', '.join(_ALL_VERSIONS)}")
        self.server, self.protocol_version, self.timeout = server, protocol_version, timeout
        self.sampling_callback, self.elicitation_callback = sampling_callback, elicitation_callback
        self.list_roots_callback, self.logging_callback = list_roots_callback, logging_callback
        self.message_handler, self.auth, self.headers = message_handler, auth, dict(headers or {})
        self.client_info = client_info or {"name": "mcp_ref", "version": __version__}
        self.trace, self.tasks = trace, tasks
        self.extensions = _client_extensions(extensions, apps)
        self.max_message_bytes = max_message_bytes
        self.initialize_result: Optional[Dict[str, Any]] = None
        self._transport: Any = None
        self._meta: Optional[Dict[str, Any]] = None  # 2026-07-28: every request's _meta
        self._tools: Dict[str, Dict[str, Any]] = {}  # from list_tools: outputSchema, x-mcp-header
        self._listed = False  # every page of tools/list seen once
        self._progress: Dict[int, Callable[..., Any]] = {}
        self._tokens = itertools.count(1)

    def __enter__(self) -> Client:
        self.initialize()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        """End the session (HTTP: DELETE) or the child process (stdio)."""
        transport, self._transport = self._transport, None
        if transport is not None:
            transport.close()

    # -- the lifecycle (basic/lifecycle; 2026-07-28 basic/versioning) ---------------

    def initialize(self) -> Dict[str, Any]:
        """Connect and agree on a revision; the server's answer (InitializeResult,
        or 2026-07-28's DiscoverResult)."""
        if self._transport is not None:
            raise RuntimeError("this client is initialized already")
        self._transport, self._meta = self._open(), None
        wanted = self.protocol_version
        try:
            if wanted is None or wanted in STATELESS_VERSIONS:
                result = self._discover(wanted or STATELESS_VERSIONS[-1], fallback=wanted is None)
                if result is not None:
                    return result
            version = wanted or LATEST_HANDSHAKE_VERSION
            result = self._result("initialize", self._call("initialize", {
                "protocolVersion": version, "capabilities": self._capabilities(version),
                "clientInfo": self.client_info}))
            spoken = result.get("protocolVersion")
            if spoken not in HANDSHAKE_VERSIONS:  # basic/lifecycle: a client that cannot speak it disconnects
                raise ConnectionError(f"the server answered initialize with protocol version "
                                      f"{_one_line(json.dumps(spoken), 40)}, which this client does not speak")
            self.protocol_version, self.initialize_result = spoken, result
            self._transport.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            if hasattr(self._transport, "listen"):
                self._transport.listen()  # the GET stream, for the server's own messages
            return result
        except BaseException:
            self.close()
            raise

    def _open(self) -> Any:
        server = self.server
        try:
            if isinstance(server, str) and server.startswith(("http://", "https://")):
                transport: Any = _HttpClient(server, self.trace, self.timeout, self.max_message_bytes)
                transport.auth, transport.extra = self.auth, self.headers
            else:
                import shlex

                command = shlex.split(server) if isinstance(server, str) else [str(word) for word in server]
                if not command:
                    raise ValueError("the server command is empty")
                if len(command) == 1 and command[0].endswith(".py"):  # a server file: run by this Python
                    command.insert(0, sys.executable)
                # (our own serve child, the command line's: its exit code 2 is a file it refused)
                own = command[:3] == [sys.executable, os.path.abspath(__file__), "serve"]
                transport = _StdioClient(command, self.trace, self.timeout, own, self.max_message_bytes)
        except _UsageError as exc:
            raise ValueError(str(exc)) from None
        transport.handler = self._on_message
        return transport

    def _discover(self, version: str, fallback: bool) -> Optional[Dict[str, Any]]:
        """server/discover; None for a server of the handshake era (when falling back)."""
        for _ in range(2):  # once more with a version from the server's -32022 list
            meta = {META_PROTOCOL_VERSION: version, META_CLIENT_CAPABILITIES: self._capabilities(version),
                    META_CLIENT_INFO: self.client_info}
            reply = self._call("server/discover", {"_meta": meta})
            result = reply.get("result")
            if isinstance(result, dict) and version in (result.get("supportedVersions") or ()):
                self._meta, self.protocol_version = meta, version
                self._transport.version = version
                self.initialize_result = self._result("server/discover", reply)
                return self.initialize_result
            error: Dict[str, Any] = reply["error"] if isinstance(reply.get("error"), dict) else {}
            data = error["data"] if isinstance(error.get("data"), dict) else {}
            listed = result.get("supportedVersions") if isinstance(result, dict) else data.get("supported")
            offered = [v for v in listed if v in STATELESS_VERSIONS] if isinstance(listed, list) else []
            if result is not None:  # a DiscoverResult without our version
                error = {"code": UNSUPPORTED_PROTOCOL_VERSION, "message": f"the server does not offer {version}"}
            if error.get("code") == UNSUPPORTED_PROTOCOL_VERSION and offered:
                version = max(offered)
                continue
            if fallback:
                return None
            raise _rpc_error("server/discover", error)
        if not fallback:  # the version the server named first is not in its own list either
            raise _rpc_error("server/discover", error)
        return None

    def _capabilities(self, version: str) -> Dict[str, Any]:
        """What this client can do: a capability for each callback given."""
        capabilities: Dict[str, Any] = {}
        if self.sampling_callback is not None:
            capabilities["sampling"] = {}
        if self.elicitation_callback is not None:  # both modes from 2025-11-25 (client/elicitation)
            capabilities["elicitation"] = {"form": {}, "url": {}} if version >= "2025-11-25" else {}
        if self.list_roots_callback is not None:
            capabilities["roots"] = {"listChanged": True}  # as the SDK declares it
        extensions = dict(self.extensions)  # basic/versioning: the extensions it supports, with their settings
        if self.tasks and version in STATELESS_VERSIONS:  # a call may become a task (section 16)
            extensions[TASKS_EXTENSION] = {}
        if extensions:
            capabilities["extensions"] = extensions
        return capabilities

    @property
    def server_extensions(self) -> Dict[str, Any]:
        """The extensions the server declared (``capabilities.extensions``: each
        identifier and its settings); {} before initialize() or without any."""
        capabilities = (self.initialize_result or {}).get("capabilities")
        extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
        return dict(extensions) if isinstance(extensions, dict) else {}

    def send_request(self, method: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """Any request, e.g. a method an extension adds: its result (in 2026-07-28
        with this client's _meta, and asked again while the server wants input);
        a JSON-RPC error raised as MCPError."""
        if not isinstance(method, str) or not method:
            raise ValueError(f"a request's method is a non-empty string, not {method!r}")
        return self._request(method, dict(params or {}))

    # -- skills (io.modelcontextprotocol/skills, section 26) ---------------------------

    def list_skills(self, cursor: Optional[str] = None, *, all_pages: bool = False) -> Dict[str, Any]:
        """skills/list: the Skill entries the server lists (one page, or all)."""
        return self._list(self._skills_method("skills/list"), "skills", cursor, all_pages)

    def get_skill(self, uri: str) -> Dict[str, Any]:
        """skills/get: the Skill entry of the SKILL.md at ``uri``."""
        skill = self._request(self._skills_method("skills/get"), {"uri": uri}).get("skill")
        if not isinstance(skill, dict) or not isinstance(skill.get("resources"), (list, str)):
            raise ConnectionError(f"skills/get: the server's answer for {uri} is no Skill entry")
        return skill

    def read_directory(self, uri: str, cursor: Optional[str] = None) -> Dict[str, Any]:
        """resources/directory/read, where the server declared directoryRead."""
        if self.server_extensions.get(SKILLS_EXTENSION, {}).get("directoryRead") is not True:
            raise RuntimeError("the server did not declare directoryRead: no resources/directory/read (skills)")
        return self._request("resources/directory/read", _drop_none({"uri": uri, "cursor": cursor}))

    def read_skill_file(self, skill: Dict[str, Any], uri: str) -> bytes:
        """A file of ``skill`` (an entry from list_skills or get_skill), checked as
        skills, "Integrity and Verification" asks: listed, of its size and digest,
        and a SKILL.md's frontmatter the entry's.  A check that fails is ValueError."""
        listed = {item.get("uri"): item for item in skill.get("resources") or () if isinstance(item, dict)}
        if skill.get("resources") != "dynamic" and uri not in listed:
            raise ValueError(f"{uri} is not a file of the skill {skill.get('uri')}: not read")
        contents = self.read_resource(uri).get("contents") or [{}]
        data = _content_bytes(contents[0])
        entry = listed.get(uri)
        if entry is not None:
            import hashlib

            digest = "sha256:" + hashlib.sha256(data).hexdigest()
            if len(data) != entry.get("size") or digest != entry.get("digest"):
                raise ValueError(f"{uri} is not what the skill's entry describes ({len(data)} bytes, {digest}): "
                                 "refresh it with get_skill")
        if uri == skill.get("uri") and _frontmatter(data.decode("utf-8", "replace"), uri) != skill.get("frontmatter"):
            raise ValueError(f"{uri}: its frontmatter is not the skill entry's")
        return data

    def _skills_method(self, method: str) -> str:
        if SKILLS_EXTENSION not in self.server_extensions:  # skills: "only after observing the declaration"
            raise RuntimeError(f"the server did not declare {SKILLS_EXTENSION}: no {method}")
        return method

    # -- requests -----------------------------------------------------------------

    def send_ping(self) -> Dict[str, Any]:  # (not in 2026-07-28)
        return self._request("ping", {})

    def set_logging_level(self, level: str) -> Dict[str, Any]:
        """logging/setLevel; in 2026-07-28 the level goes in every request's _meta."""
        if self._meta is not None:
            self._meta[META_LOG_LEVEL] = level
            return {}
        return self._request("logging/setLevel", {"level": level})

    def list_tools(self, cursor: Optional[str] = None, *, all_pages: bool = False) -> Dict[str, Any]:
        """tools/list.  In 2026-07-28 a tool whose ``x-mcp-header`` is invalid
        is left out (server/tools: a client MUST NOT call it), as by the SDK."""
        result = self._list("tools/list", "tools", cursor, all_pages)
        tools = [tool for tool in result.get("tools") or () if isinstance(tool, dict) and isinstance(
            tool.get("name"), str) and (self._meta is None or _x_mcp_headers(tool.get("inputSchema")) is not None)]
        self._tools.update((tool["name"], tool) for tool in tools)
        self._listed = self._listed or all_pages or cursor is None and "nextCursor" not in result
        return dict(result, tools=tools)

    def call_tool(self, name: str, arguments: Optional[Dict[str, Any]] = None,
                  read_timeout_seconds: Optional[float] = None, progress_callback: Optional[Callable[..., Any]] = None,
                  *, meta: Optional[Dict[str, Any]] = None, result_type: Any = None,
                  task_callback: Optional[Callable[[Dict[str, Any]], Any]] = None, return_task: bool = False) -> Any:
        """tools/call.  ``structuredContent`` is checked against the tool's
        ``outputSchema`` (from list_tools, listed first if need be): a mismatch is
        RuntimeError, as in the SDK.  ``result_type`` (a dataclass, TypedDict or any annotation):
        the structured content converted into it is returned instead of the result.

        With ``Client(tasks=True)`` a call the server answers with a task is
        followed to its end: polled with tasks/get (``task_callback(task)`` sees
        each Task, its status and statusMessage), its questions answered by the
        callbacks (2026-07-28: tasks/update), and its result returned as any
        call's (a failed task's error raised as MCPError).  ``return_task=True``:
        the CreateTaskResult instead, as the server sent it."""
        params: Dict[str, Any] = {"name": name, "arguments": arguments or {}}
        meta = dict(meta or {})
        token = next(self._tokens) if progress_callback is not None else None
        if token is not None:
            meta["progressToken"] = token
            self._progress[token] = progress_callback  # type: ignore[assignment]
        if meta:
            params["_meta"] = meta
        if name not in self._tools and not self._listed:
            self.list_tools(all_pages=True)  # for its outputSchema and x-mcp-header, as the SDK does
        execution = (self._tools.get(name) or {}).get("execution")
        if self.tasks and self._meta is None and isinstance(execution, dict) and \
                execution.get("taskSupport") in ("optional", "required"):
            params["task"] = {}  # 2025-11-25: the client asks for a task ("Tool-Level Negotiation")
        timeout = self._transport.timeout if self._transport is not None else self.timeout
        try:
            self._set_timeout(read_timeout_seconds or timeout)
            result = self._request("tools/call", params, self._param_headers(name, params["arguments"]))
            is_task = result.get("resultType") == "task" or "task" in result and self._meta is None
            if is_task and return_task:
                return result
            if is_task:
                result = self._follow_task(result.get("task") if self._meta is None else result, task_callback)
        finally:
            self._progress.pop(token, None)  # type: ignore[arg-type]
            self._set_timeout(timeout)
        return _read_structured(name, result, self._tools.get(name), result_type)

    def _follow_task(self, task: Any, callback: Optional[Callable[[Dict[str, Any]], Any]]) -> Dict[str, Any]:
        """A task polled to its end (tasks/get every pollInterval): its result
        (2025-11-25: tasks/result), or its error raised.  Questions are
        answered once each (2026-07-28: tasks/update).  Bounded: the server
        deletes a task past its TTL, and then tasks/get fails."""
        if not isinstance(task, dict) or not isinstance(task.get("taskId"), str):
            raise ConnectionError("tools/call: the server's task has no taskId")
        task_id: str = task["taskId"]
        answered: "set[str]" = set()
        for _ in range(_TASK_POLLS):
            if callback is not None:
                callback(task)
            status, asked = task.get("status"), task.get("inputRequests")
            new = {key: ask for key, ask in asked.items() if key not in answered} if isinstance(asked, dict) else {}
            if status in ("completed", "failed", "cancelled"):
                return self._task_outcome(task_id, task)
            if status == "input_required" and new and self._meta is not None:
                answers = self._input_responses("tasks/get", new)
                self._request("tasks/update", {"taskId": task_id, "inputResponses": answers})
                answered.update(answers)
            else:
                wait = task.get("pollIntervalMs", task.get("pollInterval"))
                seconds = wait / 1000 if isinstance(wait, (int, float)) and not isinstance(wait, bool) else 1.0
                time.sleep(min(max(seconds, 0.05), 10.0))
            task = self._request("tasks/get", {"taskId": task_id})
        raise ConnectionError(f"tools/call: task {task_id} did not end after {_TASK_POLLS} polls")

    def _task_outcome(self, task_id: str, task: Dict[str, Any]) -> Dict[str, Any]:
        """A finished task's result, or its error raised (the extension's
        DetailedTask inlines them; 2025-11-25 has tasks/result)."""
        if self._meta is None:
            return self._request("tasks/result", {"taskId": task_id})
        if task["status"] == "completed" and isinstance(task.get("result"), dict):
            return task["result"]  # type: ignore[no-any-return]
        if task["status"] == "failed":
            raise _rpc_error("tools/call", task.get("error"))
        if task["status"] == "cancelled":
            raise MCPError(INVALID_PARAMS, f"Task {task_id} was cancelled")
        raise ConnectionError(f"tools/call: task {task_id} completed without a result")

    def _param_headers(self, name: str, arguments: Any) -> Dict[str, str]:
        tool = self._tools.get(name)
        return _mcp_param_headers(tool.get("inputSchema"), arguments) if self._meta and tool else {}

    def _set_timeout(self, seconds: float) -> None:
        if self._transport is not None:
            self._transport.timeout = seconds
            if getattr(self._transport, "conn", None) is not None and self._transport.conn.sock is not None:
                self._transport.conn.sock.settimeout(seconds)

    def list_resources(self, cursor: Optional[str] = None, *, all_pages: bool = False) -> Dict[str, Any]:
        return self._list("resources/list", "resources", cursor, all_pages)

    def list_resource_templates(self, cursor: Optional[str] = None, *, all_pages: bool = False) -> Dict[str, Any]:
        return self._list("resources/templates/list", "resourceTemplates", cursor, all_pages)

    def read_resource(self, uri: str) -> Dict[str, Any]:
        return self._request("resources/read", {"uri": str(uri)})

    def subscribe_resource(self, uri: str) -> Dict[str, Any]:
        return self._request("resources/subscribe", {"uri": str(uri)})

    def unsubscribe_resource(self, uri: str) -> Dict[str, Any]:
        return self._request("resources/unsubscribe", {"uri": str(uri)})

    def list_prompts(self, cursor: Optional[str] = None, *, all_pages: bool = False) -> Dict[str, Any]:
        return self._list("prompts/list", "prompts", cursor, all_pages)

    def get_prompt(self, name: str, arguments: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        return self._request("prompts/get", {"name": name, "arguments": arguments or {}})

    def complete(self, ref: Dict[str, Any], argument: Dict[str, str],
                 context_arguments: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        """completion/complete: ``ref`` is ``{"type": "ref/prompt", "name": ...}`` or
        ``{"type": "ref/resource", "uri": ...}``, ``argument`` ``{"name": ..., "value": ...}``."""
        params: Dict[str, Any] = {"ref": ref, "argument": argument}
        if context_arguments is not None:
            params["context"] = {"arguments": context_arguments}
        return self._request("completion/complete", params)

    def _list(self, method: str, key: str, cursor: Optional[str], all_pages: bool) -> Dict[str, Any]:
        """One page of a list, or (all_pages) every page's items in one result.
        Items that are not a list, a nextCursor that is not a string, and a
        cursor seen before (it would list forever) are the server's failure
        (server/utilities/pagination)."""
        result = self._request(method, {} if cursor is None else {"cursor": cursor})
        items, seen = _page_items(method, key, result), set()
        while all_pages and result.get("nextCursor") not in (None, ""):
            cursor = result["nextCursor"]
            if not isinstance(cursor, str):
                raise ConnectionError(f"{method}: nextCursor {_one_line(json.dumps(cursor), 80)} is not a string")
            if cursor in seen:
                raise ConnectionError(f"{method}: the server sent the cursor {cursor!r} again (it would list forever)")
            seen.add(cursor)
            if len(seen) >= _MAX_PAGES:
                raise ConnectionError(f"{method}: the server still had more after {_MAX_PAGES} pages")
            result = self._request(method, {"cursor": cursor})
            items.extend(_page_items(method, key, result))
        return dict(result, **{key: items}) if not all_pages else {key: items}

    def _request(self, method: str, params: Dict[str, Any],
                 headers: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        """The result of a request; in 2026-07-28 with the client's _meta, and
        asked again while the server wants input (basic/patterns/mrtr)."""
        if self._transport is None:
            raise RuntimeError("the client is not connected: use `with Client(...)` or call initialize()")
        sent = params
        for _ in range(_ROUNDS):
            if self._meta is not None:
                sent = dict(sent, _meta=dict(sent.get("_meta") or {}, **self._meta))
            result = self._result(method, self._call(method, sent, headers))
            if result.get("resultType") != "input_required":  # absent: complete
                return result
            sent = dict(params, inputResponses=self._input_responses(method, result.get("inputRequests")))
            if "requestState" in result:  # echoed exactly; absent, none is sent
                sent["requestState"] = result["requestState"]
        raise ConnectionError(f"{method}: the server still asked for input after {_ROUNDS} rounds")

    def _input_responses(self, method: str, requests: Any) -> Dict[str, Any]:
        if not isinstance(requests, dict):
            raise ConnectionError(f"{method}: inputRequests is not an object")
        return {key: self._answer(str(ask.get("method")), ask.get("params")) if isinstance(ask, dict)
                else {} for key, ask in requests.items()}

    def _call(self, method: str, params: Dict[str, Any], headers: Optional[Dict[str, str]] = None) -> Any:
        try:
            return self._transport.request(method, params, headers)
        except _Refused:  # the command line's: said on stderr already
            raise
        except _UsageError as exc:
            raise ValueError(str(exc)) from None
        except _ServerFailed as exc:
            raise ConnectionError(str(exc)) from None

    def _result(self, method: str, reply: Dict[str, Any]) -> Dict[str, Any]:
        if "result" in reply:
            return reply["result"]  # type: ignore[no-any-return]
        raise _rpc_error(method, reply["error"])

    # -- the server's own messages ---------------------------------------------------

    def _on_message(self, message: Dict[str, Any]) -> None:
        """A request or notification of the server's (read by the transport while
        a request waits, or on the HTTP GET stream): handled, requests answered."""
        transport = self._transport
        if transport is None:  # closed meanwhile (the GET stream's thread)
            return
        method, id_ = message.get("method"), message.get("id")
        params: Dict[str, Any] = message["params"] if isinstance(message.get("params"), dict) else {}
        started = time.monotonic()  # the callbacks' time: not counted against a request's deadline
        try:
            if self.message_handler is not None:
                self.message_handler(message)
            if type(id_) not in (int, str):
                self._notified(str(method), params)
        except Exception:  # noqa: BLE001 - the callback's own bug: shown, and the exchange read on
            print(f"mcp_ref.Client: a callback raised on {str(method)[:100]}:", file=sys.stderr)
            sys.excepthook(*sys.exc_info())  # its traceback, on stderr
        if type(id_) not in (int, str):
            transport.held += time.monotonic() - started
            return
        try:
            reply: Dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "result": self._answer(str(method), params)}
        except MCPError as exc:
            reply = {"jsonrpc": "2.0", "id": id_, "error": _drop_none({"code": exc.code, "message": exc.message,
                                                                         "data": exc.data})}
        except Exception as exc:  # the callback's own bug: the server hears of it, the call goes on
            reply = {"jsonrpc": "2.0", "id": id_, "error": {"code": INTERNAL_ERROR, "message": str(exc)}}
        transport.held += time.monotonic() - started
        transport.send(reply)

    def _answer(self, method: str, params: Any) -> Dict[str, Any]:
        """The result for one of the server's requests, from its callback."""
        params = params if isinstance(params, dict) else {}
        if method == "ping":
            return {}
        name = _CALLBACKS.get(method, ("", ""))[0]
        callback = getattr(self, name) if name else None
        if callback is None:
            raise MCPError(METHOD_NOT_FOUND, "Method not found")
        if method == "roots/list":
            roots = callback()
            return {"roots": roots} if isinstance(roots, list) else dict(roots)
        result = dict(callback(params))
        if method == "elicitation/create" and result.get("action") == "accept":
            filled = _with_defaults(params.get("requestedSchema"), result.get("content"))
            if filled is not None:
                result["content"] = filled
        return result

    def _notified(self, method: str, params: Dict[str, Any]) -> None:
        if method == "notifications/message" and self.logging_callback is not None:
            self.logging_callback(params)
        elif method == "notifications/progress":
            callback = self._progress.get(params.get("progressToken"))  # type: ignore[arg-type]
            if callback is not None:
                callback(params.get("progress"), params.get("total"), params.get("message"))


def _content_bytes(contents: Dict[str, Any]) -> bytes:
    """A resource's contents as the bytes they carry (text as UTF-8, a blob decoded)."""
    if isinstance(contents.get("text"), str):
        return str(contents["text"]).encode("utf-8")
    import base64
    import binascii

    try:
        return base64.b64decode(str(contents.get("blob", "")), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"{contents.get('uri')}: its blob is not base64") from None


def _client_extensions(extensions: Optional[Dict[str, Dict[str, Any]]], apps: bool) -> Dict[str, Dict[str, Any]]:
    """Client(extensions=..., apps=...): identifier -> settings, each identifier
    checked as the SDK checks it (section 26); Apps with the MIME type it renders."""
    declared = dict(extensions or {})
    for identifier, settings in declared.items():
        validate_extension_identifier(identifier, owner="Client.extensions")
        if not isinstance(settings, dict):
            raise TypeError(f"the settings of extension {identifier!r} must be a dict, not {type(settings).__name__}")
    if apps:  # ext-apps, "Client (Host) Capabilities": mimeTypes is required
        declared.setdefault(EXTENSION_ID, {"mimeTypes": [APP_MIME_TYPE]})
    return declared


def _page_items(method: str, key: str, result: Dict[str, Any]) -> List[Any]:
    items = result.get(key, [])
    if not isinstance(items, list):
        raise ConnectionError(f"{method}: {key} is not a list")
    return items


def _rpc_error(method: str, error: Any) -> MCPError:
    """A JSON-RPC error as MCPError; -32021 with the capability named."""
    error = error if isinstance(error, dict) else {"message": _error_text(error)}
    code = error.get("code") if type(error.get("code")) is int else INTERNAL_ERROR
    message, data = str(error.get("message", "")), error.get("data")
    if type(error.get("code")) is not int or not isinstance(error.get("message"), str):
        message = _error_text(error)  # what was wrong with it, said
    if code == MISSING_REQUIRED_CLIENT_CAPABILITY:
        needed = data.get("requiredCapabilities") if isinstance(data, dict) else None
        names = [".".join(_capability_path(key, value)) for key, value in needed.items()] \
            if isinstance(needed, dict) and needed else ["(not named by the server)"]
        hints = sorted({f" (pass {cb}=...)" for cb, cap in _CALLBACKS.values() if any(
            n.split(".")[0] == cap for n in names)})
        message = f"{message}: {method} needs the client capability {', '.join(names)}{''.join(hints)}"
    return MCPError(code, message, data)


def _capability_path(key: str, value: Any) -> List[str]:
    """{"elicitation": {"url": {}}} -> elicitation.url"""
    if isinstance(value, dict) and len(value) == 1:
        inner, deeper = next(iter(value.items()))
        return [key] + _capability_path(inner, deeper)
    return [key]


def _with_defaults(schema: Any, content: Any) -> Any:
    """An accepted form's content with the schema's defaults for the fields left
    out (SEP-1034: the client applies them)."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict) or not isinstance(content or {}, dict):
        return content
    filled = dict(content or {})
    for name, prop in properties.items():
        if name not in filled and isinstance(prop, dict) and "default" in prop:
            filled[name] = prop["default"]
    return filled


def _read_structured(name: str, result: Dict[str, Any], tool: Optional[Dict[str, Any]], result_type: Any) -> Any:
    """A tools/call result with its structuredContent checked against the tool's
    outputSchema (server/tools, "Output Schema": clients SHOULD validate), and
    converted into ``result_type`` when one is given."""
    schema = tool.get("outputSchema") if tool is not None else None
    if result.get("isError") is True:
        if result_type is not None:
            raise ToolError(_one_line(" ".join(b.get("text", "") for b in result.get("content") or ()
                                               if isinstance(b, dict)), 500) or f"tool {name} failed")
        return result
    structured = result.get("structuredContent")
    if isinstance(schema, dict):
        if structured is None:
            raise RuntimeError(f"Tool {name} has an output schema but did not return structured content")
        try:
            validate(structured, schema)
        except ValidationError as exc:  # the SDK's words and exception (ClientSession.validate_tool_result)
            raise RuntimeError(f"Invalid structured content returned by tool {name}: {exc}") from None
        except ValueError:  # a $ref this client does not fetch: unchecked
            pass
    if result_type is None:
        return result
    if structured is None:
        raise RuntimeError(f"Tool {name} returned no structured content to read as {result_type!r}")
    wanted = json_schema(result_type)
    value = structured
    if wanted.get("type") != "object" and isinstance(structured, dict) and set(structured) == {"result"}:
        value = structured["result"]  # wrapped by the server (docs/servers/structured-output.md)
    errors: List[_ErrorItem] = []
    value = _checker(wanted, "input")(value, (), errors)
    if errors:
        raise ValidationError(errors, getattr(result_type, "__name__", "result"))
    return _build_value(result_type, value)


# ---------------------------------------------------------------------------
# 30. A client: Streamable HTTP
# ---------------------------------------------------------------------------
#
# Fenced, as section 29 is: the client's side of Streamable HTTP
# (basic/transports): one POST per message, answered with JSON or an SSE
# stream; the session id and revision of the handshake era in headers; the
# 2026-07-28 request headers that mirror the body.
#
#   entry                 where it is used                    what it serves
#   --------------------  ----------------------------------  ---------------------------------------------
#   _HttpClient           Client                              a server over Streamable HTTP
#   _mcp_param_headers    Client.call_tool                    Mcp-Param-* from a tool's x-mcp-header
#
# The client's side of the transport: the session id from the InitializeResult's
# response, sent back until DELETE ends it; the GET stream for the server's own
# messages, open before initialize returns; a response stream that ends before
# its response resumed with GET and Last-Event-ID once the server's ``retry``
# has passed; answers to the server's requests on a connection of their own (the
# one that asked may still be streaming); an ``auth`` object's headers on every
# request, and a 401 (or 403 insufficient_scope) it accepts sent once more.
# Every read of an answer, its head included, keeps the request's deadline
# (_ByDeadline); a JSON body or an SSE event is at most max_message_bytes; a
# POST is sent again only when it provably never reached the server.


class _HttpClient:
    """The same client over Streamable HTTP (SERVER an http(s):// URL): one
    POST per message, answered with JSON or an SSE stream; the session id and
    revision of the handshake era go back in headers, and the 2026-07-28
    request headers mirror the body (basic/transports).  Answers to the
    server's requests go on a connection of their own: the one that asked may
    still be streaming."""

    def __init__(self, url: str, trace: Optional[Callable[[str, Any], None]], timeout: float,
                 limit: int = _MAX_MESSAGE) -> None:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise _UsageError(f"not an http(s) URL: {url}")
        self.url, self.parts, self.trace, self.timeout = url, parts, trace, timeout
        self.limit = limit  # bytes of one message: a JSON body or an SSE event (Client(max_message_bytes=...))
        self.held = 0.0  # seconds the caller's callbacks took: no request's deadline counts them
        self.next_id = 0
        self.session: Optional[str] = None
        self.version: Optional[str] = None
        self.conn: Any = None
        self.handler: Callable[[Dict[str, Any]], None] = lambda message: None  # Client's
        self.auth: Any = None  # Client(auth=...): headers(url), unauthorized(url, status, www_authenticate)
        self.extra: Dict[str, str] = {}  # Client(headers=...)
        self.listening: Any = None  # the GET stream's connection, while open
        self.closed = False

    def _show(self, arrow: str, message: Any) -> None:
        if self.trace is not None:
            self.trace(arrow, message)

    def send(self, message: Dict[str, Any]) -> None:
        """A notification, or our answer to the server's request (on its own
        connection): 202, no body."""
        try:
            self._post(message, alone="method" not in message)
        except _TimedOut:
            raise _ServerFailed(f"the server did not take {message.get('method', 'our answer')} within "
                                f"{self.timeout:g} s") from None

    def request(self, method: str, params: Dict[str, Any], headers: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        self.next_id += 1
        id_ = self.next_id
        # One deadline for the request, whatever the server streams meanwhile
        # (basic/lifecycle, "Timeouts"); the time our callbacks take is not the server's.
        end = time.monotonic() + self.timeout - self.held
        try:
            message = self._post({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}, extra=headers,
                                 end=end)
        except _TimedOut:
            raise self._give_up(id_, method, _cancellable(method, params)) from None
        if "error" in message and message.get("id") is None:  # the POST's own answer, as a server that
            message = dict(message, id=id_)  # did not read it sends it (the SDKs: 400 "not initialized")
        if method == "initialize" and isinstance(message.get("result"), dict):
            version = message["result"].get("protocolVersion")
            self.version = version if isinstance(version, str) else None
        return _response(message, id_, method)

    def _give_up(self, id_: int, method: str, cancellable: bool) -> _ServerFailed:
        """A request past its deadline: its stream is closed (_post), which in
        2026-07-28 cancels it (basic/patterns/cancellation); before, where a
        disconnection is no cancellation (basic/transports), the server is told
        with notifications/cancelled, where _cancellable."""
        reason = f"the server did not answer {method} within {self.timeout:g} s"
        if cancellable and (self.version or "") < STATELESS_VERSIONS[0]:
            cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                      "params": {"requestId": id_, "reason": reason}}
            try:
                self._post(cancel, alone=True, end=time.monotonic() - self.held + min(self.timeout, 5.0))
            except _ServerFailed:  # told or not, the request is given up on
                pass
        return _ServerFailed(reason)

    def _post(self, message: Dict[str, Any], alone: bool = False, extra: Optional[Dict[str, str]] = None,
              end: Optional[float] = None) -> Dict[str, Any]:
        """POST one message; the response to it (an error object made up from
        the HTTP status when the body holds none), or {} for 202.  Read by
        ``end`` (time.monotonic(), less the callbacks' time), else _TimedOut."""
        try:
            body = json.dumps(message, allow_nan=False).encode()
        except (ValueError, RecursionError) as exc:
            raise _UsageError(f"cannot send the arguments as JSON: {exc}") from None
        self._show("->", message)
        method = message.get("method", "our answer")
        end = time.monotonic() - self.held + self.timeout if end is None else end
        headers = dict(self._headers(message), **(extra or {}))
        response = self._exchange("POST", body, headers, f"while sending {method}", alone, end)
        try:
            if self.session is None and response.getheader("Mcp-Session-Id"):
                self.session = response.getheader("Mcp-Session-Id")
            kind = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
            if response.status == 202 or "id" not in message or "method" not in message:
                self._drain(response, end, alone)
                return {}
            if kind == "text/event-stream":
                return self._events(response, message["id"], method, end)
            return self._json_body(response, self._body(response, end, method), method, kind)
        except BaseException:  # a response not read to its end: its connection carries nothing more
            if not alone:
                response.close()
                self._drop()
            raise
        finally:
            if alone:
                _finish(response)

    def _headers(self, message: Dict[str, Any]) -> Dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and isinstance(meta.get(META_PROTOCOL_VERSION), str):
            headers["MCP-Protocol-Version"] = meta[META_PROTOCOL_VERSION]
        elif self.version is not None:
            headers["MCP-Protocol-Version"] = self.version
        if headers.get("MCP-Protocol-Version", "") >= STATELESS_VERSIONS[0] and "method" in message:
            # 2026-07-28 "Standard MCP Request Headers": on every POST that carries a method
            headers["Mcp-Method"] = str(message["method"])
            name = params.get(_NAME_PARAMS.get(str(message["method"]), "")) if isinstance(params, dict) else None
            if isinstance(name, str):
                headers["Mcp-Name"] = _header_value(name)
        elif self.session is not None:
            headers["Mcp-Session-Id"] = self.session
        return headers

    def _exchange(self, verb: str, body: Optional[bytes], headers: Dict[str, str], when: str,
                  alone: bool = False, end: Optional[float] = None) -> Any:
        """Send one HTTP request; its response.  With ``auth``, a 401 (or a 403
        for insufficient_scope) it accepts is sent once more, twice at most: a
        token, then a step-up for more scopes (basic/authorization)."""
        end = time.monotonic() - self.held + self.timeout if end is None else end
        for attempt in (1, 2, 3):
            sent = dict(headers, **self.extra)
            started = time.monotonic()  # the auth object's time (an OAuth flow, a person at a browser):
            if self.auth is not None:  # not counted against the deadline, as the callbacks' is not
                sent.update(self.auth.headers(self.url))
            self.held += time.monotonic() - started
            response = self._send(verb, body, sent, when, alone, end)
            challenge = response.getheader("WWW-Authenticate") or ""
            if self.auth is None or attempt == 3 or not (
                    response.status == 401 or (response.status == 403 and "insufficient_scope" in challenge)):
                return response
            started = time.monotonic()
            again = self.auth.unauthorized(self.url, response.status, challenge)
            self.held += time.monotonic() - started
            if not again:
                return response  # (read as any answer: the server's reason with it)
            try:
                self._drain(response, end, alone)
            finally:  # a server refusing a request may close its connection without saying so: a new one
                _finish(response) if alone else self._drop()
        raise AssertionError("unreachable")

    def _connect(self, timeout: Optional[float]) -> Any:
        import http.client

        kind = http.client.HTTPSConnection if self.parts.scheme == "https" else http.client.HTTPConnection
        conn: Any = kind(str(self.parts.hostname), self.parts.port, timeout=timeout)
        conn.mcp_end = None  # the deadline of the request it carries (_send), for every read of its answer
        conn.response_class = functools.partial(_response_by_deadline, self, conn)
        return conn

    def _send(self, verb: str, body: Optional[bytes], headers: Dict[str, str], when: str, alone: bool,
              end: float) -> Any:
        """One request sent, and its response's head.  Sent again only when it
        provably never reached the server: a request whose sending failed (a
        server that stopped reading may have answered it first: a 413, read as
        such).  A kept-alive connection the server has closed is found before
        sending; a server that closes one after it, answering nothing, may have
        run the request (a tool call): that is a failure, never a second POST."""
        import http.client

        path = (self.parts.path or "/") + (f"?{self.parts.query}" if self.parts.query else "")
        for attempt in (1, 2):
            conn = self._connect(None) if alone or self.conn is None else self.conn
            if not alone:
                self.conn = conn
            if conn.sock is not None and _dropped(conn.sock):
                conn.close()  # closed by the server while idle (or sending what nobody asked): a new one
            conn.timeout = left = self._left(end)  # (a new connection's connect takes this one)
            if conn.sock is not None:
                conn.sock.settimeout(left)
            conn.mcp_end = end
            try:
                try:
                    conn.request(verb, path, body=body, headers=headers)
                    sent = True
                except (BrokenPipeError, ConnectionResetError):  # it stopped reading: perhaps it said why
                    sent = False
                response = conn.getresponse()
                response.mcp_conn = conn if alone else None  # closed with the response (_finish)
                return response
            except _TimedOut:  # (its head, read by the deadline)
                conn.close()
                raise
            except (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected):
                conn.close()
                if sent:
                    raise _ServerFailed(f"{self.url} closed the connection {when} without answering") from None
                if attempt == 2:
                    raise _ServerFailed(f"{self.url} closed the connection {when}") from None
            except http.client.HTTPException as exc:  # a status line or headers that are not HTTP's
                conn.close()
                raise _ServerFailed(f"{self.url} answered {when} with what is not HTTP ({exc!r:.100})") from None
            except OSError as exc:  # refused, unreachable, a timeout
                conn.close()
                if "timed out" in str(exc):
                    raise _TimedOut() from None
                raise _ServerFailed(f"cannot reach {self.url} {when}: {exc.strerror or exc}") from None
        raise AssertionError("unreachable")

    def _left(self, end: float) -> float:
        """Seconds left until ``end`` (the callbacks' time added back), else _TimedOut."""
        import threading

        left = end + self.held - time.monotonic()
        if left <= 0:
            raise _TimedOut()
        return min(left, threading.TIMEOUT_MAX)

    def _read_some(self, response: Any, end: Optional[float]) -> bytes:
        """The next bytes of a response's body (b"" at its end), by ``end``:
        a server that sends a little now and then cannot hold a request
        beyond its deadline.  What is not HTTP, or cut short, is _ServerFailed."""
        import http.client

        try:
            if isinstance(response.fp, io.BufferedReader) and isinstance(response.fp.raw, _ByDeadline):
                response.fp.raw.end = end  # (the GET stream's: None, it waits as long as it must)
            data: bytes = response.read1(65536) if response.length != 0 else b""
            if not data:  # (read1 leaves a response of a Content-Length open at its end: closed, its
                response.close()  # connection carries the next request)
            return data
        except http.client.HTTPException as exc:  # IncompleteRead: cut mid-chunk, a bad chunk size
            raise _ServerFailed(f"{self.url} cut its answer short ({type(exc).__name__})") from None
        except (OSError, ValueError, OverflowError) as exc:  # a connection closed meanwhile; a chunk size past
            # a C ssize_t (in some Pythons' http.client)
            if "timed out" in str(exc):
                raise _TimedOut() from None
            raise _ServerFailed(f"the connection to {self.url} failed: {exc}") from None

    def _body(self, response: Any, end: float, method: str) -> bytearray:
        """A JSON response's body: at most ``limit`` bytes (never more held)."""
        data = bytearray()
        while len(data) <= self.limit:
            chunk = self._read_some(response, end)
            if not chunk:
                return data
            data += chunk
        raise _ServerFailed(f"the answer to {method} is longer than {self.limit} bytes "
                            f"(the client's max_message_bytes)")

    def _drain(self, response: Any, end: Optional[float], alone: bool) -> None:
        """Read the rest of a response we need nothing more from, briefly and
        bounded (a stream a server keeps open after our answer must not hold
        the call); one not over by then takes its connection with it."""
        stop = time.monotonic() - self.held + 1.0
        try:
            for _ in range(16):
                if not self._read_some(response, stop if end is None else min(end, stop)):
                    return
        except _ServerFailed:
            pass
        if not alone:
            response.close()
            self._drop()

    def _drop(self) -> None:
        """Close the kept-alive connection (mid-response: it carries nothing more)."""
        conn, self.conn = self.conn, None
        if conn is not None:
            conn.close()

    def _json_body(self, response: Any, data: bytearray, method: str, kind: str) -> Dict[str, Any]:
        try:
            message = _SERVER_JSON.decode(data.decode("utf-8"))
        except (ValueError, RecursionError):
            message = None
        if isinstance(message, dict) and ("result" in message or isinstance(message.get("error"), dict)):
            self._show("<-", message)
            return message
        status = response.status
        if status >= 300:  # an HTTP error without a JSON-RPC one (an OAuth {"error": "..."}): the status is it,
            said = _one_line(data.decode("utf-8", "replace"), 200) if kind in ("text/plain", "application/json") \
                else ""  # with the server's reason where it gave one (a page of HTML says nothing more)
            said = said or _one_line(response.getheader("WWW-Authenticate") or "", 200)
            text = f"HTTP {status} {response.reason}" + (f": {said}" if said else "")
            return {"jsonrpc": "2.0", "id": self.next_id, "error": {"message": text}}
        raise _ServerFailed(f"the server's answer to {method} is not a JSON-RPC message: {bytes(data[:100])!r}")

    def _events(self, response: Any, id_: Any, method: str, end: float) -> Dict[str, Any]:
        """Read an SSE stream until our response (or an error without an id:
        about a message the server could not read).  What comes before it goes
        to Client (``handler``): a notification to its callbacks, a request of
        the server's answered by them (on a connection of its own).  A stream that ends before
        the response, after an event id, is resumed with a GET and
        Last-Event-ID once the server's ``retry`` has passed (basic/transports,
        "Resumability and Redelivery"), at most _RESUMPTIONS times."""
        state: Dict[str, Any] = {"last": None, "retry": 1.0}
        for resumed in range(_RESUMPTIONS + 1):
            try:
                for message in self._read_events(response, state, end):
                    if "method" in message:
                        self.handler(message)
                    elif message.get("id") == id_ or message.get("id") is None:
                        if not resumed:  # (a resumed GET stream may stay open: it is closed instead)
                            self._drain(response, end, False)
                        return message
            finally:
                if resumed:
                    _finish(response)
            if state["last"] is None or resumed == _RESUMPTIONS:
                break
            time.sleep(min(state["retry"], self._left(end)))
            headers = _get_headers(self._headers({}), state)
            response = self._exchange("GET", None, headers, f"resuming the stream of {method}", True, end)
            if response.status != 200:
                _finish(response)
                raise _ServerFailed(f"the server refused to resume the stream of {method} (HTTP {response.status})")
        raise _ServerFailed(f"the server ended its stream before answering {method}")

    def _read_events(self, response: Any, state: Dict[str, Any], end: Optional[float] = None) -> Iterable[
            Dict[str, Any]]:
        """The JSON-RPC messages of an SSE stream (the HTML standard's event
        stream: data, id and retry fields; an event without data is skipped,
        as a priming event is); ``state`` keeps the last id and the retry.  An
        event longer than ``limit`` is refused before it is all read."""
        buffer, data, lines = bytearray(), bytearray(), 0  # lines: of data, in this event
        while True:
            newline = buffer.find(b"\n")
            while newline < 0:
                if len(buffer) + len(data) > self.limit + 8:  # (8: "data: " and a line's end)
                    raise _ServerFailed(f"the server sent an event longer than {self.limit} bytes "
                                        f"(the client's max_message_bytes)")
                chunk = self._read_some(response, end)
                if not chunk:
                    return  # the stream's end (an event not ended by a blank line is dropped)
                buffer += chunk
                newline = buffer.find(b"\n", len(buffer) - len(chunk))
            stop = newline - 1 if newline and buffer[newline - 1] == 13 else newline  # CRLF or LF
            colon = buffer.find(b":", 0, stop)
            field = bytes(buffer[:stop if colon < 0 else colon])
            first = stop if colon < 0 else colon + 2 if buffer[colon + 1:colon + 2] == b" " else colon + 1
            if field == b"data":
                if lines:
                    data += b"\n"
                with memoryview(buffer) as view:
                    data += view[first:stop]  # (no copy of a long line)
                lines += 1
            elif field == b"id" and b"\0" not in buffer[first:stop]:
                state["last"] = buffer[first:stop].decode("utf-8", "replace")
            elif field == b"retry" and buffer[first:stop].isdigit():
                state["retry"] = int(buffer[first:stop]) / 1000
            del buffer[:newline + 1]
            if stop > 0:
                continue
            if not data or data.isspace():  # a blank line ends the event; one without data is skipped
                data, lines = bytearray(), 0
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                raise _ServerFailed(f"the server sent an event that is not UTF-8: {bytes(data[:100])!r}") from None
            data, lines = bytearray(), 0  # (freed before the text is read)
            yield self._event_message(text)

    def _event_message(self, text: str) -> Dict[str, Any]:
        try:
            message = _SERVER_JSON.decode(text)
        except (ValueError, RecursionError):
            raise _ServerFailed(f"the server sent an event that is not JSON: {text[:100]!r}") from None
        if not isinstance(message, dict):
            raise _ServerFailed(f"the server sent an event that is not a JSON object: {text[:100]!r}")
        self._show("<-", message)
        return message

    def listen(self) -> None:
        """Open the GET stream for the server's own requests and notifications
        (basic/transports, "Listening for Messages from the Server"): open
        before this returns, so that nothing the server sends on it from then
        on is lost; read in a thread.  A server that offers none (405) is left alone."""
        import threading

        state: Dict[str, Any] = {"last": None, "retry": 1.0}
        opened = self._open_stream(state)
        if opened is not None:
            threading.Thread(target=self._listen, args=(opened, state), name="mcp_ref client GET stream",
                             daemon=True).start()

    def _open_stream(self, state: Dict[str, Any]) -> Any:
        """The GET stream's connection and response, or None when there is none."""
        import http.client

        path = (self.parts.path or "/") + (f"?{self.parts.query}" if self.parts.query else "")
        conn = self.listening = self._connect(self.timeout)
        conn.mcp_end = time.monotonic() - self.held + self.timeout  # its head, by then (initialize waits for it)
        try:
            headers = dict(_get_headers(self._headers({}), state), **self.extra)
            headers.update(self.auth.headers(self.url) if self.auth is not None else {})
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            if response.status == 200 and not self.closed:
                reader = response.fp.raw  # (_ByDeadline; conn.sock is None when the stream ends the connection)
                reader.end, conn.mcp_sock = None, reader.sock
                reader.sock.settimeout(None)  # it may stay quiet for long
                return conn, response
        except (OSError, http.client.HTTPException, _ServerFailed):
            pass
        conn.close()
        return None

    def _listen(self, opened: Any, state: Dict[str, Any]) -> None:
        import http.client

        for _ in range(_RESUMPTIONS):  # bounded: a server that keeps closing it is let go
            conn, response = opened
            try:
                for message in self._read_events(response, state):
                    if "method" in message:
                        self.handler(message)
            except (OSError, http.client.HTTPException, _ServerFailed, _UsageError):
                pass
            finally:
                conn.close()
            if self.closed or state["last"] is None:
                return
            time.sleep(state["retry"])
            opened = self._open_stream(state)
            if opened is None:
                return

    def close(self) -> None:
        """End the session (DELETE), as a client that is done should."""
        import socket

        self.closed = True
        if self.session is not None:
            try:
                _finish(self._exchange("DELETE", None, self._headers({}), "ending the session", alone=True))
            except (_ServerFailed, OSError):
                pass
        listening = getattr(self.listening, "mcp_sock", None)  # (_open_stream)
        if listening is not None:
            try:
                listening.shutdown(socket.SHUT_RDWR)  # wakes the GET stream's reader
            except OSError:
                pass
        if self.conn is not None:
            self.conn.close()


_RESUMPTIONS = 5  # times a stream is resumed (or the GET stream reopened) before the client gives up


def _get_headers(headers: Dict[str, str], state: Dict[str, Any]) -> Dict[str, str]:
    """A GET's headers: an event stream asked for, resuming after the last event seen."""
    headers = dict(headers, Accept="text/event-stream")
    del headers["Content-Type"]
    if state["last"] is not None:
        headers["Last-Event-ID"] = state["last"]
    return headers


def _mcp_param_headers(schema: Any, arguments: Any) -> Dict[str, str]:
    """Mcp-Param-{Name}: the arguments a tool's x-mcp-header names, in the
    2026-07-28 HTTP transport (basic/transports, "Custom Headers from Tool
    Parameters", "Value Encoding"); null and absent ones are left out."""
    headers = {}
    for path, header, _ in _x_mcp_headers(schema) or ():
        value = _value_at(arguments, path)
        if isinstance(value, bool):
            headers[f"Mcp-Param-{header}"] = "true" if value else "false"
        elif isinstance(value, (str, int, float)):
            headers[f"Mcp-Param-{header}"] = _header_value(str(value))
    return headers


class _ByDeadline(io.RawIOBase):
    """A response's socket, read by a deadline: each read waits only for what
    is left of it (a server that sends a byte now and then, in the head or the
    body, cannot hold a request past it).  ``end`` as _HttpClient._left takes it."""

    def __init__(self, raw: Any, sock: Any, left: Callable[[float], float], end: Optional[float]) -> None:
        super().__init__()
        self.raw, self.sock, self.left, self.end = raw, sock, left, end

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> Any:
        if self.end is not None:
            left = self.left(self.end)  # (_TimedOut when none is left)
            if (self.sock.gettimeout() or left + 1) > left * 1.1 + 0.01:  # (else the wait set is close enough)
                self.sock.settimeout(left)
        return self.raw.readinto(buffer)

    def close(self) -> None:
        self.raw.close()  # (the socket's own reader: closing it releases the socket)
        super().close()


def _response_by_deadline(transport: _HttpClient, conn: Any, sock: Any, *args: Any, **kwargs: Any) -> Any:
    """An HTTPResponse whose reads keep the deadline of ``conn``'s request
    (HTTPConnection.response_class)."""
    import http.client

    response = http.client.HTTPResponse(sock, *args, **kwargs)
    raw = response.fp.detach()  # the socket's own reader, wrapped
    response.fp = io.BufferedReader(_ByDeadline(raw, sock, transport._left, conn.mcp_end))
    return response


def _dropped(sock: Any) -> bool:
    """Whether the server closed a kept-alive connection while it was idle
    (readable then: its end, or bytes nobody asked for)."""
    import select

    try:
        if hasattr(select, "poll"):  # (select.select refuses a descriptor past 1023)
            poll = select.poll()
            poll.register(sock, select.POLLIN)
            return bool(poll.poll(0))
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


def _finish(response: Any) -> None:
    """Close a response and the connection of its own it came on."""
    response.close()
    conn = getattr(response, "mcp_conn", None)
    if conn is not None:
        conn.close()


def _header_value(text: str) -> str:
    """A value as a header carries it: as is when plain visible ASCII, else
    ``=?base64?...?=`` (2026-07-28 basic/transports/streamable-http, "Value Encoding")."""
    import base64

    if all(" " <= c <= "~" for c in text) and text == text.strip() and \
            not (text.startswith("=?base64?") and text.endswith("?=")):
        return text
    return "=?base64?" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "?="


# ---------------------------------------------------------------------------
# 31. A client: OAuth 2.1
# ---------------------------------------------------------------------------
#
# The client's side of basic/authorization: discovering the authorization
# server (RFC 9728, RFC 8414), registering, the authorization code flow with
# PKCE (RFC 7636), resource indicators (RFC 8707), and tokens kept and
# refreshed.  A server that never uses the client loads none of it.
#
#   name                  what it serves
#   --------------------  ------------------------------------------------------------------
#   _pkce_challenge       a verifier's S256 challenge (RFC 7636 section 4.2)
#   _pkce_pair            a fresh verifier and its challenge, for each authorization request
#   OAuthClientProvider   the auth= object of the client: headers(url), unauthorized(...)
#   OAuthFlowError        a refusal: metadata, registration, authorization or token response
#   _MemoryTokenStorage   the default storage of tokens and registration
#   _LoopbackCallback     the default redirect: a one-shot server on 127.0.0.1 and a browser
#
# Standard library only: urllib for HTTP, http.server for the callback,
# hashlib, secrets and base64 for PKCE.  What needs an asymmetric signature
# (private_key_jwt, DPoP) is left to a wrapper of the provider.


def _pkce_challenge(verifier: str) -> str:
    """BASE64URL(SHA256(verifier)), unpadded (RFC 7636 section 4.2; the
    example of its Appendix B).

    >>> _pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
    """
    import base64
    import hashlib

    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode("ascii")


def _pkce_pair() -> Tuple[str, str]:
    """A new code verifier, 43 characters from 32 random bytes (RFC 7636
    section 4.1, section 7.1's entropy), and its S256 challenge."""
    import base64
    import secrets

    verifier = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode("ascii")
    return verifier, _pkce_challenge(verifier)


class OAuthFlowError(Exception):
    """The authorization flow was refused: a metadata document, a registration,
    the authorization response or a token response did not hold what
    basic/authorization requires.  The message names the rule that failed."""


class OAuthClientProvider:
    """OAuth 2.1 for the client, as basic/authorization describes: pass it as
    ``Client(url, auth=OAuthClientProvider())``.

    The client calls ``headers(url)`` before each request to the MCP server and
    ``unauthorized(url, status, www_authenticate)`` on a 401, or on a 403 whose
    challenge says ``insufficient_scope``; True means "retry with fresh
    headers".  On such a challenge the provider discovers the authorization
    server (RFC 9728, RFC 8414, the OpenID fallback), registers (a pre-registered
    ``client_id``, a Client ID Metadata Document at ``client_metadata_url``, or
    dynamic registration, RFC 7591, in that order of preference), and obtains a
    token: the authorization code flow with PKCE S256, ``state`` and ``iss``
    checked (RFC 9207), ``grant_type="client_credentials"``, or RFC 7523's
    JWT bearer grant (``grant_type=JWT_BEARER``) with ``assertion``, a JWT or a
    callable ``(issuer, resource) -> JWT`` (a workload's identity token, or an
    ID-JAG from a token exchange: SEP-1933, SEP-990).  Resource
    indicators (RFC 8707) name the server in every authorization and token
    request; expired tokens are refreshed.

    ``redirect_handler(authorization_url)`` takes the user to the authorization
    server and returns the callback URL (or its query) the browser came back
    with; it needs ``redirect_uri``.  Without it a one-shot server on 127.0.0.1
    (at ``redirect_uri``'s port, else any) receives the callback and the browser
    is opened with ``webbrowser`` (RFC 8252 section 7.3).  ``storage`` keeps
    tokens and the registration: any object with ``get_tokens()``,
    ``set_tokens(dict)``, ``get_client_info()`` and ``set_client_info(dict)``
    (the SDK's ``TokenStorage``, synchronous, with dicts: the token response
    plus ``expires_at``; the registration plus the ``issuer`` it belongs to);
    the default keeps them in memory.

    One provider may serve several clients and threads.  It runs one sign-in
    at a time: a lock is held across the whole flow, the browser's round
    included, so another thread's 401 waits until that flow has ended.

    Flows that need asymmetric signatures (``private_key_jwt``, DPoP) need a
    crypto library: wrap this object, or write your own with the same two
    methods."""

    JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"  # RFC 7523 section 2.1

    def __init__(self, server_url: Optional[str] = None, *, client_id: Optional[str] = None,
                 client_secret: Optional[str] = None, client_metadata_url: Optional[str] = None,
                 client_metadata: Optional[Dict[str, Any]] = None, scope: Optional[str] = None,
                 grant_type: str = "authorization_code", redirect_uri: Optional[str] = None,
                 redirect_handler: Optional[Callable[[str], Any]] = None, storage: Any = None,
                 token_endpoint_auth_method: Optional[str] = None, max_retries: int = 2,
                 assertion: Union[str, Callable[[str, str], str], None] = None, timeout: float = 30.0) -> None:
        import threading

        if grant_type not in ("authorization_code", "client_credentials", self.JWT_BEARER):
            raise ValueError(f"grant_type must be 'authorization_code', 'client_credentials' or "
                             f"OAuthClientProvider.JWT_BEARER, not {grant_type!r}")
        if grant_type == "client_credentials" and not client_id:
            raise ValueError("grant_type='client_credentials' needs client_id (and usually client_secret)")
        if (grant_type == self.JWT_BEARER) != (assertion is not None):
            raise ValueError("assertion= goes with grant_type=OAuthClientProvider.JWT_BEARER, and it with assertion=")
        if redirect_handler is not None and not redirect_uri:
            raise ValueError("redirect_handler needs redirect_uri: where the authorization server sends the browser")
        self.server_url = server_url
        self.client_id, self.client_secret, self.scope = client_id, client_secret, scope
        self.client_metadata_url, self.client_metadata = client_metadata_url, dict(client_metadata or {})
        self.grant_type, self.redirect_uri, self.redirect_handler = grant_type, redirect_uri, redirect_handler
        self.storage = _MemoryTokenStorage() if storage is None else storage
        self.token_endpoint_auth_method = token_endpoint_auth_method
        self.max_retries, self.assertion, self.timeout = max_retries, assertion, timeout
        self._lock = threading.RLock()
        self._resource: Optional[str] = None  # RFC 8707's resource: the PRM's, else the server's URL
        self._issuer: Optional[str] = None
        self._metadata: Dict[str, Any] = {}  # the authorization server's (RFC 8414)
        self._prm_scopes: Optional[str] = None  # the protected resource's scopes_supported
        self._requested: Optional[str] = None  # the scope of the last authorization request
        self._repeats = 0  # step-ups in a row that asked for nothing new

    def headers(self, url: str) -> Dict[str, str]:
        """The ``Authorization`` header for a request to ``url``: the stored
        access token, refreshed first if it has expired and can be."""
        with self._lock:
            self.server_url = self.server_url or url
            if _url_origin(_canonical_resource(url)) != _url_origin(_canonical_resource(self.server_url)):
                return {}  # a token goes to the server it was issued for only (RFC 8707, RFC 9700 section 4.10)
            tokens = self.storage.get_tokens()
            if tokens and _token_expired(tokens) and tokens.get("refresh_token") and self._metadata:
                tokens = self._refresh(tokens) or tokens
            if not tokens or not tokens.get("access_token"):
                return {}
            return {"Authorization": "Bearer " + tokens["access_token"]}

    def unauthorized(self, url: str, status: int, www_authenticate: Optional[str]) -> bool:
        """Answer a 401 (no token, or one the server refused) or a 403 with
        ``insufficient_scope`` (step-up): discover, register if needed, and
        obtain a new token.  False when retrying cannot help: another 403, or a
        step-up that asks for no new scope more than ``max_retries`` times in a
        row (basic/authorization, "Scope Challenge Handling")."""
        with self._lock:
            self.server_url = self.server_url or url
            challenge = _www_authenticate(www_authenticate or "")
            step_up = status == 403
            if step_up and challenge.get("error") != "insufficient_scope":
                return False
            if status == 401 or not self._metadata:
                self._discover(challenge.get("resource_metadata"))
            allowed, scope = self._choose_scope(challenge, step_up)
            if not allowed:
                return False
            tokens = self.storage.get_tokens()
            if not step_up and tokens and tokens.get("refresh_token") and self._refresh(tokens, rejected=True):
                return True
            self._requested = _with_offline_access(scope, self._metadata, self.grant_type)
            if self.grant_type == "authorization_code":
                self._authorization_code(self._requested)
                return True
            form = {"grant_type": self.grant_type}
            if self.assertion is not None:  # RFC 7523 section 2.1
                assertion = self.assertion
                form["assertion"] = assertion if isinstance(assertion, str) else \
                    assertion(str(self._issuer), str(self._resource))
            client = {"client_id": self.client_id, "client_secret": self.client_secret}
            self.storage.set_tokens(self._token_request(form, client, self._requested))
            return True

    # -- scope selection (basic/authorization, "Scope Selection Strategy") --

    def _choose_scope(self, challenge: Dict[str, str], step_up: bool) -> Tuple[bool, Optional[str]]:
        """Whether to authorize, and the scope to request: the challenge's,
        else ours, else the protected resource metadata's ``scopes_supported``,
        else none; on step-up the union with what was asked before (SEP-2350).
        Not when a step-up asks for nothing new for the ``max_retries``+1st
        time in a row: the server would refuse again."""
        challenged = challenge.get("scope") or self.scope or self._prm_scopes
        if not step_up:
            self._repeats = 0
            return True, challenged
        if set((challenged or "").split()) <= set((self._requested or "").split()):
            self._repeats += 1
            if self._repeats > self.max_retries:
                return False, None
        else:
            self._repeats = 0
        return True, _scope_union(self._requested, challenged)

    # -- discovery (RFC 9728, RFC 8414) --

    def _discover(self, resource_metadata: Optional[str]) -> None:
        """The protected resource metadata (from the challenge's
        ``resource_metadata``, else the well-known URIs, path-aware first), its
        ``resource`` checked against the server's URL, then the authorization
        server's metadata, its ``issuer`` checked.  A server without protected
        resource metadata falls back to its origin as the authorization server
        (2025-03-26's discovery)."""
        server = _canonical_resource(self.server_url or "")
        if resource_metadata and server.startswith("https:") and not resource_metadata.startswith("https:"):
            raise OAuthFlowError(f"the challenge's resource_metadata {_said(resource_metadata)!r} is not https, "
                                 "for an https server (RFC 9728 section 3)")
        prm = None
        for candidate in ([resource_metadata] if resource_metadata else []) + _prm_urls(server):
            prm = _fetch_json(candidate, self.timeout)
            if prm is not None:
                break
        if prm is not None:
            resource = prm.get("resource")
            if not isinstance(resource, str) or not _resource_covers(resource, server):
                raise OAuthFlowError(f"protected resource metadata names resource {resource!r}, "
                                     f"not {server!r} (RFC 9728 section 3.3)")
            servers = prm.get("authorization_servers")
            if not isinstance(servers, list) or not servers or not isinstance(servers[0], str):
                raise OAuthFlowError("protected resource metadata lists no authorization_servers (RFC 9728)")
            self._resource, issuer = resource, servers[0]
            supported = prm.get("scopes_supported")
            if supported is not None and not (isinstance(supported, list)
                                              and all(isinstance(scope, str) for scope in supported)):
                raise OAuthFlowError("protected resource metadata's scopes_supported is not a list of strings "
                                     "(RFC 9728 section 2)")
            self._prm_scopes = " ".join(supported) if supported else None
        else:
            self._resource, self._prm_scopes = server, None
            issuer = _url_origin(server)
        if issuer != self._issuer:
            self._metadata = _server_metadata(issuer, self.timeout, legacy=prm is None)
            self._issuer = issuer
        client = self.storage.get_client_info()
        if client and client.get("issuer") not in (None, issuer):
            # SEP-2352: a registration belongs to the server that issued it.
            self.storage.set_client_info(None)
            self.storage.set_tokens(None)

    # -- the authorization code flow (OAuth 2.1 section 4.1, RFC 7636, RFC 9207) --

    def _authorization_code(self, scope: Optional[str]) -> None:
        """One authorization: the redirect, the checks of its response, and
        the token request."""
        import secrets

        endpoint = _endpoint(self._metadata.get("authorization_endpoint"), f"the authorization server "
                             f"{self._issuer}'s authorization_endpoint")
        methods = self._metadata.get("code_challenge_methods_supported")
        if not self._metadata.get("_defaults") and (not isinstance(methods, list) or "S256" not in methods):
            # basic/authorization, "Authorization Code Protection": absent means no PKCE.
            raise OAuthFlowError(f"the authorization server {self._issuer} does not list S256 in "
                                 "code_challenge_methods_supported: it may not check PKCE (basic/authorization)")
        handler, callback = self.redirect_handler, None
        if handler is None:
            callback = _LoopbackCallback(self.redirect_uri, self.timeout)
            handler, redirect_uri = callback.wait, callback.redirect_uri
        else:
            redirect_uri = str(self.redirect_uri)
        try:
            client = self._client(redirect_uri)
            verifier, challenge = _pkce_pair()
            state = secrets.token_urlsafe(32)
            query = {"response_type": "code", "client_id": client["client_id"], "redirect_uri": redirect_uri,
                     "state": state, "code_challenge": challenge, "code_challenge_method": "S256",
                     "resource": self._resource}
            if scope:
                query["scope"] = scope
            answer = handler(_with_query(endpoint, query))
        finally:
            if callback is not None:
                callback.close()
        code = self._check_response(_callback_query(answer), state)
        self.storage.set_tokens(self._token_request(
            {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
             "code_verifier": verifier}, client, None))

    def _check_response(self, answer: Dict[str, str], state: str) -> str:
        """The authorization response's code, once its ``state`` matches ours
        (OAuth 2.1 section 7.12) and its ``iss`` the issuer's, by simple string
        comparison: required when the server advertises
        ``authorization_response_iss_parameter_supported``, checked whenever
        present (RFC 9207 section 2.4)."""
        import hmac

        if "error" in answer:
            raise OAuthFlowError(f"the authorization server answered {_said(answer['error'])}: "
                                 f"{_said(answer.get('error_description', ''))}".rstrip(": "))
        # As bytes: compare_digest refuses str with non-ASCII characters.
        if not hmac.compare_digest(answer.get("state", "").encode("utf-8", "replace"), state.encode("ascii")):
            raise OAuthFlowError("the authorization response's state is not the one sent (OAuth 2.1 section 7.12)")
        iss = answer.get("iss")
        if iss is not None and iss != self._metadata.get("issuer"):
            raise OAuthFlowError(f"the authorization response's iss {iss!r} is not the issuer "
                                 f"{self._metadata.get('issuer')!r} (RFC 9207 section 2.4)")
        if iss is None and self._metadata.get("authorization_response_iss_parameter_supported") is True:
            raise OAuthFlowError("the authorization response has no iss, which its server advertises (RFC 9207)")
        if not answer.get("code"):
            raise OAuthFlowError("the authorization response has no code")
        return answer["code"]

    # -- registration (basic/authorization, "Client Registration Approaches") --

    def _client(self, redirect_uri: str) -> Dict[str, Any]:
        """The client to authorize as: stored, else pre-registered, else a
        Client ID Metadata Document's URL when the server supports them, else
        registered dynamically (RFC 7591)."""
        client = self.storage.get_client_info()
        if client:
            return dict(client)
        meta = self._metadata
        if self.client_id:
            client = {"client_id": self.client_id}
            if self.client_secret:
                client["client_secret"] = self.client_secret
        elif self.client_metadata_url and meta.get("client_id_metadata_document_supported") is True:
            client = {"client_id": self.client_metadata_url, "token_endpoint_auth_method": "none"}
        elif meta.get("registration_endpoint") is not None:
            client = self._register(_endpoint(meta["registration_endpoint"], f"the authorization server "
                                              f"{self._issuer}'s registration_endpoint"), redirect_uri)
        else:
            raise OAuthFlowError(f"the authorization server {self._issuer} supports neither dynamic registration "
                                 "nor Client ID Metadata Documents: pass client_id (and client_secret)")
        client["issuer"] = self._issuer
        self.storage.set_client_info(client)
        return client

    def _register(self, endpoint: str, redirect_uri: str) -> Dict[str, Any]:
        """RFC 7591 section 3: our metadata (``application_type`` native, as a
        client on the user's machine, SEP-837), the server's answer kept."""
        body: Dict[str, Any] = {
            "client_name": "mcp_ref", "redirect_uris": [redirect_uri], "application_type": "native",
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            "token_endpoint_auth_method": self.token_endpoint_auth_method or _auth_method(self._metadata, True)}
        body.update(self.client_metadata)
        status, answer = _http_json("POST", endpoint, json.dumps(body).encode(), {"Content-Type": "application/json"},
                                    self.timeout)
        # RFC 7591 section 3.2.1; the answer is not quoted: it may hold a secret.
        if status not in (200, 201) or not isinstance(answer, dict) or not isinstance(answer.get("client_id"), str) \
                or not answer["client_id"] or not isinstance(answer.get("client_secret", ""), (str, type(None))):
            error = answer.get("error") if isinstance(answer, dict) else None
            raise OAuthFlowError(f"dynamic registration at {endpoint} failed: HTTP {status}"
                                 + (f" {_said(str(error))}" if error else ": no client_id and client_secret strings")
                                 + " (RFC 7591 section 3.2)")
        return answer

    # -- the token endpoint (OAuth 2.1 section 3.2, RFC 8707 section 2.2) --

    def _token_request(self, form: Dict[str, str], client: Dict[str, Any], scope: Optional[str]) -> Dict[str, Any]:
        """A token request with the client's authentication and the resource;
        its answer, ``expires_at`` added."""
        endpoint = _endpoint(self._metadata.get("token_endpoint"), f"the authorization server {self._issuer}'s "
                             "token_endpoint")
        form = dict(form, resource=str(self._resource))
        if scope:
            form["scope"] = scope
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        _client_authentication(client, self.token_endpoint_auth_method or client.get("token_endpoint_auth_method")
                               or _auth_method(self._metadata, bool(client.get("client_secret"))), form, headers)
        status, answer = _http_json("POST", endpoint, _form(form), headers, self.timeout)
        answer = _token_answer(status, answer, form["grant_type"])
        if answer.get("expires_in") is not None:
            answer["expires_at"] = time.time() + float(answer["expires_in"])
        return answer

    def _refresh(self, tokens: Dict[str, Any], rejected: bool = False) -> Optional[Dict[str, Any]]:
        """New tokens from the refresh token (OAuth 2.1 section 4.3), the old
        refresh token kept when the answer has none; None if refused.  Before
        a request, a failure keeps the tokens (the server decides with a 401);
        after the server ``rejected`` the token, the refresh token is dropped
        with it, so that the next step is a new authorization."""
        client = self.storage.get_client_info() or {"client_id": self.client_id, "client_secret": self.client_secret}
        try:
            answer = self._token_request({"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
                                         client, None)
        except OAuthFlowError:
            if rejected:
                self.storage.set_tokens(dict(tokens, refresh_token=None))
            return None
        answer.setdefault("refresh_token", tokens["refresh_token"])
        answer.setdefault("scope", tokens.get("scope"))
        self.storage.set_tokens(answer)
        return answer


class _MemoryTokenStorage:
    """The default storage: the process's memory."""

    def __init__(self) -> None:
        self.tokens: Optional[Dict[str, Any]] = None
        self.client_info: Optional[Dict[str, Any]] = None

    def get_tokens(self) -> Optional[Dict[str, Any]]:
        return self.tokens

    def set_tokens(self, tokens: Optional[Dict[str, Any]]) -> None:
        self.tokens = tokens

    def get_client_info(self) -> Optional[Dict[str, Any]]:
        return self.client_info

    def set_client_info(self, client_info: Optional[Dict[str, Any]]) -> None:
        self.client_info = client_info


def _token_answer(status: int, answer: Any, grant_type: str) -> Dict[str, Any]:
    """A token response as OAuth 2.1 section 3.2.3 has it, else a refusal that
    quotes the server's ``error`` only (the body may hold a token).  The
    token is sent as a header: printable ASCII (RFC 6749 appendix A.12), of
    type Bearer (RFC 6750; DPoP needs a wrapper), its ``expires_in`` seconds
    (a digit string too, as some servers send)."""
    import math

    failed = f"the token request ({grant_type}) failed: HTTP {status}"
    if status != 200 or not isinstance(answer, dict):
        error = answer.get("error") if isinstance(answer, dict) else None
        detail = answer.get("error_description") if isinstance(answer, dict) else None
        raise OAuthFlowError(failed + (f" {_said(str(error))}" if error else " (no error)")
                             + (f": {_said(str(detail))}" if detail else ""))
    token = answer.get("access_token")
    if not isinstance(token, str) or not token or not all(" " <= c <= "~" for c in token):
        raise OAuthFlowError(failed + ": no access_token of printable ASCII (OAuth 2.1 section 3.2.3)")
    token_type = answer.get("token_type", "Bearer")
    if not isinstance(token_type, str) or token_type.lower() != "bearer":
        raise OAuthFlowError(failed + f": token_type {_said(str(token_type), 40)!r} is not Bearer (RFC 6750)")
    expires_in = answer.get("expires_in")
    if isinstance(expires_in, str) and expires_in.isdigit() and expires_in.isascii():
        answer["expires_in"] = expires_in = int(expires_in)
    if expires_in is not None and (isinstance(expires_in, bool) or not isinstance(expires_in, (int, float))
                                   or not math.isfinite(expires_in) or expires_in < 0):
        raise OAuthFlowError(failed + f": expires_in {_said(str(expires_in), 40)!r} is not a number of seconds "
                             "(OAuth 2.1 section 3.2.3)")
    for name in ("refresh_token", "scope"):
        if answer.get(name) is not None and not isinstance(answer[name], str):
            raise OAuthFlowError(failed + f": {name} is not a string (OAuth 2.1 section 3.2.3)")
    return answer


def _token_expired(tokens: Dict[str, Any]) -> bool:
    expires_at = tokens.get("expires_at")
    return isinstance(expires_at, (int, float)) and time.time() >= expires_at - 30  # a margin for the trip


def _www_authenticate(header: str) -> Dict[str, str]:
    """The Bearer challenge's parameters (RFC 6750 section 3, RFC 9728
    section 5.1): quoted strings unescaped; other schemes' parameters
    ignored."""
    import re

    start = re.search(r"(?:^|,)\s*Bearer(?:\s+|$)", header, re.IGNORECASE)
    if start is None:
        return {}
    params: Dict[str, str] = {}
    pattern = re.compile(r'\s*([!#$%&\'*+.^_`|~0-9A-Za-z-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,]*)\s*(?:,|$)')
    pos = start.end()
    while pos < len(header):
        match = pattern.match(header, pos)
        if match is None:
            break  # the next challenge's scheme
        value = match.group(2)
        if value.startswith('"'):
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        params.setdefault(match.group(1).lower(), value)
        pos = match.end()
    return params


def _said(text: str, limit: int = 200) -> str:
    """A server's words in an error message: printable, and short."""
    return "".join(c if c.isprintable() else "?" for c in text[:limit])


def _scope_union(before: Optional[str], challenged: Optional[str]) -> Optional[str]:
    """The scopes asked before, then the challenge's new ones (SEP-2350)."""
    scopes = (before or "").split()
    scopes += [s for s in dict.fromkeys((challenged or "").split()) if s not in scopes]
    return " ".join(scopes) or None


def _with_offline_access(scope: Optional[str], metadata: Dict[str, Any], grant_type: str) -> Optional[str]:
    """``offline_access`` added when the authorization server lists it, so that
    a refresh token comes (SEP-2207); never alone, never for client
    credentials, which need no refresh token."""
    supported = metadata.get("scopes_supported")
    if not scope or grant_type != "authorization_code" or not isinstance(supported, list) or \
            "offline_access" not in supported or "offline_access" in scope.split():
        return scope
    return scope + " offline_access"


def _canonical_resource(url: str) -> str:
    """The server's canonical URI (basic/authorization, "Canonical Server
    URI"; RFC 8707 section 2): scheme and host in lower case, no fragment."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, parts.query, ""))


def _url_origin(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _resource_covers(resource: str, server: str) -> bool:
    """Whether the metadata's ``resource`` names this server: the same URI, or
    one of its path prefixes on the same origin (a resource serving several
    endpoints)."""
    try:
        resource = _canonical_resource(resource)
    except ValueError:  # not a URL (an unclosed IPv6 bracket)
        return False
    if resource == server:
        return True
    if _url_origin(resource) != _url_origin(server):
        return False
    prefix = resource[len(_url_origin(resource)):].rstrip("/")
    path = server[len(_url_origin(server)):]
    return path == prefix or path.startswith(prefix + "/")


def _prm_urls(server: str) -> List[str]:
    """RFC 9728 section 3.1's well-known URIs: the path-aware one first, then
    the root's (basic/authorization, "Protected Resource Metadata Discovery")."""
    from urllib.parse import urlsplit

    path = urlsplit(server).path.rstrip("/")
    urls = [_url_origin(server) + "/.well-known/oauth-protected-resource" + path] if path else []
    return urls + [_url_origin(server) + "/.well-known/oauth-protected-resource"]


def _server_metadata(issuer: str, timeout: float, legacy: bool = False) -> Dict[str, Any]:
    """The authorization server's metadata from the first well-known URI that
    has it (basic/authorization, "Authorization Server Metadata Discovery"):
    for an issuer with a path, RFC 8414's path insertion, OpenID Connect's path
    insertion, then its path appending; for one without, RFC 8414's then
    OpenID Connect's.  The ``issuer`` inside must be the one the URI was built
    from (RFC 8414 section 3.3).  A ``legacy`` server (no resource metadata)
    without any has 2025-03-26's default endpoints ("Fallbacks for Servers
    without Metadata Discovery")."""
    from urllib.parse import urlsplit

    _endpoint(issuer, "the authorization server")
    path = urlsplit(issuer).path.rstrip("/")
    origin = _url_origin(issuer)
    if path:
        urls = [origin + "/.well-known/oauth-authorization-server" + path,
                origin + "/.well-known/openid-configuration" + path,
                origin + path + "/.well-known/openid-configuration"]
    else:
        urls = [origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"]
    for url in urls:
        metadata = _fetch_json(url, timeout)
        if metadata is None:
            continue
        named = metadata.get("issuer")
        if named != issuer and not (not path and named == issuer.rstrip("/") + "/"):
            raise OAuthFlowError(f"the metadata at {url} names issuer {named!r}, not {issuer!r} (RFC 8414 section 3.3)")
        return metadata
    if legacy:
        return {"issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
                "registration_endpoint": issuer + "/register", "_defaults": True}
    raise OAuthFlowError(f"no authorization server metadata for {issuer} (RFC 8414, OpenID Connect Discovery)")


def _auth_method(metadata: Dict[str, Any], has_secret: bool) -> str:
    """A token endpoint authentication method the server lists (RFC 8414:
    client_secret_basic when it lists none): with a secret, basic, then post;
    without, none."""
    supported = metadata.get("token_endpoint_auth_methods_supported")
    if not isinstance(supported, list):
        supported = ["client_secret_basic"]
    for method in (("client_secret_basic", "client_secret_post") if has_secret else ()) + ("none",):
        if method in supported:
            return method
    return "client_secret_basic" if has_secret else "none"


def _client_authentication(client: Dict[str, Any], method: str, form: Dict[str, str],
                           headers: Dict[str, str]) -> None:
    """OAuth 2.1 section 2.4.1: client_secret_basic (id and secret
    form-encoded, then Base64), client_secret_post (both in the body), or none
    (the id in the body)."""
    import base64
    from urllib.parse import quote

    secret = client.get("client_secret")
    if method == "client_secret_basic" and secret:
        pair = quote(client["client_id"], safe="") + ":" + quote(secret, safe="")
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
    elif method == "client_secret_post" and secret:
        form.update(client_id=client["client_id"], client_secret=secret)
    elif method in ("none", "client_secret_basic", "client_secret_post"):
        if client.get("client_id"):
            form["client_id"] = client["client_id"]
    else:
        raise OAuthFlowError(f"token endpoint authentication {method!r} needs a signature: "
                             "wrap OAuthClientProvider to add it (private_key_jwt, DPoP)")


def _form(form: Dict[str, str]) -> bytes:
    from urllib.parse import urlencode

    return urlencode(form).encode("ascii")


def _with_query(url: str, query: Dict[str, Any]) -> str:
    from urllib.parse import urlencode

    return url + ("&" if "?" in url else "?") + urlencode({k: v for k, v in query.items() if v is not None})


def _callback_query(answer: Any) -> Dict[str, str]:
    """What a redirect handler returned, as a dict: a mapping, a callback URL,
    or its query string."""
    from urllib.parse import parse_qsl, urlsplit

    if isinstance(answer, dict):
        return {str(k): str(v) for k, v in answer.items()}
    text = str(answer)
    if "://" in text:
        text = urlsplit(text).query
    pairs = parse_qsl(text.lstrip("?"), keep_blank_values=True)
    query = dict(pairs)
    if len(query) != len(pairs):  # OAuth 2.1 section 3.1: no parameter more than once
        repeated = sorted({name for name, _ in pairs if sum(n == name for n, _ in pairs) > 1})
        raise OAuthFlowError(f"the authorization response repeats {', '.join(repeated)} (OAuth 2.1 section 3.1)")
    return query


def _fetch_json(url: str, timeout: float) -> Optional[Dict[str, Any]]:
    """A metadata document, or None when the URL has none (any status but 200,
    or not a JSON object: the next well-known URI is tried)."""
    status, answer = _http_json("GET", url, None, {"Accept": "application/json"}, timeout)
    return answer if status == 200 and isinstance(answer, dict) else None


def _endpoint(url: Any, what: str) -> str:
    """An authorization server's URL: https (basic/authorization,
    "Communication Security"; OAuth 2.1 section 1.5), or http on a loopback
    host, for a server under test on this machine (RFC 8252 section 8.3)."""
    from urllib.parse import urlsplit

    if not isinstance(url, str) or not url:
        raise OAuthFlowError(f"{what} is missing (RFC 8414 section 2)")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        host, parts = None, urlsplit("")
    if parts.scheme == "https" and host or parts.scheme == "http" and _loopback_host(host):
        return url
    raise OAuthFlowError(f"{what} {_said(url)!r} is not https (basic/authorization, Communication Security)")


def _loopback_host(host: Optional[str]) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host or "").is_loopback
    except ValueError:
        return False


def _http_json(method: str, url: str, body: Optional[bytes], headers: Dict[str, str],
               timeout: float) -> Tuple[int, Any]:
    """One request with urllib, redirects not followed (metadata comes from the
    URL asked, RFC 8414 section 3); the status and the JSON answer (None if
    not JSON)."""
    import http.client
    import urllib.error
    import urllib.request

    if not url.lower().startswith(("https://", "http://")):  # never file:, data: or ftp: from a server's document
        raise OAuthFlowError(f"{method} {_said(url)!r}: only http and https URLs are fetched")

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    request = urllib.request.Request(url, data=body, headers=headers, method=method)
    try:
        response = urllib.request.build_opener(NoRedirect).open(request, timeout=timeout)
    except urllib.error.HTTPError as error:
        response = error
    except (OSError, ValueError, http.client.HTTPException) as error:  # HTTPException: not HTTP (BadStatusLine)
        raise OAuthFlowError(f"{method} {_said(url)}: {_said(str(error))}") from None
    try:
        with response:
            status, data = response.status, _read_within(response, timeout)
    except (OSError, http.client.HTTPException) as error:
        raise OAuthFlowError(f"{method} {_said(url)}: {_said(str(error))}") from None
    try:
        return status, json.loads(data)
    except (ValueError, RecursionError):  # RecursionError: a document nested deeper than the parser goes
        return status, None


def _read_within(response: Any, timeout: float) -> bytes:
    """The first MiB of a body, within ``timeout`` seconds in all: the
    socket's timeout bounds each read only, and a server that drips a byte
    at a time would hold the flow for hours (security_best_practices, "Bound
    Resource Usage")."""
    deadline, data = time.monotonic() + timeout, b""
    while len(data) < 1 << 20:
        chunk = response.read1(65536)
        if not chunk:
            break
        data += chunk
        if time.monotonic() > deadline:
            raise TimeoutError(f"the answer took over {timeout:g} s")
    return data[:1 << 20]


class _LoopbackCallback:
    """The default redirect: a one-shot HTTP server on 127.0.0.1 (RFC 8252
    section 7.3, which lets the port vary) that receives the browser's callback,
    while ``webbrowser`` shows the user the authorization page."""

    def __init__(self, redirect_uri: Optional[str], timeout: float) -> None:
        import http.server
        from urllib.parse import urlsplit

        parts = urlsplit(redirect_uri or "http://127.0.0.1/callback")
        if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost"):
            raise ValueError(f"the default redirect listens on loopback: redirect_uri {redirect_uri!r} is not")
        self.path, self.query, self.deadline_after = parts.path or "/", None, max(timeout, 300.0)
        callback = self

        class Handler(http.server.BaseHTTPRequestHandler):
            timeout = 10  # a connection that sends nothing must not hold the one-shot server past its wait

            def do_GET(self) -> None:
                path, _, query = self.path.partition("?")
                found = path == callback.path
                if found:
                    callback.query = query
                self.send_response(200 if found else 404)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.end_headers()
                self.wfile.write(b"Authorization done: you can close this tab." if found else b"Not found")

            def log_message(self, *args: Any) -> None:
                pass  # never stdout; nothing worth stderr

        try:
            self.server = http.server.HTTPServer(("127.0.0.1", parts.port or 0), Handler)
        except OSError as error:
            raise OAuthFlowError(f"the redirect's loopback server cannot listen at {redirect_uri}: {error}") from None
        self.redirect_uri = f"http://{parts.hostname}:{self.server.server_address[1]}{self.path}"

    def wait(self, url: str) -> str:
        """Open the browser at ``url``; the callback's query, within the time
        a person needs (at least five minutes)."""
        import webbrowser

        if not webbrowser.open(url):
            sys.stderr.write(f"Open this URL to authorize: {url}\n")
        deadline = time.monotonic() + self.deadline_after
        while self.query is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise OAuthFlowError("no authorization callback came to " + self.redirect_uri)
            self.server.timeout = min(left, 1.0)
            self.server.handle_request()
        return self.query

    def close(self) -> None:
        self.server.server_close()


# ---------------------------------------------------------------------------
# 32. Command line
# ---------------------------------------------------------------------------
#
# Fenced: not MCP, the tool around it.
#
#   entry                 where it is used                    what it serves
#   --------------------  ----------------------------------  ---------------------------------------------
#   main                  the end of the file                 mcp-ref COMMAND ... (python mcp_ref.py COMMAND ...)
#   _cli                  main (section 32)                   each command, its options and exit codes
#   _answer_elicitation   Client (section 29), for _cli       the server's questions, as the user answers them
#   _progress_line        _show_progress (section 32)         progress: one line that updates, on a terminal
#   _stderr_line          _show_log (section 32)              a log message, after any progress line
#   _IMPORTING            MCPServer (section 14)              run() refuses while serve imports the file
#   _one_line             _HttpApp._guard (section 19)        a client's header, a server's text: one line
#
# The commands and their words are _COMMANDS below, and its usage text.
# SERVER is a Python file that defines an mcp_ref MCPServer, any other
# server's command line in one quoted string ("node build/index.js"), or the
# http(s):// URL of a Streamable HTTP endpoint.  All but serve are a small
# client: they start the server (or reach the URL) as a real client would
# and speak JSON-RPC to it; --trace shows every message, both ways, on stderr.
#
# Exit codes: 0 done; 1 the tool reported an error (isError); 2 bad usage (an
# unknown command or option, a missing file, a file that fails to import or
# defines no MCPServer, a command that cannot start, a URL with no endpoint
# (404), a malformed key=value or --json, no such tool, resource or prompt,
# arguments the tool's inputSchema or the server refuses, a question of the
# server's the user declined, a client capability the server requires that
# the command line lacks); 3 the server failed (it exited, answered with any
# other JSON-RPC error, sent something malformed, or did not answer in time).
# A failure is one line on stderr, never a traceback (no command at all gets
# the usage text).

# command -> (its words after SERVER, what it does)
_COMMANDS: Dict[str, Tuple[str, str]] = {
    "list": ("[--schemas]", "the tools, one line each (--schemas: with their input and output schemas)"),
    "call": ("TOOL [key=value ...] [--json OBJECT] [--sampling]", "calls a tool: content, structuredContent, isError"),
    "resources": ("", "the resources and the resource templates"),
    "read": ("URI", "a resource's contents"),
    "prompts": ("", "the prompts and their arguments"),
    "prompt": ("NAME [key=value ...] [--json OBJECT]", "a prompt's messages (its arguments are text)"),
    "complete": ("PROMPT|TEMPLATE NAME=PREFIX [key=value ...]",
                 "completion/complete: values for a prompt's argument or a template's variable (key=value: context)"),
    "serve": ("[--http HOST:PORT]", "serves SERVER.py over stdio, or Streamable HTTP at http://HOST:PORT/mcp"),
}
# The fewest and the most words after SERVER (None: any number).
_WORDS: Dict[str, Tuple[int, Optional[int]]] = {
    "list": (0, 0), "call": (1, None), "resources": (0, 0), "read": (1, 1), "prompts": (0, 0),
    "prompt": (1, None), "complete": (2, None), "serve": (0, 0)}

_USAGE = """usage: {prog} COMMAND SERVER ... [--trace] [--protocol VERSION] [--timeout SECONDS]
       [--header NAME:VALUE] [--auth]

{commands}

SERVER is a .py file defining an MCPServer, a server command in quotes ("node build/index.js"), or the
http(s):// URL of a Streamable HTTP endpoint (http://127.0.0.1:8000/mcp).
key=value: typed by the tool's inputSchema: text where the schema takes text (label=123 for a string),
else JSON (days=3, tags='["a"]'); a name the schema lacks is refused.  Where the schema says nothing:
JSON when it parses, else text (x=NaN: NaN is not JSON); a number beyond a double (x=1e400) is refused.
--json OBJECT: the arguments as one JSON object, over the key=value ones.
--trace: every JSON-RPC message, both ways, on stderr.
--protocol: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 (initialize handshake) or 2026-07-28
(per-request _meta; the default, falling back to the handshake for older servers).
--timeout: seconds to wait for each answer, a positive number (30 by default).
--header NAME:VALUE (repeatable) and --auth (OAuth 2.1: the browser opens to sign in) go with a URL.
The server's questions: an elicitation is put to you at a terminal, and declined without one.  A
sampling request (the server asks for a model's reply) is declined, unless --sampling: then it is
shown on stderr and you write the reply, one line on stdin (typed, or piped in).
Exit codes: 0 done, 1 the tool reported isError, 2 bad usage (or no such tool, resource or prompt,
arguments the schema or the server refuses, a question declined, a capability the command line
lacks), 3 the server failed."""


def _prog() -> str:
    """The command as the user typed it: ``mcp-ref`` once installed (the
    script pyproject.toml declares), else ``python mcp_ref.py``."""
    name, extension = os.path.splitext(os.path.basename(sys.argv[0] if sys.argv else ""))
    return name if name and not name.startswith("-") and extension in ("", ".exe") else "python mcp_ref.py"


def _usage(command: str) -> str:
    """One command's usage line."""
    words = _COMMANDS[command][0]
    return f"usage: {_prog()} {command} {'SERVER.py' if command == 'serve' else 'SERVER'} {words}".rstrip()


def _usage_text() -> str:
    commands = "\n".join(f"  {_usage(c)[7:]}\n      {what}" for c, (_, what) in _COMMANDS.items())
    return _USAGE.format(prog=_prog(), commands=commands)


def _summary(schema: Dict[str, Any], none: str = "(none)") -> str:
    """A schema in one line: ``city: string, days?: integer`` (``...``: any
    properties, as the schema lists none)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return "..."
    required = schema.get("required")
    required = set(r for r in required if isinstance(r, str)) if isinstance(required, list) else set()
    parts = []
    for name, prop in properties.items():
        parts.append(f"{name}{'' if name in required else '?'}: {_type_word(prop)}")
    return ", ".join(parts) if parts else none


def _type_word(schema: Any, depth: int = 0) -> str:
    # A schema is the server's to write: any keyword may hold anything.
    if not isinstance(schema, dict):
        return "any"
    if depth > 8:
        return "..."
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if isinstance(schema.get("anyOf"), list):
        return " | ".join(_type_word(s, depth + 1) for s in schema["anyOf"])
    if isinstance(schema.get("enum"), list) or "const" in schema:
        values = schema["enum"] if isinstance(schema.get("enum"), list) else [schema["const"]]
        return " | ".join(json.dumps(v) for v in values)
    kind = schema.get("type", "any")
    if kind == "array":
        return f"array of {_type_word(schema.get('items', {}), depth + 1)}"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"object of {_type_word(schema['additionalProperties'], depth + 1)}"
    return " | ".join(map(str, kind)) if isinstance(kind, list) else str(kind)


def _pairs(words: List[str]) -> List[Tuple[str, str]]:
    """key=value words, checked before any server starts; typed once the tool's schema is known."""
    pairs = []
    for word in words:
        key, sep, text = word.partition("=")
        if not sep or not key:
            raise _UsageError(f"expected key=value, got {word!r}")
        pairs.append((key, text))
    return pairs


def _json_option(json_text: Optional[str]) -> Dict[str, Any]:
    """--json's object, checked before any server starts."""
    if json_text is None:
        return {}
    try:
        extra = _user_json(json_text, "--json")
    except ValueError as exc:
        raise _UsageError(f"--json is not valid JSON: {exc}") from None
    if not isinstance(extra, dict):
        raise _UsageError("--json needs a JSON object")
    return extra


def _tool_arguments(tool: Dict[str, Any], pairs: List[Tuple[str, str]], extra: Dict[str, Any]) -> Dict[str, Any]:
    """call's arguments: the key=value pairs typed by the tool's inputSchema,
    then --json's object over them; a name the schema lacks (where it lists
    its properties and allows no others) or arguments it refuses are bad usage,
    found before the call rather than dropped or refused by the server."""
    schema: Dict[str, Any] = tool["inputSchema"] if isinstance(tool.get("inputSchema"), dict) else {}
    known: Optional[Dict[str, Any]] = schema["properties"] if isinstance(schema.get("properties"), dict) else None
    arguments = {key: _typed_value(schema, known.get(key) if known else None, key, text) for key, text in pairs}
    arguments.update(extra)
    others = schema.get("additionalProperties", False)
    unknown = [key for key in arguments if known is not None and key not in known]
    if unknown and others is not True and not isinstance(others, dict) and "patternProperties" not in schema:
        listed = ", ".join(known or {}) or "(none)"
        raise _UsageError(f"{tool['name']} has no argument {unknown[0]!r}; its arguments: {listed}")
    try:
        validate(arguments, schema)
    except ValidationError as exc:
        shown = "; ".join(f"{'.'.join(map(str, e.loc)) or '(the arguments)'}: {e.msg}" for e in exc.errors[:5])
        raise _UsageError(f"{tool['name']}'s inputSchema refuses the arguments: {shown}") from None
    except Exception:  # a schema this validator cannot read ($ref elsewhere): the server judges
        pass
    return arguments


def _typed_value(schema: Dict[str, Any], prop: Any, key: str, text: str) -> Any:
    """A key=value's value: its JSON where that fits the property (days=3),
    else its text where that fits (label=123 for a string, x=1e400 too);
    with no property to go by, its JSON when it parses, else its text."""
    try:
        value = _user_json(text, f"{key}={_one_line(text, 40)}")
    except ValueError:  # not JSON (NaN and Infinity are not): text
        return text
    except _UsageError:  # a number beyond a double: text, if text fits
        if prop is None or not _fits(schema, key, prop, text):
            raise
        return text
    if prop is None or _fits(schema, key, prop, value) or not _fits(schema, key, prop, text):
        return value
    return text


def _fits(schema: Dict[str, Any], key: str, prop: Any, value: Any) -> bool:
    """Whether ``value`` fits the property ``key`` of ``schema`` (with the
    schema's $defs, which the property's $ref may name)."""
    probe = {k: v for k, v in schema.items() if k in ("$defs", "definitions")}
    probe.update(type="object", properties={key: prop})
    try:
        validate({key: value}, probe)
    except ValidationError:
        return False
    except Exception:  # a schema this validator cannot read: the server judges
        return True
    return True


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds < float("inf"):  # false for NaN too
        raise _UsageError(f"--timeout needs a positive number of seconds, not {text!r}")
    return seconds


def _spawn(server: str) -> Tuple[List[str], bool]:
    """The command that starts SERVER, and whether it is our own serve."""
    if server.endswith(".py") and os.path.isfile(server):
        return [sys.executable, os.path.abspath(__file__), "serve", server], True
    if server.endswith(".py") and not any(c.isspace() for c in server):
        raise _UsageError(f"no such file: {server}")
    import shlex

    try:
        command = shlex.split(server)
    except ValueError as exc:  # No closing quotation
        raise _UsageError(f"cannot read the server command {server!r}: {exc}") from None
    if not command:
        raise _UsageError("the server command is empty")
    return command, False


def _read_argv(argv: List[str]) -> Optional[Tuple[List[str], Dict[str, Any]]]:
    """The words and options of a command line, checked before any server
    starts; None once --help or --version has answered."""
    options: Dict[str, Any] = {"trace": False, "protocol": None, "json": None, "timeout": "30", "http": None,
                               "schemas": False, "sampling": False, "auth": False, "headers": {}}
    words: List[str] = []
    it = iter(argv)
    for word in it:
        if word in ("-h", "--help", "--version"):
            print(f"mcp_ref {__version__}" if word == "--version" else _usage_text())
            return None
        if word in ("--trace", "--schemas", "--sampling", "--auth"):
            options[word[2:]] = True
        elif word == "--header":
            header = str(next(it, None) or "")
            name, sep, text = header.partition(":")
            if not sep or not name.strip() or any(c in header for c in "\r\n\0"):
                raise _UsageError(f"--header needs NAME:VALUE (X-Api-Key:abc), not {header!r}")
            options["headers"][name.strip()] = text.strip()
        elif word in ("--protocol", "--json", "--timeout", "--http"):
            value = next(it, None)
            if value is None:
                raise _UsageError(f"{word} needs a value")
            options[word[2:]] = value
        elif word.startswith("--"):
            raise _UsageError(f"unknown option {word}")
        else:
            words.append(word)
    if not words:
        raise _UsageError(_usage_text())
    _check_words(words)
    if options["protocol"] is not None and options["protocol"] not in _ALL_VERSIONS:
        raise _UsageError(f"unknown protocol version {options['protocol']!r}; "
                          f"choose one of {', '.join(_ALL_VERSIONS)}")
    options["timeout"] = _seconds(options["timeout"])
    for option, commands in (("schemas", ("list",)), ("json", ("call", "prompt")), ("sampling", ("call",)),
                             ("http", ("serve",))):
        if options[option] not in (None, False) and words[0] not in commands:
            raise _UsageError(f"--{option} goes with {' and '.join(commands)}: {_usage(commands[0])}")
    if options["http"] is not None:
        options["http"] = _host_port(options["http"])
    if (options["auth"] or options["headers"]) and not words[1].startswith(("http://", "https://")):
        raise _UsageError(f"--{'auth' if options['auth'] else 'header'} goes with an http(s):// SERVER")
    return words, options


def _check_words(words: List[str]) -> None:
    """The command, and as many words after it as it takes."""
    command = words[0]
    if command not in _COMMANDS:
        raise _UsageError(f"unknown command {command!r}; the commands: {', '.join(_COMMANDS)} "
                          f"({_prog()} --help tells more)")
    if len(words) < 2:
        raise _UsageError(f"{command} needs a SERVER: {_usage(command)}")
    if command == "call" and len(words) < 3:
        raise _UsageError(f"call needs a tool name: {_usage(command)}")
    fewest, most = _WORDS[command]
    if most == 0 and len(words) > 2:
        raise _UsageError(f"{command} takes one SERVER, not {words[2]!r} too; "
                          "quote a command line: \"node build/index.js\"")
    if len(words) - 2 < fewest or (most is not None and len(words) - 2 > most):
        raise _UsageError(_usage(command))


def _host_port(text: str) -> Tuple[str, int]:
    """``HOST:PORT``, ``[::1]:PORT`` or ``PORT`` (on 127.0.0.1) for serve --http."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]") if sep else "127.0.0.1"
    if not port.isdigit() or int(port) > 65535 or (sep and not host):
        raise _UsageError(f"--http needs HOST:PORT (127.0.0.1:8000), not {text!r}")
    return host, int(port)


def _cli(argv: List[str]) -> int:
    parsed = _read_argv(argv)
    if parsed is None:
        return 0
    words, options = parsed
    command, server = words[0], words[1]
    if command == "serve":
        loaded = _import_server(server)
        if options["http"] is not None:
            host, port = options["http"]
            return _run_http(loaded, host=host, port=port)  # exits 0 at the end, or returns 2
        return _StdioServer(loaded).serve()  # exits 0 at the end of input
    url = server.startswith(("http://", "https://"))
    spawn = server if url else _spawn(server)[0]
    pairs = _pairs(words[3:])
    extra = _json_option(options["json"])
    # A server's text may hold lone surrogates, or characters stdout's encoding
    # lacks: shown escaped rather than a UnicodeEncodeError.
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")
    trace = options["trace"]
    client = Client(spawn, protocol_version=options["protocol"], timeout=options["timeout"],
                    elicitation_callback=_answer_elicitation, sampling_callback=_answer_sampling(options["sampling"]),
                    logging_callback=None if trace else _show_log, trace=_trace_line if trace else None,
                    headers=options["headers"], auth=_oauth(server) if options["auth"] else None, tasks=True)
    try:
        _connect(client, options["protocol"], server if url else None)
        if command == "list":
            return _cli_list(client, options["schemas"])
        if command == "call":
            return _cli_call(client, words[2], pairs, extra, trace)
        if command == "complete":
            return _cli_complete(client, words[2], pairs)
        return _more_command(client, command, words[2:], _prompt_arguments(pairs, extra))
    finally:
        _end_progress()
        client.close()


def _oauth(url: str) -> Any:
    """--auth: OAuth 2.1 (section 31), the browser sent to the authorization
    server and its redirect received on 127.0.0.1; the tokens kept in memory."""
    return OAuthClientProvider(url)


_IMPORTING: List[str] = []  # the file serve is importing, while it does


def _import_server(path: str) -> MCPServer:
    """serve's server file; a file whose import serves (``mcp.run()`` without
    ``if __name__ == "__main__":``) is refused: MCPServer.run raises."""
    _IMPORTING.append(path)
    try:
        return _load_server(path)
    finally:
        _IMPORTING.pop()


def _connect(client: Client, protocol: Optional[str], url: Optional[str]) -> None:
    """Connect; a URL that answers 404 is a mistyped endpoint (bad usage),
    with a hint where its path lacks the usual /mcp."""
    try:
        client.initialize()
    except (MCPError, ValueError, ConnectionError) as exc:
        # As the revision was agreed (Client.initialize): server/discover's
        # error where a 2026-07-28 revision was asked for, or none offered.
        code = exc.code if isinstance(exc, MCPError) else None
        method = "server/discover" if protocol in STATELESS_VERSIONS or code == UNSUPPORTED_PROTOCOL_VERSION \
            else "initialize"
        failure = _cli_error(exc, method, usage=False)
        if url is None or "HTTP 404" not in str(failure):
            raise failure from None
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(url)
        path, hint = parts.path.rstrip("/"), ""
        if not path.endswith("/mcp"):
            hint = f"; MCP servers usually serve at /mcp: {urlunsplit(parts._replace(path=path + '/mcp'))}"
        raise _UsageError(f"no MCP endpoint at {url} (HTTP 404){hint}") from None


def _cli_error(exc: Exception, method: str, usage: bool = True) -> Exception:
    """What Client raised, as the command line's exit code: the server refusing
    what was asked (no such tool, resource or prompt, bad arguments, a question
    the user declined; basic/index's -32021 for a client capability the command
    line lacks) is bad usage, any other error the server's failure."""
    if isinstance(exc, _Declined):  # 2026-07-28: our own decline (an inputRequests round), said on stderr
        return _Said()
    if isinstance(exc, MCPError):
        text = f"{_one_line(exc.message, 1000)} (JSON-RPC error {exc.code})"
        if exc.code == MISSING_REQUIRED_CLIENT_CAPABILITY:
            needs = exc.data.get("requiredCapabilities") if isinstance(exc.data, dict) else None
            named = ", ".join(_dotted(needs)) if isinstance(needs, dict) and needs else "one it does not name"
            said = exc.message.partition(f": {method} needs ")[0]  # the server's words, without Client's hint
            return _UsageError(f"{method}: {said} (JSON-RPC error {exc.code}): the server needs the client "
                               f"capability {named}, which this command line does not offer")
        if usage and (exc.code in (INVALID_PARAMS, RESOURCE_NOT_FOUND, METHOD_NOT_FOUND) or _DECLINED[0]):
            return _UsageError(f"{method}: {text}")
        return _ServerFailed(f"{method} failed: {text}")
    if isinstance(exc, ValueError):  # Client's: what cannot be sent, a command that cannot start
        return _UsageError(str(exc))
    return _ServerFailed(str(exc))  # ConnectionError; RuntimeError: a result its outputSchema refuses


def _tools(client: Client) -> List[Dict[str, Any]]:
    """Every page of tools/list, each tool checked; Client keeps them (call_tool reads its schemas there)."""
    tools = _checked_tools(_items(client, "tools/list", "tools", missing=False))
    client._tools.update((tool["name"], tool) for tool in tools)
    client._listed = True
    return tools


def _cli_list(client: Client, schemas: bool) -> int:
    tools = _tools(client)
    try:  # all of it checked and written out before a line is printed
        text = "".join(_tool_text(tool, schemas) for tool in tools)
    except RecursionError:
        raise _ServerFailed("tools/list: a schema is nested too deeply to show") from None
    print(text or "no tools\n", end="")
    return 0


def _tool_text(tool: Dict[str, Any], schemas: bool) -> str:
    """A tool as list shows it: ``name(parameters)  what it does``, or with
    --schemas its title, description, input and output in a line each, then
    both schemas; a field of the wrong type is the server's failure."""
    for field, kind in (("title", str), ("description", str), ("inputSchema", dict), ("outputSchema", dict)):
        if tool.get(field) is not None and not isinstance(tool[field], kind):
            what = "a string" if kind is str else "an object"
            raise _ServerFailed(f"tools/list: the {field} of tool {tool['name']!r} is not {what}")
    if not schemas:
        about = (tool.get("description") or tool.get("title") or "").strip().split("\n")[0]
        return f"{tool['name']}({_summary(tool.get('inputSchema') or {}, '')}){'  ' + about if about else ''}\n"
    title = f" ({tool['title']})" if tool.get("title") else ""
    lines = [f"{tool['name']}{title}"]
    if tool.get("description"):
        lines.append("  " + tool["description"].replace("\n", "\n  "))
    lines.append(f"  input:  {_summary(tool.get('inputSchema') or {})}")
    output = tool.get("outputSchema")
    lines.append(f"  output: {_summary(output) if output else '(unstructured: content only)'}")
    lines.append("  inputSchema:  " + json.dumps(tool.get("inputSchema"), indent=2).replace("\n", "\n  "))
    if output:
        lines.append("  outputSchema: " + json.dumps(output, indent=2).replace("\n", "\n  "))
    return "\n".join(lines) + "\n\n"


def _cli_call(client: Client, name: str, pairs: List[Tuple[str, str]], extra: Dict[str, Any], trace: bool) -> int:
    tools = {tool["name"]: tool for tool in _tools(client)}
    if name not in tools:
        raise _UsageError(f"no tool named {name!r}; this server has: {', '.join(sorted(tools)) or '(none)'}")
    # Progress and (2026-07-28) log messages are asked for, and shown on stderr;
    # the server's questions (2026-07-28: rounds of inputRequests) are Client's.
    arguments = _tool_arguments(tools[name], pairs, extra)
    try:
        result = client.call_tool(name, arguments, progress_callback=None if trace else _show_progress,
                                  meta={META_LOG_LEVEL: "info"}, task_callback=None if trace else _show_task)
    except (MCPError, ValueError, ConnectionError, RuntimeError) as exc:
        raise _cli_error(exc, "tools/call") from None
    is_error = result.get("isError")
    if is_error is not None and not isinstance(is_error, bool):
        raise _ServerFailed("tools/call: isError is not a boolean")
    try:  # all of it checked and written out before a line is printed
        text = _result_text(result)
    except RecursionError:
        raise _ServerFailed("tools/call: the result is nested too deeply to show") from None
    _end_progress()
    print(f"{text}isError: {json.dumps(bool(is_error))}")
    return 1 if is_error else 0


class _Said(_Refused):
    """A refusal the command line has explained on stderr already: exit code 2."""


def _result_text(result: Dict[str, Any]) -> str:
    """content and structuredContent as call shows them, the content blocks
    separated by a ``---`` line; a malformed block is the server's failure."""
    content = result.get("content", [])
    if not isinstance(content, list):
        raise _ServerFailed("tools/call: content is not a list")
    lines = ["content:"]
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            raise _ServerFailed(f"tools/call: content block {index} is not an object")
        if index:
            lines.append("  ---")
        if block.get("type") != "text":
            lines.append("  " + json.dumps(block))
        elif isinstance(block.get("text"), str):
            lines.append("  " + block["text"].replace("\n", "\n  "))
        else:
            raise _ServerFailed(f"tools/call: text block {index} has no text (a string)")
    if "structuredContent" in result:
        lines.append("structuredContent:")
        lines.append("  " + json.dumps(result["structuredContent"], indent=2, ensure_ascii=False).replace("\n", "\n  "))
    return "\n".join(lines) + "\n"


# -- resources, read, prompts, prompt (sections 10 and 11 on the wire) ----------------

def _more_command(client: Client, command: str, words: List[str], arguments: Dict[str, Any]) -> int:
    if command == "resources":
        text = _listing(client, "resources/list", "resources", "uri") + _listing(
            client, "resources/templates/list", "resourceTemplates", "uriTemplate", "templates")
    elif command == "prompts":
        text = _listing(client, "prompts/list", "prompts", "name")
    elif command == "read":
        text = _contents_text(_ask(client, "resources/read", {"uri": words[0]}))
    else:
        prompts = {p.get("name"): p for p in _items(client, "prompts/list", "prompts")}
        if words[0] not in prompts:
            shown = ", ".join(sorted(n for n in prompts if isinstance(n, str))) or "(none)"
            raise _UsageError(f"no prompt named {words[0]!r}; this server has: {shown}")
        listed = prompts[words[0]].get("arguments")  # absent: the server does not say
        known = [a.get("name") for a in listed if isinstance(a, dict)] if isinstance(listed, list) else []
        unknown = [key for key in arguments if key not in known and isinstance(listed, list)]
        if unknown:
            raise _UsageError(f"{words[0]} has no argument {unknown[0]!r}; its arguments: "
                              f"{', '.join(map(str, known)) or '(none)'}")
        text = _messages_text(_ask(client, "prompts/get", {"name": words[0], "arguments": arguments}))
    print(text, end="")
    return 0


def _cli_complete(client: Client, target: str, pairs: List[Tuple[str, str]]) -> int:
    """completion/complete (server/utilities/completion): TARGET is a prompt's
    name, or a resource template's URI template (it holds "{"); the first
    NAME=PREFIX is the argument to complete, the other pairs the values
    already chosen (context, from 2025-06-18).  One value a line."""
    (name, prefix), chosen = pairs[0], dict(pairs[1:])
    ref = {"type": "ref/resource", "uri": target} if "{" in target else {"type": "ref/prompt", "name": target}
    params: Dict[str, Any] = {"ref": ref, "argument": {"name": name, "value": prefix}}
    if chosen:
        params["context"] = {"arguments": chosen}
    completion = _ask(client, "completion/complete", params).get("completion")
    values = completion.get("values") if isinstance(completion, dict) else None
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise _ServerFailed("completion/complete: completion.values is not a list of strings")
    assert isinstance(completion, dict)
    total = completion.get("total")
    lines = [value.replace("\n", " ") for value in values] or ["(none)"]
    if completion.get("hasMore") is True or (type(total) is int and total > len(values)):
        lines.append(f"... ({total} in all)" if type(total) is int else "... (and more)")
    print("\n".join(lines))
    return 0


def _ask(client: Client, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
    """The result of a request (Client's: _meta and the rounds of 2026-07-28
    questions included); an error as _cli_error says."""
    try:
        return client._request(method, params)
    except (MCPError, ValueError, ConnectionError) as exc:
        raise _cli_error(exc, method) from None


def _dotted(capabilities: Dict[str, Any], prefix: str = "") -> List[str]:
    """``{"elicitation": {"url": {}}}`` as ``["elicitation.url"]``."""
    names = []
    for key, value in capabilities.items():
        inner = _dotted(value, f"{prefix}{key}.") if isinstance(value, dict) and value and len(prefix) < 200 else []
        names.extend(inner or [f"{prefix}{key}"])
    return names


def _items(client: Client, method: str, key: str, missing: bool = True) -> List[Dict[str, Any]]:
    """Every page's ``key`` (Client._list), a list of objects; a server without
    that feature (-32601) lists nothing (``missing``).  Any error is the server's failure."""
    try:
        items = client._list(method, key, None, True)[key]
    except MCPError as exc:
        if missing and exc.code == METHOD_NOT_FOUND:
            return []
        raise _cli_error(exc, method, usage=False) from None
    except (ValueError, ConnectionError) as exc:
        raise _cli_error(exc, method) from None
    if missing and not all(isinstance(i, dict) for i in items):
        raise _ServerFailed(f"{method}: {key} is not a list of objects")
    return items  # type: ignore[no-any-return]


def _listing(client: Client, method: str, key: str, first: str, label: str = "") -> str:
    """A list as ``resources`` and ``prompts`` show it: the identifier, name
    (title) and MIME type on one line, the description and arguments below."""
    lines = [f"{label or key}:"]
    for item in _items(client, method, key):
        head = [str(item.get(first))]
        if first != "name":
            head.append(str(item.get("name")))
        head[-1] += f" ({item['title']})" if item.get("title") else ""
        head += [str(item["mimeType"])] if item.get("mimeType") else []
        lines.append("  " + "  ".join(head))
        if item.get("description"):
            lines.extend("    " + line for line in str(item["description"]).split("\n"))
        arguments = item.get("arguments")
        if isinstance(arguments, list) and arguments:
            lines.append("    arguments: " + "; ".join(_argument_text(a) for a in arguments))
    return "\n".join(line.rstrip() for line in lines) + ("\n" if len(lines) > 1 else " (none)\n")


def _argument_text(argument: Any) -> str:
    if not isinstance(argument, dict):
        return json.dumps(argument)
    text = f"{argument.get('name')}{' (required)' if argument.get('required') else ''}"
    return f"{text}: {argument['description']}" if argument.get("description") else text


def _contents_text(result: Dict[str, Any]) -> str:
    """A resource's contents: each as its URI and MIME type, then the text (or the base64)."""
    contents = result.get("contents")
    if not isinstance(contents, list) or not all(isinstance(c, dict) for c in contents):
        raise _ServerFailed("resources/read: contents is not a list of objects")
    lines = []
    for item in contents:
        text, blob = item.get("text"), item.get("blob")
        if not isinstance(text, str) and not isinstance(blob, str):
            raise _ServerFailed(f"resources/read: the contents of {item.get('uri')} have no text or blob (a string)")
        kind = item.get("mimeType") or "no MIME type"
        kind += "" if isinstance(text, str) else f", {len(blob) * 3 // 4 - blob.count('=')} bytes, base64"
        lines.append(f"{item.get('uri')} ({kind})")
        lines.append("  " + (text if isinstance(text, str) else blob).replace("\n", "\n  "))
    return "\n".join(lines) + "\n"


def _messages_text(result: Dict[str, Any]) -> str:
    """A prompt's messages: each role, then its content (text as is, other blocks as JSON)."""
    messages = result.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise _ServerFailed("prompts/get: messages is not a list of objects")
    lines = [f"description: {result['description']}"] if result.get("description") else []
    for message in messages:
        content = message.get("content")
        lines.append(f"{message.get('role')}:")
        shown = content["text"] if isinstance(content, dict) and isinstance(content.get("text"), str) \
            and content.get("type") == "text" else json.dumps(content, ensure_ascii=False)
        lines.append("  " + shown.replace("\n", "\n  "))
    return "\n".join(lines) + "\n"


def _prompt_arguments(pairs: List[Tuple[str, str]], extra: Dict[str, Any]) -> Dict[str, str]:
    """A prompt's arguments are strings (server/prompts): key=value is taken as
    text; a --json value that is not a string becomes its JSON text."""
    arguments = dict(pairs)
    for key, value in extra.items():
        arguments[key] = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return arguments


# -- the server's questions, and what it shows while a request runs ----------------


def _answer_elicitation(params: Dict[str, Any]) -> Dict[str, Any]:
    """Client's elicitation_callback.  The user stays in control, as
    client/elicitation asks: a form is put to them at a terminal, and declined
    without one (or in URL mode), with a line on stderr that says why."""
    _end_progress()
    question = _one_line(str(params.get("message", "")), 300)
    if params.get("mode", "form") == "form" and _person_at_terminal():
        return _elicit_at_terminal(params)
    why = "no terminal to answer it at" if params.get("mode", "form") == "form" else "a URL is not offered"
    _stderr_line(f"mcp_ref: declined the server's question ({why}): {question}")
    return {"action": "decline"}


class _Declined(MCPError):
    """The user declined a sampling request: the handshake era's error answer,
    or (2026-07-28) the end of the call, as bad usage."""


_DECLINED: List[bool] = [False]  # whether the user declined a request: what the call then fails with is bad usage


def _answer_sampling(enabled: bool) -> Callable[[Dict[str, Any]], Dict[str, Any]]:
    """Client's sampling_callback: the user's own reply with --sampling
    (client/sampling: a human in the loop), declined without it."""

    def answer(params: Dict[str, Any]) -> Dict[str, Any]:
        _end_progress()
        reply = _sample_at_terminal(params) if enabled else None
        if not enabled:
            _stderr_line("mcp_ref: declined the server's request for a model's reply (sampling); "
                         "with --sampling you write the reply")
        if reply is not None:
            return reply
        _DECLINED[0] = True
        raise _Declined(INVALID_REQUEST, "Sampling declined by the user")

    return answer


def _show_log(params: Dict[str, Any]) -> None:
    """Client's logging_callback: ``[level logger] text`` on stderr."""
    if isinstance(params.get("level"), str):
        logger = f" {params['logger']}" if isinstance(params.get("logger"), str) else ""
        text = params.get("data") if isinstance(params.get("data"), str) else json.dumps(params.get("data"))
        _stderr_line(f"[{_one_line(str(params.get('level')), 20)}{logger}] {_one_line(str(text), 500)}")


def _show_progress(progress: Any, total: Any, message: Any) -> None:
    """call's progress_callback: ``[progress] 1/2 message``, one updating line on a terminal."""
    if progress is not None:
        note = f" {_one_line(str(message), 200)}" if message is not None else ""
        _progress_line(f"[progress] {progress}{'' if total is None else f'/{total}'}{note}")


_SHOWN: List[str] = [""]  # the task line last shown


def _show_task(task: Dict[str, Any]) -> None:
    """call's task_callback: ``[task] working: its statusMessage`` as it
    changes, on the progress line (a call that became a task, section 16)."""
    message = task.get("statusMessage")
    text = f"[task] {_one_line(str(task.get('status')), 40)}" + (
        f": {_one_line(message, 200)}" if isinstance(message, str) and message else "")
    if text != _SHOWN[0]:
        _SHOWN[0] = text
        _progress_line(text)


def _trace_line(arrow: str, message: Any) -> None:
    """--trace: Client's trace, every message both ways on stderr."""
    _end_progress()
    print(f"{arrow} {json.dumps(message, ensure_ascii=False)}", file=sys.stderr, flush=True)


def _sample_at_terminal(params: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """--sampling: the request's messages shown on stderr, and the model's reply
    read as one line of stdin (typed, or piped in); an empty line or the end of
    input declines.  The reply is the user's, and its ``model`` says so."""
    lines = ["The server asks for a model's reply (sampling):"]
    if isinstance(params.get("systemPrompt"), str):
        lines.append(f"  system: {_one_line(params['systemPrompt'], 500)}")
    messages = params.get("messages")
    for message in messages if isinstance(messages, list) else []:
        message = message if isinstance(message, dict) else {}
        content = message.get("content")
        blocks: List[Any] = content if isinstance(content, list) else [content]
        for block in blocks:
            text = block.get("text") if isinstance(block, dict) and block.get("type") == "text" else None
            shown = text if isinstance(text, str) else json.dumps(block)
            lines.append(f"  {_one_line(str(message.get('role')), 20)}: {_one_line(shown, 500)}")
    print("\n".join(lines), file=sys.stderr)
    try:
        reply = _read_line("Reply (one line; empty declines): ")
    except EOFError:
        return None
    if not reply.strip():
        return None
    return {"role": "assistant", "content": {"type": "text", "text": reply},
            "model": "the user (mcp_ref --sampling)", "stopReason": "endTurn"}


def _read_line(prompt: str) -> str:
    """A line the user types (input(), but with the prompt on stderr: stdout
    holds only the result, and may be a file); EOFError at the end of input."""
    sys.stderr.write(prompt)
    sys.stderr.flush()
    line = sys.stdin.readline() if sys.stdin is not None else ""
    if not sys.stdin or not sys.stdin.isatty():
        sys.stderr.write("\n")  # what a terminal would have echoed
    if not line:
        raise EOFError
    return line.rstrip("\r\n")


_PROGRESS: List[bool] = [False]  # whether a progress line is open on stderr (a terminal)


def _progress_line(text: str) -> None:
    """Progress on stderr: on a terminal one line, rewritten in place (\\r,
    then erase to its end); elsewhere (a file, a pipe) a line each."""
    stderr = sys.stderr
    if not stderr.isatty():
        print(text, file=stderr)
        return
    try:
        width = os.get_terminal_size(stderr.fileno()).columns or 80  # 0: a terminal that does not say
    except (OSError, ValueError):
        width = 80
    stderr.write("\r" + text[:max(width - 1, 10)] + "\x1b[K")
    stderr.flush()
    _PROGRESS[0] = True


def _stderr_line(text: str) -> None:
    """A line on stderr, below any progress line."""
    _end_progress()
    print(text, file=sys.stderr)


def _end_progress() -> None:
    """End the open progress line, if any: what follows starts on a line of its own."""
    if _PROGRESS[0]:
        _PROGRESS[0] = False
        sys.stderr.write("\n")
        sys.stderr.flush()


def main(argv: Optional[List[str]] = None) -> int:
    """The ``mcp-ref`` command."""
    _DECLINED[0], _SHOWN[0] = False, ""  # this run's own
    try:
        return _cli(sys.argv[1:] if argv is None else argv)
    except _Refused:  # our serve child has said why, in one line
        return 2
    except _UsageError as exc:
        print(f"mcp_ref: {exc}", file=sys.stderr)
        return 2
    except _ServerFailed as exc:
        print(f"mcp_ref: {exc}", file=sys.stderr)
        return 3
    except OAuthFlowError as exc:  # --auth: the authorization server's (or its metadata's) failure
        print(f"mcp_ref: authorization failed: {exc}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # "| head" closed our stdout: nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _one_line(text: str, limit: int = 200) -> str:
    """Text from a server (or a user's file) made fit for a one-line message."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", limit * 3 // 4, limit + 1)  # at a word's end where there is one near
    return text[:cut if cut > 0 else limit] + " ..."


# ---------------------------------------------------------------------------
# 33. Command line: the HTTP server
# ---------------------------------------------------------------------------
#
# Fenced: not MCP.  Streamable HTTP is the WSGI app of section 19; any WSGI
# server can serve it (gunicorn, waitress).  This one is for a machine that
# may install nothing.
#
#   entry                 where it is used                    what it serves
#   --------------------  ----------------------------------  ---------------------------------------------
#   _run_http             MCPServer.run (section 14)          run("streamable-http") and serve --http
#   _serve_http           _run_http (section 33)              the WSGI app served until SIGINT or SIGTERM
#   _restore_standard_streams  _StdioServer._drain (section 18)  after run(): fds 0 and 1 the process's own
#   _HttpServer           _serve_http (section 33)            connections, each request's framing and bounds
#   wsgi_app              a WSGI server's command line        gunicorn 'mcp_ref:wsgi_app("server.py")'
#
# The standard library's own server for the WSGI app: threads, keep-alive,
# streamed responses and a clean stop on SIGINT or SIGTERM.  It frames
# requests as RFC 9112 says (anything framed two ways is refused), and bounds
# what one client can hold: connections per address, and the time a request's
# head and body may take to arrive.


def _run_http(server: MCPServer, host: str = "127.0.0.1", port: int = 8000, max_client_connections: int = 64,
              read_timeout: float = 30.0, exit_process: bool = True, **options: Any) -> int:
    """run("streamable-http") and serve --http: ``server``'s app on this server."""
    return _serve_http(server.streamable_http_app(host=host, **options), host, port,  # type: ignore[arg-type]
                       max_client_connections, read_timeout, exit_process)


def _serve_http(app: _HttpApp, host: str, port: int, max_client_connections: int = 64,
                read_timeout: float = 30.0, exit_process: bool = True) -> int:
    """Serve ``app`` on host:port with the standard library until SIGINT or
    SIGTERM (then _stop_http), and exit 0.  An address it cannot serve on (in
    use, not this machine's, no such name) is one line on stderr, and 2."""
    import signal
    import threading

    # The handler only notes the signal: one that took a lock (Event.set does)
    # could interrupt the main thread while it holds that very lock, and wait
    # for it forever.  It is in place before the socket listens: a client may
    # connect, and a signal come, as soon as it does.
    signals: List[int] = []
    names = [name for name in ("SIGTERM", "SIGINT") if hasattr(signal, name)]
    before = {name: signal.signal(getattr(signal, name), lambda signum, frame: signals.append(signum))
              for name in names}
    try:
        httpd = _HttpServer(app, host, port, max_client_connections, read_timeout)
    except OSError as exc:
        for name, handler in before.items():
            signal.signal(getattr(signal, name), handler)
        shown = f"[{host}]" if ":" in host else host
        print(f"mcp_ref: cannot serve on {shown}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    _standard_fds()  # (fd 0 or 1 may be closed)
    standard = None if exit_process else (os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb"))  # for run()
    stderr = _hold_standard_streams()  # as on stdio: a tool's print, or a closed fd 1, reaches no client
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.2}, name="mcp_ref-http",
                              daemon=True)
    thread.start()
    bound = httpd.server_address
    shown = f"[{bound[0]}]" if ":" in str(bound[0]) else bound[0]
    print(f"mcp_ref: serving {app.server.name} on http://{shown}:{bound[1]}{app.path}", file=sys.stderr)
    while not signals:  # the main thread stays free for signals
        time.sleep(0.1)
    if exit_process:  # section 16: the tasks it runs failed at once, not left working (os._exit skips atexit)
        app.server._tasks.stop()
    _stop_http(httpd, app)
    stderr.close(timeout=0.5)
    if exit_process:
        os._exit(0)  # as on stdio: a thread that a tool started must not hold the process
    _restore_standard_streams(*standard)  # type: ignore[misc]
    for name, handler in before.items():  # run() returns: the program's own handlers again
        signal.signal(getattr(signal, name), handler)
    return 0


def _restore_standard_streams(stdin: Any, stdout: Any) -> None:
    """After run(): fds 0 and 1, and sys's streams, the process's own again."""
    os.dup2(stdin.fileno(), 0)
    os.dup2(stdout.fileno(), 1)
    stdin.close()
    stdout.close()
    sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__


def _stop_http(httpd: Any, app: _HttpApp) -> None:
    """SIGTERM or SIGINT (README, "Serving over HTTP"): the listening socket
    closes (a new connection is refused) and a new request on an open one
    gets 503; requests in flight, a call streaming its answer too, get up to
    ``min(drain_timeout, 5)`` seconds to finish; then the open streams end."""
    import threading

    httpd.stopping = True
    stopping = threading.Thread(target=httpd.shutdown, daemon=True)
    stopping.start()
    stopping.join(2.0)
    httpd.server_close()
    deadline = time.monotonic() + min(app.server.drain_timeout, 5.0)
    while httpd.active > httpd.streams and time.monotonic() < deadline:  # (a GET stream never ends by itself)
        time.sleep(0.02)
    app.close()
    deadline = time.monotonic() + 1.0
    while httpd.active and time.monotonic() < deadline:
        time.sleep(0.02)


def _HttpServer(app: _HttpApp, host: str, port: int, max_client_connections: int = 64,  # noqa: N802 - a class
                read_timeout: float = 30.0) -> Any:
    """socketserver's ThreadingTCPServer (a thread per connection) speaking
    HTTP/1.1 to the WSGI app (_HttpConnection), built when first needed so
    that ``import mcp_ref`` loads no socket module.  http.server is not used:
    it brings email, mimetypes and ssl along, a third of an idle server's memory.
    One address holds at most ``max_client_connections`` connections (a
    thread each), and all at most ``max_connections``: past them, 503 with
    Retry-After and no thread."""
    import socket
    import socketserver
    import threading

    class Server(socketserver.ThreadingTCPServer):
        daemon_threads = True  # a stream still open at exit does not hold the process
        allow_reuse_address = True
        request_queue_size = 128
        max_connections = 1024  # threads in all, whatever the addresses (a local client has 2**24)

        def __init__(self) -> None:
            self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
            self.app, self.active, self.streams, self.counting = app, 0, 0, threading.Lock()
            self.stopping, self.read_timeout, self.per_client = False, read_timeout, max_client_connections
            self.clients: Dict[str, int] = {}  # open connections per address
            self.open = 0
            self.reader = _deadline_reader()
            super().__init__((host, port), _HttpConnection)  # type: ignore[arg-type]

        def get_request(self) -> Any:
            sock, address = super().get_request()
            if sock.fileno() <= 2:  # a tool closed fd 0, 1 or 2: a client's socket must not be its stdout
                sock = _above_standard_fds(sock)
            return sock, address

        def process_request(self, request: Any, client_address: Any) -> None:
            if not _admit(self, client_address[0], 1):
                _refuse_connection(request)
                self.shutdown_request(request)
                return
            super().process_request(request, client_address)

        def process_request_thread(self, request: Any, client_address: Any) -> None:
            try:
                super().process_request_thread(request, client_address)
            finally:
                _admit(self, client_address[0], -1)

        def handle_error(self, request: Any, client_address: Any) -> None:
            error = sys.exc_info()[1]
            if isinstance(error, OSError):  # a client that reset or timed out: nothing to tell
                return
            _log_exception(f"serving {client_address[0]} failed", error)  # type: ignore[arg-type]

    return Server()


def _admit(server: Any, peer: str, step: int) -> bool:
    """Count a connection from ``peer`` in (1), if the caps allow it, or out (-1)."""
    with server.counting:
        held = server.clients.get(peer, 0)
        if step > 0 and (held >= server.per_client or server.open >= server.max_connections):
            return False
        server.open += step
        if held + step:
            server.clients[peer] = held + step
        else:
            server.clients.pop(peer, None)
        return True


def _above_standard_fds(sock: Any) -> Any:
    """``sock`` moved to a descriptor above 2, and fds 0-2 taken back
    (_standard_fds): a tool's child process, or os.write(1, ...), then writes
    to stderr, not into a client's connection."""
    import socket

    try:
        import fcntl
    except ImportError:  # (Windows: sockets are no file descriptors)
        return sock
    fd = fcntl.fcntl(sock.fileno(), fcntl.F_DUPFD, 3)
    os.set_inheritable(fd, False)
    moved = socket.socket(sock.family, sock.type, sock.proto, fileno=fd)
    sock.close()
    _standard_fds()
    return moved


def _refuse_connection(sock: Any) -> None:
    """503 on the accepting thread, which must not wait: the answer fits an
    empty send buffer, and what the client has sent already is read, so
    that closing does not reset the connection before the client reads it."""
    text = b"503 Service Unavailable: too many connections from this address\n"
    try:
        sock.sendall(b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain; "
                     b"charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(text), text))
        sock.setblocking(False)
        sock.recv(65536)
    except OSError:
        pass


class _ReadTimeout(OSError):
    """A request's head, or its body, not read within ``read_timeout``."""


def _deadline_reader() -> Any:
    """The raw reader under a connection's rfile: a socket's bytes, with one
    deadline for the whole of a request's head (or body) rather than for each
    read, so that a client trickling a byte at a time (slowloris) cannot hold a
    thread for longer than ``read_timeout``."""
    import io
    import socket

    class DeadlineReader(io.RawIOBase):
        def __init__(self, sock: Any) -> None:
            self.sock, self.timeout = sock, sock.gettimeout()  # the socket's, as last set
            self.window: Optional[float] = None  # read_timeout, while a head or a body is read
            self.deadline: Optional[float] = None  # the window's end, from its first read on

        def start(self, seconds: float) -> None:
            """A head, or a body, to read within ``seconds`` of its first read."""
            self.window, self.deadline = seconds, None

        def stop(self) -> None:
            """Reading done: the socket's own timeout back, for the answer."""
            self.window = None
            self._timeout(_HttpConnection._TIMEOUT)

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            if self.window is None:
                return self.sock.recv_into(buffer)  # type: ignore[no-any-return]
            if self.deadline is None:  # the window opens with its first read
                left = self.window
                self.deadline = time.monotonic() + left
            else:
                left = self.deadline - time.monotonic()
            if left <= 0:
                raise _ReadTimeout("read_timeout")
            self._timeout(min(left, _HttpConnection._TIMEOUT))
            try:
                return self.sock.recv_into(buffer)  # type: ignore[no-any-return]
            except socket.timeout:
                raise _ReadTimeout("read_timeout") from None

        def _timeout(self, seconds: float) -> None:
            # settimeout is a system call, made without the GIL: two a request
            # were a GIL hand-off each between busy connections.  By default
            # (read_timeout as _TIMEOUT) a request read at once makes none.
            if seconds != self.timeout:
                self.sock.settimeout(seconds)
                self.timeout = seconds

    return DeadlineReader


_MAX_LINE = 65536  # bytes of a request line or of one header line
_MAX_HEADERS = 100
_TOKEN = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"  # RFC 9110, 5.6.2
_TOKENS: Dict[str, str] = {}  # field names found to be tokens (_is_token), each with its environ key


class _HttpConnection:
    """One client connection: requests read one after another (keep-alive),
    each run through the WSGI app; a body of unknown length (a stream) goes
    chunked, flushed per event.  A request's head, and then its body, must
    arrive within the server's ``read_timeout`` (the wait for the next
    request on a kept connection included); a client that reads nothing for
    ``_TIMEOUT`` seconds is dropped."""

    _TIMEOUT = 30.0

    def __init__(self, sock: Any, client_address: Any, server: Any) -> None:
        import io
        import socket

        self.sock, self.server, self.app = sock, server, server.app
        self.client = client_address
        sock.settimeout(self._TIMEOUT)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # small answers leave at once
        self.reader = server.reader(sock)
        self.rfile = io.BufferedReader(self.reader)
        self.wfile = sock.makefile("wb")
        try:
            while self.serve_one():
                pass
        finally:
            for stream in (self.wfile, self.rfile):
                try:
                    stream.close()
                except OSError:
                    pass

    def serve_one(self) -> bool:
        """One request and its answer; whether the connection stays open."""
        self.reader.start(self.server.read_timeout)
        try:
            head = _read_head(self.rfile)
        except OSError:  # read_timeout (a stalled head: closed, unanswered), or a reset
            return False
        if head is None:
            return False
        if len(head) == 2:  # (status, reason)
            self.refuse(*head)
            return False
        method, target, version, headers = head
        if self.server.stopping:  # SIGTERM: requests in flight finish, no new one starts
            return self.refuse(503, "Service Unavailable")
        stream = method == "GET"
        with self.server.counting:
            self.server.active += 1
            self.server.streams += stream
        try:
            return self.run(method, target, version, headers)
        except OSError:  # the client went away meanwhile
            return False
        finally:
            with self.server.counting:
                self.server.active -= 1
                self.server.streams -= stream

    def run(self, method: str, target: str, version: str, headers: List[Tuple[str, str]]) -> bool:
        fields = {name.lower(): value for name, value in headers}
        length = _framing(version, headers, fields)
        if isinstance(length, tuple):
            return self.refuse(*length)
        if fields.get("expect", "").lower() == "100-continue" and version == "HTTP/1.1":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            self.wfile.flush()
        body = _Input(self.rfile, length)
        environ = _environ(self, method, target, version, headers, body)
        if environ["CONTENT_LENGTH"]:
            environ["CONTENT_LENGTH"] = str(length)  # ("40, 40": RFC 9110, 8.6)
        keep = version == "HTTP/1.1" and fields.get("connection", "").lower() != "close" or \
            version == "HTTP/1.0" and fields.get("connection", "").lower() == "keep-alive"
        started: List[Any] = []

        def start_response(status: str, response_headers: List[Tuple[str, str]], exc_info: Any = None) -> Any:
            started[:] = [status, response_headers]
            return _no_write

        self.reader.start(self.server.read_timeout)  # the body's own
        try:
            result = self.app(environ, start_response)
        except _ReadTimeout:  # a stalled body (RFC 9110, 15.5.9)
            return self.refuse(408, "Request Timeout")
        self.reader.stop()
        try:
            keep = _write_response(self.send, version, method, started[0], started[1], result, keep)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        return keep and not body.left  # an unread body would be taken for the next request

    def send(self, data: bytes) -> None:
        """``data`` on the wire now: when short, in the socket's one sendall
        (1.6 us a request less than the buffered file and its flush); else
        through the file, whose writes each wait up to ``_TIMEOUT``, so that a
        client that reads a long answer slowly but steadily is not cut."""
        if len(data) <= 65536:
            self.sock.sendall(data)
        else:
            self.wfile.write(data)
            self.wfile.flush()

    def refuse(self, status: int, reason: str) -> bool:
        text = f"{status} {reason}\n".encode()
        retry = "Retry-After: 1\r\n" if status == 503 else ""
        self.wfile.write(f"HTTP/1.1 {_status_line(status)}\r\n{retry}"
                         f"Content-Type: text/plain; charset=utf-8\r\nContent-Length: {len(text)}\r\n"
                         f"Connection: close\r\n\r\n".encode() + text)
        self.wfile.flush()
        return False


def _framing(version: str, headers: List[Tuple[str, str]], fields: Dict[str, str]) -> Any:
    """The request body's length (RFC 9112, 6.3), or the (status, reason)
    that refuses the request.  A refused request closes the connection (6.3
    asks it of every case below), so no byte of a body that a proxy in front
    framed otherwise is ever read as a next request: request smuggling.
    ``fields`` holds the headers by lower-case name."""
    # The common case first, read from ``fields`` (1 us a request less than the
    # rule below, which reaches the same answer for it): no name twice, no
    # Transfer-Encoding, one Host (HTTP/1.1), a Content-Length of digits or none.
    length = fields.get("content-length", "0")
    if len(fields) == len(headers) and "transfer-encoding" not in fields and len(length) < 19 \
            and length.isdigit() and length.isascii() and ("host" in fields or version != "HTTP/1.1"):
        return int(length)
    codings: List[str] = []
    lengths: List[str] = []
    hosts = 0
    for name, value in headers:
        name = name.lower()
        if name == "transfer-encoding":
            codings += [coding.strip(" \t").lower() for coding in value.split(",")]
        elif name == "content-length":
            lengths += [length.strip(" \t") for length in value.split(",")]
        elif name == "host":
            hosts += 1
    if codings:
        # 6.1: with Content-Length, or in HTTP/1.0, Transfer-Encoding is faulty
        # framing; 6.3 (4): a last coding other than chunked leaves the length unknown.
        if lengths or version != "HTTP/1.1" or codings[-1] != "chunked":
            return 400, "Bad Request"
        return 411, "Length Required"  # chunked is valid HTTP; we read only bodies of a known length
    if version == "HTTP/1.1" and hosts != 1:
        return 400, "Bad Request"  # 3.2: exactly one Host
    if not lengths:
        return 0
    # 6.3 (5), RFC 9110 8.6: digits only; a list of one value repeated is that value.
    if len(set(lengths)) > 1 or not (lengths[0].isascii() and lengths[0].isdigit()):
        return 400, "Bad Content-Length"
    return int(lengths[0]) if len(lengths[0]) < 19 else 10 ** 18


def _read_head(rfile: Any) -> Any:
    """(method, target, version, headers) of the next request; None at the end
    of the connection; (status, reason) for a request that cannot be read."""
    line = rfile.readline(_MAX_LINE + 1)
    while line in (b"\r\n", b"\n"):  # empty lines before a request are ignored (RFC 9112, 2.2)
        line = rfile.readline(_MAX_LINE + 1)
    if not line:
        return None
    if len(line) > _MAX_LINE:
        return 414, "URI Too Long"
    parts = line.decode("latin-1").split()
    if len(parts) != 3 or parts[2] not in ("HTTP/1.0", "HTTP/1.1") or not parts[0].isalpha():
        return 400, "Bad Request"
    headers = _buffered_fields(rfile)
    if headers is None:
        headers = _read_fields(rfile)
    if isinstance(headers, tuple):
        return headers
    return parts[0], parts[1], parts[2], headers


def _buffered_fields(rfile: Any) -> Any:
    """The header fields of a head already whole in ``rfile``'s buffer (a
    client writes its head at once), split in one step rather than read a
    line at a time (1-2 us a request less), or (status, reason); None when
    the head is not all there, or has a line that ends in a bare LF, no
    field, or lines too long or too many: _read_fields then reads it, line
    by line, and applies the rule to each line as it comes.  Under those
    conditions both reach the same answer for the same bytes."""
    buffered = rfile.peek()  # what is buffered (a read of the socket only if nothing is)
    end = buffered.find(b"\r\n\r\n")
    if end <= 0 or end + 2 > _MAX_LINE or buffered.count(b"\n", 0, end) != buffered.count(b"\r\n", 0, end):
        return None
    lines = buffered[:end].decode("latin-1").split("\r\n")
    if len(lines) >= _MAX_HEADERS or not lines[0]:  # (an empty first line: a head of no fields)
        return None
    headers: List[Tuple[str, str]] = []
    for line in lines:
        if not _add_field(headers, line):
            return 400, "Bad Request"
    rfile.read(end + 4)
    return headers


def _read_fields(rfile: Any) -> Any:
    """The header fields, a line at a time, or (status, reason)."""
    headers: List[Tuple[str, str]] = []
    while True:
        line = rfile.readline(_MAX_LINE + 1)
        if len(line) > _MAX_LINE or len(headers) >= _MAX_HEADERS:
            return 431, "Request Header Fields Too Large"
        if line in (b"\r\n", b"\n", b""):
            return headers
        if not _add_field(headers, line.decode("latin-1")):
            return 400, "Bad Request"


def _add_field(headers: List[Tuple[str, str]], line: str) -> bool:
    """One header line (with or without its line end) added to ``headers``;
    False if it is refused (400)."""
    name, sep, value = line.partition(":")
    value = value.strip(" \t\r\n")
    # A name is a token (RFC 9110, 5.1): obsolete line folding (RFC 9112,
    # 5.2) and a space before the colon (5.1) are refused; so are CR and
    # NUL inside a value (RFC 9110, 5.5).
    if not sep or "\r" in value or "\0" in value or name not in _TOKENS and not _is_token(name):
        return False
    headers.append((name, value))
    return True


def _is_token(name: str) -> bool:
    """Whether a field name is a token (RFC 9110, 5.6.2).  One found so is
    remembered (_TOKENS), with its key in a WSGI environ: a client sends the
    same few names request after request, and a lookup costs a tenth of the
    test (0.9 us a request) and of making the key (1 us)."""
    if not name or name.strip(_TOKEN):
        return False
    if len(_TOKENS) < 1024 and len(name) <= 64:  # bounded, whatever names clients make up
        _TOKENS[name] = _environ_key(name)
    return True


def _environ_key(name: str) -> str:
    """A header field's key in a WSGI environ (PEP 3333: CGI's names)."""
    key = name.upper().replace("-", "_")
    return key if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else "HTTP_" + key


def _no_write(data: bytes) -> None:
    raise NotImplementedError("mcp_ref's HTTP server supports no write() callable")


def _environ(conn: _HttpConnection, method: str, target: str, version: str, headers: List[Tuple[str, str]],
             body: Any) -> Dict[str, Any]:
    path, _, query = target.partition("?")
    if "%" in path:  # (else unquote gives it back as it is; its import is 0.2 us a request)
        from urllib.parse import unquote

        path = unquote(path, "latin-1")
    host, port = conn.server.server_address[:2]
    environ: Dict[str, Any] = {
        "REQUEST_METHOD": method, "SCRIPT_NAME": "", "PATH_INFO": path,
        "QUERY_STRING": query, "SERVER_NAME": str(host), "SERVER_PORT": str(port), "SERVER_PROTOCOL": version,
        "REMOTE_ADDR": conn.client[0], "CONTENT_TYPE": "", "CONTENT_LENGTH": "",
        "wsgi.version": (1, 0), "wsgi.url_scheme": "http", "wsgi.input": body, "wsgi.errors": sys.stderr,
        "wsgi.multithread": True, "wsgi.multiprocess": False, "wsgi.run_once": False,
        "mcp_ref.gone": functools.partial(_peer_gone, conn.sock),
    }
    for name, value in headers:
        key = _TOKENS.get(name) or _environ_key(name)
        environ[key] = environ[key] + "," + value if environ.get(key) else value
    return environ


class _Input:
    """The request body, never read past its Content-Length."""

    def __init__(self, stream: Any, length: int) -> None:
        self.stream, self.left = stream, max(0, length)

    def read(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        data = self.stream.read(size) if size else b""
        self.left -= len(data)
        return data


def _peer_gone(sock: Any) -> bool:
    """Whether the client has closed its end (readable, and nothing to read)."""
    import select
    import socket

    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


def _write_response(send: Callable[[bytes], None], version: str, method: str, status: str,
                    headers: List[Tuple[str, str]], result: Iterable[bytes], keep: bool) -> bool:
    """The answer on the wire (``send``: _HttpConnection.send); whether the
    connection may stay open.  A body known whole goes with its
    Content-Length, in one write with the headers; a stream goes chunked
    (HTTP/1.1) or until the connection closes (1.0)."""
    names = {name.lower() for name, _ in headers}
    lines = [f"HTTP/1.1 {status}", _date(), f"Server: mcp_ref/{__version__}"] + \
        [f"{name}: {value}" for name, value in headers]
    whole = isinstance(result, list) or "content-length" in names
    chunked = not whole and version == "HTTP/1.1"
    keep = keep and (whole or chunked)
    data = b"".join(result) if whole else b""
    if whole and "content-length" not in names:
        lines.append(f"Content-Length: {len(data)}")
    if chunked:
        lines.append("Transfer-Encoding: chunked")
    if not keep:
        lines.append("Connection: close")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    send(head + (data if method != "HEAD" else b""))
    if whole:
        return keep
    for data in result:  # each event on the wire as soon as it is made
        if data:
            send(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)
    if chunked:
        send(b"0\r\n\r\n")
    return keep


_DATE_LINE = [(0, "")]  # the last second's Date header: one formatting a second, not a request (0.7 us)


def _date() -> str:
    """The Date header (RFC 9110, 6.6.1) of this second."""
    now = int(time.time())
    second, line = _DATE_LINE[0]  # (one tuple, replaced whole: threads read it at once)
    if second != now:
        line = f"Date: {time.strftime('%a, %d %b %Y %H:%M:%S GMT', time.gmtime(now))}"
        _DATE_LINE[0] = now, line
    return line


def wsgi_app(server_file: str, **options: Any) -> Callable[..., Any]:
    """The Streamable HTTP WSGI application of the MCPServer that ``server_file``
    defines, for a WSGI server's command line:
    ``gunicorn 'mcp_ref:wsgi_app("server.py")'``.  ``options`` are
    ``MCPServer.streamable_http_app``'s."""
    return _load_server(server_file).streamable_http_app(**options)


# ---------------------------------------------------------------------------
# 34. Accelerators
# ---------------------------------------------------------------------------
#
# The json package's pattern.  Every rule above is complete and correct on its
# own.  Each accelerator here computes exactly what one rule computes, faster,
# for the shapes that dominate real traffic, and hands anything else to that
# rule.  _use_accelerators() is the one place that picks between them: on by
# default, off with MCP_REF_PURE=1 in the environment.  The test suite runs
# both ways and checks that each accelerator fires where it should.
#
#   accelerator          the rule it replaces             what it speeds up
#   -------------------  -------------------------------  ----------------------------------
#   _fast_pretty         _pretty (section 4)              the content text of every result
#   _FastCompiler        _Compiler (section 6)            objects of generated schemas, lists of them
#   _fast_structured     _structured_result (section 8)   lists of flat objects: text and JSON in one pass
#   _fast_encode_reply   _encode_reply (section 18)       puts that JSON into the response as written
#   _fast_dumps          _dumps_message (section 18)      every message: json's C encoder, made once;
#                                                         a polled Task's JSON text kept (_ShownTask)
#   _rx_accelerated      _compile_pattern (section 28)    patterns proven safe run on Python's re (_RX_ACCELERATE)
#   _fast_call_sync      _call_sync (section 14)          a sync tool's call, without _call's coroutine;
#                                                         a result type seen not to be the SDK's (_NOT_SDK)
#
# Each rule names its twin where it is written ("twin: _fast_x, section 34"),
# and test_mcp_ref checks this table against the file.
#
# Each was measured alone with bench/bench.py; an accelerator that did not pay
# there was removed.

_chain = itertools.chain.from_iterable
_encode_str = json.encoder.encode_basestring  # C-accelerated where json has its C part; no \u escapes
_make_encoder = getattr(json.encoder, "c_make_encoder", None)  # None where json has no C part


def _fast_pretty(value: Any, newline: str = "\n") -> str:
    """_pretty: ``json.dumps(value, indent=2, ensure_ascii=False)``.

    json falls back to its pure-Python encoder whenever ``indent`` is set; this
    recursion writes the same text with json's C string encoder for the leaves
    and the common leaves inline.  Checked against json.dumps by the tests."""
    tp = type(value)
    if tp is str:
        return _encode_str(value)
    if tp is dict:
        if not value:
            return "{}"
        inner = newline + "  "
        items = []
        for k, v in value.items():
            kind = type(v)  # the common leaves inline: one call less per value
            if kind is str:
                text = _encode_str(v)
            elif kind is int:
                text = int.__repr__(v)
            elif kind is float and v - v == 0:  # finite (_is_finite, inline)
                text = float.__repr__(v)
            else:
                text = _fast_pretty(v, inner)
            items.append(_encode_str(k) + ": " + text)
        return "{" + inner + ("," + inner).join(items) + newline + "}"
    if tp is list:
        if not value:
            return "[]"
        inner = newline + "  "
        return "[" + inner + ("," + inner).join([_fast_pretty(v, inner) for v in value]) + newline + "]"
    if value is None:
        return "null"
    if tp is bool:
        return "true" if value else "false"
    if tp is float:
        if not _is_finite(value):
            raise _NotJSON("Input should be a finite number", "finite_number")
        return float.__repr__(value)
    return int.__repr__(value)


# Python types that are, exactly and without conversion, a JSON Schema type
# (bool is not an integer; a float becomes one only through the rule).
_EXACT = {"string": str, "integer": int, "boolean": bool, "number": float}
if TYPE_CHECKING:
    _Shape = Tuple[Tuple[str, ...], Tuple[type, ...], List[str]]  # keys, their types, the float keys


class _FastCompiler(_Compiler):
    """_Compiler, with a faster step for the objects that the schema builder
    makes (declared properties, extra keys dropped) and for lists of them."""

    def __init__(self, root: Any, mode: str, class_kinds: Optional[Dict[str, str]] = None) -> None:
        super().__init__(root, mode, class_kinds)
        self._plain: Dict[_Checker, Optional[_Shape]] = {}  # _object_step's checkers, and their leaf shape
        self._lists: Dict[_Checker, Callable[[List[Any]], Optional[List[Any]]]] = {}  # item checker -> _fast_list

    def _object_step(self, schema: Dict[str, Any], properties: Dict[str, _Checker], required: List[str],
                     defaults: Dict[str, Any], general: _Checker) -> _Checker:
        """_lax_object's check (section 27), in one loop: a leaf whose value is exactly
        its JSON type is taken without a call; anything else is checked by its
        property's checker, as the rule does; keys that need converting go the
        general way from the start."""
        leaves = {}
        for key, sub_schema in (schema.get("properties") or {}).items():
            kind = sub_schema.get("type") if isinstance(sub_schema, dict) else None
            if isinstance(kind, str) and kind in _EXACT and not (set(sub_schema) - _ANNOTATION_KEYS) \
                    and type(sub_schema) is not _TypedSchema:  # (a date's string is parsed: the rule's step)
                leaves[key] = _EXACT[kind]
        count = len(properties)
        rank = {key: i for i, key in enumerate(properties)}

        def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
            if type(value) is not dict:
                return general(value, loc, errors)
            before = len(errors)
            out: Dict[str, Any] = {}
            for key, item in value.items():
                leaf = leaves.get(key)
                if leaf is not None and type(item) is leaf and (leaf is not float or _is_finite(item)):
                    out[key] = item
                    continue
                sub = properties.get(key)
                if sub is not None:
                    out[key] = sub(item, loc + (key,), errors)
                elif type(key) is not str:
                    del errors[before:]
                    return general(value, loc, errors)
            if len(out) != count:  # some property absent: required and defaults as the rule
                for key in required:
                    if key not in value:
                        errors.append(_ErrorItem(loc + (key,), "Field required", "missing", value))
                for key, default in defaults.items():
                    if key not in out:
                        out[key] = default() if type(default) is _Factory else default
            if len(errors) > before + 1:
                _in_field_order(errors, before, len(loc), rank)
            return out

        every_leaf = len(leaves) == count and tuple(leaves) == tuple(properties)
        self._plain[check] = (tuple(leaves), tuple(leaves.values()), [k for k, t in leaves.items() if t is float]) \
            if every_leaf else None
        return check

    def _steps_in_order(self, schema: Dict[str, Any], type_step: Optional[Callable[..., Any]],
                  steps: List[_Checker]) -> _Checker:
        general = super()._steps_in_order(schema, type_step, steps)
        if schema.get("type") != "object" or len(steps) != 1 or steps[0] not in self._plain:
            return general
        # An object schema with only that step: a dict goes straight to it (the
        # type step would only confirm it is a dict), and so do the fields of a
        # dataclass instance (what _native would make of it); anything else, the rule.
        plain, shape = steps[0], self._plain[steps[0]]

        def check(value: Any, loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> Any:
            kind = type(value)
            if kind is dict:
                return plain(value, loc, errors)
            if kind not in _NATIVE and hasattr(value, "__dataclass_fields__") and not isinstance(value, type):
                return plain(_dataclass_dict(value), loc, errors)
            return general(value, loc, errors)

        if shape is not None:
            self._lists[check] = _fast_list(*shape)
        return check

    def _each_item(self, items: _Checker) -> Callable[[List[Any], Tuple[Any, ...], List[_ErrorItem]], List[Any]]:
        each = super()._each_item(items)
        fast = self._lists.get(items)
        if fast is None:
            return each

        def each_fast(value: List[Any], loc: Tuple[Any, ...], errors: List[_ErrorItem]) -> List[Any]:
            copied = fast(value)
            return each(value, loc, errors) if copied is None else copied

        return each_fast


def _fast_list(keys: Tuple[str, ...], shape: Tuple[type, ...],
               floats: List[str]) -> Callable[[List[Any]], Optional[List[Any]]]:
    """The items of a list whose schema is an object of leaf properties: a list
    of dicts, or of instances of one dataclass, each with exactly the declared
    keys in order and values of exactly their types (the usual list result),
    is checked in a few passes over all of its members, not with a call per
    item.  None when any item needs the call, which then says what is wrong."""
    key_list, type_list, width = list(keys), list(shape), len(keys)
    float_positions = [keys.index(key) for key in floats]

    def copy(values: List[Any]) -> Optional[List[Any]]:
        kinds = set(map(type, values))
        if len(kinds) != 1:
            return None
        kind = kinds.pop()
        if kind is dict:
            fields = values
        elif _DATACLASS_NAMES.get(kind) == keys:
            try:
                fields = [value.__dict__ for value in values]  # its fields and nothing else, in order
            except AttributeError:  # a dataclass with __slots__
                return None
        else:
            return None
        # No object repeats a key, so all the keys, object after object, read
        # key_list * n only if every object has exactly those keys, in order.
        n = len(fields)
        if list(_chain(fields)) != key_list * n:
            return None
        members = list(_chain(map(dict.values, fields)))
        if list(map(type, members)) != type_list * n:
            return None
        for position in float_positions:  # each float column: a NaN or infinity makes the sum one
            if not _is_finite(sum(members[position::width])):
                return None  # (also when only the sum overflowed: the rule then decides)
        return list(map(dict, fields))

    return copy


_LEAVES = frozenset((str, int, float, bool, _NoneType))
# json's C encoder writing ",\n  " between items: see _fast_structured.
_ITEMS_ENCODER = None if _make_encoder is None else _make_encoder(
    None, None, _encode_str, None, ": ", ",\n  ", False, False, False)


class _PreEncoded:
    """A checked ``structuredContent`` with its JSON text already written, so
    that the response is not made to encode it a second time (_fast_encode_reply)."""

    __slots__ = ("value", "json")

    def __init__(self, value: Any, json_text: str) -> None:
        self.value = value
        self.json = json_text


def _fast_structured(raw: Any, shown: Any, structured: Any, wrap: bool) -> Dict[str, Any]:
    """_structured_result, for a list of at least two flat objects (each a
    non-empty dict of leaves, one block of text each); any other value: the rule.

    json's C encoder writes the list in one pass: with ",\\n  " between items,
    each object comes out with exactly the line breaks of indent=2, which is
    its text for the model; an encoded string never holds a raw newline, so
    "},\\n  {" occurs only between two objects and ",\\n  " only between two
    members: replaced by ",", they leave the JSON for ``structuredContent``."""
    if not (type(shown) is list and len(shown) > 1 and type(raw) in (list, tuple) and len(raw) == len(shown)
            and _one_json_text(set(map(type, raw))) and set(map(type, shown)) == {dict} and all(shown)
            and _LEAVES.issuperset(map(type, _chain(map(dict.values, shown))))):
        return _RULES["_structured_result"](raw, shown, structured, wrap)  # type: ignore[no-any-return]
    try:
        text = "".join(_ITEMS_ENCODER(shown, 0))  # type: ignore[misc]
    except ValueError:  # NaN or infinity: checked values have none, but never send them
        return _RULES["_structured_result"](raw, shown, structured, wrap)  # type: ignore[no-any-return]
    blocks = [{"type": "text", "text": "{\n  " + body + "\n}"} for body in text[2:-2].split("},\n  {")]
    data = text.replace(",\n  ", ",")
    pre_encoded = _PreEncoded(structured, '{"result":' + data + "}" if wrap else data)
    return {"content": blocks, "structuredContent": pre_encoded, "isError": False}


# Stands in for a written structuredContent while the rest of the message is
# encoded: a string no tool returns (the process's own random suffix), and its
# JSON text is checked to occur exactly once before it is replaced.
_PLACEHOLDER = "\x00mcp_ref:" + os.urandom(8).hex()
_PLACEHOLDER_JSON = _encode_str(_PLACEHOLDER).encode()


def _fast_encode_reply(result: Dict[str, Any], frame: Callable[[Dict[str, Any]], Any]) -> bytes:
    """_encode_reply, with a _PreEncoded structuredContent put in as written."""
    written = result.get("structuredContent")
    if type(written) is not _PreEncoded:
        return _encode(frame(result))
    data = _encode(frame(dict(result, structuredContent=_PLACEHOLDER)))
    if data.count(_PLACEHOLDER_JSON) == 1:
        return data.replace(_PLACEHOLDER_JSON, written.json.encode("utf-8"))
    return _encode(frame(dict(result, structuredContent=written.value)))


# The wire encoder as json's C object, made once rather than per message, and
# without json's circular-reference check (a dictionary entry per container):
# results are checked, and cycles refused, before they are encoded, and a cycle
# that gets here anyway still ends in RecursionError.
_C_ENCODER = None if _make_encoder is None else _make_encoder(
    None, _ENCODER.default, _encode_str, None, ":", ",", False, False, False)


def _fast_dumps(message: Any) -> str:
    """_dumps_message, through json's C encoder made once; a response whose
    result is a polled Task (_ShownTask, section 16) splices the Task's text."""
    result = message.get("result") if type(message) is dict else None
    if type(result) is _ShownTask and tuple(message) == _RESPONSE_KEYS and message["jsonrpc"] == "2.0":
        return _fast_dumps_polled(message["id"], result)
    return "".join(_C_ENCODER(message, 0))  # type: ignore[misc]


_RESPONSE_KEYS = ("jsonrpc", "id", "result")  # a response as _Connection._ok makes it, in its order


def _fast_dumps_polled(id_: Any, task: _ShownTask) -> str:
    """A response whose result is a polled Task: the Task's JSON text, written
    once per revision (the Task is not changed once shown), the frame around it."""
    return '{"jsonrpc":"2.0","id":' + "".join(_C_ENCODER(id_, 0)) + ',"result":' + task.json + "}"  # type: ignore[misc]


# -- patterns on Python's re (the rule: _compile_pattern's automaton, section 28) ---
#
# re backtracks; it is used for a pattern only where its backtracking provably
# stays linear: every choice is decided by the next character (and loop bodies
# cannot match nothing), loops without a fixed count repeat a single character,
# and either every match starts at ^ (one attempt) or all counts are fixed and a
# match is at most _RX_MAX_UNANCHORED characters.  The translation gives re
# ECMA-262's meaning ($ is \Z, \d is [0-9], . excludes every line terminator).


def _rx_nullable(node: _RxNode) -> bool:
    if node.kind == "char":
        return False
    if node.kind == "rep":
        return node.lo == 0 or _rx_nullable(node.kids[0])
    return (any if node.kind == "alt" else all)(_rx_nullable(kid) for kid in node.kids)


def _rx_first(node: _RxNode) -> list[_RxClass]:
    """The classes of the characters that can start a match, one per tree position."""
    if node.kind == "char":
        return [node.cls]
    if node.kind == "rep":
        return _rx_first(node.kids[0]) if node.hi != 0 else []
    out: list[_RxClass] = []
    for kid in node.kids:
        out += _rx_first(kid)
        if node.kind == "cat" and not _rx_nullable(kid):
            break
    return out


def _rx_disjoint(classes: list[_RxClass]) -> bool:
    """No character is in two entries (an entry listed twice overlaps itself)."""
    if len(classes) > 200:
        return False
    spans = sorted((lo, hi, k) for k, cls in enumerate(classes) for lo, hi in cls.points())
    return all(a[1] < b[0] for a, b in zip(spans, spans[1:]))


def _rx_deterministic(node: _RxNode, follow: list[_RxClass]) -> bool:
    """Whether each choice in node (which branch, one more iteration or not) is
    decided by the next character, given the classes that can follow node.  Then a
    backtracking matcher abandons a wrong choice at its first character."""
    kind, kids = node.kind, node.kids
    if kind == "cat":
        for kid in reversed(kids):
            if not _rx_deterministic(kid, follow):
                return False
            follow = _rx_first(kid) + follow if _rx_nullable(kid) else _rx_first(kid)
        return True
    if kind == "alt":
        nullable = [kid for kid in kids if _rx_nullable(kid)]
        firsts = [cls for kid in kids for cls in _rx_first(kid)] + (follow if nullable else [])
        return len(nullable) < 2 and _rx_disjoint(firsts) and all(_rx_deterministic(k, follow) for k in kids)
    if kind != "rep" or node.hi == 0:
        return True
    if node.lo == node.hi == 1:
        return _rx_deterministic(kids[0], follow)
    if _rx_nullable(kids[0]):  # (a*)* or (a?)?: one text, many ways to match it
        return False
    inner = _rx_first(kids[0]) + follow  # after a copy: another copy, or what follows
    return (node.lo == node.hi or _rx_disjoint(inner)) and _rx_deterministic(kids[0], inner)


def _rx_fixed_length(node: _RxNode) -> float:
    """The longest match, or infinity if some quantifier has a choice of counts."""
    if node.kind in ("char", "assert"):
        return 1 if node.kind == "char" else 0
    if node.kind == "rep":
        return node.lo * _rx_fixed_length(node.kids[0]) if node.lo == node.hi else float("inf")
    lengths = [_rx_fixed_length(kid) for kid in node.kids]
    return sum(lengths) if node.kind == "cat" else max(lengths)


def _rx_anchored(node: _RxNode) -> bool:
    """Every match starts with ^: one attempt at position 0 decides."""
    if node.kind == "assert":
        return node.arg == "^"
    if node.kind == "alt":
        return all(_rx_anchored(kid) for kid in node.kids)
    if node.kind == "cat":
        return bool(node.kids) and _rx_anchored(node.kids[0])
    return node.kind == "rep" and node.lo > 0 and _rx_anchored(node.kids[0])


def _rx_plain(node: _RxNode) -> bool:
    """No lookaround, no \\p, and loops without a fixed count repeat one character:
    re can spell it, and its stack does not grow with the text (a loop over a
    group keeps a frame per iteration: 240 MB for 4 MiB of "ab")."""
    if node.kind == "char":
        return not node.cls.cats
    if node.kind == "rep" and node.hi < 0 and node.kids[0].kind != "char":
        return False
    return node.kind != "look" and all(_rx_plain(kid) for kid in node.kids)


def _rx_re_char(cp: int) -> str:
    return chr(cp) if chr(cp).isascii() and chr(cp).isalnum() else "\\U%08x" % cp


# ^ $ match only at the very ends (re's $ also matches before a final newline).
# With re.ASCII, \b and \B use ECMA's word characters; re's \B fails on "" (< 3.14).
_RX_RE_ASSERTS = {"^": r"\A", "$": r"\Z", "b": r"\b", "B": r"(?:\B|\A\Z)"}


def _rx_to_re(node: _RxNode) -> str:
    """The same language in re syntax; classes become explicit code point ranges."""
    if node.kind == "char":  # an empty ECMA class [] matches nothing; re has no []
        ranges = node.cls.points()
        items = (_rx_re_char(lo) + ("" if lo == hi else "-" + _rx_re_char(hi)) for lo, hi in ranges)
        return "[" + "".join(items) + "]" if ranges else "(?!)"
    if node.kind == "cat":
        return "".join(_rx_to_re(kid) for kid in node.kids)
    if node.kind == "alt":
        return "(?:" + "|".join(_rx_to_re(kid) for kid in node.kids) + ")"
    if node.kind == "rep":
        return f"(?:{_rx_to_re(node.kids[0])}){{{node.lo},{'' if node.hi < 0 else node.hi}}}"
    return _RX_RE_ASSERTS[node.arg]


def _rx_accelerated(node: _RxNode) -> Callable[[str], bool] | None:
    """A predicate on Python's re, or None unless re provably runs in linear time:
    _rx_plain, _rx_deterministic, and either _rx_anchored (re.match: one attempt) or of a
    fixed length of at most _RX_MAX_UNANCHORED (re.search retries at every position,
    and each attempt then costs at most that many steps)."""
    if not (_rx_plain(node) and _rx_deterministic(node, [])):
        return None
    anchored = _rx_anchored(node)
    if not anchored and _rx_fixed_length(node) > _RX_MAX_UNANCHORED:
        return None
    import re

    regex = re.compile(_rx_to_re(node), re.ASCII)
    find = regex.match if anchored else regex.search
    return lambda text: find(text) is not None


# -- calls ----------------------------------------------------------------------


def _fast_call_sync(server: MCPServer, tool: _Tool, arguments: Dict[str, Any], request: _Request) -> Any:
    """_call_sync: MCPServer._call (section 14) for a sync tool, line for line
    without the awaits, so without the coroutine, which such a call never needs
    (making, starting and finishing one costs about 3% of a scalar call).  Every
    outcome is the rule's own method; a tool with resolvers takes the rule's
    path (they may wait)."""
    if tool.resolved is not None:
        return _run_without_loop(server._call(tool, arguments, request))
    try:
        value = tool.fn(**server._arguments(tool, arguments, request))  # steps 2 and 3
        if type(value) not in _NOT_SDK:
            value = _fast_sdk_object(value)
        if isinstance(value, InputRequiredResult):
            return server._input_required(tool, request, value)
    except BaseException as exc:
        return server._stopped(tool, request, exc)
    return server._checked_result(tool, value)  # step 4


_NOT_SDK: set[type] = set(_NATIVE)  # result types seen with no class of the SDK's in their MRO


def _fast_sdk_object(value: Any) -> Any:
    """_sdk_object(value, "tool") (section 26), learning the types it can
    only pass as they are: a dataclass returned on every call then costs a
    set lookup.  A type's MRO does not change; at most 1000 are kept."""
    mro = type(value).__mro__
    if len(_NOT_SDK) < 1000 and not any(cls.__module__.split(".")[0] in ("mcp", "mcp_types") for cls in mro):
        _NOT_SDK.add(mro[0])
        return value
    return _sdk_object(value, "tool")


# -- the one place that picks ---------------------------------------------------

_RULES: Dict[str, Any] = {"_pretty": _pretty, "_COMPILER": _Compiler, "_structured_result": _structured_result,
                          "_encode_reply": _encode_reply, "_dumps_message": _dumps_message, "_RX_ACCELERATE": False,
                          "_call_sync": _call_sync}
_ACCELERATORS: Dict[str, Any] = {"_pretty": _fast_pretty, "_COMPILER": _FastCompiler,
                                 "_structured_result": _fast_structured, "_encode_reply": _fast_encode_reply,
                                 "_dumps_message": _fast_dumps, "_RX_ACCELERATE": True,
                                 "_call_sync": _fast_call_sync}


def _use_accelerators(on: bool) -> None:
    """Every rule above its accelerator (on), or its plain reference (off).
    Tools registered earlier keep the checkers they were compiled with."""
    globals().update(_ACCELERATORS if on and _make_encoder is not None else _RULES)


_use_accelerators(os.environ.get("MCP_REF_PURE", "") in ("", "0"))


if __name__ == "__main__":
    # Run as a script, this file is __main__; register it as mcp_ref too, so a
    # server file's own "from mcp_ref import MCPServer" finds the same classes.
    sys.modules.setdefault("mcp_ref", sys.modules[__name__])
    sys.exit(main())

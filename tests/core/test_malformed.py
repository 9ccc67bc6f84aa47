"""Every request, however malformed, gets exactly one answer, over every transport.

A generated test: every method of each era, each of its params (and the
members of its nested objects, the message's own fields, the 2026-07-28
``_meta`` keys) replaced in turn by a value of every JSON type, and removed.
Each request goes over stdio (``_StdioServer.handle_line``, the reader's own
path) and over Streamable HTTP (the WSGI app, with the headers a client
derives from the body), in a handshake session and in 2026-07-28; also as
2025-03-26 batches of one, and on stateless_http and json_response apps.  Each must
get exactly one JSON-RPC answer with its id (null when the id itself is not
one), never -32603 (kept for bugs of ours) and nothing logged as a bug.

The values of each type are drawn from a seeded generator: seeds 0-3 by
default, 0-39 with MCP_REF_FUZZ_LONG=1, one with MCP_REF_MALFORMED_SEED=n.
"""

import contextlib
import io
import json
import os
import random
import unittest
from typing import Any, Dict, Iterator, List, Tuple

from tests._testing import end_threads, mcp_ref


LONG = os.environ.get("MCP_REF_FUZZ_LONG") == "1"

SEED = os.environ.get("MCP_REF_MALFORMED_SEED")

SEEDS = (int(SEED),) if SEED is not None else range(40) if LONG else range(4)

MODERN = "2026-07-28"

SESSION = "2025-11-25"

BATCHES = "2025-03-26"  # the one revision with JSON-RPC batches

PV, CAPS = "io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"

ABSENT: Any = object()  # the param is left out


def fixture() -> Any:
    """One of everything a request can name: tools (with a Context, with an
    x-mcp-header argument), a resource, a template, a prompt, completion."""
    server = mcp_ref.MCPServer("malformed", page_size=2)

    @server.tool()
    def echo(text: str, n: int = 1) -> str:
        return text * n

    @server.tool()
    def asks(ctx: mcp_ref.Context) -> str:
        answer = ctx.session.elicit_form("Name?", {"type": "object", "properties": {"name": {"type": "string"}}})
        return str(answer.result().action)

    @server.tool()
    def regional(region: str, limit: int = 1) -> str:
        return region * min(limit, 3)

    @server.tool()
    def reports(ctx: mcp_ref.Context) -> str:
        ctx.report_progress(1, 2, "half")
        ctx.info("logged")
        return "done"

    schema = server._tools["regional"].input_schema["properties"]
    schema["region"]["x-mcp-header"], schema["limit"]["x-mcp-header"] = "Region", "Limit"

    @server.resource("file:///notes.txt")
    def notes() -> str:
        return "notes"

    @server.resource("notes://{topic}")
    def topic(topic: str) -> str:
        return topic

    @server.prompt()
    def greet(name: str) -> str:
        return f"Hello {name}"

    @server.completion()
    def complete(ref: Any, argument: Any, context: Any) -> Any:
        return None

    return server


# The params of each request that works, per era (the generator breaks them one at a time).
SESSION_REQUESTS: Dict[str, Dict[str, Any]] = {
    "ping": {}, "logging/setLevel": {"level": "info"}, "tools/list": {"cursor": "0"},
    "tools/call": {"name": "echo", "arguments": {"text": "a"}},
    "tools/call regional": {"name": "regional", "arguments": {"region": "eu", "limit": 2}},
    "tools/call reports": {"name": "reports", "arguments": {}, "_meta": {"progressToken": "p"}},
    "resources/list": {"cursor": "0"}, "resources/templates/list": {"cursor": "0"},
    "resources/read": {"uri": "notes://cats"}, "resources/subscribe": {"uri": "file:///notes.txt"},
    "resources/unsubscribe": {"uri": "file:///notes.txt"}, "prompts/list": {"cursor": "0"},
    "prompts/get": {"name": "greet", "arguments": {"name": "x"}},
    "completion/complete": {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "a"},
                            "context": {"arguments": {"name": "a"}}},
    "initialize": {"protocolVersion": SESSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}

MODERN_REQUESTS: Dict[str, Dict[str, Any]] = dict(
    {k: v for k, v in SESSION_REQUESTS.items()
     if k not in ("ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "initialize")},
    **{"server/discover": {}, "subscriptions/listen": {"notifications": {"toolsListChanged": True}},
       "tools/call reports": {"name": "reports", "arguments": {}, "_meta": {
           "progressToken": "p", "io.modelcontextprotocol/logLevel": "debug"}},
       "tools/call": {"name": "asks", "arguments": {}, "inputResponses": {
           "elicitation_0": {"action": "accept", "content": {"name": "x"}}}}})

# Members of nested objects broken too: (param, member).
NESTED = [("arguments", "text"), ("arguments", "name"), ("arguments", "region"), ("arguments", "limit"),
          ("ref", "type"), ("ref", "name"), ("ref", "uri"), ("argument", "name"), ("argument", "value"),
          ("context", "arguments"), ("_meta", "progressToken"),
          ("_meta", PV), ("_meta", CAPS), ("_meta", "io.modelcontextprotocol/logLevel"),
          ("_meta", "io.modelcontextprotocol/clientInfo"), ("notifications", "resourceSubscriptions"),
          ("inputResponses", "elicitation_0"), ("capabilities", "elicitation")]


class Values:
    """A value of each JSON type, drawn from a seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def each_type(self) -> List[Any]:
        r = self.rng
        return [None, r.choice([True, False]), r.choice([0, -1, 7, 2**63, -(10**30), 10**400]),
                r.choice([0.5, -1e300, 1e-7, 2.0]),
                r.choice(["", "x", "0", "\u00e9\u2028", "\ud800", "notes://", "notes://{x}", "file:///notes.txt",
                          "v1..", "ref/prompt", "debug", "a" * 300]),
                r.choice([[], [1], ["a", None], [{}]]),
                r.choice([{}, {"a": 1}, {"type": None}, {"_meta": []}, {"action": 5}])]


def cases(era: str, values: Values) -> Iterator[Tuple[str, Any]]:
    """(what was broken, the message) for every request of the era."""
    requests = MODERN_REQUESTS if era == MODERN else SESSION_REQUESTS
    for method, good in requests.items():
        method = method.split()[0]
        good = dict(good)
        if era == MODERN:
            good["_meta"] = dict(good.get("_meta", {}), **{PV: MODERN, CAPS: {"elicitation": {}}})
        keys = sorted(set(good) | {"_meta", "cursor", "requestState", "inputResponses"})
        for key in keys:
            for value in values.each_type() + [ABSENT]:
                params = dict(good)
                params.pop(key, None) if value is ABSENT else params.__setitem__(key, value)
                yield f"{method} {key}={value!r:.40}", message(method, params)
        for key, member in NESTED:
            if not isinstance(good.get(key), dict):
                continue
            for value in values.each_type() + [ABSENT]:
                inner = dict(good[key])
                inner.pop(member, None) if value is ABSENT else inner.__setitem__(member, value)
                yield f"{method} {key}.{member}={value!r:.40}", message(method, dict(good, **{key: inner}))
        for value in values.each_type() + [ABSENT]:  # the message's own fields
            for field in ("id", "method", "jsonrpc", "params"):
                broken = message(method, good)
                broken.pop(field) if value is ABSENT else broken.__setitem__(field, value)
                yield f"{method} message.{field}={value!r:.40}", broken


def message(method: str, params: Dict[str, Any]) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 0, "method": method, "params": params}


def expected_id(msg: Dict[str, Any]) -> Any:
    """The id the answer must carry: the request's, null when it is no valid
    id; ABSENT when it must have no answer (a notification, whatever it holds)."""
    if "id" not in msg:
        return ABSENT if isinstance(msg.get("method"), str) and msg.get("jsonrpc") == "2.0" else None
    id_ = msg["id"]
    valid = isinstance(id_, str) or isinstance(id_, int) and not isinstance(id_, bool)
    return id_ if valid else None


SERVERS: Dict[str, Any] = {}


def shared(kind: str) -> Any:
    if kind not in SERVERS:
        SERVERS[kind] = fixture()
    return SERVERS[kind]


def initialize(version: str) -> Dict[str, Any]:
    return message("initialize", dict(SESSION_REQUESTS["initialize"], protocolVersion=version))


def flat(frames: List[Any]) -> List[Any]:
    """The messages of some frames, a batch's array opened."""
    return [m for frame in frames for m in (frame if isinstance(frame, list) else [frame])]


class Stdio:
    """A stdio connection, in process: each line as the reader handles it."""

    batch = False  # each message alone in a JSON-RPC batch (2025-03-26)

    def __init__(self, era: str) -> None:
        self.conn = mcp_ref._StdioServer(shared("stdio"))
        self.conn.out = io.BytesIO()
        if era != MODERN:
            self.send(initialize(BATCHES if self.batch else SESSION))

    def send(self, msg: Dict[str, Any]) -> List[Any]:
        start = self.conn.out.tell()
        batched = self.batch and msg.get("method") != "initialize"
        self.conn.handle_line(json.dumps([msg] if batched else msg).encode())
        self.conn.settle_all(10)
        self.conn.draining = False
        return flat([json.loads(line) for line in self.conn.out.getvalue()[start:].splitlines()])

    def close(self) -> None:
        """The connection's threads ended, as its end of input would (thousands of connections run)."""
        end_threads(self.conn)


class StdioBatch(Stdio):
    batch = True


class Http:
    """The Streamable HTTP app, called as a WSGI server calls it; in a session
    (the handshake era) or not (2026-07-28: the standard headers from the body)."""

    apps: Dict[Tuple[str, str], Any] = {}  # one app per kind and era (each has its pool of threads), one session
    options: Dict[str, Any] = {}
    version, batch = SESSION, False

    def __init__(self, era: str) -> None:
        self.era = era
        key = (type(self).__name__, era)
        if key not in self.apps:
            self.app, self.session = shared("http").streamable_http_app(**self.options), None
            if era != MODERN and not self.options.get("stateless_http"):
                self.send(initialize(self.version))
            self.apps[key] = (self.app, self.session)
        self.app, self.session = self.apps[key]

    def send(self, msg: Dict[str, Any]) -> List[Any]:
        headers = {"HTTP_ACCEPT": "application/json, text/event-stream", "CONTENT_TYPE": "application/json",
                   "HTTP_HOST": "127.0.0.1"}
        if self.session is not None:
            headers.update(HTTP_MCP_SESSION_ID=self.session, HTTP_MCP_PROTOCOL_VERSION=self.version)
        elif self.era != MODERN:
            headers.update(HTTP_MCP_PROTOCOL_VERSION=self.version)
        params = msg.get("params")
        if self.era == MODERN and isinstance(params, dict):  # as a client derives them from the body
            meta = params.get("_meta")
            version = meta.get(PV) if isinstance(meta, dict) else None
            name = params.get("uri" if msg.get("method") == "resources/read" else "name")
            arguments = params.get("arguments")
            arguments = arguments if isinstance(arguments, dict) else {}
            for header, value in (("HTTP_MCP_PROTOCOL_VERSION", version), ("HTTP_MCP_METHOD", msg.get("method")),
                                  ("HTTP_MCP_NAME", name), ("HTTP_MCP_PARAM_REGION", arguments.get("region")),
                                  ("HTTP_MCP_PARAM_LIMIT", arguments.get("limit"))):
                if isinstance(value, (str, int, float)) and len(str(value)) < 1000 and str(value).isascii() \
                        and str(value).isprintable():
                    headers[header] = str(value)
        batched = self.batch and self.session is not None
        body = json.dumps([msg] if batched else msg).encode()
        environ = dict(headers, REQUEST_METHOD="POST", PATH_INFO="/mcp", CONTENT_LENGTH=str(len(body)),
                       **{"wsgi.input": io.BytesIO(body)})
        status: List[Any] = []
        body = self.app(environ, lambda s, h: status.append((s, dict(h))))
        (line, response_headers), = status
        if msg.get("method") == "initialize" and "Mcp-Session-Id" in response_headers:
            self.session = response_headers["Mcp-Session-Id"]
        if response_headers.get("Content-Type") == "application/json":
            return flat([json.loads(b"".join(body))])
        if response_headers.get("Content-Type") != "text/event-stream":
            assert line.startswith("202"), (line, body)  # a notification or a response: accepted, unanswered
            return []
        frames = []
        for chunk in body:  # up to the answer: a listen stream stays open after its acknowledgement
            frames += flat([json.loads(part[5:]) for part in chunk.decode().split("\n")
                           if part.startswith("data:") and part[5:].strip()])  # not the priming event
            if frames and answered(frames[-1]):
                break
        body.close()  # type: ignore[attr-defined]
        return frames


class HttpBatch(Http):
    version, batch = BATCHES, True


class HttpStateless(Http):
    options = {"stateless_http": True}


class HttpJson(Http):
    options = {"json_response": True}


def answered(frame: Dict[str, Any]) -> bool:
    """A response, or the acknowledgement that opens a subscriptions/listen
    stream (its response comes when the client cancels it)."""
    return "result" in frame or "error" in frame or frame.get("method") == "notifications/subscriptions/acknowledged"


class MalformedTest(unittest.TestCase):
    maxDiff = None

    def check(self, transport: Any, era: str) -> None:
        for seed in SEEDS:
            problems: List[str] = []
            logged = io.StringIO()
            with contextlib.redirect_stderr(logged):
                for what, msg in cases(era, Values(seed)):
                    if getattr(transport, "batch", False) and what.startswith("initialize"):
                        continue  # "MUST NOT be part of a JSON-RPC batch" (2025-03-26 basic/lifecycle)
                    connection = transport(era)
                    try:
                        answers = [f for f in connection.send(msg) if answered(f)]
                    except Exception as exc:  # a WSGI server closes the connection: no answer
                        problems.append(f"{what}: raised {exc!r}")
                        continue
                    finally:
                        getattr(connection, "close", lambda: None)()  # (an app is shared: kept)
                    want = expected_id(msg)
                    if want is ABSENT:
                        if answers:
                            problems.append(f"{what}: a notification answered: {answers}")
                        continue
                    if len(answers) == 1 and "method" in answers[0]:
                        continue  # a listen stream, open
                    if len(answers) != 1 or answers[0].get("id", ABSENT) != want:
                        problems.append(f"{what}: {len(answers)} answers, want one with id {want!r}: {answers}")
                    elif answers[0].get("error", {}).get("code") == -32603:
                        problems.append(f"{what}: -32603 {answers[0]['error']['message']}")
            if "mcp_ref: internal error" in logged.getvalue() or "answering a call failed" in logged.getvalue():
                problems.append("logged: " + logged.getvalue()[-2000:])
            self.assertEqual(problems[:20], [], f"seed {seed}, {len(problems)} problems")

    def test_stdio_session(self) -> None:
        self.check(Stdio, SESSION)

    def test_stdio_2026(self) -> None:
        self.check(Stdio, MODERN)

    def test_http_session(self) -> None:
        self.check(Http, SESSION)

    def test_http_2026(self) -> None:
        self.check(Http, MODERN)

    def test_batches_of_2025_03_26(self) -> None:
        self.check(StdioBatch, BATCHES)
        self.check(HttpBatch, BATCHES)

    def test_http_options(self) -> None:
        self.check(HttpStateless, SESSION)
        self.check(HttpJson, SESSION)


class ExamplesTest(unittest.TestCase):
    """Whole answers, for the examples the generator found (each closed the
    connection: an exception escaped the WSGI app)."""

    def post(self, era: str, msg: Dict[str, Any]) -> Tuple[str, Any]:
        http = Http(era)
        status: List[str] = []
        environ_body = json.dumps(msg).encode()
        headers = {"HTTP_MCP_SESSION_ID": http.session, "HTTP_MCP_PROTOCOL_VERSION": SESSION} if http.session else {
            "HTTP_MCP_PROTOCOL_VERSION": MODERN, "HTTP_MCP_METHOD": "tools/call"}
        environ = dict(headers, REQUEST_METHOD="POST", PATH_INFO="/mcp", CONTENT_TYPE="application/json",
                       HTTP_HOST="127.0.0.1", HTTP_ACCEPT="application/json, text/event-stream",
                       CONTENT_LENGTH=str(len(environ_body)),
                       **{"wsgi.input": io.BytesIO(environ_body)})
        body = b"".join(http.app(environ, lambda line, headers: status.append(line)))
        return status[0], json.loads(body)

    def test_a_tool_name_of_the_wrong_type(self) -> None:
        for name in (["echo"], {"a": 1}):
            self.assertEqual(self.post(SESSION, message("tools/call", {"name": name})), ("200 OK", {
                "jsonrpc": "2.0", "id": 0,
                "error": {"code": -32602, "message": 'Invalid params: tools/call needs "name" (a string)'}}))

    def test_a_2026_body_without_method(self) -> None:
        msg = {"jsonrpc": "2.0", "id": 7, "params": {"name": "echo", "_meta": {PV: MODERN, CAPS: {}}}}
        self.assertEqual(self.post(MODERN, msg), ("400 Bad Request", {"jsonrpc": "2.0", "id": 7, "error": {
            "code": -32600, "message": 'Invalid Request: "method" must be a string'}}))

    def test_a_bug_of_ours_is_still_one_answer(self) -> None:
        def broken(*args: Any) -> None:
            raise RuntimeError("a bug")

        logged = io.StringIO()
        original = mcp_ref._header_mismatch
        mcp_ref._header_mismatch = broken
        try:
            with contextlib.redirect_stderr(logged):
                answer = self.post(MODERN, message("tools/call", {"name": "echo", "_meta": {PV: MODERN, CAPS: {}}}))
        finally:
            mcp_ref._header_mismatch = original
        self.assertEqual(answer, ("500 Internal Server Error", {
            "jsonrpc": "2.0", "id": 0, "error": {"code": -32603, "message": "Internal error"}}))
        self.assertIn("mcp_ref: internal error", logged.getvalue())
        self.assertIn("RuntimeError: a bug", logged.getvalue())


if __name__ == "__main__":
    unittest.main()

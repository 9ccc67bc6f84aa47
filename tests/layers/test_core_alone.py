"""The core alone answers as the whole file does, except where a layer refines it
(issue 34), and validates a tool's arguments exactly as its published schema says.

Each fixture server (tests/testdata/corpus.py, tests/testdata/resource_corpus.py,
examples/everything.py) runs twice over stdio: on the whole mcp_ref.py and on
the file cut at its line "# ---- layers" (.ci/cut_core.py's ``split``, written to
a temporary folder), both taken from the checkout whatever module is under test.
Both get the same generated requests, in a 2025-11-25 session and as 2026-07-28
stateless requests: the lists, and for every tool arguments generated from its
published inputSchema (instances of it, and perturbations: a JSON type swapped,
null, a required member missing, an extra one, deep inside too), every resource,
templates with generated variables, prompts with generated arguments,
completions, ping.  Every request gets exactly one answer from each, and:

- both succeed: the same result;
- both fail: the same kind of failure (the JSON-RPC error code, or ``isError``);
  the texts may differ (the core's plain words, pydantic's);
- only the whole file succeeds: the SDK layer's lax conversions, so only for
  arguments strict JSON Schema 2020-12 refuses (``validate``), and for a result
  the core refuses as not matching its outputSchema (the SDK layer converts
  results leniently too); never for a resource, a prompt or a completion;
- the core never succeeds on arguments strict validation refuses (server/tools,
  "Security Considerations": servers MUST validate all tool inputs).

Results are compared as JSON values, less what differs between any two
processes (comparable) and the SDK layer's lenient structured results
(as_the_sdk_returns).  What the generated cases found in the core (an int
parameter given 15.0, an unannotated parameter's check, a time's fraction
before CPython 3.11), fixed, each has a request of its own (FOUND).

Seeded: seeds 0-1, 0-9 with MCP_REF_FUZZ_LONG=1, one with MCP_REF_CORE_ALONE_SEED=n;
a failure names the seed, the fixture, the revision and the request.
"""

import base64
import copy
import importlib.util
import json
import os
import queue
import random
import re
import subprocess
import sys
import tempfile
import threading
import unittest
import urllib.parse
from typing import Any, Dict, Iterator, List, Optional, Tuple

from tests._testing import HERE, SOURCE, TESTDATA, mcp_ref


LONG = os.environ.get("MCP_REF_FUZZ_LONG") == "1"
SEED = os.environ.get("MCP_REF_CORE_ALONE_SEED")
SEEDS = (int(SEED),) if SEED is not None else range(10) if LONG else range(2)

SESSION, MODERN = "2025-11-25", "2026-07-28"
REVISIONS = (SESSION, MODERN)
PV, CAPS = "io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"
CAPABILITIES = {"elicitation": {}, "sampling": {}, "roots": {}}

# fixture -> (its file, the name of its MCPServer).
FIXTURES = {
    "corpus": (os.path.join(TESTDATA, "corpus.py"), "server"),
    "resources": (os.path.join(TESTDATA, "resource_corpus.py"), "server"),
    "everything": (os.path.join(HERE, "examples", "everything.py"), "mcp"),
}
# Tools not called: they sleep (up to a generated number of seconds), close an SSE
# stream stdio has not, or run as tasks whose answers come by polling.
NOT_CALLED = {"slow_compute", "failing_job", "protocol_error_job", "test_tool_with_task", "test_reconnection",
              "confirm_delete", "multi_input"}
# Per seed and tool: instances of its inputSchema, and perturbations of them.
INSTANCES, PERTURBED = 2, 3

# Serves a fixture's MCPServer over stdio with mcp_ref taken from a folder (argv: folder, file, name).
_SERVE = ("import runpy, sys; folder, path, name = sys.argv[1:4]; sys.path.insert(0, folder); import mcp_ref; "
          "runpy.run_path(path, run_name='served')[name].run()")

# What the client answers when a server asks it (a 2025-11-25 session): fixed, so both ask alike.
ANSWERS = {
    "elicitation/create": {"action": "accept", "content": {"name": "Ada", "response": "yes", "ok": True}},
    "sampling/createMessage": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m",
                               "stopReason": "endTurn"},
    "roots/list": {"roots": [{"uri": "file:///tmp", "name": "tmp"}]},
    "ping": {},
}


class Served:
    """A fixture served over stdio by one build of mcp_ref: requests written as
    they come, answers gathered by id (every one kept, to count them), and the
    server's own requests answered (ANSWERS)."""

    def __init__(self, folder: str, fixture: str, revision: str) -> None:
        path, name = FIXTURES[fixture]
        # One hash seed for both: a set's order is its strings' hashes' (sets_sorted for the rest).
        env = dict(os.environ, CORPUS_STRINGS="0", PYTHONHASHSEED="0")
        env.pop("CORPUS_SERVER", None)
        self.revision = revision
        self.answers: Dict[Any, List[Dict[str, Any]]] = {}
        self.changed = threading.Condition()
        self.ended = False  # the server's output has ended
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen([sys.executable, "-c", _SERVE, folder, path, name], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.stderr, env=env, cwd=HERE)
        # One thread writes (requests, and answers to the server's requests), one reads:
        # neither waits on the other, whatever the pipes hold.
        self.outbox: "queue.Queue[Optional[bytes]]" = queue.Queue()
        self.writer = threading.Thread(target=self._write, daemon=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.writer.start()
        self.reader.start()
        if revision == SESSION:
            self.send({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
                "protocolVersion": SESSION, "capabilities": CAPABILITIES, "clientInfo": {"name": "t", "version": "1"}}})
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def request(self, id_: Any, method: str, params: Dict[str, Any]) -> None:
        if self.revision == MODERN:
            params = dict(params, _meta=dict(params.get("_meta", {}), **{PV: MODERN, CAPS: CAPABILITIES}))
        self.send({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})

    def send(self, message: Dict[str, Any]) -> None:
        self.outbox.put(json.dumps(message).encode() + b"\n")

    def _write(self) -> None:
        assert self.process.stdin is not None
        while True:
            line = self.outbox.get()
            if line is None:
                self.process.stdin.close()
                return
            try:
                self.process.stdin.write(line)
                self.process.stdin.flush()
            except OSError:  # the server has ended: what it left unanswered, the tests say
                return

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            message = json.loads(line)
            if "method" in message and "id" in message:  # the server asks the client
                method = message["method"]
                answer = {"result": ANSWERS[method]} if method in ANSWERS else \
                    {"error": {"code": -32601, "message": f"Method not found: {method}"}}
                self.send(dict(answer, jsonrpc="2.0", id=message["id"]))
            elif "id" in message:
                with self.changed:
                    self.answers.setdefault(message["id"], []).append(message)
                    self.changed.notify_all()
        with self.changed:  # the end of its output: nothing more will come
            self.ended = True
            self.changed.notify_all()

    def wait(self, ids: List[Any], seconds: float = 120) -> None:
        """Until each of ``ids`` has its answer (or ``seconds`` have passed: the test then says which have none)."""
        with self.changed:
            self.changed.wait_for(lambda: self.ended or all(i in self.answers for i in ids), timeout=seconds)

    def close(self) -> Tuple[Optional[int], str]:
        """End of input: the server ends; its exit status, and what it wrote to stderr."""
        self.outbox.put(None)
        self.writer.join(60)
        self.process.wait(60)
        self.reader.join(60)
        assert self.process.stdout is not None
        self.process.stdout.close()
        self.stderr.seek(0)
        text = self.stderr.read().decode(errors="replace")
        self.stderr.close()
        return self.process.returncode, text


# -- values from a schema ----------------------------------------------------------

WORDS = ["a", "b", "x", "red", "green", "circle", "t", "é✓", "", "17", "2.5", "true", "null", "[1]", '{"x": 1}',
         "2024-05-01", "2024-05-01T10:00:00Z", "10:20:30", "PT1H", "12345678-1234-5678-1234-567812345678",
         "abc", "aa", "/tmp/x", "1.50"]
FORMATS = {
    "date-time": ["2024-05-01T10:00:00", "2024-05-01T10:00:00Z", "2024-05-01T10:00:00+02:00", "nope"],
    "date": ["2024-05-01", "2024-13-01"], "time": ["10:20:30", "10:20:30.5", "25:00:00"],
    "duration": ["PT1H30M", "P1D", "PT0S", "soon"], "uuid": ["12345678-1234-5678-1234-567812345678", "x"],
    "path": ["/tmp/x", ""], "uri": ["https://example.com/a", "x"],
    "binary": ["é✓", "\u00ff", "a\u0000b", ""],  # bytes: the text's UTF-8, where an encoding would show
}


class Instances:
    """JSON values made from a schema, mostly valid ones (an instance of each
    keyword the generated schemas use), and perturbations of them; whether each
    is valid is strict validation's verdict, never the generator's."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def of(self, schema: Any, root: Any, depth: int = 0) -> Any:
        r = self.rng
        if not isinstance(schema, dict) or depth > 6:
            return r.choice([1, "a", None, True, [], {}])
        if "$ref" in schema:
            return self.of(_resolve(schema["$ref"], root), root, depth + 1)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return r.choice(schema["enum"])
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self.of(r.choice(schema[key]), root, depth + 1)
        kinds = schema.get("type", r.choice(["string", "integer", "number", "boolean", "null", "array", "object"]))
        kind = r.choice(kinds) if isinstance(kinds, list) else kinds
        return getattr(self, "_" + kind)(schema, root, depth)

    def _integer(self, schema: Dict[str, Any], root: Any, depth: int) -> Any:
        low = schema.get("minimum", schema.get("exclusiveMinimum", -5) + 1)
        high = schema.get("maximum", schema.get("exclusiveMaximum", low + 20) - 1)
        value = self.rng.randint(int(low), max(int(low), int(high)))
        step = schema.get("multipleOf")
        return value - value % step if isinstance(step, int) else value

    def _number(self, schema: Dict[str, Any], root: Any, depth: int) -> Any:
        if "exclusiveMinimum" in schema or "exclusiveMaximum" in schema or "minimum" in schema:
            low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
            high = schema.get("maximum", schema.get("exclusiveMaximum", low + 10))
            return low + (high - low) * self.rng.choice([0.5, 0.25, 0.0, 1.0])
        return self.rng.choice([1.5, -2.25, 0, 7, 1e10])

    def _string(self, schema: Dict[str, Any], root: Any, depth: int) -> Any:
        pool = FORMATS.get(schema.get("format", ""), WORDS)
        value = self.rng.choice(pool)
        if "minLength" in schema and len(value) < schema["minLength"]:
            value = (value or "a") * schema["minLength"]
        return value[:schema["maxLength"]] if "maxLength" in schema else value

    def _boolean(self, schema: Dict[str, Any], root: Any, depth: int) -> Any:
        return self.rng.choice([True, False])

    def _null(self, schema: Dict[str, Any], root: Any, depth: int) -> Any:
        return None

    def _array(self, schema: Dict[str, Any], root: Any, depth: int) -> Any:
        prefix = schema.get("prefixItems", [])
        low = max(schema.get("minItems", 0), len(prefix) if schema.get("items") is False else 0)
        high = min(schema.get("maxItems", low + 3), low + 3)
        count = max(self.rng.randint(low, high), len(prefix) if schema.get("items") is False else 0)
        items = [self.of(prefix[i] if i < len(prefix) else schema.get("items", {}), root, depth + 1)
                 for i in range(count)]
        if schema.get("uniqueItems"):
            return [json.loads(text) for text in dict.fromkeys(json.dumps(i, sort_keys=True) for i in items)]
        return items

    def _object(self, schema: Dict[str, Any], root: Any, depth: int) -> Any:
        required = set(schema.get("required", []))
        out = {name: self.of(sub, root, depth + 1) for name, sub in schema.get("properties", {}).items()
               if name in required or self.rng.random() < 0.5}
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and not schema.get("properties"):
            for name in self.rng.sample(["a", "b", "1", "é"], self.rng.randint(0, 2)):
                out[name] = self.of(extra, root, depth + 1)
        return out

    def perturbed(self, value: Any, schema: Any, root: Any) -> Tuple[str, Any]:
        """(what changed, the value changed): at the root or at a random place inside."""
        value = copy.deepcopy(value)
        places = list(_places(value, ()))
        path = self.rng.choice(places)
        parent: Any = None
        target = value
        for step in path:
            parent, target = target, target[step]
        changes = self._changes(target)
        how, new = self.rng.choice(changes)
        if how == "missing" or how == "extra":
            if isinstance(target, dict):
                if how == "missing" and target:
                    target.pop(self.rng.choice(sorted(target)))
                else:
                    target["extra"] = 1
            return f"{how} at {_path_text(path)}", value
        if parent is None:
            return f"{how} at $", new
        parent[path[-1]] = new
        return f"{how} at {_path_text(path)}", value

    def _changes(self, value: Any) -> List[Tuple[str, Any]]:
        """The perturbations of one value: its JSON type swapped for a near one, null."""
        out: List[Tuple[str, Any]] = [("null", None)]
        if isinstance(value, bool):
            out += [("bool as int", int(value)), ("bool as text", json.dumps(value))]
        elif isinstance(value, int):
            out += [("int as text", str(value)), ("int as float", float(value)), ("int as bool", value == 1),
                    ("int as fraction", value + 0.5)]
        elif isinstance(value, float):
            out += [("float as text", repr(value)), ("float as int", int(value))]
        elif isinstance(value, str):
            out += [("text as int", 1), ("text as list", [value]), ("text as bool", True)]
        elif isinstance(value, list):
            out += [("list as text", json.dumps(value)), ("list as object", {"0": value[0]} if value else {}),
                    ("list grown", value + [value[0] if value else 1])]
        elif isinstance(value, dict):
            out += [("missing", None), ("extra", None), ("object as text", json.dumps(value)),
                    ("object as list", list(value.values()))]
        return out


def _resolve(ref: str, root: Any) -> Any:
    target = root
    for part in ref.lstrip("#").split("/")[1:]:
        target = target[part.replace("~1", "/").replace("~0", "~")]
    return target


def _places(value: Any, path: Tuple[Any, ...]) -> Iterator[Tuple[Any, ...]]:
    """The path of every value inside ``value``, its own first."""
    yield path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        yield from _places(inner, path + (key,))


def _path_text(path: Tuple[Any, ...]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def strictly_valid(instance: Any, schema: Any) -> bool:
    """Strict JSON Schema 2020-12, as the core's ``validate`` reads it."""
    try:
        mcp_ref.validate(instance, schema)
    except mcp_ref.ValidationError:
        return False
    return True


def arguments_valid(arguments: Any, schema: Any) -> bool:
    """A tools/call's arguments by strict validation.  ``"arguments": null`` is no
    arguments to both builds (and to the SDK, whose params take ``dict | None``),
    so it is checked as ``{}``."""
    return strictly_valid({} if arguments is None else arguments, schema)


# -- the requests ------------------------------------------------------------------


class Case:
    """One request, with what strict validation says of what it carries."""

    def __init__(self, what: str, method: str, params: Dict[str, Any], strict: Optional[bool] = None,
                 output: Optional[Dict[str, Any]] = None) -> None:
        self.what, self.method, self.params = what, method, params
        self.strict = strict  # strict validation's verdict on a tool's arguments (None: no inputSchema)
        self.output = output  # a tool's outputSchema


def cases(seed: int, lists: Dict[str, Any]) -> Iterator[Case]:
    """The requests of one seed, made from what the whole file lists."""
    rng = random.Random(seed)
    make = Instances(rng)
    yield Case("ping", "ping", {})
    for method in ("tools/list", "resources/list", "resources/templates/list", "prompts/list"):
        yield Case(method, method, {})
    # (a fixture without resources or prompts has no such method: -32601, and nothing listed)
    listed = {method: result or {} for method, result in lists.items()}
    for tool in listed["tools/list"].get("tools", []):
        if tool["name"] in NOT_CALLED:
            continue
        schema, output = tool["inputSchema"], tool.get("outputSchema")
        for _ in range(INSTANCES):
            arguments = make.of(schema, schema)
            yield Case(f"{tool['name']} {json.dumps(arguments)[:200]}", "tools/call",
                       {"name": tool["name"], "arguments": arguments}, arguments_valid(arguments, schema), output)
        for _ in range(PERTURBED):
            how, arguments = make.perturbed(make.of(schema, schema), schema, schema)
            yield Case(f"{tool['name']} {how}: {json.dumps(arguments)[:200]}", "tools/call",
                       {"name": tool["name"], "arguments": arguments}, arguments_valid(arguments, schema), output)
    for resource in listed["resources/list"].get("resources", []):
        yield Case(f"read {resource['uri']}", "resources/read", {"uri": resource["uri"]})
    for template in listed["resources/templates/list"].get("resourceTemplates", []):
        for _ in range(3):
            uri = expand(template["uriTemplate"], rng)
            yield Case(f"read {uri} ({template['uriTemplate']})", "resources/read", {"uri": uri})
        name = rng.choice(_variables(template["uriTemplate"]) or ["x"])
        yield Case(f"complete {template['uriTemplate']} {name}", "completion/complete", {
            "ref": {"type": "ref/resource", "uri": template["uriTemplate"]},
            "argument": {"name": name, "value": rng.choice(["", "l", "1", "x"])}})
    yield Case("read an unknown URI", "resources/read", {"uri": f"nothing://{rng.choice(WORDS)}"})
    for prompt in listed["prompts/list"].get("prompts", []):
        declared = prompt.get("arguments", [])
        for _ in range(3):
            arguments = {a["name"]: rng.choice(WORDS) for a in declared if a.get("required") or rng.random() < 0.5}
            if declared and rng.random() < 0.3:
                arguments.pop(rng.choice(declared)["name"], None)
            if rng.random() < 0.2:
                arguments["extra"] = "1"
            yield Case(f"get {prompt['name']} {json.dumps(arguments)}", "prompts/get",
                       {"name": prompt["name"], "arguments": arguments})
        for argument in declared:
            yield Case(f"complete {prompt['name']} {argument['name']}", "completion/complete", {
                "ref": {"type": "ref/prompt", "name": prompt["name"]},
                "argument": {"name": argument["name"], "value": rng.choice(["", "py", "A", "x"])}})


def _variables(template: str) -> List[str]:
    return [name.rstrip("*") for expression in re.findall(r"\{([^}]*)\}", template)
            for name in expression.lstrip("+#./;?&").split(",")]


def expand(template: str, rng: random.Random) -> str:
    """A URI of ``template`` with generated variables (RFC 6570 levels 1-4, the operators the fixtures use)."""
    def one(match: Any) -> str:
        expression = match.group(1)
        operator = expression[0] if expression[0] in "+#./;?&" else ""
        names = expression[len(operator):].split(",")
        values = [rng.choice(["1", "42", "-3", "1.5", "abc", "london", "books", "films", "a b", "", "true",
                              "missing", "resting"]) for _ in names]
        if operator == "?":
            pairs = [(n, v) for n, v in zip(names, values) if rng.random() < 0.6]
            return "?" + urllib.parse.urlencode(pairs) if pairs else ""
        if operator == "/":
            return "".join("/" + urllib.parse.quote(v, safe="") for v in values for _ in range(rng.randint(0, 2)))
        safe = "/:" if operator == "+" else ""
        return ",".join(urllib.parse.quote(v, safe=safe) for v in values)

    return re.sub(r"\{([^}]*)\}", one, template)


# -- the comparison ----------------------------------------------------------------


def outcome(answer: Dict[str, Any]) -> Tuple[Any, ...]:
    """The kind of an answer: ("error", code), ("isError",) or ("result",)."""
    if "error" in answer:
        return ("error", answer["error"].get("code"))
    return ("isError",) if answer["result"].get("isError") is True else ("result",)


def canonical(value: Any) -> Any:
    """A JSON value as JSON's data model reads it: a number by its value (7 and
    7.0 are one number, JSON Schema 2020-12 section 4.2.2; the SDK layer makes a
    float parameter's 7 a Python float, which prints 7.0), never a boolean for
    one; a text block that is JSON (a structured result's text) read as JSON."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return ("number", int(value) if isinstance(value, float) and value.is_integer() else value)
    if isinstance(value, list):
        return [canonical(item) for item in value]
    if isinstance(value, dict):
        if value.get("type") == "text" and isinstance(value.get("text"), str):
            try:
                return dict(canonical(dict(value, text=None)), json=canonical(json.loads(value["text"])))
            except ValueError:
                pass
        return {key: canonical(item) for key, item in value.items()}
    return value


def comparable(result: Dict[str, Any]) -> Any:
    """A result without what differs between any two processes: a sealed
    requestState's signature (each process signs with a key of its own) and
    expiry (the clock's second), an object's address in its repr."""
    result = dict(result)
    state = result.get("requestState")
    if isinstance(state, str) and state.count(".") == 2:
        payload = json.loads(base64.urlsafe_b64decode(state.split(".")[1] + "=="))
        result["requestState"] = dict(payload, x=None)
    return canonical(json.loads(re.sub(r" at 0x[0-9a-f]+>", " at 0x>", json.dumps(result))))


def as_the_sdk_returns(value: Any, schema: Any, root: Any) -> Any:
    """A structured result as the SDK layer makes it (section 29, _LaxCompiler's
    output mode, as pydantic builds the output model): an object's members that
    its schema does not declare dropped, its absent ones with a default filled."""
    if isinstance(schema, dict) and "$ref" in schema:
        schema = _resolve(schema["$ref"], root)
    if not isinstance(schema, dict):
        return value
    for arm in schema.get("anyOf", ()):  # the first arm it matches, as the SDK layer's union takes it
        if strictly_valid(value, dict(arm, **{"$defs": root.get("$defs", {})})):
            return as_the_sdk_returns(value, arm, root)
    declared = schema.get("properties")
    if isinstance(value, dict) and isinstance(declared, dict) and "additionalProperties" not in schema:
        out = {k: as_the_sdk_returns(v, declared[k], root) for k, v in value.items() if k in declared}
        out.update({k: sub["default"] for k, sub in declared.items() if k not in out and "default" in sub})
        return out
    if isinstance(value, list):
        return [as_the_sdk_returns(item, _item_schema(schema, i), root) for i, item in enumerate(value)]
    return value


def _item_schema(schema: Dict[str, Any], i: int) -> Any:
    """The schema of an array's item ``i``: its prefixItems' (a tuple's), else its items'."""
    prefix = schema.get("prefixItems", [])
    return prefix[i] if i < len(prefix) else schema.get("items")


def sets_sorted(value: Any, schema: Any, root: Any) -> Any:
    """A structured result with each array its schema says has unique items
    (a set, returned) sorted: a set has no order, and two processes may iterate
    the same one differently (the order of insertion, even with one hash seed)."""
    if isinstance(schema, dict) and "$ref" in schema:
        schema = _resolve(schema["$ref"], root)
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        declared = schema.get("properties", {})
        return {k: sets_sorted(v, declared.get(k, schema.get("additionalProperties")), root) for k, v in value.items()}
    if isinstance(value, list):
        items = [sets_sorted(v, _item_schema(schema, i), root) for i, v in enumerate(value)]
        return sorted(items, key=json.dumps) if schema.get("uniqueItems") else items
    return value


def remade(result: Dict[str, Any], schema: Dict[str, Any], how: Any) -> Dict[str, Any]:
    """A tool's result with its structured content made again by ``how`` (a
    function of the value, its schema and the root schema), and the text block
    that repeats it (the value, or its "result" member) made alike."""
    structured = result.get("structuredContent")
    if structured is None:
        return result
    made = how(structured, schema, schema)
    blocks = result.get("content", [])
    # What the text blocks repeat: the value, its "result" member, or that list's items, a block each.
    for was, now in ([structured], [made]), ([structured.get("result")], [made.get("result")]), \
            (structured.get("result"), made.get("result")):
        if isinstance(was, list) and len(was) == len(blocks) and all(
                block.get("type") == "text" and _json_or_none(block["text"]) == item
                for block, item in zip(blocks, was)):
            blocks = [dict(block, text=json.dumps(item)) for block, item in zip(blocks, now)]
            break
    return dict(result, structuredContent=made, content=blocks)


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def verdict(case: Case, whole: Dict[str, Any], core: Dict[str, Any]) -> Optional[str]:
    """Why the core's answer is wrong beside the whole file's, or None."""
    kinds = outcome(whole), outcome(core)
    if kinds[1] == ("result",) and case.strict is False:
        return "the core succeeds on arguments strict validation refuses"
    if kinds[0] == kinds[1] and (kinds[0] == ("result",) or kinds[0] == ("isError",) and case.method != "tools/call"):
        if comparable(whole["result"]) == comparable(core["result"]):
            return None
        if case.output is not None:
            whole_made = comparable(remade(whole["result"], case.output, sets_sorted))
            core_made = remade(core["result"], case.output, sets_sorted)
            if whole_made in (comparable(core_made), comparable(remade(core_made, case.output, as_the_sdk_returns))):
                return None  # a set's order; the SDK layer's lenient results (as_the_sdk_returns)
        return "different results"
    if kinds[0] == kinds[1]:
        return None  # the same failure, in the core's words or pydantic's
    if kinds[1] == ("result",):
        return "the core succeeds where the whole file fails"
    if kinds[0] == ("result",) and case.strict is False:
        return None  # the SDK layer's lax conversions of arguments
    title = (case.output or {}).get("title", "Output")
    echoed = case.strict and str(case.params.get("name", "")).startswith("echo_")
    if kinds == (("result",), ("isError",)) and case.output is not None and not echoed and \
            f"validation error for {title}\n" in core["result"]["content"][0].get("text", ""):
        # A result that does not match the tool's outputSchema, refused by the core (server/tools,
        # "Output Schema": structured results MUST conform); the SDK layer converts results leniently.
        # Not an echo (corpus.py's echo_*, which returns its argument) of valid arguments: both
        # builds must send back what they were given, so the core refusing it is a defect.
        return None
    return "the core fails where the whole file does not" + \
        (", on arguments strict validation accepts" if case.strict else "")


def _rate_limited(answer: Dict[str, Any]) -> bool:
    """An answer that the client's rate says (completion/complete: 20 a second,
    40 at once, per client): the clock's, not the request's, so not compared."""
    error = answer.get("error", {})
    return error.get("code") == -32600 and str(error.get("message", "")).startswith("Too many ")


def _cut_core(folder: str) -> None:
    """mcp_ref.py cut at its line "# ---- layers" (.ci/cut_core.py's split), as folder/mcp_ref.py."""
    spec = importlib.util.spec_from_file_location("cut_core", os.path.join(HERE, ".ci", "cut_core.py"))
    cut = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(cut)  # type: ignore[union-attr]
    with open(SOURCE, encoding="utf-8") as f:
        core = cut.split(f.read())[0]
    with open(os.path.join(folder, "mcp_ref.py"), "w", encoding="utf-8") as f:
        f.write(core)


# What the generated cases found in the core, each fixed, held by a request of its own
# (on corpus.py, sent in both revisions with the generated ones) that both builds must
# answer alike (CoreAloneTest._found).
FOUND = {
    # An integer sent as 15.0 (JSON Schema 2020-12 Validation, 6.1.1) is the int 15 to an
    # int parameter (section 7, _build_value): the tool answered "15.0q" on the core alone.
    "test_an_int_parameter_gets_an_int": Case("renamed a_b_c=15.0", "tools/call", {
        "name": "renamed", "arguments": {"a_b_c": 15.0, "x2": "q"}}, True),
    # ``unannotated(x, y=3)`` publishes y as {"title": "y", "type": "string"} (the SDK's
    # WithJsonSchema); the core checks it as published (section 9, _unannotated_check),
    # the SDK layer as the SDK's Any: the whole file takes y=[1], the core refuses it.
    "test_an_unannotated_parameter_is_checked_as_published": Case("unannotated y=[1]", "tools/call", {
        "name": "unannotated", "arguments": {"x": "a", "y": [1]}}, False),
    # RFC 3339's time-secfrac has any number of digits: "10:20:30.5" is read on every
    # CPython (section 7, _strict_value; fromisoformat reads 3 or 6 before 3.11).
    "test_a_time_with_a_short_fraction_is_read": Case("echo_time 10:20:30.5", "tools/call", {
        "name": "echo_time", "arguments": {"value": "10:20:30.5"}}, True),
}


BUILDS = ("whole", "core")
LISTS = ("tools/list", "resources/list", "resources/templates/list", "prompts/list")


class CoreAloneTest(unittest.TestCase):
    """Every fixture, revision and seed: the same requests to both builds, their answers compared."""

    lists: Dict[Tuple[str, str, str], Dict[str, Any]]
    sent: Dict[Tuple[str, str], Dict[Any, Tuple[int, Case]]]
    answers: Dict[Tuple[str, str, str], Dict[Any, List[Dict[str, Any]]]]
    ended: Dict[Tuple[str, str, str], Tuple[Optional[int], str]]

    @classmethod
    def setUpClass(cls) -> None:
        folder = tempfile.TemporaryDirectory()
        cls.addClassCleanup(folder.cleanup)
        _cut_core(folder.name)
        where = {"whole": HERE, "core": folder.name}
        served = {(f, r, b): Served(where[b], f, r) for f in FIXTURES for r in REVISIONS for b in BUILDS}
        cls.lists, cls.sent = {}, {}
        try:
            for server in served.values():
                for method in LISTS:
                    server.request(f"list {method}", method, {})
            for key, server in served.items():
                server.wait([f"list {method}" for method in LISTS])
                cls.lists[key] = {m: server.answers.get(f"list {m}", [{}])[0].get("result") for m in LISTS}
            count = 0
            for fixture in FIXTURES:
                for revision in REVISIONS:
                    sent = cls.sent[fixture, revision] = {}
                    for seed in SEEDS:
                        for case in cases(seed, cls.lists[fixture, revision, "whole"]):
                            count += 1
                            sent[count] = (seed, case)
                            for build in BUILDS:
                                served[fixture, revision, build].request(count, case.method, case.params)
                    for name, case in FOUND.items() if fixture == "corpus" else ():
                        sent[name] = (-1, case)
                        for build in BUILDS:
                            served[fixture, revision, build].request(name, case.method, case.params)
            for (fixture, revision, _), server in served.items():
                server.wait(list(cls.sent[fixture, revision]))
        finally:
            cls.ended = {key: server.close() for key, server in served.items()}
        cls.answers = {key: server.answers for key, server in served.items()}

    def test_both_list_the_same(self) -> None:
        for (fixture, revision, build), lists in self.lists.items():
            if build == "core":
                with self.subTest(fixture=fixture, revision=revision):
                    self.assertEqual(lists, self.lists[fixture, revision, "whole"])

    def test_every_server_ends_as_it_should(self) -> None:
        """At the end of its input each exits 0, having logged only what the
        fixtures' own functions raised ("mcp_ref: tool 'x' raised an exception:"),
        never a fault of its own ("internal error", "answering a call failed"...)."""
        for (fixture, revision, build), (status, stderr) in self.ended.items():
            with self.subTest(fixture=fixture, revision=revision, build=build):
                self.assertEqual(status, 0, stderr[-2000:])
                ours = [line for line in stderr.splitlines()
                        if line.startswith("mcp_ref: ") and not line.endswith(" raised an exception:")]
                self.assertEqual(ours, [], stderr[-2000:])

    def test_every_request_has_one_answer_from_each(self) -> None:
        for (fixture, revision, build), answers in self.answers.items():
            with self.subTest(fixture=fixture, revision=revision, build=build):
                counts = {id_: len(answers.get(id_, [])) for id_ in self.sent[fixture, revision]}
                self.assertEqual({i: n for i, n in counts.items() if n != 1}, {})

    def _compare(self, fixture: str) -> None:
        for revision in REVISIONS:
            whole, core = (self.answers[fixture, revision, build] for build in BUILDS)
            for id_, (seed, case) in self.sent[fixture, revision].items():
                if id_ not in whole or id_ not in core or id_ in FOUND:
                    continue  # (test_every_request_has_one_answer_from_each; FOUND: their own tests)
                if any(_rate_limited(answers[id_][0]) for answers in (whole, core)):
                    continue
                wrong = verdict(case, whole[id_][0], core[id_][0])
                if wrong is not None:
                    with self.subTest(seed=seed, revision=revision, request=case.what):
                        self.fail(f"{wrong} (seed {seed}, {fixture}, {revision}, strictly valid: {case.strict})\n"
                                  f"request: {json.dumps({'method': case.method, 'params': case.params})}\n"
                                  f"whole: {json.dumps(whole[id_][0])}\ncore:  {json.dumps(core[id_][0])}")

    def _found(self, name: str) -> None:
        """The core answers FOUND[name] as the rules say, in both revisions."""
        case = FOUND[name]
        found = {}
        for revision in REVISIONS:
            whole, core = (self.answers["corpus", revision, build][name][0] for build in BUILDS)
            found[revision] = verdict(case, whole, core), core.get("result", core.get("error"))
        self.assertEqual({r: v for r, (v, _) in found.items()}, {r: None for r in REVISIONS}, found)

    def test_an_int_parameter_gets_an_int(self) -> None:
        self._found("test_an_int_parameter_gets_an_int")

    def test_an_unannotated_parameter_is_checked_as_published(self) -> None:
        self._found("test_an_unannotated_parameter_is_checked_as_published")

    def test_a_time_with_a_short_fraction_is_read(self) -> None:
        self._found("test_a_time_with_a_short_fraction_is_read")

    def test_corpus(self) -> None:
        self._compare("corpus")

    def test_resources(self) -> None:
        self._compare("resources")

    def test_everything(self) -> None:
        self._compare("everything")


if __name__ == "__main__":
    unittest.main()

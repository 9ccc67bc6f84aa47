"""Hostile input, faults and load: the server never crashes, hangs or loses a request.

The fuzz test is bounded (fixed seeds, a few hundred messages each); set
MCP_REF_FUZZ_LONG=1 for a longer run (more seeds, more messages).
"""

import json
import os
import random
import re
import subprocess
import threading
import time
import unittest
from collections import Counter
from typing import Any, Dict, List, Optional, Set, Tuple

from tests.core.test_wire import ServerProcess

from tests._testing import TESTDATA, needs_layers
from tests._testing import python_command  # a server's command line, on the module under test


LONG = os.environ.get("MCP_REF_FUZZ_LONG") == "1"

SEEDS = range(20) if LONG else (1, 2, 3)

MESSAGES = 3000 if LONG else 250

LIMIT = 65536  # the fuzzed server's max_message_bytes

DEPTH = 64

FUZZ_ENV = {"WIRE_MAX_MESSAGE_BYTES": str(LIMIT), "WIRE_MAX_DEPTH": str(DEPTH)}

NULL = ("null",)  # an answer with "id": null


# Tools that finish quickly whatever their arguments.
SAFE_TOOLS = ["add", "point", "echo", "optional", "fail", "cyclic", "unserialisable", "wrong_type", "nope"]

VERSIONS = ["2024-11-05", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01", 7, None]

METHODS = ["ping", "initialize", "tools/list", "tools/call", "server/discover", "resources/list", "", "x" * 300]


class Fuzzer:
    """Lines to send, each with the reply it must get: an id, NULL, or None (no reply)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.n = 0

    def value(self, depth: int = 0) -> Any:
        r = self.rng
        kinds = ["int", "float", "str", "bool", "null", "list", "dict", "bigint"]
        kind = r.choice(kinds if depth < 3 else kinds[:5])
        if kind == "int":
            return r.choice([0, -1, 1, 17, 2**31, -2**63, 10**30])
        if kind == "float":
            return r.choice([0.5, -1e300, 1e-300, 17.0, 3.14])
        if kind == "str":
            return r.choice(["", "a", "17", "true", "null", '["a"]', '{"x": 1}', "é✓\u2028", "\x00", "x" * 100])
        if kind == "bool":
            return r.random() < 0.5
        if kind == "null":
            return None
        if kind == "bigint":
            return r.choice([10**40, -(10**25)])
        if kind == "list":
            return [self.value(depth + 1) for _ in range(r.randint(0, 3))]
        keys = ["a", "x", "text", "value", "b", "_meta"]
        return {r.choice(keys): self.value(depth + 1) for _ in range(r.randint(0, 3))}

    def request_id(self) -> Any:
        self.n += 1
        return self.rng.choice([f"r{self.n}", self.n + 1_000_000])

    def meta(self) -> Optional[Dict[str, Any]]:
        r = self.rng.random()
        if r < 0.5:
            return None
        if r < 0.9:
            return {"io.modelcontextprotocol/protocolVersion": self.rng.choice(VERSIONS),
                    "io.modelcontextprotocol/clientCapabilities": self.rng.choice([{}, None, 3])}
        return self.value()  # type: ignore[no-any-return]

    def params(self, method: str) -> Any:
        r = self.rng
        if r.random() < 0.1:
            return self.value()
        params: Dict[str, Any] = {}
        if method == "initialize":
            params = {"protocolVersion": r.choice(VERSIONS), "capabilities": {}, "clientInfo": {"name": "f"}}
        elif method == "tools/call":
            params = {"name": r.choice(SAFE_TOOLS), "arguments": r.choice([{}, self.value(), {
                r.choice(["a", "b", "x", "text", "value", "kind"]): self.value()}])}
            if r.random() < 0.3 and isinstance(params["arguments"], dict):
                params["arguments"]["kind"] = r.choice(["tool", "exit", "crash"])
        meta = self.meta()
        if meta is not None:
            params["_meta"] = meta
        return params

    def message(self) -> Tuple[bytes, Any]:
        r = self.rng
        choice = r.random()
        if choice < 0.45:  # a well-formed request of some method
            id_ = self.request_id()
            method = r.choice(METHODS)
            body = {"jsonrpc": "2.0", "id": id_, "method": method, "params": self.params(method)}
            return self.line(body), id_
        if choice < 0.55:  # a notification, known or not
            method = r.choice(["notifications/initialized", "notifications/cancelled", "x/y", "tools/call"])
            params = {"requestId": f"never-{self.n}"} if method == "notifications/cancelled" else self.value()
            return self.line({"jsonrpc": "2.0", "method": method, "params": params}), None
        if choice < 0.70:  # a field of the wrong type
            id_ = self.request_id()
            body = {"jsonrpc": "2.0", "id": id_, "method": "ping", "params": {}}
            field = r.choice(["jsonrpc", "id", "method", "params"])
            body[field] = r.choice([None, 1, 1.5, True, [], {"a": 1}, "2.0", "x"])
            return self.line(body), self.expected(body)
        return self.broken()

    def broken(self) -> Tuple[bytes, Any]:
        r = self.rng
        kind = r.choice(["garbage", "truncated", "utf8", "nan", "bigint", "deep", "long", "scalar", "batch", "dupe"])
        if kind == "garbage":
            return r.choice([b"{", b"}", b"nul", b"\x00\x01", b'{"a":}', b"[1,]", b"'single'"]) + b"\n", NULL
        if kind == "truncated":
            text = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            return text[: r.randint(1, len(text) - 1)].encode() + b"\n", NULL
        if kind == "utf8":
            return b'{"jsonrpc": "2.0", "id": 1, "method": "\xff\xfe"}\n', NULL
        if kind == "nan":
            return r.choice([b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": NaN}}\n',
                             b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": -Infinity}}\n']), NULL
        if kind == "bigint":
            return b'{"jsonrpc": "2.0", "id": ' + b"9" * 5000 + b', "method": "ping"}\n', NULL
        if kind == "deep":
            depth = r.choice([DEPTH + 1, 5000, 200_000])
            return b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"a": ' + b"[" * depth + b"]" * depth \
                + b"}}\n", NULL
        if kind == "long":
            return b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"a": "' + b"x" * (LIMIT + 10) + \
                b'"}}\n', NULL
        if kind == "scalar":
            return r.choice([b"1\n", b'"x"\n', b"null\n", b"true\n"]), NULL
        if kind == "batch":
            return b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]\n', NULL
        id_ = f"dupe{self.n}"  # the same id twice: both answered
        line = self.line({"jsonrpc": "2.0", "id": id_, "method": "ping"})
        return line + line, [id_, id_]

    @staticmethod
    def line(body: Any) -> bytes:
        return json.dumps(body).encode() + b"\n"

    @staticmethod
    def expected(body: Dict[str, Any]) -> Any:
        id_ = body.get("id")
        valid_id = isinstance(id_, str) or (isinstance(id_, int) and not isinstance(id_, bool))
        if "method" not in body:
            return None
        return id_ if valid_id else NULL


def check_frame(test: unittest.TestCase, frame: Any) -> None:
    """One line of stdout: one valid JSON-RPC response."""
    test.assertIsInstance(frame, dict, frame)
    test.assertEqual(frame.get("jsonrpc"), "2.0", frame)
    test.assertIn("id", frame)
    test.assertTrue(frame["id"] is None or isinstance(frame["id"], (str, int)), frame)
    test.assertEqual(("result" in frame) + ("error" in frame), 1, frame)
    if "error" in frame:
        test.assertIsInstance(frame["error"]["code"], int)
        test.assertIsInstance(frame["error"]["message"], str)
    else:
        test.assertIsInstance(frame["result"], dict)


def reap(process: "subprocess.Popen[bytes]") -> None:
    """A child ended, waited for and its pipes closed: killed alone, it warned
    "subprocess ... is still running" and "unclosed file" (ResourceWarning)."""
    if process.poll() is None:
        process.kill()
    process.wait()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            try:
                stream.close()
            except OSError:  # the flush, into a pipe the child has closed
                pass


class FuzzTest(unittest.TestCase):
    def run_seed(self, seed: int) -> None:
        fuzzer = Fuzzer(seed)
        server = ServerProcess(FUZZ_ENV)
        self.addCleanup(server.kill)
        expected: Counter = Counter()
        if seed % 3:  # some runs never initialize: requests out of lifecycle order
            server.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                         "params": {"protocolVersion": "2025-06-18", "capabilities": {}}})
            expected["init"] += 1
        lines = [fuzzer.message() for _ in range(MESSAGES)]
        writer = threading.Thread(target=lambda: [server.send(line) for line, _ in lines])
        writer.start()
        for _, reply in lines:
            for id_ in reply if isinstance(reply, list) else [reply]:
                if id_ is not None:
                    expected["<null>" if id_ == NULL else id_] += 1
        writer.join(timeout=60)
        server.send({"jsonrpc": "2.0", "id": "final", "method": "ping"})
        expected["final"] += 1
        self.assertEqual(server.close(timeout=60), 0, server.stderr[-2000:])
        got: Counter = Counter()
        for frame in server.remaining():
            check_frame(self, frame)
            got["<null>" if frame["id"] is None else frame["id"]] += 1
        self.assertEqual(got, expected)
        self.assertNotIn("Internal error", server.stderr)

    def test_fuzz(self) -> None:
        for seed in SEEDS:
            with self.subTest(seed=seed):
                self.run_seed(seed)


class LimitsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = ServerProcess(dict(FUZZ_ENV, WIRE_MAX_RESULT_BYTES="10000"))
        self.addCleanup(self.server.kill)
        self.server.initialize()

    def test_long_line_is_answered_and_skipped(self) -> None:
        self.server.send(b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "' + b"x" * (LIMIT * 3) + b'"}\n')
        self.assertEqual(self.server.recv(), {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32600, "message": f"Invalid Request: message longer than {LIMIT} bytes"}})
        self.assertEqual(self.server.request(2, "ping"), {"jsonrpc": "2.0", "id": 2, "result": {}})

    def test_deep_nesting(self) -> None:
        for depth, message in ((DEPTH + 1, f"Invalid Request: nested deeper than {DEPTH} levels"),
                               (30_000, "Parse error: nested too deeply")):
            self.server.send(b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"a": ' + b"[" * depth +
                             b"]" * depth + b"}}\n")
            reply = self.server.recv()
            self.assertIsNone(reply["id"])
            self.assertEqual(reply["error"]["message"], message)

    def test_result_size(self) -> None:
        reply = self.server.request(1, "tools/call", {"name": "enormous", "arguments": {"n": 20000}})
        self.assertTrue(reply["result"]["isError"])
        self.assertRegex(reply["result"]["content"][0]["text"], r"^Error executing tool enormous: the result is "
                                                                r"at least "
                                                                r"\d+ bytes of JSON, over this server's limit "
                                                                r"of 10000$")

    def test_values_json_cannot_carry(self) -> None:
        for raw, message in ((b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": NaN}}\n',
                              "Parse error: not valid JSON"),
                             (b'{"jsonrpc": "2.0", "id": ' + b"1" * 5000 + b', "method": "ping"}\n',
                              "Parse error: not valid JSON"),
                             (b'{"jsonrpc": "2.0", "id": 1, "method": "\xc3\x28"}\n', "Parse error: invalid UTF-8")):
            self.server.send(raw)
            self.assertEqual(self.server.recv(), {"jsonrpc": "2.0", "id": None,
                                                  "error": {"code": -32700, "message": message}})


class ToolFaultTest(unittest.TestCase):
    """Every kind of misbehaving tool gets an isError result; the server goes on."""

    def test_faults(self) -> None:
        server = ServerProcess()
        self.addCleanup(server.kill)
        server.initialize()
        cases = [
            ("fail", {"kind": "tool"}, "Error executing tool fail: asked to fail"),
            ("fail", {"kind": "crash"}, "Error executing tool fail"),
            ("fail", {"kind": "exit"}, "Error executing tool fail"),
        ]
        for i, (name, arguments, text) in enumerate(cases):
            with self.subTest(tool=name, arguments=arguments):
                reply = server.request(i, "tools/call", {"name": name, "arguments": arguments})
                self.assertEqual(reply["result"], {"content": [{"type": "text", "text": text}], "isError": True})
        # A result that cannot be its output: an error result that says why (in
        # the SDK's words with its layer: test_faults_in_the_sdk_words).
        for i, name in enumerate(("cyclic", "unserialisable", "wrong_type"), len(cases)):
            with self.subTest(tool=name):
                reply = server.request(i, "tools/call", {"name": name, "arguments": {}})
                self.assertIs(reply["result"]["isError"], True)
                self.assertTrue(reply["result"]["content"][0]["text"].startswith(f"Error executing tool {name}: "),
                                reply)
        generator = server.request("g", "tools/call", {"name": "generator", "arguments": {"n": 4}})
        self.assertEqual(generator["result"]["structuredContent"], {"result": [0, 1, 4, 9]})
        self.assertEqual(server.close(), 0)
        # Tracebacks go to stderr, never to the model.
        self.assertIn("RuntimeError: an internal detail at /srv/secret.py", server.stderr)

    @needs_layers("sdk")  # pydantic's words (section 24); the core's say the same in its own
    def test_faults_in_the_sdk_words(self) -> None:
        server = ServerProcess()
        self.addCleanup(server.kill)
        server.initialize()
        cases = [
            ("cyclic", "Error executing tool cyclic: 1 validation error for cyclicDictOutput\nme\n"
                       "  Recursion error - cyclic reference detected [type=recursion_loop, "
                       "input_value={'me': {...}}, input_type=dict]"),
            ("unserialisable", "Error executing tool unserialisable: 1 validation error for "
                               "unserialisableDictOutput\n"
                               "x\n  Unable to serialize unknown type: object [type=serialization, "
                               "input_value=<object object at 0x...>, input_type=object]"),
            ("wrong_type", "Error executing tool wrong_type: 1 validation error for wrong_typeOutput\nresult\n"
                           "  Input should be a valid integer, unable to parse string as an integer "
                           "[type=int_parsing, input_value='seventeen', input_type=str]"),
        ]
        for i, (name, text) in enumerate(cases):
            with self.subTest(tool=name):
                reply = server.request(i, "tools/call", {"name": name, "arguments": {}})
                reply["result"]["content"][0]["text"] = re.sub("0x[0-9a-f]+", "0x...",
                                                               reply["result"]["content"][0]["text"])
                self.assertEqual(reply["result"], {"content": [{"type": "text", "text": text}], "isError": True})


# Where a module of tests/core may start ``sys.executable`` itself rather than
# through python_command (which runs a server of ours on the module under test,
# the core alone under MCP_REF_UNDER_TEST): (module, what follows
# sys.executable in the command, as the source spells it) -> why.
DIRECT_INTERPRETER = {
    ("test_context.py", "MCP_REF"): "ContextServer(cli=True): 'mcp_ref.py serve', the command line itself, "
                                    "for tests/layers/test_context.ServeTest only",
    ("test_interop.py", "LAUNCHER"): "the SDK serving the example (the differential's other side)",
    ("test_interop.py", "os.path.join(HERE, 'examples', 'notes.py')"):
        "the TypeScript driver starts the servers with the bare interpreter it is given; "
        "the test needs the sdk layer (needs_layers)",
    ("test_validation.py", "os.path.join(HERE, '..', 'shared', 'jsts', 'run_jsts.py')"):
        "the JSON Schema Test Suite's runner, given the module under test by path (--module)",
}


class ServersOnTheModuleUnderTestTest(unittest.TestCase):
    """Every process of tests/core that runs a script of ours starts through
    python_command, or DIRECT_INTERPRETER says why not: a ``[sys.executable,
    script]`` runs the whole file even when the core alone is under test."""

    def test_no_bare_interpreter(self) -> None:
        import ast

        folder = os.path.dirname(os.path.abspath(__file__))
        found: Set[Tuple[str, str]] = set()
        unexplained: List[str] = []
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".py"):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                tree = ast.parse(f.read(), name)
            for node in ast.walk(tree):
                if isinstance(node, (ast.List, ast.Tuple)):
                    elts = node.elts
                    for i, elt in enumerate(elts):
                        if ast.unparse(elt) == "sys.executable":
                            key = (name, ast.unparse(elts[i + 1]) if i + 1 < len(elts) else "")
                            found.add(key)
                            if key not in DIRECT_INTERPRETER:
                                unexplained.append(f"{name}:{node.lineno}: {ast.unparse(node)[:100]}")
                elif isinstance(node, ast.FormattedValue) and ast.unparse(node.value) == "sys.executable":
                    unexplained.append(f"{name}:{node.lineno}: an f-string with sys.executable")
        self.assertEqual(unexplained, [], "start these through tests._testing.python_command (or add them to "
                                          "DIRECT_INTERPRETER, with the reason)")
        self.assertEqual(sorted(set(DIRECT_INTERPRETER) - found), [], "DIRECT_INTERPRETER's entries no longer used")


class HostilePatternTest(unittest.TestCase):
    def test_ping_is_answered_while_hostile_arguments_are_checked(self) -> None:
        """A benign pattern, a hostile argument: "1" * 12000 + "x" against \\d+$
        makes Python's re backtrack for seconds while holding the GIL; the
        pattern matcher (section 30) is linear, so a ping sent behind ten such
        calls is still answered at once (the bound is generous: a frozen server
        takes seconds)."""
        path = os.path.join(TESTDATA, "pattern_server.py")
        process = subprocess.Popen(python_command(path), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL)
        self.addCleanup(reap, process)
        assert process.stdin is not None and process.stdout is not None
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}
        hostile = "1" * 12000 + "x"
        lines = [json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                             "params": {"name": "digits", "arguments": {"text": hostile}, "_meta": meta}})
                 for i in range(10)]
        process.stdin.write(("\n".join(lines) + "\n").encode())
        started = time.monotonic()
        process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": "ping", "method": "tools/list",
                                        "params": {"_meta": meta}}).encode() + b"\n")
        process.stdin.flush()
        seen = {}
        while len(seen) < 11:
            reply = json.loads(process.stdout.readline())
            seen[reply["id"]] = (reply, time.monotonic() - started)
        self.assertLess(seen["ping"][1], 2.0)
        for i in range(10):
            text = seen[i][0]["result"]["content"][0]["text"]
            self.assertIn("String should match pattern '\\d+$'", text)
        process.stdin.close()
        self.assertEqual(process.wait(timeout=10), 0)


BOUNDS_SERVER = """
import asyncio, os, sys
sys.path.insert(0, %r)
from mcp_ref import MCPServer

server = MCPServer("bounds", drain_timeout=0.5, max_batch=3)


@server.tool()
def noisy(lines: int) -> int:
    for _ in range(lines):
        print("x" * 1000, file=sys.stderr)
    return lines


@server.tool()
async def forever() -> str:
    await asyncio.sleep(3600)
    return "never"


server.run()
"""


class BoundsTest(unittest.TestCase):
    """The bounds docs/wire-and-limits.md's limits table states."""

    def start(self) -> "subprocess.Popen[bytes]":
        import tempfile

        folder = tempfile.mkdtemp()
        path = os.path.join(folder, "bounds_server.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(BOUNDS_SERVER % os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        # stderr is a pipe nobody reads: 2 MB of it would fill the pipe 30 times over.
        process = subprocess.Popen(python_command(path), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        self.addCleanup(reap, process)
        return process

    def exchange(self, process: "subprocess.Popen[bytes]", messages: list, replies: int) -> list:
        """Send the messages; the replies, or a failure after 10 s (a stalled server)."""
        import queue

        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        process.stdin.flush()
        lines: "queue.Queue[bytes]" = queue.Queue()
        stdout = process.stdout
        threading.Thread(target=lambda: [lines.put(stdout.readline()) for _ in range(replies)], daemon=True).start()
        try:
            return [json.loads(lines.get(timeout=10)) for _ in range(replies)]
        except queue.Empty:
            self.fail("the server stalled")

    def test_unread_stderr_never_stalls_serving(self) -> None:
        process = self.start()
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "noisy",
                                                                             "arguments": {"lines": 2000}}}
        replies = self.exchange(process, [init, call, {"jsonrpc": "2.0", "id": 2, "method": "ping"}], 3)
        self.assertEqual({r["id"] for r in replies}, {0, 1, 2})
        self.assertEqual([r["result"]["structuredContent"] for r in replies if r["id"] == 1], [{"result": 2000}])
        process.stdin.close()  # type: ignore[union-attr]
        self.assertEqual(process.wait(timeout=10), 0)

    def test_stderr_writer_starts_with_the_first_write(self) -> None:
        # Serving starts without the writer's thread and queue (most servers never
        # write to stderr); the first write makes them, and its text arrives.
        import mcp_ref

        read_end, write_end = os.pipe()
        self.addCleanup(os.close, read_end)
        self.addCleanup(os.close, write_end)
        writer = mcp_ref._Stderr(write_end)
        names = lambda: [t.name for t in threading.enumerate() if t.name == "mcp_ref-stderr"]  # noqa: E731
        before = len(names())
        self.assertIsNone(writer.queue)
        self.assertEqual(writer.write("first line\n"), 11)
        self.assertEqual(writer.write("second line\n"), 12)
        writer.close(timeout=5)
        self.assertEqual(os.read(read_end, 100), b"first line\nsecond line\n")
        self.assertEqual(len(names()), before + 1)

    def test_end_of_input_answers_a_call_that_never_ends(self) -> None:
        process = self.start()
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}
        self.exchange(process, [init], 1)
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                        "params": {"name": "forever"}}).encode() + b"\n")
        process.stdin.close()
        reply = json.loads(process.stdout.readline())
        self.assertEqual(reply, {"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32603, "message": "Internal error: the call did not finish within 0.5 s of the end of input"}})
        self.assertEqual(process.wait(timeout=10), 0)

    def test_batches_are_bounded(self) -> None:
        process = self.start()
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-03-26", "capabilities": {}}}
        self.exchange(process, [init], 1)
        batch = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(4)]
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(batch).encode() + b"\n" + json.dumps(batch[:3]).encode() + b"\n")
        process.stdin.flush()
        self.assertEqual(json.loads(process.stdout.readline()), {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32600, "message": "Invalid Request: a batch of 4 messages, over this server's limit of 3"}})
        self.assertEqual(sorted(r["id"] for r in json.loads(process.stdout.readline())), [0, 1, 2])


STOP_SERVER = """
import sys
sys.path.insert(0, %r)
from mcp_ref import MCPServer

server = MCPServer("stop")


@server.tool()
def big(size: int) -> str:
    return "x" * size


server.run()
"""


@unittest.skipUnless(os.name == "posix", "signals to a child process")
class StopTest(unittest.TestCase):
    """basic/transports, stdio: the server "MUST NOT write anything to its stdout
    that is not a valid MCP message", and messages are delimited by newlines.
    SIGTERM while a long response is blocked in write() (a client that reads it
    slowly) lets that line finish; only a client that stops reading has it cut,
    after a bound (_StdioServer._exit_now)."""

    def start(self, size: int) -> "subprocess.Popen[bytes]":
        import signal
        import tempfile

        folder = tempfile.mkdtemp()
        path = os.path.join(folder, "stop_server.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(STOP_SERVER % os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        process = subprocess.Popen(python_command(path), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        self.addCleanup(process.kill)
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        for pipe in (process.stdin, process.stdout, process.stderr):
            self.addCleanup(pipe.close)
        process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "big", "arguments": {"size": size},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}}).encode() + b"\n")
        process.stdin.flush()
        self.head = os.read(process.stdout.fileno(), 16384)  # the response has begun: write() blocks
        time.sleep(0.2)
        process.send_signal(signal.SIGTERM)
        self.signalled = time.monotonic()
        return process

    def test_sigterm_finishes_the_line_a_slow_client_is_reading(self) -> None:
        # 1 MB of text twice (content and structuredContent), 16 KiB every 20 ms:
        # about 2.6 s to read, past the second a client that reads nothing is given.
        process = self.start(1_000_000)
        assert process.stdout is not None
        data = self.head
        while True:
            time.sleep(0.02)
            piece = os.read(process.stdout.fileno(), 16384)
            if not piece:
                break
            data += piece
        self.assertTrue(data.endswith(b"\n"), f"the line was cut at {len(data)} bytes")
        self.assertEqual(process.wait(timeout=10), 0)
        self.assertGreater(time.monotonic() - self.signalled, 1.5)  # (it was read slowly indeed)
        reply = json.loads(data)
        self.assertEqual(len(reply["result"]["content"][0]["text"]), 1_000_000)

    def test_a_client_that_stops_reading_has_the_line_cut_after_a_bound(self) -> None:
        process = self.start(1_000_000)
        assert process.stdout is not None and process.stderr is not None
        self.assertEqual(process.wait(timeout=10), 0)  # without a byte more read
        self.assertLess(time.monotonic() - self.signalled, 3.0)
        rest = process.stdout.read()
        self.assertFalse((self.head + rest).endswith(b"\n"))
        self.assertRegex(process.stderr.read().decode(), r"mcp_ref: stopped in the middle of a message, "
                                                         r"\d+ bytes short: the client was not reading it\n")


class LoadTest(unittest.TestCase):
    def test_ten_thousand_pipelined_requests(self) -> None:
        server = ServerProcess()
        self.addCleanup(server.kill)
        server.initialize()
        n = 10_000

        def write() -> None:
            for i in range(n):
                if i % 2:
                    server.send({"jsonrpc": "2.0", "id": i, "method": "ping"})
                else:
                    server.send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                 "params": {"name": "add", "arguments": {"a": i}}})

        writer = threading.Thread(target=write)
        started = time.monotonic()
        writer.start()
        seen = set()
        for _ in range(n):
            frame = server.recv(timeout=60)
            if "result" in frame and "structuredContent" in frame["result"]:
                self.assertEqual(frame["result"]["structuredContent"], {"result": frame["id"] + 1})
            seen.add(frame["id"])
        writer.join()
        self.assertEqual(seen, set(range(n)))
        with open(f"/proc/{server.process.pid}/status") as f:
            peak_kib = next(int(line.split()[1]) for line in f if line.startswith("VmHWM"))
        self.assertLess(peak_kib, 150_000, "peak RSS of the server")  # bounded: no queue grows per request
        self.assertEqual(server.close(), 0)
        self.assertLess(time.monotonic() - started, 60)


if __name__ == "__main__":
    unittest.main()

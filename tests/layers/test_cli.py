"""The command line: its client against servers that misbehave on purpose.

Each fake server is a few lines of Python written to a temporary folder; the
client runs as a subprocess, ``python mcp_ref.py list "python3 fake.py"``, as a
user would run it.  Every test asserts the exit code, stdout, and a stderr of
one line without a traceback: 0 done, 1 isError, 2 bad usage, 3 the server
failed.
"""

import concurrent.futures
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from tests._testing import HERE  # the repository's root


CLI = os.path.join(HERE, "mcp_ref.py")

QUICKSTART = os.path.join(HERE, "examples", "quickstart.py")

EVERYTHING = os.path.join(HERE, "examples", "everything.py")

# Deterministic: strict UTF-8 on the pipes, whatever the machine's locale.
ENV = dict(os.environ, PYTHONIOENCODING="utf-8")

# The command line as `python mcp_ref.py` runs it (the file as __main__, argv[0]
# its path, its folder first on sys.path), but from the cached bytecode: a
# script is compiled afresh on every run, 0.2 s of CPU, and this module runs it
# 150 times.  CommandTest runs the file itself.
COMMAND = [sys.executable, "-S", "-c", f"import runpy, sys; sys.path[0] = {HERE!r}; "
           "runpy.run_module('mcp_ref', run_name='__main__', alter_sys=True)"]
# How COMMAND's usage lines name the command (_prog): 3.10+ reads sys.orig_argv,
# which shows -c, so the script's name; 3.9 has none and reads __main__'s spec,
# which run_module made as -m does.
PROG = "python mcp_ref.py" if sys.version_info >= (3, 10) else "python -m mcp_ref"


# A fake server's frame: it marks that it started, then answers line by line.
# A method's handler is one line of Python with ``request`` in scope.
PRELUDE = '''\
import json, os, signal, sys, time

open(__file__ + ".started", "w").close()


def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()


def raw(text):
    sys.stdout.write(text)
    sys.stdout.flush()


def answer(request, result):
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def nested(depth):
    schema = {}
    for _ in range(depth):
        schema = {"type": "array", "items": schema}
    return schema


TOOL = {"name": "echo", "inputSchema": {"type": "object"}}

for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request or "method" not in request:
        continue
    method = request["method"]
'''


ECHO = {
    "tools/list": "answer(request, {'tools': [TOOL]})",
    "tools/call": "answer(request, {'content': [{'type': 'text', "
                  "'text': json.dumps(request['params']['arguments'], sort_keys=True)}]})",
}


# Any other method: an empty result; server/discover's names the revision
# (Client checks that the server offers the one it asked for).
DEFAULT = "answer(request, {'supportedVersions': ['2026-07-28']} if method == 'server/discover' else {})"


class Run(NamedTuple):
    code: int
    stdout: str
    stderr: str
    seconds: float


def run_cli(args: Sequence[str], timeout: float = 90.0, stdin: Optional[str] = None, script: bool = False) -> Run:
    start, command = time.monotonic(), [sys.executable, "-S", CLI] if script else COMMAND
    try:
        done = subprocess.run([*command, *args], capture_output=True, text=True, timeout=timeout,
                              env=ENV, **({"stdin": subprocess.DEVNULL} if stdin is None else {"input": stdin}))
    except subprocess.TimeoutExpired:
        raise AssertionError(f"mcp_ref {' '.join(args)[:200]} still running after {timeout} s") from None
    return Run(done.returncode, done.stdout, done.stderr, time.monotonic() - start)


def run_all(cases: Sequence[Sequence[str]]) -> List[Run]:
    """Each command line's run, a few at a time (the module keeps under 15 s)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(run_cli, cases))


class CliTestCase(unittest.TestCase):
    def setUp(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="mcp_ref_cli_")
        self.addCleanup(shutil.rmtree, self.folder, True)
        self.count = 0

    def write(self, name: str, text: str) -> str:
        path = os.path.join(self.folder, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def fake(self, handlers: Optional[Dict[str, str]] = None) -> str:
        """A fake server's command line.  ``handlers`` maps a method to its line
        of Python ("*": every other method; by default an empty result)."""
        methods = dict(ECHO, **(handlers or {}))
        other = methods.pop("*", DEFAULT)
        body = "".join(f"    {'elif' if n else 'if'} method == {m!r}:\n        {code}\n"
                       for n, (m, code) in enumerate(methods.items()))
        self.count += 1
        path = self.write(f"fake{self.count}.py", f"{PRELUDE}{body}    else:\n        {other}\n")
        return f"{shlex.quote(sys.executable)} -I -S {shlex.quote(path)}"

    def started(self, command: str) -> bool:
        return os.path.exists(shlex.split(command)[-1] + ".started")

    def assertFailed(self, run: Run, code: int, *fragments: str) -> None:
        """Exit ``code``, nothing on stdout, one line on stderr naming ``fragments``."""
        self.assertEqual(run.code, code, run)
        self.assertNotIn("Traceback", run.stderr)
        self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
        self.assertTrue(run.stderr.startswith("mcp_ref: "), run.stderr)
        for fragment in fragments:
            self.assertIn(fragment, run.stderr)
        self.assertEqual(run.stdout, "")


class UsageTest(CliTestCase):
    """The user's mistakes: exit 2, found before the server starts."""

    def test_json_that_is_not_json_is_refused(self) -> None:
        server = self.fake()
        deep = '{"a": ' + "[" * 30_000 + "]" * 30_000 + "}"  # deeper than json reads
        cases = {'{"a": NaN}': "not valid JSON", '{"a": [-Infinity]}': "not valid JSON",
                 '{"a": 1e400}': "beyond a double", deep: "nested too deeply", "[1]": "a JSON object"}
        runs = run_all([["call", server, "echo", "--json", text, "--timeout", "60"] for text in cases])
        for (text, fragment), run in zip(cases.items(), runs):
            with self.subTest(json=text[:30]):
                self.assertFailed(run, 2, "--json", fragment)
                self.assertLess(run.seconds, 30)  # not --timeout 60
        self.assertFalse(self.started(server))

    def test_key_value_is_json_when_it_parses_else_text(self) -> None:
        # NaN and Infinity are no JSON: text, as "London" is.
        run = run_cli(["call", self.fake(), "echo", "n=3", "s=London", "x=NaN", "y=Infinity", "z=-Infinity",
                       "t=[\"a\"]", "e=", "f=1e-5"])
        expected = {"e": "", "f": 1e-05, "n": 3, "s": "London", "t": ["a"], "x": "NaN", "y": "Infinity",
                    "z": "-Infinity"}
        self.assertEqual(run.stdout, f"content:\n  {json.dumps(expected, sort_keys=True)}\nisError: false\n", run)
        self.assertEqual((run.code, run.stderr), (0, ""))

    def test_key_value_beyond_a_double_is_refused(self) -> None:
        # 1e400 is JSON's syntax but Python's inf: it would go out as Infinity.
        # (Typed by the tool's schema, which the server gives: it has started.)
        server = self.fake()
        pairs = ["x=1e400", 'x={"y": [1, -2E308]}']
        for pair, run in zip(pairs, run_all([["call", server, "echo", pair] for pair in pairs])):
            with self.subTest(pair=pair):
                self.assertFailed(run, 2, "x=", "beyond a double")

    def test_timeout_is_a_positive_finite_number(self) -> None:
        server = self.fake()
        values = ["inf", "nan", "-1", "0", "abc"]
        for value, run in zip(values, run_all([["list", server, "--timeout", v] for v in values])):
            with self.subTest(timeout=value):
                self.assertFailed(run, 2, "--timeout needs a positive number of seconds")
        self.assertFalse(self.started(server))
        # Longer than a lock can wait: still a wait, not an OverflowError.
        run = run_cli(["list", server, "--timeout", "1e300"])
        self.assertEqual((run.code, run.stderr), (0, ""), run)
        self.assertEqual(run.stdout, "echo(...)\n", run)

    def test_other_mistakes(self) -> None:
        server = self.fake()
        cases = [
            (["list", server, "--protocol", "2099-01-01"], "unknown protocol version"),
            (["list", server, "extra"], "list takes one SERVER"),
            (["list", "python3 'unclosed"], "cannot read the server command"),
            (["list", " "], "the server command is empty"),
            (["call", server], "call needs a tool name"),
            (["serve", QUICKSTART, "extra"], "serve takes one SERVER"),
            (["list", server, "--header", "X-Key: a"], "--header goes with an http(s):// SERVER"),
            (["list", server, "--auth"], "--auth goes with an http(s):// SERVER"),
            (["list", "http://127.0.0.1:9/mcp", "--header", "X-Key"], "--header needs NAME:VALUE"),
            (["list", "http://127.0.0.1:9/mcp", "--header"], "--header needs NAME:VALUE"),
        ]
        for (args, fragment), run in zip(cases, run_all([args for args, _ in cases])):
            with self.subTest(args=args):
                self.assertFailed(run, 2, fragment)
        self.assertFalse(self.started(server))


    def test_headers_go_to_the_client(self) -> None:
        import mcp_ref

        argv = ["list", "http://127.0.0.1:9/mcp", "--header", "X-Key: a b", "--header", "Y:1", "--auth"]
        words, options = mcp_ref._read_argv(argv)  # type: ignore[misc]
        self.assertEqual((options["headers"], options["auth"]), ({"X-Key": "a b", "Y": "1"}, True))

    def test_an_authorization_that_fails_is_one_line_and_exit_3(self) -> None:
        import http.server
        import threading

        class Challenge(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Bearer resource_metadata="ftp://127.0.0.1/metadata"')
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Challenge)
        httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]  # a client's reset is the test's
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        self.addCleanup(httpd.server_close)
        self.addCleanup(httpd.shutdown)
        run = run_cli(["list", f"http://127.0.0.1:{httpd.server_address[1]}/mcp", "--auth"])
        self.assertFailed(run, 3, "authorization failed:")
        self.assertNotIn("Traceback", run.stderr)

    def test_serve_http_where_it_cannot(self) -> None:
        """docs/command-line.md: a failure is one line on stderr and exit 2."""
        import socket

        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen(1)
            port = taken.getsockname()[1]
            cases = [
                (f"127.0.0.1:{port}", f"cannot serve on 127.0.0.1:{port}: "),  # in use
                ("192.0.2.1:8000", "cannot serve on 192.0.2.1:8000: "),  # not this machine's (TEST-NET-1)
                ("no-such-host.invalid:8000", "cannot serve on no-such-host.invalid:8000: "),  # RFC 6761
            ]
            runs = run_all([["serve", QUICKSTART, "--http", where] for where, _ in cases])
        for (where, fragment), run in zip(cases, runs):
            with self.subTest(where=where):
                self.assertFailed(run, 2, fragment)


class SameMistakeSameCodeTest(CliTestCase):
    """A mistake in SERVER gives one exit code, whichever subcommand meets it."""

    def test_table(self) -> None:
        missing = os.path.join(self.folder, "missing.py")
        raises = self.write("raises.py", "import mcp_ref\n1 / 0\n")
        no_server = self.write("no_server.py", "import mcp_ref\nx = 1\n")
        no_start = os.path.join(self.folder, "no-such-program") + " --stdio"
        exits = f"{shlex.quote(sys.executable)} -I -S -c 'import sys; sys.exit(4)'"
        table = [  # SERVER, the exit codes of list, call and serve, what stderr names (serve's if other)
            (missing, (2, 2, 2), "no such file", None),
            (raises, (2, 2, 2), "ZeroDivisionError: division by zero (line 2)", None),
            (no_server, (2, 2, 2), "defines no mcp_ref.MCPServer", None),
            (no_start, (2, 2, 2), "cannot start the server", "no such file"),
            (exits, (3, 3, 2), "exit code 4", "no such file"),  # it started, then failed
        ]
        cases = [(argv, code, serve_names if argv[0] == "serve" and serve_names else names)
                 for server, codes, names, serve_names in table
                 for argv, code in zip((["list", server], ["call", server, "echo"], ["serve", server]), codes)]
        for (argv, code, names), run in zip(cases, run_all([argv for argv, _, _ in cases])):
            with self.subTest(argv=argv):
                self.assertFailed(run, code, names)


class ServerFailureTest(CliTestCase):
    """The server's failures: exit 3, at once rather than after --timeout."""

    def assertFast(self, run: Run, *fragments: str) -> None:
        self.assertFailed(run, 3, *fragments)
        self.assertLess(run.seconds, 30, "waited for --timeout 60")  # (a loaded machine is slow, not 60 s slow)

    def test_error_without_id_fails_fast(self) -> None:
        # What a server says about a line it could not parse: no answer will come.
        error = "send({'jsonrpc': '2.0', 'id': None, 'error': {'code': -32700, 'message': 'Parse\\nerror'}})"
        run = run_cli(["list", self.fake({"*": error}), "--timeout", "60"])
        self.assertFast(run, "while server/discover waited: Parse error (JSON-RPC error -32700)")

    def test_a_handshake_server_asked_for_2026_07_28_is_told(self) -> None:
        # --protocol 2026-07-28 gives no fallback: a server of the handshake era refuses
        # server/discover; before, the bare -32601 said nothing of --protocol.
        legacy = self.fake({"server/discover": "send({'jsonrpc': '2.0', 'id': request['id'], 'error': "
                                               "{'code': -32601, 'message': 'Method not found'}})",
                            "initialize": "answer(request, {'protocolVersion': '2025-11-25', 'capabilities': {}, "
                                          "'serverInfo': {'name': 'f', 'version': '1'}})"})
        runs = run_all([["list", legacy, "--protocol", "2026-07-28"], ["list", legacy]])
        self.assertFast(runs[0], "server/discover failed: Method not found (JSON-RPC error -32601); the server may "
                                 "speak only the initialize handshake (2025-11-25 and before): leave out --protocol "
                                 "to fall back to it")
        self.assertEqual(runs[1][:3], (0, "echo(...)\n", ""))

    def test_repeated_cursor_fails(self) -> None:
        same = self.fake({"tools/list": "answer(request, {'tools': [TOOL], 'nextCursor': 'same'})"})
        cycle = self.fake({"tools/list": "answer(request, {'tools': [], "
                                         "'nextCursor': 'b' if request['params'].get('cursor') == 'a' else 'a'})"})
        cases = [["list", same], ["call", same, "echo"], ["list", cycle]]
        for args, run in zip(cases, run_all(cases)):
            with self.subTest(args=args):
                self.assertFailed(run, 3, "again (it would list forever)")

    def test_malformed_results(self) -> None:
        listed = "tools/list"
        cases = [
            ("list", listed, "[]", "the server's result for tools/list is not an object"),
            ("list", listed, "{'tools': {}}", "tools is not a list"),
            ("call", listed, "{'tools': 'echo'}", "tools is not a list"),
            ("list", listed, "{'tools': [1]}", "tool 0 is not an object"),
            ("list", listed, "{'tools': [TOOL, {'inputSchema': {}}]}", "tool 1 has no name"),
            ("call", listed, "{'tools': [{'name': 5}]}", "tool 0 has no name"),
            ("list", listed, "{'tools': [TOOL], 'nextCursor': [1]}", "nextCursor [1] is not a string"),
            ("list", listed, "{'tools': [dict(TOOL, description=5)]}", "the description of tool 'echo'"),
            ("list", listed, "{'tools': [dict(TOOL, inputSchema=[1])]}", "the inputSchema of tool 'echo'"),
            ("call", "tools/call", "'text'", "the server's result for tools/call is not an object"),
            ("call", "tools/call", "{'content': 'hi'}", "content is not a list"),
            ("call", "tools/call", "{'content': [{'type': 'text', 'text': 'a'}, 'hi']}", "content block 1 is not"),
            ("call", "tools/call", "{'content': [{'type': 'text', 'text': None}]}", "text block 0 has no text"),
            ("call", "tools/call", "{'content': [], 'isError': 'false'}", "isError is not a boolean"),
        ]
        argvs = [[command, self.fake({method: f"answer(request, {result})"})] + (["echo"] if command == "call" else [])
                 for command, method, result, _ in cases]
        for (command, _, result, fragment), run in zip(cases, run_all(argvs)):
            with self.subTest(command=command, result=result):
                self.assertFailed(run, 3, fragment)

    def test_protocol_violations_fail_fast(self) -> None:
        # Each answers the first request (id 1, server/discover) so, or the
        # handshake's initialize (id 2) once discover's error sends it there.
        cases = [
            ("raw('[1, 2]\\n')", "JSON that is not an object"),
            ("raw('hello\\n')", "a line that is not JSON"),
            ("raw('{\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {\"x\": NaN}}\\n')", "a line that is not JSON"),
            ("raw(b'\\xff\\n'.decode('latin-1'))", "a line that is not JSON"),
            ("send({'jsonrpc': '2.0', 'id': request['id'], 'error': 'boom'})", "an error that is not an object"),
            ("send({'jsonrpc': '2.0', 'id': request['id'], 'error': {'code': 'x', 'message': {}}})",
             "initialize failed: no message (JSON-RPC error without a code)"),
            ("send({'jsonrpc': '2.0', 'id': request['id'], 'result': {}, 'error': {}})", "has both result and error"),
            ("send({'jsonrpc': '2.0', 'id': request['id']})", "has neither result and error"),
            ("send({'jsonrpc': '2.0', 'id': str(request['id']), 'result': {}})", 'answered id "1" while'),
            ("send({'jsonrpc': '2.0', 'id': True, 'result': {}})", "answered id true while server/discover (id 1)"),
        ]
        runs = run_all([["list", self.fake({"*": handler}), "--timeout", "60"] for handler, _ in cases])
        for (handler, fragment), run in zip(cases, runs):
            with self.subTest(handler=handler):
                self.assertFast(run, fragment)

    def test_server_exits(self) -> None:
        cases = [
            ("sys.exit(4)", "exited before answering server/discover (exit code 4)"),
            ("raw('{\"jsonrpc\": \"2.0\", \"id\": 1, \"res'); sys.exit(0)",
             "exited in the middle of its answer to server/discover (exit code 0)"),
            ("os.kill(os.getpid(), signal.SIGKILL)", "killed by signal 9"),
            ("os.close(1); time.sleep(30)", "closed the pipe before answering server/discover but did not"),
        ]
        if os.name != "posix":
            cases = cases[:2]
        runs = run_all([["list", self.fake({"*": handler}), "--timeout", "60"] for handler, _ in cases])
        for (handler, fragment), run in zip(cases, runs):
            with self.subTest(handler=handler):
                self.assertFast(run, fragment)

    def test_unprintable_text_is_escaped(self) -> None:
        # A lone surrogate is valid JSON (\\ud800) but cannot be written as UTF-8.
        run = run_cli(["list", self.fake({"tools/list": "answer(request, {'tools': [dict(TOOL, "
                                                        "description='bad \\ud800')]})"})])
        self.assertEqual((run.code, run.stderr), (0, ""), run)
        self.assertIn("  bad \\ud800\n", run.stdout)

    def test_deeply_nested_schema(self) -> None:
        # One line shows a few levels; the schema itself is shown whole.
        run = run_cli(["list", self.fake({"tools/list": "answer(request, {'tools': [dict(TOOL, inputSchema="
                                                        "{'type': 'object', 'properties': {'p': nested(900)}})]})"}),
                       "--schemas"])
        self.assertEqual((run.code, run.stderr), (0, ""), run.stderr)
        self.assertEqual(run.stdout.splitlines()[1], "  input:  p?: " + "array of " * 9 + "...")
        # Deeper than Python recurses: json reads it or not, depending on the
        # version, and either way the answer is no traceback.
        deep = '{"type": "array", "items": ' * 1200 + "{}" + "}" * 1200
        tools = f'[{{"name": "t", "inputSchema": {{"type": "object", "properties": {{"p": {deep}}}}}}}]'
        line = f'{{"jsonrpc": "2.0", "id": ID, "result": {{"tools": {tools}}}}}\n'
        run = run_cli(["list", self.fake({"tools/list": f"raw({line!r}.replace('ID', str(request['id'])))"}),
                       "--schemas"])
        if run.code == 0:
            self.assertEqual(run.stderr, "")
            self.assertEqual(run.stdout.splitlines()[1], "  input:  p?: " + "array of " * 9 + "...")
        else:
            self.assertFailed(run, 3, "nested too deeply")


class ServerRequestTest(CliTestCase):
    def test_the_servers_requests_are_answered(self) -> None:
        # The server waits for our answers before it answers tools/list (in the handshake
        # era: in 2026-07-28 a client MUST NOT write responses, test_client.ClientMustTest).
        ask = ("send({'jsonrpc': '2.0', 'id': 'p', 'method': 'ping'}); "
               "assert json.loads(sys.stdin.readline()) == {'jsonrpc': '2.0', 'id': 'p', 'result': {}}; "
               "send({'jsonrpc': '2.0', 'id': 9, 'method': 'roots/list'}); "
               "assert json.loads(sys.stdin.readline())['error']['code'] == -32601; "
               "send({'jsonrpc': '2.0', 'method': 'notifications/message', 'params': {}}); "
               "answer(request, {'tools': [TOOL]})")
        legacy = {"server/discover": "send({'jsonrpc': '2.0', 'id': request['id'], 'error': {'code': -32601, "
                                     "'message': 'Method not found'}})",
                  "initialize": "answer(request, {'protocolVersion': '2025-11-25', 'capabilities': {}, "
                                "'serverInfo': {'name': 'f', 'version': '1'}})"}
        run = run_cli(["list", self.fake(dict(legacy, **{"tools/list": ask})), "--timeout", "10"])
        self.assertEqual((run.code, run.stderr), (0, ""), run)
        self.assertEqual(run.stdout, "echo(...)\n", run)


class ContextTest(CliTestCase):
    """What a tool sends besides its result: shown on stderr; a question the
    client cannot put to a person (no terminal here) is declined, and says so."""

    def test_progress_and_logs_are_shown(self) -> None:
        demo = os.path.join(HERE, "examples", "context_demo.py")
        for protocol in ("2026-07-28", "2025-11-25"):
            run = run_cli(["call", demo, "count", "to=2", "--protocol", protocol])
            self.assertEqual(run.code, 0, run)
            self.assertEqual(run.stderr, "[info] counting to 2\n[progress] 1/2 at 1\n[progress] 2/2 at 2\n", run)

    def test_no_terminal_elicitation_declined(self) -> None:
        # Issue 25: declared, and declined with a line that says why, in both
        # eras; before, -32021 (or -32600) and exit 3.
        demo = os.path.join(HERE, "examples", "context_demo.py")
        for protocol in ("2026-07-28", "2025-11-25"):
            run = run_cli(["call", demo, "schedule", "--protocol", protocol])
            self.assertEqual((run.code, run.stderr), (0, "mcp_ref: declined the server's question (no terminal to "
                                                          "answer it at): When shall we meet?\n"), run)
            self.assertTrue(run.stdout.startswith("content:\n  no meeting (decline)\n"), run)


class CloseTest(CliTestCase):
    @unittest.skipUnless(os.name == "posix", "SIGTERM can be ignored on POSIX only")
    def test_hung_server_is_terminated_then_killed(self) -> None:
        # It ignores both EOF on stdin and SIGTERM: the client waits a grace
        # period after each, then kills it, rather than 10 s.
        pid_file = os.path.join(self.folder, "pid")
        hang = (f"open({pid_file!r}, 'w').write(str(os.getpid())); "
                "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(30)")
        run = run_cli(["call", self.fake({"tools/call": hang}), "echo", "--timeout", "0.5"])
        self.assertFailed(run, 3, "did not answer tools/call within 0.5 s")
        self.assertLess(run.seconds, 20)  # two grace periods, not 30 s of sleep
        with open(pid_file) as f:
            pid = int(f.read())
        with self.assertRaises(ProcessLookupError):
            os.kill(pid, 0)


NOTES = os.path.join(HERE, "examples", "notes.py")


class ResourcesAndPromptsTest(CliTestCase):
    """resources, read, prompts and prompt: the example served by mcp_ref, and fakes."""

    def test_the_example(self) -> None:
        runs = run_all([["resources", NOTES], ["read", NOTES, "notes://shopping"], ["prompts", NOTES],
                        ["prompt", NOTES, "summarize", "title=ideas", "style=detailed"],
                        ["read", NOTES, "notes://index", "--protocol", "2024-11-05"]])
        expected = [
            "resources:\n  notes://index  index (All notes)  application/json\n"
            "    The title of every note, with its length.\n"
            "templates:\n  notes://{title}  note  text/plain\n    One note, by its title.\n",
            "notes://shopping (text/plain)\n  Milk, eggs, bread.\n  And coffee.\n",
            "prompts:\n  summarize (Summarise a note)\n    Ask for a summary of one note.\n"
            "    arguments: title (required): The note's title; style\n",
            "description: Ask for a summary of one note.\nuser:\n  Summarise my note 'ideas' (detailed):\n"
            "  A server in one file.\n",
            'notes://index (application/json)\n  {\n    "shopping": 30,\n    "ideas": 21,\n    "todo": 17\n  }\n',
        ]
        for run, text in zip(runs, expected):
            with self.subTest(args=text[:30]):
                self.assertEqual((run.code, run.stderr, run.stdout), (0, "", text))

    def test_what_the_server_refuses_is_bad_usage(self) -> None:
        cases = [
            (["read", NOTES, "notes://nothing"], "resources/read: No note titled 'nothing' (JSON-RPC error -32602)"),
            (["read", NOTES, "nothing://here", "--protocol", "2025-11-25"],
             "resources/read: Unknown resource: nothing://here (JSON-RPC error -32002)"),
            (["prompt", NOTES, "summarize"],
             "prompts/get: Missing required arguments for prompt summarize: title (JSON-RPC error -32602)"),
            (["prompt", NOTES, "summarize", "title=x", "style=long"], "Input should be 'short' or 'detailed'"),
            (["prompt", NOTES, "nope"], "no prompt named 'nope'; this server has: summarize"),
            (["read", QUICKSTART, "x://a"], "resources/read: Method not found: resources/read (JSON-RPC error -32601)"),
            (["read", NOTES], f"usage: {PROG} read SERVER URI"),
            (["read", NOTES, "a", "b"], f"usage: {PROG} read SERVER URI"),
            (["prompt", NOTES], f"usage: {PROG} prompt SERVER NAME [key=value ...]"),
            (["resources", NOTES, "extra"], "resources takes one SERVER"),
            (["prompt", NOTES, "summarize", "title"], "expected key=value, got 'title'"),
        ]
        for (args, fragment), run in zip(cases, run_all([args for args, _ in cases])):
            with self.subTest(args=args):
                self.assertFailed(run, 2, fragment)

    def test_a_server_without_them_lists_none(self) -> None:
        runs = run_all([["resources", QUICKSTART], ["prompts", QUICKSTART]])
        self.assertEqual([(r.code, r.stderr, r.stdout) for r in runs], [
            (0, "", "resources: (none)\ntemplates: (none)\n"), (0, "", "prompts: (none)\n")])

    def test_prompt_arguments_are_text(self) -> None:
        echo = self.fake({
            "prompts/list": "answer(request, {'prompts': [{'name': 'p'}]})",
            "prompts/get": "answer(request, {'messages': [{'role': 'user', 'content': {'type': 'text', "
                           "'text': json.dumps(request['params']['arguments'], sort_keys=True)}}]})"})
        run = run_cli(["prompt", echo, "p", "n=3", "s=London", "e=", "--json", '{"l": [1], "t": "x"}'])
        self.assertEqual((run.code, run.stderr), (0, ""), run)
        self.assertEqual(run.stdout, 'user:\n  {"e": "", "l": "[1]", "n": "3", "s": "London", "t": "x"}\n')

    def test_malformed_results(self) -> None:
        listed = "{'prompts': [{'name': 'p'}]}"
        cases = [
            ("read", {"resources/read": "answer(request, {'contents': 'x'})"}, "contents is not a list of objects"),
            ("read", {"resources/read": "answer(request, {'contents': [{'uri': 'x://a'}]})"},
             "the contents of x://a have no text or blob"),
            ("read", {"resources/read": "send({'jsonrpc': '2.0', 'id': request['id'], "
                                        "'error': {'code': -32603, 'message': 'broken'}})"},
             "resources/read failed: broken (JSON-RPC error -32603)"),
            ("resources", {"resources/list": "answer(request, {'resources': [1]})"},
             "resources/list: resources is not a list of objects"),
            ("prompt", {"prompts/list": f"answer(request, {listed})",
                        "prompts/get": "answer(request, {'messages': {}})"}, "messages is not a list of objects"),
        ]
        argvs = [[command, self.fake(handlers)] + (["x://a"] if command == "read" else ["p"] if command == "prompt"
                                                   else []) for command, handlers, _ in cases]
        for (command, _, fragment), run in zip(cases, run_all(argvs)):
            with self.subTest(command=command, fragment=fragment):
                self.assertFailed(run, 3, fragment)


CONTEXT_DEMO = os.path.join(HERE, "examples", "context_demo.py")


class ArgumentsTest(CliTestCase):
    """key=value typed by the tool's inputSchema; what the schema refuses is bad usage (issue 25)."""

    def test_typed_by_the_schema(self) -> None:
        # label=123 for an Optional[str] goes out as text; so does 1e400 for a
        # string; days=3 for an integer as a number; a name the schema lacks
        # names the ones it has.
        schema = {"type": "object", "properties": {
            "label": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "big": {"$ref": "#/$defs/Text"}, "days": {"type": "integer"}, "tags": {"type": "array"},
            "none": {"anyOf": [{"type": "string"}, {"type": "null"}]}}, "$defs": {"Text": {"type": "string"}}}
        server = self.fake({"tools/list": f"answer(request, {{'tools': [dict(TOOL, inputSchema={schema!r})]}})"})
        runs = run_all([["call", server, "echo", "label=123", "big=1e400", "days=3", 'tags=["a"]', "none=null"],
                        ["call", server, "echo", "lable=x"], ["call", server, "echo", "days=soon"]])
        expected = {"big": "1e400", "days": 3, "label": "123", "none": None, "tags": ["a"]}
        self.assertEqual((runs[0].code, runs[0].stderr, runs[0].stdout),
                         (0, "", f"content:\n  {json.dumps(expected, sort_keys=True)}\nisError: false\n"))
        self.assertFailed(runs[1], 2, "echo has no argument 'lable'; its arguments: label, big, days, tags, none")
        self.assertFailed(runs[2], 2, "echo's inputSchema refuses the arguments: days: Input should be a valid integer")

    def test_refused_arguments_exit_2(self) -> None:
        # As docs/command-line.md says: what the schema refuses, or the server with -32602.
        refuse = "send({'jsonrpc': '2.0', 'id': request['id'], 'error': {'code': -32602, 'message': 'no'}})"
        cases = [
            (["call", QUICKSTART, "add", "a=x"], "add's inputSchema refuses the arguments: a: Input should be a "
                                                 "valid integer"),
            (["call", QUICKSTART, "add"], "add's inputSchema refuses the arguments: a: Field required"),
            (["call", QUICKSTART, "add", "a=1", "c=2"], "add has no argument 'c'; its arguments: a, b"),
            (["call", QUICKSTART, "add", "--json", '{"a": 1, "c": 2}'], "add has no argument 'c'"),
            (["call", self.fake({"tools/call": refuse}), "echo"], "tools/call: no (JSON-RPC error -32602)"),
            (["prompt", NOTES, "summarize", "title=x", "tone=y"],
             "summarize has no argument 'tone'; its arguments: title, style"),
        ]
        for (args, fragment), run in zip(cases, run_all([args for args, _ in cases])):
            with self.subTest(args=args):
                self.assertFailed(run, 2, fragment)


class OutputTest(CliTestCase):
    """What list, call, prompt and complete print (issue 25)."""

    def test_list_is_compact(self) -> None:
        empty = self.fake({"tools/list": "answer(request, {'tools': []})"})
        runs = run_all([["list", QUICKSTART], ["list", empty], ["list", empty, "--schemas"],
                        ["list", QUICKSTART, "--schemas"]])
        self.assertEqual([(r.code, r.stderr, r.stdout) for r in runs[:3]], [
            (0, "", "add(a: integer, b?: integer)  Add two numbers.\n"
                    "describe(name: string, tags: array of string)  Describe a person by their tags.\n"
                    "slow_echo(text: string, delay?: number)  Echo text after a delay, without blocking other "
                    "calls.\n"),
            (0, "", "no tools\n"), (0, "", "no tools\n")])
        self.assertTrue(runs[3].stdout.startswith("add\n  Add two numbers.\n  input:  a: integer, b?: integer\n"
                                                  "  output: result: integer\n  inputSchema:  {\n"), runs[3])

    def test_a_tool_with_an_invalid_x_mcp_header_is_left_out(self) -> None:
        # 2026-07-28 basic/transports/streamable-http: the client MUST exclude such a tool from the
        # result of tools/list, and SHOULD log a warning naming it.  Before, list showed it.
        bad = "dict(TOOL, name='bad', inputSchema={'type': 'object', 'properties': {'n': {'type': 'number', " \
              "'x-mcp-header': 'N'}}})"
        run = run_cli(["list", self.fake({"tools/list": f"answer(request, {{'tools': [TOOL, {bad}]}})"})])
        self.assertEqual((run.code, run.stdout), (0, "echo(...)\n"), run)
        self.assertTrue(run.stderr.startswith("mcp_ref.Client: left out the tool 'bad': an x-mcp-header"), run)

    def test_content_blocks_are_separated(self) -> None:
        two = self.fake({"tools/call": "answer(request, {'content': [{'type': 'text', 'text': 'one\\ntwo'}, "
                                       "{'type': 'text', 'text': 'three'}]})"})
        run = run_cli(["call", two, "echo"])
        self.assertEqual((run.code, run.stderr, run.stdout),
                         (0, "", "content:\n  one\n  two\n  ---\n  three\nisError: false\n"))

    def test_errors_are_not_cut_mid_word(self) -> None:
        message = "Invalid arguments: " + " ".join(f"field{i} is wrong" for i in range(80))  # 1,300 characters
        failing = self.fake({"prompts/list": "answer(request, {'prompts': [{'name': 'p'}]})",
                             "prompts/get": "send({'jsonrpc': '2.0', 'id': request['id'], "
                                            f"'error': {{'code': -32602, 'message': {message!r}}}}})"})
        run = run_cli(["prompt", failing, "p"])
        self.assertFailed(run, 2, "prompts/get: Invalid arguments: field0 is wrong field1")
        self.assertRegex(run.stderr, r" wrong ... \(JSON-RPC error -32602\)\n$")

    def test_complete(self) -> None:
        more = self.fake({"completion/complete": "answer(request, {'completion': {'values': [request['params']"
                                                 "['argument']['value'] + 'x', json.dumps(request['params'].get("
                                                 "'context'))], 'total': 250, 'hasMore': True}})"})
        runs = run_all([["complete", NOTES, "summarize", "title="], ["complete", NOTES, "notes://{title}", "title=s"],
                        ["complete", NOTES, "summarize", "style=x"], ["complete", more, "p", "a=b", "c=d"],
                        ["complete", QUICKSTART, "p", "a="], ["complete", NOTES, "summarize"]])
        self.assertEqual([(r.code, r.stderr, r.stdout) for r in runs[:4]], [
            (0, "", "shopping\nideas\ntodo\n"), (0, "", "shopping\n"), (0, "", "(none)\n"),
            (0, "", 'bx\n{"arguments": {"c": "d"}}\n... (250 in all)\n')])
        self.assertFailed(runs[4], 2, "completion/complete: Method not found")
        self.assertFailed(runs[5], 2, f"usage: {PROG} complete SERVER PROMPT|TEMPLATE NAME=PREFIX")


class QuestionsTest(CliTestCase):
    """The server's questions: sampling declared, declined unless --sampling;
    a capability the command line lacks named (issue 25)."""

    def test_sampling_declined_without_the_option(self) -> None:
        said = "mcp_ref: declined the server's request for a model's reply (sampling); with --sampling you write " \
               "the reply\n"
        modern, session = run_all([["call", CONTEXT_DEMO, "haiku", "topic=rain"],
                                   ["call", CONTEXT_DEMO, "haiku", "topic=rain", "--protocol", "2025-11-25"]])
        self.assertEqual((modern.code, modern.stderr, modern.stdout), (2, said, ""))
        self.assertEqual((session.code, session.stdout), (2, ""), session)
        self.assertEqual(session.stderr, said + "mcp_ref: tools/call: Sampling declined by the user "
                                                "(JSON-RPC error -32600)\n")

    def test_sampling_answered_by_the_user(self) -> None:
        for protocol in ("2026-07-28", "2025-11-25"):
            run = run_cli(["call", CONTEXT_DEMO, "haiku", "topic=rain", "--sampling", "--protocol", protocol],
                          stdin="Soft rain on the roof\n")
            self.assertEqual(run.code, 0, run)
            self.assertTrue(run.stdout.startswith("content:\n  Soft rain on the roof\n"), run)
            self.assertEqual(run.stderr, "The server asks for a model's reply (sampling):\n"
                                         "  user: Write a haiku about rain.\nReply (one line; empty declines): \n")
        declined = run_cli(["call", CONTEXT_DEMO, "haiku", "topic=rain", "--sampling"], stdin="\n")
        self.assertEqual((declined.code, declined.stdout), (2, ""), declined)

    def test_missing_capability_named(self) -> None:
        run = run_cli(["call", CONTEXT_DEMO, "workspace"])
        self.assertFailed(run, 2, "tools/call: Missing required client capability (JSON-RPC error -32021): the server "
                                  "needs the client capability roots, which this command line does not offer")

    @unittest.skipUnless(os.name == "posix", "a pseudo-terminal")
    def test_progress_updates_one_line_on_a_terminal(self) -> None:
        code, stdout, terminal = on_terminal(["call", CONTEXT_DEMO, "count", "to=2"], stdin=False)
        self.assertEqual(code, 0, stdout)
        self.assertEqual(terminal, "[info] counting to 2\n\r[progress] 1/2 at 1\x1b[K\r[progress] 2/2 at 2\x1b[K\n")

    @unittest.skipUnless(os.name == "posix", "a pseudo-terminal")
    def test_questions_at_a_terminal_stay_off_stdout(self) -> None:
        # stdout may be a file (> result.txt): the questions go to the terminal.
        code, stdout, terminal = on_terminal(["call", CONTEXT_DEMO, "schedule"], typed="y\nMonday\n45\n")
        self.assertEqual((code, stdout.splitlines()[:2]), (0, ["content:", "  meeting on Monday for 45 minutes"]))
        self.assertIn("The server asks: When shall we meet?\n", terminal)
        self.assertIn("Answer? [y/N] ", terminal)


def on_terminal(args: Sequence[str], typed: str = "", stdin: bool = True) -> Tuple[int, str, str]:
    """The command line with stderr (and stdin) on a pseudo-terminal, ``typed``
    waiting there: its exit code, stdout, and what the terminal showed."""
    import pty

    leader, follower = pty.openpty()
    try:
        os.write(leader, typed.encode())
        process = subprocess.Popen([*COMMAND, *args], stdout=subprocess.PIPE, stderr=follower,
                                   stdin=follower if stdin else subprocess.DEVNULL, env=ENV)
        os.close(follower)
        out, _ = process.communicate(timeout=30)
        chunks = []
        for _ in range(10_000):
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the terminal's other end is closed
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    shown = b"".join(chunks).decode().replace("\r\n", "\n")
    return process.returncode, out.decode(), shown[len(typed):] if shown.startswith(typed) else shown


NODE_DIR = os.environ.get("MCP_REF_NODE_DIR", os.path.join(HERE, ".cache", "node"))

EVERYTHING_TS = os.path.join(NODE_DIR, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")

HAVE_EVERYTHING_TS = bool(shutil.which("node")) and os.path.isfile(EVERYTHING_TS)

# Each tool of the TypeScript SDK's everything server (2026.8.31) that a client
# with sampling, elicitation and roots sees, with arguments, and the text its
# result holds (the async tools need a client that runs tasks itself: not listed).
EVERYTHING_CALLS: Dict[str, Tuple[Dict[str, Any], str]] = {
    "echo": ({"message": "hi"}, "Echo: hi"),
    "get-annotated-message": ({"messageType": "success", "includeImage": True}, "Operation completed successfully"),
    "get-env": ({}, "PATH"),
    "get-resource-links": ({"count": 2}, "Resource 1"),
    "get-resource-reference": ({"resourceType": "Text", "resourceId": 1}, "Resource 1"),
    "get-roots-list": ({}, "file:///tmp/project"),
    "get-structured-content": ({"location": "Chicago"}, "temperature"),
    "get-sum": ({"a": 2, "b": 3}, "5"),
    "get-tiny-image": ({}, "MCP logo"),
    "gzip-file-as-resource": ({"name": "a.txt.gz", "data": "data:text/plain;base64,aGVsbG8=",
                               "outputType": "resource"}, ""),
    "toggle-simulated-logging": ({}, "logging"),
    "toggle-subscriber-updates": ({}, "updates"),
    "trigger-long-running-operation": ({"duration": 1, "steps": 2}, "completed"),
    "trigger-elicitation-request": ({}, "accept"),
    "trigger-url-elicitation": ({"url": "https://example.com/sign-in"}, ""),
    "trigger-sampling-request": ({"prompt": "capital?"}, "Paris"),
    "simulate-research-query": ({"topic": "python", "ambiguous": True}, "Clarification**: programming"),
}


TASK_ID = re.compile(r"(?<=\[task\] id: )[0-9a-f-]{36}")


class TaskTest(CliTestCase):
    """A call the server makes a task: its status shown as it is polled, then
    its result as any call's (issue 24)."""

    def test_a_task_is_followed_to_its_result(self) -> None:
        runs = run_all([["call", EVERYTHING, tool, *args, "--protocol", era] for era in ("2026-07-28", "2025-11-25")
                        for tool, args in (("slow_compute", ["seconds=0.2"]), ("protocol_error_job", []))])
        for run in runs[::2]:  # the task's id first (issue 32: what task, result and cancel take)
            self.assertEqual((run.code, TASK_ID.sub("ID", run.stderr)),
                             (0, "[task] id: ID\n[task] working\n[task] completed\n"), run)
            self.assertTrue(run.stdout.startswith("content:\n  Computed result in 0.2s\n"), run)
        for run in runs[1::2]:
            self.assertEqual((run.code, run.stdout), (3, ""), run)
            self.assertEqual(TASK_ID.sub("ID", run.stderr), "[task] id: ID\n[task] working\n[task] failed: The job "
                             "crashed\nmcp_ref: tools/call failed: The job crashed (JSON-RPC error -32603)\n")

    @unittest.skipUnless(os.name == "posix", "a pseudo-terminal")
    def test_one_updating_line_on_a_terminal(self) -> None:
        code, stdout, terminal = on_terminal(["call", EVERYTHING, "slow_compute", "seconds=0.2"], stdin=False)
        self.assertEqual(code, 0, stdout)
        self.assertEqual(TASK_ID.sub("ID", terminal),
                         "[task] id: ID\n\r[task] working\x1b[K\r[task] completed\x1b[K\n")


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class TaskCommandTest(CliTestCase):
    """Issue 32: tasks worked from the command line (tasks, task, result,
    cancel) against one HTTP server, where tasks outlive a run; Ctrl-C during
    a call that became a task cancels the task before exiting 130."""

    @classmethod
    def setUpClass(cls) -> None:
        from tests._testing import wait_for_port

        cls.port = free_port()
        cls.server = subprocess.Popen([sys.executable, CLI, "serve", EVERYTHING, "--http", str(cls.port)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(cls.port)
        cls.url = f"http://127.0.0.1:{cls.port}/mcp"

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.terminate()
        cls.server.wait(10)

    def interrupted(self, server: str, *args: str) -> Tuple[Run, str]:
        """A call interrupted (SIGINT, as Ctrl-C sends, to it alone) once it has shown its task's id."""
        import signal

        # SIGINT as a terminal leaves it: a suite started in the background by a
        # shell without job control ignores SIGINT, and its children inherit that.
        command = [*COMMAND[:3], "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                   + COMMAND[3]]
        process = subprocess.Popen([*command, "call", server, *args], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=ENV)
        lines = [process.stderr.readline() for _ in range(1)]  # type: ignore[union-attr]
        while lines[-1] and not TASK_ID.search(lines[-1]):
            lines.append(process.stderr.readline())  # type: ignore[union-attr]
        found = TASK_ID.search(lines[-1])
        self.assertIsNotNone(found, lines)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
        return Run(process.returncode, out, "".join(lines) + err, 0.0), found.group(0)  # type: ignore[union-attr]

    def test_ctrl_c_cancels_the_task(self) -> None:
        # Over HTTP and over stdio, in both task revisions: the trace shows
        # tasks/cancel sent, and (2026-07-28, where a task outlives the run's
        # connection; a 2025-11-25 one is its session's) another run finds it cancelled.
        for era in ("2025-11-25", "2026-07-28"):
            for server in (EVERYTHING, self.url):  # (the HTTP one last: its task is looked at after)
                with self.subTest(era=era, http=server == self.url):
                    run, task_id = self.interrupted(server, "slow_compute", "seconds=60", "--protocol", era,
                                                    "--trace")
                    self.assertEqual(run.code, 130, run)
                    self.assertIn(f"mcp_ref: interrupted: task {task_id} cancelled\n", run.stderr)
                    self.assertRegex(run.stderr, f'-> {{"jsonrpc": "2.0", "id": \\d+, "method": "tasks/cancel", '
                                                 f'"params": {{"taskId": "{task_id}"')
            shown = run_cli(["task", self.url, task_id, "--protocol", era])
            if era == "2026-07-28":
                self.assertEqual(shown.code, 0, shown)
                self.assertIn(f"taskId: {task_id}\nstatus: cancelled\n", shown.stdout)

    def test_tasks_task_result_cancel(self) -> None:
        from mcp_ref import Client

        with Client(self.url, protocol_version="2026-07-28") as client:
            quick = client.call_tool_as_task("slow_compute", {"seconds": 0.2, "label": "q"})["taskId"]
            long = client.call_tool_as_task("slow_compute", {"seconds": 60})["taskId"]
        result, cancel, unknown, listed, modern = run_all([
            ["result", self.url, quick], ["cancel", self.url, long], ["task", self.url, "no-such-task"],
            ["tasks", self.url, "--protocol", "2025-11-25"], ["tasks", self.url]])
        self.assertEqual((result.code, result.stdout.splitlines()[:2]), (0, ["content:", "  Computed q in 0.2s"]),
                         result)
        self.assertEqual((cancel.code, cancel.stdout), (0, f"{long}: cancelling\n"), cancel)  # an empty ack
        self.assertIn("status: cancelled\n", run_cli(["task", self.url, long]).stdout)
        self.assertFailed(unknown, 2, "tasks/get: Failed to retrieve task: Task not found (JSON-RPC error -32602)")
        self.assertEqual((listed.code, listed.stdout), (0, "no tasks\n"), listed)  # a new session has none
        self.assertFailed(modern, 2, "tasks/list is not in 2026-07-28")
        with Client(self.url, protocol_version="2025-11-25") as client:  # tasks/list: the session's own
            mine = client.call_tool_as_task("slow_compute", {"seconds": 0.1})["task"]["taskId"]
            self.assertEqual([task["taskId"] for task in client.list_tasks(all_pages=True)["tasks"]], [mine])
            self.assertEqual(text_of(client.get_task_result(mine)), "Computed result in 0.1s")
            with self.assertRaises(Exception) as caught:  # ended already: 2025-11-25's -32602
                client.cancel_task(mine)
            self.assertIn("already in terminal status 'completed'", str(caught.exception))


def text_of(result: Dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in result["content"])


@unittest.skipUnless(HAVE_EVERYTHING_TS and os.name == "posix",
                     f"node or the everything server is missing (npm install --prefix {NODE_DIR} "
                     "@modelcontextprotocol/server-everything); .ci/run installs it")
class TypeScriptEverythingTest(CliTestCase):
    """Issue 32: each tool the TypeScript SDK's everything server lists to the
    command line completes: sampling replies piped in (--sampling), forms
    answered at a (pseudo-)terminal, its research query a task that asks."""

    SERVER = f"sh -c 'exec node {shlex.quote(EVERYTHING_TS)} stdio 2> /dev/null'"

    def test_every_tool(self) -> None:
        listed = run_cli(["list", self.SERVER])
        self.assertEqual(listed.code, 0, listed)
        names = [line.split("(")[0] for line in listed.stdout.splitlines()]
        asking = {"trigger-elicitation-request", "simulate-research-query", "trigger-sampling-request"}
        self.assertTrue(asking <= set(names), names)
        runs = run_all([["call", self.SERVER, name, "--json", json.dumps(EVERYTHING_CALLS[name][0]), "--sampling"]
                        for name in names if name not in asking])
        for name, run in zip([name for name in names if name not in asking], runs):
            with self.subTest(tool=name):
                self.assertEqual(run.code, 0, run)
        sampled = run_cli(["call", self.SERVER, "trigger-sampling-request", "prompt=capital?", "--sampling"],
                          stdin="Paris\n")
        self.assertEqual(sampled.code, 0, sampled)
        self.assertIn("Paris", sampled.stdout)
        typed = "y\nprogramming\n" + "\n" * 20
        code, stdout, terminal = on_terminal(["call", self.SERVER, "simulate-research-query", "topic=python",
                                              "ambiguous=true"], typed)
        self.assertEqual(code, 0, terminal)
        self.assertIn("**Clarification**: programming", stdout)
        self.assertIn("[task] id: ", terminal)
        code, stdout, terminal = on_terminal(["call", self.SERVER, "trigger-elicitation-request"],
                                             "y\nAda\n" + "\n" * 20)
        self.assertEqual(code, 0, terminal)
        self.assertIn("Ada", stdout)


class CommandTest(CliTestCase):
    """The command line itself: its name, its mistakes, and what serve refuses (issue 25)."""

    def test_unknown_command(self) -> None:
        run = run_cli(["frob", "x"], script=True)
        self.assertFailed(run, 2, "unknown command 'frob'; the commands: list, call, resources, read, prompts, "
                                  "prompt, complete, tasks, task, result, cancel, serve (python mcp_ref.py --help "
                                  "tells more)")
        self.assertFailed(run_cli(["list"]), 2, f"list needs a SERVER: usage: {PROG} list SERVER")

    def test_the_file_as_a_script(self) -> None:
        # The other tests run the command line from its cached bytecode (COMMAND):
        # the file itself, run as a script (python mcp_ref.py ...), gives the same.
        args = ["call", EVERYTHING, "test_simple_text"]
        self.assertEqual(run_cli(args, script=True)[:3], run_cli(args)[:3])
        self.assertEqual(run_cli(args)[:3], (0, "content:\n  This is a simple text response for testing.\n"
                                                "isError: false\n", ""))

    def test_installed_name(self) -> None:
        # pip's script for pyproject's [project.scripts] entry: its name is argv[0].
        script = self.write("mcp-ref", f"import sys\nsys.path.insert(0, {HERE!r})\nfrom mcp_ref import main\n"
                                       "sys.exit(main())\n")
        run = subprocess.run([sys.executable, "-S", script, "--help"], capture_output=True, text=True, timeout=30)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertTrue(run.stdout.startswith("usage: mcp-ref COMMAND SERVER ..."), run.stdout)
        self.assertIn("\n  mcp-ref call SERVER TOOL [key=value ...]", run.stdout)
        self.assertNotIn("python mcp_ref.py", run.stdout)

    def test_run_as_a_module(self) -> None:
        # Before, `python -m mcp_ref --help` printed `usage: python mcp_ref.py`
        # (on 3.9, with no sys.orig_argv, until __main__'s spec was read).
        for options in ([], ["-W", "error", "-X", "dev"]):
            run = subprocess.run([sys.executable, "-S", *options, "-m", "mcp_ref", "--help"], capture_output=True,
                                 text=True, timeout=30, cwd=HERE)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertTrue(run.stdout.startswith("usage: python -m mcp_ref COMMAND SERVER ..."), run.stdout)
            self.assertNotIn("python mcp_ref.py", run.stdout)
        import mcp_ref

        for argv, module in ((["python", "-mmcp_ref"], True), (["python", "-I", "-m", "mcp_ref", "list"], True),
                             (["python", "mcp_ref.py", "-m"], False), (["python", "-c", "x", "-m"], False),
                             (["python", "-W", "-m", "mcp_ref.py"], False), (["python"], False)):
            self.assertEqual(mcp_ref._run_as_module(argv), module, argv)
        self.assertFalse(mcp_ref._run_as_module(None))  # 3.9's way: this __main__ is the test runner

    def test_serve_refuses_a_file_that_serves_on_import(self) -> None:
        path = self.write("eager.py", f"import sys\nsys.path.insert(0, {HERE!r})\nfrom mcp_ref import MCPServer\n"
                                      "mcp = MCPServer('eager')\nmcp.run()\n")
        fragment = ('RuntimeError: run() is called as the file is imported; call it under if __name__ == '
                    '"__main__": (line 5)')
        for run in run_all([["serve", path], ["serve", path, "--http", "127.0.0.1:0"], ["list", path]]):
            self.assertFailed(run, 2, f"cannot load {path}: {fragment}")

    def test_python_3_8_is_told(self) -> None:
        import ast

        with open(CLI, encoding="utf-8") as f:
            ast.parse(f.read(), feature_version=(3, 8))  # 3.8 reads the file far enough to say so
        code = f"import sys; sys.version_info = (3, 8, 18, 'final', 0); sys.path.insert(0, {HERE!r}); import mcp_ref"
        run = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=30)
        self.assertEqual(run.returncode, 1)
        self.assertTrue(run.stderr.endswith("ImportError: mcp_ref needs Python 3.9 or newer, not 3.8\n"), run.stderr)
        for old in glob.glob(os.path.expanduser("~/.pyenv/versions/3.8*/bin/python3.8")) + [shutil.which("python3.8")]:
            if old and subprocess.run([old, "-c", "pass"], capture_output=True).returncode == 0:  # not a bare shim
                run = subprocess.run([old, CLI, "--help"], capture_output=True, text=True, timeout=30)
                self.assertEqual((run.returncode, run.stderr), (1, "mcp_ref needs Python 3.9 or newer, not 3.8\n"))
                break


if __name__ == "__main__":
    unittest.main()

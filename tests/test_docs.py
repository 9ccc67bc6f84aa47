"""The documentation, run: every fenced code block of README.md and docs/*.md is
run or checked, by its language, and every link between the pages resolves.

A block's language decides its check, and a language with no check fails, so a
block cannot be added that nothing tests:

- python, py: run (a server file's ``if __name__ == "__main__"`` stays off);
- json: a client configuration, whose server file exists;
- console: each ``$ `` command runs and prints what follows it (a ``serve
  --http`` command is started and its first line compared, on a free port; a
  gunicorn command is checked as the sh blocks' are; ``python -m unittest`` is
  this very run);
- sh: each command is checked: ``python -m mcp_ref serve FILE`` serves FILE (its
  tools listed), gunicorn's options and app are gunicorn's own ``--check-config``
  (with the venv's gunicorn; skipped without it), the Inspector's command runs
  what it names (and, where ``MCP_REF_INSPECTOR`` names the Inspector's
  launcher, its ``--cli`` commands run for real);
- nginx: the directives the deployment page relies on, balanced braces, and
  ``nginx -t`` where nginx is installed;
- text: the text a command or call of the examples gives.

A fence indented, in a list or of tildes, and an indented code block, would
escape those checks: none may be there.  Each test a page names
(``tests.core...``, ``tests.layers...``) is one unittest collects, and each
difference from the SDK names at least one.
"""

import contextlib
import glob
import io
import json
import os
import re
import select
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest
from typing import Callable, Dict, List, Optional, Set, Tuple

from tests._testing import HERE, load_example  # the repository's root

PAGES = ["README.md"] + sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "docs", "*.md")))
LINKED = PAGES + ["tests/README.md", "bench/README.md", "spec/README.md"]  # the pages whose links are checked
GUNICORN = os.path.join(HERE, ".cache", "venv", "bin", "gunicorn")
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```$", re.S | re.M)


def read(page: str) -> str:
    with open(os.path.join(HERE, page), encoding="utf-8") as f:
        return f.read()


def blocks(page: str) -> List[Tuple[str, str, int]]:
    """(language, code, line) for every fenced block of a page."""
    text = read(page)
    return [(m.group(1).strip(), m.group(2), text.count("\n", 0, m.start()) + 1) for m in FENCE.finditer(text)]


def commands(code: str, prompt: bool) -> List[Tuple[str, str]]:
    """(command, what it prints) for each command of a console block ("$ " lines),
    or of a sh block (every line); a line ending in a backslash goes on."""
    out: List[Tuple[str, str]] = []
    lines = code.rstrip("\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if prompt and not line.startswith("$ "):
            if out:
                out[-1] = (out[-1][0], out[-1][1] + line + "\n")
            continue
        command = line[2:] if prompt else line
        while command.endswith("\\") and i < len(lines):
            command = command[:-1] + " " + lines[i].strip()
            i += 1
        if command.strip():
            out.append((command.strip(), ""))
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(argv: List[str], env: Optional[Dict[str, str]] = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=HERE, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})))


def python(argv: List[str]) -> List[str]:
    """A command the docs show as ``python ...`` (or ``python3``), run with this Python."""
    if argv[0] in ("python", "python3"):
        return [sys.executable] + argv[1:]
    if argv[0] == "mcp-ref":
        return [sys.executable, "-m", "mcp_ref"] + argv[1:]
    raise AssertionError(f"not a Python command: {argv}")


def is_mcp_ref(argv: List[str]) -> bool:
    """``python -m mcp_ref ...``, ``mcp-ref ...``, or a server file run by Python."""
    return argv[0] == "mcp-ref" or (argv[0] in ("python", "python3") and len(argv) > 1 and (
        argv[1:3] == ["-m", "mcp_ref"] or argv[1].startswith("examples/")))


def serving(argv: List[str]) -> bool:
    return "serve" in argv and "--http" in argv


class Checks(unittest.TestCase):
    """The checks of each language, shared by the test of each page."""

    served: Set[str] = set()  # server files whose tools were listed, once each

    # -- python ---------------------------------------------------------------

    def check_python(self, code: str) -> None:
        if 'Client("python ' in code:  # the command a reader types, run with this Python
            code = code.replace('Client("python ', f'Client("{sys.executable} ')
            self.assertNotIn(" ", sys.executable, "a Python path without spaces, for the command string")
        printed = io.StringIO()
        cwd = os.getcwd()
        os.chdir(HERE)  # paths in the examples are the checkout's
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(code, "docs", "exec"), {"__name__": "docs_example"})
        finally:
            os.chdir(cwd)
        for shown in re.findall(r"print\(.*\)  # (.*)$", code, re.M):  # a print's output, shown in its comment
            self.assertIn(shown, printed.getvalue())
        app = re.match(r"# app\.py: (gunicorn .*)$", code.split("\n")[0])
        if app:  # the file a gunicorn command loads: that command, with this file as app.py
            folder = tempfile.mkdtemp()
            self.addCleanup(shutil.rmtree, folder, True)
            with open(os.path.join(folder, "app.py"), "w", encoding="utf-8") as f:
                f.write(code)
            self.check_gunicorn(shlex.split(app.group(1)), {"PYTHONPATH": folder})

    check_py = check_python

    # -- json -----------------------------------------------------------------

    def check_json(self, code: str) -> None:
        config = json.loads(code)
        self.assertTrue(config.get("mcpServers"), "a json block is a client's configuration (no other check)")
        for name, server in config["mcpServers"].items():
            self.assertIn(server["command"], ("python3", "python", "mcp-ref"), name)
            for arg in server["args"]:
                if arg.endswith(".py"):  # /absolute/path/to/examples/x.py: a file of the checkout
                    self.assertTrue(os.path.exists(os.path.join(HERE, "examples", os.path.basename(arg))), arg)

    # -- console and sh ----------------------------------------------------------

    def check_console(self, code: str) -> None:
        for command, shown in commands(code, prompt=True):
            with self.subTest(command=command):
                env, argv = self.environment(command)
                if argv == ["python", "-m", "unittest"]:
                    continue  # the test command: this very run
                if argv[0] == "gunicorn":
                    self.check_gunicorn(argv, env)
                elif serving(argv):
                    self.check_serve_prints(argv, shown)
                else:
                    self.assertTrue(is_mcp_ref(argv), f"no check for {command!r}")
                    done = run(python(argv), env)
                    self.assertIn(done.returncode, (0, 1), done.stderr)
                    self.assertEqual(done.stdout, shown, done.stderr)

    def check_sh(self, code: str) -> None:
        urls: Dict[str, str] = {}  # the URL each "serve --http" line above serves, and its file
        for command, _ in commands(code, prompt=False):
            with self.subTest(command=command):
                env, argv = self.environment(command.rstrip("&").strip())
                if argv[0] == "gunicorn":
                    self.check_gunicorn(argv, env)
                elif argv[0] == "npx":
                    self.check_inspector(argv, urls)
                else:
                    self.assertTrue(is_mcp_ref(argv) and serving(argv), f"no check for {command!r}")
                    self.check_serves(argv)
                    urls[f"http://{argv[argv.index('--http') + 1]}/mcp"] = argv[4]

    def environment(self, command: str) -> Tuple[Dict[str, str], List[str]]:
        """The variables set before a command, and its words. A ``$(...)`` stands
        for a secret read from a file, and an absolute path for a file the
        command may create: here a value of the test's own, and a temporary file."""
        command = re.sub(r"\$\([^)]*\)", "a-shared-secret-for-the-test", command)
        argv = shlex.split(command)
        env: Dict[str, str] = {}
        while argv and re.fullmatch(r"[A-Z_]+=.*", argv[0]):
            name, _, value = argv.pop(0).partition("=")
            if value.startswith("/"):
                folder = tempfile.mkdtemp()
                self.addCleanup(shutil.rmtree, folder, True)
                value = os.path.join(folder, os.path.basename(value))
            env[name] = value
        return env, argv

    def check_serves(self, argv: List[str]) -> None:
        """``python -m mcp_ref serve FILE ...``: FILE is a server (its tools list)."""
        self.assertEqual(argv[1:4], ["-m", "mcp_ref", "serve"], argv)
        path = argv[4]
        if path not in self.served:
            done = run([sys.executable, "-m", "mcp_ref", "list", path])
            self.assertEqual(done.returncode, 0, done.stderr)
            self.served.add(path)

    def check_serve_prints(self, argv: List[str], shown: str) -> None:
        """Started on a free port, the server says what is shown (on stderr), then stops."""
        address = argv[argv.index("--http") + 1]
        port = str(free_port())
        free = [a.replace(address, "127.0.0.1:" + port) for a in argv]
        process = subprocess.Popen(python(free), cwd=HERE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   text=True)
        try:
            ready, _, _ = select.select([process.stderr], [], [], 30)  # a server that says nothing fails, not hangs
            first = process.stderr.readline() if ready else "(nothing within 30 s)\n"  # type: ignore[union-attr]
        finally:
            process.terminate()
            process.communicate(timeout=30)
        self.assertEqual(first, shown.replace(address, "127.0.0.1:" + port))

    def check_gunicorn(self, argv: List[str], env: Dict[str, str]) -> None:
        """gunicorn's own parser takes the options, and the app loads (``--check-config``)."""
        app = [a for a in argv if ":" in a and not re.match(r"[\d.]+:\d+$", a)]
        self.assertEqual(len(app), 1, f"one APP_MODULE in {argv}")
        file = re.fullmatch(r"mcp_ref:wsgi_app\(\"([^\"]+)\"\)", app[0])
        if file:
            self.assertTrue(os.path.exists(os.path.join(HERE, file.group(1))), file.group(1))
        if not os.path.exists(GUNICORN):
            self.skipTest("gunicorn is not installed (.cache/venv)")
        path = os.pathsep.join(p for p in (env.get("PYTHONPATH"), HERE) if p)
        done = run([GUNICORN] + argv[1:] + ["--check-config"], dict(env, PYTHONPATH=path))
        self.assertEqual(done.returncode, 0, done.stderr[-2000:])

    def check_inspector(self, argv: List[str], urls: Dict[str, str]) -> None:
        """``npx @modelcontextprotocol/inspector [--cli] COMMAND|URL ...``: the
        server it starts serves; a URL is one a line above serves, and the tool
        it calls answers those arguments."""
        self.assertEqual(argv[1], "@modelcontextprotocol/inspector", argv)
        rest = argv[3:] if argv[2:3] == ["--cli"] else argv[2:]
        if rest[0].startswith("http://"):
            self.assertEqual(rest[rest.index("--transport") + 1], "http")
            tool = rest[rest.index("--tool-name") + 1]
            arguments = [rest[i + 1] for i, word in enumerate(rest) if word == "--tool-arg"]
            self.assertIn(rest[0], urls, "a URL a line above serves")
            done = run([sys.executable, "-m", "mcp_ref", "call", urls[rest[0]], tool] + arguments)
            self.assertEqual(done.returncode, 0, done.stderr)
        else:
            cut = rest.index("--method") if "--method" in rest else len(rest)
            self.check_serves(rest[:cut])
        if argv[2:3] == ["--cli"] and os.environ.get("MCP_REF_INSPECTOR"):
            self.run_inspector(rest, urls)

    def run_inspector(self, rest: List[str], urls: Dict[str, str]) -> None:
        """With ``MCP_REF_INSPECTOR`` naming the Inspector's launcher (its
        ``clients/launcher/build/index.js``, or an ``inspector`` command), its
        ``--cli`` command runs as shown, against a server on a free port for a
        URL, and prints the JSON result."""
        launcher = os.environ["MCP_REF_INSPECTOR"]
        start = ["node", launcher] if launcher.endswith(".js") else [launcher]
        words = [sys.executable if w in ("python", "python3") else w for w in rest]
        server = None
        if rest[0].startswith("http://"):
            port = str(free_port())
            server = subprocess.Popen([sys.executable, "-m", "mcp_ref", "serve", urls[rest[0]], "--http",
                                       "127.0.0.1:" + port], cwd=HERE, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True)
            server.stderr.readline()  # type: ignore[union-attr]  # "serving ... on URL": it listens
            words[0] = f"http://127.0.0.1:{port}/mcp"
        try:
            done = run(start + ["--cli"] + words, timeout=120)
        finally:
            if server:
                server.terminate()
                server.communicate(timeout=30)
        self.assertEqual(done.returncode, 0, done.stdout[-2000:] + done.stderr[-2000:])
        self.assertIsInstance(json.loads(done.stdout), dict)

    # -- nginx ----------------------------------------------------------------

    def check_nginx(self, code: str) -> None:
        plain = re.sub(r"#.*", "", code)
        self.assertEqual(plain.count("{"), plain.count("}"))
        depth = 0
        for line in plain.split("\n"):
            depth += line.count("{") - line.count("}")
            self.assertGreaterEqual(depth, 0)
            if line.strip():
                self.assertRegex(line.strip(), r"[;{}]$", "every directive ends with ';'")
        for directive in ("hash $http_mcp_session_id consistent;", "location /mcp {", "proxy_http_version 1.1;",
                          "proxy_buffering off;", "proxy_read_timeout", "proxy_set_header Host $host;"):
            self.assertIn(directive, plain)  # what the deployment page says the proxy needs
        if shutil.which("nginx"):
            folder = tempfile.mkdtemp()
            self.addCleanup(shutil.rmtree, folder, True)
            conf = os.path.join(folder, "nginx.conf")
            # The block inside an http context, without TLS (no certificate here), and every
            # file nginx would write in the folder (as an unprivileged user it may write nowhere else).
            temps = " ".join(f"{kind}_temp_path {folder}/{kind};" for kind in ("client_body", "proxy", "fastcgi",
                                                                                  "uwsgi", "scgi"))
            with open(conf, "w", encoding="utf-8") as f:
                f.write(f"pid {folder}/pid; error_log stderr; events {{}}\nhttp {{\naccess_log off; {temps}\n"
                        + code.replace(" ssl;", ";").replace("listen 443", "listen 127.0.0.1:" + str(free_port()))
                        + "\n}\n")
            done = run(["nginx", "-t", "-p", folder + "/", "-c", conf])
            self.assertEqual(done.returncode, 0, done.stderr)

    # -- text -----------------------------------------------------------------

    def check_text(self, code: str) -> None:
        self.assertIn(code.strip(), [make() for make in TEXTS])


def _upstream_error() -> str:
    """The error text of weather.py's get_weather_upstream, as the page names the tool."""
    result = load_example("weather_docs").mcp.call_tool("get_weather_upstream", {"city": "London"})
    return str(result["content"][0]["text"]).replace("get_weather_upstream", "get_weather")


TEXTS: List[Callable[[], str]] = [_upstream_error]  # what a text block may show


class BlocksTest(Checks):
    def test_every_block_is_checked(self) -> None:
        for page in PAGES:
            for language, code, line in blocks(page):
                with self.subTest(page=page, line=line, language=language):
                    check = getattr(self, "check_" + language, None) if language else None
                    self.assertIsNotNone(check, f"{page}:{line}: no check for a ```{language} block")
                    check(code)  # type: ignore[misc]

    def test_no_block_escapes_the_checks(self) -> None:
        """A block is checked only when FENCE finds it: no fence elsewhere (indented,
        in a list, of tildes, or left open), and no indented code block."""
        for page in PAGES:
            outside = FENCE.sub("", read(page)).split("\n")
            for n, line in enumerate(outside):
                with self.subTest(page=page, line=line):
                    self.assertNotRegex(line, r"^\s*(```|~~~)", "a fence the checks do not see")
                    before = [b for b in outside[:n] if b.strip()]
                    if n and not outside[n - 1].strip() and line.startswith("    ") and before:
                        self.assertRegex(before[-1], r"^(\s+|[-*] |\d+\. )", "an indented code block")

    def test_the_languages_checked(self) -> None:
        found = {language for page in PAGES for language, _, _ in blocks(page)}
        self.assertEqual(found, {"python", "py", "json", "console", "sh", "nginx", "text"})

    def test_commands_start_the_cached_module(self) -> None:
        """``python mcp_ref.py`` compiles the whole file at each start: the pages show
        ``python -m mcp_ref`` or ``mcp-ref`` (a server file imports the module)."""
        for page in PAGES:
            for _, code, line in blocks(page):
                self.assertNotIn("mcp_ref.py ", code, f"{page}:{line}")


def flat(suite: unittest.TestSuite) -> List[unittest.TestCase]:
    """The tests of a suite and of the suites in it."""
    return [t for item in suite for t in (flat(item) if isinstance(item, unittest.TestSuite) else [item])]


class PagesTest(unittest.TestCase):
    def test_the_readme_is_for_users(self) -> None:
        readme = read("README.md")
        self.assertLessEqual(readme.count("\n"), 500)
        first = "\n".join(readme.split("\n")[:40])
        self.assertIn("$ python -m mcp_ref call examples/quickstart.py add a=2 b=3", first)
        self.assertIn("$ python -m unittest\n", first)
        self.assertIn("```python\nfrom mcp_ref import MCPServer\n", first)
        self.assertIn("a server, a client and a command line", " ".join(readme.split("\n\n")[1].split()))

    def test_the_quickstart_block_is_the_example(self) -> None:
        server = next(code for language, code, _ in blocks("README.md") if "def describe" in code)
        with open(os.path.join(HERE, "examples", "quickstart.py"), encoding="utf-8") as f:
            example = f.read()
        for function in ("def add(a: int, b: int = 1) -> int:", "def describe(name: str, tags: list[str]) -> Person:"):
            self.assertIn(function, server)
            self.assertIn(function, example)

    def test_every_page_is_linked_from_the_readme(self) -> None:
        readme = read("README.md")
        for page in PAGES[1:]:
            self.assertIn(f"]({page})", readme)

    def test_the_commands_are_the_command_lines(self) -> None:
        """The commands the README names, and the rows of docs/command-line.md's
        table, are the ones ``--help`` lists."""
        done = run([sys.executable, "-m", "mcp_ref", "--help"])
        helped = re.findall(r"^  python -m mcp_ref (\w+) ", done.stdout + done.stderr, re.M)
        self.assertGreaterEqual(len(helped), 12)
        named = re.search(r"The commands are (.*?);", " ".join(read("README.md").split())).group(1)  # type: ignore
        self.assertEqual(re.findall(r"`(\w+)`", named), helped)
        self.assertEqual(re.findall(r"^\| `(\w+) ", read("docs/command-line.md"), re.M), helped)

    def test_the_differences_keep_their_numbers(self) -> None:
        """Tests, mcp_ref.py and spec/*.tsv cite a difference by its number: one
        item per number, in order, none missing."""
        numbers = [int(n) for n in re.findall(r"^(\d+)\. \*\*", read("docs/sdk-differences.md"), re.M)]
        self.assertEqual(numbers, list(range(1, len(numbers) + 1)))
        self.assertGreaterEqual(len(numbers), 59)
        files = [os.path.join(HERE, "mcp_ref.py")]
        for folder in ("tests", "spec", ".ci"):
            files += glob.glob(os.path.join(HERE, folder, "**", "*"), recursive=True)
        cited = []
        for path in files:
            if path.endswith((".py", ".tsv")) or os.path.basename(path) == "run":
                with open(path, encoding="utf-8") as f:
                    cited += [(path, int(n)) for n in re.findall(r"docs/sdk-differences\.md, (\d+)", f.read())]
        self.assertGreater(len(cited), 20)
        self.assertEqual([(path, n) for path, n in cited if n not in numbers], [])

    def test_each_difference_names_its_tests(self) -> None:
        """Each numbered difference names at least one test, and each test it
        names is one unittest collects (a module, a class or a method)."""
        text = read("docs/sdk-differences.md")
        listed = text.split("\n## The differences\n", 1)[1].split("\n## ", 1)[0]
        items = re.split(r"^(?=\d+\. \*\*)", listed, flags=re.M)
        loader = unittest.TestLoader()
        for item in items[1:]:
            number = item.split(".", 1)[0]
            with self.subTest(difference=number):
                named = re.findall(r"`(tests\.[\w.]+)`", item)
                self.assertTrue(named, f"difference {number} names no test")
                for name in named:
                    self.check_collected(loader, name)

    def test_every_test_a_page_names_is_collected(self) -> None:
        loader = unittest.TestLoader()
        for page in PAGES:
            for name in sorted(set(re.findall(r"`(tests\.(?:core|layers)\.test_\w+(?:\.\w+)*)`", read(page)))):
                with self.subTest(page=page, test=name):
                    self.check_collected(loader, name)

    def check_collected(self, loader: unittest.TestLoader, name: str) -> None:
        found = flat(loader.loadTestsFromName(name))
        self.assertTrue(found, name)  # (a name that does not resolve is loaded as a failing test)
        self.assertNotIn("_FailedTest", {type(test).__name__ for test in found}, name)


class FiguresTest(unittest.TestCase):
    """A figure the pages give is the code's."""

    def test_the_differential_sizes(self) -> None:
        text = " ".join(read("docs/testing.md").split())
        source = read(os.path.join("tests", "layers", "test_differential.py"))
        n = int(re.search(r'"MCP_REF_DIFF_N", "(\d+)"', source).group(1))  # type: ignore[union-attr]
        self.assertIn(f"registers {n:,} random annotations", text)
        self.assertIn(f"compares `tools/list`, {n:,} argument calls and {n:,} returned values", text)
        self.assertIn("while checked < 4 * N:", source)  # validate's instances
        self.assertIn(f"on {4 * n:,} instances", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, code marks and punctuation
    dropped (letters, digits, '_', '-' and spaces kept), spaces as '-'."""
    heading = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", heading).replace(" ", "-")


def anchors(page: str) -> Set[str]:
    """A page's anchors; a repeated one gets -1, -2, ... as on GitHub."""
    seen: Dict[str, int] = {}
    out: Set[str] = set()
    for heading in re.findall(r"^#{1,6} (.*)$", FENCE.sub("", read(page)), re.M):
        base = slug(heading)
        out.add(base if base not in seen else f"{base}-{seen[base]}")
        seen[base] = seen.get(base, 0) + 1
    return out


def links(page: str) -> List[str]:
    """The targets of a page's Markdown links, outside code."""
    text = re.sub(r"`[^`\n]*`", "", FENCE.sub("", read(page)))
    return re.findall(r"\]\(([^)\s]+)\)", text)


class LinksTest(unittest.TestCase):
    def test_every_relative_link_and_anchor_resolves(self) -> None:
        checked = 0
        for page in LINKED:
            for target in links(page):
                if re.match(r"[a-z]+:", target):
                    continue  # https:, mailto:: not ours to check
                with self.subTest(page=page, target=target):
                    path, _, anchor = target.partition("#")
                    resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                    self.assertTrue(os.path.exists(os.path.join(HERE, resolved)), f"{page}: {target}")
                    if anchor:
                        self.assertTrue(resolved.endswith(".md"), target)
                        self.assertIn(anchor, anchors(resolved), f"{page}: {target}")
                    checked += 1
        self.assertGreater(checked, 50)

    def test_the_slug_rules(self) -> None:
        self.assertEqual(slug("Authorization (OAuth 2.1)"), "authorization-oauth-21")
        self.assertEqual(slug("Inside `mcp_ref.py`"), "inside-mcp_refpy")
        self.assertEqual(slug("Claude Desktop and the MCP Inspector"), "claude-desktop-and-the-mcp-inspector")


if __name__ == "__main__":
    unittest.main()

"""Sections 10 and 11: resources, URI templates, prompts and completion.

Runs with ``python -m unittest`` and no package installed.  What the SDK
publishes and answers comes from ``testdata/sdk_resource_expectations.json``
(recorded by ``testdata/regen_resource_expectations.py`` from
``testdata/resource_corpus.py``); where mcp_ref deliberately differs
(docs/sdk-differences.md), the test asserts our behaviour and
names the item.  Frames are whole JSON-RPC responses, made in process by a
connection without a transport (test_wire.py drives the same over pipes).
"""

import contextlib
import copy
import importlib
import importlib.util
import inspect
import io
import json
import os
import random
import sys
import tempfile
import time
import unittest
from typing import Any, Dict, List, Optional

from tests._testing import HERE  # the repository's root
from tests._testing import python_command  # a server's command line, on the module under test


sys.path.insert(0, HERE)

sys.path.insert(0, os.path.join(HERE, "tests", "testdata"))

mcp_ref = importlib.import_module(os.environ.get("MCP_REF_MODULE", "mcp_ref"))  # the module under test

MCPServer = mcp_ref.MCPServer


with open(os.path.join(HERE, "tests", "testdata", "sdk_resource_expectations.json"), encoding="utf-8") as _f:
    SDK = json.load(_f)


def recorded_revisions() -> Dict[str, Any]:
    """revision -> what the SDK answered there (a copy, for the test to amend)."""
    return copy.deepcopy(SDK["revisions"])  # type: ignore[no-any-return]


MODERN = "2026-07-28"

META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}


def load_corpus() -> Any:
    os.environ.pop("CORPUS_SERVER", None)
    with contextlib.redirect_stderr(io.StringIO()):
        return importlib.import_module("resource_corpus")


class Frames:
    """A connection without a transport: the response frame of each request
    (minus "jsonrpc" and "id"), and what the server wrote on its own."""

    def __init__(self, server: Any, version: str = "2025-11-25") -> None:
        frames = self

        class Connection(mcp_ref._Connection):  # type: ignore[misc, name-defined]
            def write(self, message: Any) -> None:
                frames.written.append(json.loads(message) if isinstance(message, bytes) else message)

        self.written: List[Any] = []
        self.connection = Connection(server)
        self.version = version
        self.next_id = 0
        if version != MODERN:
            self.handshake = self.ask("initialize", {"protocolVersion": version, "capabilities": {},
                                                     "clientInfo": {"name": "test", "version": "1"}})

    def ask(self, method: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        params = dict(params or {})
        if self.version == MODERN:
            params["_meta"] = META
        self.next_id += 1
        with contextlib.redirect_stderr(io.StringIO()):  # the tracebacks of failing resources
            reply = self.connection.handle_message({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                                    "params": params}, lambda data: None)
        assert reply["id"] == self.next_id
        return json.loads(json.dumps({k: v for k, v in reply.items() if k not in ("jsonrpc", "id")}))


# 17: a URI that matches a template but whose variables do not convert is the
# client's error, and says why; the SDK answers -32603 "Error creating resource".
BAD_VARIABLES = {
    "users://abc/profile": "users://{user_id}/profile: 1 validation error for profileArguments\nuser_id\n  "
                           "Input should be a valid integer, unable to parse string as an integer "
                           "[type=int_parsing, input_value='abc', input_type=str]",
    "search://music?q=x": "search://{kind}{?q,limit}: 1 validation error for searchArguments\nkind\n  "
                          "Input should be 'books' or 'films' [type=literal_error, input_value='music', "
                          "input_type=str]",
    "search://books?limit=x": "search://{kind}{?q,limit}: 1 validation error for searchArguments\nlimit\n  "
                              "Input should be a valid integer, unable to parse string as an integer "
                              "[type=int_parsing, input_value='x', input_type=str]",
}


# 18: prompt errors carry the specification's codes and say why; the SDK sends
# code 0 (handshake) or -32603 "Internal server error" (2026-07-28).
PROMPT_ERRORS = {
    "greet {}": (-32602, "Missing required arguments for prompt greet: name"),
    "greet {'name': 'Ada', 'times': 'two'}": (-32602, "Invalid arguments for prompt greet: 1 validation error for "
                                                      "greetArguments\ntimes\n  Input should be a valid integer, "
                                                      "unable to parse string as an integer [type=int_parsing, "
                                                      "input_value='two', input_type=str]"),
    "numbers {'values': '1'}": (-32602, "Invalid arguments for prompt numbers: 1 validation error for "
                                        "numbersArguments\nvalues\n  Input should be a valid list [type=list_type, "
                                        "input_value='1', input_type=str]"),
    "fails_prompt {'reason': 'r'}": (-32603, "Error rendering prompt fails_prompt"),
    "bad_role {}": (-32603, "Error rendering prompt bad_role"),
    "unknown {}": (-32602, "Unknown prompt: unknown"),
}


# 19: prompt arguments are read as tool arguments are: JSON text for a list,
# unknown arguments ignored.  The SDK refuses both (as a rendering error).
PROMPT_RESULTS = {
    "greet {'name': 'Ada', 'extra': 'ignored?'}": {"description": "Greet someone.", "messages": [
        {"role": "user", "content": {"type": "text", "text": "Hello, Ada!"}}]},
    "numbers {'values': '[1, 2]'}": {"description": "", "messages": [
        {"role": "user", "content": {"type": "text", "text": "[1.0, 2.0]"}}]},
    "numbers {'values': '[1, 2]', 'scale': '0.5'}": {"description": "", "messages": [
        {"role": "user", "content": {"type": "text", "text": "[0.5, 1.0]"}}]},
}


def defined_in(version: str, item: Dict[str, Any]) -> Dict[str, Any]:
    """15: only the fields the revision defines (the SDK sends every field in every revision)."""
    if version >= "2025-06-18":
        return item
    item = {k: v for k, v in item.items() if k not in ("title", "icons", "_meta")}
    if "annotations" in item:
        item["annotations"] = {k: v for k, v in item["annotations"].items() if k != "lastModified"}
    return item


def cleandoc(item: Dict[str, Any]) -> Dict[str, Any]:
    """4: descriptions are inspect.cleandoc's text; the SDK sends the raw docstring."""
    if "description" in item:
        item = dict(item, description=inspect.cleandoc(item["description"]))
    return item


def expected_capabilities(version: str) -> Dict[str, Any]:
    """14: what is registered, and subscribe in the revisions that have resources/subscribe;
    22: logging in both eras; every list's changes announced (the SDK declares no listChanged but
    tools' in a session, and 2026-07-28 nothing: docs/sdk-differences.md)."""
    changes = {"tools": {"listChanged": True}, "resources": {"subscribe": True, "listChanged": True},
               "prompts": {"listChanged": True}}
    capabilities = dict({"logging": {}}, **changes, completions={})
    if version < "2025-03-26":  # no completions capability before 2025-03-26
        del capabilities["completions"]
    return capabilities


class SdkParityTest(unittest.TestCase):
    """Every response of the corpus, in three revisions, against the SDK's."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.corpus = load_corpus()

    def frames(self, version: str) -> Frames:
        return Frames(self.corpus.server, version)

    def test_lifecycle_and_capabilities(self) -> None:
        for version, recorded in recorded_revisions().items():
            with self.subTest(version=version):
                frames = self.frames(version)
                sdk = recorded.get("initialize") or recorded["server/discover"]
                ours = frames.handshake if version != MODERN else frames.ask("server/discover")
                self.assertEqual(ours["result"]["capabilities"], expected_capabilities(version))
                for key in ("capabilities",):
                    sdk["result"].pop(key), ours["result"].pop(key)
                self.assertEqual(ours, sdk)

    def test_lists(self) -> None:
        for version, recorded in recorded_revisions().items():
            frames = self.frames(version)
            for method, key in (("resources/list", "resources"), ("resources/templates/list", "resourceTemplates"),
                                ("prompts/list", "prompts")):
                with self.subTest(version=version, method=method):
                    expected = recorded[method]
                    expected["result"][key] = [cleandoc(defined_in(version, i)) for i in expected["result"][key]]
                    self.assertEqual(frames.ask(method), expected)

    def test_unknown_cursor(self) -> None:
        # 21: an unknown cursor is -32602 (server/utilities/pagination); the SDK ignores it.
        for version, recorded in recorded_revisions().items():
            with self.subTest(version=version):
                self.assertEqual(recorded["resources/list?cursor=zz"]["result"]["resources"],
                                 recorded["resources/list"]["result"]["resources"])
                self.assertEqual(self.frames(version).ask("resources/list", {"cursor": "zz"}),
                                 {"error": {"code": -32602, "message": "Invalid params: unknown cursor"}})

    def test_completions(self) -> None:
        for version, recorded in recorded_revisions().items():
            frames = self.frames(version)
            for params, expected in recorded["completes"]:
                with self.subTest(version=version, params=params):
                    self.assertEqual(frames.ask("completion/complete", params), expected)

    def test_in_process_api_is_the_wire(self) -> None:
        server = self.corpus.server
        for version in SDK["revisions"]:
            frames = self.frames(version)
            with self.subTest(version=version):
                self.assertEqual(server.list_resources(version), frames.ask("resources/list")["result"]["resources"])
                self.assertEqual(server.list_resource_templates(version),
                                 frames.ask("resources/templates/list")["result"]["resourceTemplates"])
                self.assertEqual(server.list_prompts(version), frames.ask("prompts/list")["result"]["prompts"])
                read = frames.ask("resources/read", {"uri": "data://annotated"})["result"]
                self.assertEqual(server.read_resource("data://annotated", version)["contents"], read["contents"])
                got = frames.ask("prompts/get", {"name": "rich"})["result"]
                self.assertEqual(server.get_prompt("rich", {}, version)["messages"], got["messages"])


class UriTemplateTest(unittest.TestCase):
    def test_sdk_cases(self) -> None:
        for template, cases in SDK["templates"]:
            with self.subTest(template=template):
                if cases is None:
                    with self.assertRaises(ValueError):
                        mcp_ref._UriTemplate(template)
                    continue
                pattern = mcp_ref._UriTemplate(template)
                for uri, expected in cases:
                    self.assertEqual(pattern.match(uri), expected, uri)

    def test_errors_name_the_template_and_the_place(self) -> None:
        for template, message in [
            ("x://{a", "URI template 'x://{a', position 4: '{' is never closed"),
            ("x://{a}{b}", "URI template 'x://{a}{b}': variables 'a' and 'b' touch; put a literal between them so "
                           "that a URI says where one ends"),
            ("x://{a:3}", "URI template 'x://{a:3}', position 4: prefix modifiers ({a:3}) are not supported"),
            ("x://{a}/{a}", "URI template 'x://{a}/{a}': variable 'a' appears twice"),
            ("x://{+a}/{#b}", "URI template 'x://{+a}/{#b}': more than one variable that spans segments ({+x}, "
                              "{#x} or an explode); a match would be ambiguous"),
            ("x://{ a}", "URI template 'x://{ a}', position 4: ' a' is not a variable name"),
        ]:
            with self.subTest(template=template):
                with self.assertRaises(ValueError) as caught:
                    mcp_ref._UriTemplate(template)
                self.assertEqual(str(caught.exception), message)

    def test_query_variables_are_optional(self) -> None:
        pattern = mcp_ref._UriTemplate("logs://{service}{?since,level}")
        self.assertEqual(pattern.names, ["service", "since", "level"])
        self.assertEqual(pattern.query, ["since", "level"])
        self.assertEqual(pattern.match("logs://api?level=a%20b&since=5m&level=x"),
                         {"service": "api", "since": "5m", "level": "a b"})

    def test_matching_is_linear(self) -> None:
        # Many captures with the same literal between them, and a URI that
        # almost matches: a backtracking matcher takes polynomial time here.
        pattern = mcp_ref._UriTemplate("x://" + "-".join("{v%d}" % i for i in range(8)) + "/end")
        uri = "x://" + "-" * 60000 + "/nope"
        start = time.perf_counter()
        self.assertIsNone(pattern.match(uri))
        self.assertIsNone(pattern.match("x://" + "a" * 70000))  # longer than the SDK's bound: no match
        self.assertLess(time.perf_counter() - start, 2.0)

    def test_traversal_is_no_resource(self) -> None:
        # The SDK's default ResourceSecurity, on the decoded values.
        for value, unsafe in [("a/b", False), ("../x", True), ("a/../b", False), ("a/../../b", True),
                              ("1.0..2.0", False), ("/etc", True), ("C:\\x", True), ("c:x", True), ("a\0b", True),
                              ("\\\\server\\share", True), ("", False)]:
            with self.subTest(value=value):
                self.assertEqual(mcp_ref._unsafe(value), unsafe)


class RegistrationTest(unittest.TestCase):
    def test_decorators_used_without_a_call(self) -> None:
        server = MCPServer("r")
        with self.assertRaisesRegex(TypeError, r"Use @resource\('uri'\) instead of @resource"):
            server.resource(lambda: "x")
        with self.assertRaisesRegex(TypeError, r"Use @prompt\(\) instead of @prompt"):
            server.prompt(lambda: "x")

    def test_template_variables_are_the_parameters(self) -> None:
        server = MCPServer("r")
        with self.assertRaises(ValueError) as caught:
            server.resource("x://{a}/{b}", name="t")(lambda a, c: a)
        self.assertEqual(str(caught.exception), "Mismatch between URI parameters ['a', 'b'] and function "
                                                "parameters ['a', 'c'] of x://{a}/{b}")
        with self.assertRaisesRegex(ValueError, r"Resource 'x://static' has no URI template variables, but the "
                                                r"function declares parameters \['a'\]"):
            server.resource("x://static", name="s")(lambda a: a)
        with self.assertRaisesRegex(ValueError, r"Resource x://\{a\}\{\?q\}: the query parameters \['q'\] need "
                                                r"default values"):
            server.resource("x://{a}{?q}", name="q")(lambda a, q: a)
        with self.assertRaisesRegex(ValueError, "never closed"):
            server.resource("x://{a")

    def test_signatures_are_checked_as_tools_are(self) -> None:
        server = MCPServer("r")
        with self.assertRaisesRegex(mcp_ref.InvalidSignature, "You must provide a name for lambda functions"):
            server.prompt()(lambda: "x")

        def variadic(*names: str) -> str:
            return ""

        with self.assertRaisesRegex(mcp_ref.InvalidSignature, r"Parameter \*names of variadic"):
            server.prompt()(variadic)

    def test_resource_options_are_checked(self) -> None:
        for options, message in [
            ({"cache_ttl_ms": -1}, "cache_ttl_ms of x://a must be an integer >= 0, not -1"),
            ({"cache_scope": "shared"}, "cache_scope of x://a must be 'public' or 'private', not 'shared'"),
            ({"annotations": {"priority": 2}}, "The annotations of x://a: priority is a number from 0 to 1, not 2"),
            ({"annotations": {"audience": ["model"]}}, "The annotations of x://a: audience is a list of 'user' "
                                                       "and 'assistant', not ['model']"),
        ]:
            with self.subTest(options=options):
                with self.assertRaises(ValueError) as caught:
                    mcp_ref.TextResource("x://a", text="", **options)
                self.assertEqual(str(caught.exception), message)
        with self.assertRaisesRegex(ValueError, "A resource needs a URI"):
            mcp_ref.TextResource("", text="")
        with self.assertRaisesRegex(ValueError, "The path of resource x://f must be absolute, not 'rel.txt'"):
            mcp_ref.FileResource("x://f", path="rel.txt")
        with self.assertRaisesRegex(ValueError, "Resource x://f: .*base64_codec"):
            mcp_ref.FileResource("x://f", path="/tmp/a", encoding="base64_codec")
        with self.assertRaisesRegex(TypeError, "add_resource takes a Resource"):
            MCPServer("r").add_resource("x://a")

    def test_file_encodings_follow_the_mime_type(self) -> None:
        for mime, encoding in [("text/plain", "utf-8-sig"), ("application/json", "utf-8-sig"),
                               ("application/ld+json", "utf-8-sig"), ("image/svg+xml", "utf-8-sig"),
                               ("text/plain; charset=latin-1", "latin-1"), ("image/png", None),
                               ("application/octet-stream", None)]:
            with self.subTest(mime=mime):
                self.assertEqual(mcp_ref.FileResource("x://f", path="/f", mime_type=mime).encoding, encoding)

    def test_the_first_of_a_name_stays(self) -> None:
        # As in the SDK: resources and prompts keep the first; templates, the last.
        server = MCPServer("r")
        with contextlib.redirect_stderr(io.StringIO()) as err:
            server.add_resource(mcp_ref.TextResource("x://a", text="one"))
            server.add_resource(mcp_ref.TextResource("x://a", text="two"))
            server.prompt(name="p")(lambda: "one")
            server.prompt(name="p")(lambda: "two")
        self.assertIn("resource 'x://a' registered again; the first one stays", err.getvalue())
        self.assertEqual(server.read_resource("x://a")["contents"][0]["text"], "one")
        self.assertEqual(server.get_prompt("p")["messages"][0]["content"]["text"], "one")
        server.remove_prompt("p")
        self.assertEqual(server.list_prompts(), [])
        with self.assertRaisesRegex(ValueError, "Unknown prompt: p"):
            server.remove_prompt("p")


class UriTest(unittest.TestCase):
    """server/resources "Custom URI Schemes": "Custom URI schemes MUST be in accordance
    with RFC3986": a resource's URI, and a template's up to its first variable, begin
    with a scheme (RFC 3986 3.1); refused at registration, with the URI named."""

    REFUSED = ["not a uri", "x", "/path/only", "relative/path", "1abc:x", "a_b:c", "-a:b", ":x", "\u00e9t\u00e9:x",
               "a:b\n", "a:\x00", "a:b\x7f", "users/{id}", "my app://{x}"]
    ACCEPTED = ["a:b", "a:", "file:///x", "file:///a b", "weird+scheme-1.0:foo", "HTTP://X", "urn:isbn:1",
                "http://[::1]/", "data:,", "mailto:x@y", "a:b c", "a:%zz", "a:\u00e9", "test://static/resource"]

    def test_a_resource_uri_needs_a_scheme(self) -> None:
        for uri in self.REFUSED:
            with self.subTest(uri=uri):
                message = f"Resource URI {uri!r} is not a URI (RFC 3986): it needs a scheme, such as 'file:' or " \
                          "'myapp:', and no control characters"
                with self.assertRaises(ValueError) as caught:
                    MCPServer("r").add_resource(mcp_ref.TextResource(uri, text="1"))
                self.assertEqual(str(caught.exception), message)
                server = MCPServer("r")
                with self.assertRaises(ValueError) as caught:
                    server.resource(uri)(lambda: "1")
                self.assertEqual(str(caught.exception), message)
                self.assertEqual(server.list_resources() + server.list_resource_templates(), [])
        for uri in self.ACCEPTED:  # what the SDK keeps as given, kept as given
            with self.subTest(uri=uri):
                server = MCPServer("r")
                server.add_resource(mcp_ref.TextResource(uri, text="1"))
                self.assertEqual([r["uri"] for r in server.list_resources()], [uri])

    def test_a_template_is_checked_up_to_its_first_variable(self) -> None:
        def city(city: str) -> str:
            return city

        def base(base: str) -> str:
            return base

        def scheme(scheme: str) -> str:
            return scheme

        def item(id: str, q: str = "") -> str:  # noqa: A002  (the template's variable)
            return id + q

        for template, fn in (("weather://{city}", city), ("{+base}/x", base), ("{scheme}:x", scheme),
                             ("a{scheme}:c", scheme), ("x://a/{id}{?q}", item)):
            with self.subTest(template=template):
                server = MCPServer("r")
                server.resource(template)(fn)
                self.assertEqual([t["uriTemplate"] for t in server.list_resource_templates()], [template])

    def test_never_refuses_what_pydantic_anyurl_takes(self) -> None:
        # The SDK 1.x typed a resource's URI as pydantic's AnyUrl: what it took (a
        # string without control characters) is taken here too (seeded fuzz).
        if importlib.util.find_spec("pydantic") is None:
            self.skipTest("pydantic is not installed")
        from pydantic import AnyUrl, TypeAdapter

        any_url = TypeAdapter(AnyUrl)
        rng = random.Random(3986)
        alphabet = "aZ09+-.:/?#[]@!$&'()*,;=%_~ \u00e9{}"
        taken = 0
        for _ in range(3000):
            head = rng.choice(("", "a:", "x+y.z-1:", "s://", "s://h/", "1a:", "a_b:", "-:", "/", "a"))
            uri = head + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
            uri = uri.replace("{", "").replace("}", "")
            if not uri:
                continue
            try:
                any_url.validate_python(uri)
            except ValueError:
                continue
            taken += 1
            with self.subTest(uri=uri):
                mcp_ref.TextResource(uri, text="1")
        self.assertGreater(taken, 500)  # the generator reaches what AnyUrl takes


class ApiTest(unittest.TestCase):
    def test_read_errors_are_exceptions(self) -> None:
        corpus = load_corpus()
        with self.assertRaisesRegex(mcp_ref.ResourceNotFoundError, "Unknown resource: nothing://here"):
            corpus.server.read_resource("nothing://here")
        with self.assertRaisesRegex(mcp_ref.ResourceNotFoundError, "No such thing: missing"):
            corpus.server.read_resource("broken://missing")
        with contextlib.redirect_stderr(io.StringIO()) as err:
            with self.assertRaisesRegex(mcp_ref.ResourceError, "^Error reading resource data://fails$"):
                corpus.server.read_resource("data://fails")
        self.assertIn("RuntimeError: a detail at /srv/secret.py", err.getvalue())  # the detail stays on stderr

    def test_prompt_errors_are_value_errors(self) -> None:
        corpus = load_corpus()
        with self.assertRaisesRegex(ValueError, "^Unknown prompt: nope$"):
            corpus.server.get_prompt("nope")
        with self.assertRaisesRegex(ValueError, "^Missing required arguments for prompt greet: name$"):
            corpus.server.get_prompt("greet")
        # In process, arguments need not be strings.
        self.assertEqual(corpus.server.get_prompt("greet", {"name": "Ada", "times": 2})["messages"][0]["content"],
                         {"type": "text", "text": "Hello, Ada! Hello, Ada!"})

    def test_text_arguments_reach_typed_parameters(self) -> None:
        """prompts/get's arguments are strings and a URI's variables are text:
        an int, a float or a bool parameter still gets its value ("2" is 2),
        a str parameter the text as sent, and text that is no such value is
        refused, naming the argument (server/prompts; _text_arguments)."""
        server = MCPServer("t")

        @server.prompt()
        def repeat(word: str, times: int, loud: bool = False, scale: float = 1.0) -> str:
            return f"{word!r} {times!r} {loud!r} {scale!r}"

        @server.resource("count://{n}/{half}")
        def count(n: int, half: float) -> str:
            return f"{n!r} {half!r}"

        def text(arguments: Dict[str, str]) -> str:
            return server.get_prompt("repeat", arguments)["messages"][0]["content"]["text"]  # type: ignore

        self.assertEqual(text({"word": "2", "times": "3", "loud": "true", "scale": "0.5"}), "'2' 3 True 0.5")
        self.assertEqual(text({"word": "[1]", "times": "1"}), "'[1]' 1 False 1.0")
        self.assertEqual(server.read_resource("count://7/2.5")["contents"][0]["text"], "7 2.5")
        for bad in ("abc", "2.5", "[1]", "null", ""):
            with self.subTest(times=bad), self.assertRaisesRegex(ValueError, "(?s)Invalid arguments for prompt "
                                                                 "repeat.*times"):
                text({"word": "w", "times": bad})
        with self.assertRaisesRegex(mcp_ref.ResourceError, "(?s)does not fit resource template count://{n}/{half}.*n"):
            server.read_resource("count://seven/1")

    def test_resource_values(self) -> None:
        server = MCPServer("r")
        server.resource("x://gen", name="gen")(lambda: (i for i in range(2)))
        server.resource("x://res", name="res")(lambda: mcp_ref.TextResource("x://other", text="handed over"))
        server.resource("x://bytearray", name="b", mime_type="image/png")(lambda: bytearray(b"\x01"))
        server.resource("x://cyclic", name="cyclic")(_cyclic)
        server.add_resource(mcp_ref.TextResource("x://meta", text="m", meta={"k": 1}))
        self.assertEqual(server.read_resource("x://gen")["contents"][0]["text"], "[\n  0,\n  1\n]")
        self.assertEqual(server.read_resource("x://res")["contents"], [
            {"uri": "x://res", "mimeType": "text/plain", "text": "handed over"}])
        self.assertEqual(server.read_resource("x://bytearray")["contents"][0]["blob"], "AQ==")
        self.assertIn("{'me': {...}}", server.read_resource("x://cyclic")["contents"][0]["text"])
        self.assertEqual(server.read_resource("x://meta", "2025-03-26")["contents"][0], {
            "uri": "x://meta", "mimeType": "text/plain", "text": "m"})
        self.assertEqual(server.read_resource("x://meta", "2025-06-18")["contents"][0]["_meta"], {"k": 1})

    def test_file_resources(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "a.txt")
            with open(path, "wb") as f:
                f.write("\ufeffcafé".encode("utf-8"))
            server = MCPServer("r")
            server.add_resource(mcp_ref.FileResource("file:///a.txt", path=path))
            server.add_resource(mcp_ref.FileResource("file:///a.bin", path=path, encoding=None))
            server.add_resource(mcp_ref.FileResource("file:///gone", path=os.path.join(folder, "gone")))
            self.assertEqual(server.read_resource("file:///a.txt")["contents"][0]["text"], "café")  # BOM dropped
            self.assertEqual(server.read_resource("file:///a.bin")["contents"][0]["blob"], "77u/Y2Fmw6k=")
            with contextlib.redirect_stderr(io.StringIO()):
                with self.assertRaisesRegex(mcp_ref.ResourceError, "Error reading resource file:///gone"):
                    server.read_resource("file:///gone")

    def test_messages(self) -> None:
        Message, UserMessage = mcp_ref.Message, mcp_ref.UserMessage
        self.assertEqual(UserMessage("hi").to_wire(), {"role": "user", "content": {"type": "text", "text": "hi"}})
        self.assertEqual(mcp_ref.AssistantMessage(mcp_ref.Image(data=b"\x00", format="png")).to_wire(), {
            "role": "assistant", "content": {"type": "image", "data": "AA==", "mimeType": "image/png"}})
        for content, error in [
            ({"type": "text"}, "lacks text"), ({"type": "video", "data": ""}, "has no known type"),
            ({"type": "resource", "resource": {"uri": "x://a"}}, "needs a uri, and a text or a blob"),
            (3, "A message's content is text or a content block, not int"),
        ]:
            with self.subTest(content=content):
                with self.assertRaisesRegex((ValueError, TypeError), error):
                    UserMessage(content)
        with self.assertRaisesRegex(ValueError, "A message's role is 'user' or 'assistant', not 'system'"):
            Message("x", role="system")
        self.assertEqual(UserMessage("a"), UserMessage("a"))
        self.assertEqual(repr(UserMessage("a")), "UserMessage(role='user', content={'type': 'text', 'text': 'a'})")

    def test_embedded_resources(self) -> None:
        # server/prompts, "Embedded Resources": MUST include a valid resource URI, the appropriate
        # MIME type, and a text or a base64 blob.  A missing MIME type is supplied (the SDK's is
        # optional); a URI without a scheme, a blob not base64, a MIME type not one are refused.
        UserMessage = mcp_ref.UserMessage
        self.assertEqual(UserMessage({"type": "resource", "resource": {"uri": "x://a", "text": "t"}}).to_wire(), {
            "role": "user", "content": {"type": "resource", "resource": {
                "uri": "x://a", "text": "t", "mimeType": "text/plain"}}})
        self.assertEqual(UserMessage(mcp_ref.EmbeddedResource(resource={"uri": "x:b", "blob": "AA=="})).to_wire(), {
            "role": "user", "content": {"type": "resource", "resource": {
                "uri": "x:b", "blob": "AA==", "mimeType": "application/octet-stream"}}})
        given = {"uri": "x://a", "text": "{}", "mimeType": "application/json"}
        self.assertEqual(UserMessage({"type": "resource", "resource": given}).to_wire()["content"]["resource"], given)
        for resource, error in [
            ({"uri": "not a uri", "text": "t"}, "Resource URI 'not a uri' is not a URI"),
            ({"uri": "x://a", "blob": "not base64!"}, "The blob of the embedded resource 'x://a' is not base64"),
            ({"uri": "x://a", "text": "t", "mimeType": 3}, "is no MIME type: 3"),
            ({"uri": "x://a", "text": 3}, "needs a uri, and a text or a blob"),
        ]:
            with self.subTest(resource=resource):
                with self.assertRaisesRegex(ValueError, error):
                    UserMessage({"type": "resource", "resource": resource})
        server = MCPServer("embedded")
        server.prompt(name="bad")(lambda: {"role": "user", "content": {"type": "resource", "resource": {
            "uri": "not a uri", "text": "t"}}})
        server.prompt(name="good")(lambda: UserMessage({"type": "resource", "resource": {"uri": "x://a",
                                                                                          "text": "t"}}))
        for version in ("2025-11-25", MODERN):
            with self.subTest(version=version):
                frames = Frames(server, version)
                self.assertEqual(frames.ask("prompts/get", {"name": "bad"}),
                                 {"error": {"code": -32603, "message": "Error rendering prompt bad"}})
                self.assertEqual(frames.ask("prompts/get", {"name": "good"})["result"]["messages"][0]["content"],
                                 {"type": "resource", "resource": {"uri": "x://a", "text": "t",
                                                                   "mimeType": "text/plain"}})

    def test_prompt_values(self) -> None:
        server = MCPServer("r")
        server.prompt(name="one")(lambda: mcp_ref.AssistantMessage("a"))
        server.prompt(name="tuple")(lambda: ("a", {"role": "assistant", "content": "b"}))
        server.prompt(name="value")(lambda: {"not": "a message"})
        server.prompt(name="number")(lambda: 1.5)
        self.assertEqual(server.get_prompt("one")["messages"], [
            {"role": "assistant", "content": {"type": "text", "text": "a"}}])
        self.assertEqual([m["role"] for m in server.get_prompt("tuple")["messages"]], ["user", "assistant"])
        self.assertEqual(server.get_prompt("number")["messages"][0]["content"]["text"], "1.5")
        with contextlib.redirect_stderr(io.StringIO()) as err:
            with self.assertRaisesRegex(ValueError, "^Error rendering prompt value$"):
                server.get_prompt("value")  # a dict is a message, as in the SDK: this one is not
        self.assertIn("A message is {'role': ..., 'content': ...}, not {'not': 'a message'}", err.getvalue())

    def test_prompt_arguments_are_listed_from_the_signature(self) -> None:
        server = MCPServer("r")

        @server.prompt(title="T", icons=[{"src": "data:,", "sizes": None}], meta={"m": 1})
        def p(a: str, b: int = 2, c: str = mcp_ref.Field(description="see")) -> str:
            """Doc."""
            return a

        self.assertEqual(server.list_prompts(), [{
            "name": "p", "title": "T", "description": "Doc.", "icons": [{"src": "data:,"}], "_meta": {"m": 1},
            "arguments": [{"name": "a", "required": True}, {"name": "b", "required": False},
                          {"name": "c", "description": "see", "required": True}]}])
        self.assertEqual(server.list_prompts("2025-06-18")[0].keys(),
                         {"name", "title", "description", "_meta", "arguments"})


def _cyclic() -> Dict[str, Any]:
    data: Dict[str, Any] = {}
    data["me"] = data
    return data


class DispatchTest(unittest.TestCase):
    def test_nothing_registered_is_nothing_offered(self) -> None:
        server = MCPServer("empty")
        frames = Frames(server, "2025-11-25")
        self.assertEqual(frames.handshake["result"]["capabilities"], {"logging": {}, "tools": {"listChanged": True}})
        for method in ("resources/list", "resources/templates/list", "resources/read", "resources/subscribe",
                       "prompts/list", "prompts/get", "completion/complete"):
            with self.subTest(method=method):
                self.assertEqual(frames.ask(method, {"uri": "x://a", "name": "p"}),
                                 {"error": {"code": -32601, "message": f"Method not found: {method}"}})
        server.resource("x://{a}", name="a")(lambda a: a)  # a template alone is resources too
        self.assertEqual(Frames(server, MODERN).ask("server/discover")["result"]["capabilities"],
                         {"logging": {}, "tools": {"listChanged": True},
                          "resources": {"subscribe": True, "listChanged": True}})

    def test_pages_and_cursors(self) -> None:
        server = MCPServer("pages", page_size=2)
        for n in range(3):
            server.add_resource(mcp_ref.TextResource(f"x://{n}", text=""))
            server.resource(f"t{n}://{{a}}", name=f"t{n}")(lambda a: a)
            server.prompt(name=f"p{n}")(lambda: "")
        frames = Frames(server, "2025-11-25")
        for method, key in (("resources/list", "resources"), ("resources/templates/list", "resourceTemplates"),
                            ("prompts/list", "prompts")):
            with self.subTest(method=method):
                first = frames.ask(method)["result"]
                self.assertEqual((len(first[key]), first["nextCursor"]), (2, "2"))
                second = frames.ask(method, {"cursor": "2"})["result"]
                self.assertEqual((len(second[key]), "nextCursor" in second), (1, False))
                for cursor in ("4", "-1", 2, "x"):
                    self.assertEqual(frames.ask(method, {"cursor": cursor})["error"]["code"], -32602)

    def test_the_servers_hints_are_checked_where_set(self) -> None:
        # server/utilities/caching: servers MUST provide a ttlMs >= 0; cacheScope is
        # "public" or "private".  Refused when made or set, never published.
        for options, message in (({"cache_ttl_ms": -5}, "cache_ttl_ms must be an integer >= 0 (milliseconds), "
                                                        "not -5"),
                                 ({"cache_ttl_ms": 1.5}, "cache_ttl_ms must be an integer >= 0 (milliseconds), "
                                                         "not 1.5"),
                                 ({"cache_ttl_ms": True}, "cache_ttl_ms must be an integer >= 0 (milliseconds), "
                                                          "not True"),
                                 ({"cache_scope": "shared"}, "cache_scope must be 'public' or 'private', not "
                                                             "'shared'")):
            with self.subTest(options=options):
                with self.assertRaises(ValueError) as raised:
                    MCPServer("cache", **options)
                self.assertEqual(str(raised.exception), message)
        server = MCPServer("cache")
        with self.assertRaises(ValueError):
            server.cache_ttl_ms = -1
        server.cache_ttl_ms = 5
        self.assertEqual(Frames(server, MODERN).ask("tools/list")["result"]["ttlMs"], 5)

    def test_caching_hints(self) -> None:
        server = MCPServer("cache", cache_ttl_ms=60000, cache_scope="public")
        server.add_resource(mcp_ref.TextResource("x://own", text="", cache_ttl_ms=5, cache_scope="private"))
        server.add_resource(mcp_ref.TextResource("x://server", text=""))
        server.resource("x://t/{a}", name="t", cache_ttl_ms=0)(lambda a: a)
        server.prompt(name="p")(lambda: "")
        modern = Frames(server, MODERN)
        for method in ("resources/list", "resources/templates/list", "prompts/list"):
            result = modern.ask(method)["result"]
            self.assertEqual((result["ttlMs"], result["cacheScope"]), (60000, "public"), method)
        for uri, hints in (("x://own", (5, "private")), ("x://server", (60000, "public")),
                           ("x://t/1", (0, "public"))):
            result = modern.ask("resources/read", {"uri": uri})["result"]
            self.assertEqual((result["ttlMs"], result["cacheScope"]), hints, uri)
        # Not cacheable: prompts/get and completion/complete; and no hints before 2026-07-28.
        self.assertNotIn("ttlMs", modern.ask("prompts/get", {"name": "p"})["result"])
        old = Frames(server, "2025-11-25")
        self.assertEqual(old.ask("resources/read", {"uri": "x://own"}), {"result": {"contents": [
            {"uri": "x://own", "mimeType": "text/plain", "text": ""}]}})

    def test_completion_is_rate_limited_per_client(self) -> None:
        # server/utilities/completion, "Security": "Implementations MUST: ... Implement appropriate
        # rate limiting".  A token bucket per connection (stdio's one client): completion_burst
        # at once, completion_rate a second; past it -32600, as past the task limits.
        server = MCPServer("limited", completion_rate=1, completion_burst=3)
        server.prompt(name="greet")(lambda name: name)
        server.completion()(lambda ref, argument, context: ["Ada"])
        now = [100.0]
        server._completion_limit.clock = lambda: now[0]
        ask = {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}}
        refused = {"error": {"code": -32600, "message": "Too many completion requests: this client may send 1 a "
                                                        "second, 3 at once; try again in 1000 ms"}}
        for version in ("2025-11-25", MODERN):
            with self.subTest(version=version):
                first, second = Frames(server, version), Frames(server, version)
                for _ in range(3):
                    self.assertEqual(first.ask("completion/complete", ask)["result"]["completion"]["values"], ["Ada"])
                self.assertEqual(first.ask("completion/complete", ask), refused)
                self.assertEqual(first.ask("completion/complete", {}), refused)  # before its params are read
                self.assertIn("result", first.ask("prompts/get", {"name": "greet", "arguments": {"name": "x"}}))
                self.assertIn("result", second.ask("completion/complete", ask))  # another client
                now[0] += 0.5
                self.assertTrue(first.ask("completion/complete", ask)["error"]["message"].endswith(
                    "; try again in 500 ms"))
                now[0] += 1.0
                self.assertIn("result", first.ask("completion/complete", ask))
                now[0] += 10
        unlimited = MCPServer("free", completion_rate=None)
        self.assertIsNone(unlimited._completion_limit)
        self.assertEqual((MCPServer("d")._completion_limit.rate, MCPServer("d")._completion_limit.burst), (20.0, 40))
        for options, message in (({"completion_rate": 0}, "completion_rate must be a number > 0 (requests a second) "
                                                         "or None, not 0"),
                                 ({"completion_rate": "5"}, "completion_rate must be a number > 0 (requests a "
                                                            "second) or None, not '5'"),
                                 ({"completion_burst": 0}, "completion_burst must be an integer >= 1, not 0"),
                                 ({"completion_burst": 2.5}, "completion_burst must be an integer >= 1, not 2.5")):
            with self.subTest(options=options):
                with self.assertRaises(ValueError) as raised:
                    MCPServer("bad", **options)
                self.assertEqual(str(raised.exception), message)

    def test_the_rate_limit_holds_for_any_timing(self) -> None:
        # Seeded: whatever the times, a client is granted at most burst + rate * t in any t seconds;
        # one that waits what a refusal says is granted; clients do not share a bucket; full
        # buckets are forgotten once there are many.
        rng = random.Random(20261207)
        for _ in range(50):
            rate, burst = rng.choice([0.5, 1.0, 20.0, 100.0]), rng.randint(1, 50)
            limit, now = mcp_ref._RateLimit(rate, burst), [0.0]
            limit.clock = lambda now=now: now[0]
            granted: Dict[int, List[float]] = {0: [], 1: []}
            for _ in range(300):
                now[0] += rng.expovariate(rate * rng.choice([0.5, 2, 10]))
                client = rng.randint(0, 1)
                wait = limit.take(client)
                if wait:
                    now[0] += wait
                    self.assertEqual(limit.take(client), 0.0)
                granted[client].append(now[0])
            for times in granted.values():
                for i, start in enumerate(times):
                    for j in range(i, len(times)):
                        self.assertLessEqual(j - i + 1, burst + rate * (times[j] - start) + 1e-6)
        limit, now = mcp_ref._RateLimit(1.0, 2), [0.0]
        limit.clock = lambda: now[0]
        for client in range(3000):
            now[0] += 0.01  # a client is full again 1 s after its request
            limit.take(client)
        self.assertLessEqual(len(limit.buckets), 1025)

    def test_bad_params(self) -> None:
        # 20: the reference and the argument are checked before the handler is called.
        frames = Frames(load_corpus().server, "2025-11-25")
        for method, params, message in [
            ("resources/read", {}, 'Invalid params: resources/read needs "uri" (a string)'),
            ("resources/read", {"uri": 5}, 'Invalid params: resources/read needs "uri" (a string)'),
            ("prompts/get", {}, 'Invalid params: prompts/get needs "name" (a string)'),
            ("prompts/get", {"name": "greet", "arguments": {"name": 1}},
             'Invalid params: "arguments" must be an object of strings'),
            ("prompts/get", {"name": "greet", "arguments": ["Ada"]},
             'Invalid params: "arguments" must be an object of strings'),
            ("completion/complete", {"argument": {"name": "a", "value": ""}},
             'Invalid params: "ref" is {"type": "ref/prompt", "name": ...} or {"type": "ref/resource", "uri": ...}'),
            ("completion/complete", {"ref": {"type": "ref/prompt", "name": "nope"}}, "Unknown prompt: nope"),
            ("completion/complete", {"ref": {"type": "ref/resource", "uri": "x://{a}"}},
             "Unknown resource template: x://{a}"),
            ("completion/complete", {"ref": {"type": "ref/prompt", "name": "greet"}},
             'Invalid params: "argument" needs "name" and "value" (strings)'),
            ("completion/complete", {"ref": {"type": "ref/prompt", "name": "greet"},
                                     "argument": {"name": "who", "value": ""}},
             "Invalid params: prompt greet has no argument 'who'"),
            ("completion/complete", {"ref": {"type": "ref/resource", "uri": "users://{user_id}/profile"},
                                     "argument": {"name": "id", "value": ""}},
             "Invalid params: resource template users://{user_id}/profile has no argument 'id'"),
            ("completion/complete", {"ref": {"type": "ref/prompt", "name": "greet"},
                                     "argument": {"name": "name", "value": ""}, "context": {"arguments": [1]}},
             'Invalid params: "context" is {"arguments": {name: string, ...}}'),
        ]:
            with self.subTest(method=method, params=params):
                self.assertEqual(frames.ask(method, params), {"error": {"code": -32602, "message": message}})

    def test_completion_values(self) -> None:
        server = MCPServer("c")
        server.prompt(name="p")(lambda a: a)
        answers: List[Any] = []
        server.completion()(lambda ref, argument, context: answers.pop())
        frames = Frames(server, "2025-11-25")
        params = {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "x"}}
        for answer, completion in [
            (None, {"values": []}), (["a", "b"], {"values": ["a", "b"]}),
            ({"values": ["a"], "hasMore": False}, {"values": ["a"], "hasMore": False}),
            (mcp_ref.Completion([str(n) for n in range(150)]),
             {"values": [str(n) for n in range(100)], "total": 150, "hasMore": True}),  # 20: at most 100
        ]:
            with self.subTest(answer=answer):
                answers.append(answer)
                self.assertEqual(frames.ask("completion/complete", params), {"result": {"completion": completion}})
        answers.append(mcp_ref.Completion([1]))
        self.assertEqual(frames.ask("completion/complete", params),
                         {"error": {"code": -32603, "message": "Error completing argument a"}})

    def test_completion_handler_arguments(self) -> None:
        seen: List[Any] = []
        server = MCPServer("c")
        server.resource("x://{a}/{b}", name="ab")(lambda a, b: a)
        server.completion()(lambda *args: seen.append(args))
        frames = Frames(server, MODERN)
        frames.ask("completion/complete", {"ref": {"type": "ref/resource", "uri": "x://{a}/{b}"},
                                           "argument": {"name": "b", "value": "v"},
                                           "context": {"arguments": {"a": "1"}}})
        ref, argument, context = seen[0]
        self.assertIsInstance(ref, mcp_ref.ResourceTemplateReference)
        self.assertEqual((ref.type, ref.uri, argument.name, argument.value, context.arguments),
                         ("ref/resource", "x://{a}/{b}", "b", "v", {"a": "1"}))

    def test_subscriptions(self) -> None:
        corpus = load_corpus()
        frames = Frames(corpus.server, "2025-11-25")
        self.assertEqual(frames.ask("resources/subscribe", {"uri": "config://app"}), {"result": {}})
        self.assertEqual(frames.ask("resources/subscribe", {"uri": "users://7/profile"}), {"result": {}})
        self.assertEqual(frames.ask("resources/subscribe", {"uri": "nothing://here"}), {"error": {
            "code": -32002, "message": "Unknown resource: nothing://here", "data": {"uri": "nothing://here"}}})
        corpus.server.notify_resource_updated("config://app")
        corpus.server.notify_resource_updated("users://7/profile")
        corpus.server.notify_resource_updated("greeting://hello")  # nobody subscribed
        self.assertEqual(frames.written, [
            {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "config://app"}},
            {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "users://7/profile"}}])
        self.assertEqual(frames.ask("resources/unsubscribe", {"uri": "config://app"}), {"result": {}})
        corpus.server.notify_resource_updated("config://app")
        self.assertEqual(len(frames.written), 2)
        self.assertEqual(Frames(corpus.server, MODERN).ask("resources/subscribe", {"uri": "config://app"}),
                         {"error": {"code": -32601, "message": "Method not found: resources/subscribe"}})
        frames.ask("resources/unsubscribe", {"uri": "users://7/profile"})

    def test_nothing_a_function_raises_ends_the_server(self) -> None:
        # SystemExit and KeyboardInterrupt too: they would end the thread that reads stdin.
        def leave() -> str:
            raise SystemExit(3)

        def interrupt(*args: Any) -> None:
            raise KeyboardInterrupt

        server = MCPServer("raises")
        server.resource("x://exit")(leave)
        server.resource("x://{a}", name="t")(lambda a: leave())
        server.prompt()(leave)
        server.completion()(interrupt)
        frames = Frames(server, "2025-11-25")
        for method, params, message in [
            ("resources/read", {"uri": "x://exit"}, "Error reading resource x://exit"),
            ("resources/read", {"uri": "x://1"}, "Error creating resource from template x://1"),
            ("prompts/get", {"name": "leave"}, "Error rendering prompt leave"),
            ("completion/complete", {"ref": {"type": "ref/resource", "uri": "x://{a}"},
                                     "argument": {"name": "a", "value": ""}}, "Error completing argument a"),
        ]:
            with self.subTest(method=method):
                self.assertEqual(frames.ask(method, params)["error"]["message"], message)
                self.assertEqual(frames.ask(method, params)["error"]["code"], -32603)

    def test_result_size_limit(self) -> None:
        server = MCPServer("big", max_result_bytes=1000)
        server.resource("x://big", name="big")(lambda: "x" * 5000)
        self.assertEqual(Frames(server).ask("resources/read", {"uri": "x://big"}), {"error": {
            "code": -32603, "data": {"uri": "x://big"},
            "message": "Error reading resource x://big: at least 5000 bytes, over this server's limit of 1000"}})


class ContextTest(unittest.TestCase):
    """A template's or a prompt's parameter annotated Context is the server's to fill."""

    def test_a_prompt_asks_first(self) -> None:
        """2026-07-28: a prompt may return an InputRequiredResult (basic/patterns/mrtr);
        the retry's answers are ctx.input_responses, its requestState is checked."""
        server = mcp_ref.MCPServer("mrtr", request_state_key="k")
        question = {"method": "elicitation/create", "params": {
            "message": "Context?", "requestedSchema": {"type": "object", "properties": {"c": {"type": "string"}}}}}

        @server.prompt()
        def asks(ctx: mcp_ref.Context):  # type: ignore[no-untyped-def]
            answer = (ctx.input_responses or {}).get("c")
            if answer:
                return f"with {answer['content']['c']} ({ctx.request_state})"
            return mcp_ref.InputRequiredResult(input_requests={"c": question}, request_state="r1")

        rpc = mcp_ref._Dispatcher(server)
        meta = dict(META, **{"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}})
        first = rpc.prompts_get({"name": "asks", "_meta": meta}, MODERN)
        self.assertEqual((first["resultType"], first["inputRequests"]), ("input_required", {"c": question}))
        retry = {"name": "asks", "_meta": meta, "requestState": first["requestState"],
                 "inputResponses": {"c": {"action": "accept", "content": {"c": "x"}}}}
        self.assertEqual(rpc.prompts_get(retry, MODERN)["messages"][0]["content"]["text"], "with x (r1)")
        with self.assertRaises(mcp_ref._RpcError) as caught:
            rpc.prompts_get(dict(retry, requestState=first["requestState"] + "x"), MODERN)
        self.assertEqual(caught.exception.code, -32602)
        with self.assertRaises(mcp_ref._RpcError) as caught:  # the client cannot take the question
            rpc.prompts_get({"name": "asks", "_meta": META}, MODERN)
        self.assertEqual(caught.exception.code, -32021)

    def test_an_mcp_error_is_passed_on(self) -> None:
        # As the SDK does: the function's MCPError is the response's error.
        server = mcp_ref.MCPServer("ctx")

        @server.resource("data://{name}")
        def refuses(name: str) -> str:
            raise mcp_ref.MCPError(-32042, f"no {name} today", {"retry": True})

        @server.prompt()
        def refuses_too() -> str:
            raise mcp_ref.MCPError(-32042, "not now")

        for version in ("2025-11-25", MODERN):
            # 2026-07-28 forbids -32042 (basic/index, "Error Codes"): -32603 there (docs/sdk-differences.md, 52).
            code = -32603 if version == MODERN else -32042
            frames = Frames(server, version)
            self.assertEqual(frames.ask("resources/read", {"uri": "data://x"}), {"error": {
                "code": code, "message": "no x today", "data": {"retry": True}}})
            self.assertEqual(frames.ask("prompts/get", {"name": "refuses_too"}), {"error": {
                "code": code, "message": "not now"}})

    def test_a_tool_reads_a_resource(self) -> None:
        server = mcp_ref.MCPServer("ctx")
        server.add_resource(mcp_ref.TextResource(uri="data://a", text="A"))
        server.add_resource(mcp_ref.BinaryResource(uri="data://b", data=b"\x89PNG", mime_type="image/png"))

        @server.tool()
        async def both(ctx: mcp_ref.Context) -> str:
            text, blob = (await ctx.read_resource("data://a"))[0], (await ctx.read_resource("data://b"))[0]
            return f"{text.content} {text.mime_type} {blob.content!r} {blob.mime_type}"

        @server.tool()
        def missing(ctx: mcp_ref.Context) -> str:
            try:
                ctx.read_resource("data://zz")
            except mcp_ref.ResourceNotFoundError as exc:
                return f"not found: {exc}"
            return "found"

        self.assertEqual(server.call_tool("both", {})["content"][0]["text"], "A text/plain b'\\x89PNG' image/png")
        self.assertTrue(server.call_tool("missing", {})["content"][0]["text"].startswith("not found: "))


LISTEN_SERVER = """
import sys
sys.path.insert(0, %r)
from mcp_ref import Context, MCPServer

mcp = MCPServer("listen")


@mcp.resource("data://a")
def a() -> str:
    return "A"


@mcp.tool()
def change(ctx: Context) -> str:
    ctx.notify_resource_updated("data://a")
    ctx.notify_resource_updated("data://b")  # no stream subscribed to it
    mcp.add_prompt(mcp_prompt)
    return "changed"


def hello() -> str:
    return "hi"


from mcp_ref import Prompt  # noqa: E402
mcp_prompt = Prompt.from_function(hello)
mcp.run()
"""


class ListenTest(unittest.TestCase):
    """subscriptions/listen (2026-07-28) for resources and prompts."""

    def test_context_announces_list_changes_to_every_connection(self) -> None:
        server = mcp_ref.MCPServer("notify")
        told: List[str] = []

        class Connection:  # what the server announces to, as _Connection.list_changed takes it
            def list_changed(self, kind: str) -> None:
                told.append(kind)

        @server.tool()
        def announce(ctx: mcp_ref.Context) -> str:
            ctx.notify_tools_changed()
            ctx.notify_prompts_changed()
            ctx.notify_resources_changed()
            return "told"

        server._connections.append(Connection())
        server.call_tool("announce", {})
        self.assertEqual(told, ["tools", "prompts", "resources"])

    def test_updates_and_list_changes_reach_the_streams_that_asked(self) -> None:
        import subprocess

        folder = tempfile.mkdtemp()
        path = os.path.join(folder, "listen_server.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(LISTEN_SERVER % HERE)
        lines = [{"jsonrpc": "2.0", "id": "s", "method": "subscriptions/listen",
                  "params": {"_meta": META, "notifications": {"resourceSubscriptions": ["data://a"],
                                                              "promptsListChanged": True}}},
                 {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                  "params": {"name": "change", "arguments": {}, "_meta": META}}]
        done = subprocess.run(python_command(path), input="".join(json.dumps(m) + "\n" for m in lines).encode(),
                              capture_output=True, timeout=30)
        frames = [json.loads(line) for line in done.stdout.splitlines()]
        sub = {"io.modelcontextprotocol/subscriptionId": "s"}
        self.assertEqual(frames[:3], [
            {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
             "params": {"notifications": {"promptsListChanged": True, "resourceSubscriptions": ["data://a"]},
                        "_meta": sub}},
            {"jsonrpc": "2.0", "method": "notifications/resources/updated",
             "params": {"uri": "data://a", "_meta": sub}},
            {"jsonrpc": "2.0", "method": "notifications/prompts/list_changed", "params": {"_meta": sub}}])
        self.assertEqual(frames[3]["id"], 2)
        self.assertEqual(len(frames), 4)


if __name__ == "__main__":
    unittest.main()

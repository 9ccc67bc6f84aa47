"""examples/everything_sdk.py, the conformance fixture as a server written for
the official SDK, and the import rewrite .ci/conformance.py applies to it.

* The rewrite (``--rewrite-imports``) on whole sources: every ``from mcp...
  import`` line, or only some names; other lines untouched.
* The fixture is examples/everything.py for the SDK: with the SDK installed,
  it loads on the SDK's own MCPServer and registers the same tools,
  resources, templates and prompts as examples/everything.py on mcp_ref's
  (the conformance suite serves both).  Without the SDK these skip.

The conformance runs themselves (the SDK serving it, and mcp_ref two ways)
are .ci/run's: they take minutes.
"""

from tests._testing import HERE  # the repository's root

import asyncio
import importlib.util
import os
import runpy
import sys
import unittest
from typing import Set, Tuple

import mcp_ref


SPEC = importlib.util.spec_from_file_location("_ci_conformance", os.path.join(HERE, ".ci", "conformance.py"))

assert SPEC is not None and SPEC.loader is not None

conformance = importlib.util.module_from_spec(SPEC)

SPEC.loader.exec_module(conformance)


HAVE_SDK = importlib.util.find_spec("mcp") is not None and importlib.util.find_spec("pydantic") is not None


SOURCE = '''import json
from mcp.server import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer, RequestStateSecurity
from mcp.types import (
    AudioContent,
    TextContent as Text,
)
from pydantic import Field
import mcp_ref
mcp = MCPServer("x")  # from mcp.types import X, in a string, is not an import line
'''


class RewriteTest(unittest.TestCase):
    def test_every_mcp_import_from_mcp_ref(self) -> None:
        self.assertEqual(conformance.rewrite_imports(SOURCE, None), '''import json
from mcp_ref import ServerRequestContext
from mcp_ref import Context, MCPServer, RequestStateSecurity
from mcp_ref import (
    AudioContent,
    TextContent as Text,
)
from pydantic import Field
import mcp_ref
mcp = MCPServer("x")  # from mcp.types import X, in a string, is not an import line
''')

    def test_only_the_names_given(self) -> None:
        self.assertEqual(conformance.rewrite_imports(SOURCE, ["MCPServer"]), '''import json
from mcp.server import ServerRequestContext
from mcp.server.mcpserver import Context, RequestStateSecurity
from mcp_ref import MCPServer
from mcp.types import (
    AudioContent,
    TextContent as Text,
)
from pydantic import Field
import mcp_ref
mcp = MCPServer("x")  # from mcp.types import X, in a string, is not an import line
''')

    def test_names_moved_out_of_a_parenthesised_import_and_a_whole_line(self) -> None:
        rewritten = conformance.rewrite_imports(SOURCE, ["TextContent", "ServerRequestContext"])
        self.assertIn("from mcp_ref import ServerRequestContext\nfrom mcp.server.mcpserver import", rewritten)
        self.assertIn("from mcp.types import AudioContent\nfrom mcp_ref import TextContent as Text\n", rewritten)
        self.assertNotIn("from mcp.server import", rewritten)

    def test_an_import_the_rewrite_cannot_take_is_refused(self) -> None:
        with self.assertRaises(SystemExit) as caught:
            conformance.rewrite_imports("import mcp.types\n", None)
        self.assertIn("only `from mcp... import`", str(caught.exception))

    def test_the_fixture_keeps_no_mcp_import_once_rewritten(self) -> None:
        with open(os.path.join(HERE, "examples", "everything_sdk.py"), encoding="utf-8") as f:
            source = f.read()
        rewritten = conformance.rewrite_imports(source, None)
        self.assertEqual([line for line in rewritten.splitlines() if line.startswith(("from mcp.", "import mcp"))], [])
        self.assertIn("from mcp_ref import Context, Elicit, ElicitationResult, MCPServer,", rewritten)
        moved = conformance.rewrite_imports(source, ["MCPServer"])
        self.assertEqual([line for line in moved.splitlines() if line.startswith("from mcp_ref")],
                         ["from mcp_ref import MCPServer"])


# examples/everything.py's tools for the tasks extension's scenarios (its "tasks" block).
TASK_TOOLS = {"greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input",
              "test_tool_with_task"}


def _ours() -> Tuple[Set[str], Set[str], Set[str], Set[str]]:
    """examples/everything.py's tools, resources, templates and prompts on mcp_ref."""
    server = mcp_ref._load_server(os.path.join(HERE, "examples", "everything.py"))
    return ({t["name"] for t in server.list_tools()}, {r["uri"] for r in server.list_resources()},
            {t["uriTemplate"] for t in server.list_resource_templates()}, {p["name"] for p in server.list_prompts()})


@unittest.skipUnless(HAVE_SDK, "the official SDK (pip install 'mcp==2.3.*') is not installed; .ci/run installs it")
class FixtureTest(unittest.TestCase):
    def test_the_sdk_serves_what_everything_py_serves(self) -> None:
        saved = sys.argv[:]
        try:
            server = runpy.run_path(os.path.join(HERE, "examples", "everything_sdk.py"), run_name="fixture")["mcp"]
        finally:
            sys.argv[:] = saved
        self.assertEqual(type(server).__module__, "mcp.server.mcpserver.server")

        async def listed() -> Tuple[Set[str], Set[str], Set[str], Set[str]]:
            return ({t.name for t in await server.list_tools()}, {str(r.uri) for r in await server.list_resources()},
                    {t.uri_template for t in await server.list_resource_templates()},
                    {p.name for p in await server.list_prompts()})

        tools, resources, templates, prompts = asyncio.run(listed())
        our_tools, our_resources, our_templates, our_prompts = _ours()
        # everything.py gains its hand-written-schema tool with add_tool(input_schema=...), and serves
        # the tasks scenarios' tools, which the SDK cannot (it has no tasks: docs/sdk-differences.md, 44)
        self.assertEqual(tools, (our_tools - TASK_TOOLS) | {"json_schema_2020_12_tool"})
        self.assertEqual((resources, templates, prompts), (our_resources, our_templates, our_prompts))


if __name__ == "__main__":
    unittest.main()

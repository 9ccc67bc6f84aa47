"""Real clients (interop) as the layers refine it: the tests of the topic that need a layer
(SDK fidelity, patterns, the client, the command line or the accelerators); the
core's own are in tests/core/test_interop.py.

Real clients against the example servers.

* The official Python SDK's client (``mcp`` 2.3.x), in its default mode (which
  probes ``server/discover`` and lands on 2026-07-28) and in legacy mode: every
  tool of every example, and the resources, templates, prompts and completions
  of examples/notes.py, compared with the same file served by the SDK's own
  MCPServer (testdata/sdk_launcher.py).
* The TypeScript SDK's client (npm ``@modelcontextprotocol/sdk``), driven by
  testdata/ts_client.mjs.

Both are test-only: .ci/run installs them; without them these tests skip and
say why.
"""

import json
import os
import subprocess
import sys
import unittest

from tests._testing import HERE, needs_layers, wait_for_port  # (HERE: the repository's root)

from tests.core.test_interop import EXAMPLES, HAVE_SDK, HAVE_TS_SDK, LAUNCHER, NODE_DIR, normalise


@unittest.skipUnless(HAVE_SDK, "the official SDK (pip install 'mcp==2.3.*') is not installed; .ci/run installs it")
@needs_layers("cli", "client")
class CliAgainstTheSdkTest(unittest.TestCase):
    """Our command line (a client) against the SDK serving the same file, over
    stdio and over Streamable HTTP."""

    def test_cli_talks_to_the_sdk_server(self) -> None:
        # Our command line is a client too: against the SDK serving the same file.
        path = os.path.join(HERE, "examples", "weather.py")
        for protocol in ("2026-07-28", "2025-06-18"):
            run = subprocess.run([sys.executable, os.path.join(HERE, "mcp_ref.py"), "call",
                                  f"{sys.executable} {LAUNCHER} {path}", "get_temperature", "city=London",
                                  "--protocol", protocol], capture_output=True, text=True, timeout=60)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIn('structuredContent:\n  {\n    "result": 17\n  }', run.stdout)

    def test_cli_talks_to_the_sdk_server_over_http(self) -> None:
        # Our command line as an HTTP client, against the SDK's Streamable HTTP app (under uvicorn).
        import socket

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = subprocess.Popen([sys.executable, LAUNCHER, os.path.join(HERE, "examples", "weather.py"), "--http",
                                   str(port)], stderr=subprocess.DEVNULL)
        try:
            wait_for_port(port)
            for protocol in ("2026-07-28", "2025-11-25", "2025-03-26"):
                run = subprocess.run([sys.executable, os.path.join(HERE, "mcp_ref.py"), "call",
                                      f"http://127.0.0.1:{port}/mcp", "get_temperature", "city=London", "--protocol",
                                      protocol], capture_output=True, text=True, timeout=60)
                self.assertEqual(run.returncode, 0, run.stderr)
                self.assertTrue(run.stdout.startswith("content:\n  17\n"), run.stdout)
        finally:
            server.terminate()
            server.wait(10)

    def test_cli_reads_from_the_sdk_server(self) -> None:
        # Our command line against the SDK serving the same file, in both eras.
        path = os.path.join(HERE, "examples", "notes.py")
        for protocol in ("2026-07-28", "2025-06-18"):
            for args, expected in ((["read", "notes://ideas"], "notes://ideas (text/plain)\n  A server in one file.\n"),
                                   (["prompt", "summarize", "title=todo"], "  Write the README.\n")):
                run = subprocess.run([sys.executable, os.path.join(HERE, "mcp_ref.py"), args[0],
                                      f"{sys.executable} {LAUNCHER} {path}", *args[1:], "--protocol", protocol],
                                     capture_output=True, text=True, timeout=60)
                self.assertEqual(run.returncode, 0, run.stderr)
                self.assertTrue(run.stdout.endswith(expected), run.stdout)


@unittest.skipUnless(HAVE_TS_SDK,
                     f"node or the TypeScript SDK is missing (npm install --prefix {NODE_DIR} "
                     "@modelcontextprotocol/sdk); .ci/run installs it")
class TypeScriptClientTest(unittest.TestCase):
    def test_weather_example(self) -> None:
        sys.path.insert(0, HERE)
        from tests._testing import copy_into, load_example

        driver = os.path.join(NODE_DIR, "ts_client.mjs")
        copy_into(os.path.join(HERE, "tests", "testdata", "ts_client.mjs"), driver)
        calls = EXAMPLES["examples/weather.py"]
        run = subprocess.run(["node", driver, sys.executable, os.path.join(HERE, "examples", "weather.py"),
                              json.dumps(calls)], capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        out = json.loads(run.stdout)
        self.assertEqual(out["server"], {"name": "Weather", "version": ""})
        module = load_example("weather_ts")
        self.assertEqual(out["tools"], module.mcp.list_tools("2025-11-25"))
        for (name, arguments), got in zip(calls, out["results"]):
            with self.subTest(tool=name):
                expected = module.mcp.call_tool(name, arguments, protocol_version="2025-11-25")
                self.assertEqual(normalise(got), normalise(expected))


    def test_weather_example_over_http(self) -> None:
        from tests.core.test_http import ServerProcess

        from tests._testing import copy_into

        driver = os.path.join(NODE_DIR, "ts_http_client.mjs")
        copy_into(os.path.join(HERE, "tests", "testdata", "ts_http_client.mjs"), driver)
        calls = EXAMPLES["examples/weather.py"]
        server = ServerProcess(command=[sys.executable, os.path.join(HERE, "mcp_ref.py"), "serve",
                                        os.path.join(HERE, "examples", "weather.py"), "--http", "127.0.0.1:0"])
        try:
            run = subprocess.run(["node", driver, f"http://127.0.0.1:{server.port}/mcp", json.dumps(calls)],
                                 capture_output=True, text=True, timeout=120)
        finally:
            server.stop()
        self.assertEqual(run.returncode, 0, run.stderr)
        out = json.loads(run.stdout)
        self.assertEqual(out["server"], {"name": "Weather", "version": ""})
        self.assertRegex(out["sessionId"], r"^[0-9a-f]{32}$")
        sys.path.insert(0, HERE)
        from tests._testing import load_example

        module = load_example("weather_ts_http")
        self.assertEqual(out["tools"], module.mcp.list_tools(out["protocolVersion"]))
        for (name, arguments), got in zip(calls, out["results"]):
            with self.subTest(tool=name):
                expected = module.mcp.call_tool(name, arguments, protocol_version=out["protocolVersion"])
                self.assertEqual(normalise(got), normalise(expected))


if __name__ == "__main__":
    unittest.main()

"""The README's examples, executed: its Python blocks run, its console blocks'
commands (other than the test command itself) print what the README shows,
and its client configuration names a server that exists."""

import json
import os
import re
import subprocess
import sys
import unittest
from typing import List, Tuple

from tests._testing import HERE  # the repository's root


with open(os.path.join(HERE, "README.md"), encoding="utf-8") as _f:
    README = _f.read()


def blocks(language: str) -> List[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", README, flags=re.S | re.M)


def console_commands() -> List[Tuple[str, str]]:
    """(command, expected output) for every "$ python mcp_ref.py ..." line."""
    out = []
    for block in blocks("console"):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = chunk.partition("\n")
            out.append((command, output))
    return out


class ReadmeTest(unittest.TestCase):
    def test_python_blocks_run(self) -> None:
        python_blocks = blocks("python")
        self.assertGreaterEqual(len(python_blocks), 2)
        sys.path.insert(0, HERE)
        for code in python_blocks:
            with self.subTest(code=code[:60]):
                exec(compile(code, "README.md", "exec"), {"__name__": "readme_example"})

    def test_quickstart_block_is_the_example(self) -> None:
        server = blocks("python")[0]
        with open(os.path.join(HERE, "examples", "quickstart.py"), encoding="utf-8") as f:
            example = f.read()
        for function in ("def add(a: int, b: int = 1) -> int:", "def describe(name: str, tags: list[str]) -> Person:"):
            self.assertIn(function, server)
            self.assertIn(function, example)

    def test_console_commands(self) -> None:
        commands = console_commands()
        self.assertIn("python -m unittest", [c for c, _ in commands])
        ran = 0
        for command, expected in commands:
            if not command.startswith("python mcp_ref.py"):
                continue  # the test command: this very run
            with self.subTest(command=command):
                argv = [sys.executable] + command.split()[1:]
                run = subprocess.run(argv, cwd=HERE, capture_output=True, text=True, timeout=60)
                self.assertIn(run.returncode, (0, 1), run.stderr)
                self.assertEqual(run.stdout, expected, run.stderr)  # (why, when stdout is not what the README says)
                ran += 1
        self.assertGreaterEqual(ran, 2)

    def test_client_configuration(self) -> None:
        config = json.loads(blocks("json")[0])
        server = config["mcpServers"]["weather"]
        self.assertEqual(server["command"], "python3")
        self.assertTrue(os.path.exists(os.path.join(HERE, "examples", os.path.basename(server["args"][0]))))

    def test_error_text_is_the_documented_one(self) -> None:
        sys.path.insert(0, HERE)
        from tests._testing import load_example

        text = load_example("weather_readme").mcp.call_tool("get_weather_upstream", {"city": "London"})[
            "content"][0]["text"]
        documented = blocks("text")[0].strip()
        self.assertEqual(text.replace("get_weather_upstream", "get_weather"), documented)


if __name__ == "__main__":
    unittest.main()

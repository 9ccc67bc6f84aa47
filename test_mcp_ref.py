"""mcp_ref as a whole: the examples in its module docstring (the quick start,
and one per row of the structured-output table) run as tests, in both modes.

The tests of each section are in the module named for it:

    3       Type introspection        test_introspection.py
    4, 8    Values as JSON, Content   test_content.py
    5       JSON Schema generation    test_schema.py
    6       Validation                test_validation.py (the lax modes through tools: test_arguments.py,
    21, 22  SDK fidelity: unions,     test_content.py, test_tools.py)
            error texts, lax
            conversions
    7       Arguments                 test_arguments.py
    7, 9    with pydantic             test_pydantic.py
    9, 14   Tools, MCPServer          test_tools.py
    10, 11  Resources, prompts and    test_resources.py
            completion
    12, 13  Context, Resolvers        test_context.py
    15-17   Dispatch, Connections,    test_wire.py, test_robustness.py, test_faults.py, test_interop.py
            stdio
    18-20   Streamable HTTP, access   test_http.py
            control, HTTP server
    23      Patterns                  test_patterns.py
    24, 25  A client, Command line    test_cli.py
    26      Accelerators              test_accelerators.py

Also here: the file's shape (SectionsTest): its sections numbered in order, each
in the docstring's table of contents, none longer than about 800 lines, and no
function longer than 60.

What they share is in _testing.py.
"""

import ast
import doctest
import re
import unittest
from typing import List, Tuple

from _testing import BOTH, accelerators, mcp_ref


class DoctestTest(unittest.TestCase):
    """The module docstring's examples are tests too (under unittest and pytest alike)."""

    def test_docstring_examples(self) -> None:
        for on in BOTH:
            with self.subTest(accelerated=on), accelerators(on):
                result = doctest.testmod(mcp_ref, optionflags=doctest.ELLIPSIS, verbose=False)
                self.assertGreater(result.attempted, 5)
                self.assertEqual(result.failed, 0)



# A section opens with a banner: a rule, "# N. Title", a rule.
_BANNER = re.compile(r"^# -{20,}\n# (\d+)\. (.+)\n# -{20,}$", re.M)
# A row of the docstring's table of contents: "    12. Tools                   registration; ..."
_TOC_ROW = re.compile(r"^ {3,5}(\d+)\. (\S.*?)(?: {2,}|$)", re.M)
MAX_SECTION_LINES = 850  # "about 800"
MAX_FUNCTION_LINES = 60


def _sections(source: str) -> List[Tuple[int, str, int]]:
    """(number, title, length in lines) of each section, in file order."""
    found = [(int(m.group(1)), m.group(2), source.count("\n", 0, m.start())) for m in _BANNER.finditer(source)]
    ends = [start for _, _, start in found[1:]] + [source.count("\n")]
    return [(number, title, end - start) for (number, title, start), end in zip(found, ends)]


class SectionsTest(unittest.TestCase):
    """mcp_ref.py reads as the docstring's table of contents says: one topic per
    section, in order, each short enough to read, with short functions."""

    source: str
    sections: List[Tuple[int, str, int]]

    @classmethod
    def setUpClass(cls) -> None:
        with open(str(mcp_ref.__file__), encoding="utf-8") as f:
            cls.source = f.read()
        cls.sections = _sections(cls.source)

    def test_sections_numbered_in_order(self) -> None:
        numbers = [number for number, _, _ in self.sections]
        self.assertGreater(len(numbers), 10)
        self.assertEqual(numbers, list(range(1, len(numbers) + 1)))

    def test_table_of_contents_lists_the_sections(self) -> None:
        doc = ast.get_docstring(ast.parse(self.source)) or ""
        contents = doc[doc.index("Contents, in the order data flows"):]
        contents = contents[:contents.index("\n\n", contents.index("\n\n") + 2)]
        rows = [(int(m.group(1)), m.group(2)) for m in _TOC_ROW.finditer(contents)]
        # A banner may add a subtitle: "9. Patterns: ECMA-262 regular expressions ...".
        headers = [(number, title.split(":")[0]) for number, title, _ in self.sections]
        self.assertEqual(rows, headers)

    def test_no_section_too_long(self) -> None:
        long = [(number, title, length) for number, title, length in self.sections if length > MAX_SECTION_LINES]
        self.assertEqual(long, [])

    def test_no_function_too_long(self) -> None:
        functions = [node for node in ast.walk(ast.parse(self.source))
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
        lengths = [(node.name, node.lineno, (node.end_lineno or node.lineno) - node.lineno + 1) for node in functions]
        long = [(name, line, length) for name, line, length in lengths if length > MAX_FUNCTION_LINES]
        self.assertEqual(long, [])


if __name__ == "__main__":
    unittest.main()

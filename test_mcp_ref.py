"""mcp_ref as a whole: the examples in its module docstring (the quick start,
and one per row of the structured-output table) run as tests, in both modes.

The tests of each section are in the module named for it:

    3       Type introspection        test_introspection.py
    4, 8    Values as JSON, Content   test_content.py
    5, 24   JSON Schema generation,   test_schema.py
            schema shapes
    6       Validation                test_validation.py (the lax modes through tools: test_arguments.py,
    22, 23, SDK fidelity: unions,     test_content.py, test_tools.py)
    27      error texts, lax
            conversions and checks
    7       Arguments                 test_arguments.py
    7, 9    with pydantic             test_pydantic.py
    9, 14   Tools, MCPServer          test_tools.py
    10, 11, Resources, prompts and    test_resources.py
    27      completion; URI templates
    12, 13  Context, request state    test_context.py
    25      the SDK's API: resolvers, test_context.py
            ctx.session
    26      the SDK's names, objects, test_sdk_names.py, test_sdk_objects.py, test_hand_written.py
            keywords, FastMCP, run()
    9-11,   MCPError as the SDK       test_sdk_errors.py
    14, 26  sends it
    5, 24,  Field(json_schema_extra), test_sdk_schemas.py
    26      InputRequiredResult unions
    15, 17, Dispatch, Connections,    test_wire.py, test_robustness.py, test_faults.py, test_interop.py,
    18      stdio                     test_malformed.py
    16      Tasks                     test_tasks.py
    19-21,  Streamable HTTP, SSE      test_http.py, test_http_streams.py (resumable streams, announcements),
    33      streams, access control,  test_http_sessions.py (several users: sessions, limits per client,
            HTTP server               the fair pool), test_http_faults.py (seeded faults over sockets)
    28      Patterns                  test_patterns.py
    29-32   A client, Command line    test_client.py, test_oauth.py, test_cli.py
    34      Accelerators              test_accelerators.py

Also here: the file's shape (SectionsTest): its sections numbered in order, each
in the docstring's table of contents, and no function longer than 60 (a section
is as long as its topic; issue 34 retired the caps on section and spec-path
lines); the spec path first, each of its sections citing a page and naming
pydantic only at a hook, and the fenced sections after it (SDK fidelity, patterns, client, command
line, accelerators), whose head tables name real functions in the sections they
say; each rule names its accelerator or hook where it is written; the spec path
reaches the fences only through what their tables list; a name given with a
section is defined there; the README quotes no figure about the file that is
not true.

What they share is in _testing.py.
"""

import ast
import doctest
import re
import unittest
from typing import Dict, List, Tuple

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
MAX_FUNCTION_LINES = 60
# The fenced sections: not MCP's rules, but what serves them (issue 22).
_FENCE = re.compile(r"fidelity|pattern|client|command line|accelerator", re.I)
# What counts as citing a page: the spec's paths, an RFC, JSON-RPC, JSON Schema, the structured-output page.
_CITE = re.compile(r"\b(basic/|server/|client/|RFC ?\d+|specification|JSON-RPC 2\.0|2020-12|structured-output)")
# A row of a fence's head table: "#   name   rule (section N)   what ...".
_TABLE_ROW = re.compile(r"^#   ([A-Za-z_][\w.]*) {2,}(\S.*)$")
_RULE_AT = re.compile(r"^([A-Za-z_][\w.]*) \(section (\d+)\)")


def _definitions(source: str) -> Dict[str, Tuple[int, int, int]]:
    """Each top-level name and each method ("Class.method"): (line of its first
    comment or decorator, last line, its section's number)."""
    lines = source.split("\n")
    banners = [(i + 1, int(m.group(1))) for i, line in enumerate(lines) if (m := re.match(r"^# (\d+)\. ", line))]

    def section(line: int) -> int:
        return max((number for start, number in banners if start <= line), default=0)

    def span(node: ast.AST) -> Tuple[int, int, int]:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])  # type: ignore
        while first > 1 and lines[first - 2].lstrip().startswith("#") and not lines[first - 2].startswith("# ---"):
            first -= 1
        return first, node.end_lineno or node.lineno, section(node.lineno)  # type: ignore

    found: Dict[str, Tuple[int, int, int]] = {}
    for node in ast.parse(source).body:
        names = [node.name] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else \
            [t.id for t in getattr(node, "targets", [getattr(node, "target", None)]) if isinstance(t, ast.Name)]
        for name in names:
            found[name] = span(node)
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found[f"{node.name}.{member.name}"] = span(member)
    return found


def _table(source: str, number: int) -> List[Tuple[str, str]]:
    """The rows (first column, the rest) of the head table of section ``number``."""
    start = re.search(rf"^# {number}\. ", source, re.M)
    assert start is not None
    head = source[start.end():].split("\n")
    rows, inside = [], False
    for line in head[2:]:
        if not line.startswith("#"):
            break
        if line.startswith("#   ---"):
            inside = True
        elif inside and line.strip() == "#":
            break
        elif inside and (m := _TABLE_ROW.match(line)):
            rows.append((m.group(1), m.group(2)))
    return rows


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

    def test_no_function_too_long(self) -> None:
        functions = [node for node in ast.walk(ast.parse(self.source))
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
        lengths = [(node.name, node.lineno, (node.end_lineno or node.lineno) - node.lineno + 1) for node in functions]
        long = [(name, line, length) for name, line, length in lengths if length > MAX_FUNCTION_LINES]
        self.assertEqual(long, [])

    # -- the spec path first, the fences after (issue 22) ------------------------------

    def _spec_path(self) -> List[Tuple[int, str, int]]:
        return [section for section in self.sections if not _FENCE.search(section[1])]

    def _section_lines(self, number: int) -> List[str]:
        start = re.search(rf"^# {number}\. ", self.source, re.M)
        end = re.search(rf"^# {number + 1}\. ", self.source, re.M)
        assert start is not None
        return self.source[start.start():end.start() if end else len(self.source)].split("\n")

    def test_fences_come_after_the_spec_path(self) -> None:
        fenced = [bool(_FENCE.search(title)) for _, title, _ in self.sections]
        self.assertIn(True, fenced)
        first = fenced.index(True)
        self.assertEqual(fenced[first:], [True] * (len(fenced) - first))

    def test_spec_path_sections_cite_a_page(self) -> None:
        uncited = [(number, title) for number, title, _ in self._spec_path()
                   if not any(_CITE.search(line) for line in self._section_lines(number))]
        self.assertEqual(uncited, [])

    def test_fence_tables_name_real_functions_in_their_sections(self) -> None:
        """Each fence's table: its first column is defined in the fence, and a
        rule given as "name (section N)" is defined in section N."""
        definitions = _definitions(self.source)
        for number, title, _ in self.sections:
            if not _FENCE.search(title):
                continue
            rows = _table(self.source, number)
            with self.subTest(section=number):
                self.assertGreater(len(rows), 0)
                for name, rest in rows:
                    self.assertEqual(definitions.get(name, (0, 0, 0))[2], number, name)
                    rule = _RULE_AT.match(rest)
                    if rule is not None:
                        self.assertEqual(definitions.get(rule.group(1), (0, 0, 0))[2], int(rule.group(2)),
                                         f"{name}: {rule.group(0)}")

    def test_rules_name_their_twins_and_hooks(self) -> None:
        """Where a rule is written it names its accelerator (section 34's table)
        or the fidelity hook it calls (the SDK fidelity sections' tables)."""
        definitions = _definitions(self.source)
        lines = self.source.split("\n")
        # A layer's refinement is set at a seam (_refine(seam=refinement)): the rule names the seam.
        seam_of = {keyword.value.id: keyword.arg for node in ast.walk(ast.parse(self.source))
                   if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_refine"
                   for keyword in node.keywords if isinstance(keyword.value, ast.Name)}
        for number, title, _ in self.sections:
            if "fidelity" not in title.lower() and "accelerator" not in title.lower():
                continue
            for name, rest in _table(self.source, number):
                rule = _RULE_AT.match(rest)
                if rule is None:
                    continue
                first, last, _ = definitions[rule.group(1)]
                with self.subTest(rule=rule.group(1), names=name):
                    self.assertIn(seam_of.get(name, name), "\n".join(lines[first - 1:last]))

    def test_section_references_point_at_sections(self) -> None:
        """Every "section N" in the file names a section that exists (not an RFC's)."""
        numbers = {number for number, _, _ in self.sections}
        reference = re.compile(r"(?<!RFC \d{4} )(?<!OAuth 2\.1 )\b[Ss]ections? "
                               r"(\d+)((?:(?:, | and | or | to )\d+)*)(?![.\d])")
        dangling = [m.group(0) for m in reference.finditer(self.source)
                    if not {int(n) for n in re.findall(r"\d+", m.group(0))} <= numbers]
        self.assertEqual(dangling, [])

    def test_names_given_a_section_are_defined_there(self) -> None:
        """Wherever the file names a function or class with a section ("_Events
        (section 26)", "twin: _fast_pretty, section 34"), continuation lines of the
        fences' tables too, the name is defined in that section."""
        definitions = _definitions(self.source)
        named = re.compile(r"\b([A-Za-z_][\w.]*)(?: \(|,? )section (\d+)\b")
        wrong = [(line, m.group(0)) for line, text in enumerate(self.source.split("\n"), 1)
                 for m in named.finditer(text)
                 if m.group(1) in definitions and definitions[m.group(1)][2] != int(m.group(2))]
        self.assertEqual(wrong, [])

    def test_readme_quotes_no_false_figure_about_the_file(self) -> None:
        """A size the README gives the file is its size; limits are the ones tested
        here; a size given of an earlier revision names that revision's commit."""
        readme_path = str(mcp_ref.__file__).replace("mcp_ref.py", "README.md")
        with open(readme_path, encoding="utf-8") as f:
            readme = f.read()
        total = self.source.count("\n")
        for sentence in re.split(r"(?<=[.;])\s", readme):
            sentence = " ".join(sentence.split())
            for figure in re.findall(r"\b(\d{1,3}(?:,\d{3})+|\d{4,}) lines\b", sentence):
                if not re.search(r"`[0-9a-f]{7,}`", sentence):
                    self.assertLess(abs(int(figure.replace(",", "")) - total), total * 0.05, sentence)
            for figure in re.findall(r"\b(\d+) (?:numbered )?sections\b", sentence):
                self.assertEqual(int(figure), len(self.sections), sentence)
            for figure in re.findall(r"no function (?:is )?over (\d+)", sentence):
                self.assertEqual(int(figure), MAX_FUNCTION_LINES, sentence)


if __name__ == "__main__":
    unittest.main()

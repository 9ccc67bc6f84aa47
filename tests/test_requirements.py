"""The requirements matrix: every normative sentence of the specification, tested or explained.

spec/server.tsv, spec/client.tsv and spec/other.tsv hold the sentences that
spec/extract.py takes from the specification's pages (see spec/README.md). Each
row's `test` column is one or more tests, `module.Class.test_name` separated by
spaces, that exist; or `n/a: reason`; or `open: reason` for a known defect being
fixed, allowed only up to the ratchets below, which only go down: lower one when a
row is mapped (the test says when it is too high, so the ratchet follows).

The tests are found statically (ast), so this module imports no test module and
runs in a blink.
"""

import ast
import contextlib
import hashlib
import importlib.util
import io
import os
import re
import tempfile
import unittest
from typing import Any, Dict, List, Optional, Set, Tuple

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the repository's root


SPEC = os.path.join(HERE, "spec")

COLUMNS = ["id", "revision", "page", "section", "keyword", "binds", "quote", "test"]

KEYWORDS = {"MUST", "MUST NOT", "REQUIRED", "SHALL", "SHALL NOT", "SHOULD", "SHOULD NOT",
            "RECOMMENDED", "NOT RECOMMENDED"}

BINDS = {"server": {"server", "both"}, "client": {"client", "both"},
         "other": {"authorization-server", "host", "user", "other"}}

MAX_OPEN = {"server": 0, "client": 0, "other": 0}  # MAX_OPEN_SERVER, MAX_OPEN_CLIENT

MAX_OPEN_SERVER, MAX_OPEN_CLIENT = MAX_OPEN["server"], MAX_OPEN["client"]

_TEST_NAME = re.compile(r"((?:tests\.(?:core\.|layers\.)?)?test_\w+)\.([A-Za-z_]\w*)\.(test\w*)")

_ID = re.compile(r"(?P<revision>[\w.-]+)/(?P<page>[\w./-]+)#[0-9a-f]{8}(-[0-9]+)?")


def read_tsv(name: str) -> Tuple[List[str], List[List[str]]]:
    with open(os.path.join(SPEC, name), encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines[0].split("\t"), [line.split("\t") for line in lines[1:]]


def rows(name: str) -> List[Dict[str, str]]:
    head, body = read_tsv(name + ".tsv")
    return [dict(zip(head, r)) for r in body]


_MODULES: Dict[str, Optional[Dict[str, ast.ClassDef]]] = {}


def names_a_test(name: str) -> bool:
    """`module.Class.test_name`, the module dotted from the root (tests.core.test_http):
    the module defines the class, and the class (or a base class defined in the
    same module) the method."""
    m = _TEST_NAME.fullmatch(name)
    if not m:
        return False
    module, cls, method = m.groups()
    if module not in _MODULES:
        path = os.path.join(HERE, *module.split(".")) + ".py"
        if not os.path.exists(path):
            _MODULES[module] = None
        else:
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
            _MODULES[module] = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    classes = _MODULES[module]
    seen: Set[str] = set()
    todo = [cls]
    while classes is not None and todo:
        node = classes.get(todo.pop())
        if node is None or node.name in seen:
            continue
        seen.add(node.name)
        if any(isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name == method
               for f in node.body):
            return True
        todo += [b.id for b in node.bases if isinstance(b, ast.Name)]
    return False


class RequirementsTest(unittest.TestCase):
    def test_columns(self) -> None:
        for name in BINDS:
            head, body = read_tsv(name + ".tsv")
            self.assertEqual(head, COLUMNS, name)
            for n, row in enumerate(body, 2):
                with self.subTest(file=name, line=n):
                    self.assertEqual(len(row), len(COLUMNS), row[:1])
                    r = dict(zip(head, row))
                    self.assertTrue(all(r[c].strip() == r[c] and r[c] for c in COLUMNS[:-1]), r)
                    m = _ID.fullmatch(r["id"])
                    self.assertTrue(m, r["id"])
                    self.assertEqual((m.group("revision"), m.group("page")), (r["revision"], r["page"]))
                    self.assertIn(r["keyword"], KEYWORDS)
                    self.assertIn(r["binds"], BINDS[name], "%s in %s.tsv" % (r["id"], name))
                    if not r["quote"].endswith("..."):
                        self.assertIn(r["keyword"], r["quote"])

    def test_ids_unique(self) -> None:
        filed: Dict[str, Dict[str, Dict[str, str]]] = {}
        for name in BINDS:
            ids = [r["id"] for r in rows(name)]
            self.assertEqual(len(ids), len(set(ids)), "duplicate id in %s.tsv" % name)
            filed[name] = {r["id"]: r for r in rows(name)}
        # a sentence that binds both sides is in both files (one test each); nothing else repeats
        for rid in set(filed["server"]) & set(filed["client"]):
            self.assertEqual(filed["server"][rid]["binds"], "both", rid)
            self.assertEqual(filed["server"][rid]["quote"], filed["client"][rid]["quote"], rid)
        for rid, r in list(filed["server"].items()) + list(filed["client"].items()):
            if r["binds"] == "both":
                self.assertTrue(rid in filed["server"] and rid in filed["client"], rid)
        self.assertFalse(set(filed["other"]) & (set(filed["server"]) | set(filed["client"])))

    def test_pages_extracted(self) -> None:
        """Each row names a revision and page of the extraction, and each page holds as many
        sentences as the extraction found (no row dropped or added by hand)."""
        head, body = read_tsv("pages.tsv")
        pages = {(r[0], r[1]): int(r[3]) for r in body}
        found: Dict[Tuple[str, str], Set[str]] = {}
        for name in BINDS:
            for r in rows(name):
                self.assertIn((r["revision"], r["page"]), pages, r["id"])
                found.setdefault((r["revision"], r["page"]), set()).add(r["id"])
        for page, count in pages.items():
            self.assertEqual(len(found.get(page, ())), count, page)

    def test_every_row_tested_or_explained(self) -> None:
        for name in BINDS:
            for r in rows(name):
                with self.subTest(file=name, id=r["id"]):
                    test = r["test"]
                    m = re.fullmatch(r"(n/a|open): *(.*)", test)
                    if m:
                        self.assertTrue(m.group(2).strip(), "%s: a reason after %s:" % (r["id"], m.group(1)))
                        self.assertFalse(name == "other" and m.group(1) == "open", r["id"])
                        continue
                    self.assertTrue(test, "%s.tsv %s: no test, no n/a: or open: reason" % (name, r["id"]))
                    for t in test.split():
                        self.assertTrue(names_a_test(t), "%s.tsv %s: no test %s" % (name, r["id"], t))

    def test_open_ratchet(self) -> None:
        for name, limit in MAX_OPEN.items():
            count = sum(r["test"].startswith("open:") for r in rows(name))
            self.assertLessEqual(count, limit, "%s.tsv: %d rows open, at most %d" % (name, count, limit))
            self.assertEqual(count, limit, "%s.tsv: %d rows open: lower the ratchet to %d" % (name, count, count))

    def test_checker_finds_tests(self) -> None:
        self.assertTrue(names_a_test("tests.test_requirements.RequirementsTest.test_open_ratchet"))
        self.assertTrue(names_a_test("tests.core.test_http.ModernEraTest.test_discover_and_list"))
        self.assertFalse(names_a_test("tests.test_requirements.RequirementsTest.test_nothing"))
        self.assertFalse(names_a_test("tests.test_requirements.NoSuchTest.test_open_ratchet"))
        self.assertFalse(names_a_test("tests.test_no_such_module.RequirementsTest.test_open_ratchet"))
        self.assertFalse(names_a_test("test_requirements.RequirementsTest.test_open_ratchet"))  # not at the root
        self.assertFalse(names_a_test("requirements.RequirementsTest"))


def load_extract() -> Any:
    spec = importlib.util.spec_from_file_location("spec_extract", os.path.join(SPEC, "extract.py"))
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


PAGE = """---
title: Sample
---

# Sample

## Lifecycle

The server **MUST** answer. A client MAY wait. See [the page](/x) and note:
e.g. this **SHOULD NOT** split.

Both parties **MUST**:

- Respect the version
- Use what was negotiated

Constraints on names:

- **MUST NOT** be empty

| Case | Rule |
| ---- | ---- |
| null | Client MUST omit it | Server MUST NOT expect it |

```typescript
/** Clients SHOULD honor this value. */
```
"""


class ExtractTest(unittest.TestCase):
    """spec/extract.py, which CI never runs (it needs the spec's repositories): what it
    takes from a page, and that a re-run keeps the mappings."""

    def test_a_page(self) -> None:
        extract = load_extract()
        rows = extract.page_rows("2099-01-01", "basic/sample", extract.markdown_blocks(PAGE))
        got = [(r["section"], r["keyword"], r["binds"], r["quote"]) for r in rows]
        self.assertEqual(got, [
            ("Lifecycle", "MUST", "server", "The server MUST answer."),
            ("Lifecycle", "SHOULD NOT", "both", "See the page and note: e.g. this SHOULD NOT split."),
            ("Lifecycle", "MUST", "both", "Both parties MUST: Respect the version; Use what was negotiated"),
            ("Lifecycle", "MUST NOT", "both", "Constraints on names: MUST NOT be empty"),
            ("Lifecycle", "MUST NOT", "both", "null | Client MUST omit it | Server MUST NOT expect it"),
            ("Lifecycle", "SHOULD", "client", "Clients SHOULD honor this value.")])
        digest = hashlib.sha1(b"the server must answer.").hexdigest()[:8]
        self.assertEqual(rows[0]["id"], "2099-01-01/basic/sample#" + digest)

    def test_a_rerun_keeps_tests_and_binds(self) -> None:
        extract = load_extract()
        rows = extract.page_rows("2099-01-01", "basic/sample", extract.markdown_blocks(PAGE))
        with tempfile.TemporaryDirectory() as out:
            first = extract.merge([dict(r) for r in rows], out)
            for name, filed in first.items():
                extract.write_tsv(os.path.join(out, name + ".tsv"), extract.COLUMNS, filed)
            self.assertEqual([len(first[n]) for n in ("server", "client", "other")], [5, 5, 0])
            server = extract.read_tsv(os.path.join(out, "server.tsv"))
            server[0]["test"] = "test_x.Y.test_z"
            server[1]["binds"], server[1]["test"] = "server", "n/a: kept"
            extract.write_tsv(os.path.join(out, "server.tsv"), extract.COLUMNS,
                              [[r[c] for c in extract.COLUMNS] for r in server])
            gone = dict(server[2], id="2099-01-01/basic/sample#00000000")
            with open(os.path.join(out, "other.tsv"), "a", encoding="utf-8") as f:
                f.write("\t".join(gone[c] for c in extract.COLUMNS) + "\n")
            with contextlib.redirect_stderr(io.StringIO()) as err:
                again = extract.merge([dict(r) for r in rows], out)
            self.assertIn("2099-01-01/basic/sample#00000000", err.getvalue())
            self.assertEqual([r[-1] for r in again["server"][:2]], ["test_x.Y.test_z", "n/a: kept"])
            self.assertNotIn(rows[1]["id"], [r[0] for r in again["client"]])  # rebound to the server alone
            self.assertEqual(len(again["client"]), 4)


if __name__ == "__main__":
    unittest.main()

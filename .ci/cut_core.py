"""The core of mcp_ref.py alone: the file cut at its marked line (issue 34).

    python .ci/cut_core.py OUTDIR [--source PATH] [--sections]

writes the core, everything above the line that begins ``# ---- layers``, as
OUTDIR/mcp_ref.py, and prints where it cut, the core's size (its lines, and
its code lines: not blank, comment or docstring) and the names the
core uses that only the layers define (its forward names).  While the file has
no such line, the cut is at the first "# N. SDK fidelity" banner (with the
rule line above it): the fence of issue 22, where the layers begin today.
With ``--sections``, also the same for the file cut above each numbered
section after the core: whether each layer uses only what is above it (issue
34's order).  Exits 0 whether or not the core has forward names (the test
test_mcp_ref.CoreAloneTest judges them; .ci/run's step "the core alone" runs
the cut file).

Standard library only, and it never imports mcp_ref: it reads the file as text
(test_mcp_ref.py loads this file for ``split`` and ``forward_names``).

A forward name is a name the core's code looks up in the module's globals
(found with ``symtable``, so names bound in a function, a lambda or a
comprehension are not) that the core does not bind at module level and that
is not a builtin.  Three kinds, with the first line of the core that uses it:
  code        run when the core runs (a call, a default value, a decorator,
              a base class, a body);
  annotation  only in annotations (also string ones, parsed; mcp_ref has
              ``from __future__ import annotations``, so none is evaluated),
              ``typing.cast`` targets, and ``if TYPE_CHECKING:`` blocks: the
              core runs without them, but mypy reads the cut file, and a
              reader of the core would have to look in the layers;
  __all__     a name the core's ``__all__`` exports that the core does not
              define (``from mcp_ref import *`` fails on the cut file).
A name the core only reaches by text (``globals()[name]``, ``getattr`` on the
module) is not seen; neither are the module docstring's examples (the doctest
runs them against the cut file).
"""

import ast
import builtins
import os
import re
import symtable
import sys
from typing import Dict, List, Optional, Set, Tuple

# The marked line (issue 34) ...
_MARKER = re.compile(r"^# (?:-{3,}|={3,}) ?layers", re.I)
# ... or, until the file has one, the first SDK fidelity banner (issue 22's fence).
_FENCE = re.compile(r"^# \d+\. SDK fidelity")
# Builtins of any supported CPython (3.9's lacks the later ones), and the module's own names.
_BUILTINS = set(dir(builtins)) | {"aiter", "anext", "EncodingWarning", "BaseExceptionGroup", "ExceptionGroup",
                                  "PythonFinalizationError", "__file__", "__name__", "__doc__", "__spec__",
                                  "__loader__", "__package__", "__builtins__", "__annotations__", "__path__"}


def split(source: str) -> Tuple[str, str, int, str]:
    """(core, layers, the number of the layers' first line, the line it cut at).
    The core ends before the marked line, or before the rule line above the
    first SDK fidelity banner; ValueError if the file has neither."""
    lines = source.splitlines(keepends=True)
    cut: Optional[int] = None
    for i, line in enumerate(lines):
        if _MARKER.match(line):
            cut = i
            break
        if _FENCE.match(line):
            cut = i - 1 if i and lines[i - 1].startswith("# ---") else i
            break
    if cut is None:
        raise ValueError("no line '# ---- layers' and no '# N. SDK fidelity' banner: nowhere to cut")
    return "".join(lines[:cut]), "".join(lines[cut:]), cut + 1, lines[cut].rstrip("\n")


def forward_names(core: str) -> Dict[str, Tuple[str, int]]:
    """name -> (kind, first line using it) for each forward name of ``core`` (see the module docstring)."""
    tree = ast.parse(core)
    typing_only = _typing_only(tree)
    defined = _module_bindings(tree)
    runtime = _global_references(tree) - defined - _BUILTINS
    found: Dict[str, Tuple[str, int]] = {}
    first = _first_lines(tree)
    for name in runtime:
        found[name] = ("code", first.get(name, 0))
    for name, line in sorted(typing_only.items(), key=lambda item: item[1]):
        if name not in defined and name not in _BUILTINS and name not in found:
            found[name] = ("annotation", line)
    for name, line in _exports(tree).items():
        if name not in defined and name not in found:
            found[name] = ("__all__", line)
    return found


def _strip_typing(tree: ast.Module) -> ast.Module:
    """``tree`` without what never runs: annotations (an annotated name stays
    local to its function) and ``if TYPE_CHECKING:`` bodies (left as ``pass``)."""

    class Strip(ast.NodeTransformer):
        def visit_arg(self, node: ast.arg) -> ast.arg:
            node.annotation = None
            return node

        def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
            node.returns = None
            return self.generic_visit(node)

        visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

        def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
            node.annotation = ast.Constant(value=0)
            return self.generic_visit(node)

        def visit_If(self, node: ast.If) -> ast.AST:
            if _is_type_checking(node.test):
                node.body = [ast.Pass()]
            return self.generic_visit(node)

    return ast.fix_missing_locations(Strip().visit(tree))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _tables(source: str) -> List[symtable.SymbolTable]:
    """Every scope of ``source``: the module first, then each function, class,
    lambda and comprehension inside it."""
    tables, todo = [], [symtable.symtable(source, "<core>", "exec")]
    while todo:
        table = todo.pop()
        tables.append(table)
        todo.extend(table.get_children())
    return tables


def _global_references(tree: ast.Module) -> Set[str]:
    """The names the code (not its annotations) looks up as globals, in any scope."""
    code = ast.unparse(_strip_typing(ast.parse(ast.unparse(tree))))  # on a copy: the caller keeps its tree
    return {symbol.get_name() for table in _tables(code) for symbol in table.get_symbols()
            if symbol.is_referenced() and (symbol.is_global() or table.get_type() == "module")}


def _module_bindings(tree: ast.Module) -> Set[str]:
    """The names ``tree`` binds at module level: assigned or imported there (under
    ``if TYPE_CHECKING:`` too), or assigned by a function that declares them global."""
    bound = set()
    for table in _tables(ast.unparse(tree)):
        for symbol in table.get_symbols():
            at_module = table.get_type() == "module" or symbol.is_declared_global()
            if at_module and (symbol.is_assigned() or symbol.is_imported()):
                bound.add(symbol.get_name())
    return bound


def _typing_only(tree: ast.Module) -> Dict[str, int]:
    """name -> first line, of the names in annotations (string ones parsed),
    ``cast`` targets and ``if TYPE_CHECKING:`` blocks."""
    exprs: List[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            exprs.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            exprs.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            exprs.append(node.annotation)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            exprs.extend(node.body)
        elif isinstance(node, ast.Call) and node.args and getattr(node.func, "id", getattr(node.func, "attr", "")) \
                == "cast" and isinstance(node.args[0], ast.Constant):
            exprs.append(node.args[0])
    names: Dict[str, int] = {}
    for expr in exprs:
        for name, line in _names_in(expr):
            names[name] = min(line, names.get(name, line))
    return names


def _names_in(expr: ast.AST) -> List[Tuple[str, int]]:
    """The names an annotation (or a block) loads, those of its string parts too."""
    found = []
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            found.append((node.id, node.lineno))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                inner = ast.parse(node.value.strip(), mode="eval")
            except SyntaxError:
                continue  # a docstring in a TYPE_CHECKING block, a Literal's value: not a type
            found += [(name, node.lineno) for name, _ in _names_in(inner)]
    return found


def _exports(tree: ast.Module) -> Dict[str, int]:
    """name -> line, of each string in the core's ``__all__`` (assigned or extended at module level)."""
    names: Dict[str, int] = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
            for item in ast.walk(node.value):
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    names.setdefault(item.value, item.lineno)
    return names


def _first_lines(tree: ast.Module) -> Dict[str, int]:
    lines: Dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            lines[node.id] = min(node.lineno, lines.get(node.id, node.lineno))
    return lines


def code_lines(core: str) -> int:
    """Lines that are not blank, comment or docstring (issue 34's measure of the core)."""
    import io
    import tokenize

    docs: Set[int] = set()
    for node in ast.walk(ast.parse(core)):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body and \
                isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
                isinstance(body[0].value.value, str):
            docs.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    code: Set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(core).readline):
        if token.type not in skip:
            code.update(line for line in range(token.start[0], token.end[0] + 1) if line not in docs)
    return len(code)


def main(argv: List[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    source_path = argv[argv.index("--source") + 1] if "--source" in argv else os.path.join(here, "mcp_ref.py")
    with open(source_path, encoding="utf-8") as f:
        source = f.read()
    core, _, first, line = split(source)
    os.makedirs(argv[0], exist_ok=True)
    with open(os.path.join(argv[0], "mcp_ref.py"), "w", encoding="utf-8") as f:
        f.write(core)
    forward = forward_names(core)
    print(f"cut at line {first}: {line[:70]}")
    print(f"core: {first - 1} lines, {code_lines(core)} code lines -> {os.path.join(argv[0], 'mcp_ref.py')}")
    for kind in ("code", "annotation", "__all__"):
        names = sorted(name for name, (k, _) in forward.items() if k == kind)
        print(f"forward names ({kind}): {len(names)}" + (": " + " ".join(names) if names else ""))
    print(f"forward names: {len(forward)}")
    if "--sections" in argv:
        layers = source.splitlines(keepends=True)
        for i in range(first, len(layers)):
            banner = re.match(r"# (\d+\. .*)", layers[i])
            if banner and i > first:
                above = forward_names("".join(layers[:i - 1] if layers[i - 1].startswith("# ---") else layers[:i]))
                names = sorted(name for name, (kind, _) in above.items() if kind != "__all__")
                print(f"above {banner.group(1)[:50]}: {len(names)} forward" + (": " + " ".join(names) if names else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""What the test modules share: the module under test, the SDK's recorded
expectations, the corpus and example loaders, and the accelerator switch.

Not a test module itself (unittest and pytest collect ``test*.py`` only); imported
as ``tests._testing`` (the repository's root on sys.path: unittest and pytest
run from there).
"""

import contextlib
import importlib
import importlib.util
import json
import os
import re
import sys
import unittest
from typing import Any, Callable, Dict, Iterator, List, Sequence, TypeVar

# The repository's root (mcp_ref.py, examples/, .ci/, spec/), and the fixtures beside this file.
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")
sys.path.insert(0, HERE)
# The core alone (issue 34): MCP_REF_UNDER_TEST=DIR runs the tests against
# DIR/mcp_ref.py, the file cut at its layers (.ci/cut_core.py DIR), imported
# here and by the servers the tests start (python_command); a test that needs a
# layer says so (needs_layers) and is skipped there.
UNDER_TEST = os.path.abspath(os.environ["MCP_REF_UNDER_TEST"]) if os.environ.get("MCP_REF_UNDER_TEST") else None
if UNDER_TEST is not None:
    sys.path.insert(0, UNDER_TEST)
mcp_ref = importlib.import_module(os.environ.get("MCP_REF_MODULE", "mcp_ref"))  # the module under test
if UNDER_TEST is not None and os.path.dirname(os.path.abspath(str(mcp_ref.__file__))) != UNDER_TEST:
    raise ImportError(f"MCP_REF_UNDER_TEST={UNDER_TEST}, but mcp_ref was imported from {mcp_ref.__file__}")
MCPServer = mcp_ref.MCPServer
Field = getattr(mcp_ref, "Field", None)  # (None: a core without it; test_mcp_ref.KNOWN_FORWARD lists it)
# The whole file, layers and all, whichever module is under test: what the layout tests read.
SOURCE = os.path.join(HERE, "mcp_ref.py")

_T = TypeVar("_T")

with open(os.path.join(TESTDATA, "sdk_expectations.json"), encoding="utf-8") as _f:
    SDK = json.load(_f)

NEEDS_PYDANTIC = "pydantic is not installed (CI's venv has it)"
NEEDS_JSONSCHEMA = "jsonschema is not installed (CI's venv has it)"


def has_module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def load_corpus(strings: bool) -> Any:
    """tests/testdata/corpus.py on mcp_ref; with ``strings`` every echo annotation is a string."""
    os.environ.pop("CORPUS_SERVER", None)
    os.environ["CORPUS_STRINGS"] = "1" if strings else "0"
    name = f"corpus_ref_{int(strings)}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(TESTDATA, "corpus.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def load_example(name: str) -> Any:
    """examples/weather.py as a module of its own name (registered, as an import would)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "examples", "weather.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    return sys.modules[name]


def without_help_links(result: Dict[str, Any]) -> Dict[str, Any]:
    """An SDK result as the documentation prints it: no pydantic help-page links,
    no object addresses or module names that differ between the two processes."""
    text = json.dumps(result)
    text = re.sub(r"0x[0-9a-f]+", "0x", text)
    text = re.sub(r"corpus_(sdk|ref)_\d", "corpus", text)
    out = json.loads(text)
    out.pop("resultType", None)  # the wire decoration of 2026-07-28, added by the dispatcher
    for block in out.get("content", []):
        if "text" in block:
            block["text"] = re.sub(r"\n *For further information visit \S+", "", block["text"])
    return out


def server_with(*fns: Any, **options: Any) -> Any:
    """An MCPServer with these functions as tools (registered now: in the current mode)."""
    server = MCPServer("t")
    for fn in fns:
        server.add_tool(fn, **options)
    return server


# -- the core alone (issue 34) ------------------------------------------------------

# The layers after the core, as needs_layers names them.
LAYERS = ("sdk", "patterns", "client", "cli", "accelerators")


def needs_layers(*layers: str) -> Callable[[_T], _T]:
    """A test (method or class) that needs these layers: skipped when the core
    runs alone (MCP_REF_UNDER_TEST), with the reason naming them.  "sdk" is SDK
    fidelity (pydantic's lax conversions, error texts and schema spellings, the
    SDK's names and objects), "cli" the command line and its HTTP server."""
    unknown = [layer for layer in layers if layer not in LAYERS]
    if unknown or not layers:
        raise ValueError(f"needs_layers: {unknown or 'none'} not among {LAYERS}")
    reason = f"needs the {', '.join(layers)} layer{'s' if len(layers) > 1 else ''}: the core runs alone " \
             f"(MCP_REF_UNDER_TEST={UNDER_TEST})"
    return unittest.skipIf(UNDER_TEST is not None, reason)


# A Python that runs a script (a server) against the module under test: the
# script's own ``sys.path.insert(0, <checkout>)`` then finds mcp_ref already
# imported from MCP_REF_UNDER_TEST's folder.  Otherwise the script runs as is.
_PRELUDE = ("import os, runpy, sys; sys.path.insert(0, {folder!r}); import mcp_ref; del sys.argv[0]; "
            "sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0])); "
            "runpy.run_path(sys.argv[0], run_name='__main__')")


def python_command(script: str, *args: str, flags: Sequence[str] = ()) -> List[str]:
    """``[python, *flags, script, *args]``, with mcp_ref taken from MCP_REF_UNDER_TEST when it is set."""
    if UNDER_TEST is None:
        return [sys.executable, *flags, script, *args]
    return [sys.executable, *flags, "-c", _PRELUDE.format(folder=UNDER_TEST), script, *args]


# A script that serves a server file's ``mcp`` over Streamable HTTP with the
# core's own run(transport="streamable-http"), on 127.0.0.1 and a free port
# (its stderr says which, as ``mcp_ref.py serve FILE --http 127.0.0.1:0`` does):
# for python_command, where the command line (a layer) would serve the file.
_HTTP_SCRIPT = """import runpy
served = runpy.run_path({server_file!r}, run_name="served")
served[{name!r}].run(transport="streamable-http", host="127.0.0.1", port=0)
"""


def http_script(folder: str, server_file: str, name: str = "mcp") -> str:
    """The path of a script, written in ``folder``, that serves ``server_file``'s
    MCPServer ``name`` over Streamable HTTP (run it with ``python_command``)."""
    path = os.path.join(folder, f"http_{os.path.splitext(os.path.basename(server_file))[0]}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(_HTTP_SCRIPT.format(server_file=os.path.abspath(server_file), name=name))
    return path


# -- the accelerators (section 35) ------------------------------------------------

# The two modes a test runs in (``for on in BOTH: with self.subTest(accelerated=on),
# accelerators(on): ...``): every name of mcp_ref._RULES bound to its accelerator,
# then to its rule.  The core alone has no accelerators: only the rules.
BOTH = (True, False) if hasattr(mcp_ref, "_use_accelerators") else (False,)


@contextlib.contextmanager
def accelerators(on: bool) -> Iterator[None]:
    """mcp_ref with its accelerators switched on or off inside the block, and
    the module's bindings exactly as they were after it.  Tools compile their
    checkers when they are registered: register them inside the block."""
    if not hasattr(mcp_ref, "_use_accelerators"):  # the core alone: the rules are all there is
        if on:
            raise unittest.SkipTest("needs the accelerators layer: the core runs alone")
        yield
        return
    saved = {name: getattr(mcp_ref, name) for name in mcp_ref._RULES}
    mcp_ref._use_accelerators(on)
    try:
        yield
    finally:
        vars(mcp_ref).update(saved)


def wait_for_port(port: int, seconds: float = 30.0) -> None:
    """Until something listens on 127.0.0.1:port (a server process starting), at most ``seconds``."""
    import socket
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)


def end_threads(conn: Any, seconds: float = 30.0) -> None:
    """A connection's (or an app's) own threads ended, as the end of its input ends
    them: the pool once its queued calls have run, the event loop stopped, then closed."""
    import time

    if conn.pool is not None:
        conn.pool.close()
    loop = conn.loop
    if loop is not None:
        loop.call_soon_threadsafe(loop.stop)
        deadline = time.monotonic() + seconds
        while loop.is_running() and time.monotonic() < deadline:
            time.sleep(0.001)
        if not loop.is_running():
            loop.close()


def copy_into(source: str, destination: str) -> None:
    """``source`` copied to ``destination`` whole or not at all (a temporary
    name, then renamed): CI runs two suites at once, and one must never start
    node on the other's half-written copy (the drivers go beside node_modules)."""
    import shutil

    temporary = f"{destination}.{os.getpid()}.tmp"
    shutil.copy(source, temporary)
    os.replace(temporary, destination)

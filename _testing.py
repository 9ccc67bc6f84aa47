"""What the test modules share: the module under test, the SDK's recorded
expectations, the corpus and example loaders, and the accelerator switch.

Not a test module itself (unittest and pytest collect ``test*.py`` only).
"""

import contextlib
import importlib
import importlib.util
import json
import os
import re
import sys
from typing import Any, Dict, Iterator

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
mcp_ref = importlib.import_module(os.environ.get("MCP_REF_MODULE", "mcp_ref"))  # the module under test
MCPServer, Field = mcp_ref.MCPServer, mcp_ref.Field

with open(os.path.join(HERE, "testdata", "sdk_expectations.json"), encoding="utf-8") as _f:
    SDK = json.load(_f)

NEEDS_PYDANTIC = "pydantic is not installed (CI's venv has it)"
NEEDS_JSONSCHEMA = "jsonschema is not installed (CI's venv has it)"


def has_module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def load_corpus(strings: bool) -> Any:
    """testdata/corpus.py on mcp_ref; with ``strings`` every echo annotation is a string."""
    os.environ.pop("CORPUS_SERVER", None)
    os.environ["CORPUS_STRINGS"] = "1" if strings else "0"
    name = f"corpus_ref_{int(strings)}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "testdata", "corpus.py"))
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


# -- the accelerators (section 34) ------------------------------------------------

# The two modes a test runs in (``for on in BOTH: with self.subTest(accelerated=on),
# accelerators(on): ...``): every name of mcp_ref._RULES bound to its accelerator,
# then to its rule.
BOTH = (True, False)


@contextlib.contextmanager
def accelerators(on: bool) -> Iterator[None]:
    """mcp_ref with its accelerators switched on or off inside the block, and
    the module's bindings exactly as they were after it.  Tools compile their
    checkers when they are registered: register them inside the block."""
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

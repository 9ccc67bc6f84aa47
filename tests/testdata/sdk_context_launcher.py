"""Serve an mcp_ref server file that uses Context with the official SDK instead.

    python testdata/sdk_context_launcher.py testdata/context_server.py

testdata/sdk_launcher.py's stand-in ``mcp_ref`` module (``MCPServer``,
``ToolError``, ``Field``, ``Context``), plus ``ON_SDK = True``, so that a file
can leave out what only mcp_ref offers; then the file runs as ``__main__``.
"""

import os
import runpy
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sdk_launcher  # noqa: E402,F401  (installs the stand-in mcp_ref module)
from mcp.server import mcpserver  # noqa: E402

shim = sys.modules["mcp_ref"]
for name in ("Context", "Resolve", "Elicit", "Sample", "ListRoots", "ElicitationResult"):
    setattr(shim, name, getattr(mcpserver, name))  # (Context: sdk_launcher.py maps it too)
shim.ON_SDK = True  # type: ignore[attr-defined]

if __name__ == "__main__":
    path = sys.argv[1]
    sys.argv = sys.argv[1:]
    runpy.run_path(path, run_name="__main__")

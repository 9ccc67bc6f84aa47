"""Record what the official SDK publishes and returns for the test corpus.

Run with an interpreter that has the SDK (never a dependency of mcp_ref):

    python -m venv /tmp/sdk && /tmp/sdk/bin/pip install "mcp==2.3.*"
    /tmp/sdk/bin/python testdata/regen_expectations.py

It writes testdata/sdk_expectations.json; the unit tests read that file and
need no package.
"""

import asyncio
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load_corpus(strings: bool):  # type: ignore[no-untyped-def]
    os.environ["CORPUS_SERVER"] = "sdk"
    os.environ["CORPUS_STRINGS"] = "1" if strings else "0"
    spec = importlib.util.spec_from_file_location(f"corpus_sdk_{int(strings)}", os.path.join(HERE, "corpus.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def dump(model):  # type: ignore[no-untyped-def]
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def record(module, server=None, cases=None):  # type: ignore[no-untyped-def]
    from mcp.server.mcpserver.exceptions import ToolError

    server = server or module.server
    tools = {t.name: dump(t) for t in await server.list_tools()}
    calls = []
    for name, arguments in module.CALLS if cases is None else cases:
        try:
            result = dump(await server.call_tool(name, arguments))
        except ToolError as exc:  # what MCPServer._handle_call_tool sends
            result = {"content": [{"type": "text", "text": str(exc)}], "isError": True}
        calls.append([name, arguments, result])
    return tools, calls


def main() -> None:
    import logging

    logging.disable(logging.CRITICAL)
    from importlib.metadata import version

    out = {"python": sys.version.split()[0], "mcp": version("mcp"), "pydantic": version("pydantic")}
    for strings in (False, True):
        tools, calls = asyncio.run(record(load_corpus(strings)))
        out["tools_strings" if strings else "tools"] = tools
        if not strings:
            out["calls"] = calls
            module = sys.modules["corpus_sdk_0"]
            out["more_tools"], out["more_calls"] = asyncio.run(record(module, module.more, module.MORE_CALLS))
    with open(os.path.join(HERE, "sdk_expectations.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False, sort_keys=False)
        f.write("\n")
    print(f"{len(out['tools'])} + {len(out['more_tools'])} tools, {len(out['calls'])} + {len(out['more_calls'])} "
          f"calls recorded", file=sys.stderr)


if __name__ == "__main__":
    main()

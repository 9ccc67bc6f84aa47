"""The floor: a bare Python stdio loop that reads a JSON line and writes one.

It answers initialize, tools/list and tools/call with canned results (no schema,
no validation): the least any Python stdio server can do per message.
"""

import json
import sys

TOOLS = {"tools": [{"name": name, "inputSchema": {"type": "object"}} for name in ("add", "reading", "readings")]}
RESULT = {"content": [{"type": "text", "text": "3"}], "structuredContent": {"result": 3}, "isError": False}


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message:
            continue
        method = message["method"]
        if method == "initialize":
            result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": "floor", "version": "0"}}
        elif method == "tools/list":
            result = TOOLS
        else:
            result = RESULT
        out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()

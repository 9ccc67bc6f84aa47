"""The floor: a bare Python stdio loop that reads a JSON line and writes one.

It answers initialize, tools/list, ping and tools/call with canned results (no schema,
no validation, no tool code): the least any Python stdio server can do per
message; for the progress tool, also the notifications a real server sends
first.  Each canned result is the one the real tool sends, so the client
reads as many bytes from the floor as from the servers it is compared with.
"""

import json
import sys

TOOLS = {"tools": [{"name": name, "inputSchema": {"type": "object"}}
                   for name in ("add", "reading", "readings", "progress")]}
READINGS = [{"city": "London", "temperature": 16.2 + i, "humidity": 0.83, "conditions": "Overcast"}
            for i in range(10)]
RESULTS = {
    "add": {"content": [{"type": "text", "text": "3"}], "structuredContent": {"result": 3}, "isError": False},
    "reading": {"content": [{"type": "text", "text": json.dumps(READINGS[0], indent=2)}],
                "structuredContent": READINGS[0], "isError": False},
    "readings": {"content": [{"type": "text", "text": json.dumps(r, indent=2)} for r in READINGS],
                 "structuredContent": {"result": READINGS}, "isError": False},
}


def progress(out: "object", params: dict) -> dict:
    steps = params["arguments"]["steps"]
    token = params.get("_meta", {}).get("progressToken")
    for step in range(steps):
        if token is not None:
            out.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": {  # type: ignore
                "progressToken": token, "progress": step + 1, "total": steps}}).encode() + b"\n")
    return {"content": [{"type": "text", "text": str(steps)}], "structuredContent": {"result": steps},
            "isError": False}


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
        elif method == "ping":
            result = {}
        elif message["params"]["name"] == "progress":
            result = progress(out, message["params"])
        else:
            result = RESULTS[message["params"]["name"]]
        out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()

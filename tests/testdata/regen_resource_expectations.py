"""Record what the official SDK publishes and answers for the resources corpus.

Run with an interpreter that has the SDK (never a dependency of mcp_ref):

    python -m venv /tmp/sdk && /tmp/sdk/bin/pip install "mcp==2.3.*"
    /tmp/sdk/bin/python testdata/regen_resource_expectations.py

It serves testdata/resource_corpus.py with the SDK's MCPServer over stdio, as a
client would, and records every response, whole, in three revisions
(2024-11-05, 2025-11-25 and 2026-07-28); also what the SDK's URI template
matcher makes of the template cases below.  It writes
testdata/sdk_resource_expectations.json; the tests read that file and need no
package.
"""

import json
import os
import subprocess
import sys
from typing import Any, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ["CORPUS_SERVER"] = "sdk"
import resource_corpus  # noqa: E402

REVISIONS = ("2024-11-05", "2025-11-25", "2026-07-28")
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}

# URI templates and URIs to match (or templates to refuse): the matcher's parity cases.
TEMPLATE_CASES = [
    ("res://{a}", ["res://x", "res://x/y", "res://", "res://a%20b", "res://a,b"]),
    ("file://docs/{+path}", ["file://docs/a/b.md", "file://docs/", "file://docs/a?q", "file://docs/%2E%2E"]),
    ("file://docs/{+path}.md", ["file://docs/a/b.md", "file://docs/a.md.md", "file://docs/a"]),
    ("x://{a}-{b}", ["x://1-2", "x://1-2-3", "x://-", "x://12"]),
    ("prefix-{id}", ["prefix-1", "prefix-prefix-1", "prefix-"]),
    ("/files{/path*}", ["/files", "/files/a", "/files/a/b/c", "/filesa"]),
    ("/files{/path*}/end", ["/files/a/end", "/files/end", "/files/a/b/end"]),
    ("logs://{service}{?since,level}", ["logs://api", "logs://api?level=error", "logs://api?level=e&since=5m&x=1",
                                        "logs://api?level=a+b%20c", "logs://api#frag?level=x"]),
    ("q://{a}?fixed=1{&page}", ["q://x?fixed=1&page=2", "q://x?fixed=1", "q://x?fixed=2&page=2"]),
    ("m://{a}{;p}", ["m://x;p=1", "m://x;p", "m://x;q=1"]),
    ("m://x{;p*}", ["m://x;p=1;p=2", "m://x", "m://x;q=1"]),
    ("m://{a}{.ext}", ["m://name.txt", "m://name.tar.gz", "m://name"]),
    ("m://{+path}{.ext}", ["m://a/b.txt", "m://a.b/c.txt"]),
    ("f://{#frag}", ["f://#a/b", "f://", "f://#"]),
    ("x://{a}/{b}{?c,d}", ["x://1/2?d=4&c=3", "x://1/2"]),
    ("s://{/a,b}", ["s:///1/2", "s:///1"]),
    ("x://{a,b}", ["x://1,2", "x://1"]),
    ("x://{a", []), ("x://{}", []), ("x://{a}{b}", []), ("x://{+a}{+b}", []), ("x://{a:3}", []),
    ("x://{a*}", []), ("x://{a}{a}", []), ("x://{?a}{?b}", []), ("x://{+a}{b}", []), ("x://{/a*}{/b*}", []),
]


class Client:
    """Just enough of a stdio client: one request at a time, whole responses."""

    def __init__(self) -> None:
        env = dict(os.environ, CORPUS_SERVER="sdk")
        self.process = subprocess.Popen([sys.executable, os.path.join(HERE, "resource_corpus.py")],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        env=env)
        self.next_id = 0

    def send(self, message: Dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        self.next_id += 1
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        assert self.process.stdout is not None
        while True:
            reply = json.loads(self.process.stdout.readline())
            if reply.get("id") == self.next_id:
                return {k: v for k, v in reply.items() if k not in ("jsonrpc", "id")}

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def record(version: str) -> Dict[str, Any]:
    client = Client()
    out: Dict[str, Any] = {}

    def ask(method: str, params: Dict[str, Any]) -> Dict[str, Any]:
        if version == "2026-07-28":
            params = dict(params, _meta=META)
        return client.request(method, params)

    if version == "2026-07-28":
        out["server/discover"] = ask("server/discover", {})
    else:
        out["initialize"] = client.request("initialize", {"protocolVersion": version, "capabilities": {},
                                                          "clientInfo": {"name": "recorder", "version": "1"}})
        client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for method in ("resources/list", "resources/templates/list", "prompts/list"):
        out[method] = ask(method, {})
    out["resources/list?cursor=zz"] = ask("resources/list", {"cursor": "zz"})
    out["reads"] = [[uri, ask("resources/read", {"uri": uri})] for uri in resource_corpus.READS]
    out["gets"] = [[name, arguments, ask("prompts/get", {"name": name, "arguments": arguments})]
                   for name, arguments in resource_corpus.GETS]
    out["completes"] = [[params, ask("completion/complete", params)] for params in resource_corpus.COMPLETES]
    client.close()
    return out


def templates() -> List[Any]:
    from mcp.shared.uri_template import InvalidUriTemplate, UriTemplate

    cases = []
    for template, uris in TEMPLATE_CASES:
        try:
            parsed = UriTemplate.parse(template)
        except InvalidUriTemplate:
            cases.append([template, None])
            continue
        cases.append([template, [[uri, parsed.match(uri)] for uri in uris]])
    return cases


def main() -> None:
    from importlib.metadata import version

    out: Dict[str, Any] = {"python": sys.version.split()[0], "mcp": version("mcp"), "pydantic": version("pydantic")}
    out["revisions"] = {v: record(v) for v in REVISIONS}
    out["templates"] = templates()
    with open(os.path.join(HERE, "sdk_resource_expectations.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    counts = {v: len(r["reads"]) + len(r["gets"]) + len(r["completes"]) for v, r in out["revisions"].items()}
    print(f"recorded {counts} requests, {len(out['templates'])} templates", file=sys.stderr)


if __name__ == "__main__":
    main()

"""Past one process: two servers behind a round-robin proxy, as a load
balancer without session affinity spreads one client's requests.

2026-07-28 is stateless: any process may answer any request, given what the
processes share.  A multi-round call's requestState is signed by the process
that answers one round and checked by the one that gets the next: they need
one key (MCP_REF_STATE_KEY, or MCPServer(request_state_key=...)).  A task is
run by the process that made it and read, answered and cancelled through
whichever gets the request: they need one store (MCP_REF_TASK_STORE, an SQLite
file: one machine's; a TaskStore of one's own beyond it).  Each test shows the
shared setting working and, without it, the failure it prevents.
"""

import http.client
import http.server
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
from typing import Any, Dict, List, Optional, Tuple

from tests._testing import HERE, mcp_ref, needs_layers


EVERYTHING = os.path.join(HERE, "examples", "everything.py")


class Backend:
    """``python -m mcp_ref serve examples/everything.py --http`` on an ephemeral port."""

    def __init__(self, env: Dict[str, Optional[str]]) -> None:
        environ = dict(os.environ, **{name: value for name, value in env.items() if value is not None})
        for name in (name for name, value in env.items() if value is None):
            environ.pop(name, None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mcp_ref", "serve", EVERYTHING, "--http", "127.0.0.1:0"], cwd=HERE,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environ)
        line = self.process.stderr.readline().decode()  # type: ignore[union-attr]
        assert "serving" in line, line
        self.port = int(line.rsplit(":", 1)[1].split("/")[0])
        threading.Thread(target=self.process.stderr.read, daemon=True).start()  # type: ignore[union-attr]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)
        self.process.stderr.close()  # type: ignore[union-attr]


class RoundRobin:
    """An HTTP proxy that sends each request to the next backend in turn, and
    records which one answered which JSON-RPC method (and whether the request
    carried a requestState: a multi-round call's later round)."""

    def __init__(self, ports: List[int]) -> None:
        turns = itertools.cycle(range(len(ports)))
        self.served: List[Tuple[int, str, bool]] = []
        lock, served = threading.Lock(), self.served

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def forward(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with lock:
                    turn = next(turns)
                try:
                    message = json.loads(body) if body else {}
                    params = message.get("params") or {} if isinstance(message, dict) else {}
                    with lock:
                        served.append((turn, str(message.get("method")) if isinstance(message, dict) else "",
                                       "requestState" in params))
                except ValueError:
                    pass
                upstream = http.client.HTTPConnection("127.0.0.1", ports[turn], timeout=60)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                upstream.request(self.command, self.path, body=body or None, headers=headers)
                reply = upstream.getresponse()
                data = reply.read()  # (JSON, or an SSE stream that ends with its response)
                self.send_response(reply.status)
                for name, value in reply.getheaders():
                    if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                upstream.close()

            do_GET = do_POST = do_DELETE = forward  # noqa: N815

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/mcp"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def answering(self, method: str, later_round: Optional[bool] = None) -> List[int]:
        """The backends that answered ``method`` (only later rounds, or only first ones, if said)."""
        return [turn for turn, name, state in self.served
                if name == method and (later_round is None or state == later_round)]


def confirm(params: Dict[str, Any]) -> Dict[str, Any]:
    """The user's answer to every question of everything.py's tools: a value
    of its type for each field the form asks (true for a confirmation)."""
    schema = params.get("requestedSchema") or {}
    kinds = {field: (spec or {}).get("type") for field, spec in (schema.get("properties") or {}).items()}
    return {"action": "accept", "content": {field: {"integer": 1, "number": 1, "boolean": True}.get(kind, "Ada")
                                            for field, kind in kinds.items()}}


@needs_layers("cli", "client")  # servers started by the command line, a Client through the proxy
class RoundRobinTest(unittest.TestCase):
    def serve(self, **env: Optional[str]) -> RoundRobin:
        """Two backends with ``env`` (None: unset) behind a round-robin proxy, stopped after the test."""
        backends = [Backend(env) for _ in range(2)]
        for backend in backends:
            self.addCleanup(backend.stop)
        proxy = RoundRobin([backend.port for backend in backends])
        self.addCleanup(proxy.stop)
        return proxy

    def shared(self) -> Dict[str, str]:
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder, True)
        return {"MCP_REF_STATE_KEY": "one key for every process", "MCP_REF_TASK_STORE": os.path.join(
            folder, "tasks.sqlite")}

    def client(self, url: str, **options: Any) -> Any:
        client = mcp_ref.Client(url, protocol_version="2026-07-28", elicitation_callback=confirm, **options)
        client.__enter__()
        self.addCleanup(client.__exit__, None, None, None)
        return client

    def test_a_multi_round_call_across_processes(self) -> None:
        proxy = self.serve(**self.shared())
        client = self.client(proxy.url)
        for _ in range(2):  # either process may take either round
            result = client.call_tool("test_input_required_result_multi_round")
            self.assertEqual(result["resultType"], "complete")
            self.assertIsNot(result.get("isError"), True, result)
        first, later = proxy.answering("tools/call", False), proxy.answering("tools/call", True)
        self.assertEqual(len(later), len(first) * 2, proxy.served)  # (this tool asks in two rounds)
        self.assertEqual({0, 1}, set(later), "a later round was answered by the other process")

    def test_a_task_across_processes(self) -> None:
        proxy = self.serve(**self.shared())
        client = self.client(proxy.url)
        created = client.call_tool_as_task("slow_compute", {"seconds": 0.3, "label": "x"})
        task_id = created["taskId"]
        statuses = {client.get_task(task_id)["status"] for _ in range(2)}  # from both processes
        self.assertLessEqual(statuses, {"working", "completed"})
        self.assertEqual(client.get_task_result(task_id)["content"][0]["text"], "Computed x in 0.3s")
        # A task's question, answered through whichever process gets tasks/update.
        asked = client.call_tool_as_task("confirm_delete", {"filename": "a"})
        self.assertEqual(client.get_task_result(asked["taskId"])["content"][0]["text"], "Deleted a")
        # And cancelled through either.
        long = client.call_tool_as_task("slow_compute", {"seconds": 60})["taskId"]
        client.cancel_task(long)
        self.assertEqual({client.get_task(long)["status"] for _ in range(2)}, {"cancelled"})
        self.assertEqual(set(proxy.answering("tasks/get")), {0, 1})
        self.assertTrue(proxy.answering("tasks/update"), proxy.served)

    def test_without_the_shared_key_a_later_round_is_refused(self) -> None:
        proxy = self.serve(MCP_REF_STATE_KEY=None)  # each process a key of its own
        client = self.client(proxy.url)
        with self.assertRaises(mcp_ref.MCPError) as caught:
            client.call_tool("test_input_required_result_multi_round")
        self.assertEqual(caught.exception.code, -32602, caught.exception)
        self.assertIn("requestState", str(caught.exception))

    def test_without_the_shared_store_a_task_is_unknown_elsewhere(self) -> None:
        proxy = self.serve(MCP_REF_STATE_KEY="one key", MCP_REF_TASK_STORE=None)  # each process its memory
        client = self.client(proxy.url)
        task_id = client.call_tool_as_task("slow_compute", {"seconds": 5})["taskId"]
        with self.assertRaises(mcp_ref.MCPError) as caught:
            client.get_task(task_id)  # the other process
        self.assertEqual(caught.exception.code, -32602, caught.exception)


if __name__ == "__main__":
    unittest.main()

"""The HTTP benchmark: Streamable HTTP servers of the same tools (bench/tools_server.py).

    python bench/http_bench.py            # uses (and if needed creates) bench/.venv, as bench.py does
    python bench/http_bench.py --quick    # fewer rounds, for a look
    python bench/http_bench.py --json     # also write every measurement to bench/http_results.json

Three servers, each one process (one worker) pinned to CPU 0 with taskset,
the driver on CPU 1:

  mcp_ref       mcp_ref's own server (``python -m mcp_ref serve tools_server.py --http``)
  gunicorn      the same WSGI app under gunicorn (``-k gthread``, one worker)
  SDK/uvicorn   the SDK's Streamable HTTP app (``stateless_http=True,
                json_response=True``) for the same file, under uvicorn

Measured: stateless 2026-07-28 ``tools/call`` per second (one kept-alive
connection, one request at a time; and 8 connections at once), the time from
process start to the first answered ``tools/call``, and the resident memory
of the idle server after it (gunicorn: its arbiter and its worker together).
The servers take turns, in alternating order; medians of the rounds (min-max).
"""

import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import http.client
from typing import Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from bench import VENV, VENV_PY, TOOLS, ensure_venv  # noqa: E402

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
CALL = {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": META}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "add"}
SDK_APP = os.path.join(HERE, "sdk_http.py")


def ensure_http_tools() -> None:
    ensure_venv()
    if not os.path.exists(os.path.join(VENV, "bin", "gunicorn")):
        subprocess.run([VENV_PY, "-m", "pip", "install", "-q", "--disable-pip-version-check", "gunicorn"], check=True)


def commands(port: int) -> Dict[str, List[str]]:
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    return {
        # -m: the module's cached bytecode (a script, mcp_ref.py, is compiled at every start).
        "mcp_ref": pin + [VENV_PY, "-m", "mcp_ref", "serve", TOOLS, "--http", f"127.0.0.1:{port}"],
        "gunicorn": pin + [os.path.join(VENV, "bin", "gunicorn"), "-k", "gthread", "--threads", "8", "-w", "1",
                           "-b", f"127.0.0.1:{port}", "--chdir", ROOT, "--log-level", "warning",
                           f'mcp_ref:wsgi_app("{TOOLS}")'],
        "SDK/uvicorn": pin + [VENV_PY, SDK_APP, str(port)],
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def body(id_: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": CALL}).encode()


def call(conn: http.client.HTTPConnection, id_: int) -> bytes:
    conn.request("POST", "/mcp", body=body(id_), headers=HEADERS)
    response = conn.getresponse()
    data = response.read()
    if response.status != 200:
        raise RuntimeError(f"HTTP {response.status}: {data[:200]!r}")
    return data


def check(data: bytes) -> None:
    """One answer: JSON, or SSE whose last data line is the response; result 3."""
    text = data.decode()
    if text.startswith(("event:", "data:", ":")):
        text = [line[5:] for line in text.splitlines() if line.startswith("data:")][-1]
    result = json.loads(text)["result"]
    assert result["structuredContent"] == {"result": 3} and not result["isError"], result


class Server:
    def __init__(self, command: List[str], port: int) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        self.port = port

    def first_answer(self) -> float:
        """Seconds from the process's start to its first answered tools/call."""
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
                check(call(conn, 1))
                conn.close()
                return time.perf_counter() - self.started
            except (ConnectionError, OSError):
                if self.process.poll() is not None:
                    raise RuntimeError("the server exited") from None
                time.sleep(0.002)

    def rss_mib(self) -> float:
        """Resident memory of the process and its children (gunicorn's worker)."""
        pids = [self.process.pid]
        children = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout
        pids += [int(p) for p in children.split()]
        total = 0
        for pid in pids:
            with open(f"/proc/{pid}/status") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))
        return total / 1024

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def sequential(port: int, n: int) -> float:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for i in range(50):  # warm up
        call(conn, i)
    replies = []
    start = time.perf_counter()
    for i in range(n):
        replies.append(call(conn, i))
    elapsed = time.perf_counter() - start
    conn.close()
    for data in replies:
        check(data)
    return n / elapsed


def concurrent(port: int, n: int, clients: int = 8) -> float:
    replies: List[bytes] = []
    per = n // clients
    conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=30) for _ in range(clients)]
    for conn in conns:
        call(conn, 0)
    barrier = threading.Barrier(clients + 1)

    def run(conn: http.client.HTTPConnection) -> None:
        barrier.wait()
        out = [call(conn, i) for i in range(per)]
        replies.extend(out)

    threads = [threading.Thread(target=run, args=(conn,)) for conn in conns]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    for conn in conns:
        conn.close()
    for data in replies:
        check(data)
    return per * clients / elapsed


def one_round(round_: int, n: int) -> Dict[str, Dict[str, float]]:
    out: Dict[str, Dict[str, float]] = {}
    names = list(commands(0))
    if round_ % 2:
        names.reverse()
    for name in names:
        port = free_port()
        server = Server(commands(port)[name], port)
        try:
            first = server.first_answer()
            time.sleep(0.3)
            idle = server.rss_mib()
            out[name] = {"first answer (ms)": first * 1000, "idle RSS (MiB)": idle,
                         "sequential (calls/s)": sequential(port, n), "8 connections (calls/s)": concurrent(port, n)}
        finally:
            server.stop()
    return out


def fmt(values: List[float], digits: int = 0) -> str:
    return f"{statistics.median(values):,.{digits}f} ({min(values):,.{digits}f}-{max(values):,.{digits}f})"


def main() -> None:
    if shutil.which("taskset") and os.environ.get("MCP_REF_BENCH_PINNED") != "1":
        os.environ["MCP_REF_BENCH_PINNED"] = "1"  # the driver on CPU 1, the servers on CPU 0
        os.execvp("taskset", ["taskset", "-c", "1", sys.executable] + sys.argv)
    ensure_http_tools()
    # Each server imports mcp_ref from its cached bytecode, as an installed one
    # does: written now, whatever PYTHONDONTWRITEBYTECODE says (a stale cache
    # would make every start compile the file again: 0.1 s and 15 MiB more).
    for module in ("mcp_ref.py", os.path.join("bench", "tools_server.py")):
        subprocess.run([VENV_PY, "-m", "py_compile", os.path.join(ROOT, module)], check=True)
    rounds, n = (2, 500) if "--quick" in sys.argv else (5, 3000)
    runs: Dict[str, Dict[str, List[float]]] = {}
    for round_ in range(rounds):
        for name, metrics in one_round(round_, n).items():
            for metric, value in metrics.items():
                runs.setdefault(name, {}).setdefault(metric, []).append(value)
        print(f"round {round_ + 1}/{rounds} done", file=sys.stderr)
    python = subprocess.run([VENV_PY, "-c", "import platform; print(platform.python_version())"],
                            capture_output=True, text=True).stdout.strip()
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.machine())
    print(f"\nmachine: {cpu}, {os.cpu_count()} CPUs (servers on one, the driver on another); Python {python}; "
          f"{rounds} rounds, medians (min-max)\n")
    names = list(runs)
    print("| metric | " + " | ".join(names) + " | mcp_ref vs SDK | gunicorn vs SDK |")
    print("|---" * (len(names) + 3) + "|")
    for metric in runs[names[0]]:
        values = {name: runs[name][metric] for name in names}
        med = {name: statistics.median(v) for name, v in values.items()}
        lower_better = "ms" in metric or "MiB" in metric
        ratio = [(med["SDK/uvicorn"] / med[x] if lower_better else med[x] / med["SDK/uvicorn"])
                 for x in ("mcp_ref", "gunicorn")]
        digits = 1 if lower_better else 0
        print(f"| {metric} | " + " | ".join(fmt(values[n], digits) for n in names) +
              f" | {ratio[0]:.1f}x | {ratio[1]:.1f}x |")
    if "--json" in sys.argv:
        with open(os.path.join(HERE, "http_results.json"), "w") as f:
            json.dump(runs, f, indent=1)




if __name__ == "__main__":
    main()

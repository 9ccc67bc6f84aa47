"""The benchmark: mcp_ref against the official SDK and a bare-loop floor, in one run.

    python bench/bench.py            # creates bench/.venv with the SDK on first use
    python bench/bench.py --quick    # fewer rounds, for a look
    python bench/bench.py --json     # also write every measurement to bench/results.json
    python bench/bench.py --baseline REV   # also the code of git revision REV, side by side (repeatable)
    python bench/bench.py --no-core  # without the core alone (below)

Three servers serve the same tools (bench/tools_server.py): mcp_ref, the SDK's
MCPServer (the same file through tests/testdata/sdk_launcher.py) and bench/floor.py,
a loop that only does json.loads/json.dumps.  All run on the interpreter of
bench/.venv, pinned to one CPU with taskset when it exists.  The servers take
turns start by start and, running side by side, block by block of calls, in
alternating order; the table shows the medians of the rounds with min-max, and
ratios to the SDK and to the floor.  Standard library only (the venv holds what
the SDK needs).  The sessions speak 2025-11-25, so that mcp_ref's tasks can be
measured: a ping (every server), and tasks/get of a task that has completed
(mcp_ref's, from its add_task tool; issue 24: polling a task should cost about
what a ping costs, and an ordinary call nothing more).

With --baseline REV one more server runs in the same turns: the tools file and
mcp_ref.py of that git revision, so that a change is measured against the code
before it on the same machine at the same time (a table for each: the ratios of
both to the SDK, and of today's code to the earlier one).  A metric the earlier
tools file has no tool for is left out for it.

By default one more server runs in the same turns, "mcp_ref core": the same
tools file on the core alone, the working tree's mcp_ref.py cut at its
"# ---- layers" line by .ci/cut_core.py into a temporary folder (what a user
who keeps only the core serves; docs/layout.md).  Every tool of the tools file
runs on the core.  It has no accelerators (they are a layer), so its calls
measure the plain rules; compare them with MCP_REF_PURE=1 python bench/bench.py,
where the whole file runs its plain rules too.  Its own table gives its ratios
to the SDK and to the whole file; it adds about a tenth to the run's time
(--no-core leaves it out).
"""

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import venv
from typing import Any, Callable, Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VENV = os.path.join(HERE, ".venv")
VENV_PY = os.path.join(VENV, "bin", "python")
TOOLS = os.path.join(HERE, "tools_server.py")
CALLS = {"scalar": ("add", {"a": 1, "b": 2}), "object": ("reading", {"city": "London"}),
         "list of 10 objects": ("readings", {"city": "London", "n": 10})}
MAIN = ("floor", "mcp_ref", "sdk")  # the first table's servers (--baseline adds one)
CORE = "mcp_ref core"  # the tools file on the cut core (cut_core)
PROGRESS = "progress, 100 notifications"  # a Context tool: each call sends 100 notifications/progress
PING, POLL = "ping", "tasks/get, a finished task"  # polling a task against the cheapest request there is
METRICS = list(CALLS) + ["pipelined scalar", PROGRESS, PING, POLL]


def ensure_venv() -> None:
    if os.path.exists(VENV_PY):
        return
    print(f"creating {VENV} with the official SDK (once)...", file=sys.stderr)
    venv.create(VENV, with_pip=True)
    subprocess.run([VENV_PY, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "mcp==2.3.*", "fastjsonschema", "jsonschema"], check=True)


def servers(baselines: List[str], core: str = "") -> Dict[str, List[str]]:
    commands = {
        "floor": [VENV_PY, "-I", os.path.join(HERE, "floor.py")],
        "mcp_ref": [VENV_PY, "-I", TOOLS],
        "sdk": [VENV_PY, os.path.join(ROOT, "tests", "testdata", "sdk_launcher.py"), TOOLS],
    }
    if core:
        commands[CORE] = [VENV_PY, "-I", os.path.join(core, "bench", "tools_server.py")]
    for rev in baselines:
        commands[f"at {rev}"] = [VENV_PY, "-I", checkout(rev)]
    return commands


def cut_core(directory: str) -> None:
    """The working tree's core as ``directory``/mcp_ref.py, beside a copy of the
    tools file in ``directory``/bench/ (it finds its mcp_ref.py one level up,
    as a baseline's does)."""
    subprocess.run([sys.executable, os.path.join(ROOT, ".ci", "cut_core.py"), directory], check=True,
                   stdout=subprocess.DEVNULL)
    os.makedirs(os.path.join(directory, "bench"))
    shutil.copy(TOOLS, os.path.join(directory, "bench", "tools_server.py"))


def compile_files(*paths: str) -> List[str]:
    """Write each file's bytecode, as installing does, so that no cold start
    compiles; the .pyc files' paths."""
    code = "import py_compile, sys; [print(py_compile.compile(p, doraise=True)) for p in sys.argv[1:]]"
    return subprocess.run([VENV_PY, "-c", code, *paths], capture_output=True, text=True,
                          check=True).stdout.split()


def checkout(rev: str) -> str:
    """mcp_ref.py and bench/tools_server.py of git revision ``rev`` in
    bench/.baseline/<commit>/ (its tools file finds its mcp_ref.py one level
    up); the tools file's path.  Its bytecode is written before any timing."""
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", rev + "^{commit}"], capture_output=True,
                            text=True, check=True).stdout.strip()
    directory = os.path.join(HERE, ".baseline", commit)
    tools = os.path.join(directory, "bench", "tools_server.py")
    if not os.path.exists(tools):
        os.makedirs(os.path.dirname(tools), exist_ok=True)
        for path in ("mcp_ref.py", "bench/tools_server.py"):
            data = subprocess.run(["git", "-C", ROOT, "show", f"{commit}:{path}"], capture_output=True,
                                  check=True).stdout
            with open(os.path.join(directory, path), "wb") as f:
                f.write(data)
    subprocess.run([VENV_PY, "-m", "py_compile", os.path.join(directory, "mcp_ref.py")], check=True)
    return tools


class Session:
    def __init__(self, command: List[str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        self.next_id = 0
        self.tools: List[str] = []  # what tools/list names, after initialize

    def send(self, method: str, params: Dict[str, Any]) -> None:
        self.next_id += 1
        self.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,  # type: ignore
                                     "params": params}).encode() + b"\n")
        self.stdin.flush()  # type: ignore[union-attr]

    def receive(self) -> Dict[str, Any]:
        return json.loads(self.stdout.readline())  # type: ignore[union-attr,no-any-return]

    def call(self, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
        self.send(method, params)
        return self.receive()

    def initialize(self) -> None:
        reply = self.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                         "clientInfo": {"name": "bench", "version": "1"}})
        assert "result" in reply, reply
        self.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')  # type: ignore
        self.stdin.flush()  # type: ignore[union-attr]
        self.tools = [tool["name"] for tool in self.call("tools/list", {})["result"]["tools"]]

    def finished_task(self) -> str:
        """A task of the scalar tool (2025-11-25's task param), once it has completed."""
        task_id = self.call("tools/call", {"name": "add_task", "arguments": {"a": 1, "b": 2}, "task": {}})[
            "result"]["task"]["taskId"]
        for _ in range(1000):
            if self.call("tasks/get", {"taskId": task_id})["result"]["status"] == "completed":
                return task_id  # type: ignore[no-any-return]
            time.sleep(0.01)
        raise AssertionError(f"task {task_id} did not complete")

    def peak_rss_mib(self) -> float:
        with open(f"/proc/{self.process.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        self.stdin.close()  # type: ignore[union-attr]
        self.process.wait(timeout=60)


def cold_start(command: List[str]) -> float:
    start = time.perf_counter()
    session = Session(command)
    session.initialize()
    assert "result" in session.call("tools/list", {})
    elapsed = time.perf_counter() - start
    session.close()
    return elapsed


BLOCK = 500  # calls per block: the servers take turns block by block
PIPELINE_BLOCK = 500  # requests written at once


def throughput(commands: Dict[str, List[str]], n: int, round_: int) -> Dict[str, Dict[str, float]]:
    """For each server: calls per second for each tool, sequential then
    pipelined, and peak RSS.

    All servers run at once and take turns in blocks of BLOCK calls, in an order
    that alternates, so that a slower or faster spell of a shared machine falls
    on all of them alike.  The requests are encoded before the clock starts and
    the replies parsed (and every one checked) after it stops: the driver shares
    the servers' CPU, and its own JSON work would otherwise be counted as theirs.
    """
    sessions = {name: Session(command) for name, command in commands.items()}
    for session in sessions.values():
        session.initialize()
    out: Dict[str, Dict[str, float]] = {name: {} for name in sessions}
    progress = ("progress", {"steps": 100})
    rows = list(CALLS.items()) + [("pipelined scalar", CALLS["scalar"]), (PROGRESS, progress), (PING, ("", {})),
                                  (POLL, ("add_task", {}))]
    for label, (tool, arguments) in rows:
        params: Dict[str, Any] = {"name": tool, "arguments": arguments}
        if label == PROGRESS:
            params["_meta"] = {"progressToken": "bench"}
            # The peak memory of the plain tools, before the async progress tool loads asyncio.
            for name, session in sessions.items():
                out[name]["peak RSS (MiB)"] = session.peak_rss_mib()
        run, size = (pipelined, PIPELINE_BLOCK) if label.startswith("pipelined") else (sequential, BLOCK)
        serving = [name for name, session in sessions.items() if not tool or tool in session.tools]
        method = {PING: "ping", POLL: "tasks/get"}.get(label, "tools/call")
        each = {name: {} if label == PING else {"taskId": sessions[name].finished_task()} if label == POLL
                else params for name in serving}
        elapsed = dict.fromkeys(serving, 0.0)
        for block in range(n // size):
            for name in serving if (block + round_) % 2 == 0 else list(reversed(serving)):
                elapsed[name] += run(sessions[name], each[name], size, warm_up=block == 0, method=method)
        for name in serving:
            out[name][label] = (n // size) * size / elapsed[name]
    for session in sessions.values():
        session.close()
    return out


def sequential(session: Session, params: Dict[str, Any], n: int, warm_up: bool, method: str = "tools/call") -> float:
    """Seconds for n round trips, one request at a time."""
    if warm_up:
        sequential(session, params, 1, warm_up=False, method=method)
    first = session.next_id + 1
    lines = [request_line(first + i, params, method) for i in range(n)]
    stdin, stdout = session.stdin, session.stdout
    replies = []
    start = time.perf_counter()
    for line in lines:
        stdin.write(line)  # type: ignore[union-attr]
        stdin.flush()  # type: ignore[union-attr]
        reply = stdout.readline()  # type: ignore[union-attr]
        while b'"id"' not in reply:  # a notification (progress) before the response
            reply = stdout.readline()  # type: ignore[union-attr]
        replies.append(reply)
    elapsed = time.perf_counter() - start
    session.next_id += n
    check_replies(replies, first)
    return elapsed


def pipelined(session: Session, params: Dict[str, Any], n: int, warm_up: bool, method: str = "tools/call") -> float:
    """Seconds for n requests written at once and their n replies read."""
    if warm_up:
        session.call("tools/call", params)
    first = session.next_id + 1
    data = b"".join(request_line(first + i, params) for i in range(n))
    stdin, stdout = session.stdin, session.stdout

    def write_all() -> None:
        stdin.write(data)  # type: ignore[union-attr]
        stdin.flush()  # type: ignore[union-attr]

    # A thread writes every request while this one reads: a single thread would
    # deadlock once both pipes are full.
    writer = threading.Thread(target=write_all)
    start = time.perf_counter()
    writer.start()
    replies = [stdout.readline() for _ in range(n)]  # type: ignore[union-attr]
    elapsed = time.perf_counter() - start
    writer.join()
    session.next_id += n
    check_replies(replies, first)
    return elapsed


def request_line(id_: int, params: Dict[str, Any], method: str = "tools/call") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode() + b"\n"


def check_replies(replies: List[bytes], first: int) -> None:
    """Every request answered once, without a tool error (in any order: pipelined
    calls may finish out of order)."""
    parsed = [json.loads(raw) for raw in replies]
    assert sorted(r["id"] for r in parsed) == list(range(first, first + len(replies))), "a reply is missing"
    for reply in parsed:
        assert not reply["result"].get("isError"), reply


def import_time(directory: str = ROOT, name: str = "mcp_ref") -> Dict[str, float]:
    """import mcp_ref (of ``directory``) in a fresh interpreter: beyond json
    (which every stdio server needs), and in all."""
    code = ("import sys, time; sys.path.insert(0, %r); t0 = time.perf_counter(); import json; "
            "t1 = time.perf_counter(); import mcp_ref; t2 = time.perf_counter(); print(t2 - t0, t2 - t1)"
            % directory)
    runs = [subprocess.run([VENV_PY, "-I", "-S", "-c", code], capture_output=True, text=True, check=True)
            for _ in range(15)]
    totals, alone = zip(*(map(float, r.stdout.split()) for r in runs))
    return {f"import {name} beyond json (ms)": statistics.median(alone) * 1000,
            f"import json and {name} (ms)": statistics.median(totals) * 1000}


def fmt(values: List[float], digits: int = 0) -> str:
    med = statistics.median(values)
    return f"{med:,.{digits}f} ({min(values):,.{digits}f}-{max(values):,.{digits}f})"


def main() -> None:
    quick = "--quick" in sys.argv
    if shutil.which("taskset") and os.environ.get("MCP_REF_BENCH_PINNED") != "1":
        # One CPU for the driver and every server: stable ratios on a shared machine.
        os.environ["MCP_REF_BENCH_PINNED"] = "1"
        os.execvp("taskset", ["taskset", "-c", "0", sys.executable] + sys.argv)
    ensure_venv()
    rounds, starts, n = (3, 5, 500) if quick else (7, 10, 2000)
    baselines = [sys.argv[i + 1] for i, word in enumerate(sys.argv[:-1]) if word == "--baseline"]
    # The cut core lives as long as this process (the folder goes when the object does).
    folder = None if "--no-core" in sys.argv else tempfile.TemporaryDirectory(prefix="mcp_ref-core-")
    core = folder.name if folder else ""
    if core:
        cut_core(core)
    pyc = compile_files(os.path.join(ROOT, "mcp_ref.py"), *([os.path.join(core, "mcp_ref.py")] if core else []))
    commands = servers(baselines, core)
    cold: Dict[str, List[float]] = {k: [] for k in commands}
    runs: Dict[str, Dict[str, List[float]]] = {k: {} for k in commands}
    for round_ in range(rounds):
        for start in range(starts):  # the servers take turns, in alternating order
            for name in (list(commands) if (start + round_) % 2 == 0 else list(reversed(list(commands)))):
                cold[name].append(cold_start(commands[name]) * 1000)
        for name, metrics in throughput(commands, n, round_).items():
            for metric, value in metrics.items():
                runs[name].setdefault(metric, []).append(value)
        print(f"round {round_ + 1}/{rounds} done", file=sys.stderr)

    micro = json.loads(subprocess.run([VENV_PY, os.path.join(HERE, "micro.py")], capture_output=True, text=True,
                                      check=True).stdout)
    imports = import_time()
    if core:
        imports.update(import_time(core, "mcp_ref core"))
    pyc_kib = {name: os.path.getsize(path) / 1024 for name, path in zip(("mcp_ref", CORE), pyc)}
    python = subprocess.run([VENV_PY, "-c", "import platform; print(platform.python_version())"],
                            capture_output=True, text=True).stdout.strip()
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.machine())
    med = statistics.median
    print(f"\nmachine: {cpu}, {os.cpu_count()} CPUs, pinned to one; Python {python}; "
          f"{rounds} rounds, medians (min-max)\n")
    print(f"| {'metric':34} | {'floor':>24} | {'mcp_ref':>24} | {'SDK':>24} | {'mcp_ref vs SDK':>14} |"
          f" {'mcp_ref / floor':>15} |")
    print("|" + "|".join("-" * w for w in (36, 26, 26, 26, 16, 17)) + "|")

    def row(label: str, values: Dict[str, List[float]], better: Callable[[float, float], float], digits: int = 0,
            floor_ratio: bool = True) -> None:
        ours, sdk, floor = med(values["mcp_ref"]), med(values["sdk"]), med(values["floor"])
        print(f"| {label:34} | {fmt(values['floor'], digits):>24} | {fmt(values['mcp_ref'], digits):>24} | "
              f"{fmt(values['sdk'], digits):>24} | {better(ours, sdk):>13.1f}x | "
              f"{(ours / floor if floor_ratio else float('nan')):>15.2f} |")

    row("cold start to tools/list (ms)", cold, lambda o, s: s / o, 1)
    for metric in METRICS:
        if all(runs[k].get(metric) for k in MAIN):  # tasks/get: mcp_ref's alone, below
            row(f"{metric} (calls/s)", {k: runs[k][metric] for k in MAIN}, lambda o, s: o / s)
    row("peak RSS after the calls (MiB)", {k: runs[k]["peak RSS (MiB)"] for k in MAIN}, lambda o, s: s / o, 1)
    print()
    if core:  # the whole file against its core alone, both against the SDK
        compare_table("mcp_ref", CORE, cold, runs, ("mcp_ref", CORE, "mcp_ref vs SDK", "core vs SDK",
                                                    "core / mcp_ref"))
    for rev in baselines:
        compare_table(f"at {rev}", "mcp_ref", cold, runs, (f"mcp_ref at {rev}", "mcp_ref", "before vs SDK",
                                                           "now vs SDK", "now / before"))
    ours = ("mcp_ref", CORE) if core else ("mcp_ref",)
    # A notification's cost in plain calls: (1/progress rate - 1/scalar rate) / 100, over 1/scalar rate.
    for name in ours + ("sdk",):
        scalar, notifying = med(runs[name]["scalar"]), med(runs[name][PROGRESS])
        print(f"{name}: a progress notification costs {(scalar / notifying - 1) / 100:.2f} plain calls")
    # Polling a task against a ping, and an ordinary call against both (issue 24: polling costs about a ping).
    for name in ours:
        ping, poll, scalar = (med(runs[name][k]) for k in (PING, POLL, "scalar"))
        print(f"{name}: {poll:,.0f} tasks/get of a finished task/s, {ping:,.0f} pings/s: a poll costs "
              f"{ping / poll:.2f} pings; a scalar tools/call costs {ping / scalar:.2f}")
    for label, value in imports.items():
        print(f"{label}: {value:.1f}")
    for name, size in pyc_kib.items():
        print(f"{name}: its .pyc {size:,.0f} KiB")
    print(f"schema building: {micro['schema_build_speedup']:.1f}x faster than pydantic's TypeAdapter")
    print(f"validation per value: {micro['validate_vs_fastjsonschema']:.2f}x fastjsonschema's time, "
          f"{micro['validate_vs_jsonschema']:.2f}x jsonschema's")
    for kind, times in micro["task_create_us"].items():  # micro.task_creation: within 1.5x at 10,000 (issue 31)
        few, many = times["300"], times["10000"]
        print(f"creating a task ({kind} store): {few:.0f} us with 300 stored, {many:.0f} us with 10,000 "
              f"({many / few:.2f}x)")
    if "--json" in sys.argv:
        with open(os.path.join(HERE, "results.json"), "w") as f:
            json.dump({"cold_ms": cold, "runs": runs, "micro": micro, "imports": imports,
                       "baselines": baselines, "pyc_kib": pyc_kib}, f, indent=1)


def compare_table(first: str, second: str, cold: Dict[str, List[float]], runs: Dict[str, Dict[str, List[float]]],
                  heads: Tuple[str, str, str, str, str]) -> None:
    """Two servers side by side (an earlier revision and today's mcp_ref, or
    mcp_ref and its core alone), each against the SDK of the same run, and how
    many times better ``second`` does than ``first`` (faster, or smaller)."""
    med = statistics.median
    print(f"| {'metric':34} | {heads[0]:>24} | {heads[1]:>24} | {heads[2]:>14} | {heads[3]:>11} | {heads[4]:>14} |")
    print("|" + "|".join("-" * w for w in (36, 26, 26, 16, 13, 16)) + "|")
    rows = [("cold start to tools/list (ms)", cold, True)]
    rows += [(f"{metric} (calls/s)", {k: v.get(metric, []) for k, v in runs.items()}, False)
             for metric in METRICS]
    rows.append(("peak RSS after the calls (MiB)", {k: v["peak RSS (MiB)"] for k, v in runs.items()}, True))
    for label, values, lower_is_better in rows:
        if not values[first] or not values[second]:
            continue  # an earlier tools file has no such tool
        before, now = med(values[first]), med(values[second])
        # how many times better than the SDK: faster, or smaller ("-": tasks/get, the SDK has none)
        then_x = now_x = "-"
        if values["sdk"]:
            sdk = med(values["sdk"])
            ratios = (sdk / before, sdk / now) if lower_is_better else (before / sdk, now / sdk)
            then_x, now_x = (f"{ratio:.1f}x" for ratio in ratios)
        now_before = before / now if lower_is_better else now / before
        digits = 1 if lower_is_better else 0
        print(f"| {label:34} | {fmt(values[first], digits):>24} | {fmt(values[second], digits):>24} | {then_x:>14} | "
              f"{now_x:>11} | {now_before:>14.2f} |")
    print()


if __name__ == "__main__":
    main()

"""mcp_ref now against a git revision, on a shared machine: alternating blocks.

    python bench/alternate.py REV [pairs] [blocks] [size]    # defaults: 10 10 200

bench.py's --quick rounds are one block of 500 calls per row and round, too few
when other work shares the machine.  Here ``pairs`` pairs of server processes
(the tools file and mcp_ref.py of now and of REV, bench.checkout) are started
in turn, both pinned to the CPU of this driver; each pair is driven in
``blocks`` blocks of ``size`` calls per row (sequential, but for the pipelined
row: all sent, then every answer read), the two servers taking
turns in alternating order.  Every block gives a ratio (now's time over
before's), and the median of all is printed, with each server's poll and
scalar call in pings (the same block's ping).  Several pairs, because one
process runs up to a fifth faster or slower than the next started the same way.
"""

import os
import shutil
import statistics
import sys
from typing import Dict, List, Tuple

import bench

ROWS = {"ping": ("ping", {}), "scalar": ("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}),
        "object": ("tools/call", {"name": "reading", "arguments": {"city": "London"}}),
        "list of 10 objects": ("tools/call", {"name": "readings", "arguments": {"city": "London", "n": 10}}),
        "pipelined scalar": ("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}),  # all sent, then read
        "tasks/get": ("tasks/get", {}),  # of a finished task of add_task
        "progress (size / 10)": ("tools/call", {"name": "progress", "arguments": {"steps": 100},
                                                "_meta": {"progressToken": "b"}})}


def main() -> None:
    if shutil.which("taskset") and os.environ.get("MCP_REF_BENCH_PINNED") != "1":
        os.environ["MCP_REF_BENCH_PINNED"] = "1"
        os.execvp("taskset", ["taskset", "-c", "0", sys.executable] + sys.argv)
    bench.ensure_venv()
    rev = sys.argv[1]
    given = [int(arg) for arg in sys.argv[2:5]]
    pairs, blocks, size = given + [10, 10, 200][len(given):]
    tools = {"now": bench.TOOLS, "before": bench.checkout(rev)}
    rows = dict(ROWS)
    if "add_task" not in open(tools["before"]).read():  # a revision before tasks: no poll to compare
        del rows["tasks/get"]
    ratios: Dict[str, List[float]] = {row: [] for row in rows}
    in_pings: Dict[Tuple[str, str], List[float]] = {(k, row): [] for k in tools for row in ("tasks/get", "scalar")
                                                    if row in rows}
    for pair in range(pairs):
        first = list(tools) if pair % 2 == 0 else list(reversed(list(tools)))
        sessions = {k: bench.Session([bench.VENV_PY, "-I", tools[k]]) for k in first}
        for session in sessions.values():
            session.initialize()
        tasks = {k: session.finished_task() for k, session in sessions.items()} if "tasks/get" in rows else {}
        for block in range(blocks):
            seconds = {}
            for row, (method, params) in rows.items():
                for k in first if block % 2 == 0 else list(reversed(first)):
                    n = size // 10 if row.startswith("progress") else size
                    run = bench.pipelined if row.startswith("pipelined") else bench.sequential
                    seconds[k, row] = run(sessions[k], {"taskId": tasks[k]} if method == "tasks/get" else params, n,
                                          warm_up=block == 0, method=method)
            for row in rows:
                ratios[row].append(seconds["now", row] / seconds["before", row])
            for k, row in in_pings:
                in_pings[k, row].append(seconds[k, row] / seconds[k, "ping"])
        for session in sessions.values():
            session.close()
    print(f"{pairs} pairs of processes, {blocks} blocks of {size} calls each; medians of the blocks' ratios")
    for row in rows:
        print(f"{row:22} time now / at {rev}: {statistics.median(ratios[row]):.3f}")
    for k in tools:
        poll = f"a poll costs {statistics.median(in_pings[k, 'tasks/get']):.2f} pings, " if "tasks/get" in rows else ""
        print(f"{k:7} {poll}a scalar call {statistics.median(in_pings[k, 'scalar']):.2f} pings")


if __name__ == "__main__":
    main()

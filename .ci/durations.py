"""Where the suite's time goes: each test module's wall time and the slowest tests.

    python .ci/durations.py [-n 30] [module ...]

Runs the modules (test_mcp_ref and every module of tests/ by default, dotted:
tests.core.test_http) one after the other in this process, as ``python -m
unittest`` discovers them (test_mcp_ref without the core's modules it adds when
loaded by name), and prints each module's total (its class and
module fixtures included) and the N slowest tests (setUp and tearDown included,
setUpClass counted in the module's total only), in wall and CPU seconds (the
CPU of finished children included).  Failures are listed, not hidden.
"""

import argparse
import glob
import importlib
import os
import sys
import time
import unittest
from typing import Dict, List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _TimedResult(unittest.TestResult):
    def __init__(self) -> None:
        super().__init__()
        self.times: Dict[str, Tuple[float, float]] = {}
        self._started = (0.0, 0.0)

    def startTest(self, test: unittest.TestCase) -> None:
        super().startTest(test)
        self._started = (time.perf_counter(), _cpu())

    def stopTest(self, test: unittest.TestCase) -> None:
        self.times[test.id()] = (time.perf_counter() - self._started[0], _cpu() - self._started[1])
        super().stopTest(test)


def _cpu() -> float:
    """CPU seconds of this process and its finished children: a test whose wall time
    is far above it is waiting (a sleep, a timeout), and the machine's load barely moves it."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=30)
    parser.add_argument("modules", nargs="*")
    args = parser.parse_args()
    os.chdir(ROOT)
    sys.path.insert(0, ROOT)
    names = args.modules or sorted(p[:-3].replace(os.sep, ".") for p in glob.glob("test_*.py") +
                                   glob.glob(os.path.join("tests", "**", "test_*.py"), recursive=True))
    totals: List[Tuple[float, float, str, int]] = []
    times: Dict[str, Tuple[float, float]] = {}
    bad: List[str] = []
    start = time.perf_counter()
    for name in names:
        began, cpu = time.perf_counter(), _cpu()
        suite = unittest.defaultTestLoader.loadTestsFromModule(importlib.import_module(name), pattern="test*.py")
        result = _TimedResult()
        suite.run(result)
        totals.append((time.perf_counter() - began, _cpu() - cpu, name, result.testsRun))
        times.update(result.times)
        bad += [f"{t.id()} ({kind})" for kind, found in (("failure", result.failures), ("error", result.errors))
                for t, _ in found]
        print(f"{totals[-1][0]:7.1f} s  {name} ({result.testsRun} tests)", file=sys.stderr, flush=True)
    print(f"\nmodules, slowest first (total {time.perf_counter() - start:.1f} s wall, "
          f"{sum(t[1] for t in totals):.1f} s CPU):\n   wall     CPU")
    for seconds, cpu, name, count in sorted(totals, reverse=True):
        print(f"{seconds:7.1f} {cpu:7.1f}  {name} ({count} tests)")
    print(f"\nthe {args.n} slowest tests:\n   wall     CPU")
    for test_id, (seconds, cpu) in sorted(times.items(), key=lambda kv: -kv[1][0])[:args.n]:
        print(f"{seconds:7.2f} {cpu:7.2f}  {test_id}")
    for line in bad:
        print("FAILED", line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

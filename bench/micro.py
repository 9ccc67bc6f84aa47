"""Micro-benchmarks, run by bench.py inside bench/.venv (which has pydantic,
fastjsonschema and jsonschema): schema building against pydantic, and
validation per value against fastjsonschema and jsonschema, on the same
annotations and schemas.  Prints one JSON object.
"""

import functools
import itertools
import json
import os
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Dict, List, Optional

try:  # pydantic refuses typing.TypedDict before Python 3.12
    from typing_extensions import TypedDict
except ImportError:
    from typing import TypedDict

sys.path[:0] = [os.path.dirname(os.path.dirname(os.path.abspath(__file__))), os.path.dirname(os.path.abspath(__file__))]

import mcp_ref  # noqa: E402
from tools_server import Reading  # noqa: E402  (the benchmark server's object)


@dataclass
class Station:
    name: str
    readings: List[Reading] = field(default_factory=list)
    tags: Optional[Dict[str, str]] = None


class Movie(TypedDict):
    title: str
    year: int


ANNOTATIONS = [Reading, List[Reading], Station, Movie, Optional[Dict[str, List[int]]]]
READING = {"city": "London", "temperature": 16.2, "humidity": 0.83, "conditions": "Overcast"}
VALUES = [
    READING,
    [READING] * 10,
    {"name": "Heathrow", "readings": [READING] * 3, "tags": {"kind": "airport"}},
    {"title": "Alien", "year": 1979},
    {"a": [1, 2, 3], "b": []},
]


def best_of(fn, repeat: int, number: int) -> float:  # type: ignore[no-untyped-def]
    """Seconds per call: the best of ``repeat`` runs of ``number`` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


TASKS_STORED = (300, 10000)  # creating a task with so many stored: within 1.5x (issue 31)


def task_creation() -> dict:
    """Microseconds to create a task with 300 and with 10,000 stored (spread over
    50 owners, a third unfinished), in each store: the store's work of
    _Tasks.start (purge what expired, count the owner's and all, create), the
    best of 9 runs of 100, the two sizes taking turns (a slow spell of the
    machine falls on both).  SQLite on a tmpfs when there is one (/dev/shm), so
    that what is measured is its queries, not the disk's sync of each commit."""
    import tempfile

    folder = tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    out: dict = {}
    for kind in ("memory", "sqlite"):
        creates = {}
        for stored in TASKS_STORED:
            store = mcp_ref.SqliteTaskStore(os.path.join(folder.name, f"{stored}.db")) if kind == "sqlite" else \
                mcp_ref.InMemoryTaskStore()
            now = time.time()
            for n in range(stored):
                store.create({"taskId": str(uuid.uuid4()), "owner": f"client {n % 50}", "status":
                              "working" if n % 3 == 0 else "completed", "revision": 0, "createdAt": now,
                              "expiresAt": now + 3600})
            creates[stored] = functools.partial(_create_task, store, itertools.count())
        best = {stored: float("inf") for stored in TASKS_STORED}
        for _ in range(9):
            for stored in TASKS_STORED:
                best[stored] = min(best[stored], best_of(creates[stored], 1, 100))
        out[kind] = {str(stored): seconds * 1e6 for stored, seconds in best.items()}
        for create in creates.values():
            create.args[0].close()
    folder.cleanup()
    return out


def _create_task(store: "mcp_ref.TaskStore", owners: "itertools.count[int]") -> None:
    now, owner = time.time(), f"client {next(owners) % 50}"
    store.purge(now)
    store.count(owner)
    store.create({"taskId": str(uuid.uuid4()), "owner": owner, "status": "working", "revision": 0,
                  "createdAt": now, "expiresAt": now + 3600})


def main() -> None:
    if sys.argv[1:] == ["tasks"]:  # this measure alone (no pydantic needed)
        print(json.dumps({"task_create_us": task_creation()}))
        return
    import fastjsonschema
    import jsonschema
    from pydantic import TypeAdapter

    out: dict = {"schema_build_us": {}, "validate_us": {}}
    ours_total = pydantic_total = 0.0
    for annotation in ANNOTATIONS:
        ours = best_of(lambda: mcp_ref.json_schema(annotation), 5, 200)
        theirs = best_of(lambda: TypeAdapter(annotation).json_schema(), 5, 50)
        assert mcp_ref.json_schema(annotation) == TypeAdapter(annotation).json_schema(), annotation
        out["schema_build_us"][repr(annotation)] = {"mcp_ref": ours * 1e6, "pydantic": theirs * 1e6}
        ours_total += ours
        pydantic_total += theirs
    out["schema_build_speedup"] = pydantic_total / ours_total

    totals = {"mcp_ref": 0.0, "fastjsonschema": 0.0, "jsonschema": 0.0}
    for annotation, value in zip(ANNOTATIONS, VALUES):
        schema = mcp_ref.json_schema(annotation)
        fast = fastjsonschema.compile(schema)
        slow = jsonschema.Draft202012Validator(schema)
        mcp_ref.validate(value, schema)
        fast(value)
        slow.validate(value)
        row = {
            "mcp_ref": best_of(lambda: mcp_ref.validate(value, schema), 5, 2000),
            "fastjsonschema": best_of(lambda: fast(value), 5, 2000),
            "jsonschema": best_of(lambda: slow.validate(value), 3, 200),
        }
        out["validate_us"][repr(annotation)] = {k: v * 1e6 for k, v in row.items()}
        for k, v in row.items():
            totals[k] += v
    out["validate_vs_fastjsonschema"] = totals["mcp_ref"] / totals["fastjsonschema"]
    out["validate_vs_jsonschema"] = totals["mcp_ref"] / totals["jsonschema"]
    out["task_create_us"] = task_creation()
    print(json.dumps(out))


if __name__ == "__main__":
    main()

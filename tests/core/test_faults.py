"""Fault injection over real pipes: whatever the client sends and the tools do,
every request is answered exactly once, stdout carries JSON only, and end of
input ends the process.

Each run starts testdata/fault_server.py, whose tools succeed, raise at every
stage (argument conversion, the call, result conversion), hang for a bounded
time, cancel themselves, or read stdin; it pipes a seeded random sequence of
requests, notifications, cancels and (in 2025-03-26 only) batches, with hostile
values in every field (lone surrogates written as JSON escapes, huge numbers,
nulls, wrong types), then closes stdin and checks what came back:

1. every request with a valid id (a string or an integer) has exactly one
   response, or at most one if the client cancelled it; a batch's members count;
2. every stdout line is one complete JSON value in UTF-8, and nothing else is
   written there;
3. the process exits by itself, with code 0, within EXIT_BOUND seconds;
4. notifications get no response: the responses with no valid id are exactly
   one per request whose id is invalid (null, a boolean, a fraction, ...).

The inputs are deterministic (fixed seeds, 150 lines a run, two or three runs a
test); timing is not, which is the point.  MCP_REF_FUZZ_LONG=1 runs more seeds and messages;
MCP_REF_FAULT_SEED=N runs seed N only.  A failure names the seed and session,
the ids that went unanswered (with their lines), the offending stdout lines and
the last lines of stderr, and saves the input so that
``python testdata/fault_server.py < FILE`` replays it.
"""

import json
import os
import queue
import random
import tempfile
import threading
import time
import unittest
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from tests._testing import HERE  # the repository's root

from tests.core.test_wire import ServerProcess


SERVER = os.path.join(HERE, "tests", "testdata", "fault_server.py")

LONG = os.environ.get("MCP_REF_FUZZ_LONG") == "1"

_ONE_SEED = os.environ.get("MCP_REF_FAULT_SEED")

SEEDS: Tuple[int, ...] = (int(_ONE_SEED),) if _ONE_SEED else tuple(range(1, 13)) if LONG else (1, 2)

MESSAGES = 1000 if LONG else 150

EXIT_BOUND = 15.0  # seconds from closing stdin to the process's exit

PARALLEL = 3  # servers run at once (their tools mostly sleep)

WRITE_BOUND = 15.0  # seconds to write every line; longer means the server stopped reading


MODERN = "2026-07-28"

META_VERSION = "io.modelcontextprotocol/protocolVersion"

META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"

META = {META_VERSION: MODERN, META_CAPABILITIES: {}}

BATCH_SESSION = "2025-03-26"  # the one revision with JSON-RPC batches

SESSIONS = (BATCH_SESSION, "2025-11-25", MODERN)  # MODERN: no handshake, _meta in every request


# What a run injects besides notifications, cancels and client responses (always):
# "ok" tools that succeed, "hostile" values in every field (ids too), tools that
# "raise" at every stage, "hang" for a bounded time, "selfcancel", read "stdin",
# and (in 2025-03-26) "batch"es.
FAMILIES = ("ok", "hostile", "raise", "hang", "selfcancel", "stdin", "batch")


class Raw:
    """JSON text put into a message as it is: numbers Python's json cannot write (1e400)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


SURROGATES = ["\ud800", "\udfff", "a\udc80b", "\ud83d", "\ude00x"]  # lone halves, as \\uXXXX escapes

HOSTILE_STRINGS = SURROGATES + ["", "\x00", "é✓\u2028\u2029", "\ufeff", "\ud83d\ude00", "\\ud800", "9" * 5000,
                                "x" * 2000, "null", "17", '{"a": 1}']

HUGE_NUMBERS: List[Any] = [Raw("1e400"), Raw("-1e400"), Raw("1e-400"), Raw("-0"), 10 ** 1000, -(2 ** 63),
                           2 ** 64, Raw("123456789012345678901234567890.5e-3")]

INVALID_IDS: List[Any] = [None, True, False, 1.5, Raw("1e400"), [1], {"id": 1}]


def valid_id(id_: Any) -> bool:
    """MCP: a request id is a string or an integer, never null (and a boolean is no integer)."""
    return isinstance(id_, str) or (isinstance(id_, int) and not isinstance(id_, bool))


def id_key(id_: Any) -> Tuple[str, Any]:
    return (type(id_).__name__, id_)  # 1 and "1" are different ids


def dump(message: Any) -> bytes:
    """One line of JSON, ASCII only: a lone surrogate goes out as its \\uXXXX escape."""
    raws: List[str] = []

    def swap(value: Any) -> Any:
        if isinstance(value, Raw):
            raws.append(value.text)
            return f"\ue000raw{len(raws) - 1}\ue000"
        if isinstance(value, dict):
            return {k: swap(v) for k, v in value.items()}
        if isinstance(value, list):
            return [swap(v) for v in value]
        return value

    text = json.dumps(swap(message))
    for i, raw in enumerate(raws):
        text = text.replace(json.dumps(f"\ue000raw{i}\ue000"), raw, 1)
    return text.encode("ascii") + b"\n"


def shorten(data: Any, limit: int = 200) -> str:
    text = data.decode("ascii", "backslashreplace") if isinstance(data, bytes) else str(data)
    text = text.rstrip("\n")
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


class Plan:
    """The lines of one run, and what each obliges the server to answer."""

    def __init__(self, seed: int, session: str, families: Tuple[str, ...]) -> None:
        self.seed, self.session, self.families = seed, session, families
        self.lines: List[bytes] = []
        self.pauses: Dict[int, float] = {}  # line index -> seconds to wait after writing it
        self.requests: Dict[Tuple[str, Any], int] = {}  # valid id -> index of its line
        self.cancelled: Set[Tuple[str, Any]] = set()  # cancelled by the client: zero or one response
        self.invalid_ids = 0  # requests with an invalid id: one response each, with no valid id
        self.batches = False

    def describe(self) -> str:
        return f"seed {self.seed}, session {self.session}, faults {'+'.join(self.families)}"


class Generator:
    """Builds a Plan: a seeded random sequence of messages for one session."""

    def __init__(self, seed: int, session: str, families: Tuple[str, ...]) -> None:
        self.rng = random.Random(f"{seed}/{session}/{'+'.join(families)}")
        self.plan = Plan(seed, session, families)
        self.session = session
        self.families = [f for f in families if f != "batch"]
        self.batches = "batch" in families and session == BATCH_SESSION
        # Hostile strings and numbers in every field (ids, methods, names, _meta, requestId)
        # with "hostile" only, so that the other families show their own failures.
        self.wild = "hostile" in families
        self.n = 0
        self.sent_ids: List[Any] = []  # valid ids of the requests sent so far, in order

    # -- values ----------------------------------------------------------------

    def pick(self, plain: List[Any], wild: List[Any]) -> Any:
        return self.rng.choice(plain + wild if self.wild else plain)

    def odd(self) -> Any:
        """A value of the wrong type: hostile with "hostile", else merely wrong."""
        return self.hostile() if self.wild else self.rng.choice([None, True, 17, "x", [1], {"a": 1}])

    def hostile(self, depth: int = 0) -> Any:
        r = self.rng
        kind = r.choice(["str", "str", "number", "null", "bool", "list", "dict"] if depth < 2 else ["str", "number"])
        if kind == "str":
            return r.choice(HOSTILE_STRINGS)
        if kind == "number":
            return r.choice(HUGE_NUMBERS)
        if kind == "null":
            return None
        if kind == "bool":
            return r.random() < 0.5
        if kind == "list":
            return [self.hostile(depth + 1) for _ in range(r.randint(0, 3))]
        return {r.choice(SURROGATES + ["a", "text", "_meta", ""]): self.hostile(depth + 1)
                for _ in range(r.randint(0, 3))}

    def fresh_id(self) -> Any:
        """A valid id no earlier message used."""
        self.n += 1
        n = self.n
        return self.pick([n, -n, f"r{n}", str(n)],
                         [10 ** 30 + n, 2 ** 63 + n, f"\ud800{n}", f"{n}\udfff", f"\udc80{n}\ud83d", f"é\u2028{n}",
                          f"\x00{n}"])

    # -- tools/call arguments, by family ---------------------------------------------

    def call(self) -> Tuple[str, Any]:
        r = self.rng
        family = r.choice(self.families)
        if family == "stdin" and r.random() < 0.8:  # rare: one reader can swallow the rest of the input
            family = r.choice([f for f in self.families if f != "stdin"] or ["ok"])
        if family == "ok":
            return r.choice([("add", {"a": r.randint(-9, 9)}), ("async_add", {"a": r.randint(-9, 9), "b": 2}),
                             ("echo", {"text": "plain"}), ("async_echo", {"text": "é✓"}),
                             ("echo_any", {"value": [1, {"a": None}]}), ("convert", {"p": {"mode": "ok"}}),
                             ("async_convert", {"p": {}}), ("fail", {"kind": "none"}),
                             ("bad_result", {"kind": "ok"}),
                             ("noisy", {"kind": r.choice(["print", "fd", "print", "fd", "child"])})])
        if family == "hostile":
            name = r.choice(["add", "async_add", "echo", "async_echo", "echo_any"])
            key = {"add": "a", "async_add": "a", "echo_any": "value"}.get(name, "text")
            return name, {key: self.hostile()}
        if family == "raise":
            choices: List[Tuple[str, Any]] = [
                ("add", {"a": "9" * 5000}), ("async_add", {"a": "9" * 5000}),
                ("convert", {"p": {"mode": r.choice(["ok", "value", "error", "tool", "interrupt", "exit", "base"])}}),
                ("async_convert", {"p": {"mode": r.choice(["ok", "value", "error", "tool", "interrupt", "exit",
                                                             "base"])}}),
                ("fail", {"kind": r.choice(["tool", "error", "interrupt", "exit", "base", "none"])}),
                ("async_fail", {"kind": r.choice(["tool", "error", "interrupt", "exit", "base", "none"])}),
                ("bad_result", {"kind": r.choice(["str", "object", "huge", "nan", "surrogate", "cyclic", "ok"])}),
                ("async_bad_result", {"kind": r.choice(["str", "object", "huge", "nan", "surrogate", "cyclic"])}),
                ("bad_dict", {"kind": r.choice(["key", "surrogate_key", "bytes", "set", "object", "nan", "huge"])}),
            ]
            return r.choice(choices)
        if family == "hang":
            return r.choice(["sleep", "async_sleep"]), {"seconds": round(r.uniform(0.2, 0.5), 3)}
        if family == "selfcancel":
            return "self_cancel", {"kind": r.choice(["raise", "current", "task"])}
        return r.choice([("read_input", {}), ("read_char", {}), ("child_reads_stdin", {"kind": "cat"}),
                         ("child_reads_stdin", {"kind": "head"})])

    # -- messages ----------------------------------------------------------------

    def meta(self) -> Any:
        """The _meta of a request: the session's own, sometimes hostile."""
        r = self.rng
        stateless = self.session == MODERN
        roll = r.random()
        if roll < 0.85:
            return dict(META) if stateless else None
        if roll < 0.90:
            return dict(META)  # dual era: a stateless request on a handshake connection
        if roll < 0.95:
            return {META_VERSION: self.pick(["2099-01-01", self.odd()], [*SURROGATES, Raw("1e400")]),
                    META_CAPABILITIES: {}}
        return r.choice([{META_VERSION: MODERN, META_CAPABILITIES: self.odd()}, self.odd()])

    def request_params(self, method: str) -> Any:
        r = self.rng
        roll = r.random()
        if roll < 0.04:
            return None  # "params": null
        if roll < 0.06:
            return self.odd()
        params: Dict[str, Any] = {}
        if method == "tools/call":
            name, arguments = self.call()
            if r.random() < 0.06:
                name = self.pick(["nope", ""], SURROGATES + ["echo\udfff"])
            if r.random() < 0.05:
                arguments = self.pick([None, [], "x", {"unknown": 1}, self.odd()], [{"\ud800": 1}])
            params = {"name": name, "arguments": arguments}
        elif method == "tools/list" and r.random() < 0.2:
            params = {"cursor": self.pick(["99", None, "x"], [*SURROGATES, Raw("1e400")])}
        meta = self.meta()
        if meta is not None:
            params["_meta"] = meta
        return params

    def request(self) -> Dict[str, Any]:
        """A request with a fresh valid id; recorded as one the server must answer."""
        r = self.rng
        roll = r.random()
        if roll < 0.75:
            method = "tools/call"
        elif roll < 0.90:
            method = r.choice(["ping", "tools/list", "server/discover"])
        else:
            method = self.pick(["resources/list", "", "notifications/cancelled", "x" * 300],
                               SURROGATES + ["tools/\udfff"])
        id_ = self.fresh_id()
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
        params = self.request_params(method)
        if r.random() > 0.02:
            message["params"] = params
        self.sent_ids.append(id_)
        return message

    def invalid_request(self) -> Dict[str, Any]:
        message = self.request()
        self.sent_ids.pop()
        message["id"] = self.rng.choice(INVALID_IDS)
        return message

    def notification(self) -> Dict[str, Any]:
        r = self.rng
        method = self.pick(["notifications/initialized", "notifications/progress", "x/y", "tools/call", "ping"],
                           SURROGATES)
        message: Dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        roll = r.random()
        if roll < 0.3:
            message["params"] = {"name": "echo", "arguments": {"text": "a notification"}}
        elif roll < 0.5:
            message["params"] = None
        elif roll < 0.8:
            message["params"] = self.odd()
        return message

    def cancel(self) -> Tuple[Dict[str, Any], Optional[Any]]:
        """notifications/cancelled, and the valid id it cancels (if any)."""
        r = self.rng
        roll = r.random()
        target: Optional[Any] = None
        if roll < 0.7 and self.sent_ids:
            target = r.choice(self.sent_ids[-8:])
            request_id: Any = target
        elif roll < 0.9:
            request_id = self.pick([None, True, 1.5], [{"id": 1}, [1], [], {}, Raw("1e400"), *SURROGATES])
        else:
            request_id = f"never-sent-{self.n}"
        params: Any = {"requestId": request_id, "reason": self.pick(["user", None], ["\ud800"])}
        if r.random() < 0.05:
            params = r.choice([None, [], "x"])
            target = None
        return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}, target

    def client_response(self) -> Dict[str, Any]:
        self.n += 1  # an id of its own, which no request uses
        body: Dict[str, Any] = {"result": {}} if self.rng.random() < 0.5 else {
            "error": {"code": -1, "message": self.pick(["no"], ["\ud800"])}}
        return dict({"jsonrpc": "2.0", "id": f"client-response-{self.n}"}, **body)

    def member(self, plan: Plan) -> Any:
        """One message, and its bookkeeping in ``plan``."""
        r = self.rng
        roll = r.random()
        if roll < 0.62:
            message = self.request()
            plan.requests[id_key(message["id"])] = len(plan.lines)
            return message
        if roll < 0.70:
            plan.invalid_ids += 1
            return self.invalid_request()
        if roll < 0.80:
            return self.notification()
        if roll < 0.96:
            message, target = self.cancel()
            if target is not None:
                plan.cancelled.add(id_key(target))
            return message
        return self.client_response()

    def batch(self, plan: Plan) -> List[Any]:
        r = self.rng
        if r.random() < 0.04:
            plan.invalid_ids += 1  # an empty batch: one Invalid Request, id null
            return []
        members: List[Any] = []
        for _ in range(r.randint(1, 4)):
            if r.random() < 0.05:
                plan.invalid_ids += 1  # a member that is no object: Invalid Request, id null
                members.append(r.choice([1, "x", None]))
            else:
                members.append(self.member(plan))
        return members

    def build(self, count: int) -> Plan:
        plan = self.plan
        r = self.rng
        if self.session != MODERN:
            plan.requests[id_key("init")] = 0
            self.emit({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                       "params": {"protocolVersion": self.session, "capabilities": {},
                                  "clientInfo": {"name": "test_faults", "version": "1"}}})
            self.emit({"jsonrpc": "2.0", "method": "notifications/initialized"})
        plan.batches = self.batches
        while len(plan.lines) < count:
            if self.batches and r.random() < 0.15:
                self.emit(self.batch(plan))
            else:
                self.emit(self.member(plan))
            if r.random() < 0.05:
                plan.pauses[len(plan.lines) - 1] = round(r.uniform(0.005, 0.03), 3)
        return plan

    def emit(self, message: Any) -> None:
        self.plan.lines.append(dump(message))


class Outcome:
    def __init__(self) -> None:
        self.stdout: List[bytes] = []
        self.exit_code: Optional[int] = None
        self.hung = False  # still running EXIT_BOUND seconds after stdin closed
        self.write_failed: Optional[str] = None
        self.stopped_reading = False
        self.stdout_open = False  # stdout not closed after the process exited
        self.exit_seconds = 0.0
        self.stderr = ""


def run_plan(plan: Plan) -> Outcome:
    outcome = Outcome()
    server = ServerProcess(script=SERVER)
    try:
        closed = threading.Event()

        def write() -> None:
            i = 0
            try:
                for i, line in enumerate(plan.lines):
                    server.send(line)
                    if i in plan.pauses:
                        time.sleep(plan.pauses[i])
            except OSError as exc:  # the server closed stdin: it read no further
                outcome.write_failed = f"{type(exc).__name__} after writing {i} of {len(plan.lines)} lines"
            finally:
                try:
                    server.process.stdin.close()  # type: ignore[union-attr]
                except OSError:
                    pass
                closed.set()

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        if not closed.wait(WRITE_BOUND):
            outcome.stopped_reading = True  # the pipe is full: nobody reads stdin any more
            server.kill()
        closed.wait(5)
        started = time.monotonic()
        try:
            outcome.exit_code = server.process.wait(timeout=EXIT_BOUND)
        except Exception:  # subprocess.TimeoutExpired
            outcome.hung = True
            server.kill()
        outcome.exit_seconds = time.monotonic() - started
        while True:
            try:
                line = server.lines.get(timeout=5)
            except queue.Empty:
                outcome.stdout_open = True
                break
            if line is None:
                break
            outcome.stdout.append(line)
    finally:
        if server.process.poll() is not None:
            time.sleep(0.05)  # the stderr pump's last read
        server.kill()
    outcome.stderr = server.stderr
    return outcome


def frame_problem(frame: Any) -> Optional[str]:
    """Why a member of stdout is not a JSON-RPC response, or None."""
    if not isinstance(frame, dict):
        return "not a JSON object"
    if frame.get("jsonrpc") != "2.0":
        return 'no "jsonrpc": "2.0"'
    if "id" not in frame:
        return "no id"
    if ("result" in frame) + ("error" in frame) != 1:
        return "not exactly one of result and error"
    return None


def judge(plan: Plan, outcome: Outcome) -> List[str]:
    """The broken promises, each in a line or a few; empty when all were kept."""
    problems: List[str] = []
    if outcome.stopped_reading:
        problems.append(f"the server stopped reading stdin: {WRITE_BOUND:.0f} s were not enough to write "
                        f"{len(plan.lines)} lines (killed)")
    if outcome.hung:
        problems.append(f"no exit: still running {EXIT_BOUND:.0f} s after stdin closed (killed)")
    elif outcome.exit_code != 0 and not outcome.stopped_reading:
        problems.append(f"exit code {outcome.exit_code}, not 0")
    if outcome.stdout_open:
        problems.append("stdout still open 5 s after the process ended")
    if outcome.write_failed and not outcome.stopped_reading:
        problems.append(f"writing stdin failed: {outcome.write_failed}")
    answered: "Counter[Tuple[str, Any]]" = Counter()
    nullish = 0
    bad_lines: List[str] = []
    for line in outcome.stdout:
        if not line.endswith(b"\n"):
            bad_lines.append(f"unterminated line: {shorten(line)}")
            continue
        try:
            value = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError as exc:
            bad_lines.append(f"not UTF-8 ({exc.reason} at byte {exc.start}): {shorten(line)}")
            continue
        except ValueError as exc:
            bad_lines.append(f"not one JSON value ({exc}): {shorten(line)}")
            continue
        if isinstance(value, list):
            if not plan.batches:
                bad_lines.append(f"an array, but no batch was sent: {shorten(line)}")
            elif not value:
                bad_lines.append(f"an empty array: {shorten(line)}")
            frames = value
        else:
            frames = [value]
        for frame in frames:
            problem = frame_problem(frame)
            if problem is not None:
                bad_lines.append(f"{problem}: {shorten(line)}")
                continue
            if valid_id(frame["id"]):
                answered[id_key(frame["id"])] += 1
            else:
                nullish += 1
    if bad_lines:
        problems.append(f"{len(bad_lines)} stdout line(s) that are not JSON-RPC responses, e.g.:")
        problems.extend("    " + text for text in bad_lines[:5])
    unanswered = sorted((index, key) for key, index in plan.requests.items()
                        if answered[key] == 0 and key not in plan.cancelled)
    duplicated = sorted((index, key) for key, index in plan.requests.items() if answered[key] > 1)
    unknown = [key for key in answered if key not in plan.requests]
    if unanswered:
        problems.append(f"{len(unanswered)} of {len(plan.requests)} requests unanswered, first ones "
                        f"(line number, id, line):")
        problems.extend(f"    #{index} {key[1]!r}: {shorten(plan.lines[index])}" for index, key in unanswered[:6])
        first = unanswered[0][0]
        if first > 0:
            problems.append(f"  the line before #{first}: {shorten(plan.lines[first - 1])}")
    if duplicated:
        problems.append(f"{len(duplicated)} requests answered more than once (line number, id, responses):")
        problems.extend(f"    #{index} {key[1]!r} x{answered[key]}: {shorten(plan.lines[index])}"
                        for index, key in duplicated[:6])
    if unknown:
        problems.append(f"responses to ids never sent: {', '.join(repr(key[1]) for key in unknown[:6])}")
    if nullish != plan.invalid_ids:
        problems.append(f"{nullish} responses without a valid id, for {plan.invalid_ids} requests whose id is "
                        f"invalid (one each; more means a notification or a lost line was answered)")
    return problems


def report(plan: Plan, outcome: Outcome, problems: List[str]) -> str:
    fd, path = tempfile.mkstemp(prefix=f"mcp_ref_faults_seed{plan.seed}_", suffix=".jsonl")
    with os.fdopen(fd, "wb") as f:
        f.writelines(plan.lines)
    stderr_tail = outcome.stderr.rstrip("\n").splitlines()[-15:]
    return "\n".join([
        f"{plan.describe()}: {len(plan.lines)} lines sent, {len(plan.requests)} requests, "
        f"{len(plan.cancelled)} cancelled, {len(outcome.stdout)} lines received, "
        f"exit {outcome.exit_code} after {outcome.exit_seconds:.1f} s",
        *problems,
        f"replay: python {os.path.relpath(SERVER)} < {path}",
        "stderr, last lines:",
        *("    " + line for line in stderr_tail),
    ])


class FaultTestCase(unittest.TestCase):
    def check(self, sessions: Tuple[str, ...], families: Tuple[str, ...]) -> None:
        """Each seed in each session (by default, with several sessions, one seed per
        session, in turn), PARALLEL servers at a time; reports every run that broke a promise."""
        if LONG or len(sessions) == 1 or _ONE_SEED:
            runs = [(seed, session) for seed in SEEDS for session in sessions]
        else:
            runs = [(SEEDS[i % len(SEEDS)], session) for i, session in enumerate(sessions)]

        def one(run: Tuple[int, str]) -> Optional[str]:
            plan = Generator(run[0], run[1], families).build(MESSAGES)
            outcome = run_plan(plan)
            problems = judge(plan, outcome)
            return report(plan, outcome, problems) if problems else None

        with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
            failures = [text for text in pool.map(one, runs) if text is not None]
        if failures:
            self.fail("\n" + "\n\n".join(failures))


ALL = FAMILIES


class SessionTest(FaultTestCase):
    """Every fault at once, in each kind of session."""

    def test_handshake_2025_03_26_with_batches(self) -> None:
        self.check((BATCH_SESSION,), ALL)

    def test_handshake_2025_11_25(self) -> None:
        self.check(("2025-11-25",), ALL)

    def test_stateless_2026_07_28(self) -> None:
        self.check((MODERN,), ALL)


class FamilyTest(FaultTestCase):
    """One kind of fault at a time, so that one broken promise does not hide another."""

    def test_hostile_values(self) -> None:
        self.check(SESSIONS, ("hostile", "ok"))

    def test_raising_tools(self) -> None:
        self.check(SESSIONS, ("raise",))

    def test_hanging_tools_and_cancels(self) -> None:
        self.check(SESSIONS, ("hang", "ok"))

    def test_self_cancelling_tools(self) -> None:
        self.check(SESSIONS, ("selfcancel", "ok"))

    def test_tools_reading_stdin(self) -> None:
        self.check(SESSIONS, ("stdin", "ok"))

    def test_batches(self) -> None:
        self.check((BATCH_SESSION,), ("batch", "ok", "hang"))


class OracleTest(unittest.TestCase):
    """The judge itself: it must be able to fail."""

    def plan(self) -> Plan:
        plan = Plan(0, "2025-11-25", ("hostile",))
        plan.lines = [dump({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
                      dump({"jsonrpc": "2.0", "id": "\ud800", "method": "ping"}),
                      dump({"jsonrpc": "2.0", "id": None, "method": "ping"})]
        plan.requests = {id_key(1): 0, id_key("\ud800"): 1}
        plan.invalid_ids = 1
        return plan

    def outcome(self, *lines: bytes) -> Outcome:
        outcome = Outcome()
        outcome.exit_code = 0
        outcome.stdout = list(lines)
        return outcome

    def test_all_kept(self) -> None:
        ok = self.outcome(b'{"jsonrpc":"2.0","id":1,"result":{}}\n', b'{"jsonrpc":"2.0","id":"\\ud800","result":{}}\n',
                          b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}\n')
        self.assertEqual(judge(self.plan(), ok), [])

    def test_each_broken_promise_is_caught(self) -> None:
        one = b'{"jsonrpc":"2.0","id":1,"result":{}}\n'
        null = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}\n'
        surrogate = b'{"jsonrpc":"2.0","id":"\\ud800","result":{}}\n'
        cases: List[Tuple[str, Callable[[Outcome], None], List[bytes]]] = [
            ("unanswered", lambda o: None, [one, null]),
            ("answered more than once", lambda o: None, [one, one, surrogate, null]),
            ("not UTF-8", lambda o: None, [one, b'{"jsonrpc":"2.0","id":"\xed\xa0\x80","result":{}}\n', null]),
            ("not one JSON value", lambda o: None, [one, surrogate, null, b"Traceback\n"]),
            ("responses without a valid id", lambda o: None, [one, surrogate, null, null]),
            ("ids never sent", lambda o: None, [one, surrogate, null, b'{"jsonrpc":"2.0","id":"1","result":{}}\n']),
            ("no exit", lambda o: setattr(o, "hung", True), [one, surrogate, null]),
            ("exit code", lambda o: setattr(o, "exit_code", 1), [one, surrogate, null]),
        ]
        for words, change, lines in cases:
            with self.subTest(words):
                outcome = self.outcome(*lines)
                change(outcome)
                self.assertIn(words, "\n".join(judge(self.plan(), outcome)))

    def test_a_cancelled_request_may_go_unanswered(self) -> None:
        plan = self.plan()
        plan.cancelled.add(id_key("\ud800"))
        null = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}\n'
        self.assertEqual(judge(plan, self.outcome(b'{"jsonrpc":"2.0","id":1,"result":{}}\n', null)), [])

    def test_lines_are_ascii_with_escapes(self) -> None:
        line = dump({"id": "\ud800", "x": Raw("1e400"), "y": [Raw("-0")]})
        self.assertEqual(line, b'{"id": "\\ud800", "x": 1e400, "y": [-0]}\n')


if __name__ == "__main__":
    unittest.main()

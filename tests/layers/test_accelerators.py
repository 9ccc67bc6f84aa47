"""Section 35, Accelerators: each faster twin against the rule it replaces.

For each accelerator (``mcp_ref._ACCELERATORS``; ``_RULES`` holds the rules):
  * it gives what its rule gives, on seeded random inputs (the rule called
    directly, or the whole tool run once in each mode);
  * it fires where it should: with the accelerators switched on, a spy shows
    that the fast path ran and made the result, so a dead fast path fails.
Every test switches the mode it needs explicitly (``_testing.accelerators``)
and leaves the module as it found it, so the file passes with and without
MCP_REF_PURE=1.
"""

import contextlib
import dataclasses
import datetime
import decimal
import io
import json
import random
import unittest
from typing import Annotated, Any, Callable, Dict, List, Optional, Tuple, TypedDict
from unittest import mock

from tests._testing import BOTH, accelerators, end_threads, mcp_ref, server_with


def random_json(rng: random.Random, depth: int = 0) -> Any:
    """A JSON value: strings that need escapes, big and negative numbers, nesting."""
    kind = rng.choice("sifbnld" if depth < 4 else "sif")
    if kind == "s":
        return rng.choice(["", 'a"b', "é\n✓\u2028", "\x00", "tab\t", "\\", "},\n  {"])
    if kind == "i":
        return rng.randint(-10**20, 10**20)
    if kind == "f":
        return rng.choice([0.1, -1e300, 1e-7, 16.2, 3.0, -0.0])
    if kind == "b":
        return rng.random() < 0.5
    if kind == "n":
        return None
    if kind == "l":
        return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(["a", "é", '"k']) + str(i): random_json(rng, depth + 1) for i in range(rng.randint(0, 3))}


class Spy:
    """A function that calls ``fn`` and records each call's arguments and result."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.calls: List[Tuple[Tuple[Any, ...], Any]] = []

    def __call__(self, *args: Any) -> Any:
        out = self.fn(*args)
        self.calls.append((args, out))
        return out

    @property
    def results(self) -> List[Any]:
        return [out for _, out in self.calls]


@contextlib.contextmanager
def spying(name: str, on: bool = True) -> Any:
    """A Spy around the accelerator ``name``, bound by _use_accelerators(on)."""
    spy = Spy(mcp_ref._ACCELERATORS[name])
    with mock.patch.dict(mcp_ref._ACCELERATORS, {name: spy}), accelerators(on):
        yield spy


@dataclasses.dataclass
class Row:
    city: str
    temperature: float
    count: int


@dataclasses.dataclass
class Other:
    city: str
    temperature: float
    count: int


@dataclasses.dataclass
class Slotted:
    __slots__ = ("city", "temperature", "count")
    city: str
    temperature: float
    count: int


class Movie(TypedDict):
    title: str
    year: int


@dataclasses.dataclass
class Stamped:
    day: datetime.date
    amount: decimal.Decimal
    names: Dict[int, str]


@dataclasses.dataclass
class Inner:
    name: str
    weight: float


@dataclasses.dataclass
class Outer:
    inners: List[Inner]
    by_name: Dict[str, Inner]
    best: Optional[Inner] = None


class SwitchTest(unittest.TestCase):
    def test_use_accelerators_binds_every_rule_or_every_accelerator(self) -> None:
        self.assertEqual(set(mcp_ref._RULES), {"_pretty", "_COMPILER", "_texts_of", "_dumps_message",
                                               "_RX_ACCELERATE"})
        self.assertEqual(set(mcp_ref._ACCELERATORS), set(mcp_ref._RULES))
        for name, rule in mcp_ref._RULES.items():
            self.assertIsNot(mcp_ref._ACCELERATORS[name], rule, name)
        self.assertIs(mcp_ref._ACCELERATORS["_COMPILER"], mcp_ref._FastCompiler)
        self.assertIs(mcp_ref._RULES["_COMPILER"], mcp_ref._LaxCompiler)
        self.assertTrue(issubclass(mcp_ref._FastCompiler, mcp_ref._LaxCompiler))
        with accelerators(False):
            for name, rule in mcp_ref._RULES.items():
                self.assertIs(getattr(mcp_ref, name), rule, name)
        with accelerators(True):
            for name, fast in mcp_ref._ACCELERATORS.items():
                expected = fast if mcp_ref._make_encoder is not None else mcp_ref._RULES[name]
                self.assertIs(getattr(mcp_ref, name), expected, name)

    def test_the_mode_is_restored(self) -> None:
        before = {name: getattr(mcp_ref, name) for name in mcp_ref._RULES}
        for on in (True, False, True):
            with accelerators(on):
                pass
            self.assertEqual({name: getattr(mcp_ref, name) for name in mcp_ref._RULES}, before)


class PrettyTextTest(unittest.TestCase):
    """_pretty (section 4) and _fast_pretty: exactly json.dumps(indent=2, ensure_ascii=False)."""

    def test_same_as_json_dumps(self) -> None:
        rng = random.Random(7)
        rule, fast = mcp_ref._RULES["_pretty"], mcp_ref._fast_pretty
        for _ in range(3000):
            data = random_json(rng)
            expected = json.dumps(data, indent=2, ensure_ascii=False)
            self.assertEqual(fast(data), expected)
            self.assertEqual(rule(data), expected)
        for bad in ([1.0, float("nan")], {"a": {"b": float("inf")}}, float("-inf")):
            for pretty in (rule, fast):
                with self.subTest(pretty=pretty, value=bad), self.assertRaises(mcp_ref._NotJSON):
                    pretty(bad)

    def test_what_it_does_not_write_itself(self) -> None:
        """Keys that are no strings, tuples, subclasses of str, int, dict and list:
        the rule's text, indented to its place; what json refuses, json's error."""
        import enum

        class Text(str):
            pass

        class Level(enum.IntEnum):
            LOW = 1

        odd = [{1: "a", None: [2], False: {"x": 1.5}, 2.5: "b", "s": (1, "é")}, [{"a": (1, [2, {3: 4}])}, ()],
               {"k": Text("v"), Text("w"): Level.LOW}, [Level.LOW, Text("t")], {"a": {"b": {"c": {5: ()}}}},
               type("D", (dict,), {})(a=1), {"l": type("L", (list,), {})([1, 2])}, (), ("x",)]
        for value in odd:
            with self.subTest(value=value):
                expected = json.dumps(value, indent=2, ensure_ascii=False)
                self.assertEqual(mcp_ref._fast_pretty(value), expected)
                self.assertEqual(mcp_ref._RULES["_pretty"](value), expected)
        for bad in ({(1, 2): "a"}, {"a": [{(1,): 1}]}, {"a": object()}, [1, {2: float("nan")}]):
            with self.subTest(value=bad):
                errors = []
                for pretty in (mcp_ref._RULES["_pretty"], mcp_ref._fast_pretty):
                    with self.assertRaises((TypeError, mcp_ref._NotJSON)) as caught:
                        pretty(bad)
                    errors.append((type(caught.exception), str(caught.exception)))
                self.assertEqual(errors[0], errors[1])


class CompilerTest(unittest.TestCase):
    """_LaxCompiler (section 29) and _FastCompiler: the same checked values and the
    same errors, through whole tools registered in each mode."""

    def results(self, fns: List[Any], calls: List[Tuple[str, Dict[str, Any]]], on: bool) -> List[Any]:
        with accelerators(on), contextlib.redirect_stderr(io.StringIO()):
            server = server_with(*fns)
            return [server.call_tool(name, arguments) for name, arguments in calls]

    def test_objects_agree_with_the_rule(self) -> None:
        """Random objects for object, list, dict and nested schemas, as results
        (output mode) and as arguments (input mode): keys missing, extra, out of
        order or not strings; values of the declared type, of a convertible one, of
        a wrong one, or NaN; dicts, dataclass instances of the class or another."""
        rng = random.Random(13)
        leaves = ["a", "", 1, 0, -3, 1.5, 2.0, float("nan"), float("inf"), True, None, [1], {"a": 1}, "3", "2.5",
                  10**20]

        def row() -> Any:
            fields = {"city": "a", "temperature": 1.5, "count": 2}
            for key in list(fields):
                change = rng.randrange(8)
                if change == 0:
                    fields[key] = rng.choice(leaves)
                elif change == 1:
                    del fields[key]
            kind = rng.randrange(6)
            if kind == 0 and len(fields) == 3:
                return rng.choice([Row, Other, Slotted])(**fields)
            if kind == 1:
                fields[rng.choice(["extra", 1, None, (1, 2)])] = rng.choice(leaves)  # type: ignore[index]
            if kind == 2:
                return dict(reversed(list(fields.items())))
            if kind == 3 and rng.random() < 0.2:
                return rng.choice(leaves)
            return fields

        def inner() -> Any:
            value = rng.choice([{"name": "n", "weight": 1.5}, {"name": "n", "weight": 2}, {"name": 1, "weight": 1.0},
                                {"name": "n"}, Inner("n", 0.5), {"weight": float("nan"), "name": "n"}])
            return dict(value) if isinstance(value, dict) else value

        def outer() -> Any:
            return {"inners": [inner() for _ in range(rng.randint(0, 3))],
                    "by_name": {str(i): inner() for i in range(rng.randint(0, 2))},
                    **({"best": inner()} if rng.random() < 0.5 else {})}

        values: List[Any] = []

        def one(case: int) -> Row:
            return values[case]  # type: ignore[no-any-return]

        def many(case: int) -> List[Row]:
            return values[case]  # type: ignore[no-any-return]

        def by_city(case: int) -> Dict[str, Row]:
            return values[case]  # type: ignore[no-any-return]

        def movie(case: int) -> Movie:
            return values[case]  # type: ignore[no-any-return]

        def nested(case: int) -> Outer:
            return values[case]  # type: ignore[no-any-return]

        def take(row: Row, rows: List[Row], outer: Outer) -> str:
            return repr((row, rows, outer))

        calls: List[Tuple[str, Dict[str, Any]]] = []
        for case in range(1500):
            name = rng.choice(["one", "many", "by_city", "movie", "nested", "take"])
            if name == "one":
                values.append(row())
            elif name == "many":
                values.append([row() for _ in range(rng.randint(0, 4))])
            elif name == "by_city":
                values.append({str(i): row() for i in range(rng.randint(0, 3))})
            elif name == "movie":
                values.append(rng.choice([{"title": "t", "year": 1}, {"year": 1, "title": "t"}, {"title": "t"},
                                          {"title": "t", "year": 1.0}, {"title": "t", "year": "1", "x": 1}]))
            elif name == "nested":
                values.append(outer())
            else:
                values.append(None)
                arguments = {"row": row(), "rows": [row() for _ in range(rng.randint(0, 3))], "outer": outer()}
                json_ready = json.loads(json.dumps(arguments, default=dataclasses.asdict, skipkeys=True))
                calls.append(("take", json_ready))
                continue
            calls.append((name, {"case": case}))
        fns = [one, many, by_city, movie, nested, take]
        accelerated, pure = self.results(fns, calls, True), self.results(fns, calls, False)
        for (name, arguments), fast, rule in zip(calls, accelerated, pure):
            self.assertEqual(fast, rule, (name, arguments, values[arguments["case"]] if "case" in arguments else ""))
        self.assertGreater(sum(not r["isError"] for r in pure), 300)
        self.assertGreater(sum(r["isError"] for r in pure), 300)

    def test_typed_leaves_are_converted_as_the_rule_does(self) -> None:
        """A date, Decimal or dict[int, T] field looks like a plain string or
        object to JSON Schema, but is converted through its type: the fast
        object step and the list passes leave it to the rule's step."""
        values = [
            [Stamped("2020-01-02T00:00:00", 1.5, {"1": "a"}), Stamped("2020-01-03", 2, {})],
            [{"day": 1577836800, "amount": "1_000", "names": {2: "b"}}],
            [{"day": "2020-01-02", "amount": "1.5", "names": {}}, {"day": "2020-01-02", "amount": "1.5", "names": {}}],
            [{"day": "2023-02-29", "amount": True, "names": {"x": "a"}}],
            [{"day": "2020-01-02T00:00:01", "amount": "nan", "names": {}}],
        ]

        def stamps(case: int) -> List[Stamped]:
            return values[case]  # type: ignore[no-any-return]

        def take(rows: List[Stamped]) -> str:
            return repr(rows)

        calls = [("stamps", {"case": i}) for i in range(len(values))]
        calls.append(("take", {"rows": [{"day": "2020-01-02T00:00:00", "amount": 0.1, "names": {"1": "a"}}]}))
        fast, rule = self.results([stamps, take], calls, True), self.results([stamps, take], calls, False)
        self.assertEqual(fast, rule)
        self.assertEqual(rule[0]["structuredContent"]["result"], [
            {"day": "2020-01-02", "amount": "1.5", "names": {"1": "a"}},
            {"day": "2020-01-03", "amount": "2", "names": {}}])
        self.assertEqual(rule[1]["structuredContent"]["result"], [
            {"day": "2020-01-01", "amount": "1000", "names": {"2": "b"}}])
        self.assertEqual([r["isError"] for r in rule], [False, False, False, True, True, False])
        self.assertEqual(rule[-1]["content"][0]["text"], "[Stamped(day=datetime.date(2020, 1, 2), "
                         "amount=Decimal('0.1'), names={1: 'a'})]")

    def test_lists_checked_in_passes_agree_with_item_by_item(self) -> None:
        """A list of exact objects is checked in a few passes over its members
        (_fast_list); whatever the list holds, the result is the one the item
        checker gives item by item, and the one the rule gives."""
        rng = random.Random(5)

        def item() -> Any:
            row: Any = rng.choice([Row, Row, Row, Other, Slotted])("a", 1.5, 2)
            change = rng.randrange(12)
            if change == 0:
                row.temperature = rng.choice([2, float("nan"), float("inf"), 1e308, True])
            elif change == 1:
                row.count = rng.choice([True, 2.0, "3", None])
            elif change == 2 and not isinstance(row, Slotted):
                row.extra = 1
            elif change == 3:
                row = {"city": "b", "temperature": 0.5, "count": 1}
            elif change == 4:
                row = {"count": 1, "temperature": 0.5, "city": "b"}
            elif change == 5:
                row = {"city": "b", "temperature": 0.5}
            elif change == 6:
                row = {"city": "b", "temperature": 0.5, "number": 1}  # another key of the same type
            return row

        cases = [[item() for _ in range(rng.randint(0, 4))] for _ in range(400)]
        # Two big finite floats whose sum overflows: still fine.
        cases.append([Row("a", 1e308, 1), Row("b", 1e308, 2)])

        def rows(case: int) -> List[Row]:
            return cases[case]

        calls = [("rows", {"case": i}) for i in range(len(cases))]
        in_passes = self.results([rows], calls, True)
        with mock.patch.object(mcp_ref, "_fast_list", lambda *shape: lambda values: None):
            item_by_item = self.results([rows], calls, True)
        self.assertEqual(in_passes, item_by_item)
        self.assertEqual(in_passes, self.results([rows], calls, False))
        self.assertGreater(sum(not r["isError"] for r in in_passes), 100)
        self.assertGreater(sum(r["isError"] for r in in_passes), 20)

    def test_objects_taken_as_they_are_or_converted(self) -> None:
        """An object whose fields are exactly their declared types is copied as it
        is; anything else (an int for a float, a bool for an int, an extra attribute,
        keys out of order, NaN) takes the converting path, with pydantic's result."""
        @dataclasses.dataclass
        class Row:
            city: str
            temperature: float
            count: int
            ok: bool

        def rows(change: str) -> List[Any]:
            row: Any = Row("a", 1.5, 2, True)
            if change == "dict out of order":
                row = {"ok": True, "count": 2, "temperature": 1.5, "city": "a"}
            elif change != "none":
                setattr(row, *{"int for float": ("temperature", 2), "bool for int": ("count", True),
                               "extra attribute": ("other", 1), "nan": ("temperature", float("nan"))}[change])
            return [Row("b", 0.5, 1, False), row]

        def annotated(change: str) -> List[Row]:
            return rows(change)

        first = {"city": "b", "temperature": 0.5, "count": 1, "ok": False}
        for on in BOTH:
            with accelerators(on):
                server = server_with(annotated)
            for change, second in (("none", {"city": "a", "temperature": 1.5, "count": 2, "ok": True}),
                                   ("int for float", {"city": "a", "temperature": 2.0, "count": 2, "ok": True}),
                                   ("bool for int", {"city": "a", "temperature": 1.5, "count": 1, "ok": True}),
                                   ("extra attribute", {"city": "a", "temperature": 1.5, "count": 2, "ok": True}),
                                   ("dict out of order", {"ok": True, "count": 2, "temperature": 1.5, "city": "a"})):
                with self.subTest(accelerated=on, change=change), accelerators(on):
                    result = server.call_tool("annotated", {"change": change})
                    self.assertEqual(result["structuredContent"], {"result": [first, second]})
                    self.assertEqual([b["text"] for b in result["content"]],
                                     [json.dumps(first, indent=2), json.dumps(second, indent=2)])
                    self.assertIs(type(second["temperature"]), float)
            with accelerators(on):
                result = server.call_tool("annotated", {"change": "nan"})
            self.assertTrue(result["isError"])
            self.assertIn("result.1.temperature\n  Input should be a finite number", result["content"][0]["text"])


class TextsOfTest(unittest.TestCase):
    """_texts_of (section 8) and _fast_texts."""

    def test_objects_written_in_one_pass(self) -> None:
        """_fast_texts: a list of two or more objects of leaves gets its texts
        from one pass of json's C encoder; whatever the list, the texts are
        exactly the rule's, _texts_of (each item as _pretty writes it), and NaN
        fails as in the rule."""
        rng = random.Random(11)
        leaves = ["", "},\n  {", ",\n  ", "},\\n  {", "\\", 'a"b', '\\"', "é\n✓\x00", 0, -7, 16.2, 1e300, True, None,
                  -0.0, 10**30]
        rule_of = mcp_ref._RULES["_texts_of"]

        def flat() -> Dict[Any, Any]:
            return {rng.choice(["a", "é", '"k', "},", 1, None, True, 2.5]) if rng.random() < 0.9 else 7: rng.choice(
                leaves) for _ in range(rng.randint(1, 4))}

        one_pass = 0
        for _ in range(2000):
            items = [flat() for _ in range(rng.randint(1, 5))]
            if rng.random() < 0.2:  # one item that is not an object of leaves
                items[rng.randrange(len(items))] = rng.choice([{}, {"a": [1]}, {"b": {"c": 1}}, [1, 2], "s", 3])
            mcp_ref._WRITTEN.last = None
            with mock.patch.dict(mcp_ref._RULES, {"_texts_of": Spy(rule_of)}):
                got = mcp_ref._fast_texts(items)
                written = not mcp_ref._RULES["_texts_of"].calls
            one_pass += written
            self.assertEqual(got, rule_of(items))
            if written:  # the same pass gave the list's compact JSON, as the wire's encoder writes it
                self.assertIs(mcp_ref._WRITTEN.last[0], items)
                self.assertEqual(mcp_ref._WRITTEN.last[1], mcp_ref._ENCODER.encode(items))
            self.assertEqual(got, [json.dumps(item, indent=2, ensure_ascii=False) for item in items])
        self.assertGreater(one_pass, 500)
        nan = [{"a": 1.0}, {"a": float("nan")}]
        for texts_of in (mcp_ref._fast_texts, rule_of):
            with self.subTest(texts_of), self.assertRaises(mcp_ref._NotJSON):  # as the rule: never sent
                texts_of(nan)


class WireEncodingTest(unittest.TestCase):
    """_encode writes each message as compact JSON on one line, with json's C
    encoder object (_fast_dumps) or without it (_dumps_message's rule), and fails
    the way json.dumps fails."""

    def test_same_as_json_dumps(self) -> None:
        messages = [{"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "a\nb\u2028é"}],
                                                          "structuredContent": {"result": [1, 2.5, None, True]},
                                                          "isError": False}},
                    {"jsonrpc": "2.0", "id": "x", "error": {"code": -32600, "message": "Invalid Request"}}]
        cyclic: Dict[str, Any] = {}
        cyclic["self"] = cyclic
        for dumps in (mcp_ref._fast_dumps, mcp_ref._RULES["_dumps_message"]):
            with self.subTest(dumps=dumps), mock.patch.object(mcp_ref, "_dumps_message", dumps):
                for message in messages:
                    self.assertEqual(mcp_ref._encode(message), json.dumps(
                        message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
                with self.assertRaises(ValueError):
                    mcp_ref._encode({"x": float("nan")})
                with self.assertRaises(TypeError):
                    mcp_ref._encode({"x": object()})
                with self.assertRaises((ValueError, RecursionError)):  # json's check, or the C encoder's depth
                    mcp_ref._encode(cyclic)

    def test_a_polled_task_is_written_once_per_revision(self) -> None:
        # tasks/get's Task (_Tasks.shown, made once per revision): _fast_dumps writes its
        # JSON text once and puts it in each response as written, byte for byte the encoder's.
        task = mcp_ref._ShownTask({"taskId": "t\u00e9", "status": "completed", "ttl": None, "pollInterval": 1000})
        for id_ in (7, "a\"é", -1):
            message = {"jsonrpc": "2.0", "id": id_, "result": task}
            for dumps in (mcp_ref._fast_dumps, mcp_ref._RULES["_dumps_message"]):
                with self.subTest(id=id_, dumps=dumps), mock.patch.object(mcp_ref, "_dumps_message", dumps):
                    self.assertEqual(mcp_ref._encode(message), json.dumps(
                        message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
        self.assertEqual(task.json, '{"taskId":"té","status":"completed","ttl":null,"pollInterval":1000}')
        task.json = '{"kept":1}'  # what the next poll sends: the text kept, not the Task encoded again
        self.assertEqual(mcp_ref._fast_dumps({"jsonrpc": "2.0", "id": 1, "result": task}),
                         '{"jsonrpc":"2.0","id":1,"result":{"kept":1}}')
        # Any other frame around it (2026-07-28 copies the Task into its own result) is encoded whole.
        self.assertEqual(mcp_ref._fast_dumps({"jsonrpc": "2.0", "id": 1, "result": task, "x": 1}),
                         '{"jsonrpc":"2.0","id":1,"result":{"taskId":"té","status":"completed","ttl":null,'
                         '"pollInterval":1000},"x":1}')

    def test_random_messages(self) -> None:
        rng = random.Random(19)
        rule = mcp_ref._RULES["_dumps_message"]
        for i in range(2000):
            message = {"jsonrpc": "2.0", "id": rng.choice([i, str(i), "\ud800"]), "result": random_json(rng)}
            expected = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
            self.assertEqual(mcp_ref._fast_dumps(message), expected)
            self.assertEqual(rule(message), expected)
            for dumps in (mcp_ref._fast_dumps, rule):
                with mock.patch.object(mcp_ref, "_dumps_message", dumps):
                    self.assertEqual(json.loads(mcp_ref._encode(message)), message)


def rows(n: int) -> List[Row]:
    return [Row(f"city {i}", 0.5 + i, i) for i in range(n)]


def row_dicts(n: int) -> List[Row]:
    return [{"city": f"city {i}", "temperature": 0.5 + i, "count": i} for i in range(n)]  # type: ignore[misc]


def one_row() -> Row:
    return Row("a", 1.5, 2)


def one_dict() -> Row:
    return {"city": "a", "temperature": 1.5, "count": 2}  # type: ignore[return-value]


def one_movie() -> Movie:
    return {"title": "t", "year": 1}


def rows_result(n: int) -> Dict[str, Any]:
    items = [{"city": f"city {i}", "temperature": 0.5 + i, "count": i} for i in range(n)]
    return {"content": [{"type": "text", "text": json.dumps(item, indent=2)} for item in items],
            "structuredContent": {"result": items}, "isError": False}


def wire_call(server: Any, name: str, arguments: Dict[str, Any]) -> bytes:
    """One tools/call's response as sent, on a connection of its own (2025-11-25)."""
    class Quiet(mcp_ref._Connection):
        def write(self, data: bytes) -> None:
            pass

    conn, got = Quiet(server), []  # type: ignore[var-annotated]
    for message in ({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}):
        conn.handle_safely(message, got.append, True, got.append)
    return got[-1]  # type: ignore[no-any-return]


class FiresTest(unittest.TestCase):
    """Switched on, each accelerator makes the result (the same result as the
    rule's); switched off, none runs."""

    def test_fast_pretty_writes_the_content_text(self) -> None:
        for on in BOTH:
            with self.subTest(accelerated=on), spying("_pretty", on) as spy:
                result = server_with(one_row).call_tool("one_row", {})
                self.assertEqual(result["content"], [{"type": "text", "text": json.dumps(
                    {"city": "a", "temperature": 1.5, "count": 2}, indent=2)}])
                self.assertEqual(spy.results, [result["content"][0]["text"]] if on else [])

    def test_fast_list_copies_a_list_of_exact_objects(self) -> None:
        copied: List[Optional[List[Any]]] = []
        fast_list = mcp_ref._fast_list

        def spy_fast_list(*shape: Any) -> Any:
            copy = fast_list(*shape)

            def spy_copy(values: List[Any]) -> Optional[List[Any]]:
                out = copy(values)
                copied.append(out)
                return out

            return spy_copy

        for on in BOTH:
            for fn in (rows, row_dicts):
                with self.subTest(accelerated=on, tool=fn.__name__), accelerators(on), \
                        mock.patch.object(mcp_ref, "_fast_list", spy_fast_list):
                    del copied[:]
                    server = server_with(fn)
                    result = server.call_tool(fn.__name__, {"n": 10})
                    self.assertEqual(result, rows_result(10))
                    if on:
                        self.assertEqual(copied, [result["structuredContent"]["result"]])
                    else:
                        self.assertEqual(copied, [])

        def mixed() -> List[Row]:
            return [Row("a", 1.5, 2), Row("b", 2, 3)]  # type: ignore[arg-type]  # an int for a float

        # An item that needs converting: the copy declines; the items are checked one by one.
        with accelerators(True), mock.patch.object(mcp_ref, "_fast_list", spy_fast_list):
            del copied[:]
            result = server_with(mixed).call_tool("mixed", {})
        self.assertEqual(copied, [None])
        self.assertEqual(result["structuredContent"]["result"][1]["temperature"], 2.0)

    def test_plain_objects_skip_the_general_member_check(self) -> None:
        """An object of declared properties whose values are exactly their types
        (a dict or a dataclass instance) is checked by _FastCompiler's own step:
        the rule's general member loop (_Compiler._members) never runs."""
        members_calls: List[Any] = []
        members = mcp_ref._Compiler._members

        def spy_members(compiler: Any, schema: Dict[str, Any], properties: Dict[str, Any]) -> Any:
            check = members(compiler, schema, properties)
            if check is None:
                return None

            def spy_check(value: Any, loc: Tuple[Any, ...], errors: List[Any]) -> Any:
                members_calls.append(value)
                return check(value, loc, errors)

            return spy_check

        expected = {"city": "a", "temperature": 1.5, "count": 2}
        for on in BOTH:
            for fn in (one_row, one_dict, one_movie, rows):
                with self.subTest(accelerated=on, tool=fn.__name__), accelerators(on), \
                        mock.patch.object(mcp_ref._Compiler, "_members", spy_members):
                    del members_calls[:]
                    server = server_with(fn)
                    result = server.call_tool(fn.__name__, {"n": 3} if fn is rows else {})
                    if fn is one_movie:
                        self.assertEqual(result["structuredContent"], {"title": "t", "year": 1})
                    elif fn is rows:
                        self.assertEqual(result, rows_result(3))
                    else:
                        self.assertEqual(result["structuredContent"], expected)
                    if on:
                        self.assertEqual(members_calls, [])
                    else:  # the spy does see the rule at work
                        self.assertGreater(len(members_calls), 0)

    def test_fast_texts_writes_a_list_of_flat_objects(self) -> None:
        rule_of = mcp_ref._RULES["_texts_of"]
        texts = [block["text"] for block in rows_result(10)["content"]]
        for on in BOTH:
            with self.subTest(accelerated=on), spying("_texts_of", on) as spy, \
                    mock.patch.dict(mcp_ref._RULES, {"_texts_of": Spy(rule_of)}):
                server = server_with(rows)
                for n in (10, 10, 1):  # a type's results take the quick paths once it has been seen
                    self.assertEqual(server.call_tool("rows", {"n": n}), rows_result(n))
                if not on:
                    self.assertEqual(spy.calls, [])
                    continue
                self.assertEqual(spy.results, [texts, texts, texts[:1]])
                # The lists of ten were written in one pass; the one item by the rule.
                self.assertEqual([args[0] for args, _ in mcp_ref._RULES["_texts_of"].calls],
                                 [[{"city": "city 0", "temperature": 0.5, "count": 0}]])

    def test_fast_dumps_puts_in_the_list_fast_texts_wrote(self) -> None:
        """The list's JSON comes from _fast_texts's one pass, put into the
        response by _fast_dumps: the same bytes as the rule's, whichever is on."""
        plain: List[bytes] = []
        for label, on in [("none", set()), ("texts alone", {"_texts_of"}), ("dumps alone", {"_dumps_message"}),
                          ("both", {"_texts_of", "_dumps_message"})]:
            with self.subTest(label), switched(on):
                server = server_with(rows)
                wire_call(server, "rows", {"n": 2})  # (a type's results take the quick paths once seen)
                with mock.patch.object(mcp_ref, "_fast_dumps_written", Spy(mcp_ref._fast_dumps_written)) as spy:
                    got = [wire_call(server, "rows", {"n": n}) for n in (10, 10, 1)]
                plain = plain or got
                self.assertEqual(got, plain)
                self.assertEqual(len(spy.calls), 2 if on == {"_texts_of", "_dumps_message"} else 0)
        holder = [{"a": mcp_ref._PLACEHOLDER}, {"a": 2}]  # the placeholder itself in a value: written whole
        with switched({"_texts_of", "_dumps_message"}):
            message = {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "structuredContent": {"result": holder}}}
            mcp_ref._fast_texts(holder)
            self.assertEqual(mcp_ref._fast_dumps(message), mcp_ref._ENCODER.encode(message))

    def test_fast_dumps_written_frames_as_the_encoder_does(self) -> None:
        """_fast_dumps_written frames a response as the core makes it itself
        (no placeholder), and any other around the placeholder: either way the
        bytes of the plain encoder, on seeded messages."""
        rng = random.Random(35)
        framed = 0
        for _ in range(500):
            structured = {"result": [random_json(rng) for _ in range(rng.randint(0, 3))]}
            result: Dict[str, Any] = {"content": [{"type": "text", "text": json.dumps(v, indent=2)}
                                                  for v in structured["result"]],
                                      "structuredContent": structured, "isError": False}
            if rng.random() < 0.3:
                result = dict(result, isError=rng.choice([True, 0, None]))
            if rng.random() < 0.2:
                result["_meta"] = random_json(rng)
            if rng.random() < 0.2:
                result = {k: result[k] for k in sorted(result)}
            message = {"jsonrpc": "2.0", "id": rng.choice([1, -7, 2**53, "é\"\n", ""]), "result": result}
            if rng.random() < 0.1:
                message = {"id": message["id"], "jsonrpc": "2.0", "result": result}
            expected = mcp_ref._ENCODER.encode(message)
            written = mcp_ref._ENCODER.encode(structured)
            with self.subTest(message=message):
                self.assertEqual(mcp_ref._fast_dumps_written(message, written), expected)
            framed += tuple(message) == mcp_ref._RESPONSE_KEYS and tuple(result) == mcp_ref._STRUCTURED_KEYS \
                and result["isError"] is False
        self.assertGreater(framed, 100)  # both ways were taken, many times

    def test_fast_dumps_encodes_every_message(self) -> None:
        def add(a: int) -> int:
            return a + 1

        for on in BOTH:
            with self.subTest(accelerated=on), spying("_dumps_message", on) as spy:
                result = server_with(add).call_tool("add", {"a": 1})
                self.assertEqual(result, {"content": [{"type": "text", "text": "2"}],
                                          "structuredContent": {"result": 2}, "isError": False})
                self.assertEqual([json.loads(text) for text in spy.results], [result] if on else [])


@contextlib.contextmanager
def switched(on: Any) -> Any:
    """The names in ``on`` bound to their accelerators, every other one of
    _RULES to its rule; the module's bindings as they were after the block."""
    saved = {name: getattr(mcp_ref, name) for name in mcp_ref._RULES}
    vars(mcp_ref).update({name: (mcp_ref._ACCELERATORS if name in on else mcp_ref._RULES)[name]
                          for name in mcp_ref._RULES})
    try:
        yield
    finally:
        vars(mcp_ref).update(saved)


def switchings() -> List[Tuple[str, Any]]:
    """Every accelerator on, each one alone, and each one off alone."""
    names = sorted(mcp_ref._RULES)
    return [("all on", set(names))] + [(f"{name} alone", {name}) for name in names] + [
        (f"all but {name}", set(names) - {name}) for name in names]


class Opaque:
    """No JSON, and the same text in every run (an error quotes it)."""

    def __repr__(self) -> str:
        return "Opaque()"


class Seen(mcp_ref.Extension):
    """An extension that reads each call's result (SEP-2133) and says what
    structuredContent was to it: an accelerator's own object must not show."""

    identifier = "com.example/seen"

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        result = (await call_next(ctx)).model_dump()
        return dict(result, _meta={"structured": type(result.get("structuredContent")).__name__})


def wire_plan(seed: int) -> Tuple[List[Any], List[Callable[..., Any]], List[Tuple[str, Dict[str, Any]]]]:
    """Seeded values, the tools that return them, and calls of those tools:
    results of many shapes (lists of flat objects, of dataclasses, nested
    dataclasses, TypedDicts, any JSON, scalars, unstructured), results that
    fail (NaN, a wrong type, no JSON, a tool's error) and arguments that do
    (a pattern, an object's fields)."""
    rng = random.Random(seed)
    leaves = ["", "a", 'a"b', "é\n✓\u2028", "},\n  {", ",\n  ", "\\", 0, -7, 10**20, 16.2, -0.0, 1e300, True, None]
    bad = [float("nan"), float("inf"), Opaque(), "3", 2.5, [1], {"x": 1}]
    values: List[Any] = []

    def flat() -> Dict[str, Any]:
        return {rng.choice(["a", "é", '"k', "},"]) + str(i): rng.choice(leaves) for i in range(rng.randint(1, 4))}

    def row() -> Any:
        fields: Dict[str, Any] = {"city": rng.choice(leaves[:5]), "temperature": rng.choice([1.5, -0.0, 1e300]),
                                  "count": rng.randint(-3, 3)}
        if rng.random() < 0.1:
            fields[rng.choice(list(fields))] = rng.choice(bad)
        return Row(**fields) if rng.random() < 0.6 else fields

    def outer() -> Any:
        return Outer([Inner("n", rng.choice([0.5, 2])) for _ in range(rng.randint(0, 3))],
                     {str(i): Inner(str(i), 1.5) for i in range(rng.randint(0, 2))},
                     rng.choice([None, Inner("b", 1.0)]))

    makers: Dict[str, Callable[[], Any]] = {
        "dicts": lambda: [flat() for _ in range(rng.randint(0, 5))] + ([rng.choice(bad + [{"a": [1]}])]
                                                                       if rng.random() < 0.1 else []),
        "any_dicts": lambda: [flat() for _ in range(rng.randint(1, 4))],
        "rows": lambda: [row() for _ in range(rng.randint(0, 5))],
        "one": row,
        "by_city": lambda: {str(i): row() for i in range(rng.randint(0, 3))},
        "nested": outer,
        "movie": lambda: rng.choice([{"title": "t", "year": 1}, {"title": "t"}, {"year": 1, "title": "é"}]),
        "anything": lambda: rng.choice([random_json(rng), random_json(rng), rng.choice(bad)]),
        "items": lambda: [random_json(rng, 2) for _ in range(rng.randint(0, 4))],
        "unstructured": lambda: rng.choice([random_json(rng), [flat(), flat()], Row("a", 1.5, 2), "text"]),
        "number": lambda: rng.choice([1.5, 2, -0.0, 1e300, float("nan"), "x"]),
        "pair": lambda: (rng.randint(0, 9), rng.choice(leaves[:5])),
        "fails": lambda: rng.choice([mcp_ref.ToolError("no " + rng.choice(leaves[:5])), RuntimeError("boom")]),
    }

    def get(case: int) -> Any:
        value = values[case]
        if isinstance(value, Exception):
            raise value
        return value

    def dicts(case: int) -> List[dict]:  # type: ignore[type-arg]
        return get(case)  # type: ignore[no-any-return]

    def any_dicts(case: int) -> List[Dict[str, Any]]:
        return get(case)  # type: ignore[no-any-return]

    def rows(case: int) -> List[Row]:
        return get(case)  # type: ignore[no-any-return]

    def one(case: int) -> Row:
        return get(case)  # type: ignore[no-any-return]

    def by_city(case: int) -> Dict[str, Row]:
        return get(case)  # type: ignore[no-any-return]

    def nested(case: int) -> Outer:
        return get(case)  # type: ignore[no-any-return]

    def movie(case: int) -> Movie:
        return get(case)  # type: ignore[no-any-return]

    def anything(case: int) -> Any:
        return get(case)

    def items(case: int) -> List[Any]:
        return get(case)  # type: ignore[no-any-return]

    def unstructured(case: int):  # type: ignore[no-untyped-def]
        return get(case)

    def number(case: int) -> float:
        return get(case)  # type: ignore[no-any-return]

    def pair(case: int) -> Tuple[int, str]:
        return get(case)  # type: ignore[no-any-return]

    def fails(case: int) -> int:
        return get(case)  # type: ignore[no-any-return]

    def take(code: Annotated[str, mcp_ref.Field(pattern=r"^[a-z]+-[0-9]{2}$")], rows: List[Row],
             tag: Annotated[str, mcp_ref.Field(pattern=r"x[0-9]")] = "x1") -> str:
        return code + tag + repr(rows)

    fns = [dicts, any_dicts, rows, one, by_city, nested, movie, anything, items, unstructured, number, pair, fails,
           take]
    calls: List[Tuple[str, Dict[str, Any]]] = []
    for case in range(300):
        name = rng.choice(list(makers) + ["dicts", "dicts", "rows", "take"])
        if name == "take":
            values.append(None)
            arguments = {"code": rng.choice(["ab-12", "a-1", "AB-12", "ab-123", "é-12", 7]),
                         "rows": [dataclasses.asdict(Row("a", 1.5, 2)) if rng.random() < 0.8 else
                                  {"city": 1, "temperature": "x"} for _ in range(rng.randint(0, 3))]}
            if rng.random() < 0.5:
                arguments["tag"] = rng.choice(["ax1b", "x", "xx9", ""])
            calls.append((name, arguments))
            continue
        values.append(makers[name]())
        calls.append((name, {"case": case}))
    return values, fns, calls


def wire_bytes(seed: int) -> List[bytes]:
    """Every byte the servers of wire_plan(seed) send for its calls, bound as
    the module is now: over stdio (a 2025-11-25 session, and the first 100
    calls to a server with an interceptor) and over Streamable HTTP (2026-07-28,
    the first 100 calls, each on its own)."""
    _, fns, calls = wire_plan(seed)
    out: List[bytes] = []
    with contextlib.redirect_stderr(io.StringIO()):
        for server in (server_with(*fns), mcp_ref.MCPServer("t", extensions=[Seen()])):
            for fn in fns if server._interceptors else ():
                server.add_tool(fn)
            conn = mcp_ref._StdioServer(server, exit_process=False)
            conn.out = io.BytesIO()
            lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
                     {"jsonrpc": "2.0", "method": "notifications/initialized"},
                     {"jsonrpc": "2.0", "id": "list", "method": "tools/list"}]
            lines += [{"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": args}}
                      for i, (name, args) in enumerate(calls[:100] if server._interceptors else calls, 1)]
            for message in lines:
                conn.handle_line(json.dumps(message).encode())
                conn.settle_all(10)
                conn.draining = False
            out.append(conn.out.getvalue())
            end_threads(conn)
        app = server_with(*fns).streamable_http_app(json_response=True)
        for i, (name, args) in enumerate(calls[:100]):
            out.append(http_body(app, {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
                "name": name, "arguments": args, "_meta": {mcp_ref.META_PROTOCOL_VERSION: "2026-07-28",
                                                           mcp_ref.META_CLIENT_CAPABILITIES: {}}}}))
    return out


def http_body(app: Any, message: Dict[str, Any]) -> bytes:
    """The status line and body of a 2026-07-28 POST to the app, called as a WSGI server does."""
    body = json.dumps(message).encode()
    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/mcp", "HTTP_HOST": "127.0.0.1",
               "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)),
               "HTTP_ACCEPT": "application/json, text/event-stream", "wsgi.input": io.BytesIO(body),
               "HTTP_MCP_PROTOCOL_VERSION": "2026-07-28", "HTTP_MCP_METHOD": message["method"],
               "HTTP_MCP_NAME": message["params"]["name"]}
    status: List[str] = []
    chunks = app(environ, lambda line, headers: status.append(line))
    try:
        return status[0].encode() + b"\n" + b"".join(chunks)
    finally:
        getattr(chunks, "close", lambda: None)()


class AloneTest(unittest.TestCase):
    """Each accelerator has one contract with the rule it replaces: the same
    input, the same output, the same errors.  So any of them may be switched on
    or off alone, and the wire carries the same bytes as with every rule plain."""

    def test_each_accelerator_alone_and_each_off_alone_sends_the_plain_bytes(self) -> None:
        with switched(set()):
            plain = wire_bytes(3)
        _, _, calls = wire_plan(3)
        self.assertEqual(len(plain), 2 + 100)
        stdio = [json.loads(line) for line in plain[0].splitlines()]
        self.assertEqual(len(stdio), 2 + len(calls))
        results = [m["result"] for m in stdio[2:]]
        self.assertGreater(sum(not r["isError"] and "structuredContent" in r for r in results), 150)
        self.assertGreater(sum(r["isError"] for r in results), 30)
        lists = [r["structuredContent"]["result"] for r in results if not r["isError"]
                 and type(r.get("structuredContent")) is dict and type(r["structuredContent"].get("result")) is list]
        self.assertGreater(sum(len(items) > 1 and all(type(item) is dict for item in items) for items in lists), 40)
        for label, on in switchings():
            with self.subTest(label), switched(on):
                got = wire_bytes(3)
                for i, (a, b) in enumerate(zip(got, plain)):
                    if a != b:  # the first message that differs, readable
                        for x, y in zip(a.splitlines(), b.splitlines()):
                            self.assertEqual(x.decode(), y.decode(), (label, i))
                self.assertEqual(got, plain, label)

    def test_a_list_of_flat_objects_with_every_other_rule_plain(self) -> None:
        """The case that once failed: the list accelerator alone answered a list of
        flat objects with "the result cannot be converted to JSON (TypeError)"."""
        def flat() -> List[dict]:  # type: ignore[type-arg]
            return [{"a": 1}, {"a": 2}]

        expected = {"content": [{"type": "text", "text": '{\n  "a": 1\n}'}, {"type": "text", "text": '{\n  "a": 2\n}'}],
                    "structuredContent": {"result": [{"a": 1}, {"a": 2}]}, "isError": False}
        for label, on in switchings():
            with self.subTest(label), switched(on):
                self.assertEqual(server_with(flat).call_tool("flat", {}), expected)


if __name__ == "__main__":
    unittest.main()

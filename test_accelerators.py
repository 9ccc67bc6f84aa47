"""Section 34, Accelerators: each faster twin against the rule it replaces.

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

from _testing import BOTH, accelerators, mcp_ref, server_with


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


# ---------------------------------------------------------------------------
# The switch
# ---------------------------------------------------------------------------


class SwitchTest(unittest.TestCase):
    def test_use_accelerators_binds_every_rule_or_every_accelerator(self) -> None:
        self.assertEqual(set(mcp_ref._RULES), {"_pretty", "_COMPILER", "_structured_result", "_encode_reply",
                                               "_dumps_message", "_RX_ACCELERATE", "_call_sync"})
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


# ---------------------------------------------------------------------------
# (a) Each accelerator agrees with its rule
# ---------------------------------------------------------------------------


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


class CompilerTest(unittest.TestCase):
    """_LaxCompiler (section 27) and _FastCompiler: the same checked values and the
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


class StructuredResultTest(unittest.TestCase):
    """_structured_result (section 8) and _fast_structured."""

    def test_objects_written_in_one_pass(self) -> None:
        """_fast_structured: a list of two or more objects of leaves gets its
        content text and its JSON from one pass of json's C encoder: the same
        text as json.dumps(indent=2), JSON that parses back to the value; any
        other value gets exactly what the rule, _structured_result, gives."""
        rng = random.Random(11)
        leaves = ["", "},\n  {", ",\n  ", "},\\n  {", "\\", 'a"b', '\\"', "é\n✓\x00", 0, -7, 16.2, 1e300, True, None]
        rule_of = mcp_ref._RULES["_structured_result"]

        def flat() -> Dict[str, Any]:
            return {rng.choice(["a", "é", '"k', "},"]) + str(i): rng.choice(leaves) for i in range(rng.randint(1, 4))}

        written = 0
        for _ in range(2000):
            items = [flat() for _ in range(rng.randint(1, 5))]
            if rng.random() < 0.2:  # one item that is not an object of leaves
                items[rng.randrange(len(items))] = rng.choice([{}, {"a": [1]}, {"b": {"c": 1}}, [1, 2], "s", 3])
            wrap = rng.random() < 0.5
            structured = {"result": items} if wrap else items
            got = mcp_ref._fast_structured(items, items, structured, wrap)
            rule = rule_of(items, items, structured, wrap)
            flat_only = len(items) > 1 and all(
                type(i) is dict and i and all(type(v) in (str, int, float, bool, type(None)) for v in i.values())
                for i in items)
            if not flat_only:
                self.assertEqual(got, rule)
                continue
            written += 1
            self.assertIs(type(got["structuredContent"]), mcp_ref._PreEncoded)
            self.assertIs(got["structuredContent"].value, structured)
            self.assertEqual(got["content"], rule["content"])
            self.assertEqual(got["isError"], False)
            data = got["structuredContent"].json
            self.assertEqual(json.loads(data), structured)
            self.assertNotIn("\n", data)
        self.assertGreater(written, 500)
        nan = [{"a": 1.0}, {"a": float("nan")}]
        with self.assertRaises(mcp_ref._NotJSON):  # as the rule: never sent
            mcp_ref._fast_structured(nan, nan, nan, False)
        strings = ["a", "b"]  # a string item is its own text
        self.assertEqual(mcp_ref._fast_structured(strings, [{"a": 1}, {"a": 2}], strings, False)["structuredContent"],
                         strings)


class EncodeReplyTest(unittest.TestCase):
    """_encode_reply (section 18) and _fast_encode_reply."""

    def test_written_result_on_the_wire(self) -> None:
        """A written structuredContent is put into the message as it is; if the
        stand-in it replaces occurred anywhere else, the value is encoded instead."""
        structured = {"result": [{"a": 1}]}
        for text in ("[a]", mcp_ref._PLACEHOLDER):
            result = {"content": [{"type": "text", "text": text}], "isError": False,
                      "structuredContent": mcp_ref._PreEncoded(structured, '{"result":[{"a": 1}]}')}
            message = json.loads(mcp_ref._fast_encode_reply(
                result, lambda r: {"jsonrpc": "2.0", "id": 1, "result": r}))
            self.assertEqual(message["result"], {"content": [{"type": "text", "text": text}], "isError": False,
                                                 "structuredContent": structured})

    def test_same_message_as_the_rule(self) -> None:
        """Results from _fast_structured, with the stand-in sometimes elsewhere in
        the message, against the rule's result encoded by the rule: the same
        message; byte for byte where nothing was written in advance."""
        rng = random.Random(17)
        leaves = ["", "é✓", 'a"b', "\\", mcp_ref._PLACEHOLDER, 0, -7, 16.2, True, None]
        spliced = 0
        for i in range(1500):
            items = [{"k" + str(j): rng.choice(leaves) for j in range(rng.randint(1, 3))}
                     for _ in range(rng.randint(1, 4))]
            wrap = rng.random() < 0.5
            structured = {"result": items} if wrap else items
            fast = mcp_ref._fast_structured(items, items, structured, wrap)
            rule = mcp_ref._RULES["_structured_result"](items, items, structured, wrap)
            if rng.random() < 0.2:
                meta = {"k": rng.choice([mcp_ref._PLACEHOLDER, "x"])}
                fast, rule = dict(fast, _meta=meta), dict(rule, _meta=meta)

            def frame(result: Dict[str, Any]) -> Dict[str, Any]:
                return {"jsonrpc": "2.0", "id": i, "result": result}  # noqa: B023 (called at once)

            got = mcp_ref._fast_encode_reply(fast, frame)
            expected = mcp_ref._RULES["_encode_reply"](rule, frame)
            self.assertEqual(json.loads(got), json.loads(expected))
            self.assertTrue(got.endswith(b"\n"))
            self.assertEqual(got.count(b"\n"), 1)
            if type(fast["structuredContent"]) is mcp_ref._PreEncoded:
                if fast["structuredContent"].json.encode() in got:
                    spliced += 1
            else:
                self.assertEqual(got, expected)
        self.assertGreater(spliced, 300)


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


# ---------------------------------------------------------------------------
# (b) Each accelerator fires where it should
# ---------------------------------------------------------------------------


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


class CallSyncTest(unittest.TestCase):
    """_call_sync (section 14: MCPServer._call, run to its end) and
    _fast_call_sync (its steps without the coroutine): one result for every way
    a sync call can end."""

    def test_every_ending_agrees_with_the_rule(self) -> None:
        @dataclasses.dataclass
        class Checked:
            n: int

            def __post_init__(self) -> None:
                if self.n < 0:
                    raise ValueError("negative")

        def ok(a: int) -> int:
            return a * 2

        def tool_error(a: int) -> int:
            raise mcp_ref.ToolError(f"no {a}")

        def crash(a: int) -> int:
            raise RuntimeError("boom")

        def exits(a: int) -> int:
            raise SystemExit(3)

        def built(c: Checked) -> int:
            return c.n

        def wrong(a: int) -> int:
            return "x"  # type: ignore[return-value]

        def asks(a: int) -> Any:
            return mcp_ref.InputRequiredResult({"q": {"method": "roots/list", "params": {}}}, "mine")

        def elicits(a: int, ctx: mcp_ref.Context) -> str:
            return str(ctx.elicit("Name?", {"type": "object", "properties": {"n": {"type": "string"}}}))

        def twice(a: int) -> int:
            return 2 * a

        def name_of() -> Any:
            return mcp_ref.Elicit("Name?", {"type": "object", "properties": {"n": {"type": "string"}}})

        def resolved(a: int, two: Annotated[int, mcp_ref.Resolve(twice)]) -> int:
            return a + two

        def resolved_asks(name: Annotated[Any, mcp_ref.Resolve(name_of)]) -> str:
            return str(name)

        stateless = {"_meta": {mcp_ref.META_PROTOCOL_VERSION: "2026-07-28",
                               mcp_ref.META_CLIENT_CAPABILITIES: {"roots": {}, "elicitation": {}}}}
        bare = {"_meta": {mcp_ref.META_PROTOCOL_VERSION: "2026-07-28", mcp_ref.META_CLIENT_CAPABILITIES: {}}}
        cases = [(ok, {"a": 2}, {}), (ok, {"a": "x"}, {}), (ok, {}, {}), (tool_error, {"a": 1}, {}),
                 (crash, {"a": 1}, {}), (exits, {"a": 1}, {}), (built, {"c": {"n": -1}}, {}),
                 (built, {"c": {"n": 4}}, {}), (wrong, {"a": 1}, {}), (asks, {"a": 1}, stateless),
                 (asks, {"a": 1}, {}), (asks, {"a": 1}, bare), (elicits, {"a": 1}, stateless),
                 (elicits, {"a": 1}, bare), (elicits, {"a": 1}, {}), (resolved, {"a": 1}, {}),
                 (resolved_asks, {}, stateless), (resolved_asks, {}, bare), (resolved_asks, {}, {})]
        key = b"k" * 32
        for fn, arguments, params in cases:
            outcomes = []
            for on in BOTH:
                with accelerators(on), contextlib.redirect_stderr(io.StringIO()):
                    server = server_with(fn, structured_output=None)
                    server._state_key = key
                    tool = server._tools[fn.__name__]
                    version = "2026-07-28" if params else "2025-06-18"
                    request = mcp_ref._Request(None, None, version, params)
                    outcome = mcp_ref._call_sync(server, tool, arguments, request)
                    outcomes.append(vars(outcome) if isinstance(outcome, mcp_ref._RpcError) else outcome)
            with self.subTest(tool=fn.__name__, arguments=arguments, params=params):
                self.assertEqual(outcomes[0], outcomes[1])
                self.assertIsNotNone(outcomes[0])


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

    def test_fast_structured_writes_a_list_of_flat_objects(self) -> None:
        for on in BOTH:
            with self.subTest(accelerated=on), spying("_structured_result", on) as spy:
                server = server_with(rows)
                for n in (10, 10, 1):  # a type's results take the quick paths once it has been seen
                    self.assertEqual(server.call_tool("rows", {"n": n}), rows_result(n))
                if not on:
                    self.assertEqual(spy.calls, [])
                    continue
                self.assertEqual(len(spy.calls), 3)
                written = spy.results[1]["structuredContent"]
                self.assertIs(type(written), mcp_ref._PreEncoded)
                self.assertEqual(json.loads(written.json), rows_result(10)["structuredContent"])
                self.assertEqual(spy.results[1]["content"], rows_result(10)["content"])
                self.assertIsNot(type(spy.results[2]["structuredContent"]), mcp_ref._PreEncoded)  # one item: the rule

    def test_fast_encode_reply_splices_the_written_json(self) -> None:
        for on in BOTH:
            with self.subTest(accelerated=on), spying("_encode_reply", on) as spy:
                server = server_with(rows)
                for _ in range(2):
                    self.assertEqual(server.call_tool("rows", {"n": 5}), rows_result(5))
                if not on:
                    self.assertEqual(spy.calls, [])
                    continue
                (result, frame), data = spy.calls[-1]
                written = result["structuredContent"]
                self.assertIs(type(written), mcp_ref._PreEncoded)
                # The written JSON (with json's ": " after keys) is in the message as it
                # was written; encoding the value again would have given the compact form.
                self.assertIn(written.json.encode(), data)
                self.assertNotIn(json.dumps(written.value, separators=(",", ":")).encode(), data)
                self.assertNotIn(mcp_ref._PLACEHOLDER_JSON, data)
                self.assertEqual(json.loads(data), rows_result(5))

    def test_fast_call_sync_runs_sync_calls(self) -> None:
        def add(a: int) -> int:
            return a + 1

        async def add_async(a: int) -> int:
            return a + 1

        for on in BOTH:
            with self.subTest(accelerated=on), spying("_call_sync", on) as spy:
                server = server_with(add, add_async)
                result = server.call_tool("add", {"a": 1})
                self.assertEqual(result["structuredContent"], {"result": 2})
                self.assertEqual(spy.results, [result] if on else [])
                self.assertEqual(server.call_tool("add_async", {"a": 1}), result)
                self.assertEqual(len(spy.calls), 1 if on else 0)  # an async tool's pipeline needs its loop

    def test_fast_call_sync_learns_result_types_the_sdk_has_not(self) -> None:
        # A dataclass result is learnt (no SDK class in its MRO): later calls skip _sdk_object.
        def reading(city: str) -> Row:
            return Row(city, 1.5, 2)

        with accelerators(True), mock.patch.object(mcp_ref, "_NOT_SDK", set(mcp_ref._NATIVE)):
            server = server_with(reading)
            with mock.patch.object(mcp_ref, "_fast_sdk_object", wraps=mcp_ref._fast_sdk_object) as learning, \
                    mock.patch.object(mcp_ref, "_sdk_object", wraps=mcp_ref._sdk_object) as sdk_object:
                first = server.call_tool("reading", {"city": "x"})
                self.assertEqual(server.call_tool("reading", {"city": "x"}), first)
            self.assertEqual(first["structuredContent"], {"city": "x", "temperature": 1.5, "count": 2})
            self.assertIn(Row, mcp_ref._NOT_SDK)
            self.assertEqual(learning.call_count, 1)  # the first call learns Row; the second skips it
            self.assertEqual(sdk_object.call_count, 0)  # nothing of the SDK's in Row's MRO: never asked

    def test_fast_dumps_encodes_every_message(self) -> None:
        def add(a: int) -> int:
            return a + 1

        for on in BOTH:
            with self.subTest(accelerated=on), spying("_dumps_message", on) as spy:
                result = server_with(add).call_tool("add", {"a": 1})
                self.assertEqual(result, {"content": [{"type": "text", "text": "2"}],
                                          "structuredContent": {"result": 2}, "isError": False})
                self.assertEqual([json.loads(text) for text in spy.results], [result] if on else [])


if __name__ == "__main__":
    unittest.main()

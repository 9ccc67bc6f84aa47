"""Section 30, patterns: ECMA-262 regular expressions matched in linear time.

The JSON Schema Test Suite's pattern cases, ECMA-262 semantics where they differ
from Python's re, a seeded differential test against re on safe patterns (and
against V8 when node is installed), the hostile cases that make re backtrack,
and the criterion for handing a pattern to re.  TestCoreRule: the core's own
rule (section 6, the file cut at its layers line), which checks plain patterns
and refuses the others, against re and the engine on generated patterns.  MCP_REF_FUZZ_LONG=1 runs more
random cases and larger texts; ECMA_PATTERN_VERBOSE=1 prints the timings.
"""

import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
import types
import unicodedata
import unittest

from tests._testing import HERE, mcp_ref as ep


JSTS = os.environ.get("JSTS_DIR", os.path.join(HERE, "..", "shared", "jsts", "draft2020-12"))

LONG = bool(os.environ.get("MCP_REF_FUZZ_LONG"))

SCALE = 1 if LONG else 5  # the default run takes a fifth of the random cases and smaller texts

VERBOSE = bool(os.environ.get("ECMA_PATTERN_VERBOSE"))


def both(pattern):
    """The pure-automaton predicate and the default (maybe re-accelerated) one."""
    return ep._compile_pattern(pattern, accelerate=False), ep._compile_pattern(pattern, accelerate=True)


def search(pattern, text):
    plain, fast = both(pattern)
    a, b = plain(text), fast(text)
    assert a == b, (pattern, text, a, b)
    return a


def timed(predicate, text):
    start = time.perf_counter()
    result = predicate(text)
    return result, time.perf_counter() - start


def report(label, seconds):
    if VERBOSE:
        print(f"\n  {label}: {seconds * 1000:.1f} ms", file=sys.stderr, end="")


class TestJsonSchemaSuite(unittest.TestCase):
    """pattern.json and patternProperties.json of the JSON Schema Test Suite."""

    def load(self, name):
        path = os.path.join(JSTS, name)
        if not os.path.exists(path):
            self.skipTest(f"{path} not found")
        with open(path, encoding="utf-8") as f:
            return json.load(f)

    def test_pattern(self):
        count = 0
        for group in self.load("pattern.json"):
            pattern = group["schema"]["pattern"]
            for case in group["tests"]:
                with self.subTest(group=group["description"], case=case["description"]):
                    data = case["data"]
                    valid = search(pattern, data) if isinstance(data, str) else True
                    self.assertEqual(valid, case["valid"])
                    count += 1
        self.assertGreaterEqual(count, 12)

    def test_pattern_properties(self):
        def valid(schema, value):  # just the keywords these cases use
            if isinstance(schema, bool):
                return schema
            kind = schema.get("type")
            types = {"integer": int, "number": (int, float), "boolean": bool, "string": str,
                     "null": type(None), "object": dict}
            if kind and not (isinstance(value, types[kind]) and
                             (kind in ("boolean", "object") or not isinstance(value, bool))):
                return False
            if "maximum" in schema and isinstance(value, (int, float)) and value > schema["maximum"]:
                return False
            if "patternProperties" in schema and isinstance(value, dict):
                for key, item in value.items():
                    for pattern, sub in schema["patternProperties"].items():
                        if search(pattern, key) and not valid(sub, item):
                            return False
            return True

        count = 0
        for group in self.load("patternProperties.json"):
            schema = {k: v for k, v in group["schema"].items() if k != "$schema"}
            for case in group["tests"]:
                with self.subTest(group=group["description"], case=case["description"]):
                    self.assertEqual(valid(schema, case["data"]), case["valid"])
                    count += 1
        self.assertGreaterEqual(count, 25)


class TestEcmaSemantics(unittest.TestCase):
    def check(self, pattern, yes=(), no=()):
        for text in yes:
            self.assertTrue(search(pattern, text), (pattern, text))
        for text in no:
            self.assertFalse(search(pattern, text), (pattern, text))

    def test_dollar_is_the_very_end(self):
        self.check("a$", yes=["a", "ba"], no=["a\n", "a\r", "ab"])
        self.check("^$", yes=[""], no=["\n"])
        self.check("^a", yes=["ab"], no=["\na", "ba"])

    def test_ascii_classes(self):
        self.check(r"\d", yes=["7"], no=["\u0663", "\uff11", "x"])  # Arabic-Indic 3, fullwidth 1
        self.check(r"^\w+$", yes=["abc_09Z"], no=["\u00e9", "caf\u00e9"])
        self.check(r"\W", yes=["\u00e9", " "], no=["a_1"])
        self.check(r"\D", yes=["\u0663"], no=["5"])
        self.check(r"\bfoo\b", yes=["foo", "a foo.", "\u00e9foo"], no=["foobar", "_foo"])
        self.check(r"\B", yes=["", "ab", "--"], no=["a"])

    def test_dot_and_line_terminators(self):
        self.check("^.$", yes=["a", "\u0085", "\U0001F600", "\ud800"], no=["\n", "\r", "\u2028", "\u2029"])
        self.check("^[^]$", yes=["\n"], no=["", "ab"])
        self.check("[]", no=["", "a", "\n"])

    def test_whitespace(self):
        self.check(r"^\s+$", yes=["\ufeff", "\u00a0", "\u3000\u2028 \t\v\f\r\n", "\u1680"],
                   no=["\u200b", "\u0085", "\u180e"])
        self.check(r"\S", yes=["\u200b"], no=["\ufeff \t"])
        space = ep._RxClass(ep._RX_SPACES)
        for cp in range(0x110000):  # our \s table agrees with ECMA: WhiteSpace + LineTerminator
            ch = chr(cp)
            expected = ch in "\t\v\f\ufeff\n\r\u2028\u2029" or unicodedata.category(ch) == "Zs"
            if expected != space.has(ch):
                self.fail(f"\\s disagrees at U+{cp:04X}")

    def test_unicode_properties(self):
        self.check(r"\p{L}", yes=["\u03c0", "a", "\u00e9"], no=["1", " ", "\u00b2"])
        self.check(r"^\P{L}+$", yes=["12 !", "\u00b2"], no=["a1"])
        self.check(r"^\p{Letter}+$", yes=["Hello", "\u03c0"], no=["123"])
        self.check(r"^\p{digit}+$", yes=["123", "\u0663"], no=["\u00b2", "x"])
        self.check(r"^\p{Nd}$|^\p{Decimal_Number}$|^\p{gc=Nd}$|^\p{General_Category=Nd}$", yes=["5"])
        self.check(r"^\p{Lu}\p{Ll}+$", yes=["Hello"], no=["hello", "HELLO"])
        self.check(r"^\p{LC}$", yes=["a", "\u01c5"], no=["\u02b0"])  # Lt yes, Lm no
        self.check(r"^[\p{N}\p{Zs}]+$", yes=["1 \u00bd\u3000"], no=["a"])
        self.check(r"^[^\p{L}]$", yes=["1"], no=["a"])
        self.check(r"^[\P{L}x]+$", yes=["1x"], no=["a"])
        self.check(r"^\p{Any}$", yes=["\n", "\U0010ffff"])
        self.check(r"^\p{ASCII}+$", yes=["a~\x00"], no=["\u00e9"])
        self.check(r"\p{Assigned}", yes=["a"], no=["\u0378"])
        self.check(r"\p{S}", yes=["+", "$", "\u20ac"], no=["a"])
        self.check(r"\p{P}", yes=["!", "\u00bf"], no=["+"])

    def test_escapes(self):
        self.check(r"^\n\r\t\f\v\0$", yes=["\n\r\t\f\v\x00"])
        self.check(r"^\x41\u0042\u{43}\u{1F600}\cJ$", yes=["ABC\U0001F600\n"])
        self.check(r"^\uD83D\uDE00$", yes=["\U0001F600"], no=["\ud83d\ude00"])
        self.check(r"^\uD83D$", yes=["\ud83d"])
        self.check(r"^\^\$\\\.\*\+\?\(\)\[\]\{\}\|\/$", yes=["^$\\.*+?()[]{}|/"])
        self.check(r"^[\b]$", yes=["\b"], no=["b"])
        self.check(r"^[\-a]+$", yes=["-a-"], no=["b"])
        self.check(r"^[a-c\d-]+$", yes=["a-1c"], no=["d"])
        self.check(r"^[\u0041-\u{5A}]+$", yes=["AZ"], no=["a"])
        self.check(r"^[\w.]+$", yes=["a.b"], no=["a b"])
        self.check(r"^[--0]$", yes=["-", ".", "0"], no=["1"])

    def test_groups_quantifiers(self):
        self.check(r"^(?:ab|cd)+$", yes=["abcdab"], no=["abc", ""])
        self.check(r"^(?<year>\d{4})-(\d{2})$", yes=["2024-01"], no=["24-01"])
        self.check(r"^a{2,3}$", yes=["aa", "aaa"], no=["a", "aaaa"])
        self.check(r"^a{2}$", yes=["aa"], no=["aaa"])
        self.check(r"^a{2,}$", yes=["aa", "aaaaa"], no=["a"])
        self.check(r"^a{0}$", yes=[""], no=["a"])
        self.check(r"^a{0,0}b$", yes=["b"], no=["ab"])
        self.check(r"^a+?b*?c??$", yes=["ab", "aac"], no=["b"])
        self.check(r"^(a|)+$", yes=["", "aaa"])
        self.check(r"^(?:a*)*$", yes=["", "aa"], no=["b"])
        self.check(r"", yes=["", "x"])
        self.check(r"|", yes=[""])
        self.check(r"^()$", yes=[""])

    def test_lookarounds(self):
        self.check(r"^(?=.*\d)(?=.*[a-z]).{6,}$", yes=["abc123"], no=["abcdef", "123456", "a1"])
        self.check(r"^(?!.*password).*$", yes=["hello"], no=["my password"])
        self.check(r"(?<=\$)\d+", yes=["cost $42"], no=["cost 42"])
        self.check(r"(?<!\$)\b\d+", yes=["cost 42"], no=["cost $42"])
        self.check(r"(?<=^|,)x(?=,|$)", yes=["x", "a,x,b"], no=["ax", "a,xb"])
        self.check(r"(?<=(?<!a)b)c", yes=["bc", "xbc"], no=["abc", "c"])
        self.check(r"a(?=b(?!c))", yes=["ab", "abd"], no=["abc", "a"])
        self.check(r"(?<=a+)b$", yes=["aab"], no=["b"])
        self.check(r"(?:(?=a)\w){3}", yes=["aaa"], no=["aab"])

    def test_invalid_patterns(self):
        bad = ["(", ")", "[", "a{", "a{1", "a{,2}", "a{2,1}", "{1}", "*", "a**", "+a", "a|*",
               "]", "}", "\\", r"\-", r"\a", r"\z", r"\_", r"\ ", r"\1", r"(a)\1", r"\k<x>",
               r"(?<x>a)\k<x>", r"\p{Foo}", r"\p{letter}", r"\p{Script=Greek}", r"\p{sc=Latn}",
               r"\pL", r"\p{gc=Foo}", r"\P{Alphabetic}", r"[z-a]", r"[\d-z]", r"[a-\w]",
               r"\x4", r"\u12", r"\u{110000}", r"\u{}", r"\c1", r"\00", r"(?<1x>a)", r"(?<a>b)(?<a>c)",
               r"(?i:a)", r"(?P<x>a)", r"^*", r"$+", r"\b*", r"(?=a)*", r"(?<=a)+", "a{99999}",
               "(a{1000}){1000}", "(?:){1000000000000}", "(" * 5000 + ")" * 5000]
        for pattern in bad:
            for accelerate in (False, True):
                with self.subTest(pattern=pattern[:40]):
                    with self.assertRaises(ValueError) as caught:
                        ep._compile_pattern(pattern, accelerate=accelerate)
                    self.assertIn(repr(pattern)[:30], str(caught.exception))

    def test_garbage_raises_only_value_error(self):
        rng = random.Random(7)
        alphabet = "()[]{}|*+?^$\\.-,:=!<>0123456789abdkpuxcPDSW"
        for _ in range(3000):
            pattern = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
            try:
                predicate = ep._compile_pattern(pattern, accelerate=rng.random() < 0.5)
            except ValueError:
                continue
            predicate("ab0-9{}x" * rng.randint(0, 3))


def random_pattern(rng, depth, lookaround):
    """A random pattern as (ECMA source, equivalent Python re source)."""
    space = "[\\s\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]"  # with re.ASCII
    atoms = [("a", "a"), ("b", "b"), ("c", "c"), (".", "[^\\n\\r\\u2028\\u2029]"), (r"\d", "[0-9]"),
             (r"\w", "[0-9A-Z_a-z]"), (r"\W", "[^0-9A-Z_a-z]"), ("[ab]", "[ab]"), ("[^a]", "[^a]"),
             ("[a-c1]", "[a-c1]"), (r"\n", "\\n"), (r"\s", space), (r"\x61", "a")]
    roll = rng.random()
    if depth <= 0 or roll < 0.3:
        return rng.choice(atoms)
    if roll < 0.45:
        return rng.choice([("^", r"\A"), ("$", r"\Z"), (r"\b", r"\b"),
                           (r"\B", r"(?:\B|\A\Z)")])
    if roll < 0.65:
        parts = [random_pattern(rng, depth - 1, lookaround) for _ in range(rng.randint(2, 3))]
        return "".join(p[0] for p in parts), "".join(p[1] for p in parts)
    if roll < 0.75:
        a, b = random_pattern(rng, depth - 1, lookaround), random_pattern(rng, depth - 1, lookaround)
        return f"(?:{a[0]}|{b[0]})", f"(?:{a[1]}|{b[1]})"
    if roll < 0.9 or not lookaround:
        body = random_pattern(rng, depth - 1, lookaround)
        q = rng.choice(["*", "+", "?", "{2}", "{0,2}", "{1,}", "{2,3}"]) + rng.choice(["", "", "?"])
        return f"({body[0]}){q}", f"(?:{body[1]}){q}"
    if rng.random() < 0.5:
        body = random_pattern(rng, depth - 1, lookaround)
        kind = rng.choice(["=", "!"])
    else:  # Python's lookbehind needs a fixed width: a string of single atoms
        parts = [rng.choice(atoms) for _ in range(rng.randint(1, 2))]
        body = "".join(p[0] for p in parts), "".join(p[1] for p in parts)
        kind = rng.choice(["<=", "<!"])
    return f"(?{kind}{body[0]})", f"(?{kind}{body[1]})"


class TestDifferential(unittest.TestCase):
    """Random patterns where ECMA-262 and a hand translation for re must agree."""

    def run_random(self, seed, count, lookaround):
        rng = random.Random(seed)
        chars = "abc1_ \n\u00e9\ufeff\u2028"
        checked = accelerated = 0
        deadline = time.monotonic() + 20
        while checked < count and time.monotonic() < deadline:
            ecma, py = random_pattern(rng, 4, lookaround)
            expected_re = re.compile(py, re.ASCII)  # ASCII: \b and \s as ECMA, for a-z text
            plain = ep._compile_pattern(ecma, accelerate=False)
            fast = ep._compile_pattern(ecma, accelerate=True)
            accelerated += fast is not plain and not isinstance(fast, ep._RxMatcher)
            for _ in range(8):
                text = "".join(rng.choice(chars) for _ in range(rng.randint(0, 9)))
                expected = expected_re.search(text) is not None
                self.assertEqual(plain(text), expected, (ecma, py, text))
                self.assertEqual(fast(text), expected, (ecma, py, text, "accelerated"))
                checked += 1
        self.assertGreater(checked, count // 4)
        return checked, accelerated

    def test_random_against_re(self):
        checked, accelerated = self.run_random(1234, 16000 // SCALE, lookaround=False)
        self.assertGreater(accelerated, 20 // SCALE)  # the re path is exercised too

    def test_random_lookarounds_against_re(self):
        self.run_random(99, 8000 // SCALE, lookaround=True)

    def test_random_with_a_thrashing_cache(self):  # flushes all the time: the plain simulation
        saved = ep._RX_CACHE_BUDGET
        try:
            ep._RX_CACHE_BUDGET = 5
            self.run_random(7, 3000 // SCALE, lookaround=False)
            self.run_random(8, 3000 // SCALE, lookaround=True)
        finally:
            ep._RX_CACHE_BUDGET = saved


NODE_SCRIPT = r"""
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map(([p, texts]) => {
  let r; try { r = new RegExp(p, "u"); } catch (e) { return null; }
  return texts.map(t => { const m = r.exec(t); if (!m) return false;
    const c = t.charCodeAt(m.index - 1);  // V8 tries empty matches inside a surrogate pair
    return m.index > 0 && c >= 0xd800 && c <= 0xdbff ? "between surrogates" : true; });
})));
"""


def ecma_random_pattern(rng, depth):
    """A random ECMA-262 pattern, sometimes broken, for comparison with V8."""
    atoms = ["a", "b", "1", " ", "_", "\u00e9", ".", r"\d", r"\D", r"\w", r"\W", r"\s", r"\S", r"\p{L}",
             r"\P{L}", r"\p{Nd}", r"\p{Lu}", "[a-c]", r"[^\d]", r"[\w-]", "[]", "[^]", r"\x61", r"\n", r"[\b]",
             r"[^a\s]", r"\u{1F600}", r"[\p{L}1]", r"\.", r"\$"]
    roll = rng.random()
    if depth <= 0 or roll < 0.3:
        return rng.choice(atoms)
    if roll < 0.4:
        return rng.choice(["^", "$", r"\b", r"\B"])
    if roll < 0.6:
        return "".join(ecma_random_pattern(rng, depth - 1) for _ in range(rng.randint(2, 3)))
    if roll < 0.7:
        return ecma_random_pattern(rng, depth - 1) + "|" + ecma_random_pattern(rng, depth - 1)
    if roll < 0.85:
        q = rng.choice(["*", "+", "?", "{2}", "{0,2}", "{1,}", "{2,3}", "{0}"]) + rng.choice(["", "?"])
        group = rng.choice(["(", "(?:", f"(?<g{rng.randint(0, 10 ** 6)}>"])
        return group + ecma_random_pattern(rng, depth - 1) + ")" + q
    return rng.choice(["(?=", "(?!", "(?<=", "(?<!"]) + ecma_random_pattern(rng, depth - 1) + ")"


@unittest.skipUnless(shutil.which("node"), "node (V8) is not installed")
class TestAgainstV8(unittest.TestCase):
    """Validity and results against a real ECMA-262 engine, where node is available."""

    def test_random_against_v8(self):
        rng = random.Random(2024)
        broken = ["{", "}", "]", r"\-", r"\a", "(?", r"\c", "[z-a]", "a{2,1}", "(?<1>a)", r"\00", "*", ")"]
        cases = []
        for _ in range(1500):
            pattern = ecma_random_pattern(rng, 4)
            if rng.random() < 0.1:
                k = rng.randint(0, len(pattern))
                pattern = pattern[:k] + rng.choice(broken) + pattern[k:]
            chars = "ab1 _\u00e9\n\u2028\U0001F600.$"
            cases.append((pattern, ["".join(rng.choice(chars) for _ in range(rng.randint(0, 8))) for _ in range(8)]))
        run = subprocess.run(["node", "-e", NODE_SCRIPT], input=json.dumps(cases), capture_output=True,
                             text=True, check=True)
        for (pattern, texts), results in zip(cases, json.loads(run.stdout)):
            try:
                predicates = both(pattern)
            except ValueError as e:  # our only extra refusal here: the program size cap
                self.assertTrue(results is None or "too large" in str(e), (pattern, str(e)))
                continue
            self.assertIsNotNone(results, f"V8 refuses {pattern!r}")
            for text, result in zip(texts, results):
                if result != "between surrogates":
                    for predicate in predicates:
                        self.assertEqual(predicate(text), result, (pattern, text))


class TestLinearTime(unittest.TestCase):
    # (pattern, text, result): each takes seconds or forever with re.search
    hostile = [(r"\d+$", "1" * 12000 + "x", False), (r"(a+)+$", "a" * 12000 + "!", False),
               (r"(a|aa)+$", "a" * 12000 + "!", False), (r"(\w+\s?)*$", "ab " * 4000 + "!", True),
               (r"^(\w+\s?)*$", "a" * 12000 + "!", False), (r"(x+x+)+y", "x" * 12000, False),
               (r"^(a|a?)+$", "a" * 12000 + "b", False), (r"(?=(a+)+$)a", "a" * 3000 + "!", False),
               (r"\d+(?<=1+)$", "1" * 12000 + "x", False), (r"\b\d+\b$", "1" * 12000 + "x", False)]

    def test_hostile(self):
        for pattern, text, expected in self.hostile:
            for accelerate in (False, True):
                predicate = ep._compile_pattern(pattern, accelerate=accelerate)
                self.assertEqual(predicate(text[:50] + text[-1]), expected)
                result, seconds = timed(predicate, text)
                report(f"hostile {pattern} accelerate={accelerate} ({len(text)} chars)", seconds)
                self.assertEqual(result, expected)
                self.assertLess(seconds, 1.0, pattern)

    def test_exponential_dfa(self):  # 2**16 DFA states: the cache thrashes, the simulation goes on
        rng = random.Random(3)
        text = "".join(rng.choice("ab") for _ in range(100_000 // SCALE))
        for pattern in (r"[ab]*a[ab]{15}!", r"(?<=a[ab]{15})!"):
            predicate = ep._compile_pattern(pattern)
            self.assertTrue(predicate("b" + "a" * 16 + "!"))
            result, seconds = timed(predicate, text)
            report(f"thrashing {pattern} ({len(text)} chars)", seconds)
            self.assertFalse(result)
            self.assertLess(seconds, 20.0)

    def test_hostile_stays_linear(self):
        predicate = ep._compile_pattern(r"(a|aa)+$", accelerate=False)
        predicate("a" * 500 + "!")  # warm the DFA cache
        _, small = timed(predicate, "a" * 20000 + "!")
        _, large = timed(predicate, "a" * 80000 + "!")
        self.assertLess(large, 4 * small * 3 + 0.05)  # quadratic would be 16x

    def test_four_mebibytes(self):
        big = "a" * ((4 << 20) // SCALE)
        for pattern, expected in [(r"^[a-z]+$", True), (r"\d+$", False), (r"^[a-z]*\d", False),
                                  (r"a{3}b|c", False), (r"^(?:ab|a)*$", True), ("x", False)]:
            for accelerate in (False, True):
                result, seconds = timed(ep._compile_pattern(pattern, accelerate=accelerate), big)
                report(f"4 MiB {pattern} accelerate={accelerate}", seconds)
                self.assertEqual(result, expected, pattern)
                self.assertLess(seconds, 10.0)

    def test_four_mebibytes_unicode_and_boundaries(self):
        big = ("\u03c0\u03b1 " * (1 << 20))[: (4 << 20) // SCALE]
        for pattern in (r"^[\p{L} ]+$", r"\bzz"):
            result, seconds = timed(ep._compile_pattern(pattern, accelerate=False), big)
            report(f"4 MiB {pattern}", seconds)
            self.assertEqual(result, pattern.startswith("^"))
            self.assertLess(seconds, 30.0)


class TestAcceleratorCriterion(unittest.TestCase):
    def test_safe_and_unsafe(self):
        def uses_re(pattern):
            return not isinstance(ep._compile_pattern(pattern, accelerate=True), ep._RxMatcher)

        for pattern in [r"^\d+$", r"^[a-z]+@[a-z]+\.com$", r"^\d{1,3}(\.\d{1,3}){3}$", "X_", "[0-9]{2}",
                        r"a{3}b|c", r"\bfoo\b\.(?:com|org)",
                        r"^(?:ab|cd){0,3}e$", r"^a+b?$", r"\bfoo\b", r"^[a-z]*(?:-[a-z]{1,9})?$"]:
            self.assertTrue(uses_re(pattern), pattern)
        for pattern in [r"\d+$", r"^(a+)+$", r"^(a|aa)+$", r"^(\w+\s?)*$", r"^(a*)*$", r"^a*a$",
                        r"^(?=a)a", r"^\p{L}+$", "[0-9]{2,}", r"^(a?){3}$", r"^\d{1,3}\d$", "a{21}",
                        r"^(?:ab|cd)*e$", r"^(?:a|b)+$", r"\w{0,9}\s", r"ab?"]:
            self.assertFalse(uses_re(pattern), pattern)

    def test_accelerated_patterns_stay_fast(self):
        """Random patterns that pass the criterion, on long repetitive texts."""
        rng, tried, attempts = random.Random(11), 0, 0
        pieces = ["a", "b", "1", " ", "ab", "a1", "ba", "11", "a ", "x"]
        while tried < 150 // SCALE:
            attempts += 1
            self.assertLess(attempts, 100_000, "too few random patterns pass the criterion")
            pattern = rng.choice(["^", ""]) + ecma_random_pattern(rng, 4).replace("(?<", "(?:").replace("(?=", "(?:")
            try:
                predicate = ep._compile_pattern(pattern.replace("(?!", "(?:"), accelerate=True)
            except ValueError:
                continue
            if isinstance(predicate, ep._RxMatcher):
                continue
            tried += 1
            unit = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 4)))
            text = unit * (50_000 // SCALE // len(unit)) + rng.choice(["", "!", "\n", "a"])
            _, seconds = timed(predicate, text)
            self.assertLess(seconds, 1.0, (pattern, unit))

    def test_module_switch(self):
        saved = ep._RX_ACCELERATE
        try:
            for on in (False, True):
                ep._RX_ACCELERATE = on  # as _use_accelerators sets it
                self.assertEqual(not isinstance(ep._compile_pattern(r"^\d+$"), ep._RxMatcher), on)
        finally:
            ep._RX_ACCELERATE = saved


_CORE = []


def cut_core():
    """The core alone: mcp_ref.py above its line "# ---- layers", loaded as a
    module of its own, whose _compile_pattern no layer has refined."""
    if not _CORE:
        with open(ep.__file__, encoding="utf-8") as f:
            source = f.read()
        module = types.ModuleType("mcp_ref_core")
        module.__file__ = ep.__file__
        sys.modules[module.__name__] = module  # (dataclasses look their module up)
        exec(compile(source[:source.index("\n# ---- layers")], ep.__file__, "exec"), module.__dict__)
        _CORE.append(module)
    return _CORE[0]


SPACE = "\\s\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"  # ECMA's \s, with re.ASCII

PLAIN_ATOMS = [("a", "a"), ("b", "b"), ("1", "1"), (" ", " "), ("\u00e9", "\u00e9"), ("/", "/"), (r"\.", r"\."),
               (".", "[^\\n\\r\\u2028\\u2029]"), (r"\d", "[0-9]"), (r"\D", "[^0-9]"), (r"\w", "[0-9A-Z_a-z]"),
               (r"\W", "[^0-9A-Z_a-z]"), (r"\s", f"[{SPACE}]"), (r"\S", f"[^{SPACE}]"), ("[ab]", "[ab]"),
               ("[^a]", "[^a]"), ("[a-c1]", "[a-c1]"), (r"[\d.]", "[0-9.]"), (r"[^\s]", f"[^{SPACE}]"),
               (r"[\D1]", "[^02-9]"), (r"\n", "\\n"), (r"\/", "/"), (r"[\-a]", "[\\-a]"), (r"[\b]", "\\x08"),
               ("[]", "[^\\s\\S]"), ("[^]", "[\\s\\S]"), (r"\$", r"\$"), (r"\^", r"\^")]

PLAIN_TEXT = "ab1 \u00e9/.\n\u2028\ufeff\x08-c$^"


def plain_terms(rng):
    """A plain pattern's terms, each as (ECMA source, equivalent Python re source)."""
    terms = []
    for _ in range(rng.randint(0, 5)):
        atom = rng.choice(PLAIN_ATOMS)
        q = rng.choice(["", "", "", "*", "+", "?", "{2}", "{0,2}", "{1,}", "{2,3}", "{0}"])
        q += rng.choice(["", "", "?"]) if q else ""
        terms.append((atom[0] + q, (f"(?:{atom[1]})" + q) if q else atom[1]))
    return terms


def plain_pattern(rng):
    """A random plain pattern (what the core checks) as (ECMA source, Python re source)."""
    start, end = rng.random() < 0.4, rng.random() < 0.4
    terms = plain_terms(rng)
    return ("^" * start + "".join(t[0] for t in terms) + "$" * end,
            "\\A" * start + "".join(t[1] for t in terms) + "\\Z" * end)


# Valid ECMA-262 that only the pattern layer checks: inserted between a plain pattern's terms.
NOT_PLAIN = ["(a)", "(?:ab)", "a|b", "(?<n>a)", r"\b", r"\B", "(?=a)", "(?!a)", "(?<=a)", "(?<!a)", r"\p{L}",
             r"\P{Lu}", r"[\p{N}a]", r"\x41", r"\u0041", r"\u{41}", r"\cA", r"[\x41]", "$a", "a^b", "(?:a|b)+"]


class TestCoreRule(unittest.TestCase):
    """The core's own _compile_pattern (section 6), as the file cut at its layers
    line has it: plain patterns searched in linear time, any other refused."""

    @classmethod
    def setUpClass(cls):
        cls.core = cut_core()

    def test_the_layer_refines_the_seam(self):
        self.assertIs(ep._compile_pattern, ep._rx_compile_pattern)
        self.assertIsNot(self.core._compile_pattern, ep._rx_compile_pattern)
        self.assertIn("_compile_pattern", ep._SEAMS)

    def test_what_servers_publish(self):
        """The roots check's pattern (client/roots), the suite's pattern cases the
        core checks, and patterns seen in published tool schemas."""
        roots = self.core._ANSWERS["roots/list"]["properties"]["roots"]["items"]["properties"]["uri"]["pattern"]
        cases = {roots: (["file:///home/a", "file://"], ["http://x", "FILE:///a", " file://"]),
                 "^a*$": (["", "aa"], ["abc"]), "a+": (["xxaayy"], ["xyz"]),  # pattern.json
                 "f.*o": (["foo", "fo"], ["of"]), "^.*bar$": (["xbar"], ["barx"]), "[0-9]{2,}": (["a12"], ["1a2"]),
                 "X_": (["aX_"], ["x_"]), r"^\d{4}-\d{2}-\d{2}$": (["2026-12-07"], ["2026-12-07\n", "26-12-07"]),
                 r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$": (["a.b@c.org"], ["a b@c.org", "a@b.c"]),
                 "^[a-zA-Z0-9_-]{1,64}$": (["get_weather"], ["", "a" * 65, "é"]),
                 r"^https?://": (["http://x", "https://x"], ["ftp://x"]), r"\.json$": (["a.json"], ["a.json5"]),
                 r"^\+?[0-9 ]{7,15}$": (["+33 1 23 45 67"], ["12"]), "": (["", "x"], [])}
        for pattern, (yes, no) in cases.items():
            predicate = self.core._compile_pattern(pattern)
            engine = ep._rx_compile_pattern(pattern, accelerate=False)
            for text in yes + no:
                with self.subTest(pattern=pattern, text=text):
                    self.assertEqual(predicate(text), text in yes)
                    self.assertEqual(engine(text), text in yes)

    def test_refusals_say_why(self):
        """A refused pattern surfaces where its schema is compiled, as the engine's
        refusals do: a ValueError from validate() (and from a tool's registration)."""
        for schema in ({"pattern": "^(a|b)$"}, {"patternProperties": {r"\bx": {}}}):
            with self.subTest(schema=schema), self.assertRaises(ValueError) as caught:
                self.core.validate("a", schema)
            message = str(caught.exception)
            self.assertIn("is not supported by the core", message)
            self.assertIn("pattern layer (section 30) supports it", message)
        with self.assertRaisesRegex(ValueError, r"^invalid pattern 'a\*\*': nothing to repeat before '\*'"):
            self.core.validate("a", {"pattern": "a**"})
        with self.assertRaisesRegex(ValueError, "backreferences are not supported"):
            self.core._compile_pattern(r"a\1")

    def test_invalid_patterns(self):
        """Whatever the engine refuses as invalid, the core refuses too."""
        bad = ["(", ")", "[", "a{", "a{1", "a{,2}", "a{2,1}", "{1}", "*", "a**", "+a", "a|*", "]", "}", "\\",
               r"\-", r"\a", r"\z", r"\_", r"\ ", r"\1", r"(a)\1", r"\k<x>", r"[z-a]", r"[\d-z]", r"[a-\w]", r"\x4",
               r"\u12", r"\c1", r"\00", r"^*", r"$+", r"\b*", r"(?=a)*", "a{99999}", "(?:){1000000000000}", "[\\B]"]
        for pattern in bad:
            with self.subTest(pattern=pattern):
                self.assertRaises(ValueError, ep._rx_compile_pattern, pattern)
                self.assertRaises(ValueError, self.core._compile_pattern, pattern)

    def test_random_plain_patterns(self):
        """Generated plain patterns: the core accepts each and agrees with re and the engine."""
        rng = random.Random(34)
        literals = checked = 0
        for _ in range(3000 // SCALE):
            ecma, py = plain_pattern(rng)
            expected_re = re.compile(py, re.ASCII)
            predicate = self.core._compile_pattern(ecma)
            engine = ep._rx_compile_pattern(ecma, accelerate=False)
            literals += predicate.literal is not None
            for _ in range(8):
                text = "".join(rng.choice(PLAIN_TEXT) for _ in range(rng.randint(0, 10)))
                expected = expected_re.search(text) is not None
                self.assertEqual(predicate(text), expected, (ecma, py, text))
                self.assertEqual(engine(text), expected, (ecma, py, text, "engine"))
                checked += 1
        self.assertGreater(literals, 30 // SCALE)  # the str methods are exercised too
        self.assertGreater(checked, 10000 // SCALE)

    def test_random_other_patterns(self):
        """Generated patterns with one construct the core does not check: refused,
        saying so, and each one the engine (the pattern layer) accepts."""
        rng = random.Random(35)
        for _ in range(1000 // SCALE):
            terms = [t[0] for t in plain_terms(rng)]
            terms.insert(rng.randint(0, len(terms)), rng.choice(NOT_PLAIN))
            pattern = rng.choice(["^", ""]) + "".join(terms) + rng.choice(["$", ""])
            ep._rx_compile_pattern(pattern)
            with self.assertRaises(ValueError, msg=pattern) as caught:
                self.core._compile_pattern(pattern)
            self.assertIn("is not supported by the core", str(caught.exception))

    def test_random_garbage(self):
        """Random strings: the core raises ValueError only; what it accepts the
        engine accepts and matches alike; what it calls invalid the engine refuses."""
        rng = random.Random(36)
        alphabet = "()[]{}|*+?^$\\.-,:=!<>0123456789abdkpuxcPDSWsw"
        accepted = 0
        for _ in range(4000 // SCALE):
            pattern = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 10)))
            try:
                predicate = self.core._compile_pattern(pattern)
            except ValueError as exc:
                if str(exc).startswith("invalid pattern"):
                    self.assertRaises(ValueError, ep._rx_compile_pattern, pattern)
                continue
            accepted += 1
            engine = ep._rx_compile_pattern(pattern, accelerate=False)
            for _ in range(4):
                text = "".join(rng.choice("ab0-9{}x.\\$^") for _ in range(rng.randint(0, 8)))
                self.assertEqual(predicate(text), engine(text), (pattern, text))
        self.assertGreater(accepted, 100 // SCALE)

    def test_linear_time(self):
        """Texts that make re backtrack cost the core one pass."""
        n = 1_000_000 // SCALE
        cases = [(r"\d+$", "1" * n + "x", False), (r"^[a-z]*[a-z]*[a-z]*[a-z]*$", "a" * n + "!", False),
                 (r"^[\w.-]+@[\w-]+\.[a-z]{2,}$", "a" * n, False), (r"a{0,999}b", "a" * (n // 10), False),
                 (r"\s*x", " " * n, False), ("^" + "a" * 999, "a" * n, True)]
        for pattern, text, expected in cases:
            with self.subTest(pattern=pattern[:30]):
                result, seconds = timed(self.core._compile_pattern(pattern), text)
                report(f"core {pattern[:30]} on {len(text)} characters", seconds)
                self.assertEqual(result, expected)
                self.assertLess(seconds, 10.0)


if __name__ == "__main__":
    unittest.main()

"""Section 6, Validation: the JSON Schema 2020-12 checkers (``validate()``, the
strict mode), their error list and message, and the compiled-schema cache.

The lax modes (sections 24 and 25) are tested through tools: arguments in
test_arguments.py and test_content.py's parity test, results in test_content.py
and test_tools.py; the accelerated compiler (_FastCompiler) in
test_accelerators.py.
"""

import dataclasses
import datetime
import decimal
import enum
import json
import os
import subprocess
import sys
import unittest
import uuid
from typing import Annotated, Any, Dict, FrozenSet, List, Literal, Optional, Sequence, Set, Tuple, Union

from tests._testing import (BOTH, HERE, NEEDS_JSONSCHEMA, NEEDS_PYDANTIC, UNDER_TEST, Field, accelerators,
                            has_module, mcp_ref)


validate, ValidationError = mcp_ref.validate, mcp_ref.ValidationError


class _ValidateTestShared:
    """What ValidateTest here and its part in tests/layers share."""

    # (instance, multipleOf, exact answer, what jsonschema 4 says where it differs)
    MULTIPLES = [
        (1e20, 3, False, None),  # 10**20 % 3 == 1: the float quotient 3.33e19 looks integral
        (1e20, 5, True, None),
        (9007199254740993, 2.0, False, True),  # the int rounds to an even float on the way
        (10 ** 400, 0.5, True, "OverflowError"),  # the int has no float
        (10 ** 400, 3, False, None),
        (1e308, 1e-308, True, False),  # the float quotient overflows to infinity
        (1e308, 0.123456789, False, None),
        (0.3, 0.1, True, False),  # decimals, as JSON writes them: 3/10 is 3 * 1/10
        (0.0075, 0.0001, True, None),
        (0.00751, 0.0001, False, None),
        (4.5, 1.5, True, None),
        (-9.0, 3, True, None),
        (2.0 ** 60, 2 ** 59, False, True),  # JSON writes 2.0**60 as 1.152921504606847e+18
        (7, 0, False, None),  # not a valid schema: nothing is a multiple of 0
    ]

    # Keywords beside a $ref, each with an instance it refuses: in 2020-12 $ref
    # is one more keyword, applied together with its siblings (Core 8.2.3.1).
    BESIDE_REF = [
        ({"type": "number"}, ""), ({"type": ["string", "null"]}, 1), ({"minimum": 3}, 2), ({"multipleOf": 2}, 3),
        ({"maxLength": 1}, "ab"), ({"enum": [1, "a"]}, 2), ({"const": "x"}, "y"),
        ({"items": {"type": "integer"}}, ["a"]),
        ({"minItems": 2}, [1]), ({"properties": {"a": {"type": "string"}}}, {"a": 1}), ({"required": ["b"]}, {}),
        ({"additionalProperties": False}, {"z": 1}), ({"anyOf": [{"type": "integer"}]}, "s"),
        ({"not": {"type": "string"}}, "s"), ({"format": "email", "type": "integer"}, "a@b"),
    ]

    def errors(self, instance: Any, schema: Any) -> List[Tuple[str, str, str]]:
        try:
            validate(instance, schema)
        except ValidationError as exc:
            return [(e.path, e.kind, e.msg) for e in exc.errors]
        return []


class ValidateTest(_ValidateTestShared, unittest.TestCase):

    def test_every_error_is_listed_with_its_path(self) -> None:
        schema = {"type": "object", "required": ["a", "b"], "properties": {
            "a": {"type": "array", "items": {"type": "integer", "maximum": 3}},
            "c": {"type": "string", "pattern": "^x"}}}
        self.assertEqual(self.errors({"a": [1, 5, "z"], "c": "y"}, schema), [
            ("$.a[1]", "less_than_equal", "Input should be less than or equal to 3"),
            ("$.a[2]", "int_type", "Input should be a valid integer"),
            ("$.c", "string_pattern_mismatch", "String should match pattern '^x'"),
            ("$.b", "missing", "Field required"),
        ])

    def test_strict_mode_converts_nothing(self) -> None:
        self.assertEqual(self.errors("17", {"type": "integer"})[0][1], "int_type")
        self.assertEqual(self.errors(1.0, {"type": "integer"}), [])  # JSON: 1.0 is an integer
        self.assertEqual(self.errors(True, {"type": "integer"})[0][1], "int_type")

    def test_an_arm_of_several_types(self) -> None:
        schema = {"anyOf": [{"type": ["null", "object"]}, {"type": "integer"}]}
        self.assertEqual(self.errors(None, schema), [])
        self.assertEqual(self.errors({}, schema), [])
        self.assertEqual(self.errors(3, schema), [])
        self.assertEqual(len(self.errors("", schema)), 2)  # one per arm, as pydantic reports a union

    def test_refs_and_recursion(self) -> None:
        schema = {"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}},
                                  "additionalProperties": False}}, "$ref": "#/$defs/n"}
        self.assertEqual(self.errors({"next": {"next": {}}}, schema), [])
        self.assertEqual(self.errors({"next": {"x": 1}}, schema),
                         [("$.next.x", "extra_forbidden", "Extra inputs are not permitted")])

    def test_multiple_of_in_exact_arithmetic(self) -> None:
        for instance, multiple, expected, _ in self.MULTIPLES:
            with self.subTest(instance=instance, multiple=multiple):
                errors = self.errors(instance, {"multipleOf": multiple})
                self.assertEqual(errors, [] if expected else [
                    ("$", "multiple_of", f"Input should be a multiple of {mcp_ref._number_text(multiple)}")])

    @unittest.skipUnless(has_module("jsonschema"), NEEDS_JSONSCHEMA)
    def test_multiple_of_where_jsonschema_differs(self) -> None:
        import jsonschema

        for instance, multiple, expected, theirs in self.MULTIPLES[:-1]:
            with self.subTest(instance=instance, multiple=multiple):
                check = jsonschema.Draft202012Validator({"multipleOf": multiple}).is_valid
                if theirs == "OverflowError":
                    self.assertRaises(OverflowError, check, instance)
                else:
                    self.assertEqual(check(instance), expected if theirs is None else theirs)

    def test_keywords_beside_ref_apply(self) -> None:
        defs = {"B": {}, "S": {"type": "string"}}
        for keywords, refused in self.BESIDE_REF:
            for target in defs:
                sub = dict(keywords, **{"$ref": f"#/$defs/{target}"})
                for place, schema, instance in (
                        ("root", dict(sub, **{"$defs": defs}), refused),
                        ("items", {"$defs": defs, "items": sub}, [refused]),
                        ("property", {"$defs": defs, "properties": {"p": sub}}, {"p": refused}),
                        ("def", {"$defs": dict(defs, D=sub), "$ref": "#/$defs/D"}, refused)):
                    with self.subTest(keywords=keywords, target=target, place=place):
                        self.assertNotEqual(self.errors(instance, schema), [])
        # and the $ref itself still applies beside them
        self.assertNotEqual(self.errors([1], {"$defs": defs, "items": {"$ref": "#/$defs/S", "minimum": 0}}), [])
        self.assertEqual(self.errors(["a"], {"$defs": defs, "items": {"$ref": "#/$defs/S", "minimum": 0}}), [])

    @unittest.skipUnless(has_module("jsonschema"), NEEDS_JSONSCHEMA)
    def test_keywords_beside_ref_as_jsonschema(self) -> None:
        import jsonschema

        defs = {"B": {}, "S": {"type": "string"}, "N": {"type": "number"}}
        values = ["", "ab", 1, 2.5, 4, None, [1], ["a", "b"], {"a": 1}, {"a": "s"}, {"z": 1}, True]
        for keywords, _ in self.BESIDE_REF:
            for target in defs:
                schema = {"$defs": defs, "items": dict(keywords, **{"$ref": f"#/$defs/{target}"})}
                for value in values:
                    with self.subTest(keywords=keywords, target=target, value=value):
                        expected = jsonschema.Draft202012Validator(schema).is_valid([value])
                        self.assertEqual(self.errors([value], schema) == [], expected)

    def test_schema_compiled_once(self) -> None:
        schema = {"type": "integer"}
        validate(1, schema)
        checker = mcp_ref._COMPILED[id(schema)][1]
        validate(2, schema)
        self.assertIs(mcp_ref._COMPILED[id(schema)][1], checker)

    def test_remote_refs_are_refused(self) -> None:
        with self.assertRaisesRegex(ValueError, "only local \\$ref"):
            validate(1, {"$ref": "https://example.com/schema"})

    @unittest.skipUnless(os.path.exists(os.path.join(HERE, "..", "shared", "jsts", "run_jsts.py")),
                         "the JSON Schema Test Suite runner (../shared/jsts) is not beside this checkout")
    def test_json_schema_test_suite(self) -> None:
        # --module: the module under test (by default run_jsts loads ./mcp_ref.py, the whole file).
        run = subprocess.run([sys.executable, os.path.join(HERE, "..", "shared", "jsts", "run_jsts.py"),
                              "--module", os.path.abspath(str(mcp_ref.__file__)), "-v"],
                             cwd=HERE, capture_output=True, text=True, timeout=300)
        last = run.stdout.strip().splitlines()[-1]
        if UNDER_TEST is None:
            self.assertEqual(run.returncode, 0, run.stdout[-3000:])
            self.assertRegex(last, r"^jsts: \d+ passed, 0 failed, \d+ skipped$")
            return
        # The core alone refuses, by design, the patterns only the patterns layer
        # (section 30) matches: \p{Letter} in 3 cases of pattern.json and 2 of
        # patternProperties.json.  Every other case passes as with the layers.
        failed = [line for line in ("\n" + run.stdout).partition("\nFAILURES\n")[2].partition("\nSKIPPED\n")[0]
                  .splitlines() if line.startswith("  [")]
        self.assertEqual(len(failed), 5, run.stdout[-3000:])
        for line in failed:
            self.assertIn("is not supported by the core: the escape '\\p'", line)
        self.assertRegex(last, r"^jsts: \d+ passed, 5 failed, \d+ skipped$")


class StrictRuleTest(unittest.TestCase):
    """_Compiler is the rule, strict in every mode; pydantic's lax mode refines
    it as a subclass (_LaxCompiler, section 29), chosen through the seam
    _compiler_for, never through hooks inside the rule."""

    def test_the_rule_names_no_refinement(self) -> None:
        import ast
        import inspect

        source = inspect.getsource(mcp_ref._Compiler)
        names = {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}
        self.assertEqual({n for n in names if n.startswith("_lax") or n in (
            "_TypedSchema", "_UnionSchema", "_Union", "_python_only", "_first_bound_failure", "_LaxCompiler")},
            set())
        self.assertNotIn(".lax", source)


def _jsts_dir() -> Optional[str]:
    """The JSON Schema Test Suite copy (../shared/jsts beside the main checkout), if any."""
    for up in (("..",), ("..", "..")):
        path = os.path.join(HERE, *up, "shared", "jsts", "draft2020-12")
        if os.path.isdir(path):
            return path
    return None


# The suite's groups about unevaluated*, dependentSchemas and $anchor that the
# runner's SKIP list leaves out (by file), and whole files when a copy has them.
JSTS_GROUPS = {"additionalProperties": ["dependentSchemas with additionalProperties"],
               "not": ["collect annotations inside a 'not', even if collection is disabled"],
               "ref": ["ref creates new scope when adjacent to keywords",
                       "order of evaluation: $id and $anchor and $ref"],
               "unevaluatedProperties": None, "unevaluatedItems": None, "dependentSchemas": None, "anchor": None}


class _Full2020TestShared:
    """What Full2020Test here and its part in tests/layers share."""

    def valid(self, instance: Any, schema: Any) -> bool:
        try:
            validate(instance, schema)
        except ValidationError:
            return False
        return True

    def check_all(self, cases: List[Tuple[Dict[str, Any], Any, bool]]) -> None:
        for on in BOTH:
            with accelerators(on):
                for schema, instance, expected in cases:
                    with self.subTest(accelerated=on, schema=schema, instance=instance):
                        self.assertIs(self.valid(instance, json.loads(json.dumps(schema))), expected)
                        errors = mcp_ref._bounded_errors(instance, json.loads(json.dumps(schema)))
                        self.assertIs(not errors, expected)


class Full2020Test(_Full2020TestShared, unittest.TestCase):
    """JSON Schema 2020-12's dependentSchemas, unevaluatedProperties and
    unevaluatedItems checked (Core 2020-12 §10.2.2.4, §11), $anchor refs
    resolved, $dynamicRef resolved in a schema of one resource and refused
    across resources, never half-checked (2025-11-25 and
    2026-07-28 basic/index, "JSON Schema Usage": implementations MUST support
    2020-12).  Before, the three keywords were ignored: every value passed."""

    def test_dependent_schemas(self) -> None:
        schema = {"dependentSchemas": {"a": {"required": ["b"], "properties": {"b": {"type": "integer"}}}}}
        cases = [({}, True), ({"a": 1, "b": 2}, True), ({"b": "x"}, True), ({"a": 1}, False),
                 ({"a": 1, "b": "x"}, False), ([1], True), ("a", True)]
        for on in BOTH:
            with accelerators(on):
                for instance, expected in cases:
                    with self.subTest(accelerated=on, instance=instance):
                        self.assertIs(self.valid(instance, dict(schema)), expected)

    def test_dynamic_ref(self) -> None:
        # In a schema of one resource (mcp_ref follows no remote ref) the dynamic scope is the root
        # alone: $dynamicRef resolves as $ref does (Core 2020-12 §8.2.3.2).  Before, it was ignored.
        tree = {"$dynamicAnchor": "node", "type": "object", "properties": {
            "v": {"type": "integer"}, "kids": {"type": "array", "items": {"$dynamicRef": "#node"}}},
            "unevaluatedProperties": False}
        for on in BOTH:
            with self.subTest(accelerated=on), accelerators(on):
                self.assertTrue(self.valid({"v": 1, "kids": [{"v": 2, "kids": []}]}, dict(tree)))
                self.assertFalse(self.valid({"v": 1, "kids": [{"v": "x"}]}, dict(tree)))
                self.assertFalse(self.valid({"v": 1, "kids": [{"w": 1}]}, dict(tree)))
                self.assertFalse(self.valid({"a": "x"}, {"$defs": {"n": {"$dynamicAnchor": "n", "type": "integer"}},
                                                         "properties": {"a": {"$dynamicRef": "#n", "minimum": 0}}}))
                # A $ref reaches a $dynamicAnchor as it does an $anchor (Core 2020-12 §8.2.2).
                self.assertFalse(self.valid({"a": "x"}, {"$defs": {"n": {"$dynamicAnchor": "n", "type": "integer"}},
                                                         "properties": {"a": {"$ref": "#n"}}}))

    def test_json_schema_test_suite_cases(self) -> None:
        # The suite's own cases of these keywords, run here rather than skipped by run_jsts.py.
        folder = _jsts_dir()
        if folder is None:
            self.skipTest("the JSON Schema Test Suite copy (../shared/jsts) is not beside this checkout")
        ran = 0
        for stem, groups in JSTS_GROUPS.items():
            path = os.path.join(folder, stem + ".json")
            if not os.path.exists(path):
                continue
            with open(path, encoding="utf-8") as f:
                suite = json.load(f)
            for group in suite:
                if groups is not None and group["description"] not in groups:
                    continue
                for case in group["tests"]:
                    for on in BOTH:
                        with self.subTest(stem=stem, group=group["description"], case=case["description"],
                                          accelerated=on), accelerators(on):
                            try:
                                outcome = self.valid(case["data"], json.loads(json.dumps(group["schema"])))
                            except ValueError as exc:  # refused, never half-checked: $dynamicRef, remote refs
                                self.assertRegex(str(exc), "does not support|only local \\$ref")
                                continue
                            self.assertIs(outcome, case["valid"])
                            ran += 1
        self.assertGreater(ran, 0)


class Shade(enum.IntEnum):
    DARK = 1


@dataclasses.dataclass
class Spot:
    name: str
    size: dict  # type: ignore[type-arg]
    x: int = 0


# One argument each tool refuses, and pydantic's error text for it (the lines
# after "1 validation error for fArguments"): the error type a wrong JSON type
# gets, the value as sent, the repr cut at UTF-8 bytes, union members named as
# pydantic-core names its validators, bounds and lengths reported as pydantic
# stops, a dict's refused key with its value's error, set items that cannot hash.
ERROR_TEXTS: List[Tuple[Any, Any, List[str]]] = [
    (Tuple[int, ...], "x", [
     "value",
     "  Input should be a valid tuple [type=tuple_type, input_value='x', input_type=str]"]),
    (FrozenSet[int], 1, [
     "value",
     "  Input should be a valid frozenset [type=frozen_set_type, input_value=1, input_type=int]"]),
    (Sequence[int], {"a": 1}, [
     "value",
     "  Input should be an instance of Sequence [type=is_instance_of, input_value={'a': 1}, input_type=dict]"]),
    (Sequence[int], "ab", [
     "value",
     "  'str' instances are not allowed as a Sequence value [type=sequence_str, input_value='ab',"
      " input_type=str]"]),
    (bool, 1.5, [
     "value",
     "  Input should be a valid boolean [type=bool_type, input_value=1.5, input_type=float]"]),
    (bool, 2, [
     "value",
     "  Input should be a valid boolean, unable to interpret input [type=bool_parsing, input_value=2,"
      " input_type=int]"]),
    (bool, 10 ** 20, [
     "value",
     "  Input should be a valid boolean [type=bool_type, input_value=100000000000000000000, input_type=int]"]),
    (Annotated[int, Field(ge=10)], "-3", [
     "value",
     "  Input should be greater than or equal to 10 [type=greater_than_equal, input_value='-3', input_type=str]"]),
    (Annotated[float, Field(lt=0.5)], True, [
     "value",
     "  Input should be less than 0.5 [type=less_than, input_value=True, input_type=bool]"]),
    (List[int], "true", [
     "value",
     "  Input should be a valid list [type=list_type, input_value='true', input_type=str]"]),
    (bytes, {"é" * 30: 1}, [
     "value",
     "  Input should be a valid bytes [type=bytes_type, input_value={'ééééééééééé...ééééééééé': 1},"
      " input_type=dict]"]),
    (Union[uuid.UUID, bytes, None], 1, [
     "value.uuid",
     "  UUID input should be a string, bytes or UUID object [type=uuid_type, input_value=1, input_type=int]",
     "value.bytes",
     "  Input should be a valid bytes [type=bytes_type, input_value=1, input_type=int]"]),
    (Union[Tuple[int, ...], FrozenSet[str], Dict[str, int], dict, Shade], 0.5, [
     "value.`tuple[int, ...]`",
     "  Input should be a valid tuple [type=tuple_type, input_value=0.5, input_type=float]",
     "value.frozenset[str]",
     "  Input should be a valid frozenset [type=frozen_set_type, input_value=0.5, input_type=float]",
     "value.dict[str,int]",
     "  Input should be a valid dictionary [type=dict_type, input_value=0.5, input_type=float]",
     "value.dict[any,any]",
     "  Input should be a valid dictionary [type=dict_type, input_value=0.5, input_type=float]",
     "value.int-enum[Shade]",
     "  Input should be 1 [type=enum, input_value=0.5, input_type=float]"]),
    # a dict stops at the first item past max_length, with that error alone
    (Annotated[Dict[str, str], Field(max_length=1)], {"a": "x", "b": 1, "c": "z"}, [
     "value",
     "  Dictionary should have at most 1 item after validation, not more [type=too_long, input_value={'a': 'x',"
      " 'b': 1, 'c': 'z'}, input_type=dict]"]),
    (Annotated[Dict[str, str], Field(max_length=1)], {"a": 1, "b": 2}, [
     "value.a",
     "  Input should be a valid string [type=string_type, input_value=1, input_type=int]",
     "value.b",
     "  Input should be a valid string [type=string_type, input_value=2, input_type=int]"]),
    (Union[bool, FrozenSet[Dict[int, bool]]], [{}], [
     "value.bool",
     "  Input should be a valid boolean [type=bool_type, input_value=[{}], input_type=list]",
     "value.frozenset[dict[int,bool]].0",
     "  Set items should be hashable [type=set_item_not_hashable, input_value={}, input_type=dict]"]),
    (Union[Annotated[int, Field(gt=1)], Sequence[str], Literal["x"]], 1, [
     "value.constrained-int",
     "  Input should be greater than 1 [type=greater_than, input_value=1, input_type=int]",
     "value.json-or-python[json=list[str],python=chain[is-instance[Sequence],function-wrap[sequence_validator()]]]",
     "  Input should be an instance of Sequence [type=is_instance_of, input_value=1, input_type=int]",
     "value.literal['x']",
     "  Input should be 'x' [type=literal_error, input_value=1, input_type=int]"]),
    (Dict[int, Optional[None]], {"x": ""}, [
     "value.x.[key]",
     "  Input should be a valid integer, unable to parse string as an integer [type=int_parsing,"
      " input_value='x', input_type=str]",
     "value.x",
     "  Input should be None [type=none_required, input_value='', input_type=str]"]),
    (Annotated[int, Field(lt=0, gt=10)], 5, [
     "value",
     "  Input should be less than 0 [type=less_than, input_value=5, input_type=int]"]),
    (Annotated[str, Field(min_length=4, max_length=1)], "hi", [
     "value",
     "  String should have at least 4 characters [type=string_too_short, input_value='hi', input_type=str]"]),
    (Tuple[None], [0, 1, 2], [
     "value",
     "  Tuple should have at most 1 item after validation, not 3 [type=too_long, input_value=[0, 1, 2],"
      " input_type=list]"]),
    (Annotated[Set[int], Field(max_length=1)], [1, 2, 3], [
     "value",
     "  Set should have at most 1 item after validation, not more [type=too_long, input_value=[1, 2, 3],"
      " input_type=list]"]),
    (Annotated[FrozenSet[int], Field(min_length=3)], [1, 1], [
     "value",
     "  Frozenset should have at least 3 items after validation, not 1 [type=too_short, input_value=[1, 1],"
      " input_type=list]"]),
    (FrozenSet[Dict[str, str]], [{"a": ""}, None], [
     "value.0",
     "  Set items should be hashable [type=set_item_not_hashable, input_value={'a': ''}, input_type=dict]",
     "value.1",
     "  Input should be a valid dictionary [type=dict_type, input_value=None, input_type=NoneType]"]),
    (Literal[1, 2], 10 ** 20, [
     "value",
     "  Unable to parse input string as an integer, exceeded maximum size [type=int_parsing_size,"
      " input_value=100000000000000000000, input_type=int]"]),
    # "nan" and "inf" refused by the first bound they fail
    (Annotated[float, Field(ge=5, lt=0.5)], "-inf", [
     "value",
     "  Input should be greater than or equal to 5 [type=greater_than_equal, input_value='-inf', input_type=str]"]),
    (Annotated[float, Field(ge=5, lt=0.5)], "nan", [
     "value",
     "  Input should be less than 0.5 [type=less_than, input_value='nan', input_type=str]"]),
    # a dict's length is not counted while its items fail; a nullable dict cannot hash either
    (Annotated[Dict[str, List[int]], Field(max_length=1)], {"a": 1, "b": []}, [
     "value.a",
     "  Input should be a valid list [type=list_type, input_value=1, input_type=int]"]),
    (Set[Optional[Dict[str, str]]], [{"a": ""}, None], [
     "value.0",
     "  Set items should be hashable [type=set_item_not_hashable, input_value={'a': ''}, input_type=dict]"]),
    # a class's errors in its fields' order, a missing one where it stands
    (Spot, {"size": 1.5, "x": "q"}, [
     "value.name",
     "  Field required [type=missing, input_value={'size': 1.5, 'x': 'q'}, input_type=dict]",
     "value.size",
     "  Input should be a valid dictionary [type=dict_type, input_value=1.5, input_type=float]",
     "value.x",
     "  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='q',"
     " input_type=str]"]),
    (FrozenSet[Dict[int, int]], [{"1": "1"}], [
     "value.0",
     "  Set items should be hashable [type=set_item_not_hashable, input_value={'1': '1'}, input_type=dict]"]),
    (Annotated[float, Field(le=0.1, multiple_of=3)], "nan", [
     "value",
     "  Input should be less than or equal to 0.1 [type=less_than_equal, input_value='nan', input_type=str]"]),
    # a union's members as written, though its published anyOf is flattened (Decimal's number and string)
    (Optional[decimal.Decimal], "NaNx", [
     "value",
     "  Input should be a valid decimal [type=decimal_parsing, input_value='NaNx', input_type=str]"]),
    (Union[decimal.Decimal, Tuple[int, ...]], {"a": 1}, [
     "value.decimal",
     "  Decimal input should be an integer, float, string or Decimal object [type=decimal_type,"
     " input_value={'a': 1}, input_type=dict]",
     "value.`tuple[int, ...]`",
     "  Input should be a valid tuple [type=tuple_type, input_value={'a': 1}, input_type=dict]"]),
    # a fixed tuple's Field lengths are pydantic-core's own: a maximum counts the members that pass,
    # extra items are measured against the tuple's length, a minimum against the members that passed
    (Annotated[Tuple[int, str], Field(min_length=3)], ["x", 1], [
     "value.0",
     "  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='x',"
     " input_type=str]",
     "value.1",
     "  Input should be a valid string [type=string_type, input_value=1, input_type=int]",
     "value",
     "  Tuple should have at least 3 items after validation, not 0 [type=too_short, input_value=['x', 1],"
     " input_type=list]"]),
    (Annotated[Tuple[int, str], Field(min_length=1)], [1], [
     "value.1",
     "  Field required [type=missing, input_value=[1], input_type=list]"]),
    (Annotated[Tuple[int, str], Field(min_length=2)], [], [
     "value.0",
     "  Field required [type=missing, input_value=[], input_type=list]",
     "value.1",
     "  Field required [type=missing, input_value=[], input_type=list]",
     "value",
     "  Tuple should have at least 2 items after validation, not 0 [type=too_short, input_value=[], input_type=list]"]),
    (Annotated[Tuple[int, str], Field(max_length=3)], [1, "a", 3], [
     "value",
     "  Tuple should have at most 2 items after validation, not 3 [type=too_long, input_value=[1, 'a', 3],"
     " input_type=list]"]),
    (Annotated[Tuple[int, str], Field(max_length=1)], ["x", 1], [
     "value.0",
     "  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='x',"
     " input_type=str]",
     "value.1",
     "  Input should be a valid string [type=string_type, input_value=1, input_type=int]"]),
    (Annotated[Tuple[int, str], Field(max_length=1)], [1, "a", 3], [
     "value",
     "  Tuple should have at most 1 item after validation, not 3 [type=too_long, input_value=[1, 'a', 3],"
     " input_type=list]"]),
    # speedate's own words for a duration it refuses
    (datetime.timedelta, "P", [
     "value",
     "  Input should be a valid timedelta, input is too short [type=time_delta_parsing, input_value='P',"
     " input_type=str]"]),
    (datetime.timedelta, "x", [
     "value",
     "  Input should be a valid timedelta, invalid digit in duration [type=time_delta_parsing, input_value='x',"
     " input_type=str]"]),
    (datetime.timedelta, "-1", [
     "value",
     "  Input should be a valid timedelta, \"day\" identifier in duration not correctly formatted"
     " [type=time_delta_parsing, input_value='-1', input_type=str]"]),
    (datetime.timedelta, "maybe", [
     "value",
     "  Input should be a valid timedelta, invalid character in hour [type=time_delta_parsing,"
     " input_value='maybe', input_type=str]"]),
    (datetime.timedelta, 10 ** 20, [
     "value",
     "  Input should be a valid timedelta, durations may not exceed 999,999,999 days [type=time_delta_parsing,"
     " input_value=100000000000000000000, input_type=int]"]),
]


class _ErrorTextTestShared:
    """What ErrorTextTest here and its part in tests/layers share."""

    @staticmethod
    def refused(tp: Any, value: Any) -> List[str]:
        def f(value):  # type: ignore[no-untyped-def]
            return None

        f.__annotations__["value"] = tp
        server = mcp_ref.MCPServer("errors")
        server.add_tool(f, structured_output=False)
        result = server.call_tool("f", {"value": value})
        return result["content"][0]["text"].splitlines()[1:]  # type: ignore[no-any-return]


class ErrorTextTest(_ErrorTextTestShared, unittest.TestCase):
    """Arguments refused with pydantic's words, located where pydantic locates them."""

    @unittest.skipUnless(has_module("pydantic"), NEEDS_PYDANTIC)
    def test_the_texts_are_pydantic(self) -> None:
        import typing

        import pydantic

        def theirs(tp: Any) -> Any:  # our Field as pydantic's, throughout the annotation
            args = typing.get_args(tp)
            if typing.get_origin(tp) is Annotated:
                return Annotated[(theirs(args[0]), *(pydantic.Field(**m.constraints) if isinstance(m, Field) else m
                                                     for m in tp.__metadata__))]
            return Union[tuple(theirs(a) for a in args)] if typing.get_origin(tp) is Union else tp

        version = tuple(int(part) for part in pydantic.VERSION.split(".")[:2])
        for tp, value, expected in ERROR_TEXTS:
            if version < (2, 14) and any("not more [type=too_long" in line for line in expected) \
                    and "Dictionary" in expected[1]:
                continue  # a dict stops at max_length since pydantic 2.14 (the SDK's); 2.13 went on
            model = pydantic.create_model("fArguments", value=(theirs(tp), ...))
            with self.subTest(tp=tp, value=value), self.assertRaises(pydantic.ValidationError) as caught:
                model.model_validate({"value": value})
            lines = [line for line in str(caught.exception).splitlines()[1:] if "errors.pydantic.dev" not in line]
            self.assertEqual(lines, expected)


if __name__ == "__main__":
    unittest.main()

"""Section 6, Validation: the JSON Schema 2020-12 checkers (``validate()``, the
strict mode), their error list and message, and the compiled-schema cache.

The lax modes are tested through tools: arguments in test_arguments.py and
test_content.py's parity test, results in test_content.py and test_tools.py;
the accelerated compiler (_FastCompiler) in test_accelerators.py.
"""

import os
import subprocess
import sys
import unittest
from typing import Any, List, Tuple

from _testing import HERE, NEEDS_JSONSCHEMA, has_module, mcp_ref

validate, ValidationError = mcp_ref.validate, mcp_ref.ValidationError


class ValidateTest(unittest.TestCase):
    def errors(self, instance: Any, schema: Any) -> List[Tuple[str, str, str]]:
        try:
            validate(instance, schema)
        except ValidationError as exc:
            return [(e.path, e.kind, e.msg) for e in exc.errors]
        return []

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

    def test_refs_and_recursion(self) -> None:
        schema = {"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}},
                                  "additionalProperties": False}}, "$ref": "#/$defs/n"}
        self.assertEqual(self.errors({"next": {"next": {}}}, schema), [])
        self.assertEqual(self.errors({"next": {"x": 1}}, schema),
                         [("$.next.x", "extra_forbidden", "Extra inputs are not permitted")])

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

    def test_unicode_property_classes(self) -> None:
        self.assertEqual(self.errors("héllo", {"pattern": "^\\p{Letter}+$"}), [])
        self.assertEqual(len(self.errors("h3llo", {"pattern": "^\\p{Letter}+$"})), 1)

    def test_message_format(self) -> None:
        with self.assertRaises(ValidationError) as caught:
            validate({"n": "x" * 60}, {"properties": {"n": {"type": "integer"}}, "required": ["m"]})
        self.assertEqual(str(caught.exception), (
            "2 validation errors for value\n"
            "n\n  Input should be a valid integer [type=int_type, "
            "input_value='xxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxxx', input_type=str]\n"
            "m\n  Field required [type=missing, input_value={'n': 'xxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxx'}, "
            "input_type=dict]"))

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
        run = subprocess.run([sys.executable, os.path.join(HERE, "..", "shared", "jsts", "run_jsts.py")],
                             cwd=HERE, capture_output=True, text=True, timeout=300)
        self.assertEqual(run.returncode, 0, run.stdout[-3000:])
        self.assertRegex(run.stdout.strip().splitlines()[-1], r"^jsts: \d+ passed, 0 failed, \d+ skipped$")


if __name__ == "__main__":
    unittest.main()

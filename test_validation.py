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

from _testing import HERE, mcp_ref

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

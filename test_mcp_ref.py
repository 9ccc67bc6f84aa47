"""mcp_ref as a whole: the examples in its module docstring (the quick start,
and one per row of the structured-output table) run as tests, in both modes.

The tests of each section are in the module named for it:

    3       Type introspection        test_introspection.py
    4, 9    Values as JSON, Content   test_content.py
    5       JSON Schema generation    test_schema.py
    6       Validation                test_validation.py
    7       Patterns                  test_patterns.py
    8       Arguments                 test_arguments.py
    10, 13  Tools, MCPServer          test_tools.py
    11      Resources, prompts,       test_resources.py
            completion
    12      Context                   test_context.py
    14, 15  Dispatch, Transports      test_wire.py, test_robustness.py, test_faults.py, test_interop.py
    16      Command line              test_cli.py
    17      Accelerators              test_accelerators.py

What they share is in _testing.py.
"""

import doctest
import unittest

from _testing import BOTH, accelerators, mcp_ref


class DoctestTest(unittest.TestCase):
    """The module docstring's examples are tests too (under unittest and pytest alike)."""

    def test_docstring_examples(self) -> None:
        for on in BOTH:
            with self.subTest(accelerated=on), accelerators(on):
                result = doctest.testmod(mcp_ref, optionflags=doctest.ELLIPSIS, verbose=False)
                self.assertGreater(result.attempted, 5)
                self.assertEqual(result.failed, 0)


if __name__ == "__main__":
    unittest.main()

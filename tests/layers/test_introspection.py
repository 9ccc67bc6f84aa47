"""Type introspection (section 3) as the layers refine it: the tests of the topic that need a layer
(SDK fidelity, patterns, the client, the command line or the accelerators); the
core's own are in tests/core/test_introspection.py.

Section 3, Type introspection: reading functions without importing inspect.

_cleandoc is inspect.cleandoc except that lines of only white space at either
end are dropped, so that a tool's description is the same on every Python.
"""

import unittest

from tests._testing import mcp_ref


class TypeHintsTest(unittest.TestCase):
    def test_a_class_of_a_module_not_imported(self) -> None:
        # Code run by exec() under a module name sys.modules lacks (a block of the docs, a
        # notebook): CPython 3.9's get_type_hints looks each base's module up there and
        # raised KeyError; a subclass of one of mcp_ref's classes has two such bases.
        namespace: dict = {"__name__": "not_a_module", "RequestParams": mcp_ref.RequestParams}
        exec("class P(RequestParams):\n    text: str\n    n: int = 1\n", namespace)
        hints = mcp_ref._type_hints(namespace["P"])
        self.assertEqual((hints["text"], hints["n"]), (str, int))


if __name__ == "__main__":
    unittest.main()

"""Section 3, Type introspection: reading functions without importing inspect.

_cleandoc is inspect.cleandoc except that lines of only white space at either
end are dropped, so that a tool's description is the same on every Python.
"""

import inspect
import random
import unittest

from tests._testing import mcp_ref, server_with


def trim(text: str) -> str:
    """Without the lines of only white space at either end."""
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines)


def text_tool() -> str:
    """Text.
    """
    return ""


class CleandocTest(unittest.TestCase):
    def test_inspect_cleandoc_without_blank_end_lines(self) -> None:
        rng = random.Random(3)
        alphabet = [" ", " ", "  ", "\t", "\n", "\n", "\n    ", "\x0c", "\xa0", "a", "b", "ab"]
        for _ in range(5000):
            doc = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
            self.assertEqual(mcp_ref._cleandoc(doc), trim(inspect.cleandoc(doc)), repr(doc))
        self.assertEqual(mcp_ref._cleandoc(None), "")
        self.assertEqual(mcp_ref._cleandoc(""), "")

    def test_description_is_the_same_on_every_python(self) -> None:
        # 3.13's compiler strips the docstring's indentation; 3.9-3.12 keep it.
        self.assertIn(text_tool.__doc__, ("Text.\n    ", "Text.\n"))
        self.assertEqual(server_with(text_tool).list_tools()[0]["description"], "Text.")


if __name__ == "__main__":
    unittest.main()

"""JSON Schema generation (section 5) as the layers refine it: the tests of the topic that need a layer
(SDK fidelity, patterns, the client, the command line or the accelerators); the
core's own are in tests/core/test_schema.py.

Section 5, JSON Schema generation: annotations to the SDK's (pydantic's) schemas.

Every corpus tool's inputSchema and outputSchema against what the official SDK
publishes (``testdata/sdk_expectations.json``, recorded by
``testdata/regen_expectations.py``), json_schema() against pydantic's
TypeAdapter, and the published schemas as valid JSON Schema 2020-12.  Where
mcp_ref deliberately differs (docs/sdk-differences.md), the test asserts our
behaviour and names the difference.
"""

import dataclasses
import typing
import unittest
from typing import Any, List

from tests._testing import NEEDS_PYDANTIC, Field, has_module, mcp_ref

from tests.core.test_schema import FIELD_DEFAULTS, _PydanticRulesTestShared


class PydanticRulesTest(_PydanticRulesTestShared, unittest.TestCase):
    """Unions flattened and de-duplicated, no title on additionalProperties,
    classes of one name, Enum aliases, Field(...) defaults: pydantic's rules."""

    @unittest.skipUnless(has_module("pydantic"), NEEDS_PYDANTIC)
    def test_same_as_pydantic(self) -> None:
        from pydantic import Field as PydanticField
        from pydantic import TypeAdapter

        import decimal

        # pydantic 2.13 gave Decimal's string arm a pattern; the SDK's pydantic (2.14) does not.
        same_decimal = TypeAdapter(decimal.Decimal).json_schema() == mcp_ref.json_schema(decimal.Decimal)
        for ours, theirs in zip(self.cases(Field), self.cases(PydanticField)):
            if "Decimal" in str(ours[0]) and not same_decimal:
                continue
            with self.subTest(annotation=ours[0]):
                self.assertEqual(TypeAdapter(theirs[0]).json_schema(), ours[1])
                self.assertEqual(mcp_ref.json_schema(theirs[0]), ours[1])  # pydantic's Field: the same

    @unittest.skipUnless(has_module("pydantic"), NEEDS_PYDANTIC)
    def test_field_defaults_as_pydantic(self) -> None:
        import warnings

        from pydantic import Field as PydanticField
        from pydantic import TypeAdapter

        @dataclasses.dataclass
        class FieldDefaults:
            c: typing.Annotated[int, PydanticField(default=4)]
            a: int = PydanticField(3, ge=1)
            b: int = PydanticField(description="needed")
            d: typing.Annotated[int, PydanticField(default=4)] = 5
            e: List[int] = PydanticField(default_factory=list)
            f: object = object()
            g: Any = dataclasses.field(default_factory=object)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pydantic warns of the default it leaves out
            self.assertEqual(TypeAdapter(FieldDefaults).json_schema(), FIELD_DEFAULTS)
        self.assertEqual(mcp_ref.json_schema(FieldDefaults), FIELD_DEFAULTS)


if __name__ == "__main__":
    unittest.main()

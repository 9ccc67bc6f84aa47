"""JSON Schema generation (section 5) as the layers refine it: the tests of the topic that need a layer
(SDK fidelity, patterns, the client, the command line or the accelerators); the
core's own are in tests/core/test_schema.py.

Section 5, JSON Schema generation: annotations to the SDK's (pydantic's) schemas.

Every corpus tool's inputSchema and outputSchema against what the official SDK
publishes (``testdata/sdk_expectations.json``, recorded by
``testdata/regen_expectations.py``), json_schema() against pydantic's
TypeAdapter, and the published schemas as valid JSON Schema 2020-12.  Where
mcp_ref deliberately differs (the README's list), the test asserts our
behaviour and names the difference.
"""

import dataclasses
import typing
import unittest
from typing import Any, Dict, List, Optional, Tuple, Union

from tests._testing import NEEDS_PYDANTIC, Field, has_module, mcp_ref

from tests.core.test_schema import Aliased, FIELD_DEFAULTS, OtherTwin, Twin


class PydanticRulesTest(unittest.TestCase):
    """Unions flattened and de-duplicated, no title on additionalProperties,
    classes of one name, Enum aliases, Field(...) defaults: pydantic's rules."""

    def cases(self, field: Any) -> List[Tuple[Any, Dict[str, Any]]]:
        import decimal

        number_or_text = [{"type": "number"}, {"type": "string"}]
        module = Twin.__module__.replace(".", "__")  # pydantic's normalize_name: a dot is "__"
        twin = f"{module}__Twin"
        other = f"{module}___other_twin___locals___Twin"
        return [
            (Optional[decimal.Decimal], {"anyOf": number_or_text + [{"type": "null"}]}),
            (Union[decimal.Decimal, float], {"anyOf": number_or_text}),
            (Union[decimal.Decimal, int, None], {"anyOf": number_or_text + [{"type": "integer"}, {"type": "null"}]}),
            (Union[List[int], typing.Sequence[int]], {"items": {"type": "integer"}, "type": "array"}),
            (Union[int, typing.Annotated[Optional[str], field(min_length=1)]],
             {"anyOf": [{"type": "integer"}, {"minLength": 1, "type": "string"}, {"type": "null"}]}),
            (Union[Optional[int], List[Optional[str]]],
             {"anyOf": [{"type": "integer"}, {"items": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                                              "type": "array"}, {"type": "null"}]}),
            (Dict[str, typing.Annotated[int, field(title="T", description="d")]],
             {"additionalProperties": {"description": "d", "type": "integer"}, "type": "object"}),
            (Dict[str, Dict[str, typing.Annotated[int, field(title="T")]]],
             {"additionalProperties": {"additionalProperties": {"type": "integer"}, "type": "object"},
              "type": "object"}),
            (List[typing.Annotated[int, field(title="T")]], {"items": {"title": "T", "type": "integer"},
                                                             "type": "array"}),
            (Dict[str, typing.Annotated[Twin, field(title="T", description="d")]], {
                "$defs": {"Twin": {"properties": {"x": {"title": "X", "type": "integer"}}, "required": ["x"],
                                   "title": "Twin", "type": "object"}},
                "additionalProperties": {"$ref": "#/$defs/Twin", "description": "d"}, "type": "object"}),
            (List[typing.Annotated[Aliased, field(title="T")]], {
                "$defs": {"Aliased": {"enum": [1, 1, 2], "title": "Aliased", "type": "integer"}},
                "items": {"$ref": "#/$defs/Aliased", "title": "T"}, "type": "array"}),
            (Tuple[Twin, OtherTwin, Twin], {
                "$defs": {twin: {"properties": {"x": {"title": "X", "type": "integer"}}, "required": ["x"],
                                 "title": "Twin", "type": "object"},
                          other: {"properties": {"y": {"title": "Y", "type": "string"}}, "required": ["y"],
                                  "title": "Twin", "type": "object"}},
                "maxItems": 3, "minItems": 3, "prefixItems": [{"$ref": f"#/$defs/{twin}"},
                                                              {"$ref": f"#/$defs/{other}"},
                                                              {"$ref": f"#/$defs/{twin}"}],
                "type": "array"}),
            (Aliased, {"enum": [1, 1, 2], "title": "Aliased", "type": "integer"}),
            (Dict[typing.Literal["a", "b"], int], {"additionalProperties": {"type": "integer"},
                                                   "propertyNames": {"enum": ["a", "b"]}, "type": "object"}),
            (Dict[Aliased, str], {"$defs": {"Aliased": {"enum": [1, 1, 2], "title": "Aliased", "type": "integer"}},
                                  "additionalProperties": {"type": "string"},
                                  "propertyNames": {"$ref": "#/$defs/Aliased"}, "type": "object"}),
            (Dict[typing.Annotated[str, field(pattern="^x")], Any], {"patternProperties": {"^x": {}},
                                                                     "type": "object"}),
            (Dict[typing.Annotated[str, field(pattern="^x", min_length=2)], int], {
                "patternProperties": {"^x": {"type": "integer"}}, "propertyNames": {"minLength": 2},
                "type": "object"}),
        ]

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

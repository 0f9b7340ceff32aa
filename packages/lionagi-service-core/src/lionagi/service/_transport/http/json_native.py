"""Which request models validate straight into JSON-ready values.

Building a payload validates the merged request with the endpoint's request model and then dumps
it in JSON mode. For most request models the dump changes nothing: every field is a string,
number, boolean, literal, list, dict or ``Any``, there are no serialization aliases or custom
serializers, and the validated value is already what JSON mode would produce. For those models
the payload is read from the validated fields instead of running pydantic's serializer a second
time on every request. Anything this module cannot prove plain keeps the full dump.

``Any`` values are passed through as given; the JSON encoder converts the few non-JSON types the
way pydantic's JSON mode would (``pydantic_core.to_jsonable_python``), so the wire bytes match.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

__all__ = ["json_field_order"]

# Schemas whose validated Python value is its own JSON-mode dump.
_LEAVES = frozenset({"any", "none", "bool", "int", "float", "str", "literal"})
# Wrappers and containers: plain when every inner schema is.
_INNER_KEYS = ("schema", "items_schema", "keys_schema", "values_schema")
_CONTAINERS = frozenset({"nullable", "default", "list", "dict", "union", "tuple"})


def _plain(schema: Mapping[str, Any]) -> bool:
    if "serialization" in schema:
        return False
    kind = schema.get("type")
    if kind in _LEAVES:
        return True
    if kind not in _CONTAINERS:
        return False  # models, dataclasses, enums, validators, refs: keep the dump
    for key in _INNER_KEYS:
        inner = schema.get(key)
        if isinstance(inner, Mapping) and not _plain(inner):
            return False
        if isinstance(inner, list) and not all(_plain(item) for item in inner):
            return False
    for choice in schema.get("choices", ()):
        candidate = choice[0] if isinstance(choice, tuple) else choice
        if not _plain(candidate):
            return False
    return True


@lru_cache(maxsize=256)
def json_field_order(model: type[BaseModel]) -> dict[str, int] | None:
    """Field name -> declaration index when ``model``'s validated fields are JSON-ready.

    That is, when the set fields, read as validated, equal the JSON-mode, unset-excluding dump:
    a plain model (no model serializer, computed fields, extra fields or serialization aliases)
    whose every field schema is plain (see the module docstring). None otherwise.
    """
    schema = model.__pydantic_core_schema__
    if schema.get("type") != "model" or schema.get("cls") is not model:
        return None
    if "serialization" in schema:
        return None
    config = schema.get("config") or {}
    if config.get("extra_fields_behavior") == "allow":
        return None
    fields_schema = schema.get("schema") or {}
    if fields_schema.get("type") != "model-fields" or fields_schema.get("computed_fields"):
        return None
    fields = fields_schema.get("fields", {})
    for name, field in fields.items():
        alias = field.get("serialization_alias")
        if (alias is not None and alias != name) or field.get("serialization_exclude"):
            return None
        if not _plain(field["schema"]):
            return None
    return {name: index for index, name in enumerate(fields)}

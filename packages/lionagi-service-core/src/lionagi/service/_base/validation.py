"""A pydantic validation failure as the field and message of one of the library's typed errors.

Every place that validates with pydantic (endpoint config, request models, agentic requests and
settings) reports the first failure the same way: its dotted location names the field, and the
message is pydantic's without the input value (the value may be a secret or a prompt). pydantic
prefixes the text of a validator's own ``ValueError`` with ``"Value error, "``; the prefix is
pydantic's wording, not ours, so it is dropped (``base_url: must be an absolute http:// ...``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError

from .suggest import did_you_mean

__all__ = ["first_error"]

_PREFIXES = ("Value error, ", "Assertion failed, ")


def first_error(
    exc: ValidationError, default_field: str, model: type[BaseModel] | None = None
) -> tuple[str, str]:
    """The first error's dotted location (`default_field` when it has none) and message.

    An unknown nested field (pydantic's `extra_forbidden`) reads like the unknown top-level
    ones the callers report themselves: "unknown field", with the closest field of the nested
    model when `model` (the validated model) lets us find it.
    """
    first = exc.errors(include_input=False, include_url=False, include_context=False)[0]
    field = ".".join(str(part) for part in first["loc"]) or default_field
    if first["type"] == "extra_forbidden":
        return field, _unknown_nested(first["loc"], model)
    message = first["msg"]
    for prefix in _PREFIXES:
        if message.startswith(prefix):
            message = message[len(prefix) :]
            break
    return field, message


def _unknown_nested(loc: Sequence[int | str], model: type[BaseModel] | None) -> str:
    owner = _model_at(model, loc[:-1]) if model is not None else None
    if owner is None:
        return "unknown field"
    return f"unknown field of {owner.__name__}{did_you_mean(str(loc[-1]), owner.model_fields)}"


def _model_at(model: type[BaseModel], path: Sequence[int | str]) -> type[BaseModel] | None:
    """The model class that holds the last part of ``path`` (list indexes and dict keys skipped)."""
    current: type[BaseModel] = model
    keyed = False  # the previous field is a mapping: the next string part is one of its keys
    for part in path:
        if isinstance(part, int) or keyed:
            keyed = False
            continue  # an item of a list or mapping the previous field's model describes
        info = current.model_fields.get(part)
        if info is None:
            return None
        found = _nested_model(info.annotation)
        if found is None:
            return None
        current, keyed = found, _is_mapping(info.annotation)
    return current


def _is_mapping(annotation: Any) -> bool:
    origin = get_origin(annotation)
    if isinstance(origin, type) and issubclass(origin, Mapping):
        return True
    return any(_is_mapping(arg) for arg in get_args(annotation))


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _nested_model(arg)
        if found is not None:
            return found
    return None

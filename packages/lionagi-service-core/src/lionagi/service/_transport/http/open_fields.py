"""Which declared fields of a request model can hold a mapping no validator reads.

A request model's validators decide which of its values are credentials
(`remember_request_secret`). A field typed `dict[str, Any]`, `list[dict[str, Any]]` or `Any`
(an MCP server list, `tools`, `metadata`) has no validator for what it holds: a token nested in
it is known only if the model happens to read it. `build_payload` walks the values of these
fields, as sent, with `remember_body_credentials`, as it walks an `extra_body`. Computed once
per model class from the field annotations; a closed pydantic model or a scalar is left to its
own validators.
"""

from __future__ import annotations

import types
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Annotated, Any, ForwardRef, Literal, Union, get_args, get_origin

from pydantic import BaseModel

__all__ = ["open_fields"]

_UNIONS = (Union, types.UnionType)


@lru_cache(maxsize=256)
def open_fields(model: type[BaseModel]) -> frozenset[str]:
    """The names of `model`'s fields whose annotation can hold an arbitrary mapping.

    That is: `Any` or `object`; any mapping type (`dict[str, Any]`, `Mapping[str, str]`: its
    keys are the caller's, so a `headers` or `metadata` field can hold a credential-named one;
    a `TypedDict` too); a list, tuple or sequence of such; a union, `Annotated` or type alias
    holding one. A pydantic model, a scalar, a `Literal`, an enum or a list of scalars is not.
    An annotation this cannot read (an unresolved forward reference) counts as open: walking a
    value costs little, missing a credential does not.
    """
    return frozenset(
        name for name, info in model.model_fields.items() if _holds_mapping(info.annotation, 0)
    )


def _holds_mapping(annotation: Any, depth: int) -> bool:
    """Whether a value of `annotation` can be (or contain) a mapping no model validates."""
    # Unreadable (an unresolved forward reference) or too deep to follow: walked, not trusted.
    if annotation is Any or annotation is object or depth > 20:
        return True
    if isinstance(annotation, str | ForwardRef):
        return True
    # A `type X = ...` alias (typing's, or typing_extensions' before 3.12): read what it names.
    if type(annotation).__name__ == "TypeAliasType":
        return _holds_mapping(annotation.__value__, depth + 1)
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is Annotated:
        return _holds_mapping(args[0], depth + 1)
    if origin in _UNIONS:
        return any(_holds_mapping(arg, depth + 1) for arg in args)
    if origin is Literal:
        return False
    target = origin if origin is not None else annotation
    if not isinstance(target, type):
        return False
    if issubclass(target, BaseModel | str | bytes | bytearray):
        return False
    if issubclass(target, Mapping):
        return True
    if issubclass(target, Sequence):
        return not args or any(_holds_mapping(a, depth + 1) for a in args if a is not Ellipsis)
    return False

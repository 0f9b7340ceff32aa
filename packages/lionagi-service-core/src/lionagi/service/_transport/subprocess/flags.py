"""Declarative argv flags from a request model: field name -> flag spelling.

Vendors own their grammar (which fields, which spellings, positional arguments); this only
turns typed values into separate argv elements, never a joined string.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping

from pydantic import BaseModel

__all__ = ["build_flag_args"]


def build_flag_args(model: BaseModel, flags: Mapping[str, str]) -> list[str]:
    """Render `model`'s fields as CLI flags, in the order of `flags`.

    `None` and `False` omit the flag; `True` emits it alone; a list or tuple repeats it
    once per item; anything else emits the flag then `str(value)` (enums by value, paths as
    paths). Each flag and value is its own argv element, so values are never shell-parsed.

    Raises:
        AttributeError: `flags` names a field the model does not have.
        TypeError: A value is a mapping or another type with no argv spelling.
    """
    args: list[str] = []
    for name, flag in flags.items():
        value = getattr(model, name)
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
            continue
        items = value if isinstance(value, list | tuple) else (value,)
        for item in items:
            args += [flag, _render(name, item)]
    return args


def _render(name: str, value: object) -> str:
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, bool | Mapping) or value is None:
        raise TypeError(f"{name}: {value!r} has no flag-value spelling")
    if isinstance(value, os.PathLike):
        return os.fspath(value)  # type: ignore[no-any-return]
    if isinstance(value, str | int | float):
        return str(value)
    raise TypeError(f"{name}: {type(value).__name__} values have no flag-value spelling")

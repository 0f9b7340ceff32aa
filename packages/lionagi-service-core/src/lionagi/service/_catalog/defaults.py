"""Request-default checks shared by catalog build and call-time configuration.

A default's *value* is never echoed in a problem description: defaults may hold tokens.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

__all__ = ["copy_defaults", "request_default_problems", "request_fields"]


def request_fields(model: type[BaseModel]) -> frozenset[str]:
    """Names a payload default may use: field names plus their string aliases."""
    names: set[str] = set()
    for name, info in model.model_fields.items():
        names.add(name)
        for alias in (info.alias, info.validation_alias):
            if isinstance(alias, str):
                names.add(alias)
    return frozenset(names)


def request_default_problems(
    defaults: object, model: type[BaseModel] | None
) -> list[tuple[str | None, str]]:
    """Return ``(key, problem)`` pairs; ``key`` is None when the container itself is wrong."""
    if not isinstance(defaults, Mapping):
        return [(None, f"must be a mapping, got {type(defaults).__name__}")]
    problems: list[tuple[str | None, str]] = []
    allowed = request_fields(model) if model is not None else None
    for key, value in defaults.items():
        if not isinstance(key, str) or not key:
            problems.append((repr(key)[:80], "keys must be non-empty strings"))
            continue
        # ``extra_body`` is the payload's documented escape hatch for newer vendor fields.
        if model is not None and allowed is not None and key not in allowed and key != "extra_body":
            problems.append((key, f"is not a field of {model.__qualname__}"))
            continue
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            problems.append((key, f"value of type {type(value).__name__} is not JSON-serializable"))
    return problems


_IMMUTABLE = frozenset({str, int, float, bool, type(None)})


def copy_defaults(defaults: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy: no nested list or dict is ever shared between two endpoint instances.

    Scalars are shared as-is (they are immutable); only containers pay for ``deepcopy``.
    """
    return {
        key: value if type(value) in _IMMUTABLE else copy.deepcopy(value)
        for key, value in defaults.items()
    }

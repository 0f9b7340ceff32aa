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
            problems.append((key, f"is not a field of {model.__qualname__}{_hint(key, allowed)}"))
            continue
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            problems.append((key, f"value of type {type(value).__name__} is not JSON-serializable"))
            continue
        if model is not None:
            problem = _value_problem(model, key, value)
            if problem is not None:
                problems.append(problem)
    return problems


def _value_problem(model: type[BaseModel], key: str, value: object) -> tuple[str, str] | None:
    """A default's value checked against its field's type, as the call would check it.

    Only the key was checked before, so `request_defaults={"messages": [{"role": "usr"}]}` or
    `{"temperature": "hot"}` passed the catalog build and failed on every call instead.
    Model-level rules (a `tool_choice` naming no offered tool) need the whole request and are
    left to the call. The location is `<key>.<path>` and the message never holds the value.
    """
    info = model.model_fields.get(key)
    if info is None:
        info = next(
            (f for f in model.model_fields.values() if key in (f.alias, f.validation_alias)), None
        )
    if info is None:  # `extra_body`
        return None
    from typing import Annotated

    from pydantic import TypeAdapter, ValidationError

    from .._base.pydantic_plugins import answer_from_scan
    from .._base.validation import first_error

    answer_from_scan()  # the first validator may be built here, before the first config's
    try:
        field_type: Any = Annotated[info.annotation, info]  # the field's type and constraints
        TypeAdapter(field_type).validate_python(value)
    except ValidationError as exc:
        where, message = first_error(exc, "")
        return (f"{key}.{where}" if where else key, message)
    return None


def _hint(key: str, allowed: frozenset[str]) -> str:
    """The "did you mean" a misspelled request field gets, as it does at call time."""
    import difflib  # error path only

    close = difflib.get_close_matches(key, sorted(allowed), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


_IMMUTABLE = frozenset({str, int, float, bool, type(None)})


def copy_defaults(defaults: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy: no nested list or dict is ever shared between two endpoint instances.

    Scalars are shared as-is (they are immutable); only containers pay for ``deepcopy``.
    """
    return {
        key: value if type(value) in _IMMUTABLE else copy.deepcopy(value)
        for key, value in defaults.items()
    }

"""Request-default checks shared by catalog build and call-time configuration.

A default's *value* is never echoed in a problem description: defaults may hold tokens.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ValidationError

from .._base.refused import first_refused, refused_reason
from .._base.suggest import did_you_mean

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = ["NOT_A_FIELD", "copy_defaults", "request_default_problems", "request_fields"]

NOT_A_FIELD = "is not a field of"
"""How a default naming no field of the request model is refused: the facade tells that case
(``model=`` on a row whose requests take no model) from a value the field refused."""

_CHAT_REQUEST_MODULE = f"{__package__}.openai_request"


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
    valid: dict[str, Any] = {}  # the defaults whose own field type took them
    for key, value in defaults.items():
        if not isinstance(key, str) or not key:
            problems.append((repr(key)[:80], "keys must be non-empty strings"))
            continue
        # ``extra_body`` is the payload's documented escape hatch for newer vendor fields, but
        # not for a field the model refuses by name (``_base.refused``).
        if key == "extra_body" and model is not None and isinstance(value, Mapping):
            refused = first_refused(model, value)
            if refused is not None:
                problems.append((f"extra_body.{refused[0]}", refused[1]))
                continue
        reason = refused_reason(model, key) if model is not None else None
        if reason is not None:
            problems.append((key, reason))
            continue
        if model is not None and allowed is not None and key not in allowed and key != "extra_body":
            hint = did_you_mean(key, allowed)
            problems.append((key, f"{NOT_A_FIELD} {model.__qualname__}{hint}"))
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
            else:
                valid[key] = value
    if model is not None and valid:
        problem = _shape_problem(model, valid)
        if problem is not None:
            problems.append(problem)
    return problems


def _value_problem(model: type[BaseModel], key: str, value: object) -> tuple[str, str] | None:
    """A default's value checked against its field's type, as the call would check it.

    Only the key was checked before, so `{"temperature": "hot"}` passed the catalog build and
    failed on every call instead. The nested shapes a Chat Completions request checks after
    validation are checked next, by `_shape_problem`. The location is `<key>.<path>` and the
    message never holds the value.
    """
    from .._base.validation import first_error

    adapter = _field_adapter(model, key)
    if adapter is None:  # `extra_body`
        return None
    try:
        adapter.validate_python(value)
    except ValidationError as exc:
        where, message = first_error(exc, "")
        return (f"{key}.{where}" if where else key, message)
    return None


def _shape_problem(model: type[BaseModel], values: Mapping[str, Any]) -> tuple[str, str] | None:
    """The nested shapes of a Chat Completions request's defaults, checked as the call checks them.

    ``OpenAIChatCompletionsRequest`` (and every vendor's subclass) checks ``messages``, ``tools``,
    ``stream_options`` and its other nested fields after validation, so a field type alone let
    ``{"stream_options": {"include_usgae": True}}`` build and fail on every call. The same
    function the call runs (``openai_request.check_nested``) runs here, so the location
    (``stream_options.include_usgae``) and message ("did you mean ...") are the call's. Rules
    that read the whole request (a ``tool_choice`` naming a tool the defaults do not offer) stay
    with the call, which may bring the tools.

    No other model has these shapes, and a subclass of that request exists only once its module
    is imported: an endpoint of another kind neither imports it here nor pays for the check. The
    shapes themselves load only for defaults with more than plain-text messages (cold start).
    """
    if _CHAT_REQUEST_MODULE not in sys.modules:
        return None
    from .openai_request import OpenAIChatCompletionsRequest, check_nested

    if not issubclass(model, OpenAIChatCompletionsRequest):
        return None
    try:
        check_nested(model, values)
    except ValidationError as exc:
        from .._base.validation import first_error  # error path only

        return first_error(exc, "")
    return None


@cache
def _field_adapter(model: type[BaseModel], key: str) -> TypeAdapter[Any] | None:
    """The validator of ``model``'s field named (or aliased) ``key``; built once per field.

    A model is built per endpoint and its defaults are checked at every construction, so the
    adapter is kept rather than rebuilt each time.
    """
    info = model.model_fields.get(key)
    if info is None:
        info = next(
            (f for f in model.model_fields.values() if key in (f.alias, f.validation_alias)), None
        )
    if info is None:
        return None
    from pydantic import TypeAdapter

    from .._base.pydantic_plugins import answer_from_scan

    answer_from_scan()  # the first validator may be built here, before the first config's
    field_type: Any = Annotated[info.annotation, info]  # the field's type and constraints
    return TypeAdapter(field_type)


_IMMUTABLE = frozenset({str, int, float, bool, type(None)})


def copy_defaults(defaults: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy: no nested list or dict is ever shared between two endpoint instances.

    Scalars are shared as-is (they are immutable); only containers pay for ``deepcopy``.
    """
    return {
        key: value if type(value) in _IMMUTABLE else copy.deepcopy(value)
        for key, value in defaults.items()
    }

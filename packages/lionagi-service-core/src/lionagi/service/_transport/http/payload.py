"""Request payload: configured defaults merged with the request, validated once by its schema.

Unknown keys are refused, never filtered: a misspelled option that silently disappears is a
worse failure than an error naming it (ADR-0027 D3 records the legacy filtering as a defect).

The one escape hatch is an explicit ``extra_body`` mapping, for a vendor field newer than the
request model: its keys are sent as top-level body fields after validation, unchecked. A key the
model already declares is refused there (it must go through validation), so ``extra_body``
never overrides a validated value. The credentials an accepted ``extra_body`` carries (the
values of credential-named keys and name/value pairs, an MCP server's ``headers``) are redacted
from every later error text, as a request model's credential fields are
(``remember_body_credentials``); so are those of a whole body no model validates (an endpoint
without ``request_options``), of the undeclared fields an open (``extra="allow"``) request
model passes through, and of the declared fields whose type can hold an arbitrary mapping
(``tools: list[dict[str, Any]]``, ``metadata: dict[str, Any]``, ``Any``: ``open_fields``), whose
contents no validator of the model reads.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from pydantic import AliasChoices, AliasPath, BaseModel, ValidationError

from ..._base.errors import EndpointConfigurationError
from ..._base.refused import first_refused, refused_reason
from ..._base.secrets import remember_body_credentials
from ..._base.suggest import did_you_mean
from ..._base.validation import first_error
from ..config import EndpointConfig
from .json_native import json_field_order
from .open_fields import open_fields

__all__ = [
    "DECLARED_IN_EXTRA_BODY",
    "EXTRA_BODY",
    "STREAM_FLAG_IN_DEFAULTS",
    "accepted_keys",
    "build_payload",
]

EXTRA_BODY = "extra_body"

DECLARED_IN_EXTRA_BODY = "is a field of"
"""How a key of ``extra_body`` that the request model declares is refused: the facade tells that
case (moved into ``request_defaults`` itself, it is sent) from the refusals moving cannot fix."""


STREAM_FLAG_IN_DEFAULTS = (
    "is set by the transport on each call (stream() sends it, invoke()/call() do not); remove "
    "it from"
)
"""How a default holding the stream flag is refused, followed by where it was written: the
endpoint says it of `request_defaults`, the facade of `request_defaults.extra_body`."""


def _alias_names(alias: str | AliasChoices | AliasPath | None) -> list[str]:
    if alias is None:
        return []
    if isinstance(alias, str):
        return [alias]
    if isinstance(alias, AliasPath):
        return [str(alias.path[0])]
    names: list[str] = []
    for choice in alias.choices:
        names.extend(_alias_names(choice))
    return names


@lru_cache(maxsize=256)
def accepted_keys(model: type[BaseModel]) -> frozenset[str] | None:
    """Top-level keys ``model`` validates from, or None when it accepts extra keys."""
    cfg = model.model_config
    if cfg.get("extra") == "allow":
        return None
    by_name = bool(cfg.get("validate_by_name") or cfg.get("populate_by_name"))
    by_alias = cfg.get("validate_by_alias", True) is not False
    keys: set[str] = set()
    for name, info in model.model_fields.items():
        aliases = _alias_names(info.validation_alias) or _alias_names(info.alias)
        if not aliases or by_name:
            keys.add(name)
        if by_alias:
            keys.update(aliases)
    return frozenset(keys)


def _unknown_key(key: str, model: type[BaseModel], keys: frozenset[str]) -> Exception:
    reason = refused_reason(model, key)
    if reason is not None:
        return EndpointConfigurationError(key, reason)
    listed = ", ".join(sorted(keys)[:40])
    hint = did_you_mean(key, keys)
    return EndpointConfigurationError(
        key, f"unknown request field for {model.__name__}{hint} (accepted: {listed})"
    )


def _fresh_defaults(defaults: Mapping[str, Any]) -> dict[str, Any]:
    for value in defaults.values():
        if isinstance(value, (dict, list, set)):
            return copy.deepcopy(dict(defaults))
    return dict(defaults)


def build_payload(
    config: EndpointConfig,
    request: Mapping[str, Any] | BaseModel,
    overrides: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``request_defaults`` < ``request`` < ``overrides``, validated by ``request_options``.

    A key the request model refuses by name (its ``refused_fields``, see ``_base.refused``) is
    refused with the model's reason, in the body or in ``extra_body``.

    Raises:
        EndpointConfigurationError: the request is not a mapping/model, a key is unknown to the
            declared schema or refused by name (``field`` is the key, or ``extra_body.<key>``),
            or a value fails validation.
    """
    options = config.request_options
    payload = _fresh_defaults(config.request_defaults)
    if type(request) is dict:  # the common case, ahead of the slower ABC check
        payload.update(request)
    elif isinstance(request, BaseModel):
        payload.update(
            request.model_dump(
                exclude_unset=True, by_alias=options is not None or config.serialize_by_alias
            )
        )
    elif isinstance(request, Mapping):
        payload.update(request)
    else:
        raise EndpointConfigurationError(
            "request", f"expected a mapping or a pydantic model, got {type(request).__name__}"
        )
    if overrides:
        payload.update(overrides)
    extra = _extra_body(payload.pop(EXTRA_BODY)) if EXTRA_BODY in payload else None
    if options is None:
        # No model validated any of it: the whole body is walked, as an `extra_body` is (an
        # open endpoint's credential in a body field, e.g. an API that takes `api_key` there).
        body = {**payload, **extra} if extra else payload
        remember_body_credentials(body)
        return body
    keys = accepted_keys(options)
    if extra:
        declared = next((k for k in extra if k in keys), None) if keys is not None else None
        if declared is not None:
            raise EndpointConfigurationError(
                f"{EXTRA_BODY}.{declared}",
                f"{DECLARED_IN_EXTRA_BODY} {options.__name__}: pass it as a request field so it is "
                "validated",
            )
        refused = first_refused(options, extra)
        if refused is not None:
            raise EndpointConfigurationError(f"{EXTRA_BODY}.{refused[0]}", refused[1])
    if keys is None:
        # An open model takes unknown keys, but not the ones it refuses by name.
        refused = first_refused(options, payload)
        if refused is not None:
            raise EndpointConfigurationError(*refused)
    elif not keys.issuperset(payload):
        raise _unknown_key(next(k for k in payload if k not in keys), options, keys)
    try:
        model = options.__pydantic_validator__.validate_python(payload)
    except ValidationError as exc:
        raise EndpointConfigurationError(*first_error(exc, "request", options)) from None
    _remember_unread(model, open_fields(options))
    order = json_field_order(options)
    if order is not None:
        # Same result as the dump below (set, non-None fields in declaration order), without a
        # second pass through pydantic.
        values = model.__dict__
        built = {
            name: values[name]
            for name in sorted(model.__pydantic_fields_set__, key=order.__getitem__)
            if values[name] is not None
        }
    else:
        built = model.model_dump(
            mode="json", by_alias=config.serialize_by_alias, exclude_unset=True, exclude_none=True
        )
    if extra:
        # Accepted: no validator read these fields, so their credentials are carried here.
        remember_body_credentials(extra)
        built.update(extra)
    return built


def _remember_unread(model: BaseModel, open_names: frozenset[str]) -> None:
    """Walk the values of `model` no validator of it read, as `extra_body` is walked.

    Those are the undeclared fields an open model passes through as they came, and the set
    declared fields whose type can hold an arbitrary mapping (`open_names`, computed once per
    model class): a token nested in `tools: list[dict[str, Any]]` is carried whether or not the
    model's validators look for it. Only the fields this request set are read.
    """
    extra = model.model_extra
    unread = dict(extra) if extra else {}
    if open_names:
        values = model.__dict__
        for name in model.__pydantic_fields_set__:
            if name in open_names and values[name] is not None:
                unread[name] = values[name]
    if unread:
        remember_body_credentials(unread)


def _extra_body(value: Any) -> dict[str, Any]:
    """The ``extra_body`` mapping, checked for shape only (string keys)."""
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise EndpointConfigurationError(
            EXTRA_BODY, "must be a mapping of body field names to values"
        )
    return copy.deepcopy(dict(value))

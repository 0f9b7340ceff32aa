"""A request payload's wire form: its JSON body or its query parameters, encoded once per call.

Encoding is where a caller's value without a JSON (or query) form is found, so every refusal
here is an :class:`EndpointConfigurationError` naming the top-level key that holds it, raised
before any attempt counts against the provider (see :class:`EncodedPayload`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import httpx
from pydantic import BaseModel
from pydantic_core import PydanticSerializationError, to_jsonable_python

from ..._base.errors import EndpointConfigurationError

__all__ = ["EncodedPayload", "encode_json", "encode_params"]


def _json_default(value: Any) -> Any:
    """Encode what ``json`` cannot the way pydantic's JSON mode does (dates, UUIDs, sets, ...)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    try:
        return to_jsonable_python(value)
    except PydanticSerializationError:
        raise TypeError(f"value of type {type(value).__name__} is not JSON serializable") from None


def _dumps(value: Any) -> str:
    return json.dumps(
        value, separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_json_default
    )


# What encoding a caller's value can raise: no JSON form (TypeError), NaN or a circular
# reference (ValueError), or nesting deeper than the interpreter recurses (RecursionError).
_ENCODE_ERRORS = (TypeError, ValueError, RecursionError)


def encode_json(payload: Mapping[str, Any]) -> bytes:
    """The payload's JSON body, in one pass.

    Raises:
        EndpointConfigurationError: a value has no JSON form; ``field`` is the top-level key
            holding it (found by encoding key by key, on this failure path only).
    """
    try:
        return _dumps(payload).encode("utf-8")
    except _ENCODE_ERRORS as exc:
        raise _encoding_error(payload, exc) from None


def _encoding_error(payload: Mapping[str, Any], exc: BaseException) -> EndpointConfigurationError:
    field, cause = "request", exc
    for key, value in payload.items():
        try:
            _dumps(value)
        except _ENCODE_ERRORS as failed:
            field, cause = str(key), failed
            break
    if isinstance(cause, RecursionError):
        detail = "nested too deeply to encode as JSON"
    else:
        detail = f"cannot be encoded as JSON: {cause}"
    return EndpointConfigurationError(field, detail)


def encode_params(payload: Mapping[str, Any]) -> httpx.QueryParams:
    """The payload as query parameters (GET/DELETE); a value with no query form is refused."""
    try:
        return httpx.QueryParams(dict(payload))
    except TypeError:
        for key, value in payload.items():
            try:
                httpx.QueryParams({key: value})
            except TypeError:
                raise EndpointConfigurationError(
                    str(key),
                    f"a {type(value).__name__} cannot be sent as a query parameter",
                ) from None
        raise EndpointConfigurationError("request", "cannot be sent as query parameters") from None


class EncodedPayload(Mapping[str, Any]):
    """A payload together with its wire form, encoded once per call before any attempt.

    Made by :meth:`Endpoint.encode_payload`. The supervisor encodes when the call starts, before
    the circuit permit, so a payload with no JSON form is the caller's error at once, never an
    attempt that counts against the provider's circuit; retries then send the same bytes
    without encoding again. A read-only mapping view of the payload, so code that expects
    request data still reads it; it cannot be changed after encoding.
    """

    __slots__ = ("content", "params", "path", "payload")

    def __init__(
        self,
        payload: Mapping[str, Any],
        *,
        content: bytes | None = None,
        params: httpx.QueryParams | None = None,
        path: str | None = None,
    ) -> None:
        self.payload = payload
        self.content = content
        self.params = params
        self.path = path

    def __getitem__(self, key: str) -> Any:
        return self.payload[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.payload)

    def __len__(self) -> int:
        return len(self.payload)

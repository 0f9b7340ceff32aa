"""A request model's ``refused_fields``: names it refuses with a reason, wherever they are written.

An adapter has names a caller writes into a body that do not belong there (a header parameter,
another deployment's field). Core used to answer them "unknown request field ... did you mean",
or, in ``extra_body``, send them unchecked; two adapters each hooked ``create_payload`` to say
why, and neither could reach ``request_defaults``, which core checks as the model is built. The
model now lists them (``refused_fields``: name -> reason) and core refuses each by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, ConfigDict

from lionagi.service import EndpointConfig, EndpointConfigurationError
from lionagi.service._catalog.defaults import request_default_problems
from lionagi.service._transport.http.payload import build_payload

REASON = "is sent as the header 'x-tenant', not in the body: pass default_headers"


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")
    refused_fields: ClassVar[Mapping[str, str]] = {"tenant_id": REASON}

    model: str
    temperature: float | None = None


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    refused_fields: ClassVar[Mapping[str, str]] = {"tenant_id": REASON}

    model: str


def _config(model: type[BaseModel], **extra: Any) -> EndpointConfig:
    return EndpointConfig(
        name="x", provider="x", endpoint="chat", base_url="https://x.example",
        request_options=model, **extra,
    )  # fmt: skip


def _refused(model: type[BaseModel], request: dict[str, Any], **kw: Any) -> Exception:
    with pytest.raises(EndpointConfigurationError) as info:
        build_payload(_config(model), {"model": "m", **request}, kw or None)
    return info.value


@pytest.mark.parametrize("model", [_Closed, _Open])
@pytest.mark.parametrize(
    ("request_", "overrides", "field"),
    [
        ({"tenant_id": "t-1"}, {}, "tenant_id"),
        ({}, {"tenant_id": "t-1"}, "tenant_id"),
        ({"extra_body": {"tenant_id": "t-1"}}, {}, "extra_body.tenant_id"),
    ],
)
def test_a_refused_name_is_refused_with_its_reason(
    model: type[BaseModel], request_: dict[str, Any], overrides: dict[str, Any], field: str
) -> None:
    error = _refused(model, request_, **overrides)
    assert getattr(error, "field", None) == field
    assert REASON in str(error)
    assert "unknown request field" not in str(error)
    assert "t-1" not in str(error)  # the value is never echoed


def test_a_refused_name_is_never_listed_as_accepted() -> None:
    error = _refused(_Closed, {"tenperature": 1})
    assert getattr(error, "field", None) == "tenperature"
    assert "tenant_id" not in str(error)


def test_without_a_refused_name_the_request_is_built_as_before() -> None:
    body = build_payload(_config(_Closed), {"model": "m", "extra_body": {"new_knob": 1}})
    assert body == {"model": "m", "new_knob": 1}
    assert build_payload(_config(_Open), {"model": "m", "other": 2}) == {"model": "m", "other": 2}


@pytest.mark.parametrize(
    ("defaults", "key"),
    [
        ({"tenant_id": "t-1"}, "tenant_id"),
        ({"extra_body": {"tenant_id": "t-1"}}, "extra_body.tenant_id"),
    ],
)
def test_request_defaults_name_the_reason_too(defaults: dict[str, Any], key: str) -> None:
    """Checked as the model is built (``iModel(request_defaults=...)``), before any call."""
    problems = request_default_problems(defaults, _Closed)
    assert problems == [(key, REASON)]


def test_a_model_without_refused_fields_keeps_the_generic_message() -> None:
    class _Plain(BaseModel):
        model_config = ConfigDict(extra="forbid")
        model: str

    ((key, problem),) = request_default_problems({"tenant_id": "t"}, _Plain)
    assert key == "tenant_id" and "not a field" in problem

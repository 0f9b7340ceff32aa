"""``extra_body``: the documented escape hatch for vendor fields newer than the request model."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from lionagi.service import EndpointConfig, EndpointConfigurationError
from lionagi.service._transport.http.payload import build_payload


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str
    temperature: float | None = None


def _config(**extra: Any) -> EndpointConfig:
    return EndpointConfig(
        name="x", provider="x", endpoint="chat", base_url="https://x.example",
        request_options=_Request, **extra,
    )  # fmt: skip


def test_extra_body_fields_are_sent_top_level_after_validation() -> None:
    body = build_payload(_config(), {"model": "m", "extra_body": {"new_knob": {"a": 1}}})
    assert body == {"model": "m", "new_knob": {"a": 1}}


def test_unknown_field_outside_extra_body_is_still_refused() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        build_payload(_config(), {"model": "m", "new_knob": 1})
    assert info.value.field == "new_knob"


def test_extra_body_cannot_override_a_validated_field() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        build_payload(_config(), {"model": "m", "extra_body": {"temperature": "hot"}})
    assert info.value.field == "extra_body.temperature"


def test_extra_body_must_be_a_mapping() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        build_payload(_config(), {"model": "m", "extra_body": ["x"]})
    assert info.value.field == "extra_body"


def test_extra_body_from_defaults_is_not_shared_between_calls() -> None:
    config = _config(request_defaults={"extra_body": {"tags": ["a"]}})
    first = build_payload(config, {"model": "m"})
    first["tags"].append("b")
    assert build_payload(config, {"model": "m"})["tags"] == ["a"]

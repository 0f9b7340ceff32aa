"""StreamChunk shape and EndpointConfig strictness (unknown keys, secrets, field-named errors)."""

from __future__ import annotations

import dataclasses
import logging

import pytest

from lionagi.service import (
    AgenticEndpoint,
    Endpoint,
    EndpointConfig,
    EndpointConfigurationError,
    StreamChunk,
)

SECRET = "sk-test-DO-NOT-LEAK-0123456789abcdef"


def test_stream_chunk_is_slotted_with_seven_types() -> None:
    chunk = StreamChunk(type="text", content="x")
    assert not hasattr(chunk, "__dict__")
    assert [f.name for f in dataclasses.fields(StreamChunk)] == [
        "type", "content", "tool_name", "tool_id", "tool_input", "tool_output",
        "is_error", "is_delta", "metadata",
    ]  # fmt: skip
    from typing import get_args

    from lionagi.service import ChunkType

    assert set(get_args(ChunkType)) == {
        "system", "thinking", "text", "tool_use", "tool_result", "result", "error",
    }  # fmt: skip
    assert StreamChunk(type="text").metadata is not StreamChunk(type="text").metadata


def _config(**extra: object) -> EndpointConfig:
    return EndpointConfig(name="n", provider="p", endpoint="chat", **extra)  # type: ignore[arg-type]


def test_unknown_key_names_the_field_with_a_hint() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        _config(temperatur=0.3)
    assert info.value.field == "temperatur"
    assert "request_defaults" in str(info.value)
    with pytest.raises(EndpointConfigurationError) as info:
        _config(time_out=3)
    assert info.value.field == "time_out"
    assert "timeout" in str(info.value)


def test_invalid_value_names_the_field_without_echoing_input() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        _config(timeout=-1)
    assert info.value.field == "timeout"
    with pytest.raises(EndpointConfigurationError) as info:
        _config(auth_type=SECRET)
    assert info.value.field == "auth_type"
    assert SECRET not in str(info.value)


def test_api_key_never_leaks(caplog: pytest.LogCaptureFixture) -> None:
    config = _config(api_key=SECRET, base_url="https://api.example.com")
    caplog.set_level(logging.DEBUG)
    logging.getLogger("lionagi.service").info("config %r %s", config, config)
    texts = [repr(config), str(config), str(config.model_dump()), str(config.to_dict()),
             config.model_dump_json(), caplog.text, repr(Endpoint(config))]  # fmt: skip
    for text in texts:
        assert SECRET not in text
    assert config.secret_value() == SECRET


def test_api_key_from_declared_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_KEY", SECRET)
    config = _config(api_key_env="ACME_KEY")
    assert config.secret_value() == SECRET
    explicit = _config(api_key_env="ACME_KEY", api_key="sk-explicit-123456")
    assert explicit.secret_value() == "sk-explicit-123456"


def test_with_updates_validates_the_same_way() -> None:
    config = _config(request_defaults={"temperature": 0.2})
    changed = config.with_updates(timeout=5)
    assert changed.timeout == 5 and changed.request_defaults == {"temperature": 0.2}
    changed.request_defaults["x"] = 1
    assert config.request_defaults == {"temperature": 0.2}
    with pytest.raises(EndpointConfigurationError) as info:
        config.with_updates(bogus=1)
    assert info.value.field == "bogus"


def test_endpoint_without_registration_needs_a_config() -> None:
    class Loose(Endpoint):
        pass

    with pytest.raises(EndpointConfigurationError) as info:
        Loose()
    assert info.value.field == "config"


def test_agentic_markers() -> None:
    assert AgenticEndpoint.is_agentic and AgenticEndpoint.is_cli
    assert not Endpoint.is_agentic and not Endpoint.is_cli


def test_credential_default_headers_never_serialize() -> None:
    config = _config(
        default_headers={"x-goog-api-key": SECRET, "x-trace": "abc", "accept": "text/plain"}
    )
    assert SECRET not in repr(config)
    assert SECRET not in str(config.to_dict())
    # Only allow-listed harmless headers show their value; any other may be a credential.
    assert config.to_dict()["default_headers"]["x-trace"] == "[REDACTED]"
    assert config.to_dict()["default_headers"]["accept"] == "text/plain"
    assert config.default_headers["x-goog-api-key"] == SECRET  # still sent on the wire

"""create_payload: defaults, request schema, headers and missing-key errors."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from lionagi.service import Endpoint, EndpointConfig, EndpointConfigurationError


class ChatOptions(BaseModel):
    model: str
    messages: list[dict[str, Any]] = Field(default_factory=list)
    temperature: float | None = None
    max_tokens: int | None = Field(default=None, alias="maxTokens")
    top_p: float = 1.0

    model_config = ConfigDict(populate_by_name=True)


def endpoint(**overrides: Any) -> Endpoint:
    config: dict[str, Any] = {
        "name": "t",
        "provider": "openai",
        "endpoint": "chat/completions",
        "base_url": "https://api.example.com/v1",
        "api_key": "k-123456789",
        "api_key_env": "EXAMPLE_API_KEY",
    }
    config.update(overrides)
    return Endpoint(config)


def test_request_wins_over_defaults_and_kwargs_win_over_request() -> None:
    ep = endpoint(request_defaults={"model": "base", "temperature": 0.1})
    payload, _ = ep.create_payload({"temperature": 0.5, "n": 2}, n=3)
    assert payload == {"model": "base", "temperature": 0.5, "n": 3}


def test_defaults_are_a_fresh_copy_every_call() -> None:
    ep = endpoint(request_defaults={"stream_options": {"include_usage": True}, "tags": ["a"]})
    first, _ = ep.create_payload({})
    first["stream_options"]["include_usage"] = False
    first["tags"].append("mutated")
    second, _ = ep.create_payload({})
    assert second == {"stream_options": {"include_usage": True}, "tags": ["a"]}
    assert ep.config.request_defaults["tags"] == ["a"]


def test_unknown_key_with_schema_is_an_error_naming_the_key() -> None:
    ep = endpoint(request_options=ChatOptions)
    with pytest.raises(EndpointConfigurationError) as info:
        ep.create_payload({"model": "m", "temprature": 0.2})
    assert info.value.field == "temprature"
    assert "temperature" in str(info.value)  # did-you-mean


def test_unknown_key_from_defaults_is_also_refused() -> None:
    ep = endpoint(request_options=ChatOptions, request_defaults={"bogus": 1})
    with pytest.raises(EndpointConfigurationError) as info:
        ep.create_payload({"model": "m"})
    assert info.value.field == "bogus"


def test_invalid_value_names_the_field_without_echoing_it() -> None:
    ep = endpoint(request_options=ChatOptions)
    with pytest.raises(EndpointConfigurationError) as info:
        ep.create_payload({"model": "m", "temperature": "very-hot-secret-value"})
    assert info.value.field == "temperature"
    assert "very-hot-secret-value" not in str(info.value)


def test_schema_dump_drops_unset_and_none_and_respects_alias_setting() -> None:
    ep = endpoint(request_options=ChatOptions)
    payload, _ = ep.create_payload({"model": "m", "max_tokens": 5, "temperature": None})
    assert payload == {"model": "m", "max_tokens": 5}

    by_alias = endpoint(request_options=ChatOptions, serialize_by_alias=True)
    payload, _ = by_alias.create_payload({"model": "m", "maxTokens": 5})
    assert payload == {"model": "m", "maxTokens": 5}


def test_model_instance_request_is_accepted() -> None:
    ep = endpoint(request_options=ChatOptions, request_defaults={"temperature": 0.3})
    payload, _ = ep.create_payload(ChatOptions(model="m", max_tokens=7))
    assert payload == {"model": "m", "max_tokens": 7, "temperature": 0.3}


def test_request_of_wrong_type_is_refused() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        endpoint().create_payload(["not", "a", "mapping"])  # type: ignore[arg-type]
    assert info.value.field == "request"


def test_bearer_headers() -> None:
    _, headers = endpoint().create_payload({})
    assert headers == {"Content-Type": "application/json", "Authorization": "Bearer k-123456789"}


def test_x_api_key_headers_with_defaults_and_extras() -> None:
    ep = endpoint(auth_type="x-api-key", default_headers={"anthropic-version": "2023-06-01"})
    _, headers = ep.create_payload({}, extra_headers={"anthropic-beta": "tools"})
    assert headers == {
        "Content-Type": "application/json",
        "x-api-key": "k-123456789",
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "tools",
    }


def test_extra_headers_replace_case_insensitively() -> None:
    _, headers = endpoint().create_payload({}, extra_headers={"authorization": "Bearer other"})
    assert headers == {"Content-Type": "application/json", "authorization": "Bearer other"}


def test_no_auth_needs_no_key() -> None:
    ep = endpoint(auth_type="none", api_key=None, api_key_env=None)
    _, headers = ep.create_payload({})
    assert headers == {"Content-Type": "application/json"}


def test_missing_key_names_the_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EXAMPLE_API_KEY", raising=False)
    ep = endpoint(api_key=None)
    with pytest.raises(EndpointConfigurationError) as info:
        ep.create_payload({})
    assert info.value.field == "api_key"
    assert "set EXAMPLE_API_KEY" in str(info.value)


def test_key_from_env_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXAMPLE_API_KEY", "from-env-abcdef")
    ep = Endpoint(
        EndpointConfig(
            name="t",
            provider="p",
            endpoint="chat/completions",
            base_url="https://api.example.com",
            api_key_env="EXAMPLE_API_KEY",
        )
    )
    _, headers = ep.create_payload({})
    assert headers["Authorization"] == "Bearer from-env-abcdef"


def test_non_string_header_value_is_refused() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        endpoint().create_payload({}, extra_headers={"x-n": 3})  # type: ignore[dict-item]
    assert info.value.field == "headers.x-n"


async def test_runtime_args_are_refused_for_http() -> None:
    ep = endpoint()
    with pytest.raises(EndpointConfigurationError) as info:
        await ep.call({}, on_chunk=print)
    assert info.value.field == "on_chunk"
    with pytest.raises(EndpointConfigurationError):
        async for _ in ep.stream({}, cwd="/tmp"):
            pass
    await ep.aclose()


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "10"])
async def test_bad_timeout_is_refused(bad: Any) -> None:
    ep = endpoint()
    with pytest.raises(EndpointConfigurationError) as info:
        await ep.call({}, timeout=bad)
    assert info.value.field == "timeout"
    await ep.aclose()


async def test_payload_that_is_not_json_is_a_config_error() -> None:
    ep = endpoint()
    with pytest.raises(EndpointConfigurationError) as info:
        await ep.call({"x": object()})
    assert info.value.field == "x"  # the top-level key that has no JSON form
    with pytest.raises(EndpointConfigurationError):
        await ep.call({"x": float("nan")})
    await ep.aclose()

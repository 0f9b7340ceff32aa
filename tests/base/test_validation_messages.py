"""pydantic's failures become the library's typed errors in pydantic-free words."""

from __future__ import annotations

import pytest

from lionagi.service import (
    AgenticRequestValidationError,
    EndpointConfigurationError,
    iModel,
)


def test_a_validators_own_message_loses_pydantics_value_error_prefix() -> None:
    # Endpoint config (a field validator), agentic settings and an agentic request (a model
    # validator) all reported "Value error, ..." before.
    with pytest.raises(EndpointConfigurationError) as config:
        iModel(model="openai/gpt-4.1", api_key="sk-abcdefgh12345678", base_url="ftp://x")
    assert str(config.value) == "base_url: must be an absolute http:// or https:// URL"

    with pytest.raises(EndpointConfigurationError) as settings:
        iModel(model="codex/gpt-5", agentic_settings={"gateway_url": "ftp://x"})
    assert settings.value.field == "agentic_settings.gateway_url"
    assert str(settings.value).startswith("agentic_settings.gateway_url: must be an http")

    model = iModel(model="scripted/demo")
    with pytest.raises(AgenticRequestValidationError) as request:
        model.create_api_calling()
    assert str(request.value) == "request: either prompt or messages is required"


def test_an_unknown_config_key_reads_as_one_sentence() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="openai/gpt-4.1", api_key="sk-abcdefgh12345678", timout=3)
    assert str(info.value) == (
        "timout: unknown endpoint configuration field (did you mean 'timeout'?); "
        "provider payload defaults belong in request_defaults"
    )

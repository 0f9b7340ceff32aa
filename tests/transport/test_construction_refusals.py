"""Bad endpoint settings are refused when the config is built, naming the field (issue #9, 12/13).

Before, each of these reached the first request (or every request) and failed there, if at all:
a typo'd scheme as a connection error, ``?api-version=`` glued in front of the endpoint path, an
infinite transport cap that never fires, an unencodable JSON dump of the config.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from lionagi.service import (
    EndpointConfig,
    EndpointConfigurationError,
    OpenAIChatCompletionsRequest,
)

BASE: dict[str, Any] = {"name": "t", "provider": "t", "endpoint": "chat/completions"}


# -- base_url -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["ftp://api.example.com/v1", "file:///etc/passwd", "ws://api.example.com", "javascript:x"],
)
def test_a_base_url_with_a_scheme_other_than_http_or_https_is_refused(url: str) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        EndpointConfig(**BASE, base_url=url)
    assert info.value.field == "base_url"
    assert "http" in str(info.value)


@pytest.mark.parametrize("url", ["api.example.com/v1", "//api.example.com/v1", "/v1", "localhost"])
def test_a_base_url_without_a_scheme_is_refused(url: str) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        EndpointConfig(**BASE, base_url=url)
    assert info.value.field == "base_url"


@pytest.mark.parametrize("url", ["https://", "http:///v1", "https://api.example.com/v1#frag"])
def test_a_base_url_without_a_host_or_with_a_fragment_is_refused(url: str) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        EndpointConfig(**BASE, base_url=url)
    assert info.value.field == "base_url"


def test_http_and_https_base_urls_are_accepted_in_any_case() -> None:
    for url in ("http://127.0.0.1:8080/v1", "HTTPS://api.example.com", "https://h/v1/"):
        assert EndpointConfig(**BASE, base_url=url).base_url == url


def test_with_updates_applies_the_same_base_url_rule() -> None:
    config = EndpointConfig(**BASE, base_url="https://api.example.com/v1")
    with pytest.raises(EndpointConfigurationError) as info:
        config.with_updates(base_url="api.example.com")
    assert info.value.field == "base_url"


# -- base_url query strings (Azure's api-version) -------------------------------------------------


def test_the_base_url_query_is_kept_after_the_joined_path() -> None:
    config = EndpointConfig(
        **{**BASE, "endpoint": "chat/completions"},
        base_url="https://res.example.com/openai/deployments/d?api-version=2024-10-21",
    )
    # Before: .../d?api-version=2024-10-21/chat/completions
    assert config.full_url == (
        "https://res.example.com/openai/deployments/d/chat/completions?api-version=2024-10-21"
    )


def test_the_base_url_query_merges_with_a_query_on_the_endpoint_path() -> None:
    config = EndpointConfig(
        **{**BASE, "endpoint": "models/{model}:generate?alt=sse", "endpoint_params": ["model"]},
        params={"model": "m1"},
        base_url="https://h.example.com/v1/?key-version=2",
    )
    assert config.full_url == "https://h.example.com/v1/models/m1:generate?alt=sse&key-version=2"


async def test_a_post_reaches_the_server_with_the_base_url_query(
    serve: Any, make_endpoint: Any, wire: Any
) -> None:
    server = await serve(lambda req: wire.full(200, "{}"))
    ep = make_endpoint(f"{server.base_url}/openai/deployments/d?api-version=2024-10-21")
    assert await ep.call({"messages": []}) == {}
    seen = server.requests[0]
    assert seen.method == "POST"
    assert seen.path == "/openai/deployments/d/chat/completions?api-version=2024-10-21"


async def test_a_get_merges_its_payload_parameters_onto_the_base_url_query(
    serve: Any, make_endpoint: Any, wire: Any
) -> None:
    server = await serve(lambda req: wire.full(200, "{}"))
    ep = make_endpoint(f"{server.base_url}/v1?api-version=7", endpoint="models", method="GET")
    await ep.call({"limit": 3})
    assert server.requests[0].path == "/v1/models?api-version=7&limit=3"


# -- timeout --------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, 0, -1])
def test_a_timeout_that_is_not_a_finite_positive_number_is_refused(value: float) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        EndpointConfig(**BASE, timeout=value)
    assert info.value.field == "timeout"


# -- JSON dumps -----------------------------------------------------------------------------------


def test_model_dump_json_names_the_request_model() -> None:
    config = EndpointConfig(
        **BASE,
        base_url="https://api.example.com/v1",
        request_options=OpenAIChatCompletionsRequest,
        api_key="sk-never-dumped-1234567890",
    )
    text = config.model_dump_json()  # raised PydanticSerializationError before
    data = json.loads(text)
    assert data["request_options"] == (
        f"{OpenAIChatCompletionsRequest.__module__}:OpenAIChatCompletionsRequest"
    )
    assert "sk-never-dumped" not in text
    assert config.model_dump(mode="json")["request_options"] == data["request_options"]
    # The Python-mode dump keeps the class itself, so a config can be rebuilt from it.
    assert config.model_dump()["request_options"] is OpenAIChatCompletionsRequest


def test_model_dump_json_without_a_request_model() -> None:
    assert json.loads(EndpointConfig(**BASE).model_dump_json())["request_options"] is None


@pytest.mark.parametrize("mode", ["python", "json"])
def test_dumps_never_carry_a_credential_header(mode: str) -> None:
    config = EndpointConfig(
        **BASE, default_headers={"api-key": "azure-secret-987654321", "x-trace": "on"}
    )
    dumped = config.model_dump(mode=mode)
    # Every header value is hidden unless the header is on the harmless allow-list.
    assert dumped["default_headers"] == {"api-key": "[REDACTED]", "x-trace": "[REDACTED]"}
    assert "azure-secret" not in config.model_dump_json()
    assert config.default_headers["api-key"] == "azure-secret-987654321"  # still sent

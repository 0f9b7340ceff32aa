"""NLIP audit fixes: bad 2xx JSON typed, invalid port refused, statuses via core's mapping."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from lionagi.providers.ag2 import AG2NlipEndpoint
from lionagi.service import (
    AgenticRequestValidationError,
    EndpointConfigurationError,
    ProviderClientError,
    ProviderProtocolError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderUnauthorizedError,
    iModel,
)

pytestmark = pytest.mark.anyio

SECRET = "sk-live-abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class _Counting(httpx.AsyncBaseTransport):
    """Answers every request with ``make()``; counts the requests."""

    def __init__(self, status: int, content: bytes, headers: dict[str, str] | None = None):
        self.status = status
        self.content = content
        self.headers = headers or {}
        self.calls = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        return httpx.Response(self.status, content=self.content, headers=self.headers)


def _model(
    transport: httpx.AsyncBaseTransport, base_url: str = "http://127.0.0.1:9/agent"
) -> tuple[AG2NlipEndpoint, iModel]:
    endpoint = AG2NlipEndpoint(
        {
            "name": "ag2-nlip",
            "provider": "ag2",
            "endpoint": "nlip",
            "base_url": base_url,
            "allow_local_network": True,
            "max_retries": 3,
        },
        transport=transport,
    )
    return endpoint, iModel(endpoint=endpoint)


async def _stream(model: iModel, **kwargs: Any) -> list[Any]:
    return [c async for c in model.stream(prompt="hi", **kwargs)]


# 1. A 2xx body that parses badly is a ProviderProtocolError, with the original as the cause.


@pytest.mark.parametrize(
    ("body", "cause"),
    [
        (b"[" * 100_000 + b"]" * 100_000, RecursionError),
        (b"1" * 5_000, ValueError),
        (b"{not json", ValueError),
    ],
    ids=["deep-nesting", "huge-integer", "malformed"],
)
async def test_unparsable_2xx_body_is_a_protocol_error(body: bytes, cause: type) -> None:
    transport = _Counting(200, body, {"content-type": "application/json"})
    endpoint, model = _model(transport)
    with pytest.raises(ProviderProtocolError) as info:
        await _stream(model)
    assert isinstance(info.value.__cause__, cause)
    assert "NLIP" in str(info.value)
    assert transport.calls == 1  # a protocol error is not retried
    assert endpoint.clients_opened == endpoint.clients_closed == 1


# 2. An out-of-range or non-numeric port is refused at validation, before any connection.


class _NeverCalled(httpx.AsyncBaseTransport):
    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request may be sent for an invalid URL")


@pytest.mark.parametrize("url", ["http://127.0.0.1:99999/", "http://127.0.0.1:abc/"])
async def test_invalid_port_in_request_url_is_refused(url: str) -> None:
    endpoint, model = _model(_NeverCalled())
    with pytest.raises(AgenticRequestValidationError) as info:
        await _stream(model, url=url)
    assert "url" in str(info.value)
    assert endpoint.clients_opened == 0


async def test_invalid_port_in_request_url_is_refused_without_a_transport() -> None:
    """The production path (SSRF guard, pinned transport): typed, not ExceptionGroup."""
    model = iModel(provider="ag2", endpoint="nlip", allow_local_network=True)
    try:
        with pytest.raises(AgenticRequestValidationError) as info:
            await _stream(model, url="http://127.0.0.1:99999/")
    finally:
        await model.close()
    assert "url" in str(info.value)


def test_invalid_port_in_base_url_is_refused_when_built() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        AG2NlipEndpoint(
            {"name": "n", "provider": "ag2", "endpoint": "nlip", "base_url": "http://h:70000/"}
        )
    assert "base_url" in str(info.value)


# 3. Error statuses go through core's mapping (typed, Retry-After, URL, redacted excerpt).


@pytest.mark.parametrize("status", [401, 403])
async def test_auth_statuses_are_unauthorized(status: int) -> None:
    transport = _Counting(status, f'{{"error": "bad key {SECRET}"}}'.encode())
    _, model = _model(transport)
    with pytest.raises(ProviderUnauthorizedError) as info:
        await _stream(model)
    assert info.value.status == status
    assert SECRET not in str(info.value)
    assert SECRET not in info.value.body_excerpt
    assert "127.0.0.1:9/agent/nlip/" in str(info.value)
    # The endpoint sends no key, so the message must not send the caller looking for one.
    assert "API key" not in str(info.value)
    assert "sends no credential" in str(info.value)
    assert transport.calls == 1


async def test_429_is_a_rate_limit_error_with_retry_after_and_not_retried() -> None:
    transport = _Counting(429, f"slow down {SECRET}".encode(), {"retry-after": "7"})
    endpoint, model = _model(transport)
    with pytest.raises(ProviderRateLimitError) as info:
        await _stream(model)
    assert info.value.status == 429
    assert info.value.retry_after == 7.0
    assert SECRET not in str(info.value)
    assert SECRET not in info.value.body_excerpt
    # The endpoint's attempt policy retries no status: still one request.
    assert transport.calls == 1
    assert endpoint.clients_opened == endpoint.clients_closed == 1


@pytest.mark.parametrize("status", [500, 503])
async def test_5xx_is_a_server_error_with_retry_after_and_not_retried(status: int) -> None:
    transport = _Counting(status, f"down {SECRET}".encode(), {"retry-after": "3"})
    _, model = _model(transport)
    with pytest.raises(ProviderServerError) as info:
        await _stream(model)
    assert info.value.status == status
    assert info.value.retry_after == 3.0
    assert SECRET not in str(info.value)
    assert SECRET not in info.value.body_excerpt
    assert "127.0.0.1:9/agent/nlip/" in str(info.value)
    assert transport.calls == 1


async def test_4xx_message_names_url_without_query() -> None:
    transport = _Counting(404, b"no such agent")
    _, model = _model(transport, base_url="http://127.0.0.1:9/agent?token=hunter2hunter2")
    with pytest.raises(ProviderClientError) as info:
        await _stream(model)
    error = info.value
    assert not isinstance(error, ProviderServerError | ProviderUnauthorizedError)
    assert error.status == 404
    assert "127.0.0.1:9/agent/nlip/" in str(error)
    assert "hunter2" not in str(error)
    assert transport.calls == 1

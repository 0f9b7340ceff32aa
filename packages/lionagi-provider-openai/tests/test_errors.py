"""OpenAI's error vocabulary, typed from status and body on every row (fake server, loopback).

The Responses row maps the same body codes as chat: before this distribution the Responses
wire had no endpoint that read them, so a context overflow was a bare client error there.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import (
    Endpoint,
    ProviderAuthError,
    ProviderCapacityError,
    ProviderContextError,
    ProviderQuotaExhaustedError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderStatusContextError,
    ProviderUnauthorizedError,
    match_endpoint,
)
from lionagi.service_testing.fake_server import FakeProviderServer

KEY = "sk-proj-openaiTESTkey0123456789abcdef"
ROWS = {
    "chat": {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}]},
    "responses": {"model": "gpt-4.1", "input": "hi"},
    "embeddings": {"model": "text-embedding-3-small", "input": "hi"},
}


def endpoint(server: FakeProviderServer, row: str) -> Endpoint:
    return match_endpoint(
        "openai", row, base_url=server.base_url + "/v1", api_key=KEY, allow_local_network=True
    )


async def call(server: FakeProviderServer, row: str, behaviour: str, **headers: str) -> Any:
    ep = endpoint(server, row)
    try:
        return await ep.call(ROWS[row], extra_headers={"x-fake-behaviour": behaviour, **headers})
    finally:
        await ep.aclose()


@pytest.mark.parametrize("row", list(ROWS))
async def test_context_length_exceeded_is_a_status_context_error(server, row):
    with pytest.raises(ProviderStatusContextError) as info:
        await call(server, row, "context_length")
    assert isinstance(info.value, ProviderContextError)
    assert info.value.status == 400
    assert "context_length_exceeded" in (info.value.body_excerpt or "")


@pytest.mark.parametrize("row", list(ROWS))
async def test_insufficient_quota_is_exhausted_not_a_rate_limit(server, row):
    with pytest.raises(ProviderQuotaExhaustedError) as info:
        await call(server, row, "quota")
    assert not isinstance(info.value, ProviderRateLimitError)
    assert info.value.status == 429
    assert not info.value.retryable


@pytest.mark.parametrize("row", list(ROWS))
async def test_rate_limit_keeps_retry_after(server, row):
    with pytest.raises(ProviderRateLimitError) as info:
        await call(server, row, "429", **{"x-fake-retry-after": "3"})
    assert info.value.retry_after == 3.0


@pytest.mark.parametrize("row", list(ROWS))
async def test_overloaded_is_retryable_capacity_or_server(server, row):
    with pytest.raises((ProviderCapacityError, ProviderServerError)) as info:
        await call(server, row, "overloaded")
    assert info.value.retryable


@pytest.mark.parametrize("row", list(ROWS))
async def test_401_is_unauthorized_and_the_echoed_key_is_redacted(server, row):
    with pytest.raises(ProviderUnauthorizedError) as info:
        await call(server, row, "401")
    assert isinstance(info.value, ProviderAuthError)
    assert KEY not in str(info.value)
    assert KEY[:20] not in str(info.value)


@pytest.mark.parametrize("row", list(ROWS))
async def test_403_is_an_auth_error_not_retried(server, row):
    with pytest.raises(ProviderAuthError) as info:
        await call(server, row, "403")
    assert info.value.status == 403
    assert not info.value.retryable


async def test_responses_in_stream_failure_is_one_error_chunk(server):
    ep = endpoint(server, "responses")
    try:
        chunks = [
            c
            async for c in ep.stream(
                ROWS["responses"], extra_headers={"x-fake-behaviour": "stream_error"}
            )
        ]
    finally:
        await ep.aclose()
    errors = [c for c in chunks if c.type == "error"]
    assert len(errors) == 1
    assert chunks[-1] is errors[0]
    assert errors[0].metadata.get("code") == "server_error"

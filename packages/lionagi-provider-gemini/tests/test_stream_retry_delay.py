"""A rate limit reported inside a stream keeps the wait Google asked for (``RetryInfo``).

Google's ``RESOURCE_EXHAUSTED`` object says how long to wait in its ``google.rpc.RetryInfo``
detail (``retryDelay``, a protobuf Duration such as ``"39s"``). As an HTTP 429 the wait is the
error's ``retry_after`` (``gemini_status_error``), which the attempt policy honours. The same
object as a stream's error event (native ``streamGenerateContent``, or relayed by the
OpenAI-compatible layer), or as a 2xx body ``invoke()`` checks, lost it: the retry came after the
policy's short backoff, inside the window the quota was still spent, and every attempt failed the
same way. The error chunk now carries ``retry_after``, which core's stream classification reads.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from lionagi.providers.gemini import GeminiStreamProjector
from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderRateLimitError,
    ProviderStreamError,
    ProviderStreamQuotaError,
    iModel,
)
from lionagi.service_testing import scripted_stream_server

KEY = "AIzaRetryDelayKey0123456789abcdef"
MINUTE = "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"
DAILY = "GenerateRequestsPerDayPerProjectPerModel-FreeTier"


def quota_error(delay: str, quota: str = MINUTE) -> dict[str, Any]:
    """Google's 429 object: a per-minute QuotaFailure and a RetryInfo of ``delay``."""
    return {
        "error": {
            "code": 429,
            "message": "You exceeded your current quota. Please retry in 38.2s.",
            "status": "RESOURCE_EXHAUSTED",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [{"quotaId": quota}],
                },
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay},
            ],
        }
    }


def _model(url: str, endpoint: str, max_delay: float) -> iModel:
    return iModel(
        model="gemini/gemini-2.5-flash",
        endpoint=endpoint,
        api_key=KEY,
        base_url=url if endpoint == "generate" else f"{url}/openai",
        allow_local_network=True,
        attempt_policy=AttemptPolicy(
            max_attempts=3, base_delay=0.001, max_delay=max_delay, jitter_factor=0
        ),
    )


def _request(endpoint: str) -> dict[str, Any]:
    if endpoint == "generate":
        return {"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}
    return {"messages": [{"role": "user", "content": "hello"}]}


async def stream_error(
    event: Any, endpoint: str, max_delay: float = 0.01
) -> tuple[ProviderStreamError, int]:
    raw = b"data: " + json.dumps(event).encode() + b"\r\n\r\n"
    async with scripted_stream_server([raw], path="/v1beta") as server:
        async with _model(server.url, endpoint, max_delay) as model:
            with pytest.raises(ProviderStreamError) as info:
                async for _ in model.stream(**_request(endpoint)):
                    pass
        return info.value, server.requests


async def invoke_error(
    body: Any, endpoint: str, max_delay: float = 0.01, status: int = 200
) -> tuple[BaseException, int]:
    raw = json.dumps(body).encode()
    async with scripted_stream_server(
        [raw], path="/v1beta", content_type="application/json", status=status
    ) as server:
        async with _model(server.url, endpoint, max_delay) as model:
            call = await model.invoke(**_request(endpoint))
        assert call.status is EventStatus.FAILED
        assert call.exception is not None
        return call.exception, server.requests


ENDPOINTS = pytest.mark.parametrize("endpoint", ["generate", "chat"])


@ENDPOINTS
async def test_the_stream_error_keeps_googles_retry_delay(endpoint: str) -> None:
    error, _ = await stream_error(quota_error("39s"), endpoint)
    assert type(error) is ProviderStreamQuotaError
    assert error.retry_after == 39.0


@ENDPOINTS
async def test_a_wait_longer_than_the_policy_allows_is_left_to_the_caller(endpoint: str) -> None:
    # As the HTTP 429 of the same object: the caller gets the error and the wait at once,
    # instead of two more attempts inside the window Google said was still spent.
    http, http_requests = await invoke_error(quota_error("39s"), endpoint, status=429)
    assert isinstance(http, ProviderRateLimitError)
    assert (http.retry_after, http_requests) == (39.0, 1)
    streamed, requests = await invoke_error(quota_error("39s"), endpoint)
    assert type(streamed) is ProviderStreamQuotaError
    assert (streamed.retry_after, requests) == (39.0, 1)


@ENDPOINTS
async def test_a_wait_within_the_policy_is_slept_before_each_retry(endpoint: str) -> None:
    started = time.monotonic()
    error, requests = await invoke_error(quota_error("0.25s"), endpoint, max_delay=1.0)
    elapsed = time.monotonic() - started
    assert type(error) is ProviderStreamQuotaError
    assert requests == 3
    assert elapsed >= 0.5  # two retries, each after Google's 0.25 s, not the 1 ms backoff


def test_the_error_chunk_carries_the_delay_and_a_daily_quota_none() -> None:
    [chunk] = GeminiStreamProjector().feed(quota_error("13.5s"))
    assert chunk.metadata["retry_after"] == 13.5
    # A spent daily quota is never retried (as its HTTP form): no wait to schedule.
    [daily] = GeminiStreamProjector().feed(quota_error("13.5s", DAILY))
    assert "retry_after" not in daily.metadata
    # Only Google's Duration form is a delay: anything else is no delay, never guessed.
    [odd] = GeminiStreamProjector().feed(quota_error("soon"))
    assert "retry_after" not in odd.metadata

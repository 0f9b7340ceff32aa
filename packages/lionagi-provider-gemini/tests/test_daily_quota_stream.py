"""A used-up daily quota reported inside a stream fails as it does with an HTTP status: not retried.

Google reports per-minute and per-day quotas alike as ``RESOURCE_EXHAUSTED`` and tells them
apart only in the ``google.rpc.QuotaFailure`` detail (``quotaId`` ``...PerDay...``). The status
path (``gemini_status_error``) reads the detail; the same object as a stream's error event (or a
2xx body ``invoke()`` checks) was projected to its message alone, so core's classification saw
"RESOURCE_EXHAUSTED" and made it the retryable quota family: every retry that day failed the
same way, spending the caller's deadline. The fake server renders no such event, so a loopback
server writes it as Google sends it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.providers.gemini import GeminiStreamProjector
from lionagi.providers.gemini._errors import DAILY_QUOTA_TYPE
from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderQuotaSpentError,
    ProviderStreamError,
    ProviderStreamQuotaError,
    ProviderStreamQuotaExhaustedError,
    iModel,
)
from lionagi.service_testing import scripted_stream_server

KEY = "AIzaDailyQuotaKey0123456789abcdef"
CONTENTS = [{"role": "user", "parts": [{"text": "hello"}]}]
MESSAGES = [{"role": "user", "content": "hello"}]
DAILY = "GenerateRequestsPerDayPerProjectPerModel-FreeTier"
MINUTE = "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"
# Google's message for both kinds: it names the metric, not the period, and says to retry soon.
MESSAGE = (
    "You exceeded your current quota, please check your plan and billing details. For more "
    "information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n"
    "* Quota exceeded for metric: generativelanguage.googleapis.com/"
    "generate_content_free_tier_requests, limit: 50, model: gemini-2.5-pro\n"
    "Please retry in 39.8s."
)


def quota_error(*quota_ids: str, delay: str = "39s") -> dict[str, Any]:
    """Google's 429 object with a QuotaFailure naming ``quota_ids`` and a RetryInfo of ``delay``."""
    return {
        "error": {
            "code": 429,
            "message": MESSAGE,
            "status": "RESOURCE_EXHAUSTED",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [
                        {
                            "quotaMetric": "generativelanguage.googleapis.com/"
                            "generate_content_free_tier_requests",
                            "quotaId": quota,
                        }
                        for quota in quota_ids
                    ],
                },
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay},
            ],
        }
    }


def _model(url: str, endpoint: str = "generate") -> iModel:
    return iModel(
        model="gemini/gemini-2.5-flash",
        endpoint=endpoint,
        api_key=KEY,
        base_url=url if endpoint == "generate" else f"{url}/openai",
        allow_local_network=True,
        # Three quick attempts: a retryable failure shows as three requests.
        attempt_policy=AttemptPolicy(
            max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0
        ),
    )


def _request(endpoint: str) -> dict[str, Any]:
    return {"contents": CONTENTS} if endpoint == "generate" else {"messages": MESSAGES}


async def stream_error(event: Any, endpoint: str = "generate") -> tuple[ProviderStreamError, int]:
    """What ``iModel.stream`` raises when its one SSE event is ``event``, and the requests made."""
    raw = b"data: " + json.dumps(event).encode() + b"\r\n\r\n"
    async with scripted_stream_server([raw], path="/v1beta") as server:
        async with _model(server.url, endpoint) as model:
            with pytest.raises(ProviderStreamError) as info:
                async for _ in model.stream(**_request(endpoint)):
                    pass
        return info.value, server.requests


async def invoke_error(body: Any, endpoint: str = "generate") -> tuple[BaseException, int]:
    """What ``iModel.invoke`` fails with when every answer is ``body`` with a 200, and the tries."""
    raw = json.dumps(body).encode()
    async with scripted_stream_server(
        [raw], path="/v1beta", content_type="application/json"
    ) as server:
        async with _model(server.url, endpoint) as model:
            call = await model.invoke(**_request(endpoint))
        assert call.status is EventStatus.FAILED
        assert call.exception is not None
        return call.exception, server.requests


# Both surfaces: the native stream, and the OpenAI-compatible layer relaying Google's object.
ENDPOINTS = pytest.mark.parametrize("endpoint", ["generate", "chat"])


@ENDPOINTS
async def test_a_daily_quota_in_the_stream_is_the_spent_twin(endpoint: str) -> None:
    error, requests = await stream_error(quota_error(DAILY), endpoint)
    assert type(error) is ProviderStreamQuotaExhaustedError
    assert isinstance(error, ProviderQuotaSpentError)
    assert error.retryable is False
    assert error.kind == "quota_exhausted"
    assert (error.status, error.code, error.provider) == (429, "429", "gemini")
    assert "You exceeded your current quota" in str(error)  # Google's message, as it came
    assert KEY not in str(error)
    assert requests == 1


@ENDPOINTS
async def test_invoke_of_the_same_object_makes_exactly_one_attempt(endpoint: str) -> None:
    # Every retry that day fails the same way: none is made, whatever the RetryInfo says.
    error, requests = await invoke_error(quota_error(DAILY), endpoint)
    streamed, _ = await stream_error(quota_error(DAILY), endpoint)
    assert type(error) is ProviderStreamQuotaExhaustedError
    assert requests == 1
    assert (str(error), getattr(error, "code", None)) == (str(streamed), streamed.code)


PER_MINUTE = pytest.mark.parametrize(
    "quotas",
    [
        (MINUTE,),
        (DAILY, "GenerateContentInputTokensPerModelPerMinute-FreeTier"),
        ("",),  # a violation that names no quota cannot be shown to be a daily one
    ],
)


@ENDPOINTS
@PER_MINUTE
async def test_a_per_minute_quota_in_the_stream_stays_retryable(
    endpoint: str, quotas: tuple[str, ...]
) -> None:
    error, _ = await stream_error(quota_error(*quotas), endpoint)
    assert type(error) is ProviderStreamQuotaError
    assert error.retryable is True


@ENDPOINTS
@PER_MINUTE
async def test_a_per_minute_quota_answered_to_invoke_is_retried(
    endpoint: str, quotas: tuple[str, ...]
) -> None:
    # A RetryInfo the policy can wait for (a longer one is left to the caller, as over HTTP).
    error, requests = await invoke_error(quota_error(*quotas, delay="0.001s"), endpoint)
    assert type(error) is ProviderStreamQuotaError
    assert requests == 3  # a wait fixes it: retried under the policy


def test_the_error_chunk_names_the_verdict_and_the_quotas() -> None:
    projector = GeminiStreamProjector()
    [chunk] = projector.feed(quota_error(DAILY, DAILY))
    assert chunk.type == "error"
    assert chunk.metadata["type"] == DAILY_QUOTA_TYPE
    assert chunk.metadata["quota_ids"] == [DAILY]
    assert (chunk.metadata["code"], chunk.metadata["status"]) == ("429", 429)
    [minute] = GeminiStreamProjector().feed(quota_error(MINUTE))
    assert minute.metadata["type"] == "RESOURCE_EXHAUSTED"
    assert "quota_ids" not in minute.metadata

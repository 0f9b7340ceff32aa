"""Gemini error mapping from status *and* body, over the real fake server and direct bodies."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from lionagi.providers.gemini._errors import gemini_status_error, retry_delay_seconds
from lionagi.service import (
    Endpoint,
    ProviderQuotaError,
    ProviderQuotaExhaustedError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderStatusCapacityError,
    ProviderStatusContextError,
    ProviderUnauthorizedError,
    match_endpoint,
)
from lionagi.service.http import HTTPErrorInfo
from lionagi.service_testing.fake_server import FakeProviderServer

KEY = "AIzaFakeKeyForErrorTests0123456789"
REQUEST = {"model": "gemini-2.5-flash", "contents": [{"role": "user", "parts": [{"text": "hi"}]}]}


def native(base_url: str) -> Endpoint:
    return match_endpoint(
        "gemini", "generate", base_url=f"{base_url}/v1beta", api_key=KEY, allow_local_network=True
    )


async def call_with(behaviour: str, **headers: str) -> BaseException:
    async with FakeProviderServer() as server, native(server.base_url) as ep:
        extra = {"x-fake-behaviour": behaviour, **headers}
        payload, sent = ep.create_payload(dict(REQUEST), extra_headers=extra)
        with pytest.raises(Exception) as info:
            await ep.call(payload, extra_headers=sent, skip_payload_creation=True)
    assert KEY not in str(info.value)
    return info.value


async def test_resource_exhausted_is_rate_limit_with_retry_delay() -> None:
    exc = await call_with("429", **{"x-fake-retry-after": "13"})
    assert isinstance(exc, ProviderRateLimitError)
    assert exc.retry_after == 13.0
    assert "RESOURCE_EXHAUSTED" in str(exc)
    assert "(retry after 13s)" in str(exc)  # the wait, as every provider's 429 shows it


async def test_a_429_from_the_openai_compatible_surface_is_not_called_resource_exhausted() -> None:
    # Gemini's OpenAI-compatible surface answers with OpenAI's body: no status word to quote.
    async with FakeProviderServer() as server:
        ep = match_endpoint(
            "gemini",
            "chat",
            base_url=f"{server.base_url}/v1beta/openai",
            api_key=KEY,
            allow_local_network=True,
        )
        async with ep:
            payload, sent = ep.create_payload(
                {"model": "gemini-2.5-flash", "messages": [{"role": "user", "content": "hi"}]},
                extra_headers={"x-fake-behaviour": "429"},
            )
            with pytest.raises(ProviderRateLimitError) as info:
                await ep.call(payload, extra_headers=sent, skip_payload_creation=True)
    assert "RESOURCE_EXHAUSTED" not in str(info.value)
    assert "(HTTP 429)" in str(info.value)
    assert "(retry after 1s)" in str(info.value)


async def test_quota_is_a_quota_family_error() -> None:
    exc = await call_with("quota")
    assert isinstance(exc, ProviderQuotaError)
    # The fake names the daily free-tier quota, as the service does when it is used up.
    assert isinstance(exc, ProviderQuotaExhaustedError)


async def test_token_limit_invalid_argument_is_context() -> None:
    exc = await call_with("context_length")
    assert isinstance(exc, ProviderStatusContextError)
    assert exc.status == 400


@pytest.mark.parametrize("behaviour", ["401", "403"])
async def test_auth_statuses(behaviour: str) -> None:
    exc = await call_with(behaviour)
    assert isinstance(exc, ProviderUnauthorizedError)
    assert exc.status == int(behaviour)


async def test_overloaded_is_capacity_and_retryable() -> None:
    exc = await call_with("overloaded")
    assert isinstance(exc, ProviderStatusCapacityError)
    assert isinstance(exc, ProviderServerError)
    assert exc.retryable


def info(status: int, body: Any, headers: dict[str, str] | None = None) -> HTTPErrorInfo:
    text = json.dumps(body)
    return HTTPErrorInfo(
        status=status,
        where="POST https://generativelanguage.googleapis.com/v1beta/models/m:generateContent",
        body=body,
        excerpt=text[:300],
        retry_after=None,
        headers=httpx.Headers(headers or {}),
    )


def google_error(code: int, status: str, message: str, *details: dict[str, Any]) -> Any:
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if details:
        error["details"] = list(details)
    return {"error": error}


RETRY = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "13s"}


def test_retry_delay_from_details_without_any_header() -> None:
    body = google_error(429, "RESOURCE_EXHAUSTED", "Quota exceeded", RETRY)
    exc = gemini_status_error(info(429, body))
    assert isinstance(exc, ProviderRateLimitError)
    assert exc.retry_after == 13.0


@pytest.mark.parametrize(
    ("delay", "seconds"),
    [("13s", 13.0), ("0.5s", 0.5), ("1.250s", 1.25), ("13", None), ("x", None)],
)
def test_retry_delay_parsing(delay: str, seconds: float | None) -> None:
    detail = {"@type": RETRY["@type"], "retryDelay": delay}
    assert retry_delay_seconds({"details": [detail]}) == seconds


def _quota_failure(*quota_ids: str) -> dict[str, Any]:
    return {
        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
        "violations": [
            {"quotaMetric": "generativelanguage.googleapis.com/generate_content", "quotaId": q}
            for q in quota_ids
        ],
    }


def test_a_used_up_daily_quota_is_exhausted_not_a_rate_limit() -> None:
    # Google attaches a retryDelay of seconds even here; every retry that day fails the same.
    daily = _quota_failure("GenerateRequestsPerDayPerProjectPerModel-FreeTier")
    body = google_error(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota", daily, RETRY)
    exc = gemini_status_error(info(429, body))
    assert isinstance(exc, ProviderQuotaExhaustedError)
    assert isinstance(exc, ProviderQuotaError)
    assert not isinstance(exc, ProviderRateLimitError)
    assert exc.retryable is False
    assert "GenerateRequestsPerDayPerProjectPerModel-FreeTier" in str(exc)


@pytest.mark.parametrize(
    "quotas",
    [
        ("GenerateRequestsPerMinutePerProjectPerModel-FreeTier",),
        ("GenerateRequestsPerDayPerProjectPerModel", "GenerateContentInputTokensPerMinute"),
        ("",),  # a violation that names no quota cannot be shown to be a daily one
    ],
)
def test_a_per_minute_or_unnamed_quota_stays_a_retryable_rate_limit(
    quotas: tuple[str, ...],
) -> None:
    body = google_error(429, "RESOURCE_EXHAUSTED", "Quota exceeded", _quota_failure(*quotas), RETRY)
    exc = gemini_status_error(info(429, body))
    assert isinstance(exc, ProviderRateLimitError)
    assert exc.retry_after == 13.0


def test_compat_layer_list_wrapped_error_is_read() -> None:
    body = [google_error(429, "RESOURCE_EXHAUSTED", "Quota exceeded", RETRY)]
    exc = gemini_status_error(info(429, body))
    assert isinstance(exc, ProviderRateLimitError)
    assert exc.retry_after == 13.0


def test_invalid_key_400_is_auth() -> None:
    reason = {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "API_KEY_INVALID",
        "domain": "googleapis.com",
    }
    body = google_error(400, "INVALID_ARGUMENT", "API key not valid.", reason)
    assert isinstance(gemini_status_error(info(400, body)), ProviderUnauthorizedError)


def test_plain_invalid_argument_is_left_to_the_status_mapping() -> None:
    body = google_error(400, "INVALID_ARGUMENT", "Request contains an invalid argument.")
    assert gemini_status_error(info(400, body)) is None
    assert gemini_status_error(info(500, {"not": "google"})) is None


async def test_chat_endpoint_reads_google_errors_too() -> None:
    async with FakeProviderServer() as server:
        ep = match_endpoint(
            "gemini",
            "chat",
            base_url=f"{server.base_url}/v1beta/openai",
            api_key=KEY,
            allow_local_network=True,
        )
        body = google_error(429, "RESOURCE_EXHAUSTED", "Quota exceeded", RETRY)
        mapped = ep.map_status_error(info(429, body))
        await ep.aclose()
    assert isinstance(mapped, ProviderRateLimitError)
    assert mapped.retry_after == 13.0


# Google's body for a model with no allowance on the caller's tier (relayed verbatim by its
# clients): the per-minute wording, but a limit of 0, which no wait changes.
NO_ALLOWANCE = (
    "You exceeded your current quota, please check your plan and billing details. For more "
    "information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n"
    "* Quota exceeded for metric: generativelanguage.googleapis.com/"
    "generate_content_free_tier_requests, limit: 0, model: gemini-2.5-pro"
)


def test_a_quota_of_zero_is_exhausted_over_http_as_in_a_stream() -> None:
    from lionagi.service import ProviderStreamQuotaExhaustedError, classify_stream_error

    minute = _quota_failure("GenerateRequestsPerMinutePerProjectPerModel-FreeTier")
    body = google_error(429, "RESOURCE_EXHAUSTED", NO_ALLOWANCE, minute, RETRY)
    exc = gemini_status_error(info(429, body))
    assert isinstance(exc, ProviderQuotaExhaustedError)
    assert exc.retryable is False
    # the same object as a stream's error chunk: core's classification agrees
    chunk = classify_stream_error(NO_ALLOWANCE, {"code": "429", "type": "RESOURCE_EXHAUSTED"})
    assert type(chunk) is ProviderStreamQuotaExhaustedError


def test_a_nonzero_limit_stays_a_rate_limit() -> None:
    text = NO_ALLOWANCE.replace("limit: 0,", "limit: 10,") + "\nPlease retry in 12.3s."
    minute = _quota_failure("GenerateRequestsPerMinutePerProjectPerModel-FreeTier")
    exc = gemini_status_error(info(429, google_error(429, "RESOURCE_EXHAUSTED", text, minute)))
    assert isinstance(exc, ProviderRateLimitError)

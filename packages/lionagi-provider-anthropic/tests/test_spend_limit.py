"""A reached spend limit is a spent quota (never retried), not a rate limit.

Anthropic answers the usage tier's monthly cap with HTTP 429 and the same ``rate_limit_error``
type as a rate limit; only ``error.details.error_code`` (``enforced_spend_limit_reached``, or
``contract_spend_limit_reached``) tells them apart, and there is no ``retry-after``: usage
resumes at the start of the next month. It was a ``ProviderRateLimitError``, so every call was
retried up to the policy and the caller was told to slow down. A limit the organization set
itself is a 400 "You have reached your specified API usage limits". Real loopback server.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from lionagi.providers.anthropic import anthropic_status_error
from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderQuotaExhaustedError,
    ProviderRateLimitError,
    iModel,
)
from lionagi.service.http import HTTPErrorInfo
from lionagi.service_testing import scripted_stream_server

KEY = "sk-ant-test-FAKEkey0123456789abcdef"
HI = [{"role": "user", "content": "hi"}]
TIER_CAP = (
    "You have reached your API usage limits: your organization has crossed its monthly API "
    "usage threshold. You will regain access on 2026-09-01 at 00:00 UTC."
)


def spend_cap(code: str = "enforced_spend_limit_reached") -> dict[str, Any]:
    return {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": TIER_CAP, "details": {"error_code": code}},
        "request_id": "req_011",
    }


def _info(status: int, body: Any, retry_after: float | None = None) -> HTTPErrorInfo:
    return HTTPErrorInfo(
        status=status,
        where="POST https://api.anthropic.com/v1/messages",
        body=body,
        excerpt=json.dumps(body),
        retry_after=retry_after,
        headers=httpx.Headers(),
    )


def plain(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (429, spend_cap()),
        (429, spend_cap("contract_spend_limit_reached")),
        (
            400,
            plain(
                "invalid_request_error",
                "You have reached your specified API usage limits. You will regain access on "
                "2026-09-01 at 00:00 UTC.",
            ),
        ),
        (
            400,
            plain(
                "invalid_request_error",
                "You have reached your specified workspace API usage limits.",
            ),
        ),
    ],
)
def test_a_spend_limit_is_a_spent_quota(status: int, body: Any) -> None:
    mapped = anthropic_status_error(_info(status, body))
    assert type(mapped) is ProviderQuotaExhaustedError
    assert mapped.status == status
    assert mapped.retryable is False
    assert "spend limit" in str(mapped)


@pytest.mark.parametrize(
    "body",
    [
        plain("rate_limit_error", "Number of request tokens has exceeded your rate limit"),
        # The wording alone at 429 is Claude Code's workspace limit, sent with retry-after.
        plain("rate_limit_error", "You have reached your specified workspace API usage limits"),
        {
            "type": "error",
            "error": {"type": "rate_limit_error", "message": "x", "details": {"error_code": "y"}},
        },
    ],
)
def test_a_rate_limit_stays_a_rate_limit(body: Any) -> None:
    assert anthropic_status_error(_info(429, body, retry_after=3.0)) is None


async def _attempts(status: int, body: Any) -> tuple[Any, int]:
    raw = json.dumps(body).encode()
    served = scripted_stream_server([raw], content_type="application/json", status=status)
    async with served as server:
        model = iModel(
            model="anthropic/claude-fake",
            api_key=KEY,
            base_url=server.url,
            allow_local_network=True,
            attempt_policy=AttemptPolicy(
                max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0
            ),
        )
        async with model:
            call = await model.invoke(messages=HI)
        assert call.status is EventStatus.FAILED
        return call.exception, server.requests


async def test_the_tier_cap_is_sent_once_and_typed() -> None:
    error, requests = await _attempts(429, spend_cap())
    assert type(error) is ProviderQuotaExhaustedError
    assert not isinstance(error, ProviderRateLimitError)
    assert requests == 1  # was 3: retried as a rate limit, up to the policy


async def test_an_ordinary_429_is_still_retried() -> None:
    body = plain("rate_limit_error", "Number of request tokens has exceeded your rate limit")
    error, requests = await _attempts(429, body)
    assert type(error) is ProviderRateLimitError
    assert requests == 3

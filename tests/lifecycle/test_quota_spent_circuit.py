"""A spent quota or credit is never retried and never opens the circuit, however it arrives.

Over HTTP the spent quota (``ProviderQuotaExhaustedError``) was never retried, but the circuit
judged it by its status alone: a 402 or Anthropic's 400 left the circuit closed, OpenAI's 429
``insufficient_quota`` counted. Its stream twin and a CLI's text (a retryable
``ProviderQuotaError`` before the family existed) counted too. The account's used-up balance
is its own state, as a refused key is, not the provider's health: the same verdict for every
form, and the caller keeps seeing "buy credits" rather than ``CircuitOpenError``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import (
    AttemptPolicy,
    CircuitPolicy,
    EventStatus,
    ProviderError,
    ProviderQuotaError,
    ProviderQuotaExhaustedError,
    ProviderQuotaSpentError,
    ProviderStreamQuotaError,
    ProviderStreamQuotaExhaustedError,
    iModel,
)
from lionagi.service.lifecycle import counts_as_circuit_failure, is_retryable
from lionagi.service_testing import scripted_stream_server

POLICY = AttemptPolicy()
# OpenAI's documented answer for a spent balance (HTTP 429; the same object in a stream).
INSUFFICIENT_QUOTA = {
    "message": "You exceeded your current quota, please check your plan and billing details. "
    "For more information on this error, read the docs: "
    "https://platform.openai.com/docs/guides/error-codes/api-errors.",
    "type": "insufficient_quota",
    "param": None,
    "code": "insufficient_quota",
}


@pytest.mark.parametrize(
    "error",
    [
        ProviderQuotaSpentError("codex: quota or credit used up (exit code 1)"),
        ProviderStreamQuotaExhaustedError("Credit balance is too low", status=400),
        ProviderQuotaExhaustedError("insufficient_quota", status=429),
        ProviderQuotaExhaustedError("payment required", status=402),
        ProviderQuotaExhaustedError("billing_error", status=400),
    ],
    ids=lambda e: f"{type(e).__name__}-{getattr(e, 'status', None)}",
)
def test_every_form_of_a_spent_quota_is_neutral_and_never_retried(error: ProviderError) -> None:
    assert is_retryable(error, POLICY) is False
    assert counts_as_circuit_failure(error, POLICY) is False
    # even for a caller whose policy retries the status it came with
    wide = AttemptPolicy(retry_statuses=frozenset({400, 402, 429}))
    assert is_retryable(error, wide) is False
    assert counts_as_circuit_failure(error, wide) is False


@pytest.mark.parametrize(
    "error",
    [ProviderQuotaError("usage limit reached"), ProviderStreamQuotaError("rate limit exceeded")],
    ids=lambda e: type(e).__name__,
)
def test_a_rate_limit_is_still_retried_and_counted(error: ProviderError) -> None:
    # The control: "slow down and retry" keeps its verdict.
    assert is_retryable(error, POLICY) is True
    assert counts_as_circuit_failure(error, POLICY) is True


def _sse(event: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(event).encode() + b"\n\n"


def _model(url: str) -> iModel:
    return iModel(
        provider="somegateway",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url=url,
        api_key="sk-gateway-quota-0123456789",
        allow_local_network=True,
        attempt_policy=AttemptPolicy(max_attempts=3, base_delay=0.01, max_delay=0.01),
        circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=60),
    )


async def test_a_spent_quota_in_a_stream_is_its_twin_and_leaves_the_circuit_closed() -> None:
    errors: list[BaseException] = []
    async with scripted_stream_server([_sse({"error": INSUFFICIENT_QUOTA})]) as server:
        async with _model(server.url) as model:
            for _ in range(2):
                try:
                    async for _chunk in model.stream(
                        model="m", messages=[{"role": "user", "content": "x"}]
                    ):
                        pass
                except Exception as exc:
                    errors.append(exc)
            assert model.circuit_breaker is not None
            state = model.circuit_breaker.state.value
        requests = server.requests
    assert [type(e) for e in errors] == [ProviderStreamQuotaExhaustedError] * 2
    assert errors[0].code == "insufficient_quota"  # type: ignore[attr-defined]
    assert requests == 2  # the second caller reached the provider: no CircuitOpenError
    assert state == "closed"


@pytest.mark.parametrize(
    ("status", "raw", "content_type", "expected"),
    [
        # a 200 body carrying the error object (OpenAI's edge, gateways)
        (200, {"error": INSUFFICIENT_QUOTA}, "application/json", ProviderStreamQuotaExhaustedError),
        # the HTTP status error itself: a 429 its code says is billing
        (429, {"error": INSUFFICIENT_QUOTA}, "application/json", ProviderQuotaExhaustedError),
    ],
    ids=["200-body", "429-status"],
)
async def test_a_spent_quota_on_invoke_is_one_attempt_and_neutral(
    status: int, raw: dict[str, Any], content_type: str, expected: type[ProviderError]
) -> None:
    body = json.dumps(raw).encode()
    async with scripted_stream_server([body], content_type=content_type, status=status) as server:
        async with _model(server.url) as model:
            calls = [
                await model.invoke(model="m", messages=[{"role": "user", "content": "x"}])
                for _ in range(2)
            ]
            assert model.circuit_breaker is not None
            state = model.circuit_breaker.state.value
        requests = server.requests
    assert [c.status for c in calls] == [EventStatus.FAILED] * 2
    assert all(type(c.exception) is expected for c in calls), [c.exception for c in calls]
    assert requests == 2  # one attempt each (never retried), and no open circuit refusing one
    assert state == "closed"

"""The generic status mapping reads a spent quota or credit from a 4xx body: never retried.

An endpoint with no dialect hook of its own (a vendor's native API, a plain ``Endpoint``, an
adapter calling ``status_error`` outside ``Endpoint``) typed a 429 whose body says the account's
quota or credit is used up (OpenAI's ``insufficient_quota``, its "... check your plan and billing
details. For more information on this error, read the docs") as a ``ProviderRateLimitError``:
retried, every attempt refused the same way, and counted against the circuit. It now uses the
rule the CLI and stream classification use (``quota_exhausted``) and gives
``ProviderQuotaExhaustedError``; HTTP 402 reads as a spent balance as in the OpenAI dialect and
the stream statuses. A plain 429 (and Google's bare "exceeded your current quota" wording, which
it sends for a per-minute limit) stays a retried rate limit. Real loopback server (``serve``).
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import pytest

from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderQuotaExhaustedError,
    ProviderQuotaSpentError,
    ProviderRateLimitError,
    ProviderUnauthorizedError,
    iModel,
)
from lionagi.service._lifecycle.retry import is_retryable
from lionagi.service._transport.classify import DEFAULT_ERROR_PATTERNS
from lionagi.service._transport.http import status

pytestmark = pytest.mark.anyio

_OPENAI_TEXT = (
    "You exceeded your current quota, please check your plan and billing details. For more "
    "information on this error, read the docs: "
    "https://platform.openai.com/docs/guides/error-codes/api-errors."
)

SPENT = [
    pytest.param(
        429,
        {"error": {"message": _OPENAI_TEXT, "type": "insufficient_quota",
                   "code": "insufficient_quota"}},
        id="openai-429-code",
    ),
    pytest.param(429, {"error": {"message": _OPENAI_TEXT}}, id="openai-429-text-only"),
    pytest.param(
        429,
        {"error": {"message": "Billing hard limit has been reached",
                   "code": "billing_hard_limit_reached"}},
        id="hard-limit-429",
    ),
    pytest.param(402, {"error": {"message": "Insufficient Balance"}}, id="deepseek-402"),
    pytest.param(402, None, id="bare-402"),
    pytest.param(
        400,
        {"type": "error", "error": {"type": "invalid_request_error",
         "message": "Your credit balance is too low to access the Anthropic API."}},
        id="anthropic-shaped-400",
    ),
]  # fmt: skip

STILL_RATE_LIMITED = [
    pytest.param({"error": {"message": "Rate limit reached for requests"}}, id="rate-limit"),
    # Google's per-minute limit says this too; the spent-quota rule deliberately leaves it out.
    pytest.param(
        {"error": {"message": "You exceeded your current quota, please check your plan and "
                   "billing details"}},
        id="bare-quota-words",
    ),
    pytest.param(None, id="empty"),
]  # fmt: skip


def _raw(body: dict[str, Any] | None) -> bytes:
    return b"" if body is None else json.dumps(body).encode()


def _retrying() -> AttemptPolicy:
    return AttemptPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0)


async def _invoke(serve, make_endpoint, wire, code: int, body: bytes) -> tuple[Any, int]:
    """One ``invoke()`` through a hook-less endpoint whose server always answers ``code``."""
    server = await serve(lambda req: wire.full(code, body))
    model = iModel(endpoint=make_endpoint(server.base_url), attempt_policy=_retrying())
    async with model:
        with anyio.fail_after(20):
            call = await model.invoke(model="m", messages=[{"role": "user", "content": "x"}])
    return call, len(server.requests)


def test_the_mapping_reuses_the_classification_rule() -> None:
    rule = next(r for r in DEFAULT_ERROR_PATTERNS if r.kind == "quota_exhausted")
    assert status._QUOTA_SPENT is rule


@pytest.mark.parametrize(("code", "body"), SPENT)
async def test_a_spent_quota_body_is_one_attempt_and_never_retried(
    serve, make_endpoint, wire, secret, code, body
):
    raw = _raw(body)
    if raw:
        raw = raw[:-1] + f', "echo": "{secret}"}}'.encode()
    call, attempts = await _invoke(serve, make_endpoint, wire, code, raw)
    assert call.status is EventStatus.FAILED
    error = call.exception
    assert type(error) is ProviderQuotaExhaustedError, repr(error)
    assert isinstance(error, ProviderQuotaSpentError)
    assert not isinstance(error, ProviderRateLimitError)
    assert error.status == code
    assert error.retryable is False
    assert not is_retryable(error, _retrying())
    assert "not retried" in str(error)
    assert secret not in f"{error}{error!r}{error.body_excerpt}"
    assert attempts == 1


@pytest.mark.parametrize("body", STILL_RATE_LIMITED)
async def test_a_plain_429_is_still_a_retried_rate_limit(serve, make_endpoint, wire, body):
    call, attempts = await _invoke(serve, make_endpoint, wire, 429, _raw(body))
    assert type(call.exception) is ProviderRateLimitError, repr(call.exception)
    assert call.exception.retryable
    assert attempts == 3


@pytest.mark.parametrize("code", [401, 403])
async def test_401_and_403_keep_their_auth_meaning(serve, make_endpoint, wire, code):
    body = _raw({"error": {"message": _OPENAI_TEXT, "code": "insufficient_quota"}})
    call, attempts = await _invoke(serve, make_endpoint, wire, code, body)
    assert type(call.exception) is ProviderUnauthorizedError
    assert attempts == 1


def _response(code: int, body: bytes) -> httpx.Response:
    request = httpx.Request("POST", "https://api.example.test/v1/agents/run")
    return httpx.Response(code, content=body, request=request)


@pytest.mark.parametrize(("code", "body"), SPENT)
def test_status_error_itself_agrees(code: int, body: dict[str, Any] | None) -> None:
    """An adapter calling ``status_error`` outside ``Endpoint`` gets the same family."""
    raw = _raw(body)
    error = status.status_error(_response(code, raw), raw)
    assert type(error) is ProviderQuotaExhaustedError
    assert error.status == code


def test_a_spent_429_keeps_its_retry_after_for_the_record() -> None:
    raw = _raw({"error": {"code": "insufficient_quota"}})
    response = _response(429, raw)
    response.headers["retry-after"] = "7"
    error = status.status_error(response, raw)
    assert type(error) is ProviderQuotaExhaustedError
    assert error.retry_after == 7.0


@pytest.mark.parametrize("body", STILL_RATE_LIMITED)
def test_status_error_keeps_a_plain_429_a_rate_limit(body: dict[str, Any] | None) -> None:
    raw = _raw(body)
    assert type(status.status_error(_response(429, raw), raw)) is ProviderRateLimitError


async def test_the_openai_dialect_path_agrees(serve, wire) -> None:
    """The dialect hook runs first and already typed this body; both paths give one family."""
    body = _raw({"error": {"message": _OPENAI_TEXT, "code": "insufficient_quota"}})
    server = await serve(lambda req: wire.full(429, body))
    model = iModel(
        provider="loopback-chat",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url=server.base_url + "/v1",
        api_key="sk-loopback",
        allow_local_network=True,
        request_defaults={"model": "m"},
        attempt_policy=_retrying(),
    )
    async with model:
        with anyio.fail_after(20):
            call = await model.invoke(messages=[{"role": "user", "content": "x"}])
    assert type(call.exception) is ProviderQuotaExhaustedError
    assert len(server.requests) == 1

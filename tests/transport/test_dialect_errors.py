"""Dialect error mapping: ``Endpoint.map_status_error`` types a non-2xx answer from its body.

The status alone cannot say that an HTTP 400 is a context overflow or that an HTTP 429 is a
billing exhaustion that waiting will not fix; the OpenAI chat dialect reads its error body, and a
vendor adds its own vocabulary through the same hook. Real loopback server (``serve``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import (
    AttemptPolicy,
    ProviderCapacityError,
    ProviderContextError,
    ProviderError,
    ProviderQuotaError,
    ProviderQuotaExhaustedError,
    ProviderRateLimitError,
    ProviderStatusCapacityError,
    ProviderStatusContextError,
    iModel,
)
from lionagi.service.http import HTTPErrorInfo, OpenAIChatEndpoint


def _openai_error(code: str, message: str) -> str:
    return json.dumps(
        {"error": {"message": message, "type": "invalid_request_error", "code": code}}
    )


def _config(base_url: str, secret: str) -> dict[str, Any]:
    return {
        "name": "chat",
        "provider": "dialecttest",
        "endpoint": "chat/completions",
        "base_url": base_url + "/v1",
        "api_key": secret,
        "allow_local_network": True,
        "timeout": 10.0,
    }


def _policy() -> AttemptPolicy:
    return AttemptPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0)


async def test_context_length_exceeded_is_a_context_error_with_a_redacted_excerpt(
    serve, wire, secret
):
    body = _openai_error("context_length_exceeded", f"maximum context length; key {secret}")
    server = await serve(lambda req: wire.full(400, body))
    model = iModel(endpoint=OpenAIChatEndpoint(_config(server.base_url, secret)))
    async with model:
        for call in ("invoke", "stream"):
            if call == "invoke":
                event = await model.invoke(messages=[{"role": "user", "content": "hi"}])
                error: Any = event.exception
            else:
                with pytest.raises(ProviderStatusContextError) as caught:
                    async for _ in model.stream(messages=[{"role": "user", "content": "hi"}]):
                        pass
                error = caught.value
            assert isinstance(error, ProviderStatusContextError)
            assert isinstance(error, ProviderContextError)
            assert error.status == 400
            assert "context_length_exceeded" in error.body_excerpt
            assert secret not in str(error) and secret not in error.body_excerpt
    assert len(server.requests) == 2  # one attempt per call: a context error is never retried


async def test_insufficient_quota_is_billing_and_not_retried(serve, wire, secret):
    body = _openai_error("insufficient_quota", "You exceeded your current quota.")
    server = await serve(lambda req: wire.full(429, body, extra={"retry-after": "0"}))
    endpoint = OpenAIChatEndpoint(_config(server.base_url, secret))
    async with iModel(endpoint=endpoint, attempt_policy=_policy()) as model:
        event = await model.invoke(messages=[{"role": "user", "content": "hi"}])
    error = event.exception
    assert isinstance(error, ProviderQuotaExhaustedError)
    assert isinstance(error, ProviderQuotaError)  # "out of allowance" handlers still catch it
    assert not isinstance(error, ProviderRateLimitError)  # but it is not "slow down and retry"
    assert error.retryable is False and error.status == 429
    assert len(server.requests) == 1  # attempt count 1 although 429 is a retried status


async def test_a_plain_rate_limit_is_still_retried(serve, wire, secret):
    body = _openai_error("rate_limit_exceeded", "Rate limit reached.")
    server = await serve(lambda req: wire.full(429, body, extra={"retry-after": "0"}))
    endpoint = OpenAIChatEndpoint(_config(server.base_url, secret))
    async with iModel(endpoint=endpoint, attempt_policy=_policy()) as model:
        event = await model.invoke(messages=[{"role": "user", "content": "hi"}])
    assert isinstance(event.exception, ProviderRateLimitError)
    assert len(server.requests) == 3


class OverloadedVendorChat(OpenAIChatEndpoint):
    """A vendor adding its own vocabulary through the hook, then deferring to the dialect."""

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        if info.status == 529 and info.error.get("type") == "overloaded_error":
            return ProviderStatusCapacityError(
                f"{info.where} is overloaded{info.suffix}",
                status=info.status,
                body_excerpt=info.excerpt,
            )
        return super().map_status_error(info)


async def test_a_vendor_hook_maps_its_own_body_and_keeps_the_dialect_mapping(serve, wire, secret):
    overloaded = json.dumps({"type": "error", "error": {"type": "overloaded_error"}})
    replies = iter(
        [
            wire.full(529, overloaded),
            wire.full(400, _openai_error("context_length_exceeded", "long")),
        ]
    )
    server = await serve(lambda req: next(replies))
    endpoint = OverloadedVendorChat(_config(server.base_url, secret))
    async with iModel(endpoint=endpoint, attempt_policy=_policy()) as model:
        event = await model.invoke(messages=[{"role": "user", "content": "hi"}])
    # Attempt 1: the vendor's capacity mapping (retried); attempt 2: the dialect's context error.
    assert isinstance(event.exception, ProviderStatusContextError)
    assert len(server.requests) == 2
    assert issubclass(ProviderStatusCapacityError, ProviderCapacityError)
    assert ProviderStatusCapacityError.retryable is True

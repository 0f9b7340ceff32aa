"""Anthropic's errors typed from status *and* body: through the endpoint and through iModel."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from lionagi.providers.anthropic import AnthropicMessagesEndpoint, anthropic_status_error
from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderCapacityError,
    ProviderClientError,
    ProviderError,
    ProviderQuotaExhaustedError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderStatusCapacityError,
    ProviderStatusContextError,
    ProviderStreamCapacityError,
    ProviderUnauthorizedError,
    StreamChunk,
    iModel,
)
from lionagi.service.http import HTTPErrorInfo
from lionagi.service_testing import FakeProviderServer

Make = Callable[..., AnthropicMessagesEndpoint]
REQUEST = {"model": "claude-fake", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize(
    ("behaviour", "error_type", "status"),
    [
        ("overloaded", ProviderStatusCapacityError, 529),
        ("context_length", ProviderStatusContextError, 400),
        ("quota", ProviderQuotaExhaustedError, 400),
        ("429", ProviderRateLimitError, 429),
        ("401", ProviderUnauthorizedError, 401),
        ("403", ProviderUnauthorizedError, 403),
        ("500", ProviderServerError, 500),
    ],
)
async def test_fake_server_errors_are_typed(
    fake: FakeProviderServer, messages_endpoint: Make, behaviour: str, error_type: type, status: int
) -> None:
    ep = messages_endpoint(fake)
    try:
        with pytest.raises(ProviderError) as info:
            await ep.call(REQUEST, extra_headers={"x-fake-behaviour": behaviour})
    finally:
        await ep.aclose()
    assert type(info.value) is error_type
    assert info.value.status == status  # type: ignore[attr-defined]
    assert "sk-ant-test" not in str(info.value)


async def test_rate_limit_keeps_retry_after(
    fake: FakeProviderServer, messages_endpoint: Make
) -> None:
    ep = messages_endpoint(fake)
    try:
        with pytest.raises(ProviderRateLimitError) as info:
            await ep.call(REQUEST, extra_headers={"x-fake-behaviour": "429"})
    finally:
        await ep.aclose()
    assert info.value.retry_after is not None
    assert info.value.retry_after > 0
    assert info.value.retryable


def test_retry_semantics_of_the_vendor_classes() -> None:
    assert ProviderStatusCapacityError.retryable
    assert not ProviderQuotaExhaustedError.retryable
    assert not issubclass(ProviderQuotaExhaustedError, ProviderRateLimitError)


def info(status: int, body: Any, **headers: str) -> HTTPErrorInfo:
    import json

    text = json.dumps(body) if body is not None else ""
    return HTTPErrorInfo(
        status=status,
        where="POST https://api.anthropic.com/v1/messages",
        body=body,
        excerpt=text,
        retry_after=None,
        headers=httpx.Headers(headers),
    )


def body(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


@pytest.mark.parametrize(
    ("status", "payload", "expected"),
    [
        (529, body("overloaded_error", "Overloaded"), ProviderStatusCapacityError),
        (503, body("overloaded_error", "Overloaded"), ProviderStatusCapacityError),
        (529, None, ProviderStatusCapacityError),
        (
            400,
            body("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
            ProviderStatusContextError,
        ),
        (
            400,
            body(
                "invalid_request_error",
                "input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000",
            ),
            ProviderStatusContextError,
        ),
        (
            400,
            body("invalid_request_error", "Your credit balance is too low to access the API."),
            ProviderQuotaExhaustedError,
        ),
        (402, body("billing_error", "payment required"), ProviderQuotaExhaustedError),
        (400, body("invalid_request_error", "messages: field required"), None),
        (500, body("api_error", "Internal server error"), None),
        (429, body("rate_limit_error", "slow down"), None),
    ],
)
def test_status_and_body_mapping(status: int, payload: Any, expected: type | None) -> None:
    got = anthropic_status_error(info(status, payload))
    if expected is None:
        assert got is None  # core's status mapping decides
    else:
        assert type(got) is expected
        assert got.status == status  # type: ignore[attr-defined]


def test_unmapped_bodies_fall_back_to_the_status_mapping() -> None:
    ep = AnthropicMessagesEndpoint(
        {"name": "m", "provider": "anthropic", "endpoint": "messages", "api_key": "k"}
    )
    assert ep.map_status_error(info(400, body("invalid_request_error", "bad"))) is None
    assert type(ep.map_status_error(info(529, None))) is ProviderStatusCapacityError


async def test_a_plain_bad_request_stays_a_client_error(
    fake: FakeProviderServer, messages_endpoint: Make
) -> None:
    ep = messages_endpoint(fake)
    try:
        with pytest.raises(ProviderClientError) as raised:
            await ep.call(REQUEST, extra_headers={"x-fake-behaviour": "400"})
    finally:
        await ep.aclose()
    assert type(raised.value) is ProviderClientError
    assert raised.value.status == 400


# -- through iModel: retries and the class both stream() and invoke() see ----------------------


def model_for(server: FakeProviderServer, scenario: str, attempts: int = 3) -> iModel:
    # The scenario rides in the path (``/scenario/<name>/``): iModel sends no per-call headers.
    return iModel(
        model="anthropic/claude-fake",
        base_url=f"{server.base_url}/scenario/{scenario}/v1",
        api_key="sk-ant-test-FAKEkey0123456789abcdef",
        allow_local_network=True,
        attempt_policy=AttemptPolicy(
            max_attempts=attempts, base_delay=0.001, max_delay=0.01, jitter_factor=0
        ),
    )


MESSAGES = REQUEST["messages"]


async def test_overloaded_is_retried_and_quota_is_not(fake: FakeProviderServer) -> None:
    async with model_for(fake, "overloaded") as model:
        overloaded = await model.invoke(messages=MESSAGES)
    assert overloaded.status is EventStatus.FAILED
    assert isinstance(overloaded.exception, ProviderStatusCapacityError)
    assert len(fake.requests) == 3  # capacity: retried up to the policy
    async with model_for(fake, "quota") as model:
        quota = await model.invoke(messages=MESSAGES)
    assert isinstance(quota.exception, ProviderQuotaExhaustedError)
    assert len(fake.requests) == 4  # billing: never retried


async def test_in_stream_overload_keeps_its_class_and_is_not_replayed(
    fake: FakeProviderServer,
) -> None:
    got: list[StreamChunk] = []

    async def consume(model: iModel) -> None:
        async for chunk in model.stream(messages=MESSAGES):
            got.append(chunk)

    async with model_for(fake, "stream_error") as model:
        with pytest.raises(ProviderCapacityError) as raised:
            await consume(model)
    err = raised.value
    assert type(err) is ProviderStreamCapacityError
    assert (err.code, err.provider, err.kind) == ("overloaded_error", "anthropic", "capacity")
    assert [c.type for c in got].count("error") == 1
    assert len(fake.requests) == 1  # output was seen: never replayed

"""A content-filter HTTP 4xx is a ``ProviderStatusContentFilterError`` in the OpenAI dialect.

The commonest form of a content-filter refusal is an HTTP 400 (OpenAI ``content_policy_violation``,
Azure OpenAI ``content_filter`` with inner code ``ResponsibleAIPolicyViolation``; gateways relay
OpenAI's code with a 403). It was a plain ``ProviderClientError``, so ``except
ProviderContentFilterError`` caught the stream, 2xx and CLI forms of the refusal but not this one.
The dialect reads the error object's code, as it does for ``context_length_exceeded``; status,
excerpt, "never retried" and circuit neutrality are kept, and a 429 or 5xx keeps its status type.
Real loopback server (``serve``), as in ``test_dialect_errors.py``.

The new class is imported inside the tests, so the behaviour tests still run (and fail on their
assertions) against a core that lacks it.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import lionagi.service as service
from lionagi.service import (
    AttemptPolicy,
    CircuitPolicy,
    EventStatus,
    ProviderClientError,
    ProviderContentFilterError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderUnauthorizedError,
    iModel,
)
from lionagi.service.http import HTTPErrorInfo, OpenAIChatEndpoint, openai_status_error

# Azure OpenAI's filtered-prompt error object (openai/openai-python#331, openai-dotnet#55).
AZURE_ERROR: dict[str, Any] = {
    "message": "The response was filtered due to the prompt triggering Azure OpenAI's content "
    "management policy. Please modify your prompt and retry.",
    "type": None,
    "param": "prompt",
    "code": "content_filter",
    "status": 400,
    "innererror": {
        "code": "ResponsibleAIPolicyViolation",
        "content_filter_result": {"hate": {"filtered": True, "severity": "high"}},
    },
}
# OpenAI's refusal (images, moderation; songquanpeng/one-api#737), with a message no text rule
# reads, so the code alone decides.
OPENAI_ERROR: dict[str, Any] = {
    "message": "request refused",
    "type": "invalid_request_error",
    "param": None,
    "code": "content_policy_violation",
}

# (HTTP status, error object) the dialect must read as a content-filter refusal.
REFUSALS = [
    pytest.param(400, OPENAI_ERROR, id="openai-400"),
    pytest.param(400, AZURE_ERROR, id="azure-400"),
    # A gateway relaying OpenAI's code with a 403: the code says the content, not the key.
    pytest.param(403, OPENAI_ERROR, id="gateway-403"),
    pytest.param(400, {"message": "refused", "type": "content_policy_violation"}, id="type"),
    pytest.param(400, {"message": "refused", "code": "content_filter"}, id="azure-code-alone"),
    pytest.param(
        403,
        {
            "message": "refused",
            "code": None,
            "innererror": {"code": "ResponsibleAIPolicyViolation"},
        },
        id="azure-inner-code-alone",
    ),
]


def _body(error: dict[str, Any]) -> str:
    return json.dumps({"error": error})


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


def _info(status: int, error: dict[str, Any]) -> HTTPErrorInfo:
    text = _body(error)
    return HTTPErrorInfo(
        status=status,
        where="POST https://api.example/v1/chat/completions",
        body=json.loads(text),
        excerpt=text,
        retry_after=None,
        headers=httpx.Headers(),
    )


@pytest.mark.parametrize(("status", "error"), REFUSALS)
def test_the_dialect_reads_each_refusal_code(status: int, error: dict[str, Any]) -> None:
    from lionagi.service import ProviderStatusContentFilterError

    mapped = openai_status_error(_info(status, error))
    assert type(mapped) is ProviderStatusContentFilterError
    assert mapped.status == status
    assert mapped.body_excerpt == _body(error)
    assert "content filter" in str(mapped)


@pytest.mark.parametrize(("status", "error"), REFUSALS)
async def test_a_refusal_4xx_is_a_content_filter_error_on_invoke_and_stream(
    serve, wire, secret, status: int, error: dict[str, Any]
) -> None:
    from lionagi.service import ProviderStatusContentFilterError

    leaky = {**error, "message": f"{error['message']} (key {secret})"}
    server = await serve(lambda req: wire.full(status, _body(leaky)))
    model = iModel(
        endpoint=OpenAIChatEndpoint(_config(server.base_url, secret)), attempt_policy=_policy()
    )
    async with model:
        for call in ("invoke", "stream"):
            if call == "invoke":
                event = await model.invoke(messages=[{"role": "user", "content": "hi"}])
                assert event.status == EventStatus.FAILED
                caught: Any = event.exception
            else:
                with pytest.raises(ProviderContentFilterError) as raised:
                    async for _ in model.stream(messages=[{"role": "user", "content": "hi"}]):
                        pass
                caught = raised.value
            assert type(caught) is ProviderStatusContentFilterError
            assert isinstance(caught, ProviderContentFilterError)
            assert isinstance(caught, ProviderClientError)  # still a refused request
            assert not isinstance(caught, ProviderUnauthorizedError)  # a 403 included
            assert caught.status == status
            assert caught.retryable is False
            assert error["message"] in caught.body_excerpt and "[REDACTED]" in caught.body_excerpt
            assert secret not in str(caught) and secret not in caught.body_excerpt
    assert len(server.requests) == 2  # one attempt per call: never retried


async def test_blocked_prompts_over_http_leave_the_circuit_closed(serve, wire, secret) -> None:
    server = await serve(lambda req: wire.full(400, _body(AZURE_ERROR)))
    endpoint = OpenAIChatEndpoint(_config(server.base_url, secret))
    circuit = CircuitPolicy(failure_threshold=1, recovery_time=60)
    async with iModel(endpoint=endpoint, attempt_policy=_policy(), circuit_policy=circuit) as m:
        events = [await m.invoke(messages=[{"role": "user", "content": "hi"}]) for _ in range(2)]
        assert m.circuit_breaker is not None
        state = m.circuit_breaker.state.value
    assert all(isinstance(e.exception, service.ProviderContentFilterError) for e in events)
    assert len(server.requests) == 2  # the second caller was not refused by an open circuit
    assert state == "closed"


@pytest.mark.parametrize(
    ("status", "error"),
    [
        # The words inside other codes are no refusal (whole values only).
        (400, {"message": "refused", "code": "content_filter_error"}),
        (400, {"message": "refused", "code": "invalid_request", "type": "content_filter_results"}),
        (400, {"message": "refused", "innererror": {"code": "SomethingElse"}}),
        (400, {"message": "refused", "innererror": "ResponsibleAIPolicyViolation"}),
    ],
)
def test_other_codes_are_left_to_the_status_mapping(status: int, error: dict[str, Any]) -> None:
    assert openai_status_error(_info(status, error)) is None


async def test_a_429_with_a_refusal_code_is_still_a_retried_rate_limit(serve, wire, secret) -> None:
    server = await serve(
        lambda req: wire.full(429, _body(OPENAI_ERROR), extra={"retry-after": "0"})
    )
    endpoint = OpenAIChatEndpoint(_config(server.base_url, secret))
    async with iModel(endpoint=endpoint, attempt_policy=_policy()) as model:
        event = await model.invoke(messages=[{"role": "user", "content": "hi"}])
    assert type(event.exception) is ProviderRateLimitError
    assert not isinstance(event.exception, ProviderContentFilterError)
    assert len(server.requests) == 3  # the status decides: retried


async def test_a_5xx_with_a_refusal_code_is_still_a_server_error(serve, wire, secret) -> None:
    server = await serve(lambda req: wire.full(500, _body(AZURE_ERROR)))
    endpoint = OpenAIChatEndpoint(_config(server.base_url, secret))
    circuit = CircuitPolicy(failure_threshold=1, recovery_time=60)
    async with iModel(endpoint=endpoint, attempt_policy=_policy(), circuit_policy=circuit) as m:
        first = await m.invoke(messages=[{"role": "user", "content": "hi"}])
        second = await m.invoke(messages=[{"role": "user", "content": "hi"}])
    assert type(first.exception) is ProviderServerError
    assert not isinstance(first.exception, ProviderContentFilterError)
    assert len(server.requests) == 3  # retried, then counted: the circuit opened
    assert type(second.exception).__name__ == "CircuitOpenError"

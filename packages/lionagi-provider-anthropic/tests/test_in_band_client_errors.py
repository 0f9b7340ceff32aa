"""An in-band ``not_found_error``, ``invalid_request_error`` or ``request_too_large`` is typed.

Anthropic documents these error types as its HTTP 404, 400 and 413 (docs.claude.com/en/api/errors);
sent as a status, the adapter's body rules then core's status mapping type them (an unknown model,
a spend limit, or a plain client error: never retried, neutral for the circuit). The same error
object can also come after a 200: as a stream's ``event: error``, or as a gateway's 200 one-shot
body. It was a plain ``ProviderStreamError`` there, which the circuit counts as the provider's
failure, so a caller's wrong model name or malformed request opened the circuit for everyone. The
endpoint now reads such an error through the status path's rules: the family they name (its stream
twin), else the invalid-request family that a plain 4xx is. Real loopback server.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import (
    CircuitPolicy,
    EventStatus,
    ProviderContextError,
    ProviderInvalidRequestError,
    ProviderQuotaSpentError,
    ProviderStreamContextError,
    ProviderStreamInvalidRequestError,
    ProviderStreamQuotaExhaustedError,
    ProviderStreamUnsupportedModelError,
    ProviderUnsupportedModelError,
    iModel,
)
from lionagi.service_testing import scripted_stream_server

KEY = "sk-ant-test-FAKEkey0123456789abcdef"
HI = [{"role": "user", "content": "hi"}]
START = {
    "type": "message_start",
    "message": {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 3, "output_tokens": 0},
    },
}

CASES = [
    pytest.param(
        "not_found_error",
        "model: claude-bogus",
        ProviderStreamUnsupportedModelError,
        ProviderUnsupportedModelError,
        id="unknown_model",
    ),
    pytest.param(
        "invalid_request_error",
        "messages.1.content.0.tool_use.input: Field required",
        ProviderStreamInvalidRequestError,
        ProviderInvalidRequestError,
        id="invalid_request",
    ),
    pytest.param(
        "request_too_large",
        "Request exceeds the maximum allowed number of bytes.",
        ProviderStreamInvalidRequestError,
        ProviderInvalidRequestError,
        id="request_too_large",
    ),
    pytest.param(
        "not_found_error",
        "file: file_011",
        ProviderStreamInvalidRequestError,
        ProviderInvalidRequestError,
        id="not_found_no_model",
    ),
    pytest.param(
        "invalid_request_error",
        "You have reached your specified API usage limits. You will regain access on 2026-01-01.",
        ProviderStreamQuotaExhaustedError,
        ProviderQuotaSpentError,
        id="spend_limit",
    ),
]


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def _model(url: str) -> iModel:
    return iModel(
        model="anthropic/claude-x",
        api_key=KEY,
        base_url=url,
        allow_local_network=True,
        circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=60),
    )


@pytest.mark.parametrize(("kind", "message", "twin", "family"), CASES)
async def test_a_stream_error_event_is_typed_as_its_status_would_be(
    kind: str, message: str, twin: type, family: type
) -> None:
    writes = [_event("message_start", START), _event("error", _error(kind, message))]
    async with scripted_stream_server(writes) as server, _model(server.url) as model:
        with pytest.raises(family) as raised:
            async for _chunk in model.stream(messages=HI):
                pass
        assert model.circuit_breaker is not None
        state = model.circuit_breaker.state.value
    error = raised.value
    assert type(error) is twin
    assert error.code == kind
    assert error.provider == "anthropic"
    assert error.retryable is False
    assert message in str(error)
    assert server.requests == 1
    assert state == "closed"  # the caller's request, not the provider's health


@pytest.mark.parametrize(("kind", "message", "twin", "family"), CASES)
async def test_a_200_error_body_is_typed_alike_and_leaves_the_circuit_closed(
    kind: str, message: str, twin: type, family: type
) -> None:
    raw = json.dumps(_error(kind, message)).encode()
    served = scripted_stream_server([raw], content_type="application/json")
    async with served as server, _model(server.url) as model:
        errors = []
        for _ in range(2):
            call = await model.invoke(messages=HI)
            assert call.status is EventStatus.FAILED
            errors.append(call.exception)
        assert model.circuit_breaker is not None
        state = model.circuit_breaker.state.value
    assert [type(e) for e in errors] == [twin, twin]
    assert isinstance(errors[0], family)
    assert server.requests == 2  # neither retried nor refused by an open circuit
    assert state == "closed"


async def test_core_families_still_win_over_the_status_reading() -> None:
    """An over-long prompt is the context family however it comes (core's rule, first)."""
    body = _error("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")
    writes = [_event("message_start", START), _event("error", body)]
    async with scripted_stream_server(writes) as server, _model(server.url) as model:
        with pytest.raises(ProviderContextError) as raised:
            async for _chunk in model.stream(messages=HI):
                pass
    assert type(raised.value) is ProviderStreamContextError

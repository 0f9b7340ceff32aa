"""A model Anthropic does not serve is ``ProviderStatusUnsupportedModelError``, sent once.

The Messages API answers a wrong model name with HTTP 404 and ``{"type": "error", "error":
{"type": "not_found_error", "message": "model: <name>"}}``. It was a plain
``ProviderClientError``; the hook now reads the type and the ``model:`` message, so ``except
ProviderUnsupportedModelError`` catches it as it does the stream and CLI forms. A 404 that names
no model (a wrong path) stays a plain client error. Real loopback server.

The new class is imported inside the tests, so they still run (and fail on their assertions)
against a core that lacks it.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from lionagi.providers.anthropic import anthropic_status_error
from lionagi.service import (
    CircuitPolicy,
    EventStatus,
    ProviderClientError,
    ProviderUnsupportedModelError,
    iModel,
)
from lionagi.service.http import HTTPErrorInfo
from lionagi.service_testing import scripted_stream_server

KEY = "sk-ant-test-FAKEkey0123456789abcdef"
HI = [{"role": "user", "content": "hi"}]
UNKNOWN_MODEL = {"type": "error", "error": {"type": "not_found_error", "message": "model: bogus"}}


def _info(status: int, body: Any) -> HTTPErrorInfo:
    return HTTPErrorInfo(
        status=status,
        where="POST https://api.anthropic.com/v1/messages",
        body=body,
        excerpt=json.dumps(body),
        retry_after=None,
        headers=httpx.Headers(),
    )


async def _calls(status: int, body: Any, times: int = 1) -> tuple[list[Any], int, str]:
    """``times`` invokes, then one stream, against a server answering ``status`` and ``body``."""
    raw = json.dumps(body).encode()
    served = scripted_stream_server([raw], content_type="application/json", status=status)
    async with served as server:
        model = iModel(
            model="anthropic/bogus",
            api_key=KEY,
            base_url=server.url,
            allow_local_network=True,
            circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=60),
        )
        async with model:
            errors: list[Any] = []
            for _ in range(times):
                call = await model.invoke(messages=HI)
                assert call.status is EventStatus.FAILED
                errors.append(call.exception)
            with pytest.raises(ProviderClientError) as streamed:
                async for _chunk in model.stream(messages=HI):
                    pass
            errors.append(streamed.value)
            assert model.circuit_breaker is not None
            state = model.circuit_breaker.state.value
        return errors, server.requests, state


@pytest.mark.parametrize("message", ["model: bogus", "model 'bogus' not found"])
def test_the_hook_reads_the_model_not_found_body(message: str) -> None:
    """Both wordings: ``model: <name>``, and the newer ``model '<name>' not found``."""
    from lionagi.service import ProviderStatusUnsupportedModelError

    body = {"type": "error", "error": {"type": "not_found_error", "message": message}}
    mapped = anthropic_status_error(_info(404, body))
    assert type(mapped) is ProviderStatusUnsupportedModelError
    assert mapped.status == 404
    assert "does not serve the requested model" in str(mapped)
    assert message in str(mapped)


async def test_an_unknown_model_is_typed_not_retried_and_circuit_neutral() -> None:
    from lionagi.service import ProviderStatusUnsupportedModelError

    leaky = {"type": "error", "error": {"type": "not_found_error", "message": f"model: {KEY}"}}
    errors, requests, state = await _calls(404, leaky, times=2)
    for error in errors:
        assert type(error) is ProviderStatusUnsupportedModelError
        assert isinstance(error, ProviderUnsupportedModelError)
        assert isinstance(error, ProviderClientError)
        assert error.status == 404
        assert error.retryable is False
        assert KEY not in str(error)
        assert KEY not in error.body_excerpt
    assert requests == 3  # one per call: never retried, never refused by an open circuit
    assert state == "closed"


@pytest.mark.parametrize(
    "body",
    [
        {"type": "error", "error": {"type": "not_found_error", "message": "Not found."}},
        {"type": "error", "error": {"type": "not_found_error", "message": "file: f-1"}},
        {"type": "error", "error": {"type": "invalid_request_error", "message": "model: x"}},
    ],
)
async def test_a_404_naming_no_model_stays_a_plain_client_error(body: Any) -> None:
    assert anthropic_status_error(_info(404, body)) is None
    errors, requests, _ = await _calls(404, body)
    assert [type(e) for e in errors] == [ProviderClientError] * 2
    assert requests == 2


def test_the_model_message_at_another_status_is_not_an_unknown_model() -> None:
    assert anthropic_status_error(_info(400, UNKNOWN_MODEL)) is None

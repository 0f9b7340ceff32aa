"""A model the provider does not serve is a ``ProviderStatusUnsupportedModelError`` over HTTP.

OpenAI (and every OpenAI-compatible service relaying it) answers a wrong model name with an
HTTP 404 whose error object has ``code: "model_not_found"``. It was a plain
``ProviderClientError``, so ``except ProviderUnsupportedModelError`` (the documented "the
provider does not serve the requested model") caught the stream and CLI forms but never the
commonest one. The dialect reads the code, as it does for a context overflow or a content-filter
refusal; status, excerpt, "never retried" and circuit neutrality are kept, a 404 without the
code (a wrong path) stays a plain client error, and a 429 or 5xx keeps its status type.
Real loopback server (``serve``), as in ``test_status_content_filter_dialect.py``.

The new class is imported inside the tests, so the behaviour tests still run (and fail on their
assertions) against a core that lacks it.
"""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import httpx
import pytest

import lionagi.service as service
from lionagi.service import (
    AttemptPolicy,
    CircuitPolicy,
    EventStatus,
    ProviderClientError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderUnsupportedModelError,
    iModel,
)
from lionagi.service.http import HTTPErrorInfo, OpenAIChatEndpoint, openai_status_error

# OpenAI's reply to a model name it does not serve (HTTP 404).
MODEL_NOT_FOUND: dict[str, Any] = {
    "message": "The model `bogus` does not exist or you do not have access to it.",
    "type": "invalid_request_error",
    "param": None,
    "code": "model_not_found",
}


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


def _policy(**overrides: Any) -> AttemptPolicy:
    settings: dict[str, Any] = {
        "max_attempts": 3,
        "base_delay": 0.001,
        "max_delay": 0.01,
        "jitter_factor": 0,
    }
    return AttemptPolicy(**{**settings, **overrides})


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


@pytest.mark.parametrize("status", [404, 400, 403])
def test_the_dialect_reads_model_not_found(status: int) -> None:
    from lionagi.service import ProviderStatusUnsupportedModelError

    mapped = openai_status_error(_info(status, MODEL_NOT_FOUND))
    assert type(mapped) is ProviderStatusUnsupportedModelError
    assert mapped.status == status
    assert mapped.body_excerpt == _body(MODEL_NOT_FOUND)
    assert "does not serve the requested model" in str(mapped)
    assert "not retried" in str(mapped)


async def test_an_unknown_model_404_is_typed_on_invoke_and_stream(serve, wire, secret) -> None:
    from lionagi.service import ProviderStatusUnsupportedModelError

    leaky = {**MODEL_NOT_FOUND, "message": f"{MODEL_NOT_FOUND['message']} (key {secret})"}
    server = await serve(lambda req: wire.full(404, _body(leaky)))
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
                with pytest.raises(ProviderUnsupportedModelError) as raised:
                    async for _ in model.stream(messages=[{"role": "user", "content": "hi"}]):
                        pass
                caught = raised.value
            assert type(caught) is ProviderStatusUnsupportedModelError
            assert isinstance(caught, ProviderUnsupportedModelError)
            assert isinstance(caught, ProviderClientError)  # still a refused request
            assert caught.status == 404
            assert caught.retryable is False
            assert "does not serve the requested model" in str(caught)
            assert "[REDACTED]" in caught.body_excerpt
            assert secret not in str(caught) and secret not in caught.body_excerpt
            assert secret not in caught.raw
    assert len(server.requests) == 2  # one attempt per call: never retried


async def test_both_families_catch_it(serve, wire, secret) -> None:
    server = await serve(lambda req: wire.full(404, _body(MODEL_NOT_FOUND)))
    endpoint = OpenAIChatEndpoint(_config(server.base_url, secret))
    async with iModel(endpoint=endpoint, attempt_policy=_policy()) as model:
        for family in (ProviderUnsupportedModelError, ProviderClientError):
            with pytest.raises(family) as raised:
                async for _ in model.stream(messages=[{"role": "user", "content": "hi"}]):
                    pass
            assert raised.value.status == 404  # type: ignore[attr-defined]
    assert len(server.requests) == 2


async def test_unknown_models_leave_the_circuit_closed(serve, wire, secret) -> None:
    server = await serve(lambda req: wire.full(404, _body(MODEL_NOT_FOUND)))
    endpoint = OpenAIChatEndpoint(_config(server.base_url, secret))
    circuit = CircuitPolicy(failure_threshold=1, recovery_time=60)
    async with iModel(endpoint=endpoint, attempt_policy=_policy(), circuit_policy=circuit) as m:
        events = [await m.invoke(messages=[{"role": "user", "content": "hi"}]) for _ in range(2)]
        assert m.circuit_breaker is not None
        state = m.circuit_breaker.state.value
    assert all(isinstance(e.exception, ProviderUnsupportedModelError) for e in events)
    assert len(server.requests) == 2  # the second caller was not refused by an open circuit
    assert state == "closed"


async def test_not_retried_even_when_the_caller_retries_404(serve, wire, secret) -> None:
    # A caller may retry 404 for reasons of their own (a gateway that briefly loses routes); a
    # model the provider does not serve is refused the same way however often it is asked for.
    from lionagi.service import ProviderStatusUnsupportedModelError

    server = await serve(lambda req: wire.full(404, _body(MODEL_NOT_FOUND)))
    endpoint = OpenAIChatEndpoint(_config(server.base_url, secret))
    policy = _policy(retry_statuses=frozenset({404, 429}))
    circuit = CircuitPolicy(failure_threshold=1, recovery_time=60)
    async with iModel(endpoint=endpoint, attempt_policy=policy, circuit_policy=circuit) as m:
        events = [await m.invoke(messages=[{"role": "user", "content": "hi"}]) for _ in range(2)]
        assert m.circuit_breaker is not None
        state = m.circuit_breaker.state.value
    assert [type(e.exception) for e in events] == [ProviderStatusUnsupportedModelError] * 2
    assert len(server.requests) == 2
    assert state == "closed"


async def test_a_404_without_the_code_stays_a_plain_client_error(serve, wire, secret) -> None:
    # A wrong path: the body names no model, so nothing says the model is the problem.
    body = {"message": "Not found.", "type": "invalid_request_error", "code": "not_found"}
    server = await serve(lambda req: wire.full(404, _body(body)))
    endpoint = OpenAIChatEndpoint(_config(server.base_url, secret))
    async with iModel(endpoint=endpoint, attempt_policy=_policy()) as model:
        event = await model.invoke(messages=[{"role": "user", "content": "hi"}])
    assert type(event.exception) is ProviderClientError
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "error",
    [
        {"message": "Not found.", "code": "not_found"},
        {"message": "x", "code": "model_not_found_error"},  # whole values only
        {"message": "The model `bogus` does not exist", "code": None},
    ],
)
def test_other_codes_are_left_to_the_status_mapping(error: dict[str, Any]) -> None:
    assert openai_status_error(_info(404, error)) is None


async def test_a_429_with_the_code_is_still_a_retried_rate_limit(serve, wire, secret) -> None:
    server = await serve(
        lambda req: wire.full(429, _body(MODEL_NOT_FOUND), extra={"retry-after": "0"})
    )
    endpoint = OpenAIChatEndpoint(_config(server.base_url, secret))
    async with iModel(endpoint=endpoint, attempt_policy=_policy()) as model:
        event = await model.invoke(messages=[{"role": "user", "content": "hi"}])
    assert type(event.exception) is ProviderRateLimitError
    assert not isinstance(event.exception, ProviderUnsupportedModelError)
    assert len(server.requests) == 3  # the status decides: retried


async def test_a_5xx_with_the_code_is_still_a_server_error(serve, wire, secret) -> None:
    server = await serve(lambda req: wire.full(502, _body(MODEL_NOT_FOUND)))
    endpoint = OpenAIChatEndpoint(_config(server.base_url, secret))
    async with iModel(endpoint=endpoint, attempt_policy=_policy()) as model:
        event = await model.invoke(messages=[{"role": "user", "content": "hi"}])
    assert type(event.exception) is ProviderServerError
    assert not isinstance(event.exception, ProviderUnsupportedModelError)
    assert len(server.requests) == 3


def test_the_unsupported_model_status_error_pickles_with_its_fields() -> None:
    cls = service.ProviderStatusUnsupportedModelError
    error = cls("POST https://x/v1 refused", status=404, body_excerpt="b")
    error.returncode = 7
    for back in (pickle.loads(pickle.dumps(error)), copy.deepcopy(error)):
        assert type(back) is cls
        assert (str(back), back.status, back.body_excerpt, back.raw, back.returncode) == (
            "POST https://x/v1 refused",
            404,
            "b",
            "b",
            7,
        )
        assert isinstance(back, ProviderUnsupportedModelError)
        assert isinstance(back, ProviderClientError)
        assert back.retryable is False

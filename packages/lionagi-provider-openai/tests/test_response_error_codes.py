"""The last two ``ResponseError.code`` values OpenAI documents are typed into their families.

The Responses API reference lists the codes a failed response carries (``error.code``):
``server_error``, ``rate_limit_exceeded``, ``invalid_prompt``, ``data_residency_mismatch``, the
policy codes, ``vector_store_timeout`` and the image codes. All but two had a family; these two
reached core as the bare ``ProviderStreamError`` (never retried, counted by the circuit):

- ``vector_store_timeout``: the ``file_search`` tool's query against a vector store ran out of
  time on OpenAI's side. Nothing in the request is wrong, so it is the retryable server fault
  ``server_error`` is;
- ``data_residency_mismatch``: the request does not fit the project's data-residency region
  (a model or endpoint the region does not serve, or the wrong regional host). The same request
  fails the same way, and it says nothing of the service's health: the invalid-request family,
  never retried and neutral to the circuit.

A third sibling was half-typed: ``invalid_prompt`` was read only when its message carries one of
the two policy sentences (a safety refusal); any other ``invalid_prompt`` (a prompt the API
cannot use, its HTTP form a 400) was the bare stream error too. It is the invalid-request family;
the policy wording still wins (test_policy_refusals.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai_loopback import event, openai_model, served

from lionagi.service import (
    AttemptPolicy,
    CircuitPolicy,
    EventStatus,
    ProviderInvalidRequestError,
    ProviderServerFaultError,
    ProviderStreamError,
    ProviderStreamInvalidRequestError,
    ProviderStreamServerError,
)
from lionagi.service_testing import scripted_replies_server

KEY = "sk-response-error-codes-0123456789"
ONCE = AttemptPolicy(max_attempts=1)
FAST = AttemptPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0)
RESPONSE = {"id": "resp_1", "object": "response", "model": "gpt-5", "status": "in_progress"}
COMPLETED = {
    **RESPONSE,
    "status": "completed",
    "error": None,
    "output": [
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "found it", "annotations": []}],
        }
    ],
    "usage": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
}
MESSAGES = {
    "vector_store_timeout": "The vector store search did not finish in time.",
    "data_residency_mismatch": "This request does not match your project's data residency.",
    "invalid_prompt": "Invalid prompt: the referenced prompt template has no version 7.",
}


def _failed(code: str, message: str | None = None) -> dict[str, Any]:
    error = {"code": code, "message": message or MESSAGES[code]}
    return {**RESPONSE, "status": "failed", "error": error, "output": []}


async def _stream_error(code: str, message: str | None = None) -> BaseException:
    writes = [
        event("response.created", 0, response=RESPONSE),
        event("response.failed", 1, response=_failed(code, message)),
    ]
    async with served(writes, api_key=KEY, endpoint="responses", attempt_policy=ONCE) as (_, m):
        with pytest.raises(ProviderStreamError) as raised:
            async for _ in m.stream(input="hi", tools=[{"type": "file_search"}]):
                pass
    return raised.value


async def test_a_vector_store_timeout_is_the_retryable_server_fault() -> None:
    error = await _stream_error("vector_store_timeout")
    assert type(error) is ProviderStreamServerError
    assert isinstance(error, ProviderServerFaultError)
    assert (error.code, error.kind, error.provider) == ("vector_store_timeout", "server", "openai")
    assert error.retryable


async def test_invoke_retries_a_vector_store_timeout_and_then_answers() -> None:
    bodies = [_failed("vector_store_timeout"), COMPLETED]
    server_cm = scripted_replies_server(
        [[json.dumps(body).encode()] for body in bodies], content_type="application/json"
    )
    async with (
        server_cm as server,
        openai_model(server.url, api_key=KEY, endpoint="responses", attempt_policy=FAST) as model,
    ):
        call = await model.invoke(input="hi")
    assert call.status is EventStatus.COMPLETED, call.exception
    assert server.requests == 2


@pytest.mark.parametrize("code", ["data_residency_mismatch", "invalid_prompt"])
async def test_the_callers_setup_or_prompt_is_an_invalid_request(code: str) -> None:
    error = await _stream_error(code)
    assert type(error) is ProviderStreamInvalidRequestError
    assert isinstance(error, ProviderInvalidRequestError)
    assert (error.code, error.kind) == (code, "invalid_request")
    assert not error.retryable


async def test_a_data_residency_mismatch_is_not_retried_and_leaves_the_circuit_closed() -> None:
    circuit = CircuitPolicy(failure_threshold=1, recovery_time=60)
    writes = [json.dumps(_failed("data_residency_mismatch")).encode()]
    async with served(
        writes,
        api_key=KEY,
        endpoint="responses",
        content_type="application/json",
        circuit_policy=circuit,
        attempt_policy=FAST,
    ) as (server, model):
        calls = [await model.invoke(input="hi") for _ in range(2)]
        assert model.circuit_breaker is not None
        state = model.circuit_breaker.state.value
    assert [type(c.exception) for c in calls] == [ProviderStreamInvalidRequestError] * 2
    assert server.requests == 2  # one each: not retried, and the circuit let the second through
    assert state == "closed"

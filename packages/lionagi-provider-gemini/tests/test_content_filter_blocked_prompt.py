"""A prompt Gemini blocks is a content-filter refusal: typed, not retried, neutral for the circuit.

``generateContent`` answers a prompt its filters refuse with HTTP 200, ``promptFeedback
.blockReason`` and no candidate. It was a plain ``ProviderStreamError``, which the circuit
breaker counts, so a burst of users sending blocked prompts opened the circuit for every other
caller. A candidate that *finished* with ``SAFETY`` is an answer, not this error.

The new classes are looked up inside the tests, so the behaviour tests still run (and fail on
their assertions) against a core that lacks them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from gemini_loopback import API_KEY, native_model

import lionagi.service as service
from lionagi.service import (
    AttemptPolicy,
    CircuitPolicy,
    EventStatus,
    ProviderStreamError,
    ProviderStreamServerError,
    iModel,
)
from lionagi.service_testing import ScriptedStream, scripted_stream_server

CONTENTS = [{"role": "user", "parts": [{"text": "hello"}]}]
USAGE = {"promptTokenCount": 9, "totalTokenCount": 9}
# Every block reason the API documents (google-genai's BlockedReason) blocks the prompt.
REASONS = ["SAFETY", "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT", "IMAGE_SAFETY"]


def blocked(reason: str) -> dict[str, Any]:
    return {
        "promptFeedback": {
            "blockReason": reason,
            "safetyRatings": [
                {"category": "HARM_CATEGORY_HARASSMENT", "probability": "HIGH", "blocked": True}
            ],
        },
        "usageMetadata": USAGE,
        "modelVersion": "gemini-2.5-flash",
    }


def _model(server: ScriptedStream) -> iModel:
    """The native model, its circuit opening on the first failure it counts."""
    return native_model(server, circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=60))


async def invoke_twice(body: Any) -> tuple[list[Any], int, str]:
    """Two ``invoke`` calls through one model whose circuit opens on the first counted failure."""
    async with scripted_stream_server(
        [json.dumps(body).encode()], path="/v1beta", content_type="application/json"
    ) as server:
        async with _model(server) as model:
            calls = [await model.invoke(contents=CONTENTS) for _ in range(2)]
            assert model.circuit_breaker is not None
            state = model.circuit_breaker.state.value
        return calls, server.requests, state


async def stream_error(event: Any) -> BaseException:
    """What ``iModel.stream`` raises when its one SSE event is ``event``."""
    raw = b"data: " + json.dumps(event).encode() + b"\r\n\r\n"
    async with (
        scripted_stream_server([raw], path="/v1beta") as server,
        _model(server) as model,
    ):
        with pytest.raises(ProviderStreamError) as info:
            async for _ in model.stream(contents=CONTENTS):
                pass
    return info.value


@pytest.mark.parametrize("reason", REASONS)
async def test_blocked_prompts_leave_the_circuit_closed_for_other_callers(reason: str) -> None:
    calls, requests, state = await invoke_twice(blocked(reason))
    assert [c.status for c in calls] == [EventStatus.FAILED] * 2
    assert requests == 2  # the second call reached the API: no CircuitOpenError, no retry
    assert state == "closed"
    assert [type(c.exception).__name__ for c in calls] == ["ProviderStreamContentFilterError"] * 2


@pytest.mark.parametrize("reason", REASONS)
async def test_a_blocked_prompt_is_a_content_filter_error_with_its_reason(reason: str) -> None:
    calls, _, _ = await invoke_twice(blocked(reason))
    error = calls[0].exception
    assert isinstance(error, service.ProviderContentFilterError)
    assert isinstance(error, ProviderStreamError)  # ``except ProviderStreamError`` still holds
    assert error.code == reason
    assert error.kind == "content_filter"
    assert error.provider == "gemini"
    assert f"the prompt was blocked ({reason}) by HARM_CATEGORY_HARASSMENT" in str(error)
    assert not error.retryable


async def test_stream_and_invoke_raise_the_same_content_filter_error() -> None:
    calls, _, _ = await invoke_twice(blocked("PROHIBITED_CONTENT"))
    streamed = await stream_error(blocked("PROHIBITED_CONTENT"))
    assert type(streamed) is type(calls[0].exception)
    assert isinstance(streamed, service.ProviderStreamContentFilterError)
    assert (streamed.code, str(streamed)) == (calls[0].exception.code, str(calls[0].exception))


async def test_a_blocked_prompt_never_echoes_the_key() -> None:
    body = {"promptFeedback": {"blockReason": "OTHER", "blockReasonMessage": f"key {API_KEY} seen"}}
    calls, _, _ = await invoke_twice(body)
    error = calls[0].exception
    assert isinstance(error, service.ProviderContentFilterError)
    for text in (str(error), error.raw, error.code or ""):
        assert API_KEY not in text


async def test_an_error_object_that_is_no_block_keeps_its_class() -> None:
    # Only the block is re-typed: a 200 error object keeps core's classification (a 500 in the
    # body is the in-band server fault, retried by invoke like an HTTP 500) and counts.
    error = {"code": 500, "message": "Internal error encountered.", "status": "INTERNAL"}
    calls, requests, state = await invoke_twice({"error": error})
    assert type(calls[0].exception) is ProviderStreamServerError
    assert type(calls[1].exception).__name__ == "CircuitOpenError"
    assert state == "open"
    assert requests == AttemptPolicy().max_attempts  # every attempt of the first call, then shut


async def test_a_candidate_that_finished_for_safety_still_completes_the_stream() -> None:
    # A finish reason is an answer the caller reads, not a refusal to raise.
    event = {
        "candidates": [{"finishReason": "SAFETY", "index": 0}],
        "usageMetadata": USAGE,
        "modelVersion": "gemini-2.5-flash",
    }
    raw = b"data: " + json.dumps(event).encode() + b"\r\n\r\n"
    async with (
        scripted_stream_server([raw], path="/v1beta") as server,
        _model(server) as model,
    ):
        chunks = [chunk async for chunk in model.stream(contents=CONTENTS)]
    assert [c.type for c in chunks] == ["result"]
    assert chunks[0].metadata["finish_reason"] == "SAFETY"

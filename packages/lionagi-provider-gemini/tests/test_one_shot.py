"""Native one-shot answers through ``iModel.invoke()``: what a 2xx body says is what the call says.

``generateContent`` answers a prompt its safety filters refuse with HTTP 200 and a body holding
``promptFeedback.blockReason`` and no candidate; some gateways answer a Google error object with
a 200. The fake server has no scenario for either, so these bodies come from a loopback server
that writes them as given. The stream already turns both into one error chunk; ``invoke()``
must fail the same way instead of completing with an answer that has no text.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from gemini_loopback import API_KEY, native_model

from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderProtocolError,
    ProviderStreamCapacityError,
    ProviderStreamContentFilterError,
    ProviderStreamError,
    iModel,
)
from lionagi.service_testing import ScriptedStream, scripted_stream_server

CONTENTS = [{"role": "user", "parts": [{"text": "hello"}]}]
USAGE = {"promptTokenCount": 9, "totalTokenCount": 9}
BLOCKED = {
    "promptFeedback": {
        "blockReason": "SAFETY",
        "safetyRatings": [
            {"category": "HARM_CATEGORY_HARASSMENT", "probability": "HIGH", "blocked": True},
            {"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "NEGLIGIBLE"},
        ],
    },
    "usageMetadata": USAGE,
    "modelVersion": "gemini-2.5-flash",
    "responseId": "r-1",
}


def _model(server: ScriptedStream) -> iModel:
    return native_model(
        server,
        # Three quick attempts: a retryable failure shows as three requests.
        attempt_policy=AttemptPolicy(
            max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0
        ),
    )


async def invoke(body: Any) -> tuple[Any, int]:
    """``iModel.invoke`` against a server answering ``body`` (JSON) with a 200."""
    raw = json.dumps(body).encode()
    async with scripted_stream_server(
        [raw], path="/v1beta", content_type="application/json"
    ) as server:
        async with _model(server) as model:
            call = await model.invoke(contents=CONTENTS)
        return call, server.requests


async def stream_error(event: Any) -> ProviderStreamError:
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


async def test_a_blocked_prompt_fails_the_call_typed_not_an_empty_success() -> None:
    call, requests = await invoke(BLOCKED)
    assert call.status is EventStatus.FAILED
    error = call.exception
    # The caller's content, not the provider's health: neutral for the circuit, never retried.
    assert type(error) is ProviderStreamContentFilterError
    assert error.code == "SAFETY"
    assert error.provider == "gemini"
    assert "the prompt was blocked (SAFETY)" in str(error)
    assert "HARM_CATEGORY_HARASSMENT" in str(error)  # the category that blocked it
    assert "HATE_SPEECH" not in str(error)  # rated, but not what blocked it
    assert not error.retryable
    assert requests == 1  # the same prompt is refused the same way: never retried


async def test_invoke_and_stream_raise_the_same_error_for_a_blocked_prompt() -> None:
    call, _ = await invoke(BLOCKED)
    streamed = await stream_error(BLOCKED)
    error = call.exception
    assert isinstance(error, ProviderStreamError)
    assert type(error) is type(streamed)
    assert (error.code, str(error)) == (streamed.code, str(streamed))


async def test_a_block_message_never_echoes_the_key() -> None:
    body = {"promptFeedback": {"blockReason": "OTHER", "blockReasonMessage": f"key {API_KEY} seen"}}
    call, _ = await invoke(body)
    assert call.status is EventStatus.FAILED
    assert call.exception.code == "OTHER"
    assert "key" in str(call.exception)
    assert API_KEY not in str(call.exception)


async def test_an_error_object_with_a_200_is_classified_like_the_stream_event() -> None:
    error = {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}
    call, requests = await invoke({"error": error})
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderStreamCapacityError)
    assert call.exception.status == 503
    assert type(await stream_error({"error": error})) is type(call.exception)
    assert requests == 3  # an overload reached no caller and is retryable: retried


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"usageMetadata": USAGE, "modelVersion": "m"}, "no candidate"),
        ({"candidates": [], "usageMetadata": USAGE}, "no candidate"),
        ([{"candidates": []}], "not a GenerateContentResponse object (got JSON array)"),
        ("ok", "not a GenerateContentResponse object (got JSON string)"),
        ({"candidates": "text"}, "'candidates' is not a list"),
    ],
)
async def test_a_body_with_no_answer_is_a_protocol_error(body: Any, says: str) -> None:
    call, _ = await invoke(body)
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderProtocolError)
    assert says in str(call.exception)


@pytest.mark.parametrize("reason", ["SAFETY", "RECITATION", "MAX_TOKENS", "STOP"])
async def test_a_finish_reason_completes_with_the_body_as_sent(reason: str) -> None:
    candidate: dict[str, Any] = {"finishReason": reason, "index": 0}
    if reason != "SAFETY":  # a candidate stopped for safety may carry no content at all
        candidate["content"] = {"role": "model", "parts": [{"text": "partial"}]}
    body = {"candidates": [candidate], "usageMetadata": USAGE, "modelVersion": "m"}
    call, _ = await invoke(body)
    assert call.status is EventStatus.COMPLETED
    assert call.execution.response == body  # finish reason and usage as the API said

"""OpenAI's in-band ``server_error`` is the retryable server-fault family, not a bare error.

The Responses API reports its own failure inside a 200: a stream ends with ``response.failed``
(or an ``error`` event) whose ``error.code`` is ``server_error``, and a one-shot response comes
back ``status: "failed"`` with the same error. Both reached core as the base
``ProviderStreamError``, never retried, while the HTTP 500 was. The projector's error chunk
already carries the code; core's classification now reads it as ``ProviderStreamServerError``,
so ``invoke()`` retries it and ``stream()`` still never replays.
"""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from openai_loopback import openai_model, sse

from lionagi.providers.openai import ResponsesProjector
from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderServerFaultError,
    ProviderStreamServerError,
    StreamChunk,
    iModel,
)
from lionagi.service_testing import (
    ScriptedStream,
    scripted_replies_server,
    scripted_stream_server,
)

KEY = "sk-proj-in-band-server-fault-0123456789"
FAST = AttemptPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0)
SERVER_ERROR = {"code": "server_error", "message": "The model failed to generate a response."}
BASE = {"id": "resp_1", "object": "response", "model": "gpt-5", "output": []}
FAILED = {**BASE, "status": "failed", "error": SERVER_ERROR}
COMPLETED = {
    **BASE,
    "status": "completed",
    "error": None,
    "output": [
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "hello", "annotations": []}],
        }
    ],
    "usage": {"input_tokens": 3, "output_tokens": 1, "total_tokens": 4},
}


CREATED = sse({"type": "response.created", "response": {**BASE, "status": "in_progress"}})
TEXT = sse({"type": "response.output_text.delta", "item_id": "msg_1", "delta": "Par"})


def model_at(url: str) -> iModel:
    return openai_model(url, api_key=KEY, endpoint="responses", attempt_policy=FAST)


@pytest.mark.parametrize(
    "event",
    [
        {"type": "response.failed", "response": FAILED},
        {"type": "error", **SERVER_ERROR},
    ],
    ids=["response.failed", "error"],
)
def test_the_projectors_error_chunk_names_the_code_core_reads(event: dict[str, Any]) -> None:
    (chunk,) = ResponsesProjector().feed(event)
    assert chunk.type == "error"
    assert chunk.metadata["code"] == "server_error"


@pytest.mark.parametrize("before", [[CREATED], [CREATED, TEXT]], ids=["first", "after_text"])
async def test_stream_raises_the_server_twin_and_never_replays(before: list[bytes]) -> None:
    chunks: list[StreamChunk] = []

    async def consume(model: iModel) -> None:
        async for chunk in model.stream(model="gpt-5", input="hi"):
            chunks.append(chunk)

    failed = sse({"type": "response.failed", "response": FAILED})
    server_cm = scripted_stream_server([*before, failed], pause=0.01)
    async with server_cm as server, model_at(server.url) as model:
        with pytest.raises(ProviderServerFaultError) as raised:
            await consume(model)
    error = raised.value
    assert type(error) is ProviderStreamServerError
    assert (error.code, error.provider, error.kind) == ("server_error", "openai", "server")
    assert error.retryable
    assert [c.type for c in chunks][-1] == "error"
    assert server.requests == 1  # the error chunk reached the caller: no replay


def answers(*bodies: dict[str, Any]) -> AbstractAsyncContextManager[ScriptedStream]:
    """Answers the n-th request with ``bodies[n]`` (the last one repeats) as a 200 JSON body."""
    return scripted_replies_server(
        [[json.dumps(body).encode()] for body in bodies], content_type="application/json"
    )


async def test_invoke_retries_a_failed_response_and_then_answers() -> None:
    server_cm = answers(FAILED, COMPLETED)
    async with server_cm as server, model_at(server.url) as model:
        call = await model.invoke(model="gpt-5", input="hi")
    assert call.status is EventStatus.COMPLETED, call.exception
    assert call.execution.response["status"] == "completed"
    assert server.requests == 2

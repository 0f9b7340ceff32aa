"""Anthropic's in-band 500 (``api_error``) is the retryable server-fault family, not a bare error.

Anthropic sends an internal failure that happens after the stream started as an ``event: error``
whose ``error.type`` is ``api_error`` (its HTTP 500's type), and a gateway answering with a 200
may put the same error object in a one-shot body. Both reached core as the base
``ProviderStreamError``, never retried, while the HTTP 500 was retried. The projector's error
chunk already carries the type as ``code``; core's classification now reads it as
``ProviderStreamServerError``, so ``invoke()`` retries it and ``stream()`` still never replays.
"""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest

from lionagi.providers.anthropic import AnthropicMessagesProjector
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

KEY = "sk-ant-test-FAKEkey0123456789abcdef"
FAST = AttemptPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0)
HI = [{"role": "user", "content": "hi"}]
API_ERROR = {"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}
MESSAGE = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-x",
    "content": [{"type": "text", "text": "hello"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 3, "output_tokens": 1},
}


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


START = _event(
    "message_start",
    {"type": "message_start", "message": {**MESSAGE, "content": [], "stop_reason": None}},
)
TEXT = _event(
    "content_block_start",
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
) + _event(
    "content_block_delta",
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Par"}},
)


def model_at(url: str) -> iModel:
    return iModel(
        model="anthropic/claude-x",
        api_key=KEY,
        base_url=url,
        allow_local_network=True,
        attempt_policy=FAST,
    )


def test_the_projectors_error_chunk_names_the_type_core_reads() -> None:
    projector = AnthropicMessagesProjector()
    (chunk,) = projector.feed(API_ERROR)
    assert chunk.type == "error"
    assert chunk.metadata["code"] == "api_error"


@pytest.mark.parametrize("before", [[START], [START, TEXT]], ids=["first", "after_text"])
async def test_stream_raises_the_server_twin_and_never_replays(before: list[bytes]) -> None:
    chunks: list[StreamChunk] = []

    async def consume(model: iModel) -> None:
        async for chunk in model.stream(messages=HI):
            chunks.append(chunk)

    server_cm = scripted_stream_server([*before, _event("error", API_ERROR)], pause=0.01)
    async with server_cm as server, model_at(server.url) as model:
        with pytest.raises(ProviderServerFaultError) as raised:
            await consume(model)
    error = raised.value
    assert type(error) is ProviderStreamServerError
    assert (error.code, error.provider, error.kind) == ("api_error", "anthropic", "server")
    assert error.retryable
    assert [c.type for c in chunks][-1] == "error"
    assert server.requests == 1  # the error chunk reached the caller: no replay


def answers(*bodies: dict[str, Any]) -> AbstractAsyncContextManager[ScriptedStream]:
    """Answers the n-th request with ``bodies[n]`` (the last one repeats) as a 200 JSON body."""
    return scripted_replies_server(
        [[json.dumps(body).encode()] for body in bodies], content_type="application/json"
    )


async def test_invoke_retries_an_api_error_body_and_then_answers() -> None:
    async with answers(API_ERROR, MESSAGE) as server, model_at(server.url) as model:
        call = await model.invoke(messages=HI)
    assert call.status is EventStatus.COMPLETED, call.exception
    assert call.execution.response["content"][0]["text"] == "hello"
    assert server.requests == 2

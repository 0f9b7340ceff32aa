"""``invoke()`` retries a retryable stream-family error; ``stream()`` never does once output left.

A one-shot call hands the caller nothing until it returns, so a capacity error it raises (a 2xx
body whose error object reports an overloaded model, DeepSeek's answer cut for lack of
resources) happened before any output: the attempt policy retried the HTTP 503 reporting the
same condition, but "never retry a stream error" failed the call at once. ``stream()`` keeps the
replay boundary: the error chunk is yielded to the caller, and nothing is retried after it.
"""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest

from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderCapacityError,
    ProviderStreamAuthError,
    ProviderStreamCapacityError,
    ProviderStreamContextError,
    ProviderStreamDisconnectError,
    ProviderStreamError,
    ProviderStreamQuotaError,
    StreamChunk,
    iModel,
)
from lionagi.service._lifecycle.retry import retry_after_of
from lionagi.service.lifecycle import is_retryable
from lionagi.service_testing import (
    ScriptedStream,
    scripted_replies_server,
    scripted_stream_server,
)

KEY = "sk-retry-stream-family-0123456789"
OVERLOADED = {"error": {"message": "The model is overloaded", "type": "server_error"}}
ANSWER = {
    "id": "c-1",
    "object": "chat.completion",
    "model": "m",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
    ],
}
FAST = AttemptPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0.0)


def answers(*bodies: dict[str, Any]) -> AbstractAsyncContextManager[ScriptedStream]:
    """Answers the n-th request with ``bodies[n]`` (the last one repeats) as a 200 JSON body."""
    return scripted_replies_server(
        [[json.dumps(body).encode()] for body in bodies], content_type="application/json"
    )


def gateway(url: str, policy: AttemptPolicy = FAST) -> iModel:
    return iModel(
        provider="somegateway",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url=url,
        api_key=KEY,
        allow_local_network=True,
        request_defaults={"model": "m"},
        attempt_policy=policy,
    )


async def test_invoke_retries_a_capacity_error_object_and_then_answers() -> None:
    server_cm = answers(OVERLOADED, ANSWER)
    async with server_cm as server, gateway(server.url) as model:
        call = await model.invoke(messages=[{"role": "user", "content": "x"}])
    assert call.status is EventStatus.COMPLETED, call.exception
    assert call.execution.response["choices"][0]["message"]["content"] == "hi"
    assert server.requests == 2


async def test_invoke_gives_up_after_the_policys_attempts_with_the_typed_error() -> None:
    async with answers(OVERLOADED) as server, gateway(server.url) as model:
        call = await model.invoke(messages=[{"role": "user", "content": "x"}])
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderStreamCapacityError)
    assert KEY not in str(call.exception)
    assert server.requests == 3


async def test_invoke_does_not_retry_an_unclassified_error_object() -> None:
    # No family names it (a server fault's `server_error` would: it is retried, see
    # tests/lifecycle/test_in_band_server_fault.py).
    broken = {"error": {"message": "something went wrong", "type": "upstream_error"}}
    server_cm = answers(broken, ANSWER)
    async with server_cm as server, gateway(server.url) as model:
        call = await model.invoke(messages=[{"role": "user", "content": "x"}])
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderStreamError
    assert server.requests == 1


def _sse(body: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(body)}\n\n".encode()


TEXT = _sse(
    {
        "id": "c",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Par"}}],
    }
)


async def _stream(frames: list[bytes]) -> tuple[list[StreamChunk], BaseException | None, int]:
    chunks: list[StreamChunk] = []
    raised: BaseException | None = None
    server_cm = scripted_stream_server(frames, pause=0.02)
    async with server_cm as server, gateway(server.url) as model:
        try:
            async for chunk in model.stream(messages=[{"role": "user", "content": "x"}]):
                chunks.append(chunk)
        except ProviderStreamError as exc:
            raised = exc
    return chunks, raised, server.requests


async def test_stream_never_retries_a_capacity_error_after_a_delivered_chunk() -> None:
    chunks, raised, requests = await _stream([TEXT, _sse(OVERLOADED)])
    assert [c.type for c in chunks] == ["text", "error"]
    assert isinstance(raised, ProviderStreamCapacityError)
    assert requests == 1


async def test_stream_never_retries_a_capacity_error_chunk_it_handed_over_first() -> None:
    """The error chunk itself is output: it crossed the replay boundary when it was yielded."""
    chunks, raised, requests = await _stream([_sse(OVERLOADED)])
    assert [c.type for c in chunks] == ["error"]
    assert isinstance(raised, ProviderCapacityError)
    assert requests == 1


@pytest.mark.parametrize(
    ("error", "retried"),
    [
        (ProviderStreamCapacityError("overloaded"), True),
        (ProviderStreamQuotaError("rate limit exceeded"), True),
        (ProviderStreamError("unclassified", code="length"), False),
        (ProviderStreamAuthError("invalid api key"), False),
        (ProviderStreamContextError("context length exceeded"), False),
        (ProviderStreamDisconnectError("stream disconnected before completion"), False),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else str(v),
)
def test_a_stream_family_error_an_attempt_raised_is_judged_by_its_family(
    error: ProviderStreamError, retried: bool
) -> None:
    assert is_retryable(error, AttemptPolicy()) is retried


def test_a_stream_family_errors_retry_after_is_the_floor_of_its_wait() -> None:
    assert retry_after_of(ProviderStreamQuotaError("slow down", retry_after=2.5)) == 2.5
    assert retry_after_of(ProviderStreamCapacityError("overloaded")) is None
    assert retry_after_of(ProviderStreamCapacityError("overloaded", retry_after=-1)) is None

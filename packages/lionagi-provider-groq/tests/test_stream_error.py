"""A stream Groq stops early with ``x_groq.error`` fails; it does not end as a success.

When generation fails mid-stream, Groq sends a chunk whose ``x_groq`` carries ``error``, a
string saying why the stream was stopped early (groq-python's ``XGroq.error``). The projector
read only ``x_groq.usage``, so such a stream ended with a result chunk on the partial text, as
if the answer were complete.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import (
    ProviderCapacityError,
    ProviderStreamCapacityError,
    ProviderStreamError,
    StreamChunk,
    iModel,
)
from lionagi.service_testing import scripted_stream_server

KEY = "gsk_test_0123456789abcdefghij"
USAGE = {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "llama-3.3-70b-versatile",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }
    return f"data: {json.dumps(body)}\n\n".encode()


async def _stream(frames: list[bytes]) -> tuple[list[StreamChunk], BaseException | None, int]:
    chunks: list[StreamChunk] = []
    raised: BaseException | None = None
    async with scripted_stream_server(frames) as server:
        model = iModel(
            model="groq/llama-3.3-70b-versatile",
            api_key=KEY,
            base_url=server.url,
            allow_local_network=True,
        )
        async with model:
            try:
                async for chunk in model.stream(messages=[{"role": "user", "content": "q"}]):
                    chunks.append(chunk)
            except ProviderStreamError as exc:
                raised = exc
    return chunks, raised, server.requests


async def test_an_x_groq_error_ends_the_stream_with_an_error_not_a_result() -> None:
    frames = [
        _chunk({"role": "assistant", "content": "The answer"}, x_groq={"id": "req_01"}),
        _chunk({"content": " is"}),
        _chunk({}, "stop", x_groq={"id": "req_01", "error": "internal error", "usage": USAGE}),
        b"data: [DONE]\n\n",
    ]
    chunks, raised, requests = await _stream(frames)
    assert "".join(c.content or "" for c in chunks if c.type == "text") == "The answer is"
    assert not [c for c in chunks if c.type == "result"]
    (error,) = [c for c in chunks if c.type == "error"]
    assert error.is_error
    assert "internal error" in (error.content or "")
    assert error.metadata["usage"] == USAGE  # the tokens spent are billed all the same
    assert type(raised) is ProviderStreamError  # unclassified text: the base class
    assert "internal error" in str(raised)
    assert requests == 1  # output reached the caller: never retried


async def test_an_x_groq_error_is_classified_like_any_error_chunk() -> None:
    frames = [
        _chunk({"role": "assistant", "content": "Par"}),
        _chunk({}, x_groq={"error": "the model is overloaded, please try again later"}),
    ]
    chunks, raised, _ = await _stream(frames)
    assert isinstance(raised, ProviderStreamCapacityError)
    assert isinstance(raised, ProviderCapacityError)
    assert raised.kind == "capacity"
    assert chunks[-1].type == "error"


async def test_an_x_groq_error_never_echoes_the_key() -> None:
    frames = [
        _chunk({"role": "assistant", "content": "x"}),
        _chunk({}, x_groq={"error": f"bad request from key {KEY}"}),
    ]
    chunks, raised, _ = await _stream(frames)
    assert raised is not None
    assert KEY not in str(raised)
    assert KEY not in repr(raised.args)
    assert all(KEY not in (c.content or "") for c in chunks)


async def test_x_groq_without_an_error_still_completes_with_its_usage() -> None:
    frames = [
        _chunk({"role": "assistant", "content": "ok"}, x_groq={"id": "req_01"}),
        _chunk({}, "stop", x_groq={"id": "req_01", "error": None, "usage": USAGE}),
        b"data: [DONE]\n\n",
    ]
    chunks, raised, _ = await _stream(frames)
    assert raised is None
    (result,) = [c for c in chunks if c.type == "result"]
    assert result.metadata["usage"] == USAGE


@pytest.mark.parametrize("shape", [{"message": "backend failure", "code": "x"}, 42])
async def test_an_x_groq_error_of_another_shape_still_fails(shape: Any) -> None:
    """Groq documents a string; anything else present is still a stop, never dropped."""
    frames = [_chunk({"role": "assistant", "content": "x"}), _chunk({}, x_groq={"error": shape})]
    chunks, raised, _ = await _stream(frames)
    assert isinstance(raised, ProviderStreamError)
    assert chunks[-1].type == "error"

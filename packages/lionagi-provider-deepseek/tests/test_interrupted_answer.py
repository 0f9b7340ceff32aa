"""An answer DeepSeek cut off for lack of inference resources is a capacity error, not a result.

DeepSeek ends such a choice with ``finish_reason: "insufficient_system_resource"``. Read as any
other finish reason, ``invoke()`` completed and ``stream()`` ended with a result chunk on the cut
text; both now fail with the capacity family, and the tokens billed stay on the error chunk.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import (
    EventStatus,
    ProviderCapacityError,
    ProviderStreamCapacityError,
    StreamChunk,
    iModel,
)
from lionagi.service_testing import scripted_stream_server

KEY = "k-deepseek-0123456789abcdef"
USAGE = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
CUT = "insufficient_system_resource"


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    body = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "deepseek-v4-pro",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }
    return f"data: {json.dumps(body)}\n\n".encode()


def _model(url: str) -> iModel:
    return iModel(
        model="deepseek/deepseek-v4-pro", api_key=KEY, base_url=url, allow_local_network=True
    )


async def test_a_cut_stream_ends_with_a_capacity_error_not_a_result() -> None:
    frames = [
        _chunk({"role": "assistant", "content": "The answer"}),
        _chunk({"content": " is"}),
        _chunk({"content": ""}, CUT, usage=USAGE),
        b"data: [DONE]\n\n",
    ]
    chunks: list[StreamChunk] = []

    async def consume(model: iModel) -> None:
        async for chunk in model.stream(messages=[{"role": "user", "content": "q"}]):
            chunks.append(chunk)

    async with scripted_stream_server(frames) as server, _model(server.url) as model:
        with pytest.raises(ProviderStreamCapacityError) as caught:
            await consume(model)
    assert "".join(c.content or "" for c in chunks if c.type == "text") == "The answer is"
    assert not [c for c in chunks if c.type == "result"]
    (error,) = [c for c in chunks if c.type == "error"]
    assert error.metadata["code"] == CUT
    assert error.metadata["usage"] == USAGE
    assert isinstance(caught.value, ProviderCapacityError)
    assert KEY not in str(caught.value)


async def test_a_cut_one_shot_answer_fails_with_the_same_error() -> None:
    body = {
        "id": "c1",
        "object": "chat.completion",
        "model": "deepseek-v4-pro",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "The answer is"},
                "finish_reason": CUT,
            }
        ],
        "usage": USAGE,
    }
    served = [json.dumps(body).encode()]
    server_cm = scripted_stream_server(served, content_type="application/json")
    async with server_cm as server, _model(server.url) as model:
        call = await model.invoke(messages=[{"role": "user", "content": "q"}])
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderStreamCapacityError)
    assert call.exception.code == CUT  # type: ignore[attr-defined]


async def test_other_finish_reasons_still_complete() -> None:
    frames = [_chunk({"role": "assistant", "content": "Cut"}), _chunk({}, "length", usage=USAGE)]
    async with scripted_stream_server(frames) as server, _model(server.url) as model:
        chunks = [c async for c in model.stream(messages=[{"role": "user", "content": "q"}])]
    (result,) = [c for c in chunks if c.type == "result"]
    assert result.metadata["finish_reason"] == "length"

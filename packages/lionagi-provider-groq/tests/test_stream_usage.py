"""A Groq stream's usage comes on its last chunk under ``x_groq.usage``; the result keeps it."""

from __future__ import annotations

import json
from typing import Any

from lionagi.service import iModel
from lionagi.service_testing import scripted_stream_server

KEY = "gsk_test_0123456789abcdefghij"
USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "llama-3.3-70b-versatile",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }
    return f"data: {json.dumps(body)}\n\n".encode()


async def _result_usage(last_extra: dict[str, Any]) -> Any:
    frames = [
        _chunk({"role": "assistant", "content": ""}),
        _chunk({"content": "Hello"}),
        _chunk({}, "stop", **last_extra),
        b"data: [DONE]\n\n",
    ]
    async with scripted_stream_server(frames) as server:
        model = iModel(
            model="groq/llama-3.3-70b-versatile",
            api_key=KEY,
            base_url=server.url,
            allow_local_network=True,
        )
        async with model:
            chunks = [c async for c in model.stream(messages=[{"role": "user", "content": "hi"}])]
    assert "".join(c.content or "" for c in chunks if c.type == "text") == "Hello"
    (result,) = [c for c in chunks if c.type == "result"]
    return result.metadata["usage"]


async def test_the_usage_under_x_groq_reaches_the_result_chunk() -> None:
    assert await _result_usage({"x_groq": {"id": "req_1", "usage": USAGE}}) == USAGE


async def test_a_top_level_usage_still_wins() -> None:
    other = {**USAGE, "total_tokens": 99}
    assert await _result_usage({"usage": other, "x_groq": {"usage": USAGE}}) == other

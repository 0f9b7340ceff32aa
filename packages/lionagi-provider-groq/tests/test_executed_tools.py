"""A Compound model's built-in tool runs (``delta.executed_tools``) reach the stream's consumer.

The one-shot body keeps them on ``message.executed_tools``; the stream dropped them, so
``stream()`` lost the searches and code runs ``invoke()`` returns.
"""

from __future__ import annotations

import json
from typing import Any

from lionagi.service import iModel
from lionagi.service_testing import scripted_stream_server

KEY = "gsk_test_0123456789abcdefghij"
STARTED = {"index": 0, "type": "search", "arguments": '{"query": "groq lpu"}'}
FINISHED = {
    **STARTED,
    "output": "Title: Groq LPU",
    "search_results": {"results": [{"title": "Groq LPU", "url": "https://groq.com", "score": 0.9}]},
}


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "groq/compound",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n".encode()


async def test_each_executed_tools_delta_is_a_chunk_with_the_list_as_sent() -> None:
    frames = [
        _chunk({"role": "assistant", "content": ""}),
        _chunk({"executed_tools": [STARTED]}),
        _chunk({"reasoning": "searching"}),
        _chunk({"executed_tools": [FINISHED]}),
        _chunk({"content": "An LPU."}),
        _chunk({}, "stop"),
        b"data: [DONE]\n\n",
    ]
    async with scripted_stream_server(frames) as server:
        model = iModel(
            model="groq/groq/compound", api_key=KEY, base_url=server.url, allow_local_network=True
        )
        async with model:
            chunks = [c async for c in model.stream(messages=[{"role": "user", "content": "q"}])]
    runs = [c for c in chunks if "executed_tools" in c.metadata]
    assert [c.metadata["executed_tools"] for c in runs] == [[STARTED], [FINISHED]]
    assert all(c.type == "text" and c.content == "" for c in runs)
    assert "".join(c.content or "" for c in chunks if c.type == "text") == "An LPU."
    assert [c.content for c in chunks if c.type == "thinking"] == ["searching"]

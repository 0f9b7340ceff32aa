"""OpenRouter chat streams as its servers write them, through ``iModel`` over loopback.

Each scripted event is its own network write (``TCP_NODELAY``, a pause between writes), so the
client sees the event boundaries a real provider produces.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import ProviderStreamError, StreamChunk, iModel
from lionagi.service_testing import scripted_stream_server


def _chunk(delta: dict[str, Any], finish: str | None = None, **fields: Any) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    event = {"id": "gen-1", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
    return f"data: {json.dumps({**event, **fields})}\n\n".encode()


DONE = b"data: [DONE]\n\n"


async def test_mid_stream_error_beside_choices_is_a_typed_error_not_a_clean_end() -> None:
    """OpenRouter's documented mid-stream failure keeps ``choices`` (``finish_reason: "error"``).

    The error is a top-level ``error`` object in a chunk that also has a choice; read by its
    choice alone, the stream ended as a success holding half an answer.
    """
    failure = _chunk(
        {"content": ""},
        "error",
        provider="openai",
        error={"code": "server_error", "message": "Provider disconnected unexpectedly"},
    )
    writes = [b": OPENROUTER PROCESSING\n\n", _chunk({"content": "Half an"}), failure, DONE]
    seen: list[StreamChunk] = []

    async def consume(model: iModel) -> None:
        async for chunk in model.stream(messages=[{"role": "user", "content": "hi"}]):
            seen.append(chunk)

    async with (
        scripted_stream_server(writes, path="/api/v1") as server,
        iModel(
            model="openrouter/openai/gpt-4o",
            base_url=server.url,
            api_key="sk-or-wire-test-0123456789",
            allow_local_network=True,
        ) as model,
    ):
        with pytest.raises(ProviderStreamError, match="Provider disconnected unexpectedly"):
            await consume(model)
    assert [c.type for c in seen] == ["text", "error"]
    assert seen[0].content == "Half an"
    assert seen[-1].is_error
    assert seen[-1].metadata["code"] == "server_error"
    assert not any(c.type == "result" for c in seen)

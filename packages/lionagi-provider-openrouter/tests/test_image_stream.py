"""A streamed image-generation answer keeps its images, as the one-shot answer does (loopback).

Asked with ``modalities: ["image", "text"]``, OpenRouter's image models return the pictures in
``message.images`` one-shot and in ``delta.images`` when streamed (each
``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}``). The stream read
only the text: it ended with a clean result and no image, the very output asked for.
"""

from __future__ import annotations

import json
from typing import Any

from lionagi.service import StreamChunk, iModel
from lionagi.service_testing import scripted_stream_server

KEY = "sk-or-image-test-0123456789"
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


def _chunk(delta: dict[str, Any], finish: str | None = None, **fields: Any) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    event = {
        "id": "gen-1",
        "object": "chat.completion.chunk",
        "model": "google/gemini-2.5-flash-image",
        "choices": [choice],
    }
    return f"data: {json.dumps({**event, **fields})}\n\n".encode()


async def test_the_streamed_images_reach_the_caller() -> None:
    usage = {"prompt_tokens": 9, "completion_tokens": 1300, "total_tokens": 1309}
    writes = [
        _chunk({"role": "assistant", "content": "Here is your sunset."}),
        _chunk({"role": "assistant", "content": "", "images": [IMAGE]}),
        _chunk({"content": ""}, "stop", usage=usage),
        b"data: [DONE]\n\n",
    ]
    async with (
        scripted_stream_server(writes, path="/api/v1") as server,
        iModel(
            model="openrouter/google/gemini-2.5-flash-image",
            base_url=server.url,
            api_key=KEY,
            allow_local_network=True,
        ) as model,
    ):
        chunks: list[StreamChunk] = [
            chunk
            async for chunk in model.stream(
                messages=[{"role": "user", "content": "a sunset"}], modalities=["image", "text"]
            )
        ]
    assert "".join(c.content or "" for c in chunks if c.type == "text") == "Here is your sunset."
    carried = [c for c in chunks if "images" in c.metadata]
    assert [(c.type, c.content, c.metadata) for c in carried] == [("text", "", {"images": [IMAGE]})]
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["usage"] == usage

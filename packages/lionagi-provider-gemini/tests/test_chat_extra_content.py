"""The compatibility layer's ``extra_content`` on a chat delta is kept on the stream's chunk.

Gemini's OpenAI-compatible layer puts Gemini's own data beside a delta's text: a thinking
model's ``extra_content.google.thought_signature`` (the signature of the text it returns), on
the delta with the text or on a last delta with empty ``content``. Core's chat projector keeps a
tool call's ``extra_content`` but read no such member on the delta, so ``stream()`` dropped it
while ``invoke()`` returned it in the body. A loopback server writes the events as the layer
sends them; every stream goes through ``iModel`` and the catalog's chat row.
"""

from __future__ import annotations

import json
from typing import Any

from lionagi.service import StreamChunk, iModel
from lionagi.service_testing import scripted_stream_server

KEY = "AIzaExtraContentKey0123456789abcdef"
MODEL = "gemini-3-flash-preview"
MESSAGES = [{"role": "user", "content": "hello"}]
USAGE = {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}


def signed(signature: str) -> dict[str, Any]:
    return {"google": {"thought_signature": signature}}


def event(*choices: dict[str, Any], **top: Any) -> bytes:
    body = {"object": "chat.completion.chunk", "model": MODEL, "choices": list(choices), **top}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


async def stream(*writes: bytes) -> list[StreamChunk]:
    async with (
        scripted_stream_server([*writes, b"data: [DONE]\n\n"], path="/v1beta/openai") as server,
        iModel(
            model=f"gemini/{MODEL}", api_key=KEY, base_url=server.url, allow_local_network=True
        ) as model,
    ):
        assert model.endpoint.config.endpoint == "chat/completions"
        return [chunk async for chunk in model.stream(messages=MESSAGES)]


async def test_a_text_deltas_extra_content_rides_on_its_text_chunk() -> None:
    chunks = await stream(
        event(
            {
                "index": 0,
                "delta": {"role": "assistant", "content": "Hello", "extra_content": signed("A")},
            }
        ),
        event({"index": 0, "delta": {"content": " world"}}),
        event(
            {
                "index": 0,
                "delta": {"content": "", "extra_content": signed("B")},
                "finish_reason": "stop",
            },
            usage=USAGE,
        ),
    )
    texts = [c for c in chunks if c.type == "text"]
    assert [(c.content, c.metadata.get("extra_content")) for c in texts] == [
        ("Hello", signed("A")),
        (" world", None),
        # The signature that came on a delta with no text: a text chunk of its own, empty.
        ("", signed("B")),
    ]
    assert "".join(c.content or "" for c in texts) == "Hello world"
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["finish_reason"] == "stop"


async def test_a_thinking_deltas_extra_content_rides_on_its_thinking_chunk() -> None:
    chunks = await stream(
        event(
            {"index": 0, "delta": {"reasoning_content": "Let me see", "extra_content": signed("T")}}
        ),
        event({"index": 0, "delta": {"content": "Done."}, "finish_reason": "stop"}),
    )
    [thinking] = [c for c in chunks if c.type == "thinking"]
    assert thinking.content == "Let me see"
    assert thinking.metadata["extra_content"] == signed("T")
    assert not any("extra_content" in c.metadata for c in chunks if c.type == "text")


async def test_each_choice_keeps_its_own_extra_content() -> None:
    chunks = await stream(
        event(
            {"index": 0, "delta": {"content": "first", "extra_content": signed("zero")}},
            {"index": 1, "delta": {"content": "second", "extra_content": signed("one")}},
        ),
        event(
            {"index": 0, "delta": {}, "finish_reason": "stop"},
            {
                "index": 1,
                "delta": {"extra_content": {"google": {"grounding": [1]}}},
                "finish_reason": "stop",
            },
        ),
    )
    texts = [
        (c.metadata.get("index", 0), c.content, c.metadata.get("extra_content"))
        for c in chunks
        if c.type == "text"
    ]
    assert texts == [
        (0, "first", signed("zero")),
        (1, "second", signed("one")),
        (1, "", {"google": {"grounding": [1]}}),
    ]


async def test_a_tool_calls_extra_content_is_still_cores_and_the_delta_adds_nothing() -> None:
    call = {
        "index": 0,
        "id": "call-1",
        "type": "function",
        "function": {"name": "lookup", "arguments": '{"q": "x"}'},
        "extra_content": signed("call"),
    }
    chunks = await stream(
        event(
            {
                "index": 0,
                "delta": {"role": "assistant", "tool_calls": [call]},
                "finish_reason": "tool_calls",
            }
        ),
    )
    [tool] = [c for c in chunks if c.type == "tool_use"]
    assert tool.metadata["extra_content"] == signed("call")
    assert [c.type for c in chunks] == ["tool_use", "result"]

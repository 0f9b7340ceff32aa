"""A chat stream whose ``delta.content`` is a list of content parts delivers its text.

Some OpenAI-compatible servers (Mistral's among them) send ``"content": [{"type": "text",
"text": "..."}]`` instead of a string. The projector read ``content`` only when it was a str and
ignored anything else, so the stream COMPLETED with a result chunk and none of the text. Text
parts are now projected as text, in order (``refusal`` and the reasoning fields likewise); any
other value, or a part of another type, ends the stream with ``ProviderProtocolError`` naming
the field, never dropped. Each stream is served by a real loopback server through ``iModel``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import ProviderProtocolError, iModel

KEY = "sk-test-contentparts-0123456789abcdef"
MESSAGES = [{"role": "user", "content": "hi"}]


def _frame(delta: dict[str, Any], finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    chunk = {"id": "c-1", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
    return f"data: {json.dumps(chunk)}\n\n"


def _frames(*deltas: dict[str, Any]) -> list[str]:
    return [*(_frame(delta) for delta in deltas), _frame({}, "stop"), "data: [DONE]\n\n"]


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


async def _stream(serve: Any, wire: Any, frames: list[str]) -> tuple[list[Any], Exception | None]:
    server = await serve(lambda req: wire.sse_stream(*frames))
    chunks: list[Any] = []
    async with iModel(
        provider="mistralish",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url=server.base_url + "/v1",
        api_key=KEY,
        allow_local_network=True,
        request_defaults={"model": "m"},
    ) as model:
        try:
            async for chunk in model.stream(messages=MESSAGES):
                chunks.append(chunk)
        except Exception as exc:
            return chunks, exc
    return chunks, None


def _of(chunks: list[Any], kind: str) -> list[Any]:
    return [chunk for chunk in chunks if chunk.type == kind]


DELIVERED = {
    # The shape Mistral sends: the only member of the delta (the projector's fast path).
    "content alone": ({"content": [_text("THE ANSWER")]},),
    # Beside other members (the first delta names the role): the general path.
    "beside the role": ({"role": "assistant", "content": [_text("THE ANSWER")]},),
    "parts in order": (
        {"role": "assistant", "content": [_text("THE "), _text("ANS")]},
        {"content": [_text("WER")]},
    ),
    "mixed with str deltas": ({"content": "THE "}, {"content": [_text("ANSWER")]}),
}


@pytest.mark.parametrize("deltas", DELIVERED.values(), ids=DELIVERED.keys())
async def test_text_parts_are_delivered_as_text(serve, wire, deltas: tuple[Any, ...]) -> None:
    chunks, error = await _stream(serve, wire, _frames(*deltas))
    assert error is None
    assert "".join(chunk.content for chunk in _of(chunks, "text")) == "THE ANSWER"
    assert all(chunk.is_delta for chunk in _of(chunks, "text"))
    assert [chunk.type for chunk in chunks][-1] == "result"


async def test_refusal_parts_are_delivered_as_a_refusal(serve, wire) -> None:
    chunks, error = await _stream(serve, wire, _frames({"refusal": [_text("I can't help.")]}))
    assert error is None
    [refusal] = _of(chunks, "text")
    assert refusal.content == "I can't help."
    assert refusal.metadata.get("refusal") is True


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_parts_are_delivered_as_thinking(serve, wire, field: str) -> None:
    deltas = ({field: [_text("Think"), _text("ing.")]}, {"content": "Done."})
    chunks, error = await _stream(serve, wire, _frames(*deltas))
    assert error is None
    assert [chunk.content for chunk in _of(chunks, "thinking")] == ["Thinking."]
    assert [chunk.content for chunk in _of(chunks, "text")] == ["Done."]


async def test_mistral_thinking_parts_are_delivered_as_thinking_in_order(serve, wire) -> None:
    """Mistral's reasoning models: thinking parts (their own list of text parts), then text."""
    thinking = {"type": "thinking", "thinking": [_text("Let me "), _text("think.")]}
    deltas = (
        {"role": "assistant", "content": [thinking]},
        {"content": [{"type": "thinking", "thinking": "More."}, _text("THE ")]},
        {"content": [_text("ANSWER")]},
    )
    chunks, error = await _stream(serve, wire, _frames(*deltas))
    assert error is None
    kinds = [(c.type, c.content) for c in chunks if c.type in ("thinking", "text")]
    assert kinds == [
        ("thinking", "Let me think."),
        ("thinking", "More."),
        ("text", "THE "),
        ("text", "ANSWER"),
    ]


REFUSED = {
    "an image part": (
        {"content": [_text("a"), {"type": "image_url", "image_url": {"url": "x"}}]},
        "'content' holds a part that is not a text or thinking part",
    ),
    "a thinking part of another shape": (
        {"content": [{"type": "thinking", "thinking": {"text": "t"}}]},
        "'thinking' is JSON object",
    ),
    "a part without text": ({"content": [{"type": "text"}]}, "'content' holds a part"),
    "a part that is a string": ({"content": ["plain"]}, "'content' holds a part"),
    "content an object": (
        {"role": "assistant", "content": {"text": "x"}},
        "'content' is JSON object, not text or a list of text parts",
    ),
    "content a number": ({"content": 7}, "'content' is JSON number"),
    "refusal an object": ({"refusal": {"text": "no"}}, "'refusal' is JSON object"),
    "refusal with an unknown part": (
        {"refusal": [{"type": "audio", "data": "x"}]},
        "'refusal' holds a part that is not a text part",
    ),
    "reasoning_content an object": (
        {"reasoning_content": {"text": "t"}},
        "'reasoning_content' is JSON object",
    ),
    "reasoning with an unknown part": (
        {"reasoning": [{"type": "thinking", "thinking": "t"}]},
        "'reasoning' holds a part that is not a text part",
    ),
}


@pytest.mark.parametrize(("delta", "says"), REFUSED.values(), ids=REFUSED.keys())
async def test_content_of_another_shape_ends_the_stream_typed(
    serve, wire, delta: dict[str, Any], says: str
) -> None:
    chunks, error = await _stream(serve, wire, _frames(delta))
    assert type(error) is ProviderProtocolError, (chunks, error)
    assert says in str(error)
    assert KEY not in str(error)
    assert not _of(chunks, "result")  # never a completed stream with the content dropped

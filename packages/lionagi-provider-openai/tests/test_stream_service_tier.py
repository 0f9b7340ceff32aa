"""A stream's result says which processing tier served it, as the one-shot body does (loopback).

OpenAI bills by the tier that actually served a request (``service_tier`` in the answer: with
``"auto"`` a project's default, ``"flex"``, ``"priority"``, ...), which may differ from the
tier asked for. The one-shot bodies carry it; the chat chunks and the Responses terminal event
carry it too, but neither stream's ``result`` chunk kept it.
"""

from __future__ import annotations

from typing import Any

from openai_loopback import chat_sse, event, served

KEY = "sk-service-tier-test-0123456789"


def _chat_chunk(**fields: Any) -> bytes:
    chunk = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-5",
        "service_tier": "flex",
        "system_fingerprint": None,
        **fields,
    }
    return chat_sse(chunk)


async def test_a_chat_stream_result_keeps_the_service_tier() -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    writes = [
        _chat_chunk(choices=[{"index": 0, "delta": {"role": "assistant", "content": "Hi"}}]),
        _chat_chunk(choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}]),
        _chat_chunk(choices=[], usage=usage),
        b"data: [DONE]\n\n",
    ]
    async with served(writes, api_key=KEY) as (_, model):
        chunks = [
            c
            async for c in model.stream(
                messages=[{"role": "user", "content": "hi"}], service_tier="auto"
            )
        ]
    result = chunks[-1]
    assert result.type == "result"
    assert result.metadata["service_tier"] == "flex"
    assert result.metadata["usage"] == usage
    assert result.metadata["finish_reason"] == "stop"


async def test_a_responses_stream_result_keeps_the_service_tier() -> None:
    response = {"id": "resp_1", "object": "response", "model": "gpt-5", "status": "in_progress"}
    usage = {"input_tokens": 3, "output_tokens": 1, "total_tokens": 4}
    done = {**response, "status": "completed", "usage": usage, "service_tier": "priority"}
    writes = [
        event("response.created", 0, response={**response, "service_tier": "auto"}),
        event("response.output_text.delta", 1, item_id="m", output_index=0, delta="Hi"),
        event("response.completed", 2, response=done),
    ]
    async with served(writes, api_key=KEY, endpoint="responses") as (_, model):
        chunks = [c async for c in model.stream(input="hi", service_tier="auto")]
    result = chunks[-1]
    assert result.type == "result"
    assert result.metadata["service_tier"] == "priority"
    assert result.metadata["response_id"] == "resp_1"

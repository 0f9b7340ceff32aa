"""A stream's result says which processing tier served it, as the one-shot body does (loopback).

OpenAI bills by the tier that actually served a request (``service_tier`` in the answer: with
``"auto"`` a project's default, ``"flex"``, ``"priority"``, ...), which may differ from the
tier asked for. The one-shot bodies carry it; the chat chunks and the Responses terminal event
carry it too, but neither stream's ``result`` chunk kept it.
"""

from __future__ import annotations

import json
from typing import Any

from lionagi.service import iModel
from lionagi.service_testing import scripted_stream_server

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
    return f"data: {json.dumps(chunk)}\n\n".encode()


async def test_a_chat_stream_result_keeps_the_service_tier() -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    writes = [
        _chat_chunk(choices=[{"index": 0, "delta": {"role": "assistant", "content": "Hi"}}]),
        _chat_chunk(choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}]),
        _chat_chunk(choices=[], usage=usage),
        b"data: [DONE]\n\n",
    ]
    async with (
        scripted_stream_server(writes) as server,
        iModel(
            model="openai/gpt-5", base_url=server.url, api_key=KEY, allow_local_network=True
        ) as model,
    ):
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


def _event(kind: str, sequence: int, **fields: Any) -> bytes:
    data = json.dumps({"type": kind, "sequence_number": sequence, **fields})
    return f"event: {kind}\ndata: {data}\n\n".encode()


async def test_a_responses_stream_result_keeps_the_service_tier() -> None:
    response = {"id": "resp_1", "object": "response", "model": "gpt-5", "status": "in_progress"}
    usage = {"input_tokens": 3, "output_tokens": 1, "total_tokens": 4}
    done = {**response, "status": "completed", "usage": usage, "service_tier": "priority"}
    writes = [
        _event("response.created", 0, response={**response, "service_tier": "auto"}),
        _event("response.output_text.delta", 1, item_id="m", output_index=0, delta="Hi"),
        _event("response.completed", 2, response=done),
    ]
    async with (
        scripted_stream_server(writes) as server,
        iModel(
            model="openai/gpt-5",
            endpoint="responses",
            base_url=server.url,
            api_key=KEY,
            allow_local_network=True,
        ) as model,
    ):
        chunks = [c async for c in model.stream(input="hi", service_tier="auto")]
    result = chunks[-1]
    assert result.type == "result"
    assert result.metadata["service_tier"] == "priority"
    assert result.metadata["response_id"] == "resp_1"

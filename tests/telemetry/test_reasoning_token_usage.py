"""Reasoning tokens reach the call span, inside the output count and not counted twice.

The GenAI conventions name the count ``gen_ai.usage.reasoning.output_tokens`` and say it SHOULD
be included in ``gen_ai.usage.output_tokens``. OpenAI reports it inside the output
(``completion_tokens_details`` on chat, ``output_tokens_details`` on Responses); Gemini reports
its thoughts beside the answer's tokens, so its output adds them. Before, no reasoning count was
recorded at all, so a reasoning model's thinking could not be told from its answer.
"""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest

from lionagi.service import EventStatus, iModel
from lionagi.service.http import TokenCounts
from lionagi.service_testing import scripted_stream_server

from ._openai_answers import chat_body, chat_stream, responses_body, responses_stream, sse
from .conftest import Otel

KEY = "sk-test-0123456789reasontokens"
MESSAGES = [{"role": "user", "content": "hi"}]
REASONING = "gen_ai.usage.reasoning.output_tokens"


CHAT_USAGE = {
    "prompt_tokens": 12,
    "completion_tokens": 100,
    "total_tokens": 112,
    "completion_tokens_details": {"reasoning_tokens": 64},
}
RESPONSES_USAGE = {
    "input_tokens": 12,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 100,
    "output_tokens_details": {"reasoning_tokens": 64},
    "total_tokens": 112,
}
GEMINI_BODY = {
    "candidates": [
        {
            "content": {"role": "model", "parts": [{"text": "ok"}]},
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    # Gemini counts the thoughts apart from the answer: 36 + 64 is the output.
    "usageMetadata": {
        "promptTokenCount": 12,
        "candidatesTokenCount": 36,
        "thoughtsTokenCount": 64,
        "totalTokenCount": 112,
    },
    "modelVersion": "gemini-x",
    "responseId": "r1",
}
GEMINI_STREAM = [sse(GEMINI_BODY)]  # one event: the answer, its finish reason and the usage

# (model, endpoint, request, stream frames, one-shot body)
CASES: dict[str, tuple[str, str, dict[str, Any], list[bytes], dict[str, Any]]] = {
    "openai-chat": (
        "openai/gpt-x",
        "chat",
        {"messages": MESSAGES},
        chat_stream(CHAT_USAGE),
        chat_body(CHAT_USAGE),
    ),
    "openai-responses": (
        "openai/gpt-x",
        "responses",
        {"input": "hi"},
        responses_stream(RESPONSES_USAGE),
        responses_body(RESPONSES_USAGE),
    ),
    "gemini-generate": (
        "gemini-api/gemini-x",
        "generate",
        {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
        GEMINI_STREAM,
        GEMINI_BODY,
    ),
}


def _token_points(otel: Otel) -> dict[str, int]:
    return {
        point.attributes["gen_ai.token.type"]: point.sum
        for point in otel.metrics().get("gen_ai.client.token.usage", [])
    }


async def _run(otel: Otel, model_id: str, endpoint: str, writes: list[bytes], stream: bool,
               request: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    otel.on()
    options = {} if stream else {"content_type": "application/json"}
    async with (
        scripted_stream_server(writes, **options) as server,
        iModel(
            model=model_id,
            endpoint=endpoint,
            api_key=KEY,
            base_url=server.url,
            allow_local_network=True,
        ) as model,
    ):
        if stream:
            chunks = [c async for c in model.stream(**request)]
            assert chunks[-1].type == "result"
        else:
            call = await model.invoke(**request)
            assert call.status is EventStatus.COMPLETED, call.exception
    return dict(otel.root().attributes or {})


@pytest.mark.parametrize("mode", ["stream", "invoke"])
@pytest.mark.parametrize("case", sorted(CASES))
async def test_reasoning_is_recorded_inside_the_output(otel: Otel, case: str, mode: str) -> None:
    model_id, endpoint, request, frames, body = CASES[case]
    writes = frames if mode == "stream" else [json.dumps(body).encode()]
    attrs = await _run(otel, model_id, endpoint, writes, mode == "stream", request)
    assert attrs["gen_ai.usage.input_tokens"] == 12
    assert attrs["gen_ai.usage.output_tokens"] == 100
    assert attrs[REASONING] == 64
    # The histogram counts each token once: the reasoning is inside the output point.
    assert _token_points(otel) == {"input": 12, "output": 100}


async def test_a_record_without_a_reasoning_count_records_no_attribute(otel: Otel) -> None:
    body = chat_body({"prompt_tokens": 9, "completion_tokens": 2})
    attrs = await _run(
        otel, "openai/gpt-x", "chat", [json.dumps(body).encode()], False, {"messages": MESSAGES}
    )
    assert (attrs["gen_ai.usage.input_tokens"], attrs["gen_ai.usage.output_tokens"]) == (9, 2)
    assert REASONING not in attrs  # no count is not a count of 0


def test_the_reasoning_count_survives_copy_and_pickle() -> None:
    counts = TokenCounts(12, 100, cache_read=3, reasoning=64)
    for clone in (copy.copy(counts), copy.deepcopy(counts), pickle.loads(pickle.dumps(counts))):
        assert clone == (12, 100)
        assert (clone.cache_read, clone.reasoning) == (3, 64)
    assert TokenCounts(1, 2).reasoning is None
    assert "reasoning=64" in repr(counts)

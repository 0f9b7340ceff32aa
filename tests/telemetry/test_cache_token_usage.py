"""Prompt-cache token counts reach the call span, and the input count includes them.

The GenAI conventions name the cache counts ``gen_ai.usage.cache_read.input_tokens`` and
``gen_ai.usage.cache_creation.input_tokens``, and say both SHOULD be included in
``gen_ai.usage.input_tokens``. Before, no cache count was recorded at all, and an Anthropic
call with a warm cache recorded only the tokens after the last cache breakpoint as its input
(5 of 125 here), in the span and in the ``gen_ai.client.token.usage`` histogram alike.
"""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest

from lionagi.service import EventStatus, iModel
from lionagi.service.http import TokenCounts, sum_counts
from lionagi.service_testing import scripted_stream_server

from ._openai_answers import chat_body, chat_stream, responses_body, responses_stream, sse
from .conftest import Otel

KEY = "sk-test-0123456789cachetokens"
MESSAGES = [{"role": "user", "content": "hi"}]

CACHE_ATTRS = ("gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_creation.input_tokens")


# -- Anthropic: input_tokens leaves out both cache counts ---------------------------------------

ANTHROPIC_USAGE = {
    "input_tokens": 5,
    "cache_read_input_tokens": 100,
    "cache_creation_input_tokens": 20,
    "output_tokens": 1,
}
ANTHROPIC_STREAM = [
    sse(
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-x",
                "content": [],
                "stop_reason": None,
                "usage": ANTHROPIC_USAGE,
            },
        },
        "message_start",
    ),
    sse(
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        "content_block_start",
    ),
    sse(
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
        "content_block_delta",
    ),
    sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
    sse(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 7},
        },
        "message_delta",
    ),
    sse({"type": "message_stop"}, "message_stop"),
]
ANTHROPIC_BODY = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-x",
    "content": [{"type": "text", "text": "ok"}],
    "stop_reason": "end_turn",
    "usage": {**ANTHROPIC_USAGE, "output_tokens": 7},
}

# -- OpenAI: the input count already includes the cached part -----------------------------------

CHAT_USAGE = {
    "prompt_tokens": 125,
    "completion_tokens": 7,
    "total_tokens": 132,
    "prompt_tokens_details": {"cached_tokens": 100},
}
CHAT_BODY = chat_body(CHAT_USAGE)
CHAT_STREAM = chat_stream(CHAT_USAGE)
RESPONSES_USAGE = {
    "input_tokens": 125,
    "input_tokens_details": {"cached_tokens": 100},
    "output_tokens": 7,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 132,
}
RESPONSES_BODY = responses_body(RESPONSES_USAGE)
RESPONSES_STREAM = responses_stream(RESPONSES_USAGE)

# (model, endpoint, request, stream frames, one-shot body, expected cache attributes)
CASES: dict[str, tuple[str, str, dict[str, Any], list[bytes], dict[str, Any], tuple[Any, Any]]] = {
    "anthropic": (
        "anthropic/claude-x",
        "messages",
        {"messages": MESSAGES, "max_tokens": 16},
        ANTHROPIC_STREAM,
        ANTHROPIC_BODY,
        (100, 20),
    ),
    "openai-chat": (
        "openai/gpt-x",
        "chat",
        {"messages": MESSAGES},
        CHAT_STREAM,
        CHAT_BODY,
        (100, None),
    ),
    "openai-responses": (
        "openai/gpt-x",
        "responses",
        {"input": "hi"},
        RESPONSES_STREAM,
        RESPONSES_BODY,
        (100, None),
    ),
}


def _token_points(otel: Otel) -> dict[str, int]:
    return {
        point.attributes["gen_ai.token.type"]: point.sum
        for point in otel.metrics().get("gen_ai.client.token.usage", [])
    }


@pytest.mark.parametrize("mode", ["stream", "invoke"])
@pytest.mark.parametrize("case", sorted(CASES))
async def test_cache_counts_are_recorded_and_counted_in_the_input(
    otel: Otel, case: str, mode: str
) -> None:
    model_id, endpoint, request, frames, body, (read, written) = CASES[case]
    otel.on()
    if mode == "stream":
        writes, options = frames, {}
    else:
        writes, options = [json.dumps(body).encode()], {"content_type": "application/json"}
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
        if mode == "stream":
            chunks = [c async for c in model.stream(**request)]
            assert chunks[-1].type == "result"
        else:
            call = await model.invoke(**request)
            assert call.status is EventStatus.COMPLETED, call.exception
    attrs = dict(otel.root().attributes or {})
    assert attrs["gen_ai.usage.input_tokens"] == 125
    assert attrs["gen_ai.usage.output_tokens"] == 7
    assert (attrs.get(CACHE_ATTRS[0]), attrs.get(CACHE_ATTRS[1])) == (read, written)
    # The histogram counts each token once: the cache counts are inside the input point.
    assert _token_points(otel) == {"input": 125, "output": 7}


async def test_a_plain_pair_records_no_cache_attribute(otel: Otel) -> None:
    # An endpoint that knows no cache counts returns a plain pair; nothing is made up.
    otel.on()
    body = {**CHAT_BODY, "usage": {"prompt_tokens": 9, "completion_tokens": 2}}
    async with (
        scripted_stream_server([json.dumps(body).encode()], content_type="application/json") as s,
        iModel(
            model="openai/gpt-x", endpoint="chat", api_key=KEY, base_url=s.url,
            allow_local_network=True,
        ) as model,
    ):  # fmt: skip
        call = await model.invoke(messages=MESSAGES)
        assert call.status is EventStatus.COMPLETED, call.exception
    attrs = dict(otel.root().attributes or {})
    assert (attrs["gen_ai.usage.input_tokens"], attrs["gen_ai.usage.output_tokens"]) == (9, 2)
    assert not set(CACHE_ATTRS) & set(attrs)


def test_token_counts_is_still_the_pair_every_caller_unpacks() -> None:
    counts = TokenCounts(125, 7, cache_read=100, cache_creation=20)
    assert counts == (125, 7)
    assert len(counts) == 2
    assert isinstance(counts, tuple)
    for clone in (copy.copy(counts), copy.deepcopy(counts), pickle.loads(pickle.dumps(counts))):
        assert clone == (125, 7)
        assert (clone.cache_read, clone.cache_creation) == (100, 20)
    assert TokenCounts(1, None).cache_read is None


def test_sum_counts_keeps_an_absent_count_absent() -> None:
    assert sum_counts(None, None) is None
    assert sum_counts(5, None, 20) == 25
    assert sum_counts(0) == 0


def _vendor_endpoint(reference: str) -> Any:
    module, _, name = reference.partition(":")
    return getattr(__import__(module, fromlist=[name]), name)


# Endpoints that read a shared spelling through core's default: the Anthropic record of Claude
# Code's result event, the OpenAI chat dialect of every OpenAI-compatible vendor; and Gemini's
# own record, whose prompt count already includes the cached context.
VENDOR_RECORDS = [
    (
        "lionagi.providers.claude_code:ClaudeCodeEndpoint",
        {"input_tokens": 5, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 20,
         "output_tokens": 7},
        (125, 7, 100, 20),
    ),
    (
        "lionagi.providers.groq:GroqChat",
        {"prompt_tokens": 125, "completion_tokens": 7,
         "prompt_tokens_details": {"cached_tokens": 100}},
        (125, 7, 100, None),
    ),
    (
        "lionagi.providers.deepseek:DeepSeekChat",
        {"prompt_tokens": 125, "completion_tokens": 7, "prompt_cache_hit_tokens": 100,
         "prompt_cache_miss_tokens": 25},
        (125, 7, 100, None),
    ),
    (
        "lionagi.providers.gemini:GeminiGenerateContent",
        {"usageMetadata": {"promptTokenCount": 125, "candidatesTokenCount": 5,
                           "thoughtsTokenCount": 2, "cachedContentTokenCount": 100}},
        (125, 7, 100, None),
    ),
]  # fmt: skip


@pytest.mark.parametrize(("reference", "usage", "expected"), VENDOR_RECORDS)
def test_vendor_records_report_their_cache_counts(
    reference: str, usage: dict[str, Any], expected: tuple[Any, ...]
) -> None:
    cls = _vendor_endpoint(reference)
    endpoint = cls.__new__(cls)  # token_counts reads only its argument
    counts = endpoint.token_counts(usage)
    assert (*counts, counts.cache_read, counts.cache_creation) == expected

"""Telemetry's token counts of an AG2 beta run: input with its cache, output with its thoughts.

AG2's beta ``Usage`` (``autogen.beta.events.Usage``) names its cache counts as Anthropic does
(``cache_read_input_tokens``, ``cache_creation_input_tokens``) and its input ``prompt_tokens``.
The default reading took the cache field names for Anthropic's record, found no
``input_tokens`` and reported the cache counts alone as the input: 100 instead of 125 for an
OpenAI answer with 100 of 125 prompt tokens cached. The input is ``prompt_tokens``.

AG2's mappers pass each vendor's counts on as the vendor means them: Anthropic's and Bedrock's
input leaves out the cache reads and writes (input 5 for a prompt of 125 tokens, 100 read and
20 written), and Gemini's ``completion_tokens`` leaves out the thoughts it bills as output
(``thinking_tokens``). The adapter reported those as they came, an input of 5 beside a cache
read of 100. Each ``ModelResponse`` names its client (``provider``), so the projector completes
each response's counts before summing them.

Each ``Usage`` here is the one AG2's own vendor mappers build from a vendor's usage record (the
last test checks that against the mappers, where the vendors' SDKs are installed: they are AG2
extras, not this package's dependencies), and the run goes through the in-process path
(``iModel.stream`` of an ``AG2BetaEndpoint`` whose model is a reply function; the beta endpoint
is stream-only).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from ag2_fakes import ReplyConfig, add
from autogen.beta import Agent, Context
from autogen.beta.events import (
    ModelMessage,
    ModelResponse,
    ToolCallEvent,
    ToolCallsEvent,
    Usage,
)

from lionagi.providers.ag2 import AG2BetaEndpoint
from lionagi.service import iModel
from lionagi.service.agentic import TokenCounts
from lionagi.service.telemetry import instrument, uninstrument

pytestmark = pytest.mark.anyio

# OpenAI chat: 125 prompt tokens, 100 of them read from the prompt cache (inside the 125).
OPENAI_RECORD = {
    "prompt_tokens": 125,
    "completion_tokens": 7,
    "total_tokens": 132,
    "prompt_tokens_details": {"cached_tokens": 100},
}
OPENAI = Usage(
    prompt_tokens=125, completion_tokens=7, total_tokens=132, cache_read_input_tokens=100
)
# Anthropic Messages: reads and writes reported apart from input_tokens (125 prompt tokens).
ANTHROPIC_RECORD = {
    "input_tokens": 5,
    "cache_read_input_tokens": 100,
    "cache_creation_input_tokens": 20,
    "output_tokens": 7,
}
ANTHROPIC = Usage(
    prompt_tokens=5.0,
    completion_tokens=7.0,
    total_tokens=12.0,
    cache_read_input_tokens=100.0,
    cache_creation_input_tokens=20.0,
)
# Bedrock Converse: inputTokens leaves the cache out as Anthropic's does; totalTokens has it.
BEDROCK_RECORD = {
    "inputTokens": 5,
    "outputTokens": 7,
    "totalTokens": 132,
    "cacheReadInputTokens": 100,
    "cacheWriteInputTokens": 20,
}
BEDROCK = Usage(
    prompt_tokens=5.0,
    completion_tokens=7.0,
    total_tokens=132.0,
    cache_read_input_tokens=100.0,
    cache_creation_input_tokens=20.0,
)
# Gemini: 40 prompt tokens (10 cached, inside), 7 answer tokens and 25 thoughts (apart).
GEMINI_RECORD = {
    "prompt_token_count": 40,
    "cached_content_token_count": 10,
    "candidates_token_count": 7,
    "thoughts_token_count": 25,
    "total_token_count": 72,
}
GEMINI = Usage(
    prompt_tokens=40.0,
    completion_tokens=7.0,
    total_tokens=72.0,
    cache_read_input_tokens=10.0,
    thinking_tokens=25.0,
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def answering(*usages: Usage, provider: str | None = None) -> ReplyConfig:
    """A model whose turns call ``add`` until the last, which answers; turn n reports usages[n].

    ``provider`` is what AG2's client for that vendor names in each ``ModelResponse``.
    """
    turns = iter(range(len(usages)))

    async def reply(messages: Any, context: Context) -> ModelResponse:
        turn = next(turns)
        if turn < len(usages) - 1:
            call = ToolCallEvent(name="add", arguments='{"a": 2, "b": 3}')
            calls = ToolCallsEvent([call])
            return ModelResponse(tool_calls=calls, usage=usages[turn], provider=provider)
        message = ModelMessage("It is 5.")
        await context.send(message)
        return ModelResponse(message, usage=usages[turn], provider=provider)

    return ReplyConfig(reply)


async def run(
    *usages: Usage, provider: str | None = None
) -> tuple[dict[str, Any], AG2BetaEndpoint]:
    """Stream one run (the beta endpoint is stream-only); its result chunk's usage."""
    config = answering(*usages, provider=provider)
    endpoint = AG2BetaEndpoint(agent=Agent("calc", config=config, tools=[add]))
    model = iModel(endpoint=endpoint)
    try:
        chunks = [chunk async for chunk in model.stream(prompt="2+3?")]
    finally:
        await model.close()
    assert [c.content for c in chunks if c.type == "text"] == ["It is 5."]
    assert chunks[-1].type == "result"
    return chunks[-1].metadata["usage"], endpoint


async def test_openai_cache_read_is_inside_prompt_tokens() -> None:
    usage, endpoint = await run(OPENAI, provider="openai")
    assert usage == {
        "prompt_tokens": 125,
        "completion_tokens": 7,
        "total_tokens": 132,
        "cache_read_input_tokens": 100,
    }
    counts = endpoint.token_counts(usage)
    assert isinstance(counts, TokenCounts)
    assert counts == (125, 7)
    assert (counts.cache_read, counts.cache_creation) == (100, None)


async def test_counts_are_summed_over_the_model_turns() -> None:
    usage, endpoint = await run(OPENAI, OPENAI)
    counts = endpoint.token_counts(usage)
    assert counts == (250, 14)
    assert (getattr(counts, "cache_read", None), getattr(counts, "cache_creation", 0)) == (
        200,
        None,
    )


@pytest.mark.parametrize(("provider", "usage"), [("anthropic", ANTHROPIC), ("bedrock", BEDROCK)])
async def test_anthropic_and_bedrock_input_includes_the_cache(provider: str, usage: Usage) -> None:
    # AG2 passes the vendor's input on as prompt_tokens, the cache left out: 5 of 125.
    record, endpoint = await run(usage, provider=provider)
    assert record["prompt_tokens"] == 125
    assert record["total_tokens"] == 132  # never below its parts (AG2's Anthropic total was 12)
    counts = endpoint.token_counts(record)
    assert counts == (125, 7)
    assert (getattr(counts, "cache_read", None), getattr(counts, "cache_creation", None)) == (
        100,
        20,
    )


async def test_each_anthropic_turn_is_completed_before_the_sum() -> None:
    record, endpoint = await run(ANTHROPIC, ANTHROPIC, provider="anthropic")
    assert endpoint.token_counts(record) == (250, 14)
    assert record["total_tokens"] == 264


async def test_gemini_output_includes_the_thoughts() -> None:
    record, endpoint = await run(GEMINI, provider="google")
    assert record == {
        "prompt_tokens": 40,
        "completion_tokens": 32,  # 7 answer + 25 thought tokens, both billed as output
        "total_tokens": 72,
        "cache_read_input_tokens": 10,
        "thinking_tokens": 25,
    }
    counts = endpoint.token_counts(record)
    assert counts == (40, 32)
    assert getattr(counts, "cache_read", None) == 10


async def test_a_response_naming_no_vendor_is_summed_as_it_is() -> None:
    # A reply function's ModelResponse names no provider: nothing says its counts need adding.
    record, endpoint = await run(ANTHROPIC, GEMINI)
    assert endpoint.token_counts(record) == (45, 14)


def test_usage_without_cache_counts_reports_none() -> None:
    counts = AG2BetaEndpoint(agent=Agent("x")).token_counts(
        {"prompt_tokens": 11, "completion_tokens": 4}
    )
    assert counts == (11, 4)
    assert (getattr(counts, "cache_read", 0), getattr(counts, "cache_creation", 0)) == (None, None)


class Spans:
    def __init__(self) -> None:
        sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
        memory = pytest.importorskip("opentelemetry.sdk.trace.export.in_memory_span_exporter")
        export = pytest.importorskip("opentelemetry.sdk.trace.export")
        self.exporter = memory.InMemorySpanExporter()
        self.provider = sdk_trace.TracerProvider()
        self.provider.add_span_processor(export.SimpleSpanProcessor(self.exporter))

    def root(self) -> Any:
        roots = [span for span in self.exporter.get_finished_spans() if span.parent is None]
        assert len(roots) == 1, [span.name for span in roots]
        return roots[0]


@pytest.fixture
def spans() -> Iterator[Spans]:
    recorder = Spans()
    instrument(tracer_provider=recorder.provider)
    try:
        yield recorder
    finally:
        uninstrument()


async def test_the_call_span_records_prompt_tokens_and_the_cache_read(spans: Spans) -> None:
    await run(OPENAI, provider="openai")
    attributes = spans.root().attributes
    assert attributes["gen_ai.usage.input_tokens"] == 125
    assert attributes["gen_ai.usage.output_tokens"] == 7
    assert attributes["gen_ai.usage.cache_read.input_tokens"] == 100
    assert "gen_ai.usage.cache_creation.input_tokens" not in attributes


async def test_the_call_span_of_an_anthropic_run_counts_the_cache_in_the_input(
    spans: Spans,
) -> None:
    await run(ANTHROPIC, provider="anthropic")
    attributes = spans.root().attributes
    assert attributes["gen_ai.usage.input_tokens"] == 125
    assert attributes["gen_ai.usage.cache_read.input_tokens"] == 100
    assert attributes["gen_ai.usage.cache_creation.input_tokens"] == 20


def test_the_usages_here_are_the_ones_ag2s_mappers_build() -> None:
    # The vendors' SDKs are AG2 extras: absent where only this package's dependencies are.
    pytest.importorskip("openai")
    pytest.importorskip("anthropic")
    from autogen.beta.config.anthropic.mappers import normalize_usage as anthropic_usage
    from autogen.beta.config.openai.mappers import normalize_usage as openai_usage
    from openai.types import CompletionUsage

    assert openai_usage(CompletionUsage.model_validate(OPENAI_RECORD)) == OPENAI
    assert anthropic_usage(ANTHROPIC_RECORD) == ANTHROPIC


def test_the_bedrock_usage_is_the_one_ag2s_mapper_builds() -> None:
    pytest.importorskip("boto3")  # AG2's bedrock package imports its client, which needs it
    from autogen.beta.config.bedrock.mappers import normalize_usage as bedrock_usage

    assert bedrock_usage(BEDROCK_RECORD) == BEDROCK


def test_the_gemini_usage_is_the_one_ag2s_mapper_builds() -> None:
    genai = pytest.importorskip("google.genai")
    from autogen.beta.config.gemini.mappers import normalize_usage as gemini_usage

    metadata = genai.types.GenerateContentResponseUsageMetadata(**GEMINI_RECORD)
    assert gemini_usage(metadata) == GEMINI


ANTHROPIC_MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "It is 5."}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": ANTHROPIC_RECORD,
}
GEMINI_ANSWER = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [{"text": "adding", "thought": True}, {"text": "It is 5."}],
            },
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    "usageMetadata": {
        "promptTokenCount": 40,
        "cachedContentTokenCount": 10,
        "candidatesTokenCount": 7,
        "thoughtsTokenCount": 25,
        "totalTokenCount": 72,
    },
    "modelVersion": "gemini-2.5-flash",
}


async def stream_usage(llm: Any) -> tuple[dict[str, Any], AG2BetaEndpoint]:
    endpoint = AG2BetaEndpoint(agent=Agent("calc", config=llm))
    model = iModel(endpoint=endpoint)
    try:
        chunks = [chunk async for chunk in model.stream(prompt="2+3?")]
    finally:
        await model.close()
    assert "It is 5." in "".join(c.content or "" for c in chunks if c.type == "text")
    assert chunks[-1].type == "result"
    return chunks[-1].metadata["usage"], endpoint


async def test_ag2s_anthropic_client_end_to_end() -> None:
    # AG2's own Anthropic client, its HTTP answered in-process (the SDK is an AG2 extra).
    pytest.importorskip("anthropic")
    httpx = pytest.importorskip("httpx2")  # the transport the installed anthropic SDK uses
    from autogen.beta.config.anthropic.config import AnthropicConfig

    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=ANTHROPIC_MESSAGE))
    client = httpx.AsyncClient(transport=transport)
    llm = AnthropicConfig(model="claude-sonnet-4-5", api_key="k", http_client=client)
    record, endpoint = await stream_usage(llm)
    counts = endpoint.token_counts(record)
    assert counts == (125, 7)
    assert (getattr(counts, "cache_read", None), getattr(counts, "cache_creation", None)) == (
        100,
        20,
    )


async def test_ag2s_gemini_client_end_to_end() -> None:
    pytest.importorskip("google.genai")
    import httpx
    from autogen.beta.config.gemini.config import GeminiConfig

    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=GEMINI_ANSWER))
    client = httpx.AsyncClient(transport=transport)
    llm = GeminiConfig(model="gemini-2.5-flash", api_key="k", http_client=client)
    record, endpoint = await stream_usage(llm)
    assert endpoint.token_counts(record) == (40, 32)

"""Telemetry's token counts of an AG2 beta run: ``prompt_tokens`` is the input, cache beside it.

AG2's beta ``Usage`` (``autogen.beta.events.Usage``) names its cache counts as Anthropic does
(``cache_read_input_tokens``, ``cache_creation_input_tokens``) and its input ``prompt_tokens``.
The default reading took the cache field names for Anthropic's record, found no
``input_tokens`` and reported the cache counts alone as the input: 100 instead of 125 for an
OpenAI answer with 100 of 125 prompt tokens cached. The input is ``prompt_tokens`` as AG2
reports it (and records it, ``gen_ai.usage.input_tokens`` in its own telemetry middleware).

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
# Anthropic Messages: reads and writes reported apart from input_tokens.
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


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def answering(*usages: Usage) -> ReplyConfig:
    """A model whose turns call ``add`` until the last, which answers; turn n reports usages[n]."""
    turns = iter(range(len(usages)))

    async def reply(messages: Any, context: Context) -> ModelResponse:
        turn = next(turns)
        if turn < len(usages) - 1:
            call = ToolCallEvent(name="add", arguments='{"a": 2, "b": 3}')
            return ModelResponse(tool_calls=ToolCallsEvent([call]), usage=usages[turn])
        message = ModelMessage("It is 5.")
        await context.send(message)
        return ModelResponse(message, usage=usages[turn])

    return ReplyConfig(reply)


async def run(*usages: Usage) -> tuple[dict[str, Any], AG2BetaEndpoint]:
    """Stream one run (the beta endpoint is stream-only); its result chunk's usage."""
    endpoint = AG2BetaEndpoint(agent=Agent("calc", config=answering(*usages), tools=[add]))
    model = iModel(endpoint=endpoint)
    try:
        chunks = [chunk async for chunk in model.stream(prompt="2+3?")]
    finally:
        await model.close()
    assert [c.content for c in chunks if c.type == "text"] == ["It is 5."]
    assert chunks[-1].type == "result"
    return chunks[-1].metadata["usage"], endpoint


async def test_openai_cache_read_is_inside_prompt_tokens() -> None:
    usage, endpoint = await run(OPENAI)
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


async def test_anthropic_cache_writes_are_the_cache_creation() -> None:
    # AG2 passes Anthropic's input_tokens on as prompt_tokens, the cache left out; the adapter
    # reports AG2's input as AG2 records it, with both cache counts beside it.
    usage, endpoint = await run(ANTHROPIC)
    counts = endpoint.token_counts(usage)
    assert counts == (5, 7)
    assert (getattr(counts, "cache_read", None), getattr(counts, "cache_creation", None)) == (
        100,
        20,
    )


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
    await run(OPENAI)
    attributes = spans.root().attributes
    assert attributes["gen_ai.usage.input_tokens"] == 125
    assert attributes["gen_ai.usage.output_tokens"] == 7
    assert attributes["gen_ai.usage.cache_read.input_tokens"] == 100
    assert "gen_ai.usage.cache_creation.input_tokens" not in attributes


def test_the_usages_here_are_the_ones_ag2s_mappers_build() -> None:
    # The vendors' SDKs are AG2 extras: absent where only this package's dependencies are.
    pytest.importorskip("openai")
    pytest.importorskip("anthropic")
    from autogen.beta.config.anthropic.mappers import normalize_usage as anthropic_usage
    from autogen.beta.config.openai.mappers import normalize_usage as openai_usage
    from openai.types import CompletionUsage

    assert openai_usage(CompletionUsage.model_validate(OPENAI_RECORD)) == OPENAI
    assert anthropic_usage(ANTHROPIC_RECORD) == ANTHROPIC

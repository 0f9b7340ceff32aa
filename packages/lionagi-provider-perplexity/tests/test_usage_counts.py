"""A deep-research call's reasoning and citation tokens reach telemetry, counted once (loopback).

``sonar-deep-research`` reports, beside the OpenAI counts, ``citation_tokens`` (the search
material the model read, billed as input), ``reasoning_tokens`` (its research-phase reasoning,
billed at a rate of its own), ``num_search_queries`` and a ``cost`` breakdown. Neither token
figure is inside the OpenAI counts: ``total_tokens`` is ``prompt_tokens + completion_tokens``,
and the cost of ``output_tokens_cost`` is the completion count alone at the output rate (the
record below is a real one: 4240 at $8/M is 0.03392, 92431 reasoning tokens at $3/M 0.27729;
92431 could not fit inside a completion count of 4240 anyway). The dialect's reading took the
two counts as they came, so a span reported 4240 output tokens for a call that spent 96671,
and no reasoning count at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from lionagi.service import EventStatus, iModel, match_endpoint
from lionagi.service.telemetry import instrument, uninstrument
from lionagi.service_testing import scripted_stream_server

KEY = "pplx-usage-0123456789abcdef"
MODEL = "sonar-deep-research"
USAGE = {
    "prompt_tokens": 1188,
    "completion_tokens": 4240,
    "total_tokens": 5428,
    "citation_tokens": 8014,
    "num_search_queries": 54,
    "reasoning_tokens": 92431,
    "cost": {
        "input_tokens_cost": 0.00238,
        "output_tokens_cost": 0.03392,
        "citation_tokens_cost": 0.01603,
        "reasoning_tokens_cost": 0.27729,
        "search_queries_cost": 0.27,
        "total_cost": 0.59962,
    },
}
MESSAGE = {"role": "assistant", "content": "The report."}
ANSWER = {
    "id": "r1",
    "object": "chat.completion",
    "model": MODEL,
    "choices": [{"index": 0, "message": MESSAGE, "finish_reason": "stop"}],
    "usage": USAGE,
}
STREAM = [
    {"id": "r1", "model": MODEL, "choices": [{"index": 0, "delta": MESSAGE}]},
    {
        "id": "r1",
        "model": MODEL,
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        "usage": USAGE,
    },
]


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    meter_provider = MeterProvider()
    instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)
    yield exporter
    uninstrument()
    tracer_provider.shutdown()
    meter_provider.shutdown()


def root_attributes(spans: InMemorySpanExporter) -> dict[str, Any]:
    (root,) = [s for s in spans.get_finished_spans() if s.parent is None]
    return dict(root.attributes or {})


def test_the_counts_add_citations_to_input_and_reasoning_to_output() -> None:
    counts: Any = match_endpoint("perplexity", "chat", api_key=KEY).token_counts(USAGE)
    assert counts == (1188 + 8014, 4240 + 92431)
    assert (counts.cache_read, counts.cache_creation, counts.reasoning) == (None, None, 92431)


def test_a_record_without_the_research_figures_reads_as_the_dialects() -> None:
    counts: Any = match_endpoint("perplexity", "chat", api_key=KEY).token_counts(
        {"prompt_tokens": 6, "completion_tokens": 238, "total_tokens": 244}
    )
    assert counts == (6, 238)
    assert counts.reasoning is None


async def test_an_invoke_span_records_reasoning_and_citation_tokens(
    spans: InMemorySpanExporter,
) -> None:
    writes = [json.dumps(ANSWER).encode()]
    async with (
        scripted_stream_server(writes, content_type="application/json") as server,
        iModel(
            model=f"perplexity/{MODEL}", api_key=KEY, base_url=server.url, allow_local_network=True
        ) as model,
    ):
        call = await model.invoke(messages=[{"role": "user", "content": "Research X."}])
    assert call.status is EventStatus.COMPLETED, call.exception
    assert call.execution.response["usage"] == USAGE  # every figure kept as sent, cost included
    attrs = root_attributes(spans)
    assert attrs["gen_ai.usage.input_tokens"] == 9202
    assert attrs["gen_ai.usage.output_tokens"] == 96671
    assert attrs["gen_ai.usage.reasoning.output_tokens"] == 92431


async def test_a_stream_keeps_the_figures_on_its_result_and_its_span(
    spans: InMemorySpanExporter,
) -> None:
    writes = [b"data: " + json.dumps(e).encode() + b"\n\n" for e in STREAM]
    async with (
        scripted_stream_server([*writes, b"data: [DONE]\n\n"], path="") as server,
        iModel(
            model=f"perplexity/{MODEL}", api_key=KEY, base_url=server.url, allow_local_network=True
        ) as model,
    ):
        chunks = [c async for c in model.stream(messages=[{"role": "user", "content": "X?"}])]
    [result] = [c for c in chunks if c.type == "result"]
    assert result.metadata["usage"] == USAGE
    attrs = root_attributes(spans)
    assert attrs["gen_ai.usage.input_tokens"] == 9202
    assert attrs["gen_ai.usage.output_tokens"] == 96671
    assert attrs["gen_ai.usage.reasoning.output_tokens"] == 92431

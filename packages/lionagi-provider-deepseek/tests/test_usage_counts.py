"""A DeepSeek call's reasoning tokens reach telemetry beside its context-cache hits (loopback).

DeepSeek's usage record names its cache hits ``prompt_cache_hit_tokens`` and, for a thinking
model, counts the chain of thought in ``completion_tokens_details.reasoning_tokens`` (inside
``completion_tokens``, as OpenAI's record does). The endpoint's count of the cache hits rebuilt
the counts without the reasoning figure, so every DeepSeek span lacked
``gen_ai.usage.reasoning.output_tokens``: a usage record always has the cache fields.
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

KEY = "k-deepseek-usage-0123456789abcdef"
USAGE = {
    "prompt_tokens": 20,
    "completion_tokens": 50,
    "total_tokens": 70,
    "prompt_cache_hit_tokens": 12,
    "prompt_cache_miss_tokens": 8,
    "completion_tokens_details": {"reasoning_tokens": 40},
}
ANSWER = {
    "id": "c1",
    "object": "chat.completion",
    "model": "deepseek-reasoner",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "9.9", "reasoning_content": "9.11 < 9.9"},
            "finish_reason": "stop",
        }
    ],
    "usage": USAGE,
}


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


def test_the_counts_keep_reasoning_beside_the_cache_hits() -> None:
    counts: Any = match_endpoint("deepseek", "chat", api_key=KEY).token_counts(USAGE)
    assert counts == (20, 50)
    assert (counts.cache_read, counts.cache_creation, counts.reasoning) == (12, None, 40)


async def test_an_invoke_span_records_the_reasoning_tokens(spans: InMemorySpanExporter) -> None:
    writes = [json.dumps(ANSWER).encode()]
    async with (
        scripted_stream_server(writes, content_type="application/json") as server,
        iModel(
            model="deepseek/deepseek-reasoner",
            api_key=KEY,
            base_url=server.url,
            allow_local_network=True,
        ) as model,
    ):
        call = await model.invoke(messages=[{"role": "user", "content": "9.11 or 9.9?"}])
    assert call.status is EventStatus.COMPLETED, call.exception
    (root,) = [s for s in spans.get_finished_spans() if s.parent is None]
    attrs = dict(root.attributes or {})
    assert attrs["gen_ai.usage.input_tokens"] == 20
    assert attrs["gen_ai.usage.output_tokens"] == 50
    assert attrs["gen_ai.usage.cache_read.input_tokens"] == 12
    assert attrs["gen_ai.usage.reasoning.output_tokens"] == 40

"""A one-shot Responses answer's finish reason reaches telemetry as its stream's does (loopback).

A Responses object says why it stopped in ``status`` (and, when ``incomplete``, in
``incomplete_details.reason``), not in ``choices[].finish_reason``: an ``invoke()`` span
recorded no ``gen_ai.response.finish_reasons``, while the same answer streamed recorded the
result chunk's (``completed``, ``max_output_tokens``, ``content_filter``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from openai_loopback import JSON, served
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from lionagi.service import EventStatus
from lionagi.service.telemetry import instrument, uninstrument

KEY = "sk-responses-telemetry-0123456789"
USAGE = {"input_tokens": 3, "output_tokens": 1, "total_tokens": 4}
MESSAGE = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "hi", "annotations": []}],
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


def _response(status: str, reason: str | None) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "model": "gpt-5-2025-08-07",
        "status": status,
        "incomplete_details": {"reason": reason} if reason else None,
        "error": None,
        "output": [MESSAGE],
        "usage": USAGE,
    }


async def _invoked(spans: InMemorySpanExporter, body: dict[str, Any]) -> Any:
    """``body`` answered one-shot; the root span's finish reasons."""
    writes = [json.dumps(body).encode()]
    async with served(writes, api_key=KEY, endpoint="responses", content_type=JSON) as (_, m):
        call = await m.invoke(input="hi")
    assert call.status is EventStatus.COMPLETED, call.exception
    (root,) = [s for s in spans.get_finished_spans() if s.parent is None]
    attrs = dict(root.attributes or {})
    assert attrs.get("gen_ai.response.model") == "gpt-5-2025-08-07"
    return attrs.get("gen_ai.response.finish_reasons")


@pytest.mark.parametrize(
    ("status", "reason", "expected"),
    [
        ("completed", None, "completed"),
        ("incomplete", "max_output_tokens", "max_output_tokens"),
        ("incomplete", "content_filter", "content_filter"),
    ],
)
async def test_the_finish_reason_is_recorded_one_shot_as_streamed(
    spans: InMemorySpanExporter, status: str, reason: str | None, expected: str
) -> None:
    # ``expected`` is what the stream's result chunk says for the same response object.
    assert await _invoked(spans, _response(status, reason)) == (expected,)

"""Telemetry's token counts of a Gemini CLI run carry its context-cache reads.

The stream-json ``result`` event's ``stats`` (gemini-cli ``StreamStats``) hold ``input_tokens``
(Gemini's ``promptTokenCount`` summed over the run's requests), ``cached`` (the summed
``cachedContentTokenCount``, a "breakdown of input_tokens") and ``input`` (the difference).
The projection keeps ``cached`` as ``usage["cached_tokens"]``; before, the endpoint's
``token_counts`` never read it, so no cache count reached the call span. Gemini reports no cache
writes, so ``cache_creation`` stays None.

Each run is a real subprocess (the replay fake CLI) replaying the captured events of
gemini-cli 0.61 against a fake model server, through ``iModel.invoke``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.gemini_cli import GeminiCodeEndpoint
from lionagi.service import EventStatus, iModel
from lionagi.service.agentic import TokenCounts
from lionagi.service.telemetry import instrument, uninstrument
from lionagi.service_testing.conformance import replay_argv

pytestmark = pytest.mark.anyio

CAPTURE = Path(__file__).parent / "captures" / "gemini-fake-text.stdout"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def captured(**stats: Any) -> list[dict[str, Any]]:
    """The captured text run, its result's stats changed by ``stats``."""
    events = [json.loads(line) for line in CAPTURE.read_text(encoding="utf-8").splitlines()]
    assert events[-1]["type"] == "result"
    events[-1]["stats"] = {**events[-1]["stats"], **stats}
    return events


async def invoke(tmp_path: Path, events: list[dict[str, Any]]) -> tuple[Any, GeminiCodeEndpoint]:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": events}), encoding="utf-8")
    endpoint = GeminiCodeEndpoint(argv=replay_argv(plan))
    try:
        call = await iModel(endpoint=endpoint).invoke(prompt="say hi")
    finally:
        await endpoint.aclose()
    assert call.status is EventStatus.COMPLETED, call.execution.error
    return call, endpoint


async def test_cached_tokens_are_the_cache_read_inside_the_input(tmp_path: Path) -> None:
    # The numbers of gemini-cli's own "aggregate cached token counts" test: 50 prompt, 30 cached.
    call, endpoint = await invoke(
        tmp_path, captured(input_tokens=50, cached=30, input=20, total_tokens=57)
    )
    usage = call.execution.response["usage"]
    assert usage == {
        "input_tokens": 50,
        "output_tokens": 7,
        "total_tokens": 57,
        "cached_tokens": 30,
    }
    counts = endpoint.token_counts(usage)
    assert isinstance(counts, TokenCounts)
    assert counts == (50, 7)  # the input already includes the cached part: not added again
    assert (counts.cache_read, counts.cache_creation) == (30, None)


async def test_the_captured_run_reports_zero_cached_tokens(tmp_path: Path) -> None:
    # The capture as the real CLI wrote it: ``cached: 0`` is a count (nothing was cached).
    call, endpoint = await invoke(tmp_path, captured())
    counts = endpoint.token_counts(call.execution.response["usage"])
    assert counts == (42, 7)
    assert (getattr(counts, "cache_read", None), getattr(counts, "cache_creation", 0)) == (0, None)


def test_stats_without_cached_report_no_cache_count() -> None:
    counts = GeminiCodeEndpoint().token_counts({"input_tokens": 42, "output_tokens": 7})
    assert counts == (42, 7)
    assert getattr(counts, "cache_read", 0) is None


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


async def test_the_call_span_records_the_cache_read(tmp_path: Path, spans: Spans) -> None:
    await invoke(tmp_path, captured(input_tokens=50, cached=30, input=20, total_tokens=57))
    attributes = spans.root().attributes
    assert attributes["gen_ai.usage.input_tokens"] == 50
    assert attributes["gen_ai.usage.output_tokens"] == 7
    assert attributes["gen_ai.usage.cache_read.input_tokens"] == 30
    assert "gen_ai.usage.cache_creation.input_tokens" not in attributes

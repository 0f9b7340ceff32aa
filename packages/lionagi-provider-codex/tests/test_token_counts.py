"""A codex run's token counts carry its cache reads and writes and its reasoning tokens.

``codex exec --json`` ends a turn with ``turn.completed {usage}`` in codex's own spelling of the
Responses API's totals: ``input_tokens`` (the cached part included, broken out as
``cached_input_tokens`` and ``cache_write_input_tokens``) and ``output_tokens`` (the reasoning
included, broken out as ``reasoning_output_tokens``). Core's reader knows the OpenAI and
Anthropic spellings only, so before the endpoint read these itself a warm cache and a reasoning
model's thinking never reached telemetry. Each run is a real subprocess (the replay fake CLI)
replaying the captured events of a real codex run, through ``iModel.invoke``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.codex import CodexCliEndpoint
from lionagi.service import EventStatus, iModel
from lionagi.service.agentic import TokenCounts
from lionagi.service_testing.conformance import replay_argv

pytestmark = pytest.mark.anyio

CAPTURE = Path(__file__).parent / "captures" / "codex-text.jsonl"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def captured(**usage: int) -> list[dict[str, Any]]:
    """The captured text run, its turn's usage changed by ``usage``."""
    events = [json.loads(line) for line in CAPTURE.read_text(encoding="utf-8").splitlines()]
    assert events[-1]["type"] == "turn.completed"
    events[-1]["usage"] = {**events[-1]["usage"], **usage}
    return events


async def counts_of(tmp_path: Path, events: list[dict[str, Any]]) -> TokenCounts:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": events}), encoding="utf-8")
    endpoint = CodexCliEndpoint(argv=replay_argv(plan))
    try:
        call = await iModel(endpoint=endpoint).invoke(prompt="say hi")
    finally:
        await endpoint.aclose()
    assert call.status is EventStatus.COMPLETED, call.execution.error
    counts = endpoint.token_counts(call.execution.response["usage"])
    assert isinstance(counts, TokenCounts)
    return counts


async def test_cache_and_reasoning_are_reported_inside_input_and_output(tmp_path: Path) -> None:
    counts = await counts_of(
        tmp_path,
        captured(
            input_tokens=1200,
            cached_input_tokens=1024,
            cache_write_input_tokens=64,
            output_tokens=300,
            reasoning_output_tokens=256,
        ),
    )
    assert counts == (1200, 300)  # already inclusive: nothing is added again
    assert (counts.cache_read, counts.cache_creation, counts.reasoning) == (1024, 64, 256)


async def test_the_captured_zeros_are_counts(tmp_path: Path) -> None:
    # The capture as the real CLI wrote it: 0 is a count (nothing cached, no thinking).
    counts = await counts_of(tmp_path, captured())
    assert counts == (42, 7)
    assert (counts.cache_read, counts.cache_creation, counts.reasoning) == (0, 0, 0)


async def test_an_older_codex_without_the_breakdown_reports_none(tmp_path: Path) -> None:
    events = captured()
    events[-1]["usage"] = {"input_tokens": 42, "output_tokens": 7}
    counts = await counts_of(tmp_path, events)
    assert counts == (42, 7)
    assert (counts.cache_read, counts.cache_creation, counts.reasoning) == (None, None, None)

"""A thinking model's thoughts are output tokens in a Gemini CLI run's telemetry.

Gemini reports a turn's thoughts (``thoughtsTokenCount``) apart from its answer
(``candidatesTokenCount``) and bills both as output. gemini-cli 0.61's stream-json ``stats``
sum the answer counts as ``output_tokens`` and the ``totalTokenCount`` as ``total_tokens``, and
have no field for the thoughts (its ``json`` format shows them as ``tokens.thoughts``): they are
only in the total. The endpoint's ``token_counts`` read ``output_tokens`` and so left them out,
7 output tokens reported for a turn billed 32.

``CAPTURE`` is what the real CLI printed for such a turn (the server below; see
``captures/README.md``); the replay runs go through ``iModel`` with the replay fake CLI, and the
real-tier test drives the pinned ``gemini`` itself against the same server.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.gemini_cli import GeminiCodeEndpoint
from lionagi.service import EventStatus, iModel
from lionagi.service.agentic import TokenCounts
from lionagi.service.telemetry import instrument, uninstrument
from lionagi.service_testing import serving
from lionagi.service_testing.conformance import replay_argv
from lionagi.service_testing.real_clis import require_real_cli
from lionagi.service_testing.real_tier import isolated_model

pytestmark = pytest.mark.anyio

CAPTURE = Path(__file__).parent / "captures" / "gemini-fake-thinking-usage.stdout"
USAGE_METADATA = {
    "promptTokenCount": 40,
    "cachedContentTokenCount": 10,
    "thoughtsTokenCount": 25,
    "candidatesTokenCount": 7,
    "totalTokenCount": 72,
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def captured() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CAPTURE.read_text(encoding="utf-8").splitlines()]


async def invoke(tmp_path: Path, events: list[dict[str, Any]]) -> tuple[Any, GeminiCodeEndpoint]:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": events}), encoding="utf-8")
    endpoint = GeminiCodeEndpoint(argv=replay_argv(plan))
    try:
        call = await iModel(endpoint=endpoint).invoke(prompt="THINK say hi")
    finally:
        await endpoint.aclose()
    assert call.status is EventStatus.COMPLETED, call.execution.error
    return call, endpoint


async def test_the_thoughts_in_the_total_are_output(tmp_path: Path) -> None:
    call, endpoint = await invoke(tmp_path, captured())
    usage = call.execution.response["usage"]
    # The CLI's own record, kept as it wrote it: output_tokens is the answer alone.
    assert usage == {
        "input_tokens": 40,
        "output_tokens": 7,
        "total_tokens": 72,
        "cached_tokens": 10,
    }
    counts = endpoint.token_counts(usage)
    assert isinstance(counts, TokenCounts)
    assert (counts.cache_read, counts.cache_creation, counts.reasoning) == (10, None, 25)
    assert counts == (40, 32)  # 7 answer + 25 thought tokens


def test_a_total_smaller_than_its_parts_keeps_output_tokens() -> None:
    endpoint = GeminiCodeEndpoint()
    counts = endpoint.token_counts({"input_tokens": 40, "output_tokens": 7, "total_tokens": 45})
    assert counts == (40, 7)
    assert getattr(counts, "reasoning", 0) is None
    no_total = endpoint.token_counts({"input_tokens": 40, "output_tokens": 7})
    assert no_total == (40, 7)
    assert getattr(no_total, "reasoning", 0) is None


def test_a_turn_without_thoughts_reports_no_more_output() -> None:
    counts = GeminiCodeEndpoint().token_counts(
        {"input_tokens": 42, "output_tokens": 7, "total_tokens": 49, "cached_tokens": 0}
    )
    assert counts == (42, 7)
    assert getattr(counts, "reasoning", None) == 0


async def test_the_call_span_records_the_thoughts_as_output(tmp_path: Path) -> None:
    sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
    memory = pytest.importorskip("opentelemetry.sdk.trace.export.in_memory_span_exporter")
    export = pytest.importorskip("opentelemetry.sdk.trace.export")
    exporter = memory.InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(export.SimpleSpanProcessor(exporter))
    instrument(tracer_provider=provider)
    try:
        await invoke(tmp_path, captured())
    finally:
        uninstrument()
    (root,) = [span for span in exporter.get_finished_spans() if span.parent is None]
    assert root.attributes["gen_ai.usage.input_tokens"] == 40
    assert root.attributes["gen_ai.usage.output_tokens"] == 32


class _ThinkingGemini(BaseHTTPRequestHandler):
    """``streamGenerateContent?alt=sse``: one thought, then the answer with the usage."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        thought = {"content": {"role": "model", "parts": [{"text": "hm", "thought": True}]}}
        answer = {"content": {"role": "model", "parts": [{"text": "Hello."}]}}
        chunks = [
            {"candidates": [{**thought, "index": 0}]},
            {
                "candidates": [{**answer, "index": 0, "finishReason": "STOP"}],
                "usageMetadata": USAGE_METADATA,
                "modelVersion": "gemini-2.5-flash",
            },
        ]
        body = "".join(f"data: {json.dumps(chunk)}\r\n\r\n" for chunk in chunks).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def thinking_server() -> Iterator[str]:
    with serving(_ThinkingGemini) as url:
        yield url


@pytest.mark.real_cli
@pytest.mark.timeout(240)
async def test_the_real_cli_leaves_the_thoughts_out_of_output_tokens(
    thinking_server: str, real_cli_marker: str
) -> None:
    gemini = require_real_cli("gemini")
    model = isolated_model(
        "gemini-cli", gemini, thinking_server, real_cli_marker, api_key="fake-gemini-key"
    )
    async with model:
        call = await model.invoke(prompt="say hi", timeout=90.0)
        assert call.exception is None, repr(call.exception)
        usage = call.execution.response["usage"]
        assert usage["output_tokens"] == 7  # if a later CLI adds the thoughts, this shows it
        assert usage["total_tokens"] == 72
        counts = model.endpoint.token_counts(usage)
    assert counts == (40, 32)
    assert getattr(counts, "reasoning", None) == 25

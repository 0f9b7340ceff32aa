"""Spans, events and metrics of iModel calls, read back from the SDK's in-memory exporters.

Every call runs over real loopback HTTP to the fake provider server. Retry waits go through an
injected sleep that only records the delay, so nothing here waits on a timer.
"""

from __future__ import annotations

from typing import Any

import anyio.lowlevel
import pytest
from opentelemetry.trace import SpanKind, StatusCode

from lionagi.service import CircuitOpenError, CircuitPolicy, EventStatus

pytestmark = pytest.mark.anyio


class RecordingSleep:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await anyio.lowlevel.checkpoint()


def children_of(otel: Any, parent: Any) -> list[str]:
    return sorted(
        s.name
        for s in otel.spans()
        if s.parent is not None and s.parent.span_id == parent.context.span_id
    )


def all_text(otel: Any) -> str:
    """Every attribute and event value recorded, as one string (for leak checks)."""
    parts: list[str] = []
    for span in otel.spans():
        parts.extend(f"{k}={v}" for k, v in (span.attributes or {}).items())
        for event in span.events:
            parts.append(event.name)
            parts.extend(f"{k}={v}" for k, v in (event.attributes or {}).items())
    return "\n".join(parts)


async def test_invoke_is_one_client_span_with_admission_and_attempt_children(
    otel, server, http, chat
):
    otel.on()
    model = http(server)
    call = await model.invoke(**chat)
    assert call.status is EventStatus.COMPLETED

    root = otel.root()
    assert root.name == "chat fake-model"
    assert root.kind is SpanKind.CLIENT
    attrs = dict(root.attributes or {})
    assert attrs["gen_ai.operation.name"] == "chat"
    assert attrs["gen_ai.provider.name"] == "fakeopenai"
    assert attrs["gen_ai.system"] == "fakeopenai"
    assert attrs["gen_ai.request.model"] == "fake-model"
    assert isinstance(attrs["gen_ai.response.model"], str)
    assert attrs["gen_ai.usage.input_tokens"] > 0
    assert attrs["gen_ai.usage.output_tokens"] > 0
    assert attrs["gen_ai.response.finish_reasons"] == ("stop",)
    assert attrs["lionagi.call.status"] == "completed"
    assert "error.type" not in attrs
    assert children_of(otel, root) == ["admission", "attempt"]

    metrics = otel.metrics()
    (duration,) = metrics["gen_ai.client.operation.duration"]
    assert duration.count == 1
    assert duration.attributes["gen_ai.operation.name"] == "chat"
    kinds = {p.attributes["gen_ai.token.type"] for p in metrics["gen_ai.client.token.usage"]}
    assert kinds == {"input", "output"}
    (wait,) = metrics["lionagi.service.admission.wait.duration"]
    assert wait.count == 1
    (depth,) = metrics["lionagi.service.admission.queue.depth"]
    assert depth.value == 0  # entered and left the queue


async def test_stream_has_a_stream_child_and_time_to_first_chunk(otel, server, http, chat):
    otel.on()
    model = http(server, then="text+usage")
    chunks = [c async for c in model.stream(**chat)]

    root = otel.root()
    assert children_of(otel, root) == ["admission", "attempt", "stream"]
    (stream,) = otel.named("stream")
    assert stream.attributes["lionagi.stream.chunks"] == len(chunks)
    attrs = dict(root.attributes or {})
    assert attrs["lionagi.call.stream"] is True
    assert attrs["gen_ai.usage.output_tokens"] > 0
    assert attrs["gen_ai.response.finish_reasons"] == ("stop",)
    (first,) = otel.metrics()["gen_ai.client.operation.time_to_first_chunk"]
    assert first.count == 1


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_a_retry_after_429_is_two_attempts_and_two_events(otel, server, http, chat, mode):
    otel.on()
    sleep = RecordingSleep()
    plan = [{"x-fake-behaviour": "429", "x-fake-retry-after": "2"}]
    model = http(server, plan=plan, attempts=2, sleep=sleep)
    if mode == "invoke":
        assert (await model.invoke(**chat)).status is EventStatus.COMPLETED
    else:
        assert [c async for c in model.stream(**chat)]
    assert sleep.delays == [2.0]

    root = otel.root()
    attempts = sorted(otel.named("attempt"), key=lambda s: s.attributes["lionagi.attempt.number"])
    assert [a.attributes["lionagi.attempt.number"] for a in attempts] == [1, 2]
    assert attempts[0].attributes["error.type"] == "ProviderRateLimitError"
    assert attempts[0].status.status_code is StatusCode.ERROR
    assert "error.type" not in attempts[1].attributes
    assert all(a.parent.span_id == root.context.span_id for a in attempts)
    events = {e.name: dict(e.attributes or {}) for e in root.events}
    assert events["lionagi.retry_after"] == {
        "lionagi.retry_after.seconds": 2.0,
        "lionagi.retry_after.honored": True,
        "error.type": "ProviderRateLimitError",
    }
    assert events["lionagi.retry"]["lionagi.retry.delay"] == 2.0
    assert events["lionagi.retry"]["lionagi.attempt.number"] == 1


async def test_a_failed_call_records_error_type_on_span_and_metric(otel, server, http, chat):
    otel.on()
    model = http(server, plan=["401"])
    call = await model.invoke(**chat)
    assert call.status is EventStatus.FAILED

    root = otel.root()
    assert root.attributes["error.type"] == "ProviderUnauthorizedError"
    assert root.attributes["lionagi.call.status"] == "failed"
    assert root.status.status_code is StatusCode.ERROR
    (duration,) = otel.metrics()["gen_ai.client.operation.duration"]
    assert duration.attributes["error.type"] == "ProviderUnauthorizedError"
    assert "sk-test" not in all_text(otel)


async def test_circuit_open_transition_and_refusal_are_events(otel, server, http, chat):
    otel.on()
    model = http(
        server, plan=["503"], circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=60)
    )
    assert (await model.invoke(**chat)).status is EventStatus.FAILED
    refused = await model.invoke(**chat)
    assert isinstance(refused.exception, CircuitOpenError)

    first, second = sorted(
        (s for s in otel.spans() if s.parent is None), key=lambda s: s.start_time or 0
    )
    transitions = [dict(e.attributes or {}) for e in first.events if "circuit" in e.name]
    assert transitions == [{"lionagi.circuit.from": "closed", "lionagi.circuit.to": "open"}]
    assert [e.name for e in second.events] == ["lionagi.circuit.open"]
    assert second.attributes["error.type"] == "CircuitOpenError"
    assert children_of(otel, second) == ["admission"]  # no attempt was made


async def test_a_cancelled_stream_ends_every_span(otel, server, http, chat):
    otel.on()
    model = http(server, then={"x-fake-behaviour": "text", "x-fake-chunks": "20"})
    stream = model.stream(**chat)
    first = await stream.__anext__()
    assert first is not None
    await stream.aclose()

    root = otel.root()  # exported, so ended
    assert root.attributes["lionagi.call.status"] == "cancelled"
    assert root.status.status_code is not StatusCode.ERROR
    assert children_of(otel, root) == ["admission", "attempt", "stream"]
    (stream_span,) = otel.named("stream")
    assert stream_span.end_time is not None


async def test_no_content_is_recorded_by_default(otel, server, http, chat):
    otel.on()
    model = http(server, then={"x-fake-behaviour": "text", "x-fake-text": "ANSWERMARK"})
    await model.invoke(**chat)
    [c async for c in model.stream(**chat)]

    text = all_text(otel)
    assert "PROMPTMARK" not in text
    assert "ANSWERMARK" not in text
    assert "sk-test" not in text
    assert "gen_ai.input.messages" not in text


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_content_is_recorded_only_when_opted_in(otel, server, http, chat, mode):
    otel.on(capture_content=True)
    model = http(server, then={"x-fake-behaviour": "text", "x-fake-text": "ANSWERMARK"})
    if mode == "invoke":
        await model.invoke(**chat)
    else:
        [c async for c in model.stream(**chat)]

    attrs = dict(otel.root().attributes or {})
    assert "PROMPTMARK" in attrs["gen_ai.input.messages"]
    assert "ANSWERMARK" in attrs["gen_ai.output.messages"]
    assert "sk-test" not in all_text(otel)  # headers and keys never, even with content on


async def test_content_capture_reads_the_genai_environment_switch(
    otel, server, http, chat, monkeypatch
):
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    otel.on()
    await http(server).invoke(**chat)
    assert "PROMPTMARK" in otel.root().attributes["gen_ai.input.messages"]


async def test_nothing_is_recorded_until_instrument_is_called(otel, server, http, chat):
    # A provider exists, but instrument() was never called: explicit opt-in.
    await http(server).invoke(**chat)
    assert otel.spans() == []
    assert otel.metrics() == {}


async def test_a_stream_of_several_choices_records_each_finish_reason(otel):
    """`n` > 1: the span lists every choice's reason in index order, as for a one-shot body
    (the stream's result used to carry only the reason of the choice that finished last)."""
    import json

    from lionagi.service import iModel
    from lionagi.service_testing import scripted_stream_server

    def frame(choices: list[dict[str, Any]]) -> bytes:
        return b"data: " + json.dumps({"model": "m", "choices": choices}).encode() + b"\n\n"

    writes = [
        frame([{"index": 0, "delta": {"content": "a"}}, {"index": 1, "delta": {"content": "b"}}]),
        frame([{"index": 1, "delta": {}, "finish_reason": "stop"}]),
        frame([{"index": 0, "delta": {}, "finish_reason": "length"}]),
        b"data: [DONE]\n\n",
    ]
    otel.on()
    async with (
        scripted_stream_server(writes) as server,
        iModel(
            provider="choices",
            endpoint="chat/completions",
            openai_compatible=True,
            base_url=server.url,
            api_key="sk-choices-0123456789",
            allow_local_network=True,
        ) as model,
    ):
        chunks = [c async for c in model.stream(model="m", messages=[], n=2)]
    (result,) = [c for c in chunks if c.type == "result"]
    assert result.metadata["finish_reason"] == "length"
    attrs = dict(otel.root().attributes or {})
    assert attrs["gen_ai.response.finish_reasons"] == ("length", "stop")

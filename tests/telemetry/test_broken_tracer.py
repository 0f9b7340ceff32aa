"""A broken tracer, span, meter or context never fails or changes a call.

The application's telemetry raises at one chosen step; the call must end exactly as the same
call does without telemetry (status, result, chunks, exception), log one warning, release its
admission permit (the next call, with ``concurrency_limit=1``, proceeds), leave no context
attached and end every span it opened.

Failures are injected where an application's telemetry really raises:

- span start and end: a ``SpanProcessor`` whose ``on_start``/``on_end`` raises, on the real SDK
  ``TracerProvider`` (the SDK calls processors without catching, so the raise reaches
  ``start_span``/``end()``);
- events, attributes and status: a wrapping tracer provider whose spans (real SDK spans behind a
  proxy) raise from ``add_event``/``set_attribute``/``set_status``;
- metrics: a wrapping meter provider whose instruments (real SDK instruments behind a proxy)
  raise from ``record``/``add``;
- the attempt's context: a runtime context whose ``attach`` raises;
- the per-chunk path, which calls no OpenTelemetry object: its own bookkeeping raising (at the
  result chunk; the stream then still reads its end and runs its post-invocation step).

HTTP calls run over real loopback to the fake provider server (a fresh server per run, so the
baseline and the instrumented run see the same response ids); agentic calls on the scripted
provider. Retry waits go through an injected sleep, so nothing waits on a timer.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from opentelemetry import context as otel_context
from opentelemetry import trace as trace_api
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor

from lionagi.service import CircuitPolicy, EventStatus, iModel
from lionagi.service._lifecycle import telemetry as lifecycle_telemetry
from lionagi.service.telemetry import instrument, uninstrument
from lionagi.service_testing import FakeProviderServer

pytestmark = pytest.mark.anyio

ROOT = "call"  # the name the faults give the call span (its real name is "{operation} {model}")


class InjectedFault(RuntimeError):
    """What the application's telemetry raises."""


@dataclass(frozen=True)
class Fault:
    """Where the application's telemetry raises (every time the step is reached)."""

    on_start: str | None = None  # span name whose SpanProcessor.on_start raises
    on_end: str | None = None  # span name whose SpanProcessor.on_end raises
    span_method: tuple[str, str, str | None] | None = None  # (span, method, first argument)
    instrument: str | None = None  # metric instrument whose record/add raises
    attach: bool = False  # the runtime context's attach raises
    chunk: bool = False  # the per-chunk bookkeeping raises


def _span_key(span: Any) -> str:
    return ROOT if span.parent is None else str(span.name)


class FaultyProcessor(SpanProcessor):
    """Raises from ``on_start``/``on_end`` for the chosen span; tracks the spans still open."""

    def __init__(self, fault: Fault) -> None:
        self.fault = fault
        self.open: dict[int, str] = {}

    def on_start(self, span: Span, parent_context: Any = None) -> None:
        key = _span_key(span)
        if key == self.fault.on_start:
            raise InjectedFault(f"on_start of {key}")
        self.open[span.context.span_id] = key

    def on_end(self, span: ReadableSpan) -> None:
        key = _span_key(span)
        assert span.context is not None
        self.open.pop(span.context.span_id, None)
        if key == self.fault.on_end:
            raise InjectedFault(f"on_end of {key}")


class FaultySpan(trace_api.Span):
    """A real SDK span whose ``add_event``/``set_attribute``/``set_status`` may raise.

    A ``Span`` subclass: the API only finds a span in a context when it is one.
    """

    def __init__(self, inner: Any, key: str, fault: Fault) -> None:
        self._inner = inner
        self.key = key
        self._fault = fault

    def _check(self, method: str, first: Any) -> None:
        target = self._fault.span_method
        if target is None or target[0] != self.key or target[1] != method:
            return
        if target[2] is None or target[2] == first:
            raise InjectedFault(f"{method}({first!r}) on {self.key}")

    def add_event(self, name: str, *args: Any, **kwargs: Any) -> None:
        self._check("add_event", name)
        self._inner.add_event(name, *args, **kwargs)

    def set_attribute(self, key: str, value: Any) -> None:
        self._check("set_attribute", key)
        self._inner.set_attribute(key, value)

    def set_attributes(self, attributes: Any) -> None:
        for key, value in attributes.items():
            self.set_attribute(key, value)

    def set_status(self, status: Any, description: str | None = None) -> None:
        self._check("set_status", None)
        self._inner.set_status(status, description)

    def end(self, end_time: int | None = None) -> None:
        self._inner.end(end_time)

    def get_span_context(self) -> Any:
        return self._inner.get_span_context()

    def update_name(self, name: str) -> None:
        self._inner.update_name(name)

    def is_recording(self) -> bool:
        return bool(self._inner.is_recording())

    def record_exception(self, exception: BaseException, *args: Any, **kwargs: Any) -> None:
        self._inner.record_exception(exception, *args, **kwargs)


class FaultyTracer:
    def __init__(self, inner: Any, fault: Fault) -> None:
        self._inner = inner
        self._fault = fault

    def start_span(self, name: str, context: Any = None, **kwargs: Any) -> FaultySpan:
        span = self._inner.start_span(name, context=context, **kwargs)
        return FaultySpan(span, ROOT if context is None else name, self._fault)


class FaultyTracerProvider:
    """The application's tracer provider: the SDK's, behind a wrapping tracer."""

    def __init__(self, inner: Any, fault: Fault) -> None:
        self._inner = inner
        self._fault = fault

    def get_tracer(self, *args: Any, **kwargs: Any) -> FaultyTracer:
        return FaultyTracer(self._inner.get_tracer(*args, **kwargs), self._fault)


class FaultyInstrument:
    def __init__(self, inner: Any, name: str, fault: Fault) -> None:
        self._inner = inner
        self._raises = name == fault.instrument
        self._name = name

    def record(self, amount: float, attributes: Any = None, *args: Any) -> None:
        if self._raises:
            raise InjectedFault(f"record on {self._name}")
        self._inner.record(amount, attributes, *args)

    def add(self, amount: float, attributes: Any = None, *args: Any) -> None:
        if self._raises:
            raise InjectedFault(f"add on {self._name}")
        self._inner.add(amount, attributes, *args)


class FaultyMeter:
    def __init__(self, inner: Any, fault: Fault) -> None:
        self._inner = inner
        self._fault = fault

    def create_histogram(self, name: str, **kwargs: Any) -> FaultyInstrument:
        return FaultyInstrument(self._inner.create_histogram(name, **kwargs), name, self._fault)

    def create_up_down_counter(self, name: str, **kwargs: Any) -> FaultyInstrument:
        inner = self._inner.create_up_down_counter(name, **kwargs)
        return FaultyInstrument(inner, name, self._fault)


class FaultyMeterProvider:
    """The application's meter provider: the SDK's, behind wrapping instruments."""

    def __init__(self, inner: Any, fault: Fault) -> None:
        self._inner = inner
        self._fault = fault

    def get_meter(self, *args: Any, **kwargs: Any) -> FaultyMeter:
        return FaultyMeter(self._inner.get_meter(*args, **kwargs), self._fault)


class RaisingAttach:
    """A runtime context whose ``attach`` of an attempt's span raises; else the installed one.

    Other attaches pass (the SDK's span processors attach a context of their own on export).
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def attach(self, context: Any) -> Any:
        span = trace_api.get_current_span(context)
        if isinstance(span, FaultySpan) and span.key == "attempt":
            raise InjectedFault("attach of the attempt's context")
        return self._inner.attach(context)

    def __getattr__(self, name: str) -> Any:  # get_current, detach
        return getattr(self._inner, name)


class RecordingSleep:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await anyio.lowlevel.checkpoint()


# -- scenarios ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """Calls in a row on one model; ``plan``/``then`` script the fake server per request."""

    plan: Sequence[Any] = ()
    then: str = "text+usage"
    calls: int = 2
    attempts: int = 1
    circuit: bool = False


PLAIN = Scenario()
# The first call's first attempt gets a 429 with Retry-After and is retried; the second is not.
RETRIED = Scenario(plan=[{"x-fake-behaviour": "429", "x-fake-retry-after": "2"}], attempts=2)
# The first call fails with a 503 and opens the circuit; the next two are refused by it.
CIRCUIT = Scenario(plan=["503"], calls=3, circuit=True)


@dataclass(frozen=True)
class Case:
    fault: Fault
    scenario: Scenario
    warnings: tuple[int, ...]  # warnings expected per call of the scenario
    modes: tuple[str, ...] = ("invoke", "stream")


CASES: dict[str, Case] = {
    # admission
    "admission span start": Case(Fault(on_start="admission"), PLAIN, (1, 1)),
    "admission queue depth": Case(
        Fault(instrument="lionagi.service.admission.queue.depth"), PLAIN, (1, 1)
    ),
    "admission wait metric": Case(
        Fault(instrument="lionagi.service.admission.wait.duration"), PLAIN, (1, 1)
    ),
    "admission span end": Case(Fault(on_end="admission"), PLAIN, (1, 1)),
    # attempts
    "attempt span start": Case(Fault(on_start="attempt"), PLAIN, (1, 1)),
    "attempt context attach": Case(Fault(attach=True), PLAIN, (1, 1)),
    "attempt span end, retried": Case(Fault(on_end="attempt"), RETRIED, (1, 1)),
    "failed attempt status, retried": Case(
        Fault(span_method=("attempt", "set_status", None)), RETRIED, (1, 0)
    ),
    # retry events
    "retry_after event": Case(
        Fault(span_method=(ROOT, "add_event", "lionagi.retry_after")), RETRIED, (1, 0)
    ),
    "retry event": Case(Fault(span_method=(ROOT, "add_event", "lionagi.retry")), RETRIED, (1, 0)),
    # circuit events
    "circuit transition event": Case(
        Fault(span_method=(ROOT, "add_event", "lionagi.circuit.transition")), CIRCUIT, (1, 0, 0)
    ),
    "circuit refusal event": Case(
        Fault(span_method=(ROOT, "add_event", "lionagi.circuit.open")), CIRCUIT, (0, 1, 1)
    ),
    # stream
    "time to first chunk metric": Case(
        Fault(instrument="gen_ai.client.operation.time_to_first_chunk"),
        PLAIN,
        (1, 1),
        ("stream",),
    ),
    "stream span start": Case(Fault(on_start="stream"), PLAIN, (1, 1), ("stream",)),
    "per chunk": Case(Fault(chunk=True), PLAIN, (1, 1), ("stream",)),
    # finish
    "stream span end": Case(Fault(on_end="stream"), PLAIN, (1, 1), ("stream",)),
    "call status attribute": Case(
        Fault(span_method=(ROOT, "set_attribute", "lionagi.call.status")), PLAIN, (1, 1)
    ),
    "token usage metric": Case(Fault(instrument="gen_ai.client.token.usage"), PLAIN, (1, 1)),
    "duration metric": Case(Fault(instrument="gen_ai.client.operation.duration"), PLAIN, (1, 1)),
    "call span end": Case(Fault(on_end=ROOT), PLAIN, (1, 1)),
}

PARAMS = [
    pytest.param(name, mode, id=f"{name}-{mode}")
    for name, case in CASES.items()
    for mode in case.modes
]


# -- running calls ------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What the caller saw of one call."""

    status: EventStatus
    error: tuple[str, str] | None
    raised: tuple[str, str] | None
    response: Any
    chunks: list[dict[str, Any]] = field(default_factory=list)


def _describe(exc: BaseException | None) -> tuple[str, str] | None:
    """The exception's class and message, without the fake server's port (one per run)."""
    if exc is None:
        return None
    return type(exc).__qualname__, re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", str(exc))


async def _run(model: iModel, mode: str, request: dict[str, Any]) -> Outcome:
    call = model.create_api_calling(**request)
    chunks: list[dict[str, Any]] = []
    raised: BaseException | None = None
    with anyio.fail_after(5):  # a leaked admission permit would park the next call for good
        if mode == "invoke":
            await model.invoke(call)
        else:
            try:
                async for chunk in model.stream(call):
                    chunks.append(chunk.to_dict())
            except Exception as exc:
                raised = exc
    return Outcome(
        call.status, _describe(call.exception), _describe(raised), call.execution.response, chunks
    )


class Warnings:
    """The WARNING-or-worse records of one call (any logger)."""

    def __init__(self, caplog: pytest.LogCaptureFixture) -> None:
        self.caplog = caplog

    def take(self) -> list[logging.LogRecord]:
        records = [r for r in self.caplog.records if r.levelno >= logging.WARNING]
        self.caplog.clear()
        return records


async def _calls(
    make: Callable[[FakeProviderServer], iModel],
    mode: str,
    request: dict[str, Any],
    count: int,
    after_each: Callable[[], None] = lambda: None,
) -> list[Outcome]:
    outcomes: list[Outcome] = []
    async with FakeProviderServer() as srv, _closing(make(srv)) as model:
        for _ in range(count):
            outcomes.append(await _run(model, mode, request))
            after_each()
        assert model.admission_snapshot().active == 0
    return outcomes


@contextlib.asynccontextmanager
async def _closing(model: iModel) -> AsyncIterator[iModel]:
    """``async with model``, but a close waiting on a leaked permit fails instead of hanging."""
    try:
        yield model
    finally:
        with anyio.move_on_after(2):
            await model.close()


def _model_maker(http: Any, scenario: Scenario) -> Callable[[FakeProviderServer], iModel]:
    def make(srv: FakeProviderServer) -> iModel:
        kwargs: dict[str, Any] = {"concurrency_limit": 1, "sleep": RecordingSleep()}
        if scenario.circuit:
            kwargs["circuit_policy"] = CircuitPolicy(failure_threshold=1, recovery_time=60)
        model: iModel = http(
            srv, plan=scenario.plan, then=scenario.then, attempts=scenario.attempts, **kwargs
        )
        return model

    return make


def _install(otel: Any, fault: Fault, monkeypatch: pytest.MonkeyPatch) -> FaultyProcessor:
    processor = FaultyProcessor(fault)
    otel.tracer_provider.add_span_processor(processor)
    instrument(
        tracer_provider=FaultyTracerProvider(otel.tracer_provider, fault),
        meter_provider=FaultyMeterProvider(otel.meter_provider, fault),
    )
    if fault.attach:
        inner = otel_context._RUNTIME_CONTEXT
        monkeypatch.setattr(otel_context, "_RUNTIME_CONTEXT", RaisingAttach(inner))
    if fault.chunk:

        def broken(self: Any, meta: Any) -> None:
            raise InjectedFault("chunk bookkeeping")

        monkeypatch.setattr(lifecycle_telemetry.CallTrace, "_result", broken)
    return processor


def _check_warnings(records: list[logging.LogRecord], expected: int) -> None:
    assert len(records) == expected, [r.getMessage() for r in records]
    for record in records:
        assert record.name == "lionagi.service"
        assert record.levelno == logging.WARNING
        assert "telemetry" in record.getMessage()
        assert record.exc_info is not None
        assert isinstance(record.exc_info[1], InjectedFault)


# -- tests --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "mode"), PARAMS)
async def test_a_broken_tracer_or_meter_never_changes_the_call(
    otel: Any, http: Any, chat: dict[str, Any], caplog: Any, monkeypatch: Any, name: str, mode: str
) -> None:
    case = CASES[name]
    scenario = case.scenario
    make = _model_maker(http, scenario)
    uninstrument()
    expected = await _calls(make, mode, chat, scenario.calls)

    warnings = Warnings(caplog)
    warnings.take()
    processor = _install(otel, case.fault, monkeypatch)
    seen: list[list[logging.LogRecord]] = []
    before = otel_context.get_current()

    def after_each() -> None:
        assert otel_context.get_current() == before  # no attempt context left attached
        seen.append(warnings.take())

    with caplog.at_level(logging.WARNING):
        outcomes = await _calls(make, mode, chat, scenario.calls, after_each)

    assert outcomes == expected
    for records, count in zip(seen, case.warnings, strict=True):
        _check_warnings(records, count)
    assert processor.open == {}, "a span the call opened was never ended"


AGENTIC_CASES: dict[str, Fault] = {
    "admission span start": Fault(on_start="admission"),
    "admission span end": Fault(on_end="admission"),
    "admission wait metric": Fault(instrument="lionagi.service.admission.wait.duration"),
    "stream span start": Fault(on_start="stream"),
    "per chunk": Fault(chunk=True),
    "stream span end": Fault(on_end="stream"),
    "duration metric": Fault(instrument="gen_ai.client.operation.duration"),
    "call span end": Fault(on_end=ROOT),
}

AGENTIC_PARAMS = [
    pytest.param(name, mode, id=f"{name}-{mode}")
    for name in AGENTIC_CASES
    for mode in ("invoke", "stream")
    if mode == "stream" or not (name.startswith(("stream", "per chunk")))
]


@pytest.mark.parametrize(("name", "mode"), AGENTIC_PARAMS)
async def test_a_broken_tracer_never_changes_an_agentic_call(
    otel: Any, caplog: Any, monkeypatch: Any, name: str, mode: str
) -> None:
    request = {"prompt": "hi"}

    async def calls(after_each: Callable[[], None] = lambda: None) -> list[Outcome]:
        outcomes: list[Outcome] = []
        async with _closing(iModel(model="scripted/demo", concurrency_limit=1)) as model:
            for _ in range(2):
                outcomes.append(await _run(model, mode, request))
                after_each()
            assert model.admission_snapshot().active == 0
        return outcomes

    uninstrument()
    expected = await calls()

    warnings = Warnings(caplog)
    warnings.take()
    processor = _install(otel, AGENTIC_CASES[name], monkeypatch)
    seen: list[list[logging.LogRecord]] = []
    before = otel_context.get_current()

    def after_each() -> None:
        assert otel_context.get_current() == before
        seen.append(warnings.take())

    with caplog.at_level(logging.WARNING):
        outcomes = await calls(after_each)

    assert [_comparable(o) for o in outcomes] == [_comparable(o) for o in expected]
    for records in seen:
        _check_warnings(records, 1)
    assert processor.open == {}


def _comparable(outcome: Outcome) -> Any:
    """An agentic outcome without what differs between two runs (a run's session id)."""
    return (
        outcome.status,
        outcome.error,
        outcome.raised,
        len(outcome.chunks),
        [(c["type"], c.get("content")) for c in outcome.chunks],
    )


async def test_a_broken_call_disables_only_its_own_telemetry(
    otel: Any, http: Any, chat: dict[str, Any], caplog: Any
) -> None:
    # The first call's tracer breaks at its admission span; the next call records in full.
    broken = {"armed": True}

    class OnceAtAdmission(SpanProcessor):
        def on_start(self, span: Span, parent_context: Any = None) -> None:
            if span.name == "admission" and broken.pop("armed", False):
                raise InjectedFault("once")

    otel.tracer_provider.add_span_processor(OnceAtAdmission())
    processor = FaultyProcessor(Fault())  # after it: a span whose start raised is not tracked
    otel.tracer_provider.add_span_processor(processor)
    otel.on()
    async with FakeProviderServer() as srv:
        model = http(srv, then="text+usage", concurrency_limit=1)
        with caplog.at_level(logging.WARNING):
            first = await model.invoke(**chat)
            second = await model.invoke(**chat)
    assert first.status is second.status is EventStatus.COMPLETED
    _check_warnings([r for r in caplog.records if r.levelno >= logging.WARNING], 1)
    roots = sorted((s for s in otel.spans() if s.parent is None), key=lambda s: s.start_time or 0)
    assert len(roots) == 2
    # The broken call's span is still ended, without what was skipped; the next is complete.
    assert "lionagi.call.status" not in (roots[0].attributes or {})
    assert roots[1].attributes["lionagi.call.status"] == "completed"
    second_children = sorted(
        s.name for s in otel.spans() if s.parent and s.parent.span_id == roots[1].context.span_id
    )
    assert second_children == ["admission", "attempt"]
    assert processor.open == {}


async def test_an_attached_attempt_context_is_detached_after_a_failure_in_between(
    otel: Any, caplog: Any
) -> None:
    # Telemetry turns off while an attempt's context is attached: attempt_ended still detaches
    # it, and nothing more is attached (or detached) afterwards.
    fault = Fault(span_method=(ROOT, "add_event", "lionagi.circuit.transition"))
    processor = FaultyProcessor(Fault())
    otel.tracer_provider.add_span_processor(processor)
    telemetry = lifecycle_telemetry.Telemetry(
        FaultyTracerProvider(otel.tracer_provider, fault),
        otel.meter_provider,
        capture_content=False,
    )
    async with iModel(model="scripted/demo") as model:
        call = model.create_api_calling(prompt="hi")
    trace = telemetry.start(call, False)
    assert trace is not None
    before = otel_context.get_current()
    with caplog.at_level(logging.WARNING):
        trace.admission_started()
        trace.admission_ended(None)
        token = trace.attempt_started()
        assert token is not None
        assert otel_context.get_current() != before
        trace.circuit("closed", "open")  # raises inside: this call's telemetry turns off
        assert trace.attempt_started() is None  # off: nothing attached
        assert trace.span is None
        trace.attempt_ended(token, None)
        assert otel_context.get_current() == before
        trace.attempt_ended(None, None)
        trace.finish(call)  # ends the attempt and call spans, silently
        trace.finish(call)
    _check_warnings([r for r in caplog.records if r.levelno >= logging.WARNING], 1)
    assert processor.open == {}
    assert sorted(s.name for s in otel.spans()) == ["admission", "attempt", "invoke_agent demo"]

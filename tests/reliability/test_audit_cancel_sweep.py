"""Caller cancellation at every point of an HTTP or scripted call leaves nothing behind.

ADR-0029 D2: "caller cancellation -> cleanup, CANCELLED, re-raise the cancellation"; D5: each
case asserts "the event is terminal before it leaves ownership and that no task, process, socket
or permit is left behind". ``docs/reliability.md``: "After a call, whatever its ending: no
connection of the endpoint's pool is still busy, its admission counters are back to zero, and no
task [...] it opened remains."

The lifecycle conformance suite cancels at one chosen point per case. These sweeps cancel the
caller (``anyio.move_on_after(t)``) at a ladder of small ``t`` across the whole call, so the
cancellation lands in every stage in turn: admission, the pre-hook, connect, the request write,
the head, between reads, inside a Retry-After sleep, while queued behind a held permit, while
the consumer holds a chunk, inside a half-open circuit probe. After each cancellation:

- the call is terminal, CANCELLED exactly when the caller's scope caught the cancellation (else
  it finished first: COMPLETED, or FAILED with its typed error);
- nothing owned, admission ``queued == active == 0`` (and no debit left), no busy pool
  connection, every OpenTelemetry span ended, no asyncio task beyond the test's own;
- the next call on the same model completes, and ``close()`` returns promptly.

The fake provider runs in its own thread (``running_in_thread``), so every task on the test's
loop is the library's. Where the cancellation lands depends on timing; what is asserted holds
wherever it lands, so the outcome does not.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import anyio
import pytest

from lionagi.service import (
    AttemptPolicy,
    CircuitPolicy,
    EventStatus,
    ProviderRateLimitError,
    iModel,
)
from lionagi.service.scripted import ScriptedEndpoint
from lionagi.service_testing import FakeProviderServer
from lionagi.service_testing.conformance import model_leaks

CHAT = {"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]}
STALL = "please SCRIPTED_STALL"
HANG_GUARD = 5.0  # a "did not hang" bound only


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """One fake provider for the module, served from its own thread (its tasks are not ours)."""
    with FakeProviderServer.running_in_thread(record_requests=False) as server:
        yield server.base_url


def _http(url: str, headers: dict[str, str], **kwargs: Any) -> iModel:
    return iModel(
        provider="openai",
        endpoint="chat/completions",
        base_url=url + "/v1",
        api_key="sk-test-audit-cancel",
        allow_local_network=True,
        default_headers=headers,
        **kwargs,
    )


def _ladder(count: int, step: float) -> list[float]:
    return [i * step for i in range(count)]


class Watch:
    """The tasks present before the sweep; checks one cancelled call's leftovers."""

    def __init__(self, model: iModel) -> None:
        self.model = model
        self.tasks = set(asyncio.all_tasks())

    def new_tasks(self) -> list[asyncio.Task[Any]]:
        me = asyncio.current_task()
        return [
            t for t in asyncio.all_tasks() if t not in self.tasks and t is not me and not t.done()
        ]

    def assert_clean(
        self,
        call: Any,
        scope: anyio.CancelScope,
        t: float,
        finished: tuple[EventStatus, ...] = (EventStatus.COMPLETED,),
        held: Any = None,
    ) -> None:
        """``held``: a call of the test's own still running (its permit is checked by the test)."""
        status = call.status
        where = f"cancelled after {t * 1000:.1f} ms"
        assert status.is_terminal, f"{where}: call left {status.value}"
        if scope.cancelled_caught:
            assert status is EventStatus.CANCELLED, (where, status, call.exception)
        else:
            assert status in finished, (where, status, call.exception)
        owned = set(self.model.supervisor.owned)
        assert owned == (set() if held is None else {str(held.id)}), where
        if held is None:
            assert model_leaks([self.model]) == [], where
        assert self.new_tasks() == [], f"{where}: tasks left {self.new_tasks()!r}"


async def _run(model: iModel, call: Any, mode: str, *, hold: float = 0.0, **kw: Any) -> None:
    if mode == "invoke":
        await model.invoke(call, **kw)
        return
    async with contextlib.aclosing(model.stream(call, **kw)) as chunks:
        async for _ in chunks:
            if hold:
                await anyio.sleep(hold)  # the consumer holds the chunk


async def _next_call_completes(model: iModel, make: Callable[[], Any], mode: str) -> None:
    call = make()
    with anyio.fail_after(HANG_GUARD):
        await _run(model, call, mode)
    assert call.status is EventStatus.COMPLETED, call.exception


async def _close_promptly(model: iModel) -> None:
    with anyio.fail_after(HANG_GUARD):
        await model.close()
    assert model.admission_snapshot().active == 0


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_cancel_sweep_across_an_http_call(server_url: str, mode: str) -> None:
    # Paced reply (1 ms between frames) and a deadline, so the read control is armed too.
    model = _http(server_url, {"x-fake-delay-ms": "1", "x-fake-chunks": "5"})
    make: Callable[[], Any] = partial(model.create_api_calling, **CHAT)
    watch = Watch(model)
    seen: set[EventStatus] = set()
    for t in _ladder(50, 0.0005):
        call = make()
        with anyio.move_on_after(t) as scope:
            await _run(model, call, mode, timeout=5.0)
        watch.assert_clean(call, scope, t)
        seen.add(call.status)
        await _next_call_completes(model, make, mode)  # the pool is not poisoned
    assert EventStatus.CANCELLED in seen
    await _close_promptly(model)


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_cancel_sweep_through_retry_after_sleeps(server_url: str, mode: str) -> None:
    model = _http(
        server_url,
        {"x-fake-behaviour": "429", "x-fake-retry-after": "0.02"},
        attempt_policy=AttemptPolicy(max_attempts=3, base_delay=0.001, jitter_factor=0),
        circuit_policy=CircuitPolicy(failure_threshold=10_000),
    )
    watch = Watch(model)
    for t in _ladder(24, 0.0025):  # 0 to 57.5 ms: both 20 ms sleeps and the attempts around them
        call = model.create_api_calling(**CHAT)
        with anyio.move_on_after(t) as scope:
            try:
                await _run(model, call, mode)
            except ProviderRateLimitError:
                assert mode == "stream"  # invoke records it on the event
        watch.assert_clean(call, scope, t, finished=(EventStatus.FAILED,))
        if call.status is EventStatus.FAILED:
            assert isinstance(call.exception, ProviderRateLimitError)
    breaker = model.circuit_breaker
    assert breaker is not None and breaker.state.value == "closed"

    def fine() -> Any:
        call = model.create_api_calling(**CHAT)
        call.headers["x-fake-behaviour"] = "text"
        return call

    await _next_call_completes(model, fine, mode)
    await _close_promptly(model)


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_cancel_sweep_while_queued_behind_a_held_permit(mode: str) -> None:
    model = iModel(model="scripted/demo", concurrency_limit=1, limit_requests=50)
    watch = Watch(model)
    holder = model.create_api_calling(prompt=STALL)
    async with anyio.create_task_group() as tg:
        tg.start_soon(model.invoke, holder)
        with anyio.fail_after(HANG_GUARD):
            while model.admission_snapshot().active != 1:  # noqa: ASYNC110
                await anyio.sleep(0.001)
        watch.tasks = set(asyncio.all_tasks())  # the holder's task is the test's
        available = model.admission_snapshot().available_requests
        for t in _ladder(20, 0.0005):
            call = model.create_api_calling(prompt="queued")
            with anyio.move_on_after(t) as scope:
                await _run(model, call, mode)
            watch.assert_clean(call, scope, t, finished=(), held=holder)
            snap = model.admission_snapshot()
            # The holder still runs; the cancelled waiter left no queue item and no debit.
            assert (snap.queued, snap.producers_waiting, snap.active) == (0, 0, 1), snap
            assert snap.available_requests == available, (t, snap)
            assert holder.status is EventStatus.PROCESSING
        tg.cancel_scope.cancel()
    assert holder.status is EventStatus.CANCELLED
    await _next_call_completes(model, lambda: model.create_api_calling(prompt="next"), mode)
    await _close_promptly(model)


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_cancel_sweep_inside_the_pre_invocation_hook(mode: str) -> None:
    entered: set[str] = set()
    left: set[str] = set()

    async def pre(event: Any) -> None:
        entered.add(str(event.id))
        await anyio.sleep(0.008)
        left.add(str(event.id))

    model = iModel(model="scripted/demo", hook_registry={"pre_invocation": pre})
    endpoint = model.endpoint
    assert isinstance(endpoint, ScriptedEndpoint)
    watch = Watch(model)
    in_hook = 0
    for t in _ladder(24, 0.0005):
        call = model.create_api_calling(prompt="hello")
        calls_before = len(endpoint.calls)
        with anyio.move_on_after(t) as scope:
            await _run(model, call, mode)
        watch.assert_clean(call, scope, t)
        key = str(call.id)
        if key in entered and key not in left:  # cancelled inside the hook
            in_hook += 1
            assert len(endpoint.calls) == calls_before, f"provider work after {t * 1000:.1f} ms"
    assert in_hook > 0  # the ladder did land inside the hook
    await _next_call_completes(model, lambda: model.create_api_calling(prompt="x"), mode)
    await _close_promptly(model)


@pytest.mark.parametrize("kind", ["http", "scripted"])
@pytest.mark.parametrize("closing", ["aclose", "abandon"])
async def test_cancel_sweep_while_the_consumer_holds_a_chunk(
    server_url: str, kind: str, closing: str
) -> None:
    model: iModel
    make: Callable[[], Any]
    if kind == "http":
        model = _http(server_url, {"x-fake-chunks": "12", "x-fake-delay-ms": "1"})
        make = partial(model.create_api_calling, **CHAT)
    else:
        model = iModel(model="scripted/demo")
        make = partial(model.create_api_calling, prompt="one two three four", pace=0.001)
    watch = Watch(model)
    for t in _ladder(24, 0.001):
        call = make()
        with anyio.move_on_after(t) as scope:
            if closing == "aclose":
                await _run(model, call, "stream", hold=0.0007)
            else:  # dropped unclosed: the facade's reaper ends it
                async for _ in model.stream(call):
                    await anyio.sleep(0.0007)
        if closing == "abandon":
            with anyio.fail_after(HANG_GUARD):
                while not call.status.is_terminal or watch.new_tasks():  # noqa: ASYNC110
                    await anyio.sleep(0.0005)
        watch.assert_clean(call, scope, t)
    await _next_call_completes(model, make, "stream")
    await _close_promptly(model)


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_cancel_sweep_inside_a_half_open_probe_frees_the_probe_slot(
    server_url: str, mode: str
) -> None:
    model = _http(
        server_url,
        {"x-fake-behaviour": "stall"},
        attempt_policy=AttemptPolicy(max_attempts=1),
        circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=0.01),
    )
    breaker = model.circuit_breaker
    assert breaker is not None
    watch = Watch(model)
    for t in _ladder(12, 0.001):
        failing = model.create_api_calling(**CHAT)
        failing.headers["x-fake-behaviour"] = "500"
        await model.invoke(failing)
        assert failing.status is EventStatus.FAILED
        assert breaker.state.value == "open"
        await anyio.sleep(0.012)  # past the recovery time: the next call is the probe
        probe = model.create_api_calling(**CHAT)
        with anyio.move_on_after(t) as scope:
            await _run(model, probe, mode)
        watch.assert_clean(probe, scope, t, finished=())
        # The cancelled probe gave its slot back (no outcome): the next call may probe.
        after = model.create_api_calling(**CHAT)
        after.headers["x-fake-behaviour"] = "text"
        with anyio.fail_after(HANG_GUARD):
            await _run(model, after, mode)
        assert after.status is EventStatus.COMPLETED, (t, after.exception)
        assert breaker.state.value == "closed"
    await _close_promptly(model)


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_close_cut_short_then_closed_again_aborts_and_releases(
    server_url: str, mode: str
) -> None:
    for t in (0.0, 0.0002, 0.0005, 0.001, 0.003):
        model = _http(server_url, {"x-fake-behaviour": "stall"}, concurrency_limit=1)
        watch = Watch(model)
        active = model.create_api_calling(**CHAT)
        queued = model.create_api_calling(**CHAT)
        raised: dict[str, BaseException] = {}

        async def run(
            name: str,
            call: Any,
            model: iModel = model,
            raised: dict[str, BaseException] = raised,
        ) -> None:
            try:
                await _run(model, call, mode)
            except Exception as exc:
                raised[name] = exc

        async with anyio.create_task_group() as tg:
            tg.start_soon(run, "active", active)
            with anyio.fail_after(HANG_GUARD):
                while active.status is not EventStatus.PROCESSING:  # noqa: ASYNC110
                    await anyio.sleep(0.0005)
            tg.start_soon(run, "queued", queued)
            with anyio.fail_after(HANG_GUARD):
                while model.admission_snapshot().queued != 1:  # noqa: ASYNC110
                    await anyio.sleep(0.0005)
            with anyio.move_on_after(t):
                await model.close()
            await _close_promptly(model)  # a close cut short is run again in full
        for name, call in (("active", active), ("queued", queued)):
            assert call.status is EventStatus.ABORTED, (t, name, call.status)
            assert type(raised.get(name)).__name__ == "AdmissionClosed", (t, name, raised)
        assert dict(model.supervisor.owned) == {}
        assert model_leaks([model]) == []
        assert watch.new_tasks() == []


def _span_counter() -> Any:
    """A span processor recording which spans started and have not ended (by span id)."""
    from opentelemetry.sdk.trace import SpanProcessor

    class SpanCounter(SpanProcessor):
        def __init__(self) -> None:
            self.open: dict[int, str] = {}

        def on_start(self, span: Any, parent_context: Any = None) -> None:
            self.open[span.context.span_id] = span.name

        def on_end(self, span: Any) -> None:
            self.open.pop(span.context.span_id, None)

    return SpanCounter()


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_cancel_sweep_ends_every_telemetry_span(server_url: str, mode: str) -> None:
    pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.trace import TracerProvider

    from lionagi.service.telemetry import instrument, uninstrument

    counter = _span_counter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(counter)
    instrument(tracer_provider=tracer_provider, meter_provider=MeterProvider())
    try:
        model = _http(
            server_url,
            {"x-fake-behaviour": "429", "x-fake-retry-after": "0.005"},
            attempt_policy=AttemptPolicy(max_attempts=2, base_delay=0.001, jitter_factor=0),
            circuit_policy=CircuitPolicy(failure_threshold=10_000),
        )
        watch = Watch(model)
        for t in _ladder(24, 0.0005):
            call = model.create_api_calling(**CHAT)
            with anyio.move_on_after(t) as scope:
                with contextlib.suppress(ProviderRateLimitError):
                    await _run(model, call, mode)
            watch.assert_clean(call, scope, t, finished=(EventStatus.FAILED,))
            assert counter.open == {}, (t, sorted(counter.open.values()))
        await _close_promptly(model)
    finally:
        uninstrument()

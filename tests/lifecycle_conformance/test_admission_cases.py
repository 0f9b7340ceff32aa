"""ADR-0029 D5 admission cases through iModel: rate windows, the bounded FIFO queue, token
accounting, conflicts and cancellation while waiting.

Every test ends with ``probe.finish()``: nothing owned, no permit or queue slot, no connection,
task, descriptor or process left (see conftest).
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from lionagi.service import (
    AdmissionConflict,
    EventStatus,
    RequestDeadlineExceeded,
    RequestExceedsTokenWindow,
    TokenEstimateUnavailable,
)

# -- rate window longer than the budget -----------------------------------------------------------


async def test_refresh_after_the_deadline_aborts_without_provider_work(
    scripted, probe, helpers, mode
):
    model = scripted(limit_requests=1, capacity_refresh_time=60.0)
    first = await model.invoke(prompt="first")
    assert first.status is EventStatus.COMPLETED
    assert len(model.endpoint.calls) == 1

    call = model.create_api_calling(prompt="second")
    with pytest.raises(RequestDeadlineExceeded) as info:
        await helpers.run(model, mode, call, timeout=0.2)

    assert info.value.phase == "rate"
    assert info.value.call_id == str(call.id)
    probe.left(call, EventStatus.ABORTED, RequestDeadlineExceeded)
    assert len(model.endpoint.calls) == 1  # the refused call never reached the provider
    assert model.admission_snapshot().available_requests == 0
    await probe.finish()


async def test_refresh_after_the_deadline_sends_no_http_request(
    server, http, chat, probe, helpers, mode
):
    model = http(server, limit_requests=1, capacity_refresh_time=60.0)
    assert (await model.invoke(**chat)).status is EventStatus.COMPLETED
    sent = len(server.requests)

    call = model.create_api_calling(**chat)
    with pytest.raises(RequestDeadlineExceeded) as info:
        await helpers.run(model, mode, call, timeout=0.2)

    assert info.value.phase == "rate"
    probe.left(call, EventStatus.ABORTED, RequestDeadlineExceeded)
    assert len(server.requests) == sent
    await probe.finish()


# -- bounded FIFO queue ---------------------------------------------------------------------------


async def test_full_queue_waits_in_arrival_order_and_a_cancelled_producer_leaves_no_trace(
    gated, probe
):
    model = gated(queue_capacity=1, concurrency_limit=1)
    endpoint = model.endpoint
    calls = {name: model.create_api_calling(prompt=name) for name in "ABCD"}
    scopes = {name: anyio.CancelScope() for name in calls}
    returned: dict[str, Any] = {}

    async def run(name: str) -> None:
        with scopes[name]:
            returned[name] = await model.invoke(calls[name])

    def snap() -> Any:
        return model.admission_snapshot()

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, "A")
        await probe.until(lambda: endpoint.entered == ["A"], "A running")
        tg.start_soon(run, "B")
        await probe.until(lambda: snap().queued == 1, "B holds the only queue slot")
        tg.start_soon(run, "C")
        await probe.until(lambda: snap().producers_waiting == 1, "C waits for a slot")
        tg.start_soon(run, "D")
        await probe.until(lambda: snap().producers_waiting == 2, "D waits behind C")

        # The queue is bounded: one call holds the slot, the others wait; none was dropped.
        assert (snap().active, snap().queued) == (1, 1)
        assert probe.owned_total() == 4
        assert all(not c.is_terminal for c in calls.values())

        scopes["C"].cancel()
        await probe.until(lambda: snap().producers_waiting == 1, "C left the line")
        endpoint.gate.set()

    assert scopes["C"].cancelled_caught  # the cancellation propagated out of invoke()
    assert "C" not in returned
    probe.left(calls["C"], EventStatus.CANCELLED)
    for name in "ABD":
        assert returned[name] is calls[name]
        probe.left(calls[name], EventStatus.COMPLETED)
    assert endpoint.entered == ["A", "B", "D"]  # strict arrival order; C never reached it
    await probe.finish()


async def test_a_later_small_request_never_overtakes_an_earlier_large_one(scripted, probe):
    model = scripted(limit_tokens=100, interval=0.2)
    calls = {}
    for name, tokens in (("A", 60), ("B", 60), ("C", 10)):
        calls[name] = model.create_api_calling(prompt=name)
        calls[name].token_estimate = tokens

    async with anyio.create_task_group() as tg:
        tg.start_soon(model.invoke, calls["A"])
        await probe.until(lambda: calls["A"].is_terminal, "A admitted and done")
        for arrived, name in enumerate("BC", start=1):
            tg.start_soon(model.invoke, calls[name])
            await probe.until(lambda n=arrived: model.admission_snapshot().queued == n, name)
        snap = model.admission_snapshot()
        # 40 tokens are free and C needs 10, but B came first: C waits behind it.
        assert snap.available_tokens == 40
        assert [r.prompt for r in model.endpoint.calls] == ["A"]

    assert [r.prompt for r in model.endpoint.calls] == ["A", "B", "C"]
    for call in calls.values():
        probe.left(call, EventStatus.COMPLETED)
    await probe.finish()


# -- token accounting -----------------------------------------------------------------------------


async def test_requests_and_tokens_are_debited_together_or_not_at_all(
    scripted, probe, mode, helpers
):
    model = scripted(limit_requests=5, limit_tokens=100, capacity_refresh_time=60.0)
    first = model.create_api_calling(prompt="big")
    first.token_estimate = 70
    await helpers.run(model, mode, first)
    snap = model.admission_snapshot()
    assert (snap.available_requests, snap.available_tokens) == (4, 30)

    # A request unit is free but the tokens are not: waiting must not hold the request unit.
    waiting = model.create_api_calling(prompt="too many tokens")
    waiting.token_estimate = 50
    scope = anyio.CancelScope()

    async def run() -> None:
        with scope:
            await helpers.run(model, mode, waiting)

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        await probe.until(lambda: model.admission_snapshot().queued == 1, "waiting on tokens")
        snap = model.admission_snapshot()
        assert (snap.available_requests, snap.available_tokens) == (4, 30)
        scope.cancel()

    probe.left(waiting, EventStatus.CANCELLED)
    # ... and the deadline variant fails at once, still debiting nothing.
    late = model.create_api_calling(prompt="too many tokens, with a deadline")
    late.token_estimate = 50
    with pytest.raises(RequestDeadlineExceeded) as info:
        await helpers.run(model, mode, late, timeout=0.5)
    assert info.value.phase == "rate"
    probe.left(late, EventStatus.ABORTED, RequestDeadlineExceeded)
    snap = model.admission_snapshot()
    assert (snap.available_requests, snap.available_tokens) == (4, 30)
    assert [r.prompt for r in model.endpoint.calls] == ["big"]
    await probe.finish()


async def test_a_call_already_queued_or_finished_is_refused_and_debits_nothing(gated, probe):
    model = gated(limit_requests=5, capacity_refresh_time=60.0)
    call = model.create_api_calling(prompt="once")
    async with anyio.create_task_group() as tg:
        tg.start_soon(model.invoke, call)
        await probe.until(lambda: model.endpoint.entered == ["once"], "first run started")
        assert model.admission_snapshot().available_requests == 4

        with pytest.raises(AdmissionConflict):
            await model.invoke(call)
        with pytest.raises(AdmissionConflict):
            await anext(model.stream(call))

        assert model.admission_snapshot().available_requests == 4
        assert call.status is EventStatus.PROCESSING  # the original run is untouched
        model.endpoint.gate.set()

    probe.left(call, EventStatus.COMPLETED)
    with pytest.raises(AdmissionConflict):
        await model.invoke(call)  # a terminal event cannot be reacquired
    assert call.status is EventStatus.COMPLETED
    assert model.admission_snapshot().available_requests == 4
    assert model.endpoint.entered == ["once"]
    await probe.finish()


async def test_missing_token_estimate_is_refused_before_any_work(scripted, probe, helpers, mode):
    model = scripted(limit_tokens=100)
    call = model.create_api_calling(prompt="no estimate")
    assert call.required_tokens is None

    with pytest.raises(TokenEstimateUnavailable):
        await helpers.run(model, mode, call)

    probe.left(call, EventStatus.ABORTED, TokenEstimateUnavailable)
    assert model.endpoint.calls == []
    assert model.admission_snapshot().available_tokens == 100
    await probe.finish()


async def test_request_larger_than_the_window_is_refused_at_once(scripted, probe, helpers, mode):
    model = scripted(limit_tokens=10)
    call = model.create_api_calling(prompt="huge")
    call.token_estimate = 11

    with pytest.raises(RequestExceedsTokenWindow):
        await helpers.run(model, mode, call)  # no deadline: it must not wait for a window

    probe.left(call, EventStatus.ABORTED, RequestExceedsTokenWindow)
    assert model.endpoint.calls == []
    await probe.finish()


async def test_oversize_http_request_sends_nothing(server, http, probe, helpers, mode):
    model = http(server, limit_tokens=10)
    call = model.create_api_calling(
        model="fake-model", messages=[{"role": "user", "content": "x" * 400}]
    )
    assert call.required_tokens is not None and call.required_tokens > 10

    with pytest.raises(RequestExceedsTokenWindow):
        await helpers.run(model, mode, call)

    probe.left(call, EventStatus.ABORTED, RequestExceedsTokenWindow)
    assert server.requests == []
    await probe.finish()


# -- a rate-limited stream is admitted before its pre-hook ----------------------------------------


async def test_rate_limited_stream_runs_its_pre_hook_only_after_admission(scripted, probe):
    seen: list[tuple[str, int, bool, EventStatus]] = []
    holder: dict[str, Any] = {}

    def pre_invocation(event: Any) -> None:
        model = holder["model"]
        seen.append(
            (
                str(event.id),
                model.admission_snapshot().active,
                str(event.id) in model.supervisor.owned,
                event.status,
            )
        )

    model = scripted(
        limit_requests=1, interval=0.2, hook_registry={"pre_invocation": pre_invocation}
    )
    holder["model"] = model
    first = model.create_api_calling(prompt="first")
    assert [c async for c in model.stream(first)]
    assert len(seen) == 1

    second = model.create_api_calling(prompt="second")
    chunks: list[Any] = []

    async def consume() -> None:
        chunks.extend([c async for c in model.stream(second)])

    async with anyio.create_task_group() as tg:
        tg.start_soon(consume)
        await probe.until(lambda: model.admission_snapshot().queued == 1, "second waits on rate")
        assert len(seen) == 1  # no early pre-hook while waiting for the window
        assert len(model.endpoint.calls) == 1  # and no provider work (streams obey admission)
        assert second.status is EventStatus.PENDING

    # Once admitted, the pre-hook saw the call owned, processing and holding its permit.
    assert seen[1] == (str(second.id), 1, True, EventStatus.PROCESSING)
    assert chunks and chunks[-1].type == "result"
    probe.left(second, EventStatus.COMPLETED)
    await probe.finish()


async def test_rate_limited_stream_past_its_deadline_never_runs_the_pre_hook(scripted, probe):
    ran: list[str] = []
    model = scripted(
        limit_requests=1,
        capacity_refresh_time=60.0,
        hook_registry={"pre_invocation": lambda event: ran.append(str(event.id))},
    )
    assert [c async for c in model.stream(prompt="first")]
    call = model.create_api_calling(prompt="second")

    with pytest.raises(RequestDeadlineExceeded) as info:
        async for _ in model.stream(call, timeout=0.2):
            pass

    assert info.value.phase == "rate"
    assert len(ran) == 1
    probe.left(call, EventStatus.ABORTED, RequestDeadlineExceeded)
    await probe.finish()


# -- cancel while queued --------------------------------------------------------------------------


async def test_cancel_while_queued_for_a_permit(gated, probe, helpers, mode):
    model = gated(concurrency_limit=1)
    active = model.create_api_calling(prompt="active")
    queued = model.create_api_calling(prompt="queued")
    scope = anyio.CancelScope()
    reached_after = False

    async def wait_then_cancelled() -> None:
        nonlocal reached_after
        with scope:
            await helpers.run(model, mode, queued)
            reached_after = True

    async with anyio.create_task_group() as tg:
        tg.start_soon(helpers.run, model, mode, active)
        await probe.until(lambda: model.endpoint.entered == ["active"], "active call running")
        tg.start_soon(wait_then_cancelled)
        await probe.until(lambda: model.admission_snapshot().queued == 1, "second call queued")
        assert str(queued.id) in model.supervisor.owned

        scope.cancel()
        await probe.until(lambda: queued.is_terminal, "queued call settled")
        snap = model.admission_snapshot()
        assert (snap.queued, snap.active) == (0, 1)  # its slot is gone; the active call is not
        model.endpoint.gate.set()

    assert scope.cancelled_caught and not reached_after
    probe.left(queued, EventStatus.CANCELLED)
    probe.left(active, EventStatus.COMPLETED)
    assert model.endpoint.entered == ["active"]
    await probe.finish()


async def test_cancel_while_waiting_for_the_rate_window(scripted, probe, helpers, mode):
    model = scripted(limit_requests=1, capacity_refresh_time=60.0)
    await model.invoke(prompt="uses the window")
    call = model.create_api_calling(prompt="waits")
    with anyio.move_on_after(0.1) as scope:
        await helpers.run(model, mode, call)  # no deadline: waits for the window

    assert scope.cancelled_caught
    probe.left(call, EventStatus.CANCELLED)
    assert len(model.endpoint.calls) == 1
    assert model.admission_snapshot().available_requests == 0
    await probe.finish()

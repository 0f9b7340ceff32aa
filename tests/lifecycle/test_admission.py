"""AdmissionController: order, limits, deadlines, cancellation, conflicts and close (ADR-0029 D1).

Time is a FakeClock: waits wake only when a test advances it, so nothing depends on real timing.
"""

from __future__ import annotations

import uuid
from typing import Any

import anyio
import pytest

from lionagi.service import (
    AdmissionClosed,
    AdmissionConfig,
    AdmissionConfigError,
    AdmissionConflict,
    AdmissionController,
    AdmissionLease,
    AdmissionSnapshot,
    RequestBudget,
    RequestDeadlineExceeded,
    RequestExceedsTokenWindow,
    TokenEstimateUnavailable,
)


def controller(clock: Any, **config: Any) -> AdmissionController:
    return AdmissionController(AdmissionConfig(**config), clock=clock, sleep=clock.sleep)


def budget_in(clock: Any, seconds: float) -> RequestBudget:
    return RequestBudget(clock.now + seconds)


class Recorder:
    """Acquires in a background task, records outcome, holds the lease until told to release."""

    def __init__(self, ctl: AdmissionController, call: Any, budget: RequestBudget | None = None):
        self.ctl = ctl
        self.call = call
        self.budget = budget or RequestBudget(None)
        self.lease: AdmissionLease | None = None
        self.error: BaseException | None = None
        self.release = anyio.Event()
        self.scope = anyio.CancelScope()

    async def run(self, order: list[str] | None = None) -> None:
        with self.scope:
            try:
                self.lease = await self.ctl.acquire(self.call, budget=self.budget)
            except Exception as exc:
                self.error = exc
                return
            if order is not None:
                order.append(str(self.call.id))
            async with self.lease:
                await self.release.wait()


# -- fast path and snapshot -----------------------------------------------------------------------


async def test_unlimited_acquire_and_release(clock: Any, make_call: Any) -> None:
    ctl = controller(clock)
    lease = await ctl.acquire(make_call("a"))
    snap = ctl.snapshot()
    assert snap == AdmissionSnapshot(
        queued=0,
        active=1,
        available_requests=None,
        available_tokens=None,
        queue_capacity=100,
        concurrency_limit=None,
        closed=False,
        producers_waiting=0,
    )
    lease.release()
    assert lease.released
    assert ctl.snapshot().active == 0


async def test_snapshot_reports_counters_only(clock: Any, make_call: Any) -> None:
    ctl = controller(
        clock, queue_capacity=4, limit_requests=5, limit_tokens=100, concurrency_limit=2
    )
    lease = await ctl.acquire(make_call("secret-prompt-id", required_tokens=30))
    snap = ctl.snapshot()
    assert (snap.available_requests, snap.available_tokens) == (4, 70)
    assert (snap.queue_capacity, snap.concurrency_limit, snap.active) == (4, 2, 1)
    assert set(snap.__slots__) == {
        "queued",
        "active",
        "available_requests",
        "available_tokens",
        "queue_capacity",
        "concurrency_limit",
        "closed",
        "producers_waiting",
    }
    assert "secret" not in repr(snap)
    lease.release()


# -- FIFO and the bounded queue -------------------------------------------------------------------


async def test_full_queue_blocks_producers_and_keeps_fifo_order(clock: Any, make_call: Any) -> None:
    ctl = controller(clock, queue_capacity=2, concurrency_limit=1)
    order: list[str] = []
    recorders = [Recorder(ctl, make_call(str(i))) for i in range(6)]
    async with anyio.create_task_group() as tg:
        for r in recorders:  # start one at a time so arrival order is known
            tg.start_soon(r.run, order)
            await clock.settle()
        snap = ctl.snapshot()
        assert (snap.active, snap.queued, snap.producers_waiting) == (1, 2, 3)
        for r in recorders:
            await clock.settle()
            assert r.lease is not None
            snap = ctl.snapshot()
            assert snap.active == 1
            assert snap.queued <= 2
            r.release.set()
    assert order == [str(i) for i in range(6)]
    assert ctl.snapshot() == AdmissionSnapshot(0, 0, None, None, 2, 1, False, 0)


async def test_small_request_never_overtakes_earlier_large_one(clock: Any, make_call: Any) -> None:
    ctl = controller(clock, limit_tokens=100, capacity_refresh_time=10)
    first = await ctl.acquire(make_call("first", required_tokens=60))
    order: list[str] = []
    big = Recorder(ctl, make_call("big", required_tokens=80))
    small = Recorder(ctl, make_call("small", required_tokens=10))
    async with anyio.create_task_group() as tg:
        tg.start_soon(big.run, order)
        await clock.settle()
        tg.start_soon(small.run, order)
        await clock.settle()
        # 40 tokens remain: enough for "small", but it waits behind "big".
        assert order == []
        assert ctl.snapshot().available_tokens == 40
        await clock.advance(10)  # next window: big (80) then small (10) fit
        assert order == ["big", "small"]
        big.release.set()
        small.release.set()
    first.release()


async def test_window_resets_request_counter(clock: Any, make_call: Any) -> None:
    ctl = controller(clock, limit_requests=2, interval=5, capacity_refresh_time=60)
    a = await ctl.acquire(make_call("a"))
    b = await ctl.acquire(make_call("b"))
    late = Recorder(ctl, make_call("c"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(late.run)
        await clock.advance(4.9)
        assert late.lease is None
        assert ctl.snapshot().queued == 1
        await clock.advance(0.1)  # interval (5 s) overrides capacity_refresh_time
        assert late.lease is not None
        assert ctl.snapshot().available_requests == 1
        late.release.set()
    a.release()
    b.release()


# -- request/token atomicity, estimates, oversize -------------------------------------------------


async def test_requests_and_tokens_are_debited_together_or_not_at_all(
    clock: Any, make_call: Any
) -> None:
    ctl = controller(clock, limit_requests=10, limit_tokens=100, capacity_refresh_time=60)
    a = await ctl.acquire(make_call("a", required_tokens=90))
    waiting = Recorder(ctl, make_call("b", required_tokens=50))
    async with anyio.create_task_group() as tg:
        tg.start_soon(waiting.run)
        await clock.settle()
        snap = ctl.snapshot()
        # b waits for tokens and has not consumed a request unit meanwhile
        assert (snap.available_requests, snap.available_tokens, snap.queued) == (9, 10, 1)
        await clock.advance(60)
        assert waiting.lease is not None
        snap = ctl.snapshot()
        assert (snap.available_requests, snap.available_tokens) == (9, 50)
        waiting.release.set()
    a.release()
    # units are consumed by a granted lease, not restored on release
    assert ctl.snapshot().available_tokens == 50


async def test_missing_estimate_with_token_limit(clock: Any, make_call: Any) -> None:
    ctl = controller(clock, limit_tokens=100)
    with pytest.raises(TokenEstimateUnavailable):
        await ctl.acquire(make_call("a", required_tokens=None))
    assert ctl.snapshot().available_tokens == 100
    # without a token limit the estimate is optional
    lease = await controller(clock).acquire(make_call("b", required_tokens=None))
    lease.release()


async def test_request_larger_than_window_fails_at_once(clock: Any, make_call: Any) -> None:
    ctl = controller(clock, limit_tokens=100)
    with pytest.raises(RequestExceedsTokenWindow):
        await ctl.acquire(make_call("a", required_tokens=101))
    assert clock.sleeps == []
    lease = await ctl.acquire(make_call("b", required_tokens=100))
    lease.release()


@pytest.mark.parametrize("tokens", [-1, True, 1.5])
async def test_bad_token_estimate_names_the_field(clock: Any, make_call: Any, tokens: Any) -> None:
    with pytest.raises(AdmissionConfigError) as info:
        await controller(clock, limit_tokens=5).acquire(make_call("a", required_tokens=tokens))
    assert info.value.field == "required_tokens"


# -- conflicts ------------------------------------------------------------------------------------


async def test_same_call_id_twice_conflicts(clock: Any, make_call: Any) -> None:
    ctl = controller(clock, concurrency_limit=1)
    call_id = uuid.uuid4()
    lease = await ctl.acquire(make_call(call_id))
    with pytest.raises(AdmissionConflict):
        await ctl.acquire(make_call(str(call_id)))  # same id as text
    queued = Recorder(ctl, make_call("q"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(queued.run)
        await clock.settle()
        with pytest.raises(AdmissionConflict):
            await ctl.acquire(make_call("q"))  # already queued
        lease.release()
        await clock.settle()
        queued.release.set()
    # after release the id is free again
    again = await ctl.acquire(make_call(call_id))
    again.release()


async def test_terminal_call_cannot_be_acquired(clock: Any, make_call: Any) -> None:
    ctl = controller(clock)
    with pytest.raises(AdmissionConflict):
        await ctl.acquire(make_call("done", is_terminal=True))
    assert ctl.snapshot().active == 0


# -- deadlines ------------------------------------------------------------------------------------


async def test_past_deadline_does_no_work(clock: Any, make_call: Any) -> None:
    ctl = controller(clock)
    with pytest.raises(RequestDeadlineExceeded) as info:
        await ctl.acquire(make_call("a"), budget=RequestBudget(clock.now))
    assert (info.value.call_id, info.value.phase) == ("a", "enqueue")
    assert ctl.snapshot().active == 0


async def test_next_window_after_deadline_fails_at_once(clock: Any, make_call: Any) -> None:
    ctl = controller(clock, limit_requests=1, capacity_refresh_time=60)
    first = await ctl.acquire(make_call("a"))
    start = clock.now
    with pytest.raises(RequestDeadlineExceeded) as info:
        await ctl.acquire(make_call("b"), budget=budget_in(clock, 10))
    assert info.value.phase == "rate"
    assert clock.now == start  # failed without waiting
    assert clock.sleeps == []  # and scheduled no timer
    snap = ctl.snapshot()
    assert (snap.queued, snap.available_requests) == (0, 0)
    first.release()


async def test_expiry_while_waiting_for_queue_slot(clock: Any, make_call: Any) -> None:
    ctl = controller(clock, queue_capacity=1, concurrency_limit=1)
    active = await ctl.acquire(make_call("active"))
    queued = Recorder(ctl, make_call("queued"))
    blocked = Recorder(ctl, make_call("blocked"), budget_in(clock, 5))
    async with anyio.create_task_group() as tg:
        tg.start_soon(queued.run)
        await clock.settle()
        tg.start_soon(blocked.run)
        await clock.settle()
        assert ctl.snapshot().producers_waiting == 1
        await clock.advance(5)
        assert isinstance(blocked.error, RequestDeadlineExceeded)
        assert blocked.error.phase == "enqueue"
        assert ctl.snapshot().producers_waiting == 0
        queued.release.set()
        active.release()
    assert ctl.snapshot().active == 0


async def test_expiry_while_rate_waiting_behind_the_head(clock: Any, make_call: Any) -> None:
    ctl = controller(clock, limit_requests=1, capacity_refresh_time=60)
    first = await ctl.acquire(make_call("a"))
    head = Recorder(ctl, make_call("head"), budget_in(clock, 100))
    behind = Recorder(ctl, make_call("behind"), budget_in(clock, 30))
    async with anyio.create_task_group() as tg:
        tg.start_soon(head.run)
        await clock.settle()
        tg.start_soon(behind.run)
        await clock.advance(30)
        assert isinstance(behind.error, RequestDeadlineExceeded)
        assert behind.error.phase == "rate"
        assert ctl.snapshot().queued == 1
        await clock.advance(30)
        assert head.lease is not None
        head.release.set()
    first.release()


async def test_expiry_while_waiting_for_concurrency_restores_units(
    clock: Any, make_call: Any
) -> None:
    ctl = controller(clock, limit_requests=5, concurrency_limit=1, capacity_refresh_time=60)
    first = await ctl.acquire(make_call("a"))
    waiter = Recorder(ctl, make_call("b"), budget_in(clock, 10))
    async with anyio.create_task_group() as tg:
        tg.start_soon(waiter.run)
        await clock.settle()
        assert ctl.snapshot().available_requests == 3  # b reserved its unit
        await clock.advance(10)
    assert isinstance(waiter.error, RequestDeadlineExceeded)
    assert waiter.error.phase == "concurrency"
    snap = ctl.snapshot()
    assert (snap.available_requests, snap.queued, snap.active) == (4, 0, 1)
    first.release()


async def test_real_clock_deadline_path(make_call: Any) -> None:
    """The default clock uses cancel-scope deadlines; only the outcome is asserted."""
    ctl = AdmissionController(AdmissionConfig(concurrency_limit=1))
    lease = await ctl.acquire(make_call("a"))
    with pytest.raises(RequestDeadlineExceeded) as info:
        await ctl.acquire(make_call("b"), budget=RequestBudget(anyio.current_time() + 0.02))
    assert info.value.phase == "concurrency"
    assert ctl.snapshot().queued == 0
    lease.release()


# -- cancellation ---------------------------------------------------------------------------------


async def test_cancel_while_queued_leaves_no_item_and_no_debit(clock: Any, make_call: Any) -> None:
    ctl = controller(
        clock, queue_capacity=1, limit_requests=5, limit_tokens=50, concurrency_limit=1
    )
    first = await ctl.acquire(make_call("a", required_tokens=10))
    reserved = Recorder(ctl, make_call("reserved", required_tokens=10))
    producer = Recorder(ctl, make_call("producer", required_tokens=10))
    async with anyio.create_task_group() as tg:
        tg.start_soon(reserved.run)
        await clock.settle()
        tg.start_soon(producer.run)
        await clock.settle()
        snap = ctl.snapshot()
        assert (snap.queued, snap.producers_waiting) == (1, 1)
        assert (snap.available_requests, snap.available_tokens) == (3, 30)
        producer.scope.cancel()
        reserved.scope.cancel()
        await clock.settle()
    assert reserved.lease is None
    assert reserved.error is None
    snap = ctl.snapshot()
    assert (snap.queued, snap.producers_waiting, snap.active) == (0, 0, 1)
    assert (snap.available_requests, snap.available_tokens) == (4, 40)
    first.release()
    # the cancelled ids are free again
    lease = await ctl.acquire(make_call("reserved", required_tokens=10))
    lease.release()


async def test_debit_from_an_old_window_is_not_restored(clock: Any, make_call: Any) -> None:
    ctl = controller(clock, limit_requests=2, concurrency_limit=1, capacity_refresh_time=10)
    first = await ctl.acquire(make_call("a"))
    waiter = Recorder(ctl, make_call("b"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(waiter.run)
        await clock.advance(15)  # the window that held b's debit is gone
        waiter.scope.cancel()
    assert ctl.snapshot().available_requests == 2
    first.release()


# -- leases ---------------------------------------------------------------------------------------


async def test_permit_is_held_until_release_and_release_is_idempotent(
    clock: Any, make_call: Any
) -> None:
    ctl = controller(clock, concurrency_limit=1)
    lease = await ctl.acquire(make_call("a"))
    second = Recorder(ctl, make_call("b"))
    third = Recorder(ctl, make_call("c"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(second.run)
        tg.start_soon(third.run)
        await clock.advance(1000)
        assert second.lease is None
        lease.release()
        lease.release()  # no second permit is freed
        await clock.settle()
        assert second.lease is not None
        assert third.lease is None
        assert ctl.snapshot().active == 1
        second.release.set()
        await clock.settle()
        assert third.lease is not None
        third.release.set()
    assert ctl.snapshot().active == 0


async def test_lease_context_manager_releases_and_never_suppresses(
    clock: Any, make_call: Any
) -> None:
    ctl = controller(clock, concurrency_limit=1)
    lease = await ctl.acquire(make_call("a"))
    with pytest.raises(ValueError, match="boom"):
        async with lease:
            raise ValueError("boom")
    assert lease.released
    assert ctl.snapshot().active == 0


# -- close ----------------------------------------------------------------------------------------


async def test_close_aborts_queued_and_active_and_waits_for_cleanup(
    clock: Any, make_call: Any
) -> None:
    ctl = controller(clock, concurrency_limit=1)
    events: list[str] = []
    outcome: dict[str, BaseException] = {}

    async def active_work() -> None:
        lease = await ctl.acquire(make_call("active"))
        async with lease:
            try:
                with lease.abort_scope():
                    await anyio.sleep_forever()
            except AdmissionClosed as exc:
                outcome["active"] = exc
            finally:
                with anyio.CancelScope(shield=True):
                    await clock.sleep(2)  # cleanup that takes (fake) time
                events.append("cleanup done")

    queued = Recorder(ctl, make_call("queued"))

    async def closer() -> None:
        await ctl.close()
        events.append("closed")

    async with anyio.create_task_group() as tg:
        tg.start_soon(active_work)
        await clock.settle()
        tg.start_soon(queued.run)
        await clock.settle()
        tg.start_soon(closer)
        tg.start_soon(closer)  # concurrent close also waits
        await clock.settle()
        assert isinstance(queued.error, AdmissionClosed)
        assert isinstance(outcome["active"], AdmissionClosed)
        assert events == []  # close still waits for the active cleanup
        assert ctl.snapshot().closed
        await clock.advance(2)
    assert events == ["cleanup done", "closed", "closed"]
    snap = ctl.snapshot()
    assert (snap.active, snap.queued, snap.producers_waiting) == (0, 0, 0)
    await ctl.close()  # idempotent
    with pytest.raises(AdmissionClosed):
        await ctl.acquire(make_call("new"))


async def test_abort_scope_entered_after_close_cancels_at_once(clock: Any, make_call: Any) -> None:
    ctl = controller(clock)
    lease = await ctl.acquire(make_call("a"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(ctl.close)
        await clock.settle()
        assert lease.aborted
        with pytest.raises(AdmissionClosed), lease.abort_scope():
            await anyio.sleep_forever()
        lease.release()


async def test_abort_scope_without_close_passes_exceptions_through(
    clock: Any, make_call: Any
) -> None:
    ctl = controller(clock)
    lease = await ctl.acquire(make_call("a"))
    with pytest.raises(KeyError), lease.abort_scope():
        raise KeyError("x")
    with anyio.move_on_after(0) as outer, lease.abort_scope():
        await anyio.sleep_forever()
    assert outer.cancelled_caught
    assert not lease.aborted
    lease.release()
    await ctl.close()

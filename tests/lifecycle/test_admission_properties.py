"""Property test: strict FIFO and every bound hold under random interleavings.

Hypothesis draws a configuration and a sequence of arrivals, releases, cancellations and clock
advances; after every step the controller's snapshot must respect its limits, and no call may
hold a lease while an earlier call is still waiting.
"""

from __future__ import annotations

from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lionagi.service import (
    AdmissionClosed,
    AdmissionConfig,
    AdmissionController,
    AdmissionLease,
    RequestBudget,
    RequestDeadlineExceeded,
)

ops = st.lists(
    st.one_of(
        st.tuples(
            st.just("arrive"),
            st.integers(0, 20),
            st.one_of(st.none(), st.floats(0.5, 30)),
        ),
        st.tuples(st.just("release"), st.integers(0, 50)),
        st.tuples(st.just("cancel"), st.integers(0, 50)),
        st.tuples(st.just("advance"), st.floats(0.1, 15)),
    ),
    max_size=40,
)


class Slot:
    def __init__(self, index: int, tokens: int, budget: RequestBudget) -> None:
        self.index = index
        self.tokens = tokens
        self.budget = budget
        self.lease: AdmissionLease | None = None
        self.error: BaseException | None = None
        self.cancelled = False
        self.released = False
        self.scope = anyio.CancelScope()
        self.done = anyio.Event()

    @property
    def waiting(self) -> bool:
        return self.lease is None and self.error is None and not self.cancelled

    async def run(self, ctl: AdmissionController) -> None:
        with self.scope:
            try:
                self.lease = await ctl.acquire(
                    _Call(str(self.index), self.tokens), budget=self.budget
                )
            except (RequestDeadlineExceeded, AdmissionClosed) as exc:
                self.error = exc
                return
            try:
                await self.done.wait()
            finally:
                self.lease.release()
        if self.scope.cancelled_caught and self.lease is None:
            self.cancelled = True


class _Call:
    def __init__(self, call_id: str, tokens: int) -> None:
        self.id = call_id
        self.required_tokens = tokens
        self.is_terminal = False


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    capacity=st.integers(1, 4),
    concurrency=st.one_of(st.none(), st.integers(1, 3)),
    limit_tokens=st.one_of(st.none(), st.integers(20, 50)),
    limit_requests=st.one_of(st.none(), st.integers(1, 4)),
    steps=ops,
)
def test_fifo_and_bounds_under_random_interleavings(
    clock: Any,
    capacity: int,
    concurrency: int | None,
    limit_tokens: int | None,
    limit_requests: int | None,
    steps: list[tuple[Any, ...]],
) -> None:
    clock.now = 1000.0
    clock._timers.clear()
    cfg = AdmissionConfig(
        queue_capacity=capacity,
        concurrency_limit=concurrency,
        limit_tokens=limit_tokens,
        limit_requests=limit_requests,
        capacity_refresh_time=10,
    )

    def check(ctl: AdmissionController, slots: list[Slot]) -> None:
        snap = ctl.snapshot()
        assert snap.queued <= capacity
        if concurrency is not None:
            assert snap.active <= concurrency
        assert snap.active == sum(1 for s in slots if s.lease is not None and not s.released)
        if limit_tokens is not None:
            assert 0 <= snap.available_tokens <= limit_tokens  # type: ignore[operator]
        if limit_requests is not None:
            assert 0 <= snap.available_requests <= limit_requests  # type: ignore[operator]
        for later in slots:
            if later.lease is not None:
                assert not any(s.waiting for s in slots[: later.index]), "FIFO overtaken"

    async def main() -> None:
        ctl = AdmissionController(cfg, clock=clock, sleep=clock.sleep)
        slots: list[Slot] = []
        async with anyio.create_task_group() as tg:
            for step in steps:
                kind = step[0]
                if kind == "arrive":
                    tokens, timeout = step[1], step[2]
                    if limit_tokens is not None:
                        tokens = min(tokens, limit_tokens)
                    budget = RequestBudget(None if timeout is None else clock.now + timeout)
                    slot = Slot(len(slots), tokens, budget)
                    slots.append(slot)
                    tg.start_soon(slot.run, ctl)
                elif kind == "release":
                    held = [s for s in slots if s.lease is not None and not s.released]
                    if held:
                        target = held[step[1] % len(held)]
                        target.released = True
                        target.done.set()
                elif kind == "cancel":
                    waiting = [s for s in slots if s.waiting]
                    if waiting:
                        waiting[step[1] % len(waiting)].scope.cancel()
                else:
                    await clock.advance(step[1])
                await clock.settle()
                for s in slots:  # a cancelled waiter is no longer "waiting" for the FIFO check
                    if s.scope.cancel_called and s.lease is None and s.error is None:
                        s.cancelled = True
                check(ctl, slots)
            for s in slots:
                if s.lease is not None:
                    s.released = True
                s.done.set()
            await ctl.close()
        snap = ctl.snapshot()
        assert (snap.active, snap.queued, snap.producers_waiting) == (0, 0, 0)
        assert not ctl._ids  # nothing left behind

    anyio.run(main)

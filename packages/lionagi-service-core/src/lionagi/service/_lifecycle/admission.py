"""The admission controller: bounded FIFO queue, fixed-window rate limits, concurrency permits.

Order (ADR-0029 D1, normative): validate → bounded FIFO enqueue → head-of-line request+token
reservation → concurrency permit → lease. Every state change happens synchronously, between two
awaits, so the event loop is the "one lock": a reservation checks and debits request and token
units in one step, and a call is handed each resource by :meth:`AdmissionController._pump` in
strict arrival order (a later small call never overtakes an earlier large one).

Rate windows are computed from the clock (window ``k`` spans ``[origin + kL, origin + (k+1)L)``)
rather than reset by a background task, so there is no replenisher that could fail; the head
waiter sleeps until the next window opens, or fails at once if that is after its deadline.

The controller belongs to one event loop; it is not thread-safe.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from enum import IntEnum
from typing import Final, Protocol
from uuid import UUID

import anyio
from anyio.lowlevel import checkpoint_if_cancelled

from .._base.errors import (
    AdmissionClosed,
    AdmissionConfigError,
    AdmissionConflict,
    DeadlinePhase,
    RequestDeadlineExceeded,
    RequestExceedsTokenWindow,
    StreamClosed,
    TokenEstimateUnavailable,
)
from .budget import NO_DEADLINE, RequestBudget
from .clock import Clock, Sleep, default_clock, default_sleep, time_or_none
from .config import AdmissionConfig
from .deadline import DeadlineReached, run_before
from .lease import AdmissionLease

__all__ = ["Admission", "AdmissionCall", "AdmissionController", "AdmissionSnapshot"]


class AdmissionCall(Protocol):
    """What admission reads from a call: identity, token estimate and terminal state."""

    @property
    def id(self) -> str | UUID: ...

    @property
    def required_tokens(self) -> int | None: ...

    @property
    def is_terminal(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class AdmissionSnapshot:
    """Counters only: no payloads, headers, keys or prompts.

    `queued` counts calls holding a queue slot (waiting for the rate window or a concurrency
    permit) and never exceeds `queue_capacity`; `producers_waiting` counts callers blocked
    because the queue is full; `active` counts granted, unreleased leases.
    """

    queued: int
    active: int
    available_requests: int | None
    available_tokens: int | None
    queue_capacity: int
    concurrency_limit: int | None
    closed: bool
    producers_waiting: int = 0


class Admission(Protocol):
    """What the call supervisor needs from an admission controller.

    `AdmissionController` (in-process, the default) and the Redis-shared controller of
    `SharedAdmission` both provide it; the supervisor never knows which one it holds.
    """

    @property
    def config(self) -> AdmissionConfig: ...

    @property
    def closed(self) -> bool: ...

    async def acquire(
        self, call: AdmissionCall, *, budget: RequestBudget | None = None
    ) -> AdmissionLease: ...

    async def _acquire_as(
        self, call: AdmissionCall, call_id: str, budget: RequestBudget | None
    ) -> AdmissionLease: ...

    async def close(self) -> None: ...

    def snapshot(self) -> AdmissionSnapshot: ...


class _Stage(IntEnum):
    ENQUEUE = 0  # waiting for a queue slot
    RATE = 1  # holds a slot; waiting to reserve request/token units at the head of the line
    PERMIT = 2  # holds a slot and reserved units; waiting for a concurrency permit
    ACTIVE = 3  # permit granted; the lease is about to be returned


_PHASE: Final[dict[_Stage, DeadlinePhase]] = {
    _Stage.ENQUEUE: "enqueue",
    _Stage.RATE: "rate",
    _Stage.PERMIT: "concurrency",
}


class _Waiter:
    __slots__ = ("call_id", "event", "reserved", "stage", "stopped", "tokens", "window")

    def __init__(self, call_id: str, tokens: int) -> None:
        self.call_id = call_id
        self.tokens = tokens
        self.stage = _Stage.ENQUEUE
        self.event: anyio.Event | None = None
        self.reserved = False
        self.window = -1
        self.stopped = False


class AdmissionController:
    """Grants `AdmissionLease` objects under one model's admission limits."""

    def __init__(
        self,
        config: AdmissionConfig | None = None,
        *,
        clock: Clock | None = None,
        sleep: Sleep | None = None,
    ) -> None:
        """Create a controller; nothing starts until the first `acquire`.

        Args:
            config: Limits; defaults to the API family (queue 100, unlimited otherwise).
            clock: Monotonic clock the budgets' deadlines are measured on.
            sleep: Sleep on the same timeline as `clock`.
        """
        cfg = config if config is not None else AdmissionConfig()
        if not isinstance(cfg, AdmissionConfig):
            raise AdmissionConfigError("config", f"must be an AdmissionConfig, got {cfg!r}")
        self._config = cfg
        self._clock: Clock = clock if clock is not None else default_clock
        self._sleep: Sleep = sleep if sleep is not None else default_sleep
        self._window_len = cfg.window
        self._limit_requests = cfg.limit_requests
        self._limit_tokens = cfg.limit_tokens
        self._rate_limited = cfg.rate_limited
        self._concurrency_limit = cfg.concurrency_limit
        self._queue_capacity = cfg.queue_capacity
        # fixed window, anchored at the first reservation attempt
        self._origin: float | None = None
        self._window_index = 0
        self._window_end = 0.0
        self._used_requests = 0
        self._used_tokens = 0
        # waiting lines, each FIFO; slot holders are _rate_q + _permit_q
        self._pending: deque[_Waiter] = deque()
        self._rate_q: deque[_Waiter] = deque()
        self._permit_q: deque[_Waiter] = deque()
        self._timed_head: _Waiter | None = None
        self._active = 0
        self._leases: dict[str, AdmissionLease] = {}
        self._waiters: dict[str, _Waiter] = {}  # queued calls, for _stop_waiting
        self._ids: set[str] = set()
        self._closed = False
        self._drained: anyio.Event | None = None

    @property
    def config(self) -> AdmissionConfig:
        """The limits this controller enforces."""
        return self._config

    @property
    def closed(self) -> bool:
        """True once `close` was called."""
        return self._closed

    # -- public API -------------------------------------------------------------------------------

    async def acquire(
        self, call: AdmissionCall, *, budget: RequestBudget | None = None
    ) -> AdmissionLease:
        """Wait, in arrival order and under `budget` (None: no deadline), for a lease.

        Raises:
            AdmissionClosed: The controller is (or became) closed.
            AdmissionConflict: The call id is already queued/active, or the call is terminal.
            TokenEstimateUnavailable: A token limit is set and the call has no estimate.
            RequestExceedsTokenWindow: The call needs more tokens than one window grants.
            RequestDeadlineExceeded: The deadline passed while waiting; `phase` is
                `enqueue`, `rate` or `concurrency`. Raised at once when the next rate
                window opens only at or after the deadline.

        Cancellation or expiry while waiting leaves no queue item and no debit.
        """
        return await self._acquire_as(call, str(call.id), budget)

    async def _acquire_as(
        self, call: AdmissionCall, call_id: str, budget: RequestBudget | None
    ) -> AdmissionLease:
        """:meth:`acquire` for a caller that already holds ``str(call.id)`` (the supervisor)."""
        # Deliver a pending cancellation without a full event-loop round trip on the hot path.
        await checkpoint_if_cancelled()
        if budget is None:
            budget = NO_DEADLINE
        tokens = admit_check(
            call, call_id, budget, self._closed, self._ids, self._limit_tokens, self._clock
        )
        limit_c = self._concurrency_limit
        if (
            not self._rate_limited
            and not self._anyone_waiting()
            and (limit_c is None or self._active < limit_c)
        ):
            # Nobody waits and nothing is rate limited: the pump would move this call straight
            # through every stage, so grant it in place (same counters, no queue round trip).
            self._ids.add(call_id)
            self._active += 1
        else:
            waiter = _Waiter(call_id, tokens)
            self._ids.add(call_id)
            self._pending.append(waiter)
            self._waiters[call_id] = waiter
            try:
                self._pump()
                if waiter.stage is not _Stage.ACTIVE:
                    await self._wait(waiter, budget)
            except BaseException:
                self._abandon(waiter)
                raise
            finally:
                del self._waiters[call_id]
        lease = AdmissionLease(call_id, self._release)
        self._leases[call_id] = lease
        return lease

    async def close(self) -> None:
        """Refuse new calls, wake queued ones with AdmissionClosed, abort active leases.

        Waits until every queued caller has left and every active lease has been released (its
        cleanup done). Idempotent; concurrent callers all wait for the same drain.

        The wait has no limit of its own (ADR-0029 D2: close waits for cleanup). Aborting a
        lease cancels only work inside its `AdmissionLease.abort_scope()`, so a holder working
        outside one, or one that never releases (the calling task's own lease, say), keeps this
        waiting until it does. Bound it from outside, as `iModelManager.shutdown` does per
        model: `with anyio.move_on_after(10): await controller.close()`. A close cut short that
        way has still refused new calls, woken every queued caller and aborted every lease;
        `snapshot().active` counts the leases still held, and a later `close()` waits again and
        returns once the last is released.
        """
        if not self._closed:
            self._closed = True
            self._drained = anyio.Event()
            for line in (self._pending, self._rate_q, self._permit_q):
                for waiter in line:
                    self._wake(waiter)
            for lease in tuple(self._leases.values()):
                lease._abort()
            self._check_drained()
        assert self._drained is not None
        await self._drained.wait()

    def _stop_waiting(self, call_id: str) -> bool:
        """Make the queued call ``call_id`` leave the queue with `StreamClosed`; True if queued.

        Its stream was closed from another task while it waited (a stop button): it gives its
        place back at once, as a cancelled waiter does, instead of holding it until admitted.
        """
        waiter = self._waiters.get(call_id)
        if waiter is None:
            return False
        waiter.stopped = True
        self._wake(waiter)
        return True

    def snapshot(self) -> AdmissionSnapshot:
        """Current counters for observability; never includes call payloads.

        Callable from any code: outside the event loop (a health check, a metrics thread) the
        loop's clock has no reading, so a rate window that has ended is not rolled over there
        and the counters are those of the last window the loop saw.
        """
        if self._rate_limited and self._origin is not None:
            now = time_or_none(self._clock)
            if now is not None and now >= self._window_end:
                self._roll_window()
        lr, lt = self._limit_requests, self._limit_tokens
        return AdmissionSnapshot(
            queued=len(self._rate_q) + len(self._permit_q),
            active=self._active,
            available_requests=None if lr is None else lr - self._used_requests,
            available_tokens=None if lt is None else lt - self._used_tokens,
            queue_capacity=self._queue_capacity,
            concurrency_limit=self._concurrency_limit,
            closed=self._closed,
            producers_waiting=len(self._pending),
        )

    # -- waiting ----------------------------------------------------------------------------------

    async def _wait(self, waiter: _Waiter, budget: RequestBudget) -> None:
        """Sleep until the pump hands ``waiter`` a permit, the deadline passes or close."""
        deadline = budget.deadline
        clock = self._clock
        while True:
            if self._closed:
                raise AdmissionClosed(
                    f"admission closed while call {waiter.call_id} was waiting; it was aborted"
                )
            if waiter.stopped:  # before the stage: a permit granted meanwhile goes back
                raise StreamClosed(waiter.call_id)
            stage = waiter.stage
            if stage is _Stage.ACTIVE:
                return
            now = clock()
            if deadline is not None and now >= deadline:
                raise RequestDeadlineExceeded(waiter.call_id, _PHASE[stage])
            until = deadline
            timed = stage is _Stage.RATE and self._rate_q[0] is waiter
            if timed:
                # Head of the line, blocked by an exhausted window: wait for the next one.
                if now >= self._window_end:
                    self._pump()
                    continue
                boundary = self._window_end
                if deadline is not None and boundary >= deadline:
                    raise RequestDeadlineExceeded(waiter.call_id, "rate")
                until = boundary
                self._timed_head = waiter
            event = waiter.event
            if event is None or event.is_set():
                event = waiter.event = anyio.Event()
            try:
                await run_before(event.wait, until, clock=clock, sleep=self._sleep)
            except DeadlineReached:
                pass  # the loop re-reads the clock and decides
            finally:
                if self._timed_head is waiter:
                    self._timed_head = None
            if timed:
                self._pump()

    @staticmethod
    def _wake(waiter: _Waiter) -> None:
        if waiter.event is not None:
            waiter.event.set()

    # -- the hand-off ---------------------------------------------------------------------------

    def _roll_window(self) -> None:
        now = self._clock()
        length = self._window_len
        if self._origin is None:
            self._origin = now
            self._window_index = 0
            self._window_end = now + length
            return
        if now < self._window_end:
            return
        index = max(int((now - self._origin) // length), self._window_index + 1)
        end = self._origin + (index + 1) * length
        if end <= now:  # float rounding at an exact boundary
            index += 1
            end = self._origin + (index + 1) * length
        self._window_index = index
        self._window_end = end
        self._used_requests = 0
        self._used_tokens = 0

    def _pump(self) -> None:
        """Move waiters forward in strict FIFO order as far as the limits allow."""
        if self._closed:
            return
        pending, rate_q, permit_q = self._pending, self._rate_q, self._permit_q
        capacity = self._queue_capacity
        limit_c = self._concurrency_limit
        while True:
            while pending and len(rate_q) + len(permit_q) < capacity:
                waiter = pending.popleft()
                waiter.stage = _Stage.RATE
                rate_q.append(waiter)
                self._wake(waiter)
            if rate_q:
                if self._rate_limited:
                    self._reserve_head_of_line()
                else:
                    while rate_q:
                        waiter = rate_q.popleft()
                        waiter.stage = _Stage.PERMIT
                        permit_q.append(waiter)
            granted = False
            while permit_q and (limit_c is None or self._active < limit_c):
                waiter = permit_q.popleft()
                waiter.stage = _Stage.ACTIVE
                self._active += 1
                self._wake(waiter)
                granted = True
            if not (granted and pending):
                return

    def _reserve_head_of_line(self) -> None:
        self._roll_window()
        rate_q, permit_q = self._rate_q, self._permit_q
        lr, lt = self._limit_requests, self._limit_tokens
        while rate_q:
            waiter = rate_q[0]
            if lr is not None and self._used_requests >= lr:
                break
            if lt is not None and self._used_tokens + waiter.tokens > lt:
                break
            rate_q.popleft()
            self._used_requests += 1
            self._used_tokens += waiter.tokens
            waiter.reserved = True
            waiter.window = self._window_index
            waiter.stage = _Stage.PERMIT
            permit_q.append(waiter)
            self._wake(waiter)
        if rate_q and rate_q[0] is not self._timed_head:
            self._wake(rate_q[0])  # a new head must start waiting for the next window

    # -- leaving ----------------------------------------------------------------------------------

    def _abandon(self, waiter: _Waiter) -> None:
        """Undo everything a waiter held after cancellation, expiry, close or error."""
        stage = waiter.stage
        if stage is _Stage.ENQUEUE:
            self._pending.remove(waiter)
        elif stage is _Stage.RATE:
            self._rate_q.remove(waiter)
        elif stage is _Stage.PERMIT:
            self._permit_q.remove(waiter)
            self._restore(waiter)
        else:  # permit handed over, but no lease reached the caller: no work can have run
            self._active -= 1
            self._restore(waiter)
        self._forget(waiter.call_id)
        self._pump()

    def _restore(self, waiter: _Waiter) -> None:
        if waiter.reserved and waiter.window == self._window_index:
            self._used_requests -= 1
            self._used_tokens -= waiter.tokens
        waiter.reserved = False

    def _release(self, lease: AdmissionLease) -> None:
        if self._leases.get(lease.call_id) is not lease:
            return
        del self._leases[lease.call_id]
        self._active -= 1
        self._forget(lease.call_id)
        if self._anyone_waiting():
            self._pump()

    def _anyone_waiting(self) -> bool:
        """True while any line (full queue, rate window, concurrency permit) holds a waiter."""
        return bool(self._pending or self._rate_q or self._permit_q)

    def _forget(self, call_id: str) -> None:
        self._ids.discard(call_id)
        self._check_drained()

    def _check_drained(self) -> None:
        if self._drained is not None and not self._ids:
            self._drained.set()


def admit_check(
    call: AdmissionCall,
    call_id: str,
    budget: RequestBudget,
    closed: bool,
    ids: set[str],
    limit_tokens: int | None,
    clock: Clock,
) -> int:
    """Refuse a call no admission controller could grant; returns the tokens it reserves.

    One definition for the in-process and the shared controller, so both refuse the same calls
    with the same errors in the same order: closed, terminal, duplicate id, a bad or missing
    token estimate, more tokens than a window grants, a deadline already passed.
    """
    if closed:
        raise AdmissionClosed("admission is closed; no new calls are admitted")
    if call.is_terminal:
        raise AdmissionConflict(f"call {call_id} is already terminal; create a new call")
    if call_id in ids:
        raise AdmissionConflict(f"call {call_id} is already queued or active")
    # The estimate is read only when a token limit exists: estimating serializes the prompt.
    tokens = 0
    if limit_tokens is not None:
        estimate = call.required_tokens
        if estimate is not None and (
            not isinstance(estimate, int) or isinstance(estimate, bool) or estimate < 0
        ):
            raise AdmissionConfigError(
                "required_tokens", f"must be None or an int >= 0, got {estimate!r}"
            )
        if estimate is None:
            raise TokenEstimateUnavailable(
                f"call {call_id}: limit_tokens={limit_tokens} is configured but the call has no "
                "token estimate: pass requires_tokens=True to the model (four characters per "
                "token of its messages or input), set token_estimate on a call from "
                "create_api_calling(), or remove the token limit"
            )
        if estimate > limit_tokens:
            raise RequestExceedsTokenWindow(
                f"call {call_id} needs {estimate} tokens but one window grants only {limit_tokens}"
            )
        tokens = estimate
    if budget.deadline is not None and clock() >= budget.deadline:
        raise RequestDeadlineExceeded(call_id, "enqueue")
    return tokens

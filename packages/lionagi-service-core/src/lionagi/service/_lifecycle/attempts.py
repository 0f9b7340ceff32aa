"""Run a request's setup under the attempt policy, the circuit and the one deadline (ADR-0029 D4).

Retries cover setup only. For a one-shot call that is the whole attempt; for a stream the
replay boundary closes just before the first chunk (of any type) is yielded and never reopens,
so output the caller has seen is never produced twice.
"""

from __future__ import annotations

import random
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypedDict, TypeVar, Unpack

import anyio

from .._base.aio import aclose_shielded
from .._base.chunk import StreamChunk
from .._base.errors import CircuitOpenError, DeadlinePhase, RequestDeadlineExceeded
from .._base.secrets import bounded, redact
from .budget import NO_DEADLINE, RequestBudget
from .circuit import CircuitBreaker, CircuitPermit
from .clock import Clock, Sleep, default_clock, default_sleep, is_native_clock
from .deadline import DeadlineReached, run_before
from .policy import AttemptPolicy
from .retry import backoff_delay, counts_as_circuit_failure, is_retryable, retry_after_of

if TYPE_CHECKING:
    from .telemetry import CallTrace

__all__ = [
    "OpenedStream",
    "call_with_attempts",
    "open_stream_with_attempts",
    "stream_batches_with_attempts",
    "stream_with_attempts",
]

T = TypeVar("T")
_NOTHING: Any = object()  # no first item yet: the deadline ended the read

_DEFAULT_POLICY = AttemptPolicy()
_rng = random.Random()


def _retry_delay(
    exc: Exception,
    failures: int,
    policy: AttemptPolicy,
    budget: RequestBudget,
    clock: Clock,
    rng: random.Random,
) -> float | None:
    """Seconds to wait before the next attempt, or None when ``exc`` must be raised now.

    The backoff is clipped to the remaining budget (the deadline then expires during the delay);
    a Retry-After that does not fit before the deadline, or that is longer than
    ``policy.max_delay``, ends the request at once: the wait would hold the caller's concurrency
    permit (with no deadline, for as long as the server asks), so the caller gets the
    rate-limit error and its ``retry_after`` to schedule the retry itself.
    """
    if failures >= policy.max_attempts or not is_retryable(exc, policy):
        return None
    retry_after = retry_after_of(exc)
    if retry_after is not None and retry_after > policy.max_delay:
        return None
    delay = backoff_delay(policy, failures, rng)
    remaining = budget.remaining(clock)
    if remaining is not None:
        if retry_after is not None and retry_after >= remaining:
            return None
        delay = min(delay, remaining)
    if retry_after is not None:
        delay = max(delay, retry_after)
    return delay


# How much of the last attempt's message a deadline error repeats: enough for a status line
# and a body excerpt, not a whole error page.
_LAST_ATTEMPT_LIMIT = 512


def _deadline_after(
    call_id: str, phase: DeadlinePhase, last: Exception | None
) -> RequestDeadlineExceeded:
    """``RequestDeadlineExceeded(phase)`` whose text also says why the last attempt failed.

    The failed attempt stays the ``__cause__`` (the caller raises ``from last``), but a service
    that logs ``str(err)`` sees only the message: "exceeded its deadline during retry_delay"
    alone makes a refused connection or an HTTP 500 read like a slow server. The message is
    redacted and folded onto one line, in the command line's ``(last attempt: ...)`` form.
    """
    error = RequestDeadlineExceeded(call_id, phase)
    if last is not None:
        reason = bounded(" ".join(redact(str(last)).split()), _LAST_ATTEMPT_LIMIT)
        error.args = (f"{error} (last attempt: {type(last).__name__}: {reason})",)
    return error


def _settle_failure(
    permit: CircuitPermit | None, exc: BaseException, policy: AttemptPolicy
) -> None:
    if permit is not None and counts_as_circuit_failure(exc, policy):
        permit.record_failure()


def _acquire_permit(
    breaker: CircuitBreaker | None, trace: CallTrace | None
) -> CircuitPermit | None:
    """The circuit permit; with telemetry on, its transitions and a refusal become events."""
    if breaker is None:
        return None
    if trace is None:
        return breaker.acquire()
    before = breaker._state
    try:
        permit = breaker.acquire()
    except CircuitOpenError:
        if breaker._state is not before:
            trace.circuit(before, breaker._state)
        trace.circuit_refused(breaker._state)
        raise
    if breaker._state is not before:  # open -> half-open, noticed by this acquire
        trace.circuit(before, breaker._state)
    permit.trace = trace
    return permit


def _end_attempt(trace: CallTrace | None, token: Any, exc: BaseException | None) -> None:
    if trace is not None:
        trace.attempt_ended(token, exc)


async def _wait_to_retry(
    exc: Exception,
    failures: int,
    permit: CircuitPermit | None,
    *,
    call_id: str,
    policy: AttemptPolicy,
    budget: RequestBudget,
    clock: Clock,
    sleep: Sleep,
    rng: random.Random,
    trace: CallTrace | None = None,
) -> None:
    """Sleep before the next attempt after ``exc``, or end the request.

    Raises ``exc`` when it must not be retried, and ``RequestDeadlineExceeded("retry_delay")``
    (caused by ``exc``) when the deadline passes during the delay; either settles the circuit.
    """
    delay = _retry_delay(exc, failures, policy, budget, clock, rng)
    if trace is not None:
        # Whether a Retry-After was honored is only a question while a retry is left: once
        # attempts are exhausted (or the error is never retried) no wait could have followed,
        # and reporting "not honored" would claim it did not fit the deadline or max_delay.
        retry_left = failures < policy.max_attempts and is_retryable(exc, policy)
        honored = (delay is not None) if retry_left else None
        trace.retry(exc, failures, delay, retry_after_of(exc), honored=honored)
    if delay is None:
        _settle_failure(permit, exc, policy)
        raise exc
    await sleep(delay)
    if budget.expired(clock):
        _settle_failure(permit, exc, policy)
        raise _deadline_after(call_id, "retry_delay", exc) from exc


async def call_with_attempts(
    attempt: Callable[[float | None], Awaitable[T]],
    *,
    call_id: str,
    policy: AttemptPolicy | None = None,
    breaker: CircuitBreaker | None = None,
    budget: RequestBudget | None = None,
    local_cap: float | None = None,
    clock: Clock | None = None,
    sleep: Sleep | None = None,
    rng: random.Random | None = None,
    trace: CallTrace | None = None,
) -> T:
    """Call `attempt(timeout)` until it succeeds, fails permanently or the budget runs out.

    Each attempt gets `timeout = min(local_cap, remaining)` and is also cut off at the deadline.
    The circuit counts the whole call once: success, or one failure after exhausted retries.

    Raises:
        CircuitOpenError: The circuit refused; no attempt was made.
        RequestDeadlineExceeded: `phase="transport"` when the deadline had passed before an
            attempt or passed during one; `phase="retry_delay"` when it passed while waiting
            to retry. Either way, once an attempt had failed, the last provider error is the
            `__cause__` and its redacted text ends the message (`(last attempt: ...)`):
            where the deadline ran out depends on timing, why the attempts failed does not
            (a refused connection must not read like a slow server).
        Exception: The last attempt's error when it is not retryable, attempts are exhausted,
            or the server's Retry-After does not fit before the deadline.
    """
    policy = policy if policy is not None else _DEFAULT_POLICY
    clock = clock if clock is not None else default_clock
    sleep = sleep if sleep is not None else default_sleep
    rng = rng if rng is not None else _rng
    budget = budget if budget is not None else NO_DEADLINE
    if budget.expired(clock):
        raise RequestDeadlineExceeded(call_id, "transport")
    deadline = budget.deadline
    permit = _acquire_permit(breaker, trace)
    last: Exception | None = None  # the latest failed attempt's error
    try:
        failures = 0
        while True:
            token = trace.attempt_started() if trace is not None else None
            try:
                if deadline is None:  # the common case: nothing to enforce but the local cap
                    result = await attempt(local_cap)
                else:  # expiry is checked before the first attempt and after each delay
                    result = await run_before(
                        partial(attempt, budget.cap(local_cap, clock)),
                        deadline,
                        clock=clock,
                        sleep=sleep,
                    )
            except DeadlineReached:
                expired = _deadline_after(call_id, "transport", last)
                _end_attempt(trace, token, expired)
                raise expired from last
            except Exception as exc:
                _end_attempt(trace, token, exc)
                failures += 1
                last = exc
            except BaseException as exc:
                _end_attempt(trace, token, exc)
                raise
            else:
                _end_attempt(trace, token, None)
                if permit is not None:
                    permit.record_success()
                return result
            await _wait_to_retry(
                last,
                failures,
                permit,
                call_id=call_id,
                policy=policy,
                budget=budget,
                clock=clock,
                sleep=sleep,
                rng=rng,
                trace=trace,
            )
    finally:
        if permit is not None:
            permit.release()


class OpenedStream(Generic[T]):
    """A provider stream past its replay boundary: the iterator, its first item and the permit.

    Made by :func:`open_stream_with_attempts`. From here on nothing is retried; the holder
    reads ``iterator`` itself (no generator layer between the provider and the supervisor),
    reports the outcome once (:meth:`succeeded` at EOF, :meth:`failed` on an error or an error
    chunk) and always calls :meth:`aclose`, which closes the iterator and releases the circuit
    permit (a half-open probe included) on every path.
    """

    __slots__ = ("_permit", "_policy", "first", "iterator")

    def __init__(
        self,
        iterator: AsyncIterator[T] | None,
        first: T | None,
        permit: CircuitPermit | None,
        policy: AttemptPolicy,
    ) -> None:
        self.iterator = iterator
        self.first = first  # None: EOF before any item (a success)
        self._permit = permit
        self._policy = policy

    def succeeded(self) -> None:
        """The stream reached EOF."""
        if self._permit is not None:
            self._permit.record_success()

    def failed(self, exc: BaseException | None = None) -> None:
        """The stream failed with ``exc``, or carried an error chunk (``exc=None``)."""
        permit = self._permit
        if permit is None:
            return
        if exc is None:
            permit.record_failure()
        else:
            _settle_failure(permit, exc, self._policy)

    async def aclose(self) -> None:
        """Close the iterator (shielded) and release the permit; idempotent."""
        iterator, self.iterator = self.iterator, None
        try:
            if iterator is not None:
                await aclose_shielded(iterator)
        finally:
            permit, self._permit = self._permit, None
            if permit is not None:
                permit.release()


async def open_stream_with_attempts(
    open_stream: Callable[[float | None], AsyncIterator[T]],
    *,
    call_id: str,
    policy: AttemptPolicy | None = None,
    breaker: CircuitBreaker | None = None,
    budget: RequestBudget | None = None,
    local_cap: float | None = None,
    clock: Clock | None = None,
    sleep: Sleep | None = None,
    rng: random.Random | None = None,
    trace: CallTrace | None = None,
) -> OpenedStream[T]:
    """Open a provider stream and read its first item, retrying failures before that item.

    ``open_stream(timeout)`` gets ``min(local_cap, remaining)``. A retryable failure before
    the first item closes that iterator and opens a new one under the policy and deadline; the
    first item (or EOF) closes the replay boundary for good. The caller owns the result's
    :meth:`OpenedStream.aclose`; on a raise nothing is left open.

    Raises:
        CircuitOpenError: The circuit refused; no stream was opened.
        RequestDeadlineExceeded: ``phase="transport"`` before the first item,
            ``"retry_delay"`` while waiting to retry; the last failed attempt's error, if any,
            is the ``__cause__`` (as for :func:`call_with_attempts`).
        Exception: The provider's error, as for :func:`call_with_attempts`.
    """
    policy = policy if policy is not None else _DEFAULT_POLICY
    clock = clock if clock is not None else default_clock
    sleep = sleep if sleep is not None else default_sleep
    rng = rng if rng is not None else _rng
    budget = budget if budget is not None else NO_DEADLINE
    deadline = budget.deadline
    if budget.expired(clock):
        raise RequestDeadlineExceeded(call_id, "transport")
    permit = _acquire_permit(breaker, trace)
    native = is_native_clock(clock)
    iterator: AsyncIterator[T] | None = None
    last: Exception | None = None  # the latest failed attempt's error
    try:
        failures = 0
        while True:  # before the replay boundary: failures may be retried
            if budget.expired(clock):
                raise _deadline_after(call_id, "transport", last) from last
            timeout = budget.cap(local_cap, clock)
            token = trace.attempt_started() if trace is not None else None
            try:
                iterator = open_stream(timeout)
                # ``run_before`` inlined for anyio's clock: its frame would be held by every
                # stream for as long as the provider takes to send the first event.
                if deadline is None:
                    first = await iterator.__anext__()
                elif native:
                    first = _NOTHING
                    with anyio.CancelScope(deadline=deadline):
                        first = await iterator.__anext__()
                    if first is _NOTHING:  # the scope's deadline cancelled the read
                        raise DeadlineReached
                else:
                    first = await run_before(iterator.__anext__, deadline, clock=clock, sleep=sleep)
            except StopAsyncIteration:
                _end_attempt(trace, token, None)
                if permit is not None:
                    permit.record_success()
                opened: OpenedStream[T] = OpenedStream(iterator, None, permit, policy)
                iterator = permit = None
                return opened
            except DeadlineReached:
                expired = _deadline_after(call_id, "transport", last)
                _end_attempt(trace, token, expired)
                raise expired from last
            except Exception as exc:
                _end_attempt(trace, token, exc)
                failures += 1
                last = exc
            except BaseException as exc:
                _end_attempt(trace, token, exc)
                raise
            else:
                _end_attempt(trace, token, None)
                opened = OpenedStream(iterator, first, permit, policy)
                iterator = permit = None
                return opened
            if iterator is not None:
                failed, iterator = iterator, None
                await aclose_shielded(failed)
            await _wait_to_retry(
                last,
                failures,
                permit,
                call_id=call_id,
                policy=policy,
                budget=budget,
                clock=clock,
                sleep=sleep,
                rng=rng,
                trace=trace,
            )
    finally:  # reached with something still held only when this raised
        if iterator is not None:
            await aclose_shielded(iterator)
        if permit is not None:
            permit.release()


async def _items_with_attempts(
    open_stream: Callable[[float | None], AsyncIterator[T]],
    is_failure: Callable[[T], bool],
    *,
    call_id: str,
    **options: Unpack[AttemptOptions],
) -> AsyncGenerator[T, None]:
    """Yield a provider stream, retrying only failures raised before its first chunk.

    :func:`open_stream_with_attempts`, then the rest of the stream with no replay: once a
    chunk has been yielded a failure propagates and counts against the circuit. EOF, even with
    no chunks, is a success; an error chunk (``is_failure``) is a circuit failure and ends the
    stream after it is yielded. Every opened iterator is closed on every path, including the
    consumer's ``aclose()`` and cancellation.

    Raises:
        RequestDeadlineExceeded: as for :func:`open_stream_with_attempts`, and
            ``phase="stream"`` after the first chunk.
    """
    budget = options.get("budget") or NO_DEADLINE
    clock = options.get("clock") or default_clock
    sleep = options.get("sleep") or default_sleep
    deadline = budget.deadline
    opened = await open_stream_with_attempts(open_stream, call_id=call_id, **options)
    try:
        chunk = opened.first
        iterator = opened.iterator
        if chunk is None or iterator is None:
            return
        try:
            while True:
                if is_failure(chunk):
                    opened.failed()
                    yield chunk
                    return
                yield chunk
                try:
                    chunk = await run_before(iterator.__anext__, deadline, clock=clock, sleep=sleep)
                except StopAsyncIteration:
                    opened.succeeded()
                    return
                except DeadlineReached:
                    raise RequestDeadlineExceeded(call_id, "stream") from None
        except Exception as exc:
            opened.failed(exc)
            raise
    finally:
        await opened.aclose()


def _is_error_chunk(chunk: StreamChunk) -> bool:
    return chunk.type == "error"


def _has_error_chunk(batch: list[StreamChunk]) -> bool:
    return any(chunk.type == "error" for chunk in batch)


class AttemptOptions(TypedDict, total=False):
    """Keyword options shared by the stream entry points (see :func:`_items_with_attempts`)."""

    policy: AttemptPolicy | None
    breaker: CircuitBreaker | None
    budget: RequestBudget | None
    local_cap: float | None
    clock: Clock | None
    sleep: Sleep | None
    rng: random.Random | None
    trace: CallTrace | None


def stream_with_attempts(
    open_stream: Callable[[float | None], AsyncIterator[StreamChunk]],
    *,
    call_id: str,
    **options: Unpack[AttemptOptions],
) -> AsyncGenerator[StreamChunk, None]:
    """Yield a provider stream, retrying only failures raised before its first chunk.

    `open_stream(timeout)` gets `min(local_cap, remaining)`. A retryable failure before the
    first chunk closes that iterator and opens a new one under the policy and deadline; once a
    chunk has been yielded there is no replay: a failure propagates and counts against the
    circuit. EOF, even with no chunks, is a success; an error chunk counts as a circuit failure
    and ends the stream after it is yielded. Every opened iterator is closed on every path,
    including the consumer's `aclose()` and cancellation.

    Raises:
        CircuitOpenError: The circuit refused; no stream was opened.
        RequestDeadlineExceeded: `phase="transport"` before the first chunk, `"retry_delay"`
            while waiting to retry (the last failed attempt's error, if any, is the
            `__cause__`, as for `call_with_attempts`), and `phase="stream"` after it.
        Exception: The provider's error, as for `call_with_attempts`.
    """
    return _items_with_attempts(open_stream, _is_error_chunk, call_id=call_id, **options)


def stream_batches_with_attempts(
    open_batches: Callable[[float | None], AsyncIterator[list[StreamChunk]]],
    *,
    call_id: str,
    **options: Unpack[AttemptOptions],
) -> AsyncGenerator[list[StreamChunk], None]:
    """:func:`stream_with_attempts` over non-empty batches of chunks (one per network read).

    The deadline and the replay boundary apply per batch, so per-read rather than per-chunk
    supervision cost; a batch containing an error chunk ends the stream and counts as a circuit
    failure. Batches must be non-empty.
    """
    return _items_with_attempts(open_batches, _has_error_chunk, call_id=call_id, **options)

"""Attempt policy, circuit breaker and the stream replay boundary (ADR-0029 D4).

Retry loops run on an auto-advancing fake clock: each sleep jumps time forward at once and is
recorded, so delays are asserted exactly without real waiting.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from lionagi.service import (
    AttemptPolicy,
    CircuitOpenError,
    CircuitPolicy,
    ProviderAuthError,
    ProviderCapacityError,
    ProviderClientError,
    ProviderConnectionError,
    ProviderDisconnectError,
    ProviderError,
    ProviderProtocolError,
    ProviderQuotaError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderStatusCapacityError,
    ProviderStatusError,
    ProviderUnauthorizedError,
    RequestBudget,
    RequestDeadlineExceeded,
    StreamChunk,
)
from lionagi.service.lifecycle import (
    CircuitBreaker,
    CircuitState,
    call_with_attempts,
    is_retryable,
    stream_with_attempts,
)

NO_JITTER = AttemptPolicy(jitter_factor=0.0)


def rate_limited(retry_after: Any = None) -> ProviderRateLimitError:
    return ProviderRateLimitError("429", retry_after=retry_after)


def server_error(status: int = 503) -> ProviderServerError:
    return ProviderServerError(str(status), status=status)


class Script:
    """An attempt function replaying scripted outcomes and recording the timeouts it got."""

    def __init__(self, *outcomes: Any, clock: Any = None, takes: float = 0.0) -> None:
        self.outcomes = list(outcomes)
        self.timeouts: list[float | None] = []
        self.clock = clock
        self.takes = takes

    async def __call__(self, limit: float | None) -> Any:
        self.timeouts.append(limit)
        if self.clock is not None:
            self.clock.now += self.takes
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    @property
    def calls(self) -> int:
        return len(self.timeouts)


async def run(script: Script, clock: Any, **kw: Any) -> Any:
    kw.setdefault("policy", NO_JITTER)
    return await call_with_attempts(script, call_id="c1", clock=clock, sleep=clock.sleep, **kw)


# -- classifier -----------------------------------------------------------------------------------

RETRYABLE = [
    ProviderConnectionError("connect"),
    ProviderDisconnectError("dropped"),
    rate_limited(),
    server_error(500),
    server_error(503),
    ProviderQuotaError("usage limit reached"),
    ProviderCapacityError("model is at capacity"),
]
NOT_RETRYABLE = [
    ProviderClientError("bad", status=400),
    ProviderClientError("missing", status=404),
    ProviderUnauthorizedError("no", status=401),
    ProviderAuthError("invalid api key"),
    ProviderProtocolError("bad json"),
    CircuitOpenError("open"),
    ProviderError("unclassified"),
    ValueError("validation"),
    TimeoutError("not a provider timeout"),
    RequestDeadlineExceeded("c", "transport"),
    asyncio.CancelledError(),
]


@pytest.mark.parametrize("exc", RETRYABLE, ids=lambda e: type(e).__name__)
def test_retryable_before_output(exc: BaseException) -> None:
    assert is_retryable(exc, AttemptPolicy())


@pytest.mark.parametrize("exc", NOT_RETRYABLE, ids=lambda e: type(e).__name__)
def test_never_retried(exc: BaseException) -> None:
    assert not is_retryable(exc, AttemptPolicy())


def test_classifier_follows_policy_statuses() -> None:
    assert not is_retryable(rate_limited(), AttemptPolicy(retry_statuses=frozenset()))
    assert not is_retryable(server_error(), AttemptPolicy(retry_server_errors=False))
    # A vendor's own capacity status below 500 (mapped by its adapter) follows the 5xx switch.
    capacity = ProviderStatusCapacityError("no capacity", status=498)
    assert is_retryable(capacity, AttemptPolicy())
    assert not is_retryable(capacity, AttemptPolicy(retry_server_errors=False))
    with_408 = AttemptPolicy(retry_statuses=frozenset({408, 429}))
    assert is_retryable(ProviderClientError("timeout", status=408), with_408)
    assert is_retryable(ProviderStatusError("odd", status=520), AttemptPolicy())


# -- call_with_attempts ---------------------------------------------------------------------------


async def test_retries_429_5xx_and_connect_with_backoff(auto_clock: Any) -> None:
    script = Script(rate_limited(), server_error(), ProviderConnectionError("x"), "ok")
    result = await run(script, auto_clock, policy=AttemptPolicy(max_attempts=4, jitter_factor=0))
    assert result == "ok"
    assert script.calls == 4
    assert auto_clock.sleeps == [1.0, 2.0, 4.0]


@pytest.mark.parametrize(
    "exc",
    [
        ProviderClientError("bad", status=400),
        ProviderUnauthorizedError("no", status=401),
        ProviderProtocolError("parser"),
        ValueError("validation"),
    ],
    ids=lambda e: type(e).__name__,
)
async def test_permanent_errors_make_one_attempt(auto_clock: Any, exc: Exception) -> None:
    script = Script(exc, "never")
    with pytest.raises(type(exc)):
        await run(script, auto_clock)
    assert script.calls == 1
    assert auto_clock.sleeps == []


async def test_exhausted_attempts_raise_the_last_error(auto_clock: Any) -> None:
    last = server_error(502)
    script = Script(server_error(), server_error(), last)
    with pytest.raises(ProviderServerError) as info:
        await run(script, auto_clock)
    assert info.value is last
    assert script.calls == 3
    assert auto_clock.sleeps == [1.0, 2.0]


async def test_backoff_is_capped_by_max_delay_and_jitter_stays_in_range(auto_clock: Any) -> None:
    policy = AttemptPolicy(max_attempts=5, base_delay=10, max_delay=25, jitter_factor=0.2)
    script = Script(*(server_error() for _ in range(4)), "ok")
    await run(script, auto_clock, policy=policy, rng=random.Random(7))
    assert auto_clock.sleeps[0] == pytest.approx(10, rel=0.2)
    assert all(0 <= d <= 25 for d in auto_clock.sleeps)
    assert auto_clock.sleeps[2:] == [d for d in auto_clock.sleeps[2:] if d >= 20]


async def test_retry_after_is_a_floor(auto_clock: Any) -> None:
    script = Script(rate_limited(retry_after=5.0), "ok")
    assert await run(script, auto_clock) == "ok"
    assert auto_clock.sleeps == [5.0]
    script = Script(rate_limited(retry_after=0.1), "ok")
    auto_clock.sleeps.clear()
    assert await run(script, auto_clock) == "ok"
    assert auto_clock.sleeps == [1.0]  # the backoff is larger than the floor


@pytest.mark.parametrize("bad", [math.nan, -3.0, math.inf, "soon", True])
async def test_invalid_retry_after_is_ignored(auto_clock: Any, bad: Any) -> None:
    script = Script(rate_limited(retry_after=bad), "ok")
    assert await run(script, auto_clock) == "ok"
    assert auto_clock.sleeps == [1.0]


async def test_retry_after_that_cannot_fit_raises_without_sleeping(auto_clock: Any) -> None:
    err = rate_limited(retry_after=10.0)
    script = Script(err, "never")
    with pytest.raises(ProviderRateLimitError) as info:
        await run(script, auto_clock, budget=RequestBudget(auto_clock.now + 3))
    assert info.value is err
    assert auto_clock.sleeps == []
    assert script.calls == 1


@pytest.mark.parametrize("retry_after", [86400.0, 60.5])
async def test_retry_after_beyond_max_delay_raises_without_sleeping(
    auto_clock: Any, retry_after: float
) -> None:
    err = rate_limited(retry_after=retry_after)
    script = Script(err, "never")
    with pytest.raises(ProviderRateLimitError) as info:
        await run(script, auto_clock, policy=AttemptPolicy(max_delay=60.0, jitter_factor=0))
    assert info.value is err
    assert info.value.retry_after == retry_after
    assert auto_clock.sleeps == []
    assert script.calls == 1


async def test_retry_after_equal_to_max_delay_is_still_waited(auto_clock: Any) -> None:
    script = Script(rate_limited(retry_after=60.0), "ok")
    assert await run(script, auto_clock, policy=AttemptPolicy(max_delay=60.0)) == "ok"
    assert auto_clock.sleeps == [60.0]


async def test_backoff_is_clipped_to_the_remaining_budget(auto_clock: Any) -> None:
    err = server_error()
    script = Script(err, "never")
    policy = AttemptPolicy(base_delay=4.0, jitter_factor=0)
    with pytest.raises(RequestDeadlineExceeded) as info:
        await run(script, auto_clock, policy=policy, budget=RequestBudget(auto_clock.now + 1.5))
    assert info.value.phase == "retry_delay"
    assert info.value.__cause__ is err
    assert auto_clock.sleeps == [1.5]
    assert script.calls == 1


async def test_attempt_timeout_is_min_of_local_cap_and_remaining(auto_clock: Any) -> None:
    script = Script(ProviderConnectionError("x"), "ok", clock=auto_clock, takes=5.0)
    budget = RequestBudget(auto_clock.now + 12)
    assert await run(script, auto_clock, budget=budget, local_cap=10.0) == "ok"
    # first attempt: min(10, 12); it used 5 s, the delay 1 s: min(10, 6)
    assert script.timeouts == [10.0, 6.0]
    script = Script("ok")
    await run(script, auto_clock, local_cap=7.0)
    assert script.timeouts == [7.0]


async def test_past_deadline_makes_no_attempt(auto_clock: Any) -> None:
    script = Script("never")
    with pytest.raises(RequestDeadlineExceeded) as info:
        await run(script, auto_clock, budget=RequestBudget(auto_clock.now))
    assert info.value.phase == "transport"
    assert script.calls == 0


async def test_deadline_cuts_off_a_hanging_attempt(auto_clock: Any) -> None:
    seen: list[float | None] = []

    async def hang(limit: float | None) -> str:
        seen.append(limit)
        await anyio.sleep_forever()
        return "never"

    with pytest.raises(RequestDeadlineExceeded) as info:
        await call_with_attempts(
            hang,
            call_id="c1",
            budget=RequestBudget(auto_clock.now + 5),
            clock=auto_clock,
            sleep=auto_clock.sleep,
        )
    assert info.value.phase == "transport"
    assert seen == [5.0]
    # No attempt had failed before it: nothing to name as the cause.
    assert info.value.__cause__ is None and info.value.__suppress_context__


async def test_a_deadline_during_a_later_attempt_keeps_the_failure_before_it(
    auto_clock: Any,
) -> None:
    # Where the deadline lands (a delay, or the next attempt) is timing; why the attempts
    # failed is not: the refused connection stays the cause either way.
    refused = ProviderConnectionError("connection refused")
    attempts: list[float | None] = []

    async def refuse_then_hang(limit: float | None) -> str:
        attempts.append(limit)
        if len(attempts) == 1:
            raise refused
        await anyio.sleep_forever()
        return "never"

    with pytest.raises(RequestDeadlineExceeded) as info:
        await call_with_attempts(
            refuse_then_hang,
            call_id="c1",
            policy=NO_JITTER,
            budget=RequestBudget(auto_clock.now + 5),
            clock=auto_clock,
            sleep=auto_clock.sleep,
        )
    assert info.value.phase == "transport"
    assert info.value.__cause__ is refused
    assert len(attempts) == 2


async def test_cancellation_is_not_retried_and_is_neutral(clock: Any) -> None:
    calls = 0
    started = anyio.Event()

    async def attempt(limit: float | None) -> None:
        nonlocal calls
        calls += 1
        started.set()
        await anyio.sleep_forever()

    breaker = CircuitBreaker(CircuitPolicy(failure_threshold=1), clock=clock)
    async with anyio.create_task_group() as tg:

        async def caller() -> None:
            await call_with_attempts(
                attempt, call_id="c", breaker=breaker, clock=clock, sleep=clock.sleep
            )

        tg.start_soon(caller)
        await started.wait()
        tg.cancel_scope.cancel()
    assert calls == 1
    assert breaker.state is CircuitState.CLOSED  # cancellation is neutral
    breaker.acquire().release()  # and the permit was given back


# -- circuit breaker ------------------------------------------------------------------------------


async def test_circuit_counts_logical_requests_and_opens(auto_clock: Any) -> None:
    breaker = CircuitBreaker(CircuitPolicy(failure_threshold=2), clock=auto_clock)
    for _ in range(2):
        script = Script(server_error(), server_error(), server_error())
        with pytest.raises(ProviderServerError):
            await run(script, auto_clock, breaker=breaker)
        assert script.calls == 3
    # 6 failed attempts, but 2 logical requests: the circuit opens exactly now
    assert breaker.state is CircuitState.OPEN
    script = Script("never")
    with pytest.raises(CircuitOpenError):
        await run(script, auto_clock, breaker=breaker)
    assert script.calls == 0


async def test_success_resets_consecutive_failures(auto_clock: Any) -> None:
    breaker = CircuitBreaker(CircuitPolicy(failure_threshold=2), clock=auto_clock)
    one_shot = AttemptPolicy(max_attempts=1)
    with pytest.raises(ProviderServerError):
        await run(Script(server_error()), auto_clock, breaker=breaker, policy=one_shot)
    await run(Script("ok"), auto_clock, breaker=breaker)
    with pytest.raises(ProviderServerError):
        await run(Script(server_error()), auto_clock, breaker=breaker, policy=one_shot)
    assert breaker.state is CircuitState.CLOSED
    assert breaker.consecutive_failures == 1


async def test_client_errors_do_not_count_against_the_circuit(auto_clock: Any) -> None:
    breaker = CircuitBreaker(CircuitPolicy(failure_threshold=1), clock=auto_clock)
    with pytest.raises(ProviderClientError):
        await run(Script(ProviderClientError("bad", status=400)), auto_clock, breaker=breaker)
    assert breaker.state is CircuitState.CLOSED


async def test_half_open_single_probe_then_close_or_reopen(clock: Any) -> None:
    breaker = CircuitBreaker(CircuitPolicy(failure_threshold=1, recovery_time=30), clock=clock)
    permit = breaker.acquire()
    permit.record_failure()
    assert breaker.state is CircuitState.OPEN
    with pytest.raises(CircuitOpenError):
        breaker.acquire()
    clock.now += 30
    assert breaker.state is CircuitState.HALF_OPEN
    probe = breaker.acquire()
    with pytest.raises(CircuitOpenError):
        breaker.acquire()  # the only probe slot is taken until the probe ends
    probe.record_failure()
    assert breaker.state is CircuitState.OPEN
    clock.now += 30
    with breaker.permit():
        pass  # a clean exit is a success
    assert breaker.state is CircuitState.CLOSED
    breaker.acquire().release()  # neutral, idempotent
    assert breaker.state is CircuitState.CLOSED


async def test_neutral_probe_release_frees_the_slot(clock: Any) -> None:
    breaker = CircuitBreaker(CircuitPolicy(failure_threshold=1, recovery_time=1), clock=clock)
    breaker.acquire().record_failure()
    clock.now += 1
    probe = breaker.acquire()
    probe.release()
    probe.record_success()  # already settled: ignored
    assert breaker.state is CircuitState.HALF_OPEN
    breaker.acquire().record_success()
    assert breaker.state is CircuitState.CLOSED


# -- stream_with_attempts -------------------------------------------------------------------------


class Opener:
    """open_stream that yields scripted chunks/errors per attempt and records closes."""

    def __init__(self, *scripts: list[Any]) -> None:
        self.scripts = list(scripts)
        self.timeouts: list[float | None] = []
        self.closed: list[int] = []

    def __call__(self, timeout: float | None) -> AsyncIterator[StreamChunk]:
        self.timeouts.append(timeout)
        index = len(self.timeouts) - 1
        return self._gen(index, self.scripts[index])

    async def _gen(self, index: int, script: list[Any]) -> AsyncIterator[StreamChunk]:
        try:
            for item in script:
                if isinstance(item, BaseException):
                    raise item
                if item == "hang":
                    await anyio.sleep_forever()
                yield StreamChunk(type="text", content=item) if isinstance(item, str) else item
        finally:
            self.closed.append(index)

    @property
    def opens(self) -> int:
        return len(self.timeouts)


def stream(opener: Opener, clock: Any, **kw: Any) -> Any:
    kw.setdefault("policy", NO_JITTER)
    return stream_with_attempts(opener, call_id="s1", clock=clock, sleep=clock.sleep, **kw)


async def collect(agen: Any) -> list[Any]:
    return [c.content if c.type == "text" else c.type async for c in agen]


async def test_failure_before_first_chunk_is_retried(auto_clock: Any) -> None:
    opener = Opener([ProviderConnectionError("setup")], [rate_limited(2.0)], ["a", "b"])
    assert await collect(stream(opener, auto_clock)) == ["a", "b"]
    assert opener.opens == 3
    assert sorted(opener.closed) == [0, 1, 2]
    assert auto_clock.sleeps == [1.0, 2.0]


async def test_failure_after_first_chunk_is_never_replayed(auto_clock: Any) -> None:
    breaker = CircuitBreaker(CircuitPolicy(failure_threshold=1), clock=auto_clock)
    opener = Opener(["a", ProviderConnectionError("mid-stream")], ["never"])
    seen: list[str] = []

    async def consume() -> None:
        async for chunk in stream(opener, auto_clock, breaker=breaker):
            seen.append(chunk.content)

    with pytest.raises(ProviderConnectionError):
        await consume()
    assert seen == ["a"]
    assert opener.opens == 1
    assert opener.closed == [0]
    assert breaker.state is CircuitState.OPEN  # a failure after output counts


async def test_first_chunk_of_any_type_closes_the_boundary(auto_clock: Any) -> None:
    opener = Opener([StreamChunk(type="system"), ProviderServerError("5xx", status=500)], ["x"])
    with pytest.raises(ProviderServerError):
        await collect(stream(opener, auto_clock))
    assert opener.opens == 1


async def test_error_chunk_counts_as_failure_and_ends_the_stream(auto_clock: Any) -> None:
    breaker = CircuitBreaker(CircuitPolicy(failure_threshold=1), clock=auto_clock)
    err = StreamChunk(type="error", content="provider said no", is_error=True)
    opener = Opener(["a", err, "after"])
    assert await collect(stream(opener, auto_clock, breaker=breaker)) == ["a", "error"]
    assert opener.closed == [0]
    assert breaker.state is CircuitState.OPEN


async def test_empty_eof_is_success_and_closes_half_open(clock: Any) -> None:
    breaker = CircuitBreaker(CircuitPolicy(failure_threshold=1, recovery_time=5), clock=clock)
    breaker.acquire().record_failure()
    clock.now += 5
    opener = Opener([])
    assert await collect(stream(opener, clock, breaker=breaker)) == []
    assert breaker.state is CircuitState.CLOSED


async def test_half_open_probe_is_held_until_eof(clock: Any) -> None:
    breaker = CircuitBreaker(CircuitPolicy(failure_threshold=1, recovery_time=5), clock=clock)
    breaker.acquire().record_failure()
    clock.now += 5
    agen = stream(Opener(["a", "b"]), clock, breaker=breaker)
    first = await agen.__anext__()
    assert first.content == "a"
    with pytest.raises(CircuitOpenError):
        breaker.acquire()  # the probe is still streaming
    assert breaker.state is CircuitState.HALF_OPEN
    assert [c.content async for c in agen] == ["b"]
    assert breaker.state is CircuitState.CLOSED


async def test_open_circuit_opens_no_stream(auto_clock: Any) -> None:
    breaker = CircuitBreaker(CircuitPolicy(failure_threshold=1), clock=auto_clock)
    breaker.acquire().record_failure()
    opener = Opener(["a"])
    with pytest.raises(CircuitOpenError):
        await collect(stream(opener, auto_clock, breaker=breaker))
    assert opener.opens == 0


async def test_consumer_aclose_closes_the_provider_iterator(clock: Any) -> None:
    breaker = CircuitBreaker(CircuitPolicy(failure_threshold=1, recovery_time=5), clock=clock)
    breaker.acquire().record_failure()
    clock.now += 5
    opener = Opener(["a", "b", "c"])
    agen = stream(opener, clock, breaker=breaker)
    assert (await agen.__anext__()).content == "a"
    await agen.aclose()
    assert opener.closed == [0]
    # abandoning is neutral: the probe slot is free again, the state unchanged
    assert breaker.state is CircuitState.HALF_OPEN
    breaker.acquire().release()


async def test_cancellation_mid_stream_closes_the_provider_iterator(clock: Any) -> None:
    opener = Opener(["a", "hang"])
    agen = stream(opener, clock)
    with anyio.CancelScope() as scope:
        async for chunk in agen:
            assert chunk.content == "a"
            scope.cancel()
    await agen.aclose()
    assert opener.closed == [0]


async def test_stream_deadline_phases(auto_clock: Any) -> None:
    opener = Opener(["hang"])
    with pytest.raises(RequestDeadlineExceeded) as info:
        await collect(stream(opener, auto_clock, budget=RequestBudget(auto_clock.now + 3)))
    assert info.value.phase == "transport"
    assert opener.closed == [0]
    opener = Opener(["a", "hang"])
    budget = RequestBudget(auto_clock.now + 3)
    with pytest.raises(RequestDeadlineExceeded) as info:
        await collect(stream(opener, auto_clock, budget=budget, local_cap=60.0))
    assert info.value.phase == "stream"
    assert opener.timeouts == [3.0]
    assert opener.closed == [0]


async def test_a_stream_deadline_during_a_later_open_keeps_the_failure_before_it(
    auto_clock: Any,
) -> None:
    refused = ProviderConnectionError("connection refused")
    opener = Opener([refused], ["hang"])
    with pytest.raises(RequestDeadlineExceeded) as info:
        await collect(stream(opener, auto_clock, budget=RequestBudget(auto_clock.now + 5)))
    assert info.value.phase == "transport"
    assert info.value.__cause__ is refused
    assert opener.opens == 2 and opener.closed == [0, 1]


async def test_stream_past_deadline_opens_nothing(auto_clock: Any) -> None:
    opener = Opener(["a"])
    with pytest.raises(RequestDeadlineExceeded) as info:
        await collect(stream(opener, auto_clock, budget=RequestBudget(auto_clock.now)))
    assert info.value.phase == "transport"
    assert opener.opens == 0


async def test_permanent_setup_error_is_one_attempt(auto_clock: Any) -> None:
    opener = Opener([ProviderUnauthorizedError("401", status=401)], ["never"])
    with pytest.raises(ProviderUnauthorizedError):
        await collect(stream(opener, auto_clock))
    assert opener.opens == 1
    assert opener.closed == [0]

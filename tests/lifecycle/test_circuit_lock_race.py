"""The circuit breaker's lock under a thread race (docs/decisions.md, "A copy shares its
original's circuit breaker").

Copies of an ``iModel`` share one ``CircuitBreaker`` and may run on other threads' event loops,
so two threads can ask for a permit at the same instant. The interleaving the lock prevents is
forced here through the breaker's injected clock: a clock that releases the GIL for a moment
(as any real clock read may) lets every other thread run while one is in the middle of a state
change. With the lock each change is whole; without it:

- several threads that all find the circuit open past its recovery time each switch it to
  half-open (resetting the probe count) and each get a probe, so more than
  ``half_open_max_calls`` requests reach a provider known to be failing;
- a thread asking while a failed probe reopens the circuit reads the previous opening time and
  is let straight through, although the circuit has just reopened for a full recovery time.

Both tests fail with ``CircuitBreaker._lock`` replaced by a no-op context manager.
"""

from __future__ import annotations

import threading
import time

import pytest

from lionagi.service import CircuitOpenError, CircuitPolicy
from lionagi.service.lifecycle import CircuitBreaker, CircuitPermit, CircuitState

THREADS = 16
PAUSE = 0.02  # how long a clock read holds its thread (GIL released) once armed


class _PausingClock:
    """A settable monotonic clock whose reads sleep ``PAUSE`` (GIL released) while armed.

    ``once``: only the first read after arming pauses, so the other threads' reads return while
    that one is still inside its state change. ``entered`` is set by the first paused read, so a
    test can start the competing threads exactly then.
    """

    def __init__(self, *, once: bool = False) -> None:
        self.now = 0.0
        self.armed = False
        self.once = once
        self.entered = threading.Event()

    def __call__(self) -> float:
        if self.armed and not (self.once and self.entered.is_set()):
            self.entered.set()
            time.sleep(PAUSE)
        return self.now


def _race(action: object, count: int) -> tuple[list[CircuitPermit], list[BaseException]]:
    """Run ``action()`` on ``count`` threads released together; permits and errors back."""
    assert callable(action)
    start = threading.Barrier(count)
    permits: list[CircuitPermit] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def run() -> None:
        start.wait(timeout=10)
        try:
            permit = action()
        except BaseException as exc:
            with lock:
                errors.append(exc)
        else:
            with lock:
                permits.append(permit)

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
        assert not thread.is_alive()
    return permits, errors


def _opened(clock: _PausingClock, probes: int) -> CircuitBreaker:
    policy = CircuitPolicy(failure_threshold=1, recovery_time=30.0, half_open_max_calls=probes)
    breaker = CircuitBreaker(policy, clock=clock)
    breaker.acquire().record_failure()
    assert breaker.state is CircuitState.OPEN
    return breaker


@pytest.mark.parametrize("probes", [1, 3])
def test_a_burst_at_recovery_gets_exactly_the_documented_probes(probes: int) -> None:
    clock = _PausingClock()
    breaker = _opened(clock, probes)
    clock.now = 31.0  # past recovery_time: the next acquire turns the circuit half-open
    clock.armed = True
    permits, errors = _race(breaker.acquire, THREADS)
    clock.armed = False

    assert len(permits) == probes, f"{len(permits)} probes let through, policy allows {probes}"
    assert all(permit.probe for permit in permits)
    assert len(errors) == THREADS - probes
    assert all(isinstance(exc, CircuitOpenError) for exc in errors), errors
    assert all("probe request is still running" in str(exc) for exc in errors)
    assert breaker.state is CircuitState.HALF_OPEN

    # The probes' outcomes are all counted against the same half-open period: one success
    # closes the circuit, and the rest settle without changing it again.
    permits[0].record_success()
    for permit in permits[1:]:
        permit.release()
    assert breaker.state is CircuitState.CLOSED


def test_a_failed_probe_reopens_for_a_full_recovery_even_mid_burst() -> None:
    clock = _PausingClock(once=True)
    breaker = _opened(clock, 1)  # opened at t=0
    clock.now = 31.0
    probe = breaker.acquire()
    assert probe.probe and breaker.state is CircuitState.HALF_OPEN

    clock.armed = True
    failing = threading.Thread(target=probe.record_failure)  # reopens: reads the clock
    failing.start()
    assert clock.entered.wait(timeout=10)  # that thread is now inside the reopening
    permits, errors = _race(breaker.acquire, 4)
    failing.join(timeout=30)
    clock.armed = False

    assert permits == [], "a call got through a circuit its probe had just reopened"
    assert len(errors) == 4
    assert all(isinstance(exc, CircuitOpenError) for exc in errors)
    assert all("reopened after its recovery probe failed" in str(exc) for exc in errors)
    assert breaker.state is CircuitState.OPEN
    clock.now = 31.0 + 29.9  # still inside the new recovery time
    assert breaker.state is CircuitState.OPEN
    clock.now = 31.0 + 30.0
    assert breaker.state is CircuitState.HALF_OPEN

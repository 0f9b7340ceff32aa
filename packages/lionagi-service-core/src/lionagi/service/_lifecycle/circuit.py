"""A circuit breaker that counts logical requests, not attempts (ADR-0029 D4).

The caller takes a :class:`CircuitPermit` before the first attempt and reports one outcome when
the logical request ends: a one-shot result or EOF is a success; exhausted retries, a failure
after output or an error chunk is one failure. A half-open probe keeps its permit until that
outcome, so a stream probe holds it to EOF.
"""

from __future__ import annotations

import threading
from enum import StrEnum
from types import TracebackType
from typing import TYPE_CHECKING

from .._base.errors import CircuitOpenError
from .clock import Clock, default_clock, time_or_none
from .policy import CircuitPolicy

if TYPE_CHECKING:
    from .telemetry import CallTrace

__all__ = ["CircuitBreaker", "CircuitPermit", "CircuitState"]


class CircuitState(StrEnum):
    """Closed admits everything; open admits nothing; half-open admits a few probes."""

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class CircuitBreaker:
    """Tracks one provider's health across logical requests.

    Closed → (`failure_threshold` consecutive failures) → open → (`recovery_time`) →
    half-open → (probe success) closed, or (probe failure) open again.
    """

    def __init__(self, policy: CircuitPolicy | None = None, *, clock: Clock | None = None) -> None:
        """Create a closed breaker; `clock` times the recovery period."""
        self._policy = policy if policy is not None else CircuitPolicy()
        self._clock: Clock = clock if clock is not None else default_clock
        self._state = CircuitState.CLOSED
        self._failures = 0
        self._opened_at = 0.0
        self._probes = 0
        self._generation = 0  # bumps on every state change; stale permits are ignored
        # Why the circuit is open: a failed recovery probe reopens it after one failure, so the
        # refusal must not claim failure_threshold failed requests opened it this time.
        self._reopened = False
        # Copies of a model share its breaker and may run on other threads' loops: the state
        # changes (probe counts above all) must not interleave. Never held across an await.
        self._lock = threading.Lock()

    @property
    def policy(self) -> CircuitPolicy:
        """The thresholds in force."""
        return self._policy

    @property
    def state(self) -> CircuitState:
        """Current state; an open circuit reads half-open once its recovery time has passed.

        Outside the event loop (a synchronous health check) the loop's clock has no reading:
        an open circuit then reads open until the loop next looks at it.
        """
        with self._lock:
            return self._current_state()

    def _current_state(self) -> CircuitState:
        """`state`, for a caller holding the lock."""
        if self._state is CircuitState.OPEN:
            now = time_or_none(self._clock)
            if now is not None and now - self._opened_at >= self._policy.recovery_time:
                self._enter(CircuitState.HALF_OPEN)
        return self._state

    @property
    def consecutive_failures(self) -> int:
        """Failures counted since the last success while closed."""
        return self._failures

    def acquire(self) -> CircuitPermit:
        """Take a permit for one logical request.

        Raises:
            CircuitOpenError: The circuit is open, or every half-open probe slot is taken.
        """
        if self._state is CircuitState.CLOSED:  # the common case, without the state property
            return CircuitPermit(self, self._generation, probe=False)
        with self._lock:
            return self._acquire_slow()

    def _acquire_slow(self) -> CircuitPermit:
        """`acquire` while the circuit is not closed, for a caller holding the lock."""
        state = self._current_state()
        if state is CircuitState.OPEN:
            wait = self._policy.recovery_time - (self._clock() - self._opened_at)
            cause = (
                "circuit reopened after its recovery probe failed"
                if self._reopened
                else f"circuit open after {self._policy.failure_threshold} failed requests"
            )
            raise CircuitOpenError(f"{cause}; no attempt made; retry in {max(wait, 0.0):.3g}s")
        if state is CircuitState.HALF_OPEN:
            if self._probes >= self._policy.half_open_max_calls:
                raise CircuitOpenError(
                    "circuit half-open and its probe request is still running; no attempt made"
                )
            self._probes += 1
            return CircuitPermit(self, self._generation, probe=True)
        return CircuitPermit(self, self._generation, probe=False)

    def permit(self) -> CircuitPermit:
        """Alias of `acquire` for `with breaker.permit() as p:` / `async with`."""
        return self.acquire()

    # -- outcomes (called by CircuitPermit) -------------------------------------------------------

    def _enter(self, state: CircuitState) -> None:
        if state is CircuitState.OPEN:
            self._reopened = self._state is CircuitState.HALF_OPEN
        self._state = state
        self._generation += 1
        self._probes = 0
        if state is CircuitState.OPEN:
            self._opened_at = self._clock()
        elif state is CircuitState.CLOSED:
            self._failures = 0

    def _settle(self, permit: CircuitPermit, outcome: bool | None) -> None:
        with self._lock:
            self._settle_locked(permit, outcome)

    def _settle_locked(self, permit: CircuitPermit, outcome: bool | None) -> None:
        current = permit.generation == self._generation
        if permit.probe and current:
            self._probes -= 1
        if not current or outcome is None:
            return
        if self._state is CircuitState.HALF_OPEN:
            self._enter(CircuitState.CLOSED if outcome else CircuitState.OPEN)
        elif self._state is CircuitState.CLOSED:
            if outcome:
                self._failures = 0
            else:
                self._failures += 1
                if self._failures >= self._policy.failure_threshold:
                    self._enter(CircuitState.OPEN)


class CircuitPermit:
    """One logical request's right to attempt; settle it exactly once (later calls do nothing).

    As a context manager: a clean exit records success, an `Exception` records failure, and
    anything else (cancellation, generator close) releases the permit without an outcome.
    Callers that need finer rules call `record_success`/`record_failure` then
    `release`.
    """

    __slots__ = ("_breaker", "_settled", "generation", "probe", "trace")

    def __init__(self, breaker: CircuitBreaker, generation: int, *, probe: bool) -> None:
        self._breaker = breaker
        self.generation = generation
        self.probe = probe
        self._settled = False
        # Set by the attempt loop while telemetry is on: the call whose span records the
        # state change this permit's outcome causes.
        self.trace: CallTrace | None = None

    @property
    def settled(self) -> bool:
        """True once an outcome was recorded or the permit was released."""
        return self._settled

    def record_success(self) -> None:
        """The logical request succeeded (result returned or EOF reached)."""
        self._finish(True)

    def record_failure(self) -> None:
        """The logical request failed in a way that says the provider is unhealthy."""
        self._finish(False)

    def release(self) -> None:
        """Give the permit back without an outcome (neutral: cancellation, caller errors)."""
        self._finish(None)

    def _finish(self, outcome: bool | None) -> None:
        if self._settled:
            return
        self._settled = True
        breaker = self._breaker
        trace = self.trace
        if trace is None:
            breaker._settle(self, outcome)
            return
        before = breaker._state
        breaker._settle(self, outcome)
        if breaker._state is not before:
            trace.circuit(before, breaker._state)

    def __enter__(self) -> CircuitPermit:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None:
            self.record_success()
        elif isinstance(exc, Exception):
            self.record_failure()
        else:
            self.release()

    async def __aenter__(self) -> CircuitPermit:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, tb)

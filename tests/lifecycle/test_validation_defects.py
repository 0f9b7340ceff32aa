"""Lifecycle validation defects: negative timeouts, truthful circuit and telemetry text, and
AttemptPolicy messages that name the field the caller set with the rule that really applies.

Each test here failed before its fix: a negative timeout meant "no deadline", a circuit reopened
by a failed probe claimed ``failure_threshold`` failures, a Retry-After on the last attempt was
reported as not honored, and two AttemptPolicy messages stated the wrong rule or field.
"""

from __future__ import annotations

import contextlib
import math
from types import SimpleNamespace
from typing import Any

import pytest

from lionagi.service import (
    AdmissionConfigError,
    AttemptPolicy,
    CircuitOpenError,
    CircuitPolicy,
    ProviderRateLimitError,
    ProviderServerError,
    RequestBudget,
    request_budget_from_timeout,
)
from lionagi.service._lifecycle.telemetry import CallTrace
from lionagi.service.lifecycle import CircuitBreaker, CircuitState, call_with_attempts

pytestmark = pytest.mark.anyio


def fixed(t: float) -> Any:
    return lambda: t


# -- 1. a negative per-call timeout is refused, not "no deadline" ----------------------------------


@pytest.mark.parametrize("timeout", [-0.5, -1, -1e-9, -math.inf, math.nan])
def test_negative_nan_and_minus_inf_timeouts_are_refused_naming_timeout(timeout: float) -> None:
    with pytest.raises(AdmissionConfigError) as info:
        request_budget_from_timeout(timeout, clock=fixed(5.0))
    assert info.value.field == "timeout"
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("timeout", [None, 0, 0.0, math.inf])
def test_none_zero_and_plus_inf_still_mean_no_deadline(timeout: float | None) -> None:
    assert request_budget_from_timeout(timeout, clock=fixed(5.0)).deadline is None


def test_negative_timeout_message_says_what_no_deadline_is() -> None:
    with pytest.raises(AdmissionConfigError, match=r"0 or None: no deadline"):
        request_budget_from_timeout(-0.5, clock=fixed(0.0))


# -- 5. the refusal after a failed recovery probe says so --------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _fail(breaker: CircuitBreaker) -> None:
    breaker.acquire().record_failure()


def _state(breaker: CircuitBreaker) -> CircuitState:
    return breaker.state  # a call, so the checker does not narrow the property across asserts


def _refusal(breaker: CircuitBreaker) -> str:
    with pytest.raises(CircuitOpenError) as info:
        breaker.acquire()
    return str(info.value)


def test_reopened_circuit_names_the_failed_probe_not_the_threshold() -> None:
    clock = Clock()
    breaker = CircuitBreaker(CircuitPolicy(failure_threshold=2, recovery_time=0.5), clock=clock)
    _fail(breaker)
    _fail(breaker)
    first = _refusal(breaker)
    assert first.startswith("circuit open after 2 failed requests;")

    clock.now += 0.6
    assert _state(breaker) is CircuitState.HALF_OPEN
    _fail(breaker)  # the one recovery probe fails
    assert _state(breaker) is CircuitState.OPEN
    reopened = _refusal(breaker)
    assert reopened.startswith("circuit reopened after its recovery probe failed;")
    assert "2 failed requests" not in reopened
    assert "no attempt made" in reopened


def test_threshold_text_returns_once_a_probe_succeeded_and_the_circuit_opens_again() -> None:
    clock = Clock()
    breaker = CircuitBreaker(CircuitPolicy(failure_threshold=2, recovery_time=0.5), clock=clock)
    _fail(breaker)
    _fail(breaker)
    clock.now += 0.6
    _fail(breaker)  # probe fails: reopened
    clock.now += 0.6
    breaker.acquire().record_success()  # probe succeeds: closed
    assert breaker.state is CircuitState.CLOSED
    _fail(breaker)
    _fail(breaker)
    assert _refusal(breaker).startswith("circuit open after 2 failed requests;")


# -- 6. lionagi.retry_after.honored follows its definition -------------------------------------


_UNJUDGED = object()


class Trace:
    """Records what the attempt loop reports; the parts of CallTrace the loop touches."""

    def __init__(self) -> None:
        self.retries: list[dict[str, Any]] = []

    def attempt_started(self) -> None:
        return None

    def attempt_ended(self, token: Any, exc: BaseException | None) -> None:
        return None

    def retry(
        self,
        exc: BaseException,
        failures: int,
        delay: float | None,
        retry_after: Any,
        *,
        honored: object = _UNJUDGED,
    ) -> None:
        # Without the keyword (the loop before its fix), record what CallTrace then wrote.
        value = (delay is not None) if honored is _UNJUDGED else honored
        self.retries.append({"delay": delay, "retry_after": retry_after, "honored": value})


class AutoClock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        self.sleeps.append(delay)
        self.now += delay


async def _run(
    policy: AttemptPolicy, *errors: Exception, budget: RequestBudget | None = None
) -> Any:
    clock = AutoClock()
    trace = Trace()
    outcomes: list[Any] = [*errors, "ok"]

    async def attempt(limit: float | None) -> Any:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    with contextlib.suppress(Exception):  # the outcome is not under test, the report is
        await call_with_attempts(
            attempt,
            call_id="c",
            policy=policy,
            budget=budget,
            clock=clock,
            sleep=clock.sleep,
            trace=trace,  # type: ignore[arg-type]
        )
    return trace.retries


async def test_retry_after_on_the_last_attempt_is_not_reported_as_not_honored() -> None:
    # 0.05 s fits max_delay and there is no deadline: only the attempts ran out.
    policy = AttemptPolicy(max_attempts=1, base_delay=0.0, jitter_factor=0.0)
    (event,) = await _run(policy, ProviderRateLimitError("429", retry_after=0.05))
    assert event["delay"] is None
    assert event["honored"] is None


async def test_retry_after_on_an_error_never_retried_is_not_judged() -> None:
    policy = AttemptPolicy(max_attempts=3, retry_server_errors=False, jitter_factor=0.0)
    (event,) = await _run(policy, ProviderServerError("503", status=503, retry_after=0.05))
    assert event["honored"] is None


async def test_retry_after_that_is_waited_is_honored() -> None:
    policy = AttemptPolicy(max_attempts=2, base_delay=0.0, jitter_factor=0.0)
    (event,) = await _run(policy, ProviderRateLimitError("429", retry_after=0.05))
    assert event["honored"] is True
    assert event["delay"] == 0.05


async def test_retry_after_beyond_max_delay_or_deadline_is_not_honored() -> None:
    policy = AttemptPolicy(max_attempts=3, base_delay=0.0, max_delay=1.0, jitter_factor=0.0)
    (event,) = await _run(policy, ProviderRateLimitError("429", retry_after=5.0))
    assert event["honored"] is False
    (event,) = await _run(
        AttemptPolicy(max_attempts=3, base_delay=0.0, jitter_factor=0.0),
        ProviderRateLimitError("429", retry_after=5.0),
        budget=RequestBudget(1001.0),  # 1 s left on AutoClock
    )
    assert event["honored"] is False


class Span:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def add_event(self, name: str, attributes: dict[str, Any]) -> None:
        self.events.append((name, dict(attributes)))


@pytest.mark.parametrize(("honored", "expected"), [(True, True), (False, False), (None, "absent")])
def test_call_trace_writes_honored_only_when_it_was_judged(
    honored: bool | None, expected: object
) -> None:
    span = Span()
    fake = SimpleNamespace(span=span)
    exc = ProviderRateLimitError("429", retry_after=0.05)
    CallTrace.retry(fake, exc, 1, None, 0.05, honored=honored)  # type: ignore[arg-type]
    ((name, attrs),) = span.events
    assert name == "lionagi.retry_after"
    assert attrs["lionagi.retry_after.seconds"] == 0.05
    assert attrs["error.type"] == "ProviderRateLimitError"
    assert attrs.get("lionagi.retry_after.honored", "absent") == expected


# -- 7. AttemptPolicy messages state the real rule and the field the caller set ----------------


@pytest.mark.parametrize("factor", [-1, 0, 0.5, math.inf, math.nan])
def test_backoff_factor_message_states_the_real_rule_without_seconds(factor: float) -> None:
    with pytest.raises(AdmissionConfigError) as info:
        AttemptPolicy(backoff_factor=factor)
    assert info.value.field == "backoff_factor"
    assert ">= 1" in str(info.value)
    assert "seconds" not in str(info.value)
    assert "> 0" not in str(info.value)


@pytest.mark.parametrize("factor", ["2", True])
def test_backoff_factor_of_the_wrong_type_is_refused_naming_it(factor: Any) -> None:
    with pytest.raises(AdmissionConfigError) as info:
        AttemptPolicy(backoff_factor=factor)
    assert info.value.field == "backoff_factor"


def test_base_delay_above_the_default_max_delay_names_base_delay() -> None:
    with pytest.raises(AdmissionConfigError) as info:
        AttemptPolicy(base_delay=1e30)
    assert info.value.field == "base_delay"
    assert "max_delay=60.0" in str(info.value)
    assert str(info.value).startswith("base_delay:")


def test_max_delay_below_base_delay_still_names_max_delay() -> None:
    with pytest.raises(AdmissionConfigError) as info:
        AttemptPolicy(base_delay=5.0, max_delay=2.0)
    assert info.value.field == "max_delay"

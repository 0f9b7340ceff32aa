"""RequestBudget, timeout conversion and every lifecycle setting's validation."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest

from lionagi.service import (
    AdmissionConfig,
    AdmissionConfigError,
    AdmissionError,
    AttemptPolicy,
    CircuitPolicy,
    RequestBudget,
    request_budget_from_timeout,
)


def fixed(t: float) -> Any:
    return lambda: t


# -- budget ---------------------------------------------------------------------------------------


def test_budget_without_deadline_never_expires() -> None:
    b = RequestBudget(None)
    assert b.remaining(fixed(1e9)) is None
    assert not b.expired(fixed(1e9))
    assert b.cap(5.0, fixed(0)) == 5.0
    assert b.cap(None, fixed(0)) is None


def test_budget_remaining_is_never_negative() -> None:
    b = RequestBudget(100.0)
    assert b.remaining(fixed(40.0)) == 60.0
    assert b.remaining(fixed(100.0)) == 0.0
    assert b.remaining(fixed(250.0)) == 0.0
    assert not b.expired(fixed(99.9))
    assert b.expired(fixed(100.0))


@pytest.mark.parametrize(
    ("local", "now", "expected"),
    [(10.0, 0.0, 10.0), (10.0, 95.0, 5.0), (None, 30.0, 70.0), (0.5, 99.0, 0.5)],
)
def test_budget_cap_is_min_of_local_and_remaining(
    local: float | None, now: float, expected: float
) -> None:
    assert RequestBudget(100.0).cap(local, fixed(now)) == expected


@pytest.mark.parametrize("timeout", [None, 0, 0.0, math.inf])
def test_timeout_none_zero_or_inf_means_no_deadline(timeout: float | None) -> None:
    assert request_budget_from_timeout(timeout, clock=fixed(5.0)).deadline is None


def test_timeout_is_converted_once_to_an_absolute_deadline() -> None:
    assert request_budget_from_timeout(2.5, clock=fixed(10.0)) == RequestBudget(12.5)


@pytest.mark.parametrize("timeout", [math.nan, "5", True, -1, -0.5, -math.inf])
def test_bad_timeout_names_the_field(timeout: Any) -> None:
    with pytest.raises(AdmissionConfigError) as info:
        request_budget_from_timeout(timeout, clock=fixed(0.0))
    assert info.value.field == "timeout"
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, AdmissionError)


@pytest.mark.parametrize("deadline", [math.nan, math.inf, -math.inf])
def test_non_finite_deadline_is_refused(deadline: float) -> None:
    with pytest.raises(AdmissionConfigError) as info:
        RequestBudget(deadline)
    assert info.value.field == "deadline"


@pytest.mark.parametrize("deadline", ["soon", b"1", [1.0], True])
def test_a_deadline_that_is_not_a_number_names_the_field(deadline: Any) -> None:
    # "soon" raised a builtin TypeError from math.isfinite before.
    with pytest.raises(AdmissionConfigError) as info:
        RequestBudget(deadline)
    assert info.value.field == "deadline"


def test_budget_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        RequestBudget(1.0).deadline = 2.0  # type: ignore[misc]


# -- admission config -----------------------------------------------------------------------------

BAD_ADMISSION = [
    ("queue_capacity", 0),
    ("queue_capacity", -1),
    ("queue_capacity", None),
    ("queue_capacity", True),
    ("queue_capacity", 1.5),
    ("capacity_refresh_time", 0),
    ("capacity_refresh_time", -1.0),
    ("capacity_refresh_time", math.nan),
    ("capacity_refresh_time", math.inf),
    ("capacity_refresh_time", True),
    ("interval", 0),
    ("interval", -2.0),
    ("interval", math.nan),
    ("limit_requests", 0),
    ("limit_requests", -5),
    ("limit_requests", True),
    ("limit_requests", 2.0),
    ("limit_tokens", 0),
    ("limit_tokens", False),
    ("concurrency_limit", 0),
    ("concurrency_limit", -1),
    ("concurrency_limit", True),
]


@pytest.mark.parametrize(("field", "value"), BAD_ADMISSION)
def test_admission_config_rejects_bad_values_by_field(field: str, value: Any) -> None:
    with pytest.raises(AdmissionConfigError) as info:
        AdmissionConfig(**{field: value})
    assert info.value.field == field
    assert field in str(info.value)


def test_the_zero_is_not_unlimited_hint_goes_only_to_a_zero() -> None:
    with pytest.raises(AdmissionConfigError) as zero:
        AdmissionConfig(limit_requests=0)
    assert str(zero.value).endswith("got 0; 0 is not unlimited")
    for value in (-5, True, "3"):
        with pytest.raises(AdmissionConfigError) as info:
            AdmissionConfig(limit_tokens=value)
        assert str(info.value) == (
            f"limit_tokens: must be None (unlimited) or a positive int, got {value!r}"
        )


def test_admission_config_accepts_unlimited_and_positive_values() -> None:
    cfg = AdmissionConfig(
        queue_capacity=1,
        capacity_refresh_time=0.5,
        interval=2,
        limit_requests=1,
        limit_tokens=1,
        concurrency_limit=1,
    )
    assert cfg.window == 2
    assert AdmissionConfig().window == 60.0
    assert AdmissionConfig().limit_requests is None
    assert not AdmissionConfig().rate_limited
    assert AdmissionConfig(limit_tokens=5).rate_limited


def test_replace_revalidates() -> None:
    with pytest.raises(AdmissionConfigError):
        dataclasses.replace(AdmissionConfig(), concurrency_limit=0)


@pytest.mark.parametrize(
    ("family", "queue", "concurrency"),
    [
        ("api", 100, None),
        ("agentic", 10, 3),
        ("ag2_agent", 3, 1),
        ("ag2_group_chat", 3, 1),
        ("ag2_nlip", 10, 3),
    ],
)
def test_family_defaults_match_tables(family: Any, queue: int, concurrency: int | None) -> None:
    cfg = AdmissionConfig.for_family(family)
    assert (cfg.queue_capacity, cfg.concurrency_limit) == (queue, concurrency)
    assert cfg.capacity_refresh_time == 60.0
    assert cfg.limit_requests is None
    assert cfg.limit_tokens is None


def test_unknown_family_names_the_field() -> None:
    with pytest.raises(AdmissionConfigError) as info:
        AdmissionConfig.for_family("nope")  # type: ignore[arg-type]
    assert info.value.field == "family"


# -- attempt / circuit policy ---------------------------------------------------------------------

BAD_ATTEMPT = [
    ("max_attempts", 0),
    ("max_attempts", True),
    ("max_attempts", 2.0),
    ("base_delay", -1.0),
    ("base_delay", math.nan),
    ("max_delay", math.inf),
    ("max_delay", 0.5),  # below base_delay 1.0
    ("backoff_factor", 0.5),
    ("backoff_factor", 0),
    ("jitter_factor", 1.5),
    ("jitter_factor", -0.1),
    ("retry_statuses", {"429"}),
    ("retry_statuses", {99}),
    ("retry_statuses", "429"),
    ("retry_statuses", {True}),
    ("retry_server_errors", 1),
]


@pytest.mark.parametrize(("field", "value"), BAD_ATTEMPT)
def test_attempt_policy_rejects_bad_values_by_field(field: str, value: Any) -> None:
    with pytest.raises(AdmissionConfigError) as info:
        AttemptPolicy(**{field: value})
    assert info.value.field == field


def test_attempt_policy_defaults_and_status_normalization() -> None:
    p = AttemptPolicy()
    assert (p.max_attempts, p.base_delay, p.max_delay, p.backoff_factor, p.jitter_factor) == (
        3,
        1.0,
        60.0,
        2.0,
        0.2,
    )
    assert p.retry_statuses == frozenset({429})
    assert p.retry_server_errors is True
    assert AttemptPolicy(retry_statuses=[408, 429]).retry_statuses == frozenset({408, 429})  # type: ignore[arg-type]
    assert AttemptPolicy(base_delay=0, max_delay=0).max_delay == 0


BAD_CIRCUIT = [
    ("failure_threshold", 0),
    ("failure_threshold", True),
    ("recovery_time", 0),
    ("recovery_time", math.nan),
    ("half_open_max_calls", 0),
]


@pytest.mark.parametrize(("field", "value"), BAD_CIRCUIT)
def test_circuit_policy_rejects_bad_values_by_field(field: str, value: Any) -> None:
    with pytest.raises(AdmissionConfigError) as info:
        CircuitPolicy(**{field: value})
    assert info.value.field == field


def test_circuit_policy_defaults() -> None:
    p = CircuitPolicy()
    assert (p.failure_threshold, p.recovery_time, p.half_open_max_calls) == (5, 30.0, 1)

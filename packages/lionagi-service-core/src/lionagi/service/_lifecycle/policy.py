"""Retry and circuit settings (ADR-0029 D4); defaults are the inherited TABLES.md values."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .._base.errors import AdmissionConfigError
from ._validate import (
    check_fraction,
    check_positive_int,
    check_positive_seconds,
    is_finite,
    shown,
)

__all__ = ["AttemptPolicy", "CircuitPolicy"]

_DEFAULT_MAX_DELAY = 60.0  # AttemptPolicy.max_delay's default (TABLES.md)


def _status_set(value: object) -> frozenset[int]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise AdmissionConfigError(
            "retry_statuses", f"must be a set of HTTP statuses, got {value!r}"
        )
    statuses = frozenset(value)
    for status in statuses:
        if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
            raise AdmissionConfigError(
                "retry_statuses", f"must hold HTTP status ints 100-599, got {status!r}"
            )
    return statuses


@dataclass(frozen=True, slots=True)
class AttemptPolicy:
    """How often and how patiently a request's setup is retried.

    Attributes:
        max_attempts: Total attempts including the first (>= 1; 1 disables retries).
        base_delay: Delay before the second attempt, in seconds.
        max_delay: Ceiling for the computed backoff and for a server's Retry-After: a call
            told to wait longer ends at once with the `ProviderRateLimitError` (its
            `retry_after` says when to come back) instead of sleeping on its permit.
        backoff_factor: Growth per attempt (>= 1).
        jitter_factor: Relative spread applied to each delay, in [0, 1].
        retry_statuses: HTTP statuses retried below 500 (429 by default).
        retry_server_errors: Retry any status >= 500, the capacity errors an adapter maps
            from its vendor's own status (`ProviderStatusCapacityError`), and on `invoke()` an
            in-band server fault or overloaded model (`ProviderStreamServerError`,
            `ProviderStreamCapacityError`: a 2xx body or error chunk reporting the provider's
            own failure or lack of capacity; an agentic CLI's `ProviderCapacityError`). Off,
            none of these is retried, however the provider reported it.

    Raises:
        AdmissionConfigError: A value is out of range; `field` names it.
    """

    max_attempts: int = 3
    base_delay: float = 1.0
    max_delay: float = _DEFAULT_MAX_DELAY
    backoff_factor: float = 2.0
    jitter_factor: float = 0.2
    retry_statuses: frozenset[int] = field(default_factory=lambda: frozenset({429}))
    retry_server_errors: bool = True

    def __post_init__(self) -> None:
        check_positive_int("max_attempts", self.max_attempts)
        check_positive_seconds("base_delay", self.base_delay, allow_zero=True)
        check_positive_seconds("max_delay", self.max_delay, allow_zero=True)
        if self.max_delay < self.base_delay:
            # Blame the field the caller set: with max_delay left at its default, the value to
            # fix is base_delay, and naming max_delay would point at a field never written.
            if self.max_delay == _DEFAULT_MAX_DELAY:
                raise AdmissionConfigError(
                    "base_delay",
                    f"must be <= max_delay (max_delay={self.max_delay}), got {self.base_delay}",
                )
            raise AdmissionConfigError(
                "max_delay", f"must be >= base_delay ({self.base_delay}), got {self.max_delay}"
            )
        # A factor, not seconds: checked here rather than with check_positive_seconds, whose
        # message would state a wrong unit and a wrong bound (> 0 where the rule is >= 1).
        factor = self.backoff_factor
        if isinstance(factor, bool) or not isinstance(factor, int | float):
            raise AdmissionConfigError(
                "backoff_factor", f"must be a finite number >= 1, got {factor!r}"
            )
        if not is_finite(factor) or factor < 1:
            raise AdmissionConfigError(
                "backoff_factor",
                f"must be a finite number >= 1 (delays never shrink), got {shown(factor)}",
            )
        check_fraction("jitter_factor", self.jitter_factor)
        object.__setattr__(self, "retry_statuses", _status_set(self.retry_statuses))
        if not isinstance(self.retry_server_errors, bool):
            raise AdmissionConfigError(
                "retry_server_errors", f"must be a bool, got {self.retry_server_errors!r}"
            )


@dataclass(frozen=True, slots=True)
class CircuitPolicy:
    """When the circuit opens and how it probes recovery.

    Attributes:
        failure_threshold: Consecutive failed logical requests that open the circuit.
        recovery_time: Seconds the circuit stays open before allowing probes.
        half_open_max_calls: Probe requests allowed at once while half-open.

    Raises:
        AdmissionConfigError: A value is out of range; `field` names it.
    """

    failure_threshold: int = 5
    recovery_time: float = 30.0
    half_open_max_calls: int = 1

    def __post_init__(self) -> None:
        check_positive_int("failure_threshold", self.failure_threshold)
        check_positive_seconds("recovery_time", self.recovery_time)
        check_positive_int("half_open_max_calls", self.half_open_max_calls)

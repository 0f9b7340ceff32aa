"""One absolute deadline per request (ADR-0029 D2).

A relative timeout is converted once, at the outermost caller; every later stage asks the budget
how much time is left instead of receiving a fresh full duration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._base.errors import AdmissionConfigError
from ._validate import is_finite, shown
from .clock import Clock, default_clock

__all__ = ["NO_DEADLINE", "RequestBudget", "request_budget_from_timeout"]


@dataclass(frozen=True, slots=True)
class RequestBudget:
    """The request's deadline as an absolute time on the injected clock; None means none.

    Raises:
        AdmissionConfigError: `deadline` is not a number, or is NaN or infinite (field
            `deadline`).
    """

    deadline: float | None = None

    def __post_init__(self) -> None:
        d = self.deadline
        if d is not None and (
            isinstance(d, bool) or not isinstance(d, int | float) or not is_finite(d)
        ):
            raise AdmissionConfigError("deadline", f"must be a finite time or None, got {shown(d)}")

    def remaining(self, clock: Clock = default_clock) -> float | None:
        """Seconds left (never negative), or None without a deadline."""
        if self.deadline is None:
            return None
        left = self.deadline - clock()
        return left if left > 0.0 else 0.0

    def expired(self, clock: Clock = default_clock) -> bool:
        """True once the deadline has been reached; never true without a deadline."""
        return self.deadline is not None and clock() >= self.deadline

    def cap(self, local_cap: float | None, clock: Clock = default_clock) -> float | None:
        """The time a stage may use: `min(local_cap, remaining)`; None when both are None."""
        left = self.remaining(clock)
        if left is None:
            return local_cap
        if local_cap is None:
            return left
        return local_cap if local_cap < left else left


NO_DEADLINE = RequestBudget(None)
"""The budget of a request without a deadline."""


def request_budget_from_timeout(
    timeout: float | None, *, clock: Clock = default_clock
) -> RequestBudget:
    """Convert a relative timeout into a budget, once, at the outermost caller.

    `None` and `0` mean "no deadline", as ADR-0029 D1 keeps the legacy spelling; `+inf`
    is also no deadline (it never expires), and so is an int too large for a float. A
    negative timeout is refused rather than read as "no deadline": a caller passing
    `deadline - now` is negative exactly when it is already late, and must not get an
    unbounded call for it. NaN and `-inf` are refused with it.

    Raises:
        AdmissionConfigError: `timeout` is not a number, NaN or negative (`-inf` included)
            (field `timeout`).
    """
    if timeout is None:
        return NO_DEADLINE
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise AdmissionConfigError(
            "timeout", f"must be a number of seconds or None, got {timeout!r}"
        )
    if isinstance(timeout, float) and math.isnan(timeout):  # an int is never NaN
        raise AdmissionConfigError("timeout", "must be a number of seconds or None, got NaN")
    if timeout < 0:
        raise AdmissionConfigError(
            "timeout",
            f"must be >= 0 seconds (0 or None: no deadline), got {shown(timeout)}; a deadline "
            "already past is not 'no deadline'",
        )
    # An int beyond the float range (10**400) is longer than any float, so it reads as +inf:
    # no deadline. Converting it raised a bare OverflowError out of invoke()/stream().
    if timeout == 0 or not is_finite(timeout):
        return NO_DEADLINE
    return RequestBudget(clock() + float(timeout))

"""The clock seam: every lifecycle wait reads time and sleeps through these two callables.

Production uses anyio's monotonic event-loop clock; tests inject a fake clock and sleep so
deadlines, rate windows and retry delays run deterministically without real waiting
(ADR-0029 D2).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio

__all__ = ["Clock", "Sleep", "default_clock", "default_sleep", "is_native_clock", "time_or_none"]

Clock = Callable[[], float]
"""Returns the current monotonic time in seconds; deadlines are absolute values on it."""

Sleep = Callable[[float], Awaitable[None]]
"""Waits the given number of seconds on the same timeline as the paired `Clock`."""

default_clock: Clock = anyio.current_time
default_sleep: Sleep = anyio.sleep


def is_native_clock(clock: Clock) -> bool:
    """True when ``clock`` is anyio's own, so a cancel-scope deadline can enforce its times.

    Any other clock needs a timer task driven by the injected sleep instead.
    """
    return clock is anyio.current_time


def time_or_none(clock: Clock) -> float | None:
    """``clock()``, or None where it cannot be read: anyio's clock outside a running loop.

    Observability reads (an admission snapshot, a circuit's state) are made from health checks,
    metrics threads and synchronous code as well; they must answer there rather than raise.
    The loop's clock has no reading outside its loop, so those reads skip what needs it.
    """
    try:
        return clock()
    except RuntimeError:  # anyio's NoEventLoopError
        return None

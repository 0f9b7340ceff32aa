"""Run one awaitable step until an absolute time on the injected clock.

With anyio's own clock the step runs in a cancel scope whose deadline is that time. With an
injected clock a timer task, driven by the injected sleep, cancels the step instead, so fake
time in tests expires work exactly like real time does. The step never spans a ``yield``: async
generators call this around each ``__anext__`` only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

from .clock import Clock, Sleep, is_native_clock

__all__ = ["DeadlineReached", "run_before", "run_hook"]

T = TypeVar("T")


class DeadlineReached(Exception):
    """Internal signal: the step hit its time limit; callers raise a typed error instead."""


async def run_before(
    step: Callable[[], Awaitable[T]], until: float | None, *, clock: Clock, sleep: Sleep
) -> T:
    """Await ``step()``; cancel it and raise :class:`DeadlineReached` once ``clock() >= until``.

    A step that finishes at the same moment the time runs out keeps its result. Exceptions from
    the step and outer cancellation propagate unchanged.
    """
    if until is None:
        return await step()
    if is_native_clock(clock):
        with anyio.CancelScope(deadline=until):
            return await step()
        raise DeadlineReached
    return await _run_with_timer(step, until, clock=clock, sleep=sleep)


async def run_hook(
    step: Callable[[], Awaitable[T]], until: float | None, *, clock: Clock, sleep: Sleep
) -> T:
    """:func:`run_before` for caller code: also :class:`DeadlineReached` if it returned late.

    A sync hook runs on the event loop's thread, so no cancel scope can interrupt it: its limit
    is only seen once it returns. Without this check a blocking hook that outlived its cap or
    the deadline let the call go on and even COMPLETE after its deadline; with it the outcome
    is the one an async hook cut off at the limit gets. Unlike :func:`run_before`, returning at
    the limit itself counts as late.
    """
    out = await run_before(step, until, clock=clock, sleep=sleep)
    if until is not None and clock() >= until:
        raise DeadlineReached
    return out


async def _run_with_timer(
    step: Callable[[], Awaitable[T]], until: float, *, clock: Clock, sleep: Sleep
) -> T:
    scope = anyio.CancelScope()
    fired = False
    done = False
    result: T | None = None
    error: Exception | None = None

    async def timer() -> None:
        nonlocal fired
        delay = until - clock()
        if delay > 0:
            await sleep(delay)
        fired = True
        scope.cancel()

    async with anyio.create_task_group() as tg:
        tg.start_soon(timer)
        try:
            with scope:
                result = await step()
                done = True
        except Exception as exc:  # re-raised below, outside the task group, unwrapped
            error = exc
        finally:
            tg.cancel_scope.cancel()
    if error is not None:
        raise error
    if done:
        return result  # type: ignore[return-value]
    if fired:
        raise DeadlineReached
    # Neither finished nor timed out: only an outer cancellation gets here, and it re-raises at
    # the task group's exit above; keep mypy and the invariant honest.
    raise AssertionError("unreachable: step neither finished nor timed out")  # pragma: no cover

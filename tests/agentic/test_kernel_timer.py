"""The run limit's timer is kept by the kernel, so a pending limit costs the loop nothing.

An asyncio timer pending for an hour makes every loop iteration compute a poll timeout and
check the timer heap (issue 15: ≈ 6 k machine instructions a paced CLI event). On Linux the
limit is a timerfd the loop polls like a pipe; elsewhere, or when no descriptor can be had, it
is the loop's own timer, with the same behaviour.
"""

from __future__ import annotations

import asyncio
import errno
import sys
import time
from collections.abc import Callable
from typing import Any

import anyio
import pytest

from lionagi.service._transport import kernel_timer
from lionagi.service._transport.kernel_timer import call_later
from lionagi.service._transport.run_control import RunControl

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="timerfd is a Linux facility"
)


@pytest.fixture
async def loop_timers(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The callbacks of every timer put on the running loop's own heap (``call_later`` goes
    through ``call_at``; anyio's sleeps are among them, so tests look for their own)."""
    loop = asyncio.get_running_loop()
    callbacks: list[Any] = []
    plain_at = loop.call_at

    def at(when: float, callback: Any, *args: Any, **kw: Any) -> asyncio.TimerHandle:
        callbacks.append(callback)
        return plain_at(when, callback, *args, **kw)

    monkeypatch.setattr(loop, "call_at", at)
    return callbacks


@linux_only
async def test_a_kernel_timer_fires_once_at_its_time_and_frees_its_descriptor(
    timer_descriptors: Callable[[], int],
    loop_timers: list[Any],
) -> None:
    loop = asyncio.get_running_loop()
    before = timer_descriptors()
    fired: list[float] = []
    started = time.monotonic()

    def fire() -> None:
        fired.append(time.monotonic() - started)

    timer = call_later(loop, 0.1, fire)
    assert timer_descriptors() == before + 1
    await anyio.sleep(0.4)
    assert len(fired) == 1 and fired[0] >= 0.09  # not before its time
    assert fire not in loop_timers  # nothing on the loop's heap while it was pending
    assert timer_descriptors() == before
    timer.cancel()  # after firing: harmless
    assert len(fired) == 1


@linux_only
async def test_a_cancelled_kernel_timer_never_fires_and_frees_its_descriptor(
    timer_descriptors: Callable[[], int],
) -> None:
    loop = asyncio.get_running_loop()
    before = timer_descriptors()
    fired: list[bool] = []
    timer = call_later(loop, 0.05, lambda: fired.append(True))
    timer.cancel()
    timer.cancel()
    assert timer_descriptors() == before
    await anyio.sleep(0.2)
    assert fired == []


async def test_a_delay_already_over_fires_on_the_loops_own_timer(loop_timers: list[Any]) -> None:
    loop = asyncio.get_running_loop()
    fired: list[bool] = []

    def fire() -> None:
        fired.append(True)

    call_later(loop, -1.0, fire)
    await anyio.sleep(0.05)
    assert fired == [True]
    assert fire in loop_timers


async def test_without_a_descriptor_the_loops_timer_does_the_same_job(
    monkeypatch: pytest.MonkeyPatch, loop_timers: list[Any]
) -> None:
    def refused(delay: float) -> int:
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(kernel_timer, "_maker", lambda: refused)
    loop = asyncio.get_running_loop()
    fired: list[bool] = []

    def fire() -> None:
        fired.append(True)

    def never() -> None:
        fired.append(False)

    call_later(loop, 0.05, fire)
    cancelled = call_later(loop, 0.05, never)
    cancelled.cancel()
    await anyio.sleep(0.2)
    assert fired == [True]
    assert fire in loop_timers and never in loop_timers


@linux_only
async def test_a_run_limit_an_hour_away_puts_nothing_on_the_loops_heap(
    loop_timers: list[Any],
) -> None:
    control = RunControl(anyio.current_time() + 3600)
    seen: list[str] = []
    control.attach(seen.append)
    try:
        assert control._expire not in loop_timers
    finally:
        control.detach(seen.append)
    assert seen == []


@linux_only
async def test_a_run_limit_on_the_kernel_timer_interrupts_its_reader(
    timer_descriptors: Callable[[], int],
) -> None:
    before = timer_descriptors()
    control = RunControl(anyio.current_time() + 0.05)
    seen: list[str] = []
    control.attach(seen.append)
    await anyio.sleep(0.3)
    assert seen == ["the run's time limit passed"] and control.expired
    control.detach(seen.append)
    assert timer_descriptors() == before

"""Deterministic time for lifecycle tests: a fake clock whose sleeps wake only when advanced."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from dataclasses import dataclass

import anyio
import pytest
from anyio.lowlevel import checkpoint


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class FakeClock:
    """A monotonic clock plus a matching sleep.

    ``auto=False``: ``sleep`` blocks until a test calls ``advance``. ``auto=True``: ``sleep``
    jumps the clock forward by the delay at once (for sequential retry loops). Every sleep's
    delay is recorded in ``sleeps``.
    """

    def __init__(self, start: float = 1000.0, *, auto: bool = False) -> None:
        self.now = start
        self.auto = auto
        self.sleeps: list[float] = []
        self._timers: list[tuple[float, int, anyio.Event]] = []
        self._seq = itertools.count()

    def __call__(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        await checkpoint()  # a sleep cancelled before it starts neither counts nor moves time
        self.sleeps.append(delay)
        if delay <= 0:
            return
        if self.auto:
            self.now += delay
            await checkpoint()
            return
        event = anyio.Event()
        heapq.heappush(self._timers, (self.now + delay, next(self._seq), event))
        await event.wait()

    async def settle(self) -> None:
        """Return once every other task is blocked and no loop callback is queued (polling)."""
        await checkpoint()
        this = asyncio.current_task()
        loop = asyncio.get_running_loop()
        for _ in range(10_000):
            # Blocked tasks are not enough: a callback already queued on the loop (a task-group
            # child's done callback, anyio re-delivering a cancellation) still changes state.
            if not loop._ready and all(  # type: ignore[attr-defined]
                (waiter := getattr(task, "_fut_waiter", None)) is not None and not waiter.done()
                for task in asyncio.all_tasks()
                if task is not this
            ):
                return
            await asyncio.sleep(0)
        raise AssertionError("tasks never settled")

    async def advance(self, seconds: float) -> None:
        """Move time forward, firing due timers in order and letting woken tasks run."""
        await self.settle()
        target = self.now + seconds
        while self._timers and self._timers[0][0] <= target:
            when, _, event = heapq.heappop(self._timers)
            self.now = max(self.now, when)
            event.set()
            await self.settle()
        self.now = target
        await self.settle()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def auto_clock() -> FakeClock:
    return FakeClock(auto=True)


@dataclass
class Call:
    """The minimum admission reads from a call."""

    id: object
    required_tokens: int | None = None
    is_terminal: bool = False


@pytest.fixture
def make_call() -> type[Call]:
    return Call

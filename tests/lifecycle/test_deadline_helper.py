"""run_before: the one helper every lifecycle wait uses to honour an absolute time."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from lionagi.service._lifecycle import DeadlineReached, run_before


async def test_timer_path_cuts_off_at_fake_time(clock: Any) -> None:
    outcome: list[str] = []

    async def body() -> None:
        try:
            await run_before(anyio.sleep_forever, clock.now + 5, clock=clock, sleep=clock.sleep)
        except DeadlineReached:
            outcome.append("deadline")

    async with anyio.create_task_group() as tg:
        tg.start_soon(body)
        await clock.advance(4.9)
        assert outcome == []
        await clock.advance(0.1)
        assert outcome == ["deadline"]


async def test_result_and_errors_pass_through(clock: Any) -> None:
    async def value() -> int:
        return 7

    async def boom() -> None:
        raise KeyError("k")

    assert await run_before(value, clock.now + 1, clock=clock, sleep=clock.sleep) == 7
    assert await run_before(value, None, clock=clock, sleep=clock.sleep) == 7
    with pytest.raises(KeyError):  # not wrapped in an ExceptionGroup
        await run_before(boom, clock.now + 1, clock=clock, sleep=clock.sleep)


async def test_native_path_uses_a_cancel_scope_deadline() -> None:
    with pytest.raises(DeadlineReached):
        await run_before(
            anyio.sleep_forever,
            anyio.current_time() + 0.01,
            clock=anyio.current_time,
            sleep=anyio.sleep,
        )


async def test_outer_cancellation_propagates(clock: Any) -> None:
    with anyio.CancelScope() as scope:
        scope.cancel()
        await run_before(anyio.sleep_forever, clock.now + 5, clock=clock, sleep=clock.sleep)
        pytest.fail("cancellation was swallowed")
    assert scope.cancelled_caught

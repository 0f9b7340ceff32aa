"""A stream closed from another task while its slow ``pre_event_create`` hook runs stops at once.

The stream's first read prepares the call: the ``pre_event_create`` hook (caller code, which may
await a database or a policy service) runs before the call exists. ``aclose()`` from another
task (a stop button) then only marked the stream stopped and waited for the hook to finish: a
hook sleeping 5 s held the stop for 5 s. Now the hook's await is cancelled where it is, the
consumer's read raises `StreamClosed`, and nothing is left behind (no owned call, no permit, no
registry entry); a call the hook's cancellation did not stop (it swallowed the cancellation)
is created and ends CANCELLED before it is admitted.
"""

from __future__ import annotations

import time
from collections.abc import MutableMapping
from typing import Any

import anyio
import pytest

from lionagi.service import EventStatus, StreamClosed, iModel
from lionagi.service._transport.api_calling import APICalling

STOP_BOUND = 2.0  # the hook sleeps 5 s: a stop waiting for it cannot return in time


async def _stop_while_reading(stream: Any) -> list[BaseException]:
    """Consume ``stream`` in a task; once its first read is under way, close it from here."""
    raised: list[BaseException] = []

    async def consume() -> None:
        try:
            async for _ in stream:
                pass
        except Exception as exc:
            raised.append(exc)

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(consume)
            await anyio.sleep(0.2)  # the consumer's first read is inside the hook
            assert not raised
            start = time.monotonic()
            with anyio.fail_after(STOP_BOUND):
                await stream.aclose()
            assert time.monotonic() - start < STOP_BOUND
            assert raised, "aclose() returned before the consumer's read ended"
    return raised


async def test_a_stop_cancels_a_slow_pre_event_create_hook() -> None:
    seen: list[str] = []

    async def slow(event_type: type[Any], kwargs: MutableMapping[str, Any]) -> None:
        if kwargs.get("prompt") != "slow":
            return
        seen.append("started")
        try:
            await anyio.sleep(5)
        except anyio.get_cancelled_exc_class():
            seen.append("cancelled")
            raise
        seen.append("finished")

    async with iModel(
        model="scripted/demo", concurrency_limit=1, hook_registry={"pre_event_create": slow}
    ) as model:
        stream = model.stream(prompt="slow")
        raised = await _stop_while_reading(stream)

        assert [type(e) for e in raised] == [StreamClosed]
        assert seen == ["started", "cancelled"]
        assert not model._supervisor.owned
        assert not model._streams._live
        snapshot = model.admission_snapshot()
        assert (snapshot.queued, snapshot.active) == (0, 0)
        with pytest.raises(StopAsyncIteration):
            await stream.__anext__()  # closed, as a closed generator is

        # The model is still open and its only permit free: the next stream runs at once.
        chunks = []
        with anyio.fail_after(STOP_BOUND):
            async for chunk in model.stream(prompt="next"):
                chunks.append(chunk)
        assert chunks


async def test_a_hook_that_swallows_the_stop_still_ends_its_call_cancelled() -> None:
    """The hook returns after the cancellation: the call it built ends CANCELLED, unadmitted."""
    created: list[APICalling] = []

    async def stubborn(event_type: type[Any], kwargs: MutableMapping[str, Any]) -> None:
        try:
            await anyio.sleep(5)
        except anyio.get_cancelled_exc_class():
            pass  # swallowed: anyio's scope still ends at the hook's next checkpoint, if any

    admitted: list[APICalling] = []

    async def record(event: Any) -> None:
        admitted.append(event)  # pre_invocation: reached only if the call was admitted

    async with iModel(
        model="scripted/demo",
        concurrency_limit=1,
        hook_registry={"pre_event_create": stubborn, "pre_invocation": record},
    ) as model:
        build = model.create_api_calling

        def keep(**kwargs: Any) -> APICalling:
            call = build(**kwargs)
            created.append(call)
            return call

        model.create_api_calling = keep  # type: ignore[method-assign]
        raised = await _stop_while_reading(model.stream(prompt="x"))

        assert [type(e) for e in raised] == [StreamClosed]
        assert [call.status for call in created] == [EventStatus.CANCELLED]
        assert isinstance(created[0].exception, StreamClosed)
        assert admitted == []
        assert not model._supervisor.owned
        snapshot = model.admission_snapshot()
        assert (snapshot.queued, snapshot.active) == (0, 0)

"""An ``iModel`` runs its calls on one asyncio loop at a time, whatever its endpoint.

Its admission queue belongs to that loop: a call queued from another thread's loop is never
woken by a release on the first, so it used to sit out its whole deadline (and then run) while
the permit was free. Such a call is now refused up front with ``EventLoopMismatchError``. A
loop that has ended hands the model over to the next one, so sequential ``asyncio.run`` calls
on a model without an HTTP client keep working.
"""

from __future__ import annotations

import asyncio
import threading

import anyio
import anyio.to_thread
import pytest

from lionagi.service import EventLoopMismatchError, iModel


def test_a_call_from_a_second_running_loop_is_refused_not_starved() -> None:
    model = iModel(model="scripted/demo", concurrency_limit=1)
    holding = threading.Event()
    refused = threading.Event()
    outcome: dict[str, object] = {}

    async def hold() -> None:
        stream = model.stream(prompt="a b c d e f", timeout=30)
        async for _ in stream:
            holding.set()
            # Keeps the only permit (and this loop running) until the other thread is answered.
            await anyio.to_thread.run_sync(refused.wait, 30)
            break
        await stream.aclose()

    async def call_from_second_loop() -> None:
        try:
            await model.invoke(prompt="next", timeout=30)
        except EventLoopMismatchError as exc:
            outcome["error"] = exc
        else:
            outcome["error"] = None
        finally:
            refused.set()

    def second() -> None:
        holding.wait(30)
        asyncio.run(call_from_second_loop())

    thread = threading.Thread(target=second)
    thread.start()
    try:
        asyncio.run(hold())
    finally:
        refused.set()
        thread.join(60)
    error = outcome["error"]
    assert isinstance(error, EventLoopMismatchError)
    assert error.loop_closed is False
    assert "admission queue" in str(error) and "iModel.copy()" in str(error)
    # The owner loop ended: the model moves to the next loop, and a copy never was bound.
    assert asyncio.run(model.invoke(prompt="again", timeout=30)).status.value == "completed"
    asyncio.run(model.close())


def test_sequential_runs_share_a_model_without_an_http_client() -> None:
    model = iModel(model="scripted/demo")

    async def once() -> str:
        return (await model.invoke(prompt="hi", timeout=30)).status.value

    assert [asyncio.run(once()) for _ in range(3)] == ["completed"] * 3
    asyncio.run(model.close())


def test_closing_from_another_loop_is_not_refused() -> None:
    # close() must always work: only calls are bound to the loop.
    model = iModel(model="scripted/demo")
    own = asyncio.new_event_loop()
    try:
        assert own.run_until_complete(model.invoke(prompt="hi")).status.value == "completed"
        asyncio.run(model.close())
    finally:
        own.close()
    with pytest.raises(Exception, match="closed"):
        asyncio.run(model.invoke(prompt="after"))

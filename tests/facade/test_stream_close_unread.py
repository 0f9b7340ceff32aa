"""A stream closed by its caller before the first read still ends its prepared call.

``aclose()`` after a read ends the call CANCELLED (the supervisor's ``GeneratorExit`` path). Before
a read the generator had never started, so closing it ran nothing: the prepared call stayed
PENDING for good (its ``wait_terminal()`` never returned) and the registry kept the handle for
``close()``. Later reads end the iteration, as on a closed async generator.
"""

from __future__ import annotations

import anyio
import pytest

from lionagi.service import AdmissionConfig, EventStatus, iModel

SCRIPTED = "scripted/demo"


async def test_closing_an_unread_stream_cancels_its_prepared_call():
    async with iModel(model=SCRIPTED) as model:
        call = model.create_api_calling(prompt="hello")
        stream = model.stream(call)
        await stream.aclose()

        assert call.status is EventStatus.CANCELLED
        assert call.execution.exception is None  # the caller's choice, as after a read
        with anyio.fail_after(1):
            await call.wait_terminal()
        assert not model._streams._live  # forgotten: close() has nothing to reap
        with pytest.raises(StopAsyncIteration):
            await stream.__anext__()
        with pytest.raises(StopAsyncIteration):
            await stream.asend(None)
        await stream.aclose()  # idempotent, as a generator's
    assert call.status is EventStatus.CANCELLED


async def test_closing_after_a_read_cancels_the_same_way():
    async with iModel(model=SCRIPTED) as model:
        call = model.create_api_calling(prompt="hello")
        stream = model.stream(call)
        await stream.__anext__()
        await stream.aclose()
        assert call.status is EventStatus.CANCELLED
        with pytest.raises(StopAsyncIteration):
            await stream.__anext__()


async def test_an_unread_stream_closed_after_the_model_closed_cancels_its_call():
    model = iModel(model=SCRIPTED)
    call = model.create_api_calling(prompt="hello")
    stream = model.stream(call)
    await model.close()  # an unread stream is left for its first read (or close) to settle
    await stream.aclose()
    assert call.status is EventStatus.CANCELLED


async def test_an_unread_stream_without_a_prepared_call_runs_nothing():
    created: list[object] = []
    async with iModel(model=SCRIPTED, hook_registry={"pre_event_create": created.append}) as model:
        stream = model.stream(prompt="hello")
        await stream.aclose()
        assert created == []
        assert not model._streams._live
        with pytest.raises(StopAsyncIteration):
            await stream.__anext__()


async def test_a_call_of_another_model_is_left_alone():
    async with iModel(model=SCRIPTED) as owner, iModel(model=SCRIPTED) as other:
        call = owner.create_api_calling(prompt="hello")
        await other.stream(call).aclose()
        assert call.status is EventStatus.PENDING  # a read would have refused it untouched
        assert (await owner.invoke(call)).status is EventStatus.COMPLETED


async def test_a_call_queued_by_another_invoke_of_this_model_is_left_alone():
    entered, gate = anyio.Event(), anyio.Event()

    async def hold(event: object) -> None:
        entered.set()
        await gate.wait()

    async with iModel(
        model=SCRIPTED,
        admission=AdmissionConfig(concurrency_limit=1),
        hook_registry={"pre_invocation": hold},
    ) as model:
        first = model.create_api_calling(prompt="one")
        queued = model.create_api_calling(prompt="two")
        async with anyio.create_task_group() as tg:
            tg.start_soon(model.invoke, first)
            with anyio.fail_after(2):
                await entered.wait()  # ``first`` holds the one permit
            tg.start_soon(model.invoke, queued)
            await anyio.wait_all_tasks_blocked()
            assert str(queued.id) in model._supervisor.owned
            assert queued.status is EventStatus.PENDING  # waiting for the permit
            await model.stream(queued).aclose()
            assert queued.status is EventStatus.PENDING  # still the invoke's
            gate.set()
        assert first.status is EventStatus.COMPLETED
        assert queued.status is EventStatus.COMPLETED

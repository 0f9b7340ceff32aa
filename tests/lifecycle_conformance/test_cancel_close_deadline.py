"""ADR-0029 D5 cancellation, close and deadline cases through iModel.

Outcomes under test (D2): caller cancellation -> CANCELLED and the cancellation re-raised; consumer
``aclose()`` -> CANCELLED and nothing raised; deadline -> ABORTED and
``RequestDeadlineExceeded(phase)``; controller close -> ABORTED and ``AdmissionClosed`` for queued
and active work, idempotently. Each test ends with ``probe.finish()`` (see conftest).
"""

from __future__ import annotations

import gc
from typing import Any

import anyio
import pytest

from lionagi.service import (
    AdmissionClosed,
    EventStatus,
    RequestDeadlineExceeded,
    StreamChunk,
)

STALL = "please SCRIPTED_STALL"

# -- cancel an active one-shot call ---------------------------------------------------------------


async def test_cancel_active_scripted_invoke(scripted, probe):
    model = scripted()
    call = model.create_api_calling(prompt=STALL)
    scope = anyio.CancelScope()
    returned = False

    async def run() -> None:
        nonlocal returned
        with scope:
            await model.invoke(call)
            returned = True

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        await probe.until(lambda: len(model.endpoint.calls) == 1, "provider work started")
        assert call.status is EventStatus.PROCESSING
        assert model.admission_snapshot().active == 1
        scope.cancel()

    assert scope.cancelled_caught and not returned  # the cancellation propagated
    probe.left(call, EventStatus.CANCELLED)
    await probe.finish()


async def test_cancel_active_http_invoke_closes_its_connection(server, http, chat, probe):
    model = http(server, then="stall")
    call = model.create_api_calling(**chat)
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as tg:
            tg.start_soon(model.invoke, call)
            await probe.until(lambda: len(server.requests) == 1, "request reached the server")
            await anyio.sleep(0.05)  # let the stalled reply's first bytes arrive
            scope.cancel()

    probe.left(call, EventStatus.CANCELLED)
    assert len(server.requests) == 1
    await probe.finish()  # includes: no connection of the pool still in use


# -- cancel or close an active stream -------------------------------------------------------------


async def test_consumer_aclose_of_an_active_stream_cancels_quietly(scripted, probe):
    model = scripted()
    call = model.create_api_calling(prompt=STALL)
    stream = model.stream(call)
    first = await anext(stream)
    assert (first.type, first.content) == ("text", "Stalling")
    assert call.status is EventStatus.PROCESSING
    assert str(call.id) in model.supervisor.owned

    await stream.aclose()  # raises nothing

    probe.left(call, EventStatus.CANCELLED)
    await probe.finish()


async def test_consumer_aclose_of_an_http_stream_drops_the_connection(server, http, chat, probe):
    model = http(server, then="stall")
    call = model.create_api_calling(**chat)
    stream = model.stream(call)
    first = await anext(stream)
    assert first.type == "text"

    await stream.aclose()

    probe.left(call, EventStatus.CANCELLED)
    assert len(server.requests) == 1
    await probe.finish()


async def test_cancelling_the_stream_consumer_cancels_the_call(scripted, probe):
    model = scripted()
    call = model.create_api_calling(prompt=STALL)
    got: list[Any] = []
    scope = anyio.CancelScope()
    finished = False

    async def consume() -> None:
        nonlocal finished
        with scope:
            async for chunk in model.stream(call):
                got.append(chunk)
            finished = True

    async with anyio.create_task_group() as tg:
        tg.start_soon(consume)
        await probe.until(lambda: len(got) == 1, "first chunk consumed")
        scope.cancel()

    assert scope.cancelled_caught and not finished
    probe.left(call, EventStatus.CANCELLED)
    await probe.finish()


async def test_abandoned_stream_is_cancelled_when_collected(scripted, probe):
    model = scripted()
    call = model.create_api_calling(prompt=STALL)
    stream = model.stream(call)
    assert (await anext(stream)).content == "Stalling"
    del stream
    gc.collect()  # the event loop's async-generator finalizer schedules aclose()

    await probe.until(lambda: call.is_terminal, "abandoned stream cleaned up")
    probe.left(call, EventStatus.CANCELLED)
    await probe.finish()


# -- controller close ------------------------------------------------------------------------------


async def test_close_aborts_queued_and_active_work_and_is_idempotent(gated, probe, helpers, mode):
    model = gated(concurrency_limit=1)
    active = model.create_api_calling(prompt="active")
    queued = model.create_api_calling(prompt="queued")
    errors: dict[str, BaseException] = {}

    async def run(name: str, call: Any) -> None:
        try:
            await helpers.run(model, mode, call)
        except AdmissionClosed as exc:
            errors[name] = exc

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, "active", active)
        await probe.until(lambda: model.endpoint.entered == ["active"], "active call running")
        tg.start_soon(run, "queued", queued)
        await probe.until(lambda: model.admission_snapshot().queued == 1, "second call queued")

        async with anyio.create_task_group() as closers:  # concurrent closes share one drain
            closers.start_soon(model.close)
            closers.start_soon(model.close)

        # close() returned only after both calls were terminal and out of ownership.
        assert active.is_terminal and queued.is_terminal
        assert dict(model.supervisor.owned) == {}

    assert set(errors) == {"active", "queued"}
    probe.left(active, EventStatus.ABORTED, AdmissionClosed)
    probe.left(queued, EventStatus.ABORTED, AdmissionClosed)
    assert model.endpoint.entered == ["active"]
    assert model.closed and model.admission_snapshot().closed

    await model.close()  # idempotent
    with pytest.raises(AdmissionClosed):
        await model.invoke(prompt="after close")
    with pytest.raises(AdmissionClosed):
        await anext(model.stream(prompt="after close"))
    assert dict(model.supervisor.owned) == {}
    await probe.finish()


async def test_close_while_the_consumer_is_between_chunks_yields_nothing_more(scripted, probe):
    script = [StreamChunk(type="text", content="one"), StreamChunk(type="text", content="two")]
    model = scripted(script=script)
    call = model.create_api_calling(prompt="hi")
    stream = model.stream(call)
    assert (await anext(stream)).content == "one"

    async with anyio.create_task_group() as tg:
        tg.start_soon(model.close)  # waits for this stream's cleanup
        await probe.until(lambda: model.admission_snapshot().closed, "close started")
        # The model is closing: the paused stream must not hand out more provider output.
        with pytest.raises(AdmissionClosed):
            await anext(stream)

    probe.left(call, EventStatus.ABORTED, AdmissionClosed)
    await stream.aclose()
    await probe.finish()


async def test_close_aborts_an_active_http_stream(server, http, chat, probe):
    model = http(server, then="stall")
    call = model.create_api_calling(**chat)
    raised: list[BaseException] = []

    async def consume() -> None:
        try:
            async for _ in model.stream(call):
                pass
        except AdmissionClosed as exc:
            raised.append(exc)

    async with anyio.create_task_group() as tg:
        tg.start_soon(consume)
        await probe.until(lambda: call.status is EventStatus.PROCESSING, "stream running")
        await probe.until(lambda: len(server.requests) == 1, "request reached the server")
        await model.close()

    assert len(raised) == 1
    probe.left(call, EventStatus.ABORTED, AdmissionClosed)
    await probe.finish()


# -- deadlines -------------------------------------------------------------------------------------


async def test_deadline_during_the_pre_hook_does_no_provider_work(scripted, probe, helpers, mode):
    async def slow_pre(event: Any) -> None:
        await anyio.sleep(10)

    model = scripted(hook_registry={"pre_invocation": slow_pre})
    call = model.create_api_calling(prompt="hi")
    with pytest.raises(RequestDeadlineExceeded) as info:
        await helpers.run(model, mode, call, timeout=0.2)

    assert info.value.phase == "hook"
    probe.left(call, EventStatus.ABORTED, RequestDeadlineExceeded)
    assert model.endpoint.calls == []
    await probe.finish()


async def test_deadline_during_the_post_hook_of_invoke(scripted, probe):
    async def slow_post(event: Any) -> None:
        await anyio.sleep(10)

    model = scripted(hook_registry={"post_invocation": slow_post})
    call = model.create_api_calling(prompt="hi")
    with pytest.raises(RequestDeadlineExceeded) as info:
        await model.invoke(call, timeout=0.2)

    assert info.value.phase == "hook"
    probe.left(call, EventStatus.ABORTED, RequestDeadlineExceeded)
    assert call.execution.response is None  # the late result does not overwrite the abort
    await probe.finish()


async def test_deadline_during_the_pre_create_hook_creates_no_event(scripted, probe, mode):
    async def slow_create(event_type: Any, kwargs: Any) -> None:
        await anyio.sleep(10)

    model = scripted(hook_registry={"pre_event_create": slow_create})
    with pytest.raises(RequestDeadlineExceeded) as info:
        if mode == "invoke":
            await model.invoke(prompt="hi", timeout=0.2)
        else:
            await anext(model.stream(prompt="hi", timeout=0.2))

    assert info.value.phase == "hook"
    assert probe.disowned == {}  # validation/creation failed before anything was owned
    assert model.endpoint.calls == []
    await probe.finish()


async def test_deadline_during_a_chunk_hook_aborts_the_stream(scripted, probe):
    async def slow_chunk(event: Any, chunk: Any) -> Any:
        await anyio.sleep(10)
        return chunk

    model = scripted(hook_registry={"on_chunk": slow_chunk})
    call = model.create_api_calling(prompt="hi")
    with anyio.fail_after(5), pytest.raises(RequestDeadlineExceeded):
        async for _ in model.stream(call, timeout=0.2):
            pass

    probe.left(call, EventStatus.ABORTED, RequestDeadlineExceeded)
    await probe.finish()


@pytest.mark.parametrize(("mode", "phase"), [("invoke", "transport"), ("stream", "stream")])
async def test_deadline_during_scripted_provider_work(scripted, probe, helpers, mode, phase):
    model = scripted()
    call = model.create_api_calling(prompt=STALL)
    with pytest.raises(RequestDeadlineExceeded) as info:
        await helpers.run(model, mode, call, timeout=0.2)

    assert info.value.phase == phase
    probe.left(call, EventStatus.ABORTED, RequestDeadlineExceeded)
    await probe.finish()


@pytest.mark.parametrize(("mode", "phase"), [("invoke", "transport"), ("stream", "stream")])
async def test_deadline_during_http_provider_work(server, http, chat, probe, helpers, mode, phase):
    model = http(server, then="stall")
    call = model.create_api_calling(**chat)
    with pytest.raises(RequestDeadlineExceeded) as info:
        await helpers.run(model, mode, call, timeout=0.3)

    assert info.value.phase == phase
    probe.left(call, EventStatus.ABORTED, RequestDeadlineExceeded)
    assert len(server.requests) == 1  # a deadline is never retried
    await probe.finish()


async def test_close_from_the_task_holding_a_paused_stream_does_not_wait_on_itself():
    from lionagi.service import AdmissionClosed, EventStatus, iModel

    model = iModel(model="scripted/demo")
    call = model.create_api_calling(prompt="hello")
    chunks = model.stream(call)
    first = await chunks.__anext__()
    assert first.type == "system"
    with anyio.fail_after(5):  # before the fix this waited forever on its own consumer
        await model.close()
    assert call.status is EventStatus.ABORTED
    assert model.admission_snapshot().active == 0
    with pytest.raises(AdmissionClosed):
        await chunks.__anext__()
    await chunks.aclose()
    assert model.supervisor.owned == {}

"""Item 3 of issue #10: ``iModel.close()`` reaps what abandoned streams started.

A stream iterated partway and dropped without ``aclose()`` used to keep its CLI alive after
``close()``; its teardown ran later in a task nobody awaited. Now the facade tracks every
stream it handed out, so close terminates and reaps the process before returning, a dropped
stream is reaped soon after it is collected even without close, and a stream the caller still
holds raises ``AdmissionClosed`` on its next read. ``filterwarnings = error`` turns any
"never awaited"/"Task was destroyed" warning into a failure; ``caplog`` catches logged ones.
"""

from __future__ import annotations

import gc
import logging
import time
from typing import Any

import anyio
import pytest

from lionagi.service import AdmissionClosed, iModel
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

HANG_GUARD = 30.0


def stalled(replay: Any, **endpoint_options: Any) -> iModel:
    replay.write(
        events=[{"type": "text", "content": "a"}, {"type": "text", "content": "b"}], stall=True
    )
    endpoint = ReferenceCliEndpoint(argv=replay.argv, terminate_grace=0.5, **endpoint_options)
    return iModel(endpoint=endpoint)


def no_noise(caplog: pytest.LogCaptureFixture) -> None:
    loud = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert loud == [], [r.getMessage() for r in loud]


async def test_close_reaps_a_stream_dropped_partway(
    replay: Any, alive: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    model = stalled(replay)
    stream = model.stream(prompt="keep going")
    first = await stream.__anext__()
    assert first.content == "a"
    pid = replay.launch()["launched"]
    assert alive(pid)
    del stream
    gc.collect()
    with anyio.fail_after(HANG_GUARD):
        await model.close()
    assert not alive(pid)
    assert model.admission_snapshot().active == 0
    no_noise(caplog)


async def test_close_reaps_a_stream_the_caller_still_holds(replay: Any, alive: Any) -> None:
    model = stalled(replay)
    stream = model.stream(prompt="keep going")
    await stream.__anext__()
    pid = replay.launch()["launched"]
    with anyio.fail_after(HANG_GUARD):
        await model.close()
    assert not alive(pid)
    with pytest.raises(AdmissionClosed):
        await stream.__anext__()
    await stream.aclose()


async def test_a_dropped_stream_is_reaped_without_close(replay: Any, alive: Any) -> None:
    model = stalled(replay)
    async with model:
        stream = model.stream(prompt="keep going")
        await stream.__anext__()
        pid = replay.launch()["launched"]
        del stream
        gc.collect()
        deadline = time.monotonic() + HANG_GUARD
        # Another process's state has no event to wait on: poll it, under a generous bound. The
        # lease is released after the process is reaped, so wait for both, not just the first.
        while (  # noqa: ASYNC110
            alive(pid) or model.admission_snapshot().active
        ) and time.monotonic() < deadline:
            await anyio.sleep(0.02)
        assert not alive(pid)
        assert model.admission_snapshot().active == 0


async def test_a_finished_stream_is_forgotten(replay: Any) -> None:
    replay.write()
    model = iModel(endpoint=ReferenceCliEndpoint(argv=replay.argv))
    async with model:
        texts = [chunk.content async for chunk in model.stream(prompt="hi")]
        assert texts[:2] == ["first", " second"]
        assert model._streams._live == {}


def slow_to_stop(replay: Any) -> iModel:
    """A run that ignores SIGTERM, with a grace long enough to watch a close() in progress."""
    replay.write(events=[{"type": "text", "content": "a"}], stall=True, ignore_term=True)
    return iModel(endpoint=ReferenceCliEndpoint(argv=replay.argv, terminate_grace=1.5))


async def test_a_second_close_waits_for_the_first(replay: Any, alive: Any) -> None:
    """close() promises the work is gone when it returns, to every caller, not only the first."""
    model = slow_to_stop(replay)
    stream = model.stream(prompt="keep going")
    await stream.__anext__()
    pid = replay.launch()["launched"]
    with anyio.fail_after(HANG_GUARD):
        async with anyio.create_task_group() as tg:
            tg.start_soon(model.close)  # e.g. a shutdown handler
            await anyio.sleep(0.2)  # the first close is waiting out the CLI's grace
            assert alive(pid)
            await model.close()  # the application's own `async with` exit, say
            assert not alive(pid)
    await stream.aclose()


async def test_a_close_cut_short_is_finished_by_the_next(replay: Any, alive: Any) -> None:
    """A close() cancelled partway (a shutdown's per-model timeout) leaves the next one work."""
    model = slow_to_stop(replay)
    started = anyio.Event()
    pid: int | None = None

    async def consume() -> None:
        nonlocal pid
        with pytest.raises(AdmissionClosed):
            async for _ in model.stream(prompt="keep going"):
                pid = replay.launch()["launched"]
                started.set()

    with anyio.fail_after(HANG_GUARD):
        async with anyio.create_task_group() as tg:
            tg.start_soon(consume)
            await started.wait()
            with anyio.move_on_after(0.2):
                await model.close()
            assert pid is not None and alive(pid)  # the cut-short close left it running
            await model.close()
            assert not alive(pid)
            assert model.admission_snapshot().active == 0

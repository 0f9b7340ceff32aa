"""The run's limit changes hands between the supervisor and the process reader, both ways.

While a process reader holds the run control, its pipe reads carry the limit and the supervisor
enters no scope per read. Whenever no reader holds it (the adapter has not started its process
yet, or its process has ended and the adapter still awaits something), the supervisor bounds
the read itself and offers the control to a process started in it. An adapter that does work
of its own before or after its process gets both: the fast path while the process runs, and
the run's limit around everything else, including work in the very read in which its process
ended (the control lingers on that read once the reader's teardown is done).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from lionagi.service import RequestDeadlineExceeded, StreamChunk, iModel
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

BOUND = 10.0  # "did not hang / fired near its time" only; generous for a loaded machine


class _Preamble(ReferenceCliEndpoint):
    """Announces the run before its process starts (the reader starts at the second read)."""

    async def _stream_agentic(
        self, request: BaseModel, *, runtime_args: dict[str, Any], local_timeout: float | None
    ) -> AsyncIterator[StreamChunk]:
        yield StreamChunk("system", metadata={"note": "starting"})
        run = super()._stream_agentic(
            request, runtime_args=runtime_args, local_timeout=local_timeout
        )
        async for chunk in run:
            yield chunk


class _AfterItsProcess(ReferenceCliEndpoint):
    """Runs the reference CLI, then does the work of :meth:`after` in the same stream."""

    async def _stream_agentic(
        self, request: BaseModel, *, runtime_args: dict[str, Any], local_timeout: float | None
    ) -> AsyncIterator[StreamChunk]:
        run = super()._stream_agentic(
            request, runtime_args=runtime_args, local_timeout=local_timeout
        )
        async for chunk in run:
            yield chunk
        async for chunk in self.after():
            yield chunk

    async def after(self) -> AsyncIterator[StreamChunk]:
        """Nothing here: each test adapter says what it does after its process."""
        return
        yield  # pragma: no cover - makes this an async generator


class _Lingering(_AfterItsProcess):
    """After its process ended, reports it, then waits on follow-up work that never comes.

    The wait is in a read of its own (after the notice): a read made while no reader holds
    the control, which the supervisor bounds with a scope.
    """

    async def after(self) -> AsyncIterator[StreamChunk]:
        yield StreamChunk("system", metadata={"note": "process ended"})
        await anyio.sleep_forever()
        yield StreamChunk("text", "never")  # pragma: no cover - the limit ends the wait


class _HangsAfterItsProcess(_AfterItsProcess):
    """Waits on follow-up work in the very read in which its process ended (no yield between).

    ``settled`` is set once the follow-up wait ended (by cancellation), so a test can tell the
    adapter's wait was cut and not abandoned.
    """

    settled: anyio.Event | None = None

    async def after(self) -> AsyncIterator[StreamChunk]:
        try:
            await anyio.sleep_forever()
        finally:
            if self.settled is not None:
                self.settled.set()
        yield StreamChunk("text", "never")  # pragma: no cover - the limit ends the wait


def _hanging(replay: Any) -> iModel:
    replay.write(events=[{"type": "text", "content": "a"}, {"type": "text", "content": "b"}])
    return iModel(endpoint=_HangsAfterItsProcess(argv=replay.argv))


async def test_work_in_the_read_that_ended_the_process_is_bounded_by_the_run_limit(
    replay: Any, alive: Any
) -> None:
    model = _hanging(replay)
    texts: list[str | None] = []
    started = time.monotonic()
    async with model:
        with anyio.fail_after(BOUND), pytest.raises(RequestDeadlineExceeded) as info:
            async for chunk in model.stream(prompt="go", timeout=1.0):
                texts.append(chunk.content)
        elapsed = time.monotonic() - started
        assert model.admission_snapshot().active == 0
        # The cancellation that cut the adapter's wait was taken back: the caller's task is
        # not left "cancelling" (which would break its own timeouts, asyncio.timeout's too).
        task = asyncio.current_task()
        assert task is not None and task.cancelling() == 0
        with anyio.move_on_after(0.05) as later:
            await anyio.sleep(1.0)
        assert later.cancelled_caught
    assert info.value.phase == "stream"
    assert texts == ["a", "b"]
    assert 0.9 <= elapsed < 1.0 + BOUND
    assert not alive(replay.launch()["launched"])


async def test_a_close_reaches_work_in_the_read_that_ended_the_process(
    replay: Any, closed_after_two_chunks: Any
) -> None:
    model = _hanging(replay)
    settled = anyio.Event()
    endpoint = model.endpoint
    assert isinstance(endpoint, _HangsAfterItsProcess)
    endpoint.settled = settled
    # The process has ended by then; the adapter waits in that read.
    raised = await closed_after_two_chunks(model, model.stream(prompt="go"), 0.3)
    assert len(raised) == 1
    assert settled.is_set()


async def test_an_outer_cancel_of_that_read_stays_a_cancel_and_disarms_the_limit(
    replay: Any, timer_descriptors: Callable[[], int]
) -> None:
    model = _hanging(replay)
    before = timer_descriptors()
    async with model:
        with anyio.fail_after(BOUND):
            with anyio.move_on_after(0.5) as scope:  # well before the run's limit
                async for _ in model.stream(prompt="go", timeout=1.0):
                    pass
            assert scope.cancelled_caught
            assert timer_descriptors() == before  # the limit kept for that read is disarmed
            # The run's limit passes now with nothing left to bound: it must cancel nothing.
            await anyio.sleep(1.0)
        assert model.admission_snapshot().active == 0


async def test_a_chunk_from_the_read_that_ended_the_process_leaves_the_consumer_alone(
    replay: Any,
) -> None:
    """The limit kept armed for the rest of that read is disarmed when the read returns."""
    replay.write(events=[{"type": "text", "content": "a"}])
    model = iModel(endpoint=_Lingering(argv=replay.argv))
    async with model:
        with anyio.fail_after(BOUND), pytest.raises(RequestDeadlineExceeded) as info:
            async for chunk in model.stream(prompt="go", timeout=0.5):
                if chunk.type == "system":  # the notice, handed out in the read that ended it
                    await anyio.sleep(1.0)  # past the limit: the consumer's own wait is not cut
    assert info.value.phase == "stream"


async def test_a_process_started_after_the_first_chunk_still_takes_the_limit(
    replay: Any, count_scopes: Any
) -> None:
    events = [{"type": "text", "content": f"t{i}"} for i in range(120)]
    replay.write(events=events, event_pause=0.002)  # one event per pipe read
    model = iModel(endpoint=_Preamble(argv=replay.argv))
    async with model:
        with pytest.MonkeyPatch.context() as patch:
            entered = count_scopes(patch)
            chunks = [c async for c in model.stream(prompt="go", timeout=30)]
    assert chunks[0].type == "system"
    assert [c.content for c in chunks if c.type == "text"] == [f"t{i}" for i in range(120)]
    assert entered[0] < 40, entered  # a scope per pipe read would be >= 120


async def test_work_after_the_process_ended_is_still_bounded_by_the_run_limit(
    replay: Any, alive: Any
) -> None:
    replay.write(events=[{"type": "text", "content": "a"}, {"type": "text", "content": "b"}])
    model = iModel(endpoint=_Lingering(argv=replay.argv))
    texts: list[str | None] = []
    started = time.monotonic()
    async with model:
        with anyio.fail_after(BOUND), pytest.raises(RequestDeadlineExceeded) as info:
            async for chunk in model.stream(prompt="go", timeout=1.0):
                if chunk.type == "text":
                    texts.append(chunk.content)
        elapsed = time.monotonic() - started
        assert model.admission_snapshot().active == 0
    assert info.value.phase == "stream"
    assert texts == ["a", "b"]
    assert 0.9 <= elapsed < 1.0 + BOUND
    assert not alive(replay.launch()["launched"])

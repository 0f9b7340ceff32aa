"""The run's limit changes hands between the supervisor and the process reader, both ways.

While a process reader holds the run control, its pipe reads carry the limit and the supervisor
enters no scope per read. Whenever no reader holds it (the adapter has not started its process
yet, or its process has ended and the adapter still awaits something), the supervisor bounds
the read itself and offers the control to a process started in it. An adapter that does work
of its own before or after its process gets both: the fast path while the process runs, and
the run's limit around everything else.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
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


class _Lingering(ReferenceCliEndpoint):
    """After its process ended, reports it, then waits on follow-up work that never comes.

    The wait is in a read of its own (after the notice): a read made while no reader holds
    the control. Work in the very read that ends the process is not bounded (see
    ``docs/decisions.md``, "An agentic run's limit rides on its process reader").
    """

    async def _stream_agentic(
        self, request: BaseModel, *, runtime_args: dict[str, Any], local_timeout: float | None
    ) -> AsyncIterator[StreamChunk]:
        run = super()._stream_agentic(
            request, runtime_args=runtime_args, local_timeout=local_timeout
        )
        async for chunk in run:
            yield chunk
        yield StreamChunk("system", metadata={"note": "process ended"})
        await anyio.sleep_forever()
        yield StreamChunk("text", "never")  # pragma: no cover - the limit ends the wait


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

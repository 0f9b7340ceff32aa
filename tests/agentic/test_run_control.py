"""Agentic streams read with no cancel scope per event: the pipe reader carries the bound.

The supervisor hands the process reader a ``RunControl`` (through a context variable set
around each read of the adapter's stream); the reader bounds each pipe block and the exit wait
by the run's limit, and an admission close cancels the read in progress. The contract is the
one a scope per event gave: the typed deadline error near its time, ``AdmissionClosed`` on
close, the process group reaped, the permit released.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import anyio
import pytest

from lionagi.service import EventStatus, RequestDeadlineExceeded, iModel
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

BOUND = 10.0  # "did not hang / fired near its time" only; generous for a loaded machine


@pytest.fixture
def attached(taken_controls: Callable[..., list[Any]]) -> list[Any]:
    """Every RunControl a process reader picked up (proves the per-block path ran)."""
    return taken_controls()


def stalled(replay: Any) -> iModel:
    replay.write(
        events=[{"type": "text", "content": "a"}, {"type": "text", "content": "b"}], stall=True
    )
    return iModel(endpoint=ReferenceCliEndpoint(argv=replay.argv, terminate_grace=0.5))


async def test_deadline_mid_run_raises_the_typed_error_and_reaps(
    replay: Any, alive: Any, attached: list[Any]
) -> None:
    model = stalled(replay)
    call = model.create_api_calling(prompt="keep going")
    texts: list[str | None] = []
    started = time.monotonic()
    async with model:
        with pytest.raises(RequestDeadlineExceeded) as info:
            async for chunk in model.stream(call, timeout=1.0):
                texts.append(chunk.content)
        elapsed = time.monotonic() - started
        assert info.value.phase == "stream"
        assert texts == ["a", "b"]
        assert 0.9 <= elapsed < 1.0 + BOUND
        assert call.status is EventStatus.ABORTED
        assert len(attached) == 1 and attached[0].expired
        assert not alive(replay.launch()["launched"])
        assert model.admission_snapshot().active == 0


async def test_close_aborts_a_run_blocked_in_a_pipe_read(
    replay: Any, alive: Any, attached: list[Any], closed_after_two_chunks: Any
) -> None:
    model = stalled(replay)
    call = model.create_api_calling(prompt="keep going")
    # No deadline: only the close ends it; the consumer is parked in the stalled pipe read.
    raised = await closed_after_two_chunks(model, model.stream(call), 0.05)

    assert len(raised) == 1
    assert call.status is EventStatus.ABORTED
    assert len(attached) == 1 and attached[0].aborted
    assert not alive(replay.launch()["launched"])


async def test_events_are_read_with_no_scope_per_event(replay: Any) -> None:
    """The supervisor enters a constant number of scopes per run, not one per event."""
    events = [{"type": "text", "content": f"t{i}"} for i in range(300)]
    replay.write(events=events)
    model = iModel(endpoint=ReferenceCliEndpoint(argv=replay.argv))
    backend_scope = type(anyio.CancelScope())
    original = backend_scope.__enter__
    entered = 0

    def counting(self: Any) -> Any:
        nonlocal entered
        entered += 1
        return original(self)

    async with model:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(backend_scope, "__enter__", counting)
            texts = [c async for c in model.stream(prompt="go", timeout=30) if c.type == "text"]
    assert len(texts) == 300
    assert entered < 100, entered  # a scope per event would be >= 300


async def test_events_written_one_per_pipe_read_enter_no_scope_per_read(
    replay: Any, count_scopes: Any
) -> None:
    """A real CLI writes one event per write: the bound must not cost a scope per pipe read."""
    events = [{"type": "text", "content": f"t{i}"} for i in range(120)]
    replay.write(events=events, event_pause=0.002)  # the reader keeps up: one event per read
    model = iModel(endpoint=ReferenceCliEndpoint(argv=replay.argv))
    async with model:
        with pytest.MonkeyPatch.context() as patch:
            entered = count_scopes(patch)
            texts = [c async for c in model.stream(prompt="go", timeout=30) if c.type == "text"]
    assert len(texts) == 120
    assert entered[0] < 40, entered  # a scope per read would be >= 120


async def test_deadline_passing_while_the_consumer_holds_a_chunk_stops_the_next_read(
    replay: Any, alive: Any, attached: list[Any]
) -> None:
    """Buffered output is not handed out once the limit passed, even with no read waiting."""
    events = [{"type": "text", "content": f"t{i}"} for i in range(50)]
    replay.write(events=events, event_pause=0.005, stall=True)  # the first read holds one
    model = iModel(endpoint=ReferenceCliEndpoint(argv=replay.argv, terminate_grace=0.5))
    texts: list[str | None] = []
    async with model:
        with pytest.raises(RequestDeadlineExceeded) as info:
            async for chunk in model.stream(prompt="go", timeout=0.5):
                texts.append(chunk.content)
                if len(texts) == 1:
                    await anyio.sleep(1.0)  # past the limit with the rest of the run buffered
        assert info.value.phase == "stream"
        assert len(attached) == 1 and attached[0].expired
        assert not alive(replay.launch()["launched"])
    assert len(texts) < 50


async def test_a_held_chunk_past_the_limit_ends_the_call_and_frees_its_permit(
    replay: Any, alive: Any, attached: list[Any]
) -> None:
    """The run ends at its limit, not when its consumer next asks for a chunk.

    With one permit, a second run must be admitted once the first run's limit passed, while
    its consumer still holds a chunk and has not read again.
    """
    replay.write(events=[{"type": "text", "content": "a"}], stall=True)
    model = iModel(
        endpoint=ReferenceCliEndpoint(argv=replay.argv, terminate_grace=0.5), concurrency_limit=1
    )
    async with model:
        call = model.create_api_calling(prompt="go")
        stream = model.stream(call, timeout=0.4)
        assert (await anext(stream)).content == "a"
        assert model.admission_snapshot().active == 1
        with anyio.fail_after(BOUND):  # the limit passes with no read pending
            while model.admission_snapshot().active:  # noqa: ASYNC110 - watching the permit
                await anyio.sleep(0.02)
        assert call.status is EventStatus.ABORTED
        assert isinstance(call.execution.exception, RequestDeadlineExceeded)

        second = model.create_api_calling(prompt="again")
        with anyio.fail_after(BOUND):  # admitted while the first consumer holds its chunk
            other = model.stream(second, timeout=5)
            assert (await anext(other)).content == "a"
        await other.aclose()

        with pytest.raises(RequestDeadlineExceeded) as info:
            await anext(stream)
        assert info.value.phase == "stream"
        assert len(attached) == 2 and attached[0].expired
        assert model.admission_snapshot().active == 0


@pytest.mark.parametrize("ignore_term", [False, True], ids=["exits-on-sigterm", "ignores-sigterm"])
async def test_the_cli_is_stopped_at_the_limit_while_the_consumer_holds_a_chunk(
    replay: Any, alive: Any, attached: list[Any], ignore_term: bool
) -> None:
    """The limit stops the CLI itself, not only the consumer's next read.

    A consumer busy with a chunk past the deadline must not leave the CLI acting on its
    behalf: SIGTERM at the deadline, SIGKILL half a second after it, even with the configured
    grace far longer and the reader parked until the consumer asks again.
    """
    replay.write(events=[{"type": "text", "content": "a"}], stall=True, ignore_term=ignore_term)
    model = iModel(endpoint=ReferenceCliEndpoint(argv=replay.argv, terminate_grace=30.0))
    held_until_gone: float | None = None
    async with model:
        with pytest.raises(RequestDeadlineExceeded):
            started = time.monotonic()
            async for _ in model.stream(prompt="go", timeout=0.5):
                pid = replay.launch()["launched"]
                # The deadline (0.5 s) plus the SIGKILL grace (0.5 s), with room for a busy host;
                # before the fix the CLI lived until this loop gave up and the stream was read.
                with anyio.move_on_after(4.0):
                    while alive(pid):  # noqa: ASYNC110 - polling another process's state
                        await anyio.sleep(0.02)
                if not alive(pid):
                    held_until_gone = time.monotonic() - started
        assert len(attached) == 1 and attached[0].expired
        assert model.admission_snapshot().active == 0
    assert held_until_gone is not None, "the CLI outlived its deadline while a chunk was held"
    assert held_until_gone >= 0.45  # not before the deadline
    terms = [r for r in replay.records() if r.get("signal") == "TERM"]
    assert bool(terms) is ignore_term  # the ignoring CLI got SIGTERM first, then SIGKILL


async def test_a_run_that_closed_stdout_but_hangs_on_is_stopped_at_its_limit(
    tmp_path: Any, alive: Any, attached: list[Any]
) -> None:
    """The exit wait is bounded by the same timer as the reads."""
    import sys

    code = (
        "import os, sys, time\n"
        'os.write(1, b\'{"type": "text", "content": "a"}\\n\')\n'
        "os.close(1)\n"
        "time.sleep(60)\n"
    )
    model = iModel(endpoint=ReferenceCliEndpoint(argv=[sys.executable, "-c", code]))
    started = time.monotonic()
    async with model:
        with pytest.raises(RequestDeadlineExceeded):
            async for _ in model.stream(prompt="go", timeout=1.0):
                pass
    assert time.monotonic() - started < 1.0 + BOUND
    assert len(attached) == 1 and attached[0].expired


async def test_every_attached_reader_is_interrupted_and_the_last_to_leave_disarms() -> None:
    """An adapter may run more than one process in a run: each is bounded, none is left armed."""
    from lionagi.service._transport.run_control import RunControl

    control = RunControl(anyio.current_time() + 0.05)
    first: list[str] = []
    second: list[str] = []
    control.attach(first.append)
    control.attach(second.append)
    control.detach(first.append)
    await anyio.sleep(0.2)
    assert first == [] and second == ["the run's time limit passed"]
    assert control.expired
    control.detach(second.append)

    late: list[str] = []
    control.attach(late.append)  # a process started after the limit passed stops at once
    assert late == ["the run's time limit passed"]
    control.detach(late.append)

    unbounded = RunControl(anyio.current_time() + 0.05)
    quiet: list[str] = []
    unbounded.attach(quiet.append)
    unbounded.detach(quiet.append)  # the run ended first: its timer must not fire
    await anyio.sleep(0.2)
    assert quiet == [] and not unbounded.expired

    aborted = RunControl(None)
    readers: list[list[str]] = [[], []]
    for seen in readers:
        aborted.attach(seen.append)
    aborted.abort()
    assert readers == [["the call was aborted"], ["the call was aborted"]]

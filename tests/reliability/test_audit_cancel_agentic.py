"""Caller cancellation at every point of an agentic CLI run leaves no process, pipe or task.

ADR-0029 D5: each case asserts "the event is terminal before it leaves ownership and that no
task, process, socket or permit is left behind"; ``docs/reliability.md``: "After a call,
whatever its ending: [...] no task, thread or file descriptor it opened remains", and the
``LeakCheck`` contract: "Children of this process and descriptors are checked without waiting:
teardown must have reaped and closed them before the stream returned."

The reference CLI adapter runs the ``replay`` fake CLI (a session event, text, then a stall, with
a tagged grandchild). The caller cancels (``anyio.move_on_after``) at a ladder of moments from
before the launch to deep into the run, holds a chunk while cancelled, or cuts ``close()`` short
inside the SIGTERM grace. Processes are observed through ``/proc`` (``descendant_pids``,
``tagged_pids``).

A cancellation delivered while the child's pipes are being connected (right after fork/exec,
inside ``loop.subprocess_exec``) returned CANCELLED before asyncio's own cleanup of the
half-made transport had run: two pipe descriptors and asyncio's ``_connect_pipes`` task were
still there, and the killed child was sometimes not yet reaped. ``_spawn`` now shields the
spawn, so the run's own teardown reaps the child before the call returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from lionagi.service import AdmissionClosed, EventStatus, RequestDeadlineExceeded, iModel
from lionagi.service_testing.conformance import (
    descendant_pids,
    model_leaks,
    open_fd_count,
    replay_argv,
    tagged_pids,
)
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

HANG_GUARD = 10.0  # a "did not hang" bound only
SETTLE = 2.0  # how long SIGKILLed grandchildren may take to disappear from /proc


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class CancelAtLaunch(ReferenceCliEndpoint):
    """Cancels ``scope`` from ``prepare_launch``: the last step before the CLI is started.

    The cancellation is then delivered at the first await after it, inside the spawn
    (``loop.subprocess_exec`` waiting for the child's pipes): the same cancel point every time.
    """

    scope: anyio.CancelScope | None = None

    def prepare_launch(self, request: Any, launch: Any) -> None:
        super().prepare_launch(request, launch)
        if self.scope is not None:
            self.scope.cancel()


def _plan(
    tmp_path: Path,
    tag: str,
    *,
    texts: int = 1,
    stall: bool = True,
    ignore_term: bool = False,
    children: int = 1,
    event_pause: float | None = None,
) -> Path:
    events: list[dict[str, Any]] = [{"type": "session", "session_id": "s-audit", "model": "m"}]
    events += [{"type": "text", "content": f"[{i:02d}]", "delta": True} for i in range(texts)]
    if not stall:
        events.append({"type": "result", "content": "done"})
    plan: dict[str, Any] = {
        "events": events,
        "stall": stall,
        "ignore_term": ignore_term,
        "children": children,
        "tag": tag,
    }
    if event_pause is not None:
        plan["event_pause"] = event_pause
    path = tmp_path / f"plan-{tag}.json"
    path.write_text(json.dumps(plan))
    return path


def _new_tasks(baseline: set[asyncio.Task[Any]]) -> list[asyncio.Task[Any]]:
    me = asyncio.current_task()
    return [t for t in asyncio.all_tasks() if t not in baseline and t is not me and not t.done()]


async def _run(model: iModel, call: Any, mode: str, *, hold: float = 0.0) -> None:
    if mode == "invoke":
        await model.invoke(call)
        return
    async with contextlib.aclosing(model.stream(call)) as chunks:
        async for _ in chunks:
            if hold:
                await anyio.sleep(hold)


async def _settled(model: iModel, tag: str, baseline: set[asyncio.Task[Any]]) -> None:
    """Wait (bounded) until nothing of the run is left; fail naming what is."""
    with anyio.move_on_after(SETTLE):
        while tagged_pids(tag) or descendant_pids() or _new_tasks(baseline):  # noqa: ASYNC110
            await anyio.sleep(0.005)  # polling /proc: a process's end has no event to await
    assert tagged_pids(tag) == [], "a tagged grandchild survived"
    assert descendant_pids() == {}, "a child process was left behind"
    assert _new_tasks(baseline) == []
    assert model_leaks([model]) == []
    assert dict(model.supervisor.owned) == {}


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_cancel_at_launch_returns_with_nothing_left(tmp_path: Path, mode: str) -> None:
    tag = f"lionagi-audit-{uuid.uuid4().hex}"
    endpoint = CancelAtLaunch(argv=replay_argv(_plan(tmp_path, tag)), terminate_grace=0.2)
    model = iModel(endpoint=endpoint)
    baseline = set(asyncio.all_tasks())
    try:
        for _ in range(3):
            fds = open_fd_count()
            call = model.create_api_calling(prompt="hang")
            with anyio.fail_after(HANG_GUARD), anyio.CancelScope() as scope:
                endpoint.scope = scope
                await _run(model, call, mode)
            endpoint.scope = None
            assert scope.cancelled_caught
            assert call.status is EventStatus.CANCELLED
            # Checked at once, as LeakCheck checks children and descriptors: the call has
            # returned, so its teardown must be over.
            left = {
                "fds": open_fd_count() - fds,
                "tasks": [t.get_coro().__qualname__ for t in _new_tasks(baseline)],  # type: ignore[union-attr]
                "children": descendant_pids(),
            }
            assert left == {"fds": 0, "tasks": [], "children": {}}, left
    finally:
        endpoint.scope = None
        await _settled(model, tag, baseline)
        with anyio.fail_after(HANG_GUARD):
            await model.close()


class LateLaunch(ReferenceCliEndpoint):
    """Blocks in ``prepare_launch`` until the call's deadline has passed: the deadline's
    cancellation is then delivered inside the spawn, like ``CancelAtLaunch``'s."""

    def prepare_launch(self, request: Any, launch: Any) -> None:
        super().prepare_launch(request, launch)
        time.sleep(0.08)  # deliberately past the 0.05 s deadline, blocking the loop


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_deadline_at_launch_returns_with_nothing_left(tmp_path: Path, mode: str) -> None:
    tag = f"lionagi-audit-{uuid.uuid4().hex}"
    model = iModel(endpoint=LateLaunch(argv=replay_argv(_plan(tmp_path, tag)), terminate_grace=0.2))
    baseline = set(asyncio.all_tasks())
    try:
        fds = open_fd_count()
        call = model.create_api_calling(prompt="hang")
        with anyio.fail_after(HANG_GUARD), pytest.raises(RequestDeadlineExceeded):
            if mode == "invoke":
                await model.invoke(call, timeout=0.05)
            else:
                async for _ in model.stream(call, timeout=0.05):
                    pass
        assert call.status is EventStatus.ABORTED
        left = {
            "fds": open_fd_count() - fds,
            "tasks": [t.get_coro().__qualname__ for t in _new_tasks(baseline)],  # type: ignore[union-attr]
            "children": descendant_pids(),
        }
        assert left == {"fds": 0, "tasks": [], "children": {}}, left
    finally:
        await _settled(model, tag, baseline)
        with anyio.fail_after(HANG_GUARD):
            await model.close()


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_cancel_at_launch_settles_clean(tmp_path: Path, mode: str) -> None:
    """Whatever the moment's leftovers, none survives: the child dies, pipes close, and the
    model serves the next call."""
    tag = f"lionagi-audit-{uuid.uuid4().hex}"
    endpoint = CancelAtLaunch(argv=replay_argv(_plan(tmp_path, tag)), terminate_grace=0.2)
    model = iModel(endpoint=endpoint)
    baseline = set(asyncio.all_tasks())
    fds = open_fd_count()
    for _ in range(3):
        call = model.create_api_calling(prompt="hang")
        with anyio.fail_after(HANG_GUARD), anyio.CancelScope() as scope:
            endpoint.scope = scope
            await _run(model, call, mode)
        endpoint.scope = None
        assert scope.cancelled_caught and call.status is EventStatus.CANCELLED
        await _settled(model, tag, baseline)
    assert open_fd_count() <= fds
    with anyio.fail_after(HANG_GUARD):
        await model.close()


def _ladder(count: int, step: float, start: float = 0.0) -> Sequence[float]:
    return [start + i * step for i in range(count)]


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_cancel_sweep_across_an_agentic_run(tmp_path: Path, mode: str) -> None:
    tag = f"lionagi-audit-{uuid.uuid4().hex}"
    endpoint = ReferenceCliEndpoint(argv=replay_argv(_plan(tmp_path, tag)), terminate_grace=0.2)
    model = iModel(endpoint=endpoint)
    baseline = set(asyncio.all_tasks())
    for t in _ladder(20, 0.003):  # 0 to 57 ms: before, during and after the launch
        call = model.create_api_calling(prompt="hang")
        with anyio.fail_after(HANG_GUARD):
            with anyio.move_on_after(t) as scope:
                await _run(model, call, mode)
        assert scope.cancelled_caught, f"{t * 1000:.0f} ms: the stalled run ended by itself"
        assert call.status is EventStatus.CANCELLED, (t, call.status, call.exception)
        await _settled(model, tag, baseline)
    with anyio.fail_after(HANG_GUARD):
        await model.close()


async def test_cancel_sweep_while_the_consumer_holds_a_chunk(tmp_path: Path) -> None:
    tag = f"lionagi-audit-{uuid.uuid4().hex}"
    plan = _plan(tmp_path, tag, texts=30, stall=False, event_pause=0.001)
    model = iModel(endpoint=ReferenceCliEndpoint(argv=replay_argv(plan), terminate_grace=0.2))
    baseline = set(asyncio.all_tasks())
    cancelled = 0
    for t in _ladder(15, 0.004, start=0.02):
        call = model.create_api_calling(prompt="paced")
        with anyio.fail_after(HANG_GUARD):
            with anyio.move_on_after(t) as scope:
                await _run(model, call, "stream", hold=0.003)
        expected = EventStatus.CANCELLED if scope.cancelled_caught else EventStatus.COMPLETED
        assert call.status is expected, (t, call.status, call.exception)
        cancelled += scope.cancelled_caught
        await _settled(model, tag, baseline)
    assert cancelled
    with anyio.fail_after(HANG_GUARD):
        await model.close()


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_close_cut_short_in_the_sigterm_grace_still_reaps(tmp_path: Path, mode: str) -> None:
    """``close()`` cancelled while the CLI ignores SIGTERM: the call's own teardown still
    escalates to SIGKILL and reaps, with no second close; a later close returns promptly."""
    for t in (0.0, 0.05, 0.2):
        tag = f"lionagi-audit-{uuid.uuid4().hex}"
        plan = _plan(tmp_path, tag, ignore_term=True)
        model = iModel(endpoint=ReferenceCliEndpoint(argv=replay_argv(plan), terminate_grace=0.3))
        baseline = set(asyncio.all_tasks())
        call = model.create_api_calling(prompt="hang")
        raised: list[BaseException] = []

        async def run(
            call: Any = call, model: iModel = model, raised: list[BaseException] = raised
        ) -> None:
            try:
                await _run(model, call, mode)
            except AdmissionClosed as exc:
                raised.append(exc)

        with anyio.fail_after(HANG_GUARD):
            async with anyio.create_task_group() as tg:
                tg.start_soon(run)
                while call.status is not EventStatus.PROCESSING or not tagged_pids(tag):  # noqa: ASYNC110
                    await anyio.sleep(0.005)
                with anyio.move_on_after(t):
                    await model.close()
        assert call.status is EventStatus.ABORTED, (t, call.status, call.exception)
        assert len(raised) == 1
        await _settled(model, tag, baseline)
        with anyio.fail_after(1.0):
            await model.close()

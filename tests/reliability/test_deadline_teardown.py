"""A CLI that ignores SIGTERM cannot hold an agentic call past its deadline + 1 s (issue #16).

The adapters' default terminate grace is 5 s (ADR-0030). A teardown that starts at the deadline
already escalated within ``DEADLINE_TERMINATE_GRACE``; one that starts just *before* it (the
caller cancels, the consumer calls ``aclose()``) waited the whole 5 s and came back about 4.5 s
after the deadline. The grace is now cut so SIGKILL lands at most ``DEADLINE_TERMINATE_GRACE``
after the deadline, whatever started the teardown; a teardown with time to spare keeps the full
grace (pinned in ``tests/subprocess/test_descendants.py``).

Each case runs the reference CLI adapter over the ``replay`` fake CLI (answers one event, then
hangs ignoring SIGTERM, with two grandchildren that ignore it too) at the default grace, and
checks the call's ending, its time and that no tagged process survives.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import anyio
import pytest

from lionagi.service import APICalling, EventStatus, RequestDeadlineExceeded, iModel
from lionagi.service._transport.subprocess.spec import PROCESS_TERMINATE_GRACE
from lionagi.service_testing.conformance import replay_argv, tagged_pids
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

pytestmark = pytest.mark.anyio

DEADLINE = 1.5
EARLY = 1.1  # the caller's cancel / the consumer's aclose(), shortly before the deadline
LATE = 1.0  # the promise: back with the caller within deadline + 1 s
HANG_GUARD = 30.0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _model(tmp_path: Path, tag: str) -> iModel:
    session = {"type": "session", "session_id": "s-deadline", "model": "m"}
    text = {"type": "text", "content": "[00]", "delta": True}
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            {
                "events": [session, text],
                "ignore_term": True,
                "children": 2,
                "stall": True,
                "tag": tag,
            }
        )
    )
    endpoint = ReferenceCliEndpoint(argv=replay_argv(plan))
    assert endpoint.terminate_grace == PROCESS_TERMINATE_GRACE == 5.0  # the default, unchanged
    return iModel(endpoint=endpoint)


async def _no_survivor(tag: str) -> None:
    with anyio.move_on_after(2.0):  # SIGKILLed members leave asynchronously
        while tagged_pids(tag):  # noqa: ASYNC110
            await anyio.sleep(0.02)
    assert tagged_pids(tag) == []


async def test_deadline_with_a_sigterm_ignoring_cli_is_bounded(tmp_path: Path) -> None:
    tag = f"lionagi-deadline-{uuid.uuid4().hex}"
    async with _model(tmp_path, tag) as model:
        for mode in ("invoke", "stream"):
            call = model.create_api_calling(prompt="hang")
            started = time.monotonic()
            with anyio.fail_after(HANG_GUARD), pytest.raises(RequestDeadlineExceeded):
                if mode == "invoke":
                    await model.invoke(api_call=call, timeout=DEADLINE)
                else:
                    async for _chunk in model.stream(api_call=call, timeout=DEADLINE):
                        pass
            elapsed = time.monotonic() - started
            assert call.execution.status is EventStatus.ABORTED
            assert elapsed < DEADLINE + LATE, f"{mode}: back after {elapsed:.2f} s"
            await _no_survivor(tag)


async def _cancel_later(scope: anyio.CancelScope, delay: float) -> None:
    await anyio.sleep(delay)
    scope.cancel()  # an explicit cancel, not a deadline of the caller's own


async def test_cancel_just_before_the_deadline_is_bounded(tmp_path: Path) -> None:
    tag = f"lionagi-deadline-{uuid.uuid4().hex}"
    async with _model(tmp_path, tag) as model:
        call = model.create_api_calling(prompt="hang")
        started = time.monotonic()
        with anyio.fail_after(HANG_GUARD):
            async with anyio.create_task_group() as tg:
                with anyio.CancelScope() as scope:
                    tg.start_soon(_cancel_later, scope, EARLY)
                    await model.invoke(api_call=call, timeout=DEADLINE)
        elapsed = time.monotonic() - started
        assert scope.cancelled_caught
        assert call.execution.status is EventStatus.CANCELLED
        assert elapsed < DEADLINE + LATE, f"back after {elapsed:.2f} s"
        await _no_survivor(tag)


async def test_aclose_just_before_the_deadline_is_bounded(tmp_path: Path) -> None:
    tag = f"lionagi-deadline-{uuid.uuid4().hex}"
    async with _model(tmp_path, tag) as model:
        call: APICalling = model.create_api_calling(prompt="hang")
        started = time.monotonic()
        with anyio.fail_after(HANG_GUARD):
            stream = model.stream(api_call=call, timeout=DEADLINE)
            async for _chunk in stream:
                break
            await anyio.sleep(max(0.0, EARLY - (time.monotonic() - started)))
            await stream.aclose()
        elapsed = time.monotonic() - started
        assert call.execution.status is EventStatus.CANCELLED
        assert elapsed < DEADLINE + LATE, f"back after {elapsed:.2f} s"
        await _no_survivor(tag)

"""Item 2 of issue #10: the supervisor enforces an agentic endpoint's local cap.

Adapters receive ``local_timeout`` but need not honour it (the reference adapter does not):
with no caller deadline a hung CLI used to run forever holding its admission permit. The cap
is ``min(local cap, remaining)``, expiry raises ``RequestDeadlineExceeded`` with the phase
(``transport`` before the first chunk, ``stream`` after), and the process is reaped.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from lionagi.service import EventStatus, RequestDeadlineExceeded, iModel
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

HANG_GUARD = 30.0  # a "did not hang" bound only; the cap under test is well below it


def stalled_model(replay: Any, *, cap: float, events: list[dict[str, Any]]) -> iModel:
    replay.write(events=events, stall=True)
    endpoint = ReferenceCliEndpoint(argv=replay.argv, terminate_grace=0.2, timeout=cap)
    return iModel(endpoint=endpoint)


async def test_invoke_without_a_deadline_stops_at_the_local_cap(replay: Any, alive: Any) -> None:
    model = stalled_model(replay, cap=0.5, events=[{"type": "text", "content": "partial"}])
    async with model:
        call = model.create_api_calling(prompt="hang please")
        with anyio.fail_after(HANG_GUARD), pytest.raises(RequestDeadlineExceeded) as info:
            await model.invoke(api_call=call)
        assert info.value.phase == "transport"
        assert info.value.local_cap == 0.5
        assert "0.5 s local cap" in str(info.value)
        assert call.status is EventStatus.ABORTED
        assert model.admission_snapshot().active == 0
        assert not alive(replay.launch()["launched"])


async def test_stream_cap_before_the_first_chunk_is_phase_transport(replay: Any) -> None:
    model = stalled_model(replay, cap=0.5, events=[])
    async with model:
        with anyio.fail_after(HANG_GUARD), pytest.raises(RequestDeadlineExceeded) as info:
            async for _ in model.stream(prompt="hang"):
                pass
        assert info.value.phase == "transport"
        assert info.value.local_cap == 0.5


async def test_stream_cap_after_a_chunk_is_phase_stream(replay: Any, alive: Any) -> None:
    model = stalled_model(replay, cap=0.8, events=[{"type": "text", "content": "one"}])
    seen: list[str | None] = []
    async with model:
        with anyio.fail_after(HANG_GUARD), pytest.raises(RequestDeadlineExceeded) as info:
            async for chunk in model.stream(prompt="hang"):
                seen.append(chunk.content)
        assert seen == ["one"]
        assert info.value.phase == "stream"
        assert model.admission_snapshot().active == 0
        assert not alive(replay.launch()["launched"])


async def test_a_shorter_caller_deadline_wins_and_says_deadline(replay: Any) -> None:
    model = stalled_model(replay, cap=60.0, events=[])
    async with model:
        with anyio.fail_after(HANG_GUARD), pytest.raises(RequestDeadlineExceeded) as info:
            await model.invoke(prompt="hang", timeout=0.5)
        assert info.value.phase == "transport"
        assert info.value.local_cap is None
        assert "exceeded its deadline" in str(info.value)


async def test_a_run_inside_the_cap_completes(replay: Any) -> None:
    replay.write()
    endpoint = ReferenceCliEndpoint(argv=replay.argv, timeout=60.0)
    async with iModel(endpoint=endpoint) as model:
        call = await model.invoke(prompt="quick")
    assert call.status is EventStatus.COMPLETED
    assert call.execution.response["result"] == "first second"

"""A session id is stored only for a run that completed.

A CLI announces its session when a run starts (pi's ``session`` header) and may report one
for a run that went wrong. A run cut off by the deadline, a failure or the consumer may never
have saved it: stored anyway, every later call of the model tried to resume a session the CLI
did not have ("No session found matching ...") and failed, for good. Now the id of a run is
stored when the run completes; otherwise the model keeps the id of its last completed run.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import (
    EventStatus,
    ProviderStreamError,
    RequestDeadlineExceeded,
    iModel,
)
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint


def session(sid: str) -> dict[str, Any]:
    return {"type": "session", "session_id": sid, "model": "m"}


TEXT = {"type": "text", "content": "answer"}
RESULT = {"type": "result", "content": None}
FAILURE = {"type": "text", "content": "provider refused", "error": True}


def model_for(replay: Any) -> iModel:
    return iModel(endpoint=ReferenceCliEndpoint(argv=replay.argv, terminate_grace=0.3))


async def test_a_completed_run_stores_its_session(replay: Any) -> None:
    replay.write(events=[session("s-done"), TEXT, RESULT])
    async with model_for(replay) as model:
        call = await model.invoke(prompt="hi")
        assert call.status is EventStatus.COMPLETED
        assert model.provider_session_id == "s-done"


async def test_a_run_cut_off_by_the_deadline_keeps_the_previous_session(replay: Any) -> None:
    async with model_for(replay) as model:
        replay.write(events=[session("s-done"), TEXT, RESULT])
        await model.invoke(prompt="first turn")
        replay.write(events=[session("s-never-saved"), TEXT], stall=True)
        with pytest.raises(RequestDeadlineExceeded):
            async for _ in model.stream(prompt="second turn", timeout=0.5):
                pass
        assert model.provider_session_id == "s-done"


@pytest.mark.parametrize("how", ["failed", "consumer-closed"])
async def test_a_run_that_did_not_complete_stores_nothing(replay: Any, how: str) -> None:
    async with model_for(replay) as model:
        if how == "failed":
            replay.write(events=[session("s-failed"), FAILURE])
            with pytest.raises(ProviderStreamError):
                async for _ in model.stream(prompt="hi"):
                    pass
        else:
            replay.write(events=[session("s-left"), TEXT, TEXT], stall=True)
            stream = model.stream(prompt="hi")
            async for chunk in stream:
                if chunk.type == "text":
                    break
            await stream.aclose()
        assert model.provider_session_id is None

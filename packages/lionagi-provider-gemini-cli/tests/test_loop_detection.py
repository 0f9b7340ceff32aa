"""Gemini CLI's loop detection: a "successful" turn whose session the CLI never saved.

No capture exists (the fake model server cannot make the real CLI loop), so the events are
written after Gemini CLI 0.61.0's headless loop (``runNonInteractive`` in the npm bundle, and
``packages/cli/src/nonInteractiveCli.ts`` upstream): on ``LoopDetected`` it emits an ``error``
event with severity ``warning`` and the text "Loop detected, stopping execution", then the
usual ``result`` with ``status: "success"``, and exits 0. Confirming that run's session id made
the next turn resume a session gemini never wrote (exit 42, "No previous sessions found").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lionagi.providers.gemini_cli import (
    LOOP_DETECTED_CODE,
    GeminiCodeEndpoint,
    GeminiEventProjector,
)
from lionagi.service import EventStatus, ProviderStreamError, StreamChunk, iModel
from lionagi.service_testing.conformance import record_argv

TS = "2026-11-29T21:14:02.118Z"
UNSAVED = "5b0c9a8e-1f7d-4e36-9c2a-0d3e5f6a7b8c"
SAVED = "87fab7de-3cb7-46cb-bd20-c0c1726f2294"
LOOP_TEXT = "Loop detected, stopping execution"
STATS = {
    "total_tokens": 912,
    "input_tokens": 840,
    "output_tokens": 72,
    "cached": 0,
    "input": 840,
    "duration_ms": 4120,
    "tool_calls": 0,
    "models": {"gemini-2.5-flash": {"total_tokens": 912, "input_tokens": 840}},
}


def init(session_id: str) -> dict[str, Any]:
    return {"type": "init", "timestamp": TS, "session_id": session_id, "model": "gemini-2.5-flash"}


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "timestamp": TS, "role": "user", "content": text}


def say(text: str) -> dict[str, Any]:
    return {"type": "message", "timestamp": TS, "role": "assistant", "content": text, "delta": True}


def success() -> dict[str, Any]:
    return {"type": "result", "timestamp": TS, "status": "success", "stats": STATS}


LOOP_NOTICE = {"type": "error", "timestamp": TS, "severity": "warning", "message": LOOP_TEXT}

LOOPED_RUN = [
    init(UNSAVED),
    user("count to three"),
    say("one two three "),
    say("one two three "),
    LOOP_NOTICE,
    success(),
]
"""What gemini 0.61 writes for a turn its loop detector stopped (exit code 0)."""

NORMAL_RUN = [init(SAVED), user("try again"), say("Done."), success()]


def project(events: list[dict[str, Any]]) -> list[StreamChunk]:
    projector = GeminiEventProjector()
    return [chunk for event in events for chunk in projector.project(event)]


def test_loop_detected_success_is_one_error_and_confirms_no_session() -> None:
    chunks = project(LOOPED_RUN)
    assert [c.type for c in chunks] == ["system", "text", "text", "system", "error"]
    # The text streamed before the loop is delivered; the notice says what happened as it did.
    assert "".join(c.content or "" for c in chunks if c.type == "text") == "one two three " * 2
    assert chunks[3].metadata == {"notice": LOOP_TEXT, "severity": "warning"}
    # No session_id anywhere: core would store it for the next turn's --resume.
    assert not any("session_id" in c.metadata for c in chunks)
    assert chunks[0].metadata["provider_session_id"] == UNSAVED  # observed, never confirmed
    error = chunks[-1]
    assert error.is_error
    assert error.metadata == {"code": LOOP_DETECTED_CODE}
    assert LOOP_TEXT in (error.content or "")
    raised = GeminiCodeEndpoint().stream_error(error)  # what invoke()/stream() raise
    assert type(raised) is ProviderStreamError
    assert raised.code == "LOOP_DETECTED"
    assert not raised.retryable


def write_plan(path: Path, events: list[dict[str, Any]]) -> None:
    path.write_text(json.dumps({"events": events, "exit_code": 0}), encoding="utf-8")


async def test_after_a_loop_detected_turn_the_next_turn_does_not_resume_it(
    tmp_path: Path,
) -> None:
    plan, record = tmp_path / "plan.json", tmp_path / "record.jsonl"
    endpoint = GeminiCodeEndpoint(argv=record_argv(plan, record))
    async with iModel(endpoint=endpoint) as model:
        write_plan(plan, LOOPED_RUN)
        looped = await model.invoke(prompt="count to three")
        assert looped.status is EventStatus.FAILED
        assert "Loop detected" in str(looped.execution.error)
        assert model.provider_session_id is None

        write_plan(plan, NORMAL_RUN)
        follow_up = await model.invoke(prompt="try again")
        assert follow_up.status is EventStatus.COMPLETED, follow_up.execution.error
        assert model.provider_session_id == SAVED

    first, second = (json.loads(line)["args"] for line in record.read_text().splitlines())
    assert "--resume" not in first
    assert "--resume" not in second  # a new session, not the one gemini never saved
    assert UNSAVED not in second

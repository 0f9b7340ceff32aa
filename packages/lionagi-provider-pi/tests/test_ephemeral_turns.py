"""An ephemeral pi turn after a saved one: no injected resume, and the stored session is kept.

iModel injects the stored session id into ``resume`` before validation (ADR-0030 D3), and
``PiRequest`` refuses ``ephemeral`` with ``resume``. Before the ``injects_resume`` hook every
``ephemeral=True`` call after one completed turn failed for a resume the caller never passed.
The runs go through a recording fake pi (``RecordingCli``) that replays pi's own events; each turn
confirms a different session id, so a turn that replaced the stored one would show in turn 3.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.pi import PiCliEndpoint
from lionagi.providers.pi._endpoint import PI_CONFIG
from lionagi.service import AgenticRequestValidationError, EventStatus, iModel
from lionagi.service_testing.fake_clis import RecordingCli

pytestmark = pytest.mark.anyio

USER = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
ANSWER = {
    "role": "assistant",
    "content": [{"type": "text", "text": "ok"}],
    "api": "openai-completions",
    "provider": "fake",
    "model": "fake-model",
    "stopReason": "stop",
}


def pi_run(session_id: str) -> list[dict[str, Any]]:
    """pi's json-mode events for one answered run whose session header carries ``session_id``."""
    return [
        {"type": "session", "version": 3, "id": session_id, "cwd": "/w"},
        {"type": "agent_start"},
        {"type": "message_start", "message": USER},
        {"type": "message_end", "message": USER},
        {"type": "turn_start"},
        {"type": "message_end", "message": ANSWER},
        {"type": "turn_end", "message": ANSWER, "toolResults": []},
        {"type": "agent_end", "messages": [USER]},
    ]


class FakePi(RecordingCli):
    """A recording fake pi whose next launches replay a run confirming ``session_id``."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory, "pi", pi_run("01a2-unused"))
        self.plan = Path(directory) / "pi.plan.json"

    def confirms(self, session_id: str) -> None:
        self.plan.write_text(json.dumps({"events": pi_run(session_id)}), encoding="utf-8")


def session_flags(args: list[str]) -> list[str]:
    return [a for a in args if a in ("--session", "--no-session", "--resume", "--continue")]


async def test_ephemeral_turn_neither_resumes_nor_replaces_the_stored_session(
    tmp_path: Path,
) -> None:
    pi = FakePi(tmp_path)
    model = iModel(model="pi/fake-model", agentic_settings={"binary": str(pi.binary)})
    try:
        pi.confirms("01a2-turn-one")
        first = await model.invoke(prompt="turn one")
        assert first.status is EventStatus.COMPLETED, first.execution.error
        assert model.provider_session_id == "01a2-turn-one"

        pi.confirms("01a2-turn-two")
        second = await model.invoke(prompt="turn two", ephemeral=True)
        assert second.status is EventStatus.COMPLETED, second.execution.error
        assert second.payload["request"].resume is None
        assert model.provider_session_id == "01a2-turn-one"  # an unsaved run replaces nothing

        pi.confirms("01a2-turn-three")
        third = await model.invoke(prompt="turn three")
        assert third.status is EventStatus.COMPLETED, third.execution.error
    finally:
        await model.close()
    one, two, three = pi.launches()
    assert session_flags(one) == []
    assert session_flags(two) == ["--no-session"]
    assert session_flags(three) == ["--session"]
    assert three[three.index("--session") + 1] == "01a2-turn-one"


async def test_explicit_resume_with_ephemeral_is_still_refused(tmp_path: Path) -> None:
    pi = FakePi(tmp_path)
    model = iModel(model="pi/fake-model", agentic_settings={"binary": str(pi.binary)})
    try:
        pi.confirms("01a2-turn-one")
        assert (await model.invoke(prompt="turn one")).status is EventStatus.COMPLETED
        with pytest.raises(AgenticRequestValidationError) as info:
            model.create_api_calling(prompt="x", resume="01a2-turn-one", ephemeral=True)
        assert info.value.field == "request"
        assert "cannot resume" in str(info.value)
    finally:
        await model.close()
    assert len(pi.launches()) == 1  # the refused call launched nothing


async def test_ephemeral_from_request_defaults_is_honoured(tmp_path: Path) -> None:
    pi = FakePi(tmp_path)
    config = {**PI_CONFIG, "request_defaults": {"ephemeral": True}}
    endpoint = PiCliEndpoint(config, argv=[str(pi.binary)])
    model = iModel(endpoint=endpoint)
    try:
        pi.confirms("01a2-turn-one")
        saved = await model.invoke(prompt="saved", ephemeral=False)
        assert saved.status is EventStatus.COMPLETED, saved.execution.error
        assert model.provider_session_id == "01a2-turn-one"
        pi.confirms("01a2-turn-two")
        default = await model.invoke(prompt="ephemeral by default")
        assert default.status is EventStatus.COMPLETED, default.execution.error
    finally:
        await model.close()
    _, second = pi.launches()
    assert session_flags(second) == ["--no-session"]
    assert model.provider_session_id == "01a2-turn-one"

"""A request value of the wrong type is refused naming the field, and pi never starts.

Regression: pydantic's lax mode coerced it, so ``no_tools="yes"`` (or ``"on"``, or ``1``) sent
``--no-tools``, ``ephemeral="no"`` saved the session and ``ephemeral=1`` did not. Each case
goes through the path a caller takes (``iModel(model="pi/...")``, then ``invoke`` or
``stream``) against a fake ``pi`` that records every launch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lionagi.service import AgenticRequestValidationError, EventStatus, iModel
from lionagi.service_testing.fake_clis import RecordingCli

USER = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
USAGE = {
    "input": 1,
    "output": 1,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 2,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def _message(content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": "openai-completions",
        "provider": "fake",
        "model": "fake-model",
        "usage": USAGE,
        "stopReason": "stop",
    }


_ANSWER = _message([{"type": "text", "text": "ok"}])
EVENTS = [
    {"type": "session", "version": 3, "id": "01a2-strict-types", "cwd": "/w"},
    {"type": "agent_start"},
    {"type": "message_start", "message": USER},
    {"type": "message_end", "message": USER},
    {"type": "turn_start"},
    {"type": "message_start", "message": _message([])},
    {"type": "message_end", "message": _ANSWER},
    {"type": "turn_end", "message": _ANSWER, "toolResults": []},
    {"type": "agent_end", "messages": [USER]},
]


class FakePi:
    """A fake ``pi`` (core's recording fake CLI) answering with ``EVENTS``; launches kept."""

    def __init__(self, directory: Path) -> None:
        self.cli = RecordingCli(directory, "pi", EVENTS)
        self.binary = self.cli.binary
        self.directory = directory

    def model(self) -> iModel:
        return iModel(
            model="pi/m1",
            agentic_settings={
                "binary": str(self.binary),
                "config_home": "isolated",
                "cwd": str(self.directory),
            },
        )

    def launches(self) -> list[list[str]]:
        return self.cli.launches()


@pytest.fixture
def pi(tmp_path: Path) -> FakePi:
    return FakePi(tmp_path)


WRONG_TYPES = [
    ({"no_tools": "yes"}, "no_tools"),
    ({"no_tools": "on"}, "no_tools"),
    ({"no_tools": 1}, "no_tools"),
    ({"ephemeral": "no"}, "ephemeral"),
    ({"ephemeral": 1}, "ephemeral"),
    ({"no_context_files": "true"}, "no_context_files"),
    ({"no_extensions": 1.0}, "no_extensions"),
    ({"tools": [b"read"]}, "tools.0"),
    ({"append_system_prompt": [b"be brief"]}, "append_system_prompt.0"),
    ({"system_prompt": b"be brief"}, "system_prompt"),
    ({"model": b"m2"}, "model"),
]


@pytest.mark.parametrize(("fields", "field"), WRONG_TYPES)
async def test_invoke_refuses_a_wrong_typed_value_before_any_launch(
    pi: FakePi, fields: dict[str, Any], field: str
) -> None:
    model = pi.model()
    try:
        with pytest.raises(AgenticRequestValidationError) as info:
            await model.invoke(prompt="hi", timeout=30, **fields)
    finally:
        await model.close()
    assert info.value.field == field
    assert pi.launches() == []


async def test_stream_refuses_a_wrong_typed_value_before_any_launch(pi: FakePi) -> None:
    model = pi.model()
    stream = model.stream(prompt="hi", timeout=30, no_tools="yes")
    try:
        with pytest.raises(AgenticRequestValidationError) as info:
            async for _ in stream:
                pass
    finally:
        await stream.aclose()
        await model.close()
    assert info.value.field == "no_tools"
    assert pi.launches() == []


def test_request_creation_refuses_a_wrong_typed_value(pi: FakePi) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        pi.model().create_api_calling(prompt="hi", ephemeral="no")
    assert str(info.value) == "ephemeral: Input should be a valid boolean"


@pytest.mark.parametrize(
    ("fields", "present", "absent"),
    [
        ({"no_tools": True}, ["--no-tools"], []),
        ({"no_tools": False, "tools": ("read",)}, ["--tools"], ["--no-tools"]),
        ({"ephemeral": True}, ["--no-session"], []),
        ({"ephemeral": False}, [], ["--no-session"]),
        ({"no_context_files": True, "no_extensions": True}, ["--no-context-files"], []),
    ],
)
async def test_real_bools_still_run_with_their_flags(
    pi: FakePi, fields: dict[str, Any], present: list[str], absent: list[str]
) -> None:
    model = pi.model()
    try:
        call = await model.invoke(prompt="hi", timeout=30, **fields)
    finally:
        await model.close()
    assert call.status == EventStatus.COMPLETED, call.exception
    (argv,) = pi.launches()
    for flag in present:
        assert flag in argv, argv
    for flag in absent:
        assert flag not in argv, argv

"""A request value of the wrong type is refused naming the field, and codex never starts.

Regression: pydantic's lax mode coerced it, so ``bypass_approvals="yes"`` (or ``"on"``, or
``1``) started codex with ``--dangerously-bypass-approvals-and-sandbox``, ``full_auto="y"``
with ``--sandbox workspace-write``, and ``ephemeral="no"`` without ``--ephemeral``. Each case
goes through the path a caller takes (``iModel(model="codex/...")``, then ``invoke`` or
``stream``) against a fake ``codex`` that records every launch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lionagi.service import AgenticRequestValidationError, EventStatus, iModel
from lionagi.service_testing.fake_clis import RecordingCli

EVENTS = [
    {"type": "thread.started", "thread_id": "019a0000-0000-7000-8000-00000000c0de"},
    {"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": "ok"}},
    {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}},
]


class FakeCodex:
    """A fake ``codex`` (core's recording fake CLI) answering with ``EVENTS``; launches kept."""

    def __init__(self, directory: Path) -> None:
        self.cli = RecordingCli(directory, "codex", EVENTS)
        self.binary = self.cli.binary
        self.directory = directory

    def model(self) -> iModel:
        return iModel(
            model="codex/gpt-5.2-codex",
            agentic_settings={
                "binary": str(self.binary),
                "config_home": "isolated",
                "cwd": str(self.directory),
            },
        )

    def launches(self) -> list[list[str]]:
        return self.cli.launches()


@pytest.fixture
def codex(tmp_path: Path) -> FakeCodex:
    return FakeCodex(tmp_path)


WRONG_TYPES = [
    ("bypass_approvals", "yes"),
    ("bypass_approvals", "on"),
    ("bypass_approvals", 1),
    ("bypass_approvals", "true"),
    ("full_auto", "y"),
    ("full_auto", 1),
    ("ephemeral", "no"),
    ("ephemeral", 0),
    ("skip_git_repo_check", 1.0),
    ("skip_git_repo_check", "1"),
    ("fast_mode", "on"),
    ("model", b"gpt-5.2-codex"),
    ("prompt", b"hello"),
]


@pytest.mark.parametrize(("field", "value"), WRONG_TYPES)
async def test_invoke_refuses_a_wrong_typed_value_before_any_launch(
    codex: FakeCodex, field: str, value: Any
) -> None:
    model = codex.model()
    fields: dict[str, Any] = {"prompt": "hi", field: value}
    try:
        with pytest.raises(AgenticRequestValidationError) as info:
            await model.invoke(timeout=30, **fields)
    finally:
        await model.close()
    assert info.value.field == field
    assert codex.launches() == []


@pytest.mark.parametrize(("field", "value"), [("bypass_approvals", "yes"), ("ephemeral", "no")])
async def test_stream_refuses_a_wrong_typed_value_before_any_launch(
    codex: FakeCodex, field: str, value: Any
) -> None:
    model = codex.model()
    stream = model.stream(prompt="hi", timeout=30, **{field: value})
    try:
        with pytest.raises(AgenticRequestValidationError) as info:
            async for _ in stream:
                pass
    finally:
        await stream.aclose()
        await model.close()
    assert info.value.field == field
    assert codex.launches() == []


def test_request_creation_refuses_a_wrong_typed_value(codex: FakeCodex) -> None:
    model = codex.model()
    with pytest.raises(AgenticRequestValidationError) as info:
        model.create_api_calling(prompt="hi", bypass_approvals="yes")
    assert info.value.field == "bypass_approvals"
    assert str(info.value) == "bypass_approvals: Input should be a valid boolean"


@pytest.mark.parametrize(
    ("fields", "present", "absent"),
    [
        ({"bypass_approvals": True}, ["--dangerously-bypass-approvals-and-sandbox"], []),
        ({"bypass_approvals": False}, [], ["--dangerously-bypass-approvals-and-sandbox"]),
        ({"full_auto": True}, ["--sandbox", "workspace-write"], []),
        ({"full_auto": False}, [], ["--sandbox"]),
        ({"ephemeral": True}, ["--ephemeral"], []),
        ({"ephemeral": False}, [], ["--ephemeral"]),
        ({"skip_git_repo_check": True}, ["--skip-git-repo-check"], []),
        ({"fast_mode": True}, ['service_tier="fast"'], []),
    ],
)
async def test_real_bools_still_run_with_their_flags(
    codex: FakeCodex, fields: dict[str, Any], present: list[str], absent: list[str]
) -> None:
    model = codex.model()
    try:
        call = await model.invoke(prompt="hi", timeout=30, **fields)
    finally:
        await model.close()
    assert call.status == EventStatus.COMPLETED, call.exception
    (argv,) = codex.launches()
    for flag in present:
        assert flag in argv, argv
    for flag in absent:
        assert flag not in argv, argv

"""Request types through the path a caller takes: ``iModel(model="codex/...")`` and a fake codex.

The conformance kit (``test_wrong_typed_request_values_are_refused_before_work``) refuses every
wrong-typed flag before any launch. Here: bytes for text, refused on ``invoke`` and ``stream``
before codex starts, and real bools still reaching codex as their flags. (Regression: lax
coercion once started codex with ``--dangerously-bypass-approvals-and-sandbox`` for
``bypass_approvals="yes"``.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lionagi.service import AgenticRequestValidationError, EventStatus, iModel
from lionagi.service_testing.fake_clis import RecordingCli

EVENTS: list[dict[str, Any]] = [
    {"type": "thread.started", "thread_id": "019a0000-0000-7000-8000-00000000c0de"},
    {"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": "ok"}},
    {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}},
]


def _fake(tmp_path: Path) -> tuple[RecordingCli, iModel]:
    """A fake ``codex`` answering with ``EVENTS`` (its launches kept), and a model running it."""
    cli = RecordingCli(tmp_path, "codex", EVENTS)
    settings = {"binary": str(cli.binary), "config_home": "isolated", "cwd": str(tmp_path)}
    return cli, iModel(model="codex/gpt-5.2-codex", agentic_settings=settings)


@pytest.mark.parametrize("call", ["invoke", "stream"])
@pytest.mark.parametrize(("field", "value"), [("model", b"gpt-5.2-codex"), ("prompt", b"hello")])
async def test_bytes_for_text_are_refused_before_any_launch(
    tmp_path: Path, call: str, field: str, value: bytes
) -> None:
    request: dict[str, Any] = {"prompt": "hi", "timeout": 30, field: value}
    codex, model = _fake(tmp_path)
    async with model:
        run = model.invoke(**request) if call == "invoke" else anext(model.stream(**request))
        with pytest.raises(AgenticRequestValidationError) as info:
            await run
    assert info.value.field == field
    assert str(info.value) == f"{field}: Input should be a valid string"
    assert codex.launches() == []


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
    tmp_path: Path, fields: dict[str, Any], present: list[str], absent: list[str]
) -> None:
    codex, model = _fake(tmp_path)
    async with model:
        call = await model.invoke(prompt="hi", timeout=30, **fields)
    assert call.status == EventStatus.COMPLETED, call.exception
    (argv,) = codex.launches()
    for flag in present:
        assert flag in argv, argv
    for flag in absent:
        assert flag not in argv, argv

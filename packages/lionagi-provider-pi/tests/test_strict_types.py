"""Request types through the path a caller takes: ``iModel(model="pi/...")`` and a fake pi.

The conformance kit (``test_wrong_typed_request_values_are_refused_before_work``) refuses a
wrong-typed ``no_tools``, ``no_context_files``, ``no_extensions`` or ``ephemeral`` before any
launch. Here: bytes for text, refused on ``invoke`` and ``stream`` before pi starts, and real
bools still reaching pi as their flags. (Regression: lax coercion once sent ``--no-tools`` for
``no_tools="yes"`` and saved the session for ``ephemeral="no"``.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lionagi.service import AgenticRequestValidationError, EventStatus, iModel
from lionagi.service_testing.fake_clis import RecordingCli

LINES = (Path(__file__).parent / "captures" / "text.jsonl").read_text(encoding="utf-8")
EVENTS = [json.loads(line) for line in LINES.splitlines() if line.strip()]


def _fake(tmp_path: Path) -> tuple[RecordingCli, iModel]:
    """A fake ``pi`` answering with ``EVENTS`` (its launches kept), and a model running it."""
    cli = RecordingCli(tmp_path, "pi", EVENTS)
    settings = {"binary": str(cli.binary), "config_home": "isolated", "cwd": str(tmp_path)}
    return cli, iModel(model="pi/m1", agentic_settings=settings)


@pytest.mark.parametrize("call", ["invoke", "stream"])
@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"tools": [b"read"]}, "tools.0"),
        ({"append_system_prompt": [b"be brief"]}, "append_system_prompt.0"),
        ({"system_prompt": b"be brief"}, "system_prompt"),
        ({"model": b"m2"}, "model"),
    ],
)
async def test_bytes_for_text_are_refused_before_any_launch(
    tmp_path: Path, call: str, fields: dict[str, Any], field: str
) -> None:
    pi, model = _fake(tmp_path)
    request = {"prompt": "hi", "timeout": 30, **fields}
    async with model:
        run = model.invoke(**request) if call == "invoke" else anext(model.stream(**request))
        with pytest.raises(AgenticRequestValidationError) as info:
            await run
    assert info.value.field == field
    assert str(info.value) == f"{field}: Input should be a valid string"
    assert pi.launches() == []


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
    tmp_path: Path, fields: dict[str, Any], present: list[str], absent: list[str]
) -> None:
    pi, model = _fake(tmp_path)
    async with model:
        call = await model.invoke(prompt="hi", timeout=30, **fields)
    assert call.status == EventStatus.COMPLETED, call.exception
    (argv,) = pi.launches()
    for flag in present:
        assert flag in argv, argv
    for flag in absent:
        assert flag not in argv, argv

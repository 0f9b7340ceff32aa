"""Request types through the path a caller takes: ``iModel(model="gemini_code/...")``, fake gemini.

The conformance kit (``test_wrong_typed_request_values_are_refused_before_work``) refuses a
wrong-typed ``yolo`` before any launch. Here: bytes for text, refused on ``invoke`` and
``stream`` before gemini starts, and real bools still reaching gemini as their flags.
(Regression: lax coercion once started Gemini CLI with ``--approval-mode yolo`` for
``yolo="yes"``: every tool call approved.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lionagi.service import AgenticRequestValidationError, EventStatus, iModel
from lionagi.service_testing.fake_clis import RecordingCli

TS = "2026-11-29T21:12:21.313Z"
STATS = {"total_tokens": 2, "input_tokens": 1, "output_tokens": 1, "duration_ms": 5}
EVENTS: list[dict[str, Any]] = [
    {
        "type": "init",
        "timestamp": TS,
        "session_id": "11111111-2222-4333-8444-555555555555",
        "model": "gemini-2.5-flash",
    },
    {"type": "message", "timestamp": TS, "role": "user", "content": "hi"},
    {"type": "message", "timestamp": TS, "role": "assistant", "content": "ok", "delta": True},
    {"type": "result", "timestamp": TS, "status": "success", "stats": STATS},
]


def _fake(tmp_path: Path) -> tuple[RecordingCli, iModel]:
    """A fake ``gemini`` answering with ``EVENTS`` (its launches kept), and a model running it."""
    cli = RecordingCli(tmp_path, "gemini", EVENTS)
    settings = {"binary": str(cli.binary), "config_home": "isolated", "cwd": str(tmp_path)}
    return cli, iModel(model="gemini_code/gemini-2.5-flash", agentic_settings=settings)


@pytest.mark.parametrize("call", ["invoke", "stream"])
@pytest.mark.parametrize(
    ("field", "value"),
    [("resume", b"latest"), ("model", b"gemini-2.5-pro"), ("prompt", b"hello")],
)
async def test_bytes_for_text_are_refused_before_any_launch(
    tmp_path: Path, call: str, field: str, value: bytes
) -> None:
    request: dict[str, Any] = {"prompt": "hi", "timeout": 30, field: value}
    gemini, model = _fake(tmp_path)
    async with model:
        run = model.invoke(**request) if call == "invoke" else anext(model.stream(**request))
        with pytest.raises(AgenticRequestValidationError) as info:
            await run
    assert info.value.field == field
    assert str(info.value) == f"{field}: Input should be a valid string"
    assert gemini.launches() == []


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"yolo": True}, ["--approval-mode", "yolo"]),
        ({"yolo": False}, []),
        ({"yolo": False, "approval_mode": "plan"}, ["--approval-mode", "plan"]),
    ],
)
async def test_real_bools_still_run(
    tmp_path: Path, fields: dict[str, Any], expected: list[str]
) -> None:
    gemini, model = _fake(tmp_path)
    async with model:
        call = await model.invoke(prompt="hi", timeout=30, **fields)
    assert call.status == EventStatus.COMPLETED, call.exception
    (argv,) = gemini.launches()
    if expected:
        assert argv[argv.index("--approval-mode") :][:2] == expected, argv
    else:
        assert "--approval-mode" not in argv, argv

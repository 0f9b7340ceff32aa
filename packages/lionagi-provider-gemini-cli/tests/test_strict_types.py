"""A request value of the wrong type is refused naming the field, and gemini never starts.

Regression: pydantic's lax mode coerced it, so ``yolo="yes"`` (or ``"on"``, or ``1``) started
Gemini CLI with ``--approval-mode yolo``: every tool call approved. Each case goes through the
path a caller takes (``iModel(model="gemini_code/...")``, then ``invoke`` or ``stream``)
against a fake ``gemini`` that records every launch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lionagi.service import AgenticRequestValidationError, EventStatus, iModel
from lionagi.service_testing.fake_clis import RecordingCli

TS = "2026-11-29T21:12:21.313Z"
STATS = {"total_tokens": 2, "input_tokens": 1, "output_tokens": 1, "duration_ms": 5}
EVENTS = [
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


class FakeGemini:
    """A fake ``gemini`` (core's recording fake CLI) answering with ``EVENTS``; launches kept."""

    def __init__(self, directory: Path) -> None:
        self.cli = RecordingCli(directory, "gemini", EVENTS)
        self.binary = self.cli.binary
        self.directory = directory

    def model(self) -> iModel:
        return iModel(
            model="gemini_code/gemini-2.5-flash",
            agentic_settings={
                "binary": str(self.binary),
                "config_home": "isolated",
                "cwd": str(self.directory),
            },
        )

    def launches(self) -> list[list[str]]:
        return self.cli.launches()


@pytest.fixture
def gemini(tmp_path: Path) -> FakeGemini:
    return FakeGemini(tmp_path)


WRONG_TYPES = [
    ("yolo", "yes"),
    ("yolo", "on"),
    ("yolo", 1),
    ("yolo", 1.0),
    ("yolo", "false"),
    ("resume", b"latest"),
    ("model", b"gemini-2.5-pro"),
    ("prompt", b"hello"),
]


@pytest.mark.parametrize(("field", "value"), WRONG_TYPES)
async def test_invoke_refuses_a_wrong_typed_value_before_any_launch(
    gemini: FakeGemini, field: str, value: Any
) -> None:
    model = gemini.model()
    fields: dict[str, Any] = {"prompt": "hi", field: value}
    try:
        with pytest.raises(AgenticRequestValidationError) as info:
            await model.invoke(timeout=30, **fields)
    finally:
        await model.close()
    assert info.value.field == field
    assert gemini.launches() == []


async def test_stream_refuses_a_wrong_typed_value_before_any_launch(gemini: FakeGemini) -> None:
    model = gemini.model()
    stream = model.stream(prompt="hi", timeout=30, yolo="yes")
    try:
        with pytest.raises(AgenticRequestValidationError) as info:
            async for _ in stream:
                pass
    finally:
        await stream.aclose()
        await model.close()
    assert info.value.field == "yolo"
    assert gemini.launches() == []


def test_request_creation_refuses_a_wrong_typed_value(gemini: FakeGemini) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        gemini.model().create_api_calling(prompt="hi", yolo="yes")
    assert str(info.value) == "yolo: Input should be a valid boolean"


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"yolo": True}, ["--approval-mode", "yolo"]),
        ({"yolo": False}, []),
        ({"yolo": False, "approval_mode": "plan"}, ["--approval-mode", "plan"]),
    ],
)
async def test_real_bools_still_run(
    gemini: FakeGemini, fields: dict[str, Any], expected: list[str]
) -> None:
    model = gemini.model()
    try:
        call = await model.invoke(prompt="hi", timeout=30, **fields)
    finally:
        await model.close()
    assert call.status == EventStatus.COMPLETED, call.exception
    (argv,) = gemini.launches()
    if expected:
        assert argv[argv.index("--approval-mode") :][:2] == expected, argv
    else:
        assert "--approval-mode" not in argv, argv

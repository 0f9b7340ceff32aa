"""A request value of the wrong type is refused naming the field, and claude never starts.

Regression: pydantic's lax mode coerced it, so ``max_budget_usd=True`` became a budget of 1,
``max_budget_usd="3"`` one of 3, and ``no_session_persistence="1"`` sent
``--no-session-persistence``. Each case goes through the path a caller takes
(``iModel(model="claude_code/...")``, then ``invoke`` or ``stream``) against a fake ``claude``
that records every launch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lionagi.service import AgenticRequestValidationError, EventStatus, iModel
from lionagi.service_testing.fake_clis import RecordingCli

SESSION_ID = "5b1f3c7e-0000-4000-8000-00000000c1a0"
EVENTS = [
    {"type": "system", "subtype": "init", "session_id": SESSION_ID, "model": "claude-sonnet-4-6"},
    {
        "type": "assistant",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
        "parent_tool_use_id": None,
        "session_id": SESSION_ID,
    },
    {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": "ok",
        "num_turns": 1,
        "session_id": SESSION_ID,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
]


class FakeClaude:
    """A fake ``claude`` (core's recording fake CLI) answering with ``EVENTS``; launches kept."""

    def __init__(self, directory: Path) -> None:
        self.cli = RecordingCli(directory, "claude", EVENTS)
        self.binary = self.cli.binary
        self.directory = directory

    def model(self) -> iModel:
        return iModel(
            model="claude_code/sonnet",
            agentic_settings={
                "binary": str(self.binary),
                "config_home": "isolated",
                "cwd": str(self.directory),
            },
        )

    def launches(self) -> list[list[str]]:
        return self.cli.launches()


@pytest.fixture
def claude(tmp_path: Path) -> FakeClaude:
    return FakeClaude(tmp_path)


WRONG_TYPES = [
    ({"max_budget_usd": True}, "max_budget_usd"),
    ({"max_budget_usd": "3"}, "max_budget_usd"),
    ({"max_budget_usd": "0.5"}, "max_budget_usd"),
    ({"max_budget_usd": float("inf")}, "max_budget_usd"),
    ({"no_session_persistence": "1"}, "no_session_persistence"),
    ({"no_session_persistence": 1}, "no_session_persistence"),
    ({"no_session_persistence": "yes"}, "no_session_persistence"),
    ({"resume": "cd417ada-3e8f-4a06-868d-31626a48d5ea", "fork_session": "on"}, "fork_session"),
    ({"allowed_tools": [b"Read"]}, "allowed_tools.0"),
    ({"model": b"sonnet"}, "model"),
    ({"system_prompt": b"be brief"}, "system_prompt"),
]


@pytest.mark.parametrize(("fields", "field"), WRONG_TYPES)
async def test_invoke_refuses_a_wrong_typed_value_before_any_launch(
    claude: FakeClaude, fields: dict[str, Any], field: str
) -> None:
    model = claude.model()
    try:
        with pytest.raises(AgenticRequestValidationError) as info:
            await model.invoke(prompt="hi", timeout=30, **fields)
    finally:
        await model.close()
    assert info.value.field == field
    assert claude.launches() == []


async def test_stream_refuses_a_wrong_typed_value_before_any_launch(claude: FakeClaude) -> None:
    model = claude.model()
    stream = model.stream(prompt="hi", timeout=30, no_session_persistence="1")
    try:
        with pytest.raises(AgenticRequestValidationError) as info:
            async for _ in stream:
                pass
    finally:
        await stream.aclose()
        await model.close()
    assert info.value.field == "no_session_persistence"
    assert claude.launches() == []


@pytest.mark.parametrize("value", [True, "3"])
def test_request_creation_refuses_a_wrong_typed_budget(claude: FakeClaude, value: Any) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        claude.model().create_api_calling(prompt="hi", max_budget_usd=value)
    assert info.value.field == "max_budget_usd"
    assert str(info.value).startswith("max_budget_usd: Input should be a ")


@pytest.mark.parametrize(
    ("fields", "expected", "absent"),
    [
        ({"max_budget_usd": 3}, ["--max-budget-usd", "3.0"], []),
        ({"max_budget_usd": 3.5}, ["--max-budget-usd", "3.5"], []),
        ({"no_session_persistence": True}, ["--no-session-persistence"], []),
        ({"no_session_persistence": False}, [], ["--no-session-persistence"]),
        (
            {"resume": "cd417ada-3e8f-4a06-868d-31626a48d5ea", "fork_session": True},
            ["--fork-session"],
            [],
        ),
        ({"allowed_tools": ["Read"]}, ["--allowedTools", "Read"], []),
    ],
)
async def test_correctly_typed_values_still_run(
    claude: FakeClaude, fields: dict[str, Any], expected: list[str], absent: list[str]
) -> None:
    model = claude.model()
    try:
        call = await model.invoke(prompt="hi", timeout=30, **fields)
    finally:
        await model.close()
    assert call.status == EventStatus.COMPLETED, call.exception
    (argv,) = claude.launches()
    width = len(expected)
    assert any(argv[i : i + width] == expected for i in range(len(argv))), argv
    for flag in absent:
        assert flag not in argv, argv

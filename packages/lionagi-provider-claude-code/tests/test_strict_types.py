"""Request types through the path a caller takes: ``iModel(model="claude_code/...")``, fake claude.

The conformance kit (``test_wrong_typed_request_values_are_refused_before_work``) refuses a
wrong-typed ``max_budget_usd``, ``no_session_persistence`` or ``fork_session`` before any
launch. Here: what it does not send (a non-finite budget, bytes for text, ``fork_session`` next
to the ``resume`` it needs, so only its type can refuse it), refused on ``invoke`` and ``stream``
before claude starts, and correctly typed values still reaching claude as their flags.
(Regression: lax coercion once made ``max_budget_usd=True`` a budget of 1.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lionagi.service import AgenticRequestValidationError, EventStatus, iModel
from lionagi.service_testing.fake_clis import RecordingCli

RESUME = "cd417ada-3e8f-4a06-868d-31626a48d5ea"
LINES = (Path(__file__).parent / "captures" / "text.jsonl").read_text(encoding="utf-8")
EVENTS = [json.loads(line) for line in LINES.splitlines() if line.strip()]


def _fake(tmp_path: Path) -> tuple[RecordingCli, iModel]:
    """A fake ``claude`` answering with ``EVENTS`` (its launches kept), and a model running it."""
    cli = RecordingCli(tmp_path, "claude", EVENTS)
    settings = {"binary": str(cli.binary), "config_home": "isolated", "cwd": str(tmp_path)}
    return cli, iModel(model="claude_code/sonnet", agentic_settings=settings)


@pytest.mark.parametrize("call", ["invoke", "stream"])
@pytest.mark.parametrize(
    ("fields", "field", "reason"),
    [
        ({"max_budget_usd": float("inf")}, "max_budget_usd", "a finite number"),
        ({"resume": RESUME, "fork_session": "on"}, "fork_session", "a valid boolean"),
        ({"allowed_tools": [b"Read"]}, "allowed_tools.0", "a valid string"),
        ({"model": b"sonnet"}, "model", "a valid string"),
        ({"system_prompt": b"be brief"}, "system_prompt", "a valid string"),
    ],
)
async def test_values_the_kit_does_not_send_are_refused_before_any_launch(
    tmp_path: Path, call: str, fields: dict[str, Any], field: str, reason: str
) -> None:
    claude, model = _fake(tmp_path)
    request = {"prompt": "hi", "timeout": 30, **fields}
    async with model:
        run = model.invoke(**request) if call == "invoke" else anext(model.stream(**request))
        with pytest.raises(AgenticRequestValidationError) as info:
            await run
    assert info.value.field == field
    assert str(info.value) == f"{field}: Input should be {reason}"
    assert claude.launches() == []


@pytest.mark.parametrize(
    ("fields", "expected", "absent"),
    [
        ({"max_budget_usd": 3}, ["--max-budget-usd", "3.0"], []),
        ({"max_budget_usd": 3.5}, ["--max-budget-usd", "3.5"], []),
        ({"no_session_persistence": True}, ["--no-session-persistence"], []),
        ({"no_session_persistence": False}, [], ["--no-session-persistence"]),
        ({"resume": RESUME, "fork_session": True}, ["--fork-session"], []),
        ({"allowed_tools": ["Read"]}, ["--allowedTools", "Read"], []),
    ],
)
async def test_correctly_typed_values_still_run(
    tmp_path: Path, fields: dict[str, Any], expected: list[str], absent: list[str]
) -> None:
    claude, model = _fake(tmp_path)
    async with model:
        call = await model.invoke(prompt="hi", timeout=30, **fields)
    assert call.status == EventStatus.COMPLETED, call.exception
    (argv,) = claude.launches()
    width = len(expected)
    assert any(argv[i : i + width] == expected for i in range(len(argv))), argv
    for flag in absent:
        assert flag not in argv, argv

"""``max_turns`` -> ``--max-turns``: Claude Code's turn cap for print mode.

2.1.332 keeps the flag out of ``claude --help`` (declared hidden) but takes it, and the Agent
SDK it ships launches the CLI with it; the CLI reference documents it. The request model
refused the field as unknown, so the cap the adapter's turn-limit family exists for could not
be set. Recorded (``captures/2.1.332/max-turns.jsonl``): the fake server's ``tool`` scenario
with ``--max-turns 1``: a tool call, its result, then ``result`` ``error_max_turns`` ("Reached
maximum number of turns (1)"), exit 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_captures import capture

from lionagi.providers.claude_code import ClaudeCodeEndpoint, ClaudeCodeRequest
from lionagi.service import (
    AgenticRequestValidationError,
    EventStatus,
    ProviderStreamTurnLimitError,
    iModel,
)
from lionagi.service_testing.conformance import record_argv


def test_max_turns_reaches_argv_as_its_own_element() -> None:
    args = ClaudeCodeEndpoint().cli_arguments(ClaudeCodeRequest(prompt="p", max_turns=3))
    assert args[args.index("--max-turns") + 1] == "3"
    assert "--max-turns" not in ClaudeCodeEndpoint().cli_arguments(ClaudeCodeRequest(prompt="p"))


@pytest.mark.parametrize("value", [0, -1, True, "3", 2.5])
def test_only_a_positive_integer_is_a_turn_cap(value: Any) -> None:
    endpoint = ClaudeCodeEndpoint()
    assert endpoint.create_payload({"prompt": "p", "max_turns": 2})[0]["request"].max_turns == 2
    with pytest.raises(AgenticRequestValidationError) as info:
        endpoint.create_payload({"prompt": "p", "max_turns": value})
    assert info.value.field == "max_turns"


async def test_a_run_stopped_at_its_cap_fails_with_the_turn_limit(tmp_path: Path) -> None:
    plan, record = tmp_path / "plan.json", tmp_path / "record.jsonl"
    events = capture("max-turns", "2.1.332")
    plan.write_text(json.dumps({"events": events, "exit_code": 1}), encoding="utf-8")
    async with iModel(endpoint=ClaudeCodeEndpoint(argv=record_argv(plan, record))) as model:
        call = await model.invoke(prompt="hello", max_turns=1)
    (launch,) = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    args = launch["args"]
    assert args[args.index("--max-turns") + 1] == "1"
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderStreamTurnLimitError, repr(call.exception)
    assert call.exception.retryable is False
    assert "Reached maximum number of turns (1)" in str(call.exception)

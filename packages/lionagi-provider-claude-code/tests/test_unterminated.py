"""A Claude Code run's end of stream over the ``replay`` fake CLI, beyond the conformance kit.

The kit covers a run cut short before its ``result`` event (``CUT_SHORT``:
ProviderProtocolError, FAILED), a complete run and an empty one. Here: the real captures still
complete, and a run cut short that also exited non-zero reports the process error, not the
missing event.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.service import (
    APICalling,
    EventStatus,
    ProviderProcessError,
    ProviderProtocolError,
    iModel,
)
from lionagi.service_testing.conformance import replay_argv

CAPTURES = Path(__file__).parent / "captures"
SESSION_ID = "11111111-1111-1111-1111-111111111111"

STARTED: list[dict[str, Any]] = [
    {"type": "system", "subtype": "init", "session_id": SESSION_ID, "model": "claude-sonnet-4-6"},
    {
        "type": "assistant",
        "session_id": SESSION_ID,
        "parent_tool_use_id": None,
        "message": {"role": "assistant", "content": [{"type": "text", "text": "half an ans"}]},
    },
]


async def _invoke(tmp_path: Path, events: list[dict[str, Any]], **plan: Any) -> APICalling:
    """``invoke()`` against a fake claude printing ``events`` (exit 0 unless ``plan`` says)."""
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"events": events, "exit_code": 0, **plan}), encoding="utf-8")
    async with iModel(endpoint=ClaudeCodeEndpoint(argv=replay_argv(path))) as model:
        return await model.invoke(prompt="hi")


async def test_real_captures_still_complete(tmp_path: Path) -> None:
    for name in ("text", "thinking-tool", "resume-1"):
        lines = (CAPTURES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
        folder = tmp_path / name
        folder.mkdir()
        call = await _invoke(folder, [json.loads(line) for line in lines if line.strip()])
        assert call.status is EventStatus.COMPLETED, (name, call.execution.error)
        assert call.execution.response["result"], name


async def test_a_non_zero_exit_still_reports_the_process_error_first(tmp_path: Path) -> None:
    call = await _invoke(tmp_path, STARTED, exit_code=3, stderr="claude: internal failure")
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderProcessError), repr(call.exception)
    assert not isinstance(call.exception, ProviderProtocolError)
    assert call.exception.returncode == 3

"""A codex run's end of stream over the ``replay`` fake CLI, beyond the conformance kit.

The kit covers a run cut short before ``turn.completed`` (``CUT_SHORT``: ProviderProtocolError,
FAILED), a complete run and an empty one. Here: every real capture still completes, and a
run cut short that also exited non-zero reports the process error, not the missing event.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lionagi.providers.codex import CodexCliEndpoint
from lionagi.service import (
    APICalling,
    EventStatus,
    ProviderProcessError,
    ProviderProtocolError,
    iModel,
)
from lionagi.service_testing.conformance import replay_argv

CAPTURES = Path(__file__).parent / "captures"

STARTED: list[dict[str, Any]] = [
    {"type": "thread.started", "thread_id": "019a0000-0000-7000-8000-0000000000a1"},
    {"type": "turn.started"},
    {
        "type": "item.completed",
        "item": {"id": "item_1", "type": "agent_message", "text": "half an ans"},
    },
]


async def _invoke(tmp_path: Path, events: list[dict[str, Any]], **plan: Any) -> APICalling:
    """``invoke()`` against a fake codex printing ``events`` (exit 0 unless ``plan`` says)."""
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"events": events, "exit_code": 0, **plan}), encoding="utf-8")
    async with iModel(endpoint=CodexCliEndpoint(argv=replay_argv(path))) as model:
        return await model.invoke(prompt="hi")


async def test_real_captures_still_complete(tmp_path: Path) -> None:
    for name in ("codex-text.jsonl", "codex-thinking-tool.jsonl", "codex-unknown-config.jsonl"):
        lines = (CAPTURES / name).read_text(encoding="utf-8").splitlines()
        folder = tmp_path / name
        folder.mkdir()
        call = await _invoke(folder, [json.loads(line) for line in lines if line.strip()])
        assert call.status is EventStatus.COMPLETED, (name, call.execution.error)
        assert call.execution.response["result"], name


async def test_a_non_zero_exit_still_reports_the_process_error_first(tmp_path: Path) -> None:
    call = await _invoke(tmp_path, STARTED, exit_code=3, stderr="codex: internal failure")
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderProcessError), repr(call.exception)
    assert not isinstance(call.exception, ProviderProtocolError)
    assert call.exception.returncode == 3

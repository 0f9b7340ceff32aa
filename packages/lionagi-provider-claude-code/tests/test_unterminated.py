"""A Claude Code run that started but never printed its ``result`` event is not a completion.

Through the public path (``iModel.stream``/``invoke`` over the ``replay`` fake CLI): claude
printed its ``system``/``init`` event and an ``assistant`` message, then exited 0 without the
terminal ``result``. That is a ``ProviderProtocolError`` (the text may be cut short), never a
COMPLETED call whose answer is the partial text. A complete run, the real captures and a run
that printed nothing still complete; a non-zero exit still reports as the process error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.service import (
    EventStatus,
    ProviderProcessError,
    ProviderProtocolError,
    StreamChunk,
    iModel,
)
from lionagi.service_testing.conformance import replay_argv

CAPTURES = Path(__file__).parent / "captures"
SESSION_ID = "11111111-1111-1111-1111-111111111111"

STARTED: list[dict[str, Any]] = [
    {
        "type": "system",
        "subtype": "init",
        "session_id": SESSION_ID,
        "model": "claude-sonnet-4-6",
        "tools": [],
        "cwd": "/tmp",
    },
    {
        "type": "assistant",
        "session_id": SESSION_ID,
        "parent_tool_use_id": None,
        "message": {
            "id": "m1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": [{"type": "text", "text": "half an ans"}],
        },
    },
]
RESULT = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "result": "half an ans",
    "session_id": SESSION_ID,
    "num_turns": 1,
    "usage": {"input_tokens": 3, "output_tokens": 2},
}


def _endpoint(tmp_path: Path, events: list[dict[str, Any]], **plan: Any) -> ClaudeCodeEndpoint:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"events": events, "exit_code": 0, **plan}), encoding="utf-8")
    return ClaudeCodeEndpoint(argv=replay_argv(path), terminate_grace=0.3)


async def _run(
    endpoint: ClaudeCodeEndpoint,
) -> tuple[list[StreamChunk], Exception | None, Any, Any]:
    """``stream()`` (chunks, raised error, its call), then a fresh ``invoke()`` of the same."""
    chunks: list[StreamChunk] = []
    raised: Exception | None = None
    async with iModel(endpoint=endpoint) as model:
        call = model.create_api_calling(prompt="hi")
        try:
            async for chunk in model.stream(api_call=call):
                chunks.append(chunk)
        except Exception as exc:
            raised = exc
        invoked = await model.invoke(prompt="hi")
    return chunks, raised, call, invoked


async def test_started_run_without_its_result_event_fails(tmp_path: Path) -> None:
    chunks, raised, call, invoked = await _run(_endpoint(tmp_path, STARTED))
    assert isinstance(raised, ProviderProtocolError), repr(raised)
    assert "claude" in str(raised)
    assert "result event" in str(raised)
    assert [c.type for c in chunks] == ["system", "text"]  # what came is still delivered
    assert call.status is EventStatus.FAILED
    assert call.exception is raised
    assert invoked.status is EventStatus.FAILED
    assert isinstance(invoked.exception, ProviderProtocolError)
    assert invoked.execution.response is None  # the partial text is not an answer


async def test_the_same_run_with_its_result_event_completes(tmp_path: Path) -> None:
    chunks, raised, call, invoked = await _run(_endpoint(tmp_path, [*STARTED, RESULT]))
    assert raised is None, repr(raised)
    assert [c.type for c in chunks] == ["system", "text", "result"]
    assert call.status is EventStatus.COMPLETED
    assert invoked.status is EventStatus.COMPLETED, invoked.execution.error
    assert invoked.execution.response["result"] == "half an ans"


async def test_real_captures_still_complete(tmp_path: Path) -> None:
    for name in ("text", "thinking-tool", "resume-1"):
        lines = (CAPTURES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
        events = [json.loads(line) for line in lines if line.strip()]
        folder = tmp_path / name
        folder.mkdir()
        chunks, raised, call, invoked = await _run(_endpoint(folder, events))
        assert raised is None, (name, raised)
        assert chunks[-1].type == "result", name
        assert call.status is EventStatus.COMPLETED, name
        assert invoked.status is EventStatus.COMPLETED, (name, invoked.execution.error)
        assert invoked.execution.response["result"], name


async def test_a_run_that_printed_nothing_still_completes_empty(tmp_path: Path) -> None:
    chunks, raised, call, invoked = await _run(_endpoint(tmp_path, []))
    assert raised is None, repr(raised)
    assert chunks == []
    assert call.status is EventStatus.COMPLETED
    assert invoked.status is EventStatus.COMPLETED, invoked.execution.error
    assert invoked.execution.response["result"] == ""


async def test_a_non_zero_exit_still_reports_the_process_error_first(tmp_path: Path) -> None:
    endpoint = _endpoint(tmp_path, STARTED, exit_code=3, stderr="claude: internal failure")
    _, raised, call, invoked = await _run(endpoint)
    assert isinstance(raised, ProviderProcessError), repr(raised)
    assert raised.returncode == 3
    assert not isinstance(raised, ProviderProtocolError)
    assert call.status is EventStatus.FAILED
    assert isinstance(invoked.exception, ProviderProcessError)
    assert invoked.exception.returncode == 3

"""A codex run that started but never printed turn.completed/turn.failed is not a completion.

Through the public path (``iModel.stream``/``invoke`` over the ``replay`` fake CLI): codex
printed ``thread.started``, ``turn.started`` and an answer item, then exited 0 without its
terminal event. That is a ``ProviderProtocolError`` (the text may be cut short), never a
COMPLETED call whose answer is the partial text. A complete run, a real capture and a run that
printed nothing still complete; a non-zero exit still reports as the process error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lionagi.providers.codex import CodexCliEndpoint
from lionagi.service import (
    EventStatus,
    ProviderProcessError,
    ProviderProtocolError,
    StreamChunk,
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
COMPLETED = {"type": "turn.completed", "usage": {"input_tokens": 3, "output_tokens": 2}}


def _endpoint(tmp_path: Path, events: list[dict[str, Any]], **plan: Any) -> CodexCliEndpoint:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"events": events, "exit_code": 0, **plan}), encoding="utf-8")
    return CodexCliEndpoint(argv=replay_argv(path), terminate_grace=0.3)


async def _run(
    endpoint: CodexCliEndpoint,
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


async def test_started_run_without_its_terminal_event_fails(tmp_path: Path) -> None:
    chunks, raised, call, invoked = await _run(_endpoint(tmp_path, STARTED))
    assert isinstance(raised, ProviderProtocolError), repr(raised)
    assert "codex" in str(raised)
    assert "turn.completed" in str(raised)
    assert [c.type for c in chunks] == ["system", "text"]  # what came is still delivered
    assert "result" not in [c.type for c in chunks]
    assert call.status is EventStatus.FAILED
    assert call.exception is raised
    assert invoked.status is EventStatus.FAILED
    assert isinstance(invoked.exception, ProviderProtocolError)
    assert invoked.execution.response is None  # the partial text is not an answer


async def test_the_same_run_with_its_terminal_event_completes(tmp_path: Path) -> None:
    chunks, raised, call, invoked = await _run(_endpoint(tmp_path, [*STARTED, COMPLETED]))
    assert raised is None, repr(raised)
    assert [c.type for c in chunks] == ["system", "text", "result"]
    assert call.status is EventStatus.COMPLETED
    assert invoked.status is EventStatus.COMPLETED, invoked.execution.error
    assert invoked.execution.response["result"] == "half an ans"


async def test_real_captures_still_complete(tmp_path: Path) -> None:
    for name in ("codex-text.jsonl", "codex-thinking-tool.jsonl", "codex-unknown-config.jsonl"):
        lines = (CAPTURES / name).read_text(encoding="utf-8").splitlines()
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
    endpoint = _endpoint(tmp_path, STARTED, exit_code=3, stderr="codex: internal failure")
    _, raised, call, invoked = await _run(endpoint)
    assert isinstance(raised, ProviderProcessError), repr(raised)
    assert raised.returncode == 3
    assert not isinstance(raised, ProviderProtocolError)
    assert call.status is EventStatus.FAILED
    assert isinstance(invoked.exception, ProviderProcessError)
    assert invoked.exception.returncode == 3

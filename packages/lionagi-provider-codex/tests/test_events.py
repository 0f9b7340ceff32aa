"""The event parser: every captured event type, the documented grammar, the allowlist, errors."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.codex import CodexCliEndpoint
from lionagi.providers.codex._events import IGNORED_EVENTS, CodexEventParser
from lionagi.service import (
    ProviderAuthError,
    ProviderConnectionError,
    ProviderContextError,
    ProviderProtocolError,
    ProviderQuotaError,
    ProviderStreamError,
    StreamChunk,
)

CAPTURES = Path(__file__).parent / "captures"


def _replay(events: Iterable[Mapping[str, Any]], model: str | None = "m") -> list[StreamChunk]:
    parser = CodexEventParser(model=model)
    chunks: list[StreamChunk] = []
    for event in events:
        chunks += parser.feed(event)
        if chunks and chunks[-1].type == "error":
            return chunks
    return chunks + parser.finish()


def _project(events: Iterable[Mapping[str, Any]]) -> list[StreamChunk]:
    """The chunks the events give, without the end of stream (a fragment of a run's grammar)."""
    parser = CodexEventParser()
    return [chunk for event in events for chunk in parser.feed(event)]


def _capture(name: str) -> list[dict[str, Any]]:
    lines = (CAPTURES / name).read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _classify(chunk: StreamChunk) -> ProviderStreamError:
    return CodexCliEndpoint().stream_error(chunk)


def test_every_event_type_in_the_captures_is_mapped() -> None:
    seen: set[str] = set()
    for path in sorted(CAPTURES.glob("*.jsonl")):
        events = _capture(path.name)
        for event in events:
            seen.add(event["type"])
            if event["type"].startswith("item."):
                seen.add(f"item:{event['item']['type']}")
        _replay(events)  # no ProviderProtocolError for anything the real binary printed
    assert seen >= {
        "thread.started",
        "turn.started",
        "turn.completed",
        "turn.failed",
        "error",
        "item.started",
        "item.completed",
        "item:agent_message",
        "item:reasoning",
        "item:command_execution",
        "item:error",
    }


def test_text_capture() -> None:
    chunks = _replay(_capture("codex-text.jsonl"), model="gpt-5.2-codex")
    kinds = [c.type for c in chunks]
    assert kinds == ["system", "system", "text", "result"]
    assert chunks[0].metadata["provider_session_id"]
    assert "Model metadata" in chunks[1].metadata["warning"]
    assert chunks[2].content == "Hello from the fake server."
    assert not chunks[2].is_delta
    result = chunks[-1]
    assert result.content is None
    assert result.metadata["usage"]["input_tokens"] == 42
    assert result.metadata["model"] == "gpt-5.2-codex"
    assert result.metadata["provider_session_id"] == chunks[0].metadata["provider_session_id"]
    assert "session_id" not in result.metadata  # not resumable: only the observed id


def test_thinking_and_tool_capture_pairs_by_item_id() -> None:
    chunks = _replay(_capture("codex-thinking-tool.jsonl"))
    content = [c for c in chunks if c.type != "system"]
    assert [c.type for c in content] == ["thinking", "tool_use", "tool_result", "text", "result"]
    thinking, use, result, text, _ = content
    assert thinking.content == "Pondering the fake request."
    assert use.tool_name == "shell"
    assert use.tool_input == {"command": "/bin/bash -lc 'echo fake-tool-ran'"}
    assert use.tool_id == result.tool_id == "item_2"
    assert result.tool_output == "fake-tool-ran\n"
    assert not result.is_error
    assert result.metadata == {"status": "completed", "exit_code": 0}
    assert text.content == "Tool said: fake-tool-ran. Done."


@pytest.mark.parametrize("name", ["codex-401-retries.jsonl", "codex-401-failfast.jsonl"])
def test_401_is_one_error_chunk_classified_as_auth(name: str) -> None:
    chunks = _replay(_capture(name))
    errors = [c for c in chunks if c.type == "error"]
    assert len(errors) == 1
    assert chunks[-1] is errors[0]
    assert errors[0].metadata["status"] == 401
    assert isinstance(_classify(errors[0]), ProviderAuthError)
    notices = [c for c in chunks if c.type == "system" and "retry_notice" in c.metadata]
    assert len(notices) == (5 if "retries" in name else 0)


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("codex-429.jsonl", ProviderQuotaError),
        ("codex-context.jsonl", ProviderContextError),
        ("codex-server-down.jsonl", ProviderConnectionError),
    ],
)
def test_real_failure_texts_classify(name: str, family: type[Exception]) -> None:
    (error,) = [c for c in _replay(_capture(name)) if c.type == "error"]
    assert isinstance(_classify(error), family)


def test_429_status_comes_from_the_retry_limit_text() -> None:
    (error,) = [c for c in _replay(_capture("codex-429.jsonl")) if c.type == "error"]
    assert error.metadata["status"] == 429


def test_unrecognized_config_warning_is_metadata() -> None:
    chunks = _replay(_capture("codex-unknown-config.jsonl"))
    warnings = [c.metadata["warning"] for c in chunks if "warning" in c.metadata]
    assert any("unrecognized configuration" in w for w in warnings)
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["warnings"] == warnings


def test_telemetry_allowlist_is_explicit() -> None:
    assert frozenset({"turn.started"}) == IGNORED_EVENTS
    assert CodexEventParser().feed({"type": "turn.started"}) == []


# -- the documented grammar beyond the captures --------------------------------------------------


def _item(kind: str, **item: Any) -> dict[str, Any]:
    return {"type": kind, "item": item}


def test_waiting_for_network_notices_are_not_failures() -> None:
    chunks = _replay(
        [
            {"type": "thread.started", "thread_id": "t"},
            {"type": "error", "message": "Reconnecting... 2/5 (stream disconnected)"},
            {"type": "error", "message": "Reconnecting... waiting for network (failed)"},
            _item("item.completed", id="i1", type="agent_message", text="back"),
            {"type": "turn.completed", "usage": {"input_tokens": 1}},
        ]
    )
    assert [c.type for c in chunks] == ["system", "system", "system", "text", "result"]
    assert chunks[-1].metadata["retry_notices"] == 2


def test_error_then_completion_is_a_success_with_the_error_recorded() -> None:
    chunks = _replay(
        [
            {"type": "error", "message": "transient"},
            _item("item.completed", id="i1", type="agent_message", text="fine"),
            {"type": "turn.completed", "usage": {}},
        ]
    )
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["recovered_errors"] == ["transient"]


def test_error_without_terminal_event_fails_at_end_of_stream() -> None:
    chunks = _replay(
        [{"type": "thread.started", "thread_id": "t"}, {"type": "error", "message": "boom"}]
    )
    assert chunks[-1].type == "error"
    assert chunks[-1].content == "boom"


def test_events_without_a_terminal_event_are_a_protocol_error_at_end_of_stream() -> None:
    parser = CodexEventParser()
    parser.feed({"type": "thread.started", "thread_id": "t"})
    parser.feed({"type": "turn.started"})
    parser.feed(_item("item.completed", id="i1", type="agent_message", text="half an ans"))
    with pytest.raises(ProviderProtocolError, match=r"codex: .*turn\.completed or turn\.failed"):
        parser.finish()


def test_a_stream_without_events_ends_empty() -> None:
    assert CodexEventParser().finish() == []


def test_nothing_is_owed_after_a_terminal_event() -> None:
    for terminal in ({"type": "turn.completed", "usage": {}}, {"type": "turn.failed", "error": {}}):
        parser = CodexEventParser()
        parser.feed({"type": "thread.started", "thread_id": "t"})
        parser.feed(terminal)
        assert parser.finish() == []


def test_turn_failed_without_message_still_has_text() -> None:
    chunks = _replay([{"type": "turn.failed", "error": {}}])
    assert chunks[-1].type == "error"
    assert chunks[-1].content


@pytest.mark.parametrize(
    ("item", "name", "tool_input", "output", "is_error"),
    [
        (
            {
                "type": "file_change",
                "changes": [{"path": "a.py", "kind": "add"}],
                "status": "failed",
            },
            "file_change",
            {"changes": [{"path": "a.py", "kind": "add"}]},
            [{"path": "a.py", "kind": "add"}],
            True,
        ),
        (
            {
                "type": "mcp_tool_call",
                "server": "docs",
                "tool": "search",
                "arguments": {"q": "x"},
                "result": {"content": [{"type": "text", "text": "hit"}]},
                "error": None,
                "status": "completed",
            },
            "mcp__docs__search",
            {"server": "docs", "tool": "search", "arguments": {"q": "x"}},
            {"content": [{"type": "text", "text": "hit"}]},
            False,
        ),
        (
            {
                "type": "mcp_tool_call",
                "server": "docs",
                "tool": "search",
                "arguments": {},
                "result": None,
                "error": {"message": "no such tool"},
                "status": "failed",
            },
            "mcp__docs__search",
            {"server": "docs", "tool": "search", "arguments": {}},
            "no such tool",
            True,
        ),
        (
            {"type": "web_search", "query": "codex", "action": {"type": "search"}},
            "web_search",
            {"query": "codex", "action": {"type": "search"}},
            {"query": "codex", "action": {"type": "search"}},
            False,
        ),
        (
            {
                "type": "collab_tool_call",
                "tool": "spawn_agent",
                "sender_thread_id": "a",
                "receiver_thread_ids": ["b"],
                "prompt": "help",
                "agents_states": {"b": {"status": "completed", "message": None}},
                "status": "completed",
            },
            "collab.spawn_agent",
            {"prompt": "help", "receiver_thread_ids": ["b"]},
            {"b": {"status": "completed", "message": None}},
            False,
        ),
        (
            {
                "type": "command_execution",
                "command": "false",
                "aggregated_output": "",
                "exit_code": 1,
                "status": "failed",
            },
            "shell",
            {"command": "false"},
            "",
            True,
        ),
    ],
)
def test_tool_items_completed_without_start_give_use_then_result(
    item: dict[str, Any], name: str, tool_input: dict[str, Any], output: Any, is_error: bool
) -> None:
    chunks = _project([_item("item.completed", id="x1", **item)])
    use, result = chunks
    assert (use.type, use.tool_name, use.tool_id, use.tool_input) == (
        "tool_use",
        name,
        "x1",
        tool_input,
    )
    assert (result.type, result.tool_id, result.tool_output, result.is_error) == (
        "tool_result",
        "x1",
        output,
        is_error,
    )


def test_item_updated_never_repeats_the_tool_use() -> None:
    start = {"id": "c", "type": "command_execution", "command": "ls", "aggregated_output": ""}
    chunks = _project(
        [
            _item("item.started", **start, exit_code=None, status="in_progress"),
            _item("item.updated", **start, exit_code=None, status="in_progress"),
            _item(
                "item.completed",
                **{**start, "aggregated_output": "a\n"},
                exit_code=0,
                status="completed",
            ),
        ]
    )
    assert [c.type for c in chunks] == ["tool_use", "tool_result"]


def test_todo_list_and_plan_items() -> None:
    todo = [{"text": "step", "completed": False}]
    chunks = _project(
        [
            _item("item.started", id="t", type="todo_list", items=todo),
            {"type": "item.plan.delta", "item_id": "p", "delta": "1. do "},
            {"type": "item.plan.delta", "item_id": "p", "delta": "it"},
            _item("item.completed", id="p", type="plan", text="1. do it"),
            _item("item.completed", id="q", type="plan", text="whole plan"),
        ]
    )
    assert chunks[0].type == "system"
    assert chunks[0].metadata["todo_list"] == todo
    texts = [(c.content, c.is_delta) for c in chunks if c.type == "text"]
    assert texts == [("1. do ", True), ("it", True), ("whole plan", False)]


def test_started_messages_wait_for_completion() -> None:
    assert _project([_item("item.started", id="m", type="agent_message", text="")]) == []


def test_request_user_input_is_a_tool_call() -> None:
    (chunk,) = _project(
        [{"type": "request_user_input", "id": "turn", "call_id": "call_1", "questions": [{"q": 1}]}]
    )
    assert (chunk.type, chunk.tool_name, chunk.tool_id) == (
        "tool_use",
        "request_user_input",
        "call_1",
    )


@pytest.mark.parametrize(
    "event",
    [
        {"type": "thread.forked", "thread_id": "t"},
        {"type": "assistant", "text": "hello"},
        _item("item.completed", id="i", type="image_generation", text="x"),
        {"type": "item.completed"},
        {"type": "thread.started"},
        {"type": "error"},
        _item("item.completed", id="i", type="agent_message"),
    ],
)
def test_unknown_or_malformed_content_events_are_protocol_errors(event: dict[str, Any]) -> None:
    with pytest.raises(ProviderProtocolError):
        CodexEventParser().feed(event)


def test_events_after_the_terminal_event_are_protocol_errors() -> None:
    parser = CodexEventParser()
    parser.feed({"type": "turn.completed", "usage": {}})
    with pytest.raises(ProviderProtocolError):
        parser.feed(_item("item.completed", id="late", type="agent_message", text="late"))


def test_a_run_with_no_semantic_output_ends_empty() -> None:
    """``thread.started`` and ``turn.started`` alone are ADR-0030's normal empty EOF."""
    parser = CodexEventParser()
    parser.feed({"type": "thread.started", "thread_id": "t"})
    parser.feed({"type": "turn.started"})
    assert parser.finish() == []

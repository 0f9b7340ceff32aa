"""ClaudeEventMapper over the recorded real-CLI streams and the documented stream-json grammar."""

from __future__ import annotations

from typing import Any

import pytest
from claude_captures import capture, replay

from lionagi.providers.claude_code import ClaudeCodeEndpoint, ClaudeEventMapper
from lionagi.providers.claude_code._events import SYSTEM_TELEMETRY, TOP_LEVEL_TELEMETRY
from lionagi.service import (
    ProviderAuthError,
    ProviderCapacityError,
    ProviderContextError,
    ProviderProtocolError,
    ProviderQuotaError,
    ProviderQuotaSpentError,
    ProviderStreamError,
    ProviderStreamTurnLimitError,
    ProviderTurnLimitError,
    StreamChunk,
)


def kinds(chunks: list[StreamChunk]) -> list[str]:
    return [c.type for c in chunks]


# -- recorded streams ----------------------------------------------------------------------------


def test_text_capture() -> None:
    events = capture("text")
    chunks = replay(events)
    assert kinds(chunks) == ["system", "text", "result"]
    init, text, result = chunks
    assert init.metadata["session_id"] == events[0]["session_id"]
    assert init.metadata["cli_version"] == "2.1.197"
    assert "Bash" in init.metadata["tools"]
    assert text.content == "Hello from the fake server."
    # the result repeats the last text block: not emitted twice
    assert result.content is None
    assert result.metadata["usage"]["output_tokens"] == 7
    assert result.metadata["total_cost_usd"] == pytest.approx(0.000385)
    assert result.metadata["num_turns"] == 1
    assert {"duration_ms", "duration_api_ms", "session_id", "model"} <= set(result.metadata)


def test_thinking_and_tool_capture_pairs_the_result_by_id() -> None:
    chunks = replay(capture("thinking-tool"))
    assert kinds(chunks) == ["system", "thinking", "tool_use", "tool_result", "text", "result"]
    _, thinking, use, result, text, final = chunks
    assert thinking.content == "Pondering the fake request."
    assert use.tool_name == "Bash"
    assert use.tool_input == {"command": "echo fake-tool-ran", "description": "Run the fake tool"}
    assert use.tool_id
    assert use.tool_id == result.tool_id
    assert result.tool_output == "fake-tool-ran"
    assert result.is_error is False
    assert text.content == "Tool said: fake-tool-ran. Done."
    assert final.content is None
    assert final.metadata["num_turns"] == 2


def test_slow_tool_capture_task_events_are_telemetry_and_failed_tool_is_flagged() -> None:
    chunks = replay(capture("slow-tool-terminated"))
    assert kinds(chunks) == ["system", "tool_use", "tool_result", "text", "result"]
    assert chunks[2].is_error is True
    assert chunks[2].tool_output == "Exit code 137"


def test_subagent_capture_task_updated_is_telemetry_and_nested_tools_pair() -> None:
    # 2.1.197 reports each finished subagent task with ``system/task_updated`` (a status
    # patch); it used to end the run as an unknown subtype, so any Agent tool run failed.
    events = capture("subagent")
    assert any(e.get("subtype") == "task_updated" for e in events)
    chunks = replay(events)
    assert kinds(chunks) == [
        "system", "tool_use", "tool_use", "tool_result", "tool_result", "text", "result",
    ]  # fmt: skip
    outer, inner = chunks[1], chunks[2]
    assert outer.tool_name == inner.tool_name == "Agent"
    assert inner.metadata["parent_tool_use_id"] == outer.tool_id
    assert [c.tool_id for c in chunks if c.type == "tool_result"] == [inner.tool_id, outer.tool_id]


def test_an_unsaved_run_publishes_its_id_as_provider_session_id_only() -> None:
    # --no-session-persistence: stored as the model's session, the id made the next call's
    # --resume fail ("No conversation found with session ID").
    events = capture("text")
    mapper = ClaudeEventMapper(persisted=False)
    chunks = [c for e in events for c in mapper.feed(e)] + mapper.finish()
    init, result = chunks[0], chunks[-1]
    assert init.metadata["provider_session_id"] == events[0]["session_id"]
    assert result.metadata["provider_session_id"] == events[0]["session_id"]
    assert not any("session_id" in c.metadata for c in chunks)
    (error,) = [c for e in capture("401") for c in ClaudeEventMapper(persisted=False).feed(e)][1:]
    assert "session_id" not in error.metadata
    assert error.metadata["provider_session_id"]
    endpoint = ClaudeCodeEndpoint()
    request = endpoint.create_payload({"prompt": "hi", "no_session_persistence": True})[0]
    assert endpoint.event_parser(request["request"]).feed(events[0])[0].metadata == (init.metadata)


@pytest.mark.parametrize(
    ("name", "family", "status", "code"),
    [
        ("401", ProviderAuthError, 401, "authentication_failed"),
        ("nokey", ProviderAuthError, None, "authentication_failed"),
        ("overloaded", ProviderCapacityError, 529, "server_error"),
        ("quota", ProviderQuotaSpentError, 400, "billing_error"),  # spent: never retried
        ("context", ProviderContextError, 400, "invalid_request"),
    ],
)
def test_failure_captures_give_one_classified_error_chunk(
    name: str, family: type[Exception], status: int | None, code: str
) -> None:
    events = capture(name)
    chunks = replay(events)
    # reported twice (assistant error message + is_error result), emitted once, never as text
    assert kinds(chunks) == ["system", "error"]
    error = chunks[-1]
    assert error.is_error
    assert error.content == events[-1]["result"]
    assert error.metadata.get("status") == status
    assert error.metadata["code"] == code
    assert error.metadata["type"] == "success"  # the CLI's own subtype, kept verbatim
    exc = ClaudeCodeEndpoint().stream_error(error)
    assert isinstance(exc, family)
    assert isinstance(exc, ProviderStreamError)


@pytest.mark.parametrize("name", ["stream-error", "server-down"])
def test_unclassified_failures_are_still_stream_errors(name: str) -> None:
    chunks = replay(capture(name))
    assert kinds(chunks) == ["system", "error"]
    exc = ClaudeCodeEndpoint().stream_error(chunks[-1])
    assert isinstance(exc, ProviderStreamError)
    assert "API Error" in str(exc)


def test_resume_captures_share_the_session_id() -> None:
    first, second = replay(capture("resume-1")), replay(capture("resume-2"))
    assert first[0].metadata["session_id"] == second[0].metadata["session_id"]
    assert second[-1].metadata["session_id"] == first[0].metadata["session_id"]


# -- documented grammar beyond the captures ------------------------------------------------------


def _assistant(*blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "assistant", "message": {"content": list(blocks)}, **extra}


def _result(**extra: Any) -> dict[str, Any]:
    return {"type": "result", "subtype": "success", "is_error": False, **extra}


@pytest.mark.parametrize("subtype", sorted(SYSTEM_TELEMETRY))
def test_system_telemetry_subtypes_are_never_errors_or_content(subtype: str) -> None:
    assert ClaudeEventMapper().feed({"type": "system", "subtype": subtype, "x": 1}) == []


@pytest.mark.parametrize("kind", sorted(TOP_LEVEL_TELEMETRY))
def test_top_level_telemetry_is_dropped(kind: str) -> None:
    assert ClaudeEventMapper().feed({"type": kind, "event": {"type": "message_start"}}) == []


def test_api_retry_is_a_retry_notice_not_a_failure() -> None:
    chunks = replay(
        [
            {"type": "system", "subtype": "api_retry", "attempt": 1, "error": "overloaded"},
            _assistant({"type": "text", "text": "fine"}),
            _result(result="fine"),
        ]
    )
    assert kinds(chunks) == ["system", "text", "result"]
    assert chunks[0].metadata["retry_notice"] == "overloaded"
    assert chunks[0].metadata["attempt"] == 1


def test_unknown_system_subtype_is_a_protocol_error() -> None:
    with pytest.raises(ProviderProtocolError, match="subtype 'brand_new'"):
        ClaudeEventMapper().feed({"type": "system", "subtype": "brand_new", "text": "?"})


@pytest.mark.parametrize(
    "event",
    [
        {"type": "brand_new_event", "text": "hidden answer"},
        _assistant({"type": "citation_block", "text": "hidden"}),
        {"type": "user", "message": {"content": [{"type": "mystery", "x": 1}]}},
        {"type": "assistant", "message": {"content": "not a block list"}},
        _assistant({"type": "text", "text": 3}),
    ],
)
def test_unknown_content_bearing_events_are_protocol_errors(event: dict[str, Any]) -> None:
    with pytest.raises(ProviderProtocolError):
        ClaudeEventMapper().feed(event)


def test_is_error_true_with_subtype_success_is_a_failure_even_without_assistant_error() -> None:
    chunks = replay([_result(is_error=True, result="Not logged in · Please run /login")])
    assert kinds(chunks) == ["error"]
    assert isinstance(ClaudeCodeEndpoint().stream_error(chunks[0]), ProviderAuthError)


@pytest.mark.parametrize(
    "subtype", ["error_max_turns", "error_during_execution", "error_max_budget_usd"]
)
def test_error_subtypes_are_failures_with_their_errors_text(subtype: str) -> None:
    chunks = replay(
        [
            _assistant({"type": "text", "text": "partial work"}),
            {"type": "result", "subtype": subtype, "is_error": True, "errors": ["limit hit"]},
        ]
    )
    assert kinds(chunks) == ["text", "error"]
    assert chunks[-1].content == "limit hit"
    assert chunks[-1].metadata["type"] == subtype


@pytest.mark.parametrize("extra", [{}, {"errors": ["Reached maximum number of turns (3)"]}])
def test_a_run_stopped_at_max_turns_is_the_turn_limit_family(extra: dict[str, Any]) -> None:
    # The same request stops at the same limit: never retried, never counted as ill health.
    event = {"type": "result", "subtype": "error_max_turns", "is_error": True, **extra}
    (chunk,) = replay([event])
    error = ClaudeCodeEndpoint().stream_error(chunk)
    assert isinstance(error, ProviderStreamTurnLimitError)
    assert isinstance(error, ProviderTurnLimitError)
    assert error.retryable is False
    other = {"type": "result", "subtype": "error_during_execution", "is_error": True}
    assert not isinstance(
        ClaudeCodeEndpoint().stream_error(replay([other])[0]), ProviderTurnLimitError
    )


def test_assistant_error_without_result_is_emitted_once_at_end_of_stream() -> None:
    chunks = replay([_assistant({"type": "text", "text": "Rate limited"}, error="rate_limit")])
    assert kinds(chunks) == ["error"]
    assert isinstance(ClaudeCodeEndpoint().stream_error(chunks[0]), ProviderQuotaError)


def test_result_text_not_streamed_before_is_kept() -> None:
    chunks = replay([_result(result="only here")])
    assert kinds(chunks) == ["result"]
    assert chunks[0].content == "only here"


def test_tool_result_block_lists_and_subagent_parent() -> None:
    event = {
        "type": "user",
        "parent_tool_use_id": "toolu_parent",
        "message": {
            "content": [
                {"type": "text", "text": "the subagent prompt, echoed"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                },
            ]
        },
    }
    (chunk,) = ClaudeEventMapper().feed(event)
    assert chunk.type == "tool_result"
    assert chunk.tool_output == "a\nb"
    assert chunk.metadata["parent_tool_use_id"] == "toolu_parent"


def test_server_tool_blocks_and_redacted_thinking() -> None:
    chunks = ClaudeEventMapper().feed(
        _assistant(
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"q": "x"}},
            {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": []},
        )
    )
    assert kinds(chunks) == ["tool_use", "tool_result"]
    assert chunks[0].metadata["block_type"] == "server_tool_use"
    assert chunks[1].tool_id == "srv_1"


def test_user_string_content_and_auth_status_without_error_are_not_output() -> None:
    mapper = ClaudeEventMapper()
    assert mapper.feed({"type": "user", "message": {"role": "user", "content": "hi"}}) == []
    assert mapper.feed({"type": "auth_status", "isAuthenticating": True, "output": []}) == []
    assert mapper.feed(_result()) == []  # held: a later turn's result may follow (2.1.332)
    assert kinds(mapper.finish()) == ["result"]  # no failure was held for the result
    assert mapper.finish() == []


def test_events_without_a_result_are_a_protocol_error_at_end_of_stream() -> None:
    mapper = ClaudeEventMapper()
    mapper.feed({"type": "system", "subtype": "init", "session_id": "s", "model": "m"})
    mapper.feed(_assistant({"type": "text", "text": "half an ans"}))
    with pytest.raises(ProviderProtocolError, match=r"claude: .*without a result event"):
        mapper.finish()


def test_telemetry_alone_without_a_result_ends_empty() -> None:
    """No semantic output and no error: ADR-0030's normal empty EOF, not a cut-off answer."""
    mapper = ClaudeEventMapper()
    assert mapper.feed({"type": "system", "subtype": "thinking_tokens"}) == []
    assert mapper.finish() == []


def test_a_stream_without_events_ends_empty() -> None:
    assert ClaudeEventMapper().finish() == []


def test_auth_status_error_is_one_error_at_the_result() -> None:
    chunks = replay(
        [
            {"type": "auth_status", "error": "OAuth token has expired"},
            _result(is_error=True, result="OAuth token has expired"),
        ]
    )
    assert kinds(chunks) == ["error"]
    assert isinstance(ClaudeCodeEndpoint().stream_error(chunks[0]), ProviderAuthError)


def test_local_command_output_is_text() -> None:
    chunks = ClaudeEventMapper().feed(
        {"type": "system", "subtype": "local_command_output", "content": "Total cost: $0"}
    )
    assert kinds(chunks) == ["text"]


@pytest.mark.parametrize("name", ["401", "nokey", "quota", "overloaded", "context"])
def test_mapper_itself_yields_one_error_for_a_failure_reported_twice(name: str) -> None:
    """Without the endpoint stopping at the first error, the mapper still yields exactly one."""
    mapper = ClaudeEventMapper()
    chunks = [chunk for event in capture(name) for chunk in mapper.feed(event)]
    chunks += mapper.finish()
    assert [c.type for c in chunks].count("error") == 1
    assert chunks[-1].type == "error"
    assert mapper.finished

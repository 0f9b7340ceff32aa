"""Claude Code 2.1.332's stream-json (``captures/2.1.332``) through the mapper and through core.

2.1.332 (npm latest; declares Node >= 22, ships a native binary) kept 2.1.197's event grammar
for text, thinking, tools and failures, adding only fields the mapper does not read. Two things
are new, both reached by any run that uses the ``Agent`` tool, which now runs in the background
by default:

- ``system/background_tasks_changed``, a snapshot of the running background tasks: it ended
  such a run as an unknown subtype (``ProviderProtocolError``).
- one ``result`` per turn: the answer to the prompt (``result_index`` 0), then one for each turn
  a finished task's notification started (``origin.kind: "task-notification"``), all printed
  after the last content. Two result chunks break the core contract ("more than one result
  chunk"); they are folded into one at end of stream.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_captures import capture as _capture
from claude_captures import replay

from lionagi.providers.claude_code import ClaudeCodeEndpoint, ClaudeEventMapper
from lionagi.service import (
    EventStatus,
    ProviderAuthError,
    ProviderCapacityError,
    ProviderContextError,
    ProviderQuotaSpentError,
    ProviderStreamError,
    StreamChunk,
    iModel,
)
from lionagi.service_testing.conformance import replay_argv

VERSION = "2.1.332"


def capture(name: str) -> list[dict[str, Any]]:
    """A 2.1.332 recording's events."""
    return _capture(name, VERSION)


def kinds(chunks: list[StreamChunk]) -> list[str]:
    return [c.type for c in chunks]


def results(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "result"]


# -- the grammar 2.1.197 already had --------------------------------------------------------------


def test_text_capture_maps_as_in_2_1_197() -> None:
    events = capture("text")
    chunks = replay(events)
    assert kinds(chunks) == ["system", "text", "result"]
    init, text, result = chunks
    assert init.metadata["cli_version"] == "2.1.332"
    assert text.content == "Hello from the fake server."
    assert result.content is None
    assert result.metadata["usage"]["output_tokens"] == 7
    assert result.metadata["num_turns"] == 1
    assert "followup_results" not in result.metadata  # one result: nothing folded
    assert results(events)[0]["result_index"] == 0


def test_thinking_and_tool_capture_maps_as_in_2_1_197() -> None:
    chunks = replay(capture("thinking-tool"))
    assert kinds(chunks) == ["system", "thinking", "tool_use", "tool_result", "text", "result"]
    use, result = chunks[2], chunks[3]
    assert use.tool_name == "Bash"
    assert use.tool_id == result.tool_id
    assert result.tool_output == "fake-tool-ran"


@pytest.mark.parametrize(
    ("name", "family", "code"),
    [
        ("401", ProviderAuthError, "authentication_failed"),
        ("nokey", ProviderAuthError, "authentication_failed"),
        ("overloaded", ProviderCapacityError, "server_error"),
        ("quota", ProviderQuotaSpentError, "billing_error"),
        ("context", ProviderContextError, "invalid_request"),
        ("stream-error", ProviderStreamError, "server_error"),
        # 2.1.332 words it "Connection refused — a firewall or proxy may be blocking it
        # (ECONNREFUSED)" (2.1.197: "Unable to connect to API (ConnectionRefused)").
        ("server-down", ProviderStreamError, "server_error"),
    ],
)
def test_failure_captures_classify_as_in_2_1_197(
    name: str, family: type[Exception], code: str
) -> None:
    events = capture(name)
    chunks = replay(events)
    assert kinds(chunks) == ["system", "error"]
    assert chunks[-1].content == events[-1]["result"]
    assert chunks[-1].metadata["code"] == code
    error = ClaudeCodeEndpoint().stream_error(chunks[-1])
    assert isinstance(error, family)
    assert isinstance(error, ProviderStreamError)


def test_foreground_subagent_capture_maps_as_in_2_1_197() -> None:
    # CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1: the Agent tool runs in the foreground, one result.
    chunks = replay(capture("subagent-foreground"))
    assert kinds(chunks) == [
        "system", "tool_use", "tool_use", "tool_result", "tool_result", "text", "result",
    ]  # fmt: skip
    outer, inner = chunks[1], chunks[2]
    assert inner.metadata["parent_tool_use_id"] == outer.tool_id


# -- what is new in 2.1.332 ------------------------------------------------------------------------


def test_background_tasks_changed_is_telemetry() -> None:
    events = capture("subagent-background")
    changed = [e for e in events if e.get("subtype") == "background_tasks_changed"]
    assert changed[0]["tasks"]  # recorded: the task list, then empty
    assert changed[-1]["tasks"] == []
    assert [ClaudeEventMapper().feed(event) for event in changed] == [[] for _ in changed]


def test_background_subagent_run_is_one_result_with_every_turn_counted() -> None:
    events = capture("subagent-background")
    first, notified = results(events)
    assert "origin" not in first
    assert notified["origin"]["kind"] == "task-notification"
    chunks = replay(events)
    assert kinds(chunks) == [
        "system", "tool_use", "tool_result", "text",  # Agent launched in the background
        "tool_use", "tool_result", "text",  # the subagent's own work (parent_tool_use_id)
        "system", "text",  # the turn the task's notification started
        "result",
    ]  # fmt: skip
    assert chunks[-2].content == "Hello from the fake server."
    result = chunks[-1]
    assert result.content is None  # both results' texts were streamed
    meta = result.metadata
    # the turns' own counts add up; the session-wide figures are the latest result's
    assert meta["usage"]["input_tokens"] == (
        first["usage"]["input_tokens"] + notified["usage"]["input_tokens"]
    )
    assert meta["usage"]["output_tokens_details"]["thinking_tokens"] == 0
    assert meta["usage"]["service_tier"] == "standard"
    assert meta["num_turns"] == first["num_turns"] + notified["num_turns"]
    assert meta["duration_ms"] == first["duration_ms"] + notified["duration_ms"]
    assert meta["total_cost_usd"] == notified["total_cost_usd"]
    assert meta["model_usage"] == notified["modelUsage"]
    assert meta["session_id"] == first["session_id"]
    (followup,) = meta["followup_results"]
    assert followup["origin"] == notified["origin"]
    assert followup["usage"] == notified["usage"]
    tool_ids = {c.tool_id for c in chunks if c.type == "tool_use"}
    assert {c.tool_id for c in chunks if c.type == "tool_result"} == tool_ids


async def test_background_subagent_run_completes_through_core(tmp_path: Path) -> None:
    """Through core's run loop and contract check, where a second result chunk is refused."""
    plan = tmp_path / "plan.json"
    events = capture("subagent-background")
    plan.write_text(json.dumps({"events": events, "exit_code": 0}), encoding="utf-8")
    async with iModel(endpoint=ClaudeCodeEndpoint(argv=replay_argv(plan))) as model:
        call = await model.invoke(prompt="delegate")
        chunks = [chunk async for chunk in model.stream(prompt="delegate")]
    assert call.status is EventStatus.COMPLETED, repr(call.execution.error)
    response = call.execution.response
    assert response["result"].endswith("Hello from the fake server.")
    assert response["usage"]["input_tokens"] == sum(
        e["usage"]["input_tokens"] for e in results(events)
    )
    assert kinds(chunks).count("result") == 1
    assert kinds(chunks)[-1] == "result"


# -- the folding rules beyond the captures ------------------------------------------------------


def _text(value: str) -> dict[str, Any]:
    return {"type": "assistant", "message": {"content": [{"type": "text", "text": value}]}}


def _result(**extra: Any) -> dict[str, Any]:
    return {"type": "result", "subtype": "success", "is_error": False, **extra}


NOTIFIED = {"kind": "task-notification"}


def test_a_result_text_never_streamed_is_kept_from_every_turn() -> None:
    chunks = replay(
        [
            _text("streamed"),
            _result(result="first only here"),
            _result(result="streamed", origin=NOTIFIED),
            _result(result="third only here", origin=NOTIFIED),
        ]
    )
    assert kinds(chunks) == ["text", "result"]
    assert chunks[-1].content == "first only here\n\nthird only here"


def test_usage_counts_add_and_other_values_keep_the_first() -> None:
    first = {"input_tokens": 3, "service_tier": "standard", "iterations": [1], "n": {"a": 1}}
    later = {"input_tokens": 4, "service_tier": "priority", "iterations": [2], "n": {"b": 2}}
    (chunk,) = replay(
        [
            _result(usage=first, num_turns=1, total_cost_usd=0.1),
            _result(usage=later, num_turns=2, total_cost_usd=0.3, origin=NOTIFIED),
        ]
    )
    assert chunk.metadata["usage"] == {
        "input_tokens": 7,
        "service_tier": "standard",
        "iterations": [1],
        "n": {"a": 1, "b": 2},
    }
    assert chunk.metadata["num_turns"] == 3
    assert chunk.metadata["total_cost_usd"] == 0.3


def test_permission_denials_of_every_turn_are_kept() -> None:
    (chunk,) = replay(
        [
            _result(permission_denials=[{"tool_name": "Bash"}]),
            _result(permission_denials=[{"tool_name": "Write"}], origin=NOTIFIED),
        ]
    )
    assert chunk.metadata["permission_denials"] == [{"tool_name": "Bash"}, {"tool_name": "Write"}]


def test_a_failing_later_turn_fails_the_run_once() -> None:
    chunks = replay(
        [
            _text("answer"),
            _result(result="answer"),
            _text("Rate limited"),
            {"type": "result", "subtype": "error_during_execution", "is_error": True},
        ]
    )
    assert kinds(chunks) == ["text", "text", "error"]


def test_a_failure_after_the_last_result_wins_at_end_of_stream() -> None:
    error = {
        "type": "assistant",
        "error": "rate_limit",
        "message": {"content": [{"type": "text", "text": "Rate limited"}]},
    }
    chunks = replay([_text("answer"), _result(result="answer"), error])
    assert kinds(chunks) == ["text", "error"]
    assert chunks[-1].content == "Rate limited"


def test_a_failure_a_later_result_recovered_from_stays_visible() -> None:
    error = {
        "type": "assistant",
        "error": "server_error",
        "message": {"content": [{"type": "text", "text": "API Error: 500"}]},
    }
    chunks = replay([_result(result="a"), error, _result(result="a", origin=NOTIFIED)])
    assert kinds(chunks) == ["result"]
    assert chunks[0].metadata["reported_error"] == "API Error: 500"


def test_messages_after_the_held_result_still_come_before_it() -> None:
    # The core contract: nothing after the result chunk, whatever order the CLI prints.
    chunks = replay([_result(result="a"), _text("late"), _result(result="late", origin=NOTIFIED)])
    assert kinds(chunks) == ["text", "result"]

"""pi's json-mode events to chunks: every event in the real captures and in pi's grammar."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.pi._events import TELEMETRY_EVENTS, PiEventProjector
from lionagi.service import ProviderProtocolError, StreamChunk

CAPTURES = Path(__file__).resolve().parent / "captures"


def capture(name: str) -> list[dict[str, Any]]:
    """Real pi 0.73.1 output (``captures/<name>.jsonl``), recorded against the fake server."""
    lines = (CAPTURES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


AGENT_END: dict[str, Any] = {"type": "agent_end", "messages": []}
_LOOP_EVENTS = frozenset({"agent_start", "agent_end", "auto_retry_start"})


def project(events: list[dict[str, Any]]) -> list[StreamChunk]:
    """A whole run: grammar fragments get the ``agent_end`` a finished run ends its loop with."""
    loops = [e["type"] for e in events if e.get("type") in _LOOP_EVENTS]
    if not loops or loops[-1] != "agent_end":
        events = [*events, AGENT_END]
    projector = PiEventProjector()
    out: list[StreamChunk] = []
    for event in events:
        out += projector.feed(event)
    return out + projector.finish()


def kinds(chunks: list[StreamChunk]) -> list[str]:
    return [c.type for c in chunks]


def assistant(content: list[dict[str, Any]], stop: str = "stop", **extra: Any) -> dict[str, Any]:
    usage = {"input": 2, "output": 3, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 5}
    usage["cost"] = {"total": 0.25}
    return {
        "role": "assistant",
        "content": content,
        "model": "m1",
        "usage": usage,
        "stopReason": stop,
        **extra,
    }


def update(sub: str, index: int | None = None, **fields: Any) -> dict[str, Any]:
    inner: dict[str, Any] = {"type": sub, **fields}
    if index is not None:
        inner["contentIndex"] = index
    return {"type": "message_update", "assistantMessageEvent": inner, "message": assistant([])}


# -- the real captures ----------------------------------------------------------------------------


def test_text_capture_streams_deltas_and_one_result_with_usage() -> None:
    chunks = project(capture("text"))
    assert kinds(chunks)[0] == "system"
    assert chunks[0].metadata["provider_session_id"]
    assert "session_id" not in chunks[0].metadata
    texts = [c for c in chunks if c.type == "text"]
    assert "".join(c.content or "" for c in texts) == "Hello from the fake server."
    assert [c.is_delta for c in texts] == [False] + [True] * (len(texts) - 1)
    (result,) = [c for c in chunks if c.type == "result"]
    assert result is chunks[-1]
    assert result.content is None  # pi repeats nothing; the text was streamed
    assert result.metadata["usage"]["input"] == 42
    assert result.metadata["usage"]["output"] == 7
    assert result.metadata["model"] == "fake-model"
    assert result.metadata["num_turns"] == 1


def test_a_saved_run_publishes_the_resumable_session_id() -> None:
    projector = PiEventProjector(resumable=True)
    chunks = [c for e in capture("text") for c in projector.feed(e)] + projector.finish()
    sid = chunks[0].metadata["session_id"]
    assert sid
    assert chunks[-1].metadata["session_id"] == sid
    assert all("provider_session_id" not in c.metadata for c in chunks)


def test_thinking_tool_capture_pairs_the_tool_by_id_and_keeps_blocks_apart() -> None:
    chunks = project(capture("thinking-tool"))
    sequence = [k for k in kinds(chunks) if k != "system"]
    assert sequence[0] == "thinking"
    use = next(c for c in chunks if c.type == "tool_use")
    result = next(c for c in chunks if c.type == "tool_result")
    assert sequence.index("tool_use") < sequence.index("tool_result")
    assert use.tool_name == "bash"
    assert use.tool_input == {"command": "echo fake-tool-ran"}
    assert use.tool_id
    assert result.tool_id == use.tool_id
    assert result.tool_output == "fake-tool-ran\n"
    assert result.is_error is False
    thinking = "".join(c.content or "" for c in chunks if c.type == "thinking")
    assert thinking == "Pondering the fake request."
    text = "".join(c.content or "" for c in chunks if c.type == "text")
    assert text == "Tool said: fake-tool-ran. Done."
    final = chunks[-1]
    assert final.type == "result"
    assert final.metadata["num_turns"] == 2
    assert final.metadata["usage"]["totalTokens"] == 98  # summed over both assistant messages


@pytest.mark.parametrize(
    ("name", "status", "needle"),
    [
        ("401", 401, "Incorrect API key"),
        ("429", 429, "Rate limit reached"),
        ("context_length", 400, "maximum context length"),
        ("server-down", None, "Connection error."),
        ("retry-503", 503, "overloaded"),
    ],
)
def test_failure_captures_give_exactly_one_error_chunk_last(
    name: str, status: int | None, needle: str
) -> None:
    # pi reports each failure four or five times and exits 0; the adapter says it once.
    chunks = project(capture(name))
    errors = [c for c in chunks if c.type == "error"]
    assert len(errors) == 1
    assert chunks[-1] is errors[0]
    assert errors[0].is_error
    assert needle in (errors[0].content or "")
    assert errors[0].metadata.get("status") == status
    assert "result" not in kinds(chunks)


def test_retry_capture_publishes_the_notice_as_system_metadata() -> None:
    chunks = project(capture("retry-503"))
    notices = [c for c in chunks if c.type == "system" and "retry_notice" in c.metadata]
    assert len(notices) == 1
    assert notices[0].content is None
    assert notices[0].metadata["attempt"] == 1


# -- the documented grammar -----------------------------------------------------------------------


def test_telemetry_allowlist_is_explicit() -> None:
    assert (
        frozenset(
            {
                "turn_end",
                "queue_update",
                "session_info_changed",
                "thinking_level_changed",
                "compaction_start",
                "tool_execution_update",
            }
        )
        == TELEMETRY_EVENTS
    )
    projector = PiEventProjector()
    for kind in sorted(TELEMETRY_EVENTS):
        assert projector.feed({"type": kind, "message": assistant([])}) == []


def test_unknown_event_type_is_a_protocol_error() -> None:
    with pytest.raises(ProviderProtocolError, match="unknown event type 'answer'"):
        PiEventProjector().feed({"type": "answer", "text": "hidden"})


def test_unknown_assistant_sub_event_and_role_are_protocol_errors() -> None:
    with pytest.raises(ProviderProtocolError, match="unknown assistant message event"):
        PiEventProjector().feed(update("image_delta", 0, delta="x"))
    with pytest.raises(ProviderProtocolError, match="unknown message role"):
        PiEventProjector().feed({"type": "message_end", "message": {"role": "oracle"}})
    with pytest.raises(ProviderProtocolError, match="without a string 'type'"):
        PiEventProjector().feed({"kind": "text"})


def test_interleaved_text_blocks_are_keyed_by_content_index() -> None:
    events = [
        {"type": "message_start", "message": assistant([])},
        update("text_start", 0),
        update("text_delta", 0, delta="alpha "),
        update("text_start", 2),
        update("text_delta", 2, delta="gamma "),  # arrives while block 0 streams
        update("text_delta", 0, delta="beta"),
        update("text_end", 0, content="alpha beta"),
        update("text_delta", 2, delta="delta"),
        update("text_end", 2, content="gamma delta"),
        {"type": "message_end", "message": assistant([])},
    ]
    chunks = [c for c in project(events) if c.type == "text"]
    assert [(c.content, c.is_delta, c.metadata["content_index"]) for c in chunks] == [
        ("alpha ", False, 0),
        ("beta", True, 0),
        ("gamma delta", False, 2),
    ]


def test_a_held_block_that_streams_later_flushes_its_buffer_first() -> None:
    events = [
        update("thinking_start", 0),
        update("thinking_delta", 0, delta="hmm"),
        update("text_start", 1),
        update("text_delta", 1, delta="Hel"),
        update("thinking_end", 0, content="hmm"),
        update("text_delta", 1, delta="lo"),
        update("text_end", 1, content="Hello"),
    ]
    projector = PiEventProjector()
    out = [c for e in events for c in projector.feed(e)]
    assert [(c.type, c.content) for c in out] == [("thinking", "hmm"), ("text", "Hello")]


def test_unstreamed_message_content_is_emitted_at_message_end() -> None:
    message = assistant(
        [
            {"type": "thinking", "thinking": "quiet"},
            {"type": "text", "text": "whole answer"},
            {"type": "toolCall", "id": "t9", "name": "read", "arguments": {"path": "a"}},
        ],
        stop="toolUse",
    )
    events = [
        {"type": "message_start", "message": message},
        {"type": "message_end", "message": message},
    ]
    chunks = project(events)
    assert [(c.type, c.content or c.tool_id) for c in chunks] == [
        ("thinking", "quiet"),
        ("text", "whole answer"),
        ("tool_use", "t9"),
        ("result", None),
    ]


def test_tool_execution_without_toolcall_end_still_announces_the_tool_once() -> None:
    events = [
        {"type": "tool_execution_start", "toolCallId": "x1", "toolName": "bash", "args": {}},
        {"type": "tool_execution_start", "toolCallId": "x1", "toolName": "bash", "args": {}},
        {
            "type": "tool_execution_end",
            "toolCallId": "x1",
            "toolName": "bash",
            "result": {"content": [{"type": "text", "text": "boom"}]},
            "isError": True,
        },
    ]
    chunks = project(events)
    assert kinds(chunks) == ["tool_use", "tool_result"]
    assert chunks[1].is_error is True
    assert chunks[1].tool_output == "boom"


def test_stop_reason_error_then_a_successful_retry_completes() -> None:
    failed = assistant([], stop="error", errorMessage="503 overloaded")
    ok = assistant([{"type": "text", "text": "second try"}])
    events = [
        {"type": "message_end", "message": failed},
        {"type": "agent_end", "messages": []},
        {
            "type": "auto_retry_start",
            "attempt": 1,
            "maxAttempts": 3,
            "delayMs": 10,
            "errorMessage": "503 overloaded",
        },
        {"type": "message_end", "message": ok},
        {"type": "auto_retry_end", "success": True, "attempt": 1},
        {"type": "agent_end", "messages": []},
    ]
    chunks = project(events)
    assert "error" not in kinds(chunks)
    assert [c.content for c in chunks if c.type == "text"] == ["second try"]
    assert chunks[-1].type == "result"
    assert any(c.metadata.get("retry_recovered") == 1 for c in chunks if c.type == "system")


def test_retry_end_failure_and_aborted_stop_are_errors() -> None:
    retry_end = {"type": "auto_retry_end", "success": False, "attempt": 3, "finalError": "gave up"}
    chunks = project([retry_end])
    assert kinds(chunks) == ["error"]
    assert chunks[0].content == "gave up"
    aborted = assistant([], stop="aborted")
    chunks = project([{"type": "message_end", "message": aborted}])
    assert kinds(chunks) == ["error"]
    assert "aborted" in (chunks[0].content or "")


def test_compaction_and_context_messages_are_metadata() -> None:
    chunks = project(
        [
            {
                "type": "compaction_end",
                "reason": "overflow",
                "result": None,
                "aborted": False,
                "willRetry": True,
            },
            {"type": "message_end", "message": {"role": "compactionSummary", "summary": "s"}},
            {"type": "message_start", "message": {"role": "custom", "content": "x"}},
        ]
    )
    assert kinds(chunks) == ["system", "system"]
    assert all(c.content is None for c in chunks)


def test_empty_run_yields_no_result() -> None:
    events = [
        {"type": "session", "id": "s1", "cwd": "/w"},
        {"type": "agent_start"},
        {"type": "agent_end", "messages": []},
    ]
    assert kinds(project(events)) == ["system"]


def test_content_index_kind_change_is_a_protocol_error() -> None:
    projector = PiEventProjector()
    projector.feed(update("text_start", 0))
    with pytest.raises(ProviderProtocolError, match="changed from text to thinking"):
        projector.feed(update("thinking_delta", 0, delta="x"))


# -- a run cut short ------------------------------------------------------------------------------

ANSWER = {"type": "message_end", "message": assistant([{"type": "text", "text": "half an ans"}])}


def fed(events: list[dict[str, Any]]) -> PiEventProjector:
    projector = PiEventProjector()
    for event in events:
        projector.feed(event)
    return projector


def test_an_answer_whose_loop_never_ended_is_a_protocol_error() -> None:
    projector = fed([{"type": "agent_start"}, ANSWER])
    with pytest.raises(ProviderProtocolError, match="without an agent_end event"):
        projector.finish()


def test_a_retry_that_never_ended_is_cut_short_too() -> None:
    retry = {"type": "auto_retry_start", "attempt": 1, "errorMessage": "503"}
    projector = fed([{"type": "agent_start"}, ANSWER, AGENT_END, retry, ANSWER])
    with pytest.raises(ProviderProtocolError, match="without an agent_end event"):
        projector.finish()
    projector = fed([{"type": "agent_start"}, ANSWER, AGENT_END, {"type": "agent_start"}])
    with pytest.raises(ProviderProtocolError, match="without an agent_end event"):
        projector.finish()


def test_a_noted_failure_stays_the_one_error_when_the_loop_never_ended() -> None:
    failed = assistant([], stop="error", errorMessage="401 Incorrect API key provided")
    projector = fed([{"type": "agent_start"}, {"type": "message_end", "message": failed}])
    assert kinds(projector.finish()) == ["error"]


def test_a_run_without_an_answer_still_ends_empty_without_agent_end() -> None:
    projector = fed([{"type": "session", "id": "s1", "cwd": "/w"}, {"type": "agent_start"}])
    assert projector.finish() == []

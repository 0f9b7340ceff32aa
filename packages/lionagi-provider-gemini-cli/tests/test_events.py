"""Gemini stream-json events -> chunks: every captured event type and the documented grammar."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.gemini_cli import IGNORED_EVENTS, GeminiCodeEndpoint, GeminiEventProjector
from lionagi.service import (
    ProviderConnectionError,
    ProviderProtocolError,
    ProviderStreamAuthError,
    ProviderStreamError,
    ProviderStreamQuotaError,
    StreamChunk,
    classify_stream_error,
)

CAPTURES = Path(__file__).parent / "captures"


def replay(name: str) -> list[StreamChunk]:
    projector = GeminiEventProjector()
    chunks = []
    for line in (CAPTURES / name).read_text(encoding="utf-8").splitlines():
        chunks.extend(projector.project(json.loads(line)))
    return chunks


def project_all(*events: dict[str, Any]) -> list[StreamChunk]:
    projector = GeminiEventProjector()
    return [c for e in events for c in projector.project(e)]


def classified(chunk: StreamChunk) -> ProviderStreamError:
    return classify_stream_error(
        chunk.content, chunk.metadata, extra_patterns=GeminiCodeEndpoint.error_patterns
    )


def test_text_capture() -> None:
    chunks = replay("gemini-fake-text.stdout")
    assert [c.type for c in chunks] == [
        "system",
        "text",
        "text",
        "text",
        "text",
        "system",
        "result",
    ]
    sid = "45a6b371-83ce-400f-a41c-4769a53b3a15"
    assert chunks[0].metadata == {"provider_session_id": sid, "model": "gemini-2.5-flash"}
    assert chunks[-2].metadata == {"session_id": sid}  # confirmed by the successful result
    assert "".join(c.content or "" for c in chunks[1:5]) == "Hello from the fake server."
    # The first delta of the answer starts a unit; the rest continue it.
    assert [c.is_delta for c in chunks[1:5]] == [False, True, True, True]
    result = chunks[-1]
    assert result.content is None  # the result never repeats the streamed text
    assert result.metadata["usage"] == {
        "input_tokens": 42,
        "output_tokens": 7,
        "total_tokens": 49,
        "cached_tokens": 0,
    }
    assert result.metadata["duration_ms"] == 51
    assert result.metadata["tool_calls"] == 0
    assert result.metadata["session_id"] == "45a6b371-83ce-400f-a41c-4769a53b3a15"


def test_tool_capture_pairs_use_and_result_by_id() -> None:
    chunks = replay("gemini-fake-tool.stdout")
    use, res = chunks[1], chunks[2]
    assert (use.type, res.type) == ("tool_use", "tool_result")
    assert use.tool_name == "run_shell_command"
    assert use.tool_id == res.tool_id == "run_shell_command__run_shell_command_1795986746481_0"
    assert use.tool_input == {"command": "echo fake-tool-ran", "description": "Run the fake tool"}
    assert res.tool_output == "fake-tool-ran"
    assert res.is_error is False
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["tool_calls"] == 1


def test_tool_capture_text_after_the_result_starts_a_new_unit() -> None:
    chunks = replay("gemini-fake-tool.stdout")
    text = [c for c in chunks if c.type == "text"]
    assert "".join(c.content or "" for c in text) == "Tool said: fake-tool-ran. Done."
    assert [c.is_delta for c in text] == [False, True, True, True, True]


def test_each_assistant_message_starts_a_unit_its_deltas_continue() -> None:
    # Gemini marks every assistant message a delta and sends no message boundary: a tool call
    # or tool result is where one message ends and the next begins.
    def say(text: str) -> dict[str, Any]:
        return {"type": "message", "role": "assistant", "content": text, "delta": True}

    chunks = project_all(
        {"type": "init", "session_id": "s", "model": "m"},
        {"type": "message", "role": "user", "content": "look"},
        say("I will "),
        say("check the files."),
        {"type": "tool_use", "tool_name": "ls", "tool_id": "t1", "parameters": {}},
        say("Running it."),
        {"type": "tool_result", "tool_id": "t1", "status": "success", "output": "a b"},
        {"type": "error", "severity": "warning", "message": "retrying"},
        say("There are "),
        {"type": "error", "severity": "warning", "message": "retrying"},
        say("two files."),
        {"type": "result", "status": "success", "stats": {}},
    )
    text = [(c.content, c.is_delta) for c in chunks if c.type == "text"]
    assert text == [
        ("I will ", False),
        ("check the files.", True),
        ("Running it.", False),  # text between a call and its result is a message too
        ("There are ", False),
        ("two files.", True),  # a notice between deltas does not split the message
    ]


def test_empty_delta_does_not_make_the_next_message_a_continuation() -> None:
    chunks = project_all(
        {"type": "tool_result", "tool_id": "t1", "status": "success", "output": ""},
        {"type": "message", "role": "assistant", "content": "", "delta": True},
        {"type": "message", "role": "assistant", "content": "Done.", "delta": True},
    )
    text = [(c.content, c.is_delta) for c in chunks if c.type == "text"]
    assert text == [("", False), ("Done.", False)]


def test_whole_message_is_its_own_unit_and_ends_the_streaming_one() -> None:
    chunks = project_all(
        {"type": "message", "role": "assistant", "content": "streamed", "delta": True},
        {"type": "message", "role": "assistant", "content": "whole"},
        {"type": "message", "role": "assistant", "content": "next", "delta": True},
        {"type": "message", "role": "assistant", "content": " part", "delta": True},
    )
    assert [c.is_delta for c in chunks] == [False, False, False, True]


def test_resume_captures_keep_the_session_id() -> None:
    first, second = replay("gemini-resume-1.stdout"), replay("gemini-resume-2.stdout")
    sid = "87fab7de-3cb7-46cb-bd20-c0c1726f2294"
    assert first[0].metadata["provider_session_id"] == sid
    assert second[0].metadata["provider_session_id"] == sid
    assert first[-2].metadata == second[-2].metadata == {"session_id": sid}
    assert second[-1].metadata["session_id"] == sid


def test_failed_run_never_confirms_its_session() -> None:
    # gemini saves no session for a turn that failed: resuming that id exits 42.
    chunks = replay("gemini-fake-401.stdout")
    assert not any("session_id" in c.metadata for c in chunks)


def test_401_capture_is_one_auth_error_chunk() -> None:
    chunks = replay("gemini-fake-401.stdout")
    assert [c.type for c in chunks] == ["system", "error"]
    assert chunks[0].metadata["provider_session_id"] == "cb4ea1e0-9e93-4003-8c8a-d7051def71b7"
    error = chunks[-1]
    assert error.is_error
    assert "API key not valid" in (error.content or "")
    assert error.metadata == {"type": "unknown", "status": 401, "code": "UNAUTHENTICATED"}
    exc = classified(error)
    assert isinstance(exc, ProviderStreamAuthError)
    assert exc.status == 401


def test_user_echo_is_the_telemetry_allowlist() -> None:
    assert frozenset({("message", "user")}) == IGNORED_EVENTS
    assert project_all({"type": "message", "role": "user", "content": "hi"}) == []


@pytest.mark.parametrize(
    "event",
    [
        {"type": "thinking", "content": "hmm"},
        {"type": "assistant", "message": {"content": "text"}},
        {"type": "message", "role": "model", "content": "text"},
        {"type": "message", "content": "no role"},
        {"type": "result", "status": "partial"},
        {"type": "error", "severity": "fatal", "message": "x"},
        {"type": "tool_result", "tool_id": "t", "status": "maybe"},
        {"type": "tool_use", "tool_id": "t"},
        {"type": "tool_use", "tool_name": "x", "tool_id": "t", "parameters": ["not", "a", "map"]},
        {"type": "init"},
        {"no_type": True},
    ],
)
def test_unknown_or_malformed_content_event_is_a_protocol_error(event: dict[str, Any]) -> None:
    with pytest.raises(ProviderProtocolError):
        GeminiEventProjector().project(event)


def test_content_after_the_result_is_a_protocol_error() -> None:
    projector = GeminiEventProjector()
    projector.project({"type": "result", "status": "success", "stats": {}})
    with pytest.raises(ProviderProtocolError, match="after the result"):
        projector.project({"type": "message", "role": "assistant", "content": "late"})


BLOCKED = "Agent execution blocked: the BeforeAgent hook refused the prompt"
"""A warning the CLI continues after (AgentExecutionBlocked), unlike loop detection."""


def test_warning_notice_is_metadata_not_failure() -> None:
    chunks = project_all(
        {"type": "error", "severity": "warning", "message": BLOCKED},
        {"type": "message", "role": "assistant", "content": "still fine", "delta": True},
        {"type": "result", "status": "success", "stats": {}},
    )
    assert [c.type for c in chunks] == ["system", "text", "result"]
    assert chunks[0].metadata == {"notice": BLOCKED, "severity": "warning"}
    assert not chunks[0].is_error


def test_error_notice_then_failed_result_is_one_error_with_the_notice_text() -> None:
    # Gemini's INVALID_STREAM path: an error event, then a result with status error, no error.
    chunks = project_all(
        {"type": "error", "severity": "error", "message": "Model stream ended with empty text."},
        {"type": "result", "status": "error", "stats": {}},
    )
    assert [c.type for c in chunks] == ["system", "error"]
    assert chunks[-1].content == "Model stream ended with empty text."
    assert sum(c.is_error for c in chunks) == 1


def test_error_notice_then_success_is_a_success() -> None:
    chunks = project_all(
        {"type": "error", "severity": "error", "message": "Maximum session turns exceeded"},
        {"type": "result", "status": "success", "stats": {}},
    )
    assert [c.type for c in chunks] == ["system", "result"]


def test_failed_tool_result_is_an_error_tool_result() -> None:
    chunks = project_all(
        {
            "type": "tool_result",
            "tool_id": "t1",
            "status": "error",
            "error": {"type": "TOOL_EXECUTION_ERROR", "message": "command failed"},
        }
    )
    assert chunks[0].type == "tool_result"
    assert chunks[0].is_error
    assert chunks[0].tool_output == "command failed"


def test_quota_result_carries_status_and_retry_after() -> None:
    body = {
        "error": {
            "code": 429,
            "message": "Resource has been exhausted (e.g. check quota).",
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}],
        }
    }
    chunks = project_all(
        {
            "type": "result",
            "status": "error",
            "error": {"type": "unknown", "message": f"[API Error: {json.dumps(body)}]"},
        }
    )
    error = chunks[0]
    assert error.metadata["status"] == 429
    assert error.metadata["retry_after"] == 7.0
    exc = classified(error)
    assert isinstance(exc, ProviderStreamQuotaError)
    assert exc.retry_after == 7.0


def test_real_429_capture_carries_the_suggested_retry_delay() -> None:
    # Gemini CLI 0.61 does not quote a 429's body: it reads RetryInfo itself and writes
    # "Suggested retry after 1s." into the message, so the delay is only in that text.
    chunks = replay("gemini-fake-429.stdout")
    error = chunks[-1]
    assert error.type == "error"
    assert "Suggested retry after 1s." in (error.content or "")
    assert error.metadata["retry_after"] == 1.0
    exc = classified(error)
    assert isinstance(exc, ProviderStreamQuotaError)
    assert exc.retry_after == 1.0


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("[API Error: Quota exceeded.\nSuggested retry after 13.5s.]", 13.5),
        ("[API Error: Quota exceeded.\nSuggested retry after 60s.]", 60.0),
        ("[API Error: Quota exceeded for metric x. Please retry in 250ms.]", 0.25),
    ],
)
def test_cli_worded_retry_delay_is_read(text: str, seconds: float) -> None:
    chunks = project_all(
        {"type": "result", "status": "error", "error": {"type": "unknown", "message": text}}
    )
    assert chunks[0].metadata["retry_after"] == seconds


def test_unreachable_api_is_a_connection_error() -> None:
    chunks = project_all(
        {
            "type": "result",
            "status": "error",
            "error": {
                "type": "unknown",
                "message": "[API Error: exception TypeError: fetch failed sending request]",
            },
        }
    )
    exc = classified(chunks[0])
    assert isinstance(exc, ProviderConnectionError)
    assert exc.retryable


def test_fatal_error_names_classify() -> None:
    chunks = project_all(
        {
            "type": "result",
            "status": "error",
            "error": {"type": "FatalAuthenticationError", "message": "Could not authenticate"},
        }
    )
    assert isinstance(classified(chunks[0]), ProviderStreamAuthError)

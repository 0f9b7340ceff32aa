"""A failure Claude Code labels `unknown` is named by the API's own `api_error_type`.

2.1.332 reports an `error` event the Messages API sent before any block of the answer finished
with `error: "unknown"` on its synthetic assistant message, while `api_error_type` (on that
message and on the result) carries the API's own type. For `api_error` ("Internal server
error", Anthropic's in-stream HTTP 500, no `api_error_status`) nothing else named the failure:
it was a plain `ProviderStreamError`, never retried, where the same fault reported as a 500
(`stream-error`, `server_error`) is the retryable `ProviderStreamServerError`.

Recorded from the real 2.1.332 (`captures/2.1.332/stream-error-after-start`,
`stream-overloaded-after-start`; see the README) against a loopback server that sends
`message_start` and then the `error` event, with the non-streaming retry off.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from claude_captures import capture, replay

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderStreamCapacityError,
    ProviderStreamServerError,
    iModel,
)
from lionagi.service.lifecycle import is_retryable
from lionagi.service_testing.conformance import replay_argv

VERSION = "2.1.332"
TEXT = "API Error: Internal server error"


def _without_assistant_error(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The run as a CLI that reports the failure on its result alone would print it."""
    return [e for e in events if not (e["type"] == "assistant" and "error" in e)]


def test_the_recorded_api_error_is_the_server_fault_twin() -> None:
    events = capture("stream-error-after-start", VERSION)
    assert [e.get("error") for e in events if e["type"] == "assistant"] == ["unknown"]
    chunks = replay(events)
    assert [c.type for c in chunks] == ["system", "error"]
    assert chunks[-1].content == TEXT  # the CLI's words, kept
    assert chunks[-1].metadata["code"] == "api_error"
    error = ClaudeCodeEndpoint().stream_error(chunks[-1])
    # The class a server fault the CLI labels `server_error` already raises (a 500).
    fault = ClaudeCodeEndpoint().stream_error(replay(capture("stream-error", VERSION))[-1])
    assert type(error) is type(fault) is ProviderStreamServerError, type(error)
    assert (error.kind, error.code) == ("server", "api_error")
    assert str(error) == TEXT
    assert is_retryable(error, AttemptPolicy())
    assert not is_retryable(error, AttemptPolicy(retry_server_errors=False))


def test_the_result_alone_names_the_failure_too() -> None:
    chunks = replay(_without_assistant_error(capture("stream-error-after-start", VERSION)))
    assert [c.type for c in chunks] == ["system", "error"]
    assert chunks[-1].content == TEXT
    error = ClaudeCodeEndpoint().stream_error(chunks[-1])
    assert type(error) is ProviderStreamServerError, type(error)
    assert error.code == "api_error"


def test_the_assistant_message_alone_names_it_too() -> None:
    # A stream that ends after the synthetic message, no result: its failure is the error.
    events = [e for e in capture("stream-error-after-start", VERSION) if e["type"] != "result"]
    chunks = replay(events)
    assert [c.type for c in chunks] == ["system", "error"]
    assert chunks[-1].content == TEXT
    error = ClaudeCodeEndpoint().stream_error(chunks[-1])
    assert type(error) is ProviderStreamServerError, type(error)
    assert error.code == "api_error"


def test_an_overloaded_event_keeps_its_family_and_gets_its_name() -> None:
    # `api_error_status` 529 already made it the capacity twin; the label said `unknown`.
    chunks = replay(capture("stream-overloaded-after-start", VERSION))
    assert chunks[-1].content == "API Error: Overloaded"
    assert chunks[-1].metadata["status"] == 529
    error = ClaudeCodeEndpoint().stream_error(chunks[-1])
    assert type(error) is ProviderStreamCapacityError, type(error)
    assert error.code == "overloaded_error"


async def test_the_call_fails_with_the_server_fault(tmp_path: Path) -> None:
    """Through core's run loop: the typed error reaches the caller (an agentic call runs once;
    `retryable` tells the caller a new call may succeed)."""
    plan = tmp_path / "plan.json"
    events = capture("stream-error-after-start", VERSION)
    plan.write_text(json.dumps({"events": events, "exit_code": 1}), encoding="utf-8")
    async with iModel(endpoint=ClaudeCodeEndpoint(argv=replay_argv(plan))) as model:
        call = await model.invoke(prompt="hi")
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderStreamServerError, repr(call.exception)
    assert call.exception.retryable is True
    assert TEXT in str(call.exception)

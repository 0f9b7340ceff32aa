"""The subprocess agentic conformance kit against ClaudeCodeEndpoint, in Claude's own grammar."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.service import ProviderStreamAuthError
from lionagi.service_testing.conformance import Scenario, SubprocessCliConformance

SESSION_ID = "5b1f3c7e-claude-conformance-session"


def init(session_id: str = SESSION_ID) -> dict[str, Any]:
    return {
        "type": "system",
        "subtype": "init",
        "session_id": session_id,
        "model": "claude-sonnet-4-6",
        "tools": ["Bash", "Read"],
        "permissionMode": "default",
        "claude_code_version": "2.1.197",
    }


def assistant(*blocks: dict[str, Any], error: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "assistant",
        "message": {"role": "assistant", "content": list(blocks)},
        "parent_tool_use_id": None,
        "session_id": SESSION_ID,
    }
    if error is not None:
        event["error"] = error
    return event


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_result(tool_id: str, content: Any, *, is_error: bool = False) -> dict[str, Any]:
    return {
        "type": "user",
        "message": {
            "role": "user",
            "content": [
                {
                    "tool_use_id": tool_id,
                    "type": "tool_result",
                    "content": content,
                    "is_error": is_error,
                }
            ],
        },
        "parent_tool_use_id": None,
        "session_id": SESSION_ID,
    }


def result(
    value: str | None = None, *, is_error: bool = False, subtype: str = "success", **extra: Any
) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "api_error_status": None,
        "duration_ms": 120,
        "duration_api_ms": 30,
        "num_turns": 1,
        "session_id": SESSION_ID,
        "total_cost_usd": 0.0004,
        "usage": {"input_tokens": 42, "output_tokens": 7},
    }
    if value is not None:
        event["result"] = value
    event.update(extra)
    return event


TELEMETRY = {"type": "system", "subtype": "thinking_tokens", "estimated_tokens": 4}

EVENTS: dict[Scenario, list[dict[str, Any]]] = {
    Scenario.TEXT: [
        init(),
        TELEMETRY,
        assistant(text("héllo → wörld ✓ from claude")),
        result("héllo → wörld ✓ from claude"),
    ],
    Scenario.TOOL: [
        init(),
        assistant(
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}
        ),
        tool_result("toolu_1", "README.md"),
        assistant(text("There is a README.")),
        result("There is a README."),
    ],
    Scenario.USAGE: [init(), assistant(text("counted")), result("counted")],
    Scenario.SESSION: [init(), assistant(text("resumable")), result("resumable")],
    Scenario.PROVIDER_ERROR: [
        init(),
        assistant(text("Invalid API key · Fix external API key"), error="authentication_failed"),
        result("Invalid API key · Fix external API key", is_error=True, api_error_status=401),
    ],
    Scenario.EMPTY: [TELEMETRY],
    Scenario.RESULT_REPEATS_TEXT: [
        init(),
        assistant(text("streamed once, ")),
        assistant(text("never twice")),
        result("streamed once, never twice"),
    ],
    Scenario.ERROR_MESSAGE: [
        init(),
        assistant(text("Not logged in · Please run /login"), error="authentication_failed"),
        result("Not logged in · Please run /login", is_error=True),
    ],
    Scenario.RETRY_NOTICE: [
        init(),
        {
            "type": "system",
            "subtype": "api_retry",
            "attempt": 1,
            "max_retries": 10,
            "retry_delay_ms": 500,
            "error_status": 529,
            "error": "overloaded_error",
        },
        assistant(text("answered after a retry")),
        result("answered after a retry"),
    ],
}


class TestClaudeCodeConformance(SubprocessCliConformance):
    provider_error_class = ProviderStreamAuthError  # the fixture's refused key (401)
    cli_endpoint_type = ClaudeCodeEndpoint
    resume_flag = "--resume"

    def cli_events(self, scenario: Scenario) -> Sequence[Mapping[str, Any]]:
        return EVENTS[scenario]

    def cli_exit_code(self, scenario: Scenario) -> int:
        # The real CLI exits 1 after an is_error result; success is judged by the result.
        return 1 if scenario in (Scenario.PROVIDER_ERROR, Scenario.ERROR_MESSAGE) else 0

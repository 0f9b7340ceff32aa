"""The agentic conformance kit against the pi adapter, replaying pi's own event grammar."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lionagi.providers.pi import PiCliEndpoint
from lionagi.service import ProviderStreamAuthError
from lionagi.service_testing.conformance import Scenario, SubprocessCliConformance

SESSION = {"type": "session", "version": 3, "id": "01a2-conformance", "cwd": "/w"}
RESUMABLE = {"type": "session", "version": 3, "id": "01a23124-e029-77ec-resumable", "cwd": "/w"}
USER = {"role": "user", "content": [{"type": "text", "text": "hello"}]}
USAGE = {
    "input": 11,
    "output": 4,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 15,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def message(content: list[dict[str, Any]], stop: str = "stop", **extra: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": "openai-completions",
        "provider": "fake",
        "model": "fake-model",
        "usage": USAGE,
        "stopReason": stop,
        **extra,
    }


def update(sub: str, index: int, **fields: Any) -> dict[str, Any]:
    return {
        "type": "message_update",
        "assistantMessageEvent": {"type": sub, "contentIndex": index, **fields},
        "message": message([]),
    }


def text_turn(*deltas: str) -> list[dict[str, Any]]:
    whole = "".join(deltas)
    final = message([{"type": "text", "text": whole}])
    return [
        {"type": "turn_start"},
        {"type": "message_start", "message": message([])},
        update("text_start", 0),
        *(update("text_delta", 0, delta=d) for d in deltas),
        update("text_end", 0, content=whole),
        {"type": "message_end", "message": final},
        {"type": "turn_end", "message": final, "toolResults": []},
    ]


def run(*turns: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        SESSION,
        {"type": "agent_start"},
        {"type": "message_start", "message": USER},
        {"type": "message_end", "message": USER},
        *turns,
        {"type": "agent_end", "messages": [USER]},
    ]


TOOL_CALL = {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "ls"}}
FAILED = message([], stop="error", errorMessage="401 Incorrect API key provided: sk-x.")
FLAGGED = message(
    [{"type": "text", "text": "No API key found for lionagi-gateway"}],
    stop="error",
    errorMessage="No API key found for lionagi-gateway",
)

EVENTS: dict[Scenario, list[dict[str, Any]]] = {
    Scenario.TEXT: run(*text_turn("héllo → wörld ✓ ", "from pi")),
    Scenario.TOOL: run(
        {"type": "turn_start"},
        {"type": "message_start", "message": message([])},
        update("toolcall_start", 0),
        update("toolcall_delta", 0, delta='{"command": "ls"}'),
        update("toolcall_end", 0, toolCall=TOOL_CALL),
        {"type": "message_end", "message": message([TOOL_CALL], stop="toolUse")},
        {
            "type": "tool_execution_start",
            "toolCallId": "call_1",
            "toolName": "bash",
            "args": {"command": "ls"},
        },
        {
            "type": "tool_execution_update",
            "toolCallId": "call_1",
            "toolName": "bash",
            "args": {},
            "partialResult": {"content": []},
        },
        {
            "type": "tool_execution_end",
            "toolCallId": "call_1",
            "toolName": "bash",
            "result": {"content": [{"type": "text", "text": "README.md\n"}]},
            "isError": False,
        },
        {"type": "message_end", "message": {"role": "toolResult", "toolCallId": "call_1"}},
        *text_turn("There is a README."),
    ),
    Scenario.USAGE: run(*text_turn("counted")),
    Scenario.PROVIDER_ERROR: run(
        *text_turn("working"),
        {"type": "turn_start"},
        {"type": "message_start", "message": FAILED},
        {"type": "message_end", "message": FAILED},
        {"type": "turn_end", "message": FAILED, "toolResults": []},
    ),
    Scenario.SESSION: [RESUMABLE, *run(*text_turn("resumable"))[1:]],
    Scenario.EMPTY: [SESSION, {"type": "agent_start"}, {"type": "agent_end", "messages": []}],
    # pi repeats the answer in message_end, turn_end and agent_end: shown once.
    Scenario.RESULT_REPEATS_TEXT: run(*text_turn("streamed once, ", "never twice")),
    Scenario.ERROR_MESSAGE: run(
        {"type": "turn_start"},
        {"type": "message_start", "message": message([])},
        {"type": "message_end", "message": FLAGGED},
        {"type": "turn_end", "message": FLAGGED, "toolResults": []},
    ),
    Scenario.RETRY_NOTICE: [
        *run(
            {"type": "message_start", "message": FAILED},
            {"type": "message_end", "message": FAILED},
        ),
        {
            "type": "auto_retry_start",
            "attempt": 1,
            "maxAttempts": 3,
            "delayMs": 5,
            "errorMessage": "503 The server is overloaded",
        },
        {"type": "agent_start"},
        *text_turn("answered after a retry"),
        {"type": "agent_end", "messages": []},
        {"type": "auto_retry_end", "success": True, "attempt": 1},
    ],
}


class TestPiConformance(SubprocessCliConformance):
    provider_error_class = ProviderStreamAuthError  # the fixture's refused key (401)
    cli_endpoint_type = PiCliEndpoint
    resume_flag = "--session"

    def cli_events(self, scenario: Scenario) -> Sequence[Mapping[str, Any]]:
        return EVENTS[scenario]

"""The subprocess agentic conformance kit, with fixtures in Gemini CLI's stream-json grammar."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lionagi.providers.gemini_cli import GeminiCodeEndpoint
from lionagi.service_testing.conformance import Scenario, SubprocessAgenticConformance

SESSION_ID = "7d4c1f7e-2b9a-4c55-9e0b-gemini-conf"
TS = "2026-11-29T21:12:21.313Z"
STATS = {
    "total_tokens": 49,
    "input_tokens": 42,
    "output_tokens": 7,
    "cached": 0,
    "input": 42,
    "duration_ms": 51,
    "tool_calls": 0,
    "models": {},
}


def init(session_id: str = "11111111-2222-4333-8444-555555555555") -> dict[str, Any]:
    return {"type": "init", "timestamp": TS, "session_id": session_id, "model": "gemini-2.5-flash"}


def user(text: str = "hello conformance") -> dict[str, Any]:
    return {"type": "message", "timestamp": TS, "role": "user", "content": text}


def say(text: str) -> dict[str, Any]:
    return {"type": "message", "timestamp": TS, "role": "assistant", "content": text, "delta": True}


def result(**extra: Any) -> dict[str, Any]:
    return {"type": "result", "timestamp": TS, "status": "success", "stats": STATS, **extra}


EVENTS: dict[Scenario, list[dict[str, Any]]] = {
    Scenario.TEXT: [init(), user(), say("héllo → wörld ✓ "), say("from gemini"), result()],
    Scenario.TOOL: [
        init(),
        user(),
        {
            "type": "tool_use",
            "timestamp": TS,
            "tool_name": "run_shell_command",
            "tool_id": "run_shell_command_1",
            "parameters": {"command": "ls"},
        },
        {
            "type": "tool_result",
            "timestamp": TS,
            "tool_id": "run_shell_command_1",
            "status": "success",
            "output": "README.md",
        },
        say("There is a README."),
        result(),
    ],
    Scenario.USAGE: [init(), user(), say("counted"), result()],
    Scenario.SESSION: [init(SESSION_ID), user(), say("resumable"), result()],
    Scenario.PROVIDER_ERROR: [
        init(),
        user(),
        say("working"),
        {
            "type": "result",
            "timestamp": TS,
            "status": "error",
            "error": {
                "type": "unknown",
                "message": '[API Error: {"error":{"code":401,"message":"API key not valid. '
                'Please pass a valid API key.","status":"UNAUTHENTICATED"}}]',
            },
            "stats": STATS,
        },
    ],
    Scenario.EMPTY: [user()],
    Scenario.RETRY_NOTICE: [
        init(),
        user(),
        {"type": "error", "timestamp": TS, "severity": "warning", "message": "Loop detected"},
        say("answered after the notice"),
        result(),
    ],
}


class TestGeminiCliConformance(SubprocessAgenticConformance):
    inapplicable_scenarios = {
        Scenario.RESULT_REPEATS_TEXT: "gemini's result event carries stats only, never the text",
        Scenario.ERROR_MESSAGE: (
            "gemini never flags an assistant message as an error; failures are the result "
            "event's status (PROVIDER_ERROR) or error events (RETRY_NOTICE, unit tests)"
        ),
    }

    def make_cli_endpoint(
        self, argv_prefix: Sequence[str], *, terminate_grace: float
    ) -> GeminiCodeEndpoint:
        return _PrefixedGemini(argv_prefix, terminate_grace=terminate_grace)

    def cli_events(self, scenario: Scenario) -> Sequence[Mapping[str, Any]]:
        return EVENTS[scenario]

    def cli_exit_code(self, scenario: Scenario) -> int:
        # The real CLI exits with the HTTP status mod 256 after a failed result (401 -> 145).
        return 145 if scenario is Scenario.PROVIDER_ERROR else 0

    def valid_request(self) -> dict[str, Any]:
        return {"prompt": "hello conformance"}

    def workspace_request(self, repo: Path, workspace: str) -> dict[str, Any]:
        return {"prompt": "hello conformance", "repo": str(repo), "workspace": workspace}

    def resume_argv(self, session_id: str) -> Sequence[str]:
        return ["--resume", session_id]


class _PrefixedGemini(GeminiCodeEndpoint):
    """The adapter with the kit's fake CLI in front of the flags it builds."""

    def __init__(self, prefix: Sequence[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.prefix = tuple(prefix)

    def copy(self) -> _PrefixedGemini:
        other = type(self)(self.prefix, terminate_grace=self.terminate_grace, settings=self.settings)
        self.copy_runtime_state_to(other)
        return other

    def command(self, request: Any, launch: Any = None) -> list[str]:
        argv = super().command(request, launch)
        return [*self.prefix, *argv[1:]]

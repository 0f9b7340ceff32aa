"""The subprocess agentic conformance kit against the codex adapter, in codex's own grammar."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from lionagi.providers.codex import CodexCliEndpoint
from lionagi.service import ProviderStreamAuthError
from lionagi.service_testing.conformance import Scenario, SubprocessCliConformance

THREAD = {"type": "thread.started", "thread_id": "019a0000-0000-7000-8000-00000000c0de"}
TURN = {"type": "turn.started"}
WARNING = {
    "type": "item.completed",
    "item": {"id": "item_0", "type": "error", "message": "Model metadata for `m` not found."},
}


def _message(item_id: str, text: str) -> dict[str, Any]:
    return {
        "type": "item.completed",
        "item": {"id": item_id, "type": "agent_message", "text": text},
    }


def _done(**usage: int) -> dict[str, Any]:
    return {"type": "turn.completed", "usage": {"input_tokens": 0, "output_tokens": 0, **usage}}


_COMMAND = {"id": "item_2", "type": "command_execution", "command": "/bin/bash -lc ls"}
_FAILURE = "unexpected status 401 Unauthorized: Incorrect API key provided: sk-x."

EVENTS: dict[Scenario, list[dict[str, Any]]] = {
    Scenario.TEXT: [
        THREAD,
        WARNING,
        TURN,
        _message("item_1", "héllo → wörld ✓ from codex"),
        _done(input_tokens=42, output_tokens=7),
    ],
    Scenario.TOOL: [
        THREAD,
        TURN,
        {
            "type": "item.started",
            "item": {
                **_COMMAND,
                "aggregated_output": "",
                "exit_code": None,
                "status": "in_progress",
            },
        },
        {
            "type": "item.completed",
            "item": {
                **_COMMAND,
                "aggregated_output": "README.md\n",
                "exit_code": 0,
                "status": "completed",
            },
        },
        _message("item_3", "There is a README."),
        _done(input_tokens=84, output_tokens=14),
    ],
    Scenario.USAGE: [
        THREAD,
        TURN,
        _message("item_1", "counted"),
        _done(input_tokens=3, output_tokens=1),
    ],
    Scenario.PROVIDER_ERROR: [
        THREAD,
        TURN,
        {"type": "error", "message": _FAILURE},
        {"type": "turn.failed", "error": {"message": _FAILURE}},
    ],
    Scenario.EMPTY: [THREAD, TURN],
    # Codex's way of reporting one failure several times: retry notices, the final error
    # event, then turn.failed repeating it. One error chunk, no text.
    Scenario.ERROR_MESSAGE: [
        THREAD,
        TURN,
        {"type": "error", "message": f"Reconnecting... 1/5 ({_FAILURE})"},
        {"type": "error", "message": _FAILURE},
        {"type": "turn.failed", "error": {"message": _FAILURE}},
    ],
    Scenario.RETRY_NOTICE: [
        THREAD,
        TURN,
        {"type": "error", "message": "Reconnecting... 1/5 (stream disconnected before completion)"},
        _message("item_1", "answered after a retry"),
        _done(input_tokens=5, output_tokens=4),
    ],
}


class TestCodexConformance(SubprocessCliConformance):
    provider_error_class = ProviderStreamAuthError  # the fixture's refused key (401)
    cli_endpoint_type = CodexCliEndpoint
    inapplicable_scenarios: ClassVar[Mapping[Scenario, str]] = {
        Scenario.RESULT_REPEATS_TEXT: (
            "codex's terminal turn.completed carries usage only; messages arrive whole, once"
        ),
    }

    def cli_events(self, scenario: Scenario) -> Sequence[Mapping[str, Any]]:
        return EVENTS[scenario]

    def cli_exit_code(self, scenario: Scenario) -> int:
        # The real binary exits 1 after turn.failed; success is still judged by the event.
        return 1 if scenario in (Scenario.PROVIDER_ERROR, Scenario.ERROR_MESSAGE) else 0

"""The subprocess conformance kit against the reference CLI adapter, driven by the replay fake."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from lionagi.service_testing.conformance import Scenario, SubprocessCliConformance
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

SESSION_ID = "ref-session-1"
TEXT: list[dict[str, Any]] = [
    {"type": "telemetry", "ms": 3},
    {"type": "text", "content": "héllo → wörld ✓ ", "delta": True},
    {"type": "text", "content": "from the reference CLI", "delta": True},
    {"type": "result"},
]
EVENTS: dict[Scenario, list[dict[str, Any]]] = {
    Scenario.TEXT: TEXT,
    Scenario.TOOL: [
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
        {"type": "tool_result", "id": "t1", "output": "README.md"},
        {"type": "text", "content": "There is a README."},
    ],
    Scenario.USAGE: [
        {"type": "text", "content": "counted"},
        {"type": "result", "usage": {"input_tokens": 3, "output_tokens": 1}},
    ],
    Scenario.SESSION: [
        {"type": "session", "session_id": SESSION_ID, "model": "ref-1"},
        {"type": "text", "content": "resumable"},
        {"type": "result", "session_id": SESSION_ID},
    ],
    Scenario.PROVIDER_ERROR: [
        {"type": "text", "content": "working", "delta": True},
        {"type": "error", "message": "the reference provider refused", "kind": "auth"},
    ],
    Scenario.EMPTY: [{"type": "telemetry", "ms": 1}],
    Scenario.RESULT_REPEATS_TEXT: [
        {"type": "text", "content": "streamed once, ", "delta": True},
        {"type": "text", "content": "never twice", "delta": True},
        {"type": "result", "content": "streamed once, never twice", "usage": {"output_tokens": 4}},
    ],
    Scenario.ERROR_MESSAGE: [
        {"type": "text", "content": "Invalid API key · Please run /login", "error": True},
        {"type": "result", "content": "Invalid API key · Please run /login"},
    ],
    Scenario.RETRY_NOTICE: [
        {"type": "error", "message": "Reconnecting... 1/5", "will_retry": True},
        {"type": "text", "content": "answered after a retry"},
        {"type": "result"},
    ],
}


class TestReferenceCliConformance(SubprocessCliConformance):
    cli_endpoint_type = ReferenceCliEndpoint
    resume_flag = "--resume"
    inapplicable_scenarios: ClassVar[Mapping[Scenario, str]] = {
        Scenario.CUT_SHORT: (
            "the reference grammar has no terminal event: `result` is optional and a run ends "
            "at end of stream"
        ),
    }

    def cli_events(self, scenario: Scenario) -> Sequence[Mapping[str, Any]]:
        return EVENTS[scenario]

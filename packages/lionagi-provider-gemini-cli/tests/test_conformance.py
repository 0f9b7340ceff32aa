"""The subprocess agentic conformance kit, with fixtures in Gemini CLI's stream-json grammar."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from lionagi.providers.gemini_cli import GeminiCodeEndpoint, GeminiInputError
from lionagi.service import (
    EventStatus,
    ProviderAuthError,
    ProviderStreamAuthError,
    ProviderStreamError,
    StreamChunk,
    iModel,
)
from lionagi.service_testing.conformance import (
    Scenario,
    SubprocessCliConformance,
    replay_argv,
)

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
        # A warning the CLI continues after. Not "Loop detected": that one stops the turn
        # unsaved and is a failure (test_loop_detection.py).
        {
            "type": "error",
            "timestamp": TS,
            "severity": "warning",
            "message": "Agent execution blocked: the BeforeAgent hook refused the prompt",
        },
        say("answered after the notice"),
        result(),
    ],
}


class TestGeminiCliConformance(SubprocessCliConformance):
    provider_error_class = ProviderStreamAuthError  # the fixture's refused key (401)
    cli_endpoint_type = GeminiCodeEndpoint
    resume_flag = "--resume"
    inapplicable_scenarios: ClassVar[Mapping[Scenario, str]] = {
        Scenario.RESULT_REPEATS_TEXT: "gemini's result event carries stats only, never the text",
        Scenario.ERROR_MESSAGE: (
            "gemini never flags an assistant message as an error; failures are the result "
            "event's status (PROVIDER_ERROR) or error events (RETRY_NOTICE, unit tests)"
        ),
    }

    def cli_events(self, scenario: Scenario) -> Sequence[Mapping[str, Any]]:
        return EVENTS[scenario]

    def cli_exit_code(self, scenario: Scenario) -> int:
        # The real CLI exits with the HTTP status mod 256 after a failed result (401 -> 145).
        return 145 if scenario is Scenario.PROVIDER_ERROR else 0


class TestRunLoop:
    """The endpoint's own run loop on the replay fake: secrets, exit codes, a missing result."""

    def endpoint(self, tmp_path: Path, plan: dict[str, Any], **settings: Any) -> GeminiCodeEndpoint:
        path = tmp_path / "plan.json"
        path.write_text(json.dumps(plan), encoding="utf-8")
        return GeminiCodeEndpoint(argv=replay_argv(path), settings=settings or None)

    async def run(
        self, endpoint: GeminiCodeEndpoint
    ) -> tuple[list[StreamChunk], BaseException | None]:
        chunks: list[StreamChunk] = []
        try:
            async for chunk in endpoint.stream({"prompt": "hi"}):
                chunks.append(chunk)
        except Exception as exc:
            return chunks, exc
        finally:
            await endpoint.aclose()
        return chunks, None

    async def test_gateway_key_echoed_in_an_error_is_redacted(self, tmp_path: Path) -> None:
        key = "gw-key-0123456789-secret"
        failed = {
            "type": "result",
            "status": "error",
            "error": {"type": "unknown", "message": f"API key not valid ({key})"},
        }
        endpoint = self.endpoint(
            tmp_path,
            {"events": [init(), failed], "exit_code": 145},
            gateway_url="http://127.0.0.1:9",
            gateway_api_key=key,
        )
        chunks, exc = await self.run(endpoint)
        assert exc is None, repr(exc)
        assert chunks[-1].type == "error"
        raised = endpoint.stream_error(chunks[-1])  # what stream()/invoke() of iModel raise
        assert isinstance(raised, ProviderStreamAuthError)
        assert key not in str(raised)
        assert key not in (chunks[-1].content or "")
        assert "[REDACTED]" in (chunks[-1].content or "")

    async def test_invoke_separates_assistant_messages_by_a_blank_line(
        self, tmp_path: Path
    ) -> None:
        # Text before and after a tool call are two messages: invoke must not run them together.
        tool_use = {
            "type": "tool_use",
            "timestamp": TS,
            "tool_name": "list_directory",
            "tool_id": "list_directory_1",
            "parameters": {"dir_path": "."},
        }
        tool_result = {
            "type": "tool_result",
            "timestamp": TS,
            "tool_id": "list_directory_1",
            "status": "success",
            "output": "a.txt b.txt",
        }
        events = [
            init(),
            user(),
            say("I will check "),
            say("the files."),
            tool_use,
            tool_result,
            say("There are "),
            say("two files."),
            result(),
        ]
        endpoint = self.endpoint(tmp_path, {"events": events, "exit_code": 0})
        async with iModel(endpoint=endpoint) as model:
            call = await model.invoke(prompt="hi")
        assert call.status is EventStatus.COMPLETED, call.execution.error
        expected = "I will check the files.\n\nThere are two files."
        assert call.execution.response["result"] == expected

    async def test_exit_42_without_events_is_an_input_error(self, tmp_path: Path) -> None:
        plan = {
            "events": [],
            "stderr": "Error resuming session: No previous sessions found for this project.",
            "exit_code": 42,
        }
        _, exc = await self.run(self.endpoint(tmp_path, plan))
        assert isinstance(exc, GeminiInputError)
        assert exc.returncode == 42

    async def test_exit_41_without_events_is_an_auth_error(self, tmp_path: Path) -> None:
        plan = {"events": [], "stderr": "no credentials", "exit_code": 41}
        _, exc = await self.run(self.endpoint(tmp_path, plan))
        assert isinstance(exc, ProviderAuthError)

    async def test_failure_reported_twice_is_one_error_chunk(self, tmp_path: Path) -> None:
        notice = {"type": "error", "severity": "error", "message": "Model stream ended empty."}
        failed = {"type": "result", "status": "error", "stats": STATS}
        plan = {"events": [init(), notice, failed], "exit_code": 1}
        endpoint = self.endpoint(tmp_path, plan)
        chunks, exc = await self.run(endpoint)
        assert exc is None, repr(exc)  # exit 1 after the failed result is not a second error
        assert type(endpoint.stream_error(chunks[-1])) is ProviderStreamError
        assert [c.type for c in chunks if c.is_error] == ["error"]
        assert chunks[-1].content == "Model stream ended empty."

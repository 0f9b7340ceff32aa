"""Kit cases that passed an adapter with their own defect planted, and now fail it.

Each defect below is one small subclass of a real adapter (core's ``OpenAIChatEndpoint``, the
reference CLI adapter) that broke a promise of ``docs/conformance.md`` and still passed the case
written for it. The case is called directly, as pytest would call it (every case is a plain
synchronous method), and must raise ``AssertionError`` naming the problem; the same case passes
for the undamaged adapter (``test_undamaged_adapter_passes``), so the defect is the cause.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

from lionagi.service import AgenticSettings, Endpoint, StreamChunk, match_endpoint
from lionagi.service.agentic import SubprocessCliEndpoint
from lionagi.service.http import ChatCompletionsProjector, OpenAIChatEndpoint
from lionagi.service_testing.conformance import (
    HTTPChatConformance,
    Scenario,
    SubprocessAgenticConformance,
)
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint, ReferenceCliRequest

# -- HTTP: planted defects ------------------------------------------------------------------------


class ReasoningHeldBack(OpenAIChatEndpoint):
    """Streams the first reasoning delta, then holds the rest back until the answer ended."""

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        held: list[StreamChunk] = []
        seen = False
        async for chunk in super().stream(request, **kwargs):
            if chunk.type == "thinking":
                if seen:
                    held.append(chunk)
                    continue
                seen = True
            if chunk.type == "result":
                for late in held:
                    yield late
            yield chunk


class _ArgumentsAsTextProjector(ChatCompletionsProjector):
    def feed(self, event: Any) -> Any:
        out = list(super().feed(event))
        for choice in event.get("choices") or [] if isinstance(event, dict) else []:
            for call in (choice.get("delta") or {}).get("tool_calls") or []:
                fragment = (call.get("function") or {}).get("arguments")
                if fragment:
                    out.append(StreamChunk(type="text", content=fragment, is_delta=True))
        return out


class ArgumentsAsText(OpenAIChatEndpoint):
    """Also yields each tool-call argument fragment as a text delta (the call stays right)."""

    projector = _ArgumentsAsTextProjector


class ErrorChunkWithoutMessage(OpenAIChatEndpoint):
    """Rebuilds the error chunk flagged and with its metadata, but without the vendor's text."""

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        async for chunk in super().stream(request, **kwargs):
            if chunk.type == "error":
                chunk = StreamChunk(type="error", is_error=True, metadata=dict(chunk.metadata))
            yield chunk


class Chat(HTTPChatConformance):
    dialect = "openai_chat"
    tool_calls = True
    reasoning = True
    endpoint_class: ClassVar[type[Endpoint]] = OpenAIChatEndpoint

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        config = match_endpoint(
            "conformance-llm",
            "",
            openai_compatible=True,
            base_url=base_url,
            api_key=api_key,
            allow_local_network=True,
        ).config
        return self.endpoint_class(config)

    def valid_request(self) -> dict[str, Any]:
        return {"model": "fake-model", "messages": [{"role": "user", "content": "hello"}]}


# -- CLI: planted defects on the reference adapter -------------------------------------------------


class CopySharesTheHome(ReferenceCliEndpoint):
    """Hands every plain copy the original's isolated config home ("keeps the login")."""

    def copy(self) -> SubprocessCliEndpoint:
        other = super().copy()
        self.share_home_with(other)
        return other


class ResumesTheStoredSession(ReferenceCliEndpoint):
    """Builds ``--resume`` from the endpoint's stored session, over the request's own value."""

    def cli_arguments(
        self, request: ReferenceCliRequest, *, extra: Sequence[str] = ()
    ) -> list[str]:
        if self.session_id:
            request = request.model_copy(update={"resume": self.session_id})
        return super().cli_arguments(request, extra=extra)


SESSION_ID = "round2-session-1"
TEXT: list[dict[str, Any]] = [
    {"type": "text", "content": "fine", "delta": True},
    {"type": "result"},
]
EVENTS: dict[Scenario, list[dict[str, Any]]] = {
    Scenario.TEXT: TEXT,
    Scenario.SESSION: [
        {"type": "session", "session_id": SESSION_ID},
        {"type": "text", "content": "resumable"},
        {"type": "result", "session_id": SESSION_ID},
    ],
}


class Cli(SubprocessAgenticConformance):
    endpoint_type: ClassVar[type[ReferenceCliEndpoint]] = ReferenceCliEndpoint

    def make_cli_endpoint(
        self,
        argv_prefix: Sequence[str],
        *,
        terminate_grace: float,
        settings: AgenticSettings | None = None,
        timeout: float | None = None,
    ) -> ReferenceCliEndpoint:
        config = {"timeout": timeout} if timeout is not None else {}
        return self.endpoint_type(
            argv=argv_prefix, terminate_grace=terminate_grace, settings=settings, **config
        )

    def cli_events(self, scenario: Scenario) -> Sequence[Mapping[str, Any]]:
        return EVENTS[scenario]

    def valid_request(self) -> dict[str, Any]:
        return {"prompt": "hello"}

    def resume_argv(self, session_id: str) -> Sequence[str]:
        return ["--resume", session_id]


def run_cli_case(kit: type[Cli], adapter: type[ReferenceCliEndpoint], case: str, tmp: Path) -> None:
    """Call ``case`` on a kit over ``adapter``, with the per-case state its fixtures would set."""
    instance = type(f"CliWith{adapter.__name__}", (kit,), {"endpoint_type": adapter})()
    instance._workdir = tmp
    instance._log = tmp / "replay.log"
    instance._plans = 0
    instance._probes = {}
    instance._models = []
    getattr(instance, case)()


_COPY = "test_copy_keeps_deployment_settings"
_RESUME = "test_resumed_turn_carries_the_session"

# (defect, case, what the failure says)
HTTP_DETECTS: list[tuple[type[Endpoint], str, str]] = [
    (ReasoningHeldBack, "test_stream_reasoning", "thinking after text"),
    (ArgumentsAsText, "test_stream_tool_call_assembled", "arguments were presented as output"),
    (ErrorChunkWithoutMessage, "test_stream_ends_at_its_error_chunk", "error chunk has no message"),
]
CLI_DETECTS: list[tuple[type[ReferenceCliEndpoint], str, str]] = [
    (CopySharesTheHome, _COPY, "ran in the same isolated HOME as the original"),
    (ResumesTheStoredSession, _RESUME, "turn three resumed the stored session"),
]


@pytest.mark.parametrize(
    ("defect", "case", "says"),
    HTTP_DETECTS,
    ids=[f"{defect.__name__}-{case}" for defect, case, _ in HTTP_DETECTS],
)
def test_http_kit_detects_planted_defect(defect: type[Endpoint], case: str, says: str) -> None:
    broken = type(f"ChatWith{defect.__name__}", (Chat,), {"endpoint_class": defect})()
    with pytest.raises(AssertionError, match=says):
        getattr(broken, case)()


@pytest.mark.parametrize(
    ("defect", "case", "says"),
    CLI_DETECTS,
    ids=[f"{defect.__name__}-{case}" for defect, case, _ in CLI_DETECTS],
)
def test_cli_kit_detects_planted_defect(
    defect: type[ReferenceCliEndpoint], case: str, says: str, tmp_path: Path
) -> None:
    with pytest.raises(AssertionError, match=says):
        run_cli_case(Cli, defect, case, tmp_path)


@pytest.mark.parametrize("case", sorted({case for _, case, _ in HTTP_DETECTS}))
def test_undamaged_http_adapter_passes(case: str) -> None:
    getattr(Chat(), case)()


@pytest.mark.parametrize("case", sorted({case for _, case, _ in CLI_DETECTS}))
def test_undamaged_cli_adapter_passes(case: str, tmp_path: Path) -> None:
    run_cli_case(Cli, ReferenceCliEndpoint, case, tmp_path)

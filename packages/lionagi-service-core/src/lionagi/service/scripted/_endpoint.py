"""ScriptedEndpoint: a deterministic in-process agentic endpoint for demos and tests."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, ClassVar

import anyio
from pydantic import BaseModel, ConfigDict, Field, model_validator

from .._base.chunk import StreamChunk
from .._transport.agentic.endpoint import AgenticEndpoint
from .._transport.agentic.records import AgenticCapabilities
from .._transport.config import EndpointConfig
from ._script import Delay, Raise, ScriptStep, default_script

__all__ = ["ScriptedEndpoint", "ScriptedRequest"]

ScriptSource = Sequence[ScriptStep] | Callable[["ScriptedRequest"], Sequence[ScriptStep]]


class ScriptedRequest(BaseModel):
    """What the scripted provider accepts: a prompt or chat messages, and a model label."""

    # defer_build: the validator is built on first use, not at import (cold start).
    model_config = ConfigDict(extra="forbid", defer_build=True)

    prompt: str | None = None
    messages: list[dict[str, Any]] | None = None
    model: str = "scripted-demo"
    pace: float = Field(
        default=0.0,
        ge=0,
        le=10,
        strict=True,
        allow_inf_nan=False,
        description="seconds between text deltas",
    )

    @model_validator(mode="after")
    def _needs_input(self) -> ScriptedRequest:
        if self.prompt is None and not self.messages:
            raise ValueError("either prompt or messages is required")
        return self

    def prompt_text(self) -> str:
        """The prompt, or the last user message's text."""
        if self.prompt is not None:
            return self.prompt
        for message in reversed(self.messages or []):
            if message.get("role") == "user":
                content = message.get("content")
                return content if isinstance(content, str) else str(content)
        return ""


class ScriptedEndpoint(AgenticEndpoint):
    """Plays a script of chunks, pauses and errors; records every validated request.

    With no script it plays :func:`default_script`, whose prompt keywords ``SCRIPTED_FAIL``,
    ``SCRIPTED_RAISE`` and ``SCRIPTED_STALL`` select a provider error chunk, a raised transport
    error and a stall.
    """

    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="in_process", resumable=False, emits_tool_events=True, reports_usage=True
    )
    request_type: ClassVar[type[BaseModel] | None] = ScriptedRequest

    def __init__(
        self,
        config: EndpointConfig | Mapping[str, Any] | None = None,
        *,
        script: ScriptSource | None = None,
        **overrides: Any,
    ) -> None:
        super().__init__(config, **overrides)
        self._script = script
        self.calls: list[ScriptedRequest] = []

    def _steps(self, request: ScriptedRequest) -> Sequence[ScriptStep]:
        if self._script is None:
            return default_script(request.prompt_text(), model=request.model, pace=request.pace)
        if callable(self._script):
            return self._script(request)
        return self._script

    async def _stream_agentic(
        self,
        request: BaseModel,
        *,
        runtime_args: dict[str, Any],
        local_timeout: float | None,
    ) -> AsyncIterator[StreamChunk]:
        """Play the script for the validated ``request``."""
        assert isinstance(request, ScriptedRequest)
        self.calls.append(request)
        for step in self._steps(request):
            if isinstance(step, Delay):
                await anyio.sleep(step.seconds)
            elif isinstance(step, Raise):
                raise copy.copy(step.error)
            else:
                yield copy.deepcopy(step)

    def copy(self) -> ScriptedEndpoint:
        """A fresh endpoint with the same config, script and handlers (no call history)."""
        other = type(self)(self.config, script=self._script)
        self.copy_runtime_state_to(other)
        return other

"""Groq's chat-completions deltas: reasoning format and effort, service tier, search settings.

With ``reasoning_format="parsed"`` Groq streams reasoning as ``delta.reasoning``, which core's
chat projector maps to ``thinking``; ``"raw"`` leaves it inside the text between think tags.

Groq's flex tier answers "no capacity right now" with its own status, HTTP 498 and error code
``capacity_exceeded``, and asks for backoff and retries; read by status alone that was a
client error blaming the request. :class:`GroqChat` maps it to the capacity family instead.

A stream's usage arrives on its last chunk under Groq's own ``x_groq.usage``, not the top-level
``usage`` OpenAI's chunk has; :class:`GroqProjector` reads it there, so a stream's result chunk
carries the token counts the one-shot body does. The built-in tools a Compound model ran arrive
as ``delta.executed_tools`` (the one-shot ``message.executed_tools``); the projector keeps each
delta's list on a text chunk with no text, as ``metadata["executed_tools"]``. A generation that
fails mid-stream arrives as a chunk whose ``x_groq.error`` says why it stopped: the projector
ends the stream with an error chunk there (a typed ``ProviderStreamError``), not a result.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from lionagi.service import (
    OpenAIChatCompletionsRequest,
    ProviderError,
    ProviderStatusCapacityError,
    StreamChunk,
)
from lionagi.service.http import (
    ChatCompletionsProjector,
    HTTPErrorInfo,
    OpenAIChatEndpoint,
    StreamProjector,
)

__all__ = [
    "FLEX_CAPACITY_STATUS",
    "GroqChat",
    "GroqChatRequest",
    "GroqProjector",
    "GroqSearchSettings",
]

FLEX_CAPACITY_STATUS = 498
"""Groq's status for a flex-tier request refused for lack of capacity (temporary)."""


class GroqSearchSettings(BaseModel):
    """``search_settings`` for Groq's built-in web search (compound models)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    exclude_domains: list[str] | None = None
    include_domains: list[str] | None = None
    include_images: bool | None = None
    country: str | None = None


class GroqChatRequest(OpenAIChatCompletionsRequest):
    """Groq's chat request: the OpenAI fields with Groq's own vocabularies.

    ``documents`` (context the model may cite, with ``citation_options``) and
    ``compound_custom`` (the models and built-in tools of a Compound system) stay plain
    mappings: Groq extends them often. ``disable_tool_validation`` returns called tools without
    checking them against ``tools``.
    """

    reasoning_format: Literal["hidden", "raw", "parsed"] | None = None
    reasoning_effort: Literal["none", "default", "low", "medium", "high"] | None = None  # type: ignore[assignment]
    include_reasoning: bool | None = None
    service_tier: Literal["auto", "on_demand", "flex", "performance"] | None = None
    search_settings: GroqSearchSettings | None = None
    citation_options: Literal["enabled", "disabled"] | None = None
    compound_custom: dict[str, Any] | None = None
    disable_tool_validation: bool | None = None
    documents: list[dict[str, Any]] | None = None

    @field_validator("include_reasoning")
    @classmethod
    def _one_reasoning_switch(cls, value: bool | None, info: ValidationInfo) -> bool | None:
        """Groq refuses ``include_reasoning`` beside ``reasoning_format`` (mutually exclusive).

        Checked on this field (declared after ``reasoning_format``) so the error names it.
        """
        if value is not None and info.data.get("reasoning_format") is not None:
            raise ValueError(
                "include_reasoning and reasoning_format are mutually exclusive (Groq refuses "
                "a request with both); set one"
            )
        return value


class GroqProjector(ChatCompletionsProjector):
    """The chat stream, with what Groq puts under ``x_groq``: the usage, a mid-stream failure."""

    __slots__ = ()

    grammar = "Groq chat stream"
    delta_fields = (("executed_tools", "text"),)

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Project one chunk, its ``x_groq.usage`` read as the chunk's usage when it has none.

        A chunk whose ``x_groq.error`` is set ends the stream with an error chunk (see
        :meth:`_stopped`). ``x_groq`` rides on a stream's first and last chunks only, so the
        chunks between pay one lookup.
        """
        if type(event) is dict:
            extra = event.get("x_groq")
            if type(extra) is dict:
                failure = extra.get("error")
                if failure:  # absent, null or empty: no failure (core reads ``error`` alike)
                    return self._stopped(event, extra, failure)
                if not event.get("usage") and extra.get("usage"):
                    event = {**event, "usage": extra["usage"]}
        return super().feed(event)

    def _stopped(
        self, event: dict[str, Any], extra: dict[str, Any], failure: Any
    ) -> Sequence[StreamChunk]:
        """The error chunk for a stream Groq stopped early (``x_groq.error``).

        Groq's SDK types the field as a string saying why generation stopped; it arrives on a
        chunk that may also carry a ``finish_reason``, which read alone ended the stream as a
        success on the partial answer. The string is the error's text, classified like any
        error chunk (``stream_error``: an "overloaded" text is the capacity family), redacted
        and bounded by ``error_chunk``; another shape is still a stop, its JSON quoted. As for
        a top-level ``error`` beside ``choices`` (core's chat projector), the error is the
        chunk's outcome: its choices are not projected. The usage billed so far stays on the
        error chunk.
        """
        self.started = True
        if isinstance(failure, str):
            failure = {"message": f"Groq stopped the stream early (x_groq.error): {failure}"}
        elif type(failure) is not dict:
            shown = json.dumps(failure, default=str)
            failure = {"message": f"Groq stopped the stream early (x_groq.error): {shown}"}
        chunks = self.error_chunk(failure)
        usage = extra.get("usage") or event.get("usage") or self._usage
        if usage:
            chunks[0].metadata["usage"] = usage
        return chunks


class GroqChat(OpenAIChatEndpoint):
    """Groq chat completions (``https://api.groq.com/openai/v1/chat/completions``)."""

    projector: ClassVar[type[StreamProjector] | None] = GroqProjector

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """Groq's 498 (flex capacity) as a retryable capacity error, then the dialect's codes."""
        if info.status == FLEX_CAPACITY_STATUS or info.error.get("code") == "capacity_exceeded":
            return ProviderStatusCapacityError(
                f"{info.where}: no flex-tier capacity right now (HTTP {info.status}; temporary, "
                f"retried){info.suffix}",
                status=info.status,
                body_excerpt=info.excerpt,
                retry_after=info.retry_after,
            )
        return super().map_status_error(info)

"""Groq's chat-completions deltas: reasoning format and effort, service tier, search settings.

With ``reasoning_format="parsed"`` Groq streams reasoning as ``delta.reasoning``, which core's
chat projector maps to ``thinking``; ``"raw"`` leaves it inside the text between think tags.

Groq's flex tier answers "no capacity right now" with its own status, HTTP 498 and error code
``capacity_exceeded``, and asks for backoff and retries; read by status alone that was a
client error blaming the request. :class:`GroqChat` maps it to the capacity family instead.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from lionagi.service import (
    OpenAIChatCompletionsRequest,
    ProviderError,
    ProviderStatusCapacityError,
)
from lionagi.service.http import HTTPErrorInfo, OpenAIChatEndpoint

__all__ = ["FLEX_CAPACITY_STATUS", "GroqChat", "GroqChatRequest", "GroqSearchSettings"]

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


class GroqChat(OpenAIChatEndpoint):
    """Groq chat completions (``https://api.groq.com/openai/v1/chat/completions``)."""

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

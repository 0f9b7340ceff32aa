"""Groq's chat-completions deltas: reasoning format and effort, service tier, search settings.

With ``reasoning_format="parsed"`` Groq streams reasoning as ``delta.reasoning``, which core's
chat projector maps to ``thinking``; ``"raw"`` leaves it inside the text between think tags.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from lionagi.service import OpenAIChatCompletionsRequest
from lionagi.service.http import OpenAIChatEndpoint

__all__ = ["GroqChat", "GroqChatRequest", "GroqSearchSettings"]


class GroqSearchSettings(BaseModel):
    """``search_settings`` for Groq's built-in web search (compound models)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    exclude_domains: list[str] | None = None
    include_domains: list[str] | None = None
    include_images: bool | None = None
    country: str | None = None


class GroqChatRequest(OpenAIChatCompletionsRequest):
    """Groq's chat request: the OpenAI fields with Groq's own vocabularies."""

    reasoning_format: Literal["hidden", "raw", "parsed"] | None = None
    reasoning_effort: Literal["none", "default", "low", "medium", "high"] | None = None  # type: ignore[assignment]
    include_reasoning: bool | None = None
    service_tier: Literal["auto", "on_demand", "flex", "performance"] | None = None
    search_settings: GroqSearchSettings | None = None


class GroqChat(OpenAIChatEndpoint):
    """Groq chat completions (``https://api.groq.com/openai/v1/chat/completions``)."""

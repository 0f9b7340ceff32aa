"""OpenRouter's chat-completions deltas: model fallbacks, provider routing, reasoning, usage.

OpenRouter speaks the shared dialect; what it adds is request data. Reasoning arrives as
``delta.reasoning``, which core's chat projector already maps to ``thinking``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lionagi.service import OpenAIChatCompletionsRequest
from lionagi.service.http import OpenAIChatEndpoint

__all__ = [
    "OpenRouterChat",
    "OpenRouterChatRequest",
    "OpenRouterProviderPreferences",
    "OpenRouterReasoning",
    "OpenRouterUsage",
]


class OpenRouterProviderPreferences(BaseModel):
    """``provider``: which upstream providers may serve the request, and in what order."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    order: list[str] | None = None
    allow_fallbacks: bool | None = None
    require_parameters: bool | None = None
    data_collection: Literal["allow", "deny"] | None = None
    zdr: bool | None = None
    only: list[str] | None = None
    ignore: list[str] | None = None
    quantizations: list[str] | None = None
    sort: Literal["price", "throughput", "latency"] | None = None
    max_price: dict[str, float] | None = None


class OpenRouterReasoning(BaseModel):
    """``reasoning``: one setting for every upstream's thinking budget."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    effort: Literal["minimal", "low", "medium", "high"] | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    exclude: bool | None = None
    enabled: bool | None = None


class OpenRouterUsage(BaseModel):
    """``usage``: ask for token counts and cost in the response."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    include: bool | None = None


class OpenRouterChatRequest(OpenAIChatCompletionsRequest):
    """OpenRouter's chat request: the OpenAI fields plus its routing and reasoning settings."""

    models: list[str] | None = None
    route: Literal["fallback"] | None = None
    provider: OpenRouterProviderPreferences | None = None
    transforms: list[str] | None = None
    reasoning: OpenRouterReasoning | None = None
    usage: OpenRouterUsage | None = None


class OpenRouterChat(OpenAIChatEndpoint):
    """OpenRouter chat completions (``https://openrouter.ai/api/v1/chat/completions``)."""

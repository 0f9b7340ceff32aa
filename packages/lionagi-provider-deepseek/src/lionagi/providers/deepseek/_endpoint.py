"""DeepSeek's chat completions: the shared dialect plus its thinking switch.

``deepseek-reasoner`` (or ``thinking={"type": "enabled"}``) streams its reasoning as
``delta.reasoning_content``, which core's chat projector maps to ``thinking``.

Messages are checked as core checks the dialect's, plus the two assistant-message fields DeepSeek
documents: ``prefix`` (chat prefix completion, beta: the last message is an assistant message
with ``prefix: true`` that the model continues) and ``reasoning_content`` (an earlier turn's
reasoning sent back, which thinking mode with tools asks for, and the prefix of a reasoner's
thinking).

DeepSeek's usage record names its context-cache hits ``prompt_cache_hit_tokens`` (part of
``prompt_tokens``), reported to telemetry as the cache read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, StrictBool

from lionagi.service import OpenAIChatCompletionsRequest, openai_chat_shapes
from lionagi.service.http import OpenAIChatEndpoint, TokenCounts, first_count

__all__ = ["DeepSeekChat", "DeepSeekChatRequest", "DeepSeekThinking"]


class DeepSeekThinking(BaseModel):
    """``thinking``: turn the model's thinking mode on or off."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    type: Literal["enabled", "disabled"]


class DeepSeekChatRequest(OpenAIChatCompletionsRequest):
    """DeepSeek's chat request: the OpenAI fields plus ``thinking``, and its message fields."""

    shapes = openai_chat_shapes(
        "DeepSeekChat", roles={"assistant": {"prefix": StrictBool, "reasoning_content": str}}
    )

    thinking: DeepSeekThinking | None = None


class DeepSeekChat(OpenAIChatEndpoint):
    """DeepSeek chat completions (``https://api.deepseek.com/v1/chat/completions``)."""

    def token_counts(self, usage: Mapping[str, Any]) -> tuple[int | None, int | None]:
        """The dialect's counts, with `prompt_cache_hit_tokens` as the cache read."""
        counts = super().token_counts(usage)
        hit = first_count(usage, "prompt_cache_hit_tokens")
        if hit is None:
            return counts
        return TokenCounts(counts[0], counts[1], cache_read=hit)

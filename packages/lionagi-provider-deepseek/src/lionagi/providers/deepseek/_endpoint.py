"""DeepSeek's chat completions: the shared dialect plus its thinking switch.

``deepseek-reasoner`` (or ``thinking={"type": "enabled"}``) streams its reasoning as
``delta.reasoning_content``, which core's chat projector maps to ``thinking``.

Messages are checked as core checks the dialect's, plus the two assistant-message fields DeepSeek
documents: ``prefix`` (chat prefix completion, beta: the last message is an assistant message
with ``prefix: true`` that the model continues) and ``reasoning_content`` (an earlier turn's
reasoning sent back, which thinking mode with tools asks for, and the prefix of a reasoner's
thinking).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, StrictBool

from lionagi.service import OpenAIChatCompletionsRequest, openai_chat_shapes
from lionagi.service.http import OpenAIChatEndpoint

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

"""DeepSeek's chat completions: the shared dialect plus its thinking switch.

``deepseek-reasoner`` (or ``thinking={"type": "enabled"}``) streams its reasoning as
``delta.reasoning_content``, which core's chat projector maps to ``thinking``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from lionagi.service import OpenAIChatCompletionsRequest
from lionagi.service.http import OpenAIChatEndpoint

__all__ = ["DeepSeekChat", "DeepSeekChatRequest", "DeepSeekThinking"]


class DeepSeekThinking(BaseModel):
    """``thinking``: turn the model's thinking mode on or off."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    type: Literal["enabled", "disabled"]


class DeepSeekChatRequest(OpenAIChatCompletionsRequest):
    """DeepSeek's chat request: the OpenAI fields plus ``thinking``."""

    thinking: DeepSeekThinking | None = None


class DeepSeekChat(OpenAIChatEndpoint):
    """DeepSeek chat completions (``https://api.deepseek.com/v1/chat/completions``)."""

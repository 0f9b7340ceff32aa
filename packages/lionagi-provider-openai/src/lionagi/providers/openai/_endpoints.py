"""OpenAI's endpoint classes: one per catalog row, each declaring its wire dialect.

Chat completions and embeddings speak core's shared OpenAI dialect (their classes only give the
rows a home with a stable ``module:qualname``). The Responses endpoint declares its own stream
grammar (:class:`ResponsesProjector`) and reads the same ``{"error": {"code", "type"}}`` bodies
as chat, so a context overflow or an exhausted billing quota is typed the same on both.
"""

from __future__ import annotations

from typing import ClassVar

from lionagi.service import Endpoint, ProviderError
from lionagi.service.http import (
    HTTPErrorInfo,
    OpenAIChatEndpoint,
    OpenAIEmbeddingsEndpoint,
    StreamProjector,
    openai_status_error,
)

from ._responses_stream import ResponsesProjector

__all__ = [
    "OpenAIChatCompletionsEndpoint",
    "OpenAIEmbeddingsAPIEndpoint",
    "OpenAIResponsesEndpoint",
]


class OpenAIChatCompletionsEndpoint(OpenAIChatEndpoint):
    """``POST /v1/chat/completions`` (streams ask for usage via ``stream_options``)."""


class OpenAIEmbeddingsAPIEndpoint(OpenAIEmbeddingsEndpoint):
    """``POST /v1/embeddings``: one-shot only; ``stream()`` is refused before any request."""


class OpenAIResponsesEndpoint(Endpoint):
    """``POST /v1/responses``: the Responses API, streamed as named SSE events.

    Usage always arrives on ``response.completed``, so a stream adds nothing beyond ``stream``.
    """

    projector: ClassVar[type[StreamProjector] | None] = ResponsesProjector

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """OpenAI's error codes (:func:`openai_status_error`), then the base's."""
        return openai_status_error(info) or super().map_status_error(info)

"""NVIDIA NIM: chat completions and retrieval embeddings on the shared dialect.

NIM's retrieval embedding models need ``input_type`` (``query`` or ``passage``: the two sides of
a search are embedded differently) and take ``truncate`` for inputs longer than the model's
window; both are typed here.

Chat takes NIM's extension object ``nvext`` beside the OpenAI fields: structured generation
(``guided_json``, ``guided_regex``, ``guided_choice``, ``guided_grammar``) and sampling controls
NIM documents there. It stays a plain mapping: NIM adds keys with its releases.
"""

from __future__ import annotations

from typing import Any, Literal

from lionagi.service import OpenAIChatCompletionsRequest, OpenAIEmbeddingsRequest
from lionagi.service.http import OpenAIChatEndpoint, OpenAIEmbeddingsEndpoint

__all__ = [
    "NvidiaNimChat",
    "NvidiaNimChatRequest",
    "NvidiaNimEmbeddings",
    "NvidiaNimEmbeddingsRequest",
]


class NvidiaNimChatRequest(OpenAIChatCompletionsRequest):
    """NIM's chat request: the OpenAI fields plus ``nvext`` (e.g. ``{"guided_json": schema}``)."""

    nvext: dict[str, Any] | None = None


class NvidiaNimEmbeddingsRequest(OpenAIEmbeddingsRequest):
    """NIM's embeddings request: the OpenAI fields plus ``input_type`` and ``truncate``."""

    input_type: Literal["query", "passage"] | None = None
    truncate: Literal["NONE", "START", "END"] | None = None


class NvidiaNimChat(OpenAIChatEndpoint):
    """NIM chat completions (``https://integrate.api.nvidia.com/v1/chat/completions``)."""


class NvidiaNimEmbeddings(OpenAIEmbeddingsEndpoint):
    """NIM embeddings (``https://integrate.api.nvidia.com/v1/embeddings``)."""

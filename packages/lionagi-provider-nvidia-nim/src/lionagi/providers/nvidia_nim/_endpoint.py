"""NVIDIA NIM: chat completions and retrieval embeddings on the shared dialect.

NIM's retrieval embedding models need ``input_type`` (``query`` or ``passage``: the two sides of
a search are embedded differently) and take ``truncate`` for inputs longer than the model's
window; both are typed here.
"""

from __future__ import annotations

from typing import Literal

from lionagi.service import OpenAIEmbeddingsRequest
from lionagi.service.http import OpenAIChatEndpoint, OpenAIEmbeddingsEndpoint

__all__ = ["NvidiaNimChat", "NvidiaNimEmbeddings", "NvidiaNimEmbeddingsRequest"]


class NvidiaNimEmbeddingsRequest(OpenAIEmbeddingsRequest):
    """NIM's embeddings request: the OpenAI fields plus ``input_type`` and ``truncate``."""

    input_type: Literal["query", "passage"] | None = None
    truncate: Literal["NONE", "START", "END"] | None = None


class NvidiaNimChat(OpenAIChatEndpoint):
    """NIM chat completions (``https://integrate.api.nvidia.com/v1/chat/completions``)."""


class NvidiaNimEmbeddings(OpenAIEmbeddingsEndpoint):
    """NIM embeddings (``https://integrate.api.nvidia.com/v1/embeddings``)."""

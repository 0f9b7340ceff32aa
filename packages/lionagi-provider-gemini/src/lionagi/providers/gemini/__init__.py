"""Google Gemini API provider for lionagi-service.

Five endpoints under provider ``gemini`` (alias ``gemini-api``), all keyed by ``GEMINI_API_KEY``:
``chat/completions`` (alias ``chat``) and ``embeddings`` (alias ``embed``) through Gemini's
OpenAI-compatible layer; ``generate_content`` (alias ``generate``), ``embed_content`` (alias
``native_embed``) and ``batch_embed_contents`` (alias ``native_batch_embed``) on the native
API (``generateContent``, ``embedContent``, ``batchEmbedContents``), whose keys are the methods'
names spelled like the first native row's. Model strings take no effort suffix
(``gemini/gemini-2.5-flash``); thinking is set in the request (``reasoning_effort`` /
``google.thinking_config`` on chat, ``generationConfig.thinkingConfig`` natively). The rows name
their classes by reference and the classes below load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lionagi.service import EndpointType, ProviderEndpointSpec, ProviderModelPolicy, lazy_exports
from lionagi.service.http import openai_compatible_specs

if TYPE_CHECKING:
    from ._chat_request import GeminiChatRequest
    from ._endpoints import (
        GeminiBatchEmbedContents,
        GeminiChat,
        GeminiEmbedContent,
        GeminiEmbeddings,
        GeminiGenerateContent,
    )
    from ._projector import GeminiStreamProjector
    from ._requests import (
        GeminiBatchEmbedContentsRequest,
        GeminiEmbedContentRequest,
        GeminiGenerateContentRequest,
    )

__all__ = [
    "API_KEY_ENV",
    "MODEL_POLICIES",
    "NATIVE_BASE_URL",
    "OPENAI_COMPATIBLE_BASE_URL",
    "PROVIDER_SPECS",
    "GeminiBatchEmbedContents",
    "GeminiBatchEmbedContentsRequest",
    "GeminiChat",
    "GeminiChatRequest",
    "GeminiEmbedContent",
    "GeminiEmbedContentRequest",
    "GeminiEmbeddings",
    "GeminiGenerateContent",
    "GeminiGenerateContentRequest",
    "GeminiStreamProjector",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "._endpoints": (
            "GeminiBatchEmbedContents",
            "GeminiChat",
            "GeminiEmbedContent",
            "GeminiEmbeddings",
            "GeminiGenerateContent",
        ),
        "._chat_request": ("GeminiChatRequest",),
        "._projector": ("GeminiStreamProjector",),
        "._requests": (
            "GeminiBatchEmbedContentsRequest",
            "GeminiEmbedContentRequest",
            "GeminiGenerateContentRequest",
        ),
    },
)

API_KEY_ENV = "GEMINI_API_KEY"
NATIVE_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
OPENAI_COMPATIBLE_BASE_URL = f"{NATIVE_BASE_URL}/openai"
_ALIASES = ("gemini-api",)


def _native(endpoint: str, alias: str, name: str) -> ProviderEndpointSpec:
    """A row on the native API: class ``name`` and its request model ``<name>Request``."""
    return ProviderEndpointSpec(
        provider="gemini",
        provider_aliases=_ALIASES,
        endpoint=endpoint,
        endpoint_aliases=(alias,),
        endpoint_type=EndpointType.API,
        endpoint_class=f"{__name__}._endpoints:{name}",
        request_options=f"{__name__}._requests:{name}Request",
        base_url=NATIVE_BASE_URL,
        auth_type="x-api-key",
        api_key_env=API_KEY_ENV,
    )


PROVIDER_SPECS = (
    *openai_compatible_specs(
        provider="gemini",
        provider_aliases=_ALIASES,
        base_url=OPENAI_COMPATIBLE_BASE_URL,
        api_key_env=API_KEY_ENV,
        chat_class=f"{__name__}._endpoints:GeminiChat",
        chat_request=f"{__name__}._chat_request:GeminiChatRequest",
        # Core's OpenAIEmbeddingsRequest, by reference; no default model (chat sets none either).
        embeddings_class=f"{__name__}._endpoints:GeminiEmbeddings",
    ),
    _native("generate_content", "generate", "GeminiGenerateContent"),
    # The native embeddings methods, one-shot only (no row default model, as for the
    # compatible embeddings row); "embed" is taken, as the alias of "embeddings".
    _native("embed_content", "native_embed", "GeminiEmbedContent"),
    _native("batch_embed_contents", "native_batch_embed", "GeminiBatchEmbedContents"),
)

# Gemini's API takes thinking settings in the request, not in the model name: a model string
# with an effort suffix is refused rather than guessed at. A model string that names no
# endpoint (``gemini/gemini-2.5-flash``) is chat, the dialect every caller can speak.
MODEL_POLICIES = (
    ProviderModelPolicy(provider="gemini", provider_aliases=_ALIASES, default_endpoint="chat"),
)

"""Ollama for lionagi-service: OpenAI-compatible chat and embeddings, native generate, chat, embed.

The rows name Ollama's classes by reference (imported on each endpoint's first use) and the
classes below load lazily, so other providers' commands never import them.
"""

from typing import TYPE_CHECKING

from lionagi.service import EndpointType, ProviderEndpointSpec, ProviderModelPolicy, lazy_exports

from ._static import DEFAULT_ORIGIN

if TYPE_CHECKING:
    from ._chat_request import OllamaChatRequest
    from ._embeddings_request import OllamaEmbeddingsRequest
    from ._endpoint import (
        OllamaChat,
        OllamaEmbeddings,
        OllamaGenerate,
        OllamaNativeChat,
        OllamaNativeEmbed,
    )
    from ._projector import OllamaGenerateProjector, OllamaNativeChatProjector
    from ._requests import (
        OllamaGenerateRequest,
        OllamaNativeChatRequest,
        OllamaNativeEmbedRequest,
        OllamaOptions,
    )

__all__ = [
    "DEFAULT_ORIGIN",
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "OllamaChat",
    "OllamaChatRequest",
    "OllamaEmbeddings",
    "OllamaEmbeddingsRequest",
    "OllamaGenerate",
    "OllamaGenerateProjector",
    "OllamaGenerateRequest",
    "OllamaNativeChat",
    "OllamaNativeChatProjector",
    "OllamaNativeChatRequest",
    "OllamaNativeEmbed",
    "OllamaNativeEmbedRequest",
    "OllamaOptions",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "._endpoint": (
            "OllamaChat",
            "OllamaEmbeddings",
            "OllamaGenerate",
            "OllamaNativeChat",
            "OllamaNativeEmbed",
        ),
        "._projector": ("OllamaGenerateProjector", "OllamaNativeChatProjector"),
        "._chat_request": ("OllamaChatRequest",),
        "._embeddings_request": ("OllamaEmbeddingsRequest",),
        "._requests": (
            "OllamaGenerateRequest",
            "OllamaNativeChatRequest",
            "OllamaNativeEmbedRequest",
            "OllamaOptions",
        ),
    },
)


def _row(endpoint: str, alias: str, cls: str, request: str, path: str) -> ProviderEndpointSpec:
    """One row: every Ollama row is keyless and served from the default origin."""
    return ProviderEndpointSpec(
        provider="ollama",
        endpoint=endpoint,
        endpoint_aliases=(alias,),
        endpoint_type=EndpointType.API,
        endpoint_class=f"{__name__}._endpoint:{cls}",
        request_options=request,
        base_url=f"{DEFAULT_ORIGIN}{path}",
        auth_type="none",
    )


PROVIDER_SPECS = (
    # Request models by reference too: building them at catalog build would cost every
    # command, not only the ones that talk to Ollama. Each /v1 row's model has a module of its
    # own and the native rows share one, so a chat call builds no native model. Chat is core's
    # dialect plus the message fields Ollama's own answers carry (``OllamaChatRequest``).
    _row(
        "chat/completions",
        "chat",
        "OllamaChat",
        f"{__name__}._chat_request:OllamaChatRequest",
        "/v1",
    ),
    _row(
        "embeddings",
        "embed",
        "OllamaEmbeddings",
        f"{__name__}._embeddings_request:OllamaEmbeddingsRequest",
        "/v1",
    ),
    _row(
        "generate",
        "completion",
        "OllamaGenerate",
        f"{__name__}._requests:OllamaGenerateRequest",
        "/api",
    ),
    # Native chat, for what /v1 cannot carry (options such as num_ctx, keep_alive, think
    # levels, a format schema). The key is its path under the server's origin: "chat" is
    # taken, as the alias of chat/completions (the default endpoint).
    _row(
        "api/chat",
        "native_chat",
        "OllamaNativeChat",
        f"{__name__}._requests:OllamaNativeChatRequest",
        "",
    ),
    # Native embeddings, for what /v1/embeddings cannot carry (options such as num_ctx,
    # keep_alive, truncate). Keyed by its path under the origin as api/chat is: "embed" is
    # taken, as the alias of embeddings.
    _row(
        "api/embed",
        "native_embed",
        "OllamaNativeEmbed",
        f"{__name__}._requests:OllamaNativeEmbedRequest",
        "",
    ),
)
# A model string naming no endpoint (``ollama/llama3.2``) is chat (``/v1``); embeddings and
# the native generate, chat and embed APIs are named.
MODEL_POLICIES = (ProviderModelPolicy(provider="ollama", default_endpoint="chat"),)

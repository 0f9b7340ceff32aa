"""Ollama for lionagi-service: OpenAI-compatible chat and embeddings, native generate.

The rows name Ollama's classes by reference (imported on the provider's first use) and the
classes below load lazily, so other providers' commands never import them.
"""

from typing import TYPE_CHECKING

from pydantic import BaseModel

from lionagi.service import (
    EndpointType,
    OpenAIChatCompletionsRequest,
    OpenAIEmbeddingsRequest,
    ProviderEndpointSpec,
    ProviderModelPolicy,
    lazy_exports,
)

from ._static import DEFAULT_ORIGIN

if TYPE_CHECKING:
    from ._endpoint import OllamaChat, OllamaEmbeddings, OllamaGenerate
    from ._projector import OllamaGenerateProjector
    from ._request import OllamaGenerateRequest, OllamaOptions

__all__ = [
    "DEFAULT_ORIGIN",
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "OllamaChat",
    "OllamaEmbeddings",
    "OllamaGenerate",
    "OllamaGenerateProjector",
    "OllamaGenerateRequest",
    "OllamaOptions",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "._endpoint": ("OllamaChat", "OllamaEmbeddings", "OllamaGenerate"),
        "._projector": ("OllamaGenerateProjector",),
        "._request": ("OllamaGenerateRequest", "OllamaOptions"),
    },
)


def _row(
    endpoint: str, alias: str, cls: str, request: type[BaseModel] | str, path: str
) -> ProviderEndpointSpec:
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
    _row("chat/completions", "chat", "OllamaChat", OpenAIChatCompletionsRequest, "/v1"),
    _row("embeddings", "embed", "OllamaEmbeddings", OpenAIEmbeddingsRequest, "/v1"),
    _row(
        "generate",
        "completion",
        "OllamaGenerate",
        f"{__name__}._request:OllamaGenerateRequest",
        "/api",
    ),
)
MODEL_POLICIES = (ProviderModelPolicy(provider="ollama"),)

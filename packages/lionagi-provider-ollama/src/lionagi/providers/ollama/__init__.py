"""Ollama for lionagi-service: OpenAI-compatible chat and embeddings, native generate."""

from typing import Any

from lionagi.service import (
    EndpointType,
    OpenAIChatCompletionsRequest,
    OpenAIEmbeddingsRequest,
    ProviderEndpointSpec,
    ProviderModelPolicy,
)

from ._endpoint import DEFAULT_ORIGIN, OllamaChat, OllamaEmbeddings, OllamaGenerate
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

_COMMON: dict[str, Any] = {"provider": "ollama", "endpoint_type": EndpointType.API, "auth_type": "none"}

PROVIDER_SPECS = (
    ProviderEndpointSpec(
        endpoint="chat/completions",
        endpoint_aliases=("chat",),
        endpoint_class=OllamaChat,
        request_options=OpenAIChatCompletionsRequest,
        base_url=f"{DEFAULT_ORIGIN}/v1",
        **_COMMON,
    ),
    ProviderEndpointSpec(
        endpoint="embeddings",
        endpoint_aliases=("embed",),
        endpoint_class=OllamaEmbeddings,
        request_options=OpenAIEmbeddingsRequest,
        base_url=f"{DEFAULT_ORIGIN}/v1",
        **_COMMON,
    ),
    ProviderEndpointSpec(
        endpoint="generate",
        endpoint_aliases=("completion",),
        endpoint_class=OllamaGenerate,
        request_options=OllamaGenerateRequest,
        base_url=f"{DEFAULT_ORIGIN}/api",
        **_COMMON,
    ),
)
MODEL_POLICIES = (ProviderModelPolicy(provider="ollama"),)

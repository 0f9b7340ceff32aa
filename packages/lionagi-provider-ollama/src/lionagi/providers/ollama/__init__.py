"""Ollama for lionagi-service: OpenAI-compatible chat and embeddings, native generate."""

from pydantic import BaseModel

from lionagi.service import (
    Endpoint,
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


def _row(
    endpoint: str, alias: str, cls: type[Endpoint], request: type[BaseModel], path: str
) -> ProviderEndpointSpec:
    """One row: every Ollama row is keyless and served from the default origin."""
    return ProviderEndpointSpec(
        provider="ollama",
        endpoint=endpoint,
        endpoint_aliases=(alias,),
        endpoint_type=EndpointType.API,
        endpoint_class=cls,
        request_options=request,
        base_url=f"{DEFAULT_ORIGIN}{path}",
        auth_type="none",
    )


PROVIDER_SPECS = (
    _row("chat/completions", "chat", OllamaChat, OpenAIChatCompletionsRequest, "/v1"),
    _row("embeddings", "embed", OllamaEmbeddings, OpenAIEmbeddingsRequest, "/v1"),
    _row("generate", "completion", OllamaGenerate, OllamaGenerateRequest, "/api"),
)
MODEL_POLICIES = (ProviderModelPolicy(provider="ollama"),)

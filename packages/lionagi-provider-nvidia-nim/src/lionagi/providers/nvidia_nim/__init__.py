"""NVIDIA NIM for lionagi-service: chat completions and embeddings rows."""

from lionagi.service import ProviderModelPolicy
from lionagi.service.http import openai_compatible_specs

from ._endpoint import NvidiaNimChat, NvidiaNimEmbeddings, NvidiaNimEmbeddingsRequest

__all__ = [
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "NvidiaNimChat",
    "NvidiaNimEmbeddings",
    "NvidiaNimEmbeddingsRequest",
]

PROVIDER_SPECS = openai_compatible_specs(
    provider="nvidia_nim",
    provider_aliases=("nvidia", "nim"),
    base_url="https://integrate.api.nvidia.com/v1",
    api_key_env="NVIDIA_NIM_API_KEY",
    chat_class=NvidiaNimChat,
    embeddings_class=NvidiaNimEmbeddings,
    embeddings_request=NvidiaNimEmbeddingsRequest,
)
MODEL_POLICIES = (ProviderModelPolicy(provider="nvidia_nim", provider_aliases=("nvidia", "nim")),)

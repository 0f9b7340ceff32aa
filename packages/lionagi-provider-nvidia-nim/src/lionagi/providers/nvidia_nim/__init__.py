"""NVIDIA NIM for lionagi-service: chat completions and embeddings rows.

The rows name their classes by reference and the names below load on first use.
"""

from typing import TYPE_CHECKING

from lionagi.service import ProviderModelPolicy, lazy_exports
from lionagi.service.http import openai_compatible_specs

if TYPE_CHECKING:
    from ._endpoint import (
        NvidiaNimChat,
        NvidiaNimChatRequest,
        NvidiaNimEmbeddings,
        NvidiaNimEmbeddingsRequest,
    )

__all__ = [
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "NvidiaNimChat",
    "NvidiaNimChatRequest",
    "NvidiaNimEmbeddings",
    "NvidiaNimEmbeddingsRequest",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "._endpoint": (
            "NvidiaNimChat",
            "NvidiaNimChatRequest",
            "NvidiaNimEmbeddings",
            "NvidiaNimEmbeddingsRequest",
        )
    },
)

PROVIDER_SPECS = openai_compatible_specs(
    provider="nvidia_nim",
    provider_aliases=("nvidia", "nim"),
    base_url="https://integrate.api.nvidia.com/v1",
    api_key_env="NVIDIA_NIM_API_KEY",
    chat_class=f"{__name__}._endpoint:NvidiaNimChat",
    chat_request=f"{__name__}._endpoint:NvidiaNimChatRequest",
    embeddings_class=f"{__name__}._endpoint:NvidiaNimEmbeddings",
    embeddings_request=f"{__name__}._endpoint:NvidiaNimEmbeddingsRequest",
)
# A model string naming no endpoint (``nvidia_nim/meta/llama-3.1-8b-instruct``) is chat.
MODEL_POLICIES = (
    ProviderModelPolicy(
        provider="nvidia_nim", provider_aliases=("nvidia", "nim"), default_endpoint="chat"
    ),
)

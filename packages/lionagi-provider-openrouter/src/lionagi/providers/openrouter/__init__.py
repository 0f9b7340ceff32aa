"""OpenRouter for lionagi-service: one chat-completions row over many upstream models.

The row names its classes by reference and the names below load on first use.
"""

from typing import TYPE_CHECKING

from lionagi.service import ProviderModelPolicy, lazy_exports
from lionagi.service.http import openai_compatible_specs

if TYPE_CHECKING:
    from ._endpoint import (
        OpenRouterCacheControl,
        OpenRouterChat,
        OpenRouterChatRequest,
        OpenRouterProjector,
        OpenRouterProviderPreferences,
        OpenRouterReasoning,
        OpenRouterUsage,
    )

__all__ = [
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "OpenRouterCacheControl",
    "OpenRouterChat",
    "OpenRouterChatRequest",
    "OpenRouterProjector",
    "OpenRouterProviderPreferences",
    "OpenRouterReasoning",
    "OpenRouterUsage",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "._endpoint": (
            "OpenRouterCacheControl",
            "OpenRouterChat",
            "OpenRouterChatRequest",
            "OpenRouterProjector",
            "OpenRouterProviderPreferences",
            "OpenRouterReasoning",
            "OpenRouterUsage",
        )
    },
)

PROVIDER_SPECS = openai_compatible_specs(
    provider="openrouter",
    provider_aliases=("open-router",),
    base_url="https://openrouter.ai/api/v1",
    api_key_env="OPENROUTER_API_KEY",
    chat_class=f"{__name__}._endpoint:OpenRouterChat",
    chat_request=f"{__name__}._endpoint:OpenRouterChatRequest",
)
MODEL_POLICIES = (ProviderModelPolicy(provider="openrouter", provider_aliases=("open-router",)),)

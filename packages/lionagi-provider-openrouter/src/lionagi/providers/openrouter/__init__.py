"""OpenRouter for lionagi-service: one chat-completions row over many upstream models."""

from lionagi.service import ProviderModelPolicy
from lionagi.service.http import openai_compatible_specs

from ._endpoint import (
    OpenRouterChat,
    OpenRouterChatRequest,
    OpenRouterProviderPreferences,
    OpenRouterReasoning,
    OpenRouterUsage,
)

__all__ = [
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "OpenRouterChat",
    "OpenRouterChatRequest",
    "OpenRouterProviderPreferences",
    "OpenRouterReasoning",
    "OpenRouterUsage",
]

PROVIDER_SPECS = openai_compatible_specs(
    provider="openrouter",
    provider_aliases=("open-router",),
    base_url="https://openrouter.ai/api/v1",
    api_key_env="OPENROUTER_API_KEY",
    chat_class=OpenRouterChat,
    chat_request=OpenRouterChatRequest,
)
MODEL_POLICIES = (ProviderModelPolicy(provider="openrouter", provider_aliases=("open-router",)),)

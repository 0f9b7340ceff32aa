"""Perplexity for lionagi-service: one chat-completions row with web search."""

from lionagi.service import ProviderModelPolicy
from lionagi.service.http import openai_compatible_specs

from ._endpoint import (
    PerplexityChat,
    PerplexityChatRequest,
    PerplexityProjector,
    PerplexityWebSearchOptions,
)

__all__ = [
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "PerplexityChat",
    "PerplexityChatRequest",
    "PerplexityProjector",
    "PerplexityWebSearchOptions",
]

PROVIDER_SPECS = openai_compatible_specs(
    provider="perplexity",
    base_url="https://api.perplexity.ai",
    api_key_env="PERPLEXITY_API_KEY",
    chat_class=PerplexityChat,
    chat_request=PerplexityChatRequest,
)
MODEL_POLICIES = (
    ProviderModelPolicy(
        provider="perplexity",
        effort_mode="kwarg",
        effort_kwarg="reasoning_effort",
        effort_levels=("low", "medium", "high"),
    ),
)

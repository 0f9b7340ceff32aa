"""Perplexity for lionagi-service: one chat-completions row with web search.

The row names its classes by reference and the names below load on first use.
"""

from typing import TYPE_CHECKING

from lionagi.service import ProviderModelPolicy, lazy_exports
from lionagi.service.http import openai_compatible_specs

if TYPE_CHECKING:
    from ._endpoint import (
        PerplexityChat,
        PerplexityChatRequest,
        PerplexityConciseProjector,
        PerplexityFilePart,
        PerplexityProjector,
        PerplexityWebSearchOptions,
    )

__all__ = [
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "PerplexityChat",
    "PerplexityChatRequest",
    "PerplexityConciseProjector",
    "PerplexityFilePart",
    "PerplexityProjector",
    "PerplexityWebSearchOptions",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "._endpoint": (
            "PerplexityChat",
            "PerplexityChatRequest",
            "PerplexityConciseProjector",
            "PerplexityFilePart",
            "PerplexityProjector",
            "PerplexityWebSearchOptions",
        )
    },
)

PROVIDER_SPECS = openai_compatible_specs(
    provider="perplexity",
    base_url="https://api.perplexity.ai",
    api_key_env="PERPLEXITY_API_KEY",
    chat_class=f"{__name__}._endpoint:PerplexityChat",
    chat_request=f"{__name__}._endpoint:PerplexityChatRequest",
)
MODEL_POLICIES = (
    ProviderModelPolicy(
        provider="perplexity",
        effort_mode="kwarg",
        effort_kwarg="reasoning_effort",
        effort_levels=("minimal", "low", "medium", "high"),
    ),
)

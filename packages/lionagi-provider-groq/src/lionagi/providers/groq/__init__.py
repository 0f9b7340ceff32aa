"""Groq for lionagi-service: one chat-completions row.

This module is what the catalog imports for every command, so it declares the row by reference
(``"module:Name"``) and re-exports the classes lazily: Groq's pydantic models load on the first
use of ``groq/...`` or of a name below, not when any other provider is used.
"""

from typing import TYPE_CHECKING

from lionagi.service import ProviderModelPolicy, lazy_exports
from lionagi.service.http import openai_compatible_specs

if TYPE_CHECKING:
    from ._endpoint import GroqChat, GroqChatRequest, GroqProjector, GroqSearchSettings

__all__ = [
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "GroqChat",
    "GroqChatRequest",
    "GroqProjector",
    "GroqSearchSettings",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {"._endpoint": ("GroqChat", "GroqChatRequest", "GroqProjector", "GroqSearchSettings")},
)

PROVIDER_SPECS = openai_compatible_specs(
    provider="groq",
    base_url="https://api.groq.com/openai/v1",
    api_key_env="GROQ_API_KEY",
    chat_class=f"{__name__}._endpoint:GroqChat",
    chat_request=f"{__name__}._endpoint:GroqChatRequest",
)
MODEL_POLICIES = (
    ProviderModelPolicy(
        provider="groq",
        effort_mode="kwarg",
        effort_kwarg="reasoning_effort",
        effort_levels=("none", "low", "medium", "high"),
    ),
)

"""Groq for lionagi-service: one chat-completions row."""

from lionagi.service import ProviderModelPolicy
from lionagi.service.http import openai_compatible_specs

from ._endpoint import GroqChat, GroqChatRequest, GroqSearchSettings

__all__ = ["MODEL_POLICIES", "PROVIDER_SPECS", "GroqChat", "GroqChatRequest", "GroqSearchSettings"]

PROVIDER_SPECS = openai_compatible_specs(
    provider="groq",
    base_url="https://api.groq.com/openai/v1",
    api_key_env="GROQ_API_KEY",
    chat_class=GroqChat,
    chat_request=GroqChatRequest,
)
MODEL_POLICIES = (
    ProviderModelPolicy(
        provider="groq",
        effort_mode="kwarg",
        effort_kwarg="reasoning_effort",
        effort_levels=("none", "low", "medium", "high"),
    ),
)

"""DeepSeek for lionagi-service: one chat-completions row; reasoning arrives as thinking."""

from lionagi.service import ProviderModelPolicy
from lionagi.service.http import openai_compatible_specs

from ._endpoint import DeepSeekChat, DeepSeekChatRequest, DeepSeekThinking

__all__ = [
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "DeepSeekChat",
    "DeepSeekChatRequest",
    "DeepSeekThinking",
]

PROVIDER_SPECS = openai_compatible_specs(
    provider="deepseek",
    base_url="https://api.deepseek.com/v1",
    api_key_env="DEEPSEEK_API_KEY",
    chat_class=DeepSeekChat,
    chat_request=DeepSeekChatRequest,
)
MODEL_POLICIES = (ProviderModelPolicy(provider="deepseek"),)

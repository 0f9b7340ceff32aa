"""DeepSeek for lionagi-service: one chat-completions row; reasoning arrives as thinking.

The row names its classes by reference and the names below load on first use, so DeepSeek's
models are not built by commands that use another provider.
"""

from typing import TYPE_CHECKING

from lionagi.service import ProviderModelPolicy, lazy_exports
from lionagi.service.http import openai_compatible_specs

if TYPE_CHECKING:
    from ._endpoint import DeepSeekChat, DeepSeekChatRequest, DeepSeekProjector, DeepSeekThinking

__all__ = [
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "DeepSeekChat",
    "DeepSeekChatRequest",
    "DeepSeekProjector",
    "DeepSeekThinking",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "._endpoint": (
            "DeepSeekChat",
            "DeepSeekChatRequest",
            "DeepSeekProjector",
            "DeepSeekThinking",
        )
    },
)

PROVIDER_SPECS = openai_compatible_specs(
    provider="deepseek",
    base_url="https://api.deepseek.com/v1",
    api_key_env="DEEPSEEK_API_KEY",
    chat_class=f"{__name__}._endpoint:DeepSeekChat",
    chat_request=f"{__name__}._endpoint:DeepSeekChatRequest",
)
MODEL_POLICIES = (ProviderModelPolicy(provider="deepseek"),)

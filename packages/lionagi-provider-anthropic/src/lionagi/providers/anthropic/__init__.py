"""Anthropic Messages API provider for lionagi-service (``anthropic/<model>``).

One catalog row: provider ``anthropic``, endpoint ``messages`` (alias ``chat``) at
``https://api.anthropic.com/v1``, key from ``ANTHROPIC_API_KEY`` sent as ``x-api-key``, every
request naming ``anthropic-version: 2023-06-01``. ``max_tokens`` defaults to
:data:`DEFAULT_MAX_TOKENS` through ``request_defaults``.

Model policy: no effort suffix. Anthropic's reasoning control is ``thinking`` with an explicit
``budget_tokens`` that must stay below the request's ``max_tokens``; a level such as ``-high``
would have to invent a token count, so callers pass
``thinking={"type": "enabled", "budget_tokens": N}`` instead and a suffix is refused.

The catalog imports this module for every command, so the row names its class and request model
by reference and the other names load on first use (``lazy_exports``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lionagi.service import EndpointType, ProviderEndpointSpec, ProviderModelPolicy, lazy_exports

from ._static import DEFAULT_MAX_TOKENS

if TYPE_CHECKING:
    from ._endpoint import ANTHROPIC_VERSION, AnthropicMessagesEndpoint, anthropic_status_error
    from ._projector import ANTHROPIC_IGNORED_EVENTS, AnthropicMessagesProjector
    from ._request import AnthropicMessagesRequest

__all__ = [
    "ANTHROPIC_IGNORED_EVENTS",
    "ANTHROPIC_VERSION",
    "DEFAULT_MAX_TOKENS",
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "AnthropicMessagesEndpoint",
    "AnthropicMessagesProjector",
    "AnthropicMessagesRequest",
    "anthropic_status_error",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "._endpoint": ("ANTHROPIC_VERSION", "AnthropicMessagesEndpoint", "anthropic_status_error"),
        "._projector": ("ANTHROPIC_IGNORED_EVENTS", "AnthropicMessagesProjector"),
        "._request": ("AnthropicMessagesRequest",),
    },
)

PROVIDER_SPECS = (
    ProviderEndpointSpec(
        provider="anthropic",
        endpoint="messages",
        endpoint_aliases=("chat",),
        endpoint_type=EndpointType.API,
        endpoint_class=f"{__name__}._endpoint:AnthropicMessagesEndpoint",
        request_options=f"{__name__}._request:AnthropicMessagesRequest",
        base_url="https://api.anthropic.com/v1",
        auth_type="x-api-key",
        api_key_env="ANTHROPIC_API_KEY",
        request_defaults={"max_tokens": DEFAULT_MAX_TOKENS},
    ),
)

MODEL_POLICIES = (ProviderModelPolicy(provider="anthropic", effort_mode="none"),)

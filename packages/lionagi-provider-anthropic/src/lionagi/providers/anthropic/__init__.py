"""Anthropic Messages API provider for lionagi-service (``anthropic/<model>``).

One catalog row: provider ``anthropic``, endpoint ``messages`` (alias ``chat``) at
``https://api.anthropic.com/v1``, key from ``ANTHROPIC_API_KEY`` sent as ``x-api-key``, every
request naming ``anthropic-version: 2023-06-01``. ``max_tokens`` defaults to
:data:`DEFAULT_MAX_TOKENS` through ``request_defaults``.

Model policy: no effort suffix. Anthropic's reasoning control is ``thinking`` with an explicit
``budget_tokens`` that must stay below the request's ``max_tokens``; a level such as ``-high``
would have to invent a token count, so callers pass
``thinking={"type": "enabled", "budget_tokens": N}`` instead and a suffix is refused.
"""

from __future__ import annotations

from lionagi.service import EndpointType, ProviderEndpointSpec, ProviderModelPolicy

from ._endpoint import (
    ANTHROPIC_VERSION,
    AnthropicMessagesEndpoint,
    anthropic_status_error,
)
from ._projector import ANTHROPIC_IGNORED_EVENTS, AnthropicMessagesProjector
from ._request import DEFAULT_MAX_TOKENS, AnthropicMessagesRequest

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

PROVIDER_SPECS = (
    ProviderEndpointSpec(
        provider="anthropic",
        endpoint="messages",
        endpoint_aliases=("chat",),
        endpoint_type=EndpointType.API,
        endpoint_class=AnthropicMessagesEndpoint,
        request_options=AnthropicMessagesRequest,
        base_url="https://api.anthropic.com/v1",
        auth_type="x-api-key",
        api_key_env="ANTHROPIC_API_KEY",
        request_defaults={"max_tokens": DEFAULT_MAX_TOKENS},
    ),
)

MODEL_POLICIES = (ProviderModelPolicy(provider="anthropic", effort_mode="none"),)

"""Acme for lionagi-service: an HTTP chat row and an agentic CLI row.

Core finds this module through the ``lionagi.providers`` entry point ``acme`` and validates
``PROVIDER_SPECS`` and ``MODEL_POLICIES`` together with every other installed provider.
"""

from lionagi.service import EndpointType, ProviderEndpointSpec, ProviderModelPolicy
from lionagi.service.http import openai_compatible_specs

from ._cli import AcmeCli, AcmeCliRequest
from ._http import AcmeChat, AcmeChatRequest

__all__ = [
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "AcmeChat",
    "AcmeChatRequest",
    "AcmeCli",
    "AcmeCliRequest",
]

PROVIDER_SPECS: tuple[ProviderEndpointSpec, ...] = (
    *openai_compatible_specs(
        provider="acme",
        base_url="https://api.acme.example/v1",
        api_key_env="ACME_API_KEY",
        chat_class=AcmeChat,
        chat_request=AcmeChatRequest,
    ),
    ProviderEndpointSpec(
        provider="acme",
        endpoint="query_cli",
        endpoint_type=EndpointType.AGENTIC,
        endpoint_class=AcmeCli,
        endpoint_aliases=("cli",),
        request_options=AcmeCliRequest,
    ),
)

MODEL_POLICIES = (
    ProviderModelPolicy(
        provider="acme",
        effort_mode="kwarg",
        effort_kwarg="reasoning_effort",
        effort_levels=("low", "medium", "high"),
        default_endpoint="chat",
    ),
)

"""OpenAI for lionagi-service: chat completions, the Responses API and embeddings.

``PROVIDER_SPECS`` is what core's catalog reads through the ``lionagi.providers`` entry point.
The rows share one base URL, bearer auth and ``OPENAI_API_KEY``; each names its endpoint class
(the declared wire dialect) and its typed request model. No ``MODEL_POLICIES``: reasoning effort
is a request field (``reasoning_effort`` on chat, ``reasoning={"effort": ...}`` on responses),
see ``docs/providers/openai.md``.
"""

from __future__ import annotations

from lionagi.service import EndpointType, ProviderEndpointSpec
from lionagi.service.http import openai_compatible_specs

from ._endpoints import (
    OpenAIChatCompletionsEndpoint,
    OpenAIEmbeddingsAPIEndpoint,
    OpenAIResponsesEndpoint,
)
from ._requests import OpenAIResponsesRequest, ResponsesReasoning, ResponsesText
from ._responses_stream import RESPONSES_IGNORED_EVENTS, ResponsesProjector

__all__ = [
    "API_KEY_ENV",
    "BASE_URL",
    "PROVIDER_SPECS",
    "RESPONSES_IGNORED_EVENTS",
    "OpenAIChatCompletionsEndpoint",
    "OpenAIEmbeddingsAPIEndpoint",
    "OpenAIResponsesEndpoint",
    "OpenAIResponsesRequest",
    "ResponsesProjector",
    "ResponsesReasoning",
    "ResponsesText",
]

BASE_URL = "https://api.openai.com/v1"
API_KEY_ENV = "OPENAI_API_KEY"

_CHAT, _EMBEDDINGS = openai_compatible_specs(
    provider="openai",
    base_url=BASE_URL,
    api_key_env=API_KEY_ENV,
    chat_class=OpenAIChatCompletionsEndpoint,
    embeddings_class=OpenAIEmbeddingsAPIEndpoint,
)

PROVIDER_SPECS = (
    _CHAT,
    ProviderEndpointSpec(
        provider="openai",
        endpoint="responses",
        endpoint_aliases=("response",),
        endpoint_type=EndpointType.API,
        endpoint_class=OpenAIResponsesEndpoint,
        request_options=OpenAIResponsesRequest,
        base_url=BASE_URL,
        auth_type="bearer",
        api_key_env=API_KEY_ENV,
    ),
    _EMBEDDINGS,
)

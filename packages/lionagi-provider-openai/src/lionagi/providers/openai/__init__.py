"""OpenAI for lionagi-service: chat completions, the Responses API and embeddings.

``PROVIDER_SPECS`` is what core's catalog reads through the ``lionagi.providers`` entry point.
The rows share one base URL, bearer auth and ``OPENAI_API_KEY``; each names its endpoint class
(the declared wire dialect) and its typed request model, by reference: they are imported on that
endpoint's first use, and the names below load lazily. Embeddings use core's shared body with
OpenAI's documented ``input`` limits (:class:`OpenAIEmbeddingsAPIRequest`). ``MODEL_POLICIES``
says only that a model string naming no endpoint (``openai/gpt-4.1``) is chat, and that model
names are sent as written: reasoning effort is a request field (``reasoning_effort`` on chat,
``reasoning={"effort": ...}`` on responses), and a name ending in ``-max`` is a model
(``gpt-5.1-codex-max``), see ``docs/providers/openai.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lionagi.service import EndpointType, ProviderEndpointSpec, ProviderModelPolicy, lazy_exports
from lionagi.service.http import openai_compatible_specs

if TYPE_CHECKING:
    from ._embeddings import OpenAIEmbeddingsAPIRequest
    from ._endpoints import (
        OpenAIChatCompletionsEndpoint,
        OpenAIChatProjector,
        OpenAIEmbeddingsAPIEndpoint,
    )
    from ._requests import OpenAIChatRequest
    from ._responses_endpoint import OpenAIResponsesEndpoint
    from ._responses_request import OpenAIResponsesRequest, ResponsesReasoning, ResponsesText
    from ._responses_stream import RESPONSES_IGNORED_EVENTS, ResponsesProjector

__all__ = [
    "API_KEY_ENV",
    "BASE_URL",
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "RESPONSES_IGNORED_EVENTS",
    "OpenAIChatCompletionsEndpoint",
    "OpenAIChatProjector",
    "OpenAIChatRequest",
    "OpenAIEmbeddingsAPIEndpoint",
    "OpenAIEmbeddingsAPIRequest",
    "OpenAIResponsesEndpoint",
    "OpenAIResponsesRequest",
    "ResponsesProjector",
    "ResponsesReasoning",
    "ResponsesText",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "._embeddings": ("OpenAIEmbeddingsAPIRequest",),
        "._endpoints": (
            "OpenAIChatCompletionsEndpoint",
            "OpenAIChatProjector",
            "OpenAIEmbeddingsAPIEndpoint",
        ),
        "._requests": ("OpenAIChatRequest",),
        "._responses_endpoint": ("OpenAIResponsesEndpoint",),
        "._responses_request": ("OpenAIResponsesRequest", "ResponsesReasoning", "ResponsesText"),
        "._responses_stream": ("RESPONSES_IGNORED_EVENTS", "ResponsesProjector"),
    },
)

BASE_URL = "https://api.openai.com/v1"
API_KEY_ENV = "OPENAI_API_KEY"

_CHAT, _EMBEDDINGS = openai_compatible_specs(
    provider="openai",
    base_url=BASE_URL,
    api_key_env=API_KEY_ENV,
    chat_class=f"{__name__}._endpoints:OpenAIChatCompletionsEndpoint",
    chat_request=f"{__name__}._requests:OpenAIChatRequest",
    embeddings_class=f"{__name__}._endpoints:OpenAIEmbeddingsAPIEndpoint",
    embeddings_request=f"{__name__}._embeddings:OpenAIEmbeddingsAPIRequest",
)

PROVIDER_SPECS = (
    _CHAT,
    ProviderEndpointSpec(
        provider="openai",
        endpoint="responses",
        endpoint_aliases=("response",),
        endpoint_type=EndpointType.API,
        endpoint_class=f"{__name__}._responses_endpoint:OpenAIResponsesEndpoint",
        request_options=f"{__name__}._responses_request:OpenAIResponsesRequest",
        base_url=BASE_URL,
        auth_type="bearer",
        api_key_env=API_KEY_ENV,
    ),
    _EMBEDDINGS,
)

# Chat is what a caller means by "openai/<model>" with no endpoint (the legacy default, and the
# dialect every OpenAI-compatible server speaks); the Responses API and embeddings are named.
MODEL_POLICIES = (
    ProviderModelPolicy(provider="openai", effort_mode="passthrough", default_endpoint="chat"),
)

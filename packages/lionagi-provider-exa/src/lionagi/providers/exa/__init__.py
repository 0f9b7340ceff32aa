"""Exa for lionagi-service: web search, page contents, find-similar and grounded answers.

``PROVIDER_SPECS`` is what core's catalog reads through the ``lionagi.providers`` entry point:
four rows at ``https://api.exa.ai`` with the key in ``x-api-key`` (``EXA_API_KEY``), each with
its typed request model. Contents and find-similar are one-shot JSON: ``stream()`` is refused
before any request. ``answer`` is one-shot with ``invoke()`` and Exa's answer stream with
``stream()``; ``search`` likewise, its stream being the same grammar. The rows name their
classes by reference and the classes below load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lionagi.service import EndpointType, ProviderEndpointSpec, ProviderModelPolicy, lazy_exports

if TYPE_CHECKING:
    from ._answer import ExaAnswerProjector
    from ._endpoints import (
        ExaAnswerEndpoint,
        ExaContentsEndpoint,
        ExaEndpoint,
        ExaFindSimilarEndpoint,
        ExaSearchEndpoint,
    )
    from ._requests import (
        ExaAnswerRequest,
        ExaContentsOptions,
        ExaContentsRequest,
        ExaFindSimilarRequest,
        ExaHighlightsOptions,
        ExaSearchRequest,
        ExaSummaryOptions,
        ExaTextOptions,
    )

__all__ = [
    "API_KEY_ENV",
    "BASE_URL",
    "MODEL_POLICIES",
    "PROVIDER_SPECS",
    "ExaAnswerEndpoint",
    "ExaAnswerProjector",
    "ExaAnswerRequest",
    "ExaContentsEndpoint",
    "ExaContentsOptions",
    "ExaContentsRequest",
    "ExaEndpoint",
    "ExaFindSimilarEndpoint",
    "ExaFindSimilarRequest",
    "ExaHighlightsOptions",
    "ExaSearchEndpoint",
    "ExaSearchRequest",
    "ExaSummaryOptions",
    "ExaTextOptions",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "._answer": ("ExaAnswerProjector",),
        "._endpoints": (
            "ExaAnswerEndpoint",
            "ExaContentsEndpoint",
            "ExaEndpoint",
            "ExaFindSimilarEndpoint",
            "ExaSearchEndpoint",
        ),
        "._requests": (
            "ExaAnswerRequest",
            "ExaContentsOptions",
            "ExaContentsRequest",
            "ExaFindSimilarRequest",
            "ExaHighlightsOptions",
            "ExaSearchRequest",
            "ExaSummaryOptions",
            "ExaTextOptions",
        ),
    },
)

BASE_URL = "https://api.exa.ai"
API_KEY_ENV = "EXA_API_KEY"


def _row(endpoint: str, aliases: tuple[str, ...], cls: str, request: str) -> ProviderEndpointSpec:
    return ProviderEndpointSpec(
        provider="exa",
        endpoint=endpoint,
        endpoint_aliases=aliases,
        endpoint_type=EndpointType.API,
        endpoint_class=f"{__name__}._endpoints:{cls}",
        request_options=f"{__name__}._requests:{request}",
        base_url=BASE_URL,
        auth_type="x-api-key",
        api_key_env=API_KEY_ENV,
    )


PROVIDER_SPECS = (
    _row("search", (), "ExaSearchEndpoint", "ExaSearchRequest"),
    _row("contents", ("get_contents",), "ExaContentsEndpoint", "ExaContentsRequest"),
    _row(
        "findSimilar",
        ("similar", "find_similar"),
        "ExaFindSimilarEndpoint",
        "ExaFindSimilarRequest",
    ),
    _row("answer", (), "ExaAnswerEndpoint", "ExaAnswerRequest"),
)
# ``answer`` is the one row whose request names a model (``exa``, ``exa-pro``): a model string,
# ``exa/exa-pro``, selects it. The name is sent as written and checked by the request model.
MODEL_POLICIES = (
    ProviderModelPolicy(provider="exa", effort_mode="passthrough", default_endpoint="answer"),
)

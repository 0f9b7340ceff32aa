"""Exa's endpoint classes: one-shot JSON calls, one class per catalog row.

Exa answers a request with one JSON document; it has no stream. Each class declares no stream
dialect (``projector = None``) and no stream flag, so ``stream()`` is refused with
``EndpointConfigurationError(field="stream")`` before a payload is built or a request sent.

Errors: Exa's body is ``{"requestId", "error": "<message>", "tag": "<TAG>"}``. The status says
most of it (401 key, 403 access, 429 rate); the tag says what the status cannot: running out of
credits (``NO_MORE_CREDITS``, ``API_KEY_BUDGET_EXCEEDED``) is billing, not a rate limit, so it is
a :class:`~lionagi.service.ProviderQuotaExhaustedError` and is never retried.
"""

from __future__ import annotations

from typing import ClassVar

from lionagi.service import Endpoint, ProviderError, ProviderQuotaExhaustedError
from lionagi.service.http import HTTPErrorInfo, StreamProjector

__all__ = ["ExaContentsEndpoint", "ExaEndpoint", "ExaFindSimilarEndpoint", "ExaSearchEndpoint"]

_QUOTA_TAGS = frozenset({"NO_MORE_CREDITS", "API_KEY_BUDGET_EXCEEDED"})


def exa_tag(info: HTTPErrorInfo) -> str | None:
    """The ``tag`` of an Exa error body, or None."""
    body = info.body
    if isinstance(body, dict):
        tag = body.get("tag")
        if isinstance(tag, str) and tag:
            return tag
    return None


class ExaEndpoint(Endpoint):
    """What every Exa endpoint shares: one-shot only, and Exa's error tags."""

    projector: ClassVar[type[StreamProjector] | None] = None
    stream_flag: ClassVar[str | None] = None

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """Credits used up -> quota exhausted (not retried); the rest by status."""
        if exa_tag(info) in _QUOTA_TAGS:
            return ProviderQuotaExhaustedError(
                f"{info.where}: the Exa account is out of credits (HTTP {info.status}; billing, "
                f"not a rate limit, so it is not retried){info.suffix}",
                status=info.status,
                body_excerpt=info.excerpt,
            )
        return super().map_status_error(info)


class ExaSearchEndpoint(ExaEndpoint):
    """``POST /search``."""


class ExaContentsEndpoint(ExaEndpoint):
    """``POST /contents``."""


class ExaFindSimilarEndpoint(ExaEndpoint):
    """``POST /findSimilar``."""

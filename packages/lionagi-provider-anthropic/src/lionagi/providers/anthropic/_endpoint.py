"""The Messages endpoint: its dialect, its fixed version header and its error vocabulary.

Anthropic answers every request with an ``{"type": "error", "error": {"type", "message"}}``
body; the status alone cannot tell a context overflow or an empty credit balance (both HTTP 400)
from any other refused request, so :func:`anthropic_status_error` reads the error type and text:

========================================  =========================================  ===========
body                                      typed error                                retried
========================================  =========================================  ===========
``overloaded_error`` / HTTP 529           :class:`ProviderStatusCapacityError`       yes
"prompt is too long", "exceed context"    :class:`ProviderStatusContextError`        no
"credit balance is too low", billing      :class:`ProviderQuotaExhaustedError`       no
``rate_limit_error`` / HTTP 429           :class:`ProviderRateLimitError` (base)     yes
HTTP 401 / 403                            :class:`ProviderUnauthorizedError` (base)  no
========================================  =========================================  ===========

Messages carry only the bounded, redacted body excerpt core prepared.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import httpx

from lionagi.service import (
    Endpoint,
    EndpointConfig,
    ProviderError,
    ProviderQuotaExhaustedError,
    ProviderStatusCapacityError,
    ProviderStatusContextError,
)
from lionagi.service.http import HTTPErrorInfo, Resolver, StreamProjector

from ._projector import AnthropicMessagesProjector

__all__ = [
    "ANTHROPIC_VERSION",
    "VERSION_HEADER",
    "AnthropicMessagesEndpoint",
    "anthropic_status_error",
]

VERSION_HEADER = "anthropic-version"
ANTHROPIC_VERSION = "2023-06-01"
"""The API version every request names (Anthropic refuses a request without one)."""

_OVERLOADED = 529
_CONTEXT_PHRASES = ("prompt is too long", "exceed context limit", "exceeds the context window")
_CREDIT_PHRASES = ("credit balance is too low",)


def _text(value: object) -> str:
    return value.casefold() if isinstance(value, str) else ""


def anthropic_status_error(info: HTTPErrorInfo) -> ProviderError | None:
    """The typed error an Anthropic error body names, or None for core's status mapping."""
    error = info.error
    kind = _text(error.get("type"))
    message = _text(error.get("message")) or info.excerpt.casefold()
    if info.status >= 500 and (info.status == _OVERLOADED or kind == "overloaded_error"):
        return ProviderStatusCapacityError(
            f"{info.where} is overloaded (HTTP {info.status}; temporary, retried){info.suffix}",
            status=info.status,
            body_excerpt=info.excerpt,
            retry_after=info.retry_after,
        )
    if 400 <= info.status < 500 and any(p in message for p in _CONTEXT_PHRASES):
        return ProviderStatusContextError(
            f"{info.where} refused the request: it does not fit the model's context window "
            f"(HTTP {info.status}){info.suffix}",
            status=info.status,
            body_excerpt=info.excerpt,
        )
    if kind == "billing_error" or any(p in message for p in _CREDIT_PHRASES):
        return ProviderQuotaExhaustedError(
            f"{info.where}: the account's credit balance is exhausted (HTTP {info.status}; "
            f"billing, not a rate limit, so it is not retried){info.suffix}",
            status=info.status,
            body_excerpt=info.excerpt,
        )
    return None


def _names_version(headers: Mapping[str, str]) -> bool:
    return any(name.lower() == VERSION_HEADER for name in headers)


class AnthropicMessagesEndpoint(Endpoint):
    """``POST {base_url}/messages``: one-shot JSON or an SSE event stream.

    Streams are projected by :class:`AnthropicMessagesProjector`; ``stream: true`` is the
    stream flag. Every request carries ``anthropic-version: 2023-06-01``: it is added to the
    config's ``default_headers`` at construction, so it is sent on every path (including a
    payload created earlier and sent with ``skip_payload_creation``), shows in ``to_dict``,
    and a caller's own ``anthropic-version`` (in ``default_headers`` or ``extra_headers``)
    wins over it.
    """

    projector: ClassVar[type[StreamProjector] | None] = AnthropicMessagesProjector

    def __init__(
        self,
        config: EndpointConfig | Mapping[str, Any] | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        resolver: Resolver | None = None,
        **overrides: Any,
    ) -> None:
        """Bind a config (see :class:`Endpoint`) and make sure it names the API version."""
        super().__init__(config, transport=transport, resolver=resolver, **overrides)
        current = self.config
        if not _names_version(current.default_headers):
            # The config is immutable and bound by the base; binding the versioned copy the
            # same way keeps one code path for catalog-built and hand-built endpoints. Nothing
            # was opened yet (the client is created on first use), so nothing is left behind.
            headers = {VERSION_HEADER: ANTHROPIC_VERSION, **current.default_headers}
            versioned = current.with_updates(default_headers=headers)
            super().__init__(versioned, transport=transport, resolver=resolver)

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """Anthropic's error types and texts (:func:`anthropic_status_error`), then the base's."""
        return anthropic_status_error(info) or super().map_status_error(info)

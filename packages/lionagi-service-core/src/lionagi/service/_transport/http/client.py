"""The one seam between an endpoint and its HTTP client library.

Everything the endpoint needs from a client is ``build_request``, ``send(stream=True)`` and
``aclose``; :func:`new_client` is the only place that constructs one, so an alternative
httpx-compatible client can be measured by replacing this function (or overriding
``Endpoint._new_client``) without touching request, status or stream handling.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import httpx

from ..._base.errors import EndpointConfigurationError
from ..config import EndpointConfig

__all__ = ["DEFAULT_LIMITS", "ClientState", "new_client"]

# Concurrency is bounded by admission (ADR-0029), not by a hidden pool cap that would queue work
# outside the request deadline's view; keep-alive is generous so bursts reuse connections.
DEFAULT_LIMITS = httpx.Limits(
    max_connections=None, max_keepalive_connections=100, keepalive_expiry=30.0
)

_FORBIDDEN_CLIENT_KWARGS = {
    "follow_redirects": "redirects are never followed: each hop would bypass the SSRF guard",
    "base_url": "the endpoint builds absolute URLs from config.base_url",
    "transport": "pass transport= to the endpoint constructor instead",
}


class ClientState(Enum):
    """Lifecycle of the endpoint's client: created lazily, closed once, never reopened."""

    UNOPENED = "unopened"
    OPENED = "opened"
    CLOSED = "closed"


def new_client(
    config: EndpointConfig, transport: httpx.AsyncBaseTransport | None = None
) -> httpx.AsyncClient:
    """A pooled client for ``config``: no redirects, ``client_kwargs`` applied.

    Raises:
        EndpointConfigurationError: a ``client_kwargs`` key is forbidden or not understood.
    """
    kwargs: dict[str, Any] = {"limits": DEFAULT_LIMITS, "timeout": config.timeout}
    for key, value in config.client_kwargs.items():
        if key in _FORBIDDEN_CLIENT_KWARGS and not (key == "follow_redirects" and not value):
            raise EndpointConfigurationError(f"client_kwargs.{key}", _FORBIDDEN_CLIENT_KWARGS[key])
        kwargs[key] = value
    kwargs["follow_redirects"] = False
    if transport is not None:
        kwargs["transport"] = transport
    try:
        return httpx.AsyncClient(**kwargs)
    except TypeError as exc:
        raise EndpointConfigurationError("client_kwargs", str(exc)) from None

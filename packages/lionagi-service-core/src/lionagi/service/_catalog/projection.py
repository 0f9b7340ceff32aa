"""Inspection: the typed, sorted, secret-free projection of a snapshot (ADR-0028 D5).

Provider names and aliases are canonical keys. Endpoint names and aliases keep their declared
spelling because they double as URL paths (``findSimilar``); rows and nested endpoints are sorted
by canonical key. No API key, key value, request default or header ever appears.
"""

from __future__ import annotations

from typing import Literal, TypedDict
from urllib.parse import urlsplit, urlunsplit

from .._base.secrets import redact
from .keys import canonical_endpoint_key
from .snapshot import CatalogEndpoint, CatalogSnapshot

__all__ = ["EndpointCatalogItem", "ProviderCatalogItem", "project"]


class EndpointCatalogItem(TypedDict):
    """One endpoint row."""

    endpoint: str
    aliases: list[str]
    endpoint_type: Literal["api", "agentic"]
    endpoint_class: str
    request_options: str | None
    base_url: str | None


class ProviderCatalogItem(TypedDict):
    """One provider row; an unavailable provider has no endpoints and its import diagnostic."""

    provider: str
    aliases: list[str]
    availability: Literal["available", "unavailable"]
    endpoints: list[EndpointCatalogItem]
    diagnostics: list[dict[str, str | None]]


def project(snapshot: CatalogSnapshot) -> list[ProviderCatalogItem]:
    """Return one row per installed provider, sorted by canonical key."""
    by_provider: dict[str, list[dict[str, str | None]]] = {}
    for diag in snapshot.diagnostics:
        by_provider.setdefault(diag.provider, []).append(diag.to_dict())
    rows: list[ProviderCatalogItem] = []
    for key in sorted({*snapshot.providers, *snapshot.unavailable}):
        provider = snapshot.providers.get(key)
        if provider is None:
            rows.append(
                ProviderCatalogItem(
                    provider=key,
                    aliases=[],
                    availability="unavailable",
                    endpoints=[],
                    diagnostics=by_provider.get(key, []),
                )
            )
            continue
        rows.append(
            ProviderCatalogItem(
                provider=key,
                aliases=list(provider.aliases),
                availability="available",
                endpoints=[_endpoint(provider.endpoints[k]) for k in provider.endpoint_keys],
                diagnostics=by_provider.get(key, []),
            )
        )
    return rows


def _endpoint(entry: CatalogEndpoint) -> EndpointCatalogItem:
    options = entry.request_options
    cls = entry.endpoint_class
    return EndpointCatalogItem(
        endpoint=entry.endpoint,
        aliases=sorted(entry.aliases, key=canonical_endpoint_key),
        endpoint_type="agentic" if entry.endpoint_type.value == "agentic" else "api",
        endpoint_class=f"{cls.__module__}:{cls.__qualname__}",
        request_options=f"{options.__module__}:{options.__qualname__}" if options else None,
        base_url=_public_url(entry.meta.base_url),
    )


def _public_url(url: str | None) -> str | None:
    """Drop credentials, query and fragment a URL might carry."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact(url.split("?", 1)[0])
    netloc = parts.netloc.rpartition("@")[2]
    return redact(urlunsplit((parts.scheme, netloc, parts.path, "", "")))

"""Inspection: the typed, sorted, secret-free projection of a snapshot (ADR-0028 D5).

Provider names and aliases are canonical keys. Endpoint names and aliases keep their declared
spelling because they double as URL paths (``findSimilar``); rows and nested endpoints are sorted
by canonical key. No API key, key value, request default or header ever appears.

Every row names the module and the distribution that installed it. When the catalog does not
validate, :func:`project_inventory` still lists every installed row (nothing is selectable then):
``invalid`` rows have a diagnostic of their own to fix, ``unavailable`` rows only failed to
import, and ``blocked`` rows are sound but cannot be served until the others are fixed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, TypedDict
from urllib.parse import urlsplit, urlunsplit

from .._base.diagnostics import DiagnosticDict, ProviderDiagnostic
from .._base.secrets import redact
from .keys import canonical_endpoint_key, canonical_provider_key
from .snapshot import CatalogEndpoint, CatalogSnapshot
from .specs import ProviderModuleSpec

__all__ = [
    "CatalogReport",
    "EndpointCatalogItem",
    "ProviderCatalogItem",
    "project",
    "project_inventory",
]

Availability = Literal["available", "unavailable", "invalid", "blocked"]


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
    availability: Availability
    module: str
    distribution: str | None
    endpoints: list[EndpointCatalogItem]
    diagnostics: list[DiagnosticDict]


class CatalogReport(TypedDict):
    """`ProviderCatalog.inspect()`: the `providers --json` document."""

    valid: bool
    providers: list[ProviderCatalogItem]
    diagnostics: list[DiagnosticDict]


def project(snapshot: CatalogSnapshot) -> list[ProviderCatalogItem]:
    """Return one row per installed provider, sorted by canonical key."""
    by_provider: dict[str, list[DiagnosticDict]] = {}
    for diag in snapshot.diagnostics:
        by_provider.setdefault(diag.provider, []).append(diag.to_dict())
    installed = {canonical_provider_key(r.provider): r for r in snapshot.inventory}
    rows: list[ProviderCatalogItem] = []
    for key in sorted({*snapshot.providers, *snapshot.unavailable}):
        provider = snapshot.providers.get(key)
        row = installed.get(key)
        rows.append(
            ProviderCatalogItem(
                provider=key,
                aliases=list(provider.aliases) if provider else [],
                availability="available" if provider else "unavailable",
                module=provider.module if provider else (row.module if row else ""),
                distribution=row.distribution if row else None,
                endpoints=(
                    [_endpoint(provider.endpoints[k]) for k in provider.endpoint_keys]
                    if provider
                    else []
                ),
                diagnostics=by_provider.get(key, []),
            )
        )
    return rows


def project_inventory(
    inventory: Iterable[ProviderModuleSpec], diagnostics: Iterable[ProviderDiagnostic]
) -> list[ProviderCatalogItem]:
    """One row per installed inventory row of a catalog that did not validate.

    A diagnostic belongs to a row when it names the row's provider, its module or its
    distribution, so one collision shows on every row it involves (and once in the document's
    ``diagnostics``). Rows are sorted by (canonical key, module, distribution).
    """
    diags = tuple(diagnostics)
    out: list[ProviderCatalogItem] = []
    for row in sorted(
        inventory,
        key=lambda r: (canonical_provider_key(r.provider), r.module, r.distribution or ""),
    ):
        key = canonical_provider_key(row.provider)
        mine = [d for d in diags if _concerns(d, row, key)]
        if not mine:
            availability: Availability = "blocked"
        elif all(d.code == "import_error" for d in mine):
            availability = "unavailable"
        else:
            availability = "invalid"
        out.append(
            ProviderCatalogItem(
                provider=key,
                aliases=[],
                availability=availability,
                module=row.module,
                distribution=row.distribution,
                endpoints=[],
                diagnostics=[d.to_dict() for d in mine],
            )
        )
    return out


def _concerns(diag: ProviderDiagnostic, row: ProviderModuleSpec, key: str) -> bool:
    if row.distribution is not None and row.distribution in diag.distributions:
        return True
    if diag.module is not None:
        return diag.module == row.module
    return diag.provider == key


def _endpoint(entry: CatalogEndpoint) -> EndpointCatalogItem:
    return EndpointCatalogItem(
        endpoint=entry.endpoint,
        aliases=sorted(entry.aliases, key=canonical_endpoint_key),
        endpoint_type="agentic" if entry.endpoint_type.value == "agentic" else "api",
        endpoint_class=entry.endpoint_ref,  # known without importing a deferred row
        request_options=entry.request_ref,
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

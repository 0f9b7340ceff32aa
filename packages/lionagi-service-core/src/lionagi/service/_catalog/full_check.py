"""The full check of a deferred catalog: import every row, as ``providers --strict`` does.

A deferred row (:mod:`.deferred`) is resolved on its endpoint's first use; CI and ``doctor`` want
every row imported and validated now, and the CLI-program probe needs the CLI adapters' classes.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._base.errors import CatalogValidationError, ProviderUnavailable
from .._transport.meta import EndpointType
from .snapshot import CatalogSnapshot

__all__ = ["cli_providers", "failures"]


def failures(
    snapshot: CatalogSnapshot, providers: Iterable[str]
) -> dict[str, ProviderUnavailable | CatalogValidationError]:
    """Resolve each deferred provider of ``providers``; return the ones that failed, by key.

    This is the full check ``providers --strict`` and ``doctor`` run: every referenced module is
    imported and every class and request model validated, as the eager build used to do.
    """
    out: dict[str, ProviderUnavailable | CatalogValidationError] = {}
    for key in providers:
        if not snapshot.deferred.pending(key):
            continue
        try:
            snapshot.provider(key)
        except (ProviderUnavailable, CatalogValidationError) as exc:
            out[key] = exc
    return out


def cli_providers(snapshot: CatalogSnapshot) -> tuple[str, ...]:
    """Providers with an agentic endpoint: the ones whose program ``cli_report`` probes."""
    agentic = EndpointType.AGENTIC  # a CLI adapter's program is declared by its class
    return tuple(
        key
        for key, provider in sorted(snapshot.providers.items())
        if any(e.endpoint_type is agentic for e in provider.endpoints.values())
    )

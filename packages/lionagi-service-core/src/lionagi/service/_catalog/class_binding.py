"""How a vendor's endpoint class built with no config finds its row in the process-wide catalog.

`SomeEndpoint()` with no config means "as the catalog registers it" (ADR-0028 D1): the class's
`_ENDPOINT_META`, bound when its row is resolved. Rows naming their classes by reference are
resolved per endpoint, on first use, so a class can exist (imported by the vendor's lazy
exports, or defined beside a sibling a match resolved) before its own row was resolved. The
transport layer that defines `Endpoint` cannot import the catalog; this module installs the
lookup `Endpoint.__init__` calls in that case. The public `lionagi.service.http` imports it,
and every HTTP adapter imports that module before its classes exist; it imports nothing beyond
the endpoint base, so that costs no catalog load: the registry is imported when a lookup runs
(and never imports this module back, core having no import cycles).
"""

from __future__ import annotations

from .._transport.http.endpoint import Endpoint
from .._transport.meta import EndpointMeta

__all__: list[str] = []


def _class_meta(cls: type[Endpoint]) -> EndpointMeta | None:
    """Resolve, in the process-wide catalog, the deferred row naming ``cls``; its metadata.

    `SomeEndpoint()` with no config means "as the catalog registers it" (ADR-0028 D1). A row
    naming its class by reference is resolved per endpoint, so the class can be imported (the
    vendor's lazy exports) before its own row was: this resolves that row, which binds the
    metadata, as a match would. None when no deferred row names ``cls``.

    Raises:
        ProviderUnavailable / CatalogValidationError: the row's references failed, as a match
            of that endpoint would raise.
    """
    from .registry import EndpointRegistry  # at call time: this module stays light to import

    snapshot = EndpointRegistry.snapshot()
    ref = f"{cls.__module__}:{cls.__qualname__}"
    for key in snapshot.deferred.providers:
        for entry in snapshot.providers[key].endpoints.values():
            if entry.endpoint_ref == ref:
                snapshot.endpoint(key, entry.key)  # binds _ENDPOINT_META through on_resolved
                return cls._ENDPOINT_META
    return None


Endpoint._catalog_meta = _class_meta

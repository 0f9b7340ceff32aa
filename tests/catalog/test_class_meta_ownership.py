"""Only the process-wide catalog writes class-bound ``_ENDPOINT_META`` (ADR-0028 D1).

The audit's case (audit 27, item 3): a second, public ``ProviderCatalog`` refreshed without a
provider cleared ``_ENDPOINT_META`` on that provider's classes, which the global catalog still
served, so ``OpenAIChatCompletionsEndpoint(api_key=...)`` said "not registered in the catalog".
The metadata is one slot per class shared by the process: the catalog behind
``EndpointRegistry`` owns it, and a refresh clears only what its previous snapshot bound.
"""

from __future__ import annotations

import pytest

from lionagi.service import EndpointRegistry, ProviderCatalog, ProviderModuleSpec, match_endpoint

from .conftest import Dists

ACME = "PROVIDER_SPECS = (api('acme', 'chat'),)\n"
BETA = "PROVIDER_SPECS = (api('beta', 'chat'),)\n"


def _rows(dists: Dists) -> tuple[ProviderModuleSpec, ProviderModuleSpec]:
    return (
        ProviderModuleSpec("acme", dists.module("acme", ACME)),
        ProviderModuleSpec("beta", dists.module("beta", BETA)),
    )


def test_a_private_catalogs_refresh_keeps_the_global_catalogs_class_metadata(
    dists: Dists, monkeypatch: pytest.MonkeyPatch
) -> None:
    acme, beta = _rows(dists)
    monkeypatch.setattr(EndpointRegistry, "_catalog", ProviderCatalog(lambda: (acme, beta)))
    cls = type(match_endpoint("acme", "chat"))
    meta = cls._ENDPOINT_META
    assert meta is EndpointRegistry.snapshot().providers["acme"].endpoints["chat"].meta

    mine = ProviderCatalog(lambda: (acme,))
    assert type(mine.match("acme", "chat")) is cls
    assert cls._ENDPOINT_META is meta  # its build did not overwrite the global binding
    mine.refresh(inventory=(beta,))

    assert cls._ENDPOINT_META is meta  # nor did its refresh wipe it
    assert cls(api_key="k").config.provider == "acme"  # the no-config constructor still works


def test_a_private_catalog_alone_binds_nothing(dists: Dists) -> None:
    acme, _ = _rows(dists)
    catalog = ProviderCatalog(lambda: (acme,))
    cls = type(catalog.match("acme", "chat"))
    assert cls._ENDPOINT_META is None
    assert catalog.match("acme", "chat").config.provider == "acme"  # config comes from match


def test_a_private_catalog_resolving_a_deferred_row_binds_nothing(
    dists: Dists, monkeypatch: pytest.MonkeyPatch
) -> None:
    impl = dists.module("lazy_impl", "class LazyChat(Endpoint):\n    pass\n")
    module = dists.module(
        "lazy", f"PROVIDER_SPECS = (api('lazy', 'chat', cls='{impl}:LazyChat'),)\n"
    )
    rows = (ProviderModuleSpec("lazy", module),)
    monkeypatch.setattr(EndpointRegistry, "_catalog", ProviderCatalog(lambda: rows))
    cls = type(match_endpoint("lazy", "chat"))
    meta = cls._ENDPOINT_META
    assert meta is not None  # bound by the global catalog on resolution

    mine = ProviderCatalog(lambda: rows)
    assert type(mine.match("lazy", "chat")) is cls
    mine.refresh(inventory=())
    assert cls._ENDPOINT_META is meta


def test_a_global_refresh_keeps_a_resolved_deferred_class_bound(
    dists: Dists, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Still served after the refresh: its metadata comes from the new snapshot, never None."""
    impl = dists.module("lazy_impl", "class LazyChat(Endpoint):\n    pass\n")
    module = dists.module(
        "lazy", f"PROVIDER_SPECS = (api('lazy', 'chat', cls='{impl}:LazyChat'),)\n"
    )
    catalog = ProviderCatalog(lambda: (ProviderModuleSpec("lazy", module),))
    monkeypatch.setattr(EndpointRegistry, "_catalog", catalog)
    cls = type(match_endpoint("lazy", "chat"))
    before = cls._ENDPOINT_META

    after = catalog.refresh()
    assert cls._ENDPOINT_META is not None and cls._ENDPOINT_META is not before
    # The endpoint a match resolved is resolved again in the new snapshot, and bound from it.
    assert cls._ENDPOINT_META is after.endpoint("lazy", "chat").meta

    catalog.refresh(inventory=())  # no longer served: cleared
    assert cls._ENDPOINT_META is None

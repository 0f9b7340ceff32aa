"""Snapshot lifecycle: lazy locked first build, atomic refresh, class-bound metadata."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable

import pytest

from lionagi.service import (
    CatalogSnapshot,
    CatalogValidationError,
    EndpointNotFound,
    EndpointRegistry,
    ProviderCatalog,
    ProviderModuleSpec,
    ProviderUnavailable,
    match_endpoint,
)

from .conftest import Dists

ACME = "PROVIDER_SPECS = (api('acme', 'chat/completions', endpoint_aliases=('chat',)),)\n"
ACME_V2 = """
PROVIDER_SPECS = (
    api('acme', 'chat/completions', endpoint_aliases=('chat',)),
    api('acme', 'responses', endpoint_aliases=('response',)),
)
"""


def test_refresh_failure_keeps_the_previous_snapshot(
    dists: Dists, default_catalog: ProviderCatalog
) -> None:
    module = dists.provider("acme", ACME)
    catalog = default_catalog  # the process-wide catalog: the one that binds class metadata
    before = catalog.snapshot()
    chat_cls = type(catalog.match("acme", "chat"))

    dists.module("acme", "PROVIDER_SPECS = (api('acme', 'chat', provider_aliases=('ACME',)),)\n")
    dists.forget(module)
    with pytest.raises(CatalogValidationError) as info:
        catalog.refresh()

    assert [d.code for d in info.value.diagnostics] == ["self_alias"]
    assert catalog.published is before
    assert catalog.snapshot() is before
    assert type(catalog.match("acme", "chat")) is chat_cls
    assert chat_cls._ENDPOINT_META is before.providers["acme"].endpoints["chat/completions"].meta


def test_successful_refresh_replaces_the_snapshot(dists: Dists) -> None:
    module = dists.provider("acme", ACME)
    catalog = dists.catalog()
    before = catalog.snapshot()
    with pytest.raises(EndpointNotFound):
        catalog.match("acme", "response")

    dists.module("acme", ACME_V2)
    dists.forget(module)
    after = catalog.refresh()

    assert after is not before
    assert catalog.snapshot() is after
    assert catalog.match("acme", "response").config.endpoint == "responses"
    assert before.providers["acme"].endpoint_keys == ("chat/completions",)  # old one unchanged


def test_refresh_retries_a_failed_import(dists: Dists) -> None:
    module = dists.provider("acme", "raise RuntimeError('not yet')\n")
    catalog = dists.catalog()
    with pytest.raises(ProviderUnavailable):
        catalog.match("acme", "chat")
    dists.module("acme", ACME)
    dists.forget(module)
    catalog.refresh()
    assert catalog.match("acme", "chat").config.provider == "acme"
    assert catalog.snapshot().diagnostics == ()


def test_refresh_after_failed_first_build_can_recover(dists: Dists) -> None:
    module = dists.provider("acme", "PROVIDER_SPECS = (api('acme', ''),)\n")
    catalog = dists.catalog()
    with pytest.raises(CatalogValidationError):
        catalog.snapshot()
    dists.module("acme", ACME)
    dists.forget(module)
    assert catalog.refresh().provider_keys == ("acme",)


def test_refresh_accepts_inventory_rows_directly(dists: Dists) -> None:
    module = dists.module("acme", ACME)
    catalog = ProviderCatalog(lambda: ())
    assert catalog.snapshot().provider_keys == ()
    snapshot = catalog.refresh(inventory=[ProviderModuleSpec(provider="ACME", module=module)])
    assert snapshot.provider_keys == ("acme",)
    assert snapshot.inventory == (ProviderModuleSpec(provider="ACME", module=module),)


def test_concurrent_first_builds_run_the_build_once(dists: Dists) -> None:
    dists.provider("acme", ACME)
    calls: list[int] = []
    threads_n = 8
    barrier = threading.Barrier(threads_n)

    def source() -> Iterable[ProviderModuleSpec]:
        calls.append(threading.get_ident())
        time.sleep(0.05)  # widen the window in which other threads reach the lock
        return dists.inventory()

    catalog = ProviderCatalog(source)
    results: list[CatalogSnapshot] = []
    errors: list[BaseException] = []

    def worker() -> None:
        barrier.wait()
        try:
            results.append(catalog.snapshot())
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert errors == []
    assert len(calls) == 1
    assert len(results) == threads_n
    assert all(r is results[0] for r in results)


def test_concurrent_failed_first_build_runs_once_and_all_see_the_error(dists: Dists) -> None:
    dists.provider("acme", "PROVIDER_SPECS = (api('acme', 'chat', request_options=int),)\n")
    calls: list[int] = []
    barrier = threading.Barrier(4)

    def source() -> Iterable[ProviderModuleSpec]:
        calls.append(1)
        return dists.inventory()

    catalog = ProviderCatalog(source)
    seen: list[type[BaseException]] = []

    def worker() -> None:
        barrier.wait()
        try:
            catalog.snapshot()
        except BaseException as exc:
            seen.append(type(exc))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [1]
    assert seen == [CatalogValidationError] * 4


def test_provider_module_calling_the_registry_at_import_is_diagnosed(
    dists: Dists, default_catalog: ProviderCatalog
) -> None:
    dists.provider("acme", ACME)
    dists.provider(
        "eager",
        "from lionagi.service import match_endpoint\nmatch_endpoint('acme', 'chat')\n"
        "PROVIDER_SPECS = (api('eager', 'chat'),)\n",
    )
    with pytest.raises(ProviderUnavailable) as info:
        match_endpoint("eager", "chat")
    assert "must not call the registry at import time" in info.value.diagnostic.message
    assert match_endpoint("acme", "chat").config.provider == "acme"


def test_meta_is_bound_at_publication_and_cleared_when_removed(
    dists: Dists, monkeypatch: pytest.MonkeyPatch
) -> None:
    acme = dists.module("acme", ACME)
    beta = dists.module("beta", "PROVIDER_SPECS = (api('beta', 'chat'),)\n")
    rows = [
        ProviderModuleSpec(provider="acme", module=acme),
        ProviderModuleSpec(provider="beta", module=beta),
    ]
    catalog = ProviderCatalog(lambda: rows)
    monkeypatch.setattr(EndpointRegistry, "_catalog", catalog)  # only it binds class metadata
    snapshot = catalog.snapshot()
    beta_cls = snapshot.providers["beta"].endpoints["chat"].endpoint_class
    meta = beta_cls._ENDPOINT_META
    assert meta is not None
    assert (meta.provider, meta.endpoint) == ("beta", "chat")

    catalog.refresh(inventory=rows[:1])
    assert beta_cls._ENDPOINT_META is None


def test_registry_facade_exposes_snapshot_and_diagnostics(
    dists: Dists, default_catalog: ProviderCatalog
) -> None:
    dists.provider("acme", ACME)
    dists.provider("broken", "raise RuntimeError('x')\n")
    assert EndpointRegistry.catalog() is default_catalog
    assert EndpointRegistry.snapshot() is default_catalog.snapshot()
    assert [d.provider for d in EndpointRegistry.diagnostics()] == ["broken"]
    assert EndpointRegistry.match("acme", "chat").config.provider == "acme"
    rebuilt = EndpointRegistry.refresh()
    assert EndpointRegistry.snapshot() is rebuilt


def test_snapshot_maps_are_read_only(dists: Dists) -> None:
    dists.provider("acme", ACME)
    snapshot = dists.catalog().snapshot()
    with pytest.raises(TypeError):
        snapshot.providers["x"] = snapshot.providers["acme"]  # type: ignore[index]
    with pytest.raises(TypeError):
        snapshot.provider_index["x"] = "acme"  # type: ignore[index]
    with pytest.raises(TypeError):
        snapshot.providers["acme"].endpoint_index["x"] = "chat"  # type: ignore[index]

"""The catalog of this environment: every installed distribution together must validate."""

from __future__ import annotations

import importlib

import pytest

from lionagi.service import AgenticEndpoint, ProviderCatalog


def test_installed_catalog_validates() -> None:
    snapshot = ProviderCatalog().snapshot()
    assert "scripted" in {*snapshot.providers, *snapshot.unavailable}


def test_scripted_registers_through_its_entry_point() -> None:
    module = importlib.import_module("lionagi.service.scripted")
    if not hasattr(module, "PROVIDER_SPECS"):
        pytest.skip("lionagi.service.scripted does not declare PROVIDER_SPECS yet")
    catalog = ProviderCatalog()
    snapshot = catalog.snapshot()
    assert "scripted" in snapshot.providers, snapshot.unavailable.get("scripted")
    for endpoint in ("chat", "query_cli", "CLI", ""):
        ep = catalog.match("scripted", endpoint)
        assert isinstance(ep, AgenticEndpoint)
        assert type(ep).__name__ == "ScriptedEndpoint"
        assert ep.config.provider == "scripted"

"""Discovery through installed entry points: inventory without import, isolated import failures."""

from __future__ import annotations

import sys

import pytest

from lionagi.service import (
    ENTRY_POINT_GROUP,
    EndpointNotFound,
    ProviderModuleSpec,
    ProviderUnavailable,
    entry_point_inventory,
)

from .conftest import Dists

HEALTHY = """
PROVIDER_SPECS = (api("acme", "chat/completions", endpoint_aliases=("chat",)),)
"""

FAKE_KEY = "sk-live-ABCDEFGHIJKLMNOPQRSTUVWX0123"


def test_inventory_is_read_from_metadata_without_importing(dists: Dists) -> None:
    module = dists.provider("boom", "raise RuntimeError('imported too early')\n")
    rows = dists.inventory()
    distribution = f"{dists.prefix}-boom"
    assert rows == (ProviderModuleSpec(provider="boom", module=module, distribution=distribution),)
    assert module not in sys.modules


def test_core_declares_scripted_through_the_same_group() -> None:
    rows = entry_point_inventory(ENTRY_POINT_GROUP)
    scripted = ProviderModuleSpec(
        provider="scripted", module="lionagi.service.scripted", distribution="lionagi-service-core"
    )
    assert scripted in rows


def test_broken_import_is_isolated_and_redacted(dists: Dists) -> None:
    dists.provider("acme", HEALTHY)
    broken = dists.provider("broken", f"raise RuntimeError('bad config for key {FAKE_KEY}')\n")
    catalog = dists.catalog()

    snapshot = catalog.snapshot()

    assert catalog.match("acme", "chat").config.provider == "acme"
    (diag,) = snapshot.diagnostics
    assert (diag.code, diag.provider, diag.module, diag.cause_type) == (
        "import_error",
        "broken",
        broken,
        "RuntimeError",
    )
    assert "RuntimeError" in diag.message
    assert FAKE_KEY not in diag.message
    assert "[REDACTED]" in diag.message
    with pytest.raises(ProviderUnavailable) as info:
        catalog.match("broken", "chat")
    assert info.value.provider == "broken"
    assert info.value.diagnostic == diag
    assert FAKE_KEY not in str(info.value)


def test_import_error_message_is_bounded(dists: Dists) -> None:
    dists.provider("huge", "raise ValueError('x' * 100_000)\n")
    (diag,) = dists.catalog().snapshot().diagnostics
    assert diag.code == "import_error"
    assert len(diag.message) < 1_500


def test_keyboard_interrupt_at_import_propagates(dists: Dists) -> None:
    dists.provider("acme", HEALTHY)
    dists.provider("stop", "raise KeyboardInterrupt\n")
    catalog = dists.catalog()
    with pytest.raises(KeyboardInterrupt):
        catalog.snapshot()
    assert catalog.published is None


def test_system_exit_at_import_is_an_import_error(dists: Dists) -> None:
    dists.provider("stop", "raise SystemExit(3)\n")
    (diag,) = dists.catalog().snapshot().diagnostics
    assert (diag.code, diag.cause_type) == ("import_error", "SystemExit")
    assert "exit code 3" in diag.message


# A module that imports but breaks the PROVIDER_SPECS / MODEL_POLICIES contract, or an entry
# point written as 'module:object', is an author's mistake: tests/catalog/test_module_contract.py.


def test_missing_module_is_reported_against_its_provider(dists: Dists) -> None:
    dists.dist("ghost", {"ghost": f"{dists.prefix}.does_not_exist"})
    catalog = dists.catalog()
    (diag,) = catalog.snapshot().diagnostics
    assert (diag.provider, diag.cause_type) == ("ghost", "ModuleNotFoundError")
    with pytest.raises(ProviderUnavailable):
        catalog.match("ghost", "", openai_compatible=True, base_url="https://x.test/v1")


def test_uninstalled_provider_is_not_found_not_unavailable(dists: Dists) -> None:
    dists.provider("acme", HEALTHY)
    with pytest.raises(EndpointNotFound):
        dists.catalog().match("nobody", "chat")


def test_failed_provider_is_not_reimported_per_lookup(dists: Dists) -> None:
    counter = dists.module("counter", "COUNT = []\n")
    dists.provider(
        "flaky",
        f"import {counter} as c\nc.COUNT.append(1)\nraise RuntimeError('down')\n",
    )
    catalog = dists.catalog()
    for _ in range(3):
        with pytest.raises(ProviderUnavailable):
            catalog.match("flaky", "chat")
    assert sys.modules[counter].COUNT == [1]

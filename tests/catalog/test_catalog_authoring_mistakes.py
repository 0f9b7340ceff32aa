"""Defects an outside-in audit of the validated catalog reproduced (one test each)."""

from __future__ import annotations

import json
import threading

import pytest

from lionagi.service import (
    CatalogValidationError,
    EndpointConfigurationError,
    ProviderCatalog,
    ProviderModuleSpec,
    ProviderUnavailable,
    entry_point_inventory,
    match_endpoint,
)

from .conftest import Dists


def _call_with_timeout(fn: object, seconds: float = 10.0) -> BaseException | object:
    """Run ``fn`` in a daemon thread; a hang fails the test instead of the whole run."""
    result: list[BaseException | object] = []

    def run() -> None:
        try:
            result.append(fn())  # type: ignore[operator]
        except BaseException as exc:
            result.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the lookup hung (deadlock)"
    return result[0]


def test_deferred_module_resolving_a_deferred_provider_at_import_does_not_hang(
    dists: Dists, default_catalog: ProviderCatalog
) -> None:
    # An endpoint module (imported on the provider's first use) that calls the registry for a
    # deferred provider re-entered the non-reentrant per-snapshot lock and hung forever; the
    # eager build reports the same mistake as the provider's import_error.
    dists.module(
        "lazy_impl",
        """
        from lionagi.service import match_endpoint

        match_endpoint("lazy", "chat")

        class LazyChat(Endpoint):
            pass
        """,
    )
    dists.provider(
        "lazy",
        "PROVIDER_SPECS = (api('lazy', 'chat', "
        "cls=__name__.rpartition('.')[0] + '.lazy_impl:LazyChat'),)\n",
    )
    dists.provider("good", "PROVIDER_SPECS = (api('good', 'chat'),)\n")
    outcome = _call_with_timeout(lambda: match_endpoint("lazy", "chat"))
    assert isinstance(outcome, ProviderUnavailable)
    assert outcome.diagnostic.code == "import_error"
    assert "must not call the registry at import time" in outcome.diagnostic.message
    assert f"{dists.prefix}.lazy_impl" in outcome.diagnostic.message
    # The failure is cached for the snapshot and the other provider still resolves.
    again = _call_with_timeout(lambda: match_endpoint("lazy", "chat"))
    assert isinstance(again, ProviderUnavailable)
    assert match_endpoint("good", "chat").config.provider == "good"


# A key shape the redaction recognises; unique so a hit cannot come from anywhere else.
_PASTED_KEY = "sk-proj-AuditMarker7Qw3Er5Ty8Ui0OpAsDfGh"


def test_request_default_key_holding_a_credential_is_not_kept_on_the_diagnostic(
    dists: Dists,
) -> None:
    # The message was redacted but ``ProviderDiagnostic.key`` kept the pasted key, and with it
    # ``inspect()`` / ``providers --json`` and the diagnostic's repr.
    dists.provider(
        "acme",
        f"PROVIDER_SPECS = (api('acme', 'chat', request_options=ChatRequest, "
        f"request_defaults={{{_PASTED_KEY!r}: 1}}),)\n",
    )
    catalog = dists.catalog()
    with pytest.raises(CatalogValidationError) as info:
        catalog.snapshot()
    (diag,) = info.value.diagnostics
    assert diag.code == "invalid_request_default"
    assert _PASTED_KEY not in repr(diag)
    assert _PASTED_KEY not in json.dumps(catalog.inspect())
    assert _PASTED_KEY not in str(info.value)


def test_request_default_key_holding_a_credential_is_not_echoed_at_match() -> None:
    # Installed catalog, as a user calls it: the field named the pasted key in clear text.
    for provider, extra in (
        ("openai", {}),
        ("my-compatible", {"openai_compatible": True, "base_url": "https://llm.example.com/v1"}),
    ):
        with pytest.raises(EndpointConfigurationError) as info:
            match_endpoint(provider, "chat", request_defaults={_PASTED_KEY: 1}, **extra)
        assert info.value.field.startswith("request_defaults.")
        assert _PASTED_KEY not in info.value.field
        assert _PASTED_KEY not in str(info.value)


def _own_rows(dists: Dists) -> tuple[ProviderModuleSpec, ...]:
    """This test's installed rows, also those whose value names no module under its prefix."""
    return tuple(
        r for r in entry_point_inventory() if (r.distribution or "").startswith(dists.prefix)
    )


@pytest.mark.parametrize("value", ["", ".acme", "{prefix}.acme [extra]"])
def test_entry_point_value_that_is_no_module_path_is_the_authors_mistake(
    dists: Dists, value: str
) -> None:
    # It was an import_error (provider unavailable, the rest published) whose fix said to
    # reinstall, which changes nothing: the declaration in pyproject.toml is what is wrong.
    dists.module("acme", "PROVIDER_SPECS = (api('acme', 'chat'),)\n")
    dists.dist("acme", {"acme": value.format(prefix=dists.prefix)})
    catalog = ProviderCatalog(lambda: _own_rows(dists))
    with pytest.raises(CatalogValidationError) as info:
        catalog.snapshot()
    (diag,) = info.value.diagnostics
    assert (diag.code, diag.provider) == ("invalid_provider_module", "acme")
    assert diag.distributions == (f"{dists.prefix}-acme",)
    assert diag.fix is not None and "pyproject.toml" in diag.fix
    assert "reinstall" not in diag.fix.replace("reinstalling does not help", "")


def test_two_distributions_with_an_empty_entry_point_value_share_no_module(
    dists: Dists,
) -> None:
    # An empty value names no files, so it is no "module shipped by two distributions"
    # collision (whose fix says uninstalling one deletes the other's module); each row is its
    # own malformed declaration, naming only its own distribution.
    dists.dist("one", {"acme": ""})
    dists.dist("two", {"beta": ""})
    catalog = ProviderCatalog(lambda: _own_rows(dists))
    with pytest.raises(CatalogValidationError) as info:
        catalog.snapshot()
    found = sorted((d.code, d.provider, d.distributions) for d in info.value.diagnostics)
    assert found == [
        ("invalid_provider_module", "acme", (f"{dists.prefix}-one",)),
        ("invalid_provider_module", "beta", (f"{dists.prefix}-two",)),
    ]


def test_a_provider_key_or_alias_with_a_slash_is_refused(dists: Dists) -> None:
    """``a/b/m`` parses as provider ``a``: a provider named ``a/b`` could never be reached."""
    dists.provider("fine", "PROVIDER_SPECS = (api('fine', 'chat', provider_aliases=('f/x',)),)\n")
    with pytest.raises(CatalogValidationError) as info:
        dists.catalog().snapshot()
    (diag,) = info.value.diagnostics
    assert (diag.code, diag.key) == ("invalid_endpoint_config", "provider_aliases")
    assert "'f/x'" in diag.message and "remove the '/'" in diag.message
    assert diag.distributions == (f"{dists.prefix}-fine",)

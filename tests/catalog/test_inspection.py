"""Inspection projection (ADR-0028 D5) and the ``providers`` command."""

from __future__ import annotations

import json

import pytest

from lionagi.service import EndpointRegistry, ProviderCatalog
from lionagi.service.cli._providers import providers_command

from .conftest import Dists

SECRET = "ZZinspectsecretQQ99"

ZETA = f"""
PROVIDER_SPECS = (
    api("zeta", "search", provider_aliases=("z-search", "Zeta-AI"),
        request_options=ChatRequest, request_defaults={{"model": "{SECRET}"}},
        base_url="https://user:{SECRET}@zeta.test/v1?key={SECRET}", api_key_env="ZETA_KEY",
        auth_type="x-api-key"),
    api("zeta", "findSimilar", provider_aliases=("z-search", "Zeta-AI"),
        endpoint_aliases=("similar", "find_similar")),
    agentic("zeta", "agent", provider_aliases=("z-search", "Zeta-AI")),
)
"""
ALPHA = "PROVIDER_SPECS = (api('alpha', 'chat'),)\n"


@pytest.fixture
def populated(
    dists: Dists, default_catalog: ProviderCatalog, monkeypatch: pytest.MonkeyPatch
) -> ProviderCatalog:
    monkeypatch.setenv("ZETA_KEY", SECRET)
    dists.provider("zeta", ZETA)
    dists.provider("alpha", ALPHA)
    dists.provider("broken", f"raise RuntimeError('token sk-{SECRET}')\n")
    return default_catalog


def test_list_providers_projection(populated: ProviderCatalog, dists: Dists) -> None:
    rows = EndpointRegistry.list_providers()
    assert [r["provider"] for r in rows] == ["alpha", "broken", "zeta"]

    zeta = rows[2]
    assert zeta["aliases"] == ["z-search", "zeta-ai"]
    assert zeta["availability"] == "available"
    assert zeta["diagnostics"] == []
    assert [e["endpoint"] for e in zeta["endpoints"]] == ["agent", "findSimilar", "search"]
    agent, similar, search = zeta["endpoints"]
    assert agent["endpoint_type"] == "agentic"
    assert agent["request_options"] == f"{dists.prefix}._support:CliRequest"
    assert similar == {
        "endpoint": "findSimilar",
        "aliases": ["find_similar", "similar"],
        "endpoint_type": "api",
        "endpoint_class": f"{dists.prefix}._support:zeta_findSimilar",
        "request_options": None,
        "base_url": "https://api.example.test/v1",
    }
    assert search["request_options"] == f"{dists.prefix}._support:ChatRequest"
    assert search["base_url"] == "https://zeta.test/v1"


def test_unavailable_row_has_its_diagnostic_and_no_endpoints(populated: ProviderCatalog) -> None:
    broken = EndpointRegistry.list_providers()[1]
    assert broken["availability"] == "unavailable"
    assert broken["aliases"] == []
    assert broken["endpoints"] == []
    (diag,) = broken["diagnostics"]
    assert diag["code"] == "import_error"
    assert diag["cause_type"] == "RuntimeError"


def test_inspection_never_exposes_secrets_or_defaults(populated: ProviderCatalog) -> None:
    text = json.dumps(EndpointRegistry.list_providers())
    assert SECRET not in text
    assert "request_defaults" not in text


def test_diagnostics_are_sorted(dists: Dists, default_catalog: ProviderCatalog) -> None:
    for name in ("delta", "bravo", "charlie"):
        dists.provider(name, f"raise RuntimeError('{name}')\n")
    diags = EndpointRegistry.snapshot().diagnostics
    assert [d.provider for d in diags] == ["bravo", "charlie", "delta"]


def test_providers_command_json(
    populated: ProviderCatalog, capsys: pytest.CaptureFixture[str]
) -> None:
    assert providers_command(as_json=True) == 0
    out = capsys.readouterr().out
    document = json.loads(out)
    assert document["valid"] is True
    assert document["providers"] == EndpointRegistry.list_providers()
    assert [d["provider"] for d in document["diagnostics"]] == ["broken"]
    assert SECRET not in out


def test_providers_command_table(
    populated: ProviderCatalog, capsys: pytest.CaptureFixture[str]
) -> None:
    assert providers_command(as_json=False) == 0
    out = capsys.readouterr().out
    for text in ("alpha", "broken", "zeta", "unavailable", "findSimilar", "import_error"):
        assert text in out
    assert "[REDACTED]" in out  # printed literally, not swallowed as rich markup
    assert SECRET not in out


def test_providers_command_strict_fails_on_unavailable(
    populated: ProviderCatalog, capsys: pytest.CaptureFixture[str]
) -> None:
    assert providers_command(as_json=True, strict=True) == 1


def test_providers_command_reports_an_invalid_catalog(
    dists: Dists, default_catalog: ProviderCatalog, capsys: pytest.CaptureFixture[str]
) -> None:
    dists.provider("acme", "PROVIDER_SPECS = (api('acme', 'chat', provider_aliases=('acme',)),)\n")
    assert providers_command(as_json=True) == 5
    document = json.loads(capsys.readouterr().out)
    assert document["valid"] is False
    assert [(p["provider"], p["availability"]) for p in document["providers"]] == [
        ("acme", "invalid")
    ]
    assert [d["code"] for d in document["diagnostics"]] == ["self_alias"]

    assert providers_command(as_json=False) == 5
    out = capsys.readouterr().out
    assert "does not validate" in out
    assert "self_alias" in out


def test_providers_command_with_nothing_installed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(EndpointRegistry, "_catalog", ProviderCatalog(lambda: ()))
    assert providers_command(as_json=False) == 0
    assert "no providers installed" in capsys.readouterr().out

"""`models PROVIDER` lists endpoint names as the provider declares them.

An endpoint name is a URL path, so its spelling is the provider's (Exa's `findSimilar`):
`providers` showed it so, but `models` listed the case-folded catalog keys (`findsimilar`), a
name that reads like a path the API does not have.
"""

from __future__ import annotations

import json

import pytest

from lionagi.service._catalog.registry import EndpointRegistry
from lionagi.service.cli import main


def test_models_keeps_the_declared_spelling_of_every_endpoint(
    capsys: pytest.CaptureFixture[str],
) -> None:
    snapshot = EndpointRegistry.snapshot()
    for provider, item in snapshot.providers.items():
        declared = sorted(e.endpoint for e in item.endpoints.values())
        assert main(["models", provider, "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert sorted(report["endpoints"]) == declared, provider
        if report["default_endpoint"] is not None:
            assert report["default_endpoint"] in declared, provider


def test_exa_find_similar_is_shown_as_its_path(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "exa", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "findSimilar" in report["endpoints"]
    assert main(["models", "exa"]) == 0
    assert "findSimilar" in capsys.readouterr().out

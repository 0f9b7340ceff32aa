"""An installed provider that failed to import is not reported as unknown (ADR-0028 D3).

The audit's case (audit 27, item 1): with ``claude_code``'s module failing, ``claude`` said
"names no provider and is not a model alias", ``claude-code/sonnet`` told the user to rename a
correct entry point, and only the canonical key showed the import error. A failed module's
aliases cannot be known (they live in it), but the distribution named ``lionagi-provider-<s>``
says which key the spelling ``s`` meant; any other unknown spelling lists the unavailable
providers with their import errors.
"""

from __future__ import annotations

import importlib
import uuid

import pytest

from lionagi.service import (
    EndpointConfigurationError,
    EndpointNotFound,
    EndpointRegistry,
    ProviderCatalog,
    ProviderModuleSpec,
    ProviderUnavailable,
    iModel,
)

from .conftest import Dists

GOOD = "PROVIDER_SPECS = (api('acme', 'chat'),)\n"
BROKEN = "raise ImportError('vendor sdk missing')\n"
NOTE = "unavailable (installed but failed to import, so their aliases are unknown)"


@pytest.fixture
def key() -> str:
    """A provider key with an underscore, whose distribution spelling has a hyphen."""
    return f"zzua{uuid.uuid4().hex[:6]}_code"


def _rows(
    dists: Dists, key: str, *, distribution: str | None, broken: str = BROKEN
) -> tuple[ProviderModuleSpec, ...]:
    good = dists.module("acme", GOOD)
    bad = dists.module(key, broken)
    return (
        ProviderModuleSpec("acme", good),
        ProviderModuleSpec(key, bad, distribution),
    )


def _dist_of(key: str) -> str:
    return "lionagi-provider-" + key.replace("_", "-")


def test_distribution_spelling_of_a_failed_provider_is_provider_unavailable(
    dists: Dists, key: str
) -> None:
    spelling = key.replace("_", "-")
    catalog = ProviderCatalog(lambda: _rows(dists, key, distribution=_dist_of(key)))
    with pytest.raises(ProviderUnavailable) as info:
        catalog.match(spelling, "cli")
    assert info.value.provider == key
    assert info.value.diagnostic.code == "import_error"
    assert "ImportError: vendor sdk missing" in str(info.value)
    assert "rename the entry point" not in str(info.value)
    # The bare spelling as a model: the same answer, not "not a model alias".
    with pytest.raises(ProviderUnavailable) as parsed:
        catalog.parse_model_spec(spelling.upper())
    assert parsed.value.provider == key


def test_imodel_with_the_distribution_spelling_reports_the_import_error(
    dists: Dists, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = _rows(dists, key, distribution=_dist_of(key))
    monkeypatch.setattr(EndpointRegistry, "_catalog", ProviderCatalog(lambda: rows))
    with pytest.raises(ProviderUnavailable) as info:
        iModel(model=f"{key.replace('_', '-')}/sonnet")
    assert info.value.provider == key


def test_rows_without_a_distribution_use_the_installed_metadata(dists: Dists, key: str) -> None:
    """A hand-built row names no distribution: the installed one's entry points say it."""
    name = _dist_of(key)
    info_dir = dists.root / f"{name.replace('-', '_')}-0.1.0.dist-info"
    info_dir.mkdir()
    (info_dir / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    (info_dir / "entry_points.txt").write_text(f"[lionagi.providers]\n{key} = x.y\n")
    importlib.invalidate_caches()
    catalog = ProviderCatalog(lambda: _rows(dists, key, distribution=None))
    with pytest.raises(ProviderUnavailable) as info:
        catalog.match(key.replace("_", "-"), "cli")
    assert info.value.provider == key


def test_an_alias_metadata_cannot_attribute_lists_the_unavailable_providers(
    dists: Dists, key: str
) -> None:
    catalog = ProviderCatalog(lambda: _rows(dists, key, distribution=_dist_of(key)))
    with pytest.raises(EndpointNotFound) as found:
        catalog.match("zzclaude", "cli")
    text = str(found.value)
    assert text.startswith("unknown provider 'zzclaude'")
    assert f"{NOTE}: {key} (importing " in text
    assert "ImportError: vendor sdk missing)" in text

    with pytest.raises(EndpointConfigurationError) as parsed:
        catalog.parse_model_spec("zzclaude")
    assert parsed.value.field == "model"
    assert "names no provider and is not a model alias" in str(parsed.value)
    assert f"{NOTE}: {key} (importing " in str(parsed.value)


def test_a_distribution_declaring_two_failed_keys_is_not_guessed(dists: Dists) -> None:
    spelling = f"zzub{uuid.uuid4().hex[:6]}"
    dist = f"lionagi-provider-{spelling}"
    one, two = dists.module("one", BROKEN), dists.module("two", BROKEN)
    rows = (
        ProviderModuleSpec(f"{spelling}_a", one, dist),
        ProviderModuleSpec(f"{spelling}_b", two, dist),
    )
    catalog = ProviderCatalog(lambda: rows)
    with pytest.raises(EndpointNotFound) as info:
        catalog.match(spelling, "chat")
    assert f"{spelling}_a (importing " in str(info.value)
    assert f"{spelling}_b (importing " in str(info.value)


def test_no_note_when_every_provider_imported(dists: Dists) -> None:
    good = dists.module("acme", GOOD)
    catalog = ProviderCatalog(lambda: (ProviderModuleSpec("acme", good),))
    with pytest.raises(EndpointNotFound) as found:
        catalog.match("zzclaude", "chat")
    assert "unavailable" not in str(found.value)
    with pytest.raises(EndpointConfigurationError) as parsed:
        catalog.parse_model_spec("zzclaude")
    assert "unavailable" not in str(parsed.value)


def test_the_note_does_not_echo_a_secret_from_the_import_error(dists: Dists, key: str) -> None:
    secret = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
    broken = f"raise ImportError('bad token {secret}')\n"
    catalog = ProviderCatalog(lambda: _rows(dists, key, distribution=_dist_of(key), broken=broken))
    for call in (
        lambda: catalog.match("zzclaude", "chat"),
        lambda: catalog.parse_model_spec("zzclaude"),
    ):
        with pytest.raises((EndpointNotFound, EndpointConfigurationError)) as info:
            call()
        assert key in str(info.value)
        assert secret not in str(info.value) and secret not in repr(info.value.args)

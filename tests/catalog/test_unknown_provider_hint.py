"""An unknown provider whose ``lionagi-provider-<key>`` is installed says why it is not seen.

The audit's case: a provider distribution installed without its ``lionagi.providers`` entry
point was reported as "unknown provider 'acme' (install its lionagi-provider-* distribution...)",
though that distribution was installed. The lookup runs only on this error path.
"""

from __future__ import annotations

import importlib
import uuid
from pathlib import Path

import pytest

from lionagi.service import EndpointNotFound, ProviderCatalog

from .conftest import Dists

GENERIC = "(install its lionagi-provider-* distribution"


def _installed(root: Path, key: str, entry_points: dict[str, str] | None) -> str:
    """A ``lionagi-provider-<key>`` dist-info; ``entry_points`` None writes no entry_points.txt."""
    name = f"lionagi-provider-{key}"
    info = root / f"{name.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    if entry_points is not None:
        lines = ["[lionagi.providers]", *(f"{k} = {v}" for k, v in entry_points.items())]
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    importlib.invalidate_caches()
    return name


@pytest.fixture
def key() -> str:
    return f"zzhint{uuid.uuid4().hex[:8]}"


def _reason(catalog: ProviderCatalog, provider: str) -> str:
    with pytest.raises(EndpointNotFound) as info:
        catalog.match(provider, "chat")
    return str(info.value)


def test_a_distribution_without_an_entry_point_is_named(dists: Dists, key: str) -> None:
    name = _installed(dists.root, key, None)
    text = _reason(dists.catalog(), key.upper())  # the key is canonicalized first
    assert text.startswith(
        f"unknown provider {key!r}: the installed distribution {name!r} declares no "
        "'lionagi.providers' entry point, so the catalog does not see it; "
    )
    assert f'{key} = "lionagi.providers.{key}"' in text
    assert GENERIC not in text


def test_an_entry_point_under_another_key_is_named(dists: Dists, key: str) -> None:
    name = _installed(dists.root, key, {f"{key}x": f"lionagi.providers.{key}"})
    text = _reason(dists.catalog(), key)
    assert f"the installed distribution {name!r} declares the 'lionagi.providers' entry " in text
    assert f"point(s) '{key}x', not {key!r}" in text


def test_without_such_a_distribution_the_message_is_unchanged(dists: Dists, key: str) -> None:
    text = _reason(dists.catalog(), key)
    assert text.startswith(f"unknown provider {key!r} {GENERIC}")


def test_a_declared_entry_point_is_not_blamed(dists: Dists, key: str) -> None:
    """The distribution declares the key (this catalog was built from other rows): no claim."""
    _installed(dists.root, key, {key: f"lionagi.providers.{key}"})
    catalog = ProviderCatalog(source=lambda: ())
    assert _reason(catalog, key).startswith(f"unknown provider {key!r} {GENERIC}")


def test_a_key_no_distribution_can_have_skips_the_lookup(dists: Dists) -> None:
    assert _reason(dists.catalog(), "no such/provider").startswith(
        f"unknown provider 'no such/provider' {GENERIC}"
    )

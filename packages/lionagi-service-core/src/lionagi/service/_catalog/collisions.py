"""Catalog-wide uniqueness rules (ADR-0028 D2): checked over every collected spec at once.

* One key identifies exactly one canonical provider: inventory names, provider names and
  provider aliases share one global key space (``duplicate_provider_key``); one distribution per
  provider key.
* Endpoint names and aliases share one key space per provider (``duplicate_endpoint_key``).
* Every spec of a provider declares the same canonical provider-alias set
  (``inconsistent_provider_aliases``); registration order never picks a winner.
* An endpoint class appears in one spec only (``invalid_endpoint_class``), so its class-bound
  metadata is unambiguous.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from .._base.diagnostics import ProviderDiagnostic
from .diagnose import diagnostic
from .discovery import CollectedModule
from .keys import canonical_endpoint_key, canonical_provider_key

__all__ = ["canon_text", "collision_diagnostics", "inventory_diagnostics"]


def canon_text(value: object, canon: Callable[[str], str]) -> str:
    """Canonical key of ``value``, or "" when it is not a string (reported as empty)."""
    return canon(value) if isinstance(value, str) else ""


# -- inventory ------------------------------------------------------------------------------------


def inventory_diagnostics(modules: tuple[CollectedModule, ...]) -> list[ProviderDiagnostic]:
    """Empty entry-point names and provider keys installed by more than one module."""
    out: list[ProviderDiagnostic] = []
    by_provider: dict[str, set[str]] = defaultdict(set)
    for collected in modules:
        row = collected.row
        key = canonical_provider_key(row.provider)
        if not key:
            out.append(
                diagnostic(
                    "empty_key",
                    "",
                    f"entry point for module {row.module} has an empty provider name",
                    module=row.module,
                    key=row.provider,
                )
            )
            continue
        by_provider[key].add(row.module)
    for provider, found in sorted(by_provider.items()):
        if len(found) > 1:
            out.append(
                diagnostic(
                    "duplicate_provider_key",
                    provider,
                    f"provider {provider!r} is installed by more than one module: "
                    f"{', '.join(sorted(found))}; uninstall all but one distribution",
                    key=provider,
                )
            )
    return out


# -- whole catalog --------------------------------------------------------------------------------


def collision_diagnostics(modules: tuple[CollectedModule, ...]) -> list[ProviderDiagnostic]:
    """Key collisions, inconsistent alias sets and reused endpoint classes."""
    out: list[ProviderDiagnostic] = []
    alias_sets: dict[str, dict[frozenset[str], list[str]]] = defaultdict(lambda: defaultdict(list))
    provider_claims: dict[str, set[str]] = defaultdict(set)
    endpoint_claims: dict[tuple[str, str], list[str]] = defaultdict(list)
    classes: dict[int, list[tuple[str, str, type[Any]]]] = defaultdict(list)

    for collected in modules:
        row_key = canonical_provider_key(collected.row.provider)
        if row_key:
            provider_claims[row_key].add(row_key)
        for spec in collected.specs:
            provider = canon_text(spec.provider, canonical_provider_key)
            key = canon_text(spec.endpoint, canonical_endpoint_key)
            if not provider:
                continue
            provider_claims[provider].add(provider)
            aliases = _alias_keys(spec.provider_aliases, canonical_provider_key, provider)
            alias_sets[provider][frozenset(aliases)].append(key)
            for alias in aliases:
                provider_claims[alias].add(provider)
            if key:
                endpoint_claims[(provider, key)].append(key)
                for alias in _alias_keys(spec.endpoint_aliases, canonical_endpoint_key, key):
                    endpoint_claims[(provider, alias)].append(key)
            if isinstance(spec.endpoint_class, type):
                classes[id(spec.endpoint_class)].append((provider, key, spec.endpoint_class))

    for provider, variants in sorted(alias_sets.items()):
        if len(variants) > 1:
            shown = "; ".join(
                f"{sorted(aliases) or '[]'} on {', '.join(sorted(eps))}"
                for aliases, eps in sorted(variants.items(), key=lambda kv: sorted(kv[0]))
            )
            out.append(
                diagnostic(
                    "inconsistent_provider_aliases",
                    provider,
                    f"specs of provider {provider!r} declare different provider_aliases: {shown}",
                )
            )
    for key, owners in sorted(provider_claims.items()):
        if len(owners) > 1:
            for owner in sorted(owners):
                out.append(
                    diagnostic(
                        "duplicate_provider_key",
                        owner,
                        f"provider key {key!r} is claimed by providers {', '.join(sorted(owners))}",
                        key=key,
                    )
                )
    for (provider, key), endpoints in sorted(endpoint_claims.items()):
        if len(endpoints) > 1:
            out.append(
                diagnostic(
                    "duplicate_endpoint_key",
                    provider,
                    f"endpoint key {key!r} of provider {provider!r} is declared by "
                    f"{len(endpoints)} specs: {', '.join(sorted(endpoints))}",
                    endpoint=key,
                    key=key,
                )
            )
    for uses in classes.values():
        if len(uses) > 1:
            cls = uses[0][2]
            where_used = ", ".join(f"{p}/{e}" for p, e, _ in sorted(uses, key=lambda u: u[:2]))
            for provider, key, _ in uses:
                out.append(
                    diagnostic(
                        "invalid_endpoint_class",
                        provider,
                        f"class {cls.__module__}.{cls.__qualname__} is registered more than "
                        f"once ({where_used}); give each endpoint its own subclass",
                        endpoint=key or None,
                        key="endpoint_class",
                    )
                )

    return out


def _alias_keys(aliases: object, canon: Callable[[str], str], name: str) -> set[str]:
    """Canonical aliases other than the name itself (self aliases are reported separately)."""
    if not isinstance(aliases, tuple | list):
        return set()
    keys = {canon_text(a, canon) for a in aliases}
    keys.discard("")
    keys.discard(name)
    return keys

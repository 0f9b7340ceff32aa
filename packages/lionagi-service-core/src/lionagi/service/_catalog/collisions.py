"""Catalog-wide uniqueness rules (ADR-0028 D2): checked over every collected spec at once.

* One key identifies exactly one canonical provider: inventory names, provider names and
  provider aliases share one global key space (``duplicate_provider_key``); one module per
  provider key.
* One distribution per provider module (``duplicate_provider_module``): two distributions that
  ship the same module overwrite each other's files, whatever entry names they use.
* Every collision is reported once, naming every provider and distribution involved.
* Endpoint names and aliases share one key space per provider (``duplicate_endpoint_key``).
* Every spec of a provider declares the same canonical provider-alias set
  (``inconsistent_provider_aliases``); registration order never picks a winner.
* An endpoint class appears in one spec only (``invalid_endpoint_class``), so its class-bound
  metadata is unambiguous.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

from .._base.diagnostics import ProviderDiagnostic
from .diagnose import diagnostic
from .discovery import CollectedModule, is_module_path
from .keys import canonical_endpoint_key, canonical_provider_key
from .specs import ProviderModuleSpec

__all__ = [
    "canon_text",
    "collision_diagnostics",
    "contested_rows",
    "inventory_diagnostics",
]


def canon_text(value: object, canon: Callable[[str], str]) -> str:
    """Canonical key of ``value``, or "" when it is not a string (reported as empty)."""
    return canon(value) if isinstance(value, str) else ""


# -- inventory ------------------------------------------------------------------------------------


def _shown(row: ProviderModuleSpec) -> str:
    return row.distribution or f"<inventory row for {row.module}>"


def _module_groups(rows: Iterable[ProviderModuleSpec]) -> dict[str, list[ProviderModuleSpec]]:
    """Modules shipped by more than one distribution (hand-built rows name no distribution).

    A value that is no module path (empty, relative) names no files two distributions could
    share: each row is reported as the malformed declaration it is, not as a collision.
    """
    groups: dict[str, list[ProviderModuleSpec]] = defaultdict(list)
    for row in rows:
        if row.distribution is not None and is_module_path(row.module.partition(":")[0]):
            groups[row.module].append(row)
    return {m: rs for m, rs in groups.items() if len({r.distribution for r in rs}) > 1}


def _key_groups(rows: Iterable[ProviderModuleSpec]) -> dict[str, list[ProviderModuleSpec]]:
    """Provider keys declared with more than one module (by any number of distributions)."""
    groups: dict[str, list[ProviderModuleSpec]] = defaultdict(list)
    for row in rows:
        key = canonical_provider_key(row.provider)
        if key:
            groups[key].append(row)
    return {k: rs for k, rs in groups.items() if len({r.module for r in rs}) > 1}


def contested_rows(rows: Iterable[ProviderModuleSpec]) -> frozenset[ProviderModuleSpec]:
    """Rows whose ownership collides; the build reports the collision and imports none of them."""
    rows = tuple(rows)
    contested: set[ProviderModuleSpec] = set()
    for group in (*_module_groups(rows).values(), *_key_groups(rows).values()):
        contested.update(group)
    return frozenset(contested)


def inventory_diagnostics(rows: Iterable[ProviderModuleSpec]) -> list[ProviderDiagnostic]:
    """Empty entry-point names, modules shipped by two distributions, keys with two modules.

    Each collision is one diagnostic naming every distribution involved, whatever the number of
    owners.
    """
    rows = tuple(rows)
    out: list[ProviderDiagnostic] = []
    for row in rows:
        if not canonical_provider_key(row.provider):
            out.append(
                diagnostic(
                    "empty_key",
                    "",
                    f"entry point for module {row.module} has an empty provider name",
                    module=row.module,
                    key=row.provider,
                )
            )
    for module, group in sorted(_module_groups(rows).items()):
        group.sort(key=lambda r: (r.distribution or "", canonical_provider_key(r.provider)))
        dists = sorted({r.distribution for r in group if r.distribution is not None})
        claims = ", ".join(
            f"{r.distribution} (as provider {canonical_provider_key(r.provider)!r})" for r in group
        )
        out.append(
            diagnostic(
                "duplicate_provider_module",
                min(canonical_provider_key(r.provider) for r in group),
                f"module {module} is shipped by more than one distribution: {claims}; "
                "they install the same files, so uninstalling one deletes the other's module",
                module=module,
                key=module,
                distributions=tuple(dists),
                fix=f"pip uninstall {' '.join(dists)}, then reinstall only the one you want",
            )
        )
    for provider, group in sorted(_key_groups(rows).items()):
        group.sort(key=lambda r: (r.module, r.distribution or ""))
        claims = ", ".join(f"{_shown(r)} (module {r.module})" for r in group)
        dists = sorted({r.distribution for r in group if r.distribution is not None})
        out.append(
            diagnostic(
                "duplicate_provider_key",
                provider,
                f"provider {provider!r} is installed by more than one module: {claims}",
                key=provider,
                distributions=tuple(dists),
                fix=_keep_one(dists),
            )
        )
    return out


def _keep_one(dists: list[str]) -> str | None:
    if len(dists) > 1:
        return f"pip uninstall all but one of: {', '.join(dists)}"
    return None  # one (or no) distribution: the default per-distribution fix applies


# -- whole catalog --------------------------------------------------------------------------------


def collision_diagnostics(modules: tuple[CollectedModule, ...]) -> list[ProviderDiagnostic]:
    """Key collisions, inconsistent alias sets and reused endpoint classes."""
    out: list[ProviderDiagnostic] = []
    alias_sets: dict[str, dict[frozenset[str], list[str]]] = defaultdict(lambda: defaultdict(list))
    provider_claims: dict[str, set[str]] = defaultdict(set)
    endpoint_claims: dict[tuple[str, str], list[str]] = defaultdict(list)
    classes: dict[int | str, list[tuple[str, str, str]]] = defaultdict(list)

    dists_of: dict[str, set[str]] = defaultdict(set)

    for collected in modules:
        row_key = canonical_provider_key(collected.row.provider)
        if row_key:
            provider_claims[row_key].add(row_key)
            if collected.row.distribution is not None:
                dists_of[row_key].add(collected.row.distribution)
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
                cls = spec.endpoint_class
                classes[id(cls)].append((provider, key, f"{cls.__module__}.{cls.__qualname__}"))
            elif isinstance(spec.endpoint_class, str):
                # A deferred row's reference names its class; two rows naming one class collide.
                ref = spec.endpoint_class
                classes[ref].append((provider, key, ref.replace(":", ".")))

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
            claimants = sorted(owners)
            dists = _distributions_of(claimants, dists_of)
            out.append(
                diagnostic(
                    "duplicate_provider_key",
                    claimants[0],
                    f"provider key {key!r} is claimed by providers {', '.join(claimants)}"
                    f"{_from(dists)}",
                    key=key,
                    distributions=dists,
                    fix=_keep_one(list(dists)),
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
            uses.sort(key=lambda u: u[:2])
            cls_name = uses[0][2]
            where_used = ", ".join(f"{p}/{e}" for p, e, _ in uses)
            dists = _distributions_of([p for p, _, _ in uses], dists_of)
            out.append(
                diagnostic(
                    "invalid_endpoint_class",
                    uses[0][0],
                    f"class {cls_name} is registered more than "
                    f"once ({where_used}){_from(dists)}; give each endpoint its own subclass",
                    endpoint=uses[0][1] or None,
                    key="endpoint_class",
                    distributions=dists,
                )
            )

    return out


def _distributions_of(providers: Iterable[str], dists_of: dict[str, set[str]]) -> tuple[str, ...]:
    return tuple(sorted({d for p in providers for d in dists_of.get(p, ())}))


def _from(dists: tuple[str, ...]) -> str:
    return f" (installed by {', '.join(dists)})" if dists else ""


def _alias_keys(aliases: object, canon: Callable[[str], str], name: str) -> set[str]:
    """Canonical aliases other than the name itself (self aliases are reported separately)."""
    if not isinstance(aliases, tuple | list):
        return set()
    keys = {canon_text(a, canon) for a in aliases}
    keys.discard("")
    keys.discard(name)
    return keys

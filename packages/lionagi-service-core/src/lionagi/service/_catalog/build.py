"""Build one snapshot: collect every module, validate the whole set, then index it.

Indexes are built only when validation found nothing but import errors; otherwise the build raises
:class:`CatalogValidationError` with every diagnostic, sorted, and nothing is produced. Rows whose
ownership collides (one module from two distributions, one key with two modules) are not
imported: the collision is reported once, without the echoes their specs would add. Every
diagnostic names its distribution(s) and a fix (:mod:`.owners`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from types import MappingProxyType
from typing import Any

from .._base.diagnostics import ProviderDiagnostic
from .._base.errors import CatalogValidationError, ProviderCatalogError, ProviderUnavailable
from .collisions import contested_rows
from .deferred import DeferredProviders, is_deferred, resolve_row
from .discovery import CollectedModule, collect_modules
from .keys import canonical_endpoint_key, canonical_provider_key
from .owners import attribute
from .policy_check import CheckedPolicies, validate_policies
from .snapshot import CatalogEndpoint, CatalogProvider, CatalogSnapshot
from .specs import ProviderModuleSpec
from .validate import ValidatedSpec, validate_specs

__all__ = ["build_from_modules", "build_snapshot", "sort_diagnostics"]


def sort_diagnostics(diags: Iterable[ProviderDiagnostic]) -> tuple[ProviderDiagnostic, ...]:
    """Order by (provider, endpoint or "", code, key or ""), then message for stability."""
    return tuple(sorted(diags, key=lambda d: (*d.sort_key(), d.message)))


def build_snapshot(inventory: Iterable[ProviderModuleSpec]) -> CatalogSnapshot:
    """Import, validate and index ``inventory``; raise ``CatalogValidationError`` on any defect."""
    rows = tuple(inventory)
    return build_from_modules(rows, collect_modules(rows, skip=contested_rows(rows)))


def build_from_modules(
    rows: tuple[ProviderModuleSpec, ...], modules: tuple[CollectedModule, ...]
) -> CatalogSnapshot:
    """Validate and index already collected ``modules`` (also a deferred row's second pass)."""
    diags, specs = validate_specs(modules)
    policy_diags, policies = validate_policies(modules, specs)
    diags.extend(policy_diags)
    ordered = sort_diagnostics(attribute(diags, rows))
    if any(d.code != "import_error" for d in ordered):
        raise CatalogValidationError(ordered)
    deferred = {
        canonical_provider_key(m.row.provider): m
        for m in modules
        if m.error is None and any(is_deferred(s) for s in m.specs)
    }
    return _index(rows, specs, policies, ordered, DeferredProviders(deferred, _materialize))


def _materialize(
    collected: CollectedModule, endpoint: str | None
) -> CatalogProvider | ProviderCatalogError:
    """A deferred row's second pass: the same build over that row with its objects imported.

    Only ``endpoint``'s objects when one is named (a match); every endpoint's otherwise.
    """
    provider = canonical_provider_key(collected.row.provider)
    resolved = resolve_row(collected, endpoint)
    try:
        mini = build_from_modules((resolved.row,), (resolved,))
    except CatalogValidationError as exc:
        return exc
    diag = mini.unavailable.get(provider)
    if diag is not None:
        return ProviderUnavailable(provider, diag)
    # Class-bound metadata is the publishing catalog's to write (DeferredProviders.on_resolved).
    return mini.providers[provider]


def _index(
    rows: tuple[ProviderModuleSpec, ...],
    specs: tuple[ValidatedSpec, ...],
    policies: CheckedPolicies,
    diagnostics: tuple[ProviderDiagnostic, ...],
    deferred: DeferredProviders[CatalogProvider],
) -> CatalogSnapshot:
    grouped: dict[str, list[ValidatedSpec]] = defaultdict(list)
    for item in specs:
        grouped[item.provider].append(item)

    providers: dict[str, CatalogProvider] = {}
    provider_index: dict[str, str] = {}
    for provider, items in sorted(grouped.items()):
        endpoints: dict[str, CatalogEndpoint] = {}
        endpoint_index: dict[str, str] = {}
        for item in items:
            cls = item.spec.endpoint_class
            endpoints[item.key] = CatalogEndpoint(
                provider=provider,
                key=item.key,
                endpoint=item.endpoint,
                aliases=item.endpoint_aliases,
                endpoint_type=item.spec.endpoint_type,
                endpoint_class=cls if isinstance(cls, type) else None,
                request_options=item.request_model,
                meta=item.meta,
                module=item.module,
                endpoint_ref=cls if isinstance(cls, str) else _ref(cls),
                request_ref=_request_ref(item),
                program=item.spec.program,
            )
            endpoint_index[item.key] = item.key
            for alias in item.endpoint_aliases:
                endpoint_index[canonical_endpoint_key(alias)] = item.key
        aliases = items[0].provider_aliases
        providers[provider] = CatalogProvider(
            provider=provider,
            aliases=aliases,
            module=items[0].module,
            endpoints=MappingProxyType(endpoints),
            endpoint_index=MappingProxyType(endpoint_index),
            endpoint_keys=tuple(sorted(endpoints)),
            policy=policies.policies.get(provider),
        )
        provider_index[provider] = provider
        for alias in aliases:
            provider_index[alias] = provider

    # The attributed copies (distribution and fix filled in), not the collector's originals.
    unavailable = {d.provider: d for d in diagnostics if d.code == "import_error"}
    return CatalogSnapshot(
        inventory=rows,
        providers=MappingProxyType(providers),
        provider_index=MappingProxyType(provider_index),
        unavailable=MappingProxyType(unavailable),
        diagnostics=diagnostics,
        model_aliases=policies.model_aliases,
        deferred=deferred,
    )


def _ref(obj: type[Any]) -> str:
    return f"{obj.__module__}:{obj.__qualname__}"


def _request_ref(item: ValidatedSpec) -> str | None:
    """The request model's ``module:qualname``, known without importing a deferred row."""
    if item.request_model is not None:
        return _ref(item.request_model)
    options = item.spec.request_options
    return options if isinstance(options, str) else None

"""Build one snapshot: collect every module, validate the whole set, then index it.

Indexes are built only when validation found nothing but import errors; otherwise the build raises
:class:`CatalogValidationError` with every diagnostic, sorted, and nothing is produced.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from types import MappingProxyType

from .._base.diagnostics import ProviderDiagnostic
from .._base.errors import CatalogValidationError
from .discovery import CollectedModule, collect_modules
from .keys import canonical_endpoint_key, canonical_provider_key
from .policy_check import CheckedPolicies, validate_policies
from .snapshot import CatalogEndpoint, CatalogProvider, CatalogSnapshot
from .specs import ProviderModuleSpec
from .validate import ValidatedSpec, validate_specs

__all__ = ["build_snapshot", "sort_diagnostics"]


def sort_diagnostics(diags: Iterable[ProviderDiagnostic]) -> tuple[ProviderDiagnostic, ...]:
    """Order by (provider, endpoint or "", code, key or ""), then message for stability."""
    return tuple(sorted(diags, key=lambda d: (*d.sort_key(), d.message)))


def build_snapshot(inventory: Iterable[ProviderModuleSpec]) -> CatalogSnapshot:
    """Import, validate and index ``inventory``; raise ``CatalogValidationError`` on any defect."""
    rows = tuple(inventory)
    modules = collect_modules(rows)
    diags, specs = validate_specs(modules)
    policy_diags, policies = validate_policies(modules, specs)
    diags.extend(policy_diags)
    ordered = sort_diagnostics(diags)
    if any(d.code != "import_error" for d in ordered):
        raise CatalogValidationError(ordered)
    return _index(rows, modules, specs, policies, ordered)


def _index(
    rows: tuple[ProviderModuleSpec, ...],
    modules: tuple[CollectedModule, ...],
    specs: tuple[ValidatedSpec, ...],
    policies: CheckedPolicies,
    diagnostics: tuple[ProviderDiagnostic, ...],
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
            endpoints[item.key] = CatalogEndpoint(
                provider=provider,
                key=item.key,
                endpoint=item.endpoint,
                aliases=item.endpoint_aliases,
                endpoint_type=item.spec.endpoint_type,
                endpoint_class=item.spec.endpoint_class,
                request_options=item.request_model,
                meta=item.meta,
                module=item.module,
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

    unavailable = {
        canonical_provider_key(m.row.provider): m.error for m in modules if m.error is not None
    }
    return CatalogSnapshot(
        inventory=rows,
        providers=MappingProxyType(providers),
        provider_index=MappingProxyType(provider_index),
        unavailable=MappingProxyType(unavailable),
        diagnostics=diagnostics,
        model_aliases=policies.model_aliases,
    )

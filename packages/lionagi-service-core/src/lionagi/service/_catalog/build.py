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

from .._base.diagnostics import ProviderDiagnostic
from .._base.errors import CatalogValidationError
from .collisions import contested_rows
from .discovery import collect_modules
from .keys import canonical_endpoint_key
from .owners import attribute
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
    modules = collect_modules(rows, skip=contested_rows(rows))
    diags, specs = validate_specs(modules)
    policy_diags, policies = validate_policies(modules, specs)
    diags.extend(policy_diags)
    ordered = sort_diagnostics(attribute(diags, rows))
    if any(d.code != "import_error" for d in ordered):
        raise CatalogValidationError(ordered)
    return _index(rows, specs, policies, ordered)


def _index(
    rows: tuple[ProviderModuleSpec, ...],
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

    # The attributed copies (distribution and fix filled in), not the collector's originals.
    unavailable = {d.provider: d for d in diagnostics if d.code == "import_error"}
    return CatalogSnapshot(
        inventory=rows,
        providers=MappingProxyType(providers),
        provider_index=MappingProxyType(provider_index),
        unavailable=MappingProxyType(unavailable),
        diagnostics=diagnostics,
        model_aliases=policies.model_aliases,
    )

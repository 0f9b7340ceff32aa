"""Name the distribution behind every diagnostic, and say what to do about it.

A provider key (``acme``) tells a user what broke, not what to remove: the package to
``pip uninstall`` or reinstall is the *distribution* whose entry point declared the row. Checks
report problems against providers and modules; this pass, run once over the finished list, looks
up the distribution(s) of each from the inventory and fills in an actionable ``fix`` where the
check did not write a more specific one (collisions do).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from .._base.diagnostics import ProviderDiagnostic
from .diagnose import sanitize_fix
from .keys import canonical_provider_key
from .specs import ProviderModuleSpec

__all__ = ["attribute"]


def attribute(
    diagnostics: Iterable[ProviderDiagnostic], rows: Iterable[ProviderModuleSpec]
) -> list[ProviderDiagnostic]:
    """Return ``diagnostics`` with ``distributions`` and ``fix`` filled in from ``rows``."""
    by_module: dict[str, set[str]] = {}
    by_provider: dict[str, set[str]] = {}
    for row in rows:
        if row.distribution is None:
            continue
        by_module.setdefault(row.module, set()).add(row.distribution)
        by_provider.setdefault(canonical_provider_key(row.provider), set()).add(row.distribution)
    out: list[ProviderDiagnostic] = []
    for diag in diagnostics:
        dists = diag.distributions
        if not dists:
            found = by_module.get(diag.module or "") or by_provider.get(diag.provider) or set()
            dists = tuple(sorted(found))
        fix = diag.fix if diag.fix is not None else _default_fix(diag, dists)
        out.append(dataclasses.replace(diag, distributions=dists, fix=sanitize_fix(fix)))
    return out


def _default_fix(diag: ProviderDiagnostic, dists: tuple[str, ...]) -> str:
    if not dists:
        where = f"module {diag.module}" if diag.module else f"provider {diag.provider!r}"
        return f"fix or remove the inventory row for {where}"
    if len(dists) > 1:
        return f"pip uninstall all but one of: {', '.join(dists)}"
    (dist,) = dists
    if diag.code == "import_error":
        return (
            f"reinstall {dist} (pip install --force-reinstall {dist}) with its dependencies, "
            f"or pip uninstall {dist}"
        )
    return f"pip uninstall {dist}, or upgrade it to a release that fixes this"

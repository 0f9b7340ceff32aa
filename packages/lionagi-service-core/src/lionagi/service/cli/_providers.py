"""``lionagi-service providers``: show the installed catalog and whether it validates.

Exit status: 0 when the catalog validates, 1 when it does not (every diagnostic is printed), and
with ``strict=True`` also 1 when any installed provider is unavailable (for CI).
"""

from __future__ import annotations

import json
from typing import Any

from .._base.diagnostics import ProviderDiagnostic
from .._base.errors import CatalogValidationError
from .._catalog.projection import ProviderCatalogItem, project
from .._catalog.registry import EndpointRegistry

__all__ = ["providers_command"]


def providers_command(*, as_json: bool, strict: bool = False) -> int:
    """Print the provider table (or JSON) and return the process exit status."""
    try:
        snapshot = EndpointRegistry.snapshot()
    except CatalogValidationError as exc:
        valid, items, diagnostics = False, [], exc.diagnostics
    else:
        valid, items, diagnostics = True, project(snapshot), snapshot.diagnostics
    if as_json:
        document: dict[str, Any] = {
            "valid": valid,
            "providers": items,
            "diagnostics": [d.to_dict() for d in diagnostics],
        }
        print(json.dumps(document, indent=2))
    else:
        _print_table(valid, items, diagnostics)
    if not valid:
        return 1
    if strict and any(item["availability"] != "available" for item in items):
        return 1
    return 0


def _print_table(
    valid: bool, items: list[ProviderCatalogItem], diagnostics: tuple[ProviderDiagnostic, ...]
) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(soft_wrap=True)
    if not valid:
        table = Table(title="provider catalog does not validate", title_style="bold red")
        for column in ("provider", "endpoint", "code", "key", "message"):
            table.add_column(column, overflow="fold")
        for d in diagnostics:
            table.add_row(
                Text(d.provider),
                Text(d.endpoint or ""),
                Text(d.code),
                Text(d.key or ""),
                Text(d.message),
            )
        console.print(table)
        return
    table = Table(title="installed providers")
    for column in ("provider", "aliases", "availability", "endpoints", "diagnostics"):
        table.add_column(column, overflow="fold")
    for item in items:
        endpoints = "\n".join(
            f"{e['endpoint']} ({', '.join(e['aliases'])})" if e["aliases"] else e["endpoint"]
            for e in item["endpoints"]
        )
        problems = "\n".join(f"{d['code']}: {d['message']}" for d in item["diagnostics"])
        style = "green" if item["availability"] == "available" else "red"
        table.add_row(
            Text(item["provider"]),
            Text(", ".join(item["aliases"])),
            Text(item["availability"], style=style),
            Text(endpoints),
            Text(problems),
        )
    if not items:
        console.print("no providers installed; install a lionagi-provider-* distribution")
        return
    console.print(table)

"""``lionagi-service providers``: show the installed catalog and whether it validates.

Exit status: 0 when the catalog validates, 5 when it does not (the command line's code for an
invalid catalog; every installed row and every diagnostic is still printed, each diagnostic with
the distribution(s) behind it and a fix), and with ``strict=True`` 1 when any installed provider
is unavailable (for CI).
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

from .._base.errors import CatalogValidationError, ProviderUnavailable
from .._catalog.availability import CliAvailability, cli_report, unprobed_providers
from .._catalog.full_check import failures
from .._catalog.projection import CatalogReport, ProviderCatalogItem
from .._catalog.registry import EndpointRegistry
from ._console import table_console
from ._render import exception_line
from ._signals import OutcomeWriter, written_as_is

if TYPE_CHECKING:
    from rich.table import Table

__all__ = ["CATALOG_INVALID", "providers_command"]

CATALOG_INVALID = 5
"""Same code ``chat`` uses for ``CatalogValidationError`` (see ``lionagi.service.cli``)."""


def providers_command(
    *, as_json: bool, strict: bool = False, write_outcome: OutcomeWriter = written_as_is
) -> int:
    """Print the provider table (or JSON) and return the process exit status.

    Everything is checked first; the output is then written through ``write_outcome``, which
    for the command line holds Ctrl-C and SIGTERM from the first line on (``written_held``),
    so a signal once the output is written no longer turns it into ``interrupted``.
    """
    report = EndpointRegistry.inspect()
    failed: dict[str, ProviderUnavailable | CatalogValidationError] = {}
    programs: list[CliAvailability] = []
    if report["valid"]:
        snapshot = EndpointRegistry.snapshot()
        # --strict imports every deferred row (the CI check); plain `providers` only CLI rows
        # that declare no program (their adapter class is the only place naming it).
        failed = failures(
            snapshot, snapshot.deferred.providers if strict else unprobed_providers(snapshot)
        )
        programs = cli_report(snapshot, skip=failed)
    errors = [exception_line(f"{key}: ", exc) for key, exc in sorted(failed.items())]

    def write() -> int:
        if as_json:
            print(json.dumps({**report, "cli_programs": programs, "load_errors": errors}, indent=2))
        else:
            _print_tables(report, programs)
            for line in errors:
                print(f"providers: {line}", file=sys.stderr, flush=True)
        invalid_row = any(isinstance(e, CatalogValidationError) for e in failed.values())
        if not report["valid"] or invalid_row:
            if not report["valid"]:
                count = len(report["diagnostics"])
                print(
                    "providers: the provider catalog does not validate "
                    f"({count} diagnostic(s) above)",
                    file=sys.stderr,
                    flush=True,
                )
            return CATALOG_INVALID
        unavailable = failed or any(i["availability"] != "available" for i in report["providers"])
        if strict and unavailable:
            return 1
        return 0

    return write_outcome(write)


def _print_tables(report: CatalogReport, programs: list[CliAvailability]) -> None:
    from rich.text import Text

    console = table_console()
    items = report["providers"]
    if not items:
        console.print("no providers installed; install a lionagi-provider-* distribution")
    else:
        console.print(_provider_table(items, valid=report["valid"], programs=programs))
    if report["valid"]:
        return
    # One block per diagnostic rather than a table: messages and fixes are long, and a folded
    # cell would split the very package name the user has to copy.
    console.print(Text("provider catalog does not validate", style="bold red"))
    for d in report["diagnostics"]:
        where = "/".join(str(part) for part in (d["provider"], d["endpoint"]) if part)
        console.print(Text(f"[{d['code']}] {where or '<no provider>'}: {d['message']}"))
        if d["distributions"]:
            console.print(Text(f"    distributions: {', '.join(d['distributions'])}"))
        if d["fix"]:
            console.print(Text(f"    fix: {d['fix']}"))


def _provider_table(
    items: list[ProviderCatalogItem], *, valid: bool, programs: list[CliAvailability]
) -> Table:
    """Installed rows; an invalid catalog has no aliases or endpoints to show, only who is there."""
    from rich.table import Table
    from rich.text import Text

    title = "installed providers" if valid else "installed providers (none selectable)"
    table = Table(title=title)
    columns = ("provider (distribution)", "aliases", "availability", "endpoints", "diagnostics")
    for column in columns if valid else ("provider (distribution)", "availability"):
        table.add_column(column, overflow="fold")
    for item in items:
        style = "green" if item["availability"] == "available" else "red"
        availability = Text(item["availability"], style=style)
        for program in programs:
            if program["provider"] == item["provider"] and not program["found"]:
                availability = Text(f"{program['binary']} not found", style="red")
                availability.append(f"\ninstall: {program['install_hint'] or program['binary']}")
        name = Text(item["provider"])
        if item["distribution"]:
            name.append(f"\n({item['distribution']})", style="dim")
        if not valid:
            table.add_row(name, Text(item["availability"], style=style))
            continue
        endpoints = "\n".join(
            f"{e['endpoint']} ({', '.join(e['aliases'])})" if e["aliases"] else e["endpoint"]
            for e in item["endpoints"]
        )
        problems = "\n".join(
            f"{d['code']}: {d['message']}" + (f" (fix: {d['fix']})" if d["fix"] else "")
            for d in item["diagnostics"]
        )
        table.add_row(
            name,
            Text(", ".join(item["aliases"])),
            availability,
            Text(endpoints),
            Text(problems),
        )
    return table

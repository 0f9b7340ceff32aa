"""``lionagi-service doctor``: can each installed CLI provider actually run here?

For every CLI endpoint in the catalog: whether its program is found (and the npm install line
when not), the version it reports and whether that is the version the adapter was tested with,
and how the user authenticates. Exit status: 0 when every provider asked about (all CLI
providers when none is named) has its program; 1 when one does not, or when a provider fails to
import (a named one included); 2 when a named provider is not installed or is not a CLI provider;
5 when the catalog does not validate.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Sequence

from .._base.errors import CatalogValidationError, ProviderUnavailable
from .._catalog.availability import CliAvailability, cli_report
from .._catalog.full_check import failures
from .._catalog.keys import canonical_provider_key
from .._catalog.registry import EndpointRegistry
from ._console import table_console
from ._render import argument_text, error_line, exception_line

__all__ = ["doctor_command"]

_CATALOG_INVALID = 5


def doctor_command(providers: Sequence[str], *, as_json: bool) -> int:
    """Print the CLI availability report and return the process exit status."""
    try:
        snapshot = EndpointRegistry.snapshot()
    except CatalogValidationError as exc:
        print(exception_line("doctor: ", exc), file=sys.stderr, flush=True)
        return _CATALOG_INVALID
    # The full check: import every row. A provider whose module already failed while the
    # catalog was built counts as one whose row fails now (`providers --strict` counts both).
    failed: dict[str, ProviderUnavailable | CatalogValidationError] = {
        key: ProviderUnavailable(key, diagnostic)
        for key, diagnostic in snapshot.unavailable.items()
    }
    failed.update(failures(snapshot, snapshot.deferred.providers))
    for failed_key, error in sorted(failed.items()):
        # stderr, as every error line: on stdout it came before `--json`'s document and made
        # it invalid JSON.
        print(exception_line(f"doctor: {failed_key}: ", error), file=sys.stderr, flush=True)
    if any(isinstance(error, CatalogValidationError) for error in failed.values()):
        return _CATALOG_INVALID
    rows = cli_report(snapshot, skip=failed)
    if providers:
        wanted = []
        for name in providers:
            key = snapshot.provider_index.get(canonical_provider_key(name))
            broken = None
            if key is None:
                from .._catalog.unavailable_hint import unavailable_error  # error path only

                broken = unavailable_error(snapshot, canonical_provider_key(name))
            if broken is not None and broken.provider in failed:
                # Installed but failing to import (its line is above): it cannot run here, and
                # "no installed provider" would send the user to install what is there.
                return 1
            if key is None:
                _fail(f"doctor: {argument_text(name)} names no installed provider")
                return 2
            if key in failed:  # its line is above; "runs no CLI program" would be a guess
                return 1
            wanted.append(key)
        unknown = [p for p in wanted if not any(r["provider"] == p for r in rows)]
        if unknown:
            _fail(f"doctor: {', '.join(unknown)} runs no CLI program")
            return 2
        rows = [r for r in rows if r["provider"] in wanted]
    if as_json:
        print(json.dumps(rows, indent=2))
    else:
        _print(rows)
    return 0 if not failed and all(r["found"] for r in rows) else 1


def _fail(text: str) -> None:
    """One line on stderr, like every other command's errors."""
    print(error_line(text), file=sys.stderr, flush=True)


def _print(rows: list[CliAvailability]) -> None:
    from rich.table import Table
    from rich.text import Text

    console = table_console()
    if not rows:
        console.print("no CLI providers installed (lionagi-provider-codex, -claude-code, ...)")
        return
    table = Table(title="agentic CLI providers")
    for column in ("provider", "binary", "version", "auth"):
        table.add_column(column, overflow="fold")
    # A provider with several CLI endpoints (ag2: agent, group_chat) has a row per endpoint;
    # without the endpoint's name its rows read as the same line printed twice.
    per_provider = Counter(row["provider"] for row in rows)
    for row in rows:
        provider = row["provider"]
        if per_provider[provider] > 1:
            provider = f"{provider} {row['endpoint']}"
        if row["found"]:
            binary = Text(row["path"] or row["binary"], style="green")
        else:
            binary = Text(f"{row['binary']}: not found", style="red")
            if row["install_hint"]:
                binary.append(f"\ninstall: {row['install_hint']}")
        version = Text(row["version"] or f"unknown ({row['detail']})")
        if row["tested"] is False:
            version.append(f"\n(tested with {row['tested_version']})", style="yellow")
        elif row["tested"]:
            version.append(" (tested)", style="dim")
        table.add_row(provider, binary, version, row["auth_hint"] or "")
    console.print(table)

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
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from .._base.errors import CatalogValidationError, ProviderUnavailable
from .._base.suggest import did_you_mean
from .._catalog.availability import CliAvailability, cli_report
from .._catalog.full_check import failures
from .._catalog.keys import canonical_provider_key
from .._catalog.registry import EndpointRegistry
from .._catalog.snapshot import CatalogSnapshot
from ._console import table_console
from ._render import argument_text, error_line, exception_line
from ._signals import OutcomeWriter, written_as_is

__all__ = ["doctor_command"]

_CATALOG_INVALID = 5


def doctor_command(
    providers: Sequence[str], *, as_json: bool, write_outcome: OutcomeWriter = written_as_is
) -> int:
    """Print the CLI availability report and return the process exit status.

    The outcome is written through ``write_outcome`` once every provider is imported and every
    program probed (a failing provider's line is written as soon as it is found, like a
    stream's chunk; it is the outcome only when the catalog does not validate): for the command
    line that holds Ctrl-C and SIGTERM from its first line on (``written_held``), so a signal
    once it is written no longer turns it into ``interrupted``. The probes stay interruptible.
    """
    try:
        snapshot = EndpointRegistry.snapshot()
    except CatalogValidationError as exc:
        line = exception_line("doctor: ", exc)
        return write_outcome(lambda: _refused(_CATALOG_INVALID, line))
    # The full check: import every row. A provider whose module already failed while the
    # catalog was built counts as one whose row fails now (`providers --strict` counts both).
    failed: dict[str, ProviderUnavailable | CatalogValidationError] = {
        key: ProviderUnavailable(key, diagnostic)
        for key, diagnostic in snapshot.unavailable.items()
    }
    failed.update(failures(snapshot, snapshot.deferred.providers))
    if any(isinstance(error, CatalogValidationError) for error in failed.values()):
        return write_outcome(lambda: _failed_lines(failed, _CATALOG_INVALID))
    _failed_lines(failed, 1)
    rows = cli_report(snapshot, skip=failed)
    selected = _selected(snapshot, rows, providers, failed)

    def write() -> int:
        if isinstance(selected, _Refused):
            return _refused(selected.code, selected.line)
        if as_json:
            print(json.dumps(selected, indent=2))
        else:
            _print(selected)
        return 0 if not failed and all(r["found"] for r in selected) else 1

    return write_outcome(write)


def _failed_lines(
    failed: Mapping[str, ProviderUnavailable | CatalogValidationError], code: int
) -> int:
    """One stderr line per provider that fails to import; ``code``."""
    for failed_key, error in sorted(failed.items()):
        # stderr, as every error line: on stdout it came before `--json`'s document and made
        # it invalid JSON.
        print(exception_line(f"doctor: {failed_key}: ", error), file=sys.stderr, flush=True)
    return code


def _refused(code: int, line: str | None) -> int:
    """``line`` (if any) on stderr, as one redacted line like every other command's; ``code``."""
    if line is not None:
        print(error_line(line), file=sys.stderr, flush=True)
    return code


class _Refused(NamedTuple):
    """Why ``doctor`` prints no report: its exit code and its stderr line (None: already out)."""

    code: int
    line: str | None


def _selected(
    snapshot: CatalogSnapshot,
    rows: list[CliAvailability],
    providers: Sequence[str],
    failed: Mapping[str, ProviderUnavailable | CatalogValidationError],
) -> list[CliAvailability] | _Refused:
    """The rows of the ``providers`` asked about (all without one), or the refusal to write."""
    if not providers:
        return rows
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
            return _Refused(1, None)
        if key is None:
            # Only the keys and aliases of the providers doctor checks: suggesting an HTTP
            # provider would only lead to "runs no CLI program".
            checked = {row["provider"] for row in rows}
            names = [alias for alias, to in snapshot.provider_index.items() if to in checked]
            near = did_you_mean(canonical_provider_key(name), names)
            return _Refused(2, f"doctor: {argument_text(name)} names no installed provider{near}")
        if key in failed:  # its line is above; "runs no CLI program" would be a guess
            return _Refused(1, None)
        wanted.append(key)
    unknown = [p for p in wanted if not any(r["provider"] == p for r in rows)]
    if unknown:
        return _Refused(2, f"doctor: {', '.join(unknown)} runs no CLI program")
    return [r for r in rows if r["provider"] in wanted]


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

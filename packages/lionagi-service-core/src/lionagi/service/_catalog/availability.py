"""Whether a CLI provider's program is installed, and which version: what ``doctor`` reports.

The catalog says whether a provider's *module* imported and validated; a CLI adapter also needs
its program. This module reads what the adapter class declares (``cli_binary``,
``install_hint``, ``tested_version``, ``auth_hint``) and probes the binary with core's version
probe (stdout or stderr, bounded by a timeout, cached per path). Nothing here launches a model
call or reads a credential.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Collection
from typing import TypedDict

from .._transport.agentic.endpoint import AgenticEndpoint
from .._transport.http.endpoint import Endpoint
from .._transport.subprocess.discover import probe_cli
from .full_check import cli_providers
from .snapshot import CatalogSnapshot

__all__ = ["CliAvailability", "cli_availability", "cli_report"]


class CliAvailability(TypedDict):
    """One CLI endpoint's program, as ``doctor --json`` prints it."""

    provider: str
    endpoint: str
    binary: str
    found: bool
    path: str | None
    version: str | None
    tested_version: str | None
    tested: bool | None
    detail: str
    install_hint: str | None
    auth_hint: str | None


def cli_availability(provider: str, endpoint: str, cls: type[Endpoint]) -> CliAvailability | None:
    """The program behind ``cls``, or None when ``cls`` is not a CLI adapter declaring one.

    An in-process adapter declaring ``required_modules`` gets the same row for its Python
    modules (``binary`` names them), so a missing dependency shows with its install hint.
    """
    if not issubclass(cls, AgenticEndpoint):
        return None
    if not cls.cli_binary:
        return _module_availability(provider, endpoint, cls)
    caps = cls.capabilities
    if caps is not None and caps.transport != "subprocess":
        return None
    probe = probe_cli(cls.cli_binary)
    tested = None
    if probe.version is not None and cls.tested_version is not None:
        tested = probe.version == cls.tested_version
    return CliAvailability(
        provider=provider,
        endpoint=endpoint,
        binary=cls.cli_binary,
        found=probe.found,
        path=probe.path,
        version=probe.version,
        tested_version=cls.tested_version,
        tested=tested,
        detail=probe.detail,
        install_hint=cls.install_hint,
        auth_hint=cls.auth_hint,
    )


def _module_availability(
    provider: str, endpoint: str, cls: type[AgenticEndpoint]
) -> CliAvailability | None:
    """Whether an in-process adapter's modules are importable, checked without importing them."""
    if not cls.required_modules:
        return None
    missing = [name for name in cls.required_modules if importlib.util.find_spec(name) is None]
    return CliAvailability(
        provider=provider,
        endpoint=endpoint,
        binary="python module(s) " + ", ".join(cls.required_modules),
        found=not missing,
        path=None,
        version=None,
        tested_version=cls.tested_version,
        tested=None,
        detail=f"missing: {', '.join(missing)}" if missing else "importable",
        install_hint=cls.install_hint,
        auth_hint=cls.auth_hint,
    )


def cli_report(snapshot: CatalogSnapshot, *, skip: Collection[str] = ()) -> list[CliAvailability]:
    """Every CLI endpoint of the catalog with its program's availability, by provider.

    ``skip`` names providers the caller already found failing (:func:`.deferred.failures`).

    Raises:
        ProviderUnavailable / CatalogValidationError: a deferred CLI row failed to resolve.
    """
    rows = []
    for key in cli_providers(snapshot):  # an HTTP provider runs no program: left unimported
        if key in skip:
            continue
        # The program is declared by the adapter class, so a deferred CLI row is resolved here;
        # its failure propagates as the typed catalog error a match would raise.
        for entry in snapshot.provider(key).endpoints.values():
            row = cli_availability(entry.provider, entry.endpoint, entry.resolved_class)
            if row is not None:
                rows.append(row)
    return rows

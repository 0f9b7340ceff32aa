"""Whether a CLI provider's program is installed, and which version: what ``doctor`` reports.

The catalog says whether a provider's *module* imported and validated; a CLI adapter also needs
its program. This module reads what the row declares (``program``) or, for a row that
declares none, the adapter class (``cli_binary``, ``install_hint``, ``tested_version``,
``auth_hint``) and probes the binary with core's version
probe (stdout or stderr, bounded by a timeout, cached per path). Nothing here launches a model
call or reads a credential.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Collection
from typing import Protocol, TypedDict

from .._transport.agentic.endpoint import AgenticEndpoint
from .._transport.http.endpoint import Endpoint
from .._transport.meta import EndpointType
from .._transport.subprocess.discover import probe_cli
from .full_check import cli_providers
from .snapshot import CatalogSnapshot
from .specs import AgenticProgram

__all__ = [
    "CliAvailability",
    "cli_availability",
    "cli_report",
    "program_availability",
    "unprobed_providers",
]


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
        return _modules(provider, endpoint, cls.required_modules, cls)
    caps = cls.capabilities
    if caps is not None and caps.transport != "subprocess":
        return None
    return _probe(provider, endpoint, cls.cli_binary, cls)


class _Hints(Protocol):
    """What a report row shows beside the probe: a class or a row's ``AgenticProgram``."""

    @property
    def tested_version(self) -> str | None: ...
    @property
    def install_hint(self) -> str | None: ...
    @property
    def auth_hint(self) -> str | None: ...


def _probe(provider: str, endpoint: str, binary: str, hints: _Hints) -> CliAvailability:
    probe = probe_cli(binary)
    tested = None
    if probe.version is not None and hints.tested_version is not None:
        tested = probe.version == hints.tested_version
    return CliAvailability(
        provider=provider,
        endpoint=endpoint,
        binary=binary,
        found=probe.found,
        path=probe.path,
        version=probe.version,
        tested_version=hints.tested_version,
        tested=tested,
        detail=probe.detail,
        install_hint=hints.install_hint,
        auth_hint=hints.auth_hint,
    )


def _modules(
    provider: str, endpoint: str, modules: tuple[str, ...], hints: _Hints
) -> CliAvailability | None:
    """Whether an in-process adapter's modules are importable, checked without importing them."""
    if not modules:
        return None
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    return CliAvailability(
        provider=provider,
        endpoint=endpoint,
        binary="python module(s) " + ", ".join(modules),
        found=not missing,
        path=None,
        version=None,
        tested_version=hints.tested_version,
        tested=None,
        detail=f"missing: {', '.join(missing)}" if missing else "importable",
        install_hint=hints.install_hint,
        auth_hint=hints.auth_hint,
    )


def program_availability(
    provider: str, endpoint: str, program: AgenticProgram
) -> CliAvailability | None:
    """The program a row declares (:class:`.specs.AgenticProgram`), probed without an import."""
    if program.binary:
        return _probe(provider, endpoint, program.binary, program)
    return _modules(provider, endpoint, program.modules, program)


def cli_report(snapshot: CatalogSnapshot, *, skip: Collection[str] = ()) -> list[CliAvailability]:
    """Every CLI endpoint of the catalog with its program's availability, by provider.

    ``skip`` names providers the caller already found failing (:func:`.deferred.failures`).
    A row that declares its ``program`` is reported from that declaration (the catalog checks
    it against the class whenever the class is imported); only a row without one is resolved
    to read its adapter class.

    Raises:
        ProviderUnavailable / CatalogValidationError: a deferred CLI row without a declared
            program failed to resolve.
    """
    rows = []
    for key in cli_providers(snapshot):  # an HTTP provider runs no program: left unimported
        if key in skip:
            continue
        for entry in snapshot.providers[key].endpoints.values():
            if entry.program is not None:
                row = program_availability(entry.provider, entry.endpoint, entry.program)
            else:
                # Only the adapter class says which program it runs: resolve the row. A failure
                # propagates as the typed catalog error a match would raise.
                resolved = snapshot.endpoint(key, entry.key)
                row = cli_availability(entry.provider, entry.endpoint, resolved.resolved_class)
            if row is not None:
                rows.append(row)
    return rows


def unprobed_providers(snapshot: CatalogSnapshot) -> tuple[str, ...]:
    """CLI providers with a row that declares no program: ``cli_report`` must import those."""
    return tuple(
        key
        for key in cli_providers(snapshot)
        if any(
            e.program is None and e.endpoint_type is EndpointType.AGENTIC
            for e in snapshot.providers[key].endpoints.values()
        )
    )

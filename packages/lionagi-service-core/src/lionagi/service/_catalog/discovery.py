"""Provider discovery: installed inventory first, module imports second, validation last.

Module contract for provider authors
====================================

A distribution makes a provider available by declaring one entry point in the
``lionagi.providers`` group. The entry *name* is the canonical provider key and the *value* is a
module path (not ``module:object``)::

    [project.entry-points."lionagi.providers"]
    gemini = "lionagi.providers.gemini"

The catalog reads that inventory from installed metadata without importing anything, then imports
each module and reads two attributes:

``PROVIDER_SPECS: tuple[ProviderEndpointSpec, ...]`` (required, non-empty)
    Every endpoint the provider offers. Each spec's ``provider`` must canonicalize to the entry
    name (``provider_mismatch`` otherwise). Repeat the same ``provider_aliases`` on every spec.

``MODEL_POLICIES: tuple[ProviderModelPolicy, ...]`` (optional)
    At most one policy, for the same provider: model aliases, effort mode and permission kwargs.

Keep the module cheap and free of side effects: every command imports it. Name the endpoint
class and request model as ``"package.module:Name"`` references (a deferred row, see
:mod:`.deferred`) so the modules defining them load on the provider's first use, re-export public
names with ``lazy_exports``, import vendor SDKs lazily inside endpoint methods and never call the
registry at import time.

Failure rules. Any ``Exception`` raised while importing the module or reading those attributes,
a missing or empty ``PROVIDER_SPECS``, or a value that is not a tuple (or list) of the record
type, becomes one ``import_error`` diagnostic: that provider is *unavailable*, the others still
publish, and selecting it raises ``ProviderUnavailable``. So do ``SystemExit`` (a module calling
``sys.exit(n)`` at import must not end every command with status ``n``) and ``GeneratorExit``:
neither is control flow of the process doing the import. Only ``KeyboardInterrupt`` and
cancellation (``asyncio.CancelledError``, ``trio.Cancelled``) propagate: those are requests from
the user or the event loop to stop, which the catalog has no right to absorb. Once records are
obtained, any invalid record or key collision fails the *whole* catalog
(``CatalogValidationError``): serving a subset could silently move an alias to another owner.

Each inventory row carries the distribution that declared it, so two distributions shipping the
same module (or the same provider key) are two rows and a collision, never one merged row.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from .._base.diagnostics import ProviderDiagnostic
from .._base.pydantic_plugins import PYDANTIC_PLUGIN_GROUP, record_scan
from .diagnose import describe_exception, diagnostic
from .entry_scan import ScannedEntryPoint, scan_groups
from .keys import canonical_provider_key
from .policy import ProviderModelPolicy
from .specs import ProviderEndpointSpec, ProviderModuleSpec

__all__ = [
    "ENTRY_POINT_GROUP",
    "CollectedModule",
    "InventorySource",
    "collect_modules",
    "entry_point_inventory",
    "is_stop_request",
]

ENTRY_POINT_GROUP = "lionagi.providers"

_T = TypeVar("_T")

InventorySource = Callable[[], Iterable[ProviderModuleSpec]]
"""Anything that yields inventory rows; the default reads installed entry points."""


@dataclass(frozen=True, slots=True)
class CollectedModule:
    """What one inventory row produced: its records, or the diagnostic that made it unavailable."""

    row: ProviderModuleSpec
    specs: tuple[ProviderEndpointSpec, ...] = ()
    policies: tuple[ProviderModelPolicy, ...] = ()
    error: ProviderDiagnostic | None = None


def entry_point_inventory(group: str = ENTRY_POINT_GROUP) -> tuple[ProviderModuleSpec, ...]:
    """Read ``(provider, module, distribution)`` rows from installed metadata; import nothing.

    The metadata is read by :func:`.entry_scan.scan_groups` (a direct walk of ``sys.path``) and,
    for a layout it does not model, by ``importlib.metadata``; both give the same rows.

    Only rows equal in all three fields are merged (a repeated line in one distribution's
    metadata); the same module or key from two distributions stays two rows for validation.
    """
    # pydantic's plugin group is read in the same walk: the answer saves pydantic its own scan
    # of every distribution on the first config built (see _base/pydantic_plugins.py).
    groups = scan_groups((group, PYDANTIC_PLUGIN_GROUP))
    if groups is None:  # a layout the direct scan does not model: importlib.metadata reads it
        record_scan(None)
        scanned = _importlib_group(group)
    else:
        record_scan(bool(groups[PYDANTIC_PLUGIN_GROUP]))
        scanned = groups[group]
    rows = {
        ProviderModuleSpec(provider=name, module=value, distribution=dist)
        for name, value, dist in scanned
    }
    return tuple(
        sorted(
            rows,
            key=lambda r: (canonical_provider_key(r.provider), r.module, r.distribution or ""),
        )
    )


def _importlib_group(group: str) -> list[ScannedEntryPoint]:
    """The group through ``importlib.metadata``: exact for every layout, slower to read."""
    from importlib.metadata import entry_points  # deferred: only layouts the scan leaves

    return [(ep.name, ep.value, _distribution(ep)) for ep in entry_points(group=group)]


def _distribution(ep: Any) -> str | None:
    """The declaring distribution's metadata name, or ``None`` when the metadata has none."""
    dist = getattr(ep, "dist", None)
    if dist is None:
        return None
    name = dist.metadata.get("Name")  # `get`: a missing Name is None, not a warning
    return name if isinstance(name, str) and name else None


def collect_modules(
    rows: Iterable[ProviderModuleSpec], *, skip: Collection[ProviderModuleSpec] = ()
) -> tuple[CollectedModule, ...]:
    """Import every row's module and read its records; nothing is validated yet.

    Rows in ``skip`` are kept without being imported: their ownership is already contested
    (:func:`.collisions.contested_rows`), so importing them could only add noise to that one
    collision, or run the code of a distribution the user is about to remove.
    """
    return tuple(CollectedModule(row=row) if row in skip else _collect(row) for row in rows)


def _collect(row: ProviderModuleSpec) -> CollectedModule:
    provider = canonical_provider_key(row.provider)

    def unavailable(message: str, cause: str | None) -> CollectedModule:
        diag = diagnostic("import_error", provider, message, module=row.module, cause_type=cause)
        return CollectedModule(row=row, error=diag)

    if ":" in row.module:
        return unavailable(
            f"entry point value {row.module!r} must be a module path, not 'module:object'", None
        )
    try:
        module = importlib.import_module(row.module)
        raw_specs = getattr(module, "PROVIDER_SPECS", None)
        raw_policies = getattr(module, "MODEL_POLICIES", ())
    except Exception as exc:
        return unavailable(
            f"importing {row.module} failed: {describe_exception(exc)}", type(exc).__name__
        )
    except SystemExit as exc:
        return unavailable(
            f"importing {row.module} raised SystemExit with exit code {exc.code!r}; "
            "a provider module must not exit the process at import time",
            "SystemExit",
        )
    except BaseException as exc:
        if is_stop_request(exc):
            raise
        return unavailable(
            f"importing {row.module} raised {describe_exception(exc)}", type(exc).__name__
        )
    if raw_specs is None:
        return unavailable(f"module {row.module} does not define PROVIDER_SPECS", "AttributeError")
    specs = _records(raw_specs, ProviderEndpointSpec)
    if specs is None:
        return unavailable(
            f"{row.module}.PROVIDER_SPECS must be a tuple of ProviderEndpointSpec, "
            f"got {_describe(raw_specs)}",
            "TypeError",
        )
    if not specs:
        return unavailable(f"{row.module}.PROVIDER_SPECS declares no endpoints", None)
    policies = _records(raw_policies, ProviderModelPolicy)
    if policies is None:
        return unavailable(
            f"{row.module}.MODEL_POLICIES must be a tuple of ProviderModelPolicy, "
            f"got {_describe(raw_policies)}",
            "TypeError",
        )
    return CollectedModule(row=row, specs=specs, policies=policies)


def is_stop_request(exc: BaseException) -> bool:
    """``KeyboardInterrupt`` or an event loop's cancellation: the only signals that propagate.

    The cancellation classes are looked up in ``sys.modules`` instead of imported: if asyncio or
    trio is not loaded, no exception of theirs can exist, and the catalog stays cheap to import.
    """
    if isinstance(exc, KeyboardInterrupt):
        return True
    for module_name, attribute in (("asyncio", "CancelledError"), ("trio", "Cancelled")):
        cancelled = getattr(sys.modules.get(module_name), attribute, None)
        if isinstance(cancelled, type) and isinstance(exc, cancelled):
            return True
    return False


def _records(value: Any, record: type[_T]) -> tuple[_T, ...] | None:
    if not isinstance(value, tuple | list):
        return None
    if not all(isinstance(item, record) for item in value):
        return None
    return tuple(value)


def _describe(value: object) -> str:
    if isinstance(value, tuple | list):
        kinds = sorted({type(item).__name__ for item in value})
        return f"{type(value).__name__} of {', '.join(kinds)}"
    return type(value).__name__

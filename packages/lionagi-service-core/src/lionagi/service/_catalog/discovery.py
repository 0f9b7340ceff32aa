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

Keep the module cheap and free of side effects: import vendor SDKs lazily inside endpoint
methods, never call the registry at import time, and defer request models with a factory when
building them is expensive.

Failure rules. Any ``Exception`` raised while importing the module or reading those attributes,
a missing or empty ``PROVIDER_SPECS``, or a value that is not a tuple (or list) of the record
type, becomes one ``import_error`` diagnostic: that provider is *unavailable*, the others still
publish, and selecting it raises ``ProviderUnavailable``. ``BaseException`` signals
(``KeyboardInterrupt``, ``SystemExit``, cancellation) propagate. Once records are obtained, any
invalid record or key collision fails the *whole* catalog (``CatalogValidationError``): serving a
subset could silently move an alias to another owner.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from .._base.diagnostics import ProviderDiagnostic
from .diagnose import describe_exception, diagnostic
from .keys import canonical_provider_key
from .policy import ProviderModelPolicy
from .specs import ProviderEndpointSpec, ProviderModuleSpec

__all__ = [
    "ENTRY_POINT_GROUP",
    "CollectedModule",
    "InventorySource",
    "collect_modules",
    "entry_point_inventory",
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
    """Read ``(provider, module)`` rows from installed metadata; no provider module is imported."""
    from importlib.metadata import entry_points  # deferred: keeps `import lionagi.service` cheap

    rows = {
        ProviderModuleSpec(provider=ep.name, module=ep.value) for ep in entry_points(group=group)
    }
    return tuple(sorted(rows, key=lambda r: (canonical_provider_key(r.provider), r.module)))


def collect_modules(rows: Iterable[ProviderModuleSpec]) -> tuple[CollectedModule, ...]:
    """Import every row's module and read its records; nothing is validated yet."""
    return tuple(_collect(row) for row in rows)


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

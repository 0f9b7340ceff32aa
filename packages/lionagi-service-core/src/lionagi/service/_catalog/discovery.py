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
:mod:`.deferred`) so the modules defining them load on the endpoint's first use, re-export public
names with ``lazy_exports``, import vendor SDKs lazily inside endpoint methods and never call the
registry at import time.

Either attribute may be a tuple or any other sequence (a list) of the record type; the catalog
keeps a tuple copy.

Failure rules. Any ``Exception`` raised while importing the module or reading those attributes
becomes one ``import_error`` diagnostic: that provider is *unavailable*, the others still
publish, and selecting it raises ``ProviderUnavailable``. So do ``SystemExit`` (a module calling
``sys.exit(n)`` at import must not end every command with status ``n``) and ``GeneratorExit``:
neither is control flow of the process doing the import. Only ``KeyboardInterrupt`` and
cancellation (``asyncio.CancelledError``, ``trio.Cancelled``) propagate: those are requests from
the user or the event loop to stop, which the catalog has no right to absorb.

A module that imports but breaks the contract is the author's mistake, not a broken install, and
is treated like any other invalid record: a missing (or misspelled), ``None`` or empty
``PROVIDER_SPECS``, a value that is not a sequence of ``ProviderEndpointSpec`` (a bare spec
without the tuple around it), or an entry point value written as ``module:object`` is an
``invalid_provider_module`` diagnostic; a ``MODEL_POLICIES`` that is not a sequence of
``ProviderModelPolicy`` is ``invalid_model_policy``. Each names the module and, in ``fix``, the
change to make there. Once records are obtained, any invalid record or key collision fails the
*whole* catalog (``CatalogValidationError``): serving a subset could silently move an alias to
another owner.

Each inventory row carries the distribution that declared it, so two distributions shipping the
same module (or the same provider key) are two rows and a collision, never one merged row.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from .._base.diagnostics import CatalogDiagnosticCode, ProviderDiagnostic
from .._base.pydantic_plugins import PYDANTIC_PLUGIN_GROUP, record_scan
from .._base.suggest import close_names
from .diagnose import describe_exception, diagnostic
from .entry_scan import ScannedEntryPoint, scan_groups
from .keys import canonical_provider_key
from .policy import ProviderModelPolicy
from .specs import ProviderEndpointSpec, ProviderModuleSpec

__all__ = [
    "DOTTED_NAME",
    "ENTRY_POINT_GROUP",
    "CollectedModule",
    "InventorySource",
    "collect_modules",
    "entry_point_inventory",
    "is_module_path",
    "is_stop_request",
]

ENTRY_POINT_GROUP = "lionagi.providers"

_T = TypeVar("_T")

InventorySource = Callable[[], Iterable[ProviderModuleSpec]]
"""Anything that yields inventory rows; the default reads installed entry points."""


@dataclass(frozen=True, slots=True)
class CollectedModule:
    """What one inventory row produced: its records, or the diagnostic that stopped it.

    An ``import_error`` makes the provider unavailable; any other code (an author's mistake in
    the module contract) fails the whole catalog like any invalid record.
    """

    row: ProviderModuleSpec
    specs: tuple[ProviderEndpointSpec, ...] = ()
    policies: tuple[ProviderModelPolicy, ...] = ()
    error: ProviderDiagnostic | None = None


def entry_point_inventory(group: str = ENTRY_POINT_GROUP) -> tuple[ProviderModuleSpec, ...]:
    """Read `(provider, module, distribution)` rows from installed metadata; import nothing.

    The metadata is read by a direct walk of the `*.dist-info` directories on `sys.path`
    and, for a layout that walk does not model, by `importlib.metadata`; both give the same
    rows.

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


_SPECS = "PROVIDER_SPECS"
_POLICIES = "MODEL_POLICIES"
_MISSING: Any = object()
_SPEC_EXAMPLE = "PROVIDER_SPECS = (ProviderEndpointSpec(...),)"


def _collect(row: ProviderModuleSpec) -> CollectedModule:
    provider = canonical_provider_key(row.provider)

    def unavailable(message: str, cause: str | None) -> CollectedModule:
        diag = diagnostic("import_error", provider, message, module=row.module, cause_type=cause)
        return CollectedModule(row=row, error=diag)

    def invalid(
        message: str,
        change: str,
        code: CatalogDiagnosticCode = "invalid_provider_module",
        where: str | None = None,
    ) -> CollectedModule:
        # An author's mistake: the fix says what to change, not to reinstall (that changes
        # nothing); the whole catalog fails, like any other invalid record.
        fix = _author_fix(row, change, where)
        # This row's own distribution: attribution by module would also blame every other
        # distribution declaring the same malformed value ('').
        dists = () if row.distribution is None else (row.distribution,)
        diag = diagnostic(code, provider, message, module=row.module, fix=fix, distributions=dists)
        return CollectedModule(row=row, error=diag)

    if ":" in row.module:
        module_path = row.module.partition(":")[0].strip()
        return invalid(
            f"entry point value {row.module!r} must be a module path, not 'module:object'",
            f"declare the entry point as {row.provider} = {module_path!r} (a module path, "
            "no ':object') under [project.entry-points.\"lionagi.providers\"]",
            where=f"{row.distribution or 'the distribution'}'s pyproject.toml",
        )
    if not is_module_path(row.module):
        # Empty, relative ('.acme'), or with extras ('pkg.mod [extra]'): the declaration is
        # wrong, so reinstalling (the import_error fix) would change nothing.
        return invalid(
            f"entry point value {row.module!r} is not an absolute module path "
            "(dotted identifiers, e.g. 'lionagi.providers.acme')",
            f"declare the entry point as {row.provider} = '<package>.<module>' (the module "
            'defining PROVIDER_SPECS) under [project.entry-points."lionagi.providers"]',
            where=f"{row.distribution or 'the distribution'}'s pyproject.toml",
        )
    try:
        module = importlib.import_module(row.module)
        raw_specs = getattr(module, _SPECS, _MISSING)
        raw_policies = getattr(module, _POLICIES, ())
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
    if raw_specs is _MISSING:
        near = _near_names(module, _SPECS)
        hint = f" (it defines {', '.join(near)}: a misspelling?)" if near else ""
        rename = f"rename {near[0]} to {_SPECS}, or " if len(near) == 1 else ""
        return invalid(
            f"module {row.module} does not define {_SPECS}{hint}",
            f"{rename}define {_SPEC_EXAMPLE}",
        )
    specs = _records(raw_specs, ProviderEndpointSpec)
    if specs is None:
        bare = isinstance(raw_specs, ProviderEndpointSpec)
        return invalid(
            f"{row.module}.{_SPECS} must be a tuple (or another sequence) of "
            f"ProviderEndpointSpec, got {_describe(raw_specs)}",
            "put the spec in a tuple (mind the trailing comma): " + _SPEC_EXAMPLE
            if bare
            else f"make it a tuple of ProviderEndpointSpec records: {_SPEC_EXAMPLE}",
        )
    if not specs:
        return invalid(
            f"{row.module}.{_SPECS} is empty: a provider module declares at least one endpoint",
            f"declare the provider's endpoints: {_SPEC_EXAMPLE}",
        )
    policies = _records(raw_policies, ProviderModelPolicy)
    if policies is None:
        return invalid(
            f"{row.module}.{_POLICIES} must be a tuple (or another sequence) of "
            f"ProviderModelPolicy, got {_describe(raw_policies)}",
            f"set {_POLICIES} = (ProviderModelPolicy(provider={provider!r}, ...),), or remove it",
            "invalid_model_policy",
        )
    return CollectedModule(row=row, specs=specs, policies=policies)


def _author_fix(row: ProviderModuleSpec, change: str, where: str | None) -> str:
    """What the provider's author changes, and what a user does until a release has it."""
    fix = f"in {where or row.module}, {change}"
    if row.distribution is None:
        return fix
    return (
        f"{fix} (a defect of {row.distribution}, not of the installation: reinstalling does "
        f"not help; until a release fixes it, pip uninstall {row.distribution})"
    )


def _near_names(module: object, wanted: str) -> list[str]:
    """The module's attributes spelled like ``wanted`` (``PROVIDER_SPEC``); error path only."""
    try:
        names = [name for name in vars(module) if isinstance(name, str)]
    except Exception:  # an object without __dict__ standing in for a module: no hint
        return []
    by_fold = {name.casefold(): name for name in names if name != wanted}
    close = close_names(wanted.casefold(), by_fold, n=3, cutoff=0.8)
    return [by_fold[name] for name in close]


DOTTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
"""An absolute dotted name: a module path, or the attribute path after a reference's ``:``."""


def is_module_path(value: str) -> bool:
    """Whether ``value`` is an absolute dotted module path ``importlib`` can import by name."""
    return DOTTED_NAME.fullmatch(value) is not None


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
    """``value`` as a tuple when it is a sequence (not a string) of ``record``; else ``None``."""
    if not isinstance(value, Sequence) or isinstance(value, str | bytes | bytearray):
        return None
    try:
        items = tuple(value)
    except Exception:  # a sequence type whose iteration fails is not a usable declaration
        return None
    if not all(isinstance(item, record) for item in items):
        return None
    return items


def _describe(value: object) -> str:
    if isinstance(value, tuple | list):
        kinds = sorted({type(item).__name__ for item in value})
        return f"{type(value).__name__} of {', '.join(kinds)}"
    return type(value).__name__

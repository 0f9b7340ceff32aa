"""Deferred endpoint rows: a provider's classes are imported on its first use, once.

Why. Importing every vendor's endpoint module to build the catalog made every command pay for
every installed vendor's pydantic models (issue 15 item 3; ADR-0028 D1/D3 amended, see
``docs/decisions.md``). A row may therefore name its ``endpoint_class`` and ``request_options``
as ``"module:attr"`` references. The build validates everything the row states without them
(keys, aliases, collisions, base URL and auth, policy rows, the reference syntax); this module
imports the references when the provider is first matched (or fully checked by
``providers --strict`` / ``doctor``) and runs the *same* build over that one row with the
objects in place, so a bad class, an unknown default key or an unimportable module fails with
the error the whole-catalog build would have given: ``ProviderUnavailable`` for an import
failure, ``CatalogValidationError`` for an invalid record. The outcome is cached per snapshot,
so every later lookup sees the same result, under a lock so two threads import at most once.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .._base.errors import CatalogValidationError, ProviderCatalogError, ProviderUnavailable
from .._transport.meta import EndpointType
from .diagnose import describe_exception, diagnostic
from .discovery import CollectedModule, is_stop_request
from .keys import canonical_provider_key
from .specs import ProviderEndpointSpec

if TYPE_CHECKING:
    from .snapshot import CatalogProvider, CatalogSnapshot

__all__ = [
    "DeferredProviders",
    "cli_providers",
    "failures",
    "is_deferred",
    "load_ref",
    "ref_problem",
]

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_REF = re.compile(rf"{_NAME}(?:\.{_NAME})*:{_NAME}(?:\.{_NAME})*")


def ref_problem(ref: str, field: str, expected: str) -> str | None:
    """Why ``ref`` is not a ``package.module:Name`` reference, or None when it is one."""
    if _REF.fullmatch(ref) is None:
        return f"{field} must be {expected}, or a 'package.module:Name' reference; got {ref!r:.80}"
    return None


def is_deferred(spec: ProviderEndpointSpec) -> bool:
    """Whether the row names its class or request model by reference."""
    return isinstance(spec.endpoint_class, str) or isinstance(spec.request_options, str)


def load_ref(ref: str) -> object:
    """Import ``module`` and walk ``attr`` of a ``module:attr`` reference."""
    module_name, _, attr = ref.partition(":")
    value: object = importlib.import_module(module_name)
    for part in attr.split("."):
        value = getattr(value, part)
    return value


def _resolve_row(collected: CollectedModule) -> CollectedModule:
    """The row with every reference replaced by its object, or the import failure it hit."""
    provider = canonical_provider_key(collected.row.provider)
    specs: list[ProviderEndpointSpec] = []
    for spec in collected.specs:
        ref = ""
        try:
            values: dict[str, Any] = {}
            for name in ("endpoint_class", "request_options"):
                value = getattr(spec, name)
                if isinstance(value, str):
                    ref = value
                    values[name] = load_ref(value)
            specs.append(replace(spec, **values))
        except BaseException as exc:
            if is_stop_request(exc):
                raise
            message = f"importing {ref} (declared by {collected.row.module}) failed: " + (
                describe_exception(exc)
            )
            diag = diagnostic(
                "import_error",
                provider,
                message,
                module=collected.row.module,
                cause_type=type(exc).__name__,
            )
            return CollectedModule(row=collected.row, error=diag)
    return CollectedModule(row=collected.row, specs=tuple(specs), policies=collected.policies)


class DeferredProviders:
    """One snapshot's deferred rows by canonical provider key, and each one's cached outcome."""

    def __init__(self, modules: Mapping[str, CollectedModule] | None = None) -> None:
        self._modules = dict(modules or {})
        self._lock = threading.Lock()
        self._outcomes: dict[str, CatalogProvider | ProviderCatalogError] = {}

    @property
    def providers(self) -> tuple[str, ...]:
        """Sorted keys of the providers whose classes are still references."""
        return tuple(sorted(self._modules))

    def pending(self, provider: str) -> bool:
        """Whether ``provider`` (canonical) has deferred rows."""
        return provider in self._modules

    def resolved(self) -> tuple[CatalogProvider, ...]:
        """The providers resolved so far (for clearing class-bound metadata on republish)."""
        with self._lock:
            return tuple(o for o in self._outcomes.values() if not isinstance(o, Exception))

    def materialize(self, provider: str) -> CatalogProvider:
        """The provider with its classes imported and checked; raise its cached failure.

        Raises:
            ProviderUnavailable: a referenced module failed to import.
            CatalogValidationError: a referenced object is not a valid record (the build's
                diagnostics for that row).
        """
        with self._lock:
            outcome = self._outcomes.get(provider)
            if outcome is None:
                outcome = self._resolve(provider)
                self._outcomes[provider] = outcome
        if isinstance(outcome, Exception):
            raise outcome.with_traceback(None)
        return outcome

    def _resolve(self, provider: str) -> CatalogProvider | ProviderCatalogError:
        from .build import build_from_modules  # deferred: build imports this module

        collected = _resolve_row(self._modules[provider])
        try:
            mini = build_from_modules((collected.row,), (collected,))
        except CatalogValidationError as exc:
            return exc
        diag = mini.unavailable.get(provider)
        if diag is not None:
            return ProviderUnavailable(provider, diag)
        entry = mini.providers[provider]
        for endpoint in entry.endpoints.values():
            if endpoint.endpoint_class is not None:
                endpoint.endpoint_class._ENDPOINT_META = endpoint.meta
        return entry


def failures(
    snapshot: CatalogSnapshot, providers: Iterable[str]
) -> dict[str, ProviderUnavailable | CatalogValidationError]:
    """Resolve each deferred provider of ``providers``; return the ones that failed, by key.

    This is the full check ``providers --strict`` and ``doctor`` run: every referenced module is
    imported and every class and request model validated, as the eager build used to do.
    """
    out: dict[str, ProviderUnavailable | CatalogValidationError] = {}
    for key in providers:
        if not snapshot.deferred.pending(key):
            continue
        try:
            snapshot.provider(key)
        except (ProviderUnavailable, CatalogValidationError) as exc:
            out[key] = exc
    return out


def cli_providers(snapshot: CatalogSnapshot) -> tuple[str, ...]:
    """Providers with an agentic endpoint: the ones whose program ``cli_report`` probes."""
    agentic = EndpointType.AGENTIC
    return tuple(
        key
        for key, provider in sorted(snapshot.providers.items())
        if any(e.endpoint_type is agentic for e in provider.endpoints.values())
    )

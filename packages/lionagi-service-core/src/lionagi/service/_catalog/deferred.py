"""Deferred endpoint rows: an endpoint's classes are imported on its first use, once.

Why. Importing every vendor's endpoint module to build the catalog made every command pay for
every installed vendor's pydantic models (issue 15 item 3; ADR-0028 D1/D3 amended, see
``docs/decisions.md``). A row may therefore name its ``endpoint_class`` and ``request_options``
as ``"module:attr"`` references. The build validates everything the row states without them
(keys, aliases, collisions, base URL and auth, policy rows, the reference syntax); this module
imports the references when an endpoint is first matched, only that endpoint's (a chat call
does not build the same provider's Responses or embeddings models), or every endpoint's when
the provider is fully checked (``providers --strict`` / ``doctor``), and runs the *same* build
over that provider's row with those objects in place, so a bad class, an unknown default key or
an unimportable module fails with the error the whole-catalog build would have given:
``ProviderUnavailable`` for an import failure, ``CatalogValidationError`` for an invalid
record. The outcome is cached per snapshot (per endpoint, and per provider for the full check),
so every later lookup sees the same result, under a lock so two threads import at most once.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Generic, TypeVar

from .._base.errors import ProviderCatalogError
from .diagnose import describe_exception, diagnostic
from .discovery import DOTTED_NAME, CollectedModule, is_stop_request
from .keys import canonical_endpoint_key, canonical_provider_key
from .specs import ProviderEndpointSpec

_R = TypeVar("_R")

__all__ = ["DeferredProviders", "is_deferred", "load_ref", "ref_problem", "resolve_row"]

_REF = re.compile(rf"{DOTTED_NAME.pattern}:{DOTTED_NAME.pattern}")


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


def resolve_row(collected: CollectedModule, only: str | None = None) -> CollectedModule:
    """The row with its references replaced by their objects, or the import failure it hit.

    ``only`` (a canonical endpoint key) limits the imports to that endpoint's references; the
    other endpoints keep theirs, which the build accepts as it did the first time.
    """
    provider = canonical_provider_key(collected.row.provider)
    specs: list[ProviderEndpointSpec] = []
    for spec in collected.specs:
        if only is not None and canonical_endpoint_key(spec.endpoint) != only:
            specs.append(spec)
            continue
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


class DeferredProviders(Generic[_R]):
    """One snapshot's deferred rows by canonical provider key, and each one's cached outcome.

    ``rebuild`` turns one row into its resolved provider (or the error to raise): every
    endpoint's references imported, or (given an endpoint key) only that endpoint's. The build
    passes it in, which keeps this module free of the build and snapshot modules it serves.
    Outcomes are keyed ``(provider, None)`` for the whole provider, ``(provider, key)`` for one
    endpoint; an endpoint is served from its whole provider's outcome when that succeeded.
    """

    def __init__(
        self,
        modules: Mapping[str, CollectedModule] | None = None,
        rebuild: Callable[[CollectedModule, str | None], _R | ProviderCatalogError] | None = None,
    ) -> None:
        self._modules = dict(modules or {})
        self._rebuild = rebuild
        self._lock = threading.Lock()
        self._resolver: int | None = None  # the thread importing a provider's references
        self._outcomes: dict[tuple[str, str | None], _R | ProviderCatalogError] = {}
        self._on_resolved: Callable[[_R], None] | None = None

    def on_resolved(self, callback: Callable[[_R], None]) -> None:
        """Call ``callback`` with every provider resolved so far and each one resolved later.

        The catalog that owns class-bound metadata (the process-wide one) registers here, so a
        deferred class gets ``_ENDPOINT_META`` when it is imported; a private catalog does not,
        and so never writes to a class another catalog serves.
        """
        with self._lock:
            self._on_resolved = callback
            done = [o for o in self._outcomes.values() if not isinstance(o, Exception)]
        for outcome in done:
            callback(outcome)

    @property
    def providers(self) -> tuple[str, ...]:
        """Sorted keys of the providers whose classes are still references."""
        return tuple(sorted(self._modules))

    def pending(self, provider: str) -> bool:
        """Whether ``provider`` (canonical) has deferred rows."""
        return provider in self._modules

    def resolved(self) -> tuple[_R, ...]:
        """What was resolved so far, whole providers and single endpoints (for republishing)."""
        with self._lock:
            return tuple(o for o in self._outcomes.values() if not isinstance(o, Exception))

    def materialize(self, provider: str, endpoint: str | None = None) -> _R:
        """The provider with its classes imported and checked; raise its cached failure.

        With ``endpoint`` (a canonical key of the provider's), only that endpoint's classes are
        imported: the others stay references (``endpoint_class`` None) in what is returned.

        Raises:
            ProviderUnavailable: a referenced module failed to import.
            CatalogValidationError: a referenced object is not a valid record (the build's
                diagnostics for that row).
            ProviderCatalogError: a referenced module, while being imported, resolved a
                deferred provider (the lock is not reentrant: waiting would hang forever).
        """
        if self._resolver == threading.get_ident():
            # Raised inside the import, so it becomes that row's import_error, as the build
            # reports a provider module calling the registry at import time.
            raise ProviderCatalogError(
                f"resolving provider {provider!r} while a provider's endpoint module was being "
                "imported; provider modules must not call the registry at import time"
            )
        with self._lock:
            whole = self._outcomes.get((provider, None))
            if endpoint is not None and whole is not None and not isinstance(whole, Exception):
                return whole
            key = (provider, endpoint)
            outcome = self._outcomes.get(key)
            if outcome is None:
                self._resolver = threading.get_ident()
                try:
                    outcome = self._resolve(provider, endpoint)
                finally:
                    self._resolver = None
                self._outcomes[key] = outcome
                if self._on_resolved is not None and not isinstance(outcome, Exception):
                    self._on_resolved(outcome)
        if isinstance(outcome, Exception):
            raise outcome.with_traceback(None)
        return outcome

    def _resolve(self, provider: str, endpoint: str | None) -> _R | ProviderCatalogError:
        if self._rebuild is None:
            raise KeyError(provider)
        return self._rebuild(self._modules[provider], endpoint)

"""The provider catalog's owner: lazy first build, atomic publication, refresh.

:class:`ProviderCatalog` holds one published :class:`CatalogSnapshot`. The first lookup builds it
under a ``threading.Lock`` (once, however many threads ask); afterwards every lookup is a read of
an immutable snapshot with no lock. :meth:`ProviderCatalog.refresh` rebuilds and replaces the
snapshot in a single assignment, or raises and keeps the previous one. A failed first build is
remembered, so a broken module is not re-imported on every lookup; ``refresh()`` retries.

:class:`EndpointRegistry` is the classmethod facade over the process-wide default catalog.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from .._base.diagnostics import ProviderDiagnostic
from .._base.errors import CatalogValidationError, ProviderCatalogError
from .._transport.http.endpoint import Endpoint
from .._transport.http.openai_dialect import OpenAIChatEndpoint
from .catalog_meta import CatalogEndpointMeta
from .discovery import InventorySource, entry_point_inventory
from .match import match_in
from .model_parse import parse_in
from .policy import ModelSpec
from .projection import CatalogReport, ProviderCatalogItem, project, project_inventory
from .snapshot import CatalogProvider, CatalogSnapshot
from .specs import ProviderModuleSpec

if TYPE_CHECKING:
    # Annotations only: building the settings model is an agentic cost an HTTP-only
    # program's first call should not pay (issue 15, cold start).
    from .._transport.agentic.settings import AgenticSettings

__all__ = ["EndpointRegistry", "ProviderCatalog", "match_endpoint", "parse_model_spec"]


class ProviderCatalog:
    """A catalog fed by an inventory source (installed entry points by default).

    Args:
        source: returns the inventory rows to import; called once per build.
        compatible_endpoint_class: the class instantiated for explicit OpenAI-compatible
            endpoints.
    """

    def __init__(
        self,
        source: InventorySource = entry_point_inventory,
        *,
        compatible_endpoint_class: type[Endpoint] = OpenAIChatEndpoint,
    ) -> None:
        self._source = source
        self.compatible_endpoint_class = compatible_endpoint_class
        self._lock = threading.Lock()
        self._snapshot: CatalogSnapshot | None = None
        self._failure: tuple[ProviderDiagnostic, ...] | None = None
        self._failed_inventory: tuple[ProviderModuleSpec, ...] = ()
        self._builder: int | None = None

    # -- snapshot ---------------------------------------------------------------------------------

    def snapshot(self) -> CatalogSnapshot:
        """The published snapshot, building it on first use.

        Raises:
            CatalogValidationError: the catalog does not validate (every diagnostic attached).
        """
        snapshot = self._snapshot
        if snapshot is not None:
            return snapshot
        self._refuse_reentry()
        with self._lock:
            if self._snapshot is not None:
                return self._snapshot
            if self._failure is not None:
                raise CatalogValidationError(self._failure)
            return self._build(self._source)

    def refresh(self, *, inventory: Iterable[ProviderModuleSpec] | None = None) -> CatalogSnapshot:
        """Rebuild from `inventory` (or the source) and publish; keep the old one on failure."""
        self._refuse_reentry()
        with self._lock:
            if inventory is None:
                return self._build(self._source)
            rows = tuple(inventory)
            return self._build(lambda: rows)

    @property
    def published(self) -> CatalogSnapshot | None:
        """The current snapshot without building one."""
        return self._snapshot

    def _refuse_reentry(self) -> None:
        if self._builder == threading.get_ident():
            raise ProviderCatalogError(
                "a provider module resolved an endpoint while the catalog was being built; "
                "provider modules must not call the registry at import time"
            )

    def _build(self, source: InventorySource) -> CatalogSnapshot:
        # Deferred: validation code is only needed once a lookup happens (cold-import budget).
        from .build import build_snapshot

        self._builder = threading.get_ident()
        rows: tuple[ProviderModuleSpec, ...] = ()
        try:
            rows = tuple(source())
            snapshot = build_snapshot(rows)
        except CatalogValidationError as exc:
            if self._snapshot is None:
                self._failure = exc.diagnostics
                self._failed_inventory = rows
            raise
        finally:
            self._builder = None
        self._publish(snapshot)
        return snapshot

    def _publish(self, snapshot: CatalogSnapshot) -> None:
        """Make ``snapshot`` the one readers see; the process-wide catalog also binds classes.

        ``_ENDPOINT_META`` is one slot per class, shared by the whole process, while the same
        class can be served by any number of catalogs. Only the catalog behind
        :class:`EndpointRegistry` (what ``SomeEndpoint()`` with no config means by "the
        catalog", ADR-0028 D1) writes it, and a refresh clears only the metadata objects its
        previous snapshot bound, by identity. So a private catalog's refresh can no longer wipe,
        or its build overwrite, the metadata of a class the global catalog still serves; a
        private catalog hands its endpoints their config through ``match`` and needs none.
        """
        previous = self._snapshot
        if self is EndpointRegistry._catalog:
            for entry in snapshot.endpoints():
                if entry.endpoint_class is not None:  # a deferred row's is bound on resolution
                    entry.endpoint_class._ENDPOINT_META = entry.meta
            snapshot.deferred.on_resolved(_bind)
            if previous is not None:
                _resolve_again(previous, snapshot)
        self._snapshot = snapshot  # the single assignment readers observe
        self._failure = None
        self._failed_inventory = ()
        if previous is not None:
            for cls, meta in _bound(previous):
                if cls._ENDPOINT_META is meta:  # still ours: the new snapshot did not rebind it
                    cls._ENDPOINT_META = None

    # -- lookups ----------------------------------------------------------------------------------

    def match(
        self,
        provider: str,
        endpoint: str,
        *,
        openai_compatible: bool = False,
        request_defaults: Mapping[str, Any] | None = None,
        agentic_settings: AgenticSettings | Mapping[str, Any] | None = None,
        **config_overrides: Any,
    ) -> Endpoint:
        """Resolve and construct an endpoint (see `match_endpoint`)."""
        return match_in(
            self.snapshot(),
            provider,
            endpoint,
            openai_compatible=openai_compatible,
            request_defaults=request_defaults,
            agentic_settings=agentic_settings,
            compatible_class=self.compatible_endpoint_class,
            **config_overrides,
        )

    def list_providers(self) -> list[ProviderCatalogItem]:
        """The inspection projection of the published snapshot."""
        return project(self.snapshot())

    def inspect(self) -> CatalogReport:
        """What is installed and whether it validates; never raises `CatalogValidationError`.

        A valid catalog reports `list_providers`. An invalid one still lists every
        installed inventory row (with its distribution and the diagnostics that concern it), so
        a user can see what to uninstall; nothing in it is selectable.
        """
        try:
            snapshot = self.snapshot()
        except CatalogValidationError as exc:
            with self._lock:
                rows = self._failed_inventory
            return CatalogReport(
                valid=False,
                providers=project_inventory(rows, exc.diagnostics),
                diagnostics=[d.to_dict() for d in exc.diagnostics],
            )
        return CatalogReport(
            valid=True,
            providers=project(snapshot),
            diagnostics=[d.to_dict() for d in snapshot.diagnostics],
        )

    def parse_model_spec(
        self, spec: str, *, yolo: bool = False, bypass: bool = False, fast: bool = False
    ) -> ModelSpec:
        """Parse a model string with the snapshot's provider policies."""
        return parse_in(self.snapshot(), spec, yolo=yolo, bypass=bypass, fast=fast)


class EndpointRegistry:
    """Classmethod facade over the process-wide catalog, fed by installed entry points."""

    _catalog: ClassVar[ProviderCatalog] = ProviderCatalog()

    @classmethod
    def catalog(cls) -> ProviderCatalog:
        """The process-wide `ProviderCatalog`."""
        return cls._catalog

    @classmethod
    def snapshot(cls) -> CatalogSnapshot:
        """The published snapshot, built on first use."""
        return cls._catalog.snapshot()

    @classmethod
    def refresh(cls, *, inventory: Iterable[ProviderModuleSpec] | None = None) -> CatalogSnapshot:
        """Re-import and revalidate; on failure the previous snapshot keeps serving."""
        return cls._catalog.refresh(inventory=inventory)

    @classmethod
    def diagnostics(cls) -> tuple[ProviderDiagnostic, ...]:
        """Sorted diagnostics of the published snapshot (import errors only)."""
        return cls._catalog.snapshot().diagnostics

    @classmethod
    def match(
        cls,
        provider: str,
        endpoint: str,
        *,
        openai_compatible: bool = False,
        request_defaults: Mapping[str, Any] | None = None,
        agentic_settings: AgenticSettings | Mapping[str, Any] | None = None,
        **config_overrides: Any,
    ) -> Endpoint:
        """Resolve and construct an endpoint (see `match_endpoint`)."""
        return cls._catalog.match(
            provider,
            endpoint,
            openai_compatible=openai_compatible,
            request_defaults=request_defaults,
            agentic_settings=agentic_settings,
            **config_overrides,
        )

    @classmethod
    def list_providers(cls) -> list[ProviderCatalogItem]:
        """One typed row per installed provider, sorted; no secrets, no request defaults."""
        return cls._catalog.list_providers()

    @classmethod
    def inspect(cls) -> CatalogReport:
        """Installed rows and diagnostics, also when the catalog is invalid (never raises it)."""
        return cls._catalog.inspect()

    @classmethod
    def parse_model_spec(
        cls, spec: str, *, yolo: bool = False, bypass: bool = False, fast: bool = False
    ) -> ModelSpec:
        """Parse a model string with the default catalog's provider policies."""
        return cls._catalog.parse_model_spec(spec, yolo=yolo, bypass=bypass, fast=fast)


def match_endpoint(
    provider: str,
    endpoint: str,
    *,
    openai_compatible: bool = False,
    request_defaults: Mapping[str, Any] | None = None,
    agentic_settings: AgenticSettings | Mapping[str, Any] | None = None,
    **config_overrides: Any,
) -> Endpoint:
    """Return a new endpoint instance for `provider`/`endpoint` from the installed catalog.

    `config_overrides` accepts only `EndpointConfig` fields; `request_defaults` only
    fields of the selected request model. `openai_compatible=True` authorizes a marked generic
    Chat Completions endpoint (`base_url` required) when no registration matches; it never
    replaces a registered endpoint and never masks `ProviderUnavailable`. `agentic_settings`
    (an `AgenticSettings` or its mapping) deploys a subprocess agentic endpoint: binary,
    gateway, env, cwd, config home; any other endpoint refuses it, naming the field.

    Raises:
        ProviderUnavailable: the provider is installed but failed to load.
        EndpointNotFound: no registration matches and fallback was not requested.
        EndpointConfigurationError: an override, request default or `base_url` is invalid.
        CatalogValidationError: the installed catalog does not validate.
    """
    return EndpointRegistry.match(
        provider,
        endpoint,
        openai_compatible=openai_compatible,
        request_defaults=request_defaults,
        agentic_settings=agentic_settings,
        **config_overrides,
    )


def parse_model_spec(
    spec: str, *, yolo: bool = False, bypass: bool = False, fast: bool = False
) -> ModelSpec:
    """Parse `alias[-effort]` or `provider/model[-effort]` against the installed catalog.

    Raises:
        EndpointConfigurationError: `model` names no provider, or its effort suffix is not
            accepted; `yolo`/`bypass`/`fast` when the provider has no such mode.
        ProviderUnavailable: `spec` is the bare name of an installed provider whose module
            failed to load (or the `lionagi-provider-<name>` spelling of exactly one).
    """
    return EndpointRegistry.parse_model_spec(spec, yolo=yolo, bypass=bypass, fast=fast)


def _bind(provider: CatalogProvider) -> None:
    """Bind a resolved deferred provider's classes (the process-wide catalog only)."""
    for entry in provider.endpoints.values():
        if entry.endpoint_class is not None:
            entry.endpoint_class._ENDPOINT_META = entry.meta


def _resolve_again(previous: CatalogSnapshot, snapshot: CatalogSnapshot) -> None:
    """Resolve, in ``snapshot``, the deferred endpoints ``previous`` had resolved.

    Their classes are imported already and still served; without this a refresh left them
    without ``_ENDPOINT_META`` until their next lookup. A failure is cached in ``snapshot`` and
    raised by that lookup, exactly as if the resolution had waited for it.
    """
    for provider in previous.deferred.resolved():
        if not snapshot.deferred.pending(provider.provider):
            continue
        new = snapshot.providers[provider.provider].endpoints
        for key, entry in provider.endpoints.items():
            if entry.endpoint_class is not None and key in new:
                # A failure is cached; the class is then cleared with previous's other bindings.
                with contextlib.suppress(ProviderCatalogError):
                    snapshot.endpoint(provider.provider, key)


def _bound(snapshot: CatalogSnapshot) -> list[tuple[type[Endpoint], CatalogEndpointMeta]]:
    """Every (class, metadata) ``snapshot`` may have bound, its resolved deferred rows included."""
    entries = [*snapshot.endpoints()]
    for provider in snapshot.deferred.resolved():
        entries.extend(provider.endpoints.values())
    return [(e.endpoint_class, e.meta) for e in entries if e.endpoint_class is not None]

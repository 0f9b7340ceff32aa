"""CatalogSnapshot: the immutable, validated catalog every lookup reads (ADR-0028 D2-D5).

All maps are ``MappingProxyType`` views over dicts no one else holds, and every sequence is a
tuple, so a published snapshot can be read from any thread without a lock and never changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pydantic import BaseModel

from .._base.diagnostics import ProviderDiagnostic
from .._base.errors import ProviderCatalogError
from .._transport.http.endpoint import Endpoint
from .._transport.meta import EndpointType
from .catalog_meta import CatalogEndpointMeta
from .deferred import DeferredProviders
from .policy import ProviderModelPolicy
from .specs import AgenticProgram, ProviderModuleSpec

__all__ = ["CatalogEndpoint", "CatalogProvider", "CatalogSnapshot", "ModelAlias"]


@dataclass(frozen=True, slots=True)
class CatalogEndpoint:
    """One resolvable endpoint. ``endpoint`` keeps the declared spelling (it is a URL path).

    ``endpoint_class`` is None for a deferred row (:mod:`.deferred`) until that endpoint is
    resolved; ``endpoint_ref`` / ``request_ref`` always name the class and request model as
    ``module:qualname``, so inspection never needs the import; ``program`` is what the row
    declares its agentic adapter needs installed (:class:`.specs.AgenticProgram`), if it does.
    """

    provider: str
    key: str
    endpoint: str
    aliases: tuple[str, ...]
    endpoint_type: EndpointType
    endpoint_class: type[Endpoint] | None
    request_options: type[BaseModel] | None
    meta: CatalogEndpointMeta
    module: str
    endpoint_ref: str = ""
    request_ref: str | None = None
    program: AgenticProgram | None = None

    @property
    def resolved_class(self) -> type[Endpoint]:
        """The endpoint class; resolved only in entries from `CatalogSnapshot.endpoint`/`.provider`.

        Raises:
            ProviderCatalogError: the entry came from a deferred provider's unresolved view
                (a catalog bug, never a user error).
        """
        if self.endpoint_class is None:
            raise ProviderCatalogError(
                f"endpoint {self.provider}/{self.key} is deferred ({self.endpoint_ref}); "
                "look it up through CatalogSnapshot.endpoint() or .provider()"
            )
        return self.endpoint_class


@dataclass(frozen=True, slots=True)
class CatalogProvider:
    """One available provider: its canonical aliases and endpoints keyed by canonical key."""

    provider: str
    aliases: tuple[str, ...]
    module: str
    endpoints: Mapping[str, CatalogEndpoint]
    endpoint_index: Mapping[str, str]
    endpoint_keys: tuple[str, ...]
    policy: ProviderModelPolicy | None


@dataclass(frozen=True, slots=True)
class ModelAlias:
    """A bare model name and the ``provider/model`` string it expands to (declared spelling)."""

    provider: str
    target: str


@dataclass(frozen=True, slots=True)
class CatalogSnapshot:
    """The validated catalog.

    `provider_index` maps every canonical provider key and alias to its canonical provider.
    `unavailable` maps an installed provider whose module failed to its `import_error`
    diagnostic. `diagnostics` is sorted; a published snapshot only ever holds import errors.
    """

    inventory: tuple[ProviderModuleSpec, ...]
    providers: Mapping[str, CatalogProvider]
    provider_index: Mapping[str, str]
    unavailable: Mapping[str, ProviderDiagnostic]
    diagnostics: tuple[ProviderDiagnostic, ...]
    model_aliases: Mapping[str, ModelAlias]
    deferred: DeferredProviders[CatalogProvider] = field(
        default_factory=DeferredProviders, compare=False
    )

    def provider(self, key: str) -> CatalogProvider:
        """The available provider `key` (canonical) with its classes imported and checked.

        Raises:
            KeyError: `key` is not an available provider.
            ProviderUnavailable / CatalogValidationError: its deferred rows failed on first use.
        """
        if self.deferred.pending(key):
            return self.deferred.materialize(key)
        return self.providers[key]

    def endpoint(self, provider: str, key: str) -> CatalogEndpoint:
        """The endpoint `key` of `provider` (both canonical) with its classes imported.

        Only that endpoint's modules are imported for a deferred provider: a chat call does
        not pay for the same vendor's other endpoints' request models.

        Raises:
            KeyError: no such available provider or endpoint.
            ProviderUnavailable / CatalogValidationError: the endpoint's deferred references
                failed on first use.
        """
        if self.deferred.pending(provider):
            if key not in self.providers[provider].endpoints:
                raise KeyError(key)
            return self.deferred.materialize(provider, key).endpoints[key]
        return self.providers[provider].endpoints[key]

    @property
    def provider_keys(self) -> tuple[str, ...]:
        """Sorted canonical keys of the available providers."""
        return tuple(sorted(self.providers))

    def endpoints(self) -> tuple[CatalogEndpoint, ...]:
        """Every endpoint, ordered by (provider, endpoint key)."""
        return tuple(
            p.endpoints[k] for _, p in sorted(self.providers.items()) for k in p.endpoint_keys
        )

"""The records a provider distribution publishes (ADR-0028 D1): named, immutable, reviewable.

A provider module builds :class:`ProviderEndpointSpec` values by keyword; the catalog validates the
whole set before any of it becomes resolvable. :class:`ProviderModuleSpec` is one inventory row:
the provider key an installed distribution claims, the module that must supply its specs, and the
distribution that declared it (so a diagnostic can name what to uninstall or reinstall).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from .._transport.http.endpoint import Endpoint
from .._transport.meta import EndpointType

__all__ = ["AgenticProgram", "ProviderEndpointSpec", "ProviderModuleSpec", "RequestOptionsFactory"]

RequestOptionsFactory = Callable[[], type[BaseModel]]
"""Deferred request model: called exactly once per snapshot build, never during lookup."""


@dataclass(frozen=True, slots=True)
class AgenticProgram:
    """What an agentic row needs installed: a CLI program, or Python modules for in-process.

    Why on the row: `lionagi-service providers` reports whether each CLI adapter's program is
    installed; read from the adapter class, that report imported every CLI adapter for a command
    that runs none of them. Declared here (a vendor keeps the one value in a dependency-free
    module of its package and its adapter class reads its attributes from it), the report needs
    no import. When the row's class is imported (first use, `providers --strict`, `doctor`) the
    catalog checks that the class declares the same values, so the two cannot drift.

    `binary` is the program a subprocess adapter runs (its `cli_binary`); `modules` the
    top-level modules an in-process adapter needs (its `required_modules`). The hints and the
    tested version are the class's `install_hint` / `auth_hint` / `tested_version`.
    """

    binary: str | None = None
    modules: tuple[str, ...] = ()
    tested_version: str | None = None
    install_hint: str | None = None
    auth_hint: str | None = None


@dataclass(frozen=True, slots=True)
class ProviderEndpointSpec:
    """One endpoint of one provider, declared by field name.

    `request_defaults` is the only field whose contents become provider payload defaults; the
    catalog deep-copies it into the snapshot, so later mutation of the author's mapping is not
    observed.

    `endpoint_class` and `request_options` may be `"module:attr"` references instead of
    objects (a *deferred* row, `deferred`): the build checks everything else about the row,
    and the referenced module is imported, and the class/model checks run, on the provider's
    first use. This is what keeps a vendor's pydantic models out of every command that does not
    use that vendor. `program` (agentic rows only) declares what the adapter needs installed,
    so availability reports need not import the class either (`AgenticProgram`).

    `timeout` is the row's own local transport cap in seconds (a finite number > 0), the
    `EndpointConfig.timeout` every config built from the row starts with; a caller's
    `timeout=` still replaces it. None (the default) keeps the endpoint type's cap (600 s for
    an API row, 3600 s for an agentic one). Why on the row: an endpoint whose right cap differs
    from its type's (a remote agent answering in seconds) otherwise got the generic value, and
    could only guess whether that value was the catalog's or a caller's who asked for the same
    number.
    """

    provider: str
    endpoint: str
    endpoint_type: EndpointType
    endpoint_class: type[Endpoint] | str
    provider_aliases: tuple[str, ...] = ()
    endpoint_aliases: tuple[str, ...] = ()
    request_options: type[BaseModel] | RequestOptionsFactory | str | None = None
    base_url: str | None = None
    auth_type: str | None = None
    content_type: str = "application/json"
    api_key_env: str | None = None
    request_defaults: Mapping[str, Any] = field(default_factory=dict)
    program: AgenticProgram | None = None
    timeout: float | None = None


@dataclass(frozen=True, slots=True)
class ProviderModuleSpec:
    """One inventory row: `provider` is the key the module must register under.

    `distribution` is the installed distribution whose entry point declared the row (its
    metadata `Name`); `None` for rows built by hand, e.g. `refresh(inventory=...)`. It takes
    part in equality: the same `(provider, module)` declared by two distributions is two rows,
    which is what lets the catalog see that they collide.
    """

    provider: str
    module: str
    distribution: str | None = None

"""Validation of endpoint specs (ADR-0028 D1, D2; ADR-0030 D1).

Validation is a closed-world check: it runs only after every module was collected, and it reports
every problem at once. This module checks each spec on its own (keys, endpoint class, request
model, payload defaults, config) and resolves its deferred parts exactly once; the catalog-wide
uniqueness rules live in :mod:`.collisions`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, NamedTuple, get_args

from pydantic import BaseModel

from .._base.diagnostics import CatalogDiagnosticCode, ProviderDiagnostic
from .._base.errors import EndpointConfigurationError
from .._transport.agentic import is_agentic_class
from .._transport.config import positive_timeout
from .._transport.http.endpoint import Endpoint
from .._transport.meta import EndpointType
from .catalog_meta import CatalogEndpointMeta
from .collisions import canon_text, collision_diagnostics, inventory_diagnostics
from .defaults import copy_defaults, request_default_problems
from .deferred import ref_problem
from .diagnose import describe_exception, diagnostic
from .discovery import CollectedModule
from .keys import canonical_endpoint_key, canonical_provider_key
from .specs import AgenticProgram, ProviderEndpointSpec

if TYPE_CHECKING:
    from .._transport.agentic.endpoint import AgenticEndpoint
    from .._transport.agentic.records import AgenticCapabilities

__all__ = ["ValidatedSpec", "validate_specs"]


class ValidatedSpec(NamedTuple):
    """A spec with its keys canonicalized and its deferred parts resolved exactly once.

    A named tuple, not a dataclass: this module loads inside every catalog build, and on
    Python 3.11 generating a frozen dataclass costs about a millisecond (``docs/decisions.md``
    "Catalog build on a budget").
    """

    spec: ProviderEndpointSpec
    module: str
    provider: str
    provider_aliases: tuple[str, ...]
    key: str
    endpoint: str
    endpoint_aliases: tuple[str, ...]
    request_model: type[BaseModel] | None
    meta: CatalogEndpointMeta


class _Ctx:
    """Accumulates diagnostics and caches each request-options factory's single call."""

    __slots__ = ("diagnostics", "factory_results")

    def __init__(
        self,
        diagnostics: list[ProviderDiagnostic],
        factory_results: dict[int, tuple[object, type[BaseModel] | BaseException]],
    ) -> None:
        self.diagnostics = diagnostics
        self.factory_results = factory_results

    def add(self, diag: ProviderDiagnostic) -> None:
        self.diagnostics.append(diag)


def validate_specs(
    modules: Iterable[CollectedModule],
) -> tuple[list[ProviderDiagnostic], tuple[ValidatedSpec, ...]]:
    """Validate every collected spec; return all diagnostics and the specs that passed alone.

    The caller publishes only when the returned diagnostics hold nothing but ``import_error``.
    """
    ctx = _Ctx(diagnostics=[], factory_results={})
    modules = tuple(modules)
    for collected in modules:
        if collected.error is not None:
            ctx.add(collected.error)
    ctx.diagnostics.extend(inventory_diagnostics(m.row for m in modules))
    validated: list[ValidatedSpec] = []
    for collected in modules:
        row_provider = canonical_provider_key(collected.row.provider)
        for spec in collected.specs:
            item = _check_spec(ctx, spec, collected.row.module, row_provider)
            if item is not None:
                validated.append(item)
    ctx.diagnostics.extend(collision_diagnostics(modules))
    return ctx.diagnostics, tuple(validated)


# -- one spec -------------------------------------------------------------------------------------


def _check_spec(
    ctx: _Ctx, spec: ProviderEndpointSpec, module: str, row_provider: str
) -> ValidatedSpec | None:
    before = len(ctx.diagnostics)
    provider = canon_text(spec.provider, canonical_provider_key)
    key = canon_text(spec.endpoint, canonical_endpoint_key)
    owner = provider or row_provider
    where: dict[str, Any] = {"endpoint": key or None, "module": module}

    if not provider:
        ctx.add(diagnostic("empty_key", owner, "provider name is empty", key="provider", **where))
    elif "/" in provider:
        ctx.add(_slash_in_provider_key("provider", provider, owner, where))
    elif row_provider and provider != row_provider:
        ctx.add(
            diagnostic(
                "provider_mismatch",
                owner,
                f"module {module} is installed as provider {row_provider!r} but declares a "
                f"spec for {provider!r}",
                key=provider,
                **where,
            )
        )
    if not key:
        ctx.add(diagnostic("empty_key", owner, "endpoint name is empty", key="endpoint", **where))

    provider_aliases = _aliases(
        ctx,
        spec.provider_aliases,
        "provider_aliases",
        owner,
        provider,
        canonical_provider_key,
        "duplicate_provider_key",
        where,
    )
    raw_endpoint_aliases = _aliases(
        ctx,
        spec.endpoint_aliases,
        "endpoint_aliases",
        owner,
        key,
        canonical_endpoint_key,
        "duplicate_endpoint_key",
        where,
    )

    if not isinstance(spec.endpoint_type, EndpointType):
        ctx.add(
            diagnostic(
                "invalid_endpoint_config",
                owner,
                f"endpoint_type must be an EndpointType, got {type(spec.endpoint_type).__name__}",
                key="endpoint_type",
                **where,
            )
        )
    else:
        _check_class(ctx, spec, owner, where)
        _check_program(ctx, spec, owner, where)
    _check_timeout(ctx, spec.timeout, owner, where)

    request_model = _resolve_request_options(ctx, spec, owner, where)
    if request_model is None and isinstance(spec.endpoint_class, type):
        request_type = getattr(spec.endpoint_class, "request_type", None)
        if isinstance(request_type, type) and issubclass(request_type, BaseModel):
            request_model = request_type

    for bad_key, problem in request_default_problems(spec.request_defaults, request_model):
        ctx.add(
            diagnostic(
                "invalid_request_default",
                owner,
                f"request_defaults{'.' + bad_key if bad_key else ''} {problem}",
                key=bad_key,
                **where,
            )
        )

    if len(ctx.diagnostics) != before:
        return None
    endpoint = spec.endpoint.strip()
    meta = CatalogEndpointMeta(
        provider=provider,
        endpoint=endpoint,
        endpoint_type=spec.endpoint_type,
        aliases=tuple(a.strip() for a in raw_endpoint_aliases),
        provider_aliases=tuple(sorted(canonical_provider_key(a) for a in provider_aliases)),
        options=request_model,
        base_url=spec.base_url,
        auth_type=spec.auth_type,
        content_type=spec.content_type,
        api_key_env=spec.api_key_env,
        request_defaults=copy_defaults(spec.request_defaults),
        timeout=None if spec.timeout is None else float(spec.timeout),
    )
    try:
        meta.check_config()  # dry run: a bad auth_type or base_url fails the build, not a call
    except Exception as exc:
        field = exc.field if isinstance(exc, EndpointConfigurationError) else None
        ctx.add(
            diagnostic(
                "invalid_endpoint_config",
                owner,
                f"endpoint configuration is invalid: {describe_exception(exc)}",
                key=field,
                cause_type=None if field else type(exc).__name__,
                **where,
            )
        )
        return None
    return ValidatedSpec(
        spec=spec,
        module=module,
        provider=provider,
        provider_aliases=meta.provider_aliases,
        key=key,
        endpoint=endpoint,
        endpoint_aliases=meta.aliases,
        request_model=request_model,
        meta=meta,
    )


def _slash_in_provider_key(
    field: str, key: str, owner: str, where: dict[str, Any]
) -> ProviderDiagnostic:
    """A provider key with '/' could never be named: ``a/b/m`` parses as provider ``a``."""
    return diagnostic(
        "invalid_endpoint_config",
        owner,
        f"{field} {key!r} contains '/', which separates provider from model in a model string "
        "('provider/model'), so no model string could name it; remove the '/'",
        key=field,
        **where,
    )


def _aliases(
    ctx: _Ctx,
    aliases: object,
    field: str,
    owner: str,
    name: str,
    canon: Callable[[str], str],
    duplicate_code: CatalogDiagnosticCode,
    where: dict[str, Any],
) -> tuple[str, ...]:
    """Check one alias tuple; return the declared spellings that survive."""
    if not isinstance(aliases, tuple | list):
        ctx.add(
            diagnostic(
                "invalid_endpoint_config",
                owner,
                f"{field} must be a tuple of strings, got {type(aliases).__name__}",
                key=field,
                **where,
            )
        )
        return ()
    seen: set[str] = set()
    kept: list[str] = []
    for alias in aliases:
        key = canon_text(alias, canon)
        if not key:
            ctx.add(
                diagnostic(
                    "empty_key", owner, f"{field} contains an empty alias", key=field, **where
                )
            )
        elif field == "provider_aliases" and "/" in key:
            ctx.add(_slash_in_provider_key(field, key, owner, where))
        elif name and key == name:
            ctx.add(
                diagnostic(
                    "self_alias",
                    owner,
                    f"{field} repeats the canonical name {name!r} as an alias; remove it",
                    key=key,
                    **where,
                )
            )
        elif key in seen:
            ctx.add(
                diagnostic(
                    duplicate_code,
                    owner,
                    f"{field} declares {key!r} twice (after canonicalization)",
                    key=key,
                    **where,
                )
            )
        else:
            seen.add(key)
            kept.append(str(alias))
    return tuple(kept)


def _check_class(ctx: _Ctx, spec: ProviderEndpointSpec, owner: str, where: dict[str, Any]) -> None:
    cls = spec.endpoint_class
    problem: str | None = None
    if isinstance(cls, str):
        # A deferred row: the class is checked when the provider is first used (.deferred).
        problem = ref_problem(cls, "endpoint_class", "an Endpoint subclass")
    elif not isinstance(cls, type) or not issubclass(cls, Endpoint):
        problem = f"endpoint_class {cls!r} is not an Endpoint subclass"
    elif spec.endpoint_type is EndpointType.API and is_agentic_class(cls):
        problem = f"API spec names agentic class {cls.__qualname__}; declare it AGENTIC"
    elif spec.endpoint_type is EndpointType.AGENTIC:
        problem = _agentic_problem(cls)
    if problem is not None:
        ctx.add(diagnostic("invalid_endpoint_class", owner, problem, key="endpoint_class", **where))


def _check_program(
    ctx: _Ctx, spec: ProviderEndpointSpec, owner: str, where: dict[str, Any]
) -> None:
    """The row's declared program: well formed, agentic only, and what an imported class says."""
    program = spec.program
    if program is None:
        return
    problem = _program_problem(program, spec.endpoint_type)
    if problem is not None:
        ctx.add(diagnostic("invalid_endpoint_config", owner, problem, key="program", **where))
        return
    cls = spec.endpoint_class
    if is_agentic_class(cls):
        mismatch = _program_mismatch(cls, program)
        if mismatch is not None:
            ctx.add(diagnostic("invalid_endpoint_class", owner, mismatch, key="program", **where))


def _check_timeout(ctx: _Ctx, timeout: object, owner: str, where: dict[str, Any]) -> None:
    """The row's own local cap: None, or what ``EndpointConfig`` accepts as ``timeout``.

    Checked here rather than left to the config dry run: the dry run only runs for a row with
    no other problem, and a row's bad cap is reported with the rest. The rule is the config's
    own (:func:`positive_timeout`: a finite number above 0, never a bool).
    """
    if timeout is None:
        return
    try:
        positive_timeout(timeout)
    except ValueError as exc:
        problem = f"timeout must be a number of seconds or None, got {timeout!r}: {exc}"
        ctx.add(diagnostic("invalid_endpoint_config", owner, problem, key="timeout", **where))


def _program_problem(program: object, endpoint_type: EndpointType) -> str | None:
    if not isinstance(program, AgenticProgram):
        return f"program must be an AgenticProgram, got {type(program).__name__}"
    if endpoint_type is not EndpointType.AGENTIC:
        return "program is declared by agentic rows only (an API endpoint runs no program)"
    if program.binary is not None and (not isinstance(program.binary, str) or not program.binary):
        return "program.binary must be a non-empty string or None"
    if not isinstance(program.modules, tuple) or not all(
        isinstance(m, str) and m for m in program.modules
    ):
        return "program.modules must be a tuple of non-empty module names"
    for name in ("tested_version", "install_hint", "auth_hint"):
        if not isinstance(getattr(program, name), str | None):
            return f"program.{name} must be a string or None"
    return None


_PROGRAM_ATTRIBUTES = (
    ("binary", "cli_binary"),
    ("modules", "required_modules"),
    ("tested_version", "tested_version"),
    ("install_hint", "install_hint"),
    ("auth_hint", "auth_hint"),
)
"""Each :class:`AgenticProgram` field and the adapter class attribute it must equal."""


def _program_mismatch(cls: type[AgenticEndpoint], program: AgenticProgram) -> str | None:
    for field, attribute in _PROGRAM_ATTRIBUTES:
        declared, stated = getattr(cls, attribute), getattr(program, field)
        if declared != stated:
            return (
                f"{cls.__qualname__}.{attribute} is {declared!r} but the row's "
                f"program.{field} is {stated!r}; declare both from one value"
            )
    caps = cls.capabilities
    if program.binary and caps is not None and caps.transport != "subprocess":
        return (
            f"program.binary names a CLI program but {cls.__qualname__} is not a subprocess adapter"
        )
    return None


def _agentic_problem(cls: type[Endpoint]) -> str | None:
    # Deferred: a catalog whose agentic rows are all declared by reference never needs it.
    from .._transport.agentic.records import AgenticCapabilities

    name = cls.__qualname__
    if not is_agentic_class(cls):
        return f"agentic spec names {name}, which is not an AgenticEndpoint subclass"
    caps = cls.capabilities
    if not isinstance(caps, AgenticCapabilities):
        return f"{name} declares no AgenticCapabilities instance in `capabilities`"
    problem = _capabilities_problem(name, caps)
    if problem is not None:
        return problem
    if not caps.resumable:
        return None
    field = cls.resume_field
    if not isinstance(field, str) or not field:
        return f"{name} is resumable but declares no resume_field"
    request_type = cls.request_type
    if not (isinstance(request_type, type) and issubclass(request_type, BaseModel)):
        return f"{name} is resumable but declares no request_type to hold {field!r}"
    if field not in request_type.model_fields:
        return f"{name}.resume_field {field!r} is not a field of {request_type.__qualname__}"
    return None


def _capabilities_problem(name: str, caps: AgenticCapabilities) -> str | None:
    """The record's values are the ADR-0030 D1 vocabulary: a known transport, real booleans.

    The dataclass checks nothing at runtime, and the facade reads the flags by truthiness, so
    ``resumable="no"`` would have made iModel inject a stored session into a provider that
    declared it cannot resume, and an unknown transport would pass for a non-CLI adapter.
    """
    from .._transport.agentic.records import AgenticTransport

    transports = get_args(AgenticTransport)
    if caps.transport not in transports:
        return (
            f"{name}.capabilities.transport is {caps.transport!r}, not one of "
            f"{', '.join(map(repr, transports))}"
        )
    for flag in ("resumable", "emits_tool_events", "reports_usage"):
        value = getattr(caps, flag)
        if not isinstance(value, bool):
            return f"{name}.capabilities.{flag} must be True or False, got {value!r:.40}"
    return None


def _resolve_request_options(
    ctx: _Ctx, spec: ProviderEndpointSpec, owner: str, where: dict[str, Any]
) -> type[BaseModel] | None:
    value = spec.request_options
    if value is None:
        return None
    if isinstance(value, str):
        problem = ref_problem(value, "request_options", "a BaseModel subclass or a factory")
        if problem is not None:
            ctx.add(
                diagnostic(
                    "invalid_request_options", owner, problem, key="request_options", **where
                )
            )
        return None  # deferred: default keys are checked against the model on first use
    if isinstance(value, type):
        if issubclass(value, BaseModel):
            return value
        ctx.add(
            diagnostic(
                "invalid_request_options",
                owner,
                f"request_options {value.__qualname__} is not a pydantic BaseModel subclass",
                key="request_options",
                **where,
            )
        )
        return None
    if not callable(value):
        ctx.add(
            diagnostic(
                "invalid_request_options",
                owner,
                f"request_options must be a BaseModel subclass or a factory, "
                f"got {type(value).__name__}",
                key="request_options",
                **where,
            )
        )
        return None
    cached = ctx.factory_results.get(id(value))
    if cached is None:
        outcome: type[BaseModel] | BaseException
        try:
            result = value()
        except Exception as exc:
            outcome = exc
        else:
            outcome = (
                result
                if isinstance(result, type) and issubclass(result, BaseModel)
                else TypeError(f"factory returned {result!r:.80}, not a BaseModel subclass")
            )
        cached = (value, outcome)  # holding `value` keeps its id() unique for this build
        ctx.factory_results[id(value)] = cached
    outcome = cached[1]
    if isinstance(outcome, BaseException):
        ctx.add(
            diagnostic(
                "invalid_request_options",
                owner,
                f"request_options factory failed: {describe_exception(outcome)}",
                key="request_options",
                cause_type=type(outcome).__name__,
                **where,
            )
        )
        return None
    return outcome

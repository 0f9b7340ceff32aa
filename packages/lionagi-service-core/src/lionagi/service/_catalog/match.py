"""Endpoint resolution: the fail-closed state machine of ADR-0028 D4.

::

    canonicalize provider
      ├─ installed but unavailable ─────────────────> ProviderUnavailable (never masked)
      ├─ unknown ──────────── openai_compatible? ──> marked generic endpoint | EndpointNotFound
      └─ known
           ├─ endpoint key or alias matches ───────> registered class (wins even when compatible)
           ├─ endpoint empty, exactly one endpoint ─> that endpoint
           └─ miss ─────────── openai_compatible? ──> marked generic endpoint | EndpointNotFound

Without ``openai_compatible``, an unknown spelling is still answered with ``ProviderUnavailable``
when it is the distribution spelling (``lionagi-provider-<spelling>``) of exactly one installed
key that failed to import; any other unknown-provider error lists the unavailable providers and
their import errors, since a failed module's aliases cannot be known (:mod:`.unavailable_hint`).
The compatible path needs a non-empty ``base_url``. Every endpoint instance gets freshly copied
payload defaults; an unknown config override or request default is an
:class:`EndpointConfigurationError` naming it, raised before the endpoint is constructed. A
provider or endpoint string that looks like a credential (an API key in the wrong positional
slot) is never echoed in :class:`EndpointNotFound`, nor kept on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from .._base.errors import EndpointConfigurationError, EndpointNotFound, ProviderUnavailable
from .._base.pydantic_plugins import answer_from_scan
from .._base.secrets import REDACTED
from .._base.suggest import closest
from .._transport.agentic import is_agentic_class
from .._transport.config import EndpointConfig, handed_over
from .._transport.http.endpoint import Endpoint
from .._transport.http.openai_dialect import OpenAIChatEndpoint
from .defaults import copy_defaults, request_default_problems
from .diagnose import CREDENTIAL_INPUT, looks_like_credential
from .keys import canonical_endpoint_key, canonical_provider_key
from .model_parse import check_flag
from .snapshot import CatalogEndpoint, CatalogSnapshot

if TYPE_CHECKING:
    # Annotations only: building the settings model is an agentic cost an HTTP-only
    # program's first call should not pay (issue 15, cold start).
    from .._transport.agentic.settings import AgenticSettings

__all__ = [
    "COMPATIBLE_ENDPOINT_NAME",
    "COMPATIBLE_ENDPOINT_PATH",
    "compatible_config",
    "match_in",
    "resolve",
]

COMPATIBLE_ENDPOINT_NAME = "openai_compatible_chat"
COMPATIBLE_ENDPOINT_PATH = "chat/completions"
_FIXED_COMPATIBLE_FIELDS = ("name", "openai_compatible")


def resolve(
    snapshot: CatalogSnapshot, provider: str, endpoint: str, *, openai_compatible: bool = False
) -> CatalogEndpoint | str:
    """Return the registered endpoint, or the canonical provider for a compatible endpoint.

    Raises:
        ProviderUnavailable: the provider is installed but its module (or, for a deferred row,
            the module its references name) failed to load; also when ``provider`` is unknown
            but its ``lionagi-provider-<provider>`` distribution declares exactly one such key.
        CatalogValidationError: a deferred row's class or request model is invalid.
        EndpointNotFound: nothing matches and compatible fallback was not requested.
        EndpointConfigurationError: ``provider`` or ``endpoint`` is not a usable string.
    """
    if not isinstance(provider, str) or not canonical_provider_key(provider):
        raise EndpointConfigurationError("provider", "must be a non-empty string")
    # Only a bool authorizes the fallback: read by truth value, openai_compatible="false" (a
    # flag from a config file) selected the generic endpoint, as EndpointConfig refuses.
    check_flag("openai_compatible", openai_compatible)
    if not isinstance(endpoint, str):
        raise EndpointConfigurationError("endpoint", "must be a string ('' selects the only one)")
    p = canonical_provider_key(provider)
    e = canonical_endpoint_key(endpoint)
    diag = snapshot.unavailable.get(p)
    if diag is not None:
        raise ProviderUnavailable(p, diag)
    canonical = snapshot.provider_index.get(p)
    if canonical is None:
        if openai_compatible:
            return p
        keys = snapshot.provider_keys
        # A credential written in a selection slot is never echoed (nor kept on the exception).
        shown_e = REDACTED if looks_like_credential(endpoint) else e
        if looks_like_credential(provider):
            raise EndpointNotFound(
                REDACTED, shown_e, keys, reason=f"the provider {CREDENTIAL_INPUT}"
            )
        raise EndpointNotFound(
            p,
            shown_e,
            keys,
            suggestion=_suggest(p, [*snapshot.provider_index, *snapshot.unavailable]),
            reason=_unknown_provider(snapshot, p),
        )
    # Chosen from what the build read without imports; then only that endpoint's classes are
    # imported (once), not the provider's other endpoints'.
    entry = snapshot.providers[canonical]
    key = entry.endpoint_index.get(e)
    if key is None and not e and len(entry.endpoint_keys) == 1:
        key = entry.endpoint_keys[0]
    if key is None and not e and entry.policy is not None:
        key = entry.policy.default_endpoint
    if key is not None:
        return snapshot.endpoint(canonical, key)
    if openai_compatible:
        return canonical
    hidden_e = looks_like_credential(endpoint)
    shown_e = REDACTED if hidden_e else e
    if not e:
        reason = f"provider {canonical!r} has {len(entry.endpoint_keys)} endpoints; name one"
    elif hidden_e:
        reason = f"provider {canonical!r}: the endpoint {CREDENTIAL_INPUT}"
    else:
        reason = f"provider {canonical!r} has no endpoint {e!r}"
    raise EndpointNotFound(
        canonical,
        shown_e,
        entry.endpoint_keys,
        suggestion=_suggest(e, entry.endpoint_index) if e and not hidden_e else None,
        reason=reason,
    )


def match_in(
    snapshot: CatalogSnapshot,
    provider: str,
    endpoint: str,
    *,
    openai_compatible: bool = False,
    request_defaults: Mapping[str, Any] | None = None,
    compatible_class: type[Endpoint] = OpenAIChatEndpoint,
    agentic_settings: AgenticSettings | Mapping[str, Any] | None = None,
    **config_overrides: Any,
) -> Endpoint:
    """Resolve in ``snapshot`` and construct the endpoint instance.

    ``agentic_settings`` reaches the constructor of an agentic endpoint (which validates it
    against its transport); for an HTTP endpoint it is an error naming ``agentic_settings``.
    """
    target = resolve(snapshot, provider, endpoint, openai_compatible=openai_compatible)
    if isinstance(target, str):
        _refuse_settings(agentic_settings, compatible_class)
        config = compatible_config(target, endpoint, request_defaults, config_overrides)
        with handed_over(config):
            return compatible_class(config=config)
    endpoint_class = target.resolved_class
    _refuse_settings(agentic_settings, endpoint_class)
    model = config_overrides.get("request_options", target.request_options)
    _check_defaults(request_defaults, model)
    # create_config deep-copies both the snapshot's and the caller's defaults. An agent's class
    # words the config's refusals for an agent (a key it would not send).
    building = endpoint_class.building_config() if is_agentic_class(endpoint_class) else None
    with building or nullcontext():
        config = target.meta.create_config(request_defaults=request_defaults, **config_overrides)
    with handed_over(config):
        if agentic_settings is not None:
            cls: Any = endpoint_class
            endpoint_instance: Endpoint = cls(config=config, settings=agentic_settings)
            return endpoint_instance
        return endpoint_class(config=config)


def _refuse_settings(settings: object, cls: type[Endpoint]) -> None:
    if settings is not None and not is_agentic_class(cls):
        raise EndpointConfigurationError(
            "agentic_settings",
            f"{cls.__name__} is an HTTP endpoint; agentic settings apply to agentic endpoints "
            "(use base_url and api_key for HTTP)",
        )


def compatible_config(
    provider: str,
    endpoint: str,
    request_defaults: Mapping[str, Any] | None,
    overrides: Mapping[str, Any],
) -> EndpointConfig:
    """The explicitly marked OpenAI-compatible config of ADR-0028 D4."""
    answer_from_scan()  # before the first validator: pydantic's plugin lookup, pre-answered
    # Imported here: only an OpenAI-compatible match needs core's request model (cold start).
    from .openai_request import OpenAIChatCompletionsRequest

    data = dict(overrides)
    base_url = data.pop("base_url", None)
    if not isinstance(base_url, str) or not base_url.strip():
        raise EndpointConfigurationError(
            "base_url",
            "is required for an OpenAI-compatible endpoint; pass base_url='https://host/v1'",
        )
    for name in _FIXED_COMPATIBLE_FIELDS:
        if name in data:
            raise EndpointConfigurationError(name, "is fixed for an OpenAI-compatible endpoint")
    # An explicit request_options=None makes a deliberately schema-less compatible endpoint.
    model = data.get("request_options", OpenAIChatCompletionsRequest)
    _check_defaults(request_defaults, model)
    config: dict[str, Any] = {
        "name": COMPATIBLE_ENDPOINT_NAME,
        "provider": provider,
        "base_url": base_url,
        "endpoint": endpoint.strip() or COMPATIBLE_ENDPOINT_PATH,
        "method": "POST",
        "auth_type": "bearer",
        "content_type": "application/json",
        "request_options": OpenAIChatCompletionsRequest,
        "openai_compatible": True,
        "requires_tokens": True,
        "request_defaults": copy_defaults(request_defaults or {}),
    }
    config.update(data)
    return EndpointConfig(**config)


def _check_defaults(defaults: Mapping[str, Any] | None, model: object) -> None:
    if defaults is None:
        return
    request_model = model if isinstance(model, type) and issubclass(model, BaseModel) else None
    problems = request_default_problems(defaults, request_model)
    if problems:
        key, problem = problems[0]
        field = f"request_defaults.{key}" if key else "request_defaults"
        raise EndpointConfigurationError(field, problem)


def _unknown_provider(snapshot: CatalogSnapshot, provider: str) -> str:
    """Why ``provider`` is unknown, naming a ``lionagi-provider-<key>`` the catalog cannot see.

    Raises:
        ProviderUnavailable: ``provider`` is the distribution spelling of exactly one key that is
            installed but failed to import (``claude-code`` for ``claude_code``): its aliases
            live in the module that failed, so the import error is the answer, not "unknown".
    """
    # Error path only, like the rest of this lookup.
    from .unavailable_hint import unavailable_note, unavailable_owner

    owner = unavailable_owner(snapshot, provider)
    if owner is not None:
        raise owner
    note = unavailable_note(snapshot)
    hidden = _undeclared_distribution(provider)
    if hidden is not None:
        return f"unknown provider {provider!r}: {hidden}{note}"
    return (
        f"unknown provider {provider!r} (install its lionagi-provider-* distribution, or pass "
        f"openai_compatible=True with base_url for a custom OpenAI-compatible service){note}"
    )


def _undeclared_distribution(provider: str) -> str | None:
    """An installed ``lionagi-provider-<provider>`` that declares no entry point for it, or None.

    Error path only (one metadata lookup by name). Only that exact distribution name is tried:
    it is what the layout the guide prescribes produces, and a guess must not blame a package
    that merely looks similar.
    """
    from .discovery import ENTRY_POINT_GROUP
    from .unavailable_hint import declared_keys

    found = declared_keys(provider)
    if found is None:
        return None
    name, declared = found
    if any(canonical_provider_key(key) == provider for key in declared):
        return None  # declared, yet absent from this catalog: not this mistake
    module = f"lionagi.providers.{provider.replace('-', '_').replace('.', '_')}"
    if declared:
        return (
            f"the installed distribution {name!r} declares the {ENTRY_POINT_GROUP!r} entry "
            f"point(s) {', '.join(repr(key) for key in declared)}, not {provider!r}; use that "
            f"key, or rename the entry point in its pyproject.toml and reinstall it"
        )
    return (
        f"the installed distribution {name!r} declares no {ENTRY_POINT_GROUP!r} entry point, "
        "so the catalog does not see it; add one to its pyproject.toml "
        f'([project.entry-points."{ENTRY_POINT_GROUP}"] {provider} = "{module}", the module '
        "defining PROVIDER_SPECS) and reinstall it (an editable install too)"
    )


def _suggest(requested: str, candidates: Iterable[str]) -> str | None:
    return closest(requested, set(candidates))

"""Model-spec parsing against a snapshot's provider policies (ADR-0028 D5).

Grammar: ``<alias>[-<effort>]`` or ``<provider>/<model>[-<effort>]``. The effort suffix is one of
:data:`EFFORT_LEVELS`, case-insensitive, and is never split off when the model part contains ``/``
(``openrouter/meta-llama/llama-3-max`` keeps its name). Only providers that publish a
:class:`ProviderModelPolicy` with an effort mode other than ``passthrough`` interpret a suffix;
for any other provider the string passes through unchanged. There is no implicit default
provider: a bare name that is not a model alias is a typed error naming ``model`` (listing the
installed providers that failed to import, whose aliases cannot be known). Surrounding
whitespace is dropped around the spec and around each side of its first ``/``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from .._base.errors import EndpointConfigurationError, ProviderUnavailable
from .._transport.config import check_flag
from .defaults import request_fields
from .diagnose import CREDENTIAL_INPUT, looks_like_credential
from .keys import canonical_provider_key
from .policy import EFFORT_LEVELS, ModelSpec, ProviderModelPolicy
from .snapshot import CatalogSnapshot

__all__ = [
    "apply_policy",
    "check_flag",
    "mode_kwargs",
    "parse_in",
    "provider_takes_model",
    "split_effort",
]

_EFFORT_SUFFIX = re.compile(
    r"^(?P<base>.+)-(?P<level>" + "|".join(sorted(EFFORT_LEVELS, key=len, reverse=True)) + r")$",
    re.IGNORECASE,
)
_LIST_LIMIT = 20


def split_effort(model_part: str) -> tuple[str, str | None]:
    """Split ``name-<level>`` into ``(name, level)``; a part containing ``/`` is never split.

    Whitespace before the suffix is dropped with it (``sonnet -high`` is ``sonnet``), as it is
    around each part of the spec and before a suffix written after a model alias
    (``claude -high``): kept, the name ``'sonnet '`` was sent, a model no provider has.
    """
    if "/" in model_part:
        return model_part, None
    match = _EFFORT_SUFFIX.match(model_part)
    if match is None:
        return model_part, None
    return match.group("base").rstrip(), match.group("level")


def parse_in(
    snapshot: CatalogSnapshot,
    spec: str,
    *,
    yolo: bool = False,
    bypass: bool = False,
    fast: bool = False,
) -> ModelSpec:
    """Parse ``spec`` with ``snapshot``'s aliases and policies; errors name ``model``.

    A ``spec`` that looks like a credential is never echoed: its error says so instead.
    """
    try:
        return _parse(snapshot, spec, yolo=yolo, bypass=bypass, fast=fast)
    except EndpointConfigurationError as exc:
        if exc.field == "model" and looks_like_credential(spec):
            raise EndpointConfigurationError("model", f"the value {CREDENTIAL_INPUT}") from None
        raise


def _parse(
    snapshot: CatalogSnapshot,
    spec: str,
    *,
    yolo: bool,
    bypass: bool,
    fast: bool,
) -> ModelSpec:
    if not isinstance(spec, str) or not spec.strip():
        raise EndpointConfigurationError("model", "must be a non-empty string")
    text = spec.strip()
    forced: str | None = None
    alias = snapshot.model_aliases.get(canonical_provider_key(text))
    if alias is None and "/" not in text:
        base, level = split_effort(text)
        if level is not None:
            alias = snapshot.model_aliases.get(canonical_provider_key(base))
            forced = level
        if alias is None:
            raise _no_provider(snapshot, text)
    if alias is not None:
        text = alias.target
    prefix, _, model_part = text.partition("/")
    # Surrounding whitespace of either part is dropped, as it is around the whole spec, the
    # provider prefix (a canonical key) and a model alias: ' openai / gpt-4.1 ' sent the model
    # ' gpt-4.1', a name no provider has. Inner spelling and case are the caller's.
    prefix, model_part = prefix.strip(), model_part.strip()
    provider_key = canonical_provider_key(prefix)
    if not provider_key:
        raise EndpointConfigurationError(
            "model", f"{spec!r} has an empty provider prefix; write '<provider>/<model>'"
        )
    if not model_part:
        raise EndpointConfigurationError(
            "model", f"{spec!r} names provider {prefix!r} but no model; write '{prefix}/<model>'"
        )
    if any(not segment.strip() for segment in model_part.split("/")):
        # 'openai//gpt-4o' or 'openrouter/meta-llama/': no provider names a model with an empty
        # path segment, and sending it on would only come back as the provider's 404.
        raise EndpointConfigurationError(
            "model", f"{spec!r} has an empty segment in its model name; remove the extra '/'"
        )
    provider = snapshot.provider_index.get(provider_key, provider_key)
    catalog_provider = snapshot.providers.get(provider)
    policy = catalog_provider.policy if catalog_provider is not None else None
    parsed = apply_policy(policy, provider, prefix, model_part, forced_level=forced, spec=spec)
    extra = mode_kwargs(policy, provider, yolo=yolo, bypass=bypass, fast=fast)
    if not extra:
        return parsed
    kwargs = dict(parsed.kwargs)
    for key, value in extra.items():
        if key in kwargs and kwargs[key] != value:
            raise EndpointConfigurationError(key, "requested modes set conflicting values")
        kwargs[key] = value
    return ModelSpec(
        model=parsed.model,
        effort=parsed.effort,
        provider=parsed.provider,
        kwargs=MappingProxyType(kwargs),
    )


def apply_policy(
    policy: ProviderModelPolicy | None,
    provider: str,
    prefix: str,
    model_part: str,
    *,
    forced_level: str | None = None,
    spec: str | None = None,
) -> ModelSpec:
    """Classify the effort of ``prefix/model_part`` under ``policy``.

    ``forced_level`` carries a suffix that was written after a model alias (``claude-high``).
    """
    shown = spec if spec is not None else f"{prefix}/{model_part}"
    level: str | None
    if forced_level is not None:
        base, level = model_part, forced_level
    else:
        base, level = split_effort(model_part)
    if level is None or policy is None:
        return ModelSpec(model=f"{prefix}/{model_part}", effort=None, provider=provider)
    effort = level.casefold()
    if forced_level is None and (
        policy.effort_mode == "passthrough" or effort in policy.model_name_words
    ):
        return ModelSpec(model=f"{prefix}/{model_part}", effort=None, provider=provider)
    if policy.effort_mode in ("none", "passthrough"):
        raise EndpointConfigurationError(
            "model",
            f"provider {provider!r} does not support effort levels; "
            f"remove '-{level}' from {shown!r}",
        )
    if effort not in policy.effort_levels:
        raise EndpointConfigurationError(
            "model",
            f"provider {provider!r} does not accept effort {effort!r}; "
            f"accepted: {', '.join(policy.effort_levels)}",
        )
    if policy.effort_mode == "model_name":
        name = model_part if forced_level is None else f"{model_part}-{level}"
        return ModelSpec(model=f"{prefix}/{name}", effort=effort, provider=provider)
    kwarg = policy.effort_kwarg or ""
    return ModelSpec(
        model=f"{prefix}/{base}",
        effort=effort,
        provider=provider,
        kwargs=MappingProxyType({kwarg: effort}),
    )


def mode_kwargs(
    policy: ProviderModelPolicy | None,
    provider: str,
    *,
    yolo: bool = False,
    bypass: bool = False,
    fast: bool = False,
) -> Mapping[str, Any]:
    """The kwargs the requested modes add; a mode the provider lacks is an error, not a no-op.

    Each flag takes only ``True`` or ``False``: a mode is a permission, and read by truth value
    ``yolo="false"`` (a flag taken from a config file or an environment variable) started Claude
    Code with ``bypassPermissions``, the lax reading the request models refuse for the same flags.
    """
    out: dict[str, Any] = {}
    for flag, name in ((yolo, "yolo"), (bypass, "bypass"), (fast, "fast")):
        check_flag(name, flag)
        if not flag:
            continue
        table: Mapping[str, Any] = getattr(policy, f"{name}_kwargs", None) or {}
        if not table:
            raise EndpointConfigurationError(
                name, f"provider {provider!r} has no {name} mode; drop {name}=True"
            )
        for key, value in table.items():
            if key in out and out[key] != value:
                raise EndpointConfigurationError(key, "requested modes set conflicting values")
            out[key] = copy.deepcopy(value)
    return out


def _no_provider(
    snapshot: CatalogSnapshot, text: str
) -> EndpointConfigurationError | ProviderUnavailable:
    key = canonical_provider_key(text)
    provider = snapshot.provider_index.get(key)
    if provider is None and snapshot.unavailable:
        # Installed but broken: a model name would only meet this same error (ADR-0028 D4).
        # A failed module's aliases are unknown, but its distribution's name may still say
        # which key this spelling meant (.unavailable_hint; error path only).
        from .unavailable_hint import unavailable_error

        broken = unavailable_error(snapshot, key)
        if broken is not None:
            return broken
    if provider is not None and not provider_takes_model(snapshot, provider):
        # A provider whose requests take no model: writing one would only meet the next error.
        endpoints = ", ".join(snapshot.providers[provider].endpoint_keys)
        return EndpointConfigurationError(
            "model",
            f"{text!r} is a provider whose requests take no model name; write "
            f"iModel(provider={provider!r}, endpoint=...) (endpoints: {endpoints})",
        )
    if provider is not None:
        # The text *is* a provider: what is missing is the model, so say that rather than
        # claiming an installed provider does not exist.
        return EndpointConfigurationError(
            "model",
            f"{text!r} is a provider but names no model; write '{text}/<model>' "
            f"(`lionagi-service models {provider}` lists its aliases and effort levels)",
        )
    providers = _bounded_list(snapshot.provider_keys)
    aliases = _bounded_list(sorted(snapshot.model_aliases))
    hint = f"write '<provider>/{text}' (providers: {providers})"
    if aliases:
        hint += f" or use a model alias ({aliases})"
    if snapshot.unavailable:
        # The alias may belong to a provider whose module (where its aliases live) failed.
        from .unavailable_hint import unavailable_note

        hint += unavailable_note(snapshot)
    return EndpointConfigurationError(
        "model", f"{text!r} names no provider and is not a model alias; {hint}"
    )


def _bounded_list(items: tuple[str, ...] | list[str]) -> str:
    shown = ", ".join(items[:_LIST_LIMIT])
    if len(items) > _LIST_LIMIT:
        shown += f", ... ({len(items) - _LIST_LIMIT} more)"
    return shown or "none installed"


def provider_takes_model(snapshot: CatalogSnapshot, provider: str) -> bool:
    """False when no endpoint's request model of ``provider`` (canonical) has a ``model`` field.

    Such a provider (a search API, in-process agents) is written ``iModel(provider=...,
    endpoint=...)``; ``provider/<model>`` would put a name in a field its requests do not have.
    An endpoint whose request model is not declared counts as taking one (nothing is claimed
    that was not read). Reading the request models imports the provider's classes: callers are
    error paths and the ``models`` command, which name the provider anyway.
    """
    for entry in snapshot.provider(provider).endpoints.values():
        options = entry.request_options
        if options is None or "model" in request_fields(options):
            return True
    return False

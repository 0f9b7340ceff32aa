"""The constructor's arguments checked and completed, each refusal naming the argument.

``iModel(...)`` takes its id, hooks, admission limits and policies in several forms (a UUID or
its string, a registry or a mapping, a config plus keyword overrides); these turn each into the
one form the facade keeps, or raise a typed error that names what the caller wrote.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from uuid import UUID, uuid4

from .._base.errors import (
    AdmissionConfigError,
    AgenticRequestValidationError,
    EndpointConfigurationError,
)
from .._base.suggest import closest
from .agentic_view import as_agentic

if TYPE_CHECKING:
    from .._base.hooks import HookRegistry
    from .._lifecycle.config import AdmissionConfig
    from .._lifecycle.policy import AttemptPolicy
    from .._transport.http.endpoint import Endpoint

__all__ = [
    "check_config_overrides",
    "check_extra_body_default",
    "check_instance_settings",
    "check_selected_defaults",
    "check_selection_flags",
    "check_settings_applied",
    "effective_admission",
    "coerce_hooks",
    "coerce_id",
    "default_attempt_policy",
    "explicit_policy",
]

# Legacy lionagi's constructor took these (ADR-0027 D1's shipped signature); this facade does
# not, and says what to use instead rather than calling them unknown configuration fields.
_LEGACY_ARGUMENTS: Mapping[str, str] = {
    "streaming_process_func": (
        "is legacy lionagi's chunk callback and is not supported; register an on_chunk hook "
        "instead: hook_registry={'on_chunk': fn}, where fn(event, chunk) returns the chunk"
    ),
    "provider_metadata": (
        "is legacy lionagi's and is not supported; an agentic session id is "
        "iModel.provider_session_id (kept by copy(share_session=True) and to_dict())"
    ),
    "exit_hook": ("is legacy lionagi's and is not supported; a hook ends its call by raising"),
}

_ARGUMENT_CUTOFF = 0.8
"""How alike an unknown keyword and an iModel argument must be for "did you mean"."""


def check_selection_flags(flags: Mapping[str, object]) -> None:
    """Refuse a selection flag (`yolo`, `bypass`, `fast`, `openai_compatible`) that is no bool.

    For the paths that skip the catalog's own check (`parse_model_spec` checks the modes,
    `match_endpoint` the fallback flag): an `Endpoint` instance, and `provider=` without
    `model=`. Those read the flags by truth value, so `yolo="false"` was "on" (or a missing
    `model=`). The rule is the config module's, loaded already on every path: importing it from
    the catalog loaded the whole catalog package for an instance that never selects.
    """
    from .._transport.config import check_flag

    for name, value in flags.items():
        check_flag(name, value)


def check_selected_defaults(
    selected: Mapping[str, Any], request_defaults: Mapping[str, Any], modes: Mapping[str, bool]
) -> None:
    """Refuse a request default that writes a field `model=` (or a mode) already sets.

    One field written two ways: neither silently wins (a mode is never dropped). A key of
    `request_defaults["extra_body"]` counts too, whatever its value: `extra_body` may not carry
    a field the request model validates, so `{"extra_body": {"model": "gpt-5"}}` beside
    `model="openai/gpt-4o"` built a model every call of which was then refused, and a
    vendor that does take the key there would have sent the second value unnoticed.
    """
    asked = ", ".join(f"{m}=True" for m, on in modes.items() if on)
    source = f"model= with {asked}" if asked else "model="
    for key, value in request_defaults.items():
        if key in selected and selected[key] != value:
            raise EndpointConfigurationError(
                f"request_defaults.{key}",
                f"contradicts the {key!r} value that {source} sets; give it in one place",
            )
    extra = request_defaults.get("extra_body")
    if isinstance(extra, Mapping):
        taken = next((key for key in extra if key in selected), None)
        if taken is not None:
            raise EndpointConfigurationError(
                f"request_defaults.extra_body.{taken}",
                f"is set by {source} already; give it in one place, not in extra_body",
            )


def check_extra_body_default(endpoint: Endpoint) -> None:
    """Refuse a `request_defaults["extra_body"]` that every call would refuse, as it is built.

    The call refuses an `extra_body` holding a field the request model declares (it must be
    validated), one that is no mapping of names, and one on an endpoint whose request has no
    `extra_body` (an agent's); the catalog's default check exempts the key, so such a default
    built and then failed every call that gave no `extra_body` of its own. The refusal is the
    endpoint's own: its `create_payload` runs on the defaults alone (an empty request), so a
    provider that takes a declared field out of `extra_body` itself (Anthropic's
    `context_management`) keeps it, and no second copy of the rules can drift. Only a refusal
    of `extra_body` is raised, as the call's type with `request_defaults.` before its field;
    anything else (no `messages` in the defaults, no API key yet) is the call's to report, with
    the request it brings. Nothing runs for defaults without the key.
    """
    from .._transport.http.payload import (
        DECLARED_IN_EXTRA_BODY,
        EXTRA_BODY,
        STREAM_FLAG_IN_DEFAULTS,
    )

    if EXTRA_BODY not in endpoint.config.request_defaults:
        return
    try:
        endpoint.create_payload({})
    except (EndpointConfigurationError, AgenticRequestValidationError) as exc:
        refused: EndpointConfigurationError | AgenticRequestValidationError = exc
    except Exception:
        return  # an override's own failure on an empty request: the call reports it
    else:
        return
    field = refused.field
    flag = endpoint.stream_flag
    if flag is not None and field == flag:
        # An open request model merged `extra_body` into the body, where the flag was refused.
        field = f"{EXTRA_BODY}.{flag}"
    if field != EXTRA_BODY and not field.startswith(f"{EXTRA_BODY}."):
        return
    reason = str(refused).removeprefix(f"{refused.field}: ")
    key = field.removeprefix(f"{EXTRA_BODY}.")
    if key == flag:
        # `request_defaults` refuses the flag too: the call's advice, in a default's terms.
        reason = f"{STREAM_FLAG_IN_DEFAULTS} request_defaults.{EXTRA_BODY}"
    elif reason.startswith(DECLARED_IN_EXTRA_BODY) and "." not in key:
        # The call's advice ("pass it as a request field") in the terms of a default.
        model = reason.partition(":")[0]
        reason = (
            f"{model}: put {key!r} in request_defaults itself, not in extra_body, so it is "
            "validated"
        )
    kind = (
        AgenticRequestValidationError
        if isinstance(refused, AgenticRequestValidationError)
        else EndpointConfigurationError
    )
    raise kind(f"request_defaults.{field}", reason) from None


# The `EndpointConfig` fields only an HTTP request reads (its line, headers, body encoding,
# client, SSRF opt-in and response cap): a CLI or in-process agent never reads them, so a value
# other than the one an agent has when nobody sets it (`_unset`) is stored and does nothing.
_HTTP_ONLY_SETTINGS = (
    "auth_type",
    "default_headers",
    "client_kwargs",
    "method",
    "params",
    "endpoint_params",
    "content_type",
    "max_response_bytes",
    "allow_local_network",
    "serialize_by_alias",
)
# The credential settings among them, whose refusal says where an agent takes a key instead.
_CREDENTIAL_SETTINGS = frozenset({"auth_type", "default_headers", "client_kwargs"})


def _unset(field: str) -> object:
    """The value an agent's `field` has when nobody sets it (`auth_type` is "none" there).

    A setting at this value changes nothing and stays accepted: `to_dict()` writes every field
    of an agent's config, and `from_dict()` reads them all back through the check below. Every
    installed agent row leaves these fields at the `EndpointConfig` default.
    """
    if field == "auth_type":
        return "none"
    from .._transport.config import EndpointConfig  # loaded already: an endpoint was resolved

    return EndpointConfig.model_fields[field].get_default(call_default_factory=True)


def check_settings_applied(
    resolved: Endpoint, *, base_url: str | None, overrides: Mapping[str, Any]
) -> None:
    """Refuse a setting the selected endpoint would store and never apply, naming it.

    A subprocess or in-process agent has no URL and sends no HTTP request, so `base_url` and
    every setting of `_HTTP_ONLY_SETTINGS` do nothing there; an agent that runs each call
    exactly once (no `attempt_policy_options`) never reads `max_retries`; an endpoint that
    sends no credentials (`auth_type="none"`) never sends the key in the caller's
    `api_key_env` (an explicit `api_key` there is refused by `EndpointConfig`; a variable the
    row itself declares is the row's, not the caller's, and stays accepted). A setting is
    judged by the value the endpoint ended up with (`method="post"` is `"POST"`), so one at
    the value the agent has anyway is accepted. `iModel(...)` passes the caller's keywords,
    `from_dict()` every field it restores.
    """
    caps = getattr(type(resolved), "capabilities", None)
    agent = caps.transport if caps is not None and caps.transport != "remote" else None
    name = type(resolved).__name__
    if base_url is not None and agent is not None:
        raise EndpointConfigurationError(
            "base_url",
            f"{name} ({agent}) does not use a base URL; a CLI's model gateway is "
            "agentic_settings={'gateway_url': ...} (--gateway-url)",
        )
    config = resolved.config
    # A CLI or in-process agent sends no key whatever its auth_type says (one the caller wrote
    # is refused below, naming auth_type).
    sends_key = config.auth_type != "none" and agent is None
    if overrides.get("api_key_env") is not None and not sends_key:
        why = "auth_type='none'" if config.auth_type == "none" else f"{agent} transport"
        fix = _key_fix(resolved)
        raise EndpointConfigurationError(
            "api_key_env",
            f"{name} sends no credentials ({why}), so the key in this variable "
            f"would never be sent; {fix}, or leave api_key_env out",
        )
    if (
        resolved.is_agentic
        and getattr(resolved, "attempt_policy_options", None) is None
        and "max_retries" in overrides
        and config.max_retries != _unset("max_retries")
    ):
        # The rule explicit_policy applies to attempt_policy: no retries, so no retry count.
        raise EndpointConfigurationError(
            "max_retries",
            f"{name} runs each agentic call exactly once (re-running an agent repeats its "
            "side effects), so this setting would never apply; leave max_retries out",
        )
    if agent is None or not resolved.is_agentic:
        return
    for setting in _HTTP_ONLY_SETTINGS:
        if setting in overrides and getattr(config, setting) != _unset(setting):
            fix = f"{_key_fix(resolved)}, or " if setting in _CREDENTIAL_SETTINGS else ""
            raise EndpointConfigurationError(
                setting,
                f"{name} ({agent} transport) sends no HTTP request, so this setting would never "
                f"apply; {fix}leave {setting} out",
            )


def _key_fix(resolved: Endpoint) -> str:
    """Where the selected endpoint takes a key: the agent's own advice, else the HTTP one."""
    fix = getattr(type(resolved), "unsent_key_fix", None)
    advice = fix() if fix is not None else None
    if isinstance(advice, str):
        return advice
    from .._transport.config import HTTP_KEY_FIX  # loaded already: an endpoint was resolved

    return HTTP_KEY_FIX


def check_instance_settings(endpoint: Endpoint) -> None:
    """`check_settings_applied` for `iModel(endpoint=<an Endpoint instance>)`, and `copy()`.

    An instance is built by hand (or copied), so the caller's settings are its config's values,
    judged like every field `from_dict()` restores (an agent built by hand sends no credentials
    unless its config says otherwise: `AgenticEndpoint`). An `api_key_env` the class's catalog
    row declares is the row's, not the caller's, as in `iModel(model=...)`. No catalog is
    loaded for this: the row, if any, is already bound to the class.
    """
    config = endpoint.config
    settings: dict[str, Any] = {
        name: getattr(config, name) for name in (*_HTTP_ONLY_SETTINGS, "max_retries")
    }
    meta = type(endpoint)._ENDPOINT_META
    if config.api_key_env != (meta.api_key_env if meta is not None else None):
        settings["api_key_env"] = config.api_key_env
    check_settings_applied(endpoint, base_url=config.base_url, overrides=settings)


def check_config_overrides(overrides: Mapping[str, Any], constructor: Callable[..., Any]) -> None:
    """Name a keyword that is neither a config field nor an iModel argument, before selection.

    Otherwise `iModel(modle="openai/gpt-4o")` was reported as a missing `provider`, and a legacy
    argument as an unknown configuration field. A key close to one of `constructor`'s named
    parameters (read from its signature, on this error path only) gets "did you mean"; any
    other unknown key is left to the config's own check, which suggests config and request
    fields.
    """
    from .._transport.config import EndpointConfig

    for key in overrides:
        if key in _LEGACY_ARGUMENTS:
            raise EndpointConfigurationError(key, _LEGACY_ARGUMENTS[key])
        if key in EndpointConfig.model_fields:
            continue
        import inspect  # error path only

        parameters = [
            name
            for name, parameter in inspect.signature(constructor).parameters.items()
            if parameter.kind is not inspect.Parameter.VAR_KEYWORD and name != "self"
        ]
        # A high bar: any unknown key is compared with every argument, and naming the wrong
        # one would send the caller to fix a keyword they never meant.
        near = closest(key, parameters, cutoff=_ARGUMENT_CUTOFF)
        if near is not None:
            raise EndpointConfigurationError(
                key, f"is not an iModel argument (did you mean {near!r}?)"
            )


def coerce_id(value: UUID | str | None) -> UUID:
    """A new id for None, else the UUID given (or parsed from its string form)."""
    if value is None:
        return uuid4()
    if isinstance(value, UUID):
        return value
    try:
        return UUID(str(value))
    except ValueError:
        raise EndpointConfigurationError("id", "must be a UUID or its string form") from None


def coerce_hooks(value: HookRegistry | Mapping[str, Any] | None) -> HookRegistry | None:
    """The registry given, or one built from a ``{phase: hook}`` mapping."""
    if value is None:
        return None
    from .._base.hooks import HookRegistry

    if isinstance(value, HookRegistry):
        return value
    if isinstance(value, Mapping):
        try:
            return HookRegistry.from_mapping(dict(value))
        except TypeError as exc:
            raise EndpointConfigurationError("hook_registry", str(exc)) from None
    raise EndpointConfigurationError(
        "hook_registry", f"expected HookRegistry or a mapping, got {type(value).__name__}"
    )


def explicit_policy(field: str, value: Any, cls: type[Any], endpoint: Endpoint) -> Any:
    """``value`` if it is a policy ``endpoint`` applies, else a typed error naming ``field``.

    Checked here, at construction: a wrong type used to surface on every call as an untyped
    AttributeError (and in ``to_dict()`` as a TypeError), and a policy on an agentic endpoint
    that runs each call exactly once was accepted and silently never applied. A mapping is
    refused too (``cls(**mapping)`` builds the policy): the policies have no mapping form of
    their own, and ``from_dict`` reads the serialized form, not a caller's mapping.
    """
    if value is None:
        return None
    if not isinstance(value, cls):
        hint = (
            f"; build one from a mapping with {cls.__name__}(**mapping)"
            if isinstance(value, Mapping)
            else ""
        )
        article = "an" if cls.__name__[0] in "AEIOU" else "a"
        raise AdmissionConfigError(
            field, f"must be None or {article} {cls.__name__}, got {type(value).__name__}{hint}"
        )
    if endpoint.is_agentic and getattr(endpoint, "attempt_policy_options", None) is None:
        # Same rule as the supervisor: only an adapter with attempt_policy_options is retried
        # (and only then is a circuit consulted); every other agentic run is one attempt.
        raise AdmissionConfigError(
            field,
            f"{type(endpoint).__name__} runs each agentic call exactly once (no retries, no "
            "circuit: re-running an agent repeats its side effects), so this policy would "
            "never apply; leave it unset",
        )
    return value


def effective_admission(
    endpoint: Endpoint, base: AdmissionConfig | None, **fields: Any
) -> AdmissionConfig:
    """``base`` (else the endpoint family's defaults) with the limit keywords that were given."""
    from .._lifecycle.config import AdmissionConfig

    if base is not None and not isinstance(base, AdmissionConfig):
        # Refused here, naming the argument the caller wrote: the controller's own check names
        # its parameter ("config"), and dataclasses.replace() raised a bare TypeError.
        hint = (
            "; build one with AdmissionConfig(**mapping) or pass the limits as keywords "
            "(limit_requests=...)"
            if isinstance(base, Mapping)
            else ""
        )
        raise AdmissionConfigError(
            "admission", f"must be None or an AdmissionConfig, got {type(base).__name__}{hint}"
        )
    if base is None:
        agentic = as_agentic(endpoint)
        if agentic is not None:
            base = AdmissionConfig(
                queue_capacity=type(agentic).DEFAULT_QUEUE_CAPACITY,
                concurrency_limit=type(agentic).DEFAULT_CONCURRENCY_LIMIT,
            )
        else:
            base = AdmissionConfig.for_family("api")
    changes = {name: value for name, value in fields.items() if value is not None}
    return dataclasses.replace(base, **changes) if changes else base


def default_attempt_policy(endpoint: Endpoint) -> AttemptPolicy | None:
    """HTTP: ``config.max_retries`` attempts. Agentic: none unless the adapter opts in."""
    from .._lifecycle.policy import AttemptPolicy

    if not endpoint.is_agentic:
        return AttemptPolicy(max_attempts=endpoint.config.max_retries)
    options = getattr(endpoint, "attempt_policy_options", None)
    if options is None:
        return None
    return AttemptPolicy(max_attempts=endpoint.config.max_retries, **options)

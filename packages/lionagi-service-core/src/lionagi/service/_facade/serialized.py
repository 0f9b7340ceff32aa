"""An iModel's serialized form: what ``to_dict()`` writes and how ``from_dict()`` reads it back.

The form never holds a secret or a callable: keys, header credentials and secret settings are
written redacted or as names only, and reading it back insists that the caller supplies them
again rather than rebuilding a model that would fail every call, or reach another tenant. The
endpoint is resolved in today's catalog, never imported from the data.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from .._base.errors import EndpointConfigurationError
from .._base.secrets import REDACTED
from .agentic_view import as_agentic
from .arguments import check_settings_applied

if TYPE_CHECKING:
    from uuid import UUID

    from pydantic import SecretStr

    from .._base.hooks import HookRegistry
    from .._lifecycle.clock import Clock, Sleep
    from .._lifecycle.config import AdmissionConfig
    from .._lifecycle.policy import AttemptPolicy, CircuitPolicy
    from .._lifecycle.shared_config import SharedAdmission
    from .._transport.agentic.settings import AgenticSettings
    from .._transport.http.endpoint import Endpoint

__all__ = ["ApiKeyResolver", "describe", "restore"]

ApiKeyResolver = Callable[[str], str | None]

# The facade class (``iModel``), named by a type variable: this module must not import it.
_Model = TypeVar("_Model")

# Config fields a serialized iModel restores on top of the freshly resolved registration: every
# field to_dict() writes except the selection (provider, endpoint, openai_compatible), the request
# defaults and the request model, which from_dict handles itself. ``name``, ``method``,
# ``content_type`` and ``endpoint_params`` are accepted iModel overrides too; leaving them out
# rebuilt a model that sent another method or content type than the one serialized.
_RESTORED_FIELDS = (
    "name",
    "method",
    "content_type",
    "endpoint_params",
    "base_url",
    "timeout",
    "max_retries",
    "max_response_bytes",
    "allow_local_network",
    "default_headers",
    "params",
    "client_kwargs",
    "auth_type",
    "api_key_env",
    "context_window",
    "requires_tokens",
    "serialize_by_alias",
)

_ADMISSION_FIELDS = (
    "queue_capacity",
    "capacity_refresh_time",
    "interval",
    "limit_requests",
    "limit_tokens",
    "concurrency_limit",
)


# Every top-level key to_dict() writes; anything else in the data is refused, naming it.
_SERIALIZED_KEYS = frozenset(
    {
        "id",
        "created_at",
        "provider",
        "endpoint",
        "endpoint_class",
        "config",
        "admission",
        "admission_backend",
        "attempt_policy",
        "circuit_policy",
        "session_id",
        "agentic_settings",
        "hooks",
    }
)

# The keys AgenticSettings.public_dict() writes.
_PUBLIC_SETTINGS_KEYS = frozenset(
    {"binary", "gateway_url", "root", "cwd", "config_home", "env_names", "gateway_api_key_set"}
)

_AGENTIC_MODULE = "lionagi.service._transport.agentic.endpoint"


def _class_path(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def describe(
    *,
    id: UUID,
    created_at: float,
    endpoint: Endpoint,
    admission: AdmissionConfig,
    admission_backend: SharedAdmission | None,
    attempt_policy: AttemptPolicy | None,
    circuit_policy: CircuitPolicy | None,
    session_id: str | None,
    has_hooks: bool = False,
) -> dict[str, Any]:
    """A model's JSON-ready description (:meth:`iModel.to_dict`): no secret, no callable.

    Hooks are callables, so only the fact that the model had them is written (``"hooks":
    true``): :func:`restore` then asks for a registry instead of dropping them.
    """
    out: dict[str, Any] = {
        "id": str(id),
        "created_at": created_at,
        "provider": endpoint.config.provider,
        "endpoint": endpoint.config.endpoint,
        "endpoint_class": _class_path(type(endpoint)),
        "config": _json_ready_config(endpoint.config.to_dict()),
        "admission": dataclasses.asdict(admission),
    }
    if admission_backend is not None:
        out["admission_backend"] = admission_backend.public_dict()  # URL redacted
    if attempt_policy is not None:
        policy = dataclasses.asdict(attempt_policy)
        policy["retry_statuses"] = sorted(attempt_policy.retry_statuses)
        out["attempt_policy"] = policy
    if circuit_policy is not None:
        out["circuit_policy"] = dataclasses.asdict(circuit_policy)
    if has_hooks:
        out["hooks"] = True
    caps = getattr(type(endpoint), "capabilities", None)
    if session_id and caps is not None and caps.resumable:
        out["session_id"] = session_id
    agentic = as_agentic(endpoint)
    if agentic is not None:
        # Secrets are never written: env values and the gateway key appear only as names /
        # a flag, so from_dict can insist that the caller supplies them again.
        settings = agentic.settings.public_dict()
        if settings:
            out["agentic_settings"] = settings
    return out


def _json_ready(value: object) -> bool:
    """True when ``json.dumps`` writes ``value`` as strict JSON (no object, no NaN)."""
    if value is None or isinstance(value, bool | int | str):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list | tuple):
        return all(_json_ready(item) for item in value)
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and _json_ready(v) for k, v in value.items())
    return False


def _json_ready_config(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` with every ``client_kwargs`` value JSON cannot hold written as redacted.

    ``client_kwargs`` go to the HTTP client as they are, so they may be live objects (an
    ``ssl.SSLContext`` for ``verify``, ``httpx.Limits``, ``event_hooks`` callables): written
    as they were, the "JSON-ready" form made ``json.dumps`` fail and carried callables. Redacted,
    :func:`restore` asks for them again by name, as it does for credentials.
    """
    kwargs = config.get("client_kwargs")
    if isinstance(kwargs, Mapping) and not _json_ready(kwargs):
        config["client_kwargs"] = {k: v if _json_ready(v) else REDACTED for k, v in kwargs.items()}
    return config


def restore(
    cls: Callable[..., _Model],
    data: Mapping[str, Any],
    *,
    api_key: str | SecretStr | None = None,
    api_key_resolver: ApiKeyResolver | None = None,
    clock: Clock | None = None,
    sleep: Sleep | None = None,
    agentic_settings: AgenticSettings | Mapping[str, Any] | None = None,
    admission_backend: SharedAdmission | None = None,
    default_headers: Mapping[str, str] | None = None,
    client_kwargs: Mapping[str, Any] | None = None,
    params: Mapping[str, str] | None = None,
    hook_registry: HookRegistry | None = None,
) -> _Model:
    """:meth:`iModel.from_dict`: the endpoint resolved again, the secrets from the caller.

    Every section of ``data`` is checked (unknown keys, wrong shapes, redacted values the caller
    must give again) before an endpoint is built.
    """
    from .._catalog.registry import EndpointRegistry
    from .._lifecycle.config import AdmissionConfig
    from .._lifecycle.policy import AttemptPolicy, CircuitPolicy
    from .._transport.config import EndpointConfig

    if not isinstance(data, Mapping):
        raise EndpointConfigurationError(
            "data", f"must be the mapping to_dict() wrote, got {type(data).__name__}"
        )
    _refuse_unknown("", data, _SERIALIZED_KEYS)
    if data.get("admission_backend") is not None and admission_backend is None:
        raise EndpointConfigurationError(
            "admission_backend",
            "the serialized model shared its admission limits; its URL is never serialized "
            "with a password, so pass from_dict(..., admission_backend=SharedAdmission(...))",
        )
    hooks = data.get("hooks")
    if hooks is not None and type(hooks) is not bool:
        raise EndpointConfigurationError("hooks", "must be true or absent in serialized data")
    if hooks and hook_registry is None:
        raise EndpointConfigurationError(
            "hook_registry",
            "the serialized model had hooks, which are never serialized; pass "
            "from_dict(..., hook_registry=...) again, or an empty HookRegistry() to restore "
            "it without them on purpose",
        )
    provider = _required_str(data, "provider")
    endpoint = _required_str(data, "endpoint")
    # ``api_key`` is a field but never written: a tampered document's key is ignored below.
    config = _section(data, "config", EndpointConfig.model_fields)
    if config is None:
        raise EndpointConfigurationError("config", "missing from serialized iModel")
    # Every section is checked before an endpoint is built.
    admission_data = _section(data, "admission", _ADMISSION_FIELDS) or {}
    attempt = _section(data, "attempt_policy", _field_names(AttemptPolicy))
    circuit = _section(data, "circuit_policy", _field_names(CircuitPolicy))
    sid = data.get("session_id")
    if sid is not None and not isinstance(sid, str):
        raise EndpointConfigurationError("session_id", "must be a string in serialized data")
    _check_restored_selection(config, provider, endpoint)
    key = api_key
    if key is None and api_key_resolver is not None:
        key = api_key_resolver(provider)
    compatible = bool(config.get("openai_compatible", False))
    # An OpenAI-compatible endpoint's name is fixed (and is what to_dict wrote).
    skipped = {"name"} if compatible else set()
    overrides = {
        name: config[name] for name in _RESTORED_FIELDS if name in config and name not in skipped
    }
    _restore_redacted(overrides, default_headers, client_kwargs, params)
    request_model = config.get("request_options")
    if "request_options" in config and request_model is None:
        overrides["request_options"] = None  # a deliberately schema-less endpoint stays so
    elif request_model is not None and not isinstance(request_model, str):
        raise EndpointConfigurationError(
            "config.request_options", "must be a 'module:qualname' string or null"
        )
    if key is not None:
        overrides["api_key"] = key
    settings = _restored_settings(data.get("agentic_settings"), agentic_settings)
    restored = EndpointRegistry.match(
        provider,
        endpoint,
        openai_compatible=compatible,
        request_defaults=config.get("request_defaults") or None,
        agentic_settings=settings,
        **overrides,
    )
    recorded = data.get("endpoint_class")
    if recorded is not None and recorded != _class_path(type(restored)):
        raise EndpointConfigurationError(
            "endpoint_class",
            f"serialized {recorded} but the catalog now resolves {_class_path(type(restored))}",
        )
    resolved_model = restored.config.request_options
    if isinstance(request_model, str) and (
        resolved_model is None or request_model != _class_path(resolved_model)
    ):
        # A class is never imported from data; a different one would validate requests
        # against another schema than the serialized model did.
        now = _class_path(resolved_model) if resolved_model is not None else None
        raise EndpointConfigurationError(
            "config.request_options",
            f"serialized {request_model} but the catalog now resolves {now}",
        )
    # The construction check iModel(...) runs on the caller's keywords, here on every field
    # restored (the document's and the redacted values given again): without it a CLI agent
    # came back holding auth_type="bearer", headers or a method it never applies.
    check_settings_applied(restored, base_url=overrides.get("base_url"), overrides=overrides)
    model = cls(
        endpoint=restored,
        admission=AdmissionConfig(**admission_data),
        admission_backend=admission_backend,
        # The policies validate their own values (retry_statuses from the JSON list too).
        attempt_policy=AttemptPolicy(**attempt) if attempt is not None else None,
        circuit_policy=CircuitPolicy(**circuit) if circuit is not None else None,
        id=data.get("id"),
        created_at=data.get("created_at"),
        clock=clock,
        sleep=sleep,
        hook_registry=hook_registry,
    )
    agentic = as_agentic(restored)
    if sid and agentic is not None:
        agentic.confirm_session(sid)
    return model


def _check_restored_selection(config: Mapping[str, Any], provider: str, endpoint: str) -> None:
    """Refuse config fields :func:`restore` reads itself when to_dict() could not have written them.

    These skip ``EndpointConfig`` validation: ``openai_compatible`` was read with ``bool()``
    (the string ``"false"`` selected the compatible fallback, a null was reported as an unknown
    provider), a ``request_defaults`` list was read as no defaults, and a ``config.provider``
    or ``config.endpoint`` other than the top-level selection was ignored without a word.
    """
    compatible = config.get("openai_compatible", False)
    if type(compatible) is not bool:
        raise EndpointConfigurationError(
            "config.openai_compatible",
            f"must be true or false in serialized data, got {type(compatible).__name__}",
        )
    defaults = config.get("request_defaults")
    if defaults is not None and not isinstance(defaults, Mapping):
        raise EndpointConfigurationError(
            "config.request_defaults",
            f"must be a mapping or null in serialized data, got {type(defaults).__name__}",
        )
    for name, selected in (("provider", provider), ("endpoint", endpoint)):
        if name in config and config[name] != selected:
            raise EndpointConfigurationError(
                f"config.{name}",
                f"differs from the serialized {name!r} (corrupted or foreign data); to_dict() "
                "writes the same value in both places",
            )


def _refuse_unknown(prefix: str, data: Mapping[Any, Any], allowed: Collection[str]) -> None:
    """Refuse a key ``to_dict`` never writes, naming it (``prefix.key``).

    A misspelt or foreign key used to be ignored, so a corrupted document rebuilt a model with
    that setting silently at its default.
    """
    unknown = sorted(str(k) for k in data if k not in allowed)
    if unknown:
        raise EndpointConfigurationError(
            f"{prefix}.{unknown[0]}" if prefix else unknown[0],
            "is not a field iModel.to_dict() writes (corrupted or foreign data)",
        )


def _section(
    data: Mapping[str, Any], field: str, allowed: Collection[str]
) -> dict[str, Any] | None:
    """``data[field]`` as a dict, None when absent or null; typed errors name what is wrong.

    Without this a non-mapping section raised a bare TypeError, or (a list for ``admission``)
    was read as empty and the model came back with default limits.
    """
    value = data.get(field)
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise EndpointConfigurationError(
            field, f"must be a mapping in serialized data, got {type(value).__name__}"
        )
    _refuse_unknown(field, value, allowed)
    return dict(value)


def _required_str(data: Mapping[str, Any], field: str) -> str:
    value = data.get(field)
    if value is None:
        raise EndpointConfigurationError(field, "missing from serialized iModel")
    if not isinstance(value, str):
        # str(None) used to select a provider called "none".
        raise EndpointConfigurationError(
            field, f"must be a string in serialized data, got {type(value).__name__}"
        )
    return value


def _field_names(cls: type[Any]) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


def _restored_settings(
    recorded: object, given: AgenticSettings | Mapping[str, Any] | None
) -> AgenticSettings | None:
    """Serialized non-secret settings merged with the caller's; missing secrets refused."""
    from .._transport.agentic.settings import AgenticSettings, coerce_agentic_settings

    explicit = coerce_agentic_settings(given) if given is not None else None
    if recorded is None:
        return explicit
    if not isinstance(recorded, Mapping):
        raise EndpointConfigurationError("agentic_settings", "must be a mapping in serialized data")
    _refuse_unknown("agentic_settings", recorded, _PUBLIC_SETTINGS_KEYS)
    base = AgenticSettings.from_public_dict(recorded)
    merged = base.merged(explicit) if explicit is not None else base
    names = recorded.get("env_names") or []
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        # Read as "no names" before, which skipped the check that the env values are given.
        raise EndpointConfigurationError(
            "agentic_settings.env_names", "must be a list of variable names in serialized data"
        )
    if merged.gateway_url is not None and REDACTED in merged.gateway_url:
        raise EndpointConfigurationError(
            "agentic_settings.gateway_url",
            "was serialized with its query values redacted; pass the real URL again: "
            "from_dict(..., agentic_settings={'gateway_url': ...})",
        )
    missing = sorted(n for n in names if n not in merged.env)
    if missing:
        raise EndpointConfigurationError(
            "agentic_settings.env",
            f"the serialized model set {', '.join(missing)}; values are never serialized, so "
            "pass them again: from_dict(..., agentic_settings={'env': {...}})",
        )
    if recorded.get("gateway_api_key_set") and merged.gateway_api_key is None:
        raise EndpointConfigurationError(
            "agentic_settings.gateway_api_key",
            "the serialized model had a gateway key; it is never serialized, so pass it again",
        )
    return merged


def _restore_redacted(
    overrides: dict[str, Any],
    headers: Mapping[str, str] | None,
    client_kwargs: Mapping[str, Any] | None,
    params: Mapping[str, str] | None = None,
) -> None:
    """Put back what ``to_dict()`` redacted from the caller's arguments, or refuse.

    Credentials are never restored from data. A redacted header or ``client_kwargs`` value the
    caller does not give again is an error naming it (before, it was dropped: the rebuilt model
    sent no ``Authorization``/``api-key`` header, or no proxy credentials, and said nothing); a
    ``base_url`` whose userinfo or query was redacted cannot be rebuilt either. ``params``
    values (they fill the request path) follow the header rule, names compared exactly.
    """
    base_url = overrides.get("base_url")
    if isinstance(base_url, str) and REDACTED in base_url:
        raise EndpointConfigurationError(
            "base_url",
            "was serialized with its credentials (userinfo or query values) redacted; "
            "replace config['base_url'] in the data with the real URL before from_dict()",
        )
    recorded = overrides.get("default_headers")
    if headers is not None or isinstance(recorded, Mapping):
        given = dict(headers or {})
        names = {str(name).lower() for name in given}
        merged = {
            k: v
            for k, v in (recorded.items() if isinstance(recorded, Mapping) else ())
            if str(k).lower() not in names
        }
        merged.update(given)
        _refuse_redacted("default_headers", merged)
        overrides["default_headers"] = merged
    kwargs = overrides.get("client_kwargs")
    if client_kwargs is not None or isinstance(kwargs, Mapping):
        merged_kwargs = {**(kwargs if isinstance(kwargs, Mapping) else {}), **(client_kwargs or {})}
        for key, value in merged_kwargs.items():
            inner = value.items() if isinstance(value, Mapping) else ()
            redacted = [f"{key}.{k}" for k, v in inner if v == REDACTED]
            if value == REDACTED:
                redacted.insert(0, str(key))
            if redacted:
                raise EndpointConfigurationError(
                    f"config.client_kwargs.{redacted[0]}",
                    "was serialized redacted; pass it again: "
                    f"from_dict(..., client_kwargs={{{str(key)!r}: ...}})",
                )
        overrides["client_kwargs"] = merged_kwargs
    if params is not None and not isinstance(params, Mapping):
        raise EndpointConfigurationError(
            "params", f"must be a mapping of path parameter values, got {type(params).__name__}"
        )
    recorded_params = overrides.get("params")
    if params is not None or isinstance(recorded_params, Mapping):
        merged_params = {
            **(recorded_params if isinstance(recorded_params, Mapping) else {}),
            **(params or {}),
        }
        _refuse_redacted("params", merged_params)
        overrides["params"] = merged_params


def _refuse_redacted(section: str, values: Mapping[Any, Any]) -> None:
    """A value of ``section`` still ``[REDACTED]`` after the caller's: an error naming it."""
    for name, value in values.items():
        if value == REDACTED:
            raise EndpointConfigurationError(
                f"config.{section}.{name}",
                f"was serialized redacted; pass it again: from_dict(..., {section}="
                f"{{{str(name)!r}: ...}})",
            )

"""Static conformance: what can be checked on an agentic endpoint class without running it.

Parametrize a test over :func:`registered_agentic_endpoints` to hold every agentic endpoint in the
installed catalog to the ADR-0030 D1/D2 declarations, including ones from other distributions.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import get_args

from pydantic import BaseModel

from lionagi.service import (
    AgenticCapabilities,
    AgenticEndpoint,
    AgenticTransport,
    CatalogSnapshot,
    Endpoint,
    EndpointRegistry,
    EndpointType,
)
from lionagi.service.agentic import CliRequest, SubprocessCliEndpoint

__all__ = [
    "RegisteredAgenticEndpoint",
    "assert_static_conformance",
    "registered_agentic_endpoints",
    "static_conformance_problems",
]

_TRANSPORTS = frozenset(get_args(AgenticTransport))
# What SubprocessCliEndpoint's run loop reads from every request: the properties of core's
# CliRequest protocol (prompt, repo, workspace), read from it so the two cannot drift.
_CLI_REQUEST_FIELDS = tuple(
    sorted(name for name, value in vars(CliRequest).items() if isinstance(value, property))
)


@dataclass(frozen=True, slots=True)
class RegisteredAgenticEndpoint:
    """One agentic endpoint of the catalog; ``str()`` is ``provider/endpoint`` (a test id)."""

    provider: str
    endpoint: str
    endpoint_class: type[Endpoint]
    request_options: type[BaseModel] | None

    def __str__(self) -> str:
        return f"{self.provider}/{self.endpoint}"


def registered_agentic_endpoints(
    snapshot: CatalogSnapshot | None = None,
) -> tuple[RegisteredAgenticEndpoint, ...]:
    """Every agentic endpoint of ``snapshot`` (default: the installed catalog), sorted.

    An entry declared ``EndpointType.AGENTIC`` is listed even when its class is not an
    :class:`AgenticEndpoint`, so the static check can report it.

    Raises:
        CatalogValidationError: the installed catalog does not validate (or a deferred row's
            class is invalid).
        ProviderUnavailable: a deferred row's module failed to import.
    """
    snap = EndpointRegistry.snapshot() if snapshot is None else snapshot
    # `provider()` imports a deferred row's classes: the kit inspects the classes themselves.
    entries = [e for key in snap.provider_keys for e in snap.provider(key).endpoints.values()]
    return tuple(
        RegisteredAgenticEndpoint(
            provider=entry.provider,
            endpoint=entry.endpoint,
            endpoint_class=entry.resolved_class,
            request_options=entry.request_options,
        )
        for entry in entries
        if entry.endpoint_type is EndpointType.AGENTIC
        or issubclass(entry.resolved_class, AgenticEndpoint)
    )


def static_conformance_problems(
    endpoint_class: type[Endpoint], *, request_options: type[BaseModel] | None = None
) -> list[str]:
    """Every declaration problem of ``endpoint_class``; empty when it conforms.

    ``request_options`` is the catalog registration's request model, when there is one; it must
    be the class's ``request_type`` (or a subclass), or the catalog would validate defaults
    against a different model than the adapter receives.
    """
    name = endpoint_class.__name__
    if not (isinstance(endpoint_class, type) and issubclass(endpoint_class, AgenticEndpoint)):
        return [f"{name} is registered as agentic but does not subclass AgenticEndpoint"]
    problems: list[str] = []
    if endpoint_class.is_agentic is not True:
        problems.append(f"{name}.is_agentic is not True")
    caps = endpoint_class.capabilities
    if not isinstance(caps, AgenticCapabilities):
        problems.append(f"{name}.capabilities is {caps!r}, not an AgenticCapabilities instance")
    else:
        try:
            setattr(caps, "resumable", caps.resumable)  # noqa: B010 - the same value: harmless
        except dataclasses.FrozenInstanceError:
            pass
        else:
            problems.append(f"{name}.capabilities can be changed; it must be a frozen record")
        if caps.transport not in _TRANSPORTS:
            problems.append(
                f"{name}.capabilities.transport is {caps.transport!r}; "
                f"choose one of {sorted(_TRANSPORTS)}"
            )
        for flag in ("resumable", "emits_tool_events", "reports_usage"):
            if not isinstance(getattr(caps, flag), bool):
                problems.append(f"{name}.capabilities.{flag} is not a bool")
    model = endpoint_class.request_type
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        problems.append(f"{name}.request_type is {model!r}, not a pydantic model class")
        model = None
    elif model.model_config.get("extra") == "allow":
        problems.append(
            f"{name}.request_type {model.__name__} has extra='allow': unknown request fields "
            "would be accepted; use extra='forbid'"
        )
    if (
        model is not None
        and request_options is not None
        and not (isinstance(request_options, type) and issubclass(request_options, model))
    ):
        problems.append(
            f"catalog request_options {getattr(request_options, '__name__', request_options)} "
            f"is not {name}.request_type {model.__name__}"
        )
    problems += _cli_request_problems(endpoint_class, model)
    problems += _resume_problems(endpoint_class, caps, model)
    problems += _runtime_problems(endpoint_class, model)
    if not isinstance(endpoint_class.supports_invoke, bool):
        problems.append(f"{name}.supports_invoke is not a bool")
    if endpoint_class._stream_agentic is AgenticEndpoint._stream_agentic:
        problems.append(f"{name} does not implement _stream_agentic()")
    return problems


def _cli_request_problems(
    endpoint_class: type[AgenticEndpoint], model: type[BaseModel] | None
) -> list[str]:
    """A ``SubprocessCliEndpoint`` whose request model lacks what its run loop reads.

    Without this check the catalog builds and the mistake shows at the first call
    (``EndpointConfigurationError: request_type: ...needs prompt, repo and workspace fields``).
    """
    if model is None or not issubclass(endpoint_class, SubprocessCliEndpoint):
        return []
    missing = [
        field
        for field in _CLI_REQUEST_FIELDS
        if field not in model.model_fields and not hasattr(model, field)
    ]
    if not missing:
        return []
    return [
        f"{endpoint_class.__name__}.request_type {model.__name__} has no "
        f"{', '.join(missing)} field{'s' if len(missing) > 1 else ''}: SubprocessCliEndpoint "
        f"reads {', '.join(_CLI_REQUEST_FIELDS)} from every request (CliRequest); declare "
        "them (prompt: str, repo: str | None = None, workspace: str | None = None)"
    ]


def _resume_problems(
    endpoint_class: type[AgenticEndpoint], caps: object, model: type[BaseModel] | None
) -> list[str]:
    name = endpoint_class.__name__
    field = endpoint_class.resume_field
    resumable = isinstance(caps, AgenticCapabilities) and caps.resumable
    if resumable:
        if not isinstance(field, str) or not field:
            return [f"{name} is resumable but declares no resume_field"]
        if model is not None and field not in model.model_fields:
            return [f"{name}.resume_field {field!r} is not a field of {model.__name__}"]
        return []
    if field is not None:
        return [
            f"{name}.resume_field is {field!r} but capabilities.resumable is False; "
            "set resume_field = None or declare resumable=True"
        ]
    return []


def _runtime_problems(
    endpoint_class: type[AgenticEndpoint], model: type[BaseModel] | None
) -> list[str]:
    name = endpoint_class.__name__
    keys = endpoint_class.runtime_arg_keys
    if not isinstance(keys, frozenset) or not all(isinstance(k, str) for k in keys):
        return [f"{name}.runtime_arg_keys is not a frozenset of str"]
    problems: list[str] = []
    try:
        endpoint_class.handler_names()
    except TypeError as exc:
        problems.append(str(exc))
    if model is not None:
        clash = sorted(keys & set(model.model_fields))
        if clash:
            problems.append(
                f"{name}.runtime_arg_keys {clash} are also fields of {model.__name__}: the "
                "request field could never be set"
            )
    return problems


def assert_static_conformance(entry: RegisteredAgenticEndpoint | type[Endpoint]) -> None:
    """Raise AssertionError listing every problem :func:`static_conformance_problems` finds."""
    if isinstance(entry, RegisteredAgenticEndpoint):
        label, cls, options = str(entry), entry.endpoint_class, entry.request_options
    else:
        label, cls, options = entry.__name__, entry, None
    problems = static_conformance_problems(cls, request_options=options)
    assert not problems, f"{label} does not conform:\n  - " + "\n  - ".join(problems)

"""``demo`` and ``chat``: stream one answer through ``iModel`` and map errors to exit codes."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

import anyio

from .._base.errors import (
    AdmissionConfigError,
    AdmissionError,
    CatalogValidationError,
    EndpointConfigurationError,
    EndpointNotFound,
    ProviderCatalogError,
    ProviderError,
    ProviderStreamError,
    RequestDeadlineExceeded,
)
from .._facade.imodel import iModel
from ._render import LiveRenderer, renderer_for

__all__ = [
    "agentic_settings_from_flags",
    "endpoint_settings_from_flags",
    "exit_code_for",
    "http_options_from_flags",
    "run_chat",
]


def exit_code_for(exc: BaseException) -> int:
    """The documented exit code for an error family (see ``lionagi.service.cli``)."""
    if isinstance(exc, RequestDeadlineExceeded):
        return 3
    if isinstance(exc, AdmissionConfigError):
        # A bad admission setting (a NaN deadline, a negative limit) is bad usage, not a refusal.
        return 2
    if isinstance(exc, AdmissionError):
        return 4
    if isinstance(exc, CatalogValidationError):
        return 5
    if isinstance(exc, ProviderCatalogError | ValueError):
        return 2
    if isinstance(exc, ProviderError):
        return 1
    raise exc


def agentic_settings_from_flags(
    *,
    binary: str | None,
    gateway_url: str | None,
    gateway_key_env: str | None,
    env: Sequence[str],
    cwd: str | None,
    config_home: str | None,
    environ: Mapping[str, str] | None = None,
) -> dict[str, Any] | None:
    """The ``AgenticSettings`` fields the ``chat`` flags give; None when no flag was used.

    Validation (URL scheme, variable names) is the settings model's, so a bad flag fails with
    the same ``EndpointConfigurationError`` (exit 2) as the Python API.
    """
    source = os.environ if environ is None else environ
    fields: dict[str, Any] = {}
    if binary is not None:
        fields["binary"] = binary
    if gateway_url is not None:
        fields["gateway_url"] = gateway_url
    if gateway_key_env is not None:
        key = source.get(gateway_key_env)
        if not key:
            raise EndpointConfigurationError(
                "gateway_api_key", f"--gateway-key-env: ${gateway_key_env} is not set"
            )
        fields["gateway_api_key"] = key
    if env:
        values: dict[str, str] = {}
        for item in env:
            name, sep, value = item.partition("=")
            if not sep:
                found = source.get(name)
                if found is None:
                    raise EndpointConfigurationError(
                        f"env.{name}",
                        f"--env {name} copies ${name} from this environment, where it is not set;"
                        f" set it or write --env {name}=VALUE",
                    )
                value = found
            values[name] = value
        fields["env"] = values
    if cwd is not None:
        fields["cwd"] = cwd
    if config_home is not None:
        fields["config_home"] = config_home
    return fields or None


def http_options_from_flags(
    *,
    openai_compatible: bool = False,
    api_key_env: str | None = None,
    allow_local_network: bool = False,
    environ: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The ``iModel`` options the HTTP flags of ``chat`` give (only those that were used).

    ``--api-key-env NAME`` reads the key from the environment so it never appears in argv (and
    so in ``ps`` or shell history); an unset or empty variable is an
    ``EndpointConfigurationError`` for ``api_key`` (exit 2) naming the variable, not its value.
    """
    source = os.environ if environ is None else environ
    options: dict[str, Any] = {}
    if openai_compatible:
        options["openai_compatible"] = True
    if allow_local_network:
        options["allow_local_network"] = True
    if api_key_env is not None:
        key = source.get(api_key_env)
        if not key:
            raise EndpointConfigurationError("api_key", f"--api-key-env: ${api_key_env} is not set")
        options["api_key"] = key
    return options


def endpoint_settings_from_flags(pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """``--endpoint-setting K=V`` pairs as ``iModel`` keyword arguments.

    ``V`` is JSON when it parses (``5``, ``true``, ``{"X-Org": "me"}``), else the text itself, so
    every :class:`EndpointConfig` field an error message names can be set from the command line;
    an unknown key fails in ``iModel`` with the same typed error as in Python. A key given twice
    is an ``EndpointConfigurationError``: the last one silently winning would hide a typo.
    """
    out: dict[str, Any] = {}
    for key, text in pairs:
        if key in out:
            raise EndpointConfigurationError(key, "--endpoint-setting gives this key twice")
        try:
            out[key] = json.loads(text)
        except ValueError:
            out[key] = text
    return out


def run_chat(
    model: str,
    prompt: str,
    *,
    timeout: float | None,
    as_json: bool,
    pace: float | None = None,
    base_url: str | None = None,
    endpoint: str | None = None,
    agentic_flags: Mapping[str, Any] | None = None,
    http_flags: Mapping[str, Any] | None = None,
    endpoint_settings: Sequence[tuple[str, str]] = (),
    show_thinking: bool = False,
) -> int:
    """Stream ``prompt`` to ``model`` and render each chunk; returns the exit code.

    ``agentic_flags`` are the keyword arguments of :func:`agentic_settings_from_flags`,
    ``http_flags`` those of :func:`http_options_from_flags`, ``endpoint_settings`` the
    ``--endpoint-setting`` pairs. Ctrl-C ends the partial line (``--json``: a final
    ``interrupted`` record) and returns 130.
    """
    renderer = renderer_for(as_json=as_json, expand_thinking=show_thinking)

    async def go() -> None:
        options: dict[str, Any] = {}
        if base_url is not None:
            options["base_url"] = base_url
        if endpoint is not None:
            options["endpoint"] = endpoint
        if endpoint_settings:
            options.update(endpoint_settings_from_flags(endpoint_settings))
        if http_flags:
            options.update(http_options_from_flags(**http_flags))
        settings = agentic_settings_from_flags(**agentic_flags) if agentic_flags else None
        if settings is not None:
            options["agentic_settings"] = settings
        async with _model_for_chat(model, options, explicit=endpoint is not None) as imodel:
            request: dict[str, Any]
            if imodel.is_agentic:
                request = {"prompt": prompt}
                if pace:
                    request["pace"] = pace
            else:
                request = {"messages": [{"role": "user", "content": prompt}]}
            if isinstance(renderer, LiveRenderer):
                renderer.start()
            async for chunk in imodel.stream(timeout=timeout, **request):
                renderer.chunk(chunk)

    try:
        anyio.run(go)
    except KeyboardInterrupt:
        renderer.interrupted()
        return 130
    except ProviderStreamError:
        # The provider's error chunk was already rendered; do not print it twice.
        renderer.close()
        return 1
    except Exception as exc:
        code = exit_code_for(exc)
        renderer.error(exc)
        return code
    renderer.close()
    return 0


def _model_for_chat(model: str, options: dict[str, Any], *, explicit: bool) -> iModel:
    """The ``iModel`` for ``chat``: a provider with several endpoints answers on its ``chat`` one.

    The facade fails closed when a provider has several endpoints and none is named; the
    ``chat`` command means a chat, so without ``--endpoint`` it retries the endpoint keyed or
    aliased ``chat``. When there is none, the facade's own error (naming the endpoints) stands.
    """
    try:
        return iModel(model=model, **options)
    except EndpointNotFound:
        if explicit:
            raise
        try:
            return iModel(model=model, endpoint="chat", **options)
        except EndpointNotFound:
            pass
        raise

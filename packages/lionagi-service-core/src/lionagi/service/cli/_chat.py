"""``demo`` and ``chat``: stream one answer through ``iModel`` and map errors to exit codes."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import anyio

from .._base.errors import (
    AdmissionError,
    CatalogValidationError,
    EndpointConfigurationError,
    ProviderCatalogError,
    ProviderError,
    ProviderStreamError,
    RequestDeadlineExceeded,
)
from .._facade.imodel import iModel
from ._render import JsonRenderer, TerminalRenderer

__all__ = ["agentic_settings_from_flags", "exit_code_for", "run_chat"]


def exit_code_for(exc: BaseException) -> int:
    """The documented exit code for an error family (see ``lionagi.service.cli``)."""
    if isinstance(exc, RequestDeadlineExceeded):
        return 3
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
                        f"env.{name}", "--env NAME copies a variable of this environment; unset"
                    )
                value = found
            values[name] = value
        fields["env"] = values
    if cwd is not None:
        fields["cwd"] = cwd
    if config_home is not None:
        fields["config_home"] = config_home
    return fields or None


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
) -> int:
    """Stream ``prompt`` to ``model`` and render each chunk; returns the exit code.

    ``agentic_flags`` are the keyword arguments of :func:`agentic_settings_from_flags`.
    """
    renderer = JsonRenderer() if as_json else TerminalRenderer()

    async def go() -> None:
        options: dict[str, Any] = {}
        if base_url is not None:
            options["base_url"] = base_url
        if endpoint is not None:
            options["endpoint"] = endpoint
        settings = agentic_settings_from_flags(**agentic_flags) if agentic_flags else None
        if settings is not None:
            options["agentic_settings"] = settings
        async with iModel(model=model, **options) as imodel:
            request: dict[str, Any]
            if imodel.is_agentic:
                request = {"prompt": prompt}
                if pace:
                    request["pace"] = pace
            else:
                request = {"messages": [{"role": "user", "content": prompt}]}
            async for chunk in imodel.stream(timeout=timeout, **request):
                renderer.chunk(chunk)

    try:
        anyio.run(go)
    except ProviderStreamError:
        # The provider's error chunk was already rendered; do not print it twice.
        renderer.close()
        return 1
    except Exception as exc:
        code = exit_code_for(exc)
        renderer.close()
        renderer.error(exc)
        return code
    renderer.close()
    return 0

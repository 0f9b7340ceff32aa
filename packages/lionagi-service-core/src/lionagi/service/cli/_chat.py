"""``demo`` and ``chat``: stream one answer through ``iModel`` and map errors to exit codes."""

from __future__ import annotations

from typing import Any

import anyio

from .._base.errors import (
    AdmissionError,
    CatalogValidationError,
    ProviderCatalogError,
    ProviderError,
    ProviderStreamError,
    RequestDeadlineExceeded,
)
from .._facade.imodel import iModel
from ._render import JsonRenderer, TerminalRenderer

__all__ = ["exit_code_for", "run_chat"]


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


def run_chat(
    model: str,
    prompt: str,
    *,
    timeout: float | None,
    as_json: bool,
    pace: float | None = None,
    base_url: str | None = None,
    endpoint: str | None = None,
) -> int:
    """Stream ``prompt`` to ``model`` and render each chunk; returns the exit code."""
    renderer = JsonRenderer() if as_json else TerminalRenderer()

    async def go() -> None:
        options: dict[str, Any] = {}
        if base_url is not None:
            options["base_url"] = base_url
        if endpoint is not None:
            options["endpoint"] = endpoint
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

"""Which AG2 modules an endpoint needs, checked without importing them.

The provider module must stay importable (and cheap) when AG2 is absent, so the catalog can list
the provider and say what to install. ``importlib.util.find_spec`` on a *top-level* name reads
the import path only; nothing of AG2 runs until an endpoint is built.
"""

from __future__ import annotations

import importlib.util

from lionagi.service import EndpointConfigurationError

from ._static import AG2_REQUIREMENT, INSTALL_LINE

__all__ = ["AG2_REQUIREMENT", "INSTALL_LINE", "missing_modules", "require_modules"]


def missing_modules(modules: tuple[str, ...]) -> tuple[str, ...]:
    """The top-level modules in ``modules`` that cannot be found on the import path."""
    return tuple(name for name in modules if importlib.util.find_spec(name) is None)


def require_modules(endpoint: str, modules: tuple[str, ...]) -> None:
    """Refuse to build ``endpoint`` when a module it needs is missing, naming the install line.

    Raises:
        EndpointConfigurationError: field ``ag2.<endpoint>``; the message lists the missing
            modules and :data:`INSTALL_LINE`.
    """
    missing = missing_modules(modules)
    if missing:
        raise EndpointConfigurationError(
            f"ag2.{endpoint}",
            f"needs the Python module(s) {', '.join(missing)} (AG2 {AG2_REQUIREMENT}); "
            f"install: {INSTALL_LINE}",
        )

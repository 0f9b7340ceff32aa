"""Agentic transport: the ADR-0030 boundary every CLI, in-process and remote adapter shares.

One job per module: ``records`` (capabilities and the typed shapes at the boundary),
``endpoint`` (``AgenticEndpoint``: strict requests, runtime handlers, sessions, settings),
``subprocess_cli`` (``SubprocessCliEndpoint``: the run loop every JSON-events CLI adapter shares),
``output`` (the normalized output contract and the one-shot fold), ``settings`` (deployment
settings), ``handlers`` (runtime callback validation). Process mechanics live in
``_transport.subprocess``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TypeGuard

if TYPE_CHECKING:
    from .endpoint import AgenticEndpoint

__all__ = ["is_agentic_class"]

_ENDPOINT_MODULE = f"{__name__}.endpoint"


def is_agentic_class(cls: object) -> TypeGuard[type[AgenticEndpoint]]:
    """``issubclass(cls, AgenticEndpoint)`` without importing the agentic endpoint module.

    Why: the catalog and the match path ask this of every endpoint class, and importing
    ``.endpoint`` (with the subprocess machinery it needs) cost an HTTP-only program a share of
    its first call. A subclass can only exist once that module was imported, so while it is
    not in ``sys.modules`` (or is still initializing) the answer is False.
    """
    base = getattr(sys.modules.get(_ENDPOINT_MODULE), "AgenticEndpoint", None)
    return isinstance(cls, type) and isinstance(base, type) and issubclass(cls, base)

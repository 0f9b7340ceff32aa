"""Small async helpers every layer shares."""

from __future__ import annotations

import anyio

__all__ = ["aclose_shielded"]


async def aclose_shielded(resource: object) -> None:
    """Await ``resource.aclose()`` (if it has one) shielded, so cancellation cannot skip cleanup.

    Used in ``finally`` blocks of stream layers: an iterator left unclosed would keep its
    connection, process or admission permit until garbage collection.
    """
    aclose = getattr(resource, "aclose", None)
    if aclose is not None:
        with anyio.CancelScope(shield=True):
            await aclose()

"""Small async helpers every layer shares."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import TypeVar

import anyio

__all__ = ["aclose_shielded", "one_per_batch"]

T = TypeVar("T")


async def aclose_shielded(resource: object) -> None:
    """Await ``resource.aclose()`` (if it has one) shielded, so cancellation cannot skip cleanup.

    Used in ``finally`` blocks of stream layers: an iterator left unclosed would keep its
    connection, process or admission permit until garbage collection.
    """
    aclose = getattr(resource, "aclose", None)
    if aclose is not None:
        with anyio.CancelScope(shield=True):
            await aclose()


async def one_per_batch(items: AsyncIterator[T]) -> AsyncGenerator[list[T], None]:
    """``items`` as one-element lists, closing ``items`` however iteration ends.

    The batch form of a stream whose producer yields one item at a time (an endpoint that
    overrides ``stream()``, an adapter generator): the reader of batches sees the same items.
    """
    try:
        async for item in items:
            yield [item]
    finally:
        await aclose_shielded(items)

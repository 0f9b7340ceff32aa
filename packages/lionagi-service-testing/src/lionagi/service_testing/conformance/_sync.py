"""``sync_case``: an ``async def`` conformance case as a plain synchronous pytest test.

A kit shipped to third parties cannot choose their async pytest plugin. An ``async def`` test
runs only under the plugin that claims it (anyio's needs its marker, pytest-asyncio its own
marker or auto mode), and an async fixture under any other plugin fails with "async fixture ...
with no plugin". A synchronous test that starts its own event loop with :func:`anyio.run` runs
the same under anyio's plugin, pytest-asyncio in strict or auto mode, or neither, because no
plugin recognises it as a coroutine.

The wrapper keeps the case's name, docstring and signature (``functools.wraps`` sets
``__wrapped__``, which pytest follows), so ``@pytest.mark.parametrize`` and sync fixtures see
the case's own parameters; it is not a coroutine function, so no plugin claims it.

Per-case setup and teardown that must run on the case's event loop (leak baselines, closing
models) cannot be an async fixture either: a test class defines ``case_scope(self)`` returning
an async context manager, and the wrapper enters it around the case on the same loop.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, ParamSpec

import anyio

__all__ = ["CASE_BACKEND", "sync_case"]

P = ParamSpec("P")

# Core's subprocess support runs on asyncio (trio has no child watcher core relies on).
CASE_BACKEND = "asyncio"


def sync_case(case: Callable[P, Awaitable[None]]) -> Callable[P, None]:
    """Wrap the ``async def`` test method ``case`` into a synchronous test running it.

    The body runs in a fresh event loop (``anyio.run(..., backend="asyncio")``); when the
    instance (the first positional argument) has a ``case_scope()`` method, the async context
    manager it returns is entered around the case in that loop.

    Raises:
        TypeError: ``case`` is not an ``async def`` function (a sync test needs no wrapper).
    """
    if not inspect.iscoroutinefunction(case):
        raise TypeError(f"sync_case wraps an async def test, not {case!r}")

    @functools.wraps(case)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        async def main() -> None:
            owner = args[0] if args else None
            scope_factory: Callable[[], AbstractAsyncContextManager[Any]] | None = getattr(
                owner, "case_scope", None
            )
            if scope_factory is None:
                await case(*args, **kwargs)
                return
            async with scope_factory():
                await case(*args, **kwargs)

        anyio.run(main, backend=CASE_BACKEND)

    return run

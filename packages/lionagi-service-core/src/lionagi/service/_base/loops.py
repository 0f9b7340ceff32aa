"""Which asyncio loop is running, asked without importing anyio or asyncio.

Kept apart from :mod:`.aio` (which imports anyio) because the facade asks on every call and
``from lionagi.service import iModel`` must stay free of the async stack until a call runs
(issue 15, cold start).
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["running_asyncio_loop"]


def running_asyncio_loop() -> Any | None:
    """The asyncio loop running in this thread, or None (none running, or another library).

    Read through ``sys.modules``: a program that never imported asyncio runs no asyncio loop,
    and asking must not import it.
    """
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return None
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None

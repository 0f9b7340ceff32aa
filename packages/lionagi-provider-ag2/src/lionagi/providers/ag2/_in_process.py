"""What AG2's two in-process endpoints (beta agent, classic group chat) share."""

from __future__ import annotations

from typing import ClassVar

from lionagi.service import AgenticEndpoint

from ._static import IN_PROCESS

__all__ = ["InProcessEndpoint"]


class InProcessEndpoint(AgenticEndpoint):
    """An endpoint that runs AG2 agents in this process: AG2 installed, one run at a time.

    Serial (queue 3, concurrency 1) because AG2 agents and group chats hold mutable state; no
    one-shot ``invoke`` because a run is a stream of turns. ``install_hint`` and
    ``required_modules`` come from the catalog rows' :data:`~._static.IN_PROCESS`, so the
    ``providers`` command and the endpoint classes say the same thing.
    """

    supports_invoke: ClassVar[bool] = False
    install_hint: ClassVar[str | None] = IN_PROCESS.install_hint
    required_modules: ClassVar[tuple[str, ...]] = IN_PROCESS.modules
    DEFAULT_CONCURRENCY_LIMIT: ClassVar[int] = 1
    DEFAULT_QUEUE_CAPACITY: ClassVar[int] = 3

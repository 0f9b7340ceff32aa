"""Per-block supervision of an agentic run's stdout, instead of a cancel scope per event.

A CLI prints many events per pipe read, so a supervisor that bounds each event it takes from
the adapter pays a cancel scope (and a timer) per event for reads that almost never wait. A
:class:`RunControl` moves that bound to where the waiting happens: the process reader
(``json_events_from_process``) picks up the control in force when it starts (a context
variable the supervisor sets around each read of the adapter's stream) and bounds each pipe
read, one scope per block, by the run's limit; an abort cancels the read in progress.

When the limit passes or an abort lands, the reader raises
:class:`~lionagi.service.ProviderConnectionError` and tears the process group down as for any
failure; the control records ``expired`` or ``aborted`` so the supervisor raises the typed
deadline or admission error whatever the adapter made of the transport error.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from contextvars import ContextVar, Token
from typing import TypeVar

import anyio

from .._base.errors import ProviderConnectionError

__all__ = ["RunControl", "current_run_control"]

T = TypeVar("T")

_current: ContextVar[RunControl | None] = ContextVar("lionagi_service_run_control", default=None)


def current_run_control() -> RunControl | None:
    """The control the supervisor set for the read in progress, if any."""
    return _current.get()


class RunControl:
    """The limit and abort state of one agentic run, shared by the supervisor and its readers.

    ``deadline`` is an absolute time on anyio's clock (None: unbounded). ``attached`` is True
    once a process reader took the control; the supervisor bounds reads itself until then.
    """

    __slots__ = ("_scope", "aborted", "attached", "deadline", "expired")

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline
        self.attached = False
        self.aborted = False
        self.expired = False
        self._scope: anyio.CancelScope | None = None

    def enter(self) -> Token[RunControl | None]:
        """Make this the control a process started from here on picks up (see :meth:`leave`)."""
        return _current.set(self)

    @staticmethod
    def leave(token: Token[RunControl | None]) -> None:
        """Undo :meth:`enter`."""
        _current.reset(token)

    def abort(self) -> None:
        """Stop the run now: the pipe read in progress (or the next one) is cancelled."""
        self.aborted = True
        scope = self._scope
        if scope is not None:
            scope.cancel()

    async def bounded(self, step: Callable[[], Awaitable[T]], what: str) -> T:
        """``await step()`` bounded by the deadline and the abort (one pipe block, or the exit).

        Raises:
            ProviderConnectionError: the limit passed or the run was aborted (the flags say
                which).
        """
        deadline = self.deadline
        with anyio.CancelScope(deadline=math.inf if deadline is None else deadline) as scope:
            self._scope = scope
            if self.aborted:
                scope.cancel()
            try:
                return await step()
            finally:
                self._scope = None
        if self.aborted:
            raise ProviderConnectionError(f"{what} was stopped: the call was aborted")
        self.expired = True
        raise ProviderConnectionError(f"{what} was stopped: the run's time limit passed")

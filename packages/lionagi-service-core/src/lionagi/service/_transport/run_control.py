"""Supervision of an agentic run's stdout with one timer per run, not a cancel scope per read.

A supervisor that bounds each event (or each pipe read) it takes from the adapter pays a cancel
scope and a timer per step. On a real CLI, which writes about one event per pipe write, a step
is a read: the scope then cost half as much again as reading and parsing the event itself
(issue 15, production-shaped agentic figures). A :class:`RunControl` moves the bound to where
the waiting happens: the process reader (``json_events_from_process``) picks up the control in
force when it starts (a context variable the supervisor sets around each read it makes while no
reader holds the control) and hands it an interrupt (:meth:`RunControl.attach`). The run's limit
is then one timer, armed once (on Linux a kernel timer, which unlike a pending event-loop timer
costs the loop nothing per iteration: :mod:`.kernel_timer`); when it fires, or when an abort
lands, the interrupt stops the pipe read in progress (or the next one) with
:class:`~lionagi.service.ProviderConnectionError`, and the reader tears the process group down
as for any failure. The limit also signals the CLI at once (SIGTERM, then SIGKILL after the
deadline's grace), so a consumer holding a chunk past the deadline leaves nothing acting for
it. The control records ``expired`` or ``aborted`` so the supervisor raises the typed deadline
or admission error whatever the adapter made of the transport error.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

    from .kernel_timer import Cancellable

__all__ = [
    "RunControl",
    "current_run_control",
    "reset_current_run_control",
    "set_current_run_control",
]

_current: ContextVar[RunControl | None] = ContextVar("lionagi_service_run_control", default=None)

ABORTED = "the call was aborted"
EXPIRED = "the run's time limit passed"


# The supervisor sets its control around a read made while no reader holds it, so a process
# started in that read picks it up, and resets it after: the context variable's own bound methods.
# While a reader holds the control (``live``) it is not set at all: setting and resetting a
# context variable copies the context's mapping, ≈ 2 k machine instructions a paced event paid
# for nothing (issue 15).
set_current_run_control = _current.set
reset_current_run_control = _current.reset


def _no_task() -> asyncio.Task[Any] | None:
    return None  # until a reader attached there is no direct read to record


def current_run_control() -> RunControl | None:
    """The control the supervisor set for the read in progress, if any."""
    return _current.get()


class RunControl:
    """The limit and abort state of one agentic run, shared by the supervisor and its readers.

    ``deadline`` is an absolute time on anyio's clock (None: unbounded). ``attached`` is True
    once a process reader took the control; ``live`` while one holds it. The supervisor bounds
    a read itself (one cancel scope) whenever no reader is live: before the first process
    starts, and after the last one ended, when an adapter may still await other work.

    A read the supervisor makes directly (a reader was live when it began) records its task in
    ``reading``. If the last process ends inside such a read, the adapter goes on in it with no
    reader left to interrupt: once that reader's teardown is done, the control arms its timer
    for the rest of the read (``lingering``, :meth:`linger`) and, should the limit pass or an
    abort land before the read returns, cancels the reading task, as ``asyncio.timeout`` does;
    the supervisor's :meth:`settle` after the read takes that cancellation back and names the
    outcome.
    """

    __slots__ = (
        "_cut",
        "_readers",
        "_timer",
        "aborted",
        "attached",
        "current_task",
        "deadline",
        "expired",
        "lingering",
        "live",
        "on_expire",
        "reading",
    )

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline
        self.attached = False
        self.live = False
        self.aborted = False
        self.expired = False
        self.lingering = False
        self.reading: asyncio.Task[Any] | None = None
        # asyncio.current_task once a reader attached (the supervisor reads it to fill
        # ``reading`` without importing asyncio itself).
        self.current_task: Callable[[], asyncio.Task[Any] | None] = _no_task
        self._readers: list[Callable[[str], None]] = []
        self._timer: Cancellable | None = None
        self._cut: asyncio.Task[Any] | None = None
        # Run (synchronously, on the loop) once the limit's timer fired and the readers were
        # interrupted: the supervisor ends a call whose consumer is holding a chunk there.
        self.on_expire: Callable[[], None] | None = None

    def attach(self, interrupt: Callable[[str], None]) -> None:
        """Bound the reader that calls this: ``interrupt(reason)`` stops its reads from now on.

        Called by a reader running on asyncio (the subprocess reader's only backend), where
        anyio's clock is the event loop's: the limit is one timer, armed while any reader is
        attached (an adapter may run more than one process in a run), kept by the kernel where
        it can be (:mod:`.kernel_timer`: a pending loop timer taxes every loop iteration). An
        abort that landed before the reader started, or a limit already passed, interrupts it
        at once.
        """
        import asyncio

        self.attached = True
        self.live = True
        self.lingering = False  # a process started in the same read: it carries the limit
        self.current_task = asyncio.current_task
        if self.aborted or self.expired:
            interrupt(ABORTED if self.aborted else EXPIRED)
        self._readers.append(interrupt)
        if not self.expired:
            self._arm()

    def detach(self, interrupt: Callable[[str], None]) -> None:
        """That reader is done; the last one to leave disarms the timer."""
        readers = self._readers
        if interrupt in readers:
            readers.remove(interrupt)
        self.live = bool(readers)
        if not readers and self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def linger(self) -> None:
        """A reader finished its teardown: bound what its read does next, if it goes on.

        Called by the process reader after its teardown, unless a cancellation ends it. If no
        other reader holds the control and the read was one the supervisor made directly, in
        this task, the adapter continues that read with nothing bounding it: the timer is armed
        again until the read ends (:meth:`settle`). Never during the teardown itself, which a
        cancellation must not cut short.
        """
        import asyncio

        task = self.reading
        if (
            self._readers
            or task is None
            or task is not asyncio.current_task()
            or self.aborted
            or self.expired
        ):
            return
        self.lingering = True  # an abort reaches the read even when the run has no limit
        self._arm()

    def _arm(self) -> None:
        """Arm the limit's one timer, unless it is armed already or the run has no limit."""
        if self._timer is not None or self.deadline is None:
            return
        import asyncio

        from .kernel_timer import call_later

        loop = asyncio.get_running_loop()
        self._timer = call_later(loop, self.deadline - loop.time(), self._expire)

    def abort(self) -> None:
        """Stop the run now: the pipe reads in progress (or the next ones) are interrupted."""
        self.aborted = True
        for interrupt in tuple(self._readers):
            interrupt(ABORTED)
        self._cut_lingering_read()

    def settle(self) -> bool:
        """After a lingering read returned or raised: disarm; True if the limit or an abort cut it.

        The cancellation this control sent is taken back (``Task.uncancel``). False when it
        sent none, or when another cancellation is pending on the task too: that one then keeps
        propagating, as it would have without the run's limit.
        """
        self.lingering = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        task, self._cut = self._cut, None
        return task is not None and task.uncancel() == 0

    def _cut_lingering_read(self) -> None:
        task = self.reading
        if not self.lingering or task is None or self._readers or self._cut is not None:
            return
        if task.cancelling():
            return  # already being cancelled: the read ends anyway, and that cancel names why
        self._cut = task
        task.cancel(ABORTED if self.aborted else EXPIRED)

    def _expire(self) -> None:
        self._timer = None
        if self.aborted:
            return  # the abort already interrupted the readers; it names the outcome
        self.expired = True
        for interrupt in tuple(self._readers):
            interrupt(EXPIRED)
        self._cut_lingering_read()
        if self.on_expire is not None:
            self.on_expire()

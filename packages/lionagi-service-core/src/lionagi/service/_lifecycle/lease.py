"""The admission lease: proof that a call was admitted, holding its concurrency permit.

The supervisor runs provider work inside :meth:`AdmissionLease.abort_scope`; when the controller
closes, that scope is cancelled and its exit raises :class:`AdmissionClosed`, so the supervisor
can mark the event ABORTED instead of mistaking the close for caller cancellation. A stop of
this call alone (its stream closed from another task, :meth:`AdmissionLease._stop`) cancels the
same scopes, whose exit then raises :class:`StreamClosed`.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType

import anyio

from .._base.errors import AdmissionClosed, StreamClosed

__all__ = ["AdmissionLease", "LeaseAbortScope"]


class AdmissionLease:
    """Holds one call's concurrency permit until `release` (idempotent).

    Request and token units were consumed when the lease was granted; releasing returns only the
    concurrency permit. As an async context manager it releases on exit and never suppresses
    the exception leaving the block.

    Attributes:
        aborted: True once the controller closed while this lease was active (set by the
            controller only; read, never written, by the holder).
        parked: What the controller's close runs while the holder is parked outside any abort
            scope (a stream waiting on its consumer); None while it runs. If the controller
            closes meanwhile, it runs and the permit is released at once: the parked holder
            cannot run its own cleanup until its consumer resumes it, and the close must not
            wait on a consumer that may be the very task calling it. A stream assigns it around
            each batch it hands out (an attribute, not a method pair: two calls per chunk were a
            measurable share of a paced stream's cost, issue 15).
        ended_parked: True once the call was ended from outside the holder's own code: by its
            deadline while it was parked (set by the holder's timer, which also releases the
            permit), or by a stop (`_stop`). Checked with `aborted` before each chunk leaves,
            so a batch read before the deadline (or the stop) is not handed out after it, by a
            call that already ended.
        stopped: True once `_stop` stopped this call alone (its stream was closed from
            another task); `aborted` stays False, the model is not closing.
    """

    __slots__ = (
        "_call_id",
        "_on_abort",
        "_on_release",
        "_released",
        "_scopes",
        "aborted",
        "ended_parked",
        "parked",
        "stopped",
    )

    def __init__(self, call_id: str, on_release: Callable[[AdmissionLease], None]) -> None:
        self._call_id = call_id
        self._on_release: Callable[[AdmissionLease], None] | None = on_release
        self._released = False
        self.aborted = False
        self.ended_parked = False
        self.stopped = False
        # A list, not a set: a lease holds one or two scopes at a time, and an empty set costs
        # 216 bytes against a list's 56, for each of a burst's streams (issue 15's memory cell).
        self._scopes: list[anyio.CancelScope] = []
        self.parked: Callable[[], None] | None = None
        self._on_abort: Callable[[], None] | None = None

    @property
    def call_id(self) -> str:
        """The admitted call's id, as text."""
        return self._call_id

    @property
    def released(self) -> bool:
        """True once the permit went back to the controller."""
        return self._released

    def release(self) -> None:
        """Return the concurrency permit; later calls do nothing.

        Synchronous so it is safe in `finally` blocks even while the task is being cancelled.
        """
        if self._released:
            return
        self._released = True
        on_release, self._on_release = self._on_release, None
        if on_release is not None:
            on_release(self)

    def abort_scope(self, deadline: float | None = None) -> LeaseAbortScope:
        """A cancel scope the controller cancels on close; run provider work inside it.

        On exit after such an abort the scope raises `AdmissionClosed`. Entering it after
        the abort cancels the body at its first checkpoint. `deadline` (anyio's clock) also
        ends the body then, quietly: the scope's `cancelled_caught` tells the caller, so one
        scope bounds a step by both the close and a deadline.
        """
        return LeaseAbortScope(self, deadline)

    def on_abort(self, stop: Callable[[], None] | None) -> None:
        """Run `stop` (synchronous) when the controller closes; None removes it.

        For work that is stopped without a cancel scope: a stream whose reads are bounded by
        the connection itself registers the function that shuts its connection down, so the
        close reaches a read in progress without a scope entered around every read. If the
        lease was already aborted (or stopped), `stop` runs at once.
        """
        self._on_abort = stop
        if stop is not None and (self.aborted or self.stopped):
            stop()

    def _abort(self) -> None:
        """Cancel every open abort scope of this lease; only the controller's close calls it."""
        if self.aborted:
            return
        self.aborted = True
        self._cut()
        parked, self.parked = self.parked, None
        if parked is not None:
            parked()
            self.release()

    def _stop(self) -> None:
        """Stop this call alone, as `_abort` stops every call on close.

        For a stream's ``aclose()`` from another task while its generator awaits inside the
        call. Cancels every open abort scope (their exit raises `StreamClosed`) and runs the
        `on_abort` function (a controlled connection is shut down, a CLI signalled), so the
        await in progress ends at once. `ended_parked` is set too: a read that completed just
        before the stop hands nothing more out (the check each chunk already pays). The caller
        has already ended the call CANCELLED. Not `parked`: a stop reaches only a running
        generator, and one parked at its consumer is closed with the generator's own
        ``aclose()``. Does nothing once the lease was aborted, stopped or released.
        """
        if self.aborted or self.stopped or self._released:
            return
        self.stopped = True
        self.ended_parked = True
        self._cut()

    def _cut(self) -> None:
        """End the work in progress: cancel the open abort scopes, run `on_abort` once."""
        for scope in tuple(self._scopes):
            scope.cancel()
        stop, self._on_abort = self._on_abort, None
        if stop is not None:
            stop()

    async def __aenter__(self) -> AdmissionLease:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def __repr__(self) -> str:
        state = "released" if self._released else "aborted" if self.aborted else "active"
        return f"<AdmissionLease {self._call_id} {state}>"


class LeaseAbortScope:
    """Context manager around provider work that turns a controller close into AdmissionClosed.

    A stop of this call alone (`AdmissionLease._stop`) raises `StreamClosed` instead.
    """

    __slots__ = ("_deadline", "_lease", "_scope")

    def __init__(self, lease: AdmissionLease, deadline: float | None = None) -> None:
        self._lease = lease
        self._deadline = deadline
        self._scope: anyio.CancelScope | None = None

    def __enter__(self) -> anyio.CancelScope:
        deadline = self._deadline
        scope = anyio.CancelScope() if deadline is None else anyio.CancelScope(deadline=deadline)
        scope.__enter__()
        self._scope = scope
        self._lease._scopes.append(scope)
        if self._lease.aborted or self._lease.stopped:
            scope.cancel()
        return scope

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        scope = self._scope
        assert scope is not None, "LeaseAbortScope exited without being entered"
        self._lease._scopes.remove(scope)
        suppressed = bool(scope.__exit__(exc_type, exc, tb))
        if scope.cancelled_caught:
            lease = self._lease
            if lease.stopped:  # a stop, which a later close does not turn into an abort
                raise StreamClosed(lease.call_id)
            if lease.aborted:
                raise AdmissionClosed(
                    f"admission controller closed; active call {lease.call_id} was aborted"
                )
        return suppressed

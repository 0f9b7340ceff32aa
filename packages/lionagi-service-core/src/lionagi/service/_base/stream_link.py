"""The link a stream's handle holds to stop its call from another task (``aclose()`` there).

The generator of ``CallSupervisor.stream_prepared`` runs in the consumer's task; while it
awaits (a read, admission, a hook) Python refuses to close it from anywhere else. The facade
passes a `StreamLink` subclass as the stream's ``done`` callback: the generator records its
call, its admission and its lease on it as it gets them, and `stop` stops the call where it is,
as a controller close stops every call (the lease's scopes cancelled, its connection shut down
or CLI signalled), but for this call only, ending CANCELLED. The generator then raises
`StreamClosed` to the consumer's read and runs its cleanup. Nothing here runs per chunk.

It lives in the bottom layer, typed loosely (the call, admission and lease are the upper
layers' objects, reached by duck typing), because the facade's stream handle subclasses it and
``from lionagi.service import iModel`` must not import the lifecycle or anyio to define it.
"""

from __future__ import annotations

from typing import Any

from .errors import StreamClosed

__all__ = ["StreamLink"]


class StreamLink:
    """What a stream's handle holds to stop its call; set by the stream's generator."""

    __slots__ = ("_admission", "_call", "_lease", "_preparing", "_stopped")

    def __init__(self) -> None:
        self._admission: Any = None  # the supervisor's Admission
        self._call: Any = None  # the APICalling, once prepared
        self._lease: Any = None  # the AdmissionLease, once admitted
        self._preparing: Any = None  # the cancel scope around the call's preparation
        self._stopped = False

    def __call__(self) -> None:
        """The generator ended (the ``done`` callback); subclasses say what that means."""

    @property
    def stopped(self) -> bool:
        """True once `stop` was called."""
        return self._stopped

    def stop(self) -> None:
        """Stop the call while its generator awaits inside it; idempotent, synchronous.

        Still preparing the call (a ``pre_event_create`` hook awaiting): that await is
        cancelled; a hook that swallows the cancellation gets its call ended CANCELLED before
        admission. Queued in admission: the call leaves the queue. Admitted: the call ends
        CANCELLED now and its lease is stopped. The generator raises `StreamClosed` in each case.
        """
        if self._stopped:
            return
        self._stopped = True
        call, lease = self._call, self._lease
        if call is None:
            preparing = self._preparing
            if preparing is not None:
                preparing.cancel()  # a hook may await for seconds: the stop must not wait
            return
        if lease is None:
            # Core's controllers let a queued call go at once; an admission of the caller's
            # own (the public protocol has no such method) is left to admit it, after which
            # the generator notices the stop before any work starts.
            leave = getattr(self._admission, "_stop_waiting", None)
            if leave is not None:
                leave(str(call.id))
            return
        if lease.released or lease.aborted:
            return  # the call has ended already (a close, its deadline): nothing to stop
        from .events import EventStatus  # only on a stop: events imports pydantic and anyio

        call.terminate(EventStatus.CANCELLED, error=StreamClosed(lease.call_id))
        lease._stop()

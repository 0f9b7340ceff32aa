"""Per-read supervision of one HTTP/1.1 stream without a cancel scope per read.

A real token stream delivers about one event per network read, so anything a supervisor wraps
around each read is paid per chunk. httpcore already bounds every read with its own timeout
(``anyio.fail_after`` around the socket receive); :class:`SupervisedStream` is the network
stream the endpoint's backend hands httpcore, and while a :class:`ReadControl` is attached to
it each read's timeout becomes ``min(transport read timeout, deadline - now)``. So:

- the request deadline rides on the transport's own read timeout: a read still pending at the
  deadline ends with httpcore's ``ReadTimeout`` and the control records ``expired``;
- an abort (admission close) shuts the socket down, synchronously, from whatever code runs the
  abort: a pending read wakes at once with an error (or EOF) and the control records
  ``aborted``; the connection is broken, so it is never returned to the pool;
- the deadline also shuts the socket down when it passes with no read pending (the consumer is
  holding a chunk): one timer per stream (:meth:`ReadControl.arm`), kept by the kernel where
  it can be, so the server stops sending, and the provider stops billing, at the deadline
  rather than whenever the consumer asks for the next chunk.

The supervisor reads both flags after a failed read to raise the typed error (deadline or
admission close) instead of the transport error the read produced. Only HTTP/1.1 connections
are controlled this way (one response per connection at a time); anything else leaves the
control unattached and the supervisor falls back to one cancel scope per read.
"""

from __future__ import annotations

import contextlib
import select
import socket
from typing import TYPE_CHECKING, Any

import anyio
import httpcore

from ..._base.loops import running_asyncio_loop

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..kernel_timer import Cancellable

__all__ = ["ReadControl", "SupervisedStream"]

_UNSET = object()  # SupervisedStream._socket before the first lookup
_poll = getattr(select, "poll", None)


class ReadControl:
    """The deadline and abort state of one stream, shared by the supervisor and its socket.

    ``deadline`` is an absolute time on anyio's clock (None: only the transport timeout).
    ``attached`` tells the supervisor the endpoint could attach the control to the stream's
    connection; when False, nothing here is enforced and the supervisor must bound reads itself.
    """

    __slots__ = ("_stream", "_timer", "aborted", "attached", "deadline", "expired", "on_expire")

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline
        self.attached = False
        self.aborted = False
        self.expired = False
        # Run (synchronously, on the loop) when the armed deadline shut the connection: the
        # supervisor ends a call whose consumer is holding a chunk there and then.
        self.on_expire: Callable[[], None] | None = None
        self._stream: SupervisedStream | None = None
        self._timer: Cancellable | None = None

    def arm(self, deadline: float | None) -> None:
        """Bound the open stream's reads by ``deadline``, and stop it when the deadline passes.

        A read pending then ends with the transport's timeout; with none pending (a consumer
        holding a chunk) the timer shuts the connection down, so the next read fails and the
        supervisor raises the deadline error. Only on an asyncio loop, with a stream attached.
        """
        self.deadline = deadline
        if deadline is None or self._stream is None or self._timer is not None:
            return
        loop = running_asyncio_loop()
        if loop is None:
            return  # another event loop: reads are still bounded by their own timeout
        from ..kernel_timer import call_later

        self._timer = call_later(loop, deadline - anyio.current_time(), self._expire)

    def attach(self, stream: SupervisedStream) -> None:
        """Govern ``stream``'s reads until :meth:`detach` (the endpoint calls both)."""
        self._stream = stream
        stream.control = self
        self.attached = True
        if self.aborted:
            stream.shutdown()

    def detach(self) -> None:
        """Stop governing the connection (before it may go back to the pool)."""
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        stream, self._stream = self._stream, None
        if stream is not None and stream.control is self:
            stream.control = None

    def abort(self) -> None:
        """Stop the stream now: a pending read fails at once. Synchronous; idempotent."""
        self.aborted = True
        stream = self._stream
        if stream is not None:
            stream.shutdown()

    def _expire(self) -> None:
        self._timer = None
        if self.aborted or self._stream is None:
            return
        self.expired = True
        self._stream.shutdown()
        if self.on_expire is not None:
            self.on_expire()

    async def read(
        self,
        inner: httpcore.AsyncNetworkStream,
        max_bytes: int,
        timeout: float | None,  # noqa: ASYNC109 - httpcore's read timeout, passed through
    ) -> bytes:
        """One read of ``inner`` bounded by ``min(timeout, deadline - now)``."""
        deadline = self.deadline
        if deadline is None:
            return await inner.read(max_bytes, timeout)
        left = deadline - anyio.current_time()
        if timeout is not None and timeout <= left:
            return await inner.read(max_bytes, timeout)
        try:
            return await inner.read(max_bytes, left if left > 0.0 else 0.0)
        except httpcore.ReadTimeout:
            self.expired = True
            raise


class SupervisedStream(httpcore.AsyncNetworkStream):
    """An httpcore network stream whose reads a :class:`ReadControl` may bound and abort.

    With no control attached (the normal state of a pooled connection) it is a plain
    pass-through; TLS upgrades stay wrapped, so a controlled read is always this class's.
    """

    __slots__ = ("_inner", "_socket", "control")

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self._inner = inner
        self.control: ReadControl | None = None
        self._socket: Any = _UNSET  # see _raw_socket

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109
        control = self.control
        if control is None:
            return await self._inner.read(max_bytes, timeout)
        return await control.read(self._inner, max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(
        self,
        ssl_context: Any,
        server_hostname: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the httpcore stream interface
    ) -> httpcore.AsyncNetworkStream:
        inner = await self._inner.start_tls(ssl_context, server_hostname, timeout)
        return SupervisedStream(inner)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            return self._is_readable()
        return self._inner.get_extra_info(info)

    def _is_readable(self) -> bool:
        """Whether an idle connection's socket has something to read (or is gone).

        httpcore asks this of every idle connection on every pass of its pool, to notice a
        server that closed a kept-alive connection. The anyio stream answers it by building
        its whole attribute mapping each time, and a burst of N streams asks it up to N
        times per request (issue 15), so the socket is looked up once and polled directly.
        Same answer as httpcore's: no socket, a closed one, or pending data or EOF is True.
        """
        sock = self._raw_socket()
        if sock is None or sock.fileno() < 0:
            return True
        if _poll is None:  # no poll(2) (Windows): select answers the same question
            readable, _, _ = select.select([sock], [], [], 0)
            return bool(readable)
        poller = _poll()
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(0))

    def _raw_socket(self) -> Any:
        """The stream's raw socket (asyncio's ``TransportSocket``) or None, looked up once."""
        sock = self._socket
        if sock is _UNSET:
            sock = self._socket = self._inner.get_extra_info("socket")
        return sock

    def can_shut_down(self) -> bool:
        """Whether :meth:`shutdown` can reach a socket (needed before a control is attached)."""
        return self._raw_socket() is not None

    def shutdown(self) -> None:
        """Shut the socket down both ways, so a pending read ends now; the fd stays open.

        ``shutdown`` rather than ``close``: the event loop still owns the descriptor and
        closes it with the connection, so it cannot be reused under the loop's feet.
        """
        sock = self._raw_socket()
        if sock is None:
            return
        with contextlib.suppress(OSError):  # already closed: nothing left to stop
            sock.shutdown(socket.SHUT_RDWR)

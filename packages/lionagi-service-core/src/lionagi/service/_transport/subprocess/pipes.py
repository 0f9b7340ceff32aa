"""Event-loop side of a child process: stdout buffering with backpressure and stderr capture.

This is an ``asyncio.SubprocessProtocol`` rather than anyio's pull streams on purpose: the event
loop drains stderr from its reader callback, so no background task is needed to keep a chatty
child from blocking on a full stderr pipe. Without a task there is no task group, and without a
task group the event iterator can be a plain async generator that is safe to nest, abandon or
close from another task while it waits at a ``yield`` (a task group held across ``yield``
breaks cancel-scope nesting). Like any async generator it cannot be closed while a read of it is
still pending (``aclose()`` then raises ``RuntimeError``); to stop a pending read, cancel the
task that is reading.
"""

from __future__ import annotations

import asyncio
from typing import cast

from ..._base.errors import ProviderConnectionError
from .capture import StderrCapture

__all__ = ["ChildProtocol"]


class ChildProtocol(asyncio.SubprocessProtocol):
    """Buffers stdout for one reader, captures stderr, and records exit and pipe closure."""

    def __init__(self, *, stderr_limit: int, stdout_buffer_limit: int) -> None:
        """Set the stderr retention and the stdout high-water mark (reading pauses above it)."""
        self._transport: asyncio.SubprocessTransport | None = None
        self._chunks: list[bytes] = []
        self._buffered = 0
        self._high_water = stdout_buffer_limit
        self._paused = False
        self._stdout_closed = False
        self._stdout_error: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._stopped: str | None = None  # the error message of an interrupt (see interrupt)
        self.stderr = StderrCapture(stderr_limit)
        self.stderr_closed = asyncio.Event()
        self.exited = asyncio.Event()
        self.finished = asyncio.Event()

    # -- protocol callbacks (run by the event loop) ---------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Keep the transport to pause and resume stdout."""
        self._transport = cast(asyncio.SubprocessTransport, transport)

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        """Route stdout to the reader's buffer and stderr to the bounded capture."""
        chunk = data.encode() if isinstance(data, str) else data
        if fd == 1:
            self._chunks.append(chunk)
            self._buffered += len(chunk)
            if self._buffered >= self._high_water and not self._paused:
                self._set_reading(False)
            self._wake()
        elif fd == 2:
            self.stderr.feed(chunk)

    def pipe_connection_lost(self, fd: int, exc: BaseException | None) -> None:
        """Record EOF (or a read error) on stdout and the end of stderr."""
        if fd == 1:
            self._stdout_closed = True
            self._stdout_error = exc
            self._wake()
        elif fd == 2:
            self.stderr_closed.set()

    def process_exited(self) -> None:
        """The child has been reaped; its return code is on the transport."""
        self.exited.set()
        self._wake()

    def connection_lost(self, exc: BaseException | None) -> None:
        """Every pipe is closed and the child is reaped: nothing of it is left open."""
        self.stderr_closed.set()
        self._stdout_closed = True
        self.finished.set()
        self._wake()

    # -- reader side ----------------------------------------------------------------------------

    def interrupt(self, message: str) -> None:
        """Stop the reader: the read or exit wait in progress, and every later one, raises.

        Called by the run's supervision (its limit passed, or the call was aborted) from the
        event loop's thread; the reader then tears the process down like any failed run.
        Buffered stdout is not handed out after it: nothing more leaves a stopped run.
        """
        if self._stopped is None:
            self._stopped = message
        self._wake()

    async def read(self) -> bytes:
        """Return all buffered stdout (waiting for some), or ``b""`` at EOF.

        Raises:
            ProviderConnectionError: stdout failed, or the reader was interrupted.
        """
        while not self._chunks or self._stopped is not None:
            if self._stopped is not None:
                raise ProviderConnectionError(self._stopped)
            if self._stdout_closed:
                if self._stdout_error is not None:
                    raise ProviderConnectionError(
                        f"reading the CLI's stdout failed: {self._stdout_error}"
                    ) from self._stdout_error
                return b""
            await self._wait()
        chunks = self._chunks
        data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        self._chunks = []
        self._buffered = 0
        if self._paused:
            self._set_reading(True)
        return data

    async def wait_exited(self) -> None:
        """Wait for the child's exit to be reported.

        Raises:
            ProviderConnectionError: the reader was interrupted first.
        """
        while not self.exited.is_set():
            if self._stopped is not None:
                raise ProviderConnectionError(self._stopped)
            await self._wait()

    async def _wait(self) -> None:
        """Until the next protocol event (data, EOF, exit, an interrupt)."""
        waiter = asyncio.get_running_loop().create_future()
        self._waiter = waiter
        try:
            await waiter
        finally:
            self._waiter = None

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _set_reading(self, on: bool) -> None:
        if self._transport is None or self._stdout_closed:
            return
        pipe = self._transport.get_pipe_transport(1)
        if not isinstance(pipe, asyncio.ReadTransport) or pipe.is_closing():
            return
        if on:
            pipe.resume_reading()
        else:
            pipe.pause_reading()
        self._paused = not on

"""Streams an ``iModel`` started, tracked until they end so ``close()`` can reap them.

A stream iterated partway and then dropped (no ``aclose()``) still owns provider work: a CLI
process, its admission lease. Left to Python, the async generator is finalized by the event
loop's asyncgen hook at some later point, in a task nobody awaits: the CLI outlived
``iModel.close()`` and loop shutdown logged the teardown's errors.

So each stream is handed out as a :class:`ModelStream` handle that the facade references only
weakly, while it keeps the underlying generator strongly:

- the stream ends (EOF, error, ``aclose()``): the generator's ``finally`` forgets it;
- the caller drops the handle: a weakref callback schedules the generator's ``aclose()`` in a
  task this registry tracks (an asyncio task, or a trio system task under anyio's trio
  backend), or, collected outside any loop, queues it for ``close()``;
- ``close()``: every generator still known is closed in the closing task and every reaper task
  awaited, so the CLI's process group is terminated and reaped before ``close()`` returns. A
  handle whose stream was reaped this way raises ``AdmissionClosed`` on its next read rather
  than ending silently.

A stream closed by the caller before its first read never started its generator, whose
``finally`` would have forgotten it and whose ``except GeneratorExit`` would have ended the call
CANCELLED: the handle does both itself (see :meth:`ModelStream.aclose`).

A stream closed from another task while its consumer waits inside a read (a stop button)
cannot be closed as a generator (Python refuses: it is running). The handle stops the call
through the ``done`` callback instead, a `StreamLink` that reaches the call's lease or queue
place, and waits for the generator to finish; the consumer's read raises `StreamClosed`.

The hot path pays for one handle object, one weakref and one dict entry per stream; per chunk
only one attribute check.
"""

from __future__ import annotations

import logging
import sys
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Coroutine
from functools import partial
from typing import TYPE_CHECKING, Any

from .._base.chunk import StreamChunk
from .._base.errors import AdmissionClosed
from .._base.stream_link import StreamLink

if TYPE_CHECKING:
    import anyio

__all__ = ["ModelStream", "StreamRegistry"]

logger = logging.getLogger("lionagi.service")

_Gen = AsyncGenerator[StreamChunk, None]


async def _raise(exc: BaseException) -> StreamChunk:
    raise exc


def _is_live(agen: _Gen) -> bool:
    """Started and not finished (an unstarted or finished generator owns nothing)."""
    return getattr(agen, "ag_frame", None) is not None


def _is_running(agen: _Gen) -> bool:
    return bool(getattr(agen, "ag_running", False))


class ModelStream(AsyncIterator[StreamChunk]):
    """An ``iModel.stream()`` result: an async generator the facade can reap on close.

    It delegates ``__anext__``, ``asend``, ``athrow`` and ``aclose`` to the call's generator;
    after :meth:`iModel.close` reaped it, reads raise ``AdmissionClosed``. A stream never read
    before the close is not reaped: its first read refuses the call as a stream started on the
    closed model would (a prepared call ends ABORTED rather than staying PENDING).
    """

    __slots__ = ("__weakref__", "_agen", "_forget", "_on_unread_close", "_reaped", "_running")

    def __init__(self) -> None:
        self._agen: _Gen | None = None
        self._reaped: str | None = None
        # The generator once read and not reaped: the one check a chunk pays.
        self._running: _Gen | None = None
        # Set by StreamRegistry.start: drops the registry entry; ends a prepared call.
        self._forget: Callable[[], None] | None = None
        self._on_unread_close: Callable[[], None] | None = None

    def __aiter__(self) -> ModelStream:
        return self

    def __anext__(self) -> Coroutine[Any, Any, StreamChunk]:
        agen = self._running
        if agen is None:
            agen = self._first_read()
            if agen is None:
                return _raise(AdmissionClosed(self._reaped or ""))
        return agen.__anext__()

    def _first_read(self) -> _Gen | None:
        """The generator for a first read, or None once reaped."""
        if self._reaped is not None:
            return None
        assert self._agen is not None
        self._running = self._agen
        return self._agen

    def asend(self, value: None) -> Coroutine[Any, Any, StreamChunk]:
        """Delegate to the underlying generator (``asend(None)`` is ``__anext__``)."""
        agen = self._running or self._first_read()
        if agen is None:
            return _raise(AdmissionClosed(self._reaped or ""))
        return agen.asend(value)

    def athrow(self, exc: BaseException) -> Coroutine[Any, Any, StreamChunk]:
        """Delegate to the underlying generator."""
        assert self._agen is not None
        return self._agen.athrow(exc)

    def aclose(self) -> Coroutine[Any, Any, None]:
        """Stop early: cancel and clean up the call (process reaped, lease released).

        Before the first read nothing has run, so there is nothing to clean up, but a prepared
        call still ends CANCELLED, as it does when the stream is closed after a read: it stayed
        PENDING for good (its ``wait_terminal()`` never returned). Later reads then end the
        iteration, as they do on a closed async generator.

        From another task while the consumer's read is in progress (waiting on the provider,
        on admission, on a hook): the call is stopped where it is (connection closed, CLI's
        process tree reaped, permit or queue place given back) and ends CANCELLED, the
        consumer's read raises `StreamClosed`, and this returns once the stream's cleanup has
        finished. Between reads, or from the consuming task, the generator is closed as usual.
        """
        agen = self._agen
        assert agen is not None
        if self._running is None and self._reaped is None:
            return self._close_unread(agen)
        if _is_running(agen):
            return self._stop_running(agen)
        return agen.aclose()

    async def _stop_running(self, agen: _Gen) -> None:
        link = self._forget
        assert isinstance(link, _Forget)  # StreamRegistry.start made it
        finished = link.finished
        if finished is None:
            import anyio  # only for a stop from another task: a plain import must not load it

            finished = link.finished = anyio.Event()
        link.stop()
        await finished.wait()

    async def _close_unread(self, agen: _Gen) -> None:
        await agen.aclose()  # never started: only marks it closed, its body never runs
        forget = self._forget
        if forget is not None:
            forget()  # the generator's ``finally`` will not: close() has nothing to reap
        on_close = self._on_unread_close
        if on_close is not None:
            on_close()


class StreamRegistry:
    """The live streams of one facade and the tasks reaping dropped ones."""

    __slots__ = ("__weakref__", "_dropped", "_live", "_on_drop", "_reapers")

    def __init__(self) -> None:
        self._live: dict[weakref.ref[ModelStream], _Gen] = {}
        self._dropped: list[_Gen] = []
        self._reapers: set[Any] = set()
        # Every handle's weakref callback: one object per registry, not a closure per stream,
        # and it holds the registry weakly (a dropped facade's streams must not keep it alive).
        self._on_drop = partial(_dropped, weakref.ref(self))

    def start(
        self,
        body: Callable[[Callable[[], None]], _Gen],
        on_unread_close: Callable[[], None] | None = None,
    ) -> ModelStream:
        """Create a handle for ``body(forget)``; the generator must call ``forget`` when done.

        ``on_unread_close`` runs when the caller closes the handle before its first read (the
        generator never ran, so it cannot end the call the stream was given).
        """
        handle = ModelStream()
        ref = weakref.ref(handle, self._on_drop)
        forget = _Forget(self._live, ref)
        agen = body(forget)
        handle._agen = agen
        handle._forget = forget
        handle._on_unread_close = on_unread_close
        self._live[ref] = agen
        return handle

    def _on_dropped(self, ref: weakref.ref[ModelStream]) -> None:
        agen = self._live.pop(ref, None)
        if agen is None or not _is_live(agen):
            return
        self._dropped.append(agen)
        asyncio = sys.modules.get("asyncio")
        if asyncio is not None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                pass  # not in an asyncio loop: perhaps trio's, below
            else:
                # Deferred to a clean point of the loop: a weakref callback may run inside any
                # code.
                loop.call_soon(self._spawn_reaper, loop)
                return
        trio = sys.modules.get("trio")
        if trio is None:
            return  # collected outside any loop: close() reaps it
        try:
            token = trio.lowlevel.current_trio_token()
            # The trio counterpart of call_soon: safe from any code, runs at a clean point.
            token.run_sync_soon(self._spawn_trio_reaper, trio)
        except RuntimeError:
            return  # outside trio's run, or the run is finishing: close() reaps it

    def _spawn_trio_reaper(self, trio: Any) -> None:
        if not self._dropped:
            return
        done = trio.Event()  # close() waits on it as it awaits an asyncio reaper task
        self._reapers.add(done)

        async def reap() -> None:
            try:
                await self._reap_dropped()  # never raises: a system task's error is fatal
            finally:
                done.set()
                self._reapers.discard(done)

        trio.lowlevel.spawn_system_task(reap)

    def _spawn_reaper(self, loop: Any) -> None:
        if not self._dropped or loop.is_closed():
            return
        task = loop.create_task(self._reap_dropped())
        self._reapers.add(task)
        task.add_done_callback(self._reapers.discard)

    async def _reap_dropped(self) -> None:
        while self._dropped:
            await _close_quietly(self._dropped.pop())

    async def close_all(self, reason: str) -> None:
        """Close every known stream in this task and wait for reaper tasks (``iModel.close``)."""
        for ref, agen in list(self._live.items()):
            handle = ref()
            if handle is not None:
                if handle._running is None and handle._reaped is None:
                    # Never read: it owns nothing, and its first read goes through the closed
                    # model's refusal, which ends a prepared call ABORTED. Marked reaped, that
                    # read raised without touching the call, left PENDING for good.
                    continue
                handle._reaped = reason
                handle._running = None
            if not _is_running(agen):  # a running one was cancelled by admission close
                await _close_quietly(agen)
        self._live.clear()
        await self._reap_dropped()
        for task in list(self._reapers):
            if hasattr(task, "wait"):  # a trio reaper's done event
                await task.wait()
            else:
                await task


class _Forget(StreamLink):
    """What a stream's generator calls when it ends: drop its registry entry.

    A slotted object rather than a closure (no cells, no function object): it is made for every
    stream and lives as long as the stream. It holds the handle only weakly, as the entry's
    key, so the generator that keeps it never keeps its own handle alive. As a `StreamLink` it
    is also how the handle stops its call from another task; ``finished`` is the event such a
    stop waits on (made only then), set when the generator ends.
    """

    __slots__ = ("_live", "_ref", "finished")

    def __init__(self, live: dict[weakref.ref[ModelStream], _Gen], ref: weakref.ref[ModelStream]):
        super().__init__()
        self._live = live
        self._ref = ref
        self.finished: anyio.Event | None = None

    def __call__(self) -> None:
        self._live.pop(self._ref, None)
        finished = self.finished
        if finished is not None:
            finished.set()


def _dropped(registry: weakref.ref[StreamRegistry], ref: weakref.ref[ModelStream]) -> None:
    owner = registry()
    if owner is not None:
        owner._on_dropped(ref)


async def _close_quietly(agen: _Gen) -> None:
    """Close a generator nobody consumes any more; its errors have no caller to reach."""
    try:
        await agen.aclose()
    except RuntimeError as exc:
        if "already running" not in str(exc):
            logger.warning("closing an abandoned stream failed", exc_info=True)
    except Exception:
        logger.warning("closing an abandoned stream failed", exc_info=True)

"""ChunkBatches: an agentic chunk stream produced a batch at a time (issue 15, agentic path).

A CLI prints many events per pipe read. Handing them up one chunk per ``__anext__`` made every
chunk cross each layer between the run loop and the caller (the adapter's loop, the contract
guard, the endpoint's guard, the supervisor): an async-generator step per layer per chunk, which
cost as much as reading and parsing the event. A producer that knows its natural batch (the
events of one read) yields lists instead; the layers pass a list on in one step and touch each
chunk only for their own check.

:class:`ChunkBatches` keeps the per-chunk interface (``AsyncIterator[StreamChunk]``) for every
caller that wants it, and offers the batches to the ones that can take them:
:meth:`AgenticEndpoint._stream_agentic` may return one, and :meth:`AgenticEndpoint.stream`
returns one whose batches the supervisor reads through ``stream_batches``. An adapter hook that
is wrapped (a conformance probe returning the hook's own iterator) keeps the batches; one that
yields chunks from its own generator is read one chunk per batch, as before.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Iterator

from ..._base.chunk import StreamChunk

__all__ = ["ChunkBatches"]

_UNSTARTED: Iterator[StreamChunk] = iter(())  # shared and exhausted: nothing taken per chunk yet


class ChunkBatches(AsyncIterator[StreamChunk]):
    """Chunks read one at a time from a generator of non-empty chunk lists.

    Each list is handed over: the producer neither keeps nor reuses it, so a consumer may
    shorten it (the contract guard cuts a list at a violation). Take the lists with
    `batches` or the chunks by iterating, not both. `aclose` closes the producer.
    """

    __slots__ = ("_agen", "_pending")

    def __init__(self, batches: AsyncGenerator[list[StreamChunk], None]) -> None:
        """Wrap `batches` (not started yet)."""
        self._agen = batches
        self._pending: Iterator[StreamChunk] = _UNSTARTED

    def __aiter__(self) -> ChunkBatches:
        return self

    async def __anext__(self) -> StreamChunk:
        for chunk in self._pending:
            return chunk
        agen = self._agen
        while True:
            self._pending = pending = iter(await agen.__anext__())
            for chunk in pending:
                return chunk

    def batches(self) -> AsyncGenerator[list[StreamChunk], None]:
        """The producer's lists themselves (closing either closes the producer).

        Raises:
            RuntimeError: chunks were already taken one at a time.
        """
        if self._pending is not _UNSTARTED:
            raise RuntimeError("this chunk stream is already being iterated chunk by chunk")
        return self._agen

    async def aclose(self) -> None:
        """Stop early: close the producer (its process, task or client); idempotent."""
        await self._agen.aclose()

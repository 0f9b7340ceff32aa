"""The normalized agentic output contract, enforced and folded (ADR-0030 D3).

:func:`enforce_agentic_contract` sits between an adapter's projection and the caller so an
adapter that breaks D3 fails loudly with :class:`ProviderProtocolError` instead of handing
consumers an ambiguous stream. :func:`collect_call_result` folds a normalized stream into the
one-shot :class:`AgenticCallResult`.

Retraction: a provider may withdraw a message it already streamed (Claude Code, when a refused
answer is retried on a fallback model, withdraws the refused partial). Two metadata keys carry
that, for the one-shot fold to honour:

- `metadata["message_id"]` on a `text` chunk: the provider's id of the message the text belongs
  to (a string; every chunk of that message, its deltas too, carries the same id).
- `metadata["retracted_message_ids"]` on a `system` chunk: a list of such ids the provider
  withdrew. `collect_call_result` leaves every text unit of those messages out of `result`,
  wherever they came in the stream; text without a `message_id` is never removed, and an
  unknown id is ignored.

`stream()` is not filtered: its consumer got the text live and gets the notice too, and is left
to act on it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable
from typing import Any, NoReturn

from ..._base.chunk import CHUNK_TYPES, StreamChunk
from ..._base.errors import ProviderProtocolError, ProviderStreamError
from ..classify import classify_stream_error
from .batches import ChunkBatches
from .records import AgenticCallResult, AgenticCapabilities

__all__ = [
    "ContractCheck",
    "collect_call_result",
    "enforce_agentic_contract",
    "enforce_agentic_contract_batches",
]

logger = logging.getLogger("lionagi.service")

_CONTENT_TYPES = frozenset({"text", "thinking", "tool_use", "tool_result"})


# Kinds whose only D3 rules are "not after the result or an error", "is_error unset" and (for a
# non-resumable adapter) "no session_id": a chunk of one of them that passes those three cheap
# tests passes the whole check, so a batch of text deltas costs a few comparisons per chunk.
_PLAIN_TYPES = frozenset({"text", "thinking", "tool_result"})
_NOTHING: frozenset[str] = frozenset()


class ContractCheck:
    """Per-stream state for the D3 ordering rules.

    Used by the guards below, and inline by the shared CLI run loop, which checks each batch
    where it makes it instead of handing it through one more generator (issue 15).

    ``plain`` is the set of kinds the fast path may pass: :data:`_PLAIN_TYPES` until a result
    or an error chunk was seen, empty after (every later chunk takes the full check, which
    rejects it or applies the rules that remain).
    """

    __slots__ = (
        "index",
        "on_session",
        "pending_session",
        "plain",
        "resumable",
        "seen_error",
        "seen_result",
    )

    def __init__(self, resumable: bool, on_session: Callable[[str], None] | None = None) -> None:
        self.resumable = resumable
        self.on_session = on_session if resumable else None
        self.pending_session: str | None = None
        self.index = -1
        self.seen_error = False
        self.seen_result = False
        self.plain = _PLAIN_TYPES

    def check_batch(self, batch: list[Any]) -> ProviderProtocolError | None:
        """Check ``batch`` in order; at a violation cut it before the bad chunk, return the error.

        The chunks before a violation are still delivered (as a per-chunk guard delivers them
        before raising); the caller raises the returned error after passing the cut batch on.
        A batch of plain chunks (almost every batch of a run) passes on the cheap test alone;
        any other batch is walked through the full :meth:`check`, chunk by chunk.
        """
        plain = self.plain
        resumable = self.resumable
        for item in batch:
            if (
                type(item) is not StreamChunk
                or item.type not in plain
                or item.is_error
                or (not resumable and "session_id" in item.metadata)
            ):
                return self._check_each(batch)
        self.index += len(batch)
        return None

    def _check_each(self, batch: list[Any]) -> ProviderProtocolError | None:
        for pos, item in enumerate(batch):
            try:
                self.check(item)
            except ProviderProtocolError as exc:
                del batch[pos:]
                return exc
        return None

    def check(self, item: object) -> StreamChunk:
        self.index += 1
        if not isinstance(item, StreamChunk):
            self._fail(f"yielded {type(item).__name__}, not a StreamChunk")
        chunk = item
        kind = chunk.type
        if kind not in CHUNK_TYPES:
            self._fail(f"unknown chunk type {kind!r}")
        if self.seen_error:
            self._fail(f"{kind} chunk after an error chunk; an error chunk must be last")
        if kind == "error":
            if not chunk.is_error:
                self._fail("error chunk with is_error=False; the two fields must agree")
            self.seen_error = True
            self.plain = _NOTHING
        elif chunk.is_error and kind != "tool_result":
            self._fail(f"{kind} chunk with is_error=True; only error and tool_result may set it")
        if kind == "result":
            if self.seen_result:
                self._fail("more than one result chunk")
            self.seen_result = True
            self.plain = _NOTHING
        elif kind in _CONTENT_TYPES and self.seen_result:
            self._fail(f"{kind} chunk after the result chunk")
        if kind == "system" and chunk.content:
            self._fail("system chunk carries content; assistant text belongs in text chunks")
        if kind == "tool_use" and not chunk.tool_name:
            self._fail("tool_use chunk without tool_name")
        if not self.resumable and "session_id" in chunk.metadata:
            self._fail(
                "metadata 'session_id' from a non-resumable adapter; "
                "publish an observed id as 'provider_session_id'"
            )
        if self.on_session is not None and (kind == "system" or kind == "result"):
            session_id = chunk.metadata.get("session_id")
            if isinstance(session_id, str):
                self.pending_session = session_id  # stored if the run completes (commit)
        return chunk

    def commit(self) -> None:
        """The run completed: store the session id it announced (``on_session``).

        Only then: a CLI announces its session when a run starts (pi's header) or reports one
        for a run that went wrong (Gemini CLI's loop detection), and a run cut off by the
        deadline, a failure or the consumer may never have saved it. Stored anyway, that id made
        every later call of the model fail to resume ("No session found"); not stored, the
        model keeps the id of its last completed run.
        """
        session_id, self.pending_session = self.pending_session, None
        on_session = self.on_session
        if session_id is not None and on_session is not None and not self.seen_error:
            on_session(session_id)

    def _fail(self, reason: str) -> NoReturn:
        raise ProviderProtocolError(
            f"agentic output contract violated at chunk {self.index}: {reason}"
        )


async def enforce_agentic_contract(
    chunks: AsyncIterator[StreamChunk], *, capabilities: AgenticCapabilities
) -> AsyncGenerator[StreamChunk, None]:
    """Pass chunks through unchanged, raising ProviderProtocolError on the first D3 violation.

    The inner iterator is closed on every path (EOF, violation, provider error, cancellation,
    consumer `aclose`), and nothing is yielded during cleanup. A failure while closing the
    inner iterator is logged, not raised, when another exception is already propagating.
    """
    check = ContractCheck(capabilities.resumable)
    primary: BaseException | None = None
    try:
        async for item in chunks:
            yield check.check(item)
    except GeneratorExit:
        raise
    except BaseException as exc:
        primary = exc
        raise
    finally:
        await _aclose(chunks, primary)


async def enforce_agentic_contract_batches(
    open_run: Callable[[], tuple[AsyncIterator[StreamChunk], AgenticCapabilities]],
    *,
    on_session: Callable[[str], None] | None = None,
) -> AsyncGenerator[list[StreamChunk], None]:
    """:func:`enforce_agentic_contract` handing on lists of chunks, one per producer batch.

    ``open_run()`` runs at the first iteration and returns the adapter's chunks and its
    capabilities: the endpoint's validation and the adapter hook run there, inside this one
    generator, so a batch crosses no extra pass-through layer on its way up. A
    :class:`ChunkBatches` is read a batch at a time (a CLI run: up to 128 events of one pipe
    read each), any other iterator one chunk per list. Every chunk gets the same D3 check; at a
    violation the chunks before it are passed on, then ProviderProtocolError is raised.
    ``on_session`` receives the ``session_id`` a resumable adapter confirmed on a system or
    result chunk that passed the check, once the run has completed
    (:meth:`ContractCheck.commit`). The inner iterator is closed on every path, as by
    :func:`enforce_agentic_contract`.
    """
    chunks, capabilities = open_run()
    check = ContractCheck(capabilities.resumable, on_session)
    primary: BaseException | None = None
    try:
        if isinstance(chunks, ChunkBatches):
            async for batch in chunks.batches():
                violation = check.check_batch(batch)
                if batch:
                    yield batch
                if violation is not None:
                    raise violation
        else:
            async for item in chunks:
                yield [check.check(item)]
        check.commit()
    except GeneratorExit:
        raise
    except BaseException as exc:
        primary = exc
        raise
    finally:
        await _aclose(chunks, primary)


async def _aclose(chunks: object, primary: BaseException | None) -> None:
    aclose = getattr(chunks, "aclose", None)
    if aclose is None:
        return
    if primary is None:
        await aclose()
        return
    try:
        await aclose()
    except Exception:
        logger.warning("closing an agentic stream failed after %r", type(primary), exc_info=True)


async def collect_call_result(
    chunks: AsyncIterable[StreamChunk],
    *,
    stream_error: Callable[[StreamChunk], ProviderStreamError] | None = None,
) -> AgenticCallResult:
    """Fold a normalized chunk stream into the one-shot mapping.

    Text chunks are joined in order: `is_delta` chunks continue the current unit (when they
    carry the unit's `message_id`, or neither has one), a complete chunk starts a new one, and
    units are separated by a blank line; the result chunk's content (terminal text not already
    emitted) is appended as the last unit. The units of a message a system chunk lists in
    `retracted_message_ids` are left out (see the module docstring). `session_id`, `model`
    and `usage` come from result metadata, falling back to system metadata. An error chunk
    raises ProviderStreamError so a failed run never looks like a successful empty result: the
    error `stream_error` builds from the chunk (an endpoint passes its
    `stream_error`, the one `stream()` raises too), else
    `classify_stream_error` with the default patterns. The iterator is
    closed before returning or raising.
    """
    units: list[list[str]] = []  # each unit's pieces, joined once at the end (not += per delta)
    owners: dict[int, str] = {}  # unit index -> the message id it came from, when it has one
    owner: str | None = None  # the last unit's message id
    retracted: set[str] = set()
    system_meta: dict[str, Any] = {}
    result_meta: dict[str, Any] = {}
    try:
        async for chunk in chunks:
            if chunk.type == "text" and chunk.content:
                message_id = chunk.metadata.get("message_id")
                if message_id is not None and type(message_id) is not str:
                    message_id = None
                if chunk.is_delta and units and message_id == owner:
                    units[-1].append(chunk.content)
                else:
                    owner = message_id
                    if message_id is not None:
                        owners[len(units)] = message_id
                    units.append([chunk.content])
            elif chunk.type == "system":
                system_meta.update(chunk.metadata)
                if "retracted_message_ids" in chunk.metadata:
                    _retract(retracted, chunk.metadata["retracted_message_ids"])
            elif chunk.type == "result":
                result_meta = dict(chunk.metadata)
                if chunk.content:
                    owner = None
                    units.append([chunk.content])
            elif chunk.type == "error":
                if stream_error is not None:
                    raise stream_error(chunk)
                raise classify_stream_error(chunk.content, chunk.metadata)
    finally:
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:
            await aclose()

    if retracted and owners:
        units = [unit for i, unit in enumerate(units) if owners.get(i) not in retracted]

    def pick(key: str) -> Any:
        value = result_meta.get(key)
        return value if value not in (None, "") else system_meta.get(key) or None

    usage = pick("usage")
    metadata = dict(result_meta)
    observed = system_meta.get("provider_session_id")
    if observed and "provider_session_id" not in metadata:
        metadata["provider_session_id"] = observed
    return AgenticCallResult(
        result="\n\n".join("".join(pieces) for pieces in units),
        session_id=pick("session_id"),
        model=pick("model"),
        usage=dict(usage) if isinstance(usage, dict) else {},
        metadata=metadata,
    )


def _retract(retracted: set[str], ids: object) -> None:
    """Add the string ids of a `retracted_message_ids` list to ``retracted``.

    Anything else is ignored rather than raised: the notice is advisory, and a malformed one
    must not fail a run the provider completed (a string is not read as a list of letters).
    """
    if isinstance(ids, list | tuple):
        retracted.update(item for item in ids if type(item) is str)

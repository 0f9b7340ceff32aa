"""Exa's ``/answer`` stream, read as the chat-completions stream it is, plus Exa's sources.

``/search`` streams the same grammar (``"stream": true``; exa-py ``stream_search`` reads it
with a subclass of its answer-stream reader, exa-js ``streamSearch`` with the same function as
``streamAnswer``), so it is read by the same projector, named for its own errors.

With ``"stream": true`` Exa answers ``POST /answer`` with server-sent events whose data are JSON
objects in the chat-completions chunk shape plus Exa's sources: the answer's text arrives as
``choices[].delta.content`` and the cited pages as a top-level ``citations`` list (the same
objects the one-shot body lists: ``id``, ``url``, ``title``, ``publishedDate``, ``author``,
``text``). That is how Exa's own SDKs read it (exa-py ``StreamAnswerResponse``, exa-js
``streamAnswer``); both skip a ``[DONE]`` sentinel, which closes the stream as it closes the
chat-completions stream Exa's OpenAI-compatible ``/chat/completions`` (routed to ``/answer``)
sends.

So the projector is core's chat projector (text deltas, finish reason, usage, the end rule:
``[DONE]`` completes, EOF only after a ``finish_reason``) with Exa's grammar on top:

- each ``citations`` list -> a ``system`` chunk (no content) carrying it as
  ``metadata["citations"]``, in stream order (not a ``text`` chunk: it adds no answer text,
  and a consumer joining the text must not meet an empty non-delta piece); both SDKs skip a
  ``null`` (and the string ``"null"``, which they test for explicitly) as "no citations in
  this event";
- an event of sources only (no ``choices``) is Exa's, not a broken chat chunk; one carrying
  none of ``choices``, ``citations``, ``error``, ``requestId`` and ``costDollars`` breaks the
  grammar and is refused, never skipped;
- the result chunk adds every citation of the stream, in order (``citations``, what the
  one-shot body's ``citations`` holds), and Exa's ``requestId``/``costDollars`` when an event
  carried them;
- Exa's error object is ``{"requestId", "error": "<message>", "tag": "<TAG>"}``: one ``error``
  chunk whose code is the tag.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from lionagi.service import StreamChunk
from lionagi.service.http import NO_CHUNKS, ChatCompletionsProjector, json_kind

__all__ = ["ExaAnswerProjector", "ExaSearchProjector", "exa_error_object"]


def exa_error_object(event: dict[str, Any]) -> Any:
    """The error object of an Exa event or body that carries a truthy ``error``.

    Exa's own is ``{"requestId", "error": "<message>", "tag": "<TAG>"}``: read as the message
    with the tag as its code. An ``error`` that is already an object (a chat-style error) is
    returned as it is. Shared by the stream and the one-shot body, so both classify alike.
    """
    error = event["error"]
    if isinstance(error, dict):
        return error
    tag = event.get("tag")
    return {"message": error, "code": tag if isinstance(tag, str) else None}


class ExaAnswerProjector(ChatCompletionsProjector):
    """``POST /answer`` with ``stream: true``: answer text, then the result with its sources."""

    __slots__ = ("_citations",)

    grammar = "Exa answer stream"
    # Answer-level members beside (or instead of) choices; the last value of each goes on the
    # result chunk.
    result_fields: ClassVar[tuple[str, ...]] = ("requestId", "costDollars")

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(secrets)
        self._citations: list[Any] = []

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Project one event: the chat chunk's own chunks, then its citations."""
        if type(event) is not dict:
            raise self.protocol_error(f"event is JSON {json_kind(event)}, not an object", event)
        error = event.get("error")
        if error and not isinstance(error, dict):
            self.started = True
            return self.error_chunk(exa_error_object(event))
        sources = self._sources(event)
        if error or "choices" in event:
            chunks = super().feed(event)
            return [*chunks, sources] if sources is not None and not error else chunks
        self.started = True
        if "citations" not in event and not any(name in event for name in self.result_fields):
            raise self.protocol_error(
                "unrecognized event (no 'choices', 'citations', 'error', 'requestId' or "
                "'costDollars')",
                event,
            )
        for name in self.result_fields:
            if name in event:
                self._fields[name] = event[name]
        return (sources,) if sources is not None else NO_CHUNKS

    def _sources(self, event: dict[str, Any]) -> StreamChunk | None:
        """The event's citations as a ``system`` chunk (kept for the result), else None."""
        citations = event.get("citations")
        if citations is None or citations == "null":
            return None
        if type(citations) is not list:
            raise self.protocol_error(
                f"'citations' is JSON {json_kind(citations)}, not a list", event
            )
        if not citations:
            return None
        self._citations.extend(citations)
        return StreamChunk(type="system", metadata={"citations": citations})

    def end(self, *, eof: bool) -> Sequence[StreamChunk]:
        """The chat end rule; the result chunk also lists every citation of the stream."""
        chunks = super().end(eof=eof)
        if chunks and chunks[-1].type == "result":
            chunks[-1].metadata["citations"] = self._citations
        return chunks


class ExaSearchProjector(ExaAnswerProjector):
    """``POST /search`` with ``stream: true``: the answer stream's grammar, on another path.

    A subclass only so that a protocol error names the stream the caller asked for.
    """

    __slots__ = ()

    grammar = "Exa search stream"

"""Exa's ``/answer`` stream, projected to the chunk types every endpoint yields.

With ``"stream": true`` Exa answers ``POST /answer`` with server-sent events whose data are JSON
objects in the chat-completions chunk shape plus Exa's sources: the answer's text arrives as
``choices[].delta.content`` and the cited pages as a top-level ``citations`` list (the same
objects the one-shot body lists: ``id``, ``url``, ``title``, ``publishedDate``, ``author``,
``text``). That is how Exa's own SDKs read it (exa-py ``StreamAnswerResponse``, exa-js
``streamAnswer``); both skip a ``[DONE]`` sentinel, which closes the stream as it closes the
chat-completions stream Exa's OpenAI-compatible ``/chat/completions`` (routed to ``/answer``)
sends.

Projection:

- each non-empty ``delta.content`` -> a ``text`` chunk (``is_delta=True``);
- each ``citations`` list -> a ``system`` chunk (no content) carrying it as
  ``metadata["citations"]``, in stream order (not a ``text`` chunk: it adds no answer text,
  and a consumer joining the text must not meet an empty non-delta piece); both SDKs skip a
  ``null`` (and the string ``"null"``, which they test for explicitly) as "no citations in
  this event";
- the end -> one ``result`` chunk whose metadata adds to ``usage``/``model``/``finish_reason``
  every citation of the stream, in order (``citations``, what the one-shot body's
  ``citations`` holds) and Exa's ``requestId``/``costDollars`` when an event carried them;
- an event with an ``error`` -> one ``error`` chunk (Exa's error object is
  ``{"requestId", "error": "<message>", "tag": "<TAG>"}``: the tag is its code).

The end: ``[DONE]`` completes; EOF completes only after a choice's ``finish_reason`` (the chat
rule); a started stream that ends with neither was cut, and is a protocol error. An event that
is not a JSON object, or that carries none of ``choices``, ``citations``, ``error``,
``requestId`` and ``costDollars``, breaks the grammar and is refused, never skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lionagi.service import StreamChunk
from lionagi.service.http import NO_CHUNKS, ProjectorBase, json_kind

__all__ = ["ExaAnswerProjector"]

# Answer-level members an event may carry beside (or instead of) choices and citations; the
# last value of each is kept on the result chunk.
_ANSWER_FIELDS = ("requestId", "costDollars")


class ExaAnswerProjector(ProjectorBase):
    """``POST /answer`` with ``stream: true``: answer text, then the result with its sources."""

    __slots__ = ("_citations", "_fields", "_finish_reason", "_model", "_usage")

    grammar = "Exa answer stream"

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(secrets)
        self._citations: list[Any] = []
        self._fields: dict[str, Any] = {}
        self._finish_reason: Any = None
        self._model: Any = None
        self._usage: Any = None

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Project one event: its text deltas, then its citations."""
        if type(event) is not dict:
            raise self.protocol_error(f"event is JSON {json_kind(event)}, not an object", event)
        self.started = True
        if event.get("error"):
            return self._error(event)
        understood = False
        out: list[StreamChunk] = []
        if "choices" in event:
            understood = True
            self._choices(event, out)
        if "citations" in event:
            understood = True
            citations = event["citations"]
            if citations is not None and citations != "null":
                if type(citations) is not list:
                    raise self.protocol_error(
                        f"'citations' is JSON {json_kind(citations)}, not a list", event
                    )
                if citations:
                    self._citations.extend(citations)
                    out.append(StreamChunk(type="system", metadata={"citations": citations}))
        for name in _ANSWER_FIELDS:
            if name in event:
                understood = True
                self._fields[name] = event[name]
        if not understood:
            raise self.protocol_error(
                "unrecognized event (no 'choices', 'citations', 'error', 'requestId' or "
                "'costDollars')",
                event,
            )
        model = event.get("model")
        if model:
            self._model = model
        usage = event.get("usage")
        if usage:
            self._usage = usage
        return out

    def _choices(self, event: dict[str, Any], out: list[StreamChunk]) -> None:
        choices = event["choices"]
        if type(choices) is not list:
            raise self.protocol_error(f"'choices' is JSON {json_kind(choices)}, not a list", event)
        for position, choice in enumerate(choices):
            if type(choice) is not dict:
                raise self.protocol_error(f"choice {position} is not a JSON object", event)
            index = choice.get("index") or 0
            delta = choice.get("delta")
            if delta is not None:
                if type(delta) is not dict:
                    raise self.protocol_error(
                        f"choice {position}'s 'delta' is not an object", event
                    )
                content = delta.get("content")
                if content is not None and not isinstance(content, str):
                    raise self.protocol_error(
                        f"choice {position}'s 'delta.content' is JSON {json_kind(content)}, "
                        "not text",
                        event,
                    )
                if content:
                    meta: dict[str, Any] = {"index": index} if index else {}
                    out.append(
                        StreamChunk(type="text", content=content, is_delta=True, metadata=meta)
                    )
            finish = choice.get("finish_reason")
            if finish:
                self._finish_reason = finish

    def _error(self, event: dict[str, Any]) -> Sequence[StreamChunk]:
        """Exa's error object (its ``tag`` is the code), or a nested error object as it is.

        Exa documents its error object for error statuses; a stream that fails after its 200
        is read the same way rather than refused as an unknown event, so the failure is
        reported as the provider's, with its message and tag.
        """
        error = event["error"]
        if isinstance(error, dict):
            return self.error_chunk(error)
        tag = event.get("tag")
        return self.error_chunk({"message": error, "code": tag if isinstance(tag, str) else None})

    def end(self, *, eof: bool) -> Sequence[StreamChunk]:
        """``[DONE]`` completes; EOF completes only after a ``finish_reason``."""
        if self.done:
            return NO_CHUNKS
        self.done = True
        if not self.started:
            return NO_CHUNKS
        if eof and self._finish_reason is None:
            raise self.truncated()
        result = self.result_chunk(self._usage, self._model, self._finish_reason)
        result.metadata["citations"] = self._citations
        result.metadata.update(self._fields)
        return (result,)

"""Perplexity's chat completions: search filters in the request, sources kept on the result.

Perplexity answers with top-level ``citations``, ``search_results`` (and, when asked,
``images`` and ``related_questions``) beside ``choices``. A one-shot body keeps them as sent;
on a stream :class:`PerplexityProjector` copies the last value of each onto the result chunk's
metadata, so ``stream()`` loses nothing ``invoke()`` has.

Messages are checked as core checks the dialect's, plus the content part Perplexity documents
for a user message's attachments: ``{"type": "file_url", "file_url": {"url": ...} | "...",
"file_name": ...}`` (a document by URL or as base64).

``stream_mode: "concise"`` streams another grammar (``chat.reasoning``, ``chat.reasoning.done``,
``chat.completion.chunk``, ``chat.completion.done`` chunk objects), read by
:class:`PerplexityConciseProjector`. :class:`PerplexityChat` picks it per stream from the payload
(``Endpoint.stream_projector``): read by :class:`PerplexityProjector` instead, such a stream
would complete while silently dropping every reasoning step (its chat grammar knows no
``delta.reasoning_steps``), the very output concise mode is asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal, Required

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, with_config
from typing_extensions import TypedDict

from lionagi.service import OpenAIChatCompletionsRequest, StreamChunk, lazy_chat_shapes
from lionagi.service.http import (
    NO_CHUNKS,
    ChatCompletionsProjector,
    OpenAIChatEndpoint,
    StreamProjector,
    TokenCounts,
    first_count,
    json_kind,
    sum_counts,
)

__all__ = [
    "PerplexityChat",
    "PerplexityChatRequest",
    "PerplexityConciseProjector",
    "PerplexityFilePart",
    "PerplexityProjector",
    "PerplexityWebSearchOptions",
]

_DATE = r"^\d{1,2}/\d{1,2}/\d{4}$"  # Perplexity's date filters are %m/%d/%Y


class PerplexityWebSearchOptions(BaseModel):
    """``web_search_options``: how much search context to use, and where the user is."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    search_context_size: Literal["low", "medium", "high"] | None = None
    search_type: Literal["fast", "pro", "auto"] | None = None
    user_location: dict[str, str | float] | None = None
    # The API reference's name, and the older one its SDKs and examples still send.
    image_results_enhanced_relevance: bool | None = None
    image_search_relevance_enhanced: bool | None = None


class PerplexityFileURL(BaseModel):
    """``file_url`` of a file part, as an object: the document's URL (or base64 data)."""

    model_config = ConfigDict(extra="forbid", defer_build=True, hide_input_in_errors=True)

    url: str


class PerplexityFilePart(BaseModel):
    """A document attached to a user message: ``{"type": "file_url", "file_url": ...}``."""

    model_config = ConfigDict(extra="forbid", defer_build=True, hide_input_in_errors=True)

    type: Literal["file_url"]
    file_url: PerplexityFileURL | str
    file_name: str | None = None


_FORBID = ConfigDict(extra="forbid", hide_input_in_errors=True)


@with_config(_FORBID)
class _JSONSchemaSpec(TypedDict, total=False):
    schema: Required[dict[str, Any]]
    name: str | None
    description: str | None
    strict: StrictBool | None


@with_config(_FORBID)
class _RegexSpec(TypedDict, total=False):
    regex: Required[str]
    name: str | None
    description: str | None
    strict: StrictBool | None


@with_config(_FORBID)
class _TextFormat(TypedDict):
    type: Literal["text"]


@with_config(_FORBID)
class _JSONSchemaFormat(TypedDict):
    type: Literal["json_schema"]
    json_schema: _JSONSchemaSpec


@with_config(_FORBID)
class _RegexFormat(TypedDict):
    type: Literal["regex"]
    regex: _RegexSpec


PerplexityResponseFormat = Annotated[
    _TextFormat | _JSONSchemaFormat | _RegexFormat, Field(discriminator="type")
]
"""``response_format`` as Perplexity documents it: OpenAI's ``text`` and ``json_schema``
(``name`` optional) plus its own ``regex`` (``{"type": "regex", "regex": {"regex": ...}}``).
TypedDicts, not models: the value stays the caller's mapping, and ``schema`` is a key here, which
a model field would shadow. ``json_object`` is not Perplexity's, so it is refused."""


class PerplexityChatRequest(OpenAIChatCompletionsRequest):
    """Perplexity's chat request: the OpenAI fields plus its search controls.

    The fields of Perplexity's chat-completions reference. ``stream_mode`` is ``"full"`` (the
    default) or ``"concise"``, whose stream :class:`PerplexityChat` reads with
    :class:`PerplexityConciseProjector` (the mode shapes only a stream, per Perplexity's
    stream-mode guide).
    ``response_format`` is retyped (:data:`PerplexityResponseFormat`): core's OpenAI shapes
    refused Perplexity's ``regex`` format.
    """

    shapes = lazy_chat_shapes("PerplexityChat", user_parts={"file_url": PerplexityFilePart})

    search_mode: Literal["web", "academic", "sec"] | None = None
    disable_search: bool | None = None
    enable_search_classifier: bool | None = None
    search_domain_filter: list[str] | None = None
    search_language_filter: list[str] | None = None  # ISO 639-1 codes
    search_recency_filter: Literal["hour", "day", "week", "month", "year"] | None = None
    search_after_date_filter: str | None = Field(default=None, pattern=_DATE)
    search_before_date_filter: str | None = Field(default=None, pattern=_DATE)
    last_updated_after_filter: str | None = Field(default=None, pattern=_DATE)
    last_updated_before_filter: str | None = Field(default=None, pattern=_DATE)
    return_images: bool | None = None
    image_format_filter: list[str] | None = None
    image_domain_filter: list[str] | None = None
    return_related_questions: bool | None = None
    web_search_options: PerplexityWebSearchOptions | None = None  # type: ignore[assignment]
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None
    language_preference: str | None = None  # ISO 639-1 code of the answer's language
    top_k: StrictInt | None = Field(default=None, ge=0, le=2048)
    stream_mode: Literal["full", "concise"] | None = None
    response_format: PerplexityResponseFormat | None = None  # type: ignore[assignment]


class PerplexityProjector(ChatCompletionsProjector):
    """The chat stream, with Perplexity's sources on the result chunk."""

    __slots__ = ()

    grammar = "Perplexity chat stream"
    result_fields: ClassVar[tuple[str, ...]] = (
        "citations",
        "search_results",
        "images",
        "related_questions",
    )


# The answer-level members of a concise stage's closing chunk the chat projector keeps.
_SUMMARY = ("model", "usage", *PerplexityProjector.result_fields)


class PerplexityConciseProjector(PerplexityProjector):
    """The ``stream_mode: "concise"`` stream: reasoning steps, the answer, then its sources.

    Perplexity's concise stream labels every chunk with ``object`` (its stream-mode guide):

    - ``chat.reasoning``: the reasoning stage's steps as they happen, in
      ``choices[].delta.reasoning_steps`` (``{"thought", "type", "web_search": {...}}``, ...).
      Each step is one ``thinking`` chunk (a complete unit, ``is_delta=False``) whose text is
      its ``thought`` and whose ``metadata["reasoning_step"]`` is the step as sent (its search
      keywords and results included);
    - ``chat.reasoning.done``: the stage's end, with the search results, images and partial
      usage; kept for the result chunk, nothing is emitted;
    - ``chat.completion.chunk``: the answer's deltas, read as the chat stream reads them;
    - ``chat.completion.done``: the terminal chunk, with the final usage (and cost), sources
      and ``finish_reason``. It ends the stream with the one ``result`` chunk: ``usage``,
      ``model``, ``finish_reason``, the sources (``result_fields``) and the final
      ``message.reasoning_steps`` as ``reasoning_steps``. Its ``message.content`` is the
      answer already streamed (the guide: "Final aggregated message"), so it is not sent again;
      only a choice whose answer no chunk streamed gets it, as one complete text chunk.

    Only ``chat.completion.done`` completes the stream: ``[DONE]`` or EOF before it means the
    stream was cut, a protocol error, not a finished answer without its usage. An error object
    ends it with an error chunk, as in the full stream; a chunk with another (or no) ``object``
    breaks the grammar and is refused.
    """

    __slots__ = ("_steps", "_streamed")

    grammar = "Perplexity concise stream"

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(secrets)
        self._steps: list[Any] | None = None
        self._streamed: set[int] = set()  # the choices whose answer text was streamed

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Project one concise chunk, routed by its ``object``."""
        if type(event) is not dict:
            raise self.protocol_error(f"event is JSON {json_kind(event)}, not an object", event)
        if event.get("error"):
            return super().feed(event)  # the chat stream's error chunk, usage kept
        kind = event.get("object")
        if kind == "chat.completion.chunk":
            return self._streaming(super().feed(event))
        if kind == "chat.reasoning":
            return self._streaming(self._reasoning(event))
        if kind == "chat.reasoning.done":
            self._summary(event, finished=False)
            return NO_CHUNKS
        if kind == "chat.completion.done":
            out = list(self._summary(event, finished=True))
            out.extend(super().end(eof=False))  # the chat stream's result chunk; done
            if self._steps is not None and out and out[-1].type == "result":
                out[-1].metadata["reasoning_steps"] = self._steps
            return out
        raise self.protocol_error(f"unrecognized chunk object {kind!r}", event)

    def _streaming(self, chunks: Sequence[StreamChunk]) -> Sequence[StreamChunk]:
        """``chunks``, noting the choices whose answer text they carry."""
        for chunk in chunks:
            if chunk.type == "text" and chunk.content:
                self._streamed.add(chunk.metadata.get("index", 0))
        return chunks

    def _choices(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        choices = event.get("choices")
        if choices is None:
            return []
        if type(choices) is not list or not all(type(c) is dict for c in choices):
            raise self.protocol_error("'choices' is not a list of objects", event)
        return choices

    def _reasoning(self, event: dict[str, Any]) -> Sequence[StreamChunk]:
        """A ``chat.reasoning`` chunk: each reasoning step as one thinking chunk."""
        super().feed({k: event[k] for k in _SUMMARY if k in event} | {"choices": []})
        out: list[StreamChunk] = []
        for choice in self._choices(event):
            index = choice.get("index") or 0
            delta = choice.get("delta")
            if delta is None:
                continue
            if type(delta) is not dict:
                raise self.protocol_error("a reasoning choice's 'delta' is not an object", event)
            content = delta.get("content")
            if content is not None and not isinstance(content, str):
                raise self.protocol_error("a reasoning delta's 'content' is not text", event)
            steps = delta.get("reasoning_steps")
            if steps is not None and type(steps) is not list:
                raise self.protocol_error("'delta.reasoning_steps' is not a list", event)
            for step in steps or ():
                thought = step.get("thought") if type(step) is dict else None
                if not isinstance(thought, str):
                    raise self.protocol_error("a reasoning step has no 'thought' text", step)
                meta: dict[str, Any] = {"reasoning_step": step}
                if index:
                    meta["index"] = index
                out.append(StreamChunk(type="thinking", content=thought, metadata=meta))
            if content:  # not seen in the guide's reasoning chunks; text is never dropped
                meta = {"index": index} if index else {}
                out.append(StreamChunk(type="text", content=content, is_delta=True, metadata=meta))
        return out

    def _summary(self, event: dict[str, Any], *, finished: bool) -> Sequence[StreamChunk]:
        """A stage's closing chunk: its sources, usage and model (and, at the end, the finish).

        Fed to the chat projector without the message it repeats, so its sources and usage
        are kept as a full-mode chunk's are and its finish reason flushes any tool call.
        """
        summary: dict[str, Any] = {k: event[k] for k in _SUMMARY if k in event}
        choices: list[dict[str, Any]] = []
        unstreamed: list[StreamChunk] = []
        for choice in self._choices(event):
            index = choice.get("index") or 0
            message = choice.get("message")
            content = message.get("content") if type(message) is dict else None
            if content is not None and not isinstance(content, str):
                raise self.protocol_error("'message.content' is not text", event)
            if finished and content and index not in self._streamed:
                meta: dict[str, Any] = {"index": index} if index else {}
                unstreamed.append(StreamChunk(type="text", content=content, metadata=meta))
            steps = message.get("reasoning_steps") if type(message) is dict else None
            if steps is not None:
                if type(steps) is not list:
                    raise self.protocol_error("'message.reasoning_steps' is not a list", event)
                self._steps = steps
            if finished:
                choices.append({"index": index, **_finish(choice)})
        summary["choices"] = choices
        return [*unstreamed, *super().feed(summary)]

    def end(self, *, eof: bool) -> Sequence[StreamChunk]:
        """Only ``chat.completion.done`` completes a started stream; ``[DONE]`` alone does not."""
        if self.done or not self.started:
            return super().end(eof=eof)
        self.done = True
        raise self.truncated()


def _finish(choice: dict[str, Any]) -> dict[str, Any]:
    reason = choice.get("finish_reason")
    return {"finish_reason": reason} if reason is not None else {}


class PerplexityChat(OpenAIChatEndpoint):
    """Perplexity chat completions (``https://api.perplexity.ai/chat/completions``).

    A stream is read with :class:`PerplexityProjector`, or with
    :class:`PerplexityConciseProjector` when its payload asks for ``stream_mode: "concise"``.
    """

    projector: ClassVar[type[StreamProjector] | None] = PerplexityProjector

    def stream_projector(self, payload: Mapping[str, Any]) -> type[StreamProjector]:
        """The concise grammar for a ``"concise"`` stream, the class's ``projector`` otherwise.

        Read from the payload as created, once per stream: ``stream_mode`` is validated there
        (``"full"``, ``"concise"`` or absent), so nothing else needs telling apart.
        """
        if payload.get("stream_mode") == "concise":
            return PerplexityConciseProjector
        return super().stream_projector(payload)

    def token_counts(self, usage: Mapping[str, Any]) -> tuple[int | None, int | None]:
        """The dialect's counts, with a deep-research call's citation and reasoning tokens.

        ``sonar-deep-research`` reports ``citation_tokens`` (the search material it read,
        billed as input) and ``reasoning_tokens`` (its research reasoning) apart from
        ``prompt_tokens`` and ``completion_tokens``: ``total_tokens`` is those two alone, and
        the ``cost`` prices the reasoning and the completion separately. Read as the dialect
        reads them, a call's output was its answer alone and no reasoning count was recorded;
        here the citations are added to the input and the reasoning to the output (the
        conventions count reasoning inside the output, as OpenAI's record already does). The
        rest of the record (``num_search_queries``, ``cost``) stays on the result's usage as
        sent; telemetry has no attribute for it.
        """
        counts = super().token_counts(usage)
        citations = first_count(usage, "citation_tokens")
        reasoning = first_count(usage, "reasoning_tokens")
        if citations is None and reasoning is None:
            return counts
        return TokenCounts(
            sum_counts(counts[0], citations),
            sum_counts(counts[1], reasoning),
            cache_read=getattr(counts, "cache_read", None),
            cache_creation=getattr(counts, "cache_creation", None),
            reasoning=reasoning if reasoning is not None else getattr(counts, "reasoning", None),
        )

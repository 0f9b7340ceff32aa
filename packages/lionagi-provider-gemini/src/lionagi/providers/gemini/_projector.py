"""Native Gemini stream events (``GenerateContentResponse`` chunks) to :class:`StreamChunk`.

``streamGenerateContent?alt=sse`` sends one ``GenerateContentResponse`` per SSE ``data:`` line.
Each carries ``candidates[].content.parts``: ``text`` (``thought: true`` for a thought summary),
a whole ``functionCall`` (Gemini never streams arguments), or the code-execution parts. The
chunk that ends a candidate has its ``finishReason``; ``usageMetadata`` and ``modelVersion``
arrive on chunks as they go, the last value being the total. There is no terminal event: the
stream ends with the connection, so a stream completes at EOF only after a ``finishReason``.

Projection:

- text parts -> ``text`` deltas; ``thought: true`` parts -> ``thinking`` deltas;
- ``functionCall`` -> one ``tool_use`` per call, its ``id`` kept when the API sends one, else a
  stable id made from the call's position in the stream (``gemini-call-<n>``), since older
  responses carry none and a caller needs an id to pair the call with its answer; a made-up id
  is marked ``metadata["synthetic_id"] = True``, so a caller knows not to send it back as
  ``functionResponse.id`` (the API never issued it);
- ``executableCode`` -> ``tool_use`` named ``code_execution``; ``codeExecutionResult`` ->
  ``tool_result`` (``is_error`` unless the outcome is ``OUTCOME_OK``); both keep the ``id`` the
  API gives them (the result's names its code part); without one the code gets
  ``gemini-call-<n>`` (``synthetic_id``) and the result answers the code part before it;
- ``toolCall`` / ``toolResponse`` (a built-in tool the API ran itself, sent with
  ``toolConfig.includeServerSideToolInvocations``) -> ``tool_use`` / ``tool_result`` named by
  the ``toolType``, ``id`` kept, marked ``metadata["server_tool"] = True`` (not the caller's to
  run; the part goes back as it came in the next turn);
- a ``thoughtSignature`` rides on the chunk of its part (``metadata["thought_signature"]``), so
  it can be sent back with the turn; a part carrying one (or another carried field, below)
  and no data field gets an empty ``text`` (``thinking``) chunk of its own for it;
- a part's ``speechMetadata`` and ``partMetadata`` ride on its chunk the same way
  (``speech_metadata``, ``part_metadata``); the request-side qualifiers of input media
  (``videoMetadata``, ``mediaResolution``, ``mediaProcessing``, ``documentMetadata``,
  ``spreadsheetMetadata``, ``audioMetadata``) are ignored: they say nothing of the answer
  (``PART_INPUT_QUALIFIERS``);
- one ``result`` chunk at the end: ``usage`` (the ``usageMetadata`` object: prompt, candidates,
  thoughts and total token counts), ``model`` (``modelVersion``), ``finish_reason``, and
  ``finish_message`` when the candidate carried a ``finishMessage`` (the API's explanation, e.g.
  of ``MALFORMED_FUNCTION_CALL``; redacted and bounded). With several candidates
  (``candidateCount``), ``finish_reason`` and ``finish_message`` are the first candidate's (the
  lowest ``index`` that finished: the answer whose chunks carry no ``candidate`` tag), and
  ``finish_reasons`` maps every candidate's index to its reason (``finish_messages`` likewise,
  for those that gave one), so a ``MAX_TOKENS`` on one candidate is not hidden behind another's
  ``STOP``; the one-shot body has them as ``candidates[].finishReason``. Every finish reason
  ends in the result,
  ``SAFETY`` and ``MALFORMED_FUNCTION_CALL`` included: the caller reads ``finish_reason``
  (``MAX_TOKENS`` never cuts a function call: its part arrives whole or not at all);
- what the one-shot body says about the answer as a whole stays on the result chunk:
  ``grounding_metadata`` (Google Search grounding), ``url_context_metadata``,
  ``safety_ratings``, ``avg_logprobs``, ``continuation_token`` (last value seen) and
  ``citation_metadata`` (the sources of every chunk, in order), all the first candidate's, as
  ``finish_reason`` is; with several candidates, ``candidates`` maps every candidate's index to
  its own (``finish_reason``, ``finish_message``, and those fields, under the same keys), since
  each candidate is grounded, rated and scored on its own; ``model_status`` (the response's
  ``modelStatus``: the model's stage and retirement time; last value seen) is the response's,
  not a candidate's; with ``responseLogprobs``, a chunk's ``logprobsResult`` rides on its text
  chunk as ``metadata["logprobs"]``;
- a stream that ends before every candidate it carried gave its ``finishReason`` was cut:
  :class:`ProviderProtocolError`, as for a single candidate, naming the candidates cut (one
  candidate's ``STOP`` says nothing of another's end);
- an ``{"error": {...}}`` event, or a prompt refused outright (``promptFeedback.blockReason``
  with no candidate), -> one ``error`` chunk, ending the stream (the endpoint raises a blocked
  prompt as :class:`~lionagi.service.ProviderStreamContentFilterError`); an error object that is
  a used-up daily quota (``_errors.spent_daily_quotas``, the rule the HTTP status path reads)
  gets ``type`` :data:`~._errors.DAILY_QUOTA_TYPE` and ``quota_ids`` on its chunk, which the
  endpoint raises as :class:`~lionagi.service.ProviderStreamQuotaExhaustedError` (never
  retried), since core's classification reads the chunk's text and labels, not the details;
- a candidate other than the first tags its chunks with ``metadata["candidate"]``;
- anything else that could carry content (an unknown part field; inline or file data or an
  ``audioTranscription`` in the answer, which no chunk type can hold; a ``functionResponse``,
  which only a request carries) -> :class:`ProviderProtocolError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lionagi.service import StreamChunk
from lionagi.service.http import NO_CHUNKS, ChatCompletionsProjector, ProjectorBase, excerpt

from ._errors import (
    BLOCKED_PROMPT_TYPE,
    DAILY_QUOTA_TYPE,
    quota_retry_delay,
    spent_daily_quotas,
)

__all__ = ["GeminiChatProjector", "GeminiStreamProjector", "blocked_prompt_error"]

# Candidate fields that carry no chunk content (bookkeeping, or read for the result).
_CANDIDATE_QUIET = frozenset(
    {
        "content",
        "finishReason",
        "index",
        "safetyRatings",
        "citationMetadata",
        "groundingMetadata",
        "urlContextMetadata",
        "avgLogprobs",
        "logprobsResult",
        "tokenCount",
        "finishMessage",
        "continuationToken",
    }
)
# Candidate fields the one-shot body carries for a candidate's answer as a whole: the stream keeps
# them per candidate for the result chunk under these keys (the last value seen; citation sources
# accumulate, since each chunk cites the text it carries).
_RESULT_FIELDS = (
    ("groundingMetadata", "grounding_metadata"),
    ("urlContextMetadata", "url_context_metadata"),
    ("safetyRatings", "safety_ratings"),
    ("avgLogprobs", "avg_logprobs"),
    ("continuationToken", "continuation_token"),
)
# Top-level fields of a chunk with no content of their own.
_EVENT_KNOWN = frozenset(
    {
        "candidates",
        "usageMetadata",
        "modelVersion",
        "modelStatus",
        "responseId",
        "promptFeedback",
        "createTime",
    }
)
# What the projector does with each part field Google's SDK declares (its ``Part``); the
# package's tests check the SDK declares no other.
# Data fields projected as chunks (see ``_part``).
PART_PROJECTED = frozenset(
    {"text", "functionCall", "toolCall", "toolResponse", "executableCode", "codeExecutionResult"}
)
# Fields that qualify a part and ride on its chunk's metadata, under these keys: the signature
# (sent back with the turn), the speaker and style of a text read aloud, the part's own
# annotation (the Developer API's ``partMetadata``; an answer that carries one means it).
PART_CARRIED = {
    "thoughtSignature": "thought_signature",
    "speechMetadata": "speech_metadata",
    "partMetadata": "part_metadata",
}
# Request-side qualifiers of input media (how to read a video, a document's pages, a clip):
# ignored deliberately. They carry nothing of the answer, and an answer's media part they could
# qualify is refused anyway (``PART_MEDIA``), so only a newer server echoing them reaches here.
PART_INPUT_QUALIFIERS = frozenset(
    {
        "videoMetadata",
        "mediaResolution",
        "mediaProcessing",
        "documentMetadata",
        "spreadsheetMetadata",
        "audioMetadata",
    }
)
# Output media, which no chunk type can hold: inline or file data, and the transcription of an
# audio part (output only, and only ever of audio the stream cannot carry). Refused, pointing
# at ``invoke()``, whose answer is the body as sent.
PART_MEDIA = frozenset({"inlineData", "fileData", "audioTranscription"})
# A data field only a request carries (the caller's answer to a call): in an answer it is
# content with no chunk, refused saying so.
PART_REQUEST_ONLY = frozenset({"functionResponse"})
# Everything that qualifies a part without being its data.
_PART_META = frozenset({"thought", *PART_CARRIED, *PART_INPUT_QUALIFIERS})


def blocked_prompt_error(feedback: Mapping[str, Any]) -> dict[str, Any]:
    """The error object for a prompt the API refused outright (``promptFeedback.blockReason``).

    Shared by the stream (one error chunk) and the one-shot answer (the same typed error), so
    both say the same: ``code`` is the block reason (``SAFETY``, ``PROHIBITED_CONTENT``, ...),
    ``type`` is :data:`BLOCKED_PROMPT_TYPE` (what the endpoint types the refusal by), and the
    message names the reason, the harm categories whose rating says ``blocked: true``
    (which filter to look at, or to relax in ``safetySettings``), and ``blockReasonMessage``
    when the API gave one. Callers redact it (``error_chunk`` does).
    """
    reason = str(feedback["blockReason"])
    message = f"the prompt was blocked ({reason})"
    ratings = feedback.get("safetyRatings")
    categories = [
        rating["category"]
        for rating in (ratings if isinstance(ratings, list) else ())
        if isinstance(rating, dict)
        and rating.get("blocked") is True
        and isinstance(rating.get("category"), str)
    ]
    if categories:
        message = f"{message} by {', '.join(categories)}"
    detail = feedback.get("blockReasonMessage")
    if isinstance(detail, str) and detail:
        message = f"{message}: {detail}"
    return {"message": message, "code": reason, "type": BLOCKED_PROMPT_TYPE}


def daily_quota_chunks(chunks: tuple[StreamChunk, ...], error: Any) -> tuple[StreamChunk, ...]:
    """``chunks`` (core's error chunk for ``error``) labelled when ``error`` is a spent daily quota.

    Core's error chunk keeps the message, code, status word and HTTP status of a Google error
    object, but not its ``details``; what tells a per-day quota from a per-minute one is only
    there (``google.rpc.QuotaFailure``), and the message is the same for both. The verdict is
    :func:`~._errors.spent_daily_quotas`, the HTTP status path's own rule, with the object's
    integer ``code`` as the status; it becomes the chunk's ``type`` (what the endpoint's
    ``error_patterns`` classify), and the quotas it names are kept as ``quota_ids``. Any other
    quota error gets ``retry_after`` from its ``google.rpc.RetryInfo``
    (`quota_retry_delay`, the delay the HTTP 429 carries).
    """
    if not isinstance(error, dict):
        return chunks
    code = error.get("code")
    status = code if type(code) is int else None
    daily = spent_daily_quotas(error, status)
    # Any other quota error keeps the wait its RetryInfo asks for, as the HTTP 429's
    # ``retry_after`` does: core's classification reads it off the chunk, and the retry
    # then waits for it instead of spending its attempts inside the window.
    delay = None if daily else quota_retry_delay(error, status)
    for chunk in chunks:
        if chunk.type != "error":
            continue
        if daily:
            chunk.metadata["type"] = DAILY_QUOTA_TYPE
            chunk.metadata["quota_ids"] = list(daily)
        elif delay is not None:
            chunk.metadata["retry_after"] = delay
    return chunks


class GeminiChatProjector(ChatCompletionsProjector):
    """Core's chat-completions grammar, plus what Gemini's compatibility layer adds to it.

    Gemini's OpenAI-compatible layer relays Google's ``error`` object; a used-up daily quota in
    it fails the stream as the native stream and the HTTP status do (see
    :func:`daily_quota_chunks`).

    The layer also puts Gemini's own data on a choice's ``delta`` as ``extra_content`` (a
    thinking model's ``google.thought_signature`` for the text it returns, and whatever else
    Google adds there); core keeps a tool call's ``extra_content`` but reads no such member on
    the delta itself, so it was dropped. It is kept, as sent, as ``metadata["extra_content"]``
    of the last text (or thinking) chunk that choice's delta produced; a delta that produced
    none (the signature often comes on a delta with empty ``content``) gets a ``text`` chunk
    of its own with no text.
    """

    __slots__ = ()

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Core's chunks for ``event``, with each choice's ``extra_content`` kept on them."""
        chunks = super().feed(event)
        if self.done:  # an error object ended the stream: nothing else of the event counts
            return chunks
        choices = event.get("choices")
        if not choices:
            return chunks
        out: list[StreamChunk] | None = None
        for choice in choices:
            delta = choice.get("delta")
            is_delta = delta is not None
            if delta is None:
                delta = choice.get("message")
            extra = delta.get("extra_content") if isinstance(delta, dict) else None
            if extra is None:
                continue
            if out is None:
                out = list(chunks)
            index = choice.get("index") or 0
            target = next(
                (
                    chunk
                    for chunk in reversed(out)
                    if chunk.type in ("text", "thinking")
                    and (chunk.metadata.get("index") or 0) == index
                ),
                None,
            )
            if target is None:
                meta: dict[str, Any] = {"index": index} if index else {}
                target = StreamChunk(type="text", content="", is_delta=is_delta, metadata=meta)
                out.append(target)
            target.metadata["extra_content"] = extra
        return chunks if out is None else out

    def error_chunk(self, error: Any) -> tuple[StreamChunk, ...]:
        """Core's error chunk, with the daily-quota verdict when the object is one."""
        return daily_quota_chunks(super().error_chunk(error), error)


class GeminiStreamProjector(ProjectorBase):
    """The ``streamGenerateContent`` SSE grammar (see the module docstring)."""

    __slots__ = (
        "_calls",
        "_code",
        "_finishes",
        "_kept",
        "_model",
        "_model_status",
        "_response_id",
        "_usage",
    )

    grammar = "Gemini generateContent stream"

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(secrets)
        self._usage: Any = None
        self._model: Any = None
        # Candidate index -> (finishReason, finishMessage or None), in the order they finished.
        self._finishes: dict[int, tuple[Any, str | None]] = {}
        # Candidate index -> its _RESULT_FIELDS values (last seen) and "citationSources" (every
        # chunk's, in order); a key for every candidate seen, so one that never finished shows.
        self._kept: dict[int, dict[str, Any]] = {}
        self._model_status: Any = None
        self._response_id: Any = None
        self._calls = 0
        # The id of the last executableCode part, and whether it was made up here: what a
        # codeExecutionResult without an id of its own answers.
        self._code: tuple[str, bool] | None = None

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Project one ``GenerateContentResponse`` chunk."""
        if type(event) is not dict:
            raise self.protocol_error("event is not a JSON object", event)
        self.started = True
        if "error" in event:
            return self.error_chunk(event["error"])
        unknown = next((key for key in event if key not in _EVENT_KNOWN), None)
        if unknown is not None:
            raise self.protocol_error(f"unrecognized field {unknown!r} in a chunk", event)
        usage = event.get("usageMetadata")
        if usage:
            self._usage = usage
        model = event.get("modelVersion")
        if model:
            self._model = model
        status = event.get("modelStatus")
        if status:  # the model's stage and retirement time: kept as the one-shot body has it
            self._model_status = status
        if event.get("responseId"):
            self._response_id = event["responseId"]
        candidates = event.get("candidates")
        if not candidates:
            feedback = event.get("promptFeedback")
            if isinstance(feedback, dict) and feedback.get("blockReason"):
                return self._blocked(feedback)
            return NO_CHUNKS
        if type(candidates) is not list:
            raise self.protocol_error("'candidates' is not a list", event)
        out: list[StreamChunk] = []
        for position, candidate in enumerate(candidates):
            if type(candidate) is not dict:
                raise self.protocol_error("a candidate is not a JSON object", event)
            self._candidate(candidate, position, out)
        return out

    def error_chunk(self, error: Any) -> tuple[StreamChunk, ...]:
        """Core's error chunk, with the daily-quota verdict when the object is one.

        Also what ``invoke()`` classifies a 2xx error body by (``Endpoint.error_object_error``),
        so both fail alike.
        """
        return daily_quota_chunks(super().error_chunk(error), error)

    def _blocked(self, feedback: dict[str, Any]) -> Sequence[StreamChunk]:
        return self.error_chunk(blocked_prompt_error(feedback))

    def _candidate(self, candidate: dict[str, Any], position: int, out: list[StreamChunk]) -> None:
        unknown = next((key for key in candidate if key not in _CANDIDATE_QUIET), None)
        if unknown is not None:
            raise self.protocol_error(f"unrecognized candidate field {unknown!r}", candidate)
        index = candidate.get("index", position)
        if type(index) is not int:
            raise self.protocol_error("a candidate's 'index' is not an integer", candidate)
        tag: dict[str, Any] = {"candidate": index} if index else {}
        content = candidate.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        if parts:
            if type(parts) is not list:
                raise self.protocol_error("'parts' is not a list", candidate)
            start = len(out)
            for part in parts:
                self._part(part, tag, out)
            logprobs = candidate.get("logprobsResult")
            if logprobs:  # asked for with responseLogprobs: the scores of this chunk's text
                scored = [c for c in out[start:] if c.type in ("text", "thinking")]
                if scored:
                    scored[-1].metadata["logprobs"] = logprobs
        self._keep(index, candidate)
        finish = candidate.get("finishReason")
        if finish:
            # Kept per candidate: with candidateCount > 1 one candidate's reason must not
            # overwrite another's. Its explanation goes with it (or none, if it gave none).
            message = candidate.get("finishMessage")
            self._finishes[index] = (
                finish,
                message if isinstance(message, str) and message else None,
            )

    def _keep(self, index: int, candidate: dict[str, Any]) -> None:
        """Grounding, citations, safety ratings, average logprobs of candidate ``index``.

        Kept per candidate: with ``candidateCount`` > 1 the chunks interleave the candidates,
        and one candidate's ratings or grounding must not overwrite another's.
        """
        kept = self._kept.setdefault(index, {})
        for field, key in _RESULT_FIELDS:
            value = candidate.get(field)
            if value is not None:
                kept[key] = value
        citations = candidate.get("citationMetadata")
        if isinstance(citations, dict):
            sources = citations.get("citationSources")
            if isinstance(sources, list):
                kept.setdefault("citationSources", []).extend(sources)

    def _part(self, part: Any, tag: dict[str, Any], out: list[StreamChunk]) -> None:
        if type(part) is not dict:
            raise self.protocol_error("a part is not a JSON object", part)
        meta = dict(tag)
        carried = False
        for field, key in PART_CARRIED.items():
            value = part.get(field)
            if value:  # an empty value says nothing
                meta[key] = value
                carried = True
        if "text" in part:
            text = part["text"]
            if not isinstance(text, str):
                raise self.protocol_error("a text part's 'text' is not a string", part)
            if text or carried:
                out.append(
                    StreamChunk(
                        type="thinking" if part.get("thought") else "text",
                        content=text,
                        is_delta=True,
                        metadata=meta,
                    )
                )
            return
        if "functionCall" in part:
            call = part["functionCall"]
            if type(call) is not dict or not isinstance(call.get("name"), str):
                raise self.protocol_error("a functionCall part has no name", part)
            args = call.get("args")
            call_id = call.get("id")
            if not call_id:
                call_id = self._next_call_id()
                meta = {**meta, "synthetic_id": True}
            out.append(
                self.tool_use_chunk(call_id, call["name"], args if args is not None else {}, meta)
            )
            return
        if "toolCall" in part:
            call = part["toolCall"]
            if type(call) is not dict:
                raise self.protocol_error("a toolCall part is not an object", part)
            out.append(self._server_tool_use(call, meta))
            return
        if "toolResponse" in part:
            answer = part["toolResponse"]
            if type(answer) is not dict:
                raise self.protocol_error("a toolResponse part is not an object", part)
            out.append(
                StreamChunk(
                    type="tool_result",
                    tool_name=answer.get("toolType"),
                    tool_id=answer.get("id"),
                    tool_output=answer.get("response"),
                    metadata={**meta, "server_tool": True},
                )
            )
            return
        if "executableCode" in part:
            code = part["executableCode"]
            if type(code) is not dict:
                raise self.protocol_error("an executableCode part is not an object", part)
            code_meta = dict(meta)
            code_id = code.get("id")
            if not isinstance(code_id, str) or not code_id:
                code_id = self._next_call_id()
                code_meta["synthetic_id"] = True
            self._code = (code_id, "synthetic_id" in code_meta)
            out.append(self.tool_use_chunk(code_id, "code_execution", code, code_meta))
            return
        if "codeExecutionResult" in part:
            result = part["codeExecutionResult"]
            if type(result) is not dict:
                raise self.protocol_error("a codeExecutionResult part is not an object", part)
            out.append(self._code_result(result, meta))
            return
        data = next((key for key in part if key not in _PART_META), None)
        if data is None:
            if carried:
                self._markers_only(part, meta, out)
            return
        article = "an" if data[:1] in ("a", "e", "i", "o", "u") else "a"
        if data in PART_MEDIA:
            raise self.protocol_error(
                f"{article} {data} part in the answer cannot be streamed as chunks; use invoke() "
                "for output with media parts",
                {"part": data},
            )
        if data in PART_REQUEST_ONLY:
            raise self.protocol_error(
                f"{article} {data} part in the answer: it is the caller's part (a request "
                "carries it), not a model's",
                {"part": data},
            )
        raise self.protocol_error(f"unrecognized part field {data!r}", part)

    @staticmethod
    def _markers_only(part: dict[str, Any], meta: dict[str, Any], out: list[StreamChunk]) -> None:
        """A part with no data field: what it carries still goes on a chunk, an empty text's.

        A signature can come on a part of its own (often the last of a thinking model's
        turn); it must be sent back with the turn, so it gets an empty ``text`` (``thinking``,
        when the part is a thought) chunk carrying it, as ``{"text": "", "thoughtSignature":
        ...}`` does; so does a lone ``partMetadata`` / ``speechMetadata``, rather than being
        dropped. With none of them there is nothing to carry (an empty thought, or only
        input-media qualifiers): the caller projects nothing.
        """
        out.append(
            StreamChunk(
                type="thinking" if part.get("thought") else "text",
                content="",
                is_delta=True,
                metadata=meta,
            )
        )

    def _code_result(self, result: dict[str, Any], meta: dict[str, Any]) -> StreamChunk:
        """A ``codeExecutionResult`` as the ``tool_result`` of the code it ran.

        Its ``id`` names the ``executableCode`` part it answers when the API gave that part one
        (kept as sent); without it, the result answers the code part just before it, under that
        part's id, synthetic or not.
        """
        result_meta = {**meta, "outcome": result.get("outcome")}
        result_id = result.get("id")
        if isinstance(result_id, str) and result_id:
            tool_id: str | None = result_id
        elif self._code is not None:
            tool_id, synthetic = self._code
            if synthetic:
                result_meta["synthetic_id"] = True
        else:
            tool_id = None
        return StreamChunk(
            type="tool_result",
            tool_name="code_execution",
            tool_id=tool_id,
            tool_output=result.get("output"),
            is_error=result.get("outcome") != "OUTCOME_OK",
            metadata=result_meta,
        )

    def _server_tool_use(self, call: dict[str, Any], meta: dict[str, Any]) -> StreamChunk:
        """A ``toolCall`` the API ran itself: a ``tool_use`` marked ``server_tool``.

        Its ``toolType`` is the name, ``args`` the input; the caller does not run it, but sends
        the part back (with its ``thoughtSignature``) in the next turn.
        """
        call_id = call.get("id")
        tool_meta = {**meta, "server_tool": True}
        if not call_id:
            call_id = self._next_call_id()
            tool_meta["synthetic_id"] = True
        name = call.get("toolType")
        args = call.get("args")
        return self.tool_use_chunk(
            call_id,
            name if isinstance(name, str) else None,
            args if args is not None else {},
            tool_meta,
        )

    def _next_call_id(self) -> str:
        call_id = f"gemini-call-{self._calls}"
        self._calls += 1
        return call_id

    def end(self, *, eof: bool) -> Sequence[StreamChunk]:
        """The stream completes at EOF once every candidate gave a ``finishReason``; else cut.

        With several candidates, each one's end is its own ``finishReason``: a candidate the
        connection cut is reported as a cut single candidate is (``truncated``'s
        :class:`ProviderProtocolError`, naming it), not hidden behind another's ``STOP``.
        """
        if self.done:
            return NO_CHUNKS
        self.done = True
        if not self.started:
            return NO_CHUNKS
        if not self._finishes:
            raise self.truncated()
        order = sorted(self._kept)
        cut = [i for i in order if i not in self._finishes]
        if cut:
            which = ", ".join(str(i) for i in cut)
            noun = "candidate" if len(cut) == 1 else "candidates"
            raise self.protocol_error(
                f"stream ended before completion: {noun} {which} gave no finishReason "
                f"(finished: {', '.join(str(i) for i in sorted(self._finishes))})"
            )
        first = self._candidate_result(order[0])
        result = self.result_chunk(self._usage, self._model, first.pop("finish_reason"))
        if self._response_id:
            result.metadata["response_id"] = self._response_id
        result.metadata.update(first)
        if self._model_status:
            result.metadata["model_status"] = self._model_status
        if len(order) > 1:
            # Every candidate's reason, so a cut one (MAX_TOKENS) is seen beside another's STOP.
            result.metadata["finish_reasons"] = {i: self._finishes[i][0] for i in order}
            messages = {
                i: excerpt(text, self.secrets)
                for i in order
                if (text := self._finishes[i][1]) is not None
            }
            if messages:
                result.metadata["finish_messages"] = messages
            # And everything else each candidate said of itself, under the top-level keys.
            result.metadata["candidates"] = {i: self._candidate_result(i) for i in order}
        return (result,)

    def _candidate_result(self, index: int) -> dict[str, Any]:
        """Candidate ``index``'s result keys: its finish reason and message, what it kept."""
        reason, message = self._finishes[index]
        out: dict[str, Any] = {"finish_reason": reason}
        if message is not None:
            out["finish_message"] = excerpt(message, self.secrets)
        kept = self._kept[index]
        out.update((key, value) for key, value in kept.items() if key != "citationSources")
        if kept.get("citationSources"):
            out["citation_metadata"] = {"citationSources": list(kept["citationSources"])}
        return out

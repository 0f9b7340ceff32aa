"""Vendor stream events to :class:`StreamChunk` (ADR-0027 D3 chunk types).

A projector is a small state machine fed one decoded JSON object at a time; the per-event work is
dict lookups and one slotted dataclass, never a pydantic model. Core owns the projector protocol
(:class:`StreamProjector`), the subclassable base with the shared helpers
(:class:`ProjectorBase`) and the one dialect several providers share, OpenAI chat completions
(:class:`ChatCompletionsProjector`). A vendor's own dialect lives in its distribution. Nothing
here guesses a dialect: every endpoint class declares its projector (``Endpoint.projector``), or
picks one from a stream's payload when its request selects the grammar
(``Endpoint.stream_projector``).

Vendor dialects (OpenAI Responses, Anthropic Messages, native Gemini and Ollama) live in their
vendor distributions, built on :class:`ProjectorBase`.

Contract every projector keeps:

- text deltas -> ``text`` (``is_delta=True``); reasoning deltas -> ``thinking``; a chat
  ``content``/``refusal``/reasoning field is a str or a list of text parts, anything else (a
  part of another type included) raises :class:`ProviderProtocolError`; a chat choice's
  ``logprobs`` (asked for with ``logprobs=True``) -> ``metadata["logprobs"]`` of the
  text chunk of the same event;
- tool calls are accumulated and emitted once, complete, as ``tool_use`` with a parsed dict input
  (arguments that are not a JSON object raise :class:`ProviderProtocolError`); a custom tool's
  call (free text, not JSON) goes out with ``{"input": <the text>}``, as the Responses dialect
  sends a ``custom_tool_call``;
- the end of a successful stream yields exactly one ``result`` chunk whose metadata is
  ``{"usage", "model", "finish_reason"}`` (plus ``finish_reasons``, index -> reason, when
  several choices finished, and a dialect's own answer-wide fields);
- a provider error event yields one ``error`` chunk (``is_error=True``) and ends the projection;
- an event type that is neither understood nor explicitly listed as ignorable raises
  :class:`ProviderProtocolError`; vendor data is never passed through as a raw ``system`` chunk.

Truncation policy: an input that ends (EOF) after events started but before the grammar's
terminal event raises ``ProviderProtocolError("stream ended before completion")``. The one
exception is chat completions: ``[DONE]`` is optional there if a ``finish_reason`` was seen, since
several OpenAI-compatible servers omit it. An input with no events at all ends empty (ADR-0029:
an empty EOF completes).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar, Literal, Protocol

from ..._base.chunk import ChunkType, StreamChunk
from ..._base.errors import ProviderProtocolError
from .status import excerpt, json_kind

__all__ = [
    "NO_CHUNKS",
    "ChatCompletionsProjector",
    "PendingToolCall",
    "ProjectorBase",
    "StreamProjector",
]

NO_CHUNKS: tuple[StreamChunk, ...] = ()
"""What `feed`/`end` return when an event carries nothing (shared, immutable)."""


class StreamProjector(Protocol):
    """What the stream loop drives: `feed` per event, `end` at `[DONE]` or EOF."""

    @property
    def done(self) -> bool:
        """True once the grammar's terminal event (or an error event) was projected."""
        ...

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Chunks for one decoded event."""
        ...

    def end(self, *, eof: bool) -> Sequence[StreamChunk]:
        """Chunks owed at `[DONE]` (`eof=False`) or EOF; raises if the stream was cut."""
        ...


def _dump(event: Any, secrets: tuple[str, ...]) -> str:
    try:
        text = json.dumps(event, default=str)
    except (TypeError, ValueError):
        text = repr(event)
    return excerpt(text, secrets, 300)


# The request fields that cap output tokens across the dialects this base serves.
_LIMIT_FIELDS = "max_tokens (max_completion_tokens, max_output_tokens)"


class ProjectorBase:
    """Base for a projector: the state and helpers every dialect shares.

    Subclass it for a vendor dialect and implement `feed`; override `end` only when the
    dialect's truncation rule differs. Set `grammar` to the name errors should show. The
    endpoint constructs one instance per stream with the endpoint's secrets
    (`projector_class(secrets)`), so every excerpt a helper builds is redacted.

    State: `started` (an event was fed; set it in `feed`) and `done` (the terminal or an
    error event was projected; the stream loop stops reading then).

    Helpers, so a vendor projector does not re-implement the contract:

    - `protocol_error`: the `ProviderProtocolError` for an event that breaks the
      grammar, with a redacted excerpt of the event;
    - `error_chunk`: the one `error` chunk for a provider error object (ends the stream);
    - `tool_input` / `tool_use_chunk`: a complete tool call with its arguments parsed
      to a dict (a non-object is a protocol error); `PendingToolCall` accumulates
      streamed argument fragments until the call is complete;
    - `result_chunk`: the one `result` chunk with `usage`/`model`/`finish_reason`;
    - `cut_short`, `limit_chunk`, `hold_unparsed` / `release_held`: a tool call the output
      token limit cut off ends the stream with an error chunk naming it; a dialect that closes
      the cut call before its stop reason arrives holds it until then (`held`);
    - `end` / `truncated`: the truncation policy (a started stream must reach its
      terminal event; an empty input ends empty; a held call's protocol error outranks both).
    """

    __slots__ = ("_secrets", "done", "held", "started")

    grammar = "stream"

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        self._secrets = secrets
        self.done = False
        self.started = False
        # A closed tool call whose arguments did not parse: (name, arguments, its error).
        self.held: tuple[str | None, str, ProviderProtocolError] | None = None

    @property
    def secrets(self) -> tuple[str, ...]:
        """The values redacted from every excerpt this projector builds."""
        return self._secrets

    def protocol_error(self, what: str, event: Any = None) -> ProviderProtocolError:
        """`ProviderProtocolError("<grammar>: <what>: <event excerpt>")`, returned to raise."""
        detail = f": {_dump(event, self._secrets)}" if event is not None else ""
        return ProviderProtocolError(f"{self.grammar}: {what}{detail}")

    def error_chunk(self, error: Any) -> tuple[StreamChunk, ...]:
        """One error chunk carrying what error classification reads (`code`/`type`/`status`).

        `code` is the vendor's code, else its type; `type` is added when it says more (OpenAI
        sends both; Gemini's string `status` such as `UNAUTHENTICATED` is its type);
        `status` is the HTTP status a vendor puts in the object (Gemini's integer `code`).
        Marks the projection done.
        """
        message: Any = error
        code: Any = None
        meta: dict[str, Any] = {}
        if isinstance(error, dict):
            message = error.get("message") or error.get("error") or error
            code = error.get("code") or error.get("type")
            kind = error.get("type") or error.get("status")
            if isinstance(kind, str) and kind and kind != code:
                meta["type"] = excerpt(kind, self._secrets, 100)
            for status in (error.get("status"), error.get("code")):
                if type(status) is int and 100 <= status <= 599:
                    meta["status"] = status
                    break
        if not isinstance(message, str):
            message = _dump(message, self._secrets)
        self.done = True
        if code is not None:
            meta = {"code": excerpt(str(code), self._secrets, 100), **meta}
        return (
            StreamChunk(
                type="error",
                content=excerpt(message, self._secrets),
                is_error=True,
                metadata=meta,
            ),
        )

    def tool_input(self, name: str | None, raw: str | dict[str, Any]) -> dict[str, Any]:
        """Tool-call arguments as a dict: a dict as is, JSON text parsed, blank text `{}`.

        Raises:
            ProviderProtocolError: the text is not JSON, or not a JSON object.
        """
        if isinstance(raw, dict):
            return raw
        if not raw.strip():
            return {}
        try:
            value = json.loads(raw)
        except ValueError:
            shown = excerpt(raw, self._secrets, 300)
            raise self.protocol_error(
                f"tool call {name!r} arguments are not valid JSON: {shown}"
            ) from None
        if not isinstance(value, dict):
            raise self.protocol_error(f"tool call {name!r} arguments are not a JSON object")
        return value

    def tool_use_chunk(
        self,
        tool_id: str | None,
        name: str | None,
        arguments: str | dict[str, Any],
        metadata: dict[str, Any] | None = None,
    ) -> StreamChunk:
        """The one complete `tool_use` chunk for a call, input parsed by `tool_input`."""
        return StreamChunk(
            type="tool_use",
            tool_id=tool_id,
            tool_name=name,
            tool_input=self.tool_input(name, arguments),
            metadata=metadata or {},
        )

    def cut_short(
        self, name: str | None, arguments: str, reason: str, usage: Any = None
    ) -> StreamChunk | None:
        """The error chunk for a tool call the output token limit cut off, else None.

        A model that reaches `max_tokens` while writing a call's arguments stops mid-JSON
        (chat `finish_reason: "length"`, Anthropic `stop_reason: "max_tokens"`). Parsing
        them then failed as a protocol error ("arguments are not valid JSON"), which blames the
        server and hides the cause and its fix; the stream now ends with an error chunk that
        names both (a `ProviderStreamError`, not retried: the same request stops in the same
        place). Arguments that do parse are left to `tool_use_chunk`.
        """
        if not arguments.strip():
            return None
        try:
            json.loads(arguments)
        except ValueError:
            pass
        else:
            return None
        return self.limit_chunk(f"the arguments of tool call {name!r}, which are", reason, usage)

    def limit_chunk(
        self, what: str, reason: str, usage: Any, *, limit: str = _LIMIT_FIELDS
    ) -> StreamChunk:
        """The error chunk saying the output token limit cut `what` short, and the fix.

        `what` names the cut piece and ends in "is" or "are" ("the input of custom tool call
        'x', which is"); `reason` is the dialect's stop reason (`code` and `finish_reason` of
        the chunk); `limit` names the request field to raise, where the dialect has one. One
        shape for every cut a dialect reports, so a caller handles one error however the
        limit struck.
        """
        (chunk,) = self.error_chunk(
            {
                "message": (
                    f"the model reached its output token limit ({reason!r}) while writing "
                    f"{what} cut short; raise the request's {limit} and retry"
                ),
                "code": reason,
            }
        )
        chunk.metadata["finish_reason"] = reason
        if usage:
            chunk.metadata["usage"] = usage
        return chunk

    def hold_unparsed(self, name: str | None, arguments: str, error: ProviderProtocolError) -> None:
        """Keep a closed tool call whose arguments did not parse until the stop reason arrives.

        Anthropic and the Responses API close a block before saying why the model stopped, so
        only the terminal event tells a call the output token limit cut (an error chunk naming
        it, `release_held`) from a malformed one (`error`). A cut is the last thing a
        model writes: a second unparsed call while one is held means the first was malformed,
        and its error is raised.
        """
        if self.held is not None:
            raise self.held[2] from None
        self.held = (name, arguments, error)

    def release_held(self, limit: str | None, usage: Any = None) -> StreamChunk:
        """The held call's end at the stop reason: `cut_short`'s chunk, or its error.

        `limit` is the stop reason when it is the output token limit (`max_tokens`,
        `max_output_tokens`), else None; the arguments must also be a cut prefix of an object.
        """
        assert self.held is not None
        name, arguments, error = self.held
        self.held = None
        chunk = self.cut_short(name, arguments, limit, usage) if limit else None
        if chunk is None:
            raise error
        return chunk

    def truncated(self) -> ProviderProtocolError:
        """The error for a stream that ended before its grammar's terminal event."""
        return self.protocol_error("stream ended before completion")

    def end(self, *, eof: bool) -> Sequence[StreamChunk]:
        """Only the grammar's terminal event (or an error) completes a stream that started.

        The default for dialects whose terminal event is explicit (set `done` when it is fed);
        OpenAI chat overrides this because `[DONE]` may be missing.
        """
        if self.done:
            return NO_CHUNKS
        self.done = True
        if self.held is not None:
            raise self.held[2]  # the call's own error says more than "ended before completion"
        if self.started:
            raise self.truncated()
        return NO_CHUNKS

    @staticmethod
    def result_chunk(usage: Any, model: Any, finish_reason: Any) -> StreamChunk:
        """The one `result` chunk a successful stream ends with."""
        return StreamChunk(
            type="result",
            metadata={"usage": usage, "model": model, "finish_reason": finish_reason},
        )


class PendingToolCall:
    """A streamed tool call being assembled: `id`/`name` as they arrive, argument fragments.

    `arguments` joins the fragments; hand it to `ProjectorBase.tool_use_chunk` once the
    dialect says the call is complete. `custom` marks a call of a custom tool (OpenAI chat
    `"type": "custom"`), whose fragments are pieces of free text, not JSON: `call_input`
    is then `{"input": <the text>}`.
    """

    __slots__ = ("args", "custom", "extra", "id", "name")

    def __init__(
        self, tool_id: str | None = None, name: str | None = None, *, custom: bool = False
    ) -> None:
        self.id: str | None = tool_id
        self.name: str | None = name
        self.args: list[str] = []
        self.custom = custom
        # A vendor's own members of the call (Gemini's ``extra_content`` holding the thought
        # signature a later turn must send back), merged as they arrive.
        self.extra: dict[str, Any] = {}

    @classmethod
    def of_message(cls, call: Any) -> PendingToolCall:
        """A one-shot `message.tool_calls` entry, read as the stream assembles its fragments.

        So a check shared with the stream (`ChatCompletionsProjector.cut_at_length`) sees
        the same name and argument text for the same call: a `function` entry's name and
        arguments, else a `custom` entry's name and input text (a custom call); a malformed
        entry reads as a function call with neither.
        """
        entry = call if isinstance(call, dict) else {}
        function = entry.get("function")
        custom = entry.get("custom")
        is_custom = not isinstance(function, dict) and isinstance(custom, dict)
        body = custom if is_custom else function
        if not isinstance(body, dict):
            body = {}
        tool_id, name = entry.get("id"), body.get("name")
        pending = cls(
            tool_id if isinstance(tool_id, str) else None,
            name if isinstance(name, str) and name else None,
            custom=is_custom,
        )
        pending.add(body.get("input" if is_custom else "arguments"))
        return pending

    def add(self, fragment: Any) -> None:
        """Append one argument fragment (a non-string fragment is JSON-encoded first)."""
        if fragment:
            self.args.append(fragment if isinstance(fragment, str) else json.dumps(fragment))

    @property
    def arguments(self) -> str:
        """The argument text received so far."""
        return "".join(self.args)

    @property
    def call_input(self) -> str | dict[str, Any]:
        """What `ProjectorBase.tool_use_chunk` takes for this call.

        The argument text, or a custom call's `{"input": <the text>}`: free text has no
        JSON to parse.
        """
        return {"input": "".join(self.args)} if self.custom else "".join(self.args)


# --- OpenAI chat completions ---------------------------------------------------------------------

_MIXED_CALL = "a tool call mixes 'function' and 'custom' pieces"


class ChatCompletionsProjector(ProjectorBase):
    """`chat.completion.chunk` objects; also accepts a whole `chat.completion` (one line).

    `result_fields` names top-level chunk fields a vendor adds beside `choices` that belong
    to the answer as a whole (Perplexity's `citations` and `search_results`): a subclass
    lists them, the last value seen for each is kept and put into the result chunk's metadata
    under the same key, so a stream keeps what the one-shot body carries. `delta_fields`
    does the same for a vendor's own members of a choice's `delta` (OpenRouter's
    `reasoning_details`), as `(name, chunk type)` pairs: each non-empty value goes out at
    once, on a chunk of that type with no text, as `metadata[<name>]`. OpenAI's own
    `delta.audio` and `delta.annotations` are read here (see `_audio`, `_annotations`); other
    unknown members are tolerated, as vendors add fields without notice.
    """

    __slots__ = ("_fields", "_finish_reason", "_finishes", "_model", "_slots", "_tools", "_usage")

    grammar = "OpenAI chat stream"
    result_fields: ClassVar[tuple[str, ...]] = ()
    delta_fields: ClassVar[tuple[tuple[str, ChunkType], ...]] = ()

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(secrets)
        self._model: Any = None
        self._usage: Any = None
        self._finish_reason: Any = None
        # Each finished choice's reason by index (made at the first finish, not per stream).
        self._finishes: dict[int, Any] | None = None
        self._tools: dict[tuple[int, Any], PendingToolCall] = {}
        # (choice, slot) -> the key of the call now open there, once a reused slot moved it.
        self._slots: dict[tuple[int, Any], tuple[int, Any]] = {}
        self._fields: dict[str, Any] = {}

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Project one chunk object."""
        if type(event) is not dict:
            raise self.protocol_error("event is not a JSON object", event)
        self.started = True
        error = event.get("error")
        if error:
            # An error object ends the stream even beside ``choices``: OpenRouter's documented
            # mid-stream failure is a chunk with a top-level ``error`` *and* a choice whose
            # ``finish_reason`` is ``"error"``; reading only the choice would end it as a
            # success with the partial answer. Tokens already spent are billed all the same:
            # the usage it carries (or an earlier chunk's) stays on the error chunk.
            chunks = self.error_chunk(error)
            usage = event.get("usage") or self._usage
            if usage:
                chunks[0].metadata["usage"] = usage
            return chunks
        choices = event.get("choices")
        if choices is None:
            if "error" in event:
                return self.error_chunk(error)
            if event.get("type") == "error":
                # An ``event: error`` SSE frame whose data is the error object itself (the
                # framer names such data by its event): the provider's failure, classified.
                return self.error_chunk({k: v for k, v in event.items() if k != "type"})
            raise self.protocol_error("unrecognized event (no 'choices')", event)
        model = event.get("model")
        if model:
            self._model = model
        usage = event.get("usage")
        if usage:
            self._usage = usage
        for name in self.result_fields:
            if name in event:
                self._fields[name] = event[name]
        if not choices:
            return NO_CHUNKS
        out: list[StreamChunk] = []
        for choice in choices:
            index = choice.get("index") or 0
            delta = choice.get("delta")
            is_delta = True
            if delta is None:
                delta = choice.get("message")
                is_delta = False
            if delta:
                start = len(out)
                self._delta(index, delta, is_delta, out)
                logprobs = choice.get("logprobs")
                if logprobs and len(out) > start:
                    # Asked for with ``logprobs=True``: the tokens' log probabilities ride on
                    # the text they score (dropping them would make the request's flag a no-op
                    # for stream() while invoke() returns them in the body).
                    out[-1].metadata["logprobs"] = logprobs
            finish = choice.get("finish_reason")
            if finish:
                self._finished(index, finish)
                self._flush_tools(index, out)
        return out

    def _finished(self, index: int, finish: Any) -> None:
        """Record choice `index`'s finish reason (once per choice, never per text delta).

        `_finish_reason` is the reason of the choice finishing now (its tool calls are flushed
        against it); every choice's is also kept by index, so with several choices (`n` > 1)
        the result reports the first choice's reason rather than whichever finished last (a
        `length` on choice 0 was hidden behind choice 1's `stop`).
        """
        self._finish_reason = finish
        finishes = self._finishes
        if finishes is None:
            self._finishes = {index: finish}
        else:
            finishes[index] = finish

    def _delta(self, index: int, delta: Any, is_delta: bool, out: list[StreamChunk]) -> None:
        content = delta.get("content")
        if content is not None and len(delta) == 1 and isinstance(content, str):
            # The common shape, one text delta per event: every other lookup would be None.
            if content:
                out.append(
                    StreamChunk(
                        type="text",
                        content=content,
                        is_delta=is_delta,
                        metadata={"index": index} if index else {},
                    )
                )
            return
        # Text arrives as a str; anything else non-null (a list of content parts, as Mistral's
        # and other compatible servers send) goes through the slow path, which reads text parts
        # and refuses the rest: text is never dropped for a shape this projector does not know.
        reasoning_content = delta.get("reasoning_content")
        reasoning_other = delta.get("reasoning")
        reasoning = reasoning_content or reasoning_other
        if not isinstance(reasoning, str) and (
            reasoning_content is not None or reasoning_other is not None
        ):
            reasoning = self._reasoning_text(reasoning_content, reasoning_other)
        if reasoning:
            out.append(
                StreamChunk(
                    type="thinking",
                    content=reasoning,
                    is_delta=is_delta,
                    metadata={"index": index} if index else {},
                )
            )
        if content is not None and not isinstance(content, str):
            self._content_parts(content, index, is_delta, out)
            content = None
        if content:
            out.append(
                StreamChunk(
                    type="text",
                    content=content,
                    is_delta=is_delta,
                    metadata={"index": index} if index else {},
                )
            )
        refusal = delta.get("refusal")
        if refusal is not None and not isinstance(refusal, str):
            refusal = self._parts_text("refusal", refusal)
        if refusal:
            meta: dict[str, Any] = {"index": index, "refusal": True} if index else {"refusal": True}
            out.append(StreamChunk(type="text", content=refusal, is_delta=is_delta, metadata=meta))
        audio = delta.get("audio")
        if audio:
            self._audio(audio, index, is_delta, out)
        annotations = delta.get("annotations")
        if annotations:
            self._annotations(annotations, index, is_delta, out)
        for name, kind in self.delta_fields:
            value = delta.get(name)
            if value:
                meta = {"index": index, name: value} if index else {name: value}
                out.append(StreamChunk(type=kind, content="", is_delta=is_delta, metadata=meta))
        calls = delta.get("tool_calls")
        if calls:
            for position, call in enumerate(calls):
                slot = call.get("index")
                call_id = call.get("id")
                base = (index, slot if slot is not None else (call_id or position))
                key = self._slots.get(base, base)
                acc = self._tools.get(key)
                if acc is not None and call_id and acc.id and call_id != acc.id:
                    # A new id at an occupied index is a new call: Ollama's compatible API
                    # (and some proxies) send every parallel call at ``index: 0``; merging them
                    # would concatenate two argument objects into one unparseable string.
                    key = self._slots[base] = (index, (base[1], call_id))
                    acc = None
                if acc is None:
                    acc = self._tools[key] = PendingToolCall()
                if call_id:
                    acc.id = call_id
                function = call.get("function")
                if function:
                    if acc.custom or call.get("custom"):
                        raise self.protocol_error(_MIXED_CALL, call)
                    if function.get("name"):
                        acc.name = function["name"]
                    acc.add(function.get("arguments"))
                else:
                    custom = call.get("custom")
                    if custom is not None:
                        self._custom_piece(acc, custom, call)
                extra = call.get("extra_content")
                if extra and isinstance(extra, dict):
                    acc.extra.update(extra)

    def _custom_piece(self, acc: PendingToolCall, custom: Any, call: Any) -> None:
        """A custom tool call's piece (``"custom": {"name"?, "input"?}``) added to `acc`.

        OpenAI streams a call of a custom tool (``tools: [{"type": "custom", ...}]``) as
        ``custom`` pieces whose ``input`` is free text, joined as sent; reading only
        ``function`` delivered it with no name and no input. A piece that is not an object, an
        input that is not text, or a call that mixes ``function`` and ``custom`` pieces is
        refused (nothing is guessed about which one the model meant).
        """
        if type(custom) is not dict:
            raise self.protocol_error("a tool call's 'custom' is not a JSON object", call)
        if not acc.custom:
            if acc.name is not None or acc.args:
                raise self.protocol_error(_MIXED_CALL, call)
            acc.custom = True
        name = custom.get("name")
        if name:
            acc.name = name
        piece = custom.get("input")
        if piece is not None and not isinstance(piece, str):
            raise self.protocol_error(
                f"custom tool call {acc.name!r} input is JSON {json_kind(piece)}, not text", call
            )
        if piece:
            acc.args.append(piece)

    def _audio(self, audio: Any, index: int, is_delta: bool, out: list[StreamChunk]) -> None:
        """An audio answer's piece (`modalities=["text", "audio"]`): its transcript is the text.

        The transcript goes out as text, the rest of the object (`id`, base64 `data`,
        `expires_at`, which a later turn names by `id`) as the chunk's `metadata["audio"]`,
        so a stream keeps what the one-shot `message.audio` carries.
        """
        if type(audio) is not dict:
            raise self.protocol_error("delta.audio is not a JSON object", audio)
        transcript = audio.get("transcript")
        if transcript is not None and not isinstance(transcript, str):
            raise self.protocol_error("delta.audio.transcript is not a string", audio)
        rest = {key: value for key, value in audio.items() if key != "transcript"}
        meta: dict[str, Any] = {"index": index} if index else {}
        if rest:
            meta["audio"] = rest
        if transcript or rest:
            out.append(
                StreamChunk(type="text", content=transcript or "", is_delta=is_delta, metadata=meta)
            )

    def _annotations(
        self, annotations: Any, index: int, is_delta: bool, out: list[StreamChunk]
    ) -> None:
        """Each annotation (a web search's `url_citation`, ...) on a text chunk with no text.

        In stream order, as the one-shot `message.annotations` lists them; the chunk's
        `metadata["annotation"]` is the object as sent.
        """
        if type(annotations) is not list:
            raise self.protocol_error("delta.annotations is not a list", annotations)
        for annotation in annotations:
            meta = (
                {"index": index, "annotation": annotation} if index else {"annotation": annotation}
            )
            out.append(StreamChunk(type="text", content="", is_delta=is_delta, metadata=meta))

    def _reasoning_text(self, reasoning_content: Any, reasoning: Any) -> str | None:
        """The reasoning text when either field is not a str: both are checked, the first wins.

        The same precedence as the str case (``reasoning_content`` unless it is empty), each
        field read by :meth:`_parts_text` when it is neither a str nor null.
        """
        first: str | None = reasoning_content
        if first is not None and not isinstance(first, str):
            first = self._parts_text("reasoning_content", first)
        second: str | None = reasoning
        if second is not None and not isinstance(second, str):
            second = self._parts_text("reasoning", second)
        return first or second

    def _content_parts(
        self, value: Any, index: int, is_delta: bool, out: list[StreamChunk]
    ) -> None:
        """A ``content`` list of parts, in order: text parts as text, thinking parts as thinking.

        Mistral's reasoning models send ``[{"type": "thinking", "thinking": [<text parts>]},
        {"type": "text", "text": "..."}]``; other compatible servers send text parts only.
        Consecutive parts of one kind make one chunk. Any other part is refused (see
        :meth:`_parts_text`).
        """
        if type(value) is not list:
            self._parts_text("content", value)  # raises, naming the field
        meta = {"index": index} if index else {}
        kind: Literal["text", "thinking"] = "text"
        texts: list[str] = []
        for part in value:
            ptype = part.get("type") if type(part) is dict else None
            part_kind: Literal["text", "thinking"]
            if ptype == "text" and isinstance(part.get("text"), str):
                part_kind, text = "text", part["text"]
            elif ptype == "thinking":
                inner = part.get("thinking")
                part_kind = "thinking"
                text = inner if isinstance(inner, str) else self._parts_text("thinking", inner)
            else:
                raise self.protocol_error(
                    "a choice's 'content' holds a part that is not a text or thinking part", part
                )
            if part_kind != kind and texts:
                _append_text(out, kind, "".join(texts), is_delta, meta)
                texts = []
            kind = part_kind
            texts.append(text)
        if texts:
            _append_text(out, kind, "".join(texts), is_delta, meta)

    def _parts_text(self, field: str, value: Any) -> str:
        """The text of ``value``, a list of text parts (``{"type": "text", "text": "..."}``).

        Some OpenAI-compatible servers (Mistral's among them) send a choice's ``content`` as a
        list of parts rather than a string; their texts, joined in order, are the text the
        string would carry. Any other value, or a part of another type, is refused: content
        this projector does not understand is an error, never dropped.

        Raises:
            ProviderProtocolError: ``value`` is not a list, or holds a part that is not a text
                part with a str ``text``; the message names ``field``.
        """
        if type(value) is not list:
            raise self.protocol_error(
                f"a choice's {field!r} is JSON {json_kind(value)}, not text or a list of text "
                "parts",
                value,
            )
        texts: list[str] = []
        for part in value:
            text = part.get("text") if type(part) is dict and part.get("type") == "text" else None
            if not isinstance(text, str):
                raise self.protocol_error(
                    f"a choice's {field!r} holds a part that is not a text part", part
                )
            texts.append(text)
        return "".join(texts)

    def _flush_tools(self, index: int | None, out: list[StreamChunk]) -> None:
        if not self._tools:
            return
        keys = [k for k in self._tools if index is None or k[0] == index]
        last = len(keys) - 1
        for position, key in enumerate(keys):
            acc = self._tools.pop(key)
            meta: dict[str, Any] = {"index": key[0]} if key[0] else {}
            if acc.extra:
                # Sent back with the call on the next turn (Gemini 3 refuses a function call
                # turn without its thought signature); kept as the vendor wrote it.
                meta["extra_content"] = acc.extra
            if self._finish_reason == "length":
                cut = self.cut_at_length(acc, last=position == last)
                if cut is not None:
                    out.append(cut)  # an error chunk ends the stream: nothing after it
                    self._tools.clear()
                    return
            out.append(self.tool_use_chunk(acc.id, acc.name, acc.call_input, meta))

    def cut_at_length(self, call: PendingToolCall, *, last: bool) -> StreamChunk | None:
        """`cut_short`'s error chunk for a call `finish_reason: "length"` cut, else None.

        The one decision for the stream (at the finish reason) and the one-shot body
        (`OpenAIChatEndpoint.check_response`), so `invoke()` and `stream()` fail alike on
        the same answer. `last` says `call` is its choice's last: the limit can cut only
        the last call, and a complete call sends at least `"{}"`, so the last one with no
        argument text was cut right after its name (delivered with no input, the tool would
        run on a guess). Arguments that parse are left to the caller.

        A custom tool's input is free text, with no syntax that shows it whole: the last
        call of a choice the limit stopped is the one the model was writing, so it is cut
        (the tool would run on a prefix); earlier calls were closed before it and are calls.
        """
        if call.custom:
            if not last:
                return None
            return self.limit_chunk(
                f"the input of custom tool call {call.name!r}, which is", "length", None
            )
        arguments = call.arguments
        if last and not arguments.strip():
            arguments = "{"
        return self.cut_short(call.name, arguments, "length")

    def end(self, *, eof: bool) -> Sequence[StreamChunk]:
        """`[DONE]` always completes; EOF completes only after a `finish_reason`."""
        if self.done:
            return NO_CHUNKS
        self.done = True
        if not self.started:
            return NO_CHUNKS
        if eof and self._finish_reason is None:
            raise self.truncated()
        out: list[StreamChunk] = []
        self._flush_tools(None, out)
        finishes = self._finishes or {}
        # The first choice's reason (choice 0, or the first to finish when a server numbers
        # its choices with something other than integers); with several choices, each one's
        # under `finish_reasons` (index -> reason), as Gemini reports its candidates.
        order = list(finishes)
        if all(type(i) is int for i in order):
            order.sort()
        reason = finishes[order[0]] if order else self._finish_reason
        result = self.result_chunk(self._usage, self._model, reason)
        if len(order) > 1:
            result.metadata["finish_reasons"] = {i: finishes[i] for i in order}
        if self._fields:
            result.metadata.update(self._fields)
        out.append(result)
        return out


def _append_text(
    out: list[StreamChunk],
    kind: Literal["text", "thinking"],
    text: str,
    is_delta: bool,
    meta: dict[str, Any],
) -> None:
    """One text or thinking chunk of a content list's run of parts, unless it is empty."""
    if text:
        out.append(StreamChunk(type=kind, content=text, is_delta=is_delta, metadata=dict(meta)))

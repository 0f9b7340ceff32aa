"""Anthropic Messages stream events to :class:`~lionagi.service.StreamChunk`.

The grammar (``POST /v1/messages`` with ``stream: true``): ``message_start`` (model, input
usage), then per content block ``content_block_start`` / ``content_block_delta`` ... /
``content_block_stop``, then ``message_delta`` (``stop_reason``, output usage) and
``message_stop``; ``ping`` may come anywhere and an in-stream failure is ``event: error``.

Projection (core's projector contract, helpers from :class:`ProjectorBase`):

- ``text_delta`` -> ``text``; ``thinking_delta`` -> ``thinking`` (both ``is_delta=True``); a
  block that starts with text already in it yields that text first;
- a ``tool_use`` block (and the server-run ``server_tool_use`` / ``mcp_tool_use``) gathers its
  ``input_json_delta`` fragments and yields one ``tool_use`` at ``content_block_stop``, input
  parsed, id preserved; server-run calls carry ``metadata["server_tool"] = True``. A block cut
  by ``max_tokens`` ends the stream with an error chunk naming the tool and the limit, whether
  its input was cut mid-JSON or before any of it was written (a block with no input text is
  held until the next event: the stop reason ``max_tokens`` makes it that error, as the two
  stops below make it theirs, anything else the call with input ``{}``); a block cut the same
  way by ``model_context_window_exceeded`` (the output reached the model's context window
  first) ends it with an error chunk of that code, which core types as the context family (a
  higher ``max_tokens`` does not help); one cut by ``refusal`` (Anthropic's streaming
  classifiers stopped the answer) ends it with an error chunk of code ``refusal`` carrying the
  ``stop_details``, which the endpoint types as the content-filter family (the same
  conversation is refused again); a caller's ``tool_use`` that closed whole is held (with what
  follows it, in order) until the stop reason, so a refusal later in the turn ends the stream
  with that same error and hands none of the turn's calls out to be run;
- what a caller needs to send a turn back verbatim is kept: a thinking block's
  ``signature_delta`` -> a ``thinking`` chunk with no text and ``metadata["signature"]`` (it
  closes that block; Anthropic refuses a tool-use turn whose thinking comes back unsigned; a
  block whose ``content_block_start`` already carries a non-empty ``signature`` yields the same
  chunk after its text), a
  ``redacted_thinking`` block -> a ``thinking`` chunk with no text and
  ``metadata["redacted_thinking"]`` (the encrypted ``data``), and a text block's
  ``citations_delta`` -> a ``text`` chunk with no text and ``metadata["citation"]``;
- a server tool's result block (``web_search_tool_result``, ``mcp_tool_result``, ... : a
  ``*_tool_result`` block naming its ``tool_use_id``) arrives whole and yields one
  ``tool_result``, ``tool_name`` the name of the ``server_tool_use`` / ``mcp_tool_use`` block
  of that id earlier in the stream (None when the call is not in it);
- a ``compaction`` block (the compaction beta's summary of the turns before it, which the next
  request must carry back) gathers its ``compaction_delta`` and yields, at
  ``content_block_stop``, one ``system`` chunk with no content and the whole block as
  ``metadata["compaction_block"]``, ready to go back in an assistant turn's content;
- the other blocks the next request takes back unchanged arrive whole (no deltas) and yield,
  at ``content_block_start``, one ``system`` chunk with no content and the block as
  ``metadata["fallback_block"]`` (the fallback beta's boundary between the model that declined
  and the one that continued: the turn is refused without it in its place; its ``to.model``
  becomes the result's ``model``, the one that served the answer) or
  ``metadata["mcp_tool_listing_block"]`` (the tools an MCP server listed, reused by the next
  request instead of asking the server again);
- ``message_stop`` yields the one ``result`` chunk: ``usage`` is the ``message_start`` usage
  (input and cache tokens) updated by every ``message_delta`` usage (output tokens; newer
  servers repeat the cumulative input and cache counts there), ``finish_reason`` the
  ``stop_reason``, ``response_id`` the message id, and what else the one-shot message carries
  when ``message_delta`` sends it: ``stop_sequence`` (the one matched), ``stop_details`` (a
  refusal's category and explanation), ``container``, ``context_management`` (the context
  editing or compaction the API applied: ``applied_edits``, what it cleared) and
  ``input_transformations`` (beta: thinking blocks of the request the API dropped or let
  through); and when ``message_start``'s message sends it: ``diagnostics`` (the prompt-cache
  report a request's ``diagnostics`` asks for, ``cache_miss_reason``; sent there only) and
  ``input_transformations``, ``container``, ``context_management`` (a ``message_delta`` value
  replaces them), as the official SDK's accumulator keeps them;
- ``event: error`` yields one ``error`` chunk (``code`` is the error ``type``, e.g.
  ``overloaded_error``) and ends the projection;
- any event, delta or block type not handled here and not listed as carrying nothing raises
  :class:`ProviderProtocolError`, so a new content-bearing type is noticed, never dropped.

Truncation is the base rule: a stream that started must reach ``message_stop`` (or an error).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from lionagi.service import ProviderProtocolError, StreamChunk
from lionagi.service.http import NO_CHUNKS, PendingToolCall, ProjectorBase

__all__ = [
    "ANTHROPIC_IGNORED_BLOCKS",
    "ANTHROPIC_IGNORED_DELTAS",
    "ANTHROPIC_IGNORED_EVENTS",
    "TOOL_BLOCKS",
    "AnthropicMessagesProjector",
]

ANTHROPIC_IGNORED_EVENTS = frozenset({"ping"})
"""Events that carry nothing a chunk needs (keep-alives)."""

ANTHROPIC_IGNORED_DELTAS: frozenset[str] = frozenset()
"""Deltas that carry nothing a chunk needs: none today (a thinking block's ``signature_delta``,
a text block's ``citations_delta`` and a compaction block's ``compaction_delta`` are kept, see
the module docstring)."""

ANTHROPIC_IGNORED_BLOCKS = frozenset({"container_upload"})
"""Blocks with nothing to show: a file handed to the code container."""

TOOL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
"""Blocks that carry a tool call (the caller's, or one Anthropic runs itself)."""
# Blocks that arrive whole (no deltas) and go back unchanged in the next request's assistant
# turn: each is yielded as a system chunk, the whole block under this metadata key.
_WHOLE_BLOCKS = {"fallback": "fallback_block", "mcp_tool_listing": "mcp_tool_listing_block"}
# A block whose type names both its text field and the chunk type it streams as.
_TEXT_FIELDS: dict[str, Literal["text", "thinking"]] = {"text": "text", "thinking": "thinking"}
# message_delta fields the result chunk keeps beside the stop reason (when not null).
_DELTA_FIELDS = ("stop_sequence", "stop_details", "container")
# The event-level members of message_delta (beside ``delta`` and ``usage``; the official SDK
# reads them there) the result chunk keeps: the context edits and compaction the API applied,
# and (after a mid-stream model fallback) the serving model's input transformations.
_EVENT_FIELDS = ("context_management", "input_transformations")
# message_start's message-level facts the result chunk keeps (when not null), as the official
# SDK's accumulator keeps them from the message it starts from: the prompt-cache diagnostics
# (sent there only) and the input transformations (final there unless a fallback replaces
# them). A container or context_management it already names is kept the same way; a
# message_delta value replaces any of them.
_START_FIELDS = ("container", "context_management", "diagnostics", "input_transformations")
# The stop reason for output that reached the model's context window before max_tokens (the
# default from Claude Sonnet 4.5 on; anthropic-sdk-python's StopReason): a tool call it stops in
# is cut short as max_tokens cuts one, but the fix is a shorter conversation, not a higher limit.
WINDOW_STOP = "model_context_window_exceeded"
# The stop reason for an answer Anthropic's streaming classifiers stopped (a policy refusal, its
# category and explanation in stop_details): a tool call it stops in is cut short too, and the
# same conversation is refused again, so the fix is the turn that triggered it.
REFUSAL_STOP = "refusal"
# The stops that cut a tool call for a reason other than the token limit: `stop_cut`'s.
CUT_STOPS = (WINDOW_STOP, REFUSAL_STOP)
# The events that release the held turn themselves (see `_hold`): the stop reason, the end of
# the message, an in-stream error.
_RELEASING = frozenset({"message_delta", "message_stop", "error"})
# What a compaction_delta sets on its block: each replaces the block's value (the official
# SDK's accumulator assigns them, so a delta carries a whole value, not a piece to append).
_COMPACTION_FIELDS = ("content", "encrypted_content")


class _ToolBlock(PendingToolCall):
    """A tool block being streamed: the call's parts plus the input the block started with."""

    __slots__ = ("initial", "server")

    def __init__(self, block: dict[str, Any]) -> None:
        super().__init__(block.get("id"), block.get("name"))
        self.initial: Any = block.get("input")
        self.server = block.get("type") != "tool_use"


class AnthropicMessagesProjector(ProjectorBase):
    """Projects one Anthropic Messages event stream (one instance per stream)."""

    __slots__ = (
        "_compactions",
        "_empty",
        "_message",
        "_model",
        "_server_calls",
        "_stop_reason",
        "_tools",
        "_turn",
        "_usage",
    )

    grammar = "Anthropic Messages stream"

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(secrets)
        self._model: Any = None
        self._usage: dict[str, Any] = {}
        self._stop_reason: Any = None
        self._tools: dict[Any, _ToolBlock] = {}
        # The name of every server-run call (server_tool_use, mcp_tool_use) by its id: its
        # result block names only the id, and a caller pairs results to calls by name too.
        self._server_calls: dict[Any, Any] = {}
        # Open compaction blocks by index: the block as it started, updated by its deltas.
        self._compactions: dict[Any, dict[str, Any]] = {}
        # What the result chunk carries beside usage, model and stop reason: the message id,
        # message_start's diagnostics, the message_delta's stop_sequence, stop_details and
        # container, and the applied context_management (as the one-shot message body does).
        self._message: dict[str, Any] = {}
        # A closed tool call that streamed no input text: (name, its tool_use chunk), held
        # until the stop reason says whether max_tokens cut it right after its name.
        self._empty: tuple[Any, StreamChunk] | None = None
        # The chunks from the turn's first closed caller tool call on, held until the stop
        # reason: a refusal after the call makes the turn's calls no request to run a tool.
        self._turn: list[StreamChunk] | None = None

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Project one decoded event."""
        if type(event) is not dict:
            raise self.protocol_error("event is not a JSON object", event)
        self.started = True
        kind = event.get("type")
        if self._empty is not None and kind not in ("message_delta", "ping"):
            # Anything but the stop reason after it: the call was complete.
            (_, call), self._empty = self._empty, None
            out = self._hold((call,))
            return (*out, *self._held(kind, event)) if out else self._held(kind, event)
        return self._held(kind, event)

    def _held(self, kind: Any, event: dict[str, Any]) -> Sequence[StreamChunk]:
        """The event's chunks, less what joins the held turn (the stop events release it)."""
        chunks = self._event(kind, event)
        return chunks if kind in _RELEASING else self._hold(chunks)

    def _hold(self, chunks: Sequence[StreamChunk]) -> Sequence[StreamChunk]:
        """``chunks`` less what joins the held turn (from a closed caller call to the stop).

        Only the stop reason says whether the classifiers refused the turn, and a refused
        turn's calls are not the model's request to run a tool; what follows a call is held
        with it so the stream keeps the turn's order.
        """
        if not chunks:
            return chunks
        if self._turn is not None:
            self._turn.extend(chunks)
            return NO_CHUNKS
        first = next((i for i, chunk in enumerate(chunks) if _caller_call(chunk)), None)
        if first is None:
            return chunks
        self._turn = list(chunks[first:])
        return chunks[:first]

    def _release_turn(self) -> tuple[list[StreamChunk], list[Any]]:
        """The held turn's chunks to hand out, and the names of the calls a refusal dropped."""
        turn, self._turn = self._turn or [], None
        if self._stop_reason != REFUSAL_STOP:
            return turn, []
        calls = [chunk.tool_name for chunk in turn if _caller_call(chunk)]
        return [chunk for chunk in turn if not _caller_call(chunk)], calls

    def _event(self, kind: Any, event: dict[str, Any]) -> Sequence[StreamChunk]:
        if kind == "content_block_delta":
            return self._delta(event)
        if kind == "content_block_start":
            return self._block_start(event)
        if kind == "content_block_stop":
            return self._block_stop(event)
        if kind == "message_start":
            message = event.get("message") or {}
            self._model = message.get("model")
            if message.get("id") is not None:
                self._message["response_id"] = message["id"]
            for key in _START_FIELDS:
                if message.get(key) is not None:
                    self._message[key] = message[key]
            self._usage = {k: v for k, v in (message.get("usage") or {}).items() if v is not None}
            return NO_CHUNKS
        if kind == "message_delta":
            delta = event.get("delta") or {}
            if delta.get("stop_reason"):
                self._stop_reason = delta["stop_reason"]
            for key in _DELTA_FIELDS:
                if delta.get(key) is not None:
                    self._message[key] = delta[key]
            for key in _EVENT_FIELDS:
                if event.get(key) is not None:
                    # Beside delta, not in it: what context editing or compaction cleared, what
                    # the serving model did to the input. A caller managing its own history
                    # needs them (and the one-shot body carries them).
                    self._message[key] = event[key]
            usage = event.get("usage") or {}
            self._usage.update({k: v for k, v in usage.items() if v is not None})
            turn, refused = self._release_turn()
            if self.held is not None:
                return (*turn, *self._resolve_cut())
            if self._empty is not None:
                return (*turn, *self._resolve_empty())
            if refused:
                details = self._message.get("stop_details")
                usage = dict(self._usage) or None
                cut = stop_cut(self, REFUSAL_STOP, refused, usage, details, written=True)
                return (*turn, cut)
            return turn
        if kind == "message_stop":
            turn, _ = self._release_turn()  # no stop reason came: the calls were complete
            if turn:
                return (*turn, *self._event(kind, event))  # the turn is released: no loop
            if self.held is not None:
                return self._resolve_cut()
            if self._tools or self._compactions:
                # A block that holds its content until content_block_stop (a tool call's input,
                # a compaction summary) and never got one: the API closes every block before
                # the message ends, so the stream broke its grammar, and what the block held
                # is not handed out as if complete nor dropped without a word.
                open_block = next(iter(self._tools.values()), None)
                what = f"tool call {open_block.name!r}" if open_block is not None else "compaction"
                raise self.protocol_error(
                    f"message_stop while the {what} block is open (no content_block_stop)",
                    event,
                )
            self.done = True
            result = self.result_chunk(self._usage or None, self._model, self._stop_reason)
            result.metadata.update(self._message)
            return (result,)
        if kind in ANTHROPIC_IGNORED_EVENTS:
            return NO_CHUNKS
        if kind == "error":
            turn, _ = self._release_turn()
            return (*turn, *self.error_chunk(event.get("error") or event))
        raise self.protocol_error(f"unrecognized event type {kind!r}", event)

    def _delta(self, event: dict[str, Any]) -> Sequence[StreamChunk]:
        delta = event.get("delta") or {}
        kind = delta.get("type")
        if kind == "text_delta":
            return (StreamChunk(type="text", content=delta.get("text") or "", is_delta=True),)
        if kind == "thinking_delta":
            content = delta.get("thinking") or ""
            return (StreamChunk(type="thinking", content=content, is_delta=True),)
        if kind == "input_json_delta":
            block = self._tools.get(event.get("index"))
            if block is None:
                raise self.protocol_error("input_json_delta outside a tool_use block", event)
            block.add(delta.get("partial_json"))
            return NO_CHUNKS
        if kind == "signature_delta":
            meta = {"signature": delta.get("signature")}
            return (StreamChunk(type="thinking", content="", is_delta=True, metadata=meta),)
        if kind == "citations_delta":
            meta = {"citation": delta.get("citation")}
            return (StreamChunk(type="text", content="", is_delta=True, metadata=meta),)
        if kind == "compaction_delta":
            compaction = self._compactions.get(event.get("index"))
            if compaction is None:
                raise self.protocol_error("compaction_delta outside a compaction block", event)
            for key in _COMPACTION_FIELDS:
                if key in delta:
                    compaction[key] = delta[key]
            return NO_CHUNKS
        if kind in ANTHROPIC_IGNORED_DELTAS:
            return NO_CHUNKS
        raise self.protocol_error(f"unrecognized content_block_delta type {kind!r}", event)

    def _block_start(self, event: dict[str, Any]) -> Sequence[StreamChunk]:
        block = event.get("content_block")
        if type(block) is not dict:
            raise self.protocol_error("content_block_start without a content_block", event)
        kind = block.get("type")
        if kind in TOOL_BLOCKS:
            tool = self._tools[event.get("index")] = _ToolBlock(block)
            if tool.server and tool.id is not None:
                self._server_calls[tool.id] = tool.name
            return NO_CHUNKS
        field = _TEXT_FIELDS.get(kind) if isinstance(kind, str) else None
        if field is not None:
            text = block.get(field)
            chunks: list[StreamChunk] = []
            if text and isinstance(text, str):
                chunks.append(StreamChunk(type=field, content=text, is_delta=True))
            signature = block.get("signature") if kind == "thinking" else None
            if signature:
                # A thinking block that starts signed (its signature arrives with it, not as a
                # signature_delta) keeps it the same way: the turn cannot go back without it.
                meta = {"signature": signature}
                chunks.append(
                    StreamChunk(type="thinking", content="", is_delta=True, metadata=meta)
                )
            return tuple(chunks) if chunks else NO_CHUNKS
        if kind == "redacted_thinking":
            meta = {"redacted_thinking": block.get("data")}
            return (StreamChunk(type="thinking", content="", is_delta=True, metadata=meta),)
        if kind == "compaction":
            # Its summary and encrypted state may come in a compaction_delta: the block is
            # yielded whole at its stop. ``content`` is a required member of the block sent back
            # (null for a failed compaction, which the API treats as a no-op), so it is there.
            self._compactions[event.get("index")] = {**block, "content": block.get("content")}
            return NO_CHUNKS
        if isinstance(kind, str) and kind.endswith("_tool_result") and block.get("tool_use_id"):
            return (self._server_result(kind, block),)
        whole = _WHOLE_BLOCKS.get(kind) if isinstance(kind, str) else None
        if whole is not None:
            # Conversation state, neither reasoning nor answer text (as a compaction block is):
            # the caller sends it back where it stood, so it is kept whole, never dropped.
            to = block.get("to") if kind == "fallback" else None
            if isinstance(to, dict) and to.get("model"):
                # The model that answers from here on: the one the result names, as the
                # one-shot message does (message_start named the model that declined).
                self._model = to["model"]
            return (StreamChunk(type="system", metadata={whole: block}),)
        if kind in ANTHROPIC_IGNORED_BLOCKS:
            return NO_CHUNKS
        raise self.protocol_error(f"unrecognized content block type {kind!r}", event)

    def _block_stop(self, event: dict[str, Any]) -> Sequence[StreamChunk]:
        compaction = self._compactions.pop(event.get("index"), None)
        if compaction is not None:
            # Conversation state the caller carries forward, neither reasoning nor answer text:
            # a system chunk, as the OpenAI Responses adapter yields its compaction item.
            return (StreamChunk(type="system", metadata={"compaction_block": compaction}),)
        block = self._tools.pop(event.get("index"), None)
        if block is None:
            return NO_CHUNKS  # the end of a text, thinking or result block: nothing owed
        meta = {"server_tool": True} if block.server else {}
        raw = block.arguments
        if not raw and block.initial == {}:
            # No input text at all: a call to a tool without parameters, or one max_tokens cut
            # right after its name. Only the stop reason tells; running the tool on an empty
            # input it never got would be a guess.
            self._empty = (block.name, self.tool_use_chunk(block.id, block.name, {}, meta))
            return NO_CHUNKS
        if raw or not isinstance(block.initial, dict):
            try:
                return (self.tool_use_chunk(block.id, block.name, raw, meta),)
            except ProviderProtocolError as exc:
                # Cut off by max_tokens, or malformed? Only the message_delta that follows
                # says (its stop_reason); nothing else is owed from a stream that stopped here.
                self.hold_unparsed(block.name, raw, exc)
                return NO_CHUNKS
        return (self.tool_use_chunk(block.id, block.name, block.initial, meta),)

    def _resolve_empty(self) -> Sequence[StreamChunk]:
        """The held input-less call at the stop reason: a cut's error chunk, else the call."""
        assert self._empty is not None
        (name, call), self._empty = self._empty, None
        if self._stop_reason in CUT_STOPS:
            return (self._stop_cut(name),)
        if self._stop_reason != "max_tokens":
            return (call,)
        # "{" is what a cut right after the name leaves: cut_short's error chunk, always.
        cut = self.cut_short(name, "{", "max_tokens", dict(self._usage) or None)
        assert cut is not None
        return (cut,)

    def _resolve_cut(self) -> Sequence[StreamChunk]:
        """The held tool block at the stop reason: the cut's error chunk, else its own error."""
        if self._stop_reason in CUT_STOPS and self.held is not None:
            name, arguments, _ = self.held
            if _cut(arguments):
                self.held = None
                return (self._stop_cut(name),)
        limit = "max_tokens" if self._stop_reason == "max_tokens" else None
        return (self.release_held(limit, dict(self._usage) or None),)

    def _stop_cut(self, name: Any) -> StreamChunk:
        """The error chunk for a tool call the context window or a refusal stopped in."""
        details = self._message.get("stop_details")
        return stop_cut(self, self._stop_reason, name, dict(self._usage) or None, details)

    def _server_result(self, kind: str, block: dict[str, Any]) -> StreamChunk:
        content = block.get("content")
        failed = bool(block.get("is_error")) or (
            isinstance(content, dict) and str(content.get("type", "")).endswith("_error")
        )
        tool_id = block.get("tool_use_id")
        return StreamChunk(
            type="tool_result",
            tool_id=tool_id,
            tool_name=self._server_calls.get(tool_id),
            tool_output=content,
            is_error=failed,
            metadata={"server_tool": True, "block_type": kind},
        )


def _caller_call(chunk: StreamChunk) -> bool:
    """Whether ``chunk`` is a call the caller runs (a server-run call's result is in the turn)."""
    return chunk.type == "tool_use" and not chunk.metadata.get("server_tool")


def _cut(arguments: str) -> bool:
    """Whether held input text stopped mid-JSON (``[1]`` parses: malformed, not cut)."""
    try:
        json.loads(arguments)
    except ValueError:
        return True
    return False


def stop_cut(
    projector: ProjectorBase,
    reason: str,
    name: Any,
    usage: Any = None,
    details: Any = None,
    *,
    written: bool = False,
) -> StreamChunk:
    """The error chunk for a tool call a `CUT_STOPS` stop reason cut short.

    Shaped like core's token-limit chunk (``code`` and ``finish_reason`` the stop reason, the
    usage so far, and the ``stop_details`` the stop came with), so a caller handles one error
    however the output was cut. The code types it: core reads the context window's as the
    context family (``ProviderStreamContextError``), the endpoint's ``error_patterns`` read
    ``refusal`` as the content-filter family; neither is retried. Core's token-limit text is
    not used: its fix (raise ``max_tokens``) helps neither, so the text gives the one that does.
    ``written`` says a refusal came after whole calls, ``name`` then the list of their names.
    """
    if reason == REFUSAL_STOP:
        why = f"stop_reason {REFUSAL_STOP!r}"
        facts = details if isinstance(details, dict) else {}
        if isinstance(facts.get("category"), str):
            why = f"{why}, category {facts['category']!r}"
        if isinstance(facts.get("explanation"), str) and facts["explanation"]:
            why = f"{why}: {facts['explanation']}"
        where = (
            f"after the model wrote tool call(s) {', '.join(map(repr, name))}, which are not "
            "handed out (a refused turn's calls are no request to run a tool)"
            if written
            else f"while the model was writing the input of tool call {name!r}, which is cut "
            "short and not handed out"
        )
        message = (
            f"Anthropic's safety classifiers stopped the answer ({why}) {where}; the same "
            "conversation is refused again: remove or rephrase the turn that triggered the "
            "refusal and retry"
        )
    else:
        message = (
            f"the output reached the model's context window ({reason!r}) while writing the "
            f"input of tool call {name!r}, which is cut short; a higher max_tokens does not "
            "help: shorten the conversation (drop or summarize earlier turns, or clear old tool "
            "results with context_management) and retry"
        )
    (chunk,) = projector.error_chunk({"message": message, "code": reason})
    chunk.metadata["finish_reason"] = reason
    if details is not None:
        chunk.metadata["stop_details"] = details
    if usage:
        chunk.metadata["usage"] = usage
    return chunk

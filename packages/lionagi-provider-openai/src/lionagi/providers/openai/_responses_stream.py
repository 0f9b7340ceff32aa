"""OpenAI Responses stream events to :class:`StreamChunk` (``POST /v1/responses``, ``stream``).

The Responses grammar names every event with a ``type``: output text and reasoning arrive as
``*.delta`` events, each output item closes with ``response.output_item.done`` (a function call's
complete ``arguments`` are there, so argument deltas need not be reassembled), and the stream
ends with ``response.completed`` / ``response.incomplete`` (usage on the response object) or
``response.failed`` / ``error``.

Events that carry nothing a chunk represents are listed in :data:`RESPONSES_IGNORED_EVENTS`;
anything neither handled nor listed is a :class:`~lionagi.service.ProviderProtocolError`, so a
new content-bearing event type is noticed rather than dropped.

A function call cut off by the output token limit (``response.incomplete`` with
``incomplete_details.reason == "max_output_tokens"`` while its arguments are a prefix of a JSON
object) ends the stream with the error chunk of :meth:`ProjectorBase.cut_short`, naming the tool
and the limit, whether the server closed the cut item (``response.output_item.done`` with the
prefix: the call is held until the terminal event says why) or left it open (argument deltas and
no done event: the calls opened by ``response.output_item.added`` are tracked until they close).

A custom tool's call (``custom_tool_call``) has free-text input, with no syntax showing it whole,
so the rule is the chat dialect's (``finish_reason: "length"``): the call being written when the
limit struck is cut. A closed custom call is held until the model writes more (a new item, any
content, an error), which proves it closed, or the terminal event: ``max_output_tokens`` then
ends the stream with an error chunk naming it instead of a ``tool_use`` on a prefix. A custom
call still open at that limit, the last one open, is cut the same way.

A reasoning summary is a list of ``summary_text`` parts (paragraphs): the one-shot body keeps
them apart, and the stream's ``thinking`` text puts a blank line (two newlines) before each
part after the first, so the parts no longer run together ("...first.Second..."). A part
begins with ``response.reasoning_summary_part.added`` or a delta naming another part
(``item_id``, ``summary_index``) than the summary text before it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from lionagi.service import ProviderProtocolError, StreamChunk
from lionagi.service.http import NO_CHUNKS, PendingToolCall, ProjectorBase, json_kind

__all__ = ["RESPONSES_IGNORED_EVENTS", "ResponsesProjector"]

# Bookkeeping, telemetry and "*.done" events whose content already arrived through a delta or
# arrives in ``response.output_item.done``. Server-side tool progress (web/file search, code
# interpreter, image generation, MCP) has no chunk type: its outcome is in the output items.
# None of them yields a chunk; ``response.output_item.added`` and
# ``response.function_call_arguments.*`` are still read, to know which function call is open when
# the stream ends (a call cut off by the output token limit), and
# ``response.reasoning_summary_part.added``, to know where a new summary part begins.
# ``keepalive`` (``{"type": "keepalive", "sequence_number": n}``) is undocumented but real: the
# API sends it during long silent stretches (a long reasoning phase), so refusing it would end
# exactly the slow streams it exists to keep open.
RESPONSES_IGNORED_EVENTS = frozenset(
    {
        "keepalive",
        "response.created",
        "response.in_progress",
        "response.queued",
        "response.output_item.added",
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.done",
        "response.refusal.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_part.done",
        "response.reasoning_summary_text.done",
        "response.reasoning_text.done",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.custom_tool_call_input.delta",
        "response.custom_tool_call_input.done",
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
        "response.file_search_call.in_progress",
        "response.file_search_call.searching",
        "response.file_search_call.completed",
        "response.code_interpreter_call.in_progress",
        "response.code_interpreter_call.interpreting",
        "response.code_interpreter_call.completed",
        "response.code_interpreter_call_code.delta",
        "response.code_interpreter_call_code.done",
        "response.image_generation_call.in_progress",
        "response.image_generation_call.generating",
        "response.image_generation_call.partial_image",
        "response.image_generation_call.completed",
        "response.mcp_call.in_progress",
        "response.mcp_call.completed",
        "response.mcp_call.failed",
        "response.mcp_call_arguments.delta",
        "response.mcp_call_arguments.done",
        "response.mcp_list_tools.in_progress",
        "response.mcp_list_tools.completed",
        "response.mcp_list_tools.failed",
        "response.shell_call_command.added",
        "response.shell_call_command.delta",
        "response.shell_call_command.done",
        "response.shell_call_output_content.delta",
        "response.shell_call_output_content.done",
        "response.compaction.compacting",
    }
)

# Output items naming a tool the *caller* runs (the model asks; the application executes and
# answers with the matching ``*_output`` item), and the key holding what to run. Server-side
# tools (web/file search, code interpreter, image generation, MCP) ran at OpenAI already.
_CLIENT_TOOL_ITEMS = {
    "computer_call": "action",
    "local_shell_call": "action",
    "shell_call": "action",
    "apply_patch_call": "operation",
}

# Output items of tools OpenAI ran itself: each is the call and its outcome in one (a web
# search's query and sources, the generated image, an MCP call's output). Their progress events
# carry nothing, so the closed item is the only place the stream has what the one-shot body's
# ``output`` lists: one ``tool_result`` each, the item whole as its output.
_SERVER_TOOL_ITEMS = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
        "tool_search_call",
        "tool_search_output",
    }
)

_SUMMARY_DELTA = "response.reasoning_summary_text.delta"
_SUMMARY_PART = "response.reasoning_summary_part.added"
# What separates two reasoning summary parts in the streamed thinking text: a blank line, as
# between the paragraphs the parts are.
_SUMMARY_SEPARATOR = "\n\n"
_TERMINAL = frozenset({"response.completed", "response.incomplete"})
# Read to follow an open function or custom tool call (each is also in RESPONSES_IGNORED_EVENTS:
# no chunk).
_CALL_EVENTS = frozenset(
    {
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.custom_tool_call_input.delta",
        "response.custom_tool_call_input.done",
    }
)
_ARGUMENT_DELTAS = frozenset(
    {"response.function_call_arguments.delta", "response.custom_tool_call_input.delta"}
)
# Events showing the model wrote on after a closed custom call (so it was not cut): a new item
# opened or closed; anything else that is not bookkeeping (content, an error) is such an event too.
_ITEM_EVENTS = frozenset({"response.output_item.added", "response.output_item.done"})


class ResponsesProjector(ProjectorBase):
    """The Responses API stream: text, reasoning, tool calls, one result or one error."""

    __slots__ = ("_custom", "_open", "_summary_break", "_summary_part")

    grammar = "OpenAI Responses stream"

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(secrets)
        # Function calls announced by ``response.output_item.added`` and not closed yet, in
        # output order, by item id (else output index): their argument text so far.
        self._open: dict[str | int, PendingToolCall] = {}
        # The last closed custom tool call's ``tool_use``, held until the model writes on (it
        # was whole) or the terminal event says whether ``max_output_tokens`` cut it.
        self._custom: StreamChunk | None = None
        # The summary part whose text was streamed last (item, summary index; either may be
        # unnamed), None before any; and whether a part was announced since that text.
        self._summary_part: tuple[str | int | None, int | None] | None = None
        self._summary_break = False

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Project one event."""
        if type(event) is not dict:
            raise self.protocol_error("event is not a JSON object", event)
        self.started = True
        released: tuple[StreamChunk, ...] = ()
        if self._custom is not None:
            kind = event.get("type")
            if kind in _ITEM_EVENTS or (
                kind not in RESPONSES_IGNORED_EVENTS and kind not in _TERMINAL
            ):
                # Output after the custom call: it was closed whole, not cut; deliver it first.
                released, self._custom = (self._custom,), None
        held = self.held is not None
        chunks = self._project(event)
        if held and chunks and not self.done:
            # A cut call is the last thing the model wrote: output after it means the held
            # call was malformed, not cut, and its error is not kept back behind the rest.
            self.release_held(None)
        return (*released, *chunks) if released else chunks

    def _project(self, event: dict[str, Any]) -> Sequence[StreamChunk]:
        kind = event.get("type")
        if kind == "response.output_text.delta":
            chunk = StreamChunk(type="text", content=event.get("delta") or "", is_delta=True)
            logprobs = event.get("logprobs")
            if logprobs:  # asked for with include=["message.output_text.logprobs"]
                chunk.metadata["logprobs"] = logprobs
            return (chunk,)
        if kind == "response.output_text.annotation.added":
            # A citation (web/file search) or file path in the text: the one-shot body lists it
            # in the output text's `annotations`, so the stream keeps it, in order, on a text
            # chunk with no text (the chat projector's shape for `delta.annotations`).
            annotation = event.get("annotation")
            if type(annotation) is not dict:
                raise self.protocol_error("annotation event without an annotation object", event)
            return (
                StreamChunk(
                    type="text", content="", is_delta=True, metadata={"annotation": annotation}
                ),
            )
        if kind == _SUMMARY_DELTA:
            return (self._summary_delta(event),)
        if kind == "response.reasoning_text.delta":
            return (StreamChunk(type="thinking", content=event.get("delta") or "", is_delta=True),)
        if kind == _SUMMARY_PART:
            self._summary_break = True
            return NO_CHUNKS
        if kind in _CALL_EVENTS:
            self._track(kind, event)
            return NO_CHUNKS
        if kind in RESPONSES_IGNORED_EVENTS:
            return NO_CHUNKS
        if kind == "response.output_item.done":
            return self._item_done(event.get("item") or {}, event.get("output_index"))
        if kind in _TERMINAL:
            return self._finish(kind, event.get("response") or {})
        if kind == "response.failed":
            response = event.get("response") or {}
            chunks = self.error_chunk(response.get("error") or {"message": "response failed"})
            usage = response.get("usage")
            if usage:
                # Tokens a failed response used are billed: the error chunk keeps its count,
                # as a chat stream's error chunk keeps the usage it came with.
                chunks[0].metadata["usage"] = usage
            return chunks
        if kind == "error":
            # The documented shape puts code/message on the event; some servers nest "error".
            error = event.get("error")
            return self.error_chunk(error if error is not None else event)
        if kind == "response.refusal.delta":
            delta = event.get("delta") or ""
            return (
                StreamChunk(type="text", content=delta, is_delta=True, metadata={"refusal": True}),
            )
        raise self.protocol_error(f"unrecognized event type {kind!r}", event)

    def _summary_delta(self, event: dict[str, Any]) -> StreamChunk:
        """A summary delta's ``thinking`` chunk: a new part's first text follows a blank line.

        The one-shot body lists the summary's parts apart, and a consumer joins the stream's
        deltas as they come: without the separator two paragraphs ran together. A new part is
        one announced by ``response.reasoning_summary_part.added`` since the last summary text,
        or a delta whose item or ``summary_index`` differs from that text's (where both name
        it); the stream's first summary text has nothing before it to separate.
        """
        delta = event.get("delta") or ""
        if not delta:
            return StreamChunk(type="thinking", content="", is_delta=True)
        index = event.get("summary_index")
        part = (
            _key(event.get("item_id"), event.get("output_index")),
            index if type(index) is int else None,
        )
        before = self._summary_part
        if before is not None and (self._summary_break or _other_part(before, part)):
            delta = _SUMMARY_SEPARATOR + delta
        self._summary_part, self._summary_break = part, False
        return StreamChunk(type="thinking", content=delta, is_delta=True)

    def _track(self, kind: str, event: dict[str, Any]) -> None:
        """Follow a function or custom call's input until its item closes (no chunk owed yet)."""
        if kind == "response.output_item.added":
            item = event.get("item")
            if type(item) is dict and item.get("type") in ("function_call", "custom_tool_call"):
                custom = item["type"] == "custom_tool_call"
                key = _key(item.get("id"), event.get("output_index"))
                if key is not None:
                    call_id = item.get("call_id") or item.get("id")
                    opened = PendingToolCall(call_id, item.get("name"), custom=custom)
                    opened.add(item.get("input" if custom else "arguments"))
                    self._open[key] = opened
            return
        key = _key(event.get("item_id"), event.get("output_index"))
        call = self._open.get(key) if key is not None else None
        if call is None:
            return  # a call never announced: its output_item.done still carries it whole
        whole = event.get("input" if call.custom else "arguments")
        if kind in _ARGUMENT_DELTAS:
            call.add(event.get("delta"))
        elif isinstance(whole, str):  # ...done: the whole text
            call.args = [whole]

    def _finish(self, kind: str, response: Any) -> Sequence[StreamChunk]:
        """The one result chunk; an incomplete response reports why (``max_output_tokens``).

        A call still held or open then is resolved first: cut off by the output token limit,
        it ends the stream with :meth:`cut_short`'s error chunk instead of the result; at any
        other end its arguments must be a JSON object (else the protocol error). A held custom
        call, or the last open one, is cut by that limit (its free text cannot show it is
        whole); at any other end it is a ``tool_use``.
        """
        status = response.get("status")
        if kind == "response.incomplete" or status == "incomplete":
            details = response.get("incomplete_details") or {}
            status = details.get("reason") or "incomplete"
        usage = response.get("usage")
        limit = status == "max_output_tokens"
        out: list[StreamChunk] = []
        custom, self._custom = self._custom, None
        if custom is not None:
            if limit:
                self._open.clear()
                return (self._custom_cut(custom.tool_name, status, usage),)
            out.append(custom)
        if self.held is not None:
            return (*out, self.release_held(status if limit else None, usage))
        while self._open:
            call = self._open.pop(next(iter(self._open)))
            if limit:
                if call.custom:
                    # The last open custom call is the one being written; earlier ones closed.
                    cut = None if self._open else self._custom_cut(call.name, status, usage)
                else:
                    # No argument text yet is cut too: the model named the tool, then stopped.
                    cut = self.cut_short(call.name, call.arguments.strip() or "{", status, usage)
                if cut is not None:
                    self._open.clear()
                    out.append(cut)
                    return out
            out.append(self.tool_use_chunk(call.id, call.name, call.call_input))
        self.done = True
        result = self.result_chunk(usage, response.get("model"), status)
        response_id = response.get("id")
        if response_id:
            # What the next turn's `previous_response_id` names; the one-shot body has it too.
            result.metadata["response_id"] = response_id
        tier = response.get("service_tier")
        if tier:
            # The tier that served (and bills) the response, which "auto" leaves to the project.
            result.metadata["service_tier"] = tier
        out.append(result)
        return out

    def _custom_cut(self, name: str | None, reason: str, usage: Any) -> StreamChunk:
        """The error chunk for a custom call the output token limit cut, naming it and the fix."""
        return self.limit_chunk(
            f"the input of custom tool call {name!r}, which is",
            reason,
            usage,
            limit="max_output_tokens",
        )

    def _item_done(self, item: Any, output_index: Any) -> Sequence[StreamChunk]:
        kind = item.get("type")
        tool_id = item.get("call_id") or item.get("id")
        if kind == "function_call":
            key = _key(item.get("id"), output_index)
            if key is not None:
                self._open.pop(key, None)
            arguments = item.get("arguments") or ""
            try:
                return (self.tool_use_chunk(tool_id, item.get("name"), arguments),)
            except ProviderProtocolError as exc:
                if not isinstance(arguments, str) or _is_json(arguments):
                    raise  # JSON, but not an object: no cut makes that
                self.hold_unparsed(item.get("name"), arguments, exc)
                return NO_CHUNKS
        if kind == "custom_tool_call":
            key = _key(item.get("id"), output_index)
            if key is not None:
                self._open.pop(key, None)
            if self.held is not None:
                self.release_held(None)  # a call after the held one: that one was malformed
            text = item.get("input")
            if not isinstance(text, str):
                raise self.protocol_error(
                    f"custom tool call {item.get('name')!r} input is JSON {json_kind(text)}, "
                    "not text",
                    item,
                )
            # A custom tool's input is free text, not JSON: carried under "input". Held until
            # the model writes on or the stream ends (the limit may have cut it).
            self._custom = self.tool_use_chunk(tool_id, item.get("name"), {"input": text})
            return NO_CHUNKS
        field = _CLIENT_TOOL_ITEMS.get(kind)
        if field is not None:
            request = item.get(field)
            if not isinstance(request, dict):
                raise self.protocol_error(f"{kind} item without an {field!r} object", item)
            return (self.tool_use_chunk(tool_id, kind, request, {"item_type": kind}),)
        if kind in _SERVER_TOOL_ITEMS:
            failed = item.get("status") == "failed" or bool(item.get("error"))
            return (
                StreamChunk(
                    type="tool_result",
                    tool_id=item.get("id"),
                    tool_name=kind,
                    tool_output=item,
                    is_error=failed,
                    metadata={"server_tool": True, "item_type": kind},
                ),
            )
        if kind == "mcp_approval_request":
            # The caller must answer (an ``mcp_approval_response`` naming this id) before the
            # MCP call runs: a stream that dropped it ended "completed" with nothing to act on.
            request = {key: item.get(key) for key in ("server_label", "name", "arguments")}
            return (self.tool_use_chunk(item.get("id"), kind, request, {"item_type": kind}),)
        if kind == "reasoning" and item.get("encrypted_content"):
            # Asked for with include=["reasoning.encrypted_content"] (stateless, store=false):
            # the whole item must go back in the next request's input, so it is kept.
            meta = {"reasoning_item": item}
            return (StreamChunk(type="thinking", content="", is_delta=True, metadata=meta),)
        if kind == "compaction":
            # The encrypted summary ``context_management`` compaction left in place of the
            # earlier turns: the one-shot body lists it in ``output``, and a stateless caller
            # (``store=false``) must send it back in the next ``input``, so it is kept.
            meta = {"compaction_item": item}
            return (StreamChunk(type="system", metadata=meta),)
        if kind in _STREAMED_ITEMS:
            return NO_CHUNKS  # their content already streamed as deltas
        # An item type this projector does not know yet (the API adds them): the one-shot body
        # lists it in ``output``, so the stream keeps it too, whole, rather than dropping it;
        # failing the stream for it would end every call that meets the next new type.
        return (StreamChunk(type="system", metadata={"output_item": item, "item_type": kind}),)


_STREAMED_ITEMS = frozenset({"message", "reasoning"})
"""Output items whose content reached the consumer as deltas before the item closed."""


def _key(item_id: Any, output_index: Any) -> str | int | None:
    """Where an open call is filed: its item id, else its output index (hashable values only)."""
    if isinstance(item_id, str) and item_id:
        return item_id
    if type(output_index) is int:
        return output_index
    return None


def _other_part(
    before: tuple[str | int | None, int | None], part: tuple[str | int | None, int | None]
) -> bool:
    """Whether ``part``'s item or summary index differs from ``before``'s, where both name it."""
    return any(
        a is not None and b is not None and a != b for a, b in zip(before, part, strict=True)
    )


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True

"""OpenAI Responses stream events to :class:`StreamChunk` (``POST /v1/responses``, ``stream``).

The Responses grammar names every event with a ``type``: output text and reasoning arrive as
``*.delta`` events, each output item closes with ``response.output_item.done`` (a function call's
complete ``arguments`` are there, so argument deltas need not be reassembled), and the stream
ends with ``response.completed`` / ``response.incomplete`` (usage on the response object) or
``response.failed`` / ``error``.

Events that carry nothing a chunk represents are listed in :data:`RESPONSES_IGNORED_EVENTS`;
anything neither handled nor listed is a :class:`~lionagi.service.ProviderProtocolError`, so a
new content-bearing event type is noticed rather than dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lionagi.service import StreamChunk
from lionagi.service.http import NO_CHUNKS, ProjectorBase

__all__ = ["RESPONSES_IGNORED_EVENTS", "ResponsesProjector"]

# Bookkeeping, telemetry and "*.done" events whose content already arrived through a delta or
# arrives in ``response.output_item.done``. Server-side tool progress (web/file search, code
# interpreter, image generation, MCP) has no chunk type: its outcome is in the output items.
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
        "response.output_text.annotation.added",
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

_THINKING_DELTAS = frozenset(
    {"response.reasoning_summary_text.delta", "response.reasoning_text.delta"}
)
_TERMINAL = frozenset({"response.completed", "response.incomplete"})


class ResponsesProjector(ProjectorBase):
    """The Responses API stream: text, reasoning, tool calls, one result or one error."""

    __slots__ = ()

    grammar = "OpenAI Responses stream"

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Project one event."""
        if type(event) is not dict:
            raise self.protocol_error("event is not a JSON object", event)
        self.started = True
        kind = event.get("type")
        if kind == "response.output_text.delta":
            return (StreamChunk(type="text", content=event.get("delta") or "", is_delta=True),)
        if kind in _THINKING_DELTAS:
            return (StreamChunk(type="thinking", content=event.get("delta") or "", is_delta=True),)
        if kind in RESPONSES_IGNORED_EVENTS:
            return NO_CHUNKS
        if kind == "response.output_item.done":
            return self._item_done(event.get("item") or {})
        if kind in _TERMINAL:
            return (self._result(kind, event.get("response") or {}),)
        if kind == "response.failed":
            response = event.get("response") or {}
            return self.error_chunk(response.get("error") or {"message": "response failed"})
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

    def _result(self, kind: str, response: Any) -> StreamChunk:
        """The one result chunk; an incomplete response reports why (``max_output_tokens``)."""
        status = response.get("status")
        if kind == "response.incomplete" or status == "incomplete":
            details = response.get("incomplete_details") or {}
            status = details.get("reason") or "incomplete"
        self.done = True
        return self.result_chunk(response.get("usage"), response.get("model"), status)

    def _item_done(self, item: Any) -> Sequence[StreamChunk]:
        kind = item.get("type")
        tool_id = item.get("call_id") or item.get("id")
        if kind == "function_call":
            return (self.tool_use_chunk(tool_id, item.get("name"), item.get("arguments") or ""),)
        if kind == "custom_tool_call":
            # A custom tool's input is free text, not JSON: carried under "input".
            return (self.tool_use_chunk(tool_id, item.get("name"), {"input": item.get("input")}),)
        field = _CLIENT_TOOL_ITEMS.get(kind)
        if field is not None:
            request = item.get(field)
            if not isinstance(request, dict):
                raise self.protocol_error(f"{kind} item without an {field!r} object", item)
            return (self.tool_use_chunk(tool_id, kind, request, {"item_type": kind}),)
        # message / reasoning / server-side tool items: their content already streamed as deltas.
        return NO_CHUNKS

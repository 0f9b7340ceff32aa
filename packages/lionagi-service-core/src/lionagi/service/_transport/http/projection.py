"""Vendor stream events to :class:`StreamChunk` (ADR-0027 D3 chunk types).

Three grammars: OpenAI chat completions chunks, OpenAI Responses events and Anthropic Messages
events. Each projector is a small state machine fed one decoded JSON object at a time; the
per-event work is dict lookups and one slotted dataclass, never a pydantic model.

Contract shared by all three:

- text deltas -> ``text`` (``is_delta=True``); reasoning deltas -> ``thinking``;
- tool calls are accumulated and emitted once, complete, as ``tool_use`` with a parsed dict input
  (arguments that are not a JSON object raise :class:`ProviderProtocolError`);
- the end of a successful stream yields exactly one ``result`` chunk whose metadata is
  ``{"usage", "model", "finish_reason"}``;
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
from typing import Any, Literal, Protocol

from ..._base.chunk import StreamChunk
from ..._base.errors import ProviderProtocolError
from .status import excerpt

__all__ = [
    "ANTHROPIC_IGNORED_EVENTS",
    "RESPONSES_IGNORED_EVENTS",
    "AnthropicMessagesProjector",
    "AutoProjector",
    "ChatCompletionsProjector",
    "ResponsesProjector",
    "StreamFormat",
    "StreamProjector",
    "format_for_path",
    "make_projector",
]

StreamFormat = Literal["openai_chat", "openai_responses", "anthropic_messages"]

_NONE: tuple[StreamChunk, ...] = ()

# Bookkeeping and telemetry events that carry nothing a StreamChunk needs (their content arrives
# through the delta and *.done events handled explicitly). Anything not here and not handled is a
# protocol error, so a new content-bearing event type is noticed instead of silently dropped.
RESPONSES_IGNORED_EVENTS = frozenset(
    {
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
    }
)

ANTHROPIC_IGNORED_EVENTS = frozenset({"ping"})
_ANTHROPIC_IGNORED_DELTAS = frozenset({"signature_delta", "citations_delta"})
_ANTHROPIC_EVENTS = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        *ANTHROPIC_IGNORED_EVENTS,
    }
)
_ANTHROPIC_TOOL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})


class StreamProjector(Protocol):
    """What the stream loop drives: ``feed`` per event, ``end`` at ``[DONE]`` or EOF."""

    @property
    def done(self) -> bool:
        """True once the grammar's terminal event (or an error event) was projected."""
        ...

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Chunks for one decoded event."""
        ...

    def end(self, *, eof: bool) -> Sequence[StreamChunk]:
        """Chunks owed at ``[DONE]`` (``eof=False``) or EOF; raises if the stream was cut."""
        ...


def _dump(event: Any, secrets: tuple[str, ...]) -> str:
    try:
        text = json.dumps(event, default=str)
    except (TypeError, ValueError):
        text = repr(event)
    return excerpt(text, secrets, 300)


class _Base:
    __slots__ = ("_secrets", "done", "started")

    grammar = "stream"

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        self._secrets = secrets
        self.done = False
        self.started = False

    def _protocol(self, what: str, event: Any = None) -> ProviderProtocolError:
        detail = f": {_dump(event, self._secrets)}" if event is not None else ""
        return ProviderProtocolError(f"{self.grammar}: {what}{detail}")

    def _error_chunk(self, error: Any) -> tuple[StreamChunk, ...]:
        message: Any = error
        code: Any = None
        if isinstance(error, dict):
            message = error.get("message") or error.get("error") or error
            code = error.get("code") or error.get("type")
        if not isinstance(message, str):
            message = _dump(message, self._secrets)
        self.done = True
        # The code is provider text too (a proxy may put the rejected key there): redacted.
        meta: dict[str, Any] = {}
        if code is not None:
            meta["code"] = excerpt(code if isinstance(code, str) else str(code), self._secrets, 200)
        return (
            StreamChunk(
                type="error",
                content=excerpt(message, self._secrets),
                is_error=True,
                metadata=meta,
            ),
        )

    def _tool_input(self, name: str | None, raw: str) -> dict[str, Any]:
        if not raw.strip():
            return {}
        try:
            value = json.loads(raw)
        except ValueError:
            shown = excerpt(raw, self._secrets, 300)
            raise self._protocol(
                f"tool call {name!r} arguments are not valid JSON: {shown}"
            ) from None
        if not isinstance(value, dict):
            raise self._protocol(f"tool call {name!r} arguments are not a JSON object")
        return value

    def _truncated(self) -> ProviderProtocolError:
        return self._protocol("stream ended before completion")

    def end(self, *, eof: bool) -> Sequence[StreamChunk]:
        """Only the grammar's terminal event (or an error) completes a stream that started.

        Responses ends with ``response.completed``/``response.incomplete``, Anthropic with
        ``message_stop``; OpenAI chat overrides this because ``[DONE]`` may be missing.
        """
        if self.done:
            return _NONE
        self.done = True
        if self.started:
            raise self._truncated()
        return _NONE

    @staticmethod
    def _result(usage: Any, model: Any, finish_reason: Any) -> StreamChunk:
        return StreamChunk(
            type="result",
            metadata={"usage": usage, "model": model, "finish_reason": finish_reason},
        )


# --- OpenAI chat completions ---------------------------------------------------------------------


class _ToolCall:
    __slots__ = ("args", "id", "name")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name: str | None = None
        self.args: list[str] = []


class ChatCompletionsProjector(_Base):
    """``chat.completion.chunk`` objects; also accepts a whole ``chat.completion`` (one line)."""

    __slots__ = ("_finish_reason", "_model", "_tools", "_usage")

    grammar = "OpenAI chat stream"

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(secrets)
        self._model: Any = None
        self._usage: Any = None
        self._finish_reason: Any = None
        self._tools: dict[tuple[int, Any], _ToolCall] = {}

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Project one chunk object."""
        if type(event) is not dict:
            raise self._protocol("event is not a JSON object", event)
        self.started = True
        choices = event.get("choices")
        if choices is None:
            if "error" in event:
                return self._error_chunk(event["error"])
            raise self._protocol("unrecognized event (no 'choices')", event)
        model = event.get("model")
        if model:
            self._model = model
        usage = event.get("usage")
        if usage:
            self._usage = usage
        if not choices:
            return _NONE
        out: list[StreamChunk] = []
        for choice in choices:
            index = choice.get("index") or 0
            delta = choice.get("delta")
            is_delta = True
            if delta is None:
                delta = choice.get("message")
                is_delta = False
            if delta:
                self._delta(index, delta, is_delta, out)
            finish = choice.get("finish_reason")
            if finish:
                self._finish_reason = finish
                self._flush_tools(index, out)
        return out

    def _delta(self, index: int, delta: Any, is_delta: bool, out: list[StreamChunk]) -> None:
        content = delta.get("content")
        if content is not None and len(delta) == 1:
            # The common shape, one text delta per event: every other lookup would be None.
            if content and isinstance(content, str):
                out.append(
                    StreamChunk(
                        type="text",
                        content=content,
                        is_delta=is_delta,
                        metadata={"index": index} if index else {},
                    )
                )
            return
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if reasoning and isinstance(reasoning, str):
            out.append(
                StreamChunk(
                    type="thinking",
                    content=reasoning,
                    is_delta=is_delta,
                    metadata={"index": index} if index else {},
                )
            )
        if content and isinstance(content, str):
            out.append(
                StreamChunk(
                    type="text",
                    content=content,
                    is_delta=is_delta,
                    metadata={"index": index} if index else {},
                )
            )
        refusal = delta.get("refusal")
        if refusal and isinstance(refusal, str):
            meta: dict[str, Any] = {"index": index, "refusal": True} if index else {"refusal": True}
            out.append(StreamChunk(type="text", content=refusal, is_delta=is_delta, metadata=meta))
        calls = delta.get("tool_calls")
        if calls:
            for position, call in enumerate(calls):
                slot = call.get("index")
                key = (index, slot if slot is not None else (call.get("id") or position))
                acc = self._tools.get(key)
                if acc is None:
                    acc = self._tools[key] = _ToolCall()
                if call.get("id"):
                    acc.id = call["id"]
                function = call.get("function") or {}
                if function.get("name"):
                    acc.name = function["name"]
                arguments = function.get("arguments")
                if arguments:
                    acc.args.append(
                        arguments if isinstance(arguments, str) else json.dumps(arguments)
                    )

    def _flush_tools(self, index: int | None, out: list[StreamChunk]) -> None:
        if not self._tools:
            return
        keys = [k for k in self._tools if index is None or k[0] == index]
        for key in keys:
            acc = self._tools.pop(key)
            out.append(
                StreamChunk(
                    type="tool_use",
                    tool_id=acc.id,
                    tool_name=acc.name,
                    tool_input=self._tool_input(acc.name, "".join(acc.args)),
                    metadata={"index": key[0]} if key[0] else {},
                )
            )

    def end(self, *, eof: bool) -> Sequence[StreamChunk]:
        """``[DONE]`` always completes; EOF completes only after a ``finish_reason``."""
        if self.done:
            return _NONE
        self.done = True
        if not self.started:
            return _NONE
        if eof and self._finish_reason is None:
            raise self._truncated()
        out: list[StreamChunk] = []
        self._flush_tools(None, out)
        out.append(self._result(self._usage, self._model, self._finish_reason))
        return out


# --- OpenAI Responses ----------------------------------------------------------------------------


class ResponsesProjector(_Base):
    """OpenAI Responses API stream events."""

    __slots__ = ()

    grammar = "OpenAI Responses stream"

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Project one event."""
        if type(event) is not dict:
            raise self._protocol("event is not a JSON object", event)
        self.started = True
        kind = event.get("type")
        if kind == "response.output_text.delta":
            return (StreamChunk(type="text", content=event.get("delta") or "", is_delta=True),)
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            return (StreamChunk(type="thinking", content=event.get("delta") or "", is_delta=True),)
        if kind in RESPONSES_IGNORED_EVENTS:
            return _NONE
        if kind == "response.output_item.done":
            return self._item_done(event.get("item") or {})
        if kind in ("response.completed", "response.incomplete"):
            response = event.get("response") or {}
            status = response.get("status")
            if kind == "response.incomplete" or status == "incomplete":
                details = response.get("incomplete_details") or {}
                status = details.get("reason") or "incomplete"
            self.done = True
            return (self._result(response.get("usage"), response.get("model"), status),)
        if kind == "response.failed":
            response = event.get("response") or {}
            return self._error_chunk(response.get("error") or {"message": "response failed"})
        if kind == "error":
            error = event.get("error")
            return self._error_chunk(error if error is not None else event)
        if kind == "response.refusal.delta":
            return (
                StreamChunk(
                    type="text",
                    content=event.get("delta") or "",
                    is_delta=True,
                    metadata={"refusal": True},
                ),
            )
        raise self._protocol(f"unrecognized event type {kind!r}", event)

    def _item_done(self, item: Any) -> Sequence[StreamChunk]:
        kind = item.get("type")
        if kind == "function_call":
            name = item.get("name")
            return (
                StreamChunk(
                    type="tool_use",
                    tool_id=item.get("call_id") or item.get("id"),
                    tool_name=name,
                    tool_input=self._tool_input(name, item.get("arguments") or ""),
                ),
            )
        if kind == "custom_tool_call":
            return (
                StreamChunk(
                    type="tool_use",
                    tool_id=item.get("call_id") or item.get("id"),
                    tool_name=item.get("name"),
                    tool_input={"input": item.get("input")},
                ),
            )
        # message / reasoning / server-side tool items: their content already streamed as deltas.
        return _NONE


# --- Anthropic Messages --------------------------------------------------------------------------


class _ToolBlock:
    __slots__ = ("id", "initial", "name", "parts", "server")

    def __init__(self, block: Any) -> None:
        self.id: str | None = block.get("id")
        self.name: str | None = block.get("name")
        self.initial: Any = block.get("input")
        self.server = block.get("type") != "tool_use"
        self.parts: list[str] = []


class AnthropicMessagesProjector(_Base):
    """Anthropic Messages API stream events."""

    __slots__ = ("_blocks", "_model", "_stop_reason", "_usage")

    grammar = "Anthropic Messages stream"

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(secrets)
        self._model: Any = None
        self._usage: dict[str, Any] = {}
        self._stop_reason: Any = None
        self._blocks: dict[Any, _ToolBlock] = {}

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Project one event."""
        if type(event) is not dict:
            raise self._protocol("event is not a JSON object", event)
        self.started = True
        kind = event.get("type")
        if kind == "content_block_delta":
            return self._delta(event)
        if kind == "content_block_start":
            return self._block_start(event)
        if kind == "content_block_stop":
            block = self._blocks.pop(event.get("index"), None)
            if block is None:
                return _NONE
            raw = "".join(block.parts)
            if raw:
                tool_input = self._tool_input(block.name, raw)
            else:
                tool_input = block.initial if isinstance(block.initial, dict) else {}
            return (
                StreamChunk(
                    type="tool_use",
                    tool_id=block.id,
                    tool_name=block.name,
                    tool_input=tool_input,
                    metadata={"server_tool": True} if block.server else {},
                ),
            )
        if kind == "message_start":
            message = event.get("message") or {}
            self._model = message.get("model")
            self._usage = dict(message.get("usage") or {})
            return _NONE
        if kind == "message_delta":
            delta = event.get("delta") or {}
            if delta.get("stop_reason"):
                self._stop_reason = delta["stop_reason"]
            usage = event.get("usage") or {}
            self._usage.update({k: v for k, v in usage.items() if v is not None})
            return _NONE
        if kind == "message_stop":
            self.done = True
            return (self._result(self._usage or None, self._model, self._stop_reason),)
        if kind in ANTHROPIC_IGNORED_EVENTS:
            return _NONE
        if kind == "error":
            return self._error_chunk(event.get("error") or event)
        raise self._protocol(f"unrecognized event type {kind!r}", event)

    def _delta(self, event: Any) -> Sequence[StreamChunk]:
        delta = event.get("delta") or {}
        kind = delta.get("type")
        if kind == "text_delta":
            return (StreamChunk(type="text", content=delta.get("text") or "", is_delta=True),)
        if kind == "thinking_delta":
            return (
                StreamChunk(type="thinking", content=delta.get("thinking") or "", is_delta=True),
            )
        if kind == "input_json_delta":
            block = self._blocks.get(event.get("index"))
            if block is None:
                raise self._protocol("input_json_delta for a block that is not a tool_use", event)
            block.parts.append(delta.get("partial_json") or "")
            return _NONE
        if kind in _ANTHROPIC_IGNORED_DELTAS:
            return _NONE
        raise self._protocol(f"unrecognized content_block_delta type {kind!r}", event)

    def _block_start(self, event: Any) -> Sequence[StreamChunk]:
        block = event.get("content_block") or {}
        kind = block.get("type")
        if kind in _ANTHROPIC_TOOL_BLOCKS:
            self._blocks[event.get("index")] = _ToolBlock(block)
        elif kind == "text" and block.get("text"):
            return (StreamChunk(type="text", content=block["text"], is_delta=True),)
        elif kind == "thinking" and block.get("thinking"):
            return (StreamChunk(type="thinking", content=block["thinking"], is_delta=True),)
        # redacted_thinking and server tool results carry nothing a chunk type represents.
        return _NONE


# --- selection -----------------------------------------------------------------------------------

_PROJECTORS: dict[
    str, type[ChatCompletionsProjector | ResponsesProjector | AnthropicMessagesProjector]
] = {
    "openai_chat": ChatCompletionsProjector,
    "openai_responses": ResponsesProjector,
    "anthropic_messages": AnthropicMessagesProjector,
}


class AutoProjector:
    """Picks the grammar from the first event's shape, for endpoints that do not declare one."""

    __slots__ = ("_inner", "_secrets")

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        self._secrets = secrets
        self._inner: StreamProjector | None = None

    @property
    def done(self) -> bool:
        """True once the chosen grammar finished."""
        return self._inner is not None and self._inner.done

    def _choose(self, event: Any) -> StreamProjector:
        if type(event) is dict:
            kind = event.get("type")
            if "choices" in event or (kind is None and "error" in event):
                return ChatCompletionsProjector(self._secrets)
            if isinstance(kind, str) and (kind.startswith("response.") or kind == "error"):
                return ResponsesProjector(self._secrets)
            if kind in _ANTHROPIC_EVENTS:
                return AnthropicMessagesProjector(self._secrets)
        raise ProviderProtocolError(
            f"unrecognized stream event (no known grammar): {_dump(event, self._secrets)}"
        )

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Delegate to the grammar chosen by the first event."""
        if self._inner is None:
            self._inner = self._choose(event)
        return self._inner.feed(event)

    def end(self, *, eof: bool) -> Sequence[StreamChunk]:
        """Delegate; an input without events ends empty."""
        return self._inner.end(eof=eof) if self._inner is not None else _NONE


def format_for_path(path: str) -> StreamFormat | None:
    """The grammar an endpoint path conventionally speaks, or None when it is not obvious."""
    tail = path.strip().strip("/").lower()
    if tail.endswith("chat/completions"):
        return "openai_chat"
    if tail.endswith("responses"):
        return "openai_responses"
    if tail.endswith("messages"):
        return "anthropic_messages"
    return None


def make_projector(
    stream_format: StreamFormat | None, secrets: tuple[str, ...] = ()
) -> StreamProjector:
    """A fresh projector for one stream; None means detect from the first event."""
    if stream_format is None:
        return AutoProjector(secrets)
    return _PROJECTORS[stream_format](secrets)

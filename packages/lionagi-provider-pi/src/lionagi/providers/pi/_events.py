"""pi's ``--mode json`` events to normalized chunks (ADR-0030 D3).

Grammar (pi-coding-agent 0.73, one JSON object per line): a ``session`` header, then the agent
events ``agent_start``, ``turn_start``, ``message_start|update|end`` (``message_update`` wraps
an ``assistantMessageEvent``: ``start``, ``text_*``, ``thinking_*``, ``toolcall_*``, ``done``,
``error``), ``tool_execution_start|update|end``, ``turn_end``, ``agent_end``, and the session
events ``auto_retry_start|end``, ``compaction_start|end``, ``queue_update``,
``session_info_changed``, ``thinking_level_changed``.

Rules the projection keeps:

* Content blocks of one assistant message interleave (a thinking delta can arrive after a tool
  call started), so every block is keyed by its ``contentIndex``; a text delta continues the
  text block streaming right now, a delta of another block is buffered and emitted whole when
  that block ends, so ``invoke`` never splices two blocks together.
* pi exits 0 when the provider failed: the failure is the last assistant message's
  ``stopReason`` (``error``/``aborted`` with ``errorMessage``) or ``auto_retry_end`` with
  ``success: false``. pi reports one failure up to five times (``message_update{error}``,
  ``message_end``, ``turn_end``, ``agent_end``, a retry end) and ``agent_end`` is not final
  while it retries, so nothing is decided before end of stdout: then exactly one error chunk,
  or one result chunk with the usage summed over the run's assistant messages.
* A run that answered (an assistant message) must end its last agent loop: ``agent_end`` closes
  a loop, ``agent_start`` and ``auto_retry_start`` open one. At end of stdout with a loop still
  open (or none ever closed) and no failure noted, the run was cut short: ``finish`` raises
  :class:`ProviderProtocolError` rather than handing out the partial answer as a result. A run
  with no assistant message completes empty (ADR-0030's normal empty EOF).
* The session header's id is the resumable ``session_id`` when the run is saved; an
  ``--no-session`` run's id is only observed and published as ``provider_session_id``.
* Any event type, assistant sub-event or message role not listed here raises
  :class:`ProviderProtocolError`: it might carry the answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from lionagi.service import ProviderProtocolError, StreamChunk

__all__ = ["TELEMETRY_EVENTS", "PiEventProjector"]

TELEMETRY_EVENTS: frozenset[str] = frozenset(
    {
        "turn_end",  # repeats the assistant message already projected at message_end
        "queue_update",
        "session_info_changed",
        "thinking_level_changed",
        "compaction_start",
        "tool_execution_update",  # partial tool output; the whole result comes at _end
    }
)
"""Event types that carry nothing a consumer needs beyond what other events already carry."""

_QUIET_ASSISTANT_EVENTS = frozenset({"start", "text_start", "thinking_start", "toolcall_start"})
_QUIET_ROLES = frozenset({"user", "toolResult"})  # the prompt echo; results come from tools
_CONTEXT_ROLES = frozenset({"custom", "bashExecution", "branchSummary", "compactionSummary"})
_FAILED_STOPS = frozenset({"error", "aborted"})
_STATUS = re.compile(r"^\s*(\d{3})\b")
# OpenAI Responses' failure as pi words it: "<code>: <message>", "Error Code <code>: <message>".
_CODE = re.compile(r"^(?:Error Code )?([a-z][a-z0-9]*(?:_[a-z0-9]+)+): ")
_USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")


@dataclass(slots=True)
class _Block:
    kind: str  # "text" | "thinking" | "toolCall"
    emitted: bool = False
    buffer: list[str] = field(default_factory=list)


class PiEventProjector:
    """Stateful projection of one pi run; :meth:`feed` per event, :meth:`finish` at EOF."""

    def __init__(self, *, resumable: bool = False) -> None:
        self._id_key = "session_id" if resumable else "provider_session_id"
        self._blocks: dict[int, _Block] = {}
        self._streaming: int | None = None  # contentIndex whose deltas go out as they come
        self._tool_ids: set[str] = set()
        self._usage: dict[str, float] = {}
        self._cost = 0.0
        self._assistant_messages = 0
        self._turns = 0
        self._model: str | None = None
        self._stop_reason: str | None = None
        self._failure: tuple[str, dict[str, Any]] | None = None
        self._session_id: str | None = None
        self._agent_ended = False
        self._loop_open = False  # between agent_start (or a retry's start) and agent_end

    # -- events -----------------------------------------------------------------------------------

    def feed(self, event: Mapping[str, Any]) -> list[StreamChunk]:
        """The chunks one event yields now (possibly none)."""
        kind = event.get("type")
        if not isinstance(kind, str):
            raise ProviderProtocolError("pi: an event without a string 'type'")
        if kind == "agent_start":
            self._loop_open = True
            return []
        if kind in TELEMETRY_EVENTS:
            return []
        if kind == "session":
            return self._session(event)
        if kind == "turn_start":
            self._turns += 1
            return []
        if kind in ("message_start", "message_update", "message_end"):
            return self._message(kind, event)
        if kind == "tool_execution_start":
            return self._tool_start(event)
        if kind == "tool_execution_end":
            return [self._tool_end(event)]
        if kind == "agent_end":
            self._agent_ended = True
            self._loop_open = False
            return []
        if kind == "auto_retry_start":
            self._failure = None  # a new attempt follows; its own outcome decides
            self._loop_open = True
            meta = {
                "retry_notice": _str(event, "errorMessage") or "retrying",
                "attempt": event.get("attempt"),
                "max_attempts": event.get("maxAttempts"),
                "delay_ms": event.get("delayMs"),
            }
            return [StreamChunk("system", metadata=_compact(meta))]
        if kind == "auto_retry_end":
            if event.get("success") is True:
                return [StreamChunk("system", metadata={"retry_recovered": event.get("attempt")})]
            text = _str(event, "finalError") or "pi gave up retrying the provider request"
            self._failure = (text, {"retry_attempts": event.get("attempt")})
            return []
        if kind == "compaction_end":
            meta = {
                "compaction": event.get("reason"),
                "compaction_aborted": event.get("aborted"),
                "compaction_error": _str(event, "errorMessage"),
            }
            return [StreamChunk("system", metadata=_compact(meta))]
        raise ProviderProtocolError(f"pi: unknown event type {kind!r}")

    def finish(self) -> list[StreamChunk]:
        """At end of stdout: one error chunk for a failed run, else one result (if any output).

        Raises:
            ProviderProtocolError: the run answered but its last agent loop never ended (no
                ``agent_end`` after the last ``agent_start`` or retry): it was cut short.
        """
        if self._failure is not None:
            text, meta = self._failure
            return [StreamChunk("error", text, is_error=True, metadata=_error_meta(text, meta))]
        if not self._assistant_messages:
            return []  # nothing answered (no result is synthesized for an empty run)
        if self._loop_open or not self._agent_ended:
            raise ProviderProtocolError("pi: the stream ended without an agent_end event")
        usage: dict[str, Any] = {k: _whole(v) for k, v in self._usage.items()}
        if usage:
            usage["cost"] = self._cost
        meta = {
            "usage": usage,
            "model": self._model,
            "num_turns": self._turns,
            "stop_reason": self._stop_reason,
            "total_cost_usd": self._cost,
            self._id_key: self._session_id,
        }
        return [StreamChunk("result", None, metadata=_compact(meta))]

    # -- pieces -----------------------------------------------------------------------------------

    def _session(self, event: Mapping[str, Any]) -> list[StreamChunk]:
        self._session_id = _str(event, "id")
        meta = {self._id_key: self._session_id, "cwd": _str(event, "cwd")}
        return [StreamChunk("system", metadata=_compact(meta))]

    def _message(self, kind: str, event: Mapping[str, Any]) -> list[StreamChunk]:
        message = event.get("message")
        if not isinstance(message, Mapping):
            raise ProviderProtocolError(f"pi: {kind} without a message object")
        role = message.get("role")
        if role in _QUIET_ROLES:
            return []
        if role in _CONTEXT_ROLES:
            if kind != "message_end":
                return []
            return [StreamChunk("system", metadata={"context_message": role})]
        if role != "assistant":
            raise ProviderProtocolError(f"pi: {kind} with unknown message role {role!r}")
        if kind == "message_start":
            self._blocks = {}
            self._streaming = None
            return []
        if kind == "message_update":
            inner = event.get("assistantMessageEvent")
            if not isinstance(inner, Mapping):
                raise ProviderProtocolError("pi: message_update without assistantMessageEvent")
            return self._assistant_event(inner)
        return self._assistant_end(message)

    def _assistant_event(self, inner: Mapping[str, Any]) -> list[StreamChunk]:
        sub = inner.get("type")
        if sub in _QUIET_ASSISTANT_EVENTS:
            if sub != "start":
                self._block(inner, _BLOCK_KIND[str(sub)])
            return []
        if sub == "done":
            return []
        if sub == "error":
            failed = inner.get("error")
            if isinstance(failed, Mapping):
                self._note_failure(failed)
            return []
        if sub in ("text_delta", "thinking_delta"):
            block = self._block(inner, "text" if sub == "text_delta" else "thinking")
            return self._delta(inner, block, _str(inner, "delta") or "")
        if sub in ("text_end", "thinking_end"):
            block = self._block(inner, "text" if sub == "text_end" else "thinking")
            return self._block_end(inner, block, _str(inner, "content"))
        if sub == "toolcall_delta":
            self._block(inner, "toolCall")
            return []
        if sub == "toolcall_end":
            block = self._block(inner, "toolCall")
            call = inner.get("toolCall")
            if not isinstance(call, Mapping):
                raise ProviderProtocolError("pi: toolcall_end without a toolCall object")
            block.emitted = True
            return self._tool_use(call.get("id"), call.get("name"), call.get("arguments"))
        raise ProviderProtocolError(f"pi: unknown assistant message event {sub!r}")

    def _block(self, inner: Mapping[str, Any], kind: str) -> _Block:
        index = inner.get("contentIndex")
        if not isinstance(index, int) or isinstance(index, bool):
            raise ProviderProtocolError(f"pi: {inner.get('type')} without an int contentIndex")
        block = self._blocks.get(index)
        if block is None:
            block = self._blocks[index] = _Block(kind)
        elif block.kind != kind:
            raise ProviderProtocolError(
                f"pi: contentIndex {index} changed from {block.kind} to {kind}"
            )
        if self._streaming is None and kind != "toolCall" and not block.emitted:
            self._streaming = index
        return block

    def _delta(self, inner: Mapping[str, Any], block: _Block, delta: str) -> list[StreamChunk]:
        if not delta:
            return []
        index = inner["contentIndex"]
        if self._streaming != index:
            block.buffer.append(delta)  # another block is streaming: keep this one whole
            return []
        if block.buffer:  # deltas held while another block streamed, now in order
            delta = "".join(block.buffer) + delta
            block.buffer.clear()
        first = not block.emitted
        block.emitted = True
        meta = {"content_index": index}
        return [StreamChunk(_kind(block), delta, is_delta=not first, metadata=meta)]

    def _block_end(
        self, inner: Mapping[str, Any], block: _Block, content: str | None
    ) -> list[StreamChunk]:
        index = inner["contentIndex"]
        out: list[StreamChunk] = []
        if self._streaming == index:
            self._streaming = None
        elif not block.emitted:
            whole = content if content is not None else "".join(block.buffer)
            if whole:
                out.append(StreamChunk(_kind(block), whole, metadata={"content_index": index}))
        block.emitted = True
        block.buffer.clear()
        return out

    def _assistant_end(self, message: Mapping[str, Any]) -> list[StreamChunk]:
        self._assistant_messages += 1
        model = message.get("model")
        if isinstance(model, str) and model:
            self._model = model
        usage = message.get("usage")
        if isinstance(usage, Mapping):
            for key in _USAGE_KEYS:
                value = usage.get(key)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    self._usage[key] = self._usage.get(key, 0) + value
            cost = usage.get("cost")
            total = cost.get("total") if isinstance(cost, Mapping) else None
            if isinstance(total, int | float) and not isinstance(total, bool):
                self._cost += total
        stop = message.get("stopReason")
        self._stop_reason = stop if isinstance(stop, str) else None
        if stop in _FAILED_STOPS:
            self._note_failure(message)
            return []
        self._failure = None  # a later success (after a retry) supersedes an earlier failure
        return self._unstreamed(message)

    def _unstreamed(self, message: Mapping[str, Any]) -> list[StreamChunk]:
        """Blocks the message holds that no update streamed (a provider that does not stream)."""
        content = message.get("content")
        if not isinstance(content, list):
            return []
        out: list[StreamChunk] = []
        for index, item in enumerate(content):
            if not isinstance(item, Mapping):
                raise ProviderProtocolError("pi: an assistant content block is not an object")
            block = self._blocks.get(index)
            if block is not None and block.emitted:
                continue
            kind = item.get("type")
            if kind == "text" and isinstance(item.get("text"), str) and item["text"]:
                out.append(StreamChunk("text", item["text"], metadata={"content_index": index}))
            elif kind == "thinking" and isinstance(item.get("thinking"), str) and item["thinking"]:
                meta = {"content_index": index}
                out.append(StreamChunk("thinking", item["thinking"], metadata=meta))
            elif kind == "toolCall":
                out += self._tool_use(item.get("id"), item.get("name"), item.get("arguments"))
            elif kind not in ("text", "thinking", "image"):
                raise ProviderProtocolError(f"pi: unknown assistant content block {kind!r}")
        self._blocks = {}
        self._streaming = None
        return out

    def _note_failure(self, message: Mapping[str, Any]) -> None:
        stop = message.get("stopReason")
        text = _str(message, "errorMessage") or f"pi: the request ended with stopReason {stop!r}"
        self._failure = (text, {"stop_reason": stop})

    def _tool_use(self, tool_id: Any, name: Any, arguments: Any) -> list[StreamChunk]:
        if not isinstance(name, str) or not name:
            raise ProviderProtocolError("pi: a tool call without a name")
        ident = tool_id if isinstance(tool_id, str) and tool_id else None
        if ident is not None:
            if ident in self._tool_ids:
                return []
            self._tool_ids.add(ident)
        args = dict(arguments) if isinstance(arguments, Mapping) else None
        return [StreamChunk("tool_use", tool_name=name, tool_id=ident, tool_input=args)]

    def _tool_start(self, event: Mapping[str, Any]) -> list[StreamChunk]:
        # Normally announced already by toolcall_end; an extension-issued call is not.
        return self._tool_use(event.get("toolCallId"), event.get("toolName"), event.get("args"))

    def _tool_end(self, event: Mapping[str, Any]) -> StreamChunk:
        result = event.get("result")
        output: Any = result
        if isinstance(result, Mapping) and isinstance(result.get("content"), list):
            texts = [
                part["text"]
                for part in result["content"]
                if isinstance(part, Mapping) and isinstance(part.get("text"), str)
            ]
            output = "".join(texts)
        tool_id = event.get("toolCallId")
        return StreamChunk(
            "tool_result",
            tool_id=tool_id if isinstance(tool_id, str) and tool_id else None,
            tool_name=_str(event, "toolName"),
            tool_output=output,
            is_error=event.get("isError") is True,
        )

    @property
    def agent_ended(self) -> bool:
        """True once ``agent_end`` was seen (the run reached its end at least once)."""
        return self._agent_ended


_BLOCK_KIND = {"text_start": "text", "thinking_start": "thinking", "toolcall_start": "toolCall"}


def _kind(block: _Block) -> Literal["text", "thinking"]:
    return "text" if block.kind == "text" else "thinking"


def _str(event: Mapping[str, Any], key: str) -> str | None:
    value = event.get(key)
    return value if isinstance(value, str) and value else None


def _compact(meta: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in meta.items() if v is not None}


def _whole(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _error_meta(text: str, extra: Mapping[str, Any]) -> dict[str, Any]:
    """``status``, ``code`` or ``type`` from the forms pi relays a provider's error in.

    Core's classifier falls back on them when no rule matches the text. pi keeps the SDK's
    message: ``"<status> <provider message>"`` for the OpenAI and Anthropic SDKs' HTTP errors;
    the body itself, status not in front, for the Gemini SDK's (``{"error":{"code":500,...,
    "status":"INTERNAL"}}``) and an Anthropic stream's in-band error event (``{"type":"error",
    "error":{"type":"api_error",...}}``); ``"<code>: <message>"`` for an OpenAI Responses failure.
    """
    meta = _compact(dict(extra))
    match = _STATUS.match(text)
    if match:
        meta["status"] = int(match.group(1))
        return meta
    coded = _CODE.match(text)
    if coded:
        meta["code"] = coded.group(1)
        return meta
    meta.update(_body_meta(text))
    return meta


def _body_meta(text: str) -> dict[str, Any]:
    """The Gemini ``error.code``/``error.status`` or Anthropic ``error.type`` of a JSON body."""
    if not text.lstrip().startswith("{"):
        return {}
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return {}
    error = body.get("error") if isinstance(body, Mapping) else None
    if not isinstance(error, Mapping):
        return {}
    meta: dict[str, Any] = {}
    code = error.get("code")
    if isinstance(code, int) and not isinstance(code, bool) and 400 <= code <= 599:
        meta["status"] = code
        if isinstance(error.get("status"), str) and error["status"]:
            meta["code"] = error["status"]
    elif body.get("type") == "error" and isinstance(error.get("type"), str) and error["type"]:
        meta["type"] = error["type"]
    return meta

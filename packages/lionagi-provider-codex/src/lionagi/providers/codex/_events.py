"""``codex exec --json`` events to normalized chunks (ADR-0030 D3).

The grammar (codex-rs ``exec_events.rs``, 0.171.0; every type also seen in the captures where
the real binary emits it):

    thread.started {thread_id}            system, ``provider_session_id`` (not resumable here)
    turn.started {}                       telemetry: no chunk
    turn.completed {usage}                result with usage (the success terminal)
    turn.failed {error: {message}}        the one error chunk (the failure terminal)
    error {message}                       "Reconnecting..." is a retry notice (system); any
                                          other text is buffered until the terminal event
    item.started|updated|completed {item} by ``item.type``:
        agent_message {text}              text (whole, never deltas)
        reasoning {text}                  thinking (whole)
        plan {text}                       text (plan mode), unless streamed as deltas
        command_execution                 tool_use ``shell`` at start, tool_result at completion
        file_change / mcp_tool_call /
        web_search / collab_tool_call     tool_use + tool_result, paired by the item id
        todo_list {items}                 system metadata ``todo_list``
        error {message}                   non-fatal warning: system metadata ``warning``;
                                          the priority tier omitted from a ``fast_mode`` run
                                          is :class:`CodexFastModeUnavailableError`
    item.plan.delta {item_id, delta}      text delta
    request_user_input {call_id, ...}     tool_use ``request_user_input`` (exec cannot answer)

Anything else is a :class:`ProviderProtocolError`: an unknown event may carry the answer.

Fast mode: ``service_tier="fast"`` asks for codex's ``priority`` tier, which codex sends only for
a model whose catalog entry advertises it; for any other model it announces, in an ``error``
item before the turn starts, that the tier "will be omitted from requests", and runs at the
standard tier. A run that asked for ``fast_mode`` ends there with
:class:`CodexFastModeUnavailableError` (a mode the model lacks is an error, not a no-op); the
same notice in a run that did not ask (a tier from the user's own ``config.toml``) stays a
warning. Why at run time and not at validation: see ``docs/decisions.md``.

Why buffer: a failing turn reports its error twice (an ``error`` event, then ``turn.failed``
with the same text), and a retry exhausts itself through several; the consumer gets exactly one
error chunk, built at the terminal event (or at end of stream when no terminal came).

How a run ends: only ``turn.completed`` (success) or ``turn.failed`` (failure) decides it. A
run that produced semantic output (an item, a plan delta, a question) and reached end of stream
(the process exited 0) without either is cut short: the buffered error when one came, else a
:class:`ProviderProtocolError`, never a completion with the partial text as the answer. A run
with no semantic output (nothing, or only ``thread.started``/``turn.started``) completes empty,
as ADR-0030's "normal empty EOF" says. A non-zero exit is core's process error before
:meth:`CodexEventParser.finish` runs, as before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from lionagi.service import ProviderInvalidRequestError, ProviderProtocolError, StreamChunk

__all__ = ["IGNORED_EVENTS", "TOOL_ITEMS", "CodexEventParser", "CodexFastModeUnavailableError"]

IGNORED_EVENTS = frozenset({"turn.started"})
"""The telemetry allowlist: events that carry no content, result or error."""

TOOL_ITEMS = frozenset(
    {"command_execution", "file_change", "mcp_tool_call", "web_search", "collab_tool_call"}
)
_ITEM_EVENTS = frozenset({"item.started", "item.updated", "item.completed"})
_RETRY_NOTICE = re.compile(r"^\s*reconnecting\b", re.IGNORECASE)
_STATUS = re.compile(r"\b(?:unexpected status|last status:)\s*(\d{3})\b", re.IGNORECASE)
_RETRY_IN = re.compile(r"\btry again in (\d+(?:\.\d+)?)\s*(ms|s|seconds?)\b", re.IGNORECASE)
_FAILED = frozenset({"failed", "declined"})
# Codex 0.171.0's notice for a configured tier the model's catalog entry does not list.
_TIER_OMITTED = re.compile(
    r"^Configured service tier `(?P<tier>[^`]+)` is not advertised as supported for model "
    r"`(?P<model>[^`]*)` and will be omitted from requests"
)
FAST_TIER = "priority"
"""The service tier codex sends for ``service_tier="fast"`` (``fast_mode``)."""


class CodexFastModeUnavailableError(ProviderInvalidRequestError):
    """``fast_mode`` asked for codex's priority tier and codex will not send it for ``model``.

    Codex reports it before the turn starts and would otherwise run at the standard tier; the
    run is ended instead, so the caller drops ``fast_mode`` or picks a model that has the tier.
    Not retried: the same request meets the same catalog.

    Attributes:
        field: ``"fast_mode"``, the request field that cannot be honoured.
        model: The model codex named.
        tier: The tier codex omits (``priority``).
    """

    field = "fast_mode"

    def __init__(self, model: str, tier: str = FAST_TIER, *, raw: str = "") -> None:
        self.model = model
        self.tier = tier
        super().__init__(
            f"fast_mode: codex does not advertise the {tier!r} service tier for model "
            f"{model!r} and would run it at the standard tier; drop fast_mode or use a model "
            "whose codex catalog entry lists the tier (`codex debug models`)",
            raw=raw,
        )


class CodexEventParser:
    """Stateful projection of one run's events; :meth:`finish` at end of stream.

    Args:
        model: The model the run asked for, reported on the result metadata.
        fast_mode: The run asked for the priority tier (``fast_mode``): codex's notice that
            it omits that tier ends the run with :class:`CodexFastModeUnavailableError`.
    """

    def __init__(self, model: str | None = None, *, fast_mode: bool = False) -> None:
        self.model = model
        self.fast_mode = fast_mode
        self.thread_id: str | None = None
        self.errors: list[str] = []
        self.retry_notices = 0
        self.warnings: list[str] = []
        self.terminal: str | None = None
        self.started = False
        self._started_tools: set[str] = set()
        self._streamed_plans: set[str] = set()

    # -- public -----------------------------------------------------------------------------------

    def feed(self, event: Mapping[str, Any]) -> list[StreamChunk]:
        """The chunks for one event, in order (often none)."""
        kind = event.get("type")
        if not isinstance(kind, str):
            # A list or object here would reach a set lookup and escape as a TypeError.
            raise ProviderProtocolError(f"codex: event type is not a string: {type(kind).__name__}")
        if self.terminal is not None:
            raise ProviderProtocolError(
                f"codex: {kind!r} event after the terminal {self.terminal} event"
            )
        if kind in IGNORED_EVENTS:
            return []
        if kind == "thread.started":
            self.thread_id = _text(event, "thread_id")
            return [StreamChunk("system", metadata={"provider_session_id": self.thread_id})]
        if kind == "error":
            return self._error_event(_text(event, "message"))
        if kind == "turn.completed":
            self.terminal = "turn.completed"
            return [self._result(event)]
        if kind == "turn.failed":
            self.terminal = "turn.failed"
            error = event.get("error")
            message = _optional_text(error, "message") if isinstance(error, Mapping) else None
            return [self._failure(message)]
        if kind in _ITEM_EVENTS:
            self.started = True  # semantic output: from here on the run must reach its end
            item = event.get("item")
            if not isinstance(item, Mapping):
                raise ProviderProtocolError(f"codex: {kind} event without an item object")
            return self._item(str(kind), item)
        if kind == "item.plan.delta":
            self.started = True
            self._streamed_plans.add(_text(event, "item_id"))
            return [StreamChunk("text", _text(event, "delta"), is_delta=True)]
        if kind == "request_user_input":
            self.started = True
            questions = event.get("questions")
            return [
                StreamChunk(
                    "tool_use",
                    tool_name="request_user_input",
                    tool_id=_optional_text(event, "call_id"),
                    tool_input={"questions": questions if isinstance(questions, list) else []},
                )
            ]
        raise ProviderProtocolError(f"codex: unknown event type {kind!r}")

    def finish(self) -> list[StreamChunk]:
        """At end of stream: the buffered failure when no terminal event came, else nothing.

        Raises:
            ProviderProtocolError: the run produced semantic output but neither
                ``turn.completed`` nor ``turn.failed`` (and no error to report): its text may
                be cut short.
        """
        if self.terminal is not None:
            return []
        if self.errors:
            self.terminal = "end of stream"
            return [self._failure(None)]
        if self.started:
            raise ProviderProtocolError(
                "codex: the stream ended without a turn.completed or turn.failed event"
            )
        return []

    # -- events -----------------------------------------------------------------------------------

    def _error_event(self, message: str) -> list[StreamChunk]:
        if _RETRY_NOTICE.match(message):
            self.retry_notices += 1
            return [StreamChunk("system", metadata={"retry_notice": message})]
        self.errors.append(message)
        return []

    def _result(self, event: Mapping[str, Any]) -> StreamChunk:
        meta: dict[str, Any] = {}
        usage = event.get("usage")
        if isinstance(usage, Mapping):
            meta["usage"] = dict(usage)
        if self.thread_id:
            meta["provider_session_id"] = self.thread_id
        if self.model:
            meta["model"] = self.model
        meta["num_turns"] = 1
        if self.retry_notices:
            meta["retry_notices"] = self.retry_notices
        if self.errors:
            meta["recovered_errors"] = list(self.errors)
        if self.warnings:
            meta["warnings"] = list(self.warnings)
        return StreamChunk("result", metadata=meta)

    def _failure(self, message: str | None) -> StreamChunk:
        text = message or (self.errors[-1] if self.errors else "codex: the turn failed")
        meta: dict[str, Any] = {}
        status = _STATUS.search(text)
        if status:
            meta["status"] = int(status.group(1))
        retry = _RETRY_IN.search(text)
        if retry:
            seconds = float(retry.group(1))
            meta["retry_after"] = seconds / 1000 if retry.group(2).lower() == "ms" else seconds
        if self.thread_id:
            meta["provider_session_id"] = self.thread_id
        return StreamChunk("error", text, is_error=True, metadata=meta)

    # -- items ------------------------------------------------------------------------------------

    def _item(self, kind: str, item: Mapping[str, Any]) -> list[StreamChunk]:
        item_type = item.get("type")
        item_id = _text(item, "id")
        done = kind == "item.completed"
        if item_type in ("agent_message", "reasoning", "plan"):
            if not done:
                return []  # whole on completion; started/updated carry partial text at most
            if item_type == "plan" and item_id in self._streamed_plans:
                return []  # already delivered as item.plan.delta chunks
            text, meta = _text(item, "text"), {"item_id": item_id}
            if item_type == "reasoning":
                return [StreamChunk("thinking", text, metadata=meta)]
            return [StreamChunk("text", text, metadata=meta)]
        if item_type == "error":
            message = _text(item, "message")
            if self.fast_mode:
                omitted = _TIER_OMITTED.match(message)
                if omitted is not None and omitted["tier"] == FAST_TIER:
                    raise CodexFastModeUnavailableError(omitted["model"], raw=message)
            self.warnings.append(message)
            return [StreamChunk("system", metadata={"warning": message})]
        if item_type == "todo_list":
            items = item.get("items")
            return [StreamChunk("system", metadata={"todo_list": items or [], "item_id": item_id})]
        if item_type in TOOL_ITEMS:
            return self._tool(str(item_type), item_id, item, done)
        raise ProviderProtocolError(f"codex: unknown item type {item_type!r} in {kind}")

    def _tool(
        self, item_type: str, item_id: str, item: Mapping[str, Any], done: bool
    ) -> list[StreamChunk]:
        chunks: list[StreamChunk] = []
        if item_id not in self._started_tools:
            self._started_tools.add(item_id)
            name, tool_input = _tool_call(item_type, item)
            chunks.append(
                StreamChunk("tool_use", tool_name=name, tool_id=item_id, tool_input=tool_input)
            )
        if done:
            output, failed, meta = _tool_outcome(item_type, item)
            chunks.append(
                StreamChunk(
                    "tool_result",
                    tool_id=item_id,
                    tool_output=output,
                    is_error=failed,
                    metadata=meta,
                )
            )
        return chunks


def _tool_call(item_type: str, item: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """Tool name and input of a tool item (what the agent asked for)."""
    if item_type == "command_execution":
        return "shell", {"command": _text(item, "command")}
    if item_type == "file_change":
        changes = item.get("changes")
        return "file_change", {"changes": changes if isinstance(changes, list) else []}
    if item_type == "mcp_tool_call":
        server, tool = _text(item, "server"), _text(item, "tool")
        arguments = item.get("arguments")
        return f"mcp__{server}__{tool}", {"server": server, "tool": tool, "arguments": arguments}
    if item_type == "web_search":
        return "web_search", {"query": item.get("query"), "action": item.get("action")}
    collab = item.get("tool")
    return f"collab.{collab}", {
        "prompt": item.get("prompt"),
        "receiver_thread_ids": item.get("receiver_thread_ids") or [],
    }


def _tool_outcome(item_type: str, item: Mapping[str, Any]) -> tuple[Any, bool, dict[str, Any]]:
    """Output, failure flag and metadata of a completed tool item."""
    status = item.get("status")
    failed = status in _FAILED
    meta: dict[str, Any] = {"status": status} if isinstance(status, str) else {}
    if item_type == "command_execution":
        exit_code = item.get("exit_code")
        meta["exit_code"] = exit_code
        failed = failed or (isinstance(exit_code, int) and exit_code != 0)
        return item.get("aggregated_output", ""), failed, meta
    if item_type == "file_change":
        return item.get("changes") or [], failed, meta
    if item_type == "mcp_tool_call":
        error = item.get("error")
        if isinstance(error, Mapping):
            return error.get("message"), True, meta
        return item.get("result"), failed, meta
    if item_type == "web_search":
        return {"query": item.get("query"), "action": item.get("action")}, failed, meta
    return item.get("agents_states") or {}, failed, meta


def _text(event: Mapping[str, Any], key: str) -> str:
    value = event.get(key)
    if not isinstance(value, str):
        raise ProviderProtocolError(f"codex: {event.get('type')} needs a string {key!r}")
    return value


def _optional_text(event: Mapping[str, Any], key: str) -> str | None:
    value = event.get(key)
    return value if isinstance(value, str) else None

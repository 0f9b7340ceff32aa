"""Claude Code's ``--output-format stream-json`` events mapped to normalized chunks (ADR-0030 D3).

Grammar (2.1.197, and 2.1.332 as recorded in ``tests/captures/2.1.332``; one JSON object per
line; see the captures and the Agent SDK's message types):

``system``      ``subtype`` ``init`` confirms the session (``session_id``, ``model``, ``tools``)
                -> a system chunk (2.1.332 repeats it for each turn a background task's
                notification starts); ``api_retry`` -> a system chunk with ``retry_notice`` (the
                run has not failed); ``model_fallback`` (``--fallback-model`` took over),
                ``model_refusal_fallback`` (a refused answer retried on the fallback) and
                ``model_consent_fallback`` (a usage-credit gate swapped the model) -> a system
                chunk with ``fallback_notice``, and the fallback labels the result (a refusal
                fallback's ``retracted_message_uuids``, the refused partial it withdrew, are
                also core's ``retracted_message_ids``);
                ``model_refusal_no_fallback`` -> a system chunk with ``refusal_notice`` (the
                refusal frame and an ``is_error`` result end the run: ``content_filter``);
                ``informational`` -> a system chunk with ``notice``;
                ``local_command_output`` -> text; the other subtypes in
                :data:`SYSTEM_TELEMETRY` are progress/telemetry and dropped. Any other subtype is
                a :class:`ProviderProtocolError`: it may carry content we would lose.
``assistant``   ``message.content`` blocks: ``text``, ``thinking``, ``tool_use`` (and the server
                and MCP tool blocks) -> one chunk each (a text chunk names the event's ``uuid``
                as its ``message_id``); ``redacted_thinking`` carries only an
                encrypted payload and is dropped. An assistant message with an ``error`` field
                (``authentication_failed``, ``rate_limit``, ``billing_error``...) is the CLI's
                synthetic report of a failure, never text: it is held until the terminal event.
                Its label is that ``error``, except ``unknown`` (or none): then the API's own
                error type (2.1.332's ``api_error_type``: ``api_error``, ``overloaded_error``,
                ...) names the failure (see `_label`).
``user``        ``tool_result`` blocks -> tool_result chunks paired by ``tool_use_id``; the user's
                own text/image blocks (echoed input) are not output.
``result``      the end of a turn. ``is_error: true`` is a failure even with ``subtype:
                "success"`` ("Not logged in"); a non-``success`` subtype is a failure too; a
                failure is the run's error chunk at once. A success is held until end of stream:
                from 2.1.332 a run whose agent started background tasks (the ``Agent`` tool runs
                in the background by default) prints one ``result`` per turn (``result_index``
                0, 1, ...; the later ones carry ``origin.kind: "task-notification"``: the turn a
                finished task's notification started), all of them after the last content. They
                become the run's one result chunk (see :meth:`ClaudeEventMapper.finish`): usage,
                cost, turns, durations and the session id; its text is dropped when it repeats
                text already streamed.
``stream_event``  partial deltas, only with ``--include-partial-messages``, which the adapter
                never passes: the whole assistant message always follows, so they are dropped.
Top-level ``tool_progress``, ``rate_limit_event``, ``prompt_suggestion``, ``keep_alive`` and
``auth_status`` (without an ``error``) are telemetry.

One failure yields exactly one error chunk, even when the CLI reports it twice (an assistant
error message and then an ``is_error`` result): errors are buffered until the terminal event.

A run that produced semantic output (an ``assistant`` or ``user`` message) and reached end of
stream (the CLI exited 0) without a ``result`` is cut short. The failure it reported, when there
is one, becomes the error chunk; otherwise :meth:`ClaudeEventMapper.finish` raises
:class:`ProviderProtocolError` instead of completing with the partial text as the answer. A run
with no semantic output (nothing, or only ``system`` events and telemetry) completes empty, as
ADR-0030's "normal empty EOF" says; a non-zero exit is core's process error before ``finish``
runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lionagi.service import ProviderProtocolError, StreamChunk

__all__ = ["SYSTEM_TELEMETRY", "TOP_LEVEL_TELEMETRY", "ClaudeEventMapper"]

SYSTEM_TELEMETRY = frozenset(
    {
        "thinking_tokens",
        "task_started",
        "task_progress",
        "task_notification",
        "task_updated",
        "hook_started",
        "hook_progress",
        "hook_response",
        "status",
        "compact_boundary",
        "files_persisted",
        "elicitation_complete",
        # 2.1.332: the list of running background tasks, after each change (a snapshot).
        "background_tasks_changed",
    }
)
"""``system`` subtypes that are progress or bookkeeping: never content, never an error."""

TOP_LEVEL_TELEMETRY = frozenset(
    {"tool_progress", "rate_limit_event", "prompt_suggestion", "keep_alive", "stream_event"}
)
"""Top-level event types dropped as telemetry (``stream_event``: see the module docstring)."""

_TOOL_USE_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
_TOOL_RESULT_BLOCKS = frozenset(
    {"tool_result", "web_search_tool_result", "web_fetch_tool_result", "mcp_tool_result"}
)
_RESULT_META = (
    ("usage", "usage"),
    ("total_cost_usd", "total_cost_usd"),
    ("num_turns", "num_turns"),
    ("duration_ms", "duration_ms"),
    ("duration_api_ms", "duration_api_ms"),
    ("session_id", "session_id"),
    ("stop_reason", "stop_reason"),
    ("modelUsage", "model_usage"),
    ("subtype", "subtype"),
)
# A later result of the same run (2.1.332's task-notification turns) adds its turn's counts to
# these; the session-wide figures (cost, API time, per-model usage) and the last stop reason
# are read from the latest result, which the CLI prints with everything counted.
_PER_TURN = ("num_turns", "duration_ms")
_LATEST = ("total_cost_usd", "duration_api_ms", "model_usage", "session_id", "stop_reason")
_FOLLOWUP_META = (
    ("origin", "origin"),
    ("num_turns", "num_turns"),
    ("duration_ms", "duration_ms"),
    ("usage", "usage"),
    ("stop_reason", "stop_reason"),
)


_FALLBACKS = frozenset({"model_fallback", "model_refusal_fallback", "model_consent_fallback"})
_REFUSAL_META = (
    ("original_model", "original_model"),
    ("request_id", "request_id"),
    ("api_refusal_category", "refusal_category"),
    ("api_refusal_explanation", "refusal_explanation"),
)
_FALLBACK_META = (
    ("trigger", "trigger"),
    ("fallback_model", "fallback_model"),
    *_REFUSAL_META,
    ("scope", "scope"),
    ("retracted_message_uuids", "retracted_message_uuids"),
    ("retracted_message_uuids", "retracted_message_ids"),  # core's retraction key, see `_text`
    ("choice", "choice"),
    ("persisted_as_default", "persisted_as_default"),
)


@dataclass(slots=True)
class _Failure:
    """A failure the CLI reported before its terminal event."""

    text: str
    code: str | None


@dataclass(slots=True)
class _Turn:
    """A successful ``result`` event, held until end of stream, and the failure it overrode."""

    event: Mapping[str, Any]
    reported_error: str | None


class ClaudeEventMapper:
    """Stateful projection of one run's events; :meth:`feed` per event, :meth:`finish` at EOF.

    State is needed for four rules: a result repeating streamed text is not repeated, a failure
    reported twice is one error chunk, the model named by ``init`` (or the fallback that took
    over from it) labels the result, and the successful ``result`` events of one run become one
    result chunk at end of stream.

    Args:
        persisted: The run saves its session (no ``--no-session-persistence``). When it does
            not, its id is published as ``provider_session_id`` only: stored as the model's
            session, the next call's ``--resume`` of it failed ("No conversation found with
            session ID").
    """

    def __init__(self, *, persisted: bool = True) -> None:
        self._persisted = persisted
        self._streamed: list[str] = []
        self._failure: _Failure | None = None
        self._results: list[_Turn] = []
        self._model: str | None = None
        self._finished = False
        self._started = False

    @property
    def finished(self) -> bool:
        """True once the run's final chunk (its result, or its one error) was produced."""
        return self._finished

    def feed(self, event: Mapping[str, Any]) -> list[StreamChunk]:
        """The chunks for one event (possibly none)."""
        kind = event.get("type")
        if not isinstance(kind, str):
            # A list or object here would reach a set lookup and escape as a TypeError.
            raise ProviderProtocolError(
                f"claude: event type is not a string: {type(kind).__name__}"
            )
        if kind == "system":
            return self._system(event)
        if kind == "assistant":
            self._started = True  # semantic output: from here on the run must reach its result
            return self._assistant(event)
        if kind == "user":
            self._started = True
            return self._user(event)
        if kind == "result":
            return self._result(event)
        if kind == "auth_status":
            error = event.get("error")
            if isinstance(error, str) and error:
                self._failure = self._failure or _Failure(error, "authentication_failed")
            return []
        if kind in TOP_LEVEL_TELEMETRY:
            return []
        raise ProviderProtocolError(f"claude: unknown stream-json event type {kind!r}")

    def finish(self) -> list[StreamChunk]:
        """Chunks owed at end of stream: the run's result, or a failure no result followed.

        The successful ``result`` events were held: only at end of stream is it known that no
        further one follows (2.1.332 prints one per turn when background tasks ran, and the
        core contract allows one result chunk, last). They become one result chunk: the first
        event's fields (the answer to the prompt), each later event's ``num_turns``,
        ``duration_ms`` and integer ``usage`` counts added (its turns' own figures), the
        session-wide ``total_cost_usd``, ``duration_api_ms``, ``model_usage``, and the last
        ``stop_reason`` from the latest, and each later event's own figures with its ``origin``
        listed in ``followup_results``, so none is lost. A failure reported after the last
        result wins: nothing said the run recovered from it.

        Raises:
            ProviderProtocolError: the run produced messages but no ``result`` (and reported
                no failure): its text may be cut short, so it is not a completion.
        """
        if self._finished:
            return []
        failure = self._failure
        if failure is not None:
            self._finished = True
            return [_error(failure.text, {"code": failure.code} if failure.code else {})]
        if self._results:
            self._finished = True
            return [self._merged_result()]
        if self._started:
            raise ProviderProtocolError("claude: the stream ended without a result event")
        return []

    # -- events -----------------------------------------------------------------------------------

    def _system(self, event: Mapping[str, Any]) -> list[StreamChunk]:
        subtype = event.get("subtype")
        if subtype == "init":
            model = event.get("model")
            self._model = model if isinstance(model, str) else None
            meta = _pick(
                event,
                ("session_id", "session_id"),
                ("model", "model"),
                ("tools", "tools"),
                ("permissionMode", "permission_mode"),
                ("claude_code_version", "cli_version"),
                ("cwd", "cwd"),
            )
            return [StreamChunk("system", metadata=self._own_id(meta))]
        if subtype == "api_retry":
            meta = _pick(
                event,
                ("attempt", "attempt"),
                ("max_retries", "max_retries"),
                ("retry_delay_ms", "retry_delay_ms"),
                ("error_status", "error_status"),
            )
            error = event.get("error")
            meta["retry_notice"] = str(error) if error else "retrying the API request"
            return [StreamChunk("system", metadata=meta)]
        if subtype in _FALLBACKS:
            # 2.1.332: the run goes on with the fallback, which is then the model that answers:
            # `model_fallback` (--fallback-model; the main model was busy or unavailable),
            # `model_refusal_fallback` (the model refused; the turn is retried on the fallback)
            # and `model_consent_fallback` (a usage-credit consent gate swapped the model
            # before sending). A refusal fallback of `scope` "local" answered a subagent or a
            # side question only: the session's model is unchanged.
            meta = _pick(event, *_FALLBACK_META)
            content = event.get("content")
            meta["fallback_notice"] = str(content) if content else "switched to the fallback model"
            fallback = event.get("fallback_model")
            if isinstance(fallback, str) and fallback and event.get("scope") != "local":
                self._model = fallback
            return [StreamChunk("system", metadata=meta)]
        if subtype == "model_refusal_no_fallback":
            # The model refused and no fallback retries it: the CLI's refusal frame and an
            # `is_error` result follow, which end the run (see `_label`).
            meta = _pick(event, *_REFUSAL_META)
            content = event.get("content")
            meta["refusal_notice"] = str(content) if content else "the model refused to answer"
            return [StreamChunk("system", metadata=meta)]
        if subtype == "informational":
            # A notice the CLI shows its user (2.1.332, before retrying a refused answer once:
            # "... safeguards stopped the response above · continuing once with that noted").
            meta = _pick(event, ("level", "level"))
            content = event.get("content")
            meta["notice"] = str(content) if content else ""
            return [StreamChunk("system", metadata=meta)]
        if subtype == "local_command_output":
            content = event.get("content")
            if not isinstance(content, str):
                raise ProviderProtocolError("claude: local_command_output without string content")
            return self._text(content, event)
        if subtype in SYSTEM_TELEMETRY:
            return []
        raise ProviderProtocolError(f"claude: unknown system event subtype {subtype!r}")

    def _assistant(self, event: Mapping[str, Any]) -> list[StreamChunk]:
        blocks = _blocks(event, "assistant")
        error = event.get("error")
        if error:
            texts = [b["text"] for b in blocks if b.get("type") == "text" and b.get("text")]
            text = "\n".join(t for t in texts if isinstance(t, str)) or str(error)
            if self._failure is None:  # the first report is the most specific
                self._failure = _Failure(text, _label(str(error), event))
            return []
        out: list[StreamChunk] = []
        for block in blocks:
            btype = block.get("type")
            if btype == "text":
                out += self._text(_string(block, "text"), event, message=True)
            elif btype == "thinking":
                thinking = _string(block, "thinking")
                if thinking:
                    out.append(StreamChunk("thinking", thinking, metadata=_parent(event)))
            elif btype == "redacted_thinking":
                continue
            elif btype in _TOOL_USE_BLOCKS:
                raw = block.get("input")
                meta = _parent(event)
                if btype != "tool_use":
                    meta["block_type"] = btype
                out.append(
                    StreamChunk(
                        "tool_use",
                        tool_name=_string(block, "name"),
                        tool_id=_optional(block, "id"),
                        tool_input=dict(raw) if isinstance(raw, Mapping) else None,
                        metadata=meta,
                    )
                )
            elif btype in _TOOL_RESULT_BLOCKS:
                out.append(_tool_result(block, event))
            else:
                raise ProviderProtocolError(f"claude: unknown assistant content block {btype!r}")
        return out

    def _user(self, event: Mapping[str, Any]) -> list[StreamChunk]:
        message = event.get("message")
        if isinstance(message, Mapping) and isinstance(message.get("content"), str):
            return []  # the user's own turn echoed back
        out: list[StreamChunk] = []
        for block in _blocks(event, "user"):
            btype = block.get("type")
            if btype in _TOOL_RESULT_BLOCKS:
                out.append(_tool_result(block, event))
            elif btype not in ("text", "image", "document"):
                raise ProviderProtocolError(f"claude: unknown user content block {btype!r}")
        return out

    def _result(self, event: Mapping[str, Any]) -> list[StreamChunk]:
        subtype = event.get("subtype")
        text = event.get("result") if isinstance(event.get("result"), str) else None
        failed = event.get("is_error") is True or subtype != "success"
        if failed or (self._failure is not None and event.get("is_error") is not False):
            self._finished = True
            return [self._result_error(event, text)]
        # The turn says the run recovered from a failure reported before it: kept visible.
        reported = self._failure.text if self._failure is not None else None
        self._failure = None
        self._results.append(_Turn(event, reported))
        return []

    def _merged_result(self) -> StreamChunk:
        """The run's one result chunk from its held ``result`` events (see :meth:`finish`)."""
        first, *later = self._results
        meta = _pick(first.event, *_RESULT_META)
        for turn in later:
            event = _pick(turn.event, *_RESULT_META)
            for key in (*_PER_TURN, "usage"):
                if key in event:
                    meta[key] = _added(meta.get(key), event[key])
            meta.update({key: event[key] for key in _LATEST if key in event})
            meta.setdefault("followup_results", []).append(_pick(turn.event, *_FOLLOWUP_META))
        if self._model:
            meta["model"] = self._model
        denials = [
            denial
            for turn in self._results
            if isinstance(found := turn.event.get("permission_denials"), list)
            for denial in found
        ]
        if denials:
            meta["permission_denials"] = denials
        reported = next((t.reported_error for t in self._results if t.reported_error), None)
        if reported is not None:
            meta["reported_error"] = reported
        streamed = "".join(self._streamed)
        texts = [
            text
            for turn in self._results
            if isinstance(text := turn.event.get("result"), str)
            and text.strip()
            and text.strip() not in streamed
        ]
        content = "\n\n".join(texts) if texts else None
        return StreamChunk("result", content, metadata=self._own_id(meta))

    def _result_error(self, event: Mapping[str, Any], text: str | None) -> StreamChunk:
        errors = event.get("errors")
        listed = [e for e in errors if isinstance(e, str) and e] if isinstance(errors, list) else []
        failure = self._failure
        message = (
            (failure.text if failure else None)
            or text
            or "; ".join(listed)
            or f"claude reported {event.get('subtype')!r}"
        )
        meta: dict[str, Any] = {}
        status = event.get("api_error_status")
        if isinstance(status, int) and not isinstance(status, bool):
            meta["status"] = status
        code = _label(failure.code if failure is not None else None, event)
        if code:
            meta["code"] = code
        subtype = event.get("subtype")
        if isinstance(subtype, str):
            meta["type"] = subtype
        meta.update(_pick(event, ("session_id", "session_id"), ("usage", "usage")))
        self._failure = None
        return _error(message, self._own_id(meta))

    def _own_id(self, meta: dict[str, Any]) -> dict[str, Any]:
        """``meta`` with its ``session_id`` renamed ``provider_session_id`` for an unsaved run."""
        if not self._persisted and "session_id" in meta:
            meta["provider_session_id"] = meta.pop("session_id")
        return meta

    def _text(
        self, text: str, event: Mapping[str, Any], *, message: bool = False
    ) -> list[StreamChunk]:
        """A text chunk; an assistant message's (``message``) names it as core's ``message_id``.

        That id is the event's wire ``uuid``, the one a refusal fallback's notice lists in
        ``retracted_message_uuids`` (published as core's ``retracted_message_ids``) when it
        withdraws the refused partial: `invoke` then leaves that text out of its answer, as
        the CLI's own transcript drops it.
        """
        if not text:
            return []
        self._streamed.append(text)
        meta = _parent(event)
        uuid = event.get("uuid")
        if message and isinstance(uuid, str) and uuid:
            meta["message_id"] = uuid
        return [StreamChunk("text", text, metadata=meta)]


def _added(first: Any, later: Any) -> Any:
    """``later``'s counts added to ``first``'s: integers summed, mappings key by key.

    What is not a count on both sides (a tier name, a list) keeps ``first``'s value; a side
    that lacks it takes the other's.
    """
    if later is None:
        return first
    if first is None:
        return later
    if _count(first) and _count(later):
        return first + later
    if isinstance(first, Mapping) and isinstance(later, Mapping):
        merged = dict(first)
        for key, value in later.items():
            merged[key] = _added(first.get(key), value)
        return merged
    return first


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _label(cli_label: str | None, event: Mapping[str, Any]) -> str | None:
    """A failure's label: the CLI's ``error`` code, or the API's error type when it names none.

    2.1.332 labels some API errors ``unknown`` although the Messages API named them: an
    ``error`` event before any block of the answer finished (recorded: `api_error` "Internal
    server error", which the CLI shows as "API Error: Internal server error"; `overloaded_error`
    "Overloaded" with `api_error_status` 529) is reported with `error: "unknown"` and the
    API's type in ``api_error_type``, on the assistant message and the result alike. Without
    it the run's only label said nothing and a server fault was an untyped stream error; the
    API's own type (Anthropic's `api_error` is its in-stream HTTP 500) is core's to classify.
    A real label from the CLI (`server_error`, `authentication_failed`, ...) is kept: it is the
    CLI's reading of the same failure and the existing mapping rests on it, except for a
    refusal (see `_refused`), which the CLI labels `invalid_request`.
    """
    if _refused(event):
        return "content_filter"
    if cli_label and cli_label != "unknown":
        return cli_label
    api_type = event.get("api_error_type")
    if isinstance(api_type, str) and api_type:
        return api_type
    return cli_label


def _refused(event: Mapping[str, Any]) -> bool:
    """The event says the model refused: `stop_reason` "refusal" (the result's, or the message's).

    2.1.332 ends a refused answer no fallback retries with its own frame, an assistant message
    labelled `invalid_request` whose `message.stop_reason` is "refusal" ("API Error: Opus
    4.7's safeguards flagged this message. ...", "API Error: Sonnet 4.5 can't help with
    this. ..."), and a result with `stop_reason` "refusal". The same prompt is refused again,
    so the failure is labelled `content_filter`: core's content-filter family, never retried
    and neutral for the circuit, as a blocked prompt over HTTP is.
    """
    message = event.get("message")
    stop = message.get("stop_reason") if isinstance(message, Mapping) else None
    return (stop if event.get("type") == "assistant" else event.get("stop_reason")) == "refusal"


def _error(message: str, meta: dict[str, Any]) -> StreamChunk:
    return StreamChunk("error", message, is_error=True, metadata=meta)


def _tool_result(block: Mapping[str, Any], event: Mapping[str, Any]) -> StreamChunk:
    content = block.get("content")
    output: Any = content
    if isinstance(content, list):
        texts = [
            item.get("text")
            for item in content
            if isinstance(item, Mapping) and item.get("type") == "text"
        ]
        if texts and len(texts) == len(content):
            output = "\n".join(t for t in texts if isinstance(t, str))
    return StreamChunk(
        "tool_result",
        tool_id=_optional(block, "tool_use_id"),
        tool_output=output,
        is_error=block.get("is_error") is True,
        metadata=_parent(event),
    )


def _blocks(event: Mapping[str, Any], kind: str) -> list[Mapping[str, Any]]:
    message = event.get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    if not isinstance(content, list) or not all(isinstance(b, Mapping) for b in content):
        raise ProviderProtocolError(f"claude: {kind} event without a message.content block list")
    return list(content)


def _parent(event: Mapping[str, Any]) -> dict[str, Any]:
    parent = event.get("parent_tool_use_id")
    return {"parent_tool_use_id": parent} if isinstance(parent, str) and parent else {}


def _pick(event: Mapping[str, Any], *pairs: tuple[str, str]) -> dict[str, Any]:
    return {out: event[key] for key, out in pairs if event.get(key) is not None}


def _string(block: Mapping[str, Any], key: str) -> str:
    value = block.get(key)
    if not isinstance(value, str):
        raise ProviderProtocolError(f"claude: {block.get('type')} block needs a string {key!r}")
    return value


def _optional(block: Mapping[str, Any], key: str) -> str | None:
    value = block.get(key)
    return value if isinstance(value, str) and value else None

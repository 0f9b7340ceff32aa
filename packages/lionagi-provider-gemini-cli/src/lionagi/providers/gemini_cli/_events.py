"""Gemini CLI ``--output-format stream-json`` events -> normalized chunks (ADR-0030 D3).

The grammar (gemini-cli 0.61, ``JsonStreamEventType``), one JSON object per line::

    {"type":"init","session_id":"<uuid>","model":"m"}              -> system (provider_session_id)
    {"type":"message","role":"user","content":"<prompt>"}          ignored (the prompt's echo)
    {"type":"message","role":"assistant","content":"..","delta":true} -> text
    {"type":"tool_use","tool_name":"..","tool_id":"..","parameters":{..}} -> tool_use
    {"type":"tool_result","tool_id":"..","status":"success"|"error","output":"..",
     "error":{"type":"..","message":".."}}                          -> tool_result
    {"type":"error","severity":"warning"|"error","message":".."}    -> system (notice), remembered
    {"type":"error","severity":"warning","message":"Loop detected, stopping execution"}
                                                                    -> system (notice); the run's
                                                                       result becomes an error
    {"type":"result","status":"success","stats":{..}}               -> system (session_id
                                                                       confirmed), result
    {"type":"result","status":"error","error":{"type":"..","message":".."},"stats":{..}}
                                                                    -> error (then stop)

The session id is *confirmed* (canonical ``session_id``, which core stores for the next turn's
``resume``) only by a successful result: gemini saves a session once a turn completes, and an
id from a run that failed before that is refused by ``--resume`` (exit 42, "No previous sessions
found"). The ``init`` event's id is passed on early as ``provider_session_id``.

Loop detection is the exception to "success is the result's status". When the CLI's loop
detector fires it emits ``{"type":"error","severity":"warning","message":"Loop detected,
stopping execution"}``, stops the turn and still ends with ``{"type":"result","status":
"success"}`` (exit 0), but saves no session. Confirming that id made every later turn fail to
resume, so a run with that notice ends on one error chunk (code :data:`LOOP_DETECTED_CODE`,
the CLI's own name for it) instead of a result: no ``session_id`` is confirmed, core keeps the
model's previous session, and the caller learns why the turn stopped (``ProviderStreamError``
with ``code == "LOOP_DETECTED"``; not retryable, the same prompt may loop again).

Every assistant ``message`` is a delta (``delta: true``) and no event marks where one assistant
message ends, so the projection draws the line itself: the first text after the start of the
run, a ``tool_use`` or a ``tool_result`` is a new unit (``is_delta=False``) and the deltas after
it continue that unit (``is_delta=True``). Without that, ``invoke`` ran the text before and after
a tool call together ("..files.There are..") where the other agentic adapters give
separate paragraphs. A notice does not end the message: the CLI continues after a warning, and
the notice says nothing about where the model's text ends, so a split there could break a
sentence in two. A message without ``delta: true`` is complete on its own and ends the current
unit too.

The CLI emits no thinking events. Success is the ``result`` event's ``status``, never the exit
code. A failure can be announced twice (an ``error`` event with severity ``error``, e.g. an
invalid or blocked stream, then ``result`` with ``status: "error"`` and no ``error`` object):
the notice is remembered and the terminal event yields the one error chunk, with the notice's
text when the result carries none. Severity ``error`` alone is not a failure: the CLI also uses
it for conditions it continues after (it ended a turn early, a quota notice), so only the
terminal event decides.

The telemetry allowlist is :data:`IGNORED_EVENTS`: the user-message echo is the only event with
nothing for the consumer. Any other ``type`` or ``role`` is a :class:`ProviderProtocolError`,
because it could carry text, a tool call, a result or an error.

Plain text on stdout is not part of the grammar, but the CLI prints it: a slash command run
headless writes its output between the events (``/memory show`` prints "Memory is currently
empty."). :func:`plain_text_event` reads such a line, the endpoint hands it to core's framer
as its plain-line reader, and the projector makes the line a ``system`` notice
(``{"notice": line, "severity": "info", "source": "stdout"}``) instead of the run failing with
a protocol error. A line that may be a broken event (it starts with ``{`` or holds an event's
``{"type"``) is refused, so a damaged event still fails the run rather than pass as a notice.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from lionagi.service import ProviderProtocolError, StreamChunk

__all__ = [
    "IGNORED_EVENTS",
    "LOOP_DETECTED_CODE",
    "PLAIN_TEXT_EVENT",
    "GeminiEventProjector",
    "plain_text_event",
    "usage_of",
]

IGNORED_EVENTS: frozenset[tuple[str, str | None]] = frozenset({("message", "user")})
"""``(type, role)`` pairs that carry nothing for the consumer (the CLI's echo of the prompt)."""

LOOP_DETECTED_CODE = "LOOP_DETECTED"
"""``code`` of the error a loop-detected run ends on (the name Gemini CLI gives the condition)."""

_LOOP_NOTICE = "loop detected"
"""How the CLI's loop notice starts (``"Loop detected, stopping execution"`` in 0.61), matched
case-insensitively: the event carries no code, so the text is the only evidence."""

_USAGE_KEYS = ("input_tokens", "output_tokens", "total_tokens", "cached")

PLAIN_TEXT_EVENT = "lionagi.plain_text"
"""``type`` of the event :func:`plain_text_event` makes of a plain-text stdout line. The CLI's
own event types are single words, so a dotted name never collides with one."""


def plain_text_event(line: str) -> dict[str, Any] | None:
    """A plain-text stdout line (a slash command's output) as an event; None refuses the line.

    Core's framer asks this only about a complete stdout line that is not a JSON object. A line
    starting with ``{``, or holding ``{"type"`` (the start of every event the CLI writes), may
    be a damaged or run-together event: it is refused, and the run fails with the framer's
    protocol error instead of losing an event in a notice.
    """
    if line.lstrip().startswith("{") or '{"type"' in line:
        return None
    return {"type": PLAIN_TEXT_EVENT, "text": line}


def usage_of(stats: Mapping[str, Any]) -> dict[str, int]:
    """Token counts from a result's ``stats`` (``cached`` becomes ``cached_tokens``)."""
    usage: dict[str, int] = {}
    for key in _USAGE_KEYS:
        value = stats.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            usage["cached_tokens" if key == "cached" else key] = value
    return usage


class GeminiEventProjector:
    """Maps one run's events to chunks; holds what later events need.

    That is the session, the notices, and whether an assistant message is streaming (the next
    text delta continues it).
    """

    def __init__(self) -> None:
        """Start a run: no session, no notices, no loop, no message streaming, no terminal event.

        ``loop_notice`` keeps the CLI's loop-detection text: a run that had one cannot confirm
        its session, whatever the result event's status says.
        """
        self.session_id: str | None = None
        self.model: str | None = None
        self.notices: list[str] = []
        self.loop_notice: str | None = None
        self.finished = False
        self._in_message = False

    def project(self, event: Mapping[str, Any]) -> list[StreamChunk]:
        """One event to its chunks (none for an allowlisted event)."""
        chunk = self._project(event)
        if chunk is None:
            return []
        if chunk.type == "result" and self.session_id:
            return [StreamChunk("system", metadata={"session_id": self.session_id}), chunk]
        return [chunk]

    feed = project  # the name core's run loop calls (``CliEventParser``)

    def finish(self) -> list[StreamChunk]:
        """Nothing to add at a clean exit; a started session without its result is an error.

        Raises:
            ProviderProtocolError: the CLI confirmed a session and exited 0 without the
                terminal ``result`` event.
        """
        if not self.finished and self.session_id is not None:
            raise ProviderProtocolError("gemini: the stream ended without a result event")
        return []

    def _project(self, event: Mapping[str, Any]) -> StreamChunk | None:
        kind = event.get("type")
        if not isinstance(kind, str):
            raise ProviderProtocolError("gemini: an event without a string 'type'")
        role = event.get("role") if kind == "message" else None
        if (kind, role if isinstance(role, str) else None) in IGNORED_EVENTS:
            return None
        if self.finished:
            raise ProviderProtocolError(f"gemini: {kind} event after the result event")
        if kind == "init":
            return self._init(event)
        if kind == "message":
            return self._message(event, role)
        if kind == "tool_use":
            self._in_message = False  # the model's message ended in a tool call
            return self._tool_use(event)
        if kind == "tool_result":
            self._in_message = False  # text after a result is the next message
            return self._tool_result(event)
        if kind == "error":
            return self._notice(event)
        if kind == "result":
            return self._result(event)
        if kind == PLAIN_TEXT_EVENT:
            # A notice, like a warning: it neither ends the assistant's message nor fails the run.
            text = _text(event, "text")
            return StreamChunk(
                "system", metadata={"notice": text, "severity": "info", "source": "stdout"}
            )
        raise ProviderProtocolError(f"gemini: unknown event type {kind!r}")

    # -- event kinds -------------------------------------------------------------------------------

    def _init(self, event: Mapping[str, Any]) -> StreamChunk:
        self.session_id = _text(event, "session_id")
        model = event.get("model")
        self.model = model if isinstance(model, str) and model else None
        meta: dict[str, Any] = {"provider_session_id": self.session_id}
        if self.model:
            meta["model"] = self.model
        return StreamChunk("system", metadata=meta)

    def _message(self, event: Mapping[str, Any], role: object) -> StreamChunk:
        if role != "assistant":
            raise ProviderProtocolError(f"gemini: message event with unknown role {role!r}")
        content = _text(event, "content")
        if not event.get("delta"):
            self._in_message = False  # a whole message: its own unit, and the next starts afresh
            return StreamChunk("text", content)
        continues = self._in_message
        if content:  # an empty delta opens nothing: invoke skips it, the next text must not join
            self._in_message = True
        return StreamChunk("text", content, is_delta=continues)

    def _tool_use(self, event: Mapping[str, Any]) -> StreamChunk:
        params = event.get("parameters")
        if params is not None and not isinstance(params, Mapping):
            raise ProviderProtocolError("gemini: tool_use 'parameters' must be an object")
        return StreamChunk(
            "tool_use",
            tool_name=_text(event, "tool_name"),
            tool_id=_text(event, "tool_id"),
            tool_input=dict(params) if params is not None else {},
        )

    def _tool_result(self, event: Mapping[str, Any]) -> StreamChunk:
        status = event.get("status")
        if status not in ("success", "error"):
            raise ProviderProtocolError(f"gemini: tool_result with unknown status {status!r}")
        output: Any = event.get("output")
        error = event.get("error")
        if status == "error" and isinstance(error, Mapping) and output in (None, ""):
            output = error.get("message")
        return StreamChunk(
            "tool_result",
            tool_id=_text(event, "tool_id"),
            tool_output=output,
            is_error=status == "error",
        )

    def _notice(self, event: Mapping[str, Any]) -> StreamChunk:
        message = _text(event, "message")
        severity = event.get("severity")
        if severity not in ("warning", "error"):
            raise ProviderProtocolError(f"gemini: error event with unknown severity {severity!r}")
        if severity == "error":
            self.notices.append(message)
        elif message.strip().lower().startswith(_LOOP_NOTICE):
            self.loop_notice = message.strip()  # the run stops here; its result must not commit
        return StreamChunk("system", metadata={"notice": message, "severity": severity})

    def _result(self, event: Mapping[str, Any]) -> StreamChunk:
        self.finished = True
        status = event.get("status")
        stats = event.get("stats")
        stats = stats if isinstance(stats, Mapping) else {}
        if status == "success" and self.loop_notice is not None:
            return self._loop_failure(self.loop_notice)
        if status == "success":
            meta: dict[str, Any] = {}
            usage = usage_of(stats)
            if usage:
                meta["usage"] = usage
            for key in ("duration_ms", "tool_calls"):
                if isinstance(stats.get(key), int):
                    meta[key] = stats[key]
            if isinstance(stats.get("models"), Mapping):
                meta["models"] = dict(stats["models"])
            if self.session_id:
                meta["session_id"] = self.session_id
            if self.model:
                meta["model"] = self.model
            return StreamChunk("result", metadata=meta)
        if status == "error":
            return self._failure(event)
        raise ProviderProtocolError(f"gemini: result with unknown status {status!r}")

    @staticmethod
    def _loop_failure(notice: str) -> StreamChunk:
        """The error a loop-detected "success" becomes: the CLI stopped and saved no session.

        An error chunk, not a result, so core's contract check commits no ``session_id`` (the
        next turn keeps the model's previous session instead of resuming one gemini never
        wrote) and ``invoke``/``stream`` raise :class:`ProviderStreamError` with
        ``code == LOOP_DETECTED_CODE``. The text streamed before the loop was already delivered.
        """
        message = (
            f"gemini: {notice} (the CLI's loop detection ended the turn early and saved no "
            "session, so this turn is not resumed)"
        )
        return StreamChunk("error", message, is_error=True, metadata={"code": LOOP_DETECTED_CODE})

    def _failure(self, event: Mapping[str, Any]) -> StreamChunk:
        error = event.get("error")
        error = error if isinstance(error, Mapping) else {}
        message = error.get("message")
        if not isinstance(message, str) or not message.strip():
            message = self.notices[-1] if self.notices else "gemini reported a failed run"
        meta: dict[str, Any] = {}
        kind = error.get("type")
        if isinstance(kind, str) and kind:
            meta["type"] = kind
        meta.update(_api_error_fields(message))
        if "retry_after" not in meta:
            delay = _suggested_delay(message)
            if delay is not None:
                meta["retry_after"] = delay
        return StreamChunk("error", message, is_error=True, metadata=meta)


def _api_error_fields(message: str) -> dict[str, Any]:
    """``status`` and ``code`` from the API error body Gemini CLI quotes in its message.

    The CLI reports an API failure as ``[API Error: {"error":{"code":401,...,"status":
    "UNAUTHENTICATED"}}]``: the HTTP status is ``error.code`` and Google's status name is the
    best machine-readable code.
    """
    start = message.find("{")
    end = message.rfind("}")
    if start < 0 or end <= start:
        return {}
    try:
        body = json.loads(message[start : end + 1])
    except ValueError:
        return {}
    inner = body.get("error") if isinstance(body, Mapping) else None
    if not isinstance(inner, Mapping):
        return {}
    out: dict[str, Any] = {}
    code = inner.get("code")
    if isinstance(code, int) and not isinstance(code, bool):
        out["status"] = code
    name = inner.get("status")
    if isinstance(name, str) and name:
        out["code"] = name
    delay = _retry_delay(inner.get("details"))
    if delay is not None:
        out["retry_after"] = delay
    return out


def _retry_delay(details: object) -> float | None:
    """Seconds from a ``google.rpc.RetryInfo`` detail (``"retryDelay": "12s"``), if any."""
    if not isinstance(details, list):
        return None
    for item in details:
        if not isinstance(item, Mapping) or not str(item.get("@type", "")).endswith("RetryInfo"):
            continue
        delay = item.get("retryDelay")
        if isinstance(delay, str) and delay.endswith("s"):
            try:
                return float(delay[:-1])
            except ValueError:
                return None
    return None


_SUGGESTED_DELAY = re.compile(
    r"(?:Suggested retry after|Please retry in) ([0-9]+(?:\.[0-9]+)?)(ms|s)\b"
)
"""The delay in the CLI's own 429 wording. Gemini CLI 0.61 does not quote a 429's body: it
reads the ``RetryInfo`` itself and adds a line ``Suggested retry after 1s.`` to the message (or
keeps Google's ``Please retry in 12.3s`` when the body has no details), so without this the
delay Google asked for never reached ``retry_after``."""


def _suggested_delay(message: str) -> float | None:
    """Seconds from the CLI's "Suggested retry after <n>s." (or "Please retry in <n>s")."""
    found = _SUGGESTED_DELAY.search(message)
    if found is None:
        return None
    value = float(found.group(1))
    return value / 1000 if found.group(2) == "ms" else value


def _text(event: Mapping[str, Any], key: str) -> str:
    value = event.get(key)
    if not isinstance(value, str):
        raise ProviderProtocolError(f"gemini: {event.get('type')} event needs a string {key!r}")
    return value

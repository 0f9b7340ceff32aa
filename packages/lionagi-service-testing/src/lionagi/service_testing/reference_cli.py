"""A minimal subprocess agentic adapter: the reference the conformance kit is tested against.

It is what a vendor CLI adapter looks like when everything but the command grammar and the event
mapping is left to core: a strict request model, the flags (``cli_arguments``), a parser
(``event_parser``) and the deployment hooks, on core's ``SubprocessCliEndpoint`` (launch,
framing, stderr, teardown, containment and the run loop); the parser is a projection of a trivial
normalized grammar to :class:`StreamChunk`. It is not registered in the catalog.

Event grammar (one JSON object per event)::

    {"type": "session", "session_id": "s-1", "model": "m"}          -> system (session confirmed)
    {"type": "thinking", "content": "..."}                           -> thinking
    {"type": "text", "content": "...", "delta": true}                -> text
    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {...}} -> tool_use
    {"type": "tool_result", "id": "t1", "output": ..., "is_error": false} -> tool_result
    {"type": "result", "content": "...", "usage": {...}, "session_id": "s-1"} -> result
    {"type": "error", "message": "...", "kind": "auth"}              -> error (then stop)
    {"type": "telemetry", ...}                                       ignored (allowlisted)

Three traps real CLIs set, mapped the way an adapter must map them:

    {"type": "text", "content": "...", "error": true, "kind": ...}   -> error (then stop): an
        assistant message the provider flags as a failure is never text
    {"type": "error", "message": "...", "will_retry": true}          -> system, metadata
        ``retry_notice``: the CLI is retrying, the run has not failed
    {"type": "result", "content": <the text already streamed>}       -> result without content:
        the consumer sees each text once

Any other ``type`` is a :class:`ProviderProtocolError`: it might carry content.

Command grammar: ``[*argv, ("--model", model), ("--resume", resume), "--", prompt]``; the
prompt is handed to core as ``prompt=`` so it always lands after the ``--`` separator, where a
leading ``-`` is an operand, never an option.

Deployment settings (``settings=``, :class:`~lionagi.service.AgenticSettings`): ``binary``
replaces ``argv[0]``; ``cwd`` is the working directory when the request names no ``repo``
(and the base ``workspace`` is resolved against); ``env`` and the config home reach the child
through :meth:`SubprocessCliEndpoint.launch_settings`. The gateway is mapped to
``LIONAGI_REFERENCE_GATEWAY_URL`` / ``LIONAGI_REFERENCE_GATEWAY_KEY`` and a ``--gateway`` flag,
the shape a vendor adapter's ``ANTHROPIC_BASE_URL`` or codex model provider mapping takes.
An isolated home is seeded with ``.reference-cli/settings.json`` (headless, no retries).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from lionagi.service import (
    AgenticCapabilities,
    AgenticSettings,
    ProviderProtocolError,
    StreamChunk,
)
from lionagi.service.agentic import SubprocessCliEndpoint

__all__ = [
    "REFERENCE_CLI_CONFIG",
    "ReferenceCliEndpoint",
    "ReferenceCliRequest",
    "ReferenceEventParser",
    "project_event",
]

REFERENCE_CLI_CONFIG: Mapping[str, Any] = {
    "name": "reference-cli",
    "provider": "reference",
    "endpoint": "cli",
}

_IGNORED = frozenset({"telemetry"})


class ReferenceCliRequest(BaseModel):
    """What the reference CLI accepts."""

    model_config = ConfigDict(extra="forbid")

    prompt: str = Field(min_length=1)
    model: str | None = None
    resume: str | None = None
    repo: str | None = None
    workspace: str | None = None


class ReferenceCliEndpoint(SubprocessCliEndpoint):
    """Runs ``argv`` plus the request's flags and projects its events.

    Args:
        config: Endpoint config; defaults to :data:`REFERENCE_CLI_CONFIG`.
        argv: Program (and leading arguments) to run; the request's flags are appended.
        terminate_grace: Seconds between SIGTERM and SIGKILL at teardown.
        settings: Deployment settings (see the module docstring).
    """

    default_config: ClassVar[Mapping[str, Any] | None] = REFERENCE_CLI_CONFIG
    cli_binary: ClassVar[str | None] = "lionagi-reference-cli"
    process_label: ClassVar[str | None] = "reference-cli"
    install_hint: ClassVar[str | None] = (
        "the reference CLI is a test double; point argv at a fake CLI"
    )
    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="subprocess", resumable=True, emits_tool_events=True, reports_usage=True
    )
    request_type: ClassVar[type[BaseModel] | None] = ReferenceCliRequest
    resume_field: ClassVar[str | None] = "resume"
    runtime_arg_keys: ClassVar[frozenset[str]] = frozenset({"on_text"})
    supports_gateway: ClassVar[bool] = True

    def gateway_env(self, settings: AgenticSettings) -> dict[str, str]:
        """The reference CLI reads its gateway from two variables."""
        env: dict[str, str] = {}
        if settings.gateway_url is not None:
            env["LIONAGI_REFERENCE_GATEWAY_URL"] = settings.gateway_url
        if settings.gateway_api_key is not None:
            env["LIONAGI_REFERENCE_GATEWAY_KEY"] = settings.gateway_api_key.get_secret_value()
        return env

    def gateway_args(self, settings: AgenticSettings) -> list[str]:
        """And is told by a flag that a gateway is configured."""
        return ["--gateway", "env"] if settings.gateway_url is not None else []

    def seed_isolated_home(self, home: Path) -> None:
        """Headless defaults: no retries, no telemetry, the workspace trusted."""
        folder = home / ".reference-cli"
        folder.mkdir(exist_ok=True)
        settings = {"retries": 0, "telemetry": False, "trust_workspace": True}
        (folder / "settings.json").write_text(json.dumps(settings), encoding="utf-8")

    def cli_arguments(
        self, request: ReferenceCliRequest, *, extra: Sequence[str] = ()
    ) -> list[str]:
        """The flags after the prefix: gateway flags, then every flag and value its own element."""
        argv = list(extra)
        if request.model:
            argv += ["--model", request.model]
        if request.resume:
            argv += ["--resume", request.resume]
        return argv

    def event_parser(self, request: ReferenceCliRequest) -> ReferenceEventParser:
        """A parser for one run, projecting through :meth:`project` and :meth:`finish_result`."""
        return ReferenceEventParser(self)

    def project(self, event: Mapping[str, Any]) -> StreamChunk | None:
        """One event to one chunk (see :func:`project_event`)."""
        return project_event(event)

    def finish_result(self, chunk: StreamChunk, streamed: str) -> StreamChunk:
        """Drop result text the consumer already received as text chunks.

        CLIs repeat the whole answer on their final event; passing it on would show the
        consumer every word twice (and fold it twice into ``invoke``'s result).
        """
        if chunk.content and chunk.content.strip() and chunk.content.strip() in streamed:
            return StreamChunk("result", None, metadata=dict(chunk.metadata))
        return chunk


class ReferenceEventParser:
    """One run's events through the endpoint's hooks (the kit overrides them to prove a trap).

    Keeps the text streamed so far, so a result that repeats it is passed on without content.
    """

    def __init__(self, endpoint: ReferenceCliEndpoint) -> None:
        self._endpoint = endpoint
        self._project = endpoint.project  # bound once per run: feed runs once per event
        self._streamed: list[str] = []

    def feed(self, event: Mapping[str, Any]) -> list[StreamChunk]:
        """The event's chunk (none for telemetry)."""
        chunk = self._project(event)
        if chunk is None:
            return []
        if chunk.type == "text" and chunk.content:
            self._streamed.append(chunk.content)
        elif chunk.type == "result":
            chunk = self._endpoint.finish_result(chunk, "".join(self._streamed))
        return [chunk]

    def finish(self) -> list[StreamChunk]:
        """The reference grammar buffers nothing: a failure is its own event."""
        return []


def project_event(event: Mapping[str, Any]) -> StreamChunk | None:
    """Map one reference-grammar event to a chunk; None for allowlisted telemetry."""
    kind = event.get("type")
    # Text and thinking deltas are almost every event of a run: mapped first, in one step.
    if kind == "text" or kind == "thinking":
        content = event.get("content")
        if not isinstance(content, str):
            content = _text(event, "content")  # raises, naming the field
        if kind == "text" and event.get("error") is True:
            return _error_chunk(event, content)
        return StreamChunk(kind, content, is_delta=bool(event.get("delta")))
    if kind in _IGNORED:
        return None
    if kind == "session":
        meta = {k: event[k] for k in ("session_id", "model") if event.get(k)}
        return StreamChunk("system", metadata=meta)
    if kind == "error" and event.get("will_retry") is True:
        notice = _optional_text(event, "message") or "retrying"
        return StreamChunk("system", metadata={"retry_notice": notice})
    if kind == "tool_use":
        raw_input = event.get("input")
        return StreamChunk(
            "tool_use",
            tool_name=_text(event, "name"),
            tool_id=_optional_text(event, "id"),
            tool_input=dict(raw_input) if isinstance(raw_input, Mapping) else None,
        )
    if kind == "tool_result":
        return StreamChunk(
            "tool_result",
            tool_id=_optional_text(event, "id"),
            tool_output=event.get("output"),
            is_error=bool(event.get("is_error")),
        )
    if kind == "result":
        meta = {k: event[k] for k in ("session_id", "model", "usage") if event.get(k)}
        return StreamChunk("result", _optional_text(event, "content"), metadata=meta)
    if kind == "error":
        message = _optional_text(event, "message") or "the reference CLI reported an error"
        return _error_chunk(event, message)
    raise ProviderProtocolError(f"reference-cli: unknown event type {kind!r}")


def _error_chunk(event: Mapping[str, Any], message: str) -> StreamChunk:
    meta = {"provider_error": event["kind"]} if isinstance(event.get("kind"), str) else {}
    return StreamChunk("error", message, is_error=True, metadata=meta)


def _text(event: Mapping[str, Any], key: str) -> str:
    value = event.get(key)
    if not isinstance(value, str):
        raise ProviderProtocolError(
            f"reference-cli: {event.get('type')} event needs a string {key!r}"
        )
    return value


def _optional_text(event: Mapping[str, Any], key: str) -> str | None:
    value = event.get(key)
    return value if isinstance(value, str) else None

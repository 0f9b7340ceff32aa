"""The ``acme`` CLI as an agentic endpoint: only its command grammar and event mapping.

Core's ``SubprocessCliEndpoint`` launches the program (no shell, prompt after ``--``, stdin
closed), frames its JSON lines, contains and reaps the process and runs the loop; this module
says which flags to pass and how one event becomes one chunk.

Event grammar (one JSON object per line)::

    {"type": "text", "content": "..."}                      -> text
    {"type": "tool_use", "id": "t1", "name": "...", "input": {...}} -> tool_use
    {"type": "tool_result", "id": "t1", "output": ...}      -> tool_result
    {"type": "result", "content": "...", "usage": {...}}    -> result (repeated text dropped)
    {"type": "error", "message": "...", "kind": "...", "status": 401} -> error
    {"type": "progress", ...}                               ignored

Any other type is a ``ProviderProtocolError``: an unknown event might carry content. A run that
answered ends with ``result`` (or ``error``); one that exits without it was cut short, and
``finish`` raises ``ProviderProtocolError`` instead of passing the partial answer off as whole.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from lionagi.service import AgenticCapabilities, ProviderProtocolError, StreamChunk
from lionagi.service.agentic import SubprocessCliEndpoint

__all__ = ["AcmeCli", "AcmeCliRequest", "AcmeEventParser"]


class AcmeCliRequest(BaseModel):
    """What the acme CLI accepts."""

    model_config = ConfigDict(extra="forbid")

    prompt: str = Field(min_length=1)
    model: str | None = None
    # The model policy's effort kwarg: every row of the provider must accept it.
    reasoning_effort: Literal["low", "medium", "high"] | None = None
    repo: str | None = None
    workspace: str | None = None


class AcmeCli(SubprocessCliEndpoint):
    """Runs ``acme run --json [--model M] [--effort E] -- PROMPT`` and maps its events."""

    default_config: ClassVar[Mapping[str, Any] | None] = {
        "name": "acme-cli",
        "provider": "acme",
        "endpoint": "query_cli",
    }
    cli_binary: ClassVar[str | None] = "acme"
    process_label: ClassVar[str | None] = "acme"
    install_hint: ClassVar[str | None] = "npm install -g @acme/cli"
    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="subprocess", resumable=False, emits_tool_events=True, reports_usage=True
    )
    request_type: ClassVar[type[BaseModel] | None] = AcmeCliRequest

    def cli_arguments(self, request: AcmeCliRequest, *, extra: Sequence[str] = ()) -> list[str]:
        """Flags after the program, each flag and value its own element (no shell)."""
        argv = [*extra, "run", "--json"]
        if request.model:
            argv += ["--model", request.model]
        if request.reasoning_effort:
            argv += ["--effort", request.reasoning_effort]
        return argv

    def event_parser(self, request: AcmeCliRequest) -> AcmeEventParser:
        """A parser for one run."""
        return AcmeEventParser()


class AcmeEventParser:
    """One run's events to chunks; remembers the streamed text to drop a repeating result."""

    def __init__(self) -> None:
        self._streamed: list[str] = []
        self._answered = False  # content arrived: the run must reach ``result`` or ``error``
        self._ended = False

    def feed(self, event: Mapping[str, Any]) -> list[StreamChunk]:
        """The chunk for ``event`` (none for progress)."""
        kind = event.get("type")
        if kind == "progress":
            return []
        if kind in ("text", "tool_use", "tool_result"):
            self._answered = True
        if kind == "text":
            text = str(event.get("content") or "")
            self._streamed.append(text)
            return [StreamChunk("text", text, is_delta=True)] if text else []
        if kind == "tool_use":
            return [
                StreamChunk(
                    "tool_use",
                    tool_id=str(event.get("id") or ""),
                    tool_name=str(event.get("name") or ""),
                    tool_input=dict(event.get("input") or {}),
                )
            ]
        if kind == "tool_result":
            return [
                StreamChunk(
                    "tool_result",
                    tool_id=str(event.get("id") or ""),
                    tool_output=event.get("output"),
                    is_error=bool(event.get("is_error")),
                )
            ]
        if kind == "result":
            self._ended = True
            content = event.get("content")
            streamed = "".join(self._streamed)
            if isinstance(content, str) and content.strip() and content.strip() in streamed:
                content = None  # the CLI repeats the answer; the consumer has it already
            meta = {"usage": dict(event["usage"])} if event.get("usage") else {}
            return [StreamChunk("result", content, metadata=meta)]
        if kind == "error":
            self._ended = True
            # What core's classifier reads: the vendor's kind as ``type``, the HTTP status.
            meta: dict[str, Any] = {"type": str(event["kind"])} if event.get("kind") else {}
            if isinstance(event.get("status"), int):
                meta["status"] = event["status"]
            message = str(event.get("message") or "acme reported an error")
            return [StreamChunk("error", message, is_error=True, metadata=meta)]
        raise ProviderProtocolError(f"acme: unknown event type {kind!r}")

    def finish(self) -> list[StreamChunk]:
        """Nothing is buffered (a failure is its own event); a run cut short is refused."""
        if self._answered and not self._ended:
            raise ProviderProtocolError("acme: the stream ended without a result event")
        return []

"""HTTPConformanceBase: the hooks and knobs every HTTP kit class shares.

An adapter author subclasses one of the kind classes (chat, embeddings, plain JSON), names the
fake server ``dialect`` its endpoint speaks, declares capability flags, and implements
``make_endpoint(base_url, api_key)`` and ``valid_request()``. Everything else has a default.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from lionagi.service import Endpoint

from . import _http_dialects as dialects

__all__ = ["HTTPConformanceBase"]


class HTTPConformanceBase(ABC):
    """Hooks and settings shared by the HTTP conformance classes.

    Required:
        dialect: the fake server wire the endpoint speaks (``openai_chat``,
            ``openai_responses``, ``anthropic_messages``, ``gemini``, ``ollama``,
            ``openai_embeddings``, ``json``).
        make_endpoint(base_url, api_key): a new endpoint for that URL and key. The URL is the
            fake server's plus the dialect's base path (``/v1``, ``/v1beta`` or nothing); the
            endpoint must allow the loopback address (``allow_local_network=True``).
        valid_request(): a minimal valid request mapping; a new dict per call.

    Capability flags (``streams``, ``tool_calls``, ``usage``, ``reasoning``, ``finish_reasons``)
    switch cases on; a case whose capability is off is skipped with the flag's name.
    ``refuses_unknown_stream_fields`` is a declaration rather than a capability: set it when the
    stream grammar refuses, by design, an event with a field it does not know (a grammar that
    names content by field, such as native Gemini's parts or Ollama's generate lines, cannot
    tell a new bookkeeping field from new content); the unknown-field stream case then requires
    that refusal to be loud (``ProviderProtocolError``, one attempt) instead of requiring the
    answer to arrive unchanged.

    Optional hooks: ``tool_request()`` (a request offering the ``shell`` tool), and the
    ``response_*`` readers (text, thinking, tool uses, usage, finish reason, vectors) for an
    adapter whose ``call()`` returns something other than the decoded vendor JSON.
    """

    dialect: ClassVar[str]
    streams: ClassVar[bool] = False
    tool_calls: ClassVar[bool] = False
    usage: ClassVar[bool] = False
    reasoning: ClassVar[bool] = False
    # The API has a context window, so an over-long request has its own error (search APIs don't).
    context_window: ClassVar[bool] = True
    # The API says why an answer ended (stop, or cut at the output token limit).
    finish_reasons: ClassVar[bool] = True
    refuses_unknown_stream_fields: ClassVar[bool] = False

    max_attempts: ClassVar[int] = 3
    retry_delay: ClassVar[float] = 0.01
    max_retry_delay: ClassVar[float] = 2.0
    retry_after: ClassVar[str] = "0.05"
    # Long enough that the stalled request reaches the server first even on a loaded machine
    # (the case also counts the attempt), short enough to keep the kit quick.
    deadline: ClassVar[float] = 2.0
    deadline_grace: ClassVar[float] = 2.5
    # The call's own local cap for the no-deadline half of the deadline cases: with no caller
    # deadline only the endpoint's ``timeout=`` bounds an attempt (ADR-0029 D2).
    local_cap: ClassVar[float] = 0.5
    case_timeout: ClassVar[float] = 30.0
    settle_timeout: ClassVar[float] = 2.0

    # -- adapter hooks --------------------------------------------------------------------

    @abstractmethod
    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        """A new endpoint reaching ``base_url`` with ``api_key``."""

    @abstractmethod
    def valid_request(self) -> dict[str, Any]:
        """A minimal valid request mapping (a new dict per call)."""

    def tool_request(self) -> dict[str, Any]:
        """``valid_request()`` plus an offer of one tool, ``shell``, taking a string ``command``.

        Override when the adapter spells tools differently; keep the name and the schema (the
        fake server fills ``command`` with ``TOOL_COMMAND`` and the kit checks exactly that).
        """
        return {**self.valid_request(), **dialects.tool_offer(self.dialect)}

    def base_path(self) -> str:
        """The path added to the fake server's URL for ``make_endpoint``'s ``base_url``."""
        self._check_dialect()
        return dialects.base_path(self.dialect)

    def response_text(self, response: Any) -> str:
        """The answer text of one ``invoke()`` response."""
        return dialects.response_text(self.dialect, response)

    def response_thinking(self, response: Any) -> str:
        """The reasoning text of one ``invoke()`` response."""
        return dialects.response_thinking(self.dialect, response)

    def response_tool_uses(self, response: Any) -> list[tuple[str | None, Any]]:
        """``(name, parsed arguments)`` of each tool call in one ``invoke()`` response."""
        return dialects.response_tool_uses(self.dialect, response)

    def response_usage(self, response: Any) -> Any:
        """The usage record of one ``invoke()`` response, or None."""
        return dialects.response_usage(self.dialect, response)

    def response_finish_reason(self, response: Any) -> Any:
        """Why one ``invoke()`` response ended (the vendor's finish/stop reason), or None."""
        return dialects.response_finish_reason(self.dialect, response)

    def response_vectors(self, response: Any) -> list[Any]:
        """The vectors of one embeddings ``invoke()`` response, in input order."""
        return dialects.response_vectors(self.dialect, response)

    def _check_dialect(self) -> None:
        dialect = getattr(self, "dialect", None)
        assert dialect in dialects.DIALECTS, (
            f"{type(self).__name__}.dialect is {dialect!r}; set it to one of "
            f"{', '.join(dialects.DIALECTS)}"
        )

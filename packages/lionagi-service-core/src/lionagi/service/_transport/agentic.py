"""AgenticEndpoint: the base for work that is not a plain HTTP request (ADR-0030 D1).

Subprocess CLIs, in-process agents and remote agents share the call event and the normalized
``StreamChunk`` output with HTTP endpoints, but not HTTP mechanics: the HTTP helpers raise.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel

from .._base.chunk import StreamChunk
from .._base.errors import AgenticOperationUnsupported
from .config import EndpointConfig
from .endpoint import Endpoint

__all__ = ["AgenticCapabilities", "AgenticEndpoint", "AgenticTransport"]

AgenticTransport = Literal["subprocess", "in_process", "remote"]


@dataclass(frozen=True, slots=True)
class AgenticCapabilities:
    """What an agentic adapter can prove about its output; immutable class data."""

    transport: AgenticTransport
    resumable: bool
    emits_tool_events: bool
    reports_usage: bool


class AgenticEndpoint(Endpoint):
    """Base for agentic adapters.

    ``is_cli`` is a deprecated alias kept True for every agentic endpoint; route on
    ``is_agentic`` and read ``capabilities.transport`` for transport-specific behaviour.
    """

    is_agentic: ClassVar[bool] = True
    is_cli: ClassVar[bool] = True
    capabilities: ClassVar[AgenticCapabilities | None] = None
    resume_field: ClassVar[str | None] = None
    request_type: ClassVar[type[BaseModel] | None] = None
    runtime_arg_keys: ClassVar[frozenset[str]] = frozenset()
    supports_invoke: ClassVar[bool] = True
    DEFAULT_CONCURRENCY_LIMIT: ClassVar[int] = 3
    DEFAULT_QUEUE_CAPACITY: ClassVar[int] = 10

    def __init__(
        self, config: EndpointConfig | Mapping[str, Any] | None = None, **overrides: Any
    ) -> None:
        super().__init__(config, **overrides)
        self._session_id: str | None = None

    @property
    def provider_session_id(self) -> str | None:
        """The last confirmed provider session id (resumable adapters only)."""
        return self._session_id

    @property
    def session_id(self) -> str | None:
        """Alias of :attr:`provider_session_id`."""
        return self._session_id

    def confirm_session(self, session_id: str | None) -> None:
        """Store a confirmed, non-empty id; an empty value never erases the last one."""
        if session_id:
            self._session_id = session_id

    def clear_session(self) -> None:
        """Forget the stored session id."""
        self._session_id = None

    async def call(
        self,
        request: Mapping[str, Any] | BaseModel,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **runtime_args: Any,
    ) -> Any:
        """One-shot run; adapters that support it override this."""
        raise AgenticOperationUnsupported("invoke", type(self).__name__)

    def stream(
        self,
        request: Mapping[str, Any] | BaseModel,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **runtime_args: Any,
    ) -> AsyncIterator[StreamChunk]:
        """Streaming run; every agentic adapter overrides this."""
        raise AgenticOperationUnsupported("stream", type(self).__name__)

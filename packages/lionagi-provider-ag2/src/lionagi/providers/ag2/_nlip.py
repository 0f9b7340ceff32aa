"""A remote NLIP agent over HTTP: one ``POST {url}/nlip/`` per attempt, mapped to chunks.

Direct HTTP on core's client and SSRF guard, not AG2's ``NlipRemoteAgent``: that class retries
in a loop of its own (hidden from ADR-0029's policy) and turns ``max_retries <= 0`` into a
silent empty answer. Here the endpoint makes exactly one request per attempt; iModel's attempt
policy (``max_attempts = config.max_retries``, >= 1) retries timeouts and connect failures
before any output, and nothing else. The wire is NLIP's JSON message (``format``,
``subformat``, ``content``, ``submessages``), which needs no SDK to speak.

Order of checks: URL present and http/https, then the SSRF guard (local addresses only with
``allow_local_network=True`` in the endpoint config), then a client is created. The client
lives for one attempt and is closed on every path.

The request connects to exactly the addresses the guard approved: the guard's
:meth:`~lionagi.service.http.SSRFGuard.approve` resolves the host once and the client's
:class:`~lionagi.service.http.PinnedTransport` connects, inside
:func:`~lionagi.service.http.pinned`, to those answers instead of resolving the name again. A
DNS server that answers a public address to the guard and ``127.0.0.1`` to the connect
(rebinding) therefore cannot carry the request to loopback. With ``allow_local_network=True``
the answers are still resolved once and pinned (only the address check is skipped), as for
core's HTTP endpoints. An injected test ``transport`` decides the destination itself (an
in-process ASGI app, a scripted transport): then the guard only checks the URL and nothing is
pinned.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any, ClassVar
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, ConfigDict, Field

from lionagi.service import (
    AgenticCapabilities,
    AgenticEndpoint,
    AgenticRequestValidationError,
    EndpointConfig,
    EndpointConfigurationError,
    ProviderClientError,
    ProviderConnectionError,
    ProviderProtocolError,
    ProviderServerError,
    StreamChunk,
)
from lionagi.service.http import (
    Approval,
    PinnedTransport,
    SSRFGuard,
    StatelessClient,
    excerpt,
    pinned,
)

__all__ = ["NLIP_CONFIG", "NLIP_TIMEOUT", "AG2NlipEndpoint", "AG2NlipRequest", "nlip_result"]

NLIP_TIMEOUT = 60.0
"""Local transport cap in seconds (inherited, ADR-0030 D5); applied inside the caller deadline."""

NLIP_CONFIG: Mapping[str, Any] = {
    "name": "ag2-nlip",
    "provider": "ag2",
    "endpoint": "nlip",
    "timeout": NLIP_TIMEOUT,
    "max_retries": 3,
}

_MAX_BODY = 4 * 1024 * 1024
_GENERIC_AGENTIC_TIMEOUT = 3600.0  # what the catalog gives every agentic row (TABLES.md)
# One request per client (the client lives for one attempt): nothing to pool or keep alive.
_ONE_REQUEST = httpx.Limits(max_connections=1, max_keepalive_connections=0)


class AG2NlipRequest(BaseModel):
    """One NLIP exchange.

    Attributes:
        prompt: The text sent as the NLIP message content.
        url: The NLIP server's base URL (``/nlip/`` is appended); default: ``config.base_url``.
        language: NLIP ``subformat`` of the text message.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    prompt: str = Field(min_length=1)
    url: str | None = Field(default=None, min_length=1)
    language: str = Field(default="english", min_length=1)


def nlip_result(body: Any) -> dict[str, Any]:
    """An NLIP response message as ``{content, context, input_required}``.

    ``content`` is the top-level text; ``context`` the JSON submessage labelled
    ``ag2_context``; ``input_required`` the content of an ``error`` submessage saying
    ``INPUT_REQUIRED`` (AG2's convention for an agent waiting on a human).

    Raises:
        ProviderProtocolError: the body is not an NLIP message.
    """
    if not isinstance(body, dict) or "format" not in body or "content" not in body:
        raise ProviderProtocolError(
            f"NLIP response is not a message (needs format and content): {excerpt(str(body))}"
        )
    content = body["content"]
    if body.get("format") != "text":
        content = json.dumps(content)
    elif not isinstance(content, str):
        raise ProviderProtocolError("NLIP text message content is not a string")
    context: Any | None = None
    input_required: Any | None = None
    subs = body.get("submessages") or []
    if not isinstance(subs, list):
        raise ProviderProtocolError("NLIP submessages is not a list")
    for sub in subs:
        if not isinstance(sub, dict):
            raise ProviderProtocolError("NLIP submessage is not an object")
        if sub.get("label") == "ag2_context" and context is None:
            context = sub.get("content")
        elif (
            sub.get("format") == "error"
            and input_required is None
            and "INPUT_REQUIRED" in str(sub.get("content"))
        ):
            input_required = sub.get("content")
    return {"content": content, "context": context, "input_required": input_required}


class AG2NlipEndpoint(AgenticEndpoint):
    """Remote NLIP agent; queue 10, concurrency 3; retried only by the attempt policy.

    Args:
        config: Endpoint config; defaults to :data:`NLIP_CONFIG` (60 s local cap, 3 attempts).
            ``base_url`` is the default server, ``allow_local_network`` the opt-in for
            loopback/private servers.
        resolver: Host-name resolver for the SSRF guard (tests); default: the system's.
        transport: An httpx transport for the per-request client (e.g. ``ASGITransport`` to
            serve an NLIP app in-process); the guard then only checks the URL. Default: a
            :class:`~lionagi.service.http.PinnedTransport` per attempt, connecting only to the
            addresses the guard approved.
    """

    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="remote", resumable=False, emits_tool_events=False, reports_usage=False
    )
    request_type: ClassVar[type[BaseModel] | None] = AG2NlipRequest
    supports_invoke: ClassVar[bool] = False
    # Timeouts and connect failures only (ProviderConnectionError); no status is retried.
    attempt_policy_options: ClassVar[Mapping[str, Any] | None] = {
        "retry_statuses": frozenset(),
        "retry_server_errors": False,
    }
    DEFAULT_CONCURRENCY_LIMIT: ClassVar[int] = 3
    DEFAULT_QUEUE_CAPACITY: ClassVar[int] = 10

    def __init__(
        self,
        config: EndpointConfig | Mapping[str, Any] | None = None,
        *,
        resolver: Any | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        **overrides: Any,
    ) -> None:
        super().__init__(NLIP_CONFIG if config is None else config, **overrides)
        if self.config.client_kwargs:
            # Each attempt builds its own one-request client (pinned to the approved address);
            # settings meant for a shared httpx client would otherwise be dropped unseen.
            raise EndpointConfigurationError(
                "client_kwargs",
                f"not supported by the NLIP endpoint (got {sorted(self.config.client_kwargs)}); "
                "pass an httpx transport with `transport=` to change how requests are sent",
            )
        self.resolver = resolver
        self.transport = transport
        self._guard = SSRFGuard(resolver)
        self.clients_opened = 0
        self.clients_closed = 0

    def copy(self) -> AG2NlipEndpoint:
        """Same config and resolver; handlers copied."""
        other = type(self)(
            self.config, resolver=self.resolver, transport=self.transport, settings=self.settings
        )
        self.copy_runtime_state_to(other)
        return other

    def transport_cap(self) -> float:
        """The local cap: ``config.timeout``, or :data:`NLIP_TIMEOUT` for the catalog default.

        The catalog gives every agentic row the generic agentic cap; for NLIP that value means
        "unset", so the inherited 60 s applies.
        """
        timeout = self.config.timeout
        return NLIP_TIMEOUT if timeout == _GENERIC_AGENTIC_TIMEOUT else timeout

    def target(self, request: AG2NlipRequest) -> str:
        """The message URL; the scheme is checked here, the address by the SSRF guard.

        Raises:
            AgenticRequestValidationError: no URL anywhere, or not http/https with a host.
        """
        base = request.url or self.config.base_url
        if not base:
            raise AgenticRequestValidationError(
                "url", "required: the NLIP server's base URL (or config.base_url)"
            )
        parts = urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise AgenticRequestValidationError("url", "must be an http:// or https:// URL")
        return base.rstrip("/") + "/nlip/"

    async def _route(self, url: str) -> tuple[httpx.AsyncBaseTransport, Approval | None]:
        """The SSRF decision for ``url``: the transport to send with and the approval to pin.

        Raises:
            UnsafeURLError: the URL is refused by the guard.
            ProviderConnectionError: the host name did not resolve.
        """
        allow_local = self.config.allow_local_network
        if self.transport is not None:
            await self._guard.check(url, allow_local_network=allow_local)
            return self.transport, None
        approval = await self._guard.approve(url, allow_local_network=allow_local)
        # Owned by the attempt's client, which closes it on every path.
        return PinnedTransport(trust_env=False, limits=_ONE_REQUEST), approval

    async def _stream_agentic(
        self,
        request: BaseModel,
        *,
        runtime_args: dict[str, Any],
        local_timeout: float | None,
    ) -> AsyncIterator[StreamChunk]:
        assert isinstance(request, AG2NlipRequest)
        url = self.target(request)
        transport, approval = await self._route(url)
        message = {"format": "text", "subformat": request.language, "content": request.prompt}
        timeout = min(self.transport_cap(), local_timeout or NLIP_TIMEOUT)
        client = StatelessClient(
            timeout=timeout, follow_redirects=False, trust_env=False, transport=transport
        )
        self.clients_opened += 1
        try:
            pin: AbstractContextManager[Any] = (
                nullcontext() if approval is None else pinned(approval)
            )
            try:
                with pin:
                    response = await client.post(url, json=message)
            except httpx.TimeoutException as exc:
                raise ProviderConnectionError(f"NLIP request to {url} timed out") from exc
            except httpx.TransportError as exc:
                raise ProviderConnectionError(
                    f"NLIP request to {url} failed: {type(exc).__name__}"
                ) from exc
        finally:
            await client.aclose()
            self.clients_closed += 1
        body = _parse(response)
        if body.get("format") == "error":
            # The NLIP server's own failure message: the provider declared it (D3).
            text = body.get("content")
            yield StreamChunk(
                type="error",
                content=str(text) if text else "NLIP server reported an error",
                is_error=True,
                metadata={"nlip_format": "error"},
            )
            return
        result = nlip_result(body)
        if result["content"]:
            yield StreamChunk(type="text", content=result["content"])
        if result["content"] or result["context"] is not None or result["input_required"]:
            yield StreamChunk(type="result", metadata={"nlip": result})


def _parse(response: httpx.Response) -> Any:
    body_text = response.content[:_MAX_BODY].decode("utf-8", errors="replace")
    status = response.status_code
    if 400 <= status < 500:
        raise ProviderClientError(
            f"NLIP server answered {status}", status=status, body_excerpt=excerpt(body_text)
        )
    if status >= 500 or not 200 <= status < 300:
        cls = ProviderServerError if status >= 500 else ProviderClientError
        raise cls(f"NLIP server answered {status}", status=status, body_excerpt=excerpt(body_text))
    try:
        body = json.loads(body_text)
    except json.JSONDecodeError as exc:
        raise ProviderProtocolError(
            f"NLIP response is not JSON: {excerpt(body_text)}", raw=excerpt(body_text)
        ) from exc
    return body if isinstance(body, dict) else nlip_result(body)

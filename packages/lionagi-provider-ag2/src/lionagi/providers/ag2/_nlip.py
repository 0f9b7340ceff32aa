"""A remote NLIP agent over HTTP: one ``POST`` to ``{url path}/nlip/`` per attempt, as chunks.

Direct HTTP on core's client and SSRF guard, not AG2's ``NlipRemoteAgent``: that class retries
in a loop of its own (hidden from ADR-0029's policy) and turns ``max_retries <= 0`` into a
silent empty answer. Here the endpoint makes exactly one request per attempt; iModel's attempt
policy (``max_attempts = config.max_retries``, >= 1) retries timeouts and connect failures
before any output, and nothing else. The wire is NLIP's JSON message (``format``,
``subformat``, ``content``, ``submessages``), which needs no SDK to speak.

Order of checks: URL present, http/https and no fragment, then the SSRF guard (local addresses
only with ``allow_local_network=True`` in the endpoint config), then no credentials in the URL,
then a client is created (a loopback URL with credentials is the guard's refusal first, as for
core's HTTP endpoints). The client lives for one attempt and is closed on every path. The body
is read as it streams, against ``config.max_response_bytes``.

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
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, ClassVar
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from lionagi.service import (
    AgenticCapabilities,
    AgenticEndpoint,
    AgenticRequestValidationError,
    EndpointConfig,
    EndpointConfigurationError,
    ProviderClientError,
    ProviderConnectionError,
    ProviderProtocolError,
    StreamChunk,
)
from lionagi.service.http import (
    Approval,
    PinnedTransport,
    SSRFGuard,
    StatelessClient,
    excerpt,
    pinned,
    read_bounded,
    status_error,
)

from ._static import NLIP_TIMEOUT
from ._validation import TypedModel

__all__ = [
    "NLIP_CONFIG",
    "NLIP_TIMEOUT",
    "AG2NlipEndpoint",
    "AG2NlipRedirectError",
    "AG2NlipRequest",
    "nlip_result",
]

# Why a key or a header given to the NLIP endpoint is refused, whichever check finds it.
_NOT_SENT = (
    "not sent by the NLIP endpoint (it sends no credential or extra header); put an "
    "authenticating gateway in front of the NLIP server"
)


@contextmanager
def _refused_as_nlip() -> Iterator[None]:
    """Re-word an `api_key` refusal raised inside the block as NLIP's (`_NOT_SENT`)."""
    try:
        yield
    except EndpointConfigurationError as exc:
        if exc.field != "api_key":
            raise
        raise EndpointConfigurationError("api_key", _NOT_SENT) from None


NLIP_CONFIG: Mapping[str, Any] = {
    "name": "ag2-nlip",
    "provider": "ag2",
    "endpoint": "nlip",
    "timeout": NLIP_TIMEOUT,
    "max_retries": 3,
}

_ERROR_BODY_LIMIT = 64 * 1024  # head of a non-2xx body kept for its excerpt (core's bound)
_URL_LIMIT = 300
# One request per client (the client lives for one attempt): nothing to pool or keep alive.
_ONE_REQUEST = httpx.Limits(max_connections=1, max_keepalive_connections=0)


class AG2NlipRequest(TypedModel):
    """One NLIP exchange.

    Built directly, an invalid field raises ``AgenticRequestValidationError`` naming it, as
    core does for a request mapping.

    Attributes:
        prompt: The text sent as the NLIP message content.
        url: The NLIP server's base URL (``/nlip/`` is joined onto its path, its query kept);
            default: ``config.base_url``. Credentials and a ``#fragment`` are refused.
        language: NLIP ``subformat`` of the text message.

    Strings are strict (``StrictStr``): pydantic's lax mode decoded ``b"..."`` as text.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)
    typed_error: ClassVar[Callable[[str, str], Exception]] = AgenticRequestValidationError

    prompt: StrictStr = Field(min_length=1)
    url: StrictStr | None = Field(default=None, min_length=1)
    language: StrictStr = Field(default="english", min_length=1)


class AG2NlipRedirectError(ProviderClientError):
    """The NLIP server answered a redirect (3xx); it is never followed, nor retried.

    A redirect on the ``POST`` to an agent's ``/nlip/`` path almost always means the configured
    URL is not the agent's own (``http`` for an ``https`` server, an old path, a login page in
    front of it). Following it would send the message to a destination nobody approved (each
    hop would need its own SSRF check) and could replay or drop the ``POST``, so the error says
    where the server pointed and which setting to change. Still a ``ProviderClientError``, the
    class core's HTTP endpoints give a refused redirect.

    Attributes:
        status: The 3xx status.
        location: Where the server pointed, made absolute against the request URL, with any
            credentials and query values redacted and the fragment dropped; None when the
            answer had no ``Location`` header.
        field: The setting that chose the URL: ``"url"`` (the request's) or ``"base_url"``
            (the endpoint's).
        suggestion: The base URL to set when the target is an NLIP message path (``.../nlip/``),
            in the same redacted form; None otherwise.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int,
        location: str | None,
        field: str,
        suggestion: str | None,
        body_excerpt: str = "",
    ) -> None:
        self.location = location
        self.field = field
        self.suggestion = suggestion
        super().__init__(message, status=status, body_excerpt=body_excerpt)


_AG2_INPUT_REQUIRED_TEXT = "Input required"
"""The text AG2's ``AG2NlipSession`` answers with when its agent asks for human input (ag2 0.14,
``autogen.agentchat.contrib.nlip_agent``); the agent's prompt rides in an ``error`` submessage."""


def nlip_result(body: Any) -> dict[str, Any]:
    """An NLIP response message as ``{content, context, input_required}``.

    ``content`` is the top-level text; ``context`` the JSON submessage labelled
    ``ag2_context``; ``input_required`` the content of an ``error`` submessage saying
    ``INPUT_REQUIRED`` (AG2's client's reading of an agent waiting on a human), or of the
    ``error`` submessage of AG2's own server's answer to that case: ``AG2NlipSession`` replies
    with the fixed text ``"Input required"`` and puts the agent's prompt (which
    does not say ``INPUT_REQUIRED``) in the submessage, so the first reading alone, AG2's
    ``response_message_from_nlip`` included, never saw a real AG2 server ask for input.

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
    ag2_asks = content == _AG2_INPUT_REQUIRED_TEXT
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
            and sub.get("content")
            and (ag2_asks or "INPUT_REQUIRED" in str(sub.get("content")))
        ):
            input_required = sub.get("content")
    return {"content": content, "context": context, "input_required": input_required}


class AG2NlipEndpoint(AgenticEndpoint):
    """Remote NLIP agent; queue 10, concurrency 3; retried only by the attempt policy.

    Args:
        config: Endpoint config; defaults to :data:`NLIP_CONFIG` (60 s local cap, 3 attempts).
            ``base_url`` is the default server, ``allow_local_network`` the opt-in for
            loopback/private servers. A config (or mapping) that sets no ``timeout``, with none
            in ``overrides`` either, gets :data:`NLIP_TIMEOUT`, not ``EndpointConfig``'s
            generic default.
        resolver: Host-name resolver for the SSRF guard (tests); default: the system's.
        transport: An httpx transport for the per-request client (e.g. ``ASGITransport`` to
            serve an NLIP app in-process); the guard then only checks the URL. Default: a
            :class:`~lionagi.service.http.PinnedTransport` per attempt, connecting only to the
            addresses the guard approved.

    Raises:
        EndpointConfigurationError: ``client_kwargs``, ``api_key`` or ``default_headers`` given
            (never applied), an invalid ``base_url``, or a ``transport`` / ``resolver`` of the
            wrong type (``ag2.transport``, ``ag2.resolver``).
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

    @classmethod
    def building_config(cls) -> AbstractContextManager[None]:
        """A key refused while this class's config is built gets NLIP's advice.

        The row sends no credentials (`auth_type="none"`), so `EndpointConfig` refuses a key
        with the HTTP fix (`auth_type='bearer'`), which this endpoint refuses in turn: NLIP
        sends no key whatever `auth_type` says. Both refusals now say the same thing.
        """
        return _refused_as_nlip()

    def __init__(
        self,
        config: EndpointConfig | Mapping[str, Any] | None = None,
        *,
        resolver: Any | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        **overrides: Any,
    ) -> None:
        if config is None:
            config = NLIP_CONFIG
        elif "timeout" not in overrides and not _sets_timeout(config):
            # Decided here, while "not given" can still be seen: the merge with ``overrides``
            # builds a config whose every field counts as set, and the supervisor reads the
            # run's cap from ``config.timeout``, so the config must hold the cap it applies.
            overrides = {**overrides, "timeout": NLIP_TIMEOUT}
        super().__init__(config, **overrides)
        if self.config.client_kwargs:
            # Each attempt builds its own one-request client (pinned to the approved address);
            # settings meant for a shared httpx client would otherwise be dropped unseen.
            raise EndpointConfigurationError(
                "client_kwargs",
                f"not supported by the NLIP endpoint (got {sorted(self.config.client_kwargs)}); "
                "pass an httpx transport with `transport=` to change how requests are sent",
            )
        if self.config.secret_value() or self.config.default_headers:
            # Nothing of the config's authentication or headers reaches the request (one bare
            # POST per attempt), so a key or header given here would be dropped unseen.
            field = "api_key" if self.config.secret_value() else "default_headers"
            raise EndpointConfigurationError(field, _NOT_SENT)
        if self.config.base_url:
            checked = nlip_url(self.config.base_url, "base_url", EndpointConfigurationError)
            refuse_credentials(checked, "base_url", EndpointConfigurationError)
        # Checked here: each was accepted and only failed at the first call, untyped
        # ("'str' object has no attribute 'aclose'", "'int' object is not callable").
        if transport is not None and not isinstance(transport, httpx.AsyncBaseTransport):
            raise EndpointConfigurationError(
                "ag2.transport",
                "must be an httpx.AsyncBaseTransport (e.g. httpx.ASGITransport), "
                f"got {type(transport).__name__}",
            )
        if resolver is not None and not callable(resolver):
            raise EndpointConfigurationError(
                "ag2.resolver",
                "must be an async callable (host, port) -> addresses, "
                f"got {type(resolver).__name__}",
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
        """The local cap: ``config.timeout`` as given.

        No value stands for "unset": the catalog row declares :data:`NLIP_TIMEOUT` as its
        ``timeout`` and a config built without one gets it in ``__init__``, so a caller who asks
        for any cap (3600 s, the generic agentic value, included) gets exactly that. The
        endpoint used to read 3600 as "the catalog's default" and silently applied 60 s.
        """
        return self.config.timeout

    def target(self, request: AG2NlipRequest) -> str:
        """The message URL: ``/nlip/`` joined onto the base URL's path, its query kept.

        The scheme and shape are checked here, the address by the SSRF guard, credentials after
        the guard (:func:`refuse_credentials`). A ``#fragment`` is refused: it never reaches the
        server, and ``/nlip/`` appended after it would be lost.

        Raises:
            AgenticRequestValidationError: field ``url``: no URL anywhere, not http/https with a
                host, or a fragment.
        """
        return nlip_url(request.url or self.config.base_url, "url", AgenticRequestValidationError)

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
        refuse_credentials(url, "url", AgenticRequestValidationError)
        message = {"format": "text", "subformat": request.language, "content": request.prompt}
        # The supervisor passes min(cap, caller's remaining time); a direct stream() passes
        # none, and then the configured cap applies (not a second, fixed 60 s).
        cap = self.transport_cap()
        timeout = cap if local_timeout is None else min(cap, local_timeout)
        client = StatelessClient(
            timeout=timeout, follow_redirects=False, trust_env=False, transport=transport
        )
        self.clients_opened += 1
        where = _display(url)
        try:
            pin: AbstractContextManager[Any] = (
                nullcontext() if approval is None else pinned(approval)
            )
            try:
                with pin:
                    async with client.stream("POST", url, json=message) as response:
                        raw = await _read_body(response, self.config.max_response_bytes, where)
            except httpx.TimeoutException as exc:
                raise ProviderConnectionError(
                    f"NLIP request to {where} timed out: {type(exc).__name__}"
                ) from exc
            except httpx.TransportError as exc:
                raise ProviderConnectionError(
                    f"NLIP request to {where} failed: {type(exc).__name__}"
                ) from exc
            except httpx.DecodingError as exc:
                # A body its Content-Encoding does not describe (bad gzip): the server's malformed
                # answer, as core's HTTP endpoints read it, not retried. Not a TransportError, so
                # it escaped as a raw httpx error.
                raise ProviderProtocolError(
                    f"NLIP response from {where} could not be decoded: {type(exc).__name__}: "
                    f"{excerpt(str(exc))}"
                ) from exc
        finally:
            await client.aclose()
            self.clients_closed += 1
        body = _parse(response, raw, where, "url" if request.url else "base_url")
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


def _sets_timeout(config: EndpointConfig | Mapping[str, Any]) -> bool:
    """True when ``config`` gives a ``timeout`` of its own (an invalid ``config`` counts as one).

    An ``EndpointConfig`` built without one still has the model's generic default, so what was
    *given* is read from ``model_fields_set``; anything neither a config nor a mapping is left
    to the base class's typed error.
    """
    if isinstance(config, EndpointConfig):
        return "timeout" in config.model_fields_set
    return not isinstance(config, Mapping) or "timeout" in config


def nlip_url(base: str | None, field: str, error: Callable[[str, str], Exception]) -> str:
    """``base`` with ``/nlip/`` joined onto its path (query kept), or ``error(field, ...)``.

    ``error`` is the typed error for where the URL came from: the request's ``url``
    (:class:`AgenticRequestValidationError`) or the endpoint's ``base_url``
    (:class:`EndpointConfigurationError`). No message repeats the URL (it may hold a secret).
    """
    if not base:
        raise error(field, "required: the NLIP server's base URL (or config.base_url)")
    try:
        parts = urlsplit(base)
        host = parts.hostname
        parts.port  # noqa: B018 - read to refuse an out-of-range or non-numeric port here
    except ValueError:
        raise error(field, "is not a valid URL") from None
    if parts.scheme not in ("http", "https") or not host:
        raise error(field, "must be an http:// or https:// URL")
    if "#" in base:
        raise error(field, "must not have a #fragment: it is never sent to the server")
    path = parts.path.rstrip("/") + "/nlip/"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


# What a 401/403 message advises: the endpoint has no API key to check (see refuse_credentials).
_NO_CREDENTIAL = (
    "the NLIP endpoint sends no credential; put an authenticating gateway in front of the NLIP "
    "server, or let the server accept this client"
)


def refuse_credentials(url: str, field: str, error: Callable[[str, str], Exception]) -> None:
    """Refuse ``url`` when it carries credentials (``user:password@``), without repeating them.

    httpx would send them as ``Authorization: Basic``, and the NLIP endpoint sends no credential
    (docs/providers/ag2.md, Auth): an authenticating gateway belongs in front of the server.
    """
    if "@" in urlsplit(url).netloc:
        raise error(
            field,
            "must not carry credentials (user:password@): the NLIP endpoint sends no "
            "credential; put an authenticating gateway in front of the NLIP server",
        )


def _display(url: str) -> str:
    """``url`` for a message: query values (and any credential shape) redacted by core."""
    return excerpt(url, limit=_URL_LIMIT)


async def _read_body(response: httpx.Response, cap: int, where: str) -> bytes:
    """The body, read as it streams: whole (up to ``cap``) for a 2xx, a bounded head otherwise.

    A 2xx body larger than ``config.max_response_bytes`` (declared by ``Content-Length``, or
    counted as it arrives) is refused, as core's HTTP endpoints refuse it; nothing is truncated
    silently. At most one network read past the cap is held.

    Raises:
        ProviderProtocolError: the 2xx body is over ``cap``.
    """
    status = response.status_code
    if not 200 <= status < 300:
        return await read_bounded(response, _ERROR_BODY_LIMIT)
    declared = response.headers.get("content-length")
    if declared is not None and declared.isdecimal() and int(declared) > cap:
        raise _too_large(where, status, cap, f"declares Content-Length {int(declared)}")
    parts: list[bytes] = []
    size = 0
    async for block in response.aiter_bytes():
        size += len(block)
        if size > cap:
            raise _too_large(where, status, cap, f"sent more than {cap} bytes")
        parts.append(block)
    return b"".join(parts)


def _too_large(where: str, status: int, cap: int, what: str) -> ProviderProtocolError:
    return ProviderProtocolError(
        f"NLIP server {where} answered HTTP {status} and {what}, over max_response_bytes={cap}; "
        "raise the endpoint's max_response_bytes to accept larger bodies"
    )


def _parse(response: httpx.Response, raw: bytes, where: str, field: str) -> Any:
    """The JSON body of a 2xx answer; any other status as its typed error.

    ``field`` names the setting the URL came from (``url`` or ``base_url``), for a redirect's
    advice.

    Raises:
        ProviderProtocolError: a 2xx body that is not JSON (malformed, nested past the
            recursion limit, or an integer over the digit limit).
        AG2NlipRedirectError: a 3xx status (never followed, not retried).
        ProviderStatusError: any other status, typed by core's ``status_error``
            (``ProviderUnauthorizedError`` for 401/403, ``ProviderRateLimitError`` for 429,
            ``ProviderServerError`` for 5xx, with ``retry_after`` from ``Retry-After``).
    """
    body_text = raw.decode("utf-8", errors="replace")
    status = response.status_code
    if 300 <= status < 400:
        raise _redirect_error(response, where, field, excerpt(body_text))
    if not 200 <= status < 300:
        # Core's mapping: 401/403 unauthorized, 429 rate limit and 5xx with Retry-After, the
        # URL without userinfo or query, the body excerpt redacted.
        raise status_error(response, raw, unauthorized_hint=_NO_CREDENTIAL)
    try:
        body = json.loads(body_text)
    except (ValueError, RecursionError) as exc:
        # JSONDecodeError is a ValueError; so is an integer over Python's digit limit. A deeply
        # nested array exhausts the recursion limit. Each is the server's malformed answer.
        raise ProviderProtocolError(
            f"NLIP response from {where} is not JSON ({type(exc).__name__}): {excerpt(body_text)}",
            raw=excerpt(body_text),
        ) from exc
    return body if isinstance(body, dict) else nlip_result(body)


def _redirect_error(
    response: httpx.Response, where: str, field: str, body: str
) -> AG2NlipRedirectError:
    """The typed error for a 3xx answer: where it pointed, redacted, and what to change.

    The ``Location`` is made absolute against the request URL (a relative ``/v2/nlip/`` names
    the same server), its fragment dropped, and shown through core's ``excerpt`` (credentials
    and query values redacted). When it points at an http(s) NLIP message path, the base URL
    to configure is that path without ``/nlip/`` (and without any credentials, which the
    endpoint refuses).
    """
    status = response.status_code
    raw_location = response.headers.get("location", "").strip()
    location: str | None = None
    suggestion: str | None = None
    if not raw_location:
        pointed = "without a Location header"
        advice = f"check {field}"
    else:
        try:
            parts = urlsplit(urljoin(str(response.request.url), raw_location))
            host = parts.hostname
        except ValueError:  # unparsable: shown as sent, redacted and bounded
            location = _display(raw_location)
            pointed = f"redirecting to {location} (not a valid URL)"
            advice = f"check {field}"
        else:
            location = _display(urlunsplit(parts._replace(fragment="")))
            pointed = f"redirecting to {location}"
            base_path = parts.path.rstrip("/")
            if parts.scheme in ("http", "https") and host and base_path.endswith("/nlip"):
                netloc = parts.netloc.rpartition("@")[2]  # credentials are refused anyway
                base = (parts.scheme, netloc, base_path[: -len("/nlip")], parts.query, "")
                suggestion = _display(urlunsplit(base))
                advice = f"set {field} to {suggestion}"
            else:
                advice = f"the target is not an NLIP message path (.../nlip/): check {field}"
    return AG2NlipRedirectError(
        f"NLIP server {where} answered HTTP {status} {pointed}; redirects are not followed (the "
        f"target would need its own SSRF check, and the POST could be replayed or dropped): "
        f"{advice}",
        status=status,
        location=location,
        field=field,
        suggestion=suggestion,
        body_excerpt=body,
    )

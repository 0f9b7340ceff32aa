"""Endpoint: one provider endpoint over a pooled ``httpx.AsyncClient`` it owns.

An endpoint makes exactly one attempt per call. Retries, circuit breaking, admission and the
request deadline belong to the lifecycle layer above (ADR-0029), so they are written once.

Client lifecycle (:class:`ClientState`): the client is created on first use and closed by
:meth:`Endpoint.aclose`; a closed endpoint is never reopened (a later call raises
``RuntimeError``), like ``httpx.AsyncClient``, so a closed facade cannot quietly start pooling
connections again.

Timeouts: ``timeout`` (else ``config.timeout``) caps the whole of :meth:`call`, and for
:meth:`stream` the opening (SSRF check, connect, request, response headers) as a whole plus each
later read; the total length of a healthy stream is the caller's deadline to enforce.

Bytes: every body is decoded as strict UTF-8 whatever charset it declares (see ``utf8``), and a
one-shot body is read with a running count against ``config.max_response_bytes``, so a huge body
is refused as soon as it crosses the cap instead of after it was buffered.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Callable,
    Iterable,
    Mapping,
    Sequence,
)
from contextvars import ContextVar
from dataclasses import replace
from types import TracebackType
from typing import Any, ClassVar, Literal, TypeVar

import anyio
import httpx
from pydantic import BaseModel

from ..._base.aio import aclose_shielded, one_per_batch
from ..._base.chunk import StreamChunk
from ..._base.errors import (
    EndpointConfigurationError,
    EventLoopMismatchError,
    ProviderConnectionError,
    ProviderError,
    ProviderProtocolError,
    ProviderStatusError,
    ProviderStreamError,
)
from ..._base.loops import running_asyncio_loop
from ..._base.secrets import REDACTED, redact, redact_value, request_header_secrets
from ..classify import ProviderErrorPattern, classify_stream_error
from ..config import EndpointConfig, coerce_config, take_handed_over
from ..meta import EndpointMeta
from ..usage import default_token_counts
from ..utf8 import Utf8Decoder, decode_utf8, invalid_utf8
from ..wire_errors import typed_wire_error
from .auth import build_headers
from .client import ClientState, new_client
from .content_coding import decoded_body
from .encoding import EncodedPayload, encode_json, encode_params
from .framing import DONE, NDJSONFramer, SSEFramer, forced_framer, framer_for_content_type
from .payload import EXTRA_BODY, STREAM_FLAG_IN_DEFAULTS, build_payload
from .pinning import pin, unpin
from .problem import PROBLEM_MEDIA_TYPE, is_problem, problem_chunk, problem_document
from .projection import ProjectorBase, StreamProjector
from .reads import ReadControl, SupervisedStream
from .ssrf import Resolver, SSRFGuard
from .status import (
    BAD_JSON,
    HTTPErrorInfo,
    describe_url,
    error_info,
    excerpt,
    parse_retry_after,
    parse_should_retry,
    proxy_auth_error,
    proxy_forbidden_error,
    read_bounded,
    socks_connect_error,
    status_error,
)
from .token_estimate import estimate_tokens

__all__ = ["ClientState", "Endpoint", "StreamFraming", "url_origin"]

StreamFraming = Literal["sse", "ndjson"]
"""A framing an endpoint class may force for its streams (`Endpoint.stream_framing`)."""

logger = logging.getLogger("lionagi.service.transport")

# After a stream's terminal event, read on briefly so the connection can return to the pool
# instead of being dropped; bounded in bytes and time so a server that keeps talking costs little.
_DRAIN_BYTES = 64 * 1024
_DRAIN_SECONDS = 0.5


class Endpoint:
    """Base endpoint. HTTP adapters subclass it; the catalog binds the row's `EndpointMeta`.

    Each class declares its stream dialect: `projector` is the `StreamProjector` class
    `stream` constructs per stream as `projector(secrets)`. Nothing is guessed from the
    path or the first event; the base declares none, and `stream` on a class without one
    raises `EndpointConfigurationError(field="stream")` before any request is built or sent.
    A vendor whose request selects the stream's grammar overrides `stream_projector`, which
    picks the projector class from the built payload once per stream.
    `stream_framing` forces `"sse"` or `"ndjson"` framing for a dialect whose server
    labels its stream wrongly; None (the default) picks the framing from the response
    `Content-Type` (framing is a wire fact, the dialect is the class's).
    `stream_flag` is the payload key set to true for a streaming request (None: the provider
    streams without one). `error_patterns` are the adapter's own classification rules for its
    error chunks, checked before the generic ones (see `stream_error`); a non-2xx response
    goes through `map_status_error` before the generic status mapping.
    `local_origins` names the exact origins (`scheme://host:port`) of a local server's
    documented default that requests may reach without `allow_local_network`; any other
    local or private destination still needs the explicit opt-in (see `allows_local`).
    `api_key_header` names the header `auth_type="x-api-key"` puts the key in, and
    `request_target` lets a dialect choose the path and body per request.
    `otel_provider_name` is the vendor's well-known value of the OpenTelemetry GenAI
    attribute `gen_ai.provider.name`, declared where the vendor's key differs from it; None
    (the default) records the config's `provider` key, which for a custom OpenAI-compatible
    provider is the name its user gave it. Declared by the vendor, never mapped in core.
    """

    is_agentic: ClassVar[bool] = False
    is_cli: ClassVar[bool] = False
    _ENDPOINT_META: ClassVar[EndpointMeta | None] = None
    # Installed by the process-wide catalog (this layer may not import it): resolves a class
    # whose deferred row was not resolved yet and returns its bound metadata, or None.
    _catalog_meta: ClassVar[Callable[[type[Endpoint]], EndpointMeta | None] | None] = None
    projector: ClassVar[type[StreamProjector] | None] = None
    stream_framing: ClassVar[StreamFraming | None] = None
    stream_flag: ClassVar[str | None] = "stream"
    error_patterns: ClassVar[tuple[ProviderErrorPattern, ...]] = ()
    local_origins: ClassVar[frozenset[str]] = frozenset()
    api_key_header: ClassVar[str] = "x-api-key"
    otel_provider_name: ClassVar[str | None] = None

    def __init__(
        self,
        config: EndpointConfig | Mapping[str, Any] | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        resolver: Resolver | None = None,
        **overrides: Any,
    ) -> None:
        """Bind a config; `transport`/`resolver` replace the network for tests.

        Args:
            config: the endpoint config, a mapping of its fields, or None for a catalog-bound
                class (`overrides` then update the registered defaults; a row naming the class
                by reference is resolved then, if no match resolved it yet).
            transport: an httpx transport for the owned client (e.g. `httpx.MockTransport`);
                the endpoint closes it with the client.
            resolver: `async (host, port) -> [address, ...]` used by the SSRF guard; requests
                connect to the addresses it answered and the guard approved, nothing else.
            **overrides: config fields to change.
        """
        # The base's state is name-mangled (``_Endpoint__client`` ...): an adapter subclass that
        # keeps its own ``self._client``, ``self._config`` or ``self._state`` must not replace
        # the pooled client ``aclose`` closes, the config every request reads, or the lifecycle.
        if config is None:
            meta = type(self)._ENDPOINT_META
            lookup = Endpoint._catalog_meta
            if meta is None and lookup is not None:
                # A deferred row is resolved on first use; built with no config is a use.
                meta = lookup(type(self))
            if meta is None:
                raise EndpointConfigurationError(
                    "config",
                    f"{type(self).__name__} is not registered in the catalog; pass a config",
                )
            self.__config = meta.create_config(**overrides)
        else:
            # Always a config of the endpoint's own, even with no overrides: a caller's
            # `EndpointConfig` (or the one `copy()` passes) is mutable, and sharing it let an
            # edit through one endpoint, or by the caller later, change another's requests
            # without the checks a config gets when it is built (ADR-0027: deep-copied).
            base = coerce_config(config)
            if overrides:
                self.__config = base.with_updates(**overrides)
            elif take_handed_over(base):  # built for this endpoint alone (the catalog's)
                self.__config = base
            else:
                self.__config = base.detached()
        flag = self.stream_flag
        if flag is not None and not self.is_agentic and flag in self.__config.request_defaults:
            # Refused here, where it was written: every call would refuse it otherwise.
            raise EndpointConfigurationError(
                f"request_defaults.{flag}",
                f"{STREAM_FLAG_IN_DEFAULTS} request_defaults",
            )
        self.__transport = transport
        self.__guard = SSRFGuard(resolver)
        self.__client: httpx.AsyncClient | None = None
        self.__client_loop: Any | None = None  # the asyncio loop the client's connections use
        self.__state = ClientState.UNOPENED
        # The last full URL and its parsed form: parsing a URL string costs more per request
        # than anything else the endpoint adds. Keyed by the text, so a changed config re-parses.
        self.__url_cache: tuple[str, httpx.URL] | None = None

    def token_counts(self, usage: Mapping[str, Any]) -> tuple[int | None, int | None]:
        """Input and output token counts of a usage record, for telemetry's `gen_ai.usage.*`.

        `usage` is a result chunk's `usage` metadata, or a one-shot body that has no `usage`
        mapping of its own. The default reads `input_tokens`/`prompt_tokens` and
        `output_tokens`/`completion_tokens`, with the prompt-cache counts of the OpenAI and
        Anthropic records (`TokenCounts`); an adapter whose vendor names its counts otherwise
        overrides this, or those calls record no token usage.
        """
        return default_token_counts(usage)

    def response_facts(self, body: Mapping[str, Any]) -> tuple[str | None, tuple[str, ...]]:
        """The model that answered a one-shot body, and why it stopped, for telemetry.

        Read for `gen_ai.response.model` and `gen_ai.response.finish_reasons` of an `invoke()`
        (a stream's result chunk carries both already). The model is None when the body's own
        `model` key names it (telemetry reads that first). The default reads each
        `choices[].finish_reason` in order (the chat dialect) and a top-level `stop_reason`
        (the Messages shape, which Anthropic's API and Claude Code's result both write); an
        adapter whose vendor writes them elsewhere overrides this, or its one-shot spans carry
        no finish reason.
        """
        reasons: list[str] = []
        choices = body.get("choices")
        if isinstance(choices, list):
            for choice in choices:
                if isinstance(choice, Mapping) and isinstance(choice.get("finish_reason"), str):
                    reasons.append(choice["finish_reason"])
        stop = body.get("stop_reason")
        if isinstance(stop, str):
            reasons.append(stop)
        return None, tuple(reasons)

    def copy(self) -> Endpoint:
        """A new endpoint of the same class and config with its own, unopened client.

        Transport resources are never shared between copies; the injected test transport and
        resolver are, because they describe the network, not a connection.
        """
        other = type(self)(
            self.__config, transport=self.__transport, resolver=self.__guard.resolver
        )
        return other

    @property
    def config(self) -> EndpointConfig:
        """The validated configuration (read-only: build a new endpoint to change it)."""
        return self.__config

    @property
    def request_options(self) -> type[BaseModel] | None:
        """The provider request model, when the endpoint declares one."""
        return self.__config.request_options

    @property
    def client_state(self) -> ClientState:
        """Whether the owned HTTP client is not yet created, open, or closed for good."""
        return self.__state

    def __repr__(self) -> str:
        c = self.__config
        return f"{type(self).__name__}(provider={c.provider!r}, endpoint={c.endpoint!r})"

    async def __aenter__(self) -> Endpoint:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- payload ----------------------------------------------------------------------------------

    def create_payload(
        self,
        request: Mapping[str, Any] | BaseModel,
        extra_headers: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """Build `(payload, headers)` for one request.

        The payload is `request_defaults` < `request` < `kwargs`, validated and dumped by
        `request_options` when declared (unknown keys raise; None values are dropped). Headers
        are content type, auth, `default_headers`, then `extra_headers`. Both dicts are new
        on every call and belong to the caller (`iModel` stores them in the call event as they
        are); an override must keep that.

        The transport-control key `stream_flag` (`stream` by default) is refused in request
        data (and in `request_defaults`, when the endpoint is built): `call` and `stream` decide
        it, and a
        `stream=True` smuggled into a one-shot call would get an event stream where JSON is
        expected.

        Raises:
            EndpointConfigurationError: an unknown or invalid request field (`field` names it),
                the `stream_flag` key (`field` is that key), or a missing API key
                (`field == "api_key"`).
        """
        flag = self.stream_flag
        try:
            payload = build_payload(self.__config, request, kwargs)
        except EndpointConfigurationError as exc:
            if flag is None or exc.field != f"{EXTRA_BODY}.{flag}":
                raise
            # Its generic advice ("pass it as a request field") would be refused next.
            raise EndpointConfigurationError(exc.field, _STREAM_FLAG_IS_THE_TRANSPORTS) from None
        if flag is not None and flag in payload:
            raise EndpointConfigurationError(flag, _STREAM_FLAG_IS_THE_TRANSPORTS)
        headers = build_headers(self.__config, extra_headers, key_header=self.api_key_header)
        return payload, headers

    def encode_payload(self, payload: Mapping[str, Any], *, stream: bool = False) -> EncodedPayload:
        """Encode a created payload for the wire once, ahead of the attempts that send it.

        `stream=True` adds `stream_flag` first, as `stream` would. Pass the result to
        `call` or `stream_batches` with `skip_payload_creation=True`: every attempt
        then sends these bytes (or query parameters, for GET/DELETE) without encoding again.

        Raises:
            EndpointConfigurationError: a value has no JSON (or query) form; `field` is the
                top-level key that failed, e.g. `messages`.
        """
        if stream:
            payload = self._streaming(dict(payload))
        path, body = self.request_target(payload, stream=stream)
        if self.__config.method in ("GET", "DELETE"):
            return EncodedPayload(payload, params=encode_params(body), path=path)
        return EncodedPayload(payload, content=encode_json(body), path=path)

    def _payload_and_headers(
        self,
        request: Mapping[str, Any] | BaseModel,
        extra_headers: Mapping[str, str] | None,
        skip_payload_creation: bool,
        *,
        stream: bool = False,
    ) -> tuple[Mapping[str, Any], dict[str, str]]:
        """``create_payload`` unless the caller passed an already created payload.

        ``skip_payload_creation=True`` (ADR-0027's spelling) is for supervisors that built the
        payload and headers with :meth:`create_payload` when the call event was created: they are
        sent as given instead of being validated a second time. An :class:`EncodedPayload` is
        sent as it was encoded (its stream flag included). ``stream=True`` sets ``stream_flag``
        on a payload that is not encoded yet.
        """
        if skip_payload_creation:
            if not isinstance(request, Mapping):
                raise EndpointConfigurationError(
                    "request", "skip_payload_creation needs an already created payload mapping"
                )
            headers = (
                dict(extra_headers)
                if extra_headers
                else build_headers(self.__config, None, key_header=self.api_key_header)
            )
            if isinstance(request, EncodedPayload):
                return request, headers
            payload = dict(request)
        else:
            payload, headers = self.create_payload(request, extra_headers)
        if stream:
            payload = self._streaming(payload)
        return payload, headers

    def _streaming(self, payload: dict[str, Any]) -> dict[str, Any]:
        if self.stream_flag:
            payload[self.stream_flag] = True
        return self.stream_payload(payload)

    def stream_payload(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The payload a streaming request sends, after `stream_flag` was set.

        A dialect hook (e.g. to ask for the usage record); `payload` is the caller's own
        copy, so changing it in place is fine. The base returns it unchanged.
        """
        return payload

    def stream_projector(self, payload: Mapping[str, Any]) -> type[StreamProjector]:
        """The projector class one stream is read with, chosen from the payload it sends.

        The hook for a vendor whose request selects the stream's grammar (Perplexity's
        `stream_mode: "concise"` streams other chunk objects than its default): the class's
        `projector` cannot know which one a request asked for. Called once per stream, after
        the payload was built (or taken as created, with `skip_payload_creation`) and
        `stream_payload` ran, before the request is sent; `payload` is that payload as
        validated (never its encoded bytes) and must not be changed. An override returns its
        own class for the payloads that need it and `super().stream_projector(payload)`
        otherwise.

        The default returns the class's `projector`, refusing a class that declares none
        (`EndpointConfigurationError(field="stream")`). The stream calls it only when a
        subclass overrides it: an endpoint that declares its dialect as class data keeps the
        refusal before any payload is built, and its payload is not looked at again.

        Raises:
            EndpointConfigurationError: no dialect for this payload (`field="stream"` from
                the default; an override names the request field that chose none).
        """
        projector = type(self).projector
        if projector is None:
            raise self._no_dialect()
        return projector

    def request_target(
        self, payload: Mapping[str, Any], *, stream: bool
    ) -> tuple[str | None, Mapping[str, Any]]:
        """Where one request goes and what its body holds: `(path, body)`.

        The hook for a dialect whose URL depends on the request (a model named in the path,
        a different path for streams) or whose wire body is not the validated payload as it
        is (a field the path carries, a field the vendor nests). `path` is relative to
        `base_url` and joined the way `config.full_url` joins `config.endpoint` (a query
        is allowed; `base_url`'s own query is kept); None sends to `config.full_url`.
        `body` is what is encoded (for GET/DELETE, the query parameters); the payload itself
        stays what the call event recorded. Called once per encoding, after
        `stream_payload`; it must not change `payload`. The base returns
        `(None, payload)`.

        Raises:
            EndpointConfigurationError: an override refuses a payload it cannot route
                (`field` names the request field).
        """
        return None, payload

    # -- one-shot ---------------------------------------------------------------------------------

    async def call(
        self,
        request: Mapping[str, Any] | BaseModel,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the Endpoint.call interface
        skip_payload_creation: bool = False,
        **runtime_args: Any,
    ) -> Any:
        """Make one request and return the decoded JSON body.

        Raises:
            EndpointConfigurationError: bad request, config or runtime argument.
            UnsafeURLError: the SSRF guard refused the destination.
            ProviderStatusError: a non-2xx status (typed by status family).
            ProviderConnectionError: connect/read failure or timeout.
            ProviderProtocolError: a 2xx body that is not UTF-8 JSON, or one larger than
                `config.max_response_bytes`.
            ProviderStreamError: a 2xx `application/problem+json` answer (RFC 9457),
                classified as the error chunk `stream()` yields for it.
            ProviderError: whatever `check_response` raises for the decoded body.
        """
        _reject_runtime_args(runtime_args)
        payload, headers = self._payload_and_headers(request, extra_headers, skip_payload_creation)
        limit = self._limit(timeout)
        client = self._http_client()
        http_request = self._build_request(client, payload, headers, limit, stream=False)
        # The answer's error text (an oversized or non-JSON body, an error object in a 2xx
        # body that `check_response` raises) is redacted of what this request sent too.
        token = _ANSWERING.set(http_request.headers)
        try:
            with _TransportCap(self, http_request.url, limit):
                response = await self._send(client, http_request)
                try:
                    body = await self._read_body(response)
                finally:
                    if not response.is_closed:  # a complete read already closed it
                        with anyio.CancelScope(shield=True):
                            await response.aclose()
            if is_problem(response.headers.get("content-type")):
                # A problem report is never the answer: raised as the stream's error chunk.
                raise self.stream_error(_problem_answer(response, body, self._secrets()))
            return self.check_response(self._decode_json(response, body), response)
        finally:
            _ANSWERING.reset(token)

    def estimate_tokens(self, payload: Mapping[str, Any]) -> int | None:
        """Adapter hook: the token estimate of a created payload, for `limit_tokens`.

        Four characters per token of the members `TOKEN_TEXT_KEYS` names (chat messages,
        Responses or embeddings input, a prompt); None when it has none, so admission refuses a
        token-limited call rather than guess. A vendor whose request keeps its text elsewhere
        overrides this with `estimate_tokens` and its own keys (Gemini's `contents` and
        `systemInstruction`, Anthropic's `system` beside `messages`).
        """
        return estimate_tokens(payload)

    def check_response(self, body: Any, response: httpx.Response) -> Any:
        """Adapter hook: the decoded 2xx one-shot body as `call` returns it, or an error.

        Some APIs answer a failure with a 2xx status (an error object in the body), or a reply
        their stream would report as a failure (a tool call cut by the token limit, an answer
        blocked before any candidate). A vendor overrides this to raise the typed error its
        stream raises for the same content, so `invoke()` and `stream()` fail alike;
        overriding `call` instead would take the endpoint off the supervisor's path that
        encodes a payload once. The default returns `body` unchanged.
        """
        return body

    async def _read_body(self, response: httpx.Response) -> bytes:
        """The whole (content-decoded) body, refused once it would exceed the configured cap.

        A ``Content-Length`` over the cap is refused before any byte is read; otherwise blocks are
        counted as they arrive, so at most one network read past the cap is ever held.
        """
        cap = self.config.max_response_bytes
        declared = response.headers.get("content-length")
        if declared is not None and declared.isdecimal() and int(declared) > cap:
            raise _body_too_large(
                response, cap, f"declares Content-Length {int(declared)}", self._secrets()
            )
        parts: list[bytes] = []
        size = 0
        async for block in decoded_body(response):
            size += len(block)
            if size > cap:
                raise _body_too_large(response, cap, f"sent more than {cap} bytes", self._secrets())
            parts.append(block)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _decode_json(self, response: httpx.Response, body: bytes) -> Any:
        if response.status_code in (202, 204) and not body.strip():
            return None
        try:
            text = decode_utf8(body)
        except UnicodeDecodeError as exc:
            note = _charset_note(response.headers.get("content-type"))
            where = describe_url(response.request.url, self._secrets())
            raise invalid_utf8(where, exc, note) from None
        try:
            return _json_loads(text)
        except BAD_JSON:
            secrets = self._secrets()
            raise ProviderProtocolError(
                f"{describe_url(response.request.url, secrets)} answered HTTP "
                f"{response.status_code} with a body that is not JSON: "
                f"{excerpt(body, secrets, 300)!r}"
            ) from None

    # -- streaming --------------------------------------------------------------------------------

    async def stream(
        self,
        request: Mapping[str, Any] | BaseModel,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the Endpoint.stream interface
        skip_payload_creation: bool = False,
        **runtime_args: Any,
    ) -> AsyncIterator[StreamChunk]:
        """Make one streaming request and yield normalized chunks.

        An async generator: argument errors surface on the first iteration. Closing it (or
        cancelling its consumer) closes the HTTP response, so no connection is leaked. It
        raises what `call` raises for the same request, and more:

        A 2xx `application/problem+json` answer (RFC 9457) is one error chunk carrying the
        problem's `title: detail` and advisory `status`.

        Raises:
            ProviderProtocolError: an event breaks the dialect's grammar, or the stream ends
                before its terminal event.
            ProviderStreamError: the provider declared an error in the stream (raised after
                the error chunk).
        """
        batches = self._stream_batches(
            request,
            extra_headers=extra_headers,
            timeout=timeout,
            skip_payload_creation=skip_payload_creation,
            **runtime_args,
        )
        try:
            async for batch in batches:
                for chunk in batch:
                    yield chunk
        finally:
            await aclose_shielded(batches)

    def stream_batches(
        self,
        request: Mapping[str, Any] | BaseModel,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        skip_payload_creation: bool = False,
        read_control: ReadControl | None = None,
        **runtime_args: Any,
    ) -> AsyncGenerator[list[StreamChunk], None]:
        """`stream` grouped into non-empty lists, one per network read where possible.

        Supervisors bound each step of a stream; per read instead of per chunk keeps that cost
        off the hot path. `read_control` lets the supervisor bound and abort the reads through
        the connection itself (the deadline caps each read's own timeout, an abort shuts the
        connection down): when the endpoint can attach it to the response's connection it sets
        `read_control.attached`; otherwise the caller must bound the reads itself. A subclass
        that overrides `stream` gets one chunk per batch, so its own projection is always
        honoured (and the control is never attached).
        """
        if type(self).stream is Endpoint.stream:
            return self._stream_batches(
                request,
                extra_headers=extra_headers,
                timeout=timeout,
                skip_payload_creation=skip_payload_creation,
                read_control=read_control,
                **runtime_args,
            )
        # `skip_payload_creation` is passed on: a supervisor hands over the payload it created
        # with the call event, and validating it again would also refuse the keys `extra_body`
        # merged into it as unknown request fields.
        return one_per_batch(
            self.stream(
                request,
                extra_headers=extra_headers,
                timeout=timeout,
                skip_payload_creation=skip_payload_creation,
                **runtime_args,
            )
        )

    async def _stream_batches(
        self,
        request: Mapping[str, Any] | BaseModel,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the Endpoint.stream interface
        skip_payload_creation: bool = False,
        read_control: ReadControl | None = None,
        **runtime_args: Any,
    ) -> AsyncGenerator[list[StreamChunk], None]:
        """:meth:`stream`, one non-empty list of chunks per network read instead of per chunk.

        The seam for callers that wrap every step of a stream (a cancel scope for admission
        abort or the deadline costs more than projecting a chunk): they can wrap each read once.
        Same errors and cleanup as :meth:`stream`; chunks projected before an event that fails
        are delivered as one batch before the error is raised, and the terminal event's chunks
        come last, after the connection was drained for reuse. Callers own ``aclose()``.
        """
        # The class's dialect, refused before the payload is built, unless the class chooses
        # it per payload (`stream_projector`, asked once the payload exists).
        projector_class: Callable[[tuple[str, ...]], StreamProjector] | None = None
        if type(self).stream_projector is Endpoint.stream_projector:
            projector_class = self._projector_class()
        _reject_runtime_args(runtime_args)
        payload, headers = self._payload_and_headers(
            request, extra_headers, skip_payload_creation, stream=True
        )
        if projector_class is None:
            projector_class = self._chosen_projector(payload)
        limit = self._limit(timeout)
        client = self._http_client()
        http_request = self._build_request(client, payload, headers, limit, stream=True)
        url = http_request.url
        # Every header sent (configured or per call) is one a stream's error event may echo.
        secrets = (*self._secrets(), *request_header_secrets(http_request.headers))
        blocks: AsyncIterator[Any] | None = None
        with _TransportCap(self, url, limit):
            response = await self._send(client, http_request)
        controlled: SupervisedStream | None = None
        if read_control is not None and response.http_version == "HTTP/1.1":
            network = response.extensions.get("network_stream")
            if isinstance(network, SupervisedStream) and network.can_shut_down():
                read_control.attach(network)
                controlled = network
        try:
            content_type = response.headers.get("content-type")
            if is_problem(content_type):
                # A 2xx problem report (a non-2xx one was raised by `_send`): the provider's
                # error chunk, as `call` raises it, not a content type refused unread. Read
                # within `max_response_bytes` as `call` reads it: a long one cut short would
                # not parse.
                try:
                    body = await self._read_body(response)
                except httpx.HTTPError as exc:
                    raise self._http_error(exc, url) from _cause(exc)
                yield [_problem_answer(response, body, secrets)]
                return
            where = describe_url(url, secrets)
            framer = _framed(self._framer, where, content_type, secrets)
            projector = projector_class(secrets)
            # Bytes, decoded here as strict UTF-8: ``aiter_text`` would trust the declared charset.
            decoder = Utf8Decoder(where, _charset_note(content_type))
            decode = decoder.decode
            blocks = decoded_body(response)
            tail: Sequence[StreamChunk] = ()
            try:
                async for block in blocks:
                    try:
                        text = decode(block)
                    except ProviderProtocolError as invalid:
                        # The events ahead of the bad bytes in this block were valid output:
                        # delivered first, as the events before a malformed one are.
                        events = _framed(framer.feed, where, decoder.valid_prefix)
                        ready, _, error = _project(projector, events, where)
                        if ready:
                            yield ready
                        if error is not None:
                            raise error from error.__cause__
                        raise invalid from None
                    if not text:  # the block held only the start of a multi-byte character
                        continue
                    try:  # free in 3.11 until it raises: the per-read path costs nothing more
                        events = framer.feed(text)
                    except ProviderProtocolError as exc:
                        raise _located(where, exc) from None
                    ready, tail, error = _project(projector, events, where)
                    if ready:
                        yield ready
                    if error is not None:
                        raise error
                    if projector.done:
                        break
                else:
                    decoder.finish()
                    ready, tail, error = _project(projector, _framed(framer.flush, where), where)
                    if ready:
                        yield ready
                    if error is not None:
                        raise error
                    if not projector.done:
                        tail = _project_end(projector, where)
                if not response.is_closed:
                    await _drain(blocks)
            except httpx.HTTPError as exc:
                raise self._http_error(exc, url) from _cause(exc)
            if tail:
                yield list(tail)
        finally:
            if controlled is not None:
                assert read_control is not None
                read_control.detach()  # before the connection may go back to the pool
            await aclose_shielded(blocks)
            await aclose_shielded(response)

    def _projector_class(self) -> Callable[[tuple[str, ...]], StreamProjector]:
        """The declared dialect, or the typed refusal for a class that declares none."""
        projector = type(self).projector
        if projector is None:
            raise self._no_dialect()
        return projector

    def _chosen_projector(
        self, payload: Mapping[str, Any]
    ) -> Callable[[tuple[str, ...]], StreamProjector]:
        """`stream_projector` of the payload as created (an encoded one's, not its bytes)."""
        created = payload.payload if isinstance(payload, EncodedPayload) else payload
        return self.stream_projector(created)

    def _no_dialect(self) -> EndpointConfigurationError:
        return EndpointConfigurationError(
            "stream",
            f"{self.__config.provider} {self.__config.endpoint} answers in one piece and does "
            f"not stream: use invoke()/call() ({type(self).__name__} declares no stream "
            "dialect: its 'projector' is None)",
        )

    def _framer(
        self, content_type: str | None, secrets: tuple[str, ...]
    ) -> SSEFramer | NDJSONFramer:
        forced = type(self).stream_framing
        if forced is not None:
            return forced_framer(forced, content_type, secrets)
        return framer_for_content_type(content_type, secrets)

    # -- HTTP helpers (AgenticEndpoint overrides these to raise) ----------------------------------

    def _new_client(self) -> httpx.AsyncClient:
        """The client seam: construct the HTTP client this endpoint will own."""
        return new_client(self.__config, self.__transport)

    def _http_client(self) -> httpx.AsyncClient:
        """The owned client, created on first use; refuses after :meth:`aclose`.

        The client belongs to the asyncio loop it is first used on (its pooled connections
        do); use on another loop raises :class:`~lionagi.service.EventLoopMismatchError`
        instead of failing inside asyncio.
        """
        if self.__client is not None:
            # Checked before the client is held in a local: a refusal's traceback must not
            # keep the client (and its sockets) alive after the endpoint drops it.
            if self.__transport is None:
                loop = running_asyncio_loop()
                if loop is not self.__client_loop and loop is not None:
                    self._bind_or_refuse(loop)
            return self.__client
        if self.__state is ClientState.CLOSED:
            raise RuntimeError(
                f"{self!r} is closed; create a new endpoint (closed endpoints are not reopened)"
            )
        client = self._new_client()
        self.__client = client
        if self.__transport is None:
            # The pooled transport's connections are the loop-bound part; a transport passed
            # in (``httpx.MockTransport``, a test double) keeps its own rules.
            self.__client_loop = running_asyncio_loop()
        self.__state = ClientState.OPENED
        return client

    def _bind_or_refuse(self, loop: Any) -> None:
        """A client created outside any loop joins ``loop``; one bound to another is refused."""
        bound = self.__client_loop
        if bound is None:
            self.__client_loop = loop
            return
        raise EventLoopMismatchError(repr(self), loop_closed=bound.is_closed())

    def _build_request(
        self,
        client: httpx.AsyncClient,
        payload: Mapping[str, Any],
        headers: Mapping[str, str],
        timeout: float,
        *,
        stream: bool,
    ) -> httpx.Request:
        """The request for ``payload``: a JSON body, or query parameters for GET/DELETE.

        An :class:`EncodedPayload` is sent as encoded (to the path it was encoded for); a
        plain mapping is routed by :meth:`request_target` and encoded here.
        """
        config = self.__config
        encoded = payload if isinstance(payload, EncodedPayload) else None
        if encoded is not None:
            path, body = encoded.path, payload
        else:
            path, body = self.request_target(payload, stream=stream)
        text = config.full_url if path is None else config.url_for(path)
        cached = self.__url_cache
        try:
            if cached is not None and cached[0] == text:
                url = cached[1]
            else:
                url = httpx.URL(text)
                self.__url_cache = (text, url)
            if config.method in ("GET", "DELETE"):
                params = encoded.params if encoded is not None else None
                if params is None:
                    params = encode_params(body)
                if url.query:  # httpx replaces the URL's query; base_url's is kept, payload wins
                    params = url.params.merge(params)
                return client.build_request(
                    config.method, url, headers=headers, params=params, timeout=timeout
                )
            content = encoded.content if encoded is not None else None
            return client.build_request(
                config.method,
                url,
                headers=headers,
                content=content if content is not None else encode_json(body),
                timeout=timeout,
            )
        except httpx.InvalidURL as exc:
            raise EndpointConfigurationError(
                "base_url", f"not a valid URL: {excerpt(str(exc), self._secrets(), 200)}"
            ) from None

    async def _send(self, client: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
        """SSRF-check, send with a streamed body, and raise the typed error for a non-2xx status.

        The guard's approval is pinned for the send: the client's transport connects to the
        addresses the guard checked, never to a second answer for the same name.
        The caller owns (and must close) the returned response.
        """
        approval = await self.__guard.approve(
            request.url, allow_local_network=self.allows_local(request.url)
        )
        token = pin(approval)
        try:
            response = await client.send(request, stream=True)
        finally:
            unpin(token)
        status = response.status_code
        if logger.isEnabledFor(logging.DEBUG):
            where = describe_url(request.url, self._secrets())
            logger.debug("%s %s -> %d", request.method, where, status)
        if 200 <= status < 300:
            return response
        try:
            body = await read_bounded(response)
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()
        # The request's own headers too: a per-call credential (``extra_headers``, a call's
        # ``headers``) is remembered nowhere, and a provider echoes what it was sent.
        secrets = (*self._secrets(), *request_header_secrets(request.headers))
        error = self.map_status_error(error_info(response, body, secrets=secrets))
        if error is None:
            # A 407 names the configured proxy (or says none is configured); read only then.
            proxy = self._proxy_origin() if status == 407 else None
            error = status_error(response, body, secrets=secrets, proxy=proxy)
        if isinstance(error, ProviderStatusError):
            # The server's own verdict on retrying, for the attempt policy (``is_retryable``).
            error.server_retry = parse_should_retry(response.headers)
        raise error

    def allows_local(self, url: httpx.URL) -> bool:
        """Whether the SSRF guard may let `url` reach a local or private address.

        True when the config opts in (`allow_local_network`) or when `url`'s origin is one
        of the class's `local_origins`, compared exactly after normalising case and the
        default port. That is how a local server's catalog default (Ollama's
        `http://localhost:11434`) works out of the box while a caller's `base_url` naming
        another local address, or the same host on another port, still needs the opt-in.
        """
        if self.__config.allow_local_network:
            return True
        if not self.local_origins:
            return False
        return url_origin(url) in self.local_origins

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """The typed error for a non-2xx response, or None for the generic status mapping.

        The hook for a dialect's error vocabulary: `info` carries the status, the parsed JSON
        body (None when the body is not JSON), the redacted excerpt and Retry-After. Checked
        before `status_error`. Build messages from `info.where` and `info.excerpt`
        (already redacted), never from the raw body. A subclass adds its mappings and falls back
        to `super().map_status_error(info)`. The base maps nothing.
        """
        return None

    def _http_error(self, exc: httpx.HTTPError, url: httpx.URL) -> ProviderError:
        """The typed error for an httpx failure of a request to ``url``.

        A proxy's 407 answer to CONNECT (httpx's ``ProxyError`` for an https target through
        ``client_kwargs.proxy``), and a SOCKS5 proxy's refusal of the authentication it was
        offered (httpcore's ``ProxyError`` from the handshake), are refused credentials, not a
        connection failure: typed as :func:`proxy_auth_error`, so the lifecycle does not retry
        what the proxy refuses again. A proxy's 403 answer to CONNECT is its rules refusing the
        destination (:func:`proxy_forbidden_error`), likewise never retried. So is a SOCKS5
        CONNECT reply that repeats for this configuration (:func:`~.status.socks_connect_error`:
        the proxy's rules refuse the target, or it cannot relay TCP or take the target's address
        type); its other failure replies (the target unreachable or refusing, a general failure)
        stay connection failures.
        """
        secrets = self._secrets()
        where = describe_url(url, secrets)
        if isinstance(exc, httpx.ProxyError):
            reason = str(exc)
            if _PROXY_AUTH_REQUIRED.match(reason):
                return proxy_auth_error(where, proxy=self._proxy_origin())
            if _PROXY_FORBIDDEN.match(reason):
                return proxy_forbidden_error(where, proxy=self._proxy_origin(), url=url)
            if _SOCKS_AUTH_REFUSED.match(reason):
                # httpcore's fixed wording (method names, no credential), bounded all the same.
                reply = excerpt(reason, secrets, 200).strip().rstrip(".")
                return proxy_auth_error(where, proxy=self._proxy_origin(), socks_reply=reply)
            if refused := _SOCKS_CONNECT_REFUSED.match(reason):
                return socks_connect_error(
                    where, proxy=self._proxy_origin(), url=url, reply=refused["reply"]
                )
        detail = excerpt(str(exc), secrets, 300)
        if isinstance(exc, httpx.LocalProtocolError):
            # h11 quotes the offending header's bytes (repr form, so an exact-match redaction
            # misses a value with an escaped character): never shown, whatever the header.
            detail = _QUOTED_BYTES.sub(REDACTED, detail)
            return ProviderProtocolError(f"{where}: {type(exc).__name__}: {detail}")
        if isinstance(exc, httpx.DecodingError):
            return ProviderProtocolError(f"{where}: {type(exc).__name__}: {detail}")
        if isinstance(exc, httpx.TimeoutException):
            return ProviderConnectionError(f"{where} timed out: {type(exc).__name__} {detail}")
        return ProviderConnectionError(f"{where} connection failed: {type(exc).__name__}: {detail}")

    def _proxy_origin(self) -> str | None:
        """The configured proxy as a proxy refusal names it (see :func:`_proxy_origin`)."""
        return _proxy_origin(self.__config.client_kwargs.get("proxy"))

    def _limit(self, timeout: float | None) -> float:
        if timeout is None:
            return self.__config.timeout
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise EndpointConfigurationError("timeout", "must be a number of seconds")
        if not math.isfinite(timeout) or timeout <= 0:
            raise EndpointConfigurationError("timeout", "must be a finite number of seconds > 0")
        return float(timeout)

    def _secrets(self) -> tuple[str, ...]:
        """The values error text must not show: the API key and the path's ``params`` values.

        Inside :meth:`call`, also the header values its request sent
        (:func:`request_header_secrets`): a vendor's `check_response` builds its error through
        `error_object_error` and `stream_error`, which know the endpoint, not the request.
        """
        config = self.__config
        key = config.secret_value()
        found = (key,) if key else ()
        if config.params:
            found = (*found, *config.param_secrets())
        sent = _ANSWERING.get()
        return found if sent is None else (*found, *request_header_secrets(sent))

    def redacted_error(self, chunk: StreamChunk) -> StreamChunk:
        """`chunk` (an error chunk) with its provider text redacted, as the consumer sees it.

        The shared credential shapes plus this endpoint's own secrets (its key and, for agentic
        endpoints, the deployment's gateway key and env values). A copy: the adapter's chunk is
        left as it was.
        """
        secrets = self._secrets()
        content = redact(chunk.content, secrets) if chunk.content else chunk.content
        return replace(chunk, content=content, metadata=redact_value(chunk.metadata, secrets))

    def error_object_error(self, error: Any) -> ProviderStreamError:
        """The typed error this endpoint's stream raises for the provider error object `error`.

        For `check_response`: a 2xx one-shot body carrying the vendor's error object is
        classified exactly as the same object in a stream (the declared projector's error
        chunk, redacted, then `stream_error`), so `invoke()` and `stream()` fail with
        the same class and `code`.

        Raises:
            TypeError: the endpoint's projector is not a `ProjectorBase` (it has no
                `error_chunk` to build the chunk with).
        """
        projector = self._projector_class()(self._secrets())
        if not isinstance(projector, ProjectorBase):
            raise TypeError(f"{type(projector).__name__} is not a ProjectorBase")
        chunk = next(c for c in projector.error_chunk(error) if c.type == "error")
        return self.stream_error(chunk)

    def stream_error(self, chunk: StreamChunk) -> ProviderStreamError:
        """The typed error a provider error chunk from this endpoint raises.

        One classification for `stream()` and `invoke()`: `classify_stream_error` over
        the chunk's text and metadata with this class's `error_patterns`, this endpoint's
        provider key, and its key redacted. `reached` is `error_chunks_are_answers`.
        """
        return classify_stream_error(
            chunk.content,
            chunk.metadata,
            provider=self.config.provider,
            extra_patterns=type(self).error_patterns,
            secrets=self._secrets(),
            reached=self.error_chunks_are_answers,
        )

    @property
    def error_chunks_are_answers(self) -> bool:
        """Whether this endpoint's error chunks come from the provider its request reached.

        True for an HTTP endpoint: an error chunk is in the response, so the provider was
        reached, and a "connection refused" it quotes is a failure behind it (a server fault),
        never the connection family. An agentic endpoint whose process or library is the
        client (a CLI, an in-process agent) reports its own connection failures in chunks, and
        answers False.
        """
        return True

    async def aclose(self) -> None:
        """Close the owned client and its connections. Idempotent; the endpoint stays closed.

        On another loop than the client's: if that loop has ended, nothing can run there any
        more, so the client is dropped (its sockets are freed with that loop's transports);
        if it is still open, `EventLoopMismatchError` is raised and
        the endpoint stays open, to be closed on its own loop.
        """
        if self.__state is ClientState.CLOSED:
            return
        bound = self.__client_loop
        foreign = False
        if self.__client is not None and bound is not None:
            foreign = running_asyncio_loop() is not bound
            if foreign and not bound.is_closed():
                raise EventLoopMismatchError(repr(self), loop_closed=False)
        client, self.__client = self.__client, None
        self.__state = ClientState.CLOSED
        if client is not None and not foreign:
            with anyio.CancelScope(shield=True):
                await client.aclose()


class _TransportCap:
    """Caps a block at ``limit`` seconds and turns httpx errors into typed provider errors.

    A plain class around one cancel scope rather than ``anyio.fail_after`` inside a generator
    context manager: it runs once per request, and the three generator frames cost more than
    the scope itself. The scope is private, so a cancellation it caught was its deadline.
    """

    __slots__ = ("_endpoint", "_limit", "_scope", "_url")

    def __init__(self, endpoint: Endpoint, url: httpx.URL, limit: float) -> None:
        self._endpoint = endpoint
        self._url = url
        self._limit = limit
        self._scope = anyio.CancelScope(deadline=anyio.current_time() + limit)

    def __enter__(self) -> None:
        self._scope.__enter__()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        scope = self._scope
        suppressed = bool(scope.__exit__(exc_type, exc, tb))
        if scope.cancelled_caught or isinstance(exc, TimeoutError):
            where = describe_url(self._url, self._endpoint._secrets())
            raise ProviderConnectionError(
                f"{where} timed out after {self._limit:g}s (endpoint transport cap)"
            ) from None
        if isinstance(exc, httpx.HTTPError):
            raise self._endpoint._http_error(exc, self._url) from _cause(exc)
        return suppressed


_QUOTED_BYTES = re.compile(r"""b(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")
# httpcore's ProxyError for a CONNECT answered with a non-2xx status is "<status> <reason>".
_PROXY_AUTH_REQUIRED = re.compile(r"\s*407\b")
# The same, 403 Forbidden: the proxy's rules refuse the tunnel to this destination.
_PROXY_FORBIDDEN = re.compile(r"\s*403\b")
# httpcore's ProxyErrors for a SOCKS5 handshake refused at authentication (httpcore
# _async/socks_proxy.py): the RFC 1929 subnegotiation failed ("Invalid username/password"), or
# the proxy chose no method the client offered, or one it did not offer (RFC 1928: "Requested
# USERNAME/PASSWORD from proxy server, but got NO ACCEPTABLE METHODS."). Each repeats for the
# same configuration.
_SOCKS_AUTH_REFUSED = re.compile(
    r"Invalid username/password\b|Requested [A-Z/ ]+ from proxy server, but got "
)
# httpcore's ProxyError for a SOCKS5 CONNECT answered with a failure reply (RFC 1928 §6), in
# its REPLY_CODES words: "Proxy Server could not connect: <reply>.". Only the replies that
# repeat for the same configuration: X'02' (the proxy's rules refuse the target), X'07' (no
# CONNECT) and X'08' (not the target's address type). The others (X'01' general failure, X'03'
# network and X'04' host unreachable, X'05' connection refused, X'06' TTL expired) are the
# target's state or a passing fault: connection failures like any other, retried.
_SOCKS_CONNECT_REFUSED = re.compile(
    r"Proxy Server could not connect: (?P<reply>Connection not allowed by ruleset|"
    r"Command not supported|Address type not supported)\.?$"
)


def _proxy_origin(proxy: object) -> str | None:
    """``scheme://host[:port]`` of a ``client_kwargs.proxy`` value, never its userinfo.

    None when no proxy is configured (absent or None); empty when the value is no proxy URL the
    message can name (the client was built from it, so that does not happen; the message then
    says "the proxy in client_kwargs.proxy").
    """
    if proxy is None:
        return None
    raw = proxy.url if isinstance(proxy, httpx.Proxy) else proxy
    if not isinstance(raw, str | httpx.URL):
        return ""
    try:
        url = httpx.URL(raw)
    except (httpx.InvalidURL, ValueError):
        return ""
    return describe_url(url.copy_with(path="/")).removesuffix("/")


def _cause(exc: httpx.HTTPError) -> httpx.HTTPError | None:
    """The cause to chain to the typed error: not h11's refusal of a header it quotes raw."""
    return None if isinstance(exc, httpx.LocalProtocolError) else exc


# ``json.loads`` minus its type dispatch: the body is already text.
_json_loads = json.JSONDecoder().decode


def url_origin(url: httpx.URL | str) -> str:
    """`scheme://host:port` of `url`: lower case, the scheme's default port made explicit."""
    parsed = url if isinstance(url, httpx.URL) else httpx.URL(url)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    host = parsed.raw_host.decode("ascii").lower()
    if ":" in host:
        host = f"[{host}]"
    return f"{parsed.scheme.lower()}://{host}:{port}"


def _charset_note(content_type: str | None) -> str:
    """For the UTF-8 error: the charset the response declared, when it was not UTF-8."""
    if not content_type or "charset" not in content_type.lower():
        return ""
    for param in content_type.split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip('"')
            if charset.lower().replace("-", "") != "utf8":
                return f" (declared charset {excerpt(charset, (), 40)!r}, ignored)"
    return ""


# The headers of the request whose answer `Endpoint.call` is reading, for `Endpoint._secrets`.
_ANSWERING: ContextVar[httpx.Headers | None] = ContextVar("lionagi_answering", default=None)


def _body_too_large(
    response: httpx.Response, cap: int, what: str, secrets: tuple[str, ...]
) -> ProviderProtocolError:
    where = describe_url(response.request.url, secrets)
    return ProviderProtocolError(
        f"{where} answered HTTP {response.status_code} and {what}, "
        f"over max_response_bytes={cap}; raise the endpoint's max_response_bytes to accept "
        "larger bodies"
    )


def _problem_answer(response: httpx.Response, body: bytes, secrets: tuple[str, ...]) -> StreamChunk:
    """The error chunk of a 2xx `application/problem+json` answer (see `problem`).

    Raises:
        ProviderProtocolError: the body holds no JSON object (named by the redacted URL, with
            a redacted excerpt of what came instead).
    """
    document = problem_document(body)
    if document is None:
        where = describe_url(response.request.url, secrets)
        raise ProviderProtocolError(
            f"{where} answered HTTP {response.status_code} with a {PROBLEM_MEDIA_TYPE} body "
            f"that is not a JSON object: {excerpt(body, secrets, 300)!r}"
        )
    return problem_chunk(
        document,
        status=response.status_code,
        retry_after=parse_retry_after(response.headers),
        secrets=secrets,
    )


_STREAM_FLAG_IS_THE_TRANSPORTS = (
    "is set by the transport, not by request data: use stream() for a streaming call and "
    "invoke()/call() for a one-shot call"
)


_T = TypeVar("_T")


def _located(where: str, exc: ProviderProtocolError) -> ProviderProtocolError:
    """A framing error (`framing.py` knows no URL) prefixed with where, as `invoke()`'s are."""
    return ProviderProtocolError(f"{where}: {exc}")


def _framed(step: Callable[..., _T], where: str, *args: Any) -> _T:
    """`step(*args)` (picking a framer, or a rare feed or flush), its errors `_located`."""
    try:
        return step(*args)
    except ProviderProtocolError as exc:
        raise _located(where, exc) from None


def _reject_runtime_args(runtime_args: Mapping[str, Any]) -> None:
    if runtime_args:
        key = sorted(runtime_args)[0]
        raise EndpointConfigurationError(
            key,
            "HTTP endpoints take no runtime arguments; put provider fields in the request or "
            "request_defaults",
        )


def _project(
    projector: StreamProjector, events: Iterable[Any], where: str = ""
) -> tuple[list[StreamChunk], Sequence[StreamChunk], Exception | None]:
    """Project ``events`` until the grammar's terminal event.

    Returns ``(ready, tail, error)``: the chunks to deliver now, the terminal event's chunks
    (delivered after the drain), and the error that stopped projection, if any, so the chunks
    projected before it still reach the consumer first. A protocol error names ``where``.
    """
    ready: list[StreamChunk] = []
    feed = projector.feed
    try:
        for event in events:
            chunks = projector.end(eof=False) if event is DONE else feed(event)
            if projector.done:
                return ready, chunks, None
            ready.extend(chunks)
    except Exception as exc:
        return ready, (), _typed_projection_error(projector, exc, where)
    return ready, (), None


def _project_end(projector: StreamProjector, where: str = "") -> Sequence[StreamChunk]:
    """The projector's end-of-stream chunks, with the same typed-error rule as `_project`."""
    try:
        return projector.end(eof=True)
    except Exception as exc:
        error = _typed_projection_error(projector, exc, where)
        # The adapter's own failure (kept by `typed_wire_error`) is the cause; a protocol
        # error the projector raised is replaced by its located copy, not chained to it.
        raise error from error.__cause__


def _typed_projection_error(
    projector: StreamProjector, exc: Exception, where: str = ""
) -> Exception:
    """``exc`` typed by `typed_wire_error`, named by the projector's class and located.

    A protocol error (an event of the wrong shape, a stream cut before its end) is prefixed
    with `where`, as framing errors and `invoke()`'s are, so a caller streaming from several
    servers can tell which one broke; its cause is kept. Other errors (a provider-declared
    failure a vendor projector raised) pass through as they are: they are not about the wire.
    An empty `where` (a projector driven without a request) locates nothing.
    """
    secrets = tuple(getattr(projector, "secrets", ()) or ())
    error = typed_wire_error(type(projector).__name__, exc, secrets)
    if not where or type(error) is not ProviderProtocolError:
        return error
    located = ProviderProtocolError(
        f"{where}: {error}", stderr_tail=error.stderr_tail, raw=error.raw
    )
    located.__cause__ = error.__cause__
    return located


async def _drain(blocks: AsyncIterator[Any]) -> None:
    """Read what follows the terminal event, briefly, so keep-alive can reuse the connection."""
    remaining = _DRAIN_BYTES
    with anyio.move_on_after(_DRAIN_SECONDS):
        try:
            async for block in blocks:
                remaining -= len(block)
                if remaining < 0:
                    return
        except httpx.HTTPError:
            return

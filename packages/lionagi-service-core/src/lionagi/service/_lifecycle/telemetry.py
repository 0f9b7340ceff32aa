"""OpenTelemetry spans and metrics for supervised calls: explicit opt-in, nothing when off.

Enablement is one explicit call, :func:`instrument` (as the httpx and openai instrumentations
do): a globally configured TracerProvider alone turns nothing on, so an application that traces
its own code does not start paying for ours by surprise. Until then this module imports no
``opentelemetry`` module and the supervisor pays one module-attribute read per call
(``ACTIVE is None``); while on, per chunk it pays one counter increment and one type check.

What is recorded follows the GenAI semantic conventions where they apply: one ``CLIENT`` span per
logical call (``{operation} {model}``) with children for the admission wait, each attempt and the
stream; events for retries, Retry-After waits and circuit transitions; histograms for operation
duration, time to first chunk, token usage and admission wait, and an up-down counter for the
admission queue depth. Token counts come from the endpoint (``Endpoint.token_counts``), the
cache reads and writes among the input tokens too when it reports them (``TokenCounts``). No
prompt, payload, header or key is recorded unless ``capture_content`` is on, and then only the
request's messages and the response's text (never headers).

A tracer, span, meter or context of the application's that raises never fails or changes a
call: the call's first such failure is logged once as a warning and turns the rest of that
call's telemetry off (its open spans are still ended, best-effort); see :class:`CallTrace`.

Spans are parented explicitly (``context=``), never made current across a ``yield``: a stream's
generator runs its steps in whatever context the consumer awaits it from, so a context token
attached before a yield could not be detached after it. An attempt's span is current only while
that attempt is awaited (no yield inside), so an HTTP-client instrumentation nests under it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._base.errors import EndpointConfigurationError, _Restorable
from .._transport.usage import TokenCounts

if TYPE_CHECKING:
    from .._base.chunk import StreamChunk
    from .._transport.api_calling import APICalling
    from .._transport.http.endpoint import Endpoint

__all__ = [
    "ACTIVE",
    "CONTENT_ENV",
    "CallTrace",
    "Telemetry",
    "TelemetryUnavailableError",
    "instrument",
    "is_instrumented",
    "uninstrument",
]

CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The GenAI instrumentations' switch for content capture; read when ``capture_content=None``."""

SCOPE = "lionagi.service"
logger = logging.getLogger("lionagi.service")
_CONTENT_LIMIT = 65536  # characters of captured content per attribute; the rest is cut

# The GenAI semantic conventions' advised histogram boundaries (seconds; tokens). Without them
# the SDK's default boundaries (0, 5, 10, 25, ... 10000) put nearly every call in one bucket,
# so no percentile of a duration could be read from the histogram.
_SECONDS_BUCKETS = tuple(0.01 * 2**power for power in range(14))  # 0.01, 0.02, ... 81.92
_TOKEN_BUCKETS = tuple(4**power for power in range(14))  # 1, 4, 16, ... 67108864

ACTIVE: Telemetry | None = None
"""The installed telemetry, or None (the supervisor's one check per call)."""

OTEL_INSTALL_HINT = "pip install 'lionagi-service-core[otel]'"


class TelemetryUnavailableError(_Restorable, ModuleNotFoundError):
    """:func:`instrument` needs ``opentelemetry-api``, which is not installed (or not whole).

    Without it the bare ``ModuleNotFoundError`` of an import deep inside the telemetry said
    neither who needed the module nor how to get it. ``install_hint`` is the command; still a
    ``ModuleNotFoundError`` (so an ``ImportError``), as the documented contract promises.
    """

    def __init__(self, install_hint: str = OTEL_INSTALL_HINT) -> None:
        self.install_hint = install_hint
        super().__init__(
            "lionagi.service.telemetry.instrument() needs opentelemetry-api, which is not "
            f"installed; install core's otel extra: {install_hint}",
            name="opentelemetry",
        )


def instrument(
    *,
    tracer_provider: Any = None,
    meter_provider: Any = None,
    capture_content: bool | None = None,
) -> None:
    """Turn on spans and metrics for every ``iModel`` call in this process.

    Args:
        tracer_provider: An OpenTelemetry ``TracerProvider``; the global one when None.
        meter_provider: An OpenTelemetry ``MeterProvider``; the global one when None.
        capture_content: Record the request messages and the response text on the call span
            (``gen_ai.input.messages`` / ``gen_ai.output.messages``). None reads
            ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` (``true`` turns it on);
            off by default. Headers and keys are never recorded.

    Raises:
        TelemetryUnavailableError: ``opentelemetry-api`` is not installed (an ``ImportError``;
            ``pip install 'lionagi-service-core[otel]'``). Telemetry stays as it was.
        EndpointConfigurationError: ``capture_content`` is neither a bool nor None (field
            ``capture_content``).
    """
    global ACTIVE
    if capture_content is not None and not isinstance(capture_content, bool):
        # "false" (from a config file or the environment) is truthy: taken as is, it recorded
        # the prompts and responses it was meant to keep out of the spans.
        raise EndpointConfigurationError(
            "capture_content",
            f"must be True, False or None, got {type(capture_content).__name__}",
        )
    if capture_content is None:
        capture_content = os.environ.get(CONTENT_ENV, "").strip().lower() == "true"
    ACTIVE = Telemetry(tracer_provider, meter_provider, capture_content=capture_content)


def uninstrument() -> None:
    """Turn telemetry off again; calls already running finish their spans."""
    global ACTIVE
    ACTIVE = None


def is_instrumented() -> bool:
    """True between :func:`instrument` and :func:`uninstrument`."""
    return ACTIVE is not None


class Telemetry:
    """The tracer, the instruments and the content switch of one :func:`instrument` call."""

    def __init__(self, tracer_provider: Any, meter_provider: Any, *, capture_content: bool) -> None:
        try:
            from opentelemetry import context, metrics, trace
        except ImportError as exc:
            if exc.name is not None and exc.name.split(".")[0] == "opentelemetry":
                raise TelemetryUnavailableError() from None
            raise

        self.trace_api = trace
        self.context_api = context
        self.tracer = trace.get_tracer(SCOPE, tracer_provider=tracer_provider)
        meter = metrics.get_meter(SCOPE, meter_provider=meter_provider)
        self.capture_content = capture_content
        self.duration = _histogram(
            meter,
            "gen_ai.client.operation.duration",
            "s",
            "GenAI operation duration",
            _SECONDS_BUCKETS,
        )
        self.first_chunk = _histogram(
            meter,
            "gen_ai.client.operation.time_to_first_chunk",
            "s",
            "Time from the call's start to its first stream chunk",
            _SECONDS_BUCKETS,
        )
        self.tokens = _histogram(
            meter, "gen_ai.client.token.usage", "{token}", "Tokens used per call", _TOKEN_BUCKETS
        )
        self.admission_wait = _histogram(
            meter,
            "lionagi.service.admission.wait.duration",
            "s",
            "Time a call waited for its admission permit",
            _SECONDS_BUCKETS,
        )
        self.queue_depth = meter.create_up_down_counter(
            "lionagi.service.admission.queue.depth",
            unit="{call}",
            description="Calls waiting for admission",
        )

    def start(self, call: APICalling, stream: bool) -> CallTrace | None:
        """Open the span of one logical call (the supervisor calls this once per call).

        None, with a warning, when the tracer or meter refuses (a tracer provider of the
        application's that raises): the supervisor has already taken ownership of the call, and
        a raise here would leave it owned and non-terminal. Observability never fails a call.
        """
        try:
            return CallTrace(self, call, stream)
        except Exception:
            logger.warning("telemetry: the call's span could not be opened", exc_info=True)
            return None


def _histogram(
    meter: Any, name: str, unit: str, description: str, buckets: tuple[float, ...]
) -> Any:
    """A histogram advising the conventions' bucket boundaries (a view may still override them).

    ``explicit_bucket_boundaries_advisory`` exists from opentelemetry-api/-sdk 1.30; the
    ``[otel]`` extra allows 1.27, whose ``create_histogram`` refuses the keyword, so there the
    histogram gets the SDK's defaults rather than ``instrument()`` failing.
    """
    try:
        return meter.create_histogram(
            name, unit=unit, description=description, explicit_bucket_boundaries_advisory=buckets
        )
    except TypeError:
        return meter.create_histogram(name, unit=unit, description=description)


def _operation(call: APICalling) -> str:
    """The GenAI operation name: agentic runs invoke an agent, HTTP endpoints by their path."""
    endpoint = call.endpoint
    if endpoint.is_agentic:
        return "invoke_agent"
    path = endpoint.config.endpoint.lower()
    if "embed" in path:
        return "embeddings"
    if any(word in path for word in ("chat", "messages", "responses", "generate")):
        return "chat"
    return endpoint.config.endpoint


def _request(call: APICalling) -> Any:
    """The request the provider gets: the payload, or an agentic envelope's request model.

    An agentic endpoint's payload is ``{"request": <its request model>}`` (ADR-0030 D2), so
    the model and the messages live one level down, on a pydantic object.
    """
    payload: Any = call.payload
    if isinstance(payload, Mapping) and len(payload) == 1:
        inner = payload.get("request")
        if inner is not None and hasattr(inner, "model_dump"):
            return inner
    return payload


def _request_model(call: APICalling) -> str | None:
    request = _request(call)
    if isinstance(request, Mapping):
        model = request.get("model")
    else:  # a typed request object
        model = getattr(request, "model", None)
    return model if isinstance(model, str) else None


# Left out of a captured request without ``messages`` (see :func:`_input_messages`) and of a
# captured one-shot response body.
_TOOLS = "tools"


def _input_messages(call: APICalling) -> str:
    """The request's ``messages`` as JSON, or the whole request but its ``tools`` when it has none.

    A request without ``messages`` (Responses ``input``, Gemini's ``contents``, a ``prompt``)
    is recorded whole so its input is not lost, except ``tools``: tool definitions are no
    input message, and a remote MCP server's entry there carries the credentials the provider
    uses to reach it (Responses' ``headers`` / ``authorization``, Gemini's
    ``mcpServers[].streamableHttpTransport.headers``), which the docs promise never to record.
    """
    request = _request(call)
    if not isinstance(request, Mapping) and hasattr(request, "model_dump"):
        # A request model: its JSON form, not its repr (exclude_none drops unset fields).
        request = request.model_dump(mode="json", exclude_none=True)
    if not isinstance(request, Mapping):
        return _as_json(request)
    messages = request.get("messages")
    if messages is not None:
        return _as_json(messages)
    if _TOOLS in request:
        request = {key: value for key, value in request.items() if key != _TOOLS}
    return _as_json(request)


def _clip(text: str) -> str:
    return text if len(text) <= _CONTENT_LIMIT else text[:_CONTENT_LIMIT]


def _as_json(value: Any) -> str:
    """``value`` as JSON for content capture; never raises.

    It runs when the call span opens, before the call's own encoding, which turns an
    unencodable payload (a non-string key, a cycle) into a typed error on the call. A raise
    here would instead escape ``invoke()`` as a bare ``TypeError`` and leave the call owned and
    non-terminal, so what cannot be encoded is recorded as its ``repr``.
    """
    try:
        text = json.dumps(value, default=str, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = json.dumps(repr(value), ensure_ascii=False)
    return _clip(text)


class CallTrace:
    """The span, child spans and measurements of one logical call (only while instrumented).

    Observability never fails or changes a call: every method catches what the application's
    tracer, span, meter or context raises (and any slip of its own). The first such failure logs
    one warning and turns the rest of this call's telemetry off: ``span`` becomes None, the
    methods after it do nothing, and :meth:`finish` only ends the spans still open, each
    best-effort and silently. A context token :meth:`attempt_started` attached is still detached
    by :meth:`attempt_ended`, broken or not; a failed one is None and never detached. Each method
    catches inside itself (no wrapper frame): a ``try`` costs nothing in Python 3.11 until
    something raises, which keeps :meth:`chunk` as cheap as before.
    """

    __slots__ = (
        "_admission",
        "_attempt",
        "_attrs",
        "_ctx",
        "_ended",
        "_finish_reasons",
        "_id",
        "_output",
        "_queued",
        "_response_model",
        "_root",
        "_start",
        "_stream",
        "_telemetry",
        "_usage",
        "attempts",
        "chunks",
        "span",
    )

    def __init__(self, telemetry: Telemetry, call: APICalling, stream: bool) -> None:
        trace = telemetry.trace_api
        self._telemetry = telemetry
        self._id = str(call.id)
        # The vendor's declared semconv value (``Endpoint.otel_provider_name``) where its key
        # differs from it, else the key: core keeps no table of vendor names.
        endpoint = call.endpoint
        provider = type(endpoint).otel_provider_name or endpoint.config.provider
        operation = _operation(call)
        model = _request_model(call)
        self._attrs: dict[str, Any] = {
            "gen_ai.operation.name": operation,
            "gen_ai.provider.name": provider,
        }
        if model is not None:
            self._attrs["gen_ai.request.model"] = model
        span_attrs: dict[str, Any] = {
            **self._attrs,
            "gen_ai.system": provider,
            "lionagi.call.id": self._id,
            "lionagi.call.stream": stream,
        }
        if telemetry.capture_content:
            span_attrs["gen_ai.input.messages"] = _input_messages(call)
        name = f"{operation} {model}" if model else operation
        root = telemetry.tracer.start_span(name, kind=trace.SpanKind.CLIENT, attributes=span_attrs)
        self._root: Any = root  # the call span until its end was attempted
        self.span: Any = root  # the call span while this call records; None once off
        self._ctx = trace.set_span_in_context(root)
        self._start = time.perf_counter()
        self._admission: Any = None
        self._attempt: Any = None
        self._stream: Any = None
        self._queued = 0.0
        self._ended = False
        self._usage: Any = None
        self._response_model: str | None = None
        self._finish_reasons: list[str] = []
        self._output: list[str] | None = [] if telemetry.capture_content else None
        self.chunks = 0
        self.attempts = 0

    def _disable(self, step: str) -> None:
        """Turn this call's telemetry off after a failure at ``step``; warns the first time.

        Called from an ``except`` block, so the warning carries the failure's traceback.
        """
        if self.span is not None:
            self.span = None
            logger.warning(
                "telemetry: recording call %s failed at %s; the rest of its telemetry is skipped "
                "(the call itself is unaffected)",
                self._id,
                step,
                exc_info=True,
            )

    # -- admission --------------------------------------------------------------------------------

    def admission_started(self) -> None:
        """The call starts waiting for its permit (queue depth +1, the admission span)."""
        if self.span is None:
            return
        try:
            self._admission = self._telemetry.tracer.start_span("admission", context=self._ctx)
            self._queued = time.perf_counter()
            # Last: once counted, admission_ended is the next step, so the -1 is not skipped.
            self._telemetry.queue_depth.add(1, self._attrs)
        except Exception:
            self._disable("admission start")

    def admission_ended(self, exc: BaseException | None) -> None:
        """The wait ended: admitted (``exc`` None) or refused, timed out or cancelled."""
        if self.span is None:
            return
        try:
            waited = time.perf_counter() - self._queued
            self._telemetry.queue_depth.add(-1, self._attrs)
            self._telemetry.admission_wait.record(waited, self._attrs)
            span = self._admission
            if span is not None:
                if exc is not None:
                    # The one child that names a cancellation too (docs: "failed with
                    # error.type when refused, timed out or cancelled"); the status is ERROR
                    # only for errors.
                    span.set_attribute("error.type", type(exc).__qualname__)
                    self._fail(span, exc)
                self._admission = None  # its end is attempted once: finish does not repeat it
                span.end()
        except Exception:
            self._disable("admission end")

    # -- attempts ---------------------------------------------------------------------------------

    def attempt_started(self) -> Any:
        """Open the next attempt's span and make it current; returns the context token.

        None when nothing was attached (telemetry off for this call, or the attach failed):
        :meth:`attempt_ended` then detaches nothing.
        """
        if self.span is None:
            return None
        try:
            trace = self._telemetry.trace_api
            self.attempts += 1
            span = self._telemetry.tracer.start_span(
                "attempt", context=self._ctx, attributes={"lionagi.attempt.number": self.attempts}
            )
            self._attempt = span
            return self._telemetry.context_api.attach(trace.set_span_in_context(span, self._ctx))
        except Exception:
            self._disable("attempt start")
            return None

    def attempt_ended(self, token: Any, exc: BaseException | None) -> None:
        """Close the current attempt's span (failed with ``exc`` when given).

        The token is detached first and even when this call's telemetry is off: a context
        :meth:`attempt_started` attached is never left current.
        """
        if token is not None:
            try:
                self._telemetry.context_api.detach(token)
            except Exception:
                self._disable("attempt context detach")
        if self.span is None:
            return
        try:
            span = self._attempt
            if span is not None:
                if exc is not None:
                    self._fail(span, exc)
                self._attempt = None  # its end is attempted once: finish does not repeat it
                span.end()
        except Exception:
            self._disable("attempt end")

    def retry(
        self,
        exc: BaseException,
        failures: int,
        delay: float | None,
        retry_after: Any,
        *,
        honored: bool | None,
    ) -> None:
        """A failed attempt is retried after ``delay`` s, or (``delay`` None) ends the call.

        ``honored`` is True when the retry waits at least the Retry-After, False when the
        Retry-After did not fit the deadline or ``max_delay`` (so the call ended with the
        error), and None when no retry was left either way (attempts exhausted, or an error
        that is never retried): the event then carries no ``honored`` attribute, because
        neither answer would be true.
        """
        span = self.span
        if span is None:
            return
        try:
            error = type(exc).__qualname__
            if retry_after is not None:
                attrs: dict[str, Any] = {"lionagi.retry_after.seconds": float(retry_after)}
                if honored is not None:
                    attrs["lionagi.retry_after.honored"] = honored
                attrs["error.type"] = error
                span.add_event("lionagi.retry_after", attrs)
            if delay is not None:
                span.add_event(
                    "lionagi.retry",
                    {
                        "lionagi.attempt.number": failures,
                        "lionagi.retry.delay": delay,
                        "error.type": error,
                    },
                )
        except Exception:
            self._disable("retry event")

    def circuit(self, before: Any, after: Any) -> None:
        """The provider's circuit changed state while this call held its permit."""
        span = self.span
        if span is None:
            return
        try:
            span.add_event(
                "lionagi.circuit.transition",
                {"lionagi.circuit.from": str(before), "lionagi.circuit.to": str(after)},
            )
        except Exception:
            self._disable("circuit event")

    def circuit_refused(self, state: Any) -> None:
        """The circuit refused the call: no attempt was made."""
        span = self.span
        if span is None:
            return
        try:
            span.add_event("lionagi.circuit.open", {"lionagi.circuit.state": str(state)})
        except Exception:
            self._disable("circuit refusal event")

    # -- stream -----------------------------------------------------------------------------------

    def stream_opened(self) -> None:
        """The first batch arrived: time to first chunk, and the stream span begins."""
        if self.span is None:
            return
        try:
            self._telemetry.first_chunk.record(time.perf_counter() - self._start, self._attrs)
            self._stream = self._telemetry.tracer.start_span("stream", context=self._ctx)
        except Exception:
            self._disable("stream start")

    def chunk(self, chunk: StreamChunk) -> None:
        """One chunk passed to the consumer: a counter, and the result chunk's usage."""
        if self.span is None:
            return
        try:
            self.chunks += 1
            if chunk.type == "result":
                self._result(chunk.metadata)
            output = self._output
            if output is not None and chunk.type == "text" and chunk.content:
                output.append(chunk.content)
        except Exception:
            self._disable("stream chunk")

    def _result(self, meta: Mapping[str, Any]) -> None:
        usage = meta.get("usage")
        if isinstance(usage, Mapping):
            self._usage = usage
        elif self._usage is None:
            # A one-shot body whose vendor keeps its counts elsewhere (Gemini's usageMetadata,
            # Ollama's top-level eval counts): the endpoint's token_counts reads it whole.
            self._usage = meta
        model = meta.get("model")
        if isinstance(model, str):
            self._response_model = model
        reasons = meta.get("finish_reasons")
        if isinstance(reasons, Mapping) and reasons:
            # Several choices or candidates in one stream: each one's, in index order, as a
            # one-shot body's choices are recorded.
            self._finish_reasons.extend(r for r in reasons.values() if isinstance(r, str))
            return
        reason = meta.get("finish_reason")
        if isinstance(reason, str):
            self._finish_reasons.append(reason)

    def _response(self, response: Any, endpoint: Endpoint) -> None:
        """Model, usage and finish reasons of a one-shot response, when it is a mapping.

        The usage and a top-level `model` are read as a stream's result is; where the vendor
        writes the model and the finish reasons is the endpoint's to say
        (`Endpoint.response_facts`: the chat dialect's `choices` by default, Gemini's
        `candidates` and `modelVersion`, Ollama's `done_reason`), so this module reads no
        vendor's body.
        """
        if not isinstance(response, Mapping):
            return
        self._result(response)
        model, reasons = endpoint.response_facts(response)
        if model is not None:
            self._response_model = model
        self._finish_reasons.extend(reasons)
        if self._output is not None:
            # A Responses object echoes the request's `tools`: left out for the reason the
            # input capture leaves them out (an MCP server's credentials).
            if _TOOLS in response:
                response = {key: value for key, value in response.items() if key != _TOOLS}
            self._output.append(_as_json(response))

    # -- end --------------------------------------------------------------------------------------

    def _fail(self, span: Any, exc: BaseException) -> None:
        """Mark ``span`` failed: ``error.type`` and status ERROR, for an ``Exception`` only.

        A ``BaseException`` (task cancellation, trio's ``Cancelled``, ``KeyboardInterrupt``)
        makes the call CANCELLED, which is no failure: recording its class as ``error.type``
        would count a cancelled call as an error in every error-rate query over the duration
        metric, and would differ from a stream cancelled by ``aclose()`` (no exception at all).
        """
        if not isinstance(exc, Exception):
            return
        trace = self._telemetry.trace_api
        error = type(exc).__qualname__
        span.set_attribute("error.type", error)
        span.set_status(trace.Status(trace.StatusCode.ERROR, error))

    def finish(self, call: APICalling) -> None:
        """End every open span and record the call's measurements; idempotent, never raises.

        With this call's telemetry off (an earlier step failed, or recording fails here), the
        spans still open are only ended, each best-effort and without another warning.
        """
        if self._ended:
            return
        self._ended = True
        if self.span is not None:
            try:
                self._record(call)
            except Exception:
                self._disable("finish")
            else:
                self.span = None
                return
        spans = (self._attempt, self._admission, self._stream, self._root)
        self._attempt = self._admission = self._stream = self._root = None
        for span in spans:
            if span is not None:
                with contextlib.suppress(Exception):  # already reported once for this call
                    span.end()

    def _record(self, call: APICalling) -> None:
        """:meth:`finish` while recording: attributes, measurements, then the ends."""
        telemetry = self._telemetry
        span = self.span
        attrs = dict(self._attrs)
        exc = call.exception
        response = call.execution.response
        if response is not None:
            self._response(response, call.endpoint)
        # Only when a raise skipped their end; each is ended (attempted) once, as everywhere.
        attempt, self._attempt = self._attempt, None
        if attempt is not None:
            attempt.end()
        admission, self._admission = self._admission, None
        if admission is not None:
            admission.end()
        span.set_attribute("lionagi.call.status", call.status.value)
        stream = self._stream
        if stream is not None:
            stream.set_attribute("lionagi.stream.chunks", self.chunks)
            if exc is not None:
                self._fail(stream, exc)
            self._stream = None
            stream.end()
        if self._response_model is not None:
            span.set_attribute("gen_ai.response.model", self._response_model)
            attrs["gen_ai.response.model"] = self._response_model
        if self._finish_reasons:
            span.set_attribute("gen_ai.response.finish_reasons", tuple(self._finish_reasons))
        if isinstance(exc, Exception):  # a cancellation is no failure (see _fail)
            self._fail(span, exc)
            attrs["error.type"] = type(exc).__qualname__
        usage = self._usage
        if isinstance(usage, Mapping):
            # The endpoint reads its vendor's count names (Endpoint.token_counts).
            counts = call.endpoint.token_counts(usage)
            for kind, count in zip(("input", "output"), counts, strict=True):
                if count is not None:
                    span.set_attribute(f"gen_ai.usage.{kind}_tokens", count)
                    telemetry.tokens.record(count, {**attrs, "gen_ai.token.type": kind})
            if isinstance(counts, TokenCounts):
                # Span attributes only: the conventions count them inside the input (cache)
                # and output (reasoning) tokens, so a token-usage point of their own would
                # count them twice.
                for name, part in (
                    ("cache_read.input", counts.cache_read),
                    ("cache_creation.input", counts.cache_creation),
                    ("reasoning.output", counts.reasoning),
                ):
                    if part is not None:
                        span.set_attribute(f"gen_ai.usage.{name}_tokens", part)
        if self._output:
            span.set_attribute("gen_ai.output.messages", _clip("".join(self._output)))
        telemetry.duration.record(time.perf_counter() - self._start, attrs)
        self._root = None  # its end is attempted once
        span.end()

"""The HTTP conformance kit's machinery: one case = one event loop, one fake server, one verdict.

Every case is a *synchronous* test method. Its body runs with ``anyio.run(..., backend="asyncio")``
and opens its own :class:`FakeProviderServer` inside that loop, so the kit needs no async fixture
and no async marker: it runs the same under anyio's pytest plugin, pytest-asyncio (strict or
auto) or no async plugin at all.

Around each case the harness

- takes a leak baseline (:class:`LeakCheck`: descriptors, descendants, threads, tasks) before
  the server starts and checks it again after the server stopped: a client connection the
  adapter left open keeps its descriptor;
- requires every model's admission counters back to zero and no busy pool connection once the
  case body returned (within ``settle_timeout``, before the models are closed: closing the
  client would close a connection the adapter left busy and hide it);
- closes every ``iModel`` the case built and requires its endpoint's client to be closed;
- captures every log record at DEBUG (a handler on the root logger) and scans it, the reprs of
  the models, endpoints and configs, ``to_dict()``, every chunk and every exception (with
  ``traceback.format_exception``, chained) for the case's API key, a unique marker the fake
  server's 401 body echoes back.

Behaviour is chosen per call with the fake server's ``x-fake-*`` headers, added to the call's own
headers (``APICalling.headers``), never to the request model or the endpoint config.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets as _secrets
import traceback
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import pytest

from lionagi.service import (
    APICalling,
    AttemptPolicy,
    CircuitPolicy,
    Endpoint,
    StreamChunk,
    iModel,
)
from lionagi.service.http import ClientState

from .._fake_record import REDACTED, RecordedRequest, credential_digest
from .._fake_script import BEHAVIOURS
from .._secret_check import _shows
from ..fake_server import FakeProviderServer
from ._leaks import LeakCheck, model_leaks

if TYPE_CHECKING:
    from ._http_base import HTTPConformanceBase

__all__ = ["HTTPCase", "StreamOutcome", "http_case", "new_secret"]

_SECRET_PREFIX = "sk-lionagi-conformance-"
_NO_ROUTE = "no fake route"
# Dialects the fake server gained late: a 404 there may mean an older server, not a bad path.
_NEWER_DIALECTS = frozenset({"ollama", "json"})

F = TypeVar("F", bound=Callable[..., Awaitable[None]])


def new_secret() -> str:
    """A unique API key marker for one case (long enough that the 401 echo carries it whole)."""
    return _SECRET_PREFIX + _secrets.token_hex(12)


@dataclass
class StreamOutcome:
    """What one streamed call produced: the chunks, the error it raised, and the call event."""

    chunks: list[StreamChunk]
    error: BaseException | None
    call: APICalling

    def of(self, kind: str) -> list[StreamChunk]:
        """The chunks of one type."""
        return [c for c in self.chunks if c.type == kind]

    def joined(self, kind: str) -> str:
        """The content of every chunk of ``kind``, joined."""
        return "".join(c.content or "" for c in self.of(kind))


class _Capture(logging.Handler):
    """Keeps every formatted record (message, exception and stack) for the secret scan."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.texts: list[str] = []
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.texts.append(self.format(record))
        except Exception as exc:  # a record that cannot format is itself worth seeing
            self.texts.append(f"unformattable record {record.msg!r}: {exc!r}")


@dataclass
class HTTPCase:
    """The state of one running case: its server, its key, and everything to scan afterwards."""

    kit: HTTPConformanceBase
    server: FakeProviderServer
    secret: str
    models: list[iModel] = field(default_factory=list)
    evidence: list[object] = field(default_factory=list)

    # -- building ----------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The fake server's URL plus the dialect's base path (what ``make_endpoint`` gets)."""
        return self.server.base_url + self.kit.base_path()

    def endpoint(self) -> Endpoint:
        """A new endpoint from the adapter's ``make_endpoint``."""
        endpoint = self.kit.make_endpoint(self.base_url, self.secret)
        assert isinstance(endpoint, Endpoint), (
            f"make_endpoint returned {type(endpoint).__name__}, not an Endpoint"
        )
        assert not endpoint.is_agentic, "the HTTP kit tests HTTP endpoints; use the agentic kit"
        return endpoint

    def model(
        self, *, max_attempts: int | None = None, failure_threshold: int | None = None
    ) -> iModel:
        """An ``iModel`` over a new endpoint with the kit's fast attempt policy.

        ``failure_threshold``: the circuit's, for a case about the circuit itself (1 opens it
        on the first failed call, so a second call reaching the server proves the first was
        neutral). Otherwise the circuit never opens during a case: attempt counts must
        reflect the attempt policy only.
        """
        attempts = self.kit.max_attempts if max_attempts is None else max_attempts
        policy = AttemptPolicy(
            max_attempts=attempts,
            base_delay=self.kit.retry_delay,
            max_delay=self.kit.max_retry_delay,
            jitter_factor=0.0,
        )
        threshold = 1000 if failure_threshold is None else failure_threshold
        circuit = CircuitPolicy(failure_threshold=threshold)
        model = iModel(endpoint=self.endpoint(), attempt_policy=policy, circuit_policy=circuit)
        self.models.append(model)
        return model

    def prepared(
        self,
        model: iModel,
        behaviour: str,
        request: Mapping[str, Any] | None = None,
        **knobs: str,
    ) -> APICalling:
        """A call for ``request`` (default ``valid_request()``) that asks for ``behaviour``."""
        self.require_behaviour(behaviour)
        data = dict(self.kit.valid_request() if request is None else request)
        call = model.create_api_calling(**data)
        call.headers["x-fake-behaviour"] = behaviour
        for name, value in knobs.items():
            call.headers[f"x-fake-{name.replace('_', '-')}"] = value
        return call

    def require_behaviour(self, behaviour: str) -> None:
        """Skip when this fake server does not script ``behaviour`` (or a ``+``-joined part) yet."""
        missing = [name for name in behaviour.split("+") if name not in BEHAVIOURS]
        if missing:
            pytest.skip(
                f"the installed fake server has no {missing[0]!r} behaviour; upgrade "
                "lionagi-service-testing to run this case"
            )

    # -- running -----------------------------------------------------------------------------

    async def invoke(
        self,
        model: iModel,
        behaviour: str,
        request: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - passed to iModel.invoke as its budget
        local_cap: float | None = None,
        **knobs: str,
    ) -> APICalling:
        """``model.invoke`` one call; provider errors stay on the returned event.

        ``local_cap``: the call's own local cap (``APICalling.timeout``, which overrides
        ``EndpointConfig.timeout``); the supervisor hands it to ``Endpoint.call`` as
        ``timeout=``.
        """
        call = self.prepared(model, behaviour, request, **knobs)
        call.timeout = local_cap
        try:
            done = await model.invoke(api_call=call, timeout=timeout)
        except Exception as exc:
            self.evidence.append(exc)
            raise
        self.evidence.append(done)
        if done.execution.exception is not None:
            self.evidence.append(done.execution.exception)
        self.skip_if_unrouted(done.execution.exception)
        return done

    async def stream(
        self,
        model: iModel,
        behaviour: str,
        request: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - passed to iModel.stream as its budget
        stop_after: int | None = None,
        local_cap: float | None = None,
        **knobs: str,
    ) -> StreamOutcome:
        """Consume ``model.stream`` for one call; its error is returned, not raised.

        ``stop_after``: close the stream (``aclose()``) after that many chunks. ``local_cap``:
        the call's own local cap, as for :meth:`invoke`.
        """
        call = self.prepared(model, behaviour, request, **knobs)
        call.timeout = local_cap
        chunks: list[StreamChunk] = []
        error: BaseException | None = None
        stream = model.stream(api_call=call, timeout=timeout)
        try:
            async for chunk in stream:
                chunks.append(chunk)
                if stop_after is not None and len(chunks) >= stop_after:
                    break
        except Exception as exc:
            error = exc
        finally:
            await stream.aclose()
        self.evidence.extend([call, *chunks])
        if error is not None:
            self.evidence.append(error)
        self.skip_if_unrouted(error)
        return StreamOutcome(chunks, error, call)

    async def endpoint_stream(
        self,
        model: iModel,
        behaviour: str,
        request: Mapping[str, Any] | None = None,
        **knobs: str,
    ) -> StreamOutcome:
        """Consume the adapter's own ``Endpoint.stream()`` for one call, without ``iModel``.

        The payload and headers are the ones ``iModel`` sends (the call event's, with
        ``skip_payload_creation=True``); what the endpoint yields is returned as it came, since
        ``iModel``'s supervisor enforces parts of the chunk contract itself and would hide an
        endpoint that breaks them from every other consumer. The call event is never run.
        """
        call = self.prepared(model, behaviour, request, **knobs)
        chunks: list[StreamChunk] = []
        error: BaseException | None = None
        stream = model.endpoint.stream(
            call.payload, extra_headers=call.headers, skip_payload_creation=True
        )
        try:
            async for chunk in stream:
                chunks.append(chunk)
        except Exception as exc:
            error = exc
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()
        self.evidence.extend([call, *chunks])
        if error is not None:
            self.evidence.append(error)
        self.skip_if_unrouted(error)
        return StreamOutcome(chunks, error, call)

    def skip_if_unrouted(self, error: BaseException | None) -> None:
        """Handle a 404 "no fake route": skip for a dialect older servers lack, else fail.

        For the long-routed dialects a missing route means the adapter's path is wrong, which
        must not pass as a skip.
        """
        if error is None or _NO_ROUTE not in str(error) or "404" not in str(error):
            return
        paths = sorted({r.path for r in self.server.requests})
        if self.kit.dialect in _NEWER_DIALECTS:
            pytest.skip(f"the installed fake server has no route for {paths}; upgrade it")
        raise AssertionError(
            f"the fake server has no {self.kit.dialect} route for {paths}: check the endpoint "
            f"path and that base_url ({self.base_url}) is used as given"
        )

    def assert_key_sent(self, model: iModel) -> None:
        """Every request the server received carried this case's key, in a header.

        The 401 body echoes the credential the server received, so the redaction cases prove
        something only if the key the kit handed ``make_endpoint`` is the one on the wire: an
        adapter that drops the auth header, sends another key (one from the environment, a
        placeholder) or moves it into the URL would otherwise pass them with nothing to
        redact. A row with ``auth_type="none"`` sends no credential and is not checked.

        The record keeps credentials redacted; it holds their SHA-256 digest, compared here. A
        key in a header the fake server does not know as a credential header is recorded as
        sent and found by value.
        """
        if model.endpoint.config.auth_type == "none":
            return
        expected = credential_digest(self.secret)
        requests = self.server.requests
        assert requests, "no request reached the fake server"
        for request in requests:
            in_header = request.credential_sha256 == expected and not _query_credential(request)
            own_header = any(self.secret in value for value in request.headers.values())
            assert in_header or own_header, (
                f"a request to {request.path} did not carry the api_key make_endpoint was given "
                "in a header: the endpoint sends no credential, another one, or puts it in the "
                "URL (build auth with core's headers from config.api_key)"
            )

    @property
    def attempts(self) -> int:
        """Requests the fake server received so far in this case."""
        return len(self.server.requests)

    # -- verdicts ----------------------------------------------------------------------------

    async def close_models(self) -> None:
        """Close every model; each endpoint's client must end closed."""
        for model in self.models:
            with anyio.move_on_after(self.kit.settle_timeout, shield=True) as scope:
                await model.close()
            assert not scope.cancelled_caught, (
                f"iModel.close() did not finish within {self.kit.settle_timeout} s"
            )
            state = model.endpoint.client_state
            assert state is ClientState.CLOSED, (
                f"{type(model.endpoint).__name__}.aclose() left its HTTP client {state}: the "
                "endpoint's pool (and its sockets) outlive the model"
            )

    def secret_leaks(self, logs: list[str]) -> list[str]:
        """Where the case's API key appears: reprs, dumps, chunks, exceptions, logs, the wire.

        "Appears" is the distribution's one rule for a shown secret (``secret_shown``'s): the
        whole key or its leading half, so a key with only its tail masked is found too. Core
        redacts the key whole (its value and its ``sk-`` shape), so text that went through
        redaction never holds that half.
        """
        found: list[str] = []
        secret = self.secret

        def check(where: str, text: str) -> None:
            if _shows(secret, text):
                found.append(where)

        for model in self.models:
            endpoint = model.endpoint
            check("repr(iModel)", repr(model))
            check("str(iModel)", str(model))
            check("repr(endpoint)", repr(endpoint))
            check("str(endpoint)", str(endpoint))
            check("repr(endpoint.config)", repr(endpoint.config))
            check("str(endpoint.config)", str(endpoint.config))
            check("endpoint.config.to_dict()", json.dumps(endpoint.config.to_dict(), default=str))
            check("iModel.to_dict()", json.dumps(model.to_dict(), default=str))
        for item in self.evidence:
            if isinstance(item, BaseException):
                text = "".join(traceback.format_exception(item))
                check(f"{type(item).__name__} (traceback, chained)", text)
                check(f"repr({type(item).__name__})", repr(item))
                check(f"vars({type(item).__name__})", repr(vars(item)))
            elif isinstance(item, StreamChunk):
                check("a stream chunk", json.dumps(item.to_dict(), default=str))
            elif isinstance(item, APICalling):
                check("repr(APICalling)", repr(item))
                check("APICalling.model_dump_json()", _dump_event(item))
        for text in logs:
            check("a log record", text)
        for request in self.server.requests:
            # The wire itself: a key in a URL ends up in proxy, server and client logs.
            check(f"the URL of a request ({request.path})", request.path)
            check(f"the query of a request ({request.path})", json.dumps(request.query))
            if _query_credential(request):
                found.append(f"a credential query parameter of a request ({request.path})")
        return found


def _query_credential(request: RecordedRequest) -> bool:
    """True when the recorded query carries a credential parameter (``key``, ``api_key``)."""
    return any(value == REDACTED for value in request.query.values())


def _dump_event(call: APICalling) -> str:
    try:
        return call.model_dump_json()
    except Exception as exc:  # the dump failing is not the case's subject; its text still is
        return f"{type(exc).__name__}: {exc}"


def run_case(
    kit: HTTPConformanceBase, body: Callable[[HTTPConformanceBase, HTTPCase], Awaitable[None]]
) -> None:
    """Run one case on a fresh asyncio loop with its own server; raise its verdict."""
    anyio.run(_case, kit, body, backend="asyncio")


async def _case(
    kit: HTTPConformanceBase, body: Callable[[HTTPConformanceBase, HTTPCase], Awaitable[None]]
) -> None:
    capture = _Capture()
    root = logging.getLogger()
    level = root.level
    root.addHandler(capture)
    root.setLevel(logging.DEBUG)
    try:
        leaks = LeakCheck(settle=kit.settle_timeout)
        leaks.start()
        case: HTTPCase | None = None
        with anyio.move_on_after(kit.case_timeout) as hang:
            async with FakeProviderServer() as server:
                case = HTTPCase(kit, server, new_secret())
                try:
                    await body(kit, case)
                except BaseException:
                    # The case's own failure is the verdict; a close problem must not mask it.
                    with anyio.CancelScope(shield=True), contextlib.suppress(AssertionError):
                        await case.close_models()
                    raise
                held = await _settled_leaks(case.models, kit.settle_timeout)
                assert not held, "; ".join(held)
                await case.close_models()
        assert not hang.cancelled_caught, (
            f"the case did not finish within case_timeout={kit.case_timeout} s: a call or stream "
            "never ended (a stream that waits after its last event instead of returning, a "
            "read with no timeout), a call ignored cancellation, or close() hung"
        )
        await leaks.verify()
        assert case is not None, "the fake provider server did not start"
        found = case.secret_leaks(capture.texts)
        assert not found, f"the API key appeared in: {', '.join(found)}"
    finally:
        root.removeHandler(capture)
        root.setLevel(level)


async def _settled_leaks(models: list[iModel], settle: float) -> list[str]:
    """:func:`model_leaks` once it is empty, or after ``settle`` seconds.

    A stream wrapper that drops core's inner stream without closing it has that stream
    finalized by the event loop one step later (a task closing the response): a connection busy
    only until then is not held. A response nothing ever closes stays busy and is reported.
    """
    held = model_leaks(models)
    with anyio.move_on_after(settle):
        while held:
            await anyio.sleep(0.01)  # a connection's release has no event to await
            held = model_leaks(models)
    return held


def http_case(fn: F) -> Callable[[Any], None]:
    """Turn ``async def case(self, case: HTTPCase)`` into a synchronous pytest test method.

    The wrapper copies the name and docstring but not ``__wrapped__``: pytest would follow it
    and look for a fixture called ``case``.
    """

    def test(self: HTTPConformanceBase) -> None:
        run_case(self, fn)

    test.__name__ = fn.__name__
    test.__qualname__ = fn.__qualname__
    test.__doc__ = fn.__doc__
    test.__module__ = fn.__module__
    return test

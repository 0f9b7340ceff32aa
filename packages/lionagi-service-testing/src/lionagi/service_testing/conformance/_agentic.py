"""AgenticEndpointConformance: the ADR-0030 D6 suite every agentic adapter runs, any transport.

Subclass it in a test module (the class name must start with ``Test`` for pytest to collect it),
implement :meth:`~AgenticEndpointConformance.make_endpoint` and
:meth:`~AgenticEndpointConformance.valid_request`, and every case below runs against your adapter.
Capabilities switch cases on and off: tool, usage and session cases run only when the adapter
declares them, the non-resumable case only when it does not.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from types import NoneType, UnionType
from typing import Any, ClassVar, Union, get_args, get_origin

import anyio
import pytest
from pydantic import BaseModel

from lionagi.service import (
    AgenticCapabilities,
    AgenticEndpoint,
    AgenticHandlerError,
    AgenticOperationUnsupported,
    AgenticRequestValidationError,
    APICalling,
    EventStatus,
    ProviderError,
    ProviderStreamError,
    RequestDeadlineExceeded,
    StreamChunk,
    iModel,
)

from ._leaks import LeakCheck
from ._scenario import VENDOR_GRAMMAR_SCENARIOS, Scenario, output_problems, scenario_applies
from ._static import static_conformance_problems
from ._sync import sync_case

__all__ = ["AgenticEndpointConformance", "WorkProbe"]

_PRIOR_SESSION = "conformance-prior-session"
_EXPLICIT_SESSION = "conformance-explicit-session"
_UNDECLARED_HANDLER = "lionagi_conformance_handler"


@dataclasses.dataclass
class WorkProbe:
    """What reached an endpoint's ``_stream_agentic`` hook: the point where work starts."""

    requests: list[BaseModel] = dataclasses.field(default_factory=list)
    runtime_args: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    @property
    def started(self) -> bool:
        """True once the adapter hook was entered at least once."""
        return bool(self.requests)


def _noop(*args: Any, **kwargs: Any) -> None:
    return None


def _contains_callable_or_key(value: Any, key: str) -> bool:
    if callable(value) and not isinstance(value, type):
        return True
    if isinstance(value, Mapping):
        return key in value or any(_contains_callable_or_key(v, key) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_contains_callable_or_key(v, key) for v in value)
    return False


def _session_ids(chunks: list[StreamChunk]) -> set[str]:
    return {
        sid
        for c in chunks
        if c.type in ("system", "result")
        and isinstance(sid := c.metadata.get("session_id"), str)
        and sid
    }


class AgenticEndpointConformance(ABC):
    """Capability-driven conformance cases for one agentic adapter (ADR-0030 D1-D3, D6).

    Required hooks:
        make_endpoint(scenario): a new endpoint whose fake produces ``scenario``.
        valid_request(): a minimal valid request mapping for that endpoint.

    Optional hooks and knobs (override in the subclass):
        work_started(endpoint): extra evidence that work began (the kit already records every
            entry into ``_stream_agentic``); subprocess kits add "a process was launched".
        endpoint_class(): the class under test (default: the class of a TEXT endpoint).
        accepts_extra_headers: True only if the adapter documents a safe header mapping.
        inapplicable_scenarios: vendor-grammar scenarios (``RESULT_REPEATS_TEXT``,
            ``ERROR_MESSAGE``, ``RETRY_NOTICE``) your provider's grammar cannot produce, each
            mapped to the reason; their cases are skipped with it. Any other scenario is
            required of every adapter.
        provider_error_class: the exact class your ``PROVIDER_ERROR`` fixture must raise (e.g.
            ``ProviderStreamAuthError`` for a refused key); by default any
            ``ProviderStreamError`` the chunk classifies as passes, so a parser that drops the
            status or code the classifier reads goes unnoticed.
        cancel_delay / deadline: seconds before cancelling or timing out a stalled stream.
        case_timeout: hang guard for each case; settle_timeout: wait for tasks to finish.

    After every case the kit checks that no task, child process or file descriptor the case
    created is left. Every async case is a synchronous test running its own event loop
    (:func:`sync_case`), so the kit needs no async pytest plugin and works under anyio's plugin
    or pytest-asyncio (strict or auto mode) alike.
    """

    unknown_field: ClassVar[str] = "lionagi_conformance_unknown_field"
    accepts_extra_headers: ClassVar[bool] = False
    inapplicable_scenarios: ClassVar[Mapping[Scenario, str]] = {}
    provider_error_class: ClassVar[type[ProviderStreamError] | None] = None
    cancel_delay: ClassVar[float] = 0.2
    deadline: ClassVar[float] = 0.5
    case_timeout: ClassVar[float] = 10.0
    settle_timeout: ClassVar[float] = 2.0

    _leaks: LeakCheck
    _probes: dict[int, tuple[AgenticEndpoint, WorkProbe]]
    _models: list[iModel]

    # -- adapter hooks ----------------------------------------------------------------------------

    @abstractmethod
    def make_endpoint(self, scenario: Scenario) -> AgenticEndpoint:
        """Return a new endpoint whose fake produces ``scenario`` for :meth:`valid_request`.

        Only scenarios the adapter's capabilities allow are requested (no TOOL without
        ``emits_tool_events``, no USAGE without ``reports_usage``, no SESSION unless resumable).
        STALL must yield at least one chunk, then wait until cancelled.
        """

    @abstractmethod
    def valid_request(self) -> dict[str, Any]:
        """A minimal valid request mapping (e.g. ``{"prompt": "hello"}``); a new dict per call."""

    def work_started(self, endpoint: AgenticEndpoint) -> bool:
        """True if ``endpoint`` began work (its ``_stream_agentic`` hook was entered)."""
        entry = self._probes.get(id(endpoint))
        return entry is not None and entry[1].started

    def endpoint_class(self) -> type[AgenticEndpoint]:
        """The adapter class under test (default: the class of a TEXT endpoint)."""
        cached: type[AgenticEndpoint] | None = self.__dict__.get("_endpoint_class")
        if cached is None:
            cached = type(self.make_endpoint(Scenario.TEXT))
            self.__dict__["_endpoint_class"] = cached
        return cached

    # -- per-case setup and teardown ---------------------------------------------------------------

    @asynccontextmanager
    async def case_scope(self) -> AsyncIterator[None]:
        """Entered by :func:`sync_case` around every async case, on the case's own event loop.

        Takes the leak baseline, and afterwards closes every model the case made and verifies
        nothing is left. Not a fixture: an async fixture runs only under the plugin that claims
        it, and the kit must run under anyio's plugin, pytest-asyncio or neither.
        """
        self._leaks = LeakCheck(settle=self.settle_timeout)
        self._probes = {}
        self._models = []
        self._leaks.start()
        stuck: list[iModel] = []
        try:
            yield
        finally:
            for model in self._models:
                with anyio.move_on_after(self.settle_timeout, shield=True) as scope:
                    await model.close()
                if scope.cancelled_caught:
                    stuck.append(model)
        assert not stuck, (
            f"iModel.close() did not finish within {self.settle_timeout} s for {stuck}: a call "
            "still holds its admission lease (its cleanup never completed)"
        )
        await self._leaks.verify()

    @pytest.fixture(autouse=True)
    def _conformance_state(self) -> None:
        """Fresh per-case state for the synchronous cases too (they need no event loop)."""
        self._probes = {}
        self._models = []

    # -- helpers for cases ------------------------------------------------------------------------

    @property
    def capabilities(self) -> AgenticCapabilities:
        """The capability record of the class under test."""
        caps = self.endpoint_class().capabilities
        assert isinstance(caps, AgenticCapabilities), "capabilities are not declared"
        return caps

    def endpoint(self, scenario: Scenario) -> AgenticEndpoint:
        """:meth:`make_endpoint` plus a probe on its hook; skips a scenario it cannot have."""
        if not scenario_applies(scenario, self.capabilities):
            pytest.skip(f"the adapter's capabilities exclude the {scenario} scenario")
        self.skip_inapplicable(scenario)
        return self.instrument(self.make_endpoint(scenario))

    def instrument(self, endpoint: AgenticEndpoint) -> AgenticEndpoint:
        """Record every entry into ``endpoint._stream_agentic`` (see :meth:`probe`)."""
        probe = WorkProbe()
        inner = endpoint._stream_agentic

        def recording(
            request: BaseModel, *, runtime_args: dict[str, Any], local_timeout: float | None
        ) -> AsyncIterator[StreamChunk]:
            probe.requests.append(request)
            probe.runtime_args.append(dict(runtime_args))
            return inner(request, runtime_args=runtime_args, local_timeout=local_timeout)

        endpoint._stream_agentic = recording  # type: ignore[method-assign]
        self._probes[id(endpoint)] = (endpoint, probe)
        return endpoint

    def probe(self, endpoint: AgenticEndpoint) -> WorkProbe:
        """The probe :meth:`instrument` attached to ``endpoint``."""
        return self._probes[id(endpoint)][1]

    def model(self, endpoint: AgenticEndpoint) -> iModel:
        """An :class:`iModel` over ``endpoint``, closed after the case."""
        model = iModel(endpoint=endpoint)
        self._models.append(model)
        return model

    def track(self, model: iModel) -> iModel:
        """Close ``model`` (e.g. a copy) after the case too."""
        self._models.append(model)
        return model

    @contextmanager
    def guard(self) -> Iterator[None]:
        """Fail instead of hanging when a case exceeds :attr:`case_timeout`."""
        with anyio.fail_after(self.case_timeout):
            yield

    async def collect(
        self, stream: AsyncIterator[StreamChunk]
    ) -> tuple[list[StreamChunk], Exception | None]:
        """Drain ``stream``; return its chunks and the exception that ended it, if any."""
        chunks: list[StreamChunk] = []
        try:
            async for chunk in stream:
                chunks.append(chunk)
        except Exception as exc:
            return chunks, exc
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()
        return chunks, None

    async def stream_scenario(
        self, scenario: Scenario
    ) -> tuple[AgenticEndpoint, iModel, APICalling, list[StreamChunk], Exception | None]:
        """Stream one valid request of ``scenario`` through a fresh iModel, under :meth:`guard`.

        Returns the endpoint, the model, the call (to inspect its status) and what
        :meth:`collect` returned.
        """
        endpoint = self.endpoint(scenario)
        model = self.model(endpoint)
        call = model.create_api_calling(**self.valid_request())
        with self.guard():
            chunks, exc = await self.collect(model.stream(api_call=call))
        return endpoint, model, call, chunks, exc

    async def assert_invoke_fails(
        self, endpoint: AgenticEndpoint, model: iModel, *, like: BaseException | None = None
    ) -> None:
        """When the adapter supports invoke, the same scenario ends FAILED with a ProviderError.

        With ``like``, the recorded error is of exactly its class (stream and invoke agree).
        """
        if not type(endpoint).supports_invoke:
            return
        with self.guard():
            failed = await model.invoke(**self.valid_request())
        assert failed.status is EventStatus.FAILED
        assert isinstance(failed.exception, ProviderError)
        if like is not None:
            assert type(failed.exception) is type(like), (failed.exception, like)

    async def cancel_after_first_chunk(
        self, stream: AsyncIterator[StreamChunk]
    ) -> tuple[list[StreamChunk], list[StreamChunk], bool]:
        """Consume until :attr:`cancel_delay` after the first chunk, then cancel.

        Returns ``(chunks, late, cancelled)``: ``late`` are chunks received after the
        cancellation was due, i.e. yielded while cleaning up.
        """
        chunks: list[StreamChunk] = []
        late: list[StreamChunk] = []
        due: float | None = None
        with anyio.CancelScope() as scope:
            async for chunk in stream:
                now = anyio.current_time()
                (late if due is not None and now >= due else chunks).append(chunk)
                if due is None:
                    due = now + self.cancel_delay
                    scope.deadline = due
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
        return chunks, late, scope.cancelled_caught

    def _assert_output(self, chunks: list[StreamChunk], scenario: Scenario | None) -> None:
        problems = output_problems(chunks, self.capabilities, scenario)
        assert not problems, "output contract violated:\n  - " + "\n  - ".join(problems)

    # -- D1: declarations -------------------------------------------------------------------------

    def test_capabilities_are_declared_and_immutable(self) -> None:
        """The class declares one frozen AgenticCapabilities record that copies share.

        Troubleshooting: set ``capabilities: ClassVar[AgenticCapabilities | None] =
        AgenticCapabilities(transport=..., resumable=..., emits_tool_events=...,
        reports_usage=...)`` on the class, never on an instance; declare only what your fixtures
        can prove. The listed static problems say which declaration is missing or inconsistent.
        """
        cls = self.endpoint_class()
        problems = static_conformance_problems(cls)
        assert not problems, "declaration problems:\n  - " + "\n  - ".join(problems)
        caps = self.capabilities
        with pytest.raises(dataclasses.FrozenInstanceError):
            caps.resumable = not caps.resumable  # type: ignore[misc]
        endpoint = self.make_endpoint(Scenario.TEXT)
        assert "capabilities" not in vars(endpoint), "capabilities set on the instance"
        assert endpoint.declared_capabilities() is caps
        twin = endpoint.copy()
        assert type(twin) is type(endpoint)
        assert twin.declared_capabilities() is caps
        assert endpoint.is_agentic is True

    def test_request_type_is_a_strict_model(self) -> None:
        """``request_type`` is a pydantic model that refuses unknown fields; the envelope is exact.

        Troubleshooting: declare ``request_type: ClassVar[type[BaseModel] | None] = MyRequest``
        with ``model_config = ConfigDict(extra="forbid")``. If ``valid_request()`` does not
        validate, fix the kit hook, not the model. The payload must be exactly
        ``{"request": <MyRequest>}`` and the headers empty: do not override create_payload to
        add keys.
        """
        cls = self.endpoint_class()
        model = cls.request_type
        assert isinstance(model, type)
        assert issubclass(model, BaseModel)
        assert model.model_config.get("extra") != "allow", "extra='allow' accepts unknown fields"
        payload, headers = self.make_endpoint(Scenario.TEXT).create_payload(self.valid_request())
        assert set(payload) == {"request"}
        assert isinstance(payload["request"], model)
        assert headers == {}

    # -- D2: validation before work ---------------------------------------------------------------

    @sync_case
    async def test_unknown_request_field_is_refused_before_work(self) -> None:
        """An unknown field raises AgenticRequestValidationError naming it; nothing starts.

        Troubleshooting: never filter request keys silently, and do not start a process, task or
        connection before ``AgenticEndpoint.stream`` has validated the request: implement only
        ``_stream_agentic``, which the base calls after validation. If ``work_started`` is True
        your adapter begins work in ``stream``/``create_payload`` overrides.
        """
        endpoint = self.endpoint(Scenario.TEXT)
        request = {**self.valid_request(), self.unknown_field: "x"}
        with self.guard():
            chunks, exc = await self.collect(endpoint.stream(request))
            assert isinstance(exc, AgenticRequestValidationError), repr(exc)
            assert exc.field == self.unknown_field
            assert chunks == []
            _, via_model = await self.collect(self.model(endpoint).stream(**request))
            assert isinstance(via_model, AgenticRequestValidationError), repr(via_model)
        assert not self.work_started(endpoint)

    @sync_case
    async def test_wrong_typed_request_values_are_refused_before_work(self) -> None:
        """A flag given ``"yes"``, a number given text or a bool: refused naming the field.

        The kit reads your request model: every field typed ``bool``, ``int`` or ``float``
        (optional or not) is given a value of the wrong type. pydantic's lax mode would turn
        ``"yes"`` into ``True``, and for an agentic CLI a flag is a permission (a sandbox
        bypass, an approval mode). Nothing may start.

        Troubleshooting: make the fields strict (``StrictBool``, ``Field(strict=True)``, or
        ``ConfigDict(strict=True)`` on a model whose fields all allow it; an ``int`` for a
        ``float`` stays accepted).
        """
        endpoint = self.endpoint(Scenario.TEXT)
        model_type = type(endpoint).request_type or endpoint.config.request_options
        assert model_type is not None, "the adapter declares no request model"
        model = self.model(endpoint)
        lax: list[str] = []
        misnamed: list[str] = []
        for field, value in wrong_typed_values(model_type):
            request = {**self.valid_request(), field: value}
            try:
                model.create_api_calling(**request)
            except AgenticRequestValidationError as exc:
                if (exc.field or "").split(".")[0] != field:
                    misnamed.append(f"{field}={value!r} named {exc.field!r}")
            else:
                lax.append(f"{field}={value!r}")
        assert not lax, f"wrong-typed values accepted (coerced): {', '.join(lax)}"
        assert not misnamed, f"refused without naming the field: {', '.join(misnamed)}"
        assert not self.work_started(endpoint)

    def test_callable_request_value_is_refused(self) -> None:
        """A callable in a request field is refused naming the field: callables are runtime args.

        Troubleshooting: callbacks belong in ``runtime_arg_keys`` and reach ``_stream_agentic``
        through ``runtime_args``; a request field typed ``Any`` must not accept one. The base
        refuses them before validation; if this fails, ``create_payload`` was overridden.
        """
        endpoint = self.endpoint(Scenario.TEXT)
        request = self.valid_request()
        field = next(iter(request))
        with pytest.raises(AgenticRequestValidationError) as info:
            endpoint.create_payload({**request, field: _noop})
        assert info.value.field == field

    @sync_case
    async def test_runtime_args_never_reach_the_payload(self) -> None:
        """Declared handlers go to ``call_kwargs`` and ``runtime_args``, never into the payload.

        Troubleshooting: list every callback name in ``runtime_arg_keys`` and read them with
        ``self._runtime_handlers(runtime_args)`` inside ``_stream_agentic``. A handler name that
        is also a request field can never be set (rename one). If the dump contains a callable,
        a runtime value leaked into the request model.
        """
        endpoint = self.endpoint(Scenario.TEXT)
        names = sorted(type(endpoint).handler_names())
        if not names:
            pytest.skip("the adapter declares no runtime handler (runtime_arg_keys is empty)")
        name = names[0]
        seen: list[tuple[Any, ...]] = []

        def handler(*args: Any, **kwargs: Any) -> None:
            seen.append(args)

        model = self.model(endpoint)
        call = model.create_api_calling(**self.valid_request(), **{name: handler})
        assert call.call_kwargs == {name: handler}
        assert set(call.payload) == {"request"}
        request_dump = call.payload["request"].model_dump()
        assert not _contains_callable_or_key(request_dump, name), request_dump
        event_dump = call.model_dump()
        assert not _contains_callable_or_key(event_dump, name)
        call.model_dump_json()  # serializable: no callable anywhere in the event
        with pytest.raises(AgenticRequestValidationError) as info:
            endpoint.create_payload({**self.valid_request(), name: handler})
        assert info.value.field == name
        with self.guard():
            _, exc = await self.collect(model.stream(api_call=call))
        assert exc is None, repr(exc)
        assert self.probe(endpoint).runtime_args[-1].get(name) is handler

    @sync_case
    async def test_undeclared_runtime_arg_is_refused_before_work(self) -> None:
        """A runtime keyword the adapter does not declare raises AgenticHandlerError; no work.

        Troubleshooting: the kit passes ``lionagi_conformance_handler``, which no adapter
        declares. Do not accept ``**kwargs`` catch-alls in a ``stream`` override; declare each
        runtime key in ``runtime_arg_keys``.
        """
        endpoint = self.endpoint(Scenario.TEXT)
        undeclared: dict[str, Any] = {_UNDECLARED_HANDLER: _noop}
        with self.guard():
            chunks, exc = await self.collect(endpoint.stream(self.valid_request(), **undeclared))
            assert isinstance(exc, AgenticHandlerError), repr(exc)
            assert exc.handler == _UNDECLARED_HANDLER
            _, via_model = await self.collect(
                self.model(endpoint).stream(**self.valid_request(), **undeclared)
            )
        assert isinstance(via_model, AgenticHandlerError | AgenticRequestValidationError)
        assert chunks == []
        assert not self.work_started(endpoint)

    @sync_case
    async def test_extra_headers_are_refused_before_work(self) -> None:
        """Generic ``extra_headers`` raise AgenticRequestValidationError("extra_headers").

        Troubleshooting: agentic adapters never forward generic headers into a command,
        environment or model data. Build any transport headers from typed request fields. If
        your adapter documents a safe mapping, set ``accepts_extra_headers = True``.
        """
        if self.accepts_extra_headers:
            pytest.skip("the adapter documents a safe extra_headers mapping")
        endpoint = self.endpoint(Scenario.TEXT)
        headers = {"X-Conformance": "1"}
        with pytest.raises(AgenticRequestValidationError) as info:
            endpoint.create_payload(self.valid_request(), headers)
        assert info.value.field == "extra_headers"
        with self.guard():
            chunks, exc = await self.collect(
                endpoint.stream(self.valid_request(), extra_headers=headers)
            )
        assert isinstance(exc, AgenticRequestValidationError), repr(exc)
        assert chunks == []
        assert not self.work_started(endpoint)

    # -- D3: output -------------------------------------------------------------------------------

    @pytest.mark.parametrize(
        "scenario",
        [
            Scenario.TEXT,
            Scenario.TOOL,
            Scenario.USAGE,
            Scenario.SESSION,
            Scenario.EMPTY,
            Scenario.PROVIDER_ERROR,
        ],
        ids=str,
    )
    @sync_case
    async def test_output_contract(self, scenario: Scenario) -> None:
        """Each scenario's chunks obey D3 and show what the scenario promises.

        System chunks carry no text; at most one result, after all content; an error chunk has
        ``is_error=True`` and nothing follows it; only error and tool_result set ``is_error``;
        a non-resumable adapter never publishes ``session_id``. TOOL needs tool_use then a
        matching tool_result, USAGE a result with ``metadata["usage"]``, SESSION a system chunk
        with ``metadata["session_id"]``, EMPTY no semantic chunk at all.

        Troubleshooting: a ProviderProtocolError from the stream means core's guard caught the
        violation first; its message names the chunk. Project vendor accumulators explicitly:
        put terminal text not already streamed in the result's ``content`` (otherwise None),
        publish an observed non-resumable id as ``provider_session_id``, and never synthesize
        text, usage or a result for EMPTY.
        """
        endpoint = self.endpoint(scenario)
        with self.guard():
            chunks, exc = await self.collect(endpoint.stream(self.valid_request()))
        if scenario is Scenario.PROVIDER_ERROR:
            assert exc is None or (
                isinstance(exc, ProviderError) and not isinstance(exc, ProviderStreamError)
            ), repr(exc)
        else:
            assert exc is None, repr(exc)
        self._assert_output(chunks, scenario)

    @pytest.mark.parametrize("scenario", [Scenario.TEXT, Scenario.USAGE, Scenario.SESSION], ids=str)
    @sync_case
    async def test_invoke_folds_the_stream(self, scenario: Scenario) -> None:
        """``iModel.invoke`` completes with an AgenticCallResult holding every key.

        Troubleshooting: one-shot results are folded from your stream by core
        (``collect_call_result``); do not override ``call``. Missing usage means it is not on
        the result chunk's metadata; a missing session id means it was not published on a
        system or result chunk. Stream-only adapters set ``supports_invoke = False``.
        """
        endpoint = self.endpoint(scenario)
        if not type(endpoint).supports_invoke:
            pytest.skip("the adapter is stream-only (supports_invoke = False)")
        model = self.model(endpoint)
        with self.guard():
            call = await model.invoke(**self.valid_request())
        assert call.status is EventStatus.COMPLETED, call.execution.error
        result = call.execution.response
        assert set(result) == {"result", "session_id", "model", "usage", "metadata"}
        if scenario is Scenario.TEXT:
            assert isinstance(result["result"], str)
            assert result["result"]
        elif scenario is Scenario.USAGE:
            assert isinstance(result["usage"], dict)
            assert result["usage"]
        else:
            assert result["session_id"]
            assert result["session_id"] == model.provider_session_id

    @sync_case
    async def test_invoke_on_stream_only_endpoint_is_refused_before_work(self) -> None:
        """A stream-only adapter refuses invoke with AgenticOperationUnsupported("invoke").

        Troubleshooting: set ``supports_invoke = False`` and do not override ``call``; the base
        and ``iModel.invoke`` refuse before any event, task or process exists. If work started,
        an override begins it before ``ensure_invoke_supported()``.
        """
        endpoint = self.endpoint(Scenario.TEXT)
        if type(endpoint).supports_invoke:
            pytest.skip("the adapter supports invoke")
        model = self.model(endpoint)
        with self.guard():
            with pytest.raises(AgenticOperationUnsupported) as info:
                await model.invoke(**self.valid_request())
            assert info.value.operation == "invoke"
            with pytest.raises(AgenticOperationUnsupported):
                await endpoint.call(self.valid_request())
        assert model.supervisor.owned == {}
        assert not self.work_started(endpoint)

    # -- ADR-0029 terminal states through iModel --------------------------------------------------

    @sync_case
    async def test_text_stream_completes(self) -> None:
        """A normal answer streams through iModel and leaves the event COMPLETED.

        Troubleshooting: if the event is FAILED, read ``call.exception``: a ProviderProtocolError
        names the chunk that broke D3; a ProviderProcessError means the fake exited non-zero.
        """
        _, _, call, chunks, exc = await self.stream_scenario(Scenario.TEXT)
        assert exc is None, repr(exc)
        assert call.status is EventStatus.COMPLETED
        self._assert_output(chunks, Scenario.TEXT)

    @sync_case
    async def test_provider_error_fails_after_one_error_chunk(self) -> None:
        """One error chunk reaches the consumer, then ProviderStreamError; the event is FAILED.

        Troubleshooting: project the provider's failure event to exactly one
        ``StreamChunk("error", message, is_error=True)`` and yield nothing after it (return, or
        let the consumer close you). Do not raise instead of yielding it: a raise is a transport
        failure. Keep the message free of secrets; core redacts, but only known key shapes.
        The raised class is the chunk's classification (``endpoint.stream_error(chunk)``, e.g.
        ProviderStreamAuthError for a refused key) on both stream() and invoke(): put the
        provider's own text in the content and its ``status``/``code``/``type`` in metadata,
        and add vendor wording through ``error_patterns``, not by raising your own class.
        """
        endpoint, model, call, chunks, exc = await self.stream_scenario(Scenario.PROVIDER_ERROR)
        assert isinstance(exc, ProviderStreamError), repr(exc)
        assert [c.type for c in chunks].count("error") == 1
        assert chunks[-1].type == "error"
        assert chunks[-1].is_error
        assert call.status is EventStatus.FAILED
        assert call.exception is exc
        assert type(exc) is type(endpoint.stream_error(chunks[-1])), repr(exc)
        expected = self.provider_error_class
        if expected is not None:
            assert type(exc) is expected, (
                f"the PROVIDER_ERROR fixture raised {type(exc).__name__}, not "
                f"{expected.__name__}: does the error chunk keep the status/code/type the "
                "classifier reads?"
            )
        await self.assert_invoke_fails(endpoint, model, like=exc)

    @sync_case
    async def test_empty_stream_completes(self) -> None:
        """No output and a clean end of stream is a normal completion, not an error.

        Troubleshooting: do not raise "no output" and do not synthesize a result or text when
        the provider said nothing; a system chunk with metadata is allowed.
        """
        endpoint, model, call, chunks, exc = await self.stream_scenario(Scenario.EMPTY)
        assert exc is None, repr(exc)
        assert call.status is EventStatus.COMPLETED
        self._assert_output(chunks, Scenario.EMPTY)
        if type(endpoint).supports_invoke:
            with self.guard():
                done = await model.invoke(**self.valid_request())
            assert done.status is EventStatus.COMPLETED, done.execution.error
            assert done.execution.response["result"] == ""

    @sync_case
    async def test_transport_error_is_typed(self) -> None:
        """A transport failure raises a typed ProviderError (not an error chunk, not EOF).

        Troubleshooting: let the transport's typed error propagate (ProviderProcessError,
        ProviderConnectionError, ProviderProtocolError ...). Do not catch it and return, which
        looks like a successful empty answer, and do not turn it into an error chunk, which
        claims the provider declared the failure.
        """
        endpoint, model, call, chunks, exc = await self.stream_scenario(Scenario.TRANSPORT_ERROR)
        assert isinstance(exc, ProviderError), f"expected a ProviderError, got {exc!r}"
        assert not isinstance(exc, ProviderStreamError), "a transport failure became an error chunk"
        assert all(c.type != "error" for c in chunks)
        assert call.status is EventStatus.FAILED
        assert call.exception is exc
        await self.assert_invoke_fails(endpoint, model)

    @sync_case
    async def test_cancellation_yields_nothing_and_cancels(self) -> None:
        """Cancelling a stalled stream (or invoke) yields nothing more and marks it CANCELLED.

        Troubleshooting: clean up in ``finally`` (terminate the process group, cancel and await
        your task, close your client) and never ``yield`` there; do not swallow
        ``CancelledError``. A late chunk means cleanup yielded; a leak report after this case
        means cleanup did not finish before the stream returned.
        """
        endpoint = self.endpoint(Scenario.STALL)
        model = self.model(endpoint)
        call = model.create_api_calling(**self.valid_request())
        with self.guard():
            chunks, late, cancelled = await self.cancel_after_first_chunk(
                model.stream(api_call=call)
            )
        assert cancelled, (
            "the stalled stream ended on its own: the cancellation never reached the consumer. "
            "Either the adapter swallowed it (caught CancelledError in _stream_agentic and "
            "returned; re-raise it) or the STALL fixture does not wait until cancelled"
        )
        assert late == [], f"chunks yielded while cancelling: {late}"
        assert all(c.type != "error" for c in chunks), chunks
        assert call.status is EventStatus.CANCELLED
        assert model.supervisor.owned == {}
        if type(endpoint).supports_invoke:
            again = model.create_api_calling(**self.valid_request())
            with self.guard(), anyio.move_on_after(self.deadline) as scope:
                await model.invoke(again)
            assert scope.cancelled_caught, "the stalled invoke returned on its own"
            assert again.status is EventStatus.CANCELLED

    @sync_case
    async def test_consumer_close_cancels_and_releases(self) -> None:
        """``aclose()`` mid-stream returns cleanly, marks CANCELLED and releases everything.

        Troubleshooting: ``aclose`` throws GeneratorExit at your ``yield``: run cleanup and
        return; yielding in ``finally`` raises "async generator ignored GeneratorExit". A slow
        close means your cleanup waits on something the close did not stop (a queue, a process
        that ignores SIGTERM without an escalation grace).
        """
        endpoint = self.endpoint(Scenario.STALL)
        model = self.model(endpoint)
        call = model.create_api_calling(**self.valid_request())
        stream = model.stream(api_call=call)
        with self.guard():
            await stream.__anext__()
            await stream.aclose()
            with pytest.raises(StopAsyncIteration):
                await stream.__anext__()
        assert call.status is EventStatus.CANCELLED
        assert model.supervisor.owned == {}
        snapshot = model.admission_snapshot()
        assert (snapshot.active, snapshot.queued) == (0, 0)
        direct = self.endpoint(Scenario.STALL).stream(self.valid_request())
        with self.guard():
            await direct.__anext__()
            aclose = getattr(direct, "aclose", None)
            assert aclose is not None, "AgenticEndpoint.stream() must return a closable iterator"
            await aclose()

    @sync_case
    async def test_deadline_aborts(self) -> None:
        """A stalled run that outlives the caller's deadline raises RequestDeadlineExceeded.

        The event is ABORTED for both stream and invoke, and cleanup completes before the call
        returns.

        Troubleshooting: the deadline is ADR-0029's; an adapter must not catch the cancellation
        it delivers. If this takes much longer than ``deadline``, cleanup blocks (wait on the
        process with a bound, pass ``terminate_grace`` through).
        """
        endpoint = self.endpoint(Scenario.STALL)
        model = self.model(endpoint)
        call = model.create_api_calling(**self.valid_request())
        with self.guard():
            _, exc = await self.collect(model.stream(api_call=call, timeout=self.deadline))
        assert isinstance(exc, RequestDeadlineExceeded), repr(exc)
        assert call.status is EventStatus.ABORTED
        if type(endpoint).supports_invoke:
            again = model.create_api_calling(**self.valid_request())
            with self.guard(), pytest.raises(RequestDeadlineExceeded):
                await model.invoke(again, timeout=self.deadline)
            assert again.status is EventStatus.ABORTED

    # -- D3: sessions -----------------------------------------------------------------------------

    def _resume_value(self, call: APICalling) -> Any:
        field = self.endpoint_class().resume_field
        assert field is not None
        return getattr(call.payload["request"], field)

    @sync_case
    async def test_session_is_confirmed_stored_and_injected(self) -> None:
        """A confirmed id is stored, injected into ``resume_field`` next time; explicit wins.

        Troubleshooting: publish the id as ``metadata["session_id"]`` on a system chunk as soon
        as the provider confirms it; declare ``resume_field`` as the request field your command
        grammar turns into a resume flag. If the injected value does not reach
        ``_stream_agentic``, the request model renames or drops the field.
        """
        if not self.capabilities.resumable:
            pytest.skip("the adapter is not resumable")
        endpoint = self.endpoint(Scenario.SESSION)
        model = self.model(endpoint)
        with self.guard():
            chunks, exc = await self.collect(model.stream(**self.valid_request()))
        assert exc is None, repr(exc)
        sid = model.provider_session_id
        assert sid, "no session id was stored after a SESSION run"
        assert sid in _session_ids(chunks)
        call = model.create_api_calling(**self.valid_request())
        assert self._resume_value(call) == sid
        with self.guard():
            _, exc = await self.collect(model.stream(api_call=call))
        assert exc is None, repr(exc)
        field = type(endpoint).resume_field
        assert field is not None
        assert getattr(self.probe(endpoint).requests[-1], field) == sid
        explicit = model.create_api_calling(**{**self.valid_request(), field: _EXPLICIT_SESSION})
        assert self._resume_value(explicit) == _EXPLICIT_SESSION

    @pytest.mark.parametrize(
        "scenario", [Scenario.PROVIDER_ERROR, Scenario.TRANSPORT_ERROR, Scenario.STALL], ids=str
    )
    @sync_case
    async def test_failure_never_erases_the_session(self, scenario: Scenario) -> None:
        """After a failed or cancelled run the last confirmed session id is still stored.

        Troubleshooting: only ``confirm_session`` (called by the base for ids on system and
        result chunks) stores ids; never call ``clear_session`` on failure, and do not publish
        an empty ``session_id``.
        """
        if not self.capabilities.resumable:
            pytest.skip("the adapter is not resumable")
        endpoint = self.endpoint(scenario)
        endpoint.confirm_session(_PRIOR_SESSION)
        model = self.model(endpoint)
        call = model.create_api_calling(**self.valid_request())
        assert self._resume_value(call) == _PRIOR_SESSION
        with self.guard():
            if scenario is Scenario.STALL:
                chunks, _, _ = await self.cancel_after_first_chunk(model.stream(api_call=call))
            else:
                chunks, _ = await self.collect(model.stream(api_call=call))
        assert call.status in (EventStatus.FAILED, EventStatus.CANCELLED)
        stored = model.provider_session_id
        assert stored == _PRIOR_SESSION or stored in _session_ids(chunks), stored

    @sync_case
    async def test_copy_shares_session_only_when_asked(self) -> None:
        """``copy(share_session=True)`` carries the confirmed id; a plain copy starts empty.

        Troubleshooting: override ``copy()`` only to pass your constructor arguments; it must
        return a new endpoint with no session and no running resources (the facade copies the
        session itself). Keep the handler copy: call ``self.copy_runtime_state_to(other)``.
        """
        if not self.capabilities.resumable:
            pytest.skip("the adapter is not resumable")
        endpoint = self.endpoint(Scenario.SESSION)
        model = self.model(endpoint)
        with self.guard():
            _, exc = await self.collect(model.stream(**self.valid_request()))
        assert exc is None, repr(exc)
        sid = model.provider_session_id
        assert sid
        shared = self.track(model.copy(share_session=True))
        assert type(shared.endpoint) is type(endpoint)
        assert shared.provider_session_id == sid
        assert self._resume_value(shared.create_api_calling(**self.valid_request())) == sid
        fresh = self.track(model.copy())
        assert fresh.provider_session_id is None
        baseline = endpoint.create_payload(self.valid_request())[0]["request"]
        field = type(endpoint).resume_field
        assert field is not None
        fresh_call = fresh.create_api_calling(**self.valid_request())
        assert self._resume_value(fresh_call) == getattr(baseline, field)

    @sync_case
    async def test_non_resumable_adapter_gets_no_session(self) -> None:
        """A non-resumable adapter publishes no ``session_id`` and never receives one.

        Troubleshooting: an upstream id you only observe goes in ``provider_session_id``
        metadata. Set ``resumable=True`` only with a typed ``resume_field``, a command mapping
        and a round-trip fixture (the SESSION scenario).
        """
        if self.capabilities.resumable:
            pytest.skip("the adapter is resumable")
        endpoint = self.endpoint(Scenario.TEXT)
        model = self.model(endpoint)
        with self.guard():
            chunks, exc = await self.collect(model.stream(**self.valid_request()))
        assert exc is None, repr(exc)
        assert all("session_id" not in c.metadata for c in chunks)
        assert model.provider_session_id is None
        endpoint.confirm_session("conformance-observed-id")  # even a stored id is not injected
        baseline = endpoint.create_payload(self.valid_request())[0]["request"]
        call = model.create_api_calling(**self.valid_request())
        assert call.payload["request"].model_dump() == baseline.model_dump()
        assert self.track(model.copy(share_session=True)).provider_session_id is None
        assert "session_id" not in model.to_dict()

    # -- vendor-grammar traps (issue 10 item 9) ----------------------------------------------------

    def skip_inapplicable(self, scenario: Scenario) -> None:
        """Skip ``scenario`` if declared in :attr:`inapplicable_scenarios` (with its reason).

        Only vendor-grammar scenarios may be declared; declaring a core scenario fails the case.
        """
        reason = self.inapplicable_scenarios.get(scenario)
        if reason is None:
            return
        assert scenario in VENDOR_GRAMMAR_SCENARIOS, (
            f"{scenario} is required of every adapter; only "
            f"{sorted(map(str, VENDOR_GRAMMAR_SCENARIOS))} can be declared inapplicable"
        )
        assert reason.strip(), f"inapplicable_scenarios[{scenario}] needs a reason"
        pytest.skip(f"{scenario} is inapplicable: {reason}")

    @sync_case
    async def test_result_does_not_repeat_streamed_text(self) -> None:
        """Text streamed as deltas and repeated whole on the result event reaches the consumer once.

        The fixture (``RESULT_REPEATS_TEXT``) streams text deltas, then the provider's final
        event carrying the concatenated text, as most CLIs do. The result chunk must not carry
        text that was already streamed, and the one-shot result must hold it once.

        Troubleshooting: keep what you streamed and put only terminal text not already emitted
        in the result chunk's ``content`` (None otherwise); usage and session stay in its
        metadata. If your provider never repeats the answer on its final event, declare
        ``inapplicable_scenarios = {Scenario.RESULT_REPEATS_TEXT: "<why>"}``.
        """
        endpoint, model, call, chunks, exc = await self.stream_scenario(
            Scenario.RESULT_REPEATS_TEXT
        )
        assert exc is None, repr(exc)
        assert call.status is EventStatus.COMPLETED
        self._assert_output(chunks, Scenario.RESULT_REPEATS_TEXT)
        if type(endpoint).supports_invoke:
            streamed = [c.content for c in chunks if c.type == "text" and c.content]
            with self.guard():
                done = await model.invoke(**self.valid_request())
            assert done.status is EventStatus.COMPLETED, done.execution.error
            folded = done.execution.response["result"]
            assert isinstance(folded, str)
            assert len(folded) < 2 * len("".join(streamed)), f"folded text repeats: {folded!r}"

    @sync_case
    async def test_error_flagged_message_is_an_error_not_text(self) -> None:
        """An assistant message the provider flags as an error becomes one error chunk, not text.

        The fixture (``ERROR_MESSAGE``) is the provider's assistant/message event marked as a
        failure (an error flag or field on it, e.g. a refused key), rather than a dedicated
        error event. The consumer must get exactly one error chunk, last, no text repeating its
        message, ProviderStreamError from the stream and a FAILED event.

        Troubleshooting: check the message's error flag before projecting its content; map a
        flagged message to ``StreamChunk("error", message, is_error=True, metadata=...)`` and
        stop. Projecting it as text first makes a failed run look like an answer (and invoke
        "succeeds" with the error text as its result).
        """
        endpoint, model, call, chunks, exc = await self.stream_scenario(Scenario.ERROR_MESSAGE)
        self._assert_output(chunks, Scenario.ERROR_MESSAGE)
        assert isinstance(exc, ProviderStreamError), repr(exc)
        assert call.status is EventStatus.FAILED
        await self.assert_invoke_fails(endpoint, model, like=exc)

    @sync_case
    async def test_retry_notice_is_not_a_failure(self) -> None:
        """A retry or reconnecting notice, then an answer, completes with the answer.

        The fixture (``RETRY_NOTICE``) emits the provider's "retrying"/"reconnecting" event
        (some CLIs send it with an error type) and then a normal answer. No error chunk may
        reach the consumer, the event is COMPLETED and invoke returns the text.

        Troubleshooting: recognise the notice (attempt counters, a retry flag, a reconnecting
        status) before treating an event as a failure; surface it as system metadata or drop
        it through your allowlist. An error chunk ends the stream, so mapping the notice to one
        fails a run the CLI was about to finish.
        """
        endpoint, model, call, chunks, exc = await self.stream_scenario(Scenario.RETRY_NOTICE)
        assert exc is None, repr(exc)
        assert call.status is EventStatus.COMPLETED
        self._assert_output(chunks, Scenario.RETRY_NOTICE)
        if type(endpoint).supports_invoke:
            with self.guard():
                done = await model.invoke(**self.valid_request())
            assert done.status is EventStatus.COMPLETED, done.execution.error
            assert done.execution.response["result"]


def wrong_typed_values(model_type: type[BaseModel]) -> list[tuple[str, object]]:
    """``(field, value)`` pairs of the wrong type for the model's bool, int and float fields.

    Optional fields count by their non-None type; other fields (text, literals, models,
    collections) are left to their own cases.
    """
    found: list[tuple[str, object]] = []
    for name, info in model_type.model_fields.items():
        kinds = {a for a in (get_args(info.annotation) or (info.annotation,)) if a is not NoneType}
        if get_origin(info.annotation) not in (None, Union, UnionType) or len(kinds) != 1:
            continue
        (kind,) = kinds
        if kind is bool:
            found += [(name, "yes"), (name, 1)]
        elif kind is int:
            found += [(name, "3"), (name, True), (name, 3.5)]
        elif kind is float:
            found += [(name, "3.5"), (name, True)]
    return found

"""The call supervisor: one lifecycle for ``invoke()`` and ``stream()`` (ADR-0029 D3).

Order for both: own the event -> admission lease -> pre-hook -> provider work -> post-hook ->
terminal status -> cleanup -> release -> disown. Every exit path sets a terminal status before
the event leaves ownership, and the first terminal outcome wins:

- deadline expiry       -> ABORTED,   ``RequestDeadlineExceeded(phase)`` raised
- controller close      -> ABORTED,   ``AdmissionClosed`` raised
- admission refusal     -> ABORTED,   the typed admission error raised
- caller cancellation   -> CANCELLED, the cancellation re-raised
- consumer ``aclose()`` -> CANCELLED, nothing raised
- ``aclose()`` from another task while a read waits (``StreamLink.stop``)
                        -> CANCELLED, ``StreamClosed`` raised to the read
- provider/hook failure -> FAILED;    ``invoke`` returns the event, ``stream`` raises the error
- request error found   -> FAILED,    raised by both (a request field the endpoint refuses only
  when the call runs          when it encodes or launches: ``EndpointConfigurationError``,
                              ``AgenticRequestValidationError``, as at creation)
- provider error chunk  -> FAILED,    the chunk yielded once, then ``ProviderStreamError`` raised
                                      (the classified twin, e.g. ``ProviderStreamAuthError``)
"""

from __future__ import annotations

import logging
import random
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Mapping,
)
from functools import partial
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from .._base.chunk import StreamChunk
from .._base.errors import (
    AdmissionClosed,
    AdmissionConflict,
    AdmissionError,
    AgenticRequestValidationError,
    DeadlinePhase,
    EndpointConfigurationError,
    RequestDeadlineExceeded,
    StreamClosed,
    _Restorable,
)
from .._base.events import EventStatus
from .._base.hooks import DEFAULT_HOOK_CAPS, HookPhase
from .._base.stream_link import StreamLink
from .._transport.api_calling import APICalling
from .._transport.http.endpoint import Endpoint
from .._transport.http.reads import ReadControl
from .._transport.run_control import (
    RunControl,
    reset_current_run_control,
    set_current_run_control,
)
from . import telemetry as _telemetry
from .admission import Admission
from .attempts import AttemptOptions, OpenedStream, call_with_attempts, open_stream_with_attempts
from .budget import NO_DEADLINE, RequestBudget
from .circuit import CircuitBreaker
from .clock import Clock, Sleep, default_clock, default_sleep, is_native_clock
from .deadline import DeadlineReached, run_before, run_hook
from .lease import AdmissionLease
from .policy import AttemptPolicy

if TYPE_CHECKING:
    import asyncio

    from .telemetry import CallTrace

__all__ = ["CallSupervisor", "HookTimeout", "outcome_status"]

logger = logging.getLogger("lionagi.service")

_NO_RETRY = AttemptPolicy(max_attempts=1)  # agentic runs: one attempt, re-running repeats effects

T = TypeVar("T")


def outcome_status(exc: BaseException) -> EventStatus:
    """The terminal status an exception gives a call (module docstring table).

    Admission refusals, the deadline and controller close ABORT (the work was stopped from
    outside the provider); any other ``Exception`` FAILS; cancellation, a stream closed from
    another task (``StreamClosed``) and other ``BaseException`` signals CANCEL.
    """
    if isinstance(exc, StreamClosed):
        return EventStatus.CANCELLED
    if isinstance(exc, AdmissionError):
        return EventStatus.ABORTED
    if isinstance(exc, Exception):
        return EventStatus.FAILED
    return EventStatus.CANCELLED


def _is_control_flow(exc: BaseException) -> bool:
    """Errors ``invoke()`` raises instead of recording: admission, deadline, cancellation.

    And the caller's own request errors found only when the call runs (``stream_options`` on a
    one-shot call, a workspace path refused at launch): the same errors raise when they are
    found at creation, and a caller's mistake is not a provider failure to be read off the
    returned event.
    """
    return isinstance(
        exc, AdmissionError | EndpointConfigurationError | AgenticRequestValidationError
    ) or not isinstance(exc, Exception)


class HookTimeout(_Restorable, TimeoutError):
    """A hook ran past its own local cap while the request deadline still had time left."""

    def __init__(self, phase: HookPhase, cap: float) -> None:
        self.phase = phase
        self.cap = cap
        super().__init__(f"{phase.value} hook exceeded its {cap:g} s cap")


class _AgenticLimit:
    """The absolute end of one agentic run: the deadline or the local cap, whichever is first."""

    __slots__ = ("cap_wins", "local_cap", "timeout", "until")

    def __init__(self, budget: RequestBudget, local_cap: float | None, clock: Clock) -> None:
        self.local_cap = local_cap
        self.timeout = budget.cap(local_cap, clock)
        deadline = budget.deadline
        remaining = budget.remaining(clock)
        self.cap_wins = local_cap is not None and (remaining is None or local_cap < remaining)
        if self.cap_wins:
            assert local_cap is not None
            self.until: float | None = clock() + local_cap
        else:
            self.until = deadline

    def exceeded(self, call_id: str, phase: DeadlinePhase) -> RequestDeadlineExceeded:
        return RequestDeadlineExceeded(
            call_id, phase, local_cap=self.local_cap if self.cap_wins else None
        )


class CallSupervisor:
    """Owns calls from creation to removal for one `iModel`.

    One lifecycle for `invoke` and `stream`: own the event, admission lease, pre-hook, provider
    work, post-hook, terminal status, cleanup, release, disown. Every exit path sets a terminal
    status before the event leaves ownership, and the first terminal outcome wins:

    - deadline expiry: ABORTED, `RequestDeadlineExceeded(phase)` raised;
    - controller close: ABORTED, `AdmissionClosed` raised;
    - admission refusal: ABORTED, the typed admission error raised;
    - caller cancellation: CANCELLED, the cancellation re-raised;
    - consumer `aclose()`: CANCELLED, nothing raised;
    - provider or hook failure: FAILED; `invoke` returns the event, `stream` raises the error;
    - a request error found when the call runs (a request field the endpoint refuses only when
      it encodes or launches: `EndpointConfigurationError`, `AgenticRequestValidationError`,
      as at creation): FAILED, raised by both;
    - provider error chunk: FAILED, the chunk yielded once, then `ProviderStreamError` raised
      (the classified twin, e.g. `ProviderStreamAuthError`).

    HTTP endpoints get the attempt policy and circuit breaker (setup only, never observed
    output); agentic endpoints get exactly one attempt, because re-running an agent repeats
    side effects.
    """

    def __init__(
        self,
        admission: Admission,
        *,
        attempt_policy: AttemptPolicy | None = None,
        breaker: CircuitBreaker | None = None,
        clock: Clock | None = None,
        sleep: Sleep | None = None,
        rng: random.Random | None = None,
        hook_caps: Mapping[HookPhase, float] | None = None,
    ) -> None:
        self._admission = admission
        self._policy = attempt_policy
        self._breaker = breaker
        self._clock = clock or default_clock
        self._sleep = sleep or default_sleep
        self._rng = rng
        self._hook_caps = dict(DEFAULT_HOOK_CAPS if hook_caps is None else hook_caps)
        self._owned: dict[str, APICalling] = {}

    @property
    def admission(self) -> Admission:
        """The admission controller every call passes through."""
        return self._admission

    @property
    def breaker(self) -> CircuitBreaker | None:
        """The circuit breaker for HTTP attempts, if any."""
        return self._breaker

    def share_breaker(self, breaker: CircuitBreaker | None) -> None:
        """Use `breaker` from now on: a copy of a model shares its provider's health record.

        A copy talks to the same provider as its original, so a circuit the original opened
        must refuse the copy's calls too (ADR-0027: the circuit breaker is passed to the copy),
        instead of letting it send fresh traffic to a provider known to be failing.
        """
        self._breaker = breaker

    @property
    def owned(self) -> Mapping[str, APICalling]:
        """Calls currently owned (queued or running), by id; a read-only view."""
        return MappingProxyType(self._owned)

    # -- ownership --------------------------------------------------------------------------------

    def _own(self, call: APICalling) -> str:
        """Take ownership of ``call``; returns its key (the id as text) for :meth:`_disown`."""
        key = str(call.id)
        if call.is_terminal:
            raise AdmissionConflict(f"call {key} is already {call.status.value}; create a new one")
        if key in self._owned:
            raise AdmissionConflict(f"call {key} is already queued or running")
        self._owned[key] = call
        return key

    def _disown(self, call: APICalling, key: str) -> None:
        if not call.is_terminal:  # a bug guard: every path above must have terminalized
            call.terminate(EventStatus.ABORTED, error=RuntimeError("left ownership non-terminal"))
            logger.error("call %s left ownership without a terminal status", key)
        self._owned.pop(key, None)

    async def _acquire(
        self, call: APICalling, key: str, budget: RequestBudget, trace: CallTrace | None
    ) -> AdmissionLease:
        if trace is not None:
            return await self._acquire_traced(call, key, budget, trace)
        try:
            return await self._admission._acquire_as(call, key, budget)
        except BaseException as exc:
            call.terminate(outcome_status(exc), error=exc)
            raise

    async def _acquire_traced(
        self, call: APICalling, key: str, budget: RequestBudget, trace: CallTrace
    ) -> AdmissionLease:
        """:meth:`_acquire` inside the admission span (queue depth and wait measured)."""
        trace.admission_started()
        try:
            lease = await self._admission._acquire_as(call, key, budget)
        except BaseException as exc:
            trace.admission_ended(exc)
            call.terminate(outcome_status(exc), error=exc)
            raise
        trace.admission_ended(None)
        return lease

    # -- stages -----------------------------------------------------------------------------------

    async def _bounded(
        self,
        step: Callable[[], Awaitable[T]],
        budget: RequestBudget,
        phase: DeadlinePhase,
        call_id: str,
    ) -> T:
        try:
            return await run_before(step, budget.deadline, clock=self._clock, sleep=self._sleep)
        except DeadlineReached:
            raise RequestDeadlineExceeded(call_id, phase) from None

    async def _hook(self, call: APICalling, phase: HookPhase, budget: RequestBudget) -> None:
        registry = call.hook_registry
        if registry is None or not registry.has(phase):
            return
        fn = (
            registry.pre_invocation
            if phase is HookPhase.PRE_INVOCATION
            else (registry.post_invocation)
        )
        cap = self._hook_caps.get(phase)
        remaining = budget.remaining(self._clock)
        if remaining is not None and remaining <= 0:
            raise RequestDeadlineExceeded(str(call.id), "hook")
        until = budget.deadline
        cap_wins = cap is not None and (remaining is None or cap < remaining)
        if cap_wins:
            assert cap is not None
            until = self._clock() + cap
        try:
            await run_hook(lambda: fn(call), until, clock=self._clock, sleep=self._sleep)
        except DeadlineReached:
            if cap_wins:
                assert cap is not None
                raise HookTimeout(phase, cap) from None
            raise RequestDeadlineExceeded(str(call.id), "hook") from None

    async def _chunk_hook(
        self, call: APICalling, chunk: StreamChunk, budget: RequestBudget
    ) -> StreamChunk:
        """Run the chunk hook inside the request deadline (it has no local cap of its own).

        A sync hook that returned past the deadline ends the stream as an async one cut off
        there does (see :func:`run_hook`).
        """
        registry = call.hook_registry
        assert registry is not None
        step = partial(registry.on_chunk, call, chunk)
        try:
            return await run_hook(step, budget.deadline, clock=self._clock, sleep=self._sleep)
        except DeadlineReached:
            raise RequestDeadlineExceeded(str(call.id), "hook") from None

    def _local_cap(self, call: APICalling) -> float | None:
        return call.timeout if call.timeout is not None else call.endpoint.config.timeout

    async def _provider_call(
        self, call: APICalling, call_id: str, budget: RequestBudget, trace: CallTrace | None
    ) -> Any:
        endpoint = call.endpoint
        local_cap = self._local_cap(call)
        if endpoint.is_agentic:
            limit = _AgenticLimit(budget, local_cap, self._clock)
            try:
                return await run_before(
                    lambda: endpoint.call(
                        call.payload,
                        extra_headers=call.headers,
                        timeout=limit.timeout,
                        **call.call_kwargs,
                    ),
                    limit.until,
                    clock=self._clock,
                    sleep=self._sleep,
                )
            except DeadlineReached:
                raise limit.exceeded(call_id, "transport") from None

        # The payload was created (and validated) with the call event; the base transport is
        # given it encoded, once, before the circuit permit: a payload with no JSON form is the
        # caller's error, not an attempt, and retries resend the same bytes.
        payload: Mapping[str, Any] = call.payload
        prepared: dict[str, Any] = {}
        if type(endpoint).call is Endpoint.call:
            payload = endpoint.encode_payload(payload)
            prepared["skip_payload_creation"] = True

        def attempt(limit: float | None) -> Awaitable[Any]:
            return endpoint.call(payload, extra_headers=call.headers, timeout=limit, **prepared)

        return await call_with_attempts(
            attempt, call_id=call_id, **self._attempt_options(budget, local_cap, trace)
        )

    def _attempt_options(
        self, budget: RequestBudget, local_cap: float | None, trace: CallTrace | None
    ) -> AttemptOptions:
        """This supervisor's policy, circuit and clock for one HTTP call or stream setup."""
        return {
            "trace": trace,
            "policy": self._policy,
            "breaker": self._breaker,
            "budget": budget,
            "local_cap": local_cap,
            "clock": self._clock,
            "sleep": self._sleep,
            "rng": self._rng,
        }

    async def _open_stream(
        self,
        call: APICalling,
        lease: AdmissionLease,
        budget: RequestBudget,
        trace: CallTrace | None,
    ) -> tuple[OpenedStream[Any], ReadControl | RunControl | None, _AgenticLimit | None]:
        """Open the provider stream and read its first batch (the replay boundary).

        HTTP streams get the attempt policy and the circuit; with anyio's own clock they also
        get a :class:`ReadControl`, which the base endpoint attaches to an HTTP/1.1 connection
        so the deadline and an abort reach each later read through the connection itself
        (``control.attached``) instead of through a cancel scope per read. Agentic streams
        get one attempt, bounded as a whole (:meth:`_open_agentic`).
        """
        endpoint = call.endpoint
        local_cap = self._local_cap(call)
        retried = getattr(endpoint, "attempt_policy_options", None) is not None
        if endpoint.is_agentic and not (retried and self._policy is not None):
            return await self._open_agentic(call, lease, budget, local_cap)
        if endpoint.is_agentic:
            # An adapter that opted into an attempt policy (a remote agentic endpoint): its
            # run is retried before its first chunk exactly like an HTTP stream's setup, and
            # each later read is bounded by the abort and the run's limit in one scope: the
            # local cap ends the run as a whole, as it ends any agentic run (a server trickling
            # bytes would otherwise pass every per-read timeout of its transport forever).
            run_limit = _AgenticLimit(budget, local_cap, self._clock)

            def open_run(limit: float | None) -> AsyncIterator[list[StreamChunk]]:
                return endpoint.stream_batches(
                    call.payload, extra_headers=call.headers, timeout=limit, **call.call_kwargs
                )

            remote = await open_stream_with_attempts(
                open_run, call_id=str(call.id), **self._attempt_options(budget, local_cap, trace)
            )
            return remote, None, run_limit

        payload: Mapping[str, Any] = call.payload
        if type(endpoint).stream is Endpoint.stream:  # encoded once, before the circuit permit
            payload = endpoint.encode_payload(payload, stream=True)
        # No deadline on the reads while opening: the first read is bounded by the attempt
        # loop (phase "transport"); the control's deadline is set once the stream is open.
        control = ReadControl(None) if is_native_clock(self._clock) else None

        def open_batches(limit: float | None) -> AsyncIterator[list[StreamChunk]]:
            return endpoint.stream_batches(
                payload,
                extra_headers=call.headers,
                timeout=limit,
                skip_payload_creation=True,
                read_control=control,
            )

        opened = await open_stream_with_attempts(
            open_batches, call_id=str(call.id), **self._attempt_options(budget, local_cap, trace)
        )
        if control is not None:
            control.arm(budget.deadline)
        return opened, control, None

    async def _open_agentic(
        self,
        call: APICalling,
        lease: AdmissionLease,
        budget: RequestBudget,
        local_cap: float | None,
    ) -> tuple[OpenedStream[Any], RunControl | None, _AgenticLimit]:
        """Start one agentic run, bounded as a whole by ``min(local cap, remaining)``.

        Adapters receive the cap as ``local_timeout`` but need not enforce it: the supervisor
        does, so a hung CLI cannot hold its permit past the cap. With anyio's own clock the
        run gets a :class:`RunControl`: the process reader picks it up and the limit becomes one
        timer for the run, which interrupts the pipe read (or the exit wait) in progress, so
        events are read with no scope of their own while a reader holds it; a read made while
        none does (before a process started, after it ended) gets one scope. Expiry
        before the first chunk is phase ``transport``, after it ``stream`` (as for HTTP).
        """
        limit = _AgenticLimit(budget, local_cap, self._clock)
        # Batches, as for HTTP: a CLI run hands up the chunks of one pipe read together.
        inner = call.endpoint.stream_batches(
            call.payload, extra_headers=call.headers, timeout=limit.timeout, **call.call_kwargs
        )
        control = RunControl(limit.until) if is_native_clock(self._clock) else None
        opened: OpenedStream[Any] = OpenedStream(inner, None, None, _NO_RETRY)
        token = set_current_run_control(control) if control is not None else None
        # The first read has two bounds with the same deadline: its scope and, once a process
        # reader took the control, the run's timer. Whichever fires first, the limit passed
        # is the outcome (the timer's interrupt reaches the adapter as a transport error, which
        # it may raise or swallow).
        expired = False
        try:
            opened.first = await self._bounded_read(inner, lease, limit.until)
        except StopAsyncIteration:
            expired = control is not None and control.expired  # ended quietly on the interrupt
        except BaseException as exc:
            await opened.aclose()
            if isinstance(exc, DeadlineReached) or (
                isinstance(exc, Exception) and control is not None and control.expired
            ):
                raise limit.exceeded(str(call.id), "transport") from None
            raise
        finally:
            if token is not None:
                reset_current_run_control(token)
        if expired:
            await opened.aclose()
            raise limit.exceeded(str(call.id), "transport")
        return opened, control, limit

    @staticmethod
    def _settle(control: RunControl, call: APICalling, lease: AdmissionLease) -> None:
        """End a read in which the last process ended; raise if the limit or an abort cut it.

        Runs in the read's ``finally``: the error raised replaces the cancellation the control
        sent (taken back by :meth:`RunControl.settle`), and is handled like any failed read.
        """
        if control.settle():
            if control.aborted:
                raise CallSupervisor._ended_error(call, lease) from None
            raise DeadlineReached from None

    @staticmethod
    def _expire_parked(
        call: APICalling, lease: AdmissionLease, key: str, limit: _AgenticLimit | None
    ) -> None:
        """The stream's limit passed: if the consumer is holding a chunk, the call ends now.

        The control's timer has already stopped the work (shut the connection down, or
        signalled the CLI), but with no read in progress the stream's own failure path runs
        only when the consumer asks for the next chunk, which may be much later or never. Until
        then the call would show as running and hold its concurrency permit, keeping an
        admitted caller waiting on work that no longer exists. So the call is terminated with
        the deadline error here, and the permit released; the next read raises the same typed
        error. With a read in progress (or a chunk hook running) nothing is done here: that
        read fails at once and its path ends the call.
        """
        if lease.parked is None:
            return
        error = (
            RequestDeadlineExceeded(key, "stream")
            if limit is None
            else limit.exceeded(key, "stream")
        )
        call.terminate(outcome_status(error), error=error)
        lease.ended_parked = True
        lease.release()

    @classmethod
    def _parked_end(cls, call: APICalling) -> Exception:
        """What the consumer gets after its call ended while it held a chunk: that call's error.

        A close records `AdmissionClosed` on the call (or has not yet, if it landed between two
        chunks of one batch); the deadline records the typed deadline error.
        """
        recorded = call.exception
        return recorded if isinstance(recorded, Exception) else cls._closed_error(call)

    @staticmethod
    def _abort_parked(call: APICalling) -> None:
        call.terminate(
            EventStatus.ABORTED,
            error=AdmissionClosed(
                f"admission controller closed while call {call.id} waited on its consumer"
            ),
        )

    # -- invoke -----------------------------------------------------------------------------------

    async def invoke(self, call: APICalling, *, budget: RequestBudget | None = None) -> APICalling:
        """Run `call` once; returns it terminal. Provider and hook failures are recorded.

        Admission, the deadline, cancellation and the caller's request errors are raised.
        """
        budget = budget or NO_DEADLINE
        key = self._own(call)
        telemetry = _telemetry.ACTIVE  # the one check per call while telemetry is off
        trace = telemetry.start(call, False) if telemetry is not None else None
        try:
            lease = await self._acquire(call, key, budget, trace)
            # Hooks are awaited only when registered: this path runs once per request.
            registry = call.hook_registry
            try:
                call.mark_processing()
                with lease.abort_scope():
                    if registry is not None:
                        await self._hook(call, HookPhase.PRE_INVOCATION, budget)
                    response = await self._provider_call(call, key, budget, trace)
                    if registry is not None:
                        await self._hook(call, HookPhase.POST_INVOCATION, budget)
            except BaseException as exc:
                call.terminate(outcome_status(exc), error=exc)
                if _is_control_flow(exc):
                    raise
                # otherwise a provider or hook failure: recorded on the returned event
            else:
                call.terminate(EventStatus.COMPLETED, response=response)
            finally:
                lease.release()  # after the terminal status, on every path
        finally:
            self._disown(call, key)
            if trace is not None:
                trace.finish(call)
        return call

    # -- stream -----------------------------------------------------------------------------------

    def stream(
        self, call: APICalling, *, budget: RequestBudget | None = None
    ) -> AsyncGenerator[StreamChunk, None]:
        """Yield `call`'s chunks under admission and the deadline; outcomes as on the class.

        An async generator: nothing runs before the first iteration.
        """
        ready = (call, budget or NO_DEADLINE)

        async def prepared() -> tuple[APICalling, RequestBudget]:
            return ready

        return self._stream(prepared, None)

    def stream_prepared(
        self,
        prepare: Callable[[], Awaitable[tuple[APICalling, RequestBudget]]],
        *,
        done: Callable[[], None] | None = None,
    ) -> AsyncGenerator[StreamChunk, None]:
        """`stream` for a call built on the first iteration by `prepare()`.

        For a facade whose call creation (validation, the pre-event hook) belongs to the
        stream's first step: the facade hands out this generator itself instead of wrapping
        `stream` in a generator of its own, so a chunk crosses one generator, not two.
        `done` runs once the generator ends, on every path (a raise from `prepare` too).
        """
        return self._stream(prepare, done)

    async def _stream(
        self,
        prepare: Callable[[], Awaitable[tuple[APICalling, RequestBudget]]],
        done: Callable[[], None] | None,
    ) -> AsyncGenerator[StreamChunk, None]:
        """The one generator from admission to the provider's batches.

        The provider iterator is read here directly (see :meth:`_open_stream`), so a chunk
        passes through no other layer, and a controlled read (``ReadControl.attached``) enters
        no cancel scope.
        """
        link = done if isinstance(done, StreamLink) else None
        try:
            if link is None:
                call, budget = await prepare()
            else:
                call, budget = await self._prepare_stoppable(prepare, link)
        except BaseException:
            if done is not None:
                done()
            raise
        key = self._own(call) if done is None else self._own_or_done(call, done)
        telemetry = _telemetry.ACTIVE  # the one check per call while telemetry is off
        trace = telemetry.start(call, True) if telemetry is not None else None
        lease: AdmissionLease | None = None
        opened: OpenedStream[Any] | None = None  # batches (HTTP) or chunks (agentic)
        timed: ReadControl | RunControl | None = None  # a control whose timer ends the call
        try:
            if link is not None:
                link._call, link._admission = call, self._admission
                if link._stopped:  # stopped while the call was prepared
                    raise self._stop_noticed(call, key)
            lease = await self._acquire(call, key, budget, trace)
            if link is not None:
                link._lease = lease
                if link._stopped:  # stopped in a wait its admission could not interrupt
                    raise self._stop_noticed(call, key)
            call.mark_processing()
            try:
                with lease.abort_scope():
                    await self._hook(call, HookPhase.PRE_INVOCATION, budget)
                    opened, control, limit = await self._open_stream(call, lease, budget, trace)
                if opened is None:  # only a close (or a stop) ends the scope without a result
                    raise self._ended_error(call, lease)
                if trace is not None:
                    trace.stream_opened()
                # HTTP: a read control the connection took bounds every read (``fast``). Agentic:
                # the run control bounds the reads while a process reader holds it (``live``).
                fast = control is not None and control.attached
                run_control = control if isinstance(control, RunControl) else None
                if fast or run_control is not None:
                    assert control is not None
                    lease.on_abort(control.abort)
                    timed = control
                    control.on_expire = partial(self._expire_parked, call, lease, key, limit)
                registry = call.hook_registry
                hooked = registry is not None and registry.has(HookPhase.ON_CHUNK)
                # A chunk hook or a trace sees every chunk: then each takes the watched path
                # below, as an error chunk does; any other chunk goes straight to the consumer.
                watched = hooked or trace is not None
                on_parked_abort = partial(self._abort_parked, call)
                iterator, item = opened.iterator, opened.first
                # Each read yields a batch: one network read (HTTP) or one pipe read (a CLI).
                until = budget.deadline if limit is None else limit.until
                reading_task: asyncio.Task[Any] | None = None  # RunControl.reading
                while item is not None:
                    # Parked for the whole batch: between two of its chunks nothing awaits, so
                    # a close can only land while a chunk is with the consumer. A chunk hook
                    # and the error chunk run unparked, as the reads do.
                    lease.parked = on_parked_abort
                    try:
                        for chunk in item:
                            if watched or chunk.type == "error":
                                # The provider's error chunk and its typed error, if this is one.
                                failure: StreamChunk | None = None
                                raised: Exception | None = None
                                if chunk.type == "error":
                                    # Redacted before a hook (caller code), the trace or the
                                    # consumer sees it, and classified once: the circuit hears
                                    # the typed error, as invoke()'s does (an auth,
                                    # context-length or content-filter chunk is the caller's,
                                    # not the provider's).
                                    chunk = call.endpoint.redacted_error(chunk)
                                    raised = call.endpoint.stream_error(chunk)
                                    opened.failed(raised)
                                    failure = chunk
                                if hooked:
                                    lease.parked = None
                                    with lease.abort_scope():
                                        chunk = await self._chunk_hook(call, chunk, budget)
                                    lease.parked = on_parked_abort
                                if trace is not None:
                                    trace.chunk(chunk)
                                if chunk.type == "error" or failure is not None:
                                    # The provider reported failure (or the hook wrote an
                                    # error): the batch ends here and nothing more is read.
                                    lease.parked = None
                                    if lease.aborted or lease.ended_parked:
                                        raise self._parked_end(call)  # stopped in the hook
                                    chunk, error = self._error_chunk(call, chunk, failure, raised)
                                    yield chunk
                                    raise error
                            # Closed, or past the deadline, while the consumer paused between
                            # chunks (the call already ended): nothing more of the batch leaves.
                            if lease.aborted or lease.ended_parked:
                                raise self._parked_end(call)
                            yield chunk
                    finally:
                        lease.parked = None
                    if iterator is None:
                        break
                    # No abort scope is open while the consumer holds a chunk, so a close (or the
                    # deadline, which ended the call) that happened meanwhile is noticed here,
                    # before buffered output slips out or a finished read reports success.
                    if lease.aborted or lease.ended_parked:
                        raise self._parked_end(call)
                    try:
                        if run_control is not None:
                            if run_control.live:  # the process reader bounds its pipe reads
                                # Recorded so a process ending inside this read leaves the
                                # rest of it bounded too (RunControl.lingering). Looked up once:
                                # if the consumer moves to another task, the control sees the
                                # mismatch and does not linger.
                                if reading_task is None:
                                    reading_task = run_control.current_task()
                                run_control.reading = reading_task
                                try:
                                    item = await iterator.__anext__()
                                finally:
                                    run_control.reading = None
                                    if run_control.lingering:
                                        self._settle(run_control, call, lease)
                            else:
                                # No reader holds the limit (none started yet, or the last one
                                # ended): bounded here, and offered to a process started now.
                                token = set_current_run_control(run_control)
                                try:
                                    item = await self._bounded_read(iterator, lease, until)
                                finally:
                                    reset_current_run_control(token)
                        elif fast:  # the connection bounds this read
                            item = await iterator.__anext__()
                        else:
                            item = await self._bounded_read(iterator, lease, until)
                    except StopAsyncIteration:
                        if lease.aborted or lease.stopped:
                            raise self._ended_error(call, lease) from None
                        if limit is not None and run_control is not None and run_control.expired:
                            expired = limit.exceeded(key, "stream")  # the adapter swallowed it
                            opened.failed(expired)
                            raise expired from None
                        opened.succeeded()
                        break
                    except DeadlineReached:
                        exc: Exception = (
                            RequestDeadlineExceeded(key, "stream")
                            if limit is None
                            else limit.exceeded(key, "stream")
                        )
                        opened.failed(exc)
                        raise exc from None
                    except Exception as failure:
                        exc = self._read_failure(control, lease, call, key, failure, limit)
                        if not lease.stopped:  # a stop says nothing of the provider's health
                            opened.failed(exc)
                        if exc is failure:
                            raise
                        raise exc from None
            except GeneratorExit:
                call.terminate(EventStatus.CANCELLED)  # consumer aclose(): no error to record
                raise
            except BaseException as exc:
                call.terminate(outcome_status(exc), error=exc)
                raise
            finally:
                lease.on_abort(None)
                if timed is not None:
                    timed.on_expire = None
                if opened is not None:
                    await opened.aclose()
            try:
                with lease.abort_scope():
                    await self._hook(call, HookPhase.POST_INVOCATION, budget)
            except StreamClosed:
                raise  # stopped from another task: the call already ended CANCELLED
            except Exception:
                # Output already reached the consumer: log, do not raise (ADR-0029 D3).
                logger.warning("post_invocation hook failed after stream output", exc_info=True)
            except BaseException as exc:
                # Cancelled (or interrupted) while the hook ran: the call ends as invoke()'s
                # does in the same place, not through the ownership guard as ABORTED.
                call.terminate(outcome_status(exc), error=exc)
                raise
            call.terminate(EventStatus.COMPLETED)
        finally:
            if lease is not None:
                lease.release()  # after the terminal status, on every path
            self._disown(call, key)
            if trace is not None:
                trace.finish(call)
            if done is not None:
                done()

    @staticmethod
    async def _prepare_stoppable(
        prepare: Callable[[], Awaitable[tuple[APICalling, RequestBudget]]], link: StreamLink
    ) -> tuple[APICalling, RequestBudget]:
        """``prepare()`` in a cancel scope a stop from another task cancels (`StreamLink.stop`).

        Preparing runs the caller's ``pre_event_create`` hook, which may await for seconds
        (a policy service, a database): a stop that only waited for it to return held the
        stop button that long. Cancelled, no call exists yet, so there is nothing to end;
        a hook that swallows the cancellation returns a call, which the caller's stop check
        ends CANCELLED before admission. About 3 µs per stream, paid for that promptness.

        Raises:
            StreamClosed: the stop cancelled the preparation (no call was created).
        """
        scope = link._preparing = anyio.CancelScope()
        try:
            with scope:
                return await prepare()
        finally:
            link._preparing = None
        raise StreamClosed("(not created)")  # only the stop cancels this scope

    def _own_or_done(self, call: APICalling, done: Callable[[], None]) -> str:
        try:
            return self._own(call)
        except BaseException:
            done()
            raise

    async def _bounded_read(
        self, iterator: AsyncIterator[T], lease: AdmissionLease, until: float | None
    ) -> T:
        """One read the connection does not bound: the abort and ``until`` in one scope.

        Raises:
            DeadlineReached: ``until`` passed first (the caller raises the typed error).
            AdmissionClosed: the controller closed meanwhile.
        """
        if until is not None and self._clock() >= until:
            # A cancel scope whose deadline has passed fires only at a checkpoint, and a read
            # the source answers from output it already holds never reaches one: the consumer
            # that held a chunk past the deadline got the rest of the stream before the error.
            raise DeadlineReached
        if until is None or is_native_clock(self._clock):
            with lease.abort_scope(until):
                return await iterator.__anext__()
            raise DeadlineReached  # the scope ended the read quietly: only its deadline does
        with lease.abort_scope():
            return await run_before(iterator.__anext__, until, clock=self._clock, sleep=self._sleep)
        raise AdmissionClosed(f"admission controller closed; call {lease.call_id} was aborted")

    @staticmethod
    def _closed_error(call: APICalling) -> AdmissionClosed:
        return AdmissionClosed(f"admission controller closed; active call {call.id} was aborted")

    @staticmethod
    def _ended_error(call: APICalling, lease: AdmissionLease) -> Exception:
        """What a read cut by the lease raises: `StreamClosed` after a stop, else the close's."""
        if lease.stopped:
            return StreamClosed(lease.call_id)
        return CallSupervisor._closed_error(call)

    @staticmethod
    def _stop_noticed(call: APICalling, key: str) -> StreamClosed:
        """A stop noticed outside any lease scope: the call ends CANCELLED with the error."""
        error = StreamClosed(key)
        call.terminate(EventStatus.CANCELLED, error=error)
        return error

    @staticmethod
    def _error_chunk(
        call: APICalling,
        chunk: StreamChunk,
        failure: StreamChunk | None,
        raised: Exception | None,
    ) -> tuple[StreamChunk, Exception]:
        """An error chunk as the consumer sees it, and the error raised after it.

        ``failure`` is the provider's own error chunk (already redacted) and ``raised`` its
        typed error, classified like ``invoke()``'s when it arrived. ``chunk`` is what the chunk
        hook made of it: a hook decides what the consumer is shown, but cannot turn the
        provider's failure into a clean end (the call would be COMPLETED on truncated output,
        with the circuit already told it failed), so a chunk it rewrote as another type is
        yielded and the provider's error raised after it. An error chunk the hook wrote itself
        is redacted and classified as the provider's would be. The call is FAILED here.
        """
        if chunk.type == "error" and chunk is not failure:
            endpoint = call.endpoint
            chunk = endpoint.redacted_error(chunk)
            error: Exception = endpoint.stream_error(chunk)
        else:
            assert raised is not None  # only the provider's error chunk gets here otherwise
            error = raised
        call.terminate(EventStatus.FAILED, error=error)
        return chunk, error

    @staticmethod
    def _read_failure(
        control: ReadControl | RunControl | None,
        lease: AdmissionLease,
        call: APICalling,
        key: str,
        failure: Exception,
        limit: _AgenticLimit | None,
    ) -> Exception:
        """The error a failed controlled read means: a close or the time limit stopped it."""
        if control is None or not (control.attached or control.aborted):
            return failure
        if lease.aborted or control.aborted:
            return CallSupervisor._ended_error(call, lease)
        if control.expired:
            if limit is not None:
                return limit.exceeded(key, "stream")
            return RequestDeadlineExceeded(key, "stream")
        return failure

"""The call supervisor: one lifecycle for ``invoke()`` and ``stream()`` (ADR-0029 D3).

Order for both: own the event -> admission lease -> pre-hook -> provider work -> post-hook ->
terminal status -> cleanup -> release -> disown. Every exit path sets a terminal status before
the event leaves ownership, and the first terminal outcome wins:

- deadline expiry       -> ABORTED,   ``RequestDeadlineExceeded(phase)`` raised
- controller close      -> ABORTED,   ``AdmissionClosed`` raised
- admission refusal     -> ABORTED,   the typed admission error raised
- caller cancellation   -> CANCELLED, the cancellation re-raised
- consumer ``aclose()`` -> CANCELLED, nothing raised
- provider/hook failure -> FAILED;    ``invoke`` returns the event, ``stream`` raises the error
- provider error chunk  -> FAILED,    the chunk yielded once, then ``ProviderStreamError`` raised
                                      (the classified twin, e.g. ``ProviderStreamAuthError``)
"""

from __future__ import annotations

import logging
import random
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from contextlib import aclosing
from functools import partial
from types import MappingProxyType
from typing import Any, TypeVar

from .._base.aio import aclose_shielded
from .._base.chunk import StreamChunk
from .._base.errors import (
    AdmissionClosed,
    AdmissionConflict,
    AdmissionError,
    DeadlinePhase,
    RequestDeadlineExceeded,
)
from .._base.events import EventStatus
from .._base.hooks import DEFAULT_HOOK_CAPS, HookPhase
from .._transport.api_calling import APICalling
from .._transport.http.endpoint import Endpoint
from .admission import Admission
from .attempts import AttemptOptions, call_with_attempts, stream_batches_with_attempts
from .budget import NO_DEADLINE, RequestBudget
from .circuit import CircuitBreaker
from .clock import Clock, Sleep, default_clock, default_sleep
from .deadline import DeadlineReached, run_before
from .lease import AdmissionLease
from .policy import AttemptPolicy

__all__ = ["CallSupervisor", "HookTimeout", "outcome_status"]

logger = logging.getLogger("lionagi.service")

T = TypeVar("T")


def outcome_status(exc: BaseException) -> EventStatus:
    """The terminal status an exception gives a call (module docstring table).

    Admission refusals, the deadline and controller close ABORT (the work was stopped from
    outside the provider); any other ``Exception`` FAILS; cancellation and other
    ``BaseException`` signals CANCEL.
    """
    if isinstance(exc, AdmissionError):
        return EventStatus.ABORTED
    if isinstance(exc, Exception):
        return EventStatus.FAILED
    return EventStatus.CANCELLED


def _is_control_flow(exc: BaseException) -> bool:
    """Errors ``invoke()`` raises instead of recording: admission, deadline, cancellation."""
    return isinstance(exc, AdmissionError) or not isinstance(exc, Exception)


class HookTimeout(TimeoutError):
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
    """Owns calls from creation to removal for one ``iModel``.

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

    async def _acquire(self, call: APICalling, key: str, budget: RequestBudget) -> AdmissionLease:
        try:
            return await self._admission._acquire_as(call, key, budget)
        except BaseException as exc:
            call.terminate(outcome_status(exc), error=exc)
            raise

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
            await run_before(lambda: fn(call), until, clock=self._clock, sleep=self._sleep)
        except DeadlineReached:
            if cap_wins:
                assert cap is not None
                raise HookTimeout(phase, cap) from None
            raise RequestDeadlineExceeded(str(call.id), "hook") from None

    async def _chunk_hook(
        self, call: APICalling, chunk: StreamChunk, budget: RequestBudget
    ) -> StreamChunk:
        """Run the chunk hook inside the request deadline (it has no local cap of its own)."""
        registry = call.hook_registry
        assert registry is not None
        return await self._bounded(
            lambda: registry.on_chunk(call, chunk), budget, "hook", str(call.id)
        )

    def _local_cap(self, call: APICalling) -> float | None:
        return call.timeout if call.timeout is not None else call.endpoint.config.timeout

    async def _provider_call(self, call: APICalling, call_id: str, budget: RequestBudget) -> Any:
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
            attempt, call_id=call_id, **self._attempt_options(budget, local_cap)
        )

    def _attempt_options(self, budget: RequestBudget, local_cap: float | None) -> AttemptOptions:
        """This supervisor's policy, circuit and clock for one HTTP call or stream setup."""
        return {
            "policy": self._policy,
            "breaker": self._breaker,
            "budget": budget,
            "local_cap": local_cap,
            "clock": self._clock,
            "sleep": self._sleep,
            "rng": self._rng,
        }

    def _provider_stream(
        self, call: APICalling, budget: RequestBudget
    ) -> AsyncGenerator[list[StreamChunk], None]:
        """Provider output as non-empty batches, so supervision costs one scope per read."""
        endpoint = call.endpoint
        local_cap = self._local_cap(call)
        if endpoint.is_agentic:
            return self._agentic_stream(call, budget, local_cap)

        payload: Mapping[str, Any] = call.payload
        if type(endpoint).stream is Endpoint.stream:  # encoded once, before the circuit permit
            payload = endpoint.encode_payload(payload, stream=True)

        def open_batches(limit: float | None) -> AsyncIterator[list[StreamChunk]]:
            return endpoint.stream_batches(
                payload,
                extra_headers=call.headers,
                timeout=limit,
                skip_payload_creation=True,
            )

        return stream_batches_with_attempts(
            open_batches, call_id=str(call.id), **self._attempt_options(budget, local_cap)
        )

    async def _agentic_stream(
        self, call: APICalling, budget: RequestBudget, local_cap: float | None
    ) -> AsyncGenerator[list[StreamChunk], None]:
        """One agentic run bounded as a whole by ``min(local cap, remaining)``.

        Adapters receive the cap as ``local_timeout`` but need not enforce it: the supervisor
        does, so a hung CLI cannot hold its permit past the cap. Expiry before the first chunk
        is phase ``transport``, after it ``stream`` (as for HTTP streams).
        """
        limit = _AgenticLimit(budget, local_cap, self._clock)
        inner = call.endpoint.stream(
            call.payload, extra_headers=call.headers, timeout=limit.timeout, **call.call_kwargs
        )
        phase: DeadlinePhase = "transport"
        clock, sleep, until = self._clock, self._sleep, limit.until
        try:
            while True:
                try:
                    chunk = await run_before(inner.__anext__, until, clock=clock, sleep=sleep)
                except StopAsyncIteration:
                    return
                except DeadlineReached:
                    raise limit.exceeded(str(call.id), phase) from None
                phase = "stream"
                yield [chunk]
        finally:
            await aclose_shielded(inner)

    @staticmethod
    def _abort_parked(call: APICalling) -> None:
        call.terminate(
            EventStatus.ABORTED,
            error=AdmissionClosed(
                f"admission controller closed while call {call.id} waited on its consumer"
            ),
        )

    @staticmethod
    def _check_not_aborted(lease: AdmissionLease, call: APICalling) -> None:
        # No abort scope is open while the consumer holds a chunk, so a close that happened
        # meanwhile is noticed here rather than letting buffered output slip out after it.
        if lease.aborted:
            raise AdmissionClosed(f"admission controller closed; active call {call.id} was aborted")

    # -- invoke -----------------------------------------------------------------------------------

    async def invoke(self, call: APICalling, *, budget: RequestBudget | None = None) -> APICalling:
        """Run ``call`` once; returns it terminal. Provider and hook failures are recorded."""
        budget = budget or NO_DEADLINE
        key = self._own(call)
        try:
            lease = await self._acquire(call, key, budget)
            # Hooks are awaited only when registered: this path runs once per request.
            registry = call.hook_registry
            try:
                call.mark_processing()
                with lease.abort_scope():
                    if registry is not None:
                        await self._hook(call, HookPhase.PRE_INVOCATION, budget)
                    response = await self._provider_call(call, key, budget)
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
        return call

    # -- stream -----------------------------------------------------------------------------------

    async def stream(
        self, call: APICalling, *, budget: RequestBudget | None = None
    ) -> AsyncGenerator[StreamChunk, None]:
        """Yield ``call``'s chunks under admission and the deadline; see the module docstring."""
        budget = budget or NO_DEADLINE
        key = self._own(call)
        try:
            lease = await self._acquire(call, key, budget)
            try:
                async with aclosing(self._run_stream(call, lease, budget)) as chunks:
                    async for chunk in chunks:
                        yield chunk
            finally:
                lease.release()
        finally:
            self._disown(call, key)

    async def _run_stream(
        self, call: APICalling, lease: AdmissionLease, budget: RequestBudget
    ) -> AsyncGenerator[StreamChunk, None]:
        call.mark_processing()
        registry = call.hook_registry
        inner: AsyncGenerator[list[StreamChunk], None] | None = None
        try:
            with lease.abort_scope():
                await self._hook(call, HookPhase.PRE_INVOCATION, budget)
            inner = self._provider_stream(call, budget)
            hooked = registry is not None and registry.has(HookPhase.ON_CHUNK)
            on_parked_abort = partial(self._abort_parked, call)
            while True:
                self._check_not_aborted(lease, call)
                with lease.abort_scope():
                    try:
                        batch = await inner.__anext__()
                    except StopAsyncIteration:
                        break
                for chunk in batch:
                    if hooked:
                        with lease.abort_scope():
                            chunk = await self._chunk_hook(call, chunk, budget)
                    if chunk.type == "error":
                        # Provider text (HTTP or CLI) on the one error path: redacted before
                        # it reaches the caller, the exception or a command line.
                        chunk = call.endpoint.redacted_error(chunk)
                        # Classified like invoke()'s: the family twin, fields from the chunk.
                        error = call.endpoint.stream_error(chunk)
                        call.terminate(EventStatus.FAILED, error=error)
                        yield chunk
                        raise error
                    # Closed while the consumer paused between chunks: nothing more leaves.
                    self._check_not_aborted(lease, call)
                    lease.pause(on_parked_abort)
                    try:
                        yield chunk
                    finally:
                        lease.resume()
        except GeneratorExit:
            call.terminate(EventStatus.CANCELLED)  # consumer aclose(): no error to record
            raise
        except BaseException as exc:
            call.terminate(outcome_status(exc), error=exc)
            raise
        finally:
            await aclose_shielded(inner)
        try:
            with lease.abort_scope():
                await self._hook(call, HookPhase.POST_INVOCATION, budget)
        except Exception:
            # Output already reached the consumer: log, do not raise (ADR-0029 D3).
            logger.warning("post_invocation hook failed after stream output", exc_info=True)
        call.terminate(EventStatus.COMPLETED)

"""Cancellation in a stream's post-invocation hook, loop misuse and observability off the loop.

Found by driving the facade as a concurrent application does:

- a caller's timeout landing while a stream's ``post_invocation`` hook ran left the call to the
  ownership guard, which recorded ABORTED with "left ownership non-terminal" (``invoke`` in the
  same place ends CANCELLED);
- ``EventLoopMismatchError`` (an endpoint used from another loop than its own, refused before
  any I/O) counted as a circuit failure, so five misuses opened the circuit and the owner loop's
  next call failed with ``CircuitOpenError``;
- ``admission_snapshot()`` and ``circuit_breaker.state`` raised anyio's ``NoEventLoopError``
  when read outside a loop (a health check), once the loop had started a window or opened the
  circuit.
"""

from __future__ import annotations

import asyncio

import anyio
import pytest

from lionagi.service import (
    CircuitPolicy,
    EventLoopMismatchError,
    EventLoopUnsupportedError,
    EventStatus,
    HookPhase,
    iModel,
)
from lionagi.service._lifecycle.policy import AttemptPolicy
from lionagi.service._lifecycle.retry import counts_as_circuit_failure
from lionagi.service_testing import FakeProviderServer


def test_a_cancellation_in_a_streams_post_hook_ends_cancelled() -> None:
    async def audit(event: object) -> None:  # an audit-log hook slower than the caller's patience
        await anyio.sleep(5)

    async def main() -> tuple[EventStatus, EventStatus]:
        async with iModel(
            model="scripted/demo", hook_registry={HookPhase.POST_INVOCATION.value: audit}
        ) as model:
            streamed = model.create_api_calling(prompt="hello")
            with anyio.move_on_after(0.2):
                async for _ in model.stream(streamed, timeout=30):
                    pass
            invoked = model.create_api_calling(prompt="hello")
            with anyio.move_on_after(0.2):
                await model.invoke(invoked, timeout=30)
            return streamed.status, invoked.status

    assert anyio.run(main) == (EventStatus.CANCELLED, EventStatus.CANCELLED)


def test_using_an_endpoint_from_another_loop_never_opens_the_circuit() -> None:
    # Refused before any I/O, like a request the endpoint refused before sending: the provider's
    # health is not in question, so the owner loop's next call must not meet an open circuit.
    for loop_closed in (True, False):
        exc = EventLoopMismatchError("used from another loop", loop_closed=loop_closed)
        assert counts_as_circuit_failure(exc, AttemptPolicy()) is False
    # Likewise a CLI run under trio, refused before any process starts.
    unsupported = EventLoopUnsupportedError("running a CLI subprocess", "trio")
    assert counts_as_circuit_failure(unsupported, AttemptPolicy()) is False


def test_a_caller_caused_error_chunk_is_neutral_for_the_circuit_as_its_status_is() -> None:
    # A CLI or an in-stream error event reporting an over-long prompt, a bad key, an unknown
    # model or a denied permission: over HTTP the same causes are 4xx statuses, neutral for the
    # circuit; as stream errors they counted, so a burst of over-long prompts opened it.
    from lionagi.service import (
        ProviderStreamAuthError,
        ProviderStreamCapacityError,
        ProviderStreamContextError,
        ProviderStreamError,
        ProviderStreamPermissionError,
        ProviderStreamQuotaError,
        ProviderStreamUnsupportedModelError,
    )

    policy = AttemptPolicy()
    for neutral in (
        ProviderStreamContextError("prompt is too long"),
        ProviderStreamAuthError("invalid api key"),
        ProviderStreamUnsupportedModelError("model is not supported"),
        ProviderStreamPermissionError("auto-denied"),
    ):
        assert counts_as_circuit_failure(neutral, policy) is False, type(neutral).__name__
    for counted in (
        ProviderStreamQuotaError("usage limit reached"),
        ProviderStreamCapacityError("model is at capacity"),
        ProviderStreamError("the provider failed"),
    ):
        assert counts_as_circuit_failure(counted, policy) is True, type(counted).__name__


def test_snapshot_and_circuit_state_answer_outside_the_loop() -> None:
    with FakeProviderServer.running_in_thread() as server:
        model = iModel(
            model="openai/gpt-4.1",
            base_url=server.base_url + "/v1",
            api_key="k-123456789abcdef",
            allow_local_network=True,
            limit_requests=10,
            interval=60,
            default_headers={"x-fake-behaviour": "500"},
            max_retries=1,
            circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=60),
        )

        async def once() -> None:
            await model.invoke(messages=[{"role": "user", "content": "hi"}], timeout=5)
            await model.close()  # the loop's connections go with it; the counters stay

        asyncio.run(once())
        snapshot = model.admission_snapshot()  # a health check, off the loop
        assert snapshot.available_requests == 9
        assert model.circuit_breaker is not None
        assert model.circuit_breaker.state.value == "open"


@pytest.fixture(autouse=True)
def _no_stray_loop() -> None:
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()

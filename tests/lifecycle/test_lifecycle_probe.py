"""Defects an expert user found by probing the HTTP call lifecycle against loopback servers.

Each test drives a real `iModel` against a real loopback server through the public API only.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from lionagi.service import (
    AttemptPolicy,
    CircuitPolicy,
    EventStatus,
    HookRegistry,
    RequestBudget,
    RequestDeadlineExceeded,
    UnsafeURLError,
    iModel,
)
from lionagi.service_testing import FakeProviderServer

pytestmark = pytest.mark.anyio

MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_a_refused_destination_never_opens_the_circuit(mode: str) -> None:
    """The SSRF guard refusing the caller's own base URL says nothing of the provider's health.

    Nothing was sent (the guard refuses before connecting), and the refusal repeats for as long
    as the URL or `allow_local_network` stays as configured. Counted as a provider failure, a
    few such calls opened the circuit, and from then on every call (the copies' too, which
    share the breaker) reported `CircuitOpenError` instead of the refusal that says how to fix
    it, for the whole recovery time.
    """
    async with FakeProviderServer() as server:
        model = iModel(
            model="openai/gpt-4o-mini",
            base_url=f"{server.base_url}/v1",  # loopback, without allow_local_network=True
            api_key="sk-test",
            attempt_policy=AttemptPolicy(max_attempts=2, base_delay=0.01),
            circuit_policy=CircuitPolicy(failure_threshold=1),
        )
        async with model:
            for _ in range(3):
                if mode == "invoke":
                    call = await model.invoke(messages=MESSAGES)
                    assert call.status is EventStatus.FAILED
                    error = call.exception
                else:
                    with pytest.raises(UnsafeURLError) as caught:
                        async for _chunk in model.stream(messages=MESSAGES):
                            pass
                    error = caught.value
                assert isinstance(error, UnsafeURLError), repr(error)
            breaker = model.circuit_breaker
            assert breaker is not None
            assert breaker.state == "closed"
            assert breaker.consecutive_failures == 0
        assert server.requests == []  # nothing was ever sent


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_a_past_deadline_runs_no_pre_create_hook(mode: str) -> None:
    """A budget already spent refuses the call before any caller hook runs.

    The pre-invocation hook is never started once the deadline has passed (the supervisor checks
    before running it); the pre-create hook was: a sync audit hook recorded a call that was then
    refused as "exceeded its deadline during hook", having never been created.
    """
    ran: list[str] = []

    def audit(event_type: Any, kwargs: Any) -> None:
        ran.append("pre_event_create")

    async with FakeProviderServer() as server:
        model = iModel(
            model="openai/gpt-4o-mini",
            base_url=f"{server.base_url}/v1",
            api_key="sk-test",
            allow_local_network=True,
            hook_registry=HookRegistry(pre_event_create=audit),
        )
        async with model:
            spent = RequestBudget(anyio.current_time() - 1.0)
            with pytest.raises(RequestDeadlineExceeded) as caught:
                if mode == "invoke":
                    await model.invoke(messages=MESSAGES, request_budget=spent)
                else:
                    async for _chunk in model.stream(messages=MESSAGES, request_budget=spent):
                        pass
            assert caught.value.phase == "hook"
            assert ran == []
            # The control: with time left the same hook runs once per call.
            await model.invoke(messages=MESSAGES, timeout=10)
            assert ran == ["pre_event_create"]
        assert len(server.requests) == 1

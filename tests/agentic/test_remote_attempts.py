"""An agentic adapter opting into an attempt policy is retried before its first chunk only.

Core change for remote agentic adapters (AG2 NLIP, issue 14): ``attempt_policy_options`` makes
iModel's default policy ``AttemptPolicy(max_attempts=config.max_retries, **options)`` and the
supervisor retries the run's setup like an HTTP stream's. Adapters that do not opt in keep one
attempt per run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, ConfigDict

from lionagi.service import (
    AgenticCapabilities,
    AgenticEndpoint,
    ProviderConnectionError,
    StreamChunk,
    iModel,
)

pytestmark = pytest.mark.anyio


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    prompt: str


class _Flaky(AgenticEndpoint):
    """Fails to connect ``failures`` times, then answers; optionally after a first chunk."""

    capabilities = AgenticCapabilities(
        transport="remote", resumable=False, emits_tool_events=False, reports_usage=False
    )
    request_type: ClassVar[type[BaseModel] | None] = _Request
    supports_invoke = False

    def __init__(self, failures: int, *, after_output: bool = False, **kw: Any) -> None:
        super().__init__(
            {"name": "flaky", "provider": "flaky", "endpoint": "run", "max_retries": 3}, **kw
        )
        self.failures = failures
        self.after_output = after_output
        self.attempts = 0

    async def _stream_agentic(
        self, request: BaseModel, *, runtime_args: dict[str, Any], local_timeout: float | None
    ) -> AsyncIterator[StreamChunk]:
        self.attempts += 1
        if self.after_output:
            yield StreamChunk(type="text", content="partial")
        if self.attempts <= self.failures:
            raise ProviderConnectionError("connect refused")
        yield StreamChunk(type="text", content="ok")


class _Retried(_Flaky):
    attempt_policy_options: ClassVar[Mapping[str, Any] | None] = {"base_delay": 0.0}


async def test_opted_in_adapter_is_retried_before_output() -> None:
    endpoint = _Retried(2)
    chunks = [c async for c in iModel(endpoint=endpoint).stream(prompt="x")]
    assert [c.content for c in chunks] == ["ok"]
    assert endpoint.attempts == 3


async def test_opted_in_adapter_is_not_retried_after_output() -> None:
    endpoint = _Retried(1, after_output=True)
    with pytest.raises(ProviderConnectionError):
        [c async for c in iModel(endpoint=endpoint).stream(prompt="x")]
    assert endpoint.attempts == 1


async def test_other_agentic_adapters_keep_one_attempt() -> None:
    endpoint = _Flaky(1)
    with pytest.raises(ProviderConnectionError):
        [c async for c in iModel(endpoint=endpoint).stream(prompt="x")]
    assert endpoint.attempts == 1


class _Trickling(_Retried):
    """Answers at once, then keeps sending a little, forever: no single read ever times out."""

    async def _stream_agentic(
        self, request: BaseModel, *, runtime_args: dict[str, Any], local_timeout: float | None
    ) -> AsyncIterator[StreamChunk]:
        import anyio

        self.attempts += 1
        while True:
            yield StreamChunk(type="text", content=".")
            await anyio.sleep(0.1)


async def test_the_local_cap_ends_an_opted_in_run_as_a_whole() -> None:
    """The endpoint's timeout bounds the whole remote run, as it does a local one's."""
    import time

    import anyio

    from lionagi.service import RequestDeadlineExceeded

    endpoint_cap = 1.0
    model = iModel(endpoint=_Trickling(0, timeout=endpoint_cap))
    started = time.monotonic()
    with anyio.fail_after(15), pytest.raises(RequestDeadlineExceeded) as info:
        async for _ in model.stream(prompt="x"):
            pass
    assert info.value.local_cap == endpoint_cap
    assert time.monotonic() - started < endpoint_cap + 3.0
    await model.close()

"""An agentic ``invoke()`` is one run, even when it ends on a retryable stream-family error.

``is_retryable`` now judges a stream-family error by its family (the capacity and quota twins
are retried), so ``invoke()`` of an HTTP endpoint retries an overloaded 2xx body. An agentic run
must not follow: by the time its terminal result reports "overloaded" the agent may already have
run tools (written files, sent requests), and a second run repeats them. These tests pin that
the agentic one-shot path stays a single attempt, for an adapter that opted into an attempt
policy for its stream setup too, and whether the failure came as an error chunk after a tool
call or was raised before any chunk.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, ConfigDict

from lionagi.service import (
    AgenticCapabilities,
    AgenticEndpoint,
    EventStatus,
    ProviderCapacityError,
    ProviderQuotaError,
    ProviderStreamCapacityError,
    StreamChunk,
    iModel,
)

pytestmark = pytest.mark.anyio


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    prompt: str


class _Overloaded(AgenticEndpoint):
    """A run that calls a tool, then ends on the model's "overloaded" (or raises it at once)."""

    capabilities = AgenticCapabilities(
        transport="remote", resumable=False, emits_tool_events=True, reports_usage=False
    )
    request_type: ClassVar[type[BaseModel] | None] = _Request
    supports_invoke = True
    # Opted in: its stream's setup is retried, so a policy exists on the model.
    attempt_policy_options: ClassVar[Mapping[str, Any] | None] = {"base_delay": 0.0}

    def __init__(self, *, raise_first: bool = False, error: Exception | None = None) -> None:
        super().__init__(
            {"name": "overloaded", "provider": "overloaded", "endpoint": "run", "max_retries": 3}
        )
        self.raise_first = raise_first
        self.error = error
        self.runs = 0
        self.tool_calls = 0

    async def _stream_agentic(
        self, request: BaseModel, *, runtime_args: dict[str, Any], local_timeout: float | None
    ) -> AsyncIterator[StreamChunk]:
        self.runs += 1
        if self.error is not None:
            raise self.error
        self.tool_calls += 1  # the side effect a second run would repeat
        yield StreamChunk(type="tool_use", tool_name="write_file", tool_id=f"t{self.runs}")
        yield StreamChunk(type="error", content="The model is overloaded", is_error=True)


async def test_an_agentic_invoke_ending_overloaded_after_a_tool_call_is_one_run() -> None:
    endpoint = _Overloaded()
    async with iModel(endpoint=endpoint) as model:
        call = await model.invoke(prompt="x")
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderStreamCapacityError), repr(call.exception)
    assert call.exception.retryable  # the family says "retry later": the caller decides
    assert (endpoint.runs, endpoint.tool_calls) == (1, 1)


@pytest.mark.parametrize(
    "error",
    [
        ProviderStreamCapacityError("The model is overloaded"),
        ProviderCapacityError("model at capacity"),
        ProviderQuotaError("rate limit exceeded"),
    ],
    ids=lambda e: type(e).__name__,
)
async def test_an_agentic_invoke_raising_a_retryable_family_is_one_run(error: Exception) -> None:
    endpoint = _Overloaded(error=error)
    async with iModel(endpoint=endpoint) as model:
        call = await model.invoke(prompt="x")
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is type(error)
    assert endpoint.runs == 1

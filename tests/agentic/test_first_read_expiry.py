"""The run's limit passing during the first read is a deadline, whichever bound notices it.

The first read of an agentic run has two bounds with the same deadline: the supervisor's scope
around it and, once the process reader took the run control, the run's own timer. When the
timer wins, the adapter sees its pipe read interrupted (a transport error) and may raise it or
end quietly; either way the caller must get the typed deadline error in phase ``transport``,
not the transport error and not an empty successful stream.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from lionagi.service import (
    EventStatus,
    ProviderConnectionError,
    RequestDeadlineExceeded,
    StreamChunk,
    iModel,
)
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

HANG_GUARD = 10.0


class _Quiet(ReferenceCliEndpoint):
    """Ends its stream quietly when its process reader is interrupted."""

    async def _stream_agentic(
        self, request: BaseModel, *, runtime_args: dict[str, Any], local_timeout: float | None
    ) -> AsyncIterator[StreamChunk]:
        run = super()._stream_agentic(
            request, runtime_args=runtime_args, local_timeout=local_timeout
        )
        try:
            async for chunk in run:
                yield chunk
        except ProviderConnectionError:
            return


@pytest.fixture
def timer_first(taken_controls: Callable[..., list[Any]]) -> list[Any]:
    """The run's timer fires as soon as a reader takes the control, long before the scope's."""
    return taken_controls(lambda control: asyncio.get_running_loop().call_soon(control._expire))


@pytest.mark.parametrize("endpoint_type", [ReferenceCliEndpoint, _Quiet])
async def test_the_run_timer_winning_the_first_read_is_a_transport_deadline(
    replay: Any, alive: Any, timer_first: list[Any], endpoint_type: type[ReferenceCliEndpoint]
) -> None:
    replay.write(events=[], stall=True)
    model = iModel(endpoint=endpoint_type(argv=replay.argv, terminate_grace=0.2))
    call = model.create_api_calling(prompt="hang")
    async with model:
        with anyio.fail_after(HANG_GUARD), pytest.raises(RequestDeadlineExceeded) as info:
            async for _ in model.stream(call, timeout=60):
                pass
        assert info.value.phase == "transport"
        assert len(timer_first) == 1 and timer_first[0].expired
        assert call.status is EventStatus.ABORTED
        assert model.admission_snapshot().active == 0
        # The child is interrupted before it may even have logged its start: any it did is gone.
        assert not any(alive(entry["launched"]) for entry in replay.launches())

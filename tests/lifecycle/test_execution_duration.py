"""``Execution.duration`` is the time a call ran, from its admission to its terminal status.

A call that ended in the admission queue never ran: its duration is None (documented on
``Execution``), not the queue wait, which the admission-wait metric and the deadline error's
phase report instead.
"""

from __future__ import annotations

import anyio
import pytest

from lionagi.service import EventStatus, RequestDeadlineExceeded, iModel


def test_duration_counts_from_admission_and_is_none_for_a_call_that_never_ran() -> None:
    async def main() -> None:
        async with iModel(model="scripted/demo", concurrency_limit=1) as model:
            holder = model.create_api_calling(prompt="a b c d e f")
            stream = model.stream(holder, timeout=30)
            async for _ in stream:
                break  # holds the only permit while the second call queues
            queued = model.create_api_calling(prompt="next")
            with pytest.raises(RequestDeadlineExceeded) as expired:
                await model.invoke(queued, timeout=0.2)
            assert expired.value.phase == "concurrency"
            assert queued.is_terminal
            assert queued.execution.duration is None
            await stream.aclose()
            ran = await model.invoke(prompt="next", timeout=30)
            assert ran.status is EventStatus.COMPLETED
            assert ran.execution.duration is not None and ran.execution.duration >= 0
            assert holder.execution.duration is not None  # admitted, then cancelled

    anyio.run(main)

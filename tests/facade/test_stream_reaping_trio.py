"""Under anyio's trio backend a stream dropped partway is reaped soon after it is collected.

Before, the facade's reaper scheduled itself only on a running asyncio loop: under trio a
dropped stream kept its call PROCESSING and its admission permit until ``iModel.close()``, so
with a concurrency limit every later call waited out its deadline. The registry holds the
generator strongly (so ``close()`` can reap it), which also kept trio's own async-generator
finalizer from ever running it.
"""

from __future__ import annotations

import gc
import os

import anyio
import pytest

from lionagi.service import EventStatus, iModel

if os.environ.get("LIONAGI_REQUIRE_TRIO") != "1":
    # trio is its own dependency group (anyio's plugin would run every async test under each
    # installed backend); .ci/run installs it and runs this file with the variable set.
    pytest.importorskip("trio", reason="the trio group is not installed (see .ci/run)")


def test_a_dropped_stream_is_reaped_under_trio() -> None:
    async def main() -> tuple[EventStatus, int, EventStatus]:
        async with iModel(model="scripted/demo", concurrency_limit=1) as model:
            call = model.create_api_calling(prompt="a b c d e f")
            async for _ in model.stream(call, timeout=30):
                break  # the consumer stops early and never calls aclose()
            gc.collect()
            # The only permit is the dropped stream's: the next call is admitted once the
            # reaper released it (before, it waited out its deadline).
            following = await model.invoke(prompt="next", timeout=5)
            return call.status, model.admission_snapshot().active, following.status

    assert anyio.run(main, backend="trio") == (EventStatus.CANCELLED, 0, EventStatus.COMPLETED)

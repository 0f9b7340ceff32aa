"""A stream waiting for a shared (Redis) permit leaves the line when closed from another task.

The shared controller queues a call in this process's line, or asks Redis in a loop; a stream
closed with ``aclose()`` from another task while it waits there must give its place back at
once, end CANCELLED and raise ``StreamClosed`` to its read, as with the in-process controller
(``tests/facade/test_stream_stop.py``), and the permit it never got must not leak.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import anyio
import pytest

from lionagi.service import EventStatus, SharedAdmission, StreamClosed, iModel
from lionagi.service_testing.fake_clis import fake_cli_argv
from lionagi.service_testing.redis_server import RedisServer
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

pytestmark = pytest.mark.anyio


async def test_a_stream_queued_for_a_shared_permit_leaves_when_closed_from_another_task(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": [{"type": "text", "content": "a"}], "stall": True}))
    model = iModel(
        endpoint=ReferenceCliEndpoint(argv=fake_cli_argv("replay", str(plan)), terminate_grace=0.5),
        concurrency_limit=1,
        admission_backend=SharedAdmission(url=redis_server.url, key="stream-stop"),
    )
    async with model:
        holder = model.stream(prompt="holds the only permit")
        await holder.__anext__()
        call = model.create_api_calling(prompt="queued")
        queued = model.stream(call)
        raised: list[BaseException] = []

        async def consume() -> None:
            try:
                async for _ in queued:
                    pass
            except Exception as exc:
                raised.append(exc)

        with anyio.fail_after(20):
            async with anyio.create_task_group() as tg:
                tg.start_soon(consume)
                await anyio.sleep(0.3)  # the consumer waits for the permit
                assert not raised
                start = time.monotonic()
                await queued.aclose()
                assert time.monotonic() - start < 2.0
        assert [type(e) for e in raised] == [StreamClosed]
        assert call.status is EventStatus.CANCELLED
        await holder.aclose()
        # The permit the holder gave back is free: a new call gets it at once.
        again = model.stream(prompt="after")
        with anyio.fail_after(5):
            first = await again.__anext__()
        assert first.content == "a"
        await again.aclose()

"""``ModelStream.aclose()`` from another task stops a stream whose consumer is mid-read.

A "stop" button runs ``await stream.aclose()`` in its own task while the consumer task sits in
``async for chunk in stream`` (waiting on the network, a CLI's pipe, or admission). The
generator is running there, so a plain async generator refuses: ``aclose()`` raised
``RuntimeError: aclose(): asynchronous generator is already running`` and the call went on (the
CLI kept running, the connection stayed open, the permit stayed taken) until the consumer was
cancelled. Now the close stops the call as ``iModel.close()`` stops every call, but for this
call only: the work is stopped and cleaned up, the call ends CANCELLED (not ABORTED: the model
is still open), the consumer's pending read raises ``StreamClosed`` (a typed error, not the end
of iteration, which would pass for a complete answer) and ``aclose()`` returns once the
generator has finished.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from lionagi.service import EventStatus, StreamClosed, iModel
from lionagi.service_testing import scripted_stream_server
from lionagi.service_testing.fake_clis import fake_cli_argv
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

STOP_BOUND = 1.0  # the stop must be prompt, not wait out a stall
HANG_GUARD = 20.0


def _sse(text: str) -> bytes:
    body = {
        "id": "c",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}],
    }
    return f"data: {json.dumps(body)}\n\n".encode()


def _http_model(url: str) -> iModel:
    return iModel(
        provider="somegateway",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url=url,
        api_key="k-stop-0123456789abcdef",
        allow_local_network=True,
        request_defaults={"model": "m"},
        concurrency_limit=1,
    )


def _cli_model(tmp_path: Path, children: int = 1) -> tuple[iModel, Path]:
    """A fake CLI that prints one event, starts ``children`` grandchildren, then stalls."""
    log = tmp_path / "launch.jsonl"
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            {
                "events": [{"type": "text", "content": "a"}],
                "stall": True,
                "children": children,
                "log": str(log),
            }
        ),
        encoding="utf-8",
    )
    endpoint = ReferenceCliEndpoint(argv=fake_cli_argv("replay", str(plan)), terminate_grace=0.5)
    return iModel(endpoint=endpoint, concurrency_limit=1), log


def _pids(log: Path) -> list[int]:
    pids: list[int] = []
    for line in log.read_text().splitlines():
        record = json.loads(line)
        if "launched" in record:
            pids.append(record["launched"])
        pids.extend(record.get("children", []))
    return pids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def _stop_mid_read(stream: AsyncIterator[Any], *, chunks_first: int) -> list[BaseException]:
    """Consume ``stream`` in a task; once it waits past ``chunks_first`` chunks, close it here.

    Returns what the consumer's read raised. The close must return within ``STOP_BOUND``.
    """
    raised: list[BaseException] = []
    seen = anyio.Event() if chunks_first else None
    count = 0

    async def consume() -> None:
        nonlocal count
        try:
            async for _ in stream:
                count += 1
                if seen is not None and count == chunks_first:
                    seen.set()
        except Exception as exc:
            raised.append(exc)

    with anyio.fail_after(HANG_GUARD):
        async with anyio.create_task_group() as tg:
            tg.start_soon(consume)
            if seen is not None:
                await seen.wait()
            await anyio.sleep(0.2)  # the consumer is back inside its next read, which stalls
            assert not raised
            start = time.monotonic()
            await stream.aclose()  # type: ignore[attr-defined]
            assert time.monotonic() - start < STOP_BOUND
            assert raised, "aclose() returned before the consumer's read ended"
    return raised


async def test_closing_an_http_stream_from_another_task_stops_its_read() -> None:
    async with (
        scripted_stream_server([_sse("Par"), _sse("is")], pause=30) as server,
        _http_model(server.url) as model,
    ):
        call = model.create_api_calling(messages=[{"role": "user", "content": "x"}])
        stream = model.stream(call)
        raised = await _stop_mid_read(stream, chunks_first=1)

        assert [type(e) for e in raised] == [StreamClosed]
        assert call.status is EventStatus.CANCELLED
        assert model.admission_snapshot().active == 0
        assert not model._streams._live
        with pytest.raises(StopAsyncIteration):
            await stream.__anext__()  # closed, as a closed generator is
        await stream.aclose()  # idempotent

        # The permit went back: a concurrency_limit=1 model admits the next call at once.
        nxt = model.stream(messages=[{"role": "user", "content": "y"}])
        with anyio.fail_after(STOP_BOUND):
            first = await nxt.__anext__()
        assert first.content == "Par"
        await nxt.aclose()
        assert not model.closed


async def test_closing_a_cli_stream_from_another_task_reaps_its_process_tree(
    tmp_path: Path,
) -> None:
    model, log = _cli_model(tmp_path)
    async with model:
        call = model.create_api_calling(prompt="keep going")
        stream = model.stream(call)
        raised = await _stop_mid_read(stream, chunks_first=1)

        assert [type(e) for e in raised] == [StreamClosed]
        assert call.status is EventStatus.CANCELLED
        pids = _pids(log)
        assert len(pids) == 2  # the CLI and its grandchild
        assert [pid for pid in pids if _alive(pid)] == []
        assert model.admission_snapshot().active == 0

        second = model.stream(prompt="again")
        with anyio.fail_after(STOP_BOUND * 3):  # a process start, not a queue wait
            first = await second.__anext__()
        assert first.content == "a"
        await second.aclose()
        assert [pid for pid in _pids(log) if _alive(pid)] == []


async def test_closing_a_stream_still_waiting_in_admission_leaves_the_queue(
    tmp_path: Path,
) -> None:
    model, log = _cli_model(tmp_path, children=0)
    async with model:
        holder = model.stream(prompt="holds the only permit")
        await holder.__anext__()
        call = model.create_api_calling(prompt="queued")
        queued = model.stream(call)
        raised = await _stop_mid_read(queued, chunks_first=0)

        assert [type(e) for e in raised] == [StreamClosed]
        assert call.status is EventStatus.CANCELLED
        snapshot = model.admission_snapshot()
        assert (snapshot.queued, snapshot.active) == (0, 1)
        assert len(_pids(log)) == 1  # the queued call never started a process
        await holder.aclose()
        assert model.admission_snapshot().active == 0
        assert [pid for pid in _pids(log) if _alive(pid)] == []


async def test_closing_from_the_consuming_task_is_unchanged() -> None:
    """Between two reads the generator is suspended: aclose() ends it as before, no error."""
    async with (
        scripted_stream_server([_sse("Par"), _sse("is")], pause=30) as server,
        _http_model(server.url) as model,
    ):
        call = model.create_api_calling(messages=[{"role": "user", "content": "x"}])
        stream = model.stream(call)
        await stream.__anext__()
        with anyio.fail_after(STOP_BOUND):
            await stream.aclose()
        assert call.status is EventStatus.CANCELLED
        assert call.execution.exception is None
        assert model.admission_snapshot().active == 0

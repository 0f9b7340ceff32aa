"""A CLI run's chunks travel in batches per pipe read (issue 15, agentic stream path).

The process reader hands each read's events over as one list (``JsonEventStream.blocks``),
the run loop turns a read into lists of chunks of at most 128 events (``ChunkBatches``), the
contract guard checks a list and ``AgenticEndpoint.stream_batches`` gives the lists to the
supervisor. What a
consumer sees is unchanged: every chunk in order, the chunks before a violation or a parse
error delivered before the error, a close while a chunk is held ending the call.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import anyio
import pytest

from lionagi.service import (
    AdmissionClosed,
    EventStatus,
    ProviderProtocolError,
    StreamChunk,
    iModel,
)
from lionagi.service.agentic import ChunkBatches, JsonFramer, json_events_from_process
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

BOUND = 30.0  # "did not hang" only

_ONE_WRITE = (
    "import sys\n"
    "sys.stdout.write(sys.argv[1])\n"  # every event in one write: one pipe read on our side
    "sys.stdout.flush()\n"
)


def one_write(lines: Sequence[dict[str, Any] | str]) -> list[str]:
    """argv of a child printing ``lines`` (objects as JSON, strings raw) in one write."""
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    return [sys.executable, "-I", "-S", "-c", _ONE_WRITE, text]


def texts(n: int) -> list[dict[str, Any]]:
    return [{"type": "text", "content": f"t{i}", "delta": True} for i in range(n)]


async def test_the_supervisor_reads_a_cli_run_one_batch_per_pipe_read() -> None:
    endpoint = ReferenceCliEndpoint(argv=one_write([*texts(50), {"type": "result"}]))
    batches: list[int] = []
    original = endpoint.stream_batches

    def counted(*args: Any, **kwargs: Any) -> Any:
        async def gen() -> Any:
            async for batch in original(*args, **kwargs):
                batches.append(len(batch))
                yield batch

        return gen()

    endpoint.stream_batches = counted  # type: ignore[method-assign]
    async with iModel(endpoint=endpoint) as model:
        with anyio.fail_after(BOUND):
            chunks = [c async for c in model.stream(prompt="go")]
    assert [c.content for c in chunks if c.type == "text"] == [f"t{i}" for i in range(50)]
    assert chunks[-1].type == "result"
    assert sum(batches) == 51
    assert len(batches) < 51, batches  # one list per read, not one per chunk


async def test_stream_batches_hands_over_the_adapter_batches() -> None:
    endpoint = ReferenceCliEndpoint(argv=one_write(texts(20)))
    with anyio.fail_after(BOUND):
        batches = [b async for b in endpoint.stream_batches({"prompt": "go"})]
    assert all(isinstance(b, list) and b for b in batches)
    assert [c.content for b in batches for c in b] == [f"t{i}" for i in range(20)]
    assert len(batches) < 20


async def test_a_large_read_is_handed_up_in_lists_of_at_most_128_events() -> None:
    # One write of 1,000 events arrives in a few reads of hundreds of events each. Handed up
    # whole, every chunk of a read stayed alive until the consumer took the last one, and the
    # young-generation collector ran several times per read (issue 15: 15 % of the per-event
    # cost). The lists are cut at 128 events; order and content are unchanged.
    endpoint = ReferenceCliEndpoint(argv=one_write([*texts(1000), {"type": "result"}]))
    with anyio.fail_after(BOUND):
        batches = [b async for b in endpoint.stream_batches({"prompt": "go"})]
    sizes = [len(b) for b in batches]
    assert max(sizes) <= 128, sizes
    assert [c.content for b in batches for c in b if c.type == "text"] == [
        f"t{i}" for i in range(1000)
    ]
    assert batches[-1][-1].type == "result"
    assert len(batches) < 1001 // 32  # still batches, not one list per chunk


async def test_endpoint_stream_is_per_chunk_and_offers_the_batches() -> None:
    endpoint = ReferenceCliEndpoint(argv=one_write(texts(5)))
    stream = endpoint.stream({"prompt": "go"})
    assert isinstance(stream, ChunkBatches)
    with anyio.fail_after(BOUND):
        assert [c.content async for c in stream] == [f"t{i}" for i in range(5)]
        with pytest.raises(RuntimeError, match="chunk by chunk"):
            stream.batches()  # one way of reading per stream


async def test_event_blocks_deliver_the_events_before_a_framing_error_first() -> None:
    argv = one_write([*texts(3), "not json"])
    with anyio.fail_after(BOUND):
        async with json_events_from_process(argv) as events:
            blocks = events.blocks()
            first = await blocks.__anext__()
            assert [e["content"] for e in first] == ["t0", "t1", "t2"]
            with pytest.raises(ProviderProtocolError, match="malformed JSON"):
                await blocks.__anext__()
        # per event: the same three, then the same error
        seen: list[str] = []
        with pytest.raises(ProviderProtocolError, match="malformed JSON"):
            async with json_events_from_process(argv) as events:
                async for event in events:
                    seen.append(event["content"])
                    with pytest.raises(RuntimeError, match="event by event"):
                        events.blocks()
    assert seen == ["t0", "t1", "t2"]


async def test_a_violation_inside_a_batch_cuts_it_there() -> None:
    lines = [*texts(2), {"type": "result"}, {"type": "text", "content": "late"}, *texts(3)]
    endpoint = ReferenceCliEndpoint(argv=one_write(lines))
    got: list[list[StreamChunk]] = []
    with anyio.fail_after(BOUND):
        with pytest.raises(ProviderProtocolError, match="at chunk 3: text chunk after the result"):
            async for batch in endpoint.stream_batches({"prompt": "go"}):
                got.append(batch)
    assert [[c.type for c in b] for b in got] == [["text", "text", "result"]]

    async with iModel(endpoint=ReferenceCliEndpoint(argv=one_write(lines))) as model:
        seen: list[str] = []
        with anyio.fail_after(BOUND):
            with pytest.raises(ProviderProtocolError, match="text chunk after the result"):
                async for chunk in model.stream(prompt="go"):
                    seen.append(chunk.type)
    assert seen == ["text", "text", "result"]


async def test_a_violation_after_earlier_reads_names_its_place_in_the_run(replay: Any) -> None:
    """Plain batches pass on the cheap test, yet still count toward the chunk number reported."""
    events = [*texts(4), {"type": "result"}, {"type": "text", "content": "late"}]
    replay.write(events=events, event_pause=0.01)  # one event per pipe read: one batch each
    endpoint = ReferenceCliEndpoint(argv=replay.argv)
    sizes: list[int] = []
    with anyio.fail_after(BOUND):
        with pytest.raises(ProviderProtocolError, match="at chunk 5: text chunk after the result"):
            async for batch in endpoint.stream_batches({"prompt": "go"}):
                sizes.append(len(batch))
    assert sum(sizes) == 5 and len(sizes) > 1


async def test_a_parse_error_inside_a_batch_comes_after_the_chunks_before_it() -> None:
    lines = [*texts(2), {"type": "banner", "content": "?"}, *texts(2)]
    seen: list[str | None] = []
    async with iModel(endpoint=ReferenceCliEndpoint(argv=one_write(lines))) as model:
        with anyio.fail_after(BOUND):
            with pytest.raises(ProviderProtocolError, match="unknown event type 'banner'"):
                async for chunk in model.stream(prompt="go"):
                    seen.append(chunk.content)
    assert seen == ["t0", "t1"]


async def test_on_text_sees_each_text_once_in_order() -> None:
    heard: list[str] = []
    endpoint = ReferenceCliEndpoint(argv=one_write([*texts(4), {"type": "result"}]))
    async with iModel(endpoint=endpoint) as model:
        with anyio.fail_after(BOUND):
            chunks = [c async for c in model.stream(prompt="go", on_text=heard.append)]
    assert heard == [f"t{i}" for i in range(4)] == [c.content for c in chunks if c.type == "text"]


async def test_an_error_chunk_ends_the_batch_and_the_run() -> None:
    lines = [*texts(2), {"type": "error", "message": "quota exceeded", "kind": "quota"}, *texts(2)]
    seen: list[str] = []
    async with iModel(endpoint=ReferenceCliEndpoint(argv=one_write(lines))) as model:
        call = model.create_api_calling(prompt="go")
        with anyio.fail_after(BOUND):
            with pytest.raises(Exception) as info:
                async for chunk in model.stream(call):
                    seen.append(chunk.type)
    assert seen == ["text", "text", "error"]
    assert type(info.value).__name__.startswith("ProviderStream")
    assert call.status is EventStatus.FAILED


async def test_a_close_while_a_chunk_of_a_batch_is_held_ends_the_call() -> None:
    model = iModel(endpoint=ReferenceCliEndpoint(argv=one_write(texts(10))))
    call = model.create_api_calling(prompt="go")
    seen: list[str | None] = []
    with anyio.fail_after(BOUND):
        with pytest.raises(AdmissionClosed):
            async for chunk in model.stream(call):
                seen.append(chunk.content)
                if len(seen) == 2:
                    await model.close()  # the rest of this batch is already read
    assert seen == ["t0", "t1"]
    assert call.status is EventStatus.ABORTED
    assert model.admission_snapshot().active == 0


def test_framer_appends_a_blocks_objects_and_keeps_those_before_a_bad_value() -> None:
    framer = JsonFramer()
    out: list[dict[str, Any]] = []
    framer.feed_into(b'{"a": 1}\n{"b": 2}\n{"c"', out)
    assert out == [{"a": 1}, {"b": 2}]  # the cut value waits for the next block
    framer.feed_into(b": 3}\n", out)
    assert out[-1] == {"c": 3}
    out.clear()
    with pytest.raises(ProviderProtocolError, match="expected a JSON object"):
        framer.feed_into(b'{"d": 4}\n[5]\n', out)
    assert out == [{"d": 4}]
    tail: list[dict[str, Any]] = []
    JsonFramer().close_into(tail)
    assert tail == []

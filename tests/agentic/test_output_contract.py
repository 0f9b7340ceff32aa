"""enforce_agentic_contract: each D3 violation is caught; the inner iterator is always closed."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from lionagi.service import (
    AgenticCapabilities,
    ProviderProtocolError,
    ProviderQuotaError,
    StreamChunk,
)
from lionagi.service.agentic import enforce_agentic_contract

RESUMABLE = AgenticCapabilities("subprocess", True, True, True)
NOT_RESUMABLE = AgenticCapabilities("in_process", False, True, False)


class Recorder:
    """An inner async generator that records how far it got and whether it was closed."""

    def __init__(self, items: list[Any], *, fail_with: BaseException | None = None) -> None:
        self.items = items
        self.fail_with = fail_with
        self.closed = False
        self.yielded = 0

    async def gen(self) -> AsyncIterator[Any]:
        try:
            for item in self.items:
                self.yielded += 1
                yield item
            if self.fail_with is not None:
                raise self.fail_with
        finally:
            self.closed = True


async def drain(
    it: AsyncIterator[StreamChunk], into: list[StreamChunk] | None = None
) -> list[StreamChunk]:
    out = [] if into is None else into
    async for chunk in it:
        out.append(chunk)
    return out


def text(content: str = "t") -> StreamChunk:
    return StreamChunk("text", content)


ERROR = StreamChunk("error", "boom", is_error=True)
RESULT = StreamChunk("result")

VIOLATIONS: list[tuple[str, list[Any], str]] = [
    ("chunk after error", [text(), ERROR, text()], "after an error chunk"),
    ("system after error", [ERROR, StreamChunk("system")], "after an error chunk"),
    ("two results", [RESULT, StreamChunk("result")], "more than one result"),
    ("text after result", [RESULT, text()], "text chunk after the result"),
    ("thinking after result", [RESULT, StreamChunk("thinking", "hm")], "thinking chunk after"),
    (
        "tool_use after result",
        [RESULT, StreamChunk("tool_use", tool_name="Bash", tool_id="1")],
        "tool_use chunk after",
    ),
    (
        "tool_result after result",
        [RESULT, StreamChunk("tool_result", tool_id="1")],
        "tool_result chunk after",
    ),
    ("error without is_error", [StreamChunk("error", "boom")], "is_error=False"),
    ("text with is_error", [StreamChunk("text", "x", is_error=True)], "is_error=True"),
    ("result with is_error", [StreamChunk("result", is_error=True)], "is_error=True"),
    ("system with content", [StreamChunk("system", "assistant words")], "system chunk carries"),
    ("not a chunk", [{"type": "text", "content": "raw dict"}], "not a StreamChunk"),
    ("unknown type", [StreamChunk("banner", "x")], "unknown chunk type"),  # type: ignore[arg-type]
    ("tool_use without name", [StreamChunk("tool_use", tool_id="1")], "without tool_name"),
]


@pytest.mark.parametrize(
    ("items", "reason"), [v[1:] for v in VIOLATIONS], ids=[v[0] for v in VIOLATIONS]
)
async def test_each_violation_raises_and_closes_the_inner_iterator(
    items: list[Any], reason: str
) -> None:
    inner = Recorder([*items, text("never reached")])
    seen: list[StreamChunk] = []
    with pytest.raises(ProviderProtocolError, match=reason):
        await drain(enforce_agentic_contract(inner.gen(), capabilities=RESUMABLE), seen)
    assert inner.closed
    assert seen == items[:-1]  # everything before the offending item passed through
    assert inner.yielded == len(items)  # nothing pulled after the violation


async def test_session_id_on_non_resumable_adapter_must_be_provider_session_id() -> None:
    bad = Recorder([StreamChunk("system", metadata={"session_id": "abc"})])
    with pytest.raises(ProviderProtocolError, match="provider_session_id"):
        await drain(enforce_agentic_contract(bad.gen(), capabilities=NOT_RESUMABLE))
    assert bad.closed

    good_items = [
        StreamChunk("system", metadata={"provider_session_id": "abc"}),
        StreamChunk("result", metadata={"provider_session_id": "abc"}),
    ]
    good = Recorder(good_items)
    assert (
        await drain(enforce_agentic_contract(good.gen(), capabilities=NOT_RESUMABLE)) == good_items
    )
    resumable = Recorder([StreamChunk("system", metadata={"session_id": "abc"})])
    assert len(await drain(enforce_agentic_contract(resumable.gen(), capabilities=RESUMABLE))) == 1


async def test_a_conforming_stream_passes_through_unchanged() -> None:
    items = [
        StreamChunk("system", metadata={"session_id": "s", "model": "m"}),
        StreamChunk("thinking", "plan"),
        StreamChunk("text", "Hel", is_delta=True),
        StreamChunk("text", "lo", is_delta=True),
        StreamChunk("tool_use", tool_name="Bash", tool_id="t1", tool_input={"cmd": "ls"}),
        StreamChunk("tool_result", tool_id="t1", tool_output="denied", is_error=True),
        StreamChunk("result", metadata={"usage": {"output_tokens": 3}}),
        StreamChunk("system", metadata={"model": "m2"}),
        StreamChunk("error", "provider failed", is_error=True),
    ]
    inner = Recorder(items)
    out = await drain(enforce_agentic_contract(inner.gen(), capabilities=RESUMABLE))
    assert out == items
    assert all(a is b for a, b in zip(out, items, strict=True))
    assert inner.closed


async def test_empty_stream_is_normal_eof() -> None:
    inner = Recorder([])
    assert await drain(enforce_agentic_contract(inner.gen(), capabilities=RESUMABLE)) == []
    assert inner.closed


async def test_provider_exception_propagates_unchanged_and_inner_is_closed() -> None:
    inner = Recorder([text()], fail_with=ProviderQuotaError("quota"))
    with pytest.raises(ProviderQuotaError, match="quota"):
        await drain(enforce_agentic_contract(inner.gen(), capabilities=RESUMABLE))
    assert inner.closed


async def test_consumer_close_closes_inner_and_yields_nothing_more() -> None:
    inner = Recorder([text("a"), text("b"), text("c")])
    guard = enforce_agentic_contract(inner.gen(), capabilities=RESUMABLE)
    assert (await anext(guard)).content == "a"
    await guard.aclose()
    assert inner.closed
    assert inner.yielded == 1
    with pytest.raises(StopAsyncIteration):
        await anext(guard)


async def test_cancellation_closes_inner() -> None:
    state = {"closed": False}

    async def slow() -> AsyncIterator[StreamChunk]:
        try:
            yield text("a")
            await anyio.sleep_forever()
            yield text("never")
        finally:
            state["closed"] = True

    received: list[StreamChunk] = []
    with anyio.move_on_after(0.05):
        async for chunk in enforce_agentic_contract(slow(), capabilities=RESUMABLE):
            received.append(chunk)
    assert [c.content for c in received] == ["a"]
    assert state["closed"]


async def test_cleanup_failure_does_not_mask_the_primary_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def bad_cleanup() -> AsyncIterator[Any]:
        try:
            yield StreamChunk("text", "x", is_error=True)  # violation
            yield text()
        finally:
            raise RuntimeError("cleanup broke")

    with (
        caplog.at_level(logging.WARNING, logger="lionagi.service"),
        pytest.raises(ProviderProtocolError),
    ):
        await drain(enforce_agentic_contract(bad_cleanup(), capabilities=RESUMABLE))
    assert "closing an agentic stream failed" in caplog.text


async def test_cleanup_failure_is_visible_when_nothing_else_failed() -> None:
    async def bad_cleanup() -> AsyncIterator[Any]:
        try:
            yield text("a")
            yield text("b")
        finally:
            raise RuntimeError("cleanup broke")

    guard = enforce_agentic_contract(bad_cleanup(), capabilities=RESUMABLE)
    await anext(guard)
    with pytest.raises(RuntimeError, match="cleanup broke"):
        await guard.aclose()

"""collect_call_result: one stable one-shot mapping folded from a normalized stream (D3)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from lionagi.service import ProviderStreamError, StreamChunk
from lionagi.service.agentic import collect_call_result


class Source:
    def __init__(self, chunks: list[StreamChunk]) -> None:
        self.chunks = chunks
        self.closed = False

    async def gen(self) -> AsyncIterator[StreamChunk]:
        try:
            for chunk in self.chunks:
                yield chunk
        finally:
            self.closed = True


async def test_empty_stream_still_has_every_key() -> None:
    assert await collect_call_result(Source([]).gen()) == {
        "result": "",
        "session_id": None,
        "model": None,
        "usage": {},
        "metadata": {},
    }


async def test_deltas_concatenate_units_separate_and_result_text_is_appended() -> None:
    chunks = [
        StreamChunk("thinking", "not part of the result"),
        StreamChunk("text", "Hel", is_delta=True),
        StreamChunk("text", "lo", is_delta=True),
        StreamChunk("tool_use", tool_name="Bash", tool_id="1"),
        StreamChunk("text", "Second message."),
        StreamChunk("result", "Terminal text."),
    ]
    result = await collect_call_result(Source(chunks).gen())
    assert result["result"] == "Hello\n\nSecond message.\n\nTerminal text."


async def test_result_metadata_wins_and_system_metadata_fills_gaps() -> None:
    chunks = [
        StreamChunk("system", metadata={"session_id": "sys-id", "model": "sys-model"}),
        StreamChunk("text", "ok"),
        StreamChunk(
            "result",
            metadata={
                "session_id": "res-id",
                "usage": {"input_tokens": 5, "output_tokens": 1},
                "total_cost_usd": 0.01,
                "num_turns": 1,
            },
        ),
    ]
    result = await collect_call_result(Source(chunks).gen())
    assert result["session_id"] == "res-id"
    assert result["model"] == "sys-model"
    assert result["usage"] == {"input_tokens": 5, "output_tokens": 1}
    assert result["metadata"]["total_cost_usd"] == 0.01
    assert result["metadata"]["num_turns"] == 1


async def test_observed_id_of_a_non_resumable_adapter_stays_out_of_session_id() -> None:
    chunks = [StreamChunk("system", metadata={"provider_session_id": "thread-1"})]
    result = await collect_call_result(Source(chunks).gen())
    assert result["session_id"] is None
    assert result["metadata"] == {"provider_session_id": "thread-1"}


async def test_error_chunk_raises_and_closes_the_stream() -> None:
    source = Source(
        [
            StreamChunk("text", "partial"),
            StreamChunk("error", "quota hit for sk-ant-abcdefghijklmnop", is_error=True),
            StreamChunk("text", "never"),
        ]
    )
    with pytest.raises(ProviderStreamError) as info:
        await collect_call_result(source.gen())
    assert "quota hit" in str(info.value)
    assert "sk-ant-abcdefghijklmnop" not in str(info.value)
    assert source.closed


async def test_the_stream_is_closed_after_success() -> None:
    source = Source([StreamChunk("text", "x")])
    await collect_call_result(source.gen())
    assert source.closed

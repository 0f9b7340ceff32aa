"""The message-level facts a stream sends on ``message_start`` reach the stream's result chunk.

``invoke()`` returns the whole message body, so its ``diagnostics`` (the prompt-cache report a
request's ``diagnostics: {previous_message_id}`` asks for: ``cache_miss_reason``) is there; a
stream sends it on ``message_start``'s message only, and the projector read nothing of that
message but its id, model and usage, so ``stream()`` callers could not read it. The same held
for the beta ``input_transformations`` (final on ``message_start``; a ``message_delta`` after a
mid-stream fallback replaces it) and for a ``container`` or ``context_management`` already named
there. Over loopback (scripted SSE frames): what the result carries, and that the official SDK's
accumulator reads the same bytes to the same values.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import StreamChunk, iModel
from lionagi.service_testing import scripted_stream_server

KEY = "sk-ant-test-FAKEkey0123456789abcdef"
HI = [{"role": "user", "content": "hi"}]
MESSAGE: dict[str, Any] = {
    "id": "msg_02",
    "type": "message",
    "role": "assistant",
    "model": "claude-x",
    "content": [],
    "stop_reason": None,
    "stop_sequence": None,
    "usage": {"input_tokens": 30, "output_tokens": 1, "cache_read_input_tokens": 0},
}
DIAGNOSTICS = {"cache_miss_reason": {"type": "tools_changed", "cache_missed_input_tokens": 1200}}
DROPPED = [
    {"type": "thinking_dropped", "path": "messages.1.content.0", "reason": "model_binding_mismatch"}
]
REPLACED = [
    {
        "type": "thinking_mismatch_allowed",
        "path": "messages.1.content.0",
        "reason": "prefix_binding_mismatch",
    }
]
CONTAINER = {"id": "container_7", "expires_at": "2026-01-01T00:00:00Z"}


def sse(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def stream_of(message: dict[str, Any], **event_fields: Any) -> list[bytes]:
    """A whole one-text-block stream starting with ``message``; ``event_fields`` on the delta."""
    block = {"type": "text", "text": ""}
    delta = {"type": "text_delta", "text": "ok"}
    return [
        sse("message_start", {"type": "message_start", "message": message}),
        sse(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        ),
        sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 2},
                **event_fields,
            },
        ),
        sse("message_stop", {"type": "message_stop"}),
    ]


async def result_of(writes: list[bytes]) -> StreamChunk:
    async with (
        scripted_stream_server(writes) as server,
        iModel(
            model="anthropic/claude-x", api_key=KEY, base_url=server.url, allow_local_network=True
        ) as model,
    ):
        chunks = [chunk async for chunk in model.stream(messages=HI)]
    assert [c.type for c in chunks] == ["text", "result"]
    return chunks[-1]


async def test_the_answers_diagnostics_reach_the_stream_result() -> None:
    result = await result_of(stream_of({**MESSAGE, "diagnostics": DIAGNOSTICS}))
    assert result.metadata["diagnostics"] == DIAGNOSTICS
    # Beside what the result already carried.
    assert result.metadata["response_id"] == "msg_02"
    assert result.metadata["finish_reason"] == "end_turn"


@pytest.mark.parametrize(
    "message",
    [MESSAGE, {**MESSAGE, "diagnostics": None}],
    ids=["not-sent", "null"],  # null: no diagnostics asked for, or no divergence found
)
async def test_a_stream_without_diagnostics_has_none_on_its_result(message: dict[str, Any]) -> None:
    result = await result_of(stream_of(message))
    assert "diagnostics" not in result.metadata
    assert "input_transformations" not in result.metadata


async def test_input_transformations_from_message_start_and_a_fallbacks_replacement() -> None:
    start = {**MESSAGE, "input_transformations": DROPPED}
    assert (await result_of(stream_of(start))).metadata["input_transformations"] == DROPPED
    # [] is the beta's "nothing to report": sent, so kept (not null).
    empty = {**MESSAGE, "input_transformations": []}
    assert (await result_of(stream_of(empty))).metadata["input_transformations"] == []
    # After a mid-stream fallback the final message_delta carries the serving model's entries.
    replaced = await result_of(stream_of(start, input_transformations=REPLACED))
    assert replaced.metadata["input_transformations"] == REPLACED


async def test_a_container_or_context_management_named_on_message_start_is_kept() -> None:
    applied = {"applied_edits": []}
    start = {**MESSAGE, "container": CONTAINER, "context_management": applied}
    result = await result_of(stream_of(start))
    assert result.metadata["container"] == CONTAINER
    assert result.metadata["context_management"] == applied
    # A message_delta value replaces it.
    cleared = {"applied_edits": [{"type": "clear_thinking_20251015", "cleared_thinking_turns": 1}]}
    result = await result_of(stream_of(start, context_management=cleared))
    assert result.metadata["context_management"] == cleared


async def test_the_sdk_accumulator_reads_the_same_facts_from_the_same_bytes() -> None:
    anthropic = pytest.importorskip("anthropic")
    start = {**MESSAGE, "diagnostics": DIAGNOSTICS, "input_transformations": DROPPED}
    writes = stream_of(start, input_transformations=REPLACED)
    async with scripted_stream_server(writes) as server:
        client = anthropic.AsyncAnthropic(
            base_url=server.url.removesuffix("/v1"), api_key=KEY, max_retries=0
        )
        try:
            async with client.beta.messages.stream(
                model="claude-x", max_tokens=16, messages=HI
            ) as stream:
                final = await stream.get_final_message()
        finally:
            await client.close()
    result = await result_of(writes)
    assert result.metadata["diagnostics"] == final.diagnostics.model_dump(mode="json")
    sdk_transformations = [t.model_dump(mode="json") for t in final.input_transformations]
    assert result.metadata["input_transformations"] == sdk_transformations == REPLACED

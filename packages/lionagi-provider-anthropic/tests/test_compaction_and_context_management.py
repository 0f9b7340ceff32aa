"""The compaction beta's block and the applied ``context_management``, sent back and kept.

With compaction (``context_management`` edit ``compact_...``, beta header) an answer may carry a
``compaction`` block: a summary of the turns before it and opaque state, which the next request
must carry back in the assistant turn. The request model refused the block as an unknown type,
and a stream holding one failed as a protocol error. ``message_delta.context_management`` (what
context editing or compaction cleared, ``applied_edits``) was dropped from the stream's result.
Over loopback servers: the request as sent, the stream as read, the one-shot body as returned.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from lionagi.providers.anthropic import AnthropicMessagesEndpoint, AnthropicMessagesProjector
from lionagi.service import (
    EndpointConfigurationError,
    EventStatus,
    ProviderProtocolError,
    StreamChunk,
    iModel,
    match_endpoint,
)
from lionagi.service_testing import FakeProviderServer, scripted_stream_server

Make = Callable[..., AnthropicMessagesEndpoint]

KEY = "sk-ant-test-FAKEkey0123456789abcdef"
HI = [{"role": "user", "content": "hi"}]
SUMMARY = "The user asked for a plan; steps 1-3 are done."
COMPACTION = {"type": "compaction", "content": SUMMARY, "encrypted_content": "EncState=="}
APPLIED = {
    "applied_edits": [
        {"type": "clear_tool_uses_20250919", "cleared_tool_uses": 3, "cleared_input_tokens": 900}
    ]
}
MESSAGE = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-x",
    "content": [],
    "stop_reason": None,
    "stop_sequence": None,
    "usage": {"input_tokens": 30, "output_tokens": 1},
}


def conversation(*blocks: dict[str, Any]) -> list[dict[str, Any]]:
    """A turn whose answer carried ``blocks``, sent back, then the next question."""
    answer = [*blocks, {"type": "text", "text": "Done."}]
    return [*HI, {"role": "assistant", "content": answer}, {"role": "user", "content": "next"}]


def sse(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def stream_of(*blocks: list[bytes], context_management: Any = None) -> list[bytes]:
    """A whole Messages stream: start, ``blocks`` (each a block's events), delta, stop."""
    delta: dict[str, Any] = {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 7},
    }
    if context_management is not None:
        delta["context_management"] = context_management
    return [
        sse("message_start", {"type": "message_start", "message": MESSAGE}),
        *(event for block in blocks for event in block),
        sse("message_delta", delta),
        sse("message_stop", {"type": "message_stop"}),
    ]


def compaction_block(index: int, start: dict[str, Any], *deltas: dict[str, Any]) -> list[bytes]:
    events = [
        sse(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
    ]
    events += [
        sse(
            "content_block_delta",
            {"type": "content_block_delta", "index": index, "delta": delta},
        )
        for delta in deltas
    ]
    events.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


def text_block(index: int, text: str) -> list[bytes]:
    return [
        sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        sse(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "text_delta", "text": text},
            },
        ),
        sse("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]


def model_at(url: str) -> iModel:
    return iModel(model="anthropic/claude-x", api_key=KEY, base_url=url, allow_local_network=True)


async def streamed(writes: list[bytes]) -> list[StreamChunk]:
    async with scripted_stream_server(writes) as server, model_at(server.url) as model:
        return [chunk async for chunk in model.stream(messages=HI)]


# -- the block is sent back -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "block",
    [
        COMPACTION,
        {**COMPACTION, "cache_control": {"type": "ephemeral"}},
        # A failed compaction: null content, which the API treats as a no-op.
        {"type": "compaction", "content": None},
    ],
    ids=["summary", "cached", "failed"],
)
async def test_a_compaction_block_is_sent_back_as_it_came(
    fake: FakeProviderServer, messages_endpoint: Make, block: dict[str, Any]
) -> None:
    endpoint = messages_endpoint(fake)
    try:
        await endpoint.call({"model": "claude-fake", "messages": conversation(block)})
    finally:
        await endpoint.aclose()
    sent = fake.requests[0].json
    assert sent is not None
    # Verbatim, ``content: null`` included: the API requires the member.
    assert sent["messages"][1]["content"][0] == block


@pytest.mark.parametrize(
    ("block", "field"),
    [
        # The API refuses an empty summary; a failed compaction is null.
        ({"type": "compaction", "content": ""}, "messages.1.content.blocks.0.compaction.content"),
        ({"type": "compaction"}, "messages.1.content.blocks.0.compaction.content"),
        (
            {**COMPACTION, "summary": "x"},
            "messages.1.content.blocks.0.compaction.summary",
        ),
    ],
    ids=["empty", "missing", "unknown_key"],
)
def test_a_malformed_compaction_block_is_refused_naming_the_key(
    block: dict[str, Any], field: str
) -> None:
    endpoint = match_endpoint("anthropic", "messages", api_key=KEY)
    with pytest.raises(EndpointConfigurationError) as info:
        endpoint.create_payload({"model": "claude-fake", "messages": conversation(block)})
    assert info.value.field == field
    assert SUMMARY not in str(info.value)


# -- the block is kept from a stream --------------------------------------------------------------


async def test_a_streamed_compaction_block_is_one_system_chunk_ready_to_send_back() -> None:
    writes = stream_of(
        compaction_block(
            0,
            {"type": "compaction", "content": None},
            {"type": "compaction_delta", "content": SUMMARY, "encrypted_content": "EncState=="},
        ),
        text_block(1, "Next step."),
    )
    chunks = await streamed(writes)
    assert [c.type for c in chunks] == ["system", "text", "result"]
    system = chunks[0]
    assert system.content is None
    assert system.metadata == {"compaction_block": COMPACTION}
    assert chunks[1].content == "Next step."
    # What the stream kept is what the next request takes.
    messages = conversation(system.metadata["compaction_block"])
    async with FakeProviderServer() as fake:
        async with iModel(
            model="anthropic/claude-fake",
            api_key=KEY,
            base_url=f"{fake.base_url}/v1",
            allow_local_network=True,
        ) as model:
            call = await model.invoke(messages=messages)
        assert call.status is EventStatus.COMPLETED
        sent = fake.requests[0].json
    assert sent is not None
    assert sent["messages"][1]["content"][0] == COMPACTION


async def test_a_compaction_block_that_starts_whole_or_fails_keeps_content() -> None:
    writes = stream_of(
        compaction_block(0, {"type": "compaction", "content": SUMMARY}),
        # A failed compaction: content stays null, and is there to be sent back.
        compaction_block(1, {"type": "compaction"}),
    )
    chunks = await streamed(writes)
    assert [c.metadata for c in chunks[:2]] == [
        {"compaction_block": {"type": "compaction", "content": SUMMARY}},
        {"compaction_block": {"type": "compaction", "content": None}},
    ]


def test_a_compaction_delta_outside_a_compaction_block_is_a_protocol_error() -> None:
    projector = AnthropicMessagesProjector()
    projector.feed({"type": "message_start", "message": MESSAGE})
    projector.feed(
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
    )
    delta = {"type": "compaction_delta", "content": SUMMARY}
    with pytest.raises(ProviderProtocolError, match="compaction_delta outside"):
        projector.feed({"type": "content_block_delta", "index": 0, "delta": delta})


# -- the applied context management is kept -------------------------------------------------------


async def test_the_streams_applied_context_management_reaches_the_result() -> None:
    chunks = await streamed(stream_of(text_block(0, "ok"), context_management=APPLIED))
    result = chunks[-1]
    assert result.type == "result"
    assert result.metadata["context_management"] == APPLIED
    assert result.metadata["finish_reason"] == "end_turn"


async def test_a_stream_without_context_management_has_none_on_its_result() -> None:
    chunks = await streamed(stream_of(text_block(0, "ok"), context_management=None))
    assert "context_management" not in chunks[-1].metadata


async def test_the_one_shot_body_keeps_the_compaction_block_and_context_management() -> None:
    """Already so (the body is returned as the API sent it); pinned beside the stream's form."""
    body = {
        **MESSAGE,
        "content": [COMPACTION, {"type": "text", "text": "Next step."}],
        "stop_reason": "end_turn",
        "context_management": APPLIED,
    }
    raw = json.dumps(body).encode()
    async with (
        scripted_stream_server([raw], content_type="application/json") as server,
        model_at(server.url) as model,
    ):
        call = await model.invoke(messages=HI)
    assert call.status is EventStatus.COMPLETED
    response = call.execution.response
    assert response["content"][0] == COMPACTION
    assert response["context_management"] == APPLIED

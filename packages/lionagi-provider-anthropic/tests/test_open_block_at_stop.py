"""A block that holds its content until ``content_block_stop`` must be closed before the end.

The Messages API closes every content block before ``message_delta``/``message_stop``. A tool
call's input and a compaction summary are handed out only at their block's stop, so a stream
that ends the message with one still open (a gateway that dropped the event) used to end
"successfully" without them: the call the model wrote was silently gone. It is the stream's
grammar broken, so the stream fails with ``ProviderProtocolError`` naming the block.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import AttemptPolicy, ProviderProtocolError, StreamChunk, iModel
from lionagi.service_testing import scripted_stream_server

KEY = "sk-ant-test-FAKEkey0123456789abcdef"
HI = [{"role": "user", "content": "hi"}]
MESSAGE = {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-x"}


def _sse(events: list[dict[str, Any]]) -> list[bytes]:
    return [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events]


def _message(blocks: list[dict[str, Any]], *, closed: bool) -> list[bytes]:
    """A message whose blocks stream their content, closed or not, then stops normally."""
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {**MESSAGE, "content": [], "usage": {}}}
    ]
    for index, (start, delta) in enumerate(blocks):
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events.append({"type": "content_block_delta", "index": index, "delta": delta})
        if closed:
            events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 9},
        }
    )
    events.append({"type": "message_stop"})
    return _sse(events)


TOOL = (
    {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}},
    {"type": "input_json_delta", "partial_json": '{"path": "a.txt"}'},
)
COMPACTION = (
    {"type": "compaction", "content": None},
    {"type": "compaction_delta", "content": "Earlier: the user asked for a.txt."},
)


async def _chunks(writes: list[bytes]) -> list[StreamChunk]:
    async with scripted_stream_server(writes) as server:
        model = iModel(
            model="anthropic/claude-x",
            api_key=KEY,
            base_url=server.url,
            allow_local_network=True,
            attempt_policy=AttemptPolicy(max_attempts=1),
        )
        async with model:
            return [chunk async for chunk in model.stream(messages=HI, max_tokens=64)]


@pytest.mark.parametrize(("block", "named"), [(TOOL, "'write_file'"), (COMPACTION, "compaction")])
async def test_a_block_left_open_at_message_stop_fails_the_stream(
    block: tuple[dict[str, Any], dict[str, Any]], named: str
) -> None:
    with pytest.raises(ProviderProtocolError, match="no content_block_stop") as raised:
        await _chunks(_message([block], closed=False))
    assert named in str(raised.value)
    assert KEY not in str(raised.value)


async def test_the_same_blocks_closed_are_handed_out() -> None:
    chunks = await _chunks(_message([TOOL, COMPACTION], closed=True))
    calls = [c for c in chunks if c.type == "tool_use"]
    assert [(c.tool_name, c.tool_input) for c in calls] == [("write_file", {"path": "a.txt"})]
    kept = [c.metadata["compaction_block"] for c in chunks if "compaction_block" in c.metadata]
    assert [k["content"] for k in kept] == ["Earlier: the user asked for a.txt."]
    assert chunks[-1].type == "result"

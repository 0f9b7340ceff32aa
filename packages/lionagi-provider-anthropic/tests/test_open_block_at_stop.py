"""A block that holds its content until ``content_block_stop`` must be closed before the end.

The Messages API closes every content block before ``message_delta``/``message_stop``. A tool
call's input and a compaction summary are handed out only at their block's stop, so a stream
that ends the message with one still open (a gateway that dropped the event) used to end
"successfully" without them: the call the model wrote was silently gone. It is the stream's
grammar broken, so the stream fails with ``ProviderProtocolError`` naming the block.
"""

from __future__ import annotations

from typing import Any

import pytest
from anthropic_stops import HI, TOOL, model, stopped_stream, streamed

from lionagi.service import ProviderProtocolError
from lionagi.service_testing import scripted_stream_server

COMPACTION = {"type": "compaction", "content": None}
BLOCKS = [
    (TOOL, '{"path": "a.txt"}', "'write_file'"),
    (COMPACTION, "Earlier: the user asked for a.txt.", "compaction"),
]


def _message(block: dict[str, Any], part: str, *, closed: bool) -> list[bytes]:
    stop = {"stop_reason": "tool_use", "stop_sequence": None}
    return stopped_stream(block, part, stop=stop, usage={}, output_tokens=9, closed=closed)


@pytest.mark.parametrize(("block", "part", "named"), BLOCKS)
async def test_a_block_left_open_at_message_stop_fails_the_stream(
    block: dict[str, Any], part: str, named: str
) -> None:
    chunks, error, requests = await streamed(_message(block, part, closed=False))
    assert type(error) is ProviderProtocolError, repr(error)
    assert "no content_block_stop" in str(error)
    assert named in str(error)
    assert [c.type for c in chunks if c.type != "thinking"] == []  # nothing as if complete
    assert requests == 1


@pytest.mark.parametrize(("block", "part", "named"), BLOCKS)
async def test_the_same_block_closed_is_handed_out(
    block: dict[str, Any], part: str, named: str
) -> None:
    writes = _message(block, part, closed=True)
    async with scripted_stream_server(writes) as server, model(server.url) as chat:
        chunks = [chunk async for chunk in chat.stream(messages=HI)]
    assert chunks[-1].type == "result"
    if block is TOOL:
        calls = [(c.tool_name, c.tool_input) for c in chunks if c.type == "tool_use"]
        assert calls == [("write_file", {"path": "a.txt"})]
    else:
        kept = [c.metadata["compaction_block"] for c in chunks if "compaction_block" in c.metadata]
        assert [k["content"] for k in kept] == [part]

"""What the Anthropic stop-reason tests share: a scripted Messages stream, a model, a collector.

A stream is one content block (a tool call streaming its input, or text) and then the stop the
test is about; `streamed` reads it through `iModel` until the error it must end with, and
`invoked` sends one one-shot body. The module name is the package's own (see `conftest.py`).
"""

from __future__ import annotations

import json
from typing import Any

from lionagi.service import AttemptPolicy, StreamChunk, iModel
from lionagi.service_testing import scripted_stream_server

KEY = "sk-ant-test-FAKEkey0123456789abcdef"
FAST = AttemptPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0)
HI = [{"role": "user", "content": "hi"}]
TOOLS = [{"name": "write_file", "input_schema": {"type": "object"}}]
TOOL = {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}
MESSAGE = {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-x"}
# The delta each block streams its content in; a tool call's is its input JSON.
_DELTAS = {"text": ("text_delta", "text"), "compaction": ("compaction_delta", "content")}


def sse(event: dict[str, Any]) -> bytes:
    """One event as the API writes it: ``event:`` names its type, ``data:`` holds it."""
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def stopped_stream(
    block: dict[str, Any],
    *parts: str,
    stop: dict[str, Any],
    usage: dict[str, Any],
    output_tokens: int,
    closed: bool = True,
) -> list[bytes]:
    """``block`` streaming ``parts`` (input JSON for a tool, text, a summary), then ``stop``.

    ``stop`` is the ``message_delta``'s delta (its ``stop_reason`` and the rest); ``closed``
    False leaves out the block's ``content_block_stop``.
    """
    kind, field = _DELTAS.get(block["type"], ("input_json_delta", "partial_json"))
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {**MESSAGE, "content": [], "usage": usage}},
        {"type": "content_block_start", "index": 0, "content_block": block},
        *(
            {"type": "content_block_delta", "index": 0, "delta": {"type": kind, field: part}}
            for part in parts
        ),
    ]
    if closed:
        events.append({"type": "content_block_stop", "index": 0})
    events.append(
        {"type": "message_delta", "delta": stop, "usage": {"output_tokens": output_tokens}}
    )
    events.append({"type": "message_stop"})
    return [sse(event) for event in events]


def model(url: str) -> iModel:
    """``iModel`` for ``anthropic/claude-x`` aimed at a loopback server, with fast retries."""
    return iModel(
        model="anthropic/claude-x",
        api_key=KEY,
        base_url=url,
        allow_local_network=True,
        attempt_policy=FAST,
    )


async def streamed(writes: list[bytes]) -> tuple[list[StreamChunk], BaseException, int]:
    """The chunks a stream of ``writes`` yields, the error it ends with, and the requests."""
    chunks: list[StreamChunk] = []
    async with scripted_stream_server(writes) as server, model(server.url) as chat:
        try:
            async for chunk in chat.stream(messages=HI, tools=TOOLS):
                chunks.append(chunk)
        except Exception as exc:  # the caller's assertions name what was expected
            return chunks, exc, server.requests
    raise AssertionError(f"the stream completed: {[c.type for c in chunks]}")


async def invoked(body: dict[str, Any]) -> tuple[Any, int]:
    """``invoke()`` answered by the one-shot ``body``: the call, and the requests it made."""
    raw = [json.dumps(body).encode()]
    served = scripted_stream_server(raw, content_type="application/json")
    async with served as server, model(server.url) as chat:
        call = await chat.invoke(messages=HI, tools=TOOLS)
    return call, server.requests

"""A server tool's result chunk names the tool its ``tool_use_id`` points at.

Anthropic's result blocks for the tools it runs itself (``web_search_tool_result``,
``web_fetch_tool_result``, ``code_execution_tool_result``, ``mcp_tool_result``, ...) carry the
id of the ``server_tool_use`` / ``mcp_tool_use`` block that made the call, not its name. Their
``tool_result`` chunks came out with ``tool_name=None``, so a caller pairing results to calls by
name (as every other adapter's ``tool_result`` lets it) saw an anonymous result. The name is now
the matching call's, from the same stream; a result whose call is not in the stream (its call
came in an earlier response) still has none rather than a guess.
"""

from __future__ import annotations

import json
from typing import Any

from lionagi.service import AttemptPolicy, StreamChunk, iModel
from lionagi.service_testing import scripted_stream_server

KEY = "sk-ant-test-FAKEkey0123456789abcdef"
FAST = AttemptPolicy(max_attempts=1, base_delay=0.001, max_delay=0.01, jitter_factor=0)
HI = [{"role": "user", "content": "hi"}]


def _event(data: dict[str, Any]) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode()


def _call(index: int, kind: str, tool_id: str, name: str, **extra: Any) -> list[dict[str, Any]]:
    block = {"type": kind, "id": tool_id, "name": name, "input": {}, **extra}
    return [
        {"type": "content_block_start", "index": index, "content_block": block},
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "input_json_delta", "partial_json": '{"q": "x"}'},
        },
        {"type": "content_block_stop", "index": index},
    ]


def _result(index: int, kind: str, tool_use_id: str, content: Any) -> list[dict[str, Any]]:
    block = {"type": kind, "tool_use_id": tool_use_id, "content": content}
    return [
        {"type": "content_block_start", "index": index, "content_block": block},
        {"type": "content_block_stop", "index": index},
    ]


async def _chunks(*blocks: list[dict[str, Any]]) -> list[StreamChunk]:
    message = {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-x"}
    usage = {"input_tokens": 5, "output_tokens": 1}
    events = [
        {"type": "message_start", "message": {**message, "content": [], "usage": usage}},
        *(event for block in blocks for event in block),
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": usage},
        {"type": "message_stop"},
    ]
    writes = [_event(event) for event in events]
    async with scripted_stream_server(writes) as server:
        model = iModel(
            model="anthropic/claude-x",
            api_key=KEY,
            base_url=server.url,
            allow_local_network=True,
            attempt_policy=FAST,
        )
        async with model:
            return [chunk async for chunk in model.stream(messages=HI)]


async def test_each_server_result_is_named_after_the_call_its_id_points_at() -> None:
    # Two calls before their results, in the other order: the id pairs them, not the order.
    chunks = await _chunks(
        _call(0, "server_tool_use", "srvtoolu_s", "web_search"),
        _call(1, "server_tool_use", "srvtoolu_f", "web_fetch"),
        _result(2, "web_fetch_tool_result", "srvtoolu_f", {"type": "web_fetch_result"}),
        _result(3, "web_search_tool_result", "srvtoolu_s", []),
        _call(4, "server_tool_use", "srvtoolu_c", "code_execution"),
        _result(5, "code_execution_tool_result", "srvtoolu_c", {"type": "x", "stdout": "1"}),
    )
    results = [(c.tool_id, c.tool_name) for c in chunks if c.type == "tool_result"]
    assert results == [
        ("srvtoolu_f", "web_fetch"),
        ("srvtoolu_s", "web_search"),
        ("srvtoolu_c", "code_execution"),
    ]


async def test_an_mcp_result_is_named_after_its_mcp_call() -> None:
    chunks = await _chunks(
        _call(0, "mcp_tool_use", "mcptoolu_1", "lookup", server_name="docs"),
        _result(1, "mcp_tool_result", "mcptoolu_1", [{"type": "text", "text": "ok"}]),
    )
    [result] = [c for c in chunks if c.type == "tool_result"]
    assert (result.tool_id, result.tool_name) == ("mcptoolu_1", "lookup")


async def test_a_result_whose_call_is_not_in_the_stream_has_no_name() -> None:
    chunks = await _chunks(_result(0, "web_search_tool_result", "srvtoolu_earlier", []))
    [result] = [c for c in chunks if c.type == "tool_result"]
    assert (result.tool_id, result.tool_name) == ("srvtoolu_earlier", None)

"""Ollama's OpenAI-compatible chat stream as the server writes it, through ``iModel``.

Each scripted event is its own network write (``TCP_NODELAY``, a pause between writes), so the
client sees the event boundaries a real provider produces.
"""

from __future__ import annotations

import json
from typing import Any

from lionagi.service import iModel
from lionagi.service_testing import scripted_stream_server


def _chunk(delta: dict[str, Any], finish: str | None = None, **fields: Any) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    event = {"id": "gen-1", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
    return f"data: {json.dumps({**event, **fields})}\n\n".encode()


DONE = b"data: [DONE]\n\n"


def _call(call_id: str | None, name: str | None, arguments: str) -> dict[str, Any]:
    function: dict[str, Any] = {"arguments": arguments}
    if name is not None:
        function["name"] = name
    call: dict[str, Any] = {"index": 0, "function": function}
    if call_id is not None:
        call.update(id=call_id, type="function")
    return call


def _usage_chunk(usage: dict[str, int]) -> bytes:
    event = {"object": "chat.completion.chunk", "model": "m", "choices": [], "usage": usage}
    return f"data: {json.dumps(event)}\n\n".encode()


async def test_parallel_tool_calls_all_at_index_zero_stay_separate() -> None:
    """Ollama's compatible API sends every parallel call at ``index: 0``, each with its own id.

    Merged by index, the two calls became one whose arguments were two JSON objects back to
    back, and the whole stream failed with ``ProviderProtocolError``. A call continued in
    fragments without an id (as proxies in front of Ollama send them) still joins the call
    opened last at that index.
    """
    usage = {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}
    writes = [
        _chunk(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [_call("call_a", "get_weather", '{"location": "Paris"}')],
            }
        ),
        _chunk(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [_call("call_b", "get_weather", '{"loca')],
            }
        ),
        _chunk({"tool_calls": [_call(None, None, 'tion": "Rome"}')]}),
        _chunk({"role": "assistant", "content": ""}, "tool_calls"),
        _usage_chunk(usage),
        DONE,
    ]
    async with (
        scripted_stream_server(writes) as server,
        iModel(model="ollama/qwen3", base_url=server.url, allow_local_network=True) as model,
    ):
        chunks = [c async for c in model.stream(messages=[{"role": "user", "content": "weather?"}])]
    calls = [(c.tool_id, c.tool_name, c.tool_input) for c in chunks if c.type == "tool_use"]
    assert calls == [
        ("call_a", "get_weather", {"location": "Paris"}),
        ("call_b", "get_weather", {"location": "Rome"}),
    ]
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["finish_reason"] == "tool_calls"
    assert chunks[-1].metadata["usage"] == usage

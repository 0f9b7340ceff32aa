"""`debug.echo_upstream_body` is answered: the echoed upstream body reaches the stream's caller.

OpenRouter sends the body it forwarded upstream as the stream's first chunk, with an empty
`choices` list and a top-level `debug` object. The shared chat projector skips a chunk with no
choices, so the field the caller asked for was dropped without a word.
"""

from __future__ import annotations

import json
from typing import Any

from lionagi.service import StreamChunk, iModel
from lionagi.service_testing import scripted_stream_server

KEY = "sk-or-debug-test-0123456789"
ECHO = {"echo_upstream_body": {"model": "gpt-5", "messages": [{"role": "user", "content": "hi"}]}}


def _event(choices: list[dict[str, Any]], **fields: Any) -> bytes:
    event = {"id": "gen-2", "object": "chat.completion.chunk", "model": "openai/gpt-5"}
    return f"data: {json.dumps({**event, 'choices': choices, **fields})}\n\n".encode()


async def test_the_echoed_upstream_body_is_on_the_result() -> None:
    writes = [
        _event([], debug=ECHO),
        _event([{"index": 0, "delta": {"role": "assistant", "content": "hello"}}]),
        _event([{"index": 0, "delta": {}, "finish_reason": "stop"}]),
        b"data: [DONE]\n\n",
    ]
    async with (
        scripted_stream_server(writes, path="/api/v1") as server,
        iModel(
            model="openrouter/openai/gpt-5",
            base_url=server.url,
            api_key=KEY,
            allow_local_network=True,
        ) as model,
    ):
        chunks: list[StreamChunk] = [
            chunk
            async for chunk in model.stream(
                messages=[{"role": "user", "content": "hi"}], debug={"echo_upstream_body": True}
            )
        ]
    assert "".join(c.content or "" for c in chunks if c.type == "text") == "hello"
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["debug"] == ECHO

"""A chat stream asks for its usage record unless the caller said otherwise.

The dialect adds ``stream_options.include_usage: true`` to a stream so its result chunk carries
the usage. It did so only when ``stream_options`` was absent: a caller who set another stream
option (``{"include_obfuscation": false}``, to save the padding bytes) silently lost the usage
record, and with it the token counts telemetry and ``limit_tokens`` read. Now the flag is merged
into the caller's options unless the caller set ``include_usage`` itself (``false`` is kept).
Real loopback server; the test reads the request body the server received.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from lionagi.service import OpenAIChatCompletionsRequest
from lionagi.service.http import OpenAIChatEndpoint

pytestmark = pytest.mark.anyio

FRAMES = (
    'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}\n\n',
    'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n',
    'data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}\n\n',
    "data: [DONE]\n\n",
)


async def _sent_stream_options(serve: Any, wire: Any, secret: str, request: dict[str, Any]) -> Any:
    server = await serve(lambda req: wire.sse_stream(*FRAMES))
    endpoint = OpenAIChatEndpoint(
        {
            "name": "chat",
            "provider": "usagetest",
            "endpoint": "chat/completions",
            "base_url": server.base_url + "/v1",
            "api_key": secret,
            "allow_local_network": True,
            "request_options": OpenAIChatCompletionsRequest,
            "timeout": 10.0,
        }
    )
    try:
        with anyio.fail_after(10):
            chunks = [c async for c in endpoint.stream({"model": "m", "messages": [], **request})]
    finally:
        await endpoint.aclose()
    assert [c.content for c in chunks if c.type == "text"] == ["hi"]
    (sent,) = server.requests
    return json.loads(sent.body).get("stream_options")


async def test_a_stream_without_options_asks_for_usage(serve: Any, wire: Any, secret: str) -> None:
    assert await _sent_stream_options(serve, wire, secret, {}) == {"include_usage": True}


async def test_other_stream_options_keep_the_usage_request(
    serve: Any, wire: Any, secret: str
) -> None:
    request = {"stream_options": {"include_obfuscation": False}}
    sent = await _sent_stream_options(serve, wire, secret, request)
    assert sent == {"include_obfuscation": False, "include_usage": True}
    assert request == {"stream_options": {"include_obfuscation": False}}  # the caller's, unchanged


async def test_a_caller_declining_usage_is_obeyed(serve: Any, wire: Any, secret: str) -> None:
    request = {"stream_options": {"include_usage": False, "include_obfuscation": False}}
    sent = await _sent_stream_options(serve, wire, secret, request)
    assert sent == {"include_usage": False, "include_obfuscation": False}

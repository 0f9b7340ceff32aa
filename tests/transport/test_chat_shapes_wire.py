"""Checking a chat request's nested shapes changes nothing on the wire (ADR-0027).

The shapes are checked after validation and the fields stay plain, so the body is the caller's
request as written (its top-level fields in the model's field order, as before): no ``null``
added for an unset nested field, no ``null`` the caller wrote dropped (an assistant turn's
``content: null`` beside its ``tool_calls``), no nested key reordered. Measured on the bytes a
loopback server receives.
"""

from __future__ import annotations

import json
from typing import Any

import anyio

from lionagi.service import OpenAIChatCompletionsRequest
from lionagi.service._transport.http.encoding import encode_json

HANG_GUARD = 20.0

ANSWER = {
    "id": "c-1",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    ],
}

# Keys deliberately out of the models' declaration order, and an explicit null.
RICH: dict[str, Any] = {
    "model": "m",
    "messages": [
        {"content": "Be brief.", "role": "developer"},
        {
            "content": [
                {"text": "What is in these?", "type": "text"},
                {
                    "image_url": {"detail": "low", "url": "https://x.example/a.png"},
                    "type": "image_url",
                },
                {"type": "input_audio", "input_audio": {"format": "wav", "data": "UklGRg=="}},
                {"type": "file", "file": {"file_id": "file-1", "filename": "a.pdf"}},
            ],
            "role": "user",
        },
        {
            "tool_calls": [
                {
                    "function": {"arguments": '{"q": 1}', "name": "lookup"},
                    "type": "function",
                    "id": "call_1",
                }
            ],
            "content": None,
            "role": "assistant",
        },
        {"content": "42", "tool_call_id": "call_1", "role": "tool"},
    ],
    "tools": [
        {
            "function": {
                "strict": True,
                "parameters": {"type": "object", "properties": {"q": {"type": "integer"}}},
                "name": "lookup",
            },
            "type": "function",
        }
    ],
    "tool_choice": {"function": {"name": "lookup"}, "type": "function"},
    "response_format": {
        "json_schema": {"schema": {"type": "object"}, "strict": True, "name": "answer"},
        "type": "json_schema",
    },
    "stream_options": {"include_obfuscation": False, "include_usage": True},
}


def _pairs(value: Any) -> Any:
    """``value`` with every mapping as its list of pairs: equality then checks key order."""
    if isinstance(value, dict):
        return [(key, _pairs(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_pairs(item) for item in value]
    return value


async def test_a_rich_valid_request_reaches_the_server_byte_for_byte(
    serve: Any, make_endpoint: Any, wire: Any
) -> None:
    server = await serve(lambda r: wire.full(200, json.dumps(ANSWER)))
    ep = make_endpoint(server.base_url, request_options=OpenAIChatCompletionsRequest)
    with anyio.fail_after(HANG_GUARD):
        await ep.call(json.loads(json.dumps(RICH)))  # a fresh copy: nothing shared with RICH
    (sent,) = server.requests
    # Top-level fields go out in the model's field order, as before; inside them, as written.
    fields = OpenAIChatCompletionsRequest.model_fields
    expected = {name: RICH[name] for name in fields if name in RICH}
    assert sent.body == encode_json(expected)
    assert _pairs(json.loads(sent.body)) == _pairs(expected)
    assert sent.body.count(b"null") == 1  # the caller's own, and nothing added

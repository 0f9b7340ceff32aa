"""A one-shot 200 body that is an object but no message fails typed, as one that is no object does.

``checked_message`` refused a body that is not a JSON object or names another ``type``, but an
object with neither ``type`` nor ``content`` (``{}``) passed, so ``invoke()`` COMPLETED with an
empty dict as the answer. Every message carries its ``content`` list (an empty one included),
so a body without one is now a ``ProviderProtocolError`` naming the endpoint, not retried.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import EventStatus, ProviderProtocolError, iModel
from lionagi.service_testing import scripted_stream_server

KEY = "sk-ant-test-FAKEkey0123456789abcdef"
HI = [{"role": "user", "content": "hi"}]


async def _invoke(body: Any) -> tuple[Any, int]:
    raw = json.dumps(body).encode()
    async with scripted_stream_server([raw], content_type="application/json") as server:
        model = iModel(
            model="anthropic/claude-x", api_key=KEY, base_url=server.url, allow_local_network=True
        )
        async with model:
            call = await model.invoke(messages=HI)
        return call, server.requests


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({}, "(no 'content' list)"),
        ({"id": "msg_01", "role": "assistant", "stop_reason": "end_turn"}, "(no 'content' list)"),
        ({"type": "message", "content": None}, "(no 'content' list)"),
        ({"type": "message", "content": "hi"}, "('content' is JSON string, not a list)"),
        (
            {"type": "message", "content": {"type": "text"}},
            "('content' is JSON object, not a list)",
        ),
    ],
)
async def test_an_object_without_a_content_list_is_a_protocol_error(body: Any, says: str) -> None:
    call, requests = await _invoke(body)
    assert call.status is EventStatus.FAILED, call.execution.response
    assert type(call.exception) is ProviderProtocolError
    text = str(call.exception)
    assert "anthropic messages: the answer is not a message object" in text
    assert says in text
    assert KEY not in text
    assert requests == 1

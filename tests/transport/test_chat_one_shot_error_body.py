"""A chat one-shot answered with a 200 error object fails as the stream does, for every vendor.

OpenAI's edge, gateways (OpenRouter) and compatible servers answer some failures with HTTP 200
and ``{"error": {...}}``. The chat stream turns that object into an error chunk and a typed
``ProviderStreamError``; the one-shot path returned the body, so ``invoke()`` COMPLETED on a
failure. Core's chat dialect checks it (``OpenAIChatEndpoint.check_response``), so an
OpenAI-compatible endpoint with no vendor package of its own gets it too.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import AttemptPolicy, EventStatus, ProviderStreamError, iModel
from lionagi.service_testing import scripted_stream_server

ERROR = {"error": {"message": "upstream overloaded", "type": "server_error", "code": 503}}
OK = {
    "id": "c-1",
    "object": "chat.completion",
    "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}],
    "error": None,
}


async def _invoke(body: dict[str, Any]) -> tuple[Any, int]:
    raw = json.dumps(body).encode()
    async with scripted_stream_server([raw], content_type="application/json") as server:
        async with iModel(
            provider="somegateway",
            endpoint="chat/completions",
            openai_compatible=True,
            base_url=server.url,
            api_key="sk-gateway-one-shot-0123456789",
            allow_local_network=True,
            attempt_policy=AttemptPolicy(
                max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0
            ),
        ) as model:
            call = await model.invoke(model="m", messages=[{"role": "user", "content": "x"}])
        return call, server.requests


@pytest.mark.parametrize(
    "body", [ERROR, {**ERROR, "choices": [{"index": 0, "finish_reason": "error"}]}]
)
async def test_a_200_error_object_fails_the_one_shot_call(body: dict[str, Any]) -> None:
    call, requests = await _invoke(body)
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderStreamError)
    assert "upstream overloaded" in str(call.exception)
    # A 503 overload reached no caller: retried like a 503 status, every attempt made.
    assert call.exception.retryable
    assert requests == 3


async def test_a_null_error_beside_the_answer_is_an_answer() -> None:
    call, _ = await _invoke(OK)
    assert call.status is EventStatus.COMPLETED
    assert call.execution.response["choices"][0]["message"]["content"] == "hi"

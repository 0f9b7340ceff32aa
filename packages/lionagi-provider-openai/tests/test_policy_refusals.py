"""OpenAI's safety-policy refusals are the content-filter family, however they arrive (loopback).

OpenAI refuses a prompt its safety policy flags with codes core's dialect does not read:
``invalid_prompt`` with "flagged as potentially violating our usage policy" (reasoning models)
or "we've limited access to this content for safety reasons", and the codes ``bio_policy``,
``cyber_policy`` (sometimes a 403), ``misalignment_policy_violation`` and
``image_content_policy_violation`` (the Responses ``ResponseError`` codes). Over HTTP they were a
plain client error (a 403 ``cyber_policy`` a refused *key*); as a stream's ``response.failed``,
a chat error chunk or a failed one-shot Responses object they were an unclassified
``ProviderStreamError``, which the circuit counts: one user's flagged prompts opened the circuit
for every caller. Each is now ``ProviderContentFilterError`` (never retried, neutral).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai_loopback import JSON, chat_sse, event, served

from lionagi.service import (
    ProviderAuthError,
    ProviderClientError,
    ProviderContentFilterError,
    ProviderStatusContentFilterError,
    ProviderStreamContentFilterError,
    ProviderStreamError,
    match_endpoint,
)
from lionagi.service_testing import scripted_stream_server

KEY = "sk-policy-refusal-test-0123456789"
FLAGGED = (
    "Invalid prompt: your prompt was flagged as potentially violating our usage policy. Please "
    "try again with a different prompt: https://platform.openai.com/docs/guides/reasoning"
)
LIMITED = (
    "Invalid prompt: we've limited access to this content for safety reasons. This type of "
    "information may be used to benefit or to harm people."
)
ROWS: dict[str, dict[str, Any]] = {
    "chat": {"model": "gpt-5", "messages": [{"role": "user", "content": "hi"}]},
    "responses": {"model": "gpt-5", "input": "hi"},
}


def _body(code: str, message: str, kind: str = "invalid_request_error") -> bytes:
    error = {"message": message, "type": kind, "param": None, "code": code}
    return json.dumps({"error": error}).encode()


async def _call(row: str, status: int, body: bytes) -> tuple[BaseException, int]:
    async with scripted_stream_server(
        [body], status=status, content_type="application/json"
    ) as server:
        endpoint = match_endpoint(
            "openai", row, base_url=server.url, api_key=KEY, allow_local_network=True
        )
        try:
            with pytest.raises(ProviderClientError) as info:
                await endpoint.call(ROWS[row])
        finally:
            await endpoint.aclose()
        return info.value, server.requests


@pytest.mark.parametrize("row", list(ROWS))
@pytest.mark.parametrize(
    ("status", "code", "message"),
    [
        (400, "invalid_prompt", FLAGGED),
        (400, "invalid_prompt", LIMITED),
        (400, "bio_policy", "This request was blocked."),
        (403, "cyber_policy", "This request has been flagged for possible cybersecurity risk."),
    ],
)
async def test_an_http_policy_refusal_is_a_content_filter_error(
    row: str, status: int, code: str, message: str
) -> None:
    error, requests = await _call(row, status, _body(code, message))
    assert isinstance(error, ProviderStatusContentFilterError)
    assert isinstance(error, ProviderContentFilterError)
    assert not isinstance(error, ProviderAuthError)  # a 403 here refuses the content, not the key
    assert error.status == status
    assert not error.retryable
    assert requests == 1
    assert KEY not in str(error)


@pytest.mark.parametrize("row", list(ROWS))
async def test_another_invalid_prompt_stays_a_plain_client_error(row: str) -> None:
    # ``invalid_prompt`` also names malformed input: only the policy wording is a refusal.
    message = "Invalid prompt: the tool schema for 'f' is not valid JSON Schema."
    error, _ = await _call(row, 400, _body("invalid_prompt", message))
    assert type(error) is ProviderClientError


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("bio_policy", "This request was blocked by our usage policies."),
        ("misalignment_policy_violation", "The action was blocked."),
        ("image_content_policy_violation", "The input image was refused."),
        ("invalid_prompt", FLAGGED),
    ],
)
async def test_a_responses_stream_failed_for_policy_is_a_content_filter_error(
    code: str, message: str
) -> None:
    response = {"id": "resp_1", "object": "response", "model": "gpt-5", "status": "in_progress"}
    failed = {**response, "status": "failed", "error": {"code": code, "message": message}}
    writes = [
        event("response.created", 0, response=response),
        event("response.failed", 1, response=failed),
    ]
    async with served(writes, api_key=KEY, endpoint="responses") as (server, model):
        with pytest.raises(ProviderStreamError) as info:
            async for _ in model.stream(input="hi"):
                pass
    assert isinstance(info.value, ProviderStreamContentFilterError)
    assert info.value.code == code
    assert not info.value.retryable
    assert server.requests == 1


async def test_a_failed_one_shot_response_for_policy_is_a_content_filter_error() -> None:
    body = {
        "id": "resp_2",
        "object": "response",
        "status": "failed",
        "model": "gpt-5",
        "output": [],
        "error": {"code": "misalignment_policy_violation", "message": "The action was blocked."},
    }
    one_shot = served(
        [json.dumps(body).encode()], api_key=KEY, endpoint="responses", content_type=JSON
    )
    async with one_shot as (server, model):
        call = await model.invoke(input="hi")
    assert isinstance(call.exception, ProviderStreamContentFilterError), call.exception
    assert server.requests == 1


async def test_a_chat_stream_error_chunk_for_policy_is_a_content_filter_error() -> None:
    error = {"message": FLAGGED, "type": "invalid_request_error", "code": "invalid_prompt"}
    async with served([chat_sse({"error": error})], api_key=KEY) as (_, model):
        with pytest.raises(ProviderStreamError) as info:
            async for _ in model.stream(messages=[{"role": "user", "content": "hi"}]):
                pass
    assert isinstance(info.value, ProviderStreamContentFilterError)
    assert not info.value.retryable

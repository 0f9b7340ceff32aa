"""In-band OpenAI failures whose code names the family their HTTP form has (loopback).

Two families were read as the bare ``ProviderStreamError`` (never retried, counted by the
circuit):

- a rate limit sent as the Responses stream's ``error`` event with the code
  ``too_many_requests`` (what the API writes when a stream is throttled, openai-dotnet#881:
  ``{"type": "error", "error": {"type": "too_many_requests", "code": "too_many_requests",
  "message": "Too Many Requests"}}``): its HTTP form is a 429, a retryable rate limit;
- a ``response.failed`` (or a failed one-shot response) whose ``ResponseError.code`` refuses
  the caller's image input (``invalid_image``, ``image_too_large``, ``failed_to_download_image``,
  ...): the request's own input, as the HTTP 400 for the same image is, so one caller's bad
  images opened the circuit for every other caller.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai_loopback import JSON, event, served

from lionagi.service import (
    AttemptPolicy,
    CircuitPolicy,
    EventStatus,
    ProviderInvalidRequestError,
    ProviderQuotaError,
    ProviderStreamError,
    ProviderStreamInvalidRequestError,
    ProviderStreamQuotaError,
    StreamChunk,
    iModel,
)

KEY = "sk-in-band-families-0123456789"
ONCE = AttemptPolicy(max_attempts=1)
RESPONSE = {"id": "resp_1", "object": "response", "model": "gpt-5", "status": "in_progress"}
THROTTLED = {
    "type": "too_many_requests",
    "code": "too_many_requests",
    "message": "Too Many Requests",
    "param": None,
}
# The ``ResponseError.code`` values (openai-python ``types/responses/response_error.py``) that
# refuse an image the request carries.
IMAGE_CODES = (
    "invalid_image",
    "invalid_image_format",
    "invalid_base64_image",
    "invalid_image_url",
    "image_too_large",
    "image_too_small",
    "image_parse_error",
    "invalid_image_mode",
    "image_file_too_large",
    "unsupported_image_media_type",
    "empty_image_file",
    "failed_to_download_image",
    "image_file_not_found",
)


async def _stream_error(writes: list[bytes]) -> BaseException:
    async with served(writes, api_key=KEY, endpoint="responses", attempt_policy=ONCE) as (_, m):
        with pytest.raises(ProviderStreamError) as raised:
            async for _ in m.stream(input="hi"):
                pass
    return raised.value


@pytest.mark.parametrize("nested", [True, False], ids=["nested", "flat"])
async def test_a_throttled_responses_stream_is_the_retryable_rate_limit(nested: bool) -> None:
    fields = {"error": THROTTLED} if nested else {k: v for k, v in THROTTLED.items() if k != "type"}
    writes = [event("response.created", 0, response=RESPONSE), event("error", 1, **fields)]
    error = await _stream_error(writes)
    assert type(error) is ProviderStreamQuotaError
    assert isinstance(error, ProviderQuotaError)
    assert (error.code, error.kind, error.provider) == ("too_many_requests", "quota", "openai")
    assert error.retryable


def _failed(code: str) -> dict[str, Any]:
    error = {"code": code, "message": f"The image could not be used ({code})."}
    return {**RESPONSE, "status": "failed", "error": error, "output": []}


@pytest.mark.parametrize("code", IMAGE_CODES)
async def test_a_refused_image_in_a_stream_is_an_invalid_request(code: str) -> None:
    writes = [
        event("response.created", 0, response=RESPONSE),
        event("response.failed", 1, response=_failed(code)),
    ]
    error = await _stream_error(writes)
    assert type(error) is ProviderStreamInvalidRequestError
    assert isinstance(error, ProviderInvalidRequestError)
    assert (error.code, error.kind) == (code, "invalid_request")
    assert not error.retryable


@pytest.mark.parametrize("code", ["invalid_image_url", "failed_to_download_image"])
async def test_refused_images_leave_the_circuit_closed_for_other_callers(code: str) -> None:
    circuit = CircuitPolicy(failure_threshold=1, recovery_time=60)
    writes = [json.dumps(_failed(code)).encode()]
    async with served(
        writes, api_key=KEY, endpoint="responses", content_type=JSON, circuit_policy=circuit
    ) as (server, model):
        calls = [await model.invoke(input="hi") for _ in range(2)]
        assert model.circuit_breaker is not None
        state = model.circuit_breaker.state.value
    assert [c.status for c in calls] == [EventStatus.FAILED] * 2
    assert [type(c.exception) for c in calls] == [ProviderStreamInvalidRequestError] * 2
    assert server.requests == 2  # not retried, and the circuit let the second call through
    assert state == "closed"


async def test_a_failed_response_keeps_the_usage_it_was_billed_on_its_error_chunk() -> None:
    usage = {"input_tokens": 1200, "output_tokens": 40, "total_tokens": 1240}
    failed = {**_failed("invalid_image"), "usage": usage}
    writes = [
        event("response.created", 0, response=RESPONSE),
        event("response.failed", 1, response=failed),
    ]
    seen: list[StreamChunk] = []

    async def consume(model: iModel) -> None:
        async for chunk in model.stream(input="hi"):
            seen.append(chunk)

    async with served(writes, api_key=KEY, endpoint="responses", attempt_policy=ONCE) as (_, m):
        with pytest.raises(ProviderStreamInvalidRequestError):
            await consume(m)
    assert [c.type for c in seen] == ["error"]
    assert seen[0].metadata["usage"] == usage

"""The request side and one-shot results as a user drives them (fake server, loopback).

Scalars are refused, not coerced; combinations the API refuses are refused before any request;
a one-shot body that is a failure raises what the stream raises for the same content; the
Responses token estimate counts ``instructions``.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from lionagi.service import (
    EndpointConfigurationError,
    ProviderProtocolError,
    ProviderStreamError,
    iModel,
)
from lionagi.service_testing.fake_server import FakeProviderServer

KEY = "sk-request-side-test-0123456789"
CHAT = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}]}
RESPONSES = {"model": "gpt-5", "input": "hi"}
BASES = {"chat": CHAT, "responses": RESPONSES}


def options(server: FakeProviderServer, scenario: str = "") -> dict[str, object]:
    prefix = f"/scenario/{scenario}" if scenario else ""
    return {
        "base_url": f"{server.base_url}{prefix}/v1",
        "allow_local_network": True,
        "api_key": KEY,
    }


@pytest.mark.parametrize(
    ("row", "field", "value"),
    [
        ("chat", "max_tokens", True),
        ("chat", "max_completion_tokens", 5.0),
        ("chat", "n", "2"),
        ("chat", "temperature", "0.5"),
        ("chat", "store", 1),
        ("chat", "logprobs", "yes"),
        ("chat", "parallel_tool_calls", "true"),
        ("chat", "seed", True),
        ("responses", "max_output_tokens", True),
        ("responses", "max_output_tokens", 5.0),
        ("responses", "temperature", "0.5"),
        ("responses", "top_logprobs", "3"),
        ("responses", "store", 1),
        ("responses", "background", "false"),
        ("responses", "parallel_tool_calls", 0),
    ],
)
async def test_scalars_are_refused_not_coerced(server, row, field, value):
    model = iModel(model=f"openai/{BASES[row]['model']}", endpoint=row, **options(server))
    async with model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(**BASES[row], **{field: value})
        assert refused.value.field == field
    assert server.requests == []  # refused before any request


async def test_valid_scalars_still_pass_and_an_int_is_a_float():
    async with iModel(model="openai/gpt-4.1", endpoint="chat", api_key=KEY) as model:
        payload, _ = model.endpoint.create_payload(
            {**CHAT, "temperature": 1, "max_tokens": 5, "logprobs": True, "top_logprobs": 20}
        )
        assert payload["temperature"] == 1.0
        assert payload["max_tokens"] == 5
        assert payload["top_logprobs"] == 20
    async with iModel(model="openai/gpt-5", endpoint="responses", api_key=KEY) as model:
        payload, _ = model.endpoint.create_payload(
            {**RESPONSES, "max_output_tokens": 64, "store": False, "top_p": 1}
        )
        assert (payload["max_output_tokens"], payload["store"], payload["top_p"]) == (64, False, 1)


@pytest.mark.parametrize(
    ("row", "fields", "named"),
    [
        ("chat", {"top_logprobs": 21, "logprobs": True}, "top_logprobs"),
        ("chat", {"top_logprobs": 3}, "top_logprobs"),
        ("chat", {"top_logprobs": 3, "logprobs": False}, "top_logprobs"),
        ("chat", {"logit_bias": {"50256": 101}}, "logit_bias.50256"),
        ("responses", {"previous_response_id": "resp_1", "conversation": "conv_1"}, "conversation"),
        ("responses", {"background": True, "store": False}, "background"),
    ],
)
async def test_combinations_the_api_refuses_are_refused(row, fields, named):
    async with iModel(model="openai/gpt-5", endpoint=row, api_key=KEY) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            model.endpoint.create_payload({**BASES[row], **fields})
        assert refused.value.field == named
        assert KEY not in str(refused.value)


@pytest.mark.parametrize(
    ("row", "stream_options"),
    [("chat", {"include_usage": True}), ("responses", {"include_obfuscation": False})],
)
async def test_stream_options_only_with_a_stream(server, row, stream_options):
    model_name = BASES[row]["model"]
    async with iModel(model=f"openai/{model_name}", endpoint=row, **options(server)) as model:
        # Refused when the payload is encoded; raised, as the request's other field errors are.
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(**BASES[row], stream_options=stream_options)
        assert refused.value.field == "stream_options"
        assert server.requests == []
        chunks = [c async for c in model.stream(**BASES[row], stream_options=stream_options)]
        assert chunks[-1].type == "result"
        assert server.requests[-1].json["stream_options"] == stream_options


def _ok(body: dict[str, Any]) -> httpx.Response:
    return httpx.Response(200, json=body)


FAILED = {
    "id": "resp_1",
    "object": "response",
    "status": "failed",
    "model": "gpt-5",
    "output": [],
    "error": {"code": "server_error", "message": "The model failed to generate a response."},
}


async def test_a_failed_response_object_raises_what_response_failed_raises():
    async with iModel(model="openai/gpt-5", endpoint="responses", api_key=KEY) as model:
        endpoint = model.endpoint
        with pytest.raises(ProviderStreamError) as one_shot:
            endpoint.check_response(FAILED, _ok(FAILED))
        projector = endpoint.projector
        assert projector is not None
        (chunk,) = projector().feed({"type": "response.failed", "response": FAILED})
        streamed = endpoint.stream_error(chunk)
        assert type(one_shot.value) is type(streamed)
        assert one_shot.value.code == streamed.code == "server_error"
        assert one_shot.value.retryable == streamed.retryable
        # an error object on a response whose status says otherwise is a failure too
        body = {**FAILED, "status": "incomplete", "error": {"code": "rate_limit_exceeded"}}
        with pytest.raises(ProviderStreamError) as marked:
            endpoint.check_response(body, _ok(body))
        assert marked.value.code == "rate_limit_exceeded"
        with pytest.raises(ProviderProtocolError):
            endpoint.check_response([FAILED], httpx.Response(200, json=[FAILED]))


async def test_a_one_shot_function_call_cut_by_max_output_tokens_fails_like_the_stream():
    # What the API answers one-shot when max_output_tokens stops the model inside a call's
    # arguments (the fake server cannot script a cut call: token_limit ends with text).
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": '{"city": "Par',
        "status": "incomplete",
    }
    body = {
        "id": "resp_2",
        "object": "response",
        "status": "incomplete",
        "model": "gpt-5",
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"},
        "output": [call],
        "usage": {"input_tokens": 5, "output_tokens": 16, "total_tokens": 21},
    }
    async with iModel(model="openai/gpt-5", endpoint="responses", api_key=KEY) as model:
        endpoint = model.endpoint
        with pytest.raises(ProviderStreamError) as one_shot:
            endpoint.check_response(body, _ok(body))
        projector = endpoint.projector
        assert projector is not None
        stream = projector()
        assert stream.feed({"type": "response.output_item.done", "item": call}) == ()
        (chunk,) = stream.feed({"type": "response.incomplete", "response": body})
        streamed = endpoint.stream_error(chunk)
        assert type(one_shot.value) is type(streamed)
        assert one_shot.value.code == streamed.code == "max_output_tokens"
        assert one_shot.value.retryable is False
        assert "get_weather" in str(one_shot.value)
        # the same call closed whole is an answer, not a failure
        whole = {**body, "output": [{**call, "arguments": '{"city": "Paris"}'}]}
        assert endpoint.check_response(whole, _ok(whole)) is whole


async def test_complete_and_background_responses_are_returned(server):
    async with iModel(model="openai/gpt-5", endpoint="responses", **options(server)) as model:
        event = await model.invoke(**RESPONSES)
        assert event.exception is None, event.exception
        assert event.execution.response["status"] == "completed"
        queued = {**FAILED, "status": "queued", "error": None}
        assert model.endpoint.check_response(queued, _ok(queued)) is queued
    opts = options(server, "token_limit")  # incomplete text, no tool call: a result, as streamed
    async with iModel(model="openai/gpt-5", endpoint="responses", **opts) as model:
        event = await model.invoke(**RESPONSES)
        assert event.exception is None, event.exception
        assert event.execution.response["status"] == "incomplete"


async def test_a_chat_body_with_an_error_and_200_raises_what_the_stream_raises():
    body = {"error": {"message": "upstream overloaded", "type": "server_error", "code": 503}}
    async with iModel(model="openai/gpt-4.1", endpoint="chat", api_key=KEY) as model:
        endpoint = model.endpoint
        with pytest.raises(ProviderStreamError) as one_shot:
            endpoint.check_response(body, _ok(body))
        projector = endpoint.projector
        assert projector is not None
        (chunk,) = projector().feed(body)
        streamed = endpoint.stream_error(chunk)
        assert type(one_shot.value) is type(streamed)
        assert one_shot.value.retryable == streamed.retryable
        beside = {"choices": [{"index": 0, "finish_reason": "error"}], **body}
        with pytest.raises(ProviderStreamError):
            endpoint.check_response(beside, _ok(beside))
        fine = {"id": "c", "choices": [], "error": None}
        assert endpoint.check_response(fine, _ok(fine)) is fine


async def test_the_responses_token_estimate_counts_instructions_and_tools():
    async with iModel(model="openai/gpt-5", endpoint="responses", api_key=KEY) as model:
        endpoint = model.endpoint
        bare, _ = endpoint.create_payload({**RESPONSES, "input": "x" * 40})
        assert endpoint.estimate_tokens(bare) == 10
        instructed, _ = endpoint.create_payload(
            {**RESPONSES, "input": "x" * 40, "instructions": "y" * 400}
        )
        assert endpoint.estimate_tokens(instructed) == 110
        tool = {"type": "function", "name": "lookup", "parameters": {"type": "object"}}
        tooled, _ = endpoint.create_payload({**RESPONSES, "input": "x" * 40, "tools": [tool]})
        estimate = endpoint.estimate_tokens(tooled)
        assert estimate is not None
        assert estimate > 10


async def test_a_stored_prompt_needs_no_input(server):
    # ``input`` is optional on POST /v1/responses: a stored prompt (a template with its own
    # messages) is a whole request. Requiring it refused a documented call before sending.
    async with iModel(model="openai/gpt-5", endpoint="responses", **options(server)) as model:
        payload, _ = model.endpoint.create_payload(
            {"model": "gpt-5", "prompt": {"id": "pmpt_123", "variables": {"city": "Paris"}}}
        )
        assert "input" not in payload
        assert payload["prompt"] == {"id": "pmpt_123", "variables": {"city": "Paris"}}
        call = await model.invoke(model="gpt-5", prompt={"id": "pmpt_123"})
    assert call.status.value == "completed", call.exception
    [request] = server.requests
    assert request.json == {"model": "gpt-5", "prompt": {"id": "pmpt_123"}}

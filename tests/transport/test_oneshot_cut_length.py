"""A chat one-shot whose tool call the output token limit cut fails as its stream does.

A model that reaches ``max_tokens`` while writing a tool call's arguments stops mid-JSON with
``finish_reason: "length"``. The chat stream ends with a typed, non-retried
``ProviderStreamError`` naming the call and the fix; the one-shot path returned the body, so
``invoke()`` COMPLETED and handed the caller arguments no tool can run. Both now decide with
one check (``ChatCompletionsProjector.cut_at_length``). Each answer is served by a real
loopback server, once as a ``chat.completion`` and once as the SSE stream of the same answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import EventStatus, ProviderStreamError, iModel
from lionagi.service.http import OpenAIChatEndpoint

MESSAGES = [{"role": "user", "content": "weather in Oslo?"}]


def _call(index: int, name: str, arguments: str) -> dict[str, Any]:
    return {
        "index": index,
        "id": f"call_{index}",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def _completion(calls: list[dict[str, Any]], content: str | None = None) -> str:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [{k: v for k, v in c.items() if k != "index"} for c in calls]
    choice = {"index": 0, "message": message, "finish_reason": "length"}
    return json.dumps({"id": "c-1", "object": "chat.completion", "model": "m", "choices": [choice]})


def _stream(calls: list[dict[str, Any]], content: str | None = None) -> list[str]:
    def frame(delta: dict[str, Any], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        chunk = {"id": "c-1", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
        return f"data: {json.dumps(chunk)}\n\n"

    frames = [frame({"content": content})] if content else []
    frames += [frame({"tool_calls": [call]}) for call in calls]
    return [*frames, frame({}, "length"), "data: [DONE]\n\n"]


def _config(base_url: str, secret: str) -> dict[str, Any]:
    return {
        "name": "chat",
        "provider": "cuttest",
        "endpoint": "chat/completions",
        "base_url": base_url + "/v1",
        "api_key": secret,
        "allow_local_network": True,
        "timeout": 10.0,
    }


async def _invoke(serve, wire, secret, body: str) -> tuple[Any, int]:
    server = await serve(lambda req: wire.full(200, body))
    async with iModel(endpoint=OpenAIChatEndpoint(_config(server.base_url, secret))) as model:
        event = await model.invoke(messages=MESSAGES)
    return event, len(server.requests)


async def _stream_outcome(serve, wire, secret, frames: list[str]) -> tuple[list[Any], Any]:
    server = await serve(lambda req: wire.sse_stream(*frames))
    chunks: list[Any] = []
    async with iModel(endpoint=OpenAIChatEndpoint(_config(server.base_url, secret))) as model:
        try:
            async for chunk in model.stream(messages=MESSAGES):
                chunks.append(chunk)
        except ProviderStreamError as exc:
            return chunks, exc
    return chunks, None


CUT = {
    "mid-arguments": [_call(0, "get_weather", '{"city": "Os')],
    "right after its name": [_call(0, "get_weather", "")],
    "last of two": [_call(0, "now", "{}"), _call(1, "get_weather", '{"city": ')],
}


@pytest.mark.parametrize("calls", CUT.values(), ids=CUT.keys())
async def test_a_cut_tool_call_fails_the_one_shot_call_as_the_stream(
    serve, wire, secret, calls: list[dict[str, Any]]
) -> None:
    event, requests = await _invoke(serve, wire, secret, _completion(calls))
    _, streamed = await _stream_outcome(serve, wire, secret, _stream(calls))

    assert event.status is EventStatus.FAILED
    error = event.exception
    assert type(error) is ProviderStreamError and type(streamed) is ProviderStreamError
    assert str(error) == str(streamed)  # same message, same fix named
    assert error.code == streamed.code == "length"
    assert "get_weather" in str(error) and "max_tokens" in str(error)
    assert not error.retryable and requests == 1  # the same request stops in the same place
    assert secret not in str(error)


async def test_arguments_that_parse_at_the_limit_are_the_answer(serve, wire, secret) -> None:
    # An earlier call with no argument text is a call without input, as in the stream.
    calls = [_call(0, "now", ""), _call(1, "get_weather", '{"city": "Oslo"}')]
    event, _ = await _invoke(serve, wire, secret, _completion(calls))
    chunks, streamed = await _stream_outcome(serve, wire, secret, _stream(calls))

    assert event.status is EventStatus.COMPLETED
    choice = event.execution.response["choices"][0]
    assert choice["finish_reason"] == "length"
    assert choice["message"]["tool_calls"][1]["function"]["arguments"] == '{"city": "Oslo"}'
    assert streamed is None
    assert [(c.tool_name, c.tool_input) for c in chunks if c.type == "tool_use"] == [
        ("now", {}),
        ("get_weather", {"city": "Oslo"}),
    ]


async def test_a_text_answer_cut_at_the_limit_is_still_an_answer(serve, wire, secret) -> None:
    event, _ = await _invoke(serve, wire, secret, _completion([], content="It is sunny and"))
    chunks, streamed = await _stream_outcome(serve, wire, secret, _stream([], "It is sunny and"))

    assert event.status is EventStatus.COMPLETED
    choice = event.execution.response["choices"][0]
    assert (choice["finish_reason"], choice["message"]["content"]) == ("length", "It is sunny and")
    assert streamed is None and chunks[-1].metadata["finish_reason"] == "length"


async def test_cut_arguments_under_another_finish_reason_are_left_as_they_were(
    serve, wire, secret
) -> None:
    # Only "length" says the limit cut them; the one-shot body is handed over unchanged.
    body = json.loads(_completion([_call(0, "get_weather", '{"city": "Os')]))
    body["choices"][0]["finish_reason"] = "tool_calls"
    event, _ = await _invoke(serve, wire, secret, json.dumps(body))

    assert event.status is EventStatus.COMPLETED
    call = event.execution.response["choices"][0]["message"]["tool_calls"][0]
    assert call["function"]["arguments"] == '{"city": "Os'

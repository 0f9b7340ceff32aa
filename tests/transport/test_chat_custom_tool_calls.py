"""A chat call of a custom tool is delivered with its name and its free-text input.

OpenAI's Chat Completions has custom tools (``tools: [{"type": "custom", "custom": {...}}]``):
the model's call is ``{"id", "type": "custom", "custom": {"name", "input"}}`` in a one-shot
message and, in a stream, ``delta.tool_calls[i] = {"index", "id"?, "type"?, "custom": {"name"?,
"input": <piece>}}``. The chat projector read only ``function``, so such a call came out as a
``tool_use`` with no name and empty input. It now comes out with the tool's name and
``tool_input={"input": <the joined text>}``, the shape the Responses dialect gives a
``custom_tool_call``; a turn carrying the call is sendable back as it came. Each answer is
served by a real loopback server.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from lionagi.service import (
    EventStatus,
    OpenAIChatCompletionsRequest,
    ProviderProtocolError,
    ProviderStreamError,
    iModel,
)
from lionagi.service.http import OpenAIChatEndpoint

HANG_GUARD = 20.0
MESSAGES = [{"role": "user", "content": "patch the file"}]
PATCH = "*** Begin Patch\n*** Update File: a.py\n-x = 1\n+x = 2\n*** End Patch"


def _frame(delta: dict[str, Any], finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    chunk = {"id": "c-1", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
    return f"data: {json.dumps(chunk)}\n\n"


def _custom_deltas(index: int, call_id: str, name: str, text: str) -> list[dict[str, Any]]:
    """The call as OpenAI streams it: id, type and name first, then the input in pieces."""
    first = {
        "index": index,
        "id": call_id,
        "type": "custom",
        "custom": {"name": name, "input": ""},
    }
    pieces = [text[i : i + 7] for i in range(0, len(text), 7)]
    return [first, *({"index": index, "custom": {"input": piece}} for piece in pieces)]


def _frames(calls: list[dict[str, Any]], finish: str) -> list[str]:
    return [
        _frame({"role": "assistant", "content": None}),
        *(_frame({"tool_calls": [call]}) for call in calls),
        _frame({}, finish),
        "data: [DONE]\n\n",
    ]


def _config(base_url: str, secret: str) -> dict[str, Any]:
    return {
        "name": "chat",
        "provider": "customtool",
        "endpoint": "chat/completions",
        "base_url": base_url + "/v1",
        "api_key": secret,
        "allow_local_network": True,
        "timeout": 10.0,
    }


async def _stream(serve, wire, secret, frames: list[str]) -> tuple[list[Any], Exception | None]:
    server = await serve(lambda req: wire.sse_stream(*frames))
    chunks: list[Any] = []
    async with iModel(endpoint=OpenAIChatEndpoint(_config(server.base_url, secret))) as model:
        try:
            with anyio.fail_after(HANG_GUARD):
                async for chunk in model.stream(messages=MESSAGES):
                    chunks.append(chunk)
        except (ProviderStreamError, ProviderProtocolError) as exc:
            return chunks, exc
    return chunks, None


async def _invoke(serve, wire, secret, body: dict[str, Any]) -> Any:
    server = await serve(lambda req: wire.full(200, json.dumps(body)))
    async with iModel(endpoint=OpenAIChatEndpoint(_config(server.base_url, secret))) as model:
        with anyio.fail_after(HANG_GUARD):
            return await model.invoke(messages=MESSAGES)


def _completion(tool_calls: list[dict[str, Any]], finish: str) -> dict[str, Any]:
    message = {"role": "assistant", "content": None, "tool_calls": tool_calls}
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return {"id": "c-1", "object": "chat.completion", "model": "m", "choices": [choice]}


def _tool_uses(chunks: list[Any]) -> list[tuple[Any, Any, Any]]:
    return [(c.tool_id, c.tool_name, c.tool_input) for c in chunks if c.type == "tool_use"]


CUSTOM_CALL = {"id": "call_p", "type": "custom", "custom": {"name": "apply_patch", "input": PATCH}}
FUNCTION_CALL = {
    "id": "call_w",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
}


async def test_a_streamed_custom_call_is_a_tool_use_with_its_name_and_text(
    serve, wire, secret
) -> None:
    # Beside a function call of the same turn, each keeps its own shape.
    function = {**FUNCTION_CALL, "index": 1}
    calls = [*_custom_deltas(0, "call_p", "apply_patch", PATCH), function]
    chunks, error = await _stream(serve, wire, secret, _frames(calls, "tool_calls"))

    assert error is None
    assert _tool_uses(chunks) == [
        ("call_p", "apply_patch", {"input": PATCH}),
        ("call_w", "get_weather", {"city": "Oslo"}),
    ]
    assert chunks[-1].type == "result" and chunks[-1].metadata["finish_reason"] == "tool_calls"


async def test_a_whole_completion_in_a_stream_delivers_the_custom_call(serve, wire, secret) -> None:
    # A server answering the stream with the one-shot object (``message``, not ``delta``).
    body = _completion([CUSTOM_CALL], "tool_calls")
    chunks, error = await _stream(serve, wire, secret, [f"data: {json.dumps(body)}\n\n"])

    assert error is None
    assert _tool_uses(chunks) == [("call_p", "apply_patch", {"input": PATCH})]


async def test_a_custom_call_with_empty_input_is_delivered_with_empty_text(
    serve, wire, secret
) -> None:
    call = {"index": 0, "id": "c", "type": "custom", "custom": {"name": "ping", "input": ""}}
    chunks, error = await _stream(serve, wire, secret, _frames([call], "tool_calls"))

    assert error is None
    assert _tool_uses(chunks) == [("c", "ping", {"input": ""})]


async def test_a_custom_call_cut_by_the_limit_fails_invoke_as_the_stream(
    serve, wire, secret
) -> None:
    # Free text shows no end: the last call of a choice stopped at "length" is the one the
    # model was writing. An earlier call was closed before it and is an answer.
    head = {**CUSTOM_CALL, "id": "call_a", "custom": {"name": "note", "input": "done"}}
    cut = {**CUSTOM_CALL, "custom": {"name": "apply_patch", "input": PATCH[:20]}}
    event = await _invoke(serve, wire, secret, _completion([head, cut], "length"))
    deltas = [
        *_custom_deltas(0, "call_a", "note", "done"),
        *_custom_deltas(1, "call_p", "apply_patch", PATCH[:20]),
    ]
    chunks, streamed = await _stream(serve, wire, secret, _frames(deltas, "length"))

    assert event.status is EventStatus.FAILED
    error = event.exception
    assert type(error) is ProviderStreamError and type(streamed) is ProviderStreamError
    assert str(error) == str(streamed)
    assert "custom tool call 'apply_patch'" in str(error) and "max_tokens" in str(error)
    assert error.code == "length" and not error.retryable
    assert secret not in str(error)
    assert _tool_uses(chunks) == [("call_a", "note", {"input": "done"})]


async def test_a_custom_call_before_the_cut_is_the_answer_in_both_paths(
    serve, wire, secret
) -> None:
    # The last call (a function whose arguments parse) is whole; the custom call before it too.
    function = {**FUNCTION_CALL, "index": 1}
    event = await _invoke(serve, wire, secret, _completion([CUSTOM_CALL, FUNCTION_CALL], "length"))
    calls = [*_custom_deltas(0, "call_p", "apply_patch", PATCH), function]
    chunks, streamed = await _stream(serve, wire, secret, _frames(calls, "length"))

    assert event.status is EventStatus.COMPLETED
    assert event.execution.response["choices"][0]["message"]["tool_calls"][0] == CUSTOM_CALL
    assert streamed is None
    assert _tool_uses(chunks) == [
        ("call_p", "apply_patch", {"input": PATCH}),
        ("call_w", "get_weather", {"city": "Oslo"}),
    ]


MALFORMED = {
    "input not text": [{"index": 0, "id": "c", "custom": {"name": "t", "input": {"a": 1}}}],
    "custom not an object": [{"index": 0, "id": "c", "type": "custom", "custom": "x"}],
    "function then custom": [
        {"index": 0, "id": "c", "function": {"name": "f", "arguments": "{"}},
        {"index": 0, "custom": {"input": "text"}},
    ],
    "custom then function": [
        {"index": 0, "id": "c", "custom": {"name": "t", "input": "te"}},
        {"index": 0, "function": {"arguments": "xt"}},
    ],
    "both in one piece": [
        {"index": 0, "id": "c", "function": {"name": "f"}, "custom": {"name": "t"}},
    ],
}


@pytest.mark.parametrize("calls", MALFORMED.values(), ids=MALFORMED.keys())
async def test_a_malformed_custom_call_is_a_protocol_error(
    serve, wire, secret, calls: list[dict[str, Any]]
) -> None:
    chunks, error = await _stream(serve, wire, secret, _frames(calls, "tool_calls"))

    assert type(error) is ProviderProtocolError
    assert "custom" in str(error)
    assert not _tool_uses(chunks)


async def test_a_custom_tool_turn_is_sent_back_as_it_came(serve, wire, secret) -> None:
    # The tool, a forced choice of it, and the assistant turn carrying its call with the tool's
    # answer: accepted by the request model and sent byte for byte.
    request: dict[str, Any] = {
        "model": "m",
        "messages": [
            *MESSAGES,
            {"role": "assistant", "content": None, "tool_calls": [CUSTOM_CALL]},
            {"role": "tool", "tool_call_id": "call_p", "content": "applied"},
        ],
        "tools": [
            {
                "type": "custom",
                "custom": {
                    "name": "apply_patch",
                    "description": "Apply a patch.",
                    "format": {
                        "type": "grammar",
                        "grammar": {"syntax": "lark", "definition": "start: /(.|\\n)+/"},
                    },
                },
            },
            {"type": "custom", "custom": {"name": "note", "format": {"type": "text"}}},
        ],
        "tool_choice": {"type": "custom", "custom": {"name": "apply_patch"}},
    }
    body = _completion([CUSTOM_CALL], "tool_calls")
    server = await serve(lambda req: wire.full(200, json.dumps(body)))
    config = {**_config(server.base_url, secret), "request_options": OpenAIChatCompletionsRequest}
    async with iModel(endpoint=OpenAIChatEndpoint(config)) as model:
        with anyio.fail_after(HANG_GUARD):
            event = await model.invoke(**json.loads(json.dumps(request)))

    assert event.status is EventStatus.COMPLETED
    (sent,) = server.requests
    received = json.loads(sent.body)
    for name in ("messages", "tools", "tool_choice"):
        assert received[name] == request[name]

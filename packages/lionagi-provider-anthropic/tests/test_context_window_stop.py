"""A tool call cut by ``stop_reason: "model_context_window_exceeded"`` is the context error.

Anthropic stops generation with ``model_context_window_exceeded`` when the output reaches the
model's context window before ``max_tokens`` (the default from Claude Sonnet 4.5 on, so a caller
can ask for the largest ``max_tokens`` without counting its input; anthropic-sdk-python's
``StopReason``). Stopped inside a tool call, it leaves the call's input cut short, as
``max_tokens`` does. The stream blamed the server for it (``ProviderProtocolError``, "not valid
JSON"), a call cut right after its name came out as a call with input ``{}`` the model never
wrote, and a one-shot answer ending in such a call completed. Each is now the context family's
error (``ProviderStreamContextError``: the conversation does not leave room; raising
``max_tokens`` does not help), sent once.
"""

from __future__ import annotations

import json
from typing import Any

from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderContextError,
    ProviderStreamContextError,
    StreamChunk,
    iModel,
)
from lionagi.service_testing import scripted_stream_server

KEY = "sk-ant-test-FAKEkey0123456789abcdef"
FAST = AttemptPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0)
HI = [{"role": "user", "content": "hi"}]
TOOLS = [{"name": "write_file", "input_schema": {"type": "object"}}]
WINDOW = "model_context_window_exceeded"
USAGE = {"input_tokens": 199_000, "output_tokens": 1}


def _event(data: dict[str, Any]) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode()


def _stream(*partial_json: str) -> list[bytes]:
    """A stream whose one tool block streams ``partial_json`` and then stops at the window."""
    message = {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-x"}
    block = {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}
    deltas = [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": part},
        }
        for part in partial_json
    ]
    events = [
        {"type": "message_start", "message": {**message, "content": [], "usage": USAGE}},
        {"type": "content_block_start", "index": 0, "content_block": block},
        *deltas,
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": WINDOW, "stop_sequence": None},
            "usage": {"output_tokens": 900},
        },
        {"type": "message_stop"},
    ]
    return [_event(event) for event in events]


def _model(url: str) -> iModel:
    return iModel(
        model="anthropic/claude-x",
        api_key=KEY,
        base_url=url,
        allow_local_network=True,
        attempt_policy=FAST,
    )


async def _streamed(writes: list[bytes]) -> tuple[list[StreamChunk], BaseException, int]:
    chunks: list[StreamChunk] = []
    async with scripted_stream_server(writes) as server, _model(server.url) as model:
        try:
            async for chunk in model.stream(messages=HI, tools=TOOLS):
                chunks.append(chunk)
        except Exception as exc:  # the assertion below names what was expected
            return chunks, exc, server.requests
    raise AssertionError(f"the stream completed: {[c.type for c in chunks]}")


def _assert_window_error(error: BaseException) -> None:
    assert type(error) is ProviderStreamContextError, repr(error)
    assert isinstance(error, ProviderContextError)
    assert error.code == WINDOW
    assert "write_file" in str(error)
    assert not error.retryable


async def test_a_stream_cut_inside_a_tool_input_raises_the_context_error() -> None:
    chunks, error, requests = await _streamed(_stream('{"path": "/tmp/a', '.txt", "body": "x'))
    _assert_window_error(error)
    assert [c.type for c in chunks] == ["error"]
    assert chunks[0].metadata["finish_reason"] == WINDOW
    assert chunks[0].metadata["usage"]["output_tokens"] == 900
    assert requests == 1


async def test_a_stream_cut_right_after_the_tool_name_is_no_empty_call() -> None:
    chunks, error, requests = await _streamed(_stream())
    _assert_window_error(error)
    assert [c.type for c in chunks] == ["error"]  # never a tool_use with input {}
    assert requests == 1


async def test_a_one_shot_answer_ending_in_a_cut_tool_call_fails_with_the_context_error() -> None:
    cut = {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {"path": "/t"}}
    body = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [{"type": "text", "text": "Writing."}, cut],
        "stop_reason": WINDOW,
        "stop_sequence": None,
        "usage": {**USAGE, "output_tokens": 900},
    }
    raw = [json.dumps(body).encode()]
    server_cm = scripted_stream_server(raw, content_type="application/json")
    async with server_cm as server, _model(server.url) as model:
        call = await model.invoke(messages=HI, tools=TOOLS)
    assert call.status is EventStatus.FAILED
    assert call.exception is not None
    _assert_window_error(call.exception)
    assert server.requests == 1

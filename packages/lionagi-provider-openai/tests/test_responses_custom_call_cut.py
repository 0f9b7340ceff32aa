"""A Responses custom tool call cut by ``max_output_tokens`` is an error, as on chat.

A custom tool's input is free text: nothing in it shows it whole. The Responses API closes the
item being written when the output token limit strikes (``response.output_item.done`` carrying
the prefix) and only then says ``response.incomplete`` (``max_output_tokens``); the call was
delivered as a ``tool_use`` on that prefix, so the tool ran on half a patch. Now the last custom
call written before that limit ends the stream with an error chunk naming it (a
``ProviderStreamError``, not retried), and ``invoke()`` raises the same error for the same
response object; a custom call the model wrote on after is whole and delivered. Streams and
one-shot answers are served by a real loopback server.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from openai_loopback import JSON, numbered, served

from lionagi.providers.openai import ResponsesProjector
from lionagi.service import (
    EventStatus,
    ProviderProtocolError,
    ProviderStreamError,
    StreamChunk,
)

KEY = "sk-custom-cut-test-0123456789"
HANG_GUARD = 20.0
PATCH = "*** Begin Patch\n*** Update File: a.py\n-x = 1\n+x = 2\n*** End Patch"
CUT = PATCH[:20]
USAGE = {"input_tokens": 30, "output_tokens": 16, "total_tokens": 46}
RESPONSE = {"id": "resp_c", "object": "response", "model": "gpt-5", "status": "in_progress"}


def _incomplete_body(output: list[dict[str, Any]], reason: str) -> dict[str, Any]:
    return {
        **RESPONSE,
        "status": "incomplete",
        "error": None,
        "incomplete_details": {"reason": reason},
        "output": output,
        "usage": USAGE,
    }


def _custom(index: int, name: str, text: str) -> dict[str, Any]:
    return {
        "type": "custom_tool_call",
        "id": f"ctc_{index}",
        "call_id": f"call_{index}",
        "name": name,
        "input": text,
    }


def _custom_events(index: int, name: str, text: str, *, close: bool = True) -> list[Any]:
    """A custom call as the API streams it: added, input pieces, (done events)."""
    item = _custom(index, name, text)
    ref = {"item_id": item["id"], "output_index": index}
    half = len(text) // 2
    events: list[Any] = [
        {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {**item, "input": ""},
        },
        {"type": "response.custom_tool_call_input.delta", **ref, "delta": text[:half]},
        {"type": "response.custom_tool_call_input.delta", **ref, "delta": text[half:]},
    ]
    if close:
        events += [
            {"type": "response.custom_tool_call_input.done", **ref, "input": text},
            {"type": "response.output_item.done", "output_index": index, "item": item},
        ]
    return events


def _terminal(output: list[dict[str, Any]], reason: str = "max_output_tokens") -> dict[str, Any]:
    return {"type": "response.incomplete", "response": _incomplete_body(output, reason)}


async def _stream(events: list[Any]) -> tuple[list[StreamChunk], Exception | None, int]:
    chunks: list[StreamChunk] = []
    async with served(numbered(events), api_key=KEY, endpoint="responses") as (server, model):
        try:
            with anyio.fail_after(HANG_GUARD):
                async for chunk in model.stream(input="patch it", max_output_tokens=16):
                    chunks.append(chunk)
        except ProviderStreamError as exc:
            return chunks, exc, server.requests
    return chunks, None, server.requests


async def _invoke(body: dict[str, Any]) -> tuple[Any, int]:
    one_shot = served(
        [json.dumps(body).encode()], api_key=KEY, endpoint="responses", content_type=JSON
    )
    async with one_shot as (server, model):
        with anyio.fail_after(HANG_GUARD):
            event = await model.invoke(input="patch it", max_output_tokens=16)
        return event, server.requests


def _tool_uses(chunks: list[StreamChunk]) -> list[tuple[Any, Any, Any]]:
    return [(c.tool_id, c.tool_name, c.tool_input) for c in chunks if c.type == "tool_use"]


async def test_a_custom_call_cut_by_max_output_tokens_fails_stream_and_invoke_alike() -> None:
    # An earlier custom call, then the one being written when the limit struck (closed with
    # its prefix). The cut one came out as a tool_use on the prefix, the response a success.
    output = [_custom(0, "note", "done"), _custom(1, "apply_patch", CUT)]
    events = [
        {"type": "response.created", "response": RESPONSE},
        *_custom_events(0, "note", "done"),
        *_custom_events(1, "apply_patch", CUT),
        _terminal(output),
    ]
    chunks, streamed, stream_requests = await _stream(events)
    event, invoke_requests = await _invoke(_incomplete_body(output, "max_output_tokens"))

    assert type(streamed) is ProviderStreamError
    assert _tool_uses(chunks) == [("call_0", "note", {"input": "done"})]
    assert event.status is EventStatus.FAILED
    error = event.exception
    assert type(error) is ProviderStreamError
    assert str(error) == str(streamed)
    assert "custom tool call 'apply_patch'" in str(error)
    assert "max_output_tokens" in str(error)
    assert error.code == "max_output_tokens"
    assert not error.retryable
    assert KEY not in str(error)
    assert stream_requests == invoke_requests == 1


async def test_an_open_custom_call_at_the_limit_is_cut_too() -> None:
    # Input pieces, no done events, then the limit: it was dropped without a word.
    events = [*_custom_events(0, "apply_patch", CUT, close=False), _terminal([])]
    chunks, streamed, _ = await _stream(events)

    assert type(streamed) is ProviderStreamError
    assert "custom tool call 'apply_patch'" in str(streamed)
    assert _tool_uses(chunks) == []


async def test_a_custom_call_the_model_wrote_on_after_is_whole_in_both_paths() -> None:
    # Text after the call: the call closed before the limit cut the text. Delivered, in order.
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "incomplete",
        "content": [{"type": "output_text", "text": "Patched a", "annotations": []}],
    }
    output = [_custom(0, "apply_patch", PATCH), message]
    events = [
        *_custom_events(0, "apply_patch", PATCH),
        {"type": "response.output_item.added", "output_index": 1, "item": {**message}},
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 1,
            "delta": "Patched a",
        },
        _terminal(output),
    ]
    chunks, streamed, _ = await _stream(events)
    event, _ = await _invoke(_incomplete_body(output, "max_output_tokens"))

    assert streamed is None
    assert [c.type for c in chunks] == ["tool_use", "text", "result"]
    assert _tool_uses(chunks) == [("call_0", "apply_patch", {"input": PATCH})]
    assert chunks[-1].metadata["finish_reason"] == "max_output_tokens"
    assert event.status is EventStatus.COMPLETED


# --- the projector, without a socket --------------------------------------------------------------


def _run(events: list[Any]) -> list[StreamChunk]:
    projector = ResponsesProjector((KEY,))
    out: list[StreamChunk] = []
    for event in events:
        out.extend(projector.feed(event))
        if projector.done:
            return out
    out.extend(projector.end(eof=True))
    return out


@pytest.mark.parametrize("kind", ["response.completed", "response.incomplete"])
def test_a_last_custom_call_at_another_end_is_a_tool_use(kind: str) -> None:
    # Completed, or incomplete for another reason (a content filter): not a token-limit cut.
    body = _incomplete_body([], "content_filter")
    if kind == "response.completed":
        body = {**body, "status": "completed", "incomplete_details": None}
    chunks = _run([*_custom_events(0, "apply_patch", PATCH), {"type": kind, "response": body}])
    assert [c.type for c in chunks] == ["tool_use", "result"]
    assert chunks[0].tool_input == {"input": PATCH}


def test_a_closed_custom_call_then_a_failure_is_delivered_before_the_error() -> None:
    failed = {"type": "response.failed", "response": {"error": {"message": "boom"}}}
    chunks = _run([*_custom_events(0, "apply_patch", PATCH), failed])
    assert [c.type for c in chunks] == ["tool_use", "error"]


def test_the_cut_chunk_has_the_function_call_cut_shape() -> None:
    chunks = _run([*_custom_events(0, "apply_patch", CUT), _terminal([])])
    (error,) = chunks
    assert error.type == "error"
    assert error.is_error
    assert error.metadata["code"] == error.metadata["finish_reason"] == "max_output_tokens"
    assert error.metadata["usage"] == USAGE


def test_a_custom_call_after_an_unparsed_function_call_shows_that_one_malformed() -> None:
    # A cut is the last thing written: a function call with broken arguments followed by
    # another call was malformed, not cut.
    function = {
        "type": "function_call",
        "id": "fc_0",
        "call_id": "call_f",
        "name": "f",
        "arguments": '{"a": ',
    }
    events = [
        {"type": "response.output_item.done", "output_index": 0, "item": function},
        {"type": "response.output_item.done", "output_index": 1, "item": _custom(1, "g", "x")},
    ]
    with pytest.raises(ProviderProtocolError, match="not valid JSON"):
        _run([*events, _terminal([])])


@pytest.mark.parametrize("text", [None, 3, {"a": 1}])
def test_a_custom_call_input_that_is_not_text_is_a_protocol_error(text: Any) -> None:
    item = {**_custom(0, "apply_patch", ""), "input": text}
    with pytest.raises(ProviderProtocolError, match="not text"):
        _run([{"type": "response.output_item.done", "output_index": 0, "item": item}])

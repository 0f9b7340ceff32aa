"""The Responses projector over real event sequences, driven without a socket.

The sequences follow the grammar OpenAI streams (and the fake server reproduces): named events,
output items opened and closed, one terminal event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from lionagi.providers.openai import RESPONSES_IGNORED_EVENTS, ResponsesProjector
from lionagi.service import (
    ProviderProtocolError,
    ProviderStreamError,
    StreamChunk,
    classify_stream_error,
)
from lionagi.service.http import DONE, ProjectorBase

SECRET = "sekrit-value-1234"


def run(events: Sequence[Any], *, eof: bool = True) -> list[StreamChunk]:
    projector = ResponsesProjector((SECRET,))
    out: list[StreamChunk] = []
    for event in events:
        if event is DONE:
            out.extend(projector.end(eof=False))
        else:
            out.extend(projector.feed(event))
        if projector.done:
            return out
    if eof:
        out.extend(projector.end(eof=True))
    return out


USAGE = {"input_tokens": 4, "output_tokens": 6, "total_tokens": 10}


def test_it_is_built_on_the_core_projector_base() -> None:
    assert issubclass(ResponsesProjector, ProjectorBase)


def test_text_reasoning_tool_call_and_one_result_with_usage() -> None:
    chunks = run(
        [
            {"type": "response.created", "response": {"id": "r"}},
            {"type": "response.in_progress"},
            {"type": "response.output_item.added", "item": {"type": "reasoning"}},
            {"type": "response.reasoning_summary_text.delta", "delta": "think"},
            {"type": "response.reasoning_text.delta", "delta": "ing"},
            {"type": "response.output_item.done", "item": {"type": "reasoning"}},
            {"type": "response.content_part.added"},
            {"type": "response.output_text.delta", "delta": "Hi"},
            {"type": "response.output_text.delta", "delta": "!"},
            {"type": "response.output_text.done", "text": "Hi!"},
            {"type": "response.function_call_arguments.delta", "delta": '{"q"'},
            {"type": "response.function_call_arguments.delta", "delta": ': "x"}'},
            {"type": "response.function_call_arguments.done", "arguments": '{"q": "x"}'},
            {
                "type": "response.output_item.done",
                "item": {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_9",
                    "name": "search",
                    "arguments": '{"q": "x"}',
                },
            },
            {
                "type": "response.completed",
                "response": {"status": "completed", "model": "gpt-r", "usage": USAGE},
            },
            {"type": "response.output_text.delta", "delta": "after end"},
        ]
    )
    assert [(c.type, c.content, c.is_delta) for c in chunks[:4]] == [
        ("thinking", "think", True),
        ("thinking", "ing", True),
        ("text", "Hi", True),
        ("text", "!", True),
    ]
    tool = chunks[4]
    assert (tool.type, tool.tool_id, tool.tool_name, tool.tool_input) == (
        "tool_use",
        "call_9",  # the call_id the caller answers with, not the item id
        "search",
        {"q": "x"},
    )
    assert [c.type for c in chunks].count("tool_use") == 1
    assert chunks[5].type == "result"
    assert chunks[5].metadata == {"usage": USAGE, "model": "gpt-r", "finish_reason": "completed"}
    assert len(chunks) == 6


def test_custom_tool_input_is_carried_as_text() -> None:
    item = {"type": "custom_tool_call", "call_id": "c1", "name": "grammar", "input": "a+b"}
    chunks = run([{"type": "response.output_item.done", "item": item}], eof=False)
    assert chunks[0].tool_input == {"input": "a+b"}


def test_tool_arguments_that_are_not_an_object_are_a_protocol_error() -> None:
    item = {"type": "function_call", "call_id": "c", "name": "f", "arguments": "[1]"}
    with pytest.raises(ProviderProtocolError, match="not a JSON object"):
        run([{"type": "response.output_item.done", "item": item}], eof=False)


def test_refusal_deltas_are_marked_text() -> None:
    chunks = run([{"type": "response.refusal.delta", "delta": "no"}], eof=False)
    assert (chunks[0].type, chunks[0].content, chunks[0].metadata) == (
        "text",
        "no",
        {"refusal": True},
    )


def test_incomplete_reports_the_reason() -> None:
    chunks = run(
        [
            {
                "type": "response.incomplete",
                "response": {
                    "status": "incomplete",
                    "incomplete_details": {"reason": "max_output_tokens"},
                    "usage": USAGE,
                },
            }
        ]
    )
    assert chunks[-1].metadata["finish_reason"] == "max_output_tokens"
    assert chunks[-1].metadata["usage"] == USAGE


@pytest.mark.parametrize(
    "event",
    [
        {"type": "response.failed", "response": {"error": {"code": "x", "message": "boom"}}},
        {"type": "error", "code": "x", "message": "boom", "param": None},
        {"type": "error", "error": {"code": "x", "message": "boom"}},
    ],
)
def test_failure_is_one_error_chunk_then_stop(event: Any) -> None:
    chunks = run([{"type": "response.output_text.delta", "delta": "a"}, event, {"type": "x"}])
    assert [c.type for c in chunks] == ["text", "error"]
    assert chunks[1].is_error
    assert chunks[1].content == "boom"
    assert chunks[1].metadata["code"] == "x"


def test_error_event_is_redacted_and_classifies() -> None:
    event = {
        "type": "error",
        "code": "rate_limit_exceeded",
        "message": f"Rate limit reached for requests ({SECRET})",
    }
    chunks = run([event])
    assert SECRET not in (chunks[0].content or "")
    err = classify_stream_error(chunks[0].content, chunks[0].metadata)
    assert isinstance(err, ProviderStreamError)
    assert err.kind == "quota"


def test_truncated_is_a_protocol_error() -> None:
    with pytest.raises(ProviderProtocolError, match="ended before completion"):
        run([{"type": "response.output_text.delta", "delta": "a"}])


def test_empty_stream_ends_without_chunks() -> None:
    assert run([]) == []


def test_unknown_event_is_a_protocol_error() -> None:
    with pytest.raises(ProviderProtocolError, match=r"response\.brand_new"):
        run([{"type": "response.brand_new", "delta": "?"}])


def test_non_object_event_is_a_protocol_error() -> None:
    with pytest.raises(ProviderProtocolError, match="not a JSON object"):
        run([["not", "an", "object"]])


def test_ignored_events_are_explicit() -> None:
    assert "response.created" in RESPONSES_IGNORED_EVENTS
    assert "response.output_text.delta" not in RESPONSES_IGNORED_EVENTS
    assert "response.completed" not in RESPONSES_IGNORED_EVENTS


@pytest.mark.parametrize(
    ("kind", "field"),
    [
        ("local_shell_call", "action"),
        ("shell_call", "action"),
        ("computer_call", "action"),
        ("apply_patch_call", "operation"),
    ],
)
def test_client_executed_tool_items_become_one_tool_use(kind: str, field: str) -> None:
    request = {"type": "exec", "command": ["ls"]}
    item = {"type": kind, "id": "it_1", "call_id": "call_7", field: request}
    chunks = run([{"type": "response.output_item.done", "item": item}], eof=False)
    assert [(c.type, c.tool_id, c.tool_name, c.tool_input) for c in chunks] == [
        ("tool_use", "call_7", kind, request)
    ]
    assert chunks[0].metadata == {"item_type": kind}


def test_server_side_tool_items_carry_no_chunk() -> None:
    item = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {}}
    assert run([{"type": "response.output_item.done", "item": item}], eof=False) == []


def test_every_sdk_event_type_is_handled_ignored_or_refused_on_purpose() -> None:
    # The openai SDK's event union is the vendor's own list: a type this projector neither
    # handles nor ignores must be one it refuses deliberately (audio output has no chunk type).
    sdk = pytest.importorskip("openai.types.responses")
    import typing

    union = typing.get_args(sdk.ResponseStreamEvent)[0]
    names = {
        name
        for cls in typing.get_args(union)
        for name in typing.get_args(cls.model_fields["type"].annotation)
    }
    handled = {
        "response.output_text.delta",
        "response.reasoning_summary_text.delta",
        "response.reasoning_text.delta",
        "response.refusal.delta",
        "response.output_item.done",
        "response.completed",
        "response.incomplete",
        "response.failed",
        "error",
    }
    refused = {n for n in names if n.startswith("response.audio.")}
    assert names - handled - RESPONSES_IGNORED_EVENTS == refused
    for name in refused:
        with pytest.raises(ProviderProtocolError, match="unrecognized event type"):
            run([{"type": name, "delta": "AAAA"}])

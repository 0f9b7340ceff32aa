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


def test_citations_and_the_response_id_are_kept_as_the_one_shot_body_keeps_them() -> None:
    # Both were dropped: a web search's url_citation annotations, and the id the next turn's
    # previous_response_id names, reached invoke()'s body but no stream chunk.
    citation = {"type": "url_citation", "start_index": 4, "end_index": 15, "url": "https://e.x"}
    chunks = run(
        [
            {"type": "response.output_text.delta", "item_id": "msg_1", "delta": "See e.x"},
            {
                "type": "response.output_text.annotation.added",
                "item_id": "msg_1",
                "annotation_index": 0,
                "annotation": citation,
            },
            {
                "type": "response.completed",
                "response": {"id": "resp_9", "status": "completed", "model": "gpt-r"},
            },
        ]
    )
    assert [(c.type, c.content, c.metadata) for c in chunks] == [
        ("text", "See e.x", {}),
        ("text", "", {"annotation": citation}),
        (
            "result",
            None,
            {
                "usage": None,
                "model": "gpt-r",
                "finish_reason": "completed",
                "response_id": "resp_9",
            },
        ),
    ]
    with pytest.raises(ProviderProtocolError, match="annotation"):
        run([{"type": "response.output_text.annotation.added", "annotation": "e.x"}])


def test_custom_tool_input_is_carried_as_text() -> None:
    item = {"type": "custom_tool_call", "call_id": "c1", "name": "grammar", "input": "a+b"}
    completed = {"type": "response.completed", "response": {"status": "completed"}}
    chunks = run([{"type": "response.output_item.done", "item": item}, completed])
    assert [c.type for c in chunks] == ["tool_use", "result"]
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


def test_a_server_side_tool_item_is_one_tool_result_with_the_whole_item() -> None:
    # OpenAI ran it: the search's query and sources exist only on the closed item, which the
    # one-shot body's output lists too; the stream used to drop it.
    item = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {}}
    (chunk,) = run([{"type": "response.output_item.done", "item": item}], eof=False)
    assert chunk.type == "tool_result"
    assert (chunk.tool_id, chunk.tool_name, chunk.tool_output) == ("ws_1", "web_search_call", item)
    assert chunk.metadata == {"server_tool": True, "item_type": "web_search_call"}
    assert chunk.is_error is False


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
        "response.output_text.annotation.added",
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


# --- a function call cut off by max_output_tokens ------------------------------------------------

INCOMPLETE = {
    "type": "response.incomplete",
    "response": {
        "status": "incomplete",
        "model": "gpt-r",
        "incomplete_details": {"reason": "max_output_tokens"},
        "usage": USAGE,
    },
}


def _incomplete(reason: str) -> dict[str, Any]:
    response = {**INCOMPLETE["response"], "incomplete_details": {"reason": reason}}
    return {"type": "response.incomplete", "response": response}


def _call_added(output_index: int = 1, name: str = "get_weather") -> dict[str, Any]:
    item = {
        "type": "function_call",
        "id": f"fc_{output_index}",
        "call_id": f"call_{output_index}",
        "name": name,
        "arguments": "",
        "status": "in_progress",
    }
    return {"type": "response.output_item.added", "output_index": output_index, "item": item}


def _args_delta(delta: str, output_index: int = 1) -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.delta",
        "item_id": f"fc_{output_index}",
        "output_index": output_index,
        "delta": delta,
    }


def _text_then_open_call(*arguments: str) -> list[dict[str, Any]]:
    """A message, then a function call whose arguments stop mid-object: no done events."""
    return [
        {"type": "response.created", "response": {"id": "r", "status": "in_progress"}},
        {"type": "response.output_text.delta", "item_id": "m", "output_index": 0, "delta": "ok"},
        _call_added(),
        *(_args_delta(piece) for piece in arguments),
    ]


def _assert_cut_short(error: StreamChunk, name: str = "get_weather") -> None:
    assert error.type == "error"
    assert error.is_error
    assert error.metadata["finish_reason"] == "max_output_tokens"
    assert error.metadata["code"] == "max_output_tokens"
    assert error.metadata["usage"] == USAGE
    assert name in (error.content or "")
    assert "max_output_tokens" in (error.content or "")
    raised = classify_stream_error(error.content, error.metadata)
    assert type(raised) is ProviderStreamError
    assert not raised.retryable


def test_an_open_function_call_at_max_output_tokens_is_an_error_naming_the_tool() -> None:
    # Argument deltas, then the terminal event: the call was never closed. It was dropped
    # silently and the stream ended as a success.
    chunks = run([*_text_then_open_call('{"city": ', '"Os'), INCOMPLETE])
    assert [c.type for c in chunks] == ["text", "error"]
    _assert_cut_short(chunks[1])


def test_a_function_call_closed_with_cut_arguments_then_incomplete_is_the_same_error() -> None:
    # The server closes the cut item (its arguments a prefix) before response.incomplete: the
    # call is held until the terminal event says why; it failed as "not valid JSON".
    cut = '{"city": "Os'
    item = {**_call_added()["item"], "arguments": cut, "status": "incomplete"}
    chunks = run(
        [
            *_text_then_open_call('{"city": ', '"Os'),
            {
                "type": "response.function_call_arguments.done",
                "item_id": "fc_1",
                "output_index": 1,
                "arguments": cut,
            },
            {"type": "response.output_item.done", "output_index": 1, "item": item},
            INCOMPLETE,
        ]
    )
    assert [c.type for c in chunks] == ["text", "error"]
    _assert_cut_short(chunks[1])


def test_an_open_call_with_no_argument_text_yet_is_cut_too() -> None:
    # Named, then the limit: a tool_use with {} would run the tool without its arguments.
    chunks = run([*_text_then_open_call(), INCOMPLETE])
    assert [c.type for c in chunks] == ["text", "error"]
    _assert_cut_short(chunks[1])


def test_an_open_call_whose_arguments_are_complete_is_a_tool_use() -> None:
    # The object closed before the limit (only the done events are missing): the call is whole.
    chunks = run([*_text_then_open_call('{"city": ', '"Oslo"}'), INCOMPLETE])
    assert [c.type for c in chunks] == ["text", "tool_use", "result"]
    assert (chunks[1].tool_id, chunks[1].tool_name, chunks[1].tool_input) == (
        "call_1",
        "get_weather",
        {"city": "Oslo"},
    )
    assert chunks[2].metadata["finish_reason"] == "max_output_tokens"


def test_a_closed_call_before_the_limit_is_a_tool_use_and_the_result_says_incomplete() -> None:
    item = {**_call_added()["item"], "arguments": '{"city": "Oslo"}', "status": "completed"}
    chunks = run(
        [
            *_text_then_open_call('{"city": "Oslo"}'),
            {"type": "response.output_item.done", "output_index": 1, "item": item},
            INCOMPLETE,
        ]
    )
    assert [c.type for c in chunks] == ["text", "tool_use", "result"]
    assert chunks[2].metadata == {
        "usage": USAGE,
        "model": "gpt-r",
        "finish_reason": "max_output_tokens",
    }


def test_only_the_cut_call_is_an_error_after_earlier_complete_calls() -> None:
    first = {
        **_call_added(1, "first")["item"],
        "arguments": '{"a": 1}',
        "status": "completed",
    }
    chunks = run(
        [
            _call_added(1, "first"),
            _args_delta('{"a": 1}', 1),
            {"type": "response.output_item.done", "output_index": 1, "item": first},
            _call_added(2, "second"),
            _args_delta('{"b": [1, ', 2),
            INCOMPLETE,
        ]
    )
    assert [c.type for c in chunks] == ["tool_use", "error"]
    assert chunks[0].tool_name == "first"
    _assert_cut_short(chunks[1], "second")


def test_incomplete_without_an_open_call_is_still_one_result() -> None:
    chunks = run(
        [
            {"type": "response.output_text.delta", "delta": "a long ans"},
            {"type": "response.output_text.done", "text": "a long ans"},
            INCOMPLETE,
        ]
    )
    assert [c.type for c in chunks] == ["text", "result"]
    assert chunks[1].metadata == {
        "usage": USAGE,
        "model": "gpt-r",
        "finish_reason": "max_output_tokens",
    }


def test_cut_arguments_at_another_incomplete_reason_are_a_protocol_error() -> None:
    # Only the output token limit explains arguments cut mid-object; a content filter stopping
    # a call is not reported as a token limit (and the call is not dropped silently).
    with pytest.raises(ProviderProtocolError, match="not valid JSON"):
        run([*_text_then_open_call('{"city": "Os'), _incomplete("content_filter")])


def test_malformed_closed_arguments_at_completed_are_still_a_protocol_error() -> None:
    item = {**_call_added()["item"], "arguments": '{"city": "Os', "status": "completed"}
    events = [
        _call_added(),
        {"type": "response.output_item.done", "output_index": 1, "item": item},
    ]
    completed = {
        "type": "response.completed",
        "response": {"status": "completed", "model": "gpt-r", "usage": USAGE},
    }
    with pytest.raises(ProviderProtocolError, match="not valid JSON"):
        run([*events, completed])
    with pytest.raises(ProviderProtocolError, match="not valid JSON"):
        run(events)  # EOF: the call's own error, not "ended before completion"
    with pytest.raises(ProviderProtocolError, match="not valid JSON"):
        # More output after it: a cut call is the last thing the model wrote, so this one was
        # malformed, and the error is not held back behind the rest of the stream.
        run([*events, {"type": "response.output_text.delta", "delta": "more"}], eof=False)


def test_an_error_event_after_a_held_call_is_the_error_reported() -> None:
    item = {**_call_added()["item"], "arguments": '{"city": "Os', "status": "incomplete"}
    chunks = run(
        [
            {"type": "response.output_item.done", "output_index": 1, "item": item},
            {"type": "error", "code": "server_error", "message": "boom"},
        ]
    )
    assert [(c.type, c.content) for c in chunks] == [("error", "boom")]


def test_the_cut_error_redacts_a_secret_in_the_tool_name() -> None:
    chunks = run([_call_added(name=f"tool_{SECRET}"), _args_delta('{"a'), INCOMPLETE])
    assert SECRET not in (chunks[-1].content or "")


def test_text_logprobs_asked_for_ride_on_their_delta() -> None:
    # include=["message.output_text.logprobs"] puts each delta's token scores on the event;
    # before, the text chunk dropped them.
    scores = [{"token": "Hi", "logprob": -0.4, "bytes": [72, 105], "top_logprobs": []}]
    chunks = run(
        [
            {"type": "response.output_text.delta", "delta": "Hi", "logprobs": scores},
            {"type": "response.output_text.delta", "delta": "!", "logprobs": []},
            {"type": "response.completed", "response": {"status": "completed", "usage": USAGE}},
        ]
    )
    assert [(c.type, c.content, c.metadata.get("logprobs")) for c in chunks[:2]] == [
        ("text", "Hi", scores),
        ("text", "!", None),
    ]


def test_encrypted_reasoning_item_is_kept_to_be_sent_back() -> None:
    # include=["reasoning.encrypted_content"] with store=false: the next request must carry
    # the whole reasoning item; a stream that dropped it could not continue statelessly.
    item = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA..."}
    plain = {"type": "reasoning", "id": "rs_2", "summary": []}
    chunks = run(
        [
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.output_item.done", "output_index": 1, "item": plain},
            {"type": "response.completed", "response": {"status": "completed", "usage": USAGE}},
        ]
    )
    assert [(c.type, c.content, c.metadata) for c in chunks[:-1]] == [
        ("thinking", "", {"reasoning_item": item}),
    ]

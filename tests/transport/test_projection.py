"""Vendor stream events to StreamChunk, driven without a socket."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from lionagi.service import (
    ProviderProtocolError,
    ProviderStreamError,
    StreamChunk,
    classify_stream_error,
)
from lionagi.service._transport.http.framing import DONE
from lionagi.service.http import ChatCompletionsProjector, ProjectorBase


def run(
    projector_class: type[ProjectorBase], events: Sequence[Any], *, eof: bool = True
) -> list[StreamChunk]:
    """Drive the named projector (dialects are declared, never detected)."""
    projector = projector_class(("sekrit-value-1234",))
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


def chat(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> Any:
    choice: dict[str, Any] = {"index": 0, "delta": delta or {}, "finish_reason": finish}
    return {"object": "chat.completion.chunk", "model": "gpt-x", "choices": [choice], **extra}


# --- OpenAI chat -------------------------------------------------------------------------------


def test_chat_text_thinking_and_result_with_usage() -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    chunks = run(
        ChatCompletionsProjector,
        [
            chat({"role": "assistant", "content": ""}),
            chat({"reasoning_content": "hmm"}),
            chat({"reasoning": "more"}),
            chat({"content": "Hel"}),
            chat({"content": "lo"}),
            chat({}, finish="stop"),
            {"object": "chat.completion.chunk", "model": "gpt-x", "choices": [], "usage": usage},
            DONE,
        ],
    )
    assert [(c.type, c.content, c.is_delta) for c in chunks[:-1]] == [
        ("thinking", "hmm", True),
        ("thinking", "more", True),
        ("text", "Hel", True),
        ("text", "lo", True),
    ]
    result = chunks[-1]
    assert result.type == "result"
    assert result.metadata == {"usage": usage, "model": "gpt-x", "finish_reason": "stop"}


def test_chat_logprobs_ride_on_the_text_they_score() -> None:
    # Before, a stream asked for with logprobs=True dropped them: invoke() returned them in
    # the body, stream() gave the text alone.
    def scored(delta: dict[str, Any], logprobs: Any) -> Any:
        event = chat(delta)
        event["choices"][0]["logprobs"] = logprobs
        return event

    hel = {"content": [{"token": "Hel", "logprob": -0.2, "bytes": [72, 101, 108]}]}
    lo = {"content": [{"token": "lo", "logprob": -0.01, "top_logprobs": []}]}
    chunks = run(
        ChatCompletionsProjector,
        [
            scored({"role": "assistant", "content": ""}, None),
            scored({"content": "Hel"}, hel),
            scored({"reasoning_content": "hm", "content": "lo"}, lo),
            chat({}, finish="stop"),
            DONE,
        ],
    )
    assert [(c.type, c.content, c.metadata.get("logprobs")) for c in chunks[:-1]] == [
        ("text", "Hel", hel),
        ("thinking", "hm", None),
        ("text", "lo", lo),
    ]


def test_chat_audio_and_annotations_are_kept_as_the_one_shot_message_keeps_them() -> None:
    # An audio answer (modalities=["text", "audio"]) and a web search's citations arrive as
    # delta.audio and delta.annotations; they were dropped, so stream() lost the spoken answer's
    # transcript and every citation that invoke() returned in the body.
    citation = {
        "type": "url_citation",
        "url_citation": {"url": "https://example.com", "title": "Ex", "start_index": 0},
    }
    chunks = run(
        ChatCompletionsProjector,
        [
            chat({"role": "assistant", "audio": {"id": "audio_1", "transcript": "Hello"}}),
            chat({"audio": {"transcript": " there", "data": "UklGRg=="}}),
            chat({"audio": {"expires_at": 1700000000}}),
            chat({"content": "See it", "annotations": [citation]}),
            chat({}, finish="stop"),
            DONE,
        ],
    )
    assert [(c.type, c.content, c.metadata) for c in chunks[:-1]] == [
        ("text", "Hello", {"audio": {"id": "audio_1"}}),
        ("text", " there", {"audio": {"data": "UklGRg=="}}),
        ("text", "", {"audio": {"expires_at": 1700000000}}),
        ("text", "See it", {}),
        ("text", "", {"annotation": citation}),
    ]
    with pytest.raises(ProviderProtocolError, match=r"delta\.annotations"):
        run(ChatCompletionsProjector, [chat({"annotations": {"not": "a list"}})])
    with pytest.raises(ProviderProtocolError, match=r"delta\.audio"):
        run(ChatCompletionsProjector, [chat({"audio": "UklGRg=="})])


def test_chat_vendor_delta_fields_ride_on_a_chunk_of_their_own() -> None:
    class Routed(ChatCompletionsProjector):
        delta_fields = (("reasoning_details", "thinking"),)

    details = [{"type": "reasoning.encrypted", "data": "opaque"}]
    chunks = run(
        Routed,
        [chat({"reasoning": "hmm", "reasoning_details": details}), chat({}, "stop"), DONE],
    )
    assert [(c.type, c.content, c.metadata) for c in chunks[:-1]] == [
        ("thinking", "hmm", {}),
        ("thinking", "", {"reasoning_details": details}),
    ]
    plain = run(ChatCompletionsProjector, [chat({"reasoning_details": details}), DONE])
    assert [c.type for c in plain] == ["result"]  # not declared: tolerated, as vendors add fields


def test_chat_tool_call_deltas_become_one_tool_use() -> None:
    def tc(index: int, args: str, **fn: Any) -> Any:
        call: dict[str, Any] = {"index": index, "function": {"arguments": args, **fn}}
        if fn:
            call["id"] = f"call_{index}"
            call["type"] = "function"
        return chat({"tool_calls": [call]})

    chunks = run(
        ChatCompletionsProjector,
        [
            tc(0, "", name="get_weather"),
            tc(1, "", name="get_time"),
            tc(0, '{"city": '),
            tc(1, "{}"),
            tc(0, '"Oslo"}'),
            chat({}, finish="tool_calls"),
            DONE,
        ],
    )
    tools = [c for c in chunks if c.type == "tool_use"]
    assert [(t.tool_id, t.tool_name, t.tool_input) for t in tools] == [
        ("call_0", "get_weather", {"city": "Oslo"}),
        ("call_1", "get_time", {}),
    ]
    assert [c.type for c in chunks] == ["tool_use", "tool_use", "result"]
    assert chunks[-1].metadata["finish_reason"] == "tool_calls"


def test_chat_invalid_tool_arguments_are_a_protocol_error() -> None:
    call = {"index": 0, "id": "c", "function": {"name": "f", "arguments": "{not json"}}
    with pytest.raises(ProviderProtocolError, match="not valid JSON"):
        run(ChatCompletionsProjector, [chat({"tool_calls": [call]}), chat({}, finish="tool_calls")])


def test_chat_tool_call_cut_off_by_the_token_limit_is_an_error_naming_it() -> None:
    # finish_reason "length" mid-arguments: not a protocol error blaming the server, but an
    # error chunk saying what happened and what to change (a ProviderStreamError, not retried).
    function = {"name": "get_weather", "arguments": '{"city": "Os'}
    call = {"index": 0, "id": "c", "function": function}
    chunks = run(
        ChatCompletionsProjector, [chat({"tool_calls": [call]}), chat({}, finish="length")]
    )
    assert [c.type for c in chunks] == ["error"]
    error = chunks[0]
    assert error.metadata["finish_reason"] == "length"
    assert "get_weather" in (error.content or "") and "max_tokens" in (error.content or "")
    raised = classify_stream_error(error.content, error.metadata)
    assert type(raised) is ProviderStreamError and not raised.retryable


def test_chat_tool_call_cut_right_after_its_name_is_an_error_naming_it() -> None:
    # No argument text at all at finish_reason "length": the limit struck after the name. It
    # was delivered as a call with empty input (the tool ran on a guess); an earlier call of
    # the same turn that is complete, empty arguments or not, is still delivered.
    first = {"index": 0, "id": "a", "function": {"name": "now", "arguments": ""}}
    second = {"index": 1, "id": "b", "function": {"name": "get_weather", "arguments": ""}}
    chunks = run(
        ChatCompletionsProjector,
        [chat({"tool_calls": [first]}), chat({"tool_calls": [second]}), chat({}, finish="length")],
    )
    assert [(c.type, c.tool_name) for c in chunks] == [("tool_use", "now"), ("error", None)]
    assert chunks[0].tool_input == {}
    assert "get_weather" in (chunks[1].content or "")
    assert chunks[1].metadata["finish_reason"] == "length"
    # The same call under any other stop reason is a call without arguments.
    chunks = run(
        ChatCompletionsProjector, [chat({"tool_calls": [second]}), chat({}, finish="tool_calls")]
    )
    assert [(c.type, c.tool_input) for c in chunks] == [("tool_use", {}), ("result", None)]


def test_chat_complete_tool_call_at_the_token_limit_is_delivered() -> None:
    # Arguments that parse are the call's, whatever stopped the model after them.
    call = {"index": 0, "id": "c", "function": {"name": "f", "arguments": '{"a": 1}'}}
    chunks = run(
        ChatCompletionsProjector, [chat({"tool_calls": [call]}), chat({}, finish="length")]
    )
    assert [(c.type, c.tool_input) for c in chunks] == [("tool_use", {"a": 1}), ("result", None)]
    assert chunks[-1].metadata["finish_reason"] == "length"


def test_chat_tool_arguments_must_be_an_object() -> None:
    call = {"index": 0, "id": "c", "function": {"name": "f", "arguments": "[1, 2]"}}
    with pytest.raises(ProviderProtocolError, match="not a JSON object"):
        run(ChatCompletionsProjector, [chat({"tool_calls": [call]}), DONE])


def test_chat_without_done_is_accepted_after_finish_reason() -> None:
    chunks = run(ChatCompletionsProjector, [chat({"content": "hi"}), chat({}, finish="stop")])
    assert [c.type for c in chunks] == ["text", "result"]


def test_chat_cut_before_finish_is_a_protocol_error() -> None:
    with pytest.raises(ProviderProtocolError, match="ended before completion"):
        run(ChatCompletionsProjector, [chat({"content": "hi"})])


def test_chat_error_object_is_one_error_chunk_then_stop() -> None:
    chunks = run(
        ChatCompletionsProjector,
        [
            chat({"content": "partial"}),
            {"error": {"message": "overloaded sekrit-value-1234", "code": "server_error"}},
            chat({"content": "never"}),
        ],
    )
    assert [c.type for c in chunks] == ["text", "error"]
    error = chunks[-1]
    assert error.is_error
    assert error.metadata == {"code": "server_error"}
    assert "sekrit-value-1234" not in (error.content or "")


def test_chat_unrecognized_object_is_a_protocol_error() -> None:
    with pytest.raises(ProviderProtocolError, match="unrecognized"):
        run(ChatCompletionsProjector, [{"hello": "world"}])


def test_chat_whole_completion_object_projects_complete_units() -> None:
    message = {
        "role": "assistant",
        "content": "Done.",
        "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": '{"a": 1}'}}],
    }
    chunks = run(
        ChatCompletionsProjector,
        [
            {
                "object": "chat.completion",
                "model": "m",
                "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
                "usage": {"total_tokens": 9},
            }
        ],
    )
    assert [(c.type, c.is_delta) for c in chunks] == [
        ("text", False),
        ("tool_use", False),
        ("result", False),
    ]
    assert chunks[1].tool_input == {"a": 1}
    assert chunks[2].metadata["usage"] == {"total_tokens": 9}


def test_empty_stream_ends_without_chunks() -> None:
    for fmt in (ChatCompletionsProjector,):
        assert run(fmt, []) == []


def test_chat_second_choice_is_tagged_with_its_index() -> None:
    event = {
        "model": "m",
        "choices": [
            {"index": 0, "delta": {"content": "a"}, "finish_reason": None},
            {"index": 1, "delta": {"content": "b"}, "finish_reason": None},
        ],
    }
    chunks = run(ChatCompletionsProjector, [event, DONE])
    assert [(c.content, c.metadata) for c in chunks[:2]] == [("a", {}), ("b", {"index": 1})]


# --- error events carry what classification reads ------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "event", "metadata", "family"),
    [
        (
            ChatCompletionsProjector,
            {
                "error": {
                    "code": 401,
                    "message": "API key not valid. Please pass a valid API key.",
                    "status": "UNAUTHENTICATED",
                }
            },
            {"code": "401", "type": "UNAUTHENTICATED", "status": 401},
            "auth",
        ),
        (
            ChatCompletionsProjector,
            {
                "error": {
                    "message": "Rate limit reached for requests",
                    "type": "requests",
                    "code": "rate_limit_exceeded",
                }
            },
            {"code": "rate_limit_exceeded", "type": "requests"},
            "quota",
        ),
    ],
)
def test_error_events_carry_code_type_status_and_classify(
    fmt: str, event: Any, metadata: dict[str, Any], family: str
) -> None:
    from lionagi.service import ProviderStreamError, classify_stream_error

    chunks = run(fmt, [event])
    assert chunks[-1].type == "error"
    assert chunks[-1].metadata == metadata
    err = classify_stream_error(chunks[-1].content, chunks[-1].metadata)
    assert isinstance(err, ProviderStreamError)
    assert err.kind == family


def test_chat_error_beside_choices_keeps_the_usage_already_spent() -> None:
    # OpenRouter's mid-stream failure: a chunk with a top-level error object, a choice ending
    # with finish_reason "error" and the usage of the tokens generated (and billed) so far.
    usage = {"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13}
    failure = chat(
        {},
        finish="error",
        error={"code": "server_error", "message": "provider went away"},
        usage=usage,
    )
    chunks = run(ChatCompletionsProjector, [chat({"content": "par"}), failure])
    assert [c.type for c in chunks] == ["text", "error"]
    assert chunks[-1].metadata["usage"] == usage
    assert chunks[-1].metadata["code"] == "server_error"
    # Usage from an earlier chunk is kept the same way when the failing one carries none.
    earlier = chat({"content": "par"}, usage=usage)
    chunks = run(ChatCompletionsProjector, [earlier, chat({}, error={"message": "gone"})])
    assert chunks[-1].type == "error" and chunks[-1].metadata["usage"] == usage
    # And an error with no usage anywhere carries none.
    chunks = run(ChatCompletionsProjector, [chat({"content": "x"}), {"error": {"message": "e"}}])
    assert "usage" not in chunks[-1].metadata


def test_chat_tool_call_keeps_the_vendors_extra_content() -> None:
    # Gemini's OpenAI-compatible API puts a Gemini 3 model's thought signature on the tool
    # call (``extra_content.google.thought_signature``) and refuses the next turn if the call
    # comes back without it: a streamed call must keep it for the caller to send back.
    signature = {"google": {"thought_signature": "c2lnbmF0dXJl"}}
    first = {
        "index": 0,
        "id": "call_a",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": '},
        "extra_content": signature,
    }
    rest = {"index": 0, "function": {"arguments": '"Oslo"}'}}
    plain = {"index": 1, "id": "call_b", "function": {"name": "now", "arguments": "{}"}}
    chunks = run(
        ChatCompletionsProjector,
        [
            chat({"tool_calls": [first]}),
            chat({"tool_calls": [rest, plain]}),
            chat({}, finish="tool_calls"),
            DONE,
        ],
    )
    tools = [c for c in chunks if c.type == "tool_use"]
    assert [(t.tool_name, t.tool_input) for t in tools] == [
        ("get_weather", {"city": "Oslo"}),
        ("now", {}),
    ]
    assert tools[0].metadata["extra_content"] == signature
    assert "extra_content" not in tools[1].metadata

"""The Messages projector over real event sequences, driven without a socket."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from lionagi.providers.anthropic import ANTHROPIC_IGNORED_EVENTS, AnthropicMessagesProjector
from lionagi.service import (
    ProviderProtocolError,
    ProviderStreamError,
    StreamChunk,
    classify_stream_error,
)

SECRET = "sekrit-value-1234"


def run(events: Sequence[Any], *, eof: bool = True) -> list[StreamChunk]:
    projector = AnthropicMessagesProjector((SECRET,))
    out: list[StreamChunk] = []
    for event in events:
        out.extend(projector.feed(event))
        if projector.done:
            return out
    if eof:
        out.extend(projector.end(eof=True))
    return out


def block_delta(index: int, **delta: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


START: dict[str, Any] = {
    "type": "message_start",
    "message": {
        "model": "claude-x",
        "usage": {
            "input_tokens": 10,
            "output_tokens": 1,
            "cache_creation_input_tokens": 3,
            "cache_read_input_tokens": 7,
        },
    },
}

EVENTS: list[Any] = [
    START,
    {"type": "ping"},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking"}},
    block_delta(0, type="thinking_delta", thinking="h"),
    block_delta(0, type="thinking_delta", thinking="m"),
    block_delta(0, type="signature_delta", signature="s"),
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
    block_delta(1, type="text_delta", text="Hi"),
    block_delta(1, type="text_delta", text="!"),
    {"type": "content_block_stop", "index": 1},
    {
        "type": "content_block_start",
        "index": 2,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "calc", "input": {}},
    },
    block_delta(2, type="input_json_delta", partial_json=""),
    block_delta(2, type="input_json_delta", partial_json='{"x"'),
    block_delta(2, type="input_json_delta", partial_json=": 2}"),
    {"type": "content_block_stop", "index": 2},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 42},
    },
    {"type": "message_stop"},
]


def test_text_thinking_tool_use_and_one_result_with_usage() -> None:
    chunks = run(EVENTS)
    assert [(c.type, c.content, c.is_delta, c.metadata) for c in chunks[:5]] == [
        ("thinking", "h", True, {}),
        ("thinking", "m", True, {}),
        ("thinking", "", True, {"signature": "s"}),  # closes the block: needed to send it back
        ("text", "Hi", True, {}),
        ("text", "!", True, {}),
    ]
    tool = chunks[5]
    assert (tool.type, tool.tool_id, tool.tool_name, tool.tool_input, tool.metadata) == (
        "tool_use",
        "toolu_1",
        "calc",
        {"x": 2},
        {},
    )
    assert [c.type for c in chunks].count("result") == 1
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata == {
        "usage": {
            "input_tokens": 10,
            "output_tokens": 42,
            "cache_creation_input_tokens": 3,
            "cache_read_input_tokens": 7,
        },
        "model": "claude-x",
        "finish_reason": "tool_use",
    }
    assert len(chunks) == 7


def test_message_delta_cumulative_usage_updates_input_and_cache_counts() -> None:
    delta = {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn"},
        "usage": {"input_tokens": 11, "output_tokens": 5, "cache_read_input_tokens": None},
    }
    chunks = run([START, delta, {"type": "message_stop"}])
    assert chunks[-1].metadata["usage"] == {
        "input_tokens": 11,
        "output_tokens": 5,
        "cache_creation_input_tokens": 3,
        "cache_read_input_tokens": 7,
    }


def test_two_tool_blocks_are_two_tool_uses_with_their_ids() -> None:
    def tool(index: int, tool_id: str) -> dict[str, Any]:
        block = {"type": "tool_use", "id": tool_id, "name": "f", "input": {}}
        return {"type": "content_block_start", "index": index, "content_block": block}

    events = [
        START,
        tool(0, "toolu_a"),
        block_delta(0, type="input_json_delta", partial_json='{"a": 1}'),
        {"type": "content_block_stop", "index": 0},
        tool(1, "toolu_b"),
        {"type": "content_block_stop", "index": 1},
        {"type": "message_stop"},
    ]
    chunks = run(events)
    tools = [(c.tool_id, c.tool_input) for c in chunks if c.type == "tool_use"]
    assert tools == [("toolu_a", {"a": 1}), ("toolu_b", {})]


def test_tool_block_with_complete_input_and_no_deltas_keeps_it() -> None:
    block = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"q": "x"}}
    events = [
        START,
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_stop"},
    ]
    assert run(events)[0].tool_input == {"q": "x"}


def test_server_tool_use_and_its_result_block() -> None:
    use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    result = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": [{"type": "web_search_result", "url": "https://example.com", "title": "E"}],
    }
    events = [
        START,
        {"type": "content_block_start", "index": 0, "content_block": use},
        block_delta(0, type="input_json_delta", partial_json='{"query": "x"}'),
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": result},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_stop"},
    ]
    chunks = run(events)
    assert (chunks[0].type, chunks[0].tool_input, chunks[0].metadata) == (
        "tool_use",
        {"query": "x"},
        {"server_tool": True},
    )
    assert (chunks[1].type, chunks[1].tool_id, chunks[1].is_error) == (
        "tool_result",
        "srvtoolu_1",
        False,
    )
    assert chunks[1].tool_output == result["content"]
    assert chunks[1].metadata == {"server_tool": True, "block_type": "web_search_tool_result"}


def test_server_tool_error_result_is_marked() -> None:
    result = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
    }
    events = [
        START,
        {"type": "content_block_start", "index": 0, "content_block": result},
        {"type": "message_stop"},
    ]
    assert run(events)[0].is_error


def test_block_start_with_text_yields_it() -> None:
    block = {"type": "text", "text": "already"}
    events = [START, {"type": "content_block_start", "index": 0, "content_block": block}]
    chunks = run([*events, {"type": "message_stop"}])
    assert (chunks[0].type, chunks[0].content) == ("text", "already")


def test_redacted_thinking_and_citations_are_kept() -> None:
    # Both were dropped: a turn with redacted thinking could not be sent back verbatim (which a
    # tool-use turn with thinking requires), and a cited answer lost its citations.
    redacted = {"type": "redacted_thinking", "data": "opaque"}
    citation = {"type": "char_location", "cited_text": "x", "document_index": 0}
    events = [
        START,
        {"type": "content_block_start", "index": 0, "content_block": redacted},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        block_delta(1, type="citations_delta", citation=citation),
        block_delta(1, type="text_delta", text="x"),
        {"type": "content_block_stop", "index": 1},
        {"type": "message_stop"},
    ]
    assert [(c.type, c.content, c.metadata) for c in run(events)[:-1]] == [
        ("thinking", "", {"redacted_thinking": "opaque"}),
        ("text", "", {"citation": citation}),
        ("text", "x", {}),
    ]


def test_error_event_is_one_error_chunk_then_stop() -> None:
    chunks = run(
        [
            START,
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
            block_delta(0, type="text_delta", text="partial"),
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            {"type": "message_stop"},
        ]
    )
    assert [c.type for c in chunks] == ["text", "error"]
    error = chunks[-1]
    assert (error.is_error, error.content, error.metadata) == (
        True,
        "Overloaded",
        {"code": "overloaded_error"},
    )
    err = classify_stream_error(error.content, error.metadata)
    assert isinstance(err, ProviderStreamError)
    assert err.kind == "capacity"


def test_error_event_classifies_auth_and_is_redacted() -> None:
    event = {"type": "error", "error": {"type": "authentication_error", "message": SECRET}}
    [chunk] = run([START, event])
    assert chunk.metadata == {"code": "authentication_error"}
    assert SECRET not in (chunk.content or "")
    err = classify_stream_error(chunk.content, chunk.metadata)
    assert err.kind == "auth"


def test_truncated_stream_is_a_protocol_error() -> None:
    with pytest.raises(ProviderProtocolError, match="ended before completion"):
        run(EVENTS[:10])


def test_empty_stream_ends_without_chunks() -> None:
    assert run([]) == []


@pytest.mark.parametrize(
    ("event", "named"),
    [
        (block_delta(0, type="hologram_delta", data="?"), "hologram_delta"),
        ({"type": "message_hologram"}, "message_hologram"),
        (
            {"type": "content_block_start", "index": 0, "content_block": {"type": "hologram"}},
            "hologram",
        ),
    ],
)
def test_unknown_content_bearing_type_is_a_protocol_error(event: Any, named: str) -> None:
    with pytest.raises(ProviderProtocolError, match=named):
        run([START, event])


def test_input_json_outside_a_tool_block_is_a_protocol_error() -> None:
    with pytest.raises(ProviderProtocolError, match="outside a tool_use block"):
        run([START, block_delta(3, type="input_json_delta", partial_json="{}")])


@pytest.mark.parametrize(("raw", "problem"), [("{not json", "not valid JSON"), ("[1]", "object")])
def test_bad_tool_input_is_a_protocol_error(raw: str, problem: str) -> None:
    block = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
    events = [
        START,
        {"type": "content_block_start", "index": 0, "content_block": block},
        block_delta(0, type="input_json_delta", partial_json=raw),
        {"type": "content_block_stop", "index": 0},
    ]
    with pytest.raises(ProviderProtocolError, match=problem):
        run(events)


def _cut_tool_block(stop_reason: str) -> list[Any]:
    block = {"type": "tool_use", "id": "t", "name": "get_weather", "input": {}}
    return [
        START,
        {"type": "content_block_start", "index": 0, "content_block": block},
        block_delta(0, type="input_json_delta", partial_json='{"city": "Os'),
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason},
            "usage": {"output_tokens": 64},
        },
        {"type": "message_stop"},
    ]


def test_a_tool_block_cut_off_by_max_tokens_is_an_error_naming_the_limit() -> None:
    # The stop reason arrives after the block: the block's input is held until it says why.
    chunks = run(_cut_tool_block("max_tokens"))
    assert [c.type for c in chunks] == ["error"]
    error = chunks[0]
    assert error.metadata["finish_reason"] == "max_tokens"
    assert error.metadata["usage"]["output_tokens"] == 64
    assert "get_weather" in (error.content or "")
    assert "max_tokens" in (error.content or "")
    raised = classify_stream_error(error.content, error.metadata)
    assert type(raised) is ProviderStreamError
    assert not raised.retryable


def test_a_malformed_tool_block_is_still_a_protocol_error_at_any_other_stop() -> None:
    with pytest.raises(ProviderProtocolError, match="not valid JSON"):
        run(_cut_tool_block("tool_use"))


def test_non_object_event_is_a_protocol_error_with_a_redacted_excerpt() -> None:
    with pytest.raises(ProviderProtocolError) as info:
        run([[SECRET]])
    assert SECRET not in str(info.value)


def test_ignored_events_are_explicit() -> None:
    assert frozenset({"ping"}) == ANTHROPIC_IGNORED_EVENTS


def _empty_tool_block(stop_reason: str) -> list[Any]:
    """A tool block that streamed no input text at all, then the stop reason."""
    block = {"type": "tool_use", "id": "toolu_9", "name": "delete_files", "input": {}}
    return [
        START,
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason},
            "usage": {"output_tokens": 8},
        },
        {"type": "message_stop"},
    ]


def test_a_tool_call_max_tokens_cut_after_its_name_is_the_limit_error_not_an_empty_call() -> None:
    # Nothing of the input was written: delivering {} would run the tool on a guess.
    chunks = run(_empty_tool_block("max_tokens"))
    assert [c.type for c in chunks] == ["error"]
    assert chunks[0].metadata["code"] == "max_tokens"
    assert chunks[0].metadata["usage"]["output_tokens"] == 8
    assert "delete_files" in (chunks[0].content or "")


def test_a_tool_call_without_input_is_a_call_when_the_model_stopped_for_it() -> None:
    chunks = run(_empty_tool_block("tool_use"))
    assert [(c.type, c.tool_id, c.tool_input) for c in chunks] == [
        ("tool_use", "toolu_9", {}),
        ("result", None, None),
    ]


def test_an_input_less_call_followed_by_another_block_comes_first() -> None:
    block = {"type": "tool_use", "id": "toolu_1", "name": "now", "input": {}}
    events = [
        START,
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_stop", "index": 0},
        {"type": "ping"},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        block_delta(1, type="text_delta", text="ok"),
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {}},
        {"type": "message_stop"},
    ]
    chunks = run(events)
    assert [(c.type, c.tool_id) for c in chunks] == [
        ("tool_use", "toolu_1"),  # a block after it: the call was complete
        ("text", None),
        ("result", None),
    ]
    assert chunks[-1].metadata["finish_reason"] == "max_tokens"


def test_the_result_keeps_what_the_one_shot_message_carries() -> None:
    start = {"type": "message_start", "message": {**START["message"], "id": "msg_01"}}
    details = {"type": "refusal", "category": "cyber", "explanation": None}
    delta = {
        "type": "message_delta",
        "delta": {
            "stop_reason": "refusal",
            "stop_sequence": None,
            "stop_details": details,
            "container": {"id": "container_1", "expires_at": "2026-01-01T00:00:00Z"},
        },
        "usage": {"output_tokens": 3},
    }
    result = run([start, delta, {"type": "message_stop"}])[-1]
    assert result.metadata["finish_reason"] == "refusal"
    assert result.metadata["response_id"] == "msg_01"
    assert result.metadata["stop_details"] == details
    assert result.metadata["container"]["id"] == "container_1"
    assert "stop_sequence" not in result.metadata  # null: nothing matched
    stop = {"stop_reason": "stop_sequence", "stop_sequence": "END"}
    stopped = {"type": "message_delta", "delta": stop}
    result = run([START, stopped, {"type": "message_stop"}])[-1]
    assert (result.metadata["finish_reason"], result.metadata["stop_sequence"]) == (
        "stop_sequence",
        "END",
    )

"""A reasoning summary's parts stay apart in the stream, as in the one-shot body (loopback).

The Responses API summarizes reasoning as a list of ``summary_text`` parts, one paragraph each.
The one-shot body lists them apart; the stream sends each part's text as
``response.reasoning_summary_text.delta`` events after a ``response.reasoning_summary_part.added``
(the ``summary_index`` counts the parts), and the thinking chunks carried the deltas as they
came, so a consumer joining them got "...the options.Checking the..." with the paragraphs run
together. A new part's first text now follows a blank line, so the streamed thinking text is the
body's parts joined with ``"\\n\\n"``.
"""

from __future__ import annotations

import json
from typing import Any

from openai_loopback import JSON, numbered, served

from lionagi.providers.openai import ResponsesProjector
from lionagi.service import EventStatus, StreamChunk

KEY = "sk-reasoning-summary-test-0123456789"
FIRST = "**Weighing the options**\n\nThe user wants a greeting."
SECOND = "**Checking the tone**\n\nA short one will do."
RESPONSE = {"id": "resp_r", "object": "response", "model": "gpt-5", "status": "in_progress"}
USAGE = {"input_tokens": 5, "output_tokens": 20, "total_tokens": 25}


def _summary(texts: list[str]) -> list[dict[str, Any]]:
    return [{"type": "summary_text", "text": text} for text in texts]


def _reasoning_events(item_id: str, index: int, texts: list[str]) -> list[dict[str, Any]]:
    """A reasoning item as the API streams it: each part announced, its text in two deltas."""
    item = {"id": item_id, "type": "reasoning", "summary": []}
    ref = {"item_id": item_id, "output_index": index}
    events: list[dict[str, Any]] = [
        {"type": "response.output_item.added", "output_index": index, "item": item}
    ]
    for part, text in enumerate(texts):
        at = {**ref, "summary_index": part}
        half = len(text) // 2
        empty = {"type": "summary_text", "text": ""}
        events += [
            {"type": "response.reasoning_summary_part.added", **at, "part": empty},
            {"type": "response.reasoning_summary_text.delta", **at, "delta": text[:half]},
            {"type": "response.reasoning_summary_text.delta", **at, "delta": text[half:]},
            {"type": "response.reasoning_summary_text.done", **at, "text": text},
            {"type": "response.reasoning_summary_part.done", **at, "part": _summary([text])[0]},
        ]
    closed = {**item, "summary": _summary(texts)}
    events.append({"type": "response.output_item.done", "output_index": index, "item": closed})
    return events


def _thinking(chunks: list[StreamChunk]) -> str:
    """The thinking text a consumer reads: the chunks' contents joined as they came."""
    return "".join(chunk.content or "" for chunk in chunks if chunk.type == "thinking")


def _project(events: list[dict[str, Any]]) -> list[StreamChunk]:
    projector = ResponsesProjector((KEY,))
    return [chunk for event in events for chunk in projector.feed(event)]


async def test_summary_parts_are_a_blank_line_apart_in_the_stream_as_in_the_body() -> None:
    # The same response streamed and answered one-shot: the body lists the two paragraphs
    # apart; the stream ran them together ("...a greeting.**Checking the tone**...").
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Hi!", "annotations": []}],
    }
    reasoning = {"id": "rs_1", "type": "reasoning", "summary": _summary([FIRST, SECOND])}
    body = {**RESPONSE, "status": "completed", "output": [reasoning, message], "usage": USAGE}
    events = [
        {"type": "response.created", "response": RESPONSE},
        *_reasoning_events("rs_1", 0, [FIRST, SECOND]),
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 1,
            "delta": "Hi!",
        },
        {"type": "response.output_item.done", "output_index": 1, "item": message},
        {"type": "response.completed", "response": body},
    ]
    async with served(numbered(events), api_key=KEY, endpoint="responses") as (_, model):
        chunks = [chunk async for chunk in model.stream(input="hi")]
    one_shot = served(
        [json.dumps(body).encode()], api_key=KEY, endpoint="responses", content_type=JSON
    )
    async with one_shot as (_, model):
        call = await model.invoke(input="hi")

    assert call.status is EventStatus.COMPLETED, call.exception
    (answered, _) = call.execution.response["output"]
    parts = [part["text"] for part in answered["summary"]]
    assert parts == [FIRST, SECOND]  # the one-shot body keeps the parts apart, as written
    assert _thinking(chunks) == "\n\n".join(parts) == f"{FIRST}\n\n{SECOND}"
    assert [chunk.type for chunk in chunks] == ["thinking"] * 4 + ["text", "result"]


def test_the_separator_opens_the_new_parts_first_text_only() -> None:
    # One chunk per delta still: the blank line rides on the new part's first delta.
    chunks = _project(_reasoning_events("rs_1", 0, [FIRST, SECOND]))
    half = len(SECOND) // 2
    assert [chunk.content for chunk in chunks] == [
        FIRST[: len(FIRST) // 2],
        FIRST[len(FIRST) // 2 :],
        "\n\n" + SECOND[:half],
        SECOND[half:],
    ]


def test_a_new_summary_index_is_a_new_part_without_its_part_added_event() -> None:
    ref = {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0}
    chunks = _project(
        [
            {**ref, "summary_index": 0, "delta": "One."},
            {**ref, "summary_index": 0, "delta": " Still one."},
            {**ref, "summary_index": 1, "delta": "Two."},
        ]
    )
    assert _thinking(chunks) == "One. Still one.\n\nTwo."


def test_a_second_reasoning_items_summary_is_a_new_part_too() -> None:
    # Reasoning, a tool call, reasoning again: two items, each with its own summary.
    events = [*_reasoning_events("rs_1", 0, [FIRST]), *_reasoning_events("rs_2", 1, [SECOND])]
    assert _thinking(_project(events)) == f"{FIRST}\n\n{SECOND}"


def test_unnumbered_deltas_and_empty_parts_add_no_separator() -> None:
    # Deltas naming no part are one run of text; a part announced with no text yet, or an
    # empty delta, separates nothing (the first text of the stream has nothing before it).
    empty = {"type": "summary_text", "text": ""}
    chunks = _project(
        [
            {"type": "response.reasoning_summary_part.added", "summary_index": 0, "part": empty},
            {"type": "response.reasoning_summary_text.delta", "delta": ""},
            {"type": "response.reasoning_summary_text.delta", "delta": "think"},
            {"type": "response.reasoning_summary_text.delta", "delta": "ing"},
            {"type": "response.reasoning_text.delta", "delta": " raw"},
        ]
    )
    assert [chunk.content for chunk in chunks] == ["", "think", "ing", " raw"]


def test_a_part_added_event_is_a_new_part_when_the_deltas_name_none() -> None:
    empty = {"type": "summary_text", "text": ""}
    added = {"type": "response.reasoning_summary_part.added", "part": empty}
    chunks = _project(
        [
            added,
            {"type": "response.reasoning_summary_text.delta", "delta": "One."},
            added,
            {"type": "response.reasoning_summary_text.delta", "delta": "Two."},
        ]
    )
    assert _thinking(chunks) == "One.\n\nTwo."

"""The one-shot fold honours a provider's retraction of text it already streamed.

A provider can withdraw a message it streamed: Claude Code 2.1.332, when a refused answer is
retried on a fallback model, lists the refused partial's uuids on its fallback notice
(`retracted_message_uuids`) and the fallback's message replaces them. `stream()` consumers got
the text live and see the notice; `invoke()` must not fold the withdrawn text into its answer.
The contract is vendor-neutral: a text chunk names its message in `metadata["message_id"]`, a
system chunk lists withdrawn messages in `metadata["retracted_message_ids"]`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from lionagi.service import StreamChunk
from lionagi.service.agentic import collect_call_result


async def _fold(chunks: list[StreamChunk]) -> str:
    async def gen() -> AsyncIterator[StreamChunk]:
        for chunk in chunks:
            yield chunk

    return (await collect_call_result(gen()))["result"]


def _text(content: str, message_id: str | None = None, *, delta: bool = False) -> StreamChunk:
    meta = {"message_id": message_id} if message_id is not None else {}
    return StreamChunk("text", content, is_delta=delta, metadata=meta)


def _retract(*ids: str) -> StreamChunk:
    return StreamChunk("system", metadata={"retracted_message_ids": list(ids), "notice": "x"})


async def test_a_retracted_message_leaves_the_answer_and_the_others_stay_in_order() -> None:
    result = await _fold(
        [
            _text("kept first", "m1"),
            _text("withdrawn", "m2"),
            _text("no id"),
            _retract("m2"),
            _text("the fallback", "m3"),
            StreamChunk("result", "terminal"),
        ]
    )
    assert result == "kept first\n\nno id\n\nthe fallback\n\nterminal"


async def test_every_delta_of_a_retracted_message_is_removed() -> None:
    result = await _fold(
        [
            _text("Hel", "m1", delta=True),
            _text("lo", "m1", delta=True),
            _text("par", "m2"),
            _text("tial", "m2", delta=True),
            _text(" answer", "m2", delta=True),
            _retract("m2"),
            _text("Fine", "m3", delta=True),
            _text(".", "m3", delta=True),
        ]
    )
    assert result == "Hello\n\nFine."


async def test_a_delta_of_another_message_starts_its_own_unit() -> None:
    # Otherwise a retracted message's deltas would be glued to its neighbour's unit and either
    # stay in the answer or take the neighbour's text out with them.
    result = await _fold([_text("keep", "m1"), _text(" drop", "m2", delta=True), _retract("m2")])
    assert result == "keep"


async def test_a_unit_without_an_id_is_never_removed() -> None:
    result = await _fold(
        [_text("anonymous"), _text("more", delta=True), _text("x", "m1"), _retract("m1")]
    )
    assert result == "anonymousmore"


async def test_several_notices_and_unknown_ids_are_honoured() -> None:
    result = await _fold(
        [
            _text("a", "m1"),
            _text("b", "m2"),
            _retract("m1", "unknown"),
            _text("c", "m3"),
            _retract("m3"),
            _retract("m3"),
        ]
    )
    assert result == "b"


async def test_a_malformed_list_removes_nothing_and_does_not_crash() -> None:
    notices = [
        # a string is not a list of ids: read as one, its letters would name message "m"
        StreamChunk("system", metadata={"retracted_message_ids": "m1"}),
        StreamChunk("system", metadata={"retracted_message_ids": [["m1"], 7]}),
    ]
    result = await _fold(
        [_text("a", "m"), _text("b", "m1"), _text("c", "m2"), *notices, _retract("m2")]
    )
    assert result == "a\n\nb"

"""``candidateCount > 1`` through ``iModel`` over loopback: every candidate's own result.

The stream's result kept only the last candidate's ``finishReason``, so a first candidate the
output limit cut (``MAX_TOKENS``) read as a clean ``STOP`` when the second one finished after
it; ``invoke()`` of the same answer shows both (``candidates[].finishReason``). The result now
carries the first candidate's reason as ``finish_reason`` and each candidate's under
``finish_reasons``.

Its safety ratings, grounding, URL context, citations, average logprobs and continuation token
were still the last candidate's (the chunks interleave the candidates): they are now the first
candidate's too, with each candidate's under ``candidates[index]``. And a candidate whose
stream was cut before its ``finishReason`` passed unnoticed once another one finished: it now
fails the stream as a cut single candidate does.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from gemini_loopback import native_model

from lionagi.service import ProviderProtocolError, StreamChunk
from lionagi.service_testing import scripted_stream_server

CONTENTS = [{"role": "user", "parts": [{"text": "Name a colour."}]}]
CONFIG = {"candidateCount": 2, "maxOutputTokens": 4}
USAGE = {"promptTokenCount": 4, "candidatesTokenCount": 6, "totalTokenCount": 10}


def _candidate(index: int, text: str, finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": [{"text": text}]},
        "index": index,
    }
    if finish:
        candidate["finishReason"] = finish
    return candidate


EVENTS = [
    {"candidates": [_candidate(0, "Red is"), _candidate(1, "Blue")], "modelVersion": "m-1"},
    {"candidates": [_candidate(0, " a", "MAX_TOKENS"), _candidate(1, ".")]},
    {"candidates": [_candidate(1, "", "STOP")], "usageMetadata": USAGE},
]


async def test_stream_result_keeps_every_candidates_finish_reason() -> None:
    writes = [f"data: {json.dumps(event)}\r\n\r\n".encode() for event in EVENTS]
    seen: list[StreamChunk] = []
    async with scripted_stream_server(writes, path="/v1beta") as server, native_model(server) as m:
        async for chunk in m.stream(contents=CONTENTS, generationConfig=CONFIG):
            seen.append(chunk)
    result = seen[-1]
    assert result.type == "result"
    assert result.metadata["finish_reason"] == "MAX_TOKENS"
    assert result.metadata["finish_reasons"] == {0: "MAX_TOKENS", 1: "STOP"}
    texts = [(c.content, c.metadata.get("candidate", 0)) for c in seen if c.type == "text"]
    assert "".join(t for t, i in texts if i == 0) == "Red is a"
    assert "".join(t for t, i in texts if i == 1) == "Blue."


async def test_invoke_of_the_same_answer_shows_both_reasons() -> None:
    body = {
        "candidates": [_candidate(0, "Red is a", "MAX_TOKENS"), _candidate(1, "Blue.", "STOP")],
        "usageMetadata": USAGE,
        "modelVersion": "m-1",
    }
    raw = json.dumps(body).encode()
    async with (
        scripted_stream_server([raw], path="/v1beta", content_type="application/json") as server,
        native_model(server) as m,
    ):
        call = await m.invoke(contents=CONTENTS, generationConfig=CONFIG)
    response = call.execution.response
    assert [c["finishReason"] for c in response["candidates"]] == ["MAX_TOKENS", "STOP"]


def _annotated(index: int, text: str, finish: str | None = None, **fields: Any) -> dict[str, Any]:
    """A candidate carrying ``fields`` (its own ratings, grounding, ...) named for ``index``."""
    return {**_candidate(index, text, finish), **fields}


def _own(index: int) -> dict[str, Any]:
    """Candidate ``index``'s per-candidate fields, each different from the other candidate's."""
    return {
        "safetyRatings": [{"category": "HARM_CATEGORY_HARASSMENT", "probability": f"P{index}"}],
        "groundingMetadata": {"webSearchQueries": [f"query {index}"]},
        "urlContextMetadata": {"urlMetadata": [{"retrievedUrl": f"https://{index}.example"}]},
        "avgLogprobs": -0.5 - index,
        "continuationToken": f"ct-{index}",
    }


def _cites(index: int, n: int) -> dict[str, Any]:
    return {"citationMetadata": {"citationSources": [{"uri": f"https://c{index}-{n}.example"}]}}


async def _stream(
    events: list[dict[str, Any]], seen: list[StreamChunk] | None = None
) -> list[StreamChunk]:
    """The chunks ``iModel.stream`` yields for ``events``, gathered into ``seen`` as they come."""
    writes = [f"data: {json.dumps(event)}\r\n\r\n".encode() for event in events]
    seen = [] if seen is None else seen
    async with scripted_stream_server(writes, path="/v1beta") as server, native_model(server) as m:
        async for chunk in m.stream(contents=CONTENTS, generationConfig=CONFIG):
            seen.append(chunk)
    return seen


async def test_stream_result_keeps_each_candidates_own_ratings_grounding_and_logprobs() -> None:
    # Candidate 1 speaks last in every chunk, so "last value seen" gave its values to the answer
    # whose chunks carry no candidate tag (candidate 0).
    events = [
        {
            "candidates": [
                _annotated(0, "Red", **_cites(0, 1)),
                _annotated(1, "Blue", **_cites(1, 1)),
            ],
            "modelVersion": "m-1",
        },
        {
            "candidates": [
                _annotated(0, ".", "STOP", **_own(0), **_cites(0, 2)),
                _annotated(1, ".", "STOP", **_own(1)),
            ],
            "usageMetadata": USAGE,
        },
    ]
    result = (await _stream(events))[-1]
    assert result.type == "result"
    meta = result.metadata
    own = {i: _own(i) for i in (0, 1)}
    expected = {
        i: {
            "finish_reason": "STOP",
            "safety_ratings": own[i]["safetyRatings"],
            "grounding_metadata": own[i]["groundingMetadata"],
            "url_context_metadata": own[i]["urlContextMetadata"],
            "avg_logprobs": own[i]["avgLogprobs"],
            "continuation_token": own[i]["continuationToken"],
        }
        for i in (0, 1)
    }
    expected[0]["citation_metadata"] = {
        "citationSources": [{"uri": "https://c0-1.example"}, {"uri": "https://c0-2.example"}]
    }
    expected[1]["citation_metadata"] = {"citationSources": [{"uri": "https://c1-1.example"}]}
    # The top-level keys are candidate 0's, as finish_reason is; each candidate's are kept.
    assert {key: meta[key] for key in expected[0]} == expected[0]
    assert meta["candidates"] == expected
    assert meta["finish_reasons"] == {0: "STOP", 1: "STOP"}


async def test_a_single_candidate_stream_adds_no_candidates_key() -> None:
    events = [{"candidates": [_annotated(0, "Red.", "STOP", **_own(0))], "usageMetadata": USAGE}]
    meta = (await _stream(events))[-1].metadata
    assert meta["safety_ratings"] == _own(0)["safetyRatings"]
    assert "candidates" not in meta
    assert "finish_reasons" not in meta


@pytest.mark.parametrize(
    ("events", "cut"),
    [
        pytest.param(
            [{"candidates": [_candidate(0, "Red")]}],
            None,
            id="single-candidate-cut",
        ),
        pytest.param(
            [
                {"candidates": [_candidate(0, "Red"), _candidate(1, "Blue")]},
                {"candidates": [_candidate(0, ".", "STOP")], "usageMetadata": USAGE},
            ],
            "candidate 1 gave no finishReason",
            id="second-candidate-cut",
        ),
        pytest.param(
            [
                {"candidates": [_candidate(0, "Red"), _candidate(1, "Blue")]},
                {"candidates": [_candidate(1, ".", "STOP")], "usageMetadata": USAGE},
            ],
            "candidate 0 gave no finishReason",
            id="first-candidate-cut",
        ),
    ],
)
async def test_a_candidate_cut_before_its_finish_reason_fails_the_stream(
    events: list[dict[str, Any]], cut: str | None
) -> None:
    # The connection ends with no finishReason for a candidate: with one candidate that was
    # always "ended before completion"; another candidate's STOP no longer hides it.
    seen: list[StreamChunk] = []
    with pytest.raises(ProviderProtocolError, match="ended before completion") as info:
        await _stream(events, seen)
    if cut is not None:
        assert cut in str(info.value)
    assert [chunk.type for chunk in seen].count("text") >= 1  # the text before the cut came
    assert all(chunk.type != "result" for chunk in seen)


async def test_invoke_keeps_each_candidates_own_fields() -> None:
    # Parity pin: the one-shot body is returned as sent, so each candidate keeps its own fields
    # by index (nothing there is collapsed to one value).
    body = {
        "candidates": [
            _annotated(0, "Red.", "STOP", **_own(0)),
            _annotated(1, "Blue.", "STOP", **_own(1)),
        ],
        "usageMetadata": USAGE,
    }
    raw = json.dumps(body).encode()
    async with (
        scripted_stream_server([raw], path="/v1beta", content_type="application/json") as server,
        native_model(server) as m,
    ):
        call = await m.invoke(contents=CONTENTS, generationConfig=CONFIG)
    candidates = call.execution.response["candidates"]
    for index in (0, 1):
        assert candidates[index]["index"] == index
        assert {key: candidates[index][key] for key in _own(index)} == _own(index)

"""Perplexity's ``stream_mode: "concise"`` stream, projected by ``PerplexityConciseProjector``.

The events follow the four chunk objects of Perplexity's stream-mode guide ("Stream Mode:
Concise vs Full", "Understanding Chunk Types"), field for field: ``chat.reasoning`` (steps in
``delta.reasoning_steps``), ``chat.reasoning.done`` (search results, images, partial usage),
``chat.completion.chunk`` (the answer's deltas, beside an empty ``message``) and
``chat.completion.done`` (final usage with cost, sources, ``finish_reason`` and the aggregated
``message``), then ``[DONE]``. They are written by a loopback server, one event per network
write, and read through core's HTTP stream machinery by the catalog's ``PerplexityChat``, which
picks the concise projector from the payload (``stream_projector``) for the requests that ask
for ``"concise"`` and keeps the full-mode one for the others.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.providers.perplexity import (
    PerplexityChat,
    PerplexityConciseProjector,
    PerplexityProjector,
)
from lionagi.service import ProviderProtocolError, StreamChunk, iModel, match_endpoint
from lionagi.service_testing import scripted_stream_server

KEY = "pplx-test-0123456789abcdef"
ID, MODEL = "cfa38f9d-fdbc-4ac6-a5d2-a3010b6a33a6", "sonar-pro"
RESULTS = [
    {"title": "7-Day Forecast", "url": "https://forecast.weather.gov/x", "date": "2026-05-26"}
]
IMAGES = [{"image_url": "https://img.example/seattle.jpg", "origin_url": "https://img.example"}]
STEP = {
    "thought": "Searching the web for Seattle's current weather...",
    "type": "web_search",
    "web_search": {"search_results": RESULTS, "search_keywords": ["Seattle current weather"]},
}
FINAL_USAGE = {
    "prompt_tokens": 6,
    "completion_tokens": 238,
    "total_tokens": 244,
    "search_context_size": "low",
    "cost": {
        "input_tokens_cost": 0.0,
        "output_tokens_cost": 0.004,
        "request_cost": 0.006,
        "total_cost": 0.01,
    },
}


def chunk(kind: str, choice: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {
        "id": ID,
        "model": MODEL,
        "created": 1759441590,
        "object": kind,
        "choices": [{"index": 0, "finish_reason": None, **choice}],
        **top,
    }


def empty(**message: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": "", **message}


REASONING = chunk(
    "chat.reasoning",
    {"message": empty(), "delta": empty(reasoning_steps=[STEP])},
    type="message",
)
REASONING_DONE = chunk(
    "chat.reasoning.done",
    {"message": empty(reasoning_steps=[STEP]), "delta": empty()},
    usage={"prompt_tokens": 6, "completion_tokens": 0, "total_tokens": 6},
    search_results=RESULTS,
    images=IMAGES,
)
TEXT = [
    chunk("chat.completion.chunk", {"message": empty(), "delta": empty(content=piece)})
    for piece in ("Seattle is mild", " tonight.")
]
DONE = chunk(
    "chat.completion.done",
    {
        "finish_reason": "stop",
        "message": empty(content="Seattle is mild tonight.", reasoning_steps=[STEP]),
        "delta": empty(),
    },
    usage=FINAL_USAGE,
    search_results=RESULTS,
    images=IMAGES,
)
STREAM = [REASONING, REASONING_DONE, *TEXT, DONE]


def sse(*events: dict[str, Any] | str) -> list[bytes]:
    return [
        b"data: " + (e if isinstance(e, str) else json.dumps(e)).encode() + b"\n\n" for e in events
    ]


async def stream(*events: dict[str, Any] | str) -> list[StreamChunk]:
    """``events`` read by the catalog's endpoint for a request that asks for ``"concise"``."""
    async with scripted_stream_server(sse(*events), path="") as server:
        endpoint = match_endpoint(
            "perplexity", "chat", api_key=KEY, base_url=server.url, allow_local_network=True
        )
        request = {
            "model": MODEL,
            "messages": [{"role": "user", "content": "Seattle?"}],
            "stream_mode": "concise",
        }
        async with endpoint as ep:
            assert type(ep) is PerplexityChat
            return [c async for c in ep.stream(request)]


async def imodel_stream(writes: list[bytes], **fields: Any) -> list[StreamChunk]:
    """``writes`` streamed to ``iModel(model="perplexity/sonar")`` for a request with ``fields``."""
    async with (
        scripted_stream_server(writes, path="") as server,
        iModel(
            model="perplexity/sonar", api_key=KEY, base_url=server.url, allow_local_network=True
        ) as model,
    ):
        messages = [{"role": "user", "content": "Seattle?"}]
        return [c async for c in model.stream(messages=messages, **fields)]


async def test_imodel_reads_a_concise_stream_with_its_reasoning_steps() -> None:
    """The whole path: request validation accepts the mode, the row picks the projector.

    Read with the full-mode projector, the same stream completes with no thinking chunk (see
    ``test_the_full_mode_projector_would_drop_the_reasoning_steps``).
    """
    chunks = await imodel_stream(sse(*STREAM, "[DONE]"), stream_mode="concise")
    assert [c.type for c in chunks] == ["thinking", "text", "text", "result"]
    assert (chunks[0].content, chunks[0].metadata) == (STEP["thought"], {"reasoning_step": STEP})
    assert "".join(c.content or "" for c in chunks if c.type == "text") == (
        "Seattle is mild tonight."
    )
    result = chunks[-1].metadata
    assert (result["usage"], result["finish_reason"]) == (FINAL_USAGE, "stop")
    assert (result["search_results"], result["reasoning_steps"]) == (RESULTS, [STEP])


FULL = [
    chunk("chat.completion.chunk", {"delta": {"role": "assistant", "content": "Mild."}}),
    chunk(
        "chat.completion.chunk",
        {"delta": {}, "finish_reason": "stop"},
        usage={"prompt_tokens": 6, "completion_tokens": 2, "total_tokens": 8},
        search_results=RESULTS,
    ),
]


@pytest.mark.parametrize("fields", [{}, {"stream_mode": "full"}], ids=["default", "full"])
async def test_the_full_mode_stream_is_still_read_by_the_full_projector(
    fields: dict[str, Any],
) -> None:
    """A full stream ends at ``[DONE]``; the concise grammar would call it cut short."""
    chunks = await imodel_stream(sse(*FULL, "[DONE]"), **fields)
    assert [(c.type, c.content) for c in chunks] == [("text", "Mild."), ("result", None)]
    assert chunks[-1].metadata["search_results"] == RESULTS
    ep = match_endpoint("perplexity", "chat", api_key=KEY)
    assert ep.stream_projector({"model": MODEL, **fields}) is PerplexityProjector
    assert ep.stream_projector({"stream_mode": "concise"}) is PerplexityConciseProjector


async def test_a_concise_stream_yields_steps_text_and_one_result_with_the_sources() -> None:
    chunks = await stream(*STREAM, "[DONE]")
    assert [c.type for c in chunks] == ["thinking", "text", "text", "result"]
    thinking, *text, result = chunks
    assert (thinking.content, thinking.is_delta) == (STEP["thought"], False)
    assert thinking.metadata == {"reasoning_step": STEP}
    # The deltas once; the done chunk's aggregated message is not sent again.
    assert [(c.content, c.is_delta) for c in text] == [
        ("Seattle is mild", True),
        (" tonight.", True),
    ]
    assert result.metadata == {
        "usage": FINAL_USAGE,
        "model": MODEL,
        "finish_reason": "stop",
        "search_results": RESULTS,
        "images": IMAGES,
        "reasoning_steps": [STEP],
    }


async def test_the_done_chunk_ends_the_stream_without_done_sentinel() -> None:
    chunks = await stream(*STREAM)
    assert chunks[-1].type == "result"


@pytest.mark.parametrize("tail", [("[DONE]",), ()], ids=["done-sentinel", "eof"])
async def test_a_stream_without_its_completion_done_chunk_was_cut(tail: tuple[str, ...]) -> None:
    with pytest.raises(ProviderProtocolError, match="ended before completion"):
        await stream(REASONING, REASONING_DONE, *TEXT, *tail)


def test_an_answer_no_chunk_streamed_comes_from_the_done_chunk_once() -> None:
    """The done chunk's aggregated message is sent only when no delta carried the answer."""
    chunks = project(REASONING, REASONING_DONE, DONE)
    assert [(c.type, c.content, c.is_delta) for c in chunks[1:]] == [
        ("text", "Seattle is mild tonight.", False),
        ("result", None, False),
    ]


def project(*events: Any) -> list[StreamChunk]:
    projector = PerplexityConciseProjector((KEY,))
    out: list[StreamChunk] = []
    for event in events:
        out.extend(projector.feed(event))
    return out


@pytest.mark.parametrize(
    ("event", "what"),
    [
        ({**TEXT[0], "object": "chat.completion.partial"}, "unrecognized chunk object"),
        ({k: v for k, v in TEXT[0].items() if k != "object"}, "unrecognized chunk object None"),
        (
            chunk("chat.reasoning", {"delta": empty(reasoning_steps=[{"type": "web_search"}])}),
            "no 'thought'",
        ),
        (chunk("chat.reasoning", {"delta": empty(reasoning_steps={})}), "not a list"),
        ({**REASONING_DONE, "choices": {}}, "not a list of objects"),
        (chunk("chat.completion.done", {"message": empty(content=["x"])}), "not text"),
    ],
)
def test_a_chunk_outside_the_grammar_is_refused(event: dict[str, Any], what: str) -> None:
    with pytest.raises(ProviderProtocolError, match=what):
        project(event)


def test_an_error_object_ends_the_stream_with_an_error_chunk() -> None:
    error = {"error": {"message": "rate limited", "type": "rate_limit", "code": 429}}
    chunks = project(REASONING, error)
    assert [c.type for c in chunks] == ["thinking", "error"]
    assert chunks[-1].metadata["code"] == "429"


def test_the_full_mode_projector_would_drop_the_reasoning_steps() -> None:
    """Why the row reads a ``"concise"`` stream with another projector than its class's.

    The full-mode projector reads the concise chunks without an error but knows no
    ``delta.reasoning_steps``: the reasoning stage, the reason to ask for concise, is lost.
    """
    projector = PerplexityProjector()
    chunks = [c for event in STREAM for c in projector.feed(event)]
    chunks.extend(projector.end(eof=False))
    assert "thinking" not in [c.type for c in chunks]
    assert "thinking" in [c.type for c in project(*STREAM)]

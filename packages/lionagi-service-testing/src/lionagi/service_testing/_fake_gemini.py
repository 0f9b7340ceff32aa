"""Gemini's native wire: ``generateContent`` (what the ``gemini`` CLI speaks) and embeddings.

Each chunk is a ``GenerateContentResponse``: ``candidates[0].content.parts`` holding ``text``
parts (``thought: true`` for thinking) or a whole ``functionCall`` part (Gemini does not stream
arguments). The last chunk carries ``finishReason`` and ``usageMetadata``. Served as SSE
(``?alt=sse``), as a JSON array of chunks (``streamGenerateContent`` without ``alt=sse``), or as
one merged object (``generateContent``). An answer cut at the output token limit
(``token_limit``) finishes with ``"MAX_TOKENS"``. An in-stream failure is an ``{"error": ...}``
chunk: after the first output (``stream_error``), or as the only chunk of a refused request
(``stream_unsupported_capability``).

``:embedContent`` answers ``{"embedding": {"values": [...]}}`` and ``:batchEmbedContents``
``{"embeddings": [{"values": [...]}, ...]}``, one per entry of ``requests``, in order; each vector
derives from the text of the entry's ``content.parts`` (as the OpenAI route's from ``input``) and
has ``outputDimensionality`` values when the request sets it. They have no streamed form.
"""

from __future__ import annotations

from typing import Any

from ._fake_embeddings import embed, vector_size
from ._fake_errors import gemini_error
from ._fake_request import RequestFacts
from ._fake_script import Script
from ._fake_wire import USAGE_INPUT, USAGE_OUTPUT, USAGE_TOTAL, Rendered, dumps, sse_data

__all__ = [
    "gemini_array",
    "gemini_batch_embed_json",
    "gemini_embed_json",
    "gemini_json",
    "gemini_stream",
]

_USAGE = {
    "promptTokenCount": USAGE_INPUT,
    "candidatesTokenCount": USAGE_OUTPUT,
    "totalTokenCount": USAGE_TOTAL,
}


def _chunk(
    parts: list[dict[str, Any]], seq: int, model: str, last: bool, limit: bool = False
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    chunk: dict[str, Any] = {"candidates": [candidate]}
    if last:
        candidate["finishReason"] = "MAX_TOKENS" if limit else "STOP"
        chunk["usageMetadata"] = _USAGE
    chunk["modelVersion"] = model
    chunk["responseId"] = f"fake-{seq}"
    return chunk


def _part_lists(script: Script) -> list[list[dict[str, Any]]]:
    """The parts of each chunk, in order."""
    parts: list[list[dict[str, Any]]] = [[{"text": t, "thought": True}] for t in script.thinking]
    if script.tool is not None:
        call = {"name": script.tool.name, "args": script.tool.arguments}
        parts.append([{"functionCall": call}])
    else:
        parts.extend([{"text": piece}] for piece in script.chunks)
    return parts


def _chunks(script: Script, seq: int, model: str) -> list[dict[str, Any]]:
    part_lists = _part_lists(script)
    last = len(part_lists) - 1
    limit = script.limit
    return [_chunk(parts, seq, model, i == last, limit) for i, parts in enumerate(part_lists)]


def gemini_json(script: Script, seq: int, facts: RequestFacts) -> bytes:
    """One ``GenerateContentResponse`` with every part merged, for ``:generateContent``."""
    parts: list[dict[str, Any]] = []
    if script.thinking:
        parts.append({"text": "".join(script.thinking), "thought": True})
    if script.tool is not None:
        parts.append({"functionCall": {"name": script.tool.name, "args": script.tool.arguments}})
    else:
        parts.append({"text": script.text})
    return dumps(_chunk(parts, seq, facts.model, last=True, limit=script.limit))


def gemini_array(script: Script, seq: int, facts: RequestFacts) -> bytes:
    """The chunks as one JSON array: ``:streamGenerateContent`` without ``alt=sse``."""
    return dumps(_chunks(script, seq, facts.model))


def gemini_stream(
    script: Script,
    seq: int,
    facts: RequestFacts,
    *,
    fail: bool = False,
    refused: str | None = None,
) -> Rendered:
    """SSE ``data:`` chunks; ``fail`` ends with an ``{"error": ...}`` chunk after first output.

    ``refused`` (an error kind, ``"unsupported_capability"``): that kind's error object
    (:func:`gemini_error`, the 400 ``INVALID_ARGUMENT`` one) as the stream's only chunk. The
    grammar has no opening event, and the request was refused, so there is no candidate.
    """
    if refused is not None:
        return Rendered([sse_data(dumps(gemini_error(refused)))], first_output=0)
    model = facts.model
    part_lists = _part_lists(script)
    last = len(part_lists) - 1
    tail = b'],"role":"model"},"index":0}],"modelVersion":' + dumps(model)
    tail += b',"responseId":' + dumps(f"fake-{seq}") + b"}"
    frames = [
        sse_data(dumps(_chunk(parts, seq, model, True, script.limit)))
        if i == last
        else sse_data(b'{"candidates":[{"content":{"parts":[' + dumps(parts[0]) + tail)
        for i, parts in enumerate(part_lists)
    ]
    if fail:
        return Rendered([frames[0], sse_data(dumps(gemini_error(500)))], first_output=0)
    return Rendered(frames, first_output=0)


def _embedding(request: Any) -> dict[str, Any]:
    """The ``ContentEmbedding`` of one ``EmbedContentRequest``: its parts' text, embedded.

    Lenient like the other fake routes: a part without text adds nothing, and a request without
    ``content`` embeds the empty text (the client under test is what the kit checks, not the
    request's validity).
    """
    fields = request if isinstance(request, dict) else {}
    content = fields.get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    text = "".join(
        part["text"]
        for part in (parts if isinstance(parts, list) else ())
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    )
    return {"values": embed(text, vector_size(fields.get("outputDimensionality")))}


def gemini_embed_json(body: dict[str, Any]) -> bytes:
    """``:embedContent``: ``{"embedding": {"values": [...]}}`` for the request's content."""
    return dumps({"embedding": _embedding(body)})


def gemini_batch_embed_json(body: dict[str, Any]) -> bytes:
    """``:batchEmbedContents``: one ``{"values": [...]}`` per entry of ``requests``, in order."""
    entries = body.get("requests")
    listed = entries if isinstance(entries, list) else []
    return dumps({"embeddings": [_embedding(entry) for entry in listed]})

"""A generic JSON endpoint in the shape of Exa's API, for non-model HTTP adapters.

``POST /search``, ``/findSimilar`` and ``/contents`` (or any path under ``/json/``) answer one
deterministic document derived from the request: the results' URLs hash the query (or the ids
asked for), so equal requests get equal answers across runs, and the answer text
(``x-fake-text``) becomes the results' ``text`` when contents are asked for. There is no model
output channel, so the content behaviours (``thinking``, ``tool``, ``usage``) render the same
document; error and fault behaviours apply as on every other route. ``/search`` with
``"stream": true`` streams as ``/answer`` does (below), the grammar Exa's SDKs read for a
streamed search.

``POST /answer`` (or ``/json/answer``) is Exa's grounded answer: one-shot, ``{"answer",
"citations", "requestId", "costDollars"}`` with the answer text as ``answer`` and two citations
whose URLs hash the query (each with the answer text as its ``text`` when the request asks for
``text``); with ``"stream": true``, the answer in ``chat.completion.chunk`` frames (the text
split into deltas as the chat route splits it), then one event carrying the ``citations`` with
``requestId`` and ``costDollars``, a frame with ``finish_reason: "stop"`` and ``data: [DONE]``,
which is the stream Exa's SDKs read. ``stream_error`` ends the stream after its first delta with
Exa's error object ``{"requestId", "error", "tag"}``. Exa's answer has no reasoning or usage
channel, so ``thinking`` and ``usage`` render the same answer; it has no tool calls and no
output-token-limit stop, so ``tool`` and ``token_limit`` are refused with a 400 rather than
answered in an invented shape.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ._fake_chat import chunk_frames
from ._fake_errors import json_error
from ._fake_request import RequestFacts
from ._fake_script import Script
from ._fake_wire import SSE_DONE, Rendered, dumps, sse_data

__all__ = ["answer_json", "answer_stream", "search_json"]

_DEFAULT_RESULTS = 10
_MAX_RESULTS = 100
_PUBLISHED = "2023-11-14T00:00:00.000Z"
_COST_PER_RESULT = 0.0005
_ANSWER_CITATIONS = 2
_ANSWER_COST = 0.005


def _count(body: dict[str, Any]) -> int:
    raw = body.get("numResults")
    if isinstance(raw, bool) or not isinstance(raw, int):
        return _DEFAULT_RESULTS
    return max(1, min(raw, _MAX_RESULTS))


def _wants_text(body: dict[str, Any]) -> bool:
    contents = body.get("contents")
    if isinstance(contents, dict) and contents.get("text"):
        return True
    return bool(body.get("text"))


def _page(url: str, title: str, text: str | None) -> dict[str, Any]:
    """One page as Exa describes it: a search result without its score, or a citation."""
    page: dict[str, Any] = {
        "id": url,
        "url": url,
        "title": title,
        "publishedDate": _PUBLISHED,
        "author": "Fake Author",
    }
    if text is not None:
        page["text"] = text
    return page


def _result(url: str, title: str, rank: int, text: str | None) -> dict[str, Any]:
    result = _page(url, title, None)
    result["score"] = round(1.0 - rank * 0.05, 4)
    if text is not None:
        result["text"] = text
    return result


def _slug(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:12]


def search_json(script: Script, seq: int, operation: str, body: dict[str, Any]) -> bytes:
    """The answer of ``operation`` (``search``, ``findSimilar`` or ``contents``) to ``body``."""
    text = script.text
    document: dict[str, Any] = {"requestId": f"req_fake_{seq}"}
    if operation == "contents":
        raw = body.get("ids", body.get("urls"))
        ids = [str(item) for item in raw] if isinstance(raw, list) else []
        document["results"] = [
            _result(item, f"Contents of {item}", rank, text) for rank, item in enumerate(ids)
        ]
        document["statuses"] = [{"id": item, "status": "success"} for item in ids]
    else:
        key = "url" if operation == "findSimilar" else "query"
        subject = body.get(key)
        subject = subject if isinstance(subject, str) else ""
        slug = _slug(f"{operation}:{subject}")
        wanted = text if _wants_text(body) else None
        document["resolvedSearchType"] = "neural"
        document["results"] = [
            _result(
                f"https://example.com/{slug}/{rank + 1}",
                f"Result {rank + 1} for {subject}",
                rank,
                wanted,
            )
            for rank in range(_count(body))
        ]
    total = round(_COST_PER_RESULT * max(1, len(document["results"])), 6)
    document["costDollars"] = {"total": total}
    return dumps(document)


def _query(body: dict[str, Any]) -> str:
    query = body.get("query")
    return query if isinstance(query, str) else ""


def _citations(script: Script, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The answer's sources: URLs hash the query; their ``text`` only when ``text`` is asked."""
    query = _query(body)
    slug = _slug(f"answer:{query}")
    text = script.text if body.get("text") else None
    return [
        _page(f"https://example.com/{slug}/{rank + 1}", f"Source {rank + 1} for {query}", text)
        for rank in range(_ANSWER_CITATIONS)
    ]


def _answer_fields(seq: int) -> dict[str, Any]:
    return {"requestId": f"req_fake_{seq}", "costDollars": {"total": _ANSWER_COST}}


def answer_json(script: Script, seq: int, body: dict[str, Any]) -> bytes:
    """Exa's one-shot answer to ``body``: the scripted text, its citations, id and cost."""
    return dumps(
        {"answer": script.text, "citations": _citations(script, body), **_answer_fields(seq)}
    )


def answer_stream(
    script: Script, seq: int, facts: RequestFacts, body: dict[str, Any], *, fail: bool = False
) -> Rendered:
    """Exa's answer stream: text deltas, the citations event, the finish frame, ``[DONE]``.

    ``fail``: the first delta, then Exa's error object (an internal error) and nothing after
    it, as a stream that failed once its 200 had begun.
    """
    chunk = chunk_frames(f"answer-fake-{seq}", facts.model)
    frames = [chunk.text(piece) for piece in script.chunks]
    if fail:
        error = json_error(500, request_id=f"req_fake_{seq}")
        return Rendered([*frames[:1], sse_data(dumps(error))], first_output=0)
    sources = {"citations": _citations(script, body), **_answer_fields(seq)}
    frames += [sse_data(dumps(sources)), chunk.finish("stop"), SSE_DONE]
    return Rendered(frames, first_output=0)

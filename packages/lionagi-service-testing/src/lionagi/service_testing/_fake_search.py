"""A generic JSON endpoint in the shape of Exa's search API, for non-model HTTP adapters.

``POST /search``, ``/findSimilar`` and ``/contents`` (or any path under ``/json/``) answer one
deterministic document derived from the request: the results' URLs hash the query (or the ids
asked for), so equal requests get equal answers across runs, and the answer text
(``x-fake-text``) becomes the results' ``text`` when contents are asked for. There is no stream
and no model output channel, so the content behaviours (``thinking``, ``tool``, ``usage``) render
the same document; error and fault behaviours apply as on every other route.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ._fake_script import Script
from ._fake_wire import dumps

__all__ = ["search_json"]

_DEFAULT_RESULTS = 10
_MAX_RESULTS = 100
_PUBLISHED = "2023-11-14T00:00:00.000Z"
_COST_PER_RESULT = 0.0005


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


def _result(url: str, title: str, rank: int, text: str | None) -> dict[str, Any]:
    result: dict[str, Any] = {
        "id": url,
        "url": url,
        "title": title,
        "publishedDate": _PUBLISHED,
        "author": "Fake Author",
        "score": round(1.0 - rank * 0.05, 4),
    }
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

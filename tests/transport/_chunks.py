"""Chat Completions stream chunks the transport tests' servers send."""

from __future__ import annotations

from typing import Any


def delta(text: str, finish: str | None = None) -> dict[str, Any]:
    """One `chat.completion.chunk` carrying `text` as its content delta."""
    return {
        "object": "chat.completion.chunk",
        "model": "m1",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}],
    }

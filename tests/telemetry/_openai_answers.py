"""OpenAI answers of one word ("ok") carrying a chosen usage record, one-shot and streamed.

The token-count tests differ only in the usage record an answer carries; the answers around it
are the same chat-completions and Responses shapes, built here once.
"""

from __future__ import annotations

import json
from typing import Any


def sse(data: dict[str, Any], event: str | None = None) -> bytes:
    """One SSE event as the server writes it."""
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def chat_body(usage: dict[str, Any]) -> dict[str, Any]:
    """A one-shot chat completion answering "ok"."""
    return {
        "id": "c1",
        "object": "chat.completion",
        "model": "gpt-x",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "ok"},
                "finish_reason": "stop",
            }
        ],
        "usage": usage,
    }


def chat_stream(usage: dict[str, Any]) -> list[bytes]:
    """The same answer streamed: the text, the finish reason, the usage chunk, ``[DONE]``."""
    frame = {"id": "c1", "object": "chat.completion.chunk", "model": "gpt-x"}
    return [
        sse({**frame, "choices": [{"index": 0, "delta": {"role": "assistant", "content": "ok"}}]}),
        sse({**frame, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        sse({**frame, "choices": [], "usage": usage}),
        b"data: [DONE]\n\n",
    ]


def responses_body(usage: dict[str, Any]) -> dict[str, Any]:
    """A completed Responses API response answering "ok"."""
    return {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "model": "gpt-x",
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "ok", "annotations": []}],
            }
        ],
        "usage": usage,
    }


def responses_stream(usage: dict[str, Any]) -> list[bytes]:
    """The same response streamed as its one terminal event."""
    done = {"type": "response.completed", "sequence_number": 0, "response": responses_body(usage)}
    return [sse(done, "response.completed")]

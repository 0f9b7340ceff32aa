"""Byte-level helpers shared by the fake server's vendor renderers.

Renderers build every frame as ready-to-send bytes so the HTTP layer only frames and writes them:
per-chunk work stays one ``json.dumps`` and a concatenation, which keeps the fake server from being
the bottleneck of the streaming benchmarks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CREATED",
    "SSE_DONE",
    "USAGE_INPUT",
    "USAGE_OUTPUT",
    "USAGE_TOTAL",
    "Rendered",
    "dumps",
    "js",
    "sse_data",
    "sse_event",
    "split_text",
]

# Fixed clock and token counts: the same request must give the same bytes on every run.
CREATED = 1_700_000_000
USAGE_INPUT = 42
USAGE_OUTPUT = 7
USAGE_TOTAL = USAGE_INPUT + USAGE_OUTPUT
# The sentinel ending an OpenAI-style ``data:`` stream (chat completions, Exa's answer stream).
SSE_DONE = b"data: [DONE]\n\n"


@dataclass(frozen=True, slots=True)
class Rendered:
    """A reply body as frames: one frame per SSE event, or a single JSON document.

    Attributes:
        frames: The body pieces in order; joined they form the complete body.
        first_output: Index of the first frame carrying model output. Cut behaviours
            (``disconnect_after``, ``stall``) send ``frames[: first_output + 1]`` so the client has
            seen output before the connection misbehaves.
        stream: True for ``text/event-stream`` bodies, False for one JSON document.
    """

    frames: list[bytes]
    first_output: int = 0
    stream: bool = True


def dumps(obj: Any) -> bytes:
    """Serialize compactly, as the vendors do on the wire."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def js(text: str) -> bytes:
    """Encode one JSON string literal, for splicing into pre-rendered frame templates."""
    return json.dumps(text, ensure_ascii=False).encode()


def sse_data(payload: bytes) -> bytes:
    """Frame a ``data:``-only SSE event (OpenAI chat completions, Gemini)."""
    return b"data: " + payload + b"\n\n"


def sse_event(name: bytes, payload: bytes) -> bytes:
    """Frame a named SSE event (OpenAI Responses, Anthropic Messages)."""
    return b"event: " + name + b"\ndata: " + payload + b"\n\n"


def split_text(text: str, parts: int) -> tuple[str, ...]:
    """Split ``text`` into exactly ``parts`` non-empty pieces that concatenate back to it.

    When ``text`` is shorter than ``parts`` characters it is first repeated (joined by spaces)
    until it is long enough, so a benchmark asking for 1,000 chunks always gets 1,000 deltas.
    """
    if parts <= 1 or not text:
        return (text,)
    if len(text) < parts:
        text = " ".join([text] * (parts // (len(text) + 1) + 1))
    size = len(text)
    return tuple(text[i * size // parts : (i + 1) * size // parts] for i in range(parts))

"""The one normalized stream item every endpoint yields (ADR-0027 D3, ADR-0030 D3).

A slotted dataclass, not a pydantic model: a stream may carry tens of thousands of chunks and
per-chunk validation would dominate streaming cost. Adapters validate once, at projection time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

__all__ = ["CHUNK_TYPES", "ChunkType", "StreamChunk"]

ChunkType = Literal[
    "system",
    "thinking",
    "text",
    "tool_use",
    "tool_result",
    "result",
    "error",
]

CHUNK_TYPES: frozenset[str] = frozenset(get_args(ChunkType))


@dataclass(slots=True)
class StreamChunk:
    """One normalized piece of provider output.

    `is_delta=True` means `content` continues the previous chunk of the same type; `False`
    means it is a complete unit. `is_error` and `type == "error"` always agree for
    provider-declared failures; a failed tool result sets `is_error` on a `tool_result`.
    """

    type: ChunkType
    content: str | None = None
    tool_name: str | None = None
    tool_id: str | None = None
    tool_input: dict[str, Any] | None = None
    tool_output: Any | None = None
    is_error: bool = False
    is_delta: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready mapping without the fields that hold their default value."""
        out: dict[str, Any] = {"type": self.type}
        if self.content is not None:
            out["content"] = self.content
        if self.tool_name is not None:
            out["tool_name"] = self.tool_name
        if self.tool_id is not None:
            out["tool_id"] = self.tool_id
        if self.tool_input is not None:
            out["tool_input"] = self.tool_input
        if self.tool_output is not None:
            out["tool_output"] = self.tool_output
        if self.is_error:
            out["is_error"] = True
        if self.is_delta:
            out["is_delta"] = True
        if self.metadata:
            out["metadata"] = self.metadata
        return out

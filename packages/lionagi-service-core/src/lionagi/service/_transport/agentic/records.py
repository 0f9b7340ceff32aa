"""Typed shapes at the agentic boundary (ADR-0030 D2, D3).

TypedDicts rather than models: they describe plain mappings that already cross the APICalling
and one-shot boundaries, so callers index them like before while type checkers see the keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from pydantic import BaseModel

__all__ = [
    "AgenticCallResult",
    "AgenticCapabilities",
    "AgenticPayload",
    "AgenticResultMetadata",
    "AgenticTransport",
]

AgenticTransport = Literal["subprocess", "in_process", "remote"]


class AgenticPayload(TypedDict):
    """The agentic request envelope: exactly one validated provider request model."""

    request: BaseModel


class AgenticCallResult(TypedDict):
    """One-shot result of an agentic call; every key is always present.

    Unavailable values are None or an empty mapping, never a missing key, so consumers need no
    per-provider `.get` chains.
    """

    result: str
    session_id: str | None
    model: str | None
    usage: dict[str, Any]
    metadata: dict[str, Any]


class AgenticResultMetadata(TypedDict, total=False):
    """Metadata a terminal `result` chunk may carry: only fields the provider reported."""

    session_id: str
    model: str
    usage: dict[str, Any]
    total_cost_usd: float
    num_turns: int
    duration_ms: int
    duration_api_ms: int


@dataclass(frozen=True, slots=True)
class AgenticCapabilities:
    """What an agentic adapter can prove about its output; immutable class data."""

    transport: AgenticTransport
    resumable: bool
    emits_tool_events: bool
    reports_usage: bool

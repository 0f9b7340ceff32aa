"""Token counts read from a usage record, for telemetry.

Why a hook and not one table in telemetry: each vendor names its counts its own way (OpenAI's
``prompt_tokens``, Anthropic's ``input_tokens``, Gemini's ``promptTokenCount``, Ollama's
``prompt_eval_count``, pi's ``input``), and core names no vendor. The default reads the two
spellings of the OpenAI-shaped and Anthropic-shaped records; an endpoint whose vendor spells
them otherwise overrides ``Endpoint.token_counts``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["default_token_counts", "first_count"]


def first_count(record: Mapping[str, Any], *names: str) -> int | None:
    """The first of `names` in `record` holding a whole number (a bool is none)."""
    for name in names:
        value = record.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def default_token_counts(usage: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """Input and output tokens of an OpenAI- or Anthropic-shaped usage record, else None."""
    return (
        first_count(usage, "input_tokens", "prompt_tokens"),
        first_count(usage, "output_tokens", "completion_tokens"),
    )

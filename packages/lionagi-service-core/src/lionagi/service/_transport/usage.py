"""Token counts read from a usage record, for telemetry.

Why a hook and not one table in telemetry: each vendor names its counts its own way (OpenAI's
``prompt_tokens``, Anthropic's ``input_tokens``, Gemini's ``promptTokenCount``, Ollama's
``prompt_eval_count``, pi's ``input``), and core names no vendor: ``Endpoint.token_counts``
reads the OpenAI and Anthropic spellings, and an endpoint whose vendor spells them otherwise
overrides it, reading with :func:`first_count`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["first_count"]


def first_count(record: Mapping[str, Any], *names: str) -> int | None:
    """The first of `names` in `record` holding a whole number (a bool is none)."""
    for name in names:
        value = record.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None

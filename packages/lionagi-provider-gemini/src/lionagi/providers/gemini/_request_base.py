"""What the Gemini chat and native request models share, kept apart from both.

A row's modules load on that row's first use (core resolves one endpoint at a time), so the
chat row's request model must not import the native ``generateContent`` models, nor the native
endpoints the chat model's helpers: the strict base model, the thinking levels both APIs spell
alike, the level-or-budget rule, the cache name both complete and the model id check (which the
endpoints use for the URL path) live here.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "StrictModel",
    "ThinkingLevel",
    "cached_content_name",
    "level_or_budget",
    "model_path_segment",
]

# A model id as the path segment ``models/{model}``: letters, digits, dot, dash, underscore.
# Anything else ("/", "?", "#", "..", spaces) would change which URL the request reaches.
_MODEL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def model_path_segment(value: str) -> str:
    """``value`` as the ``{model}`` of ``models/{model}``; a ``models/`` prefix is accepted.

    Raises:
        ValueError: the id is not one safe path segment (pydantic reports it on ``model``).
    """
    name = value.strip()
    if name.startswith("models/"):
        name = name[len("models/") :]
    if not _MODEL_ID.fullmatch(name) or ".." in name:
        raise ValueError(
            "must be a Gemini model id such as 'gemini-2.5-flash' (letters, digits, '.', '-', "
            "'_'; an optional 'models/' prefix)"
        )
    return name


def cached_content_name(value: str) -> str:
    """``value`` as the cache's resource name: a bare id gets its ``cachedContents/`` collection.

    The API reads only the resource name (``cachedContents/{id}``). Google's SDK completes a
    bare id (no ``/``) to it for the Developer API and sends every other name as written, so
    this does the same: an id copied without its collection is the cache the caller meant,
    while a name with a ``/`` is not guessed at (the API judges it).
    """
    if value and "/" not in value:
        return f"cachedContents/{value}"
    return value


def level_or_budget(level: str | None, budget: int | None, budget_name: str) -> str | None:
    """``level`` when no budget is set: the API refuses a thinking level and budget together."""
    if level is not None and budget is not None:
        raise ValueError(
            f"cannot be combined with {budget_name} (the API refuses both in one request: "
            "the level is the Gemini 3 control, the budget the Gemini 2.5 one); keep one"
        )
    return level


class StrictModel(BaseModel):
    """Forbids unknown fields, never coerces a value of the wrong JSON type, builds on first use."""

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


ThinkingLevel = Literal["minimal", "low", "medium", "high", "MINIMAL", "LOW", "MEDIUM", "HIGH"]

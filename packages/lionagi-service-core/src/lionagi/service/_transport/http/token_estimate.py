"""The token estimate admission's ``limit_tokens`` counts: four characters per token.

A rough count, deliberately: a tokenizer per model would be a vendor dependency in core. It is
only read when a token limit is configured and the endpoint has ``requires_tokens``; a payload
with nothing to measure gives None, so admission refuses the call instead of guessing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..._base.errors import EndpointConfigurationError

__all__ = ["TOKEN_TEXT_KEYS", "estimate_tokens"]

TOKEN_TEXT_KEYS = ("messages", "input", "prompt")
"""The payload members `Endpoint.estimate_tokens` measures by default."""


def estimate_tokens(
    payload: Mapping[str, Any], keys: Sequence[str] = TOKEN_TEXT_KEYS
) -> int | None:
    """Rough token count (4 characters per token) of the payload members named in `keys`.

    The default members are chat messages, Responses input, embeddings input and a prompt; a
    vendor whose request keeps its text elsewhere (Gemini's `contents`, Anthropic's top-level
    `system`) names its own through `Endpoint.estimate_tokens`. Every member present is
    counted. Returns None when the payload has none of them, so admission can refuse a
    token-limited call honestly instead of guessing.

    Raises:
        EndpointConfigurationError: the value is nested too deeply to measure (`field` is its
            key); the same payload could not be encoded for sending either.
    """
    total: int | None = None
    for key in keys:
        if key not in payload:
            continue
        value = payload[key]
        try:
            text = value if isinstance(value, str) else json.dumps(value, default=str)
        except (RecursionError, ValueError) as exc:  # too deep, or a circular reference
            raise EndpointConfigurationError(
                key, f"cannot be measured for the token estimate: {exc}"
            ) from None
        total = (total or 0) + len(text) // 4
    return None if total is None else max(1, total)

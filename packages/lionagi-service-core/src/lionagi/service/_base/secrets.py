"""Keep secrets out of text that leaves the library (errors, logs, diagnostics)."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["bounded", "redact"]

# Shapes of credentials that commonly echo back in provider error bodies.
_KEY_SHAPES = re.compile(
    r"(sk-[A-Za-z0-9_\-]{8,}|sk-ant-[A-Za-z0-9_\-]{8,}|AIza[0-9A-Za-z_\-]{20,}"
    r"|(?i:bearer)\s+[A-Za-z0-9._\-]{8,}|(?i:api[_-]?key)[\"'=: ]+[A-Za-z0-9._\-]{8,})"
)
REDACTED = "[REDACTED]"


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Replace each known secret and anything shaped like an API key with ``[REDACTED]``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    return _KEY_SHAPES.sub(REDACTED, text)


def bounded(text: str, limit: int = 2048) -> str:
    """Keep at most ``limit`` characters, marking a cut so readers know text is missing."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"... [{len(text) - limit} more characters]"

"""Constants the catalog row and model policy need: importable without pydantic.

The package ``__init__`` is imported for every command (it is the entry point), so what it
needs at import lives here rather than in the modules that define models.
"""

from __future__ import annotations

DEFAULT_MODEL = "gemini-3.1-pro-preview"
"""pi 0.73's default model for its default provider (``google``), what the ``pi`` alias names."""

THINKING_LEVELS: tuple[str, ...] = ("none", "off", "minimal", "low", "medium", "high", "xhigh")
"""pi's ``--thinking`` levels plus ``none`` (core's spelling of ``off``)."""

"""Constants the catalog row and model policy need: importable without pydantic.

The package ``__init__`` is imported for every command (it is the entry point), so what it
needs at import lives here rather than in the modules that define models.
"""

from __future__ import annotations

EFFORT_LEVELS: tuple[str, ...] = ("low", "medium", "high", "xhigh", "max")

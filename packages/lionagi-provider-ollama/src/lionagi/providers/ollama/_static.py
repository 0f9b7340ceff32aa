"""Constants the catalog row and model policy need: importable without pydantic.

The package ``__init__`` is imported for every command (it is the entry point), so what it
needs at import lives here rather than in the modules that define models.
"""

from __future__ import annotations

DEFAULT_ORIGIN = "http://localhost:11434"
"""Where ``ollama serve`` listens by default; the only local origin allowed without opt-in."""

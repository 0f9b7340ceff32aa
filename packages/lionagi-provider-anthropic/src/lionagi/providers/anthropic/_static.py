"""Constants the catalog row and model policy need: importable without pydantic.

The package ``__init__`` is imported for every command (it is the entry point), so what it
needs at import lives here rather than in the modules that define models.
"""

from __future__ import annotations

DEFAULT_MAX_TOKENS = 4096
"""The ``max_tokens`` the catalog row defaults to: the API requires one, and every current
Claude model can produce at least this many output tokens."""

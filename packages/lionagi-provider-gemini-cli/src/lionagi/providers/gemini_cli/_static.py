"""Constants the catalog row and model policy need: importable without pydantic.

The package ``__init__`` is imported for every command (it is the entry point), so what it
needs at import lives here rather than in the modules that define models.
"""

from __future__ import annotations

DEFAULT_MODEL = "gemini-2.5-flash"
"""Passed explicitly on every run: a gateway serves the model it is asked for, and the CLI's
own default ("auto" routing) picks models a custom endpoint may not have."""

"""Constants the catalog row and model policy need: importable without pydantic.

The package ``__init__`` is imported for every command (it is the entry point), so what it
needs at import lives here rather than in the modules that define models.
"""

from __future__ import annotations

from lionagi.service import AgenticProgram

DEFAULT_MODEL = "gemini-2.5-flash"
"""Passed explicitly on every run: a gateway serves the model it is asked for, and the CLI's
own default ("auto" routing) picks models a custom endpoint may not have."""

PROGRAM = AgenticProgram(
    binary="gemini",
    tested_version="0.61.0",
    install_hint="npm install -g @google/gemini-cli@0.61.0",
    auth_hint=(
        "run `gemini` once and sign in, or set GEMINI_API_KEY; isolated mode needs "
        "GEMINI_API_KEY (env) or a gateway (--gateway-url with --gateway-key-env; in Python "
        "agentic_settings gateway_url and gateway_api_key)"
    ),
)
"""The CLI program the adapter runs: the catalog row declares it (so ``providers`` reports it
without importing the adapter) and the adapter class reads its attributes from it."""

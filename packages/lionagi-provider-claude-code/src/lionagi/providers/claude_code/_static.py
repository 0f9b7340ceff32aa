"""Constants the catalog row and model policy need: importable without pydantic.

The package ``__init__`` is imported for every command (it is the entry point), so what it
needs at import lives here rather than in the modules that define models.
"""

from __future__ import annotations

from lionagi.service import AgenticProgram

EFFORT_LEVELS: tuple[str, ...] = ("low", "medium", "high", "xhigh", "max")

PROGRAM = AgenticProgram(
    binary="claude",
    tested_version="2.1.332",
    install_hint="npm install -g @anthropic-ai/claude-code@2.1.332",
    auth_hint=(
        "uses your own Claude Code login: run `claude` once and /login, or set "
        "ANTHROPIC_API_KEY; or deploy a gateway (--gateway-url with --gateway-key-env; in "
        "Python agentic_settings gateway_url and gateway_api_key)"
    ),
)
"""The CLI program the adapter runs: the catalog row declares it (so ``providers`` reports it
without importing the adapter) and the adapter class reads its attributes from it."""

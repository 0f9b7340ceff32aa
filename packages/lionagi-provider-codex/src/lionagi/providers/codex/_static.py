"""Constants the catalog row and model policy need: importable without pydantic.

The package ``__init__`` is imported for every command (it is the entry point), so what it
needs at import lives here rather than in the modules that define models.
"""

from __future__ import annotations

from lionagi.service import AgenticProgram

DEFAULT_MODEL = "gpt-5.2-codex"
"""The model passed when the caller names none.

Codex's own default (no ``-m``) offers the model no tools at all when it talks to a custom
model provider (seen with 0.171.0: ``tools: []`` and "unsupported call: shell"), so the adapter
always passes a model explicitly; a ``*-codex`` name gets the shell tool set.
"""

REASONING_EFFORTS: tuple[str, ...] = ("none", "minimal", "low", "medium", "high", "xhigh")
"""Codex's ``model_reasoning_effort`` values (the policy's effort levels)."""

PROGRAM = AgenticProgram(
    binary="codex",
    tested_version="0.171.0",
    install_hint="npm install -g @openai/codex@0.171.0",
    auth_hint=(
        "run `codex login` (ChatGPT sign-in) or set OPENAI_API_KEY; or deploy a gateway "
        "(--gateway-url with --gateway-key-env; in Python agentic_settings gateway_url and "
        "gateway_api_key)"
    ),
)
"""The CLI program the adapter runs: the catalog row declares it (so ``providers`` reports it
without importing the adapter) and the adapter class reads its attributes from it."""

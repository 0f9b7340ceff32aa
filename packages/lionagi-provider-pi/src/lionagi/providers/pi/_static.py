"""Constants the catalog row and model policy need: importable without pydantic.

The package ``__init__`` is imported for every command (it is the entry point), so what it
needs at import lives here rather than in the modules that define models.
"""

from __future__ import annotations

from lionagi.service import AgenticProgram

DEFAULT_MODEL = "gemini-3.1-pro-preview"
"""pi 0.73's default model for its default provider (``google``), what the ``pi`` alias names."""

THINKING_LEVELS: tuple[str, ...] = ("none", "off", "minimal", "low", "medium", "high", "xhigh")
"""pi's ``--thinking`` levels plus ``none`` (core's spelling of ``off``)."""

TESTED_VERSION = "0.73.1"
"""The pi release the adapter's tests ran against."""

PROGRAM = AgenticProgram(
    binary="pi",
    tested_version=TESTED_VERSION,
    install_hint=f"npm install -g @mariozechner/pi-coding-agent@{TESTED_VERSION}",
    auth_hint=(
        "uses your own pi login: run `pi` and `/login`, or set the provider's key "
        "(e.g. ANTHROPIC_API_KEY, GEMINI_API_KEY); or deploy a gateway in an isolated config "
        "home (--gateway-url with --gateway-key-env and --config-home isolated; in Python "
        "agentic_settings gateway_url, gateway_api_key and config_home)"
    ),
)
"""The CLI program the adapter runs: the catalog row declares it (so ``providers`` reports it
without importing the adapter) and the adapter class reads its attributes from it."""

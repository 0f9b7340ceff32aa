"""Constants the catalog rows need: importable without pydantic or AG2.

The package ``__init__`` is imported for every command (it is the entry point), so what its
rows declare lives here rather than in the endpoint modules.
"""

from __future__ import annotations

from lionagi.service import AgenticProgram

AG2_REQUIREMENT = "ag2[nlip]>=0.14,<0.15"
"""The one AG2 line that ships the beta agent, classic group chat and NLIP together."""

INSTALL_LINE = f"pip install 'lionagi-provider-ag2' (or: pip install '{AG2_REQUIREMENT}')"

IN_PROCESS = AgenticProgram(modules=("autogen",), install_hint=INSTALL_LINE)
"""What the in-process endpoints (group chat, beta agent) need installed: AG2's ``autogen``.

Declared on their catalog rows (so ``providers`` reports it without importing the endpoints)
and read by the endpoint classes (``required_modules``, ``install_hint``)."""

REMOTE = AgenticProgram()
"""The NLIP endpoint talks to a remote server: nothing to install beyond this distribution."""

NLIP_TIMEOUT = 60.0
"""The NLIP endpoint's local transport cap in seconds (inherited, ADR-0030 D5).

Declared on the ``nlip`` catalog row (its ``timeout``), so a config the catalog builds starts
from it instead of the generic agentic 3600 s, and a caller's ``timeout=`` (3600 included) is
kept as given. The endpoint also falls back to it for a config built without a timeout."""

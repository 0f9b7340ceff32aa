"""pi's config files in an isolated home: headless settings and the gateway's models file.

pi reads ``$PI_CODING_AGENT_DIR/settings.json`` and ``models.json`` (default ``~/.pi/agent``).
A gateway can only be given to pi as a custom provider in ``models.json`` (there is no base-URL
flag or variable), so the adapter writes that file, but never the key: ``apiKey`` names an
environment variable (pi resolves a bare upper-case name that way) that the launch sets, so the
secret lives only in the child's environment. Files are written 0600 into the 0700 home and
replaced atomically, so a concurrent launch never reads half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "GATEWAY_KEY_ENV",
    "GATEWAY_MODEL",
    "GATEWAY_PROVIDER",
    "HEADLESS_SETTINGS",
    "agent_dir",
    "write_models_file",
    "write_settings",
]

GATEWAY_PROVIDER = "lionagi-gateway"
"""The provider name the adapter defines in ``models.json`` for ``AgenticSettings.gateway_url``."""

GATEWAY_KEY_ENV = "LIONAGI_PI_GATEWAY_KEY"
"""The variable ``models.json``'s ``apiKey`` names; the launch sets it to the gateway key."""

HEADLESS_SETTINGS: Mapping[str, Any] = {
    # Fail fast: no agent-level retry loop (2 s, 4 s, 8 s ...) and no SDK-level retries, so a 401
    # or a dead gateway surfaces at once and the caller's own retry policy decides.
    "retry": {"enabled": False, "provider": {"maxRetries": 0}},
    "enableInstallTelemetry": False,
    "quietStartup": True,
    "collapseChangelog": True,
}


GATEWAY_MODEL: Mapping[str, Any] = {"reasoning": True, "thinkingLevelMap": {"xhigh": "xhigh"}}
"""What each gateway model entry declares beside its ``id``.

pi (0.73.1) clamps ``--thinking`` to ``off`` for a model not declared ``reasoning`` (a custom
model's default), so without it the request's ``thinking`` never reached the gateway; ``xhigh``
is offered only when the level map names it. A run that asks for no thinking passes
``--thinking off`` (``PiCliEndpoint.cli_arguments``), so declaring it changes nothing for a
model that does not reason: pi then sends no reasoning field, as before.
"""


def agent_dir(home: Path) -> Path:
    """Where pi's agent dir lives inside an isolated ``home`` (what ``~/.pi/agent`` would be)."""
    return home / ".pi" / "agent"


def write_settings(home: Path) -> None:
    """Create the agent dir (0700) and write :data:`HEADLESS_SETTINGS` there (0600)."""
    folder = agent_dir(home)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    _write_private(folder / "settings.json", dict(HEADLESS_SETTINGS))


def write_models_file(home: Path, base_url: str, models: Iterable[str]) -> Path:
    """Write ``models.json`` defining :data:`GATEWAY_PROVIDER` at ``base_url`` with ``models``.

    ``base_url`` is the gateway root; pi's OpenAI-compatible client appends
    ``/chat/completions`` to the ``baseUrl``, so ``/v1`` is added here.
    """
    folder = agent_dir(home)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    document = {
        "providers": {
            GATEWAY_PROVIDER: {
                "baseUrl": base_url.rstrip("/") + "/v1",
                "api": "openai-completions",
                "apiKey": GATEWAY_KEY_ENV,
                # A gateway is not api.openai.com: send the system prompt as "system" and no
                # OpenAI-only fields, the shape every OpenAI-compatible server accepts.
                "compat": {"supportsDeveloperRole": False, "supportsStore": False},
                "models": [dict(GATEWAY_MODEL, id=model) for model in sorted(set(models))],
            }
        }
    }
    path = folder / "models.json"
    _write_private(path, document)
    return path


def _write_private(path: Path, document: Mapping[str, Any]) -> None:
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=2)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise

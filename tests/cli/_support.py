"""How the command-line tests start the real ``lionagi-service`` command, in one place."""

from __future__ import annotations

import os
import sys
from pathlib import Path

SCRIPT = Path(sys.executable).with_name("lionagi-service")
HANG_GUARD = 30.0  # seconds; a "did not hang" bound only


def command() -> list[str]:
    """The installed console script, or the same entry point through this interpreter."""
    if SCRIPT.exists():
        return [str(SCRIPT)]
    return [
        sys.executable,
        "-c",
        "import sys; from _lionagi_service_cli import main; sys.exit(main())",
    ]


def cli_env(*, columns: str | None = None, **extra: str) -> dict[str, str]:
    """This environment with plain output (no colour, no terminal codes, unbuffered).

    ``columns`` fixes the width the command wraps at; None removes any inherited ``COLUMNS``.
    """
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    env.update({"NO_COLOR": "1", "TERM": "dumb", "PYTHONUNBUFFERED": "1"})
    if columns is not None:
        env["COLUMNS"] = columns
    env.update(extra)
    return env

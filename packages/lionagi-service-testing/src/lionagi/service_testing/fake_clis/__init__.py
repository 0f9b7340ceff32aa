"""Fake agentic CLIs: small stdlib-only scripts that misbehave on demand, for adapter tests.

Each script takes its behaviour from argv (run one with ``--help``) and is shipped inside the
package so third-party adapter packages can drive the shared subprocess support, and their own
teardown, against the same fakes as core::

    from lionagi.service_testing.fake_clis import fake_cli_argv

    argv = fake_cli_argv("stall", "--events", "1", "--ignore-term")

Scripts (names for :func:`script_path` / :func:`fake_cli_argv`):

``emit``          NDJSON events: whole lines, lines split across writes (also inside UTF-8
                  characters), several objects concatenated on one line, pretty-printed
                  values, then optional raw text (a scalar, an array, a truncated tail).
``echo``          One event describing what it received: argv, cwd, environment names,
                  stdin, process group and session.
``fail``          Some events, then a provider error on stderr and/or stdout, and an exit
                  status (non-zero by default; 0, 1 and 145 are what real CLIs use).
``stderr_flood``  Megabytes of stderr interleaved with stdout events (deadlocks an undrained
                  stderr pipe).
``stall``         Some events, then sleeps forever; optionally ignores SIGTERM, prints retry
                  notices while stalled, or first reads stdin to EOF.
``spawn_tree``    Spawns sleeping grandchildren and reports their pids; with ``--setsid`` they
                  are tool shells in a new session with a child of their own.
``record``        Appends a JSON record of its argv, stdin bytes, environment, cwd and
                  pid/pgid/sid to a file (``--record FILE`` or ``LIONAGI_FAKE_CLI_RECORD``),
                  then runs ``replay`` on its plan: the conformance kit's witness of what an
                  adapter sent, on the same run whose events it checks.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["SCRIPTS", "fake_cli_argv", "script_path"]

SCRIPTS: tuple[str, ...] = (
    "echo",
    "emit",
    "fail",
    "record",
    "replay",
    "spawn_tree",
    "stall",
    "stderr_flood",
)

_HERE = Path(__file__).resolve().parent


def script_path(name: str) -> Path:
    """Absolute path of the fake CLI script ``name`` (one of :data:`SCRIPTS`)."""
    if name not in SCRIPTS:
        raise ValueError(f"unknown fake CLI {name!r}; choose one of {', '.join(SCRIPTS)}")
    return _HERE / f"{name}.py"


def fake_cli_argv(name: str, *args: str, python: str | None = None) -> list[str]:
    """Argv running fake CLI ``name`` with ``args`` under an isolated, site-less interpreter.

    ``-I -S`` keeps the child independent of the caller's environment and fast to start; the
    scripts use the standard library only.
    """
    return [python or sys.executable, "-I", "-S", str(script_path(name)), *args]

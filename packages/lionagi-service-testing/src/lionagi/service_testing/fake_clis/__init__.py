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

import json
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["SCRIPTS", "RecordingCli", "fake_cli_argv", "script_path"]

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


class RecordingCli:
    """A stand-alone fake CLI for the ``binary`` setting: records each launch, replays ``events``.

    Writes, under ``directory``, a plan for the ``replay`` script and an executable named
    ``name`` that runs ``record`` on it. Point an adapter's ``binary`` setting at
    :attr:`binary`, then read what the adapter passed with :meth:`launches` (or that it never
    launched: an empty list). For tests of the path a caller takes, ``iModel(model=...)`` with
    ``agentic_settings={"binary": ...}``, where an ``argv`` prefix cannot be injected.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        name: str,
        events: Sequence[Mapping[str, Any]],
        *,
        exit_code: int = 0,
    ) -> None:
        root = Path(directory)
        self.record = root / f"{name}.launches.jsonl"
        plan = root / f"{name}.plan.json"
        plan.write_text(
            json.dumps({"events": list(events), "exit_code": exit_code}), encoding="utf-8"
        )
        command = " ".join(
            shlex.quote(part)
            for part in fake_cli_argv("record", "--record", str(self.record), str(plan))
        )
        self.binary = root / name
        self.binary.write_text(f'#!/bin/sh\nexec {command} "$@"\n', encoding="utf-8")
        self.binary.chmod(0o755)

    def launches(self) -> list[list[str]]:
        """The arguments the adapter passed, one list per launch, in order."""
        if not self.record.exists():
            return []
        lines = self.record.read_text(encoding="utf-8").splitlines()
        return [list(json.loads(line)["args"]) for line in lines if line.strip()]

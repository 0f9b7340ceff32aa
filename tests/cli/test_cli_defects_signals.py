"""SIGTERM ends ``lionagi-service chat`` as cleanly as Ctrl-C does, with exit code 143.

``timeout``, systemd and Kubernetes stop a program with SIGTERM. Its default action ended the
interpreter at once: an agentic CLI's process group was left running (re-parented to pid 1) and
its isolated config home stayed in the temp directory. These tests run the installed console
script in a subprocess against an agentic provider whose program never finishes, send SIGTERM,
and look for survivors by an environment marker in ``/proc/*/environ``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from lionagi.service_testing.fake_clis import script_path
from lionagi.service_testing.real_clis import MARKER_ENV, processes_with_marker

from ._support import HANG_GUARD, cli_env, command

MARK = MARKER_ENV

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/environ").exists(), reason="finds survivors through /proc"
)


def _default_signals() -> None:
    # The child stands for a program systemd or `timeout` started: SIGTERM and SIGINT at their
    # defaults, whatever this test process inherited.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _marked(token: str) -> list[int]:
    """Pids of live processes whose environment carries ``MARK=token`` (zombies excluded)."""
    return processes_with_marker(token)


def _agent(root: Path) -> tuple[Path, Path]:
    """A stand-in CLI: a sleeping child in its process group, then a program that never ends.

    It writes ``<pid> <HOME>`` to the returned info file once the child is started, so the test
    knows the isolated home and that the launch happened.
    """
    info = root / "agent-info"
    agent = root / "fake-agent"
    agent.write_text(
        "#!/bin/sh\n"
        "sleep 3600 &\n"
        f'echo "$$ $HOME" > "{info}.tmp" && mv "{info}.tmp" "{info}"\n'
        f'exec "{sys.executable}" -I -S "{script_path("stall")}" --events 0\n',
        encoding="utf-8",
    )
    agent.chmod(0o755)
    return agent, info


def _wait_for(path: Path) -> str:
    deadline = time.monotonic() + HANG_GUARD
    while not path.exists():
        assert time.monotonic() < deadline, "the fake agent never started"
        time.sleep(0.05)
    return path.read_text(encoding="utf-8")


def _gone(token: str) -> list[int]:
    """Marked processes still alive after a short grace (a killed child may await its reaper)."""
    deadline = time.monotonic() + 5.0
    while (alive := _marked(token)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def test_sigterm_kills_the_agentic_cli_removes_its_home_and_exits_143(tmp_path: Path) -> None:
    pytest.importorskip("lionagi.providers.claude_code")
    agent, info = _agent(tmp_path)
    token = uuid.uuid4().hex
    proc = subprocess.Popen(
        [
            *command(),
            "chat",
            "claude_code/sonnet",
            "hi",
            "--json",
            "--binary",
            str(agent),
            "--config-home",
            "isolated",
            "--env",
            f"{MARK}={token}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
        preexec_fn=_default_signals,
    )
    home: Path | None = None
    try:
        _, home_text = _wait_for(info).split(maxsplit=1)
        home = Path(home_text.strip())
        assert home.is_dir()
        assert len(_marked(token)) >= 2  # the agent and its child: the check can see them

        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=HANG_GUARD)

        assert proc.returncode == 143, err
        assert "Traceback" not in err
        assert json.loads(out.splitlines()[-1]) == {"type": "interrupted", "exit_code": 143}
        assert err.splitlines() == ["terminated"]
        assert _gone(token) == []
        assert not home.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in _marked(token):  # only the processes this test started carry the token
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if home is not None and home.name.startswith("lionagi-home-"):
            shutil.rmtree(home, ignore_errors=True)


def test_sigterm_in_text_mode_ends_the_partial_line_and_exits_143() -> None:
    proc = subprocess.Popen(
        [*command(), "chat", "scripted/demo", "SCRIPTED_STALL"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
        preexec_fn=_default_signals,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.read(len("Stalling"))
        proc.send_signal(signal.SIGTERM)
        rest, err = proc.communicate(timeout=HANG_GUARD)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143, err
    assert first + rest == "Stalling\n"
    assert err.splitlines() == ["terminated"]

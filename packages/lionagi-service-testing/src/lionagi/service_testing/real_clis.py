"""Finding the pinned real agentic CLIs for the ``real_cli`` test tier, and proving none survived.

``scripts/install-real-clis`` installs codex, claude, gemini and pi into a cache folder with npm;
tests find them here. Outside CI a missing binary (or a machine without node) skips the test with
the reason. With ``LIONAGI_REQUIRE_REAL_CLIS=1`` (set by ``.ci/run``) a missing binary fails the
test instead, so a broken install can never pass as "skipped".

Survivors are found by a marker: the test passes a unique environment variable to the CLI, every
descendant inherits it (tool shells included, even after ``setsid()`` reparents them to init), and
:func:`processes_with_marker` scans ``/proc/*/environ`` for it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

__all__ = [
    "MARKER_ENV",
    "PINNED_VERSIONS",
    "REQUIRE_ENV",
    "find_real_cli",
    "new_marker",
    "processes_with_marker",
    "real_cli_home",
    "real_cli_version",
    "require_real_cli",
]

HOME_ENV = "LIONAGI_REAL_CLI_HOME"
REQUIRE_ENV = "LIONAGI_REQUIRE_REAL_CLIS"
MARKER_ENV = "LIONAGI_TEST_PROCESS_MARKER"
PINNED_VERSIONS = {
    "codex": "0.171.0",
    "claude": "2.1.197",
    "gemini": "0.61.0",
    "pi": "0.73.1",
}


def real_cli_home() -> Path:
    """The cache folder ``scripts/install-real-clis`` installs into."""
    configured = os.environ.get(HOME_ENV)
    if configured:
        return Path(configured)
    return Path.home() / ".cache" / "lionagi-service" / "real-clis"


def find_real_cli(name: str) -> Path | None:
    """The installed binary ``name`` (codex, claude, gemini, pi), or None."""
    candidate = real_cli_home() / "node_modules" / ".bin" / name
    if candidate.is_file() and os.access(candidate, os.X_OK):
        return candidate
    return None


def require_real_cli(name: str) -> Path:
    """The binary, or skip (fail when ``LIONAGI_REQUIRE_REAL_CLIS=1``) saying why it is absent."""
    found = find_real_cli(name)
    if found is not None and shutil.which("node") is not None:
        return found
    why = (
        f"real {name} CLI not installed in {real_cli_home()} (run scripts/install-real-clis)"
        if shutil.which("node") is not None
        else "node is not installed, so the real CLIs cannot run"
    )
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{why}; {REQUIRE_ENV}=1 requires the real-CLI tier", pytrace=False)
    pytest.skip(why)


def real_cli_version(binary: Path) -> str:
    """The first line ``binary --version`` prints (stdout, else stderr)."""
    done = subprocess.run(
        [str(binary), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    text = (done.stdout or done.stderr).strip()
    return text.splitlines()[0] if text else ""


def new_marker() -> str:
    """A unique value for :data:`MARKER_ENV`, one per test."""
    return f"lionagi-test-{uuid.uuid4().hex}"


def processes_with_marker(marker: str) -> list[int]:
    """Pids of live (non-zombie) processes whose environment holds ``MARKER_ENV=marker``."""
    needle = f"{MARKER_ENV}={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return sorted(found)

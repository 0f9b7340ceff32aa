"""Finding the pinned real agentic CLIs for the ``real_cli`` test tier, and proving none survived.

:func:`install` puts the pinned codex, claude, gemini and pi into a cache folder with npm
(``python -m lionagi.service_testing.real_clis install [DIR]``; the workspace's
``scripts/install-real-clis`` calls it). :func:`require_real_cli` installs them the first time a
test asks and node/npm are present, so a plain ``pytest`` on a machine with node runs the tier; a
machine without node skips it with the reason. With ``LIONAGI_REQUIRE_REAL_CLIS=1`` (set by
``.ci/run``) a missing binary fails the test instead, so a broken install never passes as
"skipped"; ``LIONAGI_REAL_CLI_INSTALL=0`` turns the automatic install off.

Survivors are found by a marker: the test passes a unique environment variable to the CLI, every
descendant inherits it (tool shells included, even after ``setsid()`` reparents them to init), and
:func:`processes_with_marker` scans ``/proc/*/environ`` for it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest

__all__ = [
    "MARKER_ENV",
    "PINNED_VERSIONS",
    "REQUIRE_ENV",
    "find_real_cli",
    "install",
    "new_marker",
    "processes_with_marker",
    "real_cli_home",
    "real_cli_version",
    "require_real_cli",
]

HOME_ENV = "LIONAGI_REAL_CLI_HOME"
REQUIRE_ENV = "LIONAGI_REQUIRE_REAL_CLIS"
MARKER_ENV = "LIONAGI_TEST_PROCESS_MARKER"
INSTALL_ENV = "LIONAGI_REAL_CLI_INSTALL"
# binary -> (npm package, pinned version). Claude Code from 2.1.198 declares Node >= 22, but it
# ships a native binary that its postinstall puts in place: on Node 20 npm installs it with an
# EBADENGINE warning and the binary runs (the tier passes on 2.1.332 under Node 20).
PINNED = {
    "codex": ("@openai/codex", "0.171.0"),
    "claude": ("@anthropic-ai/claude-code", "2.1.332"),
    "gemini": ("@google/gemini-cli", "0.61.0"),
    "pi": ("@mariozechner/pi-coding-agent", "0.73.1"),
}
PINNED_VERSIONS = {binary: version for binary, (_, version) in PINNED.items()}
_install_tried = False


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


def install(home: Path | None = None) -> Path:
    """Install the pinned CLIs into ``home`` (default :func:`real_cli_home`) unless already there.

    A stamp file records what was installed, so a second call with the same pins does nothing.

    Raises:
        RuntimeError: npm is missing or the install failed (its output tail in the message).
    """
    home = home or real_cli_home()
    specs = [f"{package}@{version}" for package, version in PINNED.values()]
    stamp = home / ".pinned"
    installed = all((home / "node_modules" / ".bin" / b).is_file() for b in PINNED)
    if installed and stamp.is_file() and stamp.read_text() == "\n".join(specs) + "\n":
        return home
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed")
    home.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [npm, "install", "--prefix", str(home), "--no-fund", "--no-audit", "--loglevel=error",
         *specs],
        capture_output=True, text=True, timeout=1800, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"npm install failed ({done.returncode}): {done.stderr[-2000:]}")
    stamp.write_text("\n".join(specs) + "\n")
    return home


def require_real_cli(name: str) -> Path:
    """The binary, or skip (fail when ``LIONAGI_REQUIRE_REAL_CLIS=1``) saying why it is absent.

    The first call in a process installs the pinned CLIs when they are missing and npm exists.
    """
    global _install_tried
    found = find_real_cli(name)
    if found is None and not _install_tried and os.environ.get(INSTALL_ENV) != "0":
        _install_tried = True
        if shutil.which("node") is not None and shutil.which("npm") is not None:
            try:
                install()
            except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
                print(f"real CLI install failed: {exc}", file=sys.stderr)
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


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lionagi.service_testing.real_clis install [DIR]``: install, print versions."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] != "install" or len(args) > 2:
        print("usage: python -m lionagi.service_testing.real_clis install [DIR]", file=sys.stderr)
        return 2
    if shutil.which("node") is None or shutil.which("npm") is None:
        print("node/npm not found: the real-CLI tier will skip", file=sys.stderr)
        return 0
    home = install(Path(args[1]) if len(args) == 2 else None)
    for binary in PINNED:
        path = home / "node_modules" / ".bin" / binary
        version = real_cli_version(path) if path.is_file() else "missing"
        print(f"{binary}: {version} (pinned {PINNED_VERSIONS[binary]})", file=sys.stderr)
    print(home)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

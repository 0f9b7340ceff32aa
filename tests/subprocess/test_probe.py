"""Version and availability probing: stdout or stderr, bounded by a timeout, cached per path.

The probed binaries are small shell scripts written per test; each appends a line to a counter
file when run, so the cache is observed by how often the binary actually ran.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from lionagi.service._transport.subprocess import CliProbe, probe_cli

from .conftest import children_of


def script(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    runs = tmp_path / f"{name}.runs"
    path.write_text(f"#!/bin/sh\necho run >> {runs}\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def runs(tmp_path: Path, name: str) -> int:
    counter = tmp_path / f"{name}.runs"
    return len(counter.read_text().split()) if counter.exists() else 0


def test_version_on_stdout(tmp_path: Path) -> None:
    binary = script(tmp_path, "cli-out", "echo 'cli-out 2.1.3 (build 7)'")
    probe = probe_cli(str(binary))
    assert probe == CliProbe(str(binary), str(binary), "2.1.3")
    assert probe.found


def test_version_on_stderr_only(tmp_path: Path) -> None:
    """pi prints its version on stderr."""
    binary = script(tmp_path, "cli-err", "echo 0.54.2 >&2")
    assert probe_cli(str(binary)).version == "0.54.2"


def test_prerelease_and_v_prefix(tmp_path: Path) -> None:
    binary = script(tmp_path, "cli-pre", "echo 'v1.0.0-rc.2'")
    assert probe_cli(str(binary)).version == "1.0.0-rc.2"


def test_version_is_cached_per_binary_path(tmp_path: Path) -> None:
    first = script(tmp_path, "cli-a", "echo 1.2.3")
    second = script(tmp_path, "cli-b", "echo 4.5.6")
    assert probe_cli(str(first)).version == "1.2.3"
    assert probe_cli(str(first)).version == "1.2.3"
    assert probe_cli(str(second)).version == "4.5.6"
    assert (runs(tmp_path, "cli-a"), runs(tmp_path, "cli-b")) == (1, 1)


def test_bare_name_is_resolved_on_the_given_path(tmp_path: Path) -> None:
    binary = script(tmp_path, "cli-named", "echo 3.0.1")
    probe = probe_cli("cli-named", path=str(tmp_path))
    assert (probe.path, probe.version) == (str(binary), "3.0.1")


def test_hanging_binary_is_killed_at_the_timeout(tmp_path: Path) -> None:
    binary = script(tmp_path, "cli-hang", "sleep 30")
    started = time.monotonic()
    probe = probe_cli(str(binary), timeout=0.3)
    assert time.monotonic() - started < 10.0  # generous: the point is it is not 30 s
    assert probe.version is None and "within 0.3 s" in probe.detail
    assert children_of(os.getpid()) == []
    assert probe_cli(str(binary), timeout=0.3).version is None  # failures are not cached
    assert runs(tmp_path, "cli-hang") == 2


def test_no_version_text_says_so(tmp_path: Path) -> None:
    binary = script(tmp_path, "cli-none", "echo 'unknown option' >&2; exit 2")
    probe = probe_cli(str(binary))
    assert probe.version is None
    assert probe.detail == "no version in its output (exit status 2)"


def test_missing_binary() -> None:
    probe = probe_cli("lionagi-no-such-cli-xyz")
    assert (probe.found, probe.version, probe.detail) == (False, None, "not found on PATH")


def test_bad_timeout_is_rejected() -> None:
    with pytest.raises(ValueError, match="timeout"):
        probe_cli("sh", timeout=0)

"""``lionagi-service doctor`` and the availability probe behind it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lionagi.service import AgenticCapabilities, AgenticEndpoint
from lionagi.service._catalog.availability import cli_availability


class _FakeCli(AgenticEndpoint):
    capabilities = AgenticCapabilities(
        transport="subprocess", resumable=False, emits_tool_events=False, reports_usage=False
    )
    cli_binary = "lionagi-doctor-fake"
    install_hint = "npm install -g lionagi-doctor-fake@1.2.3"
    tested_version = "1.2.3"
    auth_hint = "run lionagi-doctor-fake login"


def _install(tmp_path: Path, version: str, *, on_stderr: bool = False) -> str:
    program = tmp_path / "lionagi-doctor-fake"
    stream = "sys.stderr" if on_stderr else "sys.stdout"
    program.write_text(f"#!{sys.executable}\nimport sys\nprint('fake {version}', file={stream})\n")
    program.chmod(0o755)
    return f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}"


def test_found_binary_reports_version_and_whether_it_is_the_tested_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", _install(tmp_path, "1.2.3"))
    row = cli_availability("fake", "query_cli", _FakeCli)
    assert row is not None
    assert row["found"] and row["path"] == str(tmp_path / "lionagi-doctor-fake")
    assert (row["version"], row["tested"]) == ("1.2.3", True)
    assert row["auth_hint"] == "run lionagi-doctor-fake login"


def test_version_on_stderr_and_an_untested_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", _install(tmp_path, "2.0.0", on_stderr=True))
    row = cli_availability("fake", "query_cli", _FakeCli)
    assert row is not None
    assert (row["version"], row["tested"]) == ("2.0.0", False)


def test_missing_binary_carries_the_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    row = cli_availability("fake", "query_cli", _FakeCli)
    assert row is not None
    assert not row["found"] and row["version"] is None
    assert row["install_hint"] == "npm install -g lionagi-doctor-fake@1.2.3"


def test_endpoints_that_run_no_program_are_not_reported() -> None:
    class InProcess(_FakeCli):
        capabilities = AgenticCapabilities(
            transport="in_process", resumable=False, emits_tool_events=False, reports_usage=False
        )

    assert cli_availability("x", "y", InProcess) is None


def _doctor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).with_name("lionagi-service")), "doctor", *args],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_doctor_refuses_a_provider_that_runs_no_program() -> None:
    done = _doctor("scripted")
    assert done.returncode == 2
    assert "runs no CLI program" in done.stdout + done.stderr


def test_doctor_refuses_an_unknown_provider() -> None:
    done = _doctor("no-such-provider")
    assert done.returncode == 2
    assert "names no installed provider" in done.stdout + done.stderr


def test_doctor_json_lists_cli_programs() -> None:
    done = _doctor("--json")
    rows = json.loads(done.stdout)
    assert isinstance(rows, list)
    assert done.returncode == (0 if all(r["found"] for r in rows) else 1)


# -- the installed CLI adapters -------------------------------------------------------------------

CLI_PROVIDERS = ("claude_code", "pi")


def _doctor_with_path(path: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).with_name("lionagi-service")), "doctor", *args],
        capture_output=True, text=True, timeout=120, env={**os.environ, "PATH": path},
    )  # fmt: skip


def test_doctor_names_the_install_line_of_a_missing_cli() -> None:
    done = _doctor_with_path(str(Path(sys.executable).parent), "--json", *CLI_PROVIDERS)
    assert done.returncode == 1, done.stderr
    rows = {row["provider"]: row for row in json.loads(done.stdout)}
    assert set(rows) == set(CLI_PROVIDERS)
    for row in rows.values():
        assert not row["found"]
        assert row["install_hint"].startswith("npm install -g ")
        assert row["auth_hint"]


@pytest.mark.real_cli
def test_doctor_finds_the_pinned_real_clis() -> None:
    from lionagi.service_testing.real_clis import require_real_cli

    bin_dir = require_real_cli("claude").parent
    require_real_cli("pi")
    done = _doctor_with_path(f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "--json", *CLI_PROVIDERS)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {row["provider"]: row for row in json.loads(done.stdout)}
    for provider in CLI_PROVIDERS:
        assert rows[provider]["found"], rows[provider]
        assert rows[provider]["tested"] is True, rows[provider]


class _InProcess(AgenticEndpoint):
    capabilities = AgenticCapabilities(
        transport="in_process", resumable=False, emits_tool_events=False, reports_usage=False
    )
    required_modules = ("json", "lionagi_no_such_module_for_doctor")
    install_hint = "pip install lionagi-no-such-module"


def test_in_process_adapter_reports_missing_modules_with_install_hint() -> None:
    row = cli_availability("fake", "agent", _InProcess)
    assert row is not None
    assert row["found"] is False
    assert row["detail"] == "missing: lionagi_no_such_module_for_doctor"
    assert row["install_hint"] == "pip install lionagi-no-such-module"
    assert "lionagi_no_such_module_for_doctor" not in sys.modules

"""Where the CLI's private temporary files go: the isolated home, or where the user put them.

Claude Code (2.1.197, 2.1.332) keeps ``claude-<uid>/<project>/<session>/`` (the task outputs
of Bash commands and subagents) and, from 2.1.332, ``cc-socks/<pid>.sock`` under
``CLAUDE_CODE_TMPDIR``, else under ``$TMPDIR``. In isolated mode the adapter pins the former
into the home, so a deployment ``TMPDIR`` meant for the agent's tools cannot pull them out of
the directory close() removes; in user mode the run is the one a person gets by hand, so the
user's own ``CLAUDE_CODE_TMPDIR`` and ``XDG_RUNTIME_DIR`` (where the socket goes first) reach
it. Each run goes through iModel and core's run loop to the ``record`` fake CLI, which records
the environment it was started with. ``real_cli`` checks of the real binary are in
``test_real_cli.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.service import iModel
from lionagi.service_testing.pytest_plugin import RecordingFakeCli

SESSION = "4b1d7c2e-9a3f-4e6b-8c5d-1f2a3b4c5d6e"
RUN = [
    {"type": "system", "subtype": "init", "session_id": SESSION, "model": "claude-sonnet-4-6"},
    {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": "ok",
        "session_id": SESSION,
        "num_turns": 1,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
]


async def launched_env(
    cli: RecordingFakeCli, settings: dict[str, Any]
) -> tuple[dict[str, str], Path | None]:
    """The environment one run's process started with, and the isolated home it ran in."""
    endpoint = ClaudeCodeEndpoint(argv=cli.argv(RUN, exit_code=0), settings=settings)
    async with iModel(endpoint=endpoint) as model:
        async for _chunk in model.stream(prompt="hi"):
            pass
        home = endpoint.isolated_home
    (record,) = cli.records()
    env: dict[str, str] = record["env"]
    return env, home


async def test_isolated_run_keeps_the_cli_temp_dir_in_the_home_whatever_the_tools_tmpdir(
    recording_fake_cli: RecordingFakeCli, tmp_path: Path
) -> None:
    tools_tmp = tmp_path / "tools-tmp"
    tools_tmp.mkdir()
    settings = {"config_home": "isolated", "env": {"TMPDIR": str(tools_tmp)}}
    env, home = await launched_env(recording_fake_cli, settings)
    assert home is not None
    assert env["CLAUDE_CODE_TMPDIR"] == str(home / "tmp")
    assert env["TMPDIR"] == str(tools_tmp)  # the deployment's value still reaches the tools
    assert not home.exists()  # and the CLI's temporary files went with the home


async def test_isolated_run_pins_it_with_core_tmpdir_by_default(
    recording_fake_cli: RecordingFakeCli,
) -> None:
    env, home = await launched_env(recording_fake_cli, {"config_home": "isolated"})
    assert home is not None
    assert env["CLAUDE_CODE_TMPDIR"] == env["TMPDIR"] == str(home / "tmp")


async def test_an_explicit_cli_temp_dir_wins_in_isolated_mode(
    recording_fake_cli: RecordingFakeCli, tmp_path: Path
) -> None:
    chosen = str(tmp_path / "chosen")
    settings = {"config_home": "isolated", "env": {"CLAUDE_CODE_TMPDIR": chosen}}
    env, _home = await launched_env(recording_fake_cli, settings)
    assert env["CLAUDE_CODE_TMPDIR"] == chosen


async def test_user_mode_passes_the_users_cli_temp_dir_and_runtime_dir(
    recording_fake_cli: RecordingFakeCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_TMPDIR", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    monkeypatch.setenv("HOME", str(tmp_path))
    env, home = await launched_env(recording_fake_cli, {"config_home": "user"})
    assert home is None
    assert env["CLAUDE_CODE_TMPDIR"] == str(tmp_path / "mine")
    assert env["XDG_RUNTIME_DIR"] == str(tmp_path / "run")


async def test_user_mode_sets_no_cli_temp_dir_of_its_own(
    recording_fake_cli: RecordingFakeCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Unset, the CLI uses $TMPDIR (or /tmp) as it does when the user runs it by hand.
    monkeypatch.delenv("CLAUDE_CODE_TMPDIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    env, _home = await launched_env(recording_fake_cli, {"config_home": "user"})
    assert "CLAUDE_CODE_TMPDIR" not in env

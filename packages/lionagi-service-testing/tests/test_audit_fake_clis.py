"""The fake CLIs do what ``lionagi.service_testing.fake_clis`` says of them.

The package docstring: "Each script takes its behaviour from argv (run one with ``--help``)".
``replay.py``: ``line_bytes`` is "one stdout line of that many bytes after the events", so a
plan without it writes the adapter's events and nothing else.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from lionagi.service_testing.fake_clis import SCRIPTS, RecordingCli, fake_cli_argv


@pytest.mark.parametrize("name", SCRIPTS)
def test_every_script_answers_help(name: str) -> None:
    done = subprocess.run(
        fake_cli_argv(name, "--help"), capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip(), "no help text"
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("name", ["record", "replay"])
def test_a_missing_plan_is_a_usage_error(name: str) -> None:
    done = subprocess.run(
        fake_cli_argv(name), capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 2
    assert done.stderr.startswith("usage:"), done.stderr[-500:]


def test_replay_writes_the_events_and_nothing_else(tmp_path: Path) -> None:
    events = [{"type": "text", "content": "hi"}, {"type": "result"}]
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": events}), encoding="utf-8")
    done = subprocess.run(
        fake_cli_argv("replay", str(plan), "--flag"), capture_output=True, timeout=30, check=True
    )
    assert done.stdout == b"".join(json.dumps(e).encode() + b"\n" for e in events)


def test_replay_line_bytes_is_one_line_of_that_size(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": [{"a": 1}], "line_bytes": 10}), encoding="utf-8")
    done = subprocess.run(fake_cli_argv("replay", str(plan)), capture_output=True, timeout=30)
    assert done.stdout == b'{"a": 1}\n' + b"x" * 10 + b"\n"


def test_recording_cli_records_and_replays_exactly(tmp_path: Path) -> None:
    cli = RecordingCli(tmp_path, "acme", [{"type": "text", "content": "hi"}], exit_code=3)
    done = subprocess.run(
        [str(cli.binary), "run", "--", "-h x"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
        check=False,
    )
    assert done.returncode == 3
    assert done.stdout == b'{"type": "text", "content": "hi"}\n'
    assert cli.launches() == [["run", "--", "-h x"]]

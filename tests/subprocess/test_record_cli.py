"""The recording fake CLI: what the adapter sent is recorded, then the plan replays as usual.

Troubleshooting: if a record is missing, the adapter dropped the ``--record FILE`` arguments
from the argv prefix; the environment variable form only works when the variable is passed on.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio

from lionagi.service._transport.subprocess import json_events_from_process
from lionagi.service_testing.conformance import HOSTILE_PROMPT, record_argv
from lionagi.service_testing.fake_clis import SCRIPTS, fake_cli_argv

HANG_GUARD = 30.0
EVENTS = [{"type": "text", "content": "héllo"}, {"type": "result"}]


def write_plan(tmp_path: Path, **extra: Any) -> Path:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": EVENTS, "log": str(tmp_path / "replay.log"), **extra}))
    return plan


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def run(argv: list[str], **kw: Any) -> list[dict[str, Any]]:
    with anyio.fail_after(HANG_GUARD):
        return [e async for e in json_events_from_process(argv, **kw)]


async def test_records_argv_stdin_env_and_ids_then_replays(tmp_path: Path) -> None:
    record = tmp_path / "record.jsonl"
    argv = [*record_argv(write_plan(tmp_path), record), "--flag", "--", HOSTILE_PROMPT]
    stdin = "-liné one\n$(x) 'q' \"q\"\n".encode()
    events = await run(argv, stdin=stdin, env={"ACME_MODE": "m"}, cwd=tmp_path)
    assert events == EVENTS
    (got,) = records(record)
    assert got["args"] == ["--flag", "--", HOSTILE_PROMPT]
    assert got["stdin"].encode() == stdin
    assert got["stdin_bytes"] == len(stdin)
    assert got["stdin_eof"] is True
    assert got["stdin_kind"] == "pipe"
    assert got["env"]["ACME_MODE"] == "m"
    assert got["cwd"] == str(tmp_path)
    assert got["ppid"] == os.getpid()
    assert got["pid"] == got["pgid"] == got["sid"]  # core starts a new session
    (launch,) = [r for r in records(tmp_path / "replay.log") if "launched" in r]
    assert launch["launched"] == got["pid"]  # replay replaced the recorder in place


async def test_devnull_stdin_and_env_var_target(tmp_path: Path) -> None:
    record = tmp_path / "via-env.jsonl"
    argv = fake_cli_argv("record", str(write_plan(tmp_path)), "x")
    events = await run(argv, env={"LIONAGI_FAKE_CLI_RECORD": str(record)})
    assert events == EVENTS
    (got,) = records(record)
    assert (got["stdin"], got["stdin_kind"], got["stdin_eof"]) == ("", "devnull", True)
    assert got["args"] == ["x"]


def test_record_is_a_shipped_script() -> None:
    assert "record" in SCRIPTS

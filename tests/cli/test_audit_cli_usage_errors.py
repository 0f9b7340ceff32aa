"""Usage errors keep the command line's error contract: redacted, and ``--json`` ends with a record.

argparse quotes the value it refuses (``invalid choice: '...'``, ``'...' is not a number of
seconds``), so a key pasted into the wrong slot reached stderr whole, though docs/cli.md says
every error line is redacted. And ``--json`` promises a final record for a run that ends in an
error: a value the parser refused (``--timeout -1``) wrote none, while the same mistake refused a
step later (``--endpoint-setting max_retries=0``) did.
"""

from __future__ import annotations

import json
import subprocess

import pytest

import lionagi.service.cli._chat as chat_module
from lionagi.service.cli import main

from ._support import HANG_GUARD, cli_env, command

KEY = "sk-proj-AuditUsageErrors0123456789abcdefXYZ"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command(), *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=cli_env(columns="200"),
        check=False,
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["chat", "scripted/demo", "hi", "--timeout", KEY],
        ["chat", "scripted/demo", "hi", "--config-home", KEY],
        ["chat", "scripted/demo", "hi", "--endpoint-setting", f"api_key:{KEY}"],
        ["chat", "scripted/demo", "hi", f"--json={KEY}"],
        ["demo", "--pace", KEY],
        ["fake-server", "--port", KEY],
        [KEY],
    ],
)
def test_a_key_in_a_refused_value_never_reaches_stderr(argv: list[str]) -> None:
    done = run(*argv)

    assert done.returncode == 2, done.stderr
    assert KEY not in done.stderr + done.stdout
    assert "[REDACTED]" in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


def test_the_parsers_own_wording_survives_redaction() -> None:
    done = run("chat", "scripted/demo", "hi", "--endpoint-setting", "max_retries")

    assert done.returncode == 2
    assert "'max_retries': write KEY=VALUE (e.g. max_retries=5)" in done.stderr


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["chat", "scripted/demo", "hi", "--json", "--timeout", "-1"], "--timeout"),
        (["chat", "--json"], "required"),
        (["demo", "--json", "--pace", "soon"], "--pace"),
        (["chat", "scripted/demo", "hi", "--json", "--timeout", KEY], "[REDACTED]"),
    ],
)
def test_json_mode_ends_a_usage_error_with_an_exception_record(
    argv: list[str], needle: str
) -> None:
    done = run(*argv)

    assert done.returncode == 2, done.stderr
    [line] = done.stdout.splitlines()
    record = json.loads(line)
    assert record["type"] == "exception" and record["error"] == "UsageError"
    assert needle in record["message"]
    assert KEY not in done.stdout
    assert len(done.stderr.splitlines()) == 1


def test_without_json_a_usage_error_writes_nothing_on_stdout() -> None:
    done = run("chat", "scripted/demo", "hi", "--timeout", "-1")

    assert done.returncode == 2 and done.stdout == ""


def test_ctrl_c_before_the_stream_starts_still_ends_json_with_its_record(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A Ctrl-C while the command starts, before run_chat's own handler (and renderer) exists.
    def interrupted(*_args: object, **_kwargs: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(chat_module, "run_chat", interrupted)

    assert main(["chat", "scripted/demo", "hi", "--json"]) == 130
    out, err = capsys.readouterr()
    assert [json.loads(line) for line in out.splitlines()] == [
        {"type": "interrupted", "exit_code": 130}
    ]
    assert err == "interrupted\n"

    assert main(["demo"]) == 130  # without --json stdout stays empty
    out, err = capsys.readouterr()
    assert out == "" and err == "interrupted\n"

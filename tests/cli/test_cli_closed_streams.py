"""Standard streams that are closed, full or read by nobody: one line and the documented code.

docs/cli.md: every error is one line on stderr, and writing the output failing is exit 1
(`error: OSError: ...`). These start the real command with a descriptor closed (`>&-`,
`2>&-`), on `/dev/full`, and with a reader that left before the first byte (`| head`).
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from ._support import HANG_GUARD, cli_env, command

COMMANDS = [
    ["--version"],
    ["providers"],
    ["models", "scripted"],
    ["demo", "--pace", "0"],
    ["chat", "scripted/demo", "hi"],
]


def _close_stdout() -> None:
    os.close(1)


def _close_stderr() -> None:
    os.close(2)


@pytest.mark.parametrize("args", COMMANDS)
def test_a_closed_stdout_is_one_error_line_and_exit_1(args: list[str]) -> None:
    done = subprocess.run(
        [*command(), *args],
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
        timeout=HANG_GUARD,
        preexec_fn=_close_stdout,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        "error: OSError: [Errno 9] Bad file descriptor: standard output is closed"
    ]


def test_a_closed_stderr_keeps_the_exit_code_of_the_error() -> None:
    """Unknown provider is exit 2 with stderr closed too, and --json still ends with its record."""
    plain, as_json = (
        subprocess.run(
            [*command(), "chat", "nope/x", "hi", *extra],
            stdout=subprocess.PIPE,
            text=True,
            env=cli_env(),
            timeout=HANG_GUARD,
            preexec_fn=_close_stderr,
            check=False,
        )
        for extra in ([], ["--json"])
    )
    assert plain.returncode == 2
    assert plain.stdout == ""  # the error line is not moved onto stdout
    assert as_json.returncode == 2
    (record,) = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert record["type"] == "exception" and record["error"] == "EndpointNotFound"


@pytest.mark.parametrize(
    "args", [["--version"], ["providers"], ["models", "scripted"], ["providers", "--json"]]
)
def test_a_reader_gone_before_the_first_byte_ends_quietly_with_exit_0(args: list[str]) -> None:
    """As `demo | head -1` does: the tables and --version too, not rich's exit 1 or a traceback."""
    with subprocess.Popen(
        [*command(), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(),
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # before the command has written anything: its first write is EPIPE
        try:
            err = proc.stderr.read()
            code = proc.wait(timeout=HANG_GUARD)
        finally:
            proc.kill()
    assert (code, err) == (0, b"")

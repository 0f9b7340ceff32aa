"""A bad argument is refused before ``chat`` reads its prompt from stdin.

``lionagi-service chat - -`` took ``-`` as the model name, then read stdin for the prompt (up to
64 MiB, and until end of file), and only then refused the model. With stdin a pipe nobody closes
(``tail -f log |``, a CI runner's inherited stdin) the command waited forever instead of saying
what was wrong; with a file, the input was consumed for nothing. The same held for every other
refusal the arguments alone decide (an unknown provider, an unset ``--api-key-env`` variable).

Each test runs the real command with stdin a pipe the test keeps open and has written to: the
command must exit with its refusal by itself (bounded by ``HANG_GUARD``), and the bytes must
still be in the pipe afterwards, unread.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from ._support import HANG_GUARD, cli_env, command

UNREAD = b"the prompt the command must not read\n"
UNSET = "LIONAGI_TEST_NO_SUCH_KEY_VARIABLE"


def _refusal(argv: list[str]) -> tuple[int, str, str, bytes]:
    """Run ``argv`` with stdin an open pipe holding ``UNREAD``; code, stdout, stderr, pipe left."""
    env = cli_env()
    env.pop(UNSET, None)
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, UNREAD)
        proc = subprocess.Popen(
            [*command(), *argv],
            stdin=read_end,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            out, err = proc.communicate(timeout=HANG_GUARD)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        os.set_blocking(read_end, False)  # what is left is there now, or the child took it
        try:
            left = os.read(read_end, 4096)
        except BlockingIOError:
            left = b""
        return proc.returncode, out, err, left
    finally:
        os.close(read_end)
        os.close(write_end)


@pytest.mark.parametrize(
    "argv",
    [["chat", "-", "-"], ["chat", "-"], ["chat", "-", "hi"]],
    ids=["dash-dash", "dash-piped", "dash-prompt"],
)
def test_dash_as_the_model_is_bad_usage_naming_model_and_stdin_is_not_read(
    argv: list[str],
) -> None:
    code, out, err, left = _refusal([*argv, "--json"])

    assert code == 2, err
    [line] = err.splitlines()
    assert line.startswith("lionagi-service chat: error: argument model: '-' is not a model")
    assert "give the model first" in line
    [record] = [json.loads(r) for r in out.splitlines()]
    assert record["type"] == "exception" and record["error"] == "UsageError"
    assert record["message"].startswith("argument model:")
    assert left == UNREAD


@pytest.mark.parametrize(
    ("argv", "error", "needle"),
    [
        (["chat", "nosuch/model", "-"], "EndpointNotFound", "unknown provider 'nosuch'"),
        (["chat", "", "-"], "EndpointConfigurationError", "model: must be a non-empty string"),
        (
            ["chat", "scripted/demo", "-", "--api-key-env", UNSET],
            "EndpointConfigurationError",
            f"--api-key-env: ${UNSET} is not set",
        ),
        (
            ["chat", "scripted/demo", "--endpoint", "nope"],  # prompt omitted: stdin is a pipe
            "EndpointNotFound",
            "nope",
        ),
    ],
    ids=["unknown-provider", "empty-model", "unset-key-variable", "unknown-endpoint"],
)
def test_a_model_or_flag_the_arguments_refuse_is_refused_before_stdin_is_read(
    argv: list[str], error: str, needle: str
) -> None:
    code, out, err, left = _refusal([*argv, "--json"])

    assert code == 2, err
    [line] = err.splitlines()
    assert line.startswith(f"error: {error}: ") and needle in line
    [record] = [json.loads(r) for r in out.splitlines()]
    assert record["type"] == "exception" and record["error"] == error
    assert left == UNREAD


def test_a_good_command_still_reads_its_prompt_from_the_pipe() -> None:
    # The other side: with nothing to refuse, the same set-up reads stdin (to its end).
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"piped words")
        os.close(write_end)
        write_end = -1
        done = subprocess.run(
            [*command(), "chat", "scripted/demo", "-", "--json"],
            stdin=read_end,
            capture_output=True,
            text=True,
            env=cli_env(),
            timeout=HANG_GUARD,
            check=False,
        )
    finally:
        os.close(read_end)
        if write_end != -1:
            os.close(write_end)

    assert done.returncode == 0, done.stderr
    records = [json.loads(r) for r in done.stdout.splitlines()]
    assert {"text": "piped words"} in [r.get("tool_input") for r in records]
    assert records[-1]["type"] == "result"

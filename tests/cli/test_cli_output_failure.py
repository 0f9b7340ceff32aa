"""Output that cannot be written (a full disk) is one error line on stderr, not a traceback."""

from __future__ import annotations

import os
import subprocess

import pytest

from ._support import HANG_GUARD, cli_env, command

FULL = "/dev/full"  # every write fails with ENOSPC

pytestmark = pytest.mark.skipif(not os.path.exists(FULL), reason="needs Linux's /dev/full")


@pytest.mark.parametrize(
    "args", [["providers"], ["models", "scripted"], ["demo"], ["demo", "--json"], ["--version"]]
)
def test_a_stdout_that_cannot_be_written_is_one_error_line_and_exit_1(args: list[str]) -> None:
    with open(FULL, "w") as full:
        done = subprocess.run(
            [*command(), *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=cli_env(),
            timeout=HANG_GUARD,
            check=False,
        )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    # Plain `demo` writes its thinking and tools to stderr before the answer fails to.
    lines = done.stderr.strip().splitlines()
    assert (
        [line for line in lines if "rror" in line]
        == lines[-1:]
        == ["error: OSError: [Errno 28] No space left on device"]
    )

"""``python -m lionagi.service.cli`` is the console script: same output, same exit codes.

It had no ``__main__`` module, so Python refused it ("is a package and cannot be directly
executed", exit 1): no way to run the command line where the script is not on ``PATH``.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from ._support import HANG_GUARD, cli_env, command

MODULE = [sys.executable, "-m", "lionagi.service.cli"]


def run(entry: list[str], *args: str, feed: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*entry, *args],
        input=feed,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=cli_env(columns="200"),
        check=False,
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["demo", "--json", "--pace", "0"],  # 0
        ["chat", "scripted/demo", "hi"],  # 0, plain text
        ["--version"],  # 0
        ["models", "scripted", "--json"],  # 0
        [],  # 2: no command
        ["chat", "nope/model", "hi", "--json"],  # 2: unknown provider, with its record
        ["chat", "scripted/demo", "hi", "--timeout", "-1"],  # 2: refused by the parser
        ["models", "no-such-provider"],  # 2
    ],
)
def test_python_dash_m_matches_the_console_script(argv: list[str]) -> None:
    as_module = run(MODULE, *argv)
    as_script = run(command(), *argv)

    assert as_module.returncode == as_script.returncode, as_module.stderr
    assert as_module.stdout == as_script.stdout
    assert as_module.stderr == as_script.stderr
    assert "Traceback" not in as_module.stderr


def test_python_dash_m_reads_the_prompt_from_stdin() -> None:
    done = run(MODULE, "chat", "scripted/demo", feed="piped through -m\n")

    assert done.returncode == 0, done.stderr
    assert "You said: piped through -m." in done.stdout

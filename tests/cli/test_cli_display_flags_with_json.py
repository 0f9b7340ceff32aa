"""`--progress` and `--show-thinking` beside `--json` are refused, not silently ignored.

Both flags choose where the plain and live views put thinking, tool lines and usage. `--json`
writes every chunk as NDJSON on stdout, so either flag used to be accepted and change nothing:
a script that added `--progress` to see activity on stderr got none and no word why.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from ._support import HANG_GUARD, cli_env, command


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command(), *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=cli_env(columns="200"),
        check=False,
    )


@pytest.mark.parametrize("flag", ["--progress", "--show-thinking"])
@pytest.mark.parametrize(
    "words", [["demo", "--pace", "0", "hi"], ["chat", "scripted/demo", "hi"]], ids=["demo", "chat"]
)
def test_a_display_flag_with_json_is_a_usage_error(flag: str, words: list[str]) -> None:
    done = run(*words, "--json", flag)
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert f"argument {flag}: not allowed with argument --json" in line
    # `--json` still ends with its final record, and no chunk was written before it.
    records = [json.loads(raw) for raw in done.stdout.splitlines()]
    assert records == [
        {"type": "exception", "error": "UsageError", "message": records[0]["message"]}
    ]
    assert flag in records[0]["message"]


def test_the_display_flags_still_combine_without_json() -> None:
    done = run("demo", "--pace", "0", "--progress", "--show-thinking", "hi")
    assert done.returncode == 0, done.stderr
    assert "You said: hi." in done.stdout

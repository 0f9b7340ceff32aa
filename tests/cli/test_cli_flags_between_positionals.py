"""`chat MODEL --flag ... PROMPT`: a flag between the model and the prompt is accepted.

argparse gave the optional PROMPT its default as soon as MODEL was read, because a flag
followed it; the prompt after the flag was then an unrecognized argument, and the user got
exit 2 with `unrecognized arguments (1 value not shown)` for `chat openai/gpt-4o --timeout 30
"question"`, the order most command lines accept. `-` from stdin failed the same way.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from lionagi.service.cli import main

from ._support import HANG_GUARD, cli_env, command


@pytest.mark.parametrize(
    "argv",
    [
        ["chat", "scripted/demo", "--json", "flags first"],
        ["chat", "scripted/demo", "--timeout", "30", "--json", "flags first"],
        ["chat", "--json", "scripted/demo", "--timeout=30", "flags first"],
        ["demo", "--pace", "0", "--json", "flags first"],
    ],
)
def test_a_flag_between_model_and_prompt_keeps_the_prompt(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 0, capsys.readouterr().err
    assert "You said: flags first." in _answer(capsys.readouterr().out)


def _answer(ndjson: str) -> str:
    records = [json.loads(line) for line in ndjson.splitlines()]
    return "".join(r["content"] for r in records if r["type"] == "text")


def test_stdin_dash_after_a_flag_reads_stdin() -> None:
    done = subprocess.run(
        [*command(), "chat", "scripted/demo", "--json", "-"],
        input="from a pipe",
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=cli_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "You said: from a pipe." in _answer(done.stdout)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["chat", "scripted/demo", "--json", "--", "-v what"], "You said: -v what."),
        (["chat", "--json", "--", "scripted/demo", "--json"], "You said: --json."),
    ],
)
def test_double_dash_still_ends_the_flags(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 0, capsys.readouterr().err
    assert said in _answer(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["chat", "scripted/demo", "one", "two"], "unrecognized arguments (1 value not shown)"),
        (["chat", "--json"], "the following arguments are required: model"),
        (["chat", "scripted/demo", "--timeout", "x", "hi"], "argument --timeout: 'x' is not"),
    ],
)
def test_usage_errors_are_unchanged(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:  # a usage error leaves through argparse's exit
        main(argv)
    assert exited.value.code == 2
    assert message in capsys.readouterr().err

"""Three things a command-line user met, one section per fix.

- an agentic flag's error names the flag typed (`--terminate-grace`), not the Python field
  behind it (`agentic_settings.terminate_grace`), and keeps the reason;
- `models` and `doctor` answer a misspelled provider with "did you mean" (exit 2 unchanged);
- piped (stdout not a terminal), stdout carries only the answer: thinking, tool activity and
  the usage line go to stderr, so `chat ... > answer.txt` holds the answer alone.
"""

from __future__ import annotations

import io
import json
import subprocess

import pytest

from lionagi.service import StreamChunk
from lionagi.service.cli import main
from lionagi.service.cli._render import PlainRenderer

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


# -- an agentic flag's error names the flag -------------------------------------------------------

FLAG_ERRORS = [
    pytest.param(
        "claude_code/sonnet",
        ["--terminate-grace", "abc"],
        "--terminate-grace: Input should be a valid number",
        id="terminate-grace-not-a-number",
    ),
    pytest.param(
        "claude_code/sonnet",
        ["--terminate-grace", "-1"],
        "--terminate-grace: Input should be greater than or equal to 0",
        id="terminate-grace-negative",
    ),
    pytest.param(
        "claude_code/sonnet",
        ["--gateway-url", "ftp://gateway.example"],
        "--gateway-url: must be an http:// or https:// URL with a host",
        id="gateway-url",
    ),
    pytest.param(
        "claude_code/sonnet",
        ["--root", "relative/dir"],
        "--root: must be an absolute path",
        id="root",
    ),
    pytest.param(
        "claude_code/sonnet", ["--env", "1BAD=x"], "--env: invalid variable name", id="env"
    ),
    pytest.param(
        "scripted/demo",
        ["--cwd", "."],
        "--cwd: ScriptedEndpoint (in_process transport) launches no process",
        id="cwd-on-an-in-process-endpoint",
    ),
]


@pytest.mark.parametrize(("model", "flags", "expected"), FLAG_ERRORS)
def test_an_agentic_flag_error_names_the_flag_and_keeps_the_reason(
    model: str, flags: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["chat", model, "hi", *flags]) == 2
    err = capsys.readouterr().err
    assert f"error: EndpointConfigurationError: {expected}" in err, err
    assert "agentic_settings" not in err


def test_the_json_record_names_the_flag_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chat", "--json", "claude_code/sonnet", "hi", "--terminate-grace", "x"]) == 2
    record = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert record["type"] == "exception" and record["error"] == "EndpointConfigurationError"
    assert record["message"].startswith("--terminate-grace: ")


def test_agentic_flags_on_an_http_endpoint_are_named(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["chat", "openai/gpt-4.1", "hi", "--cwd", "/tmp", "--terminate-grace", "2"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "error: EndpointConfigurationError: --cwd, --terminate-grace: " in err, err
    assert "is an HTTP endpoint" in err and "agentic_settings" not in err


# -- a misspelled provider gets "did you mean" ----------------------------------------------------


@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["plain", "json"])
@pytest.mark.parametrize(
    ("argv", "near"),
    [
        (["models", "opneai"], "openai"),
        (["models", "claude_cod"], "claude_code"),
        (["doctor", "codx"], "codex"),
    ],
)
def test_a_misspelled_provider_is_answered_with_the_closest_name(
    argv: list[str], near: str, json_flag: list[str]
) -> None:
    done = run(*argv, *json_flag)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert "names no installed provider" in line
    assert line.endswith(f"; did you mean {near!r}?"), line
    assert done.stdout == ""


def test_doctor_suggests_only_a_provider_it_can_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "claud"]) == 2
    assert capsys.readouterr().err.endswith("; did you mean 'claude'?\n")
    # openai runs no CLI program: suggesting it would only lead to "runs no CLI program".
    assert main(["doctor", "opneai"]) == 2
    assert "did you mean 'openai'" not in capsys.readouterr().err


def test_only_a_close_name_is_suggested(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "zzzzqqqq"]) == 2
    err = capsys.readouterr().err
    assert "names no installed provider" in err and "did you mean" not in err
    assert main(["models", "Open-AI"]) == 2  # compared as the catalog spells keys: open-ai
    assert capsys.readouterr().err.endswith("; did you mean 'openai'?\n")


# -- piped, stdout is the answer alone ------------------------------------------------------------


def test_piped_stdout_is_the_answer_the_rest_goes_to_stderr_and_json_is_unchanged() -> None:
    done = run("demo", "--pace", "0", "--progress", "hi")  # stderr is a pipe here too
    assert done.returncode == 0, done.stderr
    answer = "You said: hi. This answer comes from the scripted provider; no key needed.\n"
    assert done.stdout == answer
    err = done.stderr.splitlines()
    assert err[0] == "The user wants a demonstration."  # the thinking, its line ended
    assert err[1:3] == ['\u2192 word_count({"text": "hi"})', "\u2190 word_count: 1"]
    assert err[3].startswith("usage: input_tokens=")
    # --json is unchanged: every chunk is a record on stdout, stderr stays empty.
    done = run("demo", "--json", "--pace", "0", "hi")
    assert done.returncode == 0 and done.stderr == ""
    types = [json.loads(line)["type"] for line in done.stdout.splitlines()]
    assert {"thinking", "tool_use", "tool_result", "text", "result"} <= set(types)


def test_a_partial_thinking_line_is_ended_before_an_error_line() -> None:
    out, err = io.StringIO(), io.StringIO()
    renderer = PlainRenderer(out, err)
    renderer.chunk(StreamChunk("thinking", content="pondering"))
    renderer.error(RuntimeError("boom"))
    assert out.getvalue() == ""
    assert err.getvalue() == "pondering\nerror: RuntimeError: boom\n"

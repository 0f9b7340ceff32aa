"""A key typed where a flag's NAME or an unknown flag belongs never comes back on stderr.

Before: argparse expanded the prefix `--api-key` to `--api-key-env`, so
`chat ... --api-key 0123abcd...` read the key as a variable name and the "is not set" error
printed it; an unknown flag's value was repeated by "unrecognized arguments"; a bare `--env`
word was echoed as `$word`. Only key-shaped strings (`sk-...`) were masked by redaction, so the
hex and UUID keys below would have leaked.
"""

from __future__ import annotations

import pytest

from lionagi.service.cli import main

HEX_KEY = "0123456789abcdef0123456789abcdef"
UUID_KEY = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
BASE = ["chat", "openai/gpt-4.1", "hi"]


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the command line in-process; a usage error exits 2 through argparse's SystemExit."""
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    return one_line(capsys.readouterr().err)


def one_line(err: str) -> str:
    (line,) = [line for line in err.splitlines() if line.strip()]
    return line


@pytest.mark.parametrize(
    "flags",
    [
        ["--api-key", HEX_KEY],
        [f"--api-key={HEX_KEY}"],
        ["--api", UUID_KEY],
        ["--gateway-key", HEX_KEY],
        ["--token", UUID_KEY],
    ],
)
def test_a_prefix_of_a_key_env_flag_is_refused_without_its_value(
    capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    line = refused([*BASE, *flags], capsys)
    assert HEX_KEY not in line and UUID_KEY not in line, line
    assert "unrecognized arguments: " + flags[0].partition("=")[0] in line, line
    assert "(1 value not shown)" in line
    if "key" in flags[0] or "token" in flags[0]:
        assert "--api-key-env NAME" in line  # the way a key does go in


@pytest.mark.parametrize("flag", ["--api-key-env", "--gateway-key-env"])
@pytest.mark.parametrize("value", [HEX_KEY, UUID_KEY, "sk-proj-abc", "has space"])
def test_a_key_env_flag_takes_only_a_variable_name_and_never_echoes_another_value(
    capsys: pytest.CaptureFixture[str], flag: str, value: str
) -> None:
    line = refused([*BASE, flag, value], capsys)
    assert value not in line, line
    assert f"argument {flag}: takes the NAME of an environment variable" in line, line


def test_a_valid_variable_name_still_reaches_the_unset_check(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LIONAGI_TEST_UNSET_KEY", raising=False)
    line = refused([*BASE, "--api-key-env", "LIONAGI_TEST_UNSET_KEY"], capsys)
    assert "$LIONAGI_TEST_UNSET_KEY is not set" in line, line


def test_a_stray_positional_word_is_counted_not_shown(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = refused([*BASE, HEX_KEY], capsys)
    assert HEX_KEY not in line
    assert "unrecognized arguments (1 value not shown)" in line, line


def test_an_unknown_flag_without_a_value_is_still_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = refused(["providers", "--jsn"], capsys)
    assert "unrecognized arguments: --jsn" in line and "not shown" not in line, line


def test_a_bare_env_word_that_is_not_a_name_is_refused_without_echo(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = refused(["chat", "codex/gpt-5", "hi", "--env", UUID_KEY], capsys)
    assert UUID_KEY not in line, line
    assert "--env: takes NAME=VALUE or a bare NAME" in line, line

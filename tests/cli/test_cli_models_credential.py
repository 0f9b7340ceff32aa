"""``lionagi-service models <name>`` never echoes a credential written where a provider goes.

Before, ``lionagi-service models sk-proj-...`` answered ``models: 'sk-proj-...' names no installed
provider``: the command formats its own error line, with no redaction, so a key pasted into the
wrong slot went to stderr (a terminal, a CI log). ``doctor`` already redacted its line. Now a
value core's ``looks_like_credential`` flags (a key shape, or a value of a credential-named
environment variable) is not shown, and the line says why; an ordinary unknown name is still
echoed, since that is what the user needs to see.
"""

from __future__ import annotations

import subprocess
import uuid

import pytest

from ._support import HANG_GUARD, cli_env, command

KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command(), *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=cli_env(**env),
        check=False,
    )


@pytest.mark.parametrize("as_json", [False, True])
def test_models_does_not_echo_a_key_shaped_provider(as_json: bool) -> None:
    done = run("models", KEY, *(["--json"] if as_json else []))
    assert done.returncode == 2
    out = done.stdout + done.stderr
    assert "abcdefghijklmnop" not in out
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("models: ")
    assert "looks like a credential" in lines[0]
    assert "installed:" in lines[0] and "scripted" in lines[0]  # still says what would work


def test_models_does_not_echo_the_value_of_a_credential_variable() -> None:
    # No key shape: only the environment rule (a variable named like a credential) knows it.
    secret = f"ZZopaque{uuid.uuid4().hex}"
    done = run("models", secret, LIONAGI_TEST_MODELS_TOKEN=secret)
    assert done.returncode == 2
    assert secret not in done.stdout + done.stderr
    assert "looks like a credential" in done.stderr


def test_models_still_names_an_ordinary_unknown_provider() -> None:
    done = run("models", "no-such-provider")
    assert done.returncode == 2
    assert "'no-such-provider' names no installed provider" in done.stderr


def test_doctor_does_not_echo_a_key_shaped_provider() -> None:
    done = run("doctor", KEY)
    assert done.returncode == 2
    out = done.stdout + done.stderr
    assert "abcdefghijklmnop" not in out
    assert "looks like a credential" in out


@pytest.mark.parametrize(
    "args", [("chat", KEY, "hi"), ("chat", "--endpoint", KEY, "scripted/demo", "hi")]
)
def test_chat_says_where_a_key_goes_without_losing_words_to_redaction(args: tuple[str, ...]):
    # Core's credential note read "..., endpoint, api_key: pass a key as api_key=...": the
    # error line's last-guard redaction took "api_key: pass" for a name/value pair and printed
    # "api_key: [REDACTED] a key as api_key=...". On the command line a key goes in a variable.
    done = run(*args)
    assert done.returncode == 2
    assert "abcdefghijklmnop" not in done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "looks like a credential" in lines[0]
    assert "[REDACTED]" not in lines[0]
    assert "--api-key-env" in lines[0]

"""The prompt from stdin (``-``, or a ``chat`` without one), and prompts that are not UTF-8.

``echo question | lionagi-service chat MODEL`` failed with "the following arguments are
required: prompt", and ``-`` was sent as the prompt itself. A prompt argument that is not
UTF-8 (argv bytes Python decodes into lone surrogates) failed at the HTTP payload as
``request: cannot be encoded as JSON ...``: a field the user never typed, with the codec's
message. Every test runs the real command with real stdin.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from lionagi.service_testing import FakeProviderServer

from ._support import HANG_GUARD, cli_env, command

QUESTION = "héllo ✓ wörld\nsecond line\n"


def run(
    *args: str | bytes, feed: bytes | None = None, **kwargs: Any
) -> subprocess.CompletedProcess[bytes]:
    """The command with ``feed`` on its stdin (other stdin set-ups through ``kwargs``)."""
    return subprocess.run(
        [*command(), *args],
        input=feed,
        capture_output=True,
        timeout=HANG_GUARD,
        env=cli_env(columns="200", MY_KEY="anything"),
        check=False,
        **kwargs,
    )


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer.running_in_thread() as running:
        yield running


def _http(server: FakeProviderServer) -> list[str]:
    return [
        "--base-url", f"{server.base_url}/v1", "--allow-local-network", "--openai-compatible",
        "--api-key-env", "MY_KEY",
    ]  # fmt: skip


def _sent_prompt(server: FakeProviderServer) -> str:
    [request] = server.requests
    [message] = request.json["messages"]
    return str(message["content"])


@pytest.mark.parametrize("prompt", [[], ["-"]], ids=["omitted", "dash"])
def test_the_prompt_is_read_whole_from_stdin(server: FakeProviderServer, prompt: list[str]) -> None:
    done = run("chat", "openai/gpt-4.1", *prompt, *_http(server), feed=QUESTION.encode())

    assert done.returncode == 0, done.stderr
    assert _sent_prompt(server) == QUESTION  # every line, exactly as read: nothing stripped


def test_json_output_is_unchanged_with_a_prompt_from_stdin() -> None:
    done = run("chat", "scripted/demo", "--json", feed=b"what is this\n")

    assert done.returncode == 0, done.stderr
    chunks = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert chunks[-1]["type"] == "result"
    assert {"text": "what is this"} in [c.get("tool_input") for c in chunks]  # scripted trims


def test_demo_reads_stdin_for_dash_and_keeps_its_default_without_a_prompt() -> None:
    dashed = run("demo", "-", "--pace", "0", feed=b"piped words")
    assert dashed.returncode == 0, dashed.stderr
    assert b"You said: piped words." in dashed.stdout

    default = run("demo", "--pace", "0", feed=b"not read")
    assert default.returncode == 0, default.stderr
    assert b"Show me what lionagi-service streams" in default.stdout


def test_a_terminal_on_stdin_is_not_read_without_dash() -> None:
    # A person who forgot the prompt gets the usage error, not a silent wait for Ctrl-D.
    primary, secondary = os.openpty()
    try:
        done = run("chat", "scripted/demo", "--json", stdin=secondary)
    finally:
        os.close(primary)
        os.close(secondary)

    assert done.returncode == 2
    [line] = done.stderr.decode().splitlines()
    assert "required: prompt (or - to read it from stdin)" in line
    [record] = [json.loads(r) for r in done.stdout.decode().splitlines()]
    assert record["type"] == "exception" and record["error"] == "UsageError"


@pytest.mark.parametrize(
    ("prompt", "piped", "needle"),
    [
        ([], b"", "stdin (read instead, as it is not a terminal) gave no text"),
        ([], b" \n\t\n", "stdin (read instead, as it is not a terminal) gave no text"),
        (["-"], b"", "argument prompt: stdin (-) gave no text"),
    ],
)
def test_stdin_without_text_is_bad_usage_not_an_empty_call(
    prompt: list[str], piped: bytes, needle: str
) -> None:
    done = run("chat", "scripted/demo", *prompt, "--json", feed=piped)

    assert done.returncode == 2
    assert needle in done.stderr.decode()
    [record] = [json.loads(r) for r in done.stdout.decode().splitlines()]
    assert record["error"] == "UsageError" and needle in record["message"]


def test_a_closed_stdin_is_bad_usage() -> None:
    def close_stdin() -> None:  # as `<&-` does
        os.close(0)

    omitted = run("chat", "scripted/demo", preexec_fn=close_stdin)
    dashed = run("chat", "scripted/demo", "-", preexec_fn=close_stdin)

    assert omitted.returncode == 2 and b"required: prompt" in omitted.stderr
    assert dashed.returncode == 2 and b"- reads stdin, which is closed" in dashed.stderr


SECRET = b"sk-proj-NotUtf8\xff\xfePromptBytes0123456789"


def test_stdin_that_is_not_utf8_names_prompt_and_stdin_without_the_bytes() -> None:
    done = run("chat", "scripted/demo", "-", "--json", feed=SECRET)

    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(b"lionagi-service chat: error: argument prompt: stdin is not valid")
    assert b"at byte 15" in line
    [record] = [json.loads(r) for r in done.stdout.decode().splitlines()]
    assert record["error"] == "UsageError" and record["message"].startswith("argument prompt:")
    for shown in (done.stdout, done.stderr):
        assert b"NotUtf8" not in shown and b"\xff" not in shown and b"\\udcff" not in shown


@pytest.mark.parametrize("target", ["http", "scripted", "demo"])
def test_an_argument_that_is_not_utf8_names_prompt_not_request(
    server: FakeProviderServer, target: str
) -> None:
    argvs: dict[str, list[str | bytes]] = {
        "http": ["chat", "openai/gpt-4.1", SECRET, *_http(server)],
        "scripted": ["chat", "scripted/demo", SECRET],  # it used to echo the bytes back
        "demo": ["demo", SECRET],
    }
    argv = argvs[target]
    done = run(*argv, "--json")

    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert b"argument prompt: not valid UTF-8 (at byte 15 of the argument" in line
    assert b"request" not in line
    [record] = [json.loads(r) for r in done.stdout.decode().splitlines()]
    assert record["error"] == "UsageError" and "request" not in record["message"]
    for shown in (done.stdout, done.stderr):
        assert b"NotUtf8" not in shown and b"\xff" not in shown and b"\\udcff" not in shown
    assert server.requests == []

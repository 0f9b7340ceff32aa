"""With stdout piped, progress goes to stderr only when stderr is a terminal (or `--progress`).

Before, a piped `chat` / `demo` always wrote the thinking, tool lines and the usage line to
stderr, so a script that takes any stderr output for failure (a CI step, a wrapper) failed a
run that succeeded. git's rule now decides: progress on stderr when it is a terminal, forced
with `--progress`; the error line stays the one and last stderr line of a failed run, and a
note about the answer itself (cut at the token limit) is still said.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from lionagi.service import StreamChunk
from lionagi.service.cli._render import PlainRenderer, renderer_for

from ._support import HANG_GUARD, cli_env, command

ANSWER = "You said: hi. This answer comes from the scripted provider; no key needed.\n"


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The command with stdout and stderr both pipes, as a script captures them."""
    return subprocess.run(
        [*command(), *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=cli_env(columns="200", **env),
        check=False,
    )


@pytest.mark.parametrize(("extra", "before"), [([], ""), (["--progress"], "Pondering the\n")])
def test_a_failed_run_ends_with_its_error_as_the_last_stderr_line(
    extra: list[str], before: str
) -> None:
    # The provider thinks, then its stream reports an error: the thinking is progress.
    from lionagi.service_testing.fake_server import FakeProviderServer

    with FakeProviderServer.running_in_thread() as server:
        base = f"{server.base_url}/scenario/thinking+stream_error/v1"
        flags = ["--base-url", base, "--allow-local-network", "--api-key-env", "POLISH_FAKE_KEY"]
        done = run(
            "chat", "openai/gpt-4.1", "hi", *flags, *extra, POLISH_FAKE_KEY="sk-polish-0123456789"
        )
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert done.stderr == f"{before}provider error: The server had an error while processing " + (
        "your request. Sorry about that!\n"
    )


def test_progress_forces_the_lines_onto_a_captured_stderr() -> None:
    done = run("demo", "--pace", "0", "--progress", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ANSWER
    err = done.stderr.splitlines()
    assert err[:3] == [
        "The user wants a demonstration.",
        '\u2192 word_count({"text": "hi"})',
        "\u2190 word_count: 1",
    ], err
    assert err[3].startswith("usage: input_tokens="), err


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")
def test_progress_follows_whether_stderr_is_a_terminal() -> None:
    # `chat ... > answer.txt` typed in a terminal: the progress stays visible there; the same
    # command with stderr captured by a script writes none.
    captured = run("demo", "--pace", "0", "hi")
    assert (captured.returncode, captured.stdout, captured.stderr) == (0, ANSWER, "")
    master, slave = os.openpty()
    try:
        proc = subprocess.run(
            [*command(), "demo", "--pace", "0", "hi"],
            stdout=subprocess.PIPE,
            stderr=slave,
            stdin=subprocess.DEVNULL,
            env=cli_env(columns="200"),
            timeout=HANG_GUARD,
            check=False,
        )
        os.close(slave)
        slave = -1
        seen = b""
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the program is gone, every slave descriptor closed
                break
            if not data:
                break
            seen += data
    finally:
        os.close(master)
        if slave != -1:
            os.close(slave)
    assert proc.returncode == 0
    assert proc.stdout.decode() == ANSWER
    text = seen.decode("utf-8", "replace")
    assert "word_count" in text and "usage: input_tokens=" in text, text


def test_the_renderer_drops_progress_but_not_the_answer_when_told() -> None:
    out, err = io.StringIO(), io.StringIO()
    renderer = PlainRenderer(out, err, progress=False)
    renderer.chunk(StreamChunk("thinking", content="pondering"))
    renderer.chunk(StreamChunk("tool_use", tool_name="t", tool_id="1", tool_input={}))
    renderer.chunk(StreamChunk("tool_result", tool_id="1", tool_output="r"))
    renderer.chunk(StreamChunk("text", content="the answer"))
    renderer.chunk(StreamChunk("result", metadata={"usage": {"in": 1}, "finish_reason": "length"}))
    renderer.close()
    assert out.getvalue() == "the answer\n"
    # The note is about the answer itself, not progress: still said, alone.
    assert err.getvalue() == (
        "note: the answer stopped at the output token limit (finish reason 'length')\n"
    )


def test_renderer_for_asks_stderr_whether_it_is_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    chunk = StreamChunk("thinking", content="pondering")
    for stderr, forced, shown in [
        (io.StringIO(), False, ""),
        (io.StringIO(), True, "pondering\n"),
        (Terminal(), False, "pondering\n"),
    ]:
        monkeypatch.setattr(sys, "stderr", stderr)
        renderer = renderer_for(as_json=False, out=io.StringIO(), progress=forced)
        renderer.chunk(chunk)
        renderer.close()
        assert stderr.getvalue() == shown, (forced, type(stderr).__name__)

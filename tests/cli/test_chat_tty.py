"""Issue 17 item 9: ``chat`` in a real pseudo-terminal against the scripted provider.

The console script runs with its stdout on the slave side of a pty (stdlib ``pty``/``os.openpty``,
so it sees a terminal exactly as under a shell); the test reads everything the terminal would
have drawn from the master side. Captured stdout (a pipe) is covered by the other CLI tests.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).with_name("lionagi-service")
HANG_GUARD = 30.0  # seconds; a "did not hang" bound only
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")


def in_terminal(*args: str) -> tuple[int, str]:
    """Run the CLI on a 100x40 pty; returns (exit code, everything written to the terminal)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    env = dict(os.environ)
    for name in ("NO_COLOR", "COLUMNS", "LINES", "FORCE_COLOR"):
        env.pop(name, None)
    env.update({"TERM": "xterm-256color", "PYTHONUNBUFFERED": "1"})
    cmd = (
        [str(SCRIPT)]
        if SCRIPT.exists()
        else [
            sys.executable,
            "-c",
            "import sys; from lionagi.service.cli import main; sys.exit(main())",
        ]
    )
    proc = subprocess.Popen(
        [*cmd, *args], stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True
    )
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + HANG_GUARD
    try:
        while time.monotonic() < deadline:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every slave fd is closed, the program is gone
                break
            if not data:
                break
            chunks.append(data)
        code = proc.wait(timeout=HANG_GUARD)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return code, b"".join(chunks).decode("utf-8", "replace")


def test_chat_in_a_terminal_renders_spinner_panels_markdown_thinking_and_usage():
    code, raw = in_terminal("demo", "--pace", "0.05", "make **this** bold")
    plain = ANSI.sub("", raw)
    assert code == 0, plain
    assert "waiting for the first token" in plain  # the spinner before the first chunk
    assert "tool call: word_count" in plain and "╭" in plain  # tool calls as panels
    assert "tool result: word_count" in plain
    assert "The user wants a demonstration." in plain  # thinking, shown while it streams ...
    assert re.search(
        r"▸ thought for \d+ words", plain
    )  # ... collapsed to one line once the answer starts
    assert "\x1b[2" in raw  # dim style in use (thinking, usage)
    # Markdown: the answer's **this** is drawn bold, not as asterisks, in the final frame.
    final = plain[plain.rindex("You said:") :]
    assert "**" not in final and "make this bold" in final
    assert "\x1b[1m" in raw
    usage = [line for line in plain.splitlines() if "usage:" in line]
    assert usage and "input_tokens=" in usage[-1]
    assert re.search(r"first token \d+\.\d\d s, total \d+\.\d\d s", usage[-1])


def test_chat_json_in_a_terminal_stays_ndjson():
    code, raw = in_terminal("chat", "--json", "scripted/demo", "hi")
    assert code == 0, raw
    assert "\x1b[" not in raw
    records = [json.loads(line) for line in raw.replace("\r", "").splitlines() if line.strip()]
    assert [r["type"] for r in records][-1] == "result"
    assert {"thinking", "tool_use", "tool_result", "text"} <= {r["type"] for r in records}


def test_a_provider_error_in_a_terminal_is_one_line_after_the_partial_answer():
    code, raw = in_terminal("chat", "scripted/demo", "SCRIPTED_FAIL")
    plain = ANSI.sub("", raw)
    assert code == 1
    errors = [line for line in plain.splitlines() if "provider error" in line]
    assert errors == ["provider error: scripted provider failure requested by the prompt"]


def test_show_thinking_keeps_the_thinking_expanded():
    code, raw = in_terminal("demo", "--pace", "0", "--show-thinking", "hi")
    plain = ANSI.sub("", raw)
    assert code == 0, plain
    final = plain[plain.rindex("The user wants a demonstration.") :]
    assert "thought for" not in final
    assert "You said: hi" in final

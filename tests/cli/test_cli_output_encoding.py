"""Plain output on streams that cannot encode Unicode (``LC_ALL=C``, ``PYTHONIOENCODING=ascii``).

The run must not end in ``UnicodeEncodeError``: the tool markers (on stderr, with the usage
line) fall back to ASCII and text the stream cannot carry (the model's, the prompt's) is
replaced, not raised on.
"""

from __future__ import annotations

import io
import json
import subprocess

import pytest

from lionagi.service._base.chunk import StreamChunk
from lionagi.service.cli._render import PlainRenderer

from ._support import HANG_GUARD, cli_env, command


def run(*args: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*command(), *args], capture_output=True, env=cli_env(**env), timeout=HANG_GUARD
    )


ASCII_ENVS = [
    pytest.param({"PYTHONIOENCODING": "ascii"}, id="PYTHONIOENCODING=ascii"),
    pytest.param(
        {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""},
        id="LC_ALL=C",
    ),
]


@pytest.mark.parametrize("env", ASCII_ENVS)
def test_plain_chat_on_an_ascii_stdout_exits_0_with_ascii_markers(env: dict[str, str]) -> None:
    proc = run("chat", "scripted/demo", "hello", "--progress", **env)
    out = proc.stdout.decode("ascii")  # every byte is ASCII
    err = proc.stderr.decode("ascii")
    assert proc.returncode == 0, proc.stderr
    assert "UnicodeEncodeError" not in err
    assert "-> word_count(" in err and "<- word_count: 1" in err
    assert "You said: hello." in out


def test_unencodable_model_text_is_replaced_not_raised() -> None:
    proc = run("chat", "scripted/demo", "h\u00e9llo \u65e5\u672c", PYTHONIOENCODING="ascii")
    assert proc.returncode == 0, proc.stderr
    assert b"You said: h?llo ??." in proc.stdout


def test_json_is_the_same_bytes_on_ascii_and_utf8_stdout() -> None:
    utf8 = run("chat", "--json", "scripted/demo", "h\u00e9llo", PYTHONIOENCODING="utf-8")
    ascii_ = run("chat", "--json", "scripted/demo", "h\u00e9llo", PYTHONIOENCODING="ascii")
    assert utf8.returncode == ascii_.returncode == 0

    def stable(raw: bytes) -> list[dict[str, object]]:
        records = [json.loads(line) for line in raw.splitlines()]
        for record in records:
            record.get("metadata", {}).pop("latency_ms", None)
        return records

    assert stable(utf8.stdout) == stable(ascii_.stdout)
    assert b"h\\u00e9llo" in utf8.stdout  # NDJSON stays ASCII-escaped, as before


def strict_ascii() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict", write_through=True)


def test_plain_renderer_on_a_strict_ascii_stream_degrades_instead_of_raising() -> None:
    out, err = strict_ascii(), strict_ascii()
    renderer = PlainRenderer(out, err)
    renderer.chunk(StreamChunk("tool_use", tool_name="t", tool_id="1", tool_input={"a": "\u2192"}))
    renderer.chunk(StreamChunk("tool_result", tool_id="1", tool_output="r\u00e9sum\u00e9"))
    renderer.chunk(StreamChunk("text", content="caf\u00e9 \u2603"))
    renderer.chunk(StreamChunk("result", metadata={"usage": {"in": 1}, "cost": 0.5}))
    renderer.close()
    text = out.buffer.getvalue().decode("ascii")  # type: ignore[attr-defined]
    side = err.buffer.getvalue().decode("ascii")  # type: ignore[attr-defined]
    assert '-> t({"a": "\\u2192"})' in side
    assert "<- t: r?sum?" in side
    assert text == "caf? ?\n"
    assert "usage: in=1 - cost $0.5000" in side


def test_plain_renderer_keeps_the_arrows_on_utf8() -> None:
    out, err = io.StringIO(), io.StringIO()
    renderer = PlainRenderer(out, err)
    renderer.chunk(StreamChunk("tool_use", tool_name="t", tool_id="1", tool_input={}))
    renderer.chunk(StreamChunk("tool_result", tool_id="1", tool_output="ok"))
    assert err.getvalue() == "\u2192 t({})\n\u2190 t: ok\n"

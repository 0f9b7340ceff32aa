"""A slash command's plain-text stdout line is a notice, not a broken stream.

Gemini CLI runs a prompt starting with ``/`` as a slash command, and some commands write plain
text between the stream-json events (``/memory show``: "Memory is currently empty."). Core's
framer refused that line as malformed JSON and the run ended with ``ProviderProtocolError``.
:func:`plain_text_event` is the reader the adapter gives the framer for such lines; the
projector makes the line a ``system`` notice. A line that may be a damaged event is still
refused.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.providers.gemini_cli import GeminiEventProjector
from lionagi.providers.gemini_cli._events import PLAIN_TEXT_EVENT, plain_text_event
from lionagi.service import ProviderProtocolError, StreamChunk
from lionagi.service.agentic import JsonFramer

TS = "2026-12-06T06:00:00.000Z"
SID = "2b7d1f0e-5c3a-4e8b-9d6f-1a2b3c4d5e6f"
MEMORY_TEXT = "Memory is currently empty."


def _events(*items: dict[str, Any] | str) -> bytes:
    return "".join((json.dumps(i) if isinstance(i, dict) else i) + "\n" for i in items).encode()


SLASH_RUN = _events(
    {"type": "init", "timestamp": TS, "session_id": SID, "model": "gemini-2.5-flash"},
    {"type": "message", "timestamp": TS, "role": "user", "content": "/memory show"},
    MEMORY_TEXT,
    {"type": "result", "timestamp": TS, "status": "success", "stats": {"total_tokens": 0}},
)


def _chunks(data: bytes, **framer: Any) -> list[StreamChunk]:
    projector = GeminiEventProjector()
    events = JsonFramer(**framer)
    out: list[StreamChunk] = []
    for event in [*events.feed(data), *events.close()]:
        out.extend(projector.project(event))
    out.extend(projector.finish())
    return out


def test_a_plain_line_becomes_a_notice_and_the_run_completes() -> None:
    chunks = _chunks(SLASH_RUN, plain_line=plain_text_event)
    assert [c.type for c in chunks] == ["system", "system", "system", "result"]
    assert chunks[1].metadata == {"notice": MEMORY_TEXT, "severity": "info", "source": "stdout"}
    assert chunks[-1].metadata["session_id"] == SID


def test_without_the_reader_the_line_is_a_protocol_error() -> None:
    # Core's default, which the adapter no longer meets on a slash command's output.
    with pytest.raises(ProviderProtocolError, match="malformed JSON in stdout"):
        _chunks(SLASH_RUN)


@pytest.mark.parametrize(
    "line",
    [
        '{"type":"message","role":"assistant","content":"cut',  # a damaged event
        '  {"type": "result"',
        'Memory is empty.{"type":"result","status":"success"}',  # an event run into the text
    ],
)
def test_a_line_that_may_be_an_event_is_refused(line: str) -> None:
    assert plain_text_event(line) is None
    with pytest.raises(ProviderProtocolError):
        _chunks(_events({"type": "init", "session_id": SID}, line), plain_line=plain_text_event)


@pytest.mark.parametrize(
    "line",
    [MEMORY_TEXT, "Created GEMINI.md.", "[1/2] loaded {braces} in text", "", "   42 files"],
)
def test_other_lines_are_read_as_text(line: str) -> None:
    assert plain_text_event(line) == {"type": PLAIN_TEXT_EVENT, "text": line}


def test_a_notice_does_not_split_the_assistant_message() -> None:
    projector = GeminiEventProjector()
    say = {"type": "message", "role": "assistant", "content": "Hello ", "delta": True}
    first, notice, second = (
        projector.project(say)[0],
        projector.project({"type": PLAIN_TEXT_EVENT, "text": "x"})[0],
        projector.project({**say, "content": "world"})[0],
    )
    assert (first.is_delta, notice.type, second.is_delta) == (False, "system", True)

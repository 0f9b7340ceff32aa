"""A CLI's plain-text stdout line read by the adapter, and protocol errors that keep no raw line.

Some agentic CLIs print a line of plain text between their JSON events (Gemini CLI's slash
commands: ``/memory show`` writes "Memory is currently empty."). The framer refused every such
line as a broken event; an adapter that knows the line is harmless now gives the framer a
``plain_line`` reader, asked only when a complete line is not a JSON object. Without one the
framer behaves exactly as before.

A protocol error raised with ``from None`` inside the decoder's ``except`` block still carried
the ``JSONDecodeError`` as its ``__context__``, and that error's ``doc`` is the whole read,
unredacted: a key echoed on stdout reached anything that walks the chain.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import ProviderProtocolError
from lionagi.service._transport.subprocess import JsonFramer

EVENT_A = {"type": "init", "session_id": "s-1"}
EVENT_B = {"type": "result", "status": "success"}
PLAIN = "Memory is currently empty."


def _lines(*items: dict[str, Any] | str) -> bytes:
    return "".join((json.dumps(i) if isinstance(i, dict) else i) + "\n" for i in items).encode()


def _frame(blocks: list[bytes], **kw: Any) -> tuple[list[dict[str, Any]], str]:
    framer = JsonFramer(**kw)
    out: list[dict[str, Any]] = []
    for block in blocks:
        out.extend(framer.feed(block))
    out.extend(framer.close())
    return out, framer.tail


class _Reader:
    """A plain-line reader that records what it was asked and refuses JSON-looking text."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str) -> dict[str, Any] | None:
        self.lines.append(line)
        if line.lstrip().startswith(("{", "[")):
            return None
        return {"type": "plain", "text": line}


def test_without_a_reader_a_plain_line_is_still_a_protocol_error() -> None:
    framer = JsonFramer()
    events = framer.feed(_lines(EVENT_A, PLAIN, EVENT_B))
    assert next(events) == EVENT_A  # the events before the line are delivered first
    with pytest.raises(ProviderProtocolError, match="malformed JSON in stdout"):
        next(events)


def test_a_reader_turns_the_line_into_its_event_in_place() -> None:
    reader = _Reader()
    out, tail = _frame([_lines(EVENT_A, PLAIN, EVENT_B)], plain_line=reader)
    assert out == [EVENT_A, {"type": "plain", "text": PLAIN}, EVENT_B]
    assert tail == ""
    assert reader.lines == [PLAIN]


def test_the_reader_is_never_asked_about_json_events() -> None:
    # The happy path costs nothing: a stream of events never reaches the reader.
    reader = _Reader()
    data = _lines(*[EVENT_A] * 50, EVENT_B) + b'{"a":1}{"b":2}\n'
    out, _ = _frame([data], plain_line=reader)
    assert len(out) == 53
    assert reader.lines == []


def test_every_split_of_the_stream_reads_the_line_once_and_whole() -> None:
    data = _lines(EVENT_A, PLAIN, "  indented text\r", EVENT_B)
    for cut in range(len(data) + 1):
        for second in (cut, min(cut + 7, len(data))):
            reader = _Reader()
            blocks = [data[:cut], data[cut:second], data[second:]]
            out, tail = _frame(blocks, plain_line=reader)
            assert out == [
                EVENT_A,
                {"type": "plain", "text": PLAIN},
                {"type": "plain", "text": "indented text"},
                EVENT_B,
            ], (cut, second)
            assert reader.lines == [PLAIN, "indented text"], (cut, second)
            assert tail == ""


def test_a_plain_line_ending_the_stream_without_a_newline_is_read() -> None:
    reader = _Reader()
    out, tail = _frame([_lines(EVENT_A) + PLAIN.encode()], plain_line=reader)
    assert out == [EVENT_A, {"type": "plain", "text": PLAIN}]
    assert tail == ""


def test_a_line_starting_with_a_json_value_is_given_whole() -> None:
    # "12 files" starts with a number: the reader sees the whole line, not the part after 12.
    reader = _Reader()
    out, _ = _frame([_lines(EVENT_A, "12 files", '"quoted"', EVENT_B)], plain_line=reader)
    assert reader.lines == ["12 files", '"quoted"']
    assert out[1:3] == [
        {"type": "plain", "text": "12 files"},
        {"type": "plain", "text": '"quoted"'},
    ]


def test_without_a_reader_a_non_object_value_is_refused_at_once() -> None:
    with pytest.raises(ProviderProtocolError, match="expected a JSON object, got int"):
        list(JsonFramer().feed(b"12"))


def test_a_refused_line_is_the_usual_protocol_error() -> None:
    reader = _Reader()
    framer = JsonFramer(plain_line=reader)
    with pytest.raises(ProviderProtocolError, match="malformed JSON in stdout"):
        list(framer.feed(_lines('{"type": "message", broken')))
    assert reader.lines == ['{"type": "message", broken']


def test_an_incomplete_tail_is_still_left_for_repair() -> None:
    # A cut JSON value at EOF is the tail (the adapter's repair decides), never a plain line.
    reader = _Reader()
    out, tail = _frame([_lines(EVENT_A) + b'{"type": "res'], plain_line=reader)
    assert out == [EVENT_A]
    assert tail == '{"type": "res'


def test_a_stream_cut_inside_a_character_is_never_read_as_a_line() -> None:
    reader = _Reader()
    framer = JsonFramer(plain_line=reader)
    list(framer.feed(_lines(EVENT_A) + "caf\u00e9".encode()[:-1]))
    list(framer.close())
    assert framer.cut_character
    assert reader.lines == []
    assert framer.tail.endswith("\ufffd")


@pytest.mark.parametrize(
    ("reader", "reason"),
    [
        (lambda line: 1 / 0, r"reader failed \(ZeroDivisionError\)"),
        (lambda line: [line], "reader returned list, not an object or None"),
    ],
)
def test_a_failing_reader_is_a_protocol_error_that_chains_nothing(reader: Any, reason: str) -> None:
    framer = JsonFramer(plain_line=reader)
    with pytest.raises(ProviderProtocolError, match=reason) as info:
        list(framer.feed(_lines("token sk-live-abcdefghijklmnopqrstuvwxyz0123")))
    assert info.value.__cause__ is None
    assert info.value.__context__ is None


@pytest.mark.parametrize("reader", [None, lambda line: None], ids=["no reader", "refused"])
def test_a_malformed_line_error_keeps_no_decoder_error_in_its_chain(reader: Any) -> None:
    # The JSONDecodeError's doc is the whole read; the protocol error must not hold it.
    secret = "sk-live-abcdefghijklmnopqrstuvwxyz0123"
    framer = JsonFramer() if reader is None else JsonFramer(plain_line=reader)
    with pytest.raises(ProviderProtocolError) as info:
        list(framer.feed(_lines(EVENT_A, f"key={secret}", EVENT_B)))
    error = info.value
    assert error.__cause__ is None
    assert error.__context__ is None
    assert secret not in str(error)

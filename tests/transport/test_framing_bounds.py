"""A stream that never ends an event is refused instead of buffered without bound."""

from __future__ import annotations

import pytest

from lionagi.service import ProviderProtocolError
from lionagi.service._transport.http.framing import MAX_EVENT_BYTES, NDJSONFramer, SSEFramer


@pytest.mark.parametrize("framer", [SSEFramer(), NDJSONFramer()])
def test_unterminated_event_over_the_bound_is_a_protocol_error(framer: object) -> None:
    piece = "x" * (1024 * 1024)
    with pytest.raises(ProviderProtocolError, match="exceeded 16 MiB \\(UTF-8\\) before it ended"):
        for _ in range(MAX_EVENT_BYTES // len(piece) + 2):
            framer.feed("data: " + piece if isinstance(framer, SSEFramer) else piece)  # type: ignore[attr-defined]


def test_large_but_bounded_events_still_pass() -> None:
    framer = SSEFramer()
    big = "y" * (2 * 1024 * 1024)
    events = framer.feed(f'data: {{"text": "{big}"}}\n\n')
    assert events == [{"text": big}]


# --- NDJSON: one long line costs linear work and is refused the moment it crosses the bound ------


def test_ndjson_feed_does_not_copy_the_pending_line() -> None:
    """Each feed's work is the new text, not the pending line: no per-feed copy of the line.

    Measured in allocated bytes (tracemalloc), not time: re-joining an 8 MiB pending line on
    every feed (the quadratic framer) allocates the whole line per call.
    """
    import tracemalloc

    framer = NDJSONFramer()
    pending = 8 * 1024 * 1024
    framer.feed('{"text": "' + "x" * pending)
    piece = "y" * 1024
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        for _ in range(8):
            framer.feed(piece)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < pending // 4, peak
    events = framer.feed('"}\n{"n": 1}\n')
    assert events == [{"text": "x" * pending + "y" * 8192}, {"n": 1}]


def test_ndjson_line_is_refused_on_the_feed_that_crosses_the_bound() -> None:
    framer = NDJSONFramer()
    framer.feed("x" * MAX_EVENT_BYTES)  # exactly at the bound: still waiting for its end
    with pytest.raises(ProviderProtocolError, match="NDJSON line exceeded"):
        framer.feed("x\n")  # the newline ends a line one character over the bound
    assert framer.feed('{"n": 2}\n') == [{"n": 2}]  # the framer was reset, not left buffering


def test_ndjson_unterminated_growth_is_refused_at_the_crossing_piece() -> None:
    framer = NDJSONFramer()
    step = MAX_EVENT_BYTES // 4
    for _ in range(4):
        assert framer.feed("z" * step) == []
    with pytest.raises(ProviderProtocolError, match="exceeded 16 MiB \\(UTF-8\\) before it ended"):
        framer.feed("z")


def test_sse_event_of_many_data_lines_is_bounded() -> None:
    """The running event size counts data lines too, not only the unfinished line."""
    framer = SSEFramer()
    block = "data: " + "d" * 1000 + "\n"
    blocks = block * 1024  # ~1 MiB of data lines, none dispatched
    with pytest.raises(ProviderProtocolError, match="SSE event exceeded"):
        for _ in range(MAX_EVENT_BYTES // len(blocks) + 2):
            framer.feed(blocks)
    fresh = SSEFramer()  # a dispatched event resets the count: 20 MiB in 1 MiB events is fine
    event = 'data: {"t": "' + "e" * (1024 * 1024) + '"}\n\n'
    assert sum(len(fresh.feed(event)) for _ in range(20)) == 20


# --- The bound is in UTF-8 bytes, as its name and message say, for both framers ------------------

CJK = "中"  # three bytes in UTF-8
EMOJI = "😀"  # four bytes in UTF-8, one code point


def test_sse_unterminated_event_is_bounded_in_bytes_not_characters() -> None:
    """6 Mi CJK characters are 18 MiB: refused, though counting characters saw only 6 Mi."""
    framer = SSEFramer()
    piece = CJK * (256 * 1024)  # 768 KiB per feed
    with pytest.raises(ProviderProtocolError, match="SSE event exceeded 16 MiB"):
        framer.feed("data: " + piece)
        for _ in range(23):
            framer.feed(piece)


def test_ndjson_unterminated_line_is_bounded_in_bytes_not_characters() -> None:
    framer = NDJSONFramer()
    piece = CJK * (256 * 1024)
    with pytest.raises(ProviderProtocolError, match="NDJSON line exceeded 16 MiB"):
        for _ in range(24):
            framer.feed(piece)


def test_ndjson_line_ending_over_the_byte_bound_is_refused() -> None:
    """The line's newline arrives in the block that takes it over the bound (the `cut` path)."""
    framer = NDJSONFramer()
    assert framer.feed('"' + "a" * (MAX_EVENT_BYTES - 8)) == []  # 7 bytes left under the bound
    with pytest.raises(ProviderProtocolError, match="NDJSON line exceeded 16 MiB"):
        framer.feed(CJK * 3 + '"\n')  # 4 characters (fit as characters), but 10 bytes
    assert framer.feed('{"n": 3}\n') == [{"n": 3}]


@pytest.mark.parametrize("width", [CJK, EMOJI], ids=["3-byte", "4-byte"])
def test_sse_event_exactly_at_the_byte_bound_passes_and_one_more_byte_does_not(
    width: str,
) -> None:
    """Counted exactly: many data lines of wide characters, then an unfinished line.

    Data lines count their value; the unfinished line counts whole, its `data: ` included.
    """
    line = width * 4095
    lines = MAX_EVENT_BYTES // len(line.encode())  # whole data lines that fit
    room = MAX_EVENT_BYTES - lines * len(line.encode())  # bytes left for the unfinished line
    framer = SSEFramer()
    block = ("data: " + line + "\n") * 64
    for _ in range(lines // 64):
        assert framer.feed(block) == []
    framer.feed(("data: " + line + "\n") * (lines % 64))
    assert framer.feed("data: " + "a" * (room - 6)) == []  # exactly at the bound: buffered
    with pytest.raises(ProviderProtocolError, match="SSE event exceeded 16 MiB"):
        framer.feed("a")


def _fed(framer: SSEFramer | NDJSONFramer, text: str, piece: int = 1024 * 1024) -> list[object]:
    """`text` fed in network-read-sized blocks (a whole long event never arrives in one read)."""
    return [
        event for at in range(0, len(text), piece) for event in framer.feed(text[at : at + piece])
    ]


def test_wide_events_under_the_byte_bound_pass_and_the_count_stays_exact() -> None:
    """15 MiB events of CJK pass; then a line at the bound passes and one byte more does not."""
    value = CJK * (5 * 1024 * 1024)
    sse = SSEFramer()
    ndjson = NDJSONFramer()
    for _ in range(2):
        assert _fed(sse, f'data: "{value}"\n\n') == [value]
        assert _fed(ndjson, f'"{value}"\n') == [value]
    # once past the character shortcut the framers count exactly; ASCII and CJK still mix
    mixed = "x" * (MAX_EVENT_BYTES - 3 * 1024 * 1024 - 2) + CJK * (1024 * 1024)
    assert _fed(ndjson, f'"{mixed}"\n') == [mixed]
    with pytest.raises(ProviderProtocolError, match="NDJSON line exceeded 16 MiB"):
        _fed(ndjson, f'"{mixed} "\n')


# --- SSE lone-CR line endings dispatch on the read that carries them ------------------------------


def test_sse_event_ended_by_cr_cr_is_delivered_by_the_read_that_ends_it() -> None:
    framer = SSEFramer()
    assert framer.feed('data: {"n": 1}\r\r') == [{"n": 1}]
    assert framer.feed('data: {"n": 2}\r\n\r\n') == [{"n": 2}]
    assert framer.flush() == []


def test_sse_crlf_split_across_reads_is_one_line_ending() -> None:
    """A CR at the end of a read and an LF at the start of the next are one CRLF, not two endings.

    Two endings would make a blank line that resets the pending `event:` field.
    """
    framer = SSEFramer()
    assert framer.feed("event: delta\r") == []
    assert framer.feed('\ndata: {"n": 1}\r') == []
    assert framer.feed("\n\r") == [{"n": 1, "type": "delta"}]
    assert framer.feed("\n") == []
    assert framer.flush() == []

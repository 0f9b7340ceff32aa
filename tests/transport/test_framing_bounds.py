"""A stream that never ends an event is refused instead of buffered without bound."""

from __future__ import annotations

import pytest

from lionagi.service import ProviderProtocolError
from lionagi.service._transport.http.framing import MAX_EVENT_CHARS, NDJSONFramer, SSEFramer


@pytest.mark.parametrize("framer", [SSEFramer(), NDJSONFramer()])
def test_unterminated_event_over_the_bound_is_a_protocol_error(framer: object) -> None:
    piece = "x" * (1024 * 1024)
    with pytest.raises(ProviderProtocolError, match="without ending"):
        for _ in range(MAX_EVENT_CHARS // len(piece) + 2):
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
    framer.feed("x" * MAX_EVENT_CHARS)  # exactly at the bound: still waiting for its end
    with pytest.raises(ProviderProtocolError, match="NDJSON line exceeded"):
        framer.feed("x\n")  # the newline ends a line one character over the bound
    assert framer.feed('{"n": 2}\n') == [{"n": 2}]  # the framer was reset, not left buffering


def test_ndjson_unterminated_growth_is_refused_at_the_crossing_piece() -> None:
    framer = NDJSONFramer()
    step = MAX_EVENT_CHARS // 4
    for _ in range(4):
        assert framer.feed("z" * step) == []
    with pytest.raises(ProviderProtocolError, match="without ending"):
        framer.feed("z")


def test_sse_event_of_many_data_lines_is_bounded() -> None:
    """The running event size counts data lines too, not only the unfinished line."""
    framer = SSEFramer()
    block = "data: " + "d" * 1000 + "\n"
    blocks = block * 1024  # ~1 MiB of data lines, none dispatched
    with pytest.raises(ProviderProtocolError, match="SSE event exceeded"):
        for _ in range(MAX_EVENT_CHARS // len(blocks) + 2):
            framer.feed(blocks)
    fresh = SSEFramer()  # a dispatched event resets the count: 20 MiB in 1 MiB events is fine
    event = 'data: {"t": "' + "e" * (1024 * 1024) + '"}\n\n'
    assert sum(len(fresh.feed(event)) for _ in range(20)) == 20

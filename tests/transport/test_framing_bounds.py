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

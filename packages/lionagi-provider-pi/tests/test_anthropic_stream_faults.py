"""An Anthropic stream pi could not read is core's protocol family, not an unclassified error.

pi 0.73.1 reads the Anthropic Messages stream itself (``@mariozechner/pi-ai``,
``providers/anthropic.js``) and fails the turn in its own words when the stream breaks the
grammar: an event whose data is not JSON ("Could not parse Anthropic SSE event <event>:
<parser message>; data=...; raw=...") and a stream that began a message and ended before its
``message_stop`` ("Anthropic stream ended before message_stop"). Core's own HTTP transport
raises ``ProviderProtocolError`` for both faults in the streams it reads, so pi's report is
that family's stream twin, never retried, instead of a plain ``ProviderStreamError``.

The captures are the real binary's runs (``--mode json``, retries off, a provider with
``api: "anthropic-messages"``) against a local stub: ``anthropic-unparsable-event`` sent
``message_start`` and then a ``content_block_start`` whose data is not JSON;
``anthropic-no-message-stop`` sent ``message_start``, a text block's start and one delta, and
then ended the stream.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lionagi.providers.pi import PiCliEndpoint
from lionagi.providers.pi._events import PiEventProjector
from lionagi.service import ProviderProtocolError, ProviderStreamProtocolError

CAPTURES = Path(__file__).resolve().parent / "captures"


@pytest.mark.parametrize(
    ("capture", "wording"),
    [
        ("anthropic-unparsable-event", "Could not parse Anthropic SSE event content_block_start"),
        ("anthropic-no-message-stop", "Anthropic stream ended before message_stop"),
    ],
)
def test_a_broken_anthropic_stream_is_the_protocol_twin(capture: str, wording: str) -> None:
    lines = (CAPTURES / f"{capture}.jsonl").read_text(encoding="utf-8").splitlines()
    projector = PiEventProjector()
    chunks = [c for line in lines if line.strip() for c in projector.feed(json.loads(line))]
    (failed,) = [c for c in chunks + projector.finish() if c.type == "error"]
    error = PiCliEndpoint().stream_error(failed)
    assert type(error) is ProviderStreamProtocolError, repr(error)
    assert isinstance(error, ProviderProtocolError)
    assert wording in str(error)
    assert not error.retryable

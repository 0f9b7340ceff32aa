"""Claude Code's words for a streamed answer that ended early, and the family each one is.

2.1.332 words a streamed answer that failed after a block of it had arrived by the cause it
found, all labelled `server_error`: "Server error mid-response" (an `error` event: the server
fault, left so), "Connection lost mid-response" (the stream ended or was reset: the disconnect
twin; "Connection lost before a response was produced" when the block was thinking only, the
same cut), "Your computer went to sleep ..." (its watchdog saw the host suspend and cut the stream:
the disconnect twin, from the bundled source only), and two malformed-stream texts, "The
response stream was malformed" (an event that is not JSON, or one for a block already closed)
and "Part of the response never arrived" (an event for a block that never started). Those two
are a grammar fault on a stream still open, not a cut: core's HTTP transport raises that as
`ProviderProtocolError`, so they are its stream twin, `ProviderStreamProtocolError`, whatever the
label says; so are the CLI's own words before any block finished ("JSON Parse error: ...",
"Stream ended without receiving any events") and, from the bundled source only, "The response
could not be read (ZlibError)" (a body that does not decode).

Recorded from the real 2.1.332 (`captures/2.1.332/stream-end-*`, `stream-bad-json`,
`stream-malformed-*`, `stream-unstarted-block-*`, `stream-error-after-text`; see the README)
against a loopback server that answers `POST /v1/messages` with 200 and SSE headers, then a
scripted start of an answer, then a clean end of the body, an `error` event or a broken event.
"""

from __future__ import annotations

import pytest
from claude_captures import capture, error_for, replay

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.service import (
    AttemptPolicy,
    ProviderDisconnectError,
    ProviderProtocolError,
    ProviderStreamDisconnectError,
    ProviderStreamProtocolError,
    ProviderStreamServerError,
    StreamChunk,
)
from lionagi.service.lifecycle import is_retryable

VERSION = "2.1.332"
_TEXT_THEN_CONTINUATIONS = ["system", "text", "text", "text", "text", "error"]

# capture -> (chunk kinds the adapter yields, the error text, the CLI's label, the raised
# class). A finished text block makes the CLI ask three times for the rest (each answered the
# same way), then give up.
RECORDED = {
    # A clean end of the body inside the open text block (non-streaming retry off).
    "stream-end-after-text": (
        ["system", "error"],
        "API Error: Connection to the API was lost (StreamTruncated). This is usually temporary"
        " \u2014 try again.",
        "server_error",
        ProviderStreamDisconnectError,
    ),
    # A clean end after a finished text block (no `message_delta`, no `message_stop`).
    "stream-end-after-text-block": (
        _TEXT_THEN_CONTINUATIONS,
        "API Error: Connection lost mid-response. The response above may be incomplete.",
        "server_error",
        ProviderStreamDisconnectError,
    ),
    # The same clean end after a finished thinking block: nothing shown yet, but the provider
    # had answered, so the cut is the disconnect twin (it was the connection twin, which says
    # the API could not be reached).
    "stream-end-after-thinking": (
        ["system", "thinking", "error"],
        "API Error: Connection lost before a response was produced. Try again.",
        "server_error",
        ProviderStreamDisconnectError,
    ),
    # An `error` event (`api_error`) after a finished text block: the server's own fault.
    "stream-error-after-text": (
        _TEXT_THEN_CONTINUATIONS,
        "API Error: Server error mid-response. The response above may be incomplete.",
        "server_error",
        ProviderStreamServerError,
    ),
    # A `data:` line that is not JSON, after a finished text block, or a finished thinking one.
    "stream-malformed-after-text": (
        _TEXT_THEN_CONTINUATIONS,
        "API Error: The response stream was malformed. The response above may be incomplete.",
        "server_error",
        ProviderStreamProtocolError,
    ),
    "stream-malformed-after-thinking": (
        ["system", "thinking", "error"],
        "API Error: The response stream was malformed and no response was produced. Try again.",
        "server_error",
        ProviderStreamProtocolError,
    ),
    # A `content_block_delta` for index 1, which no `content_block_start` opened.
    "stream-unstarted-block-after-text": (
        _TEXT_THEN_CONTINUATIONS,
        "API Error: Part of the response never arrived. The response above may be incomplete.",
        "server_error",
        ProviderStreamProtocolError,
    ),
    "stream-unstarted-block-after-thinking": (
        ["system", "thinking", "error"],
        "API Error: Part of the response never arrived and no response was produced. Try again.",
        "server_error",
        ProviderStreamProtocolError,
    ),
    # Before any block finished, the CLI reports the cause in its own words, labelled
    # `unknown`: the invalid `data:` line right after `message_start` (non-streaming retry
    # off), and a clean end right after it: the stream broke its grammar too.
    "stream-bad-json": (
        ["system", "error"],
        "API Error: JSON Parse error: Expected '}'",
        "unknown",
        ProviderStreamProtocolError,
    ),
    "stream-end-after-start": (
        ["system", "error"],
        "API Error: Stream ended without receiving any events",
        "unknown",
        ProviderStreamProtocolError,
    ),
}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_the_recorded_early_end_is_typed_by_its_cause(name: str) -> None:
    kinds, text, label, family = RECORDED[name]
    chunks = replay(capture(name, VERSION))
    assert [c.type for c in chunks] == kinds
    assert chunks[-1].content == text
    error = ClaudeCodeEndpoint().stream_error(chunks[-1])
    assert type(error) is family, type(error)
    assert error.code == label


@pytest.mark.parametrize(
    "text",
    [
        # `StreamSuspendedError` once text had been shown, and once thinking only had.
        "API Error: Your computer went to sleep mid-response. The response above may be"
        " incomplete.",
        "API Error: Your computer went to sleep before a response was produced. Try again.",
        "Your computer went to sleep mid-response. The response above may be incomplete.",
        "Your computer went to sleep before a response was produced. Try again.",
    ],
)
def test_a_stream_cut_by_the_host_sleeping_is_the_disconnect_twin(text: str) -> None:
    error = error_for(text)
    assert type(error) is ProviderStreamDisconnectError, type(error)
    assert (error.kind, error.code) == ("stream_disconnect", "server_error")


@pytest.mark.parametrize(
    "text",
    [
        # The words quoted later in a message, e.g. a tool's or the model's own text.
        "The tool said: Your computer went to sleep mid-response.",
        "Note: your computer went to sleep before a response was produced.",
        # The same opening words that name no cut stream.
        "Your computer went to sleep at 3am and the backup resumed later.",
        # The CLI's generic text for the same error, which its first-byte watchdog also raises
        # before any response header arrived: not known to be a cut stream.
        "API Error: Connection lost while your computer was asleep",
    ],
)
def test_the_words_elsewhere_are_not_the_disconnect(text: str) -> None:
    assert not isinstance(error_for(text), ProviderDisconnectError)


def test_on_stderr_the_sleep_text_is_the_family_itself() -> None:
    classifier = ClaudeCodeEndpoint().stderr_classifier()
    assert classifier is not None
    text = "API Error: Your computer went to sleep mid-response. The response above may be"
    error = classifier(f"{text} incomplete.", returncode=1)
    assert type(error) is ProviderDisconnectError


@pytest.mark.parametrize(
    "code",
    ["ZlibError", "BrotliDecompressionError", "ZstdDecompressionError", "InvalidHTTPResponse"],
)
def test_a_body_that_could_not_be_decoded_is_the_protocol_twin(code: str) -> None:
    # 2.1.332's words for a response body its HTTP client could not decode (bundled source
    # only: the client asks for no compression a loopback server would send), labelled
    # `unknown`; with or without the hint it adds outside a gateway.
    for text in (
        f"API Error: The response could not be read ({code}). Try again.",
        f"API Error: The response could not be read ({code}). Try again. If it keeps happening,"
        " check any proxy or gateway between Claude Code and the API.",
    ):
        chunk = StreamChunk("error", text, is_error=True, metadata={"code": "unknown"})
        error = ClaudeCodeEndpoint().stream_error(chunk)
        assert type(error) is ProviderStreamProtocolError, type(error)
        assert isinstance(error, ProviderProtocolError)
        assert error.kind == "stream_malformed"
        assert not is_retryable(error, AttemptPolicy())


@pytest.mark.parametrize(
    "text",
    [
        # A tool's or the model's own words, quoted after the start of the message.
        "Bash failed: JSON Parse error: Unexpected identifier",
        "The script printed: Stream ended without receiving any events",
        # The same opening words about something other than the API's answer.
        "The response could not be read aloud by the tool.",
    ],
)
def test_the_malformed_words_elsewhere_are_not_the_protocol_twin(text: str) -> None:
    assert not isinstance(error_for(text), ProviderProtocolError)


def test_on_stderr_a_malformed_stream_is_the_family_itself() -> None:
    classifier = ClaudeCodeEndpoint().stderr_classifier()
    assert classifier is not None
    error = classifier("API Error: The response stream was malformed. Try again.", returncode=1)
    assert type(error) is ProviderProtocolError

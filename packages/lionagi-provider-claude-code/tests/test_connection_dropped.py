"""Claude Code's "Connection dropped (<code>)" is the connection twin, not a stream disconnect.

2.1.332 prints "Connection dropped (ECONNRESET)" (and EPIPE, ECONNABORTED, ConnectionClosed,
ERR_SOCKET_CLOSED, UND_ERR_SOCKET, Malformed_HTTP_Response) for the Anthropic SDK's
``APIConnectionError``, message "Connection error.": its bundled source maps that error to these
words outside a diskless session, and to "Unable to connect to API (ECONNRESET)" inside one,
which the adapter already reads as the connection family. The SDK throws it when the request
got no response at all. A stream cut once the answer had started is worded otherwise:
"Connection to the API was lost (...)" or "Connection lost mid-response", still the
disconnect twin. The reset text was the disconnect twin (never retried) because of its
ECONNRESET; it is now ``ProviderStreamConnectionError`` like "Can't reach the API server".

Recorded from the real 2.1.332 (``captures/2.1.332/``, see its README) against a loopback
server that resets the connection (``SO_LINGER`` 0): on reading the request
(``connection-reset``); after a complete text block, when the CLI's continuation request is the
one reset (``connection-reset-after-text``: a later request failing to connect after output, as
a later turn can, which core never re-runs); and mid-stream (``stream-reset``).
"""

from __future__ import annotations

import pytest
from claude_captures import capture, error_for, replay

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.service import (
    ProviderConnectionError,
    ProviderDisconnectError,
    ProviderStreamConnectionError,
    ProviderStreamDisconnectError,
)

VERSION = "2.1.332"


def test_a_request_reset_before_any_response_is_the_connection_twin() -> None:
    chunks = replay(capture("connection-reset", VERSION))
    assert [c.type for c in chunks] == ["system", "error"]
    assert (chunks[-1].content or "").startswith("API Error: Connection dropped (ECONNRESET)")
    error = ClaudeCodeEndpoint().stream_error(chunks[-1])
    assert type(error) is ProviderStreamConnectionError, type(error)
    assert (error.kind, error.code) == ("connection", "server_error")
    assert error.retryable


def test_a_continuation_reset_after_text_is_the_connection_twin_too() -> None:
    chunks = replay(capture("connection-reset-after-text", VERSION))
    assert [c.type for c in chunks] == ["system", "text", "error"]
    error = ClaudeCodeEndpoint().stream_error(chunks[-1])
    assert type(error) is ProviderStreamConnectionError, type(error)


def test_a_reset_stream_stays_a_disconnect() -> None:
    chunks = replay(capture("stream-reset", VERSION))
    assert (chunks[-1].content or "").startswith("API Error: Connection to the API was lost")
    assert type(ClaudeCodeEndpoint().stream_error(chunks[-1])) is ProviderStreamDisconnectError


@pytest.mark.parametrize(
    "text",
    [
        "API Error: Connection dropped (ECONNRESET)",
        "API Error: Connection dropped (ECONNRESET). A VPN, firewall, or security software can "
        "cause this. Check those or switch networks, then try again.",
        "API Error: Connection dropped (EPIPE)",
        "API Error: Connection dropped (ECONNABORTED)",
        "API Error: Connection dropped (ConnectionClosed)",
        "API Error: Connection dropped (ERR_SOCKET_CLOSED)",
        "API Error: Connection dropped (UND_ERR_SOCKET)",
        "API Error: Connection dropped (Malformed_HTTP_Response)",
    ],
)
def test_every_code_of_the_wording_is_the_connection_twin(text: str) -> None:
    error = error_for(text)
    assert type(error) is ProviderStreamConnectionError, type(error)
    assert not isinstance(error, ProviderDisconnectError)


def test_the_remote_session_notice_without_a_code_is_not_this_rule() -> None:
    """The CLI's own bridge notice ("Connection dropped. Reconnecting (1 of 5)…") names no code."""
    assert not isinstance(
        error_for("Connection dropped. Reconnecting (1 of 5)…"), ProviderConnectionError
    )


def test_on_stderr_the_same_text_is_the_family_itself() -> None:
    classifier = ClaudeCodeEndpoint().stderr_classifier()
    assert classifier is not None
    error = classifier("API Error: Connection dropped (ECONNRESET)", returncode=1)
    assert type(error) is ProviderConnectionError

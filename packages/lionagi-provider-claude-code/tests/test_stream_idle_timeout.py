"""Claude Code's stream watchdogs end an idle answer: the disconnect twin, as "Request timed out".

2.1.332 watches a streamed answer twice: a byte watchdog on the response body and an event
watchdog on its events. When either fires, the provider had answered (response headers, often
`message_start` and more), and the client gave up waiting: a client's own timeout once the
provider was reached, which core files under the disconnect family, never retried. The CLI
words it four ways, labelled `unknown` or `server_error`; untyped, they were a plain
`ProviderStreamError` or the retryable server-fault twin.

Recorded from the real 2.1.332 (`captures/2.1.332/stream-idle-*.jsonl`, see the README) against
a loopback server that answers `POST /v1/messages` with 200 and SSE headers, sends some of an
answer or none, then nothing, with `CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS=10000` (the CLI's
floor). `CLAUDE_STREAM_IDLE_TIMEOUT_MS` cannot be lowered below its 300000 default (the CLI
ignores smaller values), and with the defaults the same server took 608 s to fail, in words
the timeout rule already reads (`stream-idle-default.jsonl`).
"""

from __future__ import annotations

import pytest
from claude_captures import capture, error_for, replay

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.service import (
    ProviderDisconnectError,
    ProviderServerFaultError,
    ProviderStreamConnectionError,
    ProviderStreamDisconnectError,
)

VERSION = "2.1.332"

# capture -> (chunk kinds the adapter yields, the error text, the CLI's label)
RECORDED = {
    # Headers only: the byte watchdog ends the stream, then the CLI's non-streaming retry.
    "stream-idle-no-bytes": (
        ["system", "error"],
        "API Error: stream idle: no bytes for 10000ms",
        "unknown",
    ),
    # `message_start` only, with the non-streaming retry off.
    "stream-idle-no-fallback": (
        ["system", "error"],
        "API Error: Stream idle timeout - no chunks received",
        "unknown",
    ),
    # A whole text block, then nothing: the CLI asks three times for the rest, then gives up.
    "stream-idle-after-text": (
        ["system", "text", "text", "text", "text", "error"],
        "API Error: The response stopped arriving. The response above may be incomplete.",
        "server_error",
    ),
    # A whole thinking block, then nothing: no visible output yet.
    "stream-idle-after-thinking": (
        ["system", "thinking", "error"],
        "API Error: The response stalled before a response was produced. Try again.",
        "server_error",
    ),
}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_the_recorded_idle_stream_is_the_disconnect_twin(name: str) -> None:
    kinds, text, label = RECORDED[name]
    chunks = replay(capture(name, VERSION))
    assert [c.type for c in chunks] == kinds
    assert chunks[-1].content == text
    error = ClaudeCodeEndpoint().stream_error(chunks[-1])
    assert type(error) is ProviderStreamDisconnectError, type(error)
    assert (error.kind, error.code) == ("stream_disconnect", label)
    assert not isinstance(error, (ProviderServerFaultError, ProviderStreamConnectionError))


@pytest.mark.parametrize(
    "text",
    [
        # The event watchdog once blocks had been yielded, with the non-streaming retry off.
        "API Error: Stream idle timeout - partial response received",
        # The byte watchdog's first-party default (180 s), and its bare message.
        "API Error: stream idle: no bytes for 180000ms",
        "stream idle: no bytes for 10000ms",
        # `ConnectionIdleError`'s own message, which print mode words as "Request timed out".
        "No data arrived within the connection idle limit",
        "API Error: No data arrived within the connection idle limit",
    ],
)
def test_the_source_wordings_are_the_disconnect_twin(text: str) -> None:
    error = error_for(text)
    assert type(error) is ProviderStreamDisconnectError, type(error)


@pytest.mark.parametrize(
    "text",
    [
        # The CLI's file-store download, which is no API request.
        "read stalled: no bytes for 60000ms",
        # The words quoted later in a message, e.g. a model's or a hook's own text.
        "The tool said: Stream idle timeout - no chunks received",
        "The tool said: no data arrived within the connection idle limit",
    ],
)
def test_the_words_elsewhere_in_a_message_are_not_the_disconnect(text: str) -> None:
    assert not isinstance(error_for(text), ProviderDisconnectError)


def test_on_stderr_the_same_text_is_the_family_itself() -> None:
    classifier = ClaudeCodeEndpoint().stderr_classifier()
    assert classifier is not None
    error = classifier("API Error: stream idle: no bytes for 10000ms", returncode=1)
    assert type(error) is ProviderDisconnectError

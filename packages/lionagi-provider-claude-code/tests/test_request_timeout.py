"""Claude Code's "Request timed out" is the disconnect twin, as pi's "Request timed out." is.

2.1.332 prints it for the Anthropic SDK's `APIConnectionTimeoutError` (the SDK's own timer,
`API_TIMEOUT_MS`, cleared once response headers arrive) and for its connection idle watchdog,
labelled `server_error`, which made it the server-fault twin. The request had been sent, so the
provider may have been reached and may still be working: a timeout, not "could not connect" and
not a fault the server reported. Core's family for a client's own timeout is the disconnect one,
never retried.

Recorded from the real 2.1.332 (`captures/2.1.332/request-timeout.jsonl`, see the README)
against a loopback server that reads `POST /v1/messages` whole and never answers, with
`API_TIMEOUT_MS=5000`: the CLI gave up after 5 s with one request (retries off); and with no
timeout set (`request-idle-timeout.jsonl`), when the CLI's idle watchdog gave up after 360 s.
The other wordings are the CLI's bundled source: the bare text outside print mode and a
socket's ETIMEDOUT ("API Error: ...").
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


def test_the_recorded_sdk_timeout_is_the_disconnect_twin() -> None:
    chunks = replay(capture("request-timeout", VERSION))
    assert [c.type for c in chunks] == ["system", "error"]
    assert chunks[-1].content == (
        "Request timed out. If the API is slow to answer, or a proxy or gateway holds "
        "responses, set API_TIMEOUT_MS above 5000."
    )
    error = ClaudeCodeEndpoint().stream_error(chunks[-1])
    assert type(error) is ProviderStreamDisconnectError, type(error)
    assert (error.kind, error.code) == ("stream_disconnect", "server_error")
    assert not isinstance(error, (ProviderServerFaultError, ProviderStreamConnectionError))


def test_the_recorded_idle_timeout_with_default_settings_is_the_disconnect_twin() -> None:
    """With no timeout set, as the adapter runs it, the idle watchdog fires first (360 s)."""
    chunks = replay(capture("request-idle-timeout", VERSION))
    assert [c.type for c in chunks] == ["system", "error"]
    assert (chunks[-1].content or "").startswith(
        "Request timed out. No data arrived for more than 5 minutes."
    )
    error = ClaudeCodeEndpoint().stream_error(chunks[-1])
    assert type(error) is ProviderStreamDisconnectError, type(error)


@pytest.mark.parametrize(
    "text",
    [
        # Outside print mode (a diskless or remote session): the constant alone.
        "Request timed out",
        # Print mode without API_TIMEOUT_MS set.
        "Request timed out. If the API is slow to answer, or a proxy or gateway holds "
        "responses, set API_TIMEOUT_MS above the limit in force (600000 by default).",
        # The idle watchdog (`ConnectionIdleError`, recorded above), which can fire mid-answer.
        "Request timed out. No data arrived for more than 5 minutes. If a proxy or gateway on "
        "your network holds responses until they complete, set CLAUDE_STREAM_IDLE_TIMEOUT_MS "
        "above the limit in force (300000 by default, up to 1800000), and API_TIMEOUT_MS at "
        "least as high.",
        # A socket's ETIMEDOUT (and Bun's ConnectionIdle code) under the SDK's connection error.
        "API Error: Request timed out",
        "API Error: Request timed out. Check your internet connection and proxy settings",
    ],
)
def test_every_wording_of_the_timeout_is_the_disconnect_twin(text: str) -> None:
    error = error_for(text)
    assert type(error) is ProviderStreamDisconnectError, type(error)


@pytest.mark.parametrize(
    "text",
    [
        # The Bash tool's own timeout, and the MCP SDK's for a tool call.
        "Command timed out after 2m 0s",
        "MCP error -32001: Request timed out",
        # The CLI's plugin download, which is no API request.
        "Request timed out while downloading marketplace from https://example.com/m.json. The "
        "server may be slow or unreachable.",
        # The words quoted later in a message, e.g. a model's or a hook's own text.
        "The tool said: Request timed out.",
    ],
)
def test_other_timed_out_texts_are_not_the_disconnect(text: str) -> None:
    assert not isinstance(error_for(text), ProviderDisconnectError)


def test_on_stderr_the_same_text_is_the_family_itself() -> None:
    classifier = ClaudeCodeEndpoint().stderr_classifier()
    assert classifier is not None
    error = classifier("Request timed out. If the API is slow to answer", returncode=1)
    assert type(error) is ProviderDisconnectError

"""Claude Code that cannot reach its API raises ``ProviderStreamConnectionError``.

It was a plain ``ProviderStreamError`` in 2.1.197 ("Unable to connect to API
(ConnectionRefused)") and, in 2.1.332, the server-fault twin: the CLI labels the message
``server_error`` ("Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)").
Nothing answered the request, so it is core's connection family (a ``ProviderConnectionError``),
never the disconnect family a stream cut mid-answer is.

Recorded texts: the ``server-down`` captures of both versions, and 2.1.332 against a host name
that does not resolve (``nohost.invalid``) and an address with no route (``[2001:db8::1]``). The
catch-all forms ("Unable to connect to API (<code>)", "... Check your internet connection",
"(FailedToOpenSocket)") are 2.1.332's own wording for the codes it has no sentence for, read from
its bundled source. The CLI retries a refused connection itself (10 times over about three
minutes by default); an isolated home sets ``CLAUDE_CODE_MAX_RETRIES=0``, so the run fails at once.
"""

from __future__ import annotations

import time

import pytest
from claude_captures import capture, error_for, replay

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.providers.claude_code._endpoint import CLAUDE_ERROR_PATTERNS
from lionagi.service import (
    EventStatus,
    ProviderConnectionError,
    ProviderDisconnectError,
    ProviderStreamConnectionError,
    ProviderStreamDisconnectError,
    ProviderStreamError,
    StreamChunk,
    iModel,
)
from lionagi.service_testing.real_clis import require_real_cli
from lionagi.service_testing.real_tier import collect_into, isolated_model

RECORDED = [
    "API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)",
    "API Error: Can't reach the API server — check your internet or DNS (ENOTFOUND)",
    "API Error: No internet route — check your connection or VPN (EHOSTUNREACH)",
    "API Error: Unable to connect to API (ConnectionRefused)",  # 2.1.197
]
# 2.1.332's wording for the other codes of the SDK's "Connection error." (no response at all).
SOURCE_FORMS = [
    "API Error: Can't reach the API server — check your internet or DNS (FailedToOpenSocket)",
    "API Error: Can\u2019t reach the API server — check your internet or DNS (EAI_AGAIN)",
    "API Error: Unable to connect to API (ETIMEDOUT)",
    "API Error: Unable to connect to API. Check your internet connection",
    "API Error: Unable to connect to API",
]
NOT_CONNECTION = [
    # TLS and captive-portal failures: a retry does not fix them.
    "API Error: Unable to connect to API: SSL certificate has expired",
    "API Error: Unable to connect to API: Self-signed certificate detected in certificate chain",
    "API Error: Unable to connect to API: sign in to network or proxy. The request was redirected "
    "(RedirectRefused).",
    "API Error: Couldn't connect through your proxy (ERR_PROXY_TUNNEL) — the proxy refused the "
    "tunnel: check its credentials and that it allows this host",
]
DISCONNECTS = [
    "API Error: Connection lost mid-response. The response above may be incomplete.",
    # Printed only once a block of the answer had arrived that shows no text (a thinking
    # block): the provider answered, then the stream was cut (``stream-end-after-thinking``).
    "API Error: Connection lost before a response was produced. Try again.",
    "API Error: Connection to the API was lost (ECONNRESET). This is usually temporary — try "
    "again.",
]


@pytest.mark.parametrize("version", ["", "2.1.332"], ids=["2.1.197", "2.1.332"])
def test_the_server_down_captures_are_the_connection_twin(version: str) -> None:
    events = capture("server-down", version)
    chunks = replay(events)
    assert [c.type for c in chunks] == ["system", "error"]
    error = ClaudeCodeEndpoint().stream_error(chunks[-1])
    assert type(error) is ProviderStreamConnectionError, type(error)
    assert error.kind == "connection"
    assert error.code == "server_error"  # the CLI's label is kept; it no longer decides
    assert error.retryable


@pytest.mark.parametrize("text", RECORDED + SOURCE_FORMS)
def test_could_not_connect_texts_are_the_connection_twin(text: str) -> None:
    error = error_for(text)
    assert type(error) is ProviderStreamConnectionError, type(error)
    assert error.kind == "connection"


@pytest.mark.parametrize("text", NOT_CONNECTION)
def test_tls_and_proxy_refusals_are_not_the_connection_family(text: str) -> None:
    assert not isinstance(error_for(text), ProviderConnectionError)


@pytest.mark.parametrize("text", DISCONNECTS)
def test_a_lost_connection_stays_a_disconnect(text: str) -> None:
    assert type(error_for(text)) is ProviderStreamDisconnectError


def test_on_stderr_the_same_text_is_the_family_itself() -> None:
    classifier = ClaudeCodeEndpoint().stderr_classifier()
    assert classifier is not None
    error = classifier("Unable to connect to API (ConnectionRefused)", returncode=1)
    assert type(error) is ProviderConnectionError
    assert not isinstance(error, ProviderDisconnectError)


def test_the_vendor_rule_precedes_the_disconnect_rule() -> None:
    """ "Unable to connect to API (ECONNRESET)": a request that got no response at all."""
    kinds = [rule.kind for rule in CLAUDE_ERROR_PATTERNS]
    assert kinds.index("connection") < kinds.index("stream_disconnect")
    assert type(error_for("API Error: Unable to connect to API (ECONNRESET)")) is (
        ProviderStreamConnectionError
    )


# -- the real binary ------------------------------------------------------------------------------

CALL_DEADLINE = 60.0
FAKE_KEY = "sk-ant-fake-gateway-key-0123456789"


def _model(gateway: str, marker: str) -> iModel:
    claude = require_real_cli("claude")
    return isolated_model("claude_code/sonnet", claude, gateway, marker, api_key=FAKE_KEY)


async def _stream(model: iModel) -> tuple[list[StreamChunk], BaseException | None]:
    chunks: list[StreamChunk] = []
    try:
        await collect_into(model, chunks, deadline=CALL_DEADLINE, prompt="hi")
    except ProviderStreamError as exc:
        return chunks, exc
    return chunks, None


@pytest.mark.real_cli
@pytest.mark.timeout(180)
async def test_an_unresolvable_gateway_host_is_the_connection_twin(real_cli_marker: str) -> None:
    """Assumes the resolver answers ``.invalid`` names negatively (RFC 6761), as they must."""
    started = time.monotonic()
    async with _model("http://nohost.invalid:8080", real_cli_marker) as model:
        chunks, error = await _stream(model)
        call = await model.invoke(prompt="hi", timeout=CALL_DEADLINE)
    assert time.monotonic() - started < 2 * CALL_DEADLINE
    assert type(error) is ProviderStreamConnectionError, repr(error)
    assert "ENOTFOUND" in str(error) or "EAI_AGAIN" in str(error), str(error)
    assert [c.type for c in chunks].count("error") == 1
    assert not any(c.type in ("text", "tool_use") for c in chunks)
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderStreamConnectionError
    assert FAKE_KEY not in str(error)

"""An agentic CLI that cannot reach its API raises a typed, retry-aware connection error.

When the API behind a CLI refused the connection (or its host did not resolve, or had no
route), the run ended as a plain ``ProviderStreamError`` (codex and Gemini CLI: the disconnect
twin, which means "a stream cut after it started" and is never retried; Claude Code 2.1.332: the
server-fault twin, because the CLI labels it ``server_error``). A refused connection is another
fact: nothing answered. It is now ``ProviderStreamConnectionError``, a ``ProviderStreamError``
and a ``ProviderConnectionError`` (retryable like an HTTP connect failure), and core's no-replay
boundary keeps an agentic run from being re-run once it produced anything.

The texts are the real CLIs' (Claude Code 2.1.332, codex 0.171.0, Gemini CLI 0.61.0, pi
0.73.1), recorded against a closed loopback port, a ``.invalid`` host name and an address with
no route.
"""

from __future__ import annotations

import pickle
from collections.abc import AsyncIterator, Mapping
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, ConfigDict

import lionagi.service as service
from lionagi.service import (
    AgenticCapabilities,
    AgenticEndpoint,
    AttemptPolicy,
    EventStatus,
    ProviderConnectionError,
    ProviderDisconnectError,
    ProviderStreamCapacityError,
    ProviderStreamConnectionError,
    ProviderStreamDisconnectError,
    ProviderStreamError,
    ProviderStreamServerError,
    StreamChunk,
    classify_provider_error,
    classify_stream_error,
    iModel,
)
from lionagi.service._lifecycle.retry import counts_as_circuit_failure, is_retryable
from lionagi.service._transport.classify import DEFAULT_ERROR_PATTERNS, STREAM_ERROR_CLASSES

# What each CLI printed (the error chunk's text, and the metadata its adapter carries).
CLAUDE_REFUSED = (
    "API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)"
)
CLAUDE_NO_DNS = "API Error: Can't reach the API server — check your internet or DNS (ENOTFOUND)"
CLAUDE_NO_ROUTE = "API Error: No internet route — check your connection or VPN (EHOSTUNREACH)"
CLAUDE_META = {"code": "server_error", "type": "success"}

# Core's phrases alone (no vendor rule): texts in the words several CLIs and runtimes share.
CONNECTION_TEXTS = [
    (CLAUDE_REFUSED, CLAUDE_META),
    (CLAUDE_NO_DNS, CLAUDE_META),
    (CLAUDE_NO_ROUTE, CLAUDE_META),
    # Node's own messages (Gemini CLI's OAuth path through gaxios, a CLI's stderr).
    ("request to http://127.0.0.1:9/v1 failed, reason: connect ECONNREFUSED 127.0.0.1:9", {}),
    ("getaddrinfo ENOTFOUND nohost.invalid", {}),
    ("getaddrinfo EAI_AGAIN api.example.com", {}),
    ("connect ENETUNREACH 2001:db8::1:443", {}),
    # Rust's and Python's words for a refused connection.
    ("tcp connect error: Connection refused (os error 111)", {}),
    ("[Errno 111] Connection refused", {}),
]

# Texts that are not "could not connect": a stream cut after it started, a timeout, a reset.
NOT_CONNECTION_TEXTS = [
    "stream disconnected before completion",
    # codex's reconnect loop quotes the cause, but reports a stream that dropped.
    "Reconnecting... 5/5 (stream disconnected before completion: error sending request for url "
    "(http://127.0.0.1:9/v1/responses): tcp connect error: Connection refused (os error 111))",
    "API Error: Connection to the API was lost (ECONNRESET). This is usually temporary — try "
    "again.",
    "API Error: Connection dropped (ECONNRESET)",
    "[API Error: terminated]",
    "terminated",
    "socket hang up",
    "Request timed out.",
    "API Error: Connection lost before a response was produced. Try again.",
    # TLS and proxy refusals: a retry does not fix them.
    "API Error: Unable to connect to API: SSL certificate has expired",
    "API Error: Couldn't connect through your proxy (ERR_PROXY_TUNNEL) — the proxy refused the "
    "tunnel: check its credentials and that it allows this host",
    # A word that merely contains a code's letters.
    "XECONNREFUSEDX is not a code",
]


# -- the class ------------------------------------------------------------------------------------


def test_the_twin_is_a_stream_error_and_a_connection_error_but_not_a_disconnect() -> None:
    assert issubclass(ProviderStreamConnectionError, ProviderStreamError)
    assert issubclass(ProviderStreamConnectionError, ProviderConnectionError)
    assert not issubclass(ProviderStreamConnectionError, ProviderDisconnectError)
    assert ProviderStreamConnectionError.retryable is ProviderConnectionError.retryable is True
    assert ProviderStreamConnectionError.__module__ == "lionagi.service._base.errors"


def test_the_twin_is_a_public_name() -> None:
    assert "ProviderStreamConnectionError" in service.__all__
    assert "ProviderStreamConnectionError" in dir(service)
    assert service.ProviderStreamConnectionError is ProviderStreamConnectionError


def test_the_twin_pickles_with_its_fields() -> None:
    err = ProviderStreamConnectionError(
        "refused", raw="r", status=None, code="server_error", provider="claude", kind="connection"
    )
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is ProviderStreamConnectionError
    assert (str(back), back.raw, back.code, back.provider, back.kind) == (
        "refused",
        "r",
        "server_error",
        "claude",
        "connection",
    )


def test_the_connection_family_has_its_twin_and_the_disconnect_keeps_its_own() -> None:
    assert STREAM_ERROR_CLASSES[ProviderConnectionError] is ProviderStreamConnectionError
    assert STREAM_ERROR_CLASSES[ProviderDisconnectError] is ProviderStreamDisconnectError
    kinds = [rule.kind for rule in DEFAULT_ERROR_PATTERNS]
    # After the disconnect rule: a disconnect text that quotes a refused connection stays one.
    assert kinds.index("stream_disconnect") < kinds.index("connection")


# -- classification -------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "metadata"), CONNECTION_TEXTS)
def test_could_not_connect_texts_are_the_connection_twin(
    text: str, metadata: Mapping[str, Any]
) -> None:
    err = classify_stream_error(text, metadata, provider="cli")
    assert type(err) is ProviderStreamConnectionError, type(err)
    assert err.kind == "connection"
    assert err.retryable


def test_a_server_error_label_does_not_hide_a_refused_connection() -> None:
    """Claude Code labels its refused connection ``server_error``: the text names it first."""
    err = classify_stream_error(CLAUDE_REFUSED, CLAUDE_META)
    assert not isinstance(err, ProviderStreamServerError)
    assert isinstance(err, ProviderStreamConnectionError)
    assert err.code == "server_error"


@pytest.mark.parametrize(
    ("status", "family"), [(502, ProviderStreamServerError), (503, ProviderStreamCapacityError)]
)
def test_a_chunk_reporting_a_status_is_never_the_connection_family(
    status: int, family: type[ProviderStreamError]
) -> None:
    """A status is the provider's answer: a gateway relaying its upstream's refusal is a fault.

    Its retry then follows ``retry_server_errors``, as the same status over HTTP does.
    """
    text = "upstream connect error: Connection refused (os error 111) (ECONNREFUSED)"
    err = classify_stream_error(text, {"status": status, "code": "upstream_error"})
    assert type(err) is family
    assert not isinstance(err, ProviderConnectionError)
    assert err.status == status


@pytest.mark.parametrize(("text", "metadata"), CONNECTION_TEXTS)
def test_could_not_connect_on_stderr_is_the_connection_family(
    text: str, metadata: Mapping[str, Any]
) -> None:
    err = classify_provider_error(text, returncode=1, provider="cli")
    assert type(err) is ProviderConnectionError, type(err)
    assert err.returncode == 1
    assert str(err).startswith("cli: could not connect to the provider (exit code 1): ")


@pytest.mark.parametrize("text", NOT_CONNECTION_TEXTS)
def test_other_failures_are_never_the_connection_family(text: str) -> None:
    assert not isinstance(classify_stream_error(text), ProviderStreamConnectionError)
    error = classify_provider_error(text)
    assert not (
        isinstance(error, ProviderConnectionError)
        and not isinstance(error, ProviderDisconnectError)
    ), type(error)


def test_a_stream_disconnect_quoting_a_refused_connection_stays_a_disconnect() -> None:
    text = NOT_CONNECTION_TEXTS[1]
    assert type(classify_stream_error(text)) is ProviderStreamDisconnectError
    assert type(classify_provider_error(text)) is ProviderDisconnectError


def test_a_vendor_subclass_of_the_family_maps_to_the_twin() -> None:
    from lionagi.service.agentic import ProviderErrorPattern

    class VendorUnreachable(ProviderConnectionError):
        pass

    rule = ProviderErrorPattern("connection", VendorUnreachable, r"vendor offline")
    err = classify_stream_error("vendor offline", extra_patterns=(rule,))
    assert type(err) is ProviderStreamConnectionError


# -- retry ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("retry_server_errors", [True, False])
def test_the_twin_is_retried_before_output_like_an_http_connect_failure(
    retry_server_errors: bool,
) -> None:
    policy = AttemptPolicy(retry_server_errors=retry_server_errors)
    err = classify_stream_error(CLAUDE_REFUSED, CLAUDE_META)
    assert is_retryable(err, policy)
    assert is_retryable(ProviderConnectionError("connect refused"), policy)
    # The disconnect twin (a run cut after it started) still never is.
    assert not is_retryable(ProviderStreamDisconnectError("stream disconnected"), policy)
    assert counts_as_circuit_failure(err, policy)


async def _drain(model: iModel) -> None:
    async for _ in model.stream(prompt="x"):
        pass


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    prompt: str


class _Unreachable(AgenticEndpoint):
    """An in-process agent opted into retries whose API refuses the connection ``failures`` times.

    ``tool_first``: each run calls a tool (the side effect a second run would repeat) before its
    next turn fails to connect. ``as_chunk``: the failure is the CLI's error chunk (what every
    subprocess adapter yields), else the classified error is raised before any chunk.
    """

    capabilities = AgenticCapabilities(
        transport="in_process", resumable=False, emits_tool_events=True, reports_usage=False
    )
    request_type: ClassVar[type[BaseModel] | None] = _Request
    attempt_policy_options: ClassVar[Mapping[str, Any] | None] = {"base_delay": 0.0}

    def __init__(self, failures: int, *, tool_first: bool = False, as_chunk: bool = False) -> None:
        super().__init__(
            {"name": "unreachable", "provider": "unreachable", "endpoint": "run", "max_retries": 3}
        )
        self.failures = failures
        self.tool_first = tool_first
        self.as_chunk = as_chunk
        self.runs = 0
        self.tool_calls = 0

    async def _stream_agentic(
        self, request: BaseModel, *, runtime_args: dict[str, Any], local_timeout: float | None
    ) -> AsyncIterator[StreamChunk]:
        self.runs += 1
        if self.tool_first:
            self.tool_calls += 1
            yield StreamChunk(type="tool_use", tool_name="write_file", tool_id=f"t{self.runs}")
        if self.runs <= self.failures:
            if self.as_chunk:
                yield StreamChunk(
                    type="error", content=CLAUDE_REFUSED, is_error=True, metadata=CLAUDE_META
                )
                return
            raise classify_stream_error(CLAUDE_REFUSED, CLAUDE_META)
        yield StreamChunk(type="text", content="ok")


@pytest.mark.anyio
async def test_a_run_that_failed_to_connect_before_any_output_is_retried() -> None:
    endpoint = _Unreachable(2)
    async with iModel(endpoint=endpoint) as model:
        chunks = [c async for c in model.stream(prompt="x")]
    assert [c.content for c in chunks] == ["ok"]
    assert endpoint.runs == 3


@pytest.mark.anyio
async def test_a_run_that_ran_a_tool_before_failing_to_connect_is_not_re_run() -> None:
    endpoint = _Unreachable(1, tool_first=True)
    seen: list[str] = []

    async def consume(model: iModel) -> None:
        async for chunk in model.stream(prompt="x"):
            seen.append(chunk.type)

    async with iModel(endpoint=endpoint) as model:
        with pytest.raises(ProviderStreamConnectionError):
            await consume(model)
    assert seen == ["tool_use"]
    assert (endpoint.runs, endpoint.tool_calls) == (1, 1)


@pytest.mark.anyio
@pytest.mark.parametrize("tool_first", [False, True], ids=["no_output", "after_a_tool"])
async def test_a_cli_s_connection_error_chunk_ends_the_run_once(tool_first: bool) -> None:
    """The chunk reached the caller: past the replay boundary, even as the first chunk."""
    endpoint = _Unreachable(1, tool_first=tool_first, as_chunk=True)
    async with iModel(endpoint=endpoint) as model:
        with pytest.raises(ProviderStreamConnectionError) as info:
            await _drain(model)
    assert info.value.retryable  # the family's word; the run was not repeated
    assert endpoint.runs == 1


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool_first", "as_chunk"),
    [(False, False), (False, True), (True, True)],
    ids=["raised_first", "chunk_first", "chunk_after_a_tool"],
)
async def test_an_agentic_invoke_that_failed_to_connect_is_one_run(
    tool_first: bool, as_chunk: bool
) -> None:
    endpoint = _Unreachable(1, tool_first=tool_first, as_chunk=as_chunk)
    async with iModel(endpoint=endpoint) as model:
        call = await model.invoke(prompt="x")
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderStreamConnectionError), repr(call.exception)
    assert endpoint.runs == 1


class _RemoteRelaying(_Unreachable):
    """A remote agent that answers with the same text: a refusal behind it, not ours."""

    capabilities = AgenticCapabilities(
        transport="remote", resumable=False, emits_tool_events=True, reports_usage=False
    )


# -- a provider that was reached ------------------------------------------------------------------


def test_a_reached_provider_s_chunk_is_never_the_connection_family() -> None:
    err = classify_stream_error(CLAUDE_REFUSED, CLAUDE_META, reached=True)
    assert type(err) is ProviderStreamServerError  # its server_error label decides
    plain = classify_stream_error("dial tcp 10.0.0.7:11434: connect: connection refused", {})
    assert isinstance(plain, ProviderStreamConnectionError)
    relayed = classify_stream_error(
        "dial tcp 10.0.0.7:11434: connect: connection refused", {}, reached=True
    )
    assert type(relayed) is ProviderStreamError


@pytest.mark.anyio
async def test_a_remote_agent_s_chunk_quoting_a_refusal_is_not_the_connection_family() -> None:
    endpoint = _RemoteRelaying(1, as_chunk=True)
    assert endpoint.error_chunks_are_answers
    assert not _Unreachable(1).error_chunks_are_answers
    async with iModel(endpoint=endpoint) as model:
        with pytest.raises(ProviderStreamError) as info:
            await _drain(model)
    assert not isinstance(info.value, ProviderConnectionError)
    assert endpoint.runs == 1

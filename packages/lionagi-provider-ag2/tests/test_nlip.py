"""NLIP: guard before client, one client per attempt, mapping, retries only via the policy."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag2_nlip_fixtures import ScriptedApp, asgi_transport, echo
from nlip_sdk.nlip import NLIP_Factory, NLIP_Message

from lionagi.providers.ag2 import AG2NlipEndpoint, AG2NlipRequest
from lionagi.providers.ag2._nlip import nlip_result
from lionagi.service import (
    AgenticRequestValidationError,
    EndpointConfigurationError,
    ProviderClientError,
    ProviderConnectionError,
    ProviderProtocolError,
    ProviderServerError,
    UnsafeURLError,
    iModel,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _config(**extra: Any) -> dict[str, Any]:
    return {"name": "ag2-nlip", "provider": "ag2", "endpoint": "nlip", **extra}


async def pong(msg: NLIP_Message) -> NLIP_Message:
    return NLIP_Factory.create_text(f"pong: {msg.extract_text()}")


async def test_in_process_nlip_server_app() -> None:
    """nlip-server's real FastAPI app served in-process through httpx's ASGI transport."""
    endpoint = AG2NlipEndpoint(
        _config(base_url="http://nlip.test", allow_local_network=True),
        transport=asgi_transport(ScriptedApp(pong)),
    )
    chunks = [c async for c in iModel(endpoint=endpoint).stream(prompt="ping")]
    assert [c.type for c in chunks] == ["text", "result"]
    assert chunks[-1].metadata["nlip"] == {
        "content": "pong: ping",
        "context": None,
        "input_required": None,
    }
    assert endpoint.clients_opened == endpoint.clients_closed == 1


@pytest.mark.timeout(300)
def test_the_command_line_reaches_a_remote_nlip_agent(nlip_server: str) -> None:
    # ag2's endpoints take no model name: `chat` takes the provider alone and the endpoint by
    # flag, what the Python API writes iModel(provider="ag2", endpoint="nlip", base_url=...).
    cli = [sys.executable, "-m", "lionagi.service.cli", "chat"]
    flags = ["--endpoint", "nlip", "--base-url", nlip_server, "--allow-local-network"]
    done = subprocess.run(
        [*cli, "ag2", "ping", *flags], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stdout) == (0, "pong: ping\n"), done.stderr
    # A model name for such a provider is refused with the spelling that works.
    wrong = subprocess.run(
        [*cli, "ag2/agent", "ping"], capture_output=True, text=True, timeout=120, check=False
    )
    assert wrong.returncode == 2
    assert "chat ag2 PROMPT --endpoint E (endpoints: agent, group_chat, nlip)" in wrong.stderr
    assert "iModel(" not in wrong.stderr


@pytest.fixture(scope="module")
def nlip_server() -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    script = Path(__file__).with_name("ag2_nlip_server.py")
    proc = subprocess.Popen([sys.executable, str(script), str(port)])
    try:
        deadline = time.monotonic() + 120  # generous: the machine is shared
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/health", timeout=1.0)
                break
            except httpx.TransportError:
                assert proc.poll() is None, "NLIP server exited"
                assert time.monotonic() < deadline, "NLIP server did not start"
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.timeout(300)
async def test_real_nlip_server_process(nlip_server: str) -> None:
    endpoint = AG2NlipEndpoint(_config(allow_local_network=True))
    chunks = [c async for c in iModel(endpoint=endpoint).stream(prompt="ping", url=nlip_server)]
    assert chunks[0].content == "pong: ping"
    assert chunks[-1].metadata["nlip"]["content"] == "pong: ping"
    assert endpoint.clients_opened == endpoint.clients_closed == 1


@pytest.mark.timeout(300)
async def test_request_connects_to_the_address_the_guard_resolved(nlip_server: str) -> None:
    """The guard's answer is pinned: the name is never resolved a second time to connect.

    Regression: the endpoint checked the URL and then let httpx resolve the host again, so a
    DNS answer that changed between the two lookups (rebinding) chose the destination. Here
    only the injected resolver knows ``nlip.internal``; the request reaches the real server
    because the connect uses the resolver's answer, and each attempt resolves exactly once.
    """
    port = nlip_server.rsplit(":", 1)[1]
    asked: list[str] = []

    async def resolver(host: str, port: int) -> list[str]:
        asked.append(host)
        return ["127.0.0.1"]

    endpoint = AG2NlipEndpoint(_config(allow_local_network=True), resolver=resolver)
    url = f"http://nlip.internal:{port}"
    chunks = [c async for c in iModel(endpoint=endpoint).stream(prompt="ping", url=url)]
    assert chunks[0].content == "pong: ping"
    assert asked == ["nlip.internal"]
    assert endpoint.clients_opened == endpoint.clients_closed == 1


@pytest.mark.timeout(300)
async def test_local_url_refused_without_opt_in_before_any_client(nlip_server: str) -> None:
    endpoint = AG2NlipEndpoint(_config())
    with pytest.raises(UnsafeURLError):
        [c async for c in iModel(endpoint=endpoint).stream(prompt="x", url=nlip_server)]
    assert endpoint.clients_opened == 0


@pytest.mark.parametrize("url", ["ftp://example.com", "file:///etc/passwd", "example.com"])
async def test_non_http_url_refused(url: str) -> None:
    endpoint = AG2NlipEndpoint(_config(allow_local_network=True))
    with pytest.raises(AgenticRequestValidationError) as info:
        [c async for c in endpoint.stream({"prompt": "x", "url": url})]
    assert info.value.field == "url"
    assert endpoint.clients_opened == 0


async def test_missing_url_or_prompt_fails_before_connection() -> None:
    endpoint = AG2NlipEndpoint(_config(allow_local_network=True))
    with pytest.raises(AgenticRequestValidationError, match="url"):
        [c async for c in endpoint.stream({"prompt": "x"})]
    with pytest.raises(AgenticRequestValidationError):
        endpoint.create_payload({"url": "http://127.0.0.1:1"})
    assert endpoint.clients_opened == 0


def test_max_attempts_must_be_positive() -> None:
    with pytest.raises((EndpointConfigurationError, ValueError)):
        AG2NlipEndpoint(_config(max_retries=0))


def test_client_kwargs_are_refused_not_dropped() -> None:
    # Every attempt builds its own pinned one-request client; headers or limits meant for a
    # shared client would never be applied, so the endpoint refuses them by name.
    with pytest.raises(EndpointConfigurationError) as bad:
        AG2NlipEndpoint(_config(client_kwargs={"headers": {"x-trace": "1"}}))
    assert bad.value.field == "client_kwargs"
    assert "headers" in str(bad.value)
    AG2NlipEndpoint(_config(client_kwargs={}))  # nothing to drop: accepted


class _Counting(httpx.AsyncBaseTransport):
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.calls = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer  # type: ignore[no-any-return]


def _model(transport: httpx.AsyncBaseTransport, attempts: int = 3) -> tuple[Any, iModel]:
    endpoint = AG2NlipEndpoint(
        _config(base_url="http://127.0.0.1:9", allow_local_network=True, max_retries=attempts),
        transport=transport,
    )
    return endpoint, iModel(endpoint=endpoint)


async def test_connect_errors_retried_by_the_attempt_policy_only() -> None:
    transport = _Counting(httpx.ConnectError("refused"))
    endpoint, model = _model(transport, attempts=2)
    with pytest.raises(ProviderConnectionError):
        [c async for c in model.stream(prompt="x")]
    assert transport.calls == 2  # max_attempts total, each one request: no inner loop
    assert endpoint.clients_opened == endpoint.clients_closed == 2


@pytest.mark.parametrize(
    ("status", "error"), [(500, ProviderServerError), (404, ProviderClientError)]
)
async def test_status_errors_not_retried(status: int, error: type[Exception]) -> None:
    transport = _Counting(httpx.Response(status, text="nope"))
    endpoint, model = _model(transport)
    with pytest.raises(error):
        [c async for c in model.stream(prompt="x")]
    assert transport.calls == 1
    assert endpoint.clients_opened == endpoint.clients_closed == 1


async def test_invalid_response_not_retried() -> None:
    transport = _Counting(httpx.Response(200, json={"unexpected": True}))
    _, model = _model(transport)
    with pytest.raises(Exception, match="not a message"):
        [c async for c in model.stream(prompt="x")]
    assert transport.calls == 1


def test_mapping_context_and_input_required() -> None:
    # An error submessage saying INPUT_REQUIRED (AG2's client's reading), as wire JSON; AG2's own
    # server's shape is in test_nlip_input_required.py.
    body = {
        "format": "text",
        "subformat": "english",
        "content": "need more",
        "submessages": [
            {
                "format": "structured",
                "subformat": "json",
                "content": {"step": 2},
                "label": "ag2_context",
            },
            {"format": "error", "subformat": "text", "content": "INPUT_REQUIRED: which city?"},
        ],
    }
    assert nlip_result(body) == {
        "content": "need more",
        "context": {"step": 2},
        "input_required": "INPUT_REQUIRED: which city?",
    }


async def test_scripted_nlip_app_in_process() -> None:
    endpoint = AG2NlipEndpoint(
        _config(base_url="http://nlip.test", allow_local_network=True),
        transport=asgi_transport(ScriptedApp(echo)),
    )
    chunks = [c async for c in endpoint.stream(AG2NlipRequest(prompt="hi"))]
    assert chunks[0].content == "echo: hi"
    assert isinstance(NLIP_Message, type)


# -- URL shape, credentials, secrets in messages ---------------------------------------------


class _Recording(httpx.AsyncBaseTransport):
    """Answers every request with ``answer`` and keeps the requests it saw."""

    def __init__(self, answer: httpx.Response | Exception) -> None:
        self.answer = answer
        self.seen: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


_PONG = {"format": "text", "subformat": "english", "content": "pong"}


async def test_nlip_path_joined_onto_the_path_and_query_kept() -> None:
    transport = _Recording(httpx.Response(200, json=_PONG))
    endpoint = AG2NlipEndpoint(_config(allow_local_network=True), transport=transport)
    url = "http://nlip.test/agent/?tenant=acme"
    chunks = [c async for c in endpoint.stream({"prompt": "x", "url": url})]
    assert chunks[0].content == "pong"
    sent = transport.seen[0].url
    assert (sent.path, sent.query) == ("/agent/nlip/", b"tenant=acme")
    assert endpoint.target(AG2NlipRequest(prompt="x", url="http://h")) == "http://h/nlip/"


async def test_fragment_refused_naming_url() -> None:
    transport = _Recording(httpx.Response(200, json=_PONG))
    endpoint = AG2NlipEndpoint(_config(allow_local_network=True), transport=transport)
    with pytest.raises(AgenticRequestValidationError) as info:
        [c async for c in endpoint.stream({"prompt": "x", "url": "http://nlip.test/a#frag"})]
    assert info.value.field == "url"
    assert "fragment" in str(info.value)
    assert transport.seen == []
    assert endpoint.clients_opened == 0


async def test_url_with_credentials_refused_without_echoing_them() -> None:
    # httpx would send user:password as "Authorization: Basic"; NLIP sends no credential.
    transport = _Recording(httpx.Response(200, json=_PONG))
    endpoint = AG2NlipEndpoint(_config(allow_local_network=True), transport=transport)
    url = "http://bob:hunter2secret@nlip.test/agent"
    with pytest.raises(AgenticRequestValidationError) as info:
        [c async for c in endpoint.stream({"prompt": "x", "url": url})]
    assert info.value.field == "url"
    assert "credentials" in str(info.value)
    assert "hunter2secret" not in str(info.value)
    assert transport.seen == []
    assert endpoint.clients_opened == 0
    with pytest.raises(EndpointConfigurationError) as bad:
        AG2NlipEndpoint(_config(base_url=url))
    assert bad.value.field == "base_url"
    assert "hunter2secret" not in str(bad.value)


async def test_connection_error_message_redacts_query_values() -> None:
    transport = _Recording(httpx.ConnectError("refused"))
    endpoint = AG2NlipEndpoint(
        _config(allow_local_network=True, max_retries=1), transport=transport
    )
    url = "http://nlip.test/agent?api_key=ZZZZSECRETZZZZ"
    with pytest.raises(ProviderConnectionError) as info:
        [c async for c in iModel(endpoint=endpoint).stream(prompt="x", url=url)]
    assert "ZZZZSECRETZZZZ" not in str(info.value)
    assert "http://nlip.test/agent/nlip/?api_key=[REDACTED]" in str(info.value)


# -- body size and redirects -----------------------------------------------------------------


async def _chunked(body: bytes) -> Any:
    for start in range(0, len(body), 1024):
        yield body[start : start + 1024]


async def test_body_over_max_response_bytes_refused_while_streaming() -> None:
    body = json.dumps({**_PONG, "content": "x" * 5000}).encode()
    # No Content-Length: the cap is enforced as the body arrives, not after buffering it.
    transport = _Recording(httpx.Response(200, content=_chunked(body)))
    endpoint = AG2NlipEndpoint(
        _config(allow_local_network=True, max_response_bytes=2000), transport=transport
    )
    with pytest.raises(ProviderProtocolError, match="max_response_bytes=2000") as info:
        [c async for c in endpoint.stream({"prompt": "x", "url": "http://nlip.test"})]
    assert "sent more than 2000 bytes" in str(info.value)
    declared = _Recording(httpx.Response(200, content=body))  # Content-Length set
    endpoint = AG2NlipEndpoint(
        _config(allow_local_network=True, max_response_bytes=2000), transport=declared
    )
    with pytest.raises(ProviderProtocolError, match=f"declares Content-Length {len(body)}"):
        [c async for c in endpoint.stream({"prompt": "x", "url": "http://nlip.test"})]


async def test_large_valid_body_under_the_cap_is_not_truncated() -> None:
    # Regression: the body was cut at 4 MiB before parsing, so a valid reply was "not JSON".
    content = "y" * (5 * 1024 * 1024)
    transport = _Recording(httpx.Response(200, json={**_PONG, "content": content}))
    endpoint = AG2NlipEndpoint(_config(allow_local_network=True), transport=transport)
    chunks = [c async for c in endpoint.stream({"prompt": "x", "url": "http://nlip.test"})]
    assert chunks[0].content == content


async def test_redirect_says_it_was_not_followed_and_names_the_redacted_target() -> None:
    location = "http://169.254.169.254/latest?token=SECRETTOKEN123"
    transport = _Recording(httpx.Response(302, headers={"location": location}))
    endpoint = AG2NlipEndpoint(_config(allow_local_network=True), transport=transport)
    with pytest.raises(ProviderClientError) as info:  # core's class for a refused redirect
        [c async for c in iModel(endpoint=endpoint).stream(prompt="x", url="http://nlip.test")]
    assert info.value.status == 302
    message = str(info.value)
    assert "302" in message
    assert "not followed" in message
    assert "http://169.254.169.254/latest?token=[REDACTED]" in message
    assert "SECRETTOKEN123" not in message
    assert len(transport.seen) == 1  # not retried, not followed


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"api_key": "k-1234567890abcdef", "auth_type": "bearer"}, "api_key"),
        ({"default_headers": {"X-Tenant": "acme"}}, "default_headers"),
    ],
)
def test_a_key_or_header_the_endpoint_would_not_send_is_refused(
    options: dict[str, object], field: str
) -> None:
    # One bare POST per attempt: a configured key or header never reached the server.
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(provider="ag2", endpoint="nlip", **options)
    assert info.value.field == field
    assert "k-1234567890abcdef" not in str(info.value)


@pytest.mark.parametrize(
    ("options", "field", "got"),
    [
        ({"transport": "http://proxy.example"}, "ag2.transport", "got str"),
        ({"transport": httpx.AsyncClient}, "ag2.transport", "got type"),
        ({"resolver": "8.8.8.8"}, "ag2.resolver", "got str"),
    ],
)
def test_transport_and_resolver_of_the_wrong_type_are_refused_when_built(
    options: dict[str, Any], field: str, got: str
) -> None:
    # Regression: both were accepted and failed only at the first call, untyped
    # (AttributeError "'str' object has no attribute 'aclose'", TypeError "not callable").
    with pytest.raises(EndpointConfigurationError) as info:
        AG2NlipEndpoint(_config(allow_local_network=True), **options)
    assert info.value.field == field
    assert str(info.value).endswith(got)

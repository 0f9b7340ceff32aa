"""A proxy refusing its credentials, and httpx's optional packages, as typed configuration errors.

407: a proxy in ``client_kwargs.proxy`` answering HTTP 407 Proxy Authentication Required was a
retried ``ProviderConnectionError`` ("connection failed: ProxyError: 407 ...") for an https
target, where httpx raises ``ProxyError`` for the refused CONNECT, and a plain
``ProviderClientError`` for a plain-http target, where the forward proxy's 407 is the response.
Retrying sends the same credentials and is refused the same way. Now both are the credentials
family (``ProviderUnauthorizedError``, ``status`` 407): never retried, naming
``client_kwargs.proxy`` and the proxy's ``scheme://host:port`` (the forward case said only "a
proxy": ``status_error`` did not know the configuration), never the proxy's userinfo. A 407 with
no proxy configured says so instead of naming a setting the caller never used. The proxy here is
a real loopback server that answers every request (CONNECT or absolute-form) with a 407 and
counts them; the target's port has nothing listening, so a request that bypassed the proxy could
not be answered.

Optional packages: ``client_kwargs={"http2": True}`` without ``h2``, or a ``socks5://`` proxy
without ``socksio``, raised httpx's bare ``ImportError`` when the client was built. Absence is
simulated by ``sys.modules[name] = None`` (``import`` then raises ``ImportError``); the first
tests pin that this is exactly what makes httpx itself refuse, so the simulation is faithful.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import sys
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest

from lionagi.service import (
    AttemptPolicy,
    EndpointConfigurationError,
    ProviderAuthError,
    ProviderUnauthorizedError,
    iModel,
)
from lionagi.service._lifecycle.retry import counts_as_circuit_failure, is_retryable
from lionagi.service._transport.config import EndpointConfig
from lionagi.service._transport.http.client import new_client
from lionagi.service.http import status_error

from ._proxies import closed_port, failure, proxied_model

pytestmark = pytest.mark.anyio

USER = "alice-proxy-user"
PASSWORD = "pw-PROXY-s3cret-77"


class Proxy407:
    """A proxy that refuses every request with 407, echoing the credentials it was sent."""

    def __init__(self) -> None:
        self.request_lines: list[str] = []
        self.port = 0
        self._server: asyncio.Server | None = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            self.request_lines.append(head[0])
            sent = next(
                (
                    line.partition(":")[2].strip()
                    for line in head[1:]
                    if line.lower().startswith("proxy-authorization:")
                ),
                "",
            )
            # Some proxies quote the request back: the credential must still not surface.
            body = f"<html>Proxy-Authorization: {sent} refused</html>".encode()
            writer.write(
                b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                b'Proxy-Authenticate: Basic realm="loopback"\r\n'
                b"Content-Type: text/html\r\n"
                + f"Content-Length: {len(body)}\r\n".encode()
                + b"Connection: close\r\n\r\n"
                + body
            )
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Proxy407]:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        try:
            yield self
        finally:
            self._server.close()
            await self._server.wait_closed()


@pytest.mark.parametrize("mode", ["invoke", "stream"])
@pytest.mark.parametrize(
    ("scheme", "first_line"),
    [("https", "CONNECT "), ("http", "POST http://")],
    ids=["connect", "forward"],
)
async def test_a_proxy_refusing_its_credentials_is_one_typed_unretried_attempt(
    scheme: str, first_line: str, mode: str
) -> None:
    target = f"{scheme}://127.0.0.1:{closed_port()}/v1"
    async with Proxy407().running() as proxy:
        proxy_url = f"http://{USER}:{PASSWORD}@127.0.0.1:{proxy.port}"
        async with proxied_model(proxy_url, target) as model:
            error = await failure(model, mode)
    assert isinstance(error, ProviderUnauthorizedError), repr(error)
    assert isinstance(error, ProviderAuthError)
    assert error.status == 407
    assert error.retryable is False
    assert not is_retryable(error, AttemptPolicy())
    assert not counts_as_circuit_failure(error, AttemptPolicy())  # the proxy, not the provider
    shown = f"{error}\n{error!r}\n{error.body_excerpt}"
    # Both paths name the configured proxy: the CONNECT's ProxyError and the forwarded 407.
    assert f"the proxy http://127.0.0.1:{proxy.port} (client_kwargs.proxy)" in str(error)
    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    for secret in (PASSWORD, USER, basic):
        assert secret not in shown
    # Exactly one attempt reached the proxy, and it was the proxy's kind of request.
    assert len(proxy.request_lines) == 1, proxy.request_lines
    assert proxy.request_lines[0].startswith(first_line)


async def test_a_proxy_given_as_httpx_proxy_is_named_without_its_credentials() -> None:
    target = f"https://127.0.0.1:{closed_port()}/v1"
    async with Proxy407().running() as proxy:
        value = httpx.Proxy(f"http://127.0.0.1:{proxy.port}", auth=(USER, PASSWORD))
        async with iModel(
            provider="loopback-chat",
            endpoint="chat/completions",
            openai_compatible=True,
            base_url=target,
            api_key="sk-loopback",
            allow_local_network=True,
            request_defaults={"model": "m"},
            client_kwargs={"proxy": value},
        ) as model:
            error = await failure(model, "invoke")
    assert isinstance(error, ProviderUnauthorizedError)
    assert f"the proxy http://127.0.0.1:{proxy.port} (client_kwargs.proxy)" in str(error)
    assert PASSWORD not in f"{error}{error!r}"
    assert len(proxy.request_lines) == 1


async def test_a_407_with_no_proxy_configured_says_none_is_configured() -> None:
    """A server (or an intercepting proxy) answering 407 to a request sent through no proxy:
    still refused credentials, one attempt, but the message must not blame a setting the caller
    never set."""
    async with (
        Proxy407().running() as server,
        iModel(
            provider="loopback-chat",
            endpoint="chat/completions",
            openai_compatible=True,
            base_url=f"http://127.0.0.1:{server.port}/v1",
            api_key="sk-loopback",
            allow_local_network=True,
            request_defaults={"model": "m"},
            attempt_policy=AttemptPolicy(
                max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0
            ),
        ) as model,
    ):
        error = await failure(model, "invoke")
    assert isinstance(error, ProviderUnauthorizedError), repr(error)
    assert error.status == 407
    assert not is_retryable(error, AttemptPolicy())
    text = str(error)
    assert "no proxy is configured (client_kwargs.proxy is not set)" in text
    assert "(client_kwargs.proxy) refused" not in text
    assert f"POST http://127.0.0.1:{server.port}/v1/chat/completions answered HTTP 407" in text
    assert server.request_lines == ["POST /v1/chat/completions HTTP/1.1"]


def _response_407() -> httpx.Response:
    request = httpx.Request("POST", "http://api.example.test/v1/chat")
    return httpx.Response(407, request=request, content=b"auth first")


def test_status_error_names_the_proxy_it_is_given() -> None:
    """The public mapping: `proxy=` names the proxy, `""` a configured but unnamed one, the
    default (None) says no proxy is configured."""
    named = status_error(_response_407(), b"auth first", proxy="http://10.0.0.1:3128")
    assert isinstance(named, ProviderUnauthorizedError)
    assert named.status == 407
    assert "the proxy http://10.0.0.1:3128 (client_kwargs.proxy) refused" in str(named)
    assert named.body_excerpt == "auth first"
    unnamed = status_error(_response_407(), b"", proxy="")
    assert "the proxy in client_kwargs.proxy refused" in str(unnamed)
    absent = status_error(_response_407(), b"")
    assert isinstance(absent, ProviderUnauthorizedError)
    assert absent.status == 407
    assert "no proxy is configured" in str(absent)


# --- optional packages ---------------------------------------------------------------------------


def _config(**client_kwargs: Any) -> EndpointConfig:
    return EndpointConfig(
        name="p",
        provider="p",
        endpoint="e",
        base_url="http://127.0.0.1:9/v1",
        client_kwargs=client_kwargs,
    )


def test_the_simulated_absence_is_what_httpx_itself_refuses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """httpx checks ``import h2`` building the client, ``import socksio`` building the proxy's
    transport, and raises a bare ``ImportError`` for each: the behaviour the fix replaces."""
    monkeypatch.setitem(sys.modules, "h2", None)
    monkeypatch.setitem(sys.modules, "socksio", None)
    with pytest.raises(ImportError, match="h2"):
        httpx.AsyncClient(http2=True)
    with pytest.raises(ImportError, match="socksio"):
        httpx.AsyncHTTPTransport(proxy="socks5://127.0.0.1:1080")


@pytest.mark.parametrize("value", [True, 1])
def test_http2_without_h2_names_the_setting_and_the_extra(
    monkeypatch: pytest.MonkeyPatch, value: Any
) -> None:
    monkeypatch.setitem(sys.modules, "h2", None)
    with pytest.raises(EndpointConfigurationError) as caught:
        new_client(_config(http2=value))
    assert caught.value.field == "client_kwargs.http2"
    assert "httpx[http2]" in str(caught.value)
    assert "'h2'" in str(caught.value)


def test_http2_without_h2_through_a_proxy_names_http2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "h2", None)
    with pytest.raises(EndpointConfigurationError) as caught:
        new_client(_config(http2=True, proxy="http://127.0.0.1:3128"))
    assert caught.value.field == "client_kwargs.http2"


@pytest.mark.parametrize("scheme", ["socks5", "socks5h"])
def test_a_socks_proxy_without_socksio_names_the_proxy_and_the_extra(
    monkeypatch: pytest.MonkeyPatch, scheme: str
) -> None:
    monkeypatch.setitem(sys.modules, "socksio", None)
    with pytest.raises(EndpointConfigurationError) as caught:
        new_client(_config(proxy=f"{scheme}://{USER}:{PASSWORD}@127.0.0.1:1080"))
    assert caught.value.field == "client_kwargs.proxy"
    assert "httpx[socks]" in str(caught.value)
    assert PASSWORD not in f"{caught.value}{caught.value!r}"


async def test_invoke_refuses_http2_without_h2_before_any_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "h2", None)
    target = f"http://127.0.0.1:{closed_port()}/v1"
    model = iModel(
        provider="loopback-chat",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url=target,
        api_key="sk-loopback",
        allow_local_network=True,
        request_defaults={"model": "m"},
        client_kwargs={"http2": True},
    )
    async with model:
        with anyio.fail_after(20), pytest.raises(EndpointConfigurationError) as caught:
            await model.invoke(messages=[{"role": "user", "content": "hi"}])
    assert caught.value.field == "client_kwargs.http2"


def test_http2_with_h2_installed_still_builds() -> None:
    pytest.importorskip("h2")
    client = new_client(_config(http2=True))
    assert isinstance(client, httpx.AsyncClient)

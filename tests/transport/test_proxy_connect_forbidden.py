"""An HTTP proxy refusing the tunnel with 403 Forbidden is one unretried typed error.

httpcore raises ``ProxyError("403 Forbidden")`` when a proxy answers the CONNECT of an https
request with 403: its access rules refuse this destination for this client. Only a 407 was
typed (refused credentials); a 403 was a retried ``ProviderConnectionError``, so every attempt
was refused the same way and the circuit counted the proxy's verdict against the provider. It
is now ``ProviderUnauthorizedError`` with ``status`` 403 (the access family a SOCKS proxy's
"not allowed by ruleset" gets), naming ``client_kwargs.proxy``, the proxy and the target, never
the proxy's credentials. A 502 from the proxy (it could not reach the target) stays a retried
connection error: the control.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from lionagi.service import (
    AttemptPolicy,
    ProviderAuthError,
    ProviderConnectionError,
    ProviderUnauthorizedError,
)
from lionagi.service._lifecycle.retry import counts_as_circuit_failure, is_retryable

from ._proxies import closed_port, failure, proxied_model

pytestmark = pytest.mark.anyio

USER = "tunnel-user"
PASSWORD = "tunnel-PW-s3cret-42"


class TunnelRefusingProxy:
    """An HTTP proxy that answers every CONNECT with ``status`` and counts them."""

    def __init__(self, status: str) -> None:
        self.status = status
        self.request_lines: list[str] = []
        self.port = 0

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            self.request_lines.append(head[0])
            writer.write(
                f"HTTP/1.1 {self.status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode()
            )
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[TunnelRefusingProxy]:
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = int(server.sockets[0].getsockname()[1])
        try:
            yield self
        finally:
            server.close()
            await server.wait_closed()


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_a_proxy_forbidding_the_tunnel_is_one_typed_unretried_403(mode: str) -> None:
    port = closed_port()
    async with TunnelRefusingProxy("403 Forbidden").running() as proxy:
        url = f"http://{USER}:{PASSWORD}@127.0.0.1:{proxy.port}"
        async with proxied_model(url, f"https://127.0.0.1:{port}/v1") as model:
            error = await failure(model, mode)
    assert isinstance(error, ProviderUnauthorizedError), repr(error)
    assert isinstance(error, ProviderAuthError)
    assert error.status == 403
    # Never retried, even by a policy that retries 403, and neutral for the circuit.
    retries_403 = AttemptPolicy(retry_statuses=frozenset({429, 403}))
    for policy in (AttemptPolicy(), retries_403):
        assert not is_retryable(error, policy)
        assert not counts_as_circuit_failure(error, policy)
    text = str(error)
    assert f"the proxy http://127.0.0.1:{proxy.port} (client_kwargs.proxy)" in text
    assert f"refused to open a tunnel to 127.0.0.1:{port}" in text
    for secret in (USER, PASSWORD):
        assert secret not in f"{error}{error!r}"
    assert proxy.request_lines == [f"CONNECT 127.0.0.1:{port} HTTP/1.1"]


async def test_a_proxy_that_cannot_reach_the_target_is_still_retried() -> None:
    port = closed_port()
    async with TunnelRefusingProxy("502 Bad Gateway").running() as proxy:
        url = f"http://127.0.0.1:{proxy.port}"
        async with proxied_model(url, f"https://127.0.0.1:{port}/v1") as model:
            error = await failure(model, "invoke")
    assert isinstance(error, ProviderConnectionError), repr(error)
    assert len(proxy.request_lines) == 3  # the policy's three attempts

"""Check and connect never disagree: a request connects only to the addresses the guard approved.

The DNS here is a stand-in whose answers change between lookups (``socket.getaddrinfo`` is
replaced, so the system resolver and anything else that resolves see the same answers), and
every TCP connect is recorded: loopback destinations are really connected to a counting loopback
server, any other address is refused as unreachable (tests have no internet).
"""

from __future__ import annotations

import asyncio
import errno
import shutil
import socket
import ssl
import subprocess
from collections.abc import AsyncIterator, Callable
from ipaddress import ip_address
from pathlib import Path
from typing import Any

import anyio
import httpcore
import httpx
import pytest

from lionagi.service import Endpoint, ProviderConnectionError, UnsafeURLError
from lionagi.service._transport.http.client import DEFAULT_LIMITS
from lionagi.service.http import OpenAIChatEndpoint

PUBLIC = "93.184.215.14"  # public-looking; never actually reachable from a test


class DNS:
    """Answers for chosen names that change from one lookup to the next; counts lookups."""

    def __init__(self, real: Callable[..., Any]) -> None:
        self._real = real
        self.answers: dict[str, list[str]] = {}
        self.lookups: list[str] = []

    def getaddrinfo(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        sequence = self.answers.get(name)
        if sequence is None:
            return self._real(host, port, *args, **kwargs)
        self.lookups.append(name)
        address = sequence.pop(0) if len(sequence) > 1 else sequence[0]
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, int(port or 0)))]


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> DNS:
    fake = DNS(socket.getaddrinfo)
    monkeypatch.setattr(socket, "getaddrinfo", fake.getaddrinfo)
    return fake


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every ``remote_host`` a TCP connect was asked for; only loopback is really reachable."""
    targets: list[str] = []
    real = anyio.connect_tcp

    async def recording_connect(remote_host: Any, remote_port: int, **kwargs: Any) -> Any:
        targets.append(str(remote_host))
        try:
            reachable = ip_address(str(remote_host)).is_loopback
        except ValueError:
            reachable = True  # a name: the real connect resolves it through the fake DNS
        if not reachable:
            raise OSError(errno.ENETUNREACH, f"{remote_host} is unreachable from tests")
        return await real(remote_host, remote_port, **kwargs)

    monkeypatch.setattr(anyio, "connect_tcp", recording_connect)
    return targets


def _config(base_url: str, **overrides: Any) -> dict[str, Any]:
    return {
        "name": "t",
        "provider": "p",
        "endpoint": "chat/completions",
        "base_url": base_url,
        "api_key": "sk-test-pinning-0123456789",
        "timeout": 10.0,
        **overrides,
    }


@pytest.fixture
async def endpoints() -> AsyncIterator[list[Endpoint]]:
    made: list[Endpoint] = []
    yield made
    for ep in made:
        await ep.aclose()


async def test_rebinding_answer_is_never_connected_to(serve, wire, dns, connects, endpoints):
    """The guard approves the public first answer; the loopback second answer is never used."""
    server = await serve(lambda req: wire.full(200, '{"leaked": true}'))
    port = int(server.base_url.rsplit(":", 1)[1])
    dns.answers["rebind.test"] = [PUBLIC, "127.0.0.1"]
    ep = Endpoint(_config(f"http://rebind.test:{port}/v1"))
    endpoints.append(ep)

    with pytest.raises(ProviderConnectionError):
        await ep.call({"model": "m"})

    assert server.connections == 0  # loopback (and the API key) never reached
    assert dns.lookups == ["rebind.test"]  # the guard's lookup is the only one
    assert connects == [PUBLIC]  # connected only to what the guard approved


async def test_approved_loopback_is_reached_at_exactly_that_address(
    serve, wire, dns, connects, endpoints
):
    server = await serve(lambda req: wire.full(200, '{"ok": true}'))
    port = int(server.base_url.rsplit(":", 1)[1])
    dns.answers["models.lan"] = ["127.0.0.1", "10.1.2.3"]
    ep = Endpoint(_config(f"http://models.lan:{port}/v1", allow_local_network=True))
    endpoints.append(ep)

    assert await ep.call({"model": "m"}) == {"ok": True}

    assert server.connections == 1
    assert dns.lookups == ["models.lan"]
    assert connects == ["127.0.0.1"]  # the approved address, not the name resolved again
    assert server.requests[0].headers["host"] == f"models.lan:{port}"  # the URL's host


async def test_stream_is_pinned_too(serve, wire, dns, connects, endpoints):
    dns.answers["rebind.test"] = [PUBLIC, "127.0.0.1"]
    server = await serve(lambda req: wire.sse_stream("data: [DONE]\n\n"))
    port = int(server.base_url.rsplit(":", 1)[1])
    ep = OpenAIChatEndpoint(_config(f"http://rebind.test:{port}/v1"))
    endpoints.append(ep)
    with pytest.raises(ProviderConnectionError):
        async for _ in ep.stream({"model": "m"}):
            pass
    assert server.connections == 0
    assert connects == [PUBLIC]


async def test_injected_resolver_decides_where_the_request_goes(serve, wire, connects, endpoints):
    """An injected resolver is no longer consulted by the guard only: its answer is connected."""
    answers = ["127.0.0.1", "10.9.9.9"]
    asked: list[tuple[str, int]] = []

    async def changing(host: str, port: int) -> list[str]:
        asked.append((host, port))
        return [answers.pop(0)]

    server = await serve(lambda req: wire.full(200, '{"ok": true}'))
    port = int(server.base_url.rsplit(":", 1)[1])
    config = _config(f"http://only-injected.invalid:{port}/v1", allow_local_network=True)
    ep = Endpoint(config, resolver=changing)
    endpoints.append(ep)

    assert await ep.call({"model": "m"}) == {"ok": True}
    with pytest.raises(ProviderConnectionError):  # the second answer, unreachable
        await ep.call({"model": "m"})

    assert asked == [("only-injected.invalid", port)] * 2  # once per request
    assert connects == ["127.0.0.1", "10.9.9.9"]
    assert server.connections == 1


async def test_every_approved_address_is_tried_in_order(serve, wire, connects, endpoints):
    async def two(host: str, port: int) -> list[str]:
        return ["10.0.0.7", "127.0.0.1"]

    server = await serve(lambda req: wire.full(200, '{"ok": true}'))
    port = int(server.base_url.rsplit(":", 1)[1])
    ep = Endpoint(_config(f"http://multi.lan:{port}/v1", allow_local_network=True), resolver=two)
    endpoints.append(ep)
    assert await ep.call({"model": "m"}) == {"ok": True}
    assert connects == ["10.0.0.7", "127.0.0.1"]


async def test_a_connect_without_an_approval_is_refused(serve, wire, connects, endpoints):
    """The client's transport refuses a host no guard approved (a request sent around _send)."""
    server = await serve(lambda req: wire.full(200, "{}"))
    ep = Endpoint(_config(server.base_url, allow_local_network=True))
    endpoints.append(ep)
    with pytest.raises(UnsafeURLError, match="approved no address"):
        await ep._http_client().get(server.base_url)
    assert connects == []
    assert server.connections == 0


async def test_public_pinning_helpers_route_an_adapter_request(serve, wire, dns, connects):
    """An adapter outside ``Endpoint`` gets the same pin from ``lionagi.service.http``.

    ``SSRFGuard.approve`` resolves once, a client on ``PinnedTransport`` connects inside
    ``pinned`` to exactly that answer (never resolving the name again), and a new connection
    outside the block, or to another host inside it, is refused before any connect.
    """
    from lionagi.service.http import PinnedTransport, SSRFGuard, pinned

    server = await serve(lambda req: wire.full(200, '{"ok": true}'))
    port = int(server.base_url.rsplit(":", 1)[1])
    dns.answers["agent.test"] = ["127.0.0.1", PUBLIC]  # a second lookup would go public
    url = f"http://agent.test:{port}/nlip/"
    approval = await SSRFGuard().approve(url, allow_local_network=True)
    assert approval.addresses == ("127.0.0.1",)
    async with httpx.AsyncClient(transport=PinnedTransport(limits=DEFAULT_LIMITS)) as client:
        with pinned(approval) as held:
            assert held is approval
            response = await client.post(url, json={})
        assert response.json() == {"ok": True}
    async with httpx.AsyncClient(transport=PinnedTransport(limits=DEFAULT_LIMITS)) as client:
        with pytest.raises(UnsafeURLError, match="approved no address"):
            await client.post(url, json={})  # the block ended: nothing is approved any more
        with pytest.raises(UnsafeURLError, match="approved no address"), pinned(approval):
            await client.get(f"http://other.test:{port}/")  # the approval names another host
    assert dns.lookups == ["agent.test"]
    assert connects == ["127.0.0.1"]
    assert server.connections == 1


def test_httpx_transport_still_keeps_its_pool_where_pinning_replaces_it() -> None:
    """Fails loudly if httpx renames the private ``_pool`` PinnedTransport replaces."""
    from lionagi.service._transport.http.pinning import PinnedTransport

    plain = httpx.AsyncHTTPTransport()
    assert type(plain._pool) is httpcore.AsyncConnectionPool
    pinned = PinnedTransport(limits=DEFAULT_LIMITS)
    assert isinstance(pinned._pool, httpcore.AsyncConnectionPool)
    assert pinned._pool is not plain._pool


def test_endpoint_client_uses_the_pinned_transport() -> None:
    from lionagi.service._transport.http.pinning import PinnedTransport

    ep = Endpoint(_config("http://127.0.0.1:9", allow_local_network=True))
    client = ep._http_client()
    assert isinstance(client._transport, PinnedTransport)  # private: where httpx keeps it


# --- TLS: the pinned connection still verifies the URL's host name ---------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for ``secure.test`` (made with the openssl command)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl command is not installed")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=secure.test",
            "-addext",
            "subjectAltName=DNS:secure.test",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.fixture
async def tls_server(
    certificate: tuple[Path, Path],
) -> AsyncIterator[tuple[int, list[str | None], list[bytes]]]:
    """A loopback HTTPS server recording each handshake's SNI and each request's head."""
    cert, key = certificate
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    names: list[str | None] = []
    heads: list[bytes] = []

    def sni(sock: Any, name: str | None, ctx: Any) -> None:
        names.append(name)

    context.sni_callback = sni

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            heads.append(await reader.readuntil(b"\r\n\r\n"))
            body = b'{"ok": true}'
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                + body
            )
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
    try:
        yield server.sockets[0].getsockname()[1], names, heads
    finally:
        server.close()
        await server.wait_closed()


async def _loopback(host: str, port: int) -> list[str]:
    return ["127.0.0.1"]


async def test_tls_uses_the_url_host_for_sni_and_the_certificate(
    certificate, tls_server, endpoints
):
    port, names, heads = tls_server
    verify = ssl.create_default_context(cafile=str(certificate[0]))
    config = _config(
        f"https://secure.test:{port}/v1",
        allow_local_network=True,
        client_kwargs={"verify": verify},
    )
    ep = Endpoint(config, resolver=_loopback)
    endpoints.append(ep)
    assert await ep.call({"model": "m"}) == {"ok": True}
    assert names == ["secure.test"]
    assert f"host: secure.test:{port}".encode() in heads[0].lower()


async def test_tls_certificate_for_another_name_is_refused(certificate, tls_server, endpoints):
    port, _, heads = tls_server
    verify = ssl.create_default_context(cafile=str(certificate[0]))
    config = _config(
        f"https://other.test:{port}/v1",
        allow_local_network=True,
        client_kwargs={"verify": verify},
    )
    ep = Endpoint(config, resolver=_loopback)
    endpoints.append(ep)
    with pytest.raises(ProviderConnectionError, match=r"(?i)certificate"):
        await ep.call({"model": "m"})
    assert heads == []


# --- the guard's approval ------------------------------------------------------------------------


async def test_approval_is_canonical_deduplicated_and_in_resolver_order() -> None:
    from lionagi.service.http import SSRFGuard

    async def answers(host: str, port: int) -> list[str]:
        return ["2606:4700:4700:0:0:0:0:1111", "1.1.1.1", "2606:4700:4700::1111"]

    approval = await SSRFGuard(answers).approve("https://Dual.Example/v1")
    assert approval.host == "dual.example"
    assert approval.addresses == ("2606:4700:4700::1111", "1.1.1.1")


async def test_numeric_hosts_are_approved_as_the_address_they_denote() -> None:
    from lionagi.service.http import SSRFGuard

    async def refuse(host: str, port: int) -> list[str]:
        raise AssertionError("a numeric host is never resolved")

    guard = SSRFGuard(refuse)
    legacy = await guard.approve("http://2130706433:8000/", allow_local_network=True)
    assert legacy.addresses == ("127.0.0.1",)
    v6 = await guard.approve("http://[::1]:8000/", allow_local_network=True)
    assert (v6.host, v6.addresses) == ("::1", ("::1",))
    with pytest.raises(UnsafeURLError, match="loopback"):
        await guard.approve("http://2130706433:8000/")  # the remembered approval is per flag


async def test_allow_local_network_still_resolves_once_to_pin_the_answer() -> None:
    from lionagi.service.http import SSRFGuard

    asked: list[str] = []

    async def local(host: str, port: int) -> list[str]:
        asked.append(host)
        return ["127.0.0.1"]

    approval = await SSRFGuard(local).approve("http://localhost:11434/", allow_local_network=True)
    assert approval.addresses == ("127.0.0.1",)
    assert asked == ["localhost"]
    with pytest.raises(UnsafeURLError, match="localhost"):
        await SSRFGuard(local).approve("http://localhost:11434/")
    assert asked == ["localhost"]  # refused by name, before any lookup

"""SSRF corpus: every spelling of a non-public destination is refused and nothing is sent.

The network in these tests is simulated at the one place httpcore connects (``anyio.connect_tcp``)
and the one place names resolve (``socket.getaddrinfo``):

- every TCP connect to a non-public destination is really made, to ``hits``, a loopback listener
  that counts accepted connections and received bytes: a hit is a request that left the guard;
- the public stand-in address :data:`PUBLIC` is unreachable (no internet in tests), so a
  rebinding answer that the guard approved fails to connect instead of succeeding;
- :data:`REDIRECTOR` is a public stand-in routed to a loopback server that answers every
  request with a redirect to a private target;
- the proxy listener stands in for an operator's HTTP proxy; it counts connections too.

Every case runs against a plain ``Endpoint`` without ``allow_local_network`` and must end in a
typed error from the service error tree with zero hits on the listener and the proxy. The same
corpus (but for the cases that configure an explicit proxy, which NLIP has no setting for) runs
again through AG2's NLIP endpoint, a remote agent adapter that sends its own request outside
``Endpoint``: it must be just as closed.
"""

from __future__ import annotations

import asyncio
import errno
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

from lionagi.service import (
    Endpoint,
    EndpointConfigurationError,
    ProviderClientError,
    ProviderConnectionError,
    UnsafeURLError,
)
from lionagi.service.http import OpenAIChatEndpoint, check_url_safe

PUBLIC = "93.184.215.14"
"""A public-looking address that is unreachable here (connect fails), never a hit."""
REDIRECTOR = "93.184.215.15"
"""A public-looking address routed to the redirecting server."""
PORT = "{port}"
"""Placeholder in a case URL for the hit listener's port (numeric loopback spellings use it)."""

KEY = "sk-ssrf-corpus-key-0123456789abcdef"
REFUSED: tuple[type[Exception], ...] = (UnsafeURLError, EndpointConfigurationError)
"""Refused before any connect: by the guard, or as a URL httpx cannot parse."""


@dataclass
class Listener:
    """A real loopback TCP server that counts every connection and byte it receives."""

    reply: Callable[[bytes], bytes]
    connections: int = 0
    received: int = 0
    _server: asyncio.Server | None = None

    async def start(self) -> Listener:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            self.received += len(head)
            writer.write(self.reply(head))
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def aclose(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


NLIP_REPLY = b'{"format": "text", "subformat": "english", "content": "reached"}'


def _ok(head: bytes) -> bytes:
    # An NLIP message for NLIP's path, so the NLIP control call completes like a real exchange.
    body = NLIP_REPLY if b" /nlip/ " in head.split(b"\r\n", 1)[0] else b"{}"
    return (
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )


@dataclass
class Net:
    """The simulated network: listeners, DNS answers and every connect that was attempted."""

    hits: Listener
    proxy: Listener
    redirector: Listener
    dns: dict[str, list[list[str]]] = field(default_factory=dict)
    lookups: list[str] = field(default_factory=list)
    connects: list[tuple[str, int]] = field(default_factory=list)

    def getaddrinfo(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        self.lookups.append(name)
        answers = self.dns.get(name.lower())
        if answers is None:
            raise socket.gaierror(socket.EAI_NONAME, f"{name} is not in the test DNS")
        current = answers.pop(0) if len(answers) > 1 else answers[0]
        return [
            (
                socket.AF_INET6 if ":" in a else socket.AF_INET,
                socket.SOCK_STREAM,
                socket.IPPROTO_TCP,
                "",
                (a, int(port or 0)),
            )
            for a in current
        ]

    def private_connects(self) -> list[tuple[str, int]]:
        return [c for c in self.connects if c[0] not in (PUBLIC, REDIRECTOR)]


@pytest.fixture
async def net(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Net]:
    hits = await Listener(_ok).start()
    proxy = await Listener(_ok).start()

    def redirect(head: bytes) -> bytes:
        path = head.split(b" ", 2)[1].decode()
        target = {
            "/loopback": f"http://127.0.0.1:{hits.port}/v1/chat/completions",
            "/metadata": "http://169.254.169.254/latest/meta-data/iam/",
            "/v6": f"http://[::1]:{hits.port}/",
            "/name": f"http://localhost:{hits.port}/",
            "/gce": "http://metadata.google.internal/computeMetadata/v1/",
        }
        location = next((t for p, t in target.items() if path.startswith(p)), target["/loopback"])
        status = b"307 Temporary Redirect" if "307" in path else b"302 Found"
        return (
            b"HTTP/1.1 " + status + b"\r\nlocation: " + location.encode() + b"\r\n"
            b"content-length: 0\r\n\r\n"
        )

    redirector = await Listener(redirect).start()
    state = Net(hits, proxy, redirector)
    real = anyio.connect_tcp

    async def routed(remote_host: Any, remote_port: int, **kwargs: Any) -> Any:
        host = str(remote_host)
        state.connects.append((host, int(remote_port)))
        if host == PUBLIC:
            raise OSError(errno.ENETUNREACH, f"{host} is unreachable from tests")
        if host == REDIRECTOR:
            return await real("127.0.0.1", redirector.port)
        if host == "127.0.0.1" and remote_port == proxy.port:
            return await real("127.0.0.1", proxy.port)
        return await real("127.0.0.1", hits.port)  # every other destination is a hit

    monkeypatch.setattr(anyio, "connect_tcp", routed)
    monkeypatch.setattr(socket, "getaddrinfo", state.getaddrinfo)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    state.dns.update(
        {
            "public.example": [[PUBLIC]],
            "redirect.example": [[REDIRECTOR]],
            "metadata.google.internal": [["169.254.169.254"]],
            "metadata.google.internal.": [["169.254.169.254"]],
            "metadata": [["169.254.169.254"]],
            "instance-data.ec2.internal": [["169.254.169.254"]],
            "metadata.azure.internal": [["169.254.169.254"]],
            "127.0.0.1.nip.io": [["127.0.0.1"]],
            "169.254.169.254.nip.io": [["169.254.169.254"]],
            "10-0-0-1.sslip.io": [["10.0.0.1"]],
            "0x7f000001.nip.io": [["127.0.0.1"]],
            "localtest.me": [["127.0.0.1"]],
            "lvh.me": [["127.0.0.1"]],
            "v6.localtest.me": [["::1"]],
            "intranet.corp": [["192.168.10.5"]],
            "rebind.example": [[PUBLIC], ["127.0.0.1"]],
            "rebind6.example": [[PUBLIC], ["::1"]],
            "rebind-meta.example": [[PUBLIC], ["169.254.169.254"]],
            "mixed.example": [[PUBLIC, "127.0.0.1"]],
            "mixed6.example": [[PUBLIC, "::ffff:10.0.0.1"]],
            "mapped.example": [["::ffff:169.254.169.254"]],
            "nat64.example": [["64:ff9b::a9fe:a9fe"]],
        }
    )
    try:
        yield state
    finally:
        for listener in (hits, proxy, redirector):
            await listener.aclose()


@dataclass(frozen=True)
class Case:
    id: str
    url: str
    env: tuple[tuple[str, str], ...] = ()
    client_kwargs: tuple[tuple[str, str], ...] = ()
    expect: tuple[type[Exception], ...] = REFUSED


def _cases() -> list[Case]:
    p = PORT
    unsafe = [
        # numeric IPv4 spellings of loopback, on the hit listener's port
        ("dotted", f"http://127.0.0.1:{p}/v1"),
        ("decimal", f"http://2130706433:{p}/v1"),
        ("hex-whole", f"http://0x7f000001:{p}/v1"),
        ("hex-upper", f"http://0X7F000001:{p}/v1"),
        ("hex-dotted", f"http://0x7f.0x0.0x0.0x1:{p}/v1"),
        ("octal-dotted", f"http://0177.0.0.1:{p}/v1"),
        ("octal-whole", f"http://017700000001:{p}/v1"),
        ("octal-padded", f"http://0000177.0.0.01:{p}/v1"),
        ("short-2", f"http://127.1:{p}/v1"),
        ("short-3", f"http://127.0.1:{p}/v1"),
        ("short-hex", f"http://0x7f.1:{p}/v1"),
        ("short-octal", f"http://0177.1:{p}/v1"),
        ("mixed-bases", f"http://0x7f.0.00.1:{p}/v1"),
        ("trailing-dot", f"http://127.0.0.1.:{p}/v1"),
        ("other-loopback", f"http://127.254.1.9:{p}/v1"),
        ("unspecified", f"http://0.0.0.0:{p}/v1"),
        ("zero", f"http://0:{p}/v1"),
        ("ideographic-dots", f"http://127\u30020\u30020\u30021:{p}/v1"),
        # IPv6 and transition forms
        ("v6-loopback", f"http://[::1]:{p}/v1"),
        ("v6-loopback-long", f"http://[0:0:0:0:0:0:0:1]:{p}/v1"),
        ("v6-unspecified", f"http://[::]:{p}/v1"),
        ("v4-mapped", f"http://[::ffff:127.0.0.1]:{p}/v1"),
        ("v4-mapped-hex", f"http://[::ffff:7f00:1]:{p}/v1"),
        ("v4-mapped-metadata", "http://[::ffff:169.254.169.254]/latest"),
        ("v4-translated", f"http://[::ffff:0:127.0.0.1]:{p}/v1"),
        ("v4-compatible", f"http://[::127.0.0.1]:{p}/v1"),
        ("nat64-loopback", f"http://[64:ff9b::127.0.0.1]:{p}/v1"),
        ("nat64-metadata", "http://[64:ff9b::a9fe:a9fe]/latest"),
        ("nat64-private", "http://[64:ff9b::10.0.0.1]/v1"),
        ("nat64-local-use", "http://[64:ff9b:1::1]/v1"),
        ("6to4-loopback", f"http://[2002:7f00:1::]:{p}/v1"),
        ("6to4-metadata", "http://[2002:a9fe:a9fe::1]/latest"),
        ("6to4-private", "http://[2002:c0a8:101::1]/v1"),
        ("teredo", "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/v1"),
        ("teredo-zero", "http://[2001::1]/v1"),
        ("link-local-zone", f"http://[fe80::1%25eth0]:{p}/v1"),
        ("unique-local", "http://[fc00::1]/v1"),
        ("multicast-v6", "http://[ff02::1]/v1"),
        ("site-local", "http://[fec0::1]/v1"),
        ("srv6-sid", "http://[5f00::1]/v1"),
        # metadata services and private ranges
        ("aws-imds", "http://169.254.169.254/latest/meta-data/"),
        ("aws-imds-v6", "http://[fd00:ec2::254]/latest/meta-data/"),
        ("ecs-credentials", "http://169.254.170.2/v2/credentials"),
        ("imds-decimal", "http://2852039166/latest"),
        ("imds-hex", "http://0xa9fea9fe/latest"),
        ("imds-octal", "http://0251.0376.0251.0376/latest"),
        ("imds-short", "http://169.254.43518/latest"),
        ("alibaba-metadata", "http://100.100.100.200/latest"),
        ("oracle-metadata", "http://192.0.0.192/latest"),
        ("private-10", "http://10.0.0.1/v1"),
        ("private-172", "http://172.16.0.1/v1"),
        ("private-192", "https://192.168.1.1/v1"),
        ("benchmarking", "http://198.18.0.1/v1"),
        ("multicast", "http://224.0.0.1/v1"),
        ("broadcast", "http://255.255.255.255/v1"),
        # localhost names
        ("localhost", f"http://localhost:{p}/v1"),
        ("localhost-dot", f"http://localhost.:{p}/v1"),
        ("localhost-dots", f"http://localhost..:{p}/v1"),
        ("localhost-upper", f"http://LOCALHOST:{p}/v1"),
        ("localhost-sub", f"http://api.localhost:{p}/v1"),
        ("localhost-sub-dot", f"http://api.localhost.:{p}/v1"),
        # names that resolve to metadata or private addresses
        ("gce-metadata", "http://metadata.google.internal/computeMetadata/v1/"),
        ("gce-metadata-dot", "http://metadata.google.internal./computeMetadata/v1/"),
        ("gce-metadata-short", "http://metadata/computeMetadata/v1/"),
        ("ec2-instance-data", "http://instance-data.ec2.internal/latest"),
        ("azure-metadata", "http://metadata.azure.internal/metadata"),
        ("wildcard-nip", f"http://127.0.0.1.nip.io:{p}/v1"),
        ("wildcard-nip-metadata", "http://169.254.169.254.nip.io/latest"),
        ("wildcard-sslip", "http://10-0-0-1.sslip.io/v1"),
        ("wildcard-hex", f"http://0x7f000001.nip.io:{p}/v1"),
        ("localtest-me", f"http://localtest.me:{p}/v1"),
        ("lvh-me", f"http://lvh.me:{p}/v1"),
        ("localtest-me-v6", f"http://v6.localtest.me:{p}/v1"),
        ("intranet-name", "http://intranet.corp/v1"),
        ("resolves-mapped", "http://mapped.example/v1"),
        ("resolves-nat64", "http://nat64.example/v1"),
        ("mixed-answer", f"http://mixed.example:{p}/v1"),
        ("mixed-answer-v6", "http://mixed6.example/v1"),
        # userinfo tricks: the host is what follows the last '@'
        ("userinfo-public-name", f"http://public.example@127.0.0.1:{p}/v1"),
        ("userinfo-credentials", f"http://user:pass@127.0.0.1:{p}/v1"),
        ("userinfo-two-ats", f"http://a@public.example@127.0.0.1:{p}/v1"),
        ("userinfo-encoded-at", f"http://public.example%40x@127.0.0.1:{p}/v1"),
        ("userinfo-v6", f"http://public.example@[::1]:{p}/v1"),
        # percent and full-width encodings of the host
        ("percent-digits", f"http://%31%32%37.0.0.1:{p}/v1"),
        ("percent-localhost", f"http://%6c%6f%63%61%6c%68%6f%73%74:{p}/v1"),
        ("percent-partial", f"http://lo%63alhost:{p}/v1"),
        ("percent-tab", f"http://127.0.0.1%09:{p}/v1"),
        ("percent-at", f"http://public.example%40127.0.0.1:{p}/v1"),
        ("fullwidth-digits", f"http://\uff11\uff12\uff17.\uff10.\uff10.\uff11:{p}/v1"),
        (
            "fullwidth-localhost",
            f"http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54:{p}/v1",
        ),
        ("circled-letter", f"http://\u24dbocalhost:{p}/v1"),
        # NLIP-style remote agent URLs pointing inwards
        ("nlip-loopback", f"http://127.0.0.1:{p}/nlip/"),
        ("nlip-v6", f"http://[::1]:{p}/nlip"),
        ("nlip-private-query", "http://10.0.0.5/nlip/?session=abc"),
        ("nlip-metadata-name", "http://metadata.google.internal/nlip/"),
    ]
    cases = [Case(i, u) for i, u in unsafe]
    # redirects from a public host to private targets are never followed
    for path in ("/loopback", "/metadata", "/v6", "/name", "/gce", "/loopback-307"):
        cases.append(
            Case(
                f"redirect{path}",
                f"http://redirect.example{path}/v1",
                expect=(ProviderClientError,),
            )
        )
    # rebinding: public on the guard's lookup, private on any later one; the pin holds
    for name in ("rebind.example", "rebind6.example", "rebind-meta.example"):
        cases.append(
            Case(
                f"rebinding-{name.split('.')[0]}",
                f"http://{name}:{p}/v1",
                expect=(ProviderConnectionError,),
            )
        )
    # env proxies: never a way around the guard (and, by decision, not used at all)
    proxy = "http://127.0.0.1:{proxy}"
    cases += [
        Case("env-http-proxy", f"http://127.0.0.1:{p}/v1", env=(("HTTP_PROXY", proxy),)),
        Case("env-https-proxy", "https://169.254.169.254/v1", env=(("HTTPS_PROXY", proxy),)),
        Case("env-all-proxy", "http://10.0.0.1/v1", env=(("ALL_PROXY", proxy),)),
        Case("env-lower-proxy", "http://metadata.google.internal/v1", env=(("http_proxy", proxy),)),
        Case(
            "env-no-proxy-star",
            f"http://localhost:{p}/v1",
            env=(("HTTP_PROXY", proxy), ("NO_PROXY", "*")),
        ),
        Case(
            "env-no-proxy-listed",
            f"http://[::1]:{p}/v1",
            env=(("ALL_PROXY", proxy), ("NO_PROXY", "example.com,::1")),
        ),
        Case(
            "env-proxy-rebinding",
            f"http://rebind.example:{p}/v1",
            env=(("HTTP_PROXY", proxy), ("ALL_PROXY", proxy)),
            expect=(ProviderConnectionError,),
        ),
        Case(
            "explicit-proxy-blocked-target",
            "http://169.254.169.254/latest",
            client_kwargs=(("proxy", proxy),),
        ),
        Case(
            "explicit-proxy-decimal-target",
            f"http://2130706433:{p}/v1",
            client_kwargs=(("proxy", proxy),),
        ),
    ]
    return cases


CASES = _cases()


def _fill(text: str, net: Net) -> str:
    return text.replace("{port}", str(net.hits.port)).replace("{proxy}", str(net.proxy.port))


async def _attempt(net: Net, case: Case, monkeypatch: pytest.MonkeyPatch, *, stream: bool) -> None:
    for name, value in case.env:
        monkeypatch.setenv(name, _fill(value, net))
    config: dict[str, Any] = {
        "name": "ssrf",
        "provider": "p",
        "endpoint": "chat/completions",
        "base_url": _fill(case.url, net),
        "api_key": KEY,
        "timeout": 10.0,
        "client_kwargs": {k: _fill(v, net) for k, v in case.client_kwargs},
    }
    try:
        ep = OpenAIChatEndpoint(config)
    except case.expect:
        return  # refused at construction: nothing can have been sent
    try:
        if stream:
            with pytest.raises(case.expect):
                async for _ in ep.stream({"model": "m"}):
                    pass
        else:
            with pytest.raises(case.expect):
                await ep.call({"model": "m"})
    finally:
        await ep.aclose()


def test_corpus_is_large_and_every_id_unique() -> None:
    assert len(CASES) >= 60
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_blocked_and_nothing_sent(
    net: Net, case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _attempt(net, case, monkeypatch, stream=False)
    assert net.hits.connections == 0, net.connects
    assert net.hits.received == 0
    assert net.proxy.connections == 0, net.connects
    assert net.private_connects() == []


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c.id in {"decimal", "v4-mapped", "gce-metadata", "redirect/loopback"}],
    ids=lambda c: c.id,
)
async def test_blocked_when_streaming_too(
    net: Net, case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _attempt(net, case, monkeypatch, stream=True)
    assert net.hits.connections == 0
    assert net.private_connects() == []


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/nlip/",
        "http://[::ffff:127.0.0.1]/nlip",
        "http://metadata.google.internal/nlip/",
        "http://0x7f.1/nlip/",
        "http://localhost./nlip",
    ],
)
async def test_shared_check_refuses_nlip_style_urls(net: Net, url: str) -> None:
    """The shared one-shot check refuses NLIP-style URLs (the NLIP endpoint itself is below)."""
    with pytest.raises(UnsafeURLError):
        await check_url_safe(url)
    assert net.connects == []


async def test_the_listener_really_counts_a_permitted_request(net: Net) -> None:
    """Control: with the opt-in the same loopback URL is reached (so zero hits above is real)."""
    ep = Endpoint(
        {
            "name": "ssrf",
            "provider": "p",
            "endpoint": "chat/completions",
            "base_url": f"http://127.0.0.1:{net.hits.port}/v1",
            "api_key": KEY,
            "allow_local_network": True,
        }
    )
    try:
        assert await ep.call({"model": "m"}) == {}
    finally:
        await ep.aclose()
    assert net.hits.connections == 1
    assert net.hits.received > 0


async def test_env_proxies_are_not_used_for_public_targets_either(
    net: Net, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decision: a proxy in the environment never carries an endpoint's request.

    The endpoint connects directly, pinned to the guard's approval; only an explicit
    ``client_kwargs={"proxy": ...}`` routes through a proxy. So an environment proxy cannot
    carry a request whose target the proxy (not the guard) would resolve.
    """
    proxy = f"http://127.0.0.1:{net.proxy.port}"
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
        monkeypatch.setenv(name, proxy)
    ep = Endpoint(
        {
            "name": "ssrf",
            "provider": "p",
            "endpoint": "chat/completions",
            "base_url": "http://public.example/v1",
            "api_key": KEY,
            "client_kwargs": {"trust_env": True},
        }
    )
    try:
        with pytest.raises(ProviderConnectionError):
            await ep.call({"model": "m"})
    finally:
        await ep.aclose()
    assert net.proxy.connections == 0
    assert net.connects == [(PUBLIC, 80)]  # direct, to the approved address


async def test_explicit_proxy_carries_a_public_target(net: Net) -> None:
    """Control: an explicit proxy is used, after the guard approved the target."""
    ep = Endpoint(
        {
            "name": "ssrf",
            "provider": "p",
            "endpoint": "chat/completions",
            "base_url": "http://public.example/v1",
            "api_key": KEY,
            "client_kwargs": {"proxy": f"http://127.0.0.1:{net.proxy.port}"},
        }
    )
    try:
        assert await ep.call({"model": "m"}) == {}
    finally:
        await ep.aclose()
    assert net.proxy.connections == 1
    assert net.lookups == ["public.example"]
    assert net.hits.connections == 0


@pytest.mark.parametrize("host", ["lo%63alhost", "%31%32%37.0.0.1", "api%2eexample", "a%00b"])
async def test_percent_escaped_host_is_refused_before_any_lookup(host: str) -> None:
    """A name a later hop could decode differently is never resolved, even to a public answer.

    Regression: the guard used to resolve the escaped text as a name; with a DNS search domain
    or a wildcard answering it publicly, an explicit proxy then received ``http://lo%63alhost/``
    and could decode it to ``localhost``.
    """
    asked: list[str] = []

    async def public(name: str, port: int) -> list[str]:
        asked.append(name)
        return [PUBLIC]

    with pytest.raises(UnsafeURLError, match="not a host name"):
        await check_url_safe(f"http://{host}/v1", resolver=public)
    with pytest.raises(UnsafeURLError, match="not a host name"):
        await check_url_safe(f"http://{host}/v1", resolver=public, allow_local_network=False)
    assert asked == []


async def test_plain_host_names_still_resolve() -> None:
    async def public(name: str, port: int) -> list[str]:
        return [PUBLIC]

    for host in ("api.example.com", "my_host-1.example", "xn--bcher-kva.example", "example.com."):
        await check_url_safe(f"https://{host}/v1", resolver=public)


# --- The NLIP endpoint (AG2): a remote agent adapter sending its own request ------------------

NLIP_CASES = [c for c in CASES if not c.client_kwargs]
"""Every corpus case NLIP can express (it has no explicit-proxy setting; env proxies apply)."""
NLIP_REFUSED: tuple[type[Exception], ...] = (UnsafeURLError,)
"""Refused before any connect by the guard (NLIP parses the URL there, not at construction)."""


def _nlip_model(**config: Any) -> tuple[Any, Any]:
    """AG2's NLIP endpoint, one attempt per call, on the network of the test (no transport)."""
    from lionagi.providers.ag2 import AG2NlipEndpoint  # imported here: AG2 is heavy to load
    from lionagi.service import iModel

    base = {"name": "ag2-nlip", "provider": "ag2", "endpoint": "nlip", "timeout": 10.0}
    endpoint = AG2NlipEndpoint({**base, "max_retries": 1, **config})
    return endpoint, iModel(endpoint=endpoint)


async def _nlip_chunks(model: Any, url: str) -> list[Any]:
    return [chunk async for chunk in model.stream(prompt="x", url=url)]


@pytest.mark.parametrize("case", NLIP_CASES, ids=[c.id for c in NLIP_CASES])
async def test_nlip_endpoint_blocked_and_nothing_sent(
    net: Net, case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: NLIP checked the URL, then let httpx resolve the host again to connect.

    A rebinding answer (public to the guard, loopback next) carried the NLIP request to the
    listener; the endpoint now connects only to the addresses the guard approved.
    """
    for name, value in case.env:
        monkeypatch.setenv(name, _fill(value, net))
    endpoint, model = _nlip_model()
    expect = NLIP_REFUSED if case.expect is REFUSED else case.expect
    with pytest.raises(expect):
        await _nlip_chunks(model, _fill(case.url, net))
    assert net.hits.connections == 0, net.connects
    assert net.hits.received == 0
    assert net.proxy.connections == 0, net.connects
    assert net.private_connects() == []
    assert endpoint.clients_opened == endpoint.clients_closed


@pytest.mark.parametrize("name", ["rebind.example", "rebind6.example", "rebind-meta.example"])
async def test_nlip_rebinding_connects_only_to_the_approved_answer(net: Net, name: str) -> None:
    endpoint, model = _nlip_model()
    with pytest.raises(ProviderConnectionError):
        await _nlip_chunks(model, f"http://{name}:{net.hits.port}")
    assert net.lookups == [name]  # the guard's lookup is the only one
    assert net.connects == [(PUBLIC, net.hits.port)]
    assert net.hits.connections == 0
    assert endpoint.clients_opened == endpoint.clients_closed == 1


async def test_nlip_listener_really_counts_a_permitted_request(net: Net) -> None:
    """Control: with the opt-in the same loopback NLIP URL is reached and answers."""
    endpoint, model = _nlip_model(allow_local_network=True)
    chunks = await _nlip_chunks(model, f"http://127.0.0.1:{net.hits.port}")
    assert [c.content for c in chunks if c.type == "text"] == ["reached"]
    assert net.hits.connections == 1
    assert net.hits.received > 0
    assert endpoint.clients_opened == endpoint.clients_closed == 1


async def test_nlip_opt_in_still_connects_to_the_resolved_address(net: Net) -> None:
    """With ``allow_local_network`` the name is resolved once and the answer pinned, as in core.

    The connect goes to the address the guard resolved (never to the name, which a second
    lookup could answer differently), and a rebinding name stays on its first answer.
    """
    endpoint, model = _nlip_model(allow_local_network=True)
    chunks = await _nlip_chunks(model, f"http://localtest.me:{net.hits.port}")
    assert [c.content for c in chunks if c.type == "text"] == ["reached"]
    assert net.connects == [("127.0.0.1", net.hits.port)]
    with pytest.raises(ProviderConnectionError):
        await _nlip_chunks(model, f"http://rebind.example:{net.hits.port}")
    assert net.connects[1:] == [(PUBLIC, net.hits.port)]
    assert net.lookups == ["localtest.me", "rebind.example"]
    assert net.hits.connections == 1  # only the permitted call above
    assert endpoint.clients_opened == endpoint.clients_closed == 2

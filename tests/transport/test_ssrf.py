"""SSRF guard: non-public destinations are refused before any byte is sent.

All name resolution goes through an injected resolver, so no test touches the network.
"""

from __future__ import annotations

import socket

import pytest

from lionagi.service import ProviderConnectionError, UnsafeURLError
from lionagi.service._transport.http.ssrf import system_resolver
from lionagi.service.http import SSRFGuard, check_url_safe

NAMES: dict[str, list[str]] = {
    "internal.example": ["127.0.0.1"],
    "rebind.example": ["93.184.216.34", "10.0.0.5"],
    "v6loop.example": ["::1"],
    "mapped.example": ["::ffff:169.254.169.254"],
    "metadata.example": ["169.254.169.254"],
    "api.openai.com": ["162.159.140.245"],
    "dual.example": ["1.1.1.1", "2606:4700:4700::1111"],
}

calls: list[tuple[str, int]] = []


async def fake_resolver(host: str, port: int) -> list[str]:
    calls.append((host, port))
    try:
        return list(NAMES[host])
    except KeyError:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None


BLOCKED = [
    "http://127.0.0.1/",
    "https://127.0.0.1:8443/v1",
    "http://127.0.0.1./",
    "http://127.1/",
    "http://2130706433/",
    "http://0x7f.1/",
    "http://0x7f000001/",
    "http://0177.0.0.1/",
    "http://0177.1/",
    "http://017700000001/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::127.0.0.1]/",
    "http://[64:ff9b::7f00:1]/",
    "http://[2002:7f00:1::1]/",
    "http://0.0.0.0/",
    "http://0/",
    "http://[::]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fe80::1]/",
    "http://[fe80::1%25eth0]/",
    "http://100.64.0.1/",
    "http://100.127.255.254/",
    "http://224.0.0.1/",
    "http://[ff02::1]/",
    "http://10.0.0.1/",
    "http://172.16.0.1/",
    "http://172.31.255.255/",
    "http://192.168.1.1/",
    "http://[fc00::1]/",
    "http://[fd12:3456::1]/",
    "http://240.0.0.1/",
    "http://255.255.255.255/",
    "http://198.18.0.1/",
    "http://192.0.2.1/",
    "http://localhost:8080/",
    "http://api.localhost/",
    "http://internal.example/v1",
    "http://rebind.example/",
    "http://v6loop.example/",
    "http://mapped.example/",
    "https://metadata.example/",
]

ALLOWED = [
    "https://api.openai.com/v1/chat/completions",
    "https://dual.example/",
    "http://93.184.216.34/",
    "http://8.8.8.8/",
    "http://134744072/",
    "http://[2606:4700::1111]/",
    "http://[::ffff:8.8.8.8]/",
    "http://100.128.0.1/",
    "http://172.32.0.1/",
]


@pytest.mark.parametrize("url", BLOCKED)
async def test_non_public_destinations_are_refused(url: str) -> None:
    with pytest.raises(UnsafeURLError) as info:
        await check_url_safe(url, resolver=fake_resolver)
    assert "refusing" in str(info.value)


@pytest.mark.parametrize("url", ALLOWED)
async def test_public_destinations_pass(url: str) -> None:
    await check_url_safe(url, resolver=fake_resolver)


async def test_refusal_names_host_reason_and_the_escape_hatch() -> None:
    with pytest.raises(UnsafeURLError) as info:
        await check_url_safe("http://internal.example/v1", resolver=fake_resolver)
    text = str(info.value)
    assert "internal.example" in text
    assert "loopback" in text
    assert "allow_local_network" in text


async def test_numeric_hosts_never_reach_the_resolver() -> None:
    async def refuse(host: str, port: int) -> list[str]:
        raise AssertionError(f"resolver called for numeric host {host}")

    with pytest.raises(UnsafeURLError):
        await check_url_safe("http://0x7f.1/", resolver=refuse)
    await check_url_safe("http://8.8.8.8/", resolver=refuse)


async def test_resolver_gets_host_and_default_port() -> None:
    calls.clear()
    await check_url_safe("https://api.openai.com/v1", resolver=fake_resolver)
    await check_url_safe("http://dual.example:8080/", resolver=fake_resolver)
    assert calls == [("api.openai.com", 443), ("dual.example", 8080)]


async def test_every_check_resolves_again_nothing_is_cached() -> None:
    answers = [["8.8.8.8"], ["127.0.0.1"]]

    async def changing(host: str, port: int) -> list[str]:
        return answers.pop(0)

    guard = SSRFGuard(changing)
    await guard.check("https://flip.example/")
    with pytest.raises(UnsafeURLError):
        await guard.check("https://flip.example/")


async def test_allow_local_network_skips_the_address_check_only() -> None:
    async def refuse(host: str, port: int) -> list[str]:
        raise AssertionError("no resolution when local network is allowed")

    await check_url_safe("http://127.0.0.1:11434/", allow_local_network=True, resolver=refuse)
    await check_url_safe("http://internal.example/", allow_local_network=True, resolver=refuse)
    with pytest.raises(UnsafeURLError, match="scheme"):
        await check_url_safe("file:///etc/passwd", allow_local_network=True)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://8.8.8.8/", "gopher://8.8.8.8/"])
async def test_only_http_schemes(url: str) -> None:
    with pytest.raises(UnsafeURLError, match="scheme"):
        await check_url_safe(url, resolver=fake_resolver)


async def test_unresolvable_host_is_a_connection_error() -> None:
    with pytest.raises(ProviderConnectionError, match=r"nowhere\.example"):
        await check_url_safe("https://nowhere.example/", resolver=fake_resolver)


async def test_resolver_returning_garbage_fails_closed() -> None:
    async def garbage(host: str, port: int) -> list[str]:
        return ["not-an-address"]

    with pytest.raises(UnsafeURLError, match="non-address"):
        await check_url_safe("https://odd.example/", resolver=garbage)


async def test_system_resolver_returns_addresses() -> None:
    assert "127.0.0.1" in await system_resolver("127.0.0.1", 80)


async def test_endpoint_refuses_loopback_by_default_and_sends_nothing(serve, make_endpoint, wire):
    server = await serve(lambda req: wire.full(200, "{}"))
    ep = make_endpoint(server.base_url, allow_local_network=False)
    with pytest.raises(UnsafeURLError, match="allow_local_network"):
        await ep.call({"model": "m"})
    with pytest.raises(UnsafeURLError):
        async for _ in ep.stream({"model": "m"}):
            pass
    assert server.connections == 0


async def test_endpoint_guard_uses_injected_resolver(make_endpoint):
    ep = make_endpoint(
        "https://internal.example/v1", allow_local_network=False, resolver=fake_resolver
    )
    with pytest.raises(UnsafeURLError, match=r"internal\.example"):
        await ep.call({"model": "m"})

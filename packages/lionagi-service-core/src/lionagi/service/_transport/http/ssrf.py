"""SSRF guard: refuse destinations that are not public internet addresses.

A model endpoint's ``base_url`` can come from configuration a caller does not fully control, so
the transport refuses to send a request (and the API key in it) to loopback, private, link-local,
CGNAT, multicast, unspecified, documentation or reserved addresses, including every IPv6 form
that embeds such an IPv4 address. ``allow_local_network=True`` skips the address check; the
scheme check (http/https only) always applies.

Redirects are never followed (the endpoint's client uses ``follow_redirects=False`` and maps 3xx to
:class:`ProviderClientError`), so the URL checked here is the only hop a request makes.

Host names are resolved on every check and no DNS answer is cached. Numeric IPv4 hosts in the legacy
``inet_aton`` spellings (``2130706433``, ``0x7f.1``, ``0177.0.0.1``, ``127.1``) are parsed here
instead of being trusted to the resolver, so an injected resolver cannot be bypassed by them. A
host that is neither an address nor a plain host name (percent-escapes, which httpx leaves in the
host as written) is refused rather than resolved.

Check and connect never disagree: :meth:`SSRFGuard.approve` returns the addresses it checked as
an :class:`Approval`, and the endpoint's transport (:mod:`.pinning`) connects to exactly those
addresses for that request instead of resolving the name a second time. A DNS answer that changes
between lookups (rebinding) therefore cannot steer a checked request elsewhere, and an injected
resolver decides where the request goes, not only what is checked.
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network

import anyio
import httpx

from ..._base.errors import ProviderConnectionError, UnsafeURLError
from ..._base.secrets import bounded, redact

__all__ = [
    "ALLOWED_SCHEMES",
    "Approval",
    "Resolver",
    "SSRFGuard",
    "check_url_safe",
    "forbidden_reason",
    "parse_host_address",
    "system_resolver",
]

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""`async (host, port) -> [address, ...]`: every address the host name resolves to."""

ALLOWED_SCHEMES = frozenset({"http", "https"})

_IPAddress = IPv4Address | IPv6Address

_V4_BLOCKED: tuple[tuple[IPv4Network, str], ...] = tuple(
    (IPv4Network(net), reason)
    for net, reason in (
        ("0.0.0.0/8", "unspecified ('this network')"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "carrier-grade NAT (shared address space)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local (cloud metadata lives here)"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "reserved (IETF protocol assignments)"),
        ("192.0.2.0/24", "documentation"),
        ("192.88.99.0/24", "reserved (6to4 relay anycast)"),
        ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved"),
    )
)

_V6_GLOBAL_UNICAST = IPv6Network("2000::/3")
_V6_COMPAT = IPv6Network("::/96")
_V6_NAT64 = IPv6Network("64:ff9b::/96")
_V6_6TO4 = IPv6Network("2002::/16")
_V6_BLOCKED: tuple[tuple[IPv6Network, str], ...] = tuple(
    (IPv6Network(net), reason)
    for net, reason in (
        ("64:ff9b:1::/48", "reserved (local-use NAT64)"),
        ("100::/64", "reserved (discard-only)"),
        ("fc00::/7", "private (unique local)"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "private (site-local)"),
        ("ff00::/8", "multicast"),
        ("2001:db8::/32", "documentation"),
        ("2001::/23", "reserved (IETF protocol assignments, Teredo)"),
        ("3fff::/20", "documentation"),
    )
)


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_.")
"""What a host name may contain once httpx has lower-cased it and IDNA-encoded it to ASCII."""

_HEX = frozenset("0123456789abcdefABCDEF")
_OCT = frozenset("01234567")
_DEC = frozenset("0123456789")


def _parse_ipv4_part(part: str) -> int | None:
    if part[:2] in ("0x", "0X"):
        digits, base, allowed = part[2:], 16, _HEX
        if not digits:
            return 0
    elif len(part) > 1 and part[0] == "0":
        digits, base, allowed = part[1:], 8, _OCT
    else:
        digits, base, allowed = part, 10, _DEC
    if not digits or not set(digits) <= allowed:
        return None
    return int(digits, base)


def _parse_ipv4_numeric(host: str) -> IPv4Address | None:
    """Parse every IPv4 spelling ``inet_aton`` accepts (1-4 parts, decimal/octal/hex)."""
    if host.endswith("."):
        host = host[:-1]
    parts = host.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    values = [_parse_ipv4_part(p) for p in parts]
    if any(v is None for v in values):
        return None
    nums = [v for v in values if v is not None]
    *head, last = nums
    if any(v > 255 for v in head) or last >= 256 ** (5 - len(nums)):
        return None
    value = 0
    for v in head:
        value = (value << 8) | v
    value = (value << (8 * (5 - len(nums)))) | last
    return IPv4Address(value)


def parse_host_address(host: str) -> _IPAddress | None:
    """Return the address a numeric host denotes, or None for a host name.

    Raises:
        UnsafeURLError: the host looks like an IPv6 literal but does not parse.
    """
    if ":" in host:
        literal = host.strip("[]").split("%", 1)[0]
        try:
            return IPv6Address(literal)
        except ValueError:
            raise UnsafeURLError(f"refusing host {host!r}: not a valid IPv6 address") from None
    return _parse_ipv4_numeric(host)


def _v4_reason(address: IPv4Address) -> str | None:
    for network, reason in _V4_BLOCKED:
        if address in network:
            return reason
    return None


def forbidden_reason(address: _IPAddress) -> str | None:
    """Why ``address`` is not a public destination, or None when it is."""
    if isinstance(address, IPv4Address):
        return _v4_reason(address)
    if address.ipv4_mapped is not None:
        inner = _v4_reason(address.ipv4_mapped)
        return f"an IPv4-mapped form of a {inner} address" if inner else None
    if address == IPv6Address("::"):
        return "unspecified"
    if address == IPv6Address("::1"):
        return "loopback"
    if address in _V6_COMPAT:
        return "reserved (deprecated IPv4-compatible form)"
    if address in _V6_NAT64:
        inner = _v4_reason(IPv4Address(int(address) & 0xFFFFFFFF))
        return f"a NAT64 form of a {inner} address" if inner else None
    if address in _V6_6TO4 and address.sixtofour is not None:
        inner = _v4_reason(address.sixtofour)
        return f"a 6to4 form of a {inner} address" if inner else None
    for network, reason in _V6_BLOCKED:
        if address in network:
            return reason
    if address not in _V6_GLOBAL_UNICAST:
        return "reserved (outside global unicast 2000::/3)"
    return None


async def system_resolver(host: str, port: int) -> list[str]:
    """Resolve with the system resolver (``anyio.getaddrinfo``), every address family."""
    infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def _refuse(url: httpx.URL, address: object, reason: str) -> UnsafeURLError:
    return UnsafeURLError(
        f"refusing request to {url.scheme}://{url.host}: address {address} is {reason}. "
        "Set allow_local_network=True on the endpoint config if this destination is intended."
    )


def _as_url(url: str | httpx.URL) -> httpx.URL:
    if isinstance(url, httpx.URL):
        return url
    try:
        return httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise UnsafeURLError(f"refusing URL: {bounded(redact(str(exc)), 200)}") from None


@dataclass(frozen=True, slots=True)
class Approval:
    """The addresses the guard checked for one request's host: the only ones it may reach.

    `host` is the URL's host as the connection layer names it (lower case, IPv6 without
    brackets); `addresses` are canonical IP address strings, in resolver order, without
    duplicates.
    """

    host: str
    addresses: tuple[str, ...]


class SSRFGuard:
    """Checks one URL before each request; holds the resolver, never a DNS answer.

    The approval of the last numeric host is remembered: it is a pure function of the host text
    and `allow_local_network`, and parsing every legacy IPv4 spelling costs more per request
    than the rest of the check.
    """

    __slots__ = ("_literal", "_resolver")

    def __init__(self, resolver: Resolver | None = None) -> None:
        self._resolver: Resolver = resolver or system_resolver
        self._literal: tuple[str, bool, Approval] | None = None

    @property
    def resolver(self) -> Resolver:
        """The resolver this guard asks (the system resolver unless one was injected)."""
        return self._resolver

    async def check(self, url: str | httpx.URL, *, allow_local_network: bool = False) -> None:
        """Raise unless `url` is an http(s) URL whose every resolved address is public.

        With `allow_local_network=True` only the scheme and host are checked and nothing is
        resolved; `approve` is the variant that also says where a request may connect.

        Raises:
            UnsafeURLError: bad scheme, unparsable URL, or a non-public address.
            ProviderConnectionError: the host name did not resolve.
        """
        if allow_local_network:
            _host_of(_as_url(url))
            return
        await self.approve(url)

    async def approve(self, url: str | httpx.URL, *, allow_local_network: bool = False) -> Approval:
        """Check `url` and return the addresses a request to it may connect to.

        The host is resolved once (a numeric host not at all); every answer must be public
        unless `allow_local_network=True`, which skips only the address check: the answers are
        still pinned, so a local destination is reached at the address that was resolved here.

        Raises:
            UnsafeURLError: bad scheme, unparsable URL, or a non-public address.
            ProviderConnectionError: the host name did not resolve.
        """
        parsed = _as_url(url)
        host = _host_of(parsed)
        cached = self._literal
        if cached is not None and cached[0] == host and cached[1] is allow_local_network:
            return cached[2]
        literal = parse_host_address(host)
        if literal is not None:
            if not allow_local_network:
                reason = forbidden_reason(literal)
                if reason is not None:
                    raise _refuse(parsed, literal, reason)
            approval = Approval(host, (str(literal),))
            self._literal = (host, allow_local_network, approval)
            return approval
        name = host.rstrip(".")
        if not name or not _NAME_CHARS.issuperset(host):
            # httpx keeps percent-escapes in the host as written (``%6c%6f...``); a resolver, a
            # DNS forwarder or a later hop that decodes them would see another name than the
            # one checked, so only a plain host name is ever handed to the resolver.
            raise UnsafeURLError(
                f"refusing host {host!r}: not a host name (letters, digits, '-', '_' and '.')"
            )
        if not allow_local_network and (name == "localhost" or name.endswith(".localhost")):
            raise _refuse(parsed, name, "loopback (reserved name 'localhost')")
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        try:
            answers = await self._resolver(host, port)
        except OSError as exc:
            raise ProviderConnectionError(
                f"could not resolve host {host!r}: {bounded(redact(str(exc)), 200)}"
            ) from exc
        if not answers:
            raise ProviderConnectionError(f"could not resolve host {host!r}: no addresses")
        addresses: dict[str, None] = {}
        for text in answers:
            address = parse_host_address(text) if isinstance(text, str) else None
            if address is None:
                raise UnsafeURLError(
                    f"refusing host {host!r}: resolver returned a non-address {text!r}"
                )
            if not allow_local_network:
                reason = forbidden_reason(address)
                if reason is not None:
                    raise _refuse(parsed, address, reason)
            addresses[str(address)] = None
        return Approval(host, tuple(addresses))


def _host_of(parsed: httpx.URL) -> str:
    """The URL's host after the scheme check, lower case and without IPv6 brackets."""
    if parsed.scheme not in ALLOWED_SCHEMES:
        raise UnsafeURLError(
            f"refusing URL scheme {parsed.scheme!r}: only http and https are allowed"
        )
    host = parsed.raw_host.decode("ascii").lower()
    if not host:
        raise UnsafeURLError("refusing URL without a host")
    return host


async def check_url_safe(
    url: str | httpx.URL,
    *,
    allow_local_network: bool = False,
    resolver: Resolver | None = None,
) -> None:
    """Check one URL with a fresh `SSRFGuard`; raises `UnsafeURLError`."""
    await SSRFGuard(resolver).check(url, allow_local_network=allow_local_network)

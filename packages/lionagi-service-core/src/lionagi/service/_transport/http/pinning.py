"""Connect to exactly the addresses the SSRF guard approved for the request being sent.

The guard resolves a request's host and checks every answer; if the HTTP stack then resolved the
name again to connect, a DNS server answering a public address first and ``127.0.0.1`` next
(rebinding) would carry the request, API key included, to loopback. So the endpoint's transport
never resolves: :class:`PinnedBackend` is an httpcore network backend whose ``connect_tcp(host,
port)`` connects to the IP addresses in the :class:`~.ssrf.Approval` the endpoint set for the
current request (:func:`pin`), and refuses a host it holds no approval for.

Only the TCP destination changes. httpcore still sees the URL's host, so the ``Host`` header,
the TLS server name (SNI) and the certificate check all name the original host.

The approval travels in a context variable, set around ``client.send``: httpcore opens a
connection in the task that sends the request, so the connect sees the approval of the request
that caused it, and a request running concurrently in another task cannot replace it.

Core's ``Endpoint`` uses :func:`pin`/:func:`unpin` directly. An adapter that sends its own
request (a remote agent over plain HTTP, not an ``Endpoint``) uses the same mechanics through the
public :mod:`lionagi.service.http`: a client whose transport is a :class:`PinnedTransport`, and
the request sent inside :func:`pinned` with the approval :meth:`SSRFGuard.approve
<.ssrf.SSRFGuard.approve>` returned. A guard ``check`` followed by a transport that resolves
again would leave that adapter open to DNS rebinding.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any

import anyio
import httpcore
import httpx

from ..._base.errors import UnsafeURLError
from .pool import SingleAssignmentPool
from .reads import SupervisedStream
from .ssrf import Approval

if TYPE_CHECKING:
    import ssl

__all__ = ["PinnedBackend", "PinnedTransport", "pin", "pinned", "unpin"]

_current: ContextVar[Approval | None] = ContextVar("lionagi_service_ssrf_approval", default=None)


def pin(approval: Approval) -> Token[Approval | None]:
    """Let connections opened from here on reach ``approval``'s addresses, and no others.

    Pair with :func:`unpin` in a ``finally``; two calls instead of a context manager because
    this runs once per request and a generator-based manager costs more than the work.
    """
    return _current.set(approval)


def unpin(token: Token[Approval | None]) -> None:
    """End the approval :func:`pin` started (restores the one before it, normally none)."""
    _current.reset(token)


@contextmanager
def pinned(approval: Approval) -> Iterator[Approval]:
    """Connect requests sent inside this block to `approval`'s addresses, and nowhere else.

    For a client whose transport is a `PinnedTransport`. The approval is set for the block
    and reset when it ends, whatever ends it (error or cancellation included), so it cannot
    be left set by a forgotten reset. Wrap only the
    send (`await client.post(...)`), in the task that sends it; a `yield` of an async
    generator inside the block would leave the context it was entered in. A connection the
    transport opens inside the block for another host, or outside any block, is refused with
    `UnsafeURLError`.
    """
    token = pin(approval)
    try:
        yield approval
    finally:
        unpin(token)


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """An httpcore backend that connects only to addresses approved for the current request.

    Several approved addresses are tried in resolver order, one after another, within the one
    connect timeout httpcore passes; a refused or unreachable address moves on to the next.
    """

    def __init__(self, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self._inner = inner if inner is not None else httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - the httpcore backend interface
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Connect to the first reachable approved address of ``host``.

        Raises:
            UnsafeURLError: the current request holds no approval for ``host``.
            httpcore.ConnectError: no approved address accepted the connection.
            httpcore.ConnectTimeout: the connect timeout ran out.
        """
        approval = _current.get()
        if approval is None or approval.host != host.lower():
            raise UnsafeURLError(
                f"refusing to connect to {host!r}: the SSRF guard approved no address for it "
                "on this request"
            )
        deadline = None if timeout is None else anyio.current_time() + timeout
        options = list(socket_options) if socket_options is not None else None
        failure: httpcore.ConnectError | None = None
        for address in approval.addresses:
            remaining = None if deadline is None else max(0.0, deadline - anyio.current_time())
            try:
                stream = await self._inner.connect_tcp(
                    address,
                    port,
                    timeout=remaining,
                    local_address=local_address,
                    socket_options=options,
                )
            except httpcore.ConnectError as exc:
                failure = exc
            else:
                # Wrapped so a stream's supervisor can bound and abort its reads (see reads.py).
                return SupervisedStream(stream)
        assert failure is not None  # an Approval always holds at least one address
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - the httpcore backend interface
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Refused: an endpoint reaches its provider over TCP to approved addresses only."""
        raise UnsafeURLError("refusing a unix socket connection: endpoints connect over TCP only")

    async def sleep(self, seconds: float) -> None:
        """Pause between httpcore's connect retries (delegated to the inner backend)."""
        await self._inner.sleep(seconds)


class PinnedTransport(httpx.AsyncHTTPTransport):
    """httpx's HTTP transport whose connections go only to the addresses `pinned` approved.

    httpx offers no public way to hand its transport a network backend, so this builds httpx's
    transport and then replaces its `_pool` with an httpcore pool made with the same settings
    plus a backend that connects only to the approved addresses (and whose assignment pass
    hands an idle connection to one request at a time). `_pool` is the one private name of
    httpx touched (httpx 0.27-0.28 use it for every request and for `aclose`); construction
    fails loudly if it changes, and a test pins it.
    """

    def __init__(
        self,
        *,
        verify: Any = True,
        cert: Any = None,
        trust_env: bool = True,
        http1: bool = True,
        http2: bool = False,
        limits: httpx.Limits,
        tls: Callable[[], ssl.SSLContext] | None = None,
    ) -> None:
        """Build the transport; `tls` defers the TLS context to the first https connection.

        With `tls` (core's shared default context), `verify`, `cert` and `trust_env`
        are not read: the pool calls `tls()` when it first connects to an https origin.
        """
        ssl_context = (
            None
            if tls is not None
            else httpx.create_ssl_context(verify=verify, cert=cert, trust_env=trust_env)
        )
        # httpx's own pool is replaced below; with a deferred context it gets an unverified
        # one, which costs no CA bundle and is never used.
        super().__init__(verify=ssl_context or False, http1=http1, http2=http2, limits=limits)
        if not isinstance(getattr(self, "_pool", None), httpcore.AsyncConnectionPool):
            raise RuntimeError(
                "httpx.AsyncHTTPTransport no longer keeps its httpcore pool in `_pool`; "
                "the SSRF connection pinning needs updating for this httpx version"
            )
        self._pool = SingleAssignmentPool(
            tls=tls,
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=http1,
            http2=http2,
            network_backend=PinnedBackend(),
        )

"""httpcore's SOCKS5 proxy pool, closing the socket to the proxy when the handshake fails.

Why: httpcore 1.0's ``AsyncSocks5Connection.handle_async_request`` opens a TCP stream to the
proxy, runs the SOCKS5 handshake on it and, for an https target, TLS through it; only once all
of that succeeded does the stream belong to an HTTP connection, which closes it. When a step
before that raises (the proxy refuses the credentials or every offered method, answers the
CONNECT with a failure such as "Proxy Server could not connect", or hangs up mid-handshake) or
the request is cancelled meanwhile, nothing closes the stream: the socket stays open until the
garbage collector frees the exception's frames, with a ``ResourceWarning``, and not at all while
a caller keeps the error (a failed call keeps its exception). A cancelled handshake also left
the connection in the pool for good, neither failed nor idle.

:class:`ClosingSOCKSProxy` is httpcore's ``AsyncSOCKSProxy`` whose connections are
:class:`ClosingSocks5Connection`: httpcore's own connection, given a per-connection backend
(:class:`_OpenedStream`) that remembers the stream it opened. When the request fails while the
connection is not established, that stream is closed (shielded from cancellation) before the
error goes on, and the connection is marked failed, so the pool drops it. The handshake, TLS,
HTTP/1.1 or HTTP/2 choice and every established request stay httpcore's code: a stream through
the proxy costs one small object per connection and one coroutine frame per request.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any

import httpcore
from httpcore._async.socks_proxy import AsyncSocks5Connection
from socksio import ProtocolError as SocksProtocolError

from ..._base.aio import aclose_shielded

__all__ = ["ClosingSOCKSProxy", "ClosingSocks5Connection"]

# httpcore's names this module reads: the pool's settings, as its own ``create_connection``
# reads them, and the connection's backend, established HTTP connection and failure flag.
_POOL_NAMES = (
    "_proxy_url",
    "_proxy_auth",
    "_ssl_context",
    "_keepalive_expiry",
    "_http1",
    "_http2",
    "_network_backend",
)
_CONNECTION_NAMES = ("_network_backend", "_connection", "_connect_failed")


class _OpenedStream(httpcore.AsyncNetworkBackend):
    """A network backend that remembers the last stream it opened (one per connection)."""

    def __init__(self, inner: httpcore.AsyncNetworkBackend) -> None:
        self._inner = inner
        self.stream: httpcore.AsyncNetworkStream | None = None

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - the httpcore backend interface
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Connect through the inner backend and remember the stream."""
        self.stream = await self._inner.connect_tcp(
            host, port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )
        return self.stream

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - the httpcore backend interface
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Connect through the inner backend and remember the stream."""
        self.stream = await self._inner.connect_unix_socket(
            path, timeout=timeout, socket_options=socket_options
        )
        return self.stream

    async def sleep(self, seconds: float) -> None:
        """Delegated to the inner backend."""
        await self._inner.sleep(seconds)


class ClosingSocks5Connection(AsyncSocks5Connection):
    """httpcore's SOCKS5 connection that closes its stream to the proxy if it never gets used."""

    def __init__(self, **kwargs: Any) -> None:
        """The connection httpcore makes (same arguments), connecting through an `_OpenedStream`."""
        super().__init__(**kwargs)
        self._opened = _OpenedStream(self._network_backend)
        self._network_backend = self._opened

    async def handle_async_request(self, request: httpcore.Request) -> httpcore.Response:
        """The request, as httpcore handles it; failing before the connection is set up closes it.

        "Established" is httpcore's own mark: ``_connection`` is set as the last step of the
        setup, and from then on the HTTP connection owns (and closes) the stream. Before that,
        the stream this connection opened is closed here, also on cancellation (httpcore's
        ``except Exception`` does not see it, so the connection is marked failed here too).
        A failure to close that socket is dropped: it would replace the error that explains the
        call (the proxy's refusal) with one about a socket that is being abandoned anyway.

        A reply socksio cannot parse (the proxy hung up mid-handshake, or is no SOCKS5 proxy)
        raised socksio's own ``ProtocolError``, which httpx does not map (it maps httpcore's
        errors), so the call failed with a bare socksio exception; it is raised as httpcore's
        ``ProxyError`` instead, which the endpoint types as a connection failure.
        """
        try:
            return await super().handle_async_request(request)
        except SocksProtocolError as exc:
            await self._close_unestablished()
            raise httpcore.ProxyError(
                f"the SOCKS proxy sent no valid reply to the handshake ({exc})"
            ) from exc
        except BaseException:
            await self._close_unestablished()
            raise

    async def _close_unestablished(self) -> None:
        """Close the stream to the proxy unless it already belongs to an HTTP connection."""
        if self._connection is None:
            self._connect_failed = True
            stream, self._opened.stream = self._opened.stream, None
            if stream is not None:
                with contextlib.suppress(Exception):
                    await aclose_shielded(stream)


class ClosingSOCKSProxy(httpcore.AsyncSOCKSProxy):
    """httpcore's SOCKS5 proxy pool whose connections are :class:`ClosingSocks5Connection`."""

    def __init__(self, **kwargs: Any) -> None:
        """The pool httpcore makes (same arguments).

        Raises:
            RuntimeError: httpcore's SOCKS pool or connection no longer keeps a setting or
                state under the name this module reads.
        """
        super().__init__(**kwargs)
        missing = [name for name in _POOL_NAMES if not hasattr(self, name)]
        if not missing:  # a connection is a few attributes and a lock: no I/O
            origin = self._proxy_url.origin
            probe = AsyncSocks5Connection(proxy_origin=origin, remote_origin=origin)
            missing = [name for name in _CONNECTION_NAMES if not hasattr(probe, name)]
        if missing:
            raise RuntimeError(
                f"httpcore's SOCKS proxy no longer has {', '.join(missing)}; "
                "the SOCKS transport (closing a failed handshake's socket) needs updating"
            )

    def create_connection(self, origin: httpcore.Origin) -> httpcore.AsyncConnectionInterface:
        """The connection httpcore's pool makes, as a :class:`ClosingSocks5Connection`."""
        return ClosingSocks5Connection(
            proxy_origin=self._proxy_url.origin,
            remote_origin=origin,
            proxy_auth=self._proxy_auth,
            ssl_context=self._ssl_context,
            keepalive_expiry=self._keepalive_expiry,
            http1=self._http1,
            http2=self._http2,
            network_backend=self._network_backend,
        )

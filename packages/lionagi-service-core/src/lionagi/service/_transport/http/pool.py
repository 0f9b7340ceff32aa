"""httpcore's connection pool with an assignment pass that hands an idle connection out once.

Why: httpcore 1.0's ``_assign_requests_to_connections`` runs every time a request enters or leaves
the pool. An idle HTTP/1.1 connection it hands to a queued request stays idle (and available)
until that request's task runs, so the same pass and every pass before that task runs hand the
same connection to further requests. All but one then fail with ``ConnectionNotAvailable``, go
back to the queue and run the pass again, which scans every connection and checks each idle one's
socket (``has_expired`` builds the socket's whole extra-info mapping). A burst of concurrent
streams through a client that kept one connection alive measured ≈4.7 such retries per request
at 256 streams, and a quarter more wall time than the same burst without the idle connection
(``docs/decisions.md`` "Connection pool assignment"). The same pass can also close, as surplus
keep-alive, a connection it has just handed out (encode/httpcore#1110), and its keep-alive check
counts every connection, not the idle ones, so an idle connection is closed whenever the pool
holds more connections than ``max_keepalive_connections``.

:class:`SingleAssignmentPool` replaces only that pass, and only for an HTTP/1.1-only pool (an
HTTP/2 connection takes many requests, so a pool that may speak HTTP/2 keeps httpcore's pass):

- a connection already handed to a pending request is spoken for: it is neither handed out
  again nor closed as idle;
- each available connection goes to one queued request per pass;
- the keep-alive limit counts idle connections, as ``httpx.Limits`` documents it;
- only idle connections are checked for expiry, and only on a pass with a request queued (the
  pass that could hand one out): httpcore checks every connection on every pass, and for an
  idle one that polls its socket, so a burst of N streams made on the order of N² polls.
- an idle connection holding bytes the server sent past its last response counts as expired
  (httpcore would read them as the next request's answer).

It can also defer its TLS context (``tls=``): a factory called when the first ``https``
connection is created, so a client that only ever speaks plain HTTP to a local server never
loads a CA bundle (tens of milliseconds of a cold first call).

:class:`SingleAssignmentHTTPProxy` is the same pass over httpcore's HTTP(S) proxy pool, for an
endpoint's explicit ``client_kwargs={"proxy": ...}`` (see ``client.ProxyTransport``).

Everything else (creating, expiring and closing connections, the queue order, the pool
timeout) is httpcore's own code. The pass reads private names of httpcore 1.0's pool; the class
checks them when it is created and, when one is missing, leaves httpcore's pass in place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import httpcore

if TYPE_CHECKING:
    import ssl

__all__ = ["SingleAssignmentHTTPProxy", "SingleAssignmentPool"]

_POOL_NAMES = (
    "_requests",
    "_connections",
    "_http2",
    "_max_connections",
    "_max_keepalive_connections",
    "create_connection",
)


# How many ``_connection`` links lead from a pool's connection to its HTTP/1.1 connection: one
# for a direct connection (and a proxy's tunnel once established, or a SOCKS connection), two
# for a forwarding proxy's (its wrapper holds a connection to the proxy, which holds the HTTP/1.1
# connection).
_WRAPPER_DEPTH = 2


def _unread_bytes(connection: httpcore.AsyncConnectionInterface) -> bool:
    """Whether an idle HTTP/1.1 connection holds bytes its server sent after the last response.

    A server whose ``Content-Length`` is shorter than the body it writes (a character count
    taken for a byte count) leaves the excess in h11's buffer when it arrived with the body, so
    the socket is not readable and httpcore's ``has_expired`` keeps the connection; the next
    request then read those bytes as the start of its answer: an ``illegal status line``, or,
    when they formed a whole response, the wrong answer delivered as a success. RFC 9112 §6.3:
    a client "MUST NOT process ... such extra data as a separate response". Read through h11's
    public ``trailing_data``, found through the ``_connection`` links httpcore's connection
    classes keep (direct, tunnelled or forwarded through a proxy); an httpcore that names its
    parts otherwise skips the check.
    """
    inner: Any = connection
    for _ in range(_WRAPPER_DEPTH):
        inner = getattr(inner, "_connection", None)
        if inner is None:
            return False
        state = getattr(inner, "_h11_state", None)
        if state is not None:
            trailing = getattr(state, "trailing_data", None)
            return trailing is not None and bool(trailing[0])
    return False


class SingleAssignmentPool(httpcore.AsyncConnectionPool):
    """An ``httpcore.AsyncConnectionPool`` that never hands one idle connection to two requests."""

    def __init__(self, *, tls: Callable[[], ssl.SSLContext] | None = None, **kwargs: Any) -> None:
        """The pool; with ``tls``, no ``ssl_context`` until an https connection needs one.

        Raises:
            RuntimeError: ``tls`` was given but httpcore's pool no longer keeps its context in
                ``_ssl_context`` (the deferred context could not reach its connections).
        """
        super().__init__(**kwargs)
        self._single = not self._http2 and all(hasattr(self, n) for n in _POOL_NAMES)
        if tls is not None and getattr(self, "_ssl_context", False) is not None:
            raise RuntimeError(
                "httpcore.AsyncConnectionPool no longer keeps its TLS context in `_ssl_context`; "
                "the deferred TLS context needs updating for this httpcore version"
            )
        self._tls = tls

    def create_connection(self, origin: httpcore.Origin) -> httpcore.AsyncConnectionInterface:
        """The connection httpcore makes; the first https one builds the deferred context."""
        tls = self._tls
        if tls is not None and origin.scheme == b"https":
            self._ssl_context = tls()
            self._tls = None
        return super().create_connection(origin)

    def _assign_requests_to_connections(self) -> list[httpcore.AsyncConnectionInterface]:
        if not self._single:
            return super()._assign_requests_to_connections()
        spoken: set[int] = set()
        queued = []
        for pool_request in self._requests:
            if pool_request.connection is None:
                queued.append(pool_request)
            else:
                spoken.add(id(pool_request.connection))

        # One pass over the connections, three questions each at most. A connection busy with
        # a request (spoken for, or not idle) cannot have expired: an HTTP/1.1 connection's
        # keep-alive clock and its "server closed me" check both apply only while it is idle,
        # and a connection still connecting expires only once its connect failed, which also
        # makes it idle. So only idle connections pay ``has_expired`` (a clock read and a
        # socket poll), and only on a pass that may hand one out: with no request queued (a
        # response closing), an expired idle connection is found by the next request's pass,
        # before it could be used, or closed as surplus keep-alive. A burst of N streams ran
        # N passes over every connection, each polling every idle socket (issue 15).
        closing: list[httpcore.AsyncConnectionInterface] = []
        kept: list[httpcore.AsyncConnectionInterface] = []
        idle: list[httpcore.AsyncConnectionInterface] = []
        check_expiry = bool(queued)
        for connection in self._connections:
            if connection.is_closed():
                continue
            if id(connection) in spoken or not connection.is_idle():
                kept.append(connection)
            elif check_expiry and (connection.has_expired() or _unread_bytes(connection)):
                closing.append(connection)
            else:
                kept.append(connection)
                idle.append(connection)
        surplus = len(idle) - self._max_keepalive_connections
        if surplus > 0:
            for connection in idle[:surplus]:
                kept.remove(connection)
                closing.append(connection)
            idle = idle[surplus:]
        if not queued:
            self._connections[:] = kept
            return closing

        # An HTTP/1.1 connection can take a request exactly when it is idle and established.
        available = [c for c in idle if c.is_available()]
        for pool_request in queued:
            origin = pool_request.request.url.origin
            for index, connection in enumerate(available):
                if connection.can_handle_request(origin):
                    del available[index]
                    idle.remove(connection)
                    pool_request.assign_to_connection(connection)
                    break
            else:
                if len(kept) >= self._max_connections:
                    if not idle:
                        continue  # stays queued until a connection is released
                    victim = idle.pop(0)
                    kept.remove(victim)
                    if victim in available:
                        available.remove(victim)
                    closing.append(victim)
                connection = self.create_connection(origin)
                kept.append(connection)
                pool_request.assign_to_connection(connection)
        self._connections[:] = kept
        return closing


class SingleAssignmentHTTPProxy(SingleAssignmentPool, httpcore.AsyncHTTPProxy):
    """httpcore's HTTP(S) proxy pool with :class:`SingleAssignmentPool`'s assignment pass.

    For an endpoint's explicit ``client_kwargs={"proxy": ...}``: httpx would build the proxy's
    transport over httpcore's own ``AsyncHTTPProxy`` (a subclass of its connection pool that
    only changes which connection it creates), so the pass above, the leftover-bytes check
    included, did not apply to proxied requests. Connections, forwarding and tunnelling are
    httpcore's ``AsyncHTTPProxy``; the constructor takes its arguments.
    """

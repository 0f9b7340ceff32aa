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
- the keep-alive limit counts idle connections, as ``httpx.Limits`` documents it.

Everything else (creating, expiring and closing connections, the queue order, the pool
timeout) is httpcore's own code. The pass reads private names of httpcore 1.0's pool; the class
checks them when it is created and, when one is missing, leaves httpcore's pass in place.
"""

from __future__ import annotations

from typing import Any

import httpcore

__all__ = ["SingleAssignmentPool"]

_POOL_NAMES = (
    "_requests",
    "_connections",
    "_http2",
    "_max_connections",
    "_max_keepalive_connections",
    "create_connection",
)


class SingleAssignmentPool(httpcore.AsyncConnectionPool):
    """An ``httpcore.AsyncConnectionPool`` that never hands one idle connection to two requests."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._single = not self._http2 and all(hasattr(self, n) for n in _POOL_NAMES)

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

        closing: list[httpcore.AsyncConnectionInterface] = []
        kept: list[httpcore.AsyncConnectionInterface] = []
        idle: list[httpcore.AsyncConnectionInterface] = []
        for connection in self._connections:
            if connection.is_closed():
                continue
            if connection.has_expired():
                closing.append(connection)
                continue
            kept.append(connection)
            if id(connection) not in spoken and connection.is_idle():
                idle.append(connection)
        surplus = len(idle) - self._max_keepalive_connections
        if surplus > 0:
            for connection in idle[:surplus]:
                kept.remove(connection)
                closing.append(connection)
            idle = idle[surplus:]

        available = [c for c in kept if id(c) not in spoken and c.is_available()]
        for pool_request in queued:
            origin = pool_request.request.url.origin
            for index, connection in enumerate(available):
                if connection.can_handle_request(origin):
                    del available[index]
                    if connection in idle:
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

"""Serve a request handler of the test's own on loopback for exactly the ``with`` block.

Tests that need an answer no fake-server scenario renders (a usage shape one vendor sends, a
server no event loop owns) each started a ``ThreadingHTTPServer`` in a daemon thread and had to
remember the three steps that stop it: ``shutdown`` (end the accept loop), ``server_close``
(release the port) and the thread's ``join``. Missing one leaks a port or a thread into the
next test, and the copies drifted (one joined with a bound, one without). :func:`serving` does
it once, on every exit path, error or not.

Two things the copies did not do:

* Connections still open at the end (an HTTP/1.1 client keeps idle ones in its pool) are shut
  down too, so no handler thread stays blocked reading a socket after the block: the server is
  really gone, as a stopped real server would be.
* With ``tls``, the handshake runs in the connection's own handler thread, not in the accept
  loop: wrapping the listening socket (what the copies did) makes ``accept`` do the handshake,
  so one client that connects and sends nothing stalls every other connection. A handshake the
  client refuses closes that connection quietly, as it did there.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["STOP_GRACE", "ServingError", "serving"]

STOP_GRACE = 5.0
"""Seconds the handlers still running at the end may take to return before it is an error."""
_POLL = 0.05
"""How often the accept loop looks for a stop request (the library's 0.5 s was each exit's cost)."""

_Request = Any  # socketserver's own type for an accepted connection (a socket here)


class ServingError(RuntimeError):
    """A handler thread was still running :data:`STOP_GRACE` seconds after the server stopped.

    Its connection was shut down, so only a handler blocked in the test's own code (waiting on an
    event that never comes, say) stays: that is a bug in the test, reported rather than left
    running into the next one.
    """


class _LoopbackServer(ThreadingHTTPServer):
    """A threading server that knows its live connections, and does TLS per connection."""

    daemon_threads = True  # a stuck handler never keeps the interpreter alive
    block_on_close = False  # stop() joins the handlers itself, with a bound

    def __init__(self, handler: type[BaseHTTPRequestHandler], tls: ssl.SSLContext | None) -> None:
        self._tls = tls
        self._lock = threading.Lock()
        self._live: dict[_Request, threading.Thread] = {}
        super().__init__(("127.0.0.1", 0), handler)

    def get_request(self) -> tuple[socket.socket, Any]:
        connection, address = super().get_request()
        if self._tls is None:
            return connection, address
        try:
            # The handshake happens on the handler thread's first read, never in the accept loop.
            wrapped = self._tls.wrap_socket(
                connection, server_side=True, do_handshake_on_connect=False
            )
        except BaseException:
            connection.close()
            raise
        return wrapped, address

    def process_request(self, request: _Request, client_address: Any) -> None:
        # Registered here, on the accept loop, before the handler thread starts: once
        # shutdown() has returned, every connection that exists is in ``_live``.
        worker = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name=f"serving-{self.server_address[1]}-handler",
            daemon=True,
        )
        with self._lock:
            self._live[request] = worker
        worker.start()

    def process_request_thread(self, request: _Request, client_address: Any) -> None:
        try:
            if self._tls is not None and not self._handshake(request):
                self.shutdown_request(request)
                return
            super().process_request_thread(request, client_address)
        finally:
            with self._lock:
                self._live.pop(request, None)

    @staticmethod
    def _handshake(request: ssl.SSLSocket) -> bool:
        """The TLS handshake, on this connection's thread; False when it did not complete.

        A failed handshake is the client's outcome to report (a TLS test's client refusing an
        untrusted certificate, say), not the handler's error: the handler never ran, so the
        connection just closes, as a real server's would, with no traceback on stderr.
        """
        try:
            request.do_handshake()
        except OSError:  # ssl.SSLError included; also the client leaving mid-handshake
            return False
        return True

    def stop(self, grace: float) -> list[str]:
        """Stop accepting, release the port, end live connections; the handlers still running.

        Returns the names of the handler threads alive ``grace`` seconds later (none, normally).
        """
        self.shutdown()
        self.server_close()
        with self._lock:
            live = dict(self._live)
        for request in live:
            # socket.socket's own shutdown, also for a TLS socket: it wakes the handler's
            # blocked read without tearing down the TLS object that thread is using. OSError:
            # the client already closed it.
            with contextlib.suppress(OSError):
                socket.socket.shutdown(request, socket.SHUT_RDWR)
        end = time.monotonic() + grace
        for worker in live.values():
            worker.join(max(0.0, end - time.monotonic()))
        return [worker.name for worker in live.values() if worker.is_alive()]


@contextlib.contextmanager
def serving(
    handler: type[BaseHTTPRequestHandler], *, tls: ssl.SSLContext | None = None
) -> Iterator[str]:
    """Serve ``handler`` on a free loopback port; yield the base URL; always stop at the end.

    The URL is ``http://127.0.0.1:<port>`` (``https://`` with ``tls``, a server-side
    context), with no path and no trailing slash. Each connection gets its own daemon thread,
    so a synchronous test may drive several event loops against the server. On leaving the
    block, error or not, the accept loop ends, the port is released and open connections are
    shut down.

    Raises:
        ServingError: On a normal exit, a handler thread was still running
            :data:`STOP_GRACE` seconds after its connection was shut down. (When the block
            itself raised, its error propagates and this one is not raised over it.)
    """
    server = _LoopbackServer(handler, tls)
    port = server.server_address[1]
    try:
        accept = threading.Thread(
            target=server.serve_forever, args=(_POLL,), name=f"serving-{port}", daemon=True
        )
        accept.start()
    except BaseException:
        server.server_close()
        raise
    failed = False
    try:
        yield f"{'https' if tls is not None else 'http'}://127.0.0.1:{port}"
    except BaseException:
        failed = True
        raise
    finally:
        stuck = server.stop(STOP_GRACE)
        accept.join()
        if stuck and not failed:
            raise ServingError(
                f"serving on port {port}: {len(stuck)} handler thread(s) still running "
                f"{STOP_GRACE:g} s after the server stopped ({', '.join(stuck)}); a handler is "
                "blocked in the test's own code"
            )

"""``serving``: a handler of the test's own on loopback, stopped on every way out of the block."""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from lionagi.service_testing import ServingError, _serving, serving


class _Hello(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the client may hold the connection open

    def do_GET(self) -> None:
        body = b"hello " + self.path.encode()
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read answers."""


def _port(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None
    return port


def _get(url: str, path: str = "/x") -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", _port(url), timeout=5)
    try:
        connection.request("GET", path)
        reply = connection.getresponse()
        return reply.status, reply.read()
    finally:
        connection.close()


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


def _serving_threads() -> set[str]:
    return {t.name for t in threading.enumerate() if t.name.startswith("serving-")}


def test_serves_on_loopback_and_releases_the_port() -> None:
    before = _serving_threads()
    with serving(_Hello) as url:
        assert url.startswith("http://127.0.0.1:")
        assert not url.endswith("/")
        assert _get(url, "/ping") == (200, b"hello /ping")
        port = _port(url)
    assert _refused(port)
    # the port is free again: it can be bound at once
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))
    assert _serving_threads() == before


def test_stops_when_the_block_raises() -> None:
    before = _serving_threads()
    ports: list[int] = []

    def failing_block() -> None:
        with serving(_Hello) as url:
            assert _get(url)[0] == 200
            ports.append(_port(url))
            raise LookupError("from the test")

    with pytest.raises(LookupError, match="from the test"):
        failing_block()
    assert _refused(ports[0])
    assert _serving_threads() == before


def test_an_idle_keep_alive_connection_is_shut_down_at_the_end() -> None:
    before = _serving_threads()
    with serving(_Hello) as url:
        client = http.client.HTTPConnection("127.0.0.1", _port(url), timeout=5)
        client.request("GET", "/kept")
        reply = client.getresponse()
        assert reply.read() == b"hello /kept"
        # the connection stays open in the client, its handler thread waiting for a request
        assert len(_serving_threads() - before) == 2
    try:
        # without the shutdown the handler thread would still be blocked reading this socket
        assert _serving_threads() == before
        assert client.sock is not None
        client.sock.settimeout(2)
        assert client.sock.recv(1) == b""  # the server closed its end
    finally:
        client.close()


class _Stuck(BaseHTTPRequestHandler):
    entered = threading.Event()
    release = threading.Event()

    def do_GET(self) -> None:
        self.entered.set()
        self.release.wait(30)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


def _stuck_request(client: socket.socket, *, then_raise: bool) -> None:
    """Serve ``_Stuck``, send it a request, wait until its handler runs; optionally fail."""
    with serving(_Stuck) as url:
        client.connect(("127.0.0.1", _port(url)))
        client.sendall(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n")
        assert _Stuck.entered.wait(5)
        if then_raise:
            raise LookupError("the test's own failure")


@pytest.mark.parametrize(
    ("then_raise", "expected", "match"),
    [
        (False, ServingError, "1 handler thread"),  # reported, not left running
        (True, LookupError, "own failure"),  # the block's own error is not hidden by it
    ],
    ids=["reported", "block-error-kept"],
)
def test_a_handler_stuck_in_test_code(
    monkeypatch: pytest.MonkeyPatch, then_raise: bool, expected: type[Exception], match: str
) -> None:
    monkeypatch.setattr(_serving, "STOP_GRACE", 0.2)
    _Stuck.entered.clear()
    _Stuck.release.clear()
    client = socket.socket()
    try:
        with pytest.raises(expected, match=match):
            _stuck_request(client, then_raise=then_raise)
    finally:
        _Stuck.release.set()
        client.close()


@pytest.fixture(scope="module")
def tls_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[ssl.SSLContext, Path]:
    """A server context for 127.0.0.1 and the CA file that trusts it (``trustme``)."""
    trustme = pytest.importorskip("trustme", reason="the TLS cases need trustme to make a CA")
    ca = trustme.CA()
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server)
    ca_file = tmp_path_factory.mktemp("ca") / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    return server, ca_file


def _get_tls(url: str, ca_file: Path) -> tuple[int, bytes]:
    client = ssl.create_default_context(cafile=str(ca_file))
    connection = http.client.HTTPSConnection("127.0.0.1", _port(url), timeout=5, context=client)
    try:
        connection.request("GET", "/secure")
        reply = connection.getresponse()
        return reply.status, reply.read()
    finally:
        connection.close()


def test_tls_serves_https(tls_pair: tuple[ssl.SSLContext, Path]) -> None:
    context, ca_file = tls_pair
    with serving(_Hello, tls=context) as url:
        assert url.startswith("https://127.0.0.1:")
        assert _get_tls(url, ca_file) == (200, b"hello /secure")
        port = _port(url)
    assert _refused(port)


def test_a_silent_tls_client_does_not_stall_the_others(
    tls_pair: tuple[ssl.SSLContext, Path],
) -> None:
    # The handshake runs per connection: a client that connects and never says hello holds
    # only its own handler thread, not the accept loop.
    context, ca_file = tls_pair
    with serving(_Hello, tls=context) as url:
        silent = socket.create_connection(("127.0.0.1", _port(url)), timeout=5)
        try:
            assert _get_tls(url, ca_file) == (200, b"hello /secure")
        finally:
            silent.close()


def test_a_refused_handshake_closes_quietly_and_the_server_goes_on(
    tls_pair: tuple[ssl.SSLContext, Path], capfd: pytest.CaptureFixture[str]
) -> None:
    # The client's refusal is the client's outcome: no handler ran, so no traceback.
    context, ca_file = tls_pair
    with serving(_Hello, tls=context) as url:
        untrusting = ssl.create_default_context()  # the throwaway CA is not in it
        connection = http.client.HTTPSConnection(
            "127.0.0.1", _port(url), timeout=5, context=untrusting
        )
        with pytest.raises(ssl.SSLCertVerificationError):
            connection.request("GET", "/")
        connection.close()
        assert _get_tls(url, ca_file) == (200, b"hello /secure")
    assert "Traceback" not in capfd.readouterr().err

"""The endpoint's connection pool hands an idle connection to one request at a time.

httpcore's own pool gives an idle HTTP/1.1 connection to every request queued before the first
one starts on it; the others fail with ``ConnectionNotAvailable`` and queue again, each retry a
full pass over the pool. :class:`SingleAssignmentPool` is what every endpoint's transport uses.
Real loopback server and httpcore's own request path; the pass's private inputs only where a
race cannot be produced on demand.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.abc
import httpcore
import pytest
from httpcore._async import connection_pool as stock

from lionagi.service._transport.http.client import DEFAULT_LIMITS
from lionagi.service._transport.http.pinning import PinnedTransport
from lionagi.service._transport.http.pool import SingleAssignmentPool
from lionagi.service._transport.http.reads import SupervisedStream

fake_server = pytest.importorskip("lionagi.service_testing.fake_server")

BODY = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}]}'
HEADERS = [(b"content-type", b"application/json"), (b"authorization", b"Bearer sk-test")]


@pytest.fixture
async def url() -> AsyncIterator[str]:
    async with fake_server.FakeProviderServer() as server:
        yield f"{server.base_url}/v1/chat/completions"


@pytest.fixture
def retries(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts ``ConnectionNotAvailable`` retries (httpcore clears the request's connection)."""
    seen: list[int] = []
    original = stock.AsyncPoolRequest.clear_connection

    def counting(self: Any) -> None:
        seen.append(1)
        original(self)

    monkeypatch.setattr(stock.AsyncPoolRequest, "clear_connection", counting)
    return seen


async def _post(pool: httpcore.AsyncConnectionPool, url: str) -> int:
    response = await pool.request("POST", url, headers=HEADERS, content=BODY)
    return response.status


async def _burst(pool: httpcore.AsyncConnectionPool, url: str, n: int) -> list[int]:
    statuses: list[int] = []

    async def one() -> None:
        statuses.append(await _post(pool, url))

    async with anyio.create_task_group() as tg:
        for _ in range(n):
            tg.start_soon(one)
    return statuses


def test_every_endpoint_transport_uses_the_single_assignment_pool() -> None:
    assert type(PinnedTransport(limits=DEFAULT_LIMITS)._pool) is SingleAssignmentPool


async def test_a_burst_after_a_kept_alive_call_retries_no_request(
    url: str, retries: list[int]
) -> None:
    async with SingleAssignmentPool(max_connections=None, max_keepalive_connections=100) as pool:
        assert await _post(pool, url) == 200  # leaves one idle, kept-alive connection
        assert len(pool.connections) == 1
        assert await _burst(pool, url, 24) == [200] * 24
        assert retries == []
        assert len(pool.connections) == 24  # the idle one reused once, 23 opened


async def test_httpcores_own_pool_retries_on_the_same_burst(url: str, retries: list[int]) -> None:
    # Why the class exists: if this stops failing, httpcore fixed its pass and ours can go.
    async with httpcore.AsyncConnectionPool(
        max_connections=None, max_keepalive_connections=100
    ) as pool:
        assert await _post(pool, url) == 200
        assert await _burst(pool, url, 24) == [200] * 24
        assert len(retries) >= 10


@pytest.mark.parametrize(
    ("pool_class", "idle_kept"), [(SingleAssignmentPool, 2), (httpcore.AsyncConnectionPool, 0)]
)
async def test_the_keep_alive_limit_counts_idle_connections(
    url: str, pool_class: type[httpcore.AsyncConnectionPool], idle_kept: int
) -> None:
    # Six responses open, two finish: two idle connections under a limit of three are kept.
    # httpcore's pass compares the number of all connections with the limit and closes both.
    limits = {"max_connections": None, "max_keepalive_connections": 3}
    async with pool_class(**limits) as pool, contextlib.AsyncExitStack() as stack:
        responses = [
            await stack.enter_async_context(pool.stream("POST", url, headers=HEADERS, content=BODY))
            for _ in range(6)
        ]
        for response in responses:
            await response.aread()
        for response in responses[:2]:
            await response.aclose()
        idle = [c for c in pool.connections if c.is_idle()]
        assert len(idle) == idle_kept
        assert len(pool.connections) == 4 + idle_kept


class _Connection:
    """Only what the assignment pass reads of a connection: an idle HTTP/1.1 one."""

    def __init__(self) -> None:
        self.closed = False

    def is_closed(self) -> bool:
        return False

    def has_expired(self) -> bool:
        return False

    def is_idle(self) -> bool:
        return True

    def is_available(self) -> bool:
        return True

    def can_handle_request(self, origin: Any) -> bool:
        return True


def _pending(pool: SingleAssignmentPool, connection: Any | None) -> Any:
    request = stock.AsyncPoolRequest(httpcore.Request("GET", "http://example.test/"))
    if connection is not None:
        request.assign_to_connection(connection)
    pool._requests.append(request)
    return request


async def test_a_connection_handed_to_a_pending_request_is_not_closed_or_handed_again() -> None:
    # encode/httpcore#1110: a pass could close, as surplus keep-alive, a connection it had
    # just handed out; and hand it to the next queued request.
    pool = SingleAssignmentPool(max_connections=1, max_keepalive_connections=0)
    handed = _Connection()
    pool._connections.append(handed)  # type: ignore[arg-type]
    _pending(pool, handed)
    waiting = _pending(pool, None)
    assert pool._assign_requests_to_connections() == []
    assert pool._connections == [handed]
    assert waiting.is_queued()  # at max_connections it waits for a release


async def test_a_pool_that_may_speak_http2_keeps_httpcores_pass() -> None:
    # One HTTP/2 connection takes many requests; handing it out once would serialize them.
    pool = SingleAssignmentPool(http2=True, max_connections=1)
    shared = _Connection()
    pool._connections.append(shared)  # type: ignore[arg-type]
    first, second = _pending(pool, None), _pending(pool, None)
    pool._assign_requests_to_connections()
    assert first.connection is shared and second.connection is shared


class _SupervisedBackend(httpcore.AsyncNetworkBackend):
    """anyio's backend with each stream wrapped as the endpoint's pinned backend wraps it."""

    def __init__(self) -> None:
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - the httpcore backend interface
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.AsyncNetworkStream:
        inner = await self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        return SupervisedStream(inner)

    async def sleep(self, seconds: float) -> None:
        await anyio.sleep(seconds)


@contextlib.asynccontextmanager
async def _closing_server() -> AsyncIterator[tuple[str, list[int]]]:
    """A server that answers one request per connection, promises keep-alive, then hangs up.

    Yields its URL and the list of accepted connections (one entry each).
    """
    accepted: list[int] = []

    async def handle(stream: anyio.abc.SocketStream) -> None:
        accepted.append(1)
        async with stream:
            data = b""
            while b"\r\n\r\n" not in data:
                data += await stream.receive()
            head, _, body = data.partition(b"\r\n\r\n")
            length = next(
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            while len(body) < length:
                body += await stream.receive()
            await stream.send(
                b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok"
            )

    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, handle)
        yield f"http://127.0.0.1:{port}/v1/chat/completions", accepted
        tg.cancel_scope.cancel()


async def _until(predicate: Any) -> None:
    """Poll a socket's state (no event announces a peer's FIN) for at most five seconds."""
    with anyio.fail_after(5):
        while not predicate():  # noqa: ASYNC110
            await anyio.sleep(0.01)


async def test_an_idle_connection_the_server_closed_is_not_handed_to_the_next_request() -> None:
    # The pass skips the expiry check on passes that hand nothing out; the one that does must
    # still notice the server's hang-up (EOF on the idle socket), or the request fails on it.
    backend = _SupervisedBackend()
    async with (
        _closing_server() as (url, accepted),
        SingleAssignmentPool(
            max_connections=None, max_keepalive_connections=10, network_backend=backend
        ) as pool,
    ):
        for expected in range(1, 4):
            assert await _post(pool, url) == 200
            assert len(accepted) == expected
            idle = pool.connections[-1]
            await _until(idle.has_expired)  # the hang-up has reached the socket
        assert len(pool.connections) == 1  # each hung-up connection was dropped, not reused


async def test_the_supervised_stream_answers_is_readable_as_httpcore_does() -> None:
    # SupervisedStream answers "is_readable" itself (a direct socket poll); httpcore's anyio
    # stream is the reference answer in each state of a kept-alive connection.
    async with _closing_server() as (url, _):
        port = int(url.split(":")[2].split("/")[0])
        inner = await httpcore.AnyIOBackend().connect_tcp("127.0.0.1", port)
        supervised = SupervisedStream(inner)
        assert supervised.get_extra_info("is_readable") is False  # open, nothing pending
        assert inner.get_extra_info("is_readable") is False
        await supervised.write(b"POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n")
        await _until(lambda: inner.get_extra_info("is_readable"))
        assert supervised.get_extra_info("is_readable") is True  # response bytes, then EOF
        await supervised.aclose()
        assert supervised.get_extra_info("is_readable") is True  # closed: nothing to reuse
        assert inner.get_extra_info("is_readable") is True


class _CountingConnection(_Connection):
    def __init__(self, *, idle: bool) -> None:
        super().__init__()
        self.idle = idle
        self.expiry_checks = 0

    def has_expired(self) -> bool:
        self.expiry_checks += 1
        return False

    def is_idle(self) -> bool:
        return self.idle

    def is_available(self) -> bool:
        return self.idle


async def test_only_a_pass_that_may_hand_out_a_connection_checks_idle_ones_for_expiry() -> None:
    # The check polls the socket; a burst runs one pass per request entering and leaving, over
    # every connection. Busy connections cannot expire, and a pass with nothing queued hands
    # nothing out, so neither asks (issue 15: 0.4 s of a 512-stream burst went here).
    pool = SingleAssignmentPool(max_connections=None, max_keepalive_connections=10)
    busy = [_CountingConnection(idle=False) for _ in range(3)]
    idle = [_CountingConnection(idle=True) for _ in range(2)]
    pool._connections.extend([*busy, *idle])  # type: ignore[list-item]
    assert pool._assign_requests_to_connections() == []
    assert [c.expiry_checks for c in [*busy, *idle]] == [0] * 5
    assert pool._connections == [*busy, *idle]

    waiting = _pending(pool, None)
    assert pool._assign_requests_to_connections() == []
    assert [c.expiry_checks for c in busy] == [0, 0, 0]
    assert [c.expiry_checks for c in idle] == [1, 1]
    assert waiting.connection is idle[0]

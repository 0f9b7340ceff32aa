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
import httpcore
import pytest
from httpcore._async import connection_pool as stock

from lionagi.service._transport.http.client import DEFAULT_LIMITS
from lionagi.service._transport.http.pinning import PinnedTransport
from lionagi.service._transport.http.pool import SingleAssignmentPool

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

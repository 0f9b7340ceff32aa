"""``scripted_replies_server``: the n-th request gets the n-th scripted reply, the last repeats.

A retry test scripts a failure and then the answer; five test files each carried their own
server for it. The helper is the one ``scripted_stream_server`` now delegates to, so both are
checked here: reply order and repetition, the count, the wire form of each write, and the
argument errors raised where the mistake was made (at the call, not when entered).
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import httpx
import pytest

from lionagi.service_testing import scripted_replies_server, scripted_stream_server

# anyio's pytest plugin (anyio is a dependency): this package's dev group has no other async
# test runner, and a run of the package alone must still run these.
pytestmark = pytest.mark.anyio


async def _post_all(url: str, count: int) -> list[httpx.Response]:
    """One request after another, as an attempt policy makes them."""
    async with httpx.AsyncClient() as client:
        return [await client.post(f"{url}/chat/completions", json={"n": n}) for n in range(count)]


async def test_the_nth_request_gets_the_nth_reply_and_the_last_repeats() -> None:
    replies = [[b"first"], [b"sec", b"ond"], [b"last"]]
    async with scripted_replies_server(replies, content_type="application/json") as server:
        responses = await _post_all(server.url, 5)
    assert [r.content for r in responses] == [b"first", b"second", b"last", b"last", b"last"]
    assert server.requests == 5
    assert server.request_lines == ["POST /v1/chat/completions HTTP/1.1"] * 5
    assert {r.headers["content-type"] for r in responses} == {"application/json"}
    assert {r.status_code for r in responses} == {200}


async def test_a_single_reply_serves_every_request() -> None:
    async with scripted_replies_server([[b"only"]], status=503) as server:
        responses = await _post_all(server.url, 3)
    assert [(r.status_code, r.content) for r in responses] == [(503, b"only")] * 3
    assert server.requests == 3


async def test_scripted_stream_server_is_the_same_server_with_one_reply() -> None:
    async with scripted_stream_server([b"a", b"b"], path="/api") as server:
        responses = await _post_all(server.url, 2)
    assert [r.content for r in responses] == [b"ab", b"ab"]
    assert server.requests == 2
    assert server.request_lines == ["POST /api/chat/completions HTTP/1.1"] * 2


async def _raw_post(url: str) -> bytes:
    """The response bytes as sent, so the chunk framing of each write is visible."""
    parts = urlsplit(url)
    assert parts.hostname is not None
    assert parts.port is not None
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    writer.write(b"POST /v1 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
    await writer.drain()
    data = await reader.read()  # the server closes after its reply
    writer.close()
    await writer.wait_closed()
    return data


async def test_each_write_of_a_reply_is_its_own_chunk() -> None:
    async with scripted_replies_server([[b"x"], [b"ab", b"cde"]]) as server:
        first = await _raw_post(server.url)
        second = await _raw_post(server.url)
    head, _, body = second.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"Transfer-Encoding: chunked" in head
    assert body == b"2\r\nab\r\n3\r\ncde\r\n0\r\n\r\n"
    assert first.partition(b"\r\n\r\n")[2] == b"1\r\nx\r\n0\r\n\r\n"


@pytest.mark.parametrize(
    ("replies", "error", "named"),
    [
        ([], ValueError, "replies: "),
        ((), ValueError, "replies: "),
        ([[b"a"], []], ValueError, "replies[1]: "),
        (b"ab", TypeError, "replies: "),
        ([b"ab"], TypeError, "replies[0]: "),
        ([[b"a"], [b"b", "c"]], TypeError, "replies[1][1]: "),
    ],
    ids=["empty_list", "empty_tuple", "empty_reply", "bytes", "flat_writes", "str_write"],
)
def test_a_bad_script_fails_at_the_call_naming_the_argument(
    replies: object, error: type[Exception], named: str
) -> None:
    with pytest.raises(error) as raised:
        scripted_replies_server(replies)  # type: ignore[arg-type]
    assert str(raised.value).startswith(named)


def test_scripted_stream_server_names_its_own_argument() -> None:
    with pytest.raises(ValueError, match=r"^writes: "):
        scripted_stream_server([])
    with pytest.raises(TypeError, match=r"^writes: "):
        scripted_stream_server(b"data: x\n\n")  # type: ignore[arg-type]

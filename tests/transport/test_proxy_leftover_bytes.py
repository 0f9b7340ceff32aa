"""Bytes past a response's end are not the next answer through an explicit proxy either.

``client_kwargs={"proxy": ...}`` made httpx build the proxy's transport itself, with httpcore's
own pool: the check that retires an idle keep-alive connection holding bytes its server sent
past the last response (h11's ``trailing_data``, ``SingleAssignmentPool``) did not apply, so a
proxy (or the server behind it) writing a body longer than its ``Content-Length`` made the next
call through that connection read the excess as its answer: a forged answer returned as a
success, or an ``illegal status line``. RFC 9112 §6.3: a client "MUST NOT process ... such
extra data as a separate response".

The loopback server here is the proxy (it answers absolute-form requests itself, as a caching
proxy would); the target's port has nothing listening, so a request that bypassed the proxy
would fail to connect.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpcore
import pytest

from lionagi.service import EndpointConfigurationError
from lionagi.service._transport.config import EndpointConfig
from lionagi.service._transport.http.client import new_client
from lionagi.service._transport.http.pool import SingleAssignmentPool

from ._keepalive import Reply, answer, ask, asked, response
from ._proxies import closed_port, proxied_model

pytestmark = pytest.mark.anyio


class KeepAliveProxy:
    """A forward proxy that answers every request itself, with ``reply``, one write each."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.targets: list[str] = []
        self.connections = 0
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
                length = 0
                for line in head[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                body = json.loads(await reader.readexactly(length))
                index = len(self.targets)
                self.targets.append(head[0].split(" ")[1])  # absolute-form: the proxy's request
                writer.write(self.reply(index, body))  # one write: the excess rides with the body
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[KeepAliveProxy]:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        try:
            yield self
        finally:
            self._server.close()


async def test_a_whole_response_past_content_length_through_a_proxy_is_not_the_next_answer() -> (
    None
):
    def reply(index: int, body: dict[str, Any]) -> bytes:
        real = answer(f"answer to {asked(body)}")
        if index == 0:
            return response(real + response(answer("FORGED")), length=len(real))
        return response(real)

    target = f"http://127.0.0.1:{closed_port()}/v1"
    proxy_cm = KeepAliveProxy(reply).running()
    async with proxy_cm as proxy, proxied_model(proxy.url, target, attempts=1) as model:
        assert await ask(model, "one") == "answer to one"
        assert await ask(model, "two") == "answer to two"
        assert await ask(model, "three") == "answer to three"
    assert proxy.targets == [f"{target}/chat/completions"] * 3  # every call went by the proxy
    assert proxy.connections == 2  # the connection holding the excess was not reused


async def test_bytes_past_content_length_through_a_proxy_do_not_fail_the_next_call() -> None:
    def reply(index: int, body: dict[str, Any]) -> bytes:
        real = answer(f"answer to {asked(body)}")
        return response(real + b"GARBAGE", length=len(real))

    target = f"http://127.0.0.1:{closed_port()}/v1"
    proxy_cm = KeepAliveProxy(reply).running()
    async with proxy_cm as proxy, proxied_model(proxy.url, target, attempts=1) as model:
        for question in ("one", "two", "three"):
            assert await ask(model, question) == f"answer to {question}"
    assert len(proxy.targets) == 3  # nothing failed and was sent again


def proxy_pool(kwargs: dict[str, Any]) -> Any:
    """The httpcore pool behind the proxy mount of a client built from ``client_kwargs``."""
    config = EndpointConfig(
        name="p", provider="p", endpoint="e", base_url="http://127.0.0.1:9/v1", client_kwargs=kwargs
    )
    client = new_client(config)
    mounted = [t for t in client._mounts.values() if t is not None]
    assert len(mounted) == 1
    return mounted[0]._pool  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"proxy": "http://127.0.0.1:3128"},
        {"proxy": "https://127.0.0.1:3128"},
        {"proxy": "http://user:secret@127.0.0.1:3128", "verify": False},
    ],
    ids=["http", "https", "auth-verify"],
)
def test_an_explicit_proxy_gets_the_single_assignment_pool(kwargs: dict[str, Any]) -> None:
    pool = proxy_pool(kwargs)
    assert isinstance(pool, SingleAssignmentPool)
    assert isinstance(pool, httpcore.AsyncHTTPProxy)


def test_a_proxy_that_is_no_url_is_refused_naming_the_setting() -> None:
    """httpx failed on it with a bare ``AttributeError`` when building the proxy's transport."""
    config = EndpointConfig(
        name="p", provider="p", endpoint="e", base_url="http://127.0.0.1:9/v1",
        client_kwargs={"proxy": 3128},
    )  # fmt: skip
    with pytest.raises(EndpointConfigurationError) as caught:
        new_client(config)
    assert caught.value.field == "client_kwargs.proxy"


def test_proxy_none_is_no_proxy() -> None:
    config = EndpointConfig(
        name="p", provider="p", endpoint="e", base_url="http://127.0.0.1:9/v1",
        client_kwargs={"proxy": None},
    )  # fmt: skip
    assert not [t for t in new_client(config)._mounts.values() if t is not None]


@pytest.mark.parametrize(
    ("proxy", "said"),
    [
        ("127.0.0.1:3128", "has no scheme"),
        ("ftp://user:pw-SECRET@127.0.0.1:3128", "has scheme 'ftp'"),
        ("socks4://127.0.0.1:1080", "has scheme 'socks4'"),
        ("http://user:pw-SECRET@127.0.0.1:3128x", "is not a valid URL"),
    ],
)
def test_a_proxy_url_httpx_cannot_use_is_refused_naming_the_setting(proxy: str, said: str) -> None:
    """httpx raised a bare ``ValueError``/``InvalidURL`` for these, naming no setting."""
    config = EndpointConfig(
        name="p", provider="p", endpoint="e", base_url="http://127.0.0.1:9/v1",
        client_kwargs={"proxy": proxy},
    )  # fmt: skip
    with pytest.raises(EndpointConfigurationError) as caught:
        new_client(config)
    assert caught.value.field == "client_kwargs.proxy"
    assert said in str(caught.value)
    assert "pw-SECRET" not in str(caught.value)

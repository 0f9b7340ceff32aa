"""An NLIP server answering a redirect: a typed, non-retried error naming the redacted target.

Against a real HTTP server on a loopback socket (no injected transport: the endpoint's own
pinned client, as in production). Regression: the redirect was a plain ``ProviderClientError``
whose message showed a relative ``Location`` as sent (``/v2/nlip/``) and said "set url" even
when the URL came from ``base_url``; the caller could not read the target, nor tell which
setting to change, without parsing the message.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from lionagi.providers.ag2 import AG2NlipEndpoint, AG2NlipRedirectError
from lionagi.service import ProviderClientError, iModel

pytestmark = pytest.mark.anyio

_SECRET = "TOKENVALUE0123456789"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Redirecting:
    """An HTTP/1.1 server on 127.0.0.1 answering every request with one scripted status.

    ``requests`` keeps each request line, so a retry or a followed redirect would show.
    """

    def __init__(self, status: str, headers: dict[str, str], body: bytes = b"") -> None:
        self.status = status
        self.headers = headers
        self.body = body
        self.requests: list[str] = []
        self.port = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.requests.append(lines[0])
        length = next(
            (
                int(line.split(":", 1)[1])
                for line in lines
                if line.lower().startswith("content-length:")
            ),
            0,
        )
        await reader.readexactly(length)
        fields = {**self.headers, "Content-Length": str(len(self.body)), "Connection": "close"}
        answer = f"HTTP/1.1 {self.status}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items())
        writer.write(answer.encode("latin-1") + b"\r\n" + self.body)
        await writer.drain()
        writer.close()
        await writer.wait_closed()


@asynccontextmanager
async def _serve(server: Redirecting) -> AsyncIterator[str]:
    listener = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    server.port = listener.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        listener.close()
        await listener.wait_closed()


def _endpoint(**config: Any) -> AG2NlipEndpoint:
    base = {"name": "ag2-nlip", "provider": "ag2", "endpoint": "nlip", "timeout": 10.0}
    # Three attempts: a redirect must use one of them only.
    return AG2NlipEndpoint({**base, "allow_local_network": True, "max_retries": 3, **config})


async def _redirect_of(endpoint: AG2NlipEndpoint, **request: Any) -> AG2NlipRedirectError:
    with pytest.raises(ProviderClientError) as info:
        [c async for c in iModel(endpoint=endpoint).stream(prompt="x", **request)]
    assert isinstance(info.value, AG2NlipRedirectError), type(info.value)
    return info.value


async def test_absolute_redirect_names_the_redacted_target_and_the_base_url_to_set() -> None:
    server = Redirecting("307 Temporary Redirect", {})
    async with _serve(server) as origin:
        target = f"http://bob:pw-{_SECRET}@127.0.0.1:{server.port}/v2/agent/nlip/"
        server.headers["Location"] = f"{target}?token={_SECRET}#top"
        server.body = f"moved to {target}?token={_SECRET}".encode()
        endpoint = _endpoint(base_url=f"{origin}/agent")
        error = await _redirect_of(endpoint)
    assert error.status == 307
    assert error.field == "base_url"
    host = f"127.0.0.1:{server.port}"
    assert error.location == f"http://[REDACTED]@{host}/v2/agent/nlip/?token=[REDACTED]"
    assert error.suggestion == f"http://{host}/v2/agent?token=[REDACTED]"
    message = str(error)
    assert message == (
        f"NLIP server http://{host}/agent/nlip/ answered HTTP 307 redirecting to "
        f"{error.location}; redirects are not followed (the target would need its own SSRF "
        "check, and the POST could be replayed or dropped): set base_url to "
        f"{error.suggestion}"
    )
    for text in (message, error.body_excerpt, error.raw):
        assert _SECRET not in text
    assert server.requests == ["POST /agent/nlip/ HTTP/1.1"]  # one attempt, nothing followed
    assert endpoint.clients_opened == endpoint.clients_closed == 1


async def test_relative_redirect_is_resolved_against_the_request_url() -> None:
    server = Redirecting("308 Permanent Redirect", {"Location": "/v2/nlip/"})
    async with _serve(server) as origin:
        error = await _redirect_of(_endpoint(), url=f"{origin}/v1")
    host = f"127.0.0.1:{server.port}"
    assert error.field == "url"  # the request's own url chose the server
    assert error.location == f"http://{host}/v2/nlip/"
    assert error.suggestion == f"http://{host}/v2"
    assert str(error).endswith(f"set url to http://{host}/v2")
    assert server.requests == ["POST /v1/nlip/ HTTP/1.1"]


async def test_redirect_away_from_an_nlip_path_says_to_check_the_setting() -> None:
    # A login page or a moved site: there is no NLIP base URL to suggest.
    server = Redirecting("302 Found", {"Location": f"https://sso.example/login?session={_SECRET}"})
    async with _serve(server) as origin:
        error = await _redirect_of(_endpoint(), url=origin)
    assert error.location == "https://sso.example/login?session=[REDACTED]"
    assert error.suggestion is None
    assert str(error).endswith("the target is not an NLIP message path (.../nlip/): check url")
    assert _SECRET not in str(error)
    assert len(server.requests) == 1


async def test_redirect_status_without_location() -> None:
    server = Redirecting("301 Moved Permanently", {})
    async with _serve(server) as origin:
        error = await _redirect_of(_endpoint(base_url=origin))
    assert (error.status, error.location, error.suggestion) == (301, None, None)
    assert "answered HTTP 301 without a Location header" in str(error)
    assert str(error).endswith(": check base_url")
    assert len(server.requests) == 1

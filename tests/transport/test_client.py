"""The endpoint's owned HTTP client: lazy creation, one close, no reuse, configured kwargs."""

from __future__ import annotations

import httpx
import pytest

from lionagi.service import AgenticEndpoint, Endpoint, EndpointConfigurationError
from lionagi.service.http import ClientState, OpenAIChatEndpoint

CONFIG = {
    "name": "t",
    "provider": "p",
    "endpoint": "chat/completions",
    "base_url": "http://127.0.0.1:9",
    "auth_type": "none",
    "allow_local_network": True,
}


# A chat answer: the chat endpoint below refuses a 200 body that is none.
ANSWER = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}]}


class TrackingTransport(httpx.MockTransport):
    def __init__(self) -> None:
        super().__init__(lambda request: httpx.Response(200, json=ANSWER))
        self.closed = 0

    async def aclose(self) -> None:
        self.closed += 1


async def test_client_is_lazy_closed_once_and_never_reopened() -> None:
    transport = TrackingTransport()
    ep = OpenAIChatEndpoint(CONFIG, transport=transport)
    assert ep.client_state is ClientState.UNOPENED
    assert await ep.call({}) == ANSWER
    assert ep.client_state is ClientState.OPENED
    await ep.aclose()
    await ep.aclose()
    assert ep.client_state is ClientState.CLOSED
    assert transport.closed == 1
    with pytest.raises(RuntimeError, match="closed"):
        await ep.call({})
    with pytest.raises(RuntimeError, match="closed"):
        async for _ in ep.stream({}):
            pass


async def test_close_before_first_use_forbids_use() -> None:
    ep = Endpoint(CONFIG)
    await ep.aclose()
    assert ep.client_state is ClientState.CLOSED
    with pytest.raises(RuntimeError):
        await ep.call({})


async def test_async_with_closes() -> None:
    async with Endpoint(CONFIG, transport=TrackingTransport()) as ep:
        await ep.call({})
    assert ep.client_state is ClientState.CLOSED


async def test_client_kwargs_reach_the_client(serve, make_endpoint, wire):
    server = await serve(lambda req: wire.full(200, "{}"))
    ep = make_endpoint(server.base_url, client_kwargs={"headers": {"x-client": "yes"}})
    await ep.call({})
    assert server.requests[0].headers["x-client"] == "yes"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"follow_redirects": True}, "client_kwargs.follow_redirects"),
        ({"base_url": "http://x"}, "client_kwargs.base_url"),
        ({"transport": httpx.AsyncHTTPTransport()}, "client_kwargs.transport"),
    ],
    ids=["follow_redirects", "base_url", "transport"],
)
def test_client_kwargs_the_endpoint_owns_are_refused_at_construction(kwargs, field) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        Endpoint({**CONFIG, "client_kwargs": kwargs})
    assert info.value.field == field


def test_follow_redirects_false_is_accepted() -> None:
    Endpoint({**CONFIG, "client_kwargs": {"follow_redirects": False}})


async def test_client_kwargs_httpx_does_not_know_are_config_errors_at_first_use() -> None:
    ep = Endpoint({**CONFIG, "client_kwargs": {"no_such_option": 1}})
    with pytest.raises(EndpointConfigurationError) as info:
        await ep.call({})
    assert info.value.field == "client_kwargs"
    assert ep.client_state is ClientState.UNOPENED
    await ep.aclose()


async def test_agentic_endpoints_have_no_http_client() -> None:
    ep = AgenticEndpoint({**CONFIG, "base_url": "https://internal.example"})
    for helper in (ep._http_client, ep._new_client):
        with pytest.raises(TypeError, match="agentic endpoint and has no HTTP client"):
            helper()
    with pytest.raises(TypeError, match="no HTTP client"):
        ep._build_request(None, {}, {}, 1.0)
    with pytest.raises(TypeError, match="no HTTP client"):
        await ep._send(None, None)
    await ep.aclose()


async def test_a_cookie_one_response_sets_is_not_sent_on_later_requests(serve, make_endpoint, wire):
    """The pooled client is shared by every caller of an iModel: it carries no session state."""
    server = await serve(lambda req: wire.full(200, "{}", extra={"Set-Cookie": "sid=abc; Path=/"}))
    ep = make_endpoint(server.base_url)
    await ep.call({})
    await ep.call({})
    assert len(server.requests) == 2
    assert "cookie" not in server.requests[1].headers
    assert len(ep._http_client().cookies) == 0


async def test_client_kwargs_cookies_opt_into_httpx_cookie_jar(serve, make_endpoint, wire):
    server = await serve(lambda req: wire.full(200, "{}", extra={"Set-Cookie": "sid=abc; Path=/"}))
    ep = make_endpoint(server.base_url, client_kwargs={"cookies": {"lang": "en"}})
    await ep.call({})
    await ep.call({})
    assert server.requests[0].headers["cookie"] == "lang=en"
    assert sorted(server.requests[1].headers["cookie"].split("; ")) == ["lang=en", "sid=abc"]

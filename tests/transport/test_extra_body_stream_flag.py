"""The stream flag written in `extra_body` is answered as the transport's key, not a body field.

A call's `extra_body={"stream": True}` used to get the generic advice for a declared field ("pass
it as a request field so it is validated"), and doing that is refused in turn ("set by the
transport"). A default holding it is refused at construction in the same terms, also on an
endpoint with no request model, where `extra_body` is merged into the body unchecked.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from lionagi.service import Endpoint, EndpointConfig, EndpointConfigurationError, iModel
from lionagi.service_testing.fake_server import FakeProviderServer

KEY = "sk-flag-0123456789abcdef"
MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with FakeProviderServer.running_in_thread() as server:
        yield f"{server.base_url}/v1"


def _openai(base_url: str, **extra: Any) -> iModel:
    return iModel(
        model="openai/gpt-4.1", base_url=base_url, allow_local_network=True, api_key=KEY, **extra
    )


def _open_endpoint(base_url: str, **extra: Any) -> iModel:
    config = EndpointConfig(
        name="open_chat",
        provider="open",
        base_url=base_url,
        endpoint="chat/completions",
        allow_local_network=True,
        api_key=KEY,
        **extra,
    )
    return iModel(endpoint=Endpoint(config))


@pytest.mark.anyio
async def test_a_calls_extra_body_stream_flag_says_the_transport_sets_it(base_url: str) -> None:
    with pytest.raises(EndpointConfigurationError) as caught:
        await _openai(base_url).invoke(messages=MESSAGES, extra_body={"stream": True})
    assert caught.value.field == "extra_body.stream"
    assert "set by the transport" in str(caught.value)
    assert "pass it as a request field" not in str(caught.value)


@pytest.mark.parametrize("build", [_openai, _open_endpoint], ids=["declared", "no request model"])
def test_a_default_holding_the_stream_flag_is_refused_when_built(build: Any, base_url: str) -> None:
    with pytest.raises(EndpointConfigurationError) as caught:
        build(base_url, request_defaults={"extra_body": {"stream": True}})
    assert caught.value.field == "request_defaults.extra_body.stream"
    assert "remove it from request_defaults.extra_body" in str(caught.value)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"

"""Shared fixtures: a fake provider server on loopback and endpoints built from the catalog row."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from lionagi.providers.anthropic import AnthropicMessagesEndpoint
from lionagi.service import match_endpoint
from lionagi.service_testing import FakeProviderServer

API_KEY = "sk-ant-test-FAKEkey0123456789abcdef"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def fake() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as server:
        yield server


@pytest.fixture
def messages_endpoint() -> Callable[..., AnthropicMessagesEndpoint]:
    """``messages_endpoint(server, **overrides)``: the catalog's endpoint aimed at ``server``."""

    def make(server: FakeProviderServer, **overrides: Any) -> AnthropicMessagesEndpoint:
        endpoint = match_endpoint(
            "anthropic",
            "messages",
            base_url=server.base_url + "/v1",
            api_key=API_KEY,
            allow_local_network=True,
            **overrides,
        )
        assert isinstance(endpoint, AnthropicMessagesEndpoint)
        return endpoint

    return make

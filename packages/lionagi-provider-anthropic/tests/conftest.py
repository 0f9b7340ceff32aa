"""Shared fixtures: a fake provider server on loopback and endpoints built from the catalog row.

Under ``--import-mode=importlib`` nothing puts this folder on ``sys.path``; this file does, so
the test files can import the shared helper module (``anthropic_loopback``, named so no other
package's helper can shadow it).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.anthropic import AnthropicMessagesEndpoint
from lionagi.service import match_endpoint
from lionagi.service_testing import FakeProviderServer

# Unguarded so the import below stays at module level (ruff allows it after a sys.path edit);
# pytest imports a conftest once per session, and a repeated entry would be harmless.
sys.path.insert(0, str(Path(__file__).parent))

from anthropic_loopback import API_KEY


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

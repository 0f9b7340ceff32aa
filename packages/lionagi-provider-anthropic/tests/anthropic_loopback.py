"""What the Anthropic request-side loopback tests share: a request, a model, an endpoint call.

Each test checks one body on both send paths, ``iModel`` and an endpoint's own ``call()``;
these helpers build the parts that do not differ, so a test says only what does. The module
name is the package's own: ``conftest.py`` puts this folder on ``sys.path``
(``--import-mode=importlib`` does not), where another package's helper of a generic name could
shadow it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lionagi.providers.anthropic import AnthropicMessagesEndpoint
from lionagi.service import iModel
from lionagi.service_testing import FakeProviderServer

Make = Callable[..., AnthropicMessagesEndpoint]
"""The type of conftest's ``messages_endpoint`` fixture: ``make(server, **overrides)``."""

API_KEY = "sk-ant-test-FAKEkey0123456789abcdef"
HI = [{"role": "user", "content": "hi"}]


def request(**fields: Any) -> dict[str, Any]:
    """A minimal Messages request body with ``fields`` added (or replacing its own)."""
    return {"model": "claude-fake", "messages": HI, **fields}


def imodel(server: FakeProviderServer, **overrides: Any) -> iModel:
    """``iModel`` for ``anthropic/claude-fake`` aimed at ``server``; ``overrides`` go to it."""
    return iModel(
        model="anthropic/claude-fake",
        base_url=f"{server.base_url}/v1",
        api_key=API_KEY,
        allow_local_network=True,
        **overrides,
    )


async def call(endpoint: AnthropicMessagesEndpoint, body: dict[str, Any], **kw: Any) -> Any:
    """``endpoint.call(body, **kw)``, closing the endpoint after, so no client is left open."""
    try:
        return await endpoint.call(body, **kw)
    finally:
        await endpoint.aclose()

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

import pytest

from lionagi.providers.anthropic import AnthropicMessagesEndpoint
from lionagi.service import EndpointConfigurationError, EventStatus, iModel
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


async def assert_sent_as_written(
    fake: FakeProviderServer, make: Make, fields: dict[str, Any]
) -> None:
    """``request(**fields)`` on both send paths reaches ``fake`` with each field as written."""
    body = await call(make(fake), request(**fields))
    assert body["type"] == "message"
    async with imodel(fake) as model:
        event = await model.invoke(**request(**fields))
    assert event.status is EventStatus.COMPLETED, event.exception
    assert len(fake.requests) == 2
    for seen in fake.requests:
        for key, value in fields.items():
            assert seen.json[key] == value, key


async def assert_refused_at(
    fake: FakeProviderServer, make: Make, fields: dict[str, Any], field: str
) -> None:
    """``request(**fields)`` is refused naming ``field`` on both send paths, before sending."""
    with pytest.raises(EndpointConfigurationError) as on_endpoint:
        await call(make(fake), request(**fields))
    assert on_endpoint.value.field == field
    async with imodel(fake) as model:
        with pytest.raises(EndpointConfigurationError) as on_imodel:
            await model.invoke(**request(**fields))
    assert on_imodel.value.field == field
    assert fake.requests == []

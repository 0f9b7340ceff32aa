"""A ``base_url`` with userinfo never silently replaces the endpoint's own Authorization (#16).

httpx sends URL userinfo as ``Authorization: Basic`` and lets it replace the bearer key the
endpoint puts in ``Authorization`` (and a client ``auth`` wins over the userinfo): before this
rule, ``https://user:pass@host/v1`` with an API key reached the provider without the key. Now
the combination is a typed refusal naming ``base_url`` that never shows the password; userinfo
on its own (``auth_type="none"``) or beside a key sent in a header of its own still works, and
a real request proves what is sent.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfig, EndpointConfigurationError, iModel, match_endpoint
from lionagi.service_testing import FakeProviderServer

pytestmark = pytest.mark.anyio

PASSWORD = "pw-userinfo-7f3a9c"
KEY = "sk-userinfo-key-51d2"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _config(**kw: Any) -> EndpointConfig:
    data: dict[str, Any] = {
        "name": "u",
        "provider": "p",
        "endpoint": "chat/completions",
        "base_url": f"https://user:{PASSWORD}@api.example.test/v1",
    }
    return EndpointConfig(**{**data, **kw})


@pytest.mark.parametrize(
    "conflict",
    [
        {"api_key": KEY},  # the key as the bearer Authorization (auth_type defaults to bearer)
        {},  # bearer without a key: the call would fail anyway; not env-dependent either
        {"auth_type": "none", "default_headers": {"authorization": f"Bearer {KEY}"}},
        {"auth_type": "none", "client_kwargs": {"auth": ("svc", KEY)}},
        {"auth_type": "none", "client_kwargs": {"headers": {"Authorization": "Bearer x"}}},
    ],
    ids=[
        "bearer-key",
        "bearer-no-key",
        "authorization-header",
        "client-auth",
        "client-authorization-header",
    ],
)
def test_userinfo_beside_another_authorization_is_refused(conflict: dict[str, Any]) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        _config(**conflict)
    assert info.value.field == "base_url"
    assert PASSWORD not in str(info.value) and KEY not in str(info.value)


def test_a_catalog_row_with_a_key_refuses_userinfo() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        match_endpoint(
            "openai", "chat", base_url=f"https://user:{PASSWORD}@api.example.test/v1", api_key=KEY
        )
    assert info.value.field == "base_url"
    assert PASSWORD not in str(info.value)


def test_userinfo_alone_or_beside_a_non_authorization_key_is_accepted() -> None:
    assert _config(auth_type="none").base_url is not None
    assert _config(auth_type="x-api-key", api_key=KEY).base_url is not None
    assert _config(auth_type="none", default_headers={"X-Tenant": "t"}).base_url is not None


async def test_a_per_call_authorization_header_meets_userinfo_with_a_refusal() -> None:
    async with FakeProviderServer() as server:
        base = server.base_url.replace("://", f"://user:{PASSWORD}@", 1) + "/v1"
        endpoint = match_endpoint(
            "openai", "chat", base_url=base, auth_type="none", allow_local_network=True
        )
        async with iModel(endpoint=endpoint) as model:
            request = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
            with pytest.raises(EndpointConfigurationError) as info:
                await model.endpoint.call(request, extra_headers={"Authorization": "Bearer x"})
            assert info.value.field == "base_url"
            assert PASSWORD not in str(info.value)
            # userinfo on its own is sent as the only credential
            await model.endpoint.call(request)
        assert len(server.requests) == 1
        sent = server.requests[0].headers.get("authorization", "")
        assert sent.startswith("Basic") or "REDACTED" in sent, sent

"""A key given to an endpoint that sends none is refused, not silently dropped.

Before, ``iModel(model="ollama/llama3.2", api_key=...)`` (an Ollama behind an authenticating
proxy) built and called without the key, and the proxy's 401 gave no hint why.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from lionagi.service import EndpointConfig, EndpointConfigurationError, iModel

KEY = "ZZproxytokenQQ42valueXY"
BASE: dict[str, Any] = {"name": "t", "provider": "t", "endpoint": "chat/completions"}


def test_a_key_with_auth_type_none_is_refused_without_showing_it() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        EndpointConfig(**BASE, auth_type="none", api_key=KEY)
    assert info.value.field == "api_key"
    assert "auth_type='bearer'" in str(info.value) and KEY not in str(info.value)


def test_a_variable_the_row_names_is_not_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # A row may document a variable while sending nothing; only an explicit key is the caller's.
    monkeypatch.setenv("LIONAGI_TEST_UNSENT_KEY", KEY)
    config = EndpointConfig(**BASE, auth_type="none", api_key_env="LIONAGI_TEST_UNSENT_KEY")
    assert config.auth_type == "none"


def test_a_catalog_row_without_auth_refuses_it_and_bearer_sends_it() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="ollama/llama3.2", api_key=KEY)
    assert info.value.field == "api_key"

    seen: list[str] = []

    async def main() -> None:
        from lionagi.service_testing import FakeProviderServer

        async with FakeProviderServer() as server:
            async with iModel(
                model="ollama/llama3.2",
                base_url=server.base_url + "/v1",
                allow_local_network=True,
                api_key=KEY,
                auth_type="bearer",
            ) as model:
                call = await model.invoke(messages=[{"role": "user", "content": "hi"}])
                assert call.execution.error is None
            seen.extend(r.headers.get("authorization", "") for r in server.requests)

    anyio.run(main)
    assert seen == [
        "[REDACTED]"
    ]  # an Authorization header was sent (the server records it redacted)

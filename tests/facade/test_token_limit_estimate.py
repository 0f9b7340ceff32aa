"""A token limit says how to get the estimate it counts, and the documented setting works.

Before, ``iModel(model="openai/...", limit_tokens=...)`` (production.md's own example) refused
every call with "supply one or remove the token limit", and no argument of ``invoke`` could
supply one.
"""

from __future__ import annotations

import anyio
import pytest

from lionagi.service import TokenEstimateUnavailable, iModel
from lionagi.service_testing import FakeProviderServer

MESSAGES = [{"role": "user", "content": "hello there"}]


def _model(base_url: str, **options: object) -> iModel:
    return iModel(
        model="openai/gpt-4.1-mini",
        base_url=base_url + "/v1",
        api_key="k-123456789abcdef",
        allow_local_network=True,
        limit_tokens=1_000,
        **options,
    )


def test_a_token_limit_without_an_estimate_names_the_setting() -> None:
    async def main() -> None:
        async with FakeProviderServer() as server, _model(server.base_url) as model:
            with pytest.raises(TokenEstimateUnavailable) as info:
                await model.invoke(messages=MESSAGES)
            assert server.requests == []
        assert "requires_tokens=True" in str(info.value)
        assert "token_estimate" in str(info.value)

    anyio.run(main)


@pytest.mark.parametrize("stream", [False, True])
def test_requires_tokens_counts_the_messages_against_the_limit(stream: bool) -> None:
    async def main() -> int:
        async with (
            FakeProviderServer() as server,
            _model(server.base_url, requires_tokens=True) as model,
        ):
            if stream:
                chunks = [c async for c in model.stream(messages=MESSAGES)]
                assert any(c.type == "text" for c in chunks)
            else:
                call = await model.invoke(messages=MESSAGES)
                assert call.exception is None
            used = model.admission_snapshot().available_tokens
            assert used is not None
            return 1_000 - used

    assert anyio.run(main) > 0

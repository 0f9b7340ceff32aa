"""NIM's sampling parameters beyond OpenAI's reach the server as written; bad values are refused.

NIM documents ``top_k``, ``min_p``, ``repetition_penalty``, ``min_tokens`` and ``ignore_eos`` as
top-level request fields (its sampling-control reference; its LLM API reference points to the
vLLM server's request, which carries them). They were refused as unknown fields, the first one
with "did you mean 'presence_penalty'?", a different penalty.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, iModel, match_endpoint
from lionagi.service_testing.fake_server import FakeProviderServer

KEY = "nvapi-test-0123456789abcdef"
MODEL = "meta/llama-3.1-8b-instruct"
MESSAGES = [{"role": "user", "content": "Write a haiku"}]
SAMPLING: dict[str, Any] = {
    "top_k": 40,
    "min_p": 0.05,
    "repetition_penalty": 1.1,
    "min_tokens": 8,
    "ignore_eos": False,
}


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as fake:
        yield fake


async def test_invoke_and_stream_send_the_sampling_fields(server: FakeProviderServer) -> None:
    model = iModel(
        model=f"nvidia_nim/{MODEL}",
        api_key=KEY,
        base_url=server.base_url + "/v1",
        allow_local_network=True,
    )
    async with model:
        call = await model.invoke(messages=MESSAGES, **SAMPLING)
        chunks = [c async for c in model.stream(messages=MESSAGES, **SAMPLING)]
    assert call.exception is None, call.exception
    assert chunks[-1].type == "result"
    for sent in server.requests:
        assert {name: sent.json[name] for name in SAMPLING} == SAMPLING


def test_top_k_minus_one_means_all_tokens_and_is_sent() -> None:
    ep = match_endpoint("nvidia_nim", "chat", api_key=KEY)
    payload, _ = ep.create_payload({"model": MODEL, "messages": MESSAGES, "top_k": -1})
    assert payload["top_k"] == -1


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("top_k", -2),
        ("top_k", 4.5),
        ("min_p", 1.5),
        ("repetition_penalty", 0.0),
        ("min_tokens", -1),
        ("ignore_eos", "yes"),
    ],
)
def test_an_out_of_range_value_is_refused_naming_the_field(name: str, value: Any) -> None:
    ep = match_endpoint("nvidia_nim", "chat", api_key=KEY)
    with pytest.raises(EndpointConfigurationError) as bad:
        ep.create_payload({"model": MODEL, "messages": MESSAGES, name: value})
    assert bad.value.field == name
    assert "unknown request field" not in str(bad.value)

"""``/api/generate`` ``options`` as Ollama's server parses them (``api.Options.FromMap``).

``stop`` is a list of strings only: the server takes an array for it and answers a single
string with HTTP 500 ``option "stop" must be of type array`` (a server error, so it was sent
again under the retry policy before failing), although its OpenAPI file says a string works.
The adapter accepted a string since it followed that file; it is now refused before sending,
naming ``options.stop`` and the list to write. ``main_gpu`` and ``draft_num_predict`` are in
``api.md``'s example that sets "every available option" and in the server's ``Options``; they
were refused as unknown keys. Real loopback server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, iModel
from lionagi.service_testing import FakeProviderServer


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as fake:
        yield fake


def generate(server: FakeProviderServer) -> iModel:
    return iModel(
        model="ollama/hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M",
        endpoint="generate",
        base_url=f"{server.base_url}/api",
        allow_local_network=True,
    )


@pytest.mark.parametrize(
    "options",
    [
        {"stop": ["\n\n"]},
        {"stop": ["a", "b"]},
        {"main_gpu": 0},
        {"draft_num_predict": 4},
        {"draft_num_predict": 0},  # 0 turns speculative drafting off
    ],
)
async def test_options_the_server_parses_are_sent_as_written(
    server: FakeProviderServer, options: dict[str, Any]
) -> None:
    async with generate(server) as model:
        answer = await model.invoke(prompt="hi", options=options)
    assert answer.execution.error is None
    sent = server.requests[-1].json
    assert sent is not None
    assert sent["options"] == options
    assert sent["model"] == "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M"


@pytest.mark.parametrize(
    ("options", "field", "words"),
    [
        ({"stop": "\n\n"}, "options.stop", "write ['\\n\\n']"),
        ({"stop": "\n\n"}, "options.stop", "must be of type array"),
        ({"stop": 3}, "options.stop", "not int"),
        ({"stop": ["a", 1]}, "options.stop", "item 1 is int"),
        ({"main_gpu": -1}, "options.main_gpu", "greater than or equal to 0"),
        ({"draft_num_predict": True}, "options.draft_num_predict", "integer"),
        ({"stpo": ["x"]}, "options.stpo", "did you mean 'stop'"),
    ],
)
async def test_options_the_server_would_refuse_are_refused_before_sending(
    server: FakeProviderServer, options: dict[str, Any], field: str, words: str
) -> None:
    async with generate(server) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(prompt="hi", options=options)
    assert refused.value.field == field
    assert words in str(refused.value)
    assert server.requests == []


async def test_an_image_given_as_a_data_url_is_refused_naming_it(
    server: FakeProviderServer,
) -> None:
    # The native API decodes `images` as base64 and answers a URL with an anonymous 400.
    async with generate(server) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(prompt="hi", images=["data:image/png;base64,iVBORw0KGgo="])
        answer = await model.invoke(prompt="hi", images=["iVBORw0KGgo="])
    assert refused.value.field == "images.0"
    assert "the part after 'base64,'" in str(refused.value)
    assert answer.execution.error is None
    sent = server.requests[-1].json
    assert sent is not None
    assert sent["images"] == ["iVBORw0KGgo="]
    assert len(server.requests) == 1

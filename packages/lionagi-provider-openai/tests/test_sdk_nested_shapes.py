"""OpenAI's chat and embeddings rows take every nested key and value openai-python declares.

The requests are built from the installed SDK's own request TypedDicts
(``CompletionCreateParamsBase``, ``EmbeddingCreateParams``): every key present and every
closed ``Literal`` value used at least once, top-level fields included, and each object the SDK
closes also given a key it lacks, which must be refused. So a key or value a newer SDK adds
(which ``extra_body`` could not carry inside an object) fails here, naming its path; core's own
test (``tests/catalog/test_openai_sdk_chat_shapes.py``) covers the shared shapes the same way.

Found this way and closed in core's shared shapes: a custom tool's ``format`` and the audio
``voice`` object were open mappings (a misspelled ``grammar.syntax`` went out and came back as a
400), and embeddings token arrays sent ``True`` or ``1.0`` as the token ``1``. The loopback tests
show the now-checked shapes reach the server as written and a malformed one is refused before
any request.
"""

from __future__ import annotations

import json
import typing
from typing import Any

import pytest
from openai_loopback import openai_model
from pydantic import ValidationError

from lionagi.service import EndpointConfigurationError, iModel
from lionagi.service_testing.fake_server import FakeProviderServer
from lionagi.service_testing.vendor_checks import SDK_PROBE_KEY, sdk_samples, sdk_typeddicts

openai = pytest.importorskip("openai")

from openai.types.chat.completion_create_params import (  # noqa: E402
    CompletionCreateParamsBase,
)
from openai.types.embedding_create_params import EmbeddingCreateParams  # noqa: E402

from lionagi.providers.openai import OpenAIChatRequest  # noqa: E402

KEY = "sk-sdk-nested-shapes-0123456789"
# Deprecated in favour of tools/tool_choice and left to `extra_body` (the decision on the SDK's
# request fields); nothing else the SDK declares is left out on OpenAI's own row.
DEPRECATED = {"functions", "function_call"}
# Fields that are only valid beside another: the companion each sample is sent with.
COMPANIONS: dict[str, dict[str, Any]] = {"top_logprobs": {"logprobs": True}}


CHAT_HINTS = {
    name: kind
    for name, kind in typing.get_type_hints(CompletionCreateParamsBase, include_extras=True).items()
    if name not in DEPRECATED | {"model"}
}
HI = [{"role": "user", "content": "hi"}]
# The SDK's tools sample: a function named "x", which a forced tool_choice sample names.
TOOLS = sdk_samples(CHAT_HINTS["tools"])[0]


def _chat(field: str, value: Any) -> dict[str, Any]:
    request = {"model": "gpt-5", "messages": HI, field: value, **COMPANIONS.get(field, {})}
    if field == "tool_choice":
        request["tools"] = TOOLS
    return request


def test_openais_chat_row_accepts_every_key_and_value_the_sdk_declares() -> None:
    refused: list[str] = []
    cases = [(field, value) for field, kind in CHAT_HINTS.items() for value in sdk_samples(kind)]
    for field, value in cases:
        try:
            OpenAIChatRequest.model_validate(_chat(field, value))
        except ValidationError as exc:
            refused.append(f"{field}: {exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}")
    assert not refused, "OpenAI's row refuses what openai-python declares:\n" + "\n".join(refused)


def test_every_object_the_sdk_closes_is_closed_on_openais_row() -> None:
    open_objects: set[str] = set()
    misplaced: list[str] = []
    for field, kind in CHAT_HINTS.items():
        for name, typed in sdk_typeddicts(kind).items():
            for value in sdk_samples(kind, probed=typed):
                if SDK_PROBE_KEY not in json.dumps(value):
                    continue  # another member of a union, without the probed object
                try:
                    OpenAIChatRequest.model_validate(_chat(field, value))
                except ValidationError as exc:
                    where = exc.errors()[0]["loc"]
                    if where[-1] != SDK_PROBE_KEY:  # refused for another reason than the probe
                        misplaced.append(f"{name}: {where}")
                else:
                    open_objects.add(f"{field}: {name}")
    assert not open_objects, "open where the SDK is closed: " + ", ".join(sorted(open_objects))
    assert not misplaced, misplaced


# -- on the wire ----------------------------------------------------------------------------------


def _model(server: FakeProviderServer, endpoint: str) -> iModel:
    return openai_model(f"{server.base_url}/v1", api_key=KEY, endpoint=endpoint)


CHECKED_SHAPES: dict[str, Any] = {
    "tools": [
        {
            "type": "custom",
            "custom": {
                "name": "apply_patch",
                "format": {
                    "type": "grammar",
                    "grammar": {"syntax": "lark", "definition": "start: /[a-z]+/"},
                },
            },
        },
        {"type": "custom", "custom": {"name": "note", "format": {"type": "text"}}},
    ],
    "prediction": {
        "type": "content",
        "content": [
            {"type": "text", "text": "def f():", "prompt_cache_breakpoint": {"mode": "explicit"}}
        ],
    },
    "modalities": ["text", "audio"],
    "audio": {"voice": {"id": "voice_1234"}, "format": "pcm16"},
}


async def test_custom_formats_a_voice_id_and_a_prediction_reach_the_server_as_written(
    server: FakeProviderServer,
) -> None:
    async with _model(server, "chat") as model:
        event = await model.invoke(messages=HI, **CHECKED_SHAPES)
    assert event.exception is None, event.exception
    (sent,) = server.requests
    for key, value in CHECKED_SHAPES.items():
        assert sent.json[key] == value


@pytest.mark.parametrize(
    ("request_data", "field"),
    [
        (
            {
                "tools": [
                    {
                        "type": "custom",
                        "custom": {
                            "name": "p",
                            "format": {"type": "grammar", "grammar": {"sytnax": "regex"}},
                        },
                    }
                ]
            },
            "tools.0.custom.format.grammar.sytnax",
        ),
        ({"audio": {"voice": {"name": "marin"}, "format": "wav"}}, "audio.voice.name"),
    ],
)
async def test_a_malformed_format_or_voice_is_refused_before_any_request(
    server: FakeProviderServer, request_data: dict[str, Any], field: str
) -> None:
    async with _model(server, "chat") as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(messages=HI, **request_data)
    assert refused.value.field == field
    assert server.requests == []


def test_the_embeddings_row_declares_every_sdk_field() -> None:
    from lionagi.providers.openai import OpenAIEmbeddingsAPIRequest
    from lionagi.service import OpenAIEmbeddingsRequest

    hints = typing.get_type_hints(EmbeddingCreateParams, include_extras=True)
    for request in (OpenAIEmbeddingsRequest, OpenAIEmbeddingsAPIRequest):
        assert set(hints) == set(request.model_fields)
        for value in sdk_samples(EmbeddingCreateParams):
            request.model_validate(value)


async def test_token_arrays_reach_the_server_as_written(server: FakeProviderServer) -> None:
    tokens = [[9906, 1917], [15339]]
    async with _model(server, "embeddings") as model:
        event = await model.invoke(input=tokens, dimensions=256, encoding_format="float")
    assert event.exception is None, event.exception
    (sent,) = server.requests
    assert sent.json["input"] == tokens


@pytest.mark.parametrize("tokens", [[9906, True], [[9906], [1917.0]]])
async def test_a_token_that_is_not_an_integer_is_refused_before_any_request(
    server: FakeProviderServer, tokens: list[Any]
) -> None:
    async with _model(server, "embeddings") as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(input=tokens)
    assert refused.value.field == "input"
    assert "integer token ids" in str(refused.value)
    assert server.requests == []

"""The request fields openai-python declares are typed, checked and sent as written (loopback).

``moderation`` (chat and Responses) and Responses' ``access_programs``, ``background_options``
and ``image`` were refused as unknown fields: reachable only through ``extra_body``, unchecked,
so a misspelled nested key or value went out and came back as a 400. Chat's image ``detail``
took ``auto``/``low``/``high`` only, refusing the ``original`` level the SDK lists, and a nested
value has no way round the check. The coverage test compares the request models with the
installed SDK's own parameter types, so a field the SDK adds later is noticed, not guessed.
"""

from __future__ import annotations

from typing import Any

import pytest
from openai_loopback import openai_model

from lionagi.service import EndpointConfigurationError, iModel
from lionagi.service_testing.fake_server import FakeProviderServer

KEY = "sk-sdk-request-fields-0123456789"
HI = [{"role": "user", "content": "hi"}]
MODERATION: dict[str, Any] = {
    "model": "omni-moderation-latest",
    "policy": {"input": {"mode": "block"}, "output": {"mode": "score"}},
}


def _model(server: FakeProviderServer, endpoint: str) -> iModel:
    return openai_model(f"{server.base_url}/v1", api_key=KEY, endpoint=endpoint)


def _base(endpoint: str) -> dict[str, Any]:
    return {"messages": HI} if endpoint == "chat" else {"input": "hi"}


@pytest.mark.parametrize("endpoint", ["chat", "responses"])
async def test_moderation_reaches_the_server_as_written(
    server: FakeProviderServer, endpoint: str
) -> None:
    async with _model(server, endpoint) as model:
        event = await model.invoke(**_base(endpoint), moderation=MODERATION)
    assert event.exception is None, event.exception
    (sent,) = server.requests
    assert sent.json["moderation"] == MODERATION


RESPONSES_OPTIONS: dict[str, Any] = {
    "access_programs": {"cyber": "daybreak_blue"},
    "background": True,
    "background_options": {"completion_window": "2h", "continuation_id": "batch-7"},
    "image": {"context_compression": "enabled"},
}


async def test_responses_request_options_reach_the_server_as_written(
    server: FakeProviderServer,
) -> None:
    async with _model(server, "responses") as model:
        event = await model.invoke(input="hi", **RESPONSES_OPTIONS)
    assert event.exception is None, event.exception
    (sent,) = server.requests
    for key, value in RESPONSES_OPTIONS.items():
        assert sent.json[key] == value


async def test_the_original_image_detail_reaches_the_server_on_chat(
    server: FakeProviderServer,
) -> None:
    part = {
        "type": "image_url",
        "image_url": {"url": "https://x.example/a.png", "detail": "original"},
    }
    messages = [{"role": "user", "content": [part]}]
    async with _model(server, "chat") as model:
        event = await model.invoke(messages=messages)
    assert event.exception is None, event.exception
    (sent,) = server.requests
    assert sent.json["messages"] == messages


@pytest.mark.parametrize(
    ("endpoint", "request_data", "field", "says"),
    [
        (
            "chat",
            {"moderation": {"model": "m", "policy": {"inptu": {"mode": "block"}}}},
            "moderation.policy.inptu",
            "did you mean 'input'",
        ),
        (
            "responses",
            {"moderation": {"model": "m", "policy": {"output": {"mode": "blok"}}}},
            "moderation.policy.output.mode",
            "'score' or 'block'",
        ),
        ("responses", {"moderation": {"policy": {}}}, "moderation.model", "required"),
        ("responses", {"access_programs": {"cyber": "daybreak"}}, "access_programs.cyber", ""),
        (
            "responses",
            {"image": {"context_compresion": "auto"}},
            "image.context_compresion",
            "did you mean 'context_compression'",
        ),
        (
            "responses",
            {"background_options": {"completion_window": "4h"}},
            "background_options.completion_window",
            "",
        ),
        (
            "responses",
            {"background_options": {"completion_window": "8h"}},
            "background_options",
            "needs background=True",
        ),
        (
            "responses",
            {"background": False, "background_options": {"completion_window": "2h"}},
            "background_options",
            "needs background=True",
        ),
        # Closed on OpenAI's own chat row (open in the shared dialect).
        ("chat", {"service_tier": "flexible"}, "service_tier", "'flex'"),
        ("chat", {"modalities": ["text", "image"]}, "modalities.1", "'audio'"),
    ],
)
async def test_a_malformed_option_is_refused_at_its_key(
    server: FakeProviderServer,
    endpoint: str,
    request_data: dict[str, Any],
    field: str,
    says: str,
) -> None:
    async with _model(server, endpoint) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(**_base(endpoint), **request_data)
    assert refused.value.field == field
    assert says in str(refused.value)
    assert server.requests == []


async def test_the_soonest_window_needs_no_background(server: FakeProviderServer) -> None:
    options = {"completion_window": "soonest"}
    async with _model(server, "responses") as model:
        event = await model.invoke(input="hi", background_options=options)
    assert event.exception is None, event.exception
    assert server.requests[-1].json["background_options"] == options


@pytest.mark.parametrize("window", ["2h", "8h"])
async def test_a_discounted_window_is_refused_on_a_stream(
    server: FakeProviderServer, window: str
) -> None:
    options = {"completion_window": window}
    async with _model(server, "responses") as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            async for _ in model.stream(input="hi", background=True, background_options=options):
                pass
    assert refused.value.field == "background_options.completion_window"
    assert server.requests == []


def test_the_request_models_declare_every_sdk_request_field() -> None:
    """Every non-deprecated field of openai-python's request params is a typed field here."""
    pytest.importorskip("openai")
    from openai.types.chat.completion_create_params import CompletionCreateParamsBase
    from openai.types.responses.response_create_params import ResponseCreateParamsBase

    from lionagi.providers.openai import OpenAIChatRequest, OpenAIResponsesRequest

    # Deprecated in favour of ``tools``/``tool_choice``; ``extra_body`` can still carry them.
    deprecated = {"functions", "function_call"}
    for params, request in (
        (CompletionCreateParamsBase, OpenAIChatRequest),
        (ResponseCreateParamsBase, OpenAIResponsesRequest),
    ):
        missing = set(params.__annotations__) - set(request.model_fields) - deprecated
        assert not missing, f"{request.__name__} lacks {sorted(missing)}"

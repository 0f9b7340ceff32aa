"""``chat_template_kwargs`` reaches NIM as written, streamed and one-shot; non-JSON is refused.

NIM switches reasoning on or off by chat template keyword arguments for the models whose template
reads a flag (its reasoning guide; its hosted model cards send
``{"chat_template_kwargs": {"enable_thinking": true}}``). The field was refused as unknown, and
``extra_body`` sent it unchecked. The fake provider server records each request's JSON body as
it arrived on the socket.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, iModel, match_endpoint
from lionagi.service_testing.fake_server import FakeProviderServer

KEY = "nvapi-test-0123456789abcdef"
MODEL = "nvidia/nemotron-3-nano-omni-30b-a3b-reasoning"
KWARGS: dict[str, Any] = {"enable_thinking": True, "thinking": {"budget": 512, "modes": ["a"]}}
MESSAGES = [{"role": "user", "content": "Solve x*(sin(x)+2)=0"}]


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as fake:
        yield fake


def nim(server: FakeProviderServer) -> iModel:
    return iModel(
        model=f"nvidia_nim/{MODEL}",
        api_key=KEY,
        base_url=server.base_url + "/v1",
        allow_local_network=True,
    )


async def test_invoke_sends_the_kwargs_as_written(server: FakeProviderServer) -> None:
    async with nim(server) as model:
        call = await model.invoke(messages=MESSAGES, chat_template_kwargs=KWARGS)
    assert call.exception is None, call.exception
    [sent] = server.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.json["chat_template_kwargs"] == KWARGS
    assert "stream" not in sent.json


async def test_stream_sends_the_kwargs_as_written(server: FakeProviderServer) -> None:
    async with nim(server) as model:
        chunks = [c async for c in model.stream(messages=MESSAGES, chat_template_kwargs=KWARGS)]
    assert chunks[-1].type == "result"
    [sent] = server.requests
    assert sent.json["chat_template_kwargs"] == KWARGS
    assert sent.json["stream"] is True


def test_kwargs_in_request_defaults_are_sent_on_every_call() -> None:
    ep = match_endpoint(
        "nvidia_nim", "chat", api_key=KEY, request_defaults={"chat_template_kwargs": {"a": None}}
    )
    payload, _ = ep.create_payload({"model": MODEL, "messages": MESSAGES})
    assert payload["chat_template_kwargs"] == {"a": None}  # a null value is the caller's, kept


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ("thinking", "chat_template_kwargs"),
        ({1: True}, "chat_template_kwargs.1.[key]"),
        ({"thinking": {1, 2}}, "chat_template_kwargs.thinking"),
        ({"budget": math.nan}, "chat_template_kwargs.budget"),
        ({"steps": [1, (2, 3)]}, "chat_template_kwargs.steps.1"),
        ({"opts": {"deep": {5: "x"}}}, "chat_template_kwargs.opts.deep"),
        ({"when": object()}, "chat_template_kwargs.when"),
    ],
)
def test_a_value_that_is_not_json_is_refused_naming_its_path(value: Any, where: str) -> None:
    ep = match_endpoint("nvidia_nim", "chat", api_key=KEY)
    with pytest.raises(EndpointConfigurationError) as bad:
        ep.create_payload({"model": MODEL, "messages": MESSAGES, "chat_template_kwargs": value})
    assert bad.value.field == where


def test_a_misspelling_is_refused_with_the_field_named() -> None:
    ep = match_endpoint("nvidia_nim", "chat", api_key=KEY)
    with pytest.raises(EndpointConfigurationError, match="did you mean 'chat_template_kwargs'"):
        ep.create_payload({"model": MODEL, "messages": [], "chat_template_kwarg": {}})

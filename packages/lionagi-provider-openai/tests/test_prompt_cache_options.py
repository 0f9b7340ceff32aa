"""OpenAI's explicit prompt caching is accepted and sent as written (fake server, loopback).

OpenAI documents ``prompt_cache_options`` (``mode``, ``ttl``; on Responses also ``prewarm`` and
``comparison_response_id``) and a ``prompt_cache_breakpoint`` (``{"mode": "explicit", "ttl"}``)
on a chat message's text, image, audio and file parts. The chat row refused the breakpoint as
an unknown key of the content part, and a nested key has no way round the check
(``extra_body`` only adds top-level fields), so the feature could not be used at all; the
top-level options were refused on both rows.
"""

from __future__ import annotations

from typing import Any

import pytest
from openai_loopback import openai_model

from lionagi.service import EndpointConfigurationError, iModel
from lionagi.service_testing.fake_server import FakeProviderServer

KEY = "sk-prompt-cache-test-0123456789"
BREAKPOINT = {"mode": "explicit", "ttl": "30m"}


def _model(server: FakeProviderServer, endpoint: str) -> iModel:
    return openai_model(f"{server.base_url}/v1", api_key=KEY, endpoint=endpoint)


CHAT: dict[str, Any] = {
    "messages": [
        {
            "role": "system",
            "content": [
                {
                    "type": "text",
                    "text": "A long stable preamble.",
                    "prompt_cache_breakpoint": {"mode": "explicit"},
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "image_url",
                    "image_url": {"url": "https://x.example/a.png"},
                    "prompt_cache_breakpoint": BREAKPOINT,
                },
                {
                    "type": "file",
                    "file": {"file_id": "file-1"},
                    "prompt_cache_breakpoint": {"mode": "explicit"},
                },
                {
                    "type": "input_audio",
                    "input_audio": {"data": "AAAA", "format": "wav"},
                    "prompt_cache_breakpoint": BREAKPOINT,
                },
                {"type": "text", "text": "What changed?", "prompt_cache_breakpoint": BREAKPOINT},
            ],
        },
    ],
    "prompt_cache_options": {"mode": "explicit", "ttl": "30m"},
}


async def test_chat_breakpoints_and_cache_options_reach_the_server_as_written(
    server: FakeProviderServer,
) -> None:
    async with _model(server, "chat") as model:
        event = await model.invoke(**CHAT)
    assert event.exception is None, event.exception
    (sent,) = server.requests
    assert sent.json["messages"] == CHAT["messages"]
    assert sent.json["prompt_cache_options"] == CHAT["prompt_cache_options"]


@pytest.mark.parametrize(
    ("breakpoint", "field"),
    [
        ({"mode": "explicit", "tll": "30m"}, "messages.0.content.0.prompt_cache_breakpoint.tll"),
        ({"mode": "implicit"}, "messages.0.content.0.prompt_cache_breakpoint.mode"),
        ({"ttl": "30m"}, "messages.0.content.0.prompt_cache_breakpoint.mode"),
    ],
)
async def test_a_malformed_breakpoint_is_refused_at_its_key(
    server: FakeProviderServer, breakpoint: dict[str, Any], field: str
) -> None:
    part = {"type": "text", "text": "x", "prompt_cache_breakpoint": breakpoint}
    async with _model(server, "chat") as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(messages=[{"role": "user", "content": [part]}])
    assert refused.value.field == field
    assert server.requests == []


@pytest.mark.parametrize("endpoint", ["chat", "responses"])
async def test_a_misspelled_cache_option_is_refused(
    server: FakeProviderServer, endpoint: str
) -> None:
    base: dict[str, Any] = (
        {"messages": [{"role": "user", "content": "hi"}]} if endpoint == "chat" else {"input": "hi"}
    )
    async with _model(server, endpoint) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(**base, prompt_cache_options={"mdoe": "explicit"})
    assert refused.value.field == "prompt_cache_options.mdoe"
    assert server.requests == []


async def test_responses_cache_options_reach_the_server_as_written(
    server: FakeProviderServer,
) -> None:
    options = {"mode": "implicit", "ttl": "12h", "prewarm": False, "comparison_response_id": "r"}
    async with _model(server, "responses") as model:
        event = await model.invoke(input="hi", prompt_cache_options=options)
    assert event.exception is None, event.exception
    (sent,) = server.requests
    assert sent.json["prompt_cache_options"] == options

"""A request reading a context cache cannot also set a system instruction, tools or a tool config.

The API answers ``cachedContent`` beside ``systemInstruction``, ``tools`` or ``toolConfig`` with
a 400 ("CachedContent can not be used with GenerateContent request setting system_instruction,
tools or tool_config. Proposed fix: move those values to CachedContent", later "Tool config,
tools and system instruction should not be set in the request when using cached content"):
they belong to the cache, set when it is created. The request model let the pair through, so it
went out and came back as a 400 after a round trip. Each such field is now refused at its own
name, saying to move it into the cache; an empty ``tools`` list (which the API's proto cannot
tell from no tools) and every other field still go out with the cache. The chat row's
``google.cached_content`` meets the same rule: its ``tools`` become the request's tools, so they
are refused beside it, at ``tools``.
"""

from __future__ import annotations

from typing import Any

import pytest
from gemini_loopback import chat_model, native_model, sent

from lionagi.service import EndpointConfigurationError, EventStatus
from lionagi.service_testing import FakeProviderServer

CONTENTS = [{"role": "user", "parts": [{"text": "Summarise the cached report."}]}]
CACHE = "cachedContents/report-cache"
SYSTEM = {"parts": [{"text": "Answer briefly."}]}
TOOLS = [{"functionDeclarations": [{"name": "shell", "parameters": {"type": "OBJECT"}}]}]
CALLING = {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["shell"]}}


def refused(request: dict[str, Any]) -> EndpointConfigurationError:
    endpoint = native_model().endpoint
    with pytest.raises(EndpointConfigurationError) as info:
        endpoint.create_payload({"contents": CONTENTS, "cachedContent": CACHE, **request})
    return info.value


@pytest.mark.parametrize(
    ("request_fields", "field"),
    [
        ({"systemInstruction": SYSTEM}, "systemInstruction"),
        ({"tools": TOOLS}, "tools"),
        ({"tools": [{"googleSearch": {}}]}, "tools"),
        ({"toolConfig": CALLING}, "toolConfig"),
        ({"toolConfig": {"retrievalConfig": {"languageCode": "en"}}}, "toolConfig"),
        # the config names a function the cache declares: still not in the request
        ({"tools": TOOLS, "toolConfig": CALLING}, "tools"),
    ],
)
def test_a_cache_with_a_field_the_cache_holds_is_refused(
    request_fields: dict[str, Any], field: str
) -> None:
    error = refused(request_fields)
    assert error.field == field
    assert "cachedContent" in str(error)
    assert "cache" in str(error).split("cachedContent", 1)[1]  # says where it belongs


async def test_a_cache_with_the_other_fields_is_sent_as_given() -> None:
    request: dict[str, Any] = {
        "contents": CONTENTS,
        "cachedContent": CACHE,
        "tools": [],
        "generationConfig": {"temperature": 0.2, "maxOutputTokens": 64},
        "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "OFF"}],
    }
    call, body = await sent(request)
    assert call.execution.status is EventStatus.COMPLETED
    assert body == request


@pytest.mark.parametrize("field", ["systemInstruction", "tools", "toolConfig"])
async def test_without_a_cache_each_field_is_sent(field: str) -> None:
    value = {"systemInstruction": SYSTEM, "tools": TOOLS, "toolConfig": CALLING}[field]
    extra = {"tools": TOOLS} if field == "toolConfig" else {}
    call, body = await sent({"contents": CONTENTS, field: value, **extra})
    assert call.execution.status is EventStatus.COMPLETED
    assert body[field] == value


# -- the compatibility layer's ``google.cached_content`` ------------------------------------------

MESSAGES = [{"role": "user", "content": "Summarise the cached report."}]
CHAT_TOOLS = [{"type": "function", "function": {"name": "shell", "parameters": {"type": "object"}}}]


def test_the_chat_rows_cache_with_tools_is_refused_at_tools() -> None:
    """The layer sends its ``tools`` as the request's tools: the same 400 as the native row's."""
    endpoint = chat_model().endpoint
    request = {"messages": MESSAGES, "tools": CHAT_TOOLS, "google": {"cached_content": CACHE}}
    with pytest.raises(EndpointConfigurationError) as info:
        endpoint.create_payload(request)
    assert info.value.field == "tools"
    assert "google.cached_content" in str(info.value)


async def test_the_chat_rows_cache_without_tools_is_sent() -> None:
    google = {"cached_content": CACHE}
    async with FakeProviderServer() as server:
        async with chat_model(server) as model:
            call = await model.invoke(messages=MESSAGES, google=google)
        body = server.requests[0].json
    assert call.execution.status is EventStatus.COMPLETED
    assert body["extra_body"] == {"google": google}


async def test_the_chat_rows_tools_without_a_cache_are_sent() -> None:
    async with FakeProviderServer() as server:
        async with chat_model(server) as model:
            call = await model.invoke(messages=MESSAGES, tools=CHAT_TOOLS)
        body = server.requests[0].json
    assert call.execution.status is EventStatus.COMPLETED
    assert body["tools"] == CHAT_TOOLS

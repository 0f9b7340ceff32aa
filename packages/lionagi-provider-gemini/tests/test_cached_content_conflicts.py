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
are refused beside it, at ``tools``; so are a ``system`` or ``developer`` message (the system
instruction) and ``tool_choice`` (the tool config), which the layer sent as they were. Every
refusal comes before anything is sent, on ``stream()`` as on ``invoke()``.
"""

from __future__ import annotations

from typing import Any

import pytest
from gemini_loopback import chat_model, native_model, sent

from lionagi.service import EndpointConfigurationError, EventStatus, iModel
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


# -- what the layer turns into a system instruction or a tool config ------------------------------
#
# The layer sends a ``system`` (or ``developer``) message as the request's system instruction and
# ``tool_choice`` as its tool config: beside ``google.cached_content`` each is the same 400 as
# ``tools``. Each is refused before anything is sent, on ``invoke()`` and on ``stream()`` alike.

SYSTEM_MESSAGE = {"role": "system", "content": "Answer briefly."}


async def send(model: iModel, stream: bool, request: dict[str, Any]) -> None:
    """``request`` through ``model``: ``invoke()``, or ``stream()`` read to its end."""
    if stream:
        async for _ in model.stream(**request):
            pass
    else:
        await model.invoke(**request)


async def refused_on_the_wire(
    stream: bool, request: dict[str, Any], *, native: bool = False
) -> EndpointConfigurationError:
    """The error ``request`` raises through a chat (or native) model; nothing was sent."""
    async with FakeProviderServer() as server:
        async with (native_model if native else chat_model)(server) as model:
            with pytest.raises(EndpointConfigurationError) as info:
                await send(model, stream, request)
        assert server.requests == []
    return info.value


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
@pytest.mark.parametrize("role", ["system", "developer"])
async def test_the_chat_rows_cache_with_a_system_message_is_refused(
    stream: bool, role: str
) -> None:
    messages = [*MESSAGES, {"role": role, "content": "Be brief."}]
    request = {"messages": messages, "google": {"cached_content": CACHE}}
    error = await refused_on_the_wire(stream, request)
    assert error.field == "messages.1.role"
    assert f"a {role} message" in str(error)
    assert "google.cached_content" in str(error)
    assert "cache's system instruction" in str(error)  # where it belongs


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
@pytest.mark.parametrize("choice", ["none", "auto"])
async def test_the_chat_rows_cache_with_a_tool_choice_is_refused(stream: bool, choice: str) -> None:
    """A cache declaring the tools, and a ``tool_choice`` for them: still the cache's to set."""
    request = {"messages": MESSAGES, "tool_choice": choice, "google": {"cached_content": CACHE}}
    error = await refused_on_the_wire(stream, request)
    assert error.field == "tool_choice"
    assert "google.cached_content" in str(error)
    assert "tool config on the cache" in str(error)


async def test_the_chat_rows_cache_from_the_defaults_meets_the_same_rule() -> None:
    """A cache set once in ``request_defaults`` refuses a call's system message too."""
    async with FakeProviderServer() as server:
        defaults = {"google": {"cached_content": CACHE}}
        async with chat_model(server, request_defaults=defaults) as model:
            with pytest.raises(EndpointConfigurationError) as info:
                await model.invoke(messages=[SYSTEM_MESSAGE, *MESSAGES])
        assert server.requests == []
    assert info.value.field == "messages.0.role"


async def test_the_chat_rows_system_message_and_tool_choice_without_a_cache_are_sent() -> None:
    async with FakeProviderServer() as server:
        async with chat_model(server) as model:
            call = await model.invoke(messages=[SYSTEM_MESSAGE, *MESSAGES], tool_choice="none")
        body = server.requests[0].json
    assert call.execution.status is EventStatus.COMPLETED
    assert body["messages"][0] == SYSTEM_MESSAGE
    assert body["tool_choice"] == "none"


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
async def test_the_native_rows_cache_with_a_system_instruction_sends_nothing(stream: bool) -> None:
    """The native refusal happens before the wire, on the stream path as on ``invoke()``."""
    request = {"contents": CONTENTS, "cachedContent": CACHE, "systemInstruction": SYSTEM}
    error = await refused_on_the_wire(stream, request, native=True)
    assert error.field == "systemInstruction"

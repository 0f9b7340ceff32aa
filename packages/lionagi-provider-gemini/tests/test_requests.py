"""What the typed request models let through, as a user drives ``iModel`` with Gemini's options.

Every option is checked before anything is sent: a wrong type, a value the API does not take, or
two settings the API refuses together is an ``EndpointConfigurationError`` naming the field,
never a value coerced into something else, dropped, or left for a 400. What is valid reaches
the wire as given (checked on the fake server's recorded requests).
"""

from __future__ import annotations

from typing import Any

import pytest
from gemini_loopback import chat_model, native_model, sent

from lionagi.service import EndpointConfigurationError, EventStatus, iModel
from lionagi.service_testing.fake_server import FakeProviderServer

CONTENTS = [{"role": "user", "parts": [{"text": "hello"}]}]
MESSAGES = [{"role": "user", "content": "hello"}]
SHELL = {
    "name": "shell",
    "description": "Run a shell command",
    "parameters": {
        "type": "object",
        "properties": {"command": {"type": "string"}},
        "required": ["command"],
    },
}


def _build(model: iModel, request: dict[str, Any]) -> None:
    payload, _ = model.endpoint.create_payload(request)
    model.endpoint.request_target(payload, stream=False)


def refused(model: iModel, request: dict[str, Any]) -> EndpointConfigurationError:
    """The error building (and routing) ``request`` raises; fails the test if none is raised."""
    with pytest.raises(EndpointConfigurationError) as info:
        _build(model, request)
    return info.value


def wire(model: iModel, request: dict[str, Any]) -> dict[str, Any]:
    """The JSON body ``request`` is sent as (the payload after routing)."""
    payload, _ = model.endpoint.create_payload(request)
    _, body = model.endpoint.request_target(payload, stream=False)
    return dict(body)


# -- wrong types are refused, never coerced ----------------------------------------------------


@pytest.mark.parametrize(
    ("generation_config", "field"),
    [
        # True would be sent as a budget of 1 token, not as "think".
        ({"thinkingConfig": {"thinkingBudget": True}}, "thinkingConfig.thinkingBudget"),
        ({"temperature": "0.5"}, "temperature"),
        ({"candidateCount": 2.0}, "candidateCount"),
        ({"responseLogprobs": "yes"}, "responseLogprobs"),
        ({"stopSequences": "END"}, "stopSequences"),
    ],
)
def test_a_wrong_type_in_generation_config_is_refused(
    generation_config: dict[str, Any], field: str
) -> None:
    error = refused(native_model(), {"contents": CONTENTS, "generationConfig": generation_config})
    assert error.field == f"generationConfig.{field}"


def test_a_wrong_type_in_a_part_is_refused() -> None:
    contents = [{"role": "user", "parts": [{"text": "hi", "thought": "yes"}]}]
    assert refused(native_model(), {"contents": contents}).field == "contents.0.parts.0.thought"
    contents = [{"role": "user", "parts": [{"text": 42}]}]
    assert refused(native_model(), {"contents": contents}).field == "contents.0.parts.0.text"


def test_a_wrong_type_in_the_compat_google_options_is_refused() -> None:
    google = {"thinking_config": {"thinking_budget": True}}
    error = refused(chat_model(), {"messages": MESSAGES, "google": google})
    assert error.field == "google.thinking_config.thinking_budget"


def test_whole_numbers_stay_valid_for_number_fields() -> None:
    body = wire(native_model(), {"contents": CONTENTS, "generationConfig": {"temperature": 1}})
    assert body["generationConfig"] == {"temperature": 1}


# -- settings the API refuses together ------------------------------------------------------------


def test_thinking_budget_and_level_together_are_refused_natively() -> None:
    config = {"thinkingConfig": {"thinkingBudget": 1024, "thinkingLevel": "low"}}
    error = refused(native_model(), {"contents": CONTENTS, "generationConfig": config})
    assert error.field == "generationConfig.thinkingConfig.thinkingLevel"
    assert "thinkingBudget" in str(error)


def test_thinking_budget_and_level_together_are_refused_on_chat() -> None:
    google = {"thinking_config": {"thinking_budget": 1024, "thinking_level": "low"}}
    error = refused(chat_model(), {"messages": MESSAGES, "google": google})
    assert error.field == "google.thinking_config.thinking_level"


@pytest.mark.parametrize(
    "thinking", [{"thinking_budget": 800}, {"thinking_level": "high"}, {"thinking_budget": 0}]
)
def test_reasoning_effort_with_a_google_thinking_setting_is_refused(
    thinking: dict[str, Any],
) -> None:
    google = {"thinking_config": {**thinking, "include_thoughts": True}}
    request = {"messages": MESSAGES, "reasoning_effort": "low", "google": google}
    error = refused(chat_model(), request)
    assert error.field == "google"
    assert "reasoning_effort" in str(error)


def test_reasoning_effort_with_thought_summaries_only_is_sent() -> None:
    google = {"thinking_config": {"include_thoughts": True}}
    body = wire(chat_model(), {"messages": MESSAGES, "reasoning_effort": "low", "google": google})
    assert body["reasoning_effort"] == "low"
    assert body["extra_body"] == {"google": google}


# -- closed value sets ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "field"),
    [
        ({"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_ONLY_HIGHT"}, "threshold"),
        ({"category": "HARASSMENT", "threshold": "BLOCK_NONE"}, "category"),
    ],
)
def test_a_misspelled_safety_setting_is_refused(setting: dict[str, str], field: str) -> None:
    error = refused(native_model(), {"contents": CONTENTS, "safetySettings": [setting]})
    assert error.field == f"safetySettings.0.{field}"


def test_every_documented_safety_threshold_is_sent() -> None:
    thresholds = [
        "HARM_BLOCK_THRESHOLD_UNSPECIFIED",
        "BLOCK_LOW_AND_ABOVE",
        "BLOCK_MEDIUM_AND_ABOVE",
        "BLOCK_ONLY_HIGH",
        "BLOCK_NONE",
        "OFF",
    ]
    settings = [{"category": "HARM_CATEGORY_CIVIC_INTEGRITY", "threshold": t} for t in thresholds]
    body = wire(native_model(), {"contents": CONTENTS, "safetySettings": settings})
    assert body["safetySettings"] == settings


# -- the chat layer's literal extra_body ----------------------------------------------------------


def test_an_escape_hatch_extra_body_is_kept_beside_google() -> None:
    google = {"cached_content": "cachedContents/abc"}
    request = {"messages": MESSAGES, "google": google, "extra_body": {"extra_body": {"x": 1}}}
    body = wire(chat_model(), request)
    assert body["extra_body"] == {"x": 1, "google": google}


def test_google_through_the_escape_hatch_is_refused() -> None:
    smuggled = {"extra_body": {"google": {"thinking_config": {"thinking_budget": "lots"}}}}
    error = refused(chat_model(), {"messages": MESSAGES, "extra_body": smuggled})
    assert error.field == "extra_body.extra_body.google"


def test_an_escape_hatch_extra_body_that_is_not_a_mapping_is_refused() -> None:
    error = refused(chat_model(), {"messages": MESSAGES, "extra_body": {"extra_body": ["x"]}})
    assert error.field == "extra_body.extra_body"


# -- the API's documented options reach the wire --------------------------------------------------


async def test_documented_native_options_are_sent_as_given() -> None:
    video: dict[str, Any] = {
        "fileData": {"fileUri": "files/abc", "mimeType": "video/mp4"},
        "videoMetadata": {"startOffset": "1s", "endOffset": "5s", "fps": 2},
    }
    image: dict[str, Any] = {
        "inlineData": {"mimeType": "image/png", "data": "AA=="},
        "mediaResolution": {"level": "MEDIA_RESOLUTION_HIGH"},
    }
    request: dict[str, Any] = {
        "contents": [{"role": "user", "parts": [{"text": "describe"}, video, image]}],
        "tools": [
            {"googleSearchRetrieval": {"dynamicRetrievalConfig": {"mode": "MODE_DYNAMIC"}}},
            {"googleMaps": {}},
            {"fileSearch": {"fileSearchStoreNames": ["fileSearchStores/s"]}},
            {"computerUse": {"environment": "ENVIRONMENT_BROWSER"}},
        ],
        "toolConfig": {"retrievalConfig": {"latLng": {"latitude": 1.5, "longitude": 2.5}}},
        "generationConfig": {
            "mediaResolution": "MEDIA_RESOLUTION_LOW",
            "responseModalities": ["TEXT", "IMAGE"],
            "imageConfig": {"aspectRatio": "16:9"},
            "speechConfig": {"voiceConfig": {"prebuiltVoiceConfig": {"voiceName": "Kore"}}},
            "enableEnhancedCivicAnswers": True,
        },
    }
    call, body = await sent(request)
    assert call.execution.status is EventStatus.COMPLETED
    assert body == request


def test_a_media_resolution_outside_the_api_values_is_refused() -> None:
    config = {"mediaResolution": "MEDIA_RESOLUTION_ULTRA"}
    error = refused(native_model(), {"contents": CONTENTS, "generationConfig": config})
    assert error.field == "generationConfig.mediaResolution"


# -- multi-turn function calling, natively ---------------------------------------------------------


async def test_a_function_call_round_trip_sends_the_call_and_its_response_back() -> None:
    """The streamed call goes back as the model turn (signature kept), its result by name."""
    tools = [{"functionDeclarations": [SHELL]}]
    first = [{"role": "user", "parts": [{"text": "list files"}]}]
    async with FakeProviderServer() as server:
        async with native_model(server, prefix="/scenario/tool") as model:
            chunks = [c async for c in model.stream(contents=first, tools=tools)]
            [use] = [c for c in chunks if c.type == "tool_use"]
            call_part: dict[str, Any] = {
                "functionCall": {"name": use.tool_name, "args": use.tool_input},
                "thoughtSignature": "c2lnbmF0dXJl",
            }
            answer = {
                "functionResponse": {
                    "name": use.tool_name,
                    "response": {"output": "notes.txt"},
                    "willContinue": False,
                    "scheduling": "WHEN_IDLE",
                }
            }
            history = [
                *first,
                {"role": "model", "parts": [call_part]},
                {"role": "user", "parts": [answer]},
            ]
            call = await model.invoke(contents=history, tools=tools)
        body = server.requests[1].json
    assert use.tool_name == "shell"
    assert body["contents"] == history
    assert call.execution.status is EventStatus.COMPLETED
    text = call.execution.response["candidates"][0]["content"]["parts"][0]["text"]
    assert "notes.txt" in text  # the fake model read the result sent under the call's name


def test_a_function_response_scheduling_outside_the_api_values_is_refused() -> None:
    answer = {"functionResponse": {"name": "f", "response": {}, "scheduling": "LATER"}}
    error = refused(native_model(), {"contents": [{"role": "user", "parts": [answer]}]})
    assert error.field == "contents.0.parts.0.functionResponse.scheduling"


@pytest.mark.parametrize(
    ("declaration", "field"),
    [
        ({"parameters": SHELL["parameters"], "parametersJsonSchema": {}}, "parametersJsonSchema"),
        ({"response": {"type": "STRING"}, "responseJsonSchema": {}}, "responseJsonSchema"),
    ],
)
def test_a_function_declared_with_both_schema_forms_is_refused(
    declaration: dict[str, Any], field: str
) -> None:
    tools = [{"functionDeclarations": [{"name": "shell", **declaration}]}]
    error = refused(native_model(), {"contents": CONTENTS, "tools": tools})
    assert error.field == f"tools.0.functionDeclarations.0.{field}"


# -- OpenAI-style chat through the compatibility layer ---------------------------------------------


async def test_a_chat_tool_round_trip_is_sent_as_the_caller_wrote_it() -> None:
    """System, multimodal user, assistant tool call and tool result go to the layer unchanged."""
    tools = [{"type": "function", "function": SHELL}]
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "list files"}, image]},
    ]
    async with FakeProviderServer() as server:
        async with chat_model(server, prefix="/scenario/tool") as model:
            chunks = [c async for c in model.stream(messages=messages, tools=tools)]
            [use] = [c for c in chunks if c.type == "tool_use"]
            call_turn: dict[str, Any] = {
                "id": use.tool_id,
                "type": "function",
                "function": {"name": use.tool_name, "arguments": '{"command": "ls"}'},
            }
            history = [
                *messages,
                {"role": "assistant", "content": None, "tool_calls": [call_turn]},
                {"role": "tool", "tool_call_id": use.tool_id, "content": "notes.txt"},
            ]
            call = await model.invoke(messages=history, tools=tools, tool_choice="auto")
        request = server.requests[1]
    assert request.path == "/v1beta/openai/chat/completions"
    assert request.json == {
        "model": "gemini-2.5-flash",
        "messages": history,
        "tools": tools,
        "tool_choice": "auto",
    }
    assert call.execution.status is EventStatus.COMPLETED
    assert "notes.txt" in call.execution.response["choices"][0]["message"]["content"]


# -- the model id is one path segment, on every path -----------------------------------------------


@pytest.mark.parametrize(
    "bad", ["../x", "a/b", "x?alt=json", "x#frag", "has space", "%2e%2e", "models/../x", "..", ""]
)
async def test_a_model_that_is_not_one_path_segment_never_reaches_the_server(bad: str) -> None:
    async with FakeProviderServer() as server:
        async with native_model(server) as model:
            with pytest.raises(EndpointConfigurationError) as info:
                await model.invoke(model=bad, contents=CONTENTS)
            # A payload built elsewhere and routed as is meets the same check.
            with pytest.raises(EndpointConfigurationError) as routed:
                model.endpoint.request_target({"model": bad, "contents": CONTENTS}, stream=True)
        requests = server.requests
    assert info.value.field == routed.value.field == "model"
    assert requests == []


@pytest.mark.parametrize("tier", ["flex", "PRIORITY"])
async def test_a_service_tier_is_sent_as_given(tier: str) -> None:
    """``serviceTier`` (standard, flex, priority; either case) was refused as an unknown field."""
    call, body = await sent({"contents": CONTENTS, "serviceTier": tier})
    assert call.execution.status is EventStatus.COMPLETED
    assert body["serviceTier"] == tier
    assert (
        refused(native_model(), {"contents": CONTENTS, "serviceTier": "fast"}).field
        == "serviceTier"
    )

"""The native request against Google's SDK: the Developer API's fields sent, Vertex AI's refused.

Google's ``google-genai`` SDK is the reference. Its Developer API converters
(``google/genai/models.py``, ``_..._to_mldev``) raise "only supported in Gemini Enterprise Agent
Platform mode" (Vertex AI) on some options inside what this API takes: ``googleSearch``'s
``excludeDomains`` / ``blockingConfidence``, ``googleMaps``' ``groundingTypes`` and its
``authConfig`` kinds other than ``apiKey``, ``imageConfig``'s ``personGeneration`` /
``prominentPeople`` / ``imageOutputOptions``, a safety setting's ``method``,
``functionCallingConfig.streamFunctionCallArguments``, ``generationConfig``'s
``routingConfig`` / ``modelConfig`` / ``audioTimestamp``. The built-in tools' options were
open mappings, so those went out and came back as a 400; each is now refused before sending,
naming its path and saying it is Vertex AI's, while the other options stay open and are sent as
written. The fields the converters pass that were refused as unknown (the request's ``labels``,
``store``, ``continuationToken``; ``generationConfig.audioTranscriptionConfig``; the values
``thinkingLevel: xhigh``, ``mode: MODE_UNSPECIFIED``) are typed and reach the wire.

The explicit cases run without the SDK; the SDK-driven ones (skipped without it) ask the
installed converters which options they refuse, so a later SDK is compared, not guessed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, get_args

import pytest
from gemini_loopback import native_model, sent

from lionagi.providers.gemini._requests import (
    GeminiFunctionCallingConfig,
    GeminiGenerateContentRequest,
    GeminiGenerationConfig,
    GeminiSafetySetting,
    GeminiThinkingConfig,
    GeminiToolConfig,
    MediaResolution,
    ServiceTier,
)
from lionagi.service import EndpointConfigurationError, EventStatus

CONTENTS = [{"role": "user", "parts": [{"text": "Where is the nearest cafe?"}]}]
SECRET = "ya29.maps-oauth-credential-0123456789"
SAFETY = {"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_ONLY_HIGH"}


def outcome(request: dict[str, Any]) -> EndpointConfigurationError | None:
    """The error building ``request`` (with ``CONTENTS``) raises, or None when it is sent."""
    endpoint = native_model().endpoint
    try:
        payload, _ = endpoint.create_payload({"contents": CONTENTS, **request})
        endpoint.request_target(payload, stream=False)
    except EndpointConfigurationError as error:
        return error
    return None


def refused(request: dict[str, Any]) -> EndpointConfigurationError:
    error = outcome(request)
    assert error is not None, f"{request} was sent"
    return error


def vertex_refused(error: EndpointConfigurationError | None) -> str | None:
    """The field ``error`` refuses as Vertex AI's (None: sent, or refused for another reason)."""
    return error.field if error is not None and "Vertex AI" in str(error) else None


async def sent_body(request: dict[str, Any]) -> dict[str, Any]:
    """The JSON body the fake server received for ``request`` (the call must complete)."""
    call, body = await sent({"contents": CONTENTS, **request})
    assert call.execution.status is EventStatus.COMPLETED, call.execution.error
    assert isinstance(body, dict)
    return body


# Where each option goes in a request, and the path an error names for it.
Place = Callable[[str, Any], dict[str, Any]]
PLACES: dict[str, tuple[Place, str]] = {
    "googleSearch": (lambda k, v: {"tools": [{"googleSearch": {k: v}}]}, "tools.0.googleSearch"),
    "googleMaps": (lambda k, v: {"tools": [{"googleMaps": {k: v}}]}, "tools.0.googleMaps"),
    "authConfig": (
        lambda k, v: {"tools": [{"urlContext": {}}, {"googleMaps": {"authConfig": {k: v}}}]},
        "tools.1.googleMaps.authConfig",
    ),
    "imageConfig": (
        lambda k, v: {"generationConfig": {"imageConfig": {"aspectRatio": "16:9", k: v}}},
        "generationConfig.imageConfig",
    ),
    "safetySettings": (lambda k, v: {"safetySettings": [{**SAFETY, k: v}]}, "safetySettings.0"),
    "functionCallingConfig": (
        lambda k, v: {"toolConfig": {"functionCallingConfig": {k: v}}},
        "toolConfig.functionCallingConfig",
    ),
    "generationConfig": (lambda k, v: {"generationConfig": {k: v}}, "generationConfig"),
    "tools": (lambda k, v: {"tools": [{k: v}]}, "tools.0"),
}

# The Vertex AI options the SDK's Developer API converters refuse, by their REST names.
VERTEX_ONLY = [
    ("googleSearch", "excludeDomains", ["example.com"]),
    ("googleSearch", "blockingConfidence", "BLOCK_LOW_AND_ABOVE"),
    ("googleMaps", "groundingTypes", {"places": True}),
    ("authConfig", "apiKeyConfig", {"apiKeyString": SECRET}),
    ("authConfig", "authType", "OAUTH"),
    ("authConfig", "googleServiceAccountConfig", {"serviceAccount": "sa@p.iam"}),
    ("authConfig", "httpBasicAuthConfig", {"credentialSecret": SECRET}),
    ("authConfig", "oauthConfig", {"accessToken": SECRET}),
    ("authConfig", "oidcConfig", {"idToken": SECRET}),
    ("imageConfig", "personGeneration", "ALLOW_ADULT"),
    ("imageConfig", "prominentPeople", "BLOCK_PROMINENT_PEOPLE"),
    ("imageConfig", "imageOutputOptions", {"mimeType": "image/jpeg"}),
    ("safetySettings", "method", "SEVERITY"),
    ("functionCallingConfig", "streamFunctionCallArguments", True),
    ("generationConfig", "routingConfig", {"autoMode": {}}),
    ("generationConfig", "modelConfig", {"featureSelectionPreference": "PRIORITIZE_QUALITY"}),
    ("generationConfig", "audioTimestamp", True),
]
OPEN_MAPPINGS = {"googleSearch", "googleMaps", "authConfig", "imageConfig"}


def snake(name: str) -> str:
    return re.sub(r"([A-Z])", r"_\1", name).lower()


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


# -- Vertex AI options are refused, naming their path ----------------------------------------------


@pytest.mark.parametrize(("place", "option", "value"), VERTEX_ONLY)
def test_a_vertex_ai_option_is_refused_naming_its_path(place: str, option: str, value: Any) -> None:
    build, path = PLACES[place]
    error = refused(build(option, value))
    assert error.field == f"{path}.{option}"
    assert "is a Vertex AI option" in str(error)
    assert "Gemini Developer API" in str(error)
    assert "unknown field" not in str(error)


@pytest.mark.parametrize(
    ("place", "option", "value"), [case for case in VERTEX_ONLY if case[0] in OPEN_MAPPINGS]
)
def test_a_vertex_ai_option_in_its_proto_spelling_is_refused_too(
    place: str, option: str, value: Any
) -> None:
    """The API's JSON reads ``exclude_domains`` as ``excludeDomains``: a mapping checks both."""
    build, path = PLACES[place]
    error = refused(build(snake(option), value))
    assert error.field == f"{path}.{snake(option)}"
    assert "is a Vertex AI option" in str(error)


def test_a_vertex_ai_auth_option_never_echoes_its_credential() -> None:
    tools = [{"googleMaps": {"authConfig": {"oauthConfig": {"accessToken": SECRET}}}}]
    assert SECRET not in str(refused({"tools": tools}))
    # Validated directly, pydantic's own text shows the option's name, not its value.
    with pytest.raises(ValueError) as info:
        GeminiGenerateContentRequest.model_validate(
            {"model": "gemini-2.5-flash", "contents": CONTENTS, "tools": tools}
        )
    assert SECRET not in str(info.value)
    assert "oauthConfig" in str(info.value)


def test_every_vertex_ai_option_of_a_mapping_is_named() -> None:
    """Two in one object: the first is the error's field, both are in pydantic's errors."""
    search = {"excludeDomains": ["a.example"], "blockingConfidence": "BLOCK_LOW_AND_ABOVE"}
    tools = [{"googleSearch": search}]
    assert refused({"tools": tools}).field == "tools.0.googleSearch.excludeDomains"
    with pytest.raises(ValueError) as info:
        GeminiGenerateContentRequest.model_validate(
            {"model": "gemini-2.5-flash", "contents": CONTENTS, "tools": tools}
        )
    assert "excludeDomains" in str(info.value)
    assert "blockingConfidence" in str(info.value)


# -- the other options stay open and reach the wire as written -------------------------------------


async def test_the_developer_api_options_of_the_built_in_tools_are_sent_as_written() -> None:
    request: dict[str, Any] = {
        "tools": [
            {
                "googleSearch": {
                    "searchTypes": {"webSearch": {}, "imageSearch": {}},
                    "timeRangeFilter": {
                        "startTime": "2025-01-01T00:00:00Z",
                        "endTime": "2025-06-30T00:00:00Z",
                    },
                    # An option newer than this package: still open, sent as given.
                    "someFutureOption": None,
                }
            },
            {"googleMaps": {"enableWidget": True, "authConfig": {"apiKey": "maps-key"}}},
        ],
        "generationConfig": {"imageConfig": {"aspectRatio": "16:9", "imageSize": "2K"}},
    }
    assert (await sent_body(request))["tools"] == request["tools"]


# -- the fields the Developer API takes are typed and sent -----------------------------------------


async def test_the_request_fields_the_developer_api_takes_reach_the_wire() -> None:
    """``labels``, ``store``, ``continuationToken``, ``audioTranscriptionConfig`` were unknown."""
    request: dict[str, Any] = {
        "labels": {"team": "search", "env": "prod"},
        "store": False,
        "continuationToken": "Q2lnQXJB",
        "generationConfig": {
            "audioTranscriptionConfig": {"languageCodes": ["en-US"], "diarization": True},
            "thinkingConfig": {"thinkingLevel": "xhigh"},
        },
        "toolConfig": {"functionCallingConfig": {"mode": "MODE_UNSPECIFIED"}},
    }
    body = await sent_body(request)
    assert {key: body[key] for key in request} == request


@pytest.mark.parametrize("level", ["xhigh", "XHIGH", "THINKING_LEVEL_UNSPECIFIED"])
def test_every_sdk_thinking_level_is_accepted(level: str) -> None:
    assert outcome({"generationConfig": {"thinkingConfig": {"thinkingLevel": level}}}) is None


@pytest.mark.parametrize(
    ("request_fields", "field"),
    [
        ({"labels": {"team": 1}}, "labels.team"),
        ({"labels": ["team"]}, "labels"),
        ({"store": "no"}, "store"),
        ({"continuationToken": 7}, "continuationToken"),
        ({"generationConfig": {"audioTranscriptionConfig": "en-US"}}, "audioTranscriptionConfig"),
        ({"generationConfig": {"thinkingConfig": {"thinkingLevel": "ultra"}}}, "thinkingLevel"),
    ],
)
def test_a_new_field_of_the_wrong_type_is_refused(
    request_fields: dict[str, Any], field: str
) -> None:
    assert refused(request_fields).field.endswith(field)


# -- compared with the installed SDK --------------------------------------------------------------


@pytest.fixture(scope="module")
def sdk() -> Any:
    """``google.genai.models`` (its converters) and a Developer API client for them."""
    genai = pytest.importorskip("google.genai")
    models = pytest.importorskip("google.genai.models")
    return models, genai.Client(api_key="offline-never-sent")._api_client


# GenerateContentConfig values that survive the converter (an empty mapping does not for these).
SDK_VALUES: dict[str, Any] = {
    "cached_content": "cachedContents/c",
    "speech_config": "Kore",
    "response_schema": {"type": "STRING"},
}


def sdk_refuses(convert: Callable[[dict[str, Any]], object], fields: list[str]) -> set[str]:
    """The fields the SDK's Developer API converter refuses as Vertex AI's (Enterprise mode)."""
    out = set()
    for name in fields:
        try:
            convert({name: SDK_VALUES.get(name, {})})
        except ValueError as error:
            if "not in Gemini Developer API mode" in str(error):
                out.add(name)
    return out


@pytest.mark.parametrize(
    ("place", "sdk_type", "converter", "rest_names"),
    [
        ("googleSearch", "GoogleSearch", "_GoogleSearch_to_mldev", None),
        ("googleMaps", "GoogleMaps", "_GoogleMaps_to_mldev", None),
        ("authConfig", "AuthConfig", "_AuthConfig_to_mldev", None),
        ("imageConfig", "ImageConfig", "_ImageConfig_to_mldev", "_ImageConfig_to_vertex"),
        ("safetySettings", "SafetySetting", "_SafetySetting_to_mldev", None),
        (
            "functionCallingConfig",
            "FunctionCallingConfig",
            "_FunctionCallingConfig_to_mldev",
            None,
        ),
        ("tools", "Tool", "_Tool_to_mldev", None),
    ],
)
def test_exactly_the_options_the_sdk_refuses_are_refused(
    sdk: Any, place: str, sdk_type: str, converter: str, rest_names: str | None
) -> None:
    """Each option the converter refuses is refused at its path; none it passes is."""
    models, _ = sdk
    fields = list(getattr(pytest.importorskip("google.genai.types"), sdk_type).model_fields)
    vertex = sdk_refuses(getattr(models, converter), fields)
    assert vertex, f"the SDK refuses nothing of {sdk_type}: its wording may have changed"
    build, path = PLACES[place]
    for name in fields:
        # The REST name: the SDK's camelCase, or what its Vertex AI converter writes.
        rest = camel(name)
        if rest_names is not None:
            (rest,) = getattr(models, rest_names)({name: {}})
        error = outcome(build(rest, {}))
        if name in vertex:
            assert vertex_refused(error) == f"{path}.{rest}", f"{place}.{rest}: {error}"
        else:
            assert vertex_refused(error) is None, f"{place}.{rest} is refused as Vertex AI's"


# What the SDK's GenerateContentConfig puts at the request's top level for Vertex AI only: the
# endpoint refuses them by name, saying why, before core's unknown-field check.
VERTEX_TOP_LEVEL = {"modelArmorConfig", "outputConfig"}


def test_generation_config_matches_the_sdk(sdk: Any) -> None:
    """Every field the converter sends is declared where it sends it; its refusals are refused."""
    models, client = sdk
    types = pytest.importorskip("google.genai.types")
    body_fields = set(GeminiGenerateContentRequest.model_fields)
    config_fields = set(GeminiGenerationConfig.model_fields)
    vertex = sdk_refuses(
        lambda value: models._GenerateContentConfig_to_mldev(client, value, {}),
        list(types.GenerateContentConfig.model_fields),
    )
    assert {"routing_config", "audio_timestamp"} <= vertex
    for name in types.GenerateContentConfig.model_fields:
        top: dict[str, Any] = {}
        value = {name: SDK_VALUES.get(name, {})}
        if name in vertex:
            config = models._GenerateContentConfig_to_vertex(client, value, top)
            for rest in config:
                error = outcome({"generationConfig": {rest: {}}})
                assert vertex_refused(error) == f"generationConfig.{rest}", str(error)
            for rest in top:
                assert rest in VERTEX_TOP_LEVEL, f"{rest} (Vertex AI's) is not reviewed"
                assert vertex_refused(outcome({rest: {}})) == rest
            continue
        config = models._GenerateContentConfig_to_mldev(client, value, top)
        assert set(config) <= config_fields, f"generationConfig lacks {set(config) - config_fields}"
        assert set(top) <= body_fields, f"the request lacks {set(top) - body_fields}"


def literal_values(annotation: Any) -> set[Any]:
    return {value for arg in get_args(annotation) for value in get_args(arg) or (arg,)} - {None}


def test_the_typed_objects_take_every_sdk_field_and_value(sdk: Any) -> None:
    types = pytest.importorskip("google.genai.types")
    for ours, theirs in (
        (GeminiThinkingConfig, types.ThinkingConfig),
        (GeminiToolConfig, types.ToolConfig),
    ):
        lacking = {camel(name) for name in theirs.model_fields} - set(ours.model_fields)
        assert not lacking, f"{ours.__name__} lacks {sorted(lacking)}"
    for annotation, enum in (
        (GeminiThinkingConfig.model_fields["thinkingLevel"].annotation, types.ThinkingLevel),
        (
            GeminiFunctionCallingConfig.model_fields["mode"].annotation,
            types.FunctionCallingConfigMode,
        ),
        (GeminiSafetySetting.model_fields["threshold"].annotation, types.HarmBlockThreshold),
        (MediaResolution, types.MediaResolution),
        (ServiceTier, types.ServiceTier),
    ):
        lacking = {member.value for member in enum} - literal_values(annotation)
        assert not lacking, f"{enum.__name__}: {sorted(lacking)} refused"

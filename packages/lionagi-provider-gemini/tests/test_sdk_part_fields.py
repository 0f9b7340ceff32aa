"""A content's parts against Google's SDK: the fields the Developer API takes, Vertex AI's refused.

Google's ``google-genai`` SDK is the reference: its ``_Part_to_mldev`` converter
(``google/genai/models.py``) passes ``audioTranscription``, ``mediaProcessing``,
``speechMetadata``, ``documentMetadata``, ``spreadsheetMetadata`` and ``audioMetadata`` to the
Developer API, and ``inlineData`` / ``fileData`` as they are, ``displayName`` included (the SDK
has no ``_Blob_to_mldev`` / ``_FileData_to_mldev`` that could refuse it). Those were refused as
unknown fields; they are now typed (an open mapping for the output-only transcription) and reach
the wire. ``_FunctionCall_to_mldev`` raises on ``partialArgs`` and ``willContinue`` ("only
supported in Gemini Enterprise Agent Platform mode", Vertex AI): they are refused naming their
path and saying they are Vertex AI's, not as unknown fields.

The explicit cases run without the SDK; the SDK-driven ones (skipped without it) ask the
installed converters what they pass and refuse, so a later SDK is compared, not guessed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, get_args

import pytest
from gemini_loopback import native_model, sent

from lionagi.providers.gemini._requests import (
    DocumentContentLayer,
    GeminiAudioMetadata,
    GeminiBlob,
    GeminiDocumentMetadata,
    GeminiFileData,
    GeminiFunctionCall,
    GeminiFunctionResponse,
    GeminiFunctionResponsePart,
    GeminiPart,
    GeminiSpeechMetadata,
    GeminiSpreadsheetMetadata,
    MediaProcessing,
    SpreadsheetContentLayer,
)
from lionagi.service import EndpointConfigurationError, EventStatus

AUDIO = {"mimeType": "audio/wav", "data": "UklGRg=="}
RESULT = {"name": "render", "response": {"ok": True}}


def outcome(parts: list[dict[str, Any]], role: str = "user") -> EndpointConfigurationError | None:
    """The error building a request of one turn of ``parts`` raises, or None when it is sent."""
    endpoint = native_model().endpoint
    try:
        payload, _ = endpoint.create_payload({"contents": [{"role": role, "parts": parts}]})
        endpoint.request_target(payload, stream=False)
    except EndpointConfigurationError as error:
        return error
    return None


def refused(parts: list[dict[str, Any]], role: str = "user") -> EndpointConfigurationError:
    error = outcome(parts, role)
    assert error is not None, f"{parts} was sent"
    return error


def vertex_refused(error: EndpointConfigurationError | None) -> str | None:
    """The field ``error`` refuses as Vertex AI's (None: sent, or refused for another reason)."""
    return error.field if error is not None and "Vertex AI" in str(error) else None


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


# -- the part fields the Developer API takes reach the wire ----------------------------------------


async def test_the_part_fields_the_developer_api_takes_reach_the_wire() -> None:
    """Each was refused as an unknown field; the SDK sends every one to the Developer API."""
    contents: list[dict[str, Any]] = [
        {
            "role": "user",
            "parts": [
                {"text": "Read these.", "speechMetadata": {"speaker": "Ana", "style": "calm"}},
                {
                    "fileData": {
                        "fileUri": "files/report",
                        "mimeType": "application/pdf",
                        "displayName": "report.pdf",
                    },
                    "documentMetadata": {
                        "startPage": 2,
                        "endPage": 4,
                        "contentLayers": ["PAGE_TEXT", "PAGE_IMAGE"],
                    },
                },
                {
                    "fileData": {"fileUri": "files/sheet", "displayName": "q3.xlsx"},
                    "spreadsheetMetadata": {
                        "visibleCells": "A1:D10",
                        "sheetIndex": 2,
                        "contentLayers": ["DATA", "VISUAL"],
                    },
                },
                {
                    "inlineData": {**AUDIO, "displayName": "call.wav"},
                    "audioMetadata": {"startOffset": "1.5s", "endOffset": "30s"},
                },
                {
                    "fileData": {"fileUri": "files/clip", "mimeType": "video/mp4"},
                    "mediaProcessing": "AGENTIC",
                },
            ],
        },
        {
            "role": "model",
            "parts": [
                {
                    "inlineData": AUDIO,
                    # Output only: the transcription the API returned, sent back as it came.
                    "audioTranscription": {
                        "text": "hello",
                        "languageCode": "en-US",
                        "words": [{"word": "hello", "startOffset": "0s", "endOffset": "0.4s"}],
                    },
                }
            ],
        },
        {"role": "user", "parts": [{"text": "Summarise."}]},
    ]
    call, body = await sent({"contents": contents})
    assert call.execution.status is EventStatus.COMPLETED, call.execution.error
    assert isinstance(body, dict)
    assert body["contents"] == contents


@pytest.mark.parametrize("value", ["MEDIA_PROCESSING_UNSPECIFIED", "STATIC", "AGENTIC"])
def test_every_media_processing_value_is_accepted(value: str) -> None:
    assert outcome([{"fileData": {"fileUri": "files/v"}, "mediaProcessing": value}]) is None


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"mediaProcessing": "DYNAMIC"}, "mediaProcessing"),
        ({"speechMetadata": {"speaker": 1}}, "speechMetadata.speaker"),
        ({"speechMetadata": {"voice": "Kore"}}, "speechMetadata.voice"),
        ({"documentMetadata": {"startPage": 0}}, "documentMetadata.startPage"),
        ({"documentMetadata": {"startPage": "2"}}, "documentMetadata.startPage"),
        ({"documentMetadata": {"startPage": 5, "endPage": 3}}, "documentMetadata.endPage"),
        ({"documentMetadata": {"contentLayers": ["DATA"]}}, "documentMetadata.contentLayers.0"),
        ({"documentMetadata": {"contentLayers": "PAGE_TEXT"}}, "documentMetadata.contentLayers"),
        ({"spreadsheetMetadata": {"sheetIndex": 0}}, "spreadsheetMetadata.sheetIndex"),
        ({"spreadsheetMetadata": {"visibleCells": 4}}, "spreadsheetMetadata.visibleCells"),
        (
            {"spreadsheetMetadata": {"contentLayers": ["PAGE_TEXT"]}},
            "spreadsheetMetadata.contentLayers.0",
        ),
        # A bare number is never read as seconds: the API's JSON writes "<seconds>s".
        ({"audioMetadata": {"startOffset": 1}}, "audioMetadata.startOffset"),
        ({"audioMetadata": {"endOffset": "5 minutes"}}, "audioMetadata.endOffset"),
        ({"audioTranscription": "hello"}, "audioTranscription"),
    ],
)
def test_a_new_part_field_of_the_wrong_shape_is_refused_at_its_path(
    extra: dict[str, Any], field: str
) -> None:
    error = refused([{"inlineData": AUDIO, **extra}])
    assert error.field == f"contents.0.parts.0.{field}"


@pytest.mark.parametrize("data", ["inlineData", "fileData"])
def test_a_display_name_that_is_not_a_string_is_refused(data: str) -> None:
    media = {"inlineData": AUDIO, "fileData": {"fileUri": "files/a"}}[data]
    error = refused([{data: {**media, "displayName": 7}}])
    assert error.field == f"contents.0.parts.0.{data}.displayName"


def test_a_metadata_field_still_needs_the_data_it_qualifies() -> None:
    """The new fields qualify a part's data; alone they are not a part."""
    error = refused([{"documentMetadata": {"startPage": 1}}])
    assert error.field == "contents.0.parts.0"
    assert "exactly one of" in str(error)


# -- Vertex AI's function-call fields are refused, naming their path ------------------------------


@pytest.mark.parametrize(
    ("option", "value"),
    [("partialArgs", [{"jsonPath": "$.city", "stringValue": "Par"}]), ("willContinue", True)],
)
def test_a_vertex_ai_function_call_field_is_refused_naming_its_path(
    option: str, value: Any
) -> None:
    call = {"name": "get_weather", "args": {"city": "Paris"}, option: value}
    error = refused([{"functionCall": call}], role="model")
    assert error.field == f"contents.0.parts.0.functionCall.{option}"
    assert "is a Vertex AI option" in str(error)
    assert "Gemini Developer API" in str(error)
    assert "unknown field" not in str(error)


def test_a_function_call_without_them_is_sent_without_them() -> None:
    endpoint = native_model().endpoint
    call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}
    payload, _ = endpoint.create_payload(
        {"contents": [{"role": "model", "parts": [{"functionCall": call}]}]}
    )
    _, body = endpoint.request_target(payload, stream=False)
    assert dict(body)["contents"][0]["parts"][0] == {"functionCall": call}


# -- compared with the installed SDK --------------------------------------------------------------


@pytest.fixture(scope="module")
def sdk() -> tuple[Any, Any]:
    """``google.genai.models`` (its converters) and ``google.genai.types``."""
    pytest.importorskip("google.genai")
    return pytest.importorskip("google.genai.models"), pytest.importorskip("google.genai.types")


def sdk_refuses(convert: Callable[[dict[str, Any]], object] | None, fields: list[str]) -> set[str]:
    """The fields the SDK's Developer API converter refuses as Vertex AI's (none: no converter)."""
    out = set()
    for name in fields if convert is not None else ():
        try:
            convert({name: {}})
        except ValueError as error:
            if "not in Gemini Developer API mode" in str(error):
                out.add(name)
    return out


# Where each SDK type sits in a request's parts, the path an error names there, our model.
Place = Callable[[str, Any], list[dict[str, Any]]]
PLACES: dict[str, tuple[Place, str, type[Any]]] = {
    "Part": (lambda k, v: [{"text": "hi", k: v}], "contents.0.parts.0", GeminiPart),
    "Blob": (
        lambda k, v: [{"inlineData": {**AUDIO, k: v}}],
        "contents.0.parts.0.inlineData",
        GeminiBlob,
    ),
    "FileData": (
        lambda k, v: [{"fileData": {"fileUri": "files/a", k: v}}],
        "contents.0.parts.0.fileData",
        GeminiFileData,
    ),
    "FunctionCall": (
        lambda k, v: [{"functionCall": {"name": "f", k: v}}],
        "contents.0.parts.0.functionCall",
        GeminiFunctionCall,
    ),
    "SpeechMetadata": (
        lambda k, v: [{"text": "hi", "speechMetadata": {k: v}}],
        "contents.0.parts.0.speechMetadata",
        GeminiSpeechMetadata,
    ),
    "DocumentMetadata": (
        lambda k, v: [{"inlineData": AUDIO, "documentMetadata": {k: v}}],
        "contents.0.parts.0.documentMetadata",
        GeminiDocumentMetadata,
    ),
    "SpreadsheetMetadata": (
        lambda k, v: [{"inlineData": AUDIO, "spreadsheetMetadata": {k: v}}],
        "contents.0.parts.0.spreadsheetMetadata",
        GeminiSpreadsheetMetadata,
    ),
    "AudioMetadata": (
        lambda k, v: [{"inlineData": AUDIO, "audioMetadata": {k: v}}],
        "contents.0.parts.0.audioMetadata",
        GeminiAudioMetadata,
    ),
    # A function response and its media parts: the SDK sends them to the Developer API as they
    # are (it has no ``_FunctionResponse_to_mldev``), so every field is taken.
    "FunctionResponse": (
        lambda k, v: [{"functionResponse": {"name": "f", "response": {}, k: v}}],
        "contents.0.parts.0.functionResponse",
        GeminiFunctionResponse,
    ),
    "FunctionResponsePart": (
        lambda k, v: [{"functionResponse": {**RESULT, "parts": [{"inlineData": AUDIO, k: v}]}}],
        "contents.0.parts.0.functionResponse.parts.0",
        GeminiFunctionResponsePart,
    ),
    "FunctionResponseBlob": (
        lambda k, v: [{"functionResponse": {**RESULT, "parts": [{"inlineData": {**AUDIO, k: v}}]}}],
        "contents.0.parts.0.functionResponse.parts.0.inlineData",
        GeminiBlob,
    ),
    "FunctionResponseFileData": (
        lambda k, v: [
            {"functionResponse": {**RESULT, "parts": [{"fileData": {"fileUri": "files/a", k: v}}]}}
        ],
        "contents.0.parts.0.functionResponse.parts.0.fileData",
        GeminiFileData,
    ),
}


@pytest.mark.parametrize("sdk_type", list(PLACES))
def test_every_sdk_part_field_is_taken_or_refused_as_vertex_ais(
    sdk: tuple[Any, Any], sdk_type: str
) -> None:
    """A field the converter passes is declared and not refused; one it refuses is, at its path.

    A type with no ``_<Type>_to_mldev`` converter (``Blob``, ``FileData``) is sent by the SDK as
    it is, every field included.
    """
    models, types = sdk
    fields = list(getattr(types, sdk_type).model_fields)
    vertex = sdk_refuses(getattr(models, f"_{sdk_type}_to_mldev", None), fields)
    if sdk_type == "FunctionCall":
        assert vertex, "the SDK refuses nothing of FunctionCall: its wording may have changed"
    build, path, ours = PLACES[sdk_type]
    role = "model" if sdk_type == "FunctionCall" else "user"
    for name in fields:
        rest = camel(name)
        assert rest in ours.model_fields, f"{ours.__name__} lacks {rest}, which the SDK sends"
        error = outcome(build(rest, {}), role)
        if name in vertex:
            assert vertex_refused(error) == f"{path}.{rest}", f"{path}.{rest}: {error}"
        else:
            assert vertex_refused(error) is None, f"{path}.{rest} is refused as Vertex AI's"


def literal_values(annotation: Any) -> set[Any]:
    return {value for arg in get_args(annotation) for value in get_args(arg) or (arg,)} - {None}


def test_the_part_literals_take_every_sdk_value(sdk: tuple[Any, Any]) -> None:
    _, types = sdk
    for ours, enum in (
        (MediaProcessing, types.MediaProcessing),
        (DocumentContentLayer, types.DocumentMetadataContentLayer),
        (SpreadsheetContentLayer, types.SpreadsheetMetadataContentLayer),
    ):
        lacking = {member.value for member in enum} - literal_values(ours)
        assert not lacking, f"{enum.__name__}: {sorted(lacking)} refused"


def test_the_sdk_part_converter_sends_the_new_fields_in_camel_case(sdk: tuple[Any, Any]) -> None:
    """What ``_Part_to_mldev`` writes is what this package declares (the REST names)."""
    models, types = sdk
    sent = models._Part_to_mldev({name: {} for name in types.Part.model_fields})
    declared = set(GeminiPart.model_fields)
    assert set(sent) <= declared, f"GeminiPart lacks {sorted(set(sent) - declared)}"
    assert not re.search(r"_", " ".join(sent)), sorted(sent)

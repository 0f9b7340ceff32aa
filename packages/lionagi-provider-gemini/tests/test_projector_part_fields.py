"""Every part field Google's SDK declares is projected, carried, ignored or refused on purpose.

The stream projector knew four non-data part fields (``thought``, ``thoughtSignature``,
``videoMetadata``, ``partMetadata``). A part carrying one of the fields the request side now
takes (``mediaResolution``, ``mediaProcessing``, ``speechMetadata``, ``documentMetadata``,
``spreadsheetMetadata``, ``audioMetadata``, ``audioTranscription``) with no data field before
it was "an unrecognized part field", failing the stream; a part with a signature and no data
field lost the signature; ``partMetadata`` was dropped. Now: ``speechMetadata`` and
``partMetadata`` ride on the part's chunk, the input-media qualifiers are ignored (they say
nothing of the answer), a lone signature gets its own empty chunk, and an
``audioTranscription`` is refused as the media it transcribes is (``invoke()`` returns it). The
SDK-driven test fails when Google's ``Part`` gains a field the projector has not placed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from gemini_loopback import native_model

from lionagi.providers.gemini import GeminiStreamProjector
from lionagi.providers.gemini._projector import (
    PART_CARRIED,
    PART_INPUT_QUALIFIERS,
    PART_MEDIA,
    PART_PROJECTED,
    PART_REQUEST_ONLY,
)
from lionagi.service import EventStatus, ProviderProtocolError, StreamChunk
from lionagi.service_testing import scripted_stream_server

CONTENTS = [{"role": "user", "parts": [{"text": "Read it to me."}]}]
SPEECH = {"speaker": "Ana", "style": "calm"}
ANNOTATION = {"source": "chapter-1"}
QUALIFIERS: dict[str, Any] = {
    "videoMetadata": {"startOffset": "1s"},
    "mediaResolution": {"level": "MEDIA_RESOLUTION_LOW"},
    "mediaProcessing": "STATIC",
    "documentMetadata": {"startPage": 1},
    "spreadsheetMetadata": {"sheetIndex": 1},
    "audioMetadata": {"startOffset": "0s"},
}
TRANSCRIPTION = {"text": "hello", "languageCode": "en-US"}


def chunk(*parts: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash"}


def run(*events: dict[str, Any]) -> list[StreamChunk]:
    projector = GeminiStreamProjector()
    out: list[StreamChunk] = []
    for event in events:
        out.extend(projector.feed(event))
    out.extend(projector.end(eof=True))
    return out


def test_speech_and_part_metadata_ride_on_the_part_chunk() -> None:
    out = run(
        chunk({"text": "Once upon", "speechMetadata": SPEECH, "partMetadata": ANNOTATION}),
        chunk(
            {"functionCall": {"name": "turn_page", "id": "c1"}, "partMetadata": ANNOTATION},
            finish="STOP",
        ),
    )
    text, use, _ = out
    assert (text.type, text.content) == ("text", "Once upon")
    assert text.metadata == {"speech_metadata": SPEECH, "part_metadata": ANNOTATION}
    assert use.type == "tool_use"
    assert use.metadata["part_metadata"] == ANNOTATION


@pytest.mark.parametrize("field", list(QUALIFIERS))
def test_an_input_media_qualifier_is_ignored_wherever_it_comes(field: str) -> None:
    value = QUALIFIERS[field]
    out = run(
        # Before the data field, and on a part with no data field at all.
        chunk({field: value, "text": "Hi"}),
        chunk({"thought": True, field: value}),
        chunk({"text": "!", field: value}, finish="STOP"),
    )
    assert [(c.type, c.content) for c in out[:-1]] == [("text", "Hi"), ("text", "!")]
    assert out[0].metadata == {}
    assert out[-1].metadata["finish_reason"] == "STOP"


@pytest.mark.parametrize("thought", [False, True])
def test_a_signature_on_a_part_without_data_gets_its_own_chunk(thought: bool) -> None:
    part: dict[str, Any] = {"thoughtSignature": "c2ln", "partMetadata": ANNOTATION}
    if thought:
        part["thought"] = True
    out = run(chunk({"text": "Done."}), chunk(part, finish="STOP"))
    signed = out[1]
    assert signed.type == ("thinking" if thought else "text")
    assert signed.content == ""
    assert signed.metadata == {"thought_signature": "c2ln", "part_metadata": ANNOTATION}


def test_a_lone_part_metadata_is_carried_not_dropped() -> None:
    out = run(chunk({"partMetadata": ANNOTATION}), chunk({"text": "x"}, finish="STOP"))
    assert (out[0].type, out[0].content, out[0].metadata) == (
        "text",
        "",
        {"part_metadata": ANNOTATION},
    )


def test_an_empty_text_part_carrying_part_metadata_keeps_it() -> None:
    """As a lone ``partMetadata`` is kept, so is one on an empty text (not only a signature)."""
    out = run(chunk({"text": "", "partMetadata": ANNOTATION}), chunk({"text": "x"}, finish="STOP"))
    assert (out[0].type, out[0].content, out[0].metadata) == (
        "text",
        "",
        {"part_metadata": ANNOTATION},
    )


def test_a_part_of_markers_alone_projects_nothing() -> None:
    out = run(chunk({"thought": True}, {"partMetadata": {}}), chunk({"text": "x"}, finish="STOP"))
    assert [c.type for c in out] == ["text", "result"]


@pytest.mark.parametrize(
    ("part", "says"),
    [
        ({"audioTranscription": TRANSCRIPTION}, "an audioTranscription part in the answer cannot"),
        (
            {"audioTranscription": TRANSCRIPTION, "inlineData": {"mimeType": "audio/pcm"}},
            "an audioTranscription part in the answer cannot",
        ),
        # A qualifier before the data no longer hides which data it is.
        (
            {"documentMetadata": {"startPage": 1}, "inlineData": {"mimeType": "application/pdf"}},
            "an inlineData part in the answer cannot",
        ),
        ({"fileData": {"fileUri": "files/a"}}, "a fileData part in the answer cannot"),
        (
            {"functionResponse": {"name": "f", "response": {}}},
            "a functionResponse part in the answer: it is the caller's part",
        ),
        ({"audioClip": {"data": "..."}}, "unrecognized part field 'audioClip'"),
        # An empty key is a field name too: named, never an untyped crash.
        ({"": 1}, "unrecognized part field ''"),
    ],
)
def test_content_no_chunk_can_hold_is_refused_saying_what(part: dict[str, Any], says: str) -> None:
    with pytest.raises(ProviderProtocolError, match=r"use invoke|caller's|unrecognized") as info:
        run(chunk(part, finish="STOP"))
    assert says in str(info.value)


# -- through a loopback server --------------------------------------------------------------------


def sse(*events: dict[str, Any]) -> list[bytes]:
    return [b"data: " + json.dumps(event).encode() + b"\r\n\r\n" for event in events]


async def stream(*events: dict[str, Any]) -> list[StreamChunk]:
    async with (
        scripted_stream_server(sse(*events), path="/v1beta") as server,
        native_model(server) as model,
    ):
        return [c async for c in model.stream(contents=CONTENTS)]


async def test_an_answer_with_the_newer_part_fields_streams_through() -> None:
    out = await stream(
        chunk({"mediaResolution": {"level": "MEDIA_RESOLUTION_LOW"}, "text": "Once"}),
        chunk({"text": " upon", "speechMetadata": SPEECH, "partMetadata": ANNOTATION}),
        chunk({"thoughtSignature": "c2ln", "mediaProcessing": "STATIC"}, finish="STOP"),
    )
    texts = [c for c in out if c.type == "text"]
    assert "".join(c.content or "" for c in texts) == "Once upon"
    assert texts[1].metadata["speech_metadata"] == SPEECH
    assert texts[1].metadata["part_metadata"] == ANNOTATION
    assert texts[-1].metadata["thought_signature"] == "c2ln"
    assert out[-1].type == "result"
    assert out[-1].metadata["finish_reason"] == "STOP"


async def test_an_audio_transcription_fails_the_stream_pointing_at_invoke() -> None:
    with pytest.raises(ProviderProtocolError, match=r"audioTranscription part .* use invoke"):
        await stream(chunk({"audioTranscription": TRANSCRIPTION}, finish="STOP"))


async def test_invoke_returns_the_same_answer_as_sent() -> None:
    body = chunk(
        {
            "inlineData": {"mimeType": "audio/pcm", "data": "AAAA"},
            "audioTranscription": TRANSCRIPTION,
        },
        finish="STOP",
    )
    raw = json.dumps(body).encode()
    async with (
        scripted_stream_server([raw], path="/v1beta", content_type="application/json") as server,
        native_model(server) as model,
    ):
        call = await model.invoke(contents=CONTENTS)
    assert call.status is EventStatus.COMPLETED, call.execution.error
    assert call.execution.response == body


# -- compared with the installed SDK --------------------------------------------------------------


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def test_every_sdk_part_field_has_its_place() -> None:
    types = pytest.importorskip("google.genai.types")
    groups = {
        "projected": PART_PROJECTED,
        "carried": frozenset(PART_CARRIED),
        "ignored": PART_INPUT_QUALIFIERS,
        "media": PART_MEDIA,
        "request only": PART_REQUEST_ONLY,
        "marker": frozenset({"thought"}),
    }
    declared = {camel(name) for name in types.Part.model_fields}
    placed: dict[str, str] = {}
    for group, fields in groups.items():
        for field in fields:
            assert field not in placed, f"{field} is both {placed[field]} and {group}"
            placed[field] = group
    assert declared - set(placed) == set(), "the projector has no place for these SDK fields"
    assert set(placed) - declared == set(), "the projector places fields the SDK lacks"

"""A ``functionResponse``'s ``parts`` are typed as Google's SDK declares them.

``functionResponse.parts`` (media returned with a function's result) was a list of open
mappings: a misspelled key, a ``text`` part (which the API does not take there) or a part with
no data at all went out and came back as a 400. Each entry is now the SDK's
``FunctionResponsePart``: exactly one of ``inlineData`` / ``fileData`` (the SDK's
``FunctionResponseBlob`` / ``FunctionResponseFileData``, a part's own fields) and the media
qualifiers a content part takes, each typed as there. The SDK sends a function response to the
Developer API as written, so every one of those fields reaches the wire.
"""

from __future__ import annotations

from typing import Any

import pytest
from gemini_loopback import native_model, sent

from lionagi.service import EndpointConfigurationError, EventStatus

IMAGE = {"mimeType": "image/png", "data": "iVBORw0KGgo=", "displayName": "chart.png"}
CALL = {"role": "model", "parts": [{"functionCall": {"name": "render", "args": {}, "id": "c1"}}]}
PATH = "contents.2.parts.0.functionResponse.parts.0"


def contents(parts: list[Any]) -> list[dict[str, Any]]:
    answer = {"name": "render", "id": "c1", "response": {"ok": True}, "parts": parts}
    return [
        {"role": "user", "parts": [{"text": "Render the chart."}]},
        CALL,
        {"role": "user", "parts": [{"functionResponse": answer}]},
    ]


def refused(parts: list[Any]) -> EndpointConfigurationError:
    endpoint = native_model().endpoint
    with pytest.raises(EndpointConfigurationError) as info:
        endpoint.create_payload({"contents": contents(parts)})
    return info.value


async def test_typed_function_response_parts_reach_the_wire_as_written() -> None:
    parts: list[dict[str, Any]] = [
        {"inlineData": IMAGE, "mediaResolution": {"level": "MEDIA_RESOLUTION_HIGH"}},
        {
            "fileData": {"fileUri": "files/report", "mimeType": "application/pdf"},
            "documentMetadata": {"startPage": 1, "endPage": 2, "contentLayers": ["PAGE_TEXT"]},
        },
        {
            "fileData": {"fileUri": "files/clip", "mimeType": "video/mp4"},
            "videoMetadata": {"startOffset": "1s", "endOffset": "4s"},
            "mediaProcessing": "STATIC",
        },
        {
            "inlineData": {"mimeType": "audio/wav", "data": "UklGRg=="},
            "audioMetadata": {"startOffset": "0.5s"},
        },
        {"fileData": {"fileUri": "files/sheet"}, "spreadsheetMetadata": {"sheetIndex": 1}},
    ]
    history = contents(parts)
    call, body = await sent({"contents": history})
    assert call.execution.status is EventStatus.COMPLETED, call.execution.error
    assert isinstance(body, dict)
    assert body["contents"] == history


@pytest.mark.parametrize(
    ("part", "field", "says"),
    [
        ({"text": "the chart"}, f"{PATH}.text", "unknown field"),
        ({"inline_data": IMAGE}, f"{PATH}.inline_data", "unknown field"),
        ({"inlineData": {"mimeType": "image/png"}}, f"{PATH}.inlineData.data", "required"),
        ({"inlineData": {**IMAGE, "displayName": 3}}, f"{PATH}.inlineData.displayName", ""),
        ({"fileData": {"mimeType": "image/png"}}, f"{PATH}.fileData.fileUri", "required"),
        ({"mediaProcessing": "STATIC"}, PATH, "exactly one of inlineData, fileData (found none)"),
        (
            {"inlineData": IMAGE, "fileData": {"fileUri": "files/a"}},
            PATH,
            "(found inlineData, fileData)",
        ),
        ({"inlineData": IMAGE, "mediaProcessing": "DYNAMIC"}, f"{PATH}.mediaProcessing", ""),
        (
            {"inlineData": IMAGE, "documentMetadata": {"startPage": 0}},
            f"{PATH}.documentMetadata.startPage",
            "",
        ),
        (
            {"inlineData": IMAGE, "audioMetadata": {"startOffset": 1}},
            f"{PATH}.audioMetadata.startOffset",
            "",
        ),
        ("a string", PATH, ""),
    ],
)
def test_a_malformed_function_response_part_is_refused_at_its_path(
    part: Any, field: str, says: str
) -> None:
    error = refused([part])
    assert error.field == field
    assert says in str(error)

"""The image harm categories are Vertex AI's: refused on the Gemini Developer API, naming where.

Vertex AI's ``HarmCategory`` has ``HARM_CATEGORY_IMAGE_HATE``, ``..._IMAGE_DANGEROUS_CONTENT``,
``..._IMAGE_HARASSMENT`` and ``..._IMAGE_SEXUALLY_EXPLICIT``; the Developer API's (Generative
Language ``v1beta``) has none of them, and Google's SDK marks each "not supported in Gemini
API" (``types.HarmCategory``), though its converter sends them on. A safety setting's category
only had to match ``HARM_CATEGORY_*``, so one went out and came back as a 400. It is now
refused at ``safetySettings.<i>.category`` saying it is Vertex AI's; the Developer API's
categories, and names this package does not know (Google adds categories), are still sent.
"""

from __future__ import annotations

from typing import Any

import pytest
from gemini_loopback import native_model, sent

from lionagi.service import EndpointConfigurationError, EventStatus

CONTENTS = [{"role": "user", "parts": [{"text": "Describe this picture."}]}]
HARASSMENT = {"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_ONLY_HIGH"}
IMAGE_CATEGORIES = [
    "HARM_CATEGORY_IMAGE_HATE",
    "HARM_CATEGORY_IMAGE_DANGEROUS_CONTENT",
    "HARM_CATEGORY_IMAGE_HARASSMENT",
    "HARM_CATEGORY_IMAGE_SEXUALLY_EXPLICIT",
]


@pytest.mark.parametrize("category", IMAGE_CATEGORIES)
def test_an_image_harm_category_is_refused_at_its_setting(category: str) -> None:
    settings = [HARASSMENT, {"category": category, "threshold": "BLOCK_NONE"}]
    with pytest.raises(EndpointConfigurationError) as info:
        native_model().endpoint.create_payload({"contents": CONTENTS, "safetySettings": settings})
    assert info.value.field == "safetySettings.1.category"
    assert "Vertex AI" in str(info.value)


@pytest.mark.parametrize(
    "category",
    [
        "HARM_CATEGORY_HARASSMENT",
        "HARM_CATEGORY_HATE_SPEECH",
        "HARM_CATEGORY_SEXUALLY_EXPLICIT",
        "HARM_CATEGORY_DANGEROUS_CONTENT",
        "HARM_CATEGORY_CIVIC_INTEGRITY",
        # A category this package does not know yet: the set stays open.
        "HARM_CATEGORY_SOMETHING_NEWER",
    ],
)
async def test_the_developer_api_categories_are_sent(category: str) -> None:
    request: dict[str, Any] = {
        "contents": CONTENTS,
        "safetySettings": [{"category": category, "threshold": "OFF"}],
    }
    call, body = await sent(request)
    assert call.execution.status is EventStatus.COMPLETED
    assert body == request

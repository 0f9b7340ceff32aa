"""The page-content options of Exa's current reference reach Exa as given.

Exa's contents reference (https://exa.ai/docs/reference/contents-api-guide-for-coding-agents)
and exa-py's ``TextContentsOptions``/``HighlightsContentsOptions`` type ``text`` as
``{maxCharacters, includeHtmlTags, verbosity, includeSections, excludeSections}`` and
``highlights`` as ``{maxCharacters, query}`` (``numSentences``/``highlightsPerUrl`` kept as
deprecated). ``highlights.maxCharacters``, Exa's recommended bound, and the text filters were
refused as unknown fields, on ``/contents`` and in a search's ``contents`` alike.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, iModel, match_endpoint
from lionagi.service_testing import scripted_stream_server

KEY = "exa-key-0123456789abcdefTEST"
BODY = {"requestId": "r1", "results": [{"url": "https://a.example", "id": "https://a.example"}]}
OPTIONS: list[dict[str, Any]] = [
    {"highlights": {"maxCharacters": 2000, "query": "cancel scopes"}},
    {"text": {"maxCharacters": 500, "verbosity": "full"}},
    {"text": {"includeSections": ["body"], "excludeSections": ["navigation", "footer"]}},
]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("row", ["search", "contents"])
async def test_content_options_are_sent_as_given(row: str, options: dict[str, Any]) -> None:
    request: dict[str, Any] = (
        {"query": "cancel scopes", "contents": options}
        if row == "search"
        else {"urls": ["https://a.example"], **options}
    )
    body = [json.dumps(BODY).encode()]
    async with scripted_stream_server(body, content_type="application/json") as server:
        exa = iModel(
            provider="exa",
            endpoint=row,
            api_key=KEY,
            base_url=server.url,
            allow_local_network=True,
        )
        async with exa:
            call = await exa.invoke(**request)
    assert call.exception is None, call.exception
    assert server.requests == 1
    assert call.payload == request


@pytest.mark.parametrize(
    ("options", "where"),
    [
        ({"text": {"verbosity": "verbose"}}, "verbosity"),
        ({"text": {"includeSections": ["main"]}}, "includeSections"),
        ({"highlights": {"maxCharacters": 0}}, "maxCharacters"),
    ],
)
def test_values_exa_refuses_are_refused_for_their_value(
    options: dict[str, Any], where: str
) -> None:
    # A known option with a value Exa does not take: refused naming the option and what it
    # accepts, not as an unknown field.
    ep = match_endpoint("exa", "contents", api_key=KEY)
    with pytest.raises(EndpointConfigurationError) as bad:
        ep.create_payload({"urls": ["https://a.example"], **options})
    assert where in bad.value.field
    assert "unknown field" not in str(bad.value)

"""The search fields of Exa's current reference (exa-py's ``search``) reach Exa as given.

``type`` refused ``instant``, ``deep-lite`` and ``deep-reasoning``; ``additionalQueries``,
``systemPrompt``, ``outputSchema`` and the contents option ``maxAgeHours`` were unknown fields.
Out-of-range values are still refused, naming the field.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, iModel, match_endpoint
from lionagi.service_testing import scripted_stream_server

KEY = "exa-key-0123456789abcdefTEST"
ANSWER = {"requestId": "r1", "results": [{"url": "https://a.example", "id": "https://a.example"}]}


@pytest.mark.parametrize(
    "fields",
    [
        {"type": "instant"},
        {"type": "deep-lite"},
        {"type": "deep-reasoning", "additionalQueries": ["anyio", "trio cancel scopes"]},
        {"systemPrompt": "Prefer primary sources.", "outputSchema": {"type": "text"}},
        {"contents": {"text": True, "maxAgeHours": 0}},
    ],
)
async def test_reference_fields_are_sent_as_given(fields: dict[str, Any]) -> None:
    body = [json.dumps(ANSWER).encode()]
    async with scripted_stream_server(body, content_type="application/json") as server:
        exa = iModel(
            provider="exa",
            endpoint="search",
            api_key=KEY,
            base_url=server.url,
            allow_local_network=True,
        )
        async with exa:
            call = await exa.invoke(query="cancel scopes", **fields)
    assert call.exception is None
    assert server.requests == 1
    assert {key: call.payload[key] for key in fields} == fields


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"type": "semantic"}, "type"),
        ({"additionalQueries": ["a", "b", "c", "d", "e", "f"]}, "additionalQueries"),
        ({"contents": {"maxAgeHours": -2}}, "contents.maxAgeHours"),
    ],
)
def test_values_exa_refuses_are_refused_naming_the_field(
    fields: dict[str, Any], where: str
) -> None:
    ep = match_endpoint("exa", "search", api_key=KEY)
    with pytest.raises(EndpointConfigurationError, match=where):
        ep.create_payload({"query": "q", **fields})

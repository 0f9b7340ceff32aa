"""Exa's content-policy refusal is a content-filter error, not a refused key.

Exa answers a request that seeks prohibited content with HTTP 403 and the tag
``PROHIBITED_CONTENT`` (https://exa.ai/docs/reference/content-policy): the key works, the same
request is refused again, and each retry counts toward a warning. The 403 was typed as
``ProviderUnauthorizedError`` ("refused the request for these credentials"), sending the caller
to rotate a working key, and ``except ProviderContentFilterError`` missed it. The same tag in an
answer stream's error event is the stream's content-filter error. Other 403s stay auth errors
(``test_exa.py::test_403_is_auth``).
"""

from __future__ import annotations

import json

import pytest

from lionagi.service import (
    ProviderAuthError,
    ProviderContentFilterError,
    ProviderStatusContentFilterError,
    ProviderStreamError,
    iModel,
)
from lionagi.service_testing import scripted_stream_server

KEY = "exa-key-0123456789abcdefTEST"
REFUSED = {"requestId": "r1", "error": "This request was refused", "tag": "PROHIBITED_CONTENT"}


def exa(url: str, endpoint: str) -> iModel:
    return iModel(
        provider="exa", endpoint=endpoint, api_key=KEY, base_url=url, allow_local_network=True
    )


@pytest.mark.parametrize("endpoint", ["search", "answer"])
async def test_a_refused_request_is_a_content_filter_error_and_not_sent_again(
    endpoint: str,
) -> None:
    body = [json.dumps(REFUSED).encode()]
    async with (
        scripted_stream_server(body, content_type="application/json", status=403) as server,
        exa(server.url, endpoint) as model,
    ):
        call = await model.invoke(query="q")
    error = call.exception
    assert type(error) is ProviderStatusContentFilterError, repr(error)
    assert not isinstance(error, ProviderAuthError)
    assert error.status == 403
    assert "PROHIBITED_CONTENT" in error.body_excerpt
    assert server.requests == 1


async def test_the_tag_in_an_answer_stream_is_a_content_filter_error() -> None:
    writes = [b"data: " + json.dumps(REFUSED).encode() + b"\n\n"]
    async with scripted_stream_server(writes) as server, exa(server.url, "answer") as model:
        with pytest.raises(ProviderStreamError) as failed:
            async for _ in model.stream(query="q"):
                pass
    assert isinstance(failed.value, ProviderContentFilterError), repr(failed.value)
    assert failed.value.code == "PROHIBITED_CONTENT"

"""A stream projector's protocol errors name the (redacted) URL, as framing errors do.

A malformed SSE line already raised `"<scheme://host/path>: SSE data is not valid JSON: ..."`,
and `invoke()`'s protocol errors start with the same prefix; but an event that decoded as JSON
of the wrong shape (not an object, no `choices`, a choice that is not an object) and a stream
cut before its terminal event raised the projector's message alone, so a caller streaming from
several servers could not tell which one broke. These errors now carry the prefix too, redacted
of the path's secret, with the projected chunks before them still delivered and the adapter's
own failure kept as the cause.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from lionagi.service import ProviderProtocolError, StreamChunk

from ._chunks import delta

HANG_GUARD = 30.0  # seconds; only a hang can exceed this
PATH_SECRET = "ZZpathTenantQQ42projectorXY"


def sse(obj: Any) -> bytes:
    return f"data: {json.dumps(obj)}\n\n".encode()


async def stream_until_error(
    serve: Any, make_endpoint: Any, wire: Any, *frames: bytes
) -> tuple[list[StreamChunk], ProviderProtocolError, str]:
    """The chunks delivered before the error, the error, and the URL it must name."""
    server = await serve(lambda r: wire.sse_stream(*frames))
    ep = make_endpoint(
        server.base_url,
        "tenants/{tenant}/chat",
        endpoint_params=["tenant"],
        params={"tenant": PATH_SECRET},
    )
    got: list[StreamChunk] = []
    with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderProtocolError) as caught:
        async for chunk in ep.stream({"model": "m", "messages": []}):
            got.append(chunk)
    return got, caught.value, f"{server.base_url}/tenants/[REDACTED]/chat: "


@pytest.mark.parametrize(
    ("frame", "problem"),
    [
        (b"data: [1, 2]\n\n", "event is not a JSON object"),
        (sse({"object": "chat.completion.chunk", "note": "x"}), "unrecognized event"),
    ],
    ids=["not-an-object", "no-choices"],
)
async def test_a_projector_protocol_error_names_the_redacted_url(
    serve, make_endpoint, wire, secret, frame, problem
):
    got, error, where = await stream_until_error(
        serve, make_endpoint, wire, sse(delta("he")), frame
    )
    message = str(error)
    assert message.startswith(where), message
    assert problem in message
    assert PATH_SECRET not in message and secret not in message
    assert [c.content for c in got] == ["he"]  # the chunk before the bad event still arrived


async def test_an_unexpected_shape_names_the_url_and_keeps_its_cause(
    serve, make_endpoint, wire, secret
):
    # A choice that is a number: the projector's `choice.get` fails with an AttributeError,
    # which the transport types as "provider output of an unexpected shape".
    bad = {"object": "chat.completion.chunk", "choices": [7]}
    _, error, where = await stream_until_error(serve, make_endpoint, wire, sse(bad))
    message = str(error)
    assert message.startswith(where + "provider output of an unexpected shape"), message
    assert isinstance(error.__cause__, AttributeError)  # where the adapter failed is kept
    assert PATH_SECRET not in message and secret not in message


async def test_a_stream_cut_before_its_end_names_the_url(serve, make_endpoint, wire):
    got, error, where = await stream_until_error(
        serve, make_endpoint, wire, sse(delta("he")), sse(delta("llo"))
    )
    assert str(error).startswith(where + "OpenAI chat stream: stream ended before completion")
    assert error.__cause__ is None and error.__suppress_context__
    assert "".join(c.content or "" for c in got) == "hello"

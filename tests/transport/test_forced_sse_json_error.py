"""A forced-SSE endpoint reads a 2xx `application/json` error body as JSON, as `invoke()` does.

An endpoint class may force SSE framing whatever the label says (Gemini's
`streamGenerateContent?alt=sse` does). When the server answers a stream request with a JSON
error object under `application/json` and a 2xx status (a gateway's error, Google's error
object, pretty-printed as Google sends it), the SSE framer read each line as an unknown field:
no event, so the stream ended empty (Gemini: a clean, empty success) or as a cut stream, and the
provider's error was lost, while `invoke()` raised it typed. Now a forced-SSE body labelled
`application/json` whose first non-blank character opens a JSON value is read as JSON, so the
error object reaches the projector as the one event it is; SSE frames under the same label
still stream as SSE.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import anyio
import pytest

from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderProtocolError,
    ProviderStreamError,
    ProviderStreamQuotaError,
    iModel,
)
from lionagi.service.http import OpenAIChatEndpoint
from lionagi.service_testing import scripted_stream_server

HANG_GUARD = 30.0  # seconds; only a hang can exceed this
GEMINI_KEY = "k-gemini-0123456789abcdef"
GOOGLE_ERROR = {
    "error": {
        "code": 429,
        "message": "Resource has been exhausted (e.g. check quota).",
        "status": "RESOURCE_EXHAUSTED",
    }
}
CONTENTS = [{"role": "user", "parts": [{"text": "hi"}]}]


async def test_gemini_stream_of_a_2xx_json_error_fails_as_invoke_does() -> None:
    body = json.dumps(GOOGLE_ERROR, indent=2).encode() + b"\n"  # Google pretty-prints errors
    async with (
        scripted_stream_server(
            [body[:20], body[20:]], path="/v1beta", content_type="application/json; charset=UTF-8"
        ) as server,
        iModel(
            model="gemini/gemini-2.5-flash",
            endpoint="generate",
            api_key=GEMINI_KEY,
            base_url=server.url,
            allow_local_network=True,
            attempt_policy=AttemptPolicy(max_attempts=1),
        ) as model,
    ):
        chunks: list[Any] = []
        with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderStreamError) as raised:
            async for chunk in model.stream(contents=CONTENTS):
                chunks.append(chunk)
        call = await model.invoke(contents=CONTENTS)
    assert [chunk.type for chunk in chunks] == ["error"]
    assert call.status is EventStatus.FAILED
    assert isinstance(raised.value, ProviderStreamQuotaError)
    assert type(call.exception) is type(raised.value)
    assert str(call.exception) == str(raised.value)
    assert "Resource has been exhausted" in str(raised.value)


class _ForcedSSEChat(OpenAIChatEndpoint):
    """A core chat endpoint whose class forces SSE, as a vendor class may."""

    stream_framing: ClassVar[Any] = "sse"


def _forced(base_url: str, secret: str) -> _ForcedSSEChat:
    return _ForcedSSEChat(
        {
            "name": "test",
            "provider": "test",
            "endpoint": "chat/completions",
            "base_url": base_url,
            "api_key": secret,
            "allow_local_network": True,
            "timeout": 10.0,
        }
    )


@pytest.mark.parametrize("indent", [None, 2], ids=["compact", "pretty"])
async def test_a_forced_sse_stream_reads_a_json_error_object(
    serve: Any, wire: Any, secret: str, indent: int | None
) -> None:
    error = {"error": {"message": f"gateway refused key {secret}", "type": "server_error"}}
    text = "\r\n" + json.dumps(error, indent=indent)
    server = await serve(
        lambda r: [
            wire.head(content_type="application/json"),
            wire.chunk(text[:9]),
            0.002,
            wire.chunk(text[9:]),
            wire.LAST_CHUNK,
        ]
    )
    ep = _forced(server.base_url, secret)
    try:
        with anyio.fail_after(HANG_GUARD):
            chunks = [c async for c in ep.stream({"model": "m", "messages": []})]
            with pytest.raises(ProviderStreamError) as raised:
                await ep.call({"model": "m", "messages": []})
    finally:
        await ep.aclose()
    assert [(c.type, c.is_error) for c in chunks] == [("error", True)]
    streamed = ep.stream_error(ep.redacted_error(chunks[0]))
    assert type(streamed) is type(raised.value)
    assert str(streamed) == str(raised.value)
    assert "gateway refused key" in str(streamed)
    assert secret not in str(streamed)


@pytest.mark.parametrize("indent", [None, 2], ids=["compact", "pretty"])
async def test_a_forced_sse_stream_reads_a_json_array_as_json(
    serve: Any, wire: Any, secret: str, indent: int | None
) -> None:
    # streamGenerateContent without `alt=sse` answers a JSON array: not events, and not empty.
    body = json.dumps([{"candidates": []}], indent=indent)
    server = await serve(lambda r: wire.full(200, body))
    ep = _forced(server.base_url, secret)
    try:
        with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderProtocolError) as raised:
            _ = [c async for c in ep.stream({"model": "m", "messages": []})]
    finally:
        await ep.aclose()
    assert "event is not a JSON object" in str(raised.value)


async def test_sse_frames_labelled_json_still_stream_when_forced(
    serve: Any, wire: Any, secret: str
) -> None:
    event = {"model": "m", "choices": [{"index": 0, "delta": {"content": "hi"}}]}
    end = {"model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    server = await serve(
        lambda r: wire.sse_stream(
            "\n",
            f"data: {json.dumps(event)}\n\n",
            f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n",
            content_type="application/json",
        )
    )
    ep = _forced(server.base_url, secret)
    try:
        with anyio.fail_after(HANG_GUARD):
            chunks = [c async for c in ep.stream({"model": "m", "messages": []})]
    finally:
        await ep.aclose()
    assert [(c.type, c.content) for c in chunks] == [("text", "hi"), ("result", None)]

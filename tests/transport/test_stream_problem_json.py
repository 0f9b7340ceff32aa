"""An `application/problem+json` answer (RFC 9457) fails with the problem's own words, both paths.

Gateways (Azure APIM, Kong, Spring, NVIDIA's hosted NIM) answer errors as problem details: a JSON
object with `title`, `detail` and an advisory `status`. A stream request answered that way with
a 2xx was refused by its content type ("expected text/event-stream"), so the problem's detail
was lost, while the one-shot call of a chat endpoint refused the same body as "not a chat
completion object" and a dialect-less endpoint returned it as the answer. Now the document is
the provider's error on both paths: a 2xx becomes the error chunk a 2xx error object gives (the
stream yields it, `invoke()` raises its classified error, one class and message for both),
and a non-2xx status error says `title: detail` instead of quoting the raw JSON. Nothing the
request carried (the key) is echoed.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderClientError,
    ProviderError,
    ProviderProtocolError,
    ProviderServerError,
    ProviderStreamCapacityError,
    ProviderStreamError,
    ProviderUnauthorizedError,
    iModel,
)
from lionagi.service_testing import scripted_stream_server

HANG_GUARD = 30.0  # seconds; only a hang can exceed this
KEY = "sk-gateway-problem-0123456789abcdef"
PROBLEM = {
    "type": "https://gateway.example/problems/backend-unavailable",
    "title": "Service Unavailable",
    "status": 503,
    "detail": f"Backend pool exhausted for subscription key {KEY}",
    "instance": "/requests/7f3a",
}
SAID = "Service Unavailable: Backend pool exhausted for subscription key"
MESSAGES = [{"role": "user", "content": "x"}]


async def _both(
    body: bytes, status: int, content_type: str
) -> tuple[ProviderError, Any, list[Any]]:
    """The stream's raised error, the one-shot call, and the chunks the stream yielded first."""
    async with (
        scripted_stream_server([body], content_type=content_type, status=status) as server,
        iModel(
            provider="somegateway",
            endpoint="chat/completions",
            openai_compatible=True,
            base_url=server.url,
            api_key=KEY,
            allow_local_network=True,
            attempt_policy=AttemptPolicy(max_attempts=1),
        ) as model,
    ):
        chunks: list[Any] = []
        with anyio.fail_after(HANG_GUARD):
            with pytest.raises(ProviderError) as raised:
                async for chunk in model.stream(model="m", messages=MESSAGES):
                    chunks.append(chunk)
            call = await model.invoke(model="m", messages=MESSAGES)
    return raised.value, call, chunks


@pytest.mark.parametrize(
    ("status", "family"),
    [(503, ProviderServerError), (401, ProviderUnauthorizedError), (400, ProviderClientError)],
)
async def test_a_status_error_says_the_problems_title_and_detail(
    status: int, family: type[Exception]
) -> None:
    problem = {**PROBLEM, "status": status}
    streamed, call, chunks = await _both(
        json.dumps(problem).encode(), status, "application/problem+json"
    )
    assert chunks == []
    assert call.status is EventStatus.FAILED
    for error in (streamed, call.exception):
        assert type(error) is family  # typed by the status line, as any status error
        assert getattr(error, "status", status) == status
        text = str(error)
        assert f"HTTP {status}" in text
        assert SAID in text
        assert '"instance"' not in text  # the problem's words, not its JSON
        assert KEY not in text
        assert KEY not in (getattr(error, "body_excerpt", "") or "")
    assert str(streamed) == str(call.exception)


async def test_a_2xx_problem_document_is_the_providers_error_on_both_paths() -> None:
    body = json.dumps(PROBLEM).encode()
    streamed, call, chunks = await _both(body, 200, "application/problem+json; charset=utf-8")
    # The stream shows the problem as its error chunk, then raises its classified error.
    assert [chunk.type for chunk in chunks] == ["error"]
    assert chunks[0].content.startswith(SAID)
    assert chunks[0].metadata["status"] == 503
    assert isinstance(streamed, ProviderStreamCapacityError)  # the problem's 503: overloaded
    assert streamed.status == 503
    assert streamed.code == PROBLEM["type"]
    assert streamed.retryable
    # The one-shot call of the same body fails with the same class and words.
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is type(streamed)
    assert str(call.exception) == str(streamed)
    for text in (str(streamed), chunks[0].content, repr(chunks[0].metadata)):
        assert KEY not in text


@pytest.mark.parametrize("mode", ["stream", "call"])
async def test_a_dialect_less_endpoint_does_not_answer_with_the_problem(
    serve: Any, make_endpoint: Any, wire: Any, secret: str, mode: str
) -> None:
    problem = {"type": "about:blank", "title": "Forbidden", "detail": f"key {secret} is blocked"}
    server = await serve(
        lambda r: wire.full(200, json.dumps(problem), content_type="application/problem+json")
    )
    ep = make_endpoint(server.base_url)
    with anyio.fail_after(HANG_GUARD):
        if mode == "stream":
            chunks = [c async for c in ep.stream({"model": "m", "messages": []})]
            assert [(c.type, c.is_error) for c in chunks] == [("error", True)]
            error = ep.stream_error(chunks[0])
        else:
            with pytest.raises(ProviderStreamError) as raised:
                await ep.call({"model": "m", "messages": []})
            error = raised.value
    assert "Forbidden: key" in str(error)
    assert secret not in str(error)
    assert error.code is None  # "about:blank" names no problem type


@pytest.mark.parametrize("mode", ["stream", "call"])
async def test_a_2xx_problem_body_that_is_not_an_object_is_a_protocol_error(
    serve: Any, make_endpoint: Any, wire: Any, mode: str
) -> None:
    server = await serve(
        lambda r: wire.full(200, "<problem>down</problem>", content_type="application/problem+json")
    )
    ep = make_endpoint(server.base_url)
    with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderProtocolError) as raised:
        if mode == "stream":
            _ = [c async for c in ep.stream({"model": "m", "messages": []})]
        else:
            await ep.call({"model": "m", "messages": []})
    text = str(raised.value)
    assert "application/problem+json" in text
    assert "<problem>down</problem>" in text  # what came instead, bounded and redacted
    assert "expected text/event-stream" not in text

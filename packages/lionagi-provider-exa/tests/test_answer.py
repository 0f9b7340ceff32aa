"""Exa's ``/answer`` row against a loopback server: the wire body, one-shot and streamed answers.

The stream is written in the shape Exa's SDKs read (exa-py ``StreamAnswerResponse``, exa-js
``streamAnswer``): server-sent events whose data carry ``choices[].delta.content`` and a
top-level ``citations`` list, closed by ``[DONE]``. The server records each request's path,
headers and JSON body, so what reaches Exa is checked as sent, not as the call event kept it.
The ``/search`` row's stream (exa-py ``stream_search``, exa-js ``streamSearch``) is the same
grammar on another path, so its tests live here too, on the same server.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from lionagi.providers.exa import ExaAnswerEndpoint, ExaAnswerProjector
from lionagi.service import (
    EndpointConfigurationError,
    ProviderProtocolError,
    ProviderStreamError,
    ProviderStreamQuotaExhaustedError,
    ProviderStreamServerError,
    StreamChunk,
    iModel,
    match_endpoint,
)

KEY = "exa-key-0123456789abcdefTEST"
CITATION = {
    "id": "https://en.wikipedia.org/wiki/Paris",
    "url": "https://en.wikipedia.org/wiki/Paris",
    "title": "Paris - Wikipedia",
    "publishedDate": "2023-01-01",
    "author": None,
}
ANSWER = {
    "requestId": "req_1",
    "answer": "The capital of France is Paris.",
    "citations": [CITATION],
    "costDollars": {"total": 0.005},
}


@dataclass
class Recorded:
    """What one request carried: its first line, headers (lower-case names) and JSON body."""

    line: str
    headers: dict[str, str]
    body: Any


@dataclass
class Loopback:
    """The running server: its URL and the requests it answered, in order."""

    url: str = ""
    requests: list[Recorded] = field(default_factory=list)


@asynccontextmanager
async def loopback(writes: list[bytes], content_type: str) -> AsyncIterator[Loopback]:
    """Answer every POST with ``writes``, one chunk per network write, and record the request."""
    state = Loopback()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            line, *rest = head.split("\r\n")
            headers = {
                name.strip().lower(): value.strip()
                for name, _, value in (h.partition(":") for h in rest if h)
            }
            raw = await reader.readexactly(int(headers.get("content-length", "0")))
            state.requests.append(Recorded(line, headers, json.loads(raw) if raw else None))
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: %s\r\n"
                b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" % content_type.encode()
            )
            for piece in writes:
                writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                await writer.drain()
                await asyncio.sleep(0.002)
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    state.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    try:
        yield state
    finally:
        server.close()
        await server.wait_closed()


def sse(*events: dict[str, Any] | str) -> list[bytes]:
    """One ``data:`` frame per event (a str is sent as it is: ``[DONE]``)."""
    return [
        b"data: " + (e if isinstance(e, str) else json.dumps(e)).encode() + b"\n\n" for e in events
    ]


async def drain(stream: AsyncIterator[StreamChunk], into: list[StreamChunk]) -> None:
    """Read ``stream`` to its end (or its error), keeping every chunk it yielded."""
    async for chunk in stream:
        into.append(chunk)


def delta(text: str, **extra: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}, **extra}]}


def model(server: Loopback) -> iModel:
    return iModel(
        provider="exa",
        endpoint="answer",
        api_key=KEY,
        base_url=server.url,
        allow_local_network=True,
    )


def test_answer_is_a_row_of_the_exa_provider() -> None:
    ep = match_endpoint("exa", "answer", api_key=KEY)
    assert type(ep) is ExaAnswerEndpoint
    assert (ep.config.base_url, ep.config.auth_type) == ("https://api.exa.ai", "x-api-key")
    assert iModel(model="exa/exa-pro", api_key=KEY).endpoint.config.endpoint == "answer"


async def test_invoke_posts_the_typed_fields_and_returns_the_answer() -> None:
    fields = {
        "query": "What is the capital of France?",
        "text": True,
        "model": "exa-pro",
        "systemPrompt": "Answer in one sentence.",
        "outputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
        "userLocation": "FR",
    }
    async with (
        loopback([json.dumps(ANSWER).encode()], "application/json") as server,
        model(server) as exa,
    ):
        call = await exa.invoke(**fields)
    assert call.exception is None, call.exception
    assert call.execution.response == ANSWER
    [sent] = server.requests
    assert sent.line.startswith("POST /answer ")
    assert sent.body == fields  # no "stream" key: a one-shot call sends none
    assert sent.headers["x-api-key"] == KEY
    assert "authorization" not in sent.headers


async def test_a_structured_answer_is_an_object() -> None:
    body = {**ANSWER, "answer": {"city": "Paris"}}
    async with (
        loopback([json.dumps(body).encode()], "application/json") as server,
        model(server) as exa,
    ):
        call = await exa.invoke(query="capital of France", outputSchema={"type": "object"})
    assert call.exception is None, call.exception
    assert call.execution.response["answer"] == {"city": "Paris"}


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"requestId": "r", "results": []}, "no 'answer'"),
        ({"answer": "x"}, "no 'citations' list"),
        ([ANSWER], "JSON array"),
    ],
)
async def test_a_body_that_is_no_answer_is_refused(body: Any, problem: str) -> None:
    async with loopback([json.dumps(body).encode()], "application/json") as server:
        ep = match_endpoint(
            "exa", "answer", base_url=server.url, api_key=KEY, allow_local_network=True
        )
        async with ep:
            with pytest.raises(ProviderProtocolError, match=problem):
                await ep.call({"query": "q"})


@pytest.mark.parametrize(
    ("request_", "field", "hint"),
    [
        ({"query": "q", "system_prompt": "x"}, "system_prompt", "systemPrompt"),
        ({"query": "q", "outputschema": {}}, "outputschema", "outputSchema"),
        ({"query": "q", "numResults": 3}, "numResults", None),
        ({"query": "q", "stream": True}, "stream", None),
        ({"query": "q", "model": "gpt-4o"}, "model", None),
        ({"query": "q", "text": "yes"}, "text", None),
        ({"query": ""}, "query", None),
        ({"text": True}, "query", None),
    ],
)
def test_bad_requests_are_refused_naming_the_field(
    request_: dict[str, Any], field: str, hint: str | None
) -> None:
    ep = match_endpoint("exa", "answer", api_key=KEY)
    with pytest.raises(EndpointConfigurationError) as bad:
        ep.create_payload(request_)
    assert bad.value.field == field
    if hint:
        assert f"did you mean {hint!r}" in str(bad.value)


STREAM = sse(
    {"id": "a1", "model": "exa", **delta("The capital")},
    delta(" of France is Paris."),
    {"citations": [CITATION], "requestId": "req_2"},
    "[DONE]",
)


async def test_stream_sends_the_flag_and_projects_text_then_the_sources() -> None:
    async with loopback(STREAM, "text/event-stream") as server, model(server) as exa:
        chunks = [c async for c in exa.stream(query="capital of France", text=True)]
    [sent] = server.requests
    assert sent.body == {"query": "capital of France", "text": True, "stream": True}
    assert [(c.type, c.content, c.is_delta) for c in chunks if c.type != "result"] == [
        ("text", "The capital", True),
        ("text", " of France is Paris.", True),
        ("system", None, False),
    ]
    assert chunks[2].metadata == {"citations": [CITATION]}
    [result] = [c for c in chunks if c.type == "result"]
    assert chunks[-1] is result
    assert result.metadata == {
        "usage": None,
        "model": "exa",
        "finish_reason": None,
        "citations": [CITATION],
        "requestId": "req_2",
    }


def project(*events: Any, eof: bool = False) -> list[StreamChunk]:
    projector = ExaAnswerProjector((KEY,))
    out: list[StreamChunk] = []
    for event in events:
        out.extend(projector.feed(event))
    out.extend(projector.end(eof=eof))
    return out


def test_citations_of_several_events_are_all_on_the_result_in_order() -> None:
    other = {**CITATION, "id": "b", "url": "https://b.example"}
    chunks = project(delta("x"), {"citations": [CITATION]}, {"citations": [other]})
    assert chunks[-1].metadata["citations"] == [CITATION, other]


@pytest.mark.parametrize("empty", [None, "null", []])
def test_no_citations_in_an_event_adds_no_chunk(empty: Any) -> None:
    chunks = project(delta("x"), {"choices": [], "citations": empty})
    assert [c.type for c in chunks] == ["text", "result"]
    assert chunks[-1].metadata["citations"] == []


def test_eof_after_a_finish_reason_completes() -> None:
    chunks = project(delta("Paris."), delta("", finish_reason="stop"), eof=True)
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["finish_reason"] == "stop"


async def test_a_stream_cut_before_its_end_is_a_protocol_error() -> None:
    writes = sse(delta("The capital of"))  # no finish_reason, no [DONE]: the connection ended
    async with loopback(writes, "text/event-stream") as server:
        ep = match_endpoint(
            "exa", "answer", base_url=server.url, api_key=KEY, allow_local_network=True
        )
        chunks: list[StreamChunk] = []
        async with ep:
            with pytest.raises(ProviderProtocolError, match="ended before completion"):
                await drain(ep.stream({"query": "q"}), chunks)
    assert [c.content for c in chunks] == ["The capital of"]


@pytest.mark.parametrize(
    ("event", "what"),
    [
        ({"requestIdd": "r"}, "unrecognized event"),
        ({"citations": {"url": "u"}}, "'citations' is JSON object, not a list"),
        ({"choices": [{"delta": {"content": 1}}]}, "not text"),
        (["data"], "not an object"),
    ],
)
def test_an_event_outside_the_grammar_is_refused(event: Any, what: str) -> None:
    with pytest.raises(ProviderProtocolError, match=what):
        project(event)


async def test_a_chat_chunk_of_the_wrong_shape_fails_the_stream_as_the_chat_stream_does() -> None:
    # The text rides core's chat projector: a malformed chunk is the same typed protocol
    # error it is on any chat stream, never a skipped event.
    writes = sse(delta("Par"), {"choices": {"delta": {}}})
    chunks: list[StreamChunk] = []
    async with loopback(writes, "text/event-stream") as server, model(server) as exa:
        with pytest.raises(ProviderProtocolError, match="unexpected shape"):
            await drain(exa.stream(query="q"), chunks)
    assert [c.content for c in chunks] == ["Par"]


async def test_an_error_event_ends_the_stream_with_exa_s_tag() -> None:
    writes = sse(delta("Par"), {"requestId": "r", "error": "Internal error", "tag": "INTERNAL"})
    chunks: list[StreamChunk] = []
    async with loopback(writes, "text/event-stream") as server, model(server) as exa:
        with pytest.raises(ProviderStreamError) as failed:
            await drain(exa.stream(query="q"), chunks)
    assert [c.type for c in chunks] == ["text", "error"]
    assert chunks[-1].metadata["code"] == "INTERNAL"
    assert "Internal error" in str(failed.value)


@pytest.mark.parametrize(
    ("tag", "message", "family"),
    [
        ("NO_MORE_CREDITS", "You have run out of credits", ProviderStreamQuotaExhaustedError),
        ("API_KEY_BUDGET_EXCEEDED", "Budget exceeded", ProviderStreamQuotaExhaustedError),
        # Core's in-band server fault (a whole `internal_error` code, any case): retried by
        # invoke() like an HTTP 500, never by stream().
        ("INTERNAL_ERROR", "Internal error", ProviderStreamServerError),
    ],
)
async def test_exa_s_error_object_fails_invoke_and_stream_alike(
    tag: str, message: str, family: type[ProviderStreamError]
) -> None:
    # A 2xx body (or stream event) that is Exa's error object: invoke() refused it as "no
    # 'answer'" (a protocol error hiding Exa's message and tag) while stream() raised the
    # tagged error; and a spent balance in either was not the never-retried quota family the
    # same tag is on an HTTP error status.
    error = {"requestId": "r", "error": message, "tag": tag}
    body = [json.dumps(error).encode()]
    async with loopback(body, "application/json") as server, model(server) as exa:
        call = await exa.invoke(query="q")
    one_shot = call.exception
    sent = len(server.requests)
    chunks: list[StreamChunk] = []
    async with loopback(sse(error), "text/event-stream") as server, model(server) as exa:
        with pytest.raises(ProviderStreamError) as failed:
            await drain(exa.stream(query="q"), chunks)
    streamed = failed.value
    for raised in (one_shot, streamed):
        assert type(raised) is family, repr(raised)
        assert raised.code == tag
        assert message in str(raised)
    if family is ProviderStreamQuotaExhaustedError:
        assert sent == 1  # a spent balance is not sent again


def search(server: Loopback) -> iModel:
    return iModel(
        provider="exa",
        endpoint="search",
        api_key=KEY,
        base_url=server.url,
        allow_local_network=True,
    )


async def test_search_streams_the_same_grammar_on_its_own_path() -> None:
    # ``"stream": true`` on /search (exa-py ``stream_search``, exa-js ``streamSearch``) sends the
    # answer stream's chunks; stream() on the search row used to be refused before any request.
    fields = {
        "query": "latest battery breakthroughs",
        "type": "auto",
        "numResults": 3,
        "systemPrompt": "Be concise.",
        "outputSchema": {"type": "text", "description": "a short summary"},
    }
    async with (
        loopback(STREAM, "text/event-stream") as server,
        search(server) as exa,
    ):
        chunks = [c async for c in exa.stream(**fields)]
    [sent] = server.requests
    assert sent.line.startswith("POST /search ")
    assert sent.body == {**fields, "stream": True}
    assert [(c.type, c.content) for c in chunks] == [
        ("text", "The capital"),
        ("text", " of France is Paris."),
        ("system", None),
        ("result", None),
    ]
    assert chunks[2].metadata == {"citations": [CITATION]}
    assert chunks[-1].metadata["citations"] == [CITATION]
    assert chunks[-1].metadata["requestId"] == "req_2"


async def test_a_search_stream_fails_as_the_answer_stream_does_naming_its_grammar() -> None:
    error = {"requestId": "r", "error": "You have run out of credits", "tag": "NO_MORE_CREDITS"}
    for writes, family, what in [
        (sse(delta("Par"), error), ProviderStreamQuotaExhaustedError, "run out of credits"),
        (sse(delta("Par"), {"requestIdd": "r"}), ProviderProtocolError, "Exa search stream"),
    ]:
        chunks: list[StreamChunk] = []
        async with loopback(writes, "text/event-stream") as server, search(server) as exa:
            with pytest.raises(family, match=what):
                await drain(exa.stream(query="q"), chunks)
        assert chunks[0].content == "Par"

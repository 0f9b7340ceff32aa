"""The native embeddings rows: ``models/{model}:embedContent`` and ``:batchEmbedContents``.

Until these rows, embeddings reached Gemini only through the OpenAI-compatible layer, which has
no ``taskType``, ``title`` or batch of differently configured entries. A loopback server here
records each request (line, headers, body) and answers a body as the API writes it, so a test
sees exactly what went out; every call goes through ``iModel`` and the catalog.
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

from lionagi.providers.gemini import (
    GeminiBatchEmbedContents,
    GeminiBatchEmbedContentsRequest,
    GeminiEmbedContent,
    GeminiEmbedContentRequest,
)
from lionagi.service import (
    EndpointConfigurationError,
    EventStatus,
    ProviderCatalog,
    ProviderProtocolError,
    ProviderQuotaExhaustedError,
    ProviderRateLimitError,
    iModel,
    match_endpoint,
)
from lionagi.service_testing import scripted_stream_server

KEY = "AIzaNativeEmbedKey0123456789abcdef"
MODEL = "gemini-embedding-001"
NATIVE = "https://generativelanguage.googleapis.com/v1beta"
CONTENT = {"parts": [{"text": "alpha beta"}]}
SINGLE = {"embedding": {"values": [0.25, -0.5, 0.125]}}
BATCH = {"embeddings": [{"values": [0.25, -0.5]}, {"values": [0.5, 0.75]}]}


@dataclass(slots=True)
class Recorded:
    line: str
    headers: dict[str, str]
    body: Any


@dataclass(slots=True)
class Loopback:
    url: str = ""
    requests: list[Recorded] = field(default_factory=list)


@asynccontextmanager
async def loopback(answer: Any, status: int = 200) -> AsyncIterator[Loopback]:
    """Answer every POST with ``answer`` (JSON, HTTP ``status``) and record the request."""
    state = Loopback()
    reply = json.dumps(answer).encode()
    phrase = {200: b"OK", 429: b"Too Many Requests"}[status]

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
                b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n%s"
                % (status, phrase, len(reply), reply)
            )
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    state.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1beta"
    try:
        yield state
    finally:
        server.close()
        await server.wait_closed()


def _model(url: str | None, endpoint: str, **extra: Any) -> iModel:
    where: dict[str, Any] = {"base_url": url, "allow_local_network": True} if url else {}
    return iModel(model=f"gemini/{MODEL}", endpoint=endpoint, api_key=KEY, **where, **extra)


async def invoke(endpoint: str, answer: Any, **request: Any) -> tuple[Any, list[Recorded]]:
    async with loopback(answer) as server, _model(server.url, endpoint) as model:
        call = await model.invoke(**request)
    return call, server.requests


# -- the rows --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("alias", "key", "cls", "request_model"),
    [
        ("native_embed", "embed_content", GeminiEmbedContent, GeminiEmbedContentRequest),
        (
            "native_batch_embed",
            "batch_embed_contents",
            GeminiBatchEmbedContents,
            GeminiBatchEmbedContentsRequest,
        ),
    ],
)
def test_the_rows_resolve_by_key_and_alias_on_the_native_api(
    alias: str, key: str, cls: type, request_model: type
) -> None:
    model = _model(None, alias)
    config = model.endpoint.config
    assert type(model.endpoint) is cls
    assert (config.provider, config.endpoint) == ("gemini", key)
    assert config.base_url == NATIVE
    assert (config.auth_type, config.api_key_env) == ("x-api-key", "GEMINI_API_KEY")
    assert config.request_defaults == {"model": MODEL}  # the caller's model, no row default
    assert model.endpoint.request_options is request_model
    assert type(match_endpoint("gemini-api", key, api_key=KEY)) is cls
    entry = ProviderCatalog().snapshot().provider("gemini").endpoints[key]
    assert entry.aliases == (alias,)
    assert entry.resolved_class is cls


# -- embedContent ----------------------------------------------------------------------------------


async def test_embed_content_posts_to_the_model_path_with_the_key_header() -> None:
    call, sent = await invoke(
        "native_embed",
        SINGLE,
        content=CONTENT,
        taskType="RETRIEVAL_DOCUMENT",
        title="Greek letters",
        outputDimensionality=3,
    )
    assert call.execution.status is EventStatus.COMPLETED, call.execution.error
    assert call.execution.response == SINGLE
    [request] = sent
    assert request.line == f"POST /v1beta/models/{MODEL}:embedContent HTTP/1.1"
    # The model is in the path, never in the body; nothing else is added or dropped.
    assert request.body == {
        "content": CONTENT,
        "taskType": "RETRIEVAL_DOCUMENT",
        "title": "Greek letters",
        "outputDimensionality": 3,
    }
    assert request.headers["x-goog-api-key"] == KEY
    assert "authorization" not in request.headers
    assert "key=" not in request.line


async def test_a_models_prefix_is_accepted_and_not_doubled_in_the_path() -> None:
    async with (
        loopback(SINGLE) as server,
        iModel(
            provider="gemini",
            endpoint="embed_content",
            model=f"models/{MODEL}",
            api_key=KEY,
            base_url=server.url,
            allow_local_network=True,
        ) as model,
    ):
        call = await model.invoke(content=CONTENT)
    assert call.execution.status is EventStatus.COMPLETED, call.execution.error
    assert server.requests[0].line == f"POST /v1beta/models/{MODEL}:embedContent HTTP/1.1"


# -- batchEmbedContents ----------------------------------------------------------------------------


async def test_batch_fills_in_each_entrys_model_as_the_api_requires() -> None:
    entries = [
        {"content": CONTENT, "taskType": "RETRIEVAL_QUERY"},  # no model: the batch's
        {"model": f"models/{MODEL}", "content": {"parts": [{"text": "gamma"}]}},
    ]
    call, sent = await invoke("native_batch_embed", BATCH, requests=entries)
    assert call.execution.status is EventStatus.COMPLETED, call.execution.error
    assert call.execution.response == BATCH
    [request] = sent
    assert request.line == f"POST /v1beta/models/{MODEL}:batchEmbedContents HTTP/1.1"
    assert request.body == {
        "requests": [
            {"content": CONTENT, "taskType": "RETRIEVAL_QUERY", "model": f"models/{MODEL}"},
            {"content": {"parts": [{"text": "gamma"}]}, "model": f"models/{MODEL}"},
        ]
    }
    assert request.headers["x-goog-api-key"] == KEY
    # The caller's entries are left as they were written.
    assert "model" not in entries[0]


def test_a_model_instance_given_as_an_entry_is_not_changed() -> None:
    from lionagi.providers.gemini._requests import GeminiBatchEmbedRequest

    entry = GeminiBatchEmbedRequest.model_validate({"content": CONTENT})
    ep = match_endpoint("gemini", "native_batch_embed", api_key=KEY)
    payload, _ = ep.create_payload({"model": MODEL, "requests": [entry]})
    assert payload["requests"][0]["model"] == f"models/{MODEL}"
    assert entry.model is None


async def test_a_batch_entry_naming_another_model_is_refused_before_sending() -> None:
    entries = [{"content": CONTENT}, {"model": "text-embedding-004", "content": CONTENT}]
    async with loopback(BATCH) as server, _model(server.url, "native_batch_embed") as model:
        with pytest.raises(EndpointConfigurationError) as info:
            await model.invoke(requests=entries)
    assert server.requests == []
    assert info.value.field == "requests.1"
    assert "'text-embedding-004' is not the batch's model 'gemini-embedding-001'" in str(info.value)


# -- strict request models -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("endpoint", "request_data", "field", "says"),
    [
        ("native_embed", {"content": CONTENT, "task_type": "CLUSTERING"}, "task_type", "taskType"),
        (
            "native_embed",
            {"content": {"parts": [{"txt": "a"}]}},
            "content.parts.0.txt",
            "unknown field",
        ),
        (
            "native_embed",
            {"content": {"parts": [{"inlineData": {"mimeType": "image/png", "data": "AA=="}}]}},
            "content.parts.0.inlineData",
            "unknown field",
        ),
        ("native_embed", {"content": CONTENT, "taskType": "SEARCH"}, "taskType", "RETRIEVAL"),
        (
            "native_embed",
            {"content": CONTENT, "outputDimensionality": 0},
            "outputDimensionality",
            "greater than or equal to 1",
        ),
        (
            "native_embed",
            {"content": CONTENT, "outputDimensionality": "8"},
            "outputDimensionality",
            "valid integer",
        ),
        ("native_embed", {"content": {"parts": []}}, "content.parts", "at least 1 item"),
        (
            "native_batch_embed",
            {"requests": [{"content": CONTENT, "outputDimension": 8}]},
            "requests.0.outputDimension",
            "outputDimensionality",
        ),
        ("native_batch_embed", {"requests": []}, "requests", "at least 1 item"),
        ("native_batch_embed", {"content": CONTENT}, "content", "accepted: model, requests"),
    ],
)
async def test_a_wrong_field_is_refused_naming_its_path(
    endpoint: str, request_data: dict[str, Any], field: str, says: str
) -> None:
    async with loopback(SINGLE) as server, _model(server.url, endpoint) as model:
        with pytest.raises(EndpointConfigurationError, match=says) as info:
            await model.invoke(**request_data)
    assert server.requests == []
    assert info.value.field == field


@pytest.mark.parametrize("task", [None, "RETRIEVAL_QUERY", "SEMANTIC_SIMILARITY"])
@pytest.mark.parametrize("batch", [False, True])
async def test_a_title_without_retrieval_document_is_refused(task: str | None, batch: bool) -> None:
    entry: dict[str, Any] = {"content": CONTENT, "title": "A title"}
    if task is not None:
        entry["taskType"] = task
    endpoint, request = (
        ("native_batch_embed", {"requests": [entry]}) if batch else ("native_embed", entry)
    )
    async with loopback(SINGLE) as server, _model(server.url, endpoint) as model:
        with pytest.raises(EndpointConfigurationError, match="RETRIEVAL_DOCUMENT") as info:
            await model.invoke(**request)
    assert server.requests == []
    assert info.value.field == ("requests.0.title" if batch else "title")


# -- one-shot only ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("endpoint", "request_data"),
    [
        ("native_embed", {"content": CONTENT}),
        ("native_batch_embed", {"requests": [{"content": CONTENT}]}),
    ],
)
async def test_stream_is_refused_before_any_request(
    endpoint: str, request_data: dict[str, Any]
) -> None:
    async with loopback(SINGLE) as server, _model(server.url, endpoint) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            async for _ in model.stream(**request_data):
                pass
    assert server.requests == []
    assert refused.value.field == "stream"


# -- answers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("endpoint", "request_data", "answer", "says"),
    [
        ("native_embed", {"content": CONTENT}, {"embeddings": []}, "the answer has no 'embedding'"),
        (
            "native_embed",
            {"content": CONTENT},
            {"embedding": {"value": [1.0]}},
            "the answer's 'embedding' has no 'values' list",
        ),
        ("native_embed", {"content": CONTENT}, [SINGLE], "not a JSON object (got JSON array)"),
        (
            "native_batch_embed",
            {"requests": [{"content": CONTENT}]},
            {"embedding": {"values": [1.0]}},
            "the answer has no 'embeddings' list",
        ),
        (
            "native_batch_embed",
            {"requests": [{"content": CONTENT}]},
            {"embeddings": [{"values": [1.0]}, [1.0]]},
            "the answer's embeddings[1] is not an object (got JSON array)",
        ),
    ],
)
async def test_an_answer_without_its_vectors_is_a_protocol_error(
    endpoint: str, request_data: dict[str, Any], answer: Any, says: str
) -> None:
    call, _ = await invoke(endpoint, answer, **request_data)
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderProtocolError)
    assert says in str(call.exception)


async def test_an_error_object_with_a_200_fails_redacted() -> None:
    body = {"error": {"code": 500, "message": f"internal, key {KEY}", "status": "INTERNAL"}}
    call, _ = await invoke("native_embed", body, content=CONTENT)
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderProtocolError)
    assert "holds an error object" in str(call.exception)
    assert "internal" in str(call.exception)
    assert KEY not in str(call.exception)


def _google_429(*details: dict[str, Any]) -> Any:
    return {"error": {"code": 429, "message": "Quota", "status": "RESOURCE_EXHAUSTED",
                      "details": [*details]}}  # fmt: skip


@pytest.mark.parametrize("endpoint", ["native_embed", "native_batch_embed"])
async def test_google_status_bodies_map_as_on_generate_content(endpoint: str) -> None:
    retry = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "13s"}
    daily = {
        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
        "violations": [{"quotaId": "EmbedContentRequestsPerDayPerProjectPerModel-FreeTier"}],
    }
    request: dict[str, Any] = (
        {"content": CONTENT} if endpoint == "native_embed" else {"requests": [{"content": CONTENT}]}
    )
    served = scripted_stream_server(
        [json.dumps(_google_429(daily, retry)).encode()],
        path="/v1beta",
        content_type="application/json",
        status=429,
    )
    async with served as server, _model(server.url, endpoint) as model:
        call = await model.invoke(**request)
    assert isinstance(call.exception, ProviderQuotaExhaustedError)
    assert not call.exception.retryable
    assert server.requests == 1  # a day's quota is spent: never retried

    async with loopback(_google_429(retry), status=429) as server:
        ep = match_endpoint(
            "gemini", endpoint, base_url=server.url, api_key=KEY, allow_local_network=True
        )
        async with ep:
            with pytest.raises(ProviderRateLimitError) as info:
                await ep.call({"model": MODEL, **request})
    assert info.value.retry_after == 13.0  # from google.rpc.RetryInfo


# -- token estimate and usage ----------------------------------------------------------------------


def test_the_estimate_counts_the_text_embedded() -> None:
    long = {"parts": [{"text": "x" * 400}]}
    model = _model(None, "native_embed", requires_tokens=True, limit_tokens=100_000)
    alone = model.create_api_calling(content=long)
    assert alone.required_tokens == len(json.dumps(long)) // 4
    titled = model.create_api_calling(content=long, taskType="RETRIEVAL_DOCUMENT", title="t" * 80)
    assert titled.required_tokens == alone.required_tokens + 20

    batch = _model(None, "native_batch_embed", requires_tokens=True, limit_tokens=100_000)
    entries = [
        {"content": long},
        {"content": long, "taskType": "RETRIEVAL_DOCUMENT", "title": "t" * 80},
    ]
    call = batch.create_api_calling(requests=entries)
    # Both contents and the title: not the entries' model names and options.
    assert (
        call.required_tokens
        == len(json.dumps([long, long])) // 4 + len(json.dumps(["t" * 80])) // 4
    )


@pytest.mark.parametrize("endpoint", ["native_embed", "native_batch_embed"])
def test_token_counts_read_a_usage_metadata_and_guess_nothing(endpoint: str) -> None:
    ep = match_endpoint("gemini", endpoint, api_key=KEY)
    assert tuple(ep.token_counts({**SINGLE, "usageMetadata": {"promptTokenCount": 7}})) == (7, None)
    assert tuple(ep.token_counts(SINGLE)) == (None, None)

"""Every route of the fake provider server, in JSON and SSE form, over real loopback HTTP."""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Callable
from typing import Any

import httpx

from lionagi.service_testing import (
    DEFAULT_TEXT,
    EMBEDDING_DIMENSIONS,
    USAGE_INPUT,
    USAGE_OUTPUT,
    FakeProviderServer,
    embed,
)

Sse = Callable[[str], list[tuple[str | None, Any]]]
USER = [{"role": "user", "content": "say hi"}]


# --- OpenAI chat completions -------------------------------------------------------------
async def test_chat_json(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/chat/completions", json={"model": "gpt-x", "messages": USER})
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    body = r.json()
    assert body["object"] == "chat.completion"
    assert body["id"] == "chatcmpl-fake-1"
    assert body["model"] == "gpt-x"
    choice = body["choices"][0]
    assert choice["message"] == {"role": "assistant", "content": DEFAULT_TEXT}
    assert choice["finish_reason"] == "stop"
    assert body["usage"] == {
        "prompt_tokens": USAGE_INPUT,
        "completion_tokens": USAGE_OUTPUT,
        "total_tokens": USAGE_INPUT + USAGE_OUTPUT,
    }


async def test_chat_sse(client: httpx.AsyncClient, sse: Sse) -> None:
    r = await client.post(
        "/v1/chat/completions", json={"model": "m", "stream": True, "messages": USER}
    )
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    events = sse(r.text)
    assert all(name is None for name, _ in events)
    assert events[-1] == (None, "[DONE]")
    chunks = [data for _, data in events[:-1]]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    assert text == DEFAULT_TEXT
    assert len([c for c in chunks if c["choices"] and c["choices"][0]["delta"].get("content")]) > 1
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert all("usage" not in c for c in chunks)  # not asked for
    assert {c["id"] for c in chunks} == {"chatcmpl-fake-1"}


async def test_chat_sse_include_usage_adds_a_final_usage_only_chunk(
    client: httpx.AsyncClient, sse: Sse
) -> None:
    body = {
        "model": "m",
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": USER,
    }
    events = sse((await client.post("/v1/chat/completions", json=body)).text)
    usage_chunk = events[-2][1]
    assert usage_chunk["choices"] == []
    assert usage_chunk["usage"]["total_tokens"] == USAGE_INPUT + USAGE_OUTPUT
    assert events[-3][1]["choices"][0]["finish_reason"] == "stop"


async def test_openai_compatible_prefixes_are_accepted(client: httpx.AsyncClient) -> None:
    for path in (
        "/v1beta/openai/chat/completions",
        "/chat/completions",
        "/api/v1/chat/completions",
    ):
        r = await client.post(path, json={"model": "m", "messages": USER})
        assert r.status_code == 200, path
        assert r.json()["choices"][0]["message"]["content"] == DEFAULT_TEXT


# --- OpenAI Responses ----------------------------------------------------------------------
TEXT_EVENTS = [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    *["response.output_text.delta"] * 4,
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed",
]


async def test_responses_json(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/responses", json={"model": "codex-x", "input": "say hi"})
    body = r.json()
    assert body["object"] == "response"
    assert body["status"] == "completed"
    assert body["id"] == "resp_fake_1"
    [message] = body["output"]
    assert message["type"] == "message"
    assert message["content"][0] == {"type": "output_text", "annotations": [], "text": DEFAULT_TEXT}
    assert body["usage"]["input_tokens"] == USAGE_INPUT
    assert body["usage"]["output_tokens"] == USAGE_OUTPUT


async def test_responses_sse_follows_the_real_grammar(client: httpx.AsyncClient, sse: Sse) -> None:
    r = await client.post("/v1/responses", json={"model": "m", "stream": True, "input": "hi"})
    events = sse(r.text)
    assert [name for name, _ in events] == TEXT_EVENTS
    for index, (name, data) in enumerate(events):
        assert data["type"] == name
        assert data["sequence_number"] == index
    deltas = [d["delta"] for n, d in events if n == "response.output_text.delta"]
    assert "".join(deltas) == DEFAULT_TEXT
    done = events[-1][1]["response"]
    assert done["status"] == "completed"
    assert done["output"][0]["content"][0]["text"] == DEFAULT_TEXT
    assert done["usage"]["total_tokens"] == USAGE_INPUT + USAGE_OUTPUT


# --- Anthropic Messages ------------------------------------------------------------------
async def test_messages_json(client: httpx.AsyncClient) -> None:
    body = {"model": "claude-x", "max_tokens": 10, "messages": USER}
    r = await client.post("/v1/messages", json=body)
    msg = r.json()
    assert msg["type"] == "message"
    assert msg["id"] == "msg_fake_1"
    assert msg["content"] == [{"type": "text", "text": DEFAULT_TEXT}]
    assert msg["stop_reason"] == "end_turn"
    assert msg["usage"]["input_tokens"] == USAGE_INPUT
    assert r.headers["request-id"] == "req_fake_1"


async def test_messages_sse_with_beta_query(client: httpx.AsyncClient, sse: Sse) -> None:
    body = {"model": "m", "max_tokens": 10, "stream": True, "messages": USER}
    r = await client.post("/v1/messages?beta=true", json=body)
    events = sse(r.text)
    names = [name for name, _ in events]
    assert names == [
        "message_start",
        "ping",
        "content_block_start",
        *["content_block_delta"] * 4,
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert all(data["type"] == name for name, data in events)
    deltas = [d["delta"] for n, d in events if n == "content_block_delta"]
    assert {d["type"] for d in deltas} == {"text_delta"}
    assert "".join(d["text"] for d in deltas) == DEFAULT_TEXT
    assert events[-2][1]["delta"]["stop_reason"] == "end_turn"
    assert events[-2][1]["usage"]["output_tokens"] == USAGE_OUTPUT


async def test_count_tokens(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/messages/count_tokens", json={"model": "m", "messages": USER})
    assert r.json() == {"input_tokens": USAGE_INPUT}


# --- Gemini --------------------------------------------------------------------------------
GEMINI_BODY = {"contents": [{"role": "user", "parts": [{"text": "say hi"}]}]}


async def test_gemini_generate_content_json(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1beta/models/gemini-2.5-flash:generateContent", json=GEMINI_BODY)
    body = r.json()
    candidate = body["candidates"][0]
    assert candidate["content"] == {"parts": [{"text": DEFAULT_TEXT}], "role": "model"}
    assert candidate["finishReason"] == "STOP"
    assert body["usageMetadata"]["promptTokenCount"] == USAGE_INPUT
    assert body["modelVersion"] == "gemini-2.5-flash"


async def test_gemini_stream_sse(client: httpx.AsyncClient, sse: Sse) -> None:
    path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    r = await client.post(path, json=GEMINI_BODY)
    assert r.headers["content-type"].startswith("text/event-stream")
    chunks = [data for _, data in sse(r.text)]
    assert len(chunks) > 1
    texts = [c["candidates"][0]["content"]["parts"][0]["text"] for c in chunks]
    assert "".join(texts) == DEFAULT_TEXT
    assert "finishReason" not in chunks[0]["candidates"][0]
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert chunks[-1]["usageMetadata"]["candidatesTokenCount"] == USAGE_OUTPUT


async def test_gemini_stream_without_alt_sse_is_a_json_array(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1beta/models/g:streamGenerateContent", json=GEMINI_BODY)
    assert r.headers["content-type"] == "application/json"
    chunks = r.json()
    assert isinstance(chunks, list)
    assert "".join(c["candidates"][0]["content"]["parts"][0]["text"] for c in chunks) == (
        DEFAULT_TEXT
    )


# --- embeddings, model lists, unknown routes ---------------------------------------------
async def test_embeddings_are_deterministic(client: httpx.AsyncClient) -> None:
    body = {"model": "emb", "input": ["alpha", "beta", "alpha"]}
    data = (await client.post("/v1/embeddings", json=body)).json()
    assert data["object"] == "list"
    vectors = [item["embedding"] for item in data["data"]]
    assert [item["index"] for item in data["data"]] == [0, 1, 2]
    assert len(vectors[0]) == EMBEDDING_DIMENSIONS
    assert vectors[0] == vectors[2] == embed("alpha")
    assert vectors[0] != vectors[1]
    assert all(-1.0 <= x <= 1.0 for x in vectors[1])
    again = (await client.post("/v1/embeddings", json=body)).json()
    assert [item["embedding"] for item in again["data"]] == vectors


async def test_embeddings_dimensions_and_base64(client: httpx.AsyncClient) -> None:
    body = {"model": "e", "input": "alpha", "dimensions": 40, "encoding_format": "base64"}
    item = (await client.post("/v1/embeddings", json=body)).json()["data"][0]
    decoded = struct.unpack("<40f", base64.b64decode(item["embedding"]))
    assert [round(x, 4) for x in decoded] == embed("alpha", 40)


async def test_model_lists(client: httpx.AsyncClient) -> None:
    openai = (await client.get("/v1/models")).json()
    assert openai["object"] == "list"
    assert openai["data"]
    assert all(m["object"] == "model" for m in openai["data"])
    gemini = (await client.get("/v1beta/models")).json()
    assert gemini["models"][0]["name"].startswith("models/")


async def test_unknown_route_is_a_404_json_error(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/nope", json={})
    assert r.status_code == 404
    assert "/v1/nope" in r.json()["error"]["message"]
    r = await client.get("/v1/chat/completions")
    assert r.status_code == 404
    assert r.headers["content-type"] == "application/json"


async def test_body_that_is_not_a_json_object_is_a_400(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/messages", content=b"{not json")
    assert r.status_code == 400
    assert r.json()["type"] == "error"
    assert "JSON object" in r.json()["error"]["message"]


async def test_ids_count_requests_and_output_is_deterministic() -> None:
    """Two fresh servers given the same requests answer with the same bytes."""
    bodies: list[list[bytes]] = []
    for _ in range(2):
        async with (
            FakeProviderServer() as srv,
            httpx.AsyncClient(base_url=srv.base_url) as http,
        ):
            got = []
            for path, body in [
                ("/v1/chat/completions", {"model": "m", "stream": True, "messages": USER}),
                ("/v1/responses", {"model": "m", "stream": True, "input": "hi"}),
                ("/v1/messages", {"model": "m", "stream": True, "messages": USER}),
            ]:
                got.append((await http.post(path, json=body)).content)
            bodies.append(got)
    assert bodies[0] == bodies[1]
    assert b"chatcmpl-fake-1" in bodies[0][0]
    assert b"resp_fake_2" in bodies[0][1]
    assert b"msg_fake_3" in bodies[0][2]


async def test_repeated_requests_match_a_fresh_rendering() -> None:
    """Replies served from the template cache equal replies rendered afresh.

    Troubleshooting: bodies over 64 KiB bypass the cache, so the padded request is always
    rendered from scratch; a difference means the cache spliced request numbers wrongly.
    """
    small: dict[str, Any] = {"model": "m", "stream": True, "messages": USER}
    padded = {**small, "padding": "p" * (70 * 1024)}
    headers = {"x-fake-behaviour": "thinking", "x-fake-chunks": "12"}
    seen: list[bytes] = []
    for body in (small, padded):
        async with (
            FakeProviderServer() as srv,
            httpx.AsyncClient(base_url=srv.base_url) as http,
        ):
            for _ in range(11):
                r = await http.post("/v1/chat/completions", json=body, headers=headers)
            seen.append(r.content)
    assert seen[0] == seen[1]
    assert b"chatcmpl-fake-11" in seen[0]
    assert json.loads(seen[0].split(b"\n\n")[0][len(b"data: ") :])["id"] == "chatcmpl-fake-11"

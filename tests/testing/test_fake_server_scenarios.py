"""Scenario selection (header, path prefix, ``+`` combinations), records, and the behaviours the
HTTP conformance kit relies on, each in every dialect's own error shape."""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from lionagi.service_testing import DEFAULT_TEXT, THINKING_TEXT, FakeProviderServer

Sse = Callable[[str], list[tuple[str | None, Any]]]
CHAT = "/v1/chat/completions"
GEMINI = "/v1beta/models/g:generateContent"
GEMINI_SSE = "/v1beta/models/g:streamGenerateContent?alt=sse"
KEYWORD_SOUP = "FAIL401 FAIL429 FAIL500 RUN_TOOL THINK"


def chat(*turns: dict[str, Any], stream: bool = True) -> dict[str, Any]:
    messages = list(turns) or [{"role": "user", "content": "hi"}]
    return {"model": "m", "stream": stream, "messages": messages}


def anthropic(stream: bool = False) -> dict[str, Any]:
    return {
        "model": "m",
        "max_tokens": 5,
        "stream": stream,
        "messages": [{"role": "user", "content": "hi"}],
    }


def gemini() -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}


def ollama_chat(stream: bool = False) -> dict[str, Any]:
    return {"model": "llama", "stream": stream, "messages": [{"role": "user", "content": "hi"}]}


def behaviour(name: str, **extra: str) -> dict[str, str]:
    return {"x-fake-behaviour": name, **extra}


def content_deltas(events: list[tuple[str | None, Any]], key: str = "content") -> str:
    return "".join(
        d["choices"][0]["delta"].get(key) or "" for _, d in events if d != "[DONE]" and d["choices"]
    )


# --- selection -------------------------------------------------------------------------------
async def test_keywords_anywhere_in_the_conversation_select_nothing(
    client: httpx.AsyncClient, sse: Sse
) -> None:
    """A resumed conversation whose earlier turns mention the old keywords is answered as text."""
    body = chat(
        {"role": "user", "content": KEYWORD_SOUP},
        {"role": "assistant", "content": "noted"},
        {"role": "user", "content": f"and again: {KEYWORD_SOUP}"},
    )
    r = await client.post(CHAT, json=body)
    assert r.status_code == 200
    events = sse(r.text)
    assert content_deltas(events) == DEFAULT_TEXT
    assert content_deltas(events, "reasoning_content") == ""
    assert "tool_calls" not in r.text
    for path, payload in [
        ("/v1/messages", {**anthropic(), "messages": [{"role": "user", "content": KEYWORD_SOUP}]}),
        (GEMINI, {"contents": [{"role": "user", "parts": [{"text": KEYWORD_SOUP}]}]}),
        ("/v1/responses", {"model": "m", "input": KEYWORD_SOUP}),
        ("/api/chat", {**ollama_chat(), "messages": [{"role": "user", "content": KEYWORD_SOUP}]}),
    ]:
        r = await client.post(path, json=payload)
        assert r.status_code == 200, path
        assert DEFAULT_TEXT in r.text, path


async def test_path_prefix_selects_and_is_stripped_before_routing(
    server: FakeProviderServer, client: httpx.AsyncClient
) -> None:
    r = await client.post("/scenario/tool/v1/chat/completions", json=chat(stream=False))
    assert r.status_code == 200
    assert r.json()["choices"][0]["finish_reason"] == "tool_calls"
    r = await client.post("/scenario/401/v1/messages", json=anthropic())
    assert r.status_code == 401
    assert r.json()["error"]["type"] == "authentication_error"
    [first, second] = server.requests
    assert (first.path, first.scenario) == ("/v1/chat/completions", "tool")
    assert (second.path, second.scenario) == ("/v1/messages", "401")


async def test_path_prefix_drives_the_tool_round_trip(client: httpx.AsyncClient) -> None:
    body = chat(
        {"role": "user", "content": "list files"},
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "tool", "tool_call_id": "c", "content": "fake-tool-ran\n"},
        stream=False,
    )
    r = await client.post("/scenario/tool/v1/chat/completions", json=body)
    assert r.json()["choices"][0]["message"]["content"] == "Tool said: fake-tool-ran. Done."


async def test_the_header_wins_over_the_path(
    server: FakeProviderServer, client: httpx.AsyncClient
) -> None:
    r = await client.post(
        "/scenario/401/v1/chat/completions", json=chat(stream=False), headers=behaviour("text")
    )
    assert r.status_code == 200
    assert server.requests[-1].scenario == "text"


async def test_names_combine_with_plus(client: httpx.AsyncClient, sse: Sse) -> None:
    r = await client.post("/scenario/thinking+usage/v1/chat/completions", json=chat())
    events = sse(r.text)
    assert content_deltas(events, "reasoning_content") == THINKING_TEXT
    assert content_deltas(events) == DEFAULT_TEXT
    assert events[-2][1]["usage"]["prompt_tokens"] > 0
    headers = behaviour("tool+disconnect_after")
    received = b""
    async with client.stream("POST", CHAT, json=chat(), headers=headers) as r:
        assert r.status_code == 200  # the head arrived; the body is then cut
        with pytest.raises(httpx.RemoteProtocolError):
            async for piece in r.aiter_bytes():
                received += piece
    assert b"tool_calls" in received or b'"role":"assistant"' in received
    with pytest.raises(httpx.RemoteProtocolError):
        await client.post(
            CHAT, json=chat(stream=False), headers=behaviour("text+disconnect_before")
        )


@pytest.mark.parametrize(
    ("path", "headers", "named", "why"),
    [
        ("/scenario/401+429/v1/chat/completions", {}, "path /scenario/", "at most one"),
        (CHAT, {"x-fake-behaviour": "stall+malformed"}, "x-fake-behaviour", "at most one"),
        ("/scenario/explode/v1/chat/completions", {}, "path /scenario/", "unknown behaviour"),
    ],
)
async def test_bad_selectors_are_a_400_naming_where_they_came_from(
    client: httpx.AsyncClient, path: str, headers: dict[str, str], named: str, why: str
) -> None:
    r = await client.post(path, json=chat(), headers=headers)
    assert r.status_code == 400
    message = r.json()["error"]["message"]
    assert named in message
    assert why in message


async def test_recorded_conversation_text_in_every_dialect(
    server: FakeProviderServer, client: httpx.AsyncClient
) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        (
            CHAT,
            {
                "model": "m",
                "stop": ["NOT-A-PROMPT"],
                "messages": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": [{"type": "text", "text": "hello chat"}]},
                ],
            },
        ),
        (
            "/v1/messages",
            {"system": "sys", **anthropic(), "messages": [{"role": "user", "content": "hello a"}]},
        ),
        ("/v1/responses", {"model": "m", "instructions": "ins", "input": "hello r"}),
        (GEMINI, {"contents": [{"role": "user", "parts": [{"text": "hello g"}]}]}),
        ("/api/generate", {"model": "m", "stream": False, "prompt": "hello o"}),
        ("/search", {"query": "hello exa"}),
    ]
    for path, body in calls:
        assert (await client.post(path, json=body)).status_code == 200, path
    texts = [request.conversation_text() for request in server.requests]
    assert texts == [
        "be brief\nhello chat",
        "sys\nhello a",
        "ins\nhello r",
        "hello g",
        "hello o",
        "hello exa",
    ]
    assert [request.prompt_text() for request in server.requests][-2:] == ["hello o", "hello exa"]


# --- error behaviours in each dialect -----------------------------------------------------------
async def test_403_in_each_dialect(client: httpx.AsyncClient) -> None:
    headers = behaviour("403")
    r = await client.post(CHAT, json=chat(), headers=headers)
    assert (r.status_code, r.json()["error"]["type"]) == (403, "request_forbidden")
    r = await client.post("/v1/messages", json=anthropic(), headers=headers)
    assert (r.status_code, r.json()["error"]["type"]) == (403, "permission_error")
    r = await client.post(GEMINI, json=gemini(), headers=headers)
    assert (r.status_code, r.json()["error"]["status"]) == (403, "PERMISSION_DENIED")
    r = await client.post("/api/chat", json=ollama_chat(), headers=headers)
    assert r.status_code == 403
    assert isinstance(r.json()["error"], str)


async def test_context_length_in_each_vendors_own_words(client: httpx.AsyncClient) -> None:
    headers = behaviour("context_length")
    r = await client.post(CHAT, json=chat(), headers=headers)
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "context_length_exceeded"
    assert r.json()["error"]["type"] == "invalid_request_error"
    r = await client.post("/v1/messages", json=anthropic(stream=True), headers=headers)
    assert r.status_code == 400
    err = r.json()["error"]
    assert err["type"] == "invalid_request_error"
    assert err["message"].startswith("prompt is too long: ")
    r = await client.post(GEMINI_SSE, json=gemini(), headers=headers)
    assert r.status_code == 400
    assert r.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert "exceeds the maximum number of tokens" in r.json()["error"]["message"]
    r = await client.post("/api/chat", json=ollama_chat(stream=True), headers=headers)
    assert r.status_code == 400
    assert r.json() == {"error": "the input length exceeds the context length"}


async def test_quota_is_openais_insufficient_quota_without_retry_after(
    client: httpx.AsyncClient,
) -> None:
    r = await client.post(CHAT, json=chat(), headers=behaviour("quota"))
    assert r.status_code == 429
    assert r.json()["error"]["code"] == "insufficient_quota"
    assert r.json()["error"]["type"] == "insufficient_quota"
    assert "retry-after" not in r.headers


async def test_overloaded_is_anthropics_529(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/messages", json=anthropic(), headers=behaviour("overloaded"))
    assert r.status_code == 529
    assert r.json() == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    r = await client.post(CHAT, json=chat(), headers=behaviour("overloaded"))
    assert r.status_code == 503


async def test_gemini_429_carries_retry_info(client: httpx.AsyncClient) -> None:
    r = await client.post(
        GEMINI, json=gemini(), headers=behaviour("429", **{"x-fake-retry-after": "7"})
    )
    assert r.status_code == 429
    error = r.json()["error"]
    assert error["status"] == "RESOURCE_EXHAUSTED"
    [info] = [d for d in error["details"] if d["@type"].endswith("google.rpc.RetryInfo")]
    assert info["retryDelay"] == "7s"


async def test_gemini_retry_delay_keeps_a_fractional_delay(client: httpx.AsyncClient) -> None:
    """A sub-second delay stays a Duration (``"0.05s"``), agreeing with the Retry-After header."""
    r = await client.post(
        GEMINI, json=gemini(), headers=behaviour("429", **{"x-fake-retry-after": "0.05"})
    )
    [info] = [d for d in r.json()["error"]["details"] if d["@type"].endswith("RetryInfo")]
    assert info["retryDelay"] == "0.05s"
    assert r.headers["retry-after"] == "0.05"


async def test_retry_after_date_is_an_http_date_that_follows_the_clock(
    client: httpx.AsyncClient,
) -> None:
    headers = behaviour("retry_after_date", **{"x-fake-retry-after": "30"})
    dates = []
    for _ in range(2):  # a second, identical request must not get a cached, stale date
        r = await client.post(CHAT, json=chat(), headers=headers)
        assert r.status_code == 429
        assert r.json()["error"]["code"] == "rate_limit_exceeded"
        dates.append(email.utils.parsedate_to_datetime(r.headers["retry-after"]))
    assert all(date.timestamp() > time.time() + 5 for date in dates)
    assert all(date.timestamp() < time.time() + 120 for date in dates)


# --- fault behaviours ----------------------------------------------------------------------------
async def test_non_json_200(client: httpx.AsyncClient) -> None:
    for path, body in [(CHAT, chat()), ("/api/chat", ollama_chat()), ("/search", {"query": "q"})]:
        r = await client.post(path, json=body, headers=behaviour("non_json_200"))
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/html")
        with pytest.raises(ValueError):
            r.json()


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (CHAT, chat()),
        (CHAT, chat(stream=False)),
        ("/v1/messages", anthropic(stream=True)),
        (GEMINI_SSE, gemini()),
        ("/api/chat", ollama_chat(stream=True)),
        ("/search", {"query": "q"}),
    ],
)
async def test_invalid_utf8_inside_otherwise_intact_framing(
    client: httpx.AsyncClient, path: str, body: dict[str, Any]
) -> None:
    r = await client.post(path, json=body, headers=behaviour("invalid_utf8"))
    assert r.status_code == 200
    assert b"\xff\xfe" in r.content
    with pytest.raises(UnicodeDecodeError):
        r.content.decode("utf-8")
    # Only the encoding is broken: replacing the bad bytes leaves valid framing and JSON.
    repaired = r.content.decode("utf-8", errors="replace")
    if repaired.startswith("{"):
        for line in repaired.splitlines():
            json.loads(line)


async def test_hostile_content_type(client: httpx.AsyncClient, sse: Sse) -> None:
    r = await client.post(CHAT, json=chat(), headers=behaviour("hostile_content_type"))
    assert r.headers["content-type"] == "text/event-stream; charset=base64"
    assert content_deltas(sse(r.content.decode())) == DEFAULT_TEXT
    r = await client.post(CHAT, json=chat(stream=False), headers=behaviour("hostile_content_type"))
    assert r.headers["content-type"] == "application/json; charset=base64"
    assert json.loads(r.content)["object"] == "chat.completion"
    r = await client.post(
        "/api/chat", json=ollama_chat(True), headers=behaviour("hostile_content_type")
    )
    assert r.headers["content-type"] == "application/x-ndjson; charset=base64"


async def test_drip_splits_the_reply_into_many_small_writes(
    client: httpx.AsyncClient, sse: Sse
) -> None:
    reads: list[bytes] = []
    async with client.stream("POST", CHAT, json=chat(), headers=behaviour("drip")) as r:
        async for piece in r.aiter_raw():
            reads.append(piece)
    assert len(reads) > 4
    body = b"".join(reads).decode()
    assert content_deltas(sse(body)) == DEFAULT_TEXT
    assert body.endswith("data: [DONE]\n\n")
    r = await client.post(CHAT, json=chat(stream=False), headers=behaviour("drip"))
    assert r.json()["choices"][0]["message"]["content"] == DEFAULT_TEXT
    # the connection stays usable
    assert (await client.post(CHAT, json=chat(stream=False))).status_code == 200


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (CHAT, chat()),
        ("/v1/messages", anthropic(stream=True)),
        ("/v1/responses", {"model": "m", "input": "hi", "stream": True}),
        ("/api/chat", ollama_chat(stream=True)),
    ],
)
async def test_reset_mid_line_closes_inside_a_line(
    client: httpx.AsyncClient, path: str, body: dict[str, Any]
) -> None:
    received = b""
    async with client.stream("POST", path, json=body, headers=behaviour("reset_mid_line")) as r:
        assert r.status_code == 200
        with pytest.raises(httpx.RemoteProtocolError):
            async for piece in r.aiter_bytes():
                received += piece
    assert received
    assert not received.endswith(b"\n")  # the last line is cut short
    last = received.rsplit(b"\n", 1)[-1]
    assert last.startswith((b"data: {", b"{"))
    with pytest.raises(ValueError):
        json.loads(last.removeprefix(b"data: "))

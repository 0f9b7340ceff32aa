"""Ollama's native NDJSON wire and the generic JSON (Exa-like search) endpoint, over loopback."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import pytest

from lionagi.service_testing import (
    BEHAVIOURS,
    DEFAULT_TEXT,
    EMBEDDING_DIMENSIONS,
    THINKING_TEXT,
    TOOL_COMMAND,
    FakeProviderServer,
    embed,
)

WEATHER = {
    "type": "function",
    "function": {
        "name": "run_shell_command",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
}


def chat(stream: bool | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "llama3.2", "messages": [{"role": "user", "content": "hi"}]}
    if stream is not None:
        body["stream"] = stream
    return {**body, **extra}


async def ndjson(
    client: httpx.AsyncClient, path: str, body: dict[str, Any], **headers: str
) -> list[dict[str, Any]]:
    """Read an NDJSON reply line by line, as Ollama clients do."""
    async with client.stream("POST", path, json=body, headers=headers) as r:
        assert r.status_code == 200
        assert r.headers["content-type"] == "application/x-ndjson"
        return [json.loads(line) async for line in r.aiter_lines() if line]


# --- Ollama ------------------------------------------------------------------------------------
async def test_ollama_chat_streams_ndjson_by_default(client: httpx.AsyncClient) -> None:
    lines = await ndjson(client, "/api/chat", chat())
    assert len(lines) > 2
    *parts, done = lines
    assert all(line["done"] is False and line["model"] == "llama3.2" for line in parts)
    assert all(line["created_at"].endswith("Z") for line in lines)
    assert "".join(line["message"]["content"] for line in parts) == DEFAULT_TEXT
    assert {line["message"]["role"] for line in parts} == {"assistant"}
    assert done["done"] is True
    assert done["done_reason"] == "stop"
    assert done["message"] == {"role": "assistant", "content": ""}
    for field in ("prompt_eval_count", "eval_count", "total_duration", "eval_duration"):
        assert isinstance(done[field], int) and done[field] > 0, field


async def test_ollama_chat_stream_false_is_one_object(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/chat", json=chat(stream=False))
    assert r.headers["content-type"] == "application/json"
    body = r.json()
    assert body["message"] == {"role": "assistant", "content": DEFAULT_TEXT}
    assert body["done"] is True
    assert body["eval_count"] > 0


async def test_ollama_chat_thinking_and_tool_calls(client: httpx.AsyncClient) -> None:
    lines = await ndjson(
        client, "/api/chat", chat(tools=[WEATHER]), **{"x-fake-behaviour": "thinking+tool"}
    )
    thinking = "".join(line["message"].get("thinking", "") for line in lines[:-1])
    assert thinking == THINKING_TEXT
    [call] = [
        c
        for line in lines
        if "tool_calls" in line.get("message", {})
        for c in line["message"]["tool_calls"]
    ]
    assert call == {
        "function": {"name": "run_shell_command", "arguments": {"command": TOOL_COMMAND}}
    }
    r = await client.post(
        "/api/chat", json=chat(stream=False), headers={"x-fake-behaviour": "tool"}
    )
    assert r.json()["message"]["tool_calls"][0]["function"]["arguments"] == {
        "command": TOOL_COMMAND
    }
    # once the tool result is the last turn, the answer is text quoting it
    turns = [
        {"role": "user", "content": "list"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "content": "fake-tool-ran"},
    ]
    r = await client.post("/scenario/tool/api/chat", json=chat(stream=False, messages=turns))
    assert r.json()["message"]["content"] == "Tool said: fake-tool-ran. Done."


async def test_ollama_generate(client: httpx.AsyncClient) -> None:
    body = {"model": "llama3.2", "prompt": "hi"}
    lines = await ndjson(client, "/api/generate", body, **{"x-fake-behaviour": "thinking"})
    assert "".join(line.get("thinking", "") for line in lines) == THINKING_TEXT
    assert "".join(line["response"] for line in lines) == DEFAULT_TEXT
    assert lines[-1]["done"] is True
    assert lines[-1]["context"]
    r = await client.post("/api/generate", json={**body, "stream": False})
    assert r.json()["response"] == DEFAULT_TEXT
    assert r.json()["done_reason"] == "stop"
    r = await client.post("/api/generate", json=body, headers={"x-fake-behaviour": "tool"})
    assert r.status_code == 400
    assert "/api/chat" in r.json()["error"]


@pytest.mark.parametrize(
    ("name", "status"), [("401", 401), ("429", 429), ("500", 500), ("503", 503)]
)
async def test_ollama_errors_are_flat_error_strings(
    client: httpx.AsyncClient, name: str, status: int
) -> None:
    r = await client.post("/api/chat", json=chat(), headers={"x-fake-behaviour": name})
    assert r.status_code == status
    assert set(r.json()) == {"error"}
    assert isinstance(r.json()["error"], str)


async def test_ollama_in_stream_error_and_malformed_line(client: httpx.AsyncClient) -> None:
    lines = await ndjson(client, "/api/chat", chat(), **{"x-fake-behaviour": "stream_error"})
    assert set(lines[-1]) == {"error"}
    assert not any(line.get("done") for line in lines)
    r = await client.post("/api/chat", json=chat(), headers={"x-fake-behaviour": "malformed"})
    bad = []
    for line in r.text.splitlines():
        try:
            json.loads(line)
        except ValueError:
            bad.append(line)
    assert len(bad) == 1


async def test_ollama_embed(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/embed", json={"model": "nomic", "input": ["a", "b"]})
    body = r.json()
    assert body["model"] == "nomic"
    assert body["embeddings"] == [embed("a"), embed("b")]
    assert len(body["embeddings"][0]) == EMBEDDING_DIMENSIONS
    tags = await client.get("/api/tags")
    assert tags.json()["models"]


async def test_ollama_also_served_under_a_prefix_and_openai_compatible_mode(
    client: httpx.AsyncClient,
) -> None:
    r = await client.post("/ollama/api/chat", json=chat(stream=False))
    assert r.json()["message"]["content"] == DEFAULT_TEXT
    r = await client.post("/v1/chat/completions", json=chat(stream=False))
    assert r.json()["choices"][0]["message"]["content"] == DEFAULT_TEXT


# --- generic JSON (search) ----------------------------------------------------------------------
async def test_search_is_deterministic_and_derived_from_the_request(
    client: httpx.AsyncClient,
) -> None:
    body = {"query": "fake news", "numResults": 3, "contents": {"text": True}}
    first = (await client.post("/search", json=body)).json()
    again = (await client.post("/search", json=body)).json()
    assert first["requestId"] != again["requestId"]
    assert first["results"] == again["results"]
    assert len(first["results"]) == 3
    result = first["results"][0]
    assert result["id"] == result["url"]
    assert result["title"] == "Result 1 for fake news"
    assert result["text"] == DEFAULT_TEXT
    assert first["costDollars"]["total"] > 0
    other = (await client.post("/search", json={"query": "other"})).json()
    assert other["results"][0]["url"] != result["url"]
    assert "text" not in other["results"][0]
    assert len(other["results"]) == 10


async def test_contents_find_similar_and_json_prefix(client: httpx.AsyncClient) -> None:
    r = await client.post("/contents", json={"ids": ["https://a.example", "https://b.example"]})
    body = r.json()
    assert [x["id"] for x in body["results"]] == ["https://a.example", "https://b.example"]
    assert body["statuses"] == [
        {"id": "https://a.example", "status": "success"},
        {"id": "https://b.example", "status": "success"},
    ]
    r = await client.post("/findSimilar", json={"url": "https://a.example", "numResults": 2})
    assert len(r.json()["results"]) == 2
    r = await client.post("/json/anything/here", json={"query": "q", "numResults": 1})
    assert r.json()["results"][0]["title"] == "Result 1 for q"
    r = await client.post(
        "/search",
        json={"query": "q"},
        headers={"x-fake-text": "custom", "x-fake-behaviour": "text"},
    )
    assert r.status_code == 200


async def test_search_error_behaviours_in_json_form(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/search",
        json={"query": "q"},
        headers={"x-fake-behaviour": "401", "x-api-key": "exa-SECRET"},
    )
    assert r.status_code == 401
    assert r.json()["tag"] == "INVALID_API_KEY"
    assert "exa-SECRET" in r.json()["error"]
    assert r.json()["requestId"]
    r = await client.post("/search", json={"query": "q"}, headers={"x-fake-behaviour": "429"})
    assert (r.status_code, r.headers["retry-after"]) == (429, "1")
    for name, status in [("403", 403), ("500", 500), ("503", 503), ("stream_error", 500)]:
        r = await client.post("/search", json={"query": "q"}, headers={"x-fake-behaviour": name})
        assert r.status_code == status, name
        assert "error" in r.json()
    r = await client.post("/search", json={"query": "q"}, headers={"x-fake-behaviour": "malformed"})
    with pytest.raises(ValueError):
        r.json()
    with pytest.raises(httpx.RemoteProtocolError):
        await client.post(
            "/search", json={"query": "q"}, headers={"x-fake-behaviour": "disconnect_before"}
        )


async def test_stall_on_search(server: FakeProviderServer) -> None:
    timeout = httpx.Timeout(10, read=0.2)
    async with httpx.AsyncClient(base_url=server.base_url, timeout=timeout) as http:
        with pytest.raises(httpx.ReadTimeout):
            await http.post("/search", json={"query": "q"}, headers={"x-fake-behaviour": "stall"})


async def test_every_behaviour_on_the_new_routes(server: FakeProviderServer) -> None:
    """Smoke: no behaviour makes the Ollama or search routes fail inside the server."""
    calls = [
        ("/api/chat", chat()),
        ("/api/chat", chat(stream=False)),
        ("/api/generate", {"model": "m", "prompt": "p"}),
        ("/api/embed", {"model": "m", "input": "x"}),
        ("/search", {"query": "q"}),
    ]
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        for name in BEHAVIOURS:
            for path, body in calls:
                headers = {"x-fake-behaviour": name}
                if name == "stall_before":
                    with anyio.move_on_after(0.2) as waited:
                        await http.post(path, json=body, headers=headers)
                    assert waited.cancelled_caught, (name, path)
                    continue
                if name == "stall":
                    async with http.stream("POST", path, json=body, headers=headers) as r:
                        assert await r.aiter_raw().__anext__()
                    continue
                try:
                    r = await http.post(path, json=body, headers=headers)
                except httpx.RemoteProtocolError:
                    assert name in (
                        "disconnect_before",
                        "disconnect_after_head",
                        "disconnect_after",
                        "reset_mid_line",
                    )
                    continue
                assert b"fake_server_error" not in r.content, (name, path)

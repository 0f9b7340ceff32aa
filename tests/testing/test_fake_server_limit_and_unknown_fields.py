"""The ``token_limit`` and ``extra_fields`` behaviours on every dialect's wire.

``token_limit``: the whole answer, ending with the dialect's stop reason for the output token
limit, one-shot and streamed. ``extra_fields``: every JSON object of the answer carries
``fake_unknown_field`` (tool-call arguments excepted) and the answer is otherwise the same.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from lionagi.service_testing import TOOL_COMMAND, FakeProviderServer
from lionagi.service_testing._fake_unknown import UNKNOWN_FIELD, UNKNOWN_FIELD_VALUE

from .conftest import parse_sse

MESSAGES = [{"role": "user", "content": "hi"}]
SHELL = {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}
GEMINI = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
GEMINI_ONE_SHOT = "/v1beta/models/g:generateContent"
GEMINI_SSE = "/v1beta/models/g:streamGenerateContent?alt=sse"


def chat(stream: bool) -> dict[str, Any]:
    return {"model": "m", "messages": MESSAGES, "stream": stream}


def responses(stream: bool) -> dict[str, Any]:
    return {"model": "m", "input": "hi", "stream": stream}


def messages(stream: bool) -> dict[str, Any]:
    return {"model": "m", "max_tokens": 16, "messages": MESSAGES, "stream": stream}


def generate(stream: bool) -> dict[str, Any]:
    return {"model": "m", "prompt": "hi", "stream": stream}


async def reply(path: str, body: dict[str, Any], behaviour: str) -> httpx.Response:
    """One request to a fresh server, so ids (numbered per server) match across replies."""
    async with (
        FakeProviderServer() as server,
        httpx.AsyncClient(base_url=server.base_url, timeout=10) as http,
    ):
        response = await http.post(path, json=body, headers={"x-fake-behaviour": behaviour})
    assert response.status_code == 200, response.text
    return response


def documents(response: httpx.Response) -> list[Any]:
    """Every JSON document of a reply: the body, each SSE data line or each NDJSON line."""
    media = response.headers["content-type"]
    if media.startswith("text/event-stream"):
        return [json.loads(data) for _, data in parse_sse(response.text) if data != "[DONE]"]
    if media.startswith("application/x-ndjson"):
        return [json.loads(line) for line in response.text.splitlines() if line]
    return [response.json()]


# -- token_limit ---------------------------------------------------------------------------------


def chat_reason(docs: list[Any]) -> Any:
    return [c["finish_reason"] for d in docs for c in d["choices"] if c["finish_reason"]][-1]


def responses_reason(docs: list[Any]) -> Any:
    final = docs[-1].get("response", docs[-1])
    details = final["incomplete_details"]
    return details["reason"] if final["status"] == "incomplete" else final["status"]


def messages_reason(docs: list[Any]) -> Any:
    final = next((d for d in docs if d["type"] == "message_delta"), docs[-1])
    return final.get("delta", final)["stop_reason"]


def gemini_reason(docs: list[Any]) -> Any:
    return docs[-1]["candidates"][0]["finishReason"]


def ollama_reason(docs: list[Any]) -> Any:
    return docs[-1]["done_reason"]


# (path, body for a stream flag, the stop reason of the reply, normal end, token limit)
LIMITS: dict[
    str, tuple[str, Callable[[bool], dict[str, Any]], Callable[[list[Any]], Any], str, str]
]
LIMITS = {
    "chat": ("/v1/chat/completions", chat, chat_reason, "stop", "length"),
    "responses": ("/v1/responses", responses, responses_reason, "completed", "max_output_tokens"),
    "messages": ("/v1/messages", messages, messages_reason, "end_turn", "max_tokens"),
    "gemini": (GEMINI_ONE_SHOT, lambda _: GEMINI, gemini_reason, "STOP", "MAX_TOKENS"),
    "gemini-sse": (GEMINI_SSE, lambda _: GEMINI, gemini_reason, "STOP", "MAX_TOKENS"),
    "ollama-chat": ("/api/chat", chat, ollama_reason, "stop", "length"),
    "ollama-generate": ("/api/generate", generate, ollama_reason, "stop", "length"),
}


@pytest.mark.parametrize("stream", [False, True], ids=["one-shot", "stream"])
@pytest.mark.parametrize("dialect", sorted(LIMITS))
async def test_token_limit_ends_with_the_dialects_limit_reason(dialect: str, stream: bool) -> None:
    path, body, reason, normal, limit = LIMITS[dialect]
    plain = documents(await reply(path, body(stream), "text"))
    cut = documents(await reply(path, body(stream), "token_limit"))
    assert reason(plain) == normal
    assert reason(cut) == limit
    assert len(cut) == len(plain)  # the same answer, only its end differs


async def test_token_limit_responses_stream_ends_with_response_incomplete() -> None:
    response = await reply("/v1/responses", responses(True), "token_limit")
    names = [name for name, _ in parse_sse(response.text)]
    assert names[-1] == "response.incomplete"
    assert "response.completed" not in names
    item = documents(response)[-1]["response"]["output"][0]
    assert item["status"] == "incomplete"


async def test_token_limit_with_tool_is_refused(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/v1/chat/completions", json=chat(False), headers={"x-fake-behaviour": "tool+token_limit"}
    )
    assert response.status_code == 400
    assert "token_limit" in response.json()["error"]["message"]


# -- extra_fields --------------------------------------------------------------------------------


def without_unknown(value: Any) -> Any:
    if isinstance(value, list):
        return [without_unknown(item) for item in value]
    if isinstance(value, dict):
        return {k: without_unknown(v) for k, v in value.items() if k != UNKNOWN_FIELD}
    return value


def objects(value: Any) -> list[dict[str, Any]]:
    """Every object in ``value`` except tool-call arguments (and what they hold)."""
    if isinstance(value, list):
        return [found for item in value for found in objects(item)]
    if not isinstance(value, dict):
        return []
    skip = ("input", "args", "arguments")
    return [value, *(o for k, v in value.items() if k not in skip for o in objects(v))]


EXTENDED: list[tuple[str, dict[str, Any]]] = [
    ("/v1/chat/completions", chat(False)),
    ("/v1/chat/completions", chat(True)),
    ("/v1/responses", responses(False)),
    ("/v1/responses", responses(True)),
    ("/v1/messages", messages(False)),
    ("/v1/messages", messages(True)),
    (GEMINI_ONE_SHOT, GEMINI),
    (GEMINI_SSE, GEMINI),
    ("/v1beta/models/g:streamGenerateContent", GEMINI),
    ("/api/chat", chat(True)),
    ("/api/generate", generate(True)),
    ("/v1/embeddings", {"model": "e", "input": ["a", "b"]}),
    ("/search", {"query": "q"}),
]


@pytest.mark.parametrize(
    ("path", "body"), EXTENDED, ids=[f"{path}-{body.get('stream')}" for path, body in EXTENDED]
)
async def test_extra_fields_add_an_unknown_field_to_every_object(
    path: str, body: dict[str, Any]
) -> None:
    plain = await reply(path, body, "thinking+usage")
    extended = await reply(path, body, "thinking+usage+extra_fields")
    assert extended.headers["content-type"] == plain.headers["content-type"]
    docs = documents(extended)
    found = objects(docs)
    assert found
    missing = [o for o in found if o.get(UNKNOWN_FIELD) != UNKNOWN_FIELD_VALUE]
    assert not missing, missing[:3]
    assert without_unknown(docs) == documents(plain)


TOOL_ROUTES: dict[str, tuple[str, dict[str, Any], Callable[[Any], Any]]] = {
    "anthropic": (
        "/v1/messages",
        {**messages(False), "tools": [{"name": "shell", "input_schema": SHELL}]},
        lambda doc: next(b for b in doc["content"] if b["type"] == "tool_use")["input"],
    ),
    "gemini": (
        GEMINI_ONE_SHOT,
        {**GEMINI, "tools": [{"functionDeclarations": [{"name": "shell", "parameters": SHELL}]}]},
        lambda doc: doc["candidates"][0]["content"]["parts"][0]["functionCall"]["args"],
    ),
    "ollama": (
        "/api/chat",
        {
            **chat(False),
            "tools": [{"type": "function", "function": {"name": "shell", "parameters": SHELL}}],
        },
        lambda doc: doc["message"]["tool_calls"][0]["function"]["arguments"],
    ),
}


@pytest.mark.parametrize("route", sorted(TOOL_ROUTES))
async def test_extra_fields_leave_tool_arguments_alone(route: str) -> None:
    path, body, arguments = TOOL_ROUTES[route]
    doc = (await reply(path, body, "tool+extra_fields")).json()
    assert doc[UNKNOWN_FIELD] == UNKNOWN_FIELD_VALUE
    assert arguments(doc) == {"command": TOOL_COMMAND}

"""``model_not_found``: each vendor's HTTP 404 for a model it does not serve, in its own words.

The conformance kit's unsupported-model case relies on it; the bodies are what the services send
(OpenAI's ``model_not_found`` code, Anthropic's ``not_found_error`` "model: <name>", Gemini's
``NOT_FOUND`` "models/<name> is not found ...", Ollama's ``model "<name>" not found``), each
naming the fixed ``UNKNOWN_MODEL``, whatever the request asked for, on one-shot and stream
requests alike. The routing 404 (an unknown path) keeps wording that names no model.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from lionagi.service_testing._fake_errors import UNKNOWN_MODEL

HEADERS = {"x-fake-behaviour": "model_not_found"}
MESSAGES = [{"role": "user", "content": "hi"}]
GEMINI = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}


@pytest.mark.parametrize("stream", [False, True])
async def test_each_vendor_names_the_unknown_model(client: httpx.AsyncClient, stream: bool) -> None:
    chat = {"model": "m", "stream": stream, "messages": MESSAGES}
    for path in ("/v1/chat/completions", "/v1/responses", "/v1/embeddings"):
        r = await client.post(path, json={**chat, "input": "hi"}, headers=HEADERS)
        assert r.status_code == 404, path
        error = r.json()["error"]
        assert (error["code"], error["type"]) == ("model_not_found", "invalid_request_error")
        assert error["message"] == (
            f"The model `{UNKNOWN_MODEL}` does not exist or you do not have access to it."
        )

    r = await client.post("/v1/messages", json={**chat, "max_tokens": 5}, headers=HEADERS)
    assert r.status_code == 404
    assert r.json() == {
        "type": "error",
        "error": {"type": "not_found_error", "message": f"model: {UNKNOWN_MODEL}"},
    }

    method = "streamGenerateContent?alt=sse" if stream else "generateContent"
    r = await client.post(f"/v1beta/models/g:{method}", json=GEMINI, headers=HEADERS)
    assert r.status_code == 404
    error = r.json()["error"]
    assert (error["code"], error["status"]) == (404, "NOT_FOUND")
    assert error["message"].startswith(f"models/{UNKNOWN_MODEL} is not found for API version")

    for path, body in (
        ("/api/chat", chat),
        ("/api/generate", {"model": "m", "stream": stream, "prompt": "hi"}),
    ):
        r = await client.post(path, json=body, headers=HEADERS)
        assert r.status_code == 404, path
        assert r.json() == {"error": f'model "{UNKNOWN_MODEL}" not found, try pulling it first'}


async def test_the_routing_404_names_no_model(client: httpx.AsyncClient) -> None:
    # What an adapter with a wrong path meets: it must stay a plain client error, so nothing in
    # it may read as "the model is unknown".
    body: dict[str, Any] = {"model": "m", "messages": MESSAGES}
    r = await client.post("/v1/chat/completion", json=body)
    assert r.status_code == 404
    assert "model_not_found" not in r.text
    assert UNKNOWN_MODEL not in r.text

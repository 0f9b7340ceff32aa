"""``unsupported_capability``: each vendor's HTTP 400 for a model asked what it cannot do.

The conformance kit's capability-refusal case relies on it; the bodies are what the services
send, as users report them (OpenAI's "image_url is only supported by certain models", Anthropic's
"'<model>' does not support thinking.", Gemini's "Function calling is not enabled for
models/<model>", Ollama's "<model> does not support tools"), on one-shot and stream requests
alike, and each is typed by core's shared ``capability`` rule with the capability the kit
expects. The JSON routes (Exa) answer a 400 saying the behaviour is not rendered there.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from lionagi.service_testing import BEHAVIOURS
from lionagi.service_testing._fake_errors import CAPABILITY_MESSAGES, LIMITED_MODEL
from lionagi.service_testing.conformance._http_dialects import CAPABILITY_REFUSED

HEADERS = {"x-fake-behaviour": "unsupported_capability"}
MESSAGES = [{"role": "user", "content": "hi"}]
GEMINI = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}


def test_it_is_an_outcome_behaviour() -> None:
    assert "unsupported_capability" in BEHAVIOURS


@pytest.mark.parametrize("stream", [False, True])
async def test_each_vendor_refuses_in_its_own_words(
    client: httpx.AsyncClient, stream: bool
) -> None:
    chat = {"model": "m", "stream": stream, "messages": MESSAGES}
    for path in ("/v1/chat/completions", "/v1/responses"):
        r = await client.post(path, json={**chat, "input": "hi"}, headers=HEADERS)
        assert r.status_code == 400, path
        assert r.json() == {
            "error": {
                "message": "Invalid content type. image_url is only supported by certain models.",
                "type": "invalid_request_error",
                "param": "messages.[0].content.[1].type",
                "code": None,
            }
        }, path

    r = await client.post("/v1/messages", json={**chat, "max_tokens": 5}, headers=HEADERS)
    assert r.status_code == 400
    assert r.json() == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": f"'{LIMITED_MODEL}' does not support thinking.",
        },
    }

    method = "streamGenerateContent?alt=sse" if stream else "generateContent"
    r = await client.post(f"/v1beta/models/g:{method}", json=GEMINI, headers=HEADERS)
    assert r.status_code == 400
    assert r.json() == {
        "error": {
            "code": 400,
            "message": f"Function calling is not enabled for models/{LIMITED_MODEL}",
            "status": "INVALID_ARGUMENT",
        }
    }

    for path, body in (
        ("/api/chat", chat),
        ("/api/generate", {"model": "m", "stream": stream, "prompt": "hi"}),
    ):
        r = await client.post(path, json=body, headers=HEADERS)
        assert r.status_code == 400, path
        assert r.json() == {
            "error": f"registry.ollama.ai/library/{LIMITED_MODEL}:latest does not support tools"
        }


@pytest.mark.parametrize(
    ("path", "body"),
    [("/search", {"query": "q"}), ("/answer", {"query": "q"}), ("/json/search", {"query": "q"})],
)
async def test_the_json_routes_refuse_it(
    client: httpx.AsyncClient, path: str, body: dict[str, Any]
) -> None:
    # Exa documents no capability refusal: an invented shape would pass an adapter for nothing.
    r = await client.post(path, json=body, headers=HEADERS)
    assert r.status_code == 400
    assert "unsupported_capability is rendered for the OpenAI" in r.json()["error"]


def test_core_reads_the_capability_the_kit_expects() -> None:
    """Each rendered text is typed by core's shared rule, naming the capability the case checks."""
    from lionagi.service._transport.classify import capability_named

    vendors = {
        "openai_chat": "openai",
        "openai_responses": "openai",
        "anthropic_messages": "anthropic",
        "gemini": "gemini",
        "ollama": "ollama",
    }
    assert set(vendors) == set(CAPABILITY_REFUSED)
    for dialect, vendor in vendors.items():
        assert capability_named(CAPABILITY_MESSAGES[vendor]) == CAPABILITY_REFUSED[dialect], dialect

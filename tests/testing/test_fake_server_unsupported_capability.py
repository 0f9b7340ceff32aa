"""``unsupported_capability``: each vendor's HTTP 400 for a model asked what it cannot do.

``stream_unsupported_capability`` is the same refusal in-band: a 200 stream whose error event
carries it, before any output (one-shot requests get the 400).

The conformance kit's capability-refusal case relies on it; the bodies are what the services
send, as users report them (OpenAI's "image_url is only supported by certain models", Anthropic's
"'<model>' does not support thinking.", Gemini's "Function calling is not enabled for
models/<model>", Ollama's "<model> does not support tools"), on one-shot and stream requests
alike, and each is typed by core's shared ``capability`` rule with the capability the kit
expects. The JSON routes (Exa) answer a 400 saying the behaviour is not rendered there.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from lionagi.service import ProviderStreamCapabilityError, classify_stream_error
from lionagi.service.http import ProjectorBase
from lionagi.service_testing import BEHAVIOURS
from lionagi.service_testing._fake_errors import CAPABILITY_MESSAGES, LIMITED_MODEL
from lionagi.service_testing._fake_script import OUTCOME_BEHAVIOURS
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


# -- the in-band form: ``stream_unsupported_capability`` ------------------------------------------

IN_BAND = {"x-fake-behaviour": "stream_unsupported_capability"}
OPENAI_REFUSAL = {
    "message": "Invalid content type. image_url is only supported by certain models.",
    "type": "invalid_request_error",
    "param": "messages.[0].content.[1].type",
    "code": None,
}
ANTHROPIC_REFUSAL = {
    "type": "invalid_request_error",
    "message": f"'{LIMITED_MODEL}' does not support thinking.",
}
GEMINI_REFUSAL = {
    "code": 400,
    "message": f"Function calling is not enabled for models/{LIMITED_MODEL}",
    "status": "INVALID_ARGUMENT",
}
OLLAMA_REFUSAL = f"registry.ollama.ai/library/{LIMITED_MODEL}:latest does not support tools"


def test_the_in_band_form_is_an_outcome_behaviour() -> None:
    assert "stream_unsupported_capability" in OUTCOME_BEHAVIOURS


async def test_chat_opens_the_stream_then_sends_the_refusal_object(
    client: httpx.AsyncClient, sse: Any
) -> None:
    body = {"model": "m", "stream": True, "messages": MESSAGES}
    r = await client.post("/v1/chat/completions", json=body, headers=IN_BAND)
    assert r.status_code == 200
    events = sse(r.text)
    assert events[0][1]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    # The same object as the 400's, as the stream's last event: no [DONE], no answer.
    assert events[1:] == [(None, {"error": OPENAI_REFUSAL})]


async def test_responses_sends_an_error_event_after_in_progress(
    client: httpx.AsyncClient, sse: Any
) -> None:
    body = {"model": "m", "stream": True, "input": "hi"}
    r = await client.post("/v1/responses", json=body, headers=IN_BAND)
    assert r.status_code == 200
    events = sse(r.text)
    assert [name for name, _ in events] == ["response.created", "response.in_progress", "error"]
    # The nested form the service sends (openai-dotnet#881), numbered like every event.
    assert events[-1][1] == {"type": "error", "sequence_number": 2, "error": OPENAI_REFUSAL}


async def test_anthropic_sends_event_error_after_message_start(
    client: httpx.AsyncClient, sse: Any
) -> None:
    body = {"model": "m", "stream": True, "max_tokens": 5, "messages": MESSAGES}
    r = await client.post("/v1/messages", json=body, headers=IN_BAND)
    assert r.status_code == 200
    events = sse(r.text)
    assert [name for name, _ in events] == ["message_start", "ping", "error"]
    assert events[-1][1] == {"type": "error", "error": ANTHROPIC_REFUSAL}


async def test_gemini_sends_the_error_object_as_its_only_chunk(
    client: httpx.AsyncClient, sse: Any
) -> None:
    path = "/v1beta/models/g:streamGenerateContent?alt=sse"
    r = await client.post(path, json=GEMINI, headers=IN_BAND)
    assert r.status_code == 200
    assert sse(r.text) == [(None, {"error": GEMINI_REFUSAL})]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/chat", {"model": "m", "messages": MESSAGES}),
        ("/api/generate", {"model": "m", "prompt": "hi"}),
    ],
)
async def test_ollama_sends_the_error_line_alone(
    client: httpx.AsyncClient, path: str, body: dict[str, Any]
) -> None:
    # Ollama streams unless told otherwise: the refusal is the stream's one NDJSON line.
    r = await client.post(path, json=body, headers=IN_BAND)
    assert r.status_code == 200
    assert [json.loads(line) for line in r.text.splitlines()] == [{"error": OLLAMA_REFUSAL}]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/chat/completions", {"model": "m", "messages": MESSAGES}),
        ("/v1/responses", {"model": "m", "input": "hi"}),
        ("/v1/messages", {"model": "m", "max_tokens": 5, "messages": MESSAGES}),
        ("/v1beta/models/g:generateContent", GEMINI),
        ("/v1beta/models/g:streamGenerateContent", GEMINI),  # a JSON array, not a stream
        ("/api/chat", {"model": "m", "stream": False, "messages": MESSAGES}),
        ("/api/generate", {"model": "m", "stream": False, "prompt": "hi"}),
    ],
)
async def test_a_one_shot_request_gets_the_setup_refusal(
    client: httpx.AsyncClient, path: str, body: dict[str, Any]
) -> None:
    """Nothing to be in-band in: the same 400 ``unsupported_capability`` answers."""
    r = await client.post(path, json=body, headers=IN_BAND)
    setup = await client.post(path, json=body, headers=HEADERS)
    assert (r.status_code, r.json()) == (400, setup.json())


@pytest.mark.parametrize("path", ["/search", "/answer", "/json/answer"])
async def test_the_json_routes_refuse_the_in_band_form(
    client: httpx.AsyncClient, path: str
) -> None:
    r = await client.post(path, json={"query": "q", "stream": True}, headers=IN_BAND)
    assert r.status_code == 400
    assert "stream_unsupported_capability is rendered for the OpenAI" in r.json()["error"]


@pytest.mark.parametrize(
    ("dialect", "error"),
    [
        ("openai_chat", OPENAI_REFUSAL),
        ("openai_responses", OPENAI_REFUSAL),
        ("anthropic_messages", ANTHROPIC_REFUSAL),
        ("gemini", GEMINI_REFUSAL),
        ("ollama", OLLAMA_REFUSAL),
    ],
)
def test_core_types_each_in_band_refusal(dialect: str, error: Any) -> None:
    """Core's error chunk for each error object classifies as the kit's case expects.

    ``ProjectorBase.error_chunk`` is what every projector builds the chunk with, and
    ``classify_stream_error`` what ``Endpoint.stream_error`` returns: the in-stream twin of the
    capability family, naming the capability the 400's text names.
    """
    (chunk,) = ProjectorBase().error_chunk(error)
    exc = classify_stream_error(chunk.content, chunk.metadata)
    assert type(exc) is ProviderStreamCapabilityError, (dialect, type(exc), chunk.metadata)
    assert exc.capability == CAPABILITY_REFUSED[dialect]

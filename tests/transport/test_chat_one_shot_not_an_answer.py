"""A chat one-shot answered with a 2xx that holds no answer fails typed, on every chat row.

A 200 body of ``null``, ``[1, 2]``, ``"hello"`` or ``{}``, or a 204 with no body, completed
``invoke()`` with that value (or None) as the response, on the OpenAI chat row and every row
built on core's chat class, while the stream of the same content fails and the other dialects'
one-shot check (Anthropic, Responses, native Gemini) refuses a body that is no answer. Core's
chat dialect now refuses it (``OpenAIChatEndpoint.check_response``): a
``ProviderProtocolError`` naming the provider and endpoint and what was wrong, not retried.
Each body is served by a real loopback server through ``iModel``.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EventStatus, ProviderProtocolError, iModel

KEY = "sk-test-notananswer-0123456789abcdef"
MESSAGES = [{"role": "user", "content": "hi"}]

NOT_AN_ANSWER = {
    "null": (b"null", "(JSON null)"),
    "array": (b"[1, 2]", "(JSON array)"),
    "string": (b'"hello"', "(JSON string)"),
    "empty object": (b"{}", "(no 'choices' list)"),
    "choices an object": (b'{"choices": {"0": {}}}', "('choices' is JSON object, not a list)"),
    "choices null": (b'{"id": "c-1", "choices": null}', "(no 'choices' list)"),
    "a choice null": (b'{"choices": [null]}', "(choice 0 is JSON null, not an object)"),
}

# Every catalog row on core's chat class (OpenAI's own subclass included), and the explicit
# OpenAI-compatible fallback: (model, the provider name the message carries).
ROWS = {
    "openai": ("openai/gpt-4.1", "openai"),
    "compatible": (None, "somegateway"),
    "groq": ("groq/llama-3.3-70b", "groq"),
    "deepseek": ("deepseek/deepseek-chat", "deepseek"),
    "ollama": ("ollama/llama3", "ollama"),
    "gemini compatibility layer": ("gemini/gemini-2.5-flash", "gemini"),
    "openrouter": ("openrouter/some/model", "openrouter"),
    "perplexity": ("perplexity/sonar", "perplexity"),
    "nvidia nim": ("nvidia_nim/meta/llama", "nvidia_nim"),
}


def _model(row: str, base_url: str) -> iModel:
    model, _ = ROWS[row]
    if model is None:
        return iModel(
            provider="somegateway",
            endpoint="chat/completions",
            openai_compatible=True,
            base_url=base_url + "/v1",
            api_key=KEY,
            allow_local_network=True,
            request_defaults={"model": "m"},
        )
    key = {} if row == "ollama" else {"api_key": KEY}  # Ollama's row sends no credentials
    return iModel(model=model, base_url=base_url + "/v1", allow_local_network=True, **key)


async def _invoke(serve: Any, row: str, reply: list[Any]) -> tuple[Any, int]:
    server = await serve(lambda req: reply)
    async with _model(row, server.base_url) as model:
        call = await model.invoke(messages=MESSAGES, timeout=10)
    return call, len(server.requests)


def _assert_refused(call: Any, requests: int, row: str, says: str) -> None:
    assert call.status is EventStatus.FAILED, call.execution.response
    error = call.exception
    assert type(error) is ProviderProtocolError, repr(error)
    text = str(error)
    assert f"{ROWS[row][1]} chat/completions" in text  # names the provider and the endpoint
    assert "the answer is not a chat completion object" in text
    assert says in text
    assert KEY not in text
    assert call.execution.response is None
    assert requests == 1  # the server answered, with no answer: asking again is no cure


@pytest.mark.parametrize("row", ["openai", "compatible"])
@pytest.mark.parametrize("name", NOT_AN_ANSWER)
async def test_a_200_body_that_is_no_answer_fails_the_call(
    serve, wire, row: str, name: str
) -> None:
    body, says = NOT_AN_ANSWER[name]
    call, requests = await _invoke(serve, row, wire.full(200, body))
    _assert_refused(call, requests, row, says)


@pytest.mark.parametrize("row", ROWS)
async def test_an_empty_object_fails_on_every_chat_row(serve, wire, row: str) -> None:
    call, requests = await _invoke(serve, row, wire.full(200, b"{}"))
    _assert_refused(call, requests, row, "(no 'choices' list)")


@pytest.mark.parametrize("row", ROWS)
async def test_a_204_with_no_body_fails_on_every_chat_row(serve, wire, row: str) -> None:
    reply = [wire.head(204, content_type=None, chunked=False)]
    call, requests = await _invoke(serve, row, reply)
    _assert_refused(call, requests, row, "(HTTP 204 with no body)")

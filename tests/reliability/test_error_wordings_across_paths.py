"""Context-length and unsupported-model errors keep their family on every path (audit).

An over-long prompt and a model the provider does not serve are the caller's failures: never
retried, neutral for the circuit (``docs/errors.md``: ``ProviderContextError``,
``ProviderUnsupportedModelError``; ``docs/decisions.md``: "A content-filter refusal is the
caller's, like a context-length error"). Over HTTP each vendor's hook types them from the 4xx
body, but the same provider wording arriving as CLI output, an error chunk or a 2xx body went
through the shared text rules, which lacked it: a plain ``ProviderStreamError`` (or
``ProviderProcessError``) that ``except ProviderContextError`` / ``except
ProviderUnsupportedModelError`` missed, and that, on an HTTP endpoint (a 2xx body carrying the
error object, a relayed 4xx), counted against the circuit, so one caller's over-long prompts or
misspelled model opened it for everyone.

Every case runs the real path: a fake CLI (``replay``) printing the vendor's own event grammar
through the vendor's adapter, or a loopback server answering the vendor's endpoint. Sources of
the wording are named beside each payload.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.providers.codex import CodexCliEndpoint
from lionagi.providers.gemini_cli import GeminiCodeEndpoint
from lionagi.providers.pi import PiCliEndpoint
from lionagi.service import (
    CircuitPolicy,
    Endpoint,
    ProviderContextError,
    ProviderError,
    ProviderStreamContextError,
    ProviderStreamError,
    ProviderStreamUnsupportedModelError,
    ProviderUnsupportedModelError,
    classify_provider_error,
    classify_stream_error,
    iModel,
)
from lionagi.service_testing import scripted_stream_server
from lionagi.service_testing.conformance import replay_argv

# Anthropic's 400 when prompt + max_tokens do not fit, as Claude Code prints it
# (anthropics/claude-code#16580, #476, #228).
ANTHROPIC_CONTEXT = (
    "input length and `max_tokens` exceed context limit: 193125 + 21333 > 200000, decrease "
    "input length or `max_tokens` and try again"
)
CLAUDE_CONTEXT = (
    'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"'
    + ANTHROPIC_CONTEXT
    + '"}}'
)
# Claude Code's text for a model the API answers 404 for (anthropics/claude-code#68211, #50439).
CLAUDE_MODEL = (
    "There's an issue with the selected model (claude-fable-5). It may not exist or you may not "
    "have access to it. Run /model to pick a different model."
)
# OpenAI's documented 404 body for an unknown model, as codex relays a status error
# ("unexpected status <code> <reason>: <body>", codex-fake-401.stdout).
OPENAI_MODEL_BODY = (
    '{"error":{"message":"The model `gpt-9` does not exist or you do not have access to it.",'
    '"type":"invalid_request_error","param":null,"code":"model_not_found"}}'
)
CODEX_MODEL = f"unexpected status 404 Not Found: {OPENAI_MODEL_BODY}"
# Google's NOT_FOUND, as Gemini CLI quotes an API error (gemini-fake-401.stdout's shape).
GOOGLE_MODEL_BODY = {
    "error": {
        "code": 404,
        "message": "models/gemini-9 is not found for API version v1beta, or is not supported "
        "for generateContent. Call ListModels to see the list of available models.",
        "status": "NOT_FOUND",
    }
}
GEMINI_MODEL = f"[API Error: {json.dumps(GOOGLE_MODEL_BODY)}]"

SID = "11111111-1111-1111-1111-111111111111"


def _claude(text: str, error: str, status: int) -> list[dict[str, Any]]:
    """A failed claude run: the synthetic assistant error, then the ``is_error`` result."""
    return [
        {"type": "system", "subtype": "init", "session_id": SID, "model": "claude-sonnet-4-6"},
        {
            "type": "assistant",
            "session_id": SID,
            "parent_tool_use_id": None,
            "error": error,
            "message": {
                "role": "assistant",
                "model": "<synthetic>",
                "content": [{"type": "text", "text": text}],
            },
        },
        {
            "type": "result",
            "subtype": "success",
            "is_error": True,
            "api_error_status": status,
            "result": text,
            "session_id": SID,
        },
    ]


def _codex(text: str) -> list[dict[str, Any]]:
    return [
        {"type": "thread.started", "thread_id": "t1"},
        {"type": "turn.started"},
        {"type": "error", "message": text},
        {"type": "turn.failed", "error": {"message": text}},
    ]


def _pi(text: str) -> list[dict[str, Any]]:
    """pi exits 0 on a provider failure: the assistant message's ``errorMessage`` says it."""
    message = {
        "role": "assistant",
        "content": [],
        "provider": "fake",
        "model": "fake-model",
        "stopReason": "error",
        "errorMessage": text,
    }
    return [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "t", "cwd": "/"},
        {"type": "agent_start"},
        {"type": "turn_start"},
        {"type": "message_start", "message": message},
        {"type": "message_end", "message": message},
        {"type": "agent_end", "messages": [message]},
    ]


def _gemini(text: str) -> list[dict[str, Any]]:
    return [
        {"type": "init", "timestamp": "t", "session_id": "s", "model": "gemini-9"},
        {
            "type": "result",
            "timestamp": "t",
            "status": "error",
            "error": {"type": "unknown", "message": text},
            "stats": {},
        },
    ]


ENDPOINTS: dict[str, type[Endpoint]] = {
    "claude": ClaudeCodeEndpoint,
    "codex": CodexCliEndpoint,
    "pi": PiCliEndpoint,
    "gemini": GeminiCodeEndpoint,
}

CLI_CASES = [
    pytest.param(
        "claude",
        _claude(CLAUDE_CONTEXT, "invalid_request", 400),
        "",
        1,
        ProviderStreamContextError,
        id="claude-exceed-context-limit",
    ),
    pytest.param(
        "claude",
        _claude(CLAUDE_MODEL, "invalid_request", 404),
        "",
        1,
        ProviderStreamUnsupportedModelError,
        id="claude-selected-model",
    ),
    pytest.param(
        "codex", _codex(CODEX_MODEL), "", 1, ProviderStreamUnsupportedModelError, id="codex-404"
    ),
    pytest.param(
        "pi",
        _pi(f"400 {ANTHROPIC_CONTEXT}"),
        "",
        0,
        ProviderStreamContextError,
        id="pi-exceed-context-limit",
    ),
    pytest.param(
        "pi",
        _pi("404 The model `gpt-9` does not exist or you do not have access to it."),
        "",
        0,
        ProviderStreamUnsupportedModelError,
        id="pi-openai-404",
    ),
    # Ollama's 404 for a model not pulled (its API's documented error body).
    pytest.param(
        "pi",
        _pi('404 model "llama9" not found, try pulling it first'),
        "",
        0,
        ProviderStreamUnsupportedModelError,
        id="pi-ollama-404",
    ),
    pytest.param(
        "gemini",
        _gemini(GEMINI_MODEL),
        "",
        1,
        ProviderStreamUnsupportedModelError,
        id="gemini-result-not-found",
    ),
    # Before the first event: only stderr and the exit code (404 % 256).
    pytest.param(
        "gemini",
        [],
        f"Error when talking to Gemini API _ApiError: {json.dumps(GOOGLE_MODEL_BODY)}",
        148,
        ProviderUnsupportedModelError,
        id="gemini-stderr-exit-148",
    ),
]


@pytest.mark.parametrize(("vendor", "events", "stderr", "code", "expected"), CLI_CASES)
async def test_cli_failure_keeps_its_family(
    tmp_path: Path,
    vendor: str,
    events: list[dict[str, Any]],
    stderr: str,
    code: int,
    expected: type[ProviderError],
) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": events, "stderr": stderr, "exit_code": code}))
    async with iModel(endpoint=ENDPOINTS[vendor](argv=replay_argv(plan))) as model:
        call = await model.invoke(prompt="hi")
    error = call.exception
    assert type(error) is expected, repr(error)
    # The family a caller catches, whichever way the failure arrived.
    family = (
        ProviderContextError
        if issubclass(expected, ProviderContextError)
        else ProviderUnsupportedModelError
    )
    assert isinstance(error, family)
    assert not error.retryable


async def _invoke_http(
    provider: str, status: int, body: dict[str, Any], path: str
) -> tuple[list[BaseException | None], str]:
    """Two invokes of ``provider`` against a loopback server answering ``status``/``body``."""
    payload = json.dumps(body).encode()
    errors: list[BaseException | None] = []
    async with (
        scripted_stream_server(
            [payload], status=status, content_type="application/json", path=path
        ) as server,
        iModel(
            provider=provider,
            endpoint="chat",
            base_url=server.url,
            api_key="sk-audit-errors-0123456789",
            allow_local_network=True,
            circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=60),
        ) as model,
    ):
        for _ in range(2):
            call = await model.invoke(
                model="m", messages=[{"role": "user", "content": "x"}], max_tokens=8
            )
            errors.append(call.exception)
        assert model.circuit_breaker is not None
        state = model.circuit_breaker.state.value
    return errors, state


# Anthropic's error object in a 2xx body (a gateway answering errors with a 200, which
# ``checked_message`` classifies like the stream's ``event: error``): the HTTP 400 with the
# same object was already a context error through the Anthropic hook.
async def test_anthropic_context_error_object_in_a_2xx_body_is_a_context_error() -> None:
    body = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": ANTHROPIC_CONTEXT},
    }
    errors, state = await _invoke_http("anthropic", 200, body, "/v1")
    assert [type(e) for e in errors] == [ProviderStreamContextError] * 2, errors
    assert state == "closed"


# OpenRouter relaying the Anthropic wording in its own error shape (``code`` a number): the
# generic 4xx mapping reads the body with the shared context rule.
async def test_relayed_anthropic_context_400_is_a_status_context_error() -> None:
    body = {"error": {"code": 400, "message": ANTHROPIC_CONTEXT}}
    errors, state = await _invoke_http("openrouter", 400, body, "/api/v1")
    assert all(isinstance(e, ProviderContextError) for e in errors), errors
    assert state == "closed"


# OpenAI's edge (and compatible gateways) may answer a failure with a 200 whose body is the
# error object; ``model_not_found`` is the same refusal as the 404 the dialect already types.
async def test_openai_model_not_found_error_object_in_a_2xx_body() -> None:
    body = json.loads(OPENAI_MODEL_BODY)
    errors, state = await _invoke_http("openai", 200, body, "/v1")
    assert [type(e) for e in errors] == [ProviderStreamUnsupportedModelError] * 2, errors
    assert state == "closed"


# The new rules are narrow: whole codes only, and text that only resembles them stays
# unclassified (a plain error the circuit counts, as before).
@pytest.mark.parametrize(
    "text",
    [
        "error code: model_not_found_fallback",
        '{"code": "model_not_found_handler"}',
        "the context limit for this account is 200000 tokens",
        "model list not found",
    ],
)
def test_resembling_text_is_not_classified(text: str) -> None:
    assert type(classify_provider_error(text)) is ProviderError
    assert type(classify_stream_error(text)) is ProviderStreamError


def test_model_not_found_code_alone_in_chunk_metadata() -> None:
    error = classify_stream_error("request refused", {"code": "model_not_found", "status": 404})
    assert isinstance(error, ProviderStreamUnsupportedModelError)
    assert error.kind == "unsupported_model"


# One fixture per added alternative, each text matching that alternative alone.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (ANTHROPIC_CONTEXT, ProviderContextError),
        # vLLM's overflow text relayed by an OpenAI-compatible gateway
        # (Alishahryar1/free-claude-code#263, fuergaosi233/claude-code-proxy#60).
        (
            "The input (345516 tokens) is longer than the model's context length (262144 "
            "tokens). (request_id=req_123)",
            ProviderContextError,
        ),
        ("model_not_found", ProviderUnsupportedModelError),
        # An SDK-based agent's exception text (openai-python's repr of the 404 body).
        (
            "Error code: 404 - {'error': {'message': 'no such model', 'type': "
            "'invalid_request_error', 'param': None, 'code': 'model_not_found'}}",
            ProviderUnsupportedModelError,
        ),
        (
            "The model `gpt-9` does not exist or you do not have access to it.",
            ProviderUnsupportedModelError,
        ),
        (CLAUDE_MODEL, ProviderUnsupportedModelError),
        (GOOGLE_MODEL_BODY["error"]["message"], ProviderUnsupportedModelError),
        ('model "llama9" not found, try pulling it first', ProviderUnsupportedModelError),
        # Anthropic's newer not_found_error message (anthropics/claude-code#46019 error log).
        ("model 'claude-haiku-4-5-20251001' not found", ProviderUnsupportedModelError),
    ],
)
def test_each_added_wording_classifies(text: str, expected: type[ProviderError]) -> None:
    error = classify_provider_error(text, provider="cli")
    assert type(error) is expected
    assert not error.retryable


# Ollama's 400 for an input over the model's context (ollama's embed/chat with truncation off;
# nano-step/nano-brain#208, n8n-io/n8n#11144). Its native route typed it already; the
# OpenAI-compatible routes (``/v1/chat/completions``, ``/v1/embeddings``) left a plain 4xx.
@pytest.mark.parametrize(
    "message",
    ["the input length exceeds the context length", "input length exceeds maximum context length"],
)
@pytest.mark.parametrize(
    ("endpoint", "request_body"),
    [
        ("chat", {"model": "m", "messages": [{"role": "user", "content": "x"}]}),
        ("embeddings", {"model": "m", "input": ["x"]}),
    ],
)
async def test_ollama_compatible_context_400_is_a_context_error(
    message: str, endpoint: str, request_body: dict[str, Any]
) -> None:
    payload = json.dumps({"error": message}).encode()
    async with (
        scripted_stream_server([payload], status=400, content_type="application/json") as server,
        iModel(
            provider="ollama", endpoint=endpoint, base_url=server.url, allow_local_network=True
        ) as model,
    ):
        call = await model.invoke(**request_body)
    assert isinstance(call.exception, ProviderContextError), repr(call.exception)
    assert server.requests == 1

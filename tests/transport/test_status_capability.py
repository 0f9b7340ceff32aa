"""A request for a capability the model lacks is ``ProviderCapabilityError`` however it arrives.

Providers answer "this model cannot do tools / thinking / vision" with a plain 4xx whose text says
so (Ollama's 400 ``"llama3" does not support tools``, Anthropic's ``'claude-3-5-haiku-20241022'
does not support thinking.``, DeepSeek's ``deepseek-reasoner does not support Function Calling``,
Gemini's ``Function calling is not enabled for models/gemma-3-12b-it``, OpenRouter's 404 ``No
endpoints found that support tool use``). It was a plain ``ProviderClientError``: a caller could
not tell "pick another model, or drop the tools" from any other refused request. The generic
status mapping now reads the body with the rule the stream and CLI classification use, so every
HTTP endpoint gets ``ProviderStatusCapabilityError`` (a ``ProviderClientError`` and a
``ProviderCapabilityError`` with ``capability``), an error chunk
``ProviderStreamCapabilityError``, a CLI's text ``ProviderCapabilityError``. A refused parameter
or value stays a plain client error; a narrower family the same body names keeps its type.
Real loopback server (``serve``) for the end-to-end cases.

The new classes are imported inside the tests, so the behaviour tests still run (and fail on
their assertions) against a core that lacks them.
"""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import httpx
import pytest

from lionagi.service import (
    AttemptPolicy,
    CircuitPolicy,
    EventStatus,
    ProviderClientError,
    ProviderContentFilterError,
    ProviderContextError,
    ProviderQuotaExhaustedError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderStatusError,
    ProviderUnauthorizedError,
    classify_provider_error,
    classify_stream_error,
    iModel,
)
from lionagi.service._transport.http.status import status_error
from lionagi.service.http import OpenAIChatEndpoint

WHERE = "https://api.example/v1/chat/completions"

# (body text, the capability it names); each wording is the provider's own, cited.
REFUSALS = [
    # Ollama's native API (server/routes.go: the quoted name, or scheduleRunner's full name).
    pytest.param('{"error":"\\"llama3\\" does not support tools"}', "tools", id="ollama-tools"),
    pytest.param(
        '{"error":"registry.ollama.ai/library/gemma3:4b does not support tools"}',
        "tools",
        id="ollama-full-name",
    ),
    pytest.param(
        '{"error":"\\"qwen2\\" does not support thinking"}', "thinking", id="ollama-thinking"
    ),
    pytest.param(
        '{"error":"registry.ollama.ai/library/test:latest does not support insert"}',
        "insert",
        id="ollama-insert",
    ),
    pytest.param('{"error":"\\"bert\\" does not support chat"}', "completion", id="ollama-chat"),
    pytest.param(
        '{"error":"\\"bert\\" does not support generate"}', "completion", id="ollama-generate"
    ),
    pytest.param('{"error":"x does not support vision"}', "vision", id="ollama-vision"),
    # Ollama's /v1 error object (openai.NewError: invalid_request_error; older servers api_error).
    pytest.param(
        json.dumps(
            {
                "error": {
                    "message": "llama3 does not support tools",
                    "type": "api_error",
                    "param": None,
                    "code": None,
                }
            }
        ),
        "tools",
        id="ollama-v1",
    ),
    pytest.param(
        '{"error":"this model does not support image input"}', "vision", id="ollama-cloud-image"
    ),
    # Anthropic.
    pytest.param(
        json.dumps(
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "'claude-3-5-haiku-20241022' does not support thinking.",
                },
            }
        ),
        "thinking",
        id="anthropic-thinking",
    ),
    # DeepSeek.
    pytest.param(
        json.dumps(
            {
                "error": {
                    "message": "deepseek-reasoner does not support Function Calling",
                    "type": "invalid_request_error",
                    "param": None,
                    "code": "invalid_request_error",
                }
            }
        ),
        "tools",
        id="deepseek",
    ),
    # Gemini (google.rpc.Status).
    pytest.param(
        json.dumps(
            {
                "error": {
                    "code": 400,
                    "message": "Function calling is not enabled for models/gemma-3-12b-it",
                    "status": "INVALID_ARGUMENT",
                }
            }
        ),
        "tools",
        id="gemini-tools",
    ),
    pytest.param(
        '{"error":{"code":400,"message":"Developer instruction is not enabled for '
        'models/gemma-3-27b-it","status":"INVALID_ARGUMENT"}}',
        "system_instruction",
        id="gemini-system",
    ),
    pytest.param(
        '{"error":{"code":400,"message":"Json mode is not enabled for models/gemini-pro",'
        '"status":"INVALID_ARGUMENT"}}',
        "json_mode",
        id="gemini-json",
    ),
    # OpenAI, for an image sent to a text-only model.
    pytest.param(
        json.dumps(
            {
                "error": {
                    "message": "Invalid content type. image_url is only supported by certain "
                    "models.",
                    "type": "invalid_request_error",
                    "param": "messages.[1].content.[0].type",
                    "code": None,
                }
            }
        ),
        "vision",
        id="openai-image",
    ),
]

# Refusals of a parameter, a value or an option mix: the request's to fix, not the model's.
NOT_CAPABILITIES = [
    pytest.param(
        json.dumps(
            {
                "error": {
                    "message": "Unsupported parameter: 'tools' is not supported with this model.",
                    "type": "invalid_request_error",
                    "param": "tools",
                    "code": "unsupported_parameter",
                }
            }
        ),
        id="openai-unsupported-parameter",
    ),
    pytest.param('{"error":"model does not support parameter \'temperature\'"}', id="parameter"),
    pytest.param(
        json.dumps(
            {
                "error": {
                    "message": "Unsupported value: 'messages[0].role' does not support 'system' "
                    "with this model.",
                    "type": "invalid_request_error",
                }
            }
        ),
        id="openai-unsupported-value",
    ),
    pytest.param(
        '{"error":"raw mode does not support template, system, or context"}', id="ollama-raw"
    ),
    pytest.param('{"error":"this server does not support tool_choice"}', id="tool-choice"),
    pytest.param(
        '{"error":{"message":"No endpoints found that support the provided \'tool_choice\' '
        'value.","code":404}}',
        id="openrouter-tool-choice",
    ),
    pytest.param(
        json.dumps(
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": '"thinking.type.enabled" is not supported for this model. Use '
                    '"thinking.type.adaptive" and "output_config.effort" to control thinking '
                    "behavior.",
                },
            }
        ),
        id="anthropic-thinking-shape",
    ),
]


def _response(status: int, body: str) -> tuple[httpx.Response, bytes]:
    request = httpx.Request("POST", WHERE)
    raw = body.encode()
    return httpx.Response(status, content=raw, request=request), raw


def _config(base_url: str, secret: str) -> dict[str, Any]:
    return {
        "name": "chat",
        "provider": "capabilitytest",
        "endpoint": "chat/completions",
        "base_url": base_url + "/v1",
        "api_key": secret,
        "allow_local_network": True,
        "timeout": 10.0,
    }


def _policy(**overrides: Any) -> AttemptPolicy:
    settings: dict[str, Any] = {
        "max_attempts": 3,
        "base_delay": 0.001,
        "max_delay": 0.01,
        "jitter_factor": 0,
    }
    return AttemptPolicy(**{**settings, **overrides})


@pytest.mark.parametrize(("body", "capability"), REFUSALS)
@pytest.mark.parametrize("status", [400, 404, 422])
def test_the_generic_mapping_names_the_capability(body: str, capability: str, status: int) -> None:
    from lionagi.service import ProviderCapabilityError, ProviderStatusCapabilityError

    response, raw = _response(status, body)
    error = status_error(response, raw)
    assert type(error) is ProviderStatusCapabilityError
    assert isinstance(error, ProviderCapabilityError)
    assert isinstance(error, ProviderClientError)  # still a refused request, status and all
    assert error.status == status
    assert error.body_excerpt == body
    assert error.capability == capability
    assert error.retryable is False
    assert f"({capability})" in str(error)
    assert "not retried" in str(error)


def test_several_missing_capabilities_name_the_first() -> None:
    # Ollama joins them, one per line after the first ("does not support insert\ntools").
    body = json.dumps(
        {"error": "registry.ollama.ai/library/x:latest does not support insert\ntools"}
    )
    response, raw = _response(400, body)
    error = status_error(response, raw)
    assert getattr(error, "capability", None) == "insert"


@pytest.mark.parametrize("body", NOT_CAPABILITIES)
def test_a_refused_parameter_stays_a_plain_client_error(body: str) -> None:
    response, raw = _response(400, body)
    assert type(status_error(response, raw)) is ProviderClientError


@pytest.mark.parametrize(
    ("status", "extra", "expected"),
    [
        # The status decides these, whatever the text says.
        pytest.param(401, "", ProviderUnauthorizedError, id="401"),
        pytest.param(403, "", ProviderUnauthorizedError, id="403"),
        pytest.param(429, "", ProviderRateLimitError, id="429"),
        pytest.param(500, "", ProviderServerError, id="500"),
        # A narrower family in the same body wins.
        pytest.param(400, " maximum context length is 8192", ProviderContextError, id="context"),
        pytest.param(
            400, " rejected as a result of our safety system", ProviderContentFilterError, id="cf"
        ),
        pytest.param(400, " insufficient_quota", ProviderQuotaExhaustedError, id="quota"),
    ],
)
def test_narrower_families_and_statuses_win(
    status: int, extra: str, expected: type[BaseException]
) -> None:
    from lionagi.service import ProviderCapabilityError

    body = json.dumps({"error": f'"llama3" does not support tools;{extra}'})
    response, raw = _response(status, body)
    error = status_error(response, raw)
    assert isinstance(error, expected)
    assert not isinstance(error, ProviderCapabilityError)


def test_an_error_chunk_is_the_stream_twin() -> None:
    from lionagi.service import ProviderCapabilityError, ProviderStreamCapabilityError

    # Ollama's /v1 error object carried in a stream, typed api_error: the text says more than
    # the code (which alone would read as a retried server fault).
    error = classify_stream_error(
        "llama3 does not support tools", {"type": "api_error", "status": 400}, provider="ollama"
    )
    assert type(error) is ProviderStreamCapabilityError
    assert isinstance(error, ProviderCapabilityError)
    assert error.capability == "tools"
    assert error.kind == "capability"
    assert error.status == 400
    assert error.retryable is False


def test_a_cli_text_is_the_family_with_its_capability() -> None:
    from lionagi.service import ProviderCapabilityError

    # Claude Code relays the API's body on stderr/its result when a model cannot think.
    text = (
        'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":'
        "\"'claude-3-5-haiku-20241022' does not support thinking.\"}}"
    )
    error = classify_provider_error(text, returncode=1, provider="claude")
    assert type(error) is ProviderCapabilityError
    assert error.capability == "thinking"
    assert error.returncode == 1


def test_a_vendor_pattern_naming_the_family_gets_the_capability_too() -> None:
    from lionagi.service import ProviderCapabilityError
    from lionagi.service.agentic import ProviderErrorPattern

    class VendorCapabilityError(ProviderCapabilityError):
        pass

    rule = ProviderErrorPattern("vendor", VendorCapabilityError, r"E_NOCAP")
    error = classify_provider_error(
        "E_NOCAP: model does not support vision", extra_patterns=(rule,)
    )
    assert type(error) is VendorCapabilityError
    assert error.capability == "vision"


@pytest.mark.parametrize("clone", [lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy])
def test_every_form_round_trips_with_its_capability(clone: Any) -> None:
    from lionagi.service import (
        ProviderCapabilityError,
        ProviderStatusCapabilityError,
        ProviderStreamCapabilityError,
    )

    errors: list[Any] = [
        ProviderCapabilityError("no tools", raw="r", stderr_tail="t", capability="tools"),
        ProviderStatusCapabilityError(
            "no thinking", status=400, body_excerpt="b", capability="thinking"
        ),
        ProviderStreamCapabilityError(
            "no vision", status=400, code="c", provider="p", kind="capability", capability="vision"
        ),
    ]
    for error in errors:
        back = clone(error)
        assert type(back) is type(error)
        assert str(back) == str(error)
        assert back.args == error.args
        assert vars(back) == vars(error)
        assert back.capability == error.capability


async def test_invoke_and_stream_raise_it_once_and_leave_the_circuit_closed(
    serve, wire, secret
) -> None:
    from lionagi.service import ProviderCapabilityError, ProviderStatusCapabilityError

    leaky = {
        "error": {
            "message": f"llama3 does not support tools (key {secret})",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    }
    server = await serve(lambda req: wire.full(400, json.dumps(leaky)))
    # A caller that retries 400 for reasons of its own still never resends it.
    policy = _policy(retry_statuses=frozenset({400, 429}))
    circuit = CircuitPolicy(failure_threshold=1, recovery_time=60)
    endpoint = OpenAIChatEndpoint(_config(server.base_url, secret))
    async with iModel(endpoint=endpoint, attempt_policy=policy, circuit_policy=circuit) as model:
        caught: list[Any] = []
        for _ in range(2):
            event = await model.invoke(messages=[{"role": "user", "content": "hi"}])
            assert event.status == EventStatus.FAILED
            caught.append(event.exception)
        with pytest.raises(ProviderCapabilityError) as raised:
            async for _ in model.stream(messages=[{"role": "user", "content": "hi"}]):
                pass
        caught.append(raised.value)
        assert model.circuit_breaker is not None
        state = model.circuit_breaker.state.value
    for error in caught:
        assert type(error) is ProviderStatusCapabilityError
        assert isinstance(error, ProviderStatusError)
        assert error.status == 400
        assert error.capability == "tools"
        assert secret not in str(error) and secret not in error.body_excerpt
    assert len(server.requests) == 3  # one per call: never retried, never refused by the circuit
    assert state == "closed"

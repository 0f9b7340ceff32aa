"""A content-filter refusal is the caller's content, not the provider's health.

Over HTTP a content-policy 400 is a ``ProviderClientError``: neutral for the circuit, never
retried. The same refusal arriving another way (an error chunk in a stream, a 200 body carrying
the error object, a CLI's error text) was a plain ``ProviderStreamError`` / ``ProviderError`` and
counted as a circuit failure, so a burst of users sending blocked prompts opened the circuit for
every other caller. The payloads below are what providers send (each names its source).

The new classes are imported inside the tests that need them, so the behaviour tests still run
(and fail on their assertions) against a core that lacks them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import lionagi.service as service
from lionagi.service import (
    AttemptPolicy,
    CircuitPolicy,
    EventStatus,
    ProviderStreamError,
    ProviderStreamServerError,
    classify_provider_error,
    classify_stream_error,
    iModel,
)
from lionagi.service._lifecycle.retry import counts_as_circuit_failure, is_retryable
from lionagi.service_testing import scripted_stream_server

# Azure OpenAI's filtered-prompt error object (openai/openai-python#331, openai-dotnet#55).
AZURE_MESSAGE = (
    "The response was filtered due to the prompt triggering Azure OpenAI's content management "
    "policy. Please modify your prompt and retry. To learn more about our content filtering "
    "policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766"
)
AZURE_ERROR = {
    "message": AZURE_MESSAGE,
    "type": None,
    "param": "prompt",
    "code": "content_filter",
    "status": 400,
    "innererror": {"code": "ResponsibleAIPolicyViolation"},
}
# OpenAI's code for a prompt its safety system refused (songquanpeng/one-api#737); OpenRouter
# sends the same code with a 403.
OPENAI_MESSAGE = (
    "Your request was rejected as a result of our safety system. Your prompt may contain text "
    "that is not allowed by our safety system."
)

# (message, metadata) of error chunks that report a content-filter refusal.
REFUSALS = [
    pytest.param(AZURE_MESSAGE, {"code": "content_filter", "status": 400}, id="azure-code"),
    pytest.param("request refused", {"code": "content_filter"}, id="azure-code-alone"),
    pytest.param(
        "request refused",
        {"code": "content_policy_violation", "type": "invalid_request_error"},
        id="openai-code",
    ),
    pytest.param("request refused", {"code": "content_policy_violation", "status": 403}, id="or"),
    pytest.param(OPENAI_MESSAGE, {"type": "invalid_request_error"}, id="openai-text"),
    # A gateway relaying Azure's body inside its own message (Oaklight/argo-proxy#91).
    pytest.param(
        "Error code: 400 - {'error': {'message': 'The response was filtered...', 'code': "
        "'content_filter', 'innererror': {'code': 'ResponsibleAIPolicyViolation'}}}",
        {},
        id="relayed-azure",
    ),
    # A CLI printing the refused response's body: the code as a JSON value, or in a Python
    # dict's repr (an SDK-based gateway's message), with a message of the gateway's own.
    pytest.param(
        'unexpected status 400: {"error": {"message": "refused", "code": "content_filter"}}',
        {},
        id="json-code-in-text",
    ),
    pytest.param(
        "Error code: 403 - {'error': {'message': 'nope', 'code': 'content_policy_violation'}}",
        {},
        id="repr-code-in-text",
    ),
    # Anthropic's filtered output, as Claude Code relays it (anthropics/claude-code#17389).
    pytest.param(
        "Output blocked by content filtering policy",
        {"type": "invalid_request_error"},
        id="anthropic",
    ),
]


@pytest.mark.parametrize(("message", "metadata"), REFUSALS)
def test_a_content_filter_error_chunk_is_neutral_for_the_circuit_and_never_retried(
    message: str, metadata: dict[str, Any]
) -> None:
    error = classify_stream_error(message, metadata, provider="p")
    assert counts_as_circuit_failure(error, AttemptPolicy()) is False
    assert not is_retryable(error, AttemptPolicy())
    assert error.kind == "content_filter"


@pytest.mark.parametrize(("message", "metadata"), REFUSALS)
def test_a_content_filter_error_chunk_is_caught_by_its_family(
    message: str, metadata: dict[str, Any]
) -> None:
    from lionagi.service import ProviderContentFilterError, ProviderStreamContentFilterError

    error = classify_stream_error(message, metadata, provider="p")
    assert type(error) is ProviderStreamContentFilterError
    assert isinstance(error, ProviderContentFilterError)
    assert isinstance(error, ProviderStreamError)
    assert error.provider == "p"


def test_a_cli_printing_a_content_policy_refusal_is_neutral_for_the_circuit() -> None:
    error = classify_provider_error(OPENAI_MESSAGE, returncode=1, provider="cli")
    assert counts_as_circuit_failure(error, AttemptPolicy()) is False
    assert not is_retryable(error, AttemptPolicy())
    assert error.returncode == 1
    assert isinstance(error, service.ProviderContentFilterError)


@pytest.mark.parametrize(
    ("message", "metadata"),
    [
        # The word alone, in ordinary errors, is not a refusal.
        ("Unrecognized request argument supplied: content_filter", {"code": "invalid_request"}),
        ("content_filter_results could not be computed", {"status": 500}),
        ("the content filter service is unavailable", {"code": "content_filter_error"}),
        ("Invalid value for safety_settings", {"code": "SAFETY"}),
        # The codes as other keys' values, or inside a longer code, name no refusal.
        ('{"error": {"param": "content_filter", "code": "invalid_value"}}', {}),
        ('{"error": {"code": "content_filter_error"}}', {"status": 500}),
        ("upstream failed", {"status": 500}),
    ],
)
def test_ordinary_errors_are_not_content_filter_refusals(
    message: str, metadata: dict[str, Any]
) -> None:
    error = classify_stream_error(message, metadata)
    assert error.kind != "content_filter"
    assert not isinstance(error, service.ProviderContentFilterError)


def test_the_secret_is_never_echoed_by_a_content_filter_error() -> None:
    key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123"
    error = classify_stream_error(
        f"{AZURE_MESSAGE} (key {key})", {"code": "content_filter"}, secrets=(key,)
    )
    assert isinstance(error, service.ProviderContentFilterError)
    for text in (str(error), error.raw, error.code or ""):
        assert key not in text


def _sse(event: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(event).encode() + b"\n\n"


async def _stream_twice(writes: list[bytes]) -> tuple[list[BaseException], int, str]:
    """Two streams through one model whose circuit opens on the first counted failure."""
    errors: list[BaseException] = []
    async with scripted_stream_server(writes) as server:
        async with iModel(
            provider="somegateway",
            endpoint="chat/completions",
            openai_compatible=True,
            base_url=server.url,
            api_key="sk-gateway-filter-0123456789",
            allow_local_network=True,
            circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=60),
        ) as model:
            for _ in range(2):
                try:
                    async for _chunk in model.stream(
                        model="m", messages=[{"role": "user", "content": "x"}]
                    ):
                        pass
                except Exception as exc:
                    errors.append(exc)
            assert model.circuit_breaker is not None
            state = model.circuit_breaker.state.value
        return errors, server.requests, state


# The supervisor used to settle the circuit for an HTTP stream's error chunk before classifying
# it (``OpenedStream.failed()`` with no exception records a failure whatever the chunk says), so
# every caller-caused family counted on this path while the same error over invoke() did not.
async def test_blocked_prompts_in_a_stream_leave_the_circuit_closed_for_other_callers() -> None:
    errors, requests, state = await _stream_twice([_sse({"error": AZURE_ERROR})])
    assert [type(e).__name__ for e in errors] == ["ProviderStreamContentFilterError"] * 2
    assert requests == 2  # the second caller reached the provider: no CircuitOpenError
    assert state == "closed"


async def test_a_context_length_chunk_in_a_stream_leaves_the_circuit_closed() -> None:
    # The same gap for a family that predates the content filter: a 400 context error is
    # neutral over HTTP, and so must its in-stream twin be.
    error = {
        "message": "This model's maximum context length is 8192 tokens.",
        "type": "invalid_request_error",
        "code": "context_length_exceeded",
    }
    errors, requests, state = await _stream_twice([_sse({"error": error})])
    assert [type(e).__name__ for e in errors] == ["ProviderStreamContextError"] * 2
    assert requests == 2
    assert state == "closed"


async def test_a_provider_failure_in_a_stream_still_opens_the_circuit() -> None:
    # The control: a provider's own failure in a stream (an in-band server fault) counts, so
    # the neutral verdict above is the content filter's, not the stream path's.
    errors, requests, state = await _stream_twice(
        [_sse({"error": {"message": "upstream failed", "type": "server_error", "code": 500}})]
    )
    assert type(errors[0]) is ProviderStreamServerError
    assert type(errors[1]).__name__ == "CircuitOpenError"
    assert requests == 1
    assert state == "open"


async def test_a_200_content_filter_body_is_neutral_for_the_circuit_on_invoke() -> None:
    raw = json.dumps({"error": AZURE_ERROR}).encode()
    async with scripted_stream_server([raw], content_type="application/json") as server:
        async with iModel(
            provider="somegateway",
            endpoint="chat/completions",
            openai_compatible=True,
            base_url=server.url,
            api_key="sk-gateway-filter-0123456789",
            allow_local_network=True,
            circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=60),
        ) as model:
            calls = [
                await model.invoke(model="m", messages=[{"role": "user", "content": "x"}])
                for _ in range(2)
            ]
            assert model.circuit_breaker is not None
            state = model.circuit_breaker.state.value
        requests = server.requests
    assert [c.status for c in calls] == [EventStatus.FAILED] * 2
    assert requests == 2  # neither retried nor refused by an open circuit
    assert state == "closed"
    assert all(isinstance(c.exception, service.ProviderContentFilterError) for c in calls)


def test_a_caller_caused_4xx_stays_neutral_when_its_status_is_retried() -> None:
    # A caller may retry 403 or 400 for reasons of their own (a flaky gateway); a refused prompt
    # or an over-long one at that status is still never retried, so counting it against the
    # provider opened the circuit on errors no retry could change.
    from lionagi.service import (
        ProviderClientError,
        ProviderStatusContentFilterError,
        ProviderStatusContextError,
    )

    policy = AttemptPolicy(retry_statuses=frozenset({400, 403, 429}))
    for refused in (
        ProviderStatusContentFilterError("blocked", status=403, body_excerpt=""),
        ProviderStatusContextError("too long", status=400, body_excerpt=""),
    ):
        assert is_retryable(refused, policy) is False, type(refused).__name__
        assert counts_as_circuit_failure(refused, policy) is False, type(refused).__name__
    # A plain client error at a retried status still counts, as the policy asks.
    assert counts_as_circuit_failure(
        ProviderClientError("flaky", status=403, body_excerpt=""), policy
    )

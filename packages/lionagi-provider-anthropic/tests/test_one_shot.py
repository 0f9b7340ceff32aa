"""One-shot answers through ``iModel.invoke()``: what a 2xx body says is what the call says.

Bodies the fake server has no scenario for (an error object answered with a 200, a message cut
by ``max_tokens`` inside a tool call, a refusal) come from a loopback server that writes them
as given; the headers a one-shot call sends are checked against the fake server.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderProtocolError,
    ProviderStreamCapacityError,
    ProviderStreamError,
    ProviderStreamInvalidRequestError,
    iModel,
)
from lionagi.service_testing import FakeProviderServer, scripted_stream_server

KEY = "sk-ant-test-FAKEkey0123456789abcdef"
# Three quick attempts: a retryable failure shows as three requests, a final one as one.
FAST = AttemptPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0)
HI = [{"role": "user", "content": "hi"}]
USAGE = {
    "input_tokens": 12,
    "output_tokens": 64,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 5,
}


def message(stop_reason: str, content: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": USAGE,
        **extra,
    }


async def invoke(body: Any, **request: Any) -> tuple[Any, int]:
    """``iModel.invoke`` against a server answering ``body`` (JSON) with a 200."""
    raw = json.dumps(body).encode()
    async with scripted_stream_server([raw], content_type="application/json") as server:
        model = iModel(
            model="anthropic/claude-x",
            api_key=KEY,
            base_url=server.url,
            allow_local_network=True,
            attempt_policy=FAST,
        )
        async with model:
            call = await model.invoke(messages=HI, **request)
        return call, server.requests


async def test_an_error_body_with_a_200_fails_the_call_typed() -> None:
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    call, requests = await invoke(body)
    assert call.status is EventStatus.FAILED
    error = call.exception
    assert isinstance(error, ProviderStreamCapacityError)  # what `event: error` raises
    assert error.code == "overloaded_error"
    # Nothing reached the caller and an overload is retryable: every attempt was made.
    assert requests == 3


async def test_an_error_body_is_classified_and_never_echoes_the_key() -> None:
    body = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": f"bad request for {KEY}"},
    }
    call, requests = await invoke(body)
    assert call.status is EventStatus.FAILED
    # The stream form of the plain HTTP 400 (test_in_band_client_errors.py).
    assert type(call.exception) is ProviderStreamInvalidRequestError
    assert call.exception.code == "invalid_request_error"
    assert requests == 1  # the caller's own mistake: not retried
    assert KEY not in str(call.exception)
    assert "bad request for" in str(call.exception)


async def test_a_tool_call_cut_by_max_tokens_is_the_limit_error() -> None:
    cut = {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {"path": "/tm"}}
    body = message("max_tokens", [{"type": "text", "text": "Writing."}, cut])
    call, requests = await invoke(body, tools=[{"name": "write_file", "input_schema": {}}])
    assert call.status is EventStatus.FAILED
    error = call.exception
    assert type(error) is ProviderStreamError
    assert error.code == "max_tokens"
    assert "write_file" in str(error)
    assert "raise the request's max_tokens" in str(error)
    assert not error.retryable
    assert requests == 1


@pytest.mark.parametrize(
    ("stop_reason", "content", "extra"),
    [
        ("max_tokens", [{"type": "text", "text": "The answer is"}], {}),
        ("refusal", [], {"stop_details": {"type": "refusal", "category": "cyber"}}),
        ("pause_turn", [{"type": "server_tool_use", "id": "s", "name": "web_search"}], {}),
        ("tool_use", [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}], {}),
        ("model_context_window_exceeded", [{"type": "text", "text": "cut"}], {}),
    ],
)
async def test_other_stop_reasons_complete_with_the_body_as_sent(
    stop_reason: str, content: list[dict[str, Any]], extra: dict[str, Any]
) -> None:
    body = message(stop_reason, content, **extra)
    call, _ = await invoke(body)
    assert call.status is EventStatus.COMPLETED
    assert call.execution.response == body  # stop reason, usage, details: as the API said


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ([{"type": "message"}], "not a message object (got JSON array)"),
        ("ok", "not a message object (got JSON string)"),
        ({"type": "message_batch", "id": "b"}, "type is 'message_batch', not 'message'"),
        ({"type": f"echo {KEY}"}, "not 'message'"),
    ],
)
async def test_a_body_that_is_not_a_message_is_a_protocol_error(body: Any, says: str) -> None:
    call, _ = await invoke(body)
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderProtocolError)
    assert says in str(call.exception)
    assert KEY not in str(call.exception)


async def test_invoke_sends_the_version_the_callers_beta_header_and_extra_body(
    fake: FakeProviderServer,
) -> None:
    model = iModel(
        model="anthropic/claude-x",
        api_key=KEY,
        base_url=f"{fake.base_url}/v1",
        allow_local_network=True,
        default_headers={"anthropic-beta": "context-1m-2025-08-07"},
    )
    async with model:
        # A field newer than the typed request, through extra_body: checking the answer must
        # not make the call validate its created payload again (which would refuse the field).
        call = await model.invoke(messages=HI, extra_body={"context_management": {"edits": []}})
    assert call.status is EventStatus.COMPLETED, call.exception
    [seen] = fake.requests
    assert seen.headers["anthropic-version"] == "2023-06-01"
    assert seen.headers["anthropic-beta"] == "context-1m-2025-08-07"
    assert seen.json["context_management"] == {"edits": []}

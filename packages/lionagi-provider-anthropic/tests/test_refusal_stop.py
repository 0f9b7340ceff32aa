"""A tool call cut by ``stop_reason: "refusal"`` is the content-filter error, never a call.

From the Claude 4 models on, Anthropic's streaming classifiers can stop an answer part-way and
end it with ``stop_reason: "refusal"`` (``stop_details`` on the ``message_delta`` names the
policy ``category`` and may carry an ``explanation``; Anthropic's "Streaming refusals" guide:
the same conversation is refused again until the turn that triggered it is removed or
rephrased). Stopped inside a tool call, it leaves the call's input cut short. The stream blamed
the server for it (``ProviderProtocolError``, "not valid JSON"), a call cut right after its
name came out as a call with input ``{}`` the model never wrote, and a one-shot answer ending in
such a call completed, handing the caller the refused turn's call. Each is now the
content-filter family's error (``ProviderStreamContentFilterError``: not retried, neutral for
the circuit, as core reports every other refusal), sent once; a text answer the refusal stopped
still completes with that ``finish_reason``.
"""

from __future__ import annotations

from typing import Any

from anthropic_stops import FAST, HI, MESSAGE, TOOL, invoked, model, stopped_stream, streamed

from lionagi.service import (
    EventStatus,
    ProviderContentFilterError,
    ProviderStreamContentFilterError,
    StreamChunk,
)
from lionagi.service.lifecycle import counts_as_circuit_failure
from lionagi.service_testing import scripted_stream_server

USAGE = {"input_tokens": 40, "output_tokens": 1}
DETAILS = {
    "type": "refusal",
    "category": "cyber",
    "explanation": "This request was declined because it could enable cyber harm.",
}


def _stream(block: dict[str, Any], *partial_json: str) -> list[bytes]:
    """One content block (streaming ``partial_json`` if a tool's), then a refusal stop."""
    stop = {"stop_reason": "refusal", "stop_sequence": None, "stop_details": DETAILS}
    return stopped_stream(block, *partial_json, stop=stop, usage=USAGE, output_tokens=31)


def _assert_refusal_error(error: BaseException) -> None:
    assert type(error) is ProviderStreamContentFilterError, repr(error)
    assert isinstance(error, ProviderContentFilterError)
    assert error.code == "refusal"
    assert "write_file" in str(error)
    assert "cyber" in str(error)
    assert DETAILS["explanation"] in str(error)
    assert not error.retryable
    assert not counts_as_circuit_failure(error, FAST)


def _assert_refusal_chunk(chunk: StreamChunk) -> None:
    assert chunk.type == "error"
    assert chunk.metadata["code"] == "refusal"
    assert chunk.metadata["finish_reason"] == "refusal"
    assert chunk.metadata["stop_details"] == DETAILS
    assert chunk.metadata["usage"]["output_tokens"] == 31


async def test_a_stream_refused_inside_a_tool_input_raises_the_content_filter_error() -> None:
    chunks, error, requests = await streamed(_stream(TOOL, '{"path": "/tmp/a', '.txt", "b'))
    _assert_refusal_error(error)
    assert [c.type for c in chunks] == ["error"]
    _assert_refusal_chunk(chunks[0])
    assert requests == 1


async def test_a_stream_refused_right_after_the_tool_name_is_no_empty_call() -> None:
    chunks, error, requests = await streamed(_stream(TOOL))
    _assert_refusal_error(error)
    assert [c.type for c in chunks] == ["error"]  # never a tool_use with input {}
    _assert_refusal_chunk(chunks[0])
    assert requests == 1


async def test_a_text_answer_the_refusal_stopped_still_completes_with_that_reason() -> None:
    writes = _stream({"type": "text", "text": ""}, "Hello..")
    async with scripted_stream_server(writes) as server, model(server.url) as chat:
        chunks = [chunk async for chunk in chat.stream(messages=HI)]
    assert [c.type for c in chunks] == ["text", "result"]
    assert chunks[-1].metadata["finish_reason"] == "refusal"
    assert chunks[-1].metadata["stop_details"] == DETAILS


def _body(content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        **MESSAGE,
        "content": content,
        "stop_reason": "refusal",
        "stop_sequence": None,
        "stop_details": DETAILS,
        "usage": {**USAGE, "output_tokens": 31},
    }


async def test_a_one_shot_answer_ending_in_a_refused_tool_call_fails_alike() -> None:
    cut = {**TOOL, "input": {"path": "/t"}}
    call, requests = await invoked(_body([{"type": "text", "text": "Writing."}, cut]))
    assert call.status is EventStatus.FAILED
    assert call.exception is not None
    _assert_refusal_error(call.exception)
    assert requests == 1


async def test_a_one_shot_text_answer_the_refusal_stopped_completes_as_sent() -> None:
    body = _body([{"type": "text", "text": "Hello.."}])
    call, _ = await invoked(body)
    assert call.status is EventStatus.COMPLETED
    assert call.execution.response == body


async def test_the_explanation_text_never_picks_another_family() -> None:
    # Anthropic's explanation is free text beside the code: words another family's rule reads
    # ("prompt is too long" is the context family's) must not decide the class.
    details = {**DETAILS, "explanation": "Declined: the prompt is too long to be safe."}
    body = {**_body([{"type": "text", "text": "x"}, TOOL]), "stop_details": details}
    call, requests = await invoked(body)
    assert type(call.exception) is ProviderStreamContentFilterError, repr(call.exception)
    assert requests == 1

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
still completes with that ``finish_reason``. A refusal after calls that closed whole (their
input complete, the classifiers stopping the turn later) handed those calls out, one-shot too
when a text block followed them: the same error now, and none of the turn's calls. A refused
turn ending in a whole call the server runs itself (``server_tool_use``) completed as a stream
but failed ``invoke()`` as a cut call: nothing in it is the caller's to run, so both complete.
"""

from __future__ import annotations

from typing import Any

from anthropic_stops import (
    FAST,
    HI,
    MESSAGE,
    TOOL,
    TOOLS,
    invoked,
    model,
    sse,
    stopped_stream,
    streamed,
)

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


TOOL_DELTA = ("input_json_delta", "partial_json")
READ = {**TOOL, "id": "toolu_2", "name": "read_file"}


def _turn(*blocks: tuple[dict[str, Any], str]) -> list[bytes]:
    """Whole ``(block, streamed part)`` pairs (a tool's part is its input JSON), then a refusal."""
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {**MESSAGE, "content": [], "usage": USAGE}}
    ]
    for index, (block, part) in enumerate(blocks):
        kind, field = ("text_delta", "text") if block["type"] == "text" else TOOL_DELTA
        events += [
            {"type": "content_block_start", "index": index, "content_block": block},
            {"type": "content_block_delta", "index": index, "delta": {"type": kind, field: part}},
            {"type": "content_block_stop", "index": index},
        ]
    stop = {"stop_reason": "refusal", "stop_sequence": None, "stop_details": DETAILS}
    events += [
        {"type": "message_delta", "delta": stop, "usage": {"output_tokens": 31}},
        {"type": "message_stop"},
    ]
    return [sse(event) for event in events]


async def test_a_refusal_after_a_complete_tool_call_hands_out_no_call() -> None:
    # The call's input closed before the classifiers stopped the turn: the refused turn's call
    # is not the model's request to run the tool, so it is never handed out as one.
    chunks, error, requests = await streamed(_turn((TOOL, '{"path": "/tmp/a.txt"}')))
    _assert_refusal_error(error)
    assert [c.type for c in chunks] == ["error"]
    _assert_refusal_chunk(chunks[0])
    assert requests == 1


async def test_a_refusal_after_parallel_calls_hands_out_none_of_them() -> None:
    text = {"type": "text", "text": ""}
    writes = _turn((text, "Writing."), (READ, '{"path": "/a"}'), (TOOL, '{"path": "/b"}'))
    chunks, error, _ = await streamed(writes)
    _assert_refusal_error(error)
    assert "read_file" in str(error)
    assert [(c.type, c.content) for c in chunks[:1]] == [("text", "Writing.")]
    assert [c.type for c in chunks] == ["text", "error"]


async def test_a_one_shot_refusal_with_a_call_before_its_last_block_fails_alike() -> None:
    content = [{**TOOL, "input": {"path": "/a"}}, {"type": "text", "text": "Then."}]
    call, requests = await invoked(_body(content))
    assert call.status is EventStatus.FAILED
    assert call.exception is not None
    _assert_refusal_error(call.exception)
    assert requests == 1


SEARCH = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
QUERY = {"query": "weather in Paris"}


async def test_a_refusal_after_a_whole_server_tool_call_completes_in_both_paths() -> None:
    # A call the server runs itself is never the caller's to run, so a refused turn ending in
    # one is answered as a refused text turn is: completed, ``finish_reason`` refusal, in
    # ``stream()`` and ``invoke()`` alike (the one-shot read it as a cut call of the caller's).
    text = {"type": "text", "text": ""}
    writes = _turn((text, "Searching."), (SEARCH, '{"query": "weather in Paris"}'))
    async with scripted_stream_server(writes) as server, model(server.url) as chat:
        chunks = [chunk async for chunk in chat.stream(messages=HI, tools=TOOLS)]
    assert [c.type for c in chunks] == ["text", "tool_use", "result"]
    assert (chunks[1].tool_name, chunks[1].tool_input) == ("web_search", QUERY)
    assert chunks[1].metadata["server_tool"] is True
    assert chunks[-1].metadata["finish_reason"] == "refusal"
    body = _body([{"type": "text", "text": "Searching."}, {**SEARCH, "input": QUERY}])
    call, requests = await invoked(body)
    assert call.status is EventStatus.COMPLETED, repr(call.exception)
    assert call.execution.response == body
    assert requests == 1

"""A tool call cut by ``stop_reason: "model_context_window_exceeded"`` is the context error.

Anthropic stops generation with ``model_context_window_exceeded`` when the output reaches the
model's context window before ``max_tokens`` (the default from Claude Sonnet 4.5 on, so a caller
can ask for the largest ``max_tokens`` without counting its input; anthropic-sdk-python's
``StopReason``). Stopped inside a tool call, it leaves the call's input cut short, as
``max_tokens`` does. The stream blamed the server for it (``ProviderProtocolError``, "not valid
JSON"), a call cut right after its name came out as a call with input ``{}`` the model never
wrote, and a one-shot answer ending in such a call completed. Each is now the context family's
error (``ProviderStreamContextError``: the conversation does not leave room; raising
``max_tokens`` does not help), sent once.
"""

from __future__ import annotations

from anthropic_stops import MESSAGE, TOOL, invoked, stopped_stream, streamed

from lionagi.service import EventStatus, ProviderContextError, ProviderStreamContextError

WINDOW = "model_context_window_exceeded"
USAGE = {"input_tokens": 199_000, "output_tokens": 1}


def _stream(*partial_json: str) -> list[bytes]:
    """A stream whose one tool block streams ``partial_json`` and then stops at the window."""
    stop = {"stop_reason": WINDOW, "stop_sequence": None}
    return stopped_stream(TOOL, *partial_json, stop=stop, usage=USAGE, output_tokens=900)


def _assert_window_error(error: BaseException) -> None:
    assert type(error) is ProviderStreamContextError, repr(error)
    assert isinstance(error, ProviderContextError)
    assert error.code == WINDOW
    assert "write_file" in str(error)
    assert not error.retryable


async def test_a_stream_cut_inside_a_tool_input_raises_the_context_error() -> None:
    chunks, error, requests = await streamed(_stream('{"path": "/tmp/a', '.txt", "body": "x'))
    _assert_window_error(error)
    assert [c.type for c in chunks] == ["error"]
    assert chunks[0].metadata["finish_reason"] == WINDOW
    assert chunks[0].metadata["usage"]["output_tokens"] == 900
    assert requests == 1


async def test_a_stream_cut_right_after_the_tool_name_is_no_empty_call() -> None:
    chunks, error, requests = await streamed(_stream())
    _assert_window_error(error)
    assert [c.type for c in chunks] == ["error"]  # never a tool_use with input {}
    assert requests == 1


async def test_a_one_shot_answer_ending_in_a_cut_tool_call_fails_with_the_context_error() -> None:
    cut = {**TOOL, "input": {"path": "/t"}}
    body = {
        **MESSAGE,
        "content": [{"type": "text", "text": "Writing."}, cut],
        "stop_reason": WINDOW,
        "stop_sequence": None,
        "usage": {**USAGE, "output_tokens": 900},
    }
    call, requests = await invoked(body)
    assert call.status is EventStatus.FAILED
    assert call.exception is not None
    _assert_window_error(call.exception)
    assert requests == 1

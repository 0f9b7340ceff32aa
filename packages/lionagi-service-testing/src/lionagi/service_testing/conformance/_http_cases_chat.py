"""HTTPChatConformance: generation endpoints, one-shot and streamed, through ``iModel``."""

from __future__ import annotations

from typing import Any, ClassVar

import anyio
import pytest

from lionagi.service import (
    EventStatus,
    ProviderConnectionError,
    ProviderProtocolError,
    ProviderStreamError,
    RequestDeadlineExceeded,
)

from .._fake_script import DEFAULT_TEXT, THINKING_TEXT, TOOL_COMMAND
from .._fake_wire import USAGE_INPUT, USAGE_OUTPUT
from ._http import HTTPCase, StreamOutcome, http_case
from ._http_cases_common import OneShotCases, numbers_in
from ._http_dialects import TOOL_NAME

__all__ = ["HTTPChatConformance"]

_TEXT = "Conformance answer, seven parts."
_EXPECTED_INPUT = {"command": TOOL_COMMAND}


def _need(flag: bool, name: str) -> None:
    if not flag:
        pytest.skip(f"the adapter does not declare {name}=True")


def _completed(out: StreamOutcome, what: str) -> None:
    assert out.error is None, f"{what}: the stream raised {type(out.error).__name__}: {out.error}"
    assert out.call.execution.status is EventStatus.COMPLETED, (
        f"{what}: the call ended {out.call.execution.status}"
    )
    results = out.of("result")
    kinds = [c.type for c in out.chunks]
    assert len(results) == 1, f"{what}: expected exactly one result chunk; got {kinds}"
    assert out.chunks[-1] is results[0], f"{what}: the result chunk is not last; got {kinds}"


def _check_usage(usage: Any, where: str) -> None:
    numbers = set(numbers_in(usage))
    assert isinstance(usage, dict), f"{where}: no usage record (got {usage!r})"
    assert usage, f"{where}: no usage record (got an empty one)"
    assert {USAGE_INPUT, USAGE_OUTPUT} <= numbers, (
        f"{where}: usage {usage!r} lacks the server's counts ({USAGE_INPUT} in, {USAGE_OUTPUT} out)"
    )


class HTTPChatConformance(OneShotCases):
    """Conformance cases for a chat/generation endpoint (see ``docs/conformance.md``).

    Flags: ``streams`` (stream cases), ``tool_calls`` (tool-call assembly), ``usage`` (usage on
    the result), ``reasoning`` (thinking output).
    """

    streams: ClassVar[bool] = True
    usage: ClassVar[bool] = True

    # -- one-shot output -------------------------------------------------------------------

    @http_case
    async def test_one_shot_text(self, case: HTTPCase) -> None:
        """``invoke()`` returns the server's whole answer text after one request.

        Troubleshooting: the kit reads the decoded vendor JSON ``call()`` returns (see
        ``response_text``); an adapter that reshapes the body overrides that reader. A wrong
        text usually means the request model dropped a field or the reader looks at the wrong
        choice/part.
        """
        model = case.model()
        call = await case.invoke(model, "text", text=_TEXT)
        assert call.execution.status is EventStatus.COMPLETED, call.execution.error
        got = self.response_text(call.execution.response)
        assert got == _TEXT, f"invoke() text is {got!r}, the server answered {_TEXT!r}"
        assert case.attempts == 1, f"one call made {case.attempts} requests"
        sent = case.server.requests[0]
        assert "x-fake-behaviour" not in str(sent.json), "a kit header leaked into the body"

    @http_case
    async def test_one_shot_usage(self, case: HTTPCase) -> None:
        """``invoke()``'s response carries the server's token usage.

        Troubleshooting: keep the provider's usage object on the result (``response_usage``
        reads it); callers bill and budget from it.
        """
        _need(self.usage, "usage")
        model = case.model()
        call = await case.invoke(model, "usage")
        assert call.execution.status is EventStatus.COMPLETED, call.execution.error
        _check_usage(self.response_usage(call.execution.response), "invoke()")

    @http_case
    async def test_one_shot_tool_call(self, case: HTTPCase) -> None:
        """``invoke()`` with the ``shell`` tool returns one call with parsed arguments.

        Troubleshooting: arguments must arrive as the JSON object the server sent
        (``{"command": TOOL_COMMAND}``), not truncated or left as a string; check the request
        offers the tool the way the dialect expects (``tool_request``).
        """
        _need(self.tool_calls, "tool_calls")
        model = case.model()
        call = await case.invoke(model, "tool", self.tool_request())
        assert call.execution.status is EventStatus.COMPLETED, call.execution.error
        uses = self.response_tool_uses(call.execution.response)
        assert uses == [(TOOL_NAME, _EXPECTED_INPUT)], (
            f"invoke() tool calls are {uses!r}; expected [({TOOL_NAME!r}, {_EXPECTED_INPUT!r})]"
        )

    @http_case
    async def test_one_shot_reasoning(self, case: HTTPCase) -> None:
        """``invoke()``'s response carries the reasoning text apart from the answer.

        Troubleshooting: reasoning must not be merged into the answer text or dropped.
        """
        _need(self.reasoning, "reasoning")
        model = case.model()
        call = await case.invoke(model, "thinking")
        assert call.execution.status is EventStatus.COMPLETED, call.execution.error
        response = call.execution.response
        thinking = self.response_thinking(response)
        assert thinking == THINKING_TEXT, f"reasoning {thinking!r} != {THINKING_TEXT!r}"
        text = self.response_text(response)
        assert text == DEFAULT_TEXT, f"answer text {text!r} != {DEFAULT_TEXT!r} (reasoning in it?)"

    # -- streamed output -------------------------------------------------------------------

    @http_case
    async def test_stream_text(self, case: HTTPCase) -> None:
        """``stream()`` yields text deltas that join to the answer, then one result chunk.

        Troubleshooting: every delta must be yielded once and in order (``is_delta=True``),
        and the stream must end with exactly one ``result`` chunk; a missing result usually
        means the grammar's terminal event is not projected.
        """
        _need(self.streams, "streams")
        model = case.model()
        out = await case.stream(model, "text", text=_TEXT, chunks="7")
        _completed(out, "stream text")
        assert out.joined("text") == _TEXT, f"streamed text {out.joined('text')!r} != {_TEXT!r}"
        assert len(out.of("text")) >= 2, "the seven deltas arrived as fewer than two chunks"
        assert all(c.is_delta for c in out.of("text")), "a text delta has is_delta=False"
        assert case.attempts == 1, f"one stream made {case.attempts} requests"

    @http_case
    async def test_stream_usage(self, case: HTTPCase) -> None:
        """The stream's result chunk carries the server's usage in ``metadata["usage"]``.

        Troubleshooting: keep the usage the final event (or a trailing usage chunk) carries;
        for OpenAI-style chat ask for it with ``stream_options.include_usage``.
        """
        _need(self.streams, "streams")
        _need(self.usage, "usage")
        model = case.model()
        out = await case.stream(model, "usage")
        _completed(out, "stream usage")
        _check_usage(out.of("result")[0].metadata.get("usage"), "the result chunk")

    @http_case
    async def test_stream_tool_call_assembled(self, case: HTTPCase) -> None:
        """Tool-call fragments are assembled into one ``tool_use`` chunk with a parsed input.

        Troubleshooting: argument fragments arrive split across events; accumulate them per
        call index and parse once at the end (a dict ``tool_input``, never a string or a
        partial object), and emit the call once.
        """
        _need(self.streams, "streams")
        _need(self.tool_calls, "tool_calls")
        model = case.model()
        out = await case.stream(model, "tool", self.tool_request())
        _completed(out, "stream tool")
        uses = out.of("tool_use")
        assert len(uses) == 1, f"expected one tool_use chunk, got {len(uses)}"
        use = uses[0]
        assert use.tool_name == TOOL_NAME, f"tool_use name {use.tool_name!r} != {TOOL_NAME!r}"
        assert use.tool_input == _EXPECTED_INPUT, (
            f"tool_use input {use.tool_input!r} != {_EXPECTED_INPUT!r}"
        )
        assert use.tool_id, "tool_use without tool_id"

    @http_case
    async def test_stream_reasoning(self, case: HTTPCase) -> None:
        """Reasoning arrives as ``thinking`` chunks before the answer's ``text`` chunks.

        Troubleshooting: map the dialect's reasoning deltas to ``thinking`` (not ``text``), in
        the order the server sent them.
        """
        _need(self.streams, "streams")
        _need(self.reasoning, "reasoning")
        model = case.model()
        out = await case.stream(model, "thinking")
        _completed(out, "stream thinking")
        assert out.joined("thinking") == THINKING_TEXT, (
            f"thinking {out.joined('thinking')!r} != {THINKING_TEXT!r}"
        )
        assert out.joined("text") == DEFAULT_TEXT, f"text {out.joined('text')!r}"
        kinds = [c.type for c in out.chunks]
        assert kinds.index("thinking") < kinds.index("text"), f"thinking after text: {kinds}"

    # -- stream failures -------------------------------------------------------------------

    @http_case
    async def test_stream_error_event_is_typed(self, case: HTTPCase) -> None:
        """An in-stream provider error yields one ``error`` chunk, then ``ProviderStreamError``.

        Troubleshooting: project the vendor's error event to one ``error`` chunk
        (``is_error=True``) and stop; swallowing it ends the stream as if it succeeded.
        """
        _need(self.streams, "streams")
        model = case.model()
        out = await case.stream(model, "stream_error")
        assert isinstance(out.error, ProviderStreamError), (
            f"expected ProviderStreamError, got {type(out.error).__name__}: {out.error}"
        )
        errors = out.of("error")
        kinds = [c.type for c in out.chunks]
        assert len(errors) == 1, f"expected one error chunk; got {kinds}"
        assert out.chunks[-1] is errors[0], f"the error chunk is not last; got {kinds}"
        assert out.call.execution.status is EventStatus.FAILED

    @http_case
    async def test_stream_malformed_event_is_protocol_error(self, case: HTTPCase) -> None:
        """An event that is not valid JSON raises ``ProviderProtocolError``, not retried.

        Troubleshooting: never skip an undecodable event: it may have carried output.
        """
        _need(self.streams, "streams")
        model = case.model()
        out = await case.stream(model, "malformed")
        assert isinstance(out.error, ProviderProtocolError), (
            f"expected ProviderProtocolError, got {type(out.error).__name__}: {out.error}"
        )
        assert case.attempts == 1, f"a malformed stream was attempted {case.attempts} times"

    @http_case
    async def test_stream_disconnect_before_first_chunk_retried(self, case: HTTPCase) -> None:
        """A stream dropped before any output is retried, then a ``ProviderConnectionError``.

        No chunk may have been yielded, and the attempts are the policy's.

        Troubleshooting: before the first chunk nothing reached the caller, so the lifecycle
        retries; the transport must raise ``ProviderConnectionError`` for the drop.
        """
        _need(self.streams, "streams")
        model = case.model()
        out = await case.stream(model, "disconnect_before")
        assert isinstance(out.error, ProviderConnectionError), (
            f"expected ProviderConnectionError, got {type(out.error).__name__}: {out.error}"
        )
        assert not out.chunks, f"chunks were yielded: {[c.type for c in out.chunks]}"
        assert case.attempts == self.max_attempts, (
            f"attempted {case.attempts} times; the policy allows {self.max_attempts}"
        )

    @http_case
    async def test_stream_disconnect_after_first_chunk_not_retried(self, case: HTTPCase) -> None:
        """A stream dropped after output reached the caller raises at once, with no replay.

        Exactly one request reaches the server.

        Troubleshooting: output the caller has seen must never be produced twice; an adapter
        must not reconnect inside ``stream()`` after it yielded.
        """
        _need(self.streams, "streams")
        model = case.model()
        out = await case.stream(model, "disconnect_after")
        assert out.chunks, "no chunk arrived before the drop"
        assert isinstance(out.error, ProviderConnectionError), (
            f"expected a ProviderConnectionError, got {type(out.error).__name__}: {out.error}"
        )
        assert case.attempts == 1, (
            f"the stream was re-requested after its first chunk ({case.attempts} requests)"
        )
        assert out.call.execution.status is EventStatus.FAILED

    @http_case
    async def test_stream_deadline_bounds_a_stall(self, case: HTTPCase) -> None:
        """A stream that stalls after its first chunk ends at the deadline.

        The error is ``RequestDeadlineExceeded(phase="stream")``, within a generous bound.

        Troubleshooting: do not shield reads from cancellation or wait on an unbounded timer;
        the supervisor cancels the read at the deadline.
        """
        _need(self.streams, "streams")
        model = case.model()
        started = anyio.current_time()
        out = await case.stream(model, "stall", timeout=self.deadline)
        elapsed = anyio.current_time() - started
        assert isinstance(out.error, RequestDeadlineExceeded), (
            f"expected RequestDeadlineExceeded, got {type(out.error).__name__}: {out.error}"
        )
        assert out.error.phase == "stream", f"deadline phase {out.error.phase!r}, not 'stream'"
        assert elapsed < self.deadline + self.deadline_grace, (
            f"a {self.deadline}s deadline returned after {elapsed:.2f}s"
        )
        assert case.attempts == 1

    @http_case
    async def test_stream_cancellation(self, case: HTTPCase) -> None:
        """Cancelling the consumer mid-stream, or ``aclose()`` after a chunk, cancels the call.

        Neither leaves a connection behind (the harness counts descriptors).

        Troubleshooting: never catch the cancellation exception in ``stream()`` (re-raise it),
        close the response in ``finally``, and do not yield from ``finally``.
        """
        _need(self.streams, "streams")
        model = case.model()
        call = case.prepared(model, "stall")
        stream = model.stream(api_call=call)
        seen = 0
        try:
            with anyio.CancelScope() as scope:
                async for _chunk in stream:
                    seen += 1
                    scope.cancel()
        finally:
            await stream.aclose()
        case.evidence.append(call)
        assert seen >= 1, "no chunk arrived before the stall"
        assert scope.cancelled_caught, "the cancellation did not reach the consumer"
        assert call.execution.status is EventStatus.CANCELLED, (
            f"a cancelled stream ended {call.execution.status}"
        )
        out = await case.stream(model, "stall", stop_after=1)
        assert out.error is None, f"aclose() raised {type(out.error).__name__}: {out.error}"
        assert out.call.execution.status is EventStatus.CANCELLED, (
            f"a stream closed by its consumer ended {out.call.execution.status}"
        )

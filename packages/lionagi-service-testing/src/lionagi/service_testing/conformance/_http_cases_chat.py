"""HTTPChatConformance: generation endpoints, one-shot and streamed, through ``iModel``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, ClassVar

import anyio
import pytest

from lionagi.service import (
    CircuitOpenError,
    EventStatus,
    ProviderCapabilityError,
    ProviderConnectionError,
    ProviderContentFilterError,
    ProviderError,
    ProviderProtocolError,
    ProviderStreamCapabilityError,
    ProviderStreamContentFilterError,
    ProviderStreamError,
    ProviderUnsupportedModelError,
    RequestDeadlineExceeded,
    StreamChunk,
)

from .._fake_script import DEFAULT_TEXT, THINKING_TEXT, TOOL_COMMAND
from .._fake_unknown import UNKNOWN_FIELD_VALUE
from .._fake_wire import USAGE_INPUT, USAGE_OUTPUT
from ._http import HTTPCase, StreamOutcome, http_case
from ._http_cases_common import OneShotCases, numbers_in, raised
from ._http_dialects import (
    CAPABILITY_REFUSED,
    CONTENT_FILTER_DIALECTS,
    TOOL_NAME,
    is_limit_reason,
)

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


# How usage fields name the two directions, across the dialects' own words (``prompt_tokens``,
# ``input_tokens``, ``promptTokenCount``, ``prompt_eval_count``; ``completion_tokens``,
# ``output_tokens``, ``candidatesTokenCount``, Ollama's bare ``eval_count``).
_INPUT_NAME = re.compile(r"prompt|input", re.IGNORECASE)
_OUTPUT_NAME = re.compile(r"completion|output|candidates|generated|^eval_count$", re.IGNORECASE)


def _named_counts(value: Any, key: str = "") -> Iterator[tuple[str, int]]:
    """``(field name, count)`` for every int in a nested usage record."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield key, value
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from _named_counts(item, str(name))
    elif isinstance(value, list):
        for item in value:
            yield from _named_counts(item, key)


def _misnamed(usage: Any) -> list[str]:
    """Fields whose name says the other direction than the server's count they hold."""
    wrong: list[str] = []
    for name, count in _named_counts(usage):
        if count == USAGE_OUTPUT and _INPUT_NAME.search(name) and not _OUTPUT_NAME.search(name):
            wrong.append(f"{name}={count} (the server's output count under an input field)")
        if count == USAGE_INPUT and _OUTPUT_NAME.search(name) and not _INPUT_NAME.search(name):
            wrong.append(f"{name}={count} (the server's input count under an output field)")
    return wrong


def _check_usage(usage: Any, where: str) -> None:
    numbers = set(numbers_in(usage))
    assert isinstance(usage, dict), f"{where}: no usage record (got {usage!r})"
    assert usage, f"{where}: no usage record (got an empty one)"
    assert {USAGE_INPUT, USAGE_OUTPUT} <= numbers, (
        f"{where}: usage {usage!r} lacks the server's counts ({USAGE_INPUT} in, {USAGE_OUTPUT} out)"
    )
    wrong = _misnamed(usage)
    assert not wrong, (
        f"{where}: usage {usage!r} has input and output mis-mapped: {'; '.join(wrong)}; the "
        f"server sent {USAGE_INPUT} input and {USAGE_OUTPUT} output tokens"
    )


def _normal_end(reason: Any, where: str) -> None:
    missing = f"{where}: no finish reason (got {reason!r}); the server said why the answer ended"
    assert isinstance(reason, str), missing
    assert reason, missing
    assert not is_limit_reason(reason), (
        f"{where}: finish reason {reason!r} reports the output token limit, but the answer "
        "ended normally"
    )


def _limit_end(reason: Any, where: str) -> None:
    assert is_limit_reason(reason), (
        f"{where}: finish reason {reason!r}; the answer stopped at the output token limit, "
        "which must be reported (length, max_tokens or max_output_tokens, or the vendor's own)"
    )


def _finish_reason(out: StreamOutcome) -> Any:
    return out.of("result")[0].metadata.get("finish_reason")


def _shown(chunk: StreamChunk) -> str:
    """What a chunk presents as output: its content, tool input and tool output."""
    parts = [chunk.content or "", repr(chunk.tool_input), repr(chunk.tool_output)]
    return " ".join(parts)


def _unknown_shown(out: StreamOutcome) -> list[str]:
    return [c.type for c in out.chunks if UNKNOWN_FIELD_VALUE in _shown(c)]


_CONTENT_FILTER_WHY = (
    "a refused prompt is the caller's content, not the provider's health, and must be a "
    "ProviderContentFilterError, which the circuit leaves closed"
)
_UNSUPPORTED_MODEL_WHY = (
    "a model name the provider does not serve is the caller's mistake, not the provider's "
    "health, and must be a ProviderUnsupportedModelError, which the circuit leaves closed"
)
_CAPABILITY_WHY = (
    "a request for something the model cannot do is the caller's choice of model and request, "
    "not the provider's health, and must be a ProviderCapabilityError, which the circuit "
    "leaves closed"
)


def _refused_once(out: StreamOutcome, sent: int) -> None:
    """A stream the provider refused in-band: one ``error`` chunk only, FAILED, one request.

    The request itself was refused, so there is no answer to show; a retry would send the same
    request to the same refusal.
    """
    kinds = [c.type for c in out.chunks]
    assert kinds == ["error"], (
        f"a refused stream must yield exactly one error chunk and nothing else; got {kinds}"
    )
    assert out.call.execution.status is EventStatus.FAILED, (
        f"a refused stream ended {out.call.execution.status}"
    )
    assert sent == 1, f"a refused stream was attempted {sent} times, expected 1"


async def _circuit_stayed_closed(
    case: HTTPCase,
    model: Any,
    refusal: BaseException | None,
    what: str,
    *,
    refused: str = "a content-filter refusal",
    why: str = _CONTENT_FILTER_WHY,
) -> None:
    """The next call on ``model`` (a circuit opening at one failure) reaches the server.

    Checked before the refusal's class, so a refusal reported as anything the circuit counts
    (a plain ``ProviderError`` or ``ProviderStreamError``, a protocol error) fails here, with
    what the adapter raised in the message. ``refused`` names the refusal, ``why`` says why it
    must leave the circuit closed.
    """
    raised_as = f"{type(refusal).__name__}: {refusal}" if refusal is not None else "no error"
    before = case.attempts
    try:
        call = await case.invoke(model, "text", text=_TEXT)
    except CircuitOpenError as exc:
        error: BaseException | None = exc
        status = EventStatus.FAILED
    else:
        error, status = call.execution.exception, call.execution.status
    reached = case.attempts - before
    after = f"after {refused} ({what} raised {raised_as}) the next call"
    assert reached, (
        f"{after} never reached the server: the refusal opened the circuit "
        f"(failure_threshold=1); {why}"
    )
    assert reached == 1, f"{after} made {reached} requests ({error!r})"
    assert status is EventStatus.COMPLETED, f"{after} ended {status}: {error!r}"


class HTTPChatConformance(OneShotCases):
    """Conformance cases for a chat/generation endpoint (see ``docs/conformance.md``).

    Flags: ``streams`` (stream cases), ``tool_calls`` (tool-call assembly), ``usage`` (usage on
    the result), ``reasoning`` (thinking output), ``finish_reasons`` (the stop reason, default
    on); ``refuses_unknown_stream_fields`` declares a stream grammar that refuses unknown fields.
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

    @http_case
    async def test_one_shot_finish_reason(self, case: HTTPCase) -> None:
        """``invoke()``'s response says why the answer ended: normally, or at the token limit.

        The server answers once normally, then once stopped at the output token limit (chat
        ``length``, Anthropic ``max_tokens``, Gemini ``MAX_TOKENS``, Responses ``incomplete``
        with ``max_output_tokens``, Ollama ``length``). The cut answer is still a completed call
        with its text; only the finish reason tells the caller it is partial.

        Troubleshooting: keep the provider's finish/stop reason on the response
        (``response_finish_reason`` reads it; override the reader if ``call()`` reshapes the
        body, normalising is fine). Dropping it, or rewriting every reason to one value, hides a
        truncated answer from the caller or reports a complete one as cut. An API with no stop
        reason sets ``finish_reasons = False``.
        """
        _need(self.finish_reasons, "finish_reasons")
        model = case.model()
        call = await case.invoke(model, "text", text=_TEXT)
        assert call.execution.status is EventStatus.COMPLETED, call.execution.error
        _normal_end(self.response_finish_reason(call.execution.response), "invoke()")
        call = await case.invoke(model, "token_limit", text=_TEXT)
        assert call.execution.status is EventStatus.COMPLETED, (
            f"an answer cut at the token limit ended {call.execution.status}: "
            f"{call.execution.error}"
        )
        response = call.execution.response
        got = self.response_text(response)
        assert got == _TEXT, f"the cut answer's text is {got!r}, the server sent {_TEXT!r}"
        _limit_end(self.response_finish_reason(response), "invoke() cut at the token limit")

    @http_case
    async def test_one_shot_unknown_fields_tolerated(self, case: HTTPCase) -> None:
        """A response body whose every object carries an unknown field reads as without it.

        Vendors add fields without notice. The server adds one (``fake_unknown_field``) to every
        object of the body except tool-call arguments; ``invoke()`` must complete with the whole
        text, the finish reason and, with ``tool_calls``, the same parsed call.

        Troubleshooting: read the fields you know and leave the rest: never validate a response
        against a closed schema (pydantic ``extra="forbid"``, a key allowlist that raises), and
        never take an unknown field's value for the answer.
        """
        model = case.model()
        call = await case.invoke(model, "text+extra_fields", text=_TEXT)
        assert call.execution.status is EventStatus.COMPLETED, (
            f"a body with unknown fields ended {call.execution.status}: {call.execution.error}"
        )
        response = call.execution.response
        got = self.response_text(response)
        assert got == _TEXT, f"invoke() text with unknown fields is {got!r}, not {_TEXT!r}"
        if self.finish_reasons:
            _normal_end(self.response_finish_reason(response), "invoke() with unknown fields")
        if self.tool_calls:
            call = await case.invoke(model, "tool+extra_fields", self.tool_request())
            assert call.execution.status is EventStatus.COMPLETED, call.execution.error
            uses = self.response_tool_uses(call.execution.response)
            assert uses == [(TOOL_NAME, _EXPECTED_INPUT)], (
                f"invoke() tool calls with unknown fields are {uses!r}; expected "
                f"[({TOOL_NAME!r}, {_EXPECTED_INPUT!r})]"
            )

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

        The arguments are the call's input only: they never show as text (or thinking).

        Troubleshooting: argument fragments arrive split across events; accumulate them per
        call index and parse once at the end (a dict ``tool_input``, never a string or a
        partial object), and emit the call once. Do not also yield the fragments as text
        deltas.
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
        shown = [c.type for c in out.chunks if c.type in ("text", "thinking") and c.content]
        assert TOOL_COMMAND not in out.joined("text") + out.joined("thinking"), (
            f"the tool call's arguments were presented as output in {shown} chunks: the answer "
            "is only the call, and its arguments belong in the tool_use chunk's input"
        )

    @http_case
    async def test_stream_reasoning(self, case: HTTPCase) -> None:
        """Reasoning arrives as ``thinking`` chunks, every one before the answer's ``text`` chunks.

        Troubleshooting: map the dialect's reasoning deltas to ``thinking`` (not ``text``), in
        the order the server sent them; do not hold reasoning back and yield it after the
        answer began.
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
        last_thinking = len(kinds) - 1 - kinds[::-1].index("thinking")
        assert last_thinking < kinds.index("text"), f"thinking after text: {kinds}"

    @http_case
    async def test_stream_finish_reason(self, case: HTTPCase) -> None:
        """The result chunk's ``metadata["finish_reason"]`` says why the stream ended.

        A stream that ended normally must not report the token limit; one the server stopped at
        the output token limit must (see ``test_one_shot_finish_reason`` for the vendors'
        words) and is still a completed stream with its text and one result chunk.

        Troubleshooting: keep the terminal event's reason (chat ``finish_reason``, Anthropic
        ``message_delta.stop_reason``, Gemini ``finishReason``, Responses
        ``response.incomplete``'s ``incomplete_details.reason``, Ollama ``done_reason``) and put
        it on the result chunk (``ProjectorBase.result_chunk``); treat ``response.incomplete``
        as a terminal event, not an error or an unknown event.
        """
        _need(self.streams, "streams")
        _need(self.finish_reasons, "finish_reasons")
        model = case.model()
        out = await case.stream(model, "text", text=_TEXT)
        _completed(out, "stream text")
        _normal_end(_finish_reason(out), "the result chunk")
        out = await case.stream(model, "token_limit", text=_TEXT)
        _completed(out, "a stream cut at the token limit")
        assert out.joined("text") == _TEXT, (
            f"the cut stream's text is {out.joined('text')!r}, the server sent {_TEXT!r}"
        )
        _limit_end(_finish_reason(out), "the result chunk of a stream cut at the token limit")

    @http_case
    async def test_stream_unknown_fields_tolerated(self, case: HTTPCase) -> None:
        """Stream events whose every object carries an unknown field give the same chunks.

        The server streams the same answer twice, the second time with a field no client knows
        (``fake_unknown_field``) in every object of every event except tool-call arguments. The
        chunks must be the same, type for type, with the same text, thinking, finish reason and
        usage, and the unknown value must not show up as output. With ``tool_calls`` a tool
        stream with unknown fields must still assemble the same call.

        A grammar declared ``refuses_unknown_stream_fields = True`` must instead refuse such a
        stream loudly: ``ProviderProtocolError`` after one attempt and no result chunk, never a
        quiet end with part of the answer.

        Troubleshooting: project the fields you know and ignore the others (only an unknown
        event *type* is a protocol error); never forward raw vendor objects as chunks, and
        never turn an unknown field's value into text. A grammar that names content by field
        (so an unknown field may be content) declares ``refuses_unknown_stream_fields``.
        """
        _need(self.streams, "streams")
        selector = (
            "text" + ("+thinking" if self.reasoning else "") + ("+usage" if self.usage else "")
        )
        model = case.model()
        plain = await case.stream(model, selector, text=_TEXT, chunks="7")
        _completed(plain, "stream without unknown fields")
        before = case.attempts
        out = await case.stream(model, selector + "+extra_fields", text=_TEXT, chunks="7")
        kinds = [c.type for c in out.chunks]
        if self.refuses_unknown_stream_fields:
            assert isinstance(out.error, ProviderProtocolError), (
                "refuses_unknown_stream_fields: expected ProviderProtocolError for events with "
                f"an unknown field, got {type(out.error).__name__}: {out.error} (chunks {kinds})"
            )
            assert not out.of("result"), f"a refused stream still ended with a result: {kinds}"
            assert case.attempts - before == 1, (
                f"a refused stream was attempted {case.attempts - before} times"
            )
            return
        _completed(out, "stream with unknown fields")
        shown = _unknown_shown(out)
        assert not shown, f"an unknown field's value was presented as output in {shown} chunks"
        expected = [c.type for c in plain.chunks]
        assert kinds == expected, (
            f"unknown fields changed the chunks: {kinds}, without them {expected}"
        )
        assert out.joined("text") == _TEXT, (
            f"streamed text with unknown fields is {out.joined('text')!r}, not {_TEXT!r}"
        )
        assert out.joined("thinking") == plain.joined("thinking"), (
            f"thinking with unknown fields is {out.joined('thinking')!r}, without them "
            f"{plain.joined('thinking')!r}"
        )
        assert _finish_reason(out) == _finish_reason(plain), (
            f"finish reason with unknown fields is {_finish_reason(out)!r}, without them "
            f"{_finish_reason(plain)!r}"
        )
        if self.usage:
            _check_usage(out.of("result")[0].metadata.get("usage"), "the result chunk")
        if self.tool_calls:
            out = await case.stream(model, "tool+extra_fields", self.tool_request())
            _completed(out, "tool stream with unknown fields")
            uses = [(c.tool_name, c.tool_input) for c in out.of("tool_use")]
            assert uses == [(TOOL_NAME, _EXPECTED_INPUT)], (
                f"tool_use chunks with unknown fields are {uses!r}; expected "
                f"[({TOOL_NAME!r}, {_EXPECTED_INPUT!r})]"
            )

    # -- refusals --------------------------------------------------------------------------

    @http_case
    async def test_content_filter_is_typed_not_retried_circuit_neutral(
        self, case: HTTPCase
    ) -> None:
        """A prompt the content filter refused is a ``ProviderContentFilterError``, sent once.

        The server answers Azure OpenAI's filtered-prompt refusal (``content_filter``): one-shot
        an HTTP 400 whose error object has ``code: "content_filter"`` and
        ``innererror.code: "ResponsibleAIPolicyViolation"``; streamed, the same object as the
        stream's error event, as gateways relay it. What a caller depends on:

        - ``invoke()`` fails with a ``ProviderContentFilterError`` that keeps its ``status``
          (400; core's ``ProviderStatusContentFilterError``), after exactly one request: the
          same content is refused the same way, so a retry only spends quota;
        - the circuit stays closed: on a model whose circuit opens at one failure, the next
          call still reaches the server (counted, a burst of blocked prompts from one user
          would cut every other caller off);
        - with ``streams``, ``stream()`` yields exactly one ``error`` chunk and nothing else
          (the prompt was refused, so there is no answer), then raises
          ``ProviderStreamContentFilterError`` after one request, the circuit closed again;
        - the key appears in no error (every case scans for it; the request must carry it).

        Applies to the dialects the fake server renders a refusal error for
        (``openai_chat``); others are skipped with the reason.

        Troubleshooting: ``except ProviderContentFilterError`` is how callers tell "change the
        prompt" from a broken request. A ``map_status_error`` hook must fall back to
        ``super().map_status_error(info)`` (the OpenAI dialect's ``openai_status_error`` reads
        ``code``/``type`` and Azure's ``innererror.code``), never turn the 400 into a plain
        ``ProviderClientError``/``ProviderError`` or a status-less class; a ``stream_error``
        override must keep the family core's ``classify_stream_error`` found (a plain
        ``ProviderStreamError`` counts against the circuit); never retry inside ``call``, and
        never attach the request's headers to the error.
        """
        if self.dialect not in CONTENT_FILTER_DIALECTS:
            pytest.skip(
                f"the fake server renders no content-filter refusal error in the {self.dialect} "
                f"dialect (only {', '.join(sorted(CONTENT_FILTER_DIALECTS))})"
            )
        model = case.model(failure_threshold=1)
        before = case.attempts
        call = await case.invoke(model, "content_filter")
        sent = case.attempts - before
        await _circuit_stayed_closed(case, model, call.execution.exception, "invoke()")
        exc = raised(call, ProviderContentFilterError, "a content-filter refusal (HTTP 400)")
        status = getattr(exc, "status", None)
        assert status == 400, (
            f"the refusal {type(exc).__name__} has status {status!r}; the server answered "
            "HTTP 400, which callers read from the error (keep core's "
            "ProviderStatusContentFilterError)"
        )
        assert sent == 1, f"a content-filter refusal was attempted {sent} times, expected 1"
        case.assert_key_sent(model)
        if not self.streams:
            return
        before = case.attempts
        out = await case.stream(model, "content_filter")
        sent = case.attempts - before
        await _circuit_stayed_closed(case, model, out.error, "stream()")
        assert isinstance(out.error, ProviderStreamContentFilterError), (
            "a content-filter refusal in a stream: expected ProviderStreamContentFilterError, "
            f"got {type(out.error).__name__}: {out.error}"
        )
        _refused_once(out, sent)

    @http_case
    async def test_unsupported_model_is_typed_not_retried_circuit_neutral(
        self, case: HTTPCase
    ) -> None:
        """A model the provider does not serve is a ``ProviderUnsupportedModelError``, sent once.

        The server answers its dialect's HTTP 404 for an unknown model: OpenAI's
        ``code: "model_not_found"`` (chat completions, Responses), Anthropic's
        ``not_found_error`` "model: <name>", Gemini's ``NOT_FOUND`` "models/<name> is not
        found ...", Ollama's ``model "<name>" not found, try pulling it first``. What a caller
        depends on:

        - ``invoke()`` fails with a ``ProviderUnsupportedModelError`` that keeps its ``status``
          (404; core's ``ProviderStatusUnsupportedModelError``, also a ``ProviderClientError``),
          after exactly one request: the same name is refused the same way, so a retry only
          spends time;
        - the circuit stays closed: on a model whose circuit opens at one failure, the next
          call still reaches the server (counted, one caller's typo would cut every other
          caller off);
        - with ``streams``, ``stream()`` raises the same family after one request, the
          circuit closed again;
        - the key appears in no error (every case scans for it).

        Troubleshooting: ``except ProviderUnsupportedModelError`` is how callers tell "fix the
        model name" from a broken request. The OpenAI dialect's ``openai_status_error`` reads
        ``model_not_found``; a vendor whose 404 says it in its own words maps that body in its
        ``map_status_error`` to ``ProviderStatusUnsupportedModelError`` (only when the body
        names the model: a 404 for a wrong path stays a plain client error) and falls back to
        ``super().map_status_error(info)``; never turn it into a plain ``ProviderClientError``
        / ``ProviderError`` or a status-less class, never retry inside ``call``.
        """
        model = case.model(failure_threshold=1)
        before = case.attempts
        call = await case.invoke(model, "model_not_found")
        sent = case.attempts - before
        refused = "an unsupported model (HTTP 404)"
        await _circuit_stayed_closed(
            case,
            model,
            call.execution.exception,
            "invoke()",
            refused=refused,
            why=_UNSUPPORTED_MODEL_WHY,
        )
        exc = raised(call, ProviderUnsupportedModelError, refused)
        status = getattr(exc, "status", None)
        assert status == 404, (
            f"the refusal {type(exc).__name__} has status {status!r}; the server answered "
            "HTTP 404, which callers read from the error (keep core's "
            "ProviderStatusUnsupportedModelError)"
        )
        assert sent == 1, f"an unsupported model was attempted {sent} times, expected 1"
        case.assert_key_sent(model)
        if not self.streams:
            return
        before = case.attempts
        out = await case.stream(model, "model_not_found")
        sent = case.attempts - before
        await _circuit_stayed_closed(
            case, model, out.error, "stream()", refused=refused, why=_UNSUPPORTED_MODEL_WHY
        )
        assert isinstance(out.error, ProviderUnsupportedModelError), (
            "an unsupported model in a stream: expected ProviderUnsupportedModelError, got "
            f"{type(out.error).__name__}: {out.error}"
        )
        shown = [c.type for c in out.chunks if c.type in ("text", "tool_use", "result")]
        assert shown == [], f"a refused stream yielded output chunks: {shown}"
        assert sent == 1, f"a refused stream was attempted {sent} times, expected 1"

    @http_case
    async def test_capability_refusal_is_typed_not_retried_circuit_neutral(
        self, case: HTTPCase
    ) -> None:
        """A model refusing what the request asks of it is a ``ProviderCapabilityError``, once.

        The server answers its dialect's HTTP 400 for a capability the model lacks
        (``unsupported_capability``): OpenAI's "Invalid content type. image_url is only
        supported by certain models." (chat completions, Responses), Anthropic's
        ``invalid_request_error`` "'<model>' does not support thinking.", Gemini's
        ``INVALID_ARGUMENT`` "Function calling is not enabled for models/<model>", Ollama's
        "<model> does not support tools". What a caller depends on:

        - ``invoke()`` fails with a ``ProviderCapabilityError`` that keeps its ``status`` (400;
          core's ``ProviderStatusCapabilityError``, also a ``ProviderClientError``) and names
          the refused capability in core's words (``capability``: ``"vision"``,
          ``"thinking"``, ``"tools"``), after exactly one request: the same request is refused
          the same way, so a retry only spends time;
        - the circuit stays closed: on a model whose circuit opens at one failure, the next
          call still reaches the server (counted, one caller offering tools to a model without
          them would cut every other caller off);
        - with ``streams``, ``stream()`` raises the same family, naming the same capability,
          after one request and without an output chunk, the circuit closed again (the refusal
          met at stream setup; inside a 200 stream it is
          ``test_in_stream_capability_refusal_is_typed_not_retried_circuit_neutral``);
        - the key appears in no error (every case scans for it).

        Applies to the dialects the fake server renders the refusal for (``openai_chat``,
        ``openai_responses``, ``anthropic_messages``, ``gemini``, ``ollama``); others are
        skipped with the reason.

        Troubleshooting: ``except ProviderCapabilityError`` is how callers tell "use another
        model, or drop the tools/thinking/image" from a broken request. Core's status mapping
        types the vendor's text (its shared ``capability`` rule); a ``map_status_error`` hook
        must return None for a body it does not own (or fall back to
        ``super().map_status_error(info)``), never turn the 400 into a plain
        ``ProviderClientError`` / ``ProviderError``, a status-less class or an error without
        its ``capability``; never retry inside ``call``/``stream``, and never turn the
        refusal met at stream setup into a protocol or stream error.
        """
        expected = CAPABILITY_REFUSED.get(self.dialect)
        if expected is None:
            pytest.skip(
                f"the fake server renders no capability-refusal error in the {self.dialect} "
                f"dialect (only {', '.join(sorted(CAPABILITY_REFUSED))})"
            )
        model = case.model(failure_threshold=1)
        before = case.attempts
        call = await case.invoke(model, "unsupported_capability")
        sent = case.attempts - before
        refused = "a capability refusal (HTTP 400)"
        await _circuit_stayed_closed(
            case, model, call.execution.exception, "invoke()", refused=refused, why=_CAPABILITY_WHY
        )
        exc = raised(call, ProviderCapabilityError, refused)
        status = getattr(exc, "status", None)
        assert status == 400, (
            f"the refusal {type(exc).__name__} has status {status!r}; the server answered "
            "HTTP 400, which callers read from the error (keep core's "
            "ProviderStatusCapabilityError)"
        )
        named = getattr(exc, "capability", None)
        assert named == expected, (
            f"the refusal {type(exc).__name__} names capability {named!r}; the server's text "
            f"refused {expected!r}, which callers read from the error (keep core's "
            "ProviderStatusCapabilityError, or pass capability= on)"
        )
        assert sent == 1, f"a capability refusal was attempted {sent} times, expected 1"
        case.assert_key_sent(model)
        if not self.streams:
            return
        before = case.attempts
        out = await case.stream(model, "unsupported_capability")
        sent = case.attempts - before
        await _circuit_stayed_closed(
            case, model, out.error, "stream()", refused=refused, why=_CAPABILITY_WHY
        )
        assert isinstance(out.error, ProviderCapabilityError), (
            "a capability refusal in a stream: expected ProviderCapabilityError, got "
            f"{type(out.error).__name__}: {out.error}"
        )
        named = getattr(out.error, "capability", None)
        assert named == expected, (
            f"a capability refusal in a stream names capability {named!r}, not {expected!r}"
        )
        shown = [c.type for c in out.chunks if c.type in ("text", "tool_use", "result")]
        assert shown == [], f"a refused stream yielded output chunks: {shown}"
        assert sent == 1, f"a refused stream was attempted {sent} times, expected 1"

    @http_case
    async def test_in_stream_capability_refusal_is_typed_not_retried_circuit_neutral(
        self, case: HTTPCase
    ) -> None:
        """A capability refusal inside a 200 stream is a ``ProviderStreamCapabilityError``, once.

        The server opens the stream, then sends its dialect's error event carrying the same
        refusal the HTTP 400 carries (``stream_unsupported_capability``), before any output: a
        chat ``{"error": ...}`` chunk after the role frame, a Responses ``error`` event after
        ``response.in_progress``, Anthropic's ``event: error`` after ``message_start``, Gemini's
        ``{"error": ...}`` chunk, Ollama's ``{"error": "..."}`` line; as a gateway relays a
        refusal that reached it once its own stream had begun. What a caller depends on:

        - ``stream()`` yields exactly one ``error`` chunk and nothing else (the request was
          refused, so there is no answer), then raises ``ProviderStreamCapabilityError`` (core's
          ``classify_stream_error`` reads the refusal's text: a ``ProviderStreamError`` and a
          ``ProviderCapabilityError``) naming the refused capability in core's words
          (``capability``: ``"vision"``, ``"thinking"``, ``"tools"``), after one request; the
          call is FAILED;
        - the circuit stays closed: on a model whose circuit opens at one failure, the next
          call still reaches the server;
        - the key appears in no error (every case scans for it; the request must carry it).

        Applies with ``streams`` to the dialects the fake server renders the refusal for
        (``openai_chat``, ``openai_responses``, ``anthropic_messages``, ``gemini``,
        ``ollama``); others are skipped with the reason.

        Troubleshooting: project the vendor's error event to one ``error`` chunk carrying its
        text, ``code``/``type`` and ``status`` (``ProjectorBase.error_chunk``), and stop there;
        a ``stream_error`` override must keep the family core's ``classify_stream_error`` found
        (a plain ``ProviderStreamError`` counts against the circuit, a ``ProviderCapabilityError``
        that is not a ``ProviderStreamError`` hides that the refusal came in a stream) and its
        ``capability``; never re-request a stream whose error chunk reached the caller.
        """
        expected = CAPABILITY_REFUSED.get(self.dialect)
        if expected is None:
            pytest.skip(
                f"the fake server renders no capability-refusal error in the {self.dialect} "
                f"dialect (only {', '.join(sorted(CAPABILITY_REFUSED))})"
            )
        _need(self.streams, "streams")
        model = case.model(failure_threshold=1)
        before = case.attempts
        out = await case.stream(model, "stream_unsupported_capability")
        sent = case.attempts - before
        await _circuit_stayed_closed(
            case,
            model,
            out.error,
            "stream()",
            refused="a capability refusal in the stream (an error event)",
            why=_CAPABILITY_WHY,
        )
        assert isinstance(out.error, ProviderStreamCapabilityError), (
            "a capability refusal in the stream's error event: expected "
            f"ProviderStreamCapabilityError, got {type(out.error).__name__}: {out.error}"
        )
        named = getattr(out.error, "capability", None)
        assert named == expected, (
            f"the in-stream refusal {type(out.error).__name__} names capability {named!r}; the "
            f"server's text refused {expected!r}, which callers read from the error (keep the "
            "capability core's classify_stream_error named)"
        )
        _refused_once(out, sent)
        case.assert_key_sent(model)

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
    async def test_stream_ends_at_its_error_chunk(self, case: HTTPCase) -> None:
        """The endpoint's own ``stream()`` yields nothing after its one error chunk.

        ``iModel`` stops reading at the first error chunk, so output after it never reaches an
        ``iModel`` consumer and ``test_stream_error_event_is_typed`` cannot see it; this case
        reads ``Endpoint.stream()`` directly, as a caller without ``iModel`` (or another
        supervisor) does. One error chunk, last, carrying the provider's message, and the
        stream ends there (returning, or raising a provider error).

        Troubleshooting: return from ``stream()`` right after yielding the error chunk (core's
        projectors mark themselves ``done`` at an error event and the read loop stops); do not
        yield a result for the partial answer, the text read after it or a second error. "no
        message": build the chunk with ``ProjectorBase.error_chunk`` (or put the vendor's error
        text in ``content``); an empty one leaves the caller "the provider reported an error".
        """
        _need(self.streams, "streams")
        model = case.model()
        out = await case.endpoint_stream(model, "stream_error")
        kinds = [c.type for c in out.chunks]
        raised = f" (it raised {type(out.error).__name__}: {out.error})" if out.error else ""
        errors = out.of("error")
        assert len(errors) == 1, (
            f"Endpoint.stream() yielded {len(errors)} error chunks for one in-stream error; "
            f"got {kinds}{raised}"
        )
        assert out.chunks[-1] is errors[0], f"chunks follow the error chunk: {kinds}"
        assert errors[0].is_error, "the error chunk has is_error=False"
        assert (errors[0].content or "").strip(), (
            "the error chunk has no message: the provider's error text is its content (what "
            "the raised error says, and what classification reads)"
        )
        assert out.error is None or isinstance(out.error, ProviderError), (
            f"after its error chunk Endpoint.stream() raised {type(out.error).__name__}: "
            f"{out.error}"
        )
        assert case.attempts == 1, f"one stream made {case.attempts} requests"

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

        Without a caller deadline the local cap (``local_cap``, 0.5 s, as the call's
        ``APICalling.timeout``) bounds each read instead: the stall ends in a
        ``ProviderConnectionError`` after the first chunk, with no second request.

        Troubleshooting: do not shield reads from cancellation or wait on an unbounded timer;
        the supervisor cancels the read at the deadline. "past its local cap": the adapter's
        ``stream`` drops or replaces the ``timeout=`` it is given, which is what bounds each
        read when the caller set no deadline; pass it on to ``super().stream(...)`` untouched.
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
        model = case.model(max_attempts=1)
        before = case.attempts
        bound = self.local_cap + self.deadline_grace
        capped: StreamOutcome | None = None
        with anyio.move_on_after(bound):
            capped = await case.stream(model, "stall", local_cap=self.local_cap)
        assert capped is not None, (
            f"with no deadline, a stream stalled past its local cap ({self.local_cap}s, given "
            f"to stream() as timeout=) was still reading after {bound}s: the endpoint does not "
            "bound its reads by the timeout= it is given"
        )
        assert capped.chunks, "no chunk arrived before the stall"
        assert isinstance(capped.error, ProviderConnectionError), (
            f"a stream stalled past its {self.local_cap}s cap: expected ProviderConnectionError, "
            f"got {type(capped.error).__name__}: {capped.error}"
        )
        sent = case.attempts - before
        assert sent == 1, f"the capped stream was requested {sent} times, expected 1"

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

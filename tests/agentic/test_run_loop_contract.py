"""The shared CLI run loop checks ADR-0030 D3 itself, on every path a batch can take.

``SubprocessCliEndpoint`` no longer hands its batches through the generic contract guard (one
generator crossing per event less on a paced run, issue 15): the run loop checks each batch as
it makes it. These tests hold it to what the guard did: the end-of-run batch is checked too, a
violation outranks a parser failure of the same read, a confirmed session id is stored, and an
instance whose hook was wrapped (the conformance kit's probe) still gets the generic guard.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import anyio
import pytest

from lionagi.service import ProviderProtocolError, StreamChunk, iModel
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint, ReferenceEventParser

BOUND = 30.0  # "did not hang" only

_ONE_WRITE = "import sys\nsys.stdout.write(sys.argv[1])\nsys.stdout.flush()\n"


def one_write(lines: Sequence[dict[str, Any]]) -> list[str]:
    text = "".join(json.dumps(line) + "\n" for line in lines)
    return [sys.executable, "-I", "-S", "-c", _ONE_WRITE, text]


class _LateTextParser(ReferenceEventParser):
    """Emits a text chunk once stdout ended: after the run's result, which D3 forbids."""

    def finish(self) -> list[StreamChunk]:
        return [StreamChunk("text", "after the end")]


class _LateTextCli(ReferenceCliEndpoint):
    def event_parser(self, request: Any) -> ReferenceEventParser:
        return _LateTextParser(self)


class _BadThenBrokenParser(ReferenceEventParser):
    """A tool_use chunk without a name (a D3 violation), then a parser failure, in one read."""

    def feed(self, event: Mapping[str, Any]) -> list[StreamChunk]:
        if event.get("type") == "nameless":
            return [StreamChunk("tool_use", tool_id="t-1")]
        if event.get("type") == "broken":
            raise ProviderProtocolError("reference-cli: the parser's own failure")
        return super().feed(event)


class _BadThenBrokenCli(ReferenceCliEndpoint):
    def event_parser(self, request: Any) -> ReferenceEventParser:
        return _BadThenBrokenParser(self)


async def test_the_end_of_run_batch_is_checked_too() -> None:
    endpoint = _LateTextCli(argv=one_write([{"type": "text", "content": "hi"}, {"type": "result"}]))
    got: list[str] = []
    with anyio.fail_after(BOUND), pytest.raises(ProviderProtocolError, match="after the result"):
        async for batch in endpoint.stream_batches({"prompt": "go"}):
            got += [c.type for c in batch]
    assert got == ["text", "result"]  # what came before the violation was delivered

    async with iModel(endpoint=_LateTextCli(argv=endpoint.argv)) as model:
        seen: list[str] = []
        with anyio.fail_after(BOUND), pytest.raises(ProviderProtocolError, match="after the res"):
            async for chunk in model.stream(prompt="go"):
                seen.append(chunk.type)
    assert seen == ["text", "result"]


async def test_a_violation_outranks_a_parser_failure_of_the_same_read() -> None:
    lines = [{"type": "text", "content": "a"}, {"type": "nameless"}, {"type": "broken"}]
    endpoint = _BadThenBrokenCli(argv=one_write(lines))
    got: list[str] = []
    with anyio.fail_after(BOUND):
        with pytest.raises(ProviderProtocolError, match="contract violated at chunk 1: tool_use"):
            async for batch in endpoint.stream_batches({"prompt": "go"}):
                got += [c.type for c in batch]
    assert got == ["text"]


async def test_a_confirmed_session_id_is_stored_by_the_run_loop() -> None:
    lines = [
        {"type": "session", "session_id": "s-42", "model": "m"},
        {"type": "text", "content": "hi"},
        {"type": "result", "session_id": "s-42"},
    ]
    endpoint = ReferenceCliEndpoint(argv=one_write(lines))
    with anyio.fail_after(BOUND):
        chunks = [c async for c in endpoint.stream({"prompt": "go"})]
    assert [c.type for c in chunks] == ["system", "text", "result"]
    assert endpoint.session_id == "s-42"


async def test_a_wrapped_hook_still_gets_the_generic_guard() -> None:
    endpoint = ReferenceCliEndpoint(argv=one_write([{"type": "text", "content": "hi"}]))
    entered: list[bool] = []

    async def bad() -> AsyncIterator[StreamChunk]:
        yield StreamChunk("system", "assistant text in a system chunk")

    def wrapped(request: Any, **kwargs: Any) -> Any:
        entered.append(True)
        return bad()

    endpoint._stream_agentic = wrapped  # type: ignore[method-assign]
    with anyio.fail_after(BOUND), pytest.raises(ProviderProtocolError, match="system chunk"):
        async for _ in endpoint.stream_batches({"prompt": "go"}):
            pass
    assert entered == [True]  # the wrapper ran: the hook was not bypassed

"""Scenarios an adapter's fake must be able to produce, and the D3 output rules they are held to."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from lionagi.service import AgenticCapabilities, StreamChunk
from lionagi.service.agentic import CHUNK_TYPES

__all__ = [
    "CONTENT_TYPES",
    "VENDOR_GRAMMAR_SCENARIOS",
    "Scenario",
    "output_problems",
    "scenario_applies",
]

CONTENT_TYPES = frozenset({"text", "thinking", "tool_use", "tool_result"})
_SEMANTIC = CONTENT_TYPES | {"result", "error"}


class Scenario(StrEnum):
    """A behaviour the adapter's fake produces on request.

    ``TEXT``             a normal answer: at least one non-empty text chunk (or result text).
    ``TOOL``             a tool round trip: tool_use then its tool_result (``emits_tool_events``).
    ``USAGE``            a result chunk whose metadata carries ``usage`` (``reports_usage``).
    ``SESSION``          a confirmed ``session_id`` on a system chunk (``resumable``).
    ``PROVIDER_ERROR``   the provider declares failure: exactly one error chunk, last.
    ``EMPTY``            no semantic output and a clean end of stream.
    ``STALL``            at least one chunk, then nothing until cancelled.
    ``TRANSPORT_ERROR``  the transport fails without a provider error event (a raise).

    Vendor-grammar scenarios (:data:`VENDOR_GRAMMAR_SCENARIOS`): traps in how a vendor's events
    map to chunks. An adapter with no such event in its grammar declares the scenario in
    ``inapplicable_scenarios`` with the reason.

    ``RESULT_REPEATS_TEXT``  text deltas, then a result event whose text is the concatenated
                             deltas: the consumer must see that text once.
    ``ERROR_MESSAGE``        an assistant message the provider flags as an error: one error
                             chunk, never text.
    ``RETRY_NOTICE``         a retry/reconnecting notice, then a normal answer: a completion.
    ``CUT_SHORT``            (subprocess kits) a normal answer's events without its terminal
                             event, then exit 0: a run cut off, never a completion.
    """

    TEXT = "text"
    TOOL = "tool"
    USAGE = "usage"
    SESSION = "session"
    PROVIDER_ERROR = "provider_error"
    EMPTY = "empty"
    STALL = "stall"
    TRANSPORT_ERROR = "transport_error"
    RESULT_REPEATS_TEXT = "result_repeats_text"
    ERROR_MESSAGE = "error_message"
    RETRY_NOTICE = "retry_notice"
    CUT_SHORT = "cut_short"


VENDOR_GRAMMAR_SCENARIOS = frozenset(
    {
        Scenario.RESULT_REPEATS_TEXT,
        Scenario.ERROR_MESSAGE,
        Scenario.RETRY_NOTICE,
        Scenario.CUT_SHORT,
    }
)


def scenario_applies(scenario: Scenario, capabilities: AgenticCapabilities) -> bool:
    """False for a scenario whose capability the adapter does not declare."""
    if scenario is Scenario.TOOL:
        return capabilities.emits_tool_events
    if scenario is Scenario.USAGE:
        return capabilities.reports_usage
    if scenario is Scenario.SESSION:
        return capabilities.resumable
    return True


def output_problems(
    chunks: Sequence[object], capabilities: AgenticCapabilities, scenario: Scenario | None = None
) -> list[str]:
    """Every ADR-0030 D3 rule ``chunks`` break, plus what ``scenario`` requires of them.

    Written independently of core's ``enforce_agentic_contract`` so the kit does not trust the
    guard it is checking.
    """
    problems: list[str] = []
    seen_result = seen_error = False
    for index, item in enumerate(chunks):
        where = f"chunk {index}"
        if not isinstance(item, StreamChunk):
            problems.append(f"{where} is a {type(item).__name__}, not a StreamChunk")
            continue
        kind = item.type
        if kind not in CHUNK_TYPES:
            problems.append(f"{where} has unknown type {kind!r}")
        if seen_error:
            problems.append(f"{where} ({kind}) follows the error chunk")
        if kind == "system" and item.content:
            problems.append(f"{where}: a system chunk carries content (text belongs in text)")
        if kind == "error":
            seen_error = True
            if not item.is_error:
                problems.append(f"{where}: error chunk with is_error=False")
            if not item.content:
                problems.append(f"{where}: error chunk without a message")
        elif item.is_error and kind != "tool_result":
            problems.append(f"{where}: {kind} chunk with is_error=True")
        if kind == "result":
            if seen_result:
                problems.append(f"{where}: a second result chunk")
            seen_result = True
        elif kind in CONTENT_TYPES and seen_result:
            problems.append(f"{where}: {kind} chunk after the result chunk")
        if kind == "tool_use" and not item.tool_name:
            problems.append(f"{where}: tool_use without tool_name")
        if not capabilities.resumable and "session_id" in item.metadata:
            problems.append(
                f"{where}: canonical 'session_id' from a non-resumable adapter "
                "(use 'provider_session_id')"
            )
    typed = [c for c in chunks if isinstance(c, StreamChunk)]
    if scenario is not None:
        problems += _scenario_problems(typed, scenario)
    return problems


def _scenario_problems(chunks: list[StreamChunk], scenario: Scenario) -> list[str]:
    kinds = [c.type for c in chunks]
    errors = [c for c in chunks if c.type == "error"]
    if scenario in (Scenario.PROVIDER_ERROR, Scenario.ERROR_MESSAGE):
        if len(errors) != 1:
            return [f"{scenario}: expected exactly one error chunk, got {len(errors)}"]
        if chunks[-1] is not errors[0]:
            return [f"{scenario}: the error chunk is not the last chunk"]
        if scenario is Scenario.ERROR_MESSAGE:
            return _error_as_text_problems(chunks, errors[0])
        return []
    out = [f"{scenario}: unexpected error chunk {errors[0].content!r}"] if errors else []
    if scenario is Scenario.RESULT_REPEATS_TEXT:
        out += _repeated_result_problems(chunks)
    if scenario in (Scenario.TEXT, Scenario.RETRY_NOTICE):
        texts = [c for c in chunks if c.type == "text" and c.content]
        results = [c for c in chunks if c.type == "result" and c.content]
        if not texts and not results:
            out.append(f"{scenario}: no non-empty text chunk (and no result text)")
    elif scenario is Scenario.TOOL:
        uses = [c for c in chunks if c.type == "tool_use"]
        results = [c for c in chunks if c.type == "tool_result"]
        if not uses or not results:
            out.append(f"tool: expected tool_use and tool_result chunks, got {kinds}")
        elif kinds.index("tool_use") > kinds.index("tool_result"):
            out.append("tool: the first tool_result precedes the first tool_use")
        ids = {c.tool_id for c in uses if c.tool_id}
        for result in results:
            if ids and result.tool_id not in ids:
                out.append(f"tool: tool_result id {result.tool_id!r} matches no tool_use id")
    elif scenario is Scenario.USAGE:
        usage = [c.metadata.get("usage") for c in chunks if c.type == "result"]
        if not usage or not isinstance(usage[0], dict) or not usage[0]:
            out.append("usage: no result chunk with a non-empty metadata['usage'] mapping")
    elif scenario is Scenario.SESSION:
        confirmed = {
            sid
            for c in chunks
            if c.type == "system" and isinstance(sid := c.metadata.get("session_id"), str) and sid
        }
        if not confirmed:
            out.append("session: no system chunk with a non-empty metadata['session_id']")
        result_ids = {
            c.metadata["session_id"]
            for c in chunks
            if c.type == "result" and "session_id" in c.metadata
        }
        if result_ids - confirmed:
            out.append("session: the result chunk's session_id was never confirmed on a system")
    elif scenario is Scenario.EMPTY:
        semantic = [k for k in kinds if k in _SEMANTIC]
        if semantic:
            out.append(f"empty: semantic chunks {semantic} in a stream that should have none")
    elif scenario is Scenario.STALL and not chunks:
        out.append("stall: no chunk before stalling (emit one so mid-stream cancellation runs)")
    return out


def _repeated_result_problems(chunks: list[StreamChunk]) -> list[str]:
    streamed = "".join(c.content or "" for c in chunks if c.type == "text")
    if not streamed.strip():
        return ["result_repeats_text: no streamed text (the fixture streams deltas first)"]
    return [
        f"result_repeats_text: the result chunk repeats streamed text {c.content!r} "
        "(put only terminal text not already emitted in the result's content)"
        for c in chunks
        if c.type == "result" and c.content and c.content.strip() in streamed
    ]


def _error_as_text_problems(chunks: list[StreamChunk], error: StreamChunk) -> list[str]:
    message = (error.content or "").strip()
    return [
        f"error_message: the error text reached the consumer as a {c.type} chunk {c.content!r}"
        for c in chunks
        if c.type in ("text", "thinking", "result")
        and c.content
        and c.content.strip()
        and (c.content.strip() in message or message in c.content)
    ]

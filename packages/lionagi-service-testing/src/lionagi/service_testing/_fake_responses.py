"""OpenAI Responses wire (what ``codex exec`` speaks): a response object, or the event stream.

The stream follows the real grammar: ``response.created`` and ``response.in_progress``; per
output item ``response.output_item.added`` ... ``response.output_item.done`` (reasoning items
with ``response.reasoning_summary_*`` events, message items with ``response.content_part.*`` and
``response.output_text.*``, function calls with ``response.function_call_arguments.*``); then
``response.completed`` carrying usage, or ``response.failed`` carrying the error. Every event has
a ``sequence_number`` counting from 0. An answer cut at the output token limit (``token_limit``)
is ``status: "incomplete"`` with ``incomplete_details.reason: "max_output_tokens"`` (its message
item ``incomplete`` too), and its stream ends with ``response.incomplete``. A request refused
once the stream had begun (``stream_unsupported_capability``) gets an ``error`` event after
``response.in_progress``, its error object nested as the service sends it (openai-dotnet#881).
"""

from __future__ import annotations

from typing import Any

from ._fake_errors import openai_error
from ._fake_request import RequestFacts
from ._fake_script import Script
from ._fake_wire import CREATED, USAGE_INPUT, USAGE_OUTPUT, USAGE_TOTAL, Rendered, dumps, js

__all__ = ["responses_json", "responses_stream"]

_USAGE = {
    "input_tokens": USAGE_INPUT,
    "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
    "output_tokens": USAGE_OUTPUT,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": USAGE_TOTAL,
}


def _response(
    seq: int, model: str, status: str, output: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    return {
        "id": f"resp_fake_{seq}",
        "object": "response",
        "created_at": CREATED,
        "status": status,
        "error": extra.get("error"),
        "incomplete_details": extra.get("incomplete_details"),
        "model": model,
        "output": output,
        # Fields every Response object carries (the openai SDK's model requires them).
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": extra.get("usage"),
    }


def _items(script: Script, seq: int) -> list[dict[str, Any]]:
    """The completed output items, in output order."""
    items: list[dict[str, Any]] = []
    if script.thinking:
        summary = [{"type": "summary_text", "text": "".join(script.thinking)}]
        items.append({"id": f"rs_fake_{seq}", "type": "reasoning", "summary": summary})
    if script.tool is not None:
        items.append(
            {
                "id": f"fc_fake_{seq}",
                "type": "function_call",
                "status": "completed",
                "arguments": script.tool.arguments_json,
                "call_id": f"call_fake_{seq}",
                "name": script.tool.name,
            }
        )
    else:
        part = {"type": "output_text", "annotations": [], "text": script.text}
        items.append(
            {
                "id": f"msg_fake_{seq}",
                "type": "message",
                "status": "incomplete" if script.limit else "completed",
                "content": [part],
                "role": "assistant",
            }
        )
    return items


def _final(script: Script, seq: int, model: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    """The finished ``response`` object: completed, or incomplete at the output token limit."""
    if script.limit:
        details = {"reason": "max_output_tokens"}
        return _response(seq, model, "incomplete", items, usage=_USAGE, incomplete_details=details)
    return _response(seq, model, "completed", items, usage=_USAGE)


def responses_json(script: Script, seq: int, facts: RequestFacts) -> bytes:
    """A complete ``response`` object, as returned when ``stream`` is false."""
    return dumps(_final(script, seq, facts.model, _items(script, seq)))


class _Events:
    """Accumulates SSE frames, numbering each event."""

    __slots__ = ("frames",)

    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def add(self, kind: str, body: dict[str, Any]) -> None:
        payload = {"type": kind, "sequence_number": len(self.frames), **body}
        self.frames.append(b"event: " + kind.encode() + b"\ndata: " + dumps(payload) + b"\n\n")

    def delta(self, kind: bytes, middle: bytes, piece: str) -> None:
        """Fast path for the many small delta events: splice the piece into a template."""
        self.frames.append(
            b"event: " + kind + b'\ndata: {"type":"' + kind + b'","sequence_number":'
            + str(len(self.frames)).encode() + middle + js(piece) + b"}\n\n"
        )  # fmt: skip


def _reasoning(ev: _Events, item: dict[str, Any], index: int, pieces: tuple[str, ...]) -> int:
    ref = {"item_id": item["id"], "output_index": index, "summary_index": 0}
    ev.add("response.output_item.added", {"output_index": index, "item": {**item, "summary": []}})
    empty = {"type": "summary_text", "text": ""}
    ev.add("response.reasoning_summary_part.added", {**ref, "part": empty})
    first = len(ev.frames)
    middle = b"," + dumps(ref)[1:-1] + b',"delta":'
    for piece in pieces:
        ev.delta(b"response.reasoning_summary_text.delta", middle, piece)
    text = "".join(pieces)
    ev.add("response.reasoning_summary_text.done", {**ref, "text": text})
    part = {"type": "summary_text", "text": text}
    ev.add("response.reasoning_summary_part.done", {**ref, "part": part})
    ev.add("response.output_item.done", {"output_index": index, "item": item})
    return first


def _message(ev: _Events, item: dict[str, Any], index: int, pieces: tuple[str, ...]) -> int:
    ref = {"item_id": item["id"], "output_index": index, "content_index": 0}
    added = {**item, "status": "in_progress", "content": []}
    ev.add("response.output_item.added", {"output_index": index, "item": added})
    empty = {"type": "output_text", "annotations": [], "text": ""}
    ev.add("response.content_part.added", {**ref, "part": empty})
    first = len(ev.frames)
    middle = b"," + dumps(ref)[1:-1] + b',"logprobs":[],"delta":'
    for piece in pieces:
        ev.delta(b"response.output_text.delta", middle, piece)
    text = "".join(pieces)
    ev.add("response.output_text.done", {**ref, "text": text, "logprobs": []})
    ev.add("response.content_part.done", {**ref, "part": item["content"][0]})
    ev.add("response.output_item.done", {"output_index": index, "item": item})
    return first


def _function_call(ev: _Events, item: dict[str, Any], index: int, pieces: tuple[str, ...]) -> int:
    ref = {"item_id": item["id"], "output_index": index}
    added = {**item, "status": "in_progress", "arguments": ""}
    ev.add("response.output_item.added", {"output_index": index, "item": added})
    first = len(ev.frames)
    middle = b"," + dumps(ref)[1:-1] + b',"delta":'
    for piece in pieces:
        ev.delta(b"response.function_call_arguments.delta", middle, piece)
    done = {**ref, "name": item["name"], "arguments": item["arguments"]}
    ev.add("response.function_call_arguments.done", done)
    ev.add("response.output_item.done", {"output_index": index, "item": item})
    return first


def responses_stream(
    script: Script,
    seq: int,
    facts: RequestFacts,
    *,
    fail: bool = False,
    refused: str | None = None,
) -> Rendered:
    """The Responses event stream; ``fail`` ends with ``response.failed`` after first output.

    ``refused`` (an error kind, ``"unsupported_capability"``): ``response.created`` and
    ``response.in_progress``, then one ``error`` event whose ``error`` is that kind's 400 object
    (:func:`openai_error`), and nothing after it: the request was refused, so no output item.
    The nested form is what the service sends (its reference documents ``code``/``message`` on
    the event itself; openai-dotnet#881 shows the nesting).
    """
    items = _items(script, seq)
    ev = _Events()
    ev.add("response.created", {"response": _response(seq, facts.model, "in_progress", [])})
    ev.add("response.in_progress", {"response": _response(seq, facts.model, "in_progress", [])})
    if refused is not None:
        ev.add("error", {"error": openai_error(refused)["error"]})
        return Rendered(ev.frames, first_output=len(ev.frames) - 1)
    firsts: list[int] = []
    for index, item in enumerate(items):
        if item["type"] == "reasoning":
            firsts.append(_reasoning(ev, item, index, script.thinking))
        elif item["type"] == "function_call":
            pieces = script.tool.fragments if script.tool is not None else ()
            firsts.append(_function_call(ev, item, index, pieces))
        else:
            firsts.append(_message(ev, item, index, script.chunks))
    first_output = firsts[0]
    if fail:
        del ev.frames[first_output + 1 :]
        failed = {"code": "server_error", "message": openai_error(500)["error"]["message"]}
        response = _response(seq, facts.model, "failed", [], error=failed)
        ev.add("response.failed", {"response": response})
        return Rendered(ev.frames, first_output=first_output)
    final = _final(script, seq, facts.model, items)
    ev.add(f"response.{final['status']}", {"response": final})
    return Rendered(ev.frames, first_output=first_output)

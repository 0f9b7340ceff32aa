"""Anthropic Messages wire (what ``claude`` speaks): a message object, or the event stream.

Stream grammar: ``message_start``, ``ping``, then per content block ``content_block_start`` /
``content_block_delta`` (``thinking_delta`` + ``signature_delta``, ``text_delta``, or
``input_json_delta`` fragments for ``tool_use``) / ``content_block_stop``; then ``message_delta``
with ``stop_reason`` and usage and ``message_stop``. An in-stream failure is ``event: error``,
after the first output (``stream_error``) or, for a refused request
(``stream_unsupported_capability``), right after ``message_start`` and ``ping``.
An answer cut at the output token limit (``token_limit``) stops with ``"max_tokens"``.
"""

from __future__ import annotations

from typing import Any

from ._fake_errors import anthropic_error
from ._fake_request import RequestFacts
from ._fake_script import Script
from ._fake_wire import USAGE_INPUT, USAGE_OUTPUT, Rendered, dumps, js, sse_event

__all__ = ["SIGNATURE", "messages_json", "messages_stream"]

SIGNATURE = "fake-sig"


def _usage(output_tokens: int) -> dict[str, int]:
    return {
        "input_tokens": USAGE_INPUT,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _blocks(script: Script, seq: int) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if script.thinking:
        thinking = "".join(script.thinking)
        blocks.append({"type": "thinking", "thinking": thinking, "signature": SIGNATURE})
    if script.tool is not None:
        tool = script.tool
        blocks.append(
            {
                "type": "tool_use",
                "id": f"toolu_fake_{seq}",
                "name": tool.name,
                "input": tool.arguments,
            }
        )
    else:
        blocks.append({"type": "text", "text": script.text})
    return blocks


def _message(seq: int, model: str, content: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "id": f"msg_fake_{seq}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": extra.get("stop_reason"),
        "stop_sequence": None,
        "usage": _usage(extra.get("output_tokens", 1)),
    }


def _stop_reason(script: Script) -> str:
    if script.tool is not None:
        return "tool_use"
    return "max_tokens" if script.limit else "end_turn"


def messages_json(script: Script, seq: int, facts: RequestFacts) -> bytes:
    """A complete ``message`` object, as returned when ``stream`` is false."""
    stop = _stop_reason(script)
    blocks = _blocks(script, seq)
    return dumps(_message(seq, facts.model, blocks, stop_reason=stop, output_tokens=USAGE_OUTPUT))


def _event(kind: str, body: dict[str, Any]) -> bytes:
    return sse_event(kind.encode(), dumps({"type": kind, **body}))


def _deltas(index: int, kind: bytes, field: bytes, pieces: tuple[str, ...]) -> list[bytes]:
    head = (
        b'{"type":"content_block_delta","index":' + str(index).encode()
        + b',"delta":{"type":"' + kind + b'","' + field + b'":'
    )  # fmt: skip
    return [sse_event(b"content_block_delta", head + js(piece) + b"}}") for piece in pieces]


def messages_stream(
    script: Script,
    seq: int,
    facts: RequestFacts,
    *,
    fail: bool = False,
    refused: str | None = None,
) -> Rendered:
    """The Messages event stream; ``fail`` ends with ``event: error`` after first output.

    ``refused`` (an error kind, ``"unsupported_capability"``): ``message_start`` and ``ping``,
    then ``event: error`` carrying that kind's error object (:func:`anthropic_error`) and
    nothing after it: no content block, the request itself was refused.
    """
    message = _message(seq, facts.model, [])
    frames = [_event("message_start", {"message": message}), _event("ping", {})]
    if refused is not None:
        frames.append(_event("error", {"error": anthropic_error(refused)["error"]}))
        return Rendered(frames, first_output=len(frames) - 1)
    first_output = -1
    for index, block in enumerate(_blocks(script, seq)):
        if block["type"] == "thinking":
            start = {**block, "thinking": "", "signature": ""}
            deltas = _deltas(index, b"thinking_delta", b"thinking", script.thinking)
            deltas += _deltas(index, b"signature_delta", b"signature", (SIGNATURE,))
        elif block["type"] == "tool_use":
            start = {**block, "input": {}}
            pieces = script.tool.fragments if script.tool is not None else ()
            deltas = _deltas(index, b"input_json_delta", b"partial_json", ("", *pieces))
        else:
            start = {**block, "text": ""}
            deltas = _deltas(index, b"text_delta", b"text", script.chunks)
        frames.append(_event("content_block_start", {"index": index, "content_block": start}))
        if first_output < 0:
            first_output = len(frames)
        frames.extend(deltas)
        frames.append(_event("content_block_stop", {"index": index}))
    if fail:
        del frames[first_output + 1 :]
        frames.append(_event("error", {"error": anthropic_error(503)["error"]}))
        return Rendered(frames, first_output=first_output)
    delta = {"stop_reason": _stop_reason(script), "stop_sequence": None}
    frames.append(
        _event("message_delta", {"delta": delta, "usage": {"output_tokens": USAGE_OUTPUT}})
    )
    frames.append(_event("message_stop", {}))
    return Rendered(frames, first_output=first_output)

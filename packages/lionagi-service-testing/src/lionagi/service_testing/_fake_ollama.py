"""Ollama's native wire: ``/api/chat`` and ``/api/generate`` as NDJSON, ``/api/embed`` as JSON.

Ollama streams unless the request says ``"stream": false``: one JSON object per line
(``application/x-ndjson``), each ``{"model", "created_at", ..., "done": false}``, with the text
in ``message.content`` (chat) or ``response`` (generate) and thinking in ``message.thinking`` /
``thinking``. Tool calls arrive whole in one line (Ollama does not stream arguments) with the
arguments as an object. The last line has ``"done": true``, ``done_reason`` and the counters and
durations (nanoseconds). An in-stream failure is a bare ``{"error": "..."}`` line: after the first
output (``stream_error``), or as the only line of a refused request
(``stream_unsupported_capability``). An answer cut at the output token limit (``token_limit``)
ends with ``done_reason: "length"``.
"""

from __future__ import annotations

from typing import Any

from ._fake_embeddings import EMBEDDING_DIMENSIONS, embed
from ._fake_errors import ollama_error
from ._fake_request import DEFAULT_MODEL, RequestFacts
from ._fake_script import Script
from ._fake_wire import USAGE_INPUT, USAGE_OUTPUT, Rendered, dumps, js

__all__ = [
    "NDJSON",
    "OLLAMA_CREATED_AT",
    "ollama_chat_json",
    "ollama_chat_stream",
    "ollama_embed_json",
    "ollama_generate_json",
    "ollama_generate_stream",
]

NDJSON = b"application/x-ndjson"
# The fixed clock of ``_fake_wire.CREATED`` in Ollama's RFC 3339 form.
OLLAMA_CREATED_AT = "2023-11-14T22:13:20Z"
_STATS: dict[str, Any] = {
    "total_duration": 5_000_000,
    "load_duration": 1_000_000,
    "prompt_eval_count": USAGE_INPUT,
    "prompt_eval_duration": 1_000_000,
    "eval_count": USAGE_OUTPUT,
    "eval_duration": 3_000_000,
}
# Token ids a real ``/api/generate`` returns to continue the context; opaque to clients.
_CONTEXT = [1, 2, 3]
_MAX_DIMENSIONS = 4096


def _head(facts: RequestFacts) -> bytes:
    return b'{"model":' + js(facts.model) + b',"created_at":"' + OLLAMA_CREATED_AT.encode() + b'"'


def _line(payload: bytes) -> bytes:
    return payload + b"\n"


def _tool_calls(script: Script) -> list[dict[str, Any]]:
    if script.tool is None:
        return []
    return [{"function": {"name": script.tool.name, "arguments": script.tool.arguments}}]


def _done(script: Script, facts: RequestFacts, **fields: Any) -> dict[str, Any]:
    return {
        "model": facts.model,
        "created_at": OLLAMA_CREATED_AT,
        **fields,
        "done": True,
        "done_reason": "length" if script.limit else "stop",
        **_STATS,
    }


def _failed(frames: list[bytes]) -> Rendered:
    return Rendered([*frames[:1], _line(dumps(ollama_error(500)))], first_output=0)


def _refused(kind: str) -> Rendered:
    """The error line of ``kind`` (:func:`ollama_error`) as the stream's only line: no output."""
    return Rendered([_line(dumps(ollama_error(kind)))], first_output=0)


def ollama_chat_json(script: Script, seq: int, facts: RequestFacts) -> bytes:
    """The one object ``/api/chat`` answers with ``"stream": false``."""
    message: dict[str, Any] = {"role": "assistant", "content": script.text}
    if script.thinking:
        message["thinking"] = "".join(script.thinking)
    if script.tool is not None:
        message["tool_calls"] = _tool_calls(script)
    return dumps(_done(script, facts, message=message))


def ollama_chat_stream(
    script: Script,
    seq: int,
    facts: RequestFacts,
    *,
    fail: bool = False,
    refused: str | None = None,
) -> Rendered:
    """``/api/chat`` NDJSON lines; ``fail`` ends with an ``{"error": ...}`` line.

    ``refused`` (an error kind, ``"unsupported_capability"``): that kind's error line alone.
    """
    if refused is not None:
        return _refused(refused)
    head = _head(facts) + b',"message":{"role":"assistant","content":'
    frames = [
        _line(head + b'"","thinking":' + js(piece) + b'},"done":false}')
        for piece in script.thinking
    ]
    frames += [_line(head + js(piece) + b'},"done":false}') for piece in script.chunks]
    if script.tool is not None:
        calls = dumps(_tool_calls(script))
        frames.append(_line(head + b'"","tool_calls":' + calls + b'},"done":false}'))
    if fail:
        return _failed(frames)
    done = _done(script, facts, message={"role": "assistant", "content": ""})
    frames.append(_line(dumps(done)))
    return Rendered(frames, first_output=0)


def ollama_generate_json(script: Script, seq: int, facts: RequestFacts) -> bytes:
    """The one object ``/api/generate`` answers with ``"stream": false``."""
    fields: dict[str, Any] = {"response": script.text}
    if script.thinking:
        fields["thinking"] = "".join(script.thinking)
    return dumps(_done(script, facts, **fields, context=_CONTEXT))


def ollama_generate_stream(
    script: Script,
    seq: int,
    facts: RequestFacts,
    *,
    fail: bool = False,
    refused: str | None = None,
) -> Rendered:
    """``/api/generate`` NDJSON lines; ``fail`` ends with an ``{"error": ...}`` line.

    ``refused`` (an error kind, ``"unsupported_capability"``): that kind's error line alone.
    """
    if refused is not None:
        return _refused(refused)
    head = _head(facts) + b',"response":'
    frames = [
        _line(head + b'"","thinking":' + js(piece) + b',"done":false}') for piece in script.thinking
    ]
    frames += [_line(head + js(piece) + b',"done":false}') for piece in script.chunks]
    if fail:
        return _failed(frames)
    frames.append(_line(dumps(_done(script, facts, response="", context=_CONTEXT))))
    return Rendered(frames, first_output=0)


def ollama_embed_json(body: dict[str, Any]) -> bytes:
    """``/api/embed``: ``{"embeddings": [[...], ...]}`` for a string or a list of strings."""
    raw = body.get("input", "")
    inputs = [str(item) for item in raw] if isinstance(raw, list) else [str(raw)]
    dims = body.get("dimensions")
    size = dims if isinstance(dims, int) and 0 < dims <= _MAX_DIMENSIONS else EMBEDDING_DIMENSIONS
    model = body.get("model") if isinstance(body.get("model"), str) else DEFAULT_MODEL
    return dumps(
        {
            "model": model,
            "embeddings": [embed(text, size) for text in inputs],
            "total_duration": _STATS["total_duration"],
            "load_duration": _STATS["load_duration"],
            "prompt_eval_count": sum(max(1, len(text.split())) for text in inputs),
        }
    )

"""OpenAI chat-completions wire: one JSON completion, or ``data:`` chunks ending in ``[DONE]``.

Thinking travels as ``delta.reasoning_content`` (the DeepSeek/vLLM convention that pi and most
OpenAI-compatible clients read); tool calls as ``delta.tool_calls`` fragments with the id and
name in the first and the arguments split across the rest. An answer cut at the output token
limit (``token_limit``) ends with ``finish_reason: "length"``. A refused prompt
(``content_filter``) is Azure OpenAI's 400 one-shot and the same error object as an in-stream
error event when streamed; so is a capability refusal (``stream_unsupported_capability``: the
object of ``unsupported_capability``'s 400).

The chunk frames themselves (:class:`ChunkFrames`) are shared with Exa's answer stream
(``_fake_search``), whose text arrives in the same ``chat.completion.chunk`` shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._fake_errors import openai_error
from ._fake_request import RequestFacts
from ._fake_script import Script
from ._fake_wire import (
    CREATED,
    SSE_DONE,
    USAGE_INPUT,
    USAGE_OUTPUT,
    USAGE_TOTAL,
    Rendered,
    dumps,
    js,
    sse_data,
)

__all__ = ["ChunkFrames", "chat_json", "chat_stream", "chunk_frames"]

_USAGE = {
    "prompt_tokens": USAGE_INPUT,
    "completion_tokens": USAGE_OUTPUT,
    "total_tokens": USAGE_TOTAL,
}


_OPEN_TAIL = b',"logprobs":null,"finish_reason":null}]}'


@dataclass(frozen=True, slots=True)
class ChunkFrames:
    """The ``chat.completion.chunk`` SSE frames of one stream, spliced onto one rendered head.

    The head (id, created, model, fingerprint, the first choice up to its ``delta``) is the same
    on every frame of a stream, so it is rendered once and each frame only adds its delta: one
    ``json.dumps`` of the piece and a concatenation, which keeps the benchmarks' streams cheap.
    """

    head: bytes

    def delta(self, delta: bytes) -> bytes:
        """A frame whose choice carries ``delta`` (a rendered JSON object) and no finish reason."""
        return sse_data(self.head + delta + _OPEN_TAIL)

    def text(self, piece: str) -> bytes:
        """A frame whose delta is the answer text ``piece``."""
        return self.delta(b'{"content":' + js(piece) + b"}")

    def finish(self, reason: str) -> bytes:
        """The frame ending the choice: an empty delta with ``finish_reason`` ``reason``."""
        return sse_data(self.head + b'{},"logprobs":null,"finish_reason":' + js(reason) + b"}]}")


def chunk_frames(chunk_id: str, model: str) -> ChunkFrames:
    """The frames of the stream ``chunk_id`` answered by ``model``."""
    head = (
        b'{"id":' + js(chunk_id) + b',"object":"chat.completion.chunk","created":'
        + str(CREATED).encode() + b',"model":' + js(model)
        + b',"system_fingerprint":"fp_fake","choices":[{"index":0,"delta":'
    )  # fmt: skip
    return ChunkFrames(head)


def _finish_reason(script: Script) -> str:
    if script.tool is not None:
        return "tool_calls"
    return "length" if script.limit else "stop"


def chat_json(script: Script, seq: int, facts: RequestFacts) -> bytes:
    """A complete ``chat.completion`` object."""
    message: dict[str, Any] = {"role": "assistant", "content": script.text or None}
    if script.thinking:
        message["reasoning_content"] = "".join(script.thinking)
    if script.tool is not None:
        message["tool_calls"] = [
            {
                "id": f"call_fake_{seq}",
                "type": "function",
                "function": {"name": script.tool.name, "arguments": script.tool.arguments_json},
            }
        ]
    elif message["content"] is None:
        message["content"] = ""
    return dumps(
        {
            "id": f"chatcmpl-fake-{seq}",
            "object": "chat.completion",
            "created": CREATED,
            "model": facts.model,
            "system_fingerprint": "fp_fake",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": _finish_reason(script),
                }
            ],
            "usage": _USAGE,
        }
    )


def chat_stream(
    script: Script,
    seq: int,
    facts: RequestFacts,
    *,
    fail: bool = False,
    refused: str | None = None,
) -> Rendered:
    """``chat.completion.chunk`` SSE frames; ``fail`` ends with an in-stream error object.

    ``refused`` (an error kind: ``"content_filter"``, ``"unsupported_capability"``): the
    opening role frame, then that kind's error object (:func:`openai_error`: Azure's
    content-filter refusal, or the "image_url is only supported by certain models" 400) as the
    stream's error event and nothing after it, the way a gateway relays a refusal that reached
    it once its own 200 stream had begun. No answer text: the request itself was refused.
    """
    chunk_id = f"chatcmpl-fake-{seq}"
    chunk = chunk_frames(chunk_id, facts.model)
    frames = [chunk.delta(b'{"role":"assistant","content":""}')]
    if refused is not None:
        frames.append(sse_data(dumps(openai_error(refused))))
        return Rendered(frames, first_output=1)
    for piece in script.thinking:
        frames.append(chunk.delta(b'{"reasoning_content":' + js(piece) + b"}"))
    for piece in script.chunks:
        frames.append(chunk.text(piece))
    if script.tool is not None:
        call = {
            "index": 0,
            "id": f"call_fake_{seq}",
            "type": "function",
            "function": {"name": script.tool.name, "arguments": ""},
        }
        frames.append(chunk.delta(dumps({"tool_calls": [call]})))
        for fragment in script.tool.fragments:
            delta = {"tool_calls": [{"index": 0, "function": {"arguments": fragment}}]}
            frames.append(chunk.delta(dumps(delta)))
    if fail:
        frames = [*frames[:2], sse_data(dumps(openai_error(500)))]
        return Rendered(frames, first_output=1)

    frames.append(chunk.finish(_finish_reason(script)))
    if facts.include_usage or script.usage:
        usage_chunk = {
            "id": chunk_id,
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": facts.model,
            "system_fingerprint": "fp_fake",
            "choices": [],
            "usage": _USAGE,
        }
        frames.append(sse_data(dumps(usage_chunk)))
    frames.append(SSE_DONE)
    return Rendered(frames, first_output=1)

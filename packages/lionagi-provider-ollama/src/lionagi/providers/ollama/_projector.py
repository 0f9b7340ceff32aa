"""Ollama's native ``/api/generate`` stream: one JSON object per NDJSON line.

Each line is ``{"model", "created_at", "response", "thinking"?, "done": false}``; the last has
``"done": true`` with ``done_reason``, the token counters (``prompt_eval_count``,
``eval_count``) and the durations in nanoseconds. A failure is a bare ``{"error": "..."}``
line. A model the server parses with a built-in parser (gpt-oss, qwen3-coder, ...) may answer
with a tool call although generate takes no ``tools`` (a prompt or system text that describes
tools): the parser moves it out of ``response`` into the last line's ``tool_calls``, each
``{"id"?, "function": {"index", "name", "arguments": {...}}}`` with the arguments an object;
each is one ``tool_use`` chunk. A one-shot answer (``"stream": false``) is the same object as
the last line, with the whole ``response``; fed here it projects the same way.

Asked for with ``logprobs: true``, a line carries ``logprobs`` (one entry per token: ``token``,
``logprob``, ``bytes``, ``top_logprobs``), kept on that line's last text or thinking chunk as
``metadata["logprobs"]``. A built-in parser holds text back (a tag it has not closed yet) and
the server still sends that line for its scores, with no text: those scores are carried to the
next chunk, and any left at the end go on the result chunk, so none is dropped.

A cloud model served through a local server (``gpt-oss:120b-cloud``) adds ``remote_model`` and
``remote_host`` to every line, naming the upstream model and host; the result chunk keeps them,
as the one-shot body does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lionagi.service import StreamChunk
from lionagi.service.http import NO_CHUNKS, ProjectorBase

__all__ = ["DURATION_FIELDS", "REMOTE_FIELDS", "OllamaGenerateProjector"]

DURATION_FIELDS = (
    "total_duration",
    "load_duration",
    "prompt_eval_duration",
    "eval_duration",
)
"""The nanosecond timings of the final object, kept on the result chunk's metadata."""

REMOTE_FIELDS = ("remote_model", "remote_host")
"""What a line of a cloud model proxied by the local server names: the upstream model and host."""

# Fields a generate line may carry besides the ones projected; anything else is noticed.
_KNOWN = frozenset(
    {
        "model",
        *REMOTE_FIELDS,
        "created_at",
        "response",
        "thinking",
        "done",
        "done_reason",
        "context",
        "prompt_eval_count",
        "eval_count",
        "logprobs",
        "tool_calls",
        *DURATION_FIELDS,
    }
)


class OllamaGenerateProjector(ProjectorBase):
    """``response`` -> text, ``thinking`` -> thinking, the ``done`` object -> the result."""

    __slots__ = ("_logprobs", "_model")

    grammar = "Ollama generate stream"

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(secrets)
        self._model: Any = None
        # Scores of lines that carried no text yet (a parser holding it back).
        self._logprobs: list[Any] = []

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Project one line."""
        if type(event) is not dict:
            raise self.protocol_error("event is not a JSON object", event)
        self.started = True
        if "error" in event:
            return self.error_chunk(event["error"])
        unknown = event.keys() - _KNOWN
        if unknown or "done" not in event:
            what = f"unrecognized field {sorted(unknown)[0]!r}" if unknown else "no 'done' field"
            raise self.protocol_error(what, event)
        if event.get("model"):
            self._model = event["model"]
        out: list[StreamChunk] = []
        thinking = event.get("thinking")
        if thinking and isinstance(thinking, str):
            out.append(StreamChunk(type="thinking", content=thinking, is_delta=True))
        text = event.get("response")
        if text and isinstance(text, str):
            out.append(StreamChunk(type="text", content=text, is_delta=True))
        logprobs = event.get("logprobs")
        if logprobs:
            if type(logprobs) is not list:
                raise self.protocol_error("'logprobs' is not a list", event)
            # The scores of this line's tokens, after those of lines that carried no text.
            self._logprobs.extend(logprobs)
        if self._logprobs and out:
            out[-1].metadata["logprobs"] = self._logprobs
            self._logprobs = []
        calls = event.get("tool_calls")
        if calls is not None:
            out.extend(self._tool_uses(calls))
        if event["done"] is True:
            out.append(self._result(event))
            self.done = True
        return out or NO_CHUNKS

    def _tool_uses(self, calls: Any) -> list[StreamChunk]:
        """One ``tool_use`` per ``tool_calls`` entry, its ``function.arguments`` an object.

        A malformed entry (no function name, arguments neither an object nor JSON text of
        one) is a protocol error naming it, never a call with a guessed name or input.
        """
        if type(calls) is not list:
            raise self.protocol_error("'tool_calls' is not a list", calls)
        out: list[StreamChunk] = []
        for call in calls:
            function = call.get("function") if type(call) is dict else None
            name = function.get("name") if type(function) is dict else None
            if type(function) is not dict or type(name) is not str or not name:
                raise self.protocol_error("a tool call names no function", call)
            arguments = function.get("arguments")
            if arguments is None:
                arguments = {}
            if not isinstance(arguments, (dict, str)):
                raise self.protocol_error(f"tool call {name!r} arguments are not an object", call)
            tool_id = call.get("id")
            out.append(
                self.tool_use_chunk(
                    tool_id if type(tool_id) is str and tool_id else None, name, arguments
                )
            )
        return out

    def _result(self, event: dict[str, Any]) -> StreamChunk:
        # The vendor's own counters, as other dialects keep their vendor's usage record.
        counts = ("prompt_eval_count", "eval_count")
        usage = {name: event[name] for name in counts if name in event} or None
        chunk = self.result_chunk(usage, self._model, event.get("done_reason"))
        durations = {name: event[name] for name in DURATION_FIELDS if name in event}
        if durations:
            chunk.metadata["durations_ns"] = durations
        if "context" in event:
            chunk.metadata["context"] = event["context"]
        for name in REMOTE_FIELDS:
            if event.get(name):
                chunk.metadata[name] = event[name]
        if self._logprobs:
            chunk.metadata["logprobs"] = self._logprobs  # scores no text chunk carried
            self._logprobs = []
        return chunk

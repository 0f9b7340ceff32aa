"""Ollama's native streams (``/api/generate``, ``/api/chat``): one JSON object per NDJSON line.

Both endpoints write the same line around a different carrier of the answer:
``{"model", "created_at", <answer>, "done": false}``, the last with ``"done": true``,
``done_reason`` (``stop``, ``length``; ``load``/``unload`` for a request with nothing to answer),
the token counters (``prompt_eval_count``, ``eval_count``) and the durations in nanoseconds. A
failure is a bare ``{"error": "..."}`` line. A one-shot answer (``"stream": false``) is the same
object as the last line with the whole answer; fed here it projects the same way.
:class:`OllamaLinesProjector` reads that common line; each endpoint's projector names where its
answer is:

- generate: top-level ``response`` (text), ``thinking``, and ``tool_calls`` (a model the server
  parses with a built-in parser, such as gpt-oss or qwen3-coder, may write a tool call although
  generate takes no ``tools``: the parser moves it out of ``response``);
- chat: ``message`` ``{"role", "content", "thinking"?, "tool_calls"?}``; the last line's
  ``message`` is empty or absent.

A tool call is ``{"id"?, "function": {"index", "name", "arguments": {...}}}`` with the arguments
an object; each is one ``tool_use`` chunk. Its ``tool_id`` is the server's ``id`` (current servers
write ``call_<8 characters>``); older servers give none, and the chunk then gets
``ollama-call-<n>``, the call's position among the answer's calls (the same in a stream and in
its one-shot body), marked ``metadata["synthetic_id"] = True``: the server never issued it, so a
tool result is paired with its call by ``tool_name`` rather than by sending that id back.

Asked for with ``logprobs: true``, a line carries ``logprobs`` (one entry per token: ``token``,
``logprob``, ``bytes``, ``top_logprobs``), kept on that line's last text or thinking chunk as
``metadata["logprobs"]``. A built-in parser holds text back (a tag it has not closed yet) and
the server still sends that line for its scores, with no text: those scores are carried to the
next chunk, and any left at the end go on the result chunk, so none is dropped.

A cloud model served through a local server (``gpt-oss:120b-cloud``) adds ``remote_model`` and
``remote_host`` to every line, naming the upstream model and host; the result chunk keeps them,
as the one-shot body does.

A line names its content by field, so a field this version does not know is refused
(``ProviderProtocolError``) rather than dropped: it may be content.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from lionagi.service import StreamChunk
from lionagi.service.http import NO_CHUNKS, ProjectorBase

__all__ = [
    "DURATION_FIELDS",
    "REMOTE_FIELDS",
    "OllamaGenerateProjector",
    "OllamaLinesProjector",
    "OllamaNativeChatProjector",
]

DURATION_FIELDS = (
    "total_duration",
    "load_duration",
    "prompt_eval_duration",
    "eval_duration",
)
"""The nanosecond timings of the final object, kept on the result chunk's metadata."""

REMOTE_FIELDS = ("remote_model", "remote_host")
"""What a line of a cloud model proxied by the local server names: the upstream model and host."""

# The fields every native line may carry besides its answer.
_COMMON = frozenset(
    {
        "model",
        *REMOTE_FIELDS,
        "created_at",
        "done",
        "done_reason",
        "prompt_eval_count",
        "eval_count",
        "logprobs",
        *DURATION_FIELDS,
    }
)
# The members of a chat line's ``message``; anything else is noticed. ``images`` is in
# Ollama's ``Message`` and older servers write it as null on answers.
_MESSAGE = frozenset({"role", "content", "thinking", "tool_calls", "images"})


class OllamaLinesProjector(ProjectorBase):
    """The common native line: the answer's parts (see :meth:`answer`), the ``done`` result.

    A subclass names the fields its line adds (``fields``) and where its answer is
    (:meth:`answer`); the rest (errors, logprobs, tool calls, the result) is here, once.
    """

    __slots__ = ("_calls", "_logprobs", "_model")

    grammar = "Ollama native stream"
    fields: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(secrets)
        self._model: Any = None
        # Scores of lines that carried no text yet (a parser holding it back).
        self._logprobs: list[Any] = []
        # Tool calls projected so far: the position a call without an id is named by.
        self._calls = 0

    def answer(self, event: dict[str, Any]) -> tuple[Any, Any, Any]:
        """``(thinking, text, tool_calls)`` of one line, each None when the line has none.

        The line's top-level ``thinking``, ``response`` and ``tool_calls``: generate's grammar.
        A grammar that nests its answer (native chat's ``message``) overrides this.
        """
        return event.get("thinking"), event.get("response"), event.get("tool_calls")

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Project one line."""
        if type(event) is not dict:
            raise self.protocol_error("event is not a JSON object", event)
        self.started = True
        if "error" in event:
            return self.error_chunk(event["error"])
        unknown = event.keys() - _COMMON - self.fields
        if unknown or "done" not in event:
            what = f"unrecognized field {sorted(unknown)[0]!r}" if unknown else "no 'done' field"
            raise self.protocol_error(what, event)
        if event.get("model"):
            self._model = event["model"]
        thinking, text, calls = self.answer(event)
        out: list[StreamChunk] = []
        if self._text("thinking", thinking, event):
            out.append(StreamChunk(type="thinking", content=thinking, is_delta=True))
        if self._text("text", text, event):
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
        if calls is not None:
            out.extend(self._tool_uses(calls))
        if event["done"] is True:
            out.append(self._result(event))
            self.done = True
        return out or NO_CHUNKS

    def _text(self, what: str, value: Any, event: dict[str, Any]) -> bool:
        """True when ``value`` is text to emit; a value that is not a string is refused."""
        if value is None:
            return False
        if type(value) is not str:
            raise self.protocol_error(f"the {what} is not a string", event)
        return bool(value)

    def _tool_uses(self, calls: Any) -> list[StreamChunk]:
        """One ``tool_use`` per ``tool_calls`` entry, its ``function.arguments`` an object.

        A malformed entry (no function name, arguments neither an object nor JSON text of
        one) is a protocol error naming it, never a call with a guessed name or input. A call
        without an ``id`` is named ``ollama-call-<n>`` (see the module docstring).
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
            meta: dict[str, Any] = {}
            if type(tool_id) is not str or not tool_id:
                tool_id = f"ollama-call-{self._calls}"
                meta["synthetic_id"] = True
            self._calls += 1
            out.append(self.tool_use_chunk(tool_id, name, arguments, meta))
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


class OllamaGenerateProjector(OllamaLinesProjector):
    """``/api/generate``: ``response`` -> text, ``thinking`` -> thinking, ``tool_calls``."""

    __slots__ = ()

    grammar = "Ollama generate stream"
    # ``context``: the token ids to continue from, kept on the result chunk.
    fields: ClassVar[frozenset[str]] = frozenset({"response", "thinking", "tool_calls", "context"})


class OllamaNativeChatProjector(OllamaLinesProjector):
    """``/api/chat``: ``message.content`` -> text, ``message.thinking`` -> thinking, calls."""

    __slots__ = ()

    grammar = "Ollama chat stream"
    fields: ClassVar[frozenset[str]] = frozenset({"message"})

    def answer(self, event: dict[str, Any]) -> tuple[Any, Any, Any]:
        """The ``message``'s ``thinking``, ``content`` and ``tool_calls`` (absent: none).

        ``images`` is read only to be sure it carries nothing: null or empty, as the server
        writes it; an answer with images is refused rather than projected without them.
        """
        message = event.get("message")
        if message is None:
            return None, None, None
        if type(message) is not dict:
            raise self.protocol_error("'message' is not a JSON object", event)
        unknown = message.keys() - _MESSAGE
        if unknown:
            raise self.protocol_error(f"unrecognized message field {sorted(unknown)[0]!r}", event)
        if message.get("images"):
            raise self.protocol_error("the answer carries images, which are not projected", event)
        return message.get("thinking"), message.get("content"), message.get("tool_calls")

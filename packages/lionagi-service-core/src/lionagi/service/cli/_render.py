"""Render a chunk stream for people or for programs.

Three renderers, chosen by :func:`renderer_for`:

- :class:`JsonRenderer` (``--json``): one NDJSON object per chunk, then one final record for an
  error (a provider's error chunk included) or an interrupt, so a script always learns how the
  stream ended.
- :class:`PlainRenderer` (stdout is a pipe or a file): text as it arrives, no escape codes;
  stdout is the answer alone, and thinking, tool activity and the usage line go to stderr when
  it is a terminal (or ``--progress`` asks for them), as git writes its progress.
- :class:`LiveRenderer` (stdout is a terminal): a spinner until the first token, the answer as
  live markdown, thinking dimmed and collapsed to one line once the answer starts, tool calls as
  panels and a final usage / cost / latency line. ``rich`` is imported only here, so a piped or
  ``--json`` run never pays for it.

Every error is one line on stderr whatever the renderer (newlines folded), so ``2>`` captures
the reason and stdout stays data. A provider's error chunk is that line; the ``ProviderStreamError``
raised after it is not printed again.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, Protocol

from .._base.chunk import StreamChunk
from .._base.errors import (
    AdmissionConfigError,
    AgenticRequestValidationError,
    EndpointConfigurationError,
    ProviderStreamError,
    RequestDeadlineExceeded,
)
from .._base.secrets import redact
from .._catalog.diagnose import CREDENTIAL_HINT, CREDENTIAL_NOTE, looks_like_credential

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live

__all__ = [
    "JsonRenderer",
    "LiveRenderer",
    "PlainRenderer",
    "Renderer",
    "TerminalRenderer",
    "argument_text",
    "error_line",
    "exception_line",
    "last_attempt",
    "renderer_for",
    "tolerate_unencodable_output",
]


class Renderer(Protocol):
    """What ``run_chat`` drives: chunks, then exactly one of close / error / interrupted."""

    def chunk(self, chunk: StreamChunk) -> None:
        """Render one chunk."""

    def error(self, exc: BaseException) -> None:
        """Report the error that ended the run."""

    def interrupted(self, exit_code: int = 130) -> None:
        """Report that a signal ended the run: Ctrl-C (130) or SIGTERM (143)."""

    def close(self) -> None:
        """Finish the output of a run that ended normally."""


def error_line(text: str) -> str:
    """``text`` as one redacted line: a multi-line message (catalog diagnostics) is folded."""
    return " ".join(redact(text).split())


def argument_text(value: str) -> str:
    """A command-line argument quoted for an error line, unless it looks like a credential.

    A key pasted where a provider name goes (``models sk-proj-...``) must not reach stderr, a
    terminal or a CI log; :func:`error_line` alone would leave ``'[REDACTED]'`` and no reason.
    The test is core's selection rule (``looks_like_credential``: a key shape, a remembered
    secret or a credential variable's value), so the command line hides what ``iModel`` hides.
    """
    if looks_like_credential(value):
        return f"the argument, which {CREDENTIAL_NOTE},"
    return repr(value)


_FIELD_ERRORS = (EndpointConfigurationError, AdmissionConfigError, AgenticRequestValidationError)


# Advice the library's messages give in Python terms, and the flags that do it on the command
# line (the messages are shared with the Python API, where the keywords are right).
_CLI_FLAGS = (
    ("pass api_key=...", "pass --api-key-env NAME (the variable holding the key)"),
    (CREDENTIAL_HINT, "a key goes in an environment variable named by --api-key-env NAME"),
    ("use auth_type='none'", "use --endpoint-setting auth_type=none"),
    (
        "pass auth_type='bearer' (or 'x-api-key')",
        "pass --endpoint-setting auth_type=bearer (or x-api-key)",
    ),
    (
        "Set allow_local_network=True on the endpoint config",
        "Pass --allow-local-network",
    ),
    ("pass openai_compatible=True with base_url", "pass --openai-compatible with --base-url"),
    ("pass base_url='https://host/v1'", "pass --base-url https://host/v1"),
    ("(or config.base_url)", "(--base-url URL)"),
    # Said so it reads right before one flag (`--cwd: ...`) as before several: the field names
    # every flag given, and "these flags" after one of them misread the line.
    (
        "agentic settings apply to agentic endpoints (use base_url and api_key for HTTP)",
        "agentic CLI flags do not apply to it (for HTTP use --base-url and --api-key-env NAME)",
    ),
    ("agentic_settings={'gateway_url': ...} (--gateway-url)", "--gateway-url URL"),
    # Where a CLI agent takes its key instead (an agent refusing a key it would not send).
    (
        "agentic_settings={'env': {'NAME': ...}} (the variable its CLI reads)",
        "--env NAME (the variable its CLI reads, copied from this environment)",
    ),
    (
        "agentic_settings={'gateway_api_key': ...} with a gateway_url",
        "--gateway-key-env NAME with --gateway-url URL",
    ),
    # Settings an endpoint refuses, listed by name in the message (the field names only the
    # first): each is the flag that filled it.
    ("agentic_settings.binary", "--binary"),
    ("agentic_settings.gateway_url", "--gateway-url"),
    ("agentic_settings.gateway_api_key", "--gateway-key-env"),
    ("agentic_settings.env", "--env"),
    ("agentic_settings.root", "--root"),
    ("agentic_settings.cwd", "--cwd"),
    ("agentic_settings.config_home", "--config-home"),
    ("agentic_settings.terminate_grace", "--terminate-grace"),
)


def _cli_wording(text: str) -> str:
    """``text`` with the library's Python advice replaced by the flags that do it.

    On the command line ``api_key=...`` would be a key in argv (which ``chat`` refuses), and
    the other keywords are spelled differently as flags.
    """
    for python, flags in _CLI_FLAGS:
        text = text.replace(python, flags)
    return text


def exception_line(prefix: str, exc: BaseException) -> str:
    """``prefix`` and ``exc``'s message as one redacted line, the field of a config error kept.

    The errors that name a field (``EndpointConfigurationError``, ``AdmissionConfigError``,
    ``AgenticRequestValidationError``) read ``field: message``. Redacted whole, a
    credential-named field looks like a ``name: value`` pair, so ``api_key: openai chat needs an
    API key`` lost its first word to ``[REDACTED]``. The field is a setting's name; it and the
    message are redacted apart, so every secret shape in either is still removed and the
    sentence stays whole.
    """
    text = _cli_wording(str(exc))
    field = exc.field if isinstance(exc, _FIELD_ERRORS) else None
    if isinstance(field, str) and text.startswith(f"{field}: "):
        body = f"{redact(field)}: {redact(text[len(field) + 2 :])}"
    else:
        body = redact(text)
    return " ".join(f"{redact(prefix)}{body}".split())


def tolerate_unencodable_output() -> None:
    """Make stdout and stderr replace what their encoding cannot carry instead of raising.

    Under ``LC_ALL=C`` (or ``PYTHONIOENCODING=ascii``) stdout is ASCII with ``errors="strict"``,
    so one character the terminal cannot show (a tool marker, a word of the model's answer)
    would end the run with ``UnicodeEncodeError``. Only a strict stream is changed; an encoding
    that can carry the text writes the same bytes as before (``--json`` is ASCII anyway).
    """
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            with contextlib.suppress(ValueError, OSError):  # a closed or odd stream
                stream.reconfigure(errors="replace")


def _can_encode(stream: IO[str], text: str) -> bool:
    """True when ``stream``'s encoding (UTF-8 if it names none) carries ``text``."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _stderr_line(text: str, err: IO[str] | None = None) -> None:
    _write_line(error_line(text), err)


def _write_line(line: str, err: IO[str] | None = None) -> None:
    stream = err or sys.stderr
    stream.write(line + "\n")
    stream.flush()


def last_attempt(exc: BaseException) -> BaseException | None:
    """The failed attempt behind a deadline that expired after it, else None.

    ``RequestDeadlineExceeded`` alone says only where the deadline ran out (``retry_delay``, or
    ``transport`` when it passed during the next attempt); why the attempts failed (connection
    refused, HTTP 500) is its ``__cause__``, and without it a wrong port reads like a slow
    server.
    """
    cause = exc.__cause__
    if isinstance(exc, RequestDeadlineExceeded) and isinstance(cause, Exception):
        return cause
    return None


def _exception_line(exc: BaseException) -> str:
    line = exception_line(f"error: {type(exc).__name__}: ", exc)
    cause = last_attempt(exc)
    # The retry loop already ends the deadline's message with its last attempt; say it once.
    if cause is not None and "(last attempt: " not in str(exc):
        line += " " + exception_line(f"(last attempt: {type(cause).__name__}: ", cause) + ")"
    return line


def _exception_record(exc: BaseException) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "exception",
        "error": type(exc).__name__,
        "message": exception_line("", exc),
    }
    cause = last_attempt(exc)
    if cause is not None:
        record["last_attempt"] = {
            "error": type(cause).__name__,
            "message": exception_line("", cause),
        }
    return record


def _already_shown(exc: BaseException, error_chunk_seen: bool) -> bool:
    """True for the ``ProviderStreamError`` raised after an error chunk the renderer showed."""
    return error_chunk_seen and isinstance(exc, ProviderStreamError)


def _signal_word(exit_code: int) -> str:
    from ._signals import interrupt_word  # one wording for every place a signal is reported

    return interrupt_word(exit_code)


def _provider_error_text(chunk: StreamChunk) -> str:
    return f"provider error: {chunk.content or 'the provider reported an error'}"


class JsonRenderer:
    """One JSON object per chunk, flushed per line so pipes see progress."""

    def __init__(self, out: IO[str] | None = None, err: IO[str] | None = None) -> None:
        self._out = out or sys.stdout
        self._err = err
        self._error_chunk = False

    def _write(self, record: dict[str, Any]) -> None:
        self._out.write(json.dumps(record, default=str) + "\n")
        self._out.flush()

    def chunk(self, chunk: StreamChunk) -> None:
        """Write one chunk; a provider error chunk is also the stderr line."""
        self._write(chunk.to_dict())
        if chunk.type == "error":
            self._error_chunk = True
            _stderr_line(_provider_error_text(chunk), self._err)

    def error(self, exc: BaseException) -> None:
        """Write the terminal error as a final JSON line, and its one line on stderr.

        The record is written for a provider's stream error too (the documented contract: a run
        that ends in an error ends with an ``exception`` record, which names the error class the
        chunk does not); its stderr line was the error chunk's, so it is not written twice.
        """
        self._write(_exception_record(exc))
        if not _already_shown(exc, self._error_chunk):
            _write_line(_exception_line(exc), self._err)

    def interrupted(self, exit_code: int = 130) -> None:
        """Write the final record of a stream a signal ended (Ctrl-C: 130, SIGTERM: 143)."""
        self._write({"type": "interrupted", "exit_code": exit_code})
        _stderr_line(_signal_word(exit_code), self._err)

    def close(self) -> None:
        """Nothing is pending for NDJSON."""


class PlainRenderer:
    """The answer as it arrives on stdout; thinking, tools and usage as plain text on stderr.

    Piped or redirected, stdout is what the next program or the file receives, so it carries the
    answer alone (as ``codex exec`` does): thinking, tool calls and results and the usage line
    interleaved with it had to be filtered out again. They stay visible on stderr (a terminal
    while the answer goes to a file), each partial line ended before another kind of output.

    ``progress=False`` drops them instead: :func:`renderer_for` passes it when stderr is not a
    terminal, so a script that reads any stderr output as failure sees only real outcomes (the
    error line, a signal, the note that the token limit cut the answer).
    """

    def __init__(
        self, out: IO[str] | None = None, err: IO[str] | None = None, *, progress: bool = True
    ) -> None:
        self._out = out or sys.stdout
        self._err = err
        self._progress = progress
        self._mode: str | None = None
        self._tools = _ToolNames()
        self._error_chunk = False
        # Markers an ASCII (``LC_ALL=C``) stderr can carry, else the arrows.
        self._unicode = _can_encode(self._side, "→←·")
        self._call_marker, self._result_marker = ("→", "←") if self._unicode else ("->", "<-")

    @property
    def _side(self) -> IO[str]:
        """Where everything but the answer goes: stderr, looked up when written."""
        return self._err or sys.stderr

    def _stream(self, mode: str) -> IO[str]:
        return self._out if mode in _ANSWER_MODES else self._side

    def _print(self, text: str, end: str = "\n", *, mode: str = "text") -> None:
        stream = self._stream(mode)
        line = text + end
        try:
            stream.write(line)
        except UnicodeEncodeError:
            # A strict stream that cannot carry the model's text: degrade it, don't crash.
            encoding = getattr(stream, "encoding", None) or "ascii"
            stream.write(line.encode(encoding, "replace").decode(encoding))
        stream.flush()

    def _switch(self, mode: str) -> None:
        if self._mode is not None and self._mode != mode:
            self._print("", mode=self._mode)  # ends the partial line where it was written
        self._mode = mode

    def chunk(self, chunk: StreamChunk) -> None:
        """Render one chunk."""
        if chunk.type in _PROGRESS_TYPES and not self._progress:
            return
        if chunk.type == "text" and chunk.content:
            self._switch("text")
            self._print(chunk.content, end="")
        elif chunk.type == "thinking" and chunk.content:
            self._switch("thinking")
            self._print(chunk.content, end="", mode="thinking")
        elif chunk.type == "tool_use":
            self._switch("tool")
            self._tools.called(chunk)
            args = json.dumps(chunk.tool_input or {}, default=str)
            self._print(f"{self._call_marker} {chunk.tool_name}({args})", mode="tool")
            self._mode = None
        elif chunk.type == "tool_result":
            self._switch("tool")
            failed = " (failed)" if chunk.is_error else ""
            output = _tool_output_text(chunk.tool_output)
            label = self._tools.label(chunk)
            self._print(f"{self._result_marker} {label}{failed}: {output}", mode="tool")
            self._mode = None
        elif chunk.type == "result":
            self._switch("result")
            if chunk.content:
                self._print(chunk.content, mode="result")
            line = usage_line(chunk.metadata, latency=None) if self._progress else ""
            if line and not self._unicode:
                line = line.replace(" · ", " - ")
            if line:
                self._print(line, mode="usage")
            self._mode = None
            cut = _token_limit_reason(chunk.metadata)
            if cut is not None:
                # Exit 0 (the provider answered), but a script reading the text alone cannot
                # tell a cut answer from a whole one: said once on stderr (`--json` has the
                # result's finish reason).
                _stderr_line(
                    f"note: the answer stopped at the output token limit (finish reason {cut!r})",
                    self._err,
                )
        elif chunk.type == "error":
            self.close()
            self._error_chunk = True
            _stderr_line(_provider_error_text(chunk), self._err)

    def error(self, exc: BaseException) -> None:
        """End the partial line, then one line on stderr (none after a shown error chunk)."""
        self.close()
        if not _already_shown(exc, self._error_chunk):
            _write_line(_exception_line(exc), self._err)

    def interrupted(self, exit_code: int = 130) -> None:
        """End the partial line so the shell prompt starts on its own line."""
        self.close()
        _stderr_line(_signal_word(exit_code), self._err)

    def close(self) -> None:
        """End the last line."""
        if self._mode is not None:
            self._print("", mode=self._mode)
            self._mode = None


_PROGRESS_TYPES = frozenset({"thinking", "tool_use", "tool_result"})
"""The chunks `PlainRenderer` shows only as progress (with the result's usage line)."""

_ANSWER_MODES = frozenset({"text", "result"})
"""What `PlainRenderer` writes to stdout: the answer's text (streamed, or whole in the result)."""

TerminalRenderer = PlainRenderer
"""The name earlier releases exported for the non-JSON renderer."""


# Finish reasons that say the output token limit cut the answer: the chat dialect's and
# Ollama's `length`, Anthropic's `max_tokens`, Gemini's `MAX_TOKENS`, a Responses answer's
# `incomplete_details.reason`.
_TOKEN_LIMIT_REASONS = frozenset({"length", "max_tokens", "max_output_tokens"})


def _token_limit_reason(metadata: dict[str, Any]) -> str | None:
    """The result's finish reason when it names the output token limit, else None.

    Read from `finish_reason` (or `stop_reason`), and from every choice's or candidate's in
    `finish_reasons`.
    """
    reasons: list[object] = [metadata.get("finish_reason"), metadata.get("stop_reason")]
    several = metadata.get("finish_reasons")
    if isinstance(several, dict):
        reasons.extend(several.values())
    for reason in reasons:
        if isinstance(reason, str) and reason.casefold() in _TOKEN_LIMIT_REASONS:
            return reason
    return None


def usage_line(metadata: dict[str, Any], *, latency: tuple[float | None, float] | None) -> str:
    """``usage: k=v, ... · cost $x · first token 0.12 s, total 1.5 s`` from what is present.

    The line holds the usage counts: every top-level number, and the non-zero numbers one level
    down as ``parent.key`` (OpenAI's ``completion_tokens_details.reasoning_tokens``). Text,
    lists and deeper values (Claude Code reports its service tier, region and per-iteration
    records there) are left to ``--json``, which carries the whole mapping.
    """
    parts: list[str] = []
    usage = metadata.get("usage")
    counts = _usage_counts(usage) if isinstance(usage, dict) else []
    if counts:
        parts.append("usage: " + ", ".join(counts))
    cost = metadata.get("total_cost_usd", metadata.get("cost"))
    if isinstance(cost, int | float) and not isinstance(cost, bool):
        parts.append(f"cost ${cost:.4f}")
    if latency is not None:
        first, total = latency
        timing = f"total {total:.2f} s"
        if first is not None:
            timing = f"first token {first:.2f} s, " + timing
        parts.append(timing)
    return " · ".join(parts)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _usage_counts(usage: dict[str, Any]) -> list[str]:
    counts = []
    for key, value in usage.items():
        if _is_number(value):
            counts.append(f"{key}={value}")
        elif isinstance(value, dict):
            counts += [f"{key}.{k}={v}" for k, v in value.items() if _is_number(v) and v]
    return counts


def _tool_output_text(output: object) -> str:
    """A tool's output as shown: text as it is, anything else as JSON."""
    if isinstance(output, str):
        return output
    return json.dumps(output, default=str, ensure_ascii=False)


class _ToolNames:
    """The tool each call id belongs to, so a result is labelled with its tool's name.

    Vendors put the name on the call and only the id on the result (Claude Code, Codex).
    """

    __slots__ = ("_names",)

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def called(self, chunk: StreamChunk) -> None:
        """Record a ``tool_use`` chunk's id and name."""
        if chunk.tool_id and chunk.tool_name:
            self._names[chunk.tool_id] = chunk.tool_name

    def label(self, chunk: StreamChunk) -> str:
        """A ``tool_result`` chunk's label: its tool's name, else its call id."""
        if chunk.tool_name:
            return chunk.tool_name
        if chunk.tool_id:
            return self._names.get(chunk.tool_id, chunk.tool_id)
        return "tool"


class _LazyView:
    """A renderable that builds the live view when rich draws a frame, not when state changes."""

    __slots__ = ("_build",)

    def __init__(self, build: Callable[[], RenderableType]) -> None:
        self._build = build

    def __rich__(self) -> RenderableType:
        return self._build()


class LiveRenderer:
    """The terminal view: spinner, live markdown, dimmed thinking, tool panels, usage line.

    Thinking is shown dimmed while the model thinks and collapses to one summary line when the
    answer starts (``expand_thinking=True`` keeps it), so the answer is what stays on screen.
    """

    def __init__(
        self,
        console: Console | None = None,
        *,
        err: IO[str] | None = None,
        expand_thinking: bool = False,
    ) -> None:
        from rich.console import Console

        self._console = console or Console(highlight=False)
        self._err = err
        self._expand_thinking = expand_thinking
        self._blocks: list[RenderableType] = []
        self._thinking = ""
        self._answer = ""
        self._result: str = ""
        self._tools = _ToolNames()
        self._started = time.monotonic()
        self._first: float | None = None
        self._live: Live | None = None
        self._error_chunk = False

    def _view(self) -> RenderableType:
        from rich.console import Group
        from rich.markdown import Markdown
        from rich.spinner import Spinner
        from rich.text import Text

        parts: list[RenderableType] = []
        if self._thinking:
            if self._answer and not self._expand_thinking:
                words = len(self._thinking.split())
                parts.append(Text(f"▸ thought for {words} words", style="dim"))
            else:
                parts.append(Text(self._thinking, style="dim italic"))
        parts.extend(self._blocks)
        if self._answer:
            parts.append(Markdown(self._answer))
        if self._first is None:
            parts.append(Spinner("dots", text=Text("waiting for the first token…", style="dim")))
        if self._result:
            parts.append(Text(self._result, style="dim"))
        return Group(*parts)

    def _refresh(self) -> None:
        """Start the live view; once it runs, rich's own refresh rate redraws it.

        The live display holds a lazy renderable that builds the view when rich draws a frame,
        so a chunk only updates state: neither the markdown nor a frame is built per chunk
        (redrawing the whole answer on every chunk made time and output grow with the square
        of the answer's length). ``_stop`` draws the final frame.
        """
        if self._live is None:
            from rich.live import Live

            self._live = Live(
                _LazyView(self._view),
                console=self._console,
                refresh_per_second=12,
                vertical_overflow="visible",
            )
            self._live.start(refresh=True)

    def start(self) -> None:
        """Show the spinner before the request is sent."""
        self._started = time.monotonic()
        self._refresh()

    def chunk(self, chunk: StreamChunk) -> None:
        """Fold one chunk into the view.

        A chunk that changes what the view shows (the first thinking or answer text, a tool
        panel) is drawn at once, so a short-lived state is seen; more text for
        the thinking or the answer waits for rich's next frame (``refresh_per_second``).
        """
        from rich.panel import Panel
        from rich.text import Text

        changes_view = chunk.type in ("tool_use", "tool_result") or (
            bool(chunk.content)
            and (
                (chunk.type == "text" and not self._answer)
                or (chunk.type == "thinking" and not self._thinking)
            )
        )
        if chunk.type in ("text", "thinking", "tool_use", "tool_result") and self._first is None:
            self._first = time.monotonic() - self._started
        if chunk.type == "text" and chunk.content:
            self._answer += chunk.content
        elif chunk.type == "thinking" and chunk.content:
            self._thinking += chunk.content
        elif chunk.type == "tool_use":
            self._tools.called(chunk)
            args = json.dumps(chunk.tool_input or {}, default=str, indent=2)
            self._blocks.append(
                Panel(Text(args), title=f"tool call: {chunk.tool_name}", border_style="cyan")
            )
        elif chunk.type == "tool_result":
            style = "red" if chunk.is_error else "green"
            self._blocks.append(
                Panel(
                    Text(_tool_output_text(chunk.tool_output)),
                    title=f"tool result: {self._tools.label(chunk)}",
                    border_style=style,
                )
            )
        elif chunk.type == "result":
            if chunk.content and not self._answer:
                self._answer = chunk.content
            if self._first is None:
                self._first = time.monotonic() - self._started
            self._result = usage_line(
                chunk.metadata, latency=(self._first, time.monotonic() - self._started)
            )
        elif chunk.type == "error":
            self._stop()
            self._error_chunk = True
            _stderr_line(_provider_error_text(chunk), self._err)
            return
        self._refresh()
        if changes_view and self._live is not None:
            self._live.refresh()

    def _stop(self) -> None:
        if self._live is not None:
            if self._first is None:
                self._first = time.monotonic() - self._started
            self._live.stop()  # draws the final frame once, the whole of it
            self._live = None

    def error(self, exc: BaseException) -> None:
        """Stop the live view, then one line on stderr (none after a shown error chunk)."""
        self._stop()
        if not _already_shown(exc, self._error_chunk):
            _write_line(_exception_line(exc), self._err)

    def interrupted(self, exit_code: int = 130) -> None:
        """Stop the live view (its last frame stays), then say so on stderr."""
        self._stop()
        _stderr_line(_signal_word(exit_code), self._err)

    def close(self) -> None:
        """Leave the final frame on screen."""
        self._stop()


def renderer_for(
    *,
    as_json: bool,
    out: IO[str] | None = None,
    expand_thinking: bool = False,
    progress: bool = False,
) -> Renderer:
    """NDJSON for ``--json``, the live view on a terminal, plain text otherwise.

    Plain text shows thinking, tools and usage on stderr when stderr is a terminal or
    ``progress`` (``--progress``) asks for them, git's rule for its progress output: a script
    capturing stderr (a CI step, a wrapper that treats any stderr text as failure) gets only
    the outcome there, and ``--json`` carries every chunk for a program that wants them.
    """
    stream = out or sys.stdout
    if as_json:
        return JsonRenderer(stream)
    if stream.isatty():
        return LiveRenderer(expand_thinking=expand_thinking)
    return PlainRenderer(stream, progress=progress or _is_terminal(sys.stderr))


def _is_terminal(stream: IO[str] | None) -> bool:
    """True for a terminal; a missing or closed stream (``isatty`` raising) is not one."""
    try:
        return stream is not None and bool(stream.isatty())
    except (OSError, ValueError):
        return False

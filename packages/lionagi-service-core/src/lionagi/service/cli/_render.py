"""Render a chunk stream for people (rich) or for programs (NDJSON, one chunk per line)."""

from __future__ import annotations

import json
import sys
from typing import IO, Any

from rich.console import Console
from rich.text import Text

from .._base.chunk import StreamChunk
from .._base.secrets import redact

__all__ = ["JsonRenderer", "TerminalRenderer"]


class JsonRenderer:
    """One JSON object per chunk, flushed per line so pipes see progress."""

    def __init__(self, out: IO[str] | None = None) -> None:
        self._out = out or sys.stdout

    def chunk(self, chunk: StreamChunk) -> None:
        """Write one chunk."""
        self._out.write(json.dumps(chunk.to_dict(), default=str) + "\n")
        self._out.flush()

    def error(self, exc: BaseException) -> None:
        """Write the terminal error as a final JSON line."""
        self._out.write(
            json.dumps(
                {"type": "exception", "error": type(exc).__name__, "message": redact(str(exc))}
            )
            + "\n"
        )
        self._out.flush()

    def close(self) -> None:
        """Nothing is pending for NDJSON."""


class TerminalRenderer:
    """Text as it arrives, thinking dimmed, tool calls and results marked, usage at the end."""

    def __init__(self, console: Console | None = None, errors: Console | None = None) -> None:
        self._console = console or Console(highlight=False, soft_wrap=True)
        self._errors = errors or Console(highlight=False, soft_wrap=True, stderr=True)
        self._mode: str | None = None

    def _switch(self, mode: str) -> None:
        if self._mode is not None and self._mode != mode:
            self._console.print()
        self._mode = mode

    def chunk(self, chunk: StreamChunk) -> None:
        """Render one chunk."""
        c = self._console
        if chunk.type == "text" and chunk.content:
            self._switch("text")
            c.print(Text(chunk.content), end="")
        elif chunk.type == "thinking" and chunk.content:
            self._switch("thinking")
            c.print(Text(chunk.content, style="dim italic"), end="")
        elif chunk.type == "tool_use":
            self._switch("tool")
            args = json.dumps(chunk.tool_input or {}, default=str)
            c.print(Text(f"→ {chunk.tool_name}({args})", style="cyan"))
            self._mode = None
        elif chunk.type == "tool_result":
            self._switch("tool")
            style = "red" if chunk.is_error else "green"
            c.print(
                Text(f"← {chunk.tool_name or chunk.tool_id}: {chunk.tool_output!r}", style=style)
            )
            self._mode = None
        elif chunk.type == "result":
            self._switch("result")
            if chunk.content:
                c.print(Text(chunk.content))
            usage: dict[str, Any] = chunk.metadata.get("usage") or {}
            if usage:
                parts = ", ".join(f"{k}={v}" for k, v in usage.items())
                c.print(Text(f"usage: {parts}", style="dim"))
            self._mode = None
        elif chunk.type == "error":
            self._switch("error")
            c.print(Text(f"provider error: {chunk.content}", style="bold red"))
            self._mode = None

    def error(self, exc: BaseException) -> None:
        """Print one readable line for the error that ended the run."""
        self.close()
        # A last guard: error text is already sanitized, but this line leaves the process.
        text = redact(f"error: {type(exc).__name__}: {exc}")
        self._errors.print(Text(text, style="bold red"))

    def close(self) -> None:
        """End the last line."""
        if self._mode is not None:
            self._console.print()
            self._mode = None

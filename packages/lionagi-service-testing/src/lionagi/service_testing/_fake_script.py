"""Choose the fake server's behaviour for one request and script the answer vendor-neutrally.

A header ``x-fake-behaviour`` wins; otherwise keywords in the raw body select it, because the
real CLIs cannot set headers but do forward the prompt. The resulting :class:`Script` says what to
answer (thinking, text deltas, a tool call, an error status, a connection fault); the vendor
renderers only turn it into wire bytes.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ._fake_request import RequestFacts, ToolSpec
from ._fake_wire import split_text

__all__ = [
    "BEHAVIOURS",
    "DEFAULT_TEXT",
    "ERROR_MESSAGES",
    "ERROR_STATUSES",
    "KEYWORDS",
    "OVERSIZED_BYTES",
    "THINKING_TEXT",
    "TOOL_COMMAND",
    "TOOL_DESCRIPTION",
    "Script",
    "ScriptError",
    "ToolCall",
    "build_script",
    "select_behaviour",
    "tool_arguments",
]

DEFAULT_TEXT = "Hello from the fake server."
THINKING_TEXT = "Pondering the fake request."
TOOL_COMMAND = "echo fake-tool-ran"
TOOL_DESCRIPTION = "Run the fake tool"
OVERSIZED_BYTES = 2 * 1024 * 1024
# Default delta size, as seen in the captured real-CLI runs against the original fake server.
_CHUNK_CHARS = 7
_MAX_CHUNKS = 100_000
_MAX_DELAY_MS = 60_000.0

ERROR_STATUSES: Mapping[str, int] = {
    "401": 401,
    "403": 403,
    "429": 429,
    "500": 500,
    "503": 503,
    "context_length": 400,
    "quota": 429,
    "overloaded": 503,
}
# Error behaviours whose body says more than the status: the wording providers use.
ERROR_MESSAGES: Mapping[str, str] = {
    "context_length": "This model's maximum context length is 8192 tokens, but the request "
    "used 9000 tokens (context_length_exceeded).",
    "quota": "You exceeded your current quota, please check your plan and billing details "
    "(insufficient_quota).",
    "overloaded": "The model is overloaded. Please try again later.",
}
BEHAVIOURS: tuple[str, ...] = (
    "text",
    "thinking",
    "tool",
    "usage",
    *ERROR_STATUSES,
    "disconnect_before",
    "disconnect_after",
    "stall",
    "oversized",
    "malformed",
    "stream_error",
)
# Checked in order; THINK combines with RUN_TOOL (thinking, then the tool call).
KEYWORDS: tuple[tuple[bytes, str], ...] = (
    (b"FAIL401", "401"),
    (b"FAIL429", "429"),
    (b"FAIL500", "500"),
    (b"RUN_TOOL", "tool"),
    (b"THINK", "thinking"),
)
_SHELL_NAMES = ("bash", "shell", "shell_command", "run_shell_command", "exec_command")
_SHELL_HINTS = ("shell", "bash", "exec", "command")


class ScriptError(ValueError):
    """A ``x-fake-*`` header the server cannot honour; answered with HTTP 400."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """The one tool call a ``tool`` answer makes; ``fragments`` join to ``arguments_json``."""

    name: str
    arguments: dict[str, Any]
    arguments_json: str
    fragments: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Script:
    """A vendor-neutral answer: what to say, and how the connection should behave."""

    behaviour: str
    status: int = 200
    chunks: tuple[str, ...] = ()
    thinking: tuple[str, ...] = ()
    tool: ToolCall | None = None
    usage: bool = False
    delay: float = 0.0
    retry_after: str = "1"
    credential: str = field(default="", repr=False)

    @property
    def text(self) -> str:
        """The whole answer text."""
        return "".join(self.chunks)


def select_behaviour(headers: Mapping[str, str], body: bytes) -> tuple[str, bool]:
    """Return ``(behaviour, with_thinking)`` for a request.

    Raises:
        ScriptError: ``x-fake-behaviour`` names no known behaviour.
    """
    named = headers.get("x-fake-behaviour") or headers.get("x-fake-behavior")
    if named is not None:
        name = named.strip().lower()
        if name not in BEHAVIOURS:
            raise ScriptError(
                f"x-fake-behaviour: unknown behaviour {named!r}; "
                f"accepted values: {', '.join(BEHAVIOURS)}"
            )
        return name, name == "thinking"
    for keyword, name in KEYWORDS:
        if keyword in body:
            return name, b"THINK" in body and name in ("tool", "thinking")
    return "text", False


def _int_header(headers: Mapping[str, str], name: str, high: int) -> int | None:
    raw = headers.get(name)
    if raw is None:
        return None
    try:
        value = int(raw.strip())
    except ValueError:
        value = 0
    if not 1 <= value <= high:
        raise ScriptError(f"{name}: expected an integer from 1 to {high}; got {raw!r}")
    return value


def _delay(headers: Mapping[str, str]) -> float:
    raw = headers.get("x-fake-delay-ms")
    if raw is None:
        return 0.0
    try:
        value = float(raw.strip())
    except ValueError:
        value = -1.0
    if not (math.isfinite(value) and 0.0 <= value <= _MAX_DELAY_MS):
        raise ScriptError(
            f"x-fake-delay-ms: expected milliseconds from 0 to {_MAX_DELAY_MS:g}; got {raw!r}"
        )
    return value / 1000.0


def _json_type(prop: Mapping[str, Any]) -> str:
    kind = prop.get("type", "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    return str(kind).lower()


def _placeholder(prop: Mapping[str, Any]) -> Any:
    enum = prop.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    return {"integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}.get(
        _json_type(prop), "fake"
    )


def tool_arguments(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments for a shell-like call that fit the offered schema.

    ``command``/``cmd`` gets :data:`TOOL_COMMAND` (as ``["bash", "-lc", ...]`` when the schema
    wants an array), ``description`` gets :data:`TOOL_DESCRIPTION`, other required properties get
    type-correct placeholders, so real CLIs accept and run the call.
    """
    props = schema.get("properties")
    if not isinstance(props, dict) or not props:
        return {"command": TOOL_COMMAND}
    required = schema.get("required")
    required_names = set(required) if isinstance(required, list) else set()
    args: dict[str, Any] = {}
    for name, prop in props.items():
        prop = prop if isinstance(prop, dict) else {}
        if name in ("command", "cmd"):
            array = _json_type(prop) == "array"
            args[name] = ["bash", "-lc", TOOL_COMMAND] if array else TOOL_COMMAND
        elif name == "description":
            args[name] = TOOL_DESCRIPTION
        elif name in required_names:
            args[name] = _placeholder(prop)
    return args


def _pick_tool(tools: tuple[ToolSpec, ...]) -> ToolSpec | None:
    by_name = {tool.name.lower(): tool for tool in tools}
    for name in _SHELL_NAMES:
        if name in by_name:
            return by_name[name]
    for tool in tools:
        if any(hint in tool.name.lower() for hint in _SHELL_HINTS):
            return tool
    return tools[0] if tools else None


def _tool_call(facts: RequestFacts) -> ToolCall:
    tool = _pick_tool(facts.tools)
    args = tool_arguments(tool.schema) if tool else {"command": TOOL_COMMAND}
    arguments_json = json.dumps(args, ensure_ascii=False)
    return ToolCall(
        name=tool.name if tool else "shell",
        arguments=args,
        arguments_json=arguments_json,
        fragments=split_text(arguments_json, 3),
    )


@functools.cache
def _oversized_text() -> str:
    return "x" * OVERSIZED_BYTES


def _chunks(text: str, count: int | None) -> tuple[str, ...]:
    if count is not None:
        return split_text(text, count)
    if not text:
        return ("",)
    return tuple(text[i : i + _CHUNK_CHARS] for i in range(0, len(text), _CHUNK_CHARS))


def build_script(
    headers: Mapping[str, str],
    body: bytes,
    facts: RequestFacts,
    credential: str = "",
) -> Script:
    """Script the answer to one request.

    Raises:
        ScriptError: A ``x-fake-*`` header is invalid; the message names the header.
    """
    behaviour, with_thinking = select_behaviour(headers, body)
    delay = _delay(headers)
    count = _int_header(headers, "x-fake-chunks", _MAX_CHUNKS)
    retry_after = headers.get("x-fake-retry-after", "1").strip() or "1"
    text = headers.get("x-fake-text", DEFAULT_TEXT)
    thinking = split_text(THINKING_TEXT, 2) if with_thinking else ()
    base = Script(behaviour, delay=delay, retry_after=retry_after, credential=credential)
    if behaviour in ERROR_STATUSES:
        return replace(base, status=ERROR_STATUSES[behaviour])
    if behaviour == "oversized":
        return replace(base, chunks=(_oversized_text(),))
    if behaviour == "tool":
        if facts.tool_result is not None:
            return replace(base, chunks=_chunks(f"Tool said: {facts.tool_result}. Done.", count))
        return replace(base, thinking=thinking, tool=_tool_call(facts))
    return replace(base, chunks=_chunks(text, count), thinking=thinking, usage=behaviour == "usage")

"""Choose the fake server's scenario for one request and script the answer vendor-neutrally.

The scenario comes from an explicit selector only, never from words in the conversation: the
``x-fake-behaviour`` header wins, otherwise a ``/scenario/<names>/`` path prefix (for real CLIs
that cannot set headers but take a base URL), otherwise ``text``. Several names join with ``+``
(``thinking+tool``): the *content* behaviours (:data:`CONTENT_BEHAVIOURS`) combine freely (except
``token_limit`` with ``tool``), and at most one *outcome* behaviour (an error status or a
connection fault) applies on top. The only state read from the body is the conversation's shape:
a ``tool`` scenario whose last turn is a tool result answers with text quoting it, which is how
agents' tool loops terminate; one whose last turn is Claude Code's notification that a background
task finished answers with the scenario's text, as a model does, which is how a background
subagent's run terminates.

The resulting :class:`Script` says what to answer (thinking, text deltas, a tool call, usage, an
error kind, a fault, whether the answer stopped at the output token limit, whether every object
carries an unknown field); the vendor renderers only turn it into wire bytes.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ._fake_errors import ERROR_KINDS
from ._fake_request import RequestFacts, ToolSpec
from ._fake_wire import split_text

__all__ = [
    "BEHAVIOURS",
    "CONTENT_BEHAVIOURS",
    "DEFAULT_TEXT",
    "INVALID_UTF8_BYTES",
    "INVALID_UTF8_MARK",
    "OUTCOME_BEHAVIOURS",
    "OVERSIZED_BYTES",
    "SCENARIO_PREFIX",
    "THINKING_TEXT",
    "TOOL_COMMAND",
    "TOOL_DESCRIPTION",
    "Script",
    "ScriptError",
    "ToolCall",
    "build_script",
    "scenario_of",
    "select_behaviours",
    "split_scenario_path",
    "tool_arguments",
]

DEFAULT_TEXT = "Hello from the fake server."
THINKING_TEXT = "Pondering the fake request."
TOOL_COMMAND = "echo fake-tool-ran"
TOOL_DESCRIPTION = "Run the fake tool"
OVERSIZED_BYTES = 2 * 1024 * 1024
# A private-use character the renderers encode as-is; ``invalid_utf8`` swaps its bytes for
# :data:`INVALID_UTF8_BYTES` after rendering, so every dialect gets the same corruption.
INVALID_UTF8_MARK = "\ue000"
INVALID_UTF8_BYTES = b"\xff\xfe"
SCENARIO_PREFIX = "/scenario/"
# Default delta size, as seen in the captured real-CLI runs against the original fake server.
_CHUNK_CHARS = 7
_MAX_CHUNKS = 100_000
_MAX_DELAY_MS = 60_000.0
# A year: every delay a test asks for, and still an HTTP-date the platform can format.
_MAX_RETRY_AFTER = 31_536_000.0

CONTENT_BEHAVIOURS: tuple[str, ...] = (
    "text",
    "thinking",
    "tool",
    "usage",
    # The answer stops at the output token limit: each dialect's stop reason for it.
    "token_limit",
    # Every object of the answer carries a field no client knows (see ``_fake_unknown``).
    "extra_fields",
)
OUTCOME_BEHAVIOURS: tuple[str, ...] = (
    *ERROR_KINDS,
    "disconnect_before",
    "disconnect_after_head",
    "disconnect_after",
    "reset_mid_line",
    "stall_before",
    "stall",
    "drip",
    "oversized",
    "malformed",
    "stream_error",
    # The model cannot do what was asked (``unsupported_capability``'s refusal), reported
    # in-band: a 200 stream whose error event carries the vendor's refusal, as a gateway relays
    # it once its own stream had begun; non-stream requests get ``unsupported_capability``'s 400.
    "stream_unsupported_capability",
    # The provider's content filter refused the prompt: chat completions only (Azure OpenAI's
    # HTTP 400 one-shot, the same error object as an in-stream error event when streamed).
    "content_filter",
    "non_json_200",
    "invalid_utf8",
    "hostile_content_type",
)
BEHAVIOURS: tuple[str, ...] = (*CONTENT_BEHAVIOURS, *OUTCOME_BEHAVIOURS)
_KNOWN = frozenset(BEHAVIOURS)
_SHELL_NAMES = ("bash", "shell", "shell_command", "run_shell_command", "exec_command")
_SHELL_HINTS = ("shell", "bash", "exec", "command")


class ScriptError(ValueError):
    """A scenario selector or ``x-fake-*`` header the server cannot honour; answered with 400."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """The one tool call a ``tool`` answer makes; ``fragments`` join to ``arguments_json``."""

    name: str
    arguments: dict[str, Any]
    arguments_json: str
    fragments: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Script:
    """A vendor-neutral answer: what to say, and how the connection should behave.

    Attributes:
        behaviour: The outcome behaviour, or the main content one (``tool``, ``thinking``,
            ``usage``, ``text``) when no outcome was selected.
        scenario: Every selected name, canonically ``+``-joined, as recorded.
        error: The error kind (see :data:`ERROR_KINDS`) to answer with instead of content.
        limit: The answer stopped at the output token limit (``token_limit``): the renderers
            report their dialect's stop reason for it instead of a normal end.
        extra_fields: Every JSON object of the answer gains an unknown field
            (``extra_fields``, applied after rendering).
    """

    behaviour: str
    scenario: str = "text"
    error: str | None = None
    chunks: tuple[str, ...] = ()
    thinking: tuple[str, ...] = ()
    tool: ToolCall | None = None
    usage: bool = False
    limit: bool = False
    extra_fields: bool = False
    delay: float = 0.0
    retry_after: str = "1"
    retry_after_sent: bool = False
    retry_after_date: bool = False
    credential: str = field(default="", repr=False)

    @property
    def text(self) -> str:
        """The whole answer text."""
        return "".join(self.chunks)


def split_scenario_path(path: str) -> tuple[str | None, str]:
    """Split ``/scenario/<names>/rest`` into ``("<names>", "/rest")``; other paths pass through."""
    if not path.startswith(SCENARIO_PREFIX):
        return None, path
    names, slash, rest = path[len(SCENARIO_PREFIX) :].partition("/")
    return names, slash + rest


def scenario_of(headers: Mapping[str, str], path_scenario: str | None) -> tuple[str, str]:
    """The raw scenario selector and where it came from: the header wins over the path."""
    # An error names the header as the client spelled it (the alias too), so it can be found.
    for header in ("x-fake-behaviour", "x-fake-behavior"):
        named = headers.get(header)
        if named:
            return named, header
    if path_scenario is not None:
        return path_scenario, "path /scenario/<names>/"
    return "text", ""


def select_behaviours(selector: str, source: str = "x-fake-behaviour") -> tuple[str, ...]:
    """Validate a ``+``-joined selector; return its names in :data:`BEHAVIOURS` order.

    Raises:
        ScriptError: A name is unknown, or two outcome behaviours were combined.
    """
    names = {part.strip().lower() for part in selector.split("+")}
    unknown = sorted(name for name in names if name not in _KNOWN)
    if unknown:
        raise ScriptError(
            f"{source}: unknown behaviour {', '.join(map(repr, unknown))} in {selector!r}; "
            f"accepted values (join several with '+'): {', '.join(BEHAVIOURS)}"
        )
    outcomes = [name for name in OUTCOME_BEHAVIOURS if name in names]
    if len(outcomes) > 1:
        raise ScriptError(
            f"{source}: {selector!r} combines {' and '.join(outcomes)}; at most one error or "
            f"fault behaviour applies, combined with any of {', '.join(CONTENT_BEHAVIOURS)}"
        )
    return tuple(name for name in BEHAVIOURS if name in names)


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


def _retry_after(headers: Mapping[str, str]) -> str:
    """``x-fake-retry-after`` as sent (default ``1``), once it is a delay the server can state.

    The value is echoed as the ``Retry-After`` seconds and turned into an HTTP-date and
    Gemini's ``retryDelay``; a negative, non-finite or non-numeric one would reach the client as
    a header no real provider sends (or fail the date rendering with a 500), so it is refused.
    """
    raw = headers.get("x-fake-retry-after", "1").strip() or "1"
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not (math.isfinite(value) and 0.0 <= value <= _MAX_RETRY_AFTER):
        raise ScriptError(
            f"x-fake-retry-after: expected seconds from 0 to {_MAX_RETRY_AFTER:g}; got "
            f"{headers['x-fake-retry-after']!r}"
        )
    return raw


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
        # Never padded: split_text repeats a text shorter than its parts, and "{}" in three
        # pieces became "{} {}", arguments no client can parse.
        fragments=split_text(arguments_json, min(3, len(arguments_json))),
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
    facts: RequestFacts,
    credential: str = "",
    path_scenario: str | None = None,
) -> Script:
    """Script the answer to one request.

    Raises:
        ScriptError: The selector or a ``x-fake-*`` header is invalid; the message names it.
    """
    selector, source = scenario_of(headers, path_scenario)
    names = select_behaviours(selector, source or "x-fake-behaviour")
    outcome = next((name for name in names if name in OUTCOME_BEHAVIOURS), None)
    main = next((n for n in ("tool", "thinking", "usage") if n in names), "text")
    delay = _delay(headers)
    count = _int_header(headers, "x-fake-chunks", _MAX_CHUNKS)
    retry_after = _retry_after(headers)
    retry_format = headers.get("x-fake-retry-after-format", "seconds").strip().lower()
    if retry_format not in ("seconds", "date"):
        raise ScriptError(
            f"x-fake-retry-after-format: expected 'seconds' or 'date'; got {retry_format!r}"
        )
    text = headers.get("x-fake-text", DEFAULT_TEXT)
    thinking = split_text(THINKING_TEXT, 2) if "thinking" in names else ()
    base = Script(
        outcome or main,
        scenario="+".join(names),
        delay=delay,
        retry_after=retry_after,
        retry_after_sent="x-fake-retry-after" in headers,
        retry_after_date=retry_format == "date",
        credential=credential,
        usage="usage" in names,
        limit="token_limit" in names,
        extra_fields="extra_fields" in names,
    )
    if outcome in ERROR_KINDS:
        return replace(base, error=outcome)
    if outcome == "oversized":
        text, count = _oversized_text(), 1
    elif outcome == "invalid_utf8":
        if "tool" in names:
            raise ScriptError(f"{source}: invalid_utf8 corrupts the answer text; drop 'tool'")
        text = INVALID_UTF8_MARK + text
    if "tool" in names and "token_limit" in names:
        # A call cut by the limit is a different answer (arguments stopped mid-JSON); this one
        # stops after whole output.
        raise ScriptError(f"{source}: token_limit ends an answer with text; drop 'tool'")
    if "tool" in names:
        if facts.tool_result is not None:
            return replace(base, chunks=_chunks(f"Tool said: {facts.tool_result}. Done.", count))
        # A finished background task's notification gets text: another call would start another
        # background subagent, whose notification would get another call, and so on forever.
        if not facts.task_notification:
            return replace(base, thinking=thinking, tool=_tool_call(facts))
    return replace(base, chunks=_chunks(text, count), thinking=thinking)

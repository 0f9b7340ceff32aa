"""Read what the fake server needs from each vendor's request body.

Only a few facts steer an answer: the model, whether to stream, which tools were offered, and
whether the conversation ends with a tool result (then a tool call is answered with text quoting
it, which is how the real CLIs' tool loops terminate against the fake server). In the Anthropic
dialect one more shape counts: a turn that is Claude Code's notification of a finished
background task (:func:`is_task_notification`), which a model answers rather than calling a tool
again.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ANSWER_MODEL",
    "DEFAULT_MODEL",
    "RequestFacts",
    "ToolSpec",
    "answer_facts",
    "chat_facts",
    "gemini_facts",
    "is_task_notification",
    "messages_facts",
    "ollama_chat_facts",
    "ollama_generate_facts",
    "responses_facts",
]

DEFAULT_MODEL = "fake-model"
# Exa's answer model when a request names none (its SDKs' default).
ANSWER_MODEL = "exa"
_RESULT_LIMIT = 500
_FIELD = re.compile(r"[A-Z][A-Za-z ]*: ")
# Claude Code's own framing of a finished background task (2.1.332: inside a system reminder,
# the task id first). The CLI escapes "<" in the subagent output it quotes there, so a nested
# notification never matches; an element with no task id is not the CLI's.
_TASK_NOTIFICATION = re.compile(r"<task-notification>\s*<task-id>[^<>]+</task-id>")


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One function tool the client offered: its name and JSON schema of arguments."""

    name: str
    schema: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RequestFacts:
    """The parts of a request that select and shape the fake answer."""

    model: str = DEFAULT_MODEL
    stream: bool = False
    include_usage: bool = False
    tools: tuple[ToolSpec, ...] = ()
    tool_result: str | None = None
    task_notification: bool = False


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _model(body: dict[str, Any]) -> str:
    model = body.get("model")
    return model if isinstance(model, str) and model else DEFAULT_MODEL


def _text_of(content: object) -> str:
    """Flatten a tool result's content (string, list of text parts, or object) to text."""
    if isinstance(content, str):
        text = content
        # Some agents (codex) wrap shell output as a JSON object with an "output" field.
        if text.startswith("{"):
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict) and isinstance(parsed.get("output"), str):
                text = parsed["output"]
    elif isinstance(content, list):
        text = "".join(
            str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in content
        )
    elif isinstance(content, dict):
        output = content.get("output", content.get("result"))
        text = output if isinstance(output, str) else json.dumps(content, ensure_ascii=False)
    else:
        text = "" if content is None else str(content)
    return _shell_output(text).strip()[:_RESULT_LIMIT]


def _shell_output(text: str) -> str:
    r"""The command output inside a shell tool's report, or ``text`` unchanged.

    Codex (``Output:\n...``) and the gemini CLI (``Output: ...`` then ``Process Group PGID: ...``)
    wrap the output in a report; quoting just the output keeps the answer short and stable.
    """
    head, marker, rest = text.rpartition("Output:")
    if not marker or (head and not head.endswith("\n")):
        return text
    kept: list[str] = []
    for line in rest.split("\n"):
        if line.startswith("<") or _FIELD.match(line):
            break
        kept.append(line)
    return "\n".join(kept)


def _function_tools(body: dict[str, Any]) -> tuple[ToolSpec, ...]:
    """``tools: [{"type": "function", "function": {name, parameters}}]`` (OpenAI, Ollama)."""
    return tuple(
        ToolSpec(str(fn.get("name", "")), _dict(fn.get("parameters")))
        for tool in _list(body.get("tools"))
        if (fn := _dict(_dict(tool).get("function"))).get("name")
    )


def _last_tool_message(body: dict[str, Any]) -> str | None:
    """The tool result ending the conversation (after the last user turn), if any."""
    for message in reversed(_list(body.get("messages"))):
        role = _dict(message).get("role")
        if role == "tool":
            return _text_of(message.get("content"))
        if role == "user":
            return None
    return None


def chat_facts(body: dict[str, Any]) -> RequestFacts:
    """Facts from an OpenAI chat-completions request."""
    return RequestFacts(
        model=_model(body),
        stream=body.get("stream") is True,
        include_usage=_dict(body.get("stream_options")).get("include_usage") is True,
        tools=_function_tools(body),
        tool_result=_last_tool_message(body),
    )


def answer_facts(body: dict[str, Any]) -> RequestFacts:
    """Facts from an Exa ``/answer`` request: its model (``exa`` by default), ``stream: true``."""
    model = body.get("model")
    return RequestFacts(
        model=model if isinstance(model, str) and model else ANSWER_MODEL,
        stream=body.get("stream") is True,
    )


def ollama_chat_facts(body: dict[str, Any]) -> RequestFacts:
    """Facts from an Ollama ``/api/chat`` request; Ollama streams unless ``stream`` is false."""
    return RequestFacts(
        model=_model(body),
        stream=body.get("stream", True) is not False,
        tools=_function_tools(body),
        tool_result=_last_tool_message(body),
    )


def ollama_generate_facts(body: dict[str, Any]) -> RequestFacts:
    """Facts from an Ollama ``/api/generate`` request (a bare prompt: no tools, no turns)."""
    return RequestFacts(model=_model(body), stream=body.get("stream", True) is not False)


_RESPONSES_RESULTS = frozenset(
    {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
)


def responses_facts(body: dict[str, Any]) -> RequestFacts:
    """Facts from an OpenAI Responses request (what ``codex exec`` sends)."""
    tools = tuple(
        ToolSpec(str(tool["name"]), _dict(tool.get("parameters")))
        for tool in map(_dict, _list(body.get("tools")))
        if tool.get("type", "function") == "function" and tool.get("name")
    )
    result = None
    for item in reversed(_list(body.get("input"))):
        item = _dict(item)
        if item.get("type") in _RESPONSES_RESULTS:
            result = _text_of(item.get("output"))
            break
        if item.get("role") == "user":
            break
    return RequestFacts(
        model=_model(body), stream=body.get("stream") is True, tools=tools, tool_result=result
    )


def messages_facts(body: dict[str, Any]) -> RequestFacts:
    """Facts from an Anthropic Messages request (what ``claude`` sends)."""
    tools = tuple(
        ToolSpec(str(tool["name"]), _dict(tool.get("input_schema")))
        for tool in map(_dict, _list(body.get("tools")))
        if tool.get("name") and "input_schema" in tool
    )
    result = None
    notified = False
    for message in reversed(_list(body.get("messages"))):
        message = _dict(message)
        if message.get("role") != "user":
            continue
        blocks = [_dict(b) for b in _list(message.get("content"))]
        results = [b for b in blocks if b.get("type") == "tool_result"]
        if results:
            result = _text_of(results[-1].get("content"))
        else:
            notified = is_task_notification(message.get("content"))
        break
    return RequestFacts(
        model=_model(body),
        stream=body.get("stream") is True,
        tools=tools,
        tool_result=result,
        task_notification=notified,
    )


def is_task_notification(content: object) -> bool:
    """Whether a user turn's content is Claude Code's notice that a background task finished.

    From 2.1.332 the ``Agent`` tool runs its subagent in the background: the tool result only
    says it started, and when the subagent ends the CLI starts one more turn whose user message
    carries a ``<task-notification>`` element (task id, status, the subagent's result). The CLI
    writes that element itself, as it writes a ``tool_result`` block: it is the conversation's
    shape, not words a test chose. A string content or any of its text blocks may carry it.
    """
    if isinstance(content, str):
        texts = [content]
    else:
        texts = [
            block["text"]
            for block in map(_dict, _list(content))
            if block.get("type") == "text" and isinstance(block.get("text"), str)
        ]
    return any(_TASK_NOTIFICATION.search(text) for text in texts)


def gemini_facts(body: dict[str, Any], model: str, stream: bool) -> RequestFacts:
    """Facts from a Gemini generateContent request (what the ``gemini`` CLI sends)."""
    tools = tuple(
        ToolSpec(
            str(decl["name"]),
            _dict(decl.get("parametersJsonSchema", decl.get("parameters"))),
        )
        for tool in _list(body.get("tools"))
        for decl in map(_dict, _list(_dict(tool).get("functionDeclarations")))
        if decl.get("name")
    )
    result = None
    for content in reversed(_list(body.get("contents"))):
        content = _dict(content)
        if content.get("role", "user") not in ("user", "function"):
            continue
        responses = [
            _dict(part.get("functionResponse"))
            for part in map(_dict, _list(content.get("parts")))
            if "functionResponse" in part
        ]
        if responses:
            result = _text_of(responses[-1].get("response"))
        break
    return RequestFacts(
        model=model or DEFAULT_MODEL, stream=stream, tools=tools, tool_result=result
    )

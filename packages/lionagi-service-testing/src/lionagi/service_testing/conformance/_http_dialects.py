"""What the HTTP kit knows about each wire dialect the fake server speaks.

Per dialect: the base path the fake server routes under (the endpoint path is the adapter's), the
tool offer a default ``tool_request`` adds, and how to read text, reasoning, tool calls, usage,
the finish reason and vectors out of a one-shot response body. Readers take the decoded vendor
JSON, which is what ``Endpoint.call`` returns; an adapter that returns something else overrides
the kit's ``response_*`` hooks instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal

__all__ = [
    "CAPABILITY_REFUSED",
    "CONTENT_FILTER_DIALECTS",
    "DIALECTS",
    "LIMIT_FINISH_REASONS",
    "TOOL_NAME",
    "TOOL_SCHEMA",
    "Dialect",
    "ToolUse",
    "base_path",
    "is_limit_reason",
    "response_finish_reason",
    "response_text",
    "response_thinking",
    "response_tool_uses",
    "response_usage",
    "response_vectors",
    "tool_offer",
]

Dialect = Literal[
    "openai_chat",
    "openai_responses",
    "anthropic_messages",
    "gemini",
    "ollama",
    "openai_embeddings",
    "json",
]
DIALECTS: tuple[str, ...] = (
    "openai_chat",
    "openai_responses",
    "anthropic_messages",
    "gemini",
    "ollama",
    "openai_embeddings",
    "json",
)

# The dialects whose content-filter refusal the fake server renders (its ``content_filter``
# behaviour): chat completions, whose refusal is an HTTP *error* (Azure OpenAI's 400
# ``content_filter`` / ``ResponsibleAIPolicyViolation``), which the case checks with its status.
# Not rendered: Anthropic reports a refusal as ``stop_reason: "refusal"`` (a finish reason);
# Gemini a blocked prompt as a 200 body (``promptFeedback.blockReason``, no candidates), another
# shape with no HTTP status, which the gemini distribution's own tests cover; Responses and
# Ollama document no refusal error.
CONTENT_FILTER_DIALECTS = frozenset({"openai_chat"})

# The dialects whose "the model cannot do this" refusal the fake server renders (its
# ``unsupported_capability`` behaviour, an HTTP 400 in the vendor's words), each with the
# capability that text names in core's words (``ProviderCapabilityError.capability``): OpenAI's
# "image_url is only supported by certain models" (chat completions and Responses get the same
# object), Anthropic's "does not support thinking", Gemini's "Function calling is not enabled
# for models/...", Ollama's "does not support tools". Not rendered: the generic JSON dialect
# (Exa), which documents no such refusal.
CAPABILITY_REFUSED: Mapping[str, str] = MappingProxyType(
    {
        "openai_chat": "vision",
        "openai_responses": "vision",
        "anthropic_messages": "thinking",
        "gemini": "tools",
        "ollama": "tools",
    }
)

TOOL_NAME = "shell"
# One string ``command`` property: the fake server fills it with TOOL_COMMAND, so the kit knows
# the exact arguments the assembled call must carry.
TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"command": {"type": "string", "description": "the command to run"}},
    "required": ["command"],
}
_DESCRIPTION = "Run a shell command"

ToolUse = tuple[str | None, Any]

# What an answer cut at the output token limit reports as its finish reason, compared without
# case: the vendors' own words (chat and Ollama ``length``, Anthropic ``max_tokens``, Gemini
# ``MAX_TOKENS``, Responses ``incomplete_details.reason`` ``max_output_tokens``), so an adapter
# may pass its vendor's value through or normalise it to any of them.
LIMIT_FINISH_REASONS = frozenset({"length", "max_tokens", "max_output_tokens"})

_BASE_PATHS = {
    "openai_chat": "/v1",
    "openai_responses": "/v1",
    "anthropic_messages": "/v1",
    "gemini": "/v1beta",
    "ollama": "",
    "openai_embeddings": "/v1",
    "json": "",
}


def base_path(dialect: str) -> str:
    """The prefix added to the fake server's URL to form the ``base_url`` the adapter gets."""
    return _BASE_PATHS[dialect]


def tool_offer(dialect: str) -> dict[str, Any]:
    """Request fields that offer the one ``shell`` tool in ``dialect``'s shape."""
    if dialect == "openai_responses":
        tool = {"type": "function", "name": TOOL_NAME, "parameters": TOOL_SCHEMA}
        return {"tools": [{**tool, "description": _DESCRIPTION}]}
    if dialect == "anthropic_messages":
        return {
            "tools": [{"name": TOOL_NAME, "description": _DESCRIPTION, "input_schema": TOOL_SCHEMA}]
        }
    if dialect == "gemini":
        declaration = {"name": TOOL_NAME, "description": _DESCRIPTION, "parameters": TOOL_SCHEMA}
        return {"tools": [{"functionDeclarations": [declaration]}]}
    function = {"name": TOOL_NAME, "description": _DESCRIPTION, "parameters": TOOL_SCHEMA}
    return {"tools": [{"type": "function", "function": function}]}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _gemini_parts(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    candidates = _list(body.get("candidates"))
    first = _dict(candidates[0]) if candidates else {}
    return [_dict(p) for p in _list(_dict(first.get("content")).get("parts"))]


def _arguments(raw: Any) -> Any:
    """A tool call's arguments as sent: JSON text is parsed, anything else kept as is."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def response_text(dialect: str, body: Any) -> str:
    """The answer text of a one-shot ``body``."""
    body = _dict(body)
    if dialect == "openai_chat":
        choices = _list(body.get("choices"))
        message = _dict(_dict(choices[0]).get("message")) if choices else {}
        content = message.get("content")
        return content if isinstance(content, str) else ""
    if dialect == "openai_responses":
        texts = [
            _dict(part).get("text") or ""
            for item in map(_dict, _list(body.get("output")))
            if item.get("type") == "message"
            for part in _list(item.get("content"))
            if _dict(part).get("type") == "output_text"
        ]
        return "".join(texts)
    if dialect == "anthropic_messages":
        blocks = map(_dict, _list(body.get("content")))
        return "".join(b.get("text") or "" for b in blocks if b.get("type") == "text")
    if dialect == "gemini":
        parts = _gemini_parts(body)
        return "".join(p.get("text") or "" for p in parts if not p.get("thought"))
    if dialect == "ollama":
        content = _dict(body.get("message")).get("content", body.get("response"))
        return content if isinstance(content, str) else ""
    if dialect == "json":
        # Exa's answer carries its text as ``answer``; a search document has none.
        answer = body.get("answer")
        return answer if isinstance(answer, str) else ""
    return ""


def response_thinking(dialect: str, body: Any) -> str:
    """The reasoning text of a one-shot ``body`` (empty when the dialect carries none)."""
    body = _dict(body)
    if dialect == "openai_chat":
        choices = _list(body.get("choices"))
        message = _dict(_dict(choices[0]).get("message")) if choices else {}
        value = message.get("reasoning_content") or message.get("reasoning")
        return value if isinstance(value, str) else ""
    if dialect == "openai_responses":
        return "".join(
            _dict(part).get("text") or ""
            for item in map(_dict, _list(body.get("output")))
            if item.get("type") == "reasoning"
            for part in _list(item.get("summary"))
        )
    if dialect == "anthropic_messages":
        blocks = map(_dict, _list(body.get("content")))
        return "".join(b.get("thinking") or "" for b in blocks if b.get("type") == "thinking")
    if dialect == "gemini":
        return "".join(p.get("text") or "" for p in _gemini_parts(body) if p.get("thought"))
    if dialect == "ollama":
        value = _dict(body.get("message")).get("thinking", body.get("thinking"))
        return value if isinstance(value, str) else ""
    return ""


def response_tool_uses(dialect: str, body: Any) -> list[ToolUse]:
    """``(name, arguments)`` of every tool call in a one-shot ``body``, arguments parsed."""
    body = _dict(body)
    if dialect in ("openai_chat", "ollama"):
        if dialect == "openai_chat":
            choices = _list(body.get("choices"))
            message = _dict(_dict(choices[0]).get("message")) if choices else {}
        else:
            message = _dict(body.get("message"))
        calls = [_dict(_dict(c).get("function")) for c in _list(message.get("tool_calls"))]
        return [(c.get("name"), _arguments(c.get("arguments"))) for c in calls]
    if dialect == "openai_responses":
        output = map(_dict, _list(body.get("output")))
        items = [i for i in output if i.get("type") == "function_call"]
        return [(i.get("name"), _arguments(i.get("arguments"))) for i in items]
    if dialect == "anthropic_messages":
        blocks = [b for b in map(_dict, _list(body.get("content"))) if b.get("type") == "tool_use"]
        return [(b.get("name"), b.get("input")) for b in blocks]
    if dialect == "gemini":
        calls = [_dict(p.get("functionCall")) for p in _gemini_parts(body) if "functionCall" in p]
        return [(c.get("name"), c.get("args")) for c in calls]
    return []


def response_usage(dialect: str, body: Any) -> Any:
    """The usage record of a one-shot ``body`` (None when absent)."""
    body = _dict(body)
    if dialect == "gemini":
        return body.get("usageMetadata")
    if dialect == "ollama":
        counts = {k: body[k] for k in ("prompt_eval_count", "eval_count") if k in body}
        return counts or body.get("usage")
    return body.get("usage")


def response_finish_reason(dialect: str, body: Any) -> Any:
    """Why a one-shot ``body`` ended, in the dialect's words (None when it says nothing).

    Chat: the first choice's ``finish_reason``; Responses: ``incomplete_details.reason`` of an
    incomplete response, else its ``status``; Anthropic: ``stop_reason``; Gemini: the first
    candidate's ``finishReason``; Ollama: ``done_reason``.
    """
    body = _dict(body)
    if dialect == "openai_chat":
        choices = _list(body.get("choices"))
        return _dict(choices[0]).get("finish_reason") if choices else None
    if dialect == "openai_responses":
        if body.get("status") == "incomplete":
            return _dict(body.get("incomplete_details")).get("reason") or "incomplete"
        return body.get("status")
    if dialect == "anthropic_messages":
        return body.get("stop_reason")
    if dialect == "gemini":
        candidates = _list(body.get("candidates"))
        return _dict(candidates[0]).get("finishReason") if candidates else None
    if dialect == "ollama":
        return body.get("done_reason")
    return None


def is_limit_reason(reason: Any) -> bool:
    """True when ``reason`` says the output token limit cut the answer."""
    return isinstance(reason, str) and reason.lower() in LIMIT_FINISH_REASONS


def response_vectors(dialect: str, body: Any) -> list[Any]:
    """The embedding vectors of a one-shot ``body``, in ``index`` order."""
    body = _dict(body)
    if dialect == "gemini":
        return [_dict(e).get("values") for e in _list(body.get("embeddings"))]
    items = sorted(map(_dict, _list(body.get("data"))), key=lambda d: d.get("index") or 0)
    return [item.get("embedding") for item in items]

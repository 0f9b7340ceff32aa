"""Chat Completions through Gemini's OpenAI compatibility layer: `GeminiChatRequest`.

Kept apart from the native request models (`._requests`): a ``gemini/<model>`` chat call loads
only this module, not the ``generateContent`` and embeddings models it never uses. The messages
are checked as core checks the dialect's, plus the field Gemini documents on an assistant
message's tool calls and on the message itself: ``extra_content.google.thought_signature``, the
signature a thinking model returned, which must be sent back with the call or text it came
with. Those nested shapes are built when core first reads them (a request with more than
plain-text messages), not at import, as core defers its own.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from lionagi.service import OpenAIChatCompletionsRequest, lazy_chat_shapes

from ._request_base import StrictModel, ThinkingLevel, cached_content_name, level_or_budget

__all__ = [
    "GeminiChatRequest",
    "GeminiCompatGoogle",
    "GeminiCompatThinkingConfig",
    "GeminiCompatThoughtSignature",
    "GeminiCompatToolCallExtra",
]


class GeminiCompatThinkingConfig(StrictModel):
    """``thinking_config`` of the compatibility layer (snake_case, as it documents)."""

    thinking_budget: int | None = Field(default=None, ge=-1)
    include_thoughts: bool | None = None
    thinking_level: ThinkingLevel | None = None

    @field_validator("thinking_level")
    @classmethod
    def _not_with_budget(cls, value: str | None, info: ValidationInfo) -> str | None:
        return level_or_budget(value, info.data.get("thinking_budget"), "thinking_budget")


class GeminiCompatGoogle(StrictModel):
    """Gemini-only options of the compatibility layer, sent as ``extra_body.google``."""

    thinking_config: GeminiCompatThinkingConfig | None = None
    cached_content: str | None = None

    @field_validator("cached_content")
    @classmethod
    def _cache_name(cls, value: str | None) -> str | None:
        """A bare cache id as ``cachedContents/<id>``, the name the API reads (as the SDK does)."""
        return None if value is None else cached_content_name(value)


class GeminiCompatThoughtSignature(StrictModel):
    """``google`` of an ``extra_content``: the thought signature of a call or of a text."""

    thought_signature: str


class GeminiCompatToolCallExtra(StrictModel):
    """``extra_content`` of an assistant tool call or message, sent back as the layer returned it.

    The layer returns it on a tool call (that call's signature) and on the message (the
    signature of the text); both are sent back in the same place, with the same one field.
    """

    google: GeminiCompatThoughtSignature


class GeminiChatRequest(OpenAIChatCompletionsRequest):
    """Chat Completions through Gemini's compatibility layer.

    ``reasoning_effort`` is the dialect's own field. ``google`` carries the Gemini-only
    options, which the layer reads from a literal ``extra_body.google`` object in the JSON
    body; the endpoint nests it there on the wire. (Core's ``extra_body`` request key stays
    the escape hatch for top-level fields newer than this model.) The layer refuses
    ``reasoning_effort`` together with a ``thinking_config`` budget or level (they set the
    same thing), so that pair is refused here; ``include_thoughts`` goes with either.
    ``tools``, ``tool_choice`` and a ``system`` or ``developer`` message beside
    ``google.cached_content`` are refused too: the layer sends them as the request's tools,
    tool config and system instruction, which the API refuses beside a cache (they belong to
    the cache), as the native row refuses them beside ``cachedContent``.
    """

    shapes = lazy_chat_shapes(
        "GeminiChat",
        roles={"assistant": {"extra_content": GeminiCompatToolCallExtra}},
        tool_calls={"function": {"extra_content": GeminiCompatToolCallExtra}},
    )

    google: GeminiCompatGoogle | None = None

    @field_validator("google")
    @classmethod
    def _effort_or_thinking_config(
        cls, value: GeminiCompatGoogle | None, info: ValidationInfo
    ) -> GeminiCompatGoogle | None:
        effort = info.data.get("reasoning_effort")
        thinking = value.thinking_config if value is not None else None
        if effort is None or thinking is None:
            return value
        for name in ("thinking_budget", "thinking_level"):
            if getattr(thinking, name) is not None:
                raise ValueError(
                    f"thinking_config.{name} cannot be combined with reasoning_effort (the "
                    "compatibility layer refuses both: they set the same thinking); keep one"
                )
        return value

    def model_post_init(self, context: Any, /) -> None:
        """Core's checks, then refuse what the layer would send beside a cache (a 400).

        Checked after validation, as core checks ``tool_choice`` against ``tools``: ``tools``
        and ``messages`` are validated before ``google``, and an error raised here must carry
        its own location or core would report the whole request. An empty ``tools`` list is
        let through, as on the native row.
        """
        super().model_post_init(context)
        if self.google is None or self.google.cached_content is None:
            return
        conflict = _cache_conflict(self.tools, self.tool_choice, self.messages)
        if conflict is not None:
            loc, message = conflict
            error = PydanticCustomError("set_beside_cached_content", message)
            raise ValidationError.from_exception_data(
                type(self).__name__, [InitErrorDetails(type=error, loc=loc, input=None)]
            )


_BESIDE_CACHE = (
    "cannot be sent with google.cached_content (the layer sends {} as the request's {}, which "
    "the API refuses beside a cache): {}, or leave google.cached_content out"
)


def _cache_conflict(
    tools: list[dict[str, Any]] | None, tool_choice: Any, messages: list[dict[str, Any]]
) -> tuple[tuple[str | int, ...], str] | None:
    """Where a request reading a cache sets what the cache holds, and the refusal's message.

    The layer turns ``tools`` into the request's tools, ``tool_choice`` into its tool config
    and a ``system`` or ``developer`` message into its system instruction; the API refuses
    each beside ``cachedContent`` ("CachedContent can not be used with GenerateContent request
    setting system_instruction, tools or tool_config"). The first one found is reported.
    """
    if tools:
        return ("tools",), _BESIDE_CACHE.format(
            "them", "tools", "set them on the cache when creating it"
        )
    if tool_choice is not None:
        return ("tool_choice",), _BESIDE_CACHE.format(
            "it", "tool config", "set the tool config on the cache when creating it"
        )
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role in ("system", "developer"):
            fix = "set it as the cache's system instruction when creating the cache"
            text = _BESIDE_CACHE.format("it", "system instruction", fix)
            return ("messages", index, "role"), f"a {role} message {text}"
    return None

"""Typed request bodies for OpenAI's chat row, beyond core's shared chat dialect.

Chat completions and embeddings use core's `OpenAIChatCompletionsRequest` /
`OpenAIEmbeddingsRequest` (the dialect is shared, so its fields live in core); this module adds
what only OpenAI's own chat row takes. The Responses API's body is in `._responses_request`,
apart from this one so that a chat call never builds the Responses models (a row's modules load
on that row's first use). Every model refuses unknown fields (``extra="forbid"``): a misspelled
option is an `EndpointConfigurationError` with a "did you mean", never silently dropped;
``extra_body`` is the escape hatch for a field newer than this model.

Scalars are strict: ``max_tokens=5.0`` or ``top_logprobs="5"`` are refused naming the field,
never coerced and sent as a value the caller did not write. ``top_logprobs`` without
``logprobs=True`` is refused, as the API does. ``stream_options`` on a one-shot call is refused
by the endpoint (only a stream may carry it).

Explicit prompt caching is OpenAI's own: ``prompt_cache_options``, and a
``prompt_cache_breakpoint`` on a message's text, image, audio and file parts (core's shared
shapes refuse that key, and a nested key cannot go through ``extra_body``, so the chat row adds
it with ``lazy_chat_shapes``, built on first read like core's own shapes). ``moderation`` is
OpenAI's own too and declared here; the Responses row uses the same model.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationInfo, field_validator

from lionagi.service import OpenAIChatCompletionsRequest, lazy_chat_shapes

__all__ = [
    "CacheTTL",
    "ChatPromptCacheOptions",
    "Moderation",
    "ModerationPolicy",
    "ModerationPolicyMode",
    "OpenAIChatRequest",
    "PromptCacheBreakpoint",
]

# The cache lifetimes OpenAI documents for explicit caching; which a model or row takes (chat
# documents only "30m" today) is the API's call, as for effort levels.
CacheTTL = Literal["30m", "12h"]


class ModerationPolicyMode(BaseModel):
    """``input`` or ``output`` of a moderation policy: score the text only, or block it too."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    mode: Literal["score", "block"]


class ModerationPolicy(BaseModel):
    """``policy`` of ``moderation``: what is done with the input's and the output's scores."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    input: ModerationPolicyMode | None = None
    output: ModerationPolicyMode | None = None


class Moderation(BaseModel):
    """``moderation`` (both rows): the moderation model run on the request and its answer.

    OpenAI's own (openai-python's ``Moderation`` of chat and Responses alike), so it is declared
    here rather than in core's shared chat dialect, which compatible services share.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    model: str
    policy: ModerationPolicy | None = None


class PromptCacheBreakpoint(BaseModel):
    """``prompt_cache_breakpoint`` of a chat content part: the end of a reusable prefix."""

    model_config = ConfigDict(extra="forbid", defer_build=True, hide_input_in_errors=True)

    mode: Literal["explicit"]
    ttl: CacheTTL | None = None


class ChatPromptCacheOptions(BaseModel):
    """``prompt_cache_options`` on chat: implicit or explicit breakpoints, and their lifetime."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    mode: Literal["implicit", "explicit"] | None = None
    ttl: CacheTTL | None = None


# The chat content parts OpenAI documents a cache breakpoint on (every user part type).
_BREAKPOINT_PARTS = ("text", "image_url", "input_audio", "file")


class OpenAIChatRequest(OpenAIChatCompletionsRequest):
    """OpenAI's chat request: core's shared dialect (strict scalars) with OpenAI's ranges.

    The fields are core's :class:`OpenAIChatCompletionsRequest`; OpenAI's row caps
    ``top_logprobs`` at 20, bounds ``logit_bias`` values to -100..100 and refuses
    ``top_logprobs`` without ``logprobs=True``, as the API does. It adds OpenAI's prompt
    caching: ``prompt_cache_retention`` (``"in_memory"`` or ``"24h"``), ``prompt_cache_options``
    and a content part's ``prompt_cache_breakpoint`` (its ``shapes``), and ``moderation``.
    """

    # Built on first read: core reads it only for a request with more than plain-text messages.
    shapes = lazy_chat_shapes(
        "OpenAI",
        parts={
            kind: {"prompt_cache_breakpoint": PromptCacheBreakpoint} for kind in _BREAKPOINT_PARTS
        },
    )

    logit_bias: dict[str, Annotated[StrictInt, Field(ge=-100, le=100)]] | None = None
    top_logprobs: StrictInt | None = Field(default=None, ge=0, le=20)
    # OpenAI's own (prompt caching), not the shared dialect's.
    prompt_cache_retention: Literal["in_memory", "24h"] | None = None
    prompt_cache_options: ChatPromptCacheOptions | None = None
    moderation: Moderation | None = None
    # Closed on OpenAI's own row to the values openai-python lists; the shared dialect keeps
    # them open for compatible services with tiers and modalities of their own.
    service_tier: Literal["auto", "default", "flex", "scale", "priority", "fast"] | None = None
    modalities: list[Literal["text", "audio"]] | None = None  # type: ignore[assignment]

    @field_validator("top_logprobs")
    @classmethod
    def _top_logprobs_needs_logprobs(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is not None and info.data.get("logprobs") is not True:
            raise ValueError("needs logprobs=True (the API refuses top_logprobs without it)")
        return value

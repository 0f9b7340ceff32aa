"""The request models of the OpenAI-compatible dialect (ADR-0028 D4): chat and embeddings.

Typed enough that a misspelled payload default is refused (``extra="forbid"``), permissive enough
for the many services that speak the Chat Completions dialect: nested objects stay plain mappings.
Scalars are strict: ``max_tokens=True``, ``temperature="0.5"`` or ``stream=1`` are refused naming
the field instead of being sent as ``1``, ``0.5`` or ``true``, values the caller never wrote (an
integer is still a valid float). A service with extra parameters can pass a subclass as
``request_options``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict

__all__ = ["OpenAIChatCompletionsRequest", "OpenAIEmbeddingsRequest"]

# Strict scalars: a bool is not an int, a string is not a number, 1 is not True.
_Int = Annotated[int, Strict()]
_Float = Annotated[float, Strict()]  # strict float still takes an int (2 -> 2.0), never a bool
_Bool = Annotated[bool, Strict()]


class OpenAIChatCompletionsRequest(BaseModel):
    """A Chat Completions request body."""

    # defer_build: the validator is built on first use, not at import (cold start).
    model_config = ConfigDict(extra="forbid", defer_build=True)

    model: str
    messages: list[dict[str, Any]]
    temperature: _Float | None = Field(default=None, ge=0, le=2)
    top_p: _Float | None = Field(default=None, ge=0, le=1)
    n: _Int | None = Field(default=None, ge=1)
    max_tokens: _Int | None = Field(default=None, ge=1)
    max_completion_tokens: _Int | None = Field(default=None, ge=1)
    stream: _Bool | None = None
    stream_options: dict[str, Any] | None = None
    stop: str | list[str] | None = None
    presence_penalty: _Float | None = Field(default=None, ge=-2, le=2)
    frequency_penalty: _Float | None = Field(default=None, ge=-2, le=2)
    logit_bias: dict[str, _Int] | None = None
    logprobs: _Bool | None = None
    top_logprobs: _Int | None = Field(default=None, ge=0)
    tools: list[dict[str, Any]] | None = None
    tool_choice: str | dict[str, Any] | None = None
    parallel_tool_calls: _Bool | None = None
    response_format: dict[str, Any] | None = None
    seed: _Int | None = None
    user: str | None = None
    reasoning_effort: Literal["none", "minimal", "low", "medium", "high", "xhigh"] | None = None
    service_tier: str | None = None
    store: _Bool | None = None
    metadata: dict[str, str] | None = None
    modalities: list[str] | None = None
    audio: dict[str, Any] | None = None
    prediction: dict[str, Any] | None = None
    web_search_options: dict[str, Any] | None = None
    verbosity: Literal["low", "medium", "high"] | None = None
    prompt_cache_key: str | None = None
    safety_identifier: str | None = None


class OpenAIEmbeddingsRequest(BaseModel):
    """An embeddings request body: text(s) or token array(s) to embed."""

    # defer_build: the validator is built on first use, not at import (cold start).
    model_config = ConfigDict(extra="forbid", defer_build=True)

    model: str
    input: str | list[str] | list[int] | list[list[int]]
    encoding_format: Literal["float", "base64"] | None = None
    dimensions: _Int | None = Field(default=None, ge=1)
    user: str | None = None

"""Typed request bodies for the OpenAI rows this distribution adds to core's shared ones.

Chat completions and embeddings use core's :class:`OpenAIChatCompletionsRequest` /
:class:`OpenAIEmbeddingsRequest` (the dialect is shared, so its fields live in core). The
Responses API is OpenAI's own, so its body is declared here. Every model refuses unknown fields
(``extra="forbid"``): a misspelled option is an :class:`EndpointConfigurationError` with a "did
you mean", never silently dropped; ``extra_body`` is the escape hatch for a field newer than
this model. Items of ``input`` and ``tools`` stay JSON objects: OpenAI adds item and tool types
often, and the server validates them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["OpenAIResponsesRequest", "ResponsesReasoning", "ResponsesText"]

ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh"]


class ResponsesReasoning(BaseModel):
    """``reasoning``: how much a reasoning model thinks and whether it summarizes it."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    effort: ReasoningEffort | None = None
    summary: Literal["auto", "concise", "detailed"] | None = None


class ResponsesText(BaseModel):
    """``text``: the output format (plain text, JSON object, JSON schema) and verbosity."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    format: dict[str, Any] | None = None
    verbosity: Literal["low", "medium", "high"] | None = None


class ResponsesStreamOptions(BaseModel):
    """``stream_options``: only valid with ``stream``."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    include_obfuscation: bool | None = None


class OpenAIResponsesRequest(BaseModel):
    """A ``POST /v1/responses`` body (the fields OpenAI documents today)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    model: str
    input: str | list[dict[str, Any]]
    instructions: str | None = None
    tools: list[dict[str, Any]] | None = None
    tool_choice: str | dict[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    max_tool_calls: int | None = Field(default=None, ge=1)
    reasoning: ResponsesReasoning | None = None
    text: ResponsesText | None = None
    max_output_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, ge=0, le=1)
    top_logprobs: int | None = Field(default=None, ge=0, le=20)
    store: bool | None = None
    background: bool | None = None
    previous_response_id: str | None = None
    conversation: str | dict[str, Any] | None = None
    prompt: dict[str, Any] | None = None
    metadata: dict[str, str] | None = None
    stream: bool | None = None
    stream_options: ResponsesStreamOptions | None = None
    truncation: Literal["auto", "disabled"] | None = None
    user: str | None = None
    service_tier: Literal["auto", "default", "flex", "scale", "priority"] | None = None
    include: list[str] | None = None
    prompt_cache_key: str | None = None
    safety_identifier: str | None = None

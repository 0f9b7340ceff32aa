"""OpenRouter's chat-completions deltas: model fallbacks, provider routing, reasoning, usage.

OpenRouter speaks the shared dialect; what it adds is request data. Reasoning arrives as
``delta.reasoning``, which core's chat projector already maps to ``thinking``; its own delta
members, ``reasoning_details`` and an image model's ``images``, are kept by
`OpenRouterProjector`. One status is its own: a 403 whose ``error.metadata`` names the
flagged input and the reasons is a moderation refusal
(:class:`~lionagi.service.ProviderStatusContentFilterError`), not a rejected key.

Messages are checked as core checks the dialect's, plus what OpenRouter documents on them: a
``cache_control`` breakpoint on a text content part (prompt caching for the upstreams that take
one) and an earlier assistant turn's ``reasoning`` and ``reasoning_details`` sent back
(preserving reasoning across a tool-calling conversation).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt

from lionagi.service import (
    OpenAIChatCompletionsRequest,
    ProviderError,
    ProviderStatusContentFilterError,
    lazy_chat_shapes,
)
from lionagi.service.http import (
    ChatCompletionsProjector,
    HTTPErrorInfo,
    OpenAIChatEndpoint,
    StreamProjector,
)

__all__ = [
    "OpenRouterCacheControl",
    "OpenRouterChat",
    "OpenRouterProjector",
    "OpenRouterChatRequest",
    "OpenRouterProviderPreferences",
    "OpenRouterReasoning",
    "OpenRouterUsage",
]


_SortBy = Literal["price", "throughput", "latency"]
# A routing threshold is a number (the p50 cutoff) or an object of percentile cutoffs.
_Cutoffs = float | dict[Literal["p50", "p75", "p90", "p99"], float]


class _ProviderSort(BaseModel):
    """``provider.sort`` as an object: the sort key, and whether fallback models sort apart."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    by: _SortBy | None = None
    partition: Literal["model", "none"] | None = None


class OpenRouterProviderPreferences(BaseModel):
    """``provider``: which upstream providers may serve the request, and in what order.

    ``sort`` is a key or ``{"by", "partition"}``; ``preferred_min_throughput`` (tokens per
    second) and ``preferred_max_latency`` (seconds) are a number or percentile cutoffs
    (``{"p50": ..., "p90": ...}``), as OpenRouter's provider-routing guide documents them.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    order: list[str] | None = None
    allow_fallbacks: bool | None = None
    require_parameters: bool | None = None
    data_collection: Literal["allow", "deny"] | None = None
    zdr: bool | None = None
    enforce_distillable_text: bool | None = None
    only: list[str] | None = None
    ignore: list[str] | None = None
    quantizations: list[str] | None = None
    sort: _SortBy | _ProviderSort | None = None
    max_price: dict[str, float] | None = None
    preferred_min_throughput: _Cutoffs | None = None
    preferred_max_latency: _Cutoffs | None = None


class OpenRouterReasoning(BaseModel):
    """``reasoning``: one setting for every upstream's thinking budget."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    # OpenRouter's six levels: ``xhigh`` (about 95% of max_tokens) to ``none`` (no reasoning).
    effort: Literal["none", "minimal", "low", "medium", "high", "xhigh"] | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    exclude: bool | None = None
    enabled: bool | None = None
    # How much of the reasoning a model that summarises it (OpenAI's) returns.
    summary: Literal["auto", "concise", "detailed"] | None = None


class OpenRouterUsage(BaseModel):
    """``usage``: ask for token counts and cost in the response."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    include: bool | None = None


class OpenRouterCacheControl(BaseModel):
    """``cache_control``: on a text content part a prompt-cache breakpoint; top-level, automatic."""

    model_config = ConfigDict(extra="forbid", defer_build=True, hide_input_in_errors=True)

    type: Literal["ephemeral"]
    ttl: Literal["5m", "1h"] | None = None


class _DebugOptions(BaseModel):
    """``debug``: echo the body OpenRouter sent upstream as the stream's first chunk."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    echo_upstream_body: StrictBool | None = None


class _Trace(BaseModel):
    """``trace``: broadcast metadata; five keys OpenRouter reads, any other passed on as custom."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    trace_id: str | None = None
    trace_name: str | None = None
    span_name: str | None = None
    generation_name: str | None = None
    parent_span_id: str | None = None


class OpenRouterChatRequest(OpenAIChatCompletionsRequest):
    """OpenRouter's chat request: the OpenAI fields plus its routing and reasoning settings.

    ``verbosity`` also takes ``xhigh`` and ``max``. Also its sampling parameters beyond
    OpenAI's (``top_k``, ``repetition_penalty``, ``min_p``, ``top_a``, in the ranges its
    parameters reference gives), ``plugins`` (web search, file parsing, response healing, ...),
    ``session_id`` and an image model's ``image_config``. ``plugins`` and ``image_config`` stay
    plain mappings: OpenRouter adds plugins, and an image model's options vary by model.

    And its observability and legacy switches: ``debug`` (streaming only), a top-level
    ``cache_control`` (automatic caching at the last cacheable block), ``trace`` (custom keys
    kept), ``structured_outputs`` and ``include_reasoning`` (the deprecated switch that
    ``reasoning.exclude`` replaced, sent as given rather than rewritten).
    """

    shapes = lazy_chat_shapes(
        "OpenRouterChat",
        roles={"assistant": {"reasoning": str, "reasoning_details": list[dict[str, Any]]}},
        parts={"text": {"cache_control": OpenRouterCacheControl}},
    )

    models: list[str] | None = None
    route: Literal["fallback"] | None = None
    provider: OpenRouterProviderPreferences | None = None
    transforms: list[str] | None = None
    reasoning: OpenRouterReasoning | None = None
    usage: OpenRouterUsage | None = None
    # Two levels above OpenAI's three (OpenRouter's own Verbosity enum), for models that take them.
    verbosity: Literal["low", "medium", "high", "xhigh", "max"] | None = None  # type: ignore[assignment]
    top_k: StrictInt | None = Field(default=None, ge=0)
    repetition_penalty: StrictFloat | None = Field(default=None, ge=0, le=2)
    min_p: StrictFloat | None = Field(default=None, ge=0, le=1)
    top_a: StrictFloat | None = Field(default=None, ge=0, le=1)
    plugins: list[dict[str, Any]] | None = None
    session_id: str | None = None
    image_config: dict[str, Any] | None = None
    debug: _DebugOptions | None = None
    cache_control: OpenRouterCacheControl | None = None
    trace: _Trace | None = None
    structured_outputs: StrictBool | None = None
    include_reasoning: StrictBool | None = None


class OpenRouterProjector(ChatCompletionsProjector):
    """The shared chat stream, keeping OpenRouter's ``delta.reasoning_details`` and ``images``.

    Those blocks (reasoning text, summaries, encrypted reasoning, each with its format and
    signature) are what a later turn sends back on the assistant message to keep the model's
    reasoning across tool calls; the one-shot ``message.reasoning_details`` carries them, so a
    stream keeps them too, each delta's list on a ``thinking`` chunk with no text.

    An image model asked with ``modalities: ["image", "text"]`` streams its pictures as
    ``delta.images`` (``{"type": "image_url", "image_url": {"url": "data:..."}}`` each), the
    one-shot ``message.images``; each delta's list goes out on a ``text`` chunk with no text,
    as ``metadata["images"]`` (as an audio answer's data rides on ``metadata["audio"]``).
    Read as the shared dialect reads an unknown member, the images were dropped and the stream
    still ended with a result.

    With ``debug: {"echo_upstream_body": true}`` the stream's first chunk has no choices and a
    top-level ``debug`` object (the body sent upstream); it is kept on the result's metadata as
    ``metadata["debug"]``, since a chunk without choices was otherwise passed over.
    """

    result_fields = ("debug",)
    delta_fields = (("reasoning_details", "thinking"), ("images", "text"))


class OpenRouterChat(OpenAIChatEndpoint):
    """OpenRouter chat completions (``https://openrouter.ai/api/v1/chat/completions``)."""

    projector: ClassVar[type[StreamProjector] | None] = OpenRouterProjector

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """A moderation refusal first, then the shared dialect's codes.

        OpenRouter answers a prompt a model's required moderation flagged with HTTP 403 and
        ``error.metadata`` holding ``reasons`` and ``flagged_input`` (its documented moderation
        error). Read by its status alone that was an auth error telling the caller to check a
        key that works; it is the caller's content, refused again if resent, so it is the
        content-filter family: never retried, neutral for the circuit.
        """
        if info.status == 403 and _is_moderation(info.error):
            return ProviderStatusContentFilterError(
                f"{info.where} refused the request: OpenRouter's moderation flagged the input "
                f"(HTTP 403; the same content is refused again, so it is not retried)"
                f"{info.suffix}",
                status=info.status,
                body_excerpt=info.excerpt,
            )
        return super().map_status_error(info)


def _is_moderation(error: Mapping[str, object]) -> bool:
    """True for OpenRouter's moderation error object (its metadata names what was flagged)."""
    metadata = error.get("metadata")
    return isinstance(metadata, dict) and ("flagged_input" in metadata or "reasons" in metadata)
